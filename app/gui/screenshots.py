"""Render every screen to PNG: ``python -m app.gui.screenshots OUT_DIR``.

Builds a throw-away project from the bundled synthetic sample notes
(``resources/sample/notes``; a few generated notes if they are missing),
plants model/rule suggestions and a two-annotator disagreement, and saves
``widget.grab()`` of each view and dialog. Runs offscreen.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

FALLBACK_NOTES = [
    ("P0001_note_0001", "Seen by Dr Ann Lee on 03/04/2021.\nPatient Cara Moss, DOB 01/02/1950, "
     "MRN 1234567, lives at 4 High St Perth WA 6000. Phone 0412 345 678."),
    ("P0001_note_0002", "Follow-up for Cara Moss. Dr Ann Lee reviewed MRN 1234567."),
    ("P0002_note_0003", "Bob Ray (DOB 05/06/1970) was seen at 9 Low Rd Albany. Ph (08) 9999 1234."),
]


def _notes_folder(tmp: Path, limit: int) -> Path:
    from app.paths import sample_notes_dir
    folder = tmp / "notes"
    folder.mkdir()
    sample = sample_notes_dir()
    texts = sorted(sample.glob("*.txt"))[:limit] if sample.is_dir() else []
    for txt in texts:
        shutil.copy(txt, folder / txt.name)
        ann = txt.with_suffix(".ann")
        if ann.is_file():
            shutil.copy(ann, folder / ann.name)
    if not texts:
        for name, text in FALLBACK_NOTES:
            (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    # Two broken files, so the import summary shows its list of skipped files.
    (folder / "scan_0001.txt").write_bytes(b"\x00\x01PK\x03\x04" * 64)
    (folder / "P0099_note_0999.txt").write_text("Seen by Dr Who.", encoding="utf-8")
    (folder / "P0099_note_0999.ann").write_text("T1\tPERSON 900 910\tOutside\n", encoding="utf-8")
    return folder


def _plant(project) -> tuple[int, int]:
    """Turn part of one note's gold into suggestions; make a two-annotator note."""
    infos = project.document_infos()
    editor_doc, double_doc = infos[0].id, infos[min(1, len(infos) - 1)].id
    run = project.start_run("train", {"note": "screenshot demo"})
    project.finish_run(run, "done", {})
    with project.transaction():
        for i, r in enumerate(project.span_records(editor_doc)):
            if i % 3 == 1:
                project.delete_span(r.id)
                project.add_span(editor_doc, r.start, r.end, r.label, source="model",
                                 status="suggested", confidence=0.55 + 0.4 * ((i * 7) % 10) / 10,
                                 run_id=run)
            elif i % 5 == 2:
                project.delete_span(r.id)
                project.add_span(editor_doc, r.start, r.end, r.label, source="rule",
                                 status="suggested")
        gold = project.span_records(double_doc)
        for k, r in enumerate(gold):
            project.add_span(double_doc, r.start, r.end, r.label, annotator="ann")
            if k == 1:
                continue                                    # bob missed one
            label = "ADDRESS" if k == 3 and r.label != "ADDRESS" else r.label
            end = r.end if k != 5 else max(r.start + 1, r.end - 1)
            project.add_span(double_doc, r.start, end, label, annotator="bob")
            project.delete_span(r.id)
        for name in ("ann", "bob"):
            project.assign(double_doc, name)
        project.update_label("PERSON", description=(
            "Names of patients, relatives, clinicians and staff, with titles left out "
            "(\"Dr\", \"Mr\"). Eponyms such as Parkinson's disease are NOT names."))
        project.set_setting("guidelines.examples", {"PERSON": (
            "Dr [Kara Browning]  → PERSON\nMr [Bradford] is a 20-yr-old man  → PERSON\n"
            "Parkinson's disease  → no label (eponym)")})
    return editor_doc, double_doc


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m app.gui.screenshots OUT_DIR", file=sys.stderr)
        return 1
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.paths import set_offline_env
    set_offline_env()
    from app.gui.qt import QApplication, QEventLoop, QSettings
    from app.gui.dialogs import AboutDialog, SettingsDialog
    from app.gui.main_window import MainWindow

    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        settings = QSettings(str(tmp / "settings.ini"), QSettings.IniFormat)
        settings.setValue("annotator", "ann")
        window = MainWindow(settings)
        window.resize(1280, 800)
        window.show()
        window.new_project(tmp / "sample.deid")
        loop = QEventLoop()
        window.importFinished.connect(loop.quit)
        window.import_folder(_notes_folder(tmp, 60), patient_regex=r"^(P\d+)_")
        loop.exec()
        app.processEvents()

        def shot(widget, name: str) -> None:
            app.processEvents()
            widget.grab().save(str(out / f"{name}.png"))
            print(out / f"{name}.png")

        shot(window.summary_dialog, "import_summary")
        window.summary_dialog.close()
        editor_doc, double_doc = _plant(window.project)
        window.guidelines.set_project(window.project)
        for i, info in enumerate(window.project.document_infos()[2:12]):
            window.project.set_document_fields(info.id, uncertainty=round(0.95 - i * 0.07, 2))
        window.documents.model.refresh()
        window.documents.status_box.setCurrentIndex(0)
        shot(window, "documents")
        window.open_document(editor_doc)
        window.editor.step(1, suggestions_only=True)
        shot(window, "editor")
        window.agreement.refresh_annotators()
        window.agreement.a_box.setCurrentText("ann")
        window.agreement.b_box.setCurrentText("bob")
        window.show_view("Agreement")
        window.agreement.compute()
        shot(window, "agreement")
        window.open_adjudication(double_doc, "ann", "bob")
        window.adjudication.choose("A", 0)
        shot(window, "adjudication")
        window.show_view("Guidelines")
        shot(window, "guidelines")
        shot(SettingsDialog(settings, window), "settings")
        about = AboutDialog(window)
        shot(about, "about")
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
