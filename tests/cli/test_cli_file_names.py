"""An identifier in an input file name reaches no output name, report or
review file: `deid redact` writes such a note under its pseudonymous name
and says so, or refuses it under --strict (issue 35 item 1)."""
from __future__ import annotations

from app.cli.main import main


def run(*argv):
    return main(["-q", *map(str, argv)])


def _project_listing_a_patient(tmp_path):
    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    table = tmp_path / "pt.csv"
    table.write_text("ID,FIRST,SURNAME\np1,Ottoline,Varga\n", encoding="utf-8")
    assert run("lists", proj, "add", table, "--kind", "patients", "--map", "patient_id=ID",
               "first_name=FIRST", "last_name=SURNAME") == 0
    notes = tmp_path / "fn"
    notes.mkdir()
    (notes / "p1_VARGA_OTTOLINE_n1.txt").write_text("Ms Varga was seen today.\n", encoding="utf-8")
    (notes / "p1_n2.txt").write_text("Patient resting, no complaints.\n", encoding="utf-8")
    return proj, notes


def _names_under(folder) -> str:
    return " ".join(p.name for p in folder.rglob("*")).casefold()


def _text_under(folder) -> str:
    return " ".join(p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file()
                    ).casefold()


def test_a_name_holding_a_listed_patient_is_written_pseudonymously_and_reported_so(
        tmp_path, capsys):
    proj, notes = _project_listing_a_patient(tmp_path)
    out, rep = tmp_path / "out", tmp_path / "rep"
    capsys.readouterr()
    assert run("redact", proj, notes, out, "--rules-only", "--report", rep / "r.json") == 0
    said = capsys.readouterr().out
    assert "1 note whose file name holds an identifier was written under a pseudonymous" \
        in said and "varga" not in said.casefold()
    assert (out / "p1_n2.txt").is_file()                 # a name without one is kept
    assert len(list(out.glob("note-*.txt"))) == 1
    assert run("audit", proj, out, "--notes", "2") == 0
    for where in (_names_under(out), _names_under(rep), _text_under(out), _text_under(rep)):
        assert "varga" not in where and "ottoline" not in where
    assert "notes_renamed" in (rep / "r.json").read_text(encoding="utf-8")


def test_strict_refuses_a_note_whose_name_holds_an_identifier(tmp_path, capsys):
    proj, notes = _project_listing_a_patient(tmp_path)
    out = tmp_path / "out"
    capsys.readouterr()
    run("redact", proj, notes, out, "--rules-only", "--strict")
    said = capsys.readouterr().out
    assert "file name holds an identifier" in said and "varga" not in said.casefold()
    assert [p.name for p in out.glob("*.txt")] == ["p1_n2.txt"]
    assert "varga" not in _names_under(out) + _text_under(out)


def test_an_export_of_a_document_named_by_an_identifier_opens_from_its_new_name(tmp_path):
    """The export wizard opens a suspected note in Preview by its output
    name: a document renamed pseudonymously keeps that link."""
    from app.project import Project
    from app.services.exporting import ExportRequest, export_documents
    proj, notes = _project_listing_a_patient(tmp_path)
    assert run("import", proj, notes, "--no-suggest") == 0
    with Project.open(proj) as p:
        outcome = export_documents(p, ExportRequest(tmp_path / "out", rules_only=True))
        renamed = [n.note for n in outcome.summary.notes if n.renamed]
        assert len(renamed) == 1 and renamed[0].startswith("note-")
        assert p.document(outcome.doc_ids[renamed[0]]).name == "p1_VARGA_OTTOLINE_n1"
    assert "varga" not in _names_under(tmp_path / "out")


def test_a_record_number_of_a_site_rule_or_a_shipped_one_in_a_name_is_not_kept(
        tmp_path, capsys):
    """A walkthrough named notes "KH-1234567" (the site's own rule's record
    number), "ref # 8336652" (the shipped reference-number rule's) and
    "MRN1234567": the name is read with its "-" and "#", and with letters
    and digits apart, by every finding rule of the floor."""
    import json
    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    rules = tmp_path / "kh.json"
    rules.write_text(json.dumps([{"name": "kh-record", "kind": "record_number",
                                  "patterns": [r"\bKH-\d{7}\b"]}]), encoding="utf-8")
    notes = tmp_path / "in"
    notes.mkdir()
    for name in ("KH-1234567.txt", "ref # 8336652.txt", "MRN7654321.txt", "ward round.txt"):
        (notes / name).write_text("Patient resting, no complaints.\n", encoding="utf-8")
    assert run("rules", proj, "add", rules) == 0
    out = tmp_path / "out"
    capsys.readouterr()
    assert run("redact", proj, notes, out, "--rules-only") == 0
    said = capsys.readouterr().out
    assert "3 notes whose file name holds an identifier" in said
    names = _names_under(out)
    assert "1234567" not in names and "8336652" not in names and "7654321" not in names
    assert "ward round.txt" in names
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    assert report["rules"] == {"shipped_off": [], "site_on": ["kh-record"], "site_off": []}
    assert "the site's own rules: kh-record" in (out / "deid-report.html").read_text(
        encoding="utf-8")


def test_a_name_holding_a_word_the_note_itself_replaces_is_not_kept(tmp_path, capsys):
    """A walkthrough's "Zebulon Quackenbush.txt", whose note names him: no
    list knows him, but the note's own spans replace him, so the name may
    not carry him either (nor the report or manifest); a resumed run finds
    the note where the first one wrote it."""
    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    notes = tmp_path / "in"
    notes.mkdir()
    (notes / "Zebulon Quackenbush.txt").write_text(
        "Patient Zebulon Quackenbush seen on the ward today.\n", encoding="utf-8")
    (notes / "discharge summary.txt").write_text("Discharge summary: resting.\n",
                                                 encoding="utf-8")
    out = tmp_path / "out"
    capsys.readouterr()
    assert run("redact", proj, notes, out) == 0
    said = capsys.readouterr().out
    assert "1 note whose file name holds an identifier" in said and "zebulon" not in said.casefold()
    for where in (_names_under(out), _text_under(out)):
        assert "zebulon" not in where and "quackenbush" not in where
    assert (out / "discharge summary.txt").is_file()
    assert run("redact", proj, notes, out) == 0                       # resumed
    assert "zebulon" not in _names_under(out) and len(list(out.glob("note-*.txt"))) == 1
    capsys.readouterr()
    run("redact", proj, notes, tmp_path / "strict", "--strict")
    assert "file name holds an identifier" in capsys.readouterr().out
    assert not list((tmp_path / "strict").glob("note-*.txt"))


def test_a_resumed_run_leaves_no_output_of_a_note_under_its_old_name(tmp_path, capsys):
    """A walkthrough redacted "ramsey.txt" (its .ann empty, the name in clear),
    annotated the name and redacted again: the note was written under its
    pseudonym, and the first output, the name in clear, stayed beside it;
    "doerfler_jane.txt", renamed at first, came back under its own name
    once its text stopped naming her."""
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    notes = tmp_path / "in"
    notes.mkdir()
    text = "Patient Ada Ramsey seen today.\n"
    (notes / "ramsey.txt").write_text(text, encoding="utf-8")
    (notes / "ramsey.ann").write_text("", encoding="utf-8")
    out = tmp_path / "out"
    assert run("redact", proj, notes, out, "--use-annotations") == 0
    assert (out / "ramsey.txt").is_file()
    start = text.index("Ada")
    (notes / "ramsey.ann").write_text(f"T1\tPERSON {start} {start + 10}\tAda Ramsey\n",
                                      encoding="utf-8")
    assert run("redact", proj, notes, out, "--use-annotations") == 0
    assert not (out / "ramsey.txt").exists() and not (out / "ramsey.spans.jsonl").exists()
    assert len(list(out.glob("note-*.txt"))) == 1
    assert "ramsey" not in _text_under(out) and "ramsey" not in _names_under(out)
    # The text no longer names her: the name stays hidden all the same.
    (notes / "ramsey.txt").write_text("Patient seen today.\n", encoding="utf-8")
    (notes / "ramsey.ann").write_text("", encoding="utf-8")
    assert run("redact", proj, notes, out, "--use-annotations") == 0
    assert "ramsey" not in _names_under(out) and len(list(out.glob("note-*.txt"))) == 1
    assert run("audit", proj, out, "--notes", "5") == 0              # one note, drawn once
    rows = [line for line in (out / "audit-review.tsv").read_text(encoding="utf-8").splitlines()
            if line and not line.startswith(("#", "note\t"))]
    assert len(rows) == 1 and rows[0].startswith("note-")
