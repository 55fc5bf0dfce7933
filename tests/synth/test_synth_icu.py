"""The ICU nursing-note style: determinism, span hygiene, what real ICU notes carry."""
from __future__ import annotations

import re

import pytest

from app.core.bio import spans_to_tags
from app.core.tokenize import tokenize
from app.synth import generate
from app.synth.__main__ import main

N = 300


@pytest.fixture(scope="module")
def icu():
    return generate(N, seed=3, label_set="extended", style="icu")


def test_deterministic_and_prefix_stable():
    a = generate(40, seed=4, label_set="extended", style="icu")
    b = generate(40, seed=4, label_set="extended", style="icu")
    assert [(d.name, d.text, [s.key for s in d.spans]) for d in a] == \
        [(d.name, d.text, [s.key for s in d.spans]) for d in b]
    assert [d.text for d in generate(15, seed=4, label_set="extended", style="icu")] == \
        [d.text for d in a[:15]]
    assert [d.text for d in generate(40, seed=5, label_set="extended", style="icu")] != \
        [d.text for d in a]


def test_default_style_is_unchanged_discharge_notes():
    assert [d.text for d in generate(8, seed=2)] == \
        [d.text for d in generate(8, seed=2, style="discharge")]
    assert all(d.meta["note_type"] != "icu_nursing" for d in generate(8, seed=2))


def test_spans_are_trimmed_and_align_with_tokens(icu):
    for d in icu:
        tokens = tokenize(d.text)
        _, report = spans_to_tags(tokens, d.spans)
        assert not report.misaligned and not report.conflicting and not report.lost, d.name
        for s in d.spans:
            surface = d.text[s.start:s.end]
            assert surface and surface == surface.strip(), d.name


def test_casing_mix_and_notes_without_identifiers(icu):
    upper = sum(d.text == d.text.upper() for d in icu)
    lower = sum(d.text == d.text.lower() for d in icu)
    assert upper > N * 0.3 and lower > N * 0.2
    assert sum(not d.spans for d in icu) > N * 0.15


def _surfaces(docs, label):
    return [d.text[s.start:s.end] for d in docs for s in d.spans if s.label == label]


def test_icu_identifiers_look_like_real_nursing_notes(icu):
    texts = "\n".join(d.text for d in icu).upper()
    assert re.search(r"\bDR\.? [A-Z]", texts)                      # "DR. SMITH", "DR SMITH"
    assert re.search(r"\b(WIFE|SON|DAUGHTER|HUSBAND) [A-Z]+", texts)  # relatives by first name
    assert "NEURO:" in texts or "NEURO-" in texts
    dates = _surfaces(icu, "DATE")
    assert any(re.fullmatch(r"\d{1,2}/\d{1,2}", x) for x in dates)      # no year
    assert any(re.fullmatch(r"(19|20)\d\d", x) for x in dates)           # a year alone
    assert _surfaces(icu, "HOSPITAL") and _surfaces(icu, "LOCATION") and _surfaces(icu, "PHONE")
    assert all(int(a) >= 90 for a in _surfaces(icu, "AGE"))              # only ages over 89
    # Ratios that look like dates are written but never annotated.
    assert re.search(r"CPAP \d+/\d+|PS \d+/\d+", texts)
    assert not any(re.search(r"CPAP|PEEP", x, re.I) for x in dates)


def test_mixed_style_has_both_kinds_and_distinct_patients():
    docs = generate(20, seed=1, label_set="extended", style="mixed")
    kinds = [d.meta["note_type"] == "icu_nursing" for d in docs]
    assert kinds == [False] * 10 + [True] * 10
    first = {d.patient_id for d in docs[:10]}
    assert first.isdisjoint({d.patient_id for d in docs[10:]})


def test_cli_style_option(tmp_path):
    out = tmp_path / "icu"
    assert main([str(out), "--n", "5", "--seed", "2", "--labels", "extended", "--style", "icu"]) == 0
    docs = generate(5, seed=2, label_set="extended", style="icu")
    for d in docs:
        assert (out / f"{d.name}.txt").read_text(encoding="utf-8") == d.text
