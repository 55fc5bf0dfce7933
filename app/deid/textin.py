"""Decoding note bytes, through ``app.formats.textio`` when it is available.

The fallback exists so this package works on its own (it was written in
parallel with the formats package); it follows the same order: BOM, strict
UTF-8, cp1252, and refuses empty and binary content.
"""
from __future__ import annotations

import codecs


class UnreadableNote(ValueError):
    """An empty, binary or undecodable note; the message names no content."""


def _fallback_decode(data: bytes) -> str:
    for bom, name in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                      (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                      (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(name)
            except UnicodeDecodeError:
                raise UnreadableNote(f"not valid {name} despite its byte-order mark") from None
    if not data.strip():
        raise UnreadableNote("empty file")
    if b"\x00" in data:
        raise UnreadableNote("binary file (contains NUL bytes)")
    for name in ("utf-8", "cp1252"):
        try:
            return data.decode(name)
        except UnicodeDecodeError:
            pass
    raise UnreadableNote("text encoding could not be determined")


def decode_note(data: bytes) -> str:
    """Decode a note's bytes, keeping line endings as stored.

    Raises
    ------
    UnreadableNote
        Empty, binary or undecodable content (the reason is in the message).
    """
    try:
        from app.formats.textio import decode_bytes
        from app.formats.errors import BadInputError
    except ImportError:
        return _fallback_decode(data)
    try:
        return decode_bytes(data).text
    except BadInputError as exc:
        raise UnreadableNote(str(exc)) from None
