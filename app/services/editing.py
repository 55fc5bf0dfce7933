"""Annotation edits of one document, saved at once, undoable across sessions.

Every user action becomes an :class:`Edit`: the span *states* it removes
(``before``) and the ones it creates (``after``), plus an optional document
status change. Applying an edit and recording it in the project's
persistent history (:meth:`Project.push_edit`) is one transaction, so a
crash never leaves an edit half saved or saved without its undo entry.
Undo applies the inverse (``after`` -> ``before``). States identify spans
by offsets and provenance, never by text, and not by row id either: ids
change when an undone deletion is redone.

Blind double annotation: a document assigned to annotators is *blind*;
an annotator then sees only their own spans plus the shared suggestions
they have not decided yet. Deciding a suggestion there stores a personal
copy (accepted or rejected) rather than changing the shared one, so the
other annotator still sees it undecided. The document's status is then
the annotator's own too (:meth:`Project.set_own_status`): one marking it
done does not show the other a Done note.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from app.core.spans import Span
from app.core.tokenize import Token, tokenize
from app.project import ADJUDICATED, Project, SpanRecord

_STATE_FIELDS = ("start", "end", "label", "source", "annotator", "status", "confidence",
                 "run_id")
#: Tokens trimmed from both ends of a selection (whitespace never is a token).
_TRIM = set(",.;:!?\"'`")
_OPENERS, _CLOSERS = "([{", ")]}"


class EditConflict(Exception):
    """The stored spans no longer match what an undo/redo expects."""


def state_of(record: SpanRecord, **changes) -> dict:
    """The JSON state of a stored span, with ``changes`` applied."""
    state = {name: getattr(record, name) for name in _STATE_FIELDS}
    state.update(changes)
    return state


def _state_key(state: dict) -> tuple:
    return tuple(state[name] for name in _STATE_FIELDS[:6])


def _record_key(r: SpanRecord) -> tuple:
    """``_state_key(state_of(r))`` without building the dict."""
    return (r.start, r.end, r.label, r.source, r.annotator, r.status)


@dataclass
class Edit:
    """One undoable user action on one document."""

    action: str
    before: list[dict] = field(default_factory=list)
    after: list[dict] = field(default_factory=list)
    doc_status: tuple[str, str] | None = None

    def payload(self) -> dict:
        return {"before": self.before, "after": self.after,
                "doc_status": list(self.doc_status) if self.doc_status else None}

    @classmethod
    def from_payload(cls, action: str, payload: dict) -> "Edit":
        status = payload.get("doc_status")
        return cls(action, list(payload["before"]), list(payload["after"]),
                   tuple(status) if status else None)

    def ranges(self) -> list[tuple[int, int]]:
        """Character ranges whose colouring this edit may change."""
        return [(s["start"], s["end"]) for s in self.before + self.after]


def is_blind(project: Project, doc_id: int) -> bool:
    """A document assigned to anyone is annotated blind (see module doc)."""
    return bool(project.assignments(doc_id))


def seen_layer(annotator: str | None, assigned, status: str) -> str | None:
    """Whose spans ``annotator`` sees and edits on a note assigned to
    ``assigned`` whose shared status is ``status``: once adjudicated (the
    shared status of a blind note becomes "reviewed" only so) the
    adjudicated layer, which is the note's gold for everyone (a walkthrough's
    edits after the adjudication went to the editors' own layers, which the
    gold no longer reads); else the annotator's own."""
    return ADJUDICATED if assigned and status == "reviewed" else annotator


def visible_records(records: list[SpanRecord], annotator: str | None,
                    blind: bool) -> list[SpanRecord]:
    """The spans one annotator sees (rejected ones never), in text order."""
    if not blind:
        return [r for r in records if r.status != "rejected"]
    mine = [r for r in records if r.annotator == annotator]
    decided = {r.span.key for r in mine}
    shared = [r for r in records if r.status == "suggested" and r.annotator is None
              and r.span.key not in decided]
    return sorted([r for r in mine if r.status != "rejected"] + shared,
                  key=lambda r: (r.start, r.end, r.label, r.id))


def snap_to_tokens(text: str, start: int, end: int,
                   tokens: list[Token] | None = None) -> tuple[int, int] | None:
    """Snap a character selection outward to canonical token boundaries.

    Leading/trailing punctuation tokens are dropped (a closing bracket is
    kept when its opener is inside, and vice versa), whitespace is never
    part of a token. Returns ``None`` when nothing labelable is selected.
    """
    if start > end:
        start, end = end, start
    tokens = tokenize(text) if tokens is None else tokens
    ends = [t.end for t in tokens]
    starts = [t.start for t in tokens]
    i, j = bisect_right(ends, start), bisect_left(starts, end)
    toks = tokens[i:j]

    def piece(t: Token) -> str:
        return text[t.start:t.end]

    changed = True
    while toks and changed:
        changed = False
        first, last = piece(toks[0]), piece(toks[-1])
        inner = "".join(piece(t) for t in toks)
        if first in _TRIM or first in _CLOSERS or (
                first in _OPENERS and _CLOSERS[_OPENERS.index(first)] not in inner):
            toks, changed = toks[1:], True
        elif last in _TRIM or last in _OPENERS or (
                last in _CLOSERS and _OPENERS[_CLOSERS.index(last)] not in inner):
            toks, changed = toks[:-1], True
    if not toks:
        return None
    return toks[0].start, toks[-1].end


def token_occurrences(text: str, needle: str, tokens: list[Token]) -> list[tuple[int, int]]:
    """Offsets of ``needle`` in ``text`` that start and end on token boundaries.

    Used only by the explicit "label every occurrence" command; the spans it
    creates are stored by these offsets like any other.
    """
    starts = {t.start for t in tokens}
    ends = {t.end for t in tokens}
    return [(m.start(), m.end()) for m in re.finditer(re.escape(needle), text)
            if m.start() in starts and m.end() in ends]


class AnnotationSession:
    """The editable state of one document for one annotator.

    Parameters
    ----------
    project
        The open, writable project.
    doc_id
        The document.
    annotator
        Whose spans and history these are.
    """

    def __init__(self, project: Project, doc_id: int, annotator: str | None) -> None:
        self.project = project
        self.doc_id = doc_id
        self.annotator = annotator
        self.record = project.document(doc_id)
        self.text = self.record.text
        self.tokens = tokenize(self.text)
        self._token_starts = [t.start for t in self.tokens]
        self._token_ends = [t.end for t in self.tokens]
        self.blind = is_blind(project, doc_id)
        #: An adjudicated note: everyone sees and edits its gold (`seen_layer`),
        #: under the document's own status.
        self.adjudicated = seen_layer(annotator, self.blind, self.record.status) == ADJUDICATED
        #: Who edits (the audit log's actor), whose layer ever it is.
        self.person = annotator
        if self.adjudicated:
            self.annotator = ADJUDICATED
        #: Whether the status is the annotator's own (see the module doc).
        self._own_status = self.blind and annotator is not None and not self.adjudicated
        self.status = project.status_seen_by(doc_id, annotator) if self._own_status \
            else self.record.status
        self.spans: list[SpanRecord] = []
        # Every stored span of the document, kept in step with each saved edit
        # so that an edit does not re-read thousands of rows.
        self._stored: list[SpanRecord] = []
        self._by_id: dict[int, SpanRecord] = {}
        self.last_edit: Edit | None = None
        self.reload()

    # -------------------------------------------------------------- reading
    def reload(self) -> None:
        """Re-read the document's spans from the project."""
        self._set_stored(self.project.span_records(self.doc_id))

    def changed_elsewhere(self) -> bool:
        """Whether the document's stored spans are no longer those this
        session holds: something else wrote them meanwhile (suggestions
        stored by a worker while the note is open)."""
        def keys(records) -> list[tuple]:
            return sorted((r.id, r.start, r.end, r.label, r.source, r.status, r.annotator)
                          for r in records)
        return keys(self.project.span_records(self.doc_id)) != keys(self._stored)

    def _set_stored(self, records: list[SpanRecord]) -> None:
        self._stored = records
        self.spans = visible_records(records, self.annotator, self.blind)
        self._by_id = {r.id: r for r in self.spans}

    def span(self, span_id: int) -> SpanRecord | None:
        return self._by_id.get(span_id)

    def spans_at(self, offset: int) -> list[SpanRecord]:
        return [r for r in self.spans if r.start <= offset < r.end]

    def suggestions(self) -> list[SpanRecord]:
        return [r for r in self.spans if r.status == "suggested"]

    def can_undo(self) -> bool:
        return self.project.can_undo(self.doc_id, self.annotator)

    def can_redo(self) -> bool:
        return self.project.can_redo(self.doc_id, self.annotator)

    # -------------------------------------------------------------- editing
    def add(self, start: int, end: int, label: str, *, snap: bool = True) -> int | None:
        """Label a selection; overlapping own spans are replaced and
        overlapping suggestions rejected. Returns the new span id."""
        if snap:
            snapped = snap_to_tokens(self.text, start, end, self.tokens)
            if snapped is None:
                return None
            start, end = snapped
        new = {"start": start, "end": end, "label": label, "source": "human",
               "annotator": self.annotator, "status": "accepted", "confidence": None,
               "run_id": None}
        edit = Edit("add")
        for r in self.spans:
            if r.start < end and start < r.end:
                if r.status == "suggested":
                    self._decide(edit, r, "rejected")
                else:
                    edit.before.append(state_of(r))
        edit.after.append(new)
        return self._commit(edit, select=new)

    def delete(self, span_id: int) -> None:
        r = self._need(span_id)
        edit = Edit("delete")
        if r.status == "suggested":
            self._decide(edit, r, "rejected")
        else:
            edit.before.append(state_of(r))
        self._commit(edit)

    def relabel(self, span_id: int, label: str) -> int | None:
        r = self._need(span_id)
        if r.label == label:
            return r.id
        new = state_of(r, label=label, status="accepted", annotator=self.annotator)
        edit = Edit("relabel")
        if r.status == "suggested":
            self._decide(edit, r, "rejected")
            new["source"] = r.source
        else:
            edit.before.append(state_of(r))
        edit.after.append(new)
        return self._commit(edit, select=new)

    def resize(self, span_id: int, edge: str, delta: int) -> int | None:
        """Move the ``"start"`` or ``"end"`` edge of a span by ``delta`` tokens.

        A move that would empty the span or leave the text is ignored.
        """
        r = self._need(span_id)
        if edge == "start":
            k = bisect_left(self._token_starts, r.start) + delta
            if not (0 <= k < len(self.tokens)) or self.tokens[k].start >= r.end:
                return None
            start, end = self.tokens[k].start, r.end
        else:
            k = bisect_left(self._token_ends, r.end) + delta
            if not (0 <= k < len(self.tokens)) or self.tokens[k].end <= r.start:
                return None
            start, end = r.start, self.tokens[k].end
        new = state_of(r, start=start, end=end, status="accepted", annotator=self.annotator)
        edit = Edit("resize")
        if r.status == "suggested":
            self._decide(edit, r, "rejected")
        else:
            edit.before.append(state_of(r))
        for other in self.spans:
            if other.id != r.id and other.start < end and start < other.end \
                    and other.status != "suggested":
                edit.before.append(state_of(other))
        edit.after.append(new)
        return self._commit(edit, select=new)

    def accept(self, span_id: int) -> int | None:
        """Accept a suggestion: it becomes a human-verified span (source and
        run kept as provenance, annotator = the current annotator)."""
        r = self._need(span_id)
        if r.status != "suggested":
            return r.id
        edit = Edit("accept")
        self._decide(edit, r, "accepted")
        return self._commit(edit, select=edit.after[-1],
                            log=self._log("suggestions_accepted", [r]))

    def reject(self, span_id: int) -> None:
        r = self._need(span_id)
        if r.status != "suggested":
            return
        edit = Edit("reject")
        self._decide(edit, r, "rejected")
        self._commit(edit, log=self._log("suggestions_rejected", [r]))

    def accept_above(self, threshold: float) -> int:
        """Accept every suggestion with confidence >= ``threshold``; return how many."""
        chosen = [r for r in self.suggestions()
                  if r.confidence is not None and r.confidence >= threshold]
        if not chosen:
            return 0
        edit = Edit("accept_above")
        for r in chosen:
            self._decide(edit, r, "accepted")
        self._commit(edit, log=self._log("suggestions_accepted", chosen, threshold=threshold))
        return len(chosen)

    def set_status(self, status: str) -> None:
        """Change the document status (undoable like any edit). An adjudicated
        note stays reviewed: Mark done on it had undone the adjudication for
        everyone (back to blind layers the gold no longer reads); adjudicating
        it again is how it changes hands."""
        if status != self.status and not self.adjudicated:
            self._commit(Edit("status", doc_status=(self.status, status)))

    def apply_to_patient(self, span_id: int) -> dict[int, int]:
        """Label every token-aligned occurrence of this span's text in the
        notes of the same patient (this note included) with its label.

        An occurrence that is exactly a suggestion is that suggestion
        accepted under this label (every imported note arrives with
        suggestions, and P labelled nothing where they stood); occurrences
        overlapping any other visible span are left alone. Each touched
        document gets its own undoable history entry. Returns
        ``{doc_id: spans added or accepted}``.
        """
        r = self._need(span_id)
        needle = self.text[r.start:r.end]
        patient = self.record.patient_id
        if patient is None:
            doc_ids = [self.doc_id]
        else:
            doc_ids = [i.id for i in self.project.document_infos() if i.patient_id == patient]
        added: dict[int, int] = {}
        with self.project.transaction():
            for doc_id in doc_ids:
                session = self if doc_id == self.doc_id else \
                    AnnotationSession(self.project, doc_id, self.annotator)
                edit = Edit("apply_to_patient")
                for start, end in token_occurrences(session.text, needle, session.tokens):
                    over = [o for o in session.spans if o.start < end and start < o.end]
                    if len(over) == 1 and over[0].status == "suggested" \
                            and (over[0].start, over[0].end) == (start, end):
                        if not session.blind:
                            edit.before.append(state_of(over[0]))
                        edit.after.append(state_of(over[0], status="accepted", label=r.label,
                                                   annotator=self.annotator))
                    if over:
                        continue
                    edit.after.append({"start": start, "end": end, "label": r.label,
                                       "source": "human", "annotator": self.annotator,
                                       "status": "accepted", "confidence": None,
                                       "run_id": None})
                if edit.after:
                    session._commit(edit)
                    added[doc_id] = len(edit.after)
            self.project.log("apply_to_patient", {"documents": len(added),
                                                  "spans": sum(added.values()),
                                                  "label": r.label}, self.annotator)
        return added

    def undo(self) -> Edit | None:
        """Undo the latest edit of this annotator on this document (persisted)."""
        with self.project.transaction():
            entry = self.project.undo(self.doc_id, self.annotator)
            if entry is None:
                return None
            edit = Edit.from_payload(entry.action, entry.payload)
            _, stored = self._apply(edit, forward=False)
        self._applied(edit, stored, forward=False)
        return edit

    def redo(self) -> Edit | None:
        with self.project.transaction():
            entry = self.project.redo(self.doc_id, self.annotator)
            if entry is None:
                return None
            edit = Edit.from_payload(entry.action, entry.payload)
            _, stored = self._apply(edit, forward=True)
        self._applied(edit, stored, forward=True)
        return edit

    # ------------------------------------------------------------ internals
    def _need(self, span_id: int) -> SpanRecord:
        r = self.span(span_id)
        if r is None:
            raise KeyError(f"span {span_id} is not visible in this document")
        return r

    def _decide(self, edit: Edit, r: SpanRecord, status: str) -> None:
        """Record the decision on a suggestion (a personal copy when blind)."""
        decided = state_of(r, status=status, annotator=self.annotator)
        if not self.blind:
            edit.before.append(state_of(r))
        edit.after.append(decided)

    def _log(self, event: str, records: list[SpanRecord], **extra) -> tuple[str, dict]:
        """An audit entry for decided suggestions: provenance, no text."""
        runs = sorted({r.run_id for r in records if r.run_id is not None})
        sources = sorted({r.source for r in records})
        return event, {"document": self.doc_id, "count": len(records),
                       "sources": sources, "runs": runs, **extra}

    def _commit(self, edit: Edit, select: dict | None = None,
                log: tuple[str, dict] | None = None) -> int | None:
        """Apply ``edit``, push it to the history and log it in one transaction."""
        if self.status == "todo" and edit.doc_status is None and (edit.before or edit.after):
            edit.doc_status = ("todo", "in_progress")
        with self.project.transaction():
            ids, stored = self._apply(edit, forward=True)
            self.project.push_edit(self.doc_id, self.annotator, edit.action, edit.payload())
            if log is not None:
                self.project.log(*log, actor=self.person)
        self.last_edit = edit
        self._applied(edit, stored, forward=True)
        return None if select is None else ids.get(_state_key(select))

    def _apply(self, edit: Edit, *, forward: bool
               ) -> tuple[dict[tuple, int], list[SpanRecord]]:
        """Replace one side of ``edit`` by the other inside the caller's
        transaction; return the new ids by state key and the stored spans
        as they will be once it commits (the caller then calls ``_applied``)."""
        removes, adds = (edit.before, edit.after) if forward else (edit.after, edit.before)
        stored = list(self._stored)
        if removes:
            index: dict[tuple, list[int]] = {}
            for i, r in enumerate(stored):
                index.setdefault(_record_key(r), []).append(i)
            gone = set()
            for state in removes:
                slots = index.get(_state_key(state))
                if not slots:
                    raise EditConflict("the document changed since this edit was recorded")
                i = slots.pop(0)
                gone.add(i)
                self.project.delete_span(stored[i].id)
            stored = [r for i, r in enumerate(stored) if i not in gone]
        ids = {}
        for state in adds:
            span_id = self.project.add_span(
                self.doc_id, state["start"], state["end"], state["label"],
                source=state["source"], annotator=state["annotator"], status=state["status"],
                confidence=state["confidence"], run_id=state["run_id"])
            ids[_state_key(state)] = span_id
            # Timestamps are the store's business; the editor never shows them.
            stored.append(SpanRecord(span_id, self.doc_id, state["start"], state["end"],
                                     state["label"], state["source"], state["annotator"],
                                     state["run_id"], state["status"], state["confidence"],
                                     "", ""))
        if edit.doc_status:
            status = edit.doc_status[1 if forward else 0]
            if self._own_status:
                self.project.set_own_status(self.doc_id, self.annotator, status)
            else:
                self.project.set_document_fields(self.doc_id, status=status)
        stored.sort(key=lambda r: (r.start, r.end, r.label, r.id))
        return ids, stored

    def _applied(self, edit: Edit, stored: list[SpanRecord], *, forward: bool) -> None:
        """Take the in-memory state of an edit once its transaction committed."""
        if edit.doc_status:
            self.status = edit.doc_status[1 if forward else 0]
        self._set_stored(stored)

    def span_for_state(self, state: dict) -> SpanRecord | None:
        key = _state_key(state)
        return next((r for r in self.spans if _record_key(r) == key), None)

    def gold(self) -> list[Span]:
        return [r.span for r in self.spans if r.status == "accepted"]
