"""Errors raised while reading notes from disk."""
from __future__ import annotations


class BadInputError(Exception):
    """A file that cannot be imported as a note.

    ``reason`` is short, user-facing and never contains file content (it may
    be shown in the GUI and written to logs).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
