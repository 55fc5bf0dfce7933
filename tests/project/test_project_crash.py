"""Killing a writer at any moment never corrupts the project file.

A child process imports documents in batches (one transaction per batch)
and is SIGKILLed at varying points; after each kill the file must pass
``PRAGMA integrity_check``, hold a whole number of batches (every batch the
child reported as saved included), and every document must be complete.
"""
from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.project import Project

sys.path.insert(0, str(Path(__file__).parent))
import crash_writer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 4


def _integrity(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_mid_import_never_corrupts(tmp_path):
    path = tmp_path / "crash.deid"
    Project.create(path, []).close()
    rng = random.Random(1234)
    saved_batches = 0
    for _ in range(ROUNDS):
        proc = subprocess.Popen(
            [sys.executable, str(Path(crash_writer.__file__)), str(path), str(saved_batches)],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE, text=True)
        try:
            for _ in range(2 + rng.randrange(3)):
                line = proc.stdout.readline()
                assert line, "writer exited early"
                reported = int(line) + 1
            # Vary the kill point within the next batch's transaction.
            time.sleep(rng.uniform(0, 0.05))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        assert _integrity(path) == "ok"
        with Project.open(path) as project:       # the stale lock does not block
            n_docs = project.count_documents()
            assert n_docs % crash_writer.BATCH == 0
            assert n_docs >= reported * crash_writer.BATCH   # no reported save lost
            counts = project.span_counts()
            for info in project.document_infos():
                n = int(info.name.removeprefix("note"))
                text, spans = crash_writer.note(n)
                assert project.document(info.id).text == text
                assert counts[info.id].accepted == crash_writer.SPANS_PER_DOC
                assert set(spans) <= set(project.gold_spans(info.id))
            assert {r.status for r in project.runs()} == {"cancelled"}
            saved_batches = n_docs // crash_writer.BATCH
    assert saved_batches >= ROUNDS * 2


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_after_sigkill_the_project_file_alone_holds_every_save(tmp_path):
    """Issue 23 item 9: the README says copy the one .deid file to move a
    project; after a kill -9 the saves sat in -wal only (0 of 400 documents)."""
    path = tmp_path / "crash.deid"
    Project.create(path, []).close()
    proc = subprocess.Popen(
        [sys.executable, str(Path(crash_writer.__file__)), str(path), "0"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        for _ in range(4):
            line = proc.stdout.readline()
            assert line, "writer exited early"
        reported = int(line) + 1
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / "crash.deid").write_bytes(path.read_bytes())      # the one file, as a user copies it
    assert _integrity(moved / "crash.deid") == "ok"
    with Project.open(moved / "crash.deid", readonly=True) as copy:
        assert copy.count_documents() >= reported * crash_writer.BATCH


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_killed_deid_new_leaves_no_project_or_a_whole_one(tmp_path):
    """Issue 23 item 11: 2 of 5 kills left a broken file or 0 labels."""
    from app.core.labels import PRESETS
    rng = random.Random(7)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DEID_USER_DIR": str(tmp_path / "user")}
    outcomes = []
    for k in range(6):
        path = tmp_path / f"p{k}.deid"
        proc = subprocess.Popen([sys.executable, "-m", "app.cli.main", "-q", "new", str(path),
                                 "--labels", "extended"], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 1.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if path.exists():
            with Project.open(path, readonly=True) as p:
                assert [l.name for l in p.labels()] == [l.name for l in PRESETS["extended"]]
            outcomes.append("whole")
        else:
            outcomes.append("none")
    assert not [f for f in os.listdir(tmp_path) if f.startswith("p") and "-" in f]
    # A new creation of the same name clears what a killed one left hidden.
    for k in range(6):
        (tmp_path / f"p{k}.deid").unlink(missing_ok=True)
        Project.create(tmp_path / f"p{k}.deid", []).close()
    assert not [f for f in os.listdir(tmp_path) if ".new-" in f]
