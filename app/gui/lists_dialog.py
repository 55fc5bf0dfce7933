"""File > Hospital lists…: the project's patient table and plain lists.

Presents `app.services.lists` (the same calls as `deid lists`): counts per
kind, the label each kind of hit takes, add a file of a kind (in a worker
thread: a patient index can be large), remove a kind. Shows counts only,
never an entry.
"""
from __future__ import annotations

from app.gui.qt import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QLabel,
                        QLineEdit, QMessageBox, QPushButton, QTableWidget, QTableWidgetItem,
                        QVBoxLayout, Signal, Slot)
from app.gui.workers import TaskRunner
from app.lists import LIST_KINDS
from app.lists.io import TARGETS
from app.lists.labels import in_words, label_map
from app.services.lists import add_list_file, patient_table_columns, remove_list

_HELP = {
    "patients": "CSV with a patient id and names, date of birth, record numbers, phones, "
                "addresses; map columns below if they are named otherwise",
    "staff": "clinicians' names, one a line",
    "places": "towns and areas around the hospital, one a line",
    "hospitals": "hospitals and clinics, one a line",
    "wards": "ward and unit names, one a line",
    "other": "anything else that identifies, one a line",
}


class HospitalListsDialog(QDialog):
    """Counts, labels, add and remove; ``changed`` after every change."""

    changed = Signal()

    def __init__(self, project, parent=None) -> None:
        super().__init__(parent)
        self.project = project
        self.setWindowTitle("Hospital lists")
        self.resize(640, 420)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(
            "Identifiers the hospital already knows. Every occurrence is found in the "
            "notes (any case, initials, typos) and always redacted."))
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["List", "Entries"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table)
        self.labels_label = QLabel()
        self.labels_label.setWordWrap(True)
        layout.addWidget(self.labels_label)

        row = QHBoxLayout()
        self.kind = QComboBox()
        self.kind.addItems(list(LIST_KINDS))
        self.kind.currentTextChanged.connect(self._on_kind)
        row.addWidget(self.kind)
        self.add_button = QPushButton("&Add file…")
        self.add_button.clicked.connect(self.ask_add)
        row.addWidget(self.add_button)
        self.remove_button = QPushButton("&Remove the list")
        self.remove_button.clicked.connect(self.ask_remove)
        row.addWidget(self.remove_button)
        layout.addLayout(row)
        self.kind_help = QLabel()
        self.kind_help.setWordWrap(True)
        layout.addWidget(self.kind_help)
        self.mapping = QLineEdit()
        self.mapping.setPlaceholderText("columns, e.g. patient_id=ID first_name=FIRST "
                                        "last_name=SURNAME (empty: columns named so)")
        layout.addWidget(self.mapping)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

        self._folder = ""                 # where the file dialog opens
        self.runner = TaskRunner(self)
        self.runner.finished.connect(self._on_added)
        self.runner.failed.connect(self._on_failed)
        if project.readonly:
            self.add_button.setEnabled(False)
            self.status.setText("The project is open read-only: the lists cannot be changed.")
        self._on_kind(self.kind.currentText())
        self.refresh()

    def refresh(self) -> None:
        counts = self.project.list_counts()
        rows = [(k, counts[k]) for k in LIST_KINDS if k in counts]
        self.table.setRowCount(len(rows))
        for r, (kind, c) in enumerate(rows):
            extra = f" ({c['patients']} patients)" if "patients" in c else ""
            self.table.setItem(r, 0, QTableWidgetItem(kind))
            self.table.setItem(r, 1, QTableWidgetItem(f"{c['entries']}{extra}"))
        mapping, skipped = label_map(l.name for l in self.project.labels())
        self.labels_label.setText(in_words(mapping, skipped))
        self._update_remove()

    def _update_remove(self) -> None:
        """Remove names the chosen kind's list and works only when it holds entries."""
        kind = self.kind.currentText()
        self.remove_button.setText(f"&Remove the {kind} list")
        self.remove_button.setEnabled(
            not self.project.readonly and kind in self.project.list_counts())

    @Slot(str)
    def _on_kind(self, kind: str) -> None:
        self.kind_help.setText(_HELP[kind])
        self.mapping.setEnabled(kind == "patients")
        self._update_remove()

    def ask_add(self) -> None:
        # The next file dialog opens where the last list came from: a site's
        # lists usually sit in one folder.
        path, _ = QFileDialog.getOpenFileName(
            self, "Add a list file", self._folder, "Lists (*.csv *.txt *.tsv);;All files (*)")
        if path:
            from pathlib import Path
            self._folder = str(Path(path).parent)
            self.add_file(path, self.kind.currentText(), self.mapping.text().split())

    def add_file(self, path: str, kind: str, mapping: list[str]) -> None:
        """Add ``path`` as a list of ``kind`` in the background."""
        project = self.project
        self._adding = (path, kind)
        if self.runner.start("lists", lambda progress, cancel: add_list_file(
                project, path, kind, mapping if kind == "patients" else None)):
            self.add_button.setEnabled(False)
            self.status.setText("Adding…")

    @Slot(object)
    def _on_added(self, s) -> None:
        self.add_button.setEnabled(True)
        self.status.setText(f"{s.sentence()}.")      # the fields read show the mapping
        self.refresh()
        self.changed.emit()

    @Slot(str)
    def _on_failed(self, reason: str) -> None:
        self.add_button.setEnabled(True)
        path, kind = self._adding
        columns = patient_table_columns(path) if kind == "patients" else []
        if columns:
            # The reason names a column or a field; the person needs the
            # file's columns (names only) to write the mapping, in the box
            # (the reason's "--map" is the command line's way).
            reason = reason.split(": map ")[0]
            self.status.setText(
                f"Not added: {reason}.\nIts columns: {', '.join(columns)}. If they hold the "
                f"patient id and a patient's names, date of birth, record numbers, phones or "
                f"addresses, write "
                f"FIELD=COLUMN in the box above (fields: {', '.join(TARGETS)}) and Add file… "
                f"again; a file that only links notes to patients is no patient table.")
            self.mapping.setFocus()
        else:
            self.status.setText(f"Not added: {reason}")

    def ask_remove(self) -> None:
        kind = self.kind.currentText()
        answer = QMessageBox.question(self, "Remove a list",
                                      f"Remove every entry of the {kind} list?")
        if answer == QMessageBox.StandardButton.Yes:
            n = remove_list(self.project, kind)
            self.status.setText(f"{kind}: removed {n} entries.")
            self.refresh()
            self.changed.emit()

    def done(self, result: int) -> None:
        self.runner.shutdown()
        super().done(result)


def open_lists_dialog(window) -> None:
    """The main window's File > Hospital lists… action."""
    if window.project is None:
        QMessageBox.information(window, "Hospital lists", "Open a project first.")
        return
    dialog = window.lists_dialog = HospitalListsDialog(window.project, window)
    # Once closed, what the lists changed shows: Preview, the notes' suggestions.
    changes = []
    dialog.changed.connect(lambda: changes.append(True))
    dialog.finished.connect(lambda _result: window.floor_changed() if changes else None)
    dialog.open()
