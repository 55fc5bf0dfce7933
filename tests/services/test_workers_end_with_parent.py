"""Worker processes end with the command that started them (issue 35 item 10).

``kill -9`` of ``deid redact`` or ``deid export --format redacted`` left the
resource tracker and two workers (about 95 MB each) alive for good. Each
test kills a real parent outright and looks, after a wait far shorter than
the work left, for any process it had started: none may remain.
"""
import multiprocessing as mp
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil

from processes import TAG_VAR, survivors

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "resources" / "sample" / "notes"
#: Seconds the processes of a killed parent get to end (they end at once:
#: the kernel or a thread waiting on the parent ends them).
GRACE_S = 30


def _until(what, limit_s: float = 240):
    """``what()`` once it is truthy (polled; ``limit_s`` only guards a broken run)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        found = what()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("never happened")


def test_kill_9_of_annotate_while_its_workers_start_leaves_no_process(tmp_path):
    """The CLI as a user runs it: ``deid annotate --workers 2`` of the sample
    notes, killed as its workers start. A worker still starting read its new
    parent's pid (init's) as its parent's, and waited for it to change."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for txt in sorted(SAMPLE.glob("*.txt")):
        shutil.copyfile(txt, notes / txt.name)
    tag = f"annotate-{os.getpid()}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DEID_USER_DIR": str(tmp_path / "user"),
           "TMPDIR": str(tmp_path), TAG_VAR: tag}
    cli = [sys.executable, "-m", "app.cli.main", "-q"]
    subprocess.run([*cli, "new", tmp_path / "P.deid"], env=env, check=True, capture_output=True)
    proc = subprocess.Popen([*cli, "annotate", tmp_path / "P.deid", notes, tmp_path / "out",
                             "--workers", "2"], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _until(lambda: sum("spawn_main" in " ".join(c.cmdline())
                           for c in psutil.Process(proc.pid).children()) == 2)
        proc.kill()
        proc.wait()
        assert proc.returncode == -9, "annotate ended before it was killed"
        assert survivors(tag, GRACE_S) == []
    finally:
        if proc.poll() is None:
            proc.kill()


def _hold_the_gil(pid_file: str) -> None:
    """A task that holds the GIL for hours: one backtracking regular expression."""
    Path(pid_file).write_text(str(os.getpid()), encoding="ascii")
    re.fullmatch(r"(a+)+$", "a" * 64 + "b")


def _pool_parent(pid_file: str, tag: str) -> None:
    os.environ[TAG_VAR] = tag           # the workers and the resource tracker inherit it
    from app.core.parallel import open_engine
    engine = open_engine(2)
    engine.submit(_hold_the_gil, pid_file)
    time.sleep(3600)


def test_a_worker_inside_a_long_c_call_ends_with_its_killed_parent(tmp_path):
    """A thread watching for the parent cannot run while the worker's task
    holds the GIL (a long regular expression, a model being read): the
    worker, and the resource tracker it holds open, outlived the parent."""
    pid_file, tag = tmp_path / "worker.pid", f"pool-{os.getpid()}"
    parent = mp.get_context("spawn").Process(target=_pool_parent, args=(str(pid_file), tag))
    parent.start()
    try:
        worker = int(_until(lambda: pid_file.is_file() and pid_file.read_text(encoding="ascii")))
        time.sleep(0.5)                 # the worker is inside the match
        assert psutil.Process(worker).environ().get(TAG_VAR) == tag
        parent.kill()
        parent.join()
        assert survivors(tag, GRACE_S) == []
    finally:
        if parent.is_alive():
            parent.kill()
