"""Progress reporting and cancellation for long work, with no GUI inside.

Core code takes a plain ``ProgressFn`` callback. The CLI prints it, the GUI
forwards it through a Qt signal. Cancellation is cooperative: the callback
(or a ``CancelToken.check()``) raises ``Cancelled`` and the work unwinds,
leaving persistent state consistent.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable


class Cancelled(Exception):
    """Raised inside long work when the user asked to stop."""


@dataclass(frozen=True, slots=True)
class Progress:
    """One progress report. Only ``fraction`` and ``stage`` are required."""

    fraction: float                 # overall fraction done, 0..1
    stage: str                      # e.g. "import", "train", "predict", "redact"
    model: str | None = None        # member name during training
    model_fraction: float | None = None
    epoch: int | None = None
    loss: float | None = None
    dev_f1: float | None = None
    eta_s: float | None = None
    message: str = ""               # never contains identifier text


ProgressFn = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    """A ``ProgressFn`` that ignores reports."""


class CancelToken:
    """Thread-safe cancel flag shared between the asker and the worker."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled()

    def wrap(self, fn: ProgressFn) -> ProgressFn:
        """A ``ProgressFn`` that checks for cancellation before forwarding."""
        def wrapped(p: Progress) -> None:
            self.check()
            fn(p)
        return wrapped
