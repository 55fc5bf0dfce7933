"""Model directories <-> project artifacts (tar streams stored as chunked blobs).

Extracted models live in a private temporary directory that is removed on
close: trained weights can memorise training words (spaCy's string store
holds every token it saw), so no copy may be left behind in temp folders.
"""
from __future__ import annotations

import shutil
import tarfile
import tempfile
from pathlib import Path


def pack_dir(directory: Path, tar_path: Path) -> Path:
    """Tar (uncompressed: weights do not compress well) a model directory."""
    with tarfile.open(tar_path, mode="w") as tar:
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                tar.add(path, arcname=str(path.relative_to(directory)))
    return tar_path


def unpack_to(data_path: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(data_path, mode="r") as tar:
        tar.extractall(dest, filter="data")


class PrivateDir:
    """A temporary directory that is always removed (context manager)."""

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
