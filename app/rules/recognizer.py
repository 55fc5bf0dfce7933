"""Find well-formed identifiers in clinical text (English and Spanish).

`find_hits` returns non-overlapping `RuleHit`\\ s in text order. Categories:

========== ===============================================================
DATE       numeric (03/05/2014, 3/5/14, 2014-03-05, 05.03.2014, 03/2014),
           written (3 Mar 2014, 3rd of March 2014, March 5th, 2014, a range
           of days with its month once: May 3-5, 3rd to 5th May 2019,
           5 de marzo de 2014, marzo de 2014), with a weekday if written
YEAR       a bare 4-digit year (1800-2099) not followed by a unit, with a
           "year"/"año" written before it
PHONE      Australian, US, Spanish and "+cc" international numbers, with
           an extension ("ext 123", "x123"); a code after a pager's cue
EMAIL      e-mail addresses
URL        http(s)/ftp/www addresses and bare domains (.com, .org, .es ...)
IP         IPv4 and IPv6 addresses
ID         a code after an ID cue (MRN, UR, FIN, NHC, NASS, ID, No. ...),
           five digits or more glued to one ("MRN7654321", "Acct#1234567"),
           Medicare (AU) and Luhn-valid numbers, US SSN, Spanish DNI/NIE
POSTCODE   AU 4-digit after a state, US ZIP(+4) after a state, ES 5-digit
           after "CP"/"C.P." or before a place name ("28034 Madrid")
AGE        "70 años", "Edad: 3 días" (with the unit), "82-year-old", "82 yo",
           "aged 91" (the number only)
========== ===============================================================

Spans never include surrounding whitespace or punctuation. English ages
keep only the number, as i2b2 annotates them; Spanish ages keep "años",
as MEDDOCAN does (both align with canonical tokens either way).

Overlaps are resolved by category priority (more specific shapes first),
then by length. A cue (see `app.rules.cues`) is attached to every hit.
"""
from __future__ import annotations

import ipaddress
import re
from bisect import bisect_right
from typing import Iterator, NamedTuple, Sequence

from app.rules import patterns as P
from app.rules.checksums import dni_valid, luhn_valid, medicare_valid, nie_valid, ssn_valid
from app.rules.cues import PHONE_CUES, cue_alternation, cue_before, is_bare_no

CATEGORIES: tuple[str, ...] = (
    "DATE", "YEAR", "PHONE", "EMAIL", "URL", "IP", "ID", "POSTCODE", "AGE")


class RuleHit(NamedTuple):
    """One identifier found by the rules: ``text[start:end]`` is the hit."""

    start: int
    end: int
    category: str
    cue: str | None


# Lower rank wins an overlap; "strong" IDs (after an ID cue) outrank dates
# and phones because the cue is the stronger evidence.
# "PHONE?" is a shape that is a phone only after a phone cue (AU "9382 1234").
_RANK = {"EMAIL": 0, "URL": 1, "IP": 2, "ID*": 3, "PHONE*": 3, "DATE": 4, "PHONE": 5,
         "PHONE?": 5, "ID": 6, "POSTCODE": 7, "AGE": 8, "YEAR": 9}
_CATEGORY = {"ID*": "ID", "PHONE?": "PHONE", "PHONE*": "PHONE"}
# A pager's number is a telephone number (HIPAA's), as the shipped pager rule says.
_PAGER_CUE = re.compile(cue_alternation(frozenset({"pager"})), re.IGNORECASE)


def hits_between(hits: Sequence[RuleHit], ends: Sequence[int], start: int, end: int
                 ) -> Iterator[RuleHit]:
    """The hits of ``hits`` (in order, non-overlapping; ``ends`` their ends)
    that overlap ``[start, end)``, in order.

    Found by bisection and read in place: a copy of the list's tail for each
    segment of a note (``hits[i:]``) grew with the square of one big note.
    """
    for k in range(bisect_right(ends, start), len(hits)):
        hit = hits[k]
        if hit.start >= end:
            return
        yield hit


def find_hits(text: str) -> list[RuleHit]:
    """All identifiers the rules recognise in ``text``, non-overlapping, in order."""
    raw: list[tuple[int, int, str]] = []   # (start, end, rank key)
    low = _lower(text)
    _numeric(text, raw)
    _words(text, low, raw)
    _case_sensitive(text, raw)
    # The rarer shapes run only when a cheap substring test says they may occur.
    if "@" in text:
        _emails(text, raw)
    if "://" in low or "www." in low:
        _urls(low, raw)
    if "." in low:
        _domains(low, raw)
    if "::" in text or text.count(":") >= 5:
        _ipv6(text, raw)
    return _resolve(text, low, raw)


def _lower(text: str) -> str:
    """``text.lower()`` with the same length (offsets must stay valid)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    # A few characters (e.g. "İ") lengthen when lower-cased: keep those as is.
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _resolve(text: str, low: str, raw: list[tuple[int, int, str]]) -> list[RuleHit]:
    """Drop overlapping candidates (by rank, then length) and attach cues."""
    hits: list[RuleHit] = []
    starts: list[int] = []     # accepted spans, sorted and disjoint
    ends: list[int] = []
    for start, end, key in sorted(raw, key=lambda r: (_RANK[r[2]], r[0] - r[1], r[0])):
        i = bisect_right(starts, start)
        if (i and ends[i - 1] > start) or (i < len(starts) and starts[i] < end):
            continue
        cue = cue_before(text, start, low)
        if key == "PHONE?" and cue not in PHONE_CUES:
            continue
        starts.insert(i, start)
        ends.insert(i, end)
        hits.append(RuleHit(start, end, _CATEGORY.get(key, key), cue))
    hits.sort()
    return hits


def _numeric(text: str, out: list) -> None:
    pos = 0
    start_re, numeric_re = P.NUMERIC_START_RE, P.NUMERIC_RE
    while True:
        c = start_re.search(text, pos)
        if c is None:
            return
        m = numeric_re.match(text, c.start())
        if m is None:
            # A "(" or "+" that starts nothing may still precede a number.
            pos = c.end() if text[c.start()].isdigit() else c.start() + 1
            continue
        pos = m.end()
        kind = m.lastgroup
        s, e = m.span()
        if kind == "chain":
            _chain(text, m, out)
        elif kind == "dmy":
            d1, d2 = int(m.group("d1")), int(m.group("d2"))
            if (1 <= d1 <= 31 and 1 <= d2 <= 12) or (1 <= d1 <= 12 and 1 <= d2 <= 31):
                out.append((_with_weekday(text, s), e, "DATE"))
        elif kind == "iso":
            _, mo, d = _split_digits(m.group())
            if 1 <= mo <= 12 and 1 <= d <= 31:
                out.append((s, e, "DATE"))
        elif kind in ("my", "tdate"):
            out.append((_with_weekday(text, s), e, "DATE"))
        elif kind == "ipv4":
            out.append((s, e, "IP"))
        elif kind == "age_es":
            if _split_digits(m.group())[0] <= 120:
                out.append((s, e, "AGE"))
        elif kind == "age_en":
            if int(m.group("age_n")) <= 120:
                out.append((s, e, "AGE"))
        elif kind == "dni" and dni_valid(m.group()):
            out.append((s, e, "ID"))


def _split_digits(value: str) -> list[int]:
    out, cur = [], ""
    for ch in value:
        if ch.isdigit():
            cur += ch
        elif cur:
            out.append(int(cur))
            cur = ""
    if cur:
        out.append(int(cur))
    return out


def _with_weekday(text: str, start: int) -> int:
    m = P.WEEKDAY_BEFORE_RE.search(text, max(0, start - 16), start)
    return m.start() if m else start


def _chain(text: str, m, out: list) -> None:
    """Classify a chain of digit groups: SSN, Medicare, Luhn, phone, postcode, year."""
    s, e = m.span()
    value = m.group()
    if value.isdigit():  # one plain number: the common case, kept cheap
        digits = value
        n = len(digits)
        if n < 4:
            return
        if n == 4 and digits[:2] in ("18", "19", "20") and not P.UNIT_AFTER_RE.match(text, e):
            word = P.YEAR_WORD_BEFORE_RE.search(text, max(0, s - 8), s)
            out.append((word.start() if word else s, e, "YEAR"))
        elif n == 5 and "01" <= digits[:2] <= "52" and P.CITY_AFTER_RE.match(text, e):
            out.append((s, e, "POSTCODE"))
        elif n >= 12 and luhn_valid(digits):
            out.append((s, e, "ID"))
        elif n in (10, 11) and medicare_valid(digits):
            out.append((s, e, "ID"))
        elif kind := _phone_kind(digits, False, [n], False):
            out.append((s, _extend_ext(text, e), kind))
        return
    groups = [(g.start() + s, g.end() + s) for g in P.CHAIN_GROUP_RE.finditer(value)]
    plus = value.startswith("+")
    lens = [b - a for a, b in groups]
    if not plus and "-" in value and lens == [3, 2, 4] and ssn_valid(value):
        out.append((s, e, "ID"))
        return
    if not plus and all(text[a] != "(" for a, _ in groups):
        digits = "".join(text[a:b] for a, b in groups)
        if lens in ([4, 5, 1], [4, 5, 1, 1]) and medicare_valid(digits):
            out.append((s, e, "ID"))
            return
        if 13 <= len(digits) <= 19 and all(n == 4 for n in lens[:-1]) and luhn_valid(digits):
            out.append((s, e, "ID"))
            return
    # Longest sub-chain that is a valid phone number (a chain may have
    # swallowed a neighbouring number such as a postcode).
    k = len(groups)
    for size in range(min(k, _MAX_PHONE_GROUPS), 0, -1):
        for i in range(0, k - size + 1):
            sub = groups[i:i + size]
            sub_plus = plus and i == 0
            digits = "".join(text[a:b].strip("()") for a, b in sub)
            paren = any(text[a] == "(" for a, _ in sub)
            kind = _phone_kind(digits, sub_plus, [b - a for a, b in sub], paren)
            if kind:
                start = s if sub_plus else sub[0][0]
                out.append((start, _extend_ext(text, sub[-1][1]), kind))
                return


def _extend_ext(text: str, end: int) -> int:
    m = P.EXTENSION_RE.match(text, end)
    return m.end() if m else end


# No phone number is written in more groups than this ("+34 91 336 87 85").
_MAX_PHONE_GROUPS = 6

# Country calling codes with a known national length (digits after the code).
_NATIONAL_LEN = {"61": (9, 10), "1": (10,), "34": (9,), "44": (10,), "33": (9,)}


def _phone_kind(d: str, plus: bool, lens: list[int], paren: bool) -> str | None:
    """"PHONE" if digit string ``d`` is a phone number, "PHONE?" if it is one
    only after a phone cue, else None. ``lens``: its group lengths."""
    if d.startswith("00") and not plus:
        d, plus = d[2:], True
    n = len(d)
    if plus:
        for cc, national in _NATIONAL_LEN.items():
            if d.startswith(cc) and n - len(cc) in national:
                return "PHONE"
        return "PHONE" if 8 <= n <= 15 and lens[0] <= 4 and len(lens) > 1 else None
    if n == 10 and (d[0] == "0" and d[1] in "23478" or d[:4] in ("1300", "1800")):
        return "PHONE"                               # Australia
    if n == 10 and d[0] in "23456789" and (paren or lens == [3, 3, 4]):
        return "PHONE"                               # US / NANP, formatted
    if n == 11 and d[0] == "1" and lens == [1, 3, 3, 4]:
        return "PHONE"
    if n == 9 and d[0] in "6789" and lens[0] in (2, 3, 9):
        return "PHONE"                               # Spain
    if n == 8 and lens == [4, 4] and d[0] in "23456789":
        return "PHONE?"                              # AU local number
    return None


def _words(text: str, low: str, out: list) -> None:
    """Word-led shapes: cue + ID, "CP 28016", month-first dates, "aged 91"."""
    for m in P.WORD_RE.finditer(low):
        kind = m.lastgroup
        s, e = m.span()
        if kind == "idcue":
            inner = P.WORD_RE.match(low, m.start("idb"))
            if inner is not None and inner.lastgroup == "idcue":
                m = inner  # "CIPA: nhc-123456": the code follows the inner cue
            body = m.group("idb")
            if (sum(ch.isdigit() for ch in body) >= 3 and len(body) <= 32
                    and not is_bare_no(text, *m.span("idc"))):
                pager = _PAGER_CUE.fullmatch(m.group("idc"))
                out.append((m.start("idb"), m.end("idb"), "PHONE*" if pager else "ID*"))
        elif kind == "idglued":
            # "MRN7654321", "Acct#12345678": a record system's export that
            # writes the number glued to its cue.
            out.append((m.start("idgb"), m.end("idgb"), "ID*"))
        elif kind == "mdate":
            if (m.group("mday2") or m.group("mrange")) and P.UNIT_AFTER_RE.match(text, e):
                continue  # "may 10 mg", "may 10-20 mg" are doses
            out.append((_with_weekday(text, s), e, "DATE"))
        elif kind == "aged":
            if _split_digits(m.group("agedn"))[0] <= 120:
                out.append((m.start("agedn"), e, "AGE"))
        else:
            out.append((m.start("cpn"), m.end("cpn"), "POSTCODE"))


def _case_sensitive(text: str, out: list) -> None:
    """State + postcode and NIE, where letter case is part of the shape."""
    for rx in (P.AU_POSTCODE_RE, P.US_ZIP_RE):
        for m in rx.finditer(text):
            if m.start() == 0 or not text[m.start() - 1].isalnum():
                out.append((m.start("n"), m.end("n"), "POSTCODE"))
    for m in P.NIE_RE.finditer(text):
        if (m.start() == 0 or not text[m.start() - 1].isalnum()) and nie_valid(m.group()):
            out.append((m.start(), m.end(), "ID"))


def _urls(low: str, out: list) -> None:
    for m in P.URL_RE.finditer(low):
        s, end = m.span()
        while end > s and low[end - 1] in P.URL_TRAIL:
            end -= 1
        if end - s > 4:
            out.append((s, end, "URL"))


def _domains(text: str, out: list) -> None:  # on the lower-cased text
    """Bare domains ("health.nsw.gov.au/path"), found from their TLD."""
    chars = P.DOMAIN_CHARS
    for m in P.TLD_RE.finditer(text):
        s = m.start()
        while s > 0 and text[s - 1] in chars:
            s -= 1
        while s < m.start() and not text[s].isalnum():
            s += 1
        if s == m.start() or (s > 0 and text[s - 1] in "@/"):
            continue  # no name before the TLD, or part of an e-mail or URL
        end = m.end()
        path = P.URL_PATH_RE.match(text, end)
        if path:
            end = path.end()
            while end > m.end() and text[end - 1] in P.URL_TRAIL:
                end -= 1
        out.append((s, end, "URL"))


def _emails(text: str, out: list) -> None:
    at = text.find("@")
    while at >= 0:
        s = at
        while s > 0 and (text[s - 1].isalnum() or text[s - 1] in "._+-"):
            s -= 1
        while s < at and not text[s].isalnum():
            s += 1
        m = P.EMAIL_DOMAIN_RE.match(text, at + 1)
        if s < at and m:
            out.append((s, m.end(), "EMAIL"))
        at = text.find("@", at + 1)


_MAX_IPV6_LEN = 39


def _ipv6(text: str, out: list) -> None:
    pos = 0
    while True:
        t = P.IPV6_TRIGGER_RE.search(text, pos)
        if t is None:
            return
        s = t.start()
        floor = max(0, s - _MAX_IPV6_LEN)
        while s > floor and text[s - 1] in P.HEX_COLON:
            s -= 1
        m = P.IPV6_RE.match(text, s)
        pos = t.end()
        if m is None:
            continue
        pos = max(pos, m.end())
        value = m.group()
        if sum(ch != ":" for ch in value) < 4:
            continue
        try:
            ipaddress.IPv6Address(value)
        except ValueError:
            continue
        out.append((m.start(), m.end(), "IP"))
