"""Training budgets: how much time and search a run may spend per model.

``quick`` is for smoke runs and tests (seconds on tiny data, no search),
``standard`` for an everyday retrain in the learning loop, ``full`` for a
final model. A model spec may still override single fields through its own
params (``max_epochs``, ``patience``, ``max_seconds``).

``run_seconds`` bounds a whole training run (every member and the
ensembles): the training service hands each member a share of what is left
(`TrainContext.max_seconds`), and the hyperparameter search spends a
member's share on as many trials as fit (the defaults first). On a big
corpus and a small CPU that means one well-trained trial per member rather
than eight half-trained ones; on a few hundred annotated notes, or a GPU,
the search runs in full.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from app.models.base import BUDGETS


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits applied to the training of one base model.

    Parameters
    ----------
    name
        ``"quick"``, ``"standard"`` or ``"full"``.
    max_epochs
        Upper bound on passes over the training set.
    patience
        Epochs without a dev strict-F1 improvement before stopping early.
    hpo_trials
        Hyperparameter-search trials; 1 means "train the defaults, no search".
    max_seconds
        Wall-time cap for one model (one HPO trial counts as one model).
    run_seconds
        Wall-time cap for a whole training run, or ``None`` for no cap.
    """

    name: str
    max_epochs: int
    patience: int
    hpo_trials: int
    max_seconds: float
    run_seconds: float | None = None

    def with_overrides(self, params: dict) -> "Budget":
        """Return a copy where ``params`` may override single limits."""
        fields = {k: params[k] for k in ("max_epochs", "patience", "max_seconds")
                  if params.get(k) is not None}
        return replace(self, **fields) if fields else self


_BUDGETS: dict[str, Budget] = {
    "quick": Budget("quick", max_epochs=4, patience=2, hpo_trials=1, max_seconds=120.0),
    # A retrain over a long lunch break on a two-core desktop.
    "standard": Budget("standard", max_epochs=30, patience=4, hpo_trials=8,
                       max_seconds=30 * 60.0, run_seconds=100 * 60.0),
    # Overnight.
    "full": Budget("full", max_epochs=100, patience=8, hpo_trials=20,
                   max_seconds=4 * 3600.0, run_seconds=14 * 3600.0),
}
assert tuple(_BUDGETS) == BUDGETS


def get_budget(name: str) -> Budget:
    """The ``Budget`` called ``name``; ``ValueError`` for an unknown name."""
    try:
        return _BUDGETS[name]
    except KeyError:
        raise ValueError(f"unknown budget {name!r} (known: {', '.join(BUDGETS)})") from None


def time_cap(ctx, params: dict | None = None) -> float:
    """Seconds one fit may take: the budget's ``max_seconds`` (or the spec's
    own override in ``params``), lowered to the caller's ``ctx.max_seconds``
    (a share of the run budget) when that is set."""
    cap = get_budget(ctx.budget).with_overrides(params or {}).max_seconds
    if getattr(ctx, "max_seconds", None) is not None:
        cap = min(cap, ctx.max_seconds)
    return max(1e-3, cap)
