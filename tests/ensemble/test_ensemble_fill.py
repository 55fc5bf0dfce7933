"""Recall fill: which members' spans are added, and which rules dev keeps."""
from app.core.spans import Span
from app.ensemble.fill import fill, fit_fill


def test_a_rule_adds_only_spans_of_its_label_that_overlap_nothing():
    base = [Span(0, 5, "NAME")]
    member = {"m": [Span(2, 8, "NAME"), Span(10, 14, "DATE"), Span(20, 24, "NAME")]}
    out = fill(base, member, [("m", "NAME")])
    assert out == [Span(0, 5, "NAME"), Span(20, 24, "NAME")]
    assert fill(base, member, []) == base


def test_rules_apply_in_order_and_see_what_the_earlier_ones_added():
    members = {"a": [Span(10, 14, "DATE")], "b": [Span(12, 18, "ID"), Span(30, 32, "ID")]}
    out = fill([], members, [("a", "DATE"), ("b", "ID")])
    assert out == [Span(10, 14, "DATE"), Span(30, 32, "ID")]
    out = fill([], members, [("b", "ID"), ("a", "DATE")])
    assert out == [Span(12, 18, "ID"), Span(30, 32, "ID")]


def test_fit_keeps_the_rules_that_raise_dev_f1_greedily():
    gold = [Span(0, 4, "NAME"), Span(10, 14, "DATE"), Span(20, 24, "ID")]
    pred = [Span(0, 4, "NAME")]
    members = {
        "good": [Span(10, 14, "DATE")],                       # a true date
        "noisy": [Span(20, 24, "ID"), Span(40, 44, "ID"),      # one right, two wrong IDs
                  Span(50, 54, "ID"), Span(10, 12, "DATE")],   # and a wrong date boundary
    }
    docs = [(pred, gold, members)] * 3
    rules, before, after = fit_fill(docs)
    # good/DATE is taken first (the biggest gain); noisy/DATE would only add
    # an overlapping span (nothing), noisy/ID costs two FPs for one TP.
    assert rules == [("good", "DATE")]
    assert before < after
    # Recall first (F2) would pay two false positives for the missed ID, but
    # a rule right one time in three is refused (MIN_ADDED_PRECISION 0.5) ...
    rules2, before2, after2 = fit_fill(docs, beta=2.0)
    assert rules2 == [("good", "DATE")] and before2 < after2
    # ... unless the floor is lowered below its precision.
    rules3, _, after3 = fit_fill(docs, beta=2.0, min_added_precision=0.3)
    assert rules3 == [("good", "DATE"), ("noisy", "ID")] and after3 > after2


def test_fit_with_nothing_to_add():
    gold = [Span(0, 4, "NAME")]
    assert fit_fill([(gold, gold, {"m": gold})]) == ([], 1.0, 1.0)
    assert fit_fill([]) == ([], 0.0, 0.0)
