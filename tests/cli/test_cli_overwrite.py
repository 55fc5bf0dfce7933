"""`deid redact` and `deid export` never replace a file in OUT_DIR that they
did not write (a person's own .ann, documents.jsonl, an unrelated .txt)
unless --force; what they wrote themselves, even in a run killed before it
could record it, they replace on a re-run (issue 35 item 4)."""
from __future__ import annotations

import pytest

from app.cli.main import main
from app.formats.written import claim_paths


def run(*argv):
    return main(["-q", *map(str, argv)])


@pytest.fixture
def project(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "P1_a.txt").write_text("Seen by Dr Jones, ph 0412 345 678.\n", encoding="utf-8")
    (notes / "P1_a.ann").write_text("T1\tPERSON 11 16\tJones\n", encoding="utf-8")
    (notes / "P2_b.txt").write_text("MRN 998877 reviewed.\n", encoding="utf-8")
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    assert run("import", proj, notes, "--split", "train") == 0
    return proj, notes


def _refused(capsys, code, mine, before):
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "did not write" in err[0] and "--force" in err[0], err
    assert mine.read_bytes() == before


@pytest.mark.parametrize("fmt, theirs", [("brat", "P1_a.ann"), ("jsonl", "documents.jsonl"),
                                         ("brat", "P2_b.txt")])
def test_export_keeps_a_file_it_did_not_write(project, tmp_path, capsys, fmt, theirs):
    proj, _ = project
    out = tmp_path / "out"
    out.mkdir()
    mine = out / theirs
    mine.write_text("a person's own file\n", encoding="utf-8")
    capsys.readouterr()
    _refused(capsys, run("export", proj, out, "--format", fmt), mine, mine.read_bytes())
    assert run("export", proj, out, "--format", fmt) == 1
    assert run("export", proj, out, "--format", fmt, "--force") == 0
    assert mine.read_text(encoding="utf-8") != "a person's own file\n"
    assert run("export", proj, out, "--format", fmt) == 0       # its own files: replaced


def test_redact_keeps_a_file_it_did_not_write_and_replaces_its_own(project, tmp_path, capsys):
    proj, notes = project
    out = tmp_path / "out"
    out.mkdir()
    mine = out / "P1_a.spans.jsonl"
    mine.write_text("mine\n", encoding="utf-8")
    capsys.readouterr()
    _refused(capsys, run("redact", proj, notes, out, "--rules-only"), mine, b"mine\n")
    assert not (out / "P2_b.txt").exists()                       # nothing written
    assert run("redact", proj, notes, out, "--rules-only", "--force") == 0
    assert mine.read_text(encoding="utf-8") != "mine\n"
    # A note changed: its output, the tool's own, is written again unasked.
    (notes / "P2_b.txt").write_text("MRN 998878 reviewed.\n", encoding="utf-8")
    assert run("redact", proj, notes, out, "--rules-only") == 0


def test_a_file_a_killed_run_was_about_to_write_is_its_own(project, tmp_path):
    proj, notes = project
    out = tmp_path / "out"
    out.mkdir()
    # A run killed after writing a note but before its manifest entry.
    claim_paths(out, ["P1_a.txt", "P1_a.spans.jsonl"])
    (out / "P1_a.txt").write_text("half done\n", encoding="utf-8")
    assert run("redact", proj, notes, out, "--rules-only") == 0
    assert (out / "P1_a.txt").read_text(encoding="utf-8") != "half done\n"
