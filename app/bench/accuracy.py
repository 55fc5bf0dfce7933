"""``accuracy``: train on a corpus's train/dev, score every candidate on its test split.

``results`` keys (JSON)::

    corpus      "meddocan" | "physionet" | "synthetic"
    project     path of the trained project (kept under OUT/projects/)
    data        {train|dev|test: {notes, chars, spans}}
    train       app.bench.train.run_summary (members' training time, peak
                memory, size, dev F1; the selection and its reason)
    evaluation  app.bench.scoring.score_candidates on "test": every base
                model, the rules and every ensemble x group, with 95 %
                bootstrap intervals and per-label figures

Targets, where they are defined: on MEDDOCAN test the selected candidate's
strict micro-F1 >= 0.965 and binary token recall >= 0.99 (issue 19); on the PhysioNet
dev patients (`app.bench.corpora.create_physionet_project`) binary token
recall >= 0.99, token precision >= 0.90 and at most 2 % of the notes with
identifiers missing one.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from app.bench.config import TARGETS, Size, meddocan_dir, physionet_dir
from app.bench.corpora import (add_physionet_lists, corpus_stats, create_meddocan_project,
                               create_physionet_project, create_synthetic_project,
                               meddocan_stems, physionet_folds, physionet_is_dev,
                               physionet_patient, subsample)
from app.bench.scoring import score_candidates, selected_row
from app.bench.train import run_summary, train
from app.errors import UserError
from app.eval.bootstrap import mean_of_folds_interval

CORPORA = ("meddocan", "physionet", "synthetic")
#: Resamples of each fold's test patients for the folds' 95 % intervals: a
#: fold holds 20-40 patients and a few hundred identifier tokens, so two runs
#: 0.001 apart in the mean differ by a few tokens: the interval says so.
FOLD_RESAMPLES = 2000


def project_path(out_dir: Path, corpus: str, size: Size) -> Path:
    return out_dir / "projects" / f"accuracy-{corpus}-{size.name}.deid"


def build_project(corpus: str, path: Path, size: Size, *, lists: bool = False,
                  fold: int | None = None, folds: int = 5):
    """A fresh, untrained project holding ``corpus``; open. ``lists``: give a
    PhysioNet project the corpus's hospital lists (`add_physionet_lists`).
    ``fold``: a PhysioNet project whose test notes are that fold's patients
    (of ``folds``, `physionet_folds`) instead of our dev patients."""
    if corpus == "synthetic":
        return create_synthetic_project(path, size)
    if corpus == "physionet":
        root = physionet_dir()
        if root is None:
            raise UserError("PhysioNet deid notes not found: put them at "
                            "../shared/data/physionet-deid or set $DEID_PHYSIONET")
        limit = None if size.meddocan_limit is None else 5 * size.meddocan_limit[0]
        held_out = physionet_is_dev
        if fold is not None:
            assigned = physionet_folds([p.stem for p in (root / "train").glob("*.txt")], folds)
            held_out = lambda stem: assigned.get(physionet_patient(stem)) == fold  # noqa: E731
        with tempfile.TemporaryDirectory(prefix="deid-bench-") as work:
            project = create_physionet_project(path, root, work=Path(work), limit=limit,
                                               held_out=held_out)
            if lists:
                add_physionet_lists(project, root, work=Path(work), held_out=held_out)
            return project
    root = meddocan_dir()
    if root is None:
        raise UserError("MEDDOCAN not found: put it at ../shared/data/meddocan or set $DEID_MEDDOCAN")
    subsets = None
    if size.meddocan_limit is not None:
        subsets = {split: subsample(meddocan_stems(root, split), n)
                   for split, n in zip(("train", "dev", "test"), size.meddocan_limit)}
    with tempfile.TemporaryDirectory(prefix="deid-bench-") as work:
        return create_meddocan_project(path, root, work=Path(work), subsets=subsets)


def run_accuracy(corpus: str, *, budget: str, models: list[str], size: Size, out_dir: Path,
                 seed: int = 13, log: Callable[[str], None] = print,
                 project: Path | None = None, lists: bool = False) -> tuple[dict, list[dict]]:
    """Build, train and score; returns ``(results, targets)``.

    ``lists``: a PhysioNet project also gets the corpus's hospital lists
    before training (staff, places, hospitals, the table of the training
    patients).

    With ``project`` (a project already trained on ``corpus``, e.g. by
    ``deid train``), nothing is built or trained: its active run is scored,
    and the budget and models reported are the ones that run stored.
    """
    from app.project import Project

    if corpus not in CORPORA:
        raise UserError(f"unknown corpus {corpus!r} (choose from {', '.join(CORPORA)})")
    reuse = project is not None
    if reuse:
        path = Path(project)
        log(f"accuracy/{corpus}: scoring the trained project {path}")
        project = Project.open(path)
    else:
        path = project_path(out_dir, corpus + ("-lists" if lists else ""), size)
        log(f"accuracy/{corpus}: building {path}" + (" with the hospital lists" if lists else ""))
        project = build_project(corpus, path, size, lists=lists)
    try:
        data = corpus_stats(project)
        if not reuse:
            unsplit = (f" / {data['unsplit']['notes']} notes the run splits into train and dev"
                       if "unsplit" in data else "")
            log(f"accuracy/{corpus}: training {', '.join(models)} ({budget}) on "
                f"{data['train']['notes']} train / {data['dev']['notes']} dev{unsplit}")
            train(project, budget=budget, models=models, seed=seed, size=size)
        summary = run_summary(project)
        budget = summary["budget"] or budget
        models = summary["models"] or models
        log(f"accuracy/{corpus}: selected {summary['selected']}; scoring every candidate "
            f"on {data['test']['notes']} test notes")
        scores = score_candidates(project, split="test", bootstrap=size.bootstrap)
    finally:
        project.close()
    results = {"corpus": corpus, "project": str(path), "data": data, "train": summary,
               "evaluation": scores, "lists": bool(lists)}
    targets = []
    if corpus == "meddocan":
        best = selected_row(scores)
        kind = "an ensemble" if best["type"] == "ensemble" else "not an ensemble"
        note = (f"selected {best['name']} ({kind}); {budget} budget, models "
                f"{', '.join(models)}, size {size.name}")
        targets = [TARGETS["meddocan_strict_f1"].check(best["strict"]["f1"], note),
                   TARGETS["meddocan_token_recall"].check(best["token"]["recall"], note)]
    elif corpus == "physionet":
        best = selected_row(scores)
        privacy = best["privacy"]
        kept = 1.0 - privacy["notes_with_missed"] / max(privacy["notes_with_identifiers"], 1)
        note = (f"selected {best['name']}{' with the hospital lists' if lists else ''}; "
                f"{budget} budget, models {', '.join(models)}, "
                f"size {size.name}; {privacy['notes_with_missed']} of "
                f"{privacy['notes_with_identifiers']} notes with identifiers miss one")
        targets = [TARGETS["physionet_token_recall"].check(best["token"]["recall"], note),
                   TARGETS["physionet_token_precision"].check(best["token"]["precision"], note),
                   TARGETS["physionet_notes_kept"].check(kept, note)]
    return results, targets


def _privacy_row(row: dict) -> dict:
    """The figures of one scored candidate that the folds table reports."""
    privacy = row["privacy"]
    return {"name": row["name"], "token_recall": row["token"]["recall"],
            "token_precision": row["token"]["precision"], "strict_f1": row["strict"]["f1"],
            "notes_with_identifiers": privacy["notes_with_identifiers"],
            "notes_leaking": privacy["notes_with_missed"],
            "notes_showing_a_word": privacy["notes_with_visible_word"]}


def _bounds(interval: tuple[float, float]) -> list[float] | None:
    """An interval for the JSON: None where it is undefined (NaN)."""
    return None if any(b != b for b in interval) else [round(b, 6) for b in interval]


def dev_figures(summary: dict, name: str) -> dict:
    """A candidate's dev figures as its selection scored them (``dev_*``),
    beside its test figures, so a selection rule can be judged on how its
    dev choice fares on notes it never saw; ``{}`` for a row the selection
    did not score (a candidate without its finishing steps)."""
    row = summary["dev_rows"].get(name)
    if row is None:
        return {}
    return {"dev_token_recall": row["token"]["recall"],
            "dev_token_precision": row["token"]["precision"],
            "dev_strict_f1": row["f1"], "dev_strict_recall": row["recall"]}


def run_folds(corpus: str, *, folds: int, budget: str, models: list[str], size: Size,
              out_dir: Path, seed: int = 13, log: Callable[[str], None] = print,
              lists: bool = False, only: int | None = None, at_once: int = 1,
              quiet: bool = False) -> tuple[dict, list[dict]]:
    """A default training run on each of ``folds`` patient-disjoint folds of
    the PhysioNet training notes; returns ``(results, targets)``.

    The patients outside our dev split are dealt into ``folds`` folds
    (`physionet_folds`); fold k's patients are its test notes, and every
    other patient's notes (our dev patients' included) are split by the run
    into train and dev as a user's would be. So no figure comes from notes
    the run tuned on or that a rule was written from; the dev split's own
    figure is the plain ``accuracy --corpus physionet`` run, to set beside
    the mean. Results: ``folds`` (one row per fold: the selected
    candidate's token recall and precision, strict F1, notes leaking (a gold
    identifier none of whose tokens is hidden), notes showing a word (an
    identifier word, a letter or digit, left uncovered: half a name too), and
    ``together``: every candidate of the fold taken together, the most any
    selection among them could hide: `evaluating.together`),
    ``mean`` over the folds, and each fold's ``data``, selection,
    ``finishing`` (the lines on what the run learned after the selection) and
    ``candidates`` (every candidate's figures on the fold's test notes, as
    the folds table has them for the selected one, with its dev figures as
    the selection scored them: `dev_figures`). Each fold's token recall and
    the mean's token recall and precision carry a 95 % interval over the
    test patients (``*_ci``: patients drawn again within each fold,
    `mean_of_folds_interval`), from the selected candidate's identifier
    tokens per patient (each fold's ``token_by_patient``).

    ``only``: run fold ``only`` alone (numbered from 0) to try a change on
    one fold; its ``mean`` is that fold's, and no target is checked (a
    target is of the mean of every fold). ``at_once``: folds trained at once,
    each in its own process (a machine with many cores or a GPU); their
    lines go to the terminal, and ``quiet`` keeps them and the libraries'
    logs off it.
    """
    if corpus != "physionet":
        raise UserError("--folds is for the PhysioNet training notes (--corpus physionet)")
    if not 2 <= folds <= 20:
        raise UserError("--folds takes 2 to 20 folds")
    if only is not None and not 0 <= only < folds:
        raise UserError(f"--fold takes a fold from 0 to {folds - 1}")
    if at_once < 1:
        raise UserError("--folds-at-once takes 1 or more folds")
    wanted = list(range(folds) if only is None else (only,))
    args = dict(corpus=corpus, folds=folds, budget=budget, models=models, size=size,
                out_dir=out_dir, seed=seed, lists=lists)
    if at_once > 1 and len(wanted) > 1:
        # Each fold in a process of its own (spawned: CUDA and forked torch do
        # not mix); a fold's members still train as `deid train` trains them.
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        from app.core.parallel import end_with_parent
        log(f"folds/{corpus}: {len(wanted)} folds, {min(at_once, len(wanted))} at a time")
        # A bench stopped outright stops its folds too.
        with ProcessPoolExecutor(max_workers=min(at_once, len(wanted)),
                                 mp_context=mp.get_context("spawn"),
                                 initializer=end_with_parent) as pool:
            done = list(pool.map(_fold_in_process, [dict(args, k=k, quiet=quiet) for k in wanted]))
    else:
        done = [run_fold(k=k, log=log, **args) for k in wanted]
    rows = [row for row, _ in done]
    details = [detail for _, detail in done]

    def mean(chosen: list[dict]) -> dict:
        n = max(len(chosen), 1)
        ci = mean_of_folds_interval([np.array(d["token_by_patient"]) for d in details],
                                    resamples=FOLD_RESAMPLES, seed=seed)
        return {key: sum(r[key] for r in chosen) / n
                for key in ("token_recall", "token_precision", "strict_f1")} | {
            "token_recall_ci": _bounds(ci["recall"]),
            "token_precision_ci": _bounds(ci["precision"]),
            "notes_leaking": sum(r["notes_leaking"] for r in chosen),
            "notes_showing_a_word": sum(r["notes_showing_a_word"] for r in chosen),
            "notes_with_identifiers": sum(r["notes_with_identifiers"] for r in chosen),
            "together": {"token_recall": sum(r["together"]["token_recall"] for r in chosen) / n,
                         "token_precision": sum(r["together"]["token_precision"]
                                                for r in chosen) / n,
                         "notes_leaking": sum(r["together"]["notes_leaking"] for r in chosen)}}

    results = {"corpus": corpus, "folds": rows, "details": details, "lists": bool(lists),
               "mean": mean(rows), "only": only}
    if only is not None:
        return results, []
    return results, fold_targets(results["mean"], folds, lists, budget, models, size.name)


def fold_targets(mean: dict, folds: int, lists: bool, budget: str, models, size: str) -> list[dict]:
    """The targets rows of a folds run from its ``mean`` figures; a run with
    the hospital lists has targets of its own, so the table shows both runs."""
    bounds = mean["token_recall_ci"]
    interval = (f" (token recall 95 % interval over patients {bounds[0]:.4f}-{bounds[1]:.4f})"
                if bounds else "")
    note = (f"mean of {folds} patient-disjoint folds{' with the hospital lists' if lists else ''}"
            f"{interval}; {budget} budget, models {', '.join(models)}, size {size}")
    suffix = "_lists" if lists else ""
    return [TARGETS["folds_token_recall" + suffix].check(mean["token_recall"], note),
            TARGETS["folds_token_precision" + suffix].check(mean["token_precision"], note)]


def run_fold(*, corpus: str, k: int, folds: int, budget: str, models: list[str], size: Size,
             out_dir: Path, seed: int, lists: bool,
             log: Callable[[str], None] = print) -> tuple[dict, dict]:
    """Fold ``k`` of ``folds`` (`run_folds`): build, train, score; returns its
    row of the folds table and its details."""
    path = out_dir / "projects" / f"folds-physionet{'-lists' if lists else ''}-{k}of{folds}-{size.name}.deid"
    log(f"folds/{corpus}: fold {k + 1} of {folds}: building {path}")
    project = build_project(corpus, path, size, lists=lists, fold=k, folds=folds)
    try:
        data = corpus_stats(project)
        if not data.get("test", {}).get("notes"):
            raise UserError(f"fold {k + 1} of {folds} holds no note: fewer folds")
        log(f"folds/{corpus}: fold {k + 1}: training {', '.join(models)} ({budget}); "
            f"{data['test']['notes']} test notes")
        train(project, budget=budget, models=models, seed=seed, size=size)
        summary = run_summary(project)
        scores = score_candidates(project, split="test", bootstrap=size.bootstrap)
    finally:
        project.close()
    chosen = selected_row(scores)
    by_patient = chosen["token_by_patient"]
    ci = mean_of_folds_interval([np.array(by_patient)], resamples=FOLD_RESAMPLES, seed=seed)
    row = {"fold": k, **_privacy_row(chosen), "token_recall_ci": _bounds(ci["recall"]),
           "train_seconds": summary["seconds"], "together": scores["together"]}
    detail = {"fold": k, "data": data, "selected": summary["selected"],
              "token_by_patient": by_patient,
              "reason": summary["reason"], "finishing": summary["finishing"],
              "candidates": [_privacy_row(r) | dev_figures(summary, r["name"])
                             for r in scores["rows"]]}
    log(f"folds/{corpus}: fold {k + 1}: {row['name']} token recall {row['token_recall']:.4f}, "
        f"precision {row['token_precision']:.4f}, {row['notes_leaking']} of "
        f"{row['notes_with_identifiers']} notes leak")
    return row, detail


def _fold_in_process(args: dict) -> tuple[dict, dict]:
    """`run_fold` in a worker process of `run_folds`."""
    quiet = args.pop("quiet")
    if quiet:
        import logging
        from app.core.logs import quiet_library_logs
        quiet_library_logs()
        logging.getLogger().setLevel(logging.ERROR)
    return run_fold(**args, log=_silent if quiet else _print)


def _print(msg: str) -> None:
    print(msg, flush=True)


def _silent(msg: str) -> None:
    pass
