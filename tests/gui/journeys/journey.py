"""What a person does in the main window, as helpers for the journey tests:
menus, keys, mouse clicks and file dialogs answered by patched
``QFileDialog`` and dialog static calls. Nothing here calls a view's
methods or sets a view's state: helpers only press, click and read.
"""
from __future__ import annotations

import os
from pathlib import Path

from app.gui.qt import QApplication, QFileDialog, Qt, QWidget

#: Where journeys save their screenshots (README images) when asked to.
SHOTS = os.environ.get("DEID_JOURNEY_SHOTS")


#: The window size of the journeys, "WIDTHxHEIGHT" (the final screenshots: 1366x768).
SIZE = tuple(int(n) for n in os.environ.get("DEID_JOURNEY_SIZE", "1280x720").split("x"))


def shown(window, qtbot, size=None):
    window.resize(*(size or SIZE))
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    return window


def key(qtbot, window, k, mods=Qt.NoModifier, widget: QWidget | None = None) -> None:
    """Press a key where the keyboard focus is (or on ``widget``)."""
    active = QApplication.activeWindow()
    if active is None or not active.isVisible():
        # A window manager gives the focus back to the main window when a
        # dialog or a combo box's list closes; the offscreen platform does
        # not, and may even activate the closed list late.
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    target = widget or QApplication.focusWidget() or window
    qtbot.keyClick(target, k, mods)


def click(qtbot, widget: QWidget, pos=None) -> None:
    """A left click (on a check box: on its box, where a click always hits)."""
    from app.gui.qt import QCheckBox, QPoint
    if pos is None and isinstance(widget, QCheckBox):
        pos = QPoint(8, widget.height() // 2)
    if pos is None:
        qtbot.mouseClick(widget, Qt.LeftButton)
    else:
        qtbot.mouseClick(widget, Qt.LeftButton, pos=pos)


def view_shown(window) -> str:
    """The view the sidebar highlights, and whose page is on screen."""
    name = window.sidebar.currentItem().text()
    page = window.stack.currentWidget()
    assert page.isVisible() and page.widget() is window.views[name]
    return name


def wheel(qtbot, widget: QWidget, notches: int) -> None:
    """Turn the mouse wheel over ``widget`` (negative: down, as a person reads on)."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    centre = QPointF(widget.rect().center())
    for _ in range(abs(notches)):
        event = QWheelEvent(centre, QPointF(widget.mapToGlobal(widget.rect().center())),
                            QPoint(0, 0), QPoint(0, 120 if notches > 0 else -120),
                            Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
        QApplication.sendEvent(widget, event)
    qtbot.wait(1)


def go(qtbot, window, view: str) -> None:
    """Go > view by its Ctrl+number shortcut."""
    index = list(window.views).index(view) + 1
    key(qtbot, window, getattr(Qt, f"Key_{index}"), Qt.ControlModifier)
    assert view_shown(window) == view


def menu_action(window, menu: str, text: str):
    """The action ``text`` of menu ``menu`` (as shown, without '&')."""
    for top in window.menuBar().actions():
        if top.text().replace("&", "") == menu:
            for action in top.menu().actions():
                if action.text().replace("&", "") == text:
                    return action
    raise AssertionError(f"no {menu} > {text}")


def choose(qtbot, window, menu: str, text: str) -> None:
    """Click a menu item (a QAction, as the menu does)."""
    action = menu_action(window, menu, text)
    assert action.isEnabled(), f"{menu} > {text} is disabled"
    action.trigger()


def new_project(qtbot, window, monkeypatch, path: Path, preset: str = "paper") -> None:
    """File > New project…, answering the save dialog and the label-set question."""
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    from app.gui.dialogs import LabelSetDialog
    monkeypatch.setattr(LabelSetDialog, "get_preset", classmethod(lambda *a, **k: (preset, True)))
    key(qtbot, window, Qt.Key_N, Qt.ControlModifier)
    assert window.windowTitle().startswith(path.name)


def import_folder(qtbot, window, monkeypatch, folder: Path, pattern: str | None = "",
                  split_steps: int = 0, keep_labels: bool = True) -> None:
    """File > Import folder…: the folder, then the patient pattern typed over
    the one proposed (``""``: cleared, no patient ids; ``None``: the proposal
    kept), the split chosen with the arrow keys, and each label the project
    lacks kept as a new label (Home on its choice; ``keep_labels=False``:
    the proposed project labels); waits for the notes' suggestions."""
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    key(qtbot, window, Qt.Key_I, Qt.ControlModifier)
    dialog = window.import_dialog
    if pattern is not None:
        qtbot.keyClick(dialog.pattern, Qt.Key_A, Qt.ControlModifier)    # over what is there
        qtbot.keyClick(dialog.pattern, Qt.Key_Delete)
        qtbot.keyClicks(dialog.pattern, pattern)
    for _ in range(split_steps):
        qtbot.keyClick(dialog.split, Qt.Key_Down)
    if keep_labels:
        for box in dialog.label_boxes.values():
            qtbot.keyClick(box, Qt.Key_Home)
    with qtbot.waitSignal(window.suggestionsFinished, timeout=120000):
        qtbot.keyClick(dialog.pattern, Qt.Key_Return)
        qtbot.waitUntil(lambda: window.summary_dialog is not None
                        and window.summary_dialog.isVisible(), timeout=120000)
    qtbot.keyClick(window.summary_dialog, Qt.Key_Return)            # OK


def window_with_note(qtbot, settings, tmp_path, monkeypatch, note: str,
                     pattern: str = r"^(P\d+)_", more: dict[str, str] | None = None):
    """A main window, File › New (HIPAA labels), then ``note`` imported as
    ``P1_a.txt`` with the patient ``pattern`` (and ``more`` notes by name)."""
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "icu.deid", preset="hipaa")
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in {"P1_a": note, **(more or {})}.items():
        (notes / f"{name}.txt").write_text(text, encoding="utf-8")
    import_folder(qtbot, w, monkeypatch, notes, pattern=pattern)
    return w


def open_row(qtbot, window, name: str) -> None:
    """Documents, then a double-click on the note's row."""
    go(qtbot, window, "Documents")
    table = window.documents.table
    model = table.model()
    row = next(r for r in range(model.rowCount())
               if model.data(model.index(r, 0)) == name)
    rect = table.visualRect(model.index(row, 0))
    table.scrollTo(model.index(row, 0))
    rect = table.visualRect(model.index(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.mouseDClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    assert view_shown(window) == "Annotate"


def row_values(window, name: str) -> dict[str, str]:
    """The Documents row of a note, by column title."""
    model = window.documents.table.model()
    headers = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount())]
    row = next(r for r in range(model.rowCount()) if model.data(model.index(r, 0)) == name)
    return {h: model.data(model.index(row, c)) for c, h in enumerate(headers)}


def screenshot(window, name: str) -> Path | None:
    """Save the window as ``$DEID_JOURNEY_SHOTS/<name>.png`` when that is set."""
    if not SHOTS:
        return None
    out = Path(SHOTS) / f"{name}.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    QApplication.processEvents()
    assert window.grab().save(str(out))
    return out


def synth_project(folder: Path, n: int = 30) -> Path:
    """``folder``/ward.deid made with the CLI: ``n`` synthetic notes under the
    paper's labels, each patient named by its file name, no suggestions."""
    from app.cli.main import main
    path = folder / "ward.deid"
    assert main(["-q", "new", str(path), "--labels", "paper"]) == 0
    assert main(["-q", "import", str(path), str(write_synth(folder / "notes", n)),
                 "--patient-regex", r"^(P\d+)_", "--no-suggest"]) == 0
    return path


def write_synth(folder: Path, n: int, seed: int = 3, annotated: bool = True) -> Path:
    """``n`` synthetic notes as brat files (with their .ann when ``annotated``)."""
    from app.formats import write_documents
    from app.synth import generate
    docs = generate(n, seed=seed)
    write_documents(docs, folder, "brat")
    if not annotated:
        for ann in folder.rglob("*.ann"):
            ann.unlink()
    return folder


def text_point(view, offset: int):
    """Where code point ``offset`` of a note is on screen (viewport coordinates)."""
    from app.gui.qt import QTextCursor
    cursor = QTextCursor(view.document())
    cursor.setPosition(view.offsets.to_qt(offset))
    return view.cursorRect(cursor).center()


def right_click_menu(qtbot, view, offset: int, *path: str) -> None:
    """Right-click a note's text at ``offset`` and choose ``path`` in the menu
    that opens ("Label as", "AGE  (4)"), each item clicked with the mouse."""
    from PySide6.QtGui import QContextMenuEvent
    from app.gui.qt import QMenu, QTimer
    pos = text_point(view, offset)
    chosen: list[str] = []

    def choose_in(menu, rest) -> None:
        action = next((a for a in menu.actions() if a.text() == rest[0]), None)
        if action is None:                 # say what it offers, and close it
            chosen.append(f"no {rest[0]!r} in {[a.text() for a in menu.actions()]}")
            menu.close()
            return
        chosen.append(action.text())
        qtbot.mouseClick(menu, Qt.LeftButton, pos=menu.actionGeometry(action).center())
        if len(rest) > 1:
            submenu = action.menu()
            qtbot.waitUntil(submenu.isVisible)
            choose_in(submenu, rest[1:])

    def when_open() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(10, when_open)
            return
        choose_in(menu, path)
    QTimer.singleShot(0, when_open)
    event = QContextMenuEvent(QContextMenuEvent.Mouse, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), event)       # returns once the menu is closed
    assert chosen == list(path)


def select_text(qtbot, view, start: int, end: int) -> None:
    """Select ``[start, end)`` of a note with the mouse: a click, then a
    Shift+click (code-point offsets located on screen, never by text search)."""
    def point(offset):
        return text_point(view, offset)
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=point(start))
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.ShiftModifier, pos=point(end))
    shown = view.textCursor()
    assert (shown.selectionStart(), shown.selectionEnd()) == \
        (view.offsets.to_qt(start), view.offsets.to_qt(end)), \
        (shown.selectionStart(), shown.selectionEnd(), start, end)


def pick(qtbot, box, text: str) -> None:
    """Choose ``text`` in a combo box as a person does: a click on it (the
    list opens), the arrow keys to the item, Enter. (A click on the item
    right after the list opens is ignored by Qt, as a slow double click.)"""
    click(qtbot, box)
    view = box.view()
    qtbot.waitUntil(view.isVisible)
    row = next(r for r in range(box.count()) if box.itemText(r) == text)
    for _ in range(box.count()):
        current = view.currentIndex().row()
        if current == row:
            break
        qtbot.keyClick(view, Qt.Key_Down if current < row else Qt.Key_Up)
    qtbot.keyClick(view, Qt.Key_Return)
    qtbot.waitUntil(lambda: not view.window().isVisible())
    # The offscreen platform activates the closed list late: let it, then
    # give the focus back to the window, as a window manager does.
    qtbot.wait(20)
    if QApplication.activeWindow() is not box.window():
        # A window manager gives the focus back when the list closes; offscreen does not.
        box.window().activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is box.window())
    assert box.currentText() == text


def export_planned(qtbot, window, monkeypatch, out: Path):
    """File > Export (Ctrl+E) into ``out``: Next, Browse (the folder dialog
    answered), Next; returns the wizard on its Start page."""
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    window.activateWindow()                 # a click on the main window, after a dialog
    qtbot.waitUntil(window.isActiveWindow)
    before = window.export_wizard
    key(qtbot, window, Qt.Key_E, Qt.ControlModifier)
    wizard = window.export_wizard
    assert wizard is not None and wizard is not before
    qtbot.waitExposed(wizard)
    click(qtbot, wizard.next_button)
    browse = next(b for b in wizard.stack.currentWidget().findChildren(type(wizard.next_button))
                  if b.text().startswith("Browse"))
    click(qtbot, browse)
    if wizard.naming_box.currentData() == "pseudonymous":
        # Notes named with their patient ids are named pseudonymously unless
        # asked; the journeys read the exported notes by their names.
        pick(qtbot, wizard.naming_box, "Same names as in the project")
    click(qtbot, wizard.next_button)
    return wizard


def export(qtbot, window, monkeypatch, out: Path):
    """:func:`export_planned`, then Start; returns the wizard showing its summary."""
    wizard = export_planned(qtbot, window, monkeypatch, out)
    ended: list = []                     # an export that fails says why at once
    wizard.exported.connect(lambda _outcome: ended.append(None))
    wizard.failed.connect(ended.append)
    click(qtbot, wizard.start_button)
    qtbot.waitUntil(lambda: bool(ended), timeout=240000)
    assert ended == [None], f"the export failed: {ended[0]}"
    return wizard


def table_rows(table) -> list[list[str]]:
    """A QTableWidget's cells as shown."""
    return [[table.item(r, c).text() for c in range(table.columnCount())]
            for r in range(table.rowCount())]


def spans_shown(window) -> list[str]:
    """The editor's side list, as shown ("✓ PERSON: Bob Ray", "? IDN: …")."""
    model = window.editor.span_list.model()
    return [model.data(model.index(r, 0)) for r in range(model.rowCount())]


def train_quick(qtbot, w) -> None:
    """Train view: Quick, crf on balanced data and the rules, majority
    voting (the boxes clicked), Train; waits for the run to finish."""
    from app.gui.qt import QCheckBox, QGroupBox
    go(qtbot, w, "Train")
    t = w.training
    qtbot.keyClick(t.budget_box, Qt.Key_Up)
    for group, texts in (("Base models", ["spacy", "stanza", "flair", "imbalanced data"]),
                         ("Ensembles", ["Pruned voting", "Stacking"])):
        box_group = next(g for g in t.findChildren(QGroupBox) if g.title() == group)
        boxes = {b.text(): b for b in box_group.findChildren(QCheckBox)}
        for text in texts:
            if boxes[text].isChecked():
                click(qtbot, boxes[text])
    with qtbot.waitSignal(t.trained, timeout=240000):
        click(qtbot, t.train_button)
    # The new model's suggestions on the next to-do notes come after.
    qtbot.waitUntil(lambda: not t.runner.busy(), timeout=240000)


def answer(fill) -> None:
    """Answer the next modal dialog with ``fill(dialog)`` (keys typed into
    it) once it is shown: call before the action that opens it."""
    from app.gui.qt import QTimer
    def run():
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(10, run)
            return
        fill(dialog)
    QTimer.singleShot(0, run)


def assign_selected(qtbot, window, first: str, second: str) -> None:
    """File > Assign selected note to two annotators…, the two names typed, Enter."""
    def fill(dialog):
        qtbot.keyClicks(dialog.first.lineEdit(), first)
        qtbot.keyClicks(dialog.second.lineEdit(), second)
        qtbot.keyClick(dialog.second, Qt.Key_Return)
    answer(fill)
    choose(qtbot, window, "File", "Assign selected note to two annotators…")
