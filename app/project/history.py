"""Persistent undo/redo history of annotation edits (schema v2).

Design
------
Each (document, annotator) pair has its own linear history, so one
annotator's undo never reverts another's edit on a double-annotated note;
``annotator=None`` is a stack of its own. ``seq`` numbers a document's edits
in order. The undo/redo *cursor* is the ``undone`` flag: entries with
``undone = 0`` are the undo stack (latest on top), entries with
``undone = 1`` the redo stack (earliest on top). It is stored in the project,
so the cursor survives closing and reopening. Pushing a new edit drops the
redo stack, as in every linear editor.

The store never interprets ``payload``: the editor records what it needs to
apply and invert the edit (e.g. ``{"span": {...}, "before": {...}}``). Make
the edit and :meth:`HistoryMixin.push_edit` one save::

    with project.transaction():
        span_id = project.add_span(doc, 10, 15, "PERSON", annotator="ann")
        project.push_edit(doc, "ann", "add_span", {"id": span_id, ...})

and likewise apply the inverse together with :meth:`HistoryMixin.undo`.
"""
from __future__ import annotations

from .core import ProjectCore, dumps, loads
from .errors import ProjectError
from .records import HistoryEntry

#: Most entries kept per (document, annotator); older ones are dropped.
HISTORY_LIMIT = 500

_COLS = "id, document_id, annotator, seq, action, payload_json, undone, created_at"


def _entry(row) -> HistoryEntry:
    return HistoryEntry(*row[:5], loads(row[5]), bool(row[6]), row[7])


class HistoryMixin(ProjectCore):
    """Undo/redo stacks per (document, annotator)."""

    def push_edit(self, doc_id: int, annotator: str | None, action: str,
                  payload: object) -> int:
        """Record an edit on top of the undo stack, drop the redo stack; return its seq."""
        with self._write() as db:
            if db.execute("SELECT 1 FROM documents WHERE id = ?", (doc_id,)).fetchone() is None:
                raise ProjectError(f"no document with id {doc_id}")
            db.execute("DELETE FROM history WHERE document_id = ? AND annotator IS ?"
                       " AND undone = 1", (doc_id, annotator))
            seq = db.execute("SELECT coalesce(max(seq), 0) + 1 FROM history"
                             " WHERE document_id = ?", (doc_id,)).fetchone()[0]
            db.execute("INSERT INTO history (document_id, annotator, seq, action, payload_json)"
                       " VALUES (?, ?, ?, ?, ?)", (doc_id, annotator, seq, action, dumps(payload)))
            db.execute("DELETE FROM history WHERE id IN (SELECT id FROM history"
                       " WHERE document_id = ? AND annotator IS ? ORDER BY seq DESC"
                       " LIMIT -1 OFFSET ?)", (doc_id, annotator, HISTORY_LIMIT))
            return seq

    def undo(self, doc_id: int, annotator: str | None) -> HistoryEntry | None:
        """Move the latest done edit to the redo stack and return it (``None``
        if there is nothing to undo); the caller applies its inverse."""
        return self._move(doc_id, annotator, undone=0, newest_first=True)

    def redo(self, doc_id: int, annotator: str | None) -> HistoryEntry | None:
        """Move the earliest undone edit back to the undo stack and return it
        (``None`` if there is nothing to redo); the caller re-applies it."""
        return self._move(doc_id, annotator, undone=1, newest_first=False)

    def _move(self, doc_id, annotator, *, undone: int, newest_first: bool):
        with self._write() as db:
            row = db.execute(
                f"SELECT {_COLS} FROM history WHERE document_id = ? AND annotator IS ?"
                f" AND undone = ? ORDER BY seq {'DESC' if newest_first else 'ASC'} LIMIT 1",
                (doc_id, annotator, undone)).fetchone()
            if row is None:
                return None
            db.execute("UPDATE history SET undone = ? WHERE id = ?", (1 - undone, row[0]))
            return _entry(row)

    def can_undo(self, doc_id: int, annotator: str | None) -> bool:
        return self._has(doc_id, annotator, 0)

    def can_redo(self, doc_id: int, annotator: str | None) -> bool:
        return self._has(doc_id, annotator, 1)

    def _has(self, doc_id, annotator, undone: int) -> bool:
        with self._read() as db:
            return db.execute("SELECT 1 FROM history WHERE document_id = ? AND annotator IS ?"
                              " AND undone = ? LIMIT 1", (doc_id, annotator, undone)
                              ).fetchone() is not None

    def history(self, doc_id: int, annotator: str | None = None) -> list[HistoryEntry]:
        """A document's recorded edits in ``seq`` order (of one annotator if given;
        the returned entries' ``undone`` flags show where the cursor is)."""
        sql, args = f"SELECT {_COLS} FROM history WHERE document_id = ?", [doc_id]
        if annotator is not None:
            sql, args = sql + " AND annotator = ?", args + [annotator]
        with self._read() as db:
            return [_entry(row) for row in db.execute(sql + " ORDER BY seq", args)]
