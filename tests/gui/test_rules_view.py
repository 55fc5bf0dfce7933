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
