"""Render the screens the journeys cannot reach yet to PNG:
``python -m app.gui.screenshots OUT_DIR`` (agreement, adjudication,
guidelines, settings, about). The documents, editor, training and preview
screenshots are replayed through user actions by the journey tests:
``sh build/journey_screenshots.sh``.

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
    """Make the sample look mid-project: splits, suggestions, to-do notes
    ranked by uncertainty, and three notes annotated by two people.

    Returns the ids of the editor's note and of the first two-annotator note.
    """
    infos = project.document_infos()
    editor_doc = infos[0].id
    double_docs = [i.id for i in infos[1:4]]
    todo_docs = [i.id for i in infos[4:14]]
    run = project.start_run("train", {"note": "screenshot demo"})
    project.finish_run(run, "done", {})
    with project.transaction():
        for n, info in enumerate(infos):              # by patient, as imports split them
            if info.id not in todo_docs:
                patient = sum(map(ord, info.patient_id or info.name))
                project.set_document_fields(
                    info.id, split=("train", "train", "train", "dev", "test")[patient % 5])
        project.set_document_fields(editor_doc, status="in_progress")
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
        for n, doc in enumerate(todo_docs):           # pre-annotated, most uncertain first
            project.set_document_fields(doc, status="todo", uncertainty=round(0.91 - n * 0.07, 2))
            for i, r in enumerate(project.span_records(doc)):
                project.delete_span(r.id)
                if (i + n) % 6:                         # the model missed a few
                    project.add_span(doc, r.start, r.end, r.label, source="model",
                                     status="suggested", run_id=run,
                                     confidence=0.6 + 0.35 * ((i * 7 + n) % 10) / 10)
        for n, doc in enumerate(double_docs):
            gold = project.span_records(doc)
            for k, r in enumerate(gold):
                project.add_span(doc, r.start, r.end, r.label, annotator="ann")
                project.delete_span(r.id)
                if k == 1 + n:
                    continue                            # bob missed one
                label = "ADDRESS" if k == 3 + 2 * n and r.label != "ADDRESS" else r.label
                end = r.end if k != 5 + n else max(r.start + 1, r.end - 1)
                project.add_span(doc, r.start, end, label, annotator="bob")
            for name in ("ann", "bob"):
                project.assign(doc, name)
        project.update_label("PERSON", description=(
            "Names of patients, relatives, clinicians and staff, with titles left out "
            "(\"Dr\", \"Mr\"). Eponyms such as Parkinson's disease are NOT names."))
        project.set_setting("guidelines.examples", {"PERSON": (
            "Dr [Kara Browning]  → PERSON\nMr [Bradford] is a 20-yr-old man  → PERSON\n"
            "Parkinson's disease  → no label (eponym)")})
    return editor_doc, double_docs[0]


#: Size of the main window (and of the stand-alone views) in the screenshots.
WINDOW_SIZE = (1200, 750)


def start(argv: list[str] | None, module: str):
    """Shared start of the screenshot scripts: ``(app, out_dir, shot)``.

    Parses ``OUT_DIR`` from ``argv`` (``None`` after printing the usage line),
    goes offscreen and offline, creates the ``QApplication``; ``shot(widget,
    name)`` saves ``widget.grab()`` as ``OUT_DIR/name.png``.
    """
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(f"usage: python -m {module} OUT_DIR", file=sys.stderr)
        return None
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.paths import set_offline_env
    set_offline_env()
    from app.gui.qt import QApplication

    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([])

    def shot(widget, name: str) -> None:
        app.processEvents()
        path = out / f"{name}.png"
        widget.grab().save(str(path), "PNG", 0)        # quality 0: smallest PNG
        print(path)

    return app, out, shot


def main(argv: list[str] | None = None) -> int:
    started = start(argv, "app.gui.screenshots")
    if started is None:
        return 1
    app, out, shot = started
    from app.gui.qt import QEventLoop, QSettings
    from app.gui.dialogs import AboutDialog, SettingsDialog
    from app.gui.main_window import MainWindow

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        settings = QSettings(str(tmp / "settings.ini"), QSettings.IniFormat)
        settings.setValue("annotator", "ann")
        window = MainWindow(settings)
        window.resize(*WINDOW_SIZE)
        window.show()
        window.new_project(tmp / "sample.deid")
        loop = QEventLoop()
        window.importFinished.connect(loop.quit)
        window.import_folder(_notes_folder(tmp, 60), patient_regex=r"^(P\d+)_")
        loop.exec()
        app.processEvents()

        window.summary_dialog.close()
        _, double_doc = _plant(window.project)
        window.guidelines.set_project(window.project)
        window.agreement.refresh_annotators()
        window.agreement.a_box.setCurrentText("ann")
        window.agreement.b_box.setCurrentText("bob")
        window.show_view("Agreement")
        window.agreement.compute()
        window.statusBar().clearMessage()
        shot(window, "agreement")
        window.open_adjudication(double_doc, "ann", "bob")
        window.adjudication.choose("A", 0)
        shot(window, "adjudication")
        window.show_view("Guidelines")
        window.statusBar().clearMessage()
        shot(window, "guidelines")
        shot(SettingsDialog(settings, window), "settings")
        about = AboutDialog(window)
        shot(about, "about")
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
