"""The covered-ranges index the finishing steps use to add spans only where
nothing is tagged yet."""
from app.core.spans import Covered, Span


def test_covered_answers_overlap_at_the_edges_and_after_adding():
    covered = Covered([Span(10, 20, "A"), Span(0, 5, "B")])
    assert covered.overlaps(4, 6) and covered.overlaps(19, 25) and covered.overlaps(12, 13)
    assert covered.overlaps(0, 30)                           # spans both ranges
    assert not covered.overlaps(5, 10) and not covered.overlaps(20, 22)   # touching is not overlapping
    covered.add(20, 22)
    assert covered.overlaps(21, 30) and not covered.overlaps(22, 30)
    assert not Covered().overlaps(0, 1)
