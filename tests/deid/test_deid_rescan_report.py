import json
import re

import pytest

from app.deid.folder import redact_folder
from app.deid.policy import Policy
from app.deid.report import build_report, write_report
from app.deid.rescan import rescan

from deid_fake_model import make_predictor


def test_rescan_catches_a_planted_leftover():
    out = "Seen by Dr Brown. Later JOHN   smith called; Johnson is unrelated. Age 90+."
    leaks = rescan(out, ["John Smith", "John", "Jo", "90+"])
    assert [(lk.start, lk.end, lk.kind) for lk in leaks] == [(24, 36, "patient")]
    assert out[24:36] == "JOHN   smith"
    assert not hasattr(leaks[0], "text")


def test_rescan_rules_ignore_replacements():
    out = "DOB 12/07/1950, phone 9876 5432."

    def rules(text):
        return [(m.start(), m.end(), "DATE_OR_PHONE") for m in re.finditer(r"[\d/ ]{8,}\d", text)]

    replaced = [(4, 14)]  # the surrogate date
    leaks = rescan(out, [], rules, replaced=replaced)
    assert [(lk.kind, lk.category) for lk in leaks] == [("rule", "DATE_OR_PHONE")]
    assert out[leaks[0].start:leaks[0].end].strip() == "9876 5432"


def test_report_has_no_identifier_text(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    planted = ["John Smith", "Mary Jones", "03/05/2014", "1234567"]
    (src / "John_Smith_note.txt").write_text(
        "John Smith seen 03/05/2014, MRN 1234567. Mary Jones visited.", encoding="utf-8")
    (src / "bad.txt").write_bytes(b"")
    summary = redact_folder(src, tmp_path / "out", make_predictor, Policy(default="surrogate"),
                            secret="s", naming="pseudonymous")
    report = build_report(summary, model_info={"name": "ensemble-vote", "members": 6},
                          evaluation={"strict_f1": 0.93}, policy=Policy(default="surrogate"),
                          settings={"in_dir": str(src), "workers": 1}, timings={"predict": 1.5},
                          version="9.9")
    assert report["totals"]["notes_done"] == 1 and report["totals"]["notes_bad"] == 1
    assert report["per_label"]["PERSON"] == {"spans": 2, "notes": 1, "strategy": "surrogate"}
    assert report["model"]["name"] == "ensemble-vote" and report["tool"]["version"] == "9.9"
    write_report(report, tmp_path / "r.json", tmp_path / "r.html")
    blob = (tmp_path / "r.json").read_text() + (tmp_path / "r.html").read_text()
    for ident in planted + ["John", "Smith", "john_smith", "Mary", "Jones"]:
        assert not re.search(rf"(?<![a-z]){re.escape(ident)}(?![a-z])", blob, re.I), ident
    json.loads((tmp_path / "r.json").read_text())
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert not re.search(r"(src|href)\s*=|<script|@import|url\(", page)


def test_known_identifiers_match_variants_parts_and_numbers():
    from app.deid.rescan import KnownIdentifiers
    known = KnownIdentifiers(common={"will"})
    known.add("patient:P1", "PERSON", "José  García-Pérez", name=True)
    known.add("patient:P1", "PERSON", "Will Turner", name=True)
    known.add("patient:P1", "IDN", "0412 345 678")
    known.add("patient:P2", "PERSON", "Ana Ruiz", name=True)
    known.add(None, "HOSPITAL", "Hospital La Paz")
    out = ("JOSE garcia perez came; Pérez again; will see; Turner left; ana ruiz? "
           "call 0412-345678; at hospital la paz.")
    found = {(out[lk.start:lk.end], lk.kind) for lk in known.find(out, "patient:P1")}
    assert found == {("JOSE garcia perez", "patient"), ("Pérez", "part"), ("Turner", "part"),
                     ("ana ruiz", "project"), ("0412-345678", "patient"),
                     ("hospital la paz", "project")}
    # Another patient's view: P1's strings are project identifiers there.
    kinds = {lk.kind for lk in known.find("JOSE garcia perez", "patient:P2")}
    assert kinds == {"project"}


def test_a_known_identifier_inside_a_stand_in_is_a_coincidence_and_past_it_a_suspicion():
    """A walkthrough's report said 888 replacements "happened to equal a real
    identifier of the same patient": they were words like "VIC" kept in a
    made-up address, of any patient or list, counted if they only touched a
    replacement."""
    from app.deid.rescan import KnownIdentifiers, known_leaks
    known = KnownIdentifiers()
    known.add("patient:P2", "LOCATION", "VIC")
    known.add(None, "LOCATION", "Memorial Medical Center")
    out = "Lives at MUNOZTOWN VIC 3608. Seen at Green Memorial Medical Center."
    town = (out.index("MUNOZTOWN"), out.index("."))
    green = (out.index("Green"), out.index("Memorial") + len("Memorial"))   # half the name
    found = [(out[lk.start:lk.end], lk.kind, lk.in_replacement)
             for lk in known_leaks(out, replaced=[town, green], known=known, patient="patient:P1")]
    assert found == [("VIC", "project", True), ("Medical Center", "project", False)]


def test_a_short_number_is_known_in_its_own_patients_notes_only():
    """A house number "1400" of one patient is a lab value in another's note
    ("calprotectin 1400"): four or five digits are searched in their own
    patient's notes; six or more everywhere."""
    from app.deid.rescan import KnownIdentifiers
    known = KnownIdentifiers()
    known.add("patient:P1", "ADDRESS", "1400")
    known.add("patient:P1", "IDN", "335447")
    out = "Faecal calprotectin 1400. MRN 335447."
    assert [(out[lk.start:lk.end], lk.kind) for lk in known.find(out, "patient:P1")] == [
        ("1400", "patient"), ("335447", "patient")]
    assert [(out[lk.start:lk.end], lk.kind) for lk in known.find(out, "patient:P2")] == [
        ("335447", "project")]

def test_what_the_run_replaced_is_said_to_be_its_call_not_a_known_identifier():
    """A word the model replaced in one note ("Medicare" taken for a name) and
    left in another of the patient's is suspected there, as what the run
    replaced elsewhere: not as an identifier people annotated or listed."""
    from app.deid.rescan import REASONS, KnownIdentifiers
    seen = KnownIdentifiers(own_patient_only=True)
    seen.add("patient:P1", "NAME", "Medicare")
    seen.add("patient:P1", "ID", "6621968643")
    seen.add("patient:P1", "NAME", "Manuel Ayers MRN", name=True)     # a word too many
    out = "Medicare no. 6621968643, MRN"
    found = [(out[lk.start:lk.end], lk.kind, lk.reason) for lk in seen.find(out, "patient:P1")]
    assert found == [("Medicare", "replaced", REASONS["replaced"]),
                     ("MRN", "replaced", REASONS["replaced"]),      # not "part of a known name"
                     ("6621968643", "replaced", REASONS["replaced"])]
    assert REASONS["replaced"] == "replaced as an identifier in another of this patient's notes"
    assert seen.find(out, "patient:P2") == []            # never searched in another's notes


def test_model_and_rule_spans_count_outside_replacements_and_names_beside():
    out = "Seen by Mark Smith today with Dr Jones."
    replaced = [(8, 12)]                      # "Mark" is the surrogate of a first name

    def model(text):
        return [(8, 18, "PERSON")]            # the model sees "Mark Smith" as one name

    leaks = rescan(out, [], model_fn=model, replaced=replaced)
    assert [(out[lk.start:lk.end], lk.kind) for lk in leaks] == [("Smith", "model")]
    leaks = rescan(out, [], replaced=replaced, names_replaced=replaced)
    assert [(out[lk.start:lk.end], lk.kind) for lk in leaks] == [("Smith", "name"), ("Jones", "name")]


def test_the_kind_of_a_replaced_place_and_a_title_are_not_suspected():
    """A listed hospital's name is replaced and its kind left in clear on
    purpose ("<**LOCATION**> MEDICAL CENTER"): a model or a rule seeing the
    whole hospital does not make "MEDICAL CENTER" a suspicion, nor does a
    model's name or place of common words, numbers or two letters ("TODAY",
    "HO"; the starter takes none), nor "DR" before a replaced name.
    The name part still is ("BAY" of "BAY MEDICAL CENTER"), and so is a
    listed name that is a common word too ("Rob")."""
    out = ("PT FROM <**LOCATION**> MEDICAL CENTER TODAY. DR <**NAME**> AWARE. "
           "TO BAY MEDICAL CENTER WHEN STABLE. SON ROSE CALLED. SEEN BY HO AT 2130. "
           "Able to reach Rob.")
    repl = [(m.start(), m.end()) for m in re.finditer(r"<\*\*\w+\*\*>", out)]

    def at(words):
        return out.index(words), out.index(words) + len(words)

    def model(text):                       # the model's names and places, the CRF's doubts
        return [(*at("<**LOCATION**> MEDICAL CENTER TODAY"), "HOSPITAL"),
                (*at("BAY MEDICAL CENTER WHEN STABLE"), "HOSPITAL", "unsure"),
                (*at("ROSE"), "PERSON", "unsure"), (*at("TODAY"), "PERSON"),
                (*at("HO AT 2130"), "LOCATION"), (*at("Rob"), "PERSON")]

    found = [(out[lk.start:lk.end], lk.kind) for lk in rescan(
        out, [], model_fn=model, replaced=repl, names_replaced=repl[1:2], known=[])]
    assert found == [("BAY", "unsure"), ("ROSE", "name"), ("Rob", "model")]


@pytest.mark.timeout(120)
def test_rescan_and_offset_mapping_scale_to_a_huge_note():
    """Issue 23 item 8: the leak scan compared every word with every
    replacement, and mapping a suspicion back walked every span."""
    from app.deid.redact import MappedSpan, offset_mapper
    n = 60_000
    out_text = "".join(f"[PERSON] met Smith. " for _ in range(n))
    replaced = [(20 * i, 20 * i + 8) for i in range(n)]
    found = rescan(out_text, rules_fn=lambda t: [], replaced=replaced, names_replaced=replaced)
    assert all(not (s < lk.end and lk.start < e) for lk in found for s, e in replaced[:5])
    span_map = [MappedSpan(25 * i, 25 * i + 13, 20 * i, 20 * i + 8, "PERSON", "bracket")
                for i in range(n)]
    back = offset_mapper(span_map, forward=False)
    assert [back(20 * i + 9) for i in range(0, n, 1000)] == [25 * i + 14 for i in range(0, n, 1000)]
    assert back(20 * 7 + 3) == 25 * 7


def test_residues_and_shapes_outside_replacements():
    out = "Seen <**DATE**>9 AM; fx 4/97, BP 80/30, strength 5/5; pager #12345; CABG '92."
    r = out.index("<**DATE**>")
    leaks = rescan(out, [], replaced=[(r, r + len("<**DATE**>"))], shapes=("date", "number"))
    found = [(out[lk.start:lk.end], lk.kind) for lk in leaks]
    assert found == [("9", "residue"), ("4/97", "shape"), ("5/5", "shape"),
                     ("#12345", "shape"), ("'92", "shape")]   # not the blood pressure


def test_a_title_or_an_ages_unit_glued_to_a_replacement_is_no_residue():
    """"DrFord" and "92YO" with the name and the age replaced: a reviewer
    cannot act on "Dr" or "YO"; the rest of a number or a word still is one."""
    out = "Seen by Dr<**NAME**> today, <**AGE**>YO man; MRN <**ID**>7 and Mc<**NAME**>."
    repl = [(m.start(), m.end()) for m in re.finditer(r"<\*\*\w+\*\*>", out)]
    found = [out[lk.start:lk.end] for lk in rescan(out, [], replaced=repl)
             if lk.kind == "residue"]
    assert found == ["7", "Mc"]



def test_the_title_of_the_next_field_after_a_replaced_name_is_no_company_form():
    """"<name>  D.O.B 19.02.1934": the bundled sample's export listed "D.O."
    as the rest of a company's name ("<**ORG**> S.A."), which it still is."""
    from app.deid.rescan import recogniser_leaks
    for out, want in [("Patient: <**NAME**>  D.O.B <**DOB**>", []),
                      ("Patient: <**NAME**>  D.O.B. <**DOB**>", []),
                      ("made by <**ORG**> S.A. in 2019", ["S.A."])]:
        repl = [(m.start(), m.end()) for m in re.finditer(r"<\*\*\w+\*\*>", out)]
        found = [out[lk.start:lk.end] for lk in recogniser_leaks(out, replaced=repl, beside=True)
                 if lk.kind == "residue"]
        assert found == want, out


def test_a_models_date_in_clear_needs_a_digit_or_a_calendar_word():
    """"Medicare No 4113710470" with the number replaced: the model scan's
    "No" taken for a date of birth is none."""
    from app.deid.rescan import recogniser_leaks
    out = "Huynh No <**IDN**> seen Tues, on Christmas Eve and on 3rd"

    def model(text):
        for word in ("No", "Tues", "Christmas", "3rd"):
            i = text.index(word)
            yield i, i + len(word), "DOB"
    r = out.index("<**IDN**>")
    found = [out[lk.start:lk.end] for lk in recogniser_leaks(out, model_fn=model,
                                                             replaced=[(r, r + 9)])]
    assert found == ["Tues", "Christmas", "3rd"]

def test_names_by_context_and_lists_dates_glued_or_short():
    """What a model most often leaves: a name after a title or a relative in
    any case, a listed name with a capital, years glued to words, digits
    joined to a replaced date, a phone in groups."""
    text = ("dr small saw her. Son, Ed, visited. Seen by Margaret today.\n"
            "PMH: CA'88, AAA repair in 14', MI in 1980S. Echo <**DATE**>/5 and 2/<**DATE**>.\n"
            "Call (202) 232-4455. Heart rate 80/60 at 0700.")
    repl = [(m.start(), m.end()) for m in re.finditer(r"<\*\*DATE\*\*>", text)]
    found = {text[lk.start:lk.end]: lk.kind for lk in rescan(
        text, replaced=repl, names_replaced=[], known=[], shapes=("date", "number"))}
    assert found["small"] == found["Ed"] == "name"
    assert found["Margaret"] == "listed"
    assert found["88"] == found["14"] == found["1980S"] == "shape"
    assert found["5"] == found["2"] == "residue"
    assert "(202) 232-4455" in found or "202) 232-4455" in found
    for word in ("saw", "Seen", "Heart", "80/60", "0700", "visited", "PMH", "Echo"):
        assert word not in found


def test_capitalised_words_continuing_a_replacement_and_corpus_words():
    """The rest of an organisation cut short is suspected on both sides of the
    replacement; a word the project's notes write in clear everywhere is not."""
    from app.deid.rescan import KnownIdentifiers, words_in_clear
    text = ("Servicio de <**H**> Fundación de Medellín y el Deporte. Farmacia <**H**> (Xeral-Cíes)."
            "\n<**N**> de la Riva. País: <**P**>\nPaciente <**N**>, bien.")
    repl = [(m.start(), m.end()) for m in re.finditer(r"<\*\*\w\*\*>", text)]
    ordinary = KnownIdentifiers(words_in_clear("País: España. Servicio de Urgencias. Paciente.",
                                               []))
    found = {text[lk.start:lk.end]: lk.kind for lk in rescan(text, replaced=repl, known=ordinary)}
    assert found["Fundación de Medellín y el Deporte"] == found["Xeral-Cíes"] == "beside"
    assert found["de la Riva"] == found["Farmacia"] == "beside"
    for word in ("Servicio", "País", "Paciente"):            # the corpus's ordinary words
        assert not any(word in k for k in found)
    assert words_in_clear("Dr Ann Lee saw Ann.", [(3, 10)]) == {"dr", "saw", "ann"}


def test_capitalised_words_beside_a_replaced_date_are_the_note_going_on():
    """In notes written in capitals every word is capitalised: beside a
    replaced date or number they are no rest of a name (worded_replaced: the
    replacements of names, places, organisations); beside a place they still are."""
    text = "PMH: CAD WITH NQWMI <**DATE**>, HTN. PRESENTED TO EW <**DATE**> FROM <**LOC**> KELLERBY."
    repl = [(m.start(), m.end()) for m in re.finditer(r"<\*\*\w+\*\*>", text)]
    found = [text[lk.start:lk.end] for lk in rescan(text, replaced=repl, known=[],
                                                    worded_replaced=repl[2:])]
    assert found == ["KELLERBY"]
    every = [text[lk.start:lk.end] for lk in rescan(text, replaced=repl, known=[])]
    assert "NQWMI" in " ".join(every)                   # as before, given no kinds


def test_proper_names_by_their_form():
    """Title-case word runs inside a sentence and company forms are suspected;
    a sentence's first words and all-capitals notes are not."""
    text = ("Se contactó con el Centro de Vacunación Internacional. Diabetes Mellitus tipo 2. "
            "Reactivo (Innogenetics N.V.) usado.\nPT ALERT AND ORIENTED. Seen by Heart Failure "
            "Nurse. Desmina (Dako M760, USA), Hb (Hb 12, normal).")
    found = {text[lk.start:lk.end]: lk.kind for lk in rescan(text, known=[])}
    assert found["Centro de Vacunación Internacional"] == found["Innogenetics N.V"] == "proper"
    assert not any(k.startswith(("Diabetes", "PT", "ALERT")) for k in found)
    assert "Heart Failure Nurse" not in found               # common English words only
    assert found["Dako"] == "proper" and "Hb" not in found   # a maker before a catalogue number


def test_the_report_counts_resumed_notes_as_notes_and_shows_the_review_in_the_app():
    """Issue 34 item 8: "58 of them were kept" followed a count of identifiers;
    the residual-risk section only told a desktop user to run a command."""
    from app.deid.report import render_html
    report = {"generated_at": "2026-11-26T20:00:00", "tool": {"name": "DeID Studio",
                                                              "version": "1"},
              "totals": {"notes_done": 2, "notes_resumed": 58, "spans": 300, "notes_bad": 0,
                         "notes_failed": 0, "notes_leak": 0, "leaks": 0, "notes_with_leaks": 0},
              "per_label": {}, "per_note": []}
    page = render_html(report)
    assert "58 notes were kept as an earlier export with the same settings wrote them" in page
    assert "of them were kept" not in page
    assert "Review a sample (residual risk)…" in page and "Residual-risk review of an" in page
    assert page.index("Review a sample") < page.index("From a terminal")



def test_the_signed_risk_says_whose_replacements_it_measured_and_the_scan_its_place():
    """A walkthrough signed "at most 7.8 % of notes leak ... redacted by the
    same model" over an export of annotated notes (5,137 of 6,400
    replacements people's), beside "the leak scan suspects 252 identifiers in
    155 notes", and a dismissed suspicion left no trace in the report."""
    from app.deid.folder import ANNOTATED
    from app.deid.report import render_html
    suspicion = {"kind": "listed", "category": "name", "start": 3, "end": 8}
    report = {"generated_at": "2026-11-30T17:00:00", "tool": {"name": "DeID Studio",
                                                              "version": "1"},
              "totals": {"notes_done": 300, "notes_resumed": 0, "spans": 6400, "notes_bad": 0,
                         "notes_failed": 0, "notes_leak": 0, "leaks": 1, "notes_with_leaks": 1,
                         "dismissed": 2},
              "per_label": {}, "made_by": {ANNOTATED: 5137, "starter model": 1263},
              "per_note": [{"note": "a.txt", "leaks": 1, "status": "done", "spans": 6400,
                            "reason": "", "labels": {}, "strategies": {},
                            "suspicions": [suspicion]}],
              "audit": {"notes_sentence": "1 of 59 notes leaks (1.7 % observed): at most 7.8 % of "
                                          "notes leak, 95 % confidence.",
                        "identifiers_sentence": "", "reviewer": "P. Officer",
                        "notes_reviewed": 59, "notes_in_export": 300,
                        "reviewed_at": "2026-11-30", "identifiers_left": 1, "notes_leaking": 1}}
    page = render_html(report)
    assert ("Of the 6,400 replacements in these notes 5,137 (80%) are people&#x27;s annotations, "
            "not the model&#x27;s: the bounds hold for notes annotated as these were.") in page
    assert "the residual risk above is what people found in the notes they read" in page
    assert "2 suspicions that people judged not a leak are not listed" in page
    report["made_by"] = {"transformer-imbalanced": 6000, ANNOTATED: 400}
    assert "people&#x27;s annotations" not in render_html(report)
    # The bounds name the model they hold for, and a whole export read is said so
    # (a walkthrough: "30 notes drawn at random from the 30", no model named).
    assert "59 notes drawn at random from the 300 of this export" in page
    assert "this folder holds no export report to name them" in page
    report["audit"].update(model={"model": "transformer-imbalanced"}, notes_reviewed=300)
    page = render_html(report)
    assert "P. Officer read every note of this export (300)" in page
    assert "redacted by the same model (transformer-imbalanced) and policy" in page

def test_a_country_or_an_eponym_is_no_listed_place_or_name_in_clear():
    """The walkthroughs' review lists held "born in Fiji", "New Zealand",
    "Mexico" and "Graves' disease": a country identifies no place (the
    English floor reads it so) and a name before a disease names the disease."""
    from app.deid.rescan import recogniser_leaks
    for out in ["Social: born in Fiji, lives alone.", "born in New Zealand, retired.",
                "History of Graves' disease.", "Moved from Mexico in 1990.",
                "SOCIAL: BORN IN PUERTO RICO, LIVES WITH HER SON"]:
        assert [out[lk.start:lk.end] for lk in recogniser_leaks(out, beside=True)
                if lk.kind in ("listed", "proper")] == [], out
    out = "Seen by Gomez today at Springfield."
    assert [out[lk.start:lk.end] for lk in recogniser_leaks(out, beside=True)] == [
        "Gomez", "Springfield"]


def test_a_known_name_before_an_eponyms_noun_is_no_leak():
    """"A: [BELL]'S PALSY" was suspected in 12 notes, as another patient's Bell."""
    from app.deid.rescan import KnownIdentifiers, known_leaks
    known = KnownIdentifiers()
    known.add("p2", "name", "Bell")
    out = "A: BELL'S PALSY (LEFT). Seen by Bell today."
    assert [out[lk.start:lk.end] for lk in known_leaks(out, known=known, patient="p1")] == ["Bell"]


def test_times_in_the_report_read_as_a_person_reads_them():
    """"Signed by P. Officer on 2026-11-30T17:28:57+00:00" in a walkthrough."""
    from app.deid.report import when
    assert when("2026-11-30T17:28:57+00:00") == "2026-11-30 17:28 UTC"
    assert when("2026-11-30T19:28:57+02:00") == "2026-11-30 17:28 UTC"
    assert when("2026-11-26T20:00:00") == "2026-11-26 20:00"
    assert when("not a time") == "not a time"


def test_the_report_calls_a_kind_protected_only_where_the_scan_suspects_none_left():
    """A walkthrough's export left 816 dates suspected in clear (the
    sample's annotators mark only birth dates, so the model learned to leave
    dates), while the report said in green that every Safe Harbor kind had a
    label and listed dates "protected by DATE"."""
    from app.deid.coverage import coverage
    from app.deid.report import render_html
    from dataclasses import asdict
    rows = [asdict(r) for r in coverage(["NAME", "DATE", "ID", "CONTACT", "LOCATION", "AGE"])]
    suspicion = {"kind": "model", "category": "DATE", "start": 3, "end": 8}
    report = {"generated_at": "2026-11-30T17:00:00", "tool": {"name": "DeID Studio",
                                                              "version": "1"},
              "totals": {"notes_done": 2, "notes_resumed": 0, "spans": 40, "notes_bad": 0,
                         "notes_failed": 0, "notes_leak": 0, "leaks": 3, "notes_with_leaks": 2},
              "per_label": {"NAME": {"spans": 30, "notes": 2}, "DATE": {"spans": 10, "notes": 1}},
              "per_note": [{"note": "a.txt", "leaks": 2, "status": "done", "spans": 20,
                            "reason": "", "labels": {}, "strategies": {},
                            "suspicions": [suspicion, {**suspicion, "category": "date"}]},
                           {"note": "b.txt", "leaks": 1, "status": "done", "spans": 20,
                            "reason": "", "labels": {}, "strategies": {},
                            "suspicions": [suspicion]}],
              "coverage": rows}
    page = render_html(report)
    assert "suspects none of them left in clear" not in page and "class='ok'>Every kind" not in page
    assert ("the leak scan suspects some kinds the labels cover were left in clear: DATE: 3 "
            "suspected in 2 notes, 10 replaced.") in page
    assert "<th>Replaced here</th><th>Suspected in clear</th>" in page
    # Kinds under one label share its row: CONTACT's count is not said once a kind.
    contact = [r["what"] for r in rows if tuple(r["labels"]) == ("CONTACT",)]
    assert len(contact) > 1
    assert page.count("label CONTACT</td>") == 1
    assert f"<td>{'; '.join(contact)}</td><td>label CONTACT</td>" in page
    # No suspicion at all: then, and only then, the kinds are said covered in green.
    for n in report["per_note"]:
        n["suspicions"], n["leaks"] = [], 0
    page = render_html(report)
    assert ("class='ok'>Every kind of the HIPAA Safe Harbor list that notes can hold has a "
            "label, and the leak scan suspects none of them left in clear.") in page
    assert "A label protects only what the model marks" not in page


def test_the_leak_list_puts_what_the_project_knows_first_and_counts_by_why():
    """A walkthrough's report listed 1,210 suspicions by note name, a known
    hospital name in clear buried among a recall-biased model's guesses at
    ordinary words: no one could act on it."""
    from app.deid.report import render_html
    from app.deid.rescan import REASONS
    model = {"kind": "model", "category": "NAME", "start": 3, "end": 8}
    known = {"kind": "project", "category": "LOCATION", "start": 40, "end": 52}
    note = {"status": "done", "spans": 5, "reason": "", "labels": {}, "strategies": {}}
    report = {"generated_at": "2026-12-01T01:00:00", "tool": {"name": "DeID Studio",
                                                              "version": "1"},
              "totals": {"notes_done": 3, "notes_resumed": 0, "spans": 15, "notes_bad": 0,
                         "notes_failed": 0, "notes_leak": 0, "leaks": 4, "notes_with_leaks": 3},
              "per_label": {"NAME": {"spans": 15, "notes": 3}},
              "per_note": [{**note, "note": "a.txt", "leaks": 2, "suspicions": [model, model]},
                           {**note, "note": "b.txt", "leaks": 1, "suspicions": [model]},
                           {**note, "note": "c.txt", "leaks": 2,
                            "suspicions": [{**model, "start": 1}, known]}]}
    page = render_html(report)
    assert ("Read these first: 1 suspicion in 1 note is a string the project knows as an "
            "identifier") in page
    by_why = page.split("Why suspected (the strongest first)")[1].split("</table>")[0]
    assert by_why.index(REASONS["project"]) < by_why.index(REASONS["model"])
    assert f"<td>{REASONS['model']}</td><td class='n'>4</td><td class='n'>3</td>" in by_why
    listed = page.split("What and where")[1].split("</table>")[0]
    assert listed.index("c.txt") < listed.index("a.txt") < listed.index("b.txt")
    row_c = listed.split("c.txt")[1].split("</tr>")[0]
    assert row_c.index(REASONS["project"]) < row_c.index(REASONS["model"])
    # A rule of the rules file has its own row, by name: one that suspects
    # many ordinary words is one a reviewer can switch off.
    ruled = {"kind": "rule", "category": "ID", "start": 60, "end": 70, "rule": "kh-record"}
    report["per_note"][1]["suspicions"] = [model, ruled, {**ruled, "rule": ""}]
    by_why = render_html(report).split("Why suspected")[1].split("</table>")[0]
    assert ("<td>the rule “kh-record” finds an identifier</td><td class='n'>1</td>"
            in by_why)
    assert f"<td>{REASONS['rule']}</td><td class='n'>1</td>" in by_why
    # Only hints: said so, nothing to read first.
    report["per_note"] = report["per_note"][:2]
    assert "None of the suspicions is a string the project knows" in render_html(report)
