"""Small dialogs: import summary, settings, about."""
from __future__ import annotations

import html
import importlib.metadata as md
import platform
import sys

from app import __version__
from app.errors import UserError
from app.gui.qt import (PYSIDE_VERSION, QT_VERSION, QAbstractItemView, QComboBox, QDialog,
                        QDialogButtonBox, QDoubleSpinBox, QFormLayout, QHeaderView, QLabel,
                        QLineEdit, QSpinBox, Qt, QTableWidget, QTableWidgetItem, QVBoxLayout)
from app.core.words import count


def _table(headers: list[str], rows: list[tuple[str, str]]) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(str(value)))
    return table


class ImportSummaryDialog(QDialog):
    """What an import did, with every skipped file and why, and every
    imported note that was read with a warning."""

    def __init__(self, summary, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import finished")
        self.resize(620, 360)
        layout = QVBoxLayout(self)
        imported = count(summary.imported, "note").split(" ", 1)
        # Only what happened: "0 warnings" read as all clear above a warning.
        parts = [f"<b>{imported[0]}</b> {imported[1]} imported with "
                 f"{count(summary.spans, 'annotated span')}"]
        if summary.annotated:
            parts.append(f"{count(summary.annotated, 'note')} to do took the files' annotations")
        if summary.layer:
            parts.append(f"{count(summary.layer, 'note')} annotated again by another "
                         "annotator (compare them in Agreement)")
        if summary.annotated or summary.layer:
            parts.append(f"{count(summary.taken_spans, 'annotated span')} to notes the "
                         "project holds")
        from app.services.importing import unnamed_sentence
        if said := unnamed_sentence(summary):
            parts.append(html.escape(said))
        if summary.duplicates:
            from app.services.importing import duplicates_words
            # Which, and of what: "10 duplicates skipped" alone left a user guessing.
            parts.append(f"{count(summary.duplicates, 'duplicate')} skipped (each the text of a "
                         f"note the project holds: "
                         f"{html.escape(duplicates_words(summary.duplicate_of))})")
        if summary.problems:
            parts.append(f"{count(len(summary.problems), 'file')} left out")
        if summary.warnings:
            parts.append(f"{count(len(summary.warnings), 'note')} read with a warning")
        text = " · ".join(parts + [f"{summary.seconds:.1f}&nbsp;s"])
        if getattr(summary, "labels_mapped", None):
            text += "<br>Filed under the project's labels: " + ", ".join(
                f"{html.escape(a)} → {html.escape(b)} ({count(n, 'span')})"
                for (a, b), n in summary.labels_mapped.items())
        if summary.labels_added:
            text += "<br>New labels: " + ", ".join(summary.labels_added)
        if summary.patients_from_table:
            n = summary.patients_from_table
            text += (f"<br>{count(n, 'note')} {'has' if n == 1 else 'have'} the patient that "
                     f"{'its' if n == 1 else 'their'} file name names (an id of the patient table)")
        for sentence in getattr(summary, "left_in_clear", ()):
            text += f"<br><span style='color:#a40000'>⚠ {html.escape(sentence)}.</span>"
        self.text = QLabel(text)
        self.text.setWordWrap(True)
        layout.addWidget(self.text)
        self.problems = _table(["Skipped file", "Reason"], summary.problems)
        self.problems.setVisible(bool(summary.problems))
        layout.addWidget(self.problems, 1)
        # What was imported but read with a guess (an encoding, a renamed
        # file, repeated spans): counted above, so shown here, not only logged.
        self.warnings = _table(["Imported note", "Warning"], summary.warnings)
        self.warnings.setVisible(bool(summary.warnings))
        layout.addWidget(self.warnings, 1)
        if not summary.problems and not summary.warnings:
            self.resize(620, 140 + 40 * len(getattr(summary, "left_in_clear", ())))
            layout.addStretch(1)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)


class SettingsDialog(QDialog):
    """Per-user settings (stored in ``QSettings``, not in the project)."""

    def __init__(self, settings, parent=None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("Settings")
        form = QFormLayout(self)
        self.annotator = QLineEdit(str(settings.value("annotator", "") or ""))
        self.annotator.setPlaceholderText("Your name or initials, as stored with your spans")
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(float(settings.value("accept_threshold", 0.9)))
        self.font_size = QSpinBox()
        self.font_size.setRange(8, 28)
        self.font_size.setValue(int(settings.value("font_size", 12)))
        form.addRow("Annotator name", self.annotator)
        form.addRow("Accept suggestions at or above", self.threshold)
        form.addRow("Note font size", self.font_size)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def save(self) -> None:
        name = self.annotator.text().strip()
        if name:
            self.settings.setValue("annotator", name)
        self.settings.setValue("accept_threshold", self.threshold.value())
        self.settings.setValue("font_size", self.font_size.value())


def version_rows() -> list[tuple[str, str]]:
    """Versions of the application, Python, Qt and the ML stack (no heavy imports)."""
    from app.services.doctor import PACKAGES
    rows = [("DeID Studio", __version__), ("Python", sys.version.split()[0]),
            ("Platform", platform.platform()), ("Qt", QT_VERSION), ("PySide6", PYSIDE_VERSION)]
    for name in PACKAGES:
        try:
            rows.append((name, md.version(name)))
        except md.PackageNotFoundError:
            continue
    return rows


def device_rows() -> list[tuple[str, str]]:
    """Compute devices found (imports torch: call when the dialog opens, not at start)."""
    from app.models.device import detect_devices
    info = detect_devices()
    gpu = (f"{info.cuda_name} ({(info.cuda_total_memory or 0) / 2**30:.0f} GiB)"
           if info.cuda_available else "none (training runs on the CPU)")
    return [("GPU (CUDA)", gpu), ("Apple GPU (MPS)", "yes" if info.mps_available else "no"),
            ("CPU cores", f"{info.cpu_physical} physical, {info.cpu_logical} logical")]


class AboutDialog(QDialog):
    def __init__(self, parent=None, *, devices: bool = True) -> None:
        super().__init__(parent)
        self.setWindowTitle("About DeID Studio")
        self.resize(560, 640)
        layout = QVBoxLayout(self)
        intro = QLabel("<h3>DeID Studio</h3>Offline de-identification of clinical notes: "
                       "annotate, train an NER ensemble on this machine, redact. "
                       "Nothing leaves this computer.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        versions = version_rows()
        # Devices right under the application version: the first thing support asks.
        rows = versions[:1] + (device_rows() if devices else []) + versions[1:]
        self.table = _table(["Component", "Version / device"], rows)
        layout.addWidget(self.table, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)


#: Split choices of an import. "patient": each patient's notes go to train, dev
#: or test (70/15/15, see app.services.splits), so the test figures are on
#: patients the model never saw; ``None`` leaves it to training (train/dev only).
IMPORT_SPLITS = (("patient", "By patient: 70% train, 15% dev, 15% test"),
                 (None, "None yet (training splits train/dev by patient)"),
                 ("train", "All train"), ("dev", "All dev"), ("test", "All test"))
#: Example file names shown under the patient-id pattern.
_EXAMPLES = 3
#: File names a patient-id pattern is guessed from.
_GUESS_FROM = 500


class ImportOptionsDialog(QDialog):
    """How to import a folder: the patient-id pattern (so "label in the
    patient's notes" and per-patient surrogates work), the split, and which
    project label each label of the files' annotations goes under.

    The pattern is tried on the first file names as it is typed; an
    invalid one disables OK with the reason. A label the project lacks is
    offered the project label of its kind (another set's PERSON is a HIPAA
    project's NAME), or to stay a label of its own.
    """

    def __init__(self, folder: str, parent=None, project_labels: list[str] | None = None,
                 known_patients: set[str] | frozenset[str] = frozenset()) -> None:
        super().__init__(parent)
        from pathlib import Path
        from app.formats.base import iter_files
        from app.services.settings import guess_patient_regex
        self.setWindowTitle("Import a folder")
        names, paths = [], []
        for path in iter_files(Path(folder), [".txt", ".xml", ".jsonl", ".conll"]):
            names.append(path.stem)
            # What the import reads the patient from (app.services.settings).
            paths.append(path.relative_to(folder).as_posix())
            if len(names) >= _GUESS_FROM:
                break
        self.names = names[:_EXAMPLES]
        self.paths = paths[:_EXAMPLES]
        # Every path read, for the patients the project already has (a second
        # import silently joined another set's P0001 to this one's).
        self.read_paths = paths
        self.known_patients = frozenset(known_patients)
        # A pattern the file names suggest is proposed (a clinician need not
        # write one), shown with the ids it reads; clearing it means none.
        self.guessed = guess_patient_regex(names)
        form = QFormLayout(self)
        folder_label = QLabel(folder)
        folder_label.setWordWrap(True)
        form.addRow("Folder", folder_label)
        self.pattern = QLineEdit()
        self.pattern.setPlaceholderText(r"e.g. ^(\w+?)_  (group 1 is the patient id)")
        self.pattern.setToolTip("A regular expression searched in each file name (then in "
                                "its path in the folder); its first group (or the whole "
                                "match) is the patient id. Empty: no patient ids.")
        form.addRow("Patient id in file name", self.pattern)
        self.examples = QLabel()
        self.examples.setWordWrap(True)
        self.examples.setStyleSheet("color: #555;")
        form.addRow("", self.examples)
        self.joined = QLabel()
        self.joined.setWordWrap(True)
        self.joined.setStyleSheet("color: #a40000;")
        self.joined.setVisible(False)
        form.addRow("", self.joined)
        self.split = QComboBox()
        for key, text in IMPORT_SPLITS:
            self.split.addItem(text, key)
        form.addRow("Split", self.split)
        self.label_boxes = self._label_rows(form, folder, project_labels or [])
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.button(QDialogButtonBox.Ok).setText("Import")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form.addRow(self.buttons)
        self.pattern.textChanged.connect(self._update_examples)
        if self.label_boxes:
            self._update_narrowed()
        if self.guessed:
            self.pattern.setText(self.guessed)
        self._update_examples()

    def _label_rows(self, form, folder: str, project_labels: list[str]) -> dict:
        """A choice per label of the annotations the project lacks."""
        from app.services.importing import file_labels, suggested_label_map
        new = [label for label in file_labels(folder) if label not in project_labels]
        if not new:
            return {}
        suggested = suggested_label_map(project_labels, new)
        intro = QLabel("The annotations use labels this project does not have. File each "
                       "under one of the project's, or keep it as a new label:")
        intro.setWordWrap(True)
        form.addRow(intro)
        boxes = {}
        for label in new:
            box = QComboBox()
            box.addItem(f"keep as a new label {label}", None)
            for target in project_labels:
                box.addItem(target, target)
            if label in suggested:
                box.setCurrentIndex(box.findData(suggested[label]))
            form.addRow(label, box)
            boxes[label] = box
        # Said as the choice is made, not only after the import.
        self.narrowed = QLabel()
        self.narrowed.setWordWrap(True)
        self.narrowed.setStyleSheet("color: #a40000;")
        form.addRow(self.narrowed)
        for box in boxes.values():
            box.currentIndexChanged.connect(self._update_narrowed)
        return boxes

    def _update_narrowed(self) -> None:
        from app.services.importing import narrowed_dates
        said = narrowed_dates(self.label_map())
        self.narrowed.setText("\n".join(f"⚠ {sentence}." for sentence in said))
        self.narrowed.setVisible(bool(said))
        self._fit()

    def label_map(self) -> dict[str, str]:
        """The files' labels filed under the project's (those kept left out)."""
        return {label: box.currentData() for label, box in self.label_boxes.items()
                if box.currentData() is not None}

    def patient_regex(self) -> str | None:
        return self.pattern.text().strip() or None

    def split_choice(self) -> str | None:
        return self.split.currentData()

    def _update_examples(self) -> None:
        from app.core.bounded import BoundedPattern
        from app.services.settings import patient_id_from
        ok = self.buttons.button(QDialogButtonBox.Ok)
        try:
            # Matched in bounded time: a pattern that backtracks without end
            # must not freeze the window as it is typed.
            regex = BoundedPattern(self.patient_regex(), "pattern") if self.patient_regex() \
                else None
            # One file a line: run together and wrapped, they were cut off.
            said = "\n".join(f"{name} → {patient_id_from(path, regex) or '(none)'}"
                              for name, path in zip(self.names, self.paths)) \
                if regex is not None else ""
        except UserError as exc:
            self.examples.setText(f"Not a valid pattern ({exc})")
            ok.setEnabled(False)
            return
        ok.setEnabled(True)
        shared = sorted({patient_id_from(path, regex) for path in self.read_paths}
                        & self.known_patients) if regex is not None and self.known_patients else []
        self.joined.setText(
            f"⚠ {count(len(shared), 'patient')} read here the project already has ("
            f"{', '.join(shared[:3])}{', …' if len(shared) > 3 else ''}): these notes will be "
            f"taken as the same people's, with the same stand-in names, kept on the same side "
            f"of the train/dev split, and labelled together by “Label in patient's notes”. If "
            f"they are other people, write a pattern that tells them apart."
            if shared else "")
        self.joined.setVisible(bool(shared))
        if regex is None:
            self.examples.setText("No patient ids.")
            self._fit()
            return
        if self.guessed and self.patient_regex() == self.guessed:
            said += "\n(read off the file names; clear it for no patient ids)"
        self.examples.setText(said)
        self._fit()

    def _fit(self) -> None:
        """Grow to show every line said (a label's new lines do not resize an open dialog)."""
        if self.isVisible() and self.sizeHint().height() > self.height():
            self.resize(self.width(), self.sizeHint().height())


class AnnotatorDialog(QDialog):
    """Who is annotating: a known name of the project or a new one.

    Asked once per user (the name is kept in the settings), so spans and
    undo history carry a person's name, not the computer's login."""

    def __init__(self, known: list[str], suggestion: str, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Who is annotating?")
        form = QFormLayout(self)
        intro = QLabel("Your name or initials are stored with every span you make. "
                       "Change it later in File › Settings.")
        intro.setWordWrap(True)
        form.addRow(intro)
        self.name = QComboBox()
        self.name.setEditable(True)
        self.name.addItems(known)
        self.name.setEditText(suggestion)
        self.name.lineEdit().selectAll()
        form.addRow("Name", self.name)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        # No name, no OK: a blank one stored every span as "annotator".
        ok = buttons.button(QDialogButtonBox.Ok)
        self.name.editTextChanged.connect(lambda text: ok.setEnabled(bool(text.strip())))
        ok.setEnabled(bool(suggestion.strip()))

    def accept(self) -> None:
        if self.chosen():                        # Enter in the field with nothing typed
            super().accept()

    def chosen(self) -> str:
        return self.name.currentText().strip()


class AssignDialog(QDialog):
    """Two annotators for a note annotated twice, blind: each sees only
    their own spans until the Agreement and Adjudicate views compare them."""

    def __init__(self, note: str, known: list[str], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Double annotation")
        form = QFormLayout(self)
        intro = QLabel(f"{note} will be annotated by two people, each blind to the other's "
                       "spans; compare them in Agreement, settle them in Adjudicate.")
        intro.setWordWrap(True)
        form.addRow(intro)
        self.first, self.second = QComboBox(), QComboBox()
        for box, name in ((self.first, "First annotator"), (self.second, "Second annotator")):
            box.setEditable(True)
            box.addItems(known)
            box.setEditText("")
            form.addRow(name, box)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def names(self) -> list[str]:
        """The two names given (one given twice counts once)."""
        return list(dict.fromkeys(n for n in (self.first.currentText().strip(),
                                              self.second.currentText().strip()) if n))


class LabelSetDialog(QDialog):
    """The label set of a new project, with what each preset protects
    against the HIPAA Safe Harbor list and what the rules see that its
    labels would leave in clear (``app.services.coverage``)."""

    _STATUS = {"protected": "protected by", "partly": "partly, by", "in clear": "LEFT IN CLEAR",
               "not text": "not in note text"}

    def __init__(self, presets: list[str], parent=None, default: str | None = None) -> None:
        from app.core.labels import PRESET_TITLES
        super().__init__(parent)
        self.setWindowTitle("Label set")
        self.resize(720, 560)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.preset = QComboBox()
        for preset in presets:
            self.preset.addItem(PRESET_TITLES.get(preset, preset), preset)
        if default in presets:
            self.preset.setCurrentIndex(presets.index(default))
        form.addRow("Labels:", self.preset)
        layout.addLayout(form)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.table = _table(["HIPAA Safe Harbor identifier", "In this label set"], [])
        layout.addWidget(self.table, 1)
        self.warnings = QLabel()
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #a40000")
        layout.addWidget(self.warnings)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.preset.currentIndexChanged.connect(lambda _i: self._show(self.chosen()))
        self._show(self.chosen())

    def _show(self, preset: str) -> None:
        from app.core.labels import PRESETS
        from app.services.coverage import labels_coverage
        labels = PRESETS[preset]
        rows, gaps, _ = labels_coverage(labels)
        protected = sum(r.status == "protected" for r in rows)
        partly = sum(r.status == "partly" for r in rows)
        in_text = sum(r.status != "not text" for r in rows)
        self.summary.setText(
            f"<b>{preset}</b>: {len(labels)} labels ({', '.join(l.name for l in labels)}). "
            f"They protect <b>{protected} of the {in_text}</b> kinds of identifier of the "
            f"HIPAA Safe Harbor list that notes can hold"
            + (f", {partly} partly" if partly else "") + ". Only labelled kinds are replaced.")
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            status = self._STATUS[r.status]
            shown = f"{status} {', '.join(r.labels)}" if r.labels else status
            for j, text in enumerate((r.what, shown)):
                item = QTableWidgetItem(text)
                if r.status == "in clear":
                    item.setForeground(Qt.darkRed)
                self.table.setItem(i, j, item)
        self.warnings.setText("<br>".join(f"⚠ {g.sentence}." for g in gaps))
        self.warnings.setVisible(bool(gaps))

    def chosen(self) -> str:
        """The preset's name (a key of ``app.core.labels.PRESETS``)."""
        return self.preset.currentData()

    @classmethod
    def get_preset(cls, parent, presets: list[str], default: str | None = None
                   ) -> tuple[str, bool]:
        """Ask for the label set (modal), ``default`` offered first:
        ``(preset, accepted)``."""
        dialog = cls(presets, parent, default)
        ok = dialog.exec() == QDialog.Accepted
        return dialog.chosen(), ok


class ReportDialog(QDialog):
    """An audit report shown inside the application, where no web browser
    opens it (the system has none set: "Open audit report" did nothing)."""

    def __init__(self, path, parent=None) -> None:
        from app.gui.qt import QTextBrowser
        super().__init__(parent)
        self.setWindowTitle(f"Audit report — {path.name}")
        self.resize(900, 640)
        layout = QVBoxLayout(self)
        self.note = QLabel(f"No web browser opened the report, so it is shown here. "
                           f"The file is {html.escape(str(path))}.")
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)           # offline: nothing is followed
        try:
            self.browser.setHtml(path.read_text(encoding="utf-8"))
        except OSError as exc:
            self.browser.setPlainText(f"The report could not be read: "
                                      f"{exc.strerror or type(exc).__name__}")
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.close)
        layout.addWidget(self.note)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)


def open_report(path, parent=None) -> "ReportDialog | None":
    """Open the HTML report at ``path`` in the web browser, or, when none
    opens it, in a window of the application (returned, shown)."""
    from app.gui.qt import QDesktopServices, QUrl
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
        return None
    dialog = ReportDialog(path, parent)
    dialog.show()
    return dialog
