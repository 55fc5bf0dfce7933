"""Documents and spans of a project (mixed into :class:`Project`)."""
from __future__ import annotations

import hashlib
import sqlite3
from typing import Iterable, Mapping

from app.core.spans import Span, sort_spans

from .core import ProjectCore, dumps, loads
from .errors import ProjectError
from .records import DocumentInfo, DocumentRecord, SpanCounts, SpanRecord
from .schema import DOC_STATUSES, NOW, SPAN_SOURCES, SPAN_STATUSES, SPLITS

#: Annotator name of the adjudicated layer of a double-annotated document.
ADJUDICATED = "@adjudicated"

_DOC_COLS = ("id, name, sha256, source_path, patient_id, split, status, "
             "uncertainty, meta_json, created_at, updated_at")
_SPAN_COLS = ('id, document_id, start, "end", label, source, annotator, run_id, '
              "status, confidence, created_at, updated_at, origin")
_ORDERS = {
    "id": "id",
    "name": "name COLLATE NOCASE, id",
    "status": "status, id",
    "split": "split, id",
    "uncertainty": "uncertainty IS NULL, uncertainty DESC, id",  # most uncertain first
    "updated": "updated_at DESC, id",
    # The most uncertain first, the unscored in the order of ``ids`` (its one
    # parameter: the list as JSON).
    "uncertain_listed": "uncertainty IS NULL, uncertainty DESC, "
                        "(SELECT key FROM json_each(?) WHERE json_each.value = documents.id), id",
}
#: The status an annotator sees (parameter: the annotator): their own for a
#: blind document assigned to them until it is adjudicated (``reviewed``),
#: else the document's (shared) one: a lead who is not assigned sees whether
#: the assigned annotators are done.
_SEEN_STATUS = ("CASE WHEN documents.status = 'reviewed' THEN 'reviewed'"
                " ELSE coalesce((SELECT coalesce(s.status, 'todo') FROM assignments a"
                " LEFT JOIN annotator_status s"
                " ON s.document_id = a.document_id AND s.annotator = a.annotator"
                " WHERE a.document_id = documents.id AND a.annotator = ?), documents.status) END")
_DOC_FIELDS = {"name", "status", "split", "patient_id", "uncertainty", "meta"}
_SPAN_FIELDS = {"start", "end", "label", "status", "confidence", "annotator"}


def text_sha256(text: str) -> str:
    """The duplicate key of a document: SHA-256 of its UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _choice(value, allowed: tuple[str, ...], what: str, nullable: bool = False) -> None:
    if value is None and nullable:
        return
    if value not in allowed:
        raise ValueError(f"invalid {what} {value!r}; expected one of {', '.join(allowed)}")


def _doc_info(row: sqlite3.Row | tuple) -> DocumentInfo:
    return DocumentInfo(*row[:8], loads(row[8]), *row[9:11])


def _span_record(row: tuple) -> SpanRecord:
    return SpanRecord(*row)


def _check_in_text(span: Span, n_chars: int) -> None:
    if span.end > n_chars:
        raise ValueError(
            f"span [{span.start}, {span.end}) beyond end of text ({n_chars} chars)")


class DocumentsMixin(ProjectCore):
    """Documents, spans and the gold-standard rule."""

    # ------------------------------------------------------------ documents
    def add_document(self, name: str, text: str, *, source_path: str | None = None,
                     patient_id: str | None = None, split: str | None = None,
                     status: str = "todo", meta: dict | None = None,
                     spans: Iterable[Span] = (), span_source: str = "import",
                     annotator: str | None = None) -> int | None:
        """Add a document with its spans in one transaction.

        Parameters
        ----------
        spans
            Stored with ``source=span_source``; status ``accepted`` for
            ``import``/``human`` spans, ``suggested`` for ``model``/``rule``.

        Returns
        -------
        The new document id, or ``None`` if a document with the same text
        (SHA-256) is already in the project; nothing is written then.

        Raises
        ------
        ValueError
            For an invalid split/status/source or a span beyond the text.
        """
        _choice(split, SPLITS, "split", nullable=True)
        _choice(status, DOC_STATUSES, "status")
        _choice(span_source, SPAN_SOURCES, "span source")
        spans = list(spans)
        for span in spans:
            _check_in_text(span, len(text))
        digest = text_sha256(text)
        span_status = "suggested" if span_source in ("model", "rule") else "accepted"
        with self._write() as db:
            if db.execute("SELECT 1 FROM documents WHERE sha256 = ?", (digest,)).fetchone():
                return None
            doc_id = db.execute(
                "INSERT INTO documents (name, sha256, source_path, patient_id, split,"
                " status, meta_json, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, digest, source_path, patient_id, split, status,
                 dumps(meta or {}), text)).lastrowid
            db.executemany(
                'INSERT INTO spans (document_id, start, "end", label, source, annotator,'
                " status, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(doc_id, s.start, s.end, s.label, span_source, annotator, span_status,
                  s.confidence) for s in spans])
            return doc_id

    def document_of_text(self, text: str) -> int | None:
        """The id of the document whose text is ``text`` (by its SHA-256), or None."""
        with self._read() as db:
            row = db.execute("SELECT id FROM documents WHERE sha256 = ?",
                             (text_sha256(text),)).fetchone()
        return None if row is None else row[0]

    def annotated_characters(self) -> int:
        """Characters of the notes a run trains on: those done or reviewed,
        outside the test split (how long a fit of them takes)."""
        with self._read() as db:
            row = db.execute("SELECT coalesce(sum(length(text)), 0) FROM documents WHERE "
                             "status IN ('done', 'reviewed') AND coalesce(split, '') != 'test'"
                             ).fetchone()
        return int(row[0])

    def document(self, doc_id: int) -> DocumentRecord:
        """The full document, text included; ``ProjectError`` if there is none."""
        with self._read() as db:
            row = db.execute(f"SELECT {_DOC_COLS}, text FROM documents WHERE id = ?",
                             (doc_id,)).fetchone()
        if row is None:
            raise ProjectError(f"no document with id {doc_id}")
        return DocumentRecord(*row[:8], loads(row[8]), *row[9:])

    def document_infos(self, *, split: str | None = None, status: str | None = None,
                       search: str | None = None, order: str = "id",
                       limit: int | None = None, offset: int = 0,
                       patient_id: str | None = None,
                       annotator: str | None = None,
                       ids: Iterable[int] | None = None) -> list[DocumentInfo]:
        """List documents without their text (fast enough for 10,000 notes).

        ``search`` is a case-insensitive (ASCII) substring of the name or the
        text; ``order`` is one of ``id``, ``name``, ``status``, ``split``,
        ``uncertainty`` (most uncertain first, unscored last), ``updated``
        (newest first) or ``uncertain_listed`` (most uncertain first, the
        unscored in the order of ``ids``);
        ``patient_id``: that patient's documents only.
        ``annotator``: statuses (shown, filtered and sorted) as this
        annotator sees them (see :meth:`status_seen_by`); ``ids``: only
        these documents.
        """
        if order not in _ORDERS or (order == "uncertain_listed" and ids is None):
            raise ValueError(f"invalid order {order!r}; expected one of {', '.join(_ORDERS)} "
                             "(uncertain_listed: with ids)")
        if ids is not None:
            ids = [int(i) for i in ids]
        where, args = self._doc_filter(split, status, annotator, ids)
        if patient_id is not None:
            where.append("patient_id = ?")
            args.append(patient_id)
        if search:
            pattern = "%" + search.replace("\\", "\\\\").replace("%", "\\%") \
                .replace("_", "\\_") + "%"
            where.append("(name LIKE ? ESCAPE '\\' OR text LIKE ? ESCAPE '\\')")
            args += [pattern, pattern]
        cols, head = _DOC_COLS, []
        if annotator is not None:
            cols = _DOC_COLS.replace(" status,", f" {_SEEN_STATUS} AS status,")
            head = [annotator]
        sql = f"SELECT {cols} FROM documents"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {_ORDERS[order]} LIMIT ? OFFSET ?"
        args = head + args + ([dumps(ids)] if order == "uncertain_listed" else []) + \
            [-1 if limit is None else limit, offset]
        with self._read() as db:
            return [_doc_info(row) for row in db.execute(sql, args)]

    def count_documents(self, split: str | None = None, status: str | None = None,
                        annotator: str | None = None, ids: Iterable[int] | None = None) -> int:
        """How many documents match; ``annotator``: by the statuses that
        annotator sees (see :meth:`status_seen_by`); ``ids``: of these."""
        where, args = self._doc_filter(split, status, annotator, ids)
        sql = "SELECT count(*) FROM documents"
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._read() as db:
            return db.execute(sql, args).fetchone()[0]

    @staticmethod
    def _doc_filter(split, status, annotator=None, ids=None) -> tuple[list[str], list]:
        where, args = [], []
        if ids is not None:
            # One parameter however many: SQLite caps the number of ``?``.
            where.append("documents.id IN (SELECT value FROM json_each(?))")
            args.append(dumps([int(i) for i in ids]))
        if split is not None:
            _choice(split, SPLITS, "split")
            where.append("split = ?")
            args.append(split)
        if status is not None:
            _choice(status, DOC_STATUSES, "status")
            if annotator is None:
                where.append("documents.status = ?")
                args.append(status)
            else:
                where.append(f"{_SEEN_STATUS} = ?")
                args += [annotator, status]
        return where, args

    def status_seen_by(self, doc_id: int, annotator: str | None) -> str:
        """The status ``annotator`` sees of a document: for a blind document
        assigned to them (double annotation) their own (``todo`` until
        they change it) until it is adjudicated, else (or for no
        annotator) the document's shared status."""
        seen = "status" if annotator is None else _SEEN_STATUS
        with self._read() as db:
            row = db.execute(f"SELECT {seen} FROM documents WHERE id = ?",
                             ([] if annotator is None else [annotator]) + [doc_id]).fetchone()
        if row is None:
            raise ProjectError(f"no document with id {doc_id}")
        return row[0]

    def set_own_status(self, doc_id: int, annotator: str, status: str) -> None:
        """Set one annotator's own status of a blind document.

        The document's shared status (what training, exports and the
        adjudicator go by) follows every assigned annotator's: ``done``
        once all of them are done, ``in_progress`` once any has started,
        else ``todo``; a ``reviewed`` (adjudicated) document stays reviewed.
        """
        _choice(status, DOC_STATUSES, "status")
        with self._write() as db:
            self._text_length(db, doc_id)                    # the document exists
            db.execute("INSERT INTO annotator_status (document_id, annotator, status)"
                       " VALUES (?, ?, ?) ON CONFLICT (document_id, annotator) DO UPDATE"
                       f" SET status = excluded.status, updated_at = {NOW}",
                       (doc_id, annotator, status))
            self._follow_assignees(db, doc_id)

    @staticmethod
    def _follow_assignees(db: sqlite3.Connection, doc_id: int) -> None:
        """A blind document's shared status from its assigned annotators' own:
        ``done`` once all are, ``in_progress`` once any has started, else
        ``todo``; an adjudicated (``reviewed``) one stays reviewed."""
        own = [row[0] for row in db.execute(
            "SELECT coalesce(s.status, 'todo') FROM assignments a LEFT JOIN annotator_status s"
            " ON s.document_id = a.document_id AND s.annotator = a.annotator"
            " WHERE a.document_id = ?", (doc_id,))]
        shared = ("done" if own and all(s in ("done", "reviewed") for s in own) else
                  "in_progress" if any(s != "todo" for s in own) else "todo")
        db.execute(f"UPDATE documents SET status = ?, updated_at = {NOW}"
                   " WHERE id = ? AND status != 'reviewed'", (shared, doc_id))

    @staticmethod
    def _take_own_status(db: sqlite3.Connection, doc_id: int, annotator: str) -> None:
        """Give an annotator just assigned to a document the status they had
        made their own: the last one they set (a note they marked Done
        before it was assigned stays done for them), ``in_progress`` when
        they labelled something, else ``todo``; one they already have is kept."""
        last = None
        for (payload,) in db.execute(
                "SELECT payload_json FROM history WHERE document_id = ? AND annotator = ?"
                " AND undone = 0 ORDER BY seq", (doc_id, annotator)):
            last = (loads(payload) or {}).get("doc_status") or last
        if last:
            status = last[1]
        else:
            labelled = db.execute("SELECT 1 FROM spans WHERE document_id = ? AND annotator = ?"
                                  " AND status = 'accepted' LIMIT 1",
                                  (doc_id, annotator)).fetchone()
            status = "in_progress" if labelled else "todo"
        db.execute("INSERT OR IGNORE INTO annotator_status (document_id, annotator, status)"
                   " VALUES (?, ?, ?)", (doc_id, annotator, status))

    def set_document_fields(self, doc_id: int, **fields) -> None:
        """Update ``name``, ``status``, ``split``, ``patient_id``, ``uncertainty``
        and/or ``meta`` (a dict, replaced whole)."""
        unknown = set(fields) - _DOC_FIELDS
        if unknown:
            raise ValueError(f"cannot set document field(s) {', '.join(sorted(unknown))}")
        if "status" in fields:
            _choice(fields["status"], DOC_STATUSES, "status")
        if "split" in fields:
            _choice(fields["split"], SPLITS, "split", nullable=True)
        if "meta" in fields:
            fields["meta_json"] = dumps(fields.pop("meta") or {})
        if not fields:
            return
        sets = ", ".join(f"{key} = ?" for key in fields)
        with self._write() as db:
            cur = db.execute(f"UPDATE documents SET {sets}, updated_at = {NOW} WHERE id = ?",
                             [*fields.values(), doc_id])
            if cur.rowcount == 0:
                raise ProjectError(f"no document with id {doc_id}")

    def clear_uncertainty(self, keep: Iterable[int]) -> int:
        """Forget the uncertainty of every to-do document but those of
        ``keep`` (their edit time kept: nobody edited them); returns how many.
        A score of an older model ranks nothing against the model in use's
        (`app.services.annotating.preannotate`)."""
        with self._write() as db:
            return db.execute("UPDATE documents SET uncertainty = NULL WHERE status = 'todo'"
                              " AND uncertainty IS NOT NULL AND id NOT IN"
                              " (SELECT value FROM json_each(?))",
                              (dumps(sorted(set(keep))),)).rowcount

    def delete_document(self, doc_id: int) -> None:
        """Delete a document with its spans, assignments and history."""
        with self._write() as db:
            if db.execute("DELETE FROM documents WHERE id = ?", (doc_id,)).rowcount == 0:
                raise ProjectError(f"no document with id {doc_id}")

    # ---------------------------------------------------------------- spans
    def _text_length(self, db: sqlite3.Connection, doc_id: int) -> int:
        # SQLite's length() counts characters (code points), like len(str).
        row = db.execute("SELECT length(text) FROM documents WHERE id = ?",
                         (doc_id,)).fetchone()
        if row is None:
            raise ProjectError(f"no document with id {doc_id}")
        return row[0]

    def add_span(self, doc_id: int, start: int, end: int, label: str, *,
                 source: str = "human", annotator: str | None = None,
                 status: str = "accepted", confidence: float | None = None,
                 run_id: int | None = None) -> int:
        """Add one span and return its id.

        Labels are not checked against :meth:`labels`; importers call
        :meth:`ensure_labels` first.
        """
        _choice(source, SPAN_SOURCES, "span source")
        _choice(status, SPAN_STATUSES, "span status")
        span = Span(start, end, label)
        with self._write() as db:
            _check_in_text(span, self._text_length(db, doc_id))
            return db.execute(
                'INSERT INTO spans (document_id, start, "end", label, source, annotator,'
                " run_id, status, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (doc_id, start, end, label, source, annotator, run_id, status,
                 confidence)).lastrowid

    def _span(self, db: sqlite3.Connection, span_id: int) -> SpanRecord:
        row = db.execute(f"SELECT {_SPAN_COLS} FROM spans WHERE id = ?", (span_id,)).fetchone()
        if row is None:
            raise ProjectError(f"no span with id {span_id}")
        return _span_record(row)

    def span_record(self, span_id: int) -> SpanRecord:
        with self._read() as db:
            return self._span(db, span_id)

    def update_span(self, span_id: int, **fields) -> None:
        """Update ``start``, ``end``, ``label``, ``status``, ``confidence``
        and/or ``annotator`` of a span."""
        unknown = set(fields) - _SPAN_FIELDS
        if unknown:
            raise ValueError(f"cannot set span field(s) {', '.join(sorted(unknown))}")
        if "status" in fields:
            _choice(fields["status"], SPAN_STATUSES, "span status")
        if not fields:
            return
        with self._write() as db:
            old = self._span(db, span_id)
            new = Span(fields.get("start", old.start), fields.get("end", old.end),
                       fields.get("label", old.label))
            _check_in_text(new, self._text_length(db, old.document_id))
            sets = ", ".join(f'"{key}" = ?' for key in fields)
            db.execute(f"UPDATE spans SET {sets}, updated_at = {NOW} WHERE id = ?",
                       [*fields.values(), span_id])

    def delete_span(self, span_id: int) -> None:
        with self._write() as db:
            if db.execute("DELETE FROM spans WHERE id = ?", (span_id,)).rowcount == 0:
                raise ProjectError(f"no span with id {span_id}")

    def span_records(self, doc_id: int, *, status: str | None = None,
                     source: str | None = None,
                     annotator: str | None = None) -> list[SpanRecord]:
        """Spans of a document in text order; ``None`` filters are not applied."""
        sql = f"SELECT {_SPAN_COLS} FROM spans WHERE document_id = ?"
        args: list = [doc_id]
        for column, value in (("status", status), ("source", source),
                              ("annotator", annotator)):
            if value is not None:
                sql += f" AND {column} = ?"
                args.append(value)
        sql += ' ORDER BY start, "end", label, id'
        with self._read() as db:
            return [_span_record(row) for row in db.execute(sql, args)]

    def spans_by_document(self) -> dict[int, list[SpanRecord]]:
        """Every span of the project by document id, each document's in text
        order as :meth:`span_records` gives them, in one query (a pass over
        the whole project reads no document's spans one by one)."""
        with self._read() as db:
            rows = db.execute(f"SELECT {_SPAN_COLS} FROM spans"
                              ' ORDER BY document_id, start, "end", label, id').fetchall()
        out: dict[int, list[SpanRecord]] = {}
        for row in rows:
            record = _span_record(row)
            out.setdefault(record.document_id, []).append(record)
        return out

    def gold_spans(self, doc_id: int) -> list[Span]:
        """The reference spans of a document, for training and evaluation.

        Rule: the document's ``accepted`` spans, whatever their source,
        de-duplicated by (start, end, label). For a double-annotated document
        an adjudicated layer (spans with ``annotator == ADJUDICATED``, written
        by :meth:`adjudicate`) replaces everything else once it exists; before
        adjudication the union of the annotators' accepted spans is used,
        because for de-identification a missed identifier costs more than an
        extra one.
        """
        rows = self.span_records(doc_id, status="accepted")
        adjudicated = [r for r in rows if r.annotator == ADJUDICATED]
        unique = {r.span.key: r.span for r in (adjudicated or rows)}
        return sort_spans(unique.values())

    def adjudicate(self, doc_id: int, spans: Iterable[Span]) -> None:
        """Replace the adjudicated layer of a document (see :meth:`gold_spans`)."""
        spans = list(spans)
        with self._write() as db:
            n = self._text_length(db, doc_id)
            for span in spans:
                _check_in_text(span, n)
            db.execute("DELETE FROM spans WHERE document_id = ? AND annotator = ?",
                       (doc_id, ADJUDICATED))
            db.executemany(
                'INSERT INTO spans (document_id, start, "end", label, source, annotator,'
                " status, confidence) VALUES (?, ?, ?, ?, 'human', ?, 'accepted', ?)",
                [(doc_id, s.start, s.end, s.label, ADJUDICATED, s.confidence)
                 for s in spans])

    def replace_suggestions(self, doc_id: int, spans: Iterable[Span],
                            run_id: int | None, source: str = "model") -> int:
        """Replace a document's suggested spans of ``source`` (``"model"`` or
        ``"rule"``) with a new prediction (`replace_prediction` with one source)."""
        return self.replace_prediction(doc_id, {source: spans}, run_id)

    def replace_prediction(self, doc_id: int, spans_by_source: Mapping[str, Iterable[Span]],
                           run_id: int | None) -> int:
        """Replace a document's suggested spans of every source named in
        ``spans_by_source`` (``"model"``, ``"rule"``) with a new prediction,
        each span under its source and naming what made it (``Span.origin``),
        in one write.

        A predicted span with the same (start, end, label) as a span still in
        the document (accepted, rejected, or a suggestion of a source not
        replaced) is skipped, so re-predicting never resurrects a suggestion a
        person rejected. Returns the number of suggestions stored.
        """
        for source in spans_by_source:
            if source not in ("model", "rule"):
                raise ValueError(f"suggestions come from a model or the rules, not {source!r}")
        by_source = {source: list(spans) for source, spans in spans_by_source.items()}
        with self._write() as db:
            n = self._text_length(db, doc_id)
            for spans in by_source.values():
                for span in spans:
                    _check_in_text(span, n)
            db.executemany("DELETE FROM spans WHERE document_id = ? AND status = 'suggested'"
                           " AND source = ?", [(doc_id, source) for source in by_source])
            kept = {tuple(row) for row in db.execute(
                'SELECT start, "end", label FROM spans WHERE document_id = ?', (doc_id,))}
            new: dict[tuple, tuple[Span, str]] = {}
            for source, spans in by_source.items():
                for s in spans:
                    if s.key not in kept:
                        new.setdefault(s.key, (s, source))
            db.executemany(
                'INSERT INTO spans (document_id, start, "end", label, source, run_id,'
                " status, confidence, origin) VALUES (?, ?, ?, ?, ?, ?, 'suggested', ?, ?)",
                [(doc_id, s.start, s.end, s.label, new[s.key][1], run_id, s.confidence,
                  s.origin or None)
                 for s in sort_spans(s for s, _ in new.values())])
            return len(new)

    def accepted_labels(self) -> set[str]:
        """The labels of every accepted span in the project (what annotators marked)."""
        with self._read() as db:
            rows = db.execute("SELECT DISTINCT label FROM spans WHERE status = 'accepted'")
            return {row[0] for row in rows.fetchall()}

    def span_counts(self) -> dict[int, SpanCounts]:
        """Span counts by status for every document that has spans.

        A document missing from the result has none (``SpanCounts()``).
        """
        with self._read() as db:
            rows = db.execute(
                "SELECT document_id, sum(status = 'accepted'), sum(status = 'suggested'),"
                " sum(status = 'rejected') FROM spans GROUP BY document_id").fetchall()
        return {row[0]: SpanCounts(*row[1:]) for row in rows}
