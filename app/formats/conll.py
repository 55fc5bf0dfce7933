"""CoNLL-style token-per-line files (BIO, IOB1, BIOES/BILOU or IO tags).

Reading: the token is the first column and the tag the last; a blank line
ends a sentence and a ``-DOCSTART-`` line a document (a file without one is
one document). Whitespace is not stored in CoNLL, so the text is rebuilt:
tokens joined by one space, sentences by ``\\n``; span offsets refer to that
text.

Writing: one ``<name>.conll`` per document, ``token TAG`` per line, BIO tags
over the canonical tokenizer and sentence segmentation (what the models
train on). Lossy: whitespace and spans that do not align with tokens (see
:mod:`app.core.bio`; counts are reported as warnings).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Iterator

from app.core.bio import repair_tags, spans_to_tags
from app.core.spans import Document, Span
from app.core.tokenize import segment
from app.formats.base import (ImportedDoc, ImportProblem, WriteResult, atomic_write,
                              check_names, doc_name, iter_files)
from app.formats.errors import BadInputError
from app.formats.textio import DEFAULT_MAX_BYTES, read_text_file
from app.formats.txt import encoding_meta
from app.core.words import count

SUFFIXES = (".conll", ".bio", ".iob", ".iob2", ".bioes", ".bilou")
DOCSTART = "-DOCSTART-"
_TAG_RE = re.compile(r"O|[BIESLU]-\S+")


class _ConllError(Exception):
    pass


def decode_tags(tags: list[str]) -> list[tuple[int, int, str]]:
    """Token-index chunks ``(first, last_inclusive, label)`` from any of
    BIO, IOB1, BIOES/BILOU or IO tags.

    ``I``/``E``/``L`` continue a chunk of the same label that is still open,
    otherwise they start one (as conlleval does); ``E``/``L``/``S``/``U``
    close the chunk after their token.
    """
    chunks: list[tuple[int, int, str]] = []
    cur: list | None = None     # [first, last, label], open chunk
    for k, tag in enumerate(tags):
        if tag == "O":
            if cur:
                chunks.append(tuple(cur))
            cur = None
            continue
        prefix, label = tag[0], tag[2:]
        if prefix in "IEL" and cur and cur[2] == label:
            cur[1] = k
        else:
            if cur:
                chunks.append(tuple(cur))
            cur = [k, k, label]
        if prefix in "ESLU":
            chunks.append(tuple(cur))
            cur = None
    if cur:
        chunks.append(tuple(cur))
    return chunks


def _build(sentences: list[list[tuple[str, str]]]) -> tuple[str, list[Span]]:
    parts: list[str] = []
    spans: list[Span] = []
    pos = 0
    for si, sent in enumerate(sentences):
        if si:
            parts.append("\n")
            pos += 1
        starts, ends = [], []
        for ti, (token, _) in enumerate(sent):
            if ti:
                parts.append(" ")
                pos += 1
            starts.append(pos)
            parts.append(token)
            pos += len(token)
            ends.append(pos)
        for first, last, label in decode_tags([tag for _, tag in sent]):
            spans.append(Span(starts[first], ends[last], label))
    return "".join(parts), spans


def _split_documents(text: str) -> Iterator[tuple[int, list[tuple[int, str]]]]:
    """``(first_line_no, [(line_no, line), ...])`` per document."""
    doc: list[tuple[int, str]] = []
    first = 1
    for line_no, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if line.split(maxsplit=1)[:1] == [DOCSTART]:
            if any(ln.strip() for _, ln in doc):
                yield first, doc
            doc, first = [], line_no + 1
        else:
            doc.append((line_no, line))
    if any(ln.strip() for _, ln in doc):
        yield first, doc


def _parse_document(lines: list[tuple[int, str]]) -> list[list[tuple[str, str]]]:
    sentences: list[list[tuple[str, str]]] = []
    sent: list[tuple[str, str]] = []
    for line_no, line in lines:
        cols = line.split()
        if not cols:
            if sent:
                sentences.append(sent)
            sent = []
            continue
        if len(cols) < 2:
            raise _ConllError(f"line {line_no}: expected a token and a tag")
        if not _TAG_RE.fullmatch(cols[-1]):
            raise _ConllError(f"line {line_no}: tag is not O or B-/I-/E-/S-/L-/U-LABEL")
        sent.append((cols[0], cols[-1]))
    if sent:
        sentences.append(sent)
    return sentences


def looks_like_conll(head: str) -> bool:
    """Do the complete lines of ``head`` (a file's start) all end in a tag?"""
    rows = [ln.split() for ln in head.split("\n")[:-1] if ln.strip()]
    rows = [cols for cols in rows if cols[0] != DOCSTART]
    return bool(rows) and all(len(c) >= 2 and _TAG_RE.fullmatch(c[-1]) for c in rows)


def read_conll(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES
               ) -> Iterator[ImportedDoc | ImportProblem]:
    """Yield the documents of every CoNLL file under ``root`` (or ``root``).

    A file holding several ``-DOCSTART-`` documents gives names
    ``<file>/0001``, ``<file>/0002``...; a bad line skips only its document.
    """
    root = Path(root)
    for path in iter_files(root, SUFFIXES):
        try:
            decoded = read_text_file(path, max_bytes=max_bytes)
        except BadInputError as exc:
            yield ImportProblem(path, exc.reason)
            continue
        meta, warnings = encoding_meta(decoded)
        name = doc_name(root, path)
        docs = list(_split_documents(decoded.text))
        for index, (first_line, lines) in enumerate(docs, 1):
            try:
                sentences = _parse_document(lines)
            except _ConllError as exc:
                where = f"document {index}, " if len(docs) > 1 else ""
                yield ImportProblem(path, where + str(exc))
                continue
            text, spans = _build(sentences)
            doc_meta = dict(meta, conll_first_line=first_line)
            yield ImportedDoc(name if len(docs) == 1 else f"{name}/{index:04d}", text,
                              spans, path, doc_meta, list(warnings))


def write_conll(docs: Iterable[Document], out_dir: Path, *,
                split_sentences: bool = True) -> WriteResult:
    """Write ``<name>.conll`` per document (UTF-8, LF), a blank line between
    segments (sentences, or lines with ``split_sentences=False``)."""
    result = WriteResult()
    for doc in check_names(docs):
        segments = segment(doc.text, split_sentences=split_sentences)
        tokens = [t for seg in segments for t in seg.tokens]
        # Tagged over the whole text so a span is judged once, even if it
        # crosses a segment boundary.
        tags, report = spans_to_tags(tokens, doc.spans)
        misaligned = len(report.misaligned) + len(report.conflicting)
        lost = len(report.lost)
        out: list[str] = []
        k = 0
        for seg in segments:
            seg_tags = repair_tags(tags[k:k + len(seg.tokens)])
            out.extend(f"{doc.text[t.start:t.end]} {tag}\n"
                       for t, tag in zip(seg.tokens, seg_tags))
            out.append("\n")
            k += len(seg.tokens)
        if misaligned or lost:
            result.warnings.append(
                f"{doc.name}: {count(misaligned, 'span')} not aligned with tokens widened "
                f"or cut, {count(lost, 'span')} covering no token dropped")
        result.paths.append(atomic_write(Path(out_dir) / f"{doc.name}.conll",
                                         "".join(out).encode("utf-8")))
    return result
