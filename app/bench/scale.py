"""Throughput of the real jobs (``deid annotate``, ``deid redact``) on one
machine and on a Dask cluster, as ratios to plain file copy in the same run.

* Baseline: ``shutil.copyfile`` of every note into an empty folder (what
  any export costs at least). Ratio = job throughput / copy throughput.
* Rows ``one process``: today's defaults before every core was used
  (annotate: batches of 32 in this process; redact: one note at a time in
  this process, ``batch=1``). Rows ``every core``: the new defaults
  (``app.core.parallel.default_workers()`` processes, batches of
  ``app.deid.folder.BATCH_NOTES``). Every time includes starting the
  workers and loading the model in each.
* Per-file fsync: writing each note's two output files with an fsync each
  (what every note cost before) against no fsync and one ``syncfs`` at the
  end (the manifest, fsynced once per batch, holds the outputs' hashes).
* Cluster (``python -m app.bench cluster``): the same jobs on a Dask
  scheduler and 1 and 2 single-threaded worker processes, each a process of
  its own as on a cluster (127.0.0.1, no dashboard; a ``LocalCluster``
  would run the scheduler inside this process and charge its CPU to the
  client), each timed on warm workers (a first run loads the model),
  and the projection for 1,000,000 notes of 2,000 characters on 10 nodes of
  16 cores, arithmetic shown. The client (this process: reading and
  sending the notes, the manifest) is timed too (its CPU seconds): it bounds the
  cluster's throughput whatever the number of workers.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence

PROJECTION = {"notes": 1_000_000, "chars_per_note": 2_000, "nodes": 10, "cores_per_node": 16}


def _chars(files: Sequence[Path]) -> int:
    return sum(len(p.read_text(encoding="utf-8")) for p in files)


def copy_baseline(files: Sequence[Path], tmp: Path, repeats: int) -> dict:
    """Median time to copy every note into an empty folder."""
    chars = _chars(files)
    times = []
    for k in range(max(1, repeats)):
        dest = tmp / f"copy-{k}"
        dest.mkdir()
        t = time.perf_counter()
        for p in files:
            shutil.copyfile(p, dest / p.name)
        times.append(time.perf_counter() - t)
        shutil.rmtree(dest)
    med = statistics.median(times)
    return {"what": "shutil.copyfile of every note", "seconds": [round(t, 4) for t in times],
            "median_s": round(med, 4), "chars_per_s": round(chars / med, 1)}


def fsync_cost(files: Sequence[Path], tmp: Path) -> dict:
    """Two output files per note written with an fsync each, against none
    and one ``syncfs`` at the end."""
    from app.formats.base import atomic_write, sync_folder

    data = [p.read_bytes() for p in files]
    out = {}
    for mode in ("fsync per file", "one sync at the end"):
        dest = tmp / ("fsync" if mode.startswith("fsync") else "nosync")
        dest.mkdir()
        sync = mode.startswith("fsync")
        t = time.perf_counter()
        for i, raw in enumerate(data):
            atomic_write(dest / f"n{i}.txt", raw, sync=sync)
            atomic_write(dest / f"n{i}.spans.jsonl", raw[:200], sync=sync)
        if not sync:
            sync_folder(dest)
        out[mode] = time.perf_counter() - t
        shutil.rmtree(dest)
    n = len(data)
    per = {k: round(1000 * v / n, 3) for k, v in out.items()}
    return {"notes": n, "files_per_note": 2, "ms_per_note": per,
            "saved_ms_per_note": round(per["fsync per file"] - per["one sync at the end"], 3)}


def _job(kind: str, project_path: Path, notes: Path, out: Path, **kw) -> dict:
    """Run one job: wall and this process's CPU seconds, notes done, workers
    used, and the *steady* rates, from the first note written to the last
    (``steady_chars_per_s``, and ``steady_client_chars_per_cpu_s`` per CPU
    second of this process; only when that spans half the job or more): without starting the workers, loading the
    model and the one-off set-up (the project's known identifiers), which a
    million-note job pays once. Characters there are counted as the notes'
    share of the whole (notes of a corpus are alike in length)."""
    from app.project import Project
    from app.services.annotating import annotate_folder
    from app.services.redaction import redact_corpus

    chars = _chars(sorted(notes.glob("*.txt")))
    ticks: list[tuple[float, float, float]] = []      # (fraction done, wall, CPU)

    def progress(p) -> None:
        ticks.append((p.fraction, time.perf_counter(), time.process_time()))

    t, c, all0 = time.perf_counter(), time.process_time(), _cpu_all()
    if kind == "annotate":
        with Project.open(project_path, readonly=True) as p:
            s = annotate_folder(p, notes, out, progress=progress, **kw)
        done, workers = s.notes, s.workers
    else:
        with Project.open(project_path) as p:
            summary, _ = redact_corpus(p, notes, out, strategy="surrogate", progress=progress,
                                       **kw)
        done, workers = summary.count("done"), summary.workers
    out_row = {"wall": time.perf_counter() - t, "cpu": time.process_time() - c,
               "cpu_all": _cpu_all() - all0, "done": done, "workers": workers}
    ticks = [tk for tk in ticks if 0 < tk[0]]
    # Outputs recorded in order arrive in a burst when the first batch is the
    # last to finish: a window that short says nothing about a long job's
    # rate (2 workers redacting 7 batches once gave 20 times the whole rate),
    # so the steady rate is only given when it spans half the job at least.
    if len(ticks) >= 2 and ticks[-1][0] > ticks[0][0] \
            and ticks[-1][1] - ticks[0][1] >= 0.5 * out_row["wall"]:
        share = chars * (ticks[-1][0] - ticks[0][0])
        wall, cpu = ticks[-1][1] - ticks[0][1], ticks[-1][2] - ticks[0][2]
        out_row["steady_chars_per_s"] = round(share / wall, 1) if wall > 0 else None
        out_row["steady_client_chars_per_cpu_s"] = round(share / cpu, 1) if cpu > 0 else None
    return out_row


def _cpu_all() -> float:
    """CPU seconds of this process and of its finished worker processes
    (a pool's workers are joined at the end of a job)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def measure_jobs(project_path: Path, notes: Path, tmp: Path, copy_rate: float,
                 log: Callable[[str], None]) -> list[dict]:
    """annotate and redact, one process (today's default) vs every core."""
    from app.core.parallel import default_workers

    chars = _chars(sorted(notes.glob("*.txt")))
    n = default_workers()
    runs = [("annotate", "one process (before)", dict(workers=1)),
            ("annotate", "every core", dict(workers=n)),
            ("redact", "one process, note by note (before)", dict(workers=1, batch=1)),
            ("redact", "every core", dict(workers=n))]
    rows, before = [], {}
    for i, (kind, how, kw) in enumerate(runs):
        job = _job(kind, project_path, notes, tmp / f"job-{i}", **kw)
        wall, done, used = job["wall"], job["done"], job["workers"]
        if how == "every core":
            how += f" ({used} process{'es' if used > 1 else ', one batch'})"
        rate = chars / wall
        before.setdefault(kind, rate)
        rows.append({"job": kind, "how": how, "notes": done, "seconds": round(wall, 3),
                     "chars_per_s": round(rate, 1), "ratio": float(f"{rate / copy_rate:.5g}"),
                     "speedup": round(rate / before[kind], 2),
                     "steady_chars_per_s": job.get("steady_chars_per_s"),
                     "cpu_s": round(job["cpu_all"], 3),
                     "chars_per_cpu_s": round(chars / job["cpu_all"], 1)})
        log(f"scale: {kind} {how}: {rate:,.0f} chars/s")
    return rows


def measure_cluster(project_path: Path, notes: Path, tmp: Path, copy_rate: float,
                    log: Callable[[str], None], sizes: Sequence[int] = (1, 2)) -> dict:
    """The jobs on Dask clusters of ``sizes`` worker processes (warm), and the projection."""
    from app.errors import UserError
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UserError('the cluster benchmark needs the Dask extra: pip install '
                        '"deid-studio[cluster]"') from None
    chars = _chars(sorted(notes.glob("*.txt")))
    rows, rss = [], None
    for n in sizes:
        with dask_processes(n, tmp / f"dask-{n}") as address:
            for kind in ("annotate", "redact"):
                _job(kind, project_path, notes, tmp / f"warm-{kind}-{n}",
                     cluster=address)                             # loads the model
                before = _workers_cpu(address)
                job = _job(kind, project_path, notes, tmp / f"dask-{kind}-{n}", cluster=address)
                workers_cpu = _workers_cpu(address) - before
                wall, cpu = job["wall"], job["cpu"]
                rows.append({"job": kind, "workers": n, "notes": job["done"],
                             "seconds": round(wall, 3), "chars_per_s": round(chars / wall, 1),
                             "ratio": float(f"{chars / wall / copy_rate:.5g}"),
                             "client_cpu_s": round(cpu, 3),
                             "client_chars_per_cpu_s": round(chars / cpu, 1) if cpu else None,
                             "steady_chars_per_s": job.get("steady_chars_per_s"),
                             "steady_client_chars_per_cpu_s":
                                 job.get("steady_client_chars_per_cpu_s"),
                             "workers_cpu_s": round(workers_cpu, 3),
                             "worker_chars_per_cpu_s":
                                 round(chars / workers_cpu, 1) if workers_cpu else None})
                log(f"cluster: {kind} on {n} worker(s): {chars / wall:,.0f} chars/s")
            if n == 1:
                rss = _worker_rss_mb(address)
    return {"chars": chars, "rows": rows, "worker_rss_mb": rss, "projection": project(rows)}


@contextmanager
def dask_processes(n: int, tmp: Path, timeout_s: float = 120) -> Iterator[str]:
    """A Dask scheduler and ``n`` single-threaded workers, each a process of
    its own on 127.0.0.1 (no dashboard, no nanny); yields the scheduler's
    address, stops them all on exit."""
    from distributed import Client

    tmp.mkdir(parents=True)
    spec = tmp / "scheduler.json"
    # The scheduler's scratch (lock files) goes under ``tmp`` too, not into a
    # shared /tmp/dask-scratch-space that outlives the run.
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                 env={**os.environ, "DASK_TEMPORARY_DIRECTORY": str(tmp / "scratch")})
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                               "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(spec)], **quiet)]
    try:
        end = time.monotonic() + timeout_s
        while not (spec.is_file() and spec.stat().st_size):
            if time.monotonic() > end or procs[0].poll() is not None:
                raise RuntimeError("the Dask scheduler did not start")
            time.sleep(0.2)
        address = json.loads(spec.read_text())["address"]
        procs += [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                    "--scheduler-file", str(spec), "--host", "127.0.0.1",
                                    "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                    "--local-directory", str(tmp / f"w{i}")], **quiet)
                  for i in range(n)]
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(n, timeout=timeout_s)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def _workers_cpu(address: str) -> float:
    """CPU seconds the cluster's worker processes have used, together (what
    a job costs them whatever else the machine runs)."""
    from distributed import Client

    def cpu() -> float:
        import psutil
        t = psutil.Process().cpu_times()
        return t.user + t.system

    with Client(address, timeout="30s") as client:
        return sum(client.run(cpu).values())


def _worker_rss_mb(address: str) -> float:
    """Resident memory of a worker process holding the model and the scan's
    members (what each worker needs), the largest over the workers."""
    from distributed import Client

    def rss() -> float:
        import psutil
        return psutil.Process().memory_info().rss / 2**20

    with Client(address, timeout="30s") as client:
        return round(max(client.run(rss).values()), 1)


def _steady(row: dict, key: str) -> float | None:
    """The row's steady rate ``steady_<key>`` (first note written to last)
    where measured, else ``key`` (the whole job's)."""
    return row.get(f"steady_{key}") or row.get(key)


def project(rows: list[dict]) -> dict:
    """1M notes x 2,000 chars on 10 nodes x 16 cores, from the 1- and 2-worker redact
    rows: their steady rates (a million-note job starts its workers and sets up once)."""
    red = {r["workers"]: r for r in rows if r["job"] == "redact"}
    one, two = red.get(1), red.get(2)
    if one is None or two is None:
        return {}
    p = PROJECTION
    total = p["notes"] * p["chars_per_note"]
    workers = p["nodes"] * p["cores_per_node"]
    per_worker = _steady(one, "chars_per_s")
    efficiency = _steady(two, "chars_per_s") / (2 * per_worker)
    cluster_rate = workers * per_worker * efficiency
    client_cap = min(_steady(r, "client_chars_per_cpu_s") or float("inf") for r in red.values())
    rate = min(cluster_rate, client_cap)
    # The same from CPU time alone (a dedicated core per worker; what a
    # shared, loaded machine cannot show in wall time).
    per_cpu = one.get("worker_chars_per_cpu_s")
    cpu_rate = min(workers * per_cpu, client_cap) if per_cpu else None
    return {**p, "total_chars": total, "workers": workers, "per_worker_chars_per_s": per_worker,
            "efficiency_2": round(efficiency, 3), "cluster_chars_per_s": round(cluster_rate, 1),
            "client_cap_chars_per_s": round(client_cap, 1), "chars_per_s": round(rate, 1),
            "hours": round(total / rate / 3600, 2),
            "one_machine_hours": round(total / _steady(two, "chars_per_s") / 3600, 1),
            "bound": "client" if client_cap < cluster_rate else "workers",
            "per_worker_chars_per_cpu_s": per_cpu,
            "cpu_chars_per_s": round(cpu_rate, 1) if cpu_rate else None,
            "cpu_hours": round(total / cpu_rate / 3600, 2) if cpu_rate else None}


def projection_lines(pr: dict) -> list[str]:
    """The projection's arithmetic, one step a line."""
    if not pr:
        return []
    return [
        f"- corpus: {pr['notes']:,} notes x {pr['chars_per_note']:,} chars = "
        f"{pr['total_chars']:,} chars",
        f"- workers: {pr['nodes']} nodes x {pr['cores_per_node']} cores = {pr['workers']} "
        f"single-threaded worker processes",
        f"- per worker (measured, 1 worker, steady): {pr['per_worker_chars_per_s']:,.0f} chars/s; "
        f"efficiency at 2 workers on this 2-core machine (measured): {pr['efficiency_2']}",
        f"- workers together: {pr['workers']} x {pr['per_worker_chars_per_s']:,.0f} x "
        f"{pr['efficiency_2']} = {pr['cluster_chars_per_s']:,.0f} chars/s (assuming each node "
        f"keeps this machine's per-core efficiency)",
        f"- client cap (reading and sending the notes, the manifest; chars per CPU second "
        f"of the client, steady, the lower of the two runs): "
        f"{pr['client_cap_chars_per_s']:,.0f} chars/s",
        f"- throughput: min of the two = {pr['chars_per_s']:,.0f} chars/s ({pr['bound']} bound)",
        f"- time: {pr['total_chars']:,} / {pr['chars_per_s']:,.0f} = "
        f"{pr['hours']} hours (this 2-core machine alone: {pr['one_machine_hours']} hours)",
    ] + ([
        f"- from CPU time (a dedicated core per worker): {pr['workers']} x "
        f"{pr['per_worker_chars_per_cpu_s']:,.0f} chars per worker CPU s = "
        f"{pr['workers'] * pr['per_worker_chars_per_cpu_s']:,.0f} chars/s, capped by the client "
        f"at {pr['client_cap_chars_per_s']:,.0f}: {pr['cpu_chars_per_s']:,.0f} chars/s, "
        f"{pr['cpu_hours']} hours"] if pr.get("cpu_chars_per_s") else [])


def notes_folder(files: Sequence[Path], tmp: Path) -> Path:
    """The measured notes in a folder of their own (jobs take a folder)."""
    folder = tmp / "scale-notes"
    folder.mkdir()
    for p in files:
        shutil.copyfile(p, folder / p.name)
    return folder


def run_scale(project_path: Path, files: Sequence[Path], *, repeats: int,
              log: Callable[[str], None], cluster: bool = False) -> dict:
    """Copy baseline, fsync cost, the jobs (and the cluster part when asked)."""
    with tempfile.TemporaryDirectory(prefix="deid-bench-scale-") as tmp_name:
        tmp = Path(tmp_name)
        notes = notes_folder(files, tmp)
        # redact writes the project's secret and log: a copy is measured.
        work = tmp / "project.deid"
        shutil.copyfile(project_path, work)
        base = copy_baseline(sorted(notes.glob("*.txt")), tmp, repeats)
        log(f"scale: copy baseline {base['chars_per_s']:,.0f} chars/s")
        out = {"copy": base, "fsync": fsync_cost(sorted(notes.glob("*.txt")), tmp)}
        if cluster:
            out["cluster"] = measure_cluster(work, notes, tmp, base["chars_per_s"], log)
        else:
            out["jobs"] = measure_jobs(work, notes, tmp, base["chars_per_s"], log)
    return out
