"""Private temporary folders for model files.

Trained weights can memorise training words (spaCy's string store holds
every token it saw), so extracted or freshly trained models live in a
private temporary directory that is always removed: no copy may be left
behind in temp folders.

A process can still die without cleaning up (killed, power cut). Each
folder therefore names its owner (process id and start time) in an
``.owner`` file, and creating a new folder first removes every ``deid-*``
folder whose owner is gone: what a crash left behind lives only until the
next training, prediction or export.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import psutil

_OWNER = ".owner"
_PREFIX = "deid-"


def _owner_tag(pid: int) -> str | None:
    """``"pid start-time"`` of a running process, or None when there is none."""
    try:
        return f"{pid} {psutil.Process(pid).create_time():.3f}"
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return None


def sweep_stale(root: Path | None = None) -> list[Path]:
    """Remove the private folders under ``root`` (the temp folder) whose
    owner process no longer runs; return the removed paths.

    Folders without an ``.owner`` file are left alone: they may belong to
    another program that happens to use the prefix.
    """
    root = Path(root or tempfile.gettempdir())
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
        sweep_stale()
        self.path = Path(tempfile.mkdtemp(prefix=prefix))
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
