"""Locale pools for surrogates, built from Faker's providers (offline data).

Faker is used two ways: its raw name lists (so gender and "a surname stays a
surname" can be controlled) and, for composite values such as cities and
street names, its generators re-seeded from a ``KeyedDraw`` right before
each call, which keeps every value deterministic under the project secret.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from faker import Faker

from app.deid.keyed import KeyedDraw

SUPPORTED_LOCALES = ("en_AU", "en_US", "es_ES")
# Locales whose person lists feed the first-name gender lookup.
_GENDER_SOURCES = ("en_US", "en_GB", "en_AU", "es_ES")


def pool_locale(locale: str | None) -> str:
    """Map any locale string to a supported pool locale (default en_AU)."""
    if not locale:
        return "en_AU"
    low = locale.replace("-", "_").lower()
    for loc in SUPPORTED_LOCALES:
        if low == loc.lower():
            return loc
    return "es_ES" if low.startswith("es") else ("en_US" if low.startswith("en_us") else "en_AU")


def is_spanish(locale: str | None) -> bool:
    return pool_locale(locale) == "es_ES"


@lru_cache(maxsize=None)
def faker_for(locale: str) -> Faker:
    return Faker(pool_locale(locale))


def seeded_faker(locale: str, draw: KeyedDraw) -> Faker:
    """The locale's Faker, re-seeded from ``draw`` (deterministic next call)."""
    fake = faker_for(locale)
    fake.seed_instance(draw.below(2 ** 62))
    return fake


@lru_cache(maxsize=1 << 16)  # hot: called for every word of every span
def fold(word: str) -> str:
    """Case- and accent-insensitive key (``"José"`` -> ``"jose"``)."""
    nfkd = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in nfkd if not unicodedata.combining(c))


def _person(locale: str):
    return faker_for(locale).provider("faker.providers.person")


def _single_words(names) -> tuple[str, ...]:
    # Compound first names ("Jose Luis") would change the token count.
    return tuple(sorted({n for n in names if n.isalpha()}))


@lru_cache(maxsize=None)
def first_names(locale: str, gender: str) -> tuple[str, ...]:
    """Single-word first names; ``gender`` is ``"F"``, ``"M"`` or ``"U"`` (both)."""
    p = _person(locale)
    male, female = _single_words(p.first_names_male), _single_words(p.first_names_female)
    if gender == "M":
        return male
    if gender == "F":
        return female
    return tuple(sorted(set(male) | set(female)))


@lru_cache(maxsize=None)
def last_names(locale: str) -> tuple[str, ...]:
    return _single_words(_person(locale).last_names)


@lru_cache(maxsize=1)
def _gender_table() -> tuple[dict[str, str], frozenset[str]]:
    votes: dict[str, dict[str, int]] = {}
    surnames: set[str] = set()
    for loc in _GENDER_SOURCES:
        p = Faker(loc).provider("faker.providers.person")
        for gender, names in (("M", p.first_names_male), ("F", p.first_names_female)):
            for name in names:
                # Only the head of a compound counts: "José María" is a man.
                key = fold(name.split()[0])
                counts = votes.setdefault(key, {"M": 0, "F": 0})
                counts[gender] += 1
        surnames.update(fold(n) for n in p.last_names)
    table = {k: ("M" if v["M"] > v["F"] else "F" if v["F"] > v["M"] else "U")
             for k, v in votes.items()}
    return table, frozenset(surnames)


def gender_of(first_name: str) -> str | None:
    """``"M"``, ``"F"``, ``"U"`` (used for both) or ``None`` (not a known first name)."""
    return _gender_table()[0].get(fold(first_name))


def is_known_surname(word: str) -> bool:
    return fold(word) in _gender_table()[1]


@lru_cache(maxsize=None)
def states(locale: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(abbreviations, full names) of the locale's states/provinces."""
    addr = faker_for(locale).provider("faker.providers.address")
    abbr = tuple(getattr(addr, "states_abbr", ()) or ())
    full = tuple(getattr(addr, "states", ()) or ())
    return abbr, full


@lru_cache(maxsize=1)
def state_words() -> frozenset[str]:
    """Folded state names/abbreviations of all supported locales."""
    out: set[str] = set()
    for loc in SUPPORTED_LOCALES:
        abbr, full = states(loc)
        out.update(fold(s) for s in abbr + full)
    return frozenset(out)


@lru_cache(maxsize=1)
def city_suffixes() -> tuple[str, ...]:
    """Folded endings Faker glues to a name to make a town ("Josephburgh"),
    longest first: what is left without one may be a known name."""
    out: set[str] = set()
    for loc in SUPPORTED_LOCALES:
        addr = faker_for(loc).provider("faker.providers.address")
        out.update(fold(w) for w in getattr(addr, "city_suffixes", ()) or () if " " not in w)
    return tuple(sorted(out, key=len, reverse=True))


def is_generic_place_word(word: str) -> bool:
    """Whether ``word`` is on the closed list of generic words a place or
    organisation surrogate may keep from its original (``STREET_WORDS``,
    ``ORG_WORDS``, ``PARTICLES``, state names)."""
    key = fold(word).rstrip(".")
    return key in STREET_WORDS or key in ORG_WORDS or key in PARTICLES or key in state_words()


@lru_cache(maxsize=None)
def countries(locale: str) -> tuple[str, ...]:
    return tuple(faker_for(locale).provider("faker.providers.address").countries)


#: The closed list of street-type words kept verbatim inside addresses (en +
#: es): types, unit words and compass points only. Faker's street suffixes are
#: not taken: that open list holds words of real place names ("Cross",
#: "Mission", "Park", "Canada"), which a surrogate would then keep.
STREET_WORDS = frozenset("""
    st street rd road ave av avenue dr drive ln lane pl place ct court cres crescent hwy
    highway blvd boulevard pde parade tce terrace cl close way cct circuit sq square esp
    esplanade gr grove pkwy parkway unit apt apartment suite ste level lvl flat floor lot
    shop po box gpo locked bag rmb north south east west n s e w c calle avenida avda plaza
    pza paseo camino carretera ctra travesia ronda pasaje glorieta urbanizacion urb piso
    planta puerta bajo izq izquierda dcha derecha apartado correos km sn portal escalera
    esc""".split())


def street_words() -> frozenset[str]:
    """Folded street-type words kept verbatim inside addresses (``STREET_WORDS``)."""
    return STREET_WORDS


#: Folded words kept verbatim in names of places and organisations.
#: ``PARTICLES`` and ``ORG_WORDS`` with ``STREET_WORDS`` are the closed list of
#: generic words a place or organisation surrogate may share with its
#: original: they say what kind of place it is, never which one. Words that
#: belong to a name ("Royal", "Saint", "Mater", "San") are not in it.
PARTICLES = frozenset(
    "de del la las los el y e da di van von der den du le of the and at on in upon".split())
ORG_WORDS = frozenset(
    """hospital hospitals private public general regional district base memorial
    university universitario universitaria medical medicine centre center health
    healthcare clinic clinics clinica clinico service services institute instituto
    community care aged nursing home rehabilitation rehab mental children childrens
    women womens womens' hosp ctr complejo complexo hospitalario
    asistencial centro salud sanatorio fundacion policlinica materno infantil ambulatorio
    consultorio specialist specialists practice surgery group pty ltd inc llc corporation
    corp company sa sl foundation association asociacion sociedad laboratorio laboratorios
    pharmacy farmacia farmaceutica universidad facultad ciencias escuela colegio school
    college department departamento servicio unidad unit ward laboratory penitenciario
    nacional national""".split())
