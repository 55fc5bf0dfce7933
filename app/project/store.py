"""The one-file SQLite project store (``*.deid``).

A project is one SQLite file in WAL mode, marked by ``PRAGMA application_id``
(:data:`~app.project.schema.APPLICATION_ID`) and versioned by ``PRAGMA
user_version``. One process at a time may write it (:mod:`app.project.lock`);
others may open it read-only. Older files are upgraded on a writable open
after a verified backup (:mod:`app.project.migrations`); newer ones are
refused. ``synchronous = FULL``: a save that returned survives a crash or
power cut, and a killed process loses at most the transaction in flight.

Example
-------
>>> with Project.create("notes.deid", PRESETS["paper"]) as project:  # doctest: +SKIP
...     doc = project.add_document("note1", "Seen by Dr Smith.")
"""
from __future__ import annotations

import glob
import os
import sqlite3
import time
from pathlib import Path

import psutil

from app.core.labels import LabelDef, PALETTE

from . import migrations
from .connection import QUICK_CHECK_ALWAYS_BYTES, backup_to, check_identity, connect, quick_check
from .core import dumps, loads
from .documents import DocumentsMixin
from .errors import ProjectError, ProjectNotWritableError, ProjectVersionError
from .history import HistoryMixin
from .lists import ListsMixin
from .lock import ProjectLock
from .records import AuditEntry
from .runs import RunsMixin
from .schema import init_v1

_LABEL_FIELDS = {"name", "colour", "hotkey", "description", "position"}


def _configure(db: sqlite3.Connection) -> None:
    """Per-connection settings of a writable project (after identity checks)."""
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")


def _remove_with_journals(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def _writable(path: Path) -> bool:
    """Can this process write the file and create its ``-wal``/``-shm`` beside it?"""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


_LAST_CHECK_KEY = "last_quick_check"


def _scheduled_quick_check(db: sqlite3.Connection, path: Path, readonly: bool) -> None:
    """``quick_check`` on every open of a file up to ``QUICK_CHECK_ALWAYS_BYTES``,
    else when the last check is a day old (recorded on writable opens)."""
    if os.path.getsize(path) > QUICK_CHECK_ALWAYS_BYTES:
        try:
            row = db.execute("SELECT value_json FROM settings WHERE key = ?",
                             (_LAST_CHECK_KEY,)).fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is not None and time.time() - float(loads(row[0]) or 0) < 86400:
            return
        quick_check(db, path)
        if not readonly:
            db.execute("INSERT INTO settings (key, value_json) VALUES (?, ?) ON CONFLICT (key)"
                       " DO UPDATE SET value_json = excluded.value_json",
                       (_LAST_CHECK_KEY, dumps(time.time())))
        return
    quick_check(db, path)


class Project(DocumentsMixin, RunsMixin, HistoryMixin, ListsMixin):
    """An open project file. Use :meth:`create` or :meth:`open`, not the constructor.

    Thread-safe: one object may be shared by the GUI and worker threads (see
    :class:`app.project.core.ProjectCore`). Writes raise ``ProjectError`` on
    a read-only project.

    Attributes
    ----------
    interrupted_runs
        Ids of runs a crash had left ``running``, marked ``cancelled`` by this
        open (tell the user); a read-only open reads them so without storing it.
    upgraded_from
        The schema version this open upgraded from, or ``None``.
    """

    interrupted_runs: tuple[int, ...] = ()
    upgraded_from: int | None = None

    # ----------------------------------------------------------- lifecycle
    @classmethod
    def create(cls, path: str | os.PathLike, labels: list[LabelDef],
               language: str = "en", settings: dict | None = None) -> "Project":
        """Create a new project file and return it open for writing.

        ``settings`` are stored with the labels and the language. The file is
        built under a hidden temporary name beside ``path`` and linked into
        place only when whole, so a killed creation leaves no project (never
        a broken one, or one without its labels). Refuses (``ProjectError``)
        to overwrite an existing file.
        """
        path = Path(path)
        names = [label.name for label in labels]
        if len(set(names)) != len(names):
            raise ProjectError("the label set repeats a label name")
        if path.exists():
            raise ProjectError(f"{path.name} already exists; refusing to overwrite it")
        for stale in path.parent.glob(f".{glob.escape(path.name)}.new-*"):
            # Left by a creation that was killed (labels only, no notes).
            pid = stale.name.rsplit("-", 1)[-1]
            if pid.isdigit() and not psutil.pid_exists(int(pid)):
                _remove_with_journals(stale)
        tmp = path.with_name(f".{path.name}.new-{os.getpid()}")
        _remove_with_journals(tmp)
        db = building = None
        try:
            try:
                with tmp.open("xb"):
                    pass
            except OSError as exc:
                raise ProjectError(f"cannot create {path.name}: {exc.strerror}") from None
            db = connect(tmp, readonly=False)
            init_v1(db)
            _configure(db)
            db.execute("BEGIN EXCLUSIVE")
            migrations.apply(db, 1)
            db.execute("COMMIT")
            building = cls(tmp, db, None, readonly=False)
            db = None
            with building.transaction():
                for label in labels:
                    building.add_label(label)
                building.set_setting("language", language)
                for key, value in (settings or {}).items():
                    building.set_setting(key, value)
                building.log("project_created", {"schema": migrations.current_version(),
                                                 "labels": len(labels)})
            building.close()                     # checkpointed: one whole file
            # A journal left by a deleted file of the same name would be
            # replayed into the new one.
            for suffix in ("-wal", "-shm", "-journal"):
                path.with_name(path.name + suffix).unlink(missing_ok=True)
            try:
                os.link(tmp, path)               # atomic, and never over an existing file
            except FileExistsError:
                raise ProjectError(f"{path.name} already exists; refusing to overwrite it") from None
            except OSError:                      # a file system without hard links
                if path.exists():
                    raise ProjectError(f"{path.name} already exists; refusing to overwrite it") from None
                os.replace(tmp, path)
        finally:
            if building is not None:
                building.close()
            elif db is not None:
                db.close()
            _remove_with_journals(tmp)
        return cls.open(path)

    @classmethod
    def open(cls, path: str | os.PathLike, readonly: bool = False) -> "Project":
        """Open an existing project.

        Raises
        ------
        ProjectError
            Missing file, or not a DeID Studio project.
        ProjectLockedError
            ``readonly=False`` and another process has it open for writing.
        ProjectVersionError
            Written by a newer version, or (read-only) needs an upgrade.
        """
        path = Path(path)
        if not path.is_file():
            raise ProjectError(f"no project file {path.name} in {path.parent}")
        if not readonly and not _writable(path):
            raise ProjectNotWritableError(
                f"{path.name} cannot be written here (read-only file or folder)")
        lock = None if readonly else ProjectLock.acquire(path)
        db = None
        try:
            db = connect(path, readonly=readonly)
            version = check_identity(db, path)
            _scheduled_quick_check(db, path, readonly)
            current = migrations.current_version()
            if version > current:
                raise ProjectVersionError(
                    f"{path.name} was made by a newer DeID Studio (schema {version}); "
                    f"this version reads up to {current}")
            if version < current and readonly:
                raise ProjectVersionError(
                    f"{path.name} uses the older schema {version}; open it for "
                    f"writing once to upgrade it to {current}")
            if not readonly:
                _configure(db)
            if version < current:
                migrations.upgrade(db, path, version)
        except BaseException:
            if db is not None:
                db.close()
            if lock is not None:
                lock.release()
            raise
        project = cls(path, db, lock, readonly)
        if version < current:
            project.upgraded_from = version
        if not readonly:
            project.interrupted_runs = tuple(project._cancel_interrupted_runs())
        else:
            project.interrupted_runs = tuple(project._interrupted_for_reading())
        return project

    @property
    def schema_version(self) -> int:
        with self._read() as db:
            return db.execute("PRAGMA user_version").fetchone()[0]

    @property
    def language(self) -> str:
        return self.get_setting("language", "en")

    def backup(self, dest_path: str | os.PathLike, *, overwrite: bool = False,
               checkpoint_wait_s: float = 0.0) -> Path:
        """Copy the project to ``dest_path`` with the online backup API.

        The copy is a single self-contained file, checked by re-opening it
        before it is renamed into place. Safe while other threads work.
        It holds every save, also those another process's reader keeps in
        the ``-wal`` (the backup reads through this connection); the
        checkpoint before it is housekeeping, so it waits
        ``checkpoint_wait_s`` for such a reader, not the 10 s it took.
        """
        dest = Path(dest_path)
        if dest.resolve() == self._path.resolve():
            raise ProjectError("cannot back up a project onto itself")
        with self._mutex:
            if self._depth:
                raise ProjectError("cannot back up inside a transaction")
            self.checkpoint(wait_s=checkpoint_wait_s)
            return backup_to(self._conn(), dest, expect_version=self.schema_version,
                             overwrite=overwrite)

    # --------------------------------------------------------------- labels
    def labels(self) -> list[LabelDef]:
        """The label set in display order."""
        with self._read() as db:
            return [LabelDef(*row) for row in db.execute(
                "SELECT name, colour, hotkey, description FROM labels ORDER BY position, name")]

    def add_label(self, label: LabelDef) -> None:
        """Append a label; ``ProjectError`` if the name exists."""
        with self._write() as db:
            try:
                db.execute("INSERT INTO labels (name, colour, hotkey, description, position)"
                           " VALUES (?, ?, ?, ?, (SELECT coalesce(max(position), -1) + 1"
                           " FROM labels))",
                           (label.name, label.colour, label.hotkey, label.description))
            except sqlite3.IntegrityError:
                raise ProjectError(f"label {label.name} already exists") from None

    def update_label(self, name: str, /, **fields) -> None:
        """Update ``colour``, ``hotkey``, ``description``, ``position`` or ``name``.

        Renaming also renames the label on every span, in the same transaction.
        """
        unknown = set(fields) - _LABEL_FIELDS
        if unknown:
            raise ValueError(f"cannot set label field(s) {', '.join(sorted(unknown))}")
        if not fields:
            return
        sets = ", ".join(f"{key} = ?" for key in fields)
        with self._write() as db:
            try:
                cur = db.execute(f"UPDATE labels SET {sets} WHERE name = ?",
                                 [*fields.values(), name])
            except sqlite3.IntegrityError:
                raise ProjectError(f"label {fields.get('name')} already exists") from None
            if cur.rowcount == 0:
                raise ProjectError(f"no label {name}")
            if "name" in fields and fields["name"] != name:
                db.execute("UPDATE spans SET label = ? WHERE label = ?", (fields["name"], name))

    def ensure_labels(self, names: list[str]) -> list[str]:
        """Add the labels not yet defined, with palette colours and the first
        number key no label has (1-9, then 0); return the added names."""
        added = []
        with self._write() as db:
            rows = db.execute("SELECT name, hotkey FROM labels").fetchall()
            known = {name for name, _ in rows}
            free = [k for k in "1234567890" if k not in {key for _, key in rows}]
            for name in names:
                if name not in known:
                    self.add_label(LabelDef(name, PALETTE[len(known) % len(PALETTE)],
                                            free.pop(0) if free else None))
                    known.add(name)
                    added.append(name)
        return added

    # ----------------------------------------------------------- annotators
    def add_annotator(self, name: str) -> None:
        """Register an annotator; adding a known name is a no-op."""
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO annotators (name) VALUES (?)", (name,))

    def annotators(self) -> list[str]:
        with self._read() as db:
            return [row[0] for row in db.execute("SELECT name FROM annotators ORDER BY name")]

    def assign(self, doc_id: int, annotator: str) -> None:
        """Assign a document to an annotator (registered if new); idempotent.

        Two or more assignees make a document double-annotated. The
        annotator keeps the status they gave the document before (their
        Done stays theirs), a newly assigned one starts ``todo``, and the
        shared status follows every assignee's (done once all are).
        """
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO annotators (name) VALUES (?)", (annotator,))
            try:
                added = db.execute("INSERT OR IGNORE INTO assignments (document_id, annotator)"
                                   " VALUES (?, ?)", (doc_id, annotator)).rowcount
            except sqlite3.IntegrityError:
                raise ProjectError(f"no document with id {doc_id}") from None
            if added:
                self._take_own_status(db, doc_id, annotator)
                self._follow_assignees(db, doc_id)

    def unassign(self, doc_id: int, annotator: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM assignments WHERE document_id = ? AND annotator = ?",
                       (doc_id, annotator))

    def assigned_annotators(self) -> list[str]:
        """The annotators some document is assigned to, by name."""
        with self._read() as db:
            return [row[0] for row in db.execute(
                "SELECT DISTINCT annotator FROM assignments ORDER BY annotator")]

    def assignments(self, doc_id: int) -> list[str]:
        """Annotators assigned to a document, by name."""
        with self._read() as db:
            return [row[0] for row in db.execute(
                "SELECT annotator FROM assignments WHERE document_id = ? ORDER BY annotator",
                (doc_id,))]

    # ------------------------------------------------------------ audit log
    def log(self, event: str, detail: dict, actor: str | None = None) -> int:
        """Append to the audit log (there is no way to change or delete entries).

        ``detail`` must not contain note text or identifiers.
        """
        with self._write() as db:
            return db.execute("INSERT INTO audit_log (actor, event, detail_json) VALUES (?, ?, ?)",
                              (actor, event, dumps(detail))).lastrowid

    def audit_entries(self, limit: int | None = None) -> list[AuditEntry]:
        """Audit entries, newest first."""
        with self._read() as db:
            return [AuditEntry(*row[:4], loads(row[4])) for row in db.execute(
                "SELECT id, at, actor, event, detail_json FROM audit_log ORDER BY id DESC"
                " LIMIT ?", (-1 if limit is None else limit,))]

    # ------------------------------------------------------------- settings
    def get_setting(self, key: str, default=None):
        with self._read() as db:
            row = db.execute("SELECT value_json FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else loads(row[0])

    def set_setting(self, key: str, value) -> None:
        """Store any JSON-serialisable value."""
        with self._write() as db:
            db.execute("INSERT INTO settings (key, value_json) VALUES (?, ?)"
                       " ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json",
                       (key, dumps(value)))

    # ----------------------------------------------------------- surrogates
    def surrogate_get(self, patient_key: str, label: str, original: str) -> str | None:
        with self._read() as db:
            row = db.execute("SELECT surrogate FROM surrogates WHERE patient_key = ?"
                             " AND label = ? AND original = ?",
                             (patient_key, label, original)).fetchone()
        return None if row is None else row[0]

    def surrogate_put(self, patient_key: str, label: str, original: str,
                      surrogate: str) -> None:
        """Remember (or replace) the surrogate of one identifier of one patient."""
        with self._write() as db:
            db.execute("INSERT INTO surrogates (patient_key, label, original, surrogate)"
                       " VALUES (?, ?, ?, ?) ON CONFLICT (patient_key, label, original)"
                       " DO UPDATE SET surrogate = excluded.surrogate",
                       (patient_key, label, original, surrogate))

    def surrogates_export(self, actor: str | None = None) -> list[dict]:
        """Every original -> surrogate mapping; only on an explicit user request.

        The mapping re-identifies the corpus, so each export is audited
        (when the project is open for writing).
        """
        with self._read() as db:
            rows = db.execute("SELECT patient_key, label, original, surrogate FROM surrogates"
                              " ORDER BY patient_key, label, original").fetchall()
        if not self._readonly:
            self.log("surrogates_exported", {"count": len(rows)}, actor)
        return [dict(zip(("patient_key", "label", "original", "surrogate"), row))
                for row in rows]
