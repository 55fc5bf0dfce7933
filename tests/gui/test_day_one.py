"""Day one in the desktop app: a new project's imported notes show the
starter model's suggestions in the editor, with no training."""
from __future__ import annotations

from app.gui.qt import QFileDialog, Qt

NOTE = ("NPN 7P-7A\nNEURO: A+OX3, MAE. SEEN BY DR. QUINTERO, AWARE.\n"
        "SOCIAL: WIFE MARGARET IN TO VISIT. LAST BM 2/14.\n")


def _menu_action(window, menu_title, text):
    for menu_action in window.menuBar().actions():
        if menu_action.text().replace("&", "") == menu_title:
            for action in menu_action.menu().actions():
                if action.text().replace("&", "").rstrip("…") == text:
                    return action
    raise AssertionError(f"no menu item {menu_title} > {text}")


def test_new_project_imported_note_shows_starter_suggestions(window, qtbot, tmp_path, monkeypatch):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "p1_n1.txt").write_text(NOTE, encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "day1.deid"), "")))
    from app.gui.dialogs import LabelSetDialog
    monkeypatch.setattr(LabelSetDialog, "get_preset", classmethod(lambda *a, **k: ("hipaa", True)))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(notes)))

    _menu_action(window, "File", "New project").trigger()
    assert window.project is not None and not window.project.runs()          # nothing trained
    _menu_action(window, "File", "Import folder").trigger()
    dialog = window.import_dialog                      # patient pattern and split: defaults
    # The import, then the new notes' suggestions (in a worker).
    with qtbot.waitSignal(window.suggestionsFinished, timeout=60000) as suggested:
        with qtbot.waitSignal(window.importFinished, timeout=60000) as blocker:
            qtbot.keyClick(dialog.pattern, Qt.Key_Return)
    assert blocker.args[0] is not None and suggested.args == [1]
    assert "have the starter model's suggestions" in window.statusBar().currentMessage()

    with qtbot.waitSignal(window.documents.documentActivated):
        _menu_action(window, "Go", "Next to annotate").trigger()
    session = window.editor.session
    shown = {(session.text[r.start:r.end], r.label, r.status, r.source) for r in session.spans}
    assert ("QUINTERO", "NAME", "suggested", "model") in shown
    assert ("MARGARET", "NAME", "suggested", "model") in shown
    assert ("2/14", "DATE", "suggested", "model") in shown
    # The side list shows them too.
    assert window.editor.span_model.rowCount() == len(session.spans) >= 3
