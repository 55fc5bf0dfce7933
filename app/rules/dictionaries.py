"""Shipped name and place lists, looked up case-insensitively.

The lists live in ``resources/dictionaries/`` (one lower-case entry a line,
``#`` lines are comments) and are built by ``build/make_dictionaries.py``
from public lists whose licences allow shipping them inside the product
(``resources/dictionaries/LICENSES.md``): first names and surnames from
Faker's person providers (US SSA and Census names, public domain), places
from GeoNames (CC BY 4.0), common words from Faker's English word list plus
our own list of clinical words. Nothing comes from a benchmark corpus.

A token can be several things at once: "WARREN" is a first name, a surname
and a town, "MAY" is a first name and a common word. `is_common_word` tells
which names need context (a title, a relative, "called") before they are
taken as one; the CRF uses these lookups as features.

>>> from app.rules.dictionaries import is_first_name, is_surname, is_common_word
>>> is_first_name("MARY"), is_surname("Smith's"), is_common_word("May")
(True, True, True)
>>> place_length(["BEL", "AIR", "MD"], 0)
2
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from app.paths import resources_dir

# The longest place phrase looked up, in words ("Arden on the Severn").
MAX_PLACE_WORDS = 4

_FILES = {"first_names": "first_names.txt", "surnames": "surnames.txt",
          "places": "places.txt", "common_words": "common_words.txt"}


@dataclass(frozen=True)
class Lexicon:
    """The shipped lists as lower-case sets (places may hold several words)."""

    first_names: frozenset[str]
    surnames: frozenset[str]
    places: frozenset[str]
    common_words: frozenset[str]


def _read(name: str) -> frozenset[str]:
    path = resources_dir() / "dictionaries" / name
    text = path.read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines()
                     if line.strip() and not line.startswith("#"))


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """The shipped lists, read once per process."""
    return Lexicon(**{field: _read(name) for field, name in _FILES.items()})


def normalise(token: str) -> str:
    """Lower-case ``token`` without a possessive or surrounding punctuation."""
    t = token.strip(".,;:()[]{}\"!?").lower()
    for suffix in ("'s", "\u2019s"):
        if t.endswith(suffix):
            t = t[: -len(suffix)]
    return t.strip("'\u2019")


#: The US states by name: a state alone identifies no one (HIPAA keeps states).
US_STATE_NAMES = frozenset({
    "alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut",
    "delaware", "florida", "georgia", "hawaii", "idaho", "illinois", "indiana", "iowa", "kansas",
    "kentucky", "louisiana", "maine", "maryland", "massachusetts", "michigan", "minnesota",
    "mississippi", "missouri", "montana", "nebraska", "nevada", "new hampshire", "new jersey",
    "new mexico", "new york", "north carolina", "north dakota", "ohio", "oklahoma", "oregon",
    "pennsylvania", "rhode island", "south carolina", "south dakota", "tennessee", "texas",
    "utah", "vermont", "virginia", "washington", "west virginia", "wisconsin", "wyoming"})


def is_first_name(token: str) -> bool:
    """True when ``token`` (any case, possessive allowed) is a listed first name."""
    return normalise(token) in lexicon().first_names


def is_surname(token: str) -> bool:
    """True when ``token`` (any case, possessive allowed) is a listed surname."""
    return normalise(token) in lexicon().surnames


def is_name(token: str) -> bool:
    """A listed first name or surname."""
    t = normalise(token)
    lex = lexicon()
    return t in lex.first_names or t in lex.surnames


def is_place(token: str) -> bool:
    """True when ``token`` alone is a listed place (town, county, state, country)."""
    return normalise(token) in lexicon().places


def is_common_word(token: str) -> bool:
    """True for common English and clinical words ("MAY", "WILL", "NEURO").

    A name or place that is also a common word needs context to be taken
    as an identifier.
    """
    return normalise(token) in lexicon().common_words


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _one_edit(word: str) -> Iterable[str]:
    """Every string one letter left out, added, changed, or two swapped from ``word``."""
    for i in range(len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            yield head + tail[1:]
            if len(tail) > 1:
                yield head + tail[1] + tail[0] + tail[2:]
        for ch in _LETTERS:
            yield head + ch + tail
            if tail:
                yield head + ch + tail[1:]


@lru_cache(maxsize=1 << 14)
def is_misspelt_common_word(token: str) -> bool:
    """True when ``token`` is no common word and no listed name but one
    letter away from a common word (a letter left out, added, changed, or
    two swapped): "PRESNT", "Coopertive", "STRENTGH", "recieve". Five
    letters or more: shorter words are as often codes or names."""
    t = normalise(token)
    if len(t) < 5 or not t.isalpha() or is_common_word(t) or is_name(t):
        return False
    common = lexicon().common_words
    return any(len(w) >= 4 and w in common for w in _one_edit(t))


@lru_cache(maxsize=1)
def _place_starts() -> frozenset[str]:
    """The first words of every listed place ("bel", "bel air" of "bel air
    md"), so a search stops at the first words no place begins with."""
    return frozenset(" ".join(words[:k]) for place in lexicon().places
                     for words in [place.split(" ")] for k in range(1, len(words) + 1))


def place_length(tokens: Sequence[str], i: int) -> int:
    """Number of tokens of the longest listed place starting at ``tokens[i]`` (0: none)."""
    places = lexicon().places
    starts = _place_starts()
    best = 0
    words: list[str] = []
    for k in range(i, min(len(tokens), i + MAX_PLACE_WORDS)):
        words.append(normalise(tokens[k]))
        joined = " ".join(words)
        if joined not in starts:         # most words: no place begins so
            break
        if joined in places:
            best = k - i + 1
    return best
