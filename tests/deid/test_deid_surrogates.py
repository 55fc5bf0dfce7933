import re

from app.deid.dates import parse_date
from app.deid.memory import InMemorySurrogateMemory, JsonFileSurrogateMemory, as_memory
from app.deid.policy import Policy, default_kind
from app.deid.pools import first_names, gender_of, last_names
from app.rules.checksums import luhn_valid, medicare_valid
from app.deid.surrogates import Surrogator

SECRET = "project-secret"


def make(locale="en_AU", memory=None, **kw):
    return Surrogator(Policy(default="surrogate", locale=locale, **kw), SECRET,
                      memory if memory is not None else InMemorySurrogateMemory())


def shape(s):
    return re.sub(r"[A-Z]", "A", re.sub(r"[a-z]", "a", re.sub(r"\d", "9", s)))


def test_same_identifier_same_patient_is_stable_across_instances():
    a = make().surrogate("John Smith", "PERSON", "P1")
    b = make().surrogate("John Smith", "PERSON", "P1")
    assert a == b and a != "John Smith"


def test_name_parts_are_consistent_within_a_patient():
    s = make()
    full = s.surrogate("John Smith", "PERSON", "P1")
    first, last = full.split()
    assert s.surrogate("John", "PERSON", "P1") == first
    assert s.surrogate("Smith", "PERSON", "P1") == last
    assert s.surrogate("Mr Smith", "PERSON", "P1") == f"Mr {last}"
    assert s.surrogate("SMITH, JOHN C", "PERSON", "P1") == f"{last.upper()}, {first.upper()} " + \
        s.surrogate("SMITH, JOHN C", "PERSON", "P1")[-1]
    assert s.surrogate("J. Smith", "PERSON", "P1") == f"{first[0]}. {last}"
    assert s.surrogate("john smith", "PERSON", "P1") == f"{first.lower()} {last.lower()}"
    assert s.surrogate("Smith's", "PERSON", "P1") == f"{last}'s"


def test_consistency_across_notes_through_a_persistent_memory(tmp_path):
    path = tmp_path / "memory.json"
    mem = JsonFileSurrogateMemory(path, SECRET)
    first = make(memory=mem).surrogate("Jane Doe", "PERSON", "P1")
    mem.save()
    assert "Jane" not in path.read_text() and "Doe" not in path.read_text()
    again = make(memory=JsonFileSurrogateMemory(path, SECRET)).surrogate("Jane Doe", "PERSON", "P1")
    assert again == first


def test_different_patients_get_different_surrogates():
    s = make()
    outs = {s.surrogate("John Smith", "PERSON", f"P{i}") for i in range(10)}
    assert len(outs) == 10


def test_two_originals_of_one_patient_never_share_a_surrogate():
    s = make()
    names = list(last_names("en_AU")[:300])
    s.register("P1", names)
    outs = [s.surrogate(n, "PERSON", "P1") for n in names]
    assert len(set(outs)) == len(outs)
    # ... and a surrogate is never one of the patient's own originals.
    assert not {o.casefold() for o in outs} & {n.casefold() for n in names}


def test_gender_and_pools_kept():
    s = make()
    for name in ("Mary", "Elizabeth", "Sarah"):
        out = s.surrogate(f"{name} Jones", "PERSON", "P9").split()[0]
        assert gender_of(out) in ("F", "U") and out in first_names("en_AU", "F")
    for name in ("Robert", "Michael", "David"):
        out = s.surrogate(f"{name} Jones", "PERSON", "P9").split()[0]
        assert out in first_names("en_AU", "M")
    assert s.surrogate("Jones", "PERSON", "P9") in last_names("en_AU")


def test_name_case_and_shape():
    s = make()
    up = s.surrogate("JOHN SMITH", "PERSON", "P2")
    assert up.isupper() and len(up.split()) == 2
    comma = s.surrogate("SMITH, JOHN C", "PERSON", "P2")
    assert re.fullmatch(r"[A-Z'\-]+, [A-Z'\-]+ [A-Z]", comma)
    assert comma.split(", ")[0] == up.split()[1]  # the surname is the surname
    init = s.surrogate("J. Smith", "PERSON", "P2")
    assert re.fullmatch(r"[A-Z]\. [A-Z][a-z'\-]+", init)
    assert s.surrogate("Dr Jones", "PERSON", "P2").startswith("Dr ")


def test_spanish_names_and_pools():
    s = make(locale="es_ES")
    out = s.surrogate("María José García López", "NOMBRE_SUJETO_ASISTENCIA", "E1")
    parts = out.split()
    assert len(parts) == 4
    assert parts[0] in first_names("es_ES", "F") and parts[1] in first_names("es_ES", "F")
    assert parts[2] in last_names("es_ES") and parts[3] in last_names("es_ES")


def test_id_digits_shape_and_check_digits_kept():
    s = make()
    for original in ("4532015112830366", "MRN-0042-7731", "AB 123 456 C", "12-345-678"):
        out = s.surrogate(original, "IDN", "P1")
        assert shape(out) == shape(original) and out != original
    assert luhn_valid("4532015112830366")
    assert luhn_valid(s.surrogate("4532015112830366", "IDN", "P1"))
    assert medicare_valid("2123456701")
    out = s.surrogate("2123 45670 1", "IDN", "P1")
    assert medicare_valid(out.replace(" ", "")) and shape(out) == shape("2123 45670 1")


def test_same_id_in_two_layouts_gets_the_same_digits():
    s = make()
    a = s.surrogate("0412 345 678", "PHONE", "P1")
    b = s.surrogate("0412345678", "PHONE", "P1")
    assert a.replace(" ", "") == b and a.startswith("0")
    intl = s.surrogate("+61 2 9876 5432", "PHONE", "P1")
    assert intl.startswith("+61 ") and shape(intl) == shape("+61 2 9876 5432")


def test_age_rule():
    s = make()
    assert s.surrogate("92", "AGE", "P1") == "90+"
    assert s.surrogate("92-year-old", "AGE", "P1") == "90+-year-old"
    assert s.surrogate("89", "AGE", "P1") == "89"
    assert s.surrogate("45 years", "AGE", "P1") == "45 years"
    assert s.surrogate("96 meses", "EDAD_SUJETO_ASISTENCIA", "P1") == "96 meses"
    assert s.surrogate("ninety-three", "AGE", "P1") == "90+"
    # Each number by its own unit: a months word does not keep the years.
    assert s.surrogate("92 years and 3 months", "AGE", "P1") == "90+ years and 3 months"
    assert s.surrogate("103 years, 2 days", "AGE", "P1") == "90+ years, 2 days"
    assert s.surrogate("92 (ninety-two)", "AGE", "P1") == "90+"
    custom = make(age_threshold=79, age_cap="80+")
    assert custom.surrogate("85", "AGE", "P1") == "80+"


def test_dates_shift_by_one_offset_per_patient():
    s = make()
    offset = s.date_offset("P1")
    assert offset != 0 and 1 <= abs(offset) <= 365
    a = parse_date(s.surrogate("01/02/2014", "DATE", "P1"))
    b = parse_date(s.surrogate("15/03/2014", "DOB", "P1"))
    assert (b - a).days == 42
    assert s.date_offset("P2") != offset or s.date_offset("P3") != offset
    # Unparseable: digits replaced, shape kept.
    out = s.surrogate("0/10/2017", "DATE", "P1")
    assert shape(out) == shape("0/10/2017") and out != "0/10/2017"
    # A day with no month cannot be shifted: its digits are replaced, and its
    # ordinal suffix follows the new number, or "7rd" would show the change.
    for original in ("Tues 3rd", "the 21ST", "Fri 12th"):
        out = s.surrogate(original, "DATE", "P1")
        number, suffix = re.search(r"(\d+)([a-zA-Z]+)$", out).groups()
        n = int(number)
        fits = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        assert suffix.lower() == fits, out
        assert suffix.isupper() == original[-2:].isupper()


def test_places_keep_their_form():
    s = make()
    addr = s.surrogate("12 Smith St, Sydney NSW 2000", "ADDRESS", "P1")
    assert re.fullmatch(r"\d{2} [\w' -]+ St, [\w' -]+ NSW \d{4}", addr), addr
    assert "Smith" not in addr and "Sydney" not in addr
    assert addr[-4] == "2"  # the postcode keeps its state digit
    city = addr.split(", ")[1].rsplit(" NSW", 1)[0]
    assert s.surrogate("Sydney", "LOCATION", "P1") == city
    assert s.surrogate("SYDNEY", "LOCATION", "P1") == city.upper()
    email = s.surrogate("john.smith@health.nsw.gov.au", "EMAIL", "P1")
    assert re.fullmatch(r"[a-z]+\.[a-z]+@health\.nsw\.gov\.au", email) and "smith" not in email
    url = s.surrogate("https://www.rpa.org.au/staff/jsmith", "URL", "P1")
    assert url.startswith("https://www.") and ".org.au/" in url and "rpa" not in url
    hosp = s.surrogate("Royal Prince Alfred Hospital", "HOSPITAL", "P1")
    assert hosp.endswith(" Hospital") and not {"Royal", "Prince", "Alfred"} & set(hosp.split())


def test_labels_map_to_kinds_with_generic_fallback():
    assert default_kind("PERSON") == "name" and default_kind("NOMBRE_SUJETO_ASISTENCIA") == "name"
    assert default_kind("ID_EMPLEO_PERSONAL_SANITARIO") == "id"
    assert default_kind("CONTACT") == "contact" and default_kind("FECHAS") == "date"
    s = make()
    out = s.surrogate("Zq-77 Kv", "MY_CUSTOM_LABEL", "P1")
    assert shape(out) == shape("Zq-77 Kv") and out != "Zq-77 Kv"
    assert s.surrogate("a@b.com", "CONTACT", "P1").count("@") == 1


def test_store_adapter_is_used():
    class Store:
        def __init__(self):
            self.rows = {}

        def surrogate_get(self, patient_key, label, original):
            return self.rows.get((patient_key, label, original))

        def surrogate_put(self, patient_key, label, original, surrogate):
            self.rows[(patient_key, label, original)] = surrogate

    store = Store()
    store.surrogate_put("P1", "PERSON", "John Smith", "Edited Name")
    s = Surrogator(Policy(default="surrogate"), SECRET, as_memory(store))
    assert s.surrogate("John Smith", "PERSON", "P1") == "Edited Name"
    s.surrogate("Jane Roe", "PERSON", "P1")
    assert ("P1", "PERSON", "Jane Roe") in store.rows


def test_a_name_token_keeps_its_surrogate_whatever_role_it_plays():
    """Issue 23 item 3: `Dr Santos` -> `Collin` but `Dalton Santos` -> `Miguel Melendez`."""
    s = make()
    lone = s.surrogate("Dr Santos", "PERSON", "P1")
    full = s.surrogate("Dalton Santos", "PERSON", "P1")
    assert lone.split()[-1] == full.split()[-1]
    assert s.surrogate("Joseph", "PERSON", "P2").split()[-1] == \
        s.surrogate("John Joseph", "PERSON", "P2").split()[-1]


def test_name_tokens_are_consistent_within_every_patient_of_a_synthetic_corpus():
    from collections import defaultdict

    from app.deid.redact import Redactor
    from app.synth import generate
    words = re.compile(r"[^\W\d_]+")
    policy = Policy(default="surrogate")
    redactor = Redactor(policy, secret=SECRET)
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for d in generate(100, seed=3, locale="en_AU"):
        res = redactor.redact(d.text, d.spans, patient_key=d.patient_id)
        for m in res.span_map:
            if policy.kind_for(m.label) != "name":
                continue
            before = words.findall(d.text[m.in_start:m.in_end])
            after = words.findall(res.text[m.out_start:m.out_end])
            if len(before) == len(after):
                for a, b in zip(before, after):
                    if len(a) > 1 and a != b:
                        seen[(d.patient_id, a.casefold())].add(b.casefold())
    assert len(seen) > 300
    assert [k for k, v in seen.items() if len(v) > 1] == []


def test_surrogates_never_recreate_a_known_identifier_of_the_project():
    """Issue 20: a surrogate equal to a real identifier of the project (another
    patient's name, a real number) is drawn again."""
    from app.deid.policy import Policy
    from app.deid.rescan import KnownIdentifiers
    from app.deid.surrogates import Surrogator

    policy = Policy(default="surrogate")
    cases = [("John Smith", "PERSON"), ("0412 345 678", "PHONE"), ("MRN 8812345", "IDN"),
             ("12 Hill Street", "ADDRESS")]
    first = {o: Surrogator(policy, "k").surrogate(o, label, "patient:A") for o, label in cases}
    known = KnownIdentifiers()
    for (original, label), made in zip(cases, first.values()):
        # What was drawn for patient A is, in this project, someone's real identifier.
        known.add("patient:B", label, made, name=label == "PERSON")
    again = Surrogator(policy, "k", known=known)
    for original, label in cases:
        new = again.surrogate(original, label, "patient:A")
        assert new != first[original] and not known.is_known(new), (original, new)
        if label == "PERSON":
            assert not any(known.is_known_word(w) for w in new.split())


def test_a_known_identifier_added_during_a_run_is_never_drawn_after():
    """The drawn words' check is remembered only while the known identifiers
    stay the same: a surrogate that becomes a known identifier is refused
    from then on, even the one remembered for this patient."""
    from app.deid.policy import Policy
    from app.deid.rescan import KnownIdentifiers
    from app.deid.surrogates import Surrogator

    policy = Policy(default="surrogate")
    known = KnownIdentifiers()
    maker = Surrogator(policy, "k", known=known)
    first = maker.surrogate("John Smith", "PERSON", "patient:A")
    assert maker.surrogate("John Smith", "PERSON", "patient:A") == first
    known.add("patient:B", "PERSON", first, name=True)
    new = maker.surrogate("John Smith", "PERSON", "patient:A")
    assert new != first and not any(known.is_known_word(w) for w in new.split())


def test_a_pool_the_project_knows_every_word_of_gives_an_invented_word():
    """A Spanish project knows every province and city of the pools: when
    every draw is a real place of the project, the surrogate is a made-up
    word, never the last real draw."""
    from faker.providers.address.es_ES import Provider as SpanishPlaces

    real = {w.lower() for place in (*SpanishPlaces.states, *SpanishPlaces.regions,
                                    *last_names("es_ES"))
            for w in re.findall(r"[^\W\d_]+", place)}

    class KnowsEveryRealWord:
        version = 1

        def is_known(self, text):
            return False

        def is_known_word(self, word):
            return word.lower() in real

    known = KnowsEveryRealWord()
    maker = Surrogator(Policy(default="surrogate", locale="es_ES"), SECRET, known=known)
    for original in ("Albacete", "Ciudad Real", "Pontevedra", "Sabadell"):
        new = maker.surrogate(original, "LOCATION", "patient:A")
        assert new and new != original
        drawn = set(re.findall(r"[^\W\d_]+", new)) - set(original.split())   # "Ciudad" is kept
        assert drawn and not any(known.is_known_word(w) for w in drawn), new


def _listed(*entries, names=()):
    """Known identifiers holding hospital-list entries (no patient)."""
    from app.deid.rescan import KnownIdentifiers
    known = KnownIdentifiers()
    for text in entries:
        known.add(None, "LOCATION", text)
    for text in names:
        known.add(None, "NAME", text, name=True)
    return known


def _words_of(text):
    return {w.lower() for w in re.findall(r"[^\W\d_]+", text)}


def test_a_place_surrogate_keeps_no_word_of_the_name_and_a_listed_name_goes_whole():
    """Only the closed generic list ("Hospital", "Street", "Hosp") may be
    kept from a place's name; "Cross" and "Royal" name it. A listed name
    ("Franklin Square") is replaced whole, its "Square" too."""
    from app.deid.pools import is_generic_place_word
    # A name that reads as a title ("don" written lower case) is no title here.
    assert make().surrogate("don", "NAME", "P1") not in ("don", "Don")
    for known in (None, _listed("Holy Cross", "Franklin Square")):
        s = Surrogator(Policy(default="surrogate", locale="en_US"), SECRET, known=known)
        for original in ("HOLY CROSS", "Holy Cross Hospital", "Royal Prince Alfred Hospital",
                         "Mission Bay Medical Center"):
            for label in ("LOCATION", "HOSPITAL"):
                new = s.surrogate(original, label, "P1")
                kept = _words_of(new) & _words_of(original)
                assert all(is_generic_place_word(w) for w in kept), (original, new)
    s = Surrogator(Policy(default="surrogate", locale="en_US"), SECRET,
                   known=_listed("Holy Cross", "Franklin Square"))
    for original in ("franklin square", "franklin square hosp", "HOLY CROSS"):
        new = s.surrogate(original, "LOCATION", "P1")
        assert not _words_of(new) & {"franklin", "square", "holy", "cross"}, new
    assert s.surrogate("franklin square hosp", "LOCATION", "P1").endswith(" hosp")


def test_a_remembered_surrogate_that_keeps_a_name_word_or_meets_the_lists_is_drawn_again():
    """An earlier export's "MELENDEZ CROSS" for "HOLY CROSS", or "NORTH PATTY"
    for "VAMC" once Patty is a listed clinician, is not written again."""
    memory = InMemorySurrogateMemory()
    memory.put("P1", "LOCATION", "HOLY CROSS", "MELENDEZ CROSS")
    memory.put("P1", "LOCATION", "VAMC", "NORTH PATTY")
    s = Surrogator(Policy(default="surrogate", locale="en_US"), SECRET, memory,
                   known=_listed("St. Joseph", names=("Patty",)))
    assert "cross" not in _words_of(s.surrogate("HOLY CROSS", "LOCATION", "P1"))
    new = s.surrogate("VAMC", "LOCATION", "P1")
    assert "patty" not in _words_of(new)
    assert memory.get("P1", "LOCATION", "VAMC") == new


def test_no_surrogate_word_is_a_known_word_in_any_case_nor_a_town_made_of_one():
    """Every word of a drawn place is checked case-blind against the lists:
    a clinician's first name ("Patty") and a listed hospital's word
    ("Joseph" of "St. Joseph", "Josephburgh" too) never come back."""
    from faker.providers.address.en_US import Provider
    from app.deid.pools import city_suffixes, first_names
    pool = first_names("en_US", "U")
    known = _listed("St. Joseph", names=pool[:400])
    s = Surrogator(Policy(default="surrogate", locale="en_AU"), SECRET, known=known)
    assert Provider.city_prefixes and city_suffixes()
    for n in range(150):
        new = s.surrogate(f"Place{n} VAMC", "LOCATION", f"P{n % 7}")
        for w in _words_of(new):
            stems = {w} | {w[:-len(x)] for x in city_suffixes() if w.endswith(x)}
            assert not any(known.is_known_word(x) for x in stems), new


def test_no_name_surrogate_keeps_the_originals_initial_or_is_a_form_of_it():
    """"J. Smith" after "John Smith" must not read "J. Kelly"; "Chris" must
    not stand for "Christopher" nor "Tricia" for "Patricia"."""
    for k in range(60):
        s = Surrogator(Policy(default="surrogate", locale="en_US"), f"secret-{k}",
                       InMemorySurrogateMemory())
        for original in ("John Smith", "Christopher Johnson", "Patricia Daniels"):
            drawn = s.surrogate(original, "PERSON", "P1").split()
            for mine, theirs in zip(drawn, original.split()):
                a, b = mine.lower(), theirs.lower()
                assert a[0] != b[0] and a not in b and b not in a, (original, drawn)
        assert s.surrogate("J. Smith", "PERSON", "P1")[0] != "J"
    # Nor a spelling of the same sound, nor a common short form.
    from app.deid.surrogates import _near_name
    for drawn, original in (("kristopher", "christopher"), ("katherine", "catherine"),
                            ("karl", "carl"), ("katelyn", "caitlin"), ("bob", "robert"),
                            ("tony", "anthony"), ("kate", "catherine")):
        assert _near_name(drawn, original) and _near_name(original, drawn)
    assert not _near_name("dave", "christopher") and not _near_name("lisa", "margaret")


def test_a_remembered_surrogate_that_gives_the_original_away_is_drawn_again():
    """Projects whose memory holds draws made before the checks: a shift of
    364 days ("9/13" -> "9/12"), "Chris" for "Christopher", "J" for "J."."""
    memory = InMemorySurrogateMemory()
    memory.put("P1", "__date_offset__", "", "364")
    memory.put("P1", "name:first", "christopher", "Chris")
    memory.put("P2", "name:initial", "j", "J")
    s = Surrogator(Policy(default="surrogate", locale="en_US"), SECRET, memory)
    offset = s.date_offset("P1")
    assert offset != 364 and 14 <= abs(offset) <= 351
    assert memory.get("P1", "__date_offset__", "") == str(offset)
    assert not s.surrogate("Christopher", "PERSON", "P1").lower().startswith("c")
    assert not s.surrogate("J. Smith", "PERSON", "P2").startswith("J")


def test_a_span_of_two_dates_shifts_both_or_keeps_no_digit():
    s = make(locale="en_US")
    offset = s.date_offset("P1")
    out = s.surrogate("10/15-10/16", "DATE", "P1", day_first=False)
    first, second = out.split("-")
    a, b = parse_date(first + "/2001", day_first=False), parse_date(second + "/2001",
                                                                   day_first=False)
    assert (b - a).days == 1 and a != parse_date("10/15/2001", day_first=False)
    assert (a - parse_date("10/15/2001", day_first=False)).days % 365 in (offset % 365,
                                                                         offset % 366)
    # Days that read no month of their own: every digit replaced and the
    # month moved, nothing as written.
    for original in ("2 and 8 July", "July 1, 2 and 8", "Jan 3-5, 2019", "3rd-5th May"):
        out = s.surrogate(original, "DATE", "P1")
        assert re.sub(r"\d", "9", out) != out or out != original
        words = set(re.findall(r"[A-Za-z]{3,}", original)) - {"and", "rd", "th"}
        assert not words & set(re.findall(r"[A-Za-z]{3,}", out)), (original, out)
    # Month-name ranges shift both ends; what plainly is no day or month after
    # a date (a time, a count) is kept; a year alone after a day is a time.
    assert s.surrogate("Jan 3 - Feb 4, 2019", "DATE", "P1") == \
        f"{s.surrogate('Jan 3', 'DATE', 'P1')} - {s.surrogate('Feb 4, 2019', 'DATE', 'P1')}"
    for original, kept in (("1/3/19 @ 0800", " @ 0800"), ("3/4/2019 5 pm", " 5 pm"),
                           ("3/4/19 x 2 days", " x 2 days"), ("3/4/2019 1400", " 1400"),
                           ("3/4 0800-1200", " 0800-1200"), ("3/4/2019 (first visit)",
                                                             " (first visit)")):
        out = s.surrogate(original, "DATE", "P1", day_first=False)
        assert out.endswith(kept) and out != original, (original, out)
        head = original[:-len(kept)]
        assert out[:-len(kept)] == s.surrogate(head, "DATE", "P1", day_first=False)


def test_dates_in_short_forms_are_shifted_not_scrambled():
    s = make(locale="en_US")
    assert re.fullmatch(r"'\d\d", s.surrogate("'92", "DATE", "P1"))
    month, year = s.surrogate("8/84", "DATE", "P1", day_first=False).split("/")
    assert 1 <= int(month) <= 12 and len(year) == 2 and int(year) in (83, 84, 85)
    # A lone ordinal day moves 7 to 21 days (on a 31-day cycle), its weekday
    # by as many; no two lone days of a patient share one.
    out = s.surrogate("Tues 3rd", "DATE", "P1")
    weekday, day = out.split()
    n = int(day[:-2])
    step = (n - 3) % 31
    assert 7 <= step <= 21
    days = ["Mon", "Tues", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert weekday[:3] == days[(1 + step) % 7][:3]
    lone = [s.surrogate(f"the {d}{'st' if d in (1, 21, 31) else 'th'}", "DATE", "P1")
            for d in (1, 4, 21, 31)]
    assert len(set(lone)) == 4
    assert s.surrogate("on the 3rd at 10:30", "DATE", "P1").endswith(" at 10:30")
    # A spelled-out day keeps nothing of the date; a counting word beside a
    # date in digits is no day.
    out = s.surrogate("Twenty-third of May", "DATE", "P1")
    assert not {"twenty", "third", "may"} & set(re.findall(r"[a-z]+", out.lower()))
    out = s.surrogate("May 2019, second admission", "DATE", "P1")
    assert out.endswith(", second admission") and not out.startswith("May 2019")
    out = s.surrogate("the twelfth of March 1931", "DATE", "P1")      # beside digits too
    assert not {"twelfth", "march", "1931"} & set(re.findall(r"[a-z0-9]+", out.lower()))
    # A holiday is a day: replaced, not kept.
    for holiday in ("Thanksgiving", "New Year's Day"):
        assert s.surrogate(holiday, "DATE", "P1") != holiday


def test_the_default_date_shift_moves_every_day_of_the_year():
    """A shift of a few days, or of a year and a few days, leaves the day of
    the year nearly as written."""
    lo, hi = Policy().date_shift_days
    assert lo >= 14 and hi <= 365 - 14
    assert all(14 <= abs(make().date_offset(f"P{k}")) <= 351 for k in range(200))


def test_a_state_that_names_a_street_is_replaced():
    s = make(locale="en_US")
    out = s.surrogate("5 Washington St, Seattle, Washington", "ADDRESS", "P1")
    street, city, state = out.split(", ")
    assert "Washington" not in street and state == "Washington"


def test_a_span_a_model_mislabelled_keeps_no_letter_or_digit_of_it():
    # A trained model tagged "MRN: 7712739" NAME and a surname CONTACT: the
    # name's and the phone's surrogates replaced only name words and digits,
    # so both came out as they were (and were counted as replaced).
    s = Surrogator(Policy(default="surrogate", locale="en_AU",
                          kinds={"CONTACT": "contact", "PHONE": "phone"}), SECRET)
    for original, label in [("7712739", "NAME"), ("#1686", "NAME"), ("Smith", "CONTACT"),
                            ("Genentech", "PHONE")]:
        out = s.surrogate(original, label, "P1")
        assert out != original and shape(out) == shape(original)
    # Digits beside a name word are replaced as well as the word.
    out = s.surrogate("MRN 7712739", "NAME", "P1")
    assert "7712739" not in out and "MRN" not in out and len(out.split()[-1]) == 7
    # A phone keeps its extension's word, not its digits.
    assert s.surrogate("ext. 45", "PHONE", "P1").startswith("ext. ")


def test_a_mixed_label_holding_a_date_shifts_it():
    # A label of mixed forms ("auto", MEDDOCAN's relatives) reading a date
    # raised TypeError out of the redaction.
    s = Surrogator(Policy(default="surrogate", locale="es_ES",
                          kinds={"FAMILIARES_SUJETO_ASISTENCIA": "auto"}), SECRET)
    out = s.surrogate("12 de marzo de 2020", "FAMILIARES_SUJETO_ASISTENCIA", "P1")
    assert out != "12 de marzo de 2020" and parse_date(out, day_first=True) is not None
