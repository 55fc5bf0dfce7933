"""Label sets: the paper's five, an i2b2/HIPAA-style set, MEDDOCAN's 22."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

# A palette that stays distinguishable for common colour-vision deficiencies
# (Okabe-Ito first, then Tol's muted); labels beyond it cycle.
PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
           "#CC79A7", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77",
           "#CC6677", "#882255", "#AA4499", "#332288"]


@dataclass(frozen=True, slots=True)
class LabelDef:
    """One label of a project's label set."""

    name: str
    colour: str = "#999999"
    hotkey: str | None = None
    description: str = ""


def _make(specs: list[tuple[str, str]]) -> list[LabelDef]:
    return [LabelDef(name, PALETTE[i % len(PALETTE)],
                     str(i + 1) if i < 9 else None, desc)
            for i, (name, desc) in enumerate(specs)]


PRESETS: dict[str, list[LabelDef]] = {
    "paper": _make([
        ("PERSON", "Names of patients, relatives, clinicians and staff."),
        ("ADDRESS", "Street addresses, suburbs/cities, states, postcodes."),
        ("DOB", "Date of birth."),
        ("IDN", "Identifying numbers: MRN, FIN, Medicare, pager, provider and other IDs."),
        ("PHONE", "Phone and fax numbers, including extensions."),
    ]),
    "extended": _make([
        ("PERSON", "Names of patients, relatives, clinicians and staff."),
        ("ADDRESS", "Street addresses, postcodes."),
        ("DOB", "Date of birth."),
        ("IDN", "Identifying numbers: MRN, FIN, Medicare, pager and other IDs."),
        ("PHONE", "Phone, fax and pager numbers."),
        ("DATE", "Dates other than the date of birth."),
        ("AGE", "Ages (all; ages over 89 are identifying under HIPAA)."),
        ("EMAIL", "E-mail addresses."),
        ("URL", "Web addresses and IP addresses."),
        ("HOSPITAL", "Hospitals, clinics and other care organisations."),
        ("LOCATION", "Cities, suburbs, states and countries outside an address."),
    ]),
    "hipaa": _make([
        ("NAME", "Patient, doctor and other person names; usernames."),
        ("PROFESSION", "Occupations."),
        ("LOCATION", "Hospital, organisation, street, city, state, country, zip, other."),
        ("AGE", "Ages."),
        ("DATE", "All dates, including dates of birth."),
        ("CONTACT", "Phone, fax, e-mail, URL, IP address."),
        ("ID", "SSN, MRN, health plan, account, licence, vehicle, device, bio-ID, other IDs."),
    ]),
    "meddocan": _make([(name, "MEDDOCAN category") for name in (
        "NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO", "FAMILIARES_SUJETO_ASISTENCIA",
        "EDAD_SUJETO_ASISTENCIA", "SEXO_SUJETO_ASISTENCIA", "FECHAS", "CALLE", "TERRITORIO",
        "PAIS", "HOSPITAL", "INSTITUCION", "CENTRO_SALUD", "ID_SUJETO_ASISTENCIA",
        "ID_ASEGURAMIENTO", "ID_CONTACTO_ASISTENCIAL", "ID_TITULACION_PERSONAL_SANITARIO",
        "ID_EMPLEO_PERSONAL_SANITARIO", "NUMERO_TELEFONO", "NUMERO_FAX", "CORREO_ELECTRONICO",
        "PROFESION", "OTROS_SUJETO_ASISTENCIA")]),
    "none": [],  # start empty: labels come from imported annotations
}

#: Each preset in the words a person choosing a new project's labels reads.
PRESET_TITLES = {
    "hipaa": "HIPAA Safe Harbor: names, places, all dates, ages, contacts, IDs, professions",
    "paper": "Five basic kinds: person, address, date of birth, ID number, phone",
    "extended": "The five basic kinds and dates, ages, e-mail, web, hospitals, locations",
    "meddocan": "MEDDOCAN's 22 categories (Spanish notes)",
    "none": "None yet: the labels of the annotations imported",
}
assert set(PRESET_TITLES) == set(PRESETS)
#: The preset a new project of each language gets when none is named.
_DEFAULT_PRESETS = {"en": "hipaa"}


def default_preset(language: str) -> str:
    """The label preset of a new project in ``language`` when none is
    chosen: for English notes the HIPAA Safe Harbor set, whose labels take
    every kind of identifier the starter model and the rules find in them
    (all dates, ages, hospitals), so a hospital starting from nothing
    leaves none in clear; the paper's five otherwise."""
    return _DEFAULT_PRESETS.get(language.split("_")[0].split("-")[0].lower(), "paper")


def preset_or_file(value: str) -> list[LabelDef]:
    """Resolve ``--labels``: a preset name or a JSON file.

    The JSON file is a list of objects with ``name`` and optional ``colour``,
    ``hotkey`` and ``description``, or a plain list of names.
    """
    if value in PRESETS:
        return list(PRESETS[value])
    path = Path(value)
    if not path.is_file():
        raise ValueError(
            f"unknown label preset or file: {value!r} (presets: {', '.join(PRESETS)})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read label file {path.name}: {exc}") from None
    if not isinstance(data, list) or not data:
        raise ValueError(f"label file {path.name} must hold a non-empty JSON list")
    out: list[LabelDef] = []
    for i, item in enumerate(data):
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
            raise ValueError(f"label file {path.name}: entry {i + 1} has no name")
        out.append(LabelDef(
            name=item["name"].strip(),
            colour=item.get("colour") or PALETTE[i % len(PALETTE)],
            hotkey=item.get("hotkey") or (str(i + 1) if i < 9 else None),
            description=item.get("description", "")))
    names = [label.name for label in out]
    if len(set(names)) != len(names):
        raise ValueError(f"label file {path.name} repeats a label name")
    return out


def next_colour(existing: list[LabelDef]) -> str:
    return PALETTE[len(existing) % len(PALETTE)]


def to_dict(label: LabelDef) -> dict:
    return asdict(label)
