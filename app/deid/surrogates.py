"""Realistic surrogates ("hiding in plain sight"), consistent per patient.

``Surrogator.surrogate(original, label, patient_key)`` dispatches on the
label's surrogate kind (``Policy.kind_for``). Every choice is drawn from an
HMAC of the project secret, the patient key, a context (label, kind or
name role) and the normalised original, so the same identifier of the same
patient always gets the same surrogate, in any process and on any re-run,
while other patients get independent draws.

Consistency layers, outermost first:

1. the ``SurrogateMemory`` is asked for the exact span (label + original),
   so an assignment a user edited or an earlier run made is reused;
2. names and place names are replaced *part by part* (first name, surname,
   initial, street, city, ...) through the memory, so "John" alone and the
   "John" of "John Smith" agree;
3. collisions are checked per patient (two originals never share one
   surrogate; a surrogate never equals one of the patient's own originals,
   nor shares its initial or is a form of it for a name) and against the
   project's known identifiers; a collision re-draws with the next attempt
   number. Nothing is checked across patients: two patients may draw the
   same surname, as two real ones may share one, and a patient's
   surrogates stay the same whatever order or process the notes are done in.

Dates use one per-patient offset (stored in the memory under the pseudo
label ``__date_offset__`` so later exports of the same patient keep the
intervals even if the policy's range changed).
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

from app.deid import places
from app.deid.dates import calendar_word, fit_ordinals, shift_date, shift_names
from app.deid.keyed import KeyedDraw
from app.deid.memory import SurrogateMemory, as_memory
from app.deid.names import name_surrogate
from app.deid.policy import WORDED_KINDS, Policy, day_first_locale
from app.deid.pools import (city_suffixes, countries, first_names, fold, is_generic_place_word,
                            is_spanish, last_names, pool_locale, seeded_faker, states)
from app.deid.shapes import generic_surrogate, id_surrogate, ip_surrogate, phone_surrogate

DATE_OFFSET_LABEL = "__date_offset__"
_MAX_ATTEMPTS = 24
_WORD_RE = re.compile(r"[^\W\d_]+")
_NUMBER_RE = re.compile(r"\d+")
_AGE_WORDS_OLD = re.compile(r"\b(ninety|hundred|noventa|cien|ciento)", re.I)
#: A number of months, weeks, days or hours (the number, then its unit word).
_NON_YEAR_NUMBER = re.compile(
    r"(\d+)(?=\s*-?\s*(?:mes|meses|months?|mos?|semanas?|weeks?|wks?|d[ií]as?|days?|hours?"
    r"|horas?|hrs?)\b)", re.I)
#: A number spelled out in a date ("Twenty-third of May").
_SPELLED_NUMBER = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|first|second|third|fourth"
    r"|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth"
    r"|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth)\b", re.I)
_PHONE_LIKE = re.compile(r"^\+?[\d\s().\-/]{7,}$")
#: Kinds whose surrogate keeps the original's generic words ("Hospital",
#: "Street") and no other word of it.
_PLACE_KINDS = frozenset({"address", "location", "hospital", "organisation"})
_CAPITALISED = re.compile(r"^[^\W\d_][^\W\d_'’.\-]*(?:[\s\-][^\W\d_][^\W\d_'’.\-]*)*$")


def _norm(text: str) -> str:
    """Normalised original for seeding: folded, whitespace collapsed."""
    return " ".join(fold(text).split())


class Surrogator:
    """Draws surrogates for one project (secret, policy, memory).

    Parameters
    ----------
    policy
        Supplies label -> kind, age rule, date settings and locale.
    secret
        The per-project secret (``str`` or ``bytes``, must not be empty).
    memory
        A ``SurrogateMemory`` (or a store with ``surrogate_get``/``surrogate_put``);
        ``None`` keeps assignments for the lifetime of this object only.
    locale
        Overrides ``policy.locale`` for the pools and the date order.
    known
        The project's known identifiers (``app.deid.rescan.KnownIdentifiers``):
        a surrogate that would recreate one (a real name of another patient,
        a listed clinician, a real number) is drawn again.
    """

    def __init__(self, policy: Policy, secret: str | bytes, memory: object = None,
                 locale: str | None = None, known: object = None) -> None:
        if not secret:
            raise ValueError("a non-empty project secret is required for surrogates")
        self.policy = policy
        self.secret = secret
        self.memory: SurrogateMemory = as_memory(memory)
        self.locale = pool_locale(locale or policy.locale)
        self.spanish = is_spanish(self.locale)
        self.day_first = (policy.day_first if policy.date_order or not locale
                          else day_first_locale(locale))
        self._offsets: dict[str, int] = {}
        # Per patient: folded words of its originals (a surrogate must not reuse them).
        self._known_words: dict[str, set[str]] = defaultdict(set)
        # Per (patient, context): folded surrogate -> folded original.
        self._assigned: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
        # No state across patients: a patient's surrogates depend only on its
        # own notes, the memory and the project's known identifiers, so a
        # resumed run, the preview and an export agree whatever the order.
        self.known = known
        self._attempt = 0
        # `_real_word` answers by drawn word, while ``known`` stays the same
        # (its ``version``): a re-draw meets the same pool words again and again.
        self._real: dict[str, bool] = {}
        self._real_version: int | None = None

    # ------------------------------------------------------------------ api
    def register(self, patient_key: str, originals: Iterable[str]) -> None:
        """Tell the collision check about identifiers of a patient before
        drawing surrogates for them (the whole note's spans, say)."""
        words = self._known_words[patient_key]
        for text in originals:
            words.update(fold(w) for w in _WORD_RE.findall(text) if len(w) >= 3)

    def date_offset(self, patient_key: str) -> int:
        """The patient's date shift in days (never 0 when the policy's minimum >= 1)."""
        if patient_key in self._offsets:
            return self._offsets[patient_key]
        stored = self.memory.get(patient_key, DATE_OFFSET_LABEL, "")
        offset = None
        if stored is not None:
            try:
                offset = int(stored)
            except ValueError:
                offset = None
        if offset is not None and self._keeps_the_day(offset):
            # Drawn under the range before it was 14-351 days (364 kept "9/13"
            # as "9/12"): drawn again, the earlier exports' intervals lost
            # rather than the day kept.
            offset = None
        if offset is None:
            lo, hi = self.policy.date_shift_days
            draw = KeyedDraw(self.secret, "date-offset", patient_key)
            offset = draw.between(lo, hi) * (1 if draw.below(2) else -1)
            self.memory.put(patient_key, DATE_OFFSET_LABEL, "", str(offset))
        self._offsets[patient_key] = offset
        return offset

    def _keeps_the_day(self, offset: int) -> bool:
        """Whether a shift leaves the day of the year within the policy's
        smallest shift (two weeks at most) of where it was."""
        days = abs(offset) % 365
        return min(days, 365 - days) < min(self.policy.date_shift_days[0], 14)

    def surrogate(self, original: str, label: str, patient_key: str, *,
                  day_first: bool | None = None, year: int | None = None) -> str:
        """A surrogate for ``original`` (a span labelled ``label``).

        ``day_first`` is the note's date order (``None``: the project's);
        ``year`` the year its whole dates are written in
        (`app.deid.dates.note_year`), that a date without one is shifted in.
        """
        kind = self.policy.kind_for(label)
        if kind in ("keep", "sex"):
            # Sex is kept: name surrogates keep the gender, so it stays coherent.
            return original
        if kind == "age":
            return self._age(original)
        if kind == "date":
            return self._date(original, label, patient_key,
                              self.day_first if day_first is None else day_first, year)
        # A remembered surrogate is checked again: the lists may have grown
        # since, and one drawn by older rules may keep a word of the name.
        hit = self.memory.get(patient_key, label, original)
        if hit is not None and not self._unsafe(hit, original, kind):
            return hit
        for attempt in range(_MAX_ATTEMPTS):
            self._attempt = attempt
            try:
                result = self._make(kind, original, label, patient_key)
            finally:
                self._attempt = 0
            if not self._unsafe(result, original, kind) or fold(result) == fold(original):
                break
        self.memory.put(patient_key, label, original, result)
        return result

    # ------------------------------------------------------------ dispatch
    def _make(self, kind: str, original: str, label: str, patient: str) -> str:
        shape = self._shape_fn(patient, label)
        run = self._run_fn(patient)
        if kind == "auto":
            kind = self._guess_kind(original)
            if kind == "date":
                return self._date(original, label, patient, self.day_first)
            if kind == "age":
                return self._age(original)
            if kind == "keep_words":
                return original  # lower-case mentions ("su madre") name nobody
        if kind == "contact":
            kind = ("email" if places.looks_like_email(original) else
                    "url" if places.looks_like_url(original) else "phone")
        if kind == "name":
            if not any(len(w) >= 2 or w.isupper() for w in _WORD_RE.findall(original)):
                # No word a name part could stand for: a record number a model
                # called a name ("MRN: 7712739" tagged NAME) came out as it was.
                return generic_surrogate(original, self._draw(patient, label, original,
                                                              "generic"))
            out = name_surrogate(original, self._name_part_fn(patient),
                                 self._lone_role_fn(patient))
            # A name part stands for a word; the digits beside it ("MRN 7712739"
            # tagged whole) are an identifier's too.
            return self._digits_only(out, patient, label) if any(c.isdigit() for c in out) \
                else out
        if kind == "phone" and not any(c.isdigit() for c in original):
            # No digit to replace: a word a model called a phone ("Smith"
            # tagged CONTACT) would come out as it was.
            return generic_surrogate(original, self._draw(patient, label, original, "generic"))
        if kind == "phone":
            return phone_surrogate(original, self._draw(patient, label, _alnum(original), "phone"))
        if kind == "id":
            return id_surrogate(original, self._draw(patient, label, _alnum(original), "id"))
        if kind == "address":
            if places.looks_like_email(original):
                return places.email_surrogate(original, run, shape)
            return places.address_surrogate(original, run, shape, self._listed(original))
        if kind == "location":
            return places.location_surrogate(original, run, shape, self._listed(original))
        if kind == "postcode":
            return places.postcode_surrogate(original, shape)
        if kind == "country":
            return places.country_surrogate(original, run)
        if kind in ("hospital", "organisation"):
            return places.organisation_surrogate(original, run, shape, self._listed(original))
        if kind == "email":
            return places.email_surrogate(original, run, shape)
        if kind == "url":
            return places.url_surrogate(original, run, shape, self._ip_fn(patient, label))
        if kind == "profession":
            return self._profession(original, patient)
        if kind == "digits":
            return self._digits_only(original, patient, label)
        return generic_surrogate(original, self._draw(patient, label, original, "generic"))

    def _guess_kind(self, text: str) -> str:
        """Kind for labels mixing forms (MEDDOCAN's relatives, say)."""
        t = text.strip()
        if places.looks_like_email(t):
            return "email"
        if places.looks_like_url(t):
            return "url"
        if _PHONE_LIKE.match(t) and sum(c.isdigit() for c in t) >= 7:
            return "phone"
        if any(c.isdigit() for c in t):
            if shift_date(t, 1, day_first=self.day_first) is not None and not t.isdigit():
                return "date"
            if re.search(r"\b(años?|years?|yrs?|y/?o|meses|months?)\b", t, re.I):
                return "age"
            return "digits"
        if _CAPITALISED.match(t) and all(w[:1].isupper() for w in t.split()):
            return "name"
        return "keep_words"

    # --------------------------------------------------------------- kinds
    def _age(self, original: str) -> str:
        """Ages above the threshold become the cap text; others are kept."""
        cap, limit = self.policy.age_cap, self.policy.age_threshold
        if _AGE_WORDS_OLD.search(original):
            return cap      # ninety or more, spelled: "92 (ninety-two)" keeps no part of it
        # Each number by its own unit: "96 meses" is 8 years, "92 years and 3
        # months" is over 89 (a months word anywhere had kept the whole span).
        not_years = {m.start() for m in _NON_YEAR_NUMBER.finditer(original)}
        return _NUMBER_RE.sub(lambda m: cap if m.start() not in not_years
                              and int(m.group()) > limit else m.group(), original)

    def _date(self, original: str, label: str, patient: str, day_first: bool,
              year: int | None = None) -> str:
        spelled = _SPELLED_NUMBER.search(original) and (
            not any(c.isdigit() for c in original) or _spelled_day(original))
        if _names_words(original) or spelled:
            # A capitalised word that is no month, weekday or common word may
            # be a name (spans joined over a name, a date label on one, "O'Halloran
            # Day 1950"), or a date spelled out ("Twenty-third of May", whose
            # month alone would shift; a spelled word beside digits, "May 2019,
            # second admission", is no day): every letter and digit is
            # replaced, none kept, even beside a date that could be shifted.
            return generic_surrogate(original, self._draw(patient, label, original, "generic"))
        offset = self.date_offset(patient)
        shifted = shift_date(original, offset, day_first=day_first,
                             pivot=self.policy.two_digit_year_pivot, spanish=self.spanish,
                             year=year)
        if shifted is not None:
            return shifted
        # Read not whole: every digit replaced, every month and weekday name moved.
        out = shift_names(self._digits_only(original, patient, label), offset)
        if out == original and _WORD_RE.search(original):
            # Nothing replaced: a holiday ("Thanksgiving", "New Year's Day") is a day.
            return generic_surrogate(original, self._draw(patient, label, original, "generic"))
        return out

    def _digits_only(self, original: str, patient: str, label: str) -> str:
        """Unreadable dates and mixed mentions: digits replaced, the rest kept."""
        draw = self._draw(patient, label, original, "digits")
        # An ordinal's suffix follows its new number ("3rd" -> "7th", not "7rd"):
        # a suffix that does not fit its number shows the digits were replaced.
        return fit_ordinals("".join(draw.digit() if c.isdigit() else c for c in original))

    def _profession(self, original: str, patient: str) -> str:
        for attempt in range(_MAX_ATTEMPTS):
            draw = KeyedDraw(self.secret, "profession", patient, _norm(original), str(attempt))
            cand = seeded_faker(self.locale, draw).job()
            if fold(cand) != fold(original):
                break
        text = original.strip()
        new = cand.lower() if text[:1].islower() else cand
        return original.replace(text, new.upper() if text.isupper() and len(text) > 1 else new)

    # ------------------------------------------------------------- helpers
    def _listed(self, original: str) -> list[tuple[int, int]]:
        """Where ``original`` holds a listed name, which is replaced whole."""
        ranges = getattr(self.known, "listed_ranges", None)
        return ranges(original) if callable(ranges) else []

    def _unsafe(self, surrogate: str, original: str, kind: str) -> bool:
        """Whether ``surrogate`` must not stand for ``original``: it is a known
        identifier, one of its words is a known identifier's word (case-blind;
        the generic words it keeps from the original aside), or, for a place,
        it keeps a word of the original that is not on the closed generic list
        (``app.deid.pools.is_generic_place_word``)."""
        if self._recreates(surrogate):
            return True
        if kind not in WORDED_KINDS:
            return False
        mine = {fold(w): is_generic_place_word(w) for w in _WORD_RE.findall(original)}
        drawn = [w for w in _WORD_RE.findall(surrogate) if not mine.get(fold(w))]
        if self.known is not None and any(self._known_word(w) for w in drawn):
            return True
        return kind in _PLACE_KINDS and any(fold(w) in mine for w in drawn)

    def _known_word(self, word: str) -> bool:
        """A known identifier's word, alone or as the stem of a made-up town
        ("Josephburgh" when "St. Joseph" is listed)."""
        if self.known.is_known_word(word):
            return True
        key = fold(word)
        stem = next((key[:-len(s)] for s in city_suffixes()
                     if key.endswith(s) and len(key) - len(s) >= 3), None)
        return stem is not None and self.known.is_known_word(stem)

    def _real_word(self, surrogate: str) -> bool:
        """Whether a drawn name or place word is a known identifier's word."""
        if self.known is None:
            return False
        version = getattr(self.known, "version", None)
        if version is None or version != self._real_version:
            self._real.clear()
            self._real_version = version
        hit = self._real.get(surrogate) if version is not None else None
        if hit is None:
            hit = self._real[surrogate] = (
                self.known.is_known(surrogate)
                or any(self._known_word(w) for w in _WORD_RE.findall(surrogate)))
        return hit

    def _recreates(self, surrogate: str) -> bool:
        """Whether ``surrogate`` is a known real identifier of the project."""
        return self.known is not None and self.known.is_known(surrogate)

    def _draw(self, patient: str, label: str, original: str, context: str) -> KeyedDraw:
        if self._attempt:             # a re-draw after recreating a real identifier
            return KeyedDraw(self.secret, context, patient, label, _norm(original),
                             str(self._attempt))
        return KeyedDraw(self.secret, context, patient, label, _norm(original))

    def _shape_fn(self, patient: str, label: str):
        def shape(text: str) -> str:
            return generic_surrogate(text, self._draw(patient, label, text, "shape"))
        return shape

    def _ip_fn(self, patient: str, label: str):
        def ip(text: str) -> str:
            return ip_surrogate(text, self._draw(patient, label, text, "ip"))
        return ip

    def _pick(self, patient: str, context: str, original_key: str, candidates,
              scope: str | None = None) -> str:
        """Draw from ``candidates(draw)`` with per-patient memory and collision
        checks; ``scope`` groups contexts that must not share surrogates
        (first names and surnames of one patient)."""
        mem_label = context
        hit = self.memory.get(patient, mem_label, original_key)
        assigned = self._assigned[(patient, scope or context)]
        # A remembered name that gives its original away (drawn before the
        # initial and form checks) is drawn again, like a real one.
        if hit is not None and not self._real_word(hit) and not (
                context.startswith("name:") and _near_name(fold(hit), original_key)):
            assigned.setdefault(fold(hit), original_key)
            return hit
        known = self._known_words[patient]
        cand = None
        for attempt in range(_MAX_ATTEMPTS):
            draw = KeyedDraw(self.secret, context, patient, original_key, str(attempt))
            cand = candidates(draw)
            key = fold(cand)
            if key == original_key or any(fold(w) in known for w in _WORD_RE.findall(cand)):
                continue
            if context.startswith("name:") and _near_name(key, original_key):
                continue  # "Chris" for "Christopher", "Tricia" for "Patricia"
            if assigned.get(key, original_key) != original_key:
                continue  # another original of this patient already has it
            if self._real_word(cand):
                continue  # a real name or place of the project
            break
        else:
            # Every draw was the original, taken or real: a small pool the
            # project knows every word of (a Spanish project's provinces).
            # Keeping the last draw would write a real place of the project;
            # an invented word names no one.
            cand = _invented(KeyedDraw(self.secret, context, patient, original_key, "invented"),
                             lambda c: (assigned.get(fold(c), original_key) != original_key
                                        or fold(c) in known or self._real_word(c)))
        assigned[fold(cand)] = original_key
        self.memory.put(patient, mem_label, original_key, cand)
        return cand

    def _name_part_fn(self, patient: str):
        loc = self.locale

        def part(role: str, token: str, gender: str | None) -> str:
            if role == "initial":
                hit = self.memory.get(patient, "name:initial", token)
                if hit is not None and hit.lower() != token.lower():
                    return hit          # one remembered as itself is drawn again
                draw = KeyedDraw(self.secret, "name:initial", patient, token)
                letter = chr(ord("A") + draw.below(26))
                if letter.lower() == token:
                    letter = chr(ord("A") + (ord(letter) - ord("A") + 1) % 26)
                self.memory.put(patient, "name:initial", token, letter)
                return letter
            # One token, one surrogate within a patient, whatever role it plays
            # here ("Dr Santos" and "Dalton Santos", "Joseph" and "John Joseph"):
            # a reader must not be able to tell two people from one.
            other = self.memory.get(patient, "name:last" if role == "first" else "name:first",
                                    token)
            if other is not None and self.memory.get(patient, f"name:{role}", token) is None:
                self.memory.put(patient, f"name:{role}", token, other)
                result = other
            else:
                pool = first_names(loc, gender or "U") if role == "first" else last_names(loc)
                result = self._pick(patient, f"name:{role}", token, lambda d: d.choice(pool),
                                    scope="name")
            remembered = self.memory.get(patient, "name:initial", token[:1])
            if role == "first" and (remembered is None
                                    or remembered.lower() == token[:1].lower()):
                # "J. Smith" after "John Smith" gets the initial of John's surrogate.
                self.memory.put(patient, "name:initial", token[:1], result[:1].upper())
            return result
        return part

    def _lone_role_fn(self, patient: str):
        def lone(token: str) -> str | None:
            if self.memory.get(patient, "name:first", token) is not None:
                return "first"
            if self.memory.get(patient, "name:last", token) is not None:
                return "last"
            return None
        return lone

    def _run_fn(self, patient: str):
        loc = self.locale

        def run(category: str, text: str) -> str:
            key = _norm(text)
            if category == "street":
                pool = last_names(loc)
                return self._pick(patient, "place:street", key, lambda d: d.choice(pool))
            if category == "city":
                return self._pick(patient, "place:city", key,
                                  lambda d: seeded_faker(loc, d).city())
            if category == "org":
                pool = last_names(loc)
                if self.spanish:
                    return self._pick(patient, "place:org", key,
                                      lambda d: seeded_faker(loc, d).city())
                return self._pick(patient, "place:org", key, lambda d: d.choice(pool))
            if category == "state":
                abbr, full = states(loc)
                pool = abbr if (text.isupper() and len(text) <= 3 and abbr) else (full or abbr)
                return self._pick(patient, "place:state", key, lambda d: d.choice(pool))
            if category == "country":
                pool = countries(loc)
                return self._pick(patient, "place:country", key, lambda d: d.choice(pool))
            if category == "domain":
                return self._pick(patient, "place:domain", key,
                                  lambda d: seeded_faker(loc, d).domain_word())
            pool = last_names(loc)
            return self._pick(patient, "word", key, lambda d: d.choice(pool))
        return run


#: Common English short forms whose letters are not the full name's (a form
#: inside its name, "Tony" in "Anthony", is caught without a list).
_SHORT_FORMS = {
    "robert": "bob bobby robbie rob", "william": "bill billy will willie liam",
    "richard": "dick rick ricky rich", "margaret": "peggy maggie meg madge",
    "elizabeth": "betty bess bessie liz lizzie beth libby", "edward": "ted teddy ned ed",
    "john": "jack johnny", "james": "jim jimmy jamie", "charles": "chuck charlie",
    "henry": "hank harry", "mary": "polly molly mae", "catherine": "kate kathy cathy kitty",
    "katherine": "kate kathy kitty", "susan": "sue suzy", "patricia": "pat patty trish tricia",
    "theodore": "ted teddy theo", "alexander": "alex sandy xander", "dorothy": "dot dolly",
    "sarah": "sally sadie", "ann": "nancy annie", "anne": "nancy annie",
    "francis": "frank fran", "frances": "fran fanny", "lawrence": "larry",
    "michael": "mike mick mickey", "nicholas": "nick nicky", "thomas": "tom tommy",
    "joseph": "joe joey", "daniel": "dan danny", "samuel": "sam sammy",
    "jennifer": "jen jenny", "deborah": "deb debbie", "rebecca": "becky becca",
    "christopher": "chris kit topher", "christine": "chris tina", "steven": "steve",
    "anthony": "tony", "antonio": "tony", "raymond": "ray", "ronald": "ron ronnie",
    "donald": "don donnie", "kenneth": "ken kenny", "timothy": "tim timmy",
    "stephen": "steve", "gregory": "greg", "benjamin": "ben benny",
}
#: Each name's group: itself, its full forms and their short forms ("tony": anthony, antonio, tony).
_FORMS: dict[str, set[str]] = {}
for _full, _shorts in _SHORT_FORMS.items():
    for _name in (_full, *_shorts.split()):
        _FORMS.setdefault(_name, {_name}).update((_full, *_shorts.split()))


def _sounds(name: str) -> str:
    """A name as it sounds, roughly: "Katherine" and "Catherine", "Karl"
    and "Carl", "Kristopher" and "Christopher" read alike."""
    name = name.replace("ph", "f").replace("ch", "k").replace("ck", "k").replace("c", "k")
    name = name.replace("q", "k").replace("y", "i").replace("z", "s").replace("h", "")
    return re.sub(r"(.)\1+", r"\1", name)


def _edits(a: str, b: str) -> int:
    """Levenshtein distance (names are short)."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _near_name(drawn: str, original: str) -> bool:
    """Whether a drawn name (folded) gives its original away: the same
    initial (kept by "J. Smith" once "John" has a J name; "Chris" for
    "Christopher", "Johnston" for "Johnson"), one inside the other
    ("Tricia" for "Patricia"), a spelling of the same sound ("Kristopher",
    "Katelyn" for "Caitlin") or a common short form ("Bob" for "Robert")."""
    if drawn[:1] == original[:1]:
        return True
    shorter, longer = sorted((drawn, original), key=len)
    if len(shorter) >= 3 and shorter in longer:
        return True
    if original in _FORMS.get(drawn, ()):
        return True
    a, b = _sounds(drawn), _sounds(original)
    return a == b or (min(len(a), len(b)) >= 5 and _edits(a, b) <= 2)


def _alnum(text: str) -> str:
    """IDs are seeded by their letters and digits only: "0412 345 678" and
    "0412345678" get the same surrogate digits."""
    return "".join(c for c in text if c.isalnum()).upper()


_ONSETS = ("b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "br", "tr", "gr")
_NUCLEI = ("a", "e", "i", "o", "u", "ia", "ue")


def _invented(draw: KeyedDraw, taken) -> str:
    """A made-up, pronounceable word ("Bratuela") that ``taken`` does not
    refuse: the surrogate when every real candidate was refused."""
    for _ in range(64):
        word = "".join(draw.choice(_ONSETS) + draw.choice(_NUCLEI)
                       for _ in range(2 + draw.below(2))) + draw.choice(("", "n", "s", "r", "l"))
        word = word[0].upper() + word[1:]
        if not taken(word):
            return word
    return word + draw.digit(nonzero=True)


#: What may stand between a spelled day and its month ("twelfth of March",
#: "Twenty-third of May", "March the twelfth").
_DAY_FILLER = re.compile(r"(?:[\s\-]+(?:of|the|day|[^\W\d_]*(?:st|nd|rd|th)))*[\s\-]+", re.I)


def _spelled_day(text: str) -> bool:
    """Whether a spelled number in ``text`` is a day beside its month
    ("Born on the twelfth of March 1931" kept "twelfth" while the month
    moved); a counting word elsewhere ("May 2019, second admission") is not."""
    for m in _SPELLED_NUMBER.finditer(text):
        gap = _DAY_FILLER.match(text, m.end())
        after = re.match(r"[^\W\d_]+", text[gap.end():]) if gap else None
        before = re.search(r"([^\W\d_]+)\s+(?:the\s+)?$", text[:m.start()])
        if (after and calendar_word(after.group())) or (before and calendar_word(before[1])):
            return True
    return False


def _names_words(text: str) -> bool:
    """Whether ``text`` holds a capitalised word that is no month, weekday,
    ordinal or common word ("Christmas", "Tues" are; "Quackenbush" is not)."""
    from app.deid.folder import common_words      # here: folder imports this module
    common = common_words()
    # Letters right after digits are an ordinal's ("28TH"), not a word.
    return any(w[:1].isupper() and not calendar_word(w) and w.lower() not in common
               for w in re.findall(r"(?<!\d)[^\W\d_]+", text))
