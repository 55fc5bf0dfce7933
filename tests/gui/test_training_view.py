"""TrainingView driven for real: a quick training off the GUI thread, results,
test evaluation and its error list, cancel, pre-annotation."""
from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt

from app.core.labels import PRESETS
from app.models.device import DeviceInfo
from app.project import Project
from app.services.runs import ACTIVE_RUN
from app.services.schema import CROSS_FIT_FOLDS
from app.services.training import TrainConfig
from app.synth import generate

pytestmark = pytest.mark.slow

QUICK = TrainConfig(models=["spacy", "rules"], budget="quick")


def make_project(path, n: int = 30, todo: int = 3) -> Project:
    """Synthetic notes split 3:1:1 train/dev/test, plus ``todo`` unannotated ones."""
    project = Project.create(path, list(PRESETS["paper"]))
    docs = generate(n + todo, seed=3)
    for i, d in enumerate(docs):
        if i >= n:
            project.add_document(d.name, d.text, patient_id=d.patient_id)
            continue
        split = "test" if i % 5 == 0 else "dev" if i % 5 == 1 else "train"
        project.add_document(d.name, d.text, patient_id=d.patient_id, split=split,
                             status="done", spans=d.spans)
    return project


def wait_idle(app, view, limit_s: float = 900) -> None:
    deadline = time.monotonic() + limit_s
    while view.is_busy():
        assert time.monotonic() < deadline, "training did not finish"
        app.processEvents()
        time.sleep(0.01)
    app.processEvents()


@pytest.fixture(scope="module")
def trained(qapp, tmp_path_factory):
    """One quick training run from the view, with every progress report kept."""
    from app.gui.training_view import TrainingView
    project = make_project(tmp_path_factory.mktemp("train") / "p.deid")
    view = TrainingView(project, device_info=DeviceInfo(cpu_physical=2, cpu_logical=2))
    view.resize(1200, 800)
    view.show()
    events, finished = [], []
    view.runner.progress.connect(events.append)
    view.trained.connect(finished.append)
    view.set_config(QUICK)
    # The next notes' suggestions are refreshed by hand below (test_preannotate_next_notes).
    view.refresh_after_training.setChecked(False)
    assert view.start_training()
    assert view.is_busy() and not view.train_button.isEnabled()
    wait_idle(qapp, view)
    yield view, project, events, finished
    view.shutdown()
    view.close()
    view.deleteLater()
    project.close()


def test_device_sentence_says_where_training_runs():
    from app.gui.training_view import device_sentence
    gpu = DeviceInfo(cuda_available=True, cuda_name="NVIDIA H100 80GB HBM3",
                     cuda_total_memory=80 * 2**30, cuda_count=1, cpu_physical=16)
    assert device_sentence(gpu) == "NVIDIA H100 80GB HBM3 80 GB — training on GPU"
    assert device_sentence(gpu, force_cpu=True).startswith("CPU, 16 cores — GPU (")
    assert device_sentence(DeviceInfo(cpu_physical=2)) == "CPU, 2 cores — no GPU found"
    assert device_sentence(DeviceInfo(cpu_physical=2, cpu_bf16=True)) == \
        "CPU, 2 cores, bfloat16 in hardware — no GPU found"


def test_config_from_controls(trained, qtbot):
    view = trained[0]
    config = view.config()
    assert config.models == ["spacy", "rules"] and config.budget == "quick"
    assert config.device == "auto"               # no GPU: the Force CPU box is disabled
    assert not view.force_cpu.isEnabled()
    view.objective_box.setCurrentIndex(view.objective_box.findData("precision_at_recall"))
    assert view.recall_target.isEnabled()
    assert view.config().objective == "precision_at_recall"
    view.set_config(QUICK)
    # The default objective (privacy) keeps a token-recall target; F1 has none.
    assert view.config().objective == "privacy" and view.recall_target.isEnabled()
    view.objective_box.setCurrentIndex(view.objective_box.findData("f1"))
    assert not view.recall_target.isEnabled()
    assert view.config().jobs == 1               # no GPU: members one after another
    view.jobs_box.setValue(3)
    assert view.config().jobs == 3
    view.reuse_check.setChecked(True)
    assert view.config().reuse_members
    assert view.config().refit                   # the CRF refitted on train + dev by default
    view.refit_check.setChecked(False)
    assert not view.config().refit
    assert view.config().cross_fit == 0          # chosen on the dev notes by default
    qtbot.mouseClick(view.crossfit_check, Qt.LeftButton)
    assert view.config().cross_fit == CROSS_FIT_FOLDS
    assert view.config().starter_floor           # what day one replaced stays replaced
    qtbot.mouseClick(view.starter_floor_check, Qt.LeftButton)
    assert not view.config().starter_floor
    view.set_config(QUICK)
    assert view.jobs_box.value() == 1 and not view.reuse_check.isChecked()
    assert view.refit_check.isChecked() and not view.crossfit_check.isChecked()
    assert view.starter_floor_check.isChecked()
    view.objective_box.setCurrentIndex(view.objective_box.findData("precision_at_token_recall"))
    assert view.recall_target.isEnabled()
    # The picked group: none ticked, no group; ticked, one named group.
    assert view.config().groups == {}
    view.group_checks["spacy"].setChecked(True)
    view.group_checks["rules"].setChecked(True)
    assert view.config().groups == {"picked": ["spacy", "rules"]}
    view.model_checks["rules"].setChecked(False)           # not trained: not in the group
    assert not view.group_checks["rules"].isEnabled()
    assert view.config().groups == {"picked": ["spacy"]}
    view.model_checks["rules"].setChecked(True)
    view.set_config(QUICK)
    assert not any(b.isChecked() for b in view.group_checks.values())


def test_training_reports_progress_and_shows_results(trained):
    view, project, events, finished = trained
    assert view.last_failure is None and len(finished) == 1
    result = finished[0]
    assert project.run(result.id).status == "done"
    assert project.get_setting(ACTIVE_RUN) == result.id
    # Progress: per model, with epochs, losses and a final 100 %.
    assert {e.model for e in events} >= {"spacy-balanced", "spacy-imbalanced", "rules"}
    assert any(e.model == "spacy-balanced" and e.epoch and e.loss is not None for e in events)
    assert events[-1].fraction == 1.0
    assert set(view.loss_chart.series) >= {"spacy-balanced", "spacy-imbalanced"}
    assert view.f1_chart.series["spacy-balanced"]
    assert all(bar.value() == 1000 for bar in view._model_bars.values())
    assert "Selected" in view.log.toPlainText()
    # Results: every candidate once, the selected one marked, the reason shown.
    table = view.results_table
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert len(names) == len(result.rows)
    assert names.count("★ " + result.selected) == 1
    # The label is rich text: the reason ("token recall >= 0.990") is escaped.
    from html import escape
    assert escape(result.reason) in view.details_label.text()
    # What the finishing steps learned (a line each) is in the details, under the reason.
    from app.services.finishing import finishing_summary
    lines = finishing_summary(result)
    assert lines and all(escape(line) in view.details_label.text() for line in lines)
    assert {table.item(r, 1).text() for r in range(table.rowCount())} == \
        {"single model", "rules", "combined"}
    # Dev token recall, the leak measure, beside the strict scores.
    from app.gui.training_view import RESULT_COLUMNS
    tok = {row["name"]: row["token"]["recall"] for row in result.rows}
    for r in range(table.rowCount()):
        name = table.item(r, 0).text().removeprefix("★ ")
        assert float(table.item(r, RESULT_COLUMNS.index("Dev token R")).text()) == \
            pytest.approx(tok[name], abs=1e-3)


def test_evaluate_on_test_fills_table_chart_and_errors(trained, qtbot):
    view, project, _, _ = trained
    with qtbot.waitSignal(view.runner.finished, timeout=300000):
        assert view.start_evaluation()
    summary = view.evaluation
    assert summary is not None and summary["split"] == "test"
    table = view.results_table
    selected_row = next(r for r in range(table.rowCount()) if table.item(r, 0).text().startswith("★"))
    from app.gui.training_view import RESULT_COLUMNS
    col = RESULT_COLUMNS.index
    assert float(table.item(selected_row, col("Test F1")).text()) == pytest.approx(
        summary["micro"]["f1"], abs=1e-3)
    assert float(table.item(selected_row, col("Test token R")).text()) == pytest.approx(
        summary["token"]["recall"], abs=1e-3)
    assert f"the model hides {summary['token']['recall']:.1%} of the identifier words" in \
        view.eval_label.text()
    assert set(view.label_chart.data) == {l.name for l in PRESETS["paper"]} & set(summary["per_label"])
    errors = summary["errors"]
    assert errors and view.error_table.rowCount() == len(errors)
    kinds = [e.kind for e in errors]
    assert kinds == sorted(kinds, key=lambda k: k != "missed")          # missed first
    missed = errors[0]
    assert missed.kind == "missed"
    # A missed identifier is a gold span of that test document, by offsets.
    assert (missed.start, missed.end, missed.label) in {
        (s.start, s.end, s.label) for s in project.gold_spans(missed.doc_id)}
    assert project.document(missed.doc_id).split == "test"
    with qtbot.waitSignal(view.open_span) as blocker:
        view.error_table.itemActivated.emit(view.error_table.item(0, 2))
    assert blocker.args == [missed.doc_id, missed.start, missed.end]
    # Each miss says what a reader of the output would still see: its words
    # (a letter or digit) that the model's output leaves uncovered.
    from app.core.tokenize import tokenize
    from app.services.predictor import Predictor
    shown = view.error_table.horizontalHeaderItem(3).text()
    assert shown == "Detail"
    with Predictor.from_project(project) as predictor:
        for i, e in enumerate(errors):
            if e.kind != "missed":
                assert e.visible is None and e.made_by
                assert view.error_table.item(i, 3).text().startswith("made by ")
                continue
            assert view.error_table.item(i, 3).text() == e.shown()
            text = project.document(e.doc_id).text
            out = predictor.predict([text])[0].spans
            words = [t for t in tokenize(text) if e.start <= t.start and t.end <= e.end
                     and any(c.isalnum() for c in text[t.start:t.end])]
            assert e.visible == sum(not any(s.start < t.end and t.start < s.end for s in out)
                                    for t in words)
    # For a reviewer: first what no candidate finds, then what another hides,
    # then what was hidden under another label or edges.
    groups = [0 if e.visible and not e.elsewhere else 1 if e.visible else 2
              for e in errors if e.kind == "missed"]
    assert groups == sorted(groups)
    # "Missed" is what leaves words visible; one hidden whole under other
    # edges or another label is "inexact" (the window said 16 missed where
    # `deid evaluate` said 1).
    from app.core.words import count
    visible = [e for e in errors if e.kind == "missed" and e.visible]
    inexact = [i for i, e in enumerate(errors) if e.kind == "missed" and not e.visible]
    leave = "leaves" if len(visible) == 1 else "leave"
    assert (f"{count(len(visible), 'identifier')} {leave} words visible, {len(inexact)} more "
            f"{'is' if len(inexact) == 1 else 'are'} hidden with other edges or another label"
            ) in view.eval_label.text()
    assert [i for i in range(len(errors)) if view.error_table.item(i, 0).text() == "inexact"] \
        == inexact
    assert ("every candidate together would hide" in view.eval_label.text()) == bool(visible)
    privacy = summary["privacy"]
    assert (f"{privacy['notes_with_visible_word']} of {privacy['notes_with_identifiers']} notes "
            "with identifiers still show an identifier word") in view.eval_label.text()


def test_cancel_stops_training_and_keeps_the_project_consistent(trained, qtbot, monkeypatch):
    import app.services.training as training
    from gui_helpers import held_until_cancelled
    view, project, _, finished = trained
    active = project.get_setting(ACTIVE_RUN)
    selected = view.selected_name()
    # The worker waits for Cancel once a member is under way, however fast
    # the machine (a run that ended first made Cancel a no-op).
    monkeypatch.setattr(training, "train_project", held_until_cancelled(
        training.train_project, lambda p: p.model is not None))
    with qtbot.waitSignal(view.runner.progress, timeout=300000,
                          check_params_cb=lambda p: p.model is not None):
        assert view.start_training()
    with qtbot.waitSignal(view.runner.cancelled, timeout=300000):    # not a failure
        view.cancel()
    assert not view.is_busy() and view.train_button.isEnabled()
    latest = project.runs("train")
    assert max(latest, key=lambda r: r.id).status == "cancelled"
    assert project.get_setting(ACTIVE_RUN) == active       # the old model stays active
    assert view.selected_name() == selected and len(finished) == 1
    assert "Cancelled" in view.stage_label.text()


def test_preannotate_next_notes(trained, qtbot):
    view, project, _, _ = trained
    todo = [i.id for i in project.document_infos() if i.status == "todo"]
    view.preannotate_count.setValue(2)
    with qtbot.waitSignal(view.preannotated, timeout=300000) as blocker:
        assert view.preannotate_button.isEnabled()
        view.preannotate_button.click()
    assert blocker.args == [2]
    infos = {i.id: i for i in project.document_infos()}
    assert all(infos[d].uncertainty is not None for d in todo[:2])
    assert infos[todo[2]].uncertainty is None
    assert any(project.span_records(d, status="suggested") for d in todo[:2])
    assert project.audit_entries(limit=1)[0].event == "preannotate"


def test_members_training_side_by_side_keep_their_own_bars(qapp, tmp_path):
    # Reports of two members interleave when they train at once (jobs > 1):
    # neither bar may be marked done before its member's MEMBER_DONE event.
    from app.core.progress import MEMBER_DONE, MEMBER_STARTED, UPDATE, Progress
    from app.gui.training_view import TrainingView
    project = make_project(tmp_path / "side.deid", n=5, todo=0)
    view = TrainingView(project, device_info=DeviceInfo(cpu_physical=2, cpu_logical=2))
    try:
        view._reset_progress(["spacy-imbalanced", "stanza-imbalanced", "rules"])
        view.runner.name = "train"

        def report(model, fraction, message="", epoch=None, kind=UPDATE):
            view._on_progress(Progress(fraction / 3, "train", model=model, model_fraction=fraction,
                                       epoch=epoch, message=message, kind=kind))

        report("spacy-imbalanced", 0.0, kind=MEMBER_STARTED)
        report("stanza-imbalanced", 0.0, kind=MEMBER_STARTED)
        report("spacy-imbalanced", 0.4, "trial 1/1", epoch=2)
        report("stanza-imbalanced", 0.2, "step 100/500")
        bars = view._model_bars
        assert bars["spacy-imbalanced"].value() == 400 and bars["spacy-imbalanced"].format() != "done"
        assert view.stage_label.text() == "Training spacy-imbalanced, stanza-imbalanced…"
        report("spacy-imbalanced", 1.0, "trained")      # the words alone mean nothing
        assert bars["spacy-imbalanced"].format() != "done"
        report("spacy-imbalanced", 1.0, "trained", kind=MEMBER_DONE)
        assert bars["spacy-imbalanced"].format() == "done"
        assert bars["stanza-imbalanced"].value() == 200 and bars["stanza-imbalanced"].format() != "done"
        assert bars["rules"].format() == "waiting"
        assert view.stage_label.text() == "Training stanza-imbalanced…"
    finally:
        view.runner.name = None
        view.close()
        project.close()


def test_a_member_scored_once_trained_has_its_dev_f1_point(qapp, tmp_path):
    """Issue 34 item 12: the CRF's Dev F1 chart said "no data yet" (it reports
    no epochs, only its dev F1 once trained)."""
    from app.core.progress import EPOCH, MEMBER_DONE, Progress
    from app.gui.training_view import TrainingView
    project = make_project(tmp_path / "crf.deid", n=5, todo=0)
    view = TrainingView(project, device_info=DeviceInfo(cpu_physical=2, cpu_logical=2))
    try:
        view._reset_progress(["crf-balanced", "spacy-balanced"])
        view.runner.name = "train"
        view._on_progress(Progress(0.3, "train", model="spacy-balanced", model_fraction=0.5,
                                   epoch=1, dev_f1=0.4, kind=EPOCH))
        view._on_progress(Progress(0.6, "train", model="crf-balanced", model_fraction=1.0,
                                   dev_f1=0.81, message="trained", kind=MEMBER_DONE))
        view._on_progress(Progress(0.9, "train", model="spacy-balanced", model_fraction=1.0,
                                   dev_f1=0.6, message="trained", kind=MEMBER_DONE))
        assert view.f1_chart.series["crf-balanced"] == [0.81]
        assert view.f1_chart.series["spacy-balanced"] == [0.4]    # its epochs already drawn
    finally:
        view.close()
        project.close()


def test_the_estimate_is_the_newest_run_of_the_budget():
    """A walkthrough's second quick run took 1:26; the estimate kept saying
    the first's 1:22 (`Project.runs` gives the newest first)."""
    from types import SimpleNamespace
    from app.gui.training_view import run_estimate

    def record(run_id, seconds, notes):
        return SimpleNamespace(id=run_id, status="done", config={
            "budget": "quick", "documents": {"train": notes, "dev": 0}},
            metrics={"seconds": seconds})
    runs = [record(2, 86.0, 43), record(1, 82.0, 37)]               # newest first
    assert run_estimate(runs, "quick", 2) == \
        "The last quick run here took 1:26 for 43 annotated notes (train and dev)."
