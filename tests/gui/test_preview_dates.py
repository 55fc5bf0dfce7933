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
    qtbot.mouseClick(view.save_policy_button, Qt.LeftButton)
    assert window.project.get_setting(POLICY_KEY)["date_order"] == "mdy"
    # Shown again as saved when the project is opened anew.
    path = window.project.path
    window.close_project()
    assert window.open_project(path)
    assert window.preview.date_order_box.currentText() == "Month first (12/31/2024)"
