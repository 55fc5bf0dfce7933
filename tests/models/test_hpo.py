from pathlib import Path

import pytest

from app.core.progress import Cancelled, Progress
from app.core.tokenize import Segment
from app.models.base import ModelSpec, TagSeq, TrainContext, TrainedModel
from app.models.datasets import build_corpus
from app.models.hpo import DEFAULT_POINT, GRID, search
from app.models.spacy_ner import SpacyNERSpec
from models_synth import make_docs


class _Echo(TrainedModel):
    """Predicts the gold tags when its params are 'good', nothing otherwise."""

    kind = "hpo-echo"

    def __init__(self, good: bool, gold: dict):
        self.good, self.gold = good, gold

    def predict(self, items):
        return [TagSeq(list(self.gold[(text, seg.start, seg.end)]) if self.good else ["O"] * len(seg.tokens),
                       [1.0] * len(seg.tokens)) for text, seg in items]

    def save(self, directory: Path) -> None:
        raise NotImplementedError

    @classmethod
    def load(cls, directory: Path, device: str = "cpu"):
        raise NotImplementedError


class _FakeSpec(ModelSpec):
    """Scores 'well' only at batch 64 / lr 0.001 / dropout 0.5; records fits."""

    kind = "hpo-fake"
    fits: list[dict] = []

    def fit(self, corpus, ctx):
        type(self).fits.append(dict(self.params))
        ctx.progress(Progress(0.5, "train", model=self.kind, epoch=1))
        p = self.params
        good = (p["batch_size"], p["learn_rate"], p["dropout"]) == (64, 0.001, 0.5)
        gold = {(it.text, it.segment.start, it.segment.end): it.tags for it in corpus.dev}
        return _Echo(good, gold)


@pytest.fixture(scope="module")
def corpus():
    return build_corpus(make_docs(20, seed=1), "imbalanced", seed=3).corpus


def _ctx(tmp_path, reports=None, seed=13, budget="standard"):
    return TrainContext(workdir=tmp_path, seed=seed, budget=budget,
                        progress=(reports.append if reports is not None else lambda p: None))


def test_search_covers_grid_and_finds_best(corpus, tmp_path):
    _FakeSpec.fits = []
    reports: list[Progress] = []
    best, trials = search(_FakeSpec, {"extra": 1}, corpus, _ctx(tmp_path, reports), n_trials=27)
    assert len(trials) == 27
    points = {tuple(t.point[k] for k in GRID) for t in trials}
    assert len(points) == 27                   # every grid point once, none twice
    assert trials[0].point == DEFAULT_POINT
    assert best == {"extra": 1, "batch_size": 64, "learn_rate": 0.001, "dropout": 0.5}
    winners = [t for t in trials if t.model is not None]
    assert len(winners) == 1 and winners[0].dev_f1 == 1.0
    assert all(t.dev_f1 == 0.0 for t in trials if t is not winners[0])
    hpo = [p for p in reports if p.stage == "hpo"]
    assert len(hpo) == 27 and hpo[-1].fraction == pytest.approx(1.0)
    inner = [p for p in reports if p.stage == "train"]
    assert inner[0].fraction == pytest.approx(0.5 / 27)
    assert inner[0].message.startswith("trial 1/27")
    assert trials[0].as_row()["params"]["extra"] == 1


def test_search_is_deterministic(corpus, tmp_path):
    _, a = search(_FakeSpec, {}, corpus, _ctx(tmp_path, seed=5), n_trials=6)
    _, b = search(_FakeSpec, {}, corpus, _ctx(tmp_path, seed=5), n_trials=6)
    assert [t.point for t in a] == [t.point for t in b]
    for t in a:
        assert t.point["batch_size"] in GRID["batch_size"]
        assert t.point["learn_rate"] in GRID["learn_rate"]
        assert t.point["dropout"] in GRID["dropout"]


def test_quick_budget_trains_defaults_once(corpus, tmp_path):
    _FakeSpec.fits = []
    base = {"batch_size": 16, "learn_rate": 0.1, "dropout": 0.0}
    best, trials = search(_FakeSpec, base, corpus, _ctx(tmp_path, budget="quick"))
    assert best == base and len(trials) == 1 and trials[0].point is None
    assert _FakeSpec.fits == [base]


def test_failed_trial_is_recorded_and_cancel_propagates(corpus, tmp_path):
    class Flaky(_FakeSpec):
        kind = "hpo-flaky"

        def fit(self, corpus, ctx):
            if self.params["dropout"] == 0.1:
                raise RuntimeError("boom with note text")
            return super().fit(corpus, ctx)

    _, trials = search(Flaky, {}, corpus, _ctx(tmp_path), n_trials=4)
    assert trials[0].error == "RuntimeError" and trials[0].dev_f1 is None

    def cancel(p):
        raise Cancelled()

    with pytest.raises(Cancelled):
        search(_FakeSpec, {}, corpus, TrainContext(workdir=tmp_path, progress=cancel),
               n_trials=3)


def test_spacy_search_maps_learning_rates(corpus, tmp_path):
    reports: list[Progress] = []
    best, trials = search(SpacyNERSpec, {"width": 32, "max_epochs": 1}, corpus,
                          _ctx(tmp_path, reports, budget="quick"), n_trials=2)
    assert len(trials) == 2
    assert trials[0].params["learn_rate"] == pytest.approx(0.001)     # grid 0.01 -> Adam 0.001
    assert all(t.error is None and t.dev_f1 is not None for t in trials)
    assert best in [t.params for t in trials]
    assert [p.message for p in reports if p.stage == "hpo"] == ["trial 1/2 done", "trial 2/2 done"]


class _SlowSpec(ModelSpec):
    """Each fit 'takes' a fixed number of seconds on a fake clock and records
    the safety stop it was handed."""

    kind = "hpo-slow"
    caps: list[float] = []
    seconds = 10.0

    def fit(self, corpus, ctx):
        type(self).caps.append(ctx.max_seconds)
        _clock[0] += self.seconds
        return _Echo(False, {})


_clock = [0.0]


@pytest.fixture
def fake_clock(monkeypatch):
    import app.models.budget as budget
    import app.models.hpo as hpo
    _clock[0] = 1000.0
    _SlowSpec.caps = []
    monkeypatch.setattr(hpo.time, "monotonic", lambda: _clock[0])
    monkeypatch.setattr(budget.time, "monotonic", lambda: _clock[0])


@pytest.mark.parametrize("seconds", [1.0, 30.0])
def test_trials_are_work_not_time(corpus, tmp_path, fake_clock, seconds):
    # A slow machine (or a loaded one) runs the same trials as a fast one:
    # their number comes from the budget and the data size, never the clock.
    from app.models.budget import get_budget
    _SlowSpec.seconds = seconds
    _, trials = search(_SlowSpec, {}, corpus, _ctx(tmp_path))
    assert len(trials) == get_budget("standard").trials(len(corpus.train)) == 8
    assert not any(t.clock_stop for t in trials)


def test_big_data_gets_fewer_trials():
    from app.models.budget import get_budget
    standard = get_budget("standard")
    assert standard.trials(500) == 8                   # a few hundred segments: the full search
    assert standard.trials(15000) == 1                 # MEDDOCAN-sized: one well-trained trial
    assert standard.epochs(15000, 32) == 17            # whole epochs within max_steps
    assert standard.steps(15000, 32) == standard.max_steps
    assert get_budget("quick").epochs(200, 32) == 8    # tiny data: at least min_steps updates


def test_safety_stop_ends_the_search_and_says_so(corpus, tmp_path, fake_clock):
    _SlowSpec.seconds = 60.0
    reports = []
    ctx = TrainContext(workdir=tmp_path, budget="standard", max_seconds=100.0,
                       progress=reports.append)
    _, trials = search(_SlowSpec, {}, corpus, ctx, n_trials=8)
    # The second trial starts with 40 s left and overruns: no third one.
    assert len(trials) == 2 and _SlowSpec.caps == [pytest.approx(100.0), pytest.approx(40.0)]
    assert [t.clock_stop for t in trials] == [False, True]
    assert trials[-1].as_row()["clock_stop"] is True
    from app.core.progress import SAFETY_STOP
    assert [r.model for r in reports if r.kind == SAFETY_STOP] == ["hpo-slow"]


def test_safety_seconds_is_the_smaller_of_run_and_spec(tmp_path):
    from app.models.budget import safety_seconds
    ctx = TrainContext(workdir=tmp_path, budget="quick")
    assert safety_seconds(ctx) is None                  # no clock at all
    assert safety_seconds(ctx, {"max_seconds": 5}) == 5
    assert safety_seconds(TrainContext(workdir=tmp_path, max_seconds=7.0), {"max_seconds": 9}) == 7.0


#: The kinds a run searches (every kind but the fixed ones).
_SEARCHED = ("spacy", "stanza", "flair", "crf", "transformer")


@pytest.mark.parametrize("kind", _SEARCHED)
def test_every_point_of_a_kinds_search_trains_other_params(kind):
    """Each point of the grid a kind is searched over reaches the params its
    fit reads: two points never train the same member (Stanza's ``lr`` and
    Flair's ``learning_rate``/``mini_batch_size`` once ignored the grid's
    names, so their searches trained one point over and over), and the
    first trial is the spec's defaults, which a one-trial run trains."""
    import itertools
    import sys
    from app.models.base import FIXED_KINDS, builtin_kinds, spec_class
    from app.models.hpo import _spec_params

    assert set(_SEARCHED) == set(builtin_kinds()) - set(FIXED_KINDS)
    spec_cls = spec_class(kind)
    # A fit merges its DEFAULTS (the class's or its module's) under its params.
    defaults = getattr(spec_cls, "DEFAULTS", None) or sys.modules[spec_cls.__module__].DEFAULTS
    grid = getattr(spec_cls, "HPO_GRID", None) or GRID
    names = list(grid)
    trained = {}
    for values in itertools.product(*(grid[n] for n in names)):
        params = _spec_params(spec_cls, {}, dict(zip(names, values)))
        assert set(params) <= set(defaults), f"{kind} does not read {set(params) - set(defaults)}"
        trained[values] = tuple(sorted({**defaults, **params}.items(), key=str))
    assert len(set(trained.values())) == len(trained)
    first = _spec_params(spec_cls, {}, getattr(spec_cls, "HPO_DEFAULT", DEFAULT_POINT))
    assert {k: pytest.approx(v) for k, v in first.items()} == {k: defaults[k] for k in first}
