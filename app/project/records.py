"""Plain, immutable rows returned by :class:`app.project.store.Project`."""
from __future__ import annotations

from dataclasses import dataclass

from app.core.spans import Document, Span


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A document without its text: what the document list needs."""

    id: int
    name: str
    sha256: str
    source_path: str | None
    patient_id: str | None
    split: str | None
    status: str
    uncertainty: float | None
    meta: dict
    created_at: str
    updated_at: str


@dataclass(frozen=True, slots=True)
class DocumentRecord(DocumentInfo):
    """A document with its text."""

    text: str

    def as_document(self, spans: list[Span]) -> Document:
        """The core :class:`Document` for this record with the given spans."""
        return Document(self.name, self.text, list(spans), self.patient_id,
                        self.split, dict(self.meta))


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """A stored span with its provenance."""

    id: int
    document_id: int
    start: int
    end: int
    label: str
    source: str
    annotator: str | None
    run_id: int | None
    status: str
    confidence: float | None
    created_at: str
    updated_at: str
    #: What made a suggestion (`Span.origin`: a model's name, a rule, the
    #: hospital lists); None for people's spans and older suggestions.
    origin: str | None = None

    @property
    def span(self) -> Span:
        return Span(self.start, self.end, self.label, self.confidence)


@dataclass(frozen=True, slots=True)
class SpanCounts:
    """Span counts of one document by status (for the document list)."""

    accepted: int = 0
    suggested: int = 0
    rejected: int = 0


@dataclass(frozen=True, slots=True)
class RunRecord:
    id: int
    kind: str
    status: str
    config: dict
    metrics: dict | None
    started_at: str
    finished_at: str | None


@dataclass(frozen=True, slots=True)
class ArtifactRecord:
    """A stored blob; ``packing`` is ``"tar"`` for a directory, else ``"file"``."""

    id: int
    run_id: int | None
    name: str
    kind: str
    packing: str
    meta: dict
    size: int
    sha256: str
    created_at: str


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: int
    at: str
    actor: str | None
    event: str
    detail: dict


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One recorded edit; ``payload`` is the JSON value the editor pushed."""

    id: int
    document_id: int
    annotator: str | None
    seq: int
    action: str
    payload: object
    undone: bool
    created_at: str
