"""Drive the real widgets: import, label by keyboard and mouse, undo, suggestions."""
from __future__ import annotations

from app.gui.qt import QApplication, QTextCursor, Qt
from app.project import Project

from gui_helpers import NOTES, doc_id


def _press(qtbot, window, key, mods=Qt.NoModifier):
    qtbot.keyClick(window.editor.text_view, key, mods)


def _spans(window, doc=None):
    """The note's spans less rejected ones and the rule suggestions every
    imported note gets (test_journey_annotator covers those)."""
    doc = doc or window.editor.session.doc_id
    return [(r.start, r.end, r.label, r.source, r.status)
            for r in window.project.span_records(doc)
            if r.status != "rejected" and (r.source, r.status) != ("rule", "suggested")]


def test_import_list_filter_search_and_next(imported, qtbot, tmp_path, monkeypatch):
    w = imported
    text = w.summary_dialog.text.text()
    # Issue 34 item 13: no "(s)"; the spans counted are the annotated ones.
    assert "3</b> notes imported with 1 annotated span ·" in text and "(s)" not in text
    model = w.documents.model
    assert model.rowCount() == 3 and w.documents.count_label.text() == "3 documents"
    a = doc_id(w, "P1_a")
    assert model.info(model.row_of(a)).patient_id == "P1"
    assert model.data(model.index(model.row_of(a), 6)) == "1"          # one import span
    w.documents.search_edit.setText("cara moss")
    w.documents.apply_filters()
    assert [model.info(r).name for r in range(model.rowCount())] == ["P2_a"]
    w.documents.search_edit.setText("")
    w.documents.status_box.setCurrentIndex(w.documents.status_box.findData("done"))
    assert model.rowCount() == 1                  # brat with an .ann counts as annotated
    w.documents.status_box.setCurrentIndex(0)
    w.documents.table.sortByColumn(0, Qt.DescendingOrder)
    assert [model.info(r).name for r in range(3)] == ["P2_a", "P1_b", "P1_a"]
    b, c = doc_id(w, "P1_b"), doc_id(w, "P2_a")
    w.project.set_document_fields(b, uncertainty=0.2)
    w.project.set_document_fields(c, uncertainty=0.7)
    assert w.documents.next_document() == c
    with qtbot.waitSignal(w.documents.documentActivated) as blocker:
        w.documents.next_button.click()
    assert blocker.args == [c] and w.current_view() == "Annotate"
    assert w.editor.session.doc_id == c
    # The same folder again: the summary says which notes each file repeats.
    from app.gui.qt import QFileDialog
    from journeys.journey import choose
    w.summary_dialog.hide()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        lambda *a, **k: str(tmp_path / "notes"))
    choose(qtbot, w, "File", "Import folder…")
    with qtbot.waitSignal(w.importFinished, timeout=20000):
        qtbot.keyClick(w.import_dialog.pattern, Qt.Key_Return)
    text = w.summary_dialog.text.text()
    assert "3 duplicates skipped (each the text of a note the project holds: P1_a, P1_b, " \
           "P2_a)" in text, text


def test_label_by_keyboard_and_mouse(imported, qtbot):
    w = imported
    doc = doc_id(w, "P2_a")
    w.project.replace_suggestions(doc, [], None, source="rule")   # spans made here only
    w.open_document(doc)
    text = NOTES["P2_a"][0]
    view = w.editor.text_view
    # Keyboard: a sloppy selection (inside the name, trailing comma) snaps to tokens.
    start = text.index("Cara") + 1
    view.select(start, text.index(",") + 1)
    _press(qtbot, w, Qt.Key_1)
    name = (text.index("Cara"), text.index(","))
    assert _spans(w) == [(*name, "PERSON", "human", "accepted")]
    assert w.editor.current().label == "PERSON"
    # The status bar says what the key made (it kept describing the last suggestion).
    assert w.statusBar().currentMessage().startswith("PERSON — accepted")
    assert w.project.document(doc).status == "in_progress"
    # The painted format carries the label and a solid underline.
    cursor = QTextCursor(view.document())
    cursor.setPosition(name[0] + 1)
    fmt = cursor.charFormat()
    assert "PERSON" in fmt.toolTip() and fmt.underlineStyle() == fmt.UnderlineStyle.SingleUnderline
    # Mouse: select with a QTextCursor, then click the label button.
    addr = text.index("4 High")
    view.select(addr, len(text))                    # "4 High St Perth." minus the stop
    label_buttons = {b.text(): b for b in w.editor.label_buttons()}
    qtbot.mouseClick(label_buttons["2 ADDRESS"], Qt.LeftButton)
    assert (addr, len(text) - 1, "ADDRESS", "human", "accepted") in _spans(w)
    # Navigate, relabel, widen/shrink by a token, delete.
    _press(qtbot, w, Qt.Key_Escape)
    view.moveCursor(QTextCursor.Start)
    _press(qtbot, w, Qt.Key_Tab)
    assert w.editor.current().label == "PERSON"
    _press(qtbot, w, Qt.Key_3)
    assert _spans(w)[0][2] == "DOB"
    _press(qtbot, w, Qt.Key_Right, Qt.ControlModifier | Qt.ShiftModifier)
    assert _spans(w)[0][:2] == (name[0], name[1] + 1)        # now takes the comma token
    _press(qtbot, w, Qt.Key_Left, Qt.AltModifier | Qt.ShiftModifier)
    _press(qtbot, w, Qt.Key_Left, Qt.AltModifier | Qt.ShiftModifier)
    assert _spans(w)[0][:2] == (name[0], text.index(" Moss"))  # "Cara"
    _press(qtbot, w, Qt.Key_J)
    assert w.editor.current().label == "ADDRESS"
    _press(qtbot, w, Qt.Key_Delete)
    assert [s[2] for s in _spans(w)] == ["DOB"]
    assert w.statusBar().currentMessage() == "ADDRESS span removed: Ctrl+Z brings it back"
    _press(qtbot, w, Qt.Key_Return, Qt.ControlModifier)
    assert w.project.document(doc).status == "done"
    row = w.documents.model.row_of(doc)
    assert w.documents.model.data(w.documents.model.index(row, 1)) == "Done"
    assert w.statusBar().currentMessage() == "Marked done"
    w.open_document(doc_id(w, "P1_a"))               # not said of the next note
    assert w.statusBar().currentMessage() != "Marked done"


def test_undo_redo_across_documents_and_reopen(imported, qtbot, tmp_path):
    w = imported
    a, b = doc_id(w, "P1_b"), doc_id(w, "P2_a")
    w.open_document(a)
    w.editor.text_view.select(0, 9)                  # "Follow-up" -> Follow - up tokens
    _press(qtbot, w, Qt.Key_4)
    first = _spans(w, a)
    assert len(first) == 1
    w.open_document(b)
    w.editor.text_view.select(8, 12)
    _press(qtbot, w, Qt.Key_1)
    w.open_document(a)
    _press(qtbot, w, Qt.Key_Z, Qt.ControlModifier)
    assert _spans(w, a) == [] and _spans(w, b) != []
    assert w.statusBar().currentMessage() == "Undone: the new label"     # not the code's "add"
    w.open_document(b)
    w.open_document(a)
    assert w.editor.redo_button.isEnabled()
    _press(qtbot, w, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert _spans(w, a) == first
    _press(qtbot, w, Qt.Key_Z, Qt.ControlModifier)
    path = w.project.path
    w.close_project()
    assert w.open_project(path)
    w.open_document(a)
    assert _spans(w, a) == [] and w.editor.redo_button.isEnabled()
    _press(qtbot, w, Qt.Key_Y, Qt.ControlModifier)
    assert _spans(w, a) == first
    w.open_document(b)
    assert [s[2] for s in _spans(w, b)] == ["PERSON"]


def test_suggestions_accept_reject_and_threshold(imported, qtbot):
    w = imported
    p = w.project
    doc = doc_id(w, "P1_a")
    text = NOTES["P1_a"][0]
    run = p.start_run("train", {})
    mrn = text.index("1234567")
    bob = text.index("Bob Ray")
    phone = text.index("0412")
    date = text.index("03/04")
    p.replace_suggestions(doc, [], None, source="rule")   # this test plants its own
    p.add_span(doc, mrn, mrn + 7, "IDN", source="model", status="suggested",
               confidence=0.95, run_id=run)
    p.add_span(doc, bob, bob + 7, "PERSON", source="model", status="suggested",
               confidence=0.6, run_id=run)
    p.add_span(doc, phone, phone + 12, "PHONE", source="rule", status="suggested")
    p.add_span(doc, date, date + 10, "DOB", source="model", status="suggested",
               confidence=0.97, run_id=run)
    w.open_document(doc)
    view = w.editor.text_view
    cursor = QTextCursor(view.document())
    cursor.setPosition(phone + 1)
    assert cursor.charFormat().underlineStyle() == cursor.charFormat().UnderlineStyle.DotLine
    cursor.setPosition(bob + 1)
    assert cursor.charFormat().underlineStyle() == cursor.charFormat().UnderlineStyle.DashUnderline
    view.moveCursor(QTextCursor.Start)
    _press(qtbot, w, Qt.Key_Tab)                      # the imported gold PERSON "Ann Lee"
    _press(qtbot, w, Qt.Key_Tab)                      # DOB suggestion
    assert w.editor.current().label == "DOB"
    _press(qtbot, w, Qt.Key_R)                        # reject; moves to the next suggestion
    assert w.editor.current().label == "IDN"
    _press(qtbot, w, Qt.Key_A)
    accepted = [r for r in p.span_records(doc) if r.label == "IDN"]
    assert [(r.status, r.annotator, r.source, r.run_id) for r in accepted] == \
        [("accepted", "ann", "model", run)]
    assert [r.status for r in p.span_records(doc) if r.label == "DOB"] == ["rejected"]
    w.editor.threshold.setValue(0.5)
    assert w.editor.accept_above_threshold() == 1    # Bob Ray (0.6); the rule has none
    assert {r.label: r.status for r in p.span_records(doc)}["PHONE"] == "suggested"
    events = [e for e in p.audit_entries() if e.event.startswith("suggestions_")]
    assert [e.event for e in events] == ["suggestions_accepted"] * 2 + ["suggestions_rejected"]
    assert all(e.actor == "ann" and e.detail["runs"] == [run] for e in events)
    assert "Ray" not in str([e.detail for e in events])
    _press(qtbot, w, Qt.Key_Z, Qt.ControlModifier)    # undo the bulk accept
    assert [r.status for r in p.span_records(doc) if r.label == "PERSON" and r.source == "model"] \
        == ["suggested"]
    # A click on an action button leaves the keyboard with the note (A, R and
    # Tab did nothing once the button had taken the focus).
    w.show()
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    for button in (w.editor.accept_all_button, w.editor.undo_button):
        assert button.focusPolicy() == Qt.TabFocus
        qtbot.mouseClick(button, Qt.LeftButton)
        assert QApplication.focusWidget() is w.editor.text_view


def test_apply_to_every_occurrence_in_patient_notes(imported, qtbot):
    w = imported
    a, b, c = doc_id(w, "P1_a"), doc_id(w, "P1_b"), doc_id(w, "P2_a")
    text = NOTES["P1_a"][0]
    w.open_document(a)
    w.editor.text_view.select(text.index("Bob"), text.index("Bob") + 7)
    _press(qtbot, w, Qt.Key_1)
    _press(qtbot, w, Qt.Key_P)
    other = NOTES["P1_b"][0]
    assert [(r.start, r.end, r.label) for r in w.project.span_records(b, status="accepted")] == \
        [(other.index("Bob"), other.index("Bob") + 7, "PERSON")]
    assert w.project.span_records(c, status="accepted") == []
    assert w.project.audit_entries(limit=1)[0].event == "apply_to_patient"
    w.open_document(b)
    _press(qtbot, w, Qt.Key_Z, Qt.ControlModifier)   # undone in that note's own history
    assert w.project.span_records(b, status="accepted") == []



def test_apply_to_patient_accepts_a_suggestion_that_is_the_occurrence(imported, qtbot):
    """A walkthrough pressed P on a name whose other occurrences were
    suggestions: "Labelled 0 occurrences in 0 notes"."""
    from app.core.spans import Span
    w = imported
    a, b = doc_id(w, "P1_a"), doc_id(w, "P1_b")
    text, other = NOTES["P1_a"][0], NOTES["P1_b"][0]
    at = other.index("Bob")
    w.project.replace_suggestions(b, [Span(at, at + 7, "ADDRESS", 0.6)], None)
    w.open_document(a)
    w.editor.text_view.select(text.index("Bob"), text.index("Bob") + 7)
    _press(qtbot, w, Qt.Key_1)
    _press(qtbot, w, Qt.Key_P)
    assert w.statusBar().currentMessage().startswith("Labelled 1 occurrence in 1 ")
    assert [(r.start, r.end, r.label, r.source) for r in
            w.project.span_records(b, status="accepted")] == [(at, at + 7, "PERSON", "model")]
    assert w.project.span_records(b, status="suggested") == [] or all(
        (r.start, r.end) != (at, at + 7) for r in w.project.span_records(b, status="suggested"))
    w.open_document(b)
    _press(qtbot, w, Qt.Key_Z, Qt.ControlModifier)   # the suggestion is back
    assert [(r.start, r.end, r.label) for r in w.project.span_records(b, status="suggested")
            if r.start == at] == [(at, at + 7, "ADDRESS")]

def test_lazy_document_list(window, tmp_path):
    path = tmp_path / "big.deid"
    with Project.create(path, []) as p, p.transaction():
        for i in range(450):
            p.add_document(f"n{i:04d}", f"note number {i}")
    assert window.open_project(path)
    model = window.documents.model
    assert model.rowCount() == 200 and model.canFetchMore()
    model.fetchMore()
    model.fetchMore()
    assert model.rowCount() == 450 and not model.canFetchMore()
    assert window.documents.count_label.text() == "450 documents"


def test_click_selects_span_and_astral_offsets(window, qtbot, tmp_path):
    """A click makes the span under it current; emoji do not shift offsets."""
    w = window
    assert w.new_project(tmp_path / "e.deid", "paper")
    text = "😀 Pt 😀 Cara Moss seen."
    doc = w.project.add_document("emoji", text)
    w.open_document(doc)
    view = w.editor.text_view
    start = text.index("Cara")
    view.select(start, start + 9)
    qtbot.keyClick(view, Qt.Key_1)
    assert [(r.start, r.end) for r in w.project.span_records(doc)] == [(start, start + 9)]
    cursor = QTextCursor(view.document())
    cursor.setPosition(view.offsets.to_qt(start + 2))
    assert "PERSON" in cursor.charFormat().toolTip()
    assert view.offsets.to_py(view.offsets.to_qt(start)) == start
    qtbot.keyClick(view, Qt.Key_Escape)
    assert w.editor.current() is None
    point = view.cursorRect(cursor).center()
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=point)
    assert w.editor.current() is not None and w.editor.current().start == start
    w.editor.span_list.clicked.emit(w.editor.span_model.index(0))
    assert w.editor.current_id == w.project.span_records(doc)[0].id


def test_a_note_opens_with_its_span_list_at_the_top(window, qtbot, tmp_path):
    # The list kept the last note's scroll: a new note's first spans were hidden.
    from app.core.spans import Span
    w = window
    assert w.new_project(tmp_path / "s.deid", "paper")
    text = "".join(f"Seen by Ann Lee{i}.\n" for i in range(60))
    spans = [Span(text.index(f"Ann Lee{i}."), text.index(f"Ann Lee{i}.") + len(f"Ann Lee{i}"),
                  "PERSON") for i in range(60)]
    first, second = (w.project.add_document(n, text + n, spans=spans) for n in ("a", "b"))
    w.resize(900, 600)
    w.show()
    qtbot.waitExposed(w)
    w.open_document(first)
    bar = w.editor.span_list.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    w.open_document(second)
    assert bar.value() == 0
