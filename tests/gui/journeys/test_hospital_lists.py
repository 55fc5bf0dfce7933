"""Hospital lists journey: a new English project on day one, its notes
imported, then File › Hospital lists… takes the patient table (columns
mapped) and the staff and place lists; once the dialog is closed the note
open in Annotate suggests the listed identifiers, Preview redacts them and
the export writes them nowhere: not in the notes, the report or the log.
Menus, keys, clicks, answered file dialogs."""
from __future__ import annotations

import json

from app.gui.qt import QFileDialog, Qt

from journey import (choose, click, export, go, import_folder, key, new_project, pick, screenshot, shown,
                     spans_shown, window_with_note)

# A made-up ICU note: the starter finds the unit, not the patient's name or
# the nurse (the lists do: all made up too).
NOTE = ("NPN 7P-7A\nNEURO: A+OX3. QUARRY RESTING, SON IN TO VISIT.\n"
        "PLAN: BACK TO ZELLWOOD WHEN STABLE. TIBBS AWARE.\nDISPO: OAKDENE HOUSE IN AM.\n")
LISTED = ("QUARRY", "ROSALIND", "ZELLWOOD", "TIBBS")


def _add(qtbot, dialog, monkeypatch, kind: str, path, mapping: str = "",
         opened_in: list | None = None) -> None:
    """Pick the kind, type the column mapping, Add file… (the file dialog
    answered; the folder it opened in appended to ``opened_in``)."""
    def answer(parent, title, folder, *a, **k):
        if opened_in is not None:
            opened_in.append(folder)
        return str(path), ""
    monkeypatch.setattr(QFileDialog, "getOpenFileName", answer)
    pick(qtbot, dialog.kind, kind)
    if mapping:
        qtbot.keyClicks(dialog.mapping, mapping)
    with qtbot.waitSignal(dialog.changed, timeout=60000):
        click(qtbot, dialog.add_button)


def _icu_project(qtbot, settings, tmp_path, monkeypatch, pattern: str = r"^(P\d+)_"):
    """The main window, File › New (HIPAA labels), NOTE imported with ``pattern``."""
    return window_with_note(qtbot, settings, tmp_path, monkeypatch, NOTE, pattern)


def test_hospital_lists_reach_suggestions_preview_and_export(qtbot, settings, tmp_path,
                                                             monkeypatch):
    w = _icu_project(qtbot, settings, tmp_path, monkeypatch)
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)                 # Next to annotate
    day_one = spans_shown(w)                                          # the starter's
    assert "? LOCATION: OAKDENE HOUSE" in day_one
    assert not any(word in span for span in day_one for word in ("QUARRY", "TIBBS"))

    table = tmp_path / "patients.csv"
    table.write_text("MRN,GIVEN,FAMILY\nP1,ROSALIND,QUARRY\n", encoding="utf-8")
    (tmp_path / "staff.txt").write_text("TIBBS\n", encoding="utf-8")
    (tmp_path / "places.txt").write_text("ZELLWOOD\n", encoding="utf-8")
    choose(qtbot, w, "File", "Hospital lists…")
    dialog = w.lists_dialog
    # The patient table added as it is: refused, saying which columns it has.
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(table), ""))
    pick(qtbot, dialog.kind, "patients")
    with qtbot.waitSignal(dialog.runner.failed, timeout=60000):
        click(qtbot, dialog.add_button)
    assert dialog.status.text().startswith("Not added: patients.csv has no patient id column")
    assert "Its columns: MRN, GIVEN, FAMILY. If they hold the patient id" in dialog.status.text()
    assert dialog.mapping.hasFocus()
    opened_in: list[str] = []
    _add(qtbot, dialog, monkeypatch, "patients", table,
         "patient_id=MRN first_name=GIVEN last_name=FAMILY", opened_in)
    # What the mapping read, as `deid lists add` says it (the MRN is a record number too).
    assert dialog.status.text() == ("patients: read 3 entries of 1 patients (first_name, "
                                    "last_name, record_numbers); 3 new, 0 already there.")
    _add(qtbot, dialog, monkeypatch, "staff", tmp_path / "staff.txt", opened_in=opened_in)
    _add(qtbot, dialog, monkeypatch, "places", tmp_path / "places.txt", opened_in=opened_in)
    assert opened_in == [str(tmp_path)] * 3        # where the patient table was found
    shown_counts = [[dialog.table.item(r, c).text() for c in (0, 1)]
                    for r in range(dialog.table.rowCount())]
    assert shown_counts == [["patients", "3 (1 patients)"], ["staff", "1"], ["places", "1"]]
    # Closed: the notes still to do are suggested again, with the lists.
    with qtbot.waitSignal(w.suggestionsFinished, timeout=120000):
        qtbot.keyClick(dialog, Qt.Key_Escape)
    assert not dialog.isVisible()
    assert "1 note to do has the starter model's suggestions" in \
        w.statusBar().currentMessage()
    assert spans_shown(w) == ["? NAME: QUARRY", "? LOCATION: ZELLWOOD", "? NAME: TIBBS",
                              "? LOCATION: OAKDENE HOUSE"]            # the lists' hits added

    go(qtbot, w, "Preview")                                          # what an export writes
    p = w.preview
    qtbot.waitUntil(lambda: not p.status.text().startswith("Predicting"), timeout=120000)
    redacted = p.redacted.toPlainText()
    assert p.status.text().startswith("4 identifiers replaced")
    assert not any(word in redacted for word in LISTED), redacted
    # Next, span by span (least sure first): the listed ones say where they
    # come from, and are sure (last), not "found by 0 of 3 members".
    said = []
    for _ in range(4):
        click(qtbot, p.next_button)
        said.append("In the hospital lists: always replaced" in p.info.text())
    assert said == [False, True, True, True]
    screenshot(w, "preview_hospital_lists")              # a listed name selected

    out = tmp_path / "export"
    wizard = export(qtbot, w, monkeypatch, out)
    written = (out / "P1_a.txt").read_text(encoding="utf-8")
    assert written == redacted
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    assert report["totals"]["spans"] == 4
    reports = "".join(f.read_text(encoding="utf-8") for f in out.glob("deid-report.*"))
    log = repr(w.project.audit_entries())
    for text in (reports, log, wizard.summary_label.text()):
        assert not any(word in text for word in LISTED)
    w.close()


def test_surrogates_written_as_in_the_hospitals_country(qtbot, settings, tmp_path, monkeypatch):
    """A project made in the app (which asks no locale, unlike `deid new
    --locale`): Preview's "Surrogates written as in" sets it for exports,
    kept when the project is opened again."""
    w = _icu_project(qtbot, settings, tmp_path, monkeypatch)
    path = tmp_path / "icu.deid"
    go(qtbot, w, "Preview")
    p = w.preview
    assert p.locale_box.currentText() == "Australian English"           # the default
    pick(qtbot, p.locale_box, "American English")
    assert w.statusBar().currentMessage() == "Surrogate locale saved: exports use it"

    out = tmp_path / "export"
    export(qtbot, w, monkeypatch, out)
    report = json.loads((out / "deid-report.json").read_text(encoding="utf-8"))
    assert report["policy"]["locale"] == "en_US"
    w.export_wizard.close()
    choose(qtbot, w, "File", "Close project")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    key(qtbot, w, Qt.Key_O, Qt.ControlModifier)
    go(qtbot, w, "Preview")
    assert w.preview.locale_box.currentText() == "American English"
    w.close()


def _add_patient_table(qtbot, w, tmp_path, monkeypatch):
    """File › Hospital lists…, the patient table added with its columns mapped;
    returns the dialog, still open."""
    table = tmp_path / "patients.csv"
    table.write_text("MRN,GIVEN,FAMILY\nP1,ROSALIND,QUARRY\n", encoding="utf-8")
    choose(qtbot, w, "File", "Hospital lists…")
    _add(qtbot, w.lists_dialog, monkeypatch, "patients", table,
         "patient_id=MRN first_name=GIVEN last_name=FAMILY")
    return w.lists_dialog


def test_a_patient_table_links_notes_imported_without_a_patient_pattern(qtbot, settings,
                                                                        tmp_path, monkeypatch):
    """The nurse imports with no patient pattern (the regex field left empty),
    then adds the patient table: the notes its ids name in their file names
    become that patient's, so the patient's names are found, as `deid
    annotate` finds them on the same files."""
    from journey import row_values
    w = _icu_project(qtbot, settings, tmp_path, monkeypatch, pattern="")     # no pattern
    assert row_values(w, "P1_a")["Patient"] in ("", None)
    dialog = _add_patient_table(qtbot, w, tmp_path, monkeypatch)
    assert dialog.status.text().endswith(
        "; 1 notes with no patient now have the one their file name names.")
    with qtbot.waitSignal(w.suggestionsFinished, timeout=120000):
        qtbot.keyClick(dialog, Qt.Key_Escape)
    assert row_values(w, "P1_a")["Patient"] == "P1"
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)                 # Next to annotate
    assert "? NAME: QUARRY" in spans_shown(w)
    go(qtbot, w, "Preview")
    p = w.preview
    qtbot.waitUntil(lambda: not p.status.text().startswith("Predicting"), timeout=120000)
    assert "QUARRY" not in p.redacted.toPlainText()
    w.close()


def test_notes_imported_after_the_patient_table_get_their_patient(qtbot, settings, tmp_path,
                                                                  monkeypatch):
    """The other order: the patient table first, then the notes imported with
    no pattern; the import summary says which patient the notes got."""
    from journey import row_values
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    new_project(qtbot, w, monkeypatch, tmp_path / "icu.deid", preset="hipaa")
    dialog = _add_patient_table(qtbot, w, tmp_path, monkeypatch)
    qtbot.keyClick(dialog, Qt.Key_Escape)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "P1_a.txt").write_text(NOTE, encoding="utf-8")
    import_folder(qtbot, w, monkeypatch, notes)                        # no pattern
    assert "1 note has the patient that its file name names" in \
        w.summary_dialog.text.text()
    assert row_values(w, "P1_a")["Patient"] == "P1"
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)                 # Next to annotate
    assert "? NAME: QUARRY" in spans_shown(w)
    w.close()
