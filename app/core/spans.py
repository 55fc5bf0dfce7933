"""Spans and documents: the data every layer shares.

Character offsets in Unicode code points (Python ``str`` indices) are the
single source of truth for every span. A span is never located by searching
for its text.
"""
from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass, field, replace
from typing import Iterable


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A labelled half-open character range ``[start, end)`` of a document.

    Parameters
    ----------
    start, end
        Code-point offsets into the document text, ``0 <= start < end``.
    label
        Label name (e.g. ``"PERSON"``).
    confidence
        Model confidence in ``[0, 1]`` when a model offers one, else ``None``.
    origin
        For a predicted span, the name of what made it: the candidate
        (member or ensemble), or the step and rule after it
        (``"english-floor.v1: pager"``); ``None`` when unknown. Neither
        compared nor ordered on.
    """

    start: int
    end: int
    label: str
    confidence: float | None = field(default=None, compare=False)
    origin: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not (0 <= self.start < self.end):
            raise ValueError(f"invalid span offsets [{self.start}, {self.end})")

    @property
    def key(self) -> tuple[int, int, str]:
        """Identity used by strict evaluation: same start, end and label."""
        return (self.start, self.end, self.label)

    def overlaps(self, other: "Span") -> bool:
        return self.start < other.end and other.start < self.end

    def text_in(self, text: str) -> str:
        return text[self.start:self.end]


@dataclass(slots=True)
class Document:
    """A note with its (gold or predicted) spans.

    ``name`` is a relative path-like identifier (``"sub/dir/note"`` without
    extension) that exporters reuse for output file names.
    """

    name: str
    text: str
    spans: list[Span] = field(default_factory=list)
    patient_id: str | None = None
    split: str | None = None
    meta: dict = field(default_factory=dict)

    def check_spans(self) -> None:
        """Raise ``ValueError`` if a span falls outside the text."""
        n = len(self.text)
        for s in self.spans:
            if s.end > n:
                raise ValueError(
                    f"span [{s.start}, {s.end}) beyond end of text ({n} chars)")


def sort_spans(spans: Iterable[Span]) -> list[Span]:
    return sorted(spans, key=lambda s: (s.start, s.end, s.label))


def remove_overlaps(spans: Iterable[Span]) -> list[Span]:
    """Keep a non-overlapping subset, preferring longer then earlier spans.

    BIO tagging cannot represent overlap; this is the one documented
    resolution used everywhere (the longest span wins, ties by position).

    O(n log n): the spans kept so far are disjoint, so a candidate
    ``[start, end)`` overlaps one of them exactly when the kept span with
    the greatest start before ``end`` reaches past ``start``. That span is
    found with a Fenwick tree of prefix maxima over the (sorted, distinct)
    start offsets.
    """
    ordered = sorted(spans, key=lambda s: (-(s.end - s.start), s.start, s.label))
    starts = sorted({s.start for s in ordered})
    rank = {start: i for i, start in enumerate(starts, 1)}
    tree = [0] * (len(starts) + 1)      # tree[i]: greatest kept rank in its range
    end_of = [0] * (len(starts) + 1)    # kept span's end, by the rank of its start
    chosen: list[Span] = []
    for s in ordered:
        i, last = bisect_left(starts, s.end), 0      # ranks 1..i start before s.end
        while i > 0:
            last = max(last, tree[i])
            i -= i & -i
        if last and end_of[last] > s.start:
            continue
        r = rank[s.start]
        end_of[r] = s.end
        while r < len(tree):
            if tree[r] < rank[s.start]:
                tree[r] = rank[s.start]
            r += r & -r
        chosen.append(s)
    return sort_spans(chosen)


def merge_overlaps(spans: Iterable[Span]) -> list[Span]:
    """Overlapping spans joined into one over their union, with the label,
    confidence and origin of the longest of them (ties: the earliest).

    What a redaction replaces: no character of any span may stay in clear,
    where `remove_overlaps` (for tagging) would leave the rest of the
    shorter span ("Zebulon <**PERSON**>ttoline" of two overlapping
    annotations). Spans that only touch stay apart.
    """
    out: list[Span] = []
    group: list[Span] = []
    end = -1

    def flush() -> None:
        if group:
            best = min(group, key=lambda s: (-(s.end - s.start), s.start))
            out.append(best if len(group) == 1 else
                       replace(best, start=group[0].start, end=end))

    for s in sorted(spans, key=lambda s: (s.start, s.end)):
        if group and s.start < end:
            group.append(s)
            end = max(end, s.end)
        else:
            flush()
            group, end = [s], s.end
    flush()
    return out


def met_by(spans: Iterable[Span], others: Iterable[Span]) -> list[bool]:
    """For each of ``spans``, whether any of ``others`` overlaps it.

    O((n + m) log m), where comparing every pair (``any(o.overlaps(s) ...)``)
    grew with the square of a note's spans (issue 35 item 11): ``others``
    sorted by start, with the running maximum of their ends; ``[start, end)``
    is met exactly when the greatest end among those starting before
    ``end`` passes ``start``. ``others`` may overlap each other.
    """
    ranges = sorted((o.start, o.end) for o in others)
    starts = [start for start, _ in ranges]
    reach, top = [], 0
    for _, end in ranges:
        top = max(top, end)
        reach.append(top)
    out = []
    for s in spans:
        j = bisect_left(starts, s.end)               # others[:j] start before s.end
        out.append(j > 0 and reach[j - 1] > s.start)
    return out


class Covered:
    """The character ranges a note's spans cover (disjoint, kept sorted):
    whether a new span would overlap one of them, in O(log n).

    The finishing steps (app.ensemble.fill, app.ensemble.propagation) add a
    span only where nothing is tagged yet.
    """

    def __init__(self, spans: Iterable[Span] = ()) -> None:
        self._ranges = sorted((s.start, s.end) for s in spans)

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect_left(self._ranges, (start, end))
        # Disjoint and sorted: only the neighbours either side can overlap.
        return ((i > 0 and self._ranges[i - 1][1] > start)
                or (i < len(self._ranges) and self._ranges[i][0] < end))

    def add(self, start: int, end: int) -> None:
        insort(self._ranges, (start, end))


class Ranges:
    """Character ranges that may overlap each other (a note's spans as a
    step changes them): whether a range meets any of them, without looking
    at them all.

    Only those starting within the longest range's length before it can
    meet it, found by bisection: comparing a name with every span of the
    note for each name grew with the square of one big note's spans
    (``complete_names``, issue 35 item 11).
    """

    def __init__(self, spans: Iterable[Span] = ()) -> None:
        self._ranges = sorted((s.start, s.end) for s in spans)
        self._longest = max((end - start for start, end in self._ranges), default=0)

    def meets(self, start: int, end: int) -> bool:
        """Whether one of the ranges overlaps ``[start, end)``: starts before
        ``end`` and ends after ``start``."""
        i = bisect_left(self._ranges, (start - self._longest, start - self._longest))
        j = bisect_left(self._ranges, (end, end))
        return any(e > start for _, e in self._ranges[i:j])

    def add(self, start: int, end: int) -> None:
        insort(self._ranges, (start, end))
        self._longest = max(self._longest, end - start)

    def remove(self, start: int, end: int) -> None:
        """Drop one range ``[start, end)`` (one that was added)."""
        del self._ranges[bisect_left(self._ranges, (start, end))]
