"""The stages of a training run, each alone (plan -> members -> ensembles -> select -> finish)."""
import pytest

from app.ensemble.specs import DevSet, ensemble_specs
from app.errors import UserError
from app.models.base import TagSeq
from app.project import Project
from app.services.training import TrainConfig, build_ensembles, plan_run

from synth_projects import make_project


def test_plan_names_the_members_and_stores_nothing(tmp_path):
    path = make_project(tmp_path / "p.deid", n=15)
    with Project.open(path) as p:
        plan = plan_run(p, TrainConfig(models=["spacy", "rules"], budget="quick"))
        assert plan.members == [("spacy", "balanced"), ("spacy", "imbalanced"), ("rules", None)]
        assert plan.budget.name == "quick" and plan.dev
        assert plan.stored_config()["variants_trained"] == ["balanced", "imbalanced"]
        assert p.runs() == []                          # planning writes nothing
        with pytest.raises(UserError, match="reuse"):
            plan_run(p, TrainConfig(models=["rules"], reuse_members=True))
        assert p.runs() == []


def _dev(docs, per_doc=30):
    # Each segment holds one identifier: ``per_doc`` segments a document.
    gold = [("B-X", "O"), ("O", "B-X")] * (len(docs) * per_doc // 2)
    outs = {m: [TagSeq(list(g), [1.0, 1.0]) for g in gold] for m in ("A", "B", "C")}
    ids = [d for d in docs for _ in range(per_doc)]
    return DevSet(outs, gold, None, ids, ["A", "B", "C"], folds=2, seed=1)


def test_ensembles_stage_builds_a_repeated_group_once_and_needs_enough_dev_to_tune():
    specs = ensemble_specs(["voting", "pruned"])
    groups = {"all": ["A", "B", "C"], "same": ["C", "B", "A"], "pair": ["A", "B"], "one": ["A"]}
    ensembles, oof = build_ensembles(_dev(["d1", "d2"]), groups, specs)
    assert sorted(ensembles) == ["pruned[all]", "pruned[pair]", "voting[all]", "voting[pair]"]
    assert set(oof) == set(ensembles)
    # One dev document: nothing to cross-validate a tuned ensemble on.
    ensembles, _ = build_ensembles(_dev(["d1"], per_doc=60), groups, specs)
    assert sorted(ensembles) == ["voting[all]", "voting[pair]"]
    # Two documents but a dozen identifiers: too few to tune on.
    ensembles, _ = build_ensembles(_dev(["d1", "d2"], per_doc=6), groups, specs)
    assert sorted(ensembles) == ["voting[all]", "voting[pair]"]
