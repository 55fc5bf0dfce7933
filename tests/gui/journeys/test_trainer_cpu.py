"""Trainer on a CPU that computes in bfloat16 (the transformer ticked by
default), as a new user's walkthrough under Xvfb met it:

* Progress listed transformer-balanced, which a CPU never trains (one data
  variant there: `kind_variants`), "waiting" all run and "done" at the end;
* the loss chart showed the transformer's 111 steps of its first epoch as
  one dot at the left, on an axis running down to -0.44;
* before Train, the time said "the neural models (spaCy, Stanza, Flair)
  take hours" with none of them ticked, and the transformer's minutes only
  in a tooltip that kept saying "standard budget" after Quick was picked;
* the Results table cut titles off ("M" of Memory MB, "Contex").
"""
from __future__ import annotations

import contextlib
import threading

import pytest

from app.gui.qt import QFileDialog, QLabel, Qt

from journey import choose, click, go, pick, screenshot, shown, synth_project

pytestmark = pytest.mark.slow

#: The walkthrough's window.
WALK_SIZE = (1400, 900)


@pytest.fixture(scope="module")
def notes(tmp_path_factory):
    """A project of 30 synthetic notes split by patient, not trained yet."""
    from app.cli.main import main
    path = synth_project(tmp_path_factory.mktemp("cpu"))
    assert main(["-q", "split", str(path)]) == 0
    return path


@pytest.fixture
def bf16_cpu(monkeypatch):
    """Two cores that multiply bfloat16 in hardware, no GPU."""
    import app.models.device as device
    monkeypatch.setattr(device, "detect_devices", lambda: device.DeviceInfo(
        cpu_physical=2, cpu_logical=2, cpu_bf16=True))


def opened(qtbot, settings, monkeypatch, path, size=None):
    """A main window, File > Open project… on ``path``, then Train (its
    devices probed, as when it is first shown)."""
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot, size)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    choose(qtbot, w, "File", "Open project…")
    go(qtbot, w, "Train")
    t = w.training
    qtbot.waitUntil(lambda: not t.device_label.text().startswith("Detecting"))
    return w


def held_until_cancelled(cancel) -> None:
    """Wait for Cancel in a stand-in for the training service, then stop as
    it does (two minutes at most: a broken Cancel fails the test's wait)."""
    from app.core.progress import Cancelled
    cancel.wait(120)
    raise Cancelled()


@contextlib.contextmanager
def cancelled_at_the_end(qtbot, t):
    """Cancel pressed when the block ends, whatever it asserted (a window
    closed while training asks whether to stop it, and nobody answers)."""
    try:
        yield
    finally:
        if t.cancel_button.isEnabled():
            click(qtbot, t.cancel_button)
        qtbot.waitUntil(t.train_button.isEnabled, timeout=60000)


def progress_rows(t) -> list[str]:
    """The names down the Progress tab, one a bar."""
    grid = t.model_grid
    return [grid.itemAtPosition(r, 0).widget().text() for r in range(grid.rowCount())
            if grid.itemAtPosition(r, 0) is not None]


def test_progress_lists_the_members_the_run_trains(qtbot, settings, monkeypatch, notes,
                                                   bf16_cpu):
    import app.services.training as training
    from app.services.schema import member_name
    w = opened(qtbot, settings, monkeypatch, notes)
    t = w.training
    assert t.model_checks["transformer"].isChecked()
    assert all(b.isChecked() for b in t.variant_checks.values())
    planned: list[list[str]] = []

    def planned_then_held(project, config, *, progress, cancel):
        # What the run plans (the real plan stage), then a wait for Cancel
        # instead of minutes of training.
        plan = training.plan_run(project, config)
        planned.append([member_name(k, v) for k, v in plan.members])
        held_until_cancelled(cancel)

    monkeypatch.setattr(training, "train_project", planned_then_held)
    with cancelled_at_the_end(qtbot, t):
        click(qtbot, t.train_button)
        qtbot.waitUntil(lambda: bool(planned), timeout=60000)
        # The transformer trains one data variant on a CPU: the one planned, no other.
        assert "transformer-imbalanced" in planned[0] and "transformer-balanced" not in planned[0]
        assert progress_rows(t) == [*planned[0], "ensembles"]
    assert t.stage_label.text().startswith("Cancelled")


def test_the_loss_chart_shows_each_step_on_an_axis_from_zero(qtbot, settings, monkeypatch,
                                                            notes, bf16_cpu):
    """The transformer reports a smoothed loss at every step of an epoch (as
    `TransformerSpec.fit` does, through the run's member stage): each is a
    point, placed by how far its training had gone."""
    import time

    import app.services.training as training
    from app.core.progress import EPOCH, MEMBER_STARTED, Progress
    w = opened(qtbot, settings, monkeypatch, notes)
    t = w.training
    member, total, shown_steps = "transformer-imbalanced", 568, 12
    reported = threading.Event()

    def steps_then_held(project, config, *, progress, cancel):
        progress(Progress(0.0, "train", model=member, model_fraction=0.0, kind=MEMBER_STARTED))
        loss = None
        for step in range(1, shown_steps + 1):
            time.sleep(0.08)                     # past the GUI's throttle: each one shown
            value = 0.5 / step
            loss = value if loss is None else 0.95 * loss + 0.05 * value
            progress(Progress(step / total * 0.8, "train", model=member,
                              model_fraction=step / total, epoch=1, loss=loss,
                              message=f"trial 1/1: epoch 1/2, step {step}/{total // 2}"))
        # The epoch's end repeats the last step's loss, with its dev F1.
        progress(Progress(shown_steps / total * 0.8, "train", model=member,
                          model_fraction=shown_steps / total, epoch=1, loss=loss, dev_f1=0.8,
                          kind=EPOCH, message="trial 1/1: epoch 1/2 evaluated"))
        reported.set()
        held_until_cancelled(cancel)

    monkeypatch.setattr(training, "train_project", steps_then_held)
    chart = t.loss_chart
    with cancelled_at_the_end(qtbot, t):
        click(qtbot, t.train_button)
        qtbot.waitUntil(reported.is_set, timeout=60000)
        qtbot.wait(100)                          # the last reports, queued to the window
        # One point a step, the epoch's end on its last step's point, left to right.
        assert len(chart.series.get(member, [])) == shown_steps
        xs = chart.xs[member]
        assert xs == sorted(xs) and xs[0] > 0 and xs[-1] == pytest.approx(shown_steps / total)
        # A loss axis from 0 to a round value above the losses, nothing below 0.
        labels = chart.y_labels()
        assert labels[0] == "0" and not any(label.startswith("-") for label in labels)
        assert float(labels[-1]) >= max(chart.series[member])
        # Each loss against the member's first: a CRF's thousands and this one's
        # fractions share the axis.
        assert chart.series[member][0] == 1.0 and chart.series[member][-1] < 1.0
        assert t.f1_chart.series[member] == [0.8]
        screenshot(w, "training_steps")


def test_the_time_said_follows_the_budget_and_the_ticks(qtbot, settings, monkeypatch, notes,
                                                        bf16_cpu):
    w = opened(qtbot, settings, monkeypatch, notes, WALK_SIZE)
    t = w.training
    label, transformer = t.estimate_label, t.model_checks["transformer"]
    # Standard, the transformer ticked: its time, in words, under the budget.
    assert t.budget_box.currentText() == "Standard"
    said = label.text()
    assert said.startswith("No standard run here yet to estimate from. ")
    # (A time in words: these few notes take under a minute, not the budget's.)
    assert "The transformer will train for under a minute" in said
    assert "(1 data variant, standard budget" in said
    # Nothing about models that are not ticked, nor the figures only an expert reads.
    assert not any(word in said for word in ("spaCy", "Stanza", "Flair", "hours", "characters"))
    assert "characters of notes a second" in label.toolTip()     # the figures, on pointing
    pick(qtbot, t.budget_box, "Quick")
    assert "(1 data variant, quick budget" in label.text()
    assert "quick budget" in transformer.toolTip() and "standard" not in transformer.toolTip()
    # It fits: every line of it shows in the settings column.
    assert label.height() >= label.heightForWidth(label.width())
    screenshot(w, "training_estimate")
    click(qtbot, transformer)                                       # unticked
    assert "transformer" not in label.text().lower()
    assert label.text() == "No quick run here yet to estimate from."
    click(qtbot, t.model_checks["flair"])                            # a slow one ticked
    assert label.text().endswith(" Without a GPU, on 2 CPU cores, Flair takes hours.")
    assert "spaCy" not in label.text() and "Stanza" not in label.text()


@pytest.fixture(scope="module")
def walked_run(notes, tmp_path_factory):
    """A copy of ``notes`` holding the walkthrough's results: the names,
    kinds, scores, seconds and memory of its table, as a run stores them."""
    import shutil

    from app.project import Project
    from app.services.runs import MemberRecord, TrainedRun, set_active_run
    from app.services.schema import TrainConfig
    path = tmp_path_factory.mktemp("walked") / "ward.deid"
    shutil.copy(notes, path)
    table = [  # name, dev P, R, F1, words hidden, seconds, peak MB (None: an ensemble)
        ("transformer-imbalanced", .790, .963, .868, 1.0, 467.5, 2841.0),
        ("stacking-svm[top3_f1]", .799, .969, .875, 1.0, None, None),
        ("stacking-xgb[all]", .798, .968, .875, 1.0, None, None),
        ("stacking-xgb[top3_f1]", .798, .968, .875, 1.0, None, None),
        ("crf-balanced", .799, .966, .875, .997, 27.4, 1210.0),
        ("voting[top3_f1]", .799, .966, .875, .997, None, None),
        ("stacking-lr[top3_f1]", .799, .966, .874, .997, None, None),
        ("crf-imbalanced", .799, .965, .874, .996, 9.7, 1185.0),
        ("stacking-lr[all]", .799, .967, .874, 1.0, None, None),
        ("rules", .6, .7, .65, .9, 0.0, 640.0),
    ]
    rows = [{"name": n, "score": f1, "eligible": True, "precision": p, "recall": r, "f1": f1,
             "token": {"precision": .9, "recall": hidden}}
            for n, p, r, f1, hidden, _, _ in table]
    members = {n: MemberRecord(n, n.split("-")[0], (n.split("-") + [None])[1], {}, s, mb, 1.0,
                               {"precision": p, "recall": r, "f1": f1})
               for n, p, r, f1, _, s, mb in table if s is not None}
    with Project.open(path) as project:
        run_id = project.start_run("train", TrainConfig(models=["transformer", "crf", "rules"],
                                                        budget="quick").as_dict())
        run = TrainedRun(run_id, "done", selected=table[0][0], members=members,
                         selection={"best": table[0][0], "objective": "f1", "target": None,
                                    "reason": "best dev F1", "rows": rows}, seconds=567.0)
        project.finish_run(run_id, "done", run.metrics())
        set_active_run(project, run_id)
    return path


def cut_titles(table) -> list[str]:
    """The column titles of ``table`` cut off: in a column narrower than
    the title and the style's margins around it, or not all in sight."""
    header = table.horizontalHeader()
    cut = []
    for c in range(table.columnCount()):
        left, width = header.sectionViewportPosition(c), header.sectionSize(c)
        if width < header.sectionSizeHint(c) or left < 0 or left + width > table.viewport().width():
            cut.append(table.horizontalHeaderItem(c).text().replace("\n", " "))
    return cut


def test_the_results_show_every_title_whole(qtbot, settings, monkeypatch, walked_run):
    w = opened(qtbot, settings, monkeypatch, walked_run, WALK_SIZE)
    t = w.training
    assert t.tabs.tabText(t.tabs.currentIndex()) == "Results"      # a finished run's results
    table = t.results_table
    qtbot.waitUntil(lambda: table.rowCount() == 10)
    assert table.item(0, 0).text() == "★ transformer-imbalanced"
    assert cut_titles(table) == []
    assert cut_titles(t.error_table) == []
    # The walkthrough read 0.987 on the Progress chart and 0.868 here: which is which, said.
    f1 = next(c for c in range(table.columnCount())
              if table.horizontalHeaderItem(c).text() == "Dev\nF1")
    assert "Progress chart's dev F1 is each model alone" in table.horizontalHeaderItem(f1).toolTip()
    assert t.f1_chart.title == "Dev F1, each model alone"
    # Still a table to read: a row a candidate, its name whole.
    assert table.horizontalHeader().sectionSize(0) >= \
        table.fontMetrics().horizontalAdvance("★ transformer-imbalanced")
    screenshot(w, "training_results_titles")
    # The details for experts unfolded leave the table rows to read (a
    # walkthrough's left it one): they scroll past a few lines.
    click(qtbot, t.details_button)
    assert t.details_label.isVisible()
    qtbot.wait(50)
    assert table.viewport().height() >= 3 * table.rowHeight(0)
    screenshot(w, "training_results_details")


@pytest.fixture(scope="module")
def trained(notes, tmp_path_factory):
    """A copy of ``notes`` with a quick run of the CRF and the rules."""
    import shutil

    from app.project import Project
    from app.services.training import TrainConfig, train_project
    path = tmp_path_factory.mktemp("trained") / "ward.deid"
    shutil.copy(notes, path)
    with Project.open(path) as project:
        train_project(project, TrainConfig(models=["crf", "rules"], variants=["balanced"],
                                           budget="quick", ensembles=["voting"]))
    return path


def test_the_errors_show_every_title_and_their_context(qtbot, settings, monkeypatch, trained):
    w = opened(qtbot, settings, monkeypatch, trained, WALK_SIZE)
    t = w.training
    errors = t.error_table
    assert cut_titles(errors) == []
    click(qtbot, t.evaluate_button)
    qtbot.waitUntil(lambda: t.eval_label.text().startswith("Test notes: "), timeout=120000)
    assert errors.rowCount() > 0
    # What a miss shows is long ("1 word visible; another candidate hides
    # it"): whole in its tooltip, and the context keeps its room.
    assert cut_titles(errors) == []
    titles = [errors.horizontalHeaderItem(c).text() for c in range(errors.columnCount())]
    shown_column = titles.index("Detail")
    assert all(errors.item(r, shown_column).toolTip() == errors.item(r, shown_column).text()
               for r in range(errors.rowCount()))
    # Each false hit says what made it, in words (a rule, the lists, a model).
    made = {errors.item(r, shown_column).text() for r in range(errors.rowCount())
            if errors.item(r, 0).text() == "false hit"}
    assert made and all(m.startswith("made by ") for m in made)
    assert not any("-balanced" in m or ".v1" in m for m in made)          # in words
    screenshot(w, "training_results_errors")


def test_the_settings_column_shows_every_line_of_its_wrapped_notes(qtbot, settings, monkeypatch,
                                                                   walked_run):
    """A walkthrough read "The last quick run here took 8:5… / processor,
    with no GPU (1 data…": the estimate under the budget, wrapped to four
    lines after a run, kept the height of one and a half."""
    from app.gui.qt import QLabel
    w = opened(qtbot, settings, monkeypatch, walked_run, WALK_SIZE)
    t = w.training
    assert t.estimate_label.text().startswith("The last quick run here took")
    # Each budget's estimate in turn, at the walkthrough's size and on a 1366x768
    # laptop, where Standard's kept the height of Quick's (another walkthrough).
    for size in (WALK_SIZE, (1366, 768)):
        w.resize(*size)
        t.budget_box.setFocus()
        qtbot.keyClick(t.budget_box, Qt.Key_Home)
        for _ in range(t.budget_box.count()):
            qtbot.wait(50)
            label = t.estimate_label
            assert label.height() >= label.heightForWidth(label.width()) - 2, \
                (size, t.budget_box.currentText())
            qtbot.keyClick(t.budget_box, Qt.Key_Down)
    cut = [(label.text()[:40], label.height(), label.heightForWidth(label.width()))
           for label in t.findChildren(QLabel)
           if label.isVisible() and label.wordWrap() and label.text()
           and label.height() < label.heightForWidth(label.width()) - 2]
    assert cut == []
