"""Dev notes for the finishing steps' tests: one text annotated alike in
several notes, as training hands them to `fit_finishing`."""
from app.core.bio import spans_to_tags
from app.core.tokenize import segment
from app.models.base import TaggedSegment


def tagged_dev(text: str, gold, docs=("a", "b")) -> list[TaggedSegment]:
    """The segments of ``text`` in each of ``docs``, tagged with ``gold``."""
    dev = []
    for doc in docs:
        for seg in segment(text):
            tags, _ = spans_to_tags(seg.tokens, gold)
            dev.append(TaggedSegment(doc, text, seg, tuple(tags)))
    return dev
