"""Issue 21 in the desktop window: File > Export uses every core by default
and shows its progress note by note. Keys and clicks only; the folder
dialog answered by a patched QFileDialog."""
from __future__ import annotations

import json

from app.core.parallel import default_workers
from app.deid.folder import BATCH_NOTES
from app.gui.export_wizard import ExportWizard
from app.synth import generate

from test_export_journey import _export
from test_main_window import _shown

NOTES = 2 * BATCH_NOTES + 3          # three batches: more than one worker has work


def test_export_runs_on_every_core_and_shows_progress(window, qtbot, tmp_path, monkeypatch):
    from app.services.starter import STARTER_SETTING
    folder = tmp_path / "notes"
    folder.mkdir()
    for d in generate(NOTES, seed=5):
        (folder / f"{d.name}.txt").write_text(d.text, encoding="utf-8")
    assert window.new_project(tmp_path / "p.deid", "paper")
    window.project.set_setting(STARTER_SETTING, False)
    with qtbot.waitSignal(window.suggestionsFinished, timeout=60000):
        with qtbot.waitSignal(window.importFinished, timeout=60000):
            window.import_folder(folder)
    w = _shown(window, qtbot)

    shown: list[tuple[int, str]] = []           # what the run page shows, update by update
    on_progress = ExportWizard._on_progress

    def record(wizard, p):
        on_progress(wizard, p)
        shown.append((wizard.progress_bar.value(), wizard.progress_label.text()))
    monkeypatch.setattr(ExportWizard, "_on_progress", record)
    out = tmp_path / "export"
    wizard, _ = _export(w, qtbot, out, monkeypatch)                    # File > Export

    # Progress note by note, the bar moving up to the end.
    labels = [text for _, text in shown]
    assert f"1/{NOTES} notes" in labels and f"{NOTES}/{NOTES} notes" in labels
    values = [v for v, _ in shown]
    assert values == sorted(values) and values[-1] == 1000
    # Every core (three batches of notes: as many processes as cores, up to three).
    workers = min(default_workers(), 3)
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    assert report["settings"]["workers"] == workers
    assert len(list(out.glob("*.txt"))) == NOTES
    assert f"Worker processes</td><td align='right'><b>{workers}</b>" in wizard.summary_label.text()
