"""Checksums and formats of synthetic identifiers and dates."""
from __future__ import annotations

import random
import re
from datetime import date

from app.rules.checksums import medicare_valid
from app.synth import identifiers as ids


def test_medicare_numbers_have_valid_check_digit():
    rng = random.Random(0)
    numbers = [ids.medicare_number(rng) for _ in range(200)]
    # Valid for the rule recogniser, with an issue number (10th digit) 1-9.
    assert all(medicare_valid(n) and n.replace(" ", "")[9] != "0" for n in numbers)
    assert any(" " in n for n in numbers) and any(n.isdigit() for n in numbers)



def test_provider_number_check_character():
    locations = "0123456789ABCDEFGHJKLMNPQRTUVWXY"
    rng = random.Random(1)
    for _ in range(100):
        pn = ids.provider_number(rng)
        assert re.fullmatch(r"\d{6}[0-9A-HJ-NP-RT-Y][YXWTLKJHFBA]", pn)
        weighted = sum(int(c) * w for c, w in zip(pn[:6], (3, 5, 8, 4, 2, 1)))
        weighted += locations.index(pn[6]) * 6
        assert pn[7] == "YXWTLKJHFBA"[weighted % 11]


def test_npi_passes_luhn_with_prefix():
    rng = random.Random(2)
    for _ in range(100):
        digits = [int(c) for c in "80840" + ids.npi(rng)]
        total = sum(d if i % 2 == 0 else (2 * d - 9 if 2 * d > 9 else 2 * d)
                    for i, d in enumerate(reversed(digits)))
        assert total % 10 == 0


def test_ssn_shape_and_area():
    rng = random.Random(3)
    for _ in range(200):
        s = ids.ssn(rng)
        assert re.fullmatch(r"\d{3}-\d{2}-\d{4}", s)
        assert s[:3] not in ("000", "666") and int(s[:3]) < 900


def test_au_postcodes_and_area_codes_follow_state():
    rng = random.Random(4)
    assert 3000 <= int(ids.au_postcode(rng, "VIC")) <= 3999
    assert ids.au_postcode(rng, "NT").startswith("08")
    phones = {ids.au_landline(rng, "QLD") for _ in range(50)}
    assert all(p.startswith(("(07)", "07", "+61 7")) for p in phones)


def test_dates_follow_locale_order():
    d = date(2014, 3, 5)
    au = {ids.format_date(d, random.Random(i), "en_AU") for i in range(300)}
    us = {ids.format_date(d, random.Random(i), "en_US") for i in range(300)}
    assert "05/03/2014" in au and "03/05/2014" in us
    assert "5/3" in au and "3/5" in us
    assert "2014-03-05" in au and "2014-03-05" in us
    assert any("Wednesday" in x for x in au) and any("March 5th, 2014" == x for x in us)
    dobs = {ids.format_date(d, random.Random(i), "en_AU", dob=True) for i in range(200)}
    assert all("14" in x for x in dobs)          # a date of birth keeps its year
