"""Flair NER member: offline training, prediction, save/load, cancel."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.core.bio import tags_to_spans
from app.core.progress import Cancelled, Progress
from app.models.base import TrainContext, load_model
from app.models.flair_ner import FlairModel, FlairSpec
from models_synth import offline_single_thread, one_line_corpus, one_line_items  # noqa: F401 (fixture)

VALID = {"O", "B-PERSON", "I-PERSON", "B-PHONE", "I-PHONE"}


@pytest.fixture(autouse=True)
def _offline(offline_single_thread):
    yield


def _check_output(items, out) -> None:
    for (_, seg), ts in zip(items, out):
        assert len(ts.tags) == len(ts.confidences) == len(seg.tokens)
        assert set(ts.tags) <= VALID
        assert all(0.0 <= c <= 1.0 for c in ts.confidences)


@pytest.mark.slow
def test_train_predict_save_load_offline(tmp_path: Path) -> None:
    corpus = one_line_corpus()
    workdir = tmp_path / "work"
    reports: list[Progress] = []
    ctx = TrainContext(workdir=workdir, budget="quick", seed=7, progress=reports.append)
    # A higher rate than Flair's default 0.1: 40 sentences give few updates.
    model = FlairSpec(learning_rate=0.5, mini_batch_size=16).fit(corpus, ctx)
    assert model.config["transformer"] is False      # CPU default

    assert any(r.epoch is not None and r.loss is not None for r in reports)
    assert any(r.dev_f1 is not None for r in reports)
    assert reports[-1].model_fraction == 1.0
    # The trainer's folder (dev.tsv holds note text) is gone.
    assert not list(workdir.glob("flair-*"))

    items = [(s.text, s.segment) for s in corpus.dev]
    out = model.predict(items)
    _check_output(items, out)
    gold = {(s.doc_id, sp.key) for s in corpus.dev
            for sp in tags_to_spans(s.segment.tokens, s.tags)}
    pred = {(s.doc_id, sp.key) for s, ts in zip(corpus.dev, out)
            for sp in tags_to_spans(s.segment.tokens, ts.tags)}
    assert len(gold & pred) >= len(gold) // 2

    saved = tmp_path / "saved"
    model.save(saved)
    shutil.rmtree(workdir)       # vectors and training folder gone: the model is self-contained
    loaded = load_model(saved)
    assert isinstance(loaded, FlairModel)
    assert loaded.predict(items) == out

    text, seg = items[0]
    mixed = loaded.predict([(text, seg._replace(tokens=[])), (text, seg)])
    assert mixed[0] == ([], [])
    assert mixed[1].tags == out[0].tags


def test_cancel_stops_training_and_cleans_up(tmp_path: Path) -> None:
    def cancel_in_first_epoch(p: Progress) -> None:
        if p.epoch is not None:
            raise Cancelled()

    ctx = TrainContext(workdir=tmp_path, budget="quick", progress=cancel_in_first_epoch)
    with pytest.raises(Cancelled):
        FlairSpec().fit(one_line_corpus(), ctx)
    assert not list(tmp_path.glob("flair-*"))


def test_frozen_transformer_member_offline(tmp_path: Path) -> None:
    corpus = one_line_corpus()
    ctx = TrainContext(workdir=tmp_path / "work", budget="quick")
    model = FlairSpec(transformer=True, max_epochs=2).fit(corpus, ctx)
    items = [(s.text, s.segment) for s in corpus.dev[:4]]
    out = model.predict(items)
    _check_output(items, out)
    model.save(tmp_path / "saved")
    loaded = FlairModel.load(tmp_path / "saved")
    assert loaded.config["transformer"] is True
    assert loaded.predict(items) == out


def test_time_limit_ends_training_normally(tmp_path: Path) -> None:
    reports: list[Progress] = []
    ctx = TrainContext(workdir=tmp_path, budget="standard", progress=reports.append)
    model = FlairSpec(max_seconds=1e-3).fit(one_line_corpus(), ctx)
    assert max(r.epoch or 0 for r in reports) == 1
    assert [r.model for r in reports if r.kind == "safety_stop"] == [model.kind]   # says so
    items = [(s.text, s.segment) for s in one_line_items(2, 3)]
    _check_output(items, model.predict(items))
    assert not list(tmp_path.glob("flair-*"))


def test_interrupt_is_not_swallowed_by_flairs_trainer(tmp_path: Path) -> None:
    # Flair's trainer turns Ctrl-C (and the SIGTERM deid maps onto it) into a
    # normal end of training; the run must stop instead.
    def interrupt_in_first_epoch(p: Progress) -> None:
        if p.epoch is not None:
            raise KeyboardInterrupt

    ctx = TrainContext(workdir=tmp_path, budget="quick", progress=interrupt_in_first_epoch)
    with pytest.raises(KeyboardInterrupt):
        FlairSpec().fit(one_line_corpus(), ctx)
    assert not list(tmp_path.glob("flair-*"))
