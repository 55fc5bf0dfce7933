"""Word spread: in how many patients' notes a word turns up, read off the
site's own notes.

A patient's surname, street or home town turns up in that patient's notes
and hardly anyone else's; the words of medicine turn up across many
patients. The CRF reads each word's spread as a feature (`bucket`), learned
from the project's notes, not from any list written here: it carries to a
name no list and no annotated note holds, because a new patient's name is
rare across the site's patients too. Counted once per patient (per note
where the patient is unknown), so a name repeated through one patient's
twenty notes still counts one.

Only words of two patients or more are kept: one patient or none is the
bucket of every word not in the table, which is what a word of a note the
table never saw (a new patient's name) should read as. That also keeps each
patient's own words out of a saved model, and the words kept are stored as
hashes (`key`), as the CRF stores its features: no word in clear.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from functools import lru_cache
from hashlib import blake2b
from typing import Iterable, Mapping, Sequence

from app.core.tokenize import tokenize

#: Upper bounds of the buckets after "at most one patient".
_BOUNDS = ((2, "2"), (5, "3-5"), (20, "6-20"))


@lru_cache(maxsize=1 << 16)
def key(word: str) -> str:
    """The table's key of ``word``: a hash of its lower-cased form."""
    return blake2b(word.lower().encode("utf-8"), digest_size=8).hexdigest()


def word_spread(texts: Sequence[str], groups: Sequence[str] | None = None) -> dict[str, int]:
    """`key` of a word -> number of groups (patients) whose texts hold it,
    for words starting with a letter held by two groups or more.
    ``groups``: the patient of each text; ``None`` or a length that does not
    match: each text is its own group."""
    if groups is None or len(groups) != len(texts):
        groups = [str(i) for i in range(len(texts))]
    by_group: dict[str, list[str]] = defaultdict(list)
    for text, group in zip(texts, groups):
        by_group[group].append(text)
    counts: Counter[str] = Counter()
    for group_texts in by_group.values():
        counts.update(_words(group_texts))
    return {key(w): n for w, n in counts.items() if n >= 2}


def _words(texts: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for text in texts:
        for t in tokenize(text):
            if text[t.start].isalpha():
                out.add(text[t.start:t.end].lower())
    return out


def bucket(spread: Mapping[str, int], word: str) -> str | None:
    """The spread bucket of ``word`` (``None`` for a word not starting with a
    letter): ``"0-1"``, ``"2"``, ``"3-5"``, ``"6-20"`` or ``"21+"`` patients."""
    if not word[:1].isalpha():
        return None
    n = spread.get(key(word), 0)
    if n <= 1:
        return "0-1"
    for bound, name in _BOUNDS:
        if n <= bound:
            return name
    return "21+"
