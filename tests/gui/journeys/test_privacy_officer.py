"""Privacy officer journey (issue 20): export, the leak scan's suspicions, one
opened in Preview at its place, then the residual-risk review: a random
sample of the export read side by side with the originals, the identifiers
left marked, the review signed, and the measured bound in the audit report.
Menus, keys and clicks only; file dialogs answered by a patched QFileDialog."""
from __future__ import annotations

import json
import re

import pytest

from app.core.words import count
from app.gui.qt import QApplication, QDesktopServices, QTextBrowser, Qt

from journey import (click, export, import_folder, new_project, screenshot, shown, table_rows,
                     view_shown, wheel, write_synth)

pytestmark = pytest.mark.slow


def _select(qtbot, view, start: int, end: int) -> None:
    """Select [start, end) of a plain text view with a click and a Shift+click."""
    def point(offset):
        cursor = view.textCursor()
        cursor.setPosition(offset)
        return view.cursorRect(cursor).center()
    view.ensureCursorVisible()
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=point(start))
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.ShiftModifier, pos=point(end))


def test_privacy_officer_journey(qtbot, settings, tmp_path, monkeypatch):
    from app.deid.audit import risk_sentence
    from app.gui.main_window import MainWindow
    settings.setValue("annotator", "R. Officer")
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "ward.deid")
    import_folder(qtbot, w, monkeypatch, write_synth(tmp_path / "notes", 12), pattern=r"^(P\d+)_")
    # Annotated notes: nothing to suggest, and the status says so (not "0 new note(s)").
    assert w.statusBar().currentMessage() == \
        "The imported notes are annotated already: nothing to suggest"
    # The import summary said what the paper's labels leave in clear in these notes.
    said = w.summary_dialog.text.text()
    assert "dates other than dates of birth: the rules find" in said
    assert "no label takes them, so they stay in clear" in said

    # File > Export (Ctrl+E), no model yet: the rules only, names stay in clear.
    out = tmp_path / "export"
    wizard = export(qtbot, w, monkeypatch, out)
    assert "Leak scan:" in wizard.summary_label.text() and "suspected identifier" in \
        wizard.summary_label.text()
    table = wizard.suspicion_table
    assert table.isVisible() and table.rowCount() > 0
    wizard.resize(900, 620)
    screenshot(wizard, "leak_review")

    # A suspicion of a known name opens the note in Preview, side by side, at its place
    # (the summary's table: the words in context on this screen, the notes, why; the
    # report: where, never the text).
    row = next(r for r, (_, notes, what, _) in enumerate(table_rows(table))
               if ("known identifier" in what or "known name" in what) and notes.endswith(".txt"))
    in_context, note, what, _ = table_rows(table)[row]
    words = re.search(r"\[(.*)\]", in_context).group(1)
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    # Every suspicion is listed (not the first 10 of them), a repeat as one row
    # that counts it, one count everywhere.
    leaks = report["totals"]["leaks"]
    assert sum(int(re.search(r"(\d+)×", n).group(1)) if "×" in n else 1
               for _, n, _, _ in table_rows(table)) == \
        leaks == sum(len(n["suspicions"]) for n in report["per_note"])
    assert f"Leak scan: {count(leaks, 'suspected identifier')} in " \
        f"{count(report['totals']['notes_with_leaks'], 'note')}</b>" in wizard.summary_label.text()
    original = (tmp_path / "notes" / note).read_text(encoding="utf-8")     # what was imported
    first = next(s for n in report["per_note"] if n["note"] == note for s in n["suspicions"]
                 if " ".join(original[s["in_start"]:s["in_end"]].split()) == words)
    in_start, in_end = first["in_start"], first["in_end"]
    qtbot.mouseClick(table.viewport(), Qt.LeftButton,
                     pos=table.visualItemRect(table.item(row, 1)).center())
    qtbot.keyClick(table, Qt.Key_Return)
    assert view_shown(w) == "Preview" and w.preview.title.text() == note.removesuffix(".txt")
    assert w.preview.original.textCursor().selectedText() == original[in_start:in_end]
    qtbot.waitUntil(lambda: not w.preview.status.text().startswith("Predicting"), timeout=60000)
    assert w.preview.original.textCursor().selectedText() == \
        original[in_start:in_end]                                # still there, both sides
    assert w.preview.redacted.textCursor().selectedText() == \
        (out / note).read_text(encoding="utf-8")[first["start"]:first["end"]]
    # It says what is selected and what to do, the suspicion's label ready to flag.
    category = what.rsplit("flags ", 1)[-1]
    assert w.preview.info.text().startswith(
        f"Selected on both sides: a suspected leak ({category}). If it identifies someone")
    assert w.preview.miss_label.currentText() == category
    screenshot(w, "leak_in_preview")

    # The residual-risk review of this export, from the summary.
    click(qtbot, wizard.review_button)
    review = w.audit_dialog
    qtbot.waitExposed(review)
    review.activateWindow()                    # the reviewer works in the review window
    qtbot.waitUntil(review.isActiveWindow)
    review.resize(1180, 700)
    assert review.reviewer.text() == "R. Officer"
    notes = [review.note_list.item(r).text().strip() for r in range(review.note_list.count())]
    assert len(notes) == 12                               # 59 asked for, all 12 drawn
    assert "(if none leaks: at most 22.1 % of its notes leak, 95 % confidence)" in \
        review.intro.text()
    assert not review.sign_button.isEnabled()
    # The suspected note beside its original; what is left in clear, marked.
    row = notes.index(note)
    item = review.note_list.item(row)
    qtbot.mouseClick(review.note_list.viewport(), Qt.LeftButton,
                     pos=review.note_list.visualItemRect(item).center())
    assert review.original_title.text() == f"Original ({note.removesuffix('.txt')})"
    assert review.original.toPlainText() == original
    assert review.redacted.toPlainText() == (out / note).read_text(encoding="utf-8")
    # What the export replaced is shaded, so the reader looks at the rest.
    written = review.redacted.toPlainText()
    shaded = [(sel.cursor.selectionStart(), sel.cursor.selectionEnd())
              for sel in review.redacted.extraSelections()
              if sel.format.background().color().name() == "#e3e3e3"]
    # ... and where the export's leak scan suspects one is orange, said beside the count.
    suspected = [(sel.cursor.selectionStart(), sel.cursor.selectionEnd())
                 for sel in review.redacted.extraSelections()
                 if sel.format.background().color().name() == "#ffd27f"]
    assert suspected and "the leak scan suspects" in review.count_label.text()
    replaced = [(d["start"], d["end"]) for d in map(json.loads, (out / note).with_suffix(
        ".spans.jsonl").read_text(encoding="utf-8").splitlines())]
    assert shaded == replaced and all(written[a:b].startswith("<**") for a, b in shaded)
    assert "grey: what the export replaced" in review.intro.text()
    # The original follows the de-identified text as the reader scrolls it.
    wheel(qtbot, review.redacted.viewport(), -40)                      # down to its end
    read = review.redacted.verticalScrollBar()
    assert read.value() >= read.maximum() - 1        # (the last lines are laid out lazily)
    follows = review.original.verticalScrollBar()
    assert follows.maximum() > 0 and follows.value() >= follows.maximum() - 1    # at its end
    _select(qtbot, review.redacted, first["start"], first["end"])     # the reader sees it there
    qtbot.keyClick(review.redacted, Qt.Key_M)
    assert review.count_label.text().startswith("Identifiers left in this note: 1")
    screenshot(review, "audit_review")
    for _ in notes:                                        # every note read: Ctrl+Enter
        qtbot.keyClick(review.redacted, Qt.Key_Return, Qt.ControlModifier)
    assert review.progress_label.text() == "12 of 12 notes reviewed"
    assert review.note_list.item(row).text() == f"✓ {note} — 1 left"
    click(qtbot, review.sign_button)
    if "press Sign review again" in review.result_label.text():
        # Notes read clean where the scan suspects something: said before signing.
        assert "Signed by" not in review.result_label.text()
        click(qtbot, review.sign_button)
    sentence = risk_sentence(1, 12, "notes")
    assert sentence in review.result_label.text()
    assert "Signed by R. Officer" in review.result_label.text()

    # The audit report now leads with the measured residual risk.
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl",
                        lambda url: opened.append(url) or True)          # the browser
    click(qtbot, review.report_button)
    html = (out / "deid-report.html").read_text(encoding="utf-8")
    assert opened and opened[0].toLocalFile().endswith("deid-report.html")
    assert sentence in html and "R. Officer" in html
    assert html.index("Residual risk") < html.index("What was removed")
    # The scan in a sentence, its counts the summary's, and no JSON dumped.
    assert f"The leak scan suspects {leaks} identifiers left in clear in " \
        f"{report['totals']['notes_with_leaks']} notes." in html
    assert '"strategies"' not in html and "{'" not in html
    # What the paper's labels leave in clear, in words.
    assert "have no label in this project, so nothing replaces them" in html
    assert "e-mail addresses" in html
    report = QTextBrowser()
    report.setHtml(html)
    report.resize(1000, 1300)
    qtbot.addWidget(report)
    screenshot(report, "audit_report")
    review.close()
    # Opened again, the review shows what was signed (it drew a new sample,
    # saying nothing); a new sample is asked for.
    click(qtbot, wizard.review_button)
    again = w.audit_dialog
    qtbot.waitExposed(again)
    assert "Signed by R. Officer" in again.result_label.text() and sentence in \
        again.result_label.text()
    assert again.progress_label.text() == "12 of 12 notes reviewed"
    assert not again.sign_button.isEnabled() and again.new_sample_button.isVisible()
    # Its report moved away meanwhile: said, not handed to the browser.
    opened.clear()
    moved = out.with_name(out.name + "-moved")
    out.rename(moved)
    click(qtbot, again.report_button)
    assert not opened and "no longer at" in again.result_label.text()
    moved.rename(out)
    click(qtbot, again.new_sample_button)
    assert again.progress_label.text() == "0 of 12 notes reviewed"
    assert not again.new_sample_button.isVisible() and not again.result_label.text()
    again.close()
    wizard.close()
    QApplication.processEvents()
    w.close()
