"""Mapping annotation offsets computed on a slightly different text.

Tools disagree on two details of a file's text: whether a UTF-8
byte-order mark counts as a character (brat keeps it, so MEDDOCAN's offsets
in files with a BOM are one higher than in the BOM-less text), and whether
``\\r\\n`` counts as one character (anything that opened the file in text
mode, or an XML parser, turns it into ``\\n``). We keep the file's text as
stored and map the offsets onto it; the basis is chosen by checking the
covered text each annotation stores, never by searching for it.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Callable, Sequence

from app.formats.base import same_text

#: ``(start, end)`` in some basis -> ``(start, end)`` in the stored text.
OffsetMap = Callable[[int, int], tuple[int, int]]


def _identity(start: int, end: int) -> tuple[int, int]:
    return start, end


def _bom_shift(start: int, end: int) -> tuple[int, int]:
    return max(start - 1, 0), end - 1


def _lf_map(text: str) -> OffsetMap:
    # q[k]: position, in the text with CRLF -> LF, of the LF of the k-th CRLF.
    q: list[int] = []
    pos = text.find("\r\n")
    while pos >= 0:
        q.append(pos - len(q))
        pos = text.find("\r\n", pos + 2)

    def mapping(start: int, end: int) -> tuple[int, int]:
        # A start on an LF lands on the LF (after its CR); an end just before
        # an LF stays before its CR.
        return start + bisect_right(q, start), end + bisect_left(q, end)

    return mapping


def candidate_maps(text: str, had_bom: bool) -> list[tuple[str, OffsetMap]]:
    """Plausible offset bases for ``text``, the usual one first."""
    out: list[tuple[str, OffsetMap]] = [("as-stored", _identity)]
    if had_bom:
        out.append(("bom-counted", _bom_shift))
    if "\r\n" in text:
        lf = _lf_map(text)
        out.append(("crlf-as-one", lf))
        if had_bom:
            out.append(("bom-counted+crlf-as-one", lambda s, e: lf(*_bom_shift(s, e))))
    return out


def choose_map(text: str, had_bom: bool,
               anns: Sequence[tuple[int, int, str | None]]) -> tuple[str, OffsetMap]:
    """Pick the basis under which most annotations' stored text matches.

    ``anns`` holds ``(start, end, stored_text_or_None)`` in the file's basis.
    Ties keep the earlier (usual) basis.
    """
    candidates = candidate_maps(text, had_bom)
    if len(candidates) == 1:
        return candidates[0]
    checkable = [a for a in anns if a[2] is not None]
    best, best_score = candidates[0], -1
    for cand in candidates:
        score = 0
        for start, end, stored in checkable:
            s, e = cand[1](start, end)
            if 0 <= s < e <= len(text) and same_text(stored, text[s:e]):
                score += 1
        if score > best_score:
            best, best_score = cand, score
        if score == len(checkable):
            break
    return best
