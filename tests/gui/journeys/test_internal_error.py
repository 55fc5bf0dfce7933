"""When something breaks inside: the export wizard (any background task of
the app) says where IT finds the details, as `deid` does, and the traceback
is kept there, not on screen. File › Export (Ctrl+E) with the export made to
fail from inside (the only patch: the service the wizard calls)."""
from __future__ import annotations

from journey import click, export_planned, import_folder, new_project, shown, write_synth


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
    wizard = export_planned(qtbot, w, monkeypatch, tmp_path / "out")
    with qtbot.waitSignal(wizard.failed, timeout=60000):
        click(qtbot, wizard.start_button)
    log = tmp_path / "user" / "deid-error.log"
    assert wizard.progress_label.text() == \
        f"Export failed: internal error (RuntimeError); details in {log}"
    assert "CARA MOSS" in log.read_text(encoding="utf-8")          # for IT, not on screen
    w.close()
