"""The typed run record: artifact names, the active-run pointer, old records."""
import json
from pathlib import Path

import pytest

from app.core.labels import PRESETS
from app.errors import UserError
from app.project import Project
from app.services.runs import (ENSEMBLE, MEMBER, RECORD_VERSION, MemberRecord, TrainedRun,
                               active_run, artifact_name, parse_artifact_name, set_active_run)
from app.services.schema import TrainConfig

FIXTURE = Path(__file__).parent / "fixtures" / "run_record_v1.json"


def test_artifact_names_are_made_and_read_in_one_place():
    assert artifact_name(MEMBER, "spacy-balanced") == "member:spacy-balanced"
    assert parse_artifact_name(artifact_name(ENSEMBLE, "voting[top3:f1]")) == (ENSEMBLE, "voting[top3:f1]")
    assert parse_artifact_name("vectors") is None and parse_artifact_name("other:x") is None
    with pytest.raises(ValueError):
        artifact_name("model", "x")


def _stored(tmp_path, config: dict, metrics: dict) -> Project:
    project = Project.create(tmp_path / "old.deid", list(PRESETS["paper"]))
    run_id = project.start_run("train", config)
    project.finish_run(run_id, "done", metrics)
    set_active_run(project, run_id)
    return project


def test_a_run_stored_before_the_typed_record_opens(tmp_path):
    # A record written by the version before TrainedRun (the demo's run).
    old = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert "version" not in old["metrics"]
    with _stored(tmp_path, old["config"], old["metrics"]) as project:
        run = active_run(project)
        assert run.selected == old["metrics"]["selected"] == "stacking-lr[all]"
        assert run.reason == old["metrics"]["selection"]["reason"]
        assert run.rows[0]["name"] == run.selected and run.row(run.selected) == run.rows[0]
        spacy = run.members["spacy-balanced"]
        assert isinstance(spacy, MemberRecord) and spacy.kind == "spacy"
        assert spacy.dev["f1"] == old["metrics"]["members"]["spacy-balanced"]["dev"]["f1"]
        assert spacy.clock_stop is False                     # a field it did not have
        assert run.ensembles["voting[all]"].members == old["metrics"]["ensembles"]["voting[all]"]["members"]
        assert run.fill_rules(run.selected) == [] and run.propagation_labels("other") == []
        assert run.config["budget"] == "quick" and run.seconds == old["metrics"]["seconds"]
        config = run.train_config()
        assert (config.budget, config.models, config.seed) == ("quick", ["spacy", "rules"], 13)
        assert run.documents == {"train": 215, "dev": 53}
        assert set(run.split_hashes) == {"balanced", "imbalanced"}
        # Written again, the record keeps every old key with the same value.
        again = run.metrics()
        assert again["version"] == RECORD_VERSION
        for key, value in old["metrics"].items():
            if key != "members":
                assert again[key] == value, key
        for name, member in old["metrics"]["members"].items():
            assert {k: again["members"][name][k] for k in member} == member


def test_an_older_record_without_finishing_or_costs_opens(tmp_path):
    metrics = {"selected": "crf-imbalanced",
               "selection": {"best": "crf-imbalanced", "reason": "best dev strict F1",
                             "rows": [{"name": "crf-imbalanced", "f1": 0.9}]},
               "members": {"crf-imbalanced": {"name": "crf-imbalanced", "kind": "crf",
                                              "variant": "imbalanced", "params": {}, "seconds": 3.0,
                                              "peak_mb": 10.0, "size_mb": 1.0, "dev": {"f1": 0.9}}},
               "ensembles": {}, "device": "cpu", "device_note": None, "seconds": 4.0, "data": {}}
    with _stored(tmp_path, {"budget": "standard"}, metrics) as project:
        run = active_run(project)
        member = run.members["crf-imbalanced"]
        assert member.trials == [] and member.time_cap is None and member.reused_from is None
        assert run.fill is None and run.notes == [] and run.costs == {}
        assert run.fill_rules("crf-imbalanced") == []
        # What the stored configuration lacks keeps TrainConfig's default.
        assert run.train_config() == TrainConfig(budget="standard")
        assert run.documents == {} and run.split_hashes == {}


def test_no_active_run_is_a_user_error(tmp_path):
    with Project.create(tmp_path / "new.deid", list(PRESETS["paper"])) as project:
        with pytest.raises(UserError, match="no trained model"):
            active_run(project)
        run_id = project.start_run("train", {})
        project.finish_run(run_id, "failed")
        set_active_run(project, run_id)
        with pytest.raises(UserError, match="did not finish"):
            active_run(project)
    assert TrainedRun(1).metrics()["members"] == {}
