"""An outside scorer for brat folders: strict micro precision, recall and F1.

Deliberately independent of ``app`` (standard library only, its own brat
parser) so that it can check what ``deid annotate`` writes against gold
files the way a third party would: a predicted entity counts when a gold
entity in the same note has the same label, start and end (the MEDDOCAN
"strict" sub-track). Notes are paired by file name; a note missing from
the prediction folder counts as predicting nothing.

    python tests/brat_scorer.py GOLD_DIR PRED_DIR [--json]

It also gives the label-blind privacy figures: binary token precision and
recall (a token is an identifier token when a gold span overlaps it, and
hidden when a predicted span of any label overlaps it; tokens are runs of
letters or digits, and every other non-space character alone) and the
notes with identifiers that leak at least one identifier token.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path


def read_entities(ann: Path) -> set[tuple[str, int, int]]:
    """(label, start, end) of every text-bound annotation (``T`` line) in ``ann``."""
    found = set()
    if not ann.exists():
        return found
    for line in ann.read_text(encoding="utf-8").splitlines():
        if not line.startswith("T"):
            continue
        _, middle, *_ = line.split("\t")
        label, offsets = middle.split(" ", 1)
        pieces = [tuple(map(int, p.split())) for p in offsets.split(";")]
        found.add((label, min(p[0] for p in pieces), max(p[1] for p in pieces)))
    return found


_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w\s]|_")


def token_flags(text: str, entities: set[tuple[str, int, int]]) -> list[bool]:
    """For each token of ``text``: does an entity overlap it?"""
    ranges = sorted((s, e) for _, s, e in entities)
    return [any(s < m.end() and m.start() < e for s, e in ranges) for m in _TOKEN.finditer(text)]


def score_tokens(gold_dir: Path, pred_dir: Path) -> dict:
    """Binary (label-blind) token scores and leaking notes over ``gold_dir``."""
    tp = fp = fn = 0
    with_pii = leaking = 0
    for gold_ann in sorted(gold_dir.glob("*.ann")):
        # The note's text: beside the gold file, else beside the prediction
        # (deid annotate writes the text it read).
        txt = gold_ann.with_suffix(".txt")
        if not txt.exists():
            txt = pred_dir / txt.name
        text = txt.read_text(encoding="utf-8")
        gold = token_flags(text, read_entities(gold_ann))
        pred = token_flags(text, read_entities(pred_dir / gold_ann.name))
        missed = sum(g and not p for g, p in zip(gold, pred))
        tp += sum(g and p for g, p in zip(gold, pred))
        fp += sum(p and not g for g, p in zip(gold, pred))
        fn += missed
        with_pii += any(gold)
        leaking += missed > 0
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "notes_with_identifiers": with_pii, "notes_leaking": leaking}


def score(gold_dir: Path, pred_dir: Path) -> dict:
    """Strict micro scores over the notes (``*.ann``) of ``gold_dir``."""
    tp = fp = fn = 0
    per_label: dict[str, Counter] = {}
    notes = sorted(gold_dir.glob("*.ann"))
    for gold_ann in notes:
        gold = read_entities(gold_ann)
        pred = read_entities(pred_dir / gold_ann.name)
        for kind, items in (("tp", gold & pred), ("fp", pred - gold), ("fn", gold - pred)):
            for label, _, _ in items:
                per_label.setdefault(label, Counter())[kind] += 1
        tp += len(gold & pred)
        fp += len(pred - gold)
        fn += len(gold - pred)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"notes": len(notes), "tp": tp, "fp": fp, "fn": fn,
            "precision": p, "recall": r, "f1": f,
            "per_label": {k: dict(v) for k, v in sorted(per_label.items())},
            "tokens": score_tokens(gold_dir, pred_dir)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", type=Path)
    parser.add_argument("pred", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = score(args.gold, args.pred)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['notes']} notes: tp {result['tp']} fp {result['fp']} fn {result['fn']}; "
              f"strict P {result['precision']:.4f} R {result['recall']:.4f} F1 {result['f1']:.4f}")
        t = result["tokens"]
        print(f"binary tokens: P {t['precision']:.4f} R {t['recall']:.4f} F1 {t['f1']:.4f}; "
              f"{t['notes_leaking']} of {t['notes_with_identifiers']} notes with identifiers leak")
    return 0


if __name__ == "__main__":
    sys.exit(main())
