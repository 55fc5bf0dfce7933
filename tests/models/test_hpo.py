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
