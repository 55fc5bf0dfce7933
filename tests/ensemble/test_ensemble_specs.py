"""Ensemble methods as registered specs; the one fold assignment; no import circle."""
import numpy as np
import pytest

from app.ensemble.folds import assign_folds, out_of_fold
from app.ensemble.specs import DevSet, ensemble_methods, ensemble_specs
from app.ensemble.stacking import cross_val_predict
from app.models.base import TagSeq


def test_folds_keep_documents_together_and_follow_the_seed():
    docs = [d for d in "aabbbcddeeef" for _ in range(2)]
    fold = assign_folds(docs, 3, seed=7)
    for d in set(docs):
        assert len({int(f) for f, x in zip(fold, docs) if x == d}) == 1
    assert sorted(set(fold.tolist())) == [0, 1, 2]
    assert (assign_folds(docs, 3, seed=7) == fold).all()
    with pytest.raises(ValueError, match="cannot make"):
        assign_folds(["a", "b"], 3, seed=7)
    # Each item is predicted by a fit that never saw its fold.
    seen = out_of_fold(fold, lambda train, test: [set(fold[train].tolist()) for _ in test])
    assert all(int(f) not in s for f, s in zip(fold, seen))


def _dev(n_docs=6, per_doc=4):
    rng = np.random.default_rng(3)
    gold, outs = [], {"A": [], "B": [], "C": []}
    for _ in range(n_docs * per_doc):
        g = ["B-X" if rng.random() < 0.4 else "O" for _ in range(6)]
        gold.append(tuple(g))
        for m, noise in zip("ABC", (0.1, 0.2, 0.4)):
            tags = [t if rng.random() > noise else ("O" if t != "O" else "B-X") for t in g]
            outs[m].append(TagSeq(tags, [0.9] * len(tags)))
    docs = [f"d{i // per_doc}" for i in range(len(gold))]
    return DevSet(outs, gold, None, docs, ["A", "B", "C"], folds=3, seed=5)


def test_specs_come_from_the_registry_in_build_order():
    assert ensemble_methods() == ("voting", "pruned", "stacking")
    specs = ensemble_specs(["stacking", "voting"], meta_models=["lr", "svm"])
    assert [s.method for s in specs] == ["voting", "stacking"]
    with pytest.raises(ValueError, match="unknown ensemble"):
        ensemble_specs(["bagging"])


def test_each_spec_yields_out_of_fold_candidates_over_the_dev_folds():
    dev = _dev()
    made = {name: (oof, ens) for spec in ensemble_specs(["voting", "pruned", "stacking"])
            for name, oof, ens in spec.candidates("all", ["A", "B", "C"], dev)}
    assert list(made) == ["voting[all]", "pruned[all]", "stacking-lr[all]"]
    assert all(len(oof) == len(dev.gold) and ens.members for oof, ens in made.values())
    # The stacking candidate's dev predictions are the cross-validation's,
    # over the dev set's own folds, not the deployed model's.
    expected = cross_val_predict(dev.outputs, dev.gold, ["A", "B", "C"], "lr", folds=dev.k,
                                 groups=dev.doc_ids, seed=dev.seed)
    assert made["stacking-lr[all]"][0] == expected


def test_the_ensemble_base_module_knows_no_subclass(tmp_path):
    import ast
    from pathlib import Path

    import app.ensemble.base as base
    from app.models.base import write_meta
    tree = ast.parse(Path(base.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"app.ensemble.voting", "app.ensemble.stacking"}   # no import circle

    @base.register_ensemble
    class Echo(base.Ensemble):
        kind = "ensemble.test-echo"
        members = ["A"]

        def predict_from_members(self, outputs, items=None):
            return outputs["A"]

        def describe(self):
            return "echo"

        def save(self, directory):
            write_meta(directory, self.kind, {})

        @classmethod
        def load(cls, directory):
            return cls()

    Echo().save(tmp_path / "e")
    assert isinstance(base.load_ensemble(tmp_path / "e"), Echo)      # a new kind plugs in


def test_a_cancelled_run_stops_between_a_stackings_folds_and_between_candidates():
    """Cancel during the ensembles waited for every meta-model of a group
    (minutes with XGBoost); now a stacking fit stops at its next fold and
    the stage before its next candidate."""
    from dataclasses import replace

    from app.core.progress import CancelToken, Cancelled
    from app.services.training import build_ensembles

    cancel = CancelToken()
    dev = replace(_dev(), cancel=cancel)
    made = []
    stacking = ensemble_specs(["stacking"], meta_models=["lr", "svm"])[0]
    candidates = stacking.candidates("all", ["A", "B", "C"], dev)
    made.append(next(candidates)[0])
    cancel.cancel()
    with pytest.raises(Cancelled):
        next(candidates)                          # the svm's first fold
    assert made == ["stacking-lr[all]"]
    late = CancelToken()

    class Spec:
        tuned = False

        def candidates(self, group_name, group, dev):
            for n in range(3):
                made.append(n)
                late.cancel()
                yield f"c{n}[{group_name}]", [], None

    with pytest.raises(Cancelled):
        build_ensembles(_dev(), {"all": ["A", "B"]}, [Spec()], late)
    assert made[1:] == [0]
