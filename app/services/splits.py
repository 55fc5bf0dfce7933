"""Assign train/dev/test splits to documents that have none.

Splits are drawn per *patient* (all of a patient's notes share a split, so
no patient's identifiers leak from training into evaluation), seeded, and
only documents without a split are touched.
"""
from __future__ import annotations

import hashlib


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
