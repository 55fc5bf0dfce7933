"""The guaranteed floor: every list hit ends up inside the output.

Applied after the model and its finishing steps (app.services.predictor,
app.services.evaluating), so annotate, redact, the suggestions and
evaluate all see it.

Besides the hospital lists, an English project's floor holds the shapes
that identify in ward notes whatever a model learned (`Floor`): pager and
ten-digit phone numbers ("Pager #12345", "212- 476- 8356"), ages over 89
("98 YO"), years written with an apostrophe ("CABG '92",
"REPAIR IN 14'"), alone from 1960 to 1999 ("MI 1992") or in a past
history's items ("PMHX CVA IN 94 AND 00"),
dates with a month's name ("may 16", "MARCH OF 1993") or in numbers with
their year ("9/2/92"), as a range ("10/15-10/16") or yearless ("ON
2/14", not "ON 5/5, 40%"), names after a
title ("DR. PRICE", "MRS. POWERS"), before a credential ("J. Yi, MD",
"okafor rrt") or after a relation ("SON TOBIAS", "wife, iris, called"),
the listed places where someone lives ("lives in glendale") or written
after "in/to/from/of" ("in Tucson", "TO ST. AGNES"), and hospitals and
named wards by their context ("FROM GREEN VALLEY HOSPITAL", "TRANSFER TO
FELDMAN 2", "went to Lakeview"). A name, found by the model or the floor,
takes its initials and the names joined to it by "and" ("J SMITH",
"ODALYS AND KWAME"). A project's own notes may never show one (none of
the PhysioNet training notes has a pager number, two have such a year),
so no model or learned step can be asked to find them; on the PhysioNet
dev patients they were 20 of the 43 identifier tokens a CRF with the
lists still missed.
"""
from __future__ import annotations

import bisect
from dataclasses import replace
from typing import Collection, Mapping, Sequence

from app.core.spans import Ranges, Span
from app.rules.registry import shipped_pattern

from .matcher import ListHit, ListMatcher

#: The fixed steps of an English project's floor (`Floor.settle`), by their
#: registered names, in the order they run: the vetoes, the identifying
#: shapes of ward notes, the completion of names, the punctuation cuts. A
#: trained run keeps each only where its own dev agrees
#: (app.services.finishing.fit_fixed_steps); the hospital lists' hits are
#: no step: they are always in the output.
VETOES = "vetoes.v1"
SHAPES = "english-floor.v1"
NAME_COMPLETION = "name-completion.v1"
PUNCTUATION_CUTS = "punctuation-cuts.v1"
FIXED_STEPS = (VETOES, SHAPES, NAME_COMPLETION, PUNCTUATION_CUTS)


class Floor:
    """What is always replaced: the hospital lists' hits (``lists``, may be
    None) and, with ``shapes``, the identifying shapes of ward notes.

    ``find(text, patient_id)`` has the signature of `ListMatcher.find`; a
    shape inside a list hit is left to the list (the floor with lists covers
    every character the floor without them does). ``settle`` is the
    last step of every prediction: with ``shapes``, the model's spans that
    cannot be what their label says are dropped (`veto`), then the floor
    is applied.
    """

    def __init__(self, lists: ListMatcher | None, *, shapes: bool, rules=None) -> None:
        from app.rules.registry import project_rules

        self.lists = lists
        self.shapes = shapes
        # The named rules (app.rules.registry.RuleSet): the shipped ones by default.
        self.rules = project_rules(None) if rules is None and shapes else rules
        self._recent: dict[tuple, list[ListHit]] = {}
        # The rules the project added: their hits label what they cover (`settle`).
        self._site_rules = frozenset(r.name for r in self.rules.rules if r.site) \
            if self.rules is not None else frozenset()

    def find(self, text: str, patient_id: str | None = None) -> list[ListHit]:
        return self._with_shapes(text, self._listed(text, patient_id))

    def steps(self, kept: Collection[str] | None) -> tuple[str, ...]:
        """The fixed steps that run: ``kept`` (a run's, in `FIXED_STEPS`
        order), every one when ``kept`` is None (day one: the shipped
        defaults), none without the shapes (not an English project)."""
        if not self.shapes:
            return ()
        return FIXED_STEPS if kept is None else tuple(s for s in FIXED_STEPS if s in kept)

    def _listed(self, text: str, patient_id: str | None) -> list[ListHit]:
        return self.lists.find(text, patient_id) if self.lists is not None else []

    def _with_shapes(self, text: str, hits: list[ListHit]) -> list[ListHit]:
        if not self.shapes:
            return hits
        taken = [(h.start, h.end) for h in hits]
        extra = [ListHit(a, b, rule.kind, rule.name)
                 for rule, find in self.rules.finders(SHAPES) for a, b in find(text)]
        # A name the shapes found stops where a name does ("DR. OKONJO [AWARE-ORDER]");
        # a country is no identifier ("CALLED FROM BERMUDA"), nor a clinical
        # abbreviation ("CON'T REHAB", "pump for dopa, her mother").
        # (The vetoes of these ideas switch them off here too.)
        from app.rules.vetoes import clinical_abbreviation, country, name_part
        off = self.rules.off()
        abbreviations = "clinical-abbreviation" not in off
        countries = "ordinary-words" not in off
        parts = "name-part" not in off
        extra = [ListHit(*name_part(text, h.start, h.end), h.category, h.rule)
                 if parts and h.category in ("staff_name", "patient_name") else h for h in extra
                 if not (countries and h.category in ("place", "hospital")
                         and country(text, h.start, h.end))
                 and not (abbreviations and h.category in _WORDED_HITS
                          and clinical_abbreviation(text, h.start, h.end))]
        # A shape inside a list hit is left to the list; one reaching beyond it
        # is kept, so adding a list never uncovers a word the shapes covered.
        # Dropping every shape a list hit touched left, on the five PhysioNet
        # folds, a first name before a listed surname, a surname after a
        # listed first name and the "'s" of a listed place visible where the
        # same CRF member without the lists hid them. Where both cover a word
        # the list's label wins (`take_listed_labels`).
        extra = [h for h in extra if not any(a <= h.start and h.end <= b for a, b in taken)]
        return sorted(hits + extra, key=lambda h: (h.start, h.end))

    def settle(self, text: str, spans: Sequence[Span], labels: Mapping[str, str],
               patient_id: str | None = None, steps: Collection[str] | None = None,
               removed: list | None = None) -> list[Span]:
        """A note's predicted ``spans`` as the output holds them: vetoed,
        then with every floor hit covered, names completed and cut around
        their punctuation (the fixed steps of ``steps``: see `steps`; the
        rules switched off for the project skipped). A span the floor made
        names its rule (``Span.origin``); ``removed`` receives ``(span,
        rule)`` for each span vetoed.
        ``labels``: the project label of each hit category (`label_map`)."""
        run = self.steps(steps)
        off = self.rules.off() if self.rules is not None else frozenset()
        if VETOES in run:
            spans = veto(text, spans, labels, off=off, removed=removed)
        listed = self._listed(text, patient_id)
        hits = self._shape_hits(text, listed) if SHAPES in run else listed
        spans = apply_floor(spans, floor_spans(hits, labels), text)
        site = [h for h in hits if h.rule in self._site_rules]
        spans = take_listed_labels(spans, floor_spans(listed + site, labels))
        if NAME_COMPLETION in run and "initials-and-joined-names" not in off:
            spans = complete_names(text, spans, labels)
        if PUNCTUATION_CUTS in run and "punctuation-cuts" not in off:
            spans = without_punctuation(text, spans, labels)
        return spans

    def _shape_hits(self, text: str, listed: list[ListHit]) -> list[ListHit]:
        """`_with_shapes`, remembered for the last notes: the selection
        settles each dev note once per candidate and step, and the shapes
        do not depend on the spans."""
        key = (text, tuple(listed))
        hits = self._recent.get(key)
        if hits is None:
            if len(self._recent) >= _RECENT_NOTES:
                self._recent.clear()
            hits = self._recent[key] = self._with_shapes(text, listed)
        return list(hits)


# The hit categories of names and places (a clinical abbreviation is neither).
_WORDED_HITS = ("staff_name", "patient_name", "place", "hospital", "ward")


# How many notes' shape hits a floor remembers (`Floor._shape_hits`).
_RECENT_NOTES = 4096


def veto(text: str, spans: Sequence[Span], labels: Mapping[str, str], *,
         off: Collection[str] = frozenset(), removed: list | None = None) -> list[Span]:
    """``spans`` less what cannot be the identifier its label says
    (`app.rules.vetoes`): dates no calendar holds (a date cut to the part
    that can be one), phone numbers that are measurements, names and places
    made only of common words with nothing around them that makes them one,
    names of a device or a sign ("DOUGLAS POUCH"), parts of a country's name
    ("Puerto [Rico]"), places in lower case
    after "in" that no list holds ("in extremeities"), names in lower case
    with nothing around them that makes them names ("+ boel sounds"),
    letters of an abbreviation ("[C].O. remains"); a place loses the kind
    words that end it ("HOLY CROSS [HOSPITAL]"), a name what no name holds
    ("OKONJO [AWARE-ORDER]").
    ``labels``: the project label of each hit category (`label_map`), which
    says which labels are dates, phones, names and places; ``off``: the
    names of the vetoes switched off (`app.rules.registry`); ``removed``
    receives ``(span, "vetoes.v1: RULE")`` for each span dropped."""
    from app.rules.vetoes import (abbreviation_letter, clinical_abbreviation, country_part,
                                  date_part, eponym, glued_letter,
                                  implausible_phone, lone_lower_case_name, name_part,
                                  ordinary_words, place_name_part, unlisted_lower_place)

    # A date of birth is a date: what no calendar holds is no DOB either.
    dates = {labels.get("date"), labels.get("dob")} - {None}
    phone = labels.get("phone")
    names = {labels.get("patient_name"), labels.get("staff_name")} - {None}
    places = {labels.get(c) for c in ("place", "hospital", "ward")} - {None} - names
    out = []
    for s in spans:
        reason, part = None, (s.start, s.end)
        if s.label in dates:
            if "not-a-date" not in off:
                part = date_part(text, s.start, s.end)
                reason = "not-a-date" if part is None else None
        elif s.label == phone:
            if "measurement-phone" not in off and implausible_phone(text, s.start, s.end):
                reason = "measurement-phone"
        elif s.label in names | places:
            place, a, b = s.label in places, s.start, s.end
            checks = (("ordinary-words", lambda: ordinary_words(text, a, b, place=place)),
                      ("clinical-abbreviation", lambda: clinical_abbreviation(text, a, b)),
                      ("eponym", lambda: eponym(text, b, a)),
                      ("country-part", lambda: country_part(text, a, b)),
                      ("unlisted-lower-place", lambda: place and unlisted_lower_place(text, a, b)),
                      ("lone-lower-case-name",
                       lambda: not place and lone_lower_case_name(text, a, b, spans)),
                      ("abbreviation-letter", lambda: not place and abbreviation_letter(text, a, b)),
                      ("glued-letter", lambda: not place and glued_letter(text, a, b)))
            reason = next((name for name, check in checks if name not in off and check()), None)
            if reason is None and "name-part" not in off:
                part = (place_name_part if place else name_part)(text, a, b)
        if reason is not None:
            if removed is not None:
                removed.append((s, f"{VETOES}: {reason}"))
            continue
        out.append(s if part == (s.start, s.end) else replace(s, start=part[0], end=part[1]))
    return out


def complete_names(text: str, spans: Sequence[Span], labels: Mapping[str, str]) -> list[Span]:
    """``spans`` with each name widened to the initials right before it
    ("J SMITH", "ANTACID-K. OYELARAN": `app.rules.nursing_names.initial_before`)
    and the names joined to it by "and" added ("ODALYS AND KWAME":
    `app.rules.nursing_names.names_beside`), where no other span holds them.
    ``labels``: as for `veto`."""
    from app.rules.nursing_names import initial_before, names_beside

    names = {labels.get("patient_name"), labels.get("staff_name")} - {None}
    out = list(spans)
    taken = Ranges(out)
    for i, s in enumerate(spans):
        if s.label not in names:
            continue
        start = initial_before(text, s.start)
        if start is not None and not taken.meets(start, s.start):
            taken.remove(s.start, s.end)
            taken.add(start, s.end)
            out[i] = s = replace(s, start=start)
        for a, b in names_beside(text, s.start, s.end):
            if not taken.meets(a, b):
                taken.add(a, b)
                out.append(Span(a, b, s.label, s.confidence,
                                f"{NAME_COMPLETION}: initials-and-joined-names"))
    return sorted(out, key=lambda s: (s.start, s.end))


# The stop after a lone letter inside a name: "E. WELSH", "DAN A. BRANDVOLD".
_INITIAL_STOP_RE = shipped_pattern("punctuation-cuts", "initial-stop")


def without_punctuation(text: str, spans: Sequence[Span], labels: Mapping[str, str]) -> list[Span]:
    """``spans`` cut around the punctuation that is no part of what they
    hide, as the annotators of ward notes leave it out: the stops of a
    name's initials ("E. WELSH" -> "E", "WELSH"; "K.T. WALKER" -> "K", "T",
    "WALKER": on the PhysioNet training notes 1 of the 24 stops after an
    annotated initial is inside the name, and the folds' outputs held 18).
    A name loses its possessive ("DR. WHITE['S] ORDER": no annotated name
    holds one), but for a saint's ("ST. MARY'S", a place a model may call
    a name). A phone number loses the words in it ("555-010-6286 [OFFICE]
    555-010-4517"; "x45" stays); an e-mail or web address under the same
    label (a HIPAA project's CONTACT) keeps them: they are what it hides.
    (Not the commas of a date, "MAY 16[,] 2015": 6 between two annotated
    dates, but 1 inside one, and a missed comma leaks its note.)
    ``labels``: as for `veto`."""
    names = {labels.get("patient_name"), labels.get("staff_name")} - {None}
    phone = labels.get("phone")
    out = []
    for s in spans:
        cuts: list[int] = []
        if s.label in names:
            cuts = [m.start(1) for m in _INITIAL_STOP_RE.finditer(text, s.start, s.end)]
            if (m := _POSSESSIVE_RE.search(text, s.start, s.end)) and m.end() == s.end \
                    and not _SAINT_BEFORE_RE.search(text, max(0, m.start() - 30), m.start()):
                cuts += range(m.start(), m.end())
        elif s.label == phone and not _ADDRESS_IN_CONTACT_RE.search(text, s.start, s.end):
            cuts = [i for m in _WORD_IN_PHONE_RE.finditer(text, s.start, s.end)
                    for i in range(m.start(), m.end())]
        out += cut_out(text, s, cuts)
    return out


_POSSESSIVE_RE = shipped_pattern("punctuation-cuts", "possessive")
_SAINT_BEFORE_RE = shipped_pattern("punctuation-cuts", "saint-before")
_WORD_IN_PHONE_RE = shipped_pattern("punctuation-cuts", "word-in-phone")
_ADDRESS_IN_CONTACT_RE = shipped_pattern("punctuation-cuts", "address-in-contact")


def cut_out(text: str, span: Span, cuts: Sequence[int]) -> list[Span]:
    """``span`` without the characters at ``cuts`` (offsets inside it): the
    pieces around them, stripped of spaces, with its label."""
    if not cuts:
        return [span]
    out, start = [], span.start
    for cut in cuts + [span.end]:
        piece = text[start:cut]
        if piece.strip():
            a = start + len(piece) - len(piece.lstrip())
            out.append(replace(span, start=a, end=a + len(piece.strip())))
        start = cut + 1
    return out


def floor_spans(hits: Sequence[ListHit], labels: Mapping[str, str]) -> list[Span]:
    """List hits as spans with the project's labels (categories without a label dropped)."""
    return [Span(h.start, h.end, labels[h.category], 1.0,
                 f"{SHAPES}: {h.rule}" if h.rule else LISTED)
            for h in hits if h.category in labels]


#: The origin of a span a hospital list's entry made.
LISTED = "hospital lists"
#: Between a span's origin and that of a find it was widened over
#: (``"crf-balanced, widened by hospital lists"``).
WIDENED = ", widened by "
#: Between a span's origin and that of the list entry or site rule whose
#: label it took (``"starter, labelled by english-floor.v1: daughter-id"``).
LABELLED = ", labelled by "


def take_listed_labels(spans: Sequence[Span], listed: Sequence[Span]) -> list[Span]:
    """``spans`` with each one inside a hospital list's hit labelled as the
    list says: a listed place the model called a name is a place (else its
    surrogate would be a person's name). Only the lists and the site's own
    rules (``listed`` holds both): they are the hospital's word on what an
    entry is ("KH-" and seven digits is our record number, not a phone),
    where the shipped shapes are guesses from context; a span reaching
    beyond the hit keeps its label."""
    out = []
    for s in spans:
        inside = [f for f in listed if f.start <= s.start and s.end <= f.end]
        if inside and s.label != inside[0].label:
            # Its finder stays named, and what gave the label is named after it.
            s = replace(s, label=inside[0].label,
                        origin=f"{s.origin or 'model'}{LABELLED}{inside[0].origin or LISTED}")
        out.append(s)
    return out


def apply_floor(spans: Sequence[Span], floor: Sequence[Span],
                text: str | None = None) -> list[Span]:
    """``spans`` with every character of every ``floor`` span covered.

    A floor span overlapping no predicted span is added; one that a
    predicted span only partly covers widens the spans it overlaps into one
    span, with the label of the first of them (the model's label wins where
    it found something, the list's extent where it found more). With the
    note's ``text``, the spaces between predicted spans count as covered:
    a model that found "NADIA" and "OKONJO" keeps its two spans under a
    floor hit "NADIA OKONJO".
    """
    out = sorted(spans, key=lambda s: (s.start, s.end))
    keys = [(s.start, s.end) for s in out]
    # Linear in the note, not quadratic (every floor hit compared with every
    # span, and the spans sorted again after each: a 400 kB note spent most
    # of its suggestions here): the spans stay sorted, and those meeting a
    # floor hit are found by bisection, none being longer than ``longest``.
    longest = max((s.end - s.start for s in out), default=0)

    def insert(span: Span) -> None:
        k = bisect.bisect_right(keys, (span.start, span.end))
        keys.insert(k, (span.start, span.end))
        out.insert(k, span)

    for f in floor:
        lo = bisect.bisect_left(keys, (f.start - longest + 1,))
        hi = bisect.bisect_left(keys, (f.end,))
        idx = [j for j in range(lo, hi) if out[j].end > f.start]
        hit = [out[j] for j in idx]
        if not hit:
            insert(f)
            longest = max(longest, f.end - f.start)
            continue
        covered = f.start
        for s in hit:
            if s.start > covered and (text is None or text[covered:s.start].strip()):
                break
            covered = max(covered, s.end)
        if covered >= f.end:
            continue
        merged = Span(min(f.start, hit[0].start), max(f.end, hit[-1].end), hit[0].label,
                      hit[0].confidence, f"{hit[0].origin or 'model'}{WIDENED}{f.origin}")
        for j in reversed(idx):
            del out[j], keys[j]
        insert(merged)
        longest = max(longest, merged.end - merged.start)
    return out
