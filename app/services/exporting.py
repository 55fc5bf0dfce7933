"""Export a project's documents and gold annotations to a standard format."""
from __future__ import annotations

from dataclasses import dataclass
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
                   include_suggestions: bool = False, progress: ProgressFn = no_progress
                   ) -> ExportSummary:
    from app.formats import FORMATS, write_documents
    from app.formats.base import NameAllocator, sweep_temp_files

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

    out.mkdir(parents=True, exist_ok=True)
    sweep_temp_files(out)              # what a killed export left there
    write_documents(counted(), out, fmt)
    if not project.readonly:
        project.log("export", {"format": fmt, "split": split, "documents": counts["docs"]})
    return ExportSummary(counts["docs"], counts["spans"], str(out), counts["renamed"])
