"""File > Hospital lists…: add a list file through the dialog, see its count, remove it."""
from __future__ import annotations

from app.gui.qt import QFileDialog, QMessageBox, Qt


def _action(window, text):
    file_menu = window.menuBar().actions()[0].menu()
    return next(a for a in file_menu.actions() if a.text().replace("&", "") == text)


def test_add_and_remove_a_list_from_the_file_menu(window, qtbot, tmp_path, monkeypatch):
    assert window.new_project(tmp_path / "p.deid", "paper")
    staff = tmp_path / "staff.txt"
    staff.write_text("QUILLAN\nTibbs\n", encoding="utf-8")
    table = tmp_path / "pt.csv"
    table.write_text("ID,SURNAME\np1,Varga\np2,Moss\n", encoding="utf-8")
    _action(window, "Hospital lists…").trigger()
    dialog = window.lists_dialog
    assert dialog.isVisible() and dialog.table.rowCount() == 0
    dialog.kind.setCurrentText("staff")
    assert not dialog.remove_button.isEnabled()           # no staff list to remove yet
    assert "as PERSON: patients' names and staff names;" in dialog.labels_label.text()   # paper

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(staff), ""))
    dialog.kind.setCurrentText("staff")
    with qtbot.waitSignal(dialog.changed, timeout=10000):
        qtbot.mouseClick(dialog.add_button, Qt.LeftButton)
    assert dialog.status.text() == "staff: read 2 entries; 2 new, 0 already there."
    assert [dialog.table.item(0, c).text() for c in (0, 1)] == ["staff", "2"]

    # A patient table with its columns mapped; a bad mapping is refused, plainly.
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(table), ""))
    dialog.kind.setCurrentText("patients")
    qtbot.keyClicks(dialog.mapping, "patient_id=ID last_name=NOPE")
    with qtbot.waitSignal(dialog.runner.failed, timeout=10000):
        qtbot.mouseClick(dialog.add_button, Qt.LeftButton)
    assert dialog.status.text() == (
        "Not added: pt.csv has no column 'NOPE' (mapped to last_name).\nIts columns: ID, "
        "SURNAME. If they hold the patient id and a patient's names, date of birth, record "
        "numbers, phones or addresses, write FIELD=COLUMN in the box above (fields: "
        "patient_id, first_name, last_name, other_names, dob, record_numbers, phones, "
        "addresses) and Add file… again; "
        "a file that only links notes to patients is no patient table.")
    assert "--map" not in dialog.status.text()
    dialog.mapping.clear()
    qtbot.keyClicks(dialog.mapping, "patient_id=ID last_name=SURNAME")
    with qtbot.waitSignal(dialog.changed, timeout=10000):
        qtbot.mouseClick(dialog.add_button, Qt.LeftButton)
    assert dialog.table.item(0, 1).text() == "2 (2 patients)"
    assert "Varga" not in dialog.status.text()                          # counts only

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    dialog.kind.setCurrentText("staff")
    assert dialog.remove_button.text().replace("&", "") == "Remove the staff list"
    qtbot.mouseClick(dialog.remove_button, Qt.LeftButton)
    assert dialog.status.text() == "staff: removed 2 entries."
    assert not dialog.remove_button.isEnabled()
    assert window.project.list_counts() == {"patients": {"entries": 2, "patients": 2}}
