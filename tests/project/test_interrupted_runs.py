"""A training run whose process was killed reads as interrupted, not
``running`` for good (issue 35 item 14), whichever way the project is
opened next: a writable open stores it (Buzz's pattern), a read-only open,
which writes nothing, reads it so once no process can be writing."""
from __future__ import annotations

import subprocess
import sys

import pytest

from app.cli.main import main
from app.project import Project
from app.project.runs import is_interrupted

_KILLED_MID_RUN = """
import os, signal, sys
from app.project import Project
p = Project.open(sys.argv[1])
print(p.start_run("train", {"budget": "quick"}), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.fixture
def killed(tmp_path):
    """A project and the id of a run whose process was killed mid-way."""
    path = tmp_path / "p.deid"
    Project.create(path, []).close()
    proc = subprocess.run([sys.executable, "-c", _KILLED_MID_RUN, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9
    return path, int(proc.stdout)


def test_a_read_only_open_reads_a_killed_run_as_interrupted(killed):
    path, run_id = killed
    with Project.open(path, readonly=True) as ro:
        record = ro.run(run_id)
        assert (record.status, is_interrupted(record)) == ("cancelled", True)
        assert [r.status for r in ro.runs("train")] == ["cancelled"]
        assert ro.interrupted_runs == (run_id,)


def test_a_writable_open_stores_the_killed_run_as_interrupted(killed):
    path, run_id = killed
    with Project.open(path) as p:
        assert p.interrupted_runs == (run_id,)
    with Project.open(path, readonly=True) as ro:
        record = ro.run(run_id)
        assert (record.status, is_interrupted(record)) == ("cancelled", True)
        assert ro.interrupted_runs == ()


def test_a_run_of_a_live_writer_still_reads_running(tmp_path):
    path = tmp_path / "p.deid"
    with Project.create(path, []) as writer:
        run_id = writer.start_run("train", {})
        with Project.open(path, readonly=True) as ro:
            assert ro.run(run_id).status == "running"
            assert ro.interrupted_runs == ()
        writer.finish_run(run_id, "cancelled")
        assert not is_interrupted(writer.run(run_id))   # cancelled by the user


def test_the_next_command_says_the_run_was_interrupted(killed, capsys):
    path, run_id = killed
    main(["-q", "split", str(path)])
    err = capsys.readouterr().err
    assert f"run {run_id} of p.deid was interrupted" in err and "marked cancelled" in err

