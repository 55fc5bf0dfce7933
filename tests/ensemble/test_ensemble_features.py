import numpy as np
import pytest

from app.core.tokenize import segment
from app.ensemble.encoding import encode_members
from app.ensemble.features import SHAPES, FeatureConfig, build_features
from app.models.base import TagSeq


def test_feature_columns_of_a_tiny_example():
    outs = {"a": [TagSeq(["B-X", "O"], [0.8, 0.6])], "b": [TagSeq(["O", "O"], [0.9, 0.7])]}
    enc = encode_members(outs, ["a", "b"])
    x = build_features(enc, FeatureConfig(window=1))
    # Per offset: 2 members x (3 tags + confidence), plus "outside" for d = -1, +1;
    # then the vote shares of O and X.
    assert x.shape == (2, 3 * 8 + 2 + 2)
    assert x.has_canonical_format
    dense = x.toarray()[0]
    row0 = {int(c): round(float(dense[c]), 3) for c in np.flatnonzero(dense)}
    assert row0 == {
        8: 1.0,                                   # token -1 lies outside the segment
        10: 1.0, 12: 0.8, 13: 1.0, 16: 0.9,       # a: B-X (0.8), b: O (0.9)
        17: 1.0, 20: 0.6, 21: 1.0, 24: 0.7,       # token +1: a: O, b: O
        26: 0.5, 27: 0.5,                         # half the members vote O, half X
    }


def test_window_does_not_cross_segments_and_shapes_are_appended():
    text = "Call 0412 555\nBob"
    items = [(text, s) for s in segment(text)]
    outs = {"a": [TagSeq(["O", "B-PHONE", "I-PHONE"], [1.0] * 3), TagSeq(["B-PERSON"], [1.0])]}
    enc = encode_members(outs, ["a"])
    x = build_features(enc, FeatureConfig(window=1, confidences=False, shape=True), items)
    dense = x.toarray()
    n_tags = enc.index.n_tags
    outside_prev, outside_next = n_tags, 3 * n_tags + 1
    assert dense[:, outside_prev].tolist() == [1, 0, 0, 1]     # "Call" and "Bob" start
    assert dense[:, outside_next].tolist() == [0, 0, 1, 1]     # "555" and "Bob" end
    shape = dense[:, -len(SHAPES):]
    assert shape[1, SHAPES.index("digits")] == 1 and shape[1, SHAPES.index("len4_6")] == 1
    assert shape[3, SHAPES.index("init_cap")] == 1 and shape[3, SHAPES.index("len2_3")] == 1
    with pytest.raises(ValueError):
        build_features(enc, FeatureConfig(shape=True))
