"""What a loaded predictor gives and how it is called (no models here).

A :class:`SpanPredictor` is what ``PredictorSpec.load()``
(`app.services.prediction`) returns, whatever predicts a project's notes:
a trained run's candidate, the shipped starter, the rules, or annotations
read from files. The folder engine (`app.deid.folder`) calls only this.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Protocol, Sequence, runtime_checkable

from app.core.progress import ProgressFn, no_progress
from app.core.spans import Span


@dataclass
class Prediction:
    """One text's prediction."""

    spans: list[Span]
    uncertainty: float = 0.0
    member_spans: dict[str, list[Span]] = field(default_factory=dict)
    #: The hospital lists' hits (labelled), for the preview: with ``with_members`` only.
    listed: list[Span] = field(default_factory=list)
    #: ``(span, step or rule)`` for each span a step after the model removed.
    removed: list[tuple[Span, str]] = field(default_factory=list)


def left_in_clear(removed: Iterable[tuple[Span, str]],
                  replaced: Iterable[tuple[int, int]]) -> list[tuple[Span, str]]:
    """The ``(span, step or rule)`` of ``removed`` (`Prediction.removed`)
    that no ``(start, end)`` of ``replaced`` meets: what a step after the
    model left in clear, and by which rule. A removed span that a final
    replacement still covers (the name a veto cut short, a span a person
    accepted) is not left in clear."""
    ranges = list(replaced)
    return [(s, why) for s, why in removed
            if not any(a < s.end and s.start < b for a, b in ranges)]


def kept_counts(removed: Iterable[tuple[Span, str]],
                replaced: Iterable[tuple[int, int]]) -> dict[str, int]:
    """How many spans each step or rule left in clear (`left_in_clear`),
    by its name, sorted: counts only, what the audit report carries."""
    out: dict[str, int] = {}
    for _, why in left_in_clear(removed, replaced):
        out[why] = out.get(why, 0) + 1
    return dict(sorted(out.items()))


@runtime_checkable
class SpanPredictor(Protocol):
    """A loaded predictor: spans per text, the tokens it doubts, closed when done."""

    #: The training run whose models predict (``None``: the starter, the rules...).
    run_id: int | None

    def predict(self, texts: Sequence[str], *, patients: Sequence[str | None] | None = None,
                with_members: bool = False, progress: ProgressFn = no_progress,
                spans_only: bool = False) -> list[Prediction]:
        """A :class:`Prediction` per text; ``patients`` (ids or ``None``)
        select the patient table of the hospital lists."""
        ...

    def doubts(self, texts: Sequence[str], threshold: float) -> list[list[tuple[int, int, str]]]:
        """Per text, the tokens a member reading token probabilities gives at
        least ``threshold`` chance of being part of an identifier:
        ``(start, end, label)``, sorted. Empty lists when nothing reads them."""
        ...

    def close(self) -> None:
        ...


def member_doubts(members: Mapping[str, object], texts: Sequence[str],
                  threshold: float) -> list[list[tuple[int, int, str]]]:
    """:meth:`SpanPredictor.doubts` read from ``members``: those with
    ``suspicions(items, threshold)`` (the CRF's 1 - P(O)) are asked."""
    from app.core.tokenize import segment
    readers = [m for m in members.values() if callable(getattr(m, "suspicions", None))]
    out: list[list[tuple[int, int, str]]] = []
    for text in texts:
        found: list[tuple[int, int, str]] = []
        if readers:
            segs = segment(text)
            items = [(text, seg) for seg in segs]
            for model in readers:
                for seg, hits in zip(segs, model.suspicions(items, threshold)):
                    found += [(seg.tokens[i].start, seg.tokens[i].end, label) for i, label in hits]
        out.append(sorted(set(found)))
    return out
