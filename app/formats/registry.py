"""One entry point per direction: format detection, ``read_path`` and
``write_documents``."""
from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Callable, Iterable, Iterator

from app.core.spans import Document
from app.formats import brat, conll, i2b2, jsonl, txt
from app.formats.base import (ImportedDoc, ImportProblem, WriteResult, links_inside,
                              walk_files)
from app.formats.errors import BadInputError
from app.formats.textio import DEFAULT_MAX_BYTES

FORMATS = ("txt", "brat", "conll", "jsonl", "i2b2")

READERS: dict[str, Callable[..., Iterator[ImportedDoc | ImportProblem]]] = {
    "txt": txt.read_txt,
    "brat": brat.read_brat,
    "conll": conll.read_conll,
    "jsonl": jsonl.read_jsonl,
    "i2b2": i2b2.read_i2b2,
}
WRITERS: dict[str, Callable[..., WriteResult]] = {
    "txt": txt.write_txt,
    "brat": brat.write_brat,
    "conll": conll.write_conll,
    "jsonl": jsonl.write_jsonl,
    "i2b2": i2b2.write_i2b2,
}

_BY_SUFFIX = {".ann": "brat", ".xml": "i2b2", ".jsonl": "jsonl", ".ndjson": "jsonl",
              ".json": "jsonl", ".txt": "txt", **{s: "conll" for s in conll.SUFFIXES}}
# When a folder mixes kinds, the richer format wins (.ann files make the
# .txt files brat documents).
_PRIORITY = ("brat", "i2b2", "conll", "jsonl", "txt")


def _peek(path: Path, n: int = 4096) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(n).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _file_format(path: Path) -> str | None:
    kind = _BY_SUFFIX.get(path.suffix.lower())
    if kind == "txt" and path.with_suffix(".ann").is_file():
        return "brat"
    if kind == "i2b2" and "<TEXT" not in _peek(path, 1 << 20):
        return None
    if kind:
        return kind
    head = _peek(path).lstrip("\ufeff \t\r\n")
    if head.startswith("{"):
        return "jsonl"
    if conll.looks_like_conll(head):
        return "conll"
    return None


def detect_format(path: str | os.PathLike) -> str:
    """Guess the format of a file or folder, one of :data:`FORMATS`.

    By extension, with a peek at the content where extensions are ambiguous
    (an ``.xml`` must hold a ``<TEXT>`` element; an unknown extension is
    JSON Lines if it starts with ``{`` and CoNLL if its lines end in tags).

    Raises
    ------
    BadInputError
        The path does not exist or holds nothing importable.
    """
    path = Path(path)
    if path.is_file():
        kind = _file_format(path)
        if kind is None:
            raise BadInputError("unrecognised file format")
        return kind
    if not path.is_dir():
        raise BadInputError("path not found")
    found: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__MACOSX"]
        for fn in filenames:
            kind = _BY_SUFFIX.get(Path(fn).suffix.lower())
            if kind == "i2b2" and "i2b2" not in found:
                kind = _file_format(Path(dirpath) / fn)
            if kind and not fn.startswith("."):
                found.add(kind)
        if "brat" in found:
            break
    for kind in _PRIORITY:
        if kind in found:
            return kind
    raise BadInputError("no files of a supported format found")


def read_path(path: str | os.PathLike, fmt: str = "auto", *,
              max_bytes: int = DEFAULT_MAX_BYTES, **options
              ) -> Iterator[ImportedDoc | ImportProblem]:
    """Read every document under ``path`` (a file or folder).

    Parameters
    ----------
    fmt
        ``"auto"`` (see :func:`detect_format`) or one of :data:`FORMATS`.
    max_bytes
        Largest file (JSON Lines: largest record) accepted.
    **options
        Format options, e.g. ``label_from="tag"`` for i2b2.

    Yields
    ------
    ImportedDoc or ImportProblem
        One bad file never stops the import; it is yielded as a problem.
    """
    if fmt == "auto":
        fmt = detect_format(path)
    if fmt not in READERS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    root = Path(path)
    if not root.exists():
        raise BadInputError("path not found")
    docs = READERS[fmt](root, max_bytes=max_bytes, **options)
    if not root.is_dir():
        return docs
    return itertools.chain(docs, unread_files(root, fmt))


#: The suffixes each reader reads in a folder.
READ_SUFFIXES = {"txt": (".txt",), "brat": (".txt", ".ann"), "conll": conll.SUFFIXES,
                 "jsonl": jsonl.SUFFIXES, "i2b2": (".xml",)}


def unread_files(root: Path, fmt: str) -> Iterator[ImportProblem]:
    """A problem for every file under the folder ``root`` that reading it as
    ``fmt`` leaves out, with why: another format's file beside (a folder of
    notes and one ``.xml`` imported only the XML, saying "0 files skipped"),
    a file of no note format (``.md``, no extension), a link out of the folder."""
    suffixes = {s.lower() for s in READ_SUFFIXES[fmt]}
    for path in hidden_notes(root, suffixes):
        yield ImportProblem(path, "a hidden file (its name starts with a dot): rename it "
                                  "without the dot to import it")
    for path in walk_files(root):
        suffix = path.suffix.lower()
        if suffix in suffixes:
            if not links_inside(path, root):
                yield ImportProblem(path, "a link to a file outside the folder: not followed")
            continue
        kind = _BY_SUFFIX.get(suffix)
        if kind is not None and kind != fmt:
            yield ImportProblem(path, f"a {kind} file, and the folder was read as {fmt}: "
                                      f"import it on its own (--format {kind})")
        elif suffix in TABLE_SUFFIXES:
            # A table beside notes is most often the patients' or a list
            # (the bundled sample's patients.tsv): renaming it would make it a note.
            yield ImportProblem(path, f"a table ({suffix}), not a note: left out. A note's "
                                      f"patient comes from its file name (the patient-id "
                                      f"pattern); a table of names goes in with File > "
                                      f"Hospital lists")
        else:
            yield ImportProblem(path, f"not a note format ({suffix or 'no extension'}): "
                                      f"rename it to .txt to import it as a plain note")


#: Files of tables, never notes (`unread_files` says so rather than
#: offering to import them renamed).
TABLE_SUFFIXES = frozenset({".csv", ".tsv"})


def hidden_notes(root: Path, suffixes: set[str]) -> Iterator[Path]:
    """Hidden files of a note format (``.p1.txt``) in the folders
    :func:`walk_files` reads: skipped like ``.DS_Store``, but unlike it
    said (an import said "0 files skipped" and left such a note out)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__MACOSX")
        for fn in sorted(filenames):
            if fn.startswith(".") and Path(fn).suffix.lower() in suffixes:
                yield Path(dirpath) / fn


#: What each writer makes for a document named ``name``: ``name`` + these
#: suffixes (the JSON Lines writer makes one file for all: ``written_paths``).
SUFFIXES_WRITTEN = {"txt": (".txt",), "brat": (".txt", ".ann"), "conll": (".conll",),
                    "i2b2": (".xml",)}


def written_paths(fmt: str, names: Iterable[str]) -> list[str]:
    """The relative paths :func:`write_documents` writes in ``fmt`` for
    documents of these (safe, allocated) ``names``: checked before an export
    that must not replace what it did not write (``app.formats.written``)."""
    if fmt == "jsonl":
        return [jsonl.JSONL_FILENAME]
    return [name + suffix for name in names for suffix in SUFFIXES_WRITTEN[fmt]]


def write_documents(docs: Iterable[Document], out_dir: str | os.PathLike, fmt: str,
                    **options) -> WriteResult:
    """Write ``docs`` under ``out_dir`` in ``fmt`` (one of :data:`FORMATS`).

    Text is written as UTF-8 without a byte-order mark, line endings exactly
    as in ``Document.text``. Names with ``/`` create subfolders. Every file
    is written atomically; names are checked (safe, unique ignoring case)
    before anything is written.
    """
    if fmt not in WRITERS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    return WRITERS[fmt](docs, Path(out_dir), **options)
