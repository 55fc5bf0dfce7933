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


def _entropy_by_definition(columns):
    m = len(columns[0])
    total = 0.0
    for col in columns:
        labels = [t.split("-", 1)[-1] for t in col]
        total -= sum(labels.count(x) / m * math.log(labels.count(x) / m) for x in set(labels))
    return total / len(columns) / math.log(m)


def test_entropy_matches_its_definition_on_random_votes():
    import random
    rng = random.Random(5)
    tags = ["O", "B-X", "I-X", "B-Y", "I-Y", "B-Z"]
    for _ in range(200):
        m = rng.randint(2, 5)
        columns = [tuple(rng.choice(tags) for _ in range(m)) for _ in range(rng.randint(1, 9))]
        assert document_uncertainty(doc(*columns)) == pytest.approx(_entropy_by_definition(columns))


def test_the_memory_of_entropy_grows_with_the_tokens_not_with_labels_times_tokens():
    """A table of labels x tokens (and its copies) took memory in proportion
    to both: on one big note, with a project's many labels, it grew faster
    than the note (issue 35 item 11). Counted in bytes, not seconds."""
    import tracemalloc
    labels = [f"L{k}" for k in range(150)]
    n, m = 20_000, 3
    columns = [tuple(f"B-{labels[(t * 7 + i) % 150]}" for i in range(m)) for t in range(n)]
    outputs = doc(*columns)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        document_uncertainty(outputs)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < 40 * m * n * 8          # a few arrays of members x tokens
