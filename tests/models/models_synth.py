"""Tiny synthetic English notes with PERSON and PHONE spans for model tests."""
from __future__ import annotations

import random

from app.core.spans import Document, Span

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
