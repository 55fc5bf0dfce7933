"""``python -m app.bench``: run the benchmarks, write JSON + Markdown, update BENCHMARKS.md.

::

    python -m app.bench accuracy --corpus meddocan|physionet|synthetic [--budget B] [--models ...]
    python -m app.bench learning-curve [--corpus meddocan|physionet] [--budget B] [--models ...]
    python -m app.bench speed [--budget B] [--models ...] [--project P.deid] [--notes DIR]
    python -m app.bench cluster --project P.deid [--notes DIR]   # Dask, 1 vs 2 workers
    python -m app.bench report                 # BENCHMARKS.md from OUT/*.json
    python -m app.bench all [--budget B]       # all of the above, then report

Common options: ``--meta-models lr xgb`` (stacking meta-models),
``--flair-minilm``/``--no-flair-minilm`` (Flair with or without MiniLM),
``--data balanced|imbalanced`` (the base models' data variants, as ``deid train --data``),
``--out DIR`` (default ``bench-out/``), ``--seed N``,
``--smoke`` (tiny data and the quick budget: the tests' size), ``--write-md`` (update
BENCHMARKS.md after a part), ``--benchmarks FILE`` (another BENCHMARKS.md).
Exit codes: 0 done, 1 user error (missing corpus, unknown model), 2 internal.
"""
from __future__ import annotations

import argparse
import logging
import os
import shlex
import sys
import traceback
from dataclasses import replace
from pathlib import Path

from app.bench.config import BENCHMARKS_MD, DEFAULT_OUT, size_for
from app.errors import UserError

PARTS = ("accuracy", "learning-curve", "speed", "cluster", "report", "all")


def build_parser() -> argparse.ArgumentParser:
    from app.services import schema
    p = argparse.ArgumentParser(prog="python -m app.bench",
                                description="Reproduce the figures of BENCHMARKS.md.")
    p.add_argument("part", choices=PARTS)
    p.add_argument("--corpus", choices=("meddocan", "physionet", "synthetic"), default="meddocan",
                   help="accuracy and learning-curve (default meddocan; a learning curve on "
                        "meddocan or physionet)")
    p.add_argument("--budget", choices=schema.BUDGETS, default=schema.TrainConfig().budget)
    p.add_argument("--models", nargs="+", default=None,
                   help="base model kinds (default: a default `deid train`'s on this machine: "
                        f"{' '.join(schema.default_models('cpu'))} on a CPU, "
                        f"{' '.join(schema.default_models('cpu', True))} on one computing "
                        f"in bfloat16, "
                        f"{' '.join(schema.default_models('cuda'))} with a GPU)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--meta-models", nargs="+", choices=schema.META_MODELS, default=None,
                   help="stacking meta-models to train (default: the training service's: "
                        "lr svm xgb)")
    p.add_argument("--data", dest="variants", nargs="+", choices=schema.VARIANTS, default=None,
                   help="as `deid train --data`: the data variants each base model is trained on "
                        "(default: both)")
    p.add_argument("--cross-fit", type=int, default=0, metavar="K",
                   help="as `deid train --cross-fit`: ensembles fitted and the model chosen on "
                        "every annotated note, K-fold cross-fitted by patient (0: off)")
    p.add_argument("--flair-minilm", action=argparse.BooleanOptionalAction, default=None,
                   help="as `deid train --flair-minilm`: Flair with (or without) the vendored "
                        "MiniLM embeddings (default: the training service's)")
    p.add_argument("--folds", type=int, default=None, metavar="N",
                   help="accuracy on PhysioNet: a default run on each of N patient-disjoint folds "
                        "of the training notes outside our dev split, each fold and the mean")
    p.add_argument("--fold", type=int, default=None, metavar="K",
                   help="with --folds N: run fold K alone (0 to N-1), to try a change on one "
                        "fold; no target is checked")
    p.add_argument("--folds-at-once", type=int, default=1, metavar="N",
                   help="with --folds: train up to N folds at once, each in its own process "
                        "(many cores or a GPU; default 1, one after another)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="as `deid train --jobs`: members trained side by side, each in its own "
                        "process (default: the training service's, 1)")
    p.add_argument("--smoke", action="store_true", help="tiny data (tests)")
    p.add_argument("--lists", action="store_true",
                   help="accuracy --corpus physionet: give the project the corpus's hospital lists "
                        "(staff, places, hospitals, the training patients' table) before training")
    p.add_argument("--project", type=Path, default=None,
                   help="speed and accuracy: measure this trained project instead of "
                        "building and training one")
    p.add_argument("--notes", type=Path, default=None,
                   help="speed and cluster: time annotate/redact on these .txt notes (e.g. "
                        "MEDDOCAN test for a MEDDOCAN model; default: the synthetic notes)")
    p.add_argument("--write-md", action="store_true", help="update BENCHMARKS.md afterwards")
    p.add_argument("--benchmarks", type=Path, default=BENCHMARKS_MD,
                   help="the BENCHMARKS.md to update (default: the repository's)")
    p.add_argument("-q", "--quiet", action="store_true")
    return p


def _command(argv: list[str]) -> str:
    return "python -m app.bench " + shlex.join(argv)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    # Offline always: nothing a model library does may reach the hub.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if args.quiet:
        # As `deid -q`: Flair logs INFO through its own stdout handler, so a
        # root level alone does not keep it off the terminal.
        from app.core.logs import quiet_library_logs
        quiet_library_logs()
        logging.getLogger().setLevel(logging.ERROR)

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, flush=True)

    if args.smoke:
        args.budget = "quick"      # tiny data: the shortest training too
    try:
        written = run(args, _command(argv), log)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Exception:
        traceback.print_exc()
        return 2
    for path in written:
        log(f"wrote {path}")
    return 0


def run(args: argparse.Namespace, command: str, log) -> list[Path]:
    from app.bench.markdown import update_benchmarks
    from app.bench.record import finish_record, load_records, start_record, write_record
    from app.bench.train import default_models

    size = size_for(args.budget, args.smoke)
    if args.meta_models:
        size = replace(size, train={**size.train, "meta_models": list(args.meta_models)})
    if args.flair_minilm is not None:
        size = replace(size, train={**size.train, "flair_minilm": args.flair_minilm})
    if args.variants:
        size = replace(size, train={**size.train, "variants": list(args.variants)})
    if args.cross_fit:
        size = replace(size, train={**size.train, "cross_fit": args.cross_fit})
    if args.jobs is not None:
        size = replace(size, train={**size.train, "jobs": args.jobs})
    models = args.models or default_models()
    if args.models:
        from app.models.base import known_kinds
        unknown = sorted(set(models) - set(known_kinds()))
        if unknown:
            raise UserError(f"unknown model(s): {', '.join(unknown)} (known: {', '.join(known_kinds())})")
    out: Path = args.out
    written: list[Path] = []

    def part(rec_id: str, name: str, fn) -> dict:
        rec = start_record(rec_id, name, command=command, budget=args.budget, size=size.name,
                           models=models, seed=args.seed)
        results, targets = fn()
        if name in ("speed", "accuracy", "cluster"):
            # A reused project says itself what was trained, and how.
            rec["budget"] = results["train"]["budget"] or rec["budget"]
            rec["models"] = results["train"]["models"] or rec["models"]
        finish_record(rec, results, targets)
        written.extend(write_record(rec, out))
        return rec

    common = dict(budget=args.budget, models=models, size=size, out_dir=out, seed=args.seed, log=log)
    records = []
    if args.part in ("accuracy", "all"):
        from app.bench.accuracy import run_accuracy
        corpora = ("synthetic", "meddocan", "physionet") if args.part == "all" else (args.corpus,)
        if args.folds and args.part == "accuracy":
            from app.bench.accuracy import run_folds
            corpora = ()
            name = ("accuracy-physionet-folds" + ("-lists" if args.lists else "")
                    + (f"-fold{args.fold}" if args.fold is not None else ""))
            records.append(part(name, "folds", lambda: run_folds(
                args.corpus, folds=args.folds, lists=args.lists, only=args.fold,
                at_once=args.folds_at_once, quiet=args.quiet, **common)))
        for corpus in corpora:
            lists = args.lists and corpus == "physionet"
            records.append(part(f"accuracy-{corpus}" + ("-lists" if lists else ""), "accuracy",
                                lambda c=corpus, lists=lists: run_accuracy(
                                    c, project=args.project if args.part == "accuracy" else None,
                                    lists=lists, **common)))
    if args.part in ("speed", "all"):
        from app.bench.speed import run_speed
        project = args.project
        if project is None and args.part == "all":
            # The synthetic accuracy run trained the same models on the same sample.
            project = Path(records[0]["results"]["project"])
        records.append(part("speed", "speed", lambda: run_speed(project=project, notes=args.notes,
                                                                **common)))
    if args.part == "cluster":
        from app.bench.speed import run_cluster
        records.append(part("cluster", "cluster", lambda: run_cluster(
            project=args.project, notes=args.notes, **common)))
    from app.bench.markdown import render_cluster, scale_lines
    for rec in records:          # the scaling tables, on the terminal too (also with -q)
        if rec["part"] == "speed" and "scale" in rec["results"]:
            print("\n".join(scale_lines(rec["results"]["scale"])), flush=True)
        elif rec["part"] == "cluster":
            print("\n".join(render_cluster(rec)), flush=True)
    if args.part in ("learning-curve", "all"):
        from app.bench.learning import run_learning_curve
        curves = (("meddocan", "physionet") if args.part == "all"
                  else (args.corpus,))
        for corpus in curves:
            rec_id = "learning-curve" if corpus == "meddocan" else f"learning-curve-{corpus}"
            records.append(part(rec_id, "learning-curve",
                                lambda c=corpus: run_learning_curve(corpus=c, **common)))
    if args.part == "report":
        from app.bench.markdown import render_record
        records = load_records(out)
        if not records:
            raise UserError(f"no benchmark results in {out}: run a part first")
        for rec in records:
            md = out / f"{rec['id']}.md"
            md.write_text(render_record(rec), encoding="utf-8")
            written.append(md)
    if args.write_md or args.part in ("report", "all"):
        written.append(update_benchmarks(args.benchmarks, records))
    return written
