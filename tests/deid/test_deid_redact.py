import pytest

from app.core.spans import Span
from app.deid.policy import Policy, normalise_strategy
from app.deid.redact import redact_text

TEXT = "Pt John Smith, DOB 03/05/1947, MRN 123-456.\nSeen at RPA by Dr Lee."
SPANS = [Span(3, 13, "PERSON"), Span(19, 29, "DOB"), Span(35, 42, "IDN"),
         Span(52, 55, "HOSPITAL"), Span(59, 65, "PERSON")]


def check_map(text, spans, result):
    """Out ranges hold the replacements and the text between them is intact."""
    pos_in = pos_out = 0
    for m in result.span_map:
        assert text[pos_in:m.in_start] == result.text[pos_out:m.out_start]
        pos_in, pos_out = m.in_end, m.out_end
    assert text[pos_in:] == result.text[pos_out:]
    assert [(m.in_start, m.in_end, m.label) for m in result.span_map] == \
        [(s.start, s.end, s.label) for s in sorted(spans)]


@pytest.mark.parametrize("strategy, expected", [
    ("tag", "Pt <**PERSON**>, DOB <**DOB**>, MRN <**IDN**>.\nSeen at <**HOSPITAL**> by <**PERSON**>."),
    ("bracket", "Pt [PERSON], DOB [DOB], MRN [IDN].\nSeen at [HOSPITAL] by [PERSON]."),
    ("remove", "Pt , DOB , MRN .\nSeen at  by ."),
    ("mask", "Pt **** *****, DOB **/**/****, MRN ***-***.\nSeen at *** by ** ***."),
])
def test_fixed_strategies_and_exact_offsets(strategy, expected):
    result = redact_text(TEXT, SPANS, Policy(default=strategy))
    assert result.text == expected
    check_map(TEXT, SPANS, result)
    for m in result.span_map:
        assert m.strategy == strategy
        if strategy == "tag":
            assert result.text[m.out_start:m.out_end] == f"<**{m.label}**>"
        if strategy == "mask":
            assert m.out_end - m.out_start == m.in_end - m.in_start


def test_surrogate_offsets_exact_and_mixed_policy():
    policy = Policy(default="surrogate", strategies={"HOSPITAL": "tag", "IDN": "mask"})
    result = redact_text(TEXT, SPANS, policy, patient_key="P1", secret="k")
    check_map(TEXT, SPANS, result)
    by_label = {m.label: result.text[m.out_start:m.out_end] for m in result.span_map}
    assert by_label["HOSPITAL"] == "<**HOSPITAL**>"
    assert by_label["IDN"] == "***-***"
    assert "John" not in result.text and "Smith" not in result.text and "Lee" not in result.text
    assert "03/05/1947" not in result.text


def test_overlapping_spans_are_replaced_as_one_over_their_union_longest_label():
    """Two overlapping annotations of one name (a walkthrough's brat file):
    keeping the longest left the rest of the other in clear."""
    spans = [Span(3, 13, "PERSON"), Span(3, 7, "PERSON"), Span(8, 20, "IDN"),
             Span(35, 42, "IDN"), Span(42, 43, "PERSON")]
    result = redact_text(TEXT, spans, Policy(default="bracket"))
    assert [(m.in_start, m.in_end, m.label) for m in result.span_map] == \
        [(3, 20, "IDN"), (35, 42, "IDN"), (42, 43, "PERSON")]            # touching: apart
    assert result.text.startswith("Pt [IDN]3/05/1947, MRN [IDN][PERSON]")


def test_surrogate_needs_a_secret_and_bad_spans_are_refused():
    with pytest.raises(ValueError):
        redact_text(TEXT, SPANS, Policy(default="surrogate"))
    with pytest.raises(ValueError):
        redact_text("short", [Span(0, 10, "PERSON")], Policy())
    assert redact_text(TEXT, [], Policy()).text == TEXT


def test_strategy_names():
    assert normalise_strategy("redact") == "remove"
    with pytest.raises(ValueError):
        Policy(default="blur")
    p = Policy(default="tag", strategies={"AGE": "surrogate"}, kinds={"X": "id"})
    assert Policy.from_dict(p.to_dict()) == p


def test_a_date_span_over_names_keeps_none_of_their_letters_under_surrogates():
    """A walkthrough's overlapping annotations joined into one span labelled
    DATE over two names; no date could be read in it, and the surrogate kept
    every word but the digits: the whole name stayed in clear. A date that
    cannot be read keeps its month, weekday and common words only."""
    text = ("Patient Zebulon Quackenbush seen by Dr Ottoline Fairweather on ward 7. "
            "Christmas 2019.")
    xmas = text.index("Christmas")
    spans = [Span(8, 20, "PERSON"), Span(16, 40, "DATE"), Span(39, 47, "PERSON"),
             Span(43, 59, "PERSON"), Span(xmas, xmas + 14, "DATE")]
    out = redact_text(text, spans, Policy(default="surrogate"), secret="s").text
    for word in ("Zebulon", "Quackenbush", "Ottoline", "Fairweather"):
        assert word not in out
    assert "Christmas 2019" not in out
    # A readable date beside a name-like word: nothing of it kept either.
    text = "Seen on O'Halloran Day 1950 and on JULY 28TH, 2019."
    spans = [Span(8, 27, "DATE"), Span(text.index("JULY"), text.index("."), "DATE")]
    result = redact_text(text, spans, Policy(default="surrogate"), secret="s")
    assert "Halloran" not in result.text and "1950" not in result.text
    from app.deid.dates import parse_date
    shifted = result.span_map[1]
    assert parse_date(result.text[shifted.out_start:shifted.out_end]) is not None  # still a date


def test_a_date_without_its_year_moves_as_the_notes_dated_form_does():
    """Across the 29th of February of the note's year: "Feb 28" beside
    "28/02/2020" came out a day apart from it (shifted in a common year)."""
    import re

    from app.deid.dates import parse_date
    text = "Seen 28/02/2020 and on 01/03/2020. Review Feb 28, then Mar 1."
    spans = [Span(m.start(), m.end(), "DATE") for m in
             re.finditer(r"\d\d/\d\d/2020|Feb 28|Mar 1", text)]
    result = redact_text(text, spans, Policy(default="surrogate"), patient_key="P1",
                         secret="k")
    new = [result.text[m.out_start:m.out_end] for m in result.span_map]
    dated = [parse_date(d) for d in new[:2]]
    yearless = [parse_date(f"{d} 2020", day_first=False) for d in new[2:]]
    assert [(d.month, d.day) for d in dated] == [(d.month, d.day) for d in yearless], new
