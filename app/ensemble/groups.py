"""Member groups an ensemble is built over (Liu et al.'s three, plus user sets).

* ``all``: every scored member (the rules model included when scored);
* ``top{k}_f1``: the ``k`` best by dev strict F1 (ties: recall, then name);
* ``top{k}_recall``: the ``k`` best by dev strict recall (ties: F1, then name);
* any user-named group.

Groups with the same member set are kept once, under the first name
(``all``, ``top{k}_f1``, ``top{k}_recall``, then user groups in order), so an
ensemble is never trained twice on the same members.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from app.eval.metrics import PRF


def rank_members(dev_scores: Mapping[str, PRF], by: str = "f1") -> list[str]:
    """Member names best first by dev ``"f1"`` or ``"recall"``."""
    if by == "f1":
        key = lambda n: (-dev_scores[n].f1, -dev_scores[n].recall, n)  # noqa: E731
    elif by == "recall":
        key = lambda n: (-dev_scores[n].recall, -dev_scores[n].f1, n)  # noqa: E731
    else:
        raise ValueError(f"unknown ranking {by!r} (use 'f1' or 'recall')")
    return sorted(dev_scores, key=key)


def make_groups(dev_scores: Mapping[str, PRF], *, k: int = 3,
                user_groups: Mapping[str, Sequence[str]] | None = None
                ) -> dict[str, list[str]]:
    """Build the named member groups (see module doc).

    Members keep their dev-F1 rank order inside every group. Raises
    ``ValueError`` for an empty or unknown user group, or a user group
    named like a built-in one.
    """
    if not dev_scores:
        raise ValueError("no scored members to group")
    by_f1 = rank_members(dev_scores, "f1")
    candidates = {"all": by_f1,
                  f"top{k}_f1": by_f1[:k],
                  f"top{k}_recall": rank_members(dev_scores, "recall")[:k]}
    for name, group in (user_groups or {}).items():
        if name in candidates:
            raise ValueError(f"group name {name!r} is reserved")
        unknown = [m for m in group if m not in dev_scores]
        if unknown or not group:
            raise ValueError(f"group {name!r} is empty or names unknown member(s): "
                             f"{', '.join(unknown)}")
        candidates[name] = list(group)
    groups: dict[str, list[str]] = {}
    seen: set[frozenset[str]] = set()
    for name, group in candidates.items():
        key = frozenset(group)
        if key not in seen:
            seen.add(key)
            groups[name] = [m for m in by_f1 if m in key]
    return groups
