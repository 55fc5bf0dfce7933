"""A hospital imports annotated notes whose labels its project lacks, and a
note in another encoding: the import summary lists what it read with a
warning, and Preview offers a strategy for every label the notes brought.
Menus, keys and clicks only; file dialogs answered by a patched QFileDialog."""
from __future__ import annotations

import pytest

from app.gui.qt import QFileDialog, Qt
from journey import (go, import_folder, key, new_project, open_row, screenshot, shown,
                     write_synth)

pytestmark = pytest.mark.slow


def _hipaa_window(qtbot, settings, tmp_path, monkeypatch):
    """The main window, File › New with the HIPAA labels."""
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "ward.deid", preset="hipaa")
    return w


def test_imported_labels_reach_preview_and_warnings_are_shown(qtbot, settings, tmp_path,
                                                               monkeypatch):
    w = _hipaa_window(qtbot, settings, tmp_path, monkeypatch)
    before = {label.name for label in w.project.labels()}
    notes = write_synth(tmp_path / "notes", 6)                  # under the paper's labels
    (notes / "P9_latin.txt").write_bytes("Patient: Ren\u00e9e M\u00fcller, seen today.\n"
                                         .encode("cp1252"))
    (notes / "patients.tsv").write_text("note\tpatient_id\nP9_latin\tP9\n", encoding="utf-8")
    import_folder(qtbot, w, monkeypatch, notes, pattern=r"^(P\d+)_")
    dialog = w.summary_dialog
    added = {label.name for label in w.project.labels()} - before
    assert "PERSON" in added and "New labels: " in dialog.text.text()
    # The warning it counts is there to read, with the note it concerns.
    assert "1 note read with a warning" in dialog.text.text()
    assert "duplicate" not in dialog.text.text()                # nothing to say: not said
    table = dialog.warnings
    assert not table.isHidden() and table.rowCount() == 1
    assert table.item(0, 0).text() == "P9_latin"
    assert "not UTF-8" in table.item(0, 1).text()
    # A table beside the notes is left out on purpose, and said so: not "could not be read".
    assert "1 file left out" in dialog.text.text() and "could not" not in dialog.text.text()
    assert dialog.problems.rowCount() == 1 and dialog.problems.item(0, 0).text() == "patients.tsv"
    assert "patient comes from its file name" in dialog.problems.item(0, 1).text()
    dialog.show()
    screenshot(dialog, "import_summary_warning")
    dialog.hide()

    go(qtbot, w, "Preview")
    p = w.preview
    rows = [p.strategy_table.item(r, 0).text() for r in range(p.strategy_table.rowCount())]
    assert sorted(rows) == sorted(before | added)
    assert {p.miss_label.itemText(i) for i in range(p.miss_label.count())} == before | added
    screenshot(p, "preview_after_import_labels")


def test_the_import_files_another_sets_labels_under_the_projects(qtbot, settings, tmp_path,
                                                                 monkeypatch):
    """Notes annotated under the paper's labels, imported into a HIPAA project:
    the import dialog proposes NAME for PERSON (and so on), the person keeps
    one as a label of its own, and the summary says what went where."""
    w = _hipaa_window(qtbot, settings, tmp_path, monkeypatch)
    before = {label.name for label in w.project.labels()}
    notes = write_synth(tmp_path / "notes", 6)                  # under the paper's labels
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(notes))
    key(qtbot, w, Qt.Key_I, Qt.ControlModifier)
    dialog = w.import_dialog
    boxes = dialog.label_boxes
    assert {"PERSON", "IDN"} <= set(boxes) and not set(boxes) & before
    assert boxes["PERSON"].currentText() == "NAME" and boxes["IDN"].currentText() == "ID"
    qtbot.keyClick(boxes["IDN"], Qt.Key_Home)                   # IDN stays a label of its own
    assert boxes["IDN"].currentText() == "keep as a new label IDN"
    # DOB (dates of birth only) proposed under DATE (every date): said as it is chosen.
    assert boxes["DOB"].currentText() == "DATE" and not dialog.narrowed.isHidden()
    assert dialog.narrowed.text().startswith("⚠ DOB marks dates of birth only, and it is "
                                             "filed under DATE, which takes every date")
    screenshot(dialog, "import_label_map")
    qtbot.keyClick(boxes["DOB"], Qt.Key_Home)                   # kept as its own: nothing to say
    assert dialog.narrowed.isHidden()
    qtbot.keyClicks(boxes["DOB"], "DATE")                       # ... filed under DATE after all
    assert boxes["DOB"].currentText() == "DATE" and not dialog.narrowed.isHidden()
    with qtbot.waitSignal(w.suggestionsFinished, timeout=120000):
        qtbot.keyClick(dialog.pattern, Qt.Key_Return)
        qtbot.waitUntil(lambda: w.summary_dialog is not None and w.summary_dialog.isVisible(),
                        timeout=120000)
    said = w.summary_dialog.text.text()
    assert "PERSON → NAME" in said and "New labels: IDN" in said
    assert "⚠ DOB marks dates of birth only" in said and "other dates are not marked" in said
    qtbot.keyClick(w.summary_dialog, Qt.Key_Return)
    assert {label.name for label in w.project.labels()} - before == {"IDN"}
    spans = {s.label for info in w.project.document_infos() for s in w.project.gold_spans(info.id)}
    assert "NAME" in spans and "IDN" in spans and "PERSON" not in spans


def test_twelve_labels_fit_a_1280_pixel_window_and_the_new_ones_have_number_keys(
        qtbot, settings, tmp_path, monkeypatch):
    """The paper's five labels kept beside HIPAA's seven: the editor's label
    buttons pushed the window past 1280 pixels, and the five had no key."""
    w = _hipaa_window(qtbot, settings, tmp_path, monkeypatch)
    notes = write_synth(tmp_path / "notes", 3)
    import_folder(qtbot, w, monkeypatch, notes, pattern=r"^(P\d+)_")
    open_row(qtbot, w, w.project.document_infos()[0].name)
    buttons = [b.text() for b in w.editor.label_buttons()]
    assert len(buttons) == 12
    assert buttons[7:10] == ["8 ADDRESS", "9 DOB", "0 IDN"]
    assert w.minimumSizeHint().width() <= 1280
    w.resize(1280, 800)
    qtbot.wait(50)
    screenshot(w, "editor_twelve_labels")
    last = w.editor.label_buttons()[-1]
    assert last.mapTo(w, last.rect().topRight()).x() <= w.width()


def test_a_second_folder_naming_patients_the_project_has_is_warned_about(qtbot, settings,
                                                                         tmp_path, monkeypatch):
    """A walkthrough imported the sample after other notes: both sets' P0001
    became one patient, silently."""
    from journey import window_with_note
    w = window_with_note(qtbot, settings, tmp_path, monkeypatch, "PT SEEN. WELL.\n")
    more = tmp_path / "more"
    more.mkdir()
    for name in ("P1_z", "P9_q"):
        (more / f"{name}.txt").write_text("PT SEEN AGAIN.\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(more))
    key(qtbot, w, Qt.Key_I, Qt.ControlModifier)
    dialog = w.import_dialog
    qtbot.keyClick(dialog.pattern, Qt.Key_A, Qt.ControlModifier)
    qtbot.keyClicks(dialog.pattern, r"^(P\d+)_")
    assert dialog.joined.isVisible()
    assert dialog.joined.text().startswith("⚠ 1 patient read here the project already has (P1)")
    qtbot.keyClick(dialog.pattern, Qt.Key_A, Qt.ControlModifier)
    qtbot.keyClicks(dialog.pattern, r"^(P\d+_\w)")          # other people: told apart
    assert not dialog.joined.isVisible()
    qtbot.keyClick(dialog.pattern, Qt.Key_Escape)
    w.close()


def test_the_train_view_says_which_labels_the_annotations_leave_unmarked(qtbot, settings,
                                                                        tmp_path, monkeypatch):
    """Letters annotated with the paper's labels (dates of birth only) in a
    HIPAA project, their labels filed under the project's as proposed: above
    Train, in red, that the annotations leave DATE mostly unmarked and
    training would learn to leave dates in clear (a walkthrough's export left
    792 dates in clear, warned at import only)."""
    w = _hipaa_window(qtbot, settings, tmp_path, monkeypatch)
    import_folder(qtbot, w, monkeypatch, write_synth(tmp_path / "notes", 40),
                  pattern=r"^(P\d+)_", keep_labels=False)
    w.summary_dialog.hide()
    go(qtbot, w, "Train")
    said = w.training.unmarked_label
    assert not said.isHidden() and "DATE" in said.text() and "in clear" in said.text()
    screenshot(w, "train_unmarked_labels")
