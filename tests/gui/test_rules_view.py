"""Go › Rules: on a project whose notes are not English it says the rules do
not run; on one with the paper's labels it shows that dates take no label."""
from __future__ import annotations

from journeys.journey import choose


def test_the_rules_page_of_a_spanish_project_says_they_do_not_run(window, qtbot, tmp_path):
    assert window.new_project(tmp_path / "p.deid", "meddocan", language="es")
    choose(qtbot, window, "Go", "Rules")
    assert window.current_view() == "Rules"
    assert "This project's notes are 'es': these rules do not run on them." in \
        window.rules.intro.text()
    assert window.rules.table.rowCount() > 0


def test_the_rules_page_shows_that_the_papers_labels_leave_dates_to_the_leak_scan(
        window, qtbot, tmp_path):
    assert window.new_project(tmp_path / "p.deid", "paper")
    choose(qtbot, window, "Go", "Rules")
    shown = window.rules.mapping.text()
    assert "dates are left to the leak scan" in shown and "dates of birth become DOB" in shown


def test_the_rules_page_shows_a_moved_rule_by_name_with_its_patterns_and_words(
        window, qtbot, tmp_path):
    assert window.new_project(tmp_path / "p.deid", "hipaa")
    choose(qtbot, window, "Go", "Rules")
    view = window.rules
    row = next(r for r in range(view.table.rowCount())
               if view.table.item(r, 1).text() == "titled-name")
    assert view.table.item(row, 5).text() == "after_title, not_after_name"
    view.table.setCurrentCell(row, 1)
    shown = view.detail.toPlainText()
    assert "pattern:  title: " in shown and "fragment: {NAME_WORD} = " in shown
    assert "words:    after_title: " in shown


def test_a_rule_of_a_step_the_model_does_not_run_says_whether_day_one_still_hides_its_finds(
        window, qtbot, tmp_path):
    """The page said every rule of the English floor was "not run by the model
    in use" while the run's day-one floor hid what its place and name rules
    found (a site's ward rule among them); a date rule's finds it does not keep."""
    from app.core.labels import PRESETS
    from app.project.store import Project
    from app.services.runs import TrainedRun, set_active_run
    path = tmp_path / "p.deid"
    run = TrainedRun(1, "done", selected="crf-balanced", fixed={
        "candidate": "crf-balanced", "steps": ["vetoes.v1"],
        "tried": {"english-floor.v1": {"changed": True, "kept": False, "dev_before": 0.9,
                                       "dev_after": 0.88}}},
        starter_floor={"labels": ["NAME", "LOCATION"], "left_out": ["DATE"],
                       "precision": {"DATE": 0.2}, "tokens": {"DATE": 500}})
    with Project.create(path, list(PRESETS["hipaa"])) as project:
        run_id = project.start_run("train", {})
        project.finish_run(run_id, "done", run.metrics())
        set_active_run(project, run_id)
    assert window.open_project(path)
    choose(qtbot, window, "Go", "Rules")
    table = window.rules.table
    steps = {table.item(r, 1).text(): (table.item(r, 2).text(), table.item(r, 4).text())
             for r in range(table.rowCount())}
    place = next(step for kind, step in steps.values()
                 if kind == "finds place" and step.startswith("english-floor.v1"))
    assert place == "english-floor.v1 — off for the model; day-one finds kept"
    assert steps["numeric-date"][1] == "english-floor.v1 — not run by the model in use"
    assert steps["ordinary-words"][1] == "vetoes.v1"                     # a step it runs
