"""The envelope every benchmark JSON shares, and where the files go.

JSON keys (``"schema": "deid.bench/1"``; every part file has all of them)
------------------------------------------------------------------------
::

    schema        "deid.bench/1"
    id            file stem and BENCHMARKS.md section: "accuracy-meddocan",
                  "accuracy-synthetic", "learning-curve" or "speed"
    part          "accuracy" | "learning-curve" | "speed"
    command       the exact command line that produced the file
    date          start of the run, ISO 8601 UTC (seconds)
    machine       app.bench.machine.machine_info()
    budget        training budget ("quick" | "standard" | "full")
    size          data size ("smoke" | "quick" | "standard" | "full")
    models        base model kinds trained
    seed          training seed
    load_average  {"start": [1, 5, 15 min], "end": [...]}: the machine may be shared
    seconds       wall time of the part
    results       the part's figures (keys documented in its module)
    targets       [{"key", "what", "target", "measured", "unit", "pass", "note"}]
                  ("pass" is null when the figure was not measured)
"""
from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path

from app.bench.machine import load_average, machine_info

SCHEMA = "deid.bench/1"
PART_IDS = ("accuracy-meddocan", "accuracy-physionet", "accuracy-physionet-lists",
            "accuracy-physionet-folds", "accuracy-physionet-folds-lists",
            "accuracy-synthetic", "learning-curve", "learning-curve-physionet", "speed", "cluster")


def start_record(rec_id: str, part: str, *, command: str, budget: str, size: str,
                 models: list[str], seed: int) -> dict:
    """A record with every envelope key; `finish_record` fills the rest."""
    return {
        "schema": SCHEMA, "id": rec_id, "part": part, "command": command,
        "date": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "machine": machine_info(), "budget": budget, "size": size, "models": list(models),
        "seed": seed, "load_average": {"start": load_average(), "end": None},
        "seconds": None, "results": None, "targets": [],
        "_t0": time.perf_counter(),
    }


def finish_record(rec: dict, results: dict, targets: list[dict] | None = None) -> dict:
    rec["load_average"]["end"] = load_average()
    rec["seconds"] = round(time.perf_counter() - rec.pop("_t0"), 1)
    rec["results"] = results
    rec["targets"] = targets or []
    return rec


def write_record(rec: dict, out_dir: Path) -> tuple[Path, Path]:
    """Write ``<id>.json`` and ``<id>.md`` into ``out_dir``; return both paths."""
    from app.bench.markdown import render_record

    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / f"{rec['id']}.json"
    md_path = out_dir / f"{rec['id']}.md"
    json_path.write_text(json.dumps(rec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md_path.write_text(render_record(rec), encoding="utf-8")
    return json_path, md_path


def load_records(out_dir: Path) -> list[dict]:
    """The part records found in ``out_dir``, in `PART_IDS` order."""
    records = []
    for rec_id in PART_IDS:
        path = out_dir / f"{rec_id}.json"
        if path.is_file():
            rec = json.loads(path.read_text(encoding="utf-8"))
            if rec.get("schema") == SCHEMA:
                records.append(rec)
    return records


def print_figures(figures: dict, json_path: str | None = None) -> None:
    """Print a small bench's figures as JSON, and write them to ``json_path``."""
    text = json.dumps(figures, indent=2)
    print(text)
    if json_path:
        Path(json_path).write_text(text + "\n", encoding="utf-8")
