"""Document-level propagation: a string found once is found everywhere.

A note names its patient, street or hospital several times; a model that
tags three mentions and misses the fourth leaks the identifier anyway.
After the candidate has predicted a whole document, every predicted
string of a propagated label is looked up again in that document and each
further occurrence that starts and ends on canonical token boundaries and
overlaps no predicted span is tagged with the string's (majority) label.

Searching for a span's text is right here, unlike anywhere else in the
application: the question *is* "where else does this string occur". The
offsets of the occurrences found come from the search, never the reverse.

Which labels propagate is learned on dev (``fit_propagation``): a label is
kept when propagating it raises dev strict micro-F1 (F2 under a
recall-first objective): "varón" is tagged after "Sexo:" but not in running
text, a name is tagged everywhere. The training run fits it for the
selected candidate; the predictor and ``deid evaluate`` apply it.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable, Sequence

from app.core.spans import Covered, Span
from app.core.tokenize import Segment, segment
from app.eval.metrics import PRF, f_beta, strict_counts

#: Shorter strings are not propagated ("M", "Sr").
MIN_CHARS = 3


def token_bounds(segments: Iterable[Segment]) -> tuple[set[int], set[int]]:
    """Start and end offsets of the tokens of ``segments`` (those of a whole
    text, or only the ones a prediction covered)."""
    starts, ends = set(), set()
    for seg in segments:
        for tok in seg.tokens:
            starts.add(tok.start)
            ends.add(tok.end)
    return starts, ends


def propagate(text: str, spans: Sequence[Span], labels: Iterable[str],
              bounds: tuple[set[int], set[int]] | None = None) -> list[Span]:
    """``spans`` plus every further occurrence of a predicted string of ``labels``.

    The added spans carry the lowest confidence of the spans they copy
    (None when those have none). Returns the spans sorted by offset.
    """
    labels = set(labels)
    if not labels or not spans:
        return sorted(spans, key=lambda s: (s.start, s.end))
    starts, ends = bounds or token_bounds(segment(text))
    found: dict[str, Counter] = defaultdict(Counter)
    confidence: dict[str, float | None] = {}
    for s in spans:
        key = text[s.start:s.end]
        if s.label in labels and len(key.strip()) >= MIN_CHARS:
            found[key][s.label] += 1
            if s.confidence is None or confidence.get(key, 1.0) is None:
                confidence[key] = None
            else:
                confidence[key] = min(confidence.get(key, 1.0), s.confidence)
    covered = Covered(spans)
    added: list[Span] = []
    # Longer strings first: "Hospital La Paz" before "La Paz".
    for key in sorted(found, key=len, reverse=True):
        label = found[key].most_common(1)[0][0]
        at = text.find(key)
        while at != -1:
            end = at + len(key)
            if at in starts and end in ends and not covered.overlaps(at, end):
                added.append(Span(at, end, label, confidence[key]))
                covered.add(at, end)
            at = text.find(key, at + 1)
    return sorted([*spans, *added], key=lambda s: (s.start, s.end))


Doc = tuple[str, Sequence[Span], Sequence[Span], Sequence[Segment]]


def fit_propagation(docs: Sequence[Doc], beta: float = 1.0) -> tuple[list[str], float, float]:
    """Labels whose propagation raises strict micro-F-beta on ``docs``, with
    the score before and after propagating them all (``beta`` 2 for a
    recall-first selection).

    ``docs`` are ``(text, predicted spans, gold spans, segments)`` of data
    the candidate did not train on (dev); ``segments`` are the parts of the
    text that were predicted and have gold (occurrences elsewhere are not
    counted). Each label is judged on its own against the baseline.
    """
    bounds = [token_bounds(segs) for *_, segs in docs]

    def f1(labels) -> float:
        total = PRF(0, 0, 0)
        for (text, pred, gold, _), b in zip(docs, bounds):
            total += strict_counts(gold, propagate(text, pred, labels, b) if labels else pred)
        return f_beta(total.precision, total.recall, beta)

    before = f1([])
    keep = [label for label in sorted({s.label for _, pred, _, _ in docs for s in pred})
            if f1([label]) > before]
    return keep, before, f1(keep) if keep else before
