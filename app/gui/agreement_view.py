"""Inter-annotator agreement between two annotators on their shared documents."""
from __future__ import annotations

from app.gui.qt import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel,
                        QPushButton, QSplitter, Qt, QTableWidget, QTableWidgetItem,
                        QVBoxLayout, QWidget, Signal, Slot)
from app.project import Project
from app.services.agreement import Agreement, label_f1
from app.services.double_annotation import project_agreement
from app.core.words import count

KIND_TEXT = {"label": "label differs", "boundary": "boundaries differ",
             "only_a": "only A", "only_b": "only B"}


def _item(value, align_right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(value if isinstance(value, str) else f"{value:.3f}")
    if align_right or not isinstance(value, str):
        item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
    return item


def where_words(text: str, offset: int) -> str:
    """Where a disagreement is, as a reader finds it: its line ("line 3";
    character offsets meant nothing to a lead annotator)."""
    return f"line {text.count(chr(10), 0, offset) + 1}"


class AgreementView(QWidget):
    """Pick two annotators, compute agreement per document and per label.

    ``adjudicateRequested(doc_id, a, b, at)`` asks the window to open the
    adjudication view.
    """

    adjudicateRequested = Signal(int, str, str, int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.result: Agreement | None = None
        self.per_document: dict[int, Agreement] = {}
        self.a_box, self.b_box = QComboBox(), QComboBox()
        self.compute_button = QPushButton("Compute agreement")
        self.adjudicate_button = QPushButton("Adjudicate selected document")
        self.summary = QLabel("Choose two annotators, then press Compute agreement.")
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("font-size: 13px;")
        self.doc_table = self._table(("Document", "Entity F1", "κ all tokens",
                                      "κ annotated", "Disagreements"))
        self.label_table = self._table(("Label", "Entity F1", "κ (binary)", "A spans",
                                        "B spans"))
        self.dis_table = self._table(("Document", "Where", "Kind", "A", "B"))

        bar = QHBoxLayout()
        bar.addWidget(QLabel("Annotator A"))
        bar.addWidget(self.a_box)
        bar.addWidget(QLabel("Annotator B"))
        bar.addWidget(self.b_box)
        bar.addWidget(self.compute_button)
        bar.addStretch(1)
        bar.addWidget(self.adjudicate_button)
        tables = QSplitter(Qt.Vertical)
        top = QSplitter(Qt.Horizontal)
        top.addWidget(self._titled("Documents", self.doc_table))
        top.addWidget(self._titled("Per label", self.label_table))
        tables.addWidget(top)
        tables.addWidget(self._titled("Disagreements", self.dis_table))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(self.summary)
        layout.addWidget(tables, 1)
        self.compute_button.clicked.connect(self.compute)
        self.adjudicate_button.clicked.connect(self._adjudicate_selected)
        # Nothing to adjudicate until a row is chosen (a click did nothing, unsaid).
        self.adjudicate_button.setEnabled(False)
        self.adjudicate_button.setToolTip("Select a disagreement or a document first")
        for table in (self.dis_table, self.doc_table):
            table.itemSelectionChanged.connect(self._update_adjudicate)
        self.doc_table.doubleClicked.connect(self._adjudicate_selected)
        self.dis_table.doubleClicked.connect(self._adjudicate_selected)

    @staticmethod
    def _table(headers) -> QTableWidget:
        table = QTableWidget(0, len(headers))
        table.setHorizontalHeaderLabels(list(headers))
        table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectRows)
        table.setSelectionMode(QAbstractItemView.SingleSelection)
        table.verticalHeader().setVisible(False)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        return table

    @staticmethod
    def _titled(title: str, widget: QWidget) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 4, 0, 0)
        heading = QLabel(title)
        heading.setStyleSheet("font-weight: 600;")
        layout.addWidget(heading)
        layout.addWidget(widget)
        return box

    def set_project(self, project: Project | None) -> None:
        self.project = project
        self.refresh_annotators()
        for table in (self.doc_table, self.label_table, self.dis_table):
            table.setRowCount(0)
        self.summary.setText("Choose two annotators, then press Compute agreement.")

    def refresh_annotators(self) -> None:
        # Those a note is assigned to: anyone who opened the project is an
        # annotator too (a lead's own name came first in a walkthrough).
        names = [n for n in self.project.assigned_annotators() if not n.startswith("@")] \
            if self.project else []
        for i, box in enumerate((self.a_box, self.b_box)):
            current = box.currentText()
            box.clear()
            box.addItems(names)
            if current in names:
                box.setCurrentText(current)
            elif len(names) > i:
                box.setCurrentIndex(i)
        # Two different people once there are two (a second annotator appearing
        # left B on A's name, and "Compute" asked to choose again).
        if self.a_box.currentText() == self.b_box.currentText() and len(names) > 1:
            self.b_box.setCurrentText(next(n for n in names if n != self.a_box.currentText()))

    @Slot()
    def compute(self) -> Agreement | None:
        """Compute agreement of A and B over the documents assigned to both."""
        a, b = self.a_box.currentText(), self.b_box.currentText()
        if self.project is None or not a or not b or a == b:
            self.summary.setText("Choose two different annotators.")
            return None
        measured = project_agreement(self.project, a, b)
        self.per_document, self.result = measured.per_document, measured.overall
        if not measured.items:
            for table in (self.doc_table, self.label_table, self.dis_table):
                table.setRowCount(0)
            self.summary.setText(f"<b>{a}</b> and <b>{b}</b> share no note: nothing to compare "
                                 f"(File › Assign selected note to two annotators…).")
            return None
        self._show(a, b, measured.items)
        k, n = len(measured.unfinished), len(measured.items)
        if k:
            said = ("Not yet marked done by both: the figures may still change." if k == n else
                    f"{k} of these {n} notes not yet marked done by both: their figures may "
                    f"still change.")
            self.summary.setText(f"{self.summary.text()}<br>{said}")
        return self.result

    def _show(self, a: str, b: str, items: dict) -> None:
        r = self.result
        names = {info.id: info.name for info in self.project.document_infos()
                 if info.id in items}
        self.summary.setText(
            f"<b>{a}</b> vs <b>{b}</b> on {count(len(items), 'shared document')}: "
            f"entity F1 <b>{r.f1:.3f}</b> · Cohen's κ over all tokens <b>{r.kappa_all:.3f}</b> "
            f"({r.tokens} tokens) · κ over annotated tokens <b>{r.kappa_annotated:.3f}</b> "
            f"({r.annotated_tokens} tokens) · {count(len(r.disagreements), 'disagreement')}")
        self.doc_table.setRowCount(len(items))
        dis_rows = []
        for row, doc_id in enumerate(items):
            d = self.per_document[doc_id]
            name = QTableWidgetItem(names.get(doc_id, str(doc_id)))
            name.setData(Qt.UserRole, doc_id)
            self.doc_table.setItem(row, 0, name)
            for col, value in enumerate((d.f1, d.kappa_all, d.kappa_annotated), 1):
                self.doc_table.setItem(row, col, _item(value))
            self.doc_table.setItem(row, 4, _item(str(len(d.disagreements)), True))
            text = items[doc_id][0]
            dis_rows += [(doc_id, names.get(doc_id, str(doc_id)), g, text) for g in d.disagreements]
        labels = sorted(r.per_label)
        self.label_table.setRowCount(len(labels))
        for row, label in enumerate(labels):
            prf = r.per_label[label]
            self.label_table.setItem(row, 0, QTableWidgetItem(label))
            self.label_table.setItem(row, 1, _item(label_f1(prf)))
            self.label_table.setItem(row, 2, _item(r.per_label_kappa[label]))
            self.label_table.setItem(row, 3, _item(str(prf.tp + prf.fn), True))
            self.label_table.setItem(row, 4, _item(str(prf.tp + prf.fp), True))
        self.dis_table.setRowCount(len(dis_rows))
        for row, (doc_id, name, group, text) in enumerate(dis_rows):
            item = QTableWidgetItem(name)
            item.setData(Qt.UserRole, doc_id)
            self.dis_table.setItem(row, 0, item)
            where = QTableWidgetItem(where_words(text, group.start))
            where.setData(Qt.UserRole, group.start)      # Adjudicate opens at this one
            self.dis_table.setItem(row, 1, where)
            self.dis_table.setItem(row, 2, QTableWidgetItem(KIND_TEXT[group.kind]))
            for col, spans in ((3, group.a), (4, group.b)):
                self.dis_table.setItem(row, col, QTableWidgetItem(
                    "; ".join(f"{s.label} “{text[s.start:s.end]}”" for s in spans) or "—"))

    @Slot()
    def _update_adjudicate(self) -> None:
        self.adjudicate_button.setEnabled(any(
            t.selectionModel().selectedRows() for t in (self.dis_table, self.doc_table)))

    @Slot()
    def _adjudicate_selected(self) -> None:
        """Open the document of the selected disagreement (else document) row."""
        for table in (self.dis_table, self.doc_table):
            rows = table.selectionModel().selectedRows()
            if rows:
                doc_id = table.item(rows[0].row(), 0).data(Qt.UserRole)
                at = table.item(rows[0].row(), 1).data(Qt.UserRole) \
                    if table is self.dis_table else -1
                self.adjudicateRequested.emit(doc_id, self.a_box.currentText(),
                                              self.b_box.currentText(), at)
                return
