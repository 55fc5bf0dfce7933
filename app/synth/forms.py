"""Surface forms of names and addresses, as pieces for the note builder.

The span rule lives here: a PERSON span covers the name only — never the
title ("Dr", "Mr"), never a possessive "'s", never surrounding punctuation.
"""
from __future__ import annotations

import random

from app.synth.builder import Ent, Piece
from app.synth.people import Address, Clinician, Patient, Person

PERSON, ADDRESS, DOB, IDN, PHONE = "PERSON", "ADDRESS", "DOB", "IDN", "PHONE"
DATE, AGE, EMAIL, URL, HOSPITAL, LOCATION = "DATE", "AGE", "EMAIL", "URL", "HOSPITAL", "LOCATION"


def full_name(p: Person, *, middle: bool = False) -> str:
    return f"{p.first} {p.middle} {p.last}" if middle and p.middle else f"{p.first} {p.last}"


def patient_name(rng: random.Random, pt: Patient, style: str | None = None) -> list[Piece]:
    """A reference to the patient in one of the forms notes use."""
    p = pt.person
    title = pt.title + ("." if pt.locale == "en_US" else "")
    style = style or rng.choice(("full", "full", "title_last", "title_last", "title_full",
                                 "first", "comma", "initial"))
    if style == "full":
        return [Ent(full_name(p, middle=rng.random() < 0.3), PERSON)]
    if style == "title_last":
        return [f"{title} ", Ent(p.last, PERSON)]
    if style == "title_full":
        return [f"{title} ", Ent(full_name(p), PERSON)]
    if style == "first":
        return [Ent(p.first, PERSON)]
    if style == "comma":
        given = f"{p.first} {p.middle}" if p.middle and rng.random() < 0.4 else p.first
        return [Ent(f"{p.last.upper()}, {given}", PERSON)]
    return [Ent(f"{p.first[0]}. {p.last}" if rng.random() < 0.6 else f"{p.first[0]} {p.last}", PERSON)]


def header_name(rng: random.Random, pt: Patient) -> list[Piece]:
    """The patient's name as a header field writes it."""
    return patient_name(rng, pt, rng.choice(("comma", "comma", "full", "title_full")))


def doctor_ref(rng: random.Random, c: Clinician, *, upper: bool, typos: bool = True) -> list[Piece]:
    """A clinician named in narrative: title outside the span, typos included.

    Run-ons such as "DrSmith" are only written in mixed-case notes: in an
    upper-case note "DRSMITH" is a single canonical token and the span could
    not be aligned.
    """
    p = c.person
    r = rng.random()
    if typos and r < 0.06 and not upper:
        return ["Dr", Ent(p.last, PERSON)]
    if typos and r < 0.1:
        return ["Pro ", Ent(p.last, PERSON)]
    title = c.title
    if title == "Dr" and rng.random() < 0.2:
        title = "Dr."
    if title == "Prof" and rng.random() < 0.3:
        title = "Professor"
    r = rng.random()
    if r < 0.5:
        return [f"{title} ", Ent(p.last, PERSON)]
    if r < 0.8:
        return [f"{title} ", Ent(full_name(p), PERSON)]
    return [f"{title} ", Ent(f"{p.first[0]}. {p.last}", PERSON)]


def doctor_full(c: Clinician) -> list[Piece]:
    return [f"{c.title} ", Ent(full_name(c.person), PERSON)]


def plain_name(rng: random.Random, p: Person) -> list[Piece]:
    """A name written without a title: staff sign-offs, relatives."""
    r = rng.random()
    if r < 0.6:
        return [Ent(full_name(p), PERSON)]
    if r < 0.8:
        return [Ent(p.first, PERSON)]
    return [Ent(f"{p.first[0]}. {p.last}", PERSON)]


def locality(a: Address, locale: str) -> str:
    if locale == "en_US":
        return f"{a.city}, {a.state} {a.postcode}"
    return f"{a.city} {a.state} {a.postcode}"


def address_inline(a: Address, locale: str) -> list[Piece]:
    """Street and locality on one line: two spans, the comma outside both."""
    return [Ent(a.street, ADDRESS), ", ", Ent(locality(a, locale), ADDRESS)]


def address_block(a: Address, locale: str) -> list[Piece]:
    return [Ent(a.street, ADDRESS), "\n", Ent(locality(a, locale), ADDRESS)]
