"""Test-suite wide setup: offline by construction, Qt offscreen."""
from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

REPO = Path(__file__).resolve().parents[1]

# Real trainings on a loaded 2-core machine can take many minutes; everything
# else gets pyproject's `timeout` (600 s).
SLOW_TEST_TIMEOUT_S = 1800


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` get the longer timeout unless they name their own."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TEST_TIMEOUT_S))


def meddocan_dir() -> Path | None:
    """The MEDDOCAN corpus (../shared/data/meddocan), or None if absent."""
    env = os.environ.get("DEID_MEDDOCAN")
    path = Path(env) if env else REPO.parent / "shared" / "data" / "meddocan"
    return path if (path / "train").is_dir() else None


@pytest.fixture
def meddocan() -> Path:
    """Path of MEDDOCAN; the test is skipped where the corpus is absent."""
    path = meddocan_dir()
    if path is None:
        pytest.skip("MEDDOCAN corpus not available (../shared/data/meddocan or $DEID_MEDDOCAN)")
    return path


class NetworkBlocked(RuntimeError):
    pass


def _blocked(*args, **kwargs):
    raise NetworkBlocked("network access attempted during tests (the product must work offline)")


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """Any outbound socket connection fails: an accidental download is a test failure."""
    real_connect = socket.socket.connect

    def guarded_connect(self, address):
        # Local IPC (AF_UNIX) is allowed: multiprocessing and Qt use it.
        if self.family == getattr(socket, "AF_UNIX", None):
            return real_connect(self, address)
        _blocked()

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", lambda self, address: _blocked())
    monkeypatch.setattr(socket, "create_connection", _blocked)
    monkeypatch.setattr(socket, "getaddrinfo", _blocked)
