"""Entry point of `deid-studio`."""
from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    from app.paths import set_offline_env
    set_offline_env()
    from app.core.private import sweep_stale
    sweep_stale()               # private temp folders a killed run left behind
    from app.gui.qt import QApplication

    from app.gui.main_window import MainWindow

    argv = sys.argv if argv is None else argv
    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("DeID Studio")
    window = MainWindow()
    if len(argv) > 1:
        window.open_project(argv[1])
    window.show()
    shot = os.environ.get("DEID_SCREENSHOT")
    if shot:  # release smoke test (build/smoke_test.sh): save the shown window as PNG, then quit
        from app.gui.qt import QTimer
        QTimer.singleShot(0, lambda: (window.grab().save(shot), _say_shown(window), app.quit()))
    return app.exec()


def _say_shown(window) -> None:
    """What the screenshot shows, for build/demo_screenshot.sh to check: the
    window's title (the open project's file name) and its status line."""
    print(f"window: {window.windowTitle()}")
    print(f"status: {window.statusBar().currentMessage()}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
