"""Adjudication: two annotators' versions side by side; the adjudicator decides.

Spans both annotators marked identically are merged automatically. Each
conflict group (see :func:`app.services.agreement.conflict_groups`) is
listed and highlighted in both texts; the adjudicator takes A's version,
B's version or neither (keys 1, 2, 0 in the list). Saving writes the gold
layer with :meth:`Project.adjudicate` (accepted, human) and an audit entry
naming who decided, in one transaction, and marks the note reviewed.
"""
from __future__ import annotations

from app.core.spans import Span, sort_spans
from app.gui.agreement_view import KIND_TEXT, where_words
from app.gui.qt import (QAbstractItemView, QColor, QFont, QHBoxLayout, QHeaderView, QLabel,
                        QPushButton, QSplitter, Qt, QTableWidget, QTableWidgetItem,
                        QTextCharFormat, QTextCursor, QTextEdit, QVBoxLayout, QWidget,
                        Signal, Slot)
from app.gui.span_text import SpanTextView
from app.project import Project, SpanRecord
from app.services.agreement import conflict_groups
from app.services.double_annotation import annotator_spans, save_adjudication
from app.core.words import count

CHOICES = {"A": "take A", "B": "take B", "none": "neither"}
NO_NOTE = "Open a double-annotated document from the Agreement view."


class DecisionTable(QTableWidget):
    """The conflict list; keys 1 / 2 / 0 emit ``decided("A" | "B" | "none")``."""

    decided = Signal(str)

    def keyPressEvent(self, event) -> None:
        choice = {Qt.Key_1: "A", Qt.Key_2: "B", Qt.Key_0: "none"}.get(event.key())
        if choice is None:
            super().keyPressEvent(event)
        else:
            self.decided.emit(choice)


def _as_records(spans: list[Span], annotator: str) -> list[SpanRecord]:
    """Display-only records for the side-by-side texts."""
    return [SpanRecord(-i - 1, 0, s.start, s.end, s.label, "human", annotator, None,
                       "accepted", None, "", "") for i, s in enumerate(spans)]


class AdjudicationView(QWidget):
    """Resolve a double-annotated document into gold.

    Signals
    -------
    adjudicated(int)
        The document whose gold layer was saved.
    """

    adjudicated = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.adjudicator: str | None = None
        self.doc_id: int | None = None
        self.a = self.b = ""
        self.text = ""
        self.agreed: list[Span] = []
        self.groups = []
        self.choices: list[str | None] = []
        self.reviewed = False
        self.saved = False
        self.note_name = ""
        self.title = QLabel(NO_NOTE)
        self.title.setStyleSheet("font-weight: 600; font-size: 14px;")
        self.summary = QLabel()
        self.a_title, self.b_title = QLabel("A"), QLabel("B")
        self.a_view, self.b_view = SpanTextView(), SpanTextView()
        self.table = DecisionTable(0, 5)
        self.table.setHorizontalHeaderLabels(["Where", "Kind", "A", "B", "Decision"])
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.take_a = QPushButton("Take A  (1)")
        self.take_b = QPushButton("Take B  (2)")
        self.take_none = QPushButton("Neither  (0)")
        self.save_button = QPushButton("Save as gold")
        self.save_button.setStyleSheet("font-weight: 600;")

        sides = QSplitter(Qt.Horizontal)
        for title, view in ((self.a_title, self.a_view), (self.b_title, self.b_view)):
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(title)
            lay.addWidget(view)
            sides.addWidget(box)
        buttons = QHBoxLayout()
        for button in (self.take_a, self.take_b, self.take_none):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(self.table)
        bottom_layout.addLayout(buttons)
        split = QSplitter(Qt.Vertical)
        split.addWidget(sides)
        split.addWidget(bottom)
        split.setSizes([380, 220])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)

        self.take_a.clicked.connect(lambda: self.choose("A"))
        self.take_b.clicked.connect(lambda: self.choose("B"))
        self.take_none.clicked.connect(lambda: self.choose("none"))
        self.save_button.clicked.connect(self.save)
        self.table.itemSelectionChanged.connect(self._show_selected)
        self.table.decided.connect(self.choose)

    def set_project(self, project: Project | None, adjudicator: str | None) -> None:
        """Show ``project`` (None: no note, nothing of one left on screen).
        The same project under another name (File › Settings) keeps the
        note open and the decisions taken so far."""
        same = project is not None and project is self.project and self.doc_id is not None
        self.project, self.adjudicator = project, adjudicator
        if not same:
            self._clear()

    def _clear(self) -> None:
        self.doc_id, self.a, self.b, self.text = None, "", "", ""
        self.agreed, self.groups, self.choices = [], [], []
        self.reviewed = self.saved = False
        self.note_name = ""
        self.title.setText(NO_NOTE)
        self.summary.setText("")
        self.a_title.setText("A")
        self.b_title.setText("B")
        for view in (self.a_view, self.b_view):
            view.set_document("", [], {})
        self.table.setRowCount(0)
        self.save_button.setEnabled(False)

    def load(self, doc_id: int, a: str, b: str, at: int = -1) -> None:
        """Show annotators ``a`` and ``b`` on a document, agreed spans merged,
        the disagreement starting at ``at`` selected (-1 or none there: the first)."""
        self.doc_id, self.a, self.b = doc_id, a, b
        record = self.project.document(doc_id)
        self.text = record.text
        self.reviewed = record.status == "reviewed"
        spans_a = annotator_spans(self.project, doc_id, a)
        spans_b = annotator_spans(self.project, doc_id, b)
        self.agreed, self.groups = conflict_groups(spans_a, spans_b)
        self.choices = [None] * len(self.groups)
        self.saved = False
        colours = {label.name: label.colour for label in self.project.labels()}
        self.note_name = record.name
        self.title.setText(f"Adjudicate {record.name}")
        self.a_title.setText(f"A: {a}")
        self.b_title.setText(f"B: {b}")
        self.a_view.set_document(self.text, _as_records(spans_a, a), colours)
        self.b_view.set_document(self.text, _as_records(spans_b, b), colours)
        self._mark_conflicts()
        self.table.setRowCount(len(self.groups))
        for row, group in enumerate(self.groups):
            self.table.setItem(row, 0, QTableWidgetItem(where_words(self.text, group.start)))
            self.table.setItem(row, 1, QTableWidgetItem(KIND_TEXT[group.kind]))
            for col, spans in ((2, group.a), (3, group.b)):
                self.table.setItem(row, col, QTableWidgetItem("; ".join(
                    f"{s.label} “{self.text[s.start:s.end]}”" for s in spans) or "—"))
            self.table.setItem(row, 4, QTableWidgetItem("undecided"))
        self._update_summary()
        if self.groups:
            self.table.selectRow(next((i for i, g in enumerate(self.groups) if g.start == at), 0))
        self.table.setFocus()

    def _mark_conflicts(self) -> None:
        """Every conflict in both texts: bold dark-red text with a wavy underline
        (the span colours stay visible underneath)."""
        for view in (self.a_view, self.b_view):
            selections = []
            for group in self.groups:
                sel = QTextEdit.ExtraSelection()
                sel.cursor = QTextCursor(view.document())
                sel.cursor.setPosition(view.offsets.to_qt(group.start))
                sel.cursor.setPosition(view.offsets.to_qt(group.end), QTextCursor.KeepAnchor)
                sel.format.setUnderlineStyle(QTextCharFormat.WaveUnderline)
                sel.format.setUnderlineColor(QColor("#d00000"))
                sel.format.setForeground(QColor("#a00000"))
                sel.format.setFontWeight(QFont.Bold)
                selections.append(sel)
            view.setExtraSelections(selections)

    def _update_summary(self) -> None:
        done = sum(c is not None for c in self.choices)
        # A note adjudicated before shows its disagreements undecided again.
        before = ("Adjudicated before: saving again replaces its gold, with what was changed "
                  "in it since. " if self.reviewed else "")
        self.summary.setText(f"{before}{count(len(self.agreed), 'agreed span')} merged "
                             f"automatically · {done} of "
                             f"{count(len(self.groups), 'disagreement')} decided")
        self.save_button.setEnabled(self.doc_id is not None and done == len(self.groups))

    def _show_selected(self) -> None:
        row = self.table.currentRow()
        if 0 <= row < len(self.groups):
            group = self.groups[row]
            for view in (self.a_view, self.b_view):
                cursor = QTextCursor(view.document())
                cursor.setPosition(view.offsets.to_qt(group.start))
                view.setTextCursor(cursor)
                view.ensureCursorVisible()

    @Slot(str)
    def choose(self, choice: str, row: int | None = None) -> None:
        """Decide the selected (or given) conflict group, then go to the next."""
        row = self.table.currentRow() if row is None else row
        if not 0 <= row < len(self.groups):
            return
        self.choices[row] = choice
        self.table.item(row, 4).setText(CHOICES[choice])
        self._update_summary()
        if row + 1 < len(self.groups):
            self.table.selectRow(row + 1)

    def gold(self) -> list[Span]:
        """Agreed spans plus the chosen side of every decided group."""
        spans = list(self.agreed)
        for group, choice in zip(self.groups, self.choices):
            if choice == "A":
                spans += group.a
            elif choice == "B":
                spans += group.b
        return sort_spans(spans)

    @Slot()
    def save(self) -> bool:
        """Store the adjudicated gold; refused while a disagreement is undecided."""
        if self.doc_id is None or any(c is None for c in self.choices):
            self.summary.setText("Decide every disagreement before saving.")
            return False
        gold = self.gold()
        save_adjudication(self.project, self.doc_id, gold, annotators=(self.a, self.b),
                          agreed=len(self.agreed), choices=list(self.choices),
                          actor=self.adjudicator)
        self.summary.setText(f"Saved {count(len(gold), 'gold span')}; the note is now reviewed.")
        self.saved = True
        self.adjudicated.emit(self.doc_id)
        return True

    def unsaved(self) -> int:
        """How many disagreements were decided and not saved as gold yet."""
        return 0 if self.saved else sum(c is not None for c in self.choices)
