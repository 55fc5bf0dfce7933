"""``learning-curve``: the selected model's accuracy vs annotated notes, and
which notes to annotate next (random vs uncertainty-ordered).

Each point trains a fresh project on the notes annotated so far and scores
the selected candidate on the corpus's held-out notes. The x axis is the
number of annotated notes *with identifiers* (25, 50, 100, 200 by default;
on MEDDOCAN every note has some, on the PhysioNet nursing notes about one
in three): a note without identifiers costs an annotator little and
teaches a model little.

Two ways to choose the next notes, from one seeded shuffle of the pool:

* ``random``: the next notes of the shuffle, until the count is reached
  (so every sample contains the smaller ones);
* ``uncertainty``: the first point is the random one; after it, the notes
  the previous point's models disagree on most
  (`app.ensemble.uncertainty`, through the predictor, as "Next to
  annotate" ranks them), most uncertain first, until the count is reached.

Held-out notes and dev: MEDDOCAN scores on the official test split, with
its dev subsampled *proportionally* (the official ratio, 250 dev per 500
train notes; at least 2): a project that annotated N training notes has
about N/2 more to select models on, not the whole official dev set, and
selection on a large dev set would flatter the small points. PhysioNet
scores on our dev patients (`app.bench.corpora.physionet_is_dev`) and the
run splits the annotated notes into train and dev by patient itself, as
it does for a hospital.

``results`` keys (JSON)::

    corpus  "meddocan" | "physionet"
    sizes   requested counts of annotated notes with identifiers
    orders  the orders run ("random", "uncertainty")
    test    {notes, chars, spans}
    points  [{order, identified_notes (annotated notes with identifiers),
              train_notes (annotated notes), dev_notes (MEDDOCAN: official
              dev notes added), selected, seconds (training step),
              strict: {precision, recall, f1, f1_ci, recall_ci, ...},
              relaxed: {...}, token: {...}, privacy: {...}}]
"""
from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path
from typing import Callable, Sequence

from app.bench.config import SEED_SUBSAMPLE, Size, meddocan_dir, physionet_dir
from app.bench.corpora import (PHYSIONET_PATIENT, add_documents, corpus_stats, fresh_path,
                               physionet_is_dev, subsample)
from app.bench.scoring import score_candidates, selected_row
from app.bench.train import run_summary, train
from app.core.spans import Document
from app.errors import UserError

CURVE_CORPORA = ("meddocan", "physionet")
ORDERS = ("random", "uncertainty")


def dev_size(n_train: int, train_total: int, dev_total: int) -> int:
    """Dev notes for ``n_train`` training notes: the official ratio, at least 2."""
    return min(dev_total, max(2, round(n_train * dev_total / max(1, train_total))))


def read_notes(folder: Path, names: Sequence[str] | None = None) -> list[Document]:
    """brat notes of ``folder`` (``names``: these stems only), patient ids
    from PhysioNet-style names (``pNNN_...``), sorted by name."""
    from app.formats import read_path

    wanted = None if names is None else set(names)
    docs = []
    for d in read_path(folder, fmt="brat"):
        if wanted is not None and d.name not in wanted:
            continue
        m = re.match(PHYSIONET_PATIENT, d.name)
        docs.append(Document(d.name, d.text, list(d.spans), patient_id=m.group(1) if m else None))
    return sorted(docs, key=lambda d: d.name)


def take(order: Sequence[Document], chosen: list[Document], n_identified: int) -> list[Document]:
    """``chosen`` plus the next notes of ``order`` not in it, until it holds
    ``n_identified`` notes with identifiers (or ``order`` runs out)."""
    have = {d.name for d in chosen}
    out = list(chosen)
    count = sum(bool(d.spans) for d in out)
    for d in order:
        if count >= n_identified:
            break
        if d.name not in have:
            out.append(d)
            have.add(d.name)
            count += bool(d.spans)
    return out


def _by_uncertainty(project, pool: Sequence[Document]) -> list[Document]:
    """``pool`` most uncertain first under the project's trained members."""
    from app.services.prediction import resolve

    with resolve(project, all_members=True, untrained="error").load(project) as predictor:
        preds = predictor.predict([d.text for d in pool], patients=[d.patient_id for d in pool],
                                  with_members=True)
    ranked = sorted(range(len(pool)), key=lambda i: (-preds[i].uncertainty, i))
    return [pool[i] for i in ranked]


def _corpus(corpus: str, size: Size) -> tuple[list[Document], list[Document], list[Document], tuple]:
    """(pool, official dev or [], held-out test notes, sizes)."""
    if corpus == "meddocan":
        root = meddocan_dir()
        if root is None:
            raise UserError("MEDDOCAN not found: put it at ../shared/data/meddocan or set $DEID_MEDDOCAN")
        pool, dev, test = (read_notes(root / s) for s in ("train", "dev", "test"))
    else:
        root = physionet_dir()
        if root is None:
            raise UserError("PhysioNet deid notes not found: put them at "
                            "../shared/data/physionet-deid or set $DEID_PHYSIONET")
        notes = read_notes(root / "train")
        pool = [d for d in notes if not physionet_is_dev(d.name)]
        test, dev = [d for d in notes if physionet_is_dev(d.name)], []
    if size.meddocan_limit is not None:
        keep = {d.name for d in test}
        keep = set(subsample(sorted(keep), size.meddocan_limit[2]))
        test = [d for d in test if d.name in keep]
    return pool, dev, test, tuple(size.curve_sizes)


def run_learning_curve(*, budget: str, models: list[str], size: Size, out_dir: Path,
                       seed: int = 13, log: Callable[[str], None] = print,
                       corpus: str = "meddocan", orders: Sequence[str] = ORDERS
                       ) -> tuple[dict, list[dict]]:
    if corpus not in CURVE_CORPORA:
        raise UserError(f"no learning curve for corpus {corpus!r} (choose from "
                        f"{', '.join(CURVE_CORPORA)})")
    bad = [o for o in orders if o not in ORDERS]
    if bad or not orders:
        raise UserError(f"orders must be among {', '.join(ORDERS)}")
    pool, dev_all, test, sizes = _corpus(corpus, size)
    shuffled = list(pool)
    random.Random(SEED_SUBSAMPLE).shuffle(shuffled)
    dev_order = subsample([d.name for d in dev_all], len(dev_all))
    dev_by_name = {d.name: d for d in dev_all}
    points, test_stats = [], None
    for order in orders:
        chosen: list[Document] = []
        ranking: list[Document] = shuffled
        for n in sizes:
            chosen = take(ranking, chosen, n)
            identified = sum(bool(d.spans) for d in chosen)
            n_dev = dev_size(len(chosen), len(pool), len(dev_all)) if dev_all else 0
            dev = [dev_by_name[name] for name in dev_order[:n_dev]]
            log(f"learning-curve/{corpus}/{order}: {identified} annotated notes with identifiers "
                f"({len(chosen)} notes){f', {n_dev} dev' if dev else ''}")
            with tempfile.TemporaryDirectory(prefix="deid-bench-curve-") as tmp:
                from app.project import Project

                project = Project.create(fresh_path(Path(tmp) / "curve.deid"), [],
                                         language="es" if corpus == "meddocan" else "en")
                try:
                    project.ensure_labels(sorted({s.label for d in pool + test for s in d.spans}))
                    add_documents(project, chosen, "train" if dev else None)
                    if dev:
                        add_documents(project, dev, "dev")
                    add_documents(project, test, "test")
                    test_stats = test_stats or corpus_stats(project)["test"]
                    train(project, budget=budget, models=models, seed=seed, size=size)
                    summary = run_summary(project)
                    scores = score_candidates(project, bootstrap=size.bootstrap,
                                              only_selected=True)
                    if order == "uncertainty":
                        left = [d for d in shuffled if d.name not in {c.name for c in chosen}]
                        ranking = _by_uncertainty(project, left)
                finally:
                    project.close()
            best = selected_row(scores)
            points.append({"order": order, "identified_notes": identified,
                           "train_notes": len(chosen), "dev_notes": len(dev),
                           "selected": best["name"], "seconds": summary["seconds"],
                           **{k: best[k] for k in ("strict", "relaxed", "token", "privacy")}})
            log(f"learning-curve/{corpus}/{order}: {identified} -> {best['name']} strict F1 "
                f"{best['strict']['f1']:.4f}, token R {best['token']['recall']:.4f}")
    return {"corpus": corpus, "sizes": list(sizes), "orders": list(orders), "test": test_stats,
            "points": points}, []
