import json
import os
from pathlib import Path

import pytest

from app.core.labels import PRESETS
from app.errors import UserError
from app.project import Project
from app.services.exporting import export_project
from app.services.importing import import_path


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.deid", list(PRESETS["paper"])) as p:
        yield p


def test_mixed_folder_imports_good_files_and_reports_each_bad_one(tmp_path, project):
    d = tmp_path / "notes"
    d.mkdir()
    (d / "good.txt").write_text("Seen by Dr Smith.\r\nMRN 123456\r\n", encoding="utf-8", newline="")
    (d / "good.ann").write_text("T1\tPERSON 11 16\tSmith\nT2\tIDN 23 29\t123456\n", encoding="utf-8")
    (d / "latin.txt").write_bytes("Patient José Núñez, café.\n".encode("cp1252"))
    (d / "binary.txt").write_bytes(b"\x00\x01\x02\x89PNG\x00" * 50)
    (d / "empty.txt").write_bytes(b"")
    (d / "broken.txt").write_text("Some note.\n", encoding="utf-8")
    (d / "broken.ann").write_text("T1\tPERSON x y\tSome\n", encoding="utf-8")

    s = import_path(project, d, fmt="brat")

    assert s.imported == 2
    reported = {Path(p).name for p, _ in s.problems}
    assert reported == {"binary.txt", "empty.txt", "broken.ann"}
    assert all(reason for _, reason in s.problems)
    infos = {i.name: i for i in project.document_infos()}
    good = project.document(infos["good"].id)
    assert "\r\n" in good.text                      # line endings kept, offsets true
    spans = project.gold_spans(good.id)
    assert sorted((good.text[s.start:s.end], s.label) for s in spans) == [
        ("123456", "IDN"), ("Smith", "PERSON")]
    assert infos["good"].status == "done"           # came with an .ann
    assert project.document(infos["latin"].id).text.startswith("Patient José Núñez")


def test_every_file_left_out_is_listed_and_no_link_leads_out_of_the_folder(tmp_path, project):
    """A folder of notes and one i2b2 .xml imported only the XML saying "0
    files skipped"; .md and extension-less files went unlisted; a link to a
    file outside the folder was followed and imported (issue 35 item 8)."""
    outside = tmp_path / "elsewhere.xml"
    outside.write_text("<deIdi2b2><TEXT><![CDATA[Not a note of this folder.]]></TEXT><TAGS>"
                       "</TAGS></deIdi2b2>", encoding="utf-8")
    d = tmp_path / "notes"
    (d / "s").mkdir(parents=True)
    (d / "a.txt").write_text("Seen today.\n", encoding="utf-8")
    (d / "b.xml").write_text("<deIdi2b2><TEXT><![CDATA[Seen by Dr Smith.]]></TEXT><TAGS>"
                             "</TAGS></deIdi2b2>", encoding="utf-8")
    (d / "c.md").write_text("Seen again.\n", encoding="utf-8")
    (d / "d").write_text("Seen once more.\n", encoding="utf-8")
    os.symlink(outside, d / "s" / "p1.xml")

    s = import_path(project, d)

    assert s.imported == 1 and [i.name for i in project.document_infos()] == ["b"]
    reasons = {Path(p).name: reason for p, reason in s.problems}
    assert set(reasons) == {"a.txt", "c.md", "d", "p1.xml"}
    assert "--format txt" in reasons["a.txt"] and "(.md)" in reasons["c.md"]
    assert "no extension" in reasons["d"] and "outside the folder" in reasons["p1.xml"]
    s = import_path(project, d, fmt="txt")
    assert s.imported == 1 and "a" in [i.name for i in project.document_infos()]


def test_duplicates_are_skipped_and_counted(tmp_path, project):
    d = tmp_path / "n"
    d.mkdir()
    (d / "a.txt").write_text("same text", encoding="utf-8")
    (d / "b.txt").write_text("same text", encoding="utf-8")
    s = import_path(project, d, fmt="txt")
    assert (s.imported, s.duplicates) == (1, 1)
    s2 = import_path(project, d, fmt="txt")
    assert (s2.imported, s2.duplicates) == (0, 2)
    # Said which, and of what note.
    assert s.duplicate_of == [("b", "a")] and s2.duplicate_of == [("a", "a"), ("b", "a")]
    from app.services.importing import duplicates_words
    assert duplicates_words(s2.duplicate_of) == "a, b (as a)"


def _brat(folder: Path, notes: dict[str, tuple[str, list[tuple[int, int, str]]]]) -> Path:
    folder.mkdir()
    for name, (text, spans) in notes.items():
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
        (folder / f"{name}.ann").write_text("".join(
            f"T{k}\t{label} {a} {b}\t{text[a:b]}\n" for k, (a, b, label) in enumerate(spans, 1)),
            encoding="utf-8")
    return folder


NOTE = "Seen by Dr Ann Lee, MRN 1234567."


def test_a_second_annotators_files_of_the_same_notes_become_their_layer(tmp_path, project):
    """Two brat folders of the same notes, each imported under its annotator,
    give a double-annotated note the Agreement view compares."""
    from app.services.double_annotation import project_agreement

    first = _brat(tmp_path / "a", {"n1": (NOTE, [(11, 18, "PERSON"), (24, 31, "IDN")])})
    second = _brat(tmp_path / "b", {"n1": (NOTE, [(8, 18, "PERSON"), (24, 31, "IDN")])})
    assert import_path(project, first, fmt="brat", annotator="ann1").imported == 1
    s = import_path(project, second, fmt="brat", annotator="ann2")
    assert (s.imported, s.layer, s.duplicates, s.taken_spans, s.spans) == (0, 1, 0, 2, 0)
    [info] = project.document_infos()
    assert info.status == "done" and project.assignments(info.id) == ["ann1", "ann2"]
    agreed = project_agreement(project, "ann1", "ann2")
    assert list(agreed.items) == [info.id] and not agreed.unfinished
    assert agreed.overall.f1 == pytest.approx(0.5)         # the IDN agrees, the names do not
    # Training reads the union until someone adjudicates, and says so.
    assert {(g.start, g.end) for g in project.gold_spans(info.id)} == {(11, 18), (8, 18), (24, 31)}
    from app.core.spans import Span
    from app.services.double_annotation import save_adjudication, unadjudicated_sentence
    assert unadjudicated_sentence(project).startswith("1 note annotated by two people is not")
    # The same annotator again, or no annotator: a duplicate, nothing written.
    again = import_path(project, second, fmt="brat", annotator="ann2")
    plain = import_path(project, second, fmt="brat")
    assert (again.layer, again.duplicates, plain.duplicates) == (0, 1, 1)
    assert len(project.span_records(info.id, status="accepted")) == 4
    # A corrected export of a layer the project holds is not merged unasked: said.
    corrected = _brat(tmp_path / "b2", {"n1": (NOTE, [(8, 18, "PERSON")])})
    s = import_path(project, corrected, fmt="brat", annotator="ann2")
    assert s.duplicates == 1 and "ann2's annotations in the project differ" in s.warnings[0][1]
    # Another annotator's copy of the note with its text changed: not a near-copy beside it.
    changed = _brat(tmp_path / "c", {"n1": (NOTE.replace("Ann", "Anne"), [(8, 19, "PERSON")])})
    s = import_path(project, changed, fmt="brat", annotator="ann3")
    assert s.imported == 0 and "text differs" in s.problems[0][1]
    assert len(project.document_infos()) == 1
    # No empty name, and not the adjudicated gold's.
    for name in ("", "  ", "@adjudicated"):
        with pytest.raises(UserError):
            import_path(project, changed, fmt="brat", annotator=name)
    save_adjudication(project, info.id, [Span(8, 18, "PERSON"), Span(24, 31, "IDN")],
                      annotators=("ann1", "ann2"), agreed=1, choices=["B"])
    assert unadjudicated_sentence(project) is None


def test_annotations_of_notes_imported_plain_are_taken(tmp_path, project):
    """Notes imported as plain text, annotated in another tool and imported
    again take their annotations (they were skipped as duplicates)."""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "n1.txt").write_text(NOTE, encoding="utf-8")
    import_path(project, plain, fmt="txt")
    [info] = project.document_infos()
    project.add_span(info.id, 11, 18, "PERSON", source="model", status="suggested")
    s = import_path(project, _brat(tmp_path / "a", {"n1": (NOTE, [(8, 18, "PERSON")])}),
                    fmt="brat")
    assert (s.annotated, s.duplicates, s.taken_spans) == (1, 0, 1)
    assert project.document_infos()[0].status == "done"
    assert [(g.start, g.end) for g in project.gold_spans(info.id)] == [(8, 18)]
    assert not project.span_records(info.id, status="suggested")


def test_an_unnamed_annotation_is_not_compared_and_the_import_says_why(tmp_path, project):
    import_path(project, _brat(tmp_path / "a", {"n1": (NOTE, [(11, 18, "PERSON")])}), fmt="brat")
    s = import_path(project, _brat(tmp_path / "b", {"n1": (NOTE, [(8, 18, "PERSON")])}),
                    fmt="brat", annotator="ann2")
    assert (s.layer, s.duplicates, s.unnamed) == (0, 1, 1) and not s.warnings
    from app.services.importing import unnamed_sentence
    assert "--annotator" in unnamed_sentence(s)
    assert [(g.start, g.end) for g in project.gold_spans(project.document_infos()[0].id)] == \
        [(11, 18)]


def test_patient_regex_and_split(tmp_path, project):
    d = tmp_path / "n"
    d.mkdir()
    (d / "P12_note1.txt").write_text("one", encoding="utf-8")
    (d / "P12_note2.txt").write_text("two", encoding="utf-8")
    import_path(project, d, fmt="txt", split="test", patient_regex=r"^(P\d+)_")
    infos = project.document_infos()
    assert {i.patient_id for i in infos} == {"P12"}
    assert {i.split for i in infos} == {"test"}


def test_a_patient_pattern_is_guessed_from_file_names_that_share_ids():
    """Several notes of several patients: the id before the first "_" (else
    "-"); one shared prefix, no separator or no digit in it: none."""
    from app.services.importing import guess_patient_regex, patient_id_from
    import re
    names = ["p001_n001", "p001_n004", "p002_n002"]
    pattern = guess_patient_regex(names)
    assert pattern == "^([^_]+)_"
    assert [patient_id_from(n, re.compile(pattern)) for n in names] == ["p001", "p001", "p002"]
    assert guess_patient_regex(["123-2019", "123-2020", "456-2019"]) == "^([^-]+)-"
    for names in (["note_1", "note_2"], ["p1_a", "p2_a"], ["a1", "a2", "a1b"],
                  ["ward_a", "ward_b", "clinic_c"], ["p001_n001"]):
        assert guess_patient_regex(names) is None, names


def test_bad_arguments_are_user_errors(tmp_path, project):
    with pytest.raises(UserError):
        import_path(project, tmp_path / "missing", fmt="txt")
    with pytest.raises(UserError):
        import_path(project, tmp_path, fmt="txt", patient_regex="(")


def test_new_labels_join_the_label_set(tmp_path, project):
    d = tmp_path / "n"
    d.mkdir()
    (d / "a.txt").write_text("Calle Mayor 5", encoding="utf-8")
    (d / "a.ann").write_text("T1\tCALLE 0 13\tCalle Mayor 5\n", encoding="utf-8")
    s = import_path(project, d, fmt="brat")
    assert s.labels_added == ["CALLE"]
    assert "CALLE" in [l.name for l in project.labels()]


def test_meddocan_project_round_trip_is_exact(tmp_path, meddocan):
    """All three splits into one project and out to brat: every span identical."""
    src = meddocan
    with Project.create(tmp_path / "m.deid", [], language="es") as project:
        for split in ("train", "dev", "test"):
            s = import_path(project, src / split, fmt="brat", split=split)
            assert not s.problems
        assert project.count_documents() == 1000
        export_project(project, tmp_path / "out", "brat")

    def read_ann(path):
        out = []
        for line in path.read_text(encoding="utf-8-sig").splitlines():
            if line.startswith("T"):
                _, mid, text = line.split("\t")
                label, start, end = mid.split(" ")
                out.append((int(start), int(end), label, text))
        return sorted(out)

    total = 0
    for split in ("train", "dev", "test"):
        for ann in (src / split).glob("*.ann"):
            exported = tmp_path / "out" / ann.name
            assert exported.with_suffix(".txt").read_bytes() == ann.with_suffix(".txt").read_bytes()
            got = read_ann(exported)
            assert got == read_ann(ann)
            total += len(got)
    assert total == 22795


# --- issue 23 item 5: nothing lost or doubled on the way in --------------------

def test_jsonl_export_then_import_keeps_split_and_patient(tmp_path, project):
    notes = [("n1", "Seen by Dr Smith.", "P1", "train"), ("n2", "MRN 998877.", "P2", "test"),
             ("n3", "No identifiers.", None, None)]
    for name, text, patient, split in notes:
        project.add_document(name, text, patient_id=patient, split=split)
    export_project(project, tmp_path / "out", "jsonl")
    with Project.create(tmp_path / "q.deid", list(PRESETS["paper"])) as q:
        s = import_path(q, tmp_path / "out", fmt="jsonl")
        assert s.imported == 3
        got = {i.name: (i.patient_id, i.split) for i in q.document_infos()}
        assert all("patient_id" not in i.meta and "split" not in i.meta
                   for i in q.document_infos())
    assert got == {n: (p, sp) for n, _, p, sp in notes}


def test_jsonl_fields_yield_to_the_command_line(tmp_path, project):
    (tmp_path / "d.jsonl").write_text(
        '{"name": "P7_a", "text": "Note one.", "patient_id": "X", "split": "dev"}\n'
        '{"name": "P8_b", "text": "Note two.", "split": "holdout"}\n', encoding="utf-8")
    import_path(project, tmp_path / "d.jsonl", split="train", patient_regex=r"^(P\d+)_")
    assert {(i.patient_id, i.split) for i in project.document_infos()} == {
        ("P7", "train"), ("P8", "train")}


def test_unknown_jsonl_split_is_not_imported_as_a_split(tmp_path, project):
    (tmp_path / "d.jsonl").write_text('{"name": "a", "text": "Note.", "split": "holdout"}\n',
                                      encoding="utf-8")
    import_path(project, tmp_path / "d.jsonl")
    assert [i.split for i in project.document_infos()] == [None]


def test_a_second_text_element_is_reported_not_dropped(tmp_path, project):
    d = tmp_path / "xml"
    d.mkdir()
    (d / "two.xml").write_text("<deIdi2b2><TEXT><![CDATA[First note.]]></TEXT>"
                               "<TEXT><![CDATA[Second note.]]></TEXT><TAGS/></deIdi2b2>",
                               encoding="utf-8")
    (d / "one.xml").write_text("<deIdi2b2><TEXT><![CDATA[Only note.]]></TEXT><TAGS/></deIdi2b2>",
                               encoding="utf-8")
    s = import_path(project, d, fmt="i2b2")
    assert s.imported == 1
    assert [(Path(p).name, r) for p, r in s.problems] == [
        ("two.xml", "more than one <TEXT> element (one note per file)")]


def test_a_character_reference_no_xml_may_hold_skips_that_file_only(tmp_path, project):
    d = tmp_path / "xml"
    d.mkdir()
    (d / "bad.xml").write_text("<deIdi2b2><TEXT>Bad &#xD800; here.</TEXT><TAGS/></deIdi2b2>",
                               encoding="utf-8")
    for k in range(3):
        (d / f"ok{k}.xml").write_text(f"<deIdi2b2><TEXT>Note {k}.</TEXT><TAGS/></deIdi2b2>",
                                      encoding="utf-8")
    s = import_path(project, d, fmt="i2b2")
    assert s.imported == 3
    assert [Path(p).name for p, _ in s.problems] == ["bad.xml"]


def test_a_span_written_twice_is_imported_once(tmp_path, project):
    d = tmp_path / "notes"
    d.mkdir()
    (d / "a.txt").write_text("Seen by Dr Smith.", encoding="utf-8")
    (d / "a.ann").write_text("T1\tPERSON 11 16\tSmith\nT2\tPERSON 11 16\tSmith\n", encoding="utf-8")
    s = import_path(project, d, fmt="brat")
    doc = project.document_infos()[0]
    assert [(x.start, x.end, x.label) for x in project.gold_spans(doc.id)] == [(11, 16, "PERSON")]
    assert s.spans == 1
    assert ("a", "1 repeated span imported once") in s.warnings


def test_damaged_utf8_keeps_its_accents_and_the_warning_is_in_the_audit_log(tmp_path, project):
    d = tmp_path / "notes"
    d.mkdir()
    (d / "a.txt").write_bytes("Patient José Núñez, café au lait ".encode("utf-8") + b"\xff"
                              + " señor.\n".encode("utf-8"))
    s = import_path(project, d, fmt="txt")
    text = project.document(project.document_infos()[0].id).text
    assert text == "Patient José Núñez, café au lait \ufffd señor.\n"
    assert s.warnings and "U+FFFD" in s.warnings[0][1]
    logged = [e.detail for e in project.audit_entries() if e.event == "import_warnings"]
    assert logged == [{"warnings": [["a", s.warnings[0][1]]]}]


def _latin1_named(folder: Path) -> Path:
    """A note whose file name is not valid UTF-8 (skipped where the OS refuses one)."""
    try:
        with open(os.path.join(os.fsencode(folder), b"nota_\xe9.txt"), "wb") as fh:
            fh.write(b"Note of Dr Jones.\n")
    except OSError:
        pytest.skip("this file system only takes UTF-8 names")
    return folder


def test_a_file_name_that_is_not_utf8_is_skipped_and_the_rest_imported(tmp_path, project):
    """Issue 23 item 6: it aborted the whole import (0 of 41)."""
    d = tmp_path / "notes"
    d.mkdir()
    for k in range(3):
        (d / f"n{k}.txt").write_text(f"Note {k} by Dr Smith.\n", encoding="utf-8")
    _latin1_named(d)
    s = import_path(project, d, fmt="txt")
    assert s.imported == 3
    # Named within the folder imported, as the summary shows it.
    assert s.problems == [("nota_\\xe9.txt", "file name is not valid UTF-8 (rename the file)")]


def test_names_are_unique_and_exportable_in_every_format(tmp_path, project):
    """Issue 23 item 7: two note1 from different imports, or names with
    : \\ a newline, a trailing space or dot, or differing only in case,
    made every export fail with exit 2."""
    for k, folder in enumerate(("a", "b")):
        d = tmp_path / folder
        d.mkdir()
        (d / "note1.txt").write_text(f"Note {k}.\n", encoding="utf-8")
        import_path(project, d)
    (tmp_path / "odd.jsonl").write_text("".join(
        json.dumps({"name": name, "text": f"Odd note {i}."}) + "\n" for i, name in enumerate(
            ["x:y", "back\\slash", "new\nline", "trail ", "dot.", "NOTE1", "CON", "sub/ok"])),
        encoding="utf-8")
    s = import_path(project, tmp_path / "odd.jsonl")
    names = sorted(i.name for i in project.document_infos())
    assert names == sorted(["note1", "note1-2", "x_y", "back/slash", "new_line", "trail", "dot",
                            "NOTE1-3", "CON_", "sub/ok"])
    assert sum("renamed" in w for _, w in s.warnings) == 7
    renamed = {i.name: i.meta.get("source_name") for i in project.document_infos()}
    assert renamed["x_y"] == "x:y" and renamed["sub/ok"] is None
    for fmt in ("brat", "conll", "jsonl", "i2b2"):
        assert export_project(project, tmp_path / f"out-{fmt}", fmt).documents == 10


def test_an_old_project_with_clashing_names_still_exports(tmp_path, project):
    project.add_document("note1", "First.")
    project.add_document("NOTE1", "Second.")
    project.add_document("a:b", "Third.")
    s = export_project(project, tmp_path / "out", "brat")
    assert s.documents == 3 and s.renamed == 2
    assert sorted(p.name for p in (tmp_path / "out").glob("*.txt")) == [
        "NOTE1-2.txt", "a_b.txt", "note1.txt"]


@pytest.mark.parametrize("regex", [r"^(P\d+)_", r"^(P\d+)/", r"_(n\d+)\.txt$", r"_(n\d+)$",
                                   r"(?P<patient>P\d+)"])
def test_import_annotate_and_redact_read_one_patient_from_nested_folders(tmp_path, project,
                                                                          regex):
    """One patient-pattern rule: the file name (with, then without its
    extension), then the path in the folder; `deid import`, `deid annotate`
    and the folder engine of `deid redact` name the same patient."""
    from app.deid import patient_key
    from app.deid.folder import folder_sources
    from app.formats import ImportedDoc, read_path
    from app.services.lists import patient_namer
    from app.services.settings import compile_patient_regex, note_path

    src = tmp_path / "nested"
    for rel in ("P1_n1.txt", "ward/P2_n2.txt", "ward/old/P3_n3.txt", "P4/note_n4.txt",
                "P5/deep/x.txt"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(f"Note {rel}.\n", encoding="utf-8")
    import_path(project, src, fmt="txt", patient_regex=regex)
    imported = {f"{i.name}.txt": i.patient_id for i in project.document_infos()}
    namer = patient_namer(project, compile_patient_regex(regex))
    annotated = {note_path(d): namer(note_path(d)) for d in read_path(src, "txt")
                 if isinstance(d, ImportedDoc)}
    redacted = {s.rel: s.patient for s in folder_sources(src, patient_regex=regex)}
    assert set(imported) == set(annotated) == set(redacted) and len(imported) == 5
    for rel, patient in imported.items():
        assert annotated[rel] == patient
        assert redacted[rel] == (patient_key(patient) if patient else None), rel
    if regex == r"^(P\d+)_":                      # in a sub-folder too
        assert imported["ward/old/P3_n3.txt"] == "P3"
    if regex == r"^(P\d+)/":                      # a folder per patient
        assert imported["P5/deep/x.txt"] == "P5" and imported["P1_n1.txt"] is None


def test_dates_of_birth_filed_under_every_date_are_warned_about(tmp_path):
    """A label for dates of birth only filed under a label taking every date
    (the sample's DOB under HIPAA's DATE) leaves the notes' other dates
    unmarked: the summary says so; kept as a label of its own, nothing is said."""
    d = tmp_path / "notes"
    d.mkdir()
    text = "Born 02/03/1950. Admitted 14/05/2020.\n"
    (d / "a.txt").write_text(text, encoding="utf-8")
    (d / "a.ann").write_text("T1\tDOB 5 15\t02/03/1950\n", encoding="utf-8")
    with Project.create(tmp_path / "h.deid", list(PRESETS["hipaa"])) as p:
        s = import_path(p, d, fmt="brat", label_map={"DOB": "DATE"})
        assert s.labels_mapped == {("DOB", "DATE"): 1}
        [said] = [w for w in s.left_in_clear if w.startswith("DOB ")]
        assert "filed under DATE, which takes every date" in said
        assert "02/03/1950" not in said and "14/05/2020" not in said      # no note text
        # ... and the labels no annotated note marks (the sample's "99 Y/O" stayed in clear).
        [unmarked] = [w for w in s.left_in_clear if w.startswith("No annotated note marks ")]
        assert unmarked.startswith("No annotated note marks NAME or PROFESSION or LOCATION or "
                                   "AGE or CONTACT or ID: a model trained on these notes learns "
                                   "to leave what they take in clear")
    with Project.create(tmp_path / "k.deid", list(PRESETS["hipaa"])) as p:
        s = import_path(p, d, fmt="brat")                    # DOB kept as a label of its own
        assert not [w for w in s.left_in_clear if w.startswith("DOB ")]


def test_a_plain_import_says_nothing_of_unmarked_labels(tmp_path):
    """Notes without annotations teach nothing yet: no label is said to be unmarked."""
    from app.services.importing import unmarked_labels
    d = tmp_path / "notes"
    d.mkdir()
    (d / "a.txt").write_text("Seen today.\n", encoding="utf-8")
    with Project.create(tmp_path / "h.deid", list(PRESETS["hipaa"])) as p:
        s = import_path(p, d, fmt="txt")
        assert s.imported == 1 and not [w for w in s.left_in_clear if "annotated note" in w]
        assert unmarked_labels(p) == []


def test_labels_the_annotations_leave_unmarked_where_the_rules_find_them(tmp_path):
    """The bundled letters' annotators marked dates of birth only: filed into a
    HIPAA project they mark few of the dates the rules find, and a trained
    model would leave dates in clear; what they do mark fully says nothing."""
    from app.services.coverage import unmarked_finds, unmarked_sentences

    sample = Path(__file__).resolve().parents[2] / "resources" / "sample" / "notes"
    mapping = {"DOB": "DATE", "PERSON": "NAME", "ADDRESS": "LOCATION", "IDN": "ID",
               "PHONE": "CONTACT"}
    with Project.create(tmp_path / "h.deid", list(PRESETS["hipaa"])) as p:
        assert not unmarked_finds(p)                       # nothing annotated yet
        import_path(p, sample, fmt="brat", label_map=mapping)
        found = {label: (marked, n) for label, marked, n in unmarked_finds(p)}
        assert set(found) == {"DATE", "AGE"}               # "99 Y/O" is over 89
        marked, n = found["DATE"]
        assert n >= 20 and marked < n / 2
        said = unmarked_sentences(p)
        assert len(said) == 2 and all("in clear" in s for s in said)
    with Project.create(tmp_path / "paper.deid", list(PRESETS["paper"])) as p:
        import_path(p, sample, fmt="brat")
        assert not unmarked_finds(p)                       # its labels, as annotated
