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


V4_SQL = f"""
CREATE TABLE annotator_status (
    document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    annotator   TEXT NOT NULL,
    status      TEXT NOT NULL
                CHECK (status IN ('todo', 'in_progress', 'done', 'reviewed')),
    updated_at  TEXT NOT NULL DEFAULT ({NOW}),
    PRIMARY KEY (document_id, annotator)
);
"""


def _own_statuses(db: sqlite3.Connection, doc_id: int, shared: str) -> dict[str, str]:
    """Each annotator's status of a blind document as an older file implies it.

    The status an annotator last set (their newest status change still in
    the undo history) is theirs. An assigned annotator who never set one has
    ``in_progress`` when they labelled something, else ``todo``; when nobody
    ever set one, the document's shared status belongs to every assigned
    annotator (it was theirs to see, and nobody can tell whose it was).
    """
    own: dict[str, str] = {}
    for annotator, payload in db.execute(
            "SELECT annotator, payload_json FROM history WHERE document_id = ? AND undone = 0"
            " AND annotator IS NOT NULL ORDER BY seq", (doc_id,)):
        change = json.loads(payload).get("doc_status")
        if change:
            own[annotator] = change[1]
    assigned = [row[0] for row in db.execute(
        "SELECT annotator FROM assignments WHERE document_id = ?", (doc_id,))]
    anyone_set = bool(own)
    for annotator in assigned:
        if annotator in own:
            continue
        labelled = db.execute("SELECT 1 FROM spans WHERE document_id = ? AND annotator = ?"
                              " LIMIT 1", (doc_id, annotator)).fetchone()
        own[annotator] = ("in_progress" if labelled else "todo") if anyone_set else shared
    return own


def _v3_to_v4(db: sqlite3.Connection) -> None:
    """Give each annotator of a blind (assigned) document a status of their
    own, so one annotator's Done is not shown to the other; the documents'
    shared statuses stay as they are."""
    for stmt in statements(V4_SQL):
        db.execute(stmt)
    blind = db.execute("SELECT id, status FROM documents WHERE id IN"
                       " (SELECT document_id FROM assignments) ORDER BY id").fetchall()
    for doc_id, shared in blind:
        db.executemany("INSERT INTO annotator_status (document_id, annotator, status)"
                       " VALUES (?, ?, ?)",
                       [(doc_id, a, s) for a, s in _own_statuses(db, doc_id, shared).items()])


def _v4_to_v5(db: sqlite3.Connection) -> None:
    """Name what made each suggestion (``spans.origin``: a model by its name,
    a rule, the hospital lists; `app.core.spans.Span.origin`), which Annotate
    shows; the suggestions of an older file name nothing."""
    db.execute("ALTER TABLE spans ADD COLUMN origin TEXT")


MIGRATIONS: list[Migration] = [_v1_to_v2, _v2_to_v3, _v3_to_v4, _v4_to_v5]


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
