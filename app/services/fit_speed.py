"""How fast this computer fitted the transformer, for estimates that hold here.

Before a run, `deid train` and the Train view say how long the transformer
will take (`app.services.training.transformer_cost`). The rates that
estimate starts from were measured on two machines (``RATES`` in
app.models.transformer_ner), and computers differ by more than half: a
PhysioNet fold's standard CPU fit went through about 2,200 word pieces a
second on 2 cores of an EPYC (457-505 s) where the rates promised about
1,350 (13 minutes). So each fit long enough to say something records the
rate it went at in the user's data folder (``FILE``), under what sets that
rate (`speed_key`: device, arithmetic, encoder layers, processor cores),
and the next estimate with the same key takes the median of the last
``KEPT`` rates instead: one fit slowed by other work on the computer (the
walkthrough's fit beside a test run went at 393 a second) does not set the
estimate alone once there are others.

Only numbers are kept: word pieces a second and the fit's seconds; nothing
of the notes. A file that cannot be read or written is the estimate's loss,
never the fit's: it is ignored.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

#: The record's file in the user's data folder (`app.paths.user_data_dir`).
FILE = "fit-speed.json"
#: A fit shorter than this is mostly loading and dev passes: its rate says
#: little about a standard fit's, so it is not recorded.
MIN_SECONDS = 60.0
#: Nor is a fit of fewer word pieces than this (a small project's: its dev
#: passes and loading weigh as much as its steps): a quick fit of 43 notes,
#: 94 s, recorded a rate that said "about 8 minutes" for the next.
MIN_PIECES = 150_000
#: The rates kept per key, the latest last; the estimate takes their median.
KEPT = 5


def speed_key(device: str, compute: str, layers: int, cores: int | None = None) -> str:
    """What a fit's rate depends on, as the record's key: ``"cpu/bf16/4
    layers/2 cores"``. ``cores``: this computer's (``os.cpu_count()``) when None."""
    cores = cores or os.cpu_count() or 1
    return f"{device}/{compute}/{layers} layers/{cores} cores"


def _path() -> Path:
    from app.paths import user_data_dir

    return user_data_dir() / FILE


def _read() -> dict[str, Any]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record_fit(details: Mapping[str, Any]) -> float | None:
    """Keep the rate of a transformer fit (its ``fit_details``: ``train_pieces``,
    ``train_seconds``, ``device``, ``compute``, ``layers``) for this
    computer's next estimate; returns the rate kept, or None when the fit was
    too short (`MIN_SECONDS`) or too small (`MIN_PIECES`), said too little, or
    the file could not be written."""
    try:
        pieces, seconds = float(details["train_pieces"]), float(details["train_seconds"])
        key = speed_key(str(details["device"]), str(details["compute"]), int(details["layers"]))
    except (KeyError, TypeError, ValueError):
        return None
    if seconds < MIN_SECONDS or pieces < MIN_PIECES:
        return None
    rate = round(pieces / seconds, 1)
    data = _read()
    data[key] = {"pieces_per_second": (_rates(data.get(key)) + [rate])[-KEPT:]}
    path = _path()
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        part.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(part, path)       # whole or not at all: workers may finish together
    except OSError:
        part.unlink(missing_ok=True)
        return None
    return rate


def _rates(entry: Any) -> list[float]:
    """The rates a record's entry holds (none for one that is not a record's)."""
    rates = entry.get("pieces_per_second") if isinstance(entry, dict) else None
    if not isinstance(rates, list):
        return []
    return [float(r) for r in rates if isinstance(r, (int, float)) and r > 0]


def measured_rate(key: str) -> float | None:
    """The median of the word pieces a second this computer's last fits
    under ``key`` went at (`speed_key`; up to `KEPT`), or None when none was
    recorded."""
    import statistics

    rates = _rates(_read().get(key))
    return statistics.median(rates) if rates else None
