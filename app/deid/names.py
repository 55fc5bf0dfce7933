"""Person-name surrogates that keep the name's shape.

The span is split into tokens and each word gets a role: title or suffix
(kept verbatim: "Dr", "Sra.", "Jr"), particle (kept: "de la", "van"),
initial ("J."), first name or surname. Only first names and surnames are
replaced, each *part* separately through ``part_fn`` so that "John" alone
maps to the same surrogate as the "John" of "John Smith". The case of each
token (ALL CAPS, Title, lower) and a possessive "'s" are kept.

Role heuristics, most specific first: "SMITH, JOHN C" (surname before a
comma); "SMITH John" (an ALL-CAPS word before a Title-case one is the
surname); a title or an initial before a single word makes it a surname;
otherwise the first word is a first name, later words are first names while
they are known first names (middle names, "María José") and the rest are
surnames (Spanish double surnames). A lone word is a first name when it is
a known first name, else a surname (``lone_role`` may override it with what
the patient's memory already knows).
"""
from __future__ import annotations

import re
from typing import Callable

from app.deid.pools import PARTICLES, fold, gender_of, is_known_surname

_TITLES_M = frozenset("mr sr don dn sir master".split())
_TITLES_F = frozenset("mrs ms miss sra srta dona dna dame madam lady".split())
_TITLES = _TITLES_M | _TITLES_F | frozenset(
    "dr dra drs doctor doctora prof professor profesor profesora mx rev fr father sister "
    "nurse a/prof assoc enf enfermera enfermero lic".split())
_SUFFIXES = frozenset("jr jnr snr ii iii iv md phd rn mbbs fracs fracp frcp do dds".split())

_TOKEN_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\s+|.", re.S)
_POSSESSIVE_RE = re.compile(r"^(.{2,}?)(['’][sS])$")

# part_fn(role, folded_token, gender) -> canonical surrogate for the part;
# role is "first", "last" or "initial" (gender is None for surnames).
PartFn = Callable[[str, str, "str | None"], str]
# lone_role(folded_token) -> "first"/"last" when the patient's memory knows.
LoneRoleFn = Callable[[str], "str | None"]


def apply_case(template: str, word: str) -> str:
    """Give ``word`` the case pattern of ``template`` (ALL CAPS, lower, Title)."""
    letters = [c for c in template if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return word.upper()
    if letters and all(c.islower() for c in letters):
        return word.lower()
    return word


def _is_initial(token: str) -> bool:
    return len(token) == 1 and token.isalpha() and token.isupper()


def name_surrogate(original: str, part_fn: PartFn, lone_role: LoneRoleFn | None = None) -> str:
    """Replace the name parts of ``original`` (see the module docstring)."""
    tokens = [m.group() for m in _TOKEN_RE.finditer(original)]
    possessive: dict[int, str] = {}
    for i, t in enumerate(tokens):
        m = _POSSESSIVE_RE.match(t) if t[:1].isalpha() else None
        if m:
            tokens[i], possessive[i] = m.group(1), m.group(2)
    words = [i for i, t in enumerate(tokens) if t[:1].isalpha()]
    roles: dict[int, str] = {}
    title_gender: str | None = None
    names: list[int] = []
    for n, i in enumerate(words):
        key = fold(tokens[i]).rstrip(".")
        if key in _TITLES and not names:
            roles[i] = "keep"
            if key in _TITLES_M:
                title_gender = "M"
            elif key in _TITLES_F:
                title_gender = "F"
        elif _is_initial(tokens[i]):
            roles[i] = "initial"
        elif (key in _SUFFIXES and names and n == len(words) - 1) or key in PARTICLES:
            roles[i] = "keep"
        else:
            names.append(i)
    if not names and not any(r == "initial" for r in roles.values()):
        # Every word reads as a title or a particle ("don", "Le"), yet the span
        # is a name: kept whole it would leak, so its last word is the name.
        last = next((i for i in reversed(words) if len(tokens[i]) >= 2), None)
        if last is None:
            return original
        roles.pop(last)
        names.append(last)
    # Hyphenated parts form one unit with one role ("Mary-Jane", "Martín-Gómez").
    units: list[list[int]] = []
    for i in names:
        if units and i >= 2 and tokens[i - 1] == "-" and units[-1][-1] == i - 2:
            units[-1].append(i)
        else:
            units.append([i])
    for unit, role in zip(units, _unit_roles(tokens, words, roles, units, lone_role)
                          if units else []):
        for i in unit:
            roles[i] = role
    out = list(tokens)
    span_gender: str | None = None  # the first given name decides ("María José")
    for i in words:
        role = roles.get(i)
        if role in ("first", "last"):
            gender = None
            if role == "first":
                gender = span_gender or gender_of(tokens[i])
                if gender in (None, "U"):
                    gender = title_gender or "U"
                span_gender = gender
            out[i] = apply_case(tokens[i], part_fn(role, fold(tokens[i]), gender))
        elif role == "initial":
            out[i] = part_fn("initial", fold(tokens[i]), None)[:1].upper()
        if i in possessive:
            out[i] += possessive[i]
    return "".join(out)


def _all_caps(word: str) -> bool:
    return len(word) > 1 and word.isupper()


def _unit_roles(tokens: list[str], words: list[int], roles: dict[int, str],
                units: list[list[int]], lone_role: LoneRoleFn | None) -> list[str]:
    """"first"/"last" for each name unit (see the module docstring)."""
    def first_like(unit: list[int]) -> bool:
        return all(gender_of(tokens[i]) is not None for i in unit)

    heads = [tokens[u[0]] for u in units]
    comma = next((i for i, t in enumerate(tokens) if t == ","), None)
    if comma is not None and units[0][0] < comma < units[-1][0]:
        return ["last" if u[0] < comma else "first" for u in units]
    if len(units) >= 2 and _all_caps(heads[0]) and not _all_caps(heads[1]):
        return ["last"] + ["first"] * (len(units) - 1)
    if len(units) == 1:
        unit = units[0]
        known = lone_role(fold(tokens[unit[0]])) if lone_role and len(unit) == 1 else None
        if known:
            return [known]
        if any(roles.get(j) for j in words if j < unit[0]):
            # "Dr Thomas", "J. Smith", "de la Fuente": a surname, unless it can
            # only be a first name ("Doña María").
            only_first = first_like(unit) and not any(is_known_surname(tokens[i]) for i in unit)
            return ["first" if only_first else "last"]
        return ["first" if first_like(unit) else "last"]
    if not first_like(units[0]) and all(is_known_surname(tokens[i]) for i in units[0]):
        return ["last"] * len(units)  # "Rivera Bueno": Spanish double surname alone
    out = ["first"]
    still_first = True
    for unit in units[1:-1]:
        still_first = still_first and first_like(unit)
        out.append("first" if still_first else "last")
    return out + ["last"]
