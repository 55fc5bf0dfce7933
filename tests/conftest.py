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


@pytest.fixture(scope="session", autouse=True)
def _user_data_dir(tmp_path_factory):
    """The user's data folder (settings, error log, this computer's fit
    rates: `app.services.fit_speed`) is the session's own, so what a test
    fits never changes what another one estimates, nor the developer's own
    folder. A test that needs its own sets ``DEID_USER_DIR`` itself."""
    before = os.environ.get("DEID_USER_DIR")
    os.environ["DEID_USER_DIR"] = str(tmp_path_factory.mktemp("user"))
    yield
    if before is None:
        os.environ.pop("DEID_USER_DIR", None)
    else:
        os.environ["DEID_USER_DIR"] = before


@pytest.fixture(autouse=True)
def _cpu_without_bfloat16(monkeypatch):
    """A CPU that multiplies bfloat16 in hardware adds the transformer to a
    run's default members (`app.services.schema.default_models`); what the
    tests train by default must not hang on the machine they run on, so
    they see a CPU without it unless a test builds its own ``DeviceInfo``."""
    import dataclasses

    import app.models.device as device
    real = device.detect_devices
    monkeypatch.setattr(device, "detect_devices",
                        lambda: dataclasses.replace(real(), cpu_bf16=False))


class NetworkBlocked(RuntimeError):
    pass


# The real socket functions, for `loopback_only`.
_REAL_CONNECT, _REAL_CONNECT_EX = socket.socket.connect, socket.socket.connect_ex
_REAL_GETADDRINFO = socket.getaddrinfo


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


def _loopback(address) -> bool:
    host = address[0] if isinstance(address, tuple) else address
    return isinstance(host, str) and (host.startswith("127.") or host in ("localhost", "::1"))


@pytest.fixture
def loopback_only(_no_network, monkeypatch):
    """Connections to this machine's loopback address only (a Dask scheduler
    and its workers on 127.0.0.1); anything else still fails the test."""
    def connect(self, address):
        if self.family == getattr(socket, "AF_UNIX", None) or _loopback(address):
            return _REAL_CONNECT(self, address)
        _blocked()

    def connect_ex(self, address):
        if _loopback(address):
            return _REAL_CONNECT_EX(self, address)
        _blocked()

    def getaddrinfo(host, *args, **kwargs):
        if _loopback((host,)):
            return _REAL_GETADDRINFO(host, *args, **kwargs)
        _blocked()

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
