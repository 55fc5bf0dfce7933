"""`deid demo`: the whole learning loop on the bundled synthetic notes."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from app import paths
from app.core.labels import PRESETS
from app.core.progress import ProgressFn, no_progress
from app.errors import UserError

SAMPLE_PATIENT_REGEX = r"^(P\d+)_"


def run_demo(out_dir: Path, *, progress: ProgressFn = no_progress,
             echo: Callable[[str], None] = print) -> dict:
    """Create ``out_dir/sample.deid`` from the sample notes and run the loop.

    Re-running replaces the demo's own outputs inside ``out_dir``.
    """
    from app.project import Project
    from app.services.exporting import export_project
    from app.services.importing import import_path
    from app.services.splits import assign_splits

    sample = paths.sample_notes_dir()
    if not sample.is_dir():
        raise UserError(f"bundled sample notes not found at {sample}")
    out_dir.mkdir(parents=True, exist_ok=True)
    project_path = out_dir / "sample.deid"
    for stale in out_dir.glob("sample.deid*"):
        stale.unlink()
    result: dict = {"project": str(project_path)}
    with Project.create(project_path, list(PRESETS["paper"]), language="en") as project:
        echo(f"1/3 importing the bundled sample notes into {project_path}")
        s = import_path(project, sample, fmt="brat", patient_regex=SAMPLE_PATIENT_REGEX,
                        progress=progress)
        echo(f"    {s.imported} notes, {s.spans} gold spans, {len(s.problems)} skipped")
        counts = assign_splits(project, seed=13)
        echo(f"    splits by patient: {counts}")
        result["import"] = s.as_dict()
        echo("2/3 exporting the annotated corpus (brat)")
        e = export_project(project, out_dir / "export-brat", "brat", progress=progress)
        echo(f"    {e.documents} documents to {e.out_dir}")
        result["export"] = {"documents": e.documents, "spans": e.spans}
    echo("3/3 done")
    return result
