"""The note text with its spans drawn as character formats.

Spans are painted straight into the ``QTextDocument`` char formats, so an
edit recolours only the characters it touched (:meth:`SpanTextView.recolour`)
and a 50,000-character note with thousands of spans stays responsive; no
syntax highlighter re-runs over whole blocks. Colour is never the only cue:
the underline style tells the source (solid: human-verified, dashed: model
suggestion, dotted: rule suggestion) and the tooltip and side list name the
label.

Offsets: Python strings index code points, ``QTextDocument`` indexes UTF-16
units. :class:`OffsetMap` converts when a note has characters outside the
Basic Multilingual Plane (emoji, rare CJK), so spans stay on their offsets.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Callable

from app.gui.qt import (QColor, QEvent, QFont, QPlainTextEdit, QTextCharFormat, QTextCursor,
                        QTextEdit, QTextFormat, QToolTip, Qt, Signal)
from app.project import ADJUDICATED, SpanRecord
from app.services.choice import made_by

#: Background alpha of accepted spans and of (lighter) suggestions.
ACCEPTED_ALPHA, SUGGESTED_ALPHA = 110, 45


class OffsetMap:
    """Code-point <-> UTF-16 offset conversion for one text."""

    def __init__(self, text: str) -> None:
        # Code-point indices of astral characters (two UTF-16 units each).
        self._astral = [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF]
        self._astral_q = [i + k for k, i in enumerate(self._astral)]

    def to_qt(self, offset: int) -> int:
        return offset + bisect_left(self._astral, offset) if self._astral else offset

    def to_py(self, position: int) -> int:
        return position - bisect_right(self._astral_q, position - 1) if self._astral else position


def span_format(colour: str, status: str, source: str, tooltip: str) -> QTextCharFormat:
    """The char format of a span: background, underline style by source."""
    fmt = QTextCharFormat()
    base = QColor(colour)
    background = QColor(base)
    background.setAlpha(SUGGESTED_ALPHA if status == "suggested" else ACCEPTED_ALPHA)
    fmt.setBackground(background)
    fmt.setUnderlineColor(base.darker(150))
    if status == "suggested":
        fmt.setUnderlineStyle(QTextCharFormat.DotLine if source == "rule"
                              else QTextCharFormat.DashUnderline)
        fmt.setForeground(QColor("#404040"))
    else:
        fmt.setUnderlineStyle(QTextCharFormat.SingleUnderline)
    fmt.setToolTip(tooltip)
    return fmt


def describe(record: SpanRecord) -> str:
    """Tooltip text of a span: label, provenance, what the keys do."""
    if record.status == "suggested":
        conf = "" if record.confidence is None else f" {record.confidence:.2f}"
        made = f", found by {maker}" if (maker := made_by(record.origin)) else ""
        return f"{record.label} — {record.source} suggestion{conf}{made} (A accept, R reject)"
    who = (" in the adjudication" if record.annotator == ADJUDICATED else
           f" by {record.annotator}" if record.annotator else "")
    origin = "" if record.source == "human" else f" (from {record.source})"
    return f"{record.label} — accepted{who}{origin}"


class OffsetTextView(QPlainTextEdit):
    """Read-only note text addressed in code-point offsets (selection,
    clicks, cursors), whatever Qt's UTF-16 positions are.

    Signals
    -------
    clicked(int)
        Code-point offset of a plain click (no selection made).
    """

    clicked = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.TextSelectableByKeyboard)
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.WidgetWidth)
        font = QFont(self.font())
        font.setPointSizeF(max(11.0, font.pointSizeF() + 1))
        self.setFont(font)
        self.offsets = OffsetMap("")

    def set_plain_text(self, text: str) -> None:
        """Replace the text, drawn plain: ``setPlainText`` alone inserts it in
        the char format at the cursor, so after a click just behind a painted
        span the whole next note came out in that span's format."""
        self.offsets = OffsetMap(text)
        self.setCurrentCharFormat(QTextCharFormat())
        self.setPlainText(text)
        cursor = QTextCursor(self.document())
        cursor.select(QTextCursor.Document)
        cursor.setCharFormat(QTextCharFormat())
        self.setCurrentCharFormat(QTextCharFormat())

    def cursor_for(self, start: int, end: int) -> QTextCursor:
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.offsets.to_qt(start))
        cursor.setPosition(self.offsets.to_qt(end), QTextCursor.KeepAnchor)
        return cursor

    def selection(self) -> tuple[int, int] | None:
        """The selected range in code points, or ``None``."""
        cursor = self.textCursor()
        if not cursor.hasSelection():
            return None
        return (self.offsets.to_py(cursor.selectionStart()),
                self.offsets.to_py(cursor.selectionEnd()))

    def select(self, start: int, end: int) -> None:
        self.setTextCursor(self.cursor_for(start, end))

    def clear_selection(self) -> None:
        cursor = self.textCursor()
        cursor.clearSelection()
        self.setTextCursor(cursor)

    def offset_at(self, pos) -> int:
        return self.offsets.to_py(self.cursorForPosition(pos).position())

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == Qt.LeftButton and not self.textCursor().hasSelection():
            self.clicked.emit(self.offset_at(event.position().toPoint()))


class SpanTextView(OffsetTextView):
    """Note text with painted spans; keys go to ``key_handler(event, probe)``
    first (with ``probe`` true it only answers whether it would take the key)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.key_handler: Callable | None = None
        self.colours: dict[str, str] = {}
        self._spans: list[SpanRecord] = []
        self._starts: list[int] = []
        self._max_len = 0
        self._current: SpanRecord | None = None

    # ------------------------------------------------------------- content
    def set_document(self, text: str, spans: list[SpanRecord], colours: dict[str, str]) -> None:
        """Show a note and paint all its spans."""
        self.colours = colours
        self._current = None
        self.setExtraSelections([])
        self.set_plain_text(text)
        self._set_spans(spans)
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        for record in self._paint_order(self._spans):
            self._paint(cursor, record, record.start, record.end)
        cursor.endEditBlock()

    def update_spans(self, spans: list[SpanRecord], ranges: list[tuple[int, int]]) -> None:
        """Take the new span list and recolour only ``ranges`` (code points)."""
        self._set_spans(spans)
        for start, end in _merge(ranges):
            self.recolour(start, end)
        if self._current is not None:
            self.set_current(next((r for r in spans if r.id == self._current.id), None))

    def _set_spans(self, spans: list[SpanRecord]) -> None:
        self._spans = sorted(spans, key=lambda r: (r.start, r.end))
        self._starts = [r.start for r in self._spans]
        self._max_len = max((r.end - r.start for r in self._spans), default=0)

    def spans_overlapping(self, start: int, end: int) -> list[SpanRecord]:
        lo = bisect_left(self._starts, start - self._max_len)
        hi = bisect_left(self._starts, end)
        return [r for r in self._spans[lo:hi] if r.end > start]

    def recolour(self, start: int, end: int) -> None:
        """Reset ``[start, end)`` to plain text and repaint the spans over it."""
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.setPosition(self.offsets.to_qt(start))
        cursor.setPosition(self.offsets.to_qt(end), QTextCursor.KeepAnchor)
        cursor.setCharFormat(QTextCharFormat())
        for record in self._paint_order(self.spans_overlapping(start, end)):
            self._paint(cursor, record, max(start, record.start), min(end, record.end))
        cursor.endEditBlock()

    @staticmethod
    def _paint_order(spans: list[SpanRecord]) -> list[SpanRecord]:
        # Suggestions first, so an accepted span overlapping one is drawn on top.
        return sorted(spans, key=lambda r: r.status != "suggested")

    def _paint(self, cursor: QTextCursor, record: SpanRecord, start: int, end: int) -> None:
        cursor.setPosition(self.offsets.to_qt(start))
        cursor.setPosition(self.offsets.to_qt(end), QTextCursor.KeepAnchor)
        cursor.mergeCharFormat(span_format(self.colours.get(record.label, "#999999"),
                                           record.status, record.source, describe(record)))

    # ------------------------------------------------------------- current
    def set_current(self, record: SpanRecord | None) -> None:
        """Outline the current span with a strong extra selection."""
        self._current = record
        if record is None:
            self.setExtraSelections([])
            return
        sel = QTextEdit.ExtraSelection()
        sel.cursor = QTextCursor(self.document())
        sel.cursor.setPosition(self.offsets.to_qt(record.start))
        sel.cursor.setPosition(self.offsets.to_qt(record.end), QTextCursor.KeepAnchor)
        colour = QColor(self.colours.get(record.label, "#999999"))
        sel.format.setBackground(colour)
        sel.format.setForeground(QColor("black") if colour.lightness() > 110 else QColor("white"))
        sel.format.setFontWeight(QFont.Bold)
        sel.format.setProperty(QTextFormat.FullWidthSelection, False)
        self.setExtraSelections([sel])
        view = QTextCursor(self.document())
        view.setPosition(self.offsets.to_qt(record.start))
        self.setTextCursor(view)
        self.ensureCursorVisible()

    # --------------------------------------------------------------- events
    def keyPressEvent(self, event) -> None:
        if self.key_handler is not None and self.key_handler(event, False):
            event.accept()
            return
        super().keyPressEvent(event)

    def event(self, event) -> bool:
        # Tab would move the focus before keyPressEvent sees it.
        if event.type() == QEvent.KeyPress and event.key() in (Qt.Key_Tab, Qt.Key_Backtab):
            self.keyPressEvent(event)
            return True
        if event.type() == QEvent.ShortcutOverride and self.key_handler is not None \
                and self.key_handler(event, True):
            # Our editing keys win over window shortcuts (and QPlainTextEdit's own).
            event.accept()
            return True
        return super().event(event)

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.ToolTip:
            offset = self.offset_at(event.pos())
            hits = [r for r in self.spans_overlapping(offset, offset + 1)]
            if hits:
                QToolTip.showText(event.globalPos(), "\n".join(describe(r) for r in hits), self)
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(a, b) for a, b in out]
