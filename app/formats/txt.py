"""Plain-text notes: every ``*.txt`` under a folder, no annotations."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from app.core.spans import Document
from app.formats.base import (ImportedDoc, ImportProblem, WriteResult, atomic_write,
                              check_names, doc_name, iter_files)
from app.formats.errors import BadInputError
from app.formats.textio import DEFAULT_MAX_BYTES, DecodedText, read_text_file
from app.core.words import count


def encoding_meta(decoded: DecodedText) -> tuple[dict, list[str]]:
    """``meta`` entries and warnings describing how a file was decoded."""
    meta = {"source_encoding": decoded.encoding, "source_bom": decoded.had_bom}
    warnings = []
    if decoded.replaced:
        meta["replaced_bytes"] = decoded.replaced
        warnings.append(f"not valid UTF-8: {count(decoded.replaced, 'damaged byte')} replaced by "
                        "U+FFFD (the rest read as UTF-8)")
    elif not decoded.encoding.startswith("utf"):
        warnings.append(f"not UTF-8: decoded as {decoded.encoding}")
    return meta, warnings


def read_txt(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES
             ) -> Iterator[ImportedDoc | ImportProblem]:
    """Yield one document per ``*.txt`` file under ``root`` (or ``root``)."""
    root = Path(root)
    for path in iter_files(root, {".txt"}):
        try:
            decoded = read_text_file(path, max_bytes=max_bytes)
        except BadInputError as exc:
            yield ImportProblem(path, exc.reason)
            continue
        meta, warnings = encoding_meta(decoded)
        yield ImportedDoc(doc_name(root, path), decoded.text, [], path, meta, warnings)


def write_txt(docs: Iterable[Document], out_dir: Path) -> WriteResult:
    """Write ``<name>.txt`` per document: UTF-8, no BOM, line endings as in
    the text."""
    result = WriteResult()
    for doc in check_names(docs):
        result.paths.append(atomic_write(Path(out_dir) / f"{doc.name}.txt",
                                         doc.text.encode("utf-8")))
    return result
