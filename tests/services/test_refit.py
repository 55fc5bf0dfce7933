"""The refit stage: once selected, the CRF and transformer members learn from train + dev too,
while every dev figure, the selection and a later reuse stay with the models
that had not seen dev."""
import shutil

import pytest

from app.ensemble import gold_tags, score_members
from app.models.base import load_model
from app.project import Project
from app.services.finishing import finishing_summary
from app.services.predictor import Predictor
from app.services.runs import REFIT, artifact_name
from app.services.training import TrainConfig, plan_run, train_project

from synth_projects import make_project

pytestmark = pytest.mark.slow

CONFIG = dict(models=["crf", "rules"], budget="quick", variants=["imbalanced"],
              ensembles=["voting"])


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    path = make_project(tmp_path_factory.mktemp("refit") / "p.deid", n=30)
    messages = []
    with Project.open(path) as p:
        run = train_project(p, TrainConfig(**CONFIG),
                            progress=lambda pr: pr.message and messages.append(pr.message))
    return path, run, messages


def test_the_refit_says_once_that_it_is_done(trained):
    """Issue 34 item 12: the refit's line came twice in the Train view's log."""
    _, _, messages = trained
    assert messages.count("crf-imbalanced: trained again on train + dev") == 1


def _dev_f1(project, artifact, dev, folder) -> float:
    """Strict F1 on dev of the stored member ``artifact``, scored as the run scores members."""
    model = load_model(project.extract_artifact(artifact.id, folder / f"m{artifact.id}"))
    outs = model.predict([(s.text, s.segment) for s in dev])
    return score_members({"m": outs}, gold_tags(dev))["m"].f1


def test_the_crf_is_refitted_on_train_and_dev_and_predicts(trained, tmp_path):
    path, run, _ = trained
    with Project.open(path) as p:
        plan = plan_run(p, TrainConfig(**CONFIG))
        build = plan.builds["imbalanced"]
        names = {a.name: a for a in p.artifacts(run.id)}
        record = run.members["crf-imbalanced"]
        # Trained on every training and dev segment; the rules have nothing to refit.
        assert record.refit["train_segments"] == len(build.corpus.train) + len(build.corpus.dev)
        assert run.members["rules"].refit is None
        refit = names[artifact_name(REFIT, "crf-imbalanced")]
        scored = names["member:crf-imbalanced"]
        assert run.member_artifacts(p)["crf-imbalanced"].id == refit.id
        assert run.scored_member_artifacts(p)["crf-imbalanced"].id == scored.id
        with Predictor.from_project(p, all_members=True) as predictor:
            assert set(predictor.members) == {"crf-imbalanced", "rules"}
        # The refitted model has learned dev; the one the run scored had not
        # (its dev F1 is the record's).
        dev = build.corpus.dev
        assert _dev_f1(p, scored, dev, tmp_path) == pytest.approx(record.dev["f1"])
        assert _dev_f1(p, refit, dev, tmp_path) > record.dev["f1"]
    assert any(line.startswith("Refit: crf-imbalanced trained again on train + dev")
               for line in finishing_summary(run))


def test_no_refit_stores_only_the_scored_members(tmp_path):
    path = make_project(tmp_path / "p.deid", n=20)
    with Project.open(path) as p:
        run = train_project(p, TrainConfig(**CONFIG, refit=False))
        names = {a.name for a in p.artifacts(run.id)}
    assert not any(n.startswith(REFIT + ":") for n in names)
    assert all(m.refit is None for m in run.members.values())
    assert not any(line.startswith("Refit:") for line in finishing_summary(run))


def test_a_reused_member_is_the_one_scored_on_dev_not_its_refit(trained, tmp_path):
    path = shutil.copy(trained[0], tmp_path / "copy.deid")
    first = trained[1]
    with Project.open(path) as p:
        second = train_project(p, TrainConfig(**CONFIG, reuse_members=True, objective="f1"))
    crf = second.members["crf-imbalanced"]
    assert crf.reused_from == first.id
    # The same dev scores as the first run's: the reused model had not seen dev.
    assert crf.dev == first.members["crf-imbalanced"].dev
    assert crf.refit is not None


def test_members_refitted_side_by_side_are_those_refitted_one_after_another(tmp_path):
    """With ``jobs`` > 1 the refit runs in worker processes, as the members' fits did:
    the same refitted models, each said done once."""
    config = dict(CONFIG, variants=["balanced", "imbalanced"])
    outputs, said = [], []
    for jobs in (1, 2):
        path = make_project(tmp_path / f"p{jobs}.deid", n=30)
        messages = []
        with Project.open(path) as p:
            run = train_project(p, TrainConfig(**config, jobs=jobs),
                                progress=lambda pr: pr.message and messages.append(pr.message))
            assert {n for n, m in run.members.items() if m.refit} == {"crf-balanced",
                                                                      "crf-imbalanced"}
            texts = [p.document(i.id).text for i in p.document_infos()][:10]
            with Predictor.from_project(p, all_members=True) as predictor:
                outputs.append([{m: out.member_spans[m] for m in ("crf-balanced", "crf-imbalanced")}
                                for out in predictor.predict(texts, with_members=True)])
        said.append([m for m in messages if "trained again" in m])
    assert any(spans for out in outputs[0] for spans in out.values())
    assert outputs[0] == outputs[1]
    assert sorted(said[1]) == sorted(said[0]) == [
        "crf-balanced: trained again on train + dev", "crf-imbalanced: trained again on train + dev"]


def test_the_transformer_is_refitted_with_the_epochs_and_threshold_dev_chose(tmp_path,
                                                                            monkeypatch):
    """Dev chose its epochs and threshold; the refit takes them and learns dev's notes too,
    also when a later run reuses the scored member. Where the device is one whose fits
    are refitted (a GPU; here the CPU stands in for it); elsewhere the scored one predicts."""
    pytest.importorskip("transformers")
    import app.models.transformer_ner as tn

    config = dict(models=["rules", "transformer"], budget="quick", variants=["imbalanced"],
                  ensembles=["voting"])
    with Project.open(make_project(tmp_path / "cpu.deid", n=20)) as p:
        run = train_project(p, TrainConfig(**config))
        assert run.members["transformer-imbalanced"].refit is None
        assert run.member_artifacts(p)["transformer-imbalanced"].name == \
            "member:transformer-imbalanced"
    monkeypatch.setattr(tn, "REFIT_DEVICES", ("cuda", "cpu"))
    path = make_project(tmp_path / "t.deid", n=30)
    with Project.open(path) as p:
        build = plan_run(p, TrainConfig(**config)).builds["imbalanced"]
        runs = [train_project(p, TrainConfig(**config)),
                train_project(p, TrainConfig(**config, reuse_members=True))]
        for run in runs:
            record = run.members["transformer-imbalanced"]
            scored = record.params["fit"]
            assert record.refit["train_segments"] == len(build.corpus.train) + len(build.corpus.dev)
            artifact = run.member_artifacts(p)["transformer-imbalanced"]
            assert artifact.name == artifact_name(REFIT, "transformer-imbalanced")
            refit = load_model(p.extract_artifact(artifact.id, tmp_path / f"m{artifact.id}"))
            details = refit.fit_details()
            assert details["refit"] and not scored.get("refit")
            assert details["threshold"] == scored["threshold"]
            assert details["epochs_run"] == scored["best_epoch"]
        assert runs[1].members["transformer-imbalanced"].reused_from == runs[0].id
