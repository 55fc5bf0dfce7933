"""A hospital imports annotated notes whose labels its project lacks, and a
note in another encoding: the import summary lists what it read with a
warning, and Preview offers a strategy for every label the notes brought.
Menus, keys and clicks only; file dialogs answered by a patched QFileDialog."""
from __future__ import annotations

import pytest

from journey import go, import_folder, new_project, screenshot, shown, write_synth

pytestmark = pytest.mark.slow


def test_imported_labels_reach_preview_and_warnings_are_shown(qtbot, settings, tmp_path,
                                                               monkeypatch):
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "ward.deid", preset="hipaa")
    before = {label.name for label in w.project.labels()}
    notes = write_synth(tmp_path / "notes", 6)                  # under the paper's labels
    (notes / "P9_latin.txt").write_bytes("Patient: Ren\u00e9e M\u00fcller, seen today.\n"
                                         .encode("cp1252"))
    import_folder(qtbot, w, monkeypatch, notes, pattern=r"^(P\d+)_")
    dialog = w.summary_dialog
    added = {label.name for label in w.project.labels()} - before
    assert "PERSON" in added and "New labels: " in dialog.text.text()
    # The warning it counts is there to read, with the note it concerns.
    assert "1 warning" in dialog.text.text()
    table = dialog.warnings
    assert not table.isHidden() and table.rowCount() == 1
    assert table.item(0, 0).text() == "P9_latin"
    assert "not UTF-8" in table.item(0, 1).text()
    assert dialog.problems.isHidden()
    dialog.show()
    screenshot(dialog, "import_summary_warning")
    dialog.hide()

    go(qtbot, w, "Preview")
    p = w.preview
    rows = [p.strategy_table.item(r, 0).text() for r in range(p.strategy_table.rowCount())]
    assert sorted(rows) == sorted(before | added)
    assert {p.miss_label.itemText(i) for i in range(p.miss_label.count())} == before | added
    screenshot(p, "preview_after_import_labels")
