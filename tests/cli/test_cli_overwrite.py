"""`deid redact` and `deid export` never replace a file in OUT_DIR that they
did not write (a person's own .ann, documents.jsonl, an unrelated .txt)
unless --force; what they wrote themselves, even in a run killed before it
could record it, they replace on a re-run (issue 35 item 4); `deid annotate`
too."""
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


def test_annotate_keeps_a_persons_ann_and_replaces_what_a_killed_run_of_its_own_wrote(
        project, tmp_path, capsys, monkeypatch):
    """A walkthrough killed `deid annotate` after 768 of 1,000 notes: the
    re-run refused the folder ("already holds 768 files ... --force"). What
    annotate writes is claimed before it is written, so a re-run replaces
    its own files, and still refuses a person's."""
    import app.formats as formats
    proj, notes = project
    out = tmp_path / "out"
    original = formats.write_documents

    def killed_after_one(docs, folder, fmt):
        original(docs[:1], folder, fmt)
        raise KeyboardInterrupt                           # "killed" after the first note

    monkeypatch.setattr(formats, "write_documents", killed_after_one)
    assert run("annotate", proj, notes, out, "--workers", "1") == 1
    monkeypatch.undo()
    assert (out / "P1_a.ann").is_file()
    assert run("annotate", proj, notes, out, "--workers", "1") == 0   # its own: no --force
    theirs = out / "P2_b.ann"
    theirs.write_text("T1\tID 4 10\t998877\n", encoding="utf-8")
    (out / ".deid-written.jsonl").unlink()                # as a person's folder holds them
    capsys.readouterr()
    assert run("annotate", proj, notes, out, "--workers", "1") == 1
    assert "annotate would replace" in capsys.readouterr().err
    assert theirs.read_text(encoding="utf-8") == "T1\tID 4 10\t998877\n"
