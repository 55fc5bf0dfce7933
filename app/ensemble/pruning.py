"""Pruned voting (Kim et al.): greedy member exclusion per vote threshold.

For every vote threshold ``t`` (a token gets label ``X`` if at least ``t``
members vote ``X``): start from all members and repeatedly drop the member
whose removal most improves the dev objective (strict entity F-beta, F1 by
default), while a removal improves it and at least ``t`` members remain.
The best ``(t, subset)`` over all thresholds wins; ties go to higher recall,
then the larger subset (more members, less luck), then the lower threshold.

Scoring runs on coded arrays (`app.ensemble.scoring.strict_prf_codes`), so a
search over seven members costs a few hundred vectorised votes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from app.core.progress import Progress, ProgressFn, no_progress
from app.ensemble.encoding import (LabelIndex, MemberOutputs, encode_members, flat_tags,
                                   repair_codes)
from app.ensemble.scoring import GoldTags, span_keys, strict_prf_codes
from app.ensemble.voting import VotingEnsemble, vote_codes
from app.eval.metrics import PRF

_EPS = 1e-12


@dataclass(frozen=True)
class PruneStep:
    """One greedy step: ``dropped`` left, leaving ``members`` scoring ``prf``."""

    dropped: str | None          # None for the starting point (all members)
    members: tuple[str, ...]
    prf: PRF


@dataclass
class ThresholdPath:
    """The greedy path for one threshold; its last step is its best subset."""

    threshold: int
    steps: list[PruneStep] = field(default_factory=list)

    @property
    def best(self) -> PruneStep:
        return self.steps[-1]


@dataclass
class PruningResult:
    ensemble: VotingEnsemble
    prf: PRF
    paths: list[ThresholdPath]

    def as_rows(self) -> list[dict]:
        """One row per threshold, for reports."""
        return [{"threshold": p.threshold, "members": list(p.best.members),
                 "dropped": [s.dropped for s in p.steps[1:]], **p.best.prf.as_dict()}
                for p in self.paths]


def prune_voting(outputs: MemberOutputs, gold: GoldTags, members: Sequence[str],
                 priority: Sequence[str] = (), thresholds: Sequence[int] | None = None,
                 *, beta: float = 1.0, progress: ProgressFn = no_progress) -> PruningResult:
    """Search thresholds and member subsets on dev outputs (see module doc).

    Parameters
    ----------
    outputs, gold
        Member outputs and gold tags on the same dev segments.
    members
        The starting group.
    priority
        Tie-break order, best dev F1 first (see `VotingEnsemble`).
    thresholds
        Vote thresholds to try; default ``1 .. len(members)``.
    beta
        The objective is strict entity F-beta (``beta > 1`` favours recall).
    """
    members = list(members)
    if thresholds is None:
        thresholds = range(1, len(members) + 1)
    thresholds = [t for t in thresholds if 1 <= t <= len(members)]
    if not thresholds:
        raise ValueError(f"no threshold between 1 and {len(members)}")
    index = LabelIndex.from_tags(*(outputs[m] for m in members if m in outputs), gold)
    enc = encode_members(outputs, members, index)
    enc.layout.check(gold, "gold")
    gold_keys = span_keys(index.encode(flat_tags(gold)), enc.layout, index.n_labels)
    ranked = VotingEnsemble(members, priority).priority

    def score(subset: tuple[str, ...], t: int) -> PRF:
        rows = [members.index(m) for m in subset]
        order = [rows.index(members.index(p)) for p in ranked if p in subset]
        codes, _ = vote_codes(enc.codes[rows], order, index.n_labels, t)
        return strict_prf_codes(repair_codes(codes, enc.layout), gold_keys, enc.layout,
                                index.n_labels)

    paths = []
    for i, t in enumerate(thresholds):
        progress(Progress(i / len(thresholds), "ensemble",
                          message=f"pruned voting: threshold {t}"))
        paths.append(_greedy(tuple(members), t, score, beta))
    best = max(paths, key=lambda p: (p.best.prf.f(beta), p.best.prf.recall,
                                     len(p.best.members), -p.threshold))
    progress(Progress(1.0, "ensemble", message="pruned voting done"))
    ensemble = VotingEnsemble(best.best.members, ranked, best.threshold, pruned_from=members)
    return PruningResult(ensemble, best.best.prf, paths)


def _greedy(members: tuple[str, ...], t: int, score, beta: float) -> ThresholdPath:
    path = ThresholdPath(t, [PruneStep(None, members, score(members, t))])
    while len(path.best.members) > t:
        current = path.best
        trials = []
        for m in current.members:
            subset = tuple(x for x in current.members if x != m)
            trials.append(PruneStep(m, subset, score(subset, t)))
        # max keeps the first of equal candidates: the earliest member in order.
        cand = max(trials, key=lambda s: (s.prf.f(beta), s.prf.recall))
        if cand.prf.f(beta) <= current.prf.f(beta) + _EPS:
            break
        path.steps.append(cand)
    return path

