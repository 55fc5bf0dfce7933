"""``learning-curve``: selected-model strict F1 on MEDDOCAN test vs training notes.

Each point trains a fresh project on a seeded subsample of MEDDOCAN train
(25, 50, 100, 250, 500 notes; one shuffled order, so every sample contains
the smaller ones) and scores the selected candidate on the whole official
test split.

Dev data is subsampled *proportionally* (the official ratio, 250 dev per
500 train notes, so 12, 25, 50, 125, 250; at least 2): a project that
annotated N training notes has about N/2 more to select models on, not
the whole official dev set, and selection/early stopping on a large dev
set would flatter the small points. The same shuffled order gives nested
dev samples.

``results`` keys (JSON)::

    sizes   requested training-note counts
    test    {notes, chars, spans}
    points  [{train_notes, dev_notes, selected, seconds (training step),
              strict: {precision, recall, f1, f1_ci, recall_ci, ...},
              relaxed: {...}, token: {...}}]
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable

from app.bench.config import Size, meddocan_dir
from app.bench.corpora import corpus_stats, create_meddocan_project, meddocan_stems, subsample
from app.bench.scoring import score_candidates, selected_row
from app.bench.train import run_summary, train
from app.errors import UserError


def dev_size(n_train: int, train_total: int, dev_total: int) -> int:
    """Dev notes for ``n_train`` training notes: the official ratio, at least 2."""
    return min(dev_total, max(2, round(n_train * dev_total / max(1, train_total))))


def run_learning_curve(*, budget: str, models: list[str], size: Size, out_dir: Path,
                       seed: int = 13, log: Callable[[str], None] = print
                       ) -> tuple[dict, list[dict]]:
    root = meddocan_dir()
    if root is None:
        raise UserError("MEDDOCAN not found: put it at ../shared/data/meddocan or set $DEID_MEDDOCAN")
    train_all, dev_all = meddocan_stems(root, "train"), meddocan_stems(root, "dev")
    test_subset = None
    if size.meddocan_limit is not None:
        test_subset = subsample(meddocan_stems(root, "test"), size.meddocan_limit[2])
    points, test_stats = [], None
    for n in size.curve_sizes:
        n_train = min(n, len(train_all))
        n_dev = dev_size(n_train, len(train_all), len(dev_all))
        subsets = {"train": subsample(train_all, n_train), "dev": subsample(dev_all, n_dev)}
        if test_subset is not None:
            subsets["test"] = test_subset
        log(f"learning-curve: {n_train} train / {n_dev} dev notes")
        with tempfile.TemporaryDirectory(prefix="deid-bench-curve-") as tmp:
            project = create_meddocan_project(Path(tmp) / "curve.deid", root, work=Path(tmp),
                                              subsets=subsets)
            try:
                test_stats = test_stats or corpus_stats(project)["test"]
                train(project, budget=budget, models=models, seed=seed, size=size)
                summary = run_summary(project)
                scores = score_candidates(project, bootstrap=size.bootstrap, only_selected=True)
            finally:
                project.close()
        best = selected_row(scores)
        points.append({"train_notes": n_train, "dev_notes": n_dev, "selected": best["name"],
                       "seconds": summary["seconds"],
                       **{k: best[k] for k in ("strict", "relaxed", "token")}})
        log(f"learning-curve: {n_train} notes -> {best['name']} strict F1 "
            f"{best['strict']['f1']:.4f}")
    return {"sizes": list(size.curve_sizes), "test": test_stats, "points": points}, []
