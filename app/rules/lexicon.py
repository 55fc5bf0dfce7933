"""The word sets the English rules share (nursing, nursing_names, vetoes),
read from the shipped rules file's ``lexicon`` (``resources/rules/en.json``):
each set with the code that uses it, its words and the evidence for them,
where a hospital can read them without reading Python."""
from __future__ import annotations

import json
from functools import cache


@cache
def _lexicon() -> dict:
    from app.rules.registry import shipped_path
    return json.loads(shipped_path().read_text(encoding="utf-8"))["lexicon"]


def words(name: str) -> frozenset[str]:
    """The word set ``name`` of the shipped lexicon (``KeyError`` if none)."""
    return frozenset(_lexicon()[name]["words"])
