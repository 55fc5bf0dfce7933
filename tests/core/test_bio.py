from app.core.bio import repair_tags, spans_to_tags, tags_to_spans
from app.core.spans import Span, remove_overlaps
from app.core.tokenize import tokenize


def test_round_trip_aligned_spans():
    text = "Patient John Smith, MRN 123456."
    toks = tokenize(text)
    spans = [Span(8, 18, "PERSON"), Span(24, 30, "IDN")]
    tags, report = spans_to_tags(toks, spans)
    assert report.ok
    assert tags == ["O", "B-PERSON", "I-PERSON", "O", "O", "B-IDN", "O"]
    assert tags_to_spans(toks, tags) == spans


def test_misaligned_span_snaps_outward_and_is_reported():
    text = "Mr Johnson"
    toks = tokenize(text)
    tags, report = spans_to_tags(toks, [Span(3, 7, "PERSON")])  # "John" inside "Johnson"
    assert tags == ["O", "B-PERSON"]
    assert report.misaligned == [Span(3, 7, "PERSON")]
    assert tags_to_spans(toks, tags) == [Span(3, 10, "PERSON")]


def test_conflicting_and_lost_spans_reported():
    text = "ab cd"
    toks = tokenize(text)
    a, b, lost = Span(0, 5, "X"), Span(3, 5, "Y"), Span(2, 3, "Z")
    tags, report = spans_to_tags(toks, [a, b, lost])
    assert tags == ["B-X", "I-X"]
    assert report.conflicting == [b]
    assert report.lost == [lost]


def test_invalid_bio_is_repaired_when_decoding():
    toks = tokenize("a b c d")
    spans = tags_to_spans(toks, ["I-X", "I-X", "I-Y", "O"], [0.5, 1.0, 0.9, 1.0])
    assert [s.key for s in spans] == [(0, 3, "X"), (4, 5, "Y")]
    assert spans[0].confidence == 0.75
    assert repair_tags(["O", "I-X", "I-X", "B-Y", "I-X"]) == ["O", "B-X", "I-X", "B-Y", "B-X"]


def test_remove_overlaps_prefers_longest():
    spans = [Span(0, 4, "A"), Span(2, 10, "B"), Span(10, 12, "C")]
    assert remove_overlaps(spans) == [Span(2, 10, "B"), Span(10, 12, "C")]
