"""Day one: what a new English project finds with no annotation at all.

    python -m app.bench.dayone GOLD_DIR [--labels hipaa] [--keep OUT_DIR]

Makes a new empty project (``deid new --labels hipaa``: NAME, LOCATION,
AGE, DATE, CONTACT, ID, the preset that holds the PhysioNet labels), copies
only the ``.txt`` notes of GOLD_DIR to a temporary folder, runs ``deid
annotate PROJECT IN OUT --format brat`` through the CLI, and scores the
``.ann`` files against GOLD_DIR's, label-blind:

* binary-token recall and precision: a token (a run of letters or digits)
  is an identifier token when a gold span covers part of it, and hidden
  when a predicted span does, whatever the labels;
* leaking notes: notes with at least one gold identifier token that no
  prediction covers, out of the notes with identifiers;
* token recall per gold label (which kinds leak).

Prints one JSON object. Nothing is learned from GOLD_DIR: its ``.ann``
files are read only to score.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

_TOKEN_RE = re.compile(r"[^\W_]+")


def read_spans(ann: Path) -> list[tuple[str, int, int]]:
    """(label, start, end) of every text-bound (``T``) line of a brat file."""
    out = []
    if not ann.exists():
        return out
    for line in ann.read_text(encoding="utf-8").splitlines():
        if not line.startswith("T"):
            continue
        _, middle, *_ = line.split("\t")
        label, offsets = middle.split(" ", 1)
        for piece in offsets.split(";"):
            start, end = map(int, piece.split())
            out.append((label, start, end))
    return out


def _covered(tokens: list[tuple[int, int]], spans) -> list[str | None]:
    """Per token, the label of a span overlapping it (or None)."""
    out: list[str | None] = [None] * len(tokens)
    for label, s, e in spans:
        for i, (a, b) in enumerate(tokens):
            if a < e and s < b:
                out[i] = label
    return out


def score_binary_tokens(gold_dir: Path, pred_dir: Path) -> dict:
    """Label-blind token scores of ``pred_dir``'s ``.ann`` against ``gold_dir``'s."""
    tp = fp = fn = 0
    per_label: dict[str, Counter] = {}
    notes = with_ids = leaking = 0
    for txt in sorted(Path(gold_dir).glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        tokens = [m.span() for m in _TOKEN_RE.finditer(text)]
        gold = _covered(tokens, read_spans(txt.with_suffix(".ann")))
        pred = _covered(tokens, read_spans(Path(pred_dir) / f"{txt.stem}.ann"))
        notes += 1
        missed = 0
        for g, p in zip(gold, pred):
            if g is not None:
                per_label.setdefault(g, Counter())["tokens"] += 1
                if p is not None:
                    tp += 1
                    per_label[g]["hidden"] += 1
                else:
                    fn += 1
                    missed += 1
            elif p is not None:
                fp += 1
        if any(g is not None for g in gold):
            with_ids += 1
            leaking += missed > 0
    recall = tp / (tp + fn) if tp + fn else 1.0
    precision = tp / (tp + fp) if tp + fp else 1.0
    return {"notes": notes, "notes_with_identifiers": with_ids, "leaking_notes": leaking,
            "leaking_share": leaking / with_ids if with_ids else 0.0,
            "token_recall": round(recall, 4), "token_precision": round(precision, 4),
            "tp": tp, "fp": fp, "fn": fn,
            "per_label_token_recall": {k: round(v["hidden"] / v["tokens"], 4)
                                       for k, v in sorted(per_label.items())}}


def _deid(*args: str) -> None:
    from app.cli.main import main as deid

    code = deid(["-q", *args])
    if code != 0:
        raise SystemExit(f"deid {args[0]} failed with exit code {code}")


def day_one(gold_dir: Path, *, labels: str = "hipaa", keep: Path | None = None) -> dict:
    """New empty project, ``deid annotate`` on the plain notes, scores."""
    gold_dir = Path(gold_dir)
    with tempfile.TemporaryDirectory(prefix="deid-dayone-") as tmp:
        tmp_path = Path(tmp)
        notes = tmp_path / "notes"
        notes.mkdir()
        for txt in sorted(gold_dir.glob("*.txt")):
            shutil.copyfile(txt, notes / txt.name)
        project = tmp_path / "dayone.deid"
        out = keep or tmp_path / "out"
        _deid("new", str(project), "--labels", labels)
        t0 = time.perf_counter()
        _deid("annotate", str(project), str(notes), str(out), "--format", "brat")
        seconds = time.perf_counter() - t0
        result = score_binary_tokens(gold_dir, out)
    result["annotate_seconds"] = round(seconds, 1)
    result["labels"] = labels
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.bench.dayone",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("gold_dir", type=Path, help="brat folder: NAME.txt + NAME.ann")
    parser.add_argument("--labels", default="hipaa", help="label preset of the new project")
    parser.add_argument("--keep", type=Path, help="write the predicted brat files here")
    args = parser.parse_args(argv)
    # What `deid new` says of the project goes to stderr: stdout is the JSON alone.
    with contextlib.redirect_stdout(sys.stderr):
        result = day_one(args.gold_dir, labels=args.labels, keep=args.keep)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
