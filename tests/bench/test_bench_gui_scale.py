"""`python -m app.bench.gui_scale`: the big-folder journey in the main window
at two folder sizes, each step's time as a ratio to the small folder's."""
import json

import pytest

pytest.importorskip("pytestqt")

from app.bench.gui_scale import STEPS, compare, main  # noqa: E402


def test_every_step_of_the_journey_is_timed_on_both_folders(capsys, monkeypatch):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert main(["--small", "3", "--large", "6", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["small"], result["large"], result["size_ratio"]) == (3, 6, 2.0)
    assert [r["step"] for r in result["steps"]] == list(STEPS)
    assert all(r["small_s"] >= 0 and r["large_s"] >= 0 for r in result["steps"])
    assert result["rss_mb"]["large"] > 0


def test_the_export_can_be_left_out(capsys, monkeypatch):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert main(["--small", "2", "--large", "4", "--json", "--no-export"]) == 0
    steps = [r["step"] for r in json.loads(capsys.readouterr().out)["steps"]]
    assert steps == [s for s in STEPS if s != "export"]


def test_the_ratio_is_the_large_folders_time_over_the_small_ones():
    small = {s: {"s": 1.0, "stall_s": 0.0} for s in STEPS}
    large = {s: {"s": 10.0, "stall_s": 0.5} for s in STEPS}
    large["search"]["s"] = 100.0
    rows = {r["step"]: r for r in compare(small, large, 10.0)}
    assert rows["import"]["ratio"] == 10.0 and rows["import"]["per_note_ratio"] == 1.0
    assert rows["search"]["per_note_ratio"] == 10.0         # grows with the folder
    assert rows["export"]["large_gui_stall_s"] == 0.5
