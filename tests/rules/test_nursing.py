"""Yearless dates of ward notes, and the ratios that look like them."""
from app.rules.nursing import find_short_dates


def dates(text):
    return [text[s:e] for s, e in find_short_dates(text)]


def test_month_day_and_short_years():
    assert dates("LAST BM 2/14. LINE PLACED 10/31, CT 7/22") == ["2/14", "10/31", "7/22"]
    assert dates("PMH: MI '92, S/P AVR 4/97, CABG \u201995") == ["92", "4/97", "95"]


def test_measurements_scores_and_fractions_are_not_dates():
    for text in ("BP 110/60", "CPAP 5/5", "PS 10/5 PEEP", "PAIN 4/10", "1/2 NS AT 75",
                 "STRENGTH 5/5", "SATS 95/97%", "ABG 7.38/40/90", "DATED 10/19/09"):
        assert dates(text) == [], text


def places(text):
    from app.rules.nursing import find_care_places
    return [text[s:e] for s, e in find_care_places(text)]


def test_hospitals_and_named_wards_by_their_context():
    assert places("TAKEN TO UNION HOSPITAL WHERE") == ["UNION HOSPITAL"]
    assert places("SEEN AT glenmoor rehab") == ["glenmoor rehab"]
    assert places("went to U of Maryland Hosp and") == ["U of Maryland Hosp"]
    assert places("transfer to feldman 2 today") == ["feldman"]
    assert places("ADMITTED TO OSTRANDER7 W/ CHF") == ["OSTRANDER"]
    assert places("PT WAS TX TO BGH FOR FOLLOW UP") == ["BGH"]
    assert places("FOUND DOWN -> BGH EW, INTUBATED") == ["BGH"]    # initials in GH anywhere
    # a ward named by a transfer is one wherever the note writes it again
    assert places("HX FROM MICU/FELDMAN/CCU TEAMS. ADMITTED TO FELDMAN 3. FELDMAN3 RN AWARE") == [
        "FELDMAN", "FELDMAN", "FELDMAN"]
    assert places("HX FROM MICU/FELDMAN/CCU TEAMS") == []


def test_generic_places_and_drips_are_not_names():
    for text in ("IN THE HOSPITAL", "TRANSFERRED FROM OUTSIDE HOSPITAL", "transfer to floor 2",
                 "weaned from neo 2 to 1", "C/O TO MICU 4", "peep from 10 to 5",
                 # words, not a hospital's initials; no name across a full stop
                 "SATS DROPPED TO HIGH 80S", "encouraged to cough", "as needed. Cont rehab",
                 "RESPONDING TO MSO4", "WEANED TO FIO2 40%", "transferred to micu2",
                 "STRONG COUGH, HIGH FLOW", "ON HGH. ROUGH NIGHT", "bgh ew",
                 # common words or lower case before a kind, with no cue before them
                 "SHE HAD PROLONGED HOSPITAL STAY", "contact social wrker concerning rehab"):
        assert places(text) == [], text


def test_pagers_and_years_written_with_an_apostrophe():
    from app.rules.registry import shipped_finder
    find_written_years = shipped_finder("written-year")

    text = "Pager #12345. PG: 23456 beeper number 55037. PAGE 4. BP 120/80 #4/10 PAIN"
    assert found(shipped_finder("pager"), text) == ["12345", "23456", "55037"]
    text = "CABG '92, AAA REPAIR IN 14' C/B DVT. WALKED 14' IN HALL. 5'10\" TALL"
    assert [text[s:e] for s, e in find_written_years(text)] == ["92", "14"]


def test_years_no_clock_shows():
    from app.rules.registry import shipped_finder
    find_written_years = shipped_finder("written-year")

    text = ("GB removal, MI 1992. RENAL CELL CA 1977,S/P NEPHRECTOMY. CABG 1957. UO 1975 CC. "
            "BACK IN 1980S. SVR 1500-1980. NEO OFF @ 1900. TEMP 1965.5")
    assert [text[s:e] for s, e in find_written_years(text)] == ["1992", "1977"]


def found(finder, text):
    return [text[s:e] for s, e in finder(text)]


def test_places_where_someone_lives():
    from app.rules.nursing import find_home_places

    def places(text):
        return [text[s:e] for s, e in find_home_places(text)]

    assert places("pt married, lives in glendale, husband") == ["glendale"]
    assert places("both live in tarrytown,ma in the summer") == ["tarrytown"]
    assert places("DAUGHTER LIVES IN OAKHURST. Lives in California. lives in a house") == [
        "OAKHURST"]                      # a state alone identifies no one; "a" is no place


def test_dates_with_a_month_name_and_years_of_a_past_history():
    from app.rules.nursing import find_history_years
    from app.rules.registry import shipped_finder
    find_month_dates = shipped_finder("month-date")

    text = ("BIRTHDAY IS TOMORROW, may 16, 2015. CASE MARCH OF 1993. 20th Oct, 1989. "
            "ON JULY 1 FROM OSH. MAY 2 DAYS. DEC 40% FIO2. NOV 34.")
    assert found(find_month_dates, text) == ["may 16, 2015", "MARCH OF 1993", "20th Oct, 1989",
                                             "JULY 1"]
    # the first day of a range before its month; not a range of values
    text = "progress note\n3->4 dec, 97\nHR 52-76 JUNCTIONAL"
    assert found(find_month_dates, text) == ["3", "4 dec, 97"]
    text = "PMH: CAD: NQWMI 13. HTN.\nPMHX CVA IN 94 AND 00.\nHX: NIDDM, 09 PTCA\nS/P MI 30 DAYS\nMI 92"
    assert found(find_history_years, text) == ["13", "94", "00", "09"]


def test_phone_numbers_however_joined_and_ages_over_89():
    from app.rules.registry import shipped_finder

    text = "DTR 212- 476- 8356. PAGER 830-650-2352 HOME (410) 555 0123. CK 1500-2250-3000. BP 120/80"
    assert found(shipped_finder("ten-digit-phone"), text) == [
        "212- 476- 8356", "830-650-2352", "(410) 555 0123"]
    text = "98 yo gentleman. 92 YEAR OLD. 89 YO. 64 y/o. 101 Y.O."
    assert found(shipped_finder("age-over-89"), text) == ["98", "92", "101"]


def test_care_places_the_floor_takes():
    from app.rules.nursing import find_sure_care_places

    def places(text):
        return [text[s:e] for s, e in find_sure_care_places(text)]

    # The name, not the kind ("Hospital" identifies no one), unless the kind
    # is part of the name ("MEMORIAL"); common words need "from/to/at/in/by".
    assert places("TRANSFERRED FROM GREEN VALLEY HOSPITAL. went to Oakridge-Bellamy rehab") == [
        "GREEN VALLEY", "Oakridge-Bellamy"]
    assert places("SEEN BY LAKESIDE NURSING AGENCY. TAKEN TO ELMWOOD MEMORIAL ON 2/3") == [
        "LAKESIDE", "ELMWOOD MEMORIAL"]
    assert places("sent to the Westbrook Medical Center; TO GO TO CRANMOOR 4") == [
        "Westbrook", "CRANMOOR"]
    # Not places: common words without the cue, a stop between, initials that are words.
    for text in ("the basic hospital", "HAD PROLONGED HOSPITAL STAY", "as needed. Cont rehab",
                 "MED FOR COMFORT..BEGIN REHAB", "cardiac rehab", "DROPPED TO HIGH 80S",
                 "encouraged to cough", "prev rehab site", "IN THE HOSPITAL"):
        assert places(text) == [], text


def test_places_after_a_cue_and_saints_after_a_move():
    from app.rules.nursing import find_cued_places

    def places(text):
        return [text[s:e] for s, e in find_cued_places(text)]

    assert places("FAMILY IN SAN ANTONIO. nephew Raj of Tucson came. TO GO TO ST. AGNES FRIDAY") == [
        "SAN ANTONIO", "Tucson", "ST. AGNES"]
    # A state alone, common words, sinus tachycardia ("NSR TO ST HR 90") are no places.
    for text in ("SON LIVES IN TEXAS", "in new mexico", "IN BED", "NSR TO ST HR 90S",
                 "converted to st with pvcs", "TO ST LOW 100S"):
        assert places(text) == [], text


def test_dates_in_numbers_with_their_year_and_ranges():
    from app.rules.nursing import find_numeric_dates

    text = "OD-4/7/88. CXR 10-16-2019, LABS 11.21.93. CULTURES 3/14-3/16."
    assert [text[s:e] for s, e in find_numeric_dates(text)] == [
        "4/7/88", "10-16-2019", "11.21.93", "3/14-3/16"]
    # Not dates: gases, haemodynamics, fractions, a year no one writes.
    text = "ABG 7.38/40/90. CO/CI/SVR 3/2/1500. 1/3-1/2 UP. 13/5/40. 4/7/88%"
    assert find_numeric_dates(text) == []


def test_two_dates_run_together_and_a_year_after_a_stop():
    from app.rules.nursing import find_numeric_dates

    text = "HAD XRT 11/02/11/03 AND 4/18.97\nneuro: ok. 1/2/3/4 UP. 13/40/2/5. 7.4/40.22"
    assert found(find_numeric_dates, text) == ["11/02/11/03", "4/18.97"]


def test_universities_with_a_listed_place():
    from app.rules.nursing import find_cued_places

    text = "INSULIN PER U Oregon SCALE. from university of texas hospital. U/O 30"
    assert [text[s:e] for s, e in find_cued_places(text)] == ["U Oregon", "university of texas"]


def test_a_town_before_its_state_and_no_place_before_a_device():
    from app.rules.nursing import find_cued_places

    text = "an overview of this tucson arizona's unit. FROM Tucson, Arizona. IN DOUGLAS POUCH"
    assert found(find_cued_places, text) == ["tucson", "Tucson"]


def test_yearless_dates_that_no_veto_refuses():
    from app.rules.nursing import find_yearless_dates

    text = "LINE PLACED ON 2/14. NPO SINCE 10/3, DRIP FROM 3/1 UNTIL 3/7. cultures dated 6/22"
    assert found(find_yearless_dates, text) == ["2/14", "10/3", "3/1", "3/7", "6/22"]
    # without a word before, and after a measurement's word in the sentence before
    text = "LAST BM 8/14. IN USOH UNTIL 8/23 WHEN SOB. SATS DOWN ON 2L O2. 10/1 WENT TO CT"
    assert found(find_yearless_dates, text) == ["8/14", "8/23", "10/1"]
    # Settings, ratios and scores are not dates.
    text = ("TRIALED ON 5/5, 40%. ON 10/5 BIPAP. RUNNING ON 1/4 NS. ON 12/40 PS. ON 2-4 UNITS. "
            "PAIN 4/10. BP 110/60. O2 2/3")
    assert found(find_yearless_dates, text) == []


def test_capitalised_words_after_a_move_in_mixed_case():
    from app.rules.nursing import find_moved_to_places

    text = ("Pt went to Lakeview on 3/6. Plan: transfer to Ostrander 4. return to Glen Oaks "
            "tomorrow. Transfer to Medical Floor. transferred to Dr. Lee. sent to Rehab. "
            "TRANSFERRED TO CCU. WENT TO LAKEVIEW")
    assert [text[s:e] for s, e in find_moved_to_places(text)] == [
        "Lakeview", "Ostrander", "Glen Oaks"]


def test_reference_numbers_and_hospitals_named_as_churches():
    from app.rules.registry import shipped_finder

    text = "papers sent (ref # 4417702). CLAIM NO. 55120. REF 12. PAGE 2 OF 4"
    assert found(shipped_finder("reference-number"), text) == ["4417702", "55120"]
    text = "WENT TO SACRED HEART WITH FEVER. transfer back to good samaritan. HOLY WATER. GOOD HEART"
    assert found(shipped_finder("church-named-hospital"), text) == ["SACRED HEART",
                                                                   "good samaritan"]

