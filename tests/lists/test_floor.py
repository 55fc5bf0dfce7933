"""The last step of a prediction: the English vetoes, then the floor."""
from app.core.spans import Span
from app.lists.floor import Floor
from app.lists.labels import label_map

LABELS, _ = label_map(["NAME", "DATE", "LOCATION", "PHONE", "AGE"])


def test_settle_drops_impossible_dates_phones_and_names_and_keeps_the_floor():
    text = "PS 10/5. SVR 1500-2250. LAST BM 2/14. DR PRICE AWARE. NQWMI 13. LUNG FIELDS CLEAR."
    def at(word, label):
        return Span(text.index(word), text.index(word) + len(word), label)

    spans = [at("10/5", "DATE"), at("1500-2250", "PHONE"), at("2/14", "DATE"),
             at("NQWMI 13", "DATE"), at("FIELDS", "NAME")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [(text[s.start:s.end], s.label) for s in out] == [
        ("2/14", "DATE"), ("PRICE", "NAME"), ("13", "DATE")]


def test_without_the_english_shapes_nothing_is_vetoed():
    text = "PS 10/5 HOY"
    spans = [Span(3, 7, "DATE")]
    assert Floor(None, shapes=False).settle(text, spans, LABELS) == spans


def test_the_english_floor_holds_phones_and_old_ages():
    text = "98 YO MAN. SON 212- 476- 8356 CALLED."
    hits = [(text[h.start:h.end], h.category) for h in Floor(None, shapes=True).find(text)]
    assert ("98", "age") in hits and ("212- 476- 8356", "phone") in hits


def test_a_name_takes_the_initial_before_it():
    text = "NEW DRIP-T. OYELARAN AWARE. LAST BM A 2/14"
    name = text.index("OYELARAN")
    spans = [Span(name, name + 8, "NAME"), Span(text.index("2/14"), text.index("2/14") + 4, "DATE")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [(text[s.start:s.end], s.label) for s in out] == [
        ("T", "NAME"), ("OYELARAN", "NAME"), ("2/14", "DATE")]


def test_a_name_leaves_out_the_stops_of_its_initials():
    text = "SEEN BY IVO K.T. WALKER. P. RENARD AWARE. PLAN: A. FEEDS."
    spans = [Span(text.index("IVO"), text.index("WALKER") + 6, "NAME"),
             Span(text.index("RENARD"), text.index("RENARD") + 6, "NAME")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == ["IVO K", "T", "WALKER", "P", "RENARD"]


def test_a_floor_name_over_two_found_words_keeps_them_apart():
    text = "SEEN BY DR. NADIA OKONJO TODAY"
    first, last = text.index("NADIA"), text.index("OKONJO")
    spans = [Span(first, first + 5, "NAME"), Span(last, last + 6, "NAME")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == ["NADIA", "OKONJO"]
    # Only one word found: the floor widens it to the whole name.
    out = Floor(None, shapes=True).settle(text, spans[:1], LABELS)
    assert [text[s.start:s.end] for s in out] == ["NADIA OKONJO"]


def test_a_found_name_brings_the_name_joined_to_it():
    text = "CALLED ODALYS AND KWAME. SON AND DAUGHTER IN."
    start = text.index("ODALYS")
    out = Floor(None, shapes=True).settle(text, [Span(start, start + 6, "NAME")], LABELS)
    assert [text[s.start:s.end] for s in out] == ["ODALYS", "KWAME"]


def test_a_place_is_its_name_without_the_kind_words_after_it():
    text = ("Came from Lakeview Bend Hospital. Seen at Fairmount Medical Center today. "
            "Will go to Oakridge Rehab. Back to the hospital.")
    def at(words):
        return Span(text.index(words), text.index(words) + len(words), "LOCATION")

    spans = [at("Lakeview Bend Hospital"), at("Fairmount Medical Center"), at("Oakridge Rehab")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    shown = [text[s.start:s.end] for s in out]
    assert "Lakeview Bend" in shown and "Fairmount" in shown
    assert "Oakridge Rehab" in shown                 # "rehab" is often part of the name
    assert not any("Hospital" in w or "Center" in w for w in shown)


def test_a_listed_place_the_model_called_a_name_is_a_place():
    from app.lists import HospitalLists, ListMatcher

    lists = HospitalLists()
    lists.add("places", "Quarrendon")
    lists.add("staff", "Pellow")
    text = "Lives in Quarrendon with wife. Dr Pellow aware. Back to Pellow Street."
    def at(words, label):
        return Span(text.index(words), text.index(words) + len(words), label)

    spans = [at("Quarrendon", "NAME"), at("Pellow Street", "LOCATION")]
    out = Floor(ListMatcher(lists), shapes=True).settle(text, spans, LABELS)
    shown = {text[s.start:s.end]: s.label for s in out}
    assert shown["Quarrendon"] == "LOCATION"           # the list says it is a place
    assert shown["Pellow Street"] == "LOCATION"        # reaches beyond the staff hit: kept
    assert shown["Pellow"] == "NAME"


def test_a_name_before_a_device_or_a_sign_is_an_eponym():
    text = ("FLUID IN KELLAN POUCH. ON A ROWLEY VENT. Oyelaran lotion applied. SEEN BY ODALYS "
            "TODAY. Full Code- Helth Care Proxy")
    spans = [Span(text.index(w), text.index(w) + len(w), label)
             for w, label in (("KELLAN", "LOCATION"), ("ROWLEY", "NAME"), ("Oyelaran", "NAME"),
                              ("ODALYS", "NAME"), ("Helth", "NAME"))]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == ["ODALYS"]


def test_a_lower_case_name_needs_something_around_it():
    text = ("good appetite, + bwel sounds. oob to chiar. dr okafor aware. son tobin called. "
            "ines and tobin visited. paged marek twice")
    spans = [Span(text.index(w), text.index(w) + len(w), "NAME")
             for w in ("bwel", "chiar", "okafor", "tobin called", "ines", "and tobin", "marek")]
    spans[3] = Span(spans[3].start, spans[3].start + 5, "NAME")
    spans[5] = Span(spans[5].start + 4, spans[5].end, "NAME")
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == ["okafor", "tobin", "ines", "tobin", "marek"]


def test_a_lower_case_first_name_stays_a_name_with_nothing_around_it():
    text = "plan reviewed at length, rosalind agrees with it"
    spans = [Span(text.index("rosalind"), text.index("rosalind") + 8, "NAME")]
    assert Floor(None, shapes=True).settle(text, spans, LABELS) == spans


def test_an_old_age_is_replaced_as_a_date_where_the_project_has_no_age_label():
    labels, skipped = label_map(["NAME", "DATE"])
    text = "94 YO WOMAN FROM HOME"
    out = Floor(None, shapes=True).settle(text, [], labels)
    assert [(text[s.start:s.end], s.label) for s in out] == [("94", "DATE")]
    assert "age" not in skipped



def test_a_name_stops_where_a_name_does():
    text = ("DR. OKONJO AWARE-ORDER FOR 5MG. per Dr. Quoridge-thinking is dopa. DR TANNER "
            "BY-STARTED PT ON LIDO. SEEN BY DR TANNER-OKONJO. Dr. Tevik-Carver plans")
    spans = [Span(text.index("Quoridge"), text.index("Quoridge") + 17, "NAME")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == [
        "OKONJO", "Quoridge", "TANNER", "TANNER-OKONJO", "Tevik-Carver"]


def test_a_name_stops_before_a_header_field_and_starts_after_a_comma():
    """Names read "Lisa Morris   DOB", "MAYER, Tracy  MRN" and ", Karen<tab>MRN":
    a field name was replaced as a name, and the leak scan then flagged every
    "MRN" of the patient's other notes."""
    text = "Lisa Morris   DOB 3/4/19\nMAYER, Tracy  MRN 1234\nName: , Karen\tMRN 12 Male\n"
    spans = [Span(text.index(w), text.index(w) + len(w), "NAME")
             for w in ("Lisa Morris   DOB", "MAYER, Tracy  MRN", ", Karen\tMRN")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out if s.label == "NAME"] == [
        "Lisa Morris", "MAYER, Tracy", "Karen"]


def test_letters_of_an_abbreviation_are_no_initials():
    text = "C.O. remains at 3.2. WITH B.S. PRESENT IN ALL. per K.T. WALKER RN"
    words = ("C", "B", "S", "PRESENT", "K", "T", "WALKER")
    spans = []
    for w in words:
        at = text.index(w + ".") if len(w) == 1 else text.index(w)
        spans.append(Span(at, at + len(w), "NAME"))
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == ["K", "T", "WALKER"]


def test_a_misspelt_common_word_is_no_name_without_context():
    text = "MAE. Coopertive with care. PT IMPROVING, IN VOICE STRENTGH. DR. QUORIDGE AWARE"
    spans = [Span(text.index(w), text.index(w) + len(w), "NAME")
             for w in ("Coopertive", "STRENTGH", "QUORIDGE")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == ["QUORIDGE"]


def test_the_floor_finds_no_country():
    text = "Pt's wife called from Bermuda. MOVED FROM GLENDALE"
    hits = [text[h.start:h.end] for h in Floor(None, shapes=True).find(text)]
    assert "Bermuda" not in hits and "GLENDALE" in hits


def test_a_name_loses_its_possessive_but_a_saint_keeps_it():
    text = "tube placed per dr. white's order. TO GO TO ST. MARY'S TUESDAY"
    spans = [Span(text.index("white's"), text.index("white's") + 7, "NAME"),
             Span(text.index("MARY'S"), text.index("MARY'S") + 6, "NAME")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == ["white", "ST. MARY'S"]


def test_a_phone_number_loses_the_words_in_it():
    text = "cell# 555-010-1419 Home# 555-010-5357 work# 555-010-8121 or 555 010 0780 x45."
    spans = [Span(text.index("555-010-1419"), text.index("8121") + 4, "PHONE"),
             Span(text.index("555 010"), text.index("x45") + 3, "PHONE")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == [
        "555-010-1419", "# 555-010-5357", "# 555-010-8121", "555 010 0780 x45"]


def test_a_letter_glued_to_a_word_is_no_initial():
    text = "no further N/V. PAC's alt with A.fib. C & D.DROP IN CI. per E. WELSH. per K.T. WALKER RN"
    spans = [Span(text.index("V."), text.index("V.") + 1, "NAME"),
             Span(text.index("A.fib"), text.index("A.fib") + 1, "NAME"),
             Span(text.index("D.DROP"), text.index("D.DROP") + 1, "NAME"),
             Span(text.index("E. WELSH"), text.index("E. WELSH") + 8, "NAME"),
             Span(text.index("K.T. WALKER"), text.index("K.T. WALKER") + 11, "NAME")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == ["E", "WELSH", "K", "T", "WALKER"]


def test_common_words_alone_are_no_date_but_a_month_is():
    text = "HX SIGNIFICANT FOR: AFIB, STROKE/ANGINA. HOME SINCE JULY"
    spans = [Span(text.index("STROKE"), text.index("ANGINA") + 6, "DATE"),
             Span(text.index("JULY"), text.index("JULY") + 4, "DATE")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out] == ["JULY"]


def test_a_clinical_abbreviation_is_no_name_nor_place():
    """Issue 34 item 4: "PT IN USOH UNTIL 8/23" -> "PT IN MACKVILLE", "flo-by" ->
    "mcknight-by"; the floor's own finders took "CON'T REHAB" for a care place."""
    text = ("PT IN USOH UNTIL 8/23. ON flo-by. NBP STABLE. P: CON'T REHAB/PT \n"
            "Flo called. DR. NEO SAW PT.")
    spans = [Span(text.index(w), text.index(w) + len(w), label)
             for w, label in (("USOH UNTIL", "LOCATION"), ("flo", "NAME"), ("NBP", "NAME"),
                              ("Flo", "NAME"), ("NEO", "NAME"))]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    held = [text[s.start:s.end] for s in out]
    assert held == ["8/23", "Flo", "NEO"]       # the name called and the titled one stay


def test_the_clinical_abbreviation_veto_can_be_switched_off():
    from app.rules.registry import merge, shipped_rules
    text = "PT IN USOH UNTIL 8/23"
    spans = [Span(6, 10, "LOCATION")]
    rules = merge(shipped_rules(), {"enabled": {"clinical-abbreviation": False}})
    out = Floor(None, shapes=True, rules=rules).settle(text, spans, LABELS)
    assert "USOH" in [text[s.start:s.end] for s in out]


def test_completing_names_looks_at_each_span_a_few_times_not_at_every_span():
    """Each name was compared with every span of the note: on one big note
    that grew with the square of its spans (issue 35 item 11). Counted in
    reads of the spans' fields, not in seconds."""
    from app.lists.floor import complete_names
    reads = [0]

    class Counted(Span):
        __slots__ = ()

        def __getattribute__(self, name):
            reads[0] += 1
            return Span.__getattribute__(self, name)

    piece = "SEEN BY J SMITH, ODALYS AND KWAME. "
    n = 1500
    text = piece * n
    spans = [Counted(k * len(piece) + piece.index(w), k * len(piece) + piece.index(w) + len(w),
                     "NAME") for k in range(n) for w in ("SMITH", "ODALYS")]
    reads[0] = 0
    out = complete_names(text, spans, LABELS)
    assert [text[s.start:s.end] for s in out[:3]] == ["J SMITH", "ODALYS", "KWAME"]
    assert len(out) == 3 * n
    assert reads[0] < 50 * len(spans)


def test_a_list_hit_inside_a_shape_leaves_the_rest_of_the_shape_covered():
    from app.lists import HospitalLists, ListMatcher

    lists = HospitalLists()
    lists.add("staff", "Okonjo")
    text = "Call son. Hank Okonjo (son) cell 212-476-8356."
    plain = Floor(None, shapes=True).settle(text, [], LABELS)
    listed = Floor(ListMatcher(lists), shapes=True).settle(text, [], LABELS)
    covered = lambda spans: {i for s in spans for i in range(s.start, s.end)}
    assert "Hank" in {text[s.start:s.end].split()[0] for s in plain}
    # The lists only add: every character the floor covers without them it
    # still covers, the first name before the listed surname included.
    assert covered(plain) <= covered(listed)
    assert text.index("Hank") in covered(listed)


def test_a_part_of_a_countrys_name_is_no_name_and_no_place():
    """The bundled sample's "BORN IN PUERTO RICO" lost "RICO" to a name and
    came out "PUERTO SERGIO"; a person called Rico is still a name."""
    text = "BORN IN PUERTO RICO, moved from New Zealand. Seen by Dr Rico."
    spans = [Span(text.index("RICO"), text.index("RICO") + 4, "NAME"),
             Span(text.index("Zealand"), text.index("Zealand") + 7, "LOCATION"),
             Span(text.rindex("Rico"), text.rindex("Rico") + 4, "NAME")]
    out = Floor(None, shapes=True).settle(text, spans, LABELS)
    assert [(s.start, text[s.start:s.end]) for s in out] == [(text.rindex("Rico"), "Rico")]


def test_a_span_relabelled_by_a_list_names_both_its_finder_and_the_list():
    """A site rule's label on a model's span left the model alone credited
    ("ID 'Hope' <- starter model")."""
    from app.lists import HospitalLists, ListMatcher
    from app.services.choice import made_by
    lists = HospitalLists()
    lists.add("places", "Hope")
    text = "Moved to Hope today."
    at = text.index("Hope")
    out = Floor(ListMatcher(lists), shapes=False).settle(
        text, [Span(at, at + 4, "NAME", origin="starter")], LABELS)
    assert [(text[s.start:s.end], s.label) for s in out] == [("Hope", "LOCATION")]
    assert out[0].origin == "starter, labelled by hospital lists"
    assert made_by(out[0].origin) == \
        "the shipped starter model, with its label from the hospital lists"


def test_a_name_found_with_its_eponyms_noun_is_dropped():
    """"Ivor Lewis oesophagectomy" was suggested as a name, noun and all."""
    text = "Previous Ivor Lewis oesophagectomy in 2010. Seen by Ivor Lewis today."
    first, last = text.index("Ivor"), text.rindex("Ivor")
    out = Floor(None, shapes=True).settle(
        text, [Span(first, first + 25, "NAME"), Span(last, last + 10, "NAME")], LABELS)
    assert [(s.start, text[s.start:s.end]) for s in out] == [(last, "Ivor Lewis")]
