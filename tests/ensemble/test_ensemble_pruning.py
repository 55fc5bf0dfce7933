import pytest

from app.ensemble import prune_voting
from app.models.base import TagSeq

# Six one-token segments: four true entities e1..e4 and two O tokens f1, f2.
GOLD = [("B-X",)] * 4 + [("O",)] * 2
HITS = {                      # which segments each member tags X
    "A": {0, 1, 2},           # misses e4
    "B": {0, 1, 3},           # misses e3
    "C": {2, 3, 4},           # finds e3, e4, false positive f1
    "D": {4, 5},              # noise: false positives f1, f2
}
OUTPUTS = {m: [TagSeq(["B-X" if s in hits else "O"], [1.0]) for s in range(6)]
           for m, hits in HITS.items()}
MEMBERS = ["A", "B", "C", "D"]


def test_greedy_path_drops_the_noisy_member_first_and_stops_without_gain():
    result = prune_voting(OUTPUTS, GOLD, MEMBERS, MEMBERS, thresholds=[2])
    (path,) = result.paths
    # With all four at >= 2 votes, f1 (C + D) is a false positive: P 4/5, R 1.
    assert path.steps[0].dropped is None
    assert (path.steps[0].prf.tp, path.steps[0].prf.fp) == (4, 1)
    # Dropping D removes it (F1 1.0); dropping C or A would lose entities.
    assert [s.dropped for s in path.steps[1:]] == ["D"]
    assert path.best.members == ("A", "B", "C")
    assert path.best.prf.f1 == 1.0
    assert result.ensemble.members == ["A", "B", "C"]
    assert result.ensemble.threshold == 2


def test_threshold_one_needs_two_drops():
    result = prune_voting(OUTPUTS, GOLD, MEMBERS, MEMBERS, thresholds=[1])
    (path,) = result.paths
    # Any-vote union: P 4/6 -> drop D (P 4/5) -> drop C (P 1).
    assert [round(s.prf.f1, 3) for s in path.steps] == [0.8, 0.889, 1.0]
    assert [s.dropped for s in path.steps[1:]] == ["D", "C"]
    assert path.best.members == ("A", "B")


def test_search_over_thresholds_prefers_larger_subset_on_ties():
    result = prune_voting(OUTPUTS, GOLD, MEMBERS, MEMBERS)
    assert [p.threshold for p in result.paths] == [1, 2, 3, 4]
    # Thresholds 3 and 4 find nothing, and no subset of >= t members helps.
    assert result.paths[2].best.prf.tp == 0 and len(result.paths[2].steps) == 1
    assert result.prf.f1 == 1.0
    assert (result.ensemble.threshold, result.ensemble.members) == (2, ["A", "B", "C"])
    rows = result.as_rows()
    assert rows[0]["dropped"] == ["D", "C"] and rows[1]["f1"] == 1.0
    assert "pruned D" in result.ensemble.describe()
    # The pruned ensemble reproduces the search's dev score.
    pred = result.ensemble.predict_from_members(OUTPUTS)
    assert [p.tags for p in pred] == [list(g) for g in GOLD]


def test_recall_weighted_objective_keeps_a_member_f1_would_drop():
    gold = [("B-X",)] * 4 + [("O",)] * 4
    hits = {"A": {0, 1, 2}, "C": {3, 4, 5, 6, 7}}   # C: the last entity + 4 false positives
    outputs = {m: [TagSeq(["B-X" if s in h else "O"], [1.0]) for s in range(8)]
               for m, h in hits.items()}
    by_f1 = prune_voting(outputs, gold, ["A", "C"], thresholds=[1])
    by_f5 = prune_voting(outputs, gold, ["A", "C"], thresholds=[1], beta=5.0)
    assert by_f1.ensemble.members == ["A"] and by_f1.prf.recall == 0.75
    assert by_f5.ensemble.members == ["A", "C"] and by_f5.prf.recall == 1.0


def test_invalid_thresholds_raise():
    with pytest.raises(ValueError):
        prune_voting(OUTPUTS, GOLD, MEMBERS, thresholds=[0, 5])
