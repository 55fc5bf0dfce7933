"""Clinician journey, issue 18 item 2: the strategy chosen in Preview reaches
the export and its audit report; Preview shows what is exported. Keys and
clicks only; file dialogs answered by a patched QFileDialog."""
from __future__ import annotations

import json

from app.gui.qt import QFileDialog, Qt

from test_main_window import _key, _open_row, _shown


def test_strategy_chosen_in_preview_is_exported(imported, qtbot, tmp_path, monkeypatch):
    w = _shown(imported, qtbot)
    _open_row(qtbot, w, "P1_a")
    _key(qtbot, w, Qt.Key_4, Qt.ControlModifier)                      # Go > Preview
    preview = w.preview
    # The user waits until the status no longer says it is predicting.
    qtbot.waitUntil(lambda: "Predicting" not in preview.status.text(), timeout=20000)
    box = preview.strategy_boxes["PERSON"]
    box.setFocus()
    qtbot.keyClicks(box, "surrogate")                                 # type to pick
    assert box.currentText() == "surrogate"
    shown = preview.redacted.toPlainText()
    assert "Ann Lee" not in shown and "<**PERSON**>" not in shown
    assert "1234567" not in shown                 # the rules replace the MRN, as the export will

    out = tmp_path / "export"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    _key(qtbot, w, Qt.Key_E, Qt.ControlModifier)                      # File > Export
    wizard = w.export_wizard
    qtbot.waitExposed(wizard)
    qtbot.mouseClick(wizard.next_button, Qt.LeftButton)
    browse = next(b for b in wizard.stack.currentWidget().findChildren(type(wizard.next_button))
                  if b.text().startswith("Browse"))
    qtbot.mouseClick(browse, Qt.LeftButton)
    assert wizard.folder_edit.text() == str(out)
    qtbot.mouseClick(wizard.next_button, Qt.LeftButton)
    with qtbot.waitSignal(wizard.exported, timeout=60000):
        qtbot.mouseClick(wizard.start_button, Qt.LeftButton)
    exported = (out / "P1_a.txt").read_text(encoding="utf-8")
    assert exported == shown                                           # byte for byte
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    assert report["per_label"]["PERSON"]["strategy"] == "surrogate"
    assert report["policy"]["strategies"]["PERSON"] == "surrogate"
