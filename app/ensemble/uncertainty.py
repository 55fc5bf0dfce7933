"""Member disagreement as a document's uncertainty, for active learning.

Per token, members vote on the entity label (``O`` included; ``B``/``I``
are not told apart, as in `app.ensemble.voting`). A document scores:

* ``"entropy"`` (default): the mean over its tokens of the vote entropy,
  divided by ``log(M)`` so that 1 means every member voted differently;
* ``"disagreement"``: the share of its tokens where not all members agree.

Both are 0 for a document where all members agree (or with no tokens, or
with a single member). Averaging over tokens makes long and short notes
comparable; documents to annotate next are those with the highest score.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from app.ensemble.encoding import MemberOutputs, encode_members, label_codes

METHODS = ("entropy", "disagreement")


def document_uncertainty(outputs: MemberOutputs, method: str = "entropy",
                         members: Sequence[str] | None = None) -> float:
    """Uncertainty of one document from its segments' member outputs.

    Parameters
    ----------
    outputs
        Member outputs for the document's segments.
    method
        ``"entropy"`` or ``"disagreement"`` (see module doc).
    members
        Members to consider (default: all in ``outputs``).
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (use {', '.join(METHODS)})")
    members = list(outputs) if members is None else list(members)
    enc = encode_members(outputs, members)
    m, n = enc.codes.shape
    if n == 0 or m < 2:
        return 0.0
    labels = label_codes(enc.codes)
    if method == "disagreement":
        return float(np.mean((labels != labels[0]).any(axis=0)))
    # A token's vote entropy, -sum(p log p) over the labels voted for, is
    # -(1/M) sum(log(c_i / M)) over its members i, c_i the members voting as
    # i does (a label voted c times counts c times 1/c of its term). Counted
    # pairwise (M is a handful), not in a labels x tokens table: that table,
    # and its copies, took memory in proportion to both and grew faster
    # than the note (issue 35 item 11).
    same = (labels[:, None, :] == labels[None, :, :]).sum(axis=1)
    ent_sum = -np.log(same / m).sum() / m
    return float(ent_sum / n / np.log(m))


def rank_documents(per_document: Sequence[MemberOutputs], method: str = "entropy"
                   ) -> list[int]:
    """Indices of ``per_document`` from the most to the least uncertain
    (ties keep input order)."""
    scores = [document_uncertainty(o, method) for o in per_document]
    return sorted(range(len(scores)), key=lambda i: -scores[i])
