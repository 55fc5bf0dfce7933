"""Strict/relaxed entity and binary-token precision, recall and F1.

Documents are compared as parallel lists: ``gold[i]`` and ``pred[i]`` are
the spans of document ``i``.

* strict: a predicted span is correct when start, end and label match;
* relaxed: it overlaps a gold span with the same label (each gold span is
  matched at most once);
* token: binary PII-vs-not over canonical tokens, label-blind.

Also here: strict error lists, identifiers missed by every prediction (the
privacy view) and label confusion. `app.eval.report` assembles all of it.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from app.core.spans import Span
from app.core.tokenize import tokenize


@dataclass(frozen=True, slots=True)
class PRF:
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        return f_beta(self.precision, self.recall, 1.0)

    def f(self, beta: float) -> float:
        return f_beta(self.precision, self.recall, beta)

    def __add__(self, other: "PRF") -> "PRF":
        return PRF(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def __sub__(self, other: "PRF") -> "PRF":
        return PRF(self.tp - other.tp, self.fp - other.fp, self.fn - other.fn)

    def as_dict(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "tp": self.tp, "fp": self.fp, "fn": self.fn}


def f_beta(p: float, r: float, beta: float) -> float:
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r) if p + r else 0.0


def strict_counts(gold: Sequence[Span], pred: Sequence[Span], label: str | None = None) -> PRF:
    g = {s.key for s in gold if label is None or s.label == label}
    p = {s.key for s in pred if label is None or s.label == label}
    tp = len(g & p)
    return PRF(tp, len(p) - tp, len(g) - tp)


def relaxed_counts(gold: Sequence[Span], pred: Sequence[Span], label: str | None = None) -> PRF:
    g = sorted((s for s in gold if label is None or s.label == label), key=lambda s: s.start)
    p = sorted((s for s in pred if label is None or s.label == label), key=lambda s: s.start)
    used = [False] * len(g)
    tp = 0
    for ps in p:
        for i, gs in enumerate(g):
            if gs.start >= ps.end:
                break
            if not used[i] and gs.label == ps.label and gs.overlaps(ps):
                used[i] = True
                tp += 1
                break
    return PRF(tp, len(p) - tp, len(g) - tp)


def marked_tokens(toks: Sequence, spans: Sequence[Span]) -> set[int]:
    """Indices of the tokens that some span overlaps."""
    out: set[int] = set()
    ivs = sorted((s.start, s.end) for s in spans)
    j = 0
    for i, t in enumerate(toks):
        while j < len(ivs) and ivs[j][1] <= t.start:
            j += 1
        k = j
        while k < len(ivs) and ivs[k][0] < t.end:
            if ivs[k][1] > t.start:
                out.add(i)
                break
            k += 1
    return out


def word_tokens(text: str, toks: Sequence, spans: Sequence[Span]) -> set[int]:
    """Indices of the tokens with a letter or digit that ``spans`` overlap:
    the words a reader would see if they were left visible (a bracket or a
    full stop left outside a span shows nothing)."""
    return {i for i in marked_tokens(toks, spans)
            if any(c.isalnum() for c in text[toks[i].start:toks[i].end])}


def token_counts(text: str, gold: Sequence[Span], pred: Sequence[Span], *,
                 tokens: Sequence | None = None) -> PRF:
    """Binary PII-token counts over the canonical tokens of ``text``
    (``tokens``: those tokens, when the caller already has them)."""
    toks = tokenize(text) if tokens is None else tokens
    g, p = marked_tokens(toks, gold), marked_tokens(toks, pred)
    tp = len(g & p)
    return PRF(tp, len(p) - tp, len(g) - tp)


def label_token_counts(text: str, gold: Sequence[Span], pred: Sequence[Span], *,
                       tokens: Sequence | None = None) -> dict[str, PRF]:
    """Per gold label: its identifier tokens hidden by a prediction of any
    label (tp) and left visible (fn); fp is 0. A label-blind recall per
    label, i.e. which kinds of identifier leak."""
    toks = tokenize(text) if tokens is None else tokens
    hidden = marked_tokens(toks, pred)
    out: dict[str, PRF] = {}
    for label in {s.label for s in gold}:
        mine = marked_tokens(toks, [s for s in gold if s.label == label])
        tp = len(mine & hidden)
        out[label] = PRF(tp, 0, len(mine) - tp)
    return out


def micro(texts: Sequence[str], gold: Sequence[Sequence[Span]], pred: Sequence[Sequence[Span]]
          ) -> dict[str, PRF]:
    """Micro-averaged strict, relaxed and token counts over documents."""
    if not (len(texts) == len(gold) == len(pred)):
        raise ValueError("texts, gold and pred must be parallel lists")
    zero = PRF(0, 0, 0)
    out = {"strict": zero, "relaxed": zero, "token": zero}
    for text, g, p in zip(texts, gold, pred):
        out["strict"] += strict_counts(g, p)
        out["relaxed"] += relaxed_counts(g, p)
        out["token"] += token_counts(text, g, p)
    return out


def strict_errors(gold: Sequence[Span], pred: Sequence[Span]) -> tuple[list[Span], list[Span]]:
    """Strict false negatives (gold spans not predicted exactly, with their
    label) and false positives (predicted spans not in the gold), sorted."""
    g = {s.key for s in gold}
    p = {s.key for s in pred}
    fn = sorted(s for s in gold if s.key not in p)
    fp = sorted(s for s in pred if s.key not in g)
    return fn, fp


def missed_spans(gold: Sequence[Span], pred: Sequence[Span]) -> list[Span]:
    """Gold spans that no predicted span of ANY label overlaps, sorted.

    For privacy these identifiers leaked: a wrong label or a partial span
    still gets redacted, a missed one does not.
    """
    ps = sorted((s.start, s.end) for s in pred)
    starts = [s for s, _ in ps]
    reach: list[int] = []       # reach[i]: furthest end among ps[:i + 1]
    for _, e in ps:
        reach.append(max(e, reach[-1]) if reach else e)
    out = []
    for g in sorted(gold):
        k = bisect_left(starts, g.end)      # ps[:k] start before g ends
        if not (k and reach[k - 1] > g.start):
            out.append(g)
    return out


def label_confusion(gold: Sequence[Span], pred: Sequence[Span]) -> Counter:
    """Count gold/predicted span pairs whose labels differ.

    Keys are ``("exact", gold_label, pred_label)`` for pairs with the same
    offsets and ``("overlap", gold_label, pred_label)`` for pairs that
    overlap with different offsets. Each such pair counts once.
    """
    out: Counter = Counter()
    ps = sorted(pred)
    for g in gold:
        for p in ps:
            if p.start >= g.end:
                break
            if p.end > g.start and p.label != g.label:
                kind = "exact" if (p.start, p.end) == (g.start, g.end) else "overlap"
                out[(kind, g.label, p.label)] += 1
    return out
