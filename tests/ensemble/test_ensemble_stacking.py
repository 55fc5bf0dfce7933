import numpy as np
import pytest

from app.core.tokenize import segment
from app.ensemble import (FeatureConfig, StackingEnsemble, VotingEnsemble, cross_val_predict,
                          fit_stacking, load_ensemble, prune_voting, score_tags)
from app.models.base import TagSeq


def planted(n_segments, seed):
    """Gold with X and Y entities and three members with a planted rule:
    A is right about X but hallucinates Y; B is right about Y but hallucinates
    X; C says O almost everywhere. The right answer is "X from A, Y from B",
    which no vote can express."""
    rng = np.random.default_rng(seed)
    gold, outs = [], {"A": [], "B": [], "C": []}
    for _ in range(n_segments):
        n = 12
        g = ["O"] * n
        a, b, c = ["O"] * n, ["O"] * n, ["O"] * n
        for start in (1, 5, 9):
            kind = rng.choice(["X", "Y", "noise_a", "noise_b", "none"])
            length = int(rng.integers(1, 3))
            span = [f"B-{{}}"] + [f"I-{{}}"] * (length - 1)
            tags = lambda lab: [t.format(lab) for t in span]  # noqa: E731
            if kind == "X":
                g[start:start + length] = a[start:start + length] = tags("X")
            elif kind == "Y":
                g[start:start + length] = b[start:start + length] = tags("Y")
            elif kind == "noise_a":
                a[start:start + length] = tags("Y")
            elif kind == "noise_b":
                b[start:start + length] = tags("X")
        if rng.random() < 0.1:
            c[0] = "B-X"
        gold.append(tuple(g))
        for name, tags_ in zip("ABC", (a, b, c)):
            conf = rng.uniform(0.5, 1.0, n).round(3).tolist()
            outs[name].append(TagSeq(tags_, conf))
    return outs, gold


MEMBERS = ["A", "B", "C"]
TRAIN = planted(250, seed=1)
TEST = planted(120, seed=2)
# One xgboost thread: on a busy two-core machine two OpenMP threads spin and
# make these tiny fits many times slower (the product default stays 2).
PARAMS = {"xgb": {"n_jobs": 1}}


@pytest.fixture(scope="module", params=["lr", "svm", "xgb"])
def fitted(request):
    return fit_stacking(*TRAIN, MEMBERS, request.param, params=PARAMS.get(request.param))


def test_stacking_learns_the_planted_rule_and_beats_voting(fitted):
    outputs, gold = TEST
    stacked = score_tags(fitted.predict_from_members(outputs), gold)
    majority = score_tags(VotingEnsemble(MEMBERS, MEMBERS).predict_from_members(outputs), gold)
    pruned = prune_voting(*TRAIN, MEMBERS, MEMBERS).ensemble
    pruned_prf = score_tags(pruned.predict_from_members(outputs), gold)
    assert stacked.f1 > 0.97
    assert stacked.f1 > majority.f1 + 0.3
    assert stacked.f1 > pruned_prf.f1 + 0.2


def test_output_is_valid_bio_with_probabilities(fitted):
    outputs, _ = TEST
    for out in fitted.predict_from_members(outputs):
        prev = "O"
        for tag, conf in zip(out.tags, out.confidences):
            assert not (tag.startswith("I-") and prev[2:] != tag[2:])
            assert 0.0 <= conf <= 1.0 + 1e-9
            prev = tag


def test_save_load_gives_identical_predictions(fitted, tmp_path):
    outputs, _ = TEST
    fitted.save(tmp_path / "s")
    assert not list((tmp_path / "s").glob("*.pkl"))
    loaded = load_ensemble(tmp_path / "s")
    assert isinstance(loaded, StackingEnsemble)
    assert loaded.predict_from_members(outputs) == fitted.predict_from_members(outputs)
    assert loaded.describe() == fitted.describe()


def test_logistic_confidence_is_the_sklearn_probability():
    from sklearn.linear_model import LogisticRegression
    from app.ensemble.encoding import encode_members, flat_tags
    from app.ensemble.features import build_features
    ens = fit_stacking(*TRAIN, MEMBERS, "lr")
    outputs, _ = TEST
    enc = encode_members(outputs, MEMBERS, ens.index)
    x = build_features(enc, ens.features)
    clf = LogisticRegression(C=1.0, max_iter=2000).fit(
        build_features(encode_members(TRAIN[0], MEMBERS, ens.index), ens.features),
        ens.index.encode(flat_tags(TRAIN[1])))
    assert np.allclose(ens.model.proba(x), clf.predict_proba(x), atol=1e-6)


@pytest.mark.parametrize("meta", ["lr", "svm", "xgb"])
def test_two_classes_only(meta):
    # Single-token X entities only: classes {O, B-X} (the binary code path).
    outs, gold = planted(120, seed=3)
    gold = [tuple("O" if t.endswith("Y") else t.replace("I-", "B-") for t in g) for g in gold]
    outs = {"A": [TagSeq(list(g), [1.0] * len(g)) for g in gold], "C": outs["C"]}
    ens = fit_stacking(outs, gold, ["A", "C"], meta, params=PARAMS.get(meta))
    assert ens.classes.tolist() == [0, 1]
    assert score_tags(ens.predict_from_members(outs), gold).f1 > 0.99


def test_cross_val_predict_is_out_of_fold_and_aligned():
    outputs, gold = TEST
    oof = cross_val_predict(outputs, gold, MEMBERS, "lr", folds=3,
                            groups=[f"doc{i // 4}" for i in range(len(gold))])
    assert [len(o.tags) for o in oof] == [len(g) for g in gold]
    assert score_tags(oof, gold).f1 > 0.95
    with pytest.raises(ValueError):
        cross_val_predict(outputs, gold, MEMBERS, folds=3, groups=["d"] * len(gold))


def test_shape_features_need_the_segments_text():
    text = "Dr Alice Smith\nMRN 12345678\nSeen today"
    segs = segment(text)
    items = [(text, s) for s in segs]
    gold = [("O", "B-PERSON", "I-PERSON"), ("O", "B-IDN"), ("O", "O")]
    # One member marks every capitalised token as PERSON, digits as IDN.
    outs = {"M": [TagSeq(list(g), [1.0] * len(g)) for g in gold],
            "N": [TagSeq(["O"] * len(g), [1.0] * len(g)) for g in gold]}
    ens = fit_stacking(outs, gold, ["M", "N"], "lr",
                       features=FeatureConfig(window=1, shape=True), items=items)
    assert "token shapes" in ens.describe()
    with pytest.raises(ValueError, match="shapes"):
        ens.predict_from_members(outs)
    assert [o.tags for o in ens.predict_from_members(outs, items)] == [list(g) for g in gold]
    with pytest.raises(ValueError, match="token counts"):
        ens.predict_from_members(outs, items[::-1])


def test_unknown_label_at_prediction_reads_as_outside_and_empty_input_works():
    ens = fit_stacking(*TRAIN, MEMBERS, "lr")
    outs = {m: [TagSeq(["B-Z", "O"], [1.0, 1.0]), TagSeq([], [])] for m in MEMBERS}
    out = ens.predict_from_members(outs)
    assert out[0].tags == ["O", "O"] and out[1].tags == []
    empty = {m: [] for m in MEMBERS}
    assert ens.predict_from_members(empty) == []


def test_bad_meta_and_gold_without_entities():
    outputs, gold = TEST
    with pytest.raises(ValueError, match="meta-model"):
        fit_stacking(outputs, gold, MEMBERS, "forest")
    with pytest.raises(ValueError, match="entity"):
        fit_stacking(outputs, [("O",) * len(g) for g in gold], MEMBERS, "lr")


def test_easy_rows_are_all_o_windows_within_the_segment():
    from app.ensemble.encoding import encode_members
    from app.ensemble.features import easy_rows
    a = [TagSeq(["O", "O", "O", "B-X", "O", "O"], [1.0] * 6), TagSeq(["O"] * 3, [1.0] * 3)]
    b = [TagSeq(["O"] * 6, [1.0] * 6), TagSeq(["O", "O", "B-Y"], [1.0] * 3)]
    outs = {"a": a, "b": b}
    enc = encode_members(outs, ["a", "b"])
    assert easy_rows(enc, 1).tolist() == [1, 1, 0, 0, 0, 1] + [1, 0, 0]
    assert easy_rows(enc, 0).tolist() == [1, 1, 1, 0, 1, 1] + [1, 1, 0]


def test_training_rows_keep_hard_rows_and_reweight_sampled_easy_rows():
    from app.ensemble.stacking import training_rows
    easy = np.ones(5010, dtype=bool)
    easy[::501] = False                              # 10 hard rows
    rows, weight = training_rows(easy, 2.0, seed=0)
    assert set(np.flatnonzero(~easy)) <= set(rows.tolist())
    assert len(rows) == 10 + 1000                    # at least 1000 easy rows are kept
    assert weight[~easy[rows]].tolist() == [1.0] * 10
    assert weight.sum() == pytest.approx(len(easy))
    rows, weight = training_rows(easy, None, seed=0)
    assert len(rows) == len(easy) and (weight == 1.0).all()


def test_subsampled_training_matches_full_training_on_easy_heavy_data():
    # Mostly empty segments: subsampling must not change what is learned.
    outs, gold = planted(150, seed=4)
    for m in outs:
        outs[m] = outs[m] + [TagSeq(["O"] * 12, [0.9] * 12)] * 600
    gold = gold + [("O",) * 12] * 600
    sampled = fit_stacking(outs, gold, MEMBERS, "lr", easy_ratio=0.5)
    full = fit_stacking(outs, gold, MEMBERS, "lr", easy_ratio=None)
    test_outputs, test_gold = TEST
    assert score_tags(sampled.predict_from_members(test_outputs), test_gold).f1 > 0.97
    assert score_tags(full.predict_from_members(test_outputs), test_gold).f1 > 0.97


@pytest.mark.parametrize("meta", ["lr", "xgb"])
def test_rare_tags_among_many_are_learned(meta):
    """MEDDOCAN has 45 tags, some seen a handful of times. Under a softmax a
    rare tag's rows carry tiny hessians; a leaf-weight floor meant for binary
    tasks kept xgboost from ever splitting for them (strict F1 0.78 where
    voting got 0.99). Two agreeing members must be followed on every tag."""
    rng = np.random.default_rng(5)
    labels = [f"L{k:02d}" for k in range(22)]
    gold, outs = [], {"A": [], "B": []}
    for i in range(600):
        g = ["O"] * 10
        # Labels 1-21 appear three times each, label 0 about 300 times.
        lab = labels[0] if i % 2 else labels[1 + (i // 2) % 21] if i < 126 else None
        if lab:
            g[3], g[4] = f"B-{lab}", f"I-{lab}"
        noise = list(g)
        if rng.random() < 0.2:
            noise[7] = "B-L00"
        gold.append(tuple(g))
        outs["A"].append(TagSeq(list(g), [0.9] * 10))
        outs["B"].append(TagSeq(noise, [0.8] * 10))
    ens = fit_stacking(outs, gold, ["A", "B"], meta)
    pred = ens.predict_from_members(outs)
    assert [tuple(p.tags) for p in pred] == gold


def test_outside_weight_trades_o_for_the_likeliest_label():
    from app.ensemble.stacking import decide
    classes = np.array([0, 1, 2])                  # O, B-X, I-X (one label)
    proba = np.array([[0.6, 0.3, 0.1],             # O 0.6 vs X 0.4
                      [0.9, 0.05, 0.05]])          # O 0.9 vs X 0.1
    codes, conf = decide(proba, classes, 1)
    assert codes.tolist() == [0, 0]
    codes, conf = decide(proba, classes, 1, outside_weight=0.5)    # 0.3 < 0.4; 0.45 > 0.1
    assert codes.tolist() == [1, 0]
    assert conf.tolist() == pytest.approx([0.4, 0.9])              # unscaled probabilities


def test_a_bold_decision_gives_each_span_one_label_and_hides_the_same_tokens():
    from app.ensemble.stacking import coherent, decide
    # Labels X (codes 1, 2) and Y (3, 4). Tokens 0-2 are one name the model
    # half believes in; under a bold O weight each token goes to the label
    # with most of its small remainder: X, Y, X.
    classes = np.array([0, 1, 2, 3, 4])
    proba = np.array([[0.90, 0.06, 0.00, 0.04, 0.00],    # X 0.06, Y 0.04
                      [0.90, 0.00, 0.04, 0.00, 0.06],    # X 0.04, Y 0.06
                      [0.90, 0.00, 0.07, 0.00, 0.03],    # X 0.07, Y 0.03
                      [0.10, 0.00, 0.00, 0.85, 0.05],    # a sure B-Y: a new entity
                      [0.20, 0.00, 0.00, 0.00, 0.80],    # I-Y
                      [0.99, 0.01, 0.00, 0.00, 0.00]])   # O even when bold
    codes, _ = decide(proba, classes, 2, outside_weight=0.05)
    assert codes.tolist() == [1, 4, 2, 3, 4, 0]          # X, Y, X: three spans of a name
    starts = np.zeros(6, dtype=bool)
    starts[0] = True
    fixed, conf = coherent(codes, proba, classes, 2, starts)
    assert fixed.tolist() == [1, 2, 2, 3, 4, 0]          # one X span, then the sure Y span
    assert (fixed > 0).tolist() == (codes > 0).tolist()  # the same tokens hidden
    assert conf.tolist() == pytest.approx([0.06, 0.04, 0.07, 0.90, 0.80, 0.99])
    # A segment boundary ends a run: the third token opens a new span.
    starts[2] = True
    fixed, _ = coherent(codes, proba, classes, 2, starts)
    assert fixed.tolist() == [1, 2, 1, 3, 4, 0]


def test_tuned_weight_follows_the_objective():
    from app.ensemble.stacking import tune_outside_weight
    gold = [("B-X", "I-X", "O", "B-X"), ("O", "B-X", "O", "O")]
    shy = [TagSeq(["B-X", "I-X", "O", "O"], [1.0] * 4), TagSeq(["O", "B-X", "O", "O"], [1.0] * 4)]
    bold = [TagSeq(["B-X", "I-X", "B-X", "B-X"], [1.0] * 4), TagSeq(["O", "B-X", "O", "B-X"], [1.0] * 4)]
    # shy: P 1, R 2/3 (F1 0.80, F2 0.71); bold: P 3/5, R 1 (F1 0.75, F2 0.88)
    assert tune_outside_weight({1.0: shy, 0.3: bold}, gold, "f1") == 1.0
    assert tune_outside_weight({1.0: shy, 0.3: bold}, gold, "f2") == 0.3
    assert tune_outside_weight({1.0: shy, 0.3: shy}, gold, "f2") == 1.0     # tie: the plainer


def test_recall_tuned_stacking_finds_more_and_keeps_its_weight(tmp_path):
    from app.ensemble.stacking import cross_val_predict_weighted
    outputs, gold = TEST
    oof = cross_val_predict_weighted(outputs, gold, MEMBERS, "lr", (1.0, 0.05), folds=3,
                                     groups=[f"doc{i // 4}" for i in range(len(gold))])
    plain, bold = score_tags(oof[1.0], gold), score_tags(oof[0.05], gold)
    assert bold.recall >= plain.recall and bold.tp + bold.fp >= plain.tp + plain.fp
    ens = fit_stacking(*TRAIN, MEMBERS, "lr", outside_weight=0.05)
    assert "recall-tuned: O weight 0.05" in ens.describe()
    ens.save(tmp_path / "w")
    loaded = load_ensemble(tmp_path / "w")
    assert loaded.outside_weight == 0.05
    assert loaded.predict_from_members(outputs) == ens.predict_from_members(outputs)
