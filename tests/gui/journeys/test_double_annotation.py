"""Double annotation journey: a note assigned to two annotators from the
File menu, each labels it blind under their own name (switched in File >
Settings), Agreement compares them, Adjudicate settles the disagreement
into gold. Menus, keys, clicks and answered dialogs only."""
from __future__ import annotations

from app.core.words import count

from app.gui.qt import Qt

from gui_helpers import NOTES, write_brat
from journey import (answer, assign_selected, choose, click, go, import_folder, key, new_project,
                     open_row, pick, row_values, screenshot, select_text, shown, spans_shown,
                     table_rows, view_shown)


def _label(qtbot, w, word: str, hotkey) -> None:
    text = NOTES["P2_a"][0]
    start = text.index(word)            # test data only: the words are planted in NOTES
    select_text(qtbot, w.editor.text_view, start, start + len(word))
    key(qtbot, w, hotkey)


def _become(qtbot, w, name: str) -> None:
    """File > Settings…: the annotator's name replaced, OK."""
    def fill(dialog):
        dialog.annotator.selectAll()
        qtbot.keyClicks(dialog.annotator, name)
        qtbot.keyClick(dialog.annotator, Qt.Key_Return)
    answer(fill)
    choose(qtbot, w, "File", "Settings…")
    assert w.windowTitle().startswith("ward.deid")
    assert w.statusBar().currentMessage().startswith(f"Annotating as {name!r}")


def _ward_with_p2a_assigned(qtbot, settings, tmp_path, monkeypatch, assign: bool = True):
    """The main window ("ann" annotates), File > New, the notes imported;
    in Documents P2_a selected and File > Assign selected note to two
    annotators…: ann and bob (unless not ``assign``)."""
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "ward.deid")
    import_folder(qtbot, w, monkeypatch, write_brat(tmp_path / "notes"), pattern=r"^(P\d+)_")
    if assign:
        _assign_p2a(qtbot, w)
    return w


def _assign_p2a(qtbot, w) -> None:
    """Documents, P2_a clicked, File > Assign selected note to two annotators…: ann and bob."""
    go(qtbot, w, "Documents")
    table = w.documents.table
    model = table.model()
    row = next(r for r in range(model.rowCount()) if model.data(model.index(r, 0)) == "P2_a")
    qtbot.mouseClick(table.viewport(), Qt.LeftButton,
                     pos=table.visualRect(model.index(row, 0)).center())
    assign_selected(qtbot, w, "ann", "bob")
    assert "annotated blind by ann and bob" in w.statusBar().currentMessage()


def _label_and_finish(qtbot, w) -> None:
    """P2_a open: Cara Moss labelled a person, Ctrl+Enter (twice if suggestions are left)."""
    _label(qtbot, w, "Cara Moss", Qt.Key_1)
    key(qtbot, w, Qt.Key_Return, Qt.ControlModifier)
    if w.editor.status_label.text() != "Done":
        assert "not reviewed yet" in w.statusBar().currentMessage()
        key(qtbot, w, Qt.Key_Return, Qt.ControlModifier)
    assert w.editor.status_label.text() == "Done"


def test_double_annotation_journey(qtbot, settings, tmp_path, monkeypatch):
    w = _ward_with_p2a_assigned(qtbot, settings, tmp_path, monkeypatch)

    # ann: Cara Moss is a name.
    open_row(qtbot, w, "P2_a")
    assert w.editor.blind_label.text()
    _label(qtbot, w, "Cara Moss", Qt.Key_1)
    assert "✓ PERSON: Cara Moss" in spans_shown(w)

    # bob, blind to ann's spans, takes it for an address.
    _become(qtbot, w, "bob")
    open_row(qtbot, w, "P2_a")
    assert not [s for s in spans_shown(w) if s.startswith("✓ ")]
    _label(qtbot, w, "Cara Moss", Qt.Key_2)

    # Agreement: ann against bob, one label differs.
    go(qtbot, w, "Agreement")
    a = w.agreement
    assert (a.a_box.currentText(), a.b_box.currentText()) == ("ann", "bob")   # two people
    assert a.summary.text() == "Choose two annotators, then press Compute agreement."
    pick(qtbot, a.b_box, "ann")                                      # the same one twice
    click(qtbot, a.compute_button)
    assert a.summary.text() == "Choose two different annotators."
    pick(qtbot, a.b_box, "bob")
    click(qtbot, a.compute_button)
    rows = table_rows(a.dis_table)
    assert len(rows) == 1 and rows[0][2] == "label differs" and "“Cara Moss”" in rows[0][3]
    assert "Not yet marked done by both: the figures may" in a.summary.text()   # neither did
    screenshot(w, "agreement")

    # Adjudicate the selected disagreement: take ann's PERSON, save as gold.
    assert not a.adjudicate_button.isEnabled()                   # nothing chosen yet
    qtbot.mouseClick(a.dis_table.viewport(), Qt.LeftButton,
                     pos=a.dis_table.visualItemRect(a.dis_table.item(0, 0)).center())
    click(qtbot, a.adjudicate_button)
    assert view_shown(w) == "Adjudicate"
    adj = w.adjudication
    assert adj.table.rowCount() == 1 and not adj.save_button.isEnabled()
    qtbot.keyClick(adj.table, Qt.Key_1)                    # take A
    assert adj.table.item(0, 4).text() == "take A" and adj.save_button.isEnabled()
    screenshot(w, "adjudication")
    # File > Close project with the decision not saved: asked, kept on Escape.
    asked = []

    def keep(dialog):
        asked.append(dialog.text())
        qtbot.keyClick(dialog, Qt.Key_Escape)
    answer(keep)
    choose(qtbot, w, "File", "Close project")
    assert "1 disagreement of P2_a is decided in Adjudicate but not saved as gold" in asked[0]
    assert w.project is not None and adj.table.item(0, 4).text() == "take A"
    click(qtbot, adj.save_button)
    assert row_values(w, "P2_a")["Status"] == "Reviewed"
    assert row_values(w, "P2_a")["Human"] == "1"                     # the gold, for everyone

    # bob, after the adjudication, sees the gold and adds to it: the gold reads it.
    open_row(qtbot, w, "P2_a")
    assert "Adjudicated" in w.editor.blind_label.text()
    assert "✓ PERSON: Cara Moss" in spans_shown(w)
    suggested = [s for s in spans_shown(w) if s.startswith("? ")]
    assert suggested                                 # the day-one suggestions, still undecided
    before = len(w.project.gold_spans(w.editor.session.doc_id))
    key(qtbot, w, Qt.Key_Tab)                        # Cara Moss, then the first suggestion
    key(qtbot, w, Qt.Key_Tab)
    key(qtbot, w, Qt.Key_A)                          # accepted
    assert len(w.project.gold_spans(w.editor.session.doc_id)) == before + 1
    # Mark done keeps it reviewed (it had undone the adjudication for everyone).
    key(qtbot, w, Qt.Key_Return, Qt.ControlModifier)
    assert w.statusBar().currentMessage().startswith("Adjudicated: the note is reviewed")
    assert row_values(w, "P2_a")["Status"] == "Reviewed"
    open_row(qtbot, w, "P2_a")
    assert "Adjudicated" in w.editor.blind_label.text()

    # The note is off the screen once the project is closed.
    go(qtbot, w, "Adjudicate")
    choose(qtbot, w, "File", "Close project")
    assert adj.a_view.toPlainText() == "" and adj.table.rowCount() == 0
    assert adj.title.text().startswith("Open a double-annotated document")
    w.close()


def _status_shown(w, note: str) -> str:
    return row_values(w, note)["Status"]


def test_blind_annotators_each_see_only_their_own_done(qtbot, settings, tmp_path, monkeypatch):
    """Issue 34 item 14: in blind double annotation the second annotator saw
    the first one's "Done". Each sees their own, in the list and the editor;
    the list's status filter goes by it too."""
    w = _ward_with_p2a_assigned(qtbot, settings, tmp_path, monkeypatch)
    model = w.documents.table.model()

    # ann labels the note and marks it done (twice if suggestions are left).
    open_row(qtbot, w, "P2_a")
    _label_and_finish(qtbot, w)
    go(qtbot, w, "Documents")
    assert _status_shown(w, "P2_a") == "Done (blind)"

    # bob: the note is still his to do, in the list and in the editor.
    _become(qtbot, w, "bob")
    go(qtbot, w, "Documents")
    assert _status_shown(w, "P2_a") == "To do (blind)"
    pick(qtbot, w.documents.status_box, "Done")
    assert "P2_a" not in [model.data(model.index(r, 0)) for r in range(model.rowCount())]
    pick(qtbot, w.documents.status_box, "All statuses")
    open_row(qtbot, w, "P2_a")
    assert w.editor.status_label.text() == "To do"
    screenshot(w, "blind_second_annotator")

    # ann's Done is still hers.
    _become(qtbot, w, "ann")
    go(qtbot, w, "Documents")
    assert _status_shown(w, "P2_a") == "Done (blind)"
    w.close()


def test_a_note_done_then_assigned_stays_done_for_who_finished_it(qtbot, settings, tmp_path,
                                                                   monkeypatch):
    """Issue 34: a note ann had marked Done, then assigned to ann and bob from
    the File menu, started "To do" for both. ann keeps her Done; bob, newly
    assigned, starts To do; the list says the status is each one's own
    (blind), and a lead assigned neither sees the shared one."""
    w = _ward_with_p2a_assigned(qtbot, settings, tmp_path, monkeypatch, assign=False)
    # ann labels P2_a and marks it done, before anyone speaks of double annotation.
    open_row(qtbot, w, "P2_a")
    assert not w.editor.blind_label.text()
    _label_and_finish(qtbot, w)
    _assign_p2a(qtbot, w)
    assert _status_shown(w, "P2_a") == "Done (blind)"                    # still hers
    go(qtbot, w, "Annotate")                            # the note still open there: blind now
    assert w.editor.blind_label.text() and w.editor.status_label.text() == "Done"
    # bob starts it To do.
    _become(qtbot, w, "bob")
    go(qtbot, w, "Documents")
    assert _status_shown(w, "P2_a") == "To do (blind)"
    model = w.documents.table.model()
    row = next(r for r in range(model.rowCount()) if model.data(model.index(r, 0)) == "P2_a")
    assert model.data(model.index(row, 1), Qt.ToolTipRole) == (
        "Annotated blind by ann and bob: this is your own status; the note is done once each "
        "of them is")
    screenshot(w, "assigned_after_done_bob")
    # A lead who annotates neither sees the note's shared status: not done by both yet.
    _become(qtbot, w, "lead")
    go(qtbot, w, "Documents")
    assert _status_shown(w, "P2_a") == "In progress"
    w.close()


def test_a_new_name_in_settings_keeps_the_documents_filter(qtbot, settings, tmp_path,
                                                          monkeypatch):
    """Switching annotator in File > Settings opens the project again under
    the new name; the Documents filter a person set stays (it was cleared)."""
    w = _ward_with_p2a_assigned(qtbot, settings, tmp_path, monkeypatch, assign=False)
    go(qtbot, w, "Documents")
    docs = w.documents
    every = docs.model.total()
    qtbot.keyClicks(docs.search_edit, "Cara")
    qtbot.keyClick(docs.search_edit, Qt.Key_Return)
    found = docs.model.total()
    assert 0 < found < every
    _become(qtbot, w, "bob")
    assert docs.search_edit.text() == "Cara"
    assert docs.model.total() == found
    assert docs.count_label.text() == count(found, "document")
    w.close()
