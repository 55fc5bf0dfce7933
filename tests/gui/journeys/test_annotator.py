"""Annotator journey: pick a name, Next to annotate, label with the keys,
accept and reject suggestions, undo/redo across notes, done, close and
reopen (everything is still there); notes imported into a trained project
arrive with the model's suggestions."""
from __future__ import annotations

import pytest

from app.gui.qt import QApplication, QSettings, Qt

from gui_helpers import NOTES, write_brat
from journey import (choose, go, import_folder, key, new_project, open_row, row_values,
                     screenshot, select_text, shown, spans_shown, train_quick, write_synth)


def _window(qtbot, settings):
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    return shown(w, qtbot)


def _label(qtbot, w, text: str, word: str, hotkey) -> None:
    start = text.index(word)            # test data only: the words are planted in NOTES
    select_text(qtbot, w.editor.text_view, start, start + len(word))
    key(qtbot, w, hotkey)


def _suggested(w) -> int:
    """The "n suggested" the editor shows above its span list."""
    return int(w.editor.span_count.text().split("·")[1].split()[0])


def _decide_all(qtbot, w, decision) -> None:
    """Click the first suggestion in the span list, then A (or R) until none
    is left (each decision moves to the next suggestion)."""
    for _ in range(20):
        shown_spans = spans_shown(w)
        if not _suggested(w):
            return
        if _ == 0:
            view = w.editor.span_list
            index = view.model().index(next(i for i, s in enumerate(shown_spans)
                                            if s.startswith("? ")), 0)
            qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.visualRect(index).center())
        key(qtbot, w, decision)
    raise AssertionError("suggestions left")


def _work(qtbot, w, name: str) -> None:
    """P1_b: label the names, accept the rest, make sure of the MRN, undo and
    redo, done. P2_a: label the name, reject the rest, leave it in progress."""
    assert all(s.startswith("? ") for s in spans_shown(w))
    text = NOTES[name][0]
    if name == "P1_b":
        _label(qtbot, w, text, "Bob Ray", Qt.Key_1)  # replaces a suggestion it overlaps
        _label(qtbot, w, text, "Ann Lee", Qt.Key_1)
        _decide_all(qtbot, w, Qt.Key_A)
        if "✓ IDN: 1234567" not in spans_shown(w):
            _label(qtbot, w, text, "1234567", Qt.Key_4)
        final = ["✓ PERSON: Bob Ray", "✓ PERSON: Ann Lee", "✓ IDN: 1234567"]
        assert spans_shown(w) == final
        key(qtbot, w, Qt.Key_Z, Qt.ControlModifier)                  # the MRN undecided again
        assert spans_shown(w) != final and "✓ IDN: 1234567" not in spans_shown(w)
        key(qtbot, w, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
        assert spans_shown(w) == final
        key(qtbot, w, Qt.Key_Return, Qt.ControlModifier)             # done
        assert w.editor.status_label.text() == "Done"
    else:
        _label(qtbot, w, text, "Cara Moss", Qt.Key_1)
        _decide_all(qtbot, w, Qt.Key_R)
        assert spans_shown(w) == ["✓ PERSON: Cara Moss"]
        assert w.editor.status_label.text() == "In progress"


def test_annotator_journey(qtbot, tmp_path, monkeypatch):
    settings = QSettings(str(tmp_path / "fresh.ini"), QSettings.IniFormat)
    w = _window(qtbot, settings)
    path = tmp_path / "ward.deid"
    from app.gui.qt import QFileDialog as FD, QTimer
    monkeypatch.setattr(FD, "getSaveFileName", lambda *a, **k: (str(path), ""))
    picker: dict = {}

    def pick_labels():
        """The label set picker: the HIPAA set offered first, what each preset
        protects, the warnings; the paper's five chosen."""
        dialog = QApplication.activeModalWidget()
        picker["offered"] = (dialog.preset.currentText(), dialog.summary.text(),
                             dialog.warnings.isVisible())
        qtbot.keyClick(dialog.preset, Qt.Key_Up)                     # extended
        picker["extended"] = (dialog.summary.text(), dialog.warnings.isVisible())
        qtbot.keyClick(dialog.preset, Qt.Key_Up)                     # the paper's five
        picker["paper"] = (dialog.summary.text(), dialog.warnings.text(), dialog.warnings.isVisible())
        rows = [(dialog.table.item(r, 0).text(), dialog.table.item(r, 1).text())
                for r in range(dialog.table.rowCount())]
        picker["rows"] = rows
        qtbot.keyClick(dialog.preset, Qt.Key_Return)                 # OK

    QTimer.singleShot(0, pick_labels)
    key(qtbot, w, Qt.Key_N, Qt.ControlModifier)                     # File > New project
    offered, summary, warned = picker["offered"]
    assert offered.startswith("HIPAA Safe Harbor") and not warned
    assert "protect <b>17 of the 17</b>" in summary
    summary, warnings, warned = picker["paper"]
    assert "protect <b>12 of the 17</b>" in summary and "1 partly" in summary
    assert warned and "e-mail addresses" in warnings and "ages" in warnings
    assert "protect <b>17 of the 17</b>" in picker["extended"][0] and not picker["extended"][1]
    assert ("e-mail addresses", "LEFT IN CLEAR") in picker["rows"]
    assert ("names", "protected by PERSON") in picker["rows"]
    # Pick a name (the login name is offered, typing replaces it).
    dialog = w.annotator_dialog
    assert dialog.isVisible()
    qtbot.keyClicks(dialog.name.lineEdit(), "Ana")
    qtbot.keyClick(dialog.name, Qt.Key_Return)
    import_folder(qtbot, w, monkeypatch, write_brat(tmp_path / "notes"), pattern=r"^(P\d+)_")
    # Day one: the notes to do arrive with the starter model's suggestions.
    assert int(row_values(w, "P1_b")["Model"]) > 0 and int(row_values(w, "P2_a")["Model"]) > 0

    # Next to annotate (the most uncertain first), twice: both notes to do.
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)
    first = w.editor.title.text().split()[0]
    _work(qtbot, w, first)
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)
    second = w.editor.title.text().split()[0]
    assert {first, second} == {"P1_b", "P2_a"}
    _work(qtbot, w, second)
    # Back to the previous note: its own undo history, across notes.
    key(qtbot, w, Qt.Key_Comma, Qt.ControlModifier)
    assert w.editor.title.text().startswith(first)
    before = (spans_shown(w), w.editor.status_label.text())
    key(qtbot, w, Qt.Key_Z, Qt.ControlModifier)
    assert (spans_shown(w), w.editor.status_label.text()) != before
    key(qtbot, w, Qt.Key_Y, Qt.ControlModifier)
    assert (spans_shown(w), w.editor.status_label.text()) == before
    open_row(qtbot, w, "P1_b")

    # Close and reopen: everything is there, undo included.
    choose(qtbot, w, "File", "Close project")
    file_menu = next(a for a in w.menuBar().actions() if a.text() == "&File").menu()
    recent = next(a for a in file_menu.actions() if a.text() == "Open &recent").menu()
    recent.actions()[0].trigger()
    assert row_values(w, "P1_b")["Status"] == "Done"
    assert (row_values(w, "P1_b")["Human"], row_values(w, "P1_b")["Model"]) == ("3", "0")
    assert row_values(w, "P2_a")["Status"] == "In progress"
    assert (row_values(w, "P2_a")["Human"], row_values(w, "P2_a")["Model"]) == ("1", "0")
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)                 # nothing to do is left
    assert "No note left to do" in w.statusBar().currentMessage()
    open_row(qtbot, w, "P2_a")
    assert spans_shown(w) == ["✓ PERSON: Cara Moss"] and w.editor.undo_button.isEnabled()
    assert w.windowTitle().startswith("ward.deid")
    go(qtbot, w, "Documents")
    screenshot(w, "documents")                       # the journey's final state
    w.close()


@pytest.mark.slow
def test_a_training_run_refreshes_the_suggestions_of_the_next_notes(qtbot, settings, tmp_path,
                                                                     monkeypatch):
    """Notes imported before training arrive with the day-one suggestions; once
    a run's model is in use, the next to-do notes of the queue hold its
    suggestions instead, and the note open in Annotate shows them."""
    from app.services.runs import active_run_id
    w = _window(qtbot, settings)
    new_project(qtbot, w, monkeypatch, tmp_path / "loop.deid")
    todo = write_synth(tmp_path / "todo", 34, annotated=False)
    for txt in sorted(todo.glob("*.txt"))[:30]:                      # 4 notes to do
        txt.unlink()
    import_folder(qtbot, w, monkeypatch, todo, pattern=r"^(P\d+)_")
    import_folder(qtbot, w, monkeypatch, write_synth(tmp_path / "done", 30), pattern=r"^(P\d+)_")
    ids = [i.id for i in w.project.document_infos(status="todo")]
    assert len(ids) == 4 and all(r.run_id is None for d in ids
                                 for r in w.project.span_records(d, status="suggested"))
    train_quick(qtbot, w)
    run = active_run_id(w.project)
    assert "Pre-annotated 4 notes" in w.statusBar().currentMessage()
    assert "Suggesting on the next 50 notes" in w.training.log.toPlainText()
    assert all(r.run_id == run for d in ids for r in w.project.span_records(d, status="suggested"))
    assert all(i.uncertainty is not None for i in w.project.document_infos(status="todo"))
    screenshot(w, "trained_refreshed")
    go(qtbot, w, "Annotate")
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)                 # the next note to do
    shown_spans = spans_shown(w)
    assert shown_spans and all(s.startswith("? ") for s in shown_spans)
    # Each suggestion says what made it: the model in words, a rule by its name.
    model = w.editor.span_list.model()
    tips = [model.data(model.index(r, 0), Qt.ToolTipRole) for r in range(model.rowCount())]
    assert all(", found by " in tip for tip in tips)
    w.close()


@pytest.mark.slow
def test_notes_imported_into_a_trained_project_arrive_with_suggestions(qtbot, settings, tmp_path,
                                                                        monkeypatch):
    w = _window(qtbot, settings)
    new_project(qtbot, w, monkeypatch, tmp_path / "trained.deid")
    import_folder(qtbot, w, monkeypatch, write_synth(tmp_path / "done", 30), pattern=r"^(P\d+)_")
    train_quick(qtbot, w)                                            # Train view, Quick
    new = write_synth(tmp_path / "new", 34, annotated=False)
    for txt in sorted(new.glob("*.txt"))[:30]:                       # only the 4 new ones
        txt.unlink()
    import_folder(qtbot, w, monkeypatch, new, pattern=r"^(P\d+)_")
    assert "the model's suggestions" in w.statusBar().currentMessage()
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)
    shown_spans = spans_shown(w)
    assert shown_spans and all(s.startswith("? ") for s in shown_spans)
    assert w.editor.span_count.text().startswith("0 accepted · ")
    name = w.editor.title.text().split()[0]
    assert int(row_values(w, name)["Model"]) == len(shown_spans)
    key(qtbot, w, Qt.Key_Tab)                        # the first suggestion: accept it
    key(qtbot, w, Qt.Key_A)
    key(qtbot, w, Qt.Key_A)                          # and the next one
    assert w.editor.span_count.text().startswith("2 accepted · ")
    screenshot(w, "editor")
    w.close()


def test_the_last_suggestion_decided_says_what_comes_next(qtbot, tmp_path, monkeypatch, settings):
    """Tab to the first suggestion, A (or R) until none is left: the status bar
    says so and how to finish, not "A accept, R reject" of a span decided."""
    w = _window(qtbot, settings)
    new_project(qtbot, w, monkeypatch, tmp_path / "last.deid")
    import_folder(qtbot, w, monkeypatch, write_brat(tmp_path / "notes"), pattern=r"^(P\d+)_")
    for decision in (Qt.Key_A, Qt.Key_R):
        key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)                 # Next to annotate
        assert _suggested(w) > 0
        key(qtbot, w, decision)                          # none chosen yet: says what to do
        assert w.statusBar().currentMessage().startswith(
            "No suggestion is chosen: Tab goes to the next one")
        key(qtbot, w, Qt.Key_Tab)
        while _suggested(w):
            key(qtbot, w, decision)
        said = w.statusBar().currentMessage()
        assert said.endswith("No suggestion left in this note: Ctrl+Enter marks it done"), said
        assert "A accept" not in said
        key(qtbot, w, Qt.Key_Return, Qt.ControlModifier)
        assert w.editor.status_label.text() == "Done"
    w.close()


def test_a_double_click_on_a_row_scrolled_to_opens_that_note(qtbot, settings, tmp_path,
                                                               monkeypatch):
    """A walkthrough scrolled Documents with the wheel and double-clicked a
    note: the click's focus selected row 0, the table jumped to the top,
    and another patient's note opened."""
    from app.gui.qt import QFileDialog
    from journey import synth_project, wheel
    path = synth_project(tmp_path, n=60)
    w = _window(qtbot, settings)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    key(qtbot, w, Qt.Key_O, Qt.ControlModifier)
    go(qtbot, w, "Documents")
    table = w.documents.table
    w.documents.search_edit.setFocus()                    # the table not focused yet
    qtbot.waitUntil(lambda: table.verticalScrollBar().maximum() > 0)
    wheel(qtbot, table.viewport(), -6)
    qtbot.waitUntil(lambda: table.verticalScrollBar().value() > 0)
    model = table.model()
    row = table.rowAt(table.viewport().height() // 2)
    assert row > 0
    name = model.data(model.index(row, 0))
    rect = table.visualRect(model.index(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.mouseDClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    assert w.editor.title.text().startswith(name)
