"""Stage *cross-fit*: every annotated note tagged by members that never saw its patient.

A run's dev split is what the ensembles are fitted on and the selection is
made on. On a site's first runs it holds the notes of a few dozen patients
at most (141 notes of about 20 patients out of the 1,913 PhysioNet training
notes), and candidates 0.06 apart in recall on new patients cannot be told
apart there. Cross-fitting scores them on every annotated note instead: the
patients are dealt into ``k`` folds and each trainable member is fitted
``k`` more times, each time on the training split without one fold's
patients, with the settings its own fit chose (no search), and tags that
fold. The members that learn nothing from the notes (rules, lists, starter)
tag every note as they are. The out-of-fold tags of all the annotated notes
then take the place of the dev tags for the ensembles (stacking learns on
them: the paper's "predictions for data the base models did not train on")
and the selection. What predicts stays the members of the run itself
(refitted on train + dev where their kind refits).

The finishing steps that learn word lists from the training notes (edge
words, unmarked words) and the recall fill stay learned on the dev split:
scored on notes they were learned from they would always look right.
"""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, replace

from app.core.parallel import default_workers
from app.core.progress import Progress
from app.core.words import count

#: The smallest number of folds; fewer patients than folds: no cross-fit.
MIN_FOLDS = 2
#: Fold fits at once, at most (each a process of its own): 5 folds of two
#: trained members in two rounds on a 16-core GPU machine.
MAX_WORKERS = 8
#: Memory one fold fit may take at its peak (a CRF on 1,300 PhysioNet notes:
#: 2.2-2.5 GB resident), so a machine runs no more fits at once than it holds.
FIT_MEMORY = 3 * 2**30
#: Share of a run's time spent fitting its trained members (the rest: the fixed
#: kinds, tagging, ensembles, finishing steps, refits). From the one run timed
#: alone: fold 1 of the PhysioNet folds, default CPU models, 2 cores, 5 folds,
#: 434 s -> 1,096 s (2.5 times), which 1 + 0.6 * 5 / 2 gives.
FIT_SHARE = 0.6


def _workers(jobs: int, cores: int | None = None, memory: int | None = None) -> int:
    """Fold fits at once: one per core (``cores``, default this process's), as
    many as ``memory`` bytes hold (default: what this machine has available),
    at most `MAX_WORKERS` and ``jobs``."""
    if memory is None:
        import psutil
        memory = psutil.virtual_memory().available
    return max(1, min(cores or default_workers(), memory // FIT_MEMORY, MAX_WORKERS, jobs))


def cost_factor(k: int, cores: int | None = None, memory: int | None = None) -> float:
    """About how many times as long a run with ``k``-fold cross-fitting takes
    as one without, on a machine of ``cores`` cores and ``memory`` bytes
    available (defaults: this one's)."""
    return 1.0 + FIT_SHARE * k / _workers(MAX_WORKERS, cores, memory)


def cost_note(k: int, cores: int | None = None, memory: int | None = None) -> str:
    """The cost of cross-fitting, in one plain sentence."""
    workers = _workers(MAX_WORKERS, cores, memory)
    return (f"Choosing on all notes fits each trained model {k} more times, "
            f"{count(workers, 'fit')} at a time here: the run takes about "
            f"{cost_factor(k, cores, memory):.1f} times as long as without it.")


@dataclass
class CrossFit:
    """What the stage produced: the notes' segments (the training split's
    notes, then the dev split's, so the dev segments are the last
    ``n_dev``), with each member's out-of-fold tags."""

    items: list               # TaggedSegment of every annotated note outside test
    n_dev: int                # the dev split's segments, at the end of ``items``
    folds: int
    notes: int
    patients: int
    seconds: float

    def record(self) -> dict:
        """What the run's selection record keeps of it (``selection["cross_fit"]``)."""
        return {"folds": self.folds, "notes": self.notes, "patients": self.patients,
                "seconds": round(self.seconds, 1)}

    def sentence(self) -> str:
        return (f"Ensembles fitted and the model chosen on all {count(self.notes, 'annotated note')} "
                f"of {count(self.patients, 'patient')}, each tagged by models trained without its "
                f"patient ({self.folds}-fold cross-fitting, {self.seconds:.0f} s), not on the dev "
                "notes alone.")


def _segments(plan) -> tuple[list, int, dict[str, str]]:
    """Every annotated segment outside test (training notes first) and the
    patient of each note (the note itself when none is known)."""
    from app.models.datasets import tag_document

    patient = {d.name: d.patient_id or d.name for d in plan.docs}
    if "imbalanced" in plan.builds:
        # Its training part is every training segment, already tagged.
        corpus = plan.builds["imbalanced"].corpus
        return list(corpus.train) + list(corpus.dev), len(corpus.dev), patient
    build = next(iter(plan.builds.values()))
    docs = {d.name: d for d in plan.docs}
    items = [s for name in build.train_docs for s in tag_document(docs[name])[0]]
    return items + list(build.corpus.dev), len(build.corpus.dev), patient


def cross_fit(plan, members, k: int, cancel=None) -> CrossFit | None:
    """Replace ``members``' dev tags by out-of-fold tags of every annotated
    note (``members.dev_items``, ``dev_gold``, ``dev_out``, ``dev_scores``)
    and return what was done; ``None`` with a note in the run's notes when
    the notes are of fewer patients than ``k`` folds need.

    ``members`` is the run's `app.services.training.MemberStage` after its
    ``run``: each trained member's record gives the params its fit chose,
    its saved model tags the notes when it learns nothing from them.
    """
    from app.ensemble import gold_tags, score_members
    from app.ensemble.folds import assign_folds
    from app.models.base import FIXED_KINDS, Corpus, load_model
    from app.services.members import fit_in_workers, fit_member

    started = time.perf_counter()
    items, n_dev, patient = _segments(plan)
    groups = [patient[s.doc_id] for s in items]
    n_patients = len(set(groups))
    if k < MIN_FOLDS or n_patients < k:
        plan.notes.append(f"No cross-fitting: the annotated notes are of "
                          f"{count(n_patients, 'patient')}, fewer than its {k} folds; the model "
                          "was chosen on the dev notes")
        return None
    fold_of_item = assign_folds(groups, k, plan.config.seed)
    fold_of_doc = {s.doc_id: int(f) for s, f in zip(items, fold_of_item)}
    in_fold = [[i for i, g in enumerate(fold_of_item) if g == f] for f in range(k)]
    pairs = [(s.text, s.segment) for s in items]

    jobs = {job.name: job for job in members.jobs() if job.name in members.records}
    trained = [n for n, job in jobs.items() if job.kind not in FIXED_KINDS]
    out: dict[str, list] = {}
    total = len(trained) * k + 1
    done = 0

    def report(message: str) -> None:
        # The run's bar holds where the members left it (the ensembles'
        # share is next); the stage's own fraction goes with the message.
        members.report(Progress((members.total_weight - 1.0) / members.total_weight, "crossfit",
                                model_fraction=done / total, message=message))

    for name, job in jobs.items():
        if job.kind in FIXED_KINDS:
            model = load_model(job.out_dir, plan.device)
            if job.kind == "lists":
                model.bind(members.list_matcher, members.list_patients)
            out[name] = model.predict(pairs)
            del model
    tags = {name: [None] * len(items) for name in trained}
    fold_jobs, held = [], {}
    for name in trained:
        job, record = jobs[name], members.records[name]
        build = plan.builds[job.variant]
        for f in range(k):
            keep = [s for s in build.corpus.train if fold_of_doc[s.doc_id] != f]
            corpus = Corpus(train=keep,
                            dev=[s for s in build.corpus.dev if fold_of_doc[s.doc_id] != f],
                            labels=build.corpus.labels, language=build.corpus.language,
                            raw_texts=list({id(s.text): s.text for s in keep}.values()))
            fold_job = replace(job, name=f"{name}-crossfit{f}", params=dict(record.params),
                               search=False, corpus=corpus,
                               workdir=job.workdir.with_name(f"{name}-crossfit{f}"),
                               out_dir=job.out_dir.parent.parent / "crossfit" / f"{name}-{f}",
                               time_cap=None)
            fold_jobs.append(fold_job)
            held[fold_job.name] = (name, f, in_fold[f])
    done = 1

    def tag_fold(job, model) -> None:
        nonlocal done
        name, f, idx = held[job.name]
        for i, seq in zip(idx, model.predict([pairs[i] for i in idx])):
            tags[name][i] = seq
        shutil.rmtree(job.out_dir, ignore_errors=True)
        shutil.rmtree(job.workdir, ignore_errors=True)
        done += 1
        report(f"{name}: fold {f + 1} of {k} tagged by a fit without its patients")

    # CRFsuite fits on one core: the folds' fits run side by side.
    workers = _workers(len(fold_jobs))
    if workers > 1:
        fit_in_workers(fold_jobs, workers, prepare=lambda job, running: job,
                       on_progress=lambda name, p: None,
                       on_done=lambda job, fit: tag_fold(job, load_model(job.out_dir, plan.device)),
                       cancel=cancel)
    else:
        for job in fold_jobs:
            if cancel:
                cancel.check()
            tag_fold(job, fit_member(job, lambda p: None)[1])
    out.update(tags)
    gold = gold_tags(items)
    members.dev_items = pairs
    members.dev_gold = gold
    members.dev_out = out
    members.dev_scores = score_members(out, gold)
    result = CrossFit(items, n_dev, k, len({s.doc_id for s in items}), n_patients,
                      time.perf_counter() - started)
    plan.notes.append(result.sentence())
    report("cross-fitting done")
    return result
