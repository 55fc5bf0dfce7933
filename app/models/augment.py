"""Mention replacement: more training segments from the site's own notes.

A model trained on a few hundred notes learns the names and places those
notes hold as words, and leans on them: a surname it never saw is, to it,
only a shape. Mention replacement (Dai and Adel 2020, "An analysis of
simple data augmentation for named entity recognition") copies each
training segment that holds a name or a place and puts, in place of each,
an entry drawn from the shipped lists (`app.rules.dictionaries`). The copy
keeps the site's context, phrasing and case; only the name is new. The
model then weighs the context and the kind of word more, the word itself
less.

The transformer member trains on the copies (`app.models.transformer_ner`,
param ``augment``): on our dev patients, two seeds on a GPU, its recall of
places and names rose in both and 2-3 fewer notes leaked; on a CPU its dev
F1 went from 0.22 to 0.69 (BENCHMARKS.md). The CRF does not: its members
gained 0.004-0.012 on the five folds, but the selected model did not.

What is replaced, by the label's surrogate kind (`app.deid.policy.default_kind`):

* ``name``: each word of two letters or more (initials stay), by a first
  name where the lists know the word as one, else by a surname;
* ``location``: the whole span, when it is words only and longer than an
  abbreviation, by a listed place of as many words.

Every other span keeps its text. Draws skip words the common-word list
holds, so a copy never teaches that "Hope" or "Bill" alone is a name. Only
the training part is copied: dev, which picks epochs and models, stays the
site's real notes. The draws are a function of the seed, the note and the
segment, so a run is repeatable.
"""
from __future__ import annotations

import random
from functools import lru_cache
from typing import Sequence

from app.core.bio import OUTSIDE, spans_to_tags, tags_to_spans
from app.core.spans import Span
from app.core.tokenize import Segment, tokenize
from app.deid.names import apply_case
from app.deid.policy import default_kind
from app.models.base import TaggedSegment
from app.rules import dictionaries

#: Suffix of a copy's ``doc_id`` (a copy is never scored or saved).
COPY_SUFFIX = "#copy"


@lru_cache(maxsize=1)
def _pools() -> tuple[tuple[str, ...], tuple[str, ...], dict[int, tuple[str, ...]]]:
    """First names, surnames and places by word count, as drawn from."""
    lex = dictionaries.lexicon()

    def usable(word: str) -> bool:
        return word.isalpha() and len(word) > 2 and word not in lex.common_words

    places: dict[int, list[str]] = {}
    for place in sorted(lex.places):
        words = place.split()
        if place not in lex.common_words and all(w.isalpha() for w in words):
            places.setdefault(len(words), []).append(place)
    return (tuple(sorted(filter(usable, lex.first_names))),
            tuple(sorted(filter(usable, lex.surnames))),
            {n: tuple(v) for n, v in places.items()})


def _cased(template: str, entry: str) -> str:
    """A list ``entry`` (stored lower case) in the case of ``template``."""
    return apply_case(template, " ".join(w.capitalize() for w in entry.split(" ")))


def _name(word: str, rng: random.Random) -> str:
    if not word.isalpha() or len(word) < 2:
        return word
    first, surnames, _ = _pools()
    pool = first if dictionaries.is_first_name(word) else surnames
    return _cased(word, rng.choice(pool))


def _place(text: str, n_words: int, rng: random.Random) -> str | None:
    """A listed place of ``n_words`` words for a place span ``text`` (``None``: keep it)."""
    if len(text) <= 3 or not all(w.isalpha() for w in text.split()):
        return None
    pool = _pools()[2].get(n_words)
    return _cased(text, rng.choice(pool)) if pool else None


def mention_replacements(items: Sequence[TaggedSegment], seed: int) -> list[TaggedSegment]:
    """One copy of each item that holds a name or a place, those replaced
    (see the module docstring). Items with nothing to replace give none.
    A copy's text is its segment alone, so its offsets start at 0."""
    kinds: dict[str, str] = {}
    out = []
    for item in items:
        if all(t == OUTSIDE for t in item.tags):
            continue
        tokens = item.segment.tokens
        spans = tags_to_spans(tokens, item.tags)
        for span in spans:
            if span.label not in kinds:
                kinds[span.label] = default_kind(span.label)
        if not any(kinds[s.label] in ("name", "location") for s in spans):
            continue
        rng = random.Random(f"{seed}:{item.doc_id}:{item.segment.start}")
        text = item.text
        parts: list[str] = []
        new_spans: list[Span] = []
        length = 0
        pos = item.segment.start

        def put(piece: str) -> None:
            nonlocal length
            parts.append(piece)
            length += len(piece)

        for span in spans:
            put(text[pos:span.start])
            original = text[span.start:span.end]
            kind = kinds[span.label]
            start = length
            if kind == "name":
                inside = [t for t in tokens if span.start <= t.start and t.end <= span.end]
                at = span.start
                for t in inside:
                    put(text[at:t.start])
                    put(_name(text[t.start:t.end], rng))
                    at = t.end
                put(text[at:span.end])
            elif kind == "location":
                n_words = len(original.split())
                put(_place(original, n_words, rng) or original)
            else:
                put(original)
            new_spans.append(Span(start, length, span.label))
            pos = span.end
        put(text[pos:item.segment.end])
        new_text = "".join(parts)
        new_tokens = tokenize(new_text)
        if not new_tokens:
            continue
        tags, _ = spans_to_tags(new_tokens, new_spans)
        out.append(TaggedSegment(item.doc_id + COPY_SUFFIX, new_text,
                                 Segment(0, len(new_text), new_tokens), tuple(tags)))
    return out
