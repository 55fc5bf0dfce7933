"""Tiny synthetic projects for the service tests (import as a plain module)."""
from pathlib import Path

from app.core.labels import PRESETS
from app.project import Project
from app.synth import generate


def make_project(path: Path, n: int = 40) -> Path:
    """``n`` synthetic notes, all annotated: every fifth in test, every fifth in dev."""
    docs = generate(n, seed=7)
    with Project.create(path, list(PRESETS["paper"])) as p:
        for i, d in enumerate(docs):
            split = "test" if i % 5 == 0 else "dev" if i % 5 == 1 else "train"
            p.add_document(d.name, d.text, patient_id=d.patient_id, split=split,
                           status="done", spans=d.spans, span_source="import")
    return path
