"""``speed``: throughput of every model, training cost, project open time, cost growth.

Throughput is characters per second over held-out synthetic notes (seed B,
en_AU + en_US) read from ``.txt`` files, and each figure is also given as
a *ratio* to a baseline measured in the same run: reading the same files
and canonically segmenting/tokenising them (`app.core.tokenize.segment`).
A ratio of 0.05 means 20 times the baseline's time; ratios travel between
machines better than raw rates.

* Members (base models and the rules) tag all segments once each; a
  member's time is baseline + its tagging + decoding its tags to spans.
* An ensemble's time is "predict from members": baseline + the tagging of
  each of its members (measured once, above) + combining their outputs
  + decoding. Members run one after another, as `Predictor` runs them.
* The selected candidate and the rules are also timed end to end through
  `Predictor.predict` (the path `deid annotate/redact` takes); the targets
  are checked on those end-to-end figures.
* GPU: repeated with the members on CUDA when ``torch.cuda.is_available()``.
* Cost growth: end-to-end throughput of the selected candidate and of the
  rules at 1x, 4x and 16x corpus size; ``exponent`` k fits time ~ size^k
  between 1x and 16x (k = 1: linear).
* Project open: a project with 10,000 synthetic notes (smoke: 200);
  time of `Project.open` + `count_documents` + the first page of
  `document_infos` (200 rows, the document list's page), warm file cache.

Training figures (wall time, peak RSS of the process while the member
trained, saved size) are read from the training run; peak RSS includes
whatever the process held before (earlier members, imports).

``results`` keys (JSON)::

    train          app.bench.train.run_summary of the run measured
    corpus         {notes, chars, segments, tokens}
    baseline       {what, seconds: [...], median_s, chars_per_s}
    devices        {"cpu"|"cuda": {load_s, rss_mb_loaded, rows: [row], end_to_end:
                    {"selected"|"rules": {name, seconds, chars_per_s, ratio}}}}
                   row = {name, type (base|rules|ensemble), members, seconds,
                          chars_per_s, ratio, tag_s, peak_rss_mb, gpu_peak_mb}
    find_hits      {seconds, median_s, chars_per_s, ratio}: raw rule matcher
    growth         {"selected"|"rules": {name, points: [{factor, notes, chars,
                    seconds, chars_per_s}], exponent, linear}}
    project_open   {notes, file_mb, create_s, open_s: [...], median_s, first_page_rows}
"""
from __future__ import annotations

import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

from app.bench.config import FIRST_PAGE, SEED_OPEN, SEED_TEST, TARGETS, Size
from app.bench.corpora import add_documents, create_synthetic_project, synthetic_notes
from app.bench.train import run_summary, train
from app.core.bio import tags_to_spans
from app.core.tokenize import segment
from app.errors import UserError

GROWTH_FACTORS = (1, 4, 16)
# Exponent band read as "linear": timing noise on a shared machine is large.
LINEAR_BAND = (0.85, 1.15)


def _timed(fn: Callable[[], object]) -> tuple[float, object]:
    t = time.perf_counter()
    value = fn()
    return time.perf_counter() - t, value


def _read(files: Sequence[Path]) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in files]


def _baseline(files: Sequence[Path]) -> list:
    return [segment(t) for t in _read(files)]


def _decode(items, seqs) -> int:
    return sum(len(tags_to_spans(seg.tokens, seq.tags, seq.confidences))
               for (_, seg), seq in zip(items, seqs))


def _rate(chars: int, seconds: float) -> float:
    return round(chars / seconds, 1) if seconds > 0 else float("inf")


def write_notes(directory: Path, n: int) -> list[Path]:
    """``n`` held-out notes (seed B) as UTF-8 files; return their paths in order."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, doc in enumerate(synthetic_notes(n, SEED_TEST)):
        p = directory / f"note_{i:05d}.txt"
        p.write_text(doc.text, encoding="utf-8", newline="")
        paths.append(p)
    return paths


def measure_device(project, files: Sequence[Path], *, device: str, base_s: float,
                   base_rate: float, repeats: int, member_kind: dict,
                   log: Callable[[str], None]) -> dict:
    """Members, ensembles and the end-to-end paths on one device."""
    import psutil

    from app.services.memory import PeakMemory
    from app.services.prediction import resolve
    from app.services.predictor import Predictor, run_ensembles

    texts = _read(files)
    chars = sum(map(len, texts))
    items = [(t, s) for t in texts for s in segment(t)]
    cuda = device == "cuda"
    if cuda:
        import torch
    load_s, pred = _timed(lambda: resolve(project, all_members=True, device=device,
                                          untrained="error").load(project))
    with pred:
        rss_loaded = psutil.Process().memory_info().rss / 2**20
        rows, tag_s, outputs = [], {}, {}
        for name, model in pred.members.items():
            model.predict(items[:8])            # warm-up: lazy initialisation, caches
            if cuda:
                torch.cuda.reset_peak_memory_stats()
            with PeakMemory() as mem:
                tag_s[name], outputs[name] = _timed(lambda m=model: m.predict(items))
            dec_s, _ = _timed(lambda n=name: _decode(items, outputs[n]))
            total = base_s + tag_s[name] + dec_s
            kind = member_kind.get(name)
            rows.append({"name": name, "type": "rules" if kind == "rules" else "base",
                         "members": [name], "seconds": round(total, 4),
                         "chars_per_s": _rate(chars, total),
                         "ratio": round(_rate(chars, total) / base_rate, 5),
                         "tag_s": round(tag_s[name], 4), "peak_rss_mb": round(mem.peak_mb, 1),
                         "gpu_peak_mb": (round(torch.cuda.max_memory_allocated() / 2**20, 1)
                                         if cuda else None)})
            log(f"speed/{device}: {name} {rows[-1]['chars_per_s']:,.0f} chars/s")
        for name, ens in run_ensembles(project, pred.run_id).items():
            comb_s, seqs = _timed(lambda e=ens: e.predict_from_members(outputs, items))
            dec_s, _ = _timed(lambda s=seqs: _decode(items, s))
            total = base_s + sum(tag_s[m] for m in ens.members) + comb_s + dec_s
            rows.append({"name": name, "type": "ensemble", "members": list(ens.members),
                         "seconds": round(total, 4), "chars_per_s": _rate(chars, total),
                         "ratio": round(_rate(chars, total) / base_rate, 5),
                         "tag_s": round(comb_s, 4), "peak_rss_mb": None, "gpu_peak_mb": None})
        rows.sort(key=lambda r: -r["chars_per_s"])
        # Only the members the selected candidate needs (`pred` holds them all).
        needed = pred.ensemble.members if pred.ensemble is not None else [pred.name]
        selected = Predictor(pred.name, {m: pred.members[m] for m in needed}, pred.ensemble)
        end_to_end = {"selected": _end_to_end(selected, files, chars, base_rate, 1)}
        if "rules" in pred.members:
            rules = Predictor("rules", {"rules": pred.members["rules"]})
            end_to_end["rules"] = _end_to_end(rules, files, chars, base_rate, repeats)
        log(f"speed/{device}: selected {pred.name} end to end "
            f"{end_to_end['selected']['chars_per_s']:,.0f} chars/s")
    return {"load_s": round(load_s, 3), "rss_mb_loaded": round(rss_loaded, 1), "rows": rows,
            "end_to_end": end_to_end}


def _end_to_end(pred, files: Sequence[Path], chars: int, base_rate: float, repeats: int) -> dict:
    """Read the files and predict spans through `Predictor.predict` (median of repeats)."""
    pred.predict([files[0].read_text(encoding="utf-8")])      # warm-up
    times = [_timed(lambda: pred.predict(_read(files)))[0] for _ in range(max(1, repeats))]
    med = statistics.median(times)
    return {"name": pred.name, "seconds": [round(t, 4) for t in times],
            "chars_per_s": _rate(chars, med), "ratio": round(_rate(chars, med) / base_rate, 5)}


def measure_growth(pred, files: Sequence[Path], base: int, repeats: int) -> dict:
    """End-to-end throughput at 1x, 4x, 16x ``base`` notes."""
    points = []
    pred.predict([files[0].read_text(encoding="utf-8")])      # warm-up
    for factor in GROWTH_FACTORS:
        chunk = files[:base * factor]
        chars = sum(len(t) for t in _read(chunk))
        times = [_timed(lambda c=chunk: pred.predict(_read(c)))[0] for _ in range(repeats)]
        sec = statistics.median(times)
        points.append({"factor": factor, "notes": len(chunk), "chars": chars,
                       "seconds": round(sec, 4), "chars_per_s": _rate(chars, sec)})
    first, last = points[0], points[-1]
    exponent = None
    if first["seconds"] > 0 and last["chars"] > first["chars"]:
        exponent = round(math.log(last["seconds"] / first["seconds"])
                         / math.log(last["chars"] / first["chars"]), 3)
    linear = None if exponent is None else bool(exponent <= LINEAR_BAND[1])
    return {"name": pred.name, "points": points, "exponent": exponent, "linear": linear}


def measure_project_open(directory: Path, n: int, repeats: int,
                         log: Callable[[str], None]) -> dict:
    """Create a project of ``n`` synthetic notes; time open + the first page."""
    from app.core.labels import PRESETS
    from app.project import Project

    path = directory / "open.deid"
    log(f"speed: creating a project with {n:,} notes")
    started = time.perf_counter()
    docs = synthetic_notes(n, SEED_OPEN)
    with Project.create(path, list(PRESETS["paper"])) as project:
        for k in range(0, len(docs), 500):
            add_documents(project, docs[k:k + 500], "train")
    create_s = time.perf_counter() - started
    del docs
    times, rows = [], 0
    for _ in range(max(1, repeats)):
        t = time.perf_counter()
        project = Project.open(path)
        project.count_documents()
        rows = len(project.document_infos(limit=FIRST_PAGE))
        times.append(time.perf_counter() - t)
        project.close()
    return {"notes": n, "file_mb": round(path.stat().st_size / 2**20, 1),
            "create_s": round(create_s, 2), "open_s": [round(t, 4) for t in times],
            "median_s": round(statistics.median(times), 4), "first_page_rows": rows}


def run_speed(*, budget: str, models: list[str], size: Size, out_dir: Path, seed: int = 13,
              project: Path | None = None, notes: Path | None = None,
              log: Callable[[str], None] = print) -> tuple[dict, list[dict]]:
    """Train (or reuse ``project``'s active run) and measure; ``(results, targets)``."""
    import torch

    from app.project import Project
    from app.services.prediction import resolve
    from app.services.predictor import Predictor, run_ensembles

    if project is None:
        path = out_dir / "projects" / f"speed-{size.name}.deid"
        log(f"speed: training {', '.join(models)} ({budget}) on the synthetic sample")
        with create_synthetic_project(path, size) as proj:
            train(proj, budget=budget, models=models, seed=seed, size=size)
    else:
        path = Path(project)
        if not path.is_file():
            raise UserError(f"no such project: {path}")
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    results: dict = {"project": str(path)}
    with Project.open(path, readonly=True) as proj, \
            tempfile.TemporaryDirectory(prefix="deid-bench-speed-") as tmp:
        results["train"] = summary = run_summary(proj)
        member_kind = {n: m["kind"] for n, m in summary["members"].items()}
        n_files = max(size.speed_notes, size.growth_base * GROWTH_FACTORS[-1])
        files = write_notes(Path(tmp) / "notes", n_files)
        speed_files = files[:size.speed_notes]
        texts = _read(speed_files)
        segs = [segment(t) for t in texts]
        chars = sum(map(len, texts))
        results["corpus"] = {"notes": len(texts), "chars": chars,
                             "segments": sum(map(len, segs)),
                             "tokens": sum(len(s.tokens) for ss in segs for s in ss)}
        base_times = [_timed(lambda: _baseline(speed_files))[0] for _ in range(size.repeats)]
        base_s = statistics.median(base_times)
        base_rate = _rate(chars, base_s)
        results["baseline"] = {"what": "read UTF-8 files + app.core.tokenize.segment",
                               "seconds": [round(t, 4) for t in base_times],
                               "median_s": round(base_s, 4), "chars_per_s": base_rate}
        log(f"speed: baseline {base_rate:,.0f} chars/s")
        results["devices"] = {
            dev: measure_device(proj, speed_files, device=dev, base_s=base_s,
                                base_rate=base_rate, repeats=size.repeats,
                                member_kind=member_kind, log=log)
            for dev in devices}

        from app.rules import find_hits
        hit_times = [_timed(lambda: [find_hits(t) for t in _read(speed_files)])[0]
                     for _ in range(size.repeats)]
        hit_s = statistics.median(hit_times)
        results["find_hits"] = {"seconds": [round(t, 4) for t in hit_times],
                                "median_s": round(hit_s, 4), "chars_per_s": _rate(chars, hit_s),
                                "ratio": round(_rate(chars, hit_s) / base_rate, 5)}

        log("speed: cost growth at 1x, 4x, 16x")
        results["growth"] = {}
        with resolve(proj, device="cpu", untrained="error").load(proj) as pred:
            results["growth"]["selected"] = measure_growth(pred, files, size.growth_base, 1)
        if "rules" in member_kind:
            with Predictor.from_project(proj, model="rules", device="cpu") as pred:
                results["growth"]["rules"] = measure_growth(pred, files, size.growth_base,
                                                            size.repeats)
        results["project_open"] = measure_project_open(Path(tmp), size.open_notes,
                                                       size.repeats, log)
        from app.bench.scale import run_scale
        results["scale"] = run_scale(path, job_notes(notes, speed_files), repeats=size.repeats,
                                     log=log)

    cpu = results["devices"]["cpu"]["end_to_end"]
    sel = cpu["selected"]["name"]
    sel_kind = "an ensemble" if sel not in member_kind else "a single model, not an ensemble"
    machine_note = "measured on this machine's CPU (see the machine line)"
    targets = [TARGETS["selected_cpu_chars_per_s"].check(
                   cpu["selected"]["chars_per_s"],
                   f"selected {sel} ({sel_kind}), end to end; {machine_note}"),
               TARGETS["rules_cpu_chars_per_s"].check(
                   cpu["rules"]["chars_per_s"] if "rules" in cpu else None,
                   f"rules model end to end (segment + match + decode); {machine_note}")]
    jobs = [r for r in results["scale"]["jobs"] if r["job"] == "annotate"]
    targets.append(TARGETS["every_core_chars_per_s"].check(
        jobs[-1]["chars_per_s"],
        f"{jobs[-1]['how']}: read, predict, write brat; {jobs[-1]['speedup']}x one process; "
        f"ratio to file copy {jobs[-1]['ratio']}; {machine_note}"))
    return results, targets


def job_notes(notes: Path | None, default: Sequence[Path]) -> list[Path]:
    """The notes the jobs are timed on: ``*.txt`` of ``notes`` (e.g. MEDDOCAN
    test, the text a MEDDOCAN model is made for), else ``default``."""
    if notes is None:
        return list(default)
    files = sorted(Path(notes).glob("*.txt"))
    if not files:
        raise UserError(f"no .txt notes in {notes}")
    return files


def run_cluster(*, project: Path | None, notes: Path | None, size: Size,
                log: Callable[[str], None] = print, **_) -> tuple[dict, list[dict]]:
    """``python -m app.bench cluster``: the jobs on 1 and 2 Dask workers, and the projection."""
    from app.bench.scale import measure_cluster, copy_baseline, notes_folder
    from app.project import Project
    import shutil

    if project is None or not Path(project).is_file():
        raise UserError("the cluster benchmark measures a trained project: pass --project P.deid")
    with tempfile.TemporaryDirectory(prefix="deid-bench-cluster-") as tmp_name:
        tmp = Path(tmp_name)
        files = job_notes(notes, write_notes(tmp / "synthetic", size.speed_notes)
                          if notes is None else [])
        folder = notes_folder(files, tmp)
        work = tmp / "project.deid"
        shutil.copyfile(project, work)
        base = copy_baseline(sorted(folder.glob("*.txt")), tmp, size.repeats)
        with Project.open(work, readonly=True) as proj:
            train_summary = run_summary(proj)
        results = {"project": str(project), "train": train_summary, "copy": base,
                   **measure_cluster(work, folder, tmp, base["chars_per_s"], log)}
    return results, []
