"""Residual risk of an export, measured: a random sample of redacted notes,
reviewed by a person, and an exact upper confidence bound on the leak rate.

The bound is Clopper-Pearson's, one-sided: with ``k`` leaking notes in a
sample of ``n``, the true share of leaking notes is at most
``upper_bound(k, n)`` with 95 % confidence. With no leak it is
``1 - 0.05 ** (1 / n)``: 0 of 60 notes leak -> at most 4.9 %.
``sample_size`` inverts it: how many notes to review (finding none) to
state "at most ``rate``".
"""
from __future__ import annotations

import math
import random
from typing import Sequence


def _binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 1.0 if k >= n else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    return min(1.0, sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                                 + i * lp + (n - i) * lq) for i in range(k + 1)))


def upper_bound(k: int, n: int, confidence: float = 0.95) -> float:
    """Exact one-sided upper confidence bound on a rate, ``k`` events in ``n`` trials.

    The ``p`` with ``P(X <= k | n, p) = 1 - confidence`` (Clopper-Pearson).
    """
    if n <= 0:
        raise ValueError("the sample must hold at least one note")
    if not 0 <= k <= n:
        raise ValueError("the number of leaking notes must be between 0 and the sample size")
    if k == n:
        return 1.0
    alpha = 1.0 - confidence
    if k == 0:
        return 1.0 - alpha ** (1.0 / n)
    lo, hi = k / n, 1.0
    for _ in range(100):                    # bisection: the CDF falls as p grows
        mid = (lo + hi) / 2
        if _binom_cdf(k, n, mid) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def sample_size(max_rate: float, confidence: float = 0.95) -> int:
    """Notes to review so that finding no leak shows a rate of at most ``max_rate``."""
    if not 0.0 < max_rate < 1.0:
        raise ValueError("the target rate must be between 0 and 1 (e.g. 0.05)")
    return math.ceil(math.log(1.0 - confidence) / math.log(1.0 - max_rate))


def draw_sample(notes: Sequence[str], n: int, seed: int) -> list[str]:
    """``n`` notes drawn without replacement (all when fewer), reproducible from ``seed``."""
    pool = sorted(notes)
    return sorted(random.Random(seed).sample(pool, min(n, len(pool))))


def percent(rate: float) -> str:
    return f"{rate * 100:.1f} %"


def risk_sentence(k: int, n: int, unit: str, confidence: float = 0.95) -> str:
    """'0 of 60 notes leak: at most 4.9 % of notes leak, 95 % confidence.'
    (``unit``: what is counted, notes or identifiers, so the count reads as
    one: a walkthrough read "1 leak in 30 notes" beside "4 leaks in 369
    identifiers", the first counting notes.)"""
    bound = upper_bound(k, n, confidence)
    observed = f"{k} of {n} {unit} leak{'s' if k == 1 else ''}"
    conf = f"{confidence * 100:.0f} % confidence"
    if k == 0:
        return f"{observed}: at most {percent(bound)} of {unit} leak, {conf}."
    return (f"{observed} ({percent(k / n)} observed): at most {percent(bound)} of {unit} "
            f"leak, {conf}.")


def disagreement_sentence(record: dict | None) -> str | None:
    """What the leak scan still suspects in notes a review found clean
    (``{"notes", "suspicions"}``, `app.services.auditing`), or None."""
    if not record:
        return None
    n, k = record["suspicions"], record["notes"]
    return (f"The leak scan suspects {n} identifier{'s' if n != 1 else ''} in {k} "
            f"note{'s' if k != 1 else ''} of those read, where the review found none left in "
            f"clear: read those places again (the leak list; Preview opens each) and judge "
            f"each suspicion, a leak or not, before signing.")
