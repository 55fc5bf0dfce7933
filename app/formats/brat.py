"""brat standoff: ``note.txt`` + ``note.ann`` pairs.

Only text-bound annotations (``T`` lines) become spans. Attributes,
relations, events, notes and normalisations (``A R E M N # *`` lines) are
counted in ``meta["brat_ignored"]``. Offsets are mapped onto the stored text
when the ``.ann`` counted a byte-order mark or CRLF differently (see
:mod:`app.formats.offsets`); the basis used is ``meta["offset_basis"]``.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

from app.core.spans import Document, Span, sort_spans
from app.formats.base import (ImportedDoc, ImportProblem, WriteResult, atomic_write,
                              check_names, doc_name, iter_files, same_text)
from app.formats.errors import BadInputError
from app.formats.offsets import choose_map
from app.formats.textio import DEFAULT_MAX_BYTES, read_text_file
from app.formats.txt import encoding_meta

_IGNORED_KINDS = frozenset("AREMN#*")
_FRAGMENT_RE = re.compile(r"([0-9]+) ([0-9]+)")


class _AnnError(Exception):
    """A malformed ``.ann`` line (message carries the line number only)."""


class _TLine(NamedTuple):
    line_no: int
    label: str
    fragments: list[tuple[int, int]]
    stored: str | None          # the covered text the .ann stores, if any


def _parse_ann(ann_text: str) -> tuple[list[_TLine], Counter]:
    t_lines: list[_TLine] = []
    ignored: Counter = Counter()
    for line_no, line in enumerate(ann_text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        kind = line[0]
        if kind in _IGNORED_KINDS:
            ignored[kind] += 1
            continue
        if kind != "T":
            raise _AnnError(f".ann line {line_no}: unknown annotation type")
        fields = line.split("\t", 2)
        if len(fields) < 2 or " " not in fields[1]:
            raise _AnnError(f".ann line {line_no}: expected 'Tn<TAB>LABEL START END<TAB>text'")
        label, _, offsets = fields[1].partition(" ")
        fragments = []
        for frag in offsets.split(";"):
            m = _FRAGMENT_RE.fullmatch(frag.strip())
            if not m or not label:
                raise _AnnError(f".ann line {line_no}: bad label or offsets")
            start, end = int(m.group(1)), int(m.group(2))
            if start > end:
                raise _AnnError(f".ann line {line_no}: start after end")
            fragments.append((start, end))
        t_lines.append(_TLine(line_no, label, fragments,
                              fields[2] if len(fields) == 3 else None))
    return t_lines, ignored


def _read_pair(root: Path, txt_path: Path, ann_path: Path | None,
               max_bytes: int) -> ImportedDoc | ImportProblem:
    try:
        decoded = read_text_file(txt_path, max_bytes=max_bytes)
    except BadInputError as exc:
        return ImportProblem(txt_path, exc.reason)
    text = decoded.text
    meta, warnings = encoding_meta(decoded)
    name = doc_name(root, txt_path)
    if ann_path is None:
        return ImportedDoc(name, text, [], txt_path, meta, warnings)
    try:
        ann = read_text_file(ann_path, max_bytes=max_bytes, allow_empty=True)
        t_lines, ignored = _parse_ann(ann.text)
    except BadInputError as exc:
        return ImportProblem(ann_path, exc.reason)
    except _AnnError as exc:
        return ImportProblem(ann_path, str(exc))

    # brat stores a discontinuous annotation's text as its fragments joined
    # by a space; only continuous ones take part in choosing the basis.
    basis, mapping = choose_map(text, decoded.had_bom, [
        (t.fragments[0][0], t.fragments[0][1], t.stored)
        for t in t_lines if len(t.fragments) == 1])
    if basis != "as-stored":
        meta["offset_basis"] = basis
    if ignored:
        meta["brat_ignored"] = dict(sorted(ignored.items()))
    # An .ann file (even an empty one) means a person annotated the note.
    meta["annotated"] = True

    spans: list[Span] = []
    for t in t_lines:
        mapped = [mapping(s, e) for s, e in t.fragments]
        if any(e > len(text) for _, e in mapped):
            return ImportProblem(ann_path, f".ann line {t.line_no}: offsets beyond end of text")
        if t.stored is not None and not same_text(
                t.stored, " ".join(text[s:e] for s, e in mapped)):
            warnings.append(f".ann line {t.line_no}: stored text does not match the "
                            "text at its offsets (offsets kept)")
        if len(mapped) > 1:
            warnings.append(f".ann line {t.line_no}: discontinuous annotation imported "
                            f"as {len(mapped)} separate spans")
        for s, e in mapped:
            if s == e:
                warnings.append(f".ann line {t.line_no}: empty fragment skipped")
            else:
                spans.append(Span(s, e, t.label))
    return ImportedDoc(name, text, sort_spans(spans), txt_path, meta, warnings)


def read_brat(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES
              ) -> Iterator[ImportedDoc | ImportProblem]:
    """Yield one document per ``.txt`` under ``root`` (with its ``.ann`` if any).

    ``root`` may also be a single ``.txt`` or ``.ann`` file. An ``.ann``
    without its ``.txt`` is reported; a ``.txt`` without ``.ann`` imports
    with no spans. A malformed ``.ann`` skips that one document.
    """
    root = Path(root)
    if root.is_file():
        base = root.with_suffix("")
        txt, ann = base.with_suffix(".txt"), base.with_suffix(".ann")
        if not txt.is_file():
            yield ImportProblem(root, "annotation file without matching .txt")
            return
        yield _read_pair(root.with_suffix(".txt"), txt, ann if ann.is_file() else None,
                         max_bytes)
        return
    files = list(iter_files(root, {".txt", ".ann"}))
    # Keyed by path without suffix, so "A.TXT" pairs with "A.ann".
    anns = {p.with_suffix(""): p for p in files if p.suffix.lower() == ".ann"}
    txts = {p.with_suffix("") for p in files if p.suffix.lower() == ".txt"}
    for path in files:
        if path.suffix.lower() == ".ann":
            if path.with_suffix("") not in txts:
                yield ImportProblem(path, "annotation file without matching .txt")
            continue
        yield _read_pair(root, path, anns.get(path.with_suffix("")), max_bytes)


def _ann_text(covered: str) -> str:
    # brat's convention: line breaks in the stored text become spaces (one
    # per character, so the field keeps the span's length).
    return covered.replace("\r", " ").replace("\n", " ")


def _brat_label(label: str, name: str, warnings: list[str]) -> str:
    if not label or any(c.isspace() for c in label):
        safe = "_".join(label.split()) or "_"
        msg = f"{name}: label {label!r} written as {safe!r} (brat labels cannot hold spaces)"
        if msg not in warnings:
            warnings.append(msg)
        return safe
    return label


def write_brat(docs: Iterable[Document], out_dir: Path) -> WriteResult:
    """Write ``<name>.txt`` (UTF-8, line endings as in the text) and
    ``<name>.ann`` (spans sorted, ``T1..Tn``, LF line endings).

    A note imported from brat with a byte-order mark that its offsets
    counted (``meta["offset_basis"] == "bom-counted"``, as in MEDDOCAN) is
    written back the same way, so the round trip is byte-exact.
    """
    result = WriteResult()
    for doc in check_names(docs):
        base = Path(out_dir) / doc.name
        bom = doc.meta.get("offset_basis") == "bom-counted"
        shift = 1 if bom else 0
        lines = []
        for i, s in enumerate(sort_spans(doc.spans), 1):
            label = _brat_label(s.label, doc.name, result.warnings)
            lines.append(f"T{i}\t{label} {s.start + shift} {s.end + shift}\t"
                         f"{_ann_text(doc.text[s.start:s.end])}\n")
        result.paths.append(atomic_write(base.with_name(base.name + ".txt"),
                                         ("\ufeff" if bom else "").encode("utf-8")
                                         + doc.text.encode("utf-8")))
        result.paths.append(atomic_write(base.with_name(base.name + ".ann"),
                                         "".join(lines).encode("utf-8")))
    return result
