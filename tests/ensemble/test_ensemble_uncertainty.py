import math

import pytest

from app.ensemble import document_uncertainty, rank_documents
from app.models.base import TagSeq


def doc(*columns):
    """One segment; each column is the members' tags for one token."""
    members = range(len(columns[0]))
    return {f"m{i}": [TagSeq([c[i] for c in columns], [1.0] * len(columns))] for i in members}


AGREE = doc(("O", "O", "O"), ("B-X", "B-X", "B-X"))
BOUNDARY_ONLY = doc(("B-X", "B-X", "B-X"), ("I-X", "B-X", "I-X"))   # labels agree
ONE_DISPUTE = doc(("O", "O", "O"), ("B-X", "B-X", "O"), ("O", "O", "O"))
ALL_DISPUTED = doc(("B-X", "B-Y", "O"), ("B-X", "B-Y", "O"))


def test_agreement_is_zero():
    assert document_uncertainty(AGREE) == 0.0
    assert document_uncertainty(BOUNDARY_ONLY) == 0.0
    assert document_uncertainty(AGREE, "disagreement") == 0.0


def test_known_values():
    h = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)) / math.log(3)
    assert document_uncertainty(ONE_DISPUTE) == pytest.approx(h / 3)
    assert document_uncertainty(ONE_DISPUTE, "disagreement") == pytest.approx(1 / 3)
    assert document_uncertainty(ALL_DISPUTED) == pytest.approx(1.0)


def test_ranking_most_uncertain_first():
    docs = [AGREE, ALL_DISPUTED, ONE_DISPUTE]
    assert rank_documents(docs) == [1, 2, 0]
    assert rank_documents(docs, "disagreement") == [1, 2, 0]


def test_degenerate_inputs():
    single = {"m0": AGREE["m0"]}
    assert document_uncertainty(single) == 0.0
    assert document_uncertainty({"a": [TagSeq([], [])], "b": [TagSeq([], [])]}) == 0.0
    assert document_uncertainty(ALL_DISPUTED, members=["m0", "m1"]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        document_uncertainty(AGREE, "variance")
