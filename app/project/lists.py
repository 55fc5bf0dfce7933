"""Hospital lists stored in the project (schema v3, table ``list_entries``).

The entries are identifiers: they are never logged; the audit log and
every report get counts by kind only.
"""
from __future__ import annotations

from typing import Iterable

from app.lists.entries import LIST_KINDS, PLAIN_FIELD, HospitalLists

from .core import ProjectCore
from .errors import ProjectError


def _check_kind(kind: str) -> None:
    if kind not in LIST_KINDS:
        raise ProjectError(f"unknown list kind {kind!r} (kinds: {', '.join(LIST_KINDS)})")


_VERSION_KEY = "lists_version"


def _bump_lists_version(db) -> None:
    db.execute("INSERT INTO settings (key, value_json) VALUES (?, '1') ON CONFLICT (key)"
               " DO UPDATE SET value_json = CAST(value_json AS INTEGER) + 1", (_VERSION_KEY,))


class ListsMixin(ProjectCore):
    """Patient table and plain lists of a project."""

    def add_list_entries(self, kind: str, rows: Iterable[tuple[str, str, str]]) -> int:
        """Add ``(patient_id, field, value)`` rows of list ``kind``; return how many were new.

        Plain lists take ``patient_id`` ``""`` and field ``"name"``; a row
        already stored is skipped.
        """
        _check_kind(kind)
        added = 0
        with self._write() as db:
            for patient_id, field_name, value in rows:
                if (kind == "patients") != bool(patient_id):
                    raise ProjectError("only the patient table's entries have a patient id")
                cur = db.execute("INSERT OR IGNORE INTO list_entries (kind, patient_id, field, value)"
                                 " VALUES (?, ?, ?, ?)", (kind, patient_id, field_name, value))
                added += cur.rowcount
            if added:
                _bump_lists_version(db)
        return added

    def add_plain_list(self, kind: str, values: Iterable[str]) -> int:
        """Add the entries of a plain list (``staff``, ``places``, ...)."""
        if kind == "patients":
            raise ProjectError("the patient table is added with add_list_entries")
        return self.add_list_entries(kind, (("", PLAIN_FIELD, v) for v in values))

    def remove_list(self, kind: str) -> int:
        """Delete every entry of ``kind``; return how many were deleted."""
        _check_kind(kind)
        with self._write() as db:
            n = db.execute("DELETE FROM list_entries WHERE kind = ?", (kind,)).rowcount
            if n:
                _bump_lists_version(db)
            return n

    def lists_version(self) -> int:
        """A number that changes whenever an entry is added or removed (a
        cache of the compiled lists is good while it stays the same)."""
        with self._read() as db:
            row = db.execute("SELECT value_json FROM settings WHERE key = ?",
                             (_VERSION_KEY,)).fetchone()
        return 0 if row is None else int(row[0])

    def list_counts(self) -> dict[str, dict[str, int]]:
        """``{kind: {"entries": n, "patients": m}}`` for the kinds holding entries."""
        with self._read() as db:
            rows = db.execute("SELECT kind, count(*), count(DISTINCT patient_id) FROM list_entries"
                              " GROUP BY kind").fetchall()
        return {kind: {"entries": n, **({"patients": p} if kind == "patients" else {})}
                for kind, n, p in rows}

    def hospital_lists(self) -> HospitalLists:
        """Every stored entry, ready for :class:`app.lists.ListMatcher`."""
        lists = HospitalLists()
        with self._read() as db:
            for kind, patient_id, field_name, value in db.execute(
                    "SELECT kind, patient_id, field, value FROM list_entries ORDER BY id"):
                lists.add(kind, value, patient_id=patient_id, field_name=field_name)
        return lists

    def list_patient_ids(self) -> set[str]:
        """The patient ids of the patient table."""
        with self._read() as db:
            return {row[0] for row in db.execute(
                "SELECT DISTINCT patient_id FROM list_entries WHERE kind = 'patients'")}

    def has_lists(self) -> bool:
        with self._read() as db:
            return db.execute("SELECT 1 FROM list_entries LIMIT 1").fetchone() is not None
