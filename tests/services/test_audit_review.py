"""`deid audit`: a review file a reviewer has begun is never replaced
unasked, and the signed bound comes from the sample the project drew and
the export's manifest, not from whatever the editable file says (issue 35
items 3 and 7)."""
from __future__ import annotations

import json

import pytest

from app.cli.main import main


def run(*argv):
    return main(["-q", *map(str, argv)])


@pytest.fixture
def export(tmp_path):
    """A project and a folder it redacted (rules only): 6 notes."""
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(6):
        (notes / f"n{i}.txt").write_text(f"Seen by Dr Alex Quill on 03/04/2021, MRN 44556{i}7. "
                                         f"Call 0412 345 67{i}.\n", encoding="utf-8")
    out = tmp_path / "out"
    assert run("redact", proj, notes, out, "--rules-only") == 0
    return proj, out


def _rows(out):
    lines = (out / "audit-review.tsv").read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines
            if line and not line.startswith("#") and not line.startswith("note\t")]


def _write(out, rows, prefix=""):
    body = "".join("\t".join(r) + "\n" for r in rows)
    (out / "audit-review.tsv").write_text(
        prefix + "note\tidentifiers_replaced\tidentifiers_left\tcomment\n" + body,
        encoding="utf-8")


def _finish(proj, out, capsys):
    capsys.readouterr()
    code = run("audit", proj, out, "--finish", "--reviewer", "R. Officer")
    said = capsys.readouterr()
    return code, said.out, said.err.strip().splitlines()


def test_a_begun_review_is_not_replaced_without_force(export, capsys):
    proj, out = export
    assert run("audit", proj, out, "--notes", "3") == 0
    assert run("audit", proj, out, "--notes", "3") == 0      # untouched: drawn again freely
    rows = _rows(out)
    _write(out, [[r[0], r[1], "0", "read twice"] for r in rows])
    before = (out / "audit-review.tsv").read_bytes()
    capsys.readouterr()
    assert run("audit", proj, out, "--notes", "3") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--force" in err[0]
    assert (out / "audit-review.tsv").read_bytes() == before
    assert run("audit", proj, out, "--notes", "3", "--force") == 0
    assert all(r[2] == "" for r in _rows(out))


@pytest.mark.parametrize("forge", ["duplicated", "dropped", "added", "huge", "over-words"])
def test_a_review_that_is_not_the_sample_drawn_is_refused(export, capsys, forge):
    proj, out = export
    assert run("audit", proj, out, "--notes", "3", "--seed", "1") == 0
    rows = [[r[0], r[1], "0", ""] for r in _rows(out)]
    drawn = {r[0] for r in rows}
    outside = next(p.name for p in sorted(out.glob("*.txt")) if p.name not in drawn)
    forged = {"duplicated": rows + [rows[0]] * 50,
              "dropped": rows[1:],
              "added": rows + [[outside, "3", "0", ""]],
              "huge": [rows[0][:2] + ["9" * 400, ""]] + rows[1:],
              "over-words": [rows[0][:2] + ["5000", ""]] + rows[1:]}[forge]
    _write(out, forged)
    code, said, err = _finish(proj, out, capsys)
    assert code == 1 and len(err) == 1 and err[0].startswith("deid: error: "), err
    assert "at most" not in said


def test_identifiers_replaced_come_from_the_manifest_and_a_bom_is_read(export, capsys):
    proj, out = export
    assert run("audit", proj, out, "--notes", "3", "--seed", "1") == 0
    true_counts = [int(r[1]) for r in _rows(out)]
    # Spreadsheet-saved (a BOM), with the replaced counts talked up.
    _write(out, [[r[0], "99", "0", ""] for r in _rows(out)], prefix="\ufeff")
    code, said, err = _finish(proj, out, capsys)
    assert code == 0, err
    # `deid redact` wrote its report beside the notes: the audit signs for its model.
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    assert report["audit"]["identifiers_checked"] == sum(true_counts)
    assert report["audit"]["model"] and report["audit"]["policy"]
    assert not (out / "audit-report.json").exists()
    # What the review window and the export wizard read of a signed export.
    from app.project import Project
    from app.services.auditing import signed_audit
    with Project.open(proj, readonly=True) as p:
        assert signed_audit(p, out)["reviewer"] == "R. Officer"
        assert signed_audit(p, out.parent) is None


def test_a_binary_review_file_is_one_clear_error(export, capsys):
    proj, out = export
    assert run("audit", proj, out, "--notes", "3") == 0
    (out / "audit-review.tsv").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe" * 20)
    code, _, err = _finish(proj, out, capsys)
    assert code == 1 and len(err) == 1 and err[0].startswith("deid: error: "), err


def test_the_review_window_reads_a_count_of_thousands_of_digits_as_none(export):
    """The GUI's review reads the file too: int() of 5000 digits raised."""
    from app.services.auditing import sampled_notes
    proj, out = export
    assert run("audit", proj, out, "--notes", "2") == 0
    rows = _rows(out)
    _write(out, [rows[0][:2] + ["7" * 5000, ""], rows[1][:2] + ["1", ""]])
    assert [left for *_, left in sampled_notes(out)] == [None, 1]


def test_notes_read_clean_where_the_scan_still_suspects_are_said():
    """A walkthrough signed "0 of 5 notes leak" with 8 open suspicions in two
    of the notes it read; the report said nothing of them."""
    from app.deid.report import _audit_section
    from app.services.auditing import _scan_disagrees
    report = {"per_note": [{"note": "a.txt", "leaks": 4}, {"note": "b.txt", "leaks": 4},
                           {"note": "c.txt", "leaks": 0}, {"note": "d.txt", "leaks": 2}]}
    rows = [("a.txt", 10, 0), ("b.txt", 7, 0), ("c.txt", 3, 0), ("d.txt", 5, 1)]
    record = _scan_disagrees(rows, report)
    assert record == {"notes": 2, "suspicions": 8}            # d.txt: the review found one
    assert _scan_disagrees(rows, {}) is None and _scan_disagrees(rows[2:3], report) is None
    audit = {"notes_sentence": "0 of 5 notes leak", "identifiers_sentence": "",
             "reviewer": "R", "notes_reviewed": 4, "notes_in_export": 4,
             "reviewed_at": "2026-12-01", "identifiers_left": 1, "notes_leaking": 1,
             "model": None, "scan_disagrees": record}
    assert ("The leak scan suspects 8 identifiers in 2 notes of those read, where the review "
            "found none left in clear") in _audit_section(audit)
    assert "leak scan suspects" not in _audit_section({**audit, "scan_disagrees": None})


def test_an_export_a_run_did_not_finish_is_not_sampled(export, capsys):
    """A walkthrough killed `deid redact` after half the notes and drew a
    review from the half: the folder says the run did not finish."""
    from app.formats.written import UNFINISHED
    proj, out = export
    (out / UNFINISHED).write_text("as a killed run leaves it\n", encoding="utf-8")
    capsys.readouterr()
    assert run("audit", proj, out, "--notes", "2") == 1
    assert "did not finish" in capsys.readouterr().err
    assert not (out / "audit-review.tsv").exists()
    assert run("redact", proj, tmp := out.parent / "notes", out, "--rules-only") == 0
    assert not (out / UNFINISHED).exists() and tmp.is_dir()
    assert run("audit", proj, out, "--notes", "2") == 0


def test_a_report_written_outside_the_export_is_the_one_the_audit_reads(tmp_path, capsys):
    """`deid redact ... --report ELSEWHERE`: the audit weighs that report's
    model and leak scan and is written into it (it read nothing and said
    nothing of the scan's doubts)."""
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(4):
        (notes / f"n{i}.txt").write_text(f"Seen by Dr Alex Quill, MRN 44556{i}7.\n",
                                         encoding="utf-8")
    out, elsewhere = tmp_path / "out", tmp_path / "reports" / "r.json"
    assert run("redact", proj, notes, out, "--rules-only", "--report", elsewhere) == 0
    assert not (out / "deid-report.json").exists()
    assert run("audit", proj, out, "--notes", "4") == 0
    _write(out, [[r[0], r[1], "0", ""] for r in _rows(out)])
    code, said, err = _finish(proj, out, capsys)
    assert code == 0, err
    assert str(elsewhere.with_suffix(".html")) in said
    report = json.loads(elsewhere.read_text(encoding="utf-8"))
    assert report["audit"]["model"] == report["model"] and report["model"]
    assert report["audit"]["policy"] == report["policy"]
    assert not (out / "audit-report.json").exists()
