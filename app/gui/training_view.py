"""Training screen: choose what to train, watch it learn, read the results.

The work runs on :class:`app.gui.workers.TaskRunner`. Cancel sets the run's
``CancelToken``: the next progress report raises
``Cancelled`` inside ``train_project``, which marks the run cancelled and
leaves the project as it was (the previous active model stays active).

Everything above the Qt classes is plain Python (device sentence, result
rows, error rows), testable without a display.
"""
from __future__ import annotations

import time
from dataclasses import replace
from html import escape
from typing import Sequence

# Imported in the GUI thread on purpose (see app.gui.workers): the worker
# thread should not be the first to import these.
import app.services.annotating  # noqa: F401
import app.services.evaluating  # noqa: F401
from app.core.progress import EPOCH, MEMBER_DONE, Progress
from app.errors import UserError
from app.gui.charts import BarChart, LineChart
from app.gui.qt import (QAbstractItemView, QCheckBox, QColor, QComboBox, QDoubleSpinBox, QFont,
                        QFormLayout, QFrame, QGridLayout, QGroupBox, QHBoxLayout, QHeaderView, QLabel,
                        QMessageBox, QPlainTextEdit, QPushButton, QScrollArea, QSizePolicy, QSpinBox,
                        QSplitter, Qt, QToolButton,
                        QTableWidget, QTableWidgetItem, QTabWidget, QTimer,
                        QVBoxLayout, QWidget, Signal, Slot, QProgressBar, guard_wheel)
from app.gui.workers import TaskRunner
from app.services.choice import model_words, plain_choice
from app.services.evaluating import dev_sample_note, evaluation_summary, stored_evaluation
from app.services.finishing import finishing_summary
from app.services.choice import made_by, model_namer
from app.services.splits import assign_splits, split_offer
from app.models.base import FIXED_KINDS
from app.models.device import DeviceInfo
from app.services.schema import (BUDGET_LABELS, CROSS_FIT_FOLDS, ENSEMBLE_LABELS,
                                 META_MODEL_LABELS, NEURAL_KINDS,
                                 OBJECTIVE_LABELS, PICKABLE_KINDS, TARGETED, TOKEN_TARGETED,
                                 VARIANTS,
                                 default_models, kind_label)
from app.services.crossfit import cost_note
from app.services.training import (TrainConfig, cost_notes, planned_members, starter_usable)
from app.core.words import count

#: Annotated notes the Train view reads for labels they leave unmarked when shown.
UNMARKED_NOTES = 3000
PREANNOTATE_TIP = ("Store the active model's predictions as suggestions on the next to-do "
                   "notes and rank them by member disagreement")
#: The evaluation errors' columns: in "Detail", what a miss leaves visible or
#: what made a false hit; the span in its context last.
ERROR_COLUMNS = ("Error", "Label", "Note", "Detail", "Context")
#: Columns of the results table (dev from the selection, test on request),
#: by their experts' short names.
RESULT_COLUMNS = ("Model", "Type", "Dev P", "Dev R", "Dev F1", "Dev token R", "Test P", "Test R",
                  "Test F1", "Test token R", "Train s", "Memory MB")
#: Each score's header ({} is Dev or Test: a word or two a line keep the
#: columns narrow) and tooltip ({} is dev or test).
_SCORES = {
    "P": ("{}\nprecision", "Of the spans it marked on the {} notes, the share that are "
                           "identifiers with the same start, end and label (strict precision)"),
    "R": ("{}\nrecall", "Of the identifiers of the {} notes, the share it found with the same "
                        "start, end and label (strict recall)"),
    "F1": ("{}\nF1", "The balance of precision and recall (strict F1): what models are ranked by. "
                      "Scored as the model redacts (with what day one replaced and the "
                      "hospital lists, where the run keeps them): the Progress chart's dev F1 "
                      "is each model alone, as it trains"),
    "token R": ("{}\nwords\nhidden", "Of the identifier words of the {} notes, the share it "
                                    "marks, whatever the label: what redaction hides (binary "
                                    "token recall)"),
}
#: What each column's header says, in two short lines, and its tooltip.
RESULT_HEADERS = {
    "Model": ("Model", "The candidate's name; point at one for what it is"),
    "Type": ("Kind", "A single model, the rules, or several models combined"),
    **{f"{split} {key}": (header.format(split), tip.format(split.lower()))
       for split in ("Dev", "Test") for key, (header, tip) in _SCORES.items()},
    "Train s": ("Training\nseconds", "How long it took to train"),
    "Memory MB": ("Memory\nMB", "The memory its training added to what DeID Studio already "
                                 "held (the most it held, less what it held when the training "
                                 "began)"),
}
assert tuple(RESULT_HEADERS) == RESULT_COLUMNS
#: The Kind column's words for each type of candidate.
KIND_WORDS = {"ensemble": "combined", "rules": "rules", "base model": "single model"}
#: What the "Select by" box shows of each objective (its sentence is shown under it).
OBJECTIVE_SHORT = {"privacy": "Privacy first (the target)", "f1": "Misses = false alarms",
                   "f2": "Fewer misses", "precision_at_recall": "Fewest false alarms",
                   "precision_at_token_recall": "Fewest false alarms (words)"}
#: The name of the member group ticked under "Also over".
PICKED_GROUP = "picked"
#: The kinds that take hours without a GPU, in a person's words (the
#: transformer's time there is said on its own: `cost_notes`).
SLOW_WORDS = {"spacy": "spaCy", "stanza": "Stanza", "flair": "Flair"}
#: What the x axis of the training charts is: how far each member's training had gone.
TRAINING_AXIS = "each model's training, start to end →"
#: Project setting keeping the last training log (model names and figures, no note text).
LOG_KEY = "training.log"
LOG_KEPT = 500


# --------------------------------------------------------------- plain Python
def device_sentence(info, force_cpu: bool = False) -> str:
    """How the run will compute, in words ("CPU, 2 cores — no GPU found")."""
    cores = info.cpu_physical or info.cpu_logical
    cpu = f"CPU, {cores} core{'s' if cores != 1 else ''}" if cores else "CPU"
    if info.cpu_bf16:
        # Why the transformer is ticked on this CPU (`default_models`).
        cpu += ", bfloat16 in hardware"
    if info.cuda_available:
        memory = f" {round(info.cuda_total_memory / 2**30)} GB" if info.cuda_total_memory else ""
        gpu = f"{info.cuda_name}{memory}"
        if force_cpu:
            return f"{cpu} — GPU ({gpu}) not used: CPU forced"
        return f"{gpu} — training on GPU"
    if info.mps_available:
        return f"{cpu} — Apple GPU found but not used for training"
    return f"{cpu} — no GPU found"


def result_rows(run) -> list[dict]:
    """Rows of the results table: every candidate of ``run`` (a
    ``TrainedRun``) with its dev scores, what it is in words and, for base
    models, training time and memory."""
    rows = []
    for r in run.rows:
        m = run.members.get(r["name"])
        kind = "ensemble" if m is None else ("rules" if m.kind == "rules" else "base model")
        rows.append({"name": r["name"], "type": KIND_WORDS[kind],
                     "words": model_words(run, r["name"]), "precision": r["precision"],
                     "recall": r["recall"], "f1": r["f1"],
                     # Runs before token counts were stored have none.
                     "token_recall": (r.get("token") or {}).get("recall"),
                     "seconds": m.seconds if m else None,
                     # What its training added; a run stored before: the peak.
                     "memory_mb": None if m is None else
                     m.peak_mb if m.added_mb is None else m.added_mb})
    return rows


def running_words(members: Sequence[str]) -> str:
    """What the running members do: the rules, lists and the starter are
    only scored on dev, they learn nothing ("Training rules…" said otherwise)."""
    trained = [m for m in members if m not in FIXED_KINDS]
    scored = [m for m in members if m in FIXED_KINDS]
    parts = ([f"Training {', '.join(trained)}"] if trained else []) + \
        ([f"{'s' if trained else 'S'}coring {', '.join(scored)} on dev (no training needed)"]
         if scored else [])
    return "; ".join(parts) + "…"


def run_estimate(runs, budget: str, cores: int | None, gpu: bool = False,
                 slow: Sequence[str] = ()) -> str:
    """What the last finished run of ``budget`` in this project took, or why
    there is no estimate yet (``runs``: the project's training runs, newest
    first, as `Project.runs` gives them; ``slow``: the kinds ticked that take
    hours without a GPU)."""
    from app.services.runs import TrainedRun
    done = [run for run in map(TrainedRun.of, runs) if run.status == "done"
            and run.train_config().budget == budget and run.seconds is not None]
    if done:
        last = done[0]                      # the newest (a walkthrough read the first run's)
        notes = sum(last.documents.values())
        return (f"The last {budget} run here took {_clock(last.seconds)}"
                + (f" for {notes} annotated notes (train and dev)" if notes else "") + ".")
    none_yet = f"No {budget} run here yet to estimate from."
    if gpu or not slow:
        return none_yet
    where = f"{cores} CPU cores" if cores else "this computer"
    names = [SLOW_WORDS.get(k, k) for k in slow]
    named = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return (f"{none_yet} Without a GPU, on {where}, {named} take{'s' if len(names) == 1 else ''} "
            "hours.")


def _clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


# --------------------------------------------------------------- the view
def _notes_showing(privacy: dict | None) -> str:
    """How many test notes still show an identifier word, in a sentence ending
    in a space ("" for an evaluation kept before this was counted)."""
    if not privacy or "notes_with_visible_word" not in privacy:
        return ""
    return (f"{privacy['notes_with_visible_word']} of "
            f"{count(privacy['notes_with_identifiers'], 'note')} with identifiers still show "
            "an identifier word. ")


def _errors_in_words(errors: list) -> str:
    """The test errors in words: the identifiers that leave words visible,
    those hidden with other edges or another label (which strict scores
    count missed, and the error list calls inexact), the false hits."""
    missed = [e for e in errors if e.kind == "missed"]
    false = len(errors) - len(missed)
    if any(e.visible is None for e in missed):       # an evaluation kept before this was read
        return f"{count(len(missed), 'identifier')} missed, {count(false, 'false hit')}"
    visible = sum(1 for e in missed if e.visible)
    inexact = len(missed) - visible
    return (f"{count(visible, 'identifier')} {'leaves' if visible == 1 else 'leave'} words "
            f"visible, {inexact} more {'is' if inexact == 1 else 'are'} hidden with other "
            f"edges or another label, {count(false, 'false hit')}")


def _missed_in_words(missed: list, together: dict | None) -> str:
    """Where the test misses that leave words visible could be found, in a
    sentence ending in a space ("" for an evaluation kept before this was
    measured, or none visible)."""
    if not missed or any(e.visible is None for e in missed):
        return ""
    visible = [e for e in missed if e.visible]
    if not visible:
        return ""
    beyond = sum(e.elsewhere == 0 for e in visible)
    out = (f"Of those left visible, no candidate finds {beyond}: annotate more notes like "
           f"those" if beyond else "Another candidate finds each of those left visible")
    if together:
        out += (f"; every candidate together would hide {together['token_recall']:.1%} of the "
                "identifier words")
    return out + ". "


#: Characters of context before an error's span in its cell.
_CONTEXT_BEFORE = 10


def error_kind(e) -> str:
    """An error's kind as the error list shows it: a miss hidden whole under
    other edges or another label is "inexact", not "missed"."""
    return "inexact" if e.kind == "missed" and e.visible == 0 else e.kind


class TrainingView(QWidget):
    """Train a project's models and inspect the results.

    Signals
    -------
    open_span(int, int, int)
        Document id, start and end (code points) of an error the user activated.
    trained(object)
        The :class:`~app.services.runs.TrainedRun` of a finished run.
    preannotated(int)
        Number of notes that received suggestions.
    splits_changed()
        Notes without a split were split by patient.
    show_unlike()
        The user asked to see the notes to do unlike the annotated ones.
    message(str)
        A short status-bar message.
    """

    open_span = Signal(int, int, int)
    trained = Signal(object)
    preannotated = Signal(int)
    splits_changed = Signal()
    show_unlike = Signal()
    message = Signal(str)

    def __init__(self, project=None, parent=None, *, device_info=None) -> None:
        super().__init__(parent)
        self.project = None
        # Characters of the notes a run trains on (the transformer's time
        # follows them): read when the project opens and when the view is
        # shown, not at every tick of a setting.
        self._train_chars: int | None = None
        self.runner = TaskRunner(self)
        self.runner.progress.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(self._on_failed)
        self.runner.cancelled.connect(self._on_cancelled)
        self.last_result = None
        self.last_failure: str | None = None
        self.evaluation: dict | None = None
        self._selected: str | None = None
        self._started = 0.0
        self._cancelling = False
        self._fraction = 0.0
        # Members training now (several at once with "Members at once" > 1).
        self._running: list[str] = []
        self._model_bars: dict[str, QProgressBar] = {}
        # Probing devices imports torch (about a second): done when the view
        # is first shown (or a run needs it), not while the window starts.
        self.device_info = device_info
        self._build()
        if device_info is not None:
            self.force_cpu.setEnabled(device_info.cuda_available)
        self.set_project(project)

    # ---------------------------------------------------------------- build
    def _build(self) -> None:
        settings = QWidget()
        form = QVBoxLayout(settings)
        form.setContentsMargins(8, 8, 8, 8)

        device_box = QGroupBox("Compute")
        dl = QVBoxLayout(device_box)
        self.device_label = QLabel()
        self.device_label.setWordWrap(True)
        self.force_cpu = QCheckBox("Force CPU")
        self.force_cpu.setToolTip("Train on the CPU even when a GPU is available")
        self.force_cpu.setEnabled(False)          # until ensure_devices() finds a GPU
        self.force_cpu.toggled.connect(self._update_device_label)
        self.force_cpu.toggled.connect(self._follow_device_default)
        dl.addWidget(self.device_label)
        dl.addWidget(self.force_cpu)
        form.addWidget(device_box)

        model_box = QGroupBox("Base models")
        ml = QGridLayout(model_box)
        self.model_checks: dict[str, QCheckBox] = {}
        # The ticks the view itself put there as the device's default (None:
        # the user's or a run's choice): only those follow a change of device.
        self._default_ticks: set[str] | None = None
        for i, kind in enumerate(PICKABLE_KINDS):
            box = QCheckBox(kind_label(kind))
            if kind in NEURAL_KINDS:
                box.setToolTip("Slow on a CPU (hours on the standard budget): "
                               "ticked by default only with a GPU")
            # The transformer's tooltip says its time for the budget chosen (`_update_estimate`).
            self.model_checks[kind] = box
            ml.addWidget(box, i // 2, i % 2)
        self.variant_checks: dict[str, QCheckBox] = {}
        for i, variant in enumerate(VARIANTS):
            box = QCheckBox(f"{variant} data")
            box.setChecked(True)
            box.setToolTip("balanced: sentences without identifiers down-sampled; "
                           "imbalanced: every sentence")
            self.variant_checks[variant] = box
            ml.addWidget(box, (len(PICKABLE_KINDS) + 1) // 2, i)
        form.addWidget(model_box)

        ens_box = QGroupBox("Ensembles")
        el = QGridLayout(ens_box)
        self.ensemble_checks: dict[str, QCheckBox] = {}
        for i, (key, text) in enumerate(ENSEMBLE_LABELS.items()):
            box = QCheckBox(text)
            box.setChecked(True)
            self.ensemble_checks[key] = box
            el.addWidget(box, 0, i)
        el.addWidget(QLabel("Meta-models:"), 1, 0)
        self.meta_checks: dict[str, QCheckBox] = {}
        for i, (meta, text) in enumerate(META_MODEL_LABELS.items()):
            box = QCheckBox(text)
            box.setChecked(True)
            self.meta_checks[meta] = box
            el.addWidget(box, 2, i)
        self.ensemble_checks["stacking"].toggled.connect(
            lambda on: [b.setEnabled(on) for b in self.meta_checks.values()])
        # One group the user picks, beside all / best three by F1 / by recall.
        picked = QLabel("Also over:")
        picked.setToolTip("Build every ensemble also over just these models (group "
                          f"'{PICKED_GROUP}'), e.g. leave the slowest out for speed. "
                          "None ticked: only the built-in groups.")
        el.addWidget(picked, 3, 0)
        self.group_checks: dict[str, QCheckBox] = {}
        for i, kind in enumerate(PICKABLE_KINDS):
            box = QCheckBox(kind)
            self.group_checks[kind] = box
            el.addWidget(box, 4 + i // 3, i % 3)
            # Only a model being trained can be in the group.
            self.model_checks[kind].toggled.connect(box.setEnabled)
        self._tick_default_models()
        for kind, box in self.group_checks.items():
            box.setEnabled(self.model_checks[kind].isChecked())
        form.addWidget(ens_box)

        run_box = QGroupBox("Search and selection")
        rl = QFormLayout(run_box)
        self.budget_box = QComboBox()
        # No durations in the words: they depend on the notes, models and
        # cores; the estimate label says what this machine did.
        # The boxes show a short name, the sentence under them: a whole
        # sentence in a closed box was cut off in the settings column.
        for key, text in BUDGET_LABELS.items():
            self.budget_box.addItem(text.split(" — ")[0], key)
        self.budget_box.setCurrentIndex(self.budget_box.findData(TrainConfig().budget))
        self.budget_hint = QLabel()
        self.objective_box = QComboBox()
        for key in OBJECTIVE_LABELS:
            self.objective_box.addItem(OBJECTIVE_SHORT[key], key)
        self.objective_hint = QLabel()
        budget_words = {k: v.split(" — ", 1)[-1].capitalize() for k, v in BUDGET_LABELS.items()}
        for box, hint, words in ((self.budget_box, self.budget_hint, budget_words),
                                 (self.objective_box, self.objective_hint, OBJECTIVE_LABELS)):
            hint.setWordWrap(True)
            hint.setStyleSheet("color: #555;")
            box.setToolTip("\n".join(words.values()))
            box.currentIndexChanged.connect(
                lambda _i, b=box, h=hint, w=words: h.setText(w[b.currentData()]))
            box.currentIndexChanged.connect(self._fit_wrapped)
            hint.setText(words[box.currentData()])
        self.recall_target = QDoubleSpinBox()
        self.recall_target.setRange(0.5, 1.0)
        self.recall_target.setDecimals(3)
        self.recall_target.setSingleStep(0.01)
        self.recall_target.setValue(0.99)
        self.objective_box.currentIndexChanged.connect(self._update_objective)
        self.jobs_box = QSpinBox()
        self.jobs_box.setRange(1, 16)
        self.jobs_box.setValue(1)
        self.jobs_box.setToolTip("Members trained side by side, each in its own process. With a GPU "
                                 "or many cores, 3-4 cuts the training time to about that of the "
                                 "slowest member; on a small CPU keep 1.")
        self.reuse_check = QCheckBox("Reuse the last run's models")
        self.reuse_check.setToolTip("Keep the base models of the last run (same notes and split) and "
                                    "redo only the ensembles and the selection, e.g. to select by "
                                    "recall instead: minutes instead of hours.")
        rl.addRow("Budget:", self.budget_box)
        rl.addRow("", self.budget_hint)
        self.estimate_label = QLabel()
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setStyleSheet("color: #555;")
        rl.addRow("", self.estimate_label)
        rl.addRow("Members at once:", self.jobs_box)
        rl.addRow("", self.reuse_check)
        self.fill_check = QCheckBox("Add what single models found")
        self.fill_check.setChecked(True)
        self.fill_check.setToolTip("Add a member's finds where the selected model found nothing. "
                                   "Learned on dev, member and label at a time: kept only when it "
                                   "improves the selection score there (recall first).")
        rl.addRow("", self.fill_check)
        self.propagate_check = QCheckBox("Tag identifiers where they recur")
        self.propagate_check.setChecked(True)
        self.propagate_check.setToolTip("Tag a found identifier wherever it recurs in the note. "
                                        "Learned on dev, label by label: a label is propagated only "
                                        "when that improves the selection score there.")
        rl.addRow("", self.propagate_check)
        self.refit_check = QCheckBox("Refit on train + dev")
        self.refit_check.setChecked(True)
        self.refit_check.setToolTip("Once the model is selected, the CRF members, and a transformer "
                                    "trained on a GPU, learn from the dev notes too, with the "
                                    "settings they were selected with (the transformer: the epochs "
                                    "and threshold dev chose). The dev figures stay those of the "
                                    "models before, which had not seen dev.")
        rl.addRow("", self.refit_check)
        self.starter_floor_check = QCheckBox("Keep what day one replaced")
        self.starter_floor_check.setChecked(True)
        self.starter_floor_check.setToolTip(
            "English notes: what the starter model that ships with DeID Studio replaces before "
            "any training stays replaced; the trained model adds to it. On patients nobody here "
            "had read, a model chosen on a small dev split alone hid less than day one.")
        rl.addRow("", self.starter_floor_check)
        self.crossfit_check = QCheckBox("Choose on all notes (cross-fit)")
        self.crossfit_check.setToolTip(
            f"Each annotated note is tagged by models trained without its patient "
            f"({CROSS_FIT_FOLDS} folds: each trained model is fitted {CROSS_FIT_FOLDS} more times); "
            "the combinations are learned and the model chosen on all of them, not on the dev "
            f"notes alone. {cost_note(CROSS_FIT_FOLDS)} With the processor's default models it "
            "changed no figure that matters on the PhysioNet folds; it is meant for runs whose "
            "models differ, such as with the transformer.")
        rl.addRow("", self.crossfit_check)
        rl.addRow("Select by:", self.objective_box)
        rl.addRow("", self.objective_hint)
        # What the target is a share of: the Results' "words hidden" under the
        # privacy objectives, beside a strict recall a walkthrough took it for.
        self.target_label = QLabel("Words hidden ≥")
        rl.addRow(self.target_label, self.recall_target)
        form.addWidget(run_box)

        # Train and Cancel stay in sight under the settings, however far
        # they scroll (on a 1280x800 screen Train was below the fold).
        buttons = QHBoxLayout()
        buttons.setContentsMargins(8, 4, 8, 8)
        self.train_button = QPushButton("Train")
        self.train_button.setStyleSheet("font-weight: 600;")
        self.train_button.clicked.connect(self.start_training)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        buttons.addWidget(self.train_button)
        buttons.addWidget(self.cancel_button)

        loop_box = QGroupBox("Learning loop")
        loop = QVBoxLayout(loop_box)
        ll = QHBoxLayout()
        self.preannotate_count = QSpinBox()
        self.preannotate_count.setRange(1, 100000)
        self.preannotate_count.setValue(50)
        self.preannotate_button = QPushButton("Pre-annotate next notes")
        self.preannotate_button.setToolTip(PREANNOTATE_TIP)
        self.preannotate_button.clicked.connect(self.start_preannotate)
        # Training leaves the to-do notes' suggestions as the last model made
        # them: an annotator back in Annotate met the day-one model's
        # suggestions, and the queue ranked by its uncertainty.
        self.refresh_after_training = QCheckBox("Also after each training run")
        self.refresh_after_training.setChecked(True)
        self.refresh_after_training.setToolTip(
            "When a run's model is put in use, its suggestions replace the old ones on the "
            "next to-do notes of the queue (as many as the box says)")
        ll.addWidget(self.preannotate_button)
        ll.addWidget(self.preannotate_count)
        loop.addLayout(ll)
        # Its own line: beside the button it widened the settings, and the
        # Results table lost its last column on a small screen.
        loop.addWidget(self.refresh_after_training)
        form.addWidget(loop_box)
        form.addStretch(1)

        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_progress(), "Progress")
        self.tabs.addTab(self._build_results(), "Results")

        # The settings scroll on a short screen instead of making the view tall.
        settings_scroll = QScrollArea()
        settings_scroll.setWidgetResizable(True)
        settings_scroll.setFrameShape(QFrame.NoFrame)
        settings_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        settings_scroll.setWidget(settings)
        guard_wheel(settings)                  # the wheel scrolls the settings, not a choice
        settings_scroll.setMinimumWidth(settings.minimumSizeHint().width()
                                        + settings_scroll.verticalScrollBar().sizeHint().width())
        column = QWidget()
        cl = QVBoxLayout(column)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(settings_scroll, 1)
        # Above Train, in sight: a label the annotations leave mostly
        # unmarked is learned as no identifier (`unmarked_finds`).
        self.unmarked_label = QLabel()
        self.unmarked_label.setWordWrap(True)
        self.unmarked_label.setStyleSheet("color: #a40000; padding: 4px 8px;")
        self.unmarked_label.hide()
        cl.addWidget(self.unmarked_label)
        cl.addLayout(buttons)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(column)
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 1)
        split.setSizes([330, 800])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self._update_device_label()
        self._update_objective()
        # What a run of the settings shown costs follows them.
        for box in (*self.model_checks.values(), *self.variant_checks.values(),
                    self.refit_check, self.crossfit_check, self.force_cpu):
            box.toggled.connect(self._update_estimate)
        self.budget_box.currentIndexChanged.connect(self._update_estimate)
        self._update_estimate()

    def _build_progress(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.stage_label = QLabel("Not training.")
        self.stage_label.setStyleSheet("font-weight: 600;")
        self.overall_bar = QProgressBar()
        self.overall_bar.setRange(0, 1000)
        self.overall_bar.setFormat("overall %p%")
        self.time_label = QLabel("")
        layout.addWidget(self.stage_label)
        layout.addWidget(self.overall_bar)
        layout.addWidget(self.time_label)
        self.model_grid = QGridLayout()
        self.model_grid.setColumnStretch(1, 1)
        layout.addLayout(self.model_grid)
        charts = QHBoxLayout()
        # Each loss against its own first: a CRF's (thousands) and the
        # transformer's (about 1) on one scale left the second a flat line.
        self.loss_chart = LineChart("Training loss, each against its first", from_zero=True,
                                    x_caption=TRAINING_AXIS)
        self._first_loss: dict[str, float] = {}
        # Each member alone as it trains: the Results table's dev F1 is of
        # what the model redacts (with the day-one floor and the lists).
        self.f1_chart = LineChart("Dev F1, each model alone", (0.0, 1.0),
                                  x_caption=TRAINING_AXIS)
        charts.addWidget(self.loss_chart)
        charts.addWidget(self.f1_chart)
        layout.addLayout(charts, 2)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(5000)
        self.log.setFont(QFont("monospace"))
        layout.addWidget(self.log, 1)
        self._elapsed_timer = QTimer(self)
        self._elapsed_timer.setInterval(1000)
        self._elapsed_timer.timeout.connect(self._update_time)
        return page

    def _build_results(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.reason_label = QLabel("No trained model yet.")
        self.reason_label.setWordWrap(True)
        self.reason_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        layout.addWidget(self.reason_label)
        # What the run says of the notes unlike the annotated ones, made a step.
        self.unlike_button = QPushButton()
        self.unlike_button.setToolTip("Documents, filtered to the notes still to do that read "
                                      "unlike the annotated ones: annotate some of them and "
                                      "train again")
        self.unlike_button.setVisible(False)
        self.unlike_button.clicked.connect(self.show_unlike)
        layout.addWidget(self.unlike_button, 0, Qt.AlignLeft)
        # The experts' terms (candidate names, F2, what each finishing step
        # learned) stay folded under the plain sentence until asked for.
        self.details_button = QToolButton()
        self.details_button.setText("Details for experts")
        self.details_button.setCheckable(True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.details_button.setArrowType(Qt.RightArrow)
        self.details_button.setAutoRaise(True)
        self.details_label = QLabel()
        self.details_label.setWordWrap(True)
        self.details_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.details_label.setVisible(False)
        self.details_button.toggled.connect(self._show_details)
        layout.addWidget(self.details_button)
        # Scrolled past a few lines: unfolded whole, the details left the
        # results table one row (a walkthrough).
        self.details_area = QScrollArea()
        self.details_area.setWidget(self.details_label)
        self.details_area.setWidgetResizable(True)
        self.details_area.setFrameShape(QFrame.NoFrame)
        self.details_area.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self.details_area.viewport().setAutoFillBackground(False)
        self.details_label.setAutoFillBackground(False)
        self.details_label.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.details_area.setVisible(False)
        layout.addWidget(self.details_area)
        self.results_table = QTableWidget(0, len(RESULT_COLUMNS))
        # Headers of short lines ("Dev" over "words" over "hidden") keep twelve
        # columns narrow enough for the model names and all the figures to show.
        self.results_table.setHorizontalHeaderLabels([RESULT_HEADERS[c][0] for c in RESULT_COLUMNS])
        for c, column in enumerate(RESULT_COLUMNS):
            self.results_table.horizontalHeaderItem(c).setToolTip(RESULT_HEADERS[column][1])
        self.results_table.verticalHeader().setVisible(False)
        self.results_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.results_table.setSelectionBehavior(QAbstractItemView.SelectRows)
        header = self.results_table.horizontalHeader()
        # Each column as wide as its title or figures: a last column stretched
        # over the room left kept its default width when there was less, past
        # the table's edge ("M" of Memory MB).
        for c in range(len(RESULT_COLUMNS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        # No column narrower than a score with room around it: a short title
        # ("Test F1") is not pressed against its edges, and the test columns
        # keep their width once evaluated.
        header.setMinimumSectionSize(self.results_table.fontMetrics().horizontalAdvance("0.0000"))
        row = QHBoxLayout()
        self.evaluate_button = QPushButton("Evaluate on test split")
        self.evaluate_button.setToolTip("Score every candidate on the held-out test notes")
        self.evaluate_button.clicked.connect(self.start_evaluation)
        self.eval_label = QLabel("")
        self.eval_label.setWordWrap(True)
        row.addWidget(self.evaluate_button)
        row.addWidget(self.eval_label, 1)
        lower = QSplitter(Qt.Horizontal)
        self.label_chart = BarChart("Per label, test (strict)")
        self.error_table = QTableWidget(0, len(ERROR_COLUMNS))
        self.error_table.setHorizontalHeaderLabels(list(ERROR_COLUMNS))
        self.error_table.horizontalHeaderItem(ERROR_COLUMNS.index("Detail")).setToolTip(
            "A miss: its words a reader of the output would still see.\n"
            "A false hit: what made it (a rule you can switch off in Rules, the hospital "
            "lists, a model).")
        self.error_table.verticalHeader().setVisible(False)
        self.error_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.error_table.setSelectionBehavior(QAbstractItemView.SelectRows)
        # The first columns as wide as their titles until there are errors to
        # show, the context the room left, but never less than its title
        # ("Contex" showed beside four columns of a default width).
        errors_header = self.error_table.horizontalHeader()
        errors_header.setSectionResizeMode(ERROR_COLUMNS.index("Context"), QHeaderView.Stretch)
        errors_header.setMinimumSectionSize(max(errors_header.sectionSizeHint(c)
                                                for c in range(len(ERROR_COLUMNS))))
        self.error_table.resizeColumnsToContents()
        self.error_table.setWordWrap(False)
        self.error_table.verticalHeader().setDefaultSectionSize(22)
        self.error_table.setToolTip("Double-click or press Enter to open the note at this span")
        self.error_table.itemActivated.connect(self._on_error_activated)
        self.error_table.itemDoubleClicked.connect(self._on_error_activated)
        lower.addWidget(self.label_chart)
        lower.addWidget(self.error_table)
        # The error list's context needs the room more than the chart's bars
        # (at 1366 pixels it read "…IST…").
        lower.setSizes([340, 560])
        vsplit = QSplitter(Qt.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        # Said on the page, not only in the headers' tooltips: a walkthrough
        # read dev F1 0.99 on the chart beside 0.854 here, and exact recall
        # 0.966 beside 0.999 of the words hidden, with nothing to say why.
        self.results_note = QLabel(
            "Each model scored as it would redact: with what the starter model replaced on day "
            "one and the hospital lists, where the run keeps them (the Progress chart is each "
            "model alone, as it trained). Precision, recall and F1 count whole identifiers with "
            "the same start, end and label; words hidden counts the identifier words covered, "
            "whatever the label: what redaction hides.")
        self.results_note.setWordWrap(True)
        self.results_note.setStyleSheet("color: #555;")
        tl.addWidget(self.results_note)
        tl.addWidget(self.results_table, 1)
        vsplit.addWidget(top)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(row)
        bl.addWidget(lower, 1)
        vsplit.addWidget(bottom)
        layout.addWidget(vsplit, 1)
        return page

    # -------------------------------------------------------------- project
    def set_project(self, project) -> None:
        """Show ``project`` (``None`` to clear); cancels a running task first."""
        if self.runner.busy():
            self.runner.shutdown()
        self.project = project
        self._train_chars = project.annotated_characters() if project is not None else None
        self.evaluation = None
        self.last_result = None
        self.unmarked_label.hide()
        if project is not None and self.isVisible():
            self._update_unmarked()
        self._started = 0.0
        self._show_rows([], None, "No trained model yet.")
        self._show_evaluation(None)
        # Progress, log and figures are the project's own: nothing of the
        # previous project stays, and a restart shows the last run again.
        self.log.clear()
        self.stage_label.setText("Not training.")
        self.time_label.setText("")
        self.overall_bar.setValue(0)
        self.loss_chart.clear()
        self._first_loss.clear()
        self.f1_chart.clear()
        # The shipped starter is English: another project's runs cannot use it.
        usable = project is not None and starter_usable(project)
        starter = self.model_checks["starter"]
        starter.setEnabled(usable)
        starter.setToolTip("" if usable else "The shipped starter model is for English projects")
        self._tick_default_models()               # the active run's, below, if any
        if project is not None:
            self.log.appendPlainText("\n".join(project.get_setting(LOG_KEY) or []))
            self._load_active_run()
            if self._selected is not None:
                self._show_evaluation(stored_evaluation(project))
        self._update_estimate()
        self._update_buttons()

    def note_interrupted(self, run_ids: Sequence[int]) -> None:
        """Say that runs stopped unfinished last time (the program closed or
        was stopped while they trained): marked cancelled, the model in use kept."""
        runs = f"Run{'s' if len(run_ids) > 1 else ''} {', '.join(str(i) for i in run_ids)}"
        line = (f"{runs} stopped before finishing (the program was closed or stopped while "
                f"training): marked cancelled; the model in use stays. Train again to try once "
                f"more.")
        self._log(line)
        # The view opens on the results of the run in use: said there too.
        self._load_active_run(lead=[line])
        self.stage_label.setText(f"{runs} stopped before finishing: marked cancelled.")

    def _load_active_run(self, lead: Sequence[str] = ()) -> None:
        from app.services.runs import active_run
        try:
            run = active_run(self.project)
        except UserError:
            return
        self._show_rows(result_rows(run), run.selected, run.reason,
                        list(lead) + self._run_notes(run) + run.notes, plain_choice(run),
                        finishing_summary(run), run.selection.get("kept_over"))
        self.set_config(run.train_config())
        self.stage_label.setText(f"Showing the run in use (run {run.id}).")
        # A finished run: its results, not a progress of 0 % and empty charts.
        self.overall_bar.setValue(1000)
        self.tabs.setCurrentIndex(1)

    @staticmethod
    def _run_notes(run) -> list[str]:
        """The sample-size warning of a run's dev scores, if it needs one."""
        note = dev_sample_note(run)
        return [note] if note else []

    @Slot()
    def _update_estimate(self) -> None:
        """Say what a run of the settings shown costs: the time of the last
        run of its budget here, and what `deid train` says before a run of
        them (`cost_notes`: the transformer's time, cross-fitting's)."""
        config = self.config()
        # Until the devices are probed, a CPU, as the ticks assume (`_default_models`).
        info = self.device_info or DeviceInfo()
        # The transformer's box says what it costs on the processor (why it is
        # ticked there only where it computes in bfloat16), for this budget.
        transformer = self.model_checks["transformer"]
        chars = self._train_chars
        transformer.setToolTip("\n".join(cost_notes(
            replace(config, models=["transformer"], device="cpu", cross_fit=0), info, chars))
            + "\nTicked by default with a GPU, and on a processor that computes in bfloat16 "
              "(deid doctor says).")
        if self.project is None:
            self.estimate_label.setText("")
            self.estimate_label.setToolTip("")
            return
        cores = info.cpu_physical or info.cpu_logical
        gpu = info.cuda_available and not self.force_cpu.isChecked()
        slow = [k for k in SLOW_WORDS if k in config.models]
        notes = cost_notes(config, info, chars) if config.models else []   # none: the defaults'
        # Each note's first sentence; the figures after it in the tooltip.
        self.estimate_label.setText(" ".join(
            [run_estimate(self.project.runs("train"), config.budget, cores, gpu, slow)]
            + [note.split("\n")[0] for note in notes]))
        self.estimate_label.setToolTip("\n\n".join(notes))
        self._fit_wrapped()

    def _fit_wrapped(self) -> None:
        """The settings' wrapped sentences get the height their lines need:
        in the scrolled settings a form row kept the height of a shorter
        text, the estimate cut at its first and last lines (walkthroughs)."""
        for label in (self.objective_hint, self.estimate_label):
            if label.width() > 0 and label.text():
                label.setMinimumHeight(label.heightForWidth(label.width()))
            else:
                label.setMinimumHeight(0)

    def is_busy(self) -> bool:
        """Whether training, evaluation or pre-annotation is running."""
        return self.runner.busy()

    def shutdown(self) -> None:
        """Cancel and join any running task (call before closing the project)."""
        self.runner.shutdown()
        self._elapsed_timer.stop()
        self._update_buttons()

    def _update_buttons(self) -> None:
        busy = self.runner.busy()
        has_project = self.project is not None and not self.project.readonly
        trained = self._selected is not None
        self.train_button.setEnabled(has_project and not busy)
        # Asked once is enough: a second press while it stops did nothing.
        self.cancel_button.setEnabled(busy and self.runner.name in ("train", "preannotate")
                                      and not self._cancelling)
        self.evaluate_button.setEnabled(has_project and trained and not busy)
        self.preannotate_button.setEnabled(has_project and trained and not busy)
        # A greyed button says why (a walkthrough read only what it does).
        if not has_project:
            why = " (open a project you can change)"
        elif not trained:
            why = (" (after a training run: until then the notes keep the suggestions "
                   "they came in with)")
        elif busy:
            why = " (once the work under way ends)"
        else:
            why = ""
        self.preannotate_button.setToolTip(PREANNOTATE_TIP + why)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.project is not None and not self.is_busy():
            self._update_unlike()                  # notes done since in another view
            self._update_unmarked()
            self._train_chars = self.project.annotated_characters()
            # And what a fit of them then takes, once laid out: measured
            # before, the wrapped estimate kept a narrower width's height and
            # the rows below it covered its last lines.
            QTimer.singleShot(0, self._update_estimate)
        if self.device_info is None:
            # After this paint ("Detecting…"), in the GUI thread: a first import
            # of torch in a worker thread is unsafe (see app.gui.workers).
            QTimer.singleShot(0, self.ensure_devices)

    @Slot()
    def ensure_devices(self):
        """The :class:`~app.models.device.DeviceInfo`, probed on first use."""
        if self.device_info is None:
            from app.models.device import detect_devices
            self.device_info = detect_devices()
            self.force_cpu.setEnabled(self.device_info.cuda_available)
            if self.device_info.cuda_available and self.jobs_box.value() == 1:
                # spaCy on the CPU beside Stanza and Flair on the GPU, and the rules.
                self.jobs_box.setValue(4)
            self._update_device_label()
            self._update_estimate()
            self._follow_device_default()
        return self.device_info

    def _default_models(self) -> list[str]:
        """The default members of a run from this view, on the device it would use.

        Until ``ensure_devices`` has probed (the first time the view is
        shown: probing imports torch, about a second, kept out of the
        window's start-up) no GPU is known and the CPU's default is shown:
        right for most machines (and any without torch); a GPU, or a CPU that
        multiplies bfloat16 in hardware, found then swaps in its default
        while the ticks are still the view's own.
        """
        info = self.device_info
        gpu = info is not None and info.cuda_available and not self.force_cpu.isChecked()
        return default_models("cuda" if gpu else "cpu", info is not None and info.cpu_bf16)

    def _tick_default_models(self) -> None:
        """Tick the device's default models (those the project can use)."""
        default = self._default_models()
        for kind, box in self.model_checks.items():
            box.setChecked(kind in default and box.isEnabled())
        self._default_ticks = self._ticked_models()

    def _ticked_models(self) -> set[str]:
        return {k for k, b in self.model_checks.items() if b.isChecked()}

    @Slot()
    def _follow_device_default(self) -> None:
        """After a change of device, its default models, unless someone chose others."""
        if self._default_ticks is not None and self._ticked_models() == self._default_ticks:
            self._tick_default_models()

    @Slot()
    def _update_device_label(self) -> None:
        if self.device_info is None:
            self.device_label.setText("Detecting compute devices…")
            return
        self.device_label.setText(device_sentence(self.device_info, self.force_cpu.isChecked()))

    @Slot()
    def _update_objective(self) -> None:
        objective = self.objective_box.currentData()
        self.recall_target.setEnabled(objective in TARGETED)
        words = objective in TOKEN_TARGETED or objective not in TARGETED
        self.target_label.setText("Words hidden ≥" if words else "Recall ≥")
        self.recall_target.setToolTip(
            "The least share of the dev notes' identifier words the chosen model must hide "
            "(Results: Dev words hidden)" if words else
            "The least share of the dev notes' identifiers the chosen model must find whole "
            "(Results: Dev recall)")

    # --------------------------------------------------------------- config
    def config(self) -> TrainConfig:
        """The ``TrainConfig`` the controls describe."""
        return TrainConfig(
            models=[k for k, b in self.model_checks.items() if b.isChecked()],
            variants=[v for v, b in self.variant_checks.items() if b.isChecked()],
            device="cpu" if self.force_cpu.isChecked() else "auto",
            budget=self.budget_box.currentData(),
            jobs=self.jobs_box.value(),
            reuse_members=self.reuse_check.isChecked(),
            fill=self.fill_check.isChecked(),
            propagate=self.propagate_check.isChecked(),
            refit=self.refit_check.isChecked(),
            starter_floor=self.starter_floor_check.isChecked(),
            cross_fit=CROSS_FIT_FOLDS if self.crossfit_check.isChecked() else 0,
            objective=self.objective_box.currentData(),
            recall_target=self.recall_target.value(),
            ensembles=[k for k, b in self.ensemble_checks.items() if b.isChecked()],
            meta_models=[m for m, b in self.meta_checks.items() if b.isChecked()] or ["lr"],
            groups=({PICKED_GROUP: picked} if (picked := [k for k, b in self.group_checks.items()
                                                          if b.isChecked() and b.isEnabled()])
                    else {}))

    def set_config(self, config: TrainConfig) -> None:
        """Set the controls from ``config`` (tests, remembered settings)."""
        self._default_ticks = None                # a run's choice stays as it is
        # Probing devices imports torch: not for a project just opened.
        self.force_cpu.setChecked(config.device == "cpu" and self.device_info is not None
                                  and self.device_info.cuda_available)
        for key, box in self.model_checks.items():
            box.setChecked(key in (config.models or self._default_models()))
        for key, box in self.variant_checks.items():
            box.setChecked(key in config.variants)
        for key, box in self.ensemble_checks.items():
            box.setChecked(key in config.ensembles)
        for key, box in self.meta_checks.items():
            box.setChecked(key in config.meta_models)
        for key, box in self.group_checks.items():
            box.setChecked(key in config.groups.get(PICKED_GROUP, []))
        self.budget_box.setCurrentIndex(self.budget_box.findData(config.budget))
        self.jobs_box.setValue(config.jobs)
        self.reuse_check.setChecked(config.reuse_members)
        self.fill_check.setChecked(config.fill)
        self.propagate_check.setChecked(config.propagate)
        self.refit_check.setChecked(config.refit)
        self.starter_floor_check.setChecked(config.starter_floor)
        self.crossfit_check.setChecked(config.cross_fit > 0)
        self.objective_box.setCurrentIndex(self.objective_box.findData(config.objective))
        self.recall_target.setValue(config.recall_target)

    # ------------------------------------------------------------- training
    @Slot()
    def start_training(self) -> bool:
        """Validate the settings and start training; returns whether it started."""
        if self.project is None or self.runner.busy():
            return False
        self.ensure_devices()
        config = self.config()
        try:
            config.validate()          # also imports the model modules here, in the GUI thread
        except UserError as exc:
            self._log(f"Cannot train: {exc}")
            self.message.emit(str(exc))
            return False
        project = self.project

        def work(progress, cancel):
            from app.services.training import train_project
            return train_project(project, config, progress=progress, cancel=cancel)

        # The members the run will train, as the service plans them (on a CPU
        # the transformer trains one data variant).
        self._reset_progress(planned_members(project, config, self.device_info))
        self._log(f"Training {', '.join(config.models)} ({config.budget} budget) — "
                  f"{device_sentence(self.device_info, config.device == 'cpu')}")
        self.runner.start("train", work)
        self._elapsed_timer.start()
        self.tabs.setCurrentIndex(0)
        self._update_buttons()
        return True

    @Slot()
    def cancel(self) -> None:
        """Ask the running task to stop (training stops at its next report)."""
        if self.runner.busy():
            self.runner.cancel()
            self._cancelling = True
            self.stage_label.setText("Cancelling…")
            self.time_label.setText("Cancelling…")
            self._log("Cancel requested")
            self._update_buttons()

    def _reset_progress(self, names: list[str]) -> None:
        self._started = time.monotonic()
        self._cancelling = False
        self.log.clear()
        self._fraction = 0.0
        self._running = []
        self.last_failure = None
        self.overall_bar.setValue(0)
        self.loss_chart.clear()
        self._first_loss.clear()
        self.f1_chart.clear()
        while self.model_grid.count():
            item = self.model_grid.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self._model_bars = {}
        for i, name in enumerate([*names, "ensembles"]):
            bar = QProgressBar()
            bar.setRange(0, 1000)
            bar.setValue(0)
            bar.setFormat("waiting" if name != "ensembles" else "after the models")
            bar.setMaximumHeight(16)
            self.model_grid.addWidget(QLabel(name), i, 0)
            self.model_grid.addWidget(bar, i, 1)
            self._model_bars[name] = bar
        self.stage_label.setText("Starting…")
        self.time_label.setText("")

    def _keep_log(self) -> None:
        """Keep the log in the project, shown again after a restart."""
        if self.project is not None and not self.project.readonly:
            lines = self.log.toPlainText().splitlines()[-LOG_KEPT:]
            self.project.set_setting(LOG_KEY, lines)

    def _log(self, text: str) -> None:
        stamp = _clock(time.monotonic() - self._started) if self._started else "--:--"
        self.log.appendPlainText(f"[{stamp}] {text}")

    @Slot(object)
    def _on_progress(self, p: Progress) -> None:
        if self.runner.name == "preannotate":
            self.stage_label.setText(f"Pre-annotating… {p.fraction:.0%}")
            self.overall_bar.setValue(int(p.fraction * 1000))
            return
        if self.runner.name != "train":
            return
        self._fraction = p.fraction
        self.overall_bar.setValue(int(p.fraction * 1000))
        bar = self._model_bars.get(p.model) if p.model else None
        if p.kind == MEMBER_DONE and bar is not None:
            # The service's own report once a member is trained and scored.
            self._finish_bar(p.model)
            if p.model in self._running:
                self._running.remove(p.model)
        elif bar is not None and p.model_fraction is not None:
            if p.model not in self._running:
                self._running.append(p.model)
            bar.setValue(int(p.model_fraction * 1000))
            bar.setFormat(f"%p%{f'  epoch {p.epoch}' if p.epoch else ''}")
        if p.stage == "ensemble":
            ens = self._model_bars.get("ensembles")
            if ens is not None:
                ens.setRange(0, 0)          # busy: the ensemble step reports no fraction
            self.stage_label.setText("Building and scoring ensembles…")
        elif p.stage == "crossfit":
            self.stage_label.setText(f"Cross-fitting: {p.model_fraction or 0:.0%}")
        elif self._running:
            self.stage_label.setText(running_words(self._running))
        # Each loss reported is a point (a step's, an iteration's or an
        # epoch's: models report only losses that are one), placed at how far
        # the member's training had gone, so members reporting steps and
        # epochs share the axis (one point per epoch made the transformer's
        # first epoch one dot).
        at = p.model_fraction
        if p.loss is not None and p.model:
            first = self._first_loss.setdefault(p.model, float(p.loss))
            if first > 0:
                self.loss_chart.add_point(p.model, float(p.loss) / first, x=at)
        if p.kind == EPOCH and p.dev_f1 is not None and p.model:
            self.f1_chart.add_point(p.model, float(p.dev_f1), x=at)
        elif p.kind == MEMBER_DONE and p.dev_f1 is not None and p.model \
                and not self.f1_chart.series.get(p.model):
            # A member scored on dev only once trained (the CRF, the rules):
            # its one point, at its end, not "no data yet".
            self.f1_chart.add_point(p.model, float(p.dev_f1), x=1.0)
        if p.message:
            extra = ""
            if p.loss is not None:
                extra += f"  loss {float(p.loss):.2f}"
            if p.dev_f1 is not None:
                extra += f"  dev F1 {p.dev_f1:.3f}"
            self._log(f"{p.model or p.stage}: {p.message}{extra}")
        self._update_time()

    def _finish_bar(self, name: str) -> None:
        bar = self._model_bars[name]
        bar.setRange(0, 1000)
        bar.setValue(1000)
        bar.setFormat("done")

    @Slot()
    def _update_time(self) -> None:
        if self.runner.name != "train" or not self.runner.busy():
            return
        elapsed = time.monotonic() - self._started
        text = f"Elapsed {_clock(elapsed)}"
        if self._cancelling:
            text += "  ·  cancelling"
        elif self._fraction > 0.02:
            left = elapsed * (1 - self._fraction) / self._fraction
            text += f"  ·  about {_clock(left)} left"
        self.time_label.setText(text)

    @Slot(object)
    def _on_finished(self, result) -> None:
        self._elapsed_timer.stop()
        if self.runner.name == "train":
            self.last_result = result
            for name in self._model_bars:
                if name == "ensembles" or name in result.members:
                    self._finish_bar(name)
                else:
                    # Planned, but the notes left it out (balanced data that is
                    # the imbalanced data again: the log says so).
                    self._model_bars[name].setFormat("not trained")
            self.overall_bar.setValue(1000)
            from app.services.runs import active_run_id
            used = active_run_id(self.project) == result.id
            self.stage_label.setText(f"Done in {_clock(result.seconds)} — "
                                     + (f"selected {result.selected}" if used
                                        else "the model in use stays"))
            for note in ([result.device_note] if result.device_note else []) + result.notes:
                self._log(note)
            self._log(f"Selected {result.selected}: {result.reason}")
            if used:
                self._show_rows(result_rows(result), result.selected, result.reason,
                                self._run_notes(result) + result.notes, plain_choice(result),
                                finishing_summary(result), result.selection.get("kept_over"))
            else:
                # The better model stays in use: show it, and say why first.
                self._load_active_run(lead=result.notes[-1:])
            self.time_label.setText(f"Took {_clock(result.seconds)}")
            self._keep_log()
            self._update_estimate()
            self._show_evaluation(None)
            self.tabs.setCurrentIndex(1)
            self.message.emit("Training finished: Results says which model is used and why"
                              if used else
                              "Training finished: the better model in use stays (see Results)")
            self._update_buttons()
            self.trained.emit(result)
            if used and self.refresh_after_training.isChecked() and self._has_todo():
                self._log(f"Suggesting on the next {count(self.preannotate_count.value(), 'note')} "
                          "of the queue with the model now in use")
                self.start_preannotate()
        elif self.runner.name == "evaluate":
            self._show_evaluation(result)
            self._update_buttons()
        else:                                                  # pre-annotation: a count
            self.stage_label.setText(f"Pre-annotated {count(result, 'note')}.")
            self.overall_bar.setValue(1000)
            self.message.emit(f"Pre-annotated {count(result, 'note')}")
            self._update_buttons()
            self.preannotated.emit(int(result))

    @Slot(str)
    def _on_failed(self, reason: str) -> None:
        self.stage_label.setText(f"Failed: {reason}")
        self.eval_label.setText(f"Failed: {reason}")
        self._stopped(reason)

    @Slot()
    def _on_cancelled(self) -> None:
        self.stage_label.setText("Cancelled — the previous model (if any) stays active.")
        for bar in self._model_bars.values():
            if bar.maximum() == 0:
                bar.setRange(0, 1000)
            if bar.value() < 1000:
                bar.setFormat("cancelled")
        self._stopped("cancelled")

    def _stopped(self, reason: str) -> None:
        """A run, evaluation or pre-annotation ended early: say so, keep the log."""
        self._elapsed_timer.stop()
        self.last_failure = reason
        if self.runner.name == "train":
            # No "about 41:51 left" from a run that is over.
            self.time_label.setText(f"Stopped after {_clock(time.monotonic() - self._started)}"
                                    if self._started else "")
        self._log(f"Stopped: {reason}")
        self._keep_log()
        self.message.emit(f"Stopped: {reason}")
        self._update_buttons()

    # -------------------------------------------------------------- results
    def _show_rows(self, rows: list[dict], selected: str | None, reason: str,
                   notes: Sequence[str] = (), plain: str = "",
                   finishing: Sequence[str] = (), kept_over: str | None = None) -> None:
        """The results: the plain sentence, ``notes``, the details and the
        table; ``kept_over``: the candidate that ranked first on dev, when
        the selected one was kept over it (its row says so)."""
        self._selected = selected
        self._rows = rows
        # One plain sentence first, then what a person must know (``notes``);
        # the selection's own terms and what the finishing steps learned
        # (F2, strict scores) are the details.
        text = f"<b>{escape(plain)}</b>" if plain else ""
        for line in notes:
            text += "<br>" + escape(line)
        if not selected and not plain:
            text = escape(reason)
        self.reason_label.setText(text)
        self._update_unlike()
        self.details_label.setText(
            f"<small>{escape(selected)} — {escape(reason)}"
            + "".join("<br>" + escape(line) for line in finishing) + "</small>"
            if selected else "")
        self.details_button.setVisible(bool(selected))
        self._show_details(self.details_button.isChecked())
        table = self.results_table
        table.setRowCount(len(rows))
        bold = QFont(table.font())
        bold.setBold(True)
        for i, r in enumerate(rows):
            name = ("★ " if r["name"] == selected else "") + r["name"]
            token = r["token_recall"]
            cells = [name, r["type"], f"{r['precision']:.3f}", f"{r['recall']:.3f}",
                     f"{r['f1']:.3f}", "" if token is None else f"{token:.3f}", "", "", "", "",
                     "" if r["seconds"] is None else f"{r['seconds']:.1f}",
                     "" if r["memory_mb"] is None else f"{r['memory_mb']:.0f}"]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0:
                    tip = r["words"][0].upper() + r["words"][1:]
                    if kept_over and r["name"] in (selected, kept_over):
                        # A ★ on a row with lower figures than the next: why.
                        tip += ("\n\nKept over " + kept_over + ", which ranked first on the dev "
                                "notes: see the sentence above the table"
                                if r["name"] == selected else
                                "\n\nRanked first on the dev notes; " + str(selected)
                                + " was kept over it: see the sentence above the table")
                    item.setToolTip(tip)
                if c >= 2:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if r["name"] == selected:
                    item.setFont(bold)
                    item.setBackground(QColor("#fff3c4"))
                table.setItem(i, c, item)
        self._update_buttons()

    def _update_unmarked(self) -> None:
        """Say which labels the annotated notes leave mostly unmarked where
        the rules find them: training would learn to leave them in clear.
        Read when the view is shown (a second per 2,000 annotated notes, in
        this thread: past ``UNMARKED_NOTES`` the run's own notes say it)."""
        from app.services.coverage import unmarked_finds
        annotated = sum(self.project.count_documents(status=s) for s in ("done", "reviewed"))
        found = unmarked_finds(self.project) if annotated <= UNMARKED_NOTES else []
        labels = " and ".join(label for label, _, _ in found)
        self.unmarked_label.setText(
            f"The annotated notes leave most of {labels} unmarked ("
            + "; ".join(f"{label}: {marked:,} of the rules' {n:,} finds marked"
                        for label, marked, n in found)
            + f"): training learns to leave {'it' if len(found) == 1 else 'them'} in clear. "
              "Mark them in the notes you annotate, or remove the label." if found else "")
        self.unmarked_label.setVisible(bool(found))

    def _update_unlike(self) -> None:
        """Offer the notes to do that the model in use found unlike the
        annotated ones, while some are left."""
        from app.services.familiarity import unlike_found, unlike_to_do
        left = unlike_to_do(self.project) if self.project is not None else []
        found = len(unlike_found(self.project)) if left else 0
        # The run's sentence counts what it found; some may be done since.
        self.unlike_button.setText(
            f"Show the {count(len(left), 'note')} to do unlike the annotated ones"
            if len(left) == found else f"Show the {len(left)} of them still to do")
        self.unlike_button.setVisible(bool(left))

    @Slot(bool)
    def _show_details(self, shown: bool) -> None:
        self.details_button.setArrowType(Qt.DownArrow if shown else Qt.RightArrow)
        self.details_label.setVisible(shown and bool(self._selected))
        self.details_area.setVisible(shown and bool(self._selected))
        self._fit_details()

    def _fit_details(self) -> None:
        """The details as high as their lines, up to eight: past that they
        scroll, and the results table keeps its rows."""
        label, area = self.details_label, self.details_area
        most = label.fontMetrics().lineSpacing() * 8
        need = label.heightForWidth(max(area.viewport().width(), 200))
        area.setFixedHeight(min(most, need if need > 0 else label.sizeHint().height()))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.details_area.isVisible():
            self._fit_details()
        self._fit_wrapped()

    def selected_name(self) -> str | None:
        return self._selected

    @Slot()
    def start_evaluation(self) -> bool:
        """Score every candidate on the test split in a worker."""
        if self.project is None or self._selected is None or self.runner.busy():
            return False
        project = self.project
        offer = split_offer(project, "test")
        if offer is not None:
            # Notes imported without a split: there is nothing to test on yet.
            self._offer_split(offer)
            return False
        self.eval_label.setText("Evaluating on the test split…")
        self.runner.start("evaluate", lambda progress, cancel: evaluation_summary(project))
        self._update_buttons()
        return True

    def _offer_split(self, offer: str) -> None:
        """Ask to split the annotated notes without a split by patient."""
        answer = QMessageBox.question(
            self, "No test notes",
            offer.split(": `deid split", 1)[0] + "?\n\nThe model in use learned from some of "
            "them: train again after the split, then evaluate.",
            QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
        if answer != QMessageBox.Yes:
            self.eval_label.setText("No test notes: " + offer)
            return
        counts = assign_splits(self.project)
        self.eval_label.setText(
            f"Split by patient: {counts['train']} train, {counts['dev']} dev, {counts['test']} "
            "test notes. Train again, then evaluate on the test split.")
        self.message.emit("Notes split by patient: train again, then evaluate")
        self.splits_changed.emit()

    def _show_evaluation(self, summary: dict | None) -> None:
        self.evaluation = summary
        table = self.results_table
        if summary is None:
            self.eval_label.setText("Test figures: not computed (the test split is "
                                    "scored only on request).")
            self.label_chart.set_data({})
            self.error_table.setRowCount(0)
            return
        for i, r in enumerate(self._rows):
            scores = summary["table"].get(r["name"])
            for column, key in (("Test P", "precision"), ("Test R", "recall"), ("Test F1", "f1"),
                                ("Test token R", "token_recall")):
                c = RESULT_COLUMNS.index(column)
                item = table.item(i, c)
                if item is not None and scores is not None:
                    item.setText(f"{scores[key]:.3f}")
        micro = summary["micro"]
        missed = [e for e in summary["errors"] if e.kind == "missed"]
        # In words first; the strict scores, under the model's name, after.
        self.eval_label.setText(
            f"Test notes: the model hides {summary['token']['recall']:.1%} of the identifier "
            f"words; {_errors_in_words(summary['errors'])}. "
            f"{_notes_showing(summary.get('privacy'))}"
            f"{_missed_in_words(missed, summary.get('together'))}"
            f"({summary['model']}: strict precision {micro['precision']:.3f}, recall "
            f"{micro['recall']:.3f}, F1 {micro['f1']:.3f})")
        self.label_chart.set_data(
            {label: {k: v[k] for k in ("P", "R", "F1")} for label, v in summary["per_label"].items()},
            {label: f"n={v['support']}" for label, v in summary["per_label"].items()})
        errors = summary["errors"]
        self.error_table.setRowCount(len(errors))
        # What made a false hit, in words: a rule (which Rules can switch
        # off), the hospital lists, a model of this run.
        words = model_namer(self.project)
        for i, e in enumerate(errors):
            maker = made_by(e.made_by, words)
            detail = f"made by {maker}" if e.kind == "false hit" and maker else e.shown()
            # The cell starts near the span (at 1366 pixels the whole context
            # showed its first words only, never the span); the tooltip is whole.
            cells = [error_kind(e), e.label, e.doc_name, detail,
                     f"…{e.before[-_CONTEXT_BEFORE:]}[{e.span}]{e.after}…"]
            tips = {4: f"…{e.before}[{e.span}]{e.after}…"}
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.UserRole, i)
                if c >= 2:
                    item.setToolTip(tips.get(c, text))
                if e.kind == "missed" and e.visible != 0:    # red: a word a reader would see
                    item.setForeground(QColor("#a40000"))
                self.error_table.setItem(i, c, item)
        self.error_table.resizeColumnsToContents()
        # The note and what a miss shows are read whole in their tooltips: at
        # their full width they pushed the context out of sight.
        header = self.error_table.horizontalHeader()
        widest = self.error_table.fontMetrics().horizontalAdvance("0" * 12)
        for c in (2, 3):
            header.resizeSection(c, min(header.sectionSize(c), widest))
        header.setSectionResizeMode(ERROR_COLUMNS.index("Context"), QHeaderView.Stretch)

    @Slot(QTableWidgetItem)
    def _on_error_activated(self, item: QTableWidgetItem) -> None:
        if self.evaluation is None:
            return
        e = self.evaluation["errors"][item.data(Qt.UserRole)]
        self.open_span.emit(e.doc_id, e.start, e.end)

    # ----------------------------------------------------------- learning loop
    def _has_todo(self) -> bool:
        """Whether a note is still to do (to do or in progress)."""
        return any(self.project.document_infos(status=status, limit=1)
                   for status in ("todo", "in_progress"))

    @Slot()
    def start_preannotate(self) -> bool:
        """Pre-annotate the next N to-do notes with the active model."""
        if self.project is None or self._selected is None or self.runner.busy():
            return False
        project, limit = self.project, self.preannotate_count.value()

        def work(progress, cancel):
            from app.services.annotating import preannotate
            return preannotate(project, limit=limit, progress=progress, cancel=cancel)

        self._started = time.monotonic()
        self._cancelling = False
        self.stage_label.setText("Pre-annotating…")
        self.overall_bar.setValue(0)
        self.runner.start("preannotate", work)
        self._update_buttons()
        return True
