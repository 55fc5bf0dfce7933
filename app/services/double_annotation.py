"""Double annotation of a project's notes (no Qt): notes assigned to two
annotators who label them blind, their agreement, and the adjudicated gold.

The Agreement and Adjudicate views only show what these return; the
measures themselves are :mod:`app.services.agreement`'s. Everything written
goes to the audit log as counts and ids, never text.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from app.core.spans import Span
from app.core.words import count
from app.services.agreement import Agreement, agreement


def assign_notes(project, doc_ids: list[int], annotators: list[str],
                 actor: str | None = None) -> None:
    """Assign documents to annotators: two or more make them annotated
    blind, each annotator seeing only their own spans."""
    with project.transaction():
        for doc_id in doc_ids:
            for name in annotators:
                project.assign(doc_id, name)
        project.log("assigned", {"documents": len(doc_ids), "annotators": list(annotators)},
                    actor=actor)


def annotator_spans(project, doc_id: int, annotator: str) -> list[Span]:
    """An annotator's accepted spans of a document."""
    return [r.span for r in project.span_records(doc_id, annotator=annotator, status="accepted")]


def shared_documents(project, a: str, b: str) -> list[int]:
    """Documents assigned to both annotators, in id order."""
    return [info.id for info in project.document_infos()
            if {a, b} <= set(project.assignments(info.id))]


@dataclass
class ProjectAgreement:
    """Agreement of two annotators over the documents assigned to both."""

    overall: Agreement
    per_document: dict[int, Agreement]
    #: Document id -> (text, A's spans, B's spans), in id order.
    items: dict[int, tuple[str, list[Span], list[Span]]]
    #: The shared documents one of the two has not marked done yet (their
    #: figures may still change).
    unfinished: list[int] = field(default_factory=list)


def project_agreement(project, a: str, b: str) -> ProjectAgreement:
    """Strict F1, kappas and disagreements of ``a`` and ``b`` (see
    :func:`app.services.agreement.agreement`), pooled and per document."""
    shared = shared_documents(project, a, b)
    items = {doc_id: (project.document(doc_id).text, annotator_spans(project, doc_id, a),
                      annotator_spans(project, doc_id, b))
             for doc_id in shared}
    unfinished = [doc_id for doc_id in shared
                  if not all(project.status_seen_by(doc_id, who) in FINISHED for who in (a, b))]
    return ProjectAgreement(agreement(list(items.values())),
                            {doc_id: agreement([item]) for doc_id, item in items.items()},
                            items, unfinished)


#: The statuses of a note its annotator has finished.
FINISHED = ("done", "reviewed")


def save_adjudication(project, doc_id: int, gold: list[Span], *, annotators: tuple[str, str],
                      agreed: int, choices: list[str], actor: str | None = None) -> None:
    """Store the adjudicated ``gold`` of a document and mark it reviewed.

    ``choices``: per disagreement, ``"A"``, ``"B"`` or ``"none"``; logged as
    counts with the annotators and the adjudicator (``actor``).
    """
    with project.transaction():
        project.adjudicate(doc_id, gold)
        project.set_document_fields(doc_id, status="reviewed")
        project.log("adjudicated", {
            "document": doc_id, "annotators": list(annotators), "agreed": agreed,
            "disagreements": len(choices), "took_a": choices.count("A"),
            "took_b": choices.count("B"), "neither": choices.count("none"), "gold": len(gold)},
            actor=actor)


def unadjudicated_sentence(project) -> str | None:
    """A sentence for training when notes annotated by two or more people
    are done but not adjudicated: training reads the union of their layers
    (`Project.gold_spans`), where they disagree too (one span read as a
    PERSON by one and an ADDRESS by the other); None when there are none."""
    n = sum(len(project.assignments(info.id)) >= 2
            for info in project.document_infos(status="done"))
    if not n:
        return None
    return (f"{count(n, 'note')} annotated by two people {'is' if n == 1 else 'are'} not "
            "adjudicated: training reads both annotators' labels together, where they "
            "disagree too (settle them in Adjudicate)")
