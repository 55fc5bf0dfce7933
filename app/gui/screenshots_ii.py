"""Render the training, preview and export screens to PNG:
``python -m app.gui.screenshots_ii OUT_DIR``.

Builds a throw-away project of synthetic notes, trains quickly (spaCy +
rules, quick budget) from the training view, and saves ``widget.grab()``
of: the training view while it trains and after (results with the test
evaluation), the preview of a test note, and the export wizard's first,
output and summary pages.
Runs offscreen; takes about a minute.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path


#: Annotated synthetic notes (3:1:1 train/dev/test): enough for a quick
#: spaCy model whose preview is not mostly misses.
ANNOTATED = 80


def _wait(app, done) -> None:
    from app.gui.qt import QEventLoop, QTimer
    loop = QEventLoop()
    timer = QTimer()
    timer.timeout.connect(lambda: loop.quit() if done() else None)
    timer.start(50)
    loop.exec()
    timer.stop()
    app.processEvents()


def main(argv: list[str] | None = None) -> int:
    from app.gui.screenshots import WINDOW_SIZE, start
    started = start(argv, "app.gui.screenshots_ii")
    if started is None:
        return 1
    app, out, shot = started
    from app.core.labels import PRESETS
    from app.gui.export_wizard import ExportWizard
    from app.gui.preview_view import PreviewView
    from app.gui.training_view import TrainingView
    from app.project import Project
    from app.services.training import TrainConfig
    from app.synth import generate

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        project = Project.create(tmp / "sample.deid", list(PRESETS["paper"]))
        for i, d in enumerate(generate(ANNOTATED + 6, seed=3)):
            if i >= ANNOTATED:                            # to do: for pre-annotation
                project.add_document(d.name, d.text, patient_id=d.patient_id)
                continue
            split = "test" if i % 5 == 0 else "dev" if i % 5 == 1 else "train"
            project.add_document(d.name, d.text, patient_id=d.patient_id, split=split,
                                 status="done", spans=d.spans)

        training = TrainingView(project)
        training.resize(*WINDOW_SIZE)
        training.show()
        training.set_config(TrainConfig(models=["spacy", "rules"], budget="quick"))
        taken = []

        def during(p) -> None:
            if not taken and p.model == "spacy-imbalanced" and p.epoch and p.epoch >= 2:
                taken.append(True)
                shot(training, "training_progress")

        training.runner.progress.connect(during)
        training.start_training()
        _wait(app, lambda: not training.is_busy())
        if not taken:
            shot(training, "training_progress")
        training.start_evaluation()
        _wait(app, lambda: not training.is_busy())
        training.tabs.setCurrentIndex(1)
        shot(training, "training_results")

        preview = PreviewView(project, "ann")
        preview.resize(WINDOW_SIZE[0], 640)
        preview.show()
        best = None                      # a test note the model does well on
        for info in project.document_infos(split="test")[:8]:
            preview.load_document(info.id)
            _wait(app, lambda: not preview.wait_for_prediction())
            text = project.document(info.id).text
            score = (len(preview.missed), text.isupper(), -len(preview.infos))
            if best is None or score < best[0]:
                best = (score, info.id)
        preview.load_document(best[1])
        _wait(app, lambda: not preview.wait_for_prediction())
        preview.set_strategy("PERSON", "surrogate")
        preview.step(1)
        shot(preview, "preview")

        wizard = ExportWizard(project)
        wizard.show()
        wizard.set_scope("split", "test")
        wizard.folder_edit.setText(str(tmp / "export"))
        shot(wizard, "export_documents")
        wizard.go(1)
        shot(wizard, "export_output")
        wizard.start_export()
        _wait(app, lambda: not wizard.is_busy())
        shot(wizard, "export_summary")

        preview.shutdown()
        for widget in (training, preview, wizard):
            widget.close()
        project.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
