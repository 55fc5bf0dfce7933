"""Training for the benchmarks: `train_project` with the size's overrides,
and the run's per-member figures read back from the project."""
from __future__ import annotations

from app.bench.config import Size
from app.core.progress import ProgressFn, no_progress


def default_models() -> list[str]:
    """The models a default `deid train` trains on this machine: the
    default ones of the device it uses (its run adds the lists member itself
    when the project has hospital lists)."""
    from app.services.training import device_defaults
    return device_defaults("auto")[2]


def train(project, *, budget: str, models: list[str], seed: int, size: Size,
          progress: ProgressFn = no_progress):
    """Train the project's base models and ensembles; returns the `TrainedRun`."""
    from app.services.training import TrainConfig, train_project

    config = TrainConfig(models=list(models), budget=budget, seed=seed, device="auto",
                         **size.train)
    return train_project(project, config, progress=progress)


def run_summary(project) -> dict:
    """What the active run stored: selection, members' training figures, data.

    Keys: ``run``, ``budget``, ``models`` (kinds trained), ``selected``, ``reason``, ``seconds`` (whole training
    step), ``device``, ``documents`` ({train, dev} notes),
    ``members`` ({name: {kind, variant, seconds, peak_mb, size_mb,
    dev_f1, params, run, refit}}; ``run``: the run that trained it, an earlier one
    when it was reused; ``refit``: its refit on train + dev, None without), ``ensemble_kinds`` and ``meta_models`` (what was
    asked for), ``ensembles`` (number stored), ``finishing`` (lines on the
    recall fill and propagation learned), ``dev_rows`` ({candidate: its
    row of the selection's dev table}).
    """
    from app.services.finishing import finishing_summary
    from app.services.runs import active_run

    run = active_run(project)
    members = {
        name: {"kind": info.kind, "variant": info.variant, "seconds": info.seconds,
               "peak_mb": info.peak_mb, "size_mb": info.size_mb,
               "dev_f1": info.dev.get("f1"), "params": info.params,
               "run": info.reused_from or run.id, "refit": info.refit}
        for name, info in run.members.items()}
    config = run.train_config()
    return {"run": run.id, "budget": config.budget, "models": config.models,
            "selected": run.selected,
            "reason": run.reason, "seconds": run.seconds,
            "device": run.device, "documents": run.documents,
            "ensemble_kinds": config.ensembles, "meta_models": config.meta_models,
            "members": members, "ensembles": len(run.ensembles),
            "finishing": finishing_summary(run),
            "dev_rows": {row["name"]: row for row in run.rows}}
