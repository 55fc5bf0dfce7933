"""Fitting the members of a training run, one after another or several at once.

``fit_member`` trains one member (its hyperparameter search, or the rule
recogniser) and saves it. ``fit_in_workers`` runs several ``fit_member``
calls in worker processes at once: on a GPU machine spaCy can train on the
CPU cores while Stanza and Flair share the GPU, so a run takes about as
long as its slowest member rather than their sum. Processes, not threads:
the three libraries hold the GIL for much of their Python-level work, and a
process can be stopped outright when the user cancels.

Workers are started with ``spawn`` (safe with CUDA and in the frozen app)
and report progress, the result or the exception through one queue.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import queue as queue_mod
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from app.core.parallel import end_with_parent
from app.core.progress import CancelToken, Progress, ProgressFn
from app.models.base import Corpus, TrainedModel
from app.models.budget import Budget, get_budget


@dataclass
class MemberJob:
    """Everything needed to fit one member, in this process or another."""

    name: str
    kind: str
    variant: str | None
    params: dict
    corpus: Corpus
    workdir: Path            # scratch space of this member
    out_dir: Path            # where the fitted model is saved
    cache: Path              # shared cache (word vectors) of the run
    device: str = "cpu"
    seed: int = 13
    # The run's Budget (a name is looked up); it bounds the member's work.
    budget: Budget = "standard"  # type: ignore[assignment]
    # The safety stop: seconds left of the run's clock when the member starts.
    time_cap: float | None = None
    # Worker processes only: torch CPU threads (None = library default) and
    # whether the parent keeps Stanza/Flair INFO lines off the terminal.
    threads: int | None = None
    quiet: bool = False
    # False: fit ``params`` as they are, no search (a refit after the selection).
    search: bool = True

    def __post_init__(self) -> None:
        self.budget = get_budget(self.budget)


@dataclass
class MemberFit:
    """What fitting a member produced (the model itself is in ``out_dir``)."""

    params: dict
    trials: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    peak_mb: float = 0.0
    clock_stop: bool = False     # the safety stop on the clock ended a trial early
    added_mb: float | None = None  # the peak less what the process held before it


def fit_member(job: MemberJob, progress: ProgressFn) -> tuple[MemberFit, TrainedModel]:
    """Train ``job``'s member, save it to ``job.out_dir``; return it and its record."""
    from app.models.base import FIXED_KINDS, TrainContext, spec_class
    from app.models.hpo import search
    from app.services.memory import PeakMemory

    ctx = TrainContext(workdir=job.workdir, device=job.device, seed=job.seed, budget=job.budget,
                       progress=progress, resources={"cache": job.cache}, max_seconds=job.time_cap)
    ctx.workdir.mkdir(parents=True, exist_ok=True)
    spec_cls = spec_class(job.kind)
    started = time.perf_counter()
    with PeakMemory() as mem:
        if job.kind in FIXED_KINDS or not job.search:
            model, params, trials = spec_cls(**job.params).fit(job.corpus, ctx), job.params, []
        else:
            # search() raises when every trial failed; the best one keeps its model.
            params, rows = search(spec_cls, job.params, job.corpus, ctx)
            model = next(r.model for r in rows if r.model is not None)
            trials = [r.as_row() for r in rows]
    seconds = time.perf_counter() - started
    if model.fit_details():
        params = {**params, "fit": model.fit_details()}
        if "train_pieces" in params["fit"]:
            # This computer's rate, for the next estimate of a fit's time here.
            from app.services.fit_speed import record_fit
            record_fit(params["fit"])
    model.save(job.out_dir)
    clock_stop = any(t.get("clock_stop") for t in trials) or \
        bool((getattr(model, "info", None) or {}).get("clock_stop"))
    return MemberFit(params, trials, seconds, mem.peak_mb, clock_stop, mem.added_mb), model


def _worker(job: MemberJob, events) -> None:
    """Body of a worker process: fit, then report ``done`` or ``error``."""
    # A parent killed outright cannot stop its workers; without this they
    # would go on training for an hour into a folder nobody reads.
    end_with_parent(code=3)
    if job.quiet:
        from app.core.logs import quiet_library_logs
        quiet_library_logs()
    if job.threads:
        try:
            import torch
            torch.set_num_threads(job.threads)
        except ImportError:
            pass
    try:
        fit, _ = fit_member(job, lambda p: events.put(("progress", job.name, p)))
        events.put(("done", job.name, fit))
    except BaseException as exc:                       # reported, re-raised by the parent
        try:
            pickle.dumps(exc)
        except Exception:
            exc = RuntimeError(f"training {job.name} failed ({type(exc).__name__})")
        events.put(("error", job.name, exc))


def fit_in_workers(jobs: Sequence[MemberJob], workers: int, *,
                   prepare: Callable[[MemberJob, int], MemberJob],
                   on_progress: Callable[[str, Progress], None],
                   on_done: Callable[[MemberJob, MemberFit], None],
                   cancel: CancelToken | None = None, poll: float = 0.25) -> None:
    """Fit ``jobs`` in up to ``workers`` processes at once, in order of start.

    ``prepare(job, running)`` is called just before a job starts (with the
    number of jobs then running) and returns the job to run, e.g. with its
    time cap set from what is left of the run. ``on_progress`` and
    ``on_done`` run in this process, in the calling thread; ``on_done``
    receives the record once the model is saved in ``job.out_dir``. A
    worker's exception is re-raised here, cancelling (``on_progress`` or
    ``cancel`` raising ``Cancelled``) stops every worker, and no worker
    outlives this call.
    """
    context = mp.get_context("spawn")
    events = context.Queue()
    pending = list(jobs)
    running: dict[str, tuple] = {}
    threads = max(1, thread_budget() // max(1, min(workers, len(pending))))
    try:
        while pending or running:
            while pending and len(running) < workers:
                job = prepare(pending.pop(0), len(running))
                job.threads, job.quiet = job.threads or threads, _quiet()
                proc = context.Process(target=_worker, args=(job, events), daemon=True,
                                       name=f"deid-train-{job.name}")
                proc.start()
                running[job.name] = (proc, job)
            try:
                kind, name, payload = events.get(timeout=poll)
            except queue_mod.Empty:
                if cancel:
                    cancel.check()
                _check_alive(running, events)
                continue
            if kind == "progress":
                on_progress(name, payload)
            elif kind == "error":
                raise payload
            else:
                proc, job = running.pop(name)
                proc.join()
                on_done(job, payload)
    finally:
        for proc, _ in running.values():
            proc.terminate()
        for proc, _ in running.values():
            proc.join(timeout=10)
        events.close()


def thread_budget() -> int:
    """The cores the workers of this process share: ``OMP_NUM_THREADS``
    where it is set (a process sharing the machine with others, such as one
    of the benchmark's folds trained at once), else every core the process
    may run on."""
    from app.core.parallel import default_workers
    try:
        return max(1, int(os.environ["OMP_NUM_THREADS"]))
    except (KeyError, ValueError):
        return default_workers()


def _check_alive(running: dict, events) -> None:
    """A worker that died without a word (killed, out of memory) fails the run."""
    for name, (proc, _) in running.items():
        if proc.is_alive():
            continue
        time.sleep(0.5)           # its last message may still be in the pipe
        if not events.empty():
            return
        raise RuntimeError(f"the process training {name} stopped unexpectedly "
                           f"(exit code {proc.exitcode})")


def _quiet() -> bool:
    from app.core.logs import library_logs_quiet
    return library_logs_quiet()
