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
                 "STRONG COUGH, HIGH FLOW", "ON HGH. ROUGH NIGHT", "bgh ew"):
        assert places(text) == [], text


def test_pagers_and_years_written_with_an_apostrophe():
    from app.rules.nursing import find_pagers, find_written_years

    text = "Pager #12345. PG: 23456 beeper number 55037. PAGE 4. BP 120/80 #4/10 PAIN"
    assert [text[s:e] for s, e in find_pagers(text)] == ["12345", "23456", "55037"]
    text = "CABG '92, AAA REPAIR IN 14' C/B DVT. WALKED 14' IN HALL. 5'10\" TALL"
    assert [text[s:e] for s, e in find_written_years(text)] == ["92", "14"]


def test_names_after_a_title_whatever_the_name():
    from app.rules.nursing import find_titled_names

    def names(text):
        return [text[s:e] for s, e in find_titled_names(text)]

    assert names("DR. PRICE TO BEDSIDE. mrs. powers arrived. Drs' Okafor and Lindqvist in") == [
        "PRICE", "powers", "Okafor", "Lindqvist"]
    assert names("SEEN BY DR. J. KOWALSKI TODAY") == ["J. KOWALSKI"]
    assert names("Dr Ferdinand Kowalczyk And") == ["Ferdinand Kowalczyk"]
    # A capitalised word after a first name in mixed case is the surname,
    # even a common word; not in capitals ("DR JOHN WILL SEE") nor a verb.
    assert names("Dr Ivo Mason AWARE. Dr. Ada Baker signed. Dr Hugo Will see") == [
        "Ivo Mason", "Ada Baker", "Hugo"]
    assert names("DR JOHN WILL SEE PT. Dr. Hayes Notified. Dr. Ann And team") == [
        "JOHN", "Hayes", "Ann"]
    # Not names: a common word after the title, "MS" (mental status, morphine).
    assert names("DR AWARE. MD NOTIFIED. MR AS ABOVE. MS 4MG IV. MS BACK TO BASE") == []


def found(finder, text):
    return [text[s:e] for s, e in finder(text)]


def test_names_before_a_credential_and_after_a_role():
    from app.rules.nursing import find_credentialed_names

    def names(text):
        return found(find_credentialed_names, text)

    assert names("Seen by J. Yi, MD. Pain to r arm") == ["J. Yi"]
    assert names("LLL, and now RLL. Stord-Painter MD plans to") == ["Stord-Painter"]
    assert names("plan to extubate. s. roberto rrt\n") == ["s. roberto"]
    assert names("R PUPIL (B. KARGAS PA AWARE). FEBRILE NP JEN AWARE.") == ["B. KARGAS", "JEN"]
    # Not names: roles ("OSTOMY RN"), common words ("PER MD"), abbreviations
    # ("FLD, MD"), and the pulmonary artery ("RIJ PA LINE", "LOW BACK PAIN").
    assert names("OSTOMY RN applied. PER MD. maintenance fld, MD will discuss. RIJ PA LINE. "
                 "C/O LOW BACK PAIN. INCISIONAL PAIN. he is an rn") == []


def test_unlisted_names_after_a_role_and_full_names_before_aware():
    from app.rules.nursing import find_credentialed_names as names

    assert found(names, "cont lasix per md okonkwo. am labs") == ["okonkwo"]
    assert found(names, "Plan per NP Okonkwo, cont") == ["Okonkwo"]
    assert found(names, "drsg changed, ines marqueza aware. cont") == ["ines marqueza"]
    # a lower-case word after a role in a note with capitals is a misspelt
    # word; a word that is no first name before the surname is no name
    assert found(names, "Plan per md verbl, cont") == []
    assert found(names, "NEURO MARQUEZA AWARE") == []


def test_an_initial_and_a_surname():
    from app.rules.nursing import find_initialed_names as names

    assert found(names, "seen by p. renard, plan to") == ["p. renard"]
    assert found(names, "PER Z. OKAFOR IN TO SEE") == ["Z. OKAFOR"]
    # a plan's items, a side, a letter before a word with a letter alone, a common word
    assert found(names, "A. SEPSIS\nP. ANTIBIOTICS\nS/P R. thoracotomy. D and I. X-ray done. W. HELP") == []


def test_places_where_someone_lives():
    from app.rules.nursing import find_home_places

    def places(text):
        return [text[s:e] for s, e in find_home_places(text)]

    assert places("pt married, lives in catonsville, husband") == ["catonsville"]
    assert places("both live in hampton,ma in the summer") == ["hampton"]
    assert places("DAUGHTER LIVES IN PIKESVILLE. Lives in California. lives in a house") == [
        "PIKESVILLE"]                      # a state alone identifies no one; "a" is no place


def test_dates_with_a_month_name_and_years_of_a_past_history():
    from app.rules.nursing import find_history_years, find_month_dates

    def found(fn, text):
        return [text[s:e] for s, e in fn(text)]

    text = ("BIRTHDAY IS TOMORROW, may 16, 2015. CASE MARCH OF 1993. 20th Oct, 1989. "
            "ON JULY 1 FROM OSH. MAY 2 DAYS. DEC 40% FIO2. NOV 34.")
    assert found(find_month_dates, text) == ["may 16, 2015", "MARCH OF 1993", "20th Oct, 1989",
                                             "JULY 1"]
    text = "PMH: CAD: NQWMI 13. HTN.\nPMHX CVA IN 94 AND 00.\nHX: NIDDM, 09 PTCA\nS/P MI 30 DAYS\nMI 92"
    assert found(find_history_years, text) == ["13", "94", "00", "09"]


def test_names_after_a_plural_title():
    from app.rules.nursing import find_titled_names

    text = "EXPIRED. DR'S CAMARDA AND CLIFFORD REQUESTED. Drs Ferullo and Saeed in. DRS AWARE"
    assert [text[s:e] for s, e in find_titled_names(text)] == [
        "CAMARDA", "CLIFFORD", "Ferullo", "Saeed"]


def test_phone_numbers_however_joined_and_ages_over_89():
    from app.rules.nursing import find_old_ages, find_phones

    text = "DTR 212- 476- 8356. PAGER 830-650-2352 HOME (410) 555 0123. CK 1500-2250-3000. BP 120/80"
    assert [text[s:e] for s, e in find_phones(text)] == ["212- 476- 8356", "830-650-2352",
                                                         "(410) 555 0123"]
    text = "98 yo gentleman. 92 YEAR OLD. 89 YO. 64 y/o. 101 Y.O."
    assert [text[s:e] for s, e in find_old_ages(text)] == ["98", "92", "101"]


def test_names_after_a_relation():
    from app.rules.nursing import find_relative_names

    def names(text):
        return [text[s:e] for s, e in find_relative_names(text)]

    assert names("HIS NEPHEW TOBIAS CALLED. wife, Marisol Quintero (555) visited. "
                 "social: son jonah in. Sister-in-law Greta Vandermeer here") == [
        "TOBIAS", "Marisol Quintero", "jonah", "Greta Vandermeer"]
    # A first name that is also a word needs a stop or a deed after it.
    assert names("son, bill, phoned. social: rose visited. DTR-KAYLEIGH 555-0101") == [
        "bill", "rose", "KAYLEIGH"]
    # Not names: relatives, roles, verbs, common words, misspelt deeds.
    assert names("SOCIAL: SON AND DAUGHTER VISITED. WIFE WILL CALL. sister said ok. "
                 "son at bedside. SOCIAL:MARRIED-NO KIDS. daughter phoned-family. "
                 "husband visisted today. son-in-law present. friend case manager") == []


def test_initials_before_a_name():
    from app.rules.nursing import initial_before

    def joined(text, name):
        start = initial_before(text, text.index(name))
        return None if start is None else text[start:text.index(name) + len(name)]

    assert joined("LABS SENT, R TANAKA ORDERED", "TANAKA") == "R TANAKA"
    assert joined("GAVE ANTACID-K. OYELARAN AWARE", "OYELARAN") == "K. OYELARAN"
    assert joined("per m. j. Abernathy", "Abernathy") == "m. j. Abernathy"
    # Words, not initials: "A", "I", the end of a word ("IV'S", "PT.").
    for text in ("SPOKE TO A TANAKA", "I TANAKA", "IV'S TANAKA", "PER PT. TANAKA", "AND TANAKA"):
        assert joined(text, "TANAKA") is None, text


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


def test_a_listed_name_after_a_role():
    from app.rules.nursing import find_credentialed_names

    def names(text):
        return [text[s:e] for s, e in find_credentialed_names(text)]

    assert names("K REPLETED PER NP Hoffman. EXTUBATED BY HO GUTIERREZ.") == [
        "Hoffman", "GUTIERREZ"]
    assert names("LINE OUT PER MD EPI WIRES OUT. DC'D BY MD TOL WELL. per md verbal") == []


def test_names_joined_by_and():
    from app.rules.nursing import names_beside

    def beside(text, name):
        start = text.index(name)
        return [text[s:e] for s, e in names_beside(text, start, start + len(name))]

    assert beside("BOTH ODALYS AND KWAME ARE PROXIES", "ODALYS") == ["KWAME"]
    assert beside("BOTH ODALYS AND KWAME ARE PROXIES", "KWAME") == ["ODALYS"]
    assert beside("nsg (p. mbeki and t. o'hara) checked", "mbeki") == ["t. o'hara"]
    # Common words beside a name are its deeds, relatives are no names.
    assert beside("Dr. Ferreira and team spoke", "Ferreira") == []
    assert beside("ODALYS AND SON VISITED", "ODALYS") == []
    # a first name that is a word, capitalised in mixed case, not in capitals
    assert beside("Both Odalys and Hope are his proxies", "Odalys") == ["Hope"]
    assert beside("BOTH ODALYS AND HOPE ARE HIS PROXIES", "ODALYS") == []
    assert beside("Odalys and hope are here", "Odalys") == []


def test_more_clinicians_and_relatives_by_their_context():
    from app.rules.nursing import find_credentialed_names, find_relative_names

    text = "VENT CHECKED.\nOsvaldo Brandt CRT\nNP hope made aware. MD made aware. RT IJ PATENT"
    assert [text[s:e] for s, e in find_credentialed_names(text)] == ["Osvaldo Brandt", "hope"]
    text = ("CALL Ines Okwu (daughter) 555 0101. JOAO OYELOWO, HIS NEPHEW, VISITED. "
            "SON 555 0102 AND ANOTHER SON ABROAD. Tea (pt's son)")
    assert [text[s:e] for s, e in find_relative_names(text)] == ["Ines Okwu", "JOAO OYELOWO"]
    text = "Wife and lawyer (Tomasz Wierzbicki) aware. FAMILY ATTORNEY IN TO DISCUSS"
    assert [text[s:e] for s, e in find_relative_names(text)] == ["Tomasz Wierzbicki"]


def test_a_first_name_that_is_a_word_before_a_surname():
    from app.rules.nursing import find_credentialed_names, find_relative_names

    # before a credential, in mixed case, the capitalised word after a first name
    assert found(find_credentialed_names, "vent ok.\nRose Hunter CRT\n") == ["Rose Hunter"]
    assert found(find_credentialed_names, "SATS 90S. WILL KEEP NP AT 4L") == []
    # before whose relative someone is
    assert found(find_relative_names, "call Hope Vaskova (daughter) first") == ["Hope Vaskova"]
    assert found(find_relative_names, "Hope Vaskova (daughter)")[0] != "Vaskova"
    # a language is no relative's name
    assert found(find_relative_names, "a+o x3 via daughter,russian speaking") == []


def test_names_before_a_phone_number():
    from app.rules.nursing import find_contact_names

    text = ("very devoted. Ines Okwu cell# 410-555-0134. CONTACT PERSON IVO MARR (212-555-0123). "
            "Sister in Ohio 415-555-0199. CALL 410-555-0100")
    assert found(find_contact_names, text) == ["Ines Okwu", "IVO MARR"]


def test_dates_in_numbers_with_their_year_and_ranges():
    from app.rules.nursing import find_numeric_dates

    text = "OD-4/7/88. CXR 10-16-2019, LABS 11.21.93. CULTURES 3/14-3/16."
    assert [text[s:e] for s, e in find_numeric_dates(text)] == [
        "4/7/88", "10-16-2019", "11.21.93", "3/14-3/16"]
    # Not dates: gases, haemodynamics, fractions, a year no one writes.
    text = "ABG 7.38/40/90. CO/CI/SVR 3/2/1500. 1/3-1/2 UP. 13/5/40. 4/7/88%"
    assert find_numeric_dates(text) == []


def test_listed_names_told_and_universities():
    from app.rules.nursing import find_credentialed_names, find_cued_places

    text = "BP 80S, INES NOTIFIED. Z. OKAFOR AWARE. HO AWARE. TEAM AWARE. neurosurg aware"
    assert [text[s:e] for s, e in find_credentialed_names(text)] == ["INES", "OKAFOR"]
    text = "INSULIN PER U Oregon SCALE. from university of texas hospital. U/O 30"
    assert [text[s:e] for s, e in find_cued_places(text)] == ["U Oregon", "university of texas"]


def test_a_town_before_its_state_and_no_place_before_a_device():
    from app.rules.nursing import find_cued_places

    text = "an overview of this tucson arizona's unit. FROM Tucson, Arizona. IN DOUGLAS POUCH"
    assert found(find_cued_places, text) == ["tucson", "Tucson"]


def test_miss_and_ms_before_an_uncommon_name():
    from app.rules.nursing import find_titled_names

    text = "Miss Leontyne Okafor is a 64 yo. MS OKONKWO MAKES DECISIONS. MS CONTIN 30. MS INTACT"
    assert found(find_titled_names, text) == ["Leontyne", "OKONKWO"]


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
