"""Train a project's base models and ensembles, select one, store everything.

The whole learning step of the paper in one service (CLI and GUI call it):

1. gold documents (train/dev; test is never read) -> balanced and
   imbalanced corpora over one document split;
2. every base model kind x data variant (``spacy-balanced``, ...) trained
   with the budget's hyperparameter search, plus the rule recogniser;
3. every member predicts the dev segments (data it did not train on);
4. ensembles over the groups (all, best three by F1, best three by recall):
   majority voting, pruned voting and stacking (LR, SVM, XGBoost). Their
   dev scores come from K-fold cross-validation over dev *documents* (tuned
   on K-1 folds, predicted on the held-out fold), so a tuned ensemble does
   not win selection by having seen the answers; the deployed ensemble is
   then fitted on the whole dev set;
5. selection on dev by the chosen objective; the finishing steps (recall
   fill, propagation; app.services.finishing) learned on dev for the
   selected candidate; members, ensembles, the table and the reason are
   stored in the project (run + artifacts).
"""
from __future__ import annotations

import time
from typing import Sequence

from app.core.progress import (MEMBER_DONE, MEMBER_STARTED, CancelToken, Cancelled, Progress,
                               ProgressFn, no_progress)
from app.core.spans import Document
from app.errors import UserError
from app.models.base import FIXED_KINDS
from app.core.private import PrivateDir
from app.services.members import MemberFit, MemberJob, fit_in_workers, fit_member
from app.services.schema import TARGETED, TOKEN_TARGETED, TrainConfig, member_name
from app.services.runs import (EnsembleRecord, MemberRecord, TrainedRun, active_run_id,
                               put_ensemble, put_member, set_active_run)

# Relative cost of one member, to spread the progress bar sensibly.
_WEIGHT = {"spacy": 2.0, "stanza": 3.0, "flair": 4.0, "crf": 1.0,
           "rules": 0.2, "lists": 0.2, "names": 0.2}
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


def build_ensembles(dev, groups: dict[str, list[str]], specs, cancel: CancelToken | None = None
                    ) -> tuple[dict, dict]:
    """The ensembles stage: every spec over every group with two members or
    more (a group with the members of an earlier one is built once, under
    the first name). Returns ``({name: fitted ensemble}, {name: out-of-fold
    dev predictions})``; ``dev`` is an ``app.ensemble.specs.DevSet``."""
    ensembles: dict = {}
    oof: dict = {}
    seen: set[tuple] = set()
    for gname, group in groups.items():
        key = tuple(sorted(group))
        if key in seen or len(group) < 2:
            continue
        seen.add(key)
        for spec in specs:
            if spec.tuned and dev.n_docs < 2:
                continue                      # nothing to cross-validate on
            if cancel:
                cancel.check()
            for name, predictions, ens in spec.candidates(gname, group, dev):
                oof[name], ensembles[name] = predictions, ens
    return ensembles, oof


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


def train_project(project, config: TrainConfig, *, progress: ProgressFn = no_progress,
                  cancel: CancelToken | None = None) -> TrainedRun:
    """Run the whole training step; see the module docstring."""
    from app.ensemble import gold_tags, make_groups, score_members, select
    from app.ensemble.specs import DevSet, ensemble_specs
    from app.ensemble.stacking import RECALL_WEIGHTS
    from app.models.base import load_model
    from app.models.budget import get_budget
    from app.models.datasets import build_corpora
    from app.models.device import resolve_device
    from app.services.finishing import fit_finishing

    from app.services.lists import project_matcher

    config.validate()
    if (project.has_lists() and "lists" not in config.models
            and config.models == TrainConfig().models):
        # A project's hospital lists are a member of its default runs.
        config.models = [*config.models, "lists"]
    t0 = time.perf_counter()
    report = cancel.wrap(progress) if cancel else progress
    docs = gold_documents(project)
    # What a lists member tags dev with: the project's lists, each note's patient.
    list_matcher, _ = project_matcher(project)
    list_patients = {d.text: d.patient_id for d in docs}
    if len(docs) < 2:
        raise UserError("training needs at least two annotated documents outside the test split")
    if not any(d.spans for d in docs):
        raise UserError("the annotated documents have no spans: nothing to learn")
    device, device_note = resolve_device(config.device)
    budget = get_budget(config.budget)
    builds = build_corpora(docs, variants=config.variants, language=project.language,
                           seed=config.seed, labels=[l.name for l in project.labels()])
    any_build = next(iter(builds.values()))
    variants, notes = list(config.variants), []
    if {"balanced", "imbalanced"} <= set(variants) and (
            builds["balanced"].counts["train_segments"] == builds["imbalanced"].counts["train_segments"]):
        # Balanced = PII lines + as many PII-free lines; with fewer PII-free
        # lines than PII lines it is the whole set again, and a second member
        # trained on it would only halve every member's time (MEDDOCAN).
        variants.remove("balanced")
        notes.append("balanced data = imbalanced data (no more PII-free lines than PII lines "
                     "to leave out): each model is trained once, on the imbalanced variant")
    dev = any_build.corpus.dev
    if not dev:
        raise UserError("no development data: annotate more documents or mark some as 'dev'")
    dev_items = [(s.text, s.segment) for s in dev]
    dev_gold = gold_tags(dev)
    dev_docs = [s.doc_id for s in dev]

    split_hashes = {v: b.split_hashes for v, b in builds.items()}
    reusable = _reusable_members(project, split_hashes) if config.reuse_members else {}
    run_config = {**config.as_dict(), "device_used": device,
                  "split_hashes": split_hashes,
                  "documents": {"train": len(any_build.train_docs), "dev": len(any_build.dev_docs)},
                  "alignment": any_build.stats.as_dict(), "variants_trained": variants,
                  "notes": notes}
    run_id = project.start_run("train", run_config)
    project.log("train_started", {"run": run_id, "budget": config.budget, "device": device})

    plan = [(k, v) for k in config.models if k not in FIXED_KINDS for v in variants]
    plan += [(k, None) for k in FIXED_KINDS if k in config.models]
    weights = {member_name(k, v): _WEIGHT.get(k, 2.0) for k, v in plan}
    total_w = sum(weights.values()) + 1.0
    fractions: dict[str, float] = {}
    members: dict[str, MemberRecord] = {}
    dev_out: dict = {}
    dev_seconds: dict[str, float] = {}       # each member's time to tag dev: its cost
    run_seconds = config.max_minutes * 60.0 if config.max_minutes else budget.safety_seconds
    run_deadline = t0 + run_seconds if run_seconds else None
    jobs_total = max(1, min(config.jobs, len(plan)))
    private = PrivateDir("deid-train-")

    def member_progress(name: str, p: Progress) -> None:
        # A member's word vectors report their own 0..1 first: only training
        # and the search move the bar, and it never moves back.
        if p.stage in ("train", "hpo"):
            fractions[name] = max(fractions.get(name, 0.0), p.fraction)
        report(Progress(min(1.0, sum(weights[m] * f for m, f in fractions.items()) / total_w),
                        "train", model=name, model_fraction=p.fraction, epoch=p.epoch,
                        loss=p.loss, dev_f1=p.dev_f1, eta_s=p.eta_s, message=p.message,
                        kind=p.kind))

    def with_time_cap(job: MemberJob, running: int) -> MemberJob:
        # The clock is a safety stop, not a share of work: every member may
        # use what is left of the run (its work is bounded by the budget).
        if run_deadline is not None and job.kind not in FIXED_KINDS:
            left = run_deadline - time.perf_counter() - _ENSEMBLE_RESERVE * run_seconds
            job.time_cap = round(max(_MIN_MEMBER_SECONDS, left), 1)
        member_progress(job.name, Progress(0.0, "train", kind=MEMBER_STARTED))
        return job

    def record(job: MemberJob, fit: MemberFit, model, reused_from: int | None = None) -> None:
        size_mb = sum(p.stat().st_size for p in job.out_dir.rglob("*") if p.is_file()) / 2**20
        if job.kind == "lists":
            model.bind(list_matcher, list_patients)
        tagging = time.perf_counter()
        dev_out[job.name] = model.predict(dev_items)
        dev_seconds[job.name] = time.perf_counter() - tagging
        score = score_members({job.name: dev_out[job.name]}, dev_gold)[job.name]
        put_member(project, run_id, job.name, job.out_dir,
                   meta={"kind": job.kind, "variant": job.variant, "params": fit.params})
        members[job.name] = MemberRecord(job.name, job.kind, job.variant, fit.params,
                                       round(fit.seconds, 2), round(fit.peak_mb, 1), round(size_mb, 2),
                                       score.as_dict(), fit.trials, job.time_cap, reused_from,
                                       fit.clock_stop)
        if fit.clock_stop and reused_from is None:
            notes.append(f"{job.name}: the safety time limit stopped its training early, so it "
                         "depends on the machine's speed (a bigger limit or budget trains it fully)")
        fractions[job.name] = 1.0
        member_progress(job.name, Progress(1.0, "train", dev_f1=score.f1, message="trained",
                                           kind=MEMBER_DONE))

    try:
        work = private.path
        jobs: list[MemberJob] = []
        for kind, variant in plan:
            name = member_name(kind, variant)
            # The rules learn their label mapping from all the training lines.
            corpus = builds[variant].corpus if variant else builds.get("imbalanced", any_build).corpus
            params: dict = {}
            if kind == "flair":
                params["transformer"] = (device == "cuda") if config.transformer is None else config.transformer
            jobs.append(MemberJob(name, kind, variant, params, corpus, work / name,
                                  work / "saved" / name, work / "cache", device=device,
                                  seed=config.seed, budget=budget))
        for job in [j for j in jobs if j.name in reusable]:
            old_run, art, stored = reusable[job.name]
            member_progress(job.name, Progress(0.0, "train", message=f"reusing run {old_run}'s model",
                                               kind=MEMBER_STARTED))
            job.out_dir.parent.mkdir(parents=True, exist_ok=True)
            project.extract_artifact(art.id, job.out_dir)
            fit = MemberFit(stored.params, stored.trials, stored.seconds, stored.peak_mb,
                            stored.clock_stop)
            # The run that trained it, not only the last one that reused it.
            record(job, fit, load_model(job.out_dir, device),
                   reused_from=stored.reused_from or old_run)
        jobs = [j for j in jobs if j.name not in reusable]
        jobs_total = max(1, min(config.jobs, len(jobs)))
        if jobs_total > 1:
            fit_in_workers(jobs, jobs_total, prepare=with_time_cap, on_progress=member_progress,
                           on_done=lambda job, fit: record(job, fit, load_model(job.out_dir, device)),
                           cancel=cancel)
        else:
            for job in jobs:
                job = with_time_cap(job, 0)
                fit, model = fit_member(job, lambda p, name=job.name: member_progress(name, p))
                record(job, fit, model)
                del model

        # Ensembles over groups, scored by document-level cross-validation on dev.
        report(Progress((total_w - 1.0) / total_w, "ensemble", message="building ensembles"))
        dev_scores = score_members(dev_out, dev_gold)
        priority = sorted(dev_scores, key=lambda m: -dev_scores[m].f1)
        recall_first = config.objective != "f1"
        beta = 2.0 if recall_first else 1.0
        target = config.recall_target if config.objective in TARGETED else None
        # Under a recall-first objective each stacking decision's weight on O
        # is tuned on its out-of-fold dev predictions, for that objective.
        dev_set = DevSet(dev_out, dev_gold, dev_items, dev_docs, priority, folds=config.folds,
                         seed=config.seed, beta=beta, objective=config.objective, target=target,
                         outside_weights=RECALL_WEIGHTS if recall_first else (1.0,))
        user_groups = {g: [m for m in dev_out if m in entries or members[m].kind in entries]
                       for g, entries in config.groups.items()}
        groups = make_groups(dev_scores, user_groups=user_groups) if len(dev_out) > 1 else {}
        for g, group in user_groups.items():
            same = next((b for b, bg in groups.items() if set(bg) == set(group)), None)
            if len(group) < 2:
                notes.append(f"group {g} has fewer than two trained members: no ensemble over it")
            elif same != g:
                notes.append(f"group {g} has the members of group {same}: built once, as {same}")
        specs = ensemble_specs(config.ensembles, meta_models=config.meta_models)
        ensembles, oof = build_ensembles(dev_set, groups, specs, cancel)
        candidates = {**dev_out, **oof}
        objective = config.objective
        costs = {name: dev_seconds[name] for name in dev_out}
        costs.update({name: sum(dev_seconds[m] for m in ens.members)
                      for name, ens in ensembles.items()})
        selection = select(candidates, dev_gold, objective=objective, target=target,
                           costs=costs, tolerance=config.cost_tolerance)
        if (warning := low_precision_note(selection)) is not None:
            notes.append(warning)
        fill, propagation = fit_finishing(selection.best_name, candidates[selection.best_name], dev,
                                          dev_out, beta, use_fill=config.fill,
                                          use_propagation=config.propagate)
        for ename, ens in ensembles.items():
            edir = work / "ensembles" / _safe(ename)
            ens.save(edir)
            put_ensemble(project, run_id, ename, edir,
                         meta={"members": ens.members, "description": ens.describe()})
        run = TrainedRun(
            run_id, "done", run_config, selected=selection.best_name,
            selection=selection.as_dict(), members=members,
            ensembles={n: EnsembleRecord(list(e.members), e.describe()) for n, e in ensembles.items()},
            fill=fill, propagation=propagation, notes=notes,
            costs={n: round(c, 3) for n, c in costs.items()}, device=device,
            device_note=device_note, seconds=round(time.perf_counter() - t0, 1),
            data={v: b.counts for v, b in builds.items()})
        with project.transaction():
            project.finish_run(run_id, "done", run.metrics())
            set_active_run(project, run_id)
            project.log("train_finished", {"run": run_id, "selected": selection.best_name})
    except Cancelled:
        project.finish_run(run_id, "cancelled",
                           TrainedRun(run_id, "cancelled", run_config, members=members).metrics())
        project.log("train_cancelled", {"run": run_id})
        raise
    except BaseException:
        project.finish_run(run_id, "failed", None)
        raise
    finally:
        private.close()
    report(Progress(1.0, "train", message="done"))
    return run


def reusable_models(project) -> list[str]:
    """The model kinds of the active run (what ``reuse_members`` keeps), or ``[]``."""
    run_id = active_run_id(project)
    run = project.run(run_id) if run_id is not None else None
    return list((run.config or {}).get("models", [])) if run is not None else []


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
    old = run.config.get("split_hashes", {})
    if any(old.get(v) != h for v, h in split_hashes.items() if v in old) or not set(old) & set(split_hashes):
        raise UserError(f"the annotated notes or their split changed since run {run.id}: "
                        "its members cannot be reused; train them again")
    return {name: (run.id, art, run.members.get(name) or MemberRecord.of(name, {}))
            for name, art in run.member_artifacts(project).items()}


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
