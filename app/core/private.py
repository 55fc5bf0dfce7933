"""Private temporary folders for anything that may hold identifiers.

Trained weights can memorise training words (spaCy's string store holds
every token it saw), Stanza and Flair train from text files, and a file
being written (an export, an annotated note) holds note text until it is
renamed into place. All of these live in private folders (mode 0700) under
the user data folder (:func:`private_root`), never in the shared system
temp folder and never inside an output folder, and are removed on close.

A process can still die without cleaning up (killed, power cut). Each
folder therefore names its owner (process id and start time) in an
``.owner`` file, and every ``deid`` command starts by removing every
``deid-*`` folder whose owner is gone (:func:`sweep_stale`), as does
creating a new folder: what a crash left behind lives only until the next
command.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import psutil

from app.paths import user_data_dir

_OWNER = ".owner"
_PREFIX = "deid-"


def private_root() -> Path:
    """``<user data>/tmp``, readable by this user only (made on demand)."""
    root = user_data_dir() / "tmp"
    root.mkdir(mode=0o700, exist_ok=True)
    return root


def _owner_tag(pid: int) -> str | None:
    """``"pid start-time"`` of a running process, or None when there is none."""
    try:
        return f"{pid} {psutil.Process(pid).create_time():.3f}"
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return None


def sweep_stale(root: Path | None = None) -> list[Path]:
    """Remove the private folders under ``root`` (default :func:`private_root`)
    whose owner process no longer runs; return the removed paths.

    Folders without an ``.owner`` file are left alone: they may belong to
    another program that happens to use the prefix.
    """
    root = Path(root) if root is not None else private_root()
    removed = []
    try:
        candidates = [p for p in root.iterdir() if p.name.startswith(_PREFIX) and p.is_dir()]
    except OSError:
        return removed
    for folder in candidates:
        try:
            tag = (folder / _OWNER).read_text(encoding="ascii").strip()
            pid = int(tag.split()[0])
        except (OSError, ValueError, IndexError):
            continue
        if _owner_tag(pid) == tag:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


class PrivateDir:
    """A temporary directory (mode 0700) that is removed on close."""

    def __init__(self, prefix: str = _PREFIX) -> None:
        assert prefix.startswith(_PREFIX), prefix
        root = private_root()
        sweep_stale(root)
        self.path = Path(tempfile.mkdtemp(prefix=prefix, dir=root))
        tag = _owner_tag(os.getpid())
        if tag:
            (self.path / _OWNER).write_text(tag, encoding="ascii")

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


_writing: PrivateDir | None = None


def writing_dir() -> Path:
    """This process's private folder for files being written (see
    :func:`app.formats.base.atomic_write`); made once, removed at exit."""
    global _writing
    if _writing is None or not _writing.path.is_dir():
        _writing = PrivateDir("deid-write-")
    return _writing.path
