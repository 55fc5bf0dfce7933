"""This computer's transformer fit rate, kept for the next estimate."""
import json

import pytest

from app.services import fit_speed
from app.services.fit_speed import measured_rate, record_fit, speed_key
from app.services.training import transformer_cost


@pytest.fixture
def user(tmp_path, monkeypatch):
    folder = tmp_path / "user"
    monkeypatch.setenv("DEID_USER_DIR", str(folder))
    monkeypatch.setattr("app.models.transformer_ner.cpu_bf16", lambda: True)
    return folder


def fit(seconds: float, pieces: int = 1_080_000, device: str = "cpu", layers: int = 4) -> dict:
    return {"train_pieces": pieces, "train_seconds": seconds, "device": device,
            "compute": "bf16", "layers": layers, "epochs_run": 3}


def test_a_fit_keeps_its_rate_under_what_sets_it(user):
    assert record_fit(fit(480.0)) == 2250.0
    assert measured_rate(speed_key("cpu", "bf16", 4)) == 2250.0
    # Another arithmetic, depth or number of cores is another machine's rate.
    assert measured_rate(speed_key("cpu", "fp32", 4)) is None
    assert measured_rate(speed_key("cpu", "bf16", 6)) is None
    assert measured_rate(speed_key("cpu", "bf16", 4, cores=64)) is None
    # Nothing but numbers is written, and no part file is left.
    record_fit(fit(540.0))
    stored = json.loads((user / fit_speed.FILE).read_text())
    assert stored == {speed_key("cpu", "bf16", 4): {"pieces_per_second": [2250.0, 2000.0]}}
    assert [p.name for p in user.iterdir()] == [fit_speed.FILE]


def test_one_slow_fit_among_others_does_not_set_the_estimate(user):
    """The walkthrough's fit beside a test run went at 393 pieces a second."""
    for seconds in (480.0, 500.0, 2750.0):
        record_fit(fit(seconds))
    assert measured_rate(speed_key("cpu", "bf16", 4)) == 2160.0          # the median
    for seconds in (480.0,) * fit_speed.KEPT:
        record_fit(fit(seconds))
    stored = json.loads((user / fit_speed.FILE).read_text())
    assert stored[speed_key("cpu", "bf16", 4)]["pieces_per_second"] == [2250.0] * fit_speed.KEPT


def test_a_short_or_unclear_fit_is_not_kept(user):
    assert record_fit(fit(12.0, pieces=9_000)) is None          # mostly loading: says little
    # A small project's fit, long enough but of few pieces: its dev passes
    # weigh as much as its steps (a walkthrough's 94 s then said "8 minutes").
    assert record_fit(fit(94.0, pieces=40_000)) is None
    assert record_fit({"train_pieces": 5, "device": "cpu"}) is None
    assert record_fit({**fit(300.0), "layers": None}) is None
    assert measured_rate(speed_key("cpu", "bf16", 4)) is None


@pytest.mark.parametrize("content", ["", "not json", "[1, 2]",
                                     '{"cpu/bf16/4 layers/2 cores": {"pieces_per_second": "x"}}',
                                     '{"cpu/bf16/4 layers/2 cores": {"pieces_per_second": [-1, "x"]}}'])
def test_an_unreadable_record_is_ignored_and_replaced(user, content):
    user.mkdir(parents=True, exist_ok=True)
    (user / fit_speed.FILE).write_text(content)
    assert measured_rate(speed_key("cpu", "bf16", 4, cores=2)) is None
    assert record_fit(fit(500.0)) == 2160.0
    assert measured_rate(speed_key("cpu", "bf16", 4)) == 2160.0


def test_the_estimate_before_a_run_takes_this_computers_last_fit(user):
    nominal = transformer_cost("standard", 1, "cpu")
    assert "timed from" not in nominal
    record_fit(fit(480.0))                      # 1,080,000 pieces in 8 minutes
    timed = transformer_cost("standard", 1, "cpu")
    assert "about 8 minutes" in timed and "timed from its last fits on this computer" in timed
    # Two variants take twice as long; the full budget reads more pieces.
    assert "about 16 minutes" in transformer_cost("standard", 2, "cpu")
    assert "about 18 minutes" in transformer_cost("full", 1, "cpu")
    # A GPU's estimate is not the processor's.
    assert "timed from" not in transformer_cost("standard", 1, "cuda")


def test_a_member_fit_records_its_rate(user, monkeypatch):
    """`fit_member` records what the transformer's fit details say."""
    from app.services import members

    kept = []
    monkeypatch.setattr(fit_speed, "record_fit", kept.append)

    class Model:
        def fit_details(self):
            return fit(480.0)

        def save(self, directory):
            pass

    class Spec:
        def __init__(self, **params):
            pass

        def fit(self, corpus, ctx):
            return Model()

    monkeypatch.setattr("app.models.base.spec_class", lambda kind: Spec)
    monkeypatch.setattr("app.models.base.FIXED_KINDS", frozenset({"transformer"}))
    job = members.MemberJob("transformer-imbalanced", "transformer", "imbalanced", {}, None,
                            user / "work", user / "out", user / "cache")
    record, _ = members.fit_member(job, lambda p: None)
    assert kept == [fit(480.0)] and record.params["fit"] == fit(480.0)
