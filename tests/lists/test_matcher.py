"""The list matcher: variants, per-patient scoping, the stoplist rule, offsets."""
from __future__ import annotations

import pytest

from app.core.tokenize import tokenize
from app.lists import HospitalLists, ListMatcher


def _lists() -> HospitalLists:
    lists = HospitalLists()
    for value in ("QUILLAN", "Marlow-Fenwick, Oskar", "MAY", "Tibbs"):
        lists.add("staff", value)
    lists.add("places", "Wrenfield")
    lists.add("hospitals", "General Hospital")
    lists.add("hospitals", "Stourbridge Memorial Hospital")
    for field_name, value in (("first_name", "Ottoline"), ("last_name", "Varga"),
                              ("dob", "1946-03-04"), ("phones", "(410) 555-0199"),
                              ("record_numbers", "MRN-0045123"),
                              ("addresses", "12 Larch Close, Wrenfield")):
        lists.add("patients", value, patient_id="p1", field_name=field_name)
    lists.add("patients", "Hargreave", patient_id="p2", field_name="last_name")
    return lists


@pytest.fixture(scope="module")
def matcher() -> ListMatcher:
    return ListMatcher(_lists())


def found(matcher, text, patient="p1"):
    return [(text[h.start:h.end], h.category) for h in matcher.find(text, patient)]


@pytest.mark.parametrize("text, expected", [
    ("SEEN BY QUILLAN TODAY", ["QUILLAN"]),                       # exact, any case
    ("seen by quillan today", ["quillan"]),
    ("Seen by Quillan today", ["Quillan"]),
    ("DR. J. QUILLAN CALLED", ["J", "QUILLAN"]),                  # initial with a stop
    ("DR J QUILLAN CALLED", ["J QUILLAN"]),                       # bare initial
    ("PAGED QUILLAN J ABOUT K", ["QUILLAN J"]),                   # SURNAME INITIAL
    ("PAGED QUILLAN, J. ABOUT K", ["QUILLAN, J"]),
    ("NOTE BY QUILLAN, R.N. TODAY", ["QUILLAN"]),                 # a credential, no initial
    ("SEEN BY M.D. QUILLAN", ["QUILLAN"]),
    ("MARLOW, OSKAR AWARE", ["MARLOW, OSKAR"]),                   # SURNAME, First
    ("CALLED QUILLAN'S OFFICE", ["QUILLAN"]),                     # possessive
    ("DR MARLOW-FENWICK", ["MARLOW-FENWICK"]),                    # the hyphenated whole
    ("DR FENWICK SAW PT", ["FENWICK"]),                           # a hyphenated part
    ("DR MARLOW FENWICK SAW PT", ["MARLOW FENWICK"]),
    ("DR TIBBS-HARLAND", ["TIBBS-HARLAND"]),                      # a listed part of a compound
    ("DR QUILAN AWARE", ["QUILAN"]),                              # typo (deletion) after a title
    ("DR QIULLAN AWARE", ["QIULLAN"]),                            # typo (transposition)
])
def test_name_variants(matcher, text, expected):
    assert [t for t, _ in found(matcher, text)] == expected


def test_typo_needs_context_and_length(matcher):
    assert found(matcher, "QUILAN AWARE") == []         # a typo alone could be any word
    lists = HospitalLists()
    lists.add("staff", "TIBBS")
    assert found(ListMatcher(lists, typo_min_len=6), "DR TIBS") == []   # too short for a typo
    assert found(ListMatcher(lists), "DR TIBS") == [("TIBS", "staff_name")]


def test_ambiguous_entries_need_context(matcher):
    # "MAY" and "General Hospital" are ordinary words: no hit without context...
    assert found(matcher, "PT MAY NEED LASIX. IN GENERAL STAYS ARE LONG") == []
    # ...but a title, a relative, a neighbouring hit or an institution word is context.
    assert found(matcher, "DR MAY AWARE") == [("MAY", "staff_name")]
    assert found(matcher, "DAUGHTER MAY VISITED") == [("MAY", "staff_name")]
    assert found(matcher, "MAY QUILLAN VISITED") == [("MAY QUILLAN", "staff_name")]
    assert found(matcher, "MAY MD AWARE") == [("MAY", "staff_name")]
    assert found(matcher, "went to General Hospital today") == [("General", "hospital")]
    # A place's cue before an ambiguous place, whatever its case: "at", "from", a move and "to".
    assert found(matcher, "meeting at general this pm") == [("general", "hospital")]
    assert found(matcher, "CAME FROM GENERAL. TRANSFERRED TO GENERAL") == [
        ("GENERAL", "hospital"), ("GENERAL", "hospital")]
    assert found(matcher, "TALKED TO GENERAL SURGERY") == []


def test_contractions_are_not_names():
    lists = HospitalLists()
    lists.add("patients", "Don", patient_id="p1", field_name="first_name")
    lists.add("patients", "Ree", patient_id="p1", field_name="last_name")
    matcher = ListMatcher(lists)
    assert found(matcher, "PT DON'T WANT FOOD; WE'RE ASKING DON REE") == [("DON REE", "patient_name")]


def test_capitalised_in_mixed_case_note(matcher):
    text = "the family will call when the daughter and dr quillan agree; later May came"
    assert ("May", "staff_name") in found(matcher, text)
    assert found(matcher, "May be seen by the team later.") == []   # sentence start


def test_places_hospitals_and_short_forms(matcher):
    assert found(matcher, "LIVES IN WRENFIELD") == [("WRENFIELD", "place")]
    # A hospital's short form; a trailing "HOSPITAL" is left out of the span.
    assert found(matcher, "TX FROM STOURBRIDGE") == [("STOURBRIDGE", "hospital")]
    assert found(matcher, "TX FROM STOURBRIDGE MEMORIAL HOSPITAL") == [
        ("STOURBRIDGE MEMORIAL", "hospital")]


def test_patient_entries_apply_to_that_patient_only(matcher):
    text = "PT OTTOLINE VARGA, HARGREAVE"
    assert found(matcher, text, "p1") == [("OTTOLINE VARGA", "patient_name")]
    assert found(matcher, text, "p2") == [("HARGREAVE", "patient_name")]
    assert found(matcher, text, None) == []
    assert found(matcher, text, "p9") == []


def test_patient_table_fields(matcher):
    text = ("DOB 3/4/46, ALSO 04/03/1946 AND 4 MAR 1946. CALL 410-555-0199 OR (410) 5550199. "
            "MRN 0045123 / MRN-0045123. HOME 12 LARCH CLOSE, WRENFIELD")
    got = found(matcher, text)
    assert ("3/4/46", "dob") in got and ("04/03/1946", "dob") in got
    assert ("4 MAR 1946", "dob") in got
    assert ("410-555-0199", "phone") in got and ("410) 5550199", "phone") in got
    assert ("MRN 0045123", "record_number") in got and ("MRN-0045123", "record_number") in got
    assert ("12 LARCH CLOSE, WRENFIELD", "address") in got              # the whole address
    assert found(matcher, "BACK TO 12 LARCH CLOSE SOON") == [("12 LARCH CLOSE", "address")]
    assert found(matcher, "K 3.4 46 MG; 4105550198") == []       # other numbers are not hits


def test_hits_fall_on_token_boundaries(matcher):
    text = "Dr.J.Quillan's pt, SMITH-QUILLAN; daughter May; Marlow,Oskar\nQuillan"
    bounds = {t.start for t in tokenize(text)}, {t.end for t in tokenize(text)}
    hits = matcher.find(text, "p1")
    assert hits
    for h in hits:
        assert h.start in bounds[0] and h.end in bounds[1]
        assert "\n" not in text[h.start:h.end]


@pytest.mark.parametrize("entry, text, expected", [
    # Commas and street-type short forms do not hide a listed address
    # ("14 Wattle Street, Bendigo" was left in clear).
    ("14 Wattle Street Bendigo", "Home: 14 Wattle Street, Bendigo.", ["14 Wattle Street, Bendigo"]),
    ("14 Wattle Street Bendigo", "Lives at 14 Wattle St, Bendigo.", ["14 Wattle St, Bendigo"]),
    ("14 Wattle Street Bendigo", "Home 14 WATTLE STREET.", ["14 WATTLE STREET"]),
    ("14 Wattle Street Bendigo", "lives on Wattle St near the park", ["Wattle St"]),
    ("7 Quarry Road, Ballarat", "to 7 Quarry Road Ballarat today", ["7 Quarry Road Ballarat"]),
    # The street alone of a common name needs its number or a capital.
    ("3 Main Street, Bendigo", "crossed the main street", []),
    ("3 Main Street, Bendigo", "at 3 Main St", ["3 Main St"]),
])
def test_an_address_is_found_whatever_its_commas_and_street_forms(entry, text, expected):
    lists = HospitalLists()
    lists.add("patients", entry, patient_id="p9", field_name="addresses")
    assert [t for t, _ in found(ListMatcher(lists), text, "p9")] == expected
