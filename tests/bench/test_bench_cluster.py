"""The cluster benchmark's Dask processes: the scheduler outside this process."""
import os

import pytest

pytest.importorskip("distributed")

from app.bench.scale import dask_processes  # noqa: E402


def test_the_scheduler_and_workers_are_processes_of_their_own(tmp_path, loopback_only,
                                                             monkeypatch):
    """A LocalCluster would run the scheduler in the client's process and
    charge its CPU to the client, which the projection takes as its cap.
    Their scratch stays in the run's folder: the scheduler's lock files were
    left in the machine's shared temporary folder."""
    from distributed import Client
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    monkeypatch.setenv("TMPDIR", str(shared))
    with dask_processes(2, tmp_path / "dask") as address:
        with Client(address, timeout="30s") as client:
            assert client.run_on_scheduler(os.getpid) != os.getpid()
            workers = client.run(os.getpid)
            assert len(workers) == 2 and os.getpid() not in workers.values()
            assert all(w["nthreads"] == 1 for w in client.scheduler_info()["workers"].values())
            assert address.startswith("tcp://127.0.0.1:")
    assert list(shared.iterdir()) == []
