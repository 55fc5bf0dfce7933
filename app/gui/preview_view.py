"""De-identification preview: the original and its redacted text side by side.

Both panes highlight the same spans (the redaction's ``span_map`` gives each
replacement's place in the output), scroll together, and a click on either
side selects the span in both. The strategy of each label can be switched
live. With a trained model, the model's prediction is previewed (what an
export would write) and each span says which ensemble members found it;
prediction runs in a worker, and the loaded predictor is kept for the next
notes.

What is shown and corrected is app.services.previewing's: the prediction
(:func:`~app.services.previewing.predict_note`), the redaction and its
provenance (:func:`~app.services.previewing.preview_note`) and the
corrections (:class:`~app.services.previewing.CorrectionSession`: a missed
identifier becomes an accepted human span, a false hit a rejected one, both
undoable in the editor and logged without text). This view only shows them.
"""
from __future__ import annotations

from html import escape

from app.core.spans import Span
from app.deid import STRATEGIES, Policy
from app.deid.redact import map_offset
from app.gui.qt import (QAbstractItemView, QColor, QComboBox, QFont, QHBoxLayout,
                        QHeaderView, QLabel, QPoint, QPushButton, QRect, QSplitter,
                        Qt, QTableWidget, QTableWidgetItem, QTextCharFormat, QTextCursor,
                        QTextEdit, QVBoxLayout,
                        QWidget, Signal, Slot)
from app.gui.span_text import OffsetMap, OffsetTextView
from app.gui.workers import TaskRunner
from app.services.choice import found_by, made_by, model_namer, model_words
from app.services.prediction import predicts_by
from app.services.previewing import (CorrectionSession, SpanInfo, earlier_notes, predict_note,
                                     preview_note)
from app.services.settings import project_policy, store_locale, store_strategies
from app.core.words import count

MODES = (("model", "What an export writes (the model, the starter model or the rules)"),
         ("annotations", "Annotations (accepted spans and suggestions)"))
# Policy.date_order values as the preview offers them.
DATE_ORDER_CHOICES = (("Day first (31/12/2024)", "dmy"), ("Month first (12/31/2024)", "mdy"),
                      ("As the notes show (not set yet)", ""))
#: Where the notes were written (`deid new --locale`): the surrogates' names,
#: places and phone shapes.
LOCALE_CHOICES = (("Australian English", "en_AU"), ("British English", "en_GB"),
                  ("American English", "en_US"), ("Spanish (Spain)", "es_ES"))
SPAN_ALPHA = 90
#: Who predicts, as the status line says it (`PredictorSpec.kind`, app.services.prediction).
PREDICTED_BY = {"model": "the model", "starter": "the starter model", "rules": "the rules"}
#: Lines of a note shown above a suspected leak opened from the export summary.
SPOT_LINES_ABOVE = 2
#: The least height of a text kept in sight above a window covering its lower part.
MIN_TEXT_SHOWN = 60


def describe(info: SpanInfo, replacement: str, words=None) -> str:
    """Rich text for the info panel (the replacement, never the original);
    ``words`` names a model in words (`choice.model_namer`; by default
    with no run to name an ensemble's members), the names themselves are
    :func:`expert_names`."""
    words = words or (lambda name: model_words(None, name))
    m = info.mapped
    lines = [f"<b>{m.label}</b> → {m.strategy}: <code>{_html(replacement)}</code>"]
    conf = "" if info.confidence is None else f", confidence {info.confidence:.2f}"
    who = f" by {info.annotator}" if info.annotator else ""
    # A list's or a rule's find is no vote: no confidence, no "found by 0 of 3".
    maker = found_by(info.made_by)
    if info.origin == "model" and maker:
        lines.append(f"Found by {_html(made_by(info.made_by, words))}")
        if info.annotation == "accepted":
            lines.append(f"Matches an accepted annotation{who}")
    elif info.origin == "model":
        lines.append(f"{'Replaced since day one' if info.day_one else 'Model prediction'}{conf}")
        if info.annotation == "accepted":
            lines.append(f"Matches an accepted annotation{who}")
        elif info.annotation == "suggested":
            lines.append("Also a suggestion awaiting review")
    elif info.origin == "accepted":
        lines.append(f"Accepted annotation{who}")
    else:
        lines.append(f"Suggestion awaiting review{conf}")
    if info.day_one:
        # Said once, and not as one of the models that read the note: the
        # starter among a run's members read it again, and may have found
        # other words (a walkthrough read "Made by the shipped starter model
        # ... none of the 5 models found exactly these words ... overlapping
        # finds from: the shipped starter model").
        lines.append("The shipped starter model replaced these words before any training, and "
                     "what day one replaced stays replaced (Train › Keep what day one "
                     "replaced)")
    elif info.made_by and not maker:
        lines.append(f"Made by {_html(made_by(info.made_by, words))}")
    if info.listed:
        lines.append("In the hospital lists: always replaced")
    if info.n_members:
        # "that read the note", not "voting": a single model selected reads
        # beside the lists, and nothing votes there.
        readers = f"the {info.n_members} models that read the note"
        if info.members:
            lines.append(f"{'Also found' if maker or info.day_one else 'Found'} exactly by "
                         f"{len(info.members)} of {readers}: {_names(info.members, words)}")
        elif maker or (info.day_one and not info.partial):
            lines.append(f"None of {readers} found it")
        elif not info.day_one:
            # Overlapping finds were joined into a span no model found as such.
            lines.append(f"None of {readers} found exactly these words; what they found "
                         f"around them was joined into this span")
        if info.partial:
            lines.append(f"Of {readers}, these found words overlapping them: "
                         f"{_names(info.partial, words)}")
    return "<br>".join(lines)


def _names(names: list[str], words) -> str:
    # "; ": a model's words may hold a comma ("a word-pattern model, learned from ...").
    return _html("; ".join(words(name) for name in names))


def expert_names(info: SpanInfo) -> str:
    """The models' own names behind :func:`describe`'s words (the panel's
    tooltip, for experts): the candidate that made the span, the members
    that found it."""
    lines = [f"Made by: {info.made_by}"] if info.made_by else []
    if info.members:
        lines.append(f"Found exactly by: {', '.join(info.members)}")
    if info.partial:
        lines.append(f"Overlapping finds from: {', '.join(info.partial)}")
    return "\n".join(lines)


def _count(n: int, word: str) -> str:
    """"no identifier", "1 identifier", "4 identifiers" (not "0 span(s)")."""
    return f"no {word}" if n == 0 else f"1 {word}" if n == 1 else f"{n} {word}s"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --------------------------------------------------------------- Qt widgets
class PreviewText(OffsetTextView):
    """One pane of the side-by-side preview, scrolled by offset."""

    def set_text(self, text: str) -> None:
        self.offsets = OffsetMap(text)
        self.setPlainText(text)

    def scroll_into_sight(self) -> None:
        """Scroll on until the text cursor's line is whole in sight (lines
        not laid out yet count as one in `scroll_to_offset`, and a last
        line was left cut at the bottom)."""
        self.ensureCursorVisible()
        bar = self.verticalScrollBar()
        while (self.cursorRect().bottom() >= self.viewport().height()
               and bar.value() < bar.maximum()):
            bar.setValue(bar.value() + 1)

    def leave_out_below(self, pixels: int) -> bool:
        """Show the text in all but the bottom ``pixels`` (a window covers
        them): it scrolls within the part in sight. Returns whether that changed."""
        if self.viewportMargins().bottom() == pixels:
            return False
        self.setViewportMargins(0, 0, 0, pixels)
        return True

    def top_offset(self) -> int:
        """Offset of the first character shown at the top left."""
        return self.offsets.to_py(self.cursorForPosition(QPoint(0, 0)).position())

    def scroll_to_offset(self, offset: int, lines_above: int = 0) -> None:
        """Make the line holding ``offset`` the top line, or ``lines_above``
        lines below the top (the scroll bar of a QPlainTextEdit counts
        visual lines)."""
        pos = self.offsets.to_qt(offset)
        block = self.document().findBlock(pos)
        line = 0
        if block.layout() is not None and block.layout().lineCount():
            line = max(0, block.layout().lineForTextPosition(pos - block.position()).lineNumber())
        self.verticalScrollBar().setValue(max(0, block.firstLineNumber() + line - lines_above))



class PreviewView(QWidget):
    """Side-by-side redaction preview of one project document.

    Signals
    -------
    corrected(int)
        A document's spans changed (flagged miss or false hit).
    message(str)
        A short status-bar message.
    """

    corrected = Signal(int)
    message = Signal(str)

    def __init__(self, project=None, annotator: str | None = None, parent=None) -> None:
        super().__init__(parent)
        self.project = None
        self.annotator = annotator
        self.doc_id: int | None = None
        self.policy: Policy | None = None
        self.result = None                       # app.deid.RedactionResult
        self._spot: tuple[int, int] | None = None  # a suspected leak being shown
        self._spot_words = ""                      # and what to do with it, in words
        self.infos: list[SpanInfo] = []
        self.order: list[int] = []
        self.current: int | None = None          # index into infos
        self.colours: dict[str, str] = {}
        self.strategy_boxes: dict[str, QComboBox] = {}
        self.predictions: dict[int, object] = {}
        # The patient's notes before a shown one, as the export predicts them.
        self.earlier: dict[int, object] = {}
        self.missed: list[Span] = []
        self.vetoed: list[tuple[Span, str]] = []  # removed after the model, with the rule
        self._predictor = None
        self._model = "rules"                    # what predicts: model, starter or rules
        # A model's name in words (model_namer once a project is shown).
        self._words = lambda name: model_words(None, name)
        self._wanted: int | None = None          # document waiting for a prediction
        self._syncing = False
        self.runner = TaskRunner(self)
        self.runner.finished.connect(self._on_predicted)
        self.runner.failed.connect(self._on_predict_failed)
        self._build()
        self.set_project(project, annotator)

    # ---------------------------------------------------------------- build
    def _build(self) -> None:
        self.title = QLabel("No document")
        self.title.setStyleSheet("font-weight: 600; font-size: 14px;")
        self.mode_box = QComboBox()
        for key, text in MODES:
            self.mode_box.addItem(text, key)
        self.mode_box.currentIndexChanged.connect(self.refresh)
        self.status = QLabel("")
        self.status.setStyleSheet("color: #555;")
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addStretch(1)
        top.addWidget(QLabel("Spans:"))
        top.addWidget(self.mode_box)

        self.original = PreviewText()
        self.redacted = PreviewText()
        self.original.clicked.connect(self._on_original_clicked)
        self.redacted.clicked.connect(self._on_redacted_clicked)
        self.original.verticalScrollBar().valueChanged.connect(self._on_original_scrolled)
        self.redacted.verticalScrollBar().valueChanged.connect(self._on_redacted_scrolled)
        panes = QSplitter(Qt.Horizontal)
        for caption, pane in (("Original", self.original), ("De-identified", self.redacted)):
            box = QWidget()
            bl = QVBoxLayout(box)
            bl.setContentsMargins(0, 0, 0, 0)
            label = QLabel(caption)
            label.setStyleSheet("font-weight: 600;")
            bl.addWidget(label)
            bl.addWidget(pane)
            panes.addWidget(box)

        side = QWidget()
        side.setMinimumWidth(260)
        sl = QVBoxLayout(side)
        sl.setContentsMargins(6, 0, 0, 0)
        nav = QHBoxLayout()
        self.prev_button = QPushButton("◀ Previous")
        self.next_button = QPushButton("Next ▶")
        self.prev_button.clicked.connect(lambda: self.step(-1))
        self.next_button.clicked.connect(lambda: self.step(1))
        nav.addWidget(self.prev_button)
        nav.addWidget(self.next_button)
        sl.addLayout(nav)
        self.position_label = QLabel("")
        sl.addWidget(self.position_label)
        self.info = QLabel("Click a span to see where it came from.")
        self.info.setWordWrap(True)
        self.info.setTextFormat(Qt.RichText)
        self.info.setMinimumHeight(110)
        self.info.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.info.setStyleSheet("background: #f6f6f6; padding: 6px; border: 1px solid #ddd;")
        sl.addWidget(self.info)

        fix = QHBoxLayout()
        self.miss_label = QComboBox()
        self.miss_button = QPushButton("Flag missed")
        self.miss_button.setToolTip("Select the missed identifier in the original, pick its "
                                    "label, then click: it becomes an accepted span")
        self.miss_button.clicked.connect(self.flag_miss)
        self.false_button = QPushButton("Flag false hit")
        self.false_button.setToolTip("Reject the current span: it is not an identifier")
        self.false_button.clicked.connect(self.flag_false_hit)
        fix.addWidget(self.miss_label)
        fix.addWidget(self.miss_button)
        sl.addLayout(fix)
        sl.addWidget(self.false_button)

        sl.addWidget(QLabel("Strategy per label:"))
        self.strategy_table = QTableWidget(0, 2)
        self.strategy_table.setHorizontalHeaderLabels(["Label", "Strategy"])
        self.strategy_table.verticalHeader().setVisible(False)
        self.strategy_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.strategy_table.setSelectionMode(QAbstractItemView.NoSelection)
        self.strategy_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        sl.addWidget(self.strategy_table, 1)
        dates = QVBoxLayout()           # the label above: the choices need the width
        dates.setSpacing(2)
        dates.addWidget(QLabel("Numeric dates:"))
        self.date_order_box = QComboBox()
        for text, order in DATE_ORDER_CHOICES:
            self.date_order_box.addItem(text, order)
        self.date_order_box.setToolTip(
            "How a date like 3/5/2014 is read when a note does not show its order itself "
            "(a note with 25/10/2019 or 10/25/2019 does)")
        self.date_order_box.currentIndexChanged.connect(
            lambda i: self.set_date_order(self.date_order_box.itemData(i)))
        dates.addWidget(self.date_order_box)
        dates.addWidget(QLabel("Surrogates written as in:"))
        self.locale_box = QComboBox()
        for text, locale in LOCALE_CHOICES:
            self.locale_box.addItem(text, locale)
        self.locale_box.setToolTip("Where the notes were written: the names, places and phone "
                                   "numbers the surrogate strategy writes (deid new --locale)")
        self.locale_box.currentIndexChanged.connect(
            lambda i: self.set_locale(self.locale_box.itemData(i)))
        dates.addWidget(self.locale_box)
        sl.addLayout(dates)
        # Strategies and the locale are saved as they are chosen; the date
        # order shown is only tried out until this button keeps it ("Use for
        # exports" seemed to do nothing).
        self.save_policy_button = QPushButton("Keep this date order for exports")
        self.save_policy_button.setToolTip("Strategies and the surrogates' locale are saved as "
                                           "you choose them; this keeps the numeric date order "
                                           "shown too")
        self.save_policy_button.clicked.connect(self.save_policy)
        sl.addWidget(self.save_policy_button)

        split = QSplitter(Qt.Horizontal)
        split.addWidget(panes)
        split.addWidget(side)
        split.setStretchFactor(0, 1)
        split.setSizes([860, 280])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)

    # -------------------------------------------------------------- project
    def set_project(self, project, annotator: str | None = None) -> None:
        """Show ``project`` (``None`` to clear); the cached model is dropped."""
        self.shutdown()
        self.project = project
        self.annotator = annotator
        self.doc_id = None
        self.predictions = {}
        self.earlier = {}
        self.result = None
        self.infos, self.order, self.current = [], [], None
        self.original.set_text("")
        self.redacted.set_text("")
        self.title.setText("No document")
        self.strategy_table.setRowCount(0)
        self.miss_label.clear()
        # Nothing of the note shown before stays (a walkthrough closed the
        # project and still read "Span 2 of 30" and that span's story).
        self._spot = None
        self.status.clear()
        self.position_label.clear()
        self.info.setToolTip("")
        self.info.setText("Click a span to see where it came from.")
        if project is None:
            self.policy = None
            self._update_buttons()
            return
        self.policy = project_policy(project)
        self._words = model_namer(project)       # set_project runs again after training
        self.reload_labels()
        self.date_order_box.blockSignals(True)
        self.date_order_box.setCurrentIndex(self.date_order_box.findData(self.policy.date_order))
        self.date_order_box.blockSignals(False)
        self.locale_box.blockSignals(True)
        self.locale_box.setCurrentIndex(self.locale_box.findData(self.policy.locale))
        self.locale_box.blockSignals(False)
        self.mode_box.blockSignals(True)
        self.mode_box.setCurrentIndex(0)
        self.mode_box.blockSignals(False)
        self._update_buttons()

    def shutdown(self) -> None:
        """Stop a running prediction and release the cached model."""
        self.runner.shutdown()
        if self._predictor is not None:
            self._predictor.close()
            self._predictor = None

    def model_changed(self) -> None:
        """Call after training: predictions are redone with the new model."""
        if self.project is not None:
            doc = self.doc_id
            self.set_project(self.project, self.annotator)
            if doc is not None:
                self.load_document(doc)

    def reload_labels(self) -> None:
        """Show the project's labels as they are now (an import or the
        guidelines may have added some): their colours, the missed-span
        label list and a strategy row for each."""
        if self.project is None:
            return
        labels = self.project.labels()
        self.colours = {l.name: l.colour for l in labels}
        chosen = self.miss_label.currentText()
        self.miss_label.clear()
        for label in labels:
            self.miss_label.addItem(label.name)
        if chosen:
            self.miss_label.setCurrentText(chosen)
        self._fill_strategies([l.name for l in labels])

    def _fill_strategies(self, labels: list[str]) -> None:
        self.strategy_table.setRowCount(len(labels))
        self.strategy_boxes: dict[str, QComboBox] = {}
        for i, label in enumerate(labels):
            item = QTableWidgetItem(label)
            item.setBackground(_tint(self.colours.get(label, "#999999")))
            self.strategy_table.setItem(i, 0, item)
            box = QComboBox()
            box.addItems(STRATEGIES)
            box.setCurrentText(self.policy.strategy_for(label))
            box.currentTextChanged.connect(lambda s, l=label: self.set_strategy(l, s))
            self.strategy_table.setCellWidget(i, 1, box)
            self.strategy_boxes[label] = box

    # ------------------------------------------------------------- document
    def load_document(self, doc_id: int) -> None:
        """Preview one document; its model prediction is fetched in a worker."""
        if self.project is None:
            return
        self.doc_id = doc_id
        self._spot = None
        info = self.project.document(doc_id)
        self.title.setText(f"{info.name}")
        self.original.set_text(info.text)
        self.current = None
        if doc_id not in self.predictions:
            self._request(doc_id)
        self.refresh()

    def mode(self) -> str:
        return self.mode_box.currentData()

    @Slot()
    def refresh(self) -> None:
        """Redact the current document again (spans, strategies or mode changed)."""
        if self.project is None or self.doc_id is None:
            return
        prediction = self.predictions.get(self.doc_id)
        self._model = predicts_by(self.project)
        keep = self.infos[self.current].key if self.current is not None else None
        shown = preview_note(self.project, self.doc_id, self.policy, self.mode(), prediction,
                             self.earlier)
        self.result, self.infos, self.order, self.missed, self.vetoed = \
            shown.result, shown.infos, shown.order, shown.missed, shown.vetoed
        top = self.original.top_offset()
        self.redacted.set_text(self.result.text)
        self.current = next((i for i, s in enumerate(self.infos) if s.key == keep), None)
        self._paint()
        self._sync(self.original, self.redacted, top_offset=top)
        if self._spot is not None:           # a suspected leak shown: keep it selected
            self._select_spot()
        waiting = self.mode() == "model" and prediction is None
        doubtful = sum(1 for s in self.infos if s.certainty < 1.0)
        # What predicts names what runs and misses: day one, the starter; no starter, the rules.
        by = PREDICTED_BY[self._model]
        missed = (f", {count(len(self.missed), 'annotated identifier')} missed by {by} in "
                  f"whole or part (red wavy underline; replaced all the same, as annotated)"
                  if self.missed else "")
        self.status.setText(
            (f"Predicting with {by}… (showing annotations meanwhile)  " if waiting else "")
            + f"{_count(len(self.infos), 'identifier')} replaced, {doubtful} uncertain"
            f"{missed}.")
        # What "uncertain" is: a span shown at confidence 1.00 counted as one
        # where not every model found it (a walkthrough).
        self.status.setToolTip("Uncertain: a confidence below 1, or not found by every model "
                               "that read the note. Next goes to the uncertain ones first.")
        self._show_info()
        self._update_buttons()

    def _by(self, by: str) -> str:
        """What made a span in words: a list, a rule, a step, or a model."""
        return made_by(by, self._words)

    def _paint(self) -> None:
        left, right = [], []
        for i, s in enumerate(self.infos):
            m = s.mapped
            colour = QColor(self.colours.get(m.label, "#999999"))
            for pane, a, b, out in ((self.original, m.in_start, m.in_end, left),
                                    (self.redacted, m.out_start, m.out_end, right)):
                if a == b:
                    continue                 # "remove": nothing to highlight on the right
                sel = QTextEdit.ExtraSelection()
                sel.cursor = pane.cursor_for(a, b)
                if i == self.current:
                    sel.format.setBackground(colour)
                    sel.format.setFontWeight(QFont.Bold)
                    sel.format.setForeground(QColor("black") if colour.lightness() > 110
                                             else QColor("white"))
                else:
                    tint = QColor(colour)
                    tint.setAlpha(SPAN_ALPHA if s.certainty >= 1.0 else SPAN_ALPHA // 2)
                    sel.format.setBackground(tint)
                    sel.format.setUnderlineColor(colour.darker(150))
                    sel.format.setUnderlineStyle(
                        QTextCharFormat.SingleUnderline if s.certainty >= 1.0
                        else QTextCharFormat.DashUnderline)
                sel.format.setToolTip(f"{m.label} — {self._by(s.made_by)}" if s.made_by
                                      else m.label)
                out.append(sel)
        marks = [(span, QTextCharFormat.DotLine, "#777777",
                  f"{span.label} found by {self._by(span.origin) if span.origin else 'the model'}"
                  f", kept in clear by {why}")
                 for span, why in self.vetoed]
        marks += [(g, QTextCharFormat.WaveUnderline, "#d00000",
                   f"{g.label} — annotated, but {PREDICTED_BY[self._model]} missed it")
                  for g in self.missed]
        for span, style, colour, tip in marks:
            sel = QTextEdit.ExtraSelection()
            sel.cursor = self.original.cursor_for(span.start, span.end)
            sel.format.setUnderlineStyle(style)
            sel.format.setUnderlineColor(QColor(colour))
            sel.format.setToolTip(tip)
            left.append(sel)
        self.original.setExtraSelections(left)
        self.redacted.setExtraSelections(right)

    # ------------------------------------------------------------ prediction
    def _request(self, doc_id: int) -> None:
        if self.runner.busy():
            self._wanted = doc_id                # fetched when the running one ends
            return
        project, view = self.project, self

        def work(progress, cancel):
            # The predictor is loaded once and reused for every note.
            prediction, view._predictor = predict_note(project, doc_id, view._predictor)
            # Redacted before it by an export: a name drawn again after a
            # collision there is drawn again here too (Preview wrote "Mercedes
            # Avery" where the export wrote "Joseph Avery").
            earlier = earlier_notes(project, doc_id, view._predictor, view.earlier)
            return doc_id, prediction, earlier

        self._wanted = None
        self.runner.start("predict", work)

    @Slot(object)
    def _on_predicted(self, result) -> None:
        doc_id, prediction, earlier = result
        self.predictions[doc_id] = prediction
        self.earlier.update(earlier)
        if doc_id == self.doc_id:
            self.refresh()
        if self._wanted is not None and self._wanted not in self.predictions:
            self._request(self._wanted)

    @Slot(str)
    def _on_predict_failed(self, reason: str) -> None:
        self.status.setText(f"Model prediction unavailable: {reason}")
        self.message.emit(f"Preview: {reason}")

    def wait_for_prediction(self) -> bool:
        """Whether a prediction for the current document is pending (tests poll this)."""
        return self.runner.busy() or self._wanted is not None

    # ------------------------------------------------------------ navigation
    def set_current(self, index: int | None) -> None:
        self.current = index
        self._paint()
        if index is not None:
            m = self.infos[index].mapped
            for pane, a in ((self.original, m.in_start), (self.redacted, m.out_start)):
                cursor = QTextCursor(pane.document())
                cursor.setPosition(pane.offsets.to_qt(a))
                pane.setTextCursor(cursor)
                pane.ensureCursorVisible()
        self._show_info()
        self._update_buttons()

    def step(self, delta: int) -> None:
        """Go to the next/previous span in review order (uncertain ones first)."""
        if not self.order:
            return
        if self.current is None or self.current not in self.order:
            k = 0 if delta > 0 else len(self.order) - 1
        else:
            k = (self.order.index(self.current) + delta) % len(self.order)
        self.set_current(self.order[k])

    def _show_info(self) -> None:
        if self.current is None:
            self.position_label.setText(f"{_count(len(self.order), 'identifier')}, "
                                        "uncertain first")
            self.info.setToolTip("")
            self.info.setText(self._spot_words if self._spot is not None else
                              "Click a span, or use Next, to see where it came from.")
            return
        s = self.infos[self.current]
        self.position_label.setText(f"Span {self.order.index(self.current) + 1} of "
                                    f"{len(self.order)} (uncertain first)")
        self.info.setText(describe(s, self.result.text[s.mapped.out_start:s.mapped.out_end],
                                   self._words))
        self.info.setToolTip(expert_names(s))

    def _span_at(self, offset: int, original: bool) -> int | None:
        for i, s in enumerate(self.infos):
            m = s.mapped
            a, b = (m.in_start, m.in_end) if original else (m.out_start, m.out_end)
            if a <= offset < b:
                return i
        return None

    @Slot(int)
    def _on_original_clicked(self, offset: int) -> None:
        self.set_current(self._span_at(offset, True))

    @Slot(int)
    def _on_redacted_clicked(self, offset: int) -> None:
        self.set_current(self._span_at(offset, False))

    # ------------------------------------------------------------- scrolling
    def _sync(self, source: PreviewText, target: PreviewText, top_offset: int | None = None) -> None:
        if self._syncing or self.result is None:
            return
        self._syncing = True
        try:
            top = source.top_offset() if top_offset is None else top_offset
            target.scroll_to_offset(map_offset(self.result.span_map, top,
                                               forward=source is self.original))
        finally:
            self._syncing = False

    @Slot(int)
    def _on_original_scrolled(self, _value: int) -> None:
        self._sync(self.original, self.redacted)

    @Slot(int)
    def _on_redacted_scrolled(self, _value: int) -> None:
        self._sync(self.redacted, self.original)

    # ------------------------------------------------------------ strategies
    def set_strategy(self, label: str, strategy: str) -> None:
        """Switch one label's strategy and redact again."""
        if self.policy is None:
            return
        strategies = {**self.policy.strategies, label: strategy}
        self.policy = Policy.from_dict({**self.policy.to_dict(), "strategies": strategies})
        box = self.strategy_boxes.get(label)
        if box is not None and box.currentText() != strategy:
            box.blockSignals(True)
            box.setCurrentText(strategy)
            box.blockSignals(False)
        self._store_strategies()
        self.refresh()

    def _store_strategies(self) -> None:
        """The strategies shown are the ones exports apply: stored at once
        (issue 18 item 2: a strategy chosen here was lost unless saved)."""
        if self.project is None or self.project.readonly:
            return
        store_strategies(self.project, self.policy, self.annotator)
        self.message.emit("Strategies saved: exports use them")

    def set_date_order(self, order: str) -> None:
        """Read ambiguous numeric dates day-first (``"dmy"``), month-first
        (``"mdy"``) or as the notes show (``""``), and redact again."""
        if self.policy is None or order == self.policy.date_order:
            return
        self.policy = Policy.from_dict({**self.policy.to_dict(), "date_order": order})
        self.refresh()

    def set_locale(self, locale: str) -> None:
        """Write surrogates as in ``locale`` (``"en_US"``...) and redact again;
        stored at once, as the strategies are: exports use it."""
        if self.policy is None or locale == self.policy.locale:
            return
        self.policy = Policy.from_dict({**self.policy.to_dict(), "locale": locale})
        if self.project is not None and not self.project.readonly:
            store_locale(self.project, locale, self.annotator)
            self.message.emit("Surrogate locale saved: exports use it")
        self.refresh()

    @Slot()
    def save_policy(self) -> None:
        """Store the strategies shown as the project's redaction policy."""
        if self.project is None or self.policy is None:
            return
        store_strategies(self.project, self.policy, self.annotator, whole=True)
        self.message.emit("Date order kept for exports (strategies are saved as you choose "
                          "them)")

    # ------------------------------------------------------------ corrections
    def _session(self) -> CorrectionSession:
        return CorrectionSession(self.project, self.doc_id, self.annotator)

    def show_at(self, start: int, end: int, category: str = "") -> None:
        """Select ``start``..``end`` of the original (a suspected leak of
        ``category``, a label or a kind of identifier) and say what to do:
        one click on Flag missed then records it, under the suspicion's label
        when it is one of the project's."""
        self._spot = (start, end)
        if self.miss_label.findText(category) >= 0:
            self.miss_label.setCurrentText(category)
        what = f"a suspected leak ({category})" if category else "a suspected leak"
        self._spot_words = (f"Selected on both sides: {escape(what)}. If it identifies "
                            f"someone, choose its label and press <b>Flag missed</b>; exporting "
                            f"again into the same folder then replaces it. If not, mark it "
                            f"<b>Not a leak</b> in the export summary.")
        self.current = None
        self._select_spot()
        self._show_info()
        self.original.setFocus()
        self._update_buttons()

    def _select_spot(self) -> None:
        """Select the shown spot in both texts (again after a new redaction),
        near their top: the lines after it in sight, and a window over the
        view's lower part (the export summary, `judging_area`) hides none of it."""
        start, end = self._spot
        places = [(self.original, start, end)]
        if self.result is not None:          # the same place in the de-identified text
            out = map_offset(self.result.span_map, start)
            places.append((self.redacted, out, min(out + end - start, len(self.result.text))))
        # Each text scrolls to its own selection (the other following it
        # left one a line short, its last line cut).
        self._syncing, syncing = True, self._syncing
        try:
            for pane, a, b in places:
                pane.select(a, b)
                pane.scroll_to_offset(a, lines_above=SPOT_LINES_ABOVE)
                pane.scroll_into_sight()
        finally:
            self._syncing = syncing

    @Slot()
    def flag_miss(self, label: str | None = None) -> int | None:
        """Store the selection in the original as a missed identifier."""
        if self.project is None or self.doc_id is None:
            return None
        selection = self.original.selection()
        if selection is None:
            self.message.emit("Select the missed identifier in the original text first")
            return None
        label = label or self.miss_label.currentText()
        span_id = self._session().flag_miss(*selection, label)
        if span_id is None:
            self.message.emit("Nothing labelable is selected")
            return None
        if self._spot is not None and selection[0] < self._spot[1] and self._spot[0] < selection[1]:
            # The suspected leak shown is flagged: the panel no longer asks for it.
            self._spot_words = (f"Flagged as a missed identifier ({escape(label)}), saved to the "
                                f"annotations: exporting again into the same folder replaces "
                                f"it.")
        self._corrected()
        return span_id

    @Slot()
    def flag_false_hit(self) -> None:
        """Reject the current span (it is not an identifier)."""
        if self.project is None or self.current is None:
            return
        s = self.infos[self.current]
        prediction = self.predictions.get(self.doc_id)
        run_id = self._predictor.run_id if self._predictor is not None else None
        self._session().flag_false_hit(*s.key, run_id=run_id if prediction else None,
                                       confidence=s.confidence)
        self.current = None
        self._corrected()

    def _corrected(self) -> None:
        self.refresh()
        self.corrected.emit(self.doc_id)
        self.message.emit("Correction saved to the annotations")

    def judging_area(self) -> QRect:
        """Where this view is on the screen, down to its Flag buttons: what a
        person reads to judge a suspected leak shown (`show_at` puts it near
        the top of both texts); a window may cover the rest."""
        top = self.mapToGlobal(QPoint(0, 0))
        bottom = self.false_button.mapToGlobal(QPoint(0, self.false_button.height()))
        return QRect(top.x(), top.y(), self.width(), bottom.y() - top.y())

    def set_covered(self, rect: QRect | None) -> None:
        """A window (the export summary) covers ``rect`` of the screen, or
        nothing now: a text whose lower part it covers, all its width, is
        shown above it, so the leak `show_at` selects scrolls into sight
        even in a note's last lines."""
        changed = False
        for pane in (self.original, self.redacted):
            shown = QRect(pane.mapToGlobal(QPoint(0, 0)), pane.size())
            hidden = 0
            if (rect is not None and rect.left() <= shown.left() and shown.right() <= rect.right()
                    and shown.top() + MIN_TEXT_SHOWN <= rect.top() <= shown.bottom()):
                hidden = shown.bottom() + 1 - rect.top()
            changed |= pane.leave_out_below(hidden)
        if changed and self._spot is not None:
            self._select_spot()

    def _update_buttons(self) -> None:
        ok = self.project is not None and self.doc_id is not None and not self.project.readonly
        self.miss_button.setEnabled(ok)
        self.false_button.setEnabled(ok and self.current is not None)
        self.prev_button.setEnabled(bool(self.order))
        self.next_button.setEnabled(bool(self.order))
        self.save_policy_button.setEnabled(ok)


def _tint(colour: str) -> QColor:
    c = QColor(colour)
    c.setAlpha(SPAN_ALPHA)
    return c
