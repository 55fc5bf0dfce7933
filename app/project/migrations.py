"""Schema migrations: ``MIGRATIONS[i]`` upgrades version ``i + 1`` to ``i + 2``.

To change the schema, append a function here; never edit an existing one or
:data:`app.project.schema.V1_SQL`, and commit a fixture of the old version
under ``tests/project/fixtures/`` (see ``make_fixtures.py``).

An upgrade first makes a verified copy ``NAME.deid.bak-vN`` of the file, then
runs every pending migration in one exclusive transaction: it either
completes or leaves the file exactly as it was.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Callable

from .connection import backup_to
from .errors import ProjectError
from .schema import NOW, statements

Migration = Callable[[sqlite3.Connection], None]

V2_SQL = f"""
CREATE TABLE history (
    id           INTEGER PRIMARY KEY,
    document_id  INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    annotator    TEXT,
    seq          INTEGER NOT NULL,
    action       TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    undone       INTEGER NOT NULL DEFAULT 0 CHECK (undone IN (0, 1)),
    created_at   TEXT NOT NULL DEFAULT ({NOW}),
    UNIQUE (document_id, seq)
);
CREATE INDEX history_cursor ON history (document_id, annotator, undone, seq);
"""


def _v1_to_v2(db: sqlite3.Connection) -> None:
    """Add the persistent per-document undo/redo history."""
    for stmt in statements(V2_SQL):
        db.execute(stmt)


V3_SQL = f"""
CREATE TABLE list_entries (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL
               CHECK (kind IN ('patients', 'staff', 'places', 'hospitals', 'wards', 'other')),
    -- The patient table's rows carry their patient id; plain lists ''.
    patient_id TEXT NOT NULL DEFAULT '',
    field      TEXT NOT NULL,
    value      TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT ({NOW}),
    UNIQUE (kind, patient_id, field, value),
    CHECK ((kind = 'patients') = (patient_id <> ''))
);
"""


def _v2_to_v3(db: sqlite3.Connection) -> None:
    """Add the hospital lists (patient table and plain lists, app.lists)."""
    for stmt in statements(V3_SQL):
        db.execute(stmt)


MIGRATIONS: list[Migration] = [_v1_to_v2, _v2_to_v3]


def current_version() -> int:
    """The schema version this code writes and reads."""
    return 1 + len(MIGRATIONS)


def apply(db: sqlite3.Connection, from_version: int) -> None:
    """Run the pending migrations inside the caller's transaction."""
    for version in range(from_version, current_version()):
        MIGRATIONS[version - 1](db)
    db.execute(f"PRAGMA user_version = {current_version()}")


def backup_path(path: Path, version: int) -> Path:
    return path.with_name(f"{path.name}.bak-v{version}")


def upgrade(db: sqlite3.Connection, path: Path, from_version: int) -> Path:
    """Back up, then migrate ``db`` to the current version; return the backup path.

    An existing backup of the same version is replaced only once the new
    copy has been verified.
    """
    backup = backup_to(db, backup_path(path, from_version),
                       expect_version=from_version, overwrite=True)
    db.execute("BEGIN EXCLUSIVE")
    try:
        apply(db, from_version)
        db.execute(
            "INSERT INTO audit_log (event, detail_json) VALUES ('schema_upgraded', ?)",
            (json.dumps({"from": from_version, "to": current_version(),
                         "backup": backup.name}),))
        db.execute("COMMIT")
    except Exception as exc:
        db.execute("ROLLBACK")
        raise ProjectError(
            f"upgrading {path.name} from schema {from_version} failed ({exc}); "
            f"the file is unchanged and a copy is in {backup.name}") from exc
    return backup
