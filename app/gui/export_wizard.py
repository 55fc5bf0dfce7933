"""Export wizard: de-identify project documents into a folder, with an audit report.

Steps: choose the documents (all, a split, a status), the output folder,
file naming and strategy; run with progress and cancel; read the summary
(audit report and the leak scan).

The export itself is :func:`app.services.redaction.redact_project`: the
documents are redacted straight from the project (the preview shows the
same text), a patient's documents share surrogates and the date shift
without the patient id reaching any file name, and exporting again into
the same folder skips the documents already done under the same settings
(redact_notes' manifest): that is how an interrupted export resumes.
"""
from __future__ import annotations

from pathlib import Path

from app.deid import STRATEGIES
from app.errors import UserError
from app.gui.qt import (QAbstractItemView, QCheckBox, QColor, QComboBox, QDialog, QFileDialog,
                        QFormLayout, QHBoxLayout, QHeaderView, QTableWidget, QTableWidgetItem,
                        QFrame, QLabel, QLineEdit, QPushButton, QScrollArea, QStackedWidget, Qt,
                        QVBoxLayout, QWidget, Signal, Slot, QProgressBar)
from app.gui.workers import TaskRunner
from app.services.exporting import (ExportOutcome, ExportRequest, export_documents,
                                    flagged_places, names_with_patient_ids, select_documents)
from app.services.prediction import predicts_by
from app.core.words import count

SCOPES = (("all", "All documents"), ("split", "A split"), ("status", "Documents with status"))
#: The model an export runs, in the plan's words (`PredictorSpec.kind`, app.services.prediction).
MODEL_WORDS = {"model": "the active model", "starter": "the starter model (nothing trained yet)"}
SPLIT_VALUES = ("train", "dev", "test", "none")
STATUS_VALUES = ("todo", "in_progress", "done", "reviewed")
#: Project setting: the folder the last export from this project went to.
LAST_FOLDER_KEY = "last_export_folder"
NAMINGS = (("same", "Same names as in the project"),
           ("pseudonymous", "Pseudonymous names (note-<keyed hash>.txt)"))
#: The summary's size once it lists suspected leaks (or the free screen where
#: smaller): at 760x560 the list showed five rows of hundreds.
SUMMARY_SIZE = (900, 900)
#: The most of the screen's height the summary's text takes before it scrolls.
SUMMARY_SHARE = 0.35
#: The leak list's column saying which places are flagged since the export.
STATUS_COLUMN = 3


# --------------------------------------------------------------- plain Python
def summary_html(outcome: ExportOutcome, open_suspicions: tuple[int, int] | None = None) -> str:
    """The wizard's last page: counts, leak re-scan, report location.
    ``open_suspicions``: (suspicions, notes) still to judge, when people
    judged some already (the red count follows "Not a leak")."""
    t = dict(outcome.report["totals"])
    if open_suspicions is not None:
        t["leaks"], t["notes_with_leaks"] = open_suspicions
    per_label = ", ".join(f"{k} {v['spans']}" for k, v in outcome.report["per_label"].items())
    rows = [("Documents", outcome.documents), ("Written now", t["notes_done"]),
            ("Already done (resumed)", t["notes_resumed"]),
            ("Unreadable / failed", t["notes_bad"] + t["notes_failed"]),
            ("Identifiers replaced", t["spans"]),
            # Under the count it breaks down, not under the leak scan's (a
            # walkthrough read it as the suspicions by label).
            ("by label", per_label or "none"),
            # Every core by default (one process for a single batch of notes).
            ("Worker processes", outcome.summary.workers)]
    table = "".join(f"<tr><td colspan='2' style='color:#555'>&nbsp;&nbsp;{k}: {v}</td></tr>"
                    if k == "by label" else
                    f"<tr><td>{k}</td><td align='right'><b>{v}</b></td></tr>" for k, v in rows)
    redone = outcome.summary.redone()
    if redone:           # why notes written before were written again (say, a flagged miss)
        table += "".join(f"<tr><td colspan='2'>{n} written before, redone: {why}</td></tr>"
                         for why, n in redone.items())
    if t["leaks"]:
        scan = (f"<p style='color:#a40000'><b>Leak scan: {count(t['leaks'], 'suspected identifier')} "
                f"in {count(t['notes_with_leaks'], 'note')}</b>, listed below (the same text "
                f"suspected again is one row): double-click one (or press Enter) to open the "
                f"note in Preview at that place, flag what was missed, then export again into "
                f"this folder.</p>")
    else:
        scan = ("<p style='color:#0a6d2a'><b>Leak scan: nothing suspected</b> (known "
                "identifiers, rules and the model re-read every written note)</p>"
                if open_suspicions is None else
                "<p style='color:#0a6d2a'><b>Leak scan: every suspicion judged</b> (export "
                "again into this folder to fix the notes flagged)</p>")
    return (f"<h3>Export finished</h3><table>{table}</table>{scan}"
            f"<p>Folder: {outcome.out_dir}<br>Audit report: {outcome.report_html.name} "
            f"(and .json) in that folder</p>")


def flag_status(flags) -> str:
    """The leak list's Status of a row whose places are ``flags`` (flagged
    as missed or not): "", "flagged", "1 of 3 flagged"."""
    n = sum(flags)
    return "" if n == 0 else "flagged" if n == len(flags) else f"{n} of {len(flags)} flagged"


def _in_context(text: str, start: int, end: int, width: int = 30) -> str:
    """``text[start:end]`` in brackets with up to ``width`` characters either
    side, on one line (for the user's screen only)."""
    def line(piece: str) -> str:
        return " ".join(piece.split())
    before, after = text[max(0, start - width):start], text[end:end + width]
    return (("…" if start > width else "") + line(before) + (" " if before[-1:].isspace() else "")
            + "[" + line(text[start:end]) + "]" + (" " if after[:1].isspace() else "")
            + line(after) + ("…" if end + width < len(text) else ""))


# --------------------------------------------------------------- the wizard
def last_folder(project) -> str:
    """Where a new export starts: the last export's folder ("export again into
    this folder"), if this machine has it or the folder it was made in; a
    project copied from another machine brings that machine's path, which is
    left out rather than offered."""
    last = project.get_setting(LAST_FOLDER_KEY) or ""
    path = Path(last)
    return last if last and (path.is_dir() or path.parent.is_dir()) else ""


class ExportWizard(QDialog):
    """A stepped dialog around :func:`export_documents`.

    Signals
    -------
    review_requested(object)
        The residual-risk review of the finished export (its outcome).
    exported(object)
        The :class:`ExportOutcome` of a finished export.
    failed(str)
        Why an export failed.
    cancelled()
        The user cancelled the export (finished notes are kept).
    show_in_preview(int, int, int, str)
        A suspected leak opened from the summary: document id, start, end
        (code points of the original), the label to flag it with.
    corrected(int)
        A document whose suspicions were flagged as missed identifiers.
    moved()
        The dialog was moved, resized, shown or hidden.
    """

    exported = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    #: A suspected leak was opened: (document id, start, end) in the original.
    show_in_preview = Signal(int, int, int, str)
    #: The residual-risk review of the finished export was asked for (its outcome).
    review_requested = Signal(object)
    #: Suspicions flagged as missed identifiers: a corrected document's id.
    corrected = Signal(int)
    #: Moved, resized, shown or hidden (what it covers of the main window changed).
    moved = Signal()

    def __init__(self, project, parent=None) -> None:
        super().__init__(parent)
        self.project = project
        self.outcome: ExportOutcome | None = None
        self._summary_sized = False           # grown once for its leak list
        self.runner = TaskRunner(self)
        self.runner.progress.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(self._on_cancelled)
        self.setWindowTitle("Export de-identified notes")
        self.resize(760, 560)
        self.stack = QStackedWidget()
        self.stack.addWidget(self._documents_page())
        self.stack.addWidget(self._output_page())
        self.stack.addWidget(self._run_page())
        self.stack.addWidget(self._summary_page())
        self.back_button = QPushButton("◀ Back")
        self.next_button = QPushButton("Next ▶")
        self.close_button = QPushButton("Close")
        self.back_button.clicked.connect(lambda: self.go(self.stack.currentIndex() - 1))
        self.next_button.clicked.connect(lambda: self.go(self.stack.currentIndex() + 1))
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.back_button)
        buttons.addStretch(1)
        buttons.addWidget(self.next_button)
        buttons.addWidget(self.close_button)
        self.step_label = QLabel()
        self.step_label.setStyleSheet("font-weight: 600; font-size: 14px;")
        layout = QVBoxLayout(self)
        layout.addWidget(self.step_label)
        layout.addWidget(self.stack, 1)
        layout.addLayout(buttons)
        self._update_scope_values()
        self.folder_edit.setText(last_folder(project))
        self.go(0)

    # ---------------------------------------------------------------- pages
    def _documents_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.scope_box = QComboBox()
        for key, text in SCOPES:
            self.scope_box.addItem(text, key)
        self.value_box = QComboBox()
        self.count_label = QLabel()
        self.scope_box.currentIndexChanged.connect(self._update_scope_values)
        self.value_box.currentIndexChanged.connect(self._update_count)
        form.addRow("Export:", self.scope_box)
        form.addRow("Which:", self.value_box)
        form.addRow("", self.count_label)
        return page

    def _output_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        row = QHBoxLayout()
        self.folder_edit = QLineEdit()
        self.folder_edit.setPlaceholderText("Folder for the de-identified notes")
        self.folder_edit.textChanged.connect(self._update_nav)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row.addWidget(self.folder_edit, 1)
        row.addWidget(browse)
        form.addRow("Output folder:", row)
        self.naming_box = QComboBox()
        for key, text in NAMINGS:
            self.naming_box.addItem(text, key)
        form.addRow("File names:", self.naming_box)
        self.naming_hint = QLabel()
        self.naming_hint.setWordWrap(True)
        self.naming_box.currentIndexChanged.connect(self._update_naming_hint)
        # Chosen by the person: no longer set for them by the scope.
        self.naming_box.activated.connect(lambda _: setattr(self, "_naming_chosen", True))
        self._naming_chosen = False
        form.addRow("", self.naming_hint)
        self.strategy_box = QComboBox()
        self.strategy_box.addItem("Project policy (per label, as set in the preview)", None)
        from app.deid.report import STRATEGY_WORDS
        for s in STRATEGIES:
            # In the report's words ("surrogate for every label" was a raw keyword).
            self.strategy_box.addItem(f"Every label {STRATEGY_WORDS.get(s, s)}", s)
        form.addRow("Replace with:", self.strategy_box)
        self.rules_only = QCheckBox("Rules only (not the model)")
        form.addRow("", self.rules_only)
        self.strict = QCheckBox("Strict: do not write a note the leak re-scan flags")
        form.addRow("", self.strict)
        hint = QLabel("Exporting again into the same folder with the same settings skips the "
                      "notes already done, so an interrupted export resumes where it stopped.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #555;")
        form.addRow("", hint)
        # Day one an English project exports with the starter model, as
        # Preview shows and deid export does; with neither, the rules.
        self.predictor = predicts_by(self.project)
        if self.predictor == "rules":
            self.rules_only.setChecked(True)
            self.rules_only.setEnabled(False)
            self.rules_only.setToolTip("This project has no trained model yet")
        return page

    def _run_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.plan_label = QLabel()
        self.plan_label.setWordWrap(True)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_label = QLabel("")
        row = QHBoxLayout()
        self.start_button = QPushButton("Start export")
        self.start_button.setStyleSheet("font-weight: 600;")
        self.start_button.clicked.connect(self.start_export)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        row.addWidget(self.start_button)
        row.addWidget(self.cancel_button)
        row.addStretch(1)
        layout.addWidget(self.plan_label)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.progress_label)
        layout.addLayout(row)
        layout.addStretch(1)
        return page

    def _summary_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.summary_label = QLabel()
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextFormat(Qt.RichText)
        self.summary_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.summary_label.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.open_button = QPushButton("Open audit report")
        self.open_button.clicked.connect(self.open_report)
        self.suspicion_table = QTableWidget(0, 4)
        # The suspected text is shown here, on the user's screen only: never
        # in the report, a file or a log.
        self.suspicion_table.setHorizontalHeaderLabels(["Suspected text, in the note as read",
                                                        "Notes", "Why", "Status"])
        self.suspicion_table.horizontalHeaderItem(0).setToolTip(
            "The words suspected, in brackets, with their context as the note was read (the "
            "original, on this screen only): the written note holds them there, or what "
            "replaced the words around them")
        self.suspicion_table.horizontalHeaderItem(STATUS_COLUMN).setToolTip(
            "Flagged as missed since this export (in Preview or Annotate): exporting again "
            "into this folder replaces it")
        self.suspicion_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.suspicion_table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.suspicion_table.verticalHeader().setVisible(False)
        # The words and why share the width; the notes take what they need.
        self.suspicion_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        self.suspicion_table.horizontalHeader().setSectionResizeMode(2, QHeaderView.Stretch)
        self.suspicion_table.cellActivated.connect(self._open_suspicion)
        self.dismiss_button = QPushButton("Not a leak")
        self.dismiss_button.setToolTip("The selected suspicion is not an identifier: it is not "
                                       "reported again (recorded with your name)")
        self.dismiss_button.clicked.connect(self.dismiss_selected)
        self.flag_button = QPushButton("Flag missed")
        self.flag_button.setToolTip("The selected rows are identifiers: each place is recorded "
                                    "as a missed identifier under the label shown (Why); export "
                                    "again into this folder to fix the notes")
        self.flag_button.clicked.connect(self.flag_selected)
        self.again_button = QPushButton("Export again into this folder")
        self.again_button.setToolTip("Redo the notes corrected since (the others are kept)")
        self.again_button.clicked.connect(self.start_export)
        judge = QHBoxLayout()
        judge.addWidget(self.dismiss_button)
        judge.addWidget(self.flag_button)
        judge.addStretch(1)
        judge.addWidget(self.again_button)
        # Scrolled past a share of the screen: the whole text as the label's
        # least height made the dialog taller than a 768-pixel screen, its
        # title bar off the top (a walkthrough).
        self.summary_area = QScrollArea()
        self.summary_area.setWidget(self.summary_label)
        self.summary_area.setWidgetResizable(True)
        self.summary_area.setFrameShape(QFrame.NoFrame)
        self.summary_area.viewport().setAutoFillBackground(False)
        self.summary_label.setAutoFillBackground(False)
        layout.addWidget(self.summary_area)
        layout.addWidget(self.suspicion_table, 1)
        layout.addLayout(judge)
        self.review_button = QPushButton("Review a sample (residual risk)…")
        self.review_button.setToolTip("Read a random sample of the written notes beside their "
                                      "originals, mark what is left, sign: the report states "
                                      "the leak rate with its 95 % upper bound")
        self.review_button.clicked.connect(lambda: self.review_requested.emit(self.outcome))
        row = QHBoxLayout()
        row.addWidget(self.open_button)
        row.addWidget(self.review_button)
        row.addStretch(1)
        layout.addLayout(row)
        return page

    def _fit_summary(self) -> None:
        """The summary's wrapped text gets the height it needs (a layout
        squeezed it under the table, its last lines cut), up to
        ``SUMMARY_SHARE`` of the screen; past that it scrolls."""
        label, area = self.summary_label, self.summary_area
        need = label.heightForWidth(max(area.viewport().width(), 200))
        screen = self.screen()
        most = int(screen.availableGeometry().height() * SUMMARY_SHARE) if screen else 300
        area.setFixedHeight(max(40, min(need, most)))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_summary()
        self.moved.emit()

    def moveEvent(self, event) -> None:
        super().moveEvent(event)
        self.moved.emit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.moved.emit()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self.moved.emit()

    # ------------------------------------------------------------ navigation
    STEPS = ("1. Documents", "2. Output", "3. Export", "4. Summary")

    def go(self, index: int) -> None:
        index = max(0, min(index, self.stack.count() - 1))
        if index == 1:
            self._update_naming_hint(default=not self._naming_chosen)
        if index == 2:
            self.plan_label.setText(self._plan_text())
        self.stack.setCurrentIndex(index)
        self.step_label.setText(" · ".join(f"<u>{s}</u>" if i == index else s
                                           for i, s in enumerate(self.STEPS)))
        self._update_nav()

    @Slot()
    def _update_nav(self) -> None:
        index, busy = self.stack.currentIndex(), self.runner.busy()
        ready = index != 1 or bool(self.folder_edit.text().strip())
        self.back_button.setEnabled(0 < index < 3 and not busy)
        self.next_button.setEnabled(index < 2 and ready and self._count() > 0)
        self.start_button.setEnabled(not busy and bool(self.folder_edit.text().strip()))
        self.cancel_button.setEnabled(busy)
        self.close_button.setEnabled(not busy)

    @Slot()
    def _update_scope_values(self) -> None:
        scope = self.scope_box.currentData()
        self.value_box.blockSignals(True)
        self.value_box.clear()
        values = SPLIT_VALUES if scope == "split" else STATUS_VALUES if scope == "status" else ()
        for v in values:
            self.value_box.addItem(v, v)
        self.value_box.setEnabled(bool(values))
        self.value_box.blockSignals(False)
        self._update_count()

    @Slot()
    def _update_naming_hint(self, *_, default: bool = False) -> None:
        """Say how many of the notes are named with their patient id; as the
        page opens, name them pseudonymously where some are (the default of
        "same" kept "P0004_note_0009" in every exported file name)."""
        named = names_with_patient_ids(select_documents(
            self.project, self.scope_box.currentData(), self.value_box.currentData()))
        if default:
            self.naming_box.setCurrentIndex(self.naming_box.findData(
                "pseudonymous" if named else "same"))
        same = self.naming_box.currentData() == "same"
        self.naming_hint.setText(
            "" if not named else
            f"{count(named, 'note')} {'is' if named == 1 else 'are'} named with "
            f"{'its' if named == 1 else 'their'} patient id: "
            + ("under the same names the exported files keep it." if same
               else "pseudonymous names keep it out of the export."))
        self.naming_hint.setStyleSheet("color: #a33;" if same else "color: #555;")

    def _count(self) -> int:
        return len(select_documents(self.project, self.scope_box.currentData(),
                                    self.value_box.currentData()))

    @Slot()
    def _update_count(self) -> None:
        self.count_label.setText(count(self._count(), "document"))
        self._update_nav()

    def _browse(self) -> None:
        typed = Path(self.folder_edit.text().strip()).expanduser()
        start = next((str(p) for p in (typed, typed.parent) if str(p) != "." and p.is_dir()),
                     str(Path.home()))
        path = QFileDialog.getExistingDirectory(self, "Output folder", start)
        if path:
            self.folder_edit.setText(path)

    # ----------------------------------------------------------------- setup
    def set_scope(self, scope: str, value: str | None = None) -> None:
        self.scope_box.setCurrentIndex(self.scope_box.findData(scope))
        if value is not None:
            self.value_box.setCurrentIndex(self.value_box.findData(value))

    def request(self) -> ExportRequest:
        """The :class:`ExportRequest` the controls describe."""
        return ExportRequest(Path(self.folder_edit.text().strip()),
                             self.scope_box.currentData(), self.value_box.currentData(),
                             self.naming_box.currentData(), self.strategy_box.currentData(),
                             self.rules_only.isChecked(), self.strict.isChecked())

    def _plan_text(self) -> str:
        r = self.request()
        resume = ""
        if r.out_dir.is_dir() and (r.out_dir / ".deid-manifest.jsonl").is_file():
            # Skipped only under the same settings: another policy or model
            # redid every note, and the plan had said they were skipped.
            resume = (" The folder holds an earlier export: the notes it finished under these "
                      "same settings are kept, the others written again.")
            from app.services.auditing import signed_audit
            signed = signed_audit(self.project, r.out_dir)
            if signed is not None:
                resume += (f" Its review was signed by {signed['reviewer']}: an export into it "
                           "again replaces its report, and needs a review of its own (the "
                           "signed one stays in the project's audit log).")
        from app.deid.report import STRATEGY_WORDS
        how = (f"every label {STRATEGY_WORDS.get(r.strategy, r.strategy)}" if r.strategy
               else "the project policy")
        return (f"{count(self._count(), 'document')} → {r.out_dir}, {how}, "
                f"{'rules only' if r.rules_only else self._model_words()}.{resume}")

    def _model_words(self) -> str:
        """The model the export runs, named (a walkthrough read "the active
        model" and could not tell which)."""
        if self.predictor == "model":
            from app.services.choice import model_words
            from app.services.runs import active_run
            try:
                run = active_run(self.project)
            except UserError:
                return MODEL_WORDS["model"]
            return f"the model in use, {model_words(run, run.selected)} ({run.selected})"
        return MODEL_WORDS[self.predictor]

    # ----------------------------------------------------------------- export
    @Slot()
    def start_export(self) -> bool:
        """Run the export in a worker; returns whether it started."""
        if self.runner.busy() or not self.folder_edit.text().strip():
            return False
        request, project = self.request(), self.project
        self.go(2)
        self.progress_bar.setValue(0)
        self.progress_label.setText("Preparing…")
        self.runner.start("export", lambda progress, cancel: export_documents(
            project, request, progress=progress, cancel=cancel))
        self._update_nav()
        return True

    @Slot()
    def cancel(self) -> None:
        if self.runner.busy():
            self.runner.cancel()
            self.progress_label.setText("Cancelling after the current note…")

    def is_busy(self) -> bool:
        return self.runner.busy()

    @Slot(object)
    def _on_progress(self, p) -> None:
        self.progress_bar.setValue(int(p.fraction * 1000))
        self.progress_label.setText(p.message)

    @Slot(object)
    def _on_finished(self, outcome: ExportOutcome) -> None:
        self.outcome = outcome
        if not self.project.readonly:
            self.project.set_setting(LAST_FOLDER_KEY, str(outcome.out_dir))
        self.progress_bar.setValue(1000)
        self.summary_label.setText(summary_html(outcome))
        self._fit_summary()
        self._fill_suspicions(outcome)
        self.go(3)
        self._size_summary()
        self.exported.emit(outcome)

    def _size_summary(self) -> None:
        """Once, when the summary lists suspected leaks: grow to
        :data:`SUMMARY_SIZE` about the same centre, on the screen; the list
        takes the height (the dialog stays resizable)."""
        if self._summary_sized or not self.suspicion_table.rowCount():
            return
        self._summary_sized = True
        free, frame = self.screen().availableGeometry(), self.frameGeometry()
        centre = frame.center()
        # resize() sizes the contents: the frame (a title bar) fits on the screen too.
        dx, dy = frame.width() - self.width(), frame.height() - self.height()
        self.resize(min(max(self.width(), SUMMARY_SIZE[0]), free.width() - dx),
                    min(max(self.height(), SUMMARY_SIZE[1]), free.height() - dy))
        frame = self.frameGeometry()
        frame.moveCenter(centre)
        # move() places the frame; keep it on the screen.
        self.move(max(free.left(), min(frame.left(), free.right() + 1 - frame.width())),
                  max(free.top(), min(frame.top(), free.bottom() + 1 - frame.height())))

    @Slot(str)
    def _on_failed(self, reason: str) -> None:
        self.progress_label.setText(f"Export failed: {reason}")
        self._update_nav()
        self.failed.emit(reason)

    @Slot()
    def _on_cancelled(self) -> None:
        self.progress_label.setText("Cancelled. Finished notes are kept; start again to resume.")
        self.start_button.setText("Resume export")
        self._update_nav()
        self.cancelled.emit()

    def _fill_suspicions(self, outcome: ExportOutcome) -> None:
        """One row per suspected text (the same words suspected for the same
        reason in several places are one row), the strongest reasons first:
        the text with a little context, the notes, why and the label a flag
        takes."""
        from app.deid.rescan import fold_same_length, strength, suspicion_reason
        from app.services.exporting import suspicion_label
        # The strongest first: a known identifier before a date's shape.
        found = sorted(outcome.suspicions(), key=lambda r: strength(r[2])[0])
        texts: dict[int, str] = {}
        labels: dict[str, str | None] = {}
        groups: dict[tuple, list] = {}
        for note, doc_id, s in found:
            text = "" if doc_id is None else texts.setdefault(
                doc_id, self.project.document(doc_id).text)
            words = " ".join(text[s["in_start"]:s["in_end"]].split())
            key = (fold_same_length(words) or (note, s["in_start"]), s["kind"], s["category"],
                   s.get("rule"))
            groups.setdefault(key, []).append((note, doc_id, s, text))
        self.suspicion_table.setRowCount(len(groups))
        for i, members in enumerate(groups.values()):
            note, doc_id, s, text = members[0]
            category = s["category"]
            if category not in labels:
                labels[category] = suspicion_label(self.project, category)
            label = labels[category]
            shown = (_in_context(text, s["in_start"], s["in_end"]) if text
                     else f"characters {s['in_start']}–{s['in_end']}")
            notes = sorted({m[0] for m in members})
            where = (notes[0] if len(members) == 1 else f"{notes[0]}, {len(members)}×"
                     if len(notes) == 1 else f"{len(members)}× in {len(notes)} notes")
            why = f"{suspicion_reason(s)} — flags {label or 'a label you choose'}"
            data = [(d, m["in_start"], m["in_end"], m.get("id"), label or category)
                    for _, d, m, _ in members]
            for j, cell in enumerate((shown, where, why)):
                item = QTableWidgetItem(cell)
                item.setData(Qt.UserRole, data)
                if j == 1 and len(notes) > 1:
                    item.setToolTip(", ".join(notes))
                self.suspicion_table.setItem(i, j, item)
            self._set_flags(i, (False,) * len(data))
        self._update_judging()
        self.suspicion_table.resizeColumnToContents(1)
        self.suspicion_table.resizeColumnToContents(STATUS_COLUMN)

    def _flags(self, row: int) -> tuple[bool, ...]:
        """Which places of a row are flagged as missed since the export."""
        return self.suspicion_table.item(row, STATUS_COLUMN).data(Qt.UserRole)

    def _set_flags(self, row: int, flags) -> None:
        item = QTableWidgetItem(flag_status(flags))
        item.setData(Qt.UserRole, tuple(flags))
        item.setForeground(QColor("#0a6d2a"))
        if any(flags):
            item.setToolTip("Saved to the annotations: exporting again into this folder "
                            "replaces it")
        self.suspicion_table.setItem(row, STATUS_COLUMN, item)

    @Slot(int)
    def note_edited(self, doc_id: int) -> None:
        """A note's annotations changed (a miss flagged in Preview, an edit in
        Annotate): its rows say which of their places are flagged now, and
        the red count is of the others."""
        table, changed = self.suspicion_table, False
        for r in range(table.rowCount()):
            members = table.item(r, 0).data(Qt.UserRole)
            here = [k for k, m in enumerate(members) if m[0] == doc_id]
            if not here:
                continue
            flags = list(self._flags(r))
            for k, now in zip(here, flagged_places(self.project, doc_id,
                                                   [members[k][1:3] for k in here])):
                flags[k] = now
            if tuple(flags) != self._flags(r):
                self._set_flags(r, flags)
                changed = True
        if changed:
            table.resizeColumnToContents(STATUS_COLUMN)
            self._update_judging()

    def _open_places(self, row: int) -> list[tuple]:
        """The places of a row not flagged yet."""
        members = self.suspicion_table.item(row, 0).data(Qt.UserRole)
        return [m for m, flagged in zip(members, self._flags(row)) if not flagged]

    def _update_judging(self) -> None:
        """Show the judging controls while rows are left; keep the red count true."""
        rows = range(self.suspicion_table.rowCount())
        for widget in (self.suspicion_table, self.dismiss_button, self.flag_button):
            widget.setVisible(bool(rows))
        if self.outcome is not None and self.outcome.leaks:
            # Left to judge: neither dismissed nor flagged.
            left = [m for r in rows for m in self._open_places(r)]
            self.summary_label.setText(summary_html(
                self.outcome, (len(left), len({m[0] for m in left}))
                if len(left) != self.outcome.leaks else None))
            self._fit_summary()

    def _selected_rows(self) -> list[int]:
        return sorted({i.row() for i in self.suspicion_table.selectedIndexes()}, reverse=True)

    @Slot(int, int)
    def _open_suspicion(self, row: int, column: int) -> None:
        """Open the row's first place not flagged yet (all flagged: its first)."""
        members = self._open_places(row) or self.suspicion_table.item(row, 0).data(Qt.UserRole)
        doc_id, start, end, _, label = members[0]
        if doc_id is not None:
            self.show_in_preview.emit(doc_id, start, end, label)
            # Placed anew beside the Preview: the row opened stays in sight.
            self.suspicion_table.scrollToItem(self.suspicion_table.item(row, column))

    @Slot()
    def dismiss_selected(self) -> None:
        """Record the selected rows' suspicions, every place of each not
        flagged as missed, as not leaks and drop the rows."""
        from app.services.redaction import dismiss_suspicions
        rows = self._selected_rows()
        ids = [m[3] for r in rows for m in self._open_places(r)]
        if ids:
            who = getattr(self.parent(), "annotator", None)
            dismiss_suspicions(self.project, [i for i in ids if i],
                               who() if callable(who) else None)
            for r in rows:
                self.suspicion_table.removeRow(r)
            self._update_judging()

    @Slot()
    def flag_selected(self) -> int:
        """Record every place of the selected rows (not flagged yet) as a
        missed identifier under the row's label; for rows whose kind has no
        label in the project ("flags a label you choose") the label is asked
        once (none chosen: they stay). Returns how many were recorded."""
        from app.gui.qt import QInputDialog
        from app.services.previewing import CorrectionSession
        project = self.project
        labels = [label.name for label in project.labels()]
        who = getattr(self.parent(), "annotator", None)
        who = who() if callable(who) else None
        rows = [r for r in self._selected_rows()
                if self.suspicion_table.item(r, 0).data(Qt.UserRole)[0][0] is not None]
        unlabelled = [r for r in rows
                      if self.suspicion_table.item(r, 0).data(Qt.UserRole)[0][4] not in labels]
        chosen = None
        if unlabelled and labels:
            chosen, ok = QInputDialog.getItem(
                self, "Flag missed", f"{count(len(unlabelled), 'selected row')} of a kind this "
                "project has no label for: flag as", labels, 0, False)
            if not ok:
                rows = [r for r in rows if r not in unlabelled]
                chosen = None
        flagged, docs = 0, set()
        for r in rows:
            label_of = chosen if r in unlabelled else None
            if r in unlabelled and label_of is None:
                continue
            for doc_id, start, end, _, label in self._open_places(r):
                label = label_of or label
                if CorrectionSession(project, doc_id, who).flag_miss(start, end, label) is not None:
                    flagged += 1
                    docs.add(doc_id)
            self.suspicion_table.removeRow(r)
        for doc_id in sorted(docs):
            self.corrected.emit(doc_id)
        self._update_judging()
        return flagged

    @Slot()
    def open_report(self) -> None:
        """The audit report in the browser, or in a window here without one."""
        from app.gui.dialogs import open_report
        if self.outcome is not None:
            self.report_dialog = open_report(self.outcome.report_html, self)

    def closeEvent(self, event) -> None:
        self.runner.shutdown()
        super().closeEvent(event)
