"""The out-of-fold split every tuned ensemble is scored with, in one place.

Pruned voting and the stacking meta-models are tuned on dev; to score them
on dev without their having seen the answers, each dev segment is predicted
by a copy tuned on the other folds. Folds are made of whole *documents*
(a note's segments share names and context), assigned by a seeded
permutation so a run is reproducible.
"""
from __future__ import annotations

from typing import Callable, Hashable, Sequence, TypeVar

import numpy as np

T = TypeVar("T")


def assign_folds(groups: Sequence[Hashable], k: int, seed: int) -> np.ndarray:
    """The fold (0..k-1) of each item, every group (document) in one fold.

    Groups are dealt round-robin in a seeded random order; ``ValueError``
    when there are fewer groups than folds.
    """
    unique = list(dict.fromkeys(groups))
    if len(unique) < k:
        raise ValueError(f"{len(unique)} groups cannot make {k} folds")
    perm = np.random.default_rng(seed).permutation(len(unique))
    fold_of = {unique[j]: rank % k for rank, j in enumerate(perm)}
    return np.array([fold_of[g] for g in groups])


def out_of_fold(fold: np.ndarray, fit_predict: Callable[[list[int], list[int]], Sequence[T]]
                ) -> list[T]:
    """Predictions for every item, each from ``fit_predict(train, test)``
    tuned on the other folds (``train``, ``test``: item indices)."""
    result: list = [None] * len(fold)
    for f in range(int(fold.max()) + 1 if len(fold) else 0):
        train = np.flatnonzero(fold != f).tolist()
        test = np.flatnonzero(fold == f).tolist()
        if not test:
            continue
        for i, out in zip(test, fit_predict(train, test)):
            result[i] = out
    return result
