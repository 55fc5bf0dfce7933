"""Locally trained word vectors: formats, cache, fallback texts."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest

from app.core.progress import Progress
from app.core.tokenize import segment
from app.models.base import Corpus, TaggedSegment, TrainContext
from app.models import vectors as vec

TEXTS = [
    "Patient John Smith was seen by Dr Mary Nguyen.\nPhone 03 9876 5432.",
    "Mr SMITH reports chest pain. Follow-up with Dr Nguyen on Monday.",
]


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("network access attempted")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


def test_vectors_cover_lowercased_canonical_vocabulary(tmp_path: Path) -> None:
    reports: list[Progress] = []
    wv = vec.build_word_vectors(TEXTS, tmp_path, dim=16, epochs=2, seed=3,
                                progress=reports.append)
    vocab = {w for sent in vec.corpus_sentences(TEXTS) for w in sent}
    assert "smith" in vocab and "Smith" not in vocab
    assert wv.vocab_size == len(vocab) and wv.dim == 16

    from gensim.models import KeyedVectors
    kv = KeyedVectors.load(str(wv.path_kv))
    assert set(kv.index_to_key) == vocab and kv.vector_size == 16
    txt = KeyedVectors.load_word2vec_format(str(wv.path_txt))
    assert set(txt.index_to_key) == vocab
    assert reports and reports[-1].fraction == 1.0
    # Nothing half-written is left beside the cache entry.
    assert [p.name for p in tmp_path.iterdir()] == [wv.path_kv.parent.name]


def test_cache_hit_reuses_files_and_key_depends_on_inputs(tmp_path: Path, monkeypatch) -> None:
    first = vec.build_word_vectors(TEXTS, tmp_path, dim=8, epochs=1, seed=1)
    import gensim.models

    def no_training(*_a, **_k):
        raise AssertionError("retrained despite a cache hit")
    with monkeypatch.context() as mp:
        mp.setattr(gensim.models, "FastText", no_training)
        again = vec.build_word_vectors(TEXTS, tmp_path, dim=8, epochs=1, seed=1)
    assert again == first

    other_seed = vec.build_word_vectors(TEXTS, tmp_path, dim=8, epochs=1, seed=2)
    other_text = vec.build_word_vectors(TEXTS[:1], tmp_path, dim=8, epochs=1, seed=1)
    dirs = {first.path_kv.parent, other_seed.path_kv.parent, other_text.path_kv.parent}
    assert len(dirs) == 3


def test_no_tokens_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        vec.build_word_vectors(["   \n  "], tmp_path)


def test_ensure_word_vectors_builds_once_from_train_texts_when_no_raw_texts(tmp_path: Path) -> None:
    items = [TaggedSegment("d0", t, s, tuple("O" for _ in s.tokens))
             for t in TEXTS for s in segment(t)]
    corpus = Corpus(train=items, dev=[], labels=["PERSON"])
    ctx = TrainContext(workdir=tmp_path)
    wv = vec.ensure_word_vectors(corpus, ctx)
    assert ctx.resources["word_vectors"] is wv
    assert wv.vocab_size == len({w for s in vec.corpus_sentences(TEXTS) for w in s})
    assert vec.ensure_word_vectors(corpus, ctx) is wv
