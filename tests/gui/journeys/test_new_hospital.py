"""A new English-speaking hospital's first day, in the main window: File ›
New project offers the label set that suits English ward notes and leaves
no kind of identifier in clear (the user just presses Enter), the imported
plain notes come with the starter model's suggestions under those labels,
the hospital's own list of hospitals is added from the menu, and the
export's leak scan does not raise the generic words a listed hospital's
name leaves behind ("MEDICAL CENTER"). Menus, keys, clicks and answered
file dialogs only; the notes and the list are made up."""
from __future__ import annotations

from app.gui.qt import QFileDialog, Qt

from journey import (answer, choose, click, export, import_folder, key, pick, screenshot, shown,
                     spans_shown, table_rows)

NOTE = ("NPN 7P-7A\nNEURO: A+OX3. 82 YO ADMITTED 7/22 FROM ZELLWOOD MEDICAL CENTER.\n"
        "DR QUENBY AWARE. PLAN: BACK TO ZELLWOOD MEDICAL CENTER WHEN STABLE.\n"
        "PMH: CAD, PTCA QWMI 4/12, HTN. LIVES IN OAKVALE.\n")


def _new_project_pressing_enter(qtbot, w, monkeypatch, path) -> dict:
    """Ctrl+N, the file named, Enter on the label set dialog as it opens;
    returns what that dialog showed."""
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    seen: dict = {}

    def fill(dialog):
        seen.update(offered=dialog.preset.currentText(), summary=dialog.summary.text(),
                    warned=not dialog.warnings.isHidden(),
                    choices=[dialog.preset.itemText(i) for i in range(dialog.preset.count())])
        qtbot.keyClick(dialog, Qt.Key_Return)
    answer(fill)
    key(qtbot, w, Qt.Key_N, Qt.ControlModifier)
    assert w.windowTitle().startswith(path.name)
    return seen


def test_a_new_english_hospital_gets_labels_that_leave_nothing_in_clear(
        qtbot, settings, tmp_path, monkeypatch):
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    seen = _new_project_pressing_enter(qtbot, w, monkeypatch, tmp_path / "ward.deid")
    assert w.statusBar().currentMessage().startswith("Created ward.deid")   # not "Opened"
    # Offered first, in words a clinician reads, with nothing left in clear.
    assert seen["offered"].startswith("HIPAA Safe Harbor: names, places, all dates, ages")
    assert "They protect <b>17 of the 17</b> kinds" in seen["summary"]
    assert not seen["warned"]
    # Issue 34 item 13: no "the paper's five" for a clinician to decode.
    assert any(c.startswith("Five basic kinds: person") for c in seen["choices"])
    assert not any("paper" in c for c in seen["choices"])

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "P1_a.txt").write_text(NOTE, encoding="utf-8")
    import_folder(qtbot, w, monkeypatch, notes, pattern=r"^(P\d+)_")
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)                # Next to annotate
    buttons = [b.text() for b in w.editor.label_buttons()]
    assert buttons[:5] == ["1 NAME", "2 PROFESSION", "3 LOCATION", "4 AGE", "5 DATE"]
    # Day one: the starter's suggestions, a yearless ward date as a DATE
    # (the paper's set would have called it a date of birth).
    assert "? DATE: 7/22" in spans_shown(w)
    screenshot(w, "new_hospital_day_one")
    # By mouse alone: right-click a suggestion to accept it, another to
    # reject it, a selection to label it, that span to relabel it.
    from journey import right_click_menu, select_text
    view = w.editor.text_view
    right_click_menu(qtbot, view, NOTE.index("QUENBY") + 2, "Accept  (A)")
    right_click_menu(qtbot, view, NOTE.rindex("ZELLWOOD") + 2, "Reject  (R)")
    start = NOTE.index("OAKVALE")
    select_text(qtbot, view, start, start + len("OAKVALE"))
    right_click_menu(qtbot, view, start + 2, "Label as NAME  (1)")
    assert "✓ NAME: OAKVALE" in spans_shown(w)
    right_click_menu(qtbot, view, start + 2, "Label as", "LOCATION  (3)")
    shown_now = spans_shown(w)
    assert "✓ NAME: QUENBY" in shown_now and "✓ LOCATION: OAKVALE" in shown_now
    assert [s for s in shown_now if s.endswith("ZELLWOOD")] == ["? LOCATION: ZELLWOOD"]
    w.close()


def test_a_listed_hospitals_kind_left_in_clear_is_no_suspected_leak(qtbot, settings, tmp_path,
                                                                     monkeypatch):
    """Listed hospitals are replaced without their kind ("<**LOCATION**>
    MEDICAL CENTER", as the hospitals' own annotators write them) and an age
    under 90 is kept (HIPAA keeps it), and in capitals the words before a
    replaced date are no rest of a name: the export's leak scan, with
    surrogates too (where a model reads "<surrogate> MEDICAL CENTER" as a
    whole hospital), suspects nothing."""
    from app.gui.main_window import MainWindow
    from journey import export_planned
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    _new_project_pressing_enter(qtbot, w, monkeypatch, tmp_path / "ward.deid")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "P1_a.txt").write_text(NOTE, encoding="utf-8")
    import_folder(qtbot, w, monkeypatch, notes, pattern=r"^(P\d+)_")
    hospitals = tmp_path / "hospitals.txt"
    hospitals.write_text("ZELLWOOD MEDICAL CENTER\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(hospitals), ""))
    choose(qtbot, w, "File", "Hospital lists…")
    dialog = w.lists_dialog
    pick(qtbot, dialog.kind, "hospitals")
    with qtbot.waitSignal(dialog.changed, timeout=60000):
        click(qtbot, dialog.add_button)
    with qtbot.waitSignal(w.suggestionsFinished, timeout=120000):
        qtbot.keyClick(dialog, Qt.Key_Escape)

    for strategy in ("Project policy (per label, as set in the preview)",
                     "Every label replaced by a realistic stand-in (surrogate)"):
        out = tmp_path / strategy.split()[0]
        wizard = export_planned(qtbot, w, monkeypatch, out)
        ended: list = []
        wizard.exported.connect(lambda _outcome: ended.append(None))
        wizard.failed.connect(ended.append)
        click(qtbot, wizard.back_button)
        pick(qtbot, wizard.strategy_box, strategy)
        click(qtbot, wizard.next_button)
        click(qtbot, wizard.start_button)
        qtbot.waitUntil(lambda: bool(ended), timeout=240000)
        written = (out / "P1_a.txt").read_text(encoding="utf-8")
        assert "ZELLWOOD" not in written and written.count("MEDICAL CENTER") == 2
        assert "82 YO" in written
        assert table_rows(wizard.suspicion_table) == []
        assert "Leak scan: nothing suspected" in wizard.summary_label.text()
        screenshot(wizard, f"new_hospital_export_{out.name.lower()}")
        wizard.close()
    w.close()


def test_train_is_in_sight_on_a_laptop_screen(qtbot, settings, tmp_path, monkeypatch):
    """Notes imported with the patient ids proposed from their file names;
    Go › Train on a 1280x800 screen: the Train button is in sight without
    scrolling the settings (it was below them); Quick, Train, the run ends
    with a selected model."""
    from app.gui.main_window import MainWindow
    from journey import go, pick, write_synth
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot, (1280, 800))
    _new_project_pressing_enter(qtbot, w, monkeypatch, tmp_path / "ward.deid")
    # The patient ids the import dialog reads off the file names, kept as proposed.
    import_folder(qtbot, w, monkeypatch, write_synth(tmp_path / "notes", 16), pattern=None)
    from journey import row_values
    assert row_values(w, "P0001_note_0002")["Patient"] == "P0001"
    go(qtbot, w, "Train")
    t = w.training

    def in_sight() -> bool:
        return t.train_button.visibleRegion().boundingRect() == t.train_button.rect()
    qtbot.waitUntil(in_sight, timeout=3000)          # once the window's layout has settled
    pick(qtbot, t.budget_box, "Quick")
    assert in_sight()
    with qtbot.waitSignal(t.trained, timeout=240000):
        click(qtbot, t.train_button)
    assert t.reason_label.text().startswith("<b>The model in use is ")
    screenshot(w, "new_hospital_trained")
    w.close()
