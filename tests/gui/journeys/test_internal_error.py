"""When something breaks inside: the export wizard (any background task of
the app) says where IT finds the details, as `deid` does, and the traceback
is kept there, not on screen. File › Export (Ctrl+E) with the export made to
fail from inside (the only patch: the service the wizard calls)."""
from __future__ import annotations

from app.gui.qt import QFileDialog, Qt

from journey import click, import_folder, key, new_project, shown, write_synth


def test_an_internal_error_says_where_its_details_are(qtbot, settings, tmp_path, monkeypatch):
    from app.gui import export_wizard
    from app.gui.main_window import MainWindow
    monkeypatch.setenv("DEID_USER_DIR", str(tmp_path / "user"))

    def broken(*a, **k):
        raise RuntimeError("something inside quoting a note: CARA MOSS")
    monkeypatch.setattr(export_wizard, "export_documents", broken)
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "p.deid")
    import_folder(qtbot, w, monkeypatch, write_synth(tmp_path / "notes", 3, annotated=False))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        lambda *a, **k: str(tmp_path / "out"))
    key(qtbot, w, Qt.Key_E, Qt.ControlModifier)
    wizard = w.export_wizard
    qtbot.waitExposed(wizard)
    click(qtbot, wizard.next_button)
    browse = next(b for b in wizard.stack.currentWidget().findChildren(type(wizard.next_button))
                  if b.text().startswith("Browse"))
    click(qtbot, browse)
    click(qtbot, wizard.next_button)
    with qtbot.waitSignal(wizard.failed, timeout=60000):
        click(qtbot, wizard.start_button)
    log = tmp_path / "user" / "deid-error.log"
    assert wizard.progress_label.text() == \
        f"Export failed: internal error (RuntimeError); details in {log}"
    assert "CARA MOSS" in log.read_text(encoding="utf-8")          # for IT, not on screen
    w.close()
