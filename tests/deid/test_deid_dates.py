import datetime as dt

import pytest

from app.deid.dates import parse_date, shift_date

OFFSET = 40  # 2014-03-05 + 40 days = 2014-04-14 (a Monday)


@pytest.mark.parametrize("original, expected", [
    ("05/03/2014", "14/04/2014"),
    ("5/3/14", "14/4/14"),
    ("5 Mar 14", "14 Apr 14"),
    ("5 March 2014", "14 April 2014"),
    ("March 5th, 2014", "April 14th, 2014"),
    ("MARCH 5TH 2014", "APRIL 14TH 2014"),
    ("2014-03-05", "2014-04-14"),
    ("05.03.2014", "14.04.2014"),
    ("05-03-2014", "14-04-2014"),
    ("5/3", "14/4"),
    ("20140305", "20140414"),
    ("Wed 5 Mar 2014", "Mon 14 Apr 2014"),
    ("Wednesday, March 5, 2014", "Monday, April 14, 2014"),
    ("05/03/2014 10:30", "14/04/2014 10:30"),
    ("5 de marzo de 2014", "14 de abril de 2014"),
    ("miércoles 5 de marzo de 2014", "lunes 14 de abril de 2014"),
    ("March 2014", "April 2014"),
    ("2014", "2015"),
])
def test_format_preserving_shift_day_first(original, expected):
    assert shift_date(original, OFFSET, day_first=True) == expected


def test_month_first_locale_and_fallback_when_component_over_12():
    assert shift_date("03/05/2014", OFFSET, day_first=False) == "04/14/2014"
    # 13 cannot be a month: read day-first even in a month-first locale.
    assert shift_date("13/05/2014", 1, day_first=False) == "14/05/2014"
    assert shift_date("05/13/2014", 1, day_first=True) == "05/14/2014"


def test_padding_follows_the_original_style():
    assert shift_date("13/5/2014", -10, day_first=True) == "3/5/2014"
    assert shift_date("13/11/2014", -10, day_first=True) == "03/11/2014"
    assert shift_date("22nd March 2014", 10, day_first=True) == "1st April 2014"


def test_ordinal_suffix_recomputed():
    assert shift_date("March 1st, 2014", 1) == "March 2nd, 2014"
    assert shift_date("March 2nd, 2014", 1) == "March 3rd, 2014"
    assert shift_date("March 10th, 2014", 1) == "March 11th, 2014"
    assert shift_date("March 20th, 2014", 1) == "March 21st, 2014"


def test_two_digit_years_cross_the_century():
    assert shift_date("31/12/99", 1) == "01/01/00"
    assert shift_date("1/1/00", -1) == "31/12/99"


def test_feb_29():
    assert shift_date("29/02/2016", 1) == "01/03/2016"
    assert shift_date("28/02/2016", 1) == "29/02/2016"
    assert shift_date("28/02/2015", 1) == "01/03/2015"
    assert shift_date("29/02/2015", 1) is None          # not a date: caller does digits only
    assert shift_date("29/2", 1) == "1/3"                # no year: leap reference year


def test_weekday_recomputed_from_the_date():
    out = shift_date("Friday 7 March 2014", 100)
    new = dt.date(2014, 3, 7) + dt.timedelta(days=100)
    assert out == f"{new.strftime('%A')} {new.day} {new.strftime('%B')} {new.year}"


def test_intervals_preserved():
    dates = ["01/02/2014", "27/02/2014", "03/03/2014", "15/12/2015"]
    offset = -187
    shifted = [parse_date(shift_date(d, offset)) for d in dates]
    originals = [parse_date(d) for d in dates]
    for a, b, sa, sb in zip(originals, originals[1:], shifted, shifted[1:]):
        assert (b - a) == (sb - sa)


def test_unreadable_returns_none():
    for text in ("0/10/2017", "32/01/2014", "yesterday", "14/14/2014"):
        assert shift_date(text, 10) is None
