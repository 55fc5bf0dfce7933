"""`deid redact` and the GUI preview: de-identify notes with a project's model.

The per-project secret (surrogate choices, pseudonymous file names) and
the identifier -> surrogate mapping stay inside the project file; neither
is ever written to the export.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from app import __version__
from app.core.parallel import resolve_workers
from app.core.progress import CancelToken, ProgressFn, no_progress
from app.core.spans import Span
from app.errors import UserError
from app.services.prediction import (SCAN_THRESHOLD, STARTER_SCAN_THRESHOLD,  # noqa: F401
                                     AnnotationSpans, ModelScanFactory, RuleLeakScan,
                                     model_scan_factory, resolve, rule_leak_scan,
                                     rules_mapping_digest, rules_predictor)
from app.services.settings import (DATE_ORDER_SAMPLE, LOCALES, POLICY_KEY,  # noqa: F401
                                   SECRET_KEY, default_locale, infer_date_order, locale_policy,
                                   notes_month_first, preview_secret, project_policy,
                                   project_secret)
from app.core.words import count

def _scan_identity(project, policy, model_scan) -> str:
    """What decides the leak scan (part of the resume fingerprint): a note
    kept from an earlier run carries that run's suspicions."""
    model = "none" if model_scan is None else f"doubts >= {model_scan.threshold}"
    return (f"rules {rules_mapping_digest(project)}, model {model}, "
            f"shapes {scan_shapes(project, policy)}")


def rules_record(project) -> dict | None:
    """The report's record of the rules after the models (English notes
    only, where they run): `app.rules.registry.report_record`."""
    from app.rules.registry import report_record
    return report_record(project) if project.language == "en" else None


def label_coverage(project, policy=None) -> list[dict]:
    """The HIPAA Safe Harbor items and the project's labels that protect them
    (``app.deid.coverage``), for the audit report."""
    from dataclasses import asdict
    from app.deid.coverage import coverage
    policy = policy or project_policy(project)
    return [asdict(r) for r in coverage([label.name for label in project.labels()],
                                        policy.kind_for)]


def document_patient_key(info) -> str:
    """The surrogate key of a project document: its patient's, shared with
    folder notes of that patient (``--patient-regex``); else the document's own."""
    from app.deid import patient_key
    return patient_key(info.patient_id) if info.patient_id else f"doc:{info.id}"


#: Kinds whose originals the policy keeps or reduces (ages up to the cap, sex):
#: not searched as leaks.
_KEPT_KINDS = ("keep", "sex", "age")


#: A word written in clear in at least this share of a project's annotated
#: notes (and in 3 of them) is an ordinary word of the project ("País" in
#: every MEDDOCAN header), not searched alone as a name.
CORPUS_COMMON_SHARE = 0.02


def corpus_words(project, exclude: frozenset[int] = frozenset(), *, infos=None, spans=None
                 ) -> tuple[frozenset[str], dict[str, str]]:
    """What the project's annotated notes (status done or reviewed, or holding
    an accepted span; not ``exclude``) teach about words, folded:

    * ``common``: written outside every span in many notes (``CORPUS_COMMON_SHARE``,
      and 3 notes): the corpus's own ordinary words, in any language ("País"
      in every MEDDOCAN header); a name people annotated is inside a span
      there, so it never counts;
    * ``labelled``: annotated at least 3 times and more often than written in
      clear ("esposa" under MEDDOCAN's relatives), with the label they take
      most: the scan looks for those in any case ("martinez" of an e-mail
      address). A word of a name counts so; any other only when it is a
      span of its own at least half those times: "ext" of "(03) 4919 4883
      EXT 8634" or "VIC" of an address is a part of an identifier, not one
      (an export's scan suspected every "EXT WARM" of ICU notes as a known
      phone number).

    ``infos`` and ``spans`` (``document_infos()`` and ``spans_by_document()``)
    when the caller has read them already.
    """
    from collections import Counter, defaultdict
    from app.deid.rescan import words_by_side
    policy = project_policy(project)
    infos = project.document_infos() if infos is None else infos
    spans = project.spans_by_document() if spans is None else spans
    clear_docs: Counter = Counter()
    clear_all: Counter = Counter()
    inside: dict[str, Counter] = defaultdict(Counter)
    alone: Counter = Counter()
    n = 0
    for info in infos:
        if info.id in exclude:
            continue
        records = [r for r in spans.get(info.id, ()) if r.status != "rejected"]
        if info.status not in ("done", "reviewed") and not any(
                r.status == "accepted" for r in records):
            continue
        n += 1
        text = project.document(info.id).text
        clear, _ = words_by_side(text, [(r.start, r.end) for r in records])
        clear_docs.update(set(clear))
        clear_all.update(clear)
        # Ages and sex the policy keeps are no identifiers to look for ("años").
        for r in records:
            if policy.kind_for(r.label) not in _KEPT_KINDS:
                words = words_by_side(text[r.start:r.end], [(0, r.end - r.start)])[1]
                for w in words:
                    inside[w][r.label] += 1
                if len(words) == 1:
                    alone[words[0]] += 1
    floor = max(3, CORPUS_COMMON_SHARE * n)
    labelled_words = {w: labels.most_common(1)[0][0] for w, labels in inside.items()
                      if sum(labels.values()) >= 3 and sum(labels.values()) > clear_all[w]
                      and (2 * alone[w] >= sum(labels.values())
                           or policy.kind_for(labels.most_common(1)[0][0]) == "name")
                      and w.isalpha() and len(w) >= 3}
    return (frozenset(w for w, c in clear_docs.items() if c >= floor) - set(labelled_words),
            labelled_words)


def project_known_identifiers(project, policy=None, *, exclude: frozenset = frozenset()):
    """Every identifier the project knows, by patient: the spans people
    accepted in every document but those of ``exclude`` (ids) and the
    hospital lists (``listed_identifiers``). In memory only.

    A model's suggestions are left out: a wrong guess ("10-14" of "cvp
    10-14" taken for a date) would otherwise be suspected wherever it is
    written and refuse surrogates that name nobody. Every span is read in
    one query: Preview works this out again after each edit, on the GUI
    thread (one query a note took half a second for 8,000 notes)."""
    from app.deid import patient_key
    from app.deid.folder import common_words
    from app.deid.rescan import KnownIdentifiers

    policy = policy or project_policy(project)
    infos, spans = project.document_infos(), project.spans_by_document()
    common, labelled = corpus_words(project, infos=infos, spans=spans, exclude=exclude)
    known = KnownIdentifiers(common_words() | common, labelled=labelled)
    for info in infos:
        records = [r for r in spans.get(info.id, ()) if r.status == "accepted"]
        if not records or info.id in exclude:
            continue
        text = project.document(info.id).text
        key = document_patient_key(info)
        for r in records:
            kind = policy.kind_for(r.label)
            if kind not in _KEPT_KINDS:
                known.add(key, r.label, text[r.start:r.end], name=kind == "name",
                          own_only=kind == "date")
    for patient_id, label, text, is_name in listed_identifiers(project):
        known.add(patient_key(patient_id) if patient_id else None, label, text, name=is_name)
    return known


def scan_shapes(project, policy) -> tuple[str, ...]:
    """The identifier shapes the leak scan searches: dates when a label is a
    date, long numbers when one is a phone or an id, anything around an @
    when one is an e-mail.

    A date-of-birth label (``DOB``) alone makes no date a suspicion: with the
    paper's five labels an admission date is no identifier, and the bundled
    sample's export listed 72 such dates among 97 suspicions, every one of
    them a date the project leaves in clear, beside one real leak. A birth
    date left in clear is still suspected by its cue ("DOB", "born"), by the
    rules' scan and the model's."""
    kinds = {policy.kind_for(label.name) for label in project.labels()
             if label.name.upper() != "DOB"}
    return tuple(k for k, wanted in (("date", {"date"}), ("number", {"phone", "id", "contact"}),
                                     ("email", {"email", "contact"}))
                 if kinds & wanted)


DISMISSED_KEY = "leak_dismissed"


def dismissed_suspicions(project) -> frozenset[str]:
    """Ids of the suspicions people judged not a leak."""
    return frozenset(d["id"] for d in project.get_setting(DISMISSED_KEY) or [])


def dismiss_suspicions(project, ids, actor: str | None = None, *, listed_in=None) -> int:
    """Record that the suspicions ``ids`` are not leaks (who and when, no text);
    the next export no longer reports them. Returns how many were new.

    ``listed_in``: the output folder whose earlier run listed them (``deid
    redact/export --dismiss``): an id no suspicion there has (a typo, an id
    of another folder) is refused with ``UserError`` rather than kept
    silently while the suspicion it was meant for stays."""
    import datetime as dt
    from app.deid.folder import suspicion_ids
    if listed_in is not None and ids:
        listed = suspicion_ids(Path(listed_in))
        unknown = [i for i in dict.fromkeys(ids) if i not in listed]
        if unknown:
            raise UserError(f"--dismiss: {count(len(unknown), 'id')} {'is' if len(unknown) == 1 else 'are'} no suspicion an earlier run "
                            f"listed in {listed_in} (first: {unknown[0]}); copy them from its "
                            f"report")
    stored = list(project.get_setting(DISMISSED_KEY) or [])
    known = {d["id"] for d in stored}
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    new = [{"id": i, "by": actor or "", "at": now} for i in dict.fromkeys(ids) if i not in known]
    if new:
        project.set_setting(DISMISSED_KEY, stored + new)
        project.log("suspicions_dismissed", {"count": len(new)}, actor=actor)
    return len(new)


def listed_identifiers(project):
    """The hospital lists of the project as ``(patient_id or None, label,
    text, is_name)``: a patient's listed names and numbers, and lists that
    belong to no patient (clinicians, wards, places). Empty until the project
    holds lists (``app.services.lists.listed_identifiers``, same shape)."""
    try:
        from app.services import lists
    except ImportError:
        return []
    fn = getattr(lists, "listed_identifiers", None)
    return list(fn(project)) if callable(fn) else []


def lists_digest(project) -> str:
    """A digest of the hospital lists (part of the resume fingerprint)."""
    import hashlib
    rows = sorted(map(list, listed_identifiers(project)), key=str)
    return hashlib.sha256(json.dumps(rows, default=str).encode()).hexdigest()[:16] if rows else ""


def redact_corpus(project, in_dir, out_dir, *, strategy: str | None = None,
                  report_path: str | None = None, workers: int | None = None,
                  cluster: str | None = None, naming: str = "same",
                  patient_regex: str | None = None, strict: bool = False, rules_only: bool = False,
                  use_annotations: bool = False, batch: int | None = None,
                  scan_threshold: float | None = None, force: bool = False,
                  progress: ProgressFn = no_progress, cancel: CancelToken | None = None):
    """Redact every note under ``in_dir`` into ``out_dir``; write the audit report.

    ``strategy`` overrides every label's strategy; ``None`` applies the
    project's policy (the per-label strategies set in the preview).
    ``workers`` (default every core) or ``cluster`` (a Dask scheduler
    address or ``local:N``): where the models run, ``batch`` notes a task
    (``redact_notes``).
    """
    from app.deid import build_report, redact_folder, write_report
    from app.services.export_reports import record_report
    from app.services.settings import compile_patient_regex

    src, out = Path(in_dir), Path(out_dir)
    if not src.is_dir():
        raise UserError(f"not a folder: {src}")
    if out.resolve() == src.resolve() or src.resolve() in out.resolve().parents:
        raise UserError("the output folder must not be the input folder or inside it")
    if out.exists() and not out.is_dir():
        raise UserError(f"the output path is a file, not a folder: {out}")
    report_files = report_paths(report_path)
    compile_patient_regex(patient_regex)
    workers = resolve_workers(workers)
    policy, date_order_source = infer_date_order(project, project_policy(project, strategy), src)
    secret = project_secret(project)
    annotations = AnnotationSpans.from_folder(src) if use_annotations else None
    spec = resolve(project, rules_only=rules_only, annotations=annotations, untrained="error")
    model_scan = model_scan_factory(spec, scan_threshold)
    factory = model_scan.predictor() if model_scan is not None else spec
    producer = {"model": spec.identity,
                "scan": _scan_identity(project, policy, model_scan),
                "lists": lists_digest(project)}
    project.checkpoint()                 # workers open the file read-only
    t0 = time.perf_counter()
    summary = redact_folder(src, out, factory, policy, secret=secret, memory_path_or_factory=project,
                            workers=workers, cluster=cluster, naming=naming,
                            patient_regex=patient_regex,
                            progress=progress, cancel=cancel, rules_fn=rule_leak_scan(project),
                            strict=strict, producer=producer,
                            known=project_known_identifiers(project, policy),
                            model_scan=model_scan, dismissed=dismissed_suspicions(project),
                            shapes=scan_shapes(project, policy), batch=batch, force=force)
    seconds = time.perf_counter() - t0
    model_info, evaluation = spec.report(project)
    date_order = policy.date_order or ("dmy" if policy.day_first else "mdy")
    report_data = build_report(summary, model_info, evaluation, policy,
                               {"workers": summary.workers, "cluster": bool(cluster),
                                "naming": naming, "strict": strict,
                                "rules_only": rules_only, "use_annotations": use_annotations,
                                "date_order": f"{date_order} ({date_order_source})"},
                               {"total_s": round(seconds, 3)}, __version__)
    report_data["coverage"] = label_coverage(project, policy)
    report_data["made_by_words"] = maker_words(project, report_data["made_by"])
    report_data["rules"] = rules_record(project)
    project.log("redact", {"notes": len(summary.notes), "strategy": policy.default,
                           "naming": naming, "workers": summary.workers,
                           "redone": sum(summary.redone().values())})
    if report_files is not None:
        try:
            write_report(report_data, *report_files)
        except OSError as exc:
            raise UserError(f"the notes are redacted in {out}, but the report could not be "
                            f"written to {report_files[0]} "
                            f"({exc.strerror or type(exc).__name__}); run again with another "
                            f"--report: finished notes are kept") from None
        record_report(project, out, report_files[0])
    return summary, report_data


def maker_words(project, made_by: dict[str, int]) -> dict[str, str]:
    """Each name a report counts replacements under (``Span.origin``: a
    model, a rule, the lists, a person) in the words a privacy officer reads
    (`app.services.choice.made_by`); the report keeps the names too."""
    from app.services.choice import made_by as words_of, model_namer
    words = model_namer(project)
    return {origin: words_of(origin, words) or origin for origin in made_by}


def report_paths(report_path: str | None) -> tuple[Path, Path] | None:
    """The report's .json and .html paths, their folder made now: a bad
    --report is refused before any note is redacted, not after."""
    if not report_path:
        return None
    rp = Path(report_path)
    if report_path.endswith(("/", os.sep)) or (
            rp.is_dir() and rp.suffix.lower() not in (".json", ".html")):
        rp = rp / "deid-report"          # a folder named: the report goes in it, not beside it
    paths = rp.with_suffix(".json"), rp.with_suffix(".html")
    for p in paths:
        if p.is_dir():
            raise UserError(f"--report {report_path}: {p} is a folder")
    try:
        rp.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--report {report_path}: cannot create its folder "
                        f"({exc.strerror or type(exc).__name__})") from None
    return paths


def document_spans(project, doc_id: int, predicted: list[Span] | None = None) -> list[Span]:
    """The spans an export replaces in a project document.

    A person's word wins: accepted spans are always replaced, rejected ones
    never, except over a hit of the hospital's lists (listed identifiers are
    always replaced: the lists are the hospital's own word, and a rejected
    suggestion is more often a slip than a listed name that is no name);
    the prediction (model or rules) fills the rest, less what it overlaps of
    the accepted spans. Without a prediction: the accepted and the
    suggested spans.
    """
    from app.deid.folder import ANNOTATED
    accepted = [replace(s, origin=ANNOTATED) for s in project.gold_spans(doc_id)]
    records = project.span_records(doc_id)
    if predicted is None:
        extra = [r.span for r in records if r.status == "suggested"]
    else:
        rejected = {r.span.key for r in records if r.status == "rejected"}
        listed = _listed_spans(project, doc_id) if rejected else []
        extra = [s for s in predicted
                 if (s.key not in rejected or any(s.overlaps(h) for h in listed))
                 and not any(s.overlaps(a) for a in accepted)]
    return sorted(accepted + extra, key=lambda s: (s.start, s.end, s.label))


def _listed_spans(project, doc_id: int) -> list[Span]:
    """The hits of the project's hospital lists in a document (none without lists)."""
    from app.lists.floor import floor_spans
    from app.services.lists import project_matcher

    floor, labels = project_matcher(project)
    if floor is None or floor.lists is None:
        return []
    doc = project.document(doc_id)
    return floor_spans(floor.lists.find(doc.text, doc.patient_id), labels)


def _decisions_digest(project, doc_id: int) -> str:
    """Changes when a person accepts, rejects or edits a span of the document."""
    import hashlib
    rows = sorted((r.start, r.end, r.label, r.status) for r in project.span_records(doc_id)
                  if r.status != "suggested")
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]


def _safe_stem(name: str) -> str:
    import re
    stem = name[:-4] if name.lower().endswith(".txt") else name
    return re.sub(r"[^\w.\-]+", "_", stem).strip("._") or "note"


def project_note_sources(project, infos) -> list:
    """``NoteSource`` of project documents, read straight from the store.

    The output name is the document's name made safe for every file system
    (``-<id>`` added when two documents share one); the patient travels as
    the surrogate key, never in a file name; the document's decisions (what
    a person accepted or rejected) are part of its version, so an export
    redoes a document whose annotations changed.
    """
    from app.deid import NoteSource
    from app.deid.folder import span_rows, spans_of
    sources, used = [], set()
    for info in infos:
        rel = f"{_safe_stem(info.name)}.txt"
        if rel.casefold() in used:
            rel = f"{_safe_stem(info.name)}-{info.id}.txt"
        used.add(rel.casefold())
        doc_id = info.id
        sources.append(NoteSource(
            rel, document_patient_key(info), lambda d=doc_id: project.document(d).text,
            adjust=lambda spans, d=doc_id: span_rows(document_spans(project, d, spans_of(spans))),
            version=_decisions_digest(project, doc_id)))
    return sources


def redact_project(project, out_dir, *, doc_ids: list[int] | None = None,
                   strategy: str | None = None, report_path: str | None = None,
                   naming: str = "same", strict: bool = False, rules_only: bool = False,
                   spans_format: str = "jsonl", workers: int | None = None,
                   scan_threshold: float | None = None, force: bool = False,
                   progress: ProgressFn = no_progress, cancel: CancelToken | None = None):
    """De-identify project documents into ``out_dir``, straight from the store.

    The one redaction path of project documents: the export wizard, ``deid
    export --format redacted`` and the preview (``preview_document``) share
    its spans (``document_spans``), patient keys, policy, known identifiers
    and surrogate memory, so the preview shows byte for byte what is
    exported. ``doc_ids``: the documents (default all, in id order).
    Returns ``(RedactionSummary, report)``; writes the report when
    ``report_path`` is given.
    """
    from app.deid import build_report, redact_notes, write_report
    from app.services.export_reports import record_report

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UserError(f"the output path is a file, not a folder: {out}")
    report_files = report_paths(report_path)
    workers = resolve_workers(workers)
    infos = project.document_infos()
    if doc_ids is not None:
        wanted = set(doc_ids)
        infos = [i for i in infos if i.id in wanted]
    if not infos:
        raise UserError("no documents to export")
    policy = project_policy(project, strategy)
    spec = resolve(project, rules_only=rules_only, untrained="error")
    model_scan = model_scan_factory(spec, scan_threshold)
    factory = model_scan.predictor() if model_scan is not None else spec
    producer = {"model": spec.identity,
                "scan": _scan_identity(project, policy, model_scan),
                "lists": lists_digest(project)}
    project.checkpoint()                 # workers open the file read-only
    t0 = time.perf_counter()
    summary = redact_notes(project_note_sources(project, infos), out, factory, policy,
                           secret=project_secret(project), memory_path_or_factory=project,
                           workers=workers, naming=naming, progress=progress, cancel=cancel,
                           spans_format=spans_format, rules_fn=rule_leak_scan(project),
                           strict=strict, producer=producer,
                           known=project_known_identifiers(project, policy),
                           model_scan=model_scan, dismissed=dismissed_suspicions(project),
                           shapes=scan_shapes(project, policy), force=force)
    seconds = time.perf_counter() - t0
    model_info, evaluation = spec.report(project)
    report_data = build_report(summary, model_info, evaluation, policy,
                               {"documents": len(infos), "naming": naming, "strict": strict,
                                "rules_only": rules_only, "source": "project documents"},
                               {"total_s": round(seconds, 3)}, __version__)
    report_data["coverage"] = label_coverage(project, policy)
    report_data["made_by_words"] = maker_words(project, report_data["made_by"])
    report_data["rules"] = rules_record(project)
    project.log("export_redacted", {"notes": len(summary.notes), "strategy": policy.default,
                                    "naming": naming, "redone": sum(summary.redone().values())})
    if report_files is not None:
        write_report(report_data, *report_files)
        record_report(project, out, report_files[0])
    return summary, report_data


class _PreviewMemory:
    """The project's surrogate memory, read; what the preview draws stays here."""

    def __init__(self, project) -> None:
        from app.deid.memory import as_memory
        self._base = as_memory(project)
        self._local: dict[tuple[str, str, str], str] = {}

    def get(self, patient_key: str, label: str, original: str) -> str | None:
        hit = self._local.get((patient_key, label, original))
        return hit if hit is not None else self._base.get(patient_key, label, original)

    def put(self, patient_key: str, label: str, original: str, surrogate: str) -> None:
        self._local[(patient_key, label, original)] = surrogate


_KNOWN_CACHE: dict[int, tuple] = {}


def _known_for_preview(project, policy):
    """``project_known_identifiers``, kept while the project's spans stay the same."""
    stamp = (project.count_documents(), tuple(sorted(project.span_counts().items())),
             json.dumps(policy.to_dict(), sort_keys=True))
    cached = _KNOWN_CACHE.get(id(project))
    if cached is None or cached[0] != stamp:
        cached = (stamp, project_known_identifiers(project, policy))
        _KNOWN_CACHE.clear()
        _KNOWN_CACHE[id(project)] = cached
    return cached[1]


def preview_document(project, doc_id: int, *, policy=None, spans: list[Span] | None = None,
                     predict=None, earlier: Mapping[int, list[Span]] | None = None):
    """Redact one project document as an export of the project writes it.

    Same policy, patient key, known identifiers and surrogate memory as
    ``redact_project`` (the memory is read, never written), and the
    patient's documents before this one (in export order) are redacted
    first, unseen, so that collision re-draws agree with the export.

    ``spans``: this document's spans (default ``document_spans`` with
    ``predict``); ``predict(text) -> list[Span]``: the model or rules that
    an export would run, for the patient's earlier documents, or their
    spans so predicted already, ``earlier`` (by document id; without
    either their accepted and suggested spans are used). Returns
    ``app.deid.RedactionResult`` (output text + aligned span map).
    """
    from app.deid import Redactor

    # The note and its patient's earlier notes only: a preview reads no list
    # of the whole project (it did twice, each time a note was shown).
    doc = project.document(doc_id)
    policy = policy or project_policy(project)
    key = document_patient_key(doc)
    redactor = Redactor(policy, secret=preview_secret(project), memory=_PreviewMemory(project),
                        known=_known_for_preview(project, policy))
    if doc.patient_id:
        for other in project.document_infos(patient_id=doc.patient_id):
            if other.id >= doc_id:
                break
            text = project.document(other.id).text
            found = (earlier or {}).get(other.id)
            if found is None and predict is not None:
                found = predict(text)
            redactor.redact(text, document_spans(project, other.id, found), patient_key=key)
    text = doc.text
    if spans is None:
        spans = document_spans(project, doc_id, predict(text) if predict else None)
    return redactor.redact(text, spans, patient_key=key)
