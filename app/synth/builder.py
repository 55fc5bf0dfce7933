"""Assemble a note from template pieces, recording span offsets as it goes.

A template is plain text with ``{name}`` placeholders. Each placeholder
resolves to *pieces*: plain strings (never annotated) and :class:`Ent`
values (an identifier with its label). Offsets are taken from the running
length of the text while appending, so no span is ever found by searching.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Union

from app.core.spans import Span


@dataclass(frozen=True, slots=True)
class Ent:
    """An identifier to insert: its exact text and its label."""

    text: str
    label: str


Piece = Union[str, Ent, Iterable["Piece"]]
Value = Union[Piece, Callable[[], Piece]]

_PLACEHOLDER_RE = re.compile(r"\{(\w+)\}")


class NoteBuilder:
    """Accumulate text and gold spans.

    Parameters
    ----------
    labels
        Labels to annotate; an :class:`Ent` with another label is written but
        not annotated (it is not PII under the chosen label set).
    upper
        Write the whole note in upper case (as some dictation systems do);
        each piece is converted as it is appended so offsets stay exact.
    """

    def __init__(self, labels: frozenset[str], *, upper: bool = False) -> None:
        self._labels = labels
        self._upper = upper
        self._parts: list[str] = []
        self._len = 0
        self.spans: list[Span] = []

    @property
    def upper(self) -> bool:
        return self._upper

    def add(self, piece: Piece) -> None:
        """Append a string, an :class:`Ent`, or a (nested) sequence of them."""
        if isinstance(piece, str):
            self._append(piece)
        elif isinstance(piece, Ent):
            start = self._len
            self._append(piece.text)
            if piece.label in self._labels:
                self.spans.append(Span(start, self._len, piece.label))
        else:
            for p in piece:
                self.add(p)

    def fill(self, template: str, values: Mapping[str, Value]) -> None:
        """Append ``template`` with each ``{name}`` replaced by ``values[name]``.

        A callable value is called at every occurrence, so one placeholder can
        take a different surface form each time it is used.
        """
        pos = 0
        for m in _PLACEHOLDER_RE.finditer(template):
            self._append(template[pos:m.start()])
            value = values[m.group(1)]
            self.add(value() if callable(value) else value)
            pos = m.end()
        self._append(template[pos:])

    def text(self) -> str:
        return "".join(self._parts)

    def _append(self, s: str) -> None:
        if s:
            if self._upper:
                s = s.upper()
            self._parts.append(s)
            self._len += len(s)
