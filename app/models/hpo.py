"""Bayesian hyperparameter search over the paper's grid, for any model spec.

The space is the paper's: batch size {16, 32, 64}, learning rate
{0.1, 0.01, 0.001}, dropout {0, 0.1, 0.5}, searched with scikit-optimize's
``Optimizer`` (a Gaussian process over the categorical space, ask/tell) and
selected on dev strict entity micro-F1. A spec class without those knobs
brings its own ``HPO_GRID`` and ``HPO_DEFAULT`` (the CRF member searches
its penalties).

The learning rates are SGD-scale (right for Stanza and Flair). A spec class
whose optimiser needs other values defines a classmethod
``hpo_params(point) -> point`` mapping a grid point to its own values (spaCy
and Stanza map the rates to Adam's, `adam_point`); one whose params are named otherwise
than the grid's says so in ``HPO_NAMES`` (Stanza's ``lr``, Flair's
``learning_rate`` and ``mini_batch_size``): a grid name the spec does not
read would leave every trial training the same params.

The first trial is always the default point, so one trial (the ``quick``
budget) means "train the defaults, no search". How many trials run is
work, not time: ``Budget.trials`` of the training set's size (every trial
on a few hundred notes, one well-trained trial on a big corpus). The clock
(``ctx.max_seconds``, what is left of the run) is only a safety stop: each
trial gets what is left of it, no trial starts after it fired, and the
trial it stopped says ``clock_stop``. A point is never trained twice: when
the optimiser proposes a known point, an untried one is drawn with the
seed instead. Everything is deterministic for a given seed and budget,
whatever the machine's load.
"""
from __future__ import annotations

import dataclasses
import math
import random
import time
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

from app.core.bio import tags_to_spans
from app.core.progress import SAFETY_STOP, TRIAL, Cancelled, Progress, nested
from app.eval.metrics import PRF, strict_counts
from app.models.base import Corpus, ModelSpec, TrainContext, TrainedModel
from app.models.budget import SafetyClock

GRID: dict[str, tuple] = {
    "batch_size": (16, 32, 64),
    "learn_rate": (0.1, 0.01, 0.001),
    "dropout": (0.0, 0.1, 0.5),
}
DEFAULT_POINT: dict[str, Any] = {"batch_size": 32, "learn_rate": 0.01, "dropout": 0.1}


def adam_point(point: dict[str, Any]) -> dict[str, Any]:
    """A grid point with its SGD-scale ``learn_rate`` as an Adam rate, the
    ``hpo_params`` of the members trained with Adam (spaCy, Stanza), which
    diverge at 0.1: compressed geometrically around 0.001, ``0.001 *
    sqrt(rate / 0.01)`` (0.1 -> 0.0032, 0.01 -> 0.001, 0.001 -> 0.00032), so
    the grid's order is kept; batch size and dropout as they are."""
    out = dict(point)
    if "learn_rate" in out:
        out["learn_rate"] = 0.001 * math.sqrt(float(out["learn_rate"]) / 0.01)
    return out


@dataclass
class Trial:
    """One row of the trials table.

    ``point`` is the grid point (``None`` for a defaults-only run), ``params``
    what the spec was built with. ``model`` is kept for the best trial only.
    ``error`` holds the exception type of a failed trial (no message: it
    could quote note text). ``clock_stop``: the safety stop on the clock
    ended this trial, or the search after it.
    """

    index: int
    point: dict[str, Any] | None
    params: dict[str, Any]
    dev_f1: float | None
    seconds: float
    error: str | None = None
    clock_stop: bool = False
    model: TrainedModel | None = dataclasses.field(default=None, repr=False)

    def as_row(self) -> dict[str, Any]:
        """A JSON-friendly row (without the model)."""
        return {"trial": self.index, "point": self.point, "params": self.params,
                "dev_f1": self.dev_f1, "seconds": round(self.seconds, 2), "error": self.error,
                "clock_stop": self.clock_stop}


def dev_strict_f1(model: TrainedModel, corpus: Corpus) -> float:
    """Strict entity micro-F1 of ``model`` on ``corpus.dev``."""
    out = model.predict([(it.text, it.segment) for it in corpus.dev])
    total = PRF(0, 0, 0)
    for it, pred in zip(corpus.dev, out):
        gold = tags_to_spans(it.segment.tokens, it.tags)
        total += strict_counts(gold, tags_to_spans(it.segment.tokens, pred.tags))
    return total.f1


def _spec_params(spec_cls: type[ModelSpec], base: dict[str, Any],
                 point: dict[str, Any] | None) -> dict[str, Any]:
    if point is None:
        return dict(base)
    adapt = getattr(spec_cls, "hpo_params", None)
    names = getattr(spec_cls, "HPO_NAMES", {})
    point = adapt(point) if adapt else point
    return {**base, **{names.get(name, name): value for name, value in point.items()}}


def search(spec_cls: type[ModelSpec], base_params: dict[str, Any], corpus: Corpus,
           ctx: TrainContext, n_trials: int | None = None,
           grid: dict[str, Sequence] | None = None) -> tuple[dict[str, Any], list[Trial]]:
    """Search hyperparameters of ``spec_cls`` on ``corpus`` and pick by dev F1.

    Parameters
    ----------
    spec_cls
        A ``ModelSpec`` subclass.
    base_params
        Params every trial starts from; the grid point overrides them.
    corpus
        Must have a non-empty ``dev`` part when ``n_trials > 1``.
    ctx
        Training context; each trial gets ``ctx.workdir / "trial_NN"`` and a
        progress callback scaled into the whole search. ``Cancelled``
        propagates.
    n_trials
        Default: ``ctx.budget.trials`` of the training set's size. 1 trains
        ``base_params`` only.
    grid
        The categorical space (default: the spec class's ``HPO_GRID`` if it
        has one, else ``GRID``).

    Returns
    -------
    (best_params, trials)
        ``best_params`` builds the best model (``spec_cls(**best_params)``);
        ``trials`` is the table in order, the best one holding its ``model``.
    """
    from skopt import Optimizer
    from skopt.space import Categorical

    grid = dict(grid or getattr(spec_cls, "HPO_GRID", None) or GRID)
    n = n_trials if n_trials is not None else ctx.budget.trials(len(corpus.train))
    if n < 1:
        raise ValueError("n_trials must be >= 1")
    if n > 1 and not corpus.dev:
        raise ValueError("hyperparameter search needs a dev set")
    names = list(grid)
    size = 1
    for values in grid.values():
        size *= len(values)
    n = min(n, size) if n > 1 else 1

    opt = None
    if n > 1:
        opt = Optimizer([Categorical(list(grid[k]), name=k) for k in names],
                        base_estimator="GP", n_initial_points=max(1, min(4, n // 2)),
                        # A few hundred random candidates cover a 27-point space;
                        # skopt's default 10,000 only costs time.
                        acq_optimizer="sampling", acq_optimizer_kwargs={"n_points": 300},
                        random_state=ctx.seed)
    rng = random.Random(ctx.seed)
    tried: set[tuple] = set()
    trials: list[Trial] = []
    best: Trial | None = None
    clock = SafetyClock(ctx.max_seconds, ctx.progress, spec_cls.kind)
    for i in range(n):
        trial_ctx = ctx
        if clock.deadline is not None:
            if i > 0 and clock.expired():
                trials[-1].clock_stop = True
                break
            trial_ctx = dataclasses.replace(
                ctx, max_seconds=max(1.0, clock.deadline - time.monotonic()))
        if opt is None:
            point = None
        else:
            x = _next_point(opt, i, names, grid, tried, rng,
                            getattr(spec_cls, "HPO_DEFAULT", DEFAULT_POINT))
            tried.add(tuple(x))
            point = dict(zip(names, x))
        params = _spec_params(spec_cls, base_params, point)
        trial = _run_trial(spec_cls, params, point, corpus, trial_ctx, i, n)
        trials.append(trial)
        if opt is not None:
            opt.tell(x, -(trial.dev_f1 or 0.0))
        if trial.error is None and (best is None or (trial.dev_f1 or 0.0) > (best.dev_f1 or 0.0)):
            if best is not None:
                best.model = None       # keep one trained model in memory
            best = trial
        else:
            trial.model = None
        ctx.progress(Progress((i + 1) / n, "hpo", kind=TRIAL, model=spec_cls.kind, dev_f1=trial.dev_f1,
                              message=f"trial {i + 1}/{n} done"))
    if best is None:
        raise RuntimeError(f"every {spec_cls.kind} trial failed ({trials[-1].error})")
    return dict(best.params), trials


def _next_point(opt, i: int, names: list[str], grid: dict[str, Sequence],
                tried: set[tuple], rng: random.Random, default: dict[str, Any]) -> list:
    if i == 0 and all(default.get(k) in grid[k] for k in names):
        return [default[k] for k in names]
    with warnings.catch_warnings():
        # skopt warns when its proposal was seen and swaps in a random point;
        # that is expected on a 27-point space.
        warnings.filterwarnings("ignore", message=".*has been evaluated at point")
        asked = opt.ask()
    # Back to the grid's own (Python) values: skopt hands out numpy scalars.
    x = [grid[k][list(grid[k]).index(a)] for k, a in zip(names, asked)]
    if tuple(x) in tried:
        untried = [p for p in _all_points(names, grid) if tuple(p) not in tried]
        x = rng.choice(untried)
    return x


def _all_points(names: list[str], grid: dict[str, Sequence]) -> list[list]:
    points: list[list] = [[]]
    for k in names:
        points = [p + [v] for p in points for v in grid[k]]
    return points


def _run_trial(spec_cls: type[ModelSpec], params: dict[str, Any], point: dict[str, Any] | None,
               corpus: Corpus, ctx: TrainContext, i: int, n: int) -> Trial:
    stopped = [False]
    report = nested(ctx.progress, i / n, (i + 1) / n, prefix=f"trial {i + 1}/{n}")

    def scaled(p: Progress) -> None:
        if p.kind == SAFETY_STOP:
            stopped[0] = True
        report(p)

    trial_ctx = dataclasses.replace(ctx, workdir=ctx.workdir / f"trial_{i:02d}", progress=scaled)
    start = time.monotonic()
    try:
        model = spec_cls(**params).fit(corpus, trial_ctx)
        f1 = dev_strict_f1(model, corpus) if corpus.dev else None
    except Cancelled:
        raise
    except Exception as exc:  # one bad point must not end the search
        return Trial(i, point, params, None, time.monotonic() - start, error=type(exc).__name__,
                     clock_stop=stopped[0])
    return Trial(i, point, params, f1, time.monotonic() - start, clock_stop=stopped[0],
                 model=model)
