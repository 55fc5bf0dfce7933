"""Schema version 1 of the project file, frozen.

Never edit ``V1_SQL``: files written by released versions start from it, and
every later change is a migration in :mod:`app.project.migrations`. A new
project is made by running ``V1_SQL`` and then every migration, so a fresh
file and an upgraded one have the same schema by construction.
"""
from __future__ import annotations

import sqlite3
from typing import Iterator

#: ``PRAGMA application_id`` of every project file: b"DEID" as a big-endian int.
APPLICATION_ID = 0x44454944

#: SQL expression for "now" as ISO-8601 UTC with milliseconds.
NOW = "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

SPLITS = ("train", "dev", "test")
DOC_STATUSES = ("todo", "in_progress", "done", "reviewed")
SPAN_SOURCES = ("human", "model", "rule", "import")
SPAN_STATUSES = ("suggested", "accepted", "rejected")
RUN_STATUSES = ("running", "done", "failed", "cancelled")
PACKINGS = ("file", "tar")

V1_SQL = f"""
CREATE TABLE documents (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    sha256      TEXT NOT NULL UNIQUE,
    source_path TEXT,
    patient_id  TEXT,
    split       TEXT CHECK (split IN ('train', 'dev', 'test')),
    status      TEXT NOT NULL DEFAULT 'todo'
                CHECK (status IN ('todo', 'in_progress', 'done', 'reviewed')),
    uncertainty REAL,
    meta_json   TEXT NOT NULL DEFAULT '{{}}',
    created_at  TEXT NOT NULL DEFAULT ({NOW}),
    updated_at  TEXT NOT NULL DEFAULT ({NOW}),
    -- Last on purpose: SQLite reads columns in order, so list queries that
    -- stop before `text` never walk its overflow pages.
    text        TEXT NOT NULL
);
CREATE INDEX documents_split_status ON documents (split, status);
CREATE INDEX documents_status ON documents (status);
CREATE INDEX documents_patient ON documents (patient_id);

CREATE TABLE runs (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL,
    status       TEXT NOT NULL
                 CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
    config_json  TEXT NOT NULL DEFAULT '{{}}',
    metrics_json TEXT,
    started_at   TEXT NOT NULL DEFAULT ({NOW}),
    finished_at  TEXT
);
CREATE INDEX runs_status ON runs (status);

CREATE TABLE spans (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    start       INTEGER NOT NULL CHECK (start >= 0),
    "end"       INTEGER NOT NULL,
    label       TEXT NOT NULL,
    source      TEXT NOT NULL CHECK (source IN ('human', 'model', 'rule', 'import')),
    annotator   TEXT,
    run_id      INTEGER REFERENCES runs (id) ON DELETE SET NULL,
    status      TEXT NOT NULL CHECK (status IN ('suggested', 'accepted', 'rejected')),
    confidence  REAL,
    created_at  TEXT NOT NULL DEFAULT ({NOW}),
    updated_at  TEXT NOT NULL DEFAULT ({NOW}),
    CHECK ("end" > start)
);
CREATE INDEX spans_document ON spans (document_id, status);
CREATE INDEX spans_run ON spans (run_id);

CREATE TABLE labels (
    name        TEXT PRIMARY KEY,
    colour      TEXT NOT NULL,
    hotkey      TEXT,
    description TEXT NOT NULL DEFAULT '',
    position    INTEGER NOT NULL
);

CREATE TABLE annotators (
    name       TEXT PRIMARY KEY,
    created_at TEXT NOT NULL DEFAULT ({NOW})
);

CREATE TABLE assignments (
    document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    annotator   TEXT NOT NULL REFERENCES annotators (name),
    created_at  TEXT NOT NULL DEFAULT ({NOW}),
    PRIMARY KEY (document_id, annotator)
);

CREATE TABLE artifacts (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER REFERENCES runs (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    packing    TEXT NOT NULL CHECK (packing IN ('file', 'tar')),
    meta_json  TEXT NOT NULL DEFAULT '{{}}',
    size       INTEGER NOT NULL DEFAULT 0,
    sha256     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL DEFAULT ({NOW})
);
CREATE INDEX artifacts_run ON artifacts (run_id);

CREATE TABLE artifact_chunks (
    artifact_id INTEGER NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    data        BLOB NOT NULL,
    PRIMARY KEY (artifact_id, seq)
);

CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL DEFAULT ({NOW}),
    actor       TEXT,
    event       TEXT NOT NULL,
    detail_json TEXT NOT NULL DEFAULT '{{}}'
);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value_json TEXT NOT NULL
);

CREATE TABLE surrogates (
    patient_key TEXT NOT NULL,
    label       TEXT NOT NULL,
    original    TEXT NOT NULL,
    surrogate   TEXT NOT NULL,
    PRIMARY KEY (patient_key, label, original)
);
"""


def statements(sql: str) -> Iterator[str]:
    """Split a script into complete statements (trigger bodies included).

    ``executescript`` would commit the caller's transaction first, so
    schema scripts are run one statement at a time instead.
    """
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending.strip()
            pending = ""
    if pending.strip():
        raise ValueError("incomplete SQL statement at end of script")


def init_v1(db: sqlite3.Connection) -> None:
    """Write schema version 1 into an empty database, in one transaction.

    ``db`` must be in autocommit mode (``isolation_level=None``). Also used by
    ``tests/project/fixtures/make_fixtures.py`` to write the v1 fixture.
    """
    # Must precede the first table; lets delete_artifacts() give space back.
    db.execute("PRAGMA auto_vacuum = INCREMENTAL")
    db.execute("BEGIN EXCLUSIVE")
    try:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        for stmt in statements(V1_SQL):
            db.execute(stmt)
        db.execute("PRAGMA user_version = 1")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
