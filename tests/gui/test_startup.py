"""Start-up: devices probed only when the Train view is shown; settings kept
in the user data folder."""
from __future__ import annotations

from app.models.device import DeviceInfo


def test_train_view_probes_devices_only_when_shown(qtbot, settings, monkeypatch):
    import app.models.device as device
    from app.gui.main_window import MainWindow
    calls = []
    monkeypatch.setattr(device, "detect_devices",
                        lambda: calls.append(1) or DeviceInfo(cpu_physical=2, cpu_logical=2))
    window = MainWindow(settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.wait(50)
    view = window.training
    assert calls == [] and view.device_info is None
    assert view.device_label.text() == "Detecting compute devices…"
    assert not view.force_cpu.isEnabled()
    window.show_view("Train")
    qtbot.waitUntil(lambda: view.device_info is not None, timeout=5000)
    assert view.device_label.text() == "CPU, 2 cores — no GPU found"
    window.show_view("Documents")
    window.show_view("Train")
    qtbot.wait(20)
    assert calls == [1]                       # once


def test_settings_live_in_the_user_data_folder(qtbot, tmp_path, monkeypatch):
    from app.gui.main_window import MainWindow, user_settings
    monkeypatch.setenv("DEID_USER_DIR", str(tmp_path / "user"))
    settings = user_settings()
    assert settings.fileName() == str(tmp_path / "user" / "settings.ini")
    window = MainWindow()
    qtbot.addWidget(window)
    assert window.settings.fileName() == settings.fileName()
    window.show()
    window.close()                            # saves the geometry
    assert "geometry=" in (tmp_path / "user" / "settings.ini").read_text()
    restored = []
    monkeypatch.setattr(MainWindow, "restoreGeometry", lambda self, g: restored.append(bytes(g)))
    again = MainWindow()
    qtbot.addWidget(again)
    assert restored == [bytes(window.saveGeometry())]
