"""The benchmark corpora, loaded into fresh projects.

* Synthetic: train and dev notes from seed A (dev = whole patients after
  the train ones), the held-out test notes from seed B, which no model
  ever saw; half of each set en_AU, half en_US.
* MEDDOCAN: the official train/dev/test folders through the brat importer,
  or a seeded subsample of them (the learning curve, the smoke size).
"""
from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Sequence

from app.bench.config import LOCALES, SEED_SUBSAMPLE, SEED_TEST, SEED_TRAIN, Size
from app.core.spans import Document


def _halves(n: int) -> list[int]:
    return [n // 2, n - n // 2]


def _interleave(lists: Sequence[list]) -> list:
    out = []
    for i in range(max((len(x) for x in lists), default=0)):
        out += [x[i] for x in lists if i < len(x)]
    return out


def synthetic_notes(n: int, seed: int, *, label_set: str = "paper") -> list[Document]:
    """``n`` notes of one seed, en_AU and en_US interleaved, names prefixed by seed/locale."""
    from app.synth import generate

    parts = []
    for locale, k in zip(LOCALES, _halves(n)):
        docs = generate(k, seed=seed, locale=locale, label_set=label_set)
        for d in docs:
            d.name = f"s{seed}-{locale}-{d.name}"
            d.patient_id = f"s{seed}-{locale}-{d.patient_id}"
        parts.append(docs)
    return _interleave(parts)


def _split_by_patient(docs: list[Document], n_train: int) -> tuple[list[Document], list[Document]]:
    """First ``n_train`` notes (moved on to the end of a patient) vs the rest."""
    cut = min(n_train, len(docs))
    while 0 < cut < len(docs) and docs[cut].patient_id == docs[cut - 1].patient_id:
        cut += 1
    return docs[:cut], docs[cut:]


def synthetic_sets(size: Size) -> dict[str, list[Document]]:
    """``{"train", "dev", "test"}`` notes of the synthetic benchmark."""
    from app.synth import generate

    train, dev = [], []
    for locale, k_train, k_dev in zip(LOCALES, _halves(size.synth_train), _halves(size.synth_dev)):
        docs = generate(k_train + k_dev, seed=SEED_TRAIN, locale=locale)
        for d in docs:
            d.name = f"A-{locale}-{d.name}"
            d.patient_id = f"A-{locale}-{d.patient_id}"
        tr, dv = _split_by_patient(docs, k_train)
        train.append(tr)
        dev.append(dv)
    test = synthetic_notes(size.synth_test, SEED_TEST)
    return {"train": _interleave(train), "dev": _interleave(dev), "test": test}


def add_documents(project, docs: Sequence[Document], split: str) -> None:
    """Store annotated notes (status done, gold spans) in one transaction."""
    with project.transaction():
        for d in docs:
            project.add_document(d.name, d.text, patient_id=d.patient_id, split=split,
                                 status="done", spans=d.spans, span_source="import")


def corpus_stats(project) -> dict:
    """Notes, characters and gold spans per split (no text)."""
    out = {}
    for split in ("train", "dev", "test"):
        infos = project.document_infos(split=split)
        chars = spans = 0
        for info in infos:
            chars += len(project.document(info.id).text)
            spans += len(project.gold_spans(info.id))
        out[split] = {"notes": len(infos), "chars": chars, "spans": spans}
    return out


def fresh_path(path: Path) -> Path:
    """``path`` with any earlier project file (and its WAL/lock files) removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(path.name + "*"):
        if stale.is_dir():
            shutil.rmtree(stale)
        else:
            stale.unlink()
    return path


def create_synthetic_project(path: Path, size: Size):
    """A new project (paper labels) holding the synthetic train/dev/test sets; open."""
    from app.core.labels import PRESETS
    from app.project import Project

    project = Project.create(fresh_path(path), list(PRESETS["paper"]), language="en")
    for split, docs in synthetic_sets(size).items():
        add_documents(project, docs, split)
    return project


def meddocan_stems(root: Path, split: str) -> list[str]:
    """Note names of one official split, sorted."""
    return sorted(p.stem for p in (root / split).glob("*.txt"))


def subsample(stems: Sequence[str], n: int, seed: int = SEED_SUBSAMPLE) -> list[str]:
    """``n`` names drawn with ``seed``; a smaller ``n`` gives a prefix of a larger one."""
    order = list(stems)
    random.Random(seed).shuffle(order)
    return order[:n]


def create_meddocan_project(path: Path, root: Path, *, work: Path,
                            subsets: dict[str, Sequence[str]] | None = None):
    """A new project (MEDDOCAN labels, Spanish) with the official splits imported.

    ``subsets`` maps a split to the note names to import (default: all of
    them); chosen notes are copied to ``work`` and imported from there, so
    every note goes through the same brat importer.
    """
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.importing import import_path

    project = Project.create(fresh_path(path), list(PRESETS["meddocan"]), language="es")
    try:
        for split in ("train", "dev", "test"):
            src = root / split
            if subsets is not None and split in subsets:
                dest = work / split
                dest.mkdir(parents=True, exist_ok=True)
                for stem in subsets[split]:
                    for suffix in (".txt", ".ann"):
                        if (src / (stem + suffix)).is_file():
                            shutil.copyfile(src / (stem + suffix), dest / (stem + suffix))
                src = dest
            summary = import_path(project, src, fmt="brat", split=split)
            if summary.problems:
                raise RuntimeError(f"MEDDOCAN {split}: {len(summary.problems)} file(s) not imported")
    except BaseException:
        project.close()
        raise
    return project
