"""Child process of test_project_crash.py: imports batches until it is killed.

Usage: crash_writer.py PROJECT START_BATCH. Prints each batch number once its
transaction has committed.
"""
from __future__ import annotations

import sys

from app.core.spans import Span
from app.project import Project

BATCH = 25          # documents per transaction
SEGMENT = "Seen by Alex Quill, phone 0400 000 111. "
REPEATS = 40        # ~1.6 kB notes: several pages per batch
SPANS_PER_DOC = 2 * 3 + 1


def note(n: int) -> tuple[str, list[Span]]:
    prefix = f"Note {n:07d}. "
    text = prefix + SEGMENT * REPEATS
    spans = []
    for k in range(3):
        base = len(prefix) + k * len(SEGMENT)
        spans += [Span(base + 8, base + 18, "PERSON"), Span(base + 26, base + 38, "PHONE")]
    return text, spans


def main(path: str, batch: int) -> None:
    with Project.open(path) as project:
        project.start_run("import", {"batch": batch})   # left 'running' by the kill
        while True:
            with project.transaction():
                for i in range(BATCH):
                    n = batch * BATCH + i
                    text, spans = note(n)
                    doc = project.add_document(f"note{n}", text, spans=spans)
                    project.add_span(doc, 0, 4, "IDN", annotator="writer")
            print(batch, flush=True)
            batch += 1


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
