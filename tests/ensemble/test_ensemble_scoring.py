import numpy as np
import pytest

from app.ensemble.encoding import LabelIndex, Layout, encode_members, flat_tags, repair_codes
from app.ensemble.scoring import score_members, score_tags, span_keys, strict_prf_codes
from app.core.bio import repair_tags
from app.models.base import TagSeq


def seq(*tags):
    return TagSeq(list(tags), [1.0] * len(tags))


def test_score_tags_counts_strict_spans_per_segment():
    gold = [("B-X", "I-X", "O", "B-Y"), ("O", "B-X")]
    pred = [seq("B-X", "I-X", "O", "B-X"),   # one exact, one wrong label
            seq("B-X", "I-X")]               # boundary wrong -> fp and fn
    prf = score_tags(pred, gold)
    assert (prf.tp, prf.fp, prf.fn) == (1, 2, 2)


def test_spans_do_not_cross_segments_and_orphan_inside_starts_a_span():
    gold = [("O", "B-X"), ("I-X", "O")]      # two separate one-token spans
    assert score_tags([("O", "B-X"), ("B-X", "O")], gold).tp == 2
    assert score_tags([("O", "I-X", "I-X")], [("O", "B-X", "I-X")]).tp == 1


def test_score_tags_rejects_misaligned_input():
    with pytest.raises(ValueError):
        score_tags([seq("O")], [("O",), ("O",)])
    with pytest.raises(ValueError):
        score_tags([seq("O", "O")], [("O",)])


def test_score_members():
    gold = [("B-X", "O")]
    scores = score_members({"a": [seq("B-X", "O")], "b": [seq("O", "O")]}, gold)
    assert scores["a"].f1 == 1.0 and scores["b"].fn == 1


def _random_tags(rng, n_seg, tags):
    return [[tags[i] for i in rng.integers(0, len(tags), rng.integers(0, 8))]
            for _ in range(n_seg)]


def test_vectorised_scoring_matches_reference_on_random_invalid_bio():
    rng = np.random.default_rng(0)
    tags = ["O", "O", "O", "B-X", "I-X", "B-Y", "I-Y"]
    for _ in range(20):
        gold = _random_tags(rng, 30, tags)
        layout = Layout.of(gold)
        pred = [[tags[i] for i in rng.integers(0, len(tags), len(g))] for g in gold]
        index = LabelIndex(["X", "Y"])
        gold_keys = span_keys(index.encode(flat_tags(gold)), layout, index.n_labels)
        fast = strict_prf_codes(index.encode(flat_tags(pred)), gold_keys, layout, index.n_labels)
        assert fast == score_tags(pred, gold)


def test_vectorised_repair_matches_repair_tags():
    rng = np.random.default_rng(1)
    tags = ["O", "B-X", "I-X", "I-Y", "B-Y"]
    segs = _random_tags(rng, 40, tags)
    enc = encode_members({"m": [seq(*s) for s in segs]}, ["m"])
    repaired = enc.index.decode(repair_codes(enc.codes[0], enc.layout))
    assert repaired == [t for s in segs for t in repair_tags(s)]


def test_encoding_rejects_bad_input():
    with pytest.raises(ValueError, match="no outputs"):
        encode_members({"a": [seq("O")]}, ["a", "b"])
    with pytest.raises(ValueError, match="token counts"):
        encode_members({"a": [seq("O")], "b": [seq("O", "O")]}, ["a", "b"])
    with pytest.raises(ValueError, match="not a BIO tag"):
        encode_members({"a": [seq("S-X")]}, ["a"])
    with pytest.raises(ValueError, match="confidence"):
        encode_members({"a": [TagSeq(["O"], [])]}, ["a"])
    with pytest.raises(ValueError, match="outside the label set"):
        LabelIndex(["X"]).encode(["B-Y"])
    assert LabelIndex(["X"]).encode(["B-Y", "I-X"], unknown_as_outside=True).tolist() == [0, 2]
