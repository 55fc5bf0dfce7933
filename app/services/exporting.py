"""Export a project's documents: with their gold annotations in a standard
format (:func:`export_project`), or de-identified with the project's policy
and an audit report (:func:`export_documents`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from app.core.progress import Progress, ProgressFn, no_progress
from app.core.spans import Document, Span
from app.errors import UserError


@dataclass
class ExportSummary:
    documents: int
    spans: int
    out_dir: str
    renamed: int = 0      # documents whose name no file system could take as it was


def project_documents(project, *, split: str | None = None, include_suggestions: bool = False,
                      gold_only: bool = False) -> Iterator[Document]:
    """Stream the project's documents with their gold (accepted) spans."""
    for info in project.document_infos(split=split):
        rec = project.document(info.id)
        spans = project.gold_spans(info.id)
        if include_suggestions:
            spans += [Span(r.start, r.end, r.label, r.confidence)
                      for r in project.span_records(info.id, status="suggested")]
        if gold_only and not spans and rec.status not in ("done", "reviewed"):
            continue
        yield Document(name=rec.name, text=rec.text, spans=spans, patient_id=rec.patient_id,
                       split=rec.split, meta=dict(rec.meta or {}))


def export_project(project, out_dir: str | Path, fmt: str, *, split: str | None = None,
                   include_suggestions: bool = False, progress: ProgressFn = no_progress,
                   force: bool = False) -> ExportSummary:
    """Write the project's documents (of ``split``) and their gold spans
    (with the suggestions if asked) under ``out_dir`` in ``fmt``.

    A file there that this tool did not write and the export would replace
    refuses the export (``UserError``, nothing written) unless ``force``.
    """
    from app.formats import FORMATS, write_documents
    from app.formats.base import NameAllocator, sweep_temp_files
    from app.formats.registry import written_paths
    from app.formats.written import claim_paths

    if fmt not in FORMATS or fmt == "txt":
        raise UserError(f"unknown export format {fmt!r}")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UserError(f"not a folder: {out}")
    project.checkpoint()
    total = project.count_documents(split=split) or 1
    counts = {"docs": 0, "spans": 0, "renamed": 0}
    # Projects from before names were made safe on import may hold two
    # "note1" or a "a:b": such a document is written under a usable name
    # rather than the whole export refused.
    names = NameAllocator()

    def counted() -> Iterator[Document]:
        for doc in project_documents(project, split=split, include_suggestions=include_suggestions):
            safe = names.allocate(doc.name)
            if safe != doc.name:
                counts["renamed"] += 1
                doc.name = safe
            counts["docs"] += 1
            counts["spans"] += len(doc.spans)
            progress(Progress(counts["docs"] / total, "export"))
            yield doc

    planned = NameAllocator()
    to_write = written_paths(fmt, [planned.allocate(i.name)
                                   for i in project.document_infos(split=split)])
    claim_paths(out, to_write, force=force)
    out.mkdir(parents=True, exist_ok=True)
    sweep_temp_files(out)              # what a killed export left there
    write_documents(counted(), out, fmt)
    if not project.readonly:
        project.log("export", {"format": fmt, "split": split, "documents": counts["docs"]})
    return ExportSummary(counts["docs"], counts["spans"], str(out), counts["renamed"])


# ------------------------------------------------- de-identified documents
@dataclass
class ExportRequest:
    """What to export and how."""

    out_dir: Path
    scope: str = "all"                 # all | split | status
    value: str | None = None           # the split (or "none") / the status
    naming: str = "same"
    strategy: str | None = None        # None: the project's policy (per-label strategies)
    rules_only: bool = False
    strict: bool = False
    #: The audit report's path without suffix (default: ``deid-report`` beside the notes).
    report: str | None = None
    scan_threshold: float | None = None  # the leak scan's (None: its default)
    #: Replace files in the folder that this tool did not write.
    force: bool = False


@dataclass
class ExportOutcome:
    """A finished export: where everything is and what the re-scan found."""

    out_dir: Path
    report_html: Path
    report_json: Path
    documents: int
    summary: object                    # app.deid.RedactionSummary
    report: dict = field(default_factory=dict)
    #: Output name -> project document id (to open a suspected note in Preview).
    doc_ids: dict = field(default_factory=dict)

    @property
    def leaks(self) -> int:
        return self.report["totals"]["leaks"]

    def leaky_notes(self) -> list[str]:
        return [n["note"] for n in self.report["per_note"] if n["leaks"]]

    def suspicions(self) -> list[tuple[str, int | None, dict]]:
        """``(note, document id, suspicion)`` for every suspicion, note by note."""
        return [(n["note"], self.doc_ids.get(n["note"]), s)
                for n in self.report["per_note"] for s in n.get("suspicions", [])]


#: The kinds of identifier a suspicion's category may name (the leak scan's
#: shapes, name hints) and the surrogate kinds of the labels they fit.
_CATEGORY_KINDS = {"date": ("date",), "name": ("name",), "number": ("id", "phone", "contact"),
                   "email": ("email", "contact"),
                   "place": ("location", "address", "hospital", "organisation"),
                   "residue": (), "identifier": ()}


def suspicion_label(project, category: str) -> str | None:
    """The project's label a suspicion of ``category`` is flagged with: the
    label itself, the project's label for one of the starter's or the
    rules' ("PERSON" -> NAME, "HOSPITAL" -> LOCATION), or the label of the
    kind a shape names ("date" -> DATE, never a label for dates of birth
    only: most dates are none); ``None`` when nothing fits (a person chooses)."""
    from app.deid.coverage import birth_only
    from app.models.starter_model import RULE_LABELS, label_map
    from app.services.settings import project_policy
    names = [label.name for label in project.labels()]
    by_upper = {n.upper(): n for n in names}
    if category.upper() in by_upper and category not in _CATEGORY_KINDS:
        return by_upper[category.upper()]
    mapped = label_map(names)
    starter = RULE_LABELS.get(category.upper(), category.upper())
    if category not in _CATEGORY_KINDS and starter in mapped:
        return mapped[starter]
    policy = project_policy(project)
    for kind in _CATEGORY_KINDS.get(category, ()):
        label = next((n for n in names if policy.kind_for(n) == kind
                      and not (kind == "date" and birth_only(n))), None)
        if label is not None:
            return label
    return None


def flagged_places(project, doc_id: int, places) -> list[bool]:
    """Whether each suspected leak of a document, ``(start, end)`` of its
    original, is flagged as a missed identifier now: an accepted annotation
    covers it (flagged in Preview or the export summary, or annotated).

    An export always replaces accepted spans
    (:func:`app.services.redaction.document_spans`) and the leak scan
    reports nothing inside a replacement, so a place covered now was
    flagged since that export, and exporting again replaces it.
    """
    accepted = project.gold_spans(doc_id)
    return [any(s.start <= start and end <= s.end for s in accepted) for start, end in places]


def select_documents(project, scope: str = "all", value: str | None = None) -> list:
    """``DocumentInfo`` rows of the export scope, in id order."""
    if scope == "all":
        return project.document_infos()
    if scope == "split":
        if value == "none":
            return [i for i in project.document_infos() if i.split is None]
        return project.document_infos(split=value)
    if scope == "status":
        return project.document_infos(status=value)
    raise UserError(f"unknown document scope {scope!r}")


def names_with_patient_ids(infos) -> int:
    """How many of the documents ``infos`` are named with their patient id
    ("p0004_note_0009" of patient p0004): exported under their own names
    ("same"), the corpus keeps the hospital's key to each patient."""
    return sum(1 for i in infos if i.patient_id and len(i.patient_id) >= 2
               and i.patient_id.casefold() in i.name.casefold())


def export_documents(project, request: ExportRequest, *, progress=None,
                     cancel=None) -> ExportOutcome:
    """Redact the requested project documents into ``request.out_dir`` with
    the project's policy (the export wizard and ``deid export --format
    redacted``).

    The audit report is written beside the notes as ``deid-report.html``
    and ``.json`` unless ``request.report`` says where. Raises
    ``UserError`` when nothing matches, ``Cancelled`` when cancelled
    (finished notes stay and are skipped next time).
    """
    from app.services.auditing import export_document_ids
    from app.services.export_reports import REPORT_STEM
    from app.services.redaction import redact_project
    infos = select_documents(project, request.scope, request.value)
    if not infos:
        raise UserError("no documents match the chosen scope")
    out = Path(request.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report_base = Path(request.report) if request.report else out / REPORT_STEM
    summary, report = redact_project(
        project, out, doc_ids=[i.id for i in infos], strategy=request.strategy,
        report_path=str(report_base), naming=request.naming, strict=request.strict,
        rules_only=request.rules_only, scan_threshold=request.scan_threshold,
        progress=progress or no_progress, cancel=cancel, force=request.force)
    # A note whose name holds an identifier is written under its
    # pseudonymous name whatever the naming (app.deid.folder.name_holds_identifier).
    doc_ids = export_document_ids(project, infos, tuple(dict.fromkeys((request.naming,
                                                                        "pseudonymous"))))
    return ExportOutcome(out, report_base.with_suffix(".html"), report_base.with_suffix(".json"),
                         len(infos), summary, report, doc_ids)
