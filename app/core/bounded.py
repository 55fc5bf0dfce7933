"""Regular expressions a person types (``--patient-regex``, a site's own
rule), matched in bounded time.

Python's ``re`` has no time limit, and a pattern such as ``(a+)+$`` on a
201-character file name backtracks for hours while the import holds the
project's write lock. The ``regex`` module (installed with flair, which
uses it) takes the same syntax and a timeout per match.
"""
from __future__ import annotations

import regex

from app.errors import UserError

#: The longest one match of a person's pattern may take (seconds); a file
#: name is matched in microseconds by any sensible pattern.
MATCH_TIMEOUT_S = 2.0
#: Characters a second every match of a pattern in a note is allowed beside
#: ``MATCH_TIMEOUT_S``: a simple site pattern goes through 4-16 million a
#: second on one core (``regex``), so only a pattern that backtracks without
#: end reaches it.
SCAN_CHARS_PER_S = 500_000


class BoundedPattern:
    """A compiled pattern whose ``search`` gives up after
    :data:`MATCH_TIMEOUT_S` with a ``UserError`` naming the option.

    Parameters
    ----------
    pattern
        The pattern as typed; a bad or too large one raises ``UserError``.
    option
        How the person gave it, for the messages (``--patient-regex``).
    advice
        What the person can do when it takes too long (``finditer``).
    """

    def __init__(self, pattern: str, option: str = "--patient-regex", *,
                 advice: str = "write it more simply") -> None:
        self.pattern, self.option, self.advice = pattern, option, advice
        try:
            self._compiled = regex.compile(pattern)
        except (regex.error, OverflowError, RecursionError, MemoryError) as exc:
            raise UserError(f"invalid {option}: {exc}") from None

    @property
    def groups(self) -> int:
        return self._compiled.groups

    @property
    def groupindex(self):
        return self._compiled.groupindex

    def search(self, text: str):
        """``regex``'s ``search``, bounded in time."""
        try:
            return self._compiled.search(text, timeout=MATCH_TIMEOUT_S)
        except TimeoutError:
            raise UserError(f"{self.option} {self.pattern!r} takes too long on a file name "
                            f"(it backtracks without end): write it more simply") from None

    def finditer(self, text: str) -> list:
        """Every match in ``text`` (a note), found within ``MATCH_TIMEOUT_S``
        and a second for each ``SCAN_CHARS_PER_S`` characters of it; else a
        ``UserError`` naming the option, never the text."""
        limit = MATCH_TIMEOUT_S + len(text) / SCAN_CHARS_PER_S
        try:
            return list(self._compiled.finditer(text, timeout=limit))
        except TimeoutError:
            raise UserError(f"{self.option} takes too long on a note of {len(text):,} "
                            f"characters (it backtracks without end): {self.advice}") from None
