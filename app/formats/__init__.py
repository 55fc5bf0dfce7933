"""Readers and writers of annotated notes: plain text, brat standoff,
CoNLL/BIO, JSON Lines and i2b2/MEDDOCAN XML.

Pure functions over files; nothing here touches the project store. Readers
yield :class:`ImportedDoc` or :class:`ImportProblem` so one bad file never
stops an import.
"""
from app.formats.base import ImportedDoc, ImportProblem, WriteResult
from app.formats.errors import BadInputError
from app.formats.registry import (FORMATS, READERS, WRITERS, detect_format, read_path,
                                  write_documents)
from app.formats.textio import DEFAULT_MAX_BYTES, DecodedText, read_text_file

__all__ = [
    "BadInputError", "DecodedText", "DEFAULT_MAX_BYTES", "FORMATS", "ImportedDoc",
    "ImportProblem", "READERS", "WRITERS", "WriteResult", "detect_format", "read_path",
    "read_text_file", "write_documents",
]
