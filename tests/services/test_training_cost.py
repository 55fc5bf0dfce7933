"""What `deid train` and the Train view say before a run about slow members."""
import pytest

from app.services.training import TrainConfig, cost_notes


@pytest.fixture
def on(monkeypatch):
    def use(device: str) -> None:
        monkeypatch.setattr("app.models.device.resolve_device", lambda requested, info=None: (device, None))
    return use


def test_the_transformer_on_a_cpu_is_announced_with_the_gpu_alternative(on):
    on("cpu")
    [note] = cost_notes(TrainConfig(models=["transformer", "crf"]))
    # On a CPU it trains once, on its own balanced windows (cpu_variants).
    assert "minutes" in note and "1 data variant, standard budget" in note
    assert "with a GPU it takes" in note
    # ... and no refit on train + dev after the selection, which a CPU does not do.
    assert "learn the dev notes" not in note
    # ... and what it costs afterwards: tagging notes on the processor.
    assert "characters of notes a second" in note and "as long as one without it" in note
    # ... and what its short fit there bought when measured.
    assert "five folds" in note and "98.7 %" in note and "without it" in note
    [full] = cost_notes(TrainConfig(models=["transformer"], budget="full"))
    assert "minutes" in full and "GPU" in full


def test_on_a_cpu_the_transformer_trains_one_variant_and_the_others_both():
    from app.services.training import kind_variants

    both = ["imbalanced", "balanced"]
    assert kind_variants("transformer", both, "cpu") == ["imbalanced"]
    assert kind_variants("transformer", both, "cuda") == both
    assert kind_variants("transformer", ["balanced"], "cpu") == ["balanced"]
    assert kind_variants("crf", both, "cpu") == both


def test_on_a_gpu_the_default_run_holds_the_transformer_and_says_minutes(on):
    on("cuda")
    [note] = cost_notes(TrainConfig())            # the GPU's default members
    assert "on the GPU" in note and "hours" not in note
    # ... and its refit on train + dev after the selection, unless told not to.
    assert "learn the dev notes too" in note
    [once] = cost_notes(TrainConfig(refit=False))
    assert "learn the dev notes" not in once


def test_nothing_is_said_for_a_run_without_the_transformer(on):
    on("cpu")
    assert cost_notes(TrainConfig()) == []        # the CPU's default members
    assert cost_notes(TrainConfig(models=["crf", "rules"])) == []


def test_a_small_projects_fit_is_said_as_long_as_its_notes_make_it(on, monkeypatch):
    """A first quick run on a dozen notes said "about 2 minutes" and took 9 s:
    a CPU fit of small data reads its notes once an epoch, not the budget."""
    from app.models.transformer_ner import estimate_fit_seconds
    monkeypatch.setattr("app.services.fit_speed.measured_rate", lambda key: None)
    on("cpu")
    budget = estimate_fit_seconds("quick", "cpu")
    assert estimate_fit_seconds("quick", "cpu", chars=30_000) < budget / 10
    assert estimate_fit_seconds("quick", "cpu", chars=10**9) == budget       # the budget bounds it
    [small] = cost_notes(TrainConfig(models=["transformer"], budget="quick"), chars=30_000)
    assert small.startswith("The transformer will train for under a minute"), small


def test_a_project_counts_the_characters_a_run_trains_on(tmp_path):
    from app.core.labels import PRESETS
    from app.project import Project
    with Project.create(tmp_path / "p.deid", list(PRESETS["hipaa"])) as p:
        a = p.add_document("a", "x" * 100, status="done")
        p.add_document("b", "y" * 50, status="todo")
        p.add_document("c", "z" * 70, status="done", split="test")
        assert p.annotated_characters() == 100
