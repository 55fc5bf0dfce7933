"""The transformer speed bench: training steps in float32 and bfloat16."""
import json

import pytest

from app.bench.transformer import main

pytest.importorskip("transformers")


def test_fit_steps_are_timed_in_float32_and_bfloat16(tmp_path, capsys):
    for i in range(20):
        (tmp_path / f"n{i:02d}.txt").write_text(
            f"Seen on ward {i} by Dr Ames. Daughter called back at 555-01{i:02d}.\n"
            "Plan: continue antibiotics, recheck labs tomorrow.\n", encoding="utf-8")
    assert main(["--fit", str(tmp_path), "--steps", "1"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["notes"] == 20 and figures["windows"] >= figures["batch"] == 16
    assert isinstance(figures["cpu_bf16"], bool)
    for name in ("fp32", "bf16"):
        assert figures[name]["seconds_a_step"] > 0 and figures[name]["pieces_per_s"] > 0
    assert figures["bf16_speedup"] == pytest.approx(
        figures["bf16"]["pieces_per_s"] / figures["fp32"]["pieces_per_s"], abs=0.01)


def test_fit_needs_enough_notes_for_a_step(tmp_path):
    (tmp_path / "a.txt").write_text("Seen by Dr Ames.\n", encoding="utf-8")
    with pytest.raises(ValueError, match="training windows"):
        main(["--fit", str(tmp_path)])


def test_the_wrong_number_of_folders_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit):
        main(["--fit", str(tmp_path), str(tmp_path)])
