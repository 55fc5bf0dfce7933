"""Stacking: a meta-model over the members' per-token outputs (Liu et al.).

Meta-models: logistic regression (``"lr"``), linear SVM (``"svm"``,
hinge-loss `SGDClassifier`) and gradient-boosted trees (``"xgb"``). They read
`app.ensemble.features` and predict a full BIO tag per token; the decision
is taken on labels first (``O`` vs ``X`` by summed ``B-X``/``I-X``
probability), then ``B`` vs ``I`` inside the label, then repaired to valid
BIO, mirroring `app.ensemble.voting`. A weight on ``O`` below 1 (tuned for a
recall-first objective, `tune_outside_weight`) makes the decision bolder.
The confidence is the winning label's probability. The SVM has no probabilities: a softmax (sigmoid for two
classes) of its decision values stands in; it ranks tokens but is not
calibrated.

Training contract
-----------------
The member outputs passed to `fit_stacking` must come from data the members
did *not* train on, or the meta-model learns to trust over-fitted members.
Two ways to get them:

* the paper's: members trained on train, outputs on dev, meta-model fit on
  dev (then compare it with other ensembles on dev only through
  `cross_val_predict`, which gives out-of-fold meta predictions);
* k-fold out-of-fold outputs over train (each fold predicted by members
  trained on the other folds), keeping dev for selection.

Tokens where every member says ``O`` across the whole feature window are
most of any clinical corpus and all alike; training keeps at most
``easy_ratio`` times as many of them as of the other tokens, drawn at random
and weighted up so that the weighted loss estimates the full one (the
selection depends on the features only, so P(tag | features) is unchanged).

Saved weights avoid pickle: linear models as ``weights.npz`` (loaded with
``allow_pickle=False``), xgboost boosters in its native ``booster.ubj``.
"""
from __future__ import annotations

import os

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from app.core.progress import Progress, ProgressFn, no_progress
from app.ensemble.base import Ensemble, Items, register_ensemble
from app.ensemble.encoding import (LabelIndex, MemberOutputs, encode_members, flat_tags,
                                   label_codes, repair_codes, to_tag_seqs)
from app.ensemble.features import FeatureConfig, build_features, easy_rows
from app.ensemble.folds import assign_folds
from app.ensemble.scoring import GoldTags
from app.models.base import TagSeq, read_meta, write_meta

# Easy rows kept whatever the ratio, so that tiny data sets still show the
# meta-model what an all-O window looks like.
MIN_EASY_ROWS = 1000

META_MODELS = {"lr": "logistic regression", "svm": "linear SVM", "xgb": "XGBoost"}

DEFAULT_PARAMS: dict[str, dict[str, Any]] = {
    "lr": {"C": 1.0, "max_iter": 2000},
    # A linear SVM (hinge loss) fitted by SGD: LinearSVC's exact solvers took
    # over 5 minutes per fit on MEDDOCAN dev (142k tokens x 45 tags); SGD
    # needs seconds. alpha is the L2 strength (about 1 / (C * n_rows)).
    "svm": {"alpha": 1e-5, "max_iter": 30},
    # Small trees and few rounds: the features are few and strong, and it
    # must train in seconds on two cores. min_child_weight bounds the summed
    # *hessian* of a leaf; under a 45-tag softmax a rare tag's rows have
    # hessians near p(1-p) ~ 0.02, so the default of 1 never let a tree split
    # for it and MEDDOCAN strict F1 fell from 0.99 to 0.78 (simulated members
    # on dev). The L2 term (lambda = 1) still regularises the leaves.
    "xgb": {"max_depth": 4, "eta": 0.3, "rounds": 60, "min_child_weight": 0.0, "n_jobs": 2},
}


class _LinearMeta:
    """A fitted linear multiclass model: ``coef`` is ``(K or 1, F)``."""

    def __init__(self, coef: np.ndarray, intercept: np.ndarray) -> None:
        self.coef = np.asarray(coef, dtype=np.float64)
        self.intercept = np.asarray(intercept, dtype=np.float64)

    def proba(self, x) -> np.ndarray:
        d = np.asarray(x @ self.coef.T) + self.intercept
        if d.shape[1] == 1:           # binary: sklearn keeps one row for class 1
            p1 = 1.0 / (1.0 + np.exp(-d[:, 0]))
            return np.column_stack([1.0 - p1, p1])
        d -= d.max(axis=1, keepdims=True)
        e = np.exp(d)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, directory: Path) -> None:
        np.savez(directory / "weights.npz", coef=self.coef, intercept=self.intercept)

    @classmethod
    def load(cls, directory: Path, params: Mapping[str, Any]) -> "_LinearMeta":
        with np.load(directory / "weights.npz", allow_pickle=False) as w:
            return cls(w["coef"], w["intercept"])


class _BoosterMeta:
    """A fitted xgboost multiclass booster (``multi:softprob``)."""

    def __init__(self, booster) -> None:
        self.booster = booster

    def proba(self, x) -> np.ndarray:
        # In place: the same trees on the same values as through a DMatrix,
        # without building one for every batch.
        return self.booster.inplace_predict(x)

    def save(self, directory: Path) -> None:
        self.booster.save_model(str(directory / "booster.ubj"))

    @classmethod
    def load(cls, directory: Path, params: Mapping[str, Any]) -> "_BoosterMeta":
        import xgboost as xgb
        # No more threads than the process may use: a worker process of a
        # pool gets its share of the cores in OMP_NUM_THREADS.
        share = os.environ.get("OMP_NUM_THREADS", "")
        threads = min(params["n_jobs"], int(share)) if share.isdigit() and int(share) > 0 \
            else params["n_jobs"]
        booster = xgb.Booster(params={"nthread": threads})
        booster.load_model(str(directory / "booster.ubj"))
        return cls(booster)


def _fit_meta(meta: str, x, y: np.ndarray, weight: np.ndarray, classes: np.ndarray,
              params: Mapping[str, Any], seed: int):
    if meta == "lr":
        from sklearn.linear_model import LogisticRegression
        clf = LogisticRegression(C=params["C"], max_iter=params["max_iter"])
        clf.fit(x, y, sample_weight=weight)
        return _LinearMeta(clf.coef_, clf.intercept_)
    if meta == "svm":
        from sklearn.linear_model import SGDClassifier
        import warnings

        from sklearn.exceptions import ConvergenceWarning
        clf = SGDClassifier(loss="hinge", alpha=params["alpha"], max_iter=params["max_iter"],
                            tol=1e-4, random_state=seed)
        with warnings.catch_warnings():
            # A capped number of epochs is the point (seconds, not minutes);
            # the warning would only clutter the user's terminal.
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(x, y, sample_weight=weight)
        return _LinearMeta(clf.coef_, clf.intercept_)
    import xgboost as xgb
    dtrain = xgb.DMatrix(x, label=np.searchsorted(classes, y), weight=weight)
    booster = xgb.train({"objective": "multi:softprob", "num_class": len(classes),
                         "max_depth": params["max_depth"], "eta": params["eta"],
                         "min_child_weight": params["min_child_weight"],
                         "tree_method": "hist", "nthread": params["n_jobs"], "seed": seed,
                         "verbosity": 0},
                        dtrain, num_boost_round=params["rounds"])
    return _BoosterMeta(booster)


def decide(proba: np.ndarray, classes: np.ndarray, n_labels: int, outside_weight: float = 1.0
           ) -> tuple[np.ndarray, np.ndarray]:
    """Tag codes and confidences from class probabilities (label first,
    then prefix; not yet repaired). ``classes`` are the tag codes of
    ``proba``'s columns. ``outside_weight`` < 1 scales ``O``'s probability
    down before the vote, so a token goes to its likeliest label as soon as
    that beats ``outside_weight * P(O)``: more recall, less precision. The
    confidences stay the unscaled probabilities."""
    n = proba.shape[0]
    rows = np.arange(n)
    label_p = label_probabilities(proba, classes, n_labels)
    if outside_weight == 1.0:
        winner = label_p.argmax(axis=1)
    else:
        scaled = label_p.copy()
        scaled[:, 0] *= outside_weight
        winner = scaled.argmax(axis=1)
    padded = np.column_stack([proba, np.zeros(n)])     # column -1 reads as 0
    col_of = {int(c): k for k, c in enumerate(classes)}
    b_col = np.array([col_of.get(2 * lab - 1, -1) for lab in range(n_labels + 1)])
    i_col = np.array([col_of.get(2 * lab, -1) for lab in range(n_labels + 1)])
    inside = padded[rows, i_col[winner]] > padded[rows, b_col[winner]]
    codes = np.where(winner > 0, 2 * winner - 1 + inside, 0).astype(np.int16)
    return codes, label_p[rows, winner]


def label_probabilities(proba: np.ndarray, classes: np.ndarray, n_labels: int) -> np.ndarray:
    """(N, labels + 1) probability of each label (column 0: ``O``), ``B-X``
    and ``I-X`` summed."""
    label_p = np.zeros((proba.shape[0], n_labels + 1))
    for k, lab in enumerate(label_codes(classes)):
        label_p[:, lab] += proba[:, k]
    return label_p


def coherent(codes: np.ndarray, proba: np.ndarray, classes: np.ndarray, n_labels: int,
             segment_starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One label per span after a bold decision (``O`` weight below 1).

    With ``O`` scaled down, a token the meta-model holds for ``O`` at 99 %
    goes to whichever label has most of the last 1 %: a noise pick, and a
    name came out as four spans of four labels on MEDDOCAN ("José" place,
    "A" institution, "." street, "Hermida Pérez" hospital), which breaks the
    strict score and the surrogates. Here a run of consecutive non-``O``
    tokens in one segment is split only where a token confidently opens an
    entity (a ``B-`` tag whose label has probability >= 0.5), and each piece
    takes the label with the most probability summed over its tokens. Which
    tokens are hidden is unchanged, so token recall is too. (Cutting also
    where a sure token's label differs from the piece's sure tokens cut
    hospital and street names apart: MEDDOCAN test strict F1 0.876 against
    0.881.)
    """
    label_p = label_probabilities(proba, classes, n_labels)
    labels = label_codes(codes)
    out = codes.copy()
    conf = label_p[np.arange(len(codes)), labels]
    n = len(codes)
    t = 0
    while t < n:
        if labels[t] == 0:
            t += 1
            continue
        end = t + 1
        while end < n and labels[end] > 0 and not segment_starts[end]:
            end += 1
        cuts = [t] + [u for u in range(t + 1, end)
                      if codes[u] % 2 == 1 and label_p[u, labels[u]] >= 0.5] + [end]
        for a, b in zip(cuts[:-1], cuts[1:]):
            lab = int(label_p[a:b, 1:].sum(axis=0).argmax()) + 1
            out[a] = 2 * lab - 1
            out[a + 1:b] = 2 * lab
            conf[a:b] = label_p[a:b, lab]
        t = end
    return out, conf


@register_ensemble
class StackingEnsemble(Ensemble):
    """A fitted meta-model over named members (build with `fit_stacking`)."""

    kind = "ensemble.stacking"

    def __init__(self, members: Sequence[str], labels: Sequence[str], meta: str,
                 features: FeatureConfig, params: Mapping[str, Any], classes: Sequence[int],
                 model: _LinearMeta | _BoosterMeta, outside_weight: float = 1.0) -> None:
        self.outside_weight = float(outside_weight)
        self.members = list(members)
        self.index = LabelIndex(labels)
        self.meta = meta
        self.features = features
        self.params = dict(params)
        self.classes = np.asarray(classes, dtype=np.int16)
        self.model = model

    def predict_from_members(self, outputs: MemberOutputs, items: Items | None = None
                             ) -> list[TagSeq]:
        return self.predict_weighted(outputs, items, (self.outside_weight,))[self.outside_weight]

    def predict_weighted(self, outputs: MemberOutputs, items: Items | None,
                         outside_weights: Sequence[float]) -> dict[float, list[TagSeq]]:
        """Predictions for several ``O`` weights (see `decide`) from one pass
        of the meta-model."""
        # A label no member used in training reads as O: it has no weights.
        enc = encode_members(outputs, self.members, self.index, unknown_as_outside=True)
        if enc.layout.n_tokens == 0:
            empty = to_tag_seqs(enc.codes[0], enc.conf[0], enc.layout, self.index)
            return {w: empty for w in outside_weights}
        proba = self.model.proba(build_features(enc, self.features, items))
        out = {}
        for w in outside_weights:
            codes, conf = decide(proba, self.classes, self.index.n_labels, w)
            if w < 1.0:
                codes, conf = coherent(codes, proba, self.classes, self.index.n_labels,
                                       enc.layout.starts())
            out[w] = to_tag_seqs(repair_codes(codes, enc.layout), conf, enc.layout, self.index)
        return out

    def describe(self) -> str:
        f = self.features
        extras = [f"window ±{f.window}"] + (["confidences"] if f.confidences else []) \
            + (["token shapes"] if f.shape else []) \
            + ([f"recall-tuned: O weight {self.outside_weight:g}"] if self.outside_weight != 1.0 else [])
        return (f"Stacking ({META_MODELS[self.meta]}; {', '.join(extras)}) "
                f"over {', '.join(self.members)}")

    def save(self, directory: Path) -> None:
        directory = Path(directory)
        config = {"members": self.members, "labels": list(self.index.labels),
                  "meta": self.meta, "features": self.features.as_dict(),
                  "params": self.params, "classes": self.classes.tolist(),
                  "outside_weight": self.outside_weight}
        write_meta(directory, self.kind, config, description=self.describe())
        self.model.save(directory)

    @classmethod
    def load(cls, directory: Path) -> "StackingEnsemble":
        directory = Path(directory)
        meta = read_meta(directory, cls.kind)
        c = meta["config"]
        model_cls = _BoosterMeta if c["meta"] == "xgb" else _LinearMeta
        return cls(c["members"], c["labels"], c["meta"], FeatureConfig(**c["features"]),
                   c["params"], c["classes"], model_cls.load(directory, c["params"]),
                   c.get("outside_weight", 1.0))


def fit_stacking(outputs: MemberOutputs, gold: GoldTags, members: Sequence[str],
                 meta: str = "lr", *, features: FeatureConfig = FeatureConfig(),
                 items: Items | None = None, params: Mapping[str, Any] | None = None,
                 easy_ratio: float | None = 2.0, seed: int = 13,
                 outside_weight: float = 1.0) -> StackingEnsemble:
    """Fit a stacking ensemble on member outputs for data the members did not
    train on (see the module's training contract).

    Parameters
    ----------
    outputs, gold
        Member outputs and gold tags on the same segments.
    members
        The group to stack (feature column order follows it).
    meta
        ``"lr"``, ``"svm"`` or ``"xgb"``.
    features
        Feature settings; ``features.shape`` needs ``items``.
    params
        Overrides of `DEFAULT_PARAMS` for ``meta``.
    easy_ratio
        Subsampling of all-``O`` windows (module doc); ``None`` keeps all.
    outside_weight
        The decision's weight on ``O`` (see `decide`; 1 = plain argmax).
    """
    if meta not in META_MODELS:
        raise ValueError(f"unknown meta-model {meta!r} (use {', '.join(META_MODELS)})")
    p = {**DEFAULT_PARAMS[meta], **(params or {})}
    index = LabelIndex.from_tags(*(outputs[m] for m in members if m in outputs), gold)
    enc = encode_members(outputs, members, index)
    enc.layout.check(gold, "gold")
    y = index.encode(flat_tags(gold))
    rows, weight = training_rows(easy_rows(enc, features.window), easy_ratio, seed)
    # The meta-model's columns are the classes of the rows it is fit on: a
    # tag seen only in easy rows that were sampled away must not be counted.
    classes = np.unique(y[rows])
    if len(classes) < 2:
        raise ValueError("stacking needs gold with at least one entity and one O token")
    x = build_features(enc, features, items)[rows]
    model = _fit_meta(meta, x, y[rows], weight, classes, p, seed)
    return StackingEnsemble(members, index.labels, meta, features, p, classes.tolist(), model,
                            outside_weight)


def training_rows(easy: np.ndarray, ratio: float | None, seed: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Rows to train on and their weights: every non-easy row (weight 1)
    and a seeded sample of easy rows weighted so they count as all of them."""
    easy_idx = np.flatnonzero(easy)
    n_hard = len(easy) - len(easy_idx)
    keep = len(easy_idx)
    if ratio is not None:
        keep = min(keep, max(int(ratio * n_hard), MIN_EASY_ROWS))
    chosen = np.random.default_rng(seed).choice(easy_idx, keep, replace=False)
    rows = np.sort(np.concatenate([np.flatnonzero(~easy), chosen]))
    weight = np.where(easy[rows], len(easy_idx) / max(keep, 1), 1.0)
    return rows, weight


def cross_val_predict(outputs: MemberOutputs, gold: GoldTags, members: Sequence[str],
                      meta: str = "lr", *, folds: int = 5, groups: Sequence[str] | None = None,
                      items: Items | None = None, seed: int = 13,
                      progress: ProgressFn = no_progress, **fit_kwargs: Any) -> list[TagSeq]:
    """Out-of-fold stacking predictions on the fitting data itself.

    Each segment is predicted by a meta-model fit on the other folds, so the
    result can be compared fairly with voting on the same dev set. ``groups``
    (e.g. document ids, one per segment) keeps a group's segments in one fold.
    """
    return cross_val_predict_weighted(outputs, gold, members, meta, (1.0,), folds=folds,
                                      groups=groups, items=items, seed=seed, progress=progress,
                                      **fit_kwargs)[1.0]


def cross_val_predict_weighted(outputs: MemberOutputs, gold: GoldTags, members: Sequence[str],
                               meta: str, outside_weights: Sequence[float], *, folds: int = 5,
                               groups: Sequence[str] | None = None, items: Items | None = None,
                               seed: int = 13, progress: ProgressFn = no_progress,
                               **fit_kwargs: Any) -> dict[float, list[TagSeq]]:
    """`cross_val_predict` for several ``O`` weights at once (one fit per fold)."""
    n = len(gold)
    keys = list(groups) if groups is not None else list(range(n))
    if len(keys) != n:
        raise ValueError("one group per segment expected")
    fold = assign_folds(keys, folds, seed)
    result: dict[float, list] = {w: [None] * n for w in outside_weights}
    for k in range(folds):
        progress(Progress(k / folds, "ensemble", message=f"stacking fold {k + 1}/{folds}"))
        train = np.flatnonzero(fold != k).tolist()
        test = np.flatnonzero(fold == k).tolist()
        model = fit_stacking(_subset(outputs, members, train), [gold[i] for i in train],
                             members, meta, seed=seed,
                             items=None if items is None else [items[i] for i in train],
                             **fit_kwargs)
        preds = model.predict_weighted(
            _subset(outputs, members, test),
            None if items is None else [items[i] for i in test], outside_weights)
        for w, pred in preds.items():
            for i, seq in zip(test, pred):
                result[w][i] = seq
    progress(Progress(1.0, "ensemble", message="stacking folds done"))
    return result


#: ``O`` weights tried when a recall-first objective tunes a stacking decision.
#: The small ones serve token-recall targets such as 0.99: on MEDDOCAN dev a
#: logistic-regression stack over four members hides 0.980 of the identifier
#: tokens at weight 1, 0.987 at 0.1 and 0.990 only at 0.01.
RECALL_WEIGHTS = (1.0, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)


def tune_outside_weight(predictions: Mapping[float, list[TagSeq]], gold: GoldTags,
                        objective: str, target: float | None = None) -> float:
    """The ``O`` weight whose (out-of-fold) predictions best meet ``objective``,
    judged as `app.ensemble.selection.select` judges candidates; ties go to
    the larger weight (the plainer decision)."""
    from app.ensemble.selection import select
    by_name = {f"{w:g}": w for w in sorted(predictions, reverse=True)}
    best = select({name: predictions[w] for name, w in by_name.items()}, gold,
                  objective=objective, target=target, tolerance=0.0).best_name
    return by_name[best]


def _subset(outputs: MemberOutputs, members: Sequence[str], idx: list[int]) -> MemberOutputs:
    return {m: [outputs[m][i] for i in idx] for m in members}
