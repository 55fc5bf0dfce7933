"""Preview of one project note as an export writes it, and the corrections
made while reading it (the GUI's Preview; no Qt here).

:func:`predict_note` runs what an export would run on the note (the active
model with its members, or the rules before training); :func:`preview_note`
redacts the note with a policy and says, for every replacement, where it
came from and how sure it is (:class:`SpanInfo`), least sure first.
:class:`CorrectionSession` records a missed identifier or a false hit into
the annotations (undoable like the editor's edits, logged without text);
:func:`store_strategies` makes the strategies shown the ones exports apply.
"""
from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass, field

from app.core.prediction import left_in_clear
from app.core.spans import Span, met_by
from app.lists.floor import LABELLED, LISTED, NAME_COMPLETION, SHAPES
from app.services.editing import AnnotationSession, Edit, state_of
from app.services.redaction import document_spans, preview_document
from app.services.settings import store_locale, store_strategies  # noqa: F401

def effective_spans(project, doc_id: int, mode: str, prediction=None) -> list[Span]:
    """The spans a preview redacts.

    ``annotations`` (or no prediction yet): the accepted spans plus pending
    suggestions. ``model``: what an export writes
    (``app.services.redaction.document_spans``): the accepted spans, a
    flagged miss among them, and the prediction less what a person rejected.
    """
    return document_spans(project, doc_id, None if mode == "annotations" or prediction is None
                          else prediction.spans)


def missed_annotations(project, doc_id: int, predicted: list[Span]) -> list[Span]:
    """Accepted spans with a word no predicted span covers: identifiers the
    model missed in whole or in part (the export still replaces them: a
    person's word wins). A span the model only touched counted as found,
    where the model alone left "2 ... Promenade" of an address visible."""
    from app.core.tokenize import tokenize
    gold = project.gold_spans(doc_id)
    if not gold:
        return []
    text = project.document(doc_id).text
    words = [t for t in tokenize(text) if any(c.isalnum() for c in text[t.start:t.end])]
    visible = [t for t, hit in zip(words, met_by(words, predicted)) if not hit]
    return [g for g, shows in zip(gold, met_by(gold, visible)) if shows]


#: The heads of ``Span.origin`` that name no model: the hospital lists and
#: the rules (a step after the vote, the propagation or the trim, works on a
#: model's spans and stays the model's).
RULE_MADE = frozenset({LISTED, "lists", "rules", SHAPES, NAME_COMPLETION})


def suggestion_source(span: Span) -> str:
    """The source a predicted span is suggested under in Annotate: ``"rule"``
    for what the hospital lists or a rule found (drawn dotted, as the rules'
    day-one suggestions are), ``"model"`` otherwise."""
    head = (span.origin or "").partition(LABELLED)[0].partition(": ")[0]
    return "rule" if head in RULE_MADE else "model"


@dataclass
class SpanInfo:
    """What the preview knows about one replaced span."""

    mapped: object                         # app.deid.MappedSpan
    origin: str                            # "model", "accepted" or "suggestion"
    annotation: str | None = None          # stored status of the same span, if any
    confidence: float | None = None
    annotator: str | None = None
    members: list[str] = field(default_factory=list)       # found exactly this span
    partial: list[str] = field(default_factory=list)       # found an overlapping one
    n_members: int = 0
    listed: bool = False                   # a hospital list hit: always replaced
    made_by: str | None = None             # the candidate, member, step or rule (Span.origin)
    # A trained model's span that the starter model found on day one (the
    # starter's floor: what day one replaced stays replaced), not the model.
    day_one: bool = False

    @property
    def key(self) -> tuple[int, int, str]:
        return (self.mapped.in_start, self.mapped.in_end, self.mapped.label)

    @property
    def certainty(self) -> float:
        """0 (doubtful) .. 1 (sure): member agreement and confidence, the lower;
        a span a person accepted, or one the hospital lists hold, is sure."""
        if self.annotation == "accepted" or self.listed:
            return 1.0
        score = 1.0 if self.confidence is None else self.confidence
        if self.n_members:
            score = min(score, len(self.members) / self.n_members)
        elif self.origin == "suggestion" and self.confidence is None:
            score = 0.5
        return score


def span_infos(project, doc_id: int, span_map, prediction=None,
               mode: str = "model") -> list[SpanInfo]:
    """A :class:`SpanInfo` per replacement: provenance and member support."""
    from app.lists.floor import WIDENED
    from app.services.prediction import predicts_by
    from app.services.starter import STARTER_NAME
    records = {r.span.key: r for r in project.span_records(doc_id) if r.status != "rejected"}
    predicted = {s.key: s for s in prediction.spans} if prediction is not None else {}
    trained = bool(predicted) and predicts_by(project) == "model"
    members = prediction.member_spans if prediction is not None else {}
    infos = []
    for m in span_map:
        key = (m.in_start, m.in_end, m.label)
        r = records.get(key)
        p = predicted.get(key)
        annotation = r.status if r is not None else None
        if mode == "model" and p is not None:
            origin, confidence = "model", p.confidence
        else:
            origin = "accepted" if annotation == "accepted" else "suggestion"
            confidence = r.confidence if r is not None else None
        made_by = p.origin if origin == "model" and p is not None else None
        info = SpanInfo(m, origin, annotation, confidence, r.annotator if r else None,
                        made_by=made_by, day_one=trained and made_by is not None
                        and made_by.split(WIDENED)[0] == STARTER_NAME)
        probe = Span(m.in_start, m.in_end, m.label)
        for name, spans in sorted(members.items()):
            if key in {s.key for s in spans}:
                info.members.append(name)
            elif any(s.overlaps(probe) for s in spans):
                info.partial.append(name)
        info.n_members = len(members) if len(members) > 1 else 0
        info.listed = mode == "model" and prediction is not None and any(
            s.overlaps(probe) for s in prediction.listed)
        infos.append(info)
    return infos


def kept_in_clear(prediction, replaced) -> list[tuple[Span, str]]:
    """The spans a step after the model removed (``(span, step or rule)``:
    `app.core.prediction.Prediction.removed`) that no replacement of
    ``replaced`` (``MappedSpan``s) covers (`left_in_clear`): what the
    preview marks as left in clear, and by which rule."""
    if prediction is None:
        return []
    return left_in_clear(prediction.removed, [(m.in_start, m.in_end) for m in replaced])


def review_order(infos: list[SpanInfo]) -> list[int]:
    """Indices of ``infos``, least certain first, then in text order."""
    return sorted(range(len(infos)), key=lambda i: (infos[i].certainty, infos[i].mapped.in_start))


class CorrectionSession(AnnotationSession):
    """Corrections flagged in the preview, saved like editor edits.

    Each is one undoable history entry of the annotator plus an audit entry.
    """

    def flag_miss(self, start: int, end: int, label: str) -> int | None:
        """Label a missed identifier (snapped to tokens); returns the span id."""
        with self.project.transaction():
            span_id = self.add(start, end, label)
            if span_id is not None:
                self.project.log("preview_flag_miss", {"document": self.doc_id, "label": label},
                                 actor=self.person)
        return span_id

    def flag_false_hit(self, start: int, end: int, label: str, *,
                       run_id: int | None = None, confidence: float | None = None) -> None:
        """Reject a span: a stored suggestion or accepted span becomes
        rejected; a prediction not stored yet is stored as rejected, so
        pre-annotation never suggests it again."""
        r = next((r for r in self.spans if (r.start, r.end, r.label) == (start, end, label)),
                 None)
        edit = Edit("reject")
        if r is not None and r.status == "suggested":
            self._decide(edit, r, "rejected")
        elif r is not None:
            edit.before.append(state_of(r))
            edit.after.append(state_of(r, status="rejected", annotator=self.annotator))
        else:
            edit.after.append({"start": start, "end": end, "label": label, "source": "model",
                               "annotator": self.annotator, "status": "rejected",
                               "confidence": confidence, "run_id": run_id})
        self._commit(edit, log=("preview_false_hit", {"document": self.doc_id, "label": label,
                                                      "was": r.status if r else "predicted"}))


@dataclass
class NotePreview:
    """One note redacted for the preview."""

    result: object                          # app.deid.RedactionResult (text, span_map)
    infos: list[SpanInfo]                   # one per replacement, in span_map order
    order: list[int]                        # indices of infos, least certain first
    missed: list[Span]                      # accepted spans the prediction missed
    # (span, step or rule) a step after the model removed, left in clear (`kept_in_clear`)
    vetoed: list[tuple[Span, str]] = field(default_factory=list)


def preview_note(project, doc_id: int, policy, mode: str = "model",
                 prediction=None, earlier: Mapping[int, object] | None = None) -> NotePreview:
    """Redact ``doc_id`` with ``policy`` as an export would (``mode``
    ``"model"``, with ``prediction`` once it is there) or with the
    annotations as they stand (``"annotations"``).

    ``earlier``: predictions of the patient's notes before this one
    (`earlier_notes`), redacted first as the export does, so that a
    surrogate drawn again after a collision is the export's; a note not
    in it is read with its stored spans."""
    spans = effective_spans(project, doc_id, mode, prediction)
    result = preview_document(project, doc_id, policy=policy, spans=spans,
                              earlier={d: p.spans for d, p in (earlier or {}).items()}
                              if mode == "model" else None)
    infos = span_infos(project, doc_id, result.span_map, prediction, mode)
    missed = (missed_annotations(project, doc_id, prediction.spans)
              if mode == "model" and prediction is not None else [])
    vetoed = kept_in_clear(prediction, result.span_map) if mode == "model" else []
    return NotePreview(result, infos, review_order(infos), missed, vetoed)


def predict_note(project, doc_id: int, predictor=None):
    """What an export runs on one note: ``(prediction, predictor)``.

    What an export runs (`app.services.prediction.resolve`): the active
    run's model with every member, the starter model on day one, else the
    rules (``predictor``: loaded when ``None``; pass it back in for the next
    note, loading is the slow part). The patient selects its hospital-list
    entries (app.lists).
    """
    from app.services.prediction import resolve
    doc = project.document(doc_id)
    if predictor is None:
        predictor = resolve(project, all_members=True).load(project)
    return predictor.predict([doc.text], patients=[doc.patient_id], with_members=True)[0], \
        predictor


def earlier_notes(project, doc_id: int, predictor, known: Container[int] = ()) -> dict:
    """Predictions (``{doc_id: prediction}``) of the notes of ``doc_id``'s
    patient that an export redacts before it, but those in ``known``: a
    preview redacts them first, as the export does (`preview_note`)."""
    doc = project.document(doc_id)
    if not doc.patient_id:
        return {}
    ids = [i.id for i in project.document_infos(patient_id=doc.patient_id)
           if i.id < doc_id and i.id not in known]
    records = [project.document(i) for i in ids]
    found = predictor.predict([r.text for r in records], patients=[r.patient_id for r in records])
    return dict(zip(ids, found))
