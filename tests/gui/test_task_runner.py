"""The background task runner: a task shut down does not end the next one."""
from __future__ import annotations

import threading

from app.gui.workers import TaskRunner


def test_a_late_signal_of_a_task_shut_down_does_not_end_the_next_task(qtbot):
    """Closing a project while suggesting, then opening it again: the closed
    run's "cancelled" came after the new run had started, hid its progress
    and said "Suggesting stopped"."""
    runner = TaskRunner()
    said = []
    runner.cancelled.connect(lambda: said.append("cancelled"))
    runner.finished.connect(lambda result: said.append(("finished", result)))

    def until_cancelled(progress, cancel):
        cancel.wait(30)
        cancel.check()

    assert runner.start("first", until_cancelled)
    runner.shutdown()                                   # its "cancelled" is still queued
    release = threading.Event()

    def second(progress, cancel):
        release.wait(30)
        return "second"

    assert runner.start("second", second)
    qtbot.wait(200)                                     # the first task's signal arrives
    assert runner.busy() and runner.name == "second" and said == []
    release.set()
    qtbot.waitUntil(lambda: not runner.busy(), timeout=10000)
    assert said == [("finished", "second")]
