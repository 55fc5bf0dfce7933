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

from app.bench.config import TARGETS, Size, meddocan_dir, physionet_dir
from app.bench.corpora import (add_physionet_lists, corpus_stats, create_meddocan_project,
                               create_physionet_project, create_synthetic_project,
                               meddocan_stems, subsample)
from app.bench.scoring import score_candidates, selected_row
from app.bench.train import run_summary, train
from app.errors import UserError

CORPORA = ("meddocan", "physionet", "synthetic")


def project_path(out_dir: Path, corpus: str, size: Size) -> Path:
    return out_dir / "projects" / f"accuracy-{corpus}-{size.name}.deid"


def build_project(corpus: str, path: Path, size: Size, *, lists: bool = False):
    """A fresh, untrained project holding ``corpus``; open. ``lists``: give a
    PhysioNet project the corpus's hospital lists (`add_physionet_lists`)."""
    if corpus == "synthetic":
        return create_synthetic_project(path, size)
    if corpus == "physionet":
        root = physionet_dir()
        if root is None:
            raise UserError("PhysioNet deid notes not found: put them at "
                            "../shared/data/physionet-deid or set $DEID_PHYSIONET")
        limit = None if size.meddocan_limit is None else 5 * size.meddocan_limit[0]
        with tempfile.TemporaryDirectory(prefix="deid-bench-") as work:
            project = create_physionet_project(path, root, work=Path(work), limit=limit)
            if lists:
                add_physionet_lists(project, root, work=Path(work))
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
