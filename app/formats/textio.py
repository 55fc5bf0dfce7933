"""Decoding note files to text with offsets that stay true.

A file is read in binary and decoded once; line endings are never
translated (``\\r\\n`` stays two characters), so character offsets computed
by other tools on the same file remain valid. Decoding order, most to least
certain: byte-order mark (or UTF-16 whose mark is missing, read off its
NUL bytes), strict UTF-8, UTF-8 with a few damaged bytes
(each replaced by U+FFFD and counted, when the file's valid multi-byte
sequences outnumber its bad bytes: cp1252 text almost never holds a valid
one, while reading damaged UTF-8 as cp1252 would garble every accented
letter), cp1252 (Windows "ANSI", a superset of the printable Latin-1 range,
what Western hospital systems export), and only then a statistical guess by
charset-normalizer, which is easily wrong on short notes.
"""
from __future__ import annotations

import codecs
import os
import re
from pathlib import Path
from typing import NamedTuple

from app.formats.errors import BadInputError

#: Default largest accepted note, in bytes (one clinical note is rarely > 1 MB).
DEFAULT_MAX_BYTES = 50 * 1024 * 1024

# Checked longest first: the UTF-32-LE mark starts with the UTF-16-LE mark.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# C0/C1 control characters other than tab, LF, VT, FF and CR (form feeds are
# common in notes printed to file).
_CONTROL_RE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_MAX_CONTROL_RATIO = 0.05


class DecodedText(NamedTuple):
    """Decoded file content.

    ``encoding`` is a Python codec name (``"utf-8"``, ``"utf-16-le"``,
    ``"cp1252"``, ...); ``had_bom`` tells whether a byte-order mark was
    found and stripped from ``text``; ``replaced`` counts the invalid bytes
    of damaged UTF-8 replaced by U+FFFD.
    """

    text: str
    encoding: str
    had_bom: bool
    replaced: int = 0


def decode_bytes(data: bytes, *, allow_empty: bool = False) -> DecodedText:
    """Decode a note's bytes (see module docstring for the order tried).

    Raises
    ------
    BadInputError
        Empty or blank content (unless ``allow_empty``), binary content, or
        bytes that no candidate encoding decodes.
    """
    encoding, had_bom, body = "utf-8", False, data
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding, had_bom, body = name, True, data[len(bom):]
            break
    if not body.strip():
        if allow_empty:
            return DecodedText(body.decode("ascii"), encoding, had_bom)
        raise BadInputError("empty file" if not body else "file contains only whitespace")
    if had_bom:
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError:
            raise BadInputError(f"not valid {encoding} despite its byte-order mark") from None
    elif b"\x00" in body:
        encoding = _utf16_without_bom(body)
        if encoding is None:
            raise BadInputError("binary file (contains NUL bytes)")
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError:
            raise BadInputError("binary file (contains NUL bytes)") from None
    else:
        text, encoding = _decode_without_bom(body)
    if len(_CONTROL_RE.findall(text)) > _MAX_CONTROL_RATIO * len(text):
        raise BadInputError("binary file (too many control characters)")
    replaced = 0
    if encoding == "utf-8-damaged":
        encoding, replaced = "utf-8", text.count("\ufffd") - body.count("\ufffd".encode())
    return DecodedText(text, encoding, had_bom, replaced)


def _utf16_without_bom(body: bytes) -> str | None:
    """"utf-16-le" or "utf-16-be" for text saved so without its byte-order
    mark (a NUL beside nearly every Latin character, on one side), else None:
    a note exported so was refused as binary."""
    if len(body) % 2:
        return None
    even, odd = body[0::2], body[1::2]
    for name, zeros, chars in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if zeros.count(0) >= 0.9 * len(zeros) and chars.count(0) <= 0.01 * len(chars):
            return name
    return None


def _decode_without_bom(body: bytes) -> tuple[str, str]:
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    damaged = body.decode("utf-8", errors="replace")
    bad = damaged.count("\ufffd") - body.count("\ufffd".encode())
    good = sum(1 for c in damaged if c > "\x7f" and c != "\ufffd")
    if good > bad:
        return damaged, "utf-8-damaged"
    try:
        return body.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        pass
    # Imported lazily: it is only needed for the rare non-Western file.
    from charset_normalizer import from_bytes

    best = from_bytes(body).best()
    if best is None:
        raise BadInputError("text encoding could not be determined")
    try:
        return body.decode(best.encoding), best.encoding
    except (UnicodeDecodeError, LookupError):
        raise BadInputError("text encoding could not be determined") from None


def read_text_file(path: str | os.PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES,
                   allow_empty: bool = False) -> DecodedText:
    """Read a note file as text, keeping line endings exactly as stored.

    Parameters
    ----------
    path
        File to read.
    max_bytes
        Files larger than this are refused (a mis-selected database dump or
        image should fail fast, not fill memory).
    allow_empty
        Return empty or blank content instead of raising (annotation files).

    Raises
    ------
    BadInputError
        Missing/unreadable, too large, empty, binary or undecodable file.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise BadInputError(
                f"file too large ({size:,} bytes > limit {max_bytes:,} bytes)")
        data = path.read_bytes()
    except OSError as exc:
        raise BadInputError(f"cannot read file ({exc.strerror or type(exc).__name__})") from None
    return decode_bytes(data, allow_empty=allow_empty)
