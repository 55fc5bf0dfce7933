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


def test_the_lists_member_alone_is_never_the_selected_model():
    """The floor every candidate gets is no model of its own: a lists member
    scoring best alone on a small dev is not selected over the starter."""
    from types import SimpleNamespace
    from app.services.training import select_candidate
    gold = [("B-X", "O", "B-X", "O")] * 4
    found = [TagSeq(["B-X", "O", "O", "O"], [0.9] * 4)] * 4            # half of them
    plan = SimpleNamespace(config=TrainConfig(), notes=[], docs=[])
    dev = SimpleNamespace(gold=gold, target=0.99, n_entities=8, doc_ids="abcd")
    selection = select_candidate(plan, dev, {"lists": [TagSeq(list(g), [0.95] * 4) for g in gold],
                                             "starter": found}, {})
    assert selection.best_name == "starter"
    assert "lists" not in [row.name for row in selection.rows]


def test_on_a_small_dev_the_starter_stays_unless_a_trained_model_hides_more():
    """Fewer than 50 dev identifiers: a trained candidate hiding as many
    identifier tokens as the starter (more precisely) does not replace it;
    one hiding more does; on a dev big enough to trust, the objective decides."""
    from types import SimpleNamespace
    from app.services.training import select_candidate
    gold = [("B-X", "O", "B-X", "O")] * 4
    half = [TagSeq(["B-X", "O", "O", "O"], [0.9] * 4)] * 4
    noisy = [TagSeq(["B-X", "B-X", "O", "O"], [0.9] * 4)] * 4      # as many found, less precise
    more = [TagSeq(["B-X", "O", "B-X", "O"], [0.9] * 4)] * 4
    plan = SimpleNamespace(config=TrainConfig(), notes=[], docs=[])
    small = SimpleNamespace(gold=gold, target=0.99, n_entities=8, doc_ids="abcd")
    selection = select_candidate(plan, small, {"crf": half, "starter": noisy}, {})
    assert selection.best_name == "starter" and selection.reason.startswith("starter kept: on 8")
    assert [r.name for r in selection.rows] == ["starter", "crf"]
    assert select_candidate(plan, small, {"crf": more, "starter": noisy}, {}).best_name == "crf"
    big = SimpleNamespace(gold=gold, target=0.99, n_entities=80, doc_ids="abcd")
    assert select_candidate(plan, big, {"crf": half, "starter": noisy}, {}).best_name == "crf"
    f1 = SimpleNamespace(config=TrainConfig(objective="f1"), notes=[], docs=[])
    small_f1 = SimpleNamespace(gold=gold, target=None, n_entities=8, doc_ids="abcd")
    assert select_candidate(f1, small_f1, {"crf": half, "starter": noisy}, {}).best_name == "crf"


def test_the_transformer_member_is_kept_unless_the_dev_patients_tell_another_is_better():
    """The stage passes the members whose kind is kept among equals (the
    fine-tuned transformer) to the selection by their kind, not their name."""
    from types import SimpleNamespace
    from app.services.training import select_candidate
    gold = [("B-X", "O", "B-X", "O")] * 4
    stack = [TagSeq(["B-X", "O", "B-X", "O"], [0.9] * 4)] * 3 + [TagSeq(["B-X"] * 4, [0.9] * 4)]
    learned = [TagSeq(["B-X", "O", "B-X", "O"], [0.9] * 3 + [0.6])] * 3 \
        + [TagSeq(["B-X", "O", "O", "O"], [0.9] * 4)]                  # one token missed
    plan = SimpleNamespace(config=TrainConfig(), notes=[], docs=[])
    dev = SimpleNamespace(gold=gold, target=0.99, n_entities=80, doc_ids="abcd")
    cands = {"stacking-lr[all]": stack, "transformer-imbalanced": learned}
    assert select_candidate(plan, dev, cands, {}).best_name == "stacking-lr[all]"
    kept = select_candidate(plan, dev, cands, {}, {"transformer-imbalanced": "transformer",
                                                   "crf-balanced": "crf"})
    assert kept.best_name == "transformer-imbalanced" and kept.kept_over == "stacking-lr[all]"
    assert select_candidate(plan, dev, cands, {}, {"transformer-imbalanced": "crf"}
                            ).best_name == "stacking-lr[all]"


def _machine(monkeypatch, cuda: bool, bf16: bool = False) -> None:
    """This machine, as ``detect_devices`` sees it: with a GPU or without,
    its CPU multiplying bfloat16 in hardware or not."""
    import app.models.device as device
    monkeypatch.setattr(device, "detect_devices",
                        lambda: device.DeviceInfo(cuda_available=cuda, cuda_name="fake", cuda_count=1,
                                                  cpu_bf16=bf16)
                        if cuda else device.DeviceInfo(cpu_bf16=bf16))


@pytest.mark.parametrize("cuda, bf16, models", [
    (False, False, ["crf", "rules", "starter"]),
    (False, True, ["crf", "rules", "starter", "transformer"]),
    (True, False, ["spacy", "stanza", "flair", "transformer", "crf", "rules", "starter"])])
def test_a_default_run_trains_the_default_members_of_its_device(tmp_path, monkeypatch, cuda,
                                                                 bf16, models):
    from app.services.schema import default_models
    _machine(monkeypatch, cuda, bf16)
    path = make_project(tmp_path / "p.deid", n=15)
    with Project.open(path) as p:
        plan = plan_run(p, TrainConfig(budget="quick"))          # device "auto"
        assert plan.device == ("cuda" if cuda else "cpu")
        assert default_models(plan.device, bf16) == models
        # The run stores the members it trains, not "the default".
        assert plan.config.models == models and plan.stored_config()["models"] == models
        # Each trained kind on both data variants, but the transformer on a
        # CPU (one: `kind_variants`), then the fixed kinds.
        assert [k for k, _ in plan.members] == [
            k for k in models if k not in ("rules", "starter")
            for _ in range(1 if k == "transformer" and not cuda else 2)] + ["rules", "starter"]
        # Forced onto the CPU, a GPU machine trains the CPU's default.
        assert plan_run(p, TrainConfig(device="cpu")).config.models == default_models("cpu", bf16)
        # What the Train view lists before the run starts is what it plans.
        from app.services.schema import member_name
        from app.services.training import planned_members
        for asked in ("auto", "cpu"):
            plan = plan_run(p, TrainConfig(budget="quick", device=asked))
            assert planned_members(p, TrainConfig(budget="quick", device=asked)) == \
                [member_name(k, v) for k, v in plan.members]


def test_named_models_win_over_the_device_default(tmp_path, monkeypatch):
    _machine(monkeypatch, True)
    path = make_project(tmp_path / "p.deid", n=15)
    with Project.open(path) as p:
        for device in ("cpu", "cuda"):
            plan = plan_run(p, TrainConfig(models=["spacy", "rules"], device=device))
            assert plan.config.models == ["spacy", "rules"] and not plan.notes


def test_a_default_run_of_a_spanish_project_leaves_the_starter_out(tmp_path):
    path = tmp_path / "es.deid"
    with Project.create(path, [], language="es") as p:
        p.add_document("a", "Paciente Juan Pérez.", split="train", status="done",
                       spans=[], span_source="import")
        config = TrainConfig(device="cpu")
        with pytest.raises(UserError, match="annotated documents"):
            plan_run(p, config)
        assert config.models == ["crf", "rules"]
