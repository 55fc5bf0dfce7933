"""GUI fixtures: an isolated settings file, a window, tiny brat notes."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from app.gui.qt import QSettings  # noqa: E402
from gui_helpers import write_brat  # noqa: E402

@pytest.fixture
def settings(tmp_path):
    s = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    s.setValue("annotator", "ann")
    return s


@pytest.fixture
def window(qtbot, settings):
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    w.show_error = lambda title, text: pytest.fail(f"{title}: {text}")
    qtbot.addWidget(w)
    yield w
    w.close_project()


@pytest.fixture
def imported(window, qtbot, tmp_path, monkeypatch):
    """A window with a new project holding the three NOTES, patient from the name,
    made from the File menu with its dialogs answered (the day-one starter
    model turned off in the project, which no screen offers: these tests
    check the rules' suggestions and place their own; the journeys and
    tests/gui/test_day_one.py have the starter)."""
    from app.gui.dialogs import LabelSetDialog
    from app.gui.qt import QFileDialog, Qt
    from app.services.starter import STARTER_SETTING
    from journeys.journey import choose
    with monkeypatch.context() as m:
        m.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "p.deid"), ""))
        m.setattr(LabelSetDialog, "get_preset", classmethod(lambda *a, **k: ("paper", True)))
        m.setattr(QFileDialog, "getExistingDirectory",
                  lambda *a, **k: str(write_brat(tmp_path / "notes")))
        choose(qtbot, window, "File", "New project…")
        window.project.set_setting(STARTER_SETTING, False)
        choose(qtbot, window, "File", "Import folder…")
    dialog = window.import_dialog
    qtbot.keyClick(dialog.pattern, Qt.Key_A, Qt.ControlModifier)     # over the proposed one
    qtbot.keyClicks(dialog.pattern, r"^(P\d+)_")
    qtbot.keyClick(dialog.split, Qt.Key_Down)                         # no split
    # The new notes then get rule suggestions in a worker: wait for both.
    with qtbot.waitSignal(window.suggestionsFinished, timeout=20000):
        with qtbot.waitSignal(window.importFinished, timeout=20000) as blocker:
            qtbot.keyClick(dialog.pattern, Qt.Key_Return)
        assert blocker.args[0] is not None
    return window
