"""Annotator journey: pick a name, Next to annotate, label with the keys,
accept and reject suggestions, undo/redo across notes, done, close and
reopen (everything is still there); notes imported into a trained project
arrive with the model's suggestions."""
from __future__ import annotations

import pytest

from app.gui.qt import QFileDialog, QSettings, Qt

from gui_helpers import NOTES, write_brat
from journey import (choose, go, import_folder, key, new_project, row_values, screenshot,
                     select_text, shown, spans_shown, write_synth)


def _window(qtbot, settings):
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    return shown(w, qtbot)


def _label(qtbot, w, text: str, word: str, hotkey) -> None:
    start = text.index(word)            # test data only: the words are planted in NOTES
    select_text(qtbot, w.editor.text_view, start, start + len(word))
    key(qtbot, w, hotkey)


def test_annotator_journey(qtbot, tmp_path, monkeypatch):
    settings = QSettings(str(tmp_path / "fresh.ini"), QSettings.IniFormat)
    w = _window(qtbot, settings)
    path = tmp_path / "ward.deid"
    from app.gui.qt import QFileDialog as FD, QInputDialog
    monkeypatch.setattr(FD, "getSaveFileName", lambda *a, **k: (str(path), ""))
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("paper", True))
    key(qtbot, w, Qt.Key_N, Qt.ControlModifier)                     # File > New project
    # Pick a name (the login name is offered, typing replaces it).
    dialog = w.annotator_dialog
    assert dialog.isVisible()
    qtbot.keyClicks(dialog.name.lineEdit(), "Ana")
    qtbot.keyClick(dialog.name, Qt.Key_Return)
    import_folder(qtbot, w, monkeypatch, write_brat(tmp_path / "notes"), pattern=r"^(P\d+)_")
    assert row_values(w, "P1_b")["Rule"] == "1" and row_values(w, "P2_a")["Rule"] == "1"

    # Next to annotate: the first note still to do.
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)
    assert w.editor.title.text().startswith("P1_b")
    text = NOTES["P1_b"][0]
    assert spans_shown(w) == ["? IDN: 1234567"]                     # a rule suggestion
    _label(qtbot, w, text, "Bob Ray", Qt.Key_1)
    key(qtbot, w, Qt.Key_Tab)                                        # to the suggestion
    key(qtbot, w, Qt.Key_A)                                          # accept it
    _label(qtbot, w, text, "Ann Lee", Qt.Key_1)
    assert spans_shown(w) == ["✓ PERSON: Bob Ray", "✓ PERSON: Ann Lee", "✓ IDN: 1234567"]
    key(qtbot, w, Qt.Key_Z, Qt.ControlModifier)
    assert spans_shown(w) == ["✓ PERSON: Bob Ray", "✓ IDN: 1234567"]
    key(qtbot, w, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert len(spans_shown(w)) == 3
    key(qtbot, w, Qt.Key_Return, Qt.ControlModifier)                 # done
    assert w.editor.status_label.text() == "Done"

    # The next note: reject its suggestion, label a name, leave it in progress.
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)
    assert w.editor.title.text().startswith("P2_a")
    other = NOTES["P2_a"][0]
    key(qtbot, w, Qt.Key_Tab)
    key(qtbot, w, Qt.Key_R)                                          # the DOB suggestion
    _label(qtbot, w, other, "Cara Moss", Qt.Key_1)
    assert spans_shown(w) == ["✓ PERSON: Cara Moss"]
    # Back to the previous note: its own undo history, across notes.
    key(qtbot, w, Qt.Key_Comma, Qt.ControlModifier)
    assert w.editor.title.text().startswith("P1_b")
    key(qtbot, w, Qt.Key_Z, Qt.ControlModifier)                      # undo "done"
    assert w.editor.status_label.text() == "In progress"
    key(qtbot, w, Qt.Key_Y, Qt.ControlModifier)
    assert w.editor.status_label.text() == "Done"
    screenshot(w, "editor")

    # Close and reopen: everything is there, undo included.
    choose(qtbot, w, "File", "Close project")
    file_menu = next(a for a in w.menuBar().actions() if a.text() == "&File").menu()
    recent = next(a for a in file_menu.actions() if a.text() == "Open &recent").menu()
    recent.actions()[0].trigger()
    assert row_values(w, "P1_b")["Status"] == "Done"
    assert (row_values(w, "P1_b")["Human"], row_values(w, "P1_b")["Rule"]) == ("3", "0")
    assert row_values(w, "P2_a")["Status"] == "In progress"
    assert (row_values(w, "P2_a")["Human"], row_values(w, "P2_a")["Rule"]) == ("1", "0")
    screenshot(w, "documents")
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)                 # nothing to do is left
    assert "No note left to do" in w.statusBar().currentMessage()
    from journey import open_row
    open_row(qtbot, w, "P2_a")
    assert spans_shown(w) == ["✓ PERSON: Cara Moss"] and w.editor.undo_button.isEnabled()
    assert w.windowTitle().startswith("ward.deid")
    w.close()


@pytest.mark.slow
def test_notes_imported_into_a_trained_project_arrive_with_suggestions(qtbot, settings, tmp_path,
                                                                        monkeypatch):
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.importing import import_path
    from app.services.splits import assign_splits
    from app.services.training import TrainConfig, train_project
    path = tmp_path / "trained.deid"
    with Project.create(path, list(PRESETS["paper"])) as p:          # a colleague trained it
        import_path(p, write_synth(tmp_path / "done", 30), patient_regex=r"^(P\d+)_")
        assign_splits(p)
        train_project(p, TrainConfig(models=["crf", "rules"], variants=["balanced"],
                                     budget="quick", ensembles=["voting"]))
    w = _window(qtbot, settings)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    key(qtbot, w, Qt.Key_O, Qt.ControlModifier)                      # File > Open project
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
    go(qtbot, w, "Annotate")
    screenshot(w, "editor_suggestions")
    w.close()
