"""The rules after the models as named data: the shipped file
(``resources/rules/en.json``) merged with a project's overrides.

Each rule finds identifiers or vetoes predicted spans, belongs to one fixed
step of the floor (`app.lists.floor.FIXED_STEPS`) and can be switched off
for a project; a site adds its own finding rules (regular expressions with
optional context words) without editing code. `app.lists.floor.Floor`
runs what a `RuleSet` says; `deid rules` and the desktop app's Rules page
read and change it through :func:`project_rules`, :func:`set_enabled` and
:func:`add_rules`.

Every regular expression of a rule is named data of the file (`Pattern`,
as Presidio's ``Pattern``): a rule of patterns alone runs in
`Rule.finder`; a rule whose logic is code (a calendar, the words around a
span) reads its expressions with :func:`shipped_pattern` and its word sets
with `app.rules.lexicon.words`, so the Python keeps the engine.
"""
from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

import regex

from app.core.bounded import BoundedPattern
from app.errors import UserError

#: Project setting holding ``{"enabled": {name: bool}, "added": [entry, ...]}``.
RULES_KEY = "rules"
FINDS, VETOES = "finds", "vetoes"
#: How far before a pattern rule's match one of its context words may stand:
#: within this many characters, or this many words, whichever reaches further
#: (as Presidio's context words count words). Characters alone missed
#: "locker of Mr <a double-barrelled name>: KL4821", the cue 42 characters
#: before the code; the leak scan then found it beside the replaced name.
CONTEXT_CHARS = 40
CONTEXT_WORDS = 5
#: The words before a point, at most ``CONTEXT_WORDS`` (read on the text's
#: last ``_CONTEXT_REACH`` characters before it: a bounded look back).
_WORDS_BEFORE = re.compile(r"(?:\S+\s+){1,%d}\S*\Z" % CONTEXT_WORDS)
_CONTEXT_REACH = 200
#: The group of a rule's pattern that holds the hit, where the pattern has
#: one ("pager (?P<hit>\d{5})": the digits, not the word).
HIT_GROUP = "hit"
#: The kinds a site's rule may find: the categories of a floor hit.
SITE_KINDS = ("patient_name", "staff_name", "place", "hospital", "ward", "address", "dob",
              "record_number", "phone", "date", "other", "age")
_SITE_FIELDS = {"name", "kind", "patterns", "context", "unless", "example", "evidence", "enabled"}
#: The word set an `unless` may name besides the lexicon's: the shipped
#: dictionary of common English and clinical words.
COMMON_WORDS = "common-words"
#: A fragment's place in a pattern: ``{NAME_WORD}`` stands for the shipped
#: file's fragment ``NAME_WORD`` (a regular expression's own braces hold
#: digits: ``\d{6}``).
_FRAGMENT_RE = re.compile(r"\{([A-Z][A-Z_]*)\}")


def shipped_path() -> Path:
    """The shipped rules file."""
    from app import paths
    return paths.resources_dir() / "rules" / "en.json"


@dataclass(frozen=True)
class Pattern:
    """One regular expression of a rule, named in the shipped file (a
    site's may have no name), as the file writes it: ``{FRAGMENT}`` stands
    for a shipped fragment (`expand`); ``about`` says what it matches."""

    name: str
    regex: str
    about: str = ""

    def compiled(self) -> re.Pattern:
        """The expression with its fragments expanded, compiled."""
        return re.compile(expand(self.regex))


@lru_cache(maxsize=None)
def _fragments() -> dict[str, str]:
    data = json.loads(shipped_path().read_text(encoding="utf-8"))
    return {name: f["regex"] for name, f in data.get("fragments", {}).items()}


def expand(regex: str) -> str:
    """``regex`` with each ``{FRAGMENT}`` of the shipped file written out
    (an unknown name stays as written)."""
    fragments = _fragments()
    return _FRAGMENT_RE.sub(lambda m: fragments.get(m.group(1), m.group()), regex)


def fragment(name: str) -> str:
    """The shipped fragment ``name`` (a regular expression; ``KeyError`` if none)."""
    return _fragments()[name]


@dataclass(frozen=True)
class Rule:
    """One named rule (see the module docstring and the shipped file's ``about``)."""

    name: str
    action: str
    step: str
    kind: str
    function: str | None = None
    patterns: tuple[Pattern, ...] = ()
    context: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()        # the lexicon's word sets the rule reads
    unless: tuple[str, ...] = ()       # a pattern rule's hit in one of these sets is dropped
    example: str = ""
    evidence: str = ""
    enabled: bool = True
    site: bool = False               # added by the project, not shipped

    def code(self) -> Callable | None:
        """The function holding the rule's logic (``function``: a finder,
        a veto's check, a step), or None for a rule of patterns alone."""
        if not self.function:
            return None
        module, name = self.function.split(":")
        return getattr(importlib.import_module(module), name)

    def finder(self) -> Callable[[str], list[tuple[int, int]]]:
        """A finding rule's ``text -> [(start, end), ...]`` in order: its
        function, or its patterns, shipped or the site's (a hit is the
        match, or its group `HIT_GROUP` where the pattern has one; each kept
        when a context word, if any, stands before the match)."""
        if self.function:
            return self.code()
        compiled = [site_pattern(p.regex, self.name) if self.site else p.compiled()
                    for p in self.patterns]
        cue = (re.compile(r"(?i)\b(?:" + "|".join(re.escape(c) for c in self.context) + r")\b")
               if self.context else None)
        word = _word_in(self.unless)

        def find(text: str) -> list[tuple[int, int]]:
            out = set()
            for rx in compiled:
                group = HIT_GROUP if HIT_GROUP in rx.groupindex else 0
                for m in rx.finditer(text):
                    a, b = m.span(group)
                    if b > a and (cue is None or cue.search(
                            text, context_start(text, m.start()), m.start())) \
                            and not word(text[a:b]):
                        out.add((a, b))
            return sorted(out)
        return find

    def pattern(self, name: str) -> re.Pattern:
        """The rule's pattern ``name``, compiled (``KeyError`` if none)."""
        found = next((p for p in self.patterns if p.name == name), None)
        if found is None:
            raise KeyError(f"rule {self.name!r} has no pattern {name!r}")
        return found.compiled()


def _word_in(sets: Iterable[str]) -> Callable[[str], bool]:
    """Whether a hit is a word of one of ``sets`` (an `unless`): the
    lexicon's sets, as written or lower-cased, and `COMMON_WORDS`."""
    from app.rules.dictionaries import is_common_word
    from app.rules.lexicon import words

    sets = tuple(sets)
    common = COMMON_WORDS in sets
    listed = [words(name) for name in sets if name != COMMON_WORDS]
    return lambda hit: (common and is_common_word(hit)) \
        or any(hit in s or hit.lower() in s for s in listed)


def context_start(text: str, at: int) -> int:
    """Where the context of a match at ``at`` starts: ``CONTEXT_CHARS``
    characters or ``CONTEXT_WORDS`` words before it, whichever is further."""
    start = max(0, at - CONTEXT_CHARS)
    reach = max(0, at - _CONTEXT_REACH)
    words = _WORDS_BEFORE.search(text, reach, at)
    return min(start, words.start()) if words is not None else start


@dataclass(frozen=True)
class RuleSet:
    """The rules that apply to one project, in the shipped order, site rules last."""

    rules: tuple[Rule, ...]
    _finders: dict = field(default_factory=dict, compare=False, repr=False)

    def get(self, name: str) -> Rule:
        rule = next((r for r in self.rules if r.name == name), None)
        if rule is None:
            raise UserError(f"no rule called {name!r} (see `deid rules PROJECT list`)")
        return rule

    def enabled(self, name: str) -> bool:
        """Whether rule ``name`` runs (an unknown name: yes; the code's own checks)."""
        return next((r.enabled for r in self.rules if r.name == name), True)

    def finders(self, step: str) -> list[tuple[Rule, Callable]]:
        """The enabled finding rules of ``step`` with their functions."""
        out = []
        for r in self.rules:
            if r.enabled and r.action == FINDS and r.step == step and (r.function or r.patterns):
                if r.name not in self._finders:
                    self._finders[r.name] = r.finder()
                out.append((r, self._finders[r.name]))
        return out

    def off(self) -> frozenset[str]:
        """The names of the rules switched off."""
        return frozenset(r.name for r in self.rules if not r.enabled)


def _pattern(entry) -> Pattern:
    """A pattern as the file writes it: a regular expression alone (a
    site's) or ``{"name", "regex", "about"}``."""
    if isinstance(entry, str):
        return Pattern("", entry)
    return Pattern(entry["name"], entry["regex"], entry.get("about", ""))


def _rule(entry: dict, *, site: bool) -> Rule:
    patterns = tuple(_pattern(p) for p in entry.get("patterns", ()))
    return Rule(name=entry["name"], action=entry.get("action", FINDS),
                step=entry.get("step", "english-floor.v1"), kind=entry["kind"],
                function=entry.get("function"), patterns=patterns,
                context=tuple(entry.get("context", ())), lists=tuple(entry.get("lists", ())),
                unless=tuple(entry.get("unless", ())),
                example=entry.get("example", ""), evidence=entry.get("evidence", ""),
                enabled=bool(entry.get("enabled", True)), site=site)


def shipped_rules() -> list[dict]:
    """The entries of the shipped file."""
    return json.loads(shipped_path().read_text(encoding="utf-8"))["rules"]


@lru_cache(maxsize=None)
def shipped_finder(name: str) -> Callable[[str], list[tuple[int, int]]]:
    """The finder of the shipped rule ``name`` (`Rule.finder`), switched on
    or off by no project: for code that runs a shipped rule outside the
    floor (the starter's rules member finds pagers with it)."""
    return _shipped().get(name).finder()


@lru_cache(maxsize=None)
def shipped_pattern(rule: str, name: str) -> re.Pattern:
    """The pattern ``name`` of the shipped rule ``rule``, compiled: the
    code of a built-in rule reads its expressions from the shipped file
    with it, so that they are data a hospital reads (`Rule.pattern`)."""
    return _shipped().get(rule).pattern(name)


@lru_cache(maxsize=None)
def _shipped() -> RuleSet:
    return merge(shipped_rules(), None)


def merge(shipped: Iterable[dict], overrides: dict | None) -> RuleSet:
    """The shipped entries with a project's ``overrides`` (the
    ``RULES_KEY`` setting): its switches, then its own rules."""
    overrides = overrides or {}
    switched = overrides.get("enabled") or {}
    rules = [_rule(e, site=False) for e in shipped]
    rules += [_rule(e, site=True) for e in overrides.get("added") or []]
    return RuleSet(tuple(replace(r, enabled=switched.get(r.name, r.enabled)) for r in rules))


def project_rules(project) -> RuleSet:
    """The rules of ``project`` (``None``: the shipped ones alone)."""
    return merge(shipped_rules(), None if project is None else project.get_setting(RULES_KEY))


def report_record(project) -> dict:
    """What an audit report says of ``project``'s rules: the shipped ones
    switched off and the site's own, on and off (names only)."""
    rules = project_rules(project).rules
    return {"shipped_off": [r.name for r in rules if not r.site and not r.enabled],
            "site_on": [r.name for r in rules if r.site and r.enabled],
            "site_off": [r.name for r in rules if r.site and not r.enabled]}


#: What the pattern recogniser (`app.rules.recognizer`) finds, in words: it
#: is code, not a rule of the file, and always on; the project's label of
#: each kind is the rules' mapping (`deid rules list`, the Rules page).
RECOGNISER = ("Besides these rules, the rules model's pattern recogniser (code, always on, "
              "in every language) finds numeric and written dates, years after \"year\", "
              "phone and pager numbers, e-mail and web addresses, IP addresses, codes after "
              "an ID's cue (MRN, UR, No. ...) or with a valid checksum, postcodes and ages "
              "with their cue. It cannot be switched off: a trained run learns which of its "
              "finds your annotators mark, and the label each takes.")


def rules_sentence(project) -> str | None:
    """What ``project`` changed of the shipped rules, in one sentence for a
    run's notes ("Rules: switched off here: eponym; the site's own: ..."),
    or None when it runs them as shipped (or its notes are not English)."""
    if project.language != "en":
        return None
    record = report_record(project)
    parts = [f"{what}: {', '.join(record[key])}" for key, what in (
        ("shipped_off", "switched off here"), ("site_on", "the site's own"),
        ("site_off", "the site's own, switched off")) if record[key]]
    return ("Rules after the models: " + "; ".join(parts) + " (Rules page, `deid rules`).") \
        if parts else None


def overrides_digest(project) -> str:
    """A digest of ``project``'s switches and own rules ("" when it has none):
    part of what an export's resume fingerprint names."""
    import hashlib
    overrides = project.get_setting(RULES_KEY)
    if not overrides:
        return ""
    return hashlib.sha256(json.dumps(overrides, sort_keys=True).encode()).hexdigest()[:16]


def set_enabled(project, name: str, on: bool) -> Rule:
    """Switch rule ``name`` on or off for ``project`` (logged); the rule."""
    rule = project_rules(project).get(name)
    overrides = dict(project.get_setting(RULES_KEY) or {})
    overrides["enabled"] = {**(overrides.get("enabled") or {}), name: bool(on)}
    with project.transaction():
        project.set_setting(RULES_KEY, overrides)
        project.log("rule_switched", {"rule": name, "enabled": bool(on)})
    return replace(rule, enabled=bool(on))


def site_pattern(pattern: str, rule: str) -> BoundedPattern:
    """A site's pattern of rule ``rule``, compiled, matched in bounded time:
    a pattern that backtracks without end stops the note it reads with an
    error naming the rule (Python's ``re`` would hang the export).
    ``UserError`` if it is no regular expression."""
    return BoundedPattern(expand(pattern), f"the site's rule {rule!r}",
                          advice=f"switch it off (Rules, or `deid rules PROJECT off {rule}`) "
                                 f"or write it more simply")


#: What a site's pattern is tried on before it is added: runs of one kind of
#: character that end in one that breaks them, where a pattern with nested
#: repeats ("(\w+\s?)+$") backtracks without end.
_STRESS = tuple(c * 5000 + end for c in ("a", "A", "1", " ", "a1", "a ") for end in ("!", "\n"))
#: How long a site's pattern may take on one of ``_STRESS`` (seconds).
_STRESS_SECONDS = 0.25


def read_site_rules(path) -> list[dict]:
    """A site's rules file: a JSON list of entries (or ``{"rules": [...]}``),
    checked; ``UserError`` saying what is wrong."""
    path = Path(path)
    try:
        # utf-8-sig: Notepad writes a byte-order mark.
        raw = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UserError(f"{path.name} is no JSON rules file: it is not UTF-8 text") from None
    if not raw.strip():
        raise UserError(f"{path.name} is empty: a rules file is a JSON list of entries "
                        f"(see `deid rules PROJECT add --help`)")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path.name} is no JSON rules file: {exc}") from None
    entries = data.get("rules") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise UserError(f"{path.name} holds no rules (a JSON list of entries)")
    return [check_site_rule(e, where=f"{path.name}, rule {i + 1}") for i, e in enumerate(entries)]


def check_site_rule(entry, *, where: str = "rule") -> dict:
    """A site's rule entry, checked and normalised (``UserError`` if wrong)."""
    if not isinstance(entry, dict):
        raise UserError(f"{where}: an entry is an object with name, kind and patterns")
    unknown = set(entry) - _SITE_FIELDS
    if unknown:
        raise UserError(f"{where}: unknown field(s) {', '.join(sorted(unknown))} "
                        f"(fields: {', '.join(sorted(_SITE_FIELDS))})")
    name = entry.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        raise UserError(f"{where}: a name of letters, digits, '.', '_' or '-' is needed")
    if entry.get("kind") not in SITE_KINDS:
        raise UserError(f"{where} ({name}): kind must be one of {', '.join(SITE_KINDS)}")
    patterns = entry.get("patterns")
    if isinstance(patterns, str):
        patterns = [patterns]
    if not patterns or not all(isinstance(p, str) and p for p in patterns):
        raise UserError(f"{where} ({name}): patterns (regular expressions) are needed")
    # A pattern is named by its place, not its text: a site may write a
    # patient's name into one, and messages never hold identifiers.
    for i, p in enumerate(patterns, 1):
        which = f"{where} ({name}): pattern {i}" if len(patterns) > 1 else f"{where} ({name})"
        try:
            compiled = regex.compile(expand(p))
        except (regex.error, OverflowError, RecursionError, MemoryError) as exc:
            raise UserError(f"{which} is no regular expression: {exc}") from None
        if compiled.fullmatch(""):
            raise UserError(f"{which} matches the empty text, so it would hit everywhere: "
                            f"make it need at least one character (+ instead of *)")
        try:
            for text in _STRESS:
                list(compiled.finditer(text, timeout=_STRESS_SECONDS))
        except TimeoutError:
            raise UserError(f"{which} backtracks without end on a long run of one character "
                            f"(a repeat inside a repeat, as in (\\w+\\s?)+): write it more "
                            f"simply") from None
    context = entry.get("context") or []
    if isinstance(context, str):
        context = [context]                   # one word, as a pattern may be one string
    if not isinstance(context, list) or not all(isinstance(c, str) and c.strip()
                                                for c in context):
        raise UserError(f"{where} ({name}): context is a list of words, none of them empty")
    from app.rules.lexicon import _lexicon
    unless = entry.get("unless") or []
    known = {COMMON_WORDS, *_lexicon()}
    if not isinstance(unless, list) or not all(u in known for u in unless):
        raise UserError(f"{where} ({name}): unless is a list of word sets: {COMMON_WORDS} or "
                        f"those of `deid rules show` (words:)")
    return {"name": name, "action": FINDS, "step": "english-floor.v1", "kind": entry["kind"],
            "patterns": list(patterns), "context": context, "unless": unless,
            "example": str(entry.get("example", "")), "evidence": str(entry.get("evidence", "")),
            "enabled": bool(entry.get("enabled", True))}


def add_rules(project, entries: list[dict], *, replace: bool = False) -> list[str]:
    """Add a site's rules (checked entries: `read_site_rules`,
    `check_site_rule`) to ``project``; their names. A name already taken is
    refused (nothing is added), unless ``replace`` and it is one of the
    site's own rules, which the entry then replaces where it stood (a
    corrected file added again)."""
    rules = project_rules(project).rules
    names = [e["name"] for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(f"two rules are called {', '.join(twice)}: give each its own name")
    shipped = sorted(set(names) & {r.name for r in rules if not r.site})
    if shipped:
        raise UserError(f"{', '.join(shipped)}: the name of a shipped rule; give yours its own")
    clash = sorted(set(names) & {r.name for r in rules if r.site})
    if clash and not replace:
        raise UserError(f"rule name(s) already taken in this project: {', '.join(clash)} "
                        f"(see `deid rules PROJECT list`; `add --replace` replaces your own)")
    for entry in entries:
        _check_width(project, entry)
    overrides = dict(project.get_setting(RULES_KEY) or {})
    new = {e["name"]: e for e in entries}
    kept = [new.pop(e["name"], e) for e in overrides.get("added") or []]
    overrides["added"] = [*kept, *new.values()]
    # A replaced rule is on or off as its new entry says.
    overrides["enabled"] = {k: v for k, v in (overrides.get("enabled") or {}).items()
                            if k not in names}
    with project.transaction():
        project.set_setting(RULES_KEY, overrides)
        project.log("rules_added", {"rules": names, "replaced": clash})
    return names


def replacing(project, entries: list[dict]) -> list[str]:
    """The names of ``entries`` that would replace rules of ``project``'s own
    (`add_rules` with ``replace``), to be said beside what was added."""
    own = {r.name for r in project_rules(project).rules if r.site}
    return [e["name"] for e in entries if e["name"] in own]


def remove_rules(project, names: Iterable[str]) -> list[str]:
    """Remove the site's own rules ``names`` from ``project``; their names.
    A shipped rule is switched off, never removed (``UserError``)."""
    names = list(dict.fromkeys(names))
    rules = project_rules(project)
    for name in names:
        if not rules.get(name).site:
            raise UserError(f"{name} is a shipped rule: switch it off instead "
                            f"(`deid rules PROJECT off {name}`)")
    overrides = dict(project.get_setting(RULES_KEY) or {})
    overrides["added"] = [e for e in overrides.get("added") or [] if e["name"] not in names]
    overrides["enabled"] = {k: v for k, v in (overrides.get("enabled") or {}).items()
                            if k not in names}
    with project.transaction():
        project.set_setting(RULES_KEY, overrides)
        project.log("rules_removed", {"rules": names})
    return names


def site_rules_file(project) -> dict:
    """The site's own rules of ``project`` as a rules file (``{"rules":
    [...]}``, each on or off as it is here) that `read_site_rules` reads back,
    so that another project can add them; ``UserError`` if it has none."""
    rules = [r for r in project_rules(project).rules if r.site]
    if not rules:
        raise UserError("this project has no rules of its own to write out "
                        "(`deid rules PROJECT add FILE` adds some)")
    added = {e["name"]: e for e in (project.get_setting(RULES_KEY) or {}).get("added") or []}
    return {"rules": [{**{k: v for k, v in added[r.name].items() if k in _SITE_FIELDS},
                       "enabled": r.enabled} for r in rules]}


def write_site_rules(project, path) -> list[str]:
    """Write `site_rules_file` to ``path`` (whole or not at all); the names."""
    from app.formats.base import atomic_write
    data = site_rules_file(project)
    try:
        atomic_write(Path(path), (json.dumps(data, indent=2, ensure_ascii=False) + "\n")
                     .encode("utf-8"))
    except OSError as exc:
        raise UserError(f"cannot write {Path(path).name}: {exc.strerror or exc}") from None
    return [e["name"] for e in data["rules"]]


#: The most of a project's note text a site's rule may hit. Every annotated
#: identifier together covers 0.5 % of the characters of the PhysioNet
#: training notes and 19 % of the bundled synthetic letters (short, with
#: addresses and phone numbers); one rule hitting more than this takes
#: ordinary words too (".+" hit 97 % of a walkthrough's notes, "\w+" 78 %).
MAX_HIT_SHARE = 0.4
#: The note text a width check reads at most (characters).
_WIDTH_CHARS = 2_000_000
#: The least it reads: a project with fewer notes (none yet, as a site adds
#: its rules before importing) is checked on the bundled sample's letters too.
_WIDTH_MIN_CHARS = 50_000


def _check_width(project, entry: dict) -> None:
    """``UserError`` if the site rule ``entry`` hits more than
    ``MAX_HIT_SHARE`` of the text of ``project``'s notes (the first ones, up
    to ``_WIDTH_CHARS``; with the bundled sample notes where they hold fewer
    than ``_WIDTH_MIN_CHARS``)."""
    from app import paths

    find = _rule(entry, site=True).finder()
    tried = [0, 0]                       # characters read, characters hit

    def tally(texts: Iterable[str], limit: int) -> None:
        for text in texts:
            if tried[0] >= limit:
                return
            covered = end = 0
            for a, b in find(text):
                covered += max(0, b - max(a, end))
                end = max(end, b)
            tried[0] += len(text)
            tried[1] += covered

    tally((project.document(info.id).text for info in project.document_infos()), _WIDTH_CHARS)
    tally((p.read_text(encoding="utf-8")
           for p in sorted((paths.resources_dir() / "sample" / "notes").glob("*.txt"))),
          _WIDTH_MIN_CHARS)
    read, hit = tried
    if read and hit / read > MAX_HIT_SHARE:
        raise UserError(f"{entry['name']}: its pattern hits {hit / read:.0%} of the text of "
                        f"the notes it was tried on, ordinary words too: make it match the "
                        f"identifier alone")


def without_label(entries: Iterable[dict], labels: Iterable[str]) -> list[str]:
    """Sentences for the site rules of ``entries`` whose kind takes no label
    in the project (their hits are left to the leak scan, never replaced)."""
    labels = list(labels)
    return [f"{e['name']}: {no_label(e['kind'])}" for e in entries
            if kind_label(e["kind"], labels) is None]


def no_label(kind: str) -> str:
    """What a site rule of ``kind`` does where the kind takes no label."""
    return (f"a {kind} takes no label in this project, so its hits are not replaced, only "
            f"suspected by the leak scan")


def kind_label(kind: str, labels: Iterable[str]) -> str | None:
    """The project label a rule's ``kind`` takes (`app.lists.labels`); for
    a veto's kind ("name", "place", "date", "phone") the label of its first
    category; None when the labels have none (the rule's hits are left to
    the leak scan)."""
    from app.lists.labels import label_map
    mapping, _ = label_map(labels)
    first = {"name": "patient_name", "place": "place"}.get(kind, kind)
    return mapping.get(first)


def rule_lines(rules: RuleSet, labels: Iterable[str]) -> list[str]:
    """One line a rule: name, on/off, what it does, the label it gives."""
    labels = list(labels)
    out = []
    for r in rules.rules:
        label = kind_label(r.kind, labels) or "no label: left to the leak scan"
        reads = f"  words: {', '.join(r.lists)}" if r.lists else ""
        out.append(f"{r.name:28} {'on ' if r.enabled else 'off'} {r.action} {r.kind} "
                   f"-> {label}  [{r.step}{', site' if r.site else ''}]{reads}")
    return out


def rule_detail(rule: Rule, labels: Iterable[str]) -> list[str]:
    """Every field of ``rule``, one a line, with the project label it gives."""
    label = kind_label(rule.kind, labels)
    lines = [f"name:     {rule.name} ({'on' if rule.enabled else 'off'}"
             f"{', added by this project' if rule.site else ', shipped'})",
             f"action:   {rule.action} {rule.kind} -> "
             f"{label or 'no label in this project: left to the leak scan'}",
             f"step:     {rule.step}"]
    if rule.function:
        lines.append(f"code:     {rule.function}")
    lines += [f"pattern:  {p.name + ': ' if p.name else ''}{p.regex}"
              + (f"  ({p.about})" if p.about else "") for p in rule.patterns]
    fragments = sorted({f for p in rule.patterns for f in _FRAGMENT_RE.findall(p.regex)
                        if f in _fragments()})
    lines += [f"fragment: {{{f}}} = {fragment(f)}" for f in fragments]
    if rule.lists:
        from app.rules.lexicon import words
        lines += [f"words:    {name}: {', '.join(sorted(words(name)))}" for name in rule.lists]
    if rule.context:
        lines.append(f"context:  {', '.join(rule.context)} (within {CONTEXT_CHARS} characters "
                     f"or {CONTEXT_WORDS} words before a hit)")
    if rule.unless:
        lines.append(f"unless:   {', '.join(rule.unless)} (a hit that is one of their words is "
                     f"dropped)")
    lines += [f"example:  {rule.example}", f"evidence: {rule.evidence}"]
    return lines
