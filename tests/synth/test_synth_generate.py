"""Generator behaviour: determinism, span hygiene, label sets, locales, patients."""
from __future__ import annotations

import re
from collections import defaultdict

import pytest

from app.core.bio import spans_to_tags
from app.core.labels import PRESETS
from app.core.tokenize import segment, tokenize
from app.synth import EPONYMS, generate

N = 120
PAPER = {d.name for d in PRESETS["paper"]}
EXTENDED = {d.name for d in PRESETS["extended"]}


@pytest.fixture(scope="module")
def corpora():
    return {(loc, ls): generate(N, seed=11, locale=loc, label_set=ls)
            for loc in ("en_AU", "en_US") for ls in ("paper", "extended")}


def _dump(docs):
    return [(d.name, d.patient_id, d.text, [s.key for s in d.spans], d.meta) for d in docs]


def test_same_seed_same_output_and_prefix_property():
    a = generate(30, seed=5, locale="mixed", label_set="extended")
    b = generate(30, seed=5, locale="mixed", label_set="extended")
    assert _dump(a) == _dump(b)
    assert _dump(generate(12, seed=5, locale="mixed", label_set="extended")) == _dump(a[:12])


def test_different_seed_or_locale_gives_different_notes():
    base = [d.text for d in generate(10, seed=1)]
    assert [d.text for d in generate(10, seed=2)] != base
    assert [d.text for d in generate(10, seed=1, locale="en_US")] != base


def test_names_and_patient_ids():
    docs = generate(25, seed=3)
    assert [d.name for d in docs] == [f"{d.patient_id}_note_{i:04d}" for i, d in enumerate(docs, 1)]
    assert all(re.fullmatch(r"P\d{4}", d.patient_id) for d in docs)
    per_patient = defaultdict(int)
    for d in docs:
        per_patient[d.patient_id] += 1
    assert max(per_patient.values()) > 1 and all(1 <= v <= 4 for v in per_patient.values())


@pytest.mark.parametrize("loc", ["en_AU", "en_US"])
@pytest.mark.parametrize("ls", ["paper", "extended"])
def test_spans_are_clean_in_bounds_non_overlapping_and_aligned(corpora, loc, ls):
    allowed = PAPER if ls == "paper" else EXTENDED
    for d in corpora[(loc, ls)]:
        d.check_spans()
        segs = segment(d.text)
        spans = sorted(d.spans)
        for a, b in zip(spans, spans[1:]):
            assert a.end <= b.start, f"overlap in {d.name}"
        for s in spans:
            assert s.label in allowed
            t = s.text_in(d.text)
            assert t == t.strip() and "\n" not in t
            # Exactly the identifier: no trailing punctuation or possessive.
            assert t[-1].isalnum(), (d.name, t)
            assert t[0].isalnum() or t[0] in "(+", (d.name, t)
            assert not t.lower().endswith("'s")
            # Never split by the line/sentence segmentation models train on.
            assert any(g.start <= s.start and s.end <= g.end for g in segs)
        _, report = spans_to_tags(tokenize(d.text), d.spans)
        assert report.ok, (d.name, report)


def test_label_set_changes_spans_not_text(corpora):
    for loc in ("en_AU", "en_US"):
        paper, ext = corpora[(loc, "paper")], corpora[(loc, "extended")]
        assert [d.text for d in paper] == [d.text for d in ext]
        for p, e in zip(paper, ext):
            assert set(p.spans) == {s for s in e.spans if s.label in PAPER}
        labels = {s.label for d in ext for s in d.spans}
        assert labels == EXTENDED            # every extended label occurs
        assert {s.label for d in paper for s in d.spans} == PAPER


def test_extended_only_entities_written_but_not_annotated_in_paper(corpora):
    paper, ext = corpora[("en_AU", "paper")], corpora[("en_AU", "extended")]
    checked = 0
    for p, e in zip(paper, ext):
        for s in e.spans:
            if s.label not in PAPER:
                assert not any(ps.overlaps(s) for ps in p.spans), (p.name, s)
                checked += 1
    assert checked > 100


def test_eponyms_present_and_never_annotated(corpora):
    docs = corpora[("en_AU", "extended")] + corpora[("en_US", "extended")]
    seen = set()
    for d in docs:
        low = d.text.lower()
        for ep in EPONYMS:
            for m in re.finditer(re.escape(ep.lower()), low):
                seen.add(ep)
                assert not any(s.start < m.end() and m.start() < s.end for s in d.spans), (d.name, ep)
    core = {"Epley's manoeuvre", "Ivor Lewis oesophagectomy", "Glasgow coma scale",
            "Parkinson's disease", "Apgar score", "Whipple procedure", "Cushing's syndrome"}
    assert core <= seen


def test_hard_cases_occur(corpora):
    docs = corpora[("en_AU", "paper")]
    text = "\n".join(d.text for d in docs)
    person = [s.text_in(d.text) for d in docs for s in d.spans if s.label == "PERSON"]
    assert re.search(r"\bDr[A-Z][a-z]", text)                         # run-on "DrSmith"
    assert re.search(r"\bPRO \w|\bPro \w", text)                      # "Pro Smith"
    assert re.search(r"(?i)known to dr\.? [\w. ]+'s rooms", text)
    assert any(re.fullmatch(r"[A-Z'\- ]+, [A-Z][\w' -]+", p) for p in person)   # SMITH, John
    assert any(re.fullmatch(r"[A-Z]\. [A-Z][\w'-]+", p) for p in person)        # J. Smith
    assert re.search(r"(?i)pager? \d{4}", text) and re.search(r"(?i)\bbed \d+", text)
    phones = [s.text_in(d.text) for d in docs for s in d.spans if s.label == "PHONE"]
    assert any("ext" in p or re.search(r"x\d{4}$", p) for p in phones)
    assert any(re.fullmatch(r"\(0\d\) \d{4} \d{4}", p) for p in phones)
    assert any(re.fullmatch(r"04\d\d \d{3} \d{3}", p) for p in phones)
    assert any(p.startswith("+61 ") for p in phones)
    assert sum(d.meta["upper"] for d in docs) > 0
    assert {d.meta["note_type"] for d in docs} == {
        "discharge_summary", "progress_note", "clinic_letter", "referral_letter"}


def test_title_and_possessive_outside_person_spans(corpora):
    for d in corpora[("en_AU", "paper")]:
        for s in d.spans:
            if s.label != "PERSON":
                continue
            t = s.text_in(d.text)
            assert not re.match(r"(?i)(dr|mr|mrs|ms|prof)\.? ", t)
            after = d.text[s.end:s.end + 2]
            if after.lower() == "'s":       # the possessive follows the span
                assert d.text[s.start:s.end + 2].lower().endswith("'s")


def test_us_notes_have_us_forms(corpora):
    docs = corpora[("en_US", "paper")]
    ids = [s.text_in(d.text) for d in docs for s in d.spans if s.label == "IDN"]
    phones = [s.text_in(d.text) for d in docs for s in d.spans if s.label == "PHONE"]
    assert any(re.fullmatch(r"\d{3}-\d{2}-\d{4}", i) for i in ids)
    assert any(re.fullmatch(r"\(\d{3}\) \d{3}-\d{4}", p) for p in phones)
    assert any(re.fullmatch(r"\d{3}\.\d{3}\.\d{4}", p) for p in phones)


def test_patient_identifiers_consistent_across_notes(corpora):
    docs = corpora[("en_AU", "paper")]
    by_patient = defaultdict(list)
    for d in docs:
        by_patient[d.patient_id].append(d)
    mrns = {}
    for pid, notes in by_patient.items():
        assert len({(d.meta["mrn"], d.meta["dob"]) for d in notes}) == 1
        mrn = notes[0].meta["mrn"]
        mrns[pid] = mrn
        for d in notes:
            ids = {s.text_in(d.text) for s in d.spans if s.label == "IDN"}
            # The MRN appears (as an IDN span) in every note that carries one.
            if re.search(rf"\b{mrn}\b", d.text):
                assert mrn in ids
        year = notes[0].meta["dob"][:4]
        for d in notes:
            for s in d.spans:
                if s.label == "DOB":
                    t = s.text_in(d.text)
                    assert year in t or t.endswith(year[2:]), (pid, t)
    assert len(set(mrns.values())) == len(mrns)


def test_patient_name_shared_by_a_patients_notes():
    docs = generate(60, seed=4, locale="en_AU")
    by_patient = defaultdict(list)
    for d in docs:
        by_patient[d.patient_id].append(d)
    multi = [notes for notes in by_patient.values() if len(notes) > 1]
    assert multi
    for notes in multi:
        # Surnames in the PERSON spans: the patient's own surname is common to all notes.
        surname_sets = [{w.strip(",").lower() for s in d.spans if s.label == "PERSON"
                         for w in s.text_in(d.text).split()} for d in notes]
        assert set.intersection(*surname_sets)


def test_bad_arguments():
    with pytest.raises(ValueError):
        generate(1, locale="fr_FR")
    with pytest.raises(ValueError):
        generate(1, label_set="hipaa")
    with pytest.raises(ValueError):
        generate(-1)
    assert generate(0) == []
