"""Progress reporting and cancellation for long work, with no GUI inside.

Core code takes a plain ``ProgressFn`` callback and reports structured
events (``Progress``: a ``kind``, the ``model`` (member) it is about, the
overall ``fraction`` and figures: epoch, loss, dev F1, ETA), never text to
be parsed. Work inside work reports through ``nested``, which maps the
child's 0..1 onto the parent's share of the bar; one ``Throttle`` decides
which reports a display shows (the CLI bar and the GUI use the same one).
Cancellation is cooperative: the callback (or a ``CancelToken.check()``)
raises ``Cancelled`` and the work unwinds, leaving persistent state
consistent.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass
from typing import Callable

# Event kinds. UPDATE is the bar moving; every other kind is a milestone a
# display must not miss (the throttle lets it through).
UPDATE = "update"
EPOCH = "epoch"                    # an epoch (or a dev evaluation) is done: a chart point
TRIAL = "trial"                    # a search trial is done (its dev F1)
MEMBER_STARTED = "member_started"  # a member's training starts
MEMBER_DONE = "member_done"        # a member is trained, saved and scored on dev
SAFETY_STOP = "safety_stop"        # the safety clock ended a fit early (app.models.budget)


class Cancelled(Exception):
    """Raised inside long work when the user asked to stop."""


@dataclass(frozen=True, slots=True)
class Progress:
    """One progress event. Only ``fraction`` and ``stage`` are required."""

    fraction: float                 # overall fraction done, 0..1
    stage: str                      # e.g. "import", "train", "predict", "redact"
    model: str | None = None        # member name during training
    model_fraction: float | None = None
    epoch: int | None = None
    loss: float | None = None       # the training loss now (a step's, an epoch's), not part of one
    dev_f1: float | None = None
    eta_s: float | None = None
    message: str = ""               # for people only; never contains identifier text
    kind: str = UPDATE              # what happened (UPDATE, EPOCH, TRIAL, MEMBER_DONE, ...)

    @property
    def milestone(self) -> bool:
        """Whether this event marks something done (never throttled away)."""
        return self.kind != UPDATE or self.fraction >= 1.0


ProgressFn = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    """A ``ProgressFn`` that ignores reports."""


def nested(parent: ProgressFn, start: float, end: float, *, model: str | None = None,
           prefix: str = "") -> ProgressFn:
    """A ``ProgressFn`` for work that is the ``[start, end]`` part of the parent's.

    The child's ``fraction`` (0..1 of its own work) becomes
    ``start + fraction * (end - start)``; its ``model_fraction`` defaults to
    the child's own fraction, ``model`` to ``model``, and ``prefix`` goes
    before its message ("trial 2/8: epoch 3").
    """
    span = end - start

    def report(p: Progress) -> None:
        parent(dataclasses.replace(
            p, fraction=start + min(1.0, max(0.0, p.fraction)) * span,
            model=p.model or model,
            model_fraction=p.model_fraction if p.model_fraction is not None else p.fraction,
            message=f"{prefix}: {p.message}".rstrip(": ") if prefix else p.message))
    return report


class Throttle:
    """Which reports a display shows: every milestone (``Progress.milestone``),
    the first of each stage or member, and otherwise one per ``interval``
    seconds. Calling it answers whether to show ``p``."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._last = float("-inf")
        self._last_key: tuple = ()

    def __call__(self, p: Progress) -> bool:
        now = time.monotonic()
        key = (p.stage, p.model)
        if p.milestone or key != self._last_key or now - self._last >= self.interval:
            self._last, self._last_key = now, key
            return True
        return False


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

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled or ``timeout`` seconds pass; returns whether cancelled."""
        return self._event.wait(timeout)

    def wrap(self, fn: ProgressFn) -> ProgressFn:
        """A ``ProgressFn`` that checks for cancellation before forwarding."""
        def wrapped(p: Progress) -> None:
            self.check()
            fn(p)
        return wrapped
