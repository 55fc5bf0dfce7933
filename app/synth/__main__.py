"""Write synthetic notes as brat standoff files.

Usage::

    python -m app.synth OUT_DIR --n 300 --seed 2024 --locale mixed --labels paper [--style icu]

OUT_DIR receives ``note_NNNN.txt`` + ``note_NNNN.ann`` per note and
``patients.tsv`` (note name, patient id) so per-patient grouping survives.
Exit codes: 0 success, 1 user error (nothing written), 2 internal error.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from app.core.spans import Document, sort_spans
from app.synth import LABEL_SETS, LOCALES, STYLES, generate


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:        # usage errors are user errors: exit 1
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _write_brat(doc: Document, out_dir: Path) -> None:
    """Write ``doc`` as ``<name>.txt`` and ``<name>.ann`` (T lines only).

    newline="\\n" keeps the .txt byte-for-byte equal to ``doc.text`` on every
    platform, so the character offsets in the .ann stay valid.
    """
    with open(out_dir / f"{doc.name}.txt", "w", encoding="utf-8", newline="\n") as f:
        f.write(doc.text)
    lines = [f"T{i}\t{s.label} {s.start} {s.end}\t{doc.text[s.start:s.end]}\n"
             for i, s in enumerate(sort_spans(doc.spans), 1)]
    with open(out_dir / f"{doc.name}.ann", "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="python -m app.synth",
                     description="Generate synthetic clinical notes with gold PII spans (brat).")
    parser.add_argument("out_dir", type=Path, help="output folder (created; must hold no notes yet)")
    parser.add_argument("--n", type=int, default=100, help="number of notes (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--locale", choices=LOCALES, default="en_AU")
    parser.add_argument("--labels", choices=LABEL_SETS, default="paper")
    parser.add_argument("--style", choices=STYLES, default="discharge",
                        help="discharge letters (default), ICU nursing notes, or both")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")
    out: Path = args.out_dir
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        parser.error(f"{out} exists and is not an empty folder")
    try:
        docs = generate(args.n, seed=args.seed, locale=args.locale, label_set=args.labels, style=args.style)
        out.mkdir(parents=True, exist_ok=True)
        for doc in docs:
            _write_brat(doc, out)
        with open(out / "patients.tsv", "w", encoding="utf-8", newline="\n") as f:
            f.write("note\tpatient_id\n")
            f.writelines(f"{d.name}\t{d.patient_id}\n" for d in docs)
    except OSError as exc:
        print(f"cannot write notes: {exc.strerror}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - contract: unexpected failures exit 2
        print(f"internal error: {type(exc).__name__}", file=sys.stderr)
        return 2
    print(f"wrote {len(docs)} notes to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
