"""JSON Lines: one note per line.

Accepted object shapes (spaCy / Prodigy / doccano)::

    {"text": "...", "spans": [{"start": 0, "end": 5, "label": "PERSON"}],
     "meta": {...}, "name" | "id": "...", "patient_id": ..., "split": ...}

``entities`` (spaCy training data) and ``label`` (doccano) may hold the
spans instead, as objects or ``[start, end, label]`` lists; other span keys
(Prodigy's ``token_start``...) are ignored. A top-level JSON array in a
``.json`` file is read the same way. A bad line is reported and skipped;
the rest of the file imports.
"""
from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from app.core.spans import Document, Span, sort_spans
from app.formats.base import (ImportedDoc, ImportProblem, WriteResult, atomic_write,
                              check_names, doc_name, iter_files, same_text)
from app.formats.textio import DEFAULT_MAX_BYTES

SUFFIXES = (".jsonl", ".ndjson", ".json")
#: File written by :func:`write_jsonl`.
JSONL_FILENAME = "documents.jsonl"


class _RecordError(Exception):
    pass


def _span(raw: Any, text: str, warnings: list[str], where: str) -> Span:
    if isinstance(raw, dict):
        start, end, label = raw.get("start"), raw.get("end"), raw.get("label")
        stored = raw.get("text")
    elif isinstance(raw, (list, tuple)) and len(raw) >= 3:
        (start, end, label), stored = raw[:3], None
    else:
        raise _RecordError(f"{where}: span is not an object or [start, end, label]")
    if (not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool)
            or isinstance(end, bool) or not isinstance(label, str) or not label):
        raise _RecordError(f"{where}: span needs integer start/end and a label")
    if not 0 <= start < end <= len(text):
        raise _RecordError(f"{where}: span offsets outside the text or empty")
    if isinstance(stored, str) and not same_text(stored, text[start:end]):
        warnings.append(f"{where}: span text does not match the text at its offsets")
    return Span(start, end, label)


def _record(obj: Any, fallback_name: str, where: str) -> tuple[str, str, list[Span], dict, list[str]]:
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        raise _RecordError(f"{where}: not an object with a \"text\" string")
    text = obj["text"]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _RecordError(f"{where}: text holds invalid Unicode (lone surrogate)") from None
    warnings: list[str] = []
    raw_spans = next((obj[k] for k in ("spans", "entities", "label")
                      if isinstance(obj.get(k), list)), [])
    spans = [_span(r, text, warnings, where) for r in raw_spans]
    meta = dict(obj["meta"]) if isinstance(obj.get("meta"), dict) else {}
    for key in ("patient_id", "split"):
        if obj.get(key) is not None:
            meta[key] = obj[key]
    name = next((obj[k] for k in ("name", "id") if obj.get(k) not in (None, "")), None)
    return (str(name) if name is not None else fallback_name), text, sort_spans(spans), meta, warnings


def _parse_whole(fh, path: Path, max_bytes: int) -> list | None:
    if path.stat().st_size > max_bytes:
        return None
    try:
        data = json.loads(fh.read().decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, list) else [data]


def _records(path: Path, max_bytes: int) -> Iterator[tuple[int, Any] | ImportProblem]:
    """``(line_no, parsed_object)`` per line, or a problem per bad line."""
    with open(path, "rb") as fh:
        head = fh.read(64).lstrip()
        fh.seek(0)
        if head.startswith(codecs.BOM_UTF8):
            head = head[3:].lstrip()
        if path.suffix.lower() == ".json" and head[:1] in (b"[", b"{"):
            # A .json file may be a whole array or object, or JSON Lines.
            whole = _parse_whole(fh, path, max_bytes)
            if whole is not None:
                yield from enumerate(whole, 1)
                return
            fh.seek(0)
        for line_no, raw in enumerate(fh, 1):
            if line_no == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[3:]
            if not raw.strip():
                continue
            if len(raw) > max_bytes:
                yield ImportProblem(path, f"line {line_no}: record too large")
                continue
            try:
                yield line_no, json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError:
                yield ImportProblem(path, f"line {line_no}: not valid UTF-8")
            except json.JSONDecodeError as exc:
                # Its message quotes no input, only positions.
                yield ImportProblem(path, f"line {line_no}: bad JSON ({exc.msg})")
            except ValueError:
                # int() refusing a number of thousands of digits: its message
                # would quote them.
                yield ImportProblem(path, f"line {line_no}: a number too long to read")
            except RecursionError:
                yield ImportProblem(path, f"line {line_no}: JSON nested too deeply")


def read_jsonl(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES
               ) -> Iterator[ImportedDoc | ImportProblem]:
    """Yield one document per JSON line of every JSONL file under ``root``.

    A record without ``name``/``id`` is named ``<file>/<line number>``.
    """
    root = Path(root)
    for path in iter_files(root, SUFFIXES):
        base = doc_name(root, path)
        seen_any = False
        try:
            for item in _records(path, max_bytes):
                seen_any = True
                if isinstance(item, ImportProblem):
                    yield item
                    continue
                line_no, obj = item
                where = f"line {line_no}" if path.suffix.lower() != ".json" else f"item {line_no}"
                try:
                    name, text, spans, meta, warnings = _record(obj, f"{base}/{line_no:06d}", where)
                except _RecordError as exc:
                    yield ImportProblem(path, str(exc))
                    continue
                if not text.strip():
                    yield ImportProblem(path, f"{where}: empty text")
                    continue
                yield ImportedDoc(name, text, spans, path, meta, warnings)
        except OSError as exc:
            yield ImportProblem(path, f"cannot read file ({exc.strerror or type(exc).__name__})")
            continue
        if not seen_any:
            yield ImportProblem(path, "empty file")


def write_jsonl(docs: Iterable[Document], out_dir: Path, *,
                filename: str = JSONL_FILENAME) -> WriteResult:
    """Write every document as one line of ``out_dir/filename`` (UTF-8)::

        {"name", "text", "spans": [{"start", "end", "label", "origin"?}], "meta",
         "patient_id"?, "split"?}

    A span's ``origin`` is what made it (`Span.origin`: a model, a rule by
    its step and name, the hospital lists), where known: a prediction's.
    Line breaks inside the text are JSON-escaped, so they survive exactly.
    """
    lines = []
    for doc in check_names(docs):
        obj: dict[str, Any] = {
            "name": doc.name, "text": doc.text,
            "spans": [{"start": s.start, "end": s.end, "label": s.label}
                      | ({"origin": s.origin} if s.origin else {})
                      for s in sort_spans(doc.spans)],
            "meta": doc.meta}
        for key in ("patient_id", "split"):
            if getattr(doc, key) is not None:
                obj[key] = getattr(doc, key)
        lines.append(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
    path = atomic_write(Path(out_dir) / filename, "".join(lines).encode("utf-8"))
    return WriteResult(paths=[path])
