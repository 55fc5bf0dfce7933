"""`deid demo`: the whole learning loop on the bundled synthetic notes."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from app import paths
from app.core.labels import PRESETS
from app.core.progress import ProgressFn, no_progress
from app.errors import UserError

SAMPLE_PATIENT_REGEX = r"^(P\d+)_"


DEMO_MODELS = ("spacy", "rules")


def run_demo(out_dir: Path, *, progress: ProgressFn = no_progress,
             echo: Callable[[str], None] = print, models=DEMO_MODELS, budget: str = "quick") -> dict:
    """Create ``out_dir/sample.deid`` from the sample notes and run the loop:
    import, train (quick budget), select, evaluate on the held-out patients,
    pre-annotate, annotate and redact a folder, export.

    Re-running replaces the demo's own outputs inside ``out_dir``.
    """
    import shutil

    from app.project import Project
    from app.services.annotating import annotate_folder, preannotate
    from app.services.evaluating import evaluate_project, render_table
    from app.services.exporting import export_project
    from app.services.finishing import finishing_summary
    from app.services.importing import import_path
    from app.services.redaction import redact_corpus
    from app.services.splits import assign_splits
    from app.services.training import TrainConfig, train_project

    sample = paths.sample_notes_dir()
    if not sample.is_dir():
        raise UserError(f"bundled sample notes not found at {sample}")
    out_dir.mkdir(parents=True, exist_ok=True)
    project_path = out_dir / "sample.deid"
    for stale in out_dir.glob("sample.deid*"):
        stale.unlink()
    for sub in ("annotated", "redacted", "export-brat", "test-notes"):
        shutil.rmtree(out_dir / sub, ignore_errors=True)
    result: dict = {"project": str(project_path)}
    with Project.create(project_path, list(PRESETS["paper"]), language="en") as project:
        echo(f"1/6 importing the bundled sample notes into {project_path}")
        s = import_path(project, sample, fmt="brat", patient_regex=SAMPLE_PATIENT_REGEX,
                        progress=progress)
        echo(f"    {s.imported} notes, {s.spans} gold spans, {len(s.problems)} skipped")
        counts = assign_splits(project, seed=13)
        echo(f"    splits by patient: {counts}")
        result["import"] = s.as_dict()
        echo(f"2/6 training {', '.join(models)} on balanced and imbalanced data "
             f"({budget} budget), then voting, pruned voting and stacking ensembles")
        t = train_project(project, TrainConfig(models=list(models), budget=budget), progress=progress)
        echo(f"    selected on dev: {t.selected} ({t.reason})")
        for line in finishing_summary(t):
            echo(f"    {line}")
        result["train"] = {"run": t.id, "selected": t.selected, "seconds": t.seconds}
        echo("3/6 evaluating on the test patients (never seen in training or selection)")
        ev = evaluate_project(project, split="test", bootstrap=200, progress=progress)
        for line in render_table(ev.table, ev.model).splitlines():
            echo("    " + line)
        m = ev.report.to_dict()["micro"]
        result["evaluate"] = {k: round(v["f1"], 4) for k, v in m.items()}
        echo("4/6 pre-annotating the notes for the learning loop (suggestions + uncertainty)")
        n = preannotate(project, only_unannotated=False, limit=40, progress=progress)
        echo(f"    {n} notes now carry model suggestions for annotators")
        # The test notes as a plain folder: what a hospital would hand over.
        notes_dir = out_dir / "test-notes"
        notes_dir.mkdir()
        for info in project.document_infos(split="test"):
            (notes_dir / f"{info.name}.txt").write_text(project.document(info.id).text,
                                                       encoding="utf-8", newline="")
        echo("5/6 annotating and redacting a folder of notes (the test notes)")
        a = annotate_folder(project, notes_dir, out_dir / "annotated", progress=progress)
        echo(f"    {a.notes} notes, {a.spans} predicted spans (brat) -> {out_dir / 'annotated'}")
        summary, _ = redact_corpus(project, notes_dir, out_dir / "redacted", strategy="surrogate",
                                   report_path=str(out_dir / "redaction-report.json"),
                                   patient_regex=SAMPLE_PATIENT_REGEX, progress=progress)
        echo(f"    {summary.count('done')} notes with realistic surrogates -> {out_dir / 'redacted'}; "
             f"audit report {out_dir / 'redaction-report.html'}")
        echo("6/6 exporting the annotated corpus (brat)")
        e = export_project(project, out_dir / "export-brat", "brat", progress=progress)
        echo(f"    {e.documents} documents to {e.out_dir}")
        result["export"] = {"documents": e.documents, "spans": e.spans}
    echo(f"done: open the project with `deid-studio {project_path}`")
    return result
