"""File > Save a copy is whole while another program reads the project
(issue 35 item 5): that reader keeps the last saves in the ``-wal``, so a
copy of the ``.deid`` file alone misses them; the app's copy never does,
and does not wait out the 10 s checkpoint timeout for the reader."""
from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import time

from app.gui.qt import QFileDialog
from journeys.journey import choose

_READER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("BEGIN")
db.execute("SELECT count(*) FROM documents").fetchone()     # holds this snapshot
print("reading", flush=True)
sys.stdin.readline()
"""


def _documents(path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return db.execute("SELECT count(*) FROM documents").fetchone()[0]
    finally:
        db.close()


def test_save_a_copy_is_whole_while_another_process_reads(imported, qtbot, tmp_path,
                                                          monkeypatch):
    window = imported
    project = window.project
    before = len(project.document_infos())
    reader = subprocess.Popen([sys.executable, "-c", _READER, str(project.path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "reading"
        project.add_document("later.txt", "Seen again on 03/04/2021.\n")   # a save after it
        project.checkpoint(wait_s=0)
        alone = tmp_path / "alone"
        alone.mkdir()
        shutil.copyfile(project.path, alone / "p.deid")
        assert _documents(alone / "p.deid") == before        # the file alone misses it

        dest = tmp_path / "saved" / "copy.deid"
        dest.parent.mkdir()
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(dest), ""))
        started = time.monotonic()
        choose(qtbot, window, "File", "Save a copy…")
        waited = time.monotonic() - started
    finally:
        reader.communicate("\n", timeout=60)
    assert sorted(p.name for p in dest.parent.iterdir()) == ["copy.deid"]   # one file
    assert _documents(dest) == before + 1
    assert waited < 8          # the checkpoint's 10 s wait for the reader is not taken
    assert "Saved a whole copy" in window.statusBar().currentMessage()
