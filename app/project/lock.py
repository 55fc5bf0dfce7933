"""One writer per project: an advisory OS lock on ``NAME.deid.lock``.

The lock is ``flock`` on POSIX and ``msvcrt.locking`` on Windows. The
operating system drops it when the holding process exits or is killed, so a
stale lock file left by a crash never blocks: the next opener simply takes
the lock again. The file's content (pid, host) only serves the error
message. Read-only opens take no lock.

Caveat: a child made with ``fork`` (not spawn) shares the lock until it exits.
"""
from __future__ import annotations

import errno
import json
import os
import socket
import sys
from pathlib import Path

from .errors import ProjectError, ProjectLockedError, ProjectNotWritableError

if sys.platform == "win32":
    import msvcrt

    # Lock a byte past the pid/host text: Windows locks are mandatory, and
    # locking the text would stop a second opener reading who holds it.
    _LOCK_OFFSET = 4096

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EDEADLOCK):
                return False
            raise
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def lock_path(project_path: Path) -> Path:
    return project_path.with_name(project_path.name + ".lock")


def _holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        info = json.loads(os.read(fd, 1024).decode("utf-8"))
        return f" by process {int(info['pid'])} on host {info['host']}"
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def _same_file(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def writer_gone(project_path: Path) -> bool:
    """True when no process can be writing ``project_path`` now: no lock
    file (a closing writer removes it), or one naming a process of this
    host that no longer runs (a killed writer leaves it). False when that
    cannot be told (a writer on another host, a lock file being written).

    For read-only opens, which take no lock: a run they read as
    ``running`` then belongs to a process that ended without finishing it.
    """
    import psutil
    path = lock_path(Path(project_path).resolve())
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        pid, host = int(info["pid"]), str(info["host"])
    except FileNotFoundError:
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return host == socket.gethostname() and not psutil.pid_exists(pid)


class ProjectLock:
    """An acquired write lock; :meth:`release` gives it back and removes the file."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, project_path: Path) -> "ProjectLock":
        """Take the write lock of ``project_path`` or raise ``ProjectLockedError``.

        The lock file sits beside the *resolved* path: a symlink or another
        spelling of the same project takes the same lock.
        """
        path = lock_path(Path(project_path).resolve())
        for _ in range(10):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise ProjectNotWritableError(
                    f"cannot create lock file {path.name} ({exc.strerror}); "
                    "open the project read-only instead") from None
            try:
                locked = _try_lock(fd)
            except OSError as exc:  # e.g. a network share without locks
                os.close(fd)
                raise ProjectNotWritableError(
                    f"cannot lock {project_path.name} ({exc.strerror})") from None
            if not locked:
                holder = _holder(fd)
                os.close(fd)
                raise ProjectLockedError(
                    f"project {project_path.name} is already open for writing{holder}")
            # The previous holder may have unlinked the file between our open()
            # and our lock; then we hold a lock nobody else will see: retry.
            if _same_file(fd, path):
                break
            os.close(fd)
        else:
            raise ProjectError(f"cannot take the lock file {path.name}")
        info = json.dumps({"pid": os.getpid(), "host": socket.gethostname()}).encode()
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, info)
        return cls(path, fd)

    def release(self) -> None:
        """Unlock and delete the lock file; safe to call twice."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        if sys.platform == "win32":
            _unlock(fd)
            os.close(fd)
            try:  # another process may have it open already; harmless
                self.path.unlink(missing_ok=True)
            except OSError:
                pass
        else:
            # Unlink while still locked so a waiter that opened the old file
            # notices (see _same_file) instead of sharing a dead lock.
            self.path.unlink(missing_ok=True)
            os.close(fd)
