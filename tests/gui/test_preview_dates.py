"""The project's numeric date order is visible and set in the Preview view."""
from __future__ import annotations

from app.gui.qt import Qt
from app.services.redaction import POLICY_KEY
from gui_helpers import doc_id


def test_date_order_is_shown_and_saved_for_exports(imported, qtbot):
    window = imported
    window.show_view("Preview")
    view = window.preview
    view.load_document(doc_id(window, "P1_a"))
    qtbot.waitUntil(lambda: view.save_policy_button.isEnabled(), timeout=10000)
    box = view.date_order_box
    assert box.isVisibleTo(window)
    assert box.currentText() == "As the notes show (not set yet)"
    box.setCurrentIndex(box.findData("mdy"))
    assert view.policy.date_order == "mdy"
    assert view.save_policy_button.text() == "Keep this date order for exports"
    qtbot.mouseClick(view.save_policy_button, Qt.LeftButton)
    assert window.project.get_setting(POLICY_KEY)["date_order"] == "mdy"
    assert window.statusBar().currentMessage().startswith("Date order kept for exports")
    # Shown again as saved when the project is opened anew.
    path = window.project.path
    window.close_project()
    assert window.open_project(path)
    assert window.preview.date_order_box.currentText() == "Month first (12/31/2024)"


def test_notes_writing_dates_month_first_get_us_surrogates_and_keep_them_when_saved(
        window, qtbot, tmp_path):
    """Issue 34 item 5: an English project made without a locale, whose notes
    mostly write month first (one note day first: too mixed to settle the
    date order), said "Surrogates written as in: Australian English"; and
    "Use for exports" (now "Keep this date order for exports") pinned that
    choice nobody made."""
    from app.cli.main import main
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(6):
        (notes / f"P{i}_a.txt").write_text(f"Seen on 10/2{i}/2019, again 11/1{i + 3}/2019.\n",
                                           encoding="utf-8")
    (notes / "P9_a.txt").write_text("Seen on 25/10/2019.\n", encoding="utf-8")
    path = tmp_path / "p.deid"
    assert main(["-q", "new", str(path)]) == 0
    assert main(["-q", "import", str(path), str(notes), "--no-suggest"]) == 0
    assert window.open_project(path)
    window.show_view("Preview")
    view = window.preview
    view.load_document(doc_id(window, "P1_a"))
    qtbot.waitUntil(lambda: view.save_policy_button.isEnabled(), timeout=10000)
    assert view.locale_box.currentText() == "American English"
    qtbot.mouseClick(view.save_policy_button, Qt.LeftButton)
    assert "locale" not in window.project.get_setting(POLICY_KEY)
    window.close_project()
    assert window.open_project(path)
    assert window.preview.locale_box.currentText() == "American English"
