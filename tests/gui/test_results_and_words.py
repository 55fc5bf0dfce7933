"""What the Train and Preview views say: the model used in plain words, a test split offered,
no 'span(s)' or 'members' where a person reads."""
from __future__ import annotations

from app.core.labels import PRESETS
from app.models.device import DeviceInfo
from app.project import Project
from app.services.runs import RECORD_VERSION, set_active_run
from app.services.schema import TrainConfig


def test_results_say_in_plain_words_which_model_is_used_and_why(qapp, tmp_path):
    """Issue 34 item 9: the reason read "no candidate reaches token recall >=
    0.990 on dev: ... best token F2"; a plain sentence now comes first and
    those terms are the details."""
    from app.gui.training_view import TrainingView
    row = {"name": "pruned[all]", "score": 0.85, "eligible": False, "precision": 0.86,
           "recall": 0.84, "f1": 0.85, "token": {"precision": 0.9, "recall": 0.892, "f1": 0.9}}
    reason = "no candidate reaches token recall >= 0.990 on dev: the privacy target is missed"
    with Project.create(tmp_path / "p.deid", list(PRESETS["hipaa"])) as project:
        run_id = project.start_run("train", TrainConfig(models=["crf"]).as_dict())
        project.finish_run(run_id, "done", {
            "version": RECORD_VERSION, "selected": "pruned[all]", "selection": {
                "best": "pruned[all]", "objective": "privacy", "target": 0.99,
                "reason": reason, "rows": [row]}})
        set_active_run(project, run_id)
        view = TrainingView(project, device_info=DeviceInfo(cpu_physical=2, cpu_logical=2))
        try:
            text = view.reason_label.text()
            # Item 13: the model in words; its name only in the details.
            assert text.startswith("<b>The model in use is a vote of all the models, "
                                   "leaving out those that did not help: no model hid 99% of the "
                                   "identifier words of the dev notes")
            assert "without hiding too many ordinary words" in text
            assert "pruned[all]" not in text and view.details_label.isHidden()
            view.details_button.setChecked(True)         # "Details for experts"
            details = view.details_label.text()
            assert details.index("pruned[all]") < details.index("privacy target is missed")
            # Item 12: a finished run opens at its results, not at "overall 0 %".
            assert view.tabs.tabText(view.tabs.currentIndex()) == "Results"
            assert view.overall_bar.value() == 1000
        finally:
            view.shutdown()
            view.close()
            view.deleteLater()


def test_evaluate_without_a_test_split_offers_to_split_by_patient(imported, qtbot, monkeypatch):
    """Issue 34 item 11: notes imported without a split gave "no annotated
    documents in the 'test' split" and an empty Split column, and nothing
    said how to get one. Evaluate on test split now offers the split."""
    from app.gui.qt import QMessageBox, Qt
    window = imported
    project = window.project
    assert all(not i.split for i in project.document_infos())
    run_id = project.start_run("train", TrainConfig(models=["rules"]).as_dict())
    project.finish_run(run_id, "done", {
        "version": RECORD_VERSION, "selected": "rules", "selection": {
            "best": "rules", "objective": "f1", "target": None, "reason": "only one",
            "rows": [{"name": "rules", "score": 0.5, "eligible": True, "precision": 0.5,
                      "recall": 0.5, "f1": 0.5, "token": {"precision": 0.5, "recall": 0.5}}]}})
    set_active_run(project, run_id)
    path = project.path
    window.close_project()                   # opened again, as after that training
    assert window.open_project(path)
    project = window.project
    window.show_view("Train")
    view = window.training
    asked = []

    def answer(parent, title, text, *args):
        asked.append(text)
        return QMessageBox.Yes

    monkeypatch.setattr(QMessageBox, "question", answer)
    qtbot.mouseClick(view.evaluate_button, Qt.LeftButton)
    assert asked and "by patient" in asked[0] and "train again" in asked[0]
    splits = {i.patient_id: i.split for i in project.document_infos()}
    assert all(splits.values()) and len(set(splits.values())) >= 1
    assert len({i.split for i in project.document_infos() if i.patient_id == "P1"}) == 1
    assert view.eval_label.text().startswith("Split by patient:")
    window.show_view("Documents")
    model = window.documents.model
    column = next(c for c in range(model.columnCount()) if model.headerData(
        c, Qt.Horizontal) == "Split")
    assert all(model.index(r, column).data() for r in range(model.rowCount()))


def _wheel(widget, steps: int) -> None:
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from app.gui.qt import QApplication, Qt
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, -120 * steps), Qt.NoButton, Qt.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_wheel_over_the_budget_box_scrolls_instead_of_choosing(window, qtbot):
    """Issue 34 item 12: the mouse wheel over the Budget box in the scrolled
    settings switched Standard to Full without a click."""
    from app.gui.qt import Qt
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.show_view("Train")
    box = window.training.budget_box
    before = box.currentData()
    _wheel(box, 2)
    assert box.currentData() == before
    qtbot.mouseClick(box, Qt.LeftButton)           # opens its list: the user chose it
    box.hidePopup()
    assert box.hasFocus()
    _wheel(box, 1)
    assert box.currentData() != before


def test_members_that_learn_nothing_are_not_said_to_train():
    """Issue 34 item 12: "Training rules…" for rules that need no training."""
    from app.gui.training_view import running_words
    assert running_words(["rules"]) == "Scoring rules on dev (no training needed)…"
    assert running_words(["crf-balanced", "starter"]) == \
        "Training crf-balanced; scoring starter on dev (no training needed)…"
    assert running_words(["crf-balanced"]) == "Training crf-balanced…"


def test_preview_words_for_what_found_a_span_and_how_many_were_replaced():
    """Issue 34 item 13: "Found by 0 of 3 members" beside "confidence 1.00",
    and "0 span(s)"."""
    from app.deid import MappedSpan
    from app.gui.preview_view import _count, describe
    from app.services.previewing import SpanInfo
    info = SpanInfo(MappedSpan(0, 4, 0, 6, "NAME", "tag"), "model", confidence=1.0,
                    members=[], partial=["crf-balanced"], n_members=3)
    text = describe(info, "<**NAME**>")
    assert "Found by 0" not in text
    assert "None of the 3 models that read the note found exactly these words" in text
    info.members.append("starter")
    assert "Found exactly by 1 of the 3 models that read the note: the shipped starter model" in \
        describe(info, "x")
    assert [_count(n, "identifier") for n in (0, 1, 4)] == [
        "no identifier", "1 identifier", "4 identifiers"]


def test_a_span_the_lists_or_a_rule_found_says_so_not_found_by_none_of_the_models():
    """Issue 34 item 13: a hospital-list hit read "Model prediction,
    confidence 1.00" over "None of the 3 models voting found exactly these
    words; the vote joined…": what found it is named instead."""
    from app.deid import MappedSpan
    from app.gui.preview_view import describe
    from app.services.previewing import SpanInfo
    listed = SpanInfo(MappedSpan(0, 10, 0, 6, "LOCATION", "tag"), "model", confidence=1.0,
                      n_members=3, made_by="hospital lists", listed=True)
    text = describe(listed, "<**LOCATION**>")
    assert "Found by the hospital lists" in text
    assert "confidence" not in text and "vote joined" not in text and "Made by" not in text
    assert "None of the 3 models that read the note found it" in text
    ruled = SpanInfo(MappedSpan(0, 4, 0, 6, "NAME", "tag"), "model", confidence=1.0,
                     members=["crf-balanced"], n_members=3,
                     made_by="english-floor.v1: titled-name")
    text = describe(ruled, "x")
    assert "Found by the rule “titled-name”" in text
    assert "Also found exactly by 1 of the 3 models that read the note: a word-pattern model, " \
        "learned from the annotated lines with identifiers and as many without" in text
    # (not crf-balanced's name)
    voted = SpanInfo(MappedSpan(0, 4, 0, 6, "NAME", "tag"), "model", confidence=0.8,
                     n_members=3, made_by="voting[all]")
    assert "Model prediction, confidence 0.80" in describe(voted, "x")
