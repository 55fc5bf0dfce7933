"""Input that ended in exit 2 (an internal error) is one clear line and exit
1 (issue 35 item 13): a huge repetition in --patient-regex, a --cluster
that is no scheduler address or answers like no scheduler, a damaged
export report under `deid audit --finish`."""
from __future__ import annotations

import socket
import threading

import pytest

from app.cli.main import main


def run(*argv):
    return main(["-q", *map(str, argv)])


def _one_error_line(capsys, code):
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and err[0].startswith("deid: error: "), (code, err)
    assert "Traceback" not in err[0]
    return err[0]


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "P1_a.txt").write_text("Seen by Dr Jones, ph 0412 345 678.\n", encoding="utf-8")
    return proj, notes


def test_a_patient_regex_too_large_to_compile(project, tmp_path, capsys):
    proj, notes = project
    capsys.readouterr()
    line = _one_error_line(capsys, run("import", proj, notes, "--patient-regex",
                                       "a{99999999999}"))
    assert "--patient-regex" in line
    _one_error_line(capsys, run("redact", proj, notes, tmp_path / "out", "--rules-only",
                                "--patient-regex", "a{99999999999}"))


@pytest.mark.parametrize("address", ["garbage", "file:///etc/passwd", "local:lots",
                                     "tcp://host name:1"])
def test_a_cluster_that_is_no_scheduler_address(project, tmp_path, capsys, address):
    pytest.importorskip("distributed")
    proj, notes = project
    capsys.readouterr()
    line = _one_error_line(capsys, run("redact", proj, notes, tmp_path / "out", "--rules-only",
                                       "--cluster", address))
    assert "--cluster" in line


def test_a_cluster_address_that_answers_like_no_scheduler(project, tmp_path, capsys):
    """An HTTP server's reply read as a Dask frame asked for 3 EiB (MemoryError)."""
    pytest.importorskip("distributed")
    proj, notes = project
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4)

    threading.Thread(target=answer, daemon=True).start()
    try:
        capsys.readouterr()
        line = _one_error_line(capsys, run("redact", proj, notes, tmp_path / "out",
                                           "--rules-only", "--cluster", f"tcp://127.0.0.1:{port}"))
    finally:
        server.close()
    assert "cannot reach the Dask scheduler" in line


@pytest.mark.parametrize("report", ["{not json", "[" * 100000 + "]" * 100000, "[1, 2]"])
def test_a_damaged_export_report_under_audit_finish(project, tmp_path, capsys, report):
    proj, notes = project
    out = tmp_path / "out"
    assert run("redact", proj, notes, out, "--rules-only") == 0
    assert run("audit", proj, out, "--notes", "1") == 0
    review = out / "audit-review.tsv"
    rows = [line.split("\t") for line in review.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith(("#", "note\t"))]
    review.write_text("".join(f"{r[0]}\t{r[1]}\t0\t\n" for r in rows), encoding="utf-8")
    (out / "deid-report.json").write_text(report, encoding="utf-8")
    capsys.readouterr()
    line = _one_error_line(capsys, run("audit", proj, out, "--finish", "--reviewer", "R"))
    assert "deid-report.json" in line


@pytest.mark.timeout(120)
def test_a_patient_regex_that_backtracks_without_end_is_bounded(project, tmp_path, capsys,
                                                                 monkeypatch):
    """`(a+)+$` on a 201-character file name hung import, redact and annotate
    holding the write lock (issue 35 item 11): each match is bounded."""
    from app.core import bounded
    monkeypatch.setattr(bounded, "MATCH_TIMEOUT_S", 0.05)
    proj, notes = project
    (notes / ("a" * 201 + "!.txt")).write_text("Seen.\n", encoding="utf-8")
    # A pattern whose every match takes longer than the bound.
    slow = r"(?:(?:a|aa|aaa)+)+(?:x|y)$"
    capsys.readouterr()
    for argv in (("import", proj, notes), ("redact", proj, notes, tmp_path / "out",
                                          "--rules-only")):
        line = _one_error_line(capsys, run(*argv, "--patient-regex", slow))
        assert "takes too long" in line


def test_smaller_things_of_the_second_probe(project, tmp_path, capsys, monkeypatch):
    """Issue 35 item 14, in part: `--report DIR` writes into the folder (it
    wrote DIR.json beside it); a truncated project is damaged, not "not an
    SQLite database"; the error log is private (0600)."""
    import os
    import stat
    from app.errors import log_internal_error
    proj, notes = project
    rep = tmp_path / "rep"
    rep.mkdir()
    capsys.readouterr()
    assert run("redact", proj, notes, tmp_path / "out", "--rules-only", "--report", rep) == 0
    assert f"audit report: {rep / 'deid-report.json'}" in capsys.readouterr().out
    assert (rep / "deid-report.json").is_file() and not (tmp_path / "rep.json").exists()
    cut = tmp_path / "cut.deid"
    cut.write_bytes(proj.read_bytes()[:1500])
    line = _one_error_line(capsys, run("import", cut, notes))
    assert "is damaged" in line and "not an SQLite database" not in line
    monkeypatch.setenv("DEID_USER_DIR", str(tmp_path / "user"))
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / "deid-error.log").write_text("", encoding="utf-8")   # an older 0644 one
    try:
        raise RuntimeError("boom")
    except RuntimeError as exc:
        said = log_internal_error(exc)
    log = said.rsplit("details in ", 1)[1]
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600


def test_evaluate_on_notes_imported_without_a_split_says_how_to_give_one(tmp_path, capsys):
    """The README's steps (new, import without --split, train, evaluate)
    ended at "no annotated documents in the 'test' split" with no way out
    (issue 35 item 14)."""
    proj, notes = tmp_path / "p.deid", tmp_path / "notes"
    notes.mkdir()
    (notes / "P1_a.txt").write_text("Seen by Dr Jones.\n", encoding="utf-8")
    (notes / "P1_a.ann").write_text("T1\tPERSON 11 16\tJones\n", encoding="utf-8")
    assert run("new", proj) == 0
    assert run("import", proj, notes, "--no-suggest") == 0
    capsys.readouterr()
    line = _one_error_line(capsys, run("evaluate", proj))
    assert "deid split p.deid" in line           # split them by patient, then train again


def test_local_workers_are_capped_at_the_cores_and_a_failed_start_is_one_line(
        project, tmp_path, capsys, monkeypatch):
    """`--cluster local:100000` tried to start 100,000 workers; `local:2`
    with no network ended in exit 2 (issue 35 items 11 and 13)."""
    import os
    distributed = pytest.importorskip("distributed")
    asked = []

    def no_network(**kw):
        asked.append(kw["n_workers"])
        raise OSError("no network")

    monkeypatch.setattr(distributed, "LocalCluster", no_network)
    proj, notes = project
    capsys.readouterr()
    line = _one_error_line(capsys, run("redact", proj, notes, tmp_path / "out", "--rules-only",
                                       "--cluster", "local:100000"))
    assert "could not start the local Dask workers (OSError)" in line
    assert asked == [min(100000, os.cpu_count() or 1)]


@pytest.mark.parametrize("argv", [("import", "p.deid", ".", "--split", "bogus"),
                                  ("new", "p.deid", "--no-such-option"), ("annotate",)])
def test_a_wrong_command_line_is_a_user_error_exit_1_with_its_usage(tmp_path, capsys, argv):
    """argparse exits 2, which the contract keeps for internal errors."""
    with pytest.raises(SystemExit) as ended:
        run(*argv)
    assert ended.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("usage: deid") and "error: " in err and "Traceback" not in err


def test_synth_into_a_folder_it_cannot_make_is_one_clear_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert "cannot write into" in _one_error_line(capsys, run("synth", blocker / "out"))


def test_output_read_by_a_program_that_stops_early_is_no_internal_error(tmp_path):
    """`deid new P.deid | head -0`: the reader closes the pipe; the command stops
    quietly (no "internal error", no error log) instead of exit 2."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "new", str(tmp_path / "p.deid")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                                os.path.abspath(__file__)))))
    proc.stdout.close()                         # the reader is gone before the first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "internal error" not in err and "Traceback" not in err, err
    assert (tmp_path / "p.deid").is_file()      # what it did is done
