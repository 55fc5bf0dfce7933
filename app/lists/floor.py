"""The guaranteed floor: every list hit ends up inside the output.

Applied after the model and its finishing steps (app.services.predictor,
app.services.evaluating), so annotate, redact, the suggestions and
evaluate all see it.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from app.core.spans import Span

from .matcher import ListHit


def floor_spans(hits: Sequence[ListHit], labels: Mapping[str, str]) -> list[Span]:
    """List hits as spans with the project's labels (categories without a label dropped)."""
    return [Span(h.start, h.end, labels[h.category], 1.0) for h in hits if h.category in labels]


def apply_floor(spans: Sequence[Span], floor: Sequence[Span]) -> list[Span]:
    """``spans`` with every character of every ``floor`` span covered.

    A floor span overlapping no predicted span is added; one that a
    predicted span only partly covers widens the spans it overlaps into one
    span, with the label of the first of them (the model's label wins where
    it found something, the list's extent where it found more).
    """
    out = sorted(spans, key=lambda s: (s.start, s.end))
    for f in floor:
        hit = [s for s in out if s.start < f.end and f.start < s.end]
        if not hit:
            out.append(f)
        else:
            covered = f.start
            for s in hit:
                if s.start > covered:
                    break
                covered = max(covered, s.end)
            if covered >= f.end:
                continue
            merged = Span(min(f.start, hit[0].start), max(f.end, hit[-1].end), hit[0].label,
                          hit[0].confidence)
            out = [s for s in out if s not in hit] + [merged]
        out.sort(key=lambda s: (s.start, s.end))
    return out
