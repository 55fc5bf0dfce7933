"""Opening, identifying, verifying and copying project files with sqlite3."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .errors import ProjectError
from .schema import APPLICATION_ID


def connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    """Open an existing file without ever creating one.

    ``readonly``: ``PRAGMA query_only``, so nothing can be written through it.
    Autocommit mode (``isolation_level=None``): the store issues BEGIN/COMMIT
    itself. ``check_same_thread=False``: the GUI and worker threads share one
    connection and the store serialises access with an RLock.
    """
    # A read-only open of a file we could write is a normal connection that
    # never writes (query_only): as the last one to close it lets SQLite
    # remove the -wal/-shm files, which a mode=ro connection leaves behind.
    ro = readonly and not os.access(path, os.W_OK)
    mode = "rw"
    if ro:
        # A file we cannot write: a mode=ro connection would create -wal and
        # -shm files (as read-only as the file) that it cannot remove, and
        # that later stop whoever may write the project. With no -wal
        # beside it no one has the file open, and nothing of ours may write
        # it: read it as immutable, which creates nothing. Else the -wal and
        # -shm of the process writing it are there already: share them.
        mode = "ro" if os.path.exists(f"{path}-wal") else "ro&immutable=1"
    uri = f"{path.resolve().as_uri()}?mode={mode}"
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None,
                             check_same_thread=False, timeout=10.0)
    except sqlite3.Error as exc:
        raise ProjectError(f"cannot open project {path.name}: {exc}") from None
    db.execute("PRAGMA foreign_keys = ON")
    if readonly:
        db.execute("PRAGMA query_only = ON")
    return db


def check_identity(db: sqlite3.Connection, path: Path) -> int:
    """Return ``user_version`` if ``db`` is a DeID Studio project, else raise.

    Runs before anything is written, so a foreign file is left untouched.
    """
    try:
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError:
        if _sqlite_header(path):
            raise ProjectError(
                f"{path.name} is damaged (an SQLite file cut short or overwritten); nothing was "
                "changed. Restore it from your last copy") from None
        raise ProjectError(
            f"{path.name} is not a DeID Studio project (not an SQLite database)") from None
    if app_id != APPLICATION_ID:
        # SQLite reads an empty file as an empty database.
        empty = path.is_file() and path.stat().st_size == 0
        raise ProjectError(
            f"{path.name} is an empty file, not a DeID Studio project (a project that was "
            f"never saved, or a copy cut short: restore it from your last copy)" if empty else
            f"{path.name} is an SQLite database but not a DeID Studio project")
    return version


def _sqlite_header(path: Path) -> bool:
    """Whether the file starts as every SQLite database does (a truncated
    project still does: it is damaged, not something else)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


#: Files up to this size are checked on every open (``quick_check`` reads
#: every page once: well under a second); larger ones once a day.
QUICK_CHECK_ALWAYS_BYTES = 256 * 1024 * 1024


def quick_check(db: sqlite3.Connection, path: Path) -> None:
    """Raise ``ProjectError`` if SQLite finds the file damaged.

    ``PRAGMA quick_check`` is O(pages) without the index cross-checks of
    ``integrity_check``. A damaged page in the middle of a project would
    otherwise show only when some later command happens to read it.
    """
    try:
        rows = db.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.DatabaseError as exc:
        rows = [(str(exc),)]
    if [r[0] for r in rows] != ["ok"]:
        raise ProjectError(
            f"{path.name} is damaged (SQLite's integrity check failed); nothing was changed. "
            "Restore it from your last copy; to save what is readable, run "
            f"`sqlite3 {path.name} .recover | sqlite3 recovered.deid` and open that")


def verify_file(path: Path, expect_version: int) -> None:
    """Open a copy read-only and check it is a sound project of that version."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        version = check_identity(db, path)
        ok = db.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise ProjectError(f"copy {path.name} failed verification: {exc}") from None
    finally:
        db.close()
    if ok != "ok" or version != expect_version:
        raise ProjectError(f"copy {path.name} failed verification")


def backup_to(db: sqlite3.Connection, dest: Path, *, expect_version: int,
              overwrite: bool) -> Path:
    """Copy ``db`` to ``dest`` with SQLite's online backup API, verified.

    The copy is written to a temporary file beside ``dest``, switched to
    rollback-journal mode (so it is one self-contained file), re-opened and
    checked, and only then renamed into place (Zotero's pattern).
    """
    dest = Path(dest)
    if dest.exists() and not overwrite:
        raise ProjectError(f"{dest.name} already exists; refusing to overwrite it")
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    try:
        out = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.backup(out)
            out.execute("PRAGMA journal_mode = DELETE")
        finally:
            out.close()
        verify_file(tmp, expect_version)
        os.replace(tmp, dest)
    except sqlite3.Error as exc:
        raise ProjectError(f"backup to {dest.name} failed: {exc}") from None
    except OSError as exc:
        raise ProjectError(f"backup to {dest.name} failed: {exc.strerror}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return dest
