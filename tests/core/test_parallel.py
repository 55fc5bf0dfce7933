"""Worker processes: a pool worker may skip the imports its model never uses."""
import sys

import pytest

from app.core import parallel
from app.core.parallel import ProcessPool, unimportable


def _is_pool_worker() -> bool:
    return parallel._POOL_WORKER


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """A module nothing has imported yet, as torch is in a fresh worker."""
    (tmp_path / "deid_probe_mod.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "deid_probe_mod", raising=False)
    yield "deid_probe_mod"
    sys.modules.pop("deid_probe_mod", None)


def test_a_pool_worker_probing_for_a_skipped_module_finds_none_until_the_load_ends(
        probe, monkeypatch):
    monkeypatch.setattr(parallel, "_POOL_WORKER", True)
    with unimportable([probe]):
        with pytest.raises(ImportError):
            __import__(probe)
    assert __import__(probe).VALUE == 1          # a later need still imports it


def test_elsewhere_nothing_is_skipped(probe):
    # This process (the client, the GUI) and a long-lived Dask worker may run
    # a later job that needs the module, and the probing library would not look again.
    with unimportable([probe]):
        assert __import__(probe).VALUE == 1


def test_the_pool_workers_know_they_are_one_jobs_workers():
    with ProcessPool(1) as pool:
        assert pool.submit(_is_pool_worker).result() is True
    assert parallel._POOL_WORKER is False


def _die_once(marker: str) -> str:
    """Kill its worker the first time (a marker file says it did), else answer."""
    import os
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)
    return "done"


def _always_die() -> None:
    import os
    os._exit(9)


def test_a_task_whose_worker_died_runs_again_on_a_new_pool_the_others_too(tmp_path):
    """A walkthrough killed one worker of `deid redact --workers 2`: Python's
    pool broke and the run ended in an internal error. The lost tasks run
    again (they are idempotent); one that kills its worker twice fails."""
    from concurrent.futures.process import BrokenProcessPool
    with ProcessPool(2) as pool:
        tasks = [pool.submit(_die_once, str(tmp_path / "died"))] + \
            [pool.submit(_is_pool_worker) for _ in range(4)]
        assert [t.result() for t in tasks] == ["done", True, True, True, True]
        with pytest.raises(BrokenProcessPool, match="died twice"):
            pool.submit(_always_die).result()
        assert pool.submit(_is_pool_worker).result() is True


_PARENT = """
import os, sys, time
from app.core.parallel import ProcessPool
pool = ProcessPool(2)
pids = {pool.submit(os.getpid).result() for _ in range(8)}
print(" ".join(map(str, sorted(pids))), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"     # a zombie is dead
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_end_with_a_parent_killed_by_sigkill():
    """`kill -9` of `deid redact` left its workers alive for good (issue 35
    item 10): each worker watches its parent and ends with it."""
    import os
    import signal
    import subprocess
    import time
    parent = subprocess.Popen([sys.executable, "-c", _PARENT], stdout=subprocess.PIPE,
                              text=True)
    try:
        workers = [int(p) for p in parent.stdout.readline().split()]
        assert workers and all(_alive(p) for p in workers)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 60          # a bound for a loaded machine, not a timing
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in workers if _alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left


class _HoldsPrivateFiles:
    """Stands for a loaded model: its files in a folder until closed. No
    ``__del__`` on purpose: whether one runs as a worker ends depends on
    the order the interpreter tears its modules down (the predictor's did not)."""

    def __init__(self) -> None:
        import tempfile
        from app.core.private import private_root
        self.path = tempfile.mkdtemp(prefix="deid-model-", dir=private_root())

    def close(self) -> None:
        import shutil
        shutil.rmtree(self.path)


def _load_in_worker() -> str:
    held, _ = parallel.loaded(_HoldsPrivateFiles, ("test-model", 1))
    return held.path


def test_a_model_a_pool_worker_loaded_leaves_no_folder_once_the_pool_closes(
        tmp_path, monkeypatch):
    """A normal `deid redact` with a trained model and workers left a
    ``deid-model-*`` folder per worker in the user-data tmp (issue 35 item 14)."""
    monkeypatch.setenv("DEID_USER_DIR", str(tmp_path))
    with ProcessPool(2) as pool:
        folders = {pool.submit(_load_in_worker).result() for _ in range(4)}
    assert folders
    assert sorted(p.name for p in (tmp_path / "tmp").iterdir()) == []
