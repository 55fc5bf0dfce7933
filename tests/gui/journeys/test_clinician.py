"""Clinician journey: a new project, a folder imported with its patient
pattern, a quick model trained, a note opened, Preview showing it side by
side with the model's redaction, a label's strategy switched, a missed
identifier flagged back into the annotations, the export (the files use the
chosen strategy), a suspected leak opened from the export summary, flagged,
and the export again: fixed. Menus, keys, clicks, answered file dialogs."""
from __future__ import annotations

import pytest

from app.gui.qt import Qt

import json
import re

from journey import (choose, click, export, go, import_folder, new_project, open_row, pick, row_values,
                     screenshot, select_text, shown, spans_shown, table_rows, train_quick,
                     view_shown, write_synth)

pytestmark = pytest.mark.slow


def test_clinician_journey(qtbot, settings, tmp_path, monkeypatch):
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "clinic.deid")
    import_folder(qtbot, w, monkeypatch, write_synth(tmp_path / "notes", 30),
                  pattern=r"^(P\d+)_")
    assert row_values(w, "P0001_note_0001")["Patient"] == "P0001"
    train_quick(qtbot, w)

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
    pick(qtbot, p.strategy_table.cellWidget(row, 1), "surrogate")
    assert "<**PERSON**>" not in p.redacted.toPlainText()

    # A missed identifier: select it in the original, pick its label, Flag missed.
    first = note.split()[0]
    start = note.index(first)
    select_text(qtbot, p.original, start, start + len(first))
    pick(qtbot, p.miss_label, "ADDRESS")
    click(qtbot, p.miss_button)
    assert "Correction saved" in w.statusBar().currentMessage()
    shown_now = p.redacted.toPlainText()
    screenshot(w, "preview")
    go(qtbot, w, "Annotate")                          # the note open there shows it at once
    assert f"✓ ADDRESS: {first}" in spans_shown(w)

    # File > Export: what Preview showed is what is written, PERSON as surrogates.
    out = tmp_path / "export"
    wizard = export(qtbot, w, monkeypatch, out)
    # The plan named the model it runs, in words and by name.
    from app.services.runs import active_run
    assert "the model in use, " in wizard.plan_label.text()
    assert f"({active_run(w.project).selected})" in wizard.plan_label.text()
    assert (out / f"{name}.txt").read_text(encoding="utf-8") == shown_now
    written = "".join(f.read_text(encoding="utf-8") for f in out.glob("*.txt"))
    assert "<**PERSON**>" not in written and "<**ADDRESS**>" in written
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    assert report["per_label"]["PERSON"]["strategy"] == "surrogate"

    # A suspected leak, from the summary's table to Preview, flagged there.
    table = wizard.suspicion_table
    rows = table_rows(table)
    assert rows and "Leak scan:" in wizard.summary_label.text()
    # The suspected words in context, the note, why and the label a flag takes.
    k = next(r for r, row in enumerate(rows) if row[1].endswith(".txt"))
    in_context, suspect, what, status = rows[k]
    assert status == ""
    qtbot.mouseClick(table.viewport(), Qt.LeftButton,
                     pos=table.visualItemRect(table.item(k, 1)).center())
    qtbot.keyClick(table, Qt.Key_Return)
    assert view_shown(w) == "Preview" and p.title.text() == suspect.removesuffix(".txt")
    assert " ".join(p.original.textCursor().selectedText().split()) == \
        re.search(r"\[(.*)\]", in_context).group(1)
    label = what.rsplit("flags ", 1)[-1]
    labels = [p.miss_label.itemText(i) for i in range(p.miss_label.count())]
    pick(qtbot, p.miss_label, label if label in labels else "PERSON")
    click(qtbot, p.miss_button)
    assert "Correction saved" in w.statusBar().currentMessage()
    assert p.info.text().startswith("Flagged as a missed identifier")
    assert table_rows(table)[k] == [in_context, suspect, what, "flagged"]      # the summary too
    wizard.close()

    # Export again into the same folder: that note is redone and the suspicion gone.
    wizard = export(qtbot, w, monkeypatch, out)
    assert [in_context, suspect, what] not in [r[:3] for r in table_rows(wizard.suspicion_table)]
    assert "1 written before, redone: its annotations changed" in wizard.summary_label.text()
    screenshot(wizard, "export_summary")
    wizard.close()

    # File > Close project: Preview keeps nothing of the note it showed.
    choose(qtbot, w, "File", "Close project")
    go(qtbot, w, "Preview")
    assert p.title.text() == "No document" and p.original.toPlainText() == ""
    assert p.position_label.text() == "" and p.status.text() == ""
    assert p.info.text() == "Click a span to see where it came from."
    w.close()


def test_day_one_preview_shows_what_the_export_writes(qtbot, settings, tmp_path, monkeypatch):
    """A new English project, nothing trained: the export runs the shipped
    starter model, and Preview showed the rules' redaction instead (the
    address the starter finds stayed in clear on screen only)."""
    from app.gui.main_window import MainWindow
    from gui_helpers import write_brat
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "day1.deid")
    import_folder(qtbot, w, monkeypatch, write_brat(tmp_path / "notes"), pattern=r"^(P\d+)_")
    open_row(qtbot, w, "P2_a")
    go(qtbot, w, "Preview")
    p = w.preview
    qtbot.waitUntil(lambda: not p.status.text().startswith("Predicting"), timeout=120000)
    assert "the rules" not in p.status.text()
    on_screen = p.redacted.toPlainText()
    export(qtbot, w, monkeypatch, tmp_path / "export").close()
    assert (tmp_path / "export" / "P2_a.txt").read_text(encoding="utf-8") == on_screen
    assert "4 High St Perth" not in on_screen
    w.close()
