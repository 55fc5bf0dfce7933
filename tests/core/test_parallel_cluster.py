"""The same redaction on a Dask cluster: a scheduler and two workers started
as separate processes on 127.0.0.1 (no dashboard); one worker is killed
mid-run; the output and the manifest equal the single-machine run's."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from app.cli.main import main  # noqa: E402
from app.core.progress import Progress  # noqa: E402
from app.project import Project  # noqa: E402
from app.services.redaction import redact_corpus  # noqa: E402
from app.synth import generate  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
START_S = 60


def _spawn(args, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "DASK_DISTRIBUTED__WORKER__DAEMON": "False",
           "DASK_TEMPORARY_DIRECTORY": str(log.parent / "scratch")}
    return subprocess.Popen([sys.executable, "-m", *args], cwd=log.parent, env=env,
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT)


def _wait(what, timeout=START_S):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = what()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("the Dask processes did not start in time (see their logs)")


@pytest.fixture
def cluster(tmp_path, loopback_only):
    """A scheduler and two single-threaded workers (no nanny: a killed worker stays dead)."""
    from distributed import Client
    sched_file = tmp_path / "scheduler.json"
    procs = [_spawn(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                     "--no-dashboard", "--scheduler-file", str(sched_file)],
                    tmp_path / "scheduler.log")]
    try:
        _wait(lambda: sched_file.is_file() and sched_file.stat().st_size > 0)
        address = json.loads(sched_file.read_text())["address"]
        for name in ("w1", "w2"):
            procs.append(_spawn(["distributed.cli.dask_worker", "--scheduler-file",
                                 str(sched_file), "--host", "127.0.0.1", "--nthreads", "1",
                                 "--no-nanny", "--no-dashboard", "--name", name,
                                 "--local-directory", str(tmp_path / name)],
                                tmp_path / f"{name}.log"))
        with Client(address, timeout="30s") as client:
            _wait(lambda: len(client.scheduler_info()["workers"]) == 2)
            names = {w["name"]: a for a, w in client.scheduler_info()["workers"].items()}
            yield address, procs[1], procs[2], names["w1"]
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.mark.timeout(400)
def test_a_killed_worker_loses_nothing_and_duplicates_nothing(cluster, tmp_path):
    from distributed import Client
    address, victim, survivor, victim_address = cluster
    project = tmp_path / "p.deid"
    assert main(["-q", "new", str(project), "--labels", "hipaa"]) == 0   # day one: the starter
    notes = tmp_path / "notes"
    notes.mkdir()
    for i, doc in enumerate(generate(24, seed=2122, locale="en_US")):
        # Four patients of three notes (each a batch of its own, larger than
        # the batch size) and twelve notes each its own patient (batches of
        # two): every batch redacted and written by a worker.
        name = f"pt{i % 4}_n{i:02d}.txt" if i < 12 else f"solo_n{i:02d}.txt"
        (notes / name).write_text(doc.text, encoding="utf-8")
    killed_at = []

    watcher = Client(address, timeout="30s")

    def kill_first_worker(p: Progress) -> None:
        # Mid-run: the first time the victim holds tasks of the job, with
        # most notes still to write.
        if killed_at or p.fraction > 0.5:
            return
        held = len(watcher.processing().get(victim_address, ()))
        if held:
            victim.send_signal(signal.SIGKILL)
            victim.wait(timeout=30)
            killed_at.append((p.fraction, held))

    with Project.open(project) as p, watcher:
        ref, _ = redact_corpus(p, notes, tmp_path / "one", strategy="surrogate",
                               patient_regex=r"^(pt\d+)_", workers=1)
        got, _ = redact_corpus(p, notes, tmp_path / "cluster", strategy="surrogate",
                               patient_regex=r"^(pt\d+)_", cluster=address, batch=2,
                               progress=kill_first_worker)
    assert killed_at, "the victim never held a task of the job"
    assert victim.returncode == -signal.SIGKILL
    assert survivor.poll() is None
    assert ref.count("done") == got.count("done") == 24
    files = {q.relative_to(tmp_path / "one"): q.read_bytes()
             for q in sorted((tmp_path / "one").rglob("*")) if q.is_file()}
    # No temporary file left (the victim may have died writing one).
    assert files == {q.relative_to(tmp_path / "cluster"): q.read_bytes()
                     for q in sorted((tmp_path / "cluster").rglob("*")) if q.is_file()}
    keys = [json.loads(line)["key"] for line in
            (tmp_path / "cluster" / ".deid-manifest.jsonl").read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 24
    # Run again on the one worker left: every note is already done, nothing is written twice.
    with Project.open(project) as p:
        again, _ = redact_corpus(p, notes, tmp_path / "cluster", strategy="surrogate",
                                 patient_regex=r"^(pt\d+)_", cluster=address, batch=2)
    assert again.count("resumed") == 24 and again.count("done") == 0
    assert len((tmp_path / "cluster" / ".deid-manifest.jsonl").read_text().splitlines()) == 24


def test_local_cluster_from_the_command_line(tmp_path, capsys, loopback_only):
    project = tmp_path / "p.deid"
    assert main(["-q", "new", str(project), "--labels", "hipaa"]) == 0
    notes = tmp_path / "notes"
    notes.mkdir()
    for i, doc in enumerate(generate(3, seed=2123, locale="en_AU")):
        (notes / f"n{i}.txt").write_text(doc.text, encoding="utf-8")
    assert main(["-q", "annotate", str(project), str(notes), str(tmp_path / "ann"),
                 "--cluster", "local:1"]) == 0
    assert main(["-q", "annotate", str(project), str(notes), str(tmp_path / "ann1"),
                 "--workers", "1"]) == 0
    for ann in sorted((tmp_path / "ann1").glob("*.ann")):
        assert (tmp_path / "ann" / ann.name).read_bytes() == ann.read_bytes()
    assert main(["-q", "redact", str(project), str(notes), str(tmp_path / "out"),
                 "--cluster", "local:0"]) == 1
    assert "local:4" in capsys.readouterr().err


def _worker_scratch() -> str:
    from distributed import get_worker
    return get_worker().local_directory


def test_a_local_cluster_serves_nothing_on_8787_and_keeps_its_scratch_private(
        tmp_path, monkeypatch, loopback_only):
    """`--cluster local:N` opened Dask's dashboard on 127.0.0.1:8787, which
    every local user can reach, and wrote to a shared /tmp/dask-scratch-space
    a killed run left behind (issue 35 item 2)."""
    import psutil
    from app.core.parallel import DaskEngine
    from app.core.private import private_root
    monkeypatch.setenv("DEID_USER_DIR", str(tmp_path / "user"))
    shared = tmp_path / "tmp"
    shared.mkdir()
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setattr("tempfile.tempdir", None)
    engine = DaskEngine("local:1")
    try:
        scratch = Path(engine.submit(_worker_scratch).result())
        listening = [c.laddr for c in psutil.Process().net_connections(kind="inet")
                     if c.status == psutil.CONN_LISTEN]
    finally:
        engine.close()
    assert private_root() in scratch.parents
    assert listening and all(a.ip == "127.0.0.1" and a.port != 8787 for a in listening)
    assert not [p for p in private_root().iterdir() if p.name.startswith("deid-dask-")]
    assert not (shared / "dask-scratch-space").exists()      # not even Dask's lock files
