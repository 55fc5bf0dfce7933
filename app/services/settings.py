r"""A project's settings, in one typed home that the rest reads.

The redaction policy (per-label strategies, the surrogates' locale, the
numeric date order), the per-project secret (surrogate choices,
pseudonymous file names; never written to an export), and the patient
pattern that names each note's patient from its file name. Everything
here reads or writes project settings; nothing imports another service,
so every service can import it.

**The patient pattern** (one rule for `deid import`, `deid annotate`,
`deid redact` and the folder engine, `app.deid.folder`): the pattern is
searched in the note's file name, then in it without its extension, then
in its path relative to the folder (a folder per patient: ``^(P\d+)/``),
then in that without the extension; the first match names the patient: the
group named ``patient``, else group 1, else the whole match
(`app.deid.folder.patient_in_name`).
"""
from __future__ import annotations

import secrets
import weakref
from pathlib import Path

from app.core.bounded import BoundedPattern
from app.errors import UserError

SECRET_KEY = "deid_secret"
POLICY_KEY = "deid_policy"


def project_secret(project) -> str:
    """The project's secret, created on first use."""
    value = project.get_setting(SECRET_KEY)
    if not value:
        value = secrets.token_hex(32)
        project.set_setting(SECRET_KEY, value)
    return value


#: Secrets of the projects open read-only that hold none yet, while they are open.
_SESSION_SECRETS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def preview_secret(project) -> str:
    """The secret Preview draws surrogates with: the project's; a project
    open read-only that holds none yet (nothing exported from it) cannot
    store one, so Preview draws with one of its own, for as long as the
    project is open (Preview raised an error and stayed blank; an export
    creates the project's, which then decides its surrogates)."""
    if project.get_setting(SECRET_KEY) or not project.readonly:
        return project_secret(project)
    return _SESSION_SECRETS.setdefault(project, secrets.token_hex(32))


def default_locale(project, date_order: str) -> str:
    """The surrogates' locale of a project made without one: Spanish for a
    Spanish project; for an English one, US English when its notes' numeric
    dates read month first (``date_order`` "mdy", inferred from the notes by
    the first export: `infer_date_order`), else Australian English (the
    paper's). Before an export settles the order, or when the notes mix both
    orders too much to settle it, the project's notes that show one order
    decide by majority (``notes_month_first``): US notes got Australian names,
    places and phone shapes, and Preview said "Australian English"."""
    if project.language == "es":
        return "es_ES"
    if date_order:
        return "en_US" if date_order == "mdy" else "en_AU"
    return "en_US" if notes_month_first(project) else "en_AU"


_ORDER_CACHE: dict[int, tuple] = {}


def notes_month_first(project) -> bool:
    """Whether more of the project's notes (the first :data:`DATE_ORDER_SAMPLE`)
    write a numeric date only month first can read than day first. Kept
    while the project holds as many notes: Preview asks after every edit."""
    from itertools import islice

    from app.deid.dates import order_votes
    from app.rules import find_hits
    stamp = project.count_documents()
    cached = _ORDER_CACHE.get(id(project))
    if cached is None or cached[0] != stamp:
        texts = (project.document(info.id).text
                 for info in islice(project.document_infos(), DATE_ORDER_SAMPLE))
        day_first, month_first = order_votes(
            [text[h.start:h.end] for h in find_hits(text) if h.category == "DATE"]
            for text in texts)
        cached = (stamp, month_first > day_first)
        _ORDER_CACHE.clear()
        _ORDER_CACHE[id(project)] = cached
    return cached[1]


def project_policy(project, strategy: str | None = None):
    """The project's stored policy (per-label strategies), with an optional
    default-strategy override from the command line."""
    from app.deid import Policy
    stored = project.get_setting(POLICY_KEY) or {}
    if "locale" not in stored:
        stored = {**stored, "locale": default_locale(project, stored.get("date_order", ""))}
    policy = Policy.from_dict(stored)
    if strategy:
        policy = Policy.from_dict({**policy.to_dict(), "default": strategy, "strategies": {}})
    return policy


# Locales a project can be made with: surrogate pools and the date order.
LOCALES = ("en_AU", "en_GB", "en_US", "es_ES")


def locale_policy(locale: str) -> dict:
    """The project settings of ``locale``: its surrogate pools and numeric date order."""
    from app.deid.policy import day_first_locale
    if locale not in LOCALES:
        raise UserError(f"unknown locale {locale!r} (known: {', '.join(LOCALES)})")
    return {POLICY_KEY: {"locale": locale,
                         "date_order": "dmy" if day_first_locale(locale) else "mdy"}}


# How many notes are read to infer a corpus's date order (enough to see it,
# few enough that a huge folder is not read twice).
DATE_ORDER_SAMPLE = 500


def infer_date_order(project, policy, in_dir: Path):
    """``policy`` with the date order settled, and how it was.

    A project whose policy names no date order (``date_order == ""``: an
    English project made without a locale) reads it off the notes to redact:
    the first :data:`DATE_ORDER_SAMPLE` notes' numeric dates that only one
    order can read. A clear answer is stored as the project's setting (and
    logged), so preview and every later export read dates the same way.
    Returns ``(policy, source)``, ``source`` a short phrase for the report.
    """
    from itertools import islice

    from app.deid import Policy
    from app.deid.dates import corpus_day_first
    from app.formats import ImportedDoc, read_path
    from app.rules import find_hits

    if policy.date_order:
        return policy, "project setting"
    notes = (item.text for item in islice(read_path(in_dir, "txt"), DATE_ORDER_SAMPLE)
             if isinstance(item, ImportedDoc))
    day_first, votes = corpus_day_first(
        [text[h.start:h.end] for h in find_hits(text) if h.category == "DATE"]
        for text in notes)
    if day_first is None:
        return policy, f"locale {policy.locale} (the notes do not show one order)"
    order = "dmy" if day_first else "mdy"
    stored = project.get_setting(POLICY_KEY) or {}
    if not project.readonly and not stored.get("date_order"):
        # The locale stays unstored when the user chose none: it follows the order.
        project.set_setting(POLICY_KEY, {**stored, "date_order": order})
        project.log("date_order_inferred", {"date_order": order, "notes": votes})
    settled = {**policy.to_dict(), "date_order": order}
    if "locale" not in stored:
        settled["locale"] = default_locale(project, order)
    return Policy.from_dict(settled), f"inferred from {votes} notes"


#: Setting: the last ``--patient-regex`` given to an import; `deid annotate`
#: names its notes' patients with it unless told otherwise.
PATIENT_REGEX = "patient_regex"


def patient_id_from(name: str, regex: BoundedPattern | None) -> str | None:
    """Patient id from a note's path relative to its folder (with its
    extension when it has one: `note_path`), by the module's patient-pattern
    rule (`app.deid.folder.patient_in_name`); ``None`` without ``regex``."""
    if regex is None:
        return None
    from app.deid.folder import patient_in_name
    return patient_in_name(regex, name)


def note_path(doc) -> str:
    """An imported note's path relative to the folder read, with the
    extension of its file (``ImportedDoc.name`` has none) when the note is a
    file of its own (not a record of a JSONL file): what the patient pattern
    reads."""
    source = Path(str(doc.source_path or ""))
    if source.suffix and source.stem == doc.name.rsplit("/", 1)[-1]:
        return doc.name + source.suffix
    return doc.name


def guess_patient_regex(names: list[str]) -> str | None:
    """The patient-id pattern a folder's file names suggest, or ``None``:
    the part before the first "_" (else "-") when every name has one, it
    holds a digit, and some names share it while others do not (several
    notes of a patient, several patients: "p001_n001", "p001_n004",
    "p002_n002"). "note_1", "note_2" (one shared prefix) or names without a
    separator suggest none."""
    for sep in "_-":
        heads = []
        for name in names:
            head, found, _ = name.rsplit("/", 1)[-1].partition(sep)
            if not found or not any(c.isdigit() for c in head):
                break
            heads.append(head)
        else:
            if 1 < len(set(heads)) < len(heads):
                return f"^([^{sep}]+){sep}"
    return None


def compile_patient_regex(pattern: str | None) -> BoundedPattern | None:
    """``pattern`` compiled, matched in bounded time (``None`` for none);
    ``UserError`` when it is not a valid pattern."""
    if not pattern:
        return None
    return BoundedPattern(pattern)


def store_locale(project, locale: str, actor: str | None = None) -> None:
    """Store where the notes were written (``"en_US"``...: the surrogates'
    names, places and phone shapes, as ``deid new --locale``) in the
    project's redaction policy, leaving the rest of it as stored. Logged."""
    if locale not in LOCALES:
        raise UserError(f"unknown locale {locale!r} (known: {', '.join(LOCALES)})")
    stored = project.get_setting(POLICY_KEY) or {}
    project.set_setting(POLICY_KEY, {**stored, "locale": locale})
    project.log("policy_changed", {"locale": locale}, actor=actor)


def store_strategies(project, policy, actor: str | None = None, *, whole: bool = False) -> None:
    """Store ``policy``'s strategies (``whole``: the whole policy, date order
    included) as the project's redaction policy: the one exports apply
    (issue 18 item 2: a strategy chosen in Preview was lost unless saved).
    Logged without text."""
    stored = project.get_setting(POLICY_KEY) or {}
    if whole:
        data = policy.to_dict()
        if "locale" not in stored:
            # A locale nobody chose stays unstored: it follows the notes
            # (`default_locale`), as it did before the strategies were saved.
            data.pop("locale", None)
        project.set_setting(POLICY_KEY, data)
    else:
        project.set_setting(POLICY_KEY, {**stored, "default": policy.default,
                                         "strategies": dict(policy.strategies)})
    entry = {"default": policy.default, "strategies": dict(policy.strategies)}
    if whole:
        entry["date_order"] = policy.date_order
    project.log("policy_changed", entry, actor=actor)
