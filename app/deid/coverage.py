"""Which kinds of identifier a label set protects, against the HIPAA Safe
Harbor list, and which kinds the rules see that the labels leave in clear.

Only labels are replaced: a kind of identifier no label takes stays in the
output even when the rules recognise it (an e-mail address under the
paper's five labels). ``coverage`` says, for each Safe Harbor item, which
labels take it; ``rule_gaps`` names the rule categories no label takes, so
the label set picker (GUI) and ``deid new``/``deid import`` (CLI) can warn
before anything is exported.

>>> from app.core.labels import PRESETS
>>> [g.what for g in rule_gaps([l.name for l in PRESETS["paper"]])]
['dates other than dates of birth', 'ages', 'e-mail addresses', 'web addresses', 'IP addresses']
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

#: The Safe Harbor identifiers (45 CFR 164.514(b)(2)(i)), as a reader knows
#: them: (key, words). Ages over 89 are part of item C; they get a row of
#: their own because a label set may protect dates but not ages.
SAFE_HARBOR: tuple[tuple[str, str], ...] = (
    ("A", "names"),
    ("B", "places smaller than a state (street, city, county, ZIP code)"),
    ("C", "dates (except the year) related to the person"),
    ("C+", "ages over 89"),
    ("D", "telephone numbers"),
    ("E", "fax numbers"),
    ("F", "e-mail addresses"),
    ("G", "social security numbers"),
    ("H", "medical record numbers"),
    ("I", "health plan beneficiary numbers"),
    ("J", "account numbers"),
    ("K", "certificate and licence numbers"),
    ("L", "vehicle identifiers and licence plates"),
    ("M", "device identifiers and serial numbers"),
    ("N", "web addresses (URLs)"),
    ("O", "IP addresses"),
    ("P", "biometric identifiers"),
    ("Q", "full-face photographs"),
    ("R", "any other unique identifying number or code"),
)
#: Items that never appear in note text: not a label set's business.
NOT_IN_TEXT = frozenset({"P", "Q"})

_IDS = ("G", "H", "I", "J", "K", "L", "M", "R")
#: The id-number items in one phrase, for a short summary.
ID_WORDS = ("id numbers (social security, medical record, health plan, account, licence, "
            "vehicle, device and any other)")
#: Surrogate kind of a label (``app.deid.policy``) -> Safe Harbor items it takes.
KIND_ITEMS: dict[str, tuple[str, ...]] = {
    "name": ("A",), "address": ("B",), "location": ("B",), "postcode": ("B",),
    "date": ("C",), "age": ("C+",), "phone": ("D", "E"), "email": ("F",),
    "url": ("N", "O"), "contact": ("D", "E", "F", "N", "O"), "id": _IDS,
}

#: Rule categories (``app.rules.CATEGORIES``) in words, and the kinds that take them.
RULE_KINDS: dict[str, tuple[str, frozenset[str]]] = {
    "DATE": ("dates", frozenset({"date"})),
    "AGE": ("ages", frozenset({"age"})),
    "PHONE": ("phone and fax numbers", frozenset({"phone", "contact"})),
    "EMAIL": ("e-mail addresses", frozenset({"email", "contact"})),
    "URL": ("web addresses", frozenset({"url", "contact"})),
    "IP": ("IP addresses", frozenset({"url", "contact"})),
    "ID": ("record and other id numbers", frozenset({"id"})),
    "POSTCODE": ("postcodes", frozenset({"address", "postcode", "location"})),
}


def birth_only(label: str) -> bool:
    """A date label for dates of birth only (the paper's DOB)."""
    up = label.upper()
    return up in {"DOB", "BIRTHDATE", "DATE_OF_BIRTH"} or "BIRTH" in up


@dataclass(frozen=True)
class CoverageRow:
    """One Safe Harbor item: ``status`` is ``protected``, ``partly`` (only
    some of it, e.g. dates of birth only), ``in clear`` or ``not text``."""

    key: str
    what: str
    status: str
    labels: tuple[str, ...]

    @property
    def sentence(self) -> str:
        if self.status == "not text":
            return f"{self.what}: not part of note text"
        if self.status == "in clear":
            return f"{self.what}: no label, left in clear"
        by = ", ".join(self.labels)
        return f"{self.what}: {by}" + (" (dates of birth only)" if self.status == "partly" else "")


def _kind_of(kind_for: Callable[[str], str] | None) -> Callable[[str], str]:
    if kind_for is not None:
        return kind_for
    from app.deid.policy import default_kind
    return default_kind


def coverage(labels: Sequence[str], kind_for: Callable[[str], str] | None = None
             ) -> list[CoverageRow]:
    """Each Safe Harbor item and the labels that protect it.

    Parameters
    ----------
    labels
        The label set's names.
    kind_for
        Label -> surrogate kind (a project's ``Policy.kind_for``); default
        the built-in table.
    """
    kind_of = _kind_of(kind_for)
    full: dict[str, list[str]] = {}
    part: dict[str, list[str]] = {}
    for label in labels:
        for item in KIND_ITEMS.get(kind_of(label), ()):
            if item == "C" and birth_only(label):
                part.setdefault(item, []).append(label)
            else:
                full.setdefault(item, []).append(label)
    rows = []
    for key, what in SAFE_HARBOR:
        if key in NOT_IN_TEXT:
            rows.append(CoverageRow(key, what, "not text", ()))
        elif key in full:
            rows.append(CoverageRow(key, what, "protected", tuple(full[key] + part.get(key, []))))
        elif key in part:
            rows.append(CoverageRow(key, what, "partly", tuple(part[key])))
        else:
            rows.append(CoverageRow(key, what, "in clear", ()))
    return rows


@dataclass(frozen=True)
class RuleGap:
    """A kind the rules recognise that no label takes (``hits``: how many
    times the rules saw it in the project's notes, None when not counted)."""

    category: str
    what: str
    hits: int | None = None

    @property
    def sentence(self) -> str:
        seen = (f"the rules find {self.hits} in the project's notes"
                if self.hits is not None else "the rules recognise them")
        return f"{self.what}: {seen}, but no label takes them, so they stay in clear"


def rule_gaps(labels: Sequence[str], kind_for: Callable[[str], str] | None = None,
              hits: Mapping[str, int] | None = None) -> list[RuleGap]:
    """Rule categories no label of the set takes, in ``RULE_KINDS`` order.

    ``hits`` (category -> count in the project's notes), when given, keeps
    only the categories seen and says how often.
    """
    kind_of = _kind_of(kind_for)
    kinds = {kind_of(label) for label in labels}
    dates = [label for label in labels if kind_of(label) == "date"]
    out = []
    for category, (what, takers) in RULE_KINDS.items():
        if category == "DATE" and dates and all(birth_only(label) for label in dates):
            what = "dates other than dates of birth"
        elif kinds & takers:
            continue
        if hits is not None:
            if not hits.get(category):
                continue
            out.append(RuleGap(category, what, hits[category]))
        else:
            out.append(RuleGap(category, what))
    return out


def rule_hits_by_category(texts: Iterable[str]) -> dict[str, int]:
    """How many times the rules recognise each category in ``texts``."""
    from app.rules import find_hits
    counts: dict[str, int] = {}
    for text in texts:
        for hit in find_hits(text):
            counts[hit.category] = counts.get(hit.category, 0) + 1
    return counts


def coverage_lines(labels: Sequence[str], kind_for: Callable[[str], str] | None = None,
                   hits: Mapping[str, int] | None = None) -> list[str]:
    """The coverage and the warnings in words, for a command's output:
    a summary line, what each label protects, what is left in clear."""
    rows = coverage(labels, kind_for)
    clear = [r for r in rows if r.status == "in clear"]
    partly = [r for r in rows if r.status == "partly"]
    lines = [f"HIPAA Safe Harbor: {sum(r.status == 'protected' for r in rows)} of "
             f"{len(rows) - len(NOT_IN_TEXT)} kinds of identifier protected"
             + (f", {len(partly)} partly" if partly else "")]
    items_of: dict[str, list[CoverageRow]] = {}
    for r in rows:
        for label in r.labels:
            items_of.setdefault(label, []).append(r)
    groups: dict[tuple[str, ...], list[str]] = {}     # same items: one line
    for label, its in items_of.items():
        groups.setdefault(tuple(r.key for r in its), []).append(label)
    whats = {r.key: r.what + (" (dates of birth only)" if r.status == "partly" else "")
             for r in rows}
    for keys, group in groups.items():
        words = [whats[k] for k in keys if k not in _IDS]
        if set(_IDS) <= set(keys):
            words.append(ID_WORDS)
        lines.append(f"  {', '.join(group)}: {'; '.join(words)}")
    if clear:
        lines.append("  left in clear: " + "; ".join(r.what for r in clear))
    lines += [f"warning: {g.sentence}" for g in rule_gaps(labels, kind_for, hits)]
    return lines
