"""Export after a training with Flair among the models: a quick run of Flair,
the CRF and the rules from the Train view, then File › Export (Ctrl+E)
writes every note (the export's worker processes load every member of the
run, Flair included, whatever the selected model)."""
from __future__ import annotations

import pytest

from app.gui.qt import Qt

from journey import click, export, go, import_folder, new_project, shown, write_synth

pytestmark = pytest.mark.slow


def _set_boxes(qtbot, view, group: str, wanted: dict[str, bool]) -> None:
    """Click the check boxes of settings group ``group`` that are not as ``wanted``."""
    from app.gui.qt import QCheckBox, QGroupBox
    box_group = next(g for g in view.findChildren(QGroupBox) if g.title() == group)
    boxes = {b.text(): b for b in box_group.findChildren(QCheckBox)}
    for text, on in wanted.items():
        if boxes[text].isChecked() != on:
            click(qtbot, boxes[text])
        assert boxes[text].isChecked() == on


def test_export_after_training_flair(qtbot, settings, tmp_path, monkeypatch):
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "flair.deid")
    import_folder(qtbot, w, monkeypatch, write_synth(tmp_path / "notes", 30),
                  pattern=r"^(P\d+)_")
    go(qtbot, w, "Train")
    t = w.training
    qtbot.keyClick(t.budget_box, Qt.Key_Up)                          # Quick
    _set_boxes(qtbot, t, "Base models", {"spacy": False, "stanza": False, "flair": True,
                                         "imbalanced data": False})
    _set_boxes(qtbot, t, "Ensembles", {"Pruned voting": False, "Stacking": False})
    with qtbot.waitSignal(t.trained, timeout=900000):
        click(qtbot, t.train_button)
    assert "flair-balanced" in [t.results_table.item(r, 0).text().lstrip("★ ")
                                for r in range(t.results_table.rowCount())]

    out = tmp_path / "export"
    wizard = export(qtbot, w, monkeypatch, out)
    assert "Export finished" in wizard.summary_label.text()
    assert len(list(out.glob("P*.txt"))) == 30
    w.close()
