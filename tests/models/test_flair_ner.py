"""Flair NER member: offline training, prediction, save/load, cancel."""
from __future__ import annotations

import random
import shutil
import socket
from pathlib import Path

import pytest

from app.core.bio import spans_to_tags, tags_to_spans
from app.core.progress import Cancelled, Progress
from app.core.spans import Span
from app.core.tokenize import segment
from app.models.base import Corpus, TaggedSegment, TrainContext, load_model
from app.models.flair_ner import FlairModel, FlairSpec

_FIRST = ["John", "Mary", "Ahmed", "Li", "Olga", "Peter", "Sara", "Tom"]
_LAST = ["Smith", "Nguyen", "Brown", "Garcia", "Kowalski", "Jones"]
_LEAD = ["Patient ", "Seen by Dr ", "Family contact "]
VALID = {"O", "B-PERSON", "I-PERSON", "B-PHONE", "I-PHONE"}


def _items(n: int, seed: int) -> list[TaggedSegment]:
    """One-line notes with a PERSON and a PHONE span each."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
        phone = f"0{rng.randint(2, 9)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"
        lead = rng.choice(_LEAD)
        text = f"{lead}{name} can be reached on {phone} today."
        p = text.index(phone)
        spans = [Span(len(lead), len(lead) + len(name), "PERSON"), Span(p, p + len(phone), "PHONE")]
        for seg in segment(text):
            tags, _ = spans_to_tags(seg.tokens, spans)
            out.append(TaggedSegment(f"d{seed}-{i}", text, seg, tuple(tags)))
    return out


def _corpus() -> Corpus:
    train, dev = _items(40, 1), _items(10, 2)
    return Corpus(train, dev, ["PERSON", "PHONE"], raw_texts=[s.text for s in train + dev])


@pytest.fixture(autouse=True)
def offline_single_thread(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("network access attempted")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    # Tiny models gain nothing from threads, and OpenMP spin-waits thrash
    # on a shared 2-core CI machine.
    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _check_output(items, out) -> None:
    for (_, seg), ts in zip(items, out):
        assert len(ts.tags) == len(ts.confidences) == len(seg.tokens)
        assert set(ts.tags) <= VALID
        assert all(0.0 <= c <= 1.0 for c in ts.confidences)


@pytest.mark.slow
def test_train_predict_save_load_offline(tmp_path: Path) -> None:
    corpus = _corpus()
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
        FlairSpec().fit(_corpus(), ctx)
    assert not list(tmp_path.glob("flair-*"))


def test_frozen_transformer_member_offline(tmp_path: Path) -> None:
    corpus = _corpus()
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
    model = FlairSpec(max_seconds=1e-3).fit(_corpus(), ctx)
    assert max(r.epoch or 0 for r in reports) == 1
    items = [(s.text, s.segment) for s in _items(2, 3)]
    _check_output(items, model.predict(items))
    assert not list(tmp_path.glob("flair-*"))
