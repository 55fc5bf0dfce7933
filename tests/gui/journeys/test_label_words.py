"""Label words journey: a project whose labels came from its imported
annotations (LOCATION and NAME) shows those names and no other label set's,
in every view a person walks through (issue 34 item 13: ADDRESS, HOSPITAL
and PERSON were shown in such a project)."""
from __future__ import annotations

import re

from app.core.labels import PRESETS
from app.gui.qt import (QAbstractItemView, QComboBox, QHeaderView, QLineEdit,
                        QModelIndex, QPlainTextEdit, Qt, QWidget)

from journey import choose, go, import_folder, new_project, open_row, shown

NOTE = "Seen by Dr Kara Browning at Holy Cross Hospital, Springfield. Family at bedside.\n"


def _texts(view: QWidget) -> list[str]:
    """What a view shows in words: labels, placeholders, list and table cells, headers."""
    out = []
    for w in view.findChildren(QWidget):
        if not isinstance(w, QPlainTextEdit) and callable(getattr(w, "text", None)):
            out.append(w.text())                     # labels, buttons, line edits
        if isinstance(w, (QLineEdit, QPlainTextEdit)):
            out.append(w.placeholderText())
        if isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
        if isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView) \
                and w.model() is not None:
            model, root = w.model(), QModelIndex()
            try:
                rows, columns = model.rowCount(root), model.columnCount(root)
            except TypeError:        # Qt's own empty model, which PySide cannot call
                continue
            out += [str(model.headerData(c, Qt.Horizontal) or "") for c in range(columns)]
            out += [str(model.index(r, c).data() or "") for r in range(rows)
                    for c in range(columns)]
    return [t for t in out if isinstance(t, str)]


def test_only_the_projects_own_label_names_are_shown(qtbot, settings, tmp_path, monkeypatch):
    from app.gui.main_window import MainWindow
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "p1_n1.txt").write_text(NOTE, encoding="utf-8")
    name, place = NOTE.index("Kara Browning"), NOTE.index("Holy Cross Hospital")
    (notes / "p1_n1.ann").write_text(
        f"T1\tNAME {name} {name + 13}\tKara Browning\n"
        f"T2\tLOCATION {place} {place + 19}\tHoly Cross Hospital\n", encoding="utf-8")
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "icu.deid", preset="none")
    import_folder(qtbot, w, monkeypatch, notes, pattern=r"^(p\d+)_")
    assert [label.name for label in w.project.labels()] == ["LOCATION", "NAME"]
    # "ID" also names a column of a patient table ("patient_id=ID").
    foreign = {label.name for labels in PRESETS.values() for label in labels} \
        - {"LOCATION", "NAME", "ID"}
    word = re.compile(r"\b(" + "|".join(sorted(foreign)) + r")\b")
    open_row(qtbot, w, "p1_n1")
    seen = {}
    for view in w.views:
        go(qtbot, w, view)
        qtbot.wait(50)
        for text in _texts(w.views[view]):
            if word.search(text):
                seen.setdefault(view, []).append(text)
    choose(qtbot, w, "File", "Hospital lists…")               # the labels list hits take
    seen["lists"] = [t for t in _texts(w.lists_dialog) if word.search(t)]
    w.lists_dialog.close()
    assert not any(seen.values()), seen
    w.close()
