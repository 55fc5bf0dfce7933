"""The document list: a lazy table over ``Project.document_infos``.

A 10,000-note project opens instantly because nothing is read ahead: the
model fetches pages of :data:`PAGE` rows (no text) as the view scrolls
(``canFetchMore``/``fetchMore``), and span counts only for rows that are
painted. Sorting, status/split filters and full-text search are done by the
store (SQL), so they are right for the whole project, not just the rows
loaded so far; the proxy forwards ``sort`` to the source model.
"""
from __future__ import annotations

from collections import Counter

from app.core.words import count
from app.services.editing import seen_layer, visible_records
from app.gui.qt import (QAbstractItemView, QAbstractTableModel, QComboBox, QEvent, QHBoxLayout,
                        Role,
                        QHeaderView, QLabel, QLineEdit, QModelIndex, QPushButton,
                        QSortFilterProxyModel, Qt, QTableView, QTimer, QVBoxLayout,
                        QWidget, Signal, Slot)
from app.project import DocumentInfo, Project

PAGE = 200
STATUS_NAMES = {"todo": "To do", "in_progress": "In progress", "done": "Done",
                "reviewed": "Reviewed"}
#: The status filter of the notes to do that the model in use found unlike
#: the notes it learned from (`app.services.familiarity.unlike_to_do`).
UNLIKE = "unlike"
UNLIKE_NAME = "To do, unlike the annotated"
NEXT_TIP = "The most uncertain document still to do (N)"
NEXT_UNLIKE_TIP = ("The most uncertain of the documents still to do that read unlike the "
                   "annotated ones, then the most uncertain of the others (N)")
UNLIKE_TIP = ("The notes still to do whose words the annotated notes mostly lack, as the last "
              "training run found them, the most uncertain first for Next to annotate: the dev "
              "figures do not speak for them. Annotate some of them and train again.")
COLUMNS = ("Name", "Status", "Split", "Patient", "Uncertainty", "Human", "Import",
           "Model", "Rule")
#: Store orders behind sortable columns; the count columns are not sortable.
_ORDER_BY_COLUMN = {0: "name", 1: "status", 2: "split", 4: "uncertainty"}
_SOURCES = ("human", "import", "model", "rule")
_RIGHT = int((Qt.AlignRight | Qt.AlignVCenter).value)


class DocumentTableModel(QAbstractTableModel):
    """Documents of a project, fetched page by page, filtered in the store."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.annotator: str | None = None
        self._rows: list[DocumentInfo] = []
        self._more = False
        # Per painted row: its span counts and its assigned annotators.
        self._counts: dict[int, tuple[Counter, list[str]]] = {}
        self.split: str | None = None
        self.status: str | None = None
        # The status filter is UNLIKE: these notes only, read again on refresh.
        self.unlike = False
        self.ids: list[int] | None = None
        self.search: str | None = None
        self.order = "id"
        self.descending = False

    # -------------------------------------------------------------- control
    def set_project(self, project: Project | None, annotator: str | None = None) -> None:
        self.project = project
        self.annotator = annotator
        self.refresh()

    def set_filter(self, *, split: str | None = None, status: str | None = None,
                   search: str | None = None) -> None:
        """Filter by split, status (or `UNLIKE`) and searched text."""
        self.unlike = status == UNLIKE
        self.split, self.status, self.search = split, None if self.unlike else status, search or None
        self.refresh()

    def refresh(self) -> None:
        """Drop the loaded rows and fetch the first page again."""
        from app.services.familiarity import unlike_to_do
        self.ids = unlike_to_do(self.project) if self.unlike and self.project is not None else None
        self.beginResetModel()
        self._rows, self._counts = [], {}
        self._more = self.project is not None
        self.endResetModel()
        if self._more:
            self.fetchMore(QModelIndex())

    def reread(self, reset: bool = True) -> None:
        """Re-read the rows loaded (suggestions stored by a worker): in place
        when they are still the same notes in the same order, so the view
        keeps its scroll position and selection (a reset threw a person
        reading row 900 of a big folder back to the top, unselected);
        otherwise (a sort by uncertainty, which the suggestions change) from
        the first page when ``reset``, else not at all."""
        if self.project is None or not self._rows:
            self.refresh()
            return
        rows = self._page(0, len(self._rows))
        if [i.id for i in rows] != [i.id for i in self._rows]:
            if reset:
                self.refresh()
            return
        self._rows, self._counts = rows, {}
        self.dataChanged.emit(self.index(0, 0),
                              self.index(len(rows) - 1, self.columnCount() - 1))

    def _page(self, start: int, limit: int) -> list[DocumentInfo]:
        """Rows ``start`` to ``start + limit`` of the list as shown (the
        store orders ascending only: a descending list reads from the end)."""
        # The notes unlike the annotated ones, unsorted: as Next takes them.
        order = "uncertain_listed" if self.ids is not None and self.order == "id" else self.order
        query = dict(split=self.split, status=self.status, search=self.search,
                     order=order, annotator=self.annotator, ids=self.ids)
        if not self.descending:
            return self.project.document_infos(**query, limit=limit, offset=start)
        end = self.total() - start
        first = max(0, end - limit)
        return self.project.document_infos(**query, limit=max(0, end - first),
                                           offset=first)[::-1]

    def refresh_document(self, doc_id: int) -> None:
        """Re-read one row (after an edit) without resetting the view."""
        self._counts.pop(doc_id, None)
        row = self.row_of(doc_id)
        if row is None:
            return
        rec = self.project.document(doc_id)
        fields = {name: getattr(rec, name) for name in DocumentInfo.__dataclass_fields__}
        fields["status"] = self.project.status_seen_by(doc_id, self.annotator)
        self._rows[row] = DocumentInfo(**fields)
        self.dataChanged.emit(self.index(row, 0), self.index(row, self.columnCount() - 1))

    def doc_id(self, row: int) -> int:
        return self._rows[row].id

    def info(self, row: int) -> DocumentInfo:
        return self._rows[row]

    def row_of(self, doc_id: int) -> int | None:
        return next((i for i, info in enumerate(self._rows) if info.id == doc_id), None)

    def total(self) -> int:
        """Documents matching the filters (all of them, loaded or not)."""
        if self.project is None:
            return 0
        if self.search:
            return len(self.project.document_infos(split=self.split, status=self.status,
                                                   search=self.search, annotator=self.annotator,
                                                   ids=self.ids))
        return self.project.count_documents(split=self.split, status=self.status,
                                            annotator=self.annotator, ids=self.ids)

    # ------------------------------------------------------ Qt model protocol
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def canFetchMore(self, parent=QModelIndex()) -> bool:
        return not parent.isValid() and self._more

    def fetchMore(self, parent=QModelIndex()) -> None:
        if parent.isValid() or self.project is None or not self._more:
            return
        page = self._page(len(self._rows), PAGE)
        self._more = self.total() > len(self._rows) + PAGE if self.descending \
            else len(page) == PAGE
        if page:
            self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(page) - 1)
            self._rows.extend(page)
            self.endInsertRows()

    def headerData(self, section, orientation, role=Role.DISPLAY):
        if role == Role.DISPLAY and orientation == Qt.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index, role=Role.DISPLAY):
        if not index.isValid():
            return None
        info = self._rows[index.row()]
        col = index.column()
        if role == Role.USER:
            return info.id
        if role == Role.ALIGNMENT and col >= 4:
            return _RIGHT
        if role == Role.TOOLTIP and col == 0:
            return info.source_path or info.name
        blind = col == 1 and info.status != "reviewed" and self._is_blind_for_me(info.id)
        if role == Role.TOOLTIP and blind:
            names = self._row_facts(info.id)[1]
            return (f"Annotated blind by {' and '.join(names)}: this is your own status; "
                    "the note is done once each of them is")
        if role != Role.DISPLAY:
            return None
        if col == 0:
            return info.name
        if col == 1:
            status = STATUS_NAMES.get(info.status, info.status)
            return f"{status} (blind)" if blind else status
        if col == 2:
            return info.split or ""
        if col == 3:
            return info.patient_id or ""
        if col == 4:
            return "" if info.uncertainty is None else f"{info.uncertainty:.2f}"
        counts = self._row_facts(info.id)[0]
        return str(counts.get(_SOURCES[col - 5], 0))

    def _row_facts(self, doc_id: int) -> tuple[Counter, list[str]]:
        """Visible spans by who stands behind them, and the annotators the
        note is assigned to, read only for rows that are painted: Human
        counts what a person labelled or accepted (an accepted model
        suggestion is a person's judgement now), Model and Rule the
        suggestions still to review."""
        facts = self._counts.get(doc_id)
        if facts is None:
            records = self.project.span_records(doc_id)
            assigned = self.project.assignments(doc_id)
            info_status = self.project.document_infos(ids=[doc_id])[0].status if assigned else ""
            who = seen_layer(self.annotator, assigned, info_status)
            counts = Counter("human" if r.status == "accepted" and r.source in ("model", "rule")
                             else r.source
                             for r in visible_records(records, who, bool(assigned)))
            facts = self._counts[doc_id] = (counts, assigned)
        return facts

    def _is_blind_for_me(self, doc_id: int) -> bool:
        """Whether the note is annotated blind by this window's annotator
        (its Status is then theirs alone)."""
        return self.annotator is not None and self.annotator in self._row_facts(doc_id)[1]

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        key = _ORDER_BY_COLUMN.get(column)
        if key is None:
            return
        self.order = key
        self.descending = order == Qt.DescendingOrder
        self.refresh()


class DocumentProxy(QSortFilterProxyModel):
    """Pass-through proxy whose sorting is done by the store, not in memory."""

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        self.sourceModel().sort(column, order)

    def canFetchMore(self, parent=QModelIndex()) -> bool:
        return self.sourceModel().canFetchMore(self.mapToSource(parent))

    def fetchMore(self, parent=QModelIndex()) -> None:
        self.sourceModel().fetchMore(self.mapToSource(parent))


class DocumentListView(QWidget):
    """Filters, search and the table.

    Signals
    -------
    documentActivated(int)
        The user opened a document.
    documentSelected(int)
        The user picked a document with one click (Preview follows it).
    message(str)
        A short status-bar message.
    """

    documentActivated = Signal(int)
    documentSelected = Signal(int)
    message = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.model = DocumentTableModel(self)
        self.proxy = DocumentProxy(self)
        self.proxy.setSourceModel(self.model)
        self.status_box = QComboBox()
        self.status_box.addItem("All statuses", None)
        for key, name in STATUS_NAMES.items():
            self.status_box.addItem(name, key)
        self.status_box.addItem(UNLIKE_NAME, UNLIKE)
        self.status_box.setItemData(self.status_box.count() - 1, UNLIKE_TIP, Qt.ToolTipRole)
        self.split_box = QComboBox()
        self.split_box.addItem("All splits", None)
        for split in ("train", "dev", "test"):
            self.split_box.addItem(split, split)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search names and text…")
        self.search_edit.setClearButtonEnabled(True)
        self.next_button = QPushButton("Next to annotate")
        self.next_button.setToolTip(NEXT_TIP)
        self.count_label = QLabel()
        self.table = QTableView()
        self.table.setModel(self.proxy)
        # No sort indicator at first: rows come in import order until a header is clicked.
        self.table.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setAlternatingRowColors(True)
        # Tab leaves the table (arrows move between rows), and the table shows
        # where the keyboard is: a frame and, on entry, a selected row.
        self.table.setTabKeyNavigation(False)
        self.table.setStyleSheet("QTableView:focus { border: 2px solid palette(highlight); }")
        self.table.installEventFilter(self)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.Interactive)
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        for col in range(1, len(COLUMNS)):
            header.resizeSection(col, 100 if col < 5 else 70)

        bar = QHBoxLayout()
        bar.addWidget(self.search_edit, 3)
        bar.addWidget(self.status_box)
        bar.addWidget(self.split_box)
        bar.addWidget(self.next_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count_label)

        # Search as you type, but query the store once typing pauses.
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(self.apply_filters)
        self.search_edit.textChanged.connect(self._search_timer.start)
        self.search_edit.returnPressed.connect(self.apply_filters)
        self.status_box.currentIndexChanged.connect(self.apply_filters)
        self.split_box.currentIndexChanged.connect(self.apply_filters)
        self.table.activated.connect(self._on_activated)
        self.table.doubleClicked.connect(self._on_activated)
        self.table.clicked.connect(self._on_clicked)
        self.next_button.clicked.connect(self.open_next)
        # Whoever refreshes the list (a run finished, notes imported), the
        # count under it follows.
        self.model.modelReset.connect(self._update_count)

    def eventFilter(self, obj, event) -> bool:
        # Focus by the keyboard (Tab) lands on the first row; by a click it
        # does not: selecting row 0 scrolled the table back to the top under
        # the pointer, and a double-click on a row scrolled to opened another
        # patient's note.
        if obj is self.table and event.type() == QEvent.FocusIn \
                and event.reason() != Qt.MouseFocusReason \
                and not self.table.selectionModel().hasSelection() and self.proxy.rowCount():
            self.table.selectRow(0)
        return super().eventFilter(obj, event)

    def set_project(self, project: Project | None, annotator: str | None) -> None:
        """Show another project's documents, with the filters cleared (a search
        typed in one project means nothing in the next)."""
        self._search_timer.stop()
        self._show_filters(("", 0, 0))
        self.model.split = self.model.status = self.model.search = None
        self.model.unlike = False
        self.model.set_project(project, annotator)
        self.next_button.setEnabled(project is not None)     # no notes to go to without one
        self._update_count()

    def filters(self) -> tuple[str, int, int]:
        """The search typed and the status and split chosen (`restore_filters`)."""
        return self.search_edit.text(), self.status_box.currentIndex(), self.split_box.currentIndex()

    def restore_filters(self, filters: tuple[str, int, int]) -> None:
        """Filter as before (the project opened again under a new annotator's name)."""
        self._show_filters(filters)
        self.apply_filters()

    def _show_filters(self, filters: tuple[str, int, int]) -> None:
        """Set the filter widgets without filtering (their signals held)."""
        search, status, split = filters
        for widget in (self.search_edit, self.status_box, self.split_box):
            widget.blockSignals(True)
        self.search_edit.setText(search)
        self.status_box.setCurrentIndex(status)
        self.split_box.setCurrentIndex(split)
        for widget in (self.search_edit, self.status_box, self.split_box):
            widget.blockSignals(False)

    @Slot()
    def apply_filters(self) -> None:
        self._search_timer.stop()
        self.model.set_filter(split=self.split_box.currentData(),
                              status=self.status_box.currentData(),
                              search=self.search_edit.text().strip())
        self.next_button.setToolTip(NEXT_UNLIKE_TIP if self.model.unlike else NEXT_TIP)
        self._update_count()

    def show_unlike(self) -> None:
        """Filter to the notes to do unlike the annotated ones (`UNLIKE`)."""
        index = self.status_box.findData(UNLIKE)
        if self.status_box.currentIndex() == index:
            self.apply_filters()                        # read the run's list again
        else:
            self.status_box.setCurrentIndex(index)

    def _update_count(self) -> None:
        if self.model.project is None:
            self.count_label.setText("")
            return
        total = self.model.total()
        text = count(total, "document")
        if self.model.unlike and not self.model.ids:
            text += (": the model in use found no note to do unlike the notes it learned from "
                     "(or you have done them)")
        self.count_label.setText(text)

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        source = self.proxy.mapToSource(index)
        if source.isValid():
            self.documentActivated.emit(self.model.doc_id(source.row()))

    def _on_clicked(self, index: QModelIndex) -> None:
        source = self.proxy.mapToSource(index)
        if source.isValid():
            self.documentSelected.emit(self.model.doc_id(source.row()))

    def next_document(self) -> int | None:
        """The most uncertain document still to do that this annotator may take;
        under the `UNLIKE` filter the most uncertain of those, while one is left.

        Documents assigned to others are skipped; unscored ones come last.
        """
        from app.services.familiarity import unlike_to_do
        project = self.model.project
        if project is None:
            return None
        if self.model.unlike:
            # The most uncertain of them: on synthetic letters and ICU notes
            # that made the most of ten notes annotated (`python -m
            # app.bench.familiarity --loop`), more than the most unlike first.
            for info in project.document_infos(status="todo", ids=unlike_to_do(project),
                                               order="uncertain_listed",
                                               annotator=self.model.annotator):
                if self._may_take(info.id):
                    return info.id
        offset = 0
        while True:
            page = project.document_infos(status="todo", order="uncertainty",
                                          limit=PAGE, offset=offset,
                                          annotator=self.model.annotator)
            for info in page:
                if self._may_take(info.id):
                    return info.id
            if len(page) < PAGE:
                return None
            offset += PAGE

    def _may_take(self, doc_id: int) -> bool:
        """Whether this annotator may take ``doc_id`` (to do as they see it):
        assigned to nobody else."""
        assigned = self.model.project.assignments(doc_id)
        return not assigned or self.model.annotator in assigned

    @Slot()
    def open_next(self) -> None:
        """Open the next note to annotate, or say that none is left."""
        if self.model.project is None:
            return
        doc_id = self.next_document()
        if doc_id is None:
            self.message.emit("No note left to do: every note is in progress or done")
            return
        self.select_document(doc_id)
        self.documentActivated.emit(doc_id)
        if self.model.unlike:
            from app.services.familiarity import unlike_to_do
            if doc_id not in unlike_to_do(self.model.project):
                # Said after the note opened (opening clears the status bar).
                self.message.emit("No note unlike the annotated ones is left to do: this is "
                                  "the most uncertain of the others")

    def selected_document(self) -> int | None:
        """The document of the selected row, if any."""
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        source = self.proxy.mapToSource(rows[0])
        return self.model.doc_id(source.row()) if source.isValid() else None

    def select_document(self, doc_id: int) -> None:
        """Select a document's row if it is loaded (no full fetch for it)."""
        row = self.model.row_of(doc_id)
        if row is not None:
            index = self.proxy.mapFromSource(self.model.index(row, 0))
            self.table.selectRow(index.row())
            self.table.scrollTo(index)

    def refresh_document(self, doc_id: int) -> None:
        """Show a note's row again after an edit; under a status filter the
        count follows a status change (a note marked done leaves "To do").
        Only then: an edit is every label an annotator sets, and the count
        is a query (a text search over the whole project with a search on)."""
        row = self.model.row_of(doc_id)
        before = self.model.info(row).status if row is not None else None
        self.model.refresh_document(doc_id)
        if (self.model.status is not None or self.model.unlike) and row is not None \
                and self.model.info(row).status != before:
            if self.model.unlike:
                # The row stays in place, as under a status filter; the
                # count is of those still to do.
                from app.services.familiarity import unlike_to_do
                self.model.ids = unlike_to_do(self.model.project)
            self._update_count()

    def reread(self, reset: bool = True) -> None:
        """Show what a worker stored (see :meth:`DocumentTableModel.reread`)."""
        self.model.reread(reset)
        if self.model.status is not None:
            self._update_count()
