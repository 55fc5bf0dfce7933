"""i2b2 2014 / MEDDOCAN XML: the note in ``<TEXT><![CDATA[...]]></TEXT>``,
stand-off tags in ``<TAGS>``::

    <deIdi2b2><TEXT><![CDATA[...]]></TEXT><TAGS>
      <NAME id="P0" start="16" end="26" text="..." TYPE="PATIENT" comment=""/>
    </TAGS></deIdi2b2>

The label is the ``TYPE`` attribute (i2b2 2014 ``PATIENT``, MEDDOCAN
``CALLE``...) or, with ``label_from="tag"``, the element name (``NAME``).

The note text is cut out of the raw file rather than taken from an XML
parser, because a parser turns ``\\r\\n`` into ``\\n`` and every later offset
would move. Offsets are checked against each tag's ``text`` attribute, and
mapped when they were computed on the parser's (CRLF -> LF) text.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from app.core.spans import Document, Span, sort_spans
from app.formats.base import (ImportedDoc, ImportProblem, WriteResult, atomic_write,
                              check_names, doc_name, iter_files, same_text)
from app.formats.errors import BadInputError
from app.formats.offsets import choose_map
from app.formats.textio import DEFAULT_MAX_BYTES, read_text_file
from app.formats.txt import encoding_meta

LABEL_FROM = ("TYPE", "tag")

_TEXT_OPEN_RE = re.compile(r"<TEXT(?:\s[^>]*)?>")
_ENTITY_RE = re.compile(r"&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);")
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_XML_DECL_RE = re.compile(r"^\s*<\?xml[^>]*\?>")
# Characters XML 1.0 cannot carry, even in CDATA.
_NOT_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class _XmlError(Exception):
    pass


def _unescape(chunk: str) -> str:
    def sub(m: re.Match) -> str:
        ref = m.group(1)
        if ref[0] != "#":
            return _ENTITIES[ref]
        try:
            char = chr(int(ref[2:], 16) if ref[1] == "x" else int(ref[1:]))
        except (ValueError, OverflowError):
            return m.group(0)
        if _NOT_XML_RE.match(char):
            # &#xD800; and the like: no XML may hold it, and no note can.
            raise _XmlError(f"character reference &{ref}; names a character XML forbids")
        return char
    return _ENTITY_RE.sub(sub, chunk)


def _extract_text(raw: str) -> tuple[str, int, int]:
    """Note text and the ``[start, end)`` range of the TEXT element's content.

    CDATA sections are taken verbatim and character data unescaped; nothing
    else is touched, so line endings stay as stored.
    """
    m = _TEXT_OPEN_RE.search(raw)
    if not m:
        raise _XmlError("no <TEXT> element")
    parts: list[str] = []
    i = m.end()
    while True:
        lt = raw.find("<", i)
        if lt < 0:
            raise _XmlError("<TEXT> element is not closed")
        parts.append(_unescape(raw[i:lt]))
        if raw.startswith("<![CDATA[", lt):
            end = raw.find("]]>", lt + 9)
            if end < 0:
                raise _XmlError("unterminated CDATA section in <TEXT>")
            parts.append(raw[lt + 9:end])
            i = end + 3
        elif raw.startswith("</TEXT", lt):
            if _TEXT_OPEN_RE.search(raw, lt):
                # Which one holds the note the tags point into? Guessing
                # would import wrong offsets, or drop a note silently.
                raise _XmlError("more than one <TEXT> element (one note per file)")
            return "".join(parts), m.end(), lt
        else:
            raise _XmlError("unexpected markup inside <TEXT>")


def _tags(raw: str, content_start: int, content_end: int) -> list[ET.Element]:
    # The note is cut out before parsing: it is already extracted, and a
    # note may hold characters XML forbids.
    skeleton = _XML_DECL_RE.sub("", raw[:content_start] + raw[content_end:], count=1)
    if "<!DOCTYPE" in skeleton or "<!ENTITY" in skeleton:
        raise _XmlError("document type declarations are not supported")
    try:
        root = ET.fromstring(skeleton)
    except ET.ParseError as exc:
        # ParseError messages give positions only, never content.
        raise _XmlError(f"malformed XML ({exc})") from None
    tags = root if root.tag == "TAGS" else root.find(".//TAGS")
    return [] if tags is None else list(tags)


def _read_one(root: Path, path: Path, max_bytes: int, label_from: str
              ) -> ImportedDoc | ImportProblem:
    try:
        decoded = read_text_file(path, max_bytes=max_bytes)
        text, c_start, c_end = _extract_text(decoded.text)
        elements = _tags(decoded.text, c_start, c_end)
    except BadInputError as exc:
        return ImportProblem(path, exc.reason)
    except _XmlError as exc:
        return ImportProblem(path, str(exc))
    meta, warnings = encoding_meta(decoded)
    anns: list[tuple[int, int, str | None, str]] = []
    for n, el in enumerate(elements, 1):
        try:
            start, end = int(el.get("start", "")), int(el.get("end", ""))
        except ValueError:
            return ImportProblem(path, f"tag {n} (<{el.tag}>): missing or bad start/end")
        label = el.get("TYPE") if label_from == "TYPE" else el.tag
        if not label:
            label = el.tag
            warnings.append(f"tag {n} (<{el.tag}>): no TYPE attribute, element name used")
        if not 0 <= start <= end:
            return ImportProblem(path, f"tag {n} (<{el.tag}>): bad offsets")
        anns.append((start, end, el.get("text"), label))

    basis, mapping = choose_map(text, False, [a[:3] for a in anns])
    if basis != "as-stored":
        meta["offset_basis"] = basis
    spans: list[Span] = []
    for n, (start, end, stored, label) in enumerate(anns, 1):
        s, e = mapping(start, end)
        if e > len(text):
            return ImportProblem(path, f"tag {n}: offsets beyond end of text")
        if stored is not None and not same_text(stored, text[s:e]):
            warnings.append(f"tag {n}: text attribute does not match the text at its "
                            "offsets (offsets kept)")
        if s == e:
            warnings.append(f"tag {n}: empty span skipped")
            continue
        spans.append(Span(s, e, label))
    return ImportedDoc(doc_name(root, path), text, sort_spans(spans), path, meta, warnings)


def read_i2b2(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, label_from: str = "TYPE"
              ) -> Iterator[ImportedDoc | ImportProblem]:
    """Yield one document per ``*.xml`` file under ``root`` (or ``root``).

    Parameters
    ----------
    label_from
        ``"TYPE"`` (the attribute, default) or ``"tag"`` (the element name).
    """
    if label_from not in LABEL_FROM:
        raise ValueError(f"label_from must be one of {LABEL_FROM}")
    root = Path(root)
    for path in iter_files(root, {".xml"}):
        yield _read_one(root, path, max_bytes, label_from)


# --- writing -----------------------------------------------------------------

def _category_table() -> dict[str, str]:
    groups = {
        "NAME": "NAME PATIENT DOCTOR USERNAME PERSON NOMBRE_SUJETO_ASISTENCIA "
                "NOMBRE_PERSONAL_SANITARIO FAMILIARES_SUJETO_ASISTENCIA",
        "PROFESSION": "PROFESSION PROFESION",
        "LOCATION": "LOCATION ROOM DEPARTMENT HOSPITAL ORGANIZATION STREET CITY STATE "
                    "COUNTRY ZIP LOCATION-OTHER ADDRESS CALLE TERRITORIO PAIS "
                    "INSTITUCION CENTRO_SALUD",
        "AGE": "AGE EDAD_SUJETO_ASISTENCIA",
        "DATE": "DATE DOB FECHAS",
        "CONTACT": "CONTACT PHONE FAX EMAIL URL IPADDR NUMERO_TELEFONO NUMERO_FAX "
                   "CORREO_ELECTRONICO URL_WEB DIREC_PROT_INTERNET",
        "ID": "ID SSN MEDICALRECORD HEALTHPLAN ACCOUNT LICENSE VEHICLE DEVICE BIOID IDNUM "
              "IDN ID_SUJETO_ASISTENCIA ID_TITULACION_PERSONAL_SANITARIO "
              "ID_CONTACTO_ASISTENCIAL ID_ASEGURAMIENTO ID_EMPLEO_PERSONAL_SANITARIO "
              "IDENTIF_VEHICULOS_NRSERIE_PLACAS IDENTIF_DISPOSITIVOS_NRSERIE "
              "NUMERO_BENEF_PLAN_SALUD OTRO_NUMERO_IDENTIF",
        "OTHER": "OTHER SEXO_SUJETO_ASISTENCIA OTROS_SUJETO_ASISTENCIA",
    }
    return {label: cat for cat, labels in groups.items() for label in labels.split()}


#: Default element name per label (i2b2 2014 categories); others get ``PHI``.
I2B2_CATEGORIES: Mapping[str, str] = _category_table()


def _attr(value: str) -> str:
    value = _NOT_XML_RE.sub("\ufffd", value)
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;")
            .replace("\r", "&#13;"))


def _element_name(label: str, categories: Mapping[str, str]) -> str:
    name = categories.get(label, "PHI")
    return name if re.fullmatch(r"[A-Za-z_][\w.-]*", name) else "PHI"


def write_i2b2(docs: Iterable[Document], out_dir: Path, *,
               categories: Mapping[str, str] | None = None) -> WriteResult:
    """Write ``<name>.xml`` per document in the i2b2 2014 layout (UTF-8).

    The text goes into CDATA unchanged (line endings kept; a ``]]>`` in the
    text is split across two sections). ``TYPE`` holds the label, the
    element name its category from ``categories`` (default
    :data:`I2B2_CATEGORIES`, ``PHI`` when unknown).
    """
    categories = I2B2_CATEGORIES if categories is None else categories
    result = WriteResult()
    for doc in check_names(docs):
        if _NOT_XML_RE.search(doc.text):
            result.warnings.append(f"{doc.name}: text holds characters XML 1.0 forbids; "
                                   "other XML tools may refuse the file")
        cdata = doc.text.replace("]]>", "]]]]><![CDATA[>")
        tags = "".join(
            f'<{_element_name(s.label, categories)} id="P{i}" start="{s.start}" '
            f'end="{s.end}" text="{_attr(doc.text[s.start:s.end])}" '
            f'TYPE="{_attr(s.label)}" comment="" />\n'
            for i, s in enumerate(sort_spans(doc.spans)))
        xml = ('<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n'
               f"<TEXT><![CDATA[{cdata}]]></TEXT>\n<TAGS>\n{tags}</TAGS>\n</deIdi2b2>\n")
        result.paths.append(atomic_write(Path(out_dir) / f"{doc.name}.xml",
                                         xml.encode("utf-8")))
    return result
