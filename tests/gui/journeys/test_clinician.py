"""Clinician journey (the part before the export): a new project, a folder
imported with its patient pattern, a quick model trained, a note opened,
Preview showing it side by side with the model's redaction, a label's
strategy switched live, a missed identifier flagged back into the
annotations. (Export with the chosen strategy and the leak review are the
redaction journey's, tests/gui/test_export_journey.py.)"""
from __future__ import annotations

import pytest

from app.gui.qt import QCheckBox, QGroupBox, Qt

from journey import (click, go, import_folder, new_project, open_row, row_values,
                     screenshot, select_text, shown, spans_shown, write_synth)

pytestmark = pytest.mark.slow


def _train_quick(qtbot, w) -> None:
    """Train view: Quick, crf on balanced data and the rules, majority voting."""
    go(qtbot, w, "Train")
    t = w.training
    qtbot.keyClick(t.budget_box, Qt.Key_Up)
    for group, texts in (("Base models", ["spacy", "stanza", "flair", "imbalanced data"]),
                         ("Ensembles", ["Pruned voting", "Stacking"])):
        box_group = next(g for g in t.findChildren(QGroupBox) if g.title() == group)
        boxes = {b.text(): b for b in box_group.findChildren(QCheckBox)}
        for text in texts:
            if boxes[text].isChecked():
                click(qtbot, boxes[text])
    with qtbot.waitSignal(t.trained, timeout=240000):
        click(qtbot, t.train_button)


def test_clinician_journey(qtbot, settings, tmp_path, monkeypatch):
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "clinic.deid")
    import_folder(qtbot, w, monkeypatch, write_synth(tmp_path / "notes", 30),
                  pattern=r"^(P\d+)_")
    assert row_values(w, "P0001_note_0001")["Patient"] == "P0001"
    _train_quick(qtbot, w)

    # A test note, opened from the list, then Preview (Ctrl+4).
    go(qtbot, w, "Documents")
    qtbot.keyClick(w.documents.split_box, Qt.Key_End)               # "test" notes only
    model = w.documents.table.model()
    name = model.data(model.index(0, 0))
    qtbot.keyClick(w.documents.split_box, Qt.Key_Home)
    open_row(qtbot, w, name)
    note = w.editor.text_view.toPlainText()
    go(qtbot, w, "Preview")
    p = w.preview
    assert p.title.text() == name and p.original.toPlainText() == note
    qtbot.waitUntil(lambda: not p.status.text().startswith("Predicting"), timeout=120000)
    assert p.mode_box.currentData() == "model"                       # what an export writes
    redacted = p.redacted.toPlainText()
    assert redacted != note and "<**PERSON**>" in redacted                # tags by default
    for button in (p.prev_button, p.next_button, p.miss_button, p.save_policy_button):
        assert button.isEnabled()
    click(qtbot, p.next_button)                                     # the least sure span first
    assert p.position_label.text().startswith("Span 1 of") and p.false_button.isEnabled()

    # PERSON -> surrogate, live.
    row = next(r for r in range(p.strategy_table.rowCount())
               if p.strategy_table.item(r, 0).text() == "PERSON")
    box = p.strategy_table.cellWidget(row, 1)
    box.setFocus()
    while box.currentText() != "surrogate":
        qtbot.keyClick(box, Qt.Key_Down)
    assert "<**PERSON**>" not in p.redacted.toPlainText()

    # A missed identifier: select it in the original, pick its label, Flag missed.
    first = note.split()[0]
    start = note.index(first)
    select_text(qtbot, p.original, start, start + len(first))
    p.miss_label.setFocus()
    while p.miss_label.currentText() != "ADDRESS":
        qtbot.keyClick(p.miss_label, Qt.Key_Down)
    click(qtbot, p.miss_button)
    assert "Correction saved" in w.statusBar().currentMessage()
    screenshot(w, "preview")
    go(qtbot, w, "Annotate")                          # the note open there shows it at once
    assert f"✓ ADDRESS: {first}" in spans_shown(w)
    w.close()
