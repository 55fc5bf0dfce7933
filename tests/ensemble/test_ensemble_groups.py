import pytest

from app.ensemble import make_groups, rank_members
from app.eval.metrics import PRF

SCORES = {
    # name: (tp, fp, fn) -> precision / recall / F1
    "spacy_bal": PRF(80, 40, 20),     # P .667 R .80 F1 .727
    "spacy_imb": PRF(75, 5, 25),      # P .938 R .75 F1 .833
    "stanza_bal": PRF(90, 60, 10),    # P .600 R .90 F1 .720
    "stanza_imb": PRF(85, 10, 15),    # P .895 R .85 F1 .872
    "flair_bal": PRF(88, 30, 12),     # P .746 R .88 F1 .807
    "flair_imb": PRF(84, 8, 16),      # P .913 R .84 F1 .875
    "rules": PRF(40, 2, 60),          # P .952 R .40 F1 .563
}


def test_three_groups_of_the_paper_plus_all():
    groups = make_groups(SCORES)
    assert list(groups) == ["all", "top3_f1", "top3_recall"]
    assert groups["all"] == rank_members(SCORES) and "rules" in groups["all"]
    assert groups["top3_f1"] == ["flair_imb", "stanza_imb", "spacy_imb"]
    assert set(groups["top3_recall"]) == {"stanza_bal", "flair_bal", "stanza_imb"}
    # Members inside a group keep dev-F1 order (the voting tie-break order).
    assert groups["top3_recall"] == ["stanza_imb", "flair_bal", "stanza_bal"]


def test_rank_ties_break_on_recall_then_name():
    scores = {"b": PRF(5, 5, 5), "a": PRF(5, 5, 5), "c": PRF(1, 0, 0)}
    assert rank_members(scores) == ["c", "a", "b"]
    assert rank_members(scores, "recall") == ["c", "a", "b"]
    with pytest.raises(ValueError):
        rank_members(scores, "precision")


def test_identical_groups_are_kept_once_and_user_groups_added():
    three = {k: SCORES[k] for k in ("flair_imb", "stanza_imb", "rules")}
    groups = make_groups(three, user_groups={"neural": ["stanza_imb", "flair_imb"]})
    assert list(groups) == ["all", "neural"]
    assert groups["neural"] == ["flair_imb", "stanza_imb"]
    assert list(make_groups(SCORES, k=2)) == ["all", "top2_f1", "top2_recall"]


@pytest.mark.parametrize("user", [{"all": ["rules"]}, {"x": []}, {"x": ["nope"]}])
def test_bad_user_groups(user):
    with pytest.raises(ValueError):
        make_groups(SCORES, user_groups=user)
    with pytest.raises(ValueError):
        make_groups({})
