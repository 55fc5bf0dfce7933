"""Time to redact one very large note, rules only, end to end (`deid redact`).

Every path a note goes through (decoding, the rule recogniser, overlap
removal, surrogates, the leak re-scan, writing) must be linear in the note's
size: the times printed for 1, 4 and 16 MB should grow about 4x per step.
Not collected by pytest (no timed assertion; the machine's load decides the
figures); run on demand::

    python tests/deid/bench_big_notes.py [MB ...]      # default: 1 4 16
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from app.cli.main import main as deid
from app.synth import generate


def big_note(megabytes: float) -> str:
    """Synthetic notes (names, dates, IDs, phones ...) end to end, about ``megabytes`` MB."""
    notes = [d.text for d in generate(200, seed=5, label_set="extended")]
    block = "\n".join(notes)
    target = int(megabytes * 1_000_000)
    return (block * (target // len(block.encode("utf-8")) + 1))[:target]


def main(sizes: list[float]) -> None:
    os.environ.setdefault("DEID_USER_DIR", tempfile.mkdtemp(prefix="deid-bench-user-"))
    print(f"{'MB':>6} {'seconds':>9} {'MB/s':>7}   deid redact --rules-only --strategy surrogate")
    for mb in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            notes = Path(tmp, "in")
            notes.mkdir()
            (notes / "big.txt").write_text(big_note(mb), encoding="utf-8")
            project = Path(tmp, "p.deid")
            assert deid(["-q", "new", str(project), "--labels", "extended"]) == 0
            t = time.perf_counter()
            code = deid(["-q", "redact", str(project), str(notes), str(Path(tmp, "out")),
                         "--rules-only", "--strategy", "surrogate"])
            seconds = time.perf_counter() - t
            assert code == 0, code
            print(f"{mb:6.1f} {seconds:9.1f} {mb / seconds:7.2f}", flush=True)


if __name__ == "__main__":
    main([float(a) for a in sys.argv[1:]] or [1, 4, 16])
