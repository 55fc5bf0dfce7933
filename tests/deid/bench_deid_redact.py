"""Throughput of redact_text (surrogate vs tag) against a plain file copy.

Not collected by pytest; run ``.venv/bin/python tests/deid/bench_deid_redact.py [N]``.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from app.deid.memory import InMemorySurrogateMemory
from app.deid.policy import Policy
from app.deid.redact import Redactor, redact_text
from app.synth import generate


def _rate(chars: int, seconds: float) -> str:
    return f"{chars / seconds / 1e6:8.2f} M chars/s ({seconds * 1e3:7.1f} ms)"


def main(n: int = 300) -> None:
    docs = generate(n, seed=7, label_set="extended")
    chars = sum(len(d.text) for d in docs)
    print(f"{n} synthetic notes, {chars} chars, {sum(len(d.spans) for d in docs)} spans")
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp, "in"), Path(tmp, "out")
        src.mkdir()
        dst.mkdir()
        for d in docs:
            (src / f"{d.name}.txt").write_text(d.text, encoding="utf-8")
        t = time.perf_counter()
        for p in src.iterdir():
            shutil.copyfile(p, dst / p.name)
        print("plain file copy        ", _rate(chars, time.perf_counter() - t))
    for strategy in ("tag", "surrogate"):
        red = Redactor(Policy(default=strategy), secret="bench", memory=InMemorySurrogateMemory())
        for run in ("cold", "warm"):  # warm: the memory already holds every mapping
            t = time.perf_counter()
            for d in docs:
                red.redact(d.text, d.spans, patient_key=d.patient_id or d.name)
            print(f"redact {strategy:9s} {run}", _rate(chars, time.perf_counter() - t))
    t = time.perf_counter()
    for d in docs:  # the GUI preview path: a fresh call per note
        redact_text(d.text, d.spans, Policy(default="surrogate"), patient_key=d.patient_id or "",
                    secret="bench")
    print("redact_text surrogate  ", _rate(chars, time.perf_counter() - t))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
