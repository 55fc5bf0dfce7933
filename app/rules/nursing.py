"""Dates and numbers as ward notes write them: no year, a two-digit year
alone, a pager number.

`app.rules.find_hits` asks for a year before it calls a number a date (it
must stay precise on letters and on MEDDOCAN). Nursing notes mostly write
"2/14", "S/P CABG '92", "MI 4/97": these shapes are found here, and the
ratios that look the same are left alone by their context ("BP 110/60",
"CPAP 5/5", "PAIN 4/10", "1/2 NS", "STRENGTH 5/5").

>>> text = "LAST BM 2/14. CPAP 5/5. S/P CABG '92, MI 4/97. PAIN 4/10. AAA REPAIR IN 14'"
>>> [text[s:e] for s, e in find_short_dates(text)]
['2/14', '92', '4/97', '14']

People's names by their context are in `app.rules.nursing_names`. The
rules that are a pattern alone (pagers, ten-digit phones, ages over 89,
reference numbers, dates with a month's name, years written with an
apostrophe or alone, hospitals named as churches or by initials) are data
alone; the rules here are logic (a calendar, the words around a hit, the
shipped place lists) whose regular expressions and word sets are data
too: named patterns of their entry in ``resources/rules/en.json``
(`app.rules.registry.shipped_pattern`) and its lexicon.
"""
from __future__ import annotations

import re
from itertools import chain

from app.rules.lexicon import words
from app.rules.registry import shipped_pattern

_SHORT_RE = shipped_pattern("yearless-date", "month-day")
_RATIO_BEFORE = words("ratio_before")
_RATIO_AFTER = words("ratio_after")
_WORD_RE = re.compile(r"[a-z0-9:/]+")


def _word_before(low: str, start: int) -> str:
    # in its sentence: "DECREASED O2. 10/1 WENT" is a date
    words = _WORD_RE.findall(re.split(r"[.;]\s|\n", low[max(0, start - 24):start])[-1])
    return words[-1] if words else ""


def _word_after(low: str, end: int) -> str:
    m = _WORD_RE.search(low, end, min(len(low), end + 16))
    return m.group() if m and low[end:m.start()].strip(" ") in ("", "-") else ""


def _short_date_at(text: str, low: str, m: re.Match) -> bool:
    a, b = int(m.group(1)), int(m.group(2))
    before, after = _word_before(low, m.start()), _word_after(low, m.end())
    if before in _RATIO_BEFORE or after in _RATIO_AFTER:
        return False
    if 1 <= a <= 12 and 32 <= b <= 99:
        return True                                  # month/two-digit year: "4/97"
    return 1 <= a <= 12 and 1 <= b <= 31 and a != b and (a, b) not in FRACTIONS  # "2/14"


def find_short_dates(text: str) -> list[tuple[int, int]]:
    """Offsets of yearless or short-year dates in ``text``, in order: those
    above and the shipped rule ``written-year`` ("CABG '92", "MI 1992")."""
    from app.rules.registry import shipped_finder

    low = text.lower()
    out: list[tuple[int, int]] = []
    for m in _SHORT_RE.finditer(text):
        if _short_date_at(text, low, m):
            out.append(m.span())
    return sorted(out + shipped_finder("written-year")(text))


#: Fractions written in orders and doses far more often than these dates
#: (the lexicon's ``fractions``, as pairs of numbers).
FRACTIONS = frozenset(tuple(int(n) for n in f.split("/")) for f in words("fractions"))


# ------------------------------------------------------------- care places

# Words that end a hospital's name: "UNION HOSPITAL", "HOLY CROSS MED CENTER".
_CARE_KINDS_RE = shipped_pattern("care-place", "kind")
_WEAK_KINDS = words("weak_kinds")
_NOT_A_NAME = words("not_a_name")
_CARE_WORD_RE = re.compile(r"[A-Za-z][A-Za-z.'-]*")
# A unit named after someone or somewhere, with its floor: "TRANSFER TO FELDMAN 2".
_NAMED_WARD_RE = shipped_pattern("care-place", "named-ward")
# The same written as one word after a move: "ADMITTED TO OSTRANDER7" (not
# "ON MSO4", "TO FIO2 40%").
_GLUED_WARD_RE = shipped_pattern("care-place", "glued-ward")
# Hospitals written as initials ending in GH / MC after "to", "from", "at", "by", "in".
# A general hospital's initials in capitals, wherever they stand ("-> BGH EW").
_UNIT_TYPES = words("unit_types")


def find_care_places(text: str) -> list[tuple[int, int]]:
    """Offsets of hospital names and named wards found by their context:
    a name before a kind of care place ("UNION MEMORIAL", "Sacred Heart
    hosp"; common words or lower case only after a cue, `_needs_a_cue`), a
    unit named after someone with its floor after a transfer
    ("TRANSFER TO FELDMAN 2"), and the shipped rule ``hospital-initials``
    ("TO BGH")."""
    from app.rules.registry import shipped_finder

    named = [(a, b) for a, b in _kind_places(text, _CARE_KINDS_RE)
             if not _needs_a_cue(text, a, list(_CARE_KINDS_RE.finditer(text, a, b))[-1].start())]
    return sorted(named + _named_wards(text) + shipped_finder("hospital-initials")(text))


# The floor's kinds: those of `find_care_places` and the places that care
# for someone outside a hospital ("ST. LUKE NURSING AGENCY", "assisted living").
_FLOOR_KINDS_RE = shipped_pattern("care-place", "floor-kind")
_NAMING_KINDS = words("naming_kinds")
# Words before a place that say it is one: "FROM", "TO", "AT", "IN", "BY".
_PLACE_CUE_RE = shipped_pattern("care-place", "place-cue")


def find_sure_care_places(text: str) -> list[tuple[int, int]]:
    """The care places of `find_care_places` that the floor can take
    whatever a model says: a name of common words before a kind only right
    after "from/to/at/in/by" ("FROM GREEN VALLEY HOSPITAL", not "the basic
    hospital", "cont rehab", "HAD PROLONGED HOSPITAL"). (Their initials
    are the floor's rule ``hospital-initials``.)"""
    out = _named_wards(text)
    for a, b in _kind_places(text, _FLOOR_KINDS_RE, sure=True):
        kind = list(_FLOOR_KINDS_RE.finditer(text, a, b))[-1]
        if _needs_a_cue(text, a, kind.start()):
            continue
        # "UNION MEMORIAL" is a name; in "UNION HOSPITAL" only "UNION" identifies
        out.append((a, b) if kind.group(1).lower() in _NAMING_KINDS
                   else (a, a + len(text[a:kind.start()].rstrip(" .-"))))
    return sorted(set(out))


def _needs_a_cue(text: str, start: int, kind_start: int) -> bool:
    """True when the name ``text[start:kind_start]`` before a kind of care
    place is common words or written in lower case ("HAD PROLONGED
    HOSPITAL", "contact social worker concerning rehab") and no
    "from/to/at/in/by" stands before it: no name then (on the PhysioNet
    training notes 4 such hits of `find_care_places`, none annotated)."""
    from app.rules.dictionaries import is_common_word

    name = _CARE_WORD_RE.findall(text, start, kind_start)
    return (all(is_common_word(w.strip(".")) for w in name) or text[start:kind_start].islower()) \
        and not _PLACE_CUE_RE.search(text, max(0, start - 12), start)


def _kind_places(text: str, kinds: re.Pattern, *, sure: bool = False) -> list[tuple[int, int]]:
    """A name of up to four words right before a kind of care place, in
    its sentence: a full stop joins only an abbreviation or an initial to
    the name ("ST. AGNES HOSPITAL", not "as needed. Cont rehab"). With
    ``sure`` (the floor's) a word of grammar ends the name too ("to see if
    she needs rehab"), and a weak kind after common words is kept for the
    caller to judge by the word before."""
    from app.rules.dictionaries import is_common_word
    from app.rules.vetoes import _FUNCTION_WORDS

    out: list[tuple[int, int]] = []
    for m in kinds.finditer(text):
        words = list(_CARE_WORD_RE.finditer(text, max(0, m.start() - 48), m.start()))
        name_start = None
        k = len(words) - 1
        taken = 0
        while k >= 0 and taken < 4:
            w = words[k]
            gap = text[w.end():(words[k + 1].start() if k + 1 < len(words) else m.start())]
            if gap.strip(" ") not in ("", ".") or "\n" in gap:
                break
            if re.search(r"[A-Za-z]{2}\.", w.group()[:-1]):
                break                                  # "COMFORT..BEGIN REHAB"
            if "." in gap + w.group()[-1:] and len(w.group().rstrip(".")) > 1 \
                    and w.group().lower().rstrip(".") not in ("st", "mt", "ft"):
                break                                  # "as needed. Cont rehab"
            low = w.group().lower().strip(".")
            if low in _NOT_A_NAME and not (low == "of" and name_start is not None and k > 0) \
                    or sure and low != "of" and low in _FUNCTION_WORDS:
                break
            name_start = w.start()
            taken += 1
            k -= 1
        if name_start is None or text[name_start:m.start()].strip().lower() in ("of", "st", "st."):
            continue
        name = _CARE_WORD_RE.findall(text, name_start, m.start())
        if m.group(1).lower() in _WEAK_KINDS and all(is_common_word(w) for w in name) \
                and not sure:
            continue
        out.append((name_start, m.end()))
    return out


def _named_wards(text: str) -> list[tuple[int, int]]:
    """Units named after someone, with their floor: "TRANSFER TO FELDMAN 2",
    "ADMITTED TO OSTRANDER7", and the same word elsewhere in the note."""
    from app.rules.dictionaries import is_common_word

    found = list(_NAMED_WARD_RE.finditer(text)) + list(_GLUED_WARD_RE.finditer(text))
    out = {m.span(1) for m in found
           if m.group(1).lower() not in _UNIT_TYPES and not is_common_word(m.group(1))}
    # The ward, once named so, wherever the note writes it again: "F-MICU/
    # FELDMAN/CCU", "FELDMAN3 DEVELOPED" (on the PhysioNet training notes 3
    # such words, all annotated).
    for word in {text[a:b].lower() for a, b in out}:
        out.update(m.span() for m in re.finditer(
            rf"(?i)(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text))
    return sorted(out)


_HOME_RE = shipped_pattern("home-place", "lives-in")


def find_home_places(text: str) -> list[tuple[int, int]]:
    """Offsets of the listed places where someone lives ("lives in
    glendale", "both live in tarrytown"): the one or two words after the
    phrase that the shipped place list holds and that are no common word."""
    from app.rules import dictionaries as D

    out = []
    for m in _HOME_RE.finditer(text):
        words = m.group(1).split()
        two = " ".join(words).lower()
        if two in D.US_STATE_NAMES or words[0].lower() in D.US_STATE_NAMES:
            continue
        if len(words) == 2 and D.is_place(two):
            out.append((m.start(1), m.end(1)))
        elif D.is_place(words[0].lower()) and not D.is_common_word(words[0].lower()):
            out.append((m.start(1), m.start(1) + len(words[0])))
    return out


# ------------------------------------------------------------- years in a history

# The heading of a past history: the years in its items are dates.
_HISTORY_CUE_RE = shipped_pattern("history-year", "heading")
_HISTORY_YEAR_RE = shipped_pattern("history-year", "item-year")

_AND_YEAR_RE = shipped_pattern("history-year", "and-year")


def find_history_years(text: str) -> list[tuple[int, int]]:
    """Offsets of two-digit years in the items of a past history ("PMH: CAD:
    NQWMI 13.", "PMHX CVA IN 94 AND 00", "HX: NIDDM, 09 PTCA"): a year right
    after a condition or a procedure, or opening an item before one, in the
    line of a history heading."""
    out = []
    for m in _HISTORY_YEAR_RE.finditer(text):
        g = 1 if m.group(1) else 2
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start(g)]
        if _HISTORY_CUE_RE.search(line):
            out.append(m.span(g))
            # "CVA IN 94 AND 00": the year after "and" belongs to the same item
            more = _AND_YEAR_RE.match(text, m.end(g))
            if more:
                out.append(more.span(1))
    return sorted(set(out))


# ------------------------------------------------------------- places by their cue

# A place after a word that says it is one: "IN TUCSON", "from Rome",
# "Raj of Tucson"; a saint's name after a move: "TO ST. AGNES".
_CUED_PLACE_RE = shipped_pattern("cued-place", "after-a-cue")
_UNIVERSITY_RE = shipped_pattern("cued-place", "university")
_BEFORE_STATE_RE = shipped_pattern("cued-place", "before-a-state")
_SAINT_RE = shipped_pattern("cued-place", "saint")


def find_cued_places(text: str) -> list[tuple[int, int]]:
    """Offsets of the places written after "in/to/from/of/near" that the
    shipped place list holds and that are no common word nor a state ("in
    Tucson", "Raj of Tucson"), of saints' names after a move ("TO ST.
    AGNES", not "NSR TO ST HR 90") and of a university with a listed
    place ("U Oregon", "University of Oregon"). On the PhysioNet training
    notes (not our dev patients): places 24 hits on annotated places, 4
    not; saints 5 and 0; universities 8 and 0."""
    from app.rules import dictionaries as D
    from app.rules.vetoes import eponym

    out = []
    for m in _CUED_PLACE_RE.finditer(text):
        if eponym(text, m.end(1)):
            continue                                    # "IN DOUGLAS POUCH"
        first, second = m.group(1), m.group(2)
        if second and D.is_place(f"{first} {second}") \
                and f"{first} {second}".lower() not in D.US_STATE_NAMES \
                and not (D.is_common_word(first) and D.is_common_word(second)):
            out.append((m.start(1), m.end(2)))
        elif D.is_place(first) and not D.is_common_word(first) \
                and first.lower() not in D.US_STATE_NAMES:
            out.append(m.span(1))
    for m in _SAINT_RE.finditer(text):
        name = m.group(2)
        if D.is_name(name) and not D.is_common_word(name):
            out.append(m.span(1))
    # "U Oregon", "university of Oregon": a university's hospital
    out += [m.span() for m in _UNIVERSITY_RE.finditer(text) if D.is_place(m.group(1))]
    # a town before its state: "tucson arizona's", "Tucson, Arizona" (1 on training, a place)
    for m in _BEFORE_STATE_RE.finditer(text):
        state = m.group(2).lower()
        if (state in D.US_STATE_NAMES or state.split()[0] in D.US_STATE_NAMES) \
                and D.is_place(m.group(1)) \
                and not D.is_common_word(m.group(1)) and m.group(1).lower() not in D.US_STATE_NAMES:
            out.append(m.span(1))
    return sorted(set(out))


# ------------------------------------------------------------- dates in numbers

# A month, a day and a year joined by one sign: "9/2/92", "10-16-2019",
# "11.21.93"; or two yearless dates as a range: "10/15-10/16".
_NUMERIC_DATE_RE = shipped_pattern("numeric-date", "with-year")
_DATE_RANGE_RE = shipped_pattern("numeric-date", "range")


# Two yearless dates run together, "TREATMENTS 10/03/10/04"; a year after a
# stop, "11/21.93".
_TWO_DATES_RE = shipped_pattern("numeric-date", "run-together")
_MIXED_DATE_RE = shipped_pattern("numeric-date", "year-after-a-stop")


def find_numeric_dates(text: str) -> list[tuple[int, int]]:
    """Offsets of dates written in numbers with their year ("9/2/92",
    "10-16-2019") and of ranges of two yearless dates ("10/15-10/16", not
    the fractions "1/3-1/2"), two yearless dates run together ("10/03/10/04")
    and a year after a stop ("11/21.93"). On the PhysioNet training notes
    (not our dev patients) all its 33 hits are annotated dates."""
    out = [m.span() for m in _NUMERIC_DATE_RE.finditer(text)
           if 1 <= int(m.group(1)) <= 12 and 1 <= int(m.group(3)) <= 31]
    for m in chain(_DATE_RANGE_RE.finditer(text), _TWO_DATES_RE.finditer(text)):
        a, b, c, d = (int(m.group(i)) for i in range(1, 5))
        if 1 <= a <= 12 and 1 <= c <= 12 and 1 <= b <= 31 and 1 <= d <= 31 \
                and (a, b) not in FRACTIONS and (c, d) not in FRACTIONS:
            out.append(m.span())
    out += [m.span() for m in _MIXED_DATE_RE.finditer(text)
            if 1 <= int(m.group(1)) <= 12 and 1 <= int(m.group(2)) <= 31]
    return sorted(set(out))


def find_yearless_dates(text: str) -> list[tuple[int, int]]:
    """Offsets of the yearless dates in numbers ("ON 2/14", "LAST BM 8/14", "IN
    USOH UNTIL 8/23") that a calendar holds and that are no setting, score
    or ratio by their context (`find_short_dates`,
    `app.rules.vetoes.implausible_date`: "ON 5/5, 40%", "ON 1/4 NS",
    "trialed on 5/5", "PAIN 4/10" are not). On the PhysioNet training notes
    214 hits on annotated dates, 4 not (55 and 0 of them after "on/since/
    until", the floor's first version)."""
    from app.rules.vetoes import implausible_date

    return [(a, b) for a, b in find_short_dates(text)
            if "/" in text[a:b] and not implausible_date(text, a, b)]


# A capitalised word after a move, in a note written in mixed case: "went to
# Lakeview on 3/6", "transfer from Glen Oaks" ("Transfer to Medical Floor" is a unit).
_MOVED_TO_RE = shipped_pattern("moved-to-place", "after-a-move")
_NOT_MOVED_TO = words("not_moved_to")


def find_moved_to_places(text: str) -> list[tuple[int, int]]:
    """Offsets of the capitalised words (one or two) after "transferred
    to", "went to", "return to", ... in mixed-case writing, that are no
    unit of a hospital ("Medical Floor"), no title and no kind of care
    place (which `find_sure_care_places` finds with its name). On the
    PhysioNet training notes (not our dev patients) 27 of the 28 such
    words are annotated places."""
    out = []
    for m in _MOVED_TO_RE.finditer(text):
        first, second = m.group(1), m.group(2)
        words = [first.lower()] + ([second.lower()] if second else [])
        if words[0] in _UNIT_TYPES | _NOT_MOVED_TO \
                or len(words) > 1 and words[1] in _UNIT_TYPES:
            continue
        end = m.end(2) if second and not _CARE_KINDS_RE.fullmatch(second) \
            and second.lower() not in _NOT_A_NAME else m.end(1)
        if _CARE_KINDS_RE.fullmatch(first):
            continue
        out.append((m.start(1), end))
    return out
