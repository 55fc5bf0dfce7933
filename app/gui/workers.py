"""Long jobs off the GUI thread: :class:`TaskRunner`, the one runner every view uses.

A :class:`TaskWorker` ``QObject`` moved to a ``QThread`` runs a service
function ``fn(progress, cancel)``; the runner re-emits its structured
:class:`~app.core.progress.Progress` events, result and failure in the GUI
thread, so views connect anything to a runner.

Connect a worker's signals only to ``@Slot`` methods of objects living in
the GUI thread: a plain Python callable connected to them runs in the
worker thread (and a ``thread.wait()`` there hangs the process).
"""
from __future__ import annotations

# Imported here, in the GUI thread, on purpose: a first import inside a worker
# thread races with shiboken's import hook and crashed the process
# ("none_dealloc: deallocating None") in PySide6 6.12.
import app.formats  # noqa: F401
from app.core.progress import CancelToken, Cancelled, Progress, Throttle
from app.errors import UserError
from app.gui.qt import QObject, QThread, Signal, Slot

#: Seconds between two plain progress signals (the GUI need not repaint 1,000
#: times a second); milestones (an epoch, a trial, a member done) and a new
#: stage or member always go through (app.core.progress.Throttle).
PROGRESS_INTERVAL = 0.05


def dispose(thread, worker) -> None:
    """Stop ``thread`` (waiting for it) and schedule it and ``worker`` for deletion."""
    if thread is not None:
        thread.quit()
        thread.wait()
        thread.deleteLater()
    if worker is not None:
        worker.deleteLater()


class TaskWorker(QObject):
    """Runs ``fn(progress, cancel)`` once in a worker thread.

    Signals
    -------
    progress(object)
        A :class:`~app.core.progress.Progress` (throttled, see ``PROGRESS_INTERVAL``).
    finished(object)
        What ``fn`` returned.
    failed(str)
        A user-facing reason why it stopped on an error.
    cancelled()
        It stopped because the user cancelled it (a signal of its own: no
        view tells a cancel from an error by reading text).
    """

    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn
        self.cancel_token = CancelToken()
        self._throttle = Throttle(PROGRESS_INTERVAL)

    def _report(self, p: Progress) -> None:
        self.cancel_token.check()
        if self._throttle(p):
            self.progress.emit(p)

    @Slot()
    def run(self) -> None:
        try:
            result = self.fn(self._report, self.cancel_token)
        except Cancelled:
            self.cancelled.emit()
        except UserError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # the type only: a message could quote note text
            # As the CLI: the machine's problem in words (a full disk), else
            # the traceback kept in deid-error.log for IT, and where it is.
            from app.errors import environment_problem, log_internal_error
            self.failed.emit(environment_problem(exc) or log_internal_error(exc))
        else:
            self.finished.emit(result)


class TaskRunner(QObject):
    """One background task at a time, its signals delivered in the GUI thread.

    ``start(fn)`` runs ``fn(progress, cancel)`` on a new ``QThread``. The
    runner's own ``progress``/``finished``/``failed``/``cancelled`` signals
    are emitted from GUI-thread slots, after the thread has been joined for
    the last three.
    """

    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._worker: TaskWorker | None = None
        self.name: str | None = None

    def busy(self) -> bool:
        return self._thread is not None

    def start(self, name: str, fn) -> bool:
        """Start ``fn`` unless a task is running; returns whether it started."""
        if self.busy():
            return False
        worker = TaskWorker(fn)
        thread = QThread(self)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.progress.connect(self._on_progress)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        self._thread, self._worker, self.name = thread, worker, name
        thread.start()
        return True

    def cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel_token.cancel()

    def shutdown(self) -> None:
        """Cancel and wait for the thread (closing the window or project)."""
        self.cancel()
        if self._thread is not None:
            self._thread.quit()
            self._thread.wait()
            self._end()

    def _end(self) -> None:
        thread, worker = self._thread, self._worker
        self._thread = self._worker = None
        dispose(thread, worker)

    def _current(self) -> bool:
        """Whether the signal being handled is the running task's: one a task
        shut down sent before it ended arrives after it (a project closed
        while suggesting, and opened again: its late "cancelled" ended the
        new task's bookkeeping and said "Suggesting stopped")."""
        return self._worker is not None and self.sender() is self._worker

    @Slot(object)
    def _on_progress(self, p) -> None:
        if self._current():
            self.progress.emit(p)

    @Slot(object)
    def _on_finished(self, result) -> None:
        if self._current():
            self._end()
            self.finished.emit(result)

    @Slot(str)
    def _on_failed(self, reason: str) -> None:
        if self._current():
            self._end()
            self.failed.emit(reason)

    @Slot()
    def _on_cancelled(self) -> None:
        if self._current():
            self._end()
            self.cancelled.emit()


