"""Blind double annotation, agreement, adjudication and guidelines, through the widgets."""
from __future__ import annotations

import pytest

from app.gui.qt import QTextCursor, Qt
from app.project import ADJUDICATED

TEXT = "Dr Ann Lee met Bob Ray in Perth on Monday"


def _label(qtbot, window, surface: str, key) -> None:
    start = TEXT.index(surface)
    window.editor.text_view.select(start, start + len(surface))
    qtbot.keyClick(window.editor.text_view, key)


def _become(window, settings, name: str) -> None:
    path = window.project.path
    settings.setValue("annotator", name)
    window.close_project()
    assert window.open_project(path)


def test_blind_annotation_agreement_and_adjudication(window, settings, qtbot, tmp_path):
    w = window
    assert w.new_project(tmp_path / "p.deid", "paper")
    doc = w.project.add_document("double", TEXT)
    monday = TEXT.index("Monday")
    w.project.add_span(doc, monday, monday + 6, "DOB", source="model", status="suggested",
                       confidence=0.4)
    w.assign_documents([doc], ["ann", "bob"])

    w.open_document(doc)                               # as "ann"
    assert w.editor.session.blind and w.editor.blind_label.text().startswith("Blind double")
    _label(qtbot, w, "Ann Lee", Qt.Key_1)
    _label(qtbot, w, "Bob Ray", Qt.Key_1)
    _label(qtbot, w, "Perth", Qt.Key_2)                # ADDRESS
    qtbot.keyClick(w.editor.text_view, Qt.Key_Escape)
    w.editor.text_view.moveCursor(QTextCursor.End)
    qtbot.keyClick(w.editor.text_view, Qt.Key_Backtab)
    assert w.editor.current().status == "suggested"
    qtbot.keyClick(w.editor.text_view, Qt.Key_R)       # ann rejects the shared suggestion

    # Someone the note is not assigned to (a lead) is told whose it is, not "blind".
    _become(w, settings, "lead")
    w.open_document(doc)
    assert w.editor.blind_label.text().startswith("Annotated blind by ann and bob, not by you")
    _become(w, settings, "bob")
    w.open_document(doc)
    assert [r.status for r in w.editor.session.spans] == ["suggested"]   # blind to ann
    _label(qtbot, w, "Ann Lee", Qt.Key_1)
    _label(qtbot, w, "Bob Ray", Qt.Key_1)
    _label(qtbot, w, "Perth", Qt.Key_1)                # PERSON: a label disagreement
    assert w.project.span_records(doc, source="model")[0].status == "suggested"

    w.show_view("Agreement")
    w.agreement.a_box.setCurrentText("ann")
    w.agreement.b_box.setCurrentText("bob")
    result = w.agreement.compute()
    assert result.f1 == pytest.approx(2 / 3)
    assert result.kappa_all == pytest.approx(0.55 / 0.65)
    assert result.kappa_annotated == pytest.approx(2 / 3)
    assert w.agreement.dis_table.rowCount() == 1
    assert w.agreement.dis_table.item(0, 2).text() == "label differs"
    assert "“Perth”" in w.agreement.dis_table.item(0, 3).text()
    assert w.agreement.label_table.item(0, 0).text() == "ADDRESS"

    w.agreement.dis_table.selectRow(0)
    with qtbot.waitSignal(w.agreement.adjudicateRequested) as blocker:
        w.agreement.adjudicate_button.click()
    assert blocker.args == [doc, "ann", "bob", TEXT.index("Perth")]
    assert w.current_view() == "Adjudicate"
    adj = w.adjudication
    assert len(adj.agreed) == 2 and adj.table.rowCount() == 1
    assert not adj.save_button.isEnabled()
    qtbot.keyClick(adj.table, Qt.Key_1)                # take A (ADDRESS)
    assert adj.table.item(0, 4).text() == "take A" and adj.save_button.isEnabled()
    with qtbot.waitSignal(adj.adjudicated):
        adj.save_button.click()

    path = w.project.path
    w.close_project()
    assert w.open_project(path)
    p = w.project
    assert [(s.start, s.end, s.label) for s in p.gold_spans(doc)] == [
        (3, 10, "PERSON"), (15, 22, "PERSON"), (26, 31, "ADDRESS")]
    assert {r.annotator for r in p.span_records(doc, status="accepted")} >= {ADJUDICATED}
    assert p.document(doc).status == "reviewed"
    entry = next(e for e in p.audit_entries() if e.event == "adjudicated")
    assert entry.actor == "bob" and entry.detail["took_a"] == 1
    assert p.assignments(doc) == ["ann", "bob"]


def test_guidelines_edit_and_persist(window, qtbot, tmp_path):
    w = window
    assert w.new_project(tmp_path / "g.deid", "paper")
    w.show_view("Guidelines")
    g = w.guidelines
    g.label_list.setCurrentRow(1)
    assert g.name.text() == "ADDRESS"
    g.description.setPlainText("Street addresses and postcodes; not hospital names.")
    g.examples.setPlainText("4 High St Perth -> ADDRESS")
    with qtbot.waitSignal(g.labelsChanged):
        g.save_button.click()
    tips = {b.text(): b.toolTip() for b in w.editor.label_buttons()}
    assert tips["2 ADDRESS"].startswith("Street addresses")
    path = w.project.path
    w.close_project()
    assert w.open_project(path)
    w.guidelines.label_list.setCurrentRow(1)
    assert w.guidelines.examples.toPlainText() == "4 High St Perth -> ADDRESS"
    assert w.project.labels()[1].description.endswith("not hospital names.")


def test_a_second_annotator_assigned_in_the_window_is_offered_as_b(imported, qtbot):
    """One annotator showed as both A and B, and still did after File > Assign
    selected note… added a second: Compute only said to choose again."""
    from journeys.journey import assign_selected
    from test_main_window import _key, _shown
    w = _shown(imported, qtbot)
    table = w.documents.table
    qtbot.mouseClick(table.viewport(), Qt.LeftButton,
                     pos=table.visualRect(table.model().index(2, 0)).center())
    assign_selected(qtbot, w, "ann", "bob")
    _key(qtbot, w, Qt.Key_5, Qt.ControlModifier)                      # Go > Agreement
    assert (w.agreement.a_box.currentText(), w.agreement.b_box.currentText()) == ("ann", "bob")


def test_two_annotators_who_share_no_note_are_told_so_not_scored_1(window, tmp_path):
    """A walkthrough read "entity F1 1.000 · κ 1.000 (0 tokens)" for two
    annotators sharing no note."""
    w = window
    assert w.new_project(tmp_path / "p.deid", "paper")
    doc = w.project.add_document("one", TEXT)
    other = w.project.add_document("two", TEXT + ".")
    w.assign_documents([doc], ["ann", "bob"])
    w.assign_documents([other], ["cy", "dee"])
    w.agreement.set_project(w.project)
    w.agreement.a_box.setCurrentText("ann")
    w.agreement.b_box.setCurrentText("cy")
    assert w.agreement.compute() is None
    assert "share no note: nothing to compare" in w.agreement.summary.text()
    assert "1.000" not in w.agreement.summary.text()


def test_the_disagreement_chosen_in_agreement_is_the_one_adjudicate_opens_at(window, tmp_path,
                                                                             qtbot):
    """A walkthrough chose the second disagreement and Adjudicate opened at
    the first."""
    w = window
    assert w.new_project(tmp_path / "p.deid", "paper")
    doc = w.project.add_document("double", TEXT)
    w.assign_documents([doc], ["ann", "bob"])
    for surface, ann_label, bob_label in (("Ann Lee", "PERSON", "ADDRESS"),
                                          ("Perth", "ADDRESS", "PERSON")):
        start = TEXT.index(surface)
        w.project.add_span(doc, start, start + len(surface), ann_label, annotator="ann")
        w.project.add_span(doc, start, start + len(surface), bob_label, annotator="bob")
    a = w.agreement
    a.set_project(w.project)
    a.a_box.setCurrentText("ann")
    a.b_box.setCurrentText("bob")
    qtbot.mouseClick(a.compute_button, Qt.LeftButton)
    assert a.dis_table.rowCount() == 2
    qtbot.mouseClick(a.dis_table.viewport(), Qt.LeftButton,
                     pos=a.dis_table.visualItemRect(a.dis_table.item(1, 0)).center())
    qtbot.mouseClick(a.adjudicate_button, Qt.LeftButton)
    assert w.adjudication.table.currentRow() == 1
    assert "Perth" in w.adjudication.table.item(1, 2).text()
    assert w.adjudication.table.item(1, 0).text() == "line 1"        # not character offsets
