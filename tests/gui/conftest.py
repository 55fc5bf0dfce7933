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
def imported(window, qtbot, tmp_path):
    """A window with a new project holding the three NOTES, patient from the name
    (the day-one starter model turned off: these tests check the rules'
    suggestions and place their own; tests/gui/test_day_one.py has the starter)."""
    from app.services.starter import STARTER_SETTING
    assert window.new_project(tmp_path / "p.deid")
    window.project.set_setting(STARTER_SETTING, False)
    # The new notes then get rule suggestions in a worker: wait for both.
    with qtbot.waitSignal(window.suggestionsFinished, timeout=20000):
        with qtbot.waitSignal(window.importFinished, timeout=20000) as blocker:
            window.import_folder(write_brat(tmp_path / "notes"), patient_regex=r"^(P\d+)_")
        assert blocker.args[0] is not None
    return window
