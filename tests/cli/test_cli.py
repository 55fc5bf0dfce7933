import json
import os
import signal
import sys
import time
import sqlite3

import pytest

from app.cli.main import main
from app.errors import UserError


def run(*argv):
    return main(["-q", *map(str, argv)])


@pytest.fixture
def notes(tmp_path):
    d = tmp_path / "notes"
    d.mkdir()
    (d / "P1_a.txt").write_text("Seen by Dr Jones, ph 0412 345 678.\n", encoding="utf-8")
    (d / "P1_a.ann").write_text("T1\tPERSON 11 16\tJones\nT2\tPHONE 21 33\t0412 345 678\n", encoding="utf-8")
    (d / "P2_b.txt").write_text("MRN 998877 reviewed.\n", encoding="utf-8")
    (d / "P2_b.ann").write_text("T1\tIDN 4 10\t998877\n", encoding="utf-8")
    return d


def test_new_import_export_round_trip(tmp_path, notes, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    assert run("import", proj, notes, "--patient-regex", r"^(P\d+)_") == 0
    assert "imported 2 documents" in capsys.readouterr().out
    for fmt in ("brat", "conll", "jsonl", "i2b2"):
        assert run("export", proj, tmp_path / fmt, "--format", fmt) == 0
    assert (tmp_path / "brat" / "P1_a.ann").read_text(encoding="utf-8").splitlines() == [
        "T1\tPERSON 11 16\tJones", "T2\tPHONE 21 33\t0412 345 678"]
    rows = [json.loads(l) for l in (tmp_path / "jsonl" / "documents.jsonl").read_text().splitlines()]
    assert {r["patient_id"] for r in rows} == {"P1", "P2"}


def test_user_errors_exit_1_with_one_line_and_change_nothing(tmp_path, notes, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    before = proj.read_bytes()
    capsys.readouterr()
    assert run("new", proj) == 1                                  # exists
    assert run("import", tmp_path / "missing.deid", notes) == 1   # no project
    assert run("import", proj, tmp_path / "nowhere") == 1         # no input
    assert run("new", tmp_path / "x.deid", "--labels", "nope") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(l.startswith("deid: error: ") for l in err)
    assert "Traceback" not in "".join(err)
    assert proj.read_bytes() == before
    assert not (tmp_path / "x.deid").exists()


def test_not_a_project_and_newer_version_are_refused(tmp_path, capsys):
    bogus = tmp_path / "bogus.deid"
    bogus.write_bytes(b"hello, not sqlite")
    assert run("export", bogus, tmp_path / "o", "--format", "brat") == 1
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    con = sqlite3.connect(proj)
    con.execute("PRAGMA user_version = 999")
    con.commit()
    con.close()
    capsys.readouterr()
    assert run("export", proj, tmp_path / "o", "--format", "brat") == 1
    assert "newer" in capsys.readouterr().err


def test_doctor_reports_versions_and_offline_checks(capsys, monkeypatch, tmp_path):
    from app.services.doctor import run_doctor
    expected = 0 if run_doctor().ok else 1
    capsys.readouterr()
    code = run("doctor")
    out = capsys.readouterr().out
    assert "torch" in out and "Offline self-check" in out
    assert code == expected and ("[FAIL]" in out) == bool(expected)
    assert "[FAIL] vendored MiniLM" not in out


def test_doctor_exits_1_when_a_check_fails(capsys, monkeypatch, tmp_path):
    from app import paths
    monkeypatch.setattr(paths, "sample_notes_dir", lambda: tmp_path / "no-samples")
    assert run("doctor") == 1
    assert "[FAIL] bundled sample notes" in capsys.readouterr().out


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="POSIX signals")
def test_sigterm_is_an_interrupt_while_a_command_runs():
    from app.cli.main import _terminate_as_interrupt
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        with _terminate_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
    assert signal.getsignal(signal.SIGTERM) == before


def test_train_objectives_match_the_training_service():
    from app.cli.main import build_parser
    from app.services.training import OBJECTIVES
    train = next(a for a in build_parser()._subparsers._group_actions[0].choices["train"]._actions
                 if a.dest == "objective")
    assert tuple(train.choices) == OBJECTIVES


def test_group_options_parse_into_named_member_sets():
    from app.cli.commands import _groups
    assert _groups(["fast=spacy, crf,rules", "pair=crf-imbalanced,rules"]) == {
        "fast": ["spacy", "crf", "rules"], "pair": ["crf-imbalanced", "rules"]}
    for bad in (["fast"], ["=spacy,crf"], ["fast="], ["a=spacy,crf", "a=crf,rules"]):
        with pytest.raises(UserError, match="--group"):
            _groups(bad)
