"""Rules journey: a new English project on day one, a note imported and
opened; Go › Rules shows every rule after the models with its switch and
the label it gives; a click switches one off; the site's own pattern is
typed, tested on the open note, added; Preview then replaces what it finds
and its tooltip names the rule. Menus, keys, clicks, answered dialogs."""
from __future__ import annotations

from app.gui.qt import QPoint, Qt

from journey import click, go, key, pick, spans_shown, window_with_note

# A made-up ICU note: "kestrel" is the site's name for a ward pod, which no
# shipped rule or model knows.
NOTE = "NPN 7P-7A\nPT MOVED TO kestrel POD OVERNIGHT. Pager #12345 PAGED.\n"


def _row(view, name: str) -> int:
    return next(r for r in range(view.table.rowCount())
                if view.table.item(r, 1).text().split(" ")[0] == name)


def test_a_site_switches_a_rule_off_and_adds_its_own_pattern(qtbot, settings, tmp_path,
                                                            monkeypatch):
    w = window_with_note(qtbot, settings, tmp_path, monkeypatch, NOTE)
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)                 # Next to annotate

    go(qtbot, w, "Rules")
    view = w.rules
    # Every title starts inside the view, the long last one ("Word sets") too.
    header = view.table.horizontalHeader()
    assert header.defaultAlignment() & Qt.AlignLeft
    assert header.sectionViewportPosition(header.count() - 1) < view.table.viewport().width()
    pager = _row(view, "pager")
    assert [view.table.item(pager, c).text() for c in (2, 3)] == ["finds phone", "CONTACT"]
    assert view.table.item(pager, 0).checkState() == Qt.Checked
    cell = view.table.visualItemRect(view.table.item(pager, 0))
    with qtbot.waitSignal(view.rulesChanged):                       # a click on its box
        qtbot.mouseClick(view.table.viewport(), Qt.LeftButton,
                         pos=QPoint(cell.left() + 10, cell.center().y()))
    assert view.table.item(_row(view, "pager"), 0).checkState() == Qt.Unchecked
    assert "pager (off, shipped)" in view.detail.toPlainText()
    # Another rule's box: the fields shown are of the rule just switched.
    other = _row(view, "reference-number")
    cell = view.table.visualItemRect(view.table.item(other, 0))
    with qtbot.waitSignal(view.rulesChanged):
        qtbot.mouseClick(view.table.viewport(), Qt.LeftButton,
                         pos=QPoint(cell.left() + 10, cell.center().y()))
    assert "reference-number (off, shipped)" in view.detail.toPlainText()

    # The site's own pattern: tested on the open note, then added.
    qtbot.keyClicks(view.name, "kestrel-pod")
    pick(qtbot, view.kind, "ward")
    assert view.kind_label.text() == "→ LOCATION"
    qtbot.keyClicks(view.pattern, r"\bkestrel\b")
    click(qtbot, view.test_button)
    assert view.hits.text() == "1 hit in P1_a: 'kestrel'"
    assert not any("kestrel" in s for s in spans_shown(w))
    with qtbot.waitSignal(w.suggestionsFinished, timeout=120000):   # the notes to do again
        click(qtbot, view.add_button)
    assert view.table.item(view.table.rowCount() - 1, 1).text() == "kestrel-pod (yours)"
    assert view.detail.toPlainText().startswith("name:     kestrel-pod")
    go(qtbot, w, "Annotate")
    assert any(s.endswith("LOCATION: kestrel") for s in spans_shown(w)), spans_shown(w)

    go(qtbot, w, "Preview")
    p = w.preview
    qtbot.waitUntil(lambda: not p.status.text().startswith("Predicting"), timeout=120000)
    assert "kestrel" not in p.redacted.toPlainText()
    tips = [sel.format.toolTip() for sel in p.redacted.extraSelections()]
    assert "LOCATION — the rule “kestrel-pod”" in tips, tips     # named in words
    w.close()


def test_a_pattern_is_tested_on_the_note_read_last_in_preview_or_annotate(qtbot, settings,
                                                                        tmp_path, monkeypatch):
    """A walkthrough wrote a rule while reading Preview's note and "Test on
    the open note" ran on the note open in Annotate: it runs on the note of
    whichever of the two was shown last."""
    from journey import open_row
    w = window_with_note(qtbot, settings, tmp_path, monkeypatch, NOTE,
                         more={"P2_b": "PT TO osprey POD AT 0400. kestrel FULL.\n"})

    open_row(qtbot, w, "P1_a")                                  # Annotate: P1_a
    go(qtbot, w, "Documents")                                   # one click: P2_b picked
    table, model = w.documents.table, w.documents.table.model()
    row = next(r for r in range(model.rowCount()) if model.data(model.index(r, 0)) == "P2_b")
    qtbot.mouseClick(table.viewport(), Qt.LeftButton,
                     pos=table.visualRect(model.index(row, 0)).center())
    go(qtbot, w, "Preview")
    qtbot.waitUntil(lambda: w.preview.doc_id is not None, timeout=60000)
    go(qtbot, w, "Rules")
    view = w.rules
    qtbot.keyClicks(view.name, "osprey-pod")
    pick(qtbot, view.kind, "ward")
    qtbot.keyClicks(view.pattern, r"\bosprey\b")
    click(qtbot, view.test_button)
    assert view.hits.text() == "1 hit in P2_b: 'osprey'"

    go(qtbot, w, "Annotate")                                    # back to P1_a's text
    go(qtbot, w, "Rules")
    click(qtbot, view.test_button)
    assert view.hits.text() == "0 hits in P1_a."
    w.close()


def test_a_sites_rule_is_written_to_a_file_removed_and_added_back_from_it(
        qtbot, settings, tmp_path, monkeypatch):
    """A wrong rule could only be switched off and re-added under a new name,
    the form took no example or reason, and nothing wrote a project's own
    rules out for the next project."""
    from app.gui.qt import QFileDialog
    w = window_with_note(qtbot, settings, tmp_path, monkeypatch, NOTE)
    go(qtbot, w, "Rules")
    view = w.rules
    assert not view.export_button.isEnabled()                   # none of its own yet
    qtbot.keyClicks(view.name, "kestrel-pod")
    pick(qtbot, view.kind, "ward")
    qtbot.keyClicks(view.pattern, r"\bkestrel\b")
    qtbot.keyClicks(view.example, "TO kestrel POD")
    qtbot.keyClicks(view.evidence, "our pod names")
    with qtbot.waitSignal(w.suggestionsFinished, timeout=120000):
        click(qtbot, view.add_button)
    shown = view.detail.toPlainText()
    assert "TO kestrel POD" in shown and "our pod names" in shown
    assert view.remove_button.isEnabled()

    out = tmp_path / "our-rules.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    click(qtbot, view.export_button)
    assert view.hits.text().startswith("Wrote 1 rule to ")
    assert out.exists()

    view.table.setCurrentCell(_row(view, "pager"), 1)           # a shipped rule
    assert not view.remove_button.isEnabled()
    view.table.setCurrentCell(_row(view, "kestrel-pod"), 1)
    with qtbot.waitSignal(w.suggestionsFinished, timeout=120000):
        click(qtbot, view.remove_button)
    assert view.hits.text().startswith("Removed kestrel-pod")
    assert not any(view.table.item(r, 1).text().startswith("kestrel-pod")
                   for r in range(view.table.rowCount()))

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(out), ""))
    with qtbot.waitSignal(w.suggestionsFinished, timeout=120000):
        click(qtbot, view.import_button)
    assert view.hits.text().startswith("Added 1 rule: kestrel-pod.")
    assert view.table.item(view.table.rowCount() - 1, 1).text() == "kestrel-pod (yours)"
    w.close()
