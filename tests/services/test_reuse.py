"""Reusing the last run's members: only the ensembles and the selection are redone."""
import shutil

import pytest

from app.cli.main import main
from app.core.spans import Span
from app.errors import UserError
from app.project import Project
from app.services.predictor import Predictor
from app.services.training import TrainConfig, train_project

from synth_projects import make_project

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    path = make_project(tmp_path_factory.mktemp("reuse") / "p.deid", n=15)
    with Project.open(path) as p:
        result = train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick",
                                              variants=["imbalanced"], ensembles=["voting", "pruned"]))
    return path, result


def test_reused_members_are_not_trained_again(first_run, tmp_path):
    path = shutil.copy(first_run[0], tmp_path / "copy.deid")
    first = first_run[1]
    with Project.open(path) as p:
        second = train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick",
                                              variants=["imbalanced"], ensembles=["voting", "pruned"],
                                              objective="f2", reuse_members=True))
        run = p.run(second.id)
        names = {a.name for a in p.artifacts(second.id)}
        predictor = Predictor.from_project(p)
    assert second.id != first.id
    for name, member in second.members.items():
        assert member.reused_from == first.id
        # The same model tags dev the same way; its training record is carried over.
        assert member.dev == first.members[name].dev
        assert member.seconds == first.members[name].seconds
    assert {"member:spacy-imbalanced", "member:rules"} <= names   # the new run is self-contained
    assert run.config["objective"] == "f2" and run.metrics["selection"]["objective"] == "f2"
    assert predictor.run_id == second.id
    predictor.close()
    # Reused again: the record still names the run that trained them.
    with Project.open(path) as p:
        third = train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick",
                                             variants=["imbalanced"], ensembles=["voting"],
                                             reuse_members=True))
    assert all(m.reused_from == first.id for m in third.members.values())


def test_reuse_trains_what_the_last_run_lacks(first_run, tmp_path):
    path = shutil.copy(first_run[0], tmp_path / "copy.deid")
    with Project.open(path) as p:
        result = train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick",
                                              variants=["balanced", "imbalanced"],
                                              ensembles=["voting"], reuse_members=True))
    assert result.members["spacy-imbalanced"].reused_from == first_run[1].id
    assert result.members["spacy-balanced"].reused_from is None      # trained now


def test_reuse_is_refused_when_the_notes_changed(first_run, tmp_path):
    path = shutil.copy(first_run[0], tmp_path / "copy.deid")
    with Project.open(path) as p:
        p.add_document("late", "Seen by Dr Ann Lee today.", split="train", status="done",
                       spans=[Span(11, 18, "PERSON")], span_source="import")
        with pytest.raises(UserError, match="changed since run"):
            train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick",
                                         variants=["imbalanced"], reuse_members=True))


def test_reuse_needs_a_finished_run(tmp_path):
    path = make_project(tmp_path / "new.deid", n=10)
    with Project.open(path) as p:
        with pytest.raises(UserError, match="no finished training run"):
            train_project(p, TrainConfig(models=["rules"], budget="quick", reuse_members=True))


def test_cli_reuse_keeps_the_last_runs_models(first_run, tmp_path, capsys):
    path = shutil.copy(first_run[0], tmp_path / "copy.deid")
    assert main(["-q", "train", str(path), "--reuse-members", "--data", "imbalanced",
                 "--objective", "precision_at_recall", "--recall-target", "0.9"]) == 0
    out = capsys.readouterr().out
    assert "trained 0 base models (and reused 2)" in out


def test_token_recall_objective_tunes_stacking_for_the_target(first_run, tmp_path):
    path = shutil.copy(first_run[0], tmp_path / "copy.deid")
    with Project.open(path) as p:
        result = train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick",
                                              variants=["imbalanced"], ensembles=["voting", "stacking"],
                                              meta_models=["lr"], reuse_members=True,
                                              objective="precision_at_token_recall",
                                              recall_target=0.999))
        run = p.run(result.id)
    selection = run.metrics["selection"]
    assert selection["objective"] == "precision_at_token_recall" and selection["target"] == 0.999
    assert "token recall" in result.reason
    rows = {r["name"]: r for r in selection["rows"]}
    # Every row carries both the strict and the token counts it was judged on.
    assert all({"precision", "recall", "token"} <= set(r) for r in rows.values())
    best = rows[result.selected]
    # The stack's decision is bolder than the plain one: O weighed down, the
    # token recall at least that of the plainest member set.
    stack = result.ensembles["stacking-lr[all]"].description
    assert "recall-tuned: O weight" in stack
    assert best["token"]["recall"] >= rows["rules"]["token"]["recall"]


def test_bad_recall_target_is_a_user_error(first_run, tmp_path):
    with Project.open(first_run[0]) as p:
        with pytest.raises(UserError, match="recall target"):
            train_project(p, TrainConfig(models=["rules"], objective="precision_at_token_recall",
                                         recall_target=1.5))


def test_a_picked_group_gets_its_own_ensembles(first_run, tmp_path):
    path = shutil.copy(first_run[0], tmp_path / "copy.deid")
    with Project.open(path) as p:
        result = train_project(p, TrainConfig(models=["spacy", "crf", "rules"], budget="quick",
                                              variants=["imbalanced"], ensembles=["voting", "pruned"],
                                              reuse_members=True,
                                              groups={"fast": ["crf", "rules"],
                                                      "again": ["spacy-imbalanced", "crf", "rules"]}))
        run = p.run(result.id)
    assert set(run.metrics["ensembles"]["voting[fast]"]["members"]) == {"crf-imbalanced", "rules"}
    assert "pruned[fast]" in result.ensembles
    assert {r["name"] for r in result.rows} >= {"voting[fast]", "pruned[fast]"}
    # A group with the members of a built-in one is built once, and the note says so.
    assert "voting[again]" not in result.ensembles
    assert any("group again has the members of group all" in n for n in result.notes)


@pytest.mark.parametrize("groups,message", [
    ({"x": ["flair"]}, "does not train"),
    ({"solo": ["spacy-imbalanced"]}, "at least two members"),
    ({"top3_f1": ["spacy", "rules"]}, "built-in"),
    ({"a b": ["spacy", "rules"]}, "letters, digits"),
])
def test_bad_groups_are_user_errors(groups, message):
    with pytest.raises(UserError, match=message):
        TrainConfig(models=["spacy", "rules"], variants=["imbalanced"], groups=groups).validate()


def test_a_recall_target_met_by_tagging_everything_is_called_out():
    from app.ensemble import select
    from app.models.base import TagSeq
    from app.services.training import low_precision_note
    gold = [("B-X",)] * 2 + [("O",)] * 8
    everything = [TagSeq(["B-X"], [1.0])] * 10                 # token P 0.2, R 1.0
    careful = [TagSeq(["B-X" if i < 1 else "O"], [1.0]) for i in range(10)]   # R 0.5
    high = select({"careful": careful, "everything": everything}, gold,
                  "precision_at_token_recall", 0.9)
    assert high.best_name == "everything"
    assert "only 20% of what everything tags is an identifier" in low_precision_note(high)
    assert low_precision_note(select({"careful": careful}, gold, "precision_at_token_recall",
                                     0.5)) is None
    assert low_precision_note(select({"everything": everything}, gold)) is None      # f1
