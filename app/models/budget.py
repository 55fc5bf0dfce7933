"""Training budgets: how much work a run may do, and the clock as a safety stop.

``quick`` is for smoke runs, tests and the demo (seconds on tiny data, no
search), ``standard`` for an everyday retrain in the learning loop,
``full`` for a final model.

A budget bounds *work*, never time: passes over the data (epochs), optimiser
steps, L-BFGS iterations and search trials, derived from the budget and the
size of the training set (``Budget.epochs``, ``Budget.steps``,
``Budget.trials``). With a seed, the same data and budget therefore give
the same models whatever the machine's load: a hospital desktop busy with
other work trains more slowly, not less. Tiny corpora get ``min_steps``
updates so that they learn something; big ones are capped at ``max_steps``
per trial, and the search runs fewer trials (one well-trained trial on a big
corpus rather than eight half-trained ones; on a few hundred notes the
search runs in full).

The clock is only a safety stop (``safety_seconds`` for a whole run,
``--max-minutes`` replacing it): a member is handed what is left of it, and
when it fires the model keeps its best state so far, the model reports a
``SAFETY_STOP`` progress event (app.core.progress) and the member's record says
``clock_stop``. A run stopped by the clock depends on the machine's speed,
and says so.

A model spec may still override single limits through its own params
(``max_epochs``, ``patience``, ``max_steps``, ``max_iterations``,
``max_seconds``).

What ``standard`` costs on real sizes (lines of 32 to a batch; the upper
bounds, early stopping after ``patience`` epochs without gain comes first
when dev stops improving):

* MEDDOCAN, 500 training notes (15,073 lines; its balanced variant is the
  whole set, so one member per kind): one trial per neural member, at most
  16 epochs (7,552 updates; Stanza 8,000 updates with a dev evaluation
  every 100); the CRF 150 L-BFGS iterations.
* PhysioNet, our split of its 1,913 notes (1,189 training notes: 13,359
  lines; the balanced variant 1,096): the imbalanced member as MEDDOCAN's
  (one trial, at most 19 epochs, 7,942 updates); the balanced one the full
  search (8 trials of at most 30 epochs, 8,400 updates).

So every neural member of a standard run makes about 8,000 updates
whatever the corpus size above a few hundred notes. Measured on the shared
2-core EPYC at load 8 (niced; the load changes these times, not the work):
a spaCy update of 32 lines 0.95 s and its dev pass 11 ms a line, so up to
2.5 h for one spaCy member on MEDDOCAN; Stanza 150 s for 7 updates and one
dev evaluation of 1,611 lines, so its 80 evaluations of MEDDOCAN's 7,801
dev lines would take about 15 h, past the safety stop; the CRF about 2.5 s
an iteration over MEDDOCAN's 15,073 lines (the quick run's 30 in 85 s with
its features), so its 150 take about 7 min. A standard run of the default
five kinds on a CPU is therefore an overnight job (the safety stop is
8 h); on a 2-core desktop the everyday retrain is ``--models crf rules``
(PhysioNet: 15 min at load 10, BENCHMARKS.md) or ``quick``. The bounds are
kept as they are until a change is measured on accuracy (Stanza's
evaluation interval is the biggest lever). Stanza's rate was taken with
torch's OpenMP threads spinning, before ``app`` set ``OMP_WAIT_POLICY=PASSIVE``
(spinning made a Flair step 21x slower on this machine): it is pessimistic.
Which members pay their time on a 2-core CPU: docs/ARCHITECTURE.md. The ensembles' cost does not
depend on the budget but on dev's size: the MEDDOCAN quick crf+rules run
(7,801 dev lines) took 87 min at load 8, 92 s of it training the CRF and
most of the rest fitting the recall-tuned stacking meta-models.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

from app.core.progress import SAFETY_STOP, Progress, ProgressFn


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits on the training of a run and of each of its members.

    Parameters
    ----------
    name
        ``"quick"``, ``"standard"`` or ``"full"``.
    max_epochs
        Passes over the training set of an epoch-based model (spaCy, Flair)
        and the epochs' worth of steps of a step-based one (Stanza), before
        ``min_steps``/``max_steps`` adjust them to the data size.
    patience
        Epochs without a dev strict-F1 improvement before stopping early.
    hpo_trials
        Hyperparameter-search trials on small data; 1 means "train the
        defaults, no search".
    min_steps, max_steps
        Optimiser updates of one trial: at least ``min_steps`` (tiny
        corpora), at most ``max_steps`` (whole epochs, at least one).
    search_steps
        Updates the whole search may spend: trials beyond the first run
        only while they fit (``trials``).
    max_iterations
        Iterations of a full-batch optimiser (the CRF's L-BFGS).
    safety_seconds
        The clock's safety stop for a whole run, or ``None`` for none.
    """

    name: str
    max_epochs: int
    patience: int
    hpo_trials: int
    min_steps: int
    max_steps: int
    search_steps: int
    max_iterations: int
    safety_seconds: float | None

    def with_overrides(self, params: dict) -> "Budget":
        """Return a copy where ``params`` may override single limits."""
        fields = {k: params[k] for k in ("max_epochs", "patience", "max_steps", "max_iterations")
                  if params.get(k) is not None}
        return replace(self, **fields) if fields else self

    def epochs(self, n_train: int, batch_size: int) -> int:
        """Epochs of one trial over ``n_train`` examples in batches of ``batch_size``."""
        n_batches = max(1, math.ceil(n_train / max(1, batch_size)))
        return max(1, min(max(self.max_epochs, math.ceil(self.min_steps / n_batches)),
                          self.max_steps // n_batches))

    def steps(self, n_train: int, batch_size: int) -> int:
        """Optimiser steps of one trial (a step-based trainer's bound)."""
        n_batches = max(1, math.ceil(n_train / max(1, batch_size)))
        return min(self.max_steps, max(self.min_steps, self.max_epochs * n_batches))

    def trials(self, n_train: int, batch_size: int = 32) -> int:
        """Search trials for ``n_train`` examples: ``hpo_trials`` while the
        trials' steps fit in ``search_steps``, never fewer than one."""
        per_trial = self.epochs(n_train, batch_size) * max(1, math.ceil(n_train / max(1, batch_size)))
        return max(1, min(self.hpo_trials, self.search_steps // max(1, per_trial)))


_BUDGETS: dict[str, Budget] = {
    "quick": Budget("quick", max_epochs=4, patience=2, hpo_trials=1, min_steps=50,
                    max_steps=1000, search_steps=1000, max_iterations=30,
                    safety_seconds=3600.0),
    # A retrain in the learning loop (what it costs: the module docstring).
    "standard": Budget("standard", max_epochs=30, patience=4, hpo_trials=8, min_steps=200,
                       max_steps=8000, search_steps=12000, max_iterations=150,
                       safety_seconds=8 * 3600.0),
    # Overnight and more.
    "full": Budget("full", max_epochs=100, patience=8, hpo_trials=20, min_steps=500,
                   max_steps=30000, search_steps=120000, max_iterations=300,
                   safety_seconds=48 * 3600.0),
}
#: The budget names, in order of size (the training schema's choices).
BUDGETS: tuple[str, ...] = tuple(_BUDGETS)


def get_budget(name: "str | Budget") -> Budget:
    """The ``Budget`` called ``name`` (a ``Budget`` is returned as it is);
    ``ValueError`` for an unknown name."""
    if isinstance(name, Budget):
        return name
    try:
        return _BUDGETS[name]
    except KeyError:
        raise ValueError(f"unknown budget {name!r} (known: {', '.join(BUDGETS)})") from None


def safety_seconds(ctx, params: dict | None = None) -> float | None:
    """Seconds one fit may take before the safety stop: the caller's
    ``ctx.max_seconds`` (what is left of the run), lowered to the spec's own
    ``max_seconds`` param when set; ``None`` for no stop."""
    caps = [c for c in ((params or {}).get("max_seconds"), getattr(ctx, "max_seconds", None))
            if c is not None]
    return max(1e-3, min(caps)) if caps else None


class SafetyClock:
    """The clock of one fit, as a safety stop that says so when it fires.

    ``expired()`` is cheap to call every batch; the first time it returns
    ``True`` it reports a ``SAFETY_STOP`` event through ``progress``, which
    the search records as the trial's ``clock_stop`` (and the run as the
    member's).
    """

    def __init__(self, seconds: float | None, progress: ProgressFn, model: str) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds if seconds else None
        self.fired = False
        self._progress = progress
        self._model = model

    def expired(self) -> bool:
        if self.fired or self.deadline is None:
            return self.fired
        if time.monotonic() > self.deadline:
            self.fire()
        return self.fired

    def fire(self) -> None:
        """Record (once) that the safety stop ended this fit early."""
        if not self.fired:
            self.fired = True
            self._progress(Progress(0.0, "train", model=self._model, kind=SAFETY_STOP,
                                    message=f"safety time limit ({self.seconds:.0f} s) reached: "
                                            "training stopped early, so this model depends on "
                                            "the machine's speed"))
