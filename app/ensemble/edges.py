"""Edge words: where a project's annotators (almost) never start or end a span.

A recall-first candidate's spans often run one token past the identifier:
MEDDOCAN's default stack ended 41 of its 262 wrongly bounded spans on the
test notes with the full stop, comma, dash or bracket after them ("27 de
marzo de 2009[.]") and a dozen more with a following word ("tres meses
[de]"), each one a false positive *and* a miss under strict scoring. The
annotated training notes say where spans end, for any language: a token
seen at least ``MIN_EDGES`` times at a span's edge (as its last token or as
the token right after it) and being the last token in at most ``MAX_SHARE``
of those is an *end word* (MEDDOCAN: "." ends 16 spans and follows about a
thousand); *start words* likewise with the first token and the one before.
A predicted span loses its leading start words and trailing end words (a
span left with nothing is dropped).

Learned from the training split's gold (``edge_words``), then kept word
by word for the selected candidate where dev agrees: trimming the word
alone raises dev's score and unhides no identifier token (a word that
almost never ends an annotated span may still end many *partial*
predictions, "Calle [San]" for "Calle San Juan"); and the kept words
together as the unmarked words are (app.services.finishing). The words are the project's own vocabulary: they stay in
the run record and are never logged or reported (only their count).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Iterable, NamedTuple, Sequence

from app.core.spans import Span
from app.core.tokenize import tokenize

#: Times a token must be seen at a span's edge before its share there means something.
MIN_EDGES = 5
#: The largest share of those times it may be inside the span (first or last token).
MAX_SHARE = 0.02


class Edges(NamedTuple):
    """Lower-cased tokens trimmed from a span's start and from its end, and
    the join types a span is widened over (app.ensemble.joins)."""

    starts: frozenset[str]
    ends: frozenset[str]
    joins: frozenset[tuple[str, str, str]] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.starts or self.ends or self.joins)


def edge_words(docs: Iterable[tuple[str, Sequence[Span]]], min_edges: int = MIN_EDGES,
               max_share: float = MAX_SHARE) -> Edges:
    """The start and end words of ``docs`` (``(text, gold spans)``)."""
    first: Counter = Counter()
    before: Counter = Counter()
    last: Counter = Counter()
    after: Counter = Counter()
    for text, spans in docs:
        toks = tokenize(text)
        words = [text[t.start:t.end].lower() for t in toks]
        starts = [t.start for t in toks]
        k = 0
        for span in sorted(spans, key=lambda s: (s.start, s.end)):
            # tokens and spans both ascend: the span's first token is at or after k
            while k < len(toks) and toks[k].end <= span.start:
                k += 1
            j = k
            while j < len(toks) and starts[j] < span.end:
                j += 1
            if j == k:
                continue                              # no token inside (whitespace)
            first[words[k]] += 1
            last[words[j - 1]] += 1
            if k > 0:
                before[words[k - 1]] += 1
            if j < len(toks):
                after[words[j]] += 1

    def rare(inside: Counter, outside: Counter) -> frozenset[str]:
        return frozenset(w for w in set(inside) | set(outside)
                         if inside[w] + outside[w] >= min_edges
                         and inside[w] <= max_share * (inside[w] + outside[w]))

    return Edges(rare(first, before), rare(last, after))


def span_edges(text: str, spans: Sequence[Span]) -> tuple[set[str], set[str]]:
    """The lower-cased first and last tokens of ``spans``: the only words
    that trimming one start or end word at a time can touch."""
    firsts, lasts = set(), set()
    for span in spans:
        piece = text[span.start:span.end]
        toks = tokenize(piece)
        if toks:
            firsts.add(piece[toks[0].start:toks[0].end].lower())
            lasts.add(piece[toks[-1].start:toks[-1].end].lower())
    return firsts, lasts


def trim_edges(text: str, spans: Sequence[Span], edges: Edges) -> list[Span]:
    """``spans`` without their leading start words and trailing end words;
    a span with nothing left is dropped."""
    if not (edges.starts or edges.ends):
        return list(spans)
    out = []
    for span in spans:
        piece = text[span.start:span.end]
        toks = tokenize(piece)
        i, j = 0, len(toks)
        while i < j and piece[toks[i].start:toks[i].end].lower() in edges.starts:
            i += 1
        while j > i and piece[toks[j - 1].start:toks[j - 1].end].lower() in edges.ends:
            j -= 1
        if i == j:
            continue
        if i == 0 and j == len(toks):
            out.append(span)
        else:
            out.append(replace(span, start=span.start + toks[i].start,
                               end=span.start + toks[j - 1].end))
    return out
