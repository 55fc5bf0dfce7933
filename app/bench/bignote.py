"""Suggestions on one big note: does their time grow linearly with its size?

    python -m app.bench.bignote PROJECT.deid NOTES_DIR [--sizes 1 4 16] [--profile]

Builds one note of each size (MB of text) from the ``.txt`` notes of
NOTES_DIR joined and repeated (e.g. the PhysioNet training notes), and times
(this process's CPU seconds, and the wall clock)
``deid annotate`` of it (``app.services.annotating.annotate_folder``, this
process, one worker) with PROJECT's model: its trained run's selected model,
or the starter in a project without one. Prints, for each size, the seconds
and characters a CPU second, and the **growth ratio**: (CPU time / smallest's) /
(size / smallest size); 1.0 is linear, 4.0 at 4x the size is quadratic.

``--profile``: also profiles each size and lists the functions whose own
time grew most faster than the note (own-time ratio over size ratio), the
way the quadratic steps of issue 35 item 11 were found.

Timings on a shared machine vary; the ratios of one run are what to read.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import shutil
import tempfile
import time
from pathlib import Path

MB = 1024 * 1024


def big_note(notes_dir: Path, megabytes: float) -> str:
    """``megabytes`` MB of note text: the notes of ``notes_dir`` joined, repeated."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(Path(notes_dir).glob("*.txt"))[:400]]
    if not texts:
        raise SystemExit(f"no .txt notes in {notes_dir}")
    base = "\n\n".join(texts)
    n = int(megabytes * MB)
    return (base * (n // len(base) + 1))[:n]


def time_annotate(project, text: str, work: Path, profile: cProfile.Profile | None = None
                  ) -> tuple[float, float, int]:
    """Seconds (wall clock and this process's CPU) to annotate ``text`` as
    one note, and the spans suggested."""
    from app.services.annotating import annotate_folder
    src, out = work / "in", work / "out"
    shutil.rmtree(work, ignore_errors=True)
    src.mkdir(parents=True)
    (src / "big.txt").write_text(text, encoding="utf-8")
    t0, c0 = time.perf_counter(), time.process_time()
    if profile is not None:
        profile.enable()
    try:
        summary = annotate_folder(project, src, out, workers=1)
    finally:
        if profile is not None:
            profile.disable()
    return time.perf_counter() - t0, time.process_time() - c0, summary.spans


def _own_times(profile: cProfile.Profile) -> dict[str, float]:
    stats = pstats.Stats(profile).stats            # type: ignore[attr-defined]
    return {f"{Path(k[0]).name}:{k[1]}({k[2]})": v[2] for k, v in stats.items()}


def main(argv: list[str] | None = None) -> int:
    from app.project import Project
    from app.services.prediction import resolve
    ap = argparse.ArgumentParser(prog="python -m app.bench.bignote", description=__doc__.split("\n")[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("notes", type=Path)
    ap.add_argument("--sizes", type=float, nargs="+", default=[1, 4, 16], help="MB of text")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args(argv)
    rows, own = [], []
    with Project.open(args.project, readonly=True) as project, \
            tempfile.TemporaryDirectory(prefix="deid-bench-bignote-") as tmp:
        model = resolve(project).description
        for mb in args.sizes:
            text = big_note(args.notes, mb)
            # CPU seconds here too: the wall clock of a loaded machine made
            # steps look 2-4x faster than linear growth that were linear.
            prof = cProfile.Profile(time.process_time) if args.profile else None
            seconds, cpu, spans = time_annotate(project, text, Path(tmp) / "work", prof)
            rows.append({"mb": mb, "chars": len(text), "seconds": round(seconds, 2),
                         "cpu_seconds": round(cpu, 2), "chars_per_cpu_s": round(len(text) / cpu),
                         "spans": spans})
            if prof is not None:
                own.append(_own_times(prof))
            first = rows[0]
            # On CPU seconds: a machine whose other work varies changes the
            # wall clock of one size and not another's far more.
            growth = (cpu / first["cpu_seconds"]) / (len(text) / first["chars"])
            rows[-1]["growth"] = round(growth, 2)
            print(f"{args.project.name} ({model}) {mb:g} MB: {cpu:.1f} CPU s ({seconds:.1f} s "
                  f"wall), {len(text) / cpu:,.0f} chars/CPU s, {spans} spans, growth ratio "
                  f"{growth:.2f}", flush=True)
    if own and len(own) > 1:
        size_ratio = rows[-1]["chars"] / rows[0]["chars"]
        grew = sorted(((t / own[0][f]) / size_ratio, own[0][f], t, f)
                      for f, t in own[-1].items() if own[0].get(f, 0) > 0.01 and t > 0.2)
        print(f"own time, {rows[0]['mb']:g} MB -> {rows[-1]['mb']:g} MB, over the size ratio:")
        for ratio, a, b, f in reversed(grew[-args.top:]):
            print(f"  {ratio:5.2f}  {a:8.2f} s -> {b:8.2f} s  {f}")
    print(json.dumps({"project": args.project.name, "model": model, "rows": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
