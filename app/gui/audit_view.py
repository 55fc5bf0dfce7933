"""Residual-risk review of an export: a random sample of its notes, each
read side by side with its original, every identifier left in clear marked,
then signed (`app.services.auditing`).

The dialog presents and forwards: the sample is drawn by ``start_audit``,
the counts go into the export's review file (``save_review``) and the bound
is computed and written into the audit report by ``finish_audit`` — the same
steps ``deid audit`` runs. Marks live in the window only (counts are what
the review keeps, never the text).
"""
from __future__ import annotations

from html import escape
from pathlib import Path

from app.deid.report import when
from app.errors import UserError
from app.gui.qt import (QColor, QDialog, QEvent, QHBoxLayout, QKeySequence, QLabel,
                        QLineEdit, QListWidget, QListWidgetItem, QPlainTextEdit, QPushButton,
                        QShortcut, QSplitter, Qt, QTextEdit, QVBoxLayout, QWidget, Signal,
                        Slot, fit_to_screen)
from app.gui.span_text import OffsetMap
from app.services.auditing import (finish_audit, replacements_in, sampled_notes,
                                   save_marks, save_review, saved_marks, signed_audit,
                                   start_audit, suspicions_in)
from app.services.export_reports import audit_report_path

_MARK = QColor("#ffb3b3")
#: Where the export's leak scan suspects an identifier left: the reviewer judges each.
_SUSPECTED = QColor("#ffd27f")
#: What the export replaced: shaded, so the eye reads the rest (surrogates look real).
_REPLACED = QColor("#e3e3e3")


class AuditReviewDialog(QDialog):
    """Review a sample of an export and sign the measured residual risk.

    Signals
    -------
    signed(dict)
        The finished audit (``finish_audit``'s result).
    """

    signed = Signal(dict)

    def __init__(self, project, folder, doc_ids: dict[str, int] | None = None,
                 reviewer: str | None = None, parent=None, *, seed: int | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.folder = Path(folder)
        self.doc_ids = dict(doc_ids or {})
        rows, self.result = self._open_or_start(seed)
        self.notes = [name for name, _, _ in rows]
        #: Identifiers left, per note: a count once the note is reviewed.
        self.counts: dict[str, int] = {n: left for n, _, left in rows if left is not None}
        self.marks: dict[str, list[tuple[int, int]]] = saved_marks(project, self.folder)
        # Sign pressed once over notes read clean that the scan doubts: the
        # second press signs (said first, not after signing).
        self._sign_asked = False
        #: Why the review cannot go on (the export's notes cannot be read), else None.
        self._gone: str | None = None
        #: The leak scan's suspicions per note, read once.
        self._suspected: dict[str, list[tuple[int, int, str]]] = {}
        self.setWindowTitle(f"Residual-risk review — {self.folder.name}")
        fit_to_screen(self, 1180, 700)

        from app.deid.audit import percent, upper_bound
        self.intro = QLabel(
            f"<b>{len(self.notes)} notes</b> drawn at random from this export (if none leaks: "
            f"at most {percent(upper_bound(0, len(self.notes)))} of its notes leak, 95 % "
            f"confidence). Read each note "
            f"whole, beside its original (grey: what the export replaced). Select every "
            f"identifier left in clear in the "
            f"de-identified text (of a kind this project's labels protect: "
            f"{', '.join(label.name for label in project.labels())}; what no label covers, "
            f"the project leaves in clear on purpose) and press <b>Mark left in clear</b> "
            f"(M); orange: where the export's leak scan suspects one, to judge; then "
            f"<b>Reviewed ▶</b> (Ctrl+Enter). When every note is reviewed, sign: the audit "
            f"report states the leak rate with its 95 % upper bound.")
        self.intro.setWordWrap(True)
        self.note_list = QListWidget()
        self.note_list.currentRowChanged.connect(self._show_note)
        self.original = QPlainTextEdit(readOnly=True)
        self.redacted = QPlainTextEdit(readOnly=True)
        self.original_title = QLabel("Original")
        self.redacted_title = QLabel("De-identified (as exported)")
        # The two texts scroll together, at the same share of their length
        # (the replacements change lengths a little; the reader stays level).
        self._syncing = False
        for source, target in ((self.original, self.redacted), (self.redacted, self.original)):
            source.verticalScrollBar().valueChanged.connect(
                lambda _v, s=source, t=target: self._scroll_with(s, t))
        split = QSplitter(Qt.Horizontal)
        for title, view in ((self.original_title, self.original),
                            (self.redacted_title, self.redacted)):
            box = QWidget()
            col = QVBoxLayout(box)
            col.setContentsMargins(0, 0, 0, 0)
            col.addWidget(title)
            col.addWidget(view, 1)
            split.addWidget(box)
        self.mark_button = QPushButton("Mark left in clear")
        self.mark_button.setToolTip("The text selected in the de-identified note is an "
                                    "identifier the export left in clear (M)")
        self.mark_button.clicked.connect(self.mark_selection)
        self.unmark_button = QPushButton("Undo mark")
        self.unmark_button.clicked.connect(self.undo_mark)
        self.count_label = QLabel()
        self.count_label.setWordWrap(True)       # wraps on a small screen, not widens the window
        self.reviewed_button = QPushButton("Reviewed ▶")
        self.reviewed_button.setToolTip("This note is read whole; its marks are every "
                                        "identifier left (Ctrl+Enter)")
        self.reviewed_button.clicked.connect(self.note_reviewed)
        # A text view takes plain letters before any shortcut: M (and Ctrl+Enter,
        # wherever the window's focus is) are read there.
        self.redacted.installEventFilter(self)
        QShortcut(QKeySequence("Ctrl+Return"), self, self.note_reviewed)
        marks = QHBoxLayout()
        for w in (self.mark_button, self.unmark_button):
            marks.addWidget(w)
        marks.addWidget(self.count_label, 1)      # the room between: one line where it fits
        marks.addWidget(self.reviewed_button)
        self.reviewer = QLineEdit(reviewer or "")
        self.reviewer.setPlaceholderText("Your name (signs the review)")
        self.reviewer.textChanged.connect(self._update)
        self.sign_button = QPushButton("Sign review")
        self.sign_button.setStyleSheet("font-weight: 600;")
        self.sign_button.clicked.connect(self.sign)
        self.report_button = QPushButton("Open audit report")
        self.report_button.clicked.connect(self.open_report)
        # A signed review is shown as signed; reviewing the export again is asked for.
        self.new_sample_button = QPushButton("Review a new sample")
        self.new_sample_button.clicked.connect(self.new_sample)
        self.progress_label = QLabel()
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.result_label.setTextFormat(Qt.RichText)
        sign = QHBoxLayout()
        sign.addWidget(self.progress_label)
        sign.addStretch(1)
        sign.addWidget(QLabel("Reviewer:"))
        sign.addWidget(self.reviewer)
        sign.addWidget(self.sign_button)
        sign.addWidget(self.report_button)
        sign.addWidget(self.new_sample_button)

        main = QSplitter(Qt.Horizontal)
        main.addWidget(self.note_list)
        main.addWidget(split)
        main.setStretchFactor(1, 1)
        main.setSizes([290, 890])
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(main, 1)
        layout.addLayout(marks)
        layout.addWidget(self.result_label)
        layout.addLayout(sign)
        for name in self.notes:
            self.note_list.addItem(QListWidgetItem(name))
        self._refresh_list()
        first = next((i for i, n in enumerate(self.notes) if n not in self.counts), 0)
        self.note_list.setCurrentRow(first)
        if self.result is not None:
            self._show_result(self.result)
        self._update()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.redacted and event.type() == QEvent.KeyPress:
            if event.key() == Qt.Key_M and not event.modifiers():
                self.mark_selection()
                return True
            if event.key() in (Qt.Key_Return, Qt.Key_Enter) and \
                    event.modifiers() & Qt.ControlModifier:
                self.note_reviewed()
                return True
        return super().eventFilter(watched, event)

    def _open_or_start(self, seed: int | None) -> tuple[list[tuple[str, int, int | None]],
                                                         dict | None]:
        """Go on with an unfinished review of this export, show a signed one
        as signed (it drew a new sample, saying nothing), else draw a sample;
        returns the review's rows and the signed audit, if any."""
        try:
            rows = sampled_notes(self.folder)
            if any(left is None for _, _, left in rows):
                return rows, None
            signed = signed_audit(self.project, self.folder)
            if rows and signed is not None:
                return rows, signed
        except UserError:
            pass
        # A review whose every note has its count is done with: a new sample.
        start_audit(self.project, self.folder, seed=seed, force=True)
        return sampled_notes(self.folder), None

    @Slot()
    def new_sample(self) -> None:
        """Draw a new sample of this export to review (the signed audit stays
        in the project's audit log and its report until the next is signed)."""
        start_audit(self.project, self.folder, force=True)
        rows = sampled_notes(self.folder)
        self.notes = [name for name, _, _ in rows]
        self.counts, self.marks, self.result = {}, {}, None
        self._sign_asked = False
        self.note_list.clear()
        for name in self.notes:
            self.note_list.addItem(QListWidgetItem(name))
        self.result_label.setText("")
        self._refresh_list()
        self.note_list.setCurrentRow(0)
        self._update()

    def _scroll_with(self, source: QPlainTextEdit, target: QPlainTextEdit) -> None:
        if self._syncing:
            return
        bar, other = source.verticalScrollBar(), target.verticalScrollBar()
        self._syncing = True
        try:
            share = bar.value() / bar.maximum() if bar.maximum() else 0.0
            other.setValue(round(share * other.maximum()))
        finally:
            self._syncing = False

    # ------------------------------------------------------------------ notes
    def current_note(self) -> str | None:
        row = self.note_list.currentRow()
        return self.notes[row] if 0 <= row < len(self.notes) else None

    @Slot(int)
    def _show_note(self, row: int) -> None:
        name = self.current_note()
        if name is None:
            return
        try:
            written = (self.folder / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            # The export moved or deleted under the review: nothing shown may be
            # counted as read (the last note stayed on screen under another's name).
            self.redacted.setPlainText("")
            self.original.setPlainText("")
            self._gone = f"{name} cannot be read in {self.folder} ({type(exc).__name__}): " \
                         "the export was moved or deleted; close the review"
            self.result_label.setText(f"<span style='color:#a40000'>{escape(self._gone)}</span>")
            self._update()
            return
        if self._gone is not None:             # back where it was: the review goes on
            self._gone = None
            self.result_label.setText("")
        self.redacted.setPlainText(written)
        doc_id = self.doc_ids.get(name)
        if doc_id is not None:
            self.original.setPlainText(self.project.document(doc_id).text)
            self.original_title.setText(f"Original ({self.project.document(doc_id).name})")
        else:
            self.original.setPlainText("")
            self.original_title.setText("Original: not a document of this project")
        self._paint_marks()
        self._update()

    def _paint_marks(self) -> None:
        name = self.current_note() or ""
        offsets = OffsetMap(self.redacted.toPlainText())
        # Grey: what the export replaced; orange: what its leak scan suspects;
        # pink: the reviewer's marks (already in the view's positions).
        ranges = [(offsets.to_qt(a), offsets.to_qt(b), _REPLACED)
                  for a, b in (replacements_in(self.folder, name) if name else [])]
        ranges += [(offsets.to_qt(a), offsets.to_qt(b), _SUSPECTED)
                   for a, b, _ in (self._suspicions(name) if name else [])]
        ranges += [(a, b, _MARK) for a, b in self.marks.get(name, [])]
        selections = []
        for start, end, colour in ranges:
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(colour)
            cursor = self.redacted.textCursor()
            cursor.setPosition(start)
            cursor.setPosition(end, cursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            selections.append(sel)
        self.redacted.setExtraSelections(selections)

    @Slot()
    def mark_selection(self) -> None:
        """The selection of the de-identified note is an identifier left in clear."""
        name = self.current_note()
        if self._gone is not None or self.result is not None:
            return
        cursor = self.redacted.textCursor()
        if name is None or not cursor.hasSelection():
            self.count_label.setText("Select the identifier in the de-identified note first")
            return
        offsets = OffsetMap(self.redacted.toPlainText())
        a, b = offsets.to_py(cursor.selectionStart()), offsets.to_py(cursor.selectionEnd())
        if any(start < b and a < end for start, end in replacements_in(self.folder, name)):
            # A stand-in the export wrote is no identifier left: counted, it
            # inflated the signed leak rate.
            self.count_label.setText("That is a stand-in the export wrote (grey): mark only "
                                     "what it left in clear")
            return
        self.marks.setdefault(name, []).append((cursor.selectionStart(), cursor.selectionEnd()))
        save_marks(self.project, self.folder, self.marks)
        self.counts.pop(name, None)                  # changed: to be confirmed again
        cursor.clearSelection()                      # the mark's colour shows at once
        self.redacted.setTextCursor(cursor)
        self._paint_marks()
        self._refresh_list()
        self._update()

    @Slot()
    def undo_mark(self) -> None:
        name = self.current_note()
        if name and self.marks.get(name) and self.result is None:
            self.marks[name].pop()
            save_marks(self.project, self.folder, self.marks)
            self.counts.pop(name, None)
            self._paint_marks()
            self._refresh_list()
            self._update()

    @Slot()
    def note_reviewed(self) -> None:
        """This note is read: its marks are every identifier left; go to the next."""
        name = self.current_note()
        if name is None or self._gone is not None or self.result is not None:
            return          # nothing shown can be read; a signed review is not changed
        self.counts[name] = len(self.marks.get(name, []))
        self._sign_asked = False
        try:
            save_review(self.folder, self.counts, partial=True)   # kept if the window closes
        except (UserError, OSError):
            pass                  # the folder is gone: said where the note cannot be read
        self._refresh_list()
        following = [i for i, n in enumerate(self.notes) if n not in self.counts]
        if following:
            self.note_list.setCurrentRow(following[0])
        self._update()

    def _refresh_list(self) -> None:
        for i, name in enumerate(self.notes):
            if name in self.counts:
                left = self.counts[name]
                text = f"✓ {name} — {left} left" if left else f"✓ {name} — none left"
            elif self.marks.get(name):
                text = f"… {name} — {len(self.marks[name])} marked"
            else:
                text = f"   {name}"
            item = self.note_list.item(i)
            item.setText(text)
            item.setForeground(QColor("#a40000") if self.counts.get(name) else QColor("#202020"))

    def _update(self) -> None:
        name = self.current_note()
        marked = len(self.marks.get(name or "", []))
        doubts = len(self._suspicions(name)) if name else 0
        self.count_label.setText(f"Identifiers left in this note: {marked}" + (
            f"  ·  the leak scan suspects {doubts} (orange): judge each" if doubts else ""))
        done = sum(n in self.counts for n in self.notes)
        self.progress_label.setText(f"{done} of {len(self.notes)} notes reviewed")
        editable = self._gone is None and self.result is None
        self.unmark_button.setEnabled(marked > 0 and editable)
        self.mark_button.setEnabled(editable)
        self.sign_button.setEnabled(done == len(self.notes) and bool(self.reviewer.text().strip())
                                    and self.result is None and self._gone is None)
        self.reviewed_button.setEnabled(editable)
        self.report_button.setEnabled(self.result is not None)
        self.new_sample_button.setVisible(self.result is not None)

    # ------------------------------------------------------------------ sign
    def _suspicions(self, name: str) -> list[tuple[int, int, str]]:
        if name not in self._suspected:
            self._suspected[name] = suspicions_in(self.project, self.folder, name)
        return self._suspected[name]

    @Slot()
    def sign(self) -> None:
        """Save the counts, bound the residual risk, write it into the report.
        Notes read clean where the leak scan suspects something are said
        first; a second press signs."""
        doubted = [n for n in self.notes if not self.counts.get(n) and self._suspicions(n)]
        if doubted and not self._sign_asked:
            self._sign_asked = True
            places = sum(len(self._suspicions(n)) for n in doubted)
            self.result_label.setText(
                f"<span style='color:#a40000'>The leak scan suspects {places} "
                f"identifier{'s' if places != 1 else ''} in {len(doubted)} of the notes you "
                f"found none left in (first: {escape(doubted[0])}, orange). Judge each, mark "
                f"what is left in clear, or press Sign review again to sign as it is.</span>")
            self.note_list.setCurrentRow(self.notes.index(doubted[0]))
            return
        try:
            save_review(self.folder, self.counts)
            self.result = finish_audit(self.project, self.folder,
                                       reviewer=self.reviewer.text().strip())
        except UserError as exc:
            self.result_label.setText(f"<span style='color:#a40000'>{exc}</span>")
            return
        self._show_result(self.result)
        self._update()
        self.signed.emit(self.result)

    def _show_result(self, r: dict) -> None:
        from app.deid.audit import disagreement_sentence
        said = disagreement_sentence(r.get("scan_disagrees"))
        self.result_label.setText(
            f"<b>{r['notes_sentence']}</b><br>{r['identifiers_sentence']}<br>"
            + (f"<span style='color:#a40000'>{escape(said)}</span><br>" if said else "")
            + f"Signed by {escape(r['reviewer'])} on {when(r['reviewed_at'])}; written into "
            f"the audit report.")

    def report_path(self) -> Path:
        return audit_report_path(self.project, self.folder)

    @Slot()
    def open_report(self) -> None:
        """The audit report in the browser, or in a window here without one."""
        from app.gui.dialogs import open_report
        path = self.report_path()
        if not path.is_file():                   # the export moved or deleted since
            self.result_label.setText(f"<span style='color:#a40000'>The audit report is no "
                                      f"longer at {escape(str(path))}</span>")
            return
        self.report_dialog = open_report(path, self)
