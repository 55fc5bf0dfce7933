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
    assert "1 new note has the starter model's suggestions" in window.statusBar().currentMessage()

    with qtbot.waitSignal(window.documents.documentActivated):
        _menu_action(window, "Go", "Next to annotate").trigger()
    session = window.editor.session
    shown = {(session.text[r.start:r.end], r.label, r.status, r.source) for r in session.spans}
    assert ("QUINTERO", "NAME", "suggested", "model") in shown
    assert ("MARGARET", "NAME", "suggested", "model") in shown
    assert ("2/14", "DATE", "suggested", "model") in shown
    # The side list shows them too.
    assert window.editor.span_model.rowCount() == len(session.spans) >= 3


def test_notes_imported_from_the_command_line_show_starter_suggestions(window, qtbot, tmp_path,
                                                                       monkeypatch):
    """IT imports the notes with `deid import`; the nurse opens the project in
    the app: the notes to do show the starter's suggestions, as after File ›
    Import folder (`deid import --no-suggest` leaves them bare)."""
    from app.cli.main import main
    from journeys.journey import open_row, shown
    shown(window, qtbot)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "p1_n1.txt").write_text(NOTE, encoding="utf-8")
    (notes / "p1_n2.txt").write_text(NOTE + "PLAN: CONT TO MONITOR.\n", encoding="utf-8")
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "p2_n1.txt").write_text(NOTE.replace("\n", " \n"), encoding="utf-8")
    project = tmp_path / "ward.deid"
    assert main(["-q", "new", str(project), "--labels", "hipaa"]) == 0
    assert main(["-q", "import", str(project), str(notes), "--patient-regex", r"^(p\d+)_"]) == 0
    assert main(["-q", "import", str(project), str(bare), "--no-suggest"]) == 0

    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(project), "")))
    _menu_action(window, "File", "Open project").trigger()
    model = window.documents.table.model()
    headers = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount())]
    counts = {model.data(model.index(r, 0)): model.data(model.index(r, headers.index("Model")))
              for r in range(model.rowCount())}
    assert counts["p2_n1"] == "0" and int(counts["p1_n1"]) >= 3 and int(counts["p1_n2"]) >= 3
    open_row(qtbot, window, "p1_n1")                                  # a double-click
    session = window.editor.session
    shown_spans = {(session.text[r.start:r.end], r.label, r.status) for r in session.spans}
    assert ("QUINTERO", "NAME", "suggested") in shown_spans
