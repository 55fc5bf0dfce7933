"""Train a project's base models and ensembles, select one, store everything.

The whole learning step of the paper in one service (CLI and GUI call it),
as named stages (``train_project`` runs them in order):

1. *plan* (``plan_run`` -> ``RunPlan``): gold documents (train/dev; test is
   never read) -> balanced and imbalanced corpora over one document split;
   the members to train, the device, the ``Budget``;
2. *members* (``MemberStage``): every base model kind x data variant
   (``spacy-balanced``, ...) trained with the budget's hyperparameter
   search, plus the fixed kinds; each predicts the dev segments (data it
   did not train on) and is stored;
   *cross-fit* (with ``TrainConfig.cross_fit`` only, app.services.crossfit):
   every annotated note tagged by fits of the members without its patient;
   those tags take the place of the dev tags in the stages that follow,
   except the finishing steps, which stay learned on the dev split;
3. *ensembles* (``build_ensembles``): every ensemble spec
   (app.ensemble.specs: majority voting, pruned voting, stacking with LR,
   SVM, XGBoost) over the groups (all, best three by F1, best three by
   recall, the user's). Their dev scores come from K-fold cross-validation
   over dev *documents* (tuned on K-1 folds, predicted on the held-out
   fold), so a tuned ensemble does not win selection by having seen the
   answers; the deployed ensemble is then fitted on the whole dev set;
4. *select* (``settle_candidates``, ``select_candidate``): each candidate's
   dev output after the fixed steps of the project's floor its dev agrees
   with (app.lists.floor), then selection on dev by the chosen objective;
   *threshold* (``raise_threshold``): a selected member that tags at a
   threshold (the transformer) has it raised where its dev output, so
   written, hides every identifier word it hid with fewer false ones
   (app.services.finishing.fit_threshold);
5. *refit* (``refit_members``): the members whose training reads dev for
   nothing (the CRF) or only to choose its epochs and threshold (the
   transformer, fitted on a GPU) fitted again on train + dev with the params
   their search chose and what dev chose fixed, stored beside the scored
   ones; they are what predicts;
6. *finish* (``finish_run`` -> ``TrainedRun``): the finishing steps (recall
   fill, propagation, edge and unmarked words; app.services.finishing)
   learned on dev for the selected candidate, then the fixed steps chosen
   again on top of them; ensembles, the table and the reason stored in the
   project (run + artifacts, app.services.runs), the run made active.

Every dev figure of a run (members, ensembles, the selection, the finishing
steps) is of models that had not seen dev. The refit is the usual last step
of a model search (choose on held-out data, then learn from all of it): dev
is a third of the annotated notes on a small project, too much to leave out
of what predicts. The ensembles' combinations, fitted on the scored
members' dev outputs, are kept as they are.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

from app.core.progress import (MEMBER_DONE, MEMBER_STARTED, CancelToken, Cancelled, Progress,
                               ProgressFn, no_progress)
from app.core.spans import Document
from app.errors import UserError
from app.models.base import FIXED_KINDS, spec_class
from app.models.budget import Budget
from app.core.private import PrivateDir
from app.core.words import count
from app.services.familiarity import unfamiliar_notes, unlike_found
from app.services.members import MemberFit, MemberJob, fit_in_workers, fit_member
from app.services.schema import TARGETED, TOKEN_TARGETED, TrainConfig, default_models, member_name
from app.services.runs import (EnsembleRecord, MemberRecord, TrainedRun, active_run_id,
                               put_ensemble, put_member, put_refit)

# Part of the run's safety clock kept for dev predictions and the ensembles.
_ENSEMBLE_RESERVE = 0.1
# No member's safety stop comes sooner than this, even in an overrun run.
_MIN_MEMBER_SECONDS = 60.0
#: Below this dev precision a recall-targeted selection is called out in the
#: run's notes: the output would redact more text than identifiers.
LOW_PRECISION = 0.5


def gold_documents(project, splits: Sequence[str] = ("train", "dev", None)) -> list[Document]:
    """Annotated documents of the given splits, with their gold spans.

    A document counts as annotated when it is marked done/reviewed or has
    accepted spans; a 'to do' note with no span is not a negative example.
    """
    docs = []
    for info in project.document_infos():
        if info.split not in splits:
            continue
        spans = project.gold_spans(info.id)
        if not spans and info.status not in ("done", "reviewed"):
            continue
        rec = project.document(info.id)
        docs.append(Document(name=str(info.id), text=rec.text, spans=spans,
                             patient_id=rec.patient_id, split=rec.split))
    return docs


def low_precision_note(selection) -> str | None:
    """A warning when a recall target was met (or nearly) only by a candidate
    that tags mostly non-identifiers on dev; None otherwise."""
    if selection.objective not in TARGETED:
        return None
    top = selection.rows[0]
    kept = top.token if selection.objective in TOKEN_TARGETED else top.prf
    if kept.precision >= LOW_PRECISION:
        return None
    return (f"the recall target costs most of the text: on dev only {kept.precision:.0%} of "
            f"what {top.name} tags is an identifier; a lower target keeps the notes readable")


@dataclass
class RunPlan:
    """The *plan* stage's answer: what a run trains, on which data, where.

    ``members`` lists ``(kind, variant)`` in training order (variant
    ``None`` for the fixed kinds); ``dev`` is the dev part every member is
    scored on and every ensemble fitted on.
    """

    config: TrainConfig
    docs: list[Document]
    builds: dict
    variants: list[str]
    members: list[tuple[str, str | None]]
    device: str
    device_note: str | None
    budget: Budget
    reusable: dict
    notes: list[str] = field(default_factory=list)
    # The to-do notes unlike the annotated ones (`unfamiliar_notes`), most unlike first.
    unlike: list[int] = field(default_factory=list)
    # The segments the ensembles are fitted and the selection made on when
    # cross-fitting (app.services.crossfit): every annotated note's.
    selection_dev: list | None = None

    @property
    def dev(self) -> list:
        """What the ensembles are fitted and candidates scored on: the dev
        split, or every annotated note once cross-fitted."""
        return self.selection_dev if self.selection_dev is not None else self.split_dev

    @property
    def split_dev(self) -> list:
        """The dev split's segments."""
        return next(iter(self.builds.values())).corpus.dev

    def stored_config(self) -> dict:
        """The run's configuration as stored with it (reproducible)."""
        first = next(iter(self.builds.values()))
        return {**self.config.as_dict(), "device_used": self.device,
                "split_hashes": {v: b.split_hashes for v, b in self.builds.items()},
                "documents": {"train": len(first.train_docs), "dev": len(first.dev_docs)},
                "alignment": first.stats.as_dict(), "variants_trained": self.variants,
                "notes": self.notes}


def plan_run(project, config: TrainConfig) -> RunPlan:
    """Stage *plan*: check the configuration and the data, build the corpora.

    Raises ``UserError`` for what a person must fix (too few annotated notes,
    no dev data, members that cannot be reused), before anything is stored.
    """
    from app.models.budget import get_budget
    from app.models.datasets import build_corpora

    config.validate()
    device, device_note, defaults = device_defaults(config.device)
    if config.models is None:
        # Named here, so the stored run says what it trained.
        config.models = defaults
        config.validate()          # the groups over them
    config.models, notes = run_models(project, config.models, defaults)
    docs = gold_documents(project)
    if len(docs) < 2:
        raise UserError("training needs at least two annotated documents outside the test split")
    if not any(d.spans for d in docs):
        raise UserError("the annotated documents have no spans: nothing to learn")
    builds = build_corpora(docs, variants=config.variants, language=project.language,
                           seed=config.seed, labels=[l.name for l in project.labels()])
    variants = list(config.variants)
    if {"balanced", "imbalanced"} <= set(variants) and (
            builds["balanced"].counts["train_segments"] == builds["imbalanced"].counts["train_segments"]):
        # Balanced = PII lines + as many PII-free lines; with fewer PII-free
        # lines than PII lines it is the whole set again, and a second member
        # trained on it would only halve every member's time (MEDDOCAN).
        variants.remove("balanced")
        notes.append("balanced data = imbalanced data (no more PII-free lines than PII lines "
                     "to leave out): each model is trained once, on the imbalanced variant")
    if not next(iter(builds.values())).corpus.dev:
        raise UserError("no development data: annotate more documents or mark some as 'dev'")
    split_hashes = {v: b.split_hashes for v, b in builds.items()}
    reusable = _reusable_members(project, split_hashes) if config.reuse_members else {}
    # Said with the run's results too (they explain a label left in clear);
    # `deid train` and the Train view say it before the run as well.
    from app.services.coverage import unmarked_sentences
    from app.services.double_annotation import unadjudicated_sentence
    notes += unmarked_sentences(project, docs)
    notes += [said] if (said := unadjudicated_sentence(project)) else []
    return RunPlan(config, docs, builds, variants, run_members(config.models, variants, device),
                   device, device_note, get_budget(config.budget), reusable, notes)


def run_models(project, models: list[str], defaults: list[str]) -> tuple[list[str], list[str]]:
    """The kinds a run of ``models`` trains in ``project``, and what it says
    of them: the project's hospital lists join a run of the device's
    ``defaults``; the English starter is left out of other projects."""
    notes = []
    # The default kinds in any order (the Train view lists them its own way),
    # whether or not the starter is among them (a non-English project's
    # training view leaves it unticked).
    default = set(models) - {"starter"} == set(defaults) - {"starter"}
    if project.has_lists() and "lists" not in models and default:
        # A project's hospital lists are a member of its default runs.
        models = [*models, "lists"]
    if "starter" in models and not starter_usable(project):
        if not default:
            notes.append("starter left out: the shipped starter model is for English projects")
        models = [m for m in models if m != "starter"]
    return models, notes


def run_members(models: list[str], variants: list[str], device: str
                ) -> list[tuple[str, str | None]]:
    """``(kind, variant)`` of each member a run of ``models`` on the data
    ``variants`` trains on ``device``, in training order (variant ``None``
    for the fixed kinds)."""
    members = [(k, v) for k in models if k not in FIXED_KINDS
               for v in kind_variants(k, variants, device)]
    return members + [(k, None) for k in FIXED_KINDS if k in models]


def planned_members(project, config: TrainConfig, info=None) -> list[str]:
    """The names of the members a run of ``config`` trains in ``project``,
    in training order, as `plan_run` will list them before it reads the
    notes (it then trains the balanced variant only where it differs from
    the imbalanced one, and says so). ``info``: the `DeviceInfo` the run
    will find (probed when not given)."""
    device, _, defaults = device_defaults(config.device, info)
    models, _ = run_models(project, defaults if config.models is None else config.models,
                           defaults)
    return [member_name(k, v) for k, v in run_members(models, config.variants, device)]


def kind_variants(kind: str, variants: list[str], device: str) -> list[str]:
    """The data variants ``kind`` trains on ``device``: the run's, or on a
    CPU those of its spec's ``cpu_variants`` the run trains (at least one)."""
    from app.models.base import spec_class

    only = spec_class(kind).cpu_variants if device != "cuda" else None
    if only is None:
        return variants
    return [v for v in variants if v in only] or variants[:1]


def _duration(seconds: float) -> str:
    if seconds < 90:
        return "about a minute" if seconds > 30 else "under a minute"
    if seconds < 5400:
        return f"about {round(seconds / 60)} minutes"
    return f"about {seconds / 3600:.0f} hours"


def transformer_cost(budget: str, variants: int, device: str, refit: bool = True,
                     chars: int | None = None) -> str:
    """How long the transformer trains on ``device`` (``"cpu"``/``"cuda"``),
    in one plain sentence (with ``refit``, its refit on train + dev after the
    selection besides); on a CPU, with the GPU's time beside it and, on
    lines of their own, how fast a model using it then tags notes there and
    what its short CPU fit bought in the PhysioNet folds (BENCHMARKS.md).
    The time is at the rate of this computer's last fits of the same kind
    when one was recorded (`app.services.fit_speed`), and says so."""
    from app.models.transformer_ner import (REFIT_DEVICES, estimate_fit_seconds,
                                            estimate_tag_rate, fit_setup)
    from app.services.fit_speed import measured_rate, speed_key

    rate = measured_rate(speed_key(device, *fit_setup(device)))
    here = estimate_fit_seconds(budget, device, rate, chars) * variants
    where = "the GPU" if device == "cuda" else "this computer's processor, with no GPU"
    timed = ", timed from its last fits on this computer" if rate else ""
    note = (f"The transformer will train for {_duration(here)} on {where} "
            f"({variants} data variant{'s' if variants != 1 else ''}, {budget} budget{timed})")
    if refit and device in REFIT_DEVICES:
        # The refit reads every window for the epochs kept, dev's besides.
        note += ", and a little longer again once the model is chosen, to learn the dev notes too"
    if device != "cuda":
        note += (f"; with a GPU it takes {_duration(estimate_fit_seconds(budget, 'cuda') * variants)}"
                 f".\nWithout a GPU a model that uses it reads about "
                 f"{round(estimate_tag_rate(), -3):,.0f} characters of notes a second or more, "
                 f"taking about 1.7 times as long as one without it.\n"
                 f"On a processor it has time for three short passes over the notes with four "
                 f"of its six layers, starting from an encoder that learned identifiers from "
                 f"synthetic notes: in our tests on five folds of English notes, the model "
                 f"chosen with it hid 98.7 % of the identifiers' tokens against 97.7 % "
                 f"without it, and 9 of 389 notes leaked one against 17, at 89.7 % precision "
                 f"against 92.8 %")
    return note + "."


def device_defaults(requested: str, info=None) -> tuple[str, str | None, list[str]]:
    """The device a run asking for ``requested`` uses, the sentence saying
    why when it is not the one asked for (`resolve_device`), and the default
    members there (`default_models`: on a CPU, by whether it multiplies
    bfloat16 in hardware). ``info``: the `DeviceInfo` found (probed when
    not given)."""
    from app.models.device import detect_devices, resolve_device

    info = detect_devices() if info is None else info
    device, note = resolve_device(requested, info)
    return device, note, default_models(device, info.cpu_bf16)


def cost_notes(config: TrainConfig, info=None, chars: int | None = None) -> list[str]:
    """Plain sentences, said before a run starts, on what takes long on the
    device it will use (the transformer on a CPU, cross-fitting). ``info``:
    the `DeviceInfo` the run will find (probed when not given); ``chars``:
    the characters of the notes it trains on (`Project.annotated_characters`),
    which bound a small project's fit."""
    from app.models.transformer_ner import KIND
    from app.services.crossfit import cost_note

    device, _, defaults = device_defaults(config.device, info)
    notes = []
    if KIND in (config.models or defaults):
        notes.append(transformer_cost(config.budget,
                                      len(kind_variants(KIND, config.variants, device)), device,
                                      config.refit, chars))
    if config.cross_fit:
        notes.append(cost_note(config.cross_fit))
    return notes


def starter_usable(project) -> bool:
    """True when the shipped starter can be a member of ``project``'s runs."""
    from app.models.starter_model import available

    return project.language == "en" and available()


class MemberStage:
    """Stage *members*: train (or reuse) every member, tag dev with it, store it.

    Members train one after another in this process, or side by side in
    worker processes (``config.jobs``). Progress: each member's share of the
    bar is its kind's ``relative_cost``; the ensembles get one share after them.
    """

    def __init__(self, project, plan: RunPlan, work, report: ProgressFn,
                 cancel: CancelToken | None, started: float) -> None:
        from app.ensemble import gold_tags
        from app.services.lists import project_matcher

        self.project, self.plan, self.work = project, plan, work
        self.run_id: int | None = None          # set once the run is stored
        self.report, self.cancel = report, cancel
        self.dev_items = [(s.text, s.segment) for s in plan.dev]
        self.dev_gold = gold_tags(plan.dev)
        # What a lists member tags dev with: the project's lists, each note's patient.
        self.list_matcher, _ = project_matcher(project)
        self.list_patients = {d.text: d.patient_id for d in plan.docs}
        self.progress_weight = {member_name(k, v): spec_class(k).relative_cost
                                for k, v in plan.members}
        self.total_weight = sum(self.progress_weight.values()) + 1.0
        self.fractions: dict[str, float] = {}
        self.records: dict[str, MemberRecord] = {}
        self.dev_out: dict = {}
        self.retaggers: dict = {}                    # thresholded members' dev readings
        self.dev_scores: dict = {}                   # each member's dev PRF, scored once
        self.dev_seconds: dict[str, float] = {}      # each member's time to tag dev: its cost
        config = plan.config
        self.clock_seconds = config.max_minutes * 60.0 if config.max_minutes \
            else plan.budget.safety_seconds
        self.deadline = started + self.clock_seconds if self.clock_seconds else None

    def progress(self, name: str, p: Progress) -> None:
        # A member's word vectors report their own 0..1 first: only training
        # and the search move the bar, and it never moves back.
        if p.stage in ("train", "hpo"):
            self.fractions[name] = max(self.fractions.get(name, 0.0), p.fraction)
        done = sum(self.progress_weight[m] * f for m, f in self.fractions.items())
        self.report(Progress(min(1.0, done / self.total_weight), "train", model=name,
                             model_fraction=p.fraction, epoch=p.epoch, loss=p.loss,
                             dev_f1=p.dev_f1, eta_s=p.eta_s, message=p.message, kind=p.kind))

    def with_safety_stop(self, job: MemberJob, running: int = 0) -> MemberJob:
        # The clock is a safety stop, not a share of work: every member may
        # use what is left of the run (its work is bounded by the budget).
        if self.deadline is not None and job.kind not in FIXED_KINDS:
            left = self.deadline - time.perf_counter() - _ENSEMBLE_RESERVE * self.clock_seconds
            job.time_cap = round(max(_MIN_MEMBER_SECONDS, left), 1)
        self.progress(job.name, Progress(0.0, "train", kind=MEMBER_STARTED))
        return job

    def record(self, job: MemberJob, fit: MemberFit, model, reused_from: int | None = None) -> None:
        from app.ensemble import score_members

        size_mb = sum(p.stat().st_size for p in job.out_dir.rglob("*") if p.is_file()) / 2**20
        if job.kind == "lists":
            model.bind(self.list_matcher, self.list_patients)
        tagging = time.perf_counter()
        retagger = model.retagger(self.dev_items)
        if retagger is not None:
            # Kept until the selection: a selected member's threshold may be raised.
            self.retaggers[job.name] = retagger
            self.dev_out[job.name] = retagger.at(retagger.threshold)
        else:
            self.dev_out[job.name] = model.predict(self.dev_items)
        self.dev_seconds[job.name] = time.perf_counter() - tagging
        score = self.dev_scores[job.name] = score_members(
            {job.name: self.dev_out[job.name]}, self.dev_gold)[job.name]
        put_member(self.project, self.run_id, job.name, job.out_dir,
                   meta={"kind": job.kind, "variant": job.variant, "params": fit.params})
        self.records[job.name] = MemberRecord(
            job.name, job.kind, job.variant, fit.params, round(fit.seconds, 2),
            round(fit.peak_mb, 1), round(size_mb, 2), score.as_dict(), fit.trials, job.time_cap,
            reused_from, fit.clock_stop,
            added_mb=None if fit.added_mb is None else round(fit.added_mb, 1))
        if fit.clock_stop and reused_from is None:
            self.plan.notes.append(
                f"{job.name}: the safety time limit stopped its training early, so it depends "
                "on the machine's speed (a bigger limit or budget trains it fully)")
        self.fractions[job.name] = 1.0
        self.progress(job.name, Progress(1.0, "train", dev_f1=score.f1, message="trained",
                                         kind=MEMBER_DONE))

    def jobs(self) -> list[MemberJob]:
        """One job per planned member."""
        plan, work = self.plan, self.work
        any_build = next(iter(plan.builds.values()))
        out = []
        for kind, variant in plan.members:
            name = member_name(kind, variant)
            # The rules learn their label mapping from all the training lines.
            corpus = plan.builds[variant].corpus if variant \
                else plan.builds.get("imbalanced", any_build).corpus
            params: dict = {}
            if kind == "flair":
                minilm = plan.config.flair_minilm
                params["transformer"] = (plan.device == "cuda") if minilm is None else minilm
            out.append(MemberJob(name, kind, variant, params, corpus, work / name,
                                 work / "saved" / name, work / "cache", device=plan.device,
                                 seed=plan.config.seed, budget=plan.budget))
        return out

    def run(self) -> None:
        from app.models.base import load_model

        device = self.plan.device
        jobs = self.jobs()
        for job in [j for j in jobs if j.name in self.plan.reusable]:
            old_run, art, stored = self.plan.reusable[job.name]
            self.progress(job.name, Progress(0.0, "train", message=f"reusing run {old_run}'s model",
                                             kind=MEMBER_STARTED))
            job.out_dir.parent.mkdir(parents=True, exist_ok=True)
            self.project.extract_artifact(art.id, job.out_dir)
            fit = MemberFit(stored.params, stored.trials, stored.seconds, stored.peak_mb,
                            stored.clock_stop, stored.added_mb)
            # The run that trained it, not only the last one that reused it.
            self.record(job, fit, load_model(job.out_dir, device),
                        reused_from=stored.reused_from or old_run)
        jobs = [j for j in jobs if j.name not in self.plan.reusable]
        slots = max(1, min(self.plan.config.jobs, len(jobs)))
        if slots > 1:
            fit_in_workers(jobs, slots, prepare=self.with_safety_stop, on_progress=self.progress,
                           on_done=lambda job, fit: self.record(job, fit, load_model(job.out_dir, device)),
                           cancel=self.cancel)
        else:
            for job in jobs:
                job = self.with_safety_stop(job)
                fit, model = fit_member(job, lambda p, name=job.name: self.progress(name, p))
                self.record(job, fit, model)
                del model


def group_members(plan: RunPlan, members: MemberStage) -> dict[str, list[str]]:
    """The member groups ensembles are built over: the built-in ones and the
    user's (a kind standing for each of its members); notes on user groups
    that are too small or repeat another."""
    from app.ensemble import make_groups

    dev_out, dev_scores = members.dev_out, members.dev_scores
    user_groups = {g: [m for m in dev_out if m in entries or members.records[m].kind in entries]
                   for g, entries in plan.config.groups.items()}
    groups = make_groups(dev_scores, user_groups=user_groups) if len(dev_out) > 1 else {}
    for g, group in user_groups.items():
        same = next((b for b, bg in groups.items() if set(bg) == set(group)), None)
        if len(group) < 2:
            plan.notes.append(f"group {g} has fewer than two trained members: no ensemble over it")
        elif same != g:
            plan.notes.append(f"group {g} has the members of group {same}: built once, as {same}")
    return groups


def dev_set(plan: RunPlan, members: MemberStage):
    """The ``DevSet`` every ensemble is fitted and scored on (its folds made once)."""
    from app.ensemble.specs import DevSet
    from app.ensemble.stacking import RECALL_WEIGHTS

    config = plan.config
    scores = members.dev_scores
    recall_first = config.objective != "f1"
    # Under a recall-first objective each stacking decision's weight on O is
    # tuned on its out-of-fold dev predictions, for that objective.
    return DevSet(members.dev_out, members.dev_gold, members.dev_items,
                  [s.doc_id for s in plan.dev], sorted(scores, key=lambda m: -scores[m].f1),
                  folds=config.folds, seed=config.seed, beta=2.0 if recall_first else 1.0,
                  objective=config.objective,
                  target=config.recall_target if config.objective in TARGETED else None,
                  outside_weights=RECALL_WEIGHTS if recall_first else (1.0,),
                  cancel=members.cancel)


def build_ensembles(dev, groups: dict[str, list[str]], specs, cancel: CancelToken | None = None
                    ) -> tuple[dict, dict]:
    """Stage *ensembles*: every spec over every group with two members or
    more (a group with the members of an earlier one is built once, under
    the first name). Returns ``({name: fitted ensemble}, {name: out-of-fold
    dev predictions})``; ``dev`` is an ``app.ensemble.specs.DevSet``."""
    from app.ensemble.specs import MIN_TUNING_ENTITIES

    ensembles: dict = {}
    oof: dict = {}
    seen: set[tuple] = set()
    for gname, group in groups.items():
        key = tuple(sorted(group))
        if key in seen or len(group) < 2:
            continue
        seen.add(key)
        for spec in specs:
            if spec.tuned and (dev.n_docs < 2 or dev.n_entities < MIN_TUNING_ENTITIES):
                continue                      # too little to cross-validate on
            if cancel:
                cancel.check()
            for name, predictions, ens in spec.candidates(gname, group, dev):
                oof[name], ensembles[name] = predictions, ens
                if cancel:
                    cancel.check()            # before the next meta-model
    return ensembles, oof


def starter_floor(project, plan: RunPlan):
    """The run's `app.services.predictor.StarterFloor` (close it) over the
    labels the annotated notes agree with (`StarterFloor.fit_labels`, its
    ``record``), or None when the config turns it off or
    the project's starter is not usable."""
    from app.services.predictor import StarterFloor
    from app.services.starter import STARTER_SETTING
    if not plan.config.starter_floor or not starter_usable(project) \
            or project.get_setting(STARTER_SETTING, True) is False:
        return None
    floor = StarterFloor(project)
    try:
        floor.fit_labels(plan.docs)
    except BaseException:
        floor.close()
        raise
    # The headline says which labels it leaves out (`choice.plain_choice`);
    # the figures are the details' (`finishing.starter_floor_summary`).
    return floor


def settler(project, starter=None):
    """``settle(text, spans, kept_steps)``: a note's spans as the output
    holds them (the project's floor with ``kept_steps``, then the starter's
    day-one spans covered when ``starter`` is given); None without a floor."""
    from app.services.lists import project_matcher

    floor, labels = project_matcher(project)
    if floor is None:
        return None

    def settle(text, spans, kept):
        spans = floor.settle(text, spans, labels, None, steps=kept)
        return starter.cover(text, spans) if starter is not None else spans
    return settle


def settle_candidates(project, plan: RunPlan, candidates: dict, beta: float, starter=None
                      ) -> tuple[dict, dict[str, list[str]]]:
    """Each candidate's dev predictions as they would be output: after the
    hospital lists and the fixed steps of the project's floor that its dev
    agrees with (`app.services.finishing.fit_fixed_steps`), with the
    ``starter``'s day-one spans covered (`starter_floor`), tagged again on
    the dev segments; so the selection and its dev table score what
    `deid annotate` writes. Returns ``({name: tag sequences}, {name: kept
    steps})``; the candidates as they are when the project has no floor."""
    from app.core.bio import spans_to_tags
    from app.services.finishing import dev_notes, fit_fixed_steps
    from app.services.lists import project_matcher

    settle = settler(project, starter)
    if settle is None:
        return candidates, {}
    steps = project_matcher(project)[0].steps(None)
    if starter is not None:
        starter.read(list(dict.fromkeys(item.text for item in plan.dev)))

    settled, kept = {}, {}
    for name, seqs in candidates.items():
        notes = dev_notes(plan.dev, seqs)
        kept[name] = fit_fixed_steps(notes, settle, beta, steps)["steps"]
        tags: list = [None] * len(seqs)
        for n in notes:
            for i, seg in zip(n["items"], n["segs"]):
                tags[i] = spans_to_tags(seg.tokens, n["pred"])[0]
        settled[name] = tags
    return settled, kept


def select_candidate(plan: RunPlan, dev, candidates: dict, costs: dict,
                     kinds: dict[str, str] | None = None):
    """Stage *select*: the candidate the objective picks on dev (cheapest
    within the cost tolerance; a member whose kind is ``kept_among_equals``,
    by ``kinds`` (member name -> kind), unless dev can tell another is
    better); a note when it tags mostly non-identifiers."""
    from app.ensemble import select

    if "lists" in candidates and len(candidates) > 1:
        # The lists member alone is the floor that every candidate's output
        # gets anyway (the predictor adds each list hit and identifying
        # shape): once deployed, any other candidate hides all it hides and
        # more, so alone it is no candidate (after a first run on a few
        # notes it was selected over the starter, and the export left in
        # clear what the starter had found). It stays a member of ensembles.
        candidates = {n: c for n, c in candidates.items() if n != "lists"}
    # Dev is drawn by patient when asked what chance decides: a new site's
    # notes are of new patients (a note stands for its patient when none is known).
    patient = {d.name: d.patient_id or d.name for d in plan.docs}
    selection = select(candidates, dev.gold, objective=plan.config.objective, target=dev.target,
                       costs=costs, tolerance=plan.config.cost_tolerance,
                       groups=[patient.get(doc, doc) for doc in dev.doc_ids],
                       seed=plan.config.seed,
                       prefer=[name for name, kind in (kinds or {}).items()
                               if name in candidates and spec_class(kind).kept_among_equals])
    selection = _starter_kept(selection, dev, plan.config.objective)
    if (warning := low_precision_note(selection)) is not None:
        plan.notes.append(warning)
    return selection


def _starter_kept(selection, dev, objective: str):
    """On a dev sample too small to trust (fewer identifiers than
    ``MIN_TUNING_ENTITIES``), a recall-first selection keeps the shipped
    starter unless a trained candidate hides more identifier tokens than it
    does: a tie there is noise, and a first run on a dozen notes that
    replaced the starter on a tie (8 dev identifiers, the same 0.727 token
    recall) hid fewer identifier tokens of the project's notes (0.946 against
    the starter's 0.969 on 20 PhysioNet notes)."""
    from dataclasses import replace

    from app.ensemble.specs import MIN_TUNING_ENTITIES
    rows = selection.rows
    starter = next((r for r in rows if r.name == "starter"), None)
    best = rows[0]
    if objective == "f1" or starter is None or best is starter \
            or dev.n_entities >= MIN_TUNING_ENTITIES \
            or best.token.recall > starter.token.recall:
        return selection
    reason = (f"starter kept: on {dev.n_entities} dev identifiers (too few to trust) no trained "
              f"candidate hides more identifier tokens than the shipped starter (token R "
              f"{starter.token.recall:.3f}; {best.name} came first on the objective with "
              f"{best.token.recall:.3f})")
    return replace(selection, best_name="starter",
                   rows=[starter, *[r for r in rows if r is not starter]], reason=reason)


def raise_threshold(project, members: MemberStage, name: str, plan: RunPlan, dev,
                    starter=None, steps: Sequence[str] | None = None
                    ) -> tuple[dict | None, list | None]:
    """Stage *threshold*: where the selected candidate ``name`` is a member
    with a threshold (the transformer), the threshold its dev output agrees
    with once written (`app.services.finishing.fit_threshold`: as the
    selection scored it, with the hospital lists, the fixed ``steps`` it
    kept and the ``starter``'s day-one spans). Returns ``(record, its dev
    tags at the threshold kept)``; the tags are None where it keeps its own.

    Not on a ``dev`` (the `DevSet`) too small to trust (fewer identifiers
    than ``MIN_TUNING_ENTITIES``): where the lists and the starter find a
    dozen dev identifiers between them, every threshold hides as much, and
    the member would be cut to its surest words on no evidence."""
    from app.ensemble.specs import MIN_TUNING_ENTITIES
    from app.services.finishing import fit_threshold

    if dev.n_entities < MIN_TUNING_ENTITIES:
        return None, None
    floor = settler(project, starter)
    record, seqs = fit_threshold(name, members.retaggers.get(name), plan.split_dev, floor,
                                 None if steps is None else tuple(steps))
    if record is None or record["threshold"] == record["fit"]:
        return record, None
    return record, seqs


def refit_members(plan: RunPlan, members: MemberStage) -> None:
    """Stage *refit*: fit each member whose kind ``refits`` again on train +
    dev with the params its search chose, store it as what predicts
    (``refit:NAME``) and say so in its record (``MemberRecord.refit``).

    Off with ``TrainConfig.refit`` false. Runs after the selection, so no
    dev score, ensemble or selection ever sees a model that trained on dev.
    """
    from dataclasses import replace

    from app.models.datasets import refit_corpus

    if not plan.config.refit:
        return
    chosen = {job.name: spec_class(job.kind).refit_params(members.records[job.name].params)
              for job in members.jobs()
              if job.name in members.records and job.kind not in FIXED_KINDS
              and spec_class(job.kind).refits}
    jobs = [replace(job, params=chosen[job.name], search=False,
                    corpus=refit_corpus(plan.builds[job.variant], seed=plan.config.seed),
                    workdir=job.workdir.with_name(job.name + "-refit"),
                    out_dir=job.out_dir.parent.parent / "refit" / job.name)
            for job in members.jobs() if chosen.get(job.name) is not None]
    if not jobs:
        return
    done: dict[str, float] = {}

    def report(name: str, p: Progress) -> None:
        if p.stage in ("train", "hpo"):
            done[name] = min(p.fraction, 0.999)
        members.report(Progress(
            (members.total_weight - 1.0 + sum(done.values()) / len(jobs) * 0.5)
            / members.total_weight, "refit",
            message=f"{name}: trained again on train + dev"
            if p.stage == "refit" and p.fraction >= 1.0 else None))

    def capped(job: MemberJob, running: int = 0) -> MemberJob:
        if members.deadline is not None:
            job.time_cap = round(max(_MIN_MEMBER_SECONDS, members.deadline - time.perf_counter()), 1)
        report(job.name, Progress(0.0, "refit"))
        return job

    def store(job: MemberJob, fit: MemberFit) -> None:
        put_refit(members.project, members.run_id, job.name, job.out_dir,
                  meta={"kind": job.kind, "variant": job.variant, "params": fit.params})
        members.records[job.name].refit = {
            "seconds": round(fit.seconds, 2), "peak_mb": round(fit.peak_mb, 1),
            "train_segments": len(job.corpus.train), "clock_stop": fit.clock_stop}
        if fit.clock_stop:
            plan.notes.append(f"{job.name}: the safety time limit stopped its refit on train + dev "
                              "early")
        # The fit's own last report is not the end of the refit: the line
        # saying it is done comes once, here (it came twice).
        done[job.name] = 1.0
        report(job.name, Progress(1.0, "refit"))

    # Side by side as the members were (`TrainConfig.jobs`), one after another otherwise.
    slots = max(1, min(plan.config.jobs, len(jobs)))
    if slots > 1:
        fit_in_workers(jobs, slots, prepare=capped, on_progress=report, on_done=store,
                       cancel=members.cancel)
        return
    for job in jobs:
        job = capped(job)
        fit, model = fit_member(job, lambda p, name=job.name: report(name, p))
        del model
        store(job, fit)


def finish_run(project, plan: RunPlan, run_id: int, members: MemberStage, dev, ensembles: dict,
               candidates: dict, costs: dict, selection, work, started: float,
               fixed_by_candidate: dict[str, list[str]] | None = None,
               crossfit=None, starter=None, threshold: dict | None = None) -> TrainedRun:
    """Stage *finish*: learn the finishing steps for the selected candidate,
    store the ensembles and the run record, make the run the active one.

    ``crossfit``: the `app.services.crossfit.CrossFit` the selection was
    made on, if any; the dev split's segments are then the last ``n_dev`` of
    the candidates' and members' tags, and the finishing steps are learned
    there (app.services.crossfit says why). ``starter``: the run's
    `starter_floor`, which its finishing steps are learned with.
    ``threshold``: the record of `raise_threshold`, stored with the run."""
    from app.services.choice import activate_unless_worse
    from app.services.finishing import fit_finishing
    from app.services.lists import project_matcher

    config = plan.config
    in_train = set(next(iter(plan.builds.values())).train_docs)      # the training split's names
    train_docs = [(d.text, d.spans) for d in plan.docs if d.name in in_train]
    floor, _ = project_matcher(project)
    settle = settler(project, starter)
    chosen, member_tags = candidates[selection.best_name], members.dev_out
    if crossfit is not None:
        tail = crossfit.n_dev
        chosen = chosen[len(chosen) - tail:]
        member_tags = {n: tags[len(tags) - tail:] for n, tags in member_tags.items()}
    fill, propagation, unmarked, edges, fixed, joins = fit_finishing(
        selection.best_name, chosen, plan.split_dev, member_tags, dev.beta,
        use_fill=config.fill, use_propagation=config.propagate, train_docs=train_docs,
        settle=settle, fixed_steps=floor.steps(None) if floor is not None else ())
    if fixed is not None:
        fixed["by_candidate"] = fixed_by_candidate
    for ename, ens in ensembles.items():
        edir = work / "ensembles" / _safe(ename)
        ens.save(edir)
        put_ensemble(project, run_id, ename, edir,
                     meta={"members": ens.members, "description": ens.describe()})
    run = TrainedRun(
        run_id, "done", plan.stored_config(), selected=selection.best_name,
        selection=selection.as_dict() | ({"cross_fit": crossfit.record()} if crossfit else {}),
        members=members.records,
        ensembles={n: EnsembleRecord(list(e.members), e.describe()) for n, e in ensembles.items()},
        fill=fill, propagation=propagation, unmarked=unmarked, edges=edges, fixed=fixed,
        joins=joins, threshold=threshold,
        starter_floor=starter.record if starter is not None else None, notes=plan.notes,
        unlike=plan.unlike, costs={n: round(c, 3) for n, c in costs.items()}, device=plan.device,
        device_note=plan.device_note, seconds=round(time.perf_counter() - started, 1),
        data={v: b.counts for v, b in plan.builds.items()})
    with project.transaction():
        # A better model of the same notes stays in use, and the run says so.
        kept = activate_unless_worse(project, run)
        if kept:
            run.notes.append(kept)
        project.finish_run(run_id, "done", run.metrics())
        project.log("train_finished", {"run": run_id, "selected": selection.best_name,
                                       "active": kept is None})
    return run


def train_project(project, config: TrainConfig, *, progress: ProgressFn = no_progress,
                  cancel: CancelToken | None = None) -> TrainedRun:
    """Run the whole training step, stage by stage:
    plan -> members -> ensembles -> select -> finish (see the module docstring)."""
    from app.ensemble.specs import MIN_TUNING_ENTITIES, ensemble_specs
    from app.services.crossfit import cross_fit

    started = time.perf_counter()
    report = cancel.wrap(progress) if cancel else progress
    plan = plan_run(project, config)
    private = PrivateDir("deid-train-")
    members = MemberStage(project, plan, private.path, report, cancel, started)
    run_id = members.run_id = project.start_run("train", plan.stored_config())
    project.log("train_started", {"run": run_id, "budget": config.budget, "device": plan.device})
    starter = None
    try:
        members.run()
        crossfit = cross_fit(plan, members, config.cross_fit, cancel) if config.cross_fit else None
        if crossfit is not None:
            plan.selection_dev = crossfit.items
        report(Progress((members.total_weight - 1.0) / members.total_weight, "ensemble",
                        message="building ensembles"))
        dev = dev_set(plan, members)
        if dev.n_entities < MIN_TUNING_ENTITIES:
            plan.notes.append(f"The dev notes hold {count(dev.n_entities, 'identifier')}, fewer "
                              f"than {MIN_TUNING_ENTITIES}: too few to tune the pruned vote and "
                              "the learned combinations (stacking) on, so none was built; "
                              "annotate more notes")
        ensembles, oof = build_ensembles(dev, group_members(plan, members),
                                         ensemble_specs(config.ensembles,
                                                        meta_models=config.meta_models), cancel)
        candidates = {**members.dev_out, **oof}
        costs = {name: members.dev_seconds[name] for name in members.dev_out}
        costs.update({name: sum(members.dev_seconds[m] for m in ens.members)
                      for name, ens in ensembles.items()})
        starter = starter_floor(project, plan)
        settled, fixed_by_candidate = settle_candidates(project, plan, candidates, dev.beta,
                                                        starter)
        selection = select_candidate(plan, dev, settled, costs,
                                     {name: r.kind for name, r in members.records.items()})
        threshold = None
        if crossfit is None:
            threshold, raised = raise_threshold(project, members, selection.best_name, plan, dev,
                                                starter, fixed_by_candidate.get(selection.best_name))
            if raised is not None:
                candidates[selection.best_name] = raised
        members.retaggers.clear()
        from app.rules.registry import rules_sentence
        if (rules := rules_sentence(project)) is not None:
            plan.notes.append(rules)
        # Where the dev figures do not speak: notes to do unlike the annotated ones.
        unlike = unfamiliar_notes(project, plan.docs)
        if unlike is not None and unlike.sentence():
            plan.notes.append(unlike.sentence())
            plan.unlike = unlike.unlike
        elif unlike is not None and unlike.todo and (before := len(unlike_found(project))):
            # Said, not silent: the offer of the last run's notes goes away.
            plan.notes.append(f"The notes to do now read like the annotated ones (the model in "
                              f"use found {count(before, 'note')} unlike them).")
        refit_members(plan, members)
        run = finish_run(project, plan, run_id, members, dev, ensembles, candidates, costs,
                         selection, private.path, started, fixed_by_candidate,
                         crossfit, starter, threshold)
    except Cancelled:
        project.finish_run(run_id, "cancelled",
                           TrainedRun(run_id, "cancelled", members=members.records).metrics())
        project.log("train_cancelled", {"run": run_id})
        raise
    except BaseException:
        project.finish_run(run_id, "failed", None)
        raise
    finally:
        if starter is not None:
            starter.close()
        private.close()
    report(Progress(1.0, "train", message="done"))
    return run


def reusable_models(project) -> list[str]:
    """The model kinds of the active run (what ``reuse_members`` keeps), or ``[]``."""
    run_id = active_run_id(project)
    record = project.run(run_id) if run_id is not None else None
    return list(TrainedRun.of(record).train_config().models) if record is not None else []


def _reusable_members(project, split_hashes: dict) -> dict[str, tuple]:
    """``{member: (run id, artifact, MemberRecord)}`` of the active run.

    Refused (``UserError``) when there is no finished run or when the
    annotated data or its split changed since: members trained on other
    data would make the dev scores, and so the selection, meaningless.
    """
    run_id = active_run_id(project)
    record = project.run(run_id) if run_id is not None else None
    if record is None or record.status != "done":
        raise UserError("no finished training run to reuse members from: train without reuse first")
    run = TrainedRun.of(record)
    old = run.split_hashes
    if any(old.get(v) != h for v, h in split_hashes.items() if v in old) or not set(old) & set(split_hashes):
        raise UserError(f"the annotated notes or their split changed since run {run.id}: "
                        "its members cannot be reused; train them again")
    return {name: (run.id, art, run.members.get(name) or MemberRecord.of(name, {}))
            for name, art in run.scored_member_artifacts(project).items()}


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
