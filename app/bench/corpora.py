"""The benchmark corpora, loaded into fresh projects.

* Synthetic: train and dev notes from seed A (dev = whole patients after
  the train ones), the held-out test notes from seed B, which no model
  ever saw; half of each set en_AU, half en_US.
* MEDDOCAN: the official train/dev/test folders through the brat importer,
  or a seeded subsample of them (the learning curve, the smoke size).
* PhysioNet deid (English ICU nursing notes, the training part the team
  has): every patient whose number leaves 1 when divided by 5 is our
  held-out dev split (stored as the project's ``test`` split: no model
  trains or selects on it); the run splits the other patients' notes into
  train and dev by patient itself, as it would for a hospital's notes.
  The team never sees the held-out fifth of the source (numbers divisible
  by 5), on which English accuracy is judged.
"""
from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Callable, Sequence

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
    """Notes, characters and gold spans per split (no text); notes with no
    split (the run divides them into train and dev itself) as ``unsplit``."""
    out = {}
    for split in ("train", "dev", "unsplit", "test"):
        infos = project.document_infos(split=None if split == "unsplit" else split)
        if split == "unsplit":
            infos = [i for i in infos if i.split is None]
            if not infos:
                continue
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


#: ``pNNN_nMMM``: patient NNN, note MMM.
PHYSIONET_PATIENT = r"^(p\d+)_"


#: Our dev patients: patient NNN with NNN % 5 == DEV_REMAINDER.
DEV_REMAINDER = 1


def physionet_patient(stem: str) -> int:
    """The patient number of note ``stem`` (``pNNN_nMMM``)."""
    return int(stem[1:stem.index("_")])


def physionet_folds(stems: Sequence[str], folds: int) -> dict[int, int]:
    """``{patient: fold}`` over the patients of ``stems`` outside our dev
    split, ``folds`` folds of whole patients (every ``folds``-th patient in
    order). Our dev patients are in no fold: English rules were written
    from their notes, so a fold holding them would flatter the rules; their
    notes are training notes of every fold's run instead."""
    patients = sorted({physionet_patient(s) for s in stems if not physionet_is_dev(s)})
    return {p: i % folds for i, p in enumerate(patients)}


def physionet_is_dev(stem: str) -> bool:
    """Is note ``stem`` (``pNNN_nMMM``) one of our held-out dev patients'?"""
    return physionet_patient(stem) % 5 == DEV_REMAINDER


#: The corpus's ``lists/`` files and the list kind each is added as.
PHYSIONET_LISTS = {"staff_first_names.txt": "staff", "staff_last_names.txt": "staff",
                   "local_places.txt": "places", "hospitals.txt": "hospitals"}


def add_physionet_lists(project, root: Path, *, work: Path,
                        held_out: Callable[[str], bool] = physionet_is_dev) -> dict[str, int]:
    """Give ``project`` the corpus's hospital lists, as ``deid lists add`` does.

    The patient table keeps the rows of the patients whose notes the run
    trains on, never the ``held_out`` patients' (our dev patients by
    default; a fold's test patients): the held-out patients of the corpus
    are not in its table either, so a figure on dev with their names listed
    would promise what the held-out notes cannot show. Returns entries read
    per kind.
    """
    import csv

    from app.services.lists import add_list_file

    read: dict[str, int] = {}
    table = root / "lists" / "patients.csv"
    if table.is_file():
        with table.open(encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        kept = [rows[0]] + [r for r in rows[1:] if r and not held_out(f"{r[0]}_n")]
        trimmed = work / "patients.csv"
        with trimmed.open("w", encoding="utf-8", newline="") as f:
            csv.writer(f).writerows(kept)
        read["patients"] = add_list_file(project, trimmed, "patients").read
    for name, kind in PHYSIONET_LISTS.items():
        if (root / "lists" / name).is_file():
            read[kind] = read.get(kind, 0) + add_list_file(project, root / "lists" / name, kind).read
    return read


def create_physionet_project(path: Path, root: Path, *, work: Path, limit: int | None = None,
                             held_out: Callable[[str], bool] = physionet_is_dev):
    """A new English project (labels from the annotations) holding the
    PhysioNet training notes: the ``held_out`` notes (our dev patients by
    default, or one fold's) as ``test``, the rest unsplit; open.

    ``limit`` keeps the first notes of a seeded order of each part (the
    smoke size). Notes go through the brat importer with the patient pattern.
    """
    from app.project import Project
    from app.services.importing import import_path

    stems = sorted(p.stem for p in (root / "train").glob("*.txt"))
    parts = {"test": [s for s in stems if held_out(s)],
             None: [s for s in stems if not held_out(s)]}
    project = Project.create(fresh_path(path), [], language="en")
    try:
        for split, chosen in parts.items():
            if limit is not None:
                chosen = sorted(subsample(chosen, limit))
            dest = work / (split or "rest")
            dest.mkdir(parents=True, exist_ok=True)
            for stem in chosen:
                for suffix in (".txt", ".ann"):
                    shutil.copyfile(root / "train" / (stem + suffix), dest / (stem + suffix))
            summary = import_path(project, dest, fmt="brat", split=split,
                                  patient_regex=PHYSIONET_PATIENT)
            if summary.problems:
                raise RuntimeError(f"PhysioNet: {len(summary.problems)} file(s) not imported")
    except BaseException:
        project.close()
        raise
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
