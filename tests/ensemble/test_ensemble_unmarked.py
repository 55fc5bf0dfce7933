"""Unmarked words: the words annotators never mark, and the spans made only of them."""
from app.core.spans import Span
from app.ensemble.unmarked import drop_unmarked, unmarked_words


def test_a_word_seen_often_and_never_marked_is_unmarked():
    docs = [("el riñón y el bazo. Dr Gil.", [Span(23, 26, "NAME")]),
            ("el riñón. el Gil. el riñón y el riñón, riñón.", [Span(13, 16, "NAME")])]
    words = unmarked_words(docs, min_count=5)
    assert words == {"el", "riñón"}              # "gil" is marked; "y", "dr", "bazo" are rare
    assert unmarked_words(docs, min_count=6) == {"el"}


def test_spans_made_only_of_unmarked_words_are_dropped_and_others_kept():
    text = "Riñón derecho. El 12 de mayo. Gil el riñón."
    words = frozenset({"riñón", "el", "de"})
    spans = [Span(0, 5, "X"), Span(15, 28, "FECHA"), Span(30, 33, "NAME"), Span(34, 42, "X")]
    assert [text[s.start:s.end] for s in drop_unmarked(text, spans, words)] == [
        "El 12 de mayo", "Gil"]
    assert drop_unmarked(text, spans, frozenset()) == spans
