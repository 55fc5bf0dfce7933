"""Counts in the words a person reads: "1 span", "0 spans", never "span(s)"."""
from __future__ import annotations


def count(n: int, word: str, plural: str | None = None) -> str:
    """``n`` (with thousands separators) and ``word``, in the plural unless
    ``n`` is 1.

    Parameters
    ----------
    n
        How many.
    word
        The singular ("note", "new note").
    plural
        The plural where it is not ``word + "s"`` ("identities").

    Examples
    --------
    >>> count(1, "span"), count(0, "span"), count(2000, "note")
    ('1 span', '0 spans', '2,000 notes')
    """
    return f"{n:,} {word if n == 1 else plural or word + 's'}"
