"""Well-formed synthetic identifiers: health numbers, phones, dates.

Every function takes the caller's ``random.Random`` so output is a pure
function of the seed. Checksums are real (Medicare, provider number, NPI)
because rule-based detectors downstream may validate them.
"""
from __future__ import annotations

import random
from datetime import date

from app.rules.checksums import luhn_check_digit, medicare_check_digit

_PROVIDER_LOCATION = "0123456789ABCDEFGHJKLMNPQRTUVWXY"
_PROVIDER_CHECK = "YXWTLKJHFBA"

# Telephone area codes by state; the landline's first local digit follows the
# area's usual ranges so numbers look plausible.
AU_AREA_CODE = {"NSW": "02", "ACT": "02", "VIC": "03", "TAS": "03",
                "QLD": "07", "SA": "08", "WA": "08", "NT": "08"}

AU_POSTCODE_RANGE = {"NSW": (2000, 2599), "ACT": (2600, 2618), "VIC": (3000, 3999),
                     "QLD": (4000, 4999), "SA": (5000, 5799), "WA": (6000, 6797),
                     "TAS": (7000, 7799), "NT": (800, 899)}


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(n))


def medicare_number(rng: random.Random) -> str:
    """A Medicare card number with valid check digit and issue number."""
    first8 = str(rng.randint(2, 6)) + _digits(rng, 7)
    raw = f"{first8}{medicare_check_digit(first8)}{rng.randint(1, 9)}"
    if rng.random() < 0.7:
        return f"{raw[:4]} {raw[4:9]} {raw[9]}"
    return raw


def provider_number(rng: random.Random) -> str:
    """An Australian Medicare provider number: 6-digit stem, location, check."""
    stem = _digits(rng, 6)
    loc = rng.choice(_PROVIDER_LOCATION[:12])
    total = sum(int(d) * w for d, w in zip(stem, (3, 5, 8, 4, 2, 1)))
    total += _PROVIDER_LOCATION.index(loc) * 6
    return f"{stem}{loc}{_PROVIDER_CHECK[total % 11]}"


def npi(rng: random.Random) -> str:
    """A US National Provider Identifier (Luhn over the 80840 prefix)."""
    body = str(rng.randint(1, 2)) + _digits(rng, 8)
    return body + luhn_check_digit("80840" + body)


def ssn(rng: random.Random) -> str:
    """A US SSN-shaped number avoiding never-issued area numbers."""
    area = rng.randint(1, 899)
    area = 667 if area == 666 else area
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def mrn(rng: random.Random) -> str:
    return str(rng.randint(1, 9)) + _digits(rng, rng.choice((5, 6, 7)))


def fin(rng: random.Random) -> str:
    return str(rng.randint(1, 9)) + _digits(rng, rng.choice((8, 9)))


def pager(rng: random.Random) -> str:
    return str(rng.randint(1, 9)) + _digits(rng, rng.choice((3, 3, 4)))


def extension(rng: random.Random) -> str:
    style = rng.choice(("ext {}", "ext. {}", "x{}", "extn {}"))
    return style.format(str(rng.randint(1, 9)) + _digits(rng, 3))


def au_postcode(rng: random.Random, state: str) -> str:
    lo, hi = AU_POSTCODE_RANGE[state]
    return f"{rng.randint(lo, hi):04d}"


def au_landline(rng: random.Random, state: str) -> str:
    area = AU_AREA_CODE[state]
    local = str(rng.choice((3, 4, 5, 6, 8, 9))) + _digits(rng, 7)
    style = rng.random()
    if style < 0.45:
        return f"({area}) {local[:4]} {local[4:]}"
    if style < 0.75:
        return f"{area} {local[:4]} {local[4:]}"
    if style < 0.9:
        return f"+61 {area[1]} {local[:4]} {local[4:]}"
    return f"{area}{local}"


def au_mobile(rng: random.Random) -> str:
    rest = _digits(rng, 8)
    style = rng.random()
    if style < 0.6:
        return f"04{rest[:2]} {rest[2:5]} {rest[5:]}"
    if style < 0.8:
        return f"04{rest}"
    return f"+61 4{rest[:2]} {rest[2:5]} {rest[5:]}"


def us_phone(rng: random.Random) -> str:
    area = str(rng.randint(2, 9)) + _digits(rng, 2)
    exch = str(rng.randint(2, 9)) + _digits(rng, 2)
    line = _digits(rng, 4)
    return rng.choice((f"({area}) {exch}-{line}", f"{area}-{exch}-{line}",
                       f"{area}.{exch}.{line}", f"+1 {area} {exch} {line}",
                       f"({area}){exch}-{line}"))


# ---------------------------------------------------------------- dates

_MONTHS = ("January", "February", "March", "April", "May", "June", "July",
           "August", "September", "October", "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
             "Saturday", "Sunday")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def format_date(d: date, rng: random.Random, locale: str, *, dob: bool = False) -> str:
    """Render ``d`` in one of the many formats clinicians write.

    Australian notes put the day first, US notes the month. A date of birth
    always keeps its year; other dates sometimes drop it ("5/3") or carry a
    weekday.
    """
    day, mon, year = d.day, d.month, d.year
    m_full, m_abbr, yy = _MONTHS[mon - 1], _MONTHS[mon - 1][:3], f"{year % 100:02d}"
    us = locale == "en_US"
    a, b = (mon, day) if us else (day, mon)
    numeric = [f"{a:02d}/{b:02d}/{year}", f"{a}/{b}/{year}", f"{a:02d}-{b:02d}-{year}",
               f"{a}/{b}/{yy}", f"{a:02d}.{b:02d}.{year}", f"{year}-{mon:02d}-{day:02d}"]
    if us:
        worded = [f"{m_full} {day}, {year}", f"{m_full} {_ordinal(day)}, {year}",
                  f"{m_abbr} {day}, {year}", f"{m_abbr} {day} {yy}"]
    else:
        worded = [f"{day} {m_full} {year}", f"{day} {m_abbr} {yy}", f"{day} {m_abbr} {year}",
                  f"{_ordinal(day)} {m_full} {year}", f"{m_full} {_ordinal(day)}, {year}",
                  f"{day:02d}-{m_abbr}-{year}"]
    if dob:
        return rng.choice(numeric) if rng.random() < 0.75 else rng.choice(worded)
    r = rng.random()
    if r < 0.5:
        return rng.choice(numeric)
    if r < 0.82:
        return rng.choice(worded)
    if r < 0.92:
        return f"{a}/{b}"
    weekday = _WEEKDAYS[d.weekday()]
    if us:
        return rng.choice((f"{weekday}, {m_full} {day}, {year}", f"{weekday[:3]} {a:02d}/{b:02d}/{year}"))
    return rng.choice((f"{weekday} {day} {m_full} {year}", f"{weekday[:3]} {day:02d}/{mon:02d}/{yy}"))
