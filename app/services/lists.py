"""Hospital lists of a project: add, show, remove (the CLI and the GUI call these).

Entries are identifiers: summaries, errors and the audit log hold counts,
kinds and column names only, never a value.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path

from app.core.words import count
from app.errors import UserError
from app.lists import LIST_KINDS, ListFileError, ListMatcher
from app.lists.entries import PATIENT_FIELDS
from app.lists.floor import Floor
from app.lists.io import (parse_mapping, read_header, read_patient_table, read_plain_list,
                          unused_columns)
from app.lists.labels import describe, label_map


@dataclass
class ListAddSummary:
    kind: str
    read: int                 # entries read from the file
    added: int                # new entries (the others were stored already)
    patients: int = 0         # patient table: patients in the file
    fields: list[str] = field(default_factory=list)
    linked: int = 0           # notes with no patient that now have theirs (link_patients)
    unused: list[str] = field(default_factory=list)   # patient table columns read into no field

    def sentence(self) -> str:
        """What was read and added, in counts and field names (never an
        entry): the same words in `deid lists add` and the desktop app."""
        who = (f" of {self.patients} patients ({', '.join(self.fields)})"
               if self.kind == "patients" else "")
        linked = (f"; {self.linked} notes with no patient now have the one their file name "
                  f"names" if self.linked else "")
        unused = (f"; columns not read: {', '.join(self.unused)} (to read one, add it again "
                  f"with --map FIELD={self.unused[0]}, FIELD one of {', '.join(PATIENT_FIELDS)})"
                  if self.unused else "")
        return (f"{self.kind}: read {count(self.read, 'entry', 'entries')}{who}; {self.added} new, "
                f"{self.read - self.added} already there{linked}{unused}")


def add_list_file(project, path, kind: str, mapping: list[str] | None = None) -> ListAddSummary:
    """Read a list file and add its entries to ``project`` (one save).

    ``kind`` is one of :data:`app.lists.LIST_KINDS`; ``patients`` reads a
    CSV patient table whose columns ``mapping`` (``["last_name=SURNAME",
    ...]``) names, the other kinds a plain list (one entry a line).
    """
    if kind not in LIST_KINDS:
        raise UserError(f"unknown list kind {kind!r} (kinds: {', '.join(LIST_KINDS)})")
    path = Path(path)
    if not path.is_file():
        raise UserError(f"no such list file: {path}")
    if mapping and kind != "patients":
        raise UserError("--map is for the patient table (--kind patients) only")
    try:
        unused: list[str] = []
        if kind == "patients":
            rows = read_patient_table(path, parse_mapping(mapping))
            unused = unused_columns(path, parse_mapping(mapping))
        else:
            rows = [("", "name", v) for v in read_plain_list(path)]
    except ListFileError as exc:
        raise UserError(str(exc)) from None
    if not rows:
        raise UserError(f"{path.name} holds no entries")
    with project.transaction():
        added = project.add_list_entries(kind, rows)
        linked = link_patients(project) if kind == "patients" else 0
        project.log("list_added", {"kind": kind, "entries": len(rows), "new": added,
                                   "notes_linked": linked})
    return ListAddSummary(kind, len(rows), added, len({r[0] for r in rows}) if kind == "patients"
                          else 0, sorted({r[1] for r in rows}), linked, unused)


def link_patients(project, doc_ids: list[int] | None = None) -> int:
    """Give each note with no patient id (of ``doc_ids``; default all) the
    patient its file name names by an id of the patient table, as `deid
    annotate` finds a note's patient (:func:`patient_namer`): its patient's
    entries then apply in the suggestions, Preview, training and exports.
    Returns how many notes were linked (call inside a transaction)."""
    ids = project.list_patient_ids()
    if not ids:
        return 0
    wanted = None if doc_ids is None else set(doc_ids)
    namer = patient_namer(project)
    linked = 0
    for info in project.document_infos():
        if info.patient_id is None and (wanted is None or info.id in wanted):
            patient = namer(info.name)
            if patient is not None:
                project.set_document_fields(info.id, patient_id=patient)
                linked += 1
    return linked


def patient_table_columns(path) -> list[str]:
    """The column names of a patient table CSV, for a person mapping them to
    the fields (``[]`` when the file cannot be read as one)."""
    try:
        return read_header(Path(path))
    except ListFileError:
        return []


def remove_list(project, kind: str) -> int:
    """Delete every entry of ``kind``; the number deleted."""
    if kind not in LIST_KINDS:
        raise UserError(f"unknown list kind {kind!r} (kinds: {', '.join(LIST_KINDS)})")
    with project.transaction():
        n = project.remove_list(kind)
        project.log("list_removed", {"kind": kind, "entries": n})
    return n


def show_lists(project) -> list[str]:
    """Lines describing the project's lists: counts and the labels hits take."""
    counts = project.list_counts()
    if not counts:
        return ["no hospital lists (add one with `deid lists PROJECT add FILE --kind KIND`)"]
    lines = []
    for kind in LIST_KINDS:
        if kind in counts:
            c = counts[kind]
            extra = f" of {c['patients']} patients" if "patients" in c else ""
            lines.append(f"{kind:<10} {c['entries']:>7,} "
                         f"{'entry' if c['entries'] == 1 else 'entries'}{extra}")
    mapping, skipped = label_map(l.name for l in project.labels())
    lines.append("labels: " + describe(mapping, skipped))
    return lines


def patient_namer(project, regex=None):
    """A function giving a note file's patient id from its name: group 1 of
    ``regex`` (see ``app.services.settings.patient_id_from``), else the
    part of the name (split at anything but letters and digits) that is a
    patient id of the patient table, else ``None``."""
    import re

    from app.services.settings import patient_id_from
    if regex is not None:
        return lambda name: patient_id_from(name, regex)
    ids = project.list_patient_ids()

    def from_table(name: str) -> str | None:
        stem = Path(name).name.rsplit(".", 1)[0]
        return next((p for p in [stem, *re.split(r"[^0-9A-Za-z]+", stem)] if p in ids), None)
    return from_table


def project_matcher(project) -> tuple[Floor | None, dict[str, str]]:
    """The project's floor (`app.lists.floor.Floor`: its compiled lists and,
    for English notes, the identifying shapes) and the label of each hit
    category; ``(None, {})`` when there is neither."""
    from app.rules.registry import RULES_KEY, project_rules

    shapes = project.language == "en"
    labels = tuple(l.name for l in project.labels())
    # The project's switches and own rules change what the floor runs.
    key = (project.lists_version(), labels, shapes,
           repr(project.get_setting(RULES_KEY)) if shapes else None)
    cached = _MATCHERS.get(project)
    if cached is not None and cached[0] == key:
        floor, mapping = cached[1]
        return floor, dict(mapping)
    if not project.has_lists() and not shapes:
        found = None, {}
    else:
        lists = ListMatcher(project.hospital_lists()) if project.has_lists() else None
        found = (Floor(lists, shapes=shapes, rules=project_rules(project) if shapes else None),
                 label_map(labels)[0])
    _MATCHERS[project] = (key, found)
    return found[0], dict(found[1])


# The compiled lists of each open project, with the lists version and labels
# they were built from: compiling takes 0.16 s for 637 entries (more for a
# hospital's whole patient table), and an export or a preview asks once a
# note (`app.services.redaction.document_spans`).
_MATCHERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# Which matcher category each stored (kind, field) is.
_CATEGORY = {("patients", "first_name"): "patient_name", ("patients", "last_name"): "patient_name",
             ("patients", "other_names"): "patient_name", ("patients", "dob"): "dob",
             ("patients", "record_numbers"): "record_number", ("patients", "phones"): "phone",
             ("patients", "addresses"): "address"}


def listed_identifiers(project):
    """The project's list entries for the leak re-scan, as ``(patient_id or
    None, label, text, is_name)``: a patient's entries with its id, plain
    lists with ``None``; entries whose category has no label are left out."""
    from app.lists.matcher import KIND_CATEGORY, PERSON

    lists = project.hospital_lists()
    if not lists:
        return
    labels, _ = label_map(l.name for l in project.labels())
    for kind, values in lists.plain.items():
        category = KIND_CATEGORY[kind]
        if category in labels:
            for value in values:
                yield None, labels[category], value, category in PERSON
    for patient_id, row in lists.patients.items():
        for field_name, values in row.items():
            category = _CATEGORY.get(("patients", field_name))
            if category in labels:
                for value in values:
                    yield patient_id, labels[category], value, category in PERSON
