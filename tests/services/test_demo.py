"""`deid demo` end to end on the bundled sample notes (rules only: seconds)."""
import json

from app.services.demo import run_demo


def test_demo_runs_the_whole_loop_and_says_what_it_learned(tmp_path):
    lines: list[str] = []
    result = run_demo(tmp_path, echo=lines.append, models=("rules",))
    text = "\n".join(lines)
    for step in range(1, 7):
        assert f"{step}/6 " in text
    assert "Recall fill:" in text and "Propagation in a note:" in text
    assert result["import"]["imported"] == 300 and result["train"]["selected"] == "rules"
    assert 0.0 < result["evaluate"]["strict"] <= 1.0
    test_notes = sorted(p.name for p in (tmp_path / "test-notes").glob("*.txt"))
    assert test_notes
    assert sorted(p.name for p in (tmp_path / "annotated").glob("*.txt")) == test_notes
    assert len(list((tmp_path / "redacted").glob("*.txt"))) == len(test_notes)
    report = json.loads((tmp_path / "redaction-report.json").read_text(encoding="utf-8"))
    assert report["model"]["model"] == "rules"
    assert result["export"]["documents"] == 300
    # Run again: the demo replaces its own outputs instead of failing on them.
    again = run_demo(tmp_path, echo=lambda _: None, models=("rules",))
    assert again["import"]["imported"] == 300 and again["export"] == result["export"]
