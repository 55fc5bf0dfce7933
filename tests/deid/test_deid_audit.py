"""Residual-risk bound: exact one-sided Clopper-Pearson, checked against known values."""
import pytest

from app.deid.audit import draw_sample, risk_sentence, sample_size, upper_bound


@pytest.mark.parametrize("k, n, expected", [
    (0, 60, 0.048703),     # 1 - 0.05 ** (1/60): the "at most 4.9 %"
    (0, 1, 0.95),
    (0, 299, 0.009970),    # the rule of three: about 3/n
    (1, 100, 0.046560),    # Beta(0.95; 2, 99) quantile
    (2, 50, 0.120614),
    (5, 20, 0.455582),
    (10, 10, 1.0),
])
def test_upper_bound_matches_known_values(k, n, expected):
    assert upper_bound(k, n) == pytest.approx(expected, abs=2e-6)


def test_sample_size_and_sentence():
    assert sample_size(0.05) == 59 and sample_size(0.01) == 299
    assert upper_bound(0, sample_size(0.05)) <= 0.05 < upper_bound(0, sample_size(0.05) - 1)
    assert risk_sentence(0, 60, "notes") == \
        "0 of 60 notes leak: at most 4.9 % of notes leak, 95 % confidence."
    assert "(2.5 % observed)" in risk_sentence(3, 120, "identifiers")
    with pytest.raises(ValueError):
        upper_bound(3, 2)


def test_sample_is_reproducible_and_without_repeats():
    notes = [f"n{i}.txt" for i in range(100)]
    a, b = draw_sample(notes, 30, seed=4), draw_sample(notes, 30, seed=4)
    assert a == b and len(set(a)) == 30 and draw_sample(notes, 30, seed=5) != a
    assert draw_sample(notes[:5], 30, seed=1) == sorted(notes[:5])
