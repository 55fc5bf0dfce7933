"""``deid export --format redacted`` is the export wizard's job
(app.services.exporting.export_documents): the project's policy, the
chosen split, the audit report beside the notes where ``deid audit``
reads it."""
from __future__ import annotations

import json

from app.cli.main import main
from app.project import Project
from app.services.redaction import POLICY_KEY
from synth_projects import make_project


def test_cli_export_of_a_split_writes_the_wizards_report_beside_the_notes(tmp_path, capsys):
    path = make_project(tmp_path / "p.deid", n=10)
    with Project.open(path) as p:
        p.set_setting(POLICY_KEY, {"strategies": {"PERSON": "surrogate"}})
        test_notes = sorted(i.name for i in p.document_infos(split="test"))
    out = tmp_path / "out"
    assert test_notes
    assert main(["-q", "export", str(path), str(out), "--format", "redacted", "--rules-only",
                 "--split", "test"]) == 0
    assert sorted(x.stem for x in out.glob("*.txt")) == test_notes
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    assert (out / "deid-report.html").is_file()
    assert report["policy"]["strategies"]["PERSON"] == "surrogate"
    assert f"audit report: {out / 'deid-report.json'}" in capsys.readouterr().out
    assert main(["-q", "audit", str(path), str(out), "--notes", "2", "--seed", "1"]) == 0



def test_a_suspicion_is_flagged_under_the_label_its_kind_takes(tmp_path):
    """Issue 34 item 7: a date suspicion flagged NAME; the label follows the
    suspicion's category, in the project's own labels."""
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.exporting import suspicion_label
    with Project.create(tmp_path / "h.deid", list(PRESETS["hipaa"])) as p:
        assert [suspicion_label(p, c) for c in ("date", "DATE", "PERSON", "name", "HOSPITAL",
                                                "place", "number", "email", "residue")] == [
            "DATE", "DATE", "NAME", "NAME", "LOCATION", "LOCATION", "ID", "CONTACT", None]
    with Project.create(tmp_path / "p.deid", list(PRESETS["paper"])) as p:
        # A date is no date of birth: with DOB the one date label, a person chooses.
        assert [suspicion_label(p, c) for c in ("date", "DATE", "name", "place",
                                                "LOCATION")] == [
            None, None, "PERSON", "ADDRESS", "ADDRESS"]


def test_a_suspicion_is_flagged_once_an_accepted_annotation_covers_it(tmp_path):
    """The export summary's Status: a place is flagged when an accepted span
    covers it whole (an export replaces those), not a suggestion, a rejected
    span or part of it."""
    from app.core.labels import PRESETS
    from app.services.exporting import flagged_places
    text = "Seen by Ann Lee on 03/04/2021, Bob Ray called."
    with Project.create(tmp_path / "p.deid", list(PRESETS["paper"])) as p:
        doc = p.add_document("n", text)
        ann, bob, date = ((text.index(w), text.index(w) + len(w))
                          for w in ("Ann Lee", "Bob Ray", "03/04/2021"))
        assert flagged_places(p, doc, [ann, bob, date]) == [False, False, False]
        p.add_span(doc, *ann, "PERSON")
        p.add_span(doc, bob[0], bob[0] + 3, "PERSON")                     # "Bob" only
        p.add_span(doc, *date, "DOB", source="model", status="suggested")
        assert flagged_places(p, doc, [ann, bob, date, (ann[0], ann[0] + 3)]) == [
            True, False, False, True]


def test_the_report_names_a_persons_annotations_and_the_projects_labels(tmp_path):
    """A HIPAA project holding a note annotated elsewhere, exported on day one:
    the report says a person's annotations made their spans (it said "not
    named"), and the starter's doubts are named by the project's labels (it
    named a HOSPITAL this project has no label for)."""
    import shutil
    from pathlib import Path
    from app.core.labels import PRESETS
    from app.services.importing import import_path
    from app.services.redaction import redact_project
    sample = Path(__file__).resolve().parents[2] / "resources" / "sample" / "notes"
    notes = tmp_path / "notes"
    notes.mkdir()
    for suffix in (".txt", ".ann"):
        shutil.copy(sample / f"P0001_note_0001{suffix}", notes)
    with Project.create(tmp_path / "h.deid", list(PRESETS["hipaa"])) as p:
        import_path(p, notes, label_map={"PERSON": "NAME", "ADDRESS": "LOCATION",
                                         "DOB": "DATE", "IDN": "ID", "PHONE": "CONTACT"})
        labels = {label.name for label in p.labels()}
        _, report = redact_project(p, tmp_path / "out", workers=1)
    made_by = report["made_by"]
    assert made_by["a person's annotation"] == 18 and "not named" not in made_by
    by_model = {(s["kind"], s["category"]) for n in report["per_note"] for s in n["suspicions"]
                if s["kind"] in ("unsure", "model")}
    assert ("unsure", "LOCATION") in by_model and {c for _, c in by_model} <= labels


def test_the_report_says_in_words_what_made_the_replacements(tmp_path):
    """A privacy officer reads "the shipped starter model" and "the rule
    “phone”", not member and step names; the names stay for the experts."""
    import shutil
    from pathlib import Path
    from app.core.labels import PRESETS
    from app.deid.report import render_html
    from app.services.importing import import_path
    from app.services.redaction import redact_project
    sample = Path(__file__).resolve().parents[2] / "resources" / "sample" / "notes"
    notes = tmp_path / "notes"
    notes.mkdir()
    shutil.copy(sample / "P0001_note_0001.txt", notes)                     # no annotation
    with Project.create(tmp_path / "d.deid", list(PRESETS["paper"])) as p:
        import_path(p, notes)
        _, report = redact_project(p, tmp_path / "out", workers=1)
    words = report["made_by_words"]
    assert set(words) == set(report["made_by"]) and words
    assert all(w and ".v1" not in w and "-balanced" not in w for w in words.values())
    assert "the shipped starter model" in " ".join(words.values())
    page = render_html(report)
    assert "the shipped starter model" in page and "<th>Name</th>" in page
