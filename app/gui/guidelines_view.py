"""Annotation guidelines: each label's description and examples, per project.

Descriptions live in ``labels.description`` (they also show as tooltips on
the editor's label buttons); examples in the project setting
:data:`EXAMPLES_KEY` (``{label: text}``).
"""
from __future__ import annotations

from app.gui.qt import (QFormLayout, QHBoxLayout, QLabel, QListWidget, QListWidgetItem,
                        QPlainTextEdit, QPushButton, QSplitter, Qt, QVBoxLayout, QWidget,
                        QColor, Signal, Slot)
from app.project import Project

EXAMPLES_KEY = "guidelines.examples"


class GuidelinesView(QWidget):
    """Browse and edit the label guidelines; ``labelsChanged`` after a save."""

    labelsChanged = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.label_list = QListWidget()
        self.label_list.setMaximumWidth(240)
        self.name = QLabel()
        self.name.setStyleSheet("font-weight: 600; font-size: 15px;")
        self.hotkey = QLabel()
        self.description = QPlainTextEdit()
        self.description.setPlaceholderText("What this label covers, and what it does not.")
        self.examples = QPlainTextEdit()
        self.save_button = QPushButton("Save guidelines")
        self.saved = QLabel()
        form = QFormLayout()
        form.addRow("Hotkey", self.hotkey)
        form.addRow("Description", self.description)
        form.addRow("Examples", self.examples)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.name)
        right_layout.addLayout(form, 1)
        row = QHBoxLayout()
        row.addWidget(self.saved, 1)
        row.addWidget(self.save_button)
        right_layout.addLayout(row)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.label_list)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split)
        self.label_list.currentRowChanged.connect(self._show)
        self.save_button.clicked.connect(self.save)
        self._labels = []
        self._examples: dict[str, str] = {}

    def set_project(self, project: Project | None) -> None:
        self.project = project
        self.label_list.clear()
        self._labels = project.labels() if project else []
        self._examples = dict(project.get_setting(EXAMPLES_KEY, {}) or {}) if project else {}
        for label in self._labels:
            item = QListWidgetItem(label.name)
            item.setData(Qt.DecorationRole, QColor(label.colour))
            self.label_list.addItem(item)
        if self._labels:
            self.label_list.setCurrentRow(0)

    @Slot(int)
    def _show(self, row: int) -> None:
        if not 0 <= row < len(self._labels):
            return
        label = self._labels[row]
        self.name.setText(label.name)
        # The example names the project's own label (PERSON showed in projects without one).
        self.examples.setPlaceholderText(f"One example per line, e.g.\n"
                                         f"Dr Kara Browning  → {label.name} (clinician names count)\n"
                                         f"Parkinson's disease → not a {label.name} (eponym)")
        self.hotkey.setText(label.hotkey or "—")
        self.description.setPlainText(label.description)
        self.examples.setPlainText(self._examples.get(label.name, ""))
        self.saved.setText("")

    def current_label(self) -> str | None:
        row = self.label_list.currentRow()
        return self._labels[row].name if 0 <= row < len(self._labels) else None

    @Slot()
    def save(self) -> None:
        """Save the shown label's description and examples in one transaction."""
        name = self.current_label()
        if self.project is None or name is None:
            return
        self._examples[name] = self.examples.toPlainText()
        with self.project.transaction():
            self.project.update_label(name, description=self.description.toPlainText())
            self.project.set_setting(EXAMPLES_KEY, self._examples)
        row = self.label_list.currentRow()
        self._labels = self.project.labels()
        self.saved.setText("Saved.")
        self.label_list.setCurrentRow(row)
        self.labelsChanged.emit()
