"""The covered-ranges index the finishing steps use to add spans only where
nothing is tagged yet."""
import pytest

from app.core.spans import Covered, Span


def test_covered_answers_overlap_at_the_edges_and_after_adding():
    covered = Covered([Span(10, 20, "A"), Span(0, 5, "B")])
    assert covered.overlaps(4, 6) and covered.overlaps(19, 25) and covered.overlaps(12, 13)
    assert covered.overlaps(0, 30)                           # spans both ranges
    assert not covered.overlaps(5, 10) and not covered.overlaps(20, 22)   # touching is not overlapping
    covered.add(20, 22)
    assert covered.overlaps(21, 30) and not covered.overlaps(22, 30)
    assert not Covered().overlaps(0, 1)


def _remove_overlaps_by_definition(spans):
    """The rule remove_overlaps implements, quadratic: longest first, then earliest."""
    from app.core.spans import sort_spans
    chosen = []
    for s in sorted(spans, key=lambda s: (-(s.end - s.start), s.start, s.label)):
        if not any(s.overlaps(c) for c in chosen):
            chosen.append(s)
    return sort_spans(chosen)


def test_remove_overlaps_keeps_longest_then_earliest_on_random_spans():
    import random
    from app.core.spans import remove_overlaps
    rng = random.Random(4)
    for _ in range(2000):
        spans = []
        for _ in range(rng.randint(0, 25)):
            a = rng.randint(0, 60)
            spans.append(Span(a, a + rng.randint(1, 12), rng.choice("AB")))
        assert remove_overlaps(spans) == _remove_overlaps_by_definition(spans)


@pytest.mark.timeout(120)
def test_remove_overlaps_scales_to_a_huge_note():
    """Issue 23 item 8: a 50 MB note never finished (every span against
    every other). 300,000 spans: the quadratic version needs hours."""
    from app.core.spans import remove_overlaps
    # Every third span reaches into the next one, and is longer: it wins.
    spans = [Span(3 * i, 3 * i + (4 if i % 3 == 0 else 2), "A") for i in range(300_000)]
    kept = remove_overlaps(spans)
    assert len(kept) == 200_000
    assert kept == [s for i, s in enumerate(spans) if i % 3 != 1]


def test_met_by_says_which_spans_another_list_overlaps_on_random_spans():
    import random
    from app.core.spans import met_by
    rng = random.Random(7)
    for _ in range(2000):
        def some():
            out = []
            for _ in range(rng.randint(0, 12)):
                a = rng.randint(0, 60)
                out.append(Span(a, a + rng.randint(1, 12), "A"))
            return out
        spans, others = some(), some()
        assert met_by(spans, others) == [any(o.overlaps(s) for o in others) for s in spans]


def test_ranges_answer_as_comparing_every_range_does_on_random_ranges():
    import random
    from app.core.spans import Ranges
    rng = random.Random(11)
    for _ in range(300):
        kept = [(a, a + rng.randint(1, 12)) for a in (rng.randrange(60) for _ in range(rng.randrange(8)))]
        ranges = Ranges(Span(a, b, "X") for a, b in kept)
        for _ in range(20):
            a = rng.randrange(70)
            b = a + rng.randint(1, 15)
            assert ranges.meets(a, b) == any(s < b and a < e for s, e in kept), (kept, a, b)
            if rng.random() < 0.3:
                ranges.add(a, b)
                kept.append((a, b))
            elif kept and rng.random() < 0.3:
                gone = kept.pop(rng.randrange(len(kept)))
                ranges.remove(*gone)
