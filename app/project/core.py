"""Connection lifecycle, thread serialisation and transactions of a project."""
from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .errors import ProjectError
from .lock import ProjectLock


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


#: How long closing a project waits for another process's readers to let
#: the last saves be folded into the ``.deid`` file (seconds; SQLite's busy
#: handler retries the checkpoint meanwhile).
CLOSE_CHECKPOINT_WAIT_S = 10.0


class ProjectCore:
    """The shared base of :class:`app.project.store.Project` and its mixins.

    One ``sqlite3`` connection, opened with ``check_same_thread=False``, is
    shared by the GUI and worker threads; every access holds ``_mutex`` (an
    RLock), and a transaction holds it from BEGIN to COMMIT, so another
    thread waits rather than seeing half an operation. Keep transactions
    short, and never wait for another thread inside one.
    """

    def __init__(self, path: Path, db: sqlite3.Connection,
                 lock: ProjectLock | None, readonly: bool) -> None:
        self._path = path
        self._db: sqlite3.Connection | None = db
        self._lock_file = lock
        self._readonly = readonly
        self._mutex = threading.RLock()
        self._depth = 0
        #: Set by :meth:`close` when another process's reader kept the last
        #: saves in the ``-wal`` file: the ``.deid`` file alone does not hold
        #: them yet (a copy of it alone would miss them).
        self.saves_in_wal = False

    @property
    def path(self) -> Path:
        return self._path

    @property
    def readonly(self) -> bool:
        return self._readonly

    @property
    def closed(self) -> bool:
        return self._db is None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise ProjectError("the project is closed")
        return self._db

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run a block as one transaction; nested blocks become savepoints.

        Leaving the outermost block commits; an exception rolls back what the
        block did (a nested block's failure only undoes that block if the
        caller catches it) and propagates. Every user-visible save should be
        one outermost transaction, so a crash loses at most that save; after
        it the ``.deid`` file alone holds the save (see :meth:`_fold_wal`).
        """
        with self._mutex:
            db = self._conn()
            depth = self._depth
            if depth == 0:
                db.execute("BEGIN" if self._readonly else "BEGIN IMMEDIATE")
            else:
                db.execute(f"SAVEPOINT sp{depth}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                # SQLite may already have rolled back by itself (disk full, ...)
                if db.in_transaction:
                    if depth == 0:
                        db.execute("ROLLBACK")
                    else:
                        db.execute(f"ROLLBACK TO sp{depth}")
                        db.execute(f"RELEASE sp{depth}")
                raise
            self._depth -= 1
            try:
                db.execute("COMMIT" if depth == 0 else f"RELEASE sp{depth}")
            except BaseException:
                if depth == 0 and db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            if depth == 0 and not self._readonly:
                self._fold_wal(db)

    @staticmethod
    def _fold_wal(db: sqlite3.Connection) -> None:
        """Copy the save just committed from the ``-wal`` into the ``.deid``
        file itself (a passive checkpoint: it never waits for readers).

        Users move a project by copying its one file; after a crash the
        ``-wal`` beside it would otherwise hold the latest saves, and a copy
        of the file alone would miss them. The save is already durable, so
        a checkpoint that cannot run now (a reader in another process) is
        simply left for the next one.
        """
        try:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.OperationalError:
            pass

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write: refused when read-only, always inside a transaction."""
        if self._readonly:
            raise ProjectError(f"project {self._path.name} is open read-only")
        with self.transaction():
            yield self._conn()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._mutex:
            yield self._conn()

    def checkpoint(self, wait_s: float | None = None) -> bool:
        """Fold the WAL into the main file and truncate it.

        Call before the ``.deid`` file is copied or exported by file-system
        means. Returns ``False`` if a reader in another process prevented a
        full checkpoint: a copy of the ``.deid`` file alone could then miss
        the latest saves (:meth:`backup` has no such limit). No-op when
        read-only.

        ``wait_s``: how long to wait for such a reader (default: the
        connection's busy timeout, 10 s).
        """
        with self._mutex:
            db = self._conn()
            if self._readonly:
                return True
            if self._depth:
                raise ProjectError("cannot checkpoint inside a transaction")
            if wait_s is None:
                busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                return busy == 0
            before = db.execute("PRAGMA busy_timeout").fetchone()[0]
            db.execute(f"PRAGMA busy_timeout = {max(0, int(wait_s * 1000))}")
            try:
                busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                db.execute(f"PRAGMA busy_timeout = {int(before)}")
            return busy == 0

    def reclaim_space(self) -> None:
        """Shrink the file by the pages freed so far (``auto_vacuum`` is incremental).

        A no-op inside a transaction or when read-only.
        """
        with self._mutex:
            if self._depth == 0 and not self._readonly:
                # sqlite3's execute() steps a statement only once, and this
                # pragma frees one page per step; executescript() runs it to
                # the end (it would commit an open transaction, hence the check).
                self._conn().executescript("PRAGMA incremental_vacuum;")

    def close(self) -> None:
        """Checkpoint, close the connection and release the write lock; idempotent."""
        with self._mutex:
            if self._db is None:
                return
            if self._depth:
                raise ProjectError("cannot close the project inside a transaction")
            try:
                if not self._readonly:
                    self.reclaim_space()
                    self._db.execute(f"PRAGMA busy_timeout = {int(CLOSE_CHECKPOINT_WAIT_S * 1000)}")
                    busy, _, _ = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                    self.saves_in_wal = busy != 0
            finally:
                self._db.close()
                self._db = None
                if self._lock_file is not None:
                    self._lock_file.release()
                    self._lock_file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
