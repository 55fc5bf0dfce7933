"""Shared pieces of the readers and writers: results, file walking, names,
atomic writes."""
from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from app.core.spans import Document, Span


@dataclass(slots=True)
class ImportedDoc:
    """A note read from disk.

    Parameters
    ----------
    name
        Path relative to the import root, without extension, ``/``-separated
        (e.g. ``"train/note1"``); unique within one import.
    text
        Decoded text, line endings as stored, byte-order mark removed.
    spans
        Annotations, offsets into ``text``, sorted.
    source_path
        The file the text came from.
    meta
        Format details worth keeping (``source_encoding``, counts of ignored
        annotation lines, ``patient_id``/``split`` from JSONL, ...).
    warnings
        Problems that did not prevent the import; never contain note text.
    """

    name: str
    text: str
    spans: list[Span]
    source_path: Path
    meta: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_document(self) -> Document:
        """The core ``Document`` (``patient_id``/``split`` taken from meta)."""
        return Document(name=self.name, text=self.text, spans=list(self.spans),
                        patient_id=self.meta.get("patient_id"),
                        split=self.meta.get("split"), meta=dict(self.meta))


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """A file (or one document/line of it) that could not be imported.

    ``reason`` is short and never contains note text.
    """

    path: Path
    reason: str


@dataclass(slots=True)
class WriteResult:
    """What a writer produced: files written and non-fatal warnings."""

    paths: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def iter_files(root: Path, suffixes: Iterable[str]) -> Iterator[Path]:
    """Files under ``root`` whose suffix is in ``suffixes``, or ``root``
    itself if it is a file (a file named explicitly is read whatever its
    extension).

    Sorted for a deterministic import order; hidden files and folders
    (``.DS_Store``, ``.git``) and macOS ``__MACOSX`` archives are skipped.
    """
    suffixes = {s.lower() for s in suffixes}
    if root.is_file():
        yield root
        return
    for path in walk_files(root):
        if path.suffix.lower() in suffixes and links_inside(path, root):
            yield path


def walk_files(root: Path) -> Iterator[Path]:
    """Every file under the folder ``root`` (links too), sorted, less the
    hidden ones and macOS ``__MACOSX`` archives (what :func:`iter_files` reads from).
    Only regular files: reading a named pipe waits for a writer for ever (a
    walkthrough's import of a folder holding one never ended)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and d != "__MACOSX")
        for fn in sorted(filenames):
            path = Path(dirpath) / fn
            if not fn.startswith(".") and path.is_file():
                yield path


def links_inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is no link, or a link to somewhere under ``root``:
    a link out of the folder a person chose is never followed (a note
    linked to ``/etc/shadow`` was imported)."""
    if not path.is_symlink():
        return True
    target = path.resolve()
    top = root.resolve()
    return target == top or top in target.parents


def printable_path(path: str | os.PathLike) -> str:
    """``path`` as text that can always be printed, logged or stored.

    A file name that is not valid UTF-8 (``nota_\\xe9.txt`` from a Latin-1
    system) reaches Python with surrogate escapes, which no UTF-8 terminal,
    JSON report or SQLite text can hold; its bad bytes are shown as ``\\xNN``.
    """
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def utf8_name(text: str) -> bool:
    """Is ``text`` (a name or path) valid Unicode that UTF-8 can hold?"""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def doc_name(root: Path, path: Path) -> str:
    """``path`` relative to ``root`` (its folder if ``root`` is a file),
    extension removed, ``/``-separated."""
    base = root.parent if root.is_file() else root
    return path.relative_to(base).with_suffix("").as_posix()


def same_text(field_text: str, covered: str) -> bool:
    """Does an annotation's stored text match the text its offsets cover?

    Tools store covered text with line breaks turned into spaces (brat) or
    whitespace normalised (XML attributes), so whitespace runs compare equal.
    """
    if field_text == covered:
        return True
    return " ".join(field_text.split()) == " ".join(covered.split())


# --- writing -----------------------------------------------------------------

_BAD_PART_RE = re.compile(r'[<>:"\\|?*\x00-\x1f]')


# Names Windows reserves in every folder, whatever the extension.
_RESERVED = frozenset(["con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                       *(f"lpt{i}" for i in range(1, 10))])


def _safe_part(part: str) -> str:
    part = _BAD_PART_RE.sub("_", part).strip().rstrip(".").strip()
    if part in ("", ".", ".."):
        return "_"
    if part.split(".", 1)[0].casefold() in _RESERVED:
        return part + "_"
    return part


class NameAllocator:
    """Document names that are valid file paths on every OS and unique
    ignoring case, given out in order.

    Each ``/``-separated part loses what Windows, macOS or Linux cannot
    store (``<>:"\\|?*``, control characters such as a newline: ``_``),
    leading/trailing spaces and trailing dots, and reserved device names
    (``CON`` -> ``CON_``); a name already given out gets ``-2``, ``-3``...
    The relative folders of a name are kept (``a/note1`` and ``b/note1`` are
    both fine).
    """

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self._taken = {name.casefold() for name in taken}

    @staticmethod
    def _base(name: str) -> str:
        parts = [_safe_part(p) for p in name.replace("\\", "/").split("/") if p.strip()]
        return "/".join(parts) or "_"

    def allocate(self, name: str) -> str:
        """A safe, unused name as close to ``name`` as possible (now taken)."""
        base = self._base(name)
        candidate, n = base, 1
        while candidate.casefold() in self._taken:
            n += 1
            candidate = f"{base}-{n}"
        self._taken.add(candidate.casefold())
        return candidate

    def __contains__(self, name: str) -> bool:
        """Whether ``name``, made safe as :meth:`allocate` would, is taken."""
        return self._base(name).casefold() in self._taken

    def release(self, name: str) -> None:
        """Give back a name :meth:`allocate` returned but that was not used."""
        self._taken.discard(name.casefold())


def check_names(docs: Iterable[Document]) -> list[Document]:
    """Materialise ``docs`` and refuse unsafe or colliding names before any
    file is written (an export either fails cleanly or writes everything).

    Names are compared case-insensitively because Windows and macOS file
    systems are.
    """
    docs = list(docs)
    seen: set[str] = set()
    for doc in docs:
        parts = doc.name.split("/")
        if (not doc.name or any(p in ("", ".", "..") or _BAD_PART_RE.search(p)
                                or p != p.strip() or p.endswith(".")
                                or p.split(".", 1)[0].casefold() in _RESERVED for p in parts)):
            raise ValueError(f"document name not usable as a file path: {doc.name!r}")
        key = doc.name.casefold()
        if key in seen:
            raise ValueError(f"two documents are named {doc.name!r} (names are case-insensitive)")
        seen.add(key)
        doc.check_spans()
    return docs


#: Prefix of a file being written inside an output folder (see atomic_write).
TEMP_PREFIX = ".deid-tmp-"


def _temp_dir(folder: Path) -> Path:
    """Where a file bound for ``folder`` is written first: the private
    writing folder when it is on the same file system (so the rename is
    atomic), else ``folder`` itself."""
    from app.core.private import writing_dir
    try:
        private = writing_dir()
        if os.stat(private).st_dev == os.stat(folder).st_dev:
            return private
    except OSError:
        pass
    return folder


def atomic_write(path: Path, data: bytes, *, sync: bool = True, beside: bool = False) -> Path:
    """Write ``data`` to ``path`` via a temporary file and ``os.replace``, so a
    crash never leaves a half-written note.

    The temporary file is made in the process's private folder under the
    user data folder (swept by the next command if this one dies) when that
    is on the same file system, else beside ``path`` as ``.deid-tmp-*``
    (removed by :func:`sweep_temp_files` when the folder is next written).
    It is removed on failure: it may hold note text.

    ``sync=False`` skips the fsync before the rename, for a caller that
    records what it wrote (a hash in a manifest fsynced once per batch) and
    redoes what a crash lost, then calls :func:`sync_folder` once a batch.

    ``beside=True`` always writes the temporary file beside ``path``: for a
    worker process of a job, whose private folder outlives a killed task,
    while the job's client sweeps the output folder when it ends.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent if beside else _temp_dir(path.parent),
                               prefix=TEMP_PREFIX, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())  # whole on disk before it takes the name
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def sync_folder(folder: Path) -> None:
    """Flush everything written to ``folder``'s file system to disk: one
    ``syncfs`` on Linux (the file system of ``folder`` only), else ``os.sync``
    where there is one."""
    import ctypes
    import ctypes.util
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        syncfs = getattr(libc, "syncfs", None)
    except OSError:
        syncfs = None
    if syncfs is not None:
        fd = os.open(folder, os.O_RDONLY)
        try:
            if syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    if hasattr(os, "sync"):
        os.sync()


def sweep_temp_files(folder: Path) -> int:
    """Remove the half-written ``.deid-tmp-*`` files a killed run left in
    ``folder`` (an output folder on another file system); returns how many."""
    removed = 0
    for p in Path(folder).rglob(f"{TEMP_PREFIX}*"):
        if p.is_file():
            p.unlink(missing_ok=True)
            removed += 1
    return removed
