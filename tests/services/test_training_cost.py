"""What `deid train` and the Train view say before a run about slow members."""
import pytest

from app.services.training import TrainConfig, cost_notes


@pytest.fixture
def on(monkeypatch):
    def use(device: str) -> None:
        monkeypatch.setattr("app.models.device.resolve_device", lambda requested: (device, None))
    return use


def test_the_transformer_on_a_cpu_is_announced_in_hours_with_the_gpu_alternative(on):
    on("cpu")
    [note] = cost_notes(TrainConfig(models=["transformer", "crf"]))
    assert "hours" in note and "2 data variants, standard budget" in note
    assert "with a GPU it takes" in note


def test_on_a_gpu_the_default_run_holds_the_transformer_and_says_minutes(on):
    on("cuda")
    [note] = cost_notes(TrainConfig())            # the GPU's default members
    assert "on the GPU" in note and "hours" not in note


def test_nothing_is_said_for_a_run_without_the_transformer(on):
    on("cpu")
    assert cost_notes(TrainConfig()) == []        # the CPU's default members
    assert cost_notes(TrainConfig(models=["crf", "rules"])) == []
