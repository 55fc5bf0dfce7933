"""Surrogates for addresses, places, organisations, e-mails and URLs.

These keep the *form* of the original: structural words (street types such
as "St"/"Calle", unit words, particles, "Hospital", "Universitario", states
inside an address) stay verbatim, numbers keep their digit shape, and each
run of proper words is replaced as one unit through ``run_fn(category,
run)``, which the caller backs with per-patient memory so that "Sydney"
maps the same way alone and inside an address. Upper case is kept.
"""
from __future__ import annotations

import re
from typing import Callable, Sequence

from app.deid.names import apply_case
from app.deid.pools import ORG_WORDS, PARTICLES, countries, fold, state_words, street_words

# run_fn(category, run_text) -> canonical surrogate; category is one of
# "street", "city", "org", "state", "country", "domain", "word".
RunFn = Callable[[str, str], str]
# shape_fn(text) -> same-shape replacement (digits -> digits, letters -> letters).
ShapeFn = Callable[[str], str]
# Character ranges of the original that are one listed name (a hospital list's
# "Holy Cross"): replaced whole, none of their words kept.
Ranges = Sequence[tuple[int, int]]

_TOKEN_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+|\s+|.", re.S)
_POSSESSIVE_RE = re.compile(r"^(.{2,}?)(['’][sS])$")
_STREET_PREFIXES = frozenset(
    "calle avenida avda av plaza pza paseo camino carretera ctra travesia ronda pasaje "
    "glorieta urbanizacion urb c".split())
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URL_RE = re.compile(r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)?(?P<host>[^/:?#\s]+)"
                     r"(?P<port>:\d+)?(?P<rest>[/?#].*)?$", re.S)
_IP_RE = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
# Domain labels that identify nobody (public suffixes, big mail providers).
_KEEP_DOMAIN = frozenset(
    """www com org net edu gov info biz health med co ac id au es cat eus gal us uk nz ca
    nsw vic qld tas act nt wa sa gmail googlemail hotmail outlook live yahoo icloud
    msn aol telefonica terra eresmas ymail protonmail""".split())


def looks_like_email(text: str) -> bool:
    return bool(_EMAIL_RE.match(text.strip()))


def looks_like_url(text: str) -> bool:
    t = text.strip()
    return "://" in t or t.lower().startswith("www.") or bool(_IP_RE.match(t))


def looks_like_ip(text: str) -> bool:
    return bool(_IP_RE.match(text.strip()))


def _tokens(text: str) -> list[str]:
    return [m.group() for m in _TOKEN_RE.finditer(text)]


def _is_word(tok: str) -> bool:
    return tok[:1].isalpha()


def _runs(tokens: list[str], keep: Callable[[int], bool]) -> list[list[int]]:
    """Maximal runs of replaceable words joined by single spaces or hyphens."""
    runs: list[list[int]] = []
    current: list[int] = []
    i = 0
    while i < len(tokens):
        if _is_word(tokens[i]) and not keep(i):
            if current and i - current[-1] == 2 and tokens[i - 1] in (" ", "-"):
                current.append(i)
            else:
                if current:
                    runs.append(current)
                current = [i]
        i += 1
    if current:
        runs.append(current)
    return runs


def _replace_runs(tokens: list[str], runs: list[list[int]], category_of: Callable[[list[int]], str],
                  run_fn: RunFn) -> None:
    for run in runs:
        start, end = run[0], run[-1]
        text = "".join(tokens[start:end + 1])
        suffix = ""
        m = _POSSESSIVE_RE.match(tokens[end])
        if m:  # "St Vincent's" -> "St Brown's"
            text = "".join(tokens[start:end]) + m.group(1)
            suffix = m.group(2)
        new = apply_case(text, run_fn(category_of(run), text)) + suffix
        tokens[start] = new
        for j in range(start + 1, end + 1):
            tokens[j] = ""


def _replace_whole(tokens: list[str], whole: Ranges, category: str, run_fn: RunFn) -> set[int]:
    """Replace each range of ``whole`` (character offsets into the joined
    ``tokens``) by one run surrogate, generic words and all; returns the
    indices of the tokens it consumed."""
    done: set[int] = set()
    starts, pos = [], 0
    for t in tokens:
        starts.append(pos)
        pos += len(t)
    for a, b in whole:
        inside = [i for i, t in enumerate(tokens)
                  if starts[i] < b and a < starts[i] + len(t) and i not in done]
        words = [i for i in inside if _is_word(tokens[i]) or tokens[i].isdigit()]
        if not words:
            continue
        first, last = words[0], words[-1]
        text = "".join(tokens[first:last + 1])
        tokens[first] = apply_case(text, run_fn(category, text))
        for j in range(first + 1, last + 1):
            tokens[j] = ""
        done.update(range(first, last + 1))
    return done


def _replace_numbers(tokens: list[str], shape_fn: ShapeFn) -> None:
    for i, t in enumerate(tokens):
        if t.isdigit():
            tokens[i] = shape_fn(t)


def address_surrogate(original: str, run_fn: RunFn, shape_fn: ShapeFn,
                      whole: Ranges = ()) -> str:
    """A street address, suburb/city line or both, same structure; the
    ``whole`` ranges (listed names) are replaced as one city each."""
    tokens = _tokens(original)
    states = state_words()
    streets = street_words()
    listed = _replace_whole(tokens, whole, "city", run_fn)

    def street_name(i: int) -> bool:
        """Whether the word at ``i`` names a street ("5 Washington St"): a
        house number before it or a street type after it. A state's name is
        kept as the state, never as the street it names."""
        before = next((tokens[j] for j in range(i - 1, -1, -1) if tokens[j].strip()), "")
        after = next((tokens[j] for j in range(i + 1, len(tokens)) if tokens[j].strip()), "")
        return before.isdigit() or fold(after).rstrip(".") in streets

    def keep(i: int) -> bool:
        t = tokens[i]
        if i in listed:
            return True
        key = fold(t)
        if key in streets or key in PARTICLES or key.rstrip(".") in ORG_WORDS:
            return True
        if key in states and (t.isupper() or len(t) > 3) and not street_name(i):
            return True
        # Single letters ("5 B") and unit letters glued to a number ("3D", "2ºB").
        glued = (i > 0 and tokens[i - 1].isdigit()) or (i + 1 < len(tokens) and tokens[i + 1].isdigit())
        return len(t) == 1 or (len(t) <= 2 and glued)

    def category(run: list[int]) -> str:
        before = next((tokens[j] for j in range(run[0] - 1, -1, -1) if tokens[j].strip()), "")
        after = next((tokens[j] for j in range(run[-1] + 1, len(tokens)) if tokens[j].strip()), "")
        if fold(after).rstrip(".") in streets or before.isdigit() or \
                fold(before).rstrip(".") in _STREET_PREFIXES or before == "/":
            return "street"
        return "city"

    runs = _runs(tokens, keep)
    _replace_runs(tokens, runs, category, run_fn)
    # A trailing 4-5 digit number is the postcode: its first digit (the
    # state or region) is kept so it still agrees with the state.
    numbers = [i for i, t in enumerate(tokens) if t.isdigit()]
    if numbers and 4 <= len(tokens[numbers[-1]]) <= 5 and \
            not any(_is_word(t) for t in tokens[numbers[-1] + 1:]):
        last = numbers[-1]
        tokens[last] = postcode_surrogate(tokens[last], shape_fn)
        numbers.pop()
    for i in numbers:
        tokens[i] = shape_fn(tokens[i])
    out = "".join(tokens)
    return out if out != original else shape_fn(original)


def location_surrogate(original: str, run_fn: RunFn, shape_fn: ShapeFn,
                       whole: Ranges = ()) -> str:
    """A city, suburb, state, country or postcode, replaced by the same sort;
    the ``whole`` ranges (listed names) are replaced as one place each."""
    text = original.strip()
    key = fold(text)
    if whole:
        return address_surrogate(original, run_fn, shape_fn, whole)
    if text.isdigit():
        return postcode_surrogate(original, shape_fn)
    if key in state_words():
        return original.replace(text, apply_case(text, run_fn("state", text)))
    if key in _country_words():
        return country_surrogate(original, run_fn)
    return address_surrogate(original, run_fn, shape_fn)


def postcode_surrogate(original: str, shape_fn: ShapeFn) -> str:
    """Keep the first digit (it names the state/region), replace the rest."""
    stripped = original.strip()
    if len(stripped) >= 4 and stripped.isdigit():
        return original.replace(stripped, stripped[0] + shape_fn(stripped[1:]))
    return shape_fn(original)


def _country_words() -> frozenset[str]:
    global _COUNTRIES
    if _COUNTRIES is None:
        _COUNTRIES = frozenset(fold(c) for loc in ("en_AU", "es_ES") for c in countries(loc))
    return _COUNTRIES


_COUNTRIES: frozenset[str] | None = None


def country_surrogate(original: str, run_fn: RunFn) -> str:
    text = original.strip()
    return original.replace(text, apply_case(text, run_fn("country", text)))


def organisation_surrogate(original: str, run_fn: RunFn, shape_fn: ShapeFn,
                           whole: Ranges = ()) -> str:
    """A hospital, clinic or organisation: type words kept, proper words
    replaced; the ``whole`` ranges (listed names) are replaced as one name each."""
    tokens = _tokens(original)
    listed = _replace_whole(tokens, whole, "org", run_fn)
    structural = ORG_WORDS | PARTICLES
    # Short acronyms ("RPA", "HUCA") in mixed-case text keep only their shape.
    acronyms = set()
    if any(c.islower() for c in original):
        acronyms = {i for i, t in enumerate(tokens) if i not in listed and _is_word(t) and t.isupper()
                    and 2 <= len(t) <= 5 and fold(t) not in structural}
    for i in acronyms:
        tokens[i] = shape_fn(tokens[i])

    def keep(i: int) -> bool:
        return i in acronyms or i in listed or fold(tokens[i]).rstrip(".") in structural

    def category(run: list[int]) -> str:
        return "org"

    runs = _runs(tokens, keep)
    _replace_runs(tokens, runs, category, run_fn)
    _replace_numbers(tokens, shape_fn)
    out = "".join(tokens)
    return out if out != original else shape_fn(original)


def _domain(domain: str, run_fn: RunFn) -> str:
    labels = domain.split(".")
    out = []
    for label in labels:
        if fold(label) in _KEEP_DOMAIN or not label:
            out.append(label)
        else:
            word = run_fn("domain", label)
            out.append(apply_case(label, word))
    return ".".join(out)


def email_surrogate(original: str, run_fn: RunFn, shape_fn: ShapeFn) -> str:
    """``local@domain``: name-like words of the local part become surnames,
    digits keep their shape, organisation labels of the domain are replaced."""
    lead = original[: len(original) - len(original.lstrip())]
    trail = original[len(original.rstrip()):]
    local, _, domain = original.strip().rpartition("@")
    parts = re.split(r"(\d+|[^\w]+|_)", local)
    new_local = []
    for part in parts:
        if not part:
            continue
        if part.isdigit():
            new_local.append(shape_fn(part))
        elif part.isalpha():
            # fold(): e-mail local parts are ASCII in practice ("dávila" -> "davila").
            new_local.append(apply_case(part, fold(run_fn("word", part))))
        else:
            new_local.append(part)
    return f"{lead}{''.join(new_local)}@{_domain(domain, run_fn)}{trail}"


def url_surrogate(original: str, run_fn: RunFn, shape_fn: ShapeFn,
                  ip_fn: ShapeFn) -> str:
    """A URL or IP: scheme, ``www`` and public suffixes kept, the rest replaced."""
    text = original.strip()
    if looks_like_ip(text):
        return original.replace(text, ip_fn(text))
    m = _URL_RE.match(text)
    if not m:
        return shape_fn(original)
    host = m.group("host")
    host = ip_fn(host) if looks_like_ip(host) else _domain(host, run_fn)
    rest = m.group("rest") or ""
    new = (m.group("scheme") or "") + host + (m.group("port") or "") + (shape_fn(rest) if rest else "")
    return original.replace(text, new)
