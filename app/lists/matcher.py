"""Find every occurrence of a listed identifier in a note.

The matcher works on the canonical tokens of :mod:`app.core.tokenize`, so
every hit starts and ends on token boundaries; its offsets come from the
tokens, never from searching for an entry's text.

Comparison units
    Letter runs glued together are one word (``McDonald`` is one word even
    though the tokenizer splits it), compared in lower case; digit runs are
    compared by value (``03`` = ``3``). Hyphens, full stops, apostrophes and a
    possessive ``'s`` are not compared, so ``SMITH-JONES`` = ``Smith Jones``,
    ``St.Mary`` = ``St Mary``, ``Anne's`` = ``ANNE``, and ``&`` = ``and``.
    A hit never crosses a line break.

Variants of a person's name (patient table names, staff lists)
    Every word of a name is also an entry of its own (``SMITH`` of ``John
    Smith``, ``JONES`` of ``Smith-Jones``), so ``J. SMITH``, ``SMITH J``,
    ``SMITH, John`` and ``SMITH'S`` are found through their parts; a letter
    next to a name hit is taken as an initial (``J.`` always, a bare capital
    letter unless it is ``A`` or ``I``); a name hit glued by a hyphen to
    another word takes that word too (``SMITH-JONES`` from ``SMITH``);
    adjacent name hits (space or comma between) become one span.

Small typos
    A word of at least ``typo_min_len`` letters (5) matches a note word at
    Damerau-Levenshtein distance 1 (``SMTIH``, ``SMYTH``), unless either word
    is on the stoplist.

Precision (noisy lists)
    An entry made only of stoplist words (:mod:`app.lists.stoplist`: "MAY",
    "HOPE", "GENERAL", "UNION") is *ambiguous*: it counts only with context:
    a title or relative before a name ("DR. MAY", "DAUGHTER HOPE", "MAY
    MD"), a neighbouring non-ambiguous hit ("HOPE SMITH"), or, for places,
    hospitals and wards, an institution word after it ("GENERAL HOSP").

Patient table fields
    names (as above), date of birth (numeric day/month/year in either
    order, two- or four-digit years, ISO, month names), record numbers and
    phone numbers (the same letters and digits, whatever the separators), and
    addresses (the whole address, each comma-separated part of two or
    more words, and the street: the words up to its street-type word). An
    address is compared blind to commas and to the short forms of
    street-type words ("14 Wattle St, Bendigo" = "14 Wattle Street Bendigo").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Iterable, NamedTuple, Sequence

from app.core.tokenize import tokenize
from app.rules.cues import MOVES, PLACE_BEFORE

from .entries import PATIENT_FIELDS, HospitalLists
from .stoplist import stoplist

#: What a hit is, before the project's labels are chosen (app.lists.labels).
CATEGORIES = ("patient_name", "staff_name", "place", "hospital", "ward", "other",
              "address", "dob", "record_number", "phone", "date")
PERSON = frozenset({"patient_name", "staff_name"})
#: The category of each plain-list kind.
KIND_CATEGORY = {"staff": "staff_name", "places": "place", "hospitals": "hospital",
                 "wards": "ward", "other": "other"}
TYPO_MIN_LEN = 5

# Words before a person's name that make an ambiguous one a name.
_TITLES = frozenset("""dr doctor drs mr mrs ms miss mx prof professor sr sister nurse rn np
attending resident fellow intern pcp hcp proxy daughter dtr son wife husband hubby brother
bro sis mother mom mum father dad friend niece nephew grandson granddaughter grandmother
grandfather aunt uncle cousin partner fiance fiancee neighbor neighbour""".split())
# Words after a person's name that make an ambiguous one a name.
_POST_TITLES = frozenset("md rn np do phd".split())
# Words after an ambiguous place, hospital or ward that make it one.
_INSTITUTION = frozenset("""hospital hosp medical center centre ctr clinic rehab nursing
infirmary health healthcare memorial general system""".split())
# Trailing words left out of a hospital hit's span.
_TRIMMED = _INSTITUTION - {"memorial", "general"}
_DROPPED = frozenset("-.'\u2019")
_CONTRACTIONS = frozenset({"t", "ve", "re", "ll", "d", "m"})
_GAP_MERGE = re.compile(r"[ \t]*")
_GAP_PERSON = re.compile(r"[ \t]*,?[ \t]*")
_GAP_CODE = re.compile(r"[ \t\-./()]{0,3}")
#: Street-type words and their short forms, compared as one in addresses.
_STREET_FORMS = {
    "street": "st", "road": "rd", "avenue": "ave", "av": "ave", "drive": "dr", "lane": "ln",
    "place": "pl", "court": "ct", "crescent": "cres", "highway": "hwy", "boulevard": "blvd",
    "parade": "pde", "terrace": "tce", "close": "cl", "circuit": "cct", "square": "sq",
    "esplanade": "esp", "grove": "gr", "parkway": "pkwy", "avenida": "avda", "plaza": "pza",
    "carretera": "ctra"}
_STREET_TYPES = frozenset(_STREET_FORMS) | frozenset(_STREET_FORMS.values()) | {"way", "calle"}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]


@dataclass(frozen=True, slots=True)
class ListHit:
    """An occurrence of a listed identifier: ``text[start:end]`` (token bounds).
    ``rule``: the name of the floor's rule that found it (None: a list entry)."""

    start: int
    end: int
    category: str
    rule: str | None = field(default=None, compare=False)


class _Unit(NamedTuple):
    norm: str          # compared form
    start: int
    end: int
    alpha: bool
    line: int          # line number: hits never cross lines


def _units(text: str) -> list[_Unit]:
    """The comparison units of ``text`` (see the module docstring)."""
    toks = tokenize(text)
    out: list[_Unit] = []
    line = 0
    pos = 0
    k = 0
    n = len(toks)
    while k < n:
        s, e = toks[k]
        line += text.count("\n", pos, s)
        ch = text[s]
        if ch.isalpha():
            while k + 1 < n and toks[k + 1].start == e and text[e].isalpha():
                k += 1
                e = toks[k].end
            out.append(_Unit(text[s:e].lower(), s, e, True, line))
        elif ch.isdigit():
            out.append(_Unit(str(int(text[s:e])), s, e, False, line))
        elif ch in _DROPPED:
            glued = (ch in "'\u2019" and k + 1 < n and toks[k + 1].start == e
                     and out and out[-1].end == s and out[-1].alpha)
            after = text[e:toks[k + 1].end].lower() if glued else ""
            if after == "s":
                # A possessive 's glued to a word is dropped with its apostrophe.
                k += 1
                e = toks[k].end
            elif after in _CONTRACTIONS:
                # "DON'T" is no name DON: the contraction is one word.
                k += 1
                last = out.pop()
                out.append(_Unit(last.norm + "'" + after, last.start, toks[k].end, True, last.line))
        elif ch == "&":
            out.append(_Unit("and", s, e, True, line))
        else:
            out.append(_Unit(ch, s, e, False, line))
        pos = s
        k += 1
    return out


def _words(value: str) -> tuple[str, ...]:
    return tuple(u.norm for u in _units(value))


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def _within_one(a: str, b: str) -> bool:
    """Optimal-string-alignment distance of ``a`` and ``b`` is at most 1."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diff = [i for i in range(la) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    if la > lb:
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1:]


class _Entry(NamedTuple):
    words: tuple[str, ...]
    category: str
    ambiguous: bool


class _Index:
    """Phrase entries by first word, with a deletion index for typos."""

    def __init__(self, entries: Iterable[_Entry], stop: frozenset[str], typo_min_len: int) -> None:
        self.first: dict[str, list[_Entry]] = {}
        seen = set()
        for e in entries:
            if e in seen or not e.words:
                continue
            seen.add(e)
            self.first.setdefault(e.words[0], []).append(e)
        self.stop = stop
        self.typo_min_len = typo_min_len
        self.typo: dict[str, set[str]] = {}
        for word, group in self.first.items():
            if self.typo_ok(word) and any(not e.ambiguous for e in group):
                for key in _deletes(word) | {word}:
                    self.typo.setdefault(key, set()).add(word)

    def typo_ok(self, word: str) -> bool:
        return len(word) >= self.typo_min_len and word.isalpha() and word not in self.stop

    def close(self, word: str) -> set[str]:
        """Entry first words within one edit of note word ``word`` (not itself)."""
        if len(word) < self.typo_min_len - 1 or not word.isalpha() or word in self.stop:
            return set()
        found = set()
        for key in _deletes(word) | {word}:
            for cand in self.typo.get(key, ()):
                if cand != word and _within_one(cand, word):
                    found.add(cand)
        return found

    def same(self, entry_word: str, note_word: str) -> tuple[bool, bool]:
        """(matches, by a typo)."""
        if entry_word == note_word:
            return True, False
        ok = (self.typo_ok(entry_word) and self.typo_ok(note_word)
              and _within_one(entry_word, note_word))
        return ok, ok

    def find(self, units: Sequence[_Unit]) -> list[tuple[int, int, _Entry, bool]]:
        """``(first unit, end unit, entry, by a typo)`` of every phrase hit."""
        out = []
        for i, u in enumerate(units):
            cands = [(e, False) for e in self.first.get(u.norm, ())]
            for w in self.close(u.norm):
                cands += [(e, True) for e in self.first[w] if not e.ambiguous]
            for entry, typo in cands:
                if entry.category == "address":
                    end = self._address_end(units, i, entry)
                    if end is not None:
                        out.append((i, end, entry, typo))
                    continue
                n = len(entry.words)
                if i + n > len(units) or units[i + n - 1].line != u.line:
                    continue
                ok = True
                for k in range(1, n):
                    same, by_typo = self.same(entry.words[k], units[i + k].norm)
                    if not same or (by_typo and entry.ambiguous):
                        ok = False
                        break
                    typo |= by_typo
                if ok:
                    out.append((i, i + n, entry, typo))
        return out


    def _address_end(self, units: Sequence[_Unit], i: int, entry: _Entry) -> int | None:
        """The unit after an address entry read from unit ``i`` on, commas
        skipped and street types in either form; None if it is not there."""
        j = i + 1
        for word in entry.words[1:]:
            while j < len(units) and units[j].norm == "," and units[j].line == units[i].line:
                j += 1
            if j >= len(units) or units[j].line != units[i].line \
                    or _STREET_FORMS.get(units[j].norm, units[j].norm) != word:
                return None
            j += 1
        return j


def _name_entries(value: str, category: str, stop: frozenset[str]) -> list[_Entry]:
    """A name and each of its words ("Smith-Jones, John" -> 4 entries)."""
    out = []
    for part in re.split(r"[,;|/]", value):
        words = _words(part)
        words = tuple(w for w in words if w.isalpha())
        if not words:
            continue
        out.append(_Entry(words, category, all(w in stop for w in words)))
        for w in words:
            if len(w) >= 2:
                out.append(_Entry((w,), category, w in stop))
    return out


def _phrase_entries(value: str, category: str, stop: frozenset[str]) -> list[_Entry]:
    """A phrase; for hospitals and wards also its short form ("Ashdown" of
    "Ashdown Memorial Hospital": trailing institution words dropped)."""
    words = _words(value)
    out = []
    while words and not (len(words) == 1 and len(words[0]) < 2):
        # A number makes a phrase specific ("12 Larch Close", "Ward 7").
        ambiguous = not any(w.isdigit() for w in words) and all(
            w in stop for w in words if w.isalpha())
        out.append(_Entry(words, category, ambiguous))
        if category not in ("hospital", "ward") or words[-1] not in _INSTITUTION:
            break
        words = words[:-1]
    return out


def _address_entries(value: str, stop: frozenset[str]) -> list[_Entry]:
    """The whole address, each comma-separated part of two words or more,
    and its street (up to the first street-type word, with the house number
    and without it), commas left out and street types in their short form."""
    out = []
    for part in [value] + value.split(","):
        words = tuple(_STREET_FORMS.get(w, w) for w in _words(part) if w != ",")
        if len(words) < 2:
            continue
        out.append(_address_entry(words, stop))
        street = next((k for k, w in enumerate(words) if w in _STREET_TYPES and k > 0), None)
        if street is not None and street + 1 < len(words):
            out.append(_address_entry(words[:street + 1], stop))
            if words[0].isdigit() and street >= 2:
                out.append(_address_entry(words[1:street + 1], stop))
    return out


def _address_entry(words: tuple[str, ...], stop: frozenset[str]) -> _Entry:
    # A number makes an address specific ("12 Larch Close"); "Main Street" alone is not.
    return _Entry(words, "address", not any(w.isdigit() for w in words) and all(
        w in stop or w in _STREET_TYPES for w in words if w.isalpha()))


_NUMERIC_DATE = re.compile(r"^\s*(\d{1,4})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{2,4})\s*$")


def _parse_dates(value: str) -> list[date]:
    """The dates ``value`` may mean (both orders when day and month are ambiguous)."""
    m = _NUMERIC_DATE.match(value)
    out = []
    if m:
        a, b, c = (int(x) for x in m.groups())
        if len(m.group(1)) == 4:
            cands = [(a, b, c)]
        else:
            year = c if len(m.group(3)) == 4 else (1900 + c if c > 30 else 2000 + c)
            cands = [(year, b, a), (year, a, b)]
        for y, mo, d in cands:
            try:
                out.append(date(y, mo, d))
            except ValueError:
                pass
    elif re.fullmatch(r"\s*\d{8}\s*", value):
        try:
            out.append(date(int(value[:4]), int(value[4:6]), int(value[6:8])))
        except ValueError:
            pass
    else:
        words = [w for w in _words(value) if w not in {",", "of"}]
        nums = [w for w in words if w.isdigit()]
        months = [i + 1 for i, name in enumerate(_MONTHS) for w in words
                  if len(w) >= 3 and name.startswith(w)]
        if len(nums) == 2 and len(months) == 1:
            day, year = sorted(nums, key=lambda x: int(x))
            try:
                out.append(date(int(year), months[0], int(day)))
            except ValueError:
                pass
    return list(dict.fromkeys(out))


def _date_entries(value: str) -> list[_Entry]:
    out = []
    for d in _parse_dates(value):
        y2 = f"{d.year % 100:02d}"
        month = _MONTHS[d.month - 1]
        forms = [f"{d.day}/{d.month}/{d.year}", f"{d.month}/{d.day}/{d.year}",
                 f"{d.day}/{d.month}/{y2}", f"{d.month}/{d.day}/{y2}",
                 f"{d.year}-{d.month}-{d.day}", f"{d.day}-{d.month}-{d.year}",
                 f"{d.month}-{d.day}-{d.year}", f"{d.year}/{d.month}/{d.day}"]
        for name in (month, month[:3]):
            forms += [f"{d.day} {name} {d.year}", f"{name} {d.day} {d.year}",
                      f"{name} {d.day}, {d.year}", f"{d.day} {name} {y2}"]
        out += [_Entry(_words(f), "dob", False) for f in forms]
    return out


def _code(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z]", "", text).upper()


def _phone_codes(value: str) -> list[str]:
    digits = re.sub(r"\D", "", value)
    if len(digits) < 7:
        return []
    out = [digits]
    if len(digits) == 11 and digits[0] == "1":
        out.append(digits[1:])
    if len(digits) >= 10:
        out.append(digits[-7:])
    return out


def _record_codes(value: str) -> list[str]:
    code = _code(value)
    if len(code) < 4:
        return []
    stripped = code.lstrip("0")
    return [code] + ([stripped] if len(stripped) >= 4 and stripped != code else [])


class _PatientIndex(NamedTuple):
    phrases: _Index
    codes: dict[str, str]     # normalised code -> category
    longest: int


class ListMatcher:
    """Compiled hospital lists; :meth:`find` gives the hits of one note.

    Parameters
    ----------
    lists
        The plain lists (applied to every note) and the patient table
        (applied to the notes of that patient only).
    typo_min_len
        Shortest entry word matched with one edit (default 5).
    """

    def __init__(self, lists: HospitalLists, *, typo_min_len: int = TYPO_MIN_LEN) -> None:
        self._stop = stoplist()
        self._typo_min_len = typo_min_len
        entries: list[_Entry] = []
        for kind, values in lists.plain.items():
            category = KIND_CATEGORY[kind]
            for v in values:
                entries += (_name_entries(v, category, self._stop) if category in PERSON
                            else _phrase_entries(v, category, self._stop))
        self._plain = _Index(entries, self._stop, typo_min_len)
        self._patient_rows = lists.patients
        self._patients: dict[str, _PatientIndex] = {}

    def _patient(self, patient_id: str) -> _PatientIndex | None:
        if patient_id not in self._patient_rows:
            return None
        if patient_id not in self._patients:
            row = self._patient_rows[patient_id]
            entries: list[_Entry] = []
            codes: dict[str, str] = {}
            for field_name in PATIENT_FIELDS:
                for v in row.get(field_name, ()):
                    if field_name in ("first_name", "last_name", "other_names"):
                        entries += _name_entries(v, "patient_name", self._stop)
                    elif field_name == "dob":
                        entries += _date_entries(v)
                    elif field_name == "addresses":
                        entries += _address_entries(v, self._stop)
                    elif field_name == "phones":
                        codes.update((c, "phone") for c in _phone_codes(v))
                    elif field_name == "record_numbers":
                        codes.update((c, "record_number") for c in _record_codes(v))
            self._patients[patient_id] = _PatientIndex(
                _Index(entries, self._stop, self._typo_min_len), codes,
                max(map(len, codes), default=0))
        return self._patients[patient_id]

    def find(self, text: str, patient_id: str | None = None) -> list[ListHit]:
        """Every listed identifier in ``text``, sorted, not overlapping.

        ``patient_id`` selects the patient table row that applies (none
        when it is ``None`` or not in the table).
        """
        units = _units(text)
        raw = self._plain.find(units)
        patient = self._patient(patient_id) if patient_id is not None else None
        if patient is not None:
            raw += patient.phrases.find(units)
        hits = self._resolve(text, units, raw)
        if patient is not None and patient.codes:
            hits += _find_codes(text, units, patient.codes, patient.longest)
        return _merge(text, _no_overlap(hits))

    def _resolve(self, text: str, units: Sequence[_Unit], raw) -> list[ListHit]:
        """Keep ambiguous and typo hits that have context; extend name hits."""
        sure = [(i, j, e) for i, j, e, typo in raw if not (e.ambiguous or typo)]
        unsure = [(i, j, e) for i, j, e, typo in raw if e.ambiguous or typo]
        kept = list(sure)
        mixed_case = _mixed_case(text)
        changed = True
        while unsure and changed:
            changed = False
            for item in list(unsure):
                if self._has_context(text, units, item, kept, mixed_case):
                    kept.append(item)
                    unsure.remove(item)
                    changed = True
        out = []
        for i, j, e in kept:
            if e.category in PERSON:
                out += [ListHit(a, b, e.category)
                        for a, b in _extend_name(text, units, i, j, self._stop)]
                continue
            # Annotators leave a trailing "Hospital" out of a hospital's name
            # (and it identifies nothing); one word always stays.
            while j - i > 1 and units[j - 1].norm in _TRIMMED:
                j -= 1
            out.append(ListHit(units[i].start, units[j - 1].end, e.category))
        return out

    def _has_context(self, text, units, item, kept, mixed_case: bool) -> bool:
        i, j, e = item
        line = units[i].line
        prev = units[i - 1] if i > 0 and units[i - 1].line == line else None
        nxt = units[j] if j < len(units) and units[j].line == line else None
        if e.category in PERSON:
            if prev is not None and prev.norm in _TITLES:
                return True
            if nxt is not None and nxt.norm in _POST_TITLES:
                return True
        elif nxt is not None and nxt.norm in _INSTITUTION:
            return True
        elif prev is not None and (prev.norm in PLACE_BEFORE or prev.norm == "to" and i > 1
                                   and units[i - 2].line == line and units[i - 2].norm in MOVES):
            return True
        # In a note written in upper and lower case, a capitalised word that
        # does not start a sentence is a name.
        if mixed_case and all(text[u.start].isupper() and not text[u.start + 1:u.end].isupper()
                              for u in units[i:j] if u.alpha) and not _starts_sentence(text, units[i].start):
            return True
        for ki, kj, _ in kept:
            if units[ki].line != line:
                continue
            if kj <= i and _GAP_PERSON.fullmatch(text, units[kj - 1].end, units[i].start):
                return True
            if ki >= j and _GAP_PERSON.fullmatch(text, units[j - 1].end, units[ki].start):
                return True
        return False


def _mixed_case(text: str) -> bool:
    """Most letters lower case: capitals then carry meaning (not an ALL-CAPS note)."""
    letters = [c for c in text[:5000] if c.isalpha()]
    return bool(letters) and sum(c.islower() for c in letters) >= 0.6 * len(letters)


def _starts_sentence(text: str, start: int) -> bool:
    k = start - 1
    while k >= 0 and text[k] in " \t\"'(":
        k -= 1
    return k < 0 or text[k] in ".!?:;\n-*#>" or text[k].isdigit()


def _extend_name(text: str, units: Sequence[_Unit], i: int, j: int,
                 stop: frozenset[str]) -> list[tuple[int, int]]:
    """A name hit's bounds with a glued hyphenated part, and an initial next
    to it as a piece of its own (its full stop is left out, as annotators do)."""
    line = units[i].line

    def joins(u: _Unit, gap: str) -> bool:
        return u.alpha and u.line == line and gap == "-" and u.norm not in stop

    while i > 0 and joins(units[i - 1], text[units[i - 1].end:units[i].start]):
        i -= 1
    while j < len(units) and joins(units[j], text[units[j - 1].end:units[j].start]):
        j += 1
    start, end = units[i].start, units[j - 1].end
    pieces = [(start, end)]
    if i > 0 and _is_initial(units[i - 1], line, text):
        gap = text[units[i - 1].end:start]
        if re.fullmatch(r"\.[ \t]*", gap) or (re.fullmatch(r"[ \t]+", gap)
                                              and _bare_initial(text, units[i - 1])):
            pieces.append((units[i - 1].start, units[i - 1].end))
    k = j + 1 if j < len(units) and units[j].norm == "," else j      # "SMITH, J."
    if k < len(units) and _is_initial(units[k], line, text):
        gap = text[end:units[k].start]
        after = text[units[k].end:units[k].end + 1]
        if re.fullmatch(r"[ \t]*,?[ \t]*", gap) and gap and not after.isalnum() \
                and (after == "." or _bare_initial(text, units[k])):
            pieces.append((units[k].start, units[k].end))
    return pieces


def _is_initial(unit: _Unit, line: int, text: str) -> bool:
    """A lone letter on the line that is no letter of a dotted credential
    ("SAARINEN, R.N.", "M.D. LOWE": no initial of the name)."""
    return (unit.alpha and unit.end - unit.start == 1 and unit.line == line
            and not _DOTTED_AFTER.match(text, unit.end)
            and not _DOTTED_BEFORE.search(text, 0, unit.start))


_DOTTED_AFTER = re.compile(r"\.[A-Za-z]\.")
_DOTTED_BEFORE = re.compile(r"(?<![A-Za-z])[A-Za-z]\.$")


def _bare_initial(text: str, unit: _Unit) -> bool:
    ch = text[unit.start]
    return ch.isupper() and ch not in "AI"


def _find_codes(text: str, units: Sequence[_Unit], codes: dict[str, str],
                longest: int) -> list[ListHit]:
    """Record numbers and phones: the same letters and digits, any separators."""
    alnum = [u for u in units if u.norm.isalnum()]
    out = []
    for a, first in enumerate(alnum):
        if a > 0 and alnum[a - 1].end == first.start:
            continue            # must start on a word boundary
        acc = ""
        best = None
        for b in range(a, len(alnum)):
            u = alnum[b]
            if b > a and (u.line != first.line
                          or not _GAP_CODE.fullmatch(text, alnum[b - 1].end, u.start)):
                break
            acc += _code(text[u.start:u.end])
            if len(acc) > longest:
                break
            glued = b + 1 < len(alnum) and alnum[b + 1].start == u.end
            if acc in codes and not glued:
                best = ListHit(first.start, u.end, codes[acc])
        if best is not None:
            out.append(best)
    return out


def _no_overlap(hits: list[ListHit]) -> list[ListHit]:
    """Overlapping hits as one (recall first), with the category of the longest."""
    out: list[ListHit] = []
    for h in sorted(hits, key=lambda h: (h.start, -(h.end - h.start))):
        if out and h.start < out[-1].end:
            last = out[-1]
            if h.end > last.end:
                category = last.category if last.end - last.start >= h.end - h.start else h.category
                out[-1] = ListHit(last.start, h.end, category)
            continue
        out.append(h)
    return out


def _merge(text: str, hits: list[ListHit]) -> list[ListHit]:
    """Adjacent hits of one category (names: also across a comma) as one span."""
    out: list[ListHit] = []
    for h in hits:
        if out:
            last = out[-1]
            person = last.category in PERSON and h.category in PERSON
            gap = _GAP_PERSON if person else _GAP_MERGE
            if (person or last.category == h.category) and "\n" not in text[last.end:h.start] \
                    and gap.fullmatch(text, last.end, h.start):
                out[-1] = ListHit(last.start, h.end,
                                  last.category if last.category == "patient_name" else h.category)
                continue
        out.append(h)
    return out
