"""Rules: the English rules that run after the models, read, switched and
extended per project.

Presents `app.rules.registry` (the same calls as `deid rules`): every rule
with its switch, what it finds or vetoes and the label it gives in this
project; the selected rule's fields and evidence; and a form for a site's
own pattern, with a test that shows its hits in the note open in Annotate
before it is added; and which label each kind the starter model finds takes
here (`app.models.starter_model.mapping_sentence`). ``rulesChanged`` after a switch or an addition (the
window then predicts again).
"""
from __future__ import annotations

from app.errors import UserError
from app.gui.qt import (QComboBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                        QPlainTextEdit, QPushButton, QSplitter, Qt, QTableWidget,
                        QTableWidgetItem, QTextOption, QVBoxLayout, QWidget, Signal, Slot)
from app.rules import registry
from app.services.choice import day_one_labels, steps_not_run
from app.core.words import count

#: The columns of the rules table.
COLUMNS = ("On", "Rule", "Does", "Label in this project", "Step", "Word sets")
INTRO = ("Rules that run after the models on English notes. A trained model keeps a step "
         "only where your dev notes agree with it; switch a rule off here when it eats your "
         "identifiers or hides words that are none, or add your own pattern.")
#: The recogniser, said under the intro (it is no rule of the file).
RECOGNISER = registry.RECOGNISER
#: How many hits the test lists (the count is of all).
SHOWN_HITS = 8


class RulesView(QWidget):
    """The rules table, the selected rule's fields, and a site's own rule."""

    rulesChanged = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project = None
        self.note: tuple[str, str] | None = None         # (name, text) open in Annotate
        self.intro = QLabel(INTRO)
        self.intro.setWordWrap(True)
        self.recogniser = QLabel(RECOGNISER)
        self.recogniser.setWordWrap(True)
        self.mapping = QLabel()
        self.mapping.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        # Titles at their columns' start: a long last column (every word set
        # a rule reads) put its centred title beyond the view.
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignLeft | Qt.AlignVCenter)
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        self.table.setSelectionMode(QTableWidget.SingleSelection)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        # The selected rule's fields, patterns and words: read-only text that
        # wraps anywhere, since a pattern is one long word.
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setLineWrapMode(QPlainTextEdit.WidgetWidth)
        self.detail.setWordWrapMode(QTextOption.WrapAtWordBoundaryOrAnywhere)

        self.name = QLineEdit()
        self.name.setPlaceholderText("e.g. site-mrn")
        self.kind = QComboBox()
        self.kind.addItems(list(registry.SITE_KINDS))
        self.pattern = QLineEdit()
        self.pattern.setPlaceholderText(r"a regular expression, e.g. \bQ\d{6}\b")
        self.context = QLineEdit()
        self.context.setPlaceholderText("words of which one must stand just before a hit "
                                        "(comma between; empty: none needed)")
        self.context.setToolTip(f"One of these words must stand within "
                                f"{registry.CONTEXT_CHARS} characters or "
                                f"{registry.CONTEXT_WORDS} words before a hit.")
        self.example = QLineEdit()
        self.example.setPlaceholderText("what a hit looks like, made up (no real identifier)")
        self.evidence = QLineEdit()
        self.evidence.setPlaceholderText("why: where such identifiers come from")
        self.kind_label = QLabel()
        self.test_button = QPushButton("&Test on the open note")
        self.add_button = QPushButton("&Add rule")
        # The site's own rules: removed, written to a file, added from one.
        self.remove_button = QPushButton("&Remove rule")
        self.remove_button.setToolTip("Remove the selected rule of your own (a shipped rule is "
                                      "switched off with its box instead)")
        self.export_button = QPushButton("&Write your rules to a file…")
        self.import_button = QPushButton("Add rules from a &file…")
        self.hits = QLabel()
        self.hits.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Name", self.name)
        kind_row = QHBoxLayout()
        kind_row.addWidget(self.kind)
        kind_row.addWidget(self.kind_label, 1)
        form.addRow("Finds", kind_row)
        form.addRow("Pattern", self.pattern)
        form.addRow("Context", self.context)
        form.addRow("Example", self.example)
        form.addRow("Why", self.evidence)
        buttons = QHBoxLayout()
        buttons.addWidget(self.test_button)
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        form.addRow(buttons)
        form.addRow(self.hits)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.detail, 1)
        right_layout.addWidget(QLabel("<b>A rule of your own</b>"))
        right_layout.addLayout(form)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        own = QHBoxLayout()
        for button in (self.remove_button, self.export_button, self.import_button):
            own.addWidget(button)
        own.addStretch(1)
        left_layout.addLayout(own)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.intro)
        layout.addWidget(self.recogniser)
        layout.addWidget(self.mapping)
        layout.addWidget(split, 1)

        self.table.currentCellChanged.connect(lambda row, *_: self._show(row))
        self.table.itemChanged.connect(self._on_item_changed)
        self.kind.currentTextChanged.connect(self._show_kind_label)
        self.test_button.clicked.connect(self.test_pattern)
        self.add_button.clicked.connect(self.add_rule)
        self.remove_button.clicked.connect(self.remove_rule)
        self.export_button.clicked.connect(self.export_rules)
        self.import_button.clicked.connect(self.import_rules)
        self._rules: registry.RuleSet | None = None
        self._not_run: dict[str, str] = {}      # the steps the model in use does not run
        self._filling = False
        self.set_project(None)

    # ---------------------------------------------------------------- state
    def set_project(self, project) -> None:
        self.project = project
        editable = project is not None and not project.readonly
        for widget in (self.name, self.kind, self.pattern, self.context, self.example,
                       self.evidence, self.add_button, self.import_button):
            widget.setEnabled(editable)
        self.test_button.setEnabled(project is not None)
        english = project is None or project.language == "en"
        self.intro.setText(INTRO if english else INTRO + f" This project's notes are "
                           f"{project.language!r}: these rules do not run on them.")
        self.mapping.setVisible(project is not None and english)
        self.hits.clear()
        self.reload()

    def _show_mapping(self) -> None:
        """Which label each kind the starter finds takes, in the project's
        labels as they are now (an import may have brought them)."""
        labels = self._labels()
        if self.project is None or self.project.language != "en":
            return
        if not labels:
            self.mapping.setText("The starter model's finds take this project's labels once "
                                 "it has some (import annotated notes or add labels).")
            return
        from app.models.starter_model import mapping_sentence
        self.mapping.setText(f"What the starter model finds, in this project's labels: "
                             f"{mapping_sentence(labels)}.")

    def showEvent(self, event) -> None:                # noqa: N802 (Qt's name)
        # Labels can change while the page is hidden (an import brings them).
        self.reload()
        super().showEvent(event)

    def set_note(self, name: str | None, text: str | None) -> None:
        """The note the test runs on (the one of Annotate or Preview shown last)."""
        self.note = (name, text) if text is not None else None

    def _labels(self) -> list[str]:
        return [label.name for label in self.project.labels()] if self.project else []

    def reload(self) -> None:
        """Fill the table from the project's rules, keeping the selected row."""
        row = max(self.table.currentRow(), 0)
        self._show_mapping()
        self._rules = registry.project_rules(self.project) if self.project is not None else None
        rules = self._rules.rules if self._rules is not None else ()
        labels = self._labels()
        self._not_run = steps_not_run(self.project) if self.project is not None else {}
        self._day_one = day_one_labels(self.project) if self.project is not None else frozenset()
        self._filling = True
        self.table.setRowCount(len(rules))
        editable = self.project is not None and not self.project.readonly
        for i, rule in enumerate(rules):
            switch = QTableWidgetItem()
            flags = Qt.ItemIsSelectable | Qt.ItemIsEnabled
            switch.setFlags(flags | Qt.ItemIsUserCheckable if editable else flags)
            switch.setCheckState(Qt.Checked if rule.enabled else Qt.Unchecked)
            label = registry.kind_label(rule.kind, labels) or "none: left to the leak scan"
            step = rule.step + self._run_note(rule, labels)
            cells = [switch] + [QTableWidgetItem(t) for t in (
                rule.name + (" (yours)" if rule.site else ""), f"{rule.action} {rule.kind}",
                label, step, ", ".join(rule.lists))]
            for c, item in enumerate(cells):
                item.setToolTip(rule.evidence)
                self.table.setItem(i, c, item)
        self._filling = False
        self.table.resizeColumnsToContents()
        if rules:
            self.table.setCurrentCell(min(row, len(rules) - 1), 1)
        self._show(self.table.currentRow())
        self._show_kind_label(self.kind.currentText())

    def _run_note(self, rule, labels: list[str]) -> str:
        """Beside a rule's step: whether what it finds is hidden after training."""
        if rule.step not in self._not_run:
            return ""
        if rule.action == "finds" and registry.kind_label(rule.kind, labels) in self._day_one:
            return " — off for the model; day-one finds kept"
        return " — not run by the model in use"

    def _show(self, row: int) -> None:
        if self._rules is None or not 0 <= row < len(self._rules.rules):
            self.detail.setPlainText("Open a project to see its rules." if self.project is None
                                     else "")
            self._show_own_buttons(None)
            return
        rule = self._rules.rules[row]
        self._show_own_buttons(rule)
        lines = registry.rule_detail(rule, self._labels())
        if rule.step in self._not_run:
            lines.append(f"{rule.step}: {self._not_run[rule.step]}.")
        self.detail.setPlainText("\n".join(lines))

    def _show_kind_label(self, kind: str) -> None:
        label = registry.kind_label(kind, self._labels()) if self.project else None
        self.kind_label.setText(f"→ {label}" if label else "→ no label in this project")

    # -------------------------------------------------------------- actions
    @Slot(QTableWidgetItem)
    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != 0 or self._rules is None:
            return
        row = item.row()
        rule = self._rules.rules[row]
        on = item.checkState() == Qt.Checked
        if on == rule.enabled:
            return
        registry.set_enabled(self.project, rule.name, on)
        # A click on a box need not select its row: show the rule just switched.
        self.table.setCurrentCell(row, 1)
        self.reload()
        self.rulesChanged.emit()

    def _entry(self) -> dict:
        """The form as a checked site rule (``UserError`` saying what is wrong)."""
        context = [c.strip() for c in self.context.text().split(",") if c.strip()]
        return registry.check_site_rule(
            {"name": self.name.text().strip(), "kind": self.kind.currentText(),
             "patterns": [self.pattern.text()], "context": context,
             "example": self.example.text().strip(), "evidence": self.evidence.text().strip()},
            where="your rule")

    @Slot()
    def test_pattern(self) -> None:
        """Show the form's hits in the note open in Annotate."""
        try:
            entry = self._entry()
        except UserError as exc:
            self.hits.setText(str(exc))
            return
        if self.note is None:
            self.hits.setText("Open a note in Annotate or Preview to test the rule on it.")
            return
        name, text = self.note
        found = registry.merge([], {"added": [entry]}).rules[0].finder()(text)
        shown = ", ".join(repr(text[a:b]) for a, b in found[:SHOWN_HITS])
        more = f" and {len(found) - SHOWN_HITS} more" if len(found) > SHOWN_HITS else ""
        self.hits.setText(f"{count(len(found), 'hit')} in {name}" + (f": {shown}{more}" if found else "."))

    @Slot()
    def add_rule(self) -> None:
        try:
            entry = self._entry()
            names = registry.add_rules(self.project, [entry])
        except UserError as exc:
            self.hits.setText(f"Not added: {exc}")
            return
        unlabelled = registry.kind_label(entry["kind"], self._labels()) is None
        self.hits.setText(f"Added {names[0]}: " + (
            f"{registry.no_label(entry['kind'])}." if unlabelled else
            "it runs from now on, in Preview, the suggestions of the notes to do and every "
            "export."))
        for box in (self.name, self.pattern, self.context, self.example, self.evidence):
            box.clear()
        self.reload()
        self.table.setCurrentCell(self.table.rowCount() - 1, 1)
        self.rulesChanged.emit()

    def _show_own_buttons(self, rule) -> None:
        editable = self.project is not None and not self.project.readonly
        self.remove_button.setEnabled(editable and rule is not None and rule.site)
        self.export_button.setEnabled(self._rules is not None
                                      and any(r.site for r in self._rules.rules))

    @Slot()
    def remove_rule(self) -> None:
        """Remove the selected rule of the site's own."""
        row = self.table.currentRow()
        if self._rules is None or not 0 <= row < len(self._rules.rules):
            return
        try:
            names = registry.remove_rules(self.project, [self._rules.rules[row].name])
        except UserError as exc:
            self.hits.setText(f"Not removed: {exc}")
            return
        self.hits.setText(f"Removed {names[0]}: it runs no more, from the next prediction on.")
        self.reload()
        self.rulesChanged.emit()

    @Slot()
    def export_rules(self) -> None:
        """Write the site's own rules to a JSON file another project can add."""
        path, _ = QFileDialog.getSaveFileName(self, "Write your rules to a file", "rules.json",
                                              "Rules files (*.json)")
        if not path:
            return
        try:
            names = registry.write_site_rules(self.project, path)
        except UserError as exc:
            self.hits.setText(f"Not written: {exc}")
            return
        self.hits.setText(f"Wrote {count(len(names), 'rule')} to {path}: another project adds "
                          f"them with Add rules from a file.")

    @Slot()
    def import_rules(self) -> None:
        """Add the rules of a JSON rules file (a corrected rule of the same
        name replaces the project's own)."""
        path, _ = QFileDialog.getOpenFileName(self, "Add rules from a file", "",
                                              "Rules files (*.json)")
        if not path:
            return
        try:
            entries = registry.read_site_rules(path)
            replaced = registry.replacing(self.project, entries)
            names = registry.add_rules(self.project, entries, replace=True)
        except UserError as exc:
            self.hits.setText(f"Not added: {exc}")
            return
        self.hits.setText(f"Added {count(len(names), 'rule')}: {', '.join(names)}."
                          + (f" Replaced yours of the same name: {', '.join(replaced)}."
                             if replaced else "")
                          + "".join(f" {line}" for line in
                                    registry.without_label(entries, self._labels())))
        self.reload()
        self.rulesChanged.emit()
