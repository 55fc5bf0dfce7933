"""ICU nursing notes: terse, abbreviated, often ALL CAPS or all lower case.

The notes hospitals write most are not tidy letters: shift notes by system
("NEURO: A+OX3, MAE", "CV: HR 80S SR, NO ECTOPY"), few identifiers and many
notes with none. What they do carry: clinicians as "DR. SMITH", "DR SMITH",
bare surnames or initials; relatives by first name ("WIFE MARY IN TO
VISIT"); dates without a year ("2/14"), years alone ("S/P CABG 1998"); the
hospital a patient came from; towns; phone numbers; ages over 89.

Everything here is written by the DeID Studio team; names come from Faker
and from the shipped dictionaries (`app.rules.dictionaries`), places from
the shipped place list. Numbers that look like dates but are not ("CPAP
5/5", "BP 110/60", "1/2 NS") are written unannotated on purpose, so a model
learns the difference.

Wards: a unit type or floor ("MICU", "CCU", "5 NORTH", "7B") is not an
identifier, as in the rest of the generator: every hospital has one. A unit
named after a person or a place ("the FELDMAN 4 unit") names a place of one
hospital and is annotated as HOSPITAL.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from app.core.spans import Document
from app.synth.builder import Ent, NoteBuilder
from app.synth.forms import AGE, DATE, HOSPITAL, LOCATION, PERSON, PHONE

_RELATIVES = {"M": ("WIFE", "SON", "DAUGHTER", "BROTHER", "SISTER", "NEPHEW", "NIECE", "FRIEND"),
              "F": ("HUSBAND", "SON", "DAUGHTER", "SISTER", "BROTHER", "NIECE", "GRANDDAUGHTER")}
_UNITS = ("MICU", "SICU", "CCU", "CSRU", "TSICU", "NICU", "ICU", "5 NORTH", "7 WEST", "4B",
          "STEPDOWN", "FLOOR", "REHAB", "ED", "OR", "PACU", "CATH LAB")
_SAINTS = ("MARY'S", "JOSEPH'S", "ELIZABETH'S", "LUKE'S", "VINCENT'S", "ANNE'S", "FRANCIS",
           "JOHN'S", "AGNES", "MARGARET'S")
_HOSP_KINDS = ("HOSPITAL", "GENERAL HOSPITAL", "MEDICAL CENTER", "MEMORIAL HOSPITAL",
               "COMMUNITY HOSPITAL", "REGIONAL MEDICAL CENTER", "REHAB", "NURSING HOME",
               "HEALTH CENTER")
_SHIFTS = ("7A-7P", "7P-7A", "0700-1900", "1900-0700", "7-3", "3-11", "11-7", "DAYS", "NOCS")
_TITLES = ("DR. ", "DR ", "DR.", "DR ", "DR. ", "dr ")


@dataclass
class _Cast:
    """The people and places one patient's notes share."""

    sex: str
    first: str
    last: str
    relatives: list[tuple[str, str, str]]      # (relation, first name, last name)
    doctors: list[tuple[str, str]]             # (first, last)
    nurses: list[tuple[str, str]]
    hospital: str
    ward: str                                  # the hospital's ward named after someone
    town: str
    phone: str
    age: int


class IcuWriter:
    """Draws the cast and writes ICU notes; names from Faker and the shipped lists."""

    def __init__(self, fake, rng: random.Random) -> None:
        self.fake = fake
        self.rng = rng
        self._first, self._last, self._places = _lists()

    # -- names and places ------------------------------------------------

    def first(self, sex: str) -> str:
        if self.rng.random() < 0.6:
            return self.fake.first_name_male() if sex == "M" else self.fake.first_name_female()
        return self.rng.choice(self._first).title()

    def last(self) -> str:
        if self.rng.random() < 0.5:
            return self.fake.last_name()
        return self.rng.choice(self._last).title()

    def place(self) -> str:
        if self.rng.random() < 0.5:
            return self.fake.city()
        return self.rng.choice(self._places).title()

    def hospital(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            return f"{self.place()} {rng.choice(_HOSP_KINDS)}"
        if r < 0.45:
            return f"{self.last()} {rng.choice(_HOSP_KINDS)}"
        if r < 0.6:
            return f"ST. {rng.choice(_SAINTS)}" if rng.random() < 0.6 else f"ST {rng.choice(_SAINTS)}"
        if r < 0.75:
            letters = "".join(rng.choice("ABCDEFGHJKLMNPRSTW") for _ in range(rng.randint(1, 3)))
            return letters + rng.choice(("GH", "MC", "H", "MH"))
        if r < 0.8:
            return _pick(rng, "UNIVERSITY OF ", "U OF ", "U. OF ") + self.fake.state() + \
                _pick(rng, "", " MEDICAL CENTER", " MED CENTER", " HOSP")
        if r < 0.9:
            return f"{self.place()} {_pick(rng, 'REGIONAL', 'HOSP', 'GENERAL', 'MEMORIAL', 'REHAB')}"
        return self.place()

    def phone(self) -> str:
        rng = self.rng
        a, b, c = rng.randint(201, 989), rng.randint(200, 999), rng.randint(0, 9999)
        return rng.choice((f"{a}-{b}-{c:04d}", f"({a}) {b}-{c:04d}", f"{a} {b}-{c:04d}",
                           f"{b}-{c:04d}", f"{a}.{b}.{c:04d}", f"X{c:04d}"))

    def cast(self) -> _Cast:
        rng = self.rng
        sex = rng.choice("MF")
        last = self.last()
        relatives = []
        for _ in range(rng.randint(1, 3)):
            rel = rng.choice(_RELATIVES[sex])
            rel_sex = "F" if rel in ("WIFE", "DAUGHTER", "SISTER", "NIECE", "GRANDDAUGHTER") else "M"
            relatives.append((rel, self.first(rel_sex), last if rng.random() < 0.7 else self.last()))
        doctors = [(self.first(rng.choice("MF")), self.last()) for _ in range(rng.randint(2, 4))]
        nurses = [(self.first(rng.choice("MFFF")), self.last()) for _ in range(rng.randint(1, 3))]
        age = rng.choice((rng.randint(25, 88), rng.randint(40, 88), rng.randint(90, 104)))
        ward = self.last() if rng.random() < 0.7 else self.place()
        return _Cast(sex, self.first(sex), last, relatives, doctors, nurses, self.hospital(),
                     ward, self.place(), self.phone(), age)


@lru_cache(maxsize=1)
def _lists() -> tuple[list[str], list[str], list[str]]:
    """Shipped first names, surnames and places that are not common words,
    sorted so the draws are reproducible across processes."""
    from app.rules.dictionaries import lexicon

    lex = lexicon()
    return (sorted(n for n in lex.first_names if n not in lex.common_words and n.isalpha()),
            sorted(n for n in lex.surnames if n not in lex.common_words and n.isalpha()),
            sorted(p for p in lex.places if p not in lex.common_words))


def _date(rng: random.Random, d: date) -> str:
    """A date as nursing notes write it: mostly month/day without a year."""
    r = rng.random()
    if r < 0.55:
        return f"{d.month}/{d.day}"
    if r < 0.65:
        return f"{d.month:02d}/{d.day:02d}"
    if r < 0.8:
        return f"{d.month}/{d.day}/{d.year % 100:02d}"
    if r < 0.88:
        return f"{d.month}/{d.day}/{d.year}"
    return f"{('JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUNE', 'JULY', 'AUG', 'SEPT', 'OCT', 'NOV', 'DEC')[d.month - 1]} {d.day}"


def _doctor(rng: random.Random, doc: tuple[str, str]) -> list:
    first, last = doc
    r = rng.random()
    if r < 0.55:
        return [rng.choice(_TITLES), Ent(last, PERSON)]
    if r < 0.7:
        return [rng.choice(_TITLES), Ent(f"{first} {last}", PERSON)]
    if r < 0.8:
        return [rng.choice(_TITLES), Ent(f"{first[0]}. {last}", PERSON)]
    if r < 0.9:
        return [Ent(last, PERSON)]
    return [Ent(f"{first[0]}{last[0]}", PERSON)]


class _Note:
    """One note being written: lines of pieces appended to a builder."""

    def __init__(self, rng: random.Random, cast: _Cast, day: date, labels: frozenset[str],
                 writer: IcuWriter) -> None:
        self.rng, self.c, self.day, self.w = rng, cast, day, writer
        self.b = NoteBuilder(labels)
        # Most notes carry no identifier at all; some carry several.
        self.density = rng.choice((0.0, 0.0, 0.0, 0.0, 0.08, 0.2, 0.4))

    def maybe(self) -> bool:
        return self.rng.random() < self.density

    def line(self, *pieces) -> None:
        self.b.add(list(pieces))
        self.b.add(" \n" if self.rng.random() < 0.5 else "\n")

    def date(self, back: int = 10) -> Ent:
        return Ent(_date(self.rng, self.day - timedelta(days=self.rng.randint(0, back))), DATE)

    def doctor(self) -> list:
        return _doctor(self.rng, self.rng.choice(self.c.doctors))

    def relative(self) -> tuple[str, str, str]:
        return self.rng.choice(self.c.relatives)


def _pick(rng: random.Random, *options: str) -> str:
    return rng.choice(options)


def _vitals(rng: random.Random) -> str:
    return _pick(rng, f"HR {rng.randint(6, 11)}0S {_pick(rng, 'SR', 'ST', 'AFIB', 'NSR', 'SB')}",
                 f"HR {rng.randint(55, 120)} {_pick(rng, 'SR', 'NSR', 'AF')}, NO ECTOPY",
                 f"SBP {rng.randint(9, 15)}0-{rng.randint(12, 17)}0S",
                 f"BP {rng.randint(90, 160)}/{rng.randint(40, 90)}",
                 f"MAPS {rng.randint(55, 80)}-{rng.randint(70, 95)}",
                 f"K {rng.randint(3, 5)}.{rng.randint(0, 9)} REPLETED WITH {rng.choice((20, 40, 60))} MEQ KCL",
                 f"HCT {rng.randint(24, 38)}.{rng.randint(0, 9)}, STABLE",
                 "PALP PEDAL PULSES", "EXT WARM, +PP", "NO EDEMA", f"{rng.randint(1, 3)}+ EDEMA LE'S",
                 f"ON NEO {rng.randint(1, 9)}0 MCG/MIN, WEANING", f"LOPRESSOR {rng.choice((5, 12.5, 25))} MG PO GIVEN")


def _resp(rng: random.Random) -> str:
    return _pick(rng, f"ON CPAP {rng.randint(5, 15)}/{rng.randint(5, 10)}",
                 f"PS {rng.randint(5, 20)}/{rng.randint(5, 10)} PEEP, FIO2 {rng.randint(3, 10)}0%",
                 f"AC {rng.randint(400, 700)} X {rng.randint(10, 20)} / {rng.randint(5, 12)} PEEP",
                 f"LS CLEAR UPPER, DIM {_pick(rng, 'BASES', 'LLL', 'RLL', 'BILAT BASES')}",
                 f"SATS {rng.randint(92, 100)}% ON {rng.randint(2, 6)}L NC",
                 f"SX FOR {_pick(rng, 'SM', 'MOD', 'LG')} AMTS {_pick(rng, 'THICK', 'THIN')} {_pick(rng, 'TAN', 'WHITE', 'YELLOW')} SPUTUM",
                 f"RR {rng.randint(12, 30)}, NO SOB", f"ABG {rng.choice(('7.38', '7.42', '7.31'))}/{rng.randint(35, 55)}/{rng.randint(60, 140)}",
                 "EXTUBATED WITHOUT INCIDENT", "COUGHING AND DEEP BREATHING", "CXR DONE, RESULTS PENDING")


def _neuro(rng: random.Random) -> str:
    return _pick(rng, "A+OX3, MAE, FOLLOWS COMMANDS", "A&OX3", "ALERT, ORIENTED X2, CALM",
                 "SEDATED ON PROPOFOL, OPENS EYES TO VOICE", "PERRL, MAE X4",
                 f"RECEIVED ATIVAN {rng.choice((0.5, 1, 2))} MG IV X{rng.randint(1, 3)} FOR AGITATION",
                 "NO SEIZURE ACTIVITY", "DENIES PAIN", f"C/O PAIN {rng.randint(2, 9)}/10, MEDICATED WITH MSO4",
                 "RESTLESS AT TIMES, REORIENTED", "SLEPT IN NAPS OVERNIGHT", "GCS 15")


def _gi(rng: random.Random) -> str:
    return _pick(rng, "ABD SOFT, NT, ND, +BS", "NPO EXCEPT MEDS", f"TF AT GOAL {rng.randint(2, 8)}0CC/HR",
                 "SM LOOSE BROWN STOOL X1", "NO BM THIS SHIFT", "TOLERATING CLEAR LIQUIDS",
                 f"OGT TO LIS, {rng.randint(5, 30)}0CC BILIOUS DRAINAGE", "1/2 NS AT 75 CC/HR",
                 "D5 1/2 NS WITH 20 KCL AT 100", "GUAIAC NEG")


def _gu(rng: random.Random) -> str:
    return _pick(rng, f"FOLEY DRAINING {rng.randint(2, 10)}0-{rng.randint(10, 20)}0CC/HR CLEAR YELLOW URINE",
                 f"LASIX {rng.choice((20, 40, 80))} MG IV WITH GOOD RESPONSE", "UO ADEQUATE",
                 f"BUN/CR {rng.randint(10, 80)}/{rng.randint(1, 4)}.{rng.randint(0, 9)}", "VOIDING QS",
                 f"I/O +{rng.randint(1, 3)}L")


def _other(rng: random.Random) -> str:
    return _pick(rng, "SKIN: INTACT", "SKIN: COCCYX REDDENED, DUODERM APPLIED", "ID: AFEBRILE, ON VANCO/ZOSYN",
                 f"ID: TMAX {rng.randint(99, 102)}.{rng.randint(0, 9)}, CULTURES SENT", "ENDO: RISS",
                 f"ENDO: BS {rng.randint(90, 250)}, COVERED PER SS", "HEME: NO S/S BLEEDING",
                 "ACCESS: L SC TLC, R RAD A-LINE", "LINES: PIV X2, PICC RUE", "CODE: FULL", "CODE: DNR/DNI")


_NARRATIVE = (
    "PT IN GOOD SPIRITS THIS EVE, WATCHING TV", "PT ANXIOUS OVERNIGHT, REASSURANCE GIVEN",
    "DISCUSSED PLAN OF CARE WITH PT, VERBALIZED UNDERSTANDING", "PT STATES SHE WANTS TO GO HOME",
    "FAMILY AT BEDSIDE MOST OF SHIFT, VERY SUPPORTIVE", "PT REFUSED AM LABS, MD AWARE",
    "PT HAD EPISODE OF DESATURATION TO 80S WITH TURNING, RECOVERED QUICKLY",
    "NO ACUTE EVENTS OVERNIGHT", "POOR APPETITE, ENCOURAGED PO INTAKE",
    "AMBULATED IN HALL WITH PT, TOLERATED WELL", "C/O NAUSEA, GIVEN ZOFRAN WITH RELIEF",
    "SLEPT WELL BETWEEN CARE", "AWAITING BED ON FLOOR", "MAY NEED TRACH IF UNABLE TO WEAN",
    "WILL CONTINUE TO FOLLOW CLOSELY", "PT WILL BE NPO AFTER MIDNIGHT FOR PROCEDURE",
    "HOPES TO GO HOME BY END OF WEEK", "MARKED IMPROVEMENT IN MENTAL STATUS SINCE YESTERDAY",
    "BROWN LIQUID STOOL, SENT FOR C DIFF", "WHITE THICK SECRETIONS VIA ETT",
    "GREEN BILIOUS OUTPUT FROM OGT", "PT VERY HARD OF HEARING, SPEAK INTO LEFT EAR",
    "PT ASKING FOR HIS GLASSES AND DENTURES", "SHE IS A RETIRED TEACHER AND LIVES ALONE",
    "HE WORKS AS A CARPENTER", "PT A FORMER SMOKER, QUIT 10 YRS AGO",
    "TALKED ABOUT CODE STATUS, PT WISHES TO REMAIN FULL CODE",
    "SITTER AT BEDSIDE FOR SAFETY", "RESTRAINTS ON FOR PULLING AT LINES",
    "BED ALARM ON, FALL PRECAUTIONS MAINTAINED", "CHAPLAIN IN TO SEE PT",
    "SOCIAL WORK FOLLOWING", "CASE MANAGEMENT AWARE OF DISPO ISSUES",
    "PHYSICAL THERAPY IN TO EVAL", "NUTRITION CONSULT PLACED",
    "ID CONSULT CALLED RE: POSITIVE BLOOD CX", "MICU TEAM AWARE OF ALL ABOVE",
    "ORTHO SPINE TO SEE IN AM", "CARDS FOLLOWING", "RENAL AWARE, NO HD TODAY",
)


def _staff(n: "_Note") -> list:
    """A clinician or nurse named the ways nursing notes name them."""
    rng, c = n.rng, n.c
    first, last = rng.choice(c.doctors + c.nurses)
    r = rng.random()
    if r < 0.2:
        return [f"{_pick(rng, 'PCP', 'ATTENDING', 'ATTENDING IS', 'CARDIOLOGIST')} ",
                rng.choice(_TITLES), Ent(last, PERSON)]
    if r < 0.4:
        return [f"{_pick(rng, 'RESIDENT', 'NP', 'PA', 'FELLOW', 'INTERN')} ", Ent(first, PERSON),
                _pick(rng, " PAGED", " NOTIFIED", " AWARE", " IN TO ASSESS")]
    if r < 0.5:
        return [f"{_pick(rng, 'CARDS', 'RENAL', 'NEURO', 'SURGERY', 'GI')} (", rng.choice(_TITLES),
                Ent(last, PERSON), ") FOLLOWING"]
    if r < 0.58:
        other = rng.choice(c.doctors)[1]
        return [_pick(rng, "DRS ", "DRS. "), Ent(last, PERSON), " AND ", Ent(other, PERSON),
                _pick(rng, " IN TO SEE PT", " AWARE", " AT BEDSIDE")]
    if r < 0.7:
        return [f"{_pick(rng, 'PER', 'DISCUSSED WITH', 'REPORT FROM', 'ORDERS PER')} ",
                Ent(first, PERSON), ", RN" if rng.random() < 0.5 else ""]
    if r < 0.85:
        return [Ent(f"{first} {last}", PERSON), f" {_pick(rng, 'FROM SOCIAL WORK', 'FROM CASE MANAGEMENT', 'RN', 'NP')}"
                f" {_pick(rng, 'IN TO SEE PT', 'SPOKE WITH FAMILY', 'AWARE')}"]
    return [f"{_pick(rng, 'PT ASKING FOR', 'PT REQUESTING', 'PT REMEMBERS')} ", Ent(first, PERSON)]


def _place_line(n: "_Note") -> list:
    """A hospital or town as notes mention them."""
    rng, c, w = n.rng, n.c, n.w
    hosp = Ent(w.hospital() if rng.random() < 0.5 else c.hospital, HOSPITAL)
    r = rng.random()
    if r < 0.2:
        return [f"{_pick(rng, 'PT WAS AT', 'RECENTLY DISCHARGED FROM', 'FOLLOWED AT', 'PREVIOUSLY AT')} ",
                hosp, _pick(rng, "", " FOR REHAB", " LAST MONTH", " X2 WKS")]
    if r < 0.35:
        return [f"{_pick(rng, 'OLD RECORDS REQUESTED FROM', 'RECORDS FAXED FROM', 'CALLED')} ", hosp]
    if r < 0.5:
        return [f"{_pick(rng, 'PLAN TO D/C TO', 'SCREENED BY', 'BED OFFER FROM', 'ACCEPTED AT')} ", hosp]
    if r < 0.65:
        return [f"{_pick(rng, 'PT LIVES IN', 'PT FROM', 'FAMILY FROM', 'FAMILY DRIVING DOWN FROM')} ",
                Ent(c.town if rng.random() < 0.6 else w.place(), LOCATION)]
    if r < 0.72:
        return [f"{_pick(rng, 'MEDFLIGHTED FROM', 'TRANSFERRED FROM', 'ADMITTED TO')} ", hosp,
                " IN ", Ent(w.place(), LOCATION)]
    if r < 0.88:
        # A ward named after a person or a place names a place of one hospital.
        return [f"{_pick(rng, 'TRANSFER TO', 'C/O TO', 'TRANSFERRED FROM', 'PLAN: TRANSFER TO', 'CALLED OUT TO', 'ADMITTED TO')} ",
                Ent(c.ward, HOSPITAL), f" {rng.randint(1, 9)}",
                _pick(rng, "", " WHEN BED AVAILABLE", " TODAY", " THIS AM", " IF STABLE")]
    return ["PT ", _pick(rng, "WAS ", "HAD BEEN "), f"{_pick(rng, 'SEEN', 'INTUBATED', 'ADMITTED', 'STABILIZED')} AT ",
            hosp, _pick(rng, " ED", " ON ", ""), *([n.date()] if rng.random() < 0.3 else [])]


def _write(n: _Note) -> None:
    rng, c, w = n.rng, n.c, n.w
    # Header
    r = rng.random()
    if r < 0.35:
        n.line(f"{_pick(rng, 'NPN', 'NSG NOTE', 'NURSING PROGRESS NOTE', 'RN NOTE')} {rng.choice(_SHIFTS)}")
    elif r < 0.55:
        n.line(f"{rng.choice(_UNITS)} {_pick(rng, 'NPN', 'NURSING PROGRESS NOTE', 'NSG ADMIT NOTE')}")
    elif r < 0.65:
        n.line(f"{_pick(rng, 'NPN', 'NURSING NOTE', 'RESPIRATORY CARE NOTE')} ", n.date(0))
    elif r < 0.75:
        n.line(f"{_pick(rng, 'RESPIRATORY CARE', 'RESP CARE NOTE', 'PT NOTE')}:")
    # History line
    if rng.random() < 0.45:
        age = c.age if rng.random() < 0.6 or c.age < 90 else rng.randint(40, 88)
        age_piece = Ent(str(age), AGE) if age >= 90 else str(age)
        sex = _pick(rng, "YO M" if c.sex == "M" else "YO F", "Y/O", "YEAR OLD")
        pieces: list = [_pick(rng, "PT IS A ", "PT IS ", "", "PATIENT IS A "), age_piece,
                        f" {sex} {_pick(rng, 'WITH', 'W/', 'ADMITTED WITH', 'S/P')} "
                        f"{_pick(rng, 'CHF', 'COPD FLARE', 'UROSEPSIS', 'PNA', 'GI BLEED', 'CABG X3', 'MVR', 'SAH', 'DKA')}"]
        if n.maybe() or rng.random() < 0.2:
            pieces += [f" {_pick(rng, 'TRANSFERRED FROM', 'TRANSFER FROM', 'SENT FROM', 'ADMITTED FROM')} ",
                       Ent(c.hospital, HOSPITAL)]
            if rng.random() < 0.3:
                pieces += [" IN ", Ent(c.town, LOCATION)]
        elif rng.random() < 0.3:
            pieces += [f" FROM {_pick(rng, 'ED', 'OR', 'FLOOR', 'CATH LAB', 'HOME')}"]
        if rng.random() < 0.25:
            pieces += [" ON ", n.date()]
        n.line(*pieces, ".")
    if rng.random() < 0.25:
        year = n.day.year - rng.randint(1, 30)
        k = rng.random()
        when: list = [Ent(str(year), DATE)] if k < 0.4 else ["'", Ent(f"{year % 100:02d}", DATE)] \
            if k < 0.75 else [Ent(f"{rng.randint(1, 12)}/{year % 100:02d}", DATE)]
        n.line(f"PMH: {_pick(rng, 'HTN, DM2, CAD', 'COPD, AFIB', 'ESRD ON HD', 'ETOH ABUSE')}, "
               f"{_pick(rng, 'S/P CABG ', 'MI IN ', 'CVA ', 'APPY ', 'S/P AVR ', 'PPM ')}", *when)
    # Systems
    systems = [("NEURO", _neuro), ("CV", _vitals), ("RESP", _resp), ("GI", _gi), ("GU", _gu)]
    for name, fn in systems:
        if rng.random() < 0.2:
            continue
        items = [fn(rng) for _ in range(rng.randint(1, 3))]
        head = _pick(rng, f"{name}: ", f"{name}- ", f"{name}:")
        pieces = [head, ". ".join(items)]
        if n.maybe():
            k = rng.random()
            if k < 0.45:
                pieces += [f". {_pick(rng, '', 'SEEN BY ', 'PER ', 'DISCUSSED WITH ', 'PAGED ')}", *n.doctor(),
                           _pick(rng, " AWARE", "", " IN TO SEE PT", " NOTIFIED")]
            elif k < 0.75:
                pieces += [f". {_pick(rng, 'TRACH PLACED', 'CT SCAN', 'LAST BM', 'ECHO DONE', 'LINE CHANGED', 'CULTURES SENT')} ",
                           n.date()]
            else:
                pieces += [f". {_pick(rng, 'PLAN FOR', 'SCHEDULED FOR', 'POSS')} "
                           f"{_pick(rng, 'PEG', 'TRACH', 'IR', 'CATH', 'OR')} ",
                           _pick(rng, "ON ", "", "TOMORROW "), n.date(0)]
        n.line(*pieces)
    for _ in range(rng.randint(0, 3)):
        n.line(_other(rng))
    for _ in range(rng.choice((0, 0, 1, 2, 3))):
        n.line(rng.choice(_NARRATIVE), ".")
    if n.maybe():
        n.line(*_staff(n), ".")
    if n.maybe():
        n.line(*_place_line(n), ".")
    # Social
    if rng.random() < (0.3 if n.density == 0 else 0.7):
        rel, first, last = n.relative()
        k = rng.random()
        if not n.maybe() and rng.random() < 0.5:
            n.line(f"SOCIAL: {_pick(rng, 'FAMILY IN TO VISIT', 'NO CALLS FROM FAMILY', f'{rel} CALLED, UPDATED', 'FAMILY UPDATED BY TEAM')}")
        elif k < 0.3:
            n.line("SOCIAL: ", f"{rel} ", Ent(first, PERSON),
                   _pick(rng, " IN TO VISIT", " CALLED", " VISITED THIS EVE", " AT BEDSIDE"),
                   _pick(rng, ", UPDATED ON POC", ".", ", QUESTIONS ANSWERED"))
        elif k < 0.5:
            n.line(f"{_pick(rng, 'SPOKE WITH', 'CALLED', 'UPDATED')} ", Ent(first, PERSON),
                   f" ({rel}) {_pick(rng, 'AT', '@', 'PHONE')} ", Ent(c.phone, PHONE))
        elif k < 0.65:
            n.line(f"{_pick(rng, 'HCP', 'HEALTH CARE PROXY', 'CONTACT')} IS {rel} ",
                   Ent(f"{first} {last}", PERSON), " ", Ent(w.phone(), PHONE))
        elif k < 0.8:
            n.line(f"{rel} ", Ent(first, PERSON), f" {_pick(rng, 'LIVES IN', 'FROM', 'DRIVING IN FROM')} ",
                   Ent(c.town, LOCATION), ", ", _pick(rng, "WILL VISIT TOMORROW", "CALLED FOR UPDATE"))
        elif k < 0.9:
            n.line("FAMILY MEETING ", _pick(rng, "ON ", "PLANNED FOR ", "SET FOR "), n.date(0),
                   " WITH ", *n.doctor())
        else:
            n.line(f"PT LIVES {_pick(rng, 'IN', 'AT HOME IN', 'WITH', 'ALONE IN')} ", Ent(c.town, LOCATION))
    # Plan and signature
    n.line(_pick(rng, "A/P:", "A:", "PLAN:", "P:"), " ",
           _pick(rng, "CONT TO MONITOR", "WEAN VENT AS TOL", "FOLLOW LABS", "SUPPORT PT/FAMILY",
                 "TRANSFER TO FLOOR WHEN BED AVAIL", "CALL OUT TO 5 NORTH", "POSS C/O TO FLOOR"))
    if n.maybe() and rng.random() < 0.5:
        n.line(_pick(rng, "DISPO: ", "PLAN TO GO TO ", "SCREENING FOR "), Ent(w.hospital(), HOSPITAL))
    if rng.random() < (0.1 if n.density == 0 else 0.4):
        first, last = rng.choice(c.nurses)
        if rng.random() < 0.15:
            last = f"{last}-{w.last()}"
        role = _pick(rng, "RN", "RN", "R.N.", "RRT", "NP", "BSN, RN", "SN")
        r = rng.random()
        if r < 0.3:
            n.line(Ent(f"{first} {last}", PERSON), f", {role}")
        elif r < 0.45:
            n.line(Ent(f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {last}", PERSON), f", {role}")
        elif r < 0.6:
            n.line(Ent(f"{first[0]}. {last}", PERSON), f" {role}")
        elif r < 0.75:
            n.line("REPORT GIVEN TO ", Ent(first, PERSON), f", {role}")
        elif r < 0.85:
            n.line(Ent(first, PERSON), f" {role}")
        else:
            n.line("--", Ent(f"{first[0]}{last[0]}", PERSON))


def _cased(rng: random.Random, builder: NoteBuilder) -> str:
    """The note in one of the casings nurses type: ALL CAPS, all lower or as written."""
    text = builder.text()
    r = rng.random()
    out = text.lower() if r < 0.35 else text if r < 0.45 else text.upper()
    # Offsets are the truth: a casing that changes the length is not used.
    return out if len(out) == len(text) else text


def generate_icu(n: int, *, seed: int = 0, label_set: str = "extended",
                 first_patient: int = 1) -> list[Document]:
    """``n`` synthetic ICU nursing notes with gold spans (deterministic by seed).

    Patients have 1-12 notes on consecutive days; names are ``P0001_icu_0001``...
    """
    from faker import Faker

    from app.core.labels import PRESETS

    labels = frozenset(d.name for d in PRESETS[label_set])
    fake = Faker("en_US")
    docs: list[Document] = []
    p_index = first_patient - 1
    while len(docs) < n:
        p_index += 1
        prng = random.Random(f"deid-synth-icu:{seed}:{p_index}")
        fake.seed_instance(prng.getrandbits(64))
        writer = IcuWriter(fake, prng)
        cast = writer.cast()
        day = date(2010, 1, 1) + timedelta(days=prng.randrange(12 * 365))
        for _ in range(prng.choice((1, 2, 3, 4, 6, 8, 12))):
            if len(docs) >= n:
                break
            nrng = random.Random(prng.getrandbits(64))
            note = _Note(nrng, cast, day, labels, writer)
            writer.rng = nrng
            _write(note)
            writer.rng = prng
            pid = f"P{p_index:04d}"
            docs.append(Document(name=f"{pid}_icu_{len(docs) + 1:04d}", text=_cased(nrng, note.b),
                                 spans=note.b.spans, patient_id=pid,
                                 meta={"note_type": "icu_nursing", "locale": "en_US"}))
            day += timedelta(days=1)
    return docs
