"""Token-level voting (Liu et al.) and thresholded voting (Kim et al.).

Votes are cast on entity *labels* (``X`` or ``O``), not on full BIO tags,
and the ``B``/``I`` prefix is then voted among the members that chose the
winning label. Voting on full tags would split one label's support between
``B-X`` and ``I-X``: with five members voting ``B-X, B-X, I-X, O, O`` the
token is ``X`` for three of them, yet ``O`` would tie full-tag voting. The
prefix vote keeps adjacent same-label entities apart when most supporters
separate them, and the result is repaired to valid BIO (an ``I-X`` that does
not follow ``X`` becomes ``B-X``).

Rules:

* majority (``threshold=None``): the label with the most votes, ``O``
  included;
* threshold ``t``: the entity label with the most votes if it has at least
  ``t`` votes, else ``O`` (``O`` votes do not count; a low ``t`` favours
  recall, which de-identification values);
* a tie (of labels, or of prefixes) goes to the choice of the member that
  ranks first in ``priority`` (best dev F1 first) among those voting for one
  of the tied choices;
* confidence = share of all members that voted for the winning label.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from app.ensemble.base import Ensemble, Items, register_ensemble
from app.ensemble.encoding import (Encoded, MemberOutputs, encode_members, inside_mask,
                                   label_codes, repair_codes, to_tag_seqs)
from app.models.base import TagSeq, read_meta, write_meta


def vote_codes(codes: np.ndarray, order: Sequence[int], n_labels: int,
               threshold: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Vote over coded member outputs (see module rules), before repair.

    Parameters
    ----------
    codes
        ``(M, N)`` tag codes, one row per member.
    order
        Row indices from the highest to the lowest tie-break priority.
    n_labels
        Number of entity labels of the codes' `LabelIndex`.
    threshold
        ``None`` for majority voting, else the minimum number of votes.

    Returns
    -------
    (codes, share)
        ``(N,)`` winning tag codes and the winning label's vote share.
    """
    m, n = codes.shape
    cols = np.arange(n)
    labels = label_codes(codes)
    counts = np.zeros((n_labels + 1, n), dtype=np.int32)
    for row in labels:
        counts[row, cols] += 1        # one vote per member and token: no duplicates
    if threshold is None:
        tied = counts == counts.max(axis=0)
    else:
        tied = np.zeros_like(counts, dtype=bool)
        if n_labels:
            best = counts[1:].max(axis=0)
            tied[1:] = (counts[1:] == best) & (best >= threshold)
    winner = _first_choice(labels, order, tied[labels, cols])
    winner[winner < 0] = 0            # threshold not reached by any label

    supports = (labels == winner) & (winner > 0)
    inside = inside_mask(codes)
    n_inside = (supports & inside).sum(axis=0)
    n_begin = (supports & ~inside).sum(axis=0)
    prefix_tie = (n_inside == n_begin) & (winner > 0)
    tie_inside = _first_choice(inside.astype(np.int8), order, supports & prefix_tie)
    is_inside = np.where(prefix_tie, tie_inside == 1, n_inside > n_begin)
    out = np.where(winner > 0, 2 * winner - 1 + is_inside, 0).astype(codes.dtype)
    return out, counts[winner, cols] / m


def _first_choice(choices: np.ndarray, order: Sequence[int], allowed: np.ndarray
                  ) -> np.ndarray:
    """Per token, the choice of the first member in ``order`` for which
    ``allowed`` (``(M, N)``) holds; ``-1`` where it holds for none."""
    result = np.full(choices.shape[1], -1, dtype=np.int64)
    for row in order:
        ok = allowed[row] & (result < 0)
        result[ok] = choices[row][ok]
    return result


@register_ensemble
class VotingEnsemble(Ensemble):
    """Majority or thresholded token voting over named members.

    Parameters
    ----------
    members
        Member names whose outputs are combined.
    priority
        Tie-break order, best dev F1 first; members missing from it rank
        after it in ``members`` order.
    threshold
        ``None`` for majority voting, else the minimum votes for a label
        (``1 <= threshold <= len(members)``).
    pruned_from
        For pruned voting, the members before pruning (for the description).
    """

    kind = "ensemble.voting"

    def __init__(self, members: Sequence[str], priority: Sequence[str] = (),
                 threshold: int | None = None, pruned_from: Sequence[str] = ()) -> None:
        if not members:
            raise ValueError("an ensemble needs at least one member")
        if threshold is not None and not 1 <= threshold <= len(members):
            raise ValueError(f"threshold must be between 1 and {len(members)}")
        self.members = list(members)
        ranked = [p for p in priority if p in self.members]
        self.priority = ranked + [m for m in self.members if m not in ranked]
        self.threshold = threshold
        self.pruned_from = list(pruned_from)

    def vote(self, enc: Encoded) -> tuple[np.ndarray, np.ndarray]:
        """Repaired winning codes and vote shares for encoded outputs whose
        rows are ``self.members`` in order."""
        order = [enc.members.index(p) for p in self.priority]
        codes, share = vote_codes(enc.codes, order, enc.index.n_labels, self.threshold)
        return repair_codes(codes, enc.layout), share

    def predict_from_members(self, outputs: MemberOutputs, items: Items | None = None
                             ) -> list[TagSeq]:
        enc = encode_members(outputs, self.members)
        codes, share = self.vote(enc)
        return to_tag_seqs(codes, share, enc.layout, enc.index)

    def describe(self) -> str:
        n = len(self.members)
        rule = ("majority vote" if self.threshold is None
                else f"at least {self.threshold} of {n} votes")
        text = f"Voting ({rule}) over {', '.join(self.members)}; ties to {self.priority[0]}"
        dropped = [m for m in self.pruned_from if m not in self.members]
        if dropped:
            text += f"; pruned {', '.join(dropped)}"
        return text

    def config(self) -> dict:
        return {"members": self.members, "priority": self.priority,
                "threshold": self.threshold, "pruned_from": self.pruned_from}

    def save(self, directory: Path) -> None:
        write_meta(Path(directory), self.kind, self.config(), description=self.describe())

    @classmethod
    def load(cls, directory: Path) -> "VotingEnsemble":
        meta = read_meta(Path(directory), cls.kind)
        return cls(**meta["config"])
