"""What to do with each label: the redaction policy and surrogate kinds.

A ``Policy`` maps label names to a *strategy* (how a span is replaced) with
a default, and label names to a *surrogate kind* (what sort of realistic
replacement the ``surrogate`` strategy draws). Labels are project-specific,
so kinds come from a table with defaults for the shipped presets (paper,
extended, hipaa, MEDDOCAN) plus per-project overrides; an unknown label gets
the shape-preserving ``generic`` kind.

Strategies
----------
``tag``        the paper's ``<**PERSON**>``
``bracket``    ``[PERSON]``
``remove``     the empty string (``redact`` is accepted as an alias)
``mask``       same length: every letter and digit becomes ``mask_char``;
               whitespace is always kept (line layout survives) and other
               punctuation is kept unless ``mask_keep_punctuation`` is off,
               so ``03/05/2014`` -> ``**/**/****``
``surrogate``  a realistic replacement ("hiding in plain sight")
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

STRATEGIES = ("tag", "bracket", "remove", "mask", "surrogate")
_ALIASES = {"redact": "remove", "redaction": "remove", "surrogates": "surrogate"}

#: Surrogate kinds a label can map to.
KINDS = ("name", "date", "age", "phone", "id", "address", "location", "postcode",
         "country", "hospital", "organisation", "email", "url", "contact",
         "profession", "sex", "auto", "generic", "keep")

#: Kinds written in words (names, places, organisations): what a model cut
#: short of one is capitalised words beside its replacement (the leak scan's
#: ``beside``); beside a date or a number they are the note going on.
WORDED_KINDS = frozenset({"name", "address", "location", "country", "hospital", "organisation",
                          "profession", "auto", "generic"})

#: Default label -> kind table (upper-case label names).
DEFAULT_KINDS: dict[str, str] = {
    # paper / extended
    "PERSON": "name", "ADDRESS": "address", "DOB": "date", "IDN": "id",
    "PHONE": "phone", "DATE": "date", "AGE": "age", "EMAIL": "email",
    "URL": "url", "HOSPITAL": "hospital", "LOCATION": "location",
    # hipaa / i2b2-2014 (top level and common sub-types)
    "NAME": "name", "PATIENT": "name", "DOCTOR": "name", "USERNAME": "generic",
    "PROFESSION": "profession", "CONTACT": "contact", "ID": "id", "FAX": "phone",
    "MEDICALRECORD": "id", "HEALTHPLAN": "id", "ACCOUNT": "id", "LICENSE": "id",
    "DEVICE": "id", "BIOID": "id", "IDNUM": "id", "SSN": "id", "VEHICLE": "id",
    "STREET": "address", "CITY": "location", "STATE": "location", "ZIP": "postcode",
    "POSTCODE": "postcode", "COUNTRY": "country", "ORGANIZATION": "organisation",
    "ORGANISATION": "organisation", "IPADDR": "url", "LOCATION-OTHER": "location",
    # MEDDOCAN (its HOSPITAL is the same name as extended's)
    "NOMBRE_SUJETO_ASISTENCIA": "name", "NOMBRE_PERSONAL_SANITARIO": "name",
    # Relatives are mostly mentions such as "2 hijos de 12 y 9 años", not names.
    "FAMILIARES_SUJETO_ASISTENCIA": "auto",
    "EDAD_SUJETO_ASISTENCIA": "age", "SEXO_SUJETO_ASISTENCIA": "sex",
    "FECHAS": "date", "CALLE": "address", "TERRITORIO": "location", "PAIS": "country",
    "INSTITUCION": "organisation", "CENTRO_SALUD": "hospital",
    "ID_SUJETO_ASISTENCIA": "id", "ID_ASEGURAMIENTO": "id",
    "ID_CONTACTO_ASISTENCIAL": "id", "ID_TITULACION_PERSONAL_SANITARIO": "id",
    "ID_EMPLEO_PERSONAL_SANITARIO": "id", "NUMERO_TELEFONO": "phone",
    "NUMERO_FAX": "phone", "CORREO_ELECTRONICO": "email", "PROFESION": "profession",
    "OTROS_SUJETO_ASISTENCIA": "generic",
}


def normalise_strategy(name: str) -> str:
    """Return the canonical strategy name, accepting the CLI alias ``redact``.

    Raises
    ------
    ValueError
        Unknown strategy.
    """
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r} (known: {', '.join(STRATEGIES)})")
    return key


DATE_ORDERS = ("", "dmy", "mdy")


def day_first_locale(locale: str) -> bool:
    """Numeric dates are read day-first except in the US locale."""
    return not locale.lower().replace("-", "_").startswith("en_us")


def default_kind(label: str) -> str:
    """Kind for ``label`` from the default table; ``ID_*`` labels are IDs."""
    up = label.upper()
    if up in DEFAULT_KINDS:
        return DEFAULT_KINDS[up]
    if up.startswith("ID_") or up.endswith("_ID"):
        return "id"
    return "generic"


@dataclass(frozen=True)
class Policy:
    """How a project replaces predicted spans.

    Parameters
    ----------
    default
        Strategy for labels not in ``strategies``.
    strategies
        Per-label strategy overrides.
    kinds
        Per-label surrogate-kind overrides (see ``KINDS``).
    locale
        ``en_AU`` (default, day-first dates), ``en_US`` (month-first) or
        ``es_ES``; picks the surrogate pools and, unless ``date_order`` is
        set, the date order.
    date_order
        ``"dmy"`` (day first) or ``"mdy"`` (month first): how numeric dates
        that could be read either way are read when a note does not show
        its order itself (see :func:`app.deid.dates.note_day_first`);
        ``""`` = from ``locale``.
    age_threshold, age_cap
        Ages above the threshold become ``age_cap`` (HIPAA: over 89 -> "90+");
        other ages are kept by the surrogate strategy.
    mask_char, mask_keep_punctuation
        See the module docstring.
    date_shift_days
        ``(min, max)`` magnitude of the per-patient date offset; the sign is
        drawn too, so the offset is never 0 when ``min >= 1``.
    two_digit_year_pivot
        Two-digit years below the pivot are 20yy, others 19yy (POSIX rule).
    """

    default: str = "tag"
    strategies: Mapping[str, str] = field(default_factory=dict)
    kinds: Mapping[str, str] = field(default_factory=dict)
    locale: str = "en_AU"
    date_order: str = ""
    age_threshold: int = 89
    age_cap: str = "90+"
    mask_char: str = "*"
    mask_keep_punctuation: bool = True
    #: Two weeks to 351 days: a shift of a few days, or of a year and a few
    #: days, leaves the day of the year nearly as written ("9/13" shifted by
    #: 365 days reads "9/13").
    date_shift_days: tuple[int, int] = (14, 351)
    two_digit_year_pivot: int = 69

    def __post_init__(self) -> None:
        object.__setattr__(self, "default", normalise_strategy(self.default))
        object.__setattr__(self, "strategies",
                           {k: normalise_strategy(v) for k, v in dict(self.strategies).items()})
        for label, kind in dict(self.kinds).items():
            if kind not in KINDS:
                raise ValueError(f"unknown surrogate kind {kind!r} for label {label!r}")
        object.__setattr__(self, "kinds", dict(self.kinds))
        lo, hi = self.date_shift_days
        if not (0 <= lo <= hi):
            raise ValueError("date_shift_days must be (min, max) with 0 <= min <= max")
        object.__setattr__(self, "date_shift_days", (int(lo), int(hi)))
        if self.date_order not in DATE_ORDERS:
            raise ValueError(f"date_order must be one of {', '.join(map(repr, DATE_ORDERS))}")
        if len(self.mask_char) != 1:
            raise ValueError("mask_char must be one character")

    def strategy_for(self, label: str) -> str:
        return self.strategies.get(label, self.default)

    def kind_for(self, label: str) -> str:
        return self.kinds.get(label) or default_kind(label)

    @property
    def day_first(self) -> bool:
        """How ambiguous numeric dates are read when a note does not say."""
        if self.date_order:
            return self.date_order == "dmy"
        return day_first_locale(self.locale)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["date_shift_days"] = list(self.date_shift_days)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Policy":
        known = {f for f in cls.__dataclass_fields__}
        kwargs = {k: v for k, v in data.items() if k in known}
        if "date_shift_days" in kwargs:
            kwargs["date_shift_days"] = tuple(kwargs["date_shift_days"])
        return cls(**kwargs)
