"""Replaced spans that are no identifier: how many, and how many are clinical words.

    python -m app.bench.falsehits GOLD_DIR [--patients dev|train] [--show N]
    python -m app.bench.falsehits --project PROJECT.deid [--split test] [--show N]

GOLD_DIR is a brat folder of PhysioNet notes (``pNNN_nMMM.txt`` + ``.ann``).
``--patients dev`` takes our held-out dev patients (number % 5 == 1,
`app.bench.corpora.physionet_is_dev`), ``train`` the others (the notes
the English rules may be written from). The notes go through day one
(`app.bench.dayone`: a new empty English project, ``deid annotate``, the
starter and the English rules, nothing learned), and every predicted span
that overlaps no gold span is a false hit. With ``--project`` the
project's active model (what its exports replace, hospital lists and
English rules included) predicts on the split's annotated notes instead
(a PhysioNet bench project keeps our dev patients as its ``test`` split): something an export would
replace that is no identifier. A false hit is

* ``clinical_abbreviation`` when it touches a word of the shipped
  lexicon's ``clinical_abbreviations`` (``resources/rules/en.json``:
  "USOH", "CON'T", "flo-by" ...; `app.rules.vetoes.holds_clinical_abbreviation`);
* ``all_common_words`` when every word is a common English or clinical
  word of the shipped dictionary (`app.rules.dictionaries.is_common_word`).

Prints one JSON object of counts. ``--show N`` also prints (to stderr,
for your own screen only) the N most frequent false-hit texts.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

_WORD_RE = re.compile(r"[A-Za-z]+")


def false_hits(gold_dir: Path, pred_dir: Path) -> tuple[Counter, Counter]:
    """Counts over ``pred_dir``'s spans scored against ``gold_dir``, and the
    texts of the false hits."""
    from app.bench.dayone import read_spans

    counts: Counter = Counter()
    texts: Counter = Counter()
    for txt in sorted(Path(gold_dir).glob("*.txt")):
        _count(counts, texts, txt.read_text(encoding="utf-8"), read_spans(txt.with_suffix(".ann")),
               read_spans(Path(pred_dir) / f"{txt.stem}.ann"))
    return counts, texts


def _count(counts: Counter, texts: Counter, text: str, gold, predicted) -> None:
    """Add one note's predicted ``(label, start, end)`` against its gold."""
    from app.rules.dictionaries import is_common_word
    from app.rules.vetoes import holds_clinical_abbreviation

    counts["notes"] += 1
    counts["words"] += len(_WORD_RE.findall(text)) + len(re.findall(r"\d+", text))
    for label, s, e in predicted:
        counts["replaced_spans"] += 1
        if any(a < e and s < b for _, a, b in gold):
            continue
        counts["not_identifiers"] += 1
        counts[f"not_identifiers_{label}"] += 1
        words = _WORD_RE.findall(text[s:e])
        if holds_clinical_abbreviation(text, s, e):
            counts["clinical_abbreviation"] += 1
        if words and all(is_common_word(w) for w in words):
            counts["all_common_words"] += 1
        texts[f"{label}\t{text[s:e]}"] += 1


def measure_project(project, split: str = "test", *, show: int = 0) -> dict:
    """The project's active model on the split's notes; counts of false hits."""
    from app.services.predictor import Predictor

    counts: Counter = Counter()
    texts: Counter = Counter()
    with Predictor.from_project(project) as predictor:
        for info in project.document_infos(split=split):
            text = project.document(info.id).text
            gold = [(g.label, g.start, g.end) for g in project.gold_spans(info.id)]
            predicted = [(s.label, s.start, s.end) for s in predictor.predict_spans(text)]
            _count(counts, texts, text, gold, predicted)
    return _result(f"project {split}", counts, texts, show)


def _result(patients: str, counts: Counter, texts: Counter, show: int) -> dict:
    if show:
        for line, n in texts.most_common(show):
            print(f"{n:4d}\t{line}", file=sys.stderr)
    for key in ("replaced_spans", "not_identifiers", "clinical_abbreviation", "all_common_words"):
        counts.setdefault(key, 0)
    out = {"patients": patients, **dict(sorted(counts.items()))}
    out["not_identifiers_per_1000_words"] = round(
        1000 * counts["not_identifiers"] / counts["words"], 2) if counts["words"] else 0.0
    return out


def measure(gold_dir: Path, patients: str = "dev", *, show: int = 0) -> dict:
    """Day one on the ``patients`` notes of ``gold_dir``; counts of false hits."""
    from app.bench.corpora import physionet_is_dev
    from app.bench.dayone import day_one

    with tempfile.TemporaryDirectory(prefix="deid-falsehits-") as tmp:
        picked = Path(tmp) / "gold"
        picked.mkdir()
        for txt in sorted(Path(gold_dir).glob("*.txt")):
            if physionet_is_dev(txt.stem) == (patients == "dev"):
                shutil.copyfile(txt, picked / txt.name)
                ann = txt.with_suffix(".ann")
                if ann.exists():
                    shutil.copyfile(ann, picked / ann.name)
        pred = Path(tmp) / "pred"
        day_one(picked, keep=pred)
        counts, texts = false_hits(picked, pred)
    return _result(patients, counts, texts, show)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.bench.falsehits",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("gold_dir", type=Path, nargs="?", help="brat folder of PhysioNet notes")
    parser.add_argument("--project", type=Path, help="a trained project: its active model predicts")
    parser.add_argument("--split", default="test", help="with --project: the split scored")
    parser.add_argument("--patients", choices=("dev", "train"), default="dev",
                        help="our dev patients (number %% 5 == 1) or the others")
    parser.add_argument("--show", type=int, default=0, metavar="N",
                        help="print the N most frequent false-hit texts to stderr")
    args = parser.parse_args(argv)
    with contextlib.redirect_stdout(sys.stderr):
        if args.project is not None:
            from app.project import Project
            project = Project.open(args.project)
            try:
                result = measure_project(project, args.split, show=args.show)
            finally:
                project.close()
        elif args.gold_dir is not None:
            result = measure(args.gold_dir, args.patients, show=args.show)
        else:
            parser.error("give GOLD_DIR or --project")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
