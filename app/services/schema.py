"""The choices of a training run, in one light place the CLI and the GUI build from.

Model kinds come from the model registry's index (``app.models.base``,
nothing heavy imported), budgets from ``app.models.budget``; the objectives,
data variants, ensemble methods, meta-models and devices are declared here
once, each with the words a person sees. ``TrainConfig`` validates against
them, ``deid train`` takes its argument choices from them and the training
view its controls. Importing this module imports no NumPy, no model library.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping

from app.errors import UserError
from app.models.base import FIXED_KINDS, builtin_kinds
from app.models.budget import BUDGETS

#: Kinds trained on each data variant, with the search: every registered
#: kind but the fixed ones (the paper's three neural kinds, then the CRF).
BASE_KINDS: tuple[str, ...] = tuple(k for k in builtin_kinds() if k not in FIXED_KINDS)
#: The kinds a person picks from in the training view, and their words;
#: with a GPU, a run's members by default.
PICKABLE_KINDS: tuple[str, ...] = (*BASE_KINDS, "rules", "starter")
#: A run's members by default on the CPU. The neural kinds (spaCy, Stanza,
#: Flair) take hours there on the standard budget and add little on English
#: ICU notes, while these take minutes and gave the best PhysioNet model
#: (BENCHMARKS.md).
CPU_MODELS: tuple[str, ...] = ("crf", "rules", "starter")
#: A run's members by default on a CPU that multiplies bfloat16 in hardware
#: (AMX or AVX512-BF16, ``DeviceInfo.cpu_bf16``): the fine-tuned transformer
#: too. There its standard fit of a PhysioNet fold took 8 minutes on 2 cores
#: of an EPYC (three passes, session 38; the whole default run 13-14) and a
#: model holding it annotated 20,000-30,000 characters a second, within the
#: bars of issue 32; what it bought on the five PhysioNet folds is said once,
#: where the training view tells it (`transformer_cost`; BENCHMARKS.md).
#: Elsewhere its fit runs in float32, slower, and it stays one tick away.
CPU_BF16_MODELS: tuple[str, ...] = (*CPU_MODELS, "transformer")
#: The neural kinds, slow without a GPU (what the training view warns of).
NEURAL_KINDS: tuple[str, ...] = tuple(k for k in PICKABLE_KINDS if k not in CPU_MODELS)
KIND_LABELS = {"rules": "rules (no training)", "crf": "crf (features, fast)",
               "transformer": "transformer (MiniLM)",
               "starter": "starter (shipped, English)"}

VARIANTS = ("balanced", "imbalanced")
DEVICES = ("auto", "cpu", "cuda")
BUDGET_LABELS = {"quick": "Quick — one try per model",
                 "standard": "Standard — small hyperparameter search",
                 "full": "Full — thorough search (slowest)"}
assert tuple(BUDGET_LABELS) == BUDGETS

#: Selection objectives (app.ensemble.selection) and their words. Every one
#: but f1 is recall-first: pruning and the recall fill weigh recall as F2
#: does, and stacking decisions get a tuned weight on O.
OBJECTIVE_LABELS = {
    "privacy": "Privacy: best F1 hiding ≥ target of identifier words",
    "f1": "Best F1 (balanced precision and recall)",
    "f2": "Recall first (F2)",
    "precision_at_recall": "Best precision with recall ≥ target",
    "precision_at_token_recall": "Best precision hiding ≥ target of identifier words",
}
OBJECTIVES: tuple[str, ...] = tuple(OBJECTIVE_LABELS)
#: The objectives constrained by a recall target.
TARGETED = ("privacy", "precision_at_recall", "precision_at_token_recall")
#: The targeted objectives whose target is a share of identifier tokens.
TOKEN_TARGETED = ("privacy", "precision_at_token_recall")

ENSEMBLE_LABELS = {"voting": "Majority voting", "pruned": "Pruned voting", "stacking": "Stacking"}
ENSEMBLES: tuple[str, ...] = tuple(ENSEMBLE_LABELS)
META_MODEL_LABELS = {"lr": "Logistic regression", "svm": "Linear SVM", "xgb": "XGBoost"}
META_MODELS: tuple[str, ...] = tuple(META_MODEL_LABELS)


def default_models(device: str, cpu_bf16: bool = False) -> list[str]:
    """The members of a run on ``device`` (``"cpu"`` or ``"cuda"``, as
    ``app.models.device.resolve_device`` answers) when none are named: every
    pickable kind with a GPU, without one ``CPU_BF16_MODELS`` where the CPU
    multiplies bfloat16 in hardware (``cpu_bf16``), else ``CPU_MODELS``. The run adds
    ``lists`` when the project has hospital lists and leaves the English
    ``starter`` out of other projects (``app.services.training.plan_run``)."""
    if device == "cuda":
        return list(PICKABLE_KINDS)
    return list(CPU_BF16_MODELS if cpu_bf16 else CPU_MODELS)


def kind_label(kind: str) -> str:
    """The words the training view shows for model ``kind``."""
    return KIND_LABELS.get(kind, kind)


def member_name(kind: str, variant: str | None) -> str:
    """A member's name: its kind, and its data variant when it has one."""
    return kind if variant is None else f"{kind}-{variant}"


#: The folds of cross-fitting when a person asks for it without a number
#: (the Train view's box): each patient's notes tagged by a fit on 80 % of the others.
CROSS_FIT_FOLDS = 5


@dataclass
class TrainConfig:
    """What to train; stored with the run so it can be reproduced."""

    # None: the default members for the device the run uses (default_models),
    # set by plan_run, so a stored run names the members it really trained.
    models: list[str] | None = None
    variants: list[str] = field(default_factory=lambda: list(VARIANTS))
    device: str = "auto"
    budget: str = "standard"
    seed: int = 13
    # One of OBJECTIVES. "privacy": the best strict F1 among candidates that
    # hide recall_target of the identifier tokens on dev (see docs/ARCHITECTURE.md).
    objective: str = "privacy"
    recall_target: float = 0.99
    # Flair with the vendored MiniLM's embeddings, frozen; None = only on a GPU
    # (the MiniLM fine-tuned end to end is the ``transformer`` model kind).
    flair_minilm: bool | None = None
    ensembles: list[str] = field(default_factory=lambda: list(ENSEMBLES))
    meta_models: list[str] = field(default_factory=lambda: list(META_MODELS))
    folds: int = 5
    # Dev-score margin within which the cheapest candidate (members' dev
    # tagging time) is selected; 0 = always the best score.
    cost_tolerance: float = 0.002
    # Members trained at once, each in its own process (1 = one after
    # another in this process). Worth it with a GPU or many cores.
    jobs: int = 1
    # The safety stop on the clock for the whole run, in minutes, replacing
    # the budget's; when it fires the run says so (members' clock_stop).
    max_minutes: float | None = None
    # Reuse the trained members of the project's active run (same data
    # split) instead of training them again: only the members it lacks are
    # trained, then the ensembles and the selection are redone (e.g. for
    # another objective) in minutes rather than hours.
    reuse_members: bool = False
    # Learn on dev which members' spans of which labels are added where the
    # selected candidate found nothing (app.ensemble.fill).
    fill: bool = True
    # Learn on dev which labels' predicted strings are tagged again wherever
    # they recur in a note (app.ensemble.propagation).
    propagate: bool = True
    # Once the selection is made, fit the members that can (the CRF, and the
    # transformer on a GPU: ``ModelSpec.refits``) again on train + dev with the params
    # their search chose (``refit_params``): what predicts learned from every
    # annotated note, not only the training split's (dev scores and the
    # selection stay those of the models before; see docs/ARCHITECTURE.md).
    refit: bool = True
    # Folds of cross-fitting (app.services.crossfit): the ensembles are fitted
    # and the model chosen on every annotated note, each tagged by members
    # trained without its patient; 0: on the dev split alone.
    cross_fit: int = 0
    # What the shipped starter replaces on day one stays replaced: every
    # candidate's output covers its spans (app.services.predictor.StarterFloor;
    # English projects whose starter is on). False: the trained model alone.
    starter_floor: bool = True
    # Member sets the user picks, built over beside the three built-in
    # groups: {name: [model kinds or member names]}, a kind standing for each
    # of its trained variants (e.g. {"fast": ["spacy", "crf", "rules"]} for
    # an ensemble that leaves the slowest member out).
    groups: dict[str, list[str]] = field(default_factory=dict)

    def validate(self) -> None:
        """Raise ``UserError`` for a choice a run cannot take. Models left to
        the device (``None``) and the groups over them are checked once
        ``plan_run`` has named them."""
        from app.models.base import known_kinds
        if self.device not in DEVICES:
            raise UserError(f"unknown device {self.device!r} (use {', '.join(DEVICES)})")
        if self.models is not None:
            kinds = known_kinds()
            bad = [m for m in self.models if m not in kinds]
            if bad:
                raise UserError(f"unknown model(s): {', '.join(bad)} (known: {', '.join(kinds)})")
            if not self.models:
                raise UserError("no models to train")
        bad = [v for v in self.variants if v not in VARIANTS]
        if bad or not self.variants:
            raise UserError(f"data variants must be among {', '.join(VARIANTS)}")
        if self.budget not in BUDGETS:
            raise UserError(f"unknown budget {self.budget!r} (use {', '.join(BUDGETS)})")
        if not 0 <= self.seed < 2 ** 32:
            # numpy's generators take none other: it failed after the members trained.
            raise UserError(f"the seed must be a whole number from 0 to {2 ** 32 - 1:,}")
        bad = [e for e in self.ensembles if e not in ENSEMBLES]
        bad += [m for m in self.meta_models if m not in META_MODELS]
        if bad:
            raise UserError(f"unknown ensemble method(s): {', '.join(bad)} (use "
                            f"{', '.join(ENSEMBLES)}; meta-models {', '.join(META_MODELS)})")
        if self.objective not in OBJECTIVES:
            raise UserError(f"unknown objective {self.objective!r} (use {', '.join(OBJECTIVES)})")
        if self.objective in TARGETED and not 0.0 < self.recall_target <= 1.0:
            raise UserError("the recall target must be in (0, 1]")
        if not 0.0 <= self.cost_tolerance < 1.0:
            raise UserError("the cost tolerance must be in [0, 1)")
        if self.cross_fit and not 2 <= self.cross_fit <= 20:
            raise UserError("cross-fitting takes 2 to 20 folds (0: off)")
        if not 1 <= self.jobs <= 16:
            raise UserError("members trained at once (jobs) must be between 1 and 16")
        if self.max_minutes is not None and self.max_minutes <= 0:
            raise UserError("the time limit must be a positive number of minutes")
        for gname in self.groups:
            if not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", gname):
                raise UserError(f"group name {gname!r}: use 1-40 letters, digits, '_', '.' or '-'")
            if re.fullmatch(r"all|top\d+_(f1|recall)", gname):
                raise UserError(f"group name {gname!r} is taken by a built-in group")
        if self.models is None:
            return
        names = {member_name(k, v) for k in self.models if k not in FIXED_KINDS
                 for v in self.variants}
        for gname, entries in self.groups.items():
            unknown = [e for e in entries if e not in self.models and e not in names]
            if unknown:
                raise UserError(f"group {gname!r} names {', '.join(unknown)}, which this run does "
                                f"not train (models: {', '.join(self.models)})")
            # A kind stands for each of its variants' members.
            group = {m for e in entries for m in ([member_name(e, v) for v in self.variants]
                                                  if e in self.models and e not in FIXED_KINDS
                                                  else [e])}
            if len(group) < 2:
                raise UserError(f"group {gname!r} needs at least two members")

    def as_dict(self) -> dict:
        return asdict(self)


def config_from(values: Mapping[str, Any]) -> TrainConfig:
    """A ``TrainConfig`` from named choices, field by field: each of its
    fields found in ``values`` and not ``None`` (``deid train``'s arguments,
    a stored run's configuration); the others keep their defaults and names
    that are no field are ignored. Not validated (``TrainConfig.validate``)."""
    return TrainConfig(**{f.name: values[f.name] for f in fields(TrainConfig)
                          if values.get(f.name) is not None})
