"""Clinician journey, issue 18 item 2: the strategy chosen in Preview reaches
the export and its audit report; Preview shows what is exported. Keys and
clicks only; file dialogs answered by a patched QFileDialog."""
from __future__ import annotations

import json
import re

from app.core.words import count
from app.gui.qt import QFileDialog, Qt

from journeys.journey import pick
from test_main_window import _key, _open_row, _shown


def test_strategy_chosen_in_preview_is_exported(imported, qtbot, tmp_path, monkeypatch):
    w = _shown(imported, qtbot)
    _open_row(qtbot, w, "P1_a")
    _key(qtbot, w, Qt.Key_4, Qt.ControlModifier)                      # Go > Preview
    preview = w.preview
    # The user waits until the status no longer says it is predicting.
    qtbot.waitUntil(lambda: "Predicting" not in preview.status.text(), timeout=20000)
    table = preview.strategy_table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "PERSON")
    pick(qtbot, table.cellWidget(row, 1), "surrogate")               # its list, arrows, Enter
    shown = preview.redacted.toPlainText()
    assert "Ann Lee" not in shown and "<**PERSON**>" not in shown
    assert "1234567" not in shown                 # the rules replace the MRN, as the export will

    out = tmp_path / "export"
    _export(w, qtbot, out, monkeypatch)                               # File > Export
    exported = (out / "P1_a.txt").read_text(encoding="utf-8")
    assert exported == shown                                           # byte for byte
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    assert report["per_label"]["PERSON"]["strategy"] == "surrogate"
    assert report["policy"]["strategies"]["PERSON"] == "surrogate"


def _export(w, qtbot, out, monkeypatch):
    """File > Export into ``out`` (the folder dialog answered), to the summary."""
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    wizard = _new_wizard(w, qtbot)
    qtbot.waitExposed(wizard)
    qtbot.mouseClick(wizard.next_button, Qt.LeftButton)
    browse = next(b for b in wizard.stack.currentWidget().findChildren(type(wizard.next_button))
                  if b.text().startswith("Browse"))
    qtbot.mouseClick(browse, Qt.LeftButton)
    # The notes are named with their patient ids ("P1_a"): the wizard names
    # them pseudonymously unless asked; these journeys read the notes by name.
    if wizard.naming_box.currentData() == "pseudonymous":
        pick(qtbot, wizard.naming_box, "Same names as in the project")
        assert "under the same names the exported files keep it" in wizard.naming_hint.text()
    qtbot.mouseClick(wizard.next_button, Qt.LeftButton)
    with qtbot.waitSignal(wizard.exported, timeout=60000) as blocker:
        qtbot.mouseClick(wizard.start_button, Qt.LeftButton)
    return wizard, blocker.args[0]


def _rows(table):
    return [[table.item(r, c).text() for c in range(table.columnCount())]
            for r in range(table.rowCount())]


def test_a_suspected_leak_opens_in_preview_and_a_flagged_miss_fixes_the_export(
        imported, qtbot, tmp_path, monkeypatch):
    """Issue 18 item 5: from a suspected leak to the note, side by side, and fixed."""
    w = _shown(imported, qtbot)
    out = tmp_path / "export"
    wizard, outcome = _export(w, qtbot, out, monkeypatch)
    # "Ann Lee" is annotated in P1_a; the rules miss it in P1_b: the scan knows the name.
    rows = _rows(wizard.suspicion_table)
    # The suspected words with their context, on screen; the label a flag takes.
    assert ["P1_b.txt", "a known identifier of this patient — flags PERSON"] in [
        r[1:3] for r in rows]
    assert "Ann Lee" in (out / "P1_b.txt").read_text(encoding="utf-8")
    row = [r[1] for r in rows].index("P1_b.txt")
    assert "reviewed MRN" in rows[row][0] and "[Ann Lee]" in rows[row][0]
    table = wizard.suspicion_table
    rect = table.visualItemRect(table.item(row, 1))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.keyClick(table, Qt.Key_Return)                   # open the selected suspicion
    assert w.current_view() == "Preview" and w.preview.title.text() == "P1_b"
    assert w.preview.original.textCursor().selectedText() == "Ann Lee"
    assert w.preview.miss_label.currentText() == "PERSON"
    qtbot.mouseClick(w.preview.miss_button, Qt.LeftButton)
    assert "Ann Lee" not in w.preview.redacted.toPlainText()
    wizard.close()
    wizard, outcome = _export(w, qtbot, out, monkeypatch)
    assert "Ann Lee" not in (out / "P1_b.txt").read_text(encoding="utf-8")
    assert ["P1_b.txt", "a known identifier of this patient — flags PERSON"] not in [
        r[1:3] for r in _rows(wizard.suspicion_table)]
    # "Bob Ray phoned": no label, but the shipped name lists still see "Bob", in
    # both notes of P1: one row.
    assert ["[Bob]", "2× in 2 notes", "a first name, surname or place of the shipped "
            "lists, with a capital — flags PERSON"] in [
        [re.search(r"\[.*\]", r[0]).group()] + r[1:3] for r in _rows(wizard.suspicion_table)]
    assert outcome.summary.redone() == {"its annotations changed": 1}


def test_not_a_leak_closes_a_suspicion(imported, qtbot, tmp_path, monkeypatch):
    w = _shown(imported, qtbot)
    out = tmp_path / "export"
    wizard, _ = _export(w, qtbot, out, monkeypatch)
    table = wizard.suspicion_table
    before = table.rowCount()
    assert before >= 1
    qtbot.mouseClick(table.viewport(), Qt.LeftButton,
                     pos=table.visualItemRect(table.item(0, 1)).center())
    qtbot.mouseClick(wizard.dismiss_button, Qt.LeftButton)
    assert table.rowCount() == before - 1
    wizard.close()
    wizard, outcome = _export(w, qtbot, out, monkeypatch)       # every note kept: resumed
    assert outcome.summary.count("resumed") == 3
    assert wizard.suspicion_table.rowCount() == before - 1


def test_residual_risk_review_from_the_file_menu(imported, qtbot, tmp_path, monkeypatch):
    """File > Residual-risk review of an export…: the folder asked, its sample
    shown beside the originals; a folder holding no export says so."""
    w = _shown(imported, qtbot)
    out = tmp_path / "export"
    wizard, _ = _export(w, qtbot, out, monkeypatch)
    wizard.close()
    action = next(a for top in w.menuBar().actions() if top.text().replace("&", "") == "File"
                  for a in top.menu().actions()
                  if a.text().replace("&", "").startswith("Residual-risk review"))
    warned = []
    from app.gui.qt import QMessageBox
    monkeypatch.delattr(w, "show_error")         # the fixture's fail-on-error: the real box here
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: warned.append(a[2]))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tmp_path))
    action.trigger()                                      # not an export
    assert warned and "holds no export" in warned[0]
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    action.trigger()
    review = w.audit_dialog
    qtbot.waitExposed(review)
    listed = [review.note_list.item(r).text().strip() for r in range(review.note_list.count())]
    assert listed == ["P1_a.txt", "P1_b.txt", "P2_a.txt"]           # 59 asked, all 3
    shown = review.note_list.currentItem().text().strip()
    assert review.redacted.toPlainText() == (out / shown).read_text(encoding="utf-8")
    assert review.original_title.text() == f"Original ({shown.removesuffix('.txt')})"
    assert review.progress_label.text() == "0 of 3 notes reviewed"
    # It opens within the screen (it asked for 1180x700, more than a small laptop has).
    free = review.screen().availableGeometry()
    assert review.width() <= free.width() and review.height() <= free.height()
    # A stand-in the export wrote is no identifier left: the mark is refused.
    from app.services.auditing import replacements_in
    start, end = replacements_in(out, shown)[0]
    cursor = review.redacted.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(end, cursor.MoveMode.KeepAnchor)
    review.redacted.setTextCursor(cursor)
    qtbot.keyClick(review.redacted, Qt.Key_M)
    assert "stand-in" in review.count_label.text() and not review.marks.get(shown)
    # A note read is kept when the window closes before the review is signed,
    # and so are its marks (its "1 left" became 0 when read again).
    written = review.redacted.toPlainText()
    outside = max(range(len(written)), key=lambda i: all(
        not (a <= i < b) for a, b in replacements_in(out, shown)) and written[i].isalpha())
    cursor.setPosition(outside)
    cursor.setPosition(outside + 1, cursor.MoveMode.KeepAnchor)
    review.redacted.setTextCursor(cursor)
    qtbot.keyClick(review.redacted, Qt.Key_M)
    qtbot.keyClick(review.redacted, Qt.Key_Return, Qt.ControlModifier)
    review.close()
    action.trigger()
    review = w.audit_dialog
    qtbot.waitExposed(review)
    assert review.progress_label.text() == "1 of 3 notes reviewed"
    review.note_list.setCurrentRow(review.notes.index(shown))
    assert review.count_label.text().startswith("Identifiers left in this note: 1")
    qtbot.keyClick(review.redacted, Qt.Key_Return, Qt.ControlModifier)     # read again
    assert review.counts[shown] == 1
    # The export moved away under the review: said, and nothing more counted,
    # by the button or its key.
    out.rename(tmp_path / "moved")
    other = next(i for i, n in enumerate(review.notes) if n not in review.counts)
    review.note_list.setCurrentRow(review.notes.index(shown))
    review.note_list.setCurrentRow(other)
    assert "cannot be read" in review.result_label.text()
    assert not review.reviewed_button.isEnabled() and review.redacted.toPlainText() == ""
    qtbot.keyClick(review.redacted, Qt.Key_Return, Qt.ControlModifier)
    assert review.notes[other] not in review.counts
    # Back where it was, the review goes on.
    (tmp_path / "moved").rename(out)
    review.note_list.setCurrentRow(other - 1 if other else other + 1)
    assert "cannot be read" not in review.result_label.text() and review.reviewed_button.isEnabled()
    review.close()


def _click_row(qtbot, table, row):
    qtbot.mouseClick(table.viewport(), Qt.LeftButton,
                     pos=table.visualItemRect(table.item(row, 1)).center())


def test_the_same_suspicion_is_one_row_judged_at_once_and_the_count_follows(
        imported, qtbot, tmp_path, monkeypatch):
    """Issue 34 item 7: repeats grouped, a whole group flagged (under the
    label its kind takes) or dismissed, the red count updated, and "Export
    again into this folder" remembers the folder."""
    w = _shown(imported, qtbot)
    out = tmp_path / "export"
    wizard, outcome = _export(w, qtbot, out, monkeypatch)
    table = wizard.suspicion_table
    leaks = outcome.leaks
    assert f"Leak scan: {count(leaks, 'suspected identifier')}" in wizard.summary_label.text()
    rows = _rows(table)
    bob = next(r for r, row in enumerate(rows) if "[Bob]" in row[0])
    assert rows[bob][1] == "2× in 2 notes" and rows[bob][2].endswith("flags PERSON")
    _click_row(qtbot, table, bob)
    qtbot.mouseClick(wizard.flag_button, Qt.LeftButton)                # both places at once
    assert not any("[Bob]" in row[0] for row in _rows(table))
    assert f"Leak scan: {count(leaks - 2, 'suspected identifier')}" in wizard.summary_label.text()
    for name in ("P1_a", "P1_b"):
        doc = next(i.id for i in w.project.document_infos() if i.name == name)
        assert any(w.project.document(doc).text[s.start:s.end] == "Bob" and s.label == "PERSON"
                   for s in w.project.gold_spans(doc))
    left = [r for r in _rows(table)]
    _click_row(qtbot, table, 0)
    qtbot.mouseClick(wizard.dismiss_button, Qt.LeftButton)             # Not a leak
    dismissed = int(re.search(r"(\d+)×", left[0][1]).group(1)) if "×" in left[0][1] else 1
    assert f"Leak scan: {count(leaks - 2 - dismissed, 'suspected identifier')}" in \
        wizard.summary_label.text()
    with qtbot.waitSignal(wizard.exported, timeout=60000):
        qtbot.mouseClick(wizard.again_button, Qt.LeftButton)          # the same folder
    assert "Bob" not in (out / "P1_b.txt").read_text(encoding="utf-8")
    wizard.close()
    assert _new_wizard(w, qtbot).folder_edit.text() == str(out)       # a new export: same folder
    w.export_wizard.close()
    # A project copied from another machine brings a folder this one lacks: not offered.
    w.project.set_setting("last_export_folder", str(tmp_path / "elsewhere" / "export"))
    assert _new_wizard(w, qtbot).folder_edit.text() == ""
    w.export_wizard.close()


def _new_wizard(w, qtbot):
    """Ctrl+E in the main window, active again (as after a click on it): a new
    export wizard."""
    before = w.export_wizard
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    _key(qtbot, w, Qt.Key_E, Qt.ControlModifier)
    assert w.export_wizard is not before
    return w.export_wizard


def _on_screen(widget, rect=None):
    """Where ``widget`` (or ``rect`` of it) is on the screen."""
    from PySide6.QtCore import QRect
    rect = widget.rect() if rect is None else rect
    return QRect(widget.mapToGlobal(rect.topLeft()), rect.size())


def _open_suspicion(qtbot, w, wizard, row):
    """Select a row of the summary's leak list with a click, open it with Enter."""
    _click_row(qtbot, wizard.suspicion_table, row)
    qtbot.keyClick(wizard.suspicion_table, Qt.Key_Return)
    assert w.current_view() == "Preview"


def _import_more(qtbot, w, folder, monkeypatch):
    """File > Import folder… of ``folder``, patient from the name, no split."""
    from app.gui.qt import QApplication
    from journeys.journey import choose
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    choose(qtbot, w, "File", "Import folder…")
    dialog = w.import_dialog
    qtbot.keyClick(dialog.pattern, Qt.Key_A, Qt.ControlModifier)
    qtbot.keyClicks(dialog.pattern, r"^(P\d+)_")
    qtbot.keyClick(dialog.split, Qt.Key_Down)
    with qtbot.waitSignal(w.suggestionsFinished, timeout=20000):
        with qtbot.waitSignal(w.importFinished, timeout=20000):
            qtbot.keyClick(dialog.pattern, Qt.Key_Return)
    qtbot.waitUntil(lambda: w.summary_dialog is not None and w.summary_dialog.isVisible())
    qtbot.keyClick(w.summary_dialog, Qt.Key_Return)                   # its summary closed
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w)


def test_a_suspicion_opened_leaves_the_main_window_as_it_was(
        imported, qtbot, tmp_path, monkeypatch):
    """Walkthrough: opening a leak from the export summary narrowed a
    maximized 1600 px window to 960 px, and it stayed so once the summary
    was closed. Issue 34 item 7: the summary must not hide the leak it
    opened. With no room beside the window, the summary goes over its lower
    part; the leak, even in a note's last line, what the panel says of it
    and Flag missed stay in sight above it."""
    more = tmp_path / "more"
    more.mkdir()
    (more / "P3_a.txt").write_text("Seen by Zed Quill.", encoding="utf-8")
    (more / "P3_a.ann").write_text("T1\tPERSON 8 17\tZed Quill\n", encoding="utf-8")
    long = "".join(f"Day {n}: observations stable, no change.\n" for n in range(1, 80))
    (more / "P3_b.txt").write_text(long + "Plan agreed with Zed Quill.", encoding="utf-8")
    w = _shown(imported, qtbot)
    _import_more(qtbot, w, more, monkeypatch)
    w.showMaximized()
    qtbot.waitUntil(lambda: w.frameGeometry() == w.screen().availableGeometry())
    before = w.geometry()
    wizard, _ = _export(w, qtbot, tmp_path / "export", monkeypatch)
    rows = _rows(wizard.suspicion_table)
    row = next(r for r, row in enumerate(rows) if "[Zed Quill]" in row[0])
    assert rows[row][1] == "P3_b.txt"
    _open_suspicion(qtbot, w, wizard, row)
    preview = w.preview
    qtbot.waitUntil(lambda: not preview.wait_for_prediction(), timeout=20000)
    assert preview.original.textCursor().selectedText() == "Zed Quill"
    assert wizard.isVisible()
    assert w.isMaximized() and w.geometry() == before
    summary = wizard.frameGeometry()
    assert summary.intersects(_on_screen(preview.original))            # it lies over them
    for pane in (preview.original, preview.redacted):
        leak = pane.cursorRect(pane.textCursor())
        assert pane.viewport().rect().contains(leak)
        assert not summary.intersects(_on_screen(pane.viewport(), leak))
    for widget in (preview.info, preview.miss_label, preview.miss_button):
        assert not summary.intersects(_on_screen(widget))
    qtbot.mouseClick(wizard.close_button, Qt.LeftButton)
    assert not wizard.isVisible()
    assert w.isMaximized() and w.geometry() == before
    # The texts use their whole height again.
    assert preview.original.viewport().height() > preview.original.height() - 10


def test_the_summary_steps_beside_the_window_when_the_screen_has_room(
        imported, qtbot, tmp_path, monkeypatch):
    """Issue 34 item 7: with room on the screen, the summary covers none of
    the Preview, and the main window keeps its size and place."""
    w = _shown(imported, qtbot)
    free = w.screen().availableGeometry()
    w.resize(w.minimumSizeHint().width(), free.height() * 3 // 4)
    w.move(free.topLeft())                                  # its frame at the top left
    qtbot.waitUntil(lambda: w.frameGeometry().topLeft() == free.topLeft())
    before = w.geometry()
    wizard, _ = _export(w, qtbot, tmp_path / "export", monkeypatch)
    _open_suspicion(qtbot, w, wizard, 0)
    assert w.geometry() == before
    assert wizard.isVisible()
    assert not wizard.frameGeometry().intersects(w.frameGeometry())
    assert free.contains(wizard.frameGeometry())


def test_the_leak_list_takes_most_of_the_summary(imported, qtbot, tmp_path, monkeypatch):
    """Walkthrough: 765 suspicions shown five rows at a time."""
    w = _shown(imported, qtbot)
    wizard, _ = _export(w, qtbot, tmp_path / "export", monkeypatch)
    table = wizard.suspicion_table
    assert table.isVisible()
    assert table.height() > wizard.height() // 2
    assert wizard.screen().availableGeometry().contains(wizard.frameGeometry())
    # Resizable (its corner dragged, as a window manager does): the list takes the change.
    qtbot.wait(100)                                   # the summary's height settled
    height = table.height()
    wizard.resize(wizard.width(), wizard.height() - 100)
    qtbot.waitUntil(lambda: table.height() == height - 100)


def _status(wizard, row):
    table = wizard.suspicion_table
    column = next(c for c in range(table.columnCount())
                  if table.horizontalHeaderItem(c).text() == "Status")
    return table.item(row, column).text()


def test_a_leak_flagged_in_preview_is_shown_flagged_there_and_in_the_summary(
        imported, qtbot, tmp_path, monkeypatch):
    """Walkthrough: after Flag missed in Preview ("Correction saved to the
    annotations") the panel still said to press Flag missed, and the
    summary's row looked untouched until the next export."""
    w = _shown(imported, qtbot)
    wizard, outcome = _export(w, qtbot, tmp_path / "export", monkeypatch)
    table, leaks = wizard.suspicion_table, outcome.leaks
    rows = _rows(table)
    ann = [r[1] for r in rows].index("P1_b.txt")                 # "Ann Lee", flags PERSON
    bob = next(r for r, row in enumerate(rows) if "[Bob]" in row[0])    # 2× in 2 notes
    assert _status(wizard, ann) == _status(wizard, bob) == ""
    _open_suspicion(qtbot, w, wizard, ann)
    preview = w.preview
    assert "press <b>Flag missed</b>" in preview.info.text()
    qtbot.mouseClick(preview.miss_button, Qt.LeftButton)
    assert w.statusBar().currentMessage() == "Correction saved to the annotations"
    said = preview.info.text()
    assert said.startswith("Flagged as a missed identifier (PERSON), saved to the annotations")
    assert "press" not in said
    assert _status(wizard, ann) == "flagged"
    # The red count is of what is left to judge.
    assert f"Leak scan: {count(leaks - 1, 'suspected identifier')}" in wizard.summary_label.text()
    # A row of two places, one flagged in Preview: it says so, and only so.
    _open_suspicion(qtbot, w, wizard, bob)
    qtbot.mouseClick(preview.miss_button, Qt.LeftButton)
    assert _status(wizard, bob) == "1 of 2 flagged"
    assert f"Leak scan: {count(leaks - 2, 'suspected identifier')}" in wizard.summary_label.text()
    # Flag missed in the summary then records the other place, once.
    _click_row(qtbot, table, bob)
    qtbot.mouseClick(wizard.flag_button, Qt.LeftButton)
    assert not any("[Bob]" in row[0] for row in _rows(table))
    assert f"Leak scan: {count(leaks - 3, 'suspected identifier')}" in wizard.summary_label.text()
    for name in ("P1_a", "P1_b"):
        doc = next(i.id for i in w.project.document_infos() if i.name == name)
        assert sum(w.project.document(doc).text[s.start:s.end] == "Bob"
                   for s in w.project.gold_spans(doc)) == 1


def test_flag_missed_asks_the_label_of_a_row_whose_kind_has_none(imported, qtbot, tmp_path,
                                                                 monkeypatch):
    """A walkthrough's "flags a label you choose" row: Flag missed did
    nothing, no message, no choice. It asks the label once, then records it."""
    from app.gui.qt import QInputDialog
    w = _shown(imported, qtbot)
    doc = next(i.id for i in w.project.document_infos() if i.name == "P2_a")
    text = w.project.document(doc).text
    at = text.index("Moss")
    w.project.add_span(doc, at, at + 2, "PERSON", annotator="ann")    # "Mo", "ss" left glued
    wizard, _ = _export(w, qtbot, tmp_path / "export", monkeypatch)
    table = wizard.suspicion_table
    row = next(r for r, cells in enumerate(_rows(table)) if cells[2].endswith("a label you choose"))
    asked = []

    def choose(parent, title, prompt, items, *args):
        asked.append((prompt, list(items)))
        return "PERSON", True
    monkeypatch.setattr(QInputDialog, "getItem", choose)
    _click_row(qtbot, table, row)
    qtbot.mouseClick(wizard.flag_button, Qt.LeftButton)
    assert asked == [("1 selected row of a kind this project has no label for: flag as",
                      [label.name for label in w.project.labels()])]
    assert table.rowCount() == len(_rows(table)) and not any(
        cells[2].endswith("a label you choose") for cells in _rows(table))
    assert any(s.label == "PERSON" and s.start <= at + 2 and s.end >= at + 4    # "ss" flagged
               for s in w.project.gold_spans(doc))


def test_a_long_summary_scrolls_and_the_dialog_stays_on_the_screen(
        imported, qtbot, tmp_path, monkeypatch):
    """Walkthrough (1366x768): the summary's text, as the label's least
    height, made the dialog taller than the screen, its title bar off the top."""
    from app.gui.export_wizard import SUMMARY_SHARE
    w = _shown(imported, qtbot)
    wizard, _ = _export(w, qtbot, tmp_path / "export", monkeypatch)
    free = wizard.screen().availableGeometry()
    area = wizard.summary_area
    wizard.resize(360, wizard.height())                     # its corner dragged: narrow
    qtbot.waitUntil(lambda: area.height() <= free.height() * SUMMARY_SHARE + 1)
    assert wizard.summary_label.heightForWidth(area.viewport().width()) > area.height() or \
        area.height() < free.height() * SUMMARY_SHARE
    assert free.contains(wizard.frameGeometry())
    assert wizard.suspicion_table.isVisible() and wizard.suspicion_table.height() > 0
