"""Which project label each kind of list hit takes.

Each category of :data:`app.lists.matcher.CATEGORIES` has labels in order
of preference; the first one the project's label set holds (compared
without case) is used. A category with none of them is skipped, and the
caller says so (:func:`describe`).
"""
from __future__ import annotations

from typing import Iterable

_PREFERENCES = {
    "patient_name": ("NAME", "PERSON", "NOMBRE_SUJETO_ASISTENCIA", "PATIENT"),
    "staff_name": ("NAME", "PERSON", "NOMBRE_PERSONAL_SANITARIO", "DOCTOR", "STAFF"),
    "place": ("LOCATION", "ADDRESS", "TERRITORIO", "CITY"),
    "hospital": ("HOSPITAL", "LOCATION", "INSTITUCION", "CENTRO_SALUD", "ORGANIZATION", "ADDRESS"),
    "ward": ("HOSPITAL", "LOCATION", "CENTRO_SALUD", "ADDRESS"),
    "address": ("ADDRESS", "LOCATION", "CALLE"),
    "dob": ("DOB", "DATE", "FECHAS"),
    "record_number": ("IDN", "ID", "ID_SUJETO_ASISTENCIA", "MRN", "OTHER"),
    "phone": ("PHONE", "CONTACT", "NUMERO_TELEFONO"),
    # A date of the shape floor (app.lists.floor). Never the date of birth:
    # with the paper's five labels a date of admission is no DOB, and
    # calling every date one gave the demo DOB precision 0.31; without a
    # date label the floor leaves dates to the leak scan (`describe` says so).
    "date": ("DATE", "FECHAS"),
    # a reference number of the shape floor; with no such label, an ID
    "other": ("OTHER", "OTROS_SUJETO_ASISTENCIA", "IDN", "ID"),
    # an age over 89 of the shape floor; with no such label, a date (HIPAA
    # counts both among the elements of dates), so that it is still replaced
    "age": ("AGE", "DATE", "FECHAS"),
}


def label_map(labels: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """``({category: project label}, [categories with no label])``."""
    by_upper = {}
    for name in labels:
        by_upper.setdefault(name.upper(), name)
    chosen, skipped = {}, []
    for category, prefs in _PREFERENCES.items():
        label = next((by_upper[p] for p in prefs if p in by_upper), None)
        if label is None:
            skipped.append(category)
        else:
            chosen[category] = label
    return chosen, skipped


def describe(mapping: dict[str, str], skipped: list[str]) -> str:
    """One line: "patient_name -> NAME, ...; no label for: dob"."""
    line = ", ".join(f"{c} -> {lab}" for c, lab in mapping.items())
    if skipped:
        line += f"; no label for (not used): {', '.join(skipped)}"
    return line


#: Each category of list hit in a person's words.
_WORDS = {"patient_name": "patients' names", "staff_name": "staff names", "place": "places",
          "hospital": "hospitals", "ward": "wards", "address": "addresses",
          "dob": "dates of birth", "record_number": "record numbers",
          "phone": "phone numbers", "date": "dates", "other": "the other list's entries",
          "age": "ages over 89"}


def in_words(mapping: dict[str, str], skipped: list[str]) -> str:
    """What each kind of list hit is replaced as, grouped by label, in a
    person's words: "Replaced as PERSON: patients' names and staff names;
    ... Not used (no label for them): dates, ages over 89."."""
    by_label: dict[str, list[str]] = {}
    for category, label in mapping.items():
        by_label.setdefault(label, []).append(_WORDS.get(category, category))

    def joined(words: list[str]) -> str:
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"

    line = "; ".join(f"as {label}: {joined(words)}" for label, words in by_label.items())
    line = f"Replaced {line}." if line else "No list is used: the project has none of their labels."
    if skipped:
        line += f" Not used (no label for them): {joined([_WORDS.get(c, c) for c in skipped])}."
    return line

