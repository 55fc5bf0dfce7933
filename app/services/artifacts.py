"""Private temporary folders for model files.

Trained weights can memorise training words (spaCy's string store holds
every token it saw), so extracted or freshly trained models live in a
private temporary directory that is always removed: no copy may be left
behind in temp folders.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path


class PrivateDir:
    """A temporary directory (mode 0700) that is removed on close."""

    def __init__(self, prefix: str = "deid-") -> None:
        self.path = Path(tempfile.mkdtemp(prefix=prefix))

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()
