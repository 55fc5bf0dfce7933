"""The application shell: a sidebar of views over a ``QStackedWidget``.

Views are added with :meth:`MainWindow.add_view`, so later screens
(training, preview) plug in without touching the existing ones. Every view
has ``set_project(...)``; the window owns the open :class:`Project`.
"""
from __future__ import annotations

import time
from pathlib import Path

from app.core.labels import PRESETS, default_preset
from app.gui.adjudication_view import AdjudicationView
from app.gui.agreement_view import AgreementView
from app.gui.dialogs import (AboutDialog, AnnotatorDialog, AssignDialog, ImportOptionsDialog,
                             ImportSummaryDialog, LabelSetDialog, SettingsDialog)
from app.gui.documents_view import DocumentListView
from app.gui.editor_view import EditorView
from app.gui.export_wizard import ExportWizard
from app.gui.guidelines_view import GuidelinesView
from app.gui.lists_dialog import open_lists_dialog
from app.gui.preview_view import PreviewView
from app.gui.rules_view import RulesView
from app.gui.training_view import TrainingView
from app.gui.qt import (QAction, QFileDialog, QFrame, QHBoxLayout,
                        QKeySequence, QLabel, QListWidget, QMainWindow, QMessageBox,
                        QProgressBar, QProgressDialog, QPushButton, QScrollArea, QSettings, Qt,
                        QWidget, QStackedWidget, Signal, Slot, fit_to_screen)
from app.errors import UserError
from app.gui.workers import TaskRunner
from app.project import Project, ProjectError, ProjectLockedError, ProjectNotWritableError
from app.core.words import count
from app.services.annotating import SUGGESTIONS_BY
from app.services.double_annotation import assign_notes

MAX_RECENT = 8
#: Seconds between two re-reads of the document list while suggestions arrive.
REREAD_INTERVAL = 1.0
SETTINGS_FILE = "settings.ini"
#: The settings key of the folder the last file dialog chose (the next opens there).
LAST_DIR = "last_dialog_dir"
#: How the status bar names the notes of an import being suggested (one, several).
NEW_NOTES = ("new note", "new notes")


#: Go > Previous note, beside Next to annotate's Ctrl+. .
PREVIOUS_NOTE_KEY = "Ctrl+,"


def user_settings() -> QSettings:
    """The per-user settings file, ``settings.ini`` in the user data folder
    (beside ``deid-error.log``; ``DEID_USER_DIR`` moves both), not the
    platform's default (registry, ``~/.config``, ``~/Library/Preferences``)."""
    from app.paths import user_data_dir
    return QSettings(str(user_data_dir() / SETTINGS_FILE), QSettings.IniFormat)


class MainWindow(QMainWindow):
    """DeID Studio's main window.

    Parameters
    ----------
    settings
        Per-user settings (annotator name, recent projects, window
        geometry); default :func:`user_settings`. Tests pass their own
        INI-file ``QSettings`` to stay isolated from the user's.

    Signals
    -------
    projectOpened(str)
        Path of the project just opened.
    importFinished(object)
        The ``ImportSummary`` of a finished import (``None`` if it failed).
    suggestionsFinished(int)
        Notes that received suggestions after an import (-1 if that failed).
    """

    projectOpened = Signal(str)
    importFinished = Signal(object)
    suggestionsFinished = Signal(int)

    def __init__(self, settings: QSettings | None = None) -> None:
        super().__init__()
        self.settings = settings if settings is not None else user_settings()
        self.project: Project | None = None
        self._created = False      # the open project was just made (`_install`)
        self.importer = TaskRunner(self)
        self.importer.progress.connect(self._on_import_progress)
        self.importer.finished.connect(self._on_import_finished)
        self.importer.failed.connect(self._on_import_failed)
        self.importer.cancelled.connect(self._on_import_cancelled)
        # Suggestions for notes just imported, made off the GUI thread.
        self.suggester = TaskRunner(self)
        self.suggester.progress.connect(self._on_suggest_progress)
        self.suggester.finished.connect(self._on_suggested)
        self.suggester.failed.connect(self._on_suggest_failed)
        self.suggester.cancelled.connect(self._on_suggest_cancelled)
        self._progress: QProgressDialog | None = None
        self.summary_dialog: ImportSummaryDialog | None = None
        self._suggesting = NEW_NOTES                # the notes being suggested, in words
        self._stop_asked = False                    # Stop suggesting pressed (not a close)
        self._suggest_ids: set[int] = set()        # the notes being suggested
        # Notes asked for while a run was busy (a second folder imported, a
        # list changed): they get theirs when it ends, not never.
        self._pending: tuple[list[int], str] | None = None
        self._reread_at = 0.0                      # when the list last showed their progress
        self.import_dialog: ImportOptionsDialog | None = None
        self.annotator_dialog: AnnotatorDialog | None = None
        # Notes opened before the current one, for "Previous note".
        self._history: list[int] = []
        # The note the user picked last, with one click in Documents or by
        # opening it in Annotate: the one Preview shows.
        self._picked: int | None = None
        self._note_view = "Annotate"          # of Annotate and Preview, the one shown last
        self.setWindowTitle("DeID Studio")
        fit_to_screen(self, 1280, 800)

        self.sidebar = QListWidget()
        self.sidebar.setFixedWidth(150)
        self.sidebar.setStyleSheet("QListWidget { font-size: 13px; } "
                                   "QListWidget::item { padding: 8px 6px; }")
        self.stack = QStackedWidget()
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.sidebar)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.views: dict[str, QWidget] = {}

        self.documents = DocumentListView()
        self.editor = EditorView()
        self.agreement = AgreementView()
        self.adjudication = AdjudicationView()
        self.guidelines = GuidelinesView()
        self.training = TrainingView()
        self.preview = PreviewView()
        self.rules = RulesView()
        self.export_wizard: ExportWizard | None = None
        self.audit_dialog = None
        self.add_view("Documents", self.documents)
        self.add_view("Annotate", self.editor)
        self.add_view("Train", self.training)
        self.add_view("Preview", self.preview)
        self.add_view("Agreement", self.agreement)
        self.add_view("Adjudicate", self.adjudication)
        self.add_view("Guidelines", self.guidelines)
        self.add_view("Rules", self.rules)
        self.sidebar.currentRowChanged.connect(self._on_view_changed)

        self.documents.documentActivated.connect(self.open_document)
        self.documents.documentSelected.connect(self._pick)
        self.documents.message.connect(self._show_message)
        self.editor.documentEdited.connect(self._on_document_edited)
        self.editor.message.connect(self._show_message)
        self.editor.next_requested.connect(self.documents.open_next)
        self.agreement.adjudicateRequested.connect(self.open_adjudication)
        self.adjudication.adjudicated.connect(self._on_document_edited)
        self.guidelines.labelsChanged.connect(self.editor.reload_labels)
        self.guidelines.labelsChanged.connect(self.preview.reload_labels)
        self.training.open_span.connect(self.open_span)
        self.training.trained.connect(self._on_trained)
        self.training.preannotated.connect(self._on_preannotated)
        self.training.splits_changed.connect(self.documents.model.refresh)
        self.training.show_unlike.connect(self._show_unlike)
        self.training.message.connect(self._show_message)
        self.preview.message.connect(self._show_message)
        self.preview.corrected.connect(self._on_corrected)
        # A rule switched or added changes what predicts: Preview predicts again.
        self.rules.rulesChanged.connect(self.floor_changed)
        self._build_menus()
        self._build_suggest_bar()
        self._set_project_actions(False)
        self.statusBar().showMessage("Open or create a project to start.")
        geometry = self.settings.value("geometry")
        if geometry:
            self.restoreGeometry(geometry)

    # ---------------------------------------------------------------- views
    def add_view(self, name: str, widget: QWidget) -> int:
        """Append a view to the sidebar; returns its index.

        Each view sits in a scroll area: a view wider or taller than the
        window (Train on a 1024x700 screen) scrolls instead of making the
        whole window grow past the screen.
        """
        self.views[name] = widget
        self.sidebar.addItem(name)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setWidget(widget)
        index = self.stack.addWidget(scroll)
        if self.sidebar.currentRow() < 0:
            self.sidebar.setCurrentRow(0)
        return index

    def show_view(self, name: str) -> None:
        self.sidebar.setCurrentRow(list(self.views).index(name))

    @Slot()
    def _show_unlike(self) -> None:
        """Documents, filtered to the notes to do unlike the annotated ones."""
        self.show_view("Documents")
        self.documents.show_unlike()

    def current_view(self) -> str:
        return list(self.views)[self.stack.currentIndex()]

    @Slot(int)
    def _on_view_changed(self, index: int) -> None:
        self.stack.setCurrentIndex(index)
        name = list(self.views)[index]
        if name == "Preview":
            self._preview_current()
        elif name == "Rules":
            doc_id = self._note_read_last()
            doc = self.project.document(doc_id) if doc_id is not None else None
            self.rules.set_note(doc.name if doc else None, doc.text if doc else None)
        if name in ("Annotate", "Preview"):
            self._note_view = name
        elif name == "Annotate" and self.editor.session is not None:
            # The text takes the keys at once: focus given while the view was
            # hidden does not stick, and a first label key went nowhere.
            self.editor.text_view.setFocus()

    @Slot(int)
    def _pick(self, doc_id: int) -> None:
        self._picked = doc_id

    def _note_read_last(self) -> int | None:
        """The note of Annotate or Preview, whichever was shown last (a rule
        written while reading Preview is tested on Preview's note)."""
        session = self.editor.session
        annotated = session.doc_id if session is not None else None
        if self._note_view == "Preview" and self.preview.doc_id is not None:
            return self.preview.doc_id
        return annotated if annotated is not None else self.preview.doc_id

    def _preview_current(self) -> None:
        """Show in Preview the note picked last (one click in Documents, or
        opened in Annotate), else the one selected in Documents, else the
        first note."""
        if self.project is None:
            return
        doc = self._picked if self._picked is not None else \
            self.editor.session.doc_id if self.editor.session is not None else \
            self.documents.selected_document()
        if doc is None:
            first = self.project.document_infos(limit=1)
            doc = first[0].id if first else None
        if doc is not None and doc != self.preview.doc_id:
            self.preview.load_document(doc)

    def _build_suggest_bar(self) -> None:
        """The status bar's corner while notes get suggestions: how many are
        done, and a button that stops (a big folder takes minutes)."""
        self.suggest_box = QWidget()
        row = QHBoxLayout(self.suggest_box)
        row.setContentsMargins(0, 0, 0, 0)
        self.suggest_label = QLabel()
        self.suggest_progress = QProgressBar()
        self.suggest_progress.setRange(0, 1000)
        self.suggest_progress.setTextVisible(False)
        self.suggest_progress.setFixedWidth(160)
        self.suggest_stop = QPushButton("Stop suggesting")
        self.suggest_stop.setToolTip("The notes done so far keep their suggestions")
        self.suggest_stop.clicked.connect(self.cancel_suggestions)
        for widget in (self.suggest_label, self.suggest_progress, self.suggest_stop):
            row.addWidget(widget)
        self.statusBar().addPermanentWidget(self.suggest_box)
        self.suggest_box.hide()

    # ---------------------------------------------------------------- menus
    def _action(self, menu, text: str, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self._action(file_menu, "&New project…", self._ask_new_project, QKeySequence.New)
        self._action(file_menu, "&Open project…", self._ask_open_project, QKeySequence.Open)
        self._action(file_menu, "Open project read-&only…",
                     lambda: self._ask_open_project(readonly=True))
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.import_action = self._action(file_menu, "&Import folder…", self._ask_import,
                                          "Ctrl+I")
        self.export_action = self._action(file_menu, "&Export de-identified notes…",
                                          self.open_export, "Ctrl+E")
        self.audit_action = self._action(file_menu, "&Residual-risk review of an export…",
                                         self._ask_audit)
        self.assign_action = self._action(file_menu, "&Assign selected note to two annotators…",
                                          self._ask_assign)
        self._action(file_menu, "Hospital &lists…", lambda: open_lists_dialog(self))
        self.save_copy_action = self._action(file_menu, "Save a co&py…", self._ask_save_copy)
        self.close_action = self._action(file_menu, "&Close project", self._ask_close_project)
        file_menu.addSeparator()
        settings_action = self._action(file_menu, "&Settings…", self.open_settings)
        # The platform's Preferences key, unless it is Previous note's (Cmd+, on
        # macOS, where Ctrl means Cmd): a key bound twice fires neither.
        settings_action.setShortcuts([k for k in QKeySequence.keyBindings(QKeySequence.Preferences)
                                      if k != QKeySequence(PREVIOUS_NOTE_KEY)])
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.Quit)
        go = bar.addMenu("&Go")
        self.next_action = self._action(go, "&Next to annotate", self.documents.open_next,
                                        "Ctrl+.")
        self.previous_action = self._action(go, "&Previous note", self.open_previous,
                                            PREVIOUS_NOTE_KEY)
        for i, name in enumerate(self.views):
            self._action(go, name, lambda _=False, n=name: self.show_view(n), f"Ctrl+{i + 1}")
        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "&Keyboard shortcuts", self.show_shortcuts, "F1")
        self._action(help_menu, "&About DeID Studio", self.open_about)
        self._rebuild_recent()

    def _set_project_actions(self, enabled: bool) -> None:
        for action in (self.import_action, self.export_action, self.audit_action,
                       self.assign_action, self.save_copy_action, self.close_action,
                       self.next_action,
                       self.previous_action):
            action.setEnabled(enabled)

    def _rebuild_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_projects():
            self._action(self.recent_menu, path, lambda _=False, p=path:
                         self.leave_adjudication("Open another project") and self.open_project(p))
        self.recent_menu.setEnabled(bool(self.recent_projects()))

    def recent_projects(self) -> list[str]:
        value = self.settings.value("recent", []) or []
        return [value] if isinstance(value, str) else list(value)

    def _remember(self, path: str) -> None:
        recent = [path] + [p for p in self.recent_projects() if p != path]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self._rebuild_recent()

    # ------------------------------------------------------------- projects
    def annotator(self) -> str | None:
        return self.settings.value("annotator") or None

    def new_project(self, path: str | Path, preset: str | None = None,
                    language: str = "en") -> bool:
        """Create and open a project; ``preset`` ``None``: the language's
        default label set (``app.core.labels.default_preset``)."""
        preset = preset or default_preset(language)
        try:
            project = Project.create(path, list(PRESETS[preset]), language)
        except (ProjectError, OSError) as exc:
            self.show_error("Cannot create the project", str(exc))
            return False
        return self._install(project, created=True)

    def open_project(self, path: str | Path, readonly: bool = False) -> bool:
        """Open a project file; only the first page of the document list is read.

        A project another program is writing (or a file that cannot be
        written) is offered read-only, as the refusal says.
        """
        try:
            project = Project.open(path, readonly=readonly)
        except (ProjectLockedError, ProjectNotWritableError) as exc:
            answer = QMessageBox.question(
                self, "Open read-only?", f"{exc}\n\nOpen it read-only (look, do not change)?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
            if answer != QMessageBox.StandardButton.Yes:
                return False
            return self.open_project(path, readonly=True)
        except (ProjectError, OSError) as exc:
            self.show_error("Cannot open the project", str(exc))
            return False
        return self._install(project)

    def _install(self, project: Project, created: bool = False) -> bool:
        """Make ``project`` the open one; the first time, ask who annotates.
        ``created``: it was just made (the status bar says so, not "Opened")."""
        self.close_project()
        self.project = project
        self._created = created
        if self.annotator() is None:
            self._ask_annotator()
        else:
            self._show_project()
        return True

    def _ask_annotator(self) -> None:
        """Ask the annotator's name (window-modal, not blocking: the headless
        smoke test and scripts keep running); the project shows once answered."""
        import getpass
        try:
            login = getpass.getuser()
        except Exception:  # noqa: BLE001 - no login name on some systems
            login = ""
        self.annotator_dialog = AnnotatorDialog(self.project.annotators(), login, self)
        self.annotator_dialog.finished.connect(self._on_annotator_chosen)
        self.annotator_dialog.open()

    @Slot(int)
    def _on_annotator_chosen(self, result: int) -> None:
        dialog, self.annotator_dialog = self.annotator_dialog, None
        name = dialog.chosen() if result else ""
        dialog.deleteLater()
        if self.project is None:
            return
        if not result:
            # Cancel cancels: the project opened as "annotator" had stored
            # that name with every span made (a walkthrough).
            self.close_project()
            self._show_message("Not opened: every span you make is stored with your name; "
                               "open the project again and give one (initials will do)")
            return
        if not name:
            name = "annotator"
            self._show_message(f"Annotating as {name!r}: set your name in File › Settings")
        self.settings.setValue("annotator", name)
        self._show_project()

    def _show_project(self) -> None:
        project, annotator = self.project, self.annotator()
        if annotator and not project.readonly:
            project.add_annotator(annotator)
        for view in (self.documents, self.editor):
            view.set_project(project, annotator)
        self.agreement.set_project(project)
        self.adjudication.set_project(project, annotator)
        self.guidelines.set_project(project)
        self.training.set_project(project)
        self.preview.set_project(project, annotator)
        self.rules.set_project(project)
        ro = " (read-only)" if project.readonly else ""
        self.setWindowTitle(f"{project.path.name}{ro} — DeID Studio")
        self._set_project_actions(True)
        for action in (self.import_action, self.assign_action):
            action.setEnabled(not project.readonly)
        self._remember(str(project.path))
        self.show_view("Documents")
        notes = []
        if project.readonly:
            notes.append("read-only: nothing you do is saved")
        if project.upgraded_from:
            notes.append(f"upgraded from schema {project.upgraded_from}")
        if project.interrupted_runs:
            # A read-only open writes nothing: it only reads them so.
            notes.append(f"{count(len(project.interrupted_runs), 'interrupted run')} "
                         + ("read as cancelled" if project.readonly else "marked cancelled"))
            # Said where training is read too: the status bar's line is gone in seconds.
            self.training.note_interrupted(project.interrupted_runs)
        verb = "Created" if self._created else "Opened"
        self._show_message(f"{verb} {project.path.name}" + (f" ({'; '.join(notes)})" if notes else ""))
        self.projectOpened.emit(str(project.path))
        self._suggest_pending()

    @Slot()
    def close_project(self) -> None:
        if self.project is None:
            return
        self.cancel_import()
        self.importer.shutdown()
        self._pending = None
        self.suggester.shutdown()
        self.suggest_box.hide()
        self._end_import()
        self._history = []
        self._picked = None
        for view in (self.documents, self.editor):
            view.set_project(None, None)
        self.agreement.set_project(None)
        self.adjudication.set_project(None, None)
        self.guidelines.set_project(None)
        self.training.set_project(None)
        self.preview.set_project(None)
        self.rules.set_project(None)
        self.rules.set_note(None, None)
        self.project.close()
        self.project = None
        self.setWindowTitle("DeID Studio")
        self._set_project_actions(False)
        self._show_message("Project closed")     # "Opened ..." stayed after it closed

    # ------------------------------------------------------------ documents
    @Slot(int)
    def open_document(self, doc_id: int) -> None:
        current = self.editor.session.doc_id if self.editor.session is not None else None
        if current is not None and current != doc_id:
            self._history.append(current)
        self._load(doc_id)

    def _load(self, doc_id: int) -> None:
        self._picked = doc_id
        self.editor.load_document(doc_id)
        self.documents.select_document(doc_id)
        self.show_view("Annotate")

    @Slot()
    def open_previous(self) -> None:
        """Go back to the note opened before this one (Ctrl+,)."""
        if not self._history:
            self._show_message("No previous note")
            return
        self._load(self._history.pop())

    @Slot(int, int, int)
    def open_span(self, doc_id: int, start: int, end: int) -> None:
        self.open_document(doc_id)
        self.editor.text_view.select(start, end)

    @Slot(object)
    def _on_trained(self, _result) -> None:
        self.preview.model_changed()

    @Slot(int)
    def _on_preannotated(self, _n: int) -> None:
        self.documents.model.refresh()
        # The open note may be one of them: show its new suggestions.
        self.editor.reload_document()

    @Slot()
    def open_export(self) -> None:
        if self.project is None:
            return
        self.export_wizard = ExportWizard(self.project, self)
        self.export_wizard.show_in_preview.connect(self._show_suspicion)
        self.export_wizard.corrected.connect(self._on_corrected)
        self.export_wizard.review_requested.connect(
            lambda outcome: self.open_audit(outcome.out_dir, outcome.doc_ids))
        self.export_wizard.moved.connect(self._summary_moved)
        self.export_wizard.show()        # not modal: a suspected leak opens in Preview beside it

    def _ask_audit(self) -> None:
        """Choose an export folder, then review a sample of it."""
        if self.project is None:
            return
        path = QFileDialog.getExistingDirectory(self, "Export folder to review", self._dialog_dir())
        if self._chosen(path, folder=True):
            from app.services.auditing import export_document_ids
            self.open_audit(path, export_document_ids(self.project))

    def open_audit(self, folder, doc_ids: dict | None = None) -> None:
        """The residual-risk review of the export in ``folder`` (not modal)."""
        from app.gui.audit_view import AuditReviewDialog
        try:
            self.audit_dialog = AuditReviewDialog(self.project, folder, doc_ids,
                                                  self.annotator(), self)
        except UserError as exc:
            self.show_error("Cannot review this folder", str(exc))
            return
        self.audit_dialog.signed.connect(lambda r: self.statusBar().showMessage(
            r["notes_sentence"], 15000))
        self.audit_dialog.show()

    @Slot(int, int, int, str)
    def show_in_preview(self, doc_id: int, start: int, end: int, category: str = "") -> None:
        """Open a note in Preview with ``start``..``end`` of the original
        selected (a suspected leak of ``category``)."""
        if self.editor.session is not None and self.editor.session.doc_id != doc_id:
            self.open_document(doc_id)   # Preview follows the note open in Annotate
        self.show_view("Preview")
        if self.preview.doc_id != doc_id:
            self.preview.load_document(doc_id)
        self.preview.show_at(start, end, category)
        self.raise_()
        self.activateWindow()

    @Slot(int, int, int, str)
    def _show_suspicion(self, doc_id: int, start: int, end: int, category: str = "") -> None:
        """A suspicion of the export summary opened in Preview: the summary
        steps aside, so it covers none of what judging it needs."""
        self.show_in_preview(doc_id, start, end, category)
        if self.export_wizard is not None:
            self.place_beside(self.export_wizard, keep=self.preview.judging_area())

    def place_beside(self, window, keep=None) -> None:
        """Move ``window`` (a dialog of this one) where it covers nothing of
        this window: to its right, or its left, where the screen has room.
        Without room, it covers this window's part under ``keep`` (a
        rectangle of the screen), or its lower half. This window keeps its
        size, place and state (making room by narrowing it left a maximized
        window narrow, its views cut, after the dialog closed)."""
        screen = self.screen().availableGeometry()
        area = self.frameGeometry().intersected(screen)
        # A window frame's width and height beside its contents (0 offscreen).
        dx = window.frameGeometry().width() - window.width()
        dy = window.frameGeometry().height() - window.height()
        need = max(window.minimumSizeHint().width(), 360) + dx
        right, left = screen.right() - area.right(), area.left() - screen.left()
        if max(right, left) >= need:
            x, width = (area.right() + 1, right) if right >= need else (screen.left(), left)
            # move() places a window's frame, resize() sizes its contents.
            window.resize(width - dx, area.height() - dy)
            window.move(x, area.top())
        else:
            top = keep.bottom() + 1 if keep is not None else area.center().y()
            # Never shorter than it can be (on a small screen it covers more).
            top = max(area.top(), min(top, area.bottom() + 1
                                      - window.minimumSizeHint().height() - dy))
            window.resize(area.width() - dx, area.bottom() + 1 - top - dy)
            window.move(area.left(), top)
        window.raise_()

    @Slot()
    def _summary_moved(self) -> None:
        """The Preview's texts end above the export summary where it lies
        over them (`place_beside`), and use their whole height again when
        it is closed or moved off."""
        wizard = getattr(self, "export_wizard", None)     # (None while __init__ runs)
        if wizard is not None:
            self.preview.set_covered(wizard.frameGeometry() if wizard.isVisible() else None)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._summary_moved()

    def moveEvent(self, event) -> None:
        super().moveEvent(event)
        self._summary_moved()

    @Slot(int)
    def _on_document_edited(self, doc_id: int) -> None:
        self.documents.refresh_document(doc_id)
        if self.export_wizard is not None:          # its leak list says what is flagged since
            self.export_wizard.note_edited(doc_id)

    @Slot(int)
    def _on_corrected(self, doc_id: int) -> None:
        """A correction made in Preview: the note open in Annotate shows it
        (a stale one would refuse the next edit as a conflict)."""
        self._on_document_edited(doc_id)
        if self.editor.session is not None and self.editor.session.doc_id == doc_id:
            self.editor.reload_document()

    @Slot(int, str, str, int)
    def open_adjudication(self, doc_id: int, a: str, b: str, at: int = -1) -> None:
        """Adjudicate a note, at the disagreement starting at ``at`` (-1: the first)."""
        self.adjudication.load(doc_id, a, b, at)
        self.show_view("Adjudicate")

    @Slot()
    def _ask_assign(self) -> None:
        """File > Assign selected note…: the note selected in Documents (or
        open in Annotate) to the two annotators the dialog names."""
        if self.project is None or self.project.readonly:
            return
        doc = self.documents.selected_document()
        if doc is None and self.editor.session is not None:
            doc = self.editor.session.doc_id
        if doc is None:
            self._show_message("Select a note in Documents first")
            return
        dialog = AssignDialog(self.project.document(doc).name, self.project.annotators(), self)
        if not dialog.exec():
            return
        names = dialog.names()
        if len(names) != 2:
            self.show_error("Double annotation", "Name two different annotators.")
            return
        self.assign_documents([doc], names)
        self._show_message(f"{self.project.document(doc).name}: annotated blind by "
                           f"{names[0]} and {names[1]}")

    def assign_documents(self, doc_ids: list[int], annotators: list[str]) -> None:
        """Assign documents to annotators (two make them blind double-annotated)."""
        assign_notes(self.project, doc_ids, annotators, self.annotator())
        self.agreement.refresh_annotators()
        self.documents.model.refresh()
        session = self.editor.session
        if session is not None and session.doc_id in doc_ids:
            self.editor.load_document(session.doc_id)     # blind now: its own spans and status

    # --------------------------------------------------------------- import
    def import_folder(self, path: str | Path, *, fmt: str = "auto", split: str | None = None,
                      patient_regex: str | None = None,
                      label_map: dict[str, str] | None = None) -> None:
        """Import in a worker thread; ``importFinished`` reports the summary,
        then the new notes get suggestions (``suggestionsFinished``).
        ``split="patient"`` splits the notes without one by patient
        (train/dev/test) once imported; ``label_map`` files the annotations'
        labels under the project's."""
        if self.project is None or self.importer.busy():
            return
        project, path = self.project, str(path)

        def work(progress, cancel):
            from app.services.importing import import_path
            from app.services.splits import assign_splits
            summary = import_path(project, path, fmt=fmt,
                                  split=None if split == "patient" else split,
                                  patient_regex=patient_regex, label_map=label_map,
                                  progress=progress, cancel=cancel, suggest_after=True)
            if split == "patient":
                assign_splits(project)
            return summary

        self._progress = QProgressDialog("Importing notes…", "Cancel", 0, 1000, self)
        self._progress.setWindowTitle("Import")
        self._progress.setWindowModality(Qt.WindowModal)
        self._progress.setMinimumDuration(300)
        self._progress.canceled.connect(self.cancel_import)
        self.importer.start("import", work)

    @Slot()
    def cancel_import(self) -> None:
        self.importer.cancel()

    @Slot(object)
    def _on_import_progress(self, p) -> None:
        dialog = self._progress
        if dialog is not None:
            # Label first: setValue on a modal dialog runs the event loop, where
            # the import may finish and _end_import drop the dialog.
            dialog.setLabelText(f"Importing notes… {p.message}")
            dialog.setValue(int(p.fraction * 1000))

    def _end_import(self) -> None:
        if self._progress is not None:
            self._progress.canceled.disconnect(self.cancel_import)
            self._progress.close()
            self._progress.deleteLater()
            self._progress = None

    @Slot(object)
    def _on_import_finished(self, summary) -> None:
        self._end_import()
        self.documents.model.refresh()
        self.documents.apply_filters()
        self.editor.reload_labels()
        self.preview.reload_labels()
        self.guidelines.set_project(self.project)
        self.summary_dialog = ImportSummaryDialog(summary, self)
        self.summary_dialog.open()
        self._show_message(f"Imported {count(summary.imported, 'note')}")
        self.importFinished.emit(summary)
        if summary.doc_ids:
            self.suggest_for(summary.doc_ids)

    @Slot(str)
    def _on_import_failed(self, reason: str) -> None:
        self._end_import()
        self.documents.model.refresh()
        self.show_error("Import failed", reason)
        self.importFinished.emit(None)

    @Slot()
    def _on_import_cancelled(self) -> None:
        self._end_import()
        self.documents.model.refresh()
        self._show_message("Import cancelled; the notes imported so far are kept.")
        self.importFinished.emit(None)
        self._suggest_pending()

    def _suggest_pending(self) -> None:
        """Suggestions for the notes an import left waiting for theirs (one
        stopped, or a crash before they were made)."""
        from app.services.annotating import pending_suggestions
        if self.project is not None and not self.project.readonly:
            waiting = pending_suggestions(self.project)
            if waiting:
                self.suggest_for(waiting)

    def suggest_for(self, doc_ids: list[int], notes: tuple[str, str] = NEW_NOTES) -> None:
        """Suggest labels for these notes in a worker: the active model's
        predictions in a trained project, the starter's on day one, else the
        rules' (``notes``, singular and plural, names them in the status bar, beside how many are
        done and a Stop button). Asked while a run is busy, they wait for it."""
        if self.project is None:
            return
        if self.suggester.busy():
            ids, words = self._pending or ([], notes)
            seen = set(ids)
            ids += [i for i in doc_ids if i not in seen]
            self._pending = ids, words if words == notes else ("note", "notes")
            self._show_message(f"{count(len(ids), 'more note')} "
                               f"{'gets' if len(ids) == 1 else 'get'} suggestions after these")
            return
        project, ids = self.project, list(doc_ids)
        self._stop_asked = False

        def work(progress, cancel):
            from app.services.annotating import suggest_new_notes
            # Closing the project cancels too: then the notes left wait for
            # the next opening; Stop suggesting drops them.
            return suggest_new_notes(project, ids, progress=progress, cancel=cancel,
                                     stopped=lambda: self._stop_asked)

        self._suggesting, self._suggest_ids = notes, set(ids)
        self.suggest_label.setText(f"Suggesting labels for {len(ids):,} "
                                   f"{notes[0] if len(ids) == 1 else notes[1]}…")
        self.suggest_progress.setValue(0)
        self.suggest_box.show()
        self.suggester.start("suggest", work)

    @Slot()
    def cancel_suggestions(self) -> None:
        """Stop suggesting (those waiting too); the notes done keep theirs."""
        self._pending = None
        self._stop_asked = True
        self.suggester.cancel()

    @Slot(object)
    def _on_suggest_progress(self, p) -> None:
        self.suggest_progress.setValue(int(p.fraction * 1000))
        if p.message:
            self.suggest_label.setText(f"Suggesting labels: {p.message}")
        now = time.monotonic()
        if now - self._reread_at >= REREAD_INTERVAL:
            self._reread_at = now
            self.documents.reread(reset=False)   # the counts fill in, the list stays put
        self._show_suggested_note()

    def _show_suggested_note(self) -> None:
        """The note open in Annotate shows its suggestions once they are
        stored, not when the whole folder is done (minutes later)."""
        session = self.editor.session
        if session is not None and session.doc_id in self._suggest_ids \
                and session.changed_elsewhere():
            self.editor.reload_document()

    def _end_suggestions(self) -> None:
        """The run ended: the notes show what it stored; those waiting start."""
        self.suggest_box.hide()
        self.documents.reread()
        self._show_suggested_note()
        self._suggest_ids = set()
        if self._pending is not None:
            (ids, notes), self._pending = self._pending, None
            self.suggest_for(ids, notes)

    @Slot()
    def floor_changed(self) -> None:
        """The hospital lists (File › Hospital lists…) or the project's rules
        (Rules) changed: Preview predicts again, with them, as an export now
        would, and the notes still to do get suggestions that hold what
        they now find (an annotator would otherwise mark against the old)."""
        if self.project is None:
            return
        self.preview.model_changed()
        todo = [i.id for i in self.project.document_infos()
                if i.status in ("todo", "in_progress")]
        if todo and not self.project.readonly:
            self.suggest_for(todo, ("note to do", "notes to do"))

    @Slot(object)
    def _on_suggested(self, result) -> None:
        source, n = result
        if n:
            self._show_message(f"{count(n, *self._suggesting)} {'has' if n == 1 else 'have'} "
                               f"{SUGGESTIONS_BY[source]} "
                               f"suggestions to review")
        else:                          # annotated notes imported: nothing is left to suggest
            self._show_message("The imported notes are annotated already: nothing to suggest")
        self._end_suggestions()
        self.suggestionsFinished.emit(n)

    @Slot(str)
    def _on_suggest_failed(self, reason: str) -> None:
        self._show_message(f"No suggestions for the new notes: {reason}")
        self._end_suggestions()
        self.suggestionsFinished.emit(-1)

    @Slot()
    def _on_suggest_cancelled(self) -> None:
        self._show_message("Suggesting stopped: the notes done so far keep their suggestions")
        self._end_suggestions()
        self.suggestionsFinished.emit(-1)

    # -------------------------------------------------------------- dialogs
    def _dialog_dir(self) -> str:
        """Where a file dialog opens: the folder last chosen in one, else the
        home folder (a walkthrough's opened in the program's own folder)."""
        last = self.settings.value(LAST_DIR)
        return str(last) if last and Path(str(last)).is_dir() else str(Path.home())

    def _chosen(self, path: str, folder: bool = False) -> str:
        """``path`` as a dialog returned it, its folder kept for the next one."""
        if path:
            self.settings.setValue(LAST_DIR, str(Path(path) if folder else Path(path).parent))
        return path

    def leave_adjudication(self, doing: str) -> bool:
        """Whether the project may be left (``doing``: "Close the project",
        "Quit", ...): yes, unless decisions taken in Adjudicate are not saved
        and the person keeps them."""
        n = self.adjudication.unsaved()
        if not n:
            return True
        answer = QMessageBox.question(
            self, "Adjudication not saved",
            f"{count(n, 'disagreement')} of {self.adjudication.note_name} "
            f"{'is' if n == 1 else 'are'} decided in Adjudicate but not saved as gold. "
            f"{doing} and discard {'it' if n == 1 else 'them'}?")
        return answer == QMessageBox.StandardButton.Yes

    @Slot()
    def _ask_close_project(self) -> None:
        if self.leave_adjudication("Close the project"):
            self.close_project()

    def _ask_new_project(self) -> None:
        if not self.leave_adjudication("Make a new project"):
            return
        path, _ = QFileDialog.getSaveFileName(self, "New project", self._dialog_dir(),
                                              "DeID projects (*.deid)")
        if not self._chosen(path):
            return
        # The app makes English projects: offer the English default first.
        preset, ok = LabelSetDialog.get_preset(self, [p for p in PRESETS if p != "none"],
                                               default_preset("en"))
        if ok:
            self.new_project(path if path.endswith(".deid") else path + ".deid", preset)

    def _ask_open_project(self, readonly: bool = False) -> None:
        if not self.leave_adjudication("Open another project"):
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open project", self._dialog_dir(),
                                              "DeID projects (*.deid)")
        if self._chosen(path):
            self.open_project(path, readonly=readonly)

    def _ask_save_copy(self) -> None:
        """File > Save a copy: the project as one whole file, to move or keep.
        A copy of the ``.deid`` file alone misses the saves another
        program's reader keeps in its ``-wal``; this one never does
        (:meth:`app.project.Project.backup`)."""
        if self.project is None:
            return
        source = self.project.path
        path, _ = QFileDialog.getSaveFileName(self, "Save a copy of the project",
                                              str(source.with_name(f"{source.stem} copy.deid")),
                                              "DeID projects (*.deid)")
        if not path:
            return
        dest = Path(path if path.endswith(".deid") else path + ".deid")
        try:
            # The dialog asked before replacing the name it returned.
            self.project.backup(dest, overwrite=dest == Path(path))
        except ProjectError as exc:
            self.show_error("Save a copy", str(exc))
            return
        self._show_message(f"Saved a whole copy of {source.name} as {dest}")

    def _ask_import(self) -> None:
        """Choose a folder, then its patient-id pattern and split."""
        path = QFileDialog.getExistingDirectory(self, "Import a folder of notes", self._dialog_dir())
        if not self._chosen(path, folder=True):
            return
        dialog = self.import_dialog = ImportOptionsDialog(
            path, self, [label.name for label in self.project.labels()],
            known_patients={i.patient_id for i in self.project.document_infos() if i.patient_id})
        dialog.accepted.connect(lambda: self.import_folder(
            path, split=dialog.split_choice(), patient_regex=dialog.patient_regex(),
            label_map=dialog.label_map()))
        dialog.open()

    @Slot()
    def open_settings(self) -> None:
        dialog = SettingsDialog(self.settings, self)
        if dialog.exec():
            changed = self.project is not None and \
                dialog.annotator.text().strip() not in ("", self.annotator())
            if changed and not self.leave_adjudication("Open the project under the new name"):
                return
            dialog.save()
            self.editor.threshold.setValue(float(self.settings.value("accept_threshold", 0.9)))
            if self.project is not None and self.annotator() != self.editor.annotator:
                filters = self.documents.filters()
                self._install(Project.open(self._reopen_path()))
                self.documents.restore_filters(filters)       # the same notes, another name
                # Reopened for the new name: say that, not "Opened".
                self._show_message(f"Annotating as {self.annotator()!r}: the project was "
                                   f"opened again under that name")

    def _reopen_path(self) -> str:
        path = str(self.project.path)
        self.close_project()
        return path

    @Slot()
    def open_about(self) -> None:
        AboutDialog(self).exec()

    @Slot()
    def show_shortcuts(self) -> None:
        """Help > Keyboard shortcuts: the window's keys (read from its menus,
        so none is missing, Previous note included) and the editor's."""
        from html import escape

        from app.gui import editor_view
        rows = [(action.shortcut().toString(QKeySequence.NativeText),
                 f"{menu.title().replace('&', '')} › {action.text().replace('&', '')}")
                for menu in (a.menu() for a in self.menuBar().actions())
                for action in menu.actions() if not action.shortcut().isEmpty()]
        window = "\n".join(f"{keys:<18} {what}" for keys, what in rows)
        editor = editor_view.__doc__.split("Keys (with the text focused)")[1] \
            .split("Every action")[0].strip("-\n ")
        QMessageBox.information(self, "Keyboard shortcuts",
                                f"<b>In the window</b><pre>{escape(window)}</pre>"
                                f"<b>In a note (Annotate)</b><pre>{escape(editor)}</pre>")

    def show_error(self, title: str, text: str) -> None:
        QMessageBox.warning(self, title, text)

    @Slot(str)
    def _show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 6000)

    def closeEvent(self, event) -> None:
        if self.training.is_busy():
            answer = QMessageBox.question(
                self, "Training is running",
                "A training run is in progress. Stop it (the project stays consistent) and quit?")
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        if not self.leave_adjudication("Quit"):
            event.ignore()
            return
        self.training.shutdown()
        self.preview.shutdown()
        self.importer.shutdown()
        self.suggester.shutdown()
        self.close_project()
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.sync()
        super().closeEvent(event)
