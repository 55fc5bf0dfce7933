"""What a hospital knows before reading a note: its lists, in memory.

``HospitalLists`` is what the project stores (``app.project`` table
``list_entries``) and what :class:`app.lists.matcher.ListMatcher` compiles:
plain lists by kind (every note) and a patient table (that patient's notes).
Nothing here is ever logged: reports give counts only (:meth:`counts`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: Kinds of plain lists: they apply to every note.
PLAIN_KINDS = ("staff", "places", "hospitals", "wards", "other")
#: Every kind a user can add; ``patients`` is the patient table.
LIST_KINDS = ("patients",) + PLAIN_KINDS
#: The fields of a patient table row (besides ``patient_id``), in CSV order.
PATIENT_FIELDS = ("first_name", "last_name", "other_names", "dob", "record_numbers",
                  "phones", "addresses")
#: The field of every plain-list entry.
PLAIN_FIELD = "name"


@dataclass
class HospitalLists:
    """Plain lists by kind and the patient table by patient id.

    ``plain[kind]`` is a list of entries (a name, a place, "Smith, John",
    "Ashdown-Lakeside Rehabilitation Hospital"); ``patients[pid][field]``
    a list of values of one of :data:`PATIENT_FIELDS`.
    """

    plain: dict[str, list[str]] = field(default_factory=dict)
    patients: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def add(self, kind: str, value: str, *, patient_id: str = "",
            field_name: str = PLAIN_FIELD) -> None:
        """Add one entry (rows as the project stores them)."""
        if kind == "patients":
            self.patients.setdefault(patient_id, {}).setdefault(field_name, []).append(value)
        else:
            self.plain.setdefault(kind, []).append(value)

    def only(self, kinds) -> "HospitalLists":
        """A copy holding only the given kinds (for measuring each list's share)."""
        kinds = set(kinds)
        return HospitalLists({k: v for k, v in self.plain.items() if k in kinds},
                             self.patients if "patients" in kinds else {})

    def counts(self) -> dict[str, int]:
        """Entries per kind (patients: rows of the patient table)."""
        out = {k: len(v) for k, v in self.plain.items() if v}
        if self.patients:
            out["patients"] = len(self.patients)
        return out

    def __bool__(self) -> bool:
        return bool(self.patients) or any(self.plain.values())
