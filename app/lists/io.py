"""Reading a hospital's list files: a patient table (CSV) and plain lists.

Errors are :class:`ListFileError` with a message that names the file,
a line number or a column, never a value from the file.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from .entries import PATIENT_FIELDS, PLAIN_FIELD

#: Header names taken as a field when no ``--map`` names that field.
_ALIASES = {
    "patient_id": ("patient_id", "patientid", "patient", "id", "pid", "mrn_id"),
    "first_name": ("first_name", "firstname", "first", "given_name", "given", "forename"),
    "last_name": ("last_name", "lastname", "last", "surname", "family_name", "family"),
    "other_names": ("other_names", "other_name", "middle_name", "middle", "alias", "aliases"),
    "dob": ("dob", "date_of_birth", "birth_date", "birthdate"),
    "record_numbers": ("record_numbers", "record_number", "mrn", "urn", "medical_record_number"),
    "phones": ("phones", "phone", "telephone", "mobile"),
    "addresses": ("addresses", "address", "street_address"),
}
#: Every field a patient table column can be mapped to.
TARGETS = ("patient_id",) + PATIENT_FIELDS


class ListFileError(ValueError):
    """A list file that cannot be read as asked (message free of its content)."""


def _read_text(path: Path) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ListFileError(f"cannot read {Path(path).name}: {exc.strerror}") from None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        # What Windows Notepad saves as "Unicode" and Excel as "Unicode Text".
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ListFileError(f"{Path(path).name} is UTF-16 text with bytes that are no "
                                "character: save it as UTF-8") from None
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise ListFileError(f"{Path(path).name} is neither UTF-8 nor Windows-1252 text")


def parse_mapping(pairs: list[str] | None) -> dict[str, list[str]]:
    """``["patient_id=ID", "phones=HOME", "phones=WORK"]`` -> field -> CSV columns."""
    out: dict[str, list[str]] = {}
    for pair in pairs or []:
        target, eq, column = pair.partition("=")
        target, column = target.strip(), column.strip()
        if not eq or not target or not column:
            raise ListFileError(f"--map {pair!r}: write FIELD=COLUMN (e.g. last_name=SURNAME)")
        if target not in TARGETS:
            raise ListFileError(f"--map {target!r}: unknown field (fields: {', '.join(TARGETS)})")
        out.setdefault(target, []).append(column)
    return out


def _table(path: Path):
    """A CSV reader over the rows of ``path`` (delimiter sniffed) and its header."""
    name = Path(path).name
    text = _read_text(path)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    # Universal newlines: a file whose lines end in CR, CRLF and LF mixed (a
    # table edited on several systems) reads as lines, not a raw csv error.
    reader = csv.reader(io.StringIO(text, newline=None), dialect)
    try:
        header = next(reader)
    except StopIteration:
        raise ListFileError(f"{name} is empty") from None
    except csv.Error as exc:
        raise ListFileError(f"{name} is not a readable CSV file ({exc})") from None
    return reader, header


def read_header(path: Path) -> list[str]:
    """The column names of a patient table CSV, as its header line names them
    (what a mapping refers to; names, not values)."""
    return [h.strip() for h in _table(path)[1]]


def _fields(name: str, header: list[str], mapping: dict[str, list[str]] | None
            ) -> dict[str, list[int]]:
    """Field -> the indices of its columns: as ``mapping`` says, else by name or alias."""
    mapping = dict(mapping or {})
    columns = {h.strip(): i for i, h in enumerate(header)}
    lower = {h.strip().lower().replace(" ", "_"): i for i, h in enumerate(header)}
    for target, cols in mapping.items():
        missing = [c for c in cols if c not in columns]
        if missing:
            raise ListFileError(f"{name} has no column {', '.join(map(repr, missing))} "
                                f"(mapped to {target})")
    fields: dict[str, list[int]] = {t: [columns[c] for c in cols] for t, cols in mapping.items()}
    for target, aliases in _ALIASES.items():
        if target not in fields:
            found = [lower[a] for a in aliases if a in lower]
            if found:
                fields[target] = found[:1]
    if "patient_id" not in fields:
        raise ListFileError(f"{name} has no patient id column: map one with "
                            "--map patient_id=COLUMN")
    if not any(f in fields for f in PATIENT_FIELDS):
        raise ListFileError(f"{name} has no column for any of {', '.join(PATIENT_FIELDS)}: "
                            "map them with --map FIELD=COLUMN")
    return fields


def unused_columns(path: Path, mapping: dict[str, list[str]] | None = None) -> list[str]:
    """The columns of a patient table that :func:`read_patient_table` reads
    into no field (``HOME`` beside ``ID,FIRST,SURNAME``): names, not values."""
    header = read_header(path)
    used = {i for idx in _fields(Path(path).name, header, mapping).values() for i in idx}
    return [h for i, h in enumerate(header) if i not in used and h]


def read_patient_table(path: Path, mapping: dict[str, list[str]] | None = None
                       ) -> list[tuple[str, str, str]]:
    """Rows ``(patient_id, field, value)`` of a patient table CSV.

    ``mapping`` names the CSV column(s) of each field; a field it leaves out
    is read from a column with its name or a usual alias (``surname``,
    ``mrn``, ...). Columns mapped to nothing are ignored (:func:`unused_columns`
    names them). A cell may hold several values separated by ``;``, ``|`` or
    line breaks.
    """
    name = Path(path).name
    reader, header = _table(path)
    fields = _fields(name, header, mapping)
    rows = []
    try:
        for line_no, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise ListFileError(f"{name} line {line_no}: {len(row)} cells, "
                                    f"the header has {len(header)}")
            pid = " ".join(row[i].strip() for i in fields["patient_id"]).strip()
            if not pid:
                raise ListFileError(f"{name} line {line_no}: no patient id")
            for target, idx in fields.items():
                if target == "patient_id":
                    continue
                for i in idx:
                    # A cell of several lines (a spreadsheet's Alt+Enter) holds
                    # several values, as one separated by ; or |.
                    for value in row[i].replace("|", ";").replace("\n", ";").split(";"):
                        if value.strip():
                            rows.append((pid, target, value.strip()))
    except csv.Error as exc:
        raise ListFileError(f"{name} is not a readable CSV file ({exc})") from None
    return rows


#: Headers of the column of entries in a list saved as a table ("name,role").
_ENTRY_HEADERS = frozenset({"name", "names", "full name", "full_name", "staff", "staff name",
                            "clinician", "clinicians", "doctor", "doctors", "ward", "wards",
                            "unit", "units", "hospital", "hospitals", "place", "places",
                            "site", "sites", "entry", "entries", "term", "terms", "value"})


def read_plain_list(path: Path) -> list[str]:
    """One entry per line; blank lines and lines starting with ``#`` are skipped.

    A ``.csv`` or ``.tsv`` file, or one whose lines hold tabs, is a table:
    its entries are the column headed like one (`_ENTRY_HEADERS`: "name",
    "ward" ...), its header row left out; a table of one column is its
    rows. A table of several columns with no such header is refused: read
    line by line, an IT export "name,role" made "Katelyn Nichols,consultant"
    and its header staff names, and the matcher replaced "Consultant" and
    "GP" in every note.
    """
    name = Path(path).name
    text = _read_text(path)
    if "\x00" in text:
        raise ListFileError(f"{name} is not a text file")
    lines = [line for line in text.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    tabbed = bool(lines) and all("\t" in line for line in lines)
    if not (Path(path).suffix.lower() in (".csv", ".tsv") or tabbed):
        return [line.strip() for line in lines]
    delimiter = "\t" if tabbed or Path(path).suffix.lower() == ".tsv" else ","
    rows = [[cell.strip() for cell in row]
            for row in csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)]
    rows = [row for row in rows if any(row)]
    if not rows:
        return []
    header = [cell.lower() for cell in rows[0]]
    column = next((k for k, cell in enumerate(header) if cell in _ENTRY_HEADERS), None)
    if column is not None:
        return [row[column] for row in rows[1:] if column < len(row) and row[column]]
    if all(len([c for c in row if c]) <= 1 for row in rows):
        return [next((c for c in row if c), "") for row in rows]
    raise ListFileError(f"{name} is a table of {max(len(r) for r in rows)} columns and no "
                        "column is headed 'name': head the column of entries 'name', or "
                        "save one entry a line in a .txt file")


__all__ = ["ListFileError", "PLAIN_FIELD", "TARGETS", "parse_mapping", "read_header",
           "read_patient_table", "read_plain_list"]
