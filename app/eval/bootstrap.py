"""Document-level bootstrap confidence intervals for micro P/R/F1.

Notes, not spans, are resampled: spans of one note are correlated (the same
patient's name recurs), so resampling spans would understate the spread.
A resample is a vector of note weights (how often each note was drawn), so
micro counts of all resamples are one matrix product with the per-note
count array.
"""
from __future__ import annotations

import numpy as np

# Resamples per matrix product: bounds memory at _CHUNK x notes weights.
_CHUNK = 256


def prf_arrays(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Element-wise precision, recall and F1 (0 where undefined)."""
    tp, fp, fn = (np.asarray(a, dtype=np.float64) for a in (tp, fp, fn))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        r = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        f = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    return p, r, f


def bootstrap_prf(counts: np.ndarray, *, resamples: int = 1000, seed: int = 0,
                  level: float = 0.95) -> dict[str, np.ndarray]:
    """Percentile intervals of micro precision, recall and F1.

    Parameters
    ----------
    counts
        Integer array ``(notes, kinds, 3)``: per note and metric kind, the
        ``tp, fp, fn`` counts.
    resamples, seed
        Number of resamples of the notes (with replacement) and the seed of
        the generator; the same seed gives the same intervals.
    level
        Two-sided coverage of the intervals.

    Returns
    -------
    dict
        ``{"precision"|"recall"|"f1": array (kinds, 2)}`` of ``[low, high]``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n, kinds, _ = counts.shape
    if n == 0 or resamples <= 0:
        nan = np.full((kinds, 2), np.nan)
        return {"precision": nan, "recall": nan.copy(), "f1": nan.copy()}
    rng = np.random.default_rng(seed)
    flat = counts.reshape(n, kinds * 3)
    totals = np.empty((resamples, kinds * 3), dtype=np.int64)
    uniform = np.full(n, 1.0 / n)
    for lo in range(0, resamples, _CHUNK):
        hi = min(resamples, lo + _CHUNK)
        weights = rng.multinomial(n, uniform, size=hi - lo)
        totals[lo:hi] = weights @ flat
    totals = totals.reshape(resamples, kinds, 3)
    p, r, f = prf_arrays(totals[..., 0], totals[..., 1], totals[..., 2])
    q = [(1 - level) / 2 * 100, (1 + level) / 2 * 100]
    return {name: np.percentile(arr, q, axis=0).T
            for name, arr in (("precision", p), ("recall", r), ("f1", f))}


def mean_of_folds_interval(folds: list[np.ndarray], *, resamples: int = 2000, seed: int = 0,
                           level: float = 0.95) -> dict[str, tuple[float, float]]:
    """Percentile intervals of the mean over folds of micro precision and recall.

    Parameters
    ----------
    folds
        One integer array ``(units, 3)`` per fold: each unit's (a patient's)
        ``tp, fp, fn``. Units are drawn with replacement within their own
        fold (each fold keeps its size), the fold's micro figures computed,
        and their plain mean taken, as the folds benchmark reports it.
    resamples, seed, level
        As `bootstrap_prf`.

    Returns
    -------
    dict
        ``{"precision"|"recall": (low, high)}``; NaN bounds with no fold or
        no resample.
    """
    if not folds or resamples <= 0 or any(len(f) == 0 for f in folds):
        return {"precision": (float("nan"),) * 2, "recall": (float("nan"),) * 2}
    rng = np.random.default_rng(seed)
    precision = np.zeros(resamples)
    recall = np.zeros(resamples)
    for counts in folds:
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, 3)
        n = len(counts)
        weights = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples)
        totals = weights @ counts
        p, r, _ = prf_arrays(totals[:, 0], totals[:, 1], totals[:, 2])
        precision += p / len(folds)
        recall += r / len(folds)
    q = [(1 - level) / 2 * 100, (1 + level) / 2 * 100]
    return {name: tuple(float(x) for x in np.percentile(arr, q))
            for name, arr in (("precision", precision), ("recall", recall))}
