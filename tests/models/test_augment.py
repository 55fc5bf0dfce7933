"""Mention replacement (`app.models.augment`): copies of training segments
with other names and places, the context and every other span kept."""
from app.core.bio import spans_to_tags, tags_to_spans
from app.core.spans import Span
from app.core.tokenize import segment
from app.models.augment import COPY_SUFFIX, mention_replacements
from app.models.base import TaggedSegment
from app.rules import dictionaries


def _item(text: str, spans: list[tuple[str, str]], doc_id: str = "n1") -> TaggedSegment:
    """One segment of ``text`` tagged with the spans ``(words, label)``,
    located by offset (each written once in the text)."""
    seg = segment(text, split_sentences=False)[0]
    gold = []
    for words, label in spans:
        start = text.index(words)
        gold.append(Span(start, start + len(words), label))
    tags, report = spans_to_tags(seg.tokens, gold)
    assert not report.misaligned
    return TaggedSegment(doc_id, text, seg, tuple(tags))


def _spans(item: TaggedSegment) -> list[tuple[str, str]]:
    return [(item.text[s.start:s.end], s.label)
            for s in tags_to_spans(item.segment.tokens, item.tags)]


def test_names_and_places_are_replaced_and_the_rest_kept():
    item = _item("Seen by Dr John SMITH in Baltimore on 7/22 at GH .",
                 [("John SMITH", "NAME"), ("Baltimore", "LOCATION"), ("7/22", "DATE"),
                  ("GH", "LOCATION")])
    (copy,) = mention_replacements([item], seed=13)
    assert copy.doc_id == "n1" + COPY_SUFFIX
    assert copy.segment.start == 0 and copy.segment.end == len(copy.text)
    spans = _spans(copy)
    assert [label for _, label in spans] == ["NAME", "LOCATION", "DATE", "LOCATION"]
    first, last = spans[0][0].split()
    assert dictionaries.is_first_name(first) and first[0].isupper() and first[1:].islower()
    assert last.isupper() and dictionaries.is_name(last)               # the case kept
    assert (first, last) != ("John", "SMITH")
    assert spans[1][0] != "Baltimore" and dictionaries.is_place(spans[1][0])
    assert ("7/22", "DATE") in spans and ("GH", "LOCATION") in spans   # kept: not a name, too short
    assert copy.text.startswith("Seen by Dr ") and copy.text.endswith(" at GH .")
    # Every token of the copy is a canonical token of its text.
    assert copy.segment.tokens == segment(copy.text, split_sentences=False)[0].tokens


def test_initials_stay_and_the_draws_repeat_for_a_seed():
    item = _item("Pt J. Kowalczyk seen .", [("J. Kowalczyk", "NAME")])
    a = mention_replacements([item], seed=1)[0]
    assert a.text.startswith("Pt J. ") and "Kowalczyk" not in a.text
    assert mention_replacements([item], seed=1)[0].text == a.text
    draws = {mention_replacements([item], seed=s)[0].text for s in range(8)}
    assert len(draws) > 1


def test_segments_without_a_name_or_place_give_no_copy():
    items = [_item("BP 120/80 today .", []), _item("Admitted on 7/22 .", [("7/22", "DATE")])]
    assert mention_replacements(items, seed=13) == []
