"""Where batch work runs: in this process, a local process pool, or a Dask cluster.

Redaction and annotation hand *idempotent* tasks to an engine (predict the
spans of a batch of notes; redact, scan and write a batch of whole
patients' notes, each file replaced whole) and keep what records progress
(the manifest, the surrogate memory) in the calling process. So a task
that a cluster runs twice (Dask reschedules the tasks of a worker that
died) changes nothing.

An engine's ``submit(fn, *args)`` returns an object with ``result()``. The
worker side loads a model once per process with :func:`loaded`, keyed by
the caller (project path, run and settings), not once per task.

Dask (``dask.distributed``) is an optional extra (``pip install
"deid-studio[cluster]"``): it is imported only when a cluster is asked for,
so the desktop application and the core never need it.
"""
from __future__ import annotations

import atexit
import multiprocessing as mp
import os
import re
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

from app.errors import UserError

#: What ``--cluster`` takes besides a scheduler address: a local cluster of N processes.
LOCAL_PREFIX = "local:"
#: A scheduler address ``--cluster`` takes: ``tcp://`` or ``tls://`` host and port.
SCHEDULER_ADDRESS = re.compile(r"(tcp|tls)://([A-Za-z0-9.\-]+|\[[0-9A-Fa-f:]+\])(:\d{1,5})?")


def default_workers() -> int:
    """Every core this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def resolve_workers(workers: int | None) -> int:
    """``workers`` checked, ``None`` meaning every core."""
    if workers is None:
        return default_workers()
    if workers < 1:
        raise UserError("--workers must be at least 1")
    return int(workers)


# ------------------------------------------------------------ worker side
_LOADED: dict[Any, Any] = {}
_LOAD_LOCK = threading.Lock()
_USE_LOCKS: dict[Any, threading.Lock] = {}


def loaded(factory: Callable[[], Any], key: Any) -> tuple[Any, threading.Lock]:
    """``factory()`` built once per process for ``key``, and a lock to use it by.

    ``key`` must change when what the factory builds changes (the project's
    active run, the settings), so a long-lived cluster worker never predicts
    with a stale model. Objects of an older key of the same role
    (``key[0]``) are closed and dropped. The lock serialises the use of one
    model by several threads of a worker (models are not thread-safe).
    """
    with _LOAD_LOCK:
        if key not in _LOADED:
            role = key[0] if isinstance(key, tuple) and key else None
            for old in [k for k in _LOADED if isinstance(k, tuple) and k and k[0] == role]:
                close = getattr(_LOADED.pop(old), "close", None)
                _USE_LOCKS.pop(old, None)
                if callable(close):
                    close()
            _LOADED[key] = factory()
            _USE_LOCKS[key] = threading.Lock()
        return _LOADED[key], _USE_LOCKS[key]


def forget_all(wait_s: float | None = None) -> None:
    """Close and drop everything :func:`loaded` built in this process.

    A pool worker runs it as it exits: a model loaded there keeps its files
    in a private folder (:class:`app.core.private.PrivateDir`), and a worker
    ends without its objects' ``__del__`` being run, which left a
    ``deid-model-*`` folder in the user-data tmp after every ``deid
    redact`` that used workers (issue 35 item 14).

    ``wait_s``: give up after this long if a model is being loaded (a
    worker whose parent died must end at once; the next command sweeps
    what it leaves).
    """
    if not _LOAD_LOCK.acquire(timeout=-1 if wait_s is None else wait_s):
        return
    try:
        objs = list(_LOADED.values())
        _LOADED.clear()
        _USE_LOCKS.clear()
    finally:
        _LOAD_LOCK.release()
    for obj in objs:
        close = getattr(obj, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # one failing close must not keep the others' files
                pass


def forget(key: Any) -> None:
    """Close and drop what :func:`loaded` built for ``key`` in this process
    (the in-process engine, at the end of its job)."""
    with _LOAD_LOCK:
        obj = _LOADED.pop(key, None)
        _USE_LOCKS.pop(key, None)
    close = getattr(obj, "close", None)
    if callable(close):
        close()


# ------------------------------------------------------------------ engines
class _Deferred:
    """A task of the in-process engine: computed when its result is asked."""

    def __init__(self, fn: Callable, args: tuple) -> None:
        self._fn, self._args = fn, args

    def result(self) -> Any:
        return self._fn(*self._args)


class Engine:
    """Runs tasks; ``workers`` is how many run at once (the look-ahead is sized by it)."""

    workers = 1
    description = "this process"

    def submit(self, fn: Callable, *args: Any, priority: int = 0) -> Any:
        return _Deferred(fn, args)

    def share(self, obj: Any) -> Any:
        """``obj`` as an argument of many tasks: itself here and for a process
        pool (pickled with each task); sent once to every worker of a cluster."""
        return obj

    def close(self) -> None:
        """Release the workers (tasks not yet asked for are dropped)."""

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class InProcess(Engine):
    """Each task runs in this process when its result is asked, in order."""


#: True in a `ProcessPool` worker: a process started for one job.
_POOL_WORKER = False


#: How long a pool worker whose parent died may spend closing its models.
CLOSE_ON_PARENT_DEATH_S = 0.5


def _start_worker(threads: int) -> None:
    """In a fresh worker, before torch or BLAS load: their thread pools share
    the cores with the other workers instead of each taking all of them.
    The worker also ends with its parent (:func:`end_with_parent`)."""
    global _POOL_WORKER
    _POOL_WORKER = True
    atexit.register(forget_all)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    # The loaded models' private folders go too (os._exit runs no atexit);
    # one left by a worker killed outright is swept by the next command,
    # its owner being gone.
    end_with_parent(lambda: forget_all(wait_s=CLOSE_ON_PARENT_DEATH_S))


#: ``prctl`` option: the signal this process gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1


def end_with_parent(before_exit: Callable[[], None] | None = None, code: int = 1) -> None:
    """End this process, one the app spawned (a pool or training worker),
    as soon as the process that started it is gone.

    A parent killed outright (``kill -9``, a crash, the task manager) cannot
    end its workers: they kept their models (about 95 MB each) and the
    resource tracker they hold open alive for good (issue 35 item 10).

    Two guards:

    - A thread waits on the parent's sentinel, which is closed when the
      parent dies, runs ``before_exit`` and ends the process with ``code``.
      The sentinel is closed already if the parent died while this process
      was starting (importing for seconds): a worker that then read
      ``getppid()`` as its parent's pid got init's and waited for good.
    - On Linux the kernel also kills the process the moment its parent dies
      (``PR_SET_PDEATHSIG``): the thread cannot run while a long C call
      holds the GIL (a regular expression over a big note, a model being
      read), and such a worker outlived its parent as long as the call.
      Linux sends the signal when the *thread* that started the process
      ends: pools and training workers are closed by the thread that opened
      them (an engine is one job's, ``fit_in_workers`` joins its workers).
    """
    parent = mp.parent_process()
    if parent is None:
        return
    if sys.platform.startswith("linux"):
        import ctypes
        import signal
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):    # no prctl: the thread alone
            pass
        if os.getppid() != parent.pid:       # died before the signal was asked for
            os._exit(code)

    def watch() -> None:
        from multiprocessing.connection import wait
        wait([parent.sentinel])
        try:
            if before_exit is not None:
                before_exit()
        finally:
            os._exit(code)

    threading.Thread(target=watch, name="deid-parent-watch", daemon=True).start()


@contextmanager
def unimportable(names: Iterable[str]) -> Iterator[None]:
    """In a `ProcessPool` worker, ``import`` of each of ``names`` not imported
    yet fails within (as if not installed): a library that only probes for an
    optional module at import (thinc for torch, xgboost for scikit-learn)
    then does not load it, seconds at each worker start. Lifted on exit.
    Elsewhere a no-op: this process or a long-lived Dask worker may run a
    later job that needs them, and the probing library would not look again.
    """
    if not _POOL_WORKER:
        yield
        return
    blocked = [n for n in names if n not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        yield
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


class ProcessPool(Engine):
    """``workers`` spawned processes (safe with torch, CUDA and the frozen app),
    the machine's cores shared out between their thread pools.

    A worker that dies (killed, out of memory) breaks Python's pool and
    every task it held: the pool is started again and those tasks run
    again there (they are idempotent), as a cluster reschedules a lost
    worker's; a task that a worker dies of twice fails."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.description = f"{workers} worker processes"
        self._lock = threading.Lock()
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers, mp_context=mp.get_context("spawn"),
            initializer=_start_worker, initargs=(max(1, default_workers() // self.workers),))

    def submit(self, fn: Callable, *args: Any, priority: int = 0) -> Any:
        return _PoolTask(self, fn, args)

    def _renew(self, broken: ProcessPoolExecutor) -> ProcessPoolExecutor:
        """The pool to run again on, once ``broken`` lost a worker: a new
        one, started by the first task to find it broken."""
        with self._lock:
            if self._pool is broken:
                broken.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()
            return self._pool

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class _PoolTask:
    """A task of a `ProcessPool`, run again (once) on a new pool when a
    worker died while the pool held it."""

    def __init__(self, engine: ProcessPool, fn: Callable, args: tuple) -> None:
        self._engine, self._fn, self._args = engine, fn, args
        self._tries = 0
        self._submit(engine._pool)

    def _submit(self, pool: ProcessPoolExecutor) -> None:
        from concurrent.futures.process import BrokenProcessPool
        self._tries += 1
        self._pool = pool
        try:
            self._future = pool.submit(self._fn, *self._args)
        except BrokenProcessPool:
            if self._tries > 2:
                raise
            self._submit(self._engine._renew(pool))

    def result(self) -> Any:
        from concurrent.futures.process import BrokenProcessPool
        while True:
            try:
                return self._future.result()
            except BrokenProcessPool:
                if self._tries >= 2:
                    raise BrokenProcessPool("a worker process died twice while it held these "
                                            "notes (out of memory, or killed)") from None
                self._submit(self._engine._renew(self._pool))

    def cancel(self) -> bool:
        return self._future.cancel()


class DaskEngine(Engine):
    """Tasks sent to a ``dask.distributed`` scheduler.

    ``address``: a scheduler (``tcp://host:8786``) or ``local:N`` (a
    ``LocalCluster`` of N single-threaded worker processes on this machine,
    loopback only, no dashboard). Tasks are submitted impure (every batch is
    its own task) with the caller's priority; a task lost with its worker is
    run again elsewhere by the scheduler.
    """

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UserError("--cluster needs the optional Dask extra: "
                            'pip install "deid-studio[cluster]" (dask and distributed)') from None
        self._cluster = None
        self._scratch = None
        if address.startswith(LOCAL_PREFIX):
            digits = address[len(LOCAL_PREFIX):]
            n = int(digits) if digits.isascii() and digits.isdigit() and len(digits) < 7 else 0
            if n < 1:
                raise UserError(f"--cluster {address}: say how many worker processes, "
                                f"e.g. {LOCAL_PREFIX}4")
            # More processes than cores only share them (local:100000 tried
            # to start 100,000 workers).
            n = min(n, os.cpu_count() or 1)
            import dask
            from app.core.private import PrivateDir
            # The workers' scratch (spilled data: note text) in a private
            # folder swept like the others, not a shared /tmp/dask-scratch-space
            # that a killed run leaves behind.
            self._scratch = PrivateDir("deid-dask-")
            try:
                # No dashboard, and the scheduler's HTTP server, which Dask
                # always starts, serves nothing on a random loopback port
                # (it took 127.0.0.1:8787, reachable by every local user).
                # Dask's own lock files go to the scratch too, not /tmp.
                with dask.config.set({"distributed.scheduler.http.routes": [],
                                      "temporary-directory": str(self._scratch.path)}):
                    self._cluster = LocalCluster(
                        n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address=None, local_directory=str(self._scratch.path),
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
            except Exception as exc:  # the type only: Dask's messages vary by cause
                self._scratch.close()
                raise UserError(f"--cluster {address}: could not start the local Dask workers "
                                f"({type(exc).__name__})") from None
            address = self._cluster.scheduler_address
        elif not SCHEDULER_ADDRESS.fullmatch(address):
            raise UserError(f"--cluster {address}: give a Dask scheduler address "
                            f"(tcp://HOST:8786) or {LOCAL_PREFIX}N for N local worker processes")
        try:
            self._client = Client(address, timeout="30s")
        except Exception as exc:
            # Something that is no scheduler answers in any way (an HTTP
            # server's reply read as a 3 EiB frame: MemoryError): the type only.
            self._close_local()
            raise UserError(f"cannot reach the Dask scheduler at {address} "
                            f"({type(exc).__name__})") from None
        threads = sum(w.get("nthreads", 1) for w in
                      self._client.scheduler_info().get("workers", {}).values())
        self.workers = max(1, threads)
        self.description = f"Dask cluster {address} ({threads} worker threads)"

    def submit(self, fn: Callable, *args: Any, priority: int = 0) -> Any:
        return self._client.submit(fn, *args, pure=False, priority=priority)

    def share(self, obj: Any) -> Any:
        # Sent once as a task that returns it, not with every task, and not
        # scattered: scattered data lost with a killed worker cancels the
        # tasks that need it ("already forgotten"), while a task's result is
        # computed again by the scheduler.
        return self._client.submit(_identity, obj, pure=False, priority=1)

    def close(self) -> None:
        self._client.close()
        self._close_local()

    def _close_local(self) -> None:
        if self._cluster is not None:
            self._cluster.close()
        if self._scratch is not None:
            self._scratch.close()


def _identity(obj: Any) -> Any:
    return obj


def open_engine(workers: int, cluster: str | None = None, *, batches: int | None = None) -> Engine:
    """The engine for one job: ``cluster`` (an address or ``local:N``) if given,
    else ``workers`` processes, else this process.

    ``batches``: how many tasks the job has, when known; a job of one batch
    runs in this process (spawning workers that each load the model would
    cost more than it saves).
    """
    if cluster:
        return DaskEngine(cluster)
    n = workers if batches is None else min(workers, batches)
    return ProcessPool(n) if n > 1 else InProcess()
