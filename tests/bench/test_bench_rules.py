"""`python -m app.bench.rules`: each English rule switched off alone."""
import json

import pytest

from app.bench.rules import Note, Setting, main, measure, rule_names
from app.core.labels import PRESETS
from app.core.spans import Span
from app.lists.labels import label_map
from bench_brat import write_brat

LABELS = label_map(label.name for label in PRESETS["hipaa"])[0]


def _note(text, gold, raw, group="g"):
    return Note(text, [Span(text.index(w), text.index(w) + len(w), label) for label, w in gold],
                None, [Span(text.index(w), text.index(w) + len(w), label) for label, w in raw],
                group)


def test_a_finding_rule_gains_what_it_alone_hides_and_a_veto_what_it_takes_away():
    found = _note("LAST BM ON 2/14, TOLERATING TF.\n", [("DATE", "2/14")], [])
    vetoed = _note("BP 120/80, HR 80S.\n", [], [("DATE", "120/80")])
    result = measure([found, vetoed], {"g": Setting(None, LABELS, None)}, rule_names())
    base = result["all_on"]["g"]
    assert (base["hidden"], base["identifier_tokens"], base["false"]) == (3, 3, 0)
    assert (base["notes_with_identifiers"], base["leaking"]) == (1, 0)
    assert base["token_recall"] == 1.0
    # Off, the yearless date leaks (the canonical tokens "2", "/", "14"); the
    # pressure stays replaced.
    assert result["rules"]["yearless-date"]["g"] == {"hidden": 3, "false": 0, "leaking": 1}
    assert result["rules"]["not-a-date"]["g"] == {"hidden": 0, "false": -3, "leaking": 0}
    assert result["rules"]["pager"]["g"] == {"hidden": 0, "false": 0, "leaking": 0}
    assert set(result["rules"]) == set(rule_names())


def test_the_fixed_steps_a_run_kept_are_the_only_ones_switched():
    found = _note("LAST BM ON 2/14, TOLERATING TF.\n", [("DATE", "2/14")], [])
    result = measure([found], {"g": Setting(None, LABELS, ("vetoes.v1",))}, ["yearless-date"])
    assert result["all_on"]["g"]["hidden"] == 0         # the shapes' step did not run
    assert result["rules"]["yearless-date"]["g"]["hidden"] == 0


def test_day_one_is_measured_apart_on_the_notes_the_rules_were_written_from(tmp_path, capsys):
    # p001 % 5 == 1: one of our dev patients, whose leaks the rules were written from.
    write_brat(tmp_path, "p001_n001", "SEEN BY DR. OKAFOR ON 2/14.\n",
          [("NAME", "OKAFOR"), ("DATE", "2/14")])
    write_brat(tmp_path, "p002_n001", "LAST BM 3/9. BP 110/60.\n", [("DATE", "3/9")])
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    result = json.loads(out)
    assert (result["mode"], result["notes"]) == ("day one", 2)
    assert result["groups"] == ["not_written_from", "written_from"]
    assert result["all_on"]["written_from"]["identifier_tokens"] == 4
    assert result["all_on"]["not_written_from"]["identifier_tokens"] == 3
    assert set(result["rules"]) == set(rule_names())
    assert "OKAFOR" not in out                        # counts only, never a note's text


def test_it_takes_a_folder_or_projects_not_both(tmp_path):
    with pytest.raises(SystemExit):
        main([])
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--project", str(tmp_path / "p.deid")])


def test_a_trained_project_is_measured_with_its_selected_model(tmp_path, capsys):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parents[1] / "services"))
    from synth_projects import make_project

    from app.project import Project
    from app.services.training import TrainConfig, train_project

    path = make_project(tmp_path / "small.deid", n=10)
    with Project.open(path) as p:
        train_project(p, TrainConfig(models=["rules"], budget="quick"))
    assert main(["--project", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["mode"], result["notes"], result["groups"]) == ("trained, test split", 2,
                                                                   ["small"])
    base = result["all_on"]["small"]
    assert base["identifier_tokens"] > 0 and 0 < base["token_recall"] <= 1
    assert result["rules_all_projects"]["pager"] == result["rules"]["pager"]["small"]
