"""Long jobs off the GUI thread: a worker ``QObject`` moved to a ``QThread``.

Connect a worker's signals only to ``@Slot`` methods of objects living in
the GUI thread: a plain Python callable connected to them runs in the
worker thread (and a ``thread.wait()`` there hangs the process).
"""
from __future__ import annotations

import time

# Imported here, in the GUI thread, on purpose: a first import inside a worker
# thread races with shiboken's import hook and crashed the process
# ("none_dealloc: deallocating None") in PySide6 6.12.
import app.formats  # noqa: F401
from app.core.progress import CancelToken, Cancelled, Progress
from app.errors import UserError
from app.gui.qt import QObject, Signal, Slot
from app.services.importing import import_path

#: Seconds between two progress signals (the GUI need not repaint 1,000 times a second).
PROGRESS_INTERVAL = 0.05


def dispose(thread, worker) -> None:
    """Stop ``thread`` (waiting for it) and schedule it and ``worker`` for deletion."""
    if thread is not None:
        thread.quit()
        thread.wait()
        thread.deleteLater()
    if worker is not None:
        worker.deleteLater()


class ImportWorker(QObject):
    """Runs :func:`app.services.importing.import_path` with progress and cancel.

    Signals
    -------
    progress(float, str)
        Fraction done and a message (never note text).
    finished(object)
        The :class:`~app.services.importing.ImportSummary`.
    failed(str)
        A user-facing reason; ``"cancelled"`` when the user stopped it.
    """

    progress = Signal(float, str)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, project, path: str, **options) -> None:
        super().__init__()
        self.project = project
        self.path = path
        self.options = options
        self.cancel_token = CancelToken()
        self._last = 0.0

    def _report(self, p: Progress) -> None:
        now = time.monotonic()
        if p.fraction >= 1.0 or now - self._last >= PROGRESS_INTERVAL:
            self._last = now
            self.progress.emit(p.fraction, p.message)

    @Slot()
    def run(self) -> None:
        try:
            summary = import_path(self.project, self.path, progress=self._report,
                                  cancel=self.cancel_token, **self.options)
        except Cancelled:
            self.failed.emit("cancelled")
        except UserError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # reported to the user; the type only, no note text
            self.failed.emit(f"internal error ({type(exc).__name__})")
        else:
            self.finished.emit(summary)
