"""Opening a project whose training run was killed says so in the Train view,
not only for six seconds in the status bar."""
from __future__ import annotations

import subprocess
import sys

from journeys.journey import choose

from app.gui.qt import QFileDialog
from app.project import Project

_KILLED_MID_RUN = """
import os, signal, sys
from app.project import Project
p = Project.open(sys.argv[1])
print(p.start_run("train", {"budget": "quick"}), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_the_train_view_says_a_run_stopped_unfinished_when_the_project_opens(
        window, qtbot, tmp_path, monkeypatch):
    from app.core.labels import PRESETS
    from app.services.runs import TrainedRun, set_active_run
    path = tmp_path / "p.deid"
    with Project.create(path, list(PRESETS["hipaa"])) as project:   # a model in use
        done = project.start_run("train", {})
        project.finish_run(done, "done", TrainedRun(done, "done", selected="crf-balanced").metrics())
        set_active_run(project, done)
    proc = subprocess.run([sys.executable, "-c", _KILLED_MID_RUN, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9
    run_id = int(proc.stdout)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    choose(qtbot, window, "File", "Open project…")
    assert window.project is not None
    assert window.training.stage_label.text() == \
        f"Run {run_id} stopped before finishing: marked cancelled."
    assert f"Run {run_id} stopped before finishing (the program was closed or stopped while " \
           f"training): marked cancelled" in window.training.log.toPlainText()
    # The view opens on the results of the run in use: said there too.
    assert f"Run {run_id} stopped before finishing" in window.training.reason_label.text()
