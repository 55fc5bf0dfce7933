"""Joins: where a project's annotators never end a span inside a glued word.

A prediction may cover part of a word glued together without a space: the
"8" of "7-8", the "/10" of "9/10". What it leaves shows: the month of a
date, half of a number range that was a date. The annotated training notes
say which joins annotators keep whole: a *join* is two letter or digit
tokens glued directly ("x45") or through one character ("9/10", "7-8"),
typed by the kinds of its two sides and that character (``("D", "/",
"D")``). A join type seen at least ``MIN_JOINS`` times with a span on
either side, and cut by a span's edge in at most ``MAX_SHARE`` of those, is
*kept whole*: a predicted span that reaches one side of it is widened over
it (PhysioNet's training notes: the 370 digit/digit joins an identifier
touches are all inside one, and the 71 digit-digit ones; letter-digit joins
are cut as often as kept, "QUARTERMAIN3" annotated as its letters, so they
are not widened).

Learned from the training split's gold (``kept_joins``) and kept for the
selected candidate unless dev disagrees (app.services.finishing); the types
name kinds of characters only, never a word of the notes.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Iterable, Sequence

from app.core.spans import Span
from app.core.tokenize import Token, tokenize

#: A join type: (kind of the left side, the character between or "", kind of
#: the right side); kinds are "A" (letters) and "D" (digits).
Join = tuple[str, str, str]
#: Times a join type must touch a span before its share means something.
MIN_JOINS = 5
#: The largest share of those times a span's edge may cut it.
MAX_SHARE = 0.02
#: How far a span's glued word is read either side (a run of characters
#: with no space longer than this is no word to widen over).
_REACH = 64


def _kind(text: str, tok: Token) -> str | None:
    ch = text[tok.start]
    return "A" if ch.isalpha() else "D" if ch.isdigit() else None


def _joins(text: str, toks: Sequence[Token]) -> Iterable[tuple[int, int, Join]]:
    """``(i, j, type)`` for each join of ``toks``: tokens i and j (j = i + 1
    or i + 2) of a letter or digit kind, glued directly or through one
    other character."""
    kinds = [_kind(text, t) for t in toks]
    for i in range(len(toks) - 1):
        if kinds[i] is None or toks[i].end != toks[i + 1].start:
            continue
        if kinds[i + 1] is not None:
            yield i, i + 1, (kinds[i], "", kinds[i + 1])
        elif (i + 2 < len(toks) and kinds[i + 2] is not None
              and toks[i + 1].end == toks[i + 2].start and toks[i + 1].end - toks[i + 1].start == 1):
            yield i, i + 2, (kinds[i], text[toks[i + 1].start], kinds[i + 2])


def kept_joins(docs: Iterable[tuple[str, Sequence[Span]]], min_joins: int = MIN_JOINS,
               max_share: float = MAX_SHARE) -> frozenset[Join]:
    """The join types ``docs`` (``(text, gold spans)``) keep whole."""
    whole: Counter = Counter()
    cut: Counter = Counter()
    for text, spans in docs:
        if not spans:
            continue
        toks = tokenize(text)
        owner: list[int | None] = [None] * len(toks)
        ordered = sorted(spans, key=lambda s: (s.start, s.end))
        k = 0
        for n, span in enumerate(ordered):
            while k < len(toks) and toks[k].end <= span.start:
                k += 1
            j = k
            while j < len(toks) and toks[j].start < span.end:
                owner[j] = n
                j += 1
        for i, j, kind in _joins(text, toks):
            if owner[i] is None and owner[j] is None:
                continue
            if owner[i] == owner[j] and all(owner[m] == owner[i] for m in range(i, j + 1)):
                whole[kind] += 1
            else:
                cut[kind] += 1
    return frozenset(k for k in set(whole) | set(cut)
                     if whole[k] + cut[k] >= min_joins and cut[k] <= max_share * (whole[k] + cut[k]))


def widen(text: str, spans: Sequence[Span], joins: frozenset[Join]) -> list[Span]:
    """``spans`` widened over the ``joins`` their edges cut (again and again:
    "1-2-3"); spans a widening made overlap become one, with the label of
    the longer."""
    if not joins or not spans:
        return list(spans)
    out = [_widened(text, s, joins) for s in spans]
    if all(a is b for a, b in zip(out, spans)):
        return list(spans)
    merged: list[Span] = []
    for s in sorted(out, key=lambda s: (s.start, s.end)):
        if merged and s.start < merged[-1].end:
            last = merged[-1]
            longer = s if s.end - s.start > last.end - last.start else last
            merged[-1] = replace(longer, start=last.start, end=max(last.end, s.end))
        else:
            merged.append(s)
    return merged


def _widened(text: str, span: Span, joins: frozenset[Join]) -> Span:
    lo = span.start
    while lo > 0 and not text[lo - 1].isspace() and span.start - lo < _REACH:
        lo -= 1
    hi = span.end
    while hi < len(text) and not text[hi].isspace() and hi - span.end < _REACH:
        hi += 1
    if lo == span.start and hi == span.end:
        return span                                   # nothing glued to it
    toks = tokenize(text, lo, hi)
    inside = [n for n, t in enumerate(toks) if t.start < span.end and t.end > span.start]
    if not inside:
        return span
    first, last = inside[0], inside[-1]
    changed = True
    while changed:
        changed = False
        for i, j, kind in _joins(text, toks):
            if kind not in joins:
                continue
            if j == first or (i < first <= j):        # the span starts at or inside the join's right
                first, changed = i, True
            if i == last or (i <= last < j):          # ... ends at or inside its left
                last, changed = j, True
    start, end = min(span.start, toks[first].start), max(span.end, toks[last].end)
    return span if (start, end) == (span.start, span.end) else replace(span, start=start, end=end)


def describe_join(join: Sequence[str]) -> str:
    """A join type in words: ``("D", "/", "D")`` -> "digits/digits",
    ``("D", ")", "D")`` -> 'digits ")" digits' (a bracket or a comma glued
    between the words would read as the sentence's own)."""
    left, mid, right = join
    names = {"A": "letters", "D": "digits"}
    if not mid:
        return f"{names[left]} then {names[right]}"
    if mid in "/-.:":
        return f"{names[left]}{mid}{names[right]}"
    return f'{names[left]} "{mid}" {names[right]}'

