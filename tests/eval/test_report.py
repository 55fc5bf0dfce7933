import json

import numpy as np
import pytest

from app.core.spans import Span
from app.eval.bootstrap import bootstrap_prf
from app.eval.metrics import PRF, label_confusion, missed_spans, strict_errors
from app.eval.report import SCHEMA, evaluate

# Four hand-made notes; token offsets are written out in the comments.
TEXTS = [
    "John Smith lives in Sydney NSW 2031.",   # John 0-4 Smith 5-10 lives 11-16 Sydney 20-26 2031 31-35
    "Call 02 9382 1234 today.",               # 02 5-7 9382 8-12 1234 13-17
    "Nothing here.",
    "Seen 2014 by Ann.",                      # 2014 5-9 by 10-12 Ann 13-16
]
GOLD = [
    [Span(0, 10, "PERSON"), Span(20, 26, "ADDRESS"), Span(31, 35, "ADDRESS")],
    [Span(5, 17, "PHONE")],
    [],
    [Span(5, 9, "DATE"), Span(13, 16, "PERSON")],
]
PRED = [
    [Span(0, 4, "PERSON"), Span(20, 26, "ADDRESS"), Span(11, 16, "PERSON")],
    [Span(5, 17, "IDN")],
    [],
    [Span(5, 9, "DATE"), Span(10, 16, "ADDRESS")],
]


@pytest.fixture(scope="module")
def report():
    return evaluate(TEXTS, GOLD, PRED, bootstrap=200, seed=7)


def test_micro_strict_relaxed_token(report):
    assert report.micro["strict"] == PRF(2, 4, 4)
    assert report.micro["relaxed"] == PRF(3, 3, 3)     # "John" overlaps "John Smith"
    assert report.micro["token"] == PRF(7, 2, 2)       # label-blind: the phone counts
    assert report.micro["relaxed"].f1 == pytest.approx(0.5)
    assert report.micro["token"].recall == pytest.approx(7 / 9)


def test_per_label(report):
    assert report.labels == ["ADDRESS", "DATE", "IDN", "PERSON", "PHONE"]
    assert report.per_label["PERSON"]["strict"] == PRF(0, 2, 2)
    assert report.per_label["PERSON"]["relaxed"] == PRF(1, 1, 1)
    assert report.per_label["ADDRESS"]["strict"] == PRF(1, 1, 1)
    assert report.per_label["IDN"]["strict"] == PRF(0, 1, 0)
    assert report.support("ADDRESS") == 2 and report.support("IDN") == 0


def test_per_label_token_recall_says_which_identifiers_leak(report):
    # Hidden under any label: "Smith" and "2031" stay visible; the phone,
    # predicted as IDN, is hidden all the same.
    leak = {label: v["token"] for label, v in report.to_dict()["per_label"].items()}
    assert leak["PERSON"] == {"tokens": 3, "missed": 1, "recall": pytest.approx(2 / 3)}
    assert leak["ADDRESS"] == {"tokens": 2, "missed": 1, "recall": 0.5}
    assert leak["PHONE"] == {"tokens": 3, "missed": 0, "recall": 1.0}
    assert leak["IDN"] == {"tokens": 0, "missed": 0, "recall": 1.0}
    # They add up to the micro token counts (no gold token has two labels here).
    assert sum(v["tokens"] - v["missed"] for v in leak.values()) == report.micro["token"].tp
    assert "token R" in report.render()


def test_privacy_view(report):
    # Only "2031" is overlapped by no prediction at all; the phone labelled
    # IDN would still be redacted.
    assert report.missed_identifiers == 1
    assert report.notes_with_missed == 1
    assert report.notes_with_identifiers == 3
    assert report.notes_with_missed_share == pytest.approx(0.25)


def test_confusion(report):
    assert dict(report.confusion["exact"]) == {("PHONE", "IDN"): 1}
    assert dict(report.confusion["overlap"]) == {("PERSON", "ADDRESS"): 1}


def test_error_lists_hold_offsets_only(report):
    assert report.false_negatives == [(0, 0, 10, "PERSON"), (0, 31, 35, "ADDRESS"),
                                      (1, 5, 17, "PHONE"), (3, 13, 16, "PERSON")]
    assert report.false_positives == [(0, 0, 4, "PERSON"), (0, 11, 16, "PERSON"),
                                      (1, 5, 17, "IDN"), (3, 10, 16, "ADDRESS")]


def test_bootstrap_contains_point_and_is_deterministic(report):
    for kind in ("strict", "relaxed", "token"):
        lo, hi = report.ci[kind]["f1"]
        assert lo <= report.micro[kind].f1 <= hi
        lo, hi = report.ci[kind]["recall"]
        assert lo <= report.micro[kind].recall <= hi
    same = evaluate(TEXTS, GOLD, PRED, bootstrap=200, seed=7)
    other = evaluate(TEXTS, GOLD, PRED, bootstrap=200, seed=8)
    assert same.ci == report.ci
    assert other.ci != report.ci


def test_json_is_stable_and_text_free(report):
    text = report.to_json()
    data = json.loads(text)
    assert list(data) == ["schema", "notes", "labels", "micro", "per_label", "confusion",
                          "privacy", "bootstrap", "errors"]
    assert data["schema"] == SCHEMA
    assert data["micro"]["strict"] == {"precision": 2 / 6, "recall": 2 / 6, "f1": pytest.approx(1 / 3),
                                       "tp": 2, "fp": 4, "fn": 4}
    assert data["per_label"]["ADDRESS"]["support"] == 2
    assert data["confusion"]["exact"] == [{"gold": "PHONE", "pred": "IDN", "count": 1}]
    # "2031" is missed whole; "Smith" stays visible beside a span that hid
    # only "John": the missed identifiers count one, the visible words two.
    assert data["privacy"] == {"missed_identifiers": 1, "notes_with_identifiers": 3,
                               "notes_with_missed": 1, "notes_with_missed_share": 0.25,
                               "visible_words": 2, "notes_with_visible_word": 1}
    assert data["bootstrap"]["resamples"] == 200 and data["bootstrap"]["seed"] == 7
    assert data["errors"]["false_negatives"][0] == [0, 0, 10, "PERSON"]
    for word in ("John", "Smith", "Sydney", "9382", "Ann"):
        assert word not in text
    assert evaluate(TEXTS, GOLD, PRED, bootstrap=200, seed=7).to_json() == text


def test_render_is_a_compact_table(report):
    out = report.render()
    assert out.splitlines()[1].split()[:4] == ["strict", "0.333", "0.333", "0.333"]
    assert "PHONE -> IDN x1" in out and "notes with a missed identifier: 1/4" in out
    assert "identifier words left visible: 2, in 1 note" in out
    assert "John" not in out


def test_label_filter_and_no_bootstrap():
    rep = evaluate(TEXTS, GOLD, PRED, labels=["PERSON"], bootstrap=0)
    assert rep.labels == ["PERSON"]
    assert rep.micro["strict"] == PRF(0, 2, 2)
    assert rep.ci["strict"]["f1"] is None
    assert json.loads(rep.to_json())["bootstrap"]["ci"]["token"]["f1"] == [None, None]


def test_empty_and_mismatched_inputs():
    rep = evaluate([], [], [])
    assert rep.notes == 0 and rep.notes_with_missed_share == 0.0
    with pytest.raises(ValueError):
        evaluate(["a"], [], [])


def test_metric_helpers():
    gold = [Span(0, 5, "A"), Span(10, 15, "B"), Span(20, 25, "C")]
    pred = [Span(0, 30, "X")]
    assert missed_spans(gold, pred) == []
    assert missed_spans(gold, [Span(1, 3, "A"), Span(26, 28, "C")]) == gold[1:]
    assert missed_spans(gold, []) == gold
    assert label_confusion(gold, pred) == {("overlap", "A", "X"): 1, ("overlap", "B", "X"): 1,
                                           ("overlap", "C", "X"): 1}
    fn, fp = strict_errors(gold, [Span(0, 5, "A"), Span(10, 15, "C")])
    assert fn == gold[1:] and fp == [Span(10, 15, "C")]


def test_bootstrap_of_identical_notes_is_degenerate():
    counts = np.tile(np.array([[[3, 1, 1]]]), (50, 1, 1))
    ci = bootstrap_prf(counts, resamples=100, seed=0)
    assert ci["f1"][0] == pytest.approx([0.75, 0.75])
    assert ci["recall"].shape == (1, 2)


def test_mean_of_folds_interval_holds_the_mean_and_draws_patients_within_each_fold():
    from app.eval.bootstrap import mean_of_folds_interval

    # Fold A: every patient alike (recall 0.9 whatever is drawn); fold B: one
    # patient hides all of 10 tokens, the other none of 10 (recall 0 to 1).
    same = np.array([[9, 1, 1]] * 4)
    mixed = np.array([[10, 0, 0], [0, 0, 10]])
    ci = mean_of_folds_interval([same], resamples=500, seed=3)
    assert ci["recall"] == pytest.approx((0.9, 0.9)) and ci["precision"] == pytest.approx((0.9, 0.9))
    ci = mean_of_folds_interval([same, mixed], resamples=500, seed=3)
    low, high = ci["recall"]
    assert low == pytest.approx((0.9 + 0.0) / 2) and high == pytest.approx((0.9 + 1.0) / 2)
    assert low < (0.9 + 0.5) / 2 < high
    assert mean_of_folds_interval([same, mixed], resamples=500, seed=3) == ci
    assert all(b != b for b in mean_of_folds_interval([], resamples=10)["recall"])


def test_each_notes_token_counts_add_up_to_the_micro_ones_and_stay_out_of_the_json(report):
    assert len(report.note_token_counts) == report.notes
    assert tuple(map(sum, zip(*report.note_token_counts))) == (
        report.micro["token"].tp, report.micro["token"].fp, report.micro["token"].fn)
    assert "note_token_counts" not in json.dumps(report.to_dict())
