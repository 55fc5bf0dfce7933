"""The annotation editor: one note, its spans, keyboard-first editing.

Keys (with the text focused)
----------------------------
1-9                 label the selection with that label (relabel the current span)
Tab / J, Shift+Tab / K   next / previous span
A / R               accept / reject the current suggestion (then go to the next one)
Del, Backspace      delete the current span (rejects a suggestion)
Ctrl+Shift+Left/Right   widen the current span by one token to the left / right
                    (with no current span: select word by word, as usual)
Alt+Shift+Left/Right    shrink the current span by one token from the right / left
P                   label every occurrence in this patient's notes
Ctrl+Enter          mark the note done
Ctrl+Shift+Enter    mark the note done and open the next one to annotate
Ctrl+Z, Ctrl+Shift+Z / Ctrl+Y   undo / redo (kept per note, across restarts;
                    also while a button of the editor has the focus)
Esc                 clear the current span
Right-click         on a span: accept, reject, relabel or delete it; on a
                    selection: label it (the same actions, by mouse)

Every action is saved at once through :class:`app.services.editing.AnnotationSession`.
"""
from __future__ import annotations

from app.core.labels import LabelDef
from app.services.editing import AnnotationSession, Edit, EditConflict
from app.gui.qt import (QAbstractItemView, QAbstractListModel, QColor, QDoubleSpinBox, QFont, Role,
                        QHBoxLayout, QKeySequence, QLabel, QListView, QMenu, QModelIndex, QPoint,
                        QPushButton, QShortcut,
                        QSplitter, Qt, QToolButton, QVBoxLayout, QWidget, Signal, Slot)
from app.gui.span_text import SpanTextView, describe
from app.project import Project, SpanRecord
from app.core.words import count

STATUS_TEXT = {"todo": "To do", "in_progress": "In progress", "done": "Done",
               "reviewed": "Reviewed"}
LEGEND = ("Underline: solid = accepted · dashed = model suggestion · dotted = rule "
          "suggestion. Hover a span for its label.")



#: Each kind of edit, as the status bar names it after an undo or a redo
#: ("Undone: status" and "Undone: accept above" were the code's words).
EDIT_WORDS = {"accept": "the suggestion accepted", "accept_above": "the suggestions accepted above "
              "the threshold", "add": "the new label", "apply_to_patient": "the labels in the "
              "patient's notes", "delete": "the deletion", "reject": "the suggestion rejected",
              "relabel": "the new label of the span", "resize": "the span's new extent",
              "status": "the note's status (To do, Done)"}

class SpanListModel(QAbstractListModel):
    """The side list of the note's visible spans (label, text, provenance)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.spans: list[SpanRecord] = []
        self._rows: dict[int, int] = {}
        self.text = ""
        self.colours: dict[str, str] = {}

    def set_spans(self, spans: list[SpanRecord], text: str, colours: dict[str, str]) -> None:
        self.beginResetModel()
        self.spans, self.text, self.colours = spans, text, colours
        self._rows = {r.id: i for i, r in enumerate(spans)}
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.spans)

    def data(self, index, role=Role.DISPLAY):
        if not index.isValid():
            return None
        r = self.spans[index.row()]
        if role == Role.DISPLAY:
            snippet = self.text[r.start:r.end].replace("\n", " ")
            if len(snippet) > 40:
                snippet = snippet[:39] + "…"
            mark = "?" if r.status == "suggested" else "✓"
            return f"{mark} {r.label}: {snippet}"
        if role == Role.DECORATION:
            return QColor(self.colours.get(r.label, "#999999"))
        if role == Role.TOOLTIP:
            return describe(r)
        if role == Role.USER:
            return r.id
        if role == Role.FONT and r.status == "suggested":
            font = QFont()
            font.setItalic(True)
            return font
        return None

    def row_of(self, span_id: int) -> int | None:
        return self._rows.get(span_id)


READ_ONLY = "The project is open read-only: nothing can be changed"


class EditorView(QWidget):
    """Edits one document at a time for the current annotator.

    Signals
    -------
    documentEdited(int)
        A document's spans or status changed (the list refreshes its row).
    message(str)
        A short status-bar message.
    next_requested()
        The note was marked done with "done and next": open the next one.
    """

    documentEdited = Signal(int)
    message = Signal(str)
    next_requested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.annotator: str | None = None
        self.session: AnnotationSession | None = None
        self.labels: list[LabelDef] = []
        self.current_id: int | None = None
        # The note whose "mark done" was held back by unreviewed suggestions.
        self._confirm_done: int | None = None

        self.title = QLabel("No document open")
        self.title.setStyleSheet("font-weight: 600; font-size: 14px;")
        self.status_label = QLabel()
        self.blind_label = QLabel()
        self.blind_label.setStyleSheet("color: #8a4b00;")
        self.undo_button = QPushButton("Undo")
        self.redo_button = QPushButton("Redo")
        self.done_button = QPushButton("Mark done  (Ctrl+Enter)")
        self.done_next_button = QPushButton("Done and next  (Ctrl+Shift+Enter)")
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(0.9)
        self.threshold.setPrefix("≥ ")
        self.accept_all_button = QPushButton("Accept suggestions")
        self.accept_all_button.setToolTip("Accept every suggestion with at least this confidence")
        self.patient_button = QPushButton("Label in patient's notes  (P)")
        # A click leaves the keyboard with the note: focus kept on a clicked
        # button made A, R and Tab do nothing, without a word (a walkthrough);
        # a button that takes no focus from a click left it to the scroll area
        # around the note, as dead. Tab still reaches them.
        for button in (self.undo_button, self.redo_button, self.done_button,
                       self.done_next_button, self.accept_all_button, self.patient_button):
            button.setFocusPolicy(Qt.TabFocus)
            button.clicked.connect(lambda _=False: self.text_view.setFocus())

        self.label_bar = QHBoxLayout()
        self.label_bar.setSpacing(4)
        self.text_view = SpanTextView()
        self.text_view.key_handler = self.handle_key
        self.text_view.setContextMenuPolicy(Qt.CustomContextMenu)
        self.text_view.customContextMenuRequested.connect(self._on_context_menu)
        #: The span menu while it is open (right-click), else None.
        self.context_menu: QMenu | None = None
        self.span_model = SpanListModel(self)
        self.span_list = QListView()
        self.span_list.setModel(self.span_model)
        self.span_list.setSelectionMode(QAbstractItemView.SingleSelection)
        self.span_list.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.span_list.setUniformItemSizes(True)
        self.span_count = QLabel()
        legend = QLabel(LEGEND)
        legend.setWordWrap(True)
        legend.setStyleSheet("color: #555;")

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.status_label)
        top.addWidget(self.undo_button)
        top.addWidget(self.redo_button)
        top.addWidget(self.done_button)
        top.addWidget(self.done_next_button)
        # The labels get a row of their own: beside the actions, a project's
        # twelve labels pushed the window wider than a 1280-pixel screen.
        labels_row = QHBoxLayout()
        labels_row.addLayout(self.label_bar)
        labels_row.addStretch(1)
        actions = QHBoxLayout()
        actions.addStretch(1)
        actions.addWidget(self.threshold)
        actions.addWidget(self.accept_all_button)
        actions.addWidget(self.patient_button)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.span_count)
        side_layout.addWidget(self.span_list, 1)
        side_layout.addWidget(legend)
        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(self.text_view)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([700, 260])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.blind_label)
        layout.addLayout(labels_row)
        layout.addLayout(actions)
        layout.addWidget(splitter, 1)

        self.undo_button.clicked.connect(self.undo)
        self.redo_button.clicked.connect(self.redo)
        self.done_button.clicked.connect(self.mark_done)
        self.done_next_button.clicked.connect(self.mark_done_and_next)
        self.accept_all_button.clicked.connect(self.accept_above_threshold)
        self.patient_button.clicked.connect(self.apply_current_to_patient)
        self.text_view.clicked.connect(self._on_text_clicked)
        self.span_list.clicked.connect(self._on_list_clicked)
        # Undo/redo also when a button, not the text, has the focus (the text
        # view takes these keys itself first, see SpanTextView.event).
        for keys, slot in (("Ctrl+Z", self.undo), ("Ctrl+Shift+Z", self.redo),
                           ("Ctrl+Y", self.redo)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self._update_buttons()

    # ------------------------------------------------------------- content
    def set_project(self, project: Project | None, annotator: str | None) -> None:
        self.project, self.annotator = project, annotator
        self.session = None
        self.current_id = None
        self.labels = project.labels() if project is not None else []
        self._build_label_bar()
        self.text_view.set_document("", [], {})
        self.span_model.set_spans([], "", {})
        self.title.setText("No document open")
        self._update_buttons()

    def reload_labels(self) -> None:
        if self.project is not None:
            self.labels = self.project.labels()
            self._build_label_bar()

    def colours(self) -> dict[str, str]:
        return {label.name: label.colour for label in self.labels}

    def _build_label_bar(self) -> None:
        while self.label_bar.count():
            item = self.label_bar.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        for label in self.labels:
            button = QToolButton()
            key = f"{label.hotkey} " if label.hotkey else ""
            button.setText(f"{key}{label.name}")
            button.setToolTip(label.description or label.name)
            button.setStyleSheet(
                f"QToolButton {{ border-bottom: 3px solid {label.colour}; padding: 3px 6px; }}")
            button.setFocusPolicy(Qt.NoFocus)
            button.clicked.connect(lambda _=False, name=label.name: self.label_selection(name))
            self.label_bar.addWidget(button)

    def label_buttons(self) -> list[QToolButton]:
        return [self.label_bar.itemAt(i).widget() for i in range(self.label_bar.count())]

    def load_document(self, doc_id: int) -> None:
        """Open a document (its text, visible spans, undo history)."""
        self.session = AnnotationSession(self.project, doc_id, self.annotator)
        self.current_id = None
        rec = self.session.record
        self.title.setText(rec.name + (f"   ·   patient {rec.patient_id}" if rec.patient_id else ""))
        assigned = self.project.assignments(doc_id) if self.session.blind else []
        self.blind_label.setText(
            "Adjudicated: these are the note's gold labels, as the adjudication saved them; "
            "what you change here changes them (training and exports read them)."
            if self.session.adjudicated else
            # Someone the note is not assigned to (a lead) saw the blind banner
            # over an empty note and read it as unannotated (a walkthrough).
            f"Annotated blind by {' and '.join(assigned)}, not by you: their labels are not "
            "shown here. Compare them in Agreement, settle them in Adjudicate; what you label "
            "here is a layer of your own."
            if self.session.blind and self.annotator not in assigned else
            "Blind double annotation: another annotator labels this note apart from you. You "
            "see only your own labels and the suggestions you have not decided yet; the note's "
            "status (To do, Done) is yours alone."
            if self.session.blind else "")
        self.blind_label.setVisible(self.session.blind)
        self.text_view.set_document(self.session.text, self.session.spans, self.colours())
        self._refresh_side()
        # The list kept the last note's scroll: its first spans were hidden.
        self.span_list.scrollToTop()
        self._update_buttons()
        self.text_view.setFocus()
        self.message.emit("")          # what was said of the last note ("Marked done") is not of this one

    def reload_document(self) -> None:
        """Re-read the open note's spans (suggestions arrived from a worker)."""
        if self.session is None:
            return
        self.session.reload()
        self.text_view.set_document(self.session.text, self.session.spans, self.colours())
        self.current_id = None
        self._refresh_side()
        self._update_buttons()

    def _refresh_side(self) -> None:
        s = self.session
        self.span_model.set_spans(s.spans, s.text, self.colours())
        n_sugg = sum(r.status == "suggested" for r in s.spans)
        self.span_count.setText(f"{len(s.spans) - n_sugg} accepted · {n_sugg} suggested")
        if self.current_id is not None:
            row = self.span_model.row_of(self.current_id)
            if row is not None:
                self.span_list.setCurrentIndex(self.span_model.index(row))

    def _after_edit(self, ranges: list[tuple[int, int]], select: int | None = None) -> None:
        """Repaint what changed, keep the side list and buttons in step."""
        s = self.session
        self._confirm_done = None
        self.text_view.update_spans(s.spans, ranges)
        self.current_id = select if select is not None and s.span(select) else (
            self.current_id if self.current_id is not None and s.span(self.current_id) else None)
        self.text_view.set_current(s.span(self.current_id) if self.current_id else None)
        self._refresh_side()
        self._update_buttons()
        self.documentEdited.emit(s.doc_id)

    def _update_buttons(self) -> None:
        s = self.session
        writable = s is not None and not self.project.readonly
        for widget in (self.done_button, self.done_next_button, self.accept_all_button,
                       self.patient_button):
            widget.setEnabled(writable)
        self.undo_button.setEnabled(writable and s.can_undo())
        self.redo_button.setEnabled(writable and s.can_redo())
        self.status_label.setText(STATUS_TEXT.get(s.status, s.status) if s else "")

    # ------------------------------------------------------------- current
    def current(self) -> SpanRecord | None:
        return self.session.span(self.current_id) if self.session and self.current_id else None

    def set_current(self, span_id: int | None) -> None:
        self.current_id = span_id
        record = self.current()
        self.text_view.set_current(record)
        if record is not None:
            row = self.span_model.row_of(record.id)
            if row is not None:
                self.span_list.setCurrentIndex(self.span_model.index(row))
            self.message.emit(describe(record))

    def step(self, delta: int, *, suggestions_only: bool = False) -> None:
        """Make the next (``delta=1``) or previous span current."""
        if self.session is None:
            return
        spans = self.session.suggestions() if suggestions_only else self.session.spans
        if not spans:
            self.set_current(None)
            return
        cur = self.current()
        if cur is None:
            pos = self.text_view.offsets.to_py(self.text_view.textCursor().position())
            after = [r for r in spans if r.start >= pos]
            target = (after[0] if after else spans[0]) if delta > 0 else (
                [r for r in spans if r.start < pos] or spans)[-1]
        else:
            keys = [(r.start, r.end, r.id) for r in spans]
            here = (cur.start, cur.end, cur.id)
            if delta > 0:
                nxt = [r for r, k in zip(spans, keys) if k > here]
                target = nxt[0] if nxt else spans[0]
            else:
                prv = [r for r, k in zip(spans, keys) if k < here]
                target = prv[-1] if prv else spans[-1]
        self.set_current(target.id)

    # ------------------------------------------------------------- actions
    def _run(self, action, *args):
        """Run a session action; a stale undo entry is reported, not raised."""
        if self.project.readonly:
            self.message.emit(READ_ONLY)
            return None
        try:
            return action(*args)
        except EditConflict as exc:
            self.session.reload()
            self.text_view.set_document(self.session.text, self.session.spans, self.colours())
            self.message.emit(str(exc))
            return None

    def label_selection(self, label: str) -> int | None:
        """Label the selected text (snapped to tokens), or relabel the current span."""
        if self.session is None:
            return None
        if self.project.readonly:           # said so, not "nothing to label"
            self.message.emit(READ_ONLY)
            return None
        selection = self.text_view.selection()
        if selection is not None:
            new_id = self._run(self.session.add, *selection, label)
            if new_id is None:
                self.message.emit("Nothing to label in the selection")
                return None
            self.text_view.clear_selection()
            self._after_edit(self.session.last_edit.ranges(), new_id)
            self._say_current()
            return new_id
        cur = self.current()
        if cur is not None:
            if cur.label == label:
                if cur.status == "suggested":
                    self.accept_current()
                return cur.id
            new_id = self._run(self.session.relabel, cur.id, label)
            if new_id is not None:
                self._after_edit(self.session.last_edit.ranges(), new_id)
                self._say_current()
            return new_id
        self.message.emit("Select some text first")
        return None

    @Slot()
    def delete_current(self) -> None:
        cur = self.current()
        if cur is None:
            return
        self._run(self.session.delete, cur.id)
        self.current_id = None
        self._after_edit(self.session.last_edit.ranges())
        # The status bar still offered "A accept, R reject" for the span removed.
        self.message.emit(f"{cur.label} span removed: Ctrl+Z brings it back")

    def _no_suggestion(self, cur: SpanRecord | None) -> None:
        """What A or R do when no suggestion is the current span (they did
        nothing, and said nothing: a walkthrough)."""
        self.message.emit("No suggestion is chosen: Tab goes to the next one, then A accepts it "
                          "and R rejects it" if cur is None else
                          "This span is not a suggestion: Del removes it")

    def accept_current(self) -> None:
        cur = self.current()
        if cur is None or cur.status != "suggested":
            self._no_suggestion(cur)
            return
        new_id = self._run(self.session.accept, cur.id)
        self._after_edit(self.session.last_edit.ranges(), new_id)
        if self.session.suggestions():
            self.step(1, suggestions_only=True)
        else:
            self._none_left(self.current())

    def reject_current(self) -> None:
        cur = self.current()
        if cur is None or cur.status != "suggested":
            self._no_suggestion(cur)
            return
        self._run(self.session.reject, cur.id)
        self._after_edit(self.session.last_edit.ranges())
        # Continue with the suggestion after the one just rejected.
        if self.session.suggestions():
            nxt = [r for r in self.session.suggestions() if (r.start, r.end) > (cur.start, cur.end)]
            self.set_current((nxt or self.session.suggestions())[0].id)
        else:
            self._none_left(self.current())

    def _none_left(self, record: SpanRecord | None) -> None:
        """The last suggestion decided: say so, and what comes next (the
        status bar still offered "A accept, R reject" for the span decided)."""
        said = f"{describe(record)}. " if record is not None else ""
        self.message.emit(f"{said}No suggestion left in this note: Ctrl+Enter marks it done")

    def resize_current(self, edge: str, delta: int) -> None:
        cur = self.current()
        if cur is None:
            return
        new_id = self._run(self.session.resize, cur.id, edge, delta)
        if new_id is not None:
            self._after_edit(self.session.last_edit.ranges(), new_id)
            self._say_current()

    def _say_current(self) -> None:
        """The status bar describes the span an edit made (it kept saying
        "model suggestion 0.90 (A accept, R reject)" of a span just accepted)."""
        record = self.current()
        if record is not None:
            self.message.emit(describe(record))

    @Slot()
    def accept_above_threshold(self) -> int:
        if self.session is None:
            return 0
        n = self._run(self.session.accept_above, self.threshold.value()) or 0
        if n:
            self._after_edit(self.session.last_edit.ranges())
        self.message.emit(f"Accepted {count(n, 'suggestion')} with confidence "
                          f"≥ {self.threshold.value():.2f}")
        return n

    @Slot()
    def apply_current_to_patient(self) -> dict[int, int]:
        cur = self.current()
        if cur is None:
            self.message.emit("Choose a span first")
            return {}
        added = self._run(self.session.apply_to_patient, cur.id) or {}
        if self.session.doc_id in added:
            self._after_edit(self.session.last_edit.ranges(), self.current_id)
        for doc_id in added:
            if doc_id != self.session.doc_id:
                self.documentEdited.emit(doc_id)
        self.message.emit(f"Labelled {count(sum(added.values()), 'occurrence')} in "
                          f"{count(len(added), 'note')}")
        return added

    @Slot()
    def mark_done(self) -> bool:
        """Mark the note done; with suggestions still unreviewed, the first
        request only says how many (a second one marks it done anyway).
        Returns whether the note is now done."""
        if self.session is None:
            return False
        if self.session.adjudicated:
            # Reviewed already, and stays so (`AnnotationSession.set_status`).
            self.message.emit("Adjudicated: the note is reviewed; its gold keeps your changes")
            return True
        pending = len(self.session.suggestions())
        if pending and self._confirm_done != self.session.doc_id:
            self._confirm_done = self.session.doc_id
            # Said plainly: "leave them" read as "keep them", and a note done
            # with its suggestions unaccepted teaches training that their
            # words are no identifiers.
            self.message.emit(f"{count(pending, 'suggestion')} not reviewed yet (they are not labels "
                              "until accepted): review them with A / R (or accept them all), or "
                              "mark done again to save the note without them: training then "
                              "learns their words are no identifiers")
            return False
        self._confirm_done = None
        self._run(self.session.set_status, "done")
        self._after_edit([])
        self.message.emit("Marked done" + (f" without {count(pending, 'suggestion')} left "
                                           "unaccepted" if pending else ""))
        return True

    @Slot()
    def mark_done_and_next(self) -> None:
        """Mark the note done and ask for the next note to annotate (Ctrl+Enter
        stayed on the note; Prodigy's accept moves on)."""
        if self.mark_done():
            self.next_requested.emit()

    @Slot()
    def undo(self) -> Edit | None:
        return self._undo_redo(self.session.undo if self.session else None, "Undone")

    @Slot()
    def redo(self) -> Edit | None:
        return self._undo_redo(self.session.redo if self.session else None, "Redone")

    def _undo_redo(self, action, verb: str) -> Edit | None:
        if action is None:
            return None
        edit = self._run(action)
        if edit is None:
            self.message.emit("Nothing to " + ("undo" if verb == "Undone" else "redo"))
            return None
        target = edit.before if verb == "Undone" else edit.after
        select = self.session.span_for_state(target[-1]) if target else None
        self._after_edit(edit.ranges(), select.id if select else None)
        self.message.emit(f"{verb}: {EDIT_WORDS.get(edit.action, edit.action.replace('_', ' '))}")
        return edit

    # ---------------------------------------------------------------- keys
    def handle_key(self, event, probe: bool) -> bool:
        """Dispatch an editor key; with ``probe`` only say whether it is ours."""
        if self.session is None:
            return False
        key, mods = event.key(), event.modifiers()
        ctrl = bool(mods & Qt.ControlModifier)
        shift = bool(mods & Qt.ShiftModifier)
        alt = bool(mods & Qt.AltModifier)
        plain = not (ctrl or alt)
        action = None
        hotkeys = {label.hotkey: label.name for label in self.labels if label.hotkey}
        text = event.text()
        if plain and text in hotkeys:
            action = lambda: self.label_selection(hotkeys[text])  # noqa: E731
        elif key == Qt.Key_Tab or (plain and key == Qt.Key_J):
            action = lambda: self.step(1)  # noqa: E731
        elif key == Qt.Key_Backtab or (plain and key == Qt.Key_K):
            action = lambda: self.step(-1)  # noqa: E731
        elif plain and key == Qt.Key_A:
            action = self.accept_current
        elif plain and key == Qt.Key_R:
            action = self.reject_current
        elif plain and key == Qt.Key_P:
            action = self.apply_current_to_patient
        elif plain and key in (Qt.Key_Delete, Qt.Key_Backspace):
            action = self.delete_current
        elif plain and key == Qt.Key_Escape:
            action = lambda: self.set_current(None)  # noqa: E731
        elif ctrl and shift and key in (Qt.Key_Left, Qt.Key_Right) and self.current() is not None:
            action = (lambda: self.resize_current("start", -1)) if key == Qt.Key_Left \
                else (lambda: self.resize_current("end", 1))
        elif alt and shift and key in (Qt.Key_Left, Qt.Key_Right) and self.current() is not None:
            action = (lambda: self.resize_current("end", -1)) if key == Qt.Key_Left \
                else (lambda: self.resize_current("start", 1))
        elif ctrl and shift and key in (Qt.Key_Return, Qt.Key_Enter):
            action = self.mark_done_and_next
        elif ctrl and key in (Qt.Key_Return, Qt.Key_Enter):
            action = self.mark_done
        elif ctrl and key == Qt.Key_Z:
            action = self.redo if shift else self.undo
        elif ctrl and key == Qt.Key_Y:
            action = self.redo
        if action is None:
            return False
        if not probe:
            action()
        return True

    # --------------------------------------------------------------- mouse
    @Slot(int)
    def _on_text_clicked(self, offset: int) -> None:
        if self.session is None:
            return
        hits = self.session.spans_at(offset)
        self.set_current(hits[-1].id if hits else None)

    @Slot(QPoint)
    def _on_context_menu(self, pos: QPoint) -> None:
        """Right-click: the span under the mouse becomes the current one and
        its actions are offered (the keys' actions, for the mouse); on a
        selection, its labels; elsewhere the text's own menu (Copy)."""
        if self.session is None:
            return
        view = self.text_view
        menu = QMenu(self)
        selection = view.selection()
        hits = [] if selection is not None else self.session.spans_at(view.offset_at(pos))
        if hits:
            self.set_current(hits[-1].id)
            cur = self.current()
            if cur.status == "suggested":
                menu.addAction("Accept  (A)", self.accept_current)
                menu.addAction("Reject  (R)", self.reject_current)
            relabel = menu.addMenu("Label as")
            for label in self.labels:
                if label.name != cur.label:
                    relabel.addAction(self._label_text(label),
                                      lambda name=label.name: self.label_selection(name))
            menu.addAction("Delete  (Del)", self.delete_current)
        elif selection is not None:
            for label in self.labels:
                menu.addAction(f"Label as {self._label_text(label)}",
                               lambda name=label.name: self.label_selection(name))
        else:
            menu = view.createStandardContextMenu()
        self.context_menu = menu
        try:
            menu.exec(view.viewport().mapToGlobal(pos))
        finally:
            self.context_menu = None
            menu.deleteLater()

    @staticmethod
    def _label_text(label: LabelDef) -> str:
        return f"{label.name}  ({label.hotkey})" if label.hotkey else label.name

    @Slot(QModelIndex)
    def _on_list_clicked(self, index: QModelIndex) -> None:
        self.set_current(self.span_model.data(index, Role.USER))
        self.text_view.setFocus()
