"""Tiny synthetic English notes with PERSON and PHONE spans for model tests."""
from __future__ import annotations

import random
import socket

import pytest

from app.core.bio import spans_to_tags
from app.core.spans import Document, Span
from app.core.tokenize import segment
from app.models.base import Corpus, TaggedSegment

_NAMES = ["Smith", "Jones", "Nguyen", "Patel", "Brown", "Garcia", "Wilson", "Taylor"]
_FILLER = ["Patient stable overnight.", "No acute distress.", "Bloods reviewed today.",
           "Plan to continue antibiotics.", "Mobilising with frame."]


def make_docs(n_docs: int = 12, seed: int = 0, split: str | None = None) -> list[Document]:
    """Documents of a few lines each; every name and phone is a gold span."""
    rng = random.Random(seed)
    docs = []
    for d in range(n_docs):
        text, spans = "", []

        def add(piece: str, label: str | None = None) -> None:
            nonlocal text
            if label:
                spans.append(Span(len(text), len(text) + len(piece), label))
            text += piece

        for _ in range(4):
            kind = rng.randrange(5)
            if kind == 0:
                add("Seen by Dr ")
                add(rng.choice(_NAMES), "PERSON")
                add(" on ward.\n")
            elif kind == 1:
                add("Call ")
                add(f"04{rng.randrange(10**8):08d}", "PHONE")
                add(" if worse.\n")
            else:
                add(rng.choice(_FILLER) + "\n")
        docs.append(Document(f"note{d:02d}", text, spans, split=split))
    return docs


def dev_items(corpus: Corpus) -> list:
    """The ``(text, segment)`` pairs of the corpus's dev part, as ``predict`` takes them."""
    return [(it.text, it.segment) for it in corpus.dev]


def dev_f1(model, corpus: Corpus) -> float:
    """Strict span F1 of ``model`` on the corpus's dev part."""
    from app.core.bio import tags_to_spans

    tp = fp = fn = 0
    for it, out in zip(corpus.dev, model.predict(dev_items(corpus))):
        gold = {(s.start, s.end, s.label) for s in tags_to_spans(it.segment.tokens, it.tags)}
        pred = {(s.start, s.end, s.label) for s in tags_to_spans(it.segment.tokens, out.tags)}
        tp, fp, fn = tp + len(gold & pred), fp + len(pred - gold), fn + len(gold - pred)
    return 2 * tp / max(1, 2 * tp + fp + fn)


_FIRST = ["John", "Mary", "Ahmed", "Li", "Olga", "Peter", "Sara", "Tom"]
_LAST = ["Smith", "Nguyen", "Brown", "Garcia", "Kowalski", "Jones"]
_LEAD = ["Patient ", "Seen by Dr ", "Family contact "]


def one_line_items(n: int, seed: int) -> list[TaggedSegment]:
    """One-line notes with a PERSON and a PHONE span each, as tagged segments."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
        phone = f"0{rng.randint(2, 9)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"
        lead = rng.choice(_LEAD)
        text = f"{lead}{name} can be reached on {phone} today."
        p = len(text) - len(" today.") - len(phone)
        spans = [Span(len(lead), len(lead) + len(name), "PERSON"), Span(p, p + len(phone), "PHONE")]
        for seg in segment(text):
            tags, _ = spans_to_tags(seg.tokens, spans)
            out.append(TaggedSegment(f"d{seed}-{i}", text, seg, tuple(tags)))
    return out


def one_line_corpus() -> Corpus:
    """40 training and 10 dev one-line notes (raw texts included for word vectors)."""
    train, dev = one_line_items(40, 1), one_line_items(10, 2)
    return Corpus(train, dev, ["PERSON", "PHONE"], raw_texts=[s.text for s in train + dev])


@pytest.fixture
def offline_single_thread(monkeypatch):
    """Refuse any network connection and run torch on one thread."""
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
