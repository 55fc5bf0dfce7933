"""Format-preserving date shifting.

A date span is split into tokens (numbers, words, spaces, punctuation); the
day, month, year, weekday and ordinal suffix are recognised, shifted by the
patient's offset in days, and written back *in the original's format*:
zero padding, two- or four-digit year, month as number, abbreviation or full
name (English or Spanish, case and accents as in the original), recomputed
weekday and ordinal suffix. Everything else (separators, "de", "of", a time
of day) is kept verbatim.

* Numeric day/month order is the caller's (the project's setting, from its
  locale: en_AU/en_GB/es_ES day-first, en_US month-first), unless the note
  itself shows its order: :func:`note_day_first` reads every date of a note
  and a day > 12 in either place settles it for all of the note's dates
  (``10-12-2019`` beside ``10/25/2019`` is October 12th). When a component
  is > 12 the only valid reading is used.
* Partial dates: a date without a year is shifted within its note's year
  where the note's whole dates show one (`note_year`), else within a common
  year (the 29th of February within the leap year 2000); month-year and
  year-only dates are shifted by the offset rounded to whole months / years,
  at least one, so they always change. A weekday with no year is moved by
  ``offset mod 7``.
* A span that cannot be read as a valid date is returned as ``None`` here;
  the caller then replaces its digits only (same shape).
"""
from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterable

from app.deid.pools import fold

#: The year a date written without one is shifted in, for the call of
#: `shift_date` under way (its ``year``): set there rather than passed down
#: every reading of a range's two sides.
_YEARLESS_IN: ContextVar[int | None] = ContextVar("yearless_in", default=None)

_EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july",
              "august", "september", "october", "november", "december")
_ES_MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio",
              "agosto", "septiembre", "octubre", "noviembre", "diciembre")
_ES_ABBR = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic")
_EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ES_WEEKDAYS = ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")

# folded word -> (kind, index, language, "full"/"abbr")
_WORDS: dict[str, tuple[str, int, str, str]] = {}
for _i, _m in enumerate(_ES_MONTHS):
    _WORDS[fold(_m)] = ("month", _i, "es", "full")
    _WORDS[_ES_ABBR[_i]] = ("month", _i, "es", "abbr")
_WORDS["setiembre"] = ("month", 8, "es", "full")
_WORDS["sept"] = ("month", 8, "en", "abbr")
for _i, _m in enumerate(_EN_MONTHS):  # English wins shared abbreviations (mar, may, ...)
    _WORDS[_m] = ("month", _i, "en", "full")
    _WORDS[_m[:3]] = ("month", _i, "en", "abbr")
for _i, _w in enumerate(_ES_WEEKDAYS):
    _WORDS[fold(_w)] = ("weekday", _i, "es", "full")
for _i, _w in enumerate(_EN_WEEKDAYS):
    _WORDS[_w] = ("weekday", _i, "en", "full")
    _WORDS[_w[:3]] = ("weekday", _i, "en", "abbr")
for _w, _i in (("tues", 1), ("weds", 2), ("thur", 3), ("thurs", 3)):
    _WORDS[_w] = ("weekday", _i, "en", "abbr")

_ORDINALS = frozenset(("st", "nd", "rd", "th"))


def calendar_word(word: str) -> bool:
    """Whether ``word`` names a month or a weekday (English or Spanish, whole
    or abbreviated; "Mar", "Tues", "miércoles")."""
    return fold(word) in _WORDS
_TOKEN_RE = re.compile(r"(\d+)|([^\W\d_]+)|(\s+)|(.)", re.S)
_SEPARATORS = frozenset("/-.")


@dataclass
class _Tok:
    text: str
    kind: str            # "num", "word", "space", "punct"
    role: str = ""       # "day", "month", "year", "weekday", "ordinal"
    info: tuple = ()


def _tokens(text: str) -> list[_Tok]:
    out = []
    for m in _TOKEN_RE.finditer(text):
        kind = ("num", "word", "space", "punct")[m.lastindex - 1]
        out.append(_Tok(m.group(), kind))
    return out


def _is_time(toks: list[_Tok], i: int) -> bool:
    """A number next to ':' is part of a time of day."""
    return ((i > 0 and toks[i - 1].text == ":") or
            (i + 1 < len(toks) and toks[i + 1].text == ":"))


@dataclass
class _Parsed:
    toks: list[_Tok]
    day: int | None
    month: int | None      # 1..12
    year: int | None       # full year
    weekday: int | None    # 0 = Monday, as written (may disagree with the date)


def _year_value(text: str, pivot: int) -> int:
    v = int(text)
    if len(text) <= 2:
        return 2000 + v if v < pivot else 1900 + v
    return v


def _day_first(a: int, b: int, default: bool) -> bool:
    """Whether ``a/b`` reads day-month: the locale's order unless only the other can be a date."""
    if default and b > 12 >= a:
        return False
    if not default and a > 12 >= b:
        return True
    return default


def _valid(day: int | None, month: int | None, year: int | None) -> bool:
    if month is not None and not 1 <= month <= 12:
        return False
    if year is not None and not 1 <= year <= 9999:
        return False
    if day is not None:
        if month is None:
            return False
        try:
            _dt.date(year if year is not None else 2000, month, day)
        except ValueError:
            return False
    return True


def _parse(text: str, day_first: bool, pivot: int, spanish: bool = False) -> _Parsed | None:
    toks = _tokens(text)
    day = month = year = weekday = None
    # Words: month names, weekdays, ordinal suffixes.
    for i, t in enumerate(toks):
        if t.kind != "word":
            continue
        key = fold(t.text)
        if key in _ORDINALS and i > 0 and toks[i - 1].kind == "num":
            if not any(o.role == "ordinal" for o in toks[:i]):
                # The first ordinal is the day; a second ("3rd-5th May") is
                # left unread: a range, read as two dates or not at all.
                t.role = "ordinal"
                toks[i - 1].role = "day"
            continue
        hit = _WORDS.get(key)
        if hit is None:
            continue
        kind, idx, lang, style = hit
        if spanish and kind == "month" and key in _ES_ABBR:
            lang = "es"  # "mar", "may", ... written in a Spanish note
        if kind == "month" and month is None:
            t.role, t.info, month = "month", (lang, style), idx + 1
        elif kind == "weekday" and weekday is None:
            t.role, t.info, weekday = "weekday", (lang, style), idx
    nums = [i for i, t in enumerate(toks) if t.kind == "num" and not _is_time(toks, i)]
    if month is not None:
        for i in nums:  # an ordinal marked the day already
            if toks[i].role == "day":
                day = int(toks[i].text)
        for i in nums:
            t = toks[i]
            if t.role:
                continue
            v = int(t.text)
            if year is None and len(t.text) == 4:
                t.role, year = "year", v
            elif day is None and len(t.text) <= 2 and 1 <= v <= 31:
                t.role, day = "day", v
            elif year is None and len(t.text) == 2 and day is not None \
                    and not _second_day(toks, i):
                t.role, year = "year", _year_value(t.text, pivot)
    elif nums:
        first = nums[0]
        group = [first]
        sep = None
        j = first
        while len(group) < 3 and j + 2 < len(toks) and toks[j + 1].kind == "punct" \
                and toks[j + 1].text in _SEPARATORS and toks[j + 2].kind == "num" \
                and (sep is None or toks[j + 1].text == sep):
            sep = toks[j + 1].text
            j += 2
            group.append(j)
        g = [toks[i].text for i in group]
        roles: list[str]
        if len(g) == 3:
            if len(g[0]) == 4:
                roles = ["year", "month", "day"]
            elif len(g[2]) in (2, 4) and len(g[0]) <= 2 and len(g[1]) <= 2:
                dm = _day_first(int(g[0]), int(g[1]), day_first)
                roles = ["day", "month", "year"] if dm else ["month", "day", "year"]
            else:
                return None
        elif len(g) == 2:
            if len(g[1]) == 4 and len(g[0]) <= 2:
                roles = ["month", "year"]
            elif len(g[0]) <= 2 and len(g[1]) == 2 and int(g[1]) > 31:
                roles = ["month", "year"]       # "8/84": no day or month is 84
            elif len(g[0]) == 4 and len(g[1]) <= 2:
                roles = ["year", "month"]
            elif len(g[0]) <= 2 and len(g[1]) <= 2:
                dm = _day_first(int(g[0]), int(g[1]), day_first)
                roles = ["day", "month"] if dm else ["month", "day"]
            else:
                return None
        elif len(g[0]) == 4 and 1000 <= int(g[0]) <= 2999:
            roles = ["year"]
            if _decade_suffix(toks, first) and int(g[0]) % 10 == 0:
                # "the 1990s": a decade, read as its middle year so that a
                # year's shift keeps it ("1991s" was written).
                toks[first].role = "decade"
                return _Parsed(toks, None, None, int(g[0]) + 5, weekday)
        elif len(g[0]) == 2 and first > 0 and toks[first - 1].text in ("'", "\u2019"):
            if _decade_suffix(toks, first) and int(g[0]) % 10 == 0:
                toks[first].role = "decade"     # "the '90s"
                return _Parsed(toks, None, None, _year_value(g[0], pivot) + 5, weekday)
            roles = ["year"]                    # "'92"
        elif len(g[0]) == 8 and 1800 <= int(g[0][:4]) <= 2199:
            y, m, d = int(g[0][:4]), int(g[0][4:6]), int(g[0][6:])
            if not _valid(d, m, y):
                return None
            toks[first].role = "ymd8"
            return _Parsed(toks, d, m, y, weekday)
        else:
            return None
        for i, role in zip(group, roles):
            toks[i].role = role
            v = int(toks[i].text)
            if role == "day":
                day = v
            elif role == "month":
                month = v
            else:
                year = _year_value(toks[i].text, pivot)
    if day is None and month is None and year is None:
        return None
    if day is not None and month is None:
        return None
    if not _valid(day, month, year):
        return None
    return _Parsed(toks, day, month, year, weekday)


def _second_day(toks: list[_Tok], i: int) -> bool:
    """Whether the two digits at ``i`` end a range of days ("May 29-31",
    "May 29th-31st"): a join right after the day (and its ordinal suffix),
    not a year ("29-May-99")."""
    before = [t for t in toks[:i] if t.kind != "space" and t.role != "ordinal"
              and fold(t.text) not in _ORDINALS][-2:]
    return len(before) == 2 and before[0].role == "day" and fold(before[1].text) in _JOINS \
        and before[1].text != "/"


def _decade_suffix(toks: list[_Tok], i: int) -> bool:
    """Whether the number at ``i`` is followed by a decade's "s" ("1990s", "1990's")."""
    rest = [t.text.lower() for t in toks[i + 1:i + 3]]
    return rest[:1] == ["s"] or rest == ["'", "s"] or rest == ["\u2019", "s"]


def _sign(n: int) -> int:
    return 1 if n >= 0 else -1


def _shift(p: _Parsed, offset: int) -> tuple[int | None, int | None, int | None, int | None]:
    """New (day, month, year, weekday) for a parsed date."""
    d, m, y = p.day, p.month, p.year
    if d is not None and y is not None:
        new = _dt.date(y, m, d) + _dt.timedelta(days=offset)
        return new.day, new.month, new.year, new.weekday()
    if d is not None:
        # No year: shifted within the note's year where its dates show one
        # ("Feb 28" beside "28/02/2020" moves as that date does across the
        # 29th), else within a common year, as three years in four are ("May
        # 3" then moves as "3 May 2019" does); the 29th of February within the
        # leap year 2000 where its year has none.
        year = _YEARLESS_IN.get()
        if year is None or not _valid(d, m, year):
            year = 2000 if (m, d) == (2, 29) else 2001
        new = _dt.date(year, m, d) + _dt.timedelta(days=offset)
        wd = None if p.weekday is None else (p.weekday + offset) % 7
        return new.day, new.month, None, wd
    months = round(offset / 30.4375) or _sign(offset)
    if m is not None:
        total = (y if y is not None else 2000) * 12 + (m - 1) + months
        return None, total % 12 + 1, (total // 12 if y is not None else None), None
    years = round(offset / 365.25) or _sign(offset)
    return None, None, y + years, None


def _apply_case(template: str, word: str) -> str:
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template.islower():
        return word.lower()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word)
                   if not unicodedata.combining(c))


def _month_word(template: str, lang: str, style: str, month: int) -> str:
    if lang == "es":
        word = _ES_MONTHS[month - 1] if style == "full" else _ES_ABBR[month - 1]
    else:
        word = _EN_MONTHS[month - 1]
        if style == "abbr":
            word = "sept" if (fold(template) == "sept" and month == 9) else word[:3]
    return _apply_case(template, word)


def _weekday_word(template: str, lang: str, style: str, weekday: int) -> str:
    if lang == "es":
        word = _ES_WEEKDAYS[weekday]
        if template == _strip_accents(template):
            word = _strip_accents(word)
    else:
        word = _EN_WEEKDAYS[weekday]
        if style == "abbr":
            word = word[:3]
    return _apply_case(template, word)


def _ordinal(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


_ORDINAL_RE = re.compile(r"(?<!\d)(\d+)(st|nd|rd|th)(?![^\W\d_])", re.IGNORECASE)


def fit_ordinals(text: str) -> str:
    """``text`` with each ordinal suffix made to fit the number before it,
    in the suffix's case ("7rd" -> "7th", "22ND" -> "22ND", "1th" -> "1st"),
    and each ordinal a day of a month ("0th", "86th" -> within 1-28: drawn
    digits made them, and no month has one)."""
    def fit(m: re.Match) -> str:
        n = int(m[1])
        if not 1 <= n <= 31:
            n = n % 28 + 1
        return str(n) + _apply_case(m[2], _ordinal(n))
    return _ORDINAL_RE.sub(fit, text)


#: Tokens of a span past which it is not cut into dates (`_shift_span`).
_MAX_JOINED_TOKENS = 40
#: Words and marks that join two dates of one span ("3/4 and 3/6", "Jan 3 -
#: Feb 4, 2019", "del 3 al 5 de mayo"); a span is cut at one only when both
#: sides read as dates of their own.
_JOINS = frozenset(("-", "\u2013", "\u2014", "to", "and", "&", "through", "thru", "until",
                    "till", "y", "al", "a", "hasta", "/", ";"))


def shift_date(text: str, offset: int, *, day_first: bool = True, pivot: int = 69,
               spanish: bool = False, year: int | None = None) -> str | None:
    """Shift the date written in ``text`` by ``offset`` days, keeping its format.

    A span holding two dates shifts both ("10/15-10/16"); what follows a
    date and is no date ("@ 0800", "x 2 days", "(first visit)") is kept as
    written. ``spanish`` reads abbreviations shared by both languages
    ("mar") as Spanish. ``year``: the year a date written without one is
    shifted in (its note's, `note_year`; None: a common year). Returns
    ``None`` when ``text`` is not a recognisable valid date, or when a
    number or a month or weekday name in it would stay as written (the
    caller then replaces every digit and name).
    """
    token = _YEARLESS_IN.set(year)
    try:
        shifted = _shift_span(text, offset, day_first, pivot, spanish)
        return shifted[0] if shifted is not None else _lone_day(text, offset)
    except OverflowError:
        # Shifted past the calendar's ends ("31/12/9999" a model called a
        # date): not a date that can be moved, so its digits are replaced.
        return None
    finally:
        _YEARLESS_IN.reset(token)


def note_year(dates: Iterable[str], *, day_first: bool = True, pivot: int = 69) -> int | None:
    """The one year that the whole dates among ``dates`` (one note's) are
    written in, else None (none, or several: a note across New Year)."""
    years = {d.year for text in dates if (d := parse_date(text, day_first=day_first,
                                                            pivot=pivot)) is not None}
    return years.pop() if len(years) == 1 else None


def _unread(p: _Parsed) -> list[int]:
    """The tokens of a parsed date it did not read that would stay as
    written: numbers (a time of day aside) and month or weekday names."""
    return [i for i, t in enumerate(p.toks) if not t.role and (
        (t.kind == "num" and not _is_time(p.toks, i))
        or (t.kind == "word" and fold(t.text) in _WORDS))]


def _shift_span(text: str, offset: int, day_first: bool, pivot: int, spanish: bool,
                ) -> tuple[str, _Parsed] | None:
    """``(shifted text, parsed date)`` of `shift_date`, or None."""
    p = _parse(text, day_first, pivot, spanish)
    unread = _unread(p) if p is not None else []
    if p is not None and not unread:
        return _render(p, offset), p
    # Two dates joined ("10/15-10/16", "Jan 3 - Feb 4, 2019", "2018-2019"):
    # cut at the first join whose two sides read as dates, each wholly, or
    # as a day that takes its month from the other side ("May 3-5", "3rd-5th
    # May"). Each side is read again, so a long span (a table caught whole)
    # is not cut at all: its digits are replaced instead.
    toks = p.toks if p is not None else _tokens(text)
    for j, t in enumerate(toks if len(toks) <= _MAX_JOINED_TOKENS else ()):
        if fold(t.text) not in _JOINS or j == 0 or (unread and j > unread[-1]):
            continue
        joined = _shift_join("".join(x.text for x in toks[:j]), t.text,
                             "".join(x.text for x in toks[j + 1:]), offset, day_first, pivot,
                             spanish)
        if joined is not None:
            return joined
    if p is None:
        return None
    # What follows the date and is plainly no day or month ("@ 0800", "3/4/2019
    # 1400", "x 2 days", "5 pm") is kept; a number that may be a day ("July
    # 1, 2 and 8") or a month or weekday name never is.
    last = max(i for i, t in enumerate(toks) if t.role)
    if unread[0] < last or not all(_no_day(toks, i) for i in unread):
        return None
    rest = "".join(x.text for x in toks[last + 1:])
    del toks[last + 1:]
    return _render(p, offset) + rest, p


def _shift_join(left_text: str, join: str, right_text: str, offset: int, day_first: bool,
                pivot: int, spanish: bool) -> tuple[str, _Parsed] | None:
    """Two sides of a join shifted, each a date, or one a day (or a year's
    last two digits) that takes the rest from the other; None if they are not."""
    left = _shift_span(left_text, offset, day_first, pivot, spanish)
    right = _shift_span(right_text, offset, day_first, pivot, spanish)
    if left is not None and right is not None:
        lp, rp = left[1], right[1]
        # A year alone after a day or month is a time ("3/4 0800-1200"), not a date.
        if rp.day is None and rp.month is None and (lp.day is not None or lp.month is not None):
            return None
        if lp.year is None and rp.year is not None and lp.month is not None \
                and rp.month is not None:
            # "3/4-3/6/2019": the first date is of the second's year (the one
            # before if it comes later in the year), so that a range over
            # the end of February keeps its length.
            later = (lp.month, lp.day or 0) > (rp.month, rp.day or 0)
            lp.year = rp.year - later
            return _render(lp, offset) + join + right[0], lp
        return left[0] + join + right[0], lp
    if left is None and right is not None:
        bare = _borrowing(left_text, right[1], pivot, after=False)
        rendered = _render_borrowed(bare, right[1], offset) if bare is not None else None
        if rendered is not None:
            return rendered + join + right[0], right[1]
    if right is None and left is not None:
        lp = left[1]
        bare = _borrowing(right_text, lp, pivot, after=True)
        if bare is not None:
            if lp.year is None and bare.year is not None:
                lp.year = bare.year             # "May 3-5, 2019": both of 2019
                left = (_render(lp, offset), lp)
            rendered = _render_borrowed(bare, lp, offset)
            return (left[0] + join + rendered, lp) if rendered is not None else None
    return None


def _borrowing(text: str, other: _Parsed, pivot: int, after: bool) -> _Parsed | None:
    """``text`` read as a day of ``other``'s month and year ("5" of "May 3-5",
    "3rd" of "3rd-5th May", "5, 2019" of "May 3-5, 2019"), or, ``after`` a
    year alone, as the last digits of a later year ("19" of "2018-19");
    None if it holds anything else a date could hold."""
    toks = _tokens(text)
    nums = [i for i, t in enumerate(toks) if t.kind == "num" and not _is_time(toks, i)]
    weekday = None
    for i, t in enumerate(toks):
        if t.kind != "word":
            continue
        key = fold(t.text)
        if key in _ORDINALS and i > 0 and toks[i - 1].kind == "num" and not t.role:
            t.role = "ordinal"
            continue
        hit = _WORDS.get(key)
        if hit is not None and (hit[0] == "month" or weekday is not None):
            return None
        if hit is not None:
            t.role, t.info, weekday = "weekday", (hit[2], hit[3]), hit[1]
    if other.day is None and other.month is None and other.year is not None:
        if not after or len(nums) != 1 or len(toks[nums[0]].text) != 2 or weekday is not None:
            return None                     # "2018-19"
        v = int(toks[nums[0]].text)
        year = other.year // 100 * 100 + v
        year += 100 if year < other.year else 0
        if year == other.year or year > other.year + 20:
            return None
        toks[nums[0]].role = "year"
        return _Parsed(toks, None, None, year, None)
    # Only beside a month written as a word: "3/4-6" may be two dates or one.
    if other.day is None or not any(t.role == "month" and t.kind == "word" for t in other.toks):
        return None
    days = [i for i in nums if len(toks[i].text) <= 2]
    years = [i for i in nums if len(toks[i].text) == 4]
    if len(days) != 1 or len(nums) != len(days) + len(years) or len(years) > 1:
        return None
    toks[days[0]].role = "day"
    day = int(toks[days[0]].text)
    year = other.year
    if years:
        toks[years[0]].role = "year"
        year = int(toks[years[0]].text)
    if not _valid(day, other.month, year):
        return None
    return _Parsed(toks, day, other.month, year, weekday)


def _render_borrowed(bare: _Parsed, other: _Parsed, offset: int) -> str | None:
    """A day that took its month from ``other``, shifted: written as it was
    if it stays in ``other``'s new month, else with ``other``'s month written
    as ``other`` writes it ("May 29-31" moved past the month's end reads "May
    31-Jun 2", "between 3rd and 5th of May" "between 30th of Apr and 2nd of
    May"), what stands around the day kept; None where both write a year."""
    if bare.month is None:
        return _render(bare, offset)
    if _shift(bare, offset)[1:3] == _shift(other, offset)[1:3]:
        return _render(bare, offset, month_word=True)
    own_year = any(t.role == "year" for t in bare.toks)
    if own_year and any(t.role == "year" for t in other.toks):
        return None
    roles = [i for i, t in enumerate(other.toks) if t.role]
    core = [_Tok(t.text, t.kind, t.role, t.info) for t in other.toks[roles[0]:roles[-1] + 1]]
    # The other's weekday is not this day's: dropped with what follows it up
    # to the next part of the date ("Thu. 5 June" gave "Mon . 31 August").
    kept, after_weekday = [], False
    for t in core:
        if t.role == "weekday":
            after_weekday = True
        elif not (after_weekday and not t.role and t.kind != "word"):
            kept.append(t)
            after_weekday = False
    core = kept
    day = next(t for t in core if t.role == "day")
    day.text = f"{bare.day:0{len(day.text)}d}" if day.text.startswith("0") else str(bare.day)
    at = next(i for i, t in enumerate(bare.toks) if t.role == "day")
    before = bare.toks[:at]
    after = [t for t in bare.toks[at + 1:] if t.role != "ordinal"]
    whole = _Parsed(before + core + after, bare.day, other.month,
                    bare.year if bare.year is not None else other.year, bare.weekday)
    return _render(whole, offset)


#: Words beside a number that say it is no day or month: a time, a count, a dose.
_NOT_DAY_AFTER = frozenset("am pm h hr hrs hour hours min mins d day days wk wks week weeks mo "
                           "mos month months yr yrs year years x times mg ml mcg".split())
_NOT_DAY_BEFORE = frozenset("x # @ at no number times".split())


def _no_day(toks: list[_Tok], i: int) -> bool:
    """Whether the unread number at ``i`` is plainly no day or month: three
    digits or more ("0800"), or a time's, a count's or a dose's word beside
    it ("5 pm", "x 2", "2 days", "@ 10")."""
    t = toks[i]
    if t.kind != "num":
        return False
    if len(t.text) >= 3:
        return True
    after = next((x for x in toks[i + 1:] if x.kind != "space"), None)
    before = next((x for x in reversed(toks[:i]) if x.kind != "space"), None)
    return ((after is not None and fold(after.text) in _NOT_DAY_AFTER)
            or (before is not None and fold(before.text) in _NOT_DAY_BEFORE))


def _render(p: _Parsed, offset: int, month_word: bool = False) -> str:
    """The parsed date ``p`` written again, shifted by ``offset`` days
    (``month_word``: its month is a name written elsewhere, "5" of "May 3-5")."""
    nd, nm, ny, nwd = _shift(p, offset)
    # Padding style: a single-digit day/month shows the writer does not pad.
    # With a month name ("22nd March") only an explicit leading zero pads.
    numeric = [t for t in p.toks if t.role in ("day", "month") and t.kind == "num"]
    no_pad = month_word or any(len(t.text) == 1 for t in numeric) or any(
        t.role == "month" and t.kind == "word" for t in p.toks)
    out = []
    for i, t in enumerate(p.toks):
        role = t.role
        if role == "ymd8":
            out.append(f"{ny:04d}{nm:02d}{nd:02d}")
        elif role in ("day", "month") and t.kind == "num":
            v = nd if role == "day" else nm
            pad = len(t.text) == 2 and (t.text.startswith("0") or not no_pad)
            out.append(f"{v:02d}" if pad else str(v))
        elif role == "year":
            out.append(f"{ny % 100:02d}" if len(t.text) <= 2 else f"{ny:0{len(t.text)}d}")
        elif role == "decade":
            decade = ny // 10 * 10
            out.append(f"{decade % 100:02d}" if len(t.text) <= 2 else f"{decade:04d}")
        elif role == "month":
            out.append(_month_word(t.text, *t.info, nm))
        elif role == "weekday":
            out.append(t.text if nwd is None else _weekday_word(t.text, *t.info, nwd))
        elif role == "ordinal":
            out.append(_apply_case(t.text, _ordinal(nd)))
        else:
            out.append(t.text)
    return "".join(out)


def shift_names(text: str, offset: int) -> str:
    """``text`` with every month and weekday name moved by ``offset`` days'
    worth (months by the nearest whole number of months, weekdays by the
    days), in its language, style and case: for a date that cannot be read
    whole, whose digits the caller replaces ("Jan 3 - Feb 4" kept both
    months)."""
    months = round(offset / 30.4375) or _sign(offset)
    out = []
    for t in _tokens(text):
        hit = _WORDS.get(fold(t.text)) if t.kind == "word" else None
        if hit is None:
            out.append(t.text)
        elif hit[0] == "month":
            out.append(_month_word(t.text, hit[2], hit[3], (hit[1] + months) % 12 + 1))
        else:
            out.append(_weekday_word(t.text, hit[2], hit[3], (hit[1] + offset) % 7))
    return "".join(out)


def _lone_day(text: str, offset: int) -> str | None:
    """A day of the month written alone as an ordinal ("the 3rd", "Tues
    21st at 10:30"), with no month to shift it in: moved 7 to 21 days on a
    31-day cycle, by a step the offset gives (one patient's lone days keep
    their order and gaps, and no two share a day), the weekday written with
    it by as many days; None for anything else."""
    toks = _tokens(text)
    nums = [i for i, t in enumerate(toks) if t.kind == "num" and not _is_time(toks, i)]
    if len(nums) != 1 or nums[0] + 1 >= len(toks) or fold(toks[nums[0] + 1].text) not in _ORDINALS:
        return None
    day = int(toks[nums[0]].text)
    if not 1 <= day <= 31:
        return None
    step = 7 + offset % 15
    new = (day - 1 + step) % 31 + 1
    out = []
    for i, t in enumerate(toks):
        hit = _WORDS.get(fold(t.text)) if t.kind == "word" else None
        if i == nums[0]:
            out.append(f"{new:02d}" if len(t.text) == 2 and t.text.startswith("0") else str(new))
        elif i == nums[0] + 1:
            out.append(_apply_case(t.text, _ordinal(new)))
        elif hit is not None and hit[0] == "weekday":
            out.append(_weekday_word(t.text, hit[2], hit[3], (hit[1] + step) % 7))
        elif hit is not None:
            return None                         # a month: not a lone day after all
        else:
            out.append(t.text)
    return "".join(out)


def _order_evidence(text: str) -> tuple[int, int]:
    """Votes (day-first, month-first) in one date: 2 for a numeric date that
    only one order can read, 1 for a month name before/after the day."""
    toks = [t for t in _tokens(text) if t.kind != "space"]
    for i in range(len(toks) - 2):
        a, sep, b = toks[i], toks[i + 1], toks[i + 2]
        if (a.kind == "num" and b.kind == "num" and sep.text in _SEPARATORS
                and len(a.text) <= 2 and len(b.text) <= 2 and not _is_time(toks, i)):
            if i >= 2 and toks[i - 1].text == sep.text and toks[i - 2].kind == "num" \
                    and len(toks[i - 2].text) == 4:
                return 0, 0       # ISO 8601 ("1980-08-16"): year first in every locale
            x, y = int(a.text), int(b.text)
            if 12 < x <= 31 and 1 <= y <= 12:
                return 2, 0
            if 12 < y <= 31 and 1 <= x <= 12:
                return 0, 2
            return 0, 0
    for i, t in enumerate(toks):
        if t.kind == "word" and _WORDS.get(fold(t.text), ("",))[0] == "month":
            before = i > 0 and toks[i - 1].kind == "num" and len(toks[i - 1].text) <= 2
            after = (i + 1 < len(toks) and toks[i + 1].kind == "num"
                     and len(toks[i + 1].text) <= 2)
            if before and not after:
                return 1, 0
            if after and not before:
                return 0, 1
    return 0, 0


def order_votes(notes_dates: Iterable[list[str]]) -> tuple[int, int]:
    """``(day_first, month_first)``: how many notes show each numeric date
    order with a date only that order can read (a note showing both votes
    for neither)."""
    votes = [0, 0]
    for dates in notes_dates:
        dm = md = False
        for text in dates:
            a, b = _order_evidence(text)
            dm, md = dm or a == 2, md or b == 2
        if dm != md:
            votes[0 if dm else 1] += 1
    return votes[0], votes[1]


def corpus_day_first(notes_dates: Iterable[list[str]]) -> tuple[bool | None, int]:
    """The numeric date order a corpus shows: ``(day_first or None, notes)``.

    Each note with a numeric date only one order can read votes; ``None``
    when no note does or when more than one in ten disagrees (a mixed corpus:
    keep the project's setting). ``notes`` is the number of votes.
    """
    votes = order_votes(notes_dates)
    n = sum(votes)
    if not n or min(votes) > n / 10:
        return None, n
    return votes[0] > votes[1], n


def note_day_first(dates: list[str], default: bool) -> bool:
    """The numeric date order one note shows, else ``default``.

    A numeric date only one order can read (``25/10/2019``, ``10/25/2019``)
    settles it; without one, the order of written months ("12 Oct 2019" vs
    "Oct 12, 2019") does. Evidence both ways, or none, keeps ``default``:
    a note is read one way throughout, so its dates keep their intervals.
    """
    strong = [0, 0]
    weak = [0, 0]
    for text in dates:
        dm, md = _order_evidence(text)
        (strong if 2 in (dm, md) else weak)[0] += dm > 0
        (strong if 2 in (dm, md) else weak)[1] += md > 0
    for dm, md in (strong, weak):
        if dm and not md:
            return True
        if md and not dm:
            return False
        if dm and md:
            return default
    return default


def parse_date(text: str, *, day_first: bool = True, pivot: int = 69) -> _dt.date | None:
    """The full calendar date written in ``text`` (``None`` if partial or unreadable)."""
    p = _parse(text, day_first, pivot)
    if p is None or None in (p.day, p.month, p.year):
        return None
    return _dt.date(p.year, p.month, p.day)
