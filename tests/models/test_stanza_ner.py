"""Stanza NER member: offline training, prediction, save/load, cancel."""
from __future__ import annotations

import itertools
import logging
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from app.core.bio import tags_to_spans
from app.core.progress import Cancelled, Progress
from app.models.base import TrainContext, load_model
from app.models.stanza_ner import (StanzaModel, StanzaSpec, crf_marginals, crf_marginals_batch,
                                   to_bio)
from models_synth import offline_single_thread, one_line_corpus, one_line_items  # noqa: F401 (fixture)


@pytest.fixture(autouse=True)
def _offline(offline_single_thread):
    yield


def test_to_bio_converts_bioes_and_repairs() -> None:
    assert to_bio(["S-A", "B-B", "I-B", "E-B", "O", "E-A", "<PAD>"]) == \
        ["B-A", "B-B", "I-B", "I-B", "O", "B-A", "O"]


def test_crf_marginals_match_brute_force() -> None:
    rng = np.random.default_rng(0)
    n, k = 4, 3
    scores, trans = rng.normal(size=(n, k)), rng.normal(size=(k, k))
    weights = {}
    for path in itertools.product(range(k), repeat=n):
        s = sum(scores[t, path[t]] for t in range(n)) + sum(
            trans[path[t - 1], path[t]] for t in range(1, n))
        weights[path] = np.exp(s)
    z = sum(weights.values())
    expected = np.zeros((n, k))
    for path, w in weights.items():
        for t, tag in enumerate(path):
            expected[t, tag] += w / z
    got = crf_marginals(scores, trans)
    assert np.allclose(got, expected)
    assert np.allclose(got.sum(axis=1), 1.0)


def test_batched_marginals_equal_one_sentence_at_a_time() -> None:
    rng = np.random.default_rng(1)
    lens, k = [5, 1, 3, 5], 4
    trans = rng.normal(size=(k, k))
    # Padding holds garbage, as Stanza's logits do past a sentence's end.
    scores = rng.normal(size=(len(lens), max(lens), k)) * 3
    got = crf_marginals_batch(scores, trans, lens)
    for g, s, n in zip(got, scores, lens):
        assert g.shape == (n, k)
        assert np.allclose(g, crf_marginals(s[:n], trans))


@pytest.mark.slow
def test_train_predict_save_load_offline(tmp_path: Path) -> None:
    corpus = one_line_corpus()
    workdir = tmp_path / "work"
    reports: list[Progress] = []
    ctx = TrainContext(workdir=workdir, budget="quick", seed=7, progress=reports.append)
    model = StanzaSpec(batch_size=16).fit(corpus, ctx)

    # Progress: steps and dev scores were forwarded, ending at 1.0.
    assert any(r.loss is not None for r in reports)
    assert any(r.dev_f1 is not None for r in reports)
    assert reports[-1].model_fraction == 1.0
    # No training data (note text) is left in the work folder.
    assert {p.name for p in workdir.rglob("*.json")} <= {"done.json"}

    items = [(s.text, s.segment) for s in corpus.dev]
    out = model.predict(items)
    valid = {"O", "B-PERSON", "I-PERSON", "B-PHONE", "I-PHONE"}
    for (_, seg), ts in zip(items, out):
        assert len(ts.tags) == len(ts.confidences) == len(seg.tokens)
        assert set(ts.tags) <= valid
        assert all(0.0 <= c <= 1.0 for c in ts.confidences)
    # The pattern is trivial: the quick budget learns it.
    gold = {(s.doc_id, sp.key) for s in corpus.dev
            for sp in tags_to_spans(s.segment.tokens, s.tags)}
    pred = {(s.doc_id, sp.key) for s, ts in zip(corpus.dev, out)
            for sp in tags_to_spans(s.segment.tokens, ts.tags)}
    assert len(gold & pred) >= len(gold) // 2

    saved = tmp_path / "saved"
    model.save(saved)
    shutil.rmtree(workdir)       # the saved model must not need the training folder
    loaded = load_model(saved)
    assert isinstance(loaded, StanzaModel)
    assert loaded.predict(items) == out

    text, seg = items[0]
    mixed = loaded.predict([(text, seg._replace(tokens=[])), (text, seg)])
    assert mixed[0] == ([], [])
    # Batch composition changes float rounding, not the decision.
    assert mixed[1].tags == out[0].tags
    assert mixed[1].confidences == pytest.approx(out[0].confidences, abs=1e-5)
    assert all(sp.confidence is not None for sp in loaded.predict_spans(text))


def test_cancel_stops_training_and_cleans_up(tmp_path: Path) -> None:
    def cancel_at_first_step(p: Progress) -> None:
        if p.loss is not None:
            raise Cancelled()

    ctx = TrainContext(workdir=tmp_path, budget="quick", progress=cancel_at_first_step)
    with pytest.raises(Cancelled):
        StanzaSpec().fit(one_line_corpus(), ctx)
    assert not list(tmp_path.glob("stanza-*"))


def test_time_limit_keeps_best_model_so_far(tmp_path: Path) -> None:
    reports: list[Progress] = []
    ctx = TrainContext(workdir=tmp_path, budget="quick", progress=reports.append)
    level = logging.getLogger("stanza").level
    model = StanzaSpec(max_seconds=1e-3).fit(one_line_corpus(), ctx)
    # Stanza's training import sets its logger to DEBUG; fit restores it.
    assert logging.getLogger("stanza").level == level
    steps = [r for r in reports if r.loss is not None]
    # Stopped at the first step after the first dev evaluation, far before max_steps.
    assert steps and steps[-1].model_fraction < 0.5
    assert [r.model for r in reports if r.kind == "safety_stop"] == [model.kind]   # says so
    items = [(s.text, s.segment) for s in one_line_items(2, 3)]
    assert [len(t.tags) for t in model.predict(items)] == [len(s.tokens) for _, s in items]
