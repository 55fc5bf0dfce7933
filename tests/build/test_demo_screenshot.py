"""build/demo_screenshot.sh, the smoke test's check that its picture
"with the demo project" shows the project (issue 34 item 15), run against
`python -m app.gui.main` instead of a built bundle."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "build" / "demo_screenshot.sh"


def _check(tmp_path, project, *command):
    env = {k: v for k, v in os.environ.items() if k not in ("DEID_SCREENSHOT", "DEID_USER_DIR")}
    return subprocess.run(["bash", str(CHECK), str(tmp_path / "shot.png"), str(project),
                           str(tmp_path / "fresh user"), *command],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


def test_the_screenshot_shows_the_project_to_a_user_who_never_started_the_app(tmp_path):
    from app.core.labels import PRESETS
    from app.project import Project
    project = tmp_path / "sample.deid"
    with Project.create(project, list(PRESETS["hipaa"]), language="en") as p:
        p.add_document("n1", "Seen by Dr. Okafor.", patient_id="P1")
    done = _check(tmp_path, project, sys.executable, "-m", "app.gui.main")
    assert done.returncode == 0, done.stderr
    assert "window: sample.deid" in (tmp_path / "shot.png.txt").read_text()
    assert (tmp_path / "shot.png").stat().st_size > 0


def test_the_check_fails_on_a_picture_with_no_project_open(tmp_path):
    fake = tmp_path / "fake-app.sh"      # grabs a window that asks to open a project
    fake.write_text('printf x > "$DEID_SCREENSHOT"\necho "window: DeID Studio"\n'
                    'echo "status: Open or create a project to start."\n')
    done = _check(tmp_path, tmp_path / "sample.deid", "bash", str(fake))
    assert done.returncode == 1
    assert "does not show sample.deid" in done.stderr
