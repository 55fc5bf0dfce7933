import datetime as dt

import pytest

from app.deid.dates import fit_ordinals, parse_date, shift_date

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


def test_a_range_keeps_its_length_over_the_end_of_february():
    """"3/4-3/6/2019": the first date takes the second's year (shifted in a
    leap year it lost a day: "1/30-1/31/2019")."""
    assert shift_date("3/4-3/6/2019", -34, day_first=False) == "1/29-1/31/2019"
    assert shift_date("Dec 30 - Jan 2, 2019", -34) == "Nov 26 - Nov 29, 2018"


def test_an_ordinal_suffix_is_made_to_fit_its_number():
    assert fit_ordinals("Tues 7rd") == "Tues 7th"
    assert fit_ordinals("the 1TH and 12nd") == "the 1ST and 12th"
    assert fit_ordinals("22nd, 3rdly, 7rd.") == "22nd, 3rdly, 7th."
    assert fit_ordinals("0th-86th May") == "1st-3rd May"       # drawn digits: days of a month


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


def test_a_note_shows_its_date_order():
    from app.deid.dates import note_day_first
    assert note_day_first(["3/5/2014", "10/25/2019"], default=True) is False
    assert note_day_first(["3/5/2014", "25/10/2019"], default=False) is True
    assert note_day_first(["3/5/2014", "Oct 12, 2019"], default=True) is False   # month name first
    assert note_day_first(["3/5/2014", "12 October 2019"], default=False) is True
    assert note_day_first(["3/5/2014"], default=True) is True                    # nothing to go by
    assert note_day_first(["25/10/2019", "10/25/2019"], default=False) is False  # both: default
    assert note_day_first(["10:30 3/5/2014"], default=True) is True              # a time is no date
    # ISO 8601 writes the year first in every locale: "08-16" is no month-first evidence.
    assert note_day_first(["1980-08-16", "20/4/19"], default=False) is True
    assert note_day_first(["1980-08-16"], default=True) is True


def test_a_corpus_shows_its_date_order():
    from app.deid.dates import corpus_day_first
    assert corpus_day_first([["10/25/2019"], ["3/5/2014"], ["1/13/2020", "2/2/2016"]]) == (False, 2)
    assert corpus_day_first([["25/10/2019"], ["13/1/2020"]]) == (True, 2)
    assert corpus_day_first([["3/5/2014"]]) == (None, 0)
    assert corpus_day_first([["25/10/2019"], ["10/25/2019"]]) == (None, 2)    # mixed


def _shifts(docs, policy, secret="s"):
    """Per patient, the day shifts seen between original and surrogate dates
    (both read month-first, as the US notes are written)."""
    from app.deid.redact import Redactor
    redactor = Redactor(policy, secret=secret)
    shifts: dict[str, set[int]] = {}
    for d in docs:
        res = redactor.redact(d.text, d.spans, patient_key=d.patient_id)
        for m in res.span_map:
            if policy.kind_for(m.label) != "date":
                continue
            before = parse_date(d.text[m.in_start:m.in_end], day_first=False)
            after = parse_date(res.text[m.out_start:m.out_end], day_first=False)
            if before is not None:
                shifts.setdefault(d.patient_id, set()).add(
                    None if after is None else (after - before).days)
    return shifts


def test_us_notes_keep_every_interval_when_the_project_reads_month_first():
    """Issue 23 item 2: 52 of 270 US dates in 28 of 46 patients got the wrong shift."""
    from app.deid import Policy
    from app.synth import generate
    docs = generate(100, seed=11, locale="en_US", label_set="extended")
    shifts = _shifts(docs, Policy(default="surrogate", date_order="mdy"))
    assert len(shifts) > 40
    assert all(len(s) == 1 and None not in s for s in shifts.values()), shifts


def test_us_notes_that_show_their_order_are_read_month_first_in_a_day_first_project():
    from app.deid import Policy
    from app.deid.dates import note_day_first
    from app.synth import generate
    docs = generate(100, seed=11, locale="en_US", label_set="extended")
    policy = Policy(default="surrogate", locale="en_AU")
    showing = [d for d in docs if note_day_first(
        [d.text[s.start:s.end] for s in d.spans if policy.kind_for(s.label) == "date"],
        default=True) is False]
    assert len(showing) > 50
    shifts = _shifts(showing, policy)
    assert all(len(s) == 1 and None not in s for s in shifts.values()), shifts


@pytest.mark.parametrize("original, offset, expected", [
    # A day beside a month written once takes that month ("May 3-5" scrambled
    # its digits), and keeps the range's length.
    ("May 3-5", 40, "Jun 12-14"),
    ("3-5 May 2019", 40, "12-14 Jun 2019"),
    ("May 3-5, 2019", 40, "Jun 12-14, 2019"),
    ("3rd-5th May", 40, "12th-14th Jun"),
    ("between 3rd and 5th of May", 40, "between 12th and 14th of Jun"),
    # Past the month's end the day is written in its own month.
    ("May 29-31", 2, "May 31-Jun 2"),
    ("Dec 30-31, 2019", 2, "Jan 1-2, 2020"),
    # Across a month's end, with the words around the day kept (a walkthrough
    # read "Apr 30 toMay 2 ", " 30th of Aprand 2nd of May", "May 31st-31st",
    # and a scrambled "Nov 9-5, 4061").
    ("May 29th-31st", 2, "May 31st-Jun 2nd"),
    ("between 3rd and 5th of May", -3, "between 30th of Apr and 2nd of May"),
    ("May 3 to 5", -3, "Apr 30 to May 2"),
    ("May 3-5, 2019", -3, "Apr 30-May 2, 2019"),
    ("Mon 3rd - Wed 5th May", -3, "Fri 30th Apr - Sun 2nd May"),
    ("Wed 29 - Fri 31 May 2019", 3, "Sat 1 - Mon 3 Jun 2019"),
    # The second day's weekday is dropped with its full stop (a walkthrough
    # read "Mon . 31 August 2020").
    ("Tue 3 and Thu. 5 June 2020", 89, "Mon 31 August 2020 and Wed. 2 September 2020"),
    ("Tue. 3 - Thu. 5 June", -3, "Sat. 31 May - Mon. 2 June"),
    # "May 29-31": 31 is a day, not the year 2031 (it was kept as written).
    ("May 29-31", 40, "Jul 8-10"),
    # Years: a range of years, its last two digits, a decade.
    ("2018-2019", 400, "2019-2020"),
    ("2018-19", 400, "2019-20"),
    ("1990s", 300, "1990s"),
    ("the '80s", -300, "the '80s"),
])
def test_ranges_that_write_their_month_or_century_once(original, offset, expected):
    assert shift_date(original, offset) == expected


def test_a_numeric_day_range_is_not_guessed_and_a_two_digit_year_stays_a_year():
    assert shift_date("3/4-6", 40) is None          # 3/4-3/6 or 3/4-6/4: replaced
    assert shift_date("29-May-99", 40) == "8-Jul-99"
    assert shift_date("14/2014", 10) is None        # no month 14, no year range


def test_a_date_without_its_year_moves_as_the_same_date_with_a_common_year():
    """"May 3" and "3 May 2019" of one note came out a day apart: the first
    was shifted within the leap year 2000, across the end of February."""
    for offset in (-300, -100, 250):                   # no 29th of February crossed
        with_year = parse_date(shift_date("3 May 2019", offset))
        without = shift_date("May 3", offset)
        assert without == f"{with_year:%b} {with_year.day}", offset
    assert shift_date("Feb 29", 1) == "Mar 1"             # the 29th still is one


def test_a_date_without_its_year_is_shifted_in_the_year_given():
    from app.deid.dates import note_year
    assert shift_date("Feb 28", 1) == "Mar 1"                 # a common year
    assert shift_date("Feb 28", 1, year=2020) == "Feb 29"     # the note's leap year
    assert shift_date("Mar 1", -1, year=2020) == "Feb 29"
    assert shift_date("Feb 29", 1, year=2019) == "Mar 1"      # no such day: 2000's
    assert shift_date("28/02", 2, year=2020) == "01/03"
    # A range written as two dates, the year once: the first moves as the
    # second does ("Sat 30 May - Mon 1 June 2020", a day early before).
    assert shift_date("Sat 30 May", -344, year=2020) == "Fri 21 Jun"
    assert shift_date("Mon 1 June 2020", -344) == "Sun 23 June 2019"
    assert note_year(["28/02/2020", "Feb 28", "3 Mar 2020"]) == 2020
    assert note_year(["30/12/2019", "2 Jan 2020"]) is None    # across New Year
    assert note_year(["Feb 28", "March 2020"]) is None        # no whole date


def test_a_date_shifted_past_the_calendars_end_is_no_date_to_shift():
    """A model's "31/12/9999" raised OverflowError out of the redaction."""
    assert shift_date("31/12/9999", 30) is None
    assert shift_date("Dec 31", 30, year=9999) is None
    assert shift_date("01/01/0001", -1) is None
