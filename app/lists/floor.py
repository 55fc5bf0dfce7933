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
import re
from typing import Mapping, Sequence

from app.core.spans import Span

from .matcher import ListHit, ListMatcher


class Floor:
    """What is always replaced: the hospital lists' hits (``lists``, may be
    None) and, with ``shapes``, the identifying shapes of ward notes.

    ``find(text, patient_id)`` has the signature of `ListMatcher.find`; a
    shape overlapping a list hit is left to the list. ``settle`` is the
    last step of every prediction: with ``shapes``, the model's spans that
    cannot be what their label says are dropped (`veto`), then the floor
    is applied.
    """

    def __init__(self, lists: ListMatcher | None, *, shapes: bool) -> None:
        self.lists = lists
        self.shapes = shapes

    def find(self, text: str, patient_id: str | None = None) -> list[ListHit]:
        return self._with_shapes(text, self._listed(text, patient_id))

    def _listed(self, text: str, patient_id: str | None) -> list[ListHit]:
        return self.lists.find(text, patient_id) if self.lists is not None else []

    def _with_shapes(self, text: str, hits: list[ListHit]) -> list[ListHit]:
        if not self.shapes:
            return hits
        from app.rules.nursing import (find_cued_places, find_history_years, find_home_places,
                                       find_month_dates, find_moved_to_places, find_numeric_dates,
                                       find_old_ages, find_pagers, find_phones,
                                       find_reference_numbers,
                                       find_sure_care_places, find_written_years,
                                       find_yearless_dates)
        from app.rules.nursing_names import (find_contact_names, find_credentialed_names,
                                             find_initialed_names, find_relative_names,
                                             find_titled_names)

        taken = [(h.start, h.end) for h in hits]
        extra = [ListHit(a, b, "phone") for a, b in find_pagers(text) + find_phones(text)]
        extra += [ListHit(a, b, "age") for a, b in find_old_ages(text)]
        extra += [ListHit(a, b, "other") for a, b in find_reference_numbers(text)]
        extra += [ListHit(a, b, "date") for a, b in find_written_years(text)]
        extra += [ListHit(a, b, "date") for a, b in find_month_dates(text)]
        extra += [ListHit(a, b, "date") for a, b in find_history_years(text)]
        extra += [ListHit(a, b, "date") for a, b in find_numeric_dates(text)]
        extra += [ListHit(a, b, "date") for a, b in find_yearless_dates(text)]
        extra += [ListHit(a, b, "staff_name") for a, b in find_titled_names(text)]
        extra += [ListHit(a, b, "staff_name") for a, b in find_credentialed_names(text)]
        extra += [ListHit(a, b, "staff_name") for a, b in find_initialed_names(text)]
        extra += [ListHit(a, b, "patient_name") for a, b in find_relative_names(text)]
        extra += [ListHit(a, b, "patient_name") for a, b in find_contact_names(text)]
        extra += [ListHit(a, b, "place") for a, b in find_home_places(text)]
        extra += [ListHit(a, b, "hospital") for a, b in find_sure_care_places(text)]
        extra += [ListHit(a, b, "place") for a, b in find_cued_places(text)]
        extra += [ListHit(a, b, "hospital") for a, b in find_moved_to_places(text)]
        # A name the shapes found stops where a name does ("DR. OKONJO [AWARE-ORDER]");
        # a country is no identifier ("CALLED FROM BERMUDA").
        from app.rules.vetoes import country, name_part
        extra = [ListHit(*name_part(text, h.start, h.end), h.category)
                 if h.category in ("staff_name", "patient_name") else h for h in extra
                 if not (h.category in ("place", "hospital") and country(text, h.start, h.end))]
        extra = [h for h in extra if not any(a < h.end and h.start < b for a, b in taken)]
        return sorted(hits + extra, key=lambda h: (h.start, h.end))

    def settle(self, text: str, spans: Sequence[Span], labels: Mapping[str, str],
               patient_id: str | None = None) -> list[Span]:
        """A note's predicted ``spans`` as the output holds them: vetoed
        (English shapes only), then with every floor hit covered.
        ``labels``: the project label of each hit category (`label_map`)."""
        if self.shapes:
            spans = veto(text, spans, labels)
        listed = self._listed(text, patient_id)
        spans = apply_floor(spans, floor_spans(self._with_shapes(text, listed), labels), text)
        spans = take_listed_labels(spans, floor_spans(listed, labels))
        if not self.shapes:
            return spans
        return without_punctuation(text, complete_names(text, spans, labels), labels)


def veto(text: str, spans: Sequence[Span], labels: Mapping[str, str]) -> list[Span]:
    """``spans`` less what cannot be the identifier its label says
    (`app.rules.vetoes`): dates no calendar holds (a date cut to the part
    that can be one), phone numbers that are measurements, names and places
    made only of common words with nothing around them that makes them one,
    names of a device or a sign ("DOUGLAS POUCH"), places in lower case
    after "in" that no list holds ("in extremeities"), names in lower case
    with nothing around them that makes them names ("+ boel sounds"),
    letters of an abbreviation ("[C].O. remains"); a place loses the kind
    words that end it ("HOLY CROSS [HOSPITAL]"), a name what no name holds
    ("OKONJO [AWARE-ORDER]").
    ``labels``: the project label of each hit category (`label_map`), which
    says which labels are dates, phones, names and places."""
    from app.rules.vetoes import (abbreviation_letter, date_part, eponym, glued_letter,
                                  implausible_phone, lone_lower_case_name, name_part,
                                  ordinary_words, place_name_part, unlisted_lower_place)

    date, phone = labels.get("date"), labels.get("phone")
    names = {labels.get("patient_name"), labels.get("staff_name")} - {None}
    places = {labels.get(c) for c in ("place", "hospital", "ward")} - {None} - names
    out = []
    for s in spans:
        if s.label == date:
            part = date_part(text, s.start, s.end)
            if part is None:
                continue
            if part != (s.start, s.end):
                s = Span(part[0], part[1], s.label, s.confidence)
        elif s.label == phone and implausible_phone(text, s.start, s.end):
            continue
        elif s.label in names | places and ordinary_words(text, s.start, s.end,
                                                          place=s.label in places):
            continue
        elif s.label in names | places and eponym(text, s.end) \
                or s.label in places and unlisted_lower_place(text, s.start, s.end) \
                or s.label in names and (lone_lower_case_name(text, s.start, s.end, spans)
                                         or abbreviation_letter(text, s.start, s.end)
                                         or glued_letter(text, s.start, s.end)):
            continue
        elif s.label in places | names:
            part = (place_name_part if s.label in places else name_part)(text, s.start, s.end)
            if part != (s.start, s.end):
                s = Span(part[0], part[1], s.label, s.confidence)
        out.append(s)
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
    for i, s in enumerate(spans):
        if s.label not in names:
            continue
        start = initial_before(text, s.start)
        if start is not None and not any(o.start < s.start and start < o.end for o in out):
            out[i] = s = Span(start, s.end, s.label, s.confidence)
        for a, b in names_beside(text, s.start, s.end):
            if not any(o.start < b and a < o.end for o in out):
                out.append(Span(a, b, s.label, s.confidence))
    return sorted(out, key=lambda s: (s.start, s.end))


# The stop after a lone letter inside a name: "E. WELSH", "DAN A. BRANDVOLD".
_INITIAL_STOP_RE = re.compile(r"(?<![A-Za-z'\u2019])[A-Za-z](\.)")


def without_punctuation(text: str, spans: Sequence[Span], labels: Mapping[str, str]) -> list[Span]:
    """``spans`` cut around the punctuation that is no part of what they
    hide, as the annotators of ward notes leave it out: the stops of a
    name's initials ("E. WELSH" -> "E", "WELSH"; "K.T. WALKER" -> "K", "T",
    "WALKER": on the PhysioNet training notes 1 of the 24 stops after an
    annotated initial is inside the name, and the folds' outputs held 18).
    A name loses its possessive ("DR. WHITE['S] ORDER": no annotated name
    holds one), but for a saint's ("ST. MARY'S", a place a model may call
    a name). A phone number loses the words in it ("555-010-6286 [OFFICE]
    555-010-4517"; "x45" stays).
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
        elif s.label == phone:
            cuts = [i for m in _WORD_IN_PHONE_RE.finditer(text, s.start, s.end)
                    for i in range(m.start(), m.end())]
        out += cut_out(text, s, cuts)
    return out


_POSSESSIVE_RE = re.compile(r"['\u2019]s\b", re.I)
_SAINT_BEFORE_RE = re.compile(r"\b(?:st|saint)\.?[ \t]+[A-Za-z]+$", re.I)
_WORD_IN_PHONE_RE = re.compile(r"(?<![A-Za-z\d])[A-Za-z]{3,}(?![A-Za-z\d])")


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
            out.append(Span(a, a + len(piece.strip()), span.label, span.confidence))
        start = cut + 1
    return out


def floor_spans(hits: Sequence[ListHit], labels: Mapping[str, str]) -> list[Span]:
    """List hits as spans with the project's labels (categories without a label dropped)."""
    return [Span(h.start, h.end, labels[h.category], 1.0) for h in hits if h.category in labels]


def take_listed_labels(spans: Sequence[Span], listed: Sequence[Span]) -> list[Span]:
    """``spans`` with each one inside a hospital list's hit labelled as the
    list says: a listed place the model called a name is a place (else its
    surrogate would be a person's name). Only the lists: they are the
    hospital's word on what an entry is, where the floor's shapes are
    guesses from context, and a span reaching beyond the hit keeps its label."""
    out = []
    for s in spans:
        inside = [f for f in listed if f.start <= s.start and s.end <= f.end]
        if inside and s.label != inside[0].label:
            s = Span(s.start, s.end, inside[0].label, s.confidence)
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
                      hit[0].confidence)
        for j in reversed(idx):
            del out[j], keys[j]
        insert(merged)
        longest = max(longest, merged.end - merged.start)
    return out
