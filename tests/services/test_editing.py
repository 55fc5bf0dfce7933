"""Qt-free editing logic: token snapping, occurrences, offsets."""
from __future__ import annotations

from app.core.labels import PRESETS
from app.services.editing import AnnotationSession, snap_to_tokens, token_occurrences
from app.core.tokenize import tokenize
from app.project import Project

TEXT = "Seen by Dr Ann Lee, (ph 0412 345 678). DrSmith called."


def test_snap_expands_to_tokens_and_trims_punctuation():
    start = TEXT.index("nn Le")                  # inside "Ann" ... inside "Lee"
    assert snap_to_tokens(TEXT, start, start + 5) == (11, 18)
    comma = TEXT.index(",")
    assert snap_to_tokens(TEXT, 10, comma + 2) == (11, 18)          # " Ann Lee, " trimmed
    ph = TEXT.index("(ph")
    assert TEXT[slice(*snap_to_tokens(TEXT, ph, TEXT.index(").") + 2))] == "(ph 0412 345 678)"
    assert TEXT[slice(*snap_to_tokens(TEXT, ph + 4, TEXT.index(").") + 2))] == "0412 345 678"
    assert snap_to_tokens(TEXT, comma, comma + 2) is None           # only punctuation/space
    smith = TEXT.index("Smith")                                     # camel-case token split
    assert snap_to_tokens(TEXT, smith + 1, smith + 3) == (smith, smith + 5)


def test_occurrences_respect_token_boundaries():
    text = "Lee saw Leeann and Lee."
    assert token_occurrences(text, "Lee", tokenize(text)) == [(0, 3), (19, 22)]


def test_session_undo_redo_is_persistent(tmp_path):
    path = tmp_path / "p.deid"
    with Project.create(path, PRESETS["paper"]) as project:
        doc = project.add_document("n", TEXT)
        session = AnnotationSession(project, doc, "ann")
        span_id = session.add(12, 17, "PERSON")
        session.relabel(span_id, "ADDRESS")
        assert [(r.start, r.end, r.label) for r in session.spans] == [(11, 18, "ADDRESS")]
        assert session.status == "in_progress"
        session.undo()
        assert [r.label for r in session.spans] == ["PERSON"]
    with Project.open(path) as project:
        session = AnnotationSession(project, doc, "ann")
        session.undo()
        assert session.spans == [] and project.document(doc).status == "todo"
        session.redo()
        session.redo()
        assert [r.label for r in session.spans] == ["ADDRESS"]
        assert session.redo() is None


def test_a_session_knows_when_something_else_wrote_its_notes_spans(tmp_path):
    """Its own edits are no change from elsewhere; suggestions a worker
    stores while the note is open are."""
    from app.core.spans import Span
    with Project.create(tmp_path / "p.deid", PRESETS["paper"]) as project:
        doc = project.add_document("n", TEXT)
        session = AnnotationSession(project, doc, "ann")
        span_id = session.add(12, 17, "PERSON")
        session.relabel(span_id, "ADDRESS")
        session.undo()
        assert not session.changed_elsewhere()
        project.replace_suggestions(doc, [Span(0, 4, "PERSON", 0.7)], None)
        assert session.changed_elsewhere()
        session.reload()
        assert not session.changed_elsewhere()


def test_in_blind_double_annotation_each_annotator_has_their_own_done(tmp_path):
    """Issue 34 item 14: the second annotator saw the first's "Done". Each
    annotator's status is their own; the shared one is done once both are."""
    from app.services.double_annotation import assign_notes
    with Project.create(tmp_path / "p.deid", PRESETS["paper"]) as project:
        doc = project.add_document("n", TEXT)
        other = project.add_document("m", "Nothing to see.")
        assign_notes(project, [doc], ["ann", "bob"])
        ann = AnnotationSession(project, doc, "ann")
        ann.add(12, 17, "PERSON")
        ann.set_status("done")
        bob = AnnotationSession(project, doc, "bob")
        assert (ann.status, bob.status) == ("done", "todo")
        assert project.document(doc).status == "in_progress"          # not done by both yet
        assert [i.status for i in project.document_infos(annotator="bob")] == ["todo", "todo"]
        assert project.count_documents(status="done", annotator="ann") == 1
        assert project.count_documents(status="done", annotator="bob") == 0
        assert [i.name for i in project.document_infos(status="todo", annotator="bob",
                                                       order="status")] == ["n", "m"]
        bob.set_status("done")
        assert project.document(doc).status == "done"
        bob.undo()
        assert (project.status_seen_by(doc, "bob"), project.document(doc).status) == \
            ("todo", "in_progress")
        assert AnnotationSession(project, doc, "ann").status == "done"
        # A note nobody is assigned keeps one status for everybody.
        AnnotationSession(project, other, "ann").set_status("done")
        assert AnnotationSession(project, other, "bob").status == "done"


def test_a_note_done_before_it_is_assigned_stays_done_for_who_finished_it(tmp_path):
    """Issue 34: a note assigned to two annotators after one of them marked
    it Done started "To do" for both. Who finished it keeps their Done, the
    newly assigned one starts To do, and the shared status is done once both are."""
    from app.services.double_annotation import assign_notes
    with Project.create(tmp_path / "p.deid", PRESETS["paper"]) as project:
        doc = project.add_document("n", TEXT)
        begun = project.add_document("m", TEXT + " Seen again.")
        ann = AnnotationSession(project, doc, "ann")
        ann.add(12, 17, "PERSON")
        ann.set_status("done")
        AnnotationSession(project, begun, "ann").add(12, 17, "PERSON")
        assign_notes(project, [doc, begun], ["ann", "bob"])
        assert (project.status_seen_by(doc, "ann"), project.status_seen_by(doc, "bob")) == \
            ("done", "todo")
        assert AnnotationSession(project, doc, "ann").status == "done"
        assert project.document(doc).status == "in_progress"          # not done by both yet
        # Labelled but never marked: begun for who labelled it.
        assert (project.status_seen_by(begun, "ann"), project.status_seen_by(begun, "bob")) == \
            ("in_progress", "todo")
        AnnotationSession(project, doc, "bob").set_status("done")
        assert project.document(doc).status == "done"
        assign_notes(project, [doc], ["ann", "bob"])                  # again: nothing changes
        assert (project.status_seen_by(doc, "ann"), project.status_seen_by(doc, "bob"),
                project.document(doc).status) == ("done", "done", "done")
        # A lead not assigned sees the shared status (done once both are), not "To do".
        assert project.status_seen_by(begun, "lead") == "in_progress"
        assert [(i.name, i.status) for i in project.document_infos(annotator="lead")] == \
            [("n", "done"), ("m", "in_progress")]
