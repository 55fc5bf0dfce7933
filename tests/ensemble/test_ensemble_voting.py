from collections import Counter

import numpy as np
import pytest

from app.core.bio import repair_tags
from app.ensemble import VotingEnsemble, load_ensemble, predict_items
from app.models.base import TagSeq


def seq(*tags):
    return TagSeq(list(tags), [0.9] * len(tags))


def one_token(**votes):
    """Member outputs for one segment of one token."""
    return {name: [seq(tag)] for name, tag in votes.items()}


def predict(outputs, priority, threshold=None, members=None):
    ens = VotingEnsemble(members or list(outputs), priority, threshold)
    return ens.predict_from_members(outputs)


def test_two_way_tie_goes_to_the_best_f1_member():
    outputs = one_token(a="B-X", b="O")
    assert predict(outputs, ["a", "b"])[0] == TagSeq(["B-X"], [0.5])
    assert predict(outputs, ["b", "a"])[0] == TagSeq(["O"], [0.5])


def test_tie_goes_to_best_member_among_those_voting_a_tied_label():
    # m1 is best but votes O, which is not tied; m2 is the best of the tied voters.
    outputs = one_token(m1="O", m2="B-Y", m3="B-X", m4="B-X", m5="B-Y")
    out = predict(outputs, ["m1", "m2", "m3", "m4", "m5"])[0]
    assert out.tags == ["B-Y"] and out.confidences == [pytest.approx(0.4)]
    out = predict(outputs, ["m1", "m3", "m2", "m4", "m5"])[0]
    assert out.tags == ["B-X"]


def test_clear_majority_ignores_priority():
    outputs = one_token(a="O", b="B-X", c="B-X")
    assert predict(outputs, ["a", "b", "c"])[0].tags == ["B-X"]


def test_votes_on_labels_so_b_and_i_do_not_split_support():
    # Full-tag voting would tie I-X (2) with O (2); X has 3 votes.
    outputs = {"a": [seq("B-X", "B-X")], "b": [seq("B-X", "I-X")], "c": [seq("B-X", "I-X")],
               "d": [seq("O", "O")], "e": [seq("O", "O")]}
    out = predict(outputs, ["d", "e", "a", "b", "c"])[0]
    assert out.tags == ["B-X", "I-X"]
    assert out.confidences == [pytest.approx(0.6), pytest.approx(0.6)]


def test_adjacent_entities_stay_apart_when_most_supporters_split_them():
    outputs = {"a": [seq("B-X", "B-X")], "b": [seq("B-X", "B-X")], "c": [seq("B-X", "I-X")]}
    assert predict(outputs, ["c", "a", "b"])[0].tags == ["B-X", "B-X"]


def test_prefix_tie_goes_to_best_supporter():
    outputs = {"a": [seq("B-X", "I-X")], "b": [seq("B-X", "B-X")]}
    assert predict(outputs, ["a", "b"])[0].tags == ["B-X", "I-X"]
    assert predict(outputs, ["b", "a"])[0].tags == ["B-X", "B-X"]


def test_output_is_repaired_bio():
    outputs = {m: [seq("O", "I-X", "I-X"), seq("I-Y", "I-X")] for m in "abc"}
    out = predict(outputs, ["a"])
    assert out[0].tags == ["O", "B-X", "I-X"]
    assert out[1].tags == ["B-Y", "B-X"]


def test_label_change_inside_a_run_starts_a_new_span():
    outputs = {"a": [seq("B-X", "I-X")], "b": [seq("B-X", "I-Y")], "c": [seq("B-X", "I-Y")]}
    assert predict(outputs, ["a", "b", "c"])[0].tags == ["B-X", "B-Y"]


def test_threshold_voting_ignores_o_votes():
    outputs = one_token(a="B-X", b="O", c="O")
    assert predict(outputs, ["b"], threshold=1)[0] == TagSeq(["B-X"], [pytest.approx(1 / 3)])
    assert predict(outputs, ["b"], threshold=2)[0].tags == ["O"]
    two = one_token(a="B-X", b="B-X", c="O")
    assert predict(two, ["c"], threshold=2)[0].tags == ["B-X"]
    assert predict(two, ["c"], threshold=3)[0].tags == ["O"]


def test_threshold_tie_between_entity_labels_uses_priority():
    outputs = one_token(a="B-X", b="B-Y", c="O")
    assert predict(outputs, ["c", "b", "a"], threshold=1)[0].tags == ["B-Y"]
    assert predict(outputs, ["a", "b", "c"], threshold=1)[0].tags == ["B-X"]
    # The entity label with most votes wins even below a majority of all members.
    outputs = one_token(a="B-X", b="B-Y", c="B-Y", d="O", e="O")
    assert predict(outputs, ["a"], threshold=2)[0].tags == ["B-Y"]


def test_threshold_must_fit_the_group():
    with pytest.raises(ValueError):
        VotingEnsemble(["a", "b"], threshold=3)
    with pytest.raises(ValueError):
        VotingEnsemble(["a", "b"], threshold=0)
    with pytest.raises(ValueError):
        VotingEnsemble([])


def test_missing_member_and_extra_members():
    ens = VotingEnsemble(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="b"):
        ens.predict_from_members({"a": [seq("O")]})
    out = ens.predict_from_members({"a": [seq("B-X")], "b": [seq("B-X")], "z": [seq("O")]})
    assert out[0].tags == ["B-X"]


def _reference_vote(tag_columns, priority, threshold):
    """Naive per-token voting with the documented rules (for comparison)."""
    label = lambda t: t[2:] if t != "O" else "O"  # noqa: E731
    out = []
    for col in tag_columns:                        # col: member -> tag
        counts = Counter(label(t) for t in col.values())
        if threshold is None:
            best = max(counts.values())
            tied = {lab for lab, c in counts.items() if c == best}
        else:
            ent = {lab: c for lab, c in counts.items() if lab != "O"}
            best = max(ent.values(), default=0)
            tied = {lab for lab, c in ent.items() if c == best} if best >= threshold else {"O"}
        win = next((label(col[m]) for m in priority if label(col[m]) in tied), "O")
        if win == "O":
            out.append("O")
            continue
        sup = [m for m in priority if label(col[m]) == win]
        n_i = sum(col[m].startswith("I-") for m in sup)
        n_b = len(sup) - n_i
        inside = n_i > n_b if n_i != n_b else col[sup[0]].startswith("I-")
        out.append(("I-" if inside else "B-") + win)
    return repair_tags(out)


@pytest.mark.parametrize("threshold", [None, 1, 2, 3, 4])
def test_matches_naive_reference_on_random_outputs(threshold):
    rng = np.random.default_rng(threshold or 0)
    tags = ["O", "O", "B-X", "I-X", "B-Y", "I-Y", "B-Z"]
    members = ["m1", "m2", "m3", "m4"]
    lengths = rng.integers(0, 9, 60)
    outputs = {m: [seq(*[tags[i] for i in rng.integers(0, len(tags), n)]) for n in lengths]
               for m in members}
    priority = ["m3", "m1", "m4", "m2"]
    pred = VotingEnsemble(members, priority, threshold).predict_from_members(outputs)
    for s, n in enumerate(lengths):
        cols = [{m: outputs[m][s].tags[k] for m in members} for k in range(n)]
        assert pred[s].tags == _reference_vote(cols, priority, threshold)


@pytest.mark.parametrize("threshold", [None, 2])
def test_save_load_round_trip(tmp_path, threshold):
    rng = np.random.default_rng(5)
    tags = ["O", "B-X", "I-X", "B-Y"]
    outputs = {m: [seq(*[tags[i] for i in rng.integers(0, 4, 6)]) for _ in range(20)]
               for m in "abc"}
    ens = VotingEnsemble(["a", "b", "c"], ["c", "a"], threshold, pruned_from=["a", "b", "c", "d"])
    ens.save(tmp_path / "v")
    loaded = load_ensemble(tmp_path / "v")
    assert isinstance(loaded, VotingEnsemble)
    assert loaded.predict_from_members(outputs) == ens.predict_from_members(outputs)
    assert loaded.describe() == ens.describe()
    assert "pruned d" in ens.describe() and "ties to c" in ens.describe()


class _FixedModel:
    """A stand-in trained model tagging every token with one tag."""

    def __init__(self, tag):
        self.tag = tag

    def predict(self, items):
        return [TagSeq([self.tag] * len(seg.tokens), [1.0] * len(seg.tokens))
                for _, seg in items]


def test_predict_items_runs_members_then_votes():
    from app.core.tokenize import segment
    text = "Seen by Jane.\nOK"
    items = [(text, s) for s in segment(text)]
    models = {"a": _FixedModel("B-X"), "b": _FixedModel("B-X"), "c": _FixedModel("O")}
    out = predict_items(VotingEnsemble(["a", "b", "c"]), models, items)
    assert [len(o.tags) for o in out] == [len(s.tokens) for _, s in items]
    assert all(t == "B-X" for o in out for t in o.tags)
    with pytest.raises(ValueError, match="d"):
        predict_items(VotingEnsemble(["a", "d"]), models, items)
