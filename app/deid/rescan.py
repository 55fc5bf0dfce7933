"""Leak scan: look for identifiers that survived de-identification.

After redaction the OUTPUT is searched (this is the one place where
searching text is right: we look for leaks, we do not locate spans) for

* **known identifiers** (``KnownIdentifiers``): every identifier string
  found, annotated or listed for the note's patient, and those of the whole
  project (other patients, hospital lists). Matching is by words, case- and
  accent-insensitive and blind to the spacing and punctuation between words;
  an identifier with six digits or more also matches with other separators
  ("0412 345 678" / "0412-345678"). Each word of a known *name* is searched
  on its own too ("Smith" of "John Smith"), when it is written with a capital
  and is not a common word;
* hits of a rules recogniser (``rules_fn(text) -> [(start, end, category)]``;
  a 4th item names the source, a 5th the rule by name);
* spans of a model run at a recall-biased setting (``model_fn``, the same
  signature): a surrogate is expected there, an original-looking name next
  to it is not;
* a listed first name or surname written with a capital right beside a
  replaced name or after a title ("Dr", "Sra."), where the model missed the
  second half of a name.

Rule and model spans that overlap a replacement are reduced to their part
outside it, so a missed surname after a replaced first name is reported.

A ``Leak`` (a suspicion) carries offsets, its source and a category, never
the leaked text, so it can go into reports and logs. A known identifier
found wholly *inside* replacements is flagged ``in_replacement``: a surrogate
that holds a word or phrase equal to a known identifier (a state kept from the
original address, a shifted date landing on another real date);
``redact_folder`` reports those as coincidences, not leaks. Of one that
reaches past a replacement, the part outside is suspected.
"""
from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable, Mapping, Sequence

from app.deid.policy import default_kind
from app.core.words import count

RulesFn = Callable[[str], Iterable[tuple[int, int, str]]]

#: Identifier strings shorter than this are not searched (initials, "Dr").
MIN_IDENTIFIER_CHARS = 3
#: Digit identifiers with at least this many digits are matched digits-only.
MIN_ID_DIGITS = 6

_WORD = re.compile(r"[^\W_]+")
_DIGIT_RUN = re.compile(r"\d(?:[\s\-./()]{0,2}\d)+")
_RELATIVE = re.compile(r"(?:\b(?:son|daughter|wife|husband|friend|brother|sister|mother|father|"
                       r"niece|nephew|grandson|granddaughter|hijo|hija|esposa|esposo|marido|"
                       r"madre|padre|hermano|hermana)\b[,:]?\s+(?:named\s+|is\s+)?)$",
                       re.IGNORECASE)
#: Clinical abbreviations and words that the shipped name and place lists
#: also hold ("Nitro", "Pace"): not suspected without context. Kept here, not
#: in the common-word list, whose flags are features of trained CRF models.
_CLINICAL_NAMES = frozenset("""neo nitro ros kub rom sys lue rue lle rle perla perrla pearla
    maes osa sem vit ota raf stas english pace mach""".split())
#: Titles that only ever stand before a name, so a lower-case word after one
#: is a name too ("dr small"); "ms" or "sr" in a nursing note is often not a title.
_NAME_TITLE = re.compile(r"(?:\b(?:dr|dra|mr|mrs|miss|prof|sra|srta)\.?\s+)$", re.IGNORECASE)
#: A person's home by name ("at tamsin black's house").
_AT_HOME = re.compile(r"\b(?:at|to|from)\s+((?:[^\W\d_]+\s+)?[^\W\d_]+)'s\s+"
                      r"(?:house|home|place|flat|apartment|farm)\b", re.IGNORECASE)
#: Words that stand before a name and are none ("Dr", "Sra.", "nurse").
_TITLE_WORDS = frozenset("dr dra dres mr mrs ms miss sr sra srta prof d dª don doña nurse rn"
                         .split())
_TITLE = re.compile(r"(?:\b(?:" + "|".join(sorted(_TITLE_WORDS, key=len, reverse=True))
                    + r")\.?\s+)$", re.IGNORECASE)

#: Sources of a suspicion, in words (for reports and the review list).
REASONS = {
    "patient": "a known identifier of this patient",
    "replaced": "replaced as an identifier in another of this patient's notes",
    "project": "a known identifier of the project (another patient or a hospital list)",
    "part": "part of a known name",
    "rule": "the rules recognise an identifier",
    "model": "the model (recall-biased) sees an identifier",
    "unsure": "the model gives it some chance of being an identifier",
    "name": "a name beside a replaced name, or after a title or a relative",
    "listed": "a first name, surname or place of the shipped lists, with a capital",
    "residue": "the rest of an identifier glued to a replacement",
    "beside": "capitalised words continuing a replacement (the rest of a name?)",
    "proper": "capitalised words inside a sentence (a proper name?)",
    "shape": "the shape of a date, number or e-mail the project protects",
}

#: Sources from the one that explains a suspicion best to the weakest hint:
#: overlapping suspicions keep the first, review lists show them in this order.
BY_WEIGHT = ("patient", "part", "project", "replaced", "rule", "model", "name", "residue", "beside",
             "shape", "listed", "proper", "unsure")


def strength(suspicion: Mapping) -> tuple[int, int]:
    """Sort key of a suspicion (a ``Leak`` as a dict: ``kind``, ``start``):
    the strongest source first (``BY_WEIGHT``), then by place."""
    kind = suspicion.get("kind")
    return (BY_WEIGHT.index(kind) if kind in BY_WEIGHT else len(BY_WEIGHT),
            suspicion.get("start", 0))


#: The sources that found a string the project knows as an identifier, in
#: clear: the suspicions a reviewer reads first.
KNOWN_KINDS = ("patient", "part", "project", "replaced")


@dataclass(frozen=True)
class Leak:
    """A suspected identifier in de-identified text (no text, only where and what)."""

    start: int
    end: int
    kind: str          # a key of REASONS
    category: str      # the label or rule category ("identifier" when unknown)
    in_replacement: bool = False
    rule: str = ""     # the rule of the rules file that found it, by name ("" for the recogniser)

    @property
    def reason(self) -> str:
        return suspicion_reason({"kind": self.kind, "rule": self.rule})


def suspicion_reason(suspicion: Mapping) -> str:
    """Why a suspicion (a ``Leak`` as a dict) was raised, in words: the rule
    by name where a rule of the rules file found it, so that a reviewer can
    read on the Rules page what it looks for (and switch off a rule that
    suspects ordinary words)."""
    kind, rule = suspicion.get("kind"), suspicion.get("rule")
    if kind == "rule" and rule:
        return f"the rule “{rule}” finds an identifier"
    return REASONS.get(kind, kind)


class LeakError(RuntimeError):
    """Strict mode found leaks; ``leaks`` maps note id -> count."""

    def __init__(self, leaks: dict[str, int]) -> None:
        super().__init__(f"{count(sum(leaks.values()), 'suspected identifier leak')} in "
                         f"{count(len(leaks), 'note')}; the notes were not exported")
        self.leaks = leaks


def fold_same_length(text: str) -> str:
    """Lower case without accents, one character per character (offsets stay)."""
    if text.isascii():
        return text.lower()          # the same, without a call per character
    return "".join(map(_fold_char, text))


@lru_cache(maxsize=None)
def _fold_char(c: str) -> str:
    base = unicodedata.normalize("NFD", c)[0]
    low = base.lower()
    return low if len(low) == 1 else base


def _words(text: str) -> list[tuple[int, int, str]]:
    folded = fold_same_length(text)
    return [(m.start(), m.end(), folded[m.start():m.end()]) for m in _WORD.finditer(text)]


def words_in_clear(text: str, spans: Iterable[tuple[int, int]]) -> set[str]:
    """The folded words of ``text`` outside ``spans`` (an annotated note's
    ordinary words, for ``KnownIdentifiers``' corpus-common words)."""
    return set(words_by_side(text, spans)[0])


def words_by_side(text: str, spans: Iterable[tuple[int, int]]) -> tuple[list[str], list[str]]:
    """The folded words of ``text`` outside ``spans`` and those inside, every
    occurrence."""
    ranges = _Ranges(list(spans))
    clear: list[str] = []
    inside: list[str] = []
    for a, b, w in _words(text):
        (inside if ranges.meeting(a, b) else clear).append(w)
    return clear, inside


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


class KnownIdentifiers:
    """Identifier strings known for each patient and for the whole project.

    ``add(patient, label, text, name=...)``: ``patient`` ``None`` for what
    belongs to no one patient (a hospital list of clinicians or places).
    ``name`` marks a person's name, whose words are also searched alone.
    ``common`` (folded words) are never searched alone. The strings stay in
    memory only.
    """

    def __init__(self, common: Iterable[str] = (), *, own_patient_only: bool = False,
                 labelled: Iterable[str] = ()) -> None:
        self._common = frozenset(common)
        # Words the project's annotators label nearly every time they write
        # them ("esposa" under MEDDOCAN's relatives): searched alone in any
        # case; a mapping gives each its label ("identifier" otherwise).
        self._labelled = (dict(labelled) if isinstance(labelled, Mapping)
                          else dict.fromkeys(labelled, "identifier"))
        # What a model replaced (not what people annotated or listed): a wrong
        # guess must not be searched in every other patient's notes.
        self._own_only = own_patient_only
        # folded word tuple -> {patient or None: label}
        self._phrases: dict[tuple[str, ...], dict[str | None, str]] = defaultdict(dict)
        self._by_first: dict[str, set[tuple[str, ...]]] = defaultdict(set)
        self._parts: dict[str, dict[str | None, str]] = defaultdict(dict)
        self._numbers: dict[str, dict[str | None, str]] = defaultdict(dict)
        # Words of the lists' many-word entries ("cross" of "Holy Cross"): a
        # surrogate must not bring one back, though the scan does not search them.
        self._listed_words: set[str] = set()
        # (phrase or digits, patient) searched in that patient's notes only.
        self._private: set[tuple] = set()
        #: Changes with every ``add``: what callers remember of the answers holds while it stays.
        self.version = 0

    def add(self, patient: str | None, label: str, text: str, *, name: bool = False,
            own_only: bool = False) -> None:
        """Know ``text`` as ``patient``'s identifier (``None``: a list's).
        ``own_only``: search it in that patient's notes only (a date: another
        patient's "10-14" is a ventilator setting or a coincidence)."""
        self.version += 1
        text = " ".join(text.split())
        if len(text) < MIN_IDENTIFIER_CHARS:
            return
        digits = _digits(text)
        if len(digits) >= MIN_ID_DIGITS:
            self._numbers[digits].setdefault(patient, label)
            if own_only:
                self._private.add((digits, patient))
        words = tuple(w for _, _, w in _words(text))
        if not words or (len(digits) >= MIN_ID_DIGITS and all(w.isdigit() for w in words)):
            return
        if not any(any(c.isalpha() for c in w) for w in words):
            if len(digits) < 4:
                return               # "12" or "3 4": too short to tell from a dose
            # Four or five digits ("1400", a house number or a postcode) in
            # another patient's note are a lab value or a dose: the bundled
            # sample's export listed "calprotectin 1400" four times as a known
            # identifier of the project.
            own_only = True
        self._phrases[words].setdefault(patient, label)
        self._by_first[words[0]].add(words)
        if own_only:
            self._private.add((words, patient))
        if patient is None and len(words) > 1:
            self._listed_words.update(w for w in words if len(w) >= MIN_IDENTIFIER_CHARS
                                      and w.isalpha() and w not in self._common)
        if name and len(words) > 1:
            for w in words:
                if len(w) >= MIN_IDENTIFIER_CHARS and w.isalpha() and w not in self._common:
                    self._parts[w].setdefault(patient, label)

    def __len__(self) -> int:
        return len(self._phrases) + len(self._numbers)

    @property
    def common(self) -> frozenset[str]:
        """The folded words never searched alone (shipped and corpus-common)."""
        return self._common

    def is_known(self, text: str) -> bool:
        """Whether ``text`` is one of the known identifiers (any patient),
        by the same matching as ``find``."""
        digits = _digits(text)
        if len(digits) >= MIN_ID_DIGITS and digits in self._numbers:
            return True
        words = tuple(w for _, _, w in _words(" ".join(text.split())))
        return bool(words) and words in self._phrases

    def is_known_word(self, word: str) -> bool:
        """Whether ``word`` is a word of a known name, a known one-word
        identifier or an uncommon word of a listed one (case-blind)."""
        w = fold_same_length(word)
        return w in self._parts or (w,) in self._phrases or w in self._listed_words

    def listed_ranges(self, text: str) -> list[tuple[int, int]]:
        """Where ``text`` holds an entry of the lists (an identifier of no one
        patient: a listed hospital, place or clinician), longest first at each
        word, as character ranges: a surrogate replaces each whole."""
        words = _words(text)
        out: list[tuple[int, int]] = []
        i = 0
        while i < len(words):
            best = 0
            for phrase in self._by_first.get(words[i][2], ()):
                n = len(phrase)
                if n > best and n <= len(words) - i and None in self._phrases[phrase] and \
                        all(words[i + k][2] == phrase[k] for k in range(1, n)):
                    best = n
            if best:
                out.append((words[i][0], words[i + best - 1][1]))
                i += best
            else:
                i += 1
        return out

    def find(self, text: str, patient: str | None) -> list[Leak]:
        """Known identifiers in ``text`` (``in_replacement`` is left False)."""
        found: list[Leak] = []
        if not (self._phrases or self._parts or self._numbers or self._labelled):
            return found

        def kind(owners: dict[str | None, str], own: str, other: str,
                 key: object = None) -> tuple[str, str] | None:
            if patient is not None and patient in owners:
                # What this run replaced (the model's call) is not what people
                # annotated or listed: the reviewer is told which it is.
                return ("replaced" if self._own_only else own), owners[patient]
            if not self._own_only:
                shared = [o for o in owners if (key, o) not in self._private]
                if shared:
                    return other, owners[shared[0]]
            return None

        words = _words(text)
        covered_until = -1
        for i, (start, _, w) in enumerate(words):
            if start < covered_until:
                continue                     # inside a longer match
            best = None
            for phrase in self._by_first.get(w, ()):
                n = len(phrase)
                if n > len(words) - i or (best is not None and n <= best[0]):
                    continue
                if all(words[i + k][2] == phrase[k] for k in range(1, n)):
                    best = (n, phrase)
            if best is not None and len(best[1]) == 1 and not best[1][0].isdigit() and \
                    best[1][0] not in self._labelled and (
                    best[1][0] in self._common or not text[start].isupper()):
                best = None                  # "will", "Heart", "may": a word, not a name
            if best is not None:
                n, phrase = best
                hit = kind(self._phrases[phrase], "patient", "project", phrase)
                end = words[i + n - 1][1]
                if hit is not None:
                    found.append(Leak(start, end, hit[0], hit[1]))
                    covered_until = max(covered_until, end)
                    continue
            owners = self._parts.get(w)
            if owners and text[start].isupper():
                hit = kind(owners, "part", "part")
                if hit is not None:
                    found.append(Leak(start, words[i][1], hit[0], hit[1]))
                    continue
            if w in self._labelled and not self._own_only:
                found.append(Leak(start, words[i][1], "project", self._labelled[w]))
        if self._numbers:
            for m in _DIGIT_RUN.finditer(text):
                key = _digits(m.group())
                owners = self._numbers.get(key)
                hit = kind(owners, "patient", "project", key) if owners else None
                if hit is not None:
                    found.append(Leak(m.start(), m.end(), hit[0], hit[1]))
        return found


class _Ranges:
    """Disjoint output ranges (the replacements), sorted: those meeting a
    range found by bisection, so a scan stays linear in the note's size."""

    def __init__(self, ranges: Sequence[tuple[int, int]]) -> None:
        self.ranges = sorted(ranges)
        self._starts = [s for s, _ in self.ranges]

    def meeting(self, start: int, end: int) -> list[tuple[int, int]]:
        """The ranges ``(s, e)`` with ``s < end and start < e``, in order."""
        # Disjoint and sorted, so the ends rise too: walk back from the last
        # range starting before ``end`` while it still reaches past ``start``.
        j = bisect_left(self._starts, end) - 1
        out = []
        while j >= 0 and self.ranges[j][1] > start:
            out.append(self.ranges[j])
            j -= 1
        return out[::-1]


def _outside(start: int, end: int, ranges: _Ranges,
             text: str) -> list[tuple[int, int]]:
    """The parts of [start, end) outside ``ranges`` that hold a letter or digit."""
    pieces = [(start, end)]
    for s, e in ranges.meeting(start, end):
        nxt = []
        for a, b in pieces:
            if e <= a or s >= b:
                nxt.append((a, b))
                continue
            if a < s:
                nxt.append((a, s))
            if e < b:
                nxt.append((e, b))
        pieces = nxt
    out = []
    for a, b in pieces:
        m = list(_WORD.finditer(text, a, b))
        if m:
            out.append((m[0].start(), m[-1].end()))
    return out


_RESIDUE = re.compile(r"[^\W_]+")
#: Words glued to a replacement that are no part of an identifier: a title
#: before a name ("Dr<**NAME**>"), an age's unit or sex after it
#: ("<**AGE**>YO", "<**AGE**>M"). A person cannot act on these suspicions.
_GLUED_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "mx", "prof", "dra", "sr", "sra",
                           "srta", "dña", "don"})
_GLUED_UNITS = frozenset({"yo", "yr", "yrs", "y", "m", "f", "yof", "yom", "años", "a"})
#: Shapes of identifiers a model often misses, searched outside replacements
#: when the project protects that kind: partial dates and years, long numbers.
SHAPES = {
    "date": re.compile(r"(?<![\w/.])(?:\d{1,2}/\d{1,2}(?:/\d{2,4})?|'\d{2}|(?:19|20)\d{2})"
                       r"(?![\w/])"
                       # a year glued to a word or an apostrophe ("CA'88", "IN 14'"),
                       # a decade ("1980S")
                       r"|(?<=[A-Za-z]')\d{2}\b|(?<![\w/.])\d{2}(?='(?![sS]))"
                       r"|(?<![\w/.])(?:19|20)\d{2}'?[sS]\b"
                       # (not before a unit or an age, in any case: "10 MG", "82 YO")
                       r"|(?<=[.;] )\d{2}(?= (?!(?i:mg|mcg|ml|cc|units?|u|min|mins|hrs?|mm|cm|"
                       r"kg|g|l|x|times|days?|weeks?|yrs?|years?|pm|am|yo|y/o)\b)[A-Za-z])"
                       r"|(?<![\w/.:])(?:[12]\d|3[01]|0?[1-9])(?= (?:[01]\d|2[0-3])[0-5]\d\b)"),
    "number": re.compile(r"(?<![\w.])#?\d{5,}(?![\w.])"
                         # a phone number in groups: (202) 232-4455, 232 4455
                         r"|(?<![\w.])\(?\d{2,4}\)?[\s.-]?\d{3,4}[\s.-]\d{3,4}(?!\w|\.\d)"
                         r"|(?<![\w.])\d{3}-\d{4}(?!\w|\.\d)"),
    # anything around an @, even malformed ("name@gmailcom")
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*"),
}
#: Digits joined to a replacement by a date separator ("<**DATE**>/5", "2/<**NAME**>").
_JOINED_AFTER = re.compile(r"[/\-.]\d{1,4}\b")
_JOINED_BEFORE = re.compile(r"\b\d{1,4}[/\-.]$|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:de|of)\s+$")


#: Kinds of a person's or a place's name: no common word alone, no number is one.
_NAMED_KINDS = frozenset({"name", "location", "hospital", "organisation", "country"})
#: Hospitals written as initials ("GH", "BGH", "UMMC"), a name all the same.
_HOSPITAL_INITIALS = re.compile(r"[A-Z]{0,3}(?:GH|MC)")


@lru_cache(maxsize=1)
def _place_kind_words() -> frozenset[str]:
    try:
        from app.rules.vetoes import CARE_SUFFIX
    except ImportError:              # the rules are optional for the core
        return frozenset()
    return CARE_SUFFIX


@lru_cache(maxsize=1)
def _holidays() -> frozenset[str]:
    """The lexicon's holidays and seasons ("Christmas Eve", "fall 2019")."""
    try:
        from app.rules.lexicon import words
    except ImportError:              # the rules are optional for the core
        return frozenset()
    return words("holidays")


def _calendar_word(word: str) -> bool:
    """A month's or a weekday's name or abbreviation, a holiday or a season."""
    from app.deid.dates import calendar_word
    return calendar_word(word) or fold_same_length(word) in _holidays()


def _suspected_part(text: str, start: int, end: int, doubt: bool,
                    named: bool = False, dated: bool = False) -> tuple[int, int] | None:
    """What of a recogniser's hit ``[start, end)`` outside the replacements
    is worth suspecting; ``None`` when nothing is.

    Words that only say what kind of place it is ("MEDICAL CENTER" left of
    "ZELLWOOD MEDICAL CENTER" once the name was replaced) are dropped at
    either end: alone they identify nothing (every town has a medical
    center), and predictions leave them in clear on purpose
    (``app.rules.vetoes.place_name_part``). A model's mere doubt (``doubt``:
    the CRF's marginals, source ``unsure``) keeps only its words that could
    be an identifier, as the starter model takes no name or place without
    one: not those kind words, not common English or clinical words that are
    no listed name or place ("TODAY", "WHEN STABLE" after a hospital), nor
    their misspellings that no name list holds; so does a model's name or
    place (``named``), which needs a word that can be one too ("per", "early",
    "TRANSFER APPROX. 2130": no digits either), as the starter's own do. A
    date (``dated``) needs a digit, a month's or a day's name or a holiday:
    the bundled sample's export listed "No" of "Medicare No 4113710470" as a
    date of birth in clear.
    """
    words = list(_WORD.finditer(text, start, end))
    if not words:
        return start, end
    if dated and not any(any(c.isdigit() for c in w.group()) or _calendar_word(w.group())
                         for w in words):
        return None
    kinds = _place_kind_words()
    try:
        from app.rules.dictionaries import (is_common_word, is_misspelt_common_word, is_name,
                                            is_place)
    except ImportError:              # the lists are optional for the core
        def is_common_word(_word: str) -> bool:
            return False
        is_misspelt_common_word = is_name = is_place = is_common_word

    def generic(word: str) -> bool:
        if word.lower() in kinds or (named and word.isdigit()):
            return True
        if not (doubt or named) or not word.isalpha():
            return False
        if named and len(word) < 3 and not _HOSPITAL_INITIALS.fullmatch(word):
            return True                                     # "HO", "SR", "AB"
        return (is_common_word(word) or is_misspelt_common_word(word)    # "TANNISH"
                ) and not is_name(word) and not is_place(word)

    if doubt or named:
        kept = [m for m in words if not generic(m.group())]
    else:
        i, j = 0, len(words)
        while i < j and generic(words[i].group()):
            i += 1
        while j > i and generic(words[j - 1].group()):
            j -= 1
        kept = words[i:j]
    if not kept:
        return None
    return (start if kept[0] is words[0] else kept[0].start(),
            end if kept[-1] is words[-1] else kept[-1].end())


def _residues(text: str, ranges: _Ranges) -> list[Leak]:
    """Letters or digits glued to a replacement ("<**DATE**>9 AM"): the rest
    of an identifier whose span was cut short."""
    out = []
    starts = {s for s, e in ranges.ranges if e > s}
    ends = {e for s, e in ranges.ranges if e > s}
    for s, e in ranges.ranges:
        if e < len(text) and text[e].isalnum() and e not in starts:
            m = _RESIDUE.match(text, e)
            if m and m.group().lower() not in _GLUED_UNITS:
                out.append(Leak(m.start(), m.end(), "residue", "residue"))
        elif e < len(text) and e not in starts:
            m = _JOINED_AFTER.match(text, e)
            if m:
                out.append(Leak(m.start() + 1, m.end(), "residue", "residue"))
        if s > 0 and text[s - 1].isalnum() and s not in ends:
            j = s
            while j > 0 and text[j - 1].isalnum():
                j -= 1
            if text[j:s].lower() not in _GLUED_TITLES:
                out.append(Leak(j, s, "residue", "residue"))
        elif s > 0 and s not in ends:
            m = _JOINED_BEFORE.search(text, max(0, s - 12), s)
            if m:
                out.append(Leak(m.start(), m.start() + len(m.group().rstrip(" \t/-.")),
                                "residue", "residue"))
    return out


#: Words that join the parts of a name or an organisation ("Fundación para
#: el Avance de la Anatomía", "Bank of the West"): a run of capitalised words
#: beside a replacement goes on across them.
_PARTICLES = frozenset("de del la las los el y e para da do dos von van der of the and for "
                       "&".split())
_BESIDE_GAP = re.compile(r"(?:[ \t]|, |[ \t]?\(|-)$")


def _beside(text: str, ranges: _Ranges, corpus: frozenset[str] = frozenset(),
            worded: Sequence[tuple[int, int]] | None = None) -> list[Leak]:
    """Capitalised words that continue a replacement on its line ("<**HOSPITAL**>
    Fundación de Medellín", "<**INSTITUCION**> Actividad Física y el Deporte",
    "Servicio de <**HOSPITAL**>"): the rest of a name the model cut short.
    Common English and clinical words, and the project's own ordinary words
    (``corpus``, folded), do not start a run."""
    try:
        from app.rules.dictionaries import is_common_word as is_listed_common
        from app.rules.vetoes import country
    except ImportError:              # the lists are optional for the core
        return []

    def is_common_word(word: str) -> bool:
        return is_listed_common(word) or fold_same_length(word) in corpus

    words = list(_WORD.finditer(text))
    starts = [m.start() for m in words]
    out = []

    def run(indices) -> tuple[int, int] | None:
        """The capitalised words of ``indices`` (in reading order from the
        replacement) up to the first other word; particles only between."""
        got = []
        prev = None
        for k in indices:
            w = words[k].group()
            if ranges.meeting(words[k].start(), words[k].end()):
                break                        # the next replacement
            gap = (text[prev:words[k].start()] if prev is not None and prev <= words[k].start()
                   else text[words[k].end():prev] if prev is not None else "")
            if any(c in ".,;:()\n" for c in gap):
                break                        # the sentence or the list goes on
            prev = words[k].end() if prev is None or prev <= words[k].start() else words[k].start()
            if w.lower() in _PARTICLES:
                continue
            if not w[0].isupper() or w.isdigit() or (not got and is_common_word(w)) \
                    or w.lower() in _TITLE_WORDS:
                break                        # a title starts a name, it is none ("DR <**NAME**>")
            got.append(k)
        if not got:
            return None
        # From the replacement on: particles before the first capital count
        # ("<**NAME**> de la Riva" leaves "de la Riva").
        first = indices[0]
        return (min(words[k].start() for k in (*got, first)),
                max(words[k].end() for k in (*got, first)))

    for s, e in (ranges.ranges if worded is None else sorted(worded)):
        k = bisect_left(starts, e)
        if k < len(words) and _BESIDE_GAP.search(text[e:words[k].start()] or "x") \
                and "\n" not in text[e:words[k].start()]:
            span = run(range(k, min(k + 8, len(words))))
            if span and "\n" not in text[e:span[0]]:
                out.append(Leak(span[0], span[1], "beside", "name"))
        k = bisect_left(starts, s) - 1
        if k >= 0 and text[words[k].end():s] in (" ", "-"):
            span = run(range(k, max(k - 8, -1), -1))
            if span:
                out.append(Leak(span[0], span[1], "beside", "name"))
    return out


_COMPANY = re.compile(r"\b([A-Z][\w-]+)\s+(?:Inc|Ltd|GmbH|Corp|S\.\s?A|N\.\s?V|S\.\s?L|"
                      r"Pty|LLC)\b")


#: A maker before a catalogue number, as materials are cited: "(Dako M613, USA)".
_SUPPLIER = re.compile(r"\(([A-Z][\w-]+),?\s+(?=[\w-]*\d)(?=[\w-]*[A-Z])[A-Z0-9][\w-]*")
# (initials end there: "D.O.B" after a replaced name is the next field's title)
_COMPANY_AFTER = re.compile(r"(?:,?\s+|\.)((?:Inc|Ltd|GmbH|Corp|Pty|LLC)\b"
                            r"|[A-Z]\.(?:[A-Z]\.)?(?![A-Za-z]))")


def _title_case(word: str) -> bool:
    return word[0].isupper() and any(c.islower() for c in word[1:])


def _proper_phrases(text: str, ranges: _Ranges, corpus: frozenset[str]) -> list[Leak]:
    """Proper names by their form: two or more Title-case words (particles
    between allowed) inside a sentence, one of them not a common word
    ("el Centro de Vacunación Internacional", "la Sociedad Española de
    Anestesiología"), and a word before a company form ("Innogenetics N.V.").
    All-capitals words do not count (whole nursing notes are written so)."""
    try:
        from app.rules.dictionaries import is_common_word as is_listed_common
        from app.rules.vetoes import country
    except ImportError:              # the lists are optional for the core
        return []

    def common(word: str) -> bool:
        return is_listed_common(word) or fold_same_length(word) in corpus

    out = []
    words = list(_WORD.finditer(text))
    i = 0
    while i < len(words):
        m = words[i]
        if not _title_case(m.group()) or ranges.meeting(m.start(), m.end()) or \
                _TITLE.search(m.group() + " "):
            i += 1                           # a title: the name after it is the names' check's
            continue
        before = text[max(0, m.start() - 3):m.start()].rstrip(" \t\"'(«")
        inside = bool(before) and before[-1] not in ".!?:;\n•-*" and not before[-1].isdigit()
        run, j = [i], i + 1
        while j < len(words):
            gap = text[words[j - 1].end():words[j].start()]
            w = words[j].group()
            if gap not in (" ", "-") or ranges.meeting(words[j].start(), words[j].end()):
                break
            if w.lower() in _PARTICLES:
                j += 1
                continue
            if not _title_case(w):
                break
            run.append(j)
            j += 1
        a, b = words[run[0]].start(), words[run[-1]].end()
        if inside and len(run) >= 2 and not all(common(words[k].group()) for k in run) \
                and not country(text, a, b):         # "born in New Zealand"
            out.append(Leak(a, b, "proper", "name"))
        i = max(j, i + 1)
    for m in _SUPPLIER.finditer(text):
        if not ranges.meeting(m.start(1), m.end(1)):
            out.append(Leak(m.start(1), m.end(1), "proper", "name"))
    for m in _COMPANY.finditer(text):
        if not ranges.meeting(m.start(1), m.end(1)):
            out.append(Leak(m.start(1), m.end(), "proper", "name"))
    for s, e in ranges.ranges:       # "<**ORG**> Inc", "<**ORG**>.A." (S.A.)
        m = _COMPANY_AFTER.match(text, e)
        if m:
            out.append(Leak(m.start(1), m.end(1), "residue", "residue"))
    return out


def _could_be_date(shape: str) -> bool:
    """"3/5" or "4/97" may be a date, "80/30" (a blood pressure) may not: one
    part is a month, the other a day or a year."""
    parts = shape.split("/")
    if len(parts) < 2:
        return True
    a, b = int(parts[0]), int(parts[1])
    if a < 1 or (b < 1 and len(parts[1]) < 2):
        return False
    # month/day, day/month, or month/year ("4/97")
    return (a <= 12 and (b <= 31 or len(parts[1]) >= 2)) or (b <= 12 and a <= 31)


def _shapes(text: str, kinds: Iterable[str], ranges: _Ranges) -> list[Leak]:
    out = []
    for kind in kinds:
        for m in SHAPES[kind].finditer(text):
            if kind == "date" and not _could_be_date(m.group()):
                continue
            if not ranges.meeting(m.start(), m.end()):
                out.append(Leak(m.start(), m.end(), "shape", kind))
    return out


def _names_beside(text: str, ranges: _Ranges, name_ranges: Sequence[tuple[int, int]],
                  corpus: frozenset[str] = frozenset()) -> list[Leak]:
    """Names the model may have missed, by the shipped lists and by context:

    * a listed first name or surname written with a capital beside a
      replaced name ("<**NAME**> Vandermeer" when Vandermeer is listed);
    * any word after a title or a relative, in any case, unless it is a
      common word that is no name ("dr small", "son, Ed", "mrs. powers");
    * a listed first name, surname or place written with a capital (or all
      in capitals) that is not a common English or clinical word
      (``listed``).
    """
    try:
        from app.rules.dictionaries import is_common_word as is_listed_common, is_name, is_place
        from app.rules.vetoes import country, country_part, eponym
    except ImportError:              # the lists are optional for the core
        return []

    def is_common_word(word: str) -> bool:
        return is_listed_common(word) or fold_same_length(word) in corpus

    def named_thing(m: re.Match) -> bool:
        """A country or a part of one's name ("born in Fiji", "Puerto Rico":
        no place that identifies, as the English floor reads it) or a name
        that names a disease or a device ("Graves' disease"): not suspected
        as a listed place or name."""
        return country(text, m.start(), m.end()) or country_part(text, m.start(), m.end()) \
            or eponym(text, m.end())

    out = []
    starts = {s for s, _ in name_ranges}
    ends = {e for _, e in name_ranges}
    for m in _WORD.finditer(text):
        w = m.group()
        if len(w) < 2 or w.isdigit() or ranges.meeting(m.start(), m.end()):
            continue
        before = text[max(0, m.start() - 16):m.start()]
        capital = w[0].isupper()
        if w.isalpha() and len(w) >= 2 and (
                _RELATIVE.search(before) or (_TITLE.search(before) if capital
                                             else _NAME_TITLE.search(before))):
            if is_name(w) or not is_common_word(w):
                out.append(Leak(m.start(), m.end(), "name", "name"))
            continue
        if len(w) < MIN_IDENTIFIER_CHARS or not capital or is_common_word(w):
            continue
        beside = ((m.start() - 1 in ends and text[m.start() - 1] in " \n")
                  or (m.end() + 1 in starts and text[m.end()] == " "))
        if beside and w.isalpha():
            # an original-looking name next to a replaced one: listed or not
            out.append(Leak(m.start(), m.end(), "name", "name"))
        elif ((is_name(w) or is_place(w)) and not (w.isupper() and len(w) < 4)
              and w.lower() not in _CLINICAL_NAMES and not named_thing(m)):
            # ("NEO", "KUB": short capitals are mostly abbreviations)
            out.append(Leak(m.start(), m.end(), "listed", "name" if is_name(w) else "place"))
    for m in _AT_HOME.finditer(text):
        if not ranges.meeting(m.start(1), m.end(1)):
            out.append(Leak(m.start(1), m.end(1), "name", "name"))
    return out


def rescan(out_text: str, original_identifiers_of_patient: Sequence[str] = (),
           rules_fn: RulesFn | None = None, *,
           replaced: Sequence[tuple[int, int]] = (),
           allow: Iterable[str] = ("90+",),
           min_chars: int = MIN_IDENTIFIER_CHARS,
           known: KnownIdentifiers | Sequence[KnownIdentifiers] | None = None,
           patient: str | None = None,
           model_fn: RulesFn | None = None,
           names_replaced: Sequence[tuple[int, int]] = (),
           shapes: Iterable[str] = (),
           worded_replaced: Sequence[tuple[int, int]] | None = None) -> list[Leak]:
    """Find suspected leaks in ``out_text``.

    Parameters
    ----------
    out_text
        De-identified text.
    original_identifiers_of_patient
        Identifier strings of this patient found in this run (pass only
        those whose replacement differs from the original: an age the policy
        keeps is not a leak).
    rules_fn, model_fn
        Optional recognisers; their spans are reduced to the parts outside
        ``replaced``.
    replaced
        Output ranges of the replacements (``MappedSpan.out_start/out_end``).
    allow
        Strings the surrogates legitimately produce (``"90+"``).
    min_chars
        Identifier strings shorter than this are ignored.
    known, patient
        The known identifiers (one table or several) and the note's patient key.
    names_replaced
        Output ranges of replaced names (the ``name`` check looks beside them).
    worded_replaced
        Output ranges of replaced identifiers written in words (names, places,
        organisations: ``app.deid.policy.WORDED_KINDS``), the only ones the
        ``beside`` check continues; ``None``: every replacement.
    shapes
        Keys of ``SHAPES`` to search (``"date"`` when the project protects
        dates, ``"number"`` for phones and ids).

    Returns
    -------
    list[Leak]
        Sorted by position; at most one suspicion per range and source.
    """
    leaks = known_leaks(out_text, original_identifiers_of_patient, replaced=replaced,
                        allow=allow, min_chars=min_chars, known=known, patient=patient)
    tables = (known,) if isinstance(known, KnownIdentifiers) else tuple(known or ())
    leaks += recogniser_leaks(out_text, rules_fn, model_fn, replaced=replaced,
                              names_replaced=names_replaced, shapes=shapes,
                              worded_replaced=worded_replaced,
                              corpus=frozenset().union(*(getattr(k, "common", frozenset())
                                                         for k in tables)),
                              beside=bool(names_replaced) or known is not None)
    return merge_leaks(leaks)


def known_leaks(out_text: str, original_identifiers_of_patient: Sequence[str] = (), *,
                replaced: Sequence[tuple[int, int]] = (), allow: Iterable[str] = ("90+",),
                min_chars: int = MIN_IDENTIFIER_CHARS,
                known: KnownIdentifiers | Sequence[KnownIdentifiers] | None = None,
                patient: str | None = None) -> list[Leak]:
    """The part of :func:`rescan` that searches known identifiers (unmerged).

    Folder redaction runs it when a note is redacted (the tables grow note by
    note) and the rest, :func:`recogniser_leaks`, in a worker."""
    allow_set = frozenset(a.casefold() for a in allow)
    ranges = _Ranges(replaced)
    leaks: list[Leak] = []
    table = KnownIdentifiers()
    for s in original_identifiers_of_patient:
        if len(s.strip()) >= min_chars and s.strip().casefold() not in allow_set:
            table.add(patient or "", "identifier", s)
    sources = [(table, patient or "")] + [
        (k, patient) for k in ((known,) if isinstance(known, KnownIdentifiers) else known or ())]
    from app.rules.vetoes import eponym
    for source, who in sources:
        for lk in source.find(out_text, who):
            if out_text[lk.start:lk.end].casefold() in allow_set:
                continue
            if eponym(out_text, lk.end):
                continue        # "BELL'S PALSY": another patient's Bell names no one here
            if not ranges.meeting(lk.start, lk.end):
                leaks.append(lk)
                continue
            # Wholly inside what was written in place of identifiers, it is a
            # stand-in that equals a known one (a state kept in a made-up
            # address); what of it lies outside is in clear: a suspicion.
            outside = _outside(lk.start, lk.end, ranges, out_text)
            leaks += [Leak(a, b, lk.kind, lk.category) for a, b in outside] or \
                [Leak(lk.start, lk.end, lk.kind, lk.category, True)]
    return leaks


def recogniser_leaks(out_text: str, rules_fn: RulesFn | None = None,
                     model_fn: RulesFn | None = None, *,
                     replaced: Sequence[tuple[int, int]] = (),
                     names_replaced: Sequence[tuple[int, int]] = (),
                     shapes: Iterable[str] = (), corpus: frozenset[str] = frozenset(),
                     beside: bool = False,
                     worded_replaced: Sequence[tuple[int, int]] | None = None) -> list[Leak]:
    """The part of :func:`rescan` that needs no table of known identifiers
    (unmerged): the recognisers' hits outside the replacements, residues,
    shapes and, with ``beside``, words beside replaced names that look like
    names (``corpus``: common words, never suspected alone). Pure: a worker
    may run it."""
    ranges = _Ranges(replaced)
    leaks: list[Leak] = []
    for fn, kind in ((rules_fn, "rule"), (model_fn, "model")):
        if fn is None:
            continue
        for start, end, category, *why in fn(out_text):   # a 4th item: the source; 5th: the rule
            source = why[0] if why else kind
            rule = why[1] if len(why) > 1 else ""
            for a, b in _outside(start, end, ranges, out_text):
                kind_of = default_kind(str(category))
                part = _suspected_part(out_text, a, b, doubt=source == "unsure",
                                       named=kind_of in _NAMED_KINDS, dated=kind_of == "date")
                if part is not None:
                    leaks.append(Leak(*part, source, str(category), rule=rule))
    if beside:
        leaks += _names_beside(out_text, ranges, names_replaced, corpus)
    leaks += _residues(out_text, ranges)
    if beside:
        leaks += _beside(out_text, ranges, corpus, worded_replaced)
        leaks += _proper_phrases(out_text, ranges, corpus)
    leaks += _shapes(out_text, shapes, ranges)
    return leaks


def merge_leaks(leaks: Sequence[Leak]) -> list[Leak]:
    """One suspicion per place: overlapping ones are merged, and the first
    source in ``BY_WEIGHT`` order explains it best. Sorted by position."""
    order = {k: i for i, k in enumerate(BY_WEIGHT)}
    merged: list[Leak] = []
    for lk in sorted(leaks, key=lambda lk: (lk.start, -lk.end)):
        last = merged[-1] if merged else None
        if last is not None and lk.start < last.end and lk.in_replacement == last.in_replacement:
            best = lk if order.get(lk.kind, 9) < order.get(last.kind, 9) else last
            merged[-1] = Leak(last.start, max(last.end, lk.end), best.kind, best.category,
                              last.in_replacement, best.rule)
        else:
            merged.append(lk)
    return merged
