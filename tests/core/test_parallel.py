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
