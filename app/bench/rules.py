"""What each English rule does on notes it was not written from.

    python -m app.bench.rules GOLD_DIR
    python -m app.bench.rules --project P.deid [--project Q.deid ...] [--split test]

The English rules (``resources/rules/en.json``) were written after reading
what our dev patients' notes leaked (`app.bench.corpora.physionet_is_dev`),
so figures on those notes flatter them. This bench switches each rule off
in turn, alone, and counts what the output loses or gains, label-blind over
the canonical tokens:

* ``hidden``: identifier tokens the output hides with every rule on, less
  those it hides with this rule off (a finding rule's gain; a veto's cost
  when negative);
* ``false``: tokens that are no identifier the output replaces with every
  rule on, less those with this rule off (what the rule costs in
  precision; negative: the false tokens a veto takes away);
* ``leaking``: notes with an identifier that leak one with this rule off,
  less those with every rule on.

GOLD_DIR (a brat folder of PhysioNet notes, ``pNNN_nMMM.txt`` + ``.ann``):
day one, what a new English project replaces with no annotation (the
starter and the floor's fixed steps, `app.services.prediction`), measured
apart on the notes the rules were written from (our dev patients) and on
the others. ``--project``: the selected model of each trained project with
the fixed steps its own dev kept (and the starter's day-one spans, settled
with the same rules, where the run was trained with the starter's floor),
on its ``--split`` notes (a folds bench
project, `python -m app.bench accuracy --corpus physionet --folds 5`, keeps
a fold's test patients there: none of ours), summed over the projects.

The model runs once per note; each variant re-runs only the floor
(`app.lists.floor.Floor.settle`) on the model's spans. Prints one JSON
object: counts only, never a note's text.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from app.core.spans import Span
from app.core.tokenize import tokenize
from app.eval.metrics import marked_tokens


@dataclass
class Note:
    """One scored note: its text, gold spans, patient and the model's
    spans before the floor."""

    text: str
    gold: list[Span]
    patient: str | None
    raw: list[Span]
    group: str
    # The starter's spans before the floor, for a run trained with the
    # starter's floor (app.services.predictor.StarterFloor); else None.
    starter_raw: list[Span] | None = None
    tokens: list = field(default_factory=list)
    gold_tokens: frozenset[int] = frozenset()


@dataclass
class Setting:
    """What settles a group of notes: the floor's matcher (hospital lists or
    None), the label of each hit category and the fixed steps kept."""

    lists: object
    labels: dict[str, str]
    steps: tuple[str, ...] | None
    # The labels of the starter's floor, where the run has one.
    starter_labels: frozenset[str] = frozenset()


def rule_names() -> list[str]:
    """Every shipped rule, in the file's order."""
    from app.rules.registry import shipped_rules
    return [entry["name"] for entry in shipped_rules()]


def settle_all(notes: Sequence[Note], settings: dict[str, Setting], off: str | None) -> dict:
    """Per group: identifier tokens hidden, false tokens, notes with
    identifiers and notes leaking, with rule ``off`` switched off (None:
    every rule on)."""
    from app.lists.floor import Floor, apply_floor
    from app.rules.registry import merge, shipped_rules

    rules = merge(shipped_rules(), {"enabled": {off: False}} if off else None)
    floors = {key: Floor(s.lists, shapes=True, rules=rules) for key, s in settings.items()}
    out: dict[str, dict[str, int]] = {}
    for note in notes:
        setting = settings[note.group]
        floor = floors[note.group]
        spans = floor.settle(note.text, note.raw, setting.labels, note.patient,
                             steps=setting.steps)
        if note.starter_raw is not None:
            # What day one replaces with the same rules, every fixed step run.
            day_one = floor.settle(note.text, note.starter_raw, setting.labels, note.patient)
            spans = apply_floor(spans, [s for s in day_one if s.label in setting.starter_labels],
                                note.text)
        hidden = marked_tokens(note.tokens, spans)
        counts = out.setdefault(note.group, {"hidden": 0, "identifier_tokens": 0, "false": 0,
                                             "notes_with_identifiers": 0, "leaking": 0})
        tp = len(hidden & note.gold_tokens)
        counts["hidden"] += tp
        counts["identifier_tokens"] += len(note.gold_tokens)
        counts["false"] += len(hidden) - tp
        if note.gold_tokens:
            counts["notes_with_identifiers"] += 1
            counts["leaking"] += tp < len(note.gold_tokens)
    return out


def measure(notes: list[Note], settings: dict[str, Setting], names: Sequence[str]) -> dict:
    """Every rule's effect (see the module): ``{"all_on": {group: counts},
    "rules": {name: {group: {hidden, false, leaking}}}}``."""
    for note in notes:
        note.tokens = tokenize(note.text)
        note.gold_tokens = frozenset(marked_tokens(note.tokens, note.gold))
    base = settle_all(notes, settings, None)
    rules = {}
    for name in names:
        without = settle_all(notes, settings, name)
        rules[name] = {g: {"hidden": base[g]["hidden"] - without[g]["hidden"],
                           "false": base[g]["false"] - without[g]["false"],
                           "leaking": without[g]["leaking"] - base[g]["leaking"]}
                       for g in sorted(base)}
    for counts in base.values():
        counts["token_recall"] = round(counts["hidden"] / max(counts["identifier_tokens"], 1), 4)
        counts["token_precision"] = round(
            counts["hidden"] / max(counts["hidden"] + counts["false"], 1), 4)
    return {"all_on": base, "rules": rules}


def _raw_spans(predictor, texts: Sequence[str], patients: Sequence[str | None]) -> list[list[Span]]:
    """The predictor's spans before the floor (it settles nothing while its
    floor, and the starter's, are taken away)."""
    floor, labels, starter = predictor.lists, predictor.list_labels, predictor.starter
    predictor.use_lists(None, labels)
    predictor.starter = None
    try:
        return [p.spans for p in predictor.predict(list(texts), patients=list(patients),
                                                   spans_only=True)]
    finally:
        predictor.use_lists(floor, labels)
        predictor.starter = starter


def day_one_notes(gold_dir: Path) -> tuple[list[Note], dict[str, Setting]]:
    """Our dev patients' notes ("written_from") and the others' ("not_written_from"),
    with the starter's spans of a new empty English project (labels ``hipaa``)."""
    from app.bench.corpora import physionet_is_dev
    from app.bench.dayone import read_spans
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.prediction import _starter_predictor

    txts = sorted(Path(gold_dir).glob("*.txt"))
    if not txts:
        raise SystemExit(f"no .txt notes in {gold_dir}")
    texts = [t.read_text(encoding="utf-8") for t in txts]
    gold = [[Span(s, e, label) for label, s, e in read_spans(t.with_suffix(".ann"))]
            for t in txts]
    with tempfile.TemporaryDirectory(prefix="deid-rules-") as tmp:
        project = Project.create(Path(tmp) / "dayone.deid", list(PRESETS["hipaa"]))
        try:
            predictor = _starter_predictor(project)
            try:
                floor, labels = predictor.lists, dict(predictor.list_labels)
                raw = _raw_spans(predictor, texts, [None] * len(texts))
            finally:
                predictor.close()
        finally:
            project.close()
    setting = Setting(floor.lists, labels, None)
    notes = [Note(text, g, None, r, "written_from" if physionet_is_dev(t.stem)
                  else "not_written_from")
             for t, text, g, r in zip(txts, texts, gold, raw)]
    return notes, {"written_from": setting, "not_written_from": setting}


def project_notes(paths: Sequence[Path], split: str) -> tuple[list[Note], dict[str, Setting]]:
    """Each project's ``split`` notes with its selected model's spans; one
    group per project (its file stem)."""
    from app.project import Project
    from app.services.prediction import _starter_predictor
    from app.services.predictor import Predictor
    from app.services.runs import active_run
    from app.services.training import gold_documents

    notes: list[Note] = []
    settings: dict[str, Setting] = {}
    for path in paths:
        project = Project.open(path, readonly=True)
        try:
            docs = gold_documents(project, splits=(split,))
            if not docs:
                raise SystemExit(f"{path.name}: no annotated notes in the {split!r} split")
            run = active_run(project)
            with Predictor.from_project(project) as predictor:
                if predictor.lists is None:
                    raise SystemExit(f"{path.name}: not an English project (no English rules)")
                key = path.stem
                settings[key] = Setting(predictor.lists.lists, dict(predictor.list_labels),
                                        run.fixed_steps(run.selected),
                                        frozenset((run.starter_floor or {}).get("labels") or ()))
                patients = [d.patient_id for d in docs]
                raw = _raw_spans(predictor, [d.text for d in docs], patients)
            starter_raw = [None] * len(docs)
            if run.starter_floor:
                with _starter_predictor(project) as day_one:
                    starter_raw = _raw_spans(day_one, [d.text for d in docs], patients)
            notes += [Note(d.text, list(d.spans), d.patient_id, r, key, sr)
                      for d, r, sr in zip(docs, raw, starter_raw)]
        finally:
            project.close()
    return notes, settings


def summed(result: dict, groups: Sequence[str]) -> dict:
    """The groups' counts added up (``"all"``)."""
    out: dict = {}
    for name, by_group in result["rules"].items():
        out[name] = {k: sum(by_group[g][k] for g in groups) for k in ("hidden", "false", "leaking")}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.bench.rules",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("gold_dir", type=Path, nargs="?",
                        help="brat folder of PhysioNet notes: day one")
    parser.add_argument("--project", type=Path, action="append", default=[],
                        help="a trained project: its selected model (repeatable)")
    parser.add_argument("--split", default="test", help="with --project: the split scored")
    args = parser.parse_args(argv)
    if (args.gold_dir is None) == (not args.project):
        parser.error("give GOLD_DIR (day one) or --project (trained), not both")
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        if args.project:
            notes, settings = project_notes(args.project, args.split)
            mode = f"trained, {args.split} split"
        else:
            notes, settings = day_one_notes(args.gold_dir)
            mode = "day one"
        t1 = time.perf_counter()
        result = measure(notes, settings, rule_names())
    if args.project:
        result["rules_all_projects"] = summed(result, sorted(settings))
    result = {"mode": mode, "notes": len(notes), "groups": sorted(settings),
              "predict_seconds": round(t1 - t0, 1),
              "floor_seconds": round(time.perf_counter() - t1, 1), **result}
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
