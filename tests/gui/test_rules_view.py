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
