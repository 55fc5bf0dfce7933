"""Entry point of the `deid` command.

Exit codes (PRODUCT.md contract): 0 success, 1 user error (one clear line,
nothing written or changed), 2 internal error.
"""
from __future__ import annotations

import argparse
import contextlib
import logging
import sys

from app import __version__
from app.errors import UserError

EXIT_OK, EXIT_USER, EXIT_INTERNAL = 0, 1, 2

#: What --patient-regex does (one rule for import, annotate and redact: app.services.settings).
NAMING_HELP = ("output file names: same, the notes' own (a name holding an identifier the "
               "project knows takes a keyed-hash name); pseudonymous, every note a keyed-hash "
               "name (choose it where file names hold record numbers or patient keys)")
PATIENT_REGEX_HELP = ("regex naming each note's patient: searched in the file name, then in its "
                      "path in the folder; group 'patient', else group 1, else the match")
FORMATS = ("brat", "conll", "jsonl", "i2b2")


class _Parser(argparse.ArgumentParser):
    """argparse, exiting with the contract's code of a user error (1, not
    argparse's 2, which the contract keeps for internal errors); the
    subcommands' parsers are of this class too."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USER, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="deid", description="DeID Studio: offline de-identification of clinical notes.")
    p.add_argument("--version", action="version", version=f"DeID Studio {__version__}")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress display; Stanza and Flair print warnings only")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    s = sub.add_parser("new", help="create a project file")
    s.add_argument("project")
    s.add_argument("--labels",
                   help="label preset (paper, extended, hipaa, meddocan, none) or a JSON file; "
                        "default: hipaa for English notes (every date, age and place the "
                        "starter model finds has a label), paper otherwise")
    s.add_argument("--language", default="en", help="language of the notes (en, es, ...)")
    # app.services.redaction.LOCALES, spelled out to keep start-up light.
    s.add_argument("--locale", choices=("en_AU", "en_GB", "en_US", "es_ES"),
                   help="where the notes were written: surrogate names/places and how numeric "
                        "dates read (en_US month-first, the others day-first); default: read "
                        "the date order off the notes at the first redaction")

    s = sub.add_parser("import", help="import notes or annotated documents")
    s.add_argument("project")
    s.add_argument("path")
    s.add_argument("--format", default="auto", choices=("auto", "txt") + FORMATS)
    s.add_argument("--split", choices=("train", "dev", "test"))
    s.add_argument("--patient-regex", help=PATIENT_REGEX_HELP)
    s.add_argument("--annotator", help="record imported spans as this annotator's")
    s.add_argument("--map", nargs="+", metavar="FILE_LABEL=LABEL", dest="label_map",
                   help="file the annotations' labels under the project's (PERSON=NAME "
                        "DOB=DATE ...), or auto: each under the project label of its kind")
    s.add_argument("--no-suggest", action="store_true",
                   help="leave the new notes without suggestions (by default they get the "
                        "model's, the starter model's or the rules', as in the desktop app)")

    # The training choices come from one light schema (no NumPy, no model library).
    from app.services import schema
    defaults = schema.TrainConfig()
    s = sub.add_parser("train", help="train base models and ensembles")
    s.add_argument("project")
    s.add_argument("--models", nargs="+",
                   help=f"base models ({' '.join(schema.builtin_kinds())}); default on the CPU "
                        f"{' '.join(schema.default_models('cpu'))} (the neural models take hours "
                        f"there; transformer too where the CPU computes in bfloat16, as deid "
                        f"doctor says), with a GPU {' '.join(schema.default_models('cuda'))}; and lists "
                        "when the project has hospital lists (starter is for English projects)")
    # Each option's dest is its TrainConfig field (cmd_train builds the config from them).
    s.add_argument("--data", dest="variants", nargs="+", choices=schema.VARIANTS,
                   default=defaults.variants)
    s.add_argument("--device", default=defaults.device, choices=schema.DEVICES)
    s.add_argument("--budget", default=defaults.budget, choices=schema.BUDGETS)
    s.add_argument("--seed", type=int, default=defaults.seed)
    s.add_argument("--objective", default=defaults.objective, choices=schema.OBJECTIVES,
                   help="how the final model is selected on dev: privacy (default: the best strict "
                        "F1 among models hiding >= the target of identifier tokens; if none does, "
                        "the one hiding most, and the run says so), strict F1, strict F2, the best "
                        "precision with strict recall >= the target, or the best token precision "
                        "with binary PII-token recall >= the target (the share of identifier "
                        "tokens hidden)")
    s.add_argument("--group", action="append", default=[], metavar="NAME=MODEL,MODEL,...",
                   help="also build the ensembles over these members (model kinds or member "
                        "names, e.g. fast=spacy,crf,rules); repeatable")
    s.add_argument("--recall-target", type=float, default=defaults.recall_target,
                   help="the recall the privacy and precision_at_* objectives must reach on dev "
                        "(default 0.99)")
    s.add_argument("--cost-tolerance", type=float, default=defaults.cost_tolerance,
                   help="pick the fastest candidate within this dev-score margin of the best "
                        "(0: always the best score)")
    s.add_argument("--flair-minilm", action=argparse.BooleanOptionalAction, default=None,
                   help="add the vendored MiniLM embeddings, frozen, to Flair (default: only on a "
                        "GPU); the fine-tuned MiniLM is the `transformer` model kind")
    s.add_argument("--jobs", type=int, default=defaults.jobs,
                   help="members trained at once, each in its own process (default 1); "
                        "on a GPU machine 3-4 lets spaCy use the CPU while Stanza and Flair share the GPU")
    s.add_argument("--max-minutes", type=float,
                   help="safety stop on the clock for the whole run, replacing the budget's "
                        "(the budget bounds the work; the run says so when the clock stops it)")
    s.add_argument("--fill", action=argparse.BooleanOptionalAction, default=defaults.fill,
                   help="learn on dev which members' spans of which labels are added where the "
                        "selected model found nothing (default: on)")
    s.add_argument("--propagate", action=argparse.BooleanOptionalAction, default=defaults.propagate,
                   help="learn on dev which labels' predicted strings are tagged wherever "
                        "they recur in a note (default: on)")
    s.add_argument("--refit", action=argparse.BooleanOptionalAction, default=defaults.refit,
                   help="after the selection, train the CRF members (and a transformer trained "
                        "on a GPU) again on train + dev with the settings they were selected "
                        "with (the transformer: the epochs and threshold dev chose) (default: on)")
    s.add_argument("--starter-floor", action=argparse.BooleanOptionalAction,
                   default=defaults.starter_floor,
                   help="English: what the shipped starter replaces on day one stays replaced; "
                        "the trained model adds to it (default: on)")
    s.add_argument("--cross-fit", type=int, metavar="K", default=defaults.cross_fit,
                   help="fit the ensembles and choose the model on every annotated note, each "
                        "tagged by members trained without its patient (K folds: K more fits "
                        "of each trained member); 0: on the dev notes alone (default: "
                        f"{defaults.cross_fit})")
    s.add_argument("--reuse-members", action="store_true",
                   help="keep the members of the last run (same notes and split) and redo only "
                        "the ensembles and the selection, e.g. with another --objective")

    s = sub.add_parser("evaluate", help="score the selected model on a split")
    s.add_argument("project")
    s.add_argument("--split", default="test", choices=("train", "dev", "test"))
    s.add_argument("--model", help="a base model or ensemble name instead of the selected one")
    s.add_argument("--json", dest="json_path", help="write the stable JSON report here")
    s.add_argument("--read-only", action="store_true",
                   help="open the project without writing to it (also chosen by itself when "
                        "another process is writing the project)")

    s = sub.add_parser("split", help="give the notes without a split one (train/dev/test), "
                                     "by patient")
    s.add_argument("project")
    s.add_argument("--dev", type=float, default=0.15, help="share of patients in dev (0.15)")
    s.add_argument("--test", type=float, default=0.15, help="share of patients in test (0.15)")
    s.add_argument("--seed", type=int, default=13)

    s = sub.add_parser("annotate", help="predict spans for every note in a folder")
    s.add_argument("project")
    s.add_argument("in_dir")
    s.add_argument("out_dir")
    s.add_argument("--patient-regex",
                   help=PATIENT_REGEX_HELP + ", for the hospital lists' patient table; "
                        "default: the import's")
    s.add_argument("--format", default="brat", choices=("brat", "jsonl"))
    s.add_argument("--force", action="store_true",
                   help="replace .ann/.jsonl files already in OUT_DIR (never done unasked)")
    _add_scale_options(s)
    s.add_argument("--read-only", action="store_true",
                   help="open the project without writing to it (also chosen by itself when "
                        "another process is writing the project)")

    s = sub.add_parser("preannotate",
                       help="suggest labels for the project's notes still to do (the learning "
                            "loop): the trained model's, the starter model's, else the rules'")
    s.add_argument("project")
    s.add_argument("--limit", type=int,
                   help="only the first N notes to do (the annotation queue's order is right "
                        "afterwards: their uncertainty is stored)")

    s = sub.add_parser("redact", help="write a de-identified copy of a folder of notes")
    s.add_argument("project")
    s.add_argument("in_dir")
    s.add_argument("out_dir")
    s.add_argument("--strategy", choices=("tag", "bracket", "remove", "redact", "mask", "surrogate"),
                   help="one strategy for every label (redact: the same as remove; default: "
                        "the project's policy, as set in the preview)")
    s.add_argument("--report", help="audit report path (.json; an .html is written beside it; "
                                    "default: deid-report.json in OUT_DIR)")
    _add_scale_options(s)
    s.add_argument("--naming", default="same", choices=("same", "pseudonymous"), help=NAMING_HELP)
    s.add_argument("--patient-regex", help=PATIENT_REGEX_HELP)
    s.add_argument("--strict", action="store_true", help="fail if the leak re-scan finds anything")
    s.add_argument("--rules-only", action="store_true", help="use the rule recogniser, not the trained model")
    s.add_argument("--force", action="store_true",
                   help="replace files in OUT_DIR that deid did not write (never done unasked)")
    s.add_argument("--use-annotations", action="store_true",
                   help="redact the spans of brat .ann files beside the notes instead of predicting")
    s.add_argument("--dismiss", nargs="+", metavar="ID", default=(),
                   help="suspicions (ids as listed by an earlier run) that are not leaks: "
                        "no longer reported, no longer withheld by --strict")
    s.add_argument("--scan-threshold", type=float, metavar="P",
                   help="the leak scan suspects a word the model gives at least this chance of "
                        "being an identifier (default 0.05, 0.5 while the starter model predicts; "
                        "lower finds more of what the model missed, with more false alarms: "
                        "BENCHMARKS.md)")

    s = sub.add_parser("export", help="export documents and annotations, or the documents "
                                      "de-identified (--format redacted)")
    s.add_argument("project")
    s.add_argument("out_dir")
    s.add_argument("--format", required=True, choices=FORMATS + ("redacted",),
                   help="redacted: the documents de-identified with the project's policy, "
                        "as the preview shows them, and an audit report")
    s.add_argument("--split", choices=("train", "dev", "test"))
    s.add_argument("--include-suggestions", action="store_true")
    s.add_argument("--force", action="store_true",
                   help="replace files in OUT_DIR that deid did not write (never done unasked)")
    s.add_argument("--read-only", action="store_true",
                   help="open the project without writing to it (also chosen by itself when "
                        "another process is writing the project)")
    s.add_argument("--strategy", choices=("tag", "bracket", "remove", "redact", "mask", "surrogate"),
                   help="redacted: one strategy for every label (default: the project's policy)")
    s.add_argument("--naming", default="same", choices=("same", "pseudonymous"), help=NAMING_HELP)
    s.add_argument("--strict", action="store_true",
                   help="redacted: fail while the leak scan suspects anything")
    s.add_argument("--rules-only", action="store_true",
                   help="redacted: use the rule recogniser, not the trained model")
    s.add_argument("--report", help="redacted: audit report path (.json; an .html beside it; "
                                    "default deid-report in OUT_DIR, where deid audit reads it)")
    s.add_argument("--dismiss", nargs="+", metavar="ID", default=(),
                   help="redacted: suspicions (ids as listed) that are not leaks")
    s.add_argument("--scan-threshold", type=float, metavar="P",
                   help="redacted: the leak scan suspects a word the model gives at least this chance of "
                        "being an identifier (default 0.05, 0.5 while the starter model predicts; "
                        "lower finds more of what the model missed, with more false alarms: "
                        "BENCHMARKS.md)")

    s = sub.add_parser("audit", help="measure the residual risk of an export: draw a sample "
                                     "to review, then bound the leak rate from the review")
    s.add_argument("project")
    s.add_argument("folder", help="the export (a folder written by redact or export)")
    s.add_argument("--notes", type=int, help="sample size (default: enough for --max-rate)")
    s.add_argument("--max-rate", type=float, default=0.05,
                   help="the leak rate to show at most, if the sample holds no leak (0.05)")
    s.add_argument("--finish", action="store_true",
                   help="read the filled review file and write the residual risk to the report")
    s.add_argument("--review", help="the filled review file (default: FOLDER/audit-review.tsv)")
    s.add_argument("--reviewer", help="who reviewed the notes (required with --finish)")
    s.add_argument("--seed", type=int, help="seed of the sample (default: a random one, recorded)")
    s.add_argument("--force", action="store_true",
                   help="draw a new sample over a review file a reviewer has begun to fill")

    s = sub.add_parser("lists", help="the hospital's lists: patient table, staff, places, ...")
    s.add_argument("project")
    lsub = s.add_subparsers(dest="lists_action", metavar="ACTION")
    lsub.required = True
    # app.lists.LIST_KINDS, spelled out to keep start-up light.
    kinds = ("patients", "staff", "places", "hospitals", "wards", "other")
    a = lsub.add_parser("add", help="add a list file (CSV patient table or one entry a line)")
    a.add_argument("file")
    a.add_argument("--kind", required=True, choices=kinds)
    a.add_argument("--map", nargs="+", metavar="FIELD=COLUMN",
                   help="patient table columns: patient_id first_name last_name other_names dob "
                        "record_numbers phones addresses (e.g. patient_id=ID last_name=SURNAME; "
                        "default: columns named so)")
    lsub.add_parser("show", help="entries per kind (counts only) and the labels they take")
    r = lsub.add_parser("remove", help="delete every entry of one kind")
    r.add_argument("--kind", required=True, choices=kinds)

    s = sub.add_parser("rules", help="the English rules after the models: list, read, switch, "
                                     "add, remove, export")
    s.add_argument("project")
    rsub = s.add_subparsers(dest="rules_action", metavar="ACTION")
    rsub.required = True
    rsub.add_parser("list", help="every rule, on or off, and the label it gives")
    for action, what in (("show", "every field of one rule"), ("on", "switch a rule on"),
                         ("off", "switch a rule off for this project")):
        rsub.add_parser(action, help=what).add_argument("name")
    a = rsub.add_parser("add", help="add the site's own rules (a JSON file: name, kind, "
                                    "patterns, context, unless, example, evidence, enabled)")
    a.add_argument("file")
    a.add_argument("--replace", action="store_true",
                   help="replace the project's own rules of the same names (a corrected file)")
    rsub.add_parser("remove", help="remove rules of the site's own (a shipped rule is "
                                   "switched off instead)").add_argument("name", nargs="+")
    rsub.add_parser("export", help="write the site's own rules to a JSON file another "
                                   "project can add").add_argument("file")

    s = sub.add_parser("demo", help="whole learning loop on the bundled sample notes")
    s.add_argument("out_dir", nargs="?", default="deid-demo")

    sub.add_parser("doctor", help="versions, CPU/GPU found, offline self-check")

    s = sub.add_parser("synth", help="generate synthetic English clinical notes (brat)")
    s.add_argument("out_dir")
    s.add_argument("--n", type=int, default=100)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--locale", default="en_AU", choices=("en_AU", "en_US", "mixed"))
    s.add_argument("--labels", default="paper", choices=("paper", "extended"))
    s.add_argument("--style", default="discharge", choices=("discharge", "icu", "mixed"),
                   help="discharge letters (default), ICU nursing notes, or both")
    return p


@contextlib.contextmanager
def _terminate_as_interrupt():
    """Within the block, SIGTERM (and SIGHUP: the terminal closed) raise
    KeyboardInterrupt.

    Python's default is to die on the spot, skipping every ``finally``: the
    training workers and the private temp folders holding trained weights
    would outlive the command. As an interrupt they are cleaned up, and the
    project file keeps its last saved state.
    """
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            try:
                previous[name] = signal.signal(getattr(signal, name), interrupt)
            except ValueError:            # not the main thread
                pass
    try:
        yield
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with _terminate_as_interrupt():
        return _run(args)


def _run(args) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.quiet:
        from app.core.logs import quiet_library_logs
        quiet_library_logs()
    from app.paths import set_offline_env
    set_offline_env()
    from app.cli import commands
    handler = getattr(commands, "cmd_" + args.command)
    try:
        from app.core.private import sweep_stale
        sweep_stale()            # private temp folders a killed command left behind
        return handler(args) or EXIT_OK
    except UserError as exc:
        print(f"deid: error: {exc}", file=sys.stderr)
        return EXIT_USER
    except KeyboardInterrupt:
        print("deid: interrupted", file=sys.stderr)
        return EXIT_USER
    except BrokenPipeError:
        # The reader of the output went away (``deid ... | head``): nothing
        # is wrong inside; stop quietly, with stdout sent nowhere so that
        # Python's flush at exit does not fail again.
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_USER
    except Exception as exc:  # noqa: BLE001 - the contract wants exit 2, not a traceback
        from app.errors import environment_problem
        problem = environment_problem(exc)
        if problem is not None:
            print(f"deid: error: {problem}", file=sys.stderr)
            return EXIT_USER
        from app.errors import log_internal_error
        print(f"deid: {log_internal_error(exc)}", file=sys.stderr)
        return EXIT_INTERNAL


def _add_scale_options(s) -> None:
    """``--workers`` and ``--cluster``, shared by annotate and redact."""
    s.add_argument("--workers", type=int, default=None,
                   help="processes running the models (default: every core of this machine; "
                        "a folder of one batch of notes is done in one process)")
    s.add_argument("--cluster", metavar="ADDRESS",
                   help="run the models on a Dask cluster: a scheduler address "
                        "(tcp://host:8786) or local:N for N worker processes here; needs the "
                        "optional extra: pip install \"deid-studio[cluster]\"")


if __name__ == "__main__":
    sys.exit(main())

