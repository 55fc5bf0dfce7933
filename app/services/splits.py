"""Assign train/dev/test splits to documents that have none.

Splits are drawn per *patient* (all of a patient's notes share a split, so
no patient's identifiers leak from training into evaluation), seeded, and
only documents without a split are touched.
"""
from __future__ import annotations

import hashlib

from app.core.words import count


def _bucket(key: str, seed: int) -> float:
    h = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def assign_splits(project, *, dev: float = 0.15, test: float = 0.15, seed: int = 13) -> dict[str, int]:
    """Give every document without a split one of train/dev/test; return counts."""
    if not (0 <= dev < 1 and 0 <= test < 1 and dev + test < 1):
        raise ValueError("dev and test fractions must be in [0, 1) and sum below 1")
    counts = {"train": 0, "dev": 0, "test": 0}
    with project.transaction():
        for info in project.document_infos():
            if info.split:
                continue
            u = _bucket(info.patient_id or f"doc:{info.id}", seed)
            split = "test" if u < test else "dev" if u < test + dev else "train"
            project.set_document_fields(info.id, split=split)
            counts[split] += 1
        project.log("assign_splits", {"dev": dev, "test": test, "seed": seed, **counts})
    return counts


def annotated_in(project, split: str | None) -> int:
    """How many annotated notes (done or reviewed, or holding an accepted
    span) are in ``split`` (``None``: have no split, the notes
    ``assign_splits`` would give one)."""
    counts = project.span_counts()
    return sum(1 for info in project.document_infos() if (info.split or None) == split and (
        info.status in ("done", "reviewed")
        or (info.id in counts and counts[info.id].accepted)))


def split_offer(project, split: str = "test") -> str | None:
    """What to say when ``split`` holds no annotated note but some annotated
    notes have no split (imported without ``--split``): how to split them by
    patient, and that the model must be trained again. ``None`` otherwise."""
    n = annotated_in(project, None)
    if not n or annotated_in(project, split):
        return None
    return (f"No annotated note is in the {split!r} split, and {count(n, 'annotated note')} "
            f"{'has' if n == 1 else 'have'} no split. Split {'it' if n == 1 else 'them'} by patient (train/dev/test, about 70/15/15 %, all of a "
            f"patient's notes together): `deid split {project.path.name}`, or Evaluate on test "
            f"split in the Train view; then train again, so that the test notes are held out."
            + (" (A run's dev figures are of the dev notes it drew from the notes without a "
               "split itself: `deid train` and the Train view show them.)"
               if split == "dev" else ""))
