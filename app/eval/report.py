"""The evaluation report behind ``deid evaluate``.

`evaluate` compares gold and predicted spans of parallel notes and returns
an `EvaluationReport`; `EvaluationReport.render` is the CLI's text table and
`EvaluationReport.to_json` the stable machine-readable form. No identifier
text is ever stored in a report: errors are ``(note, start, end, label)``.

JSON schema (``"schema": "deid.evaluation/1"``; keys appear in this order)
-------------------------------------------------------------------------
::

    schema        "deid.evaluation/1"
    notes         number of notes evaluated
    labels        labels evaluated, sorted
    micro         {"strict"|"relaxed"|"token": PRF}
    per_label     {label: {"support": gold spans, "strict": PRF, "relaxed": PRF,
                           "token": {"tokens": gold tokens of the label,
                                     "missed": those no prediction covers,
                                     "recall": share covered (1.0 with none)}}}
                  (the token entry is label-blind: which kinds of identifier leak)
    confusion     {"exact":   [{"gold": label, "pred": label, "count": n}, ...],
                   "overlap": [...]}
                  exact: same offsets, different label; overlap: overlapping
                  spans with different offsets and labels; sorted by count
                  (descending), then labels
    privacy       {"missed_identifiers": gold spans no prediction of any
                   label overlaps,
                   "notes_with_identifiers": notes with >= 1 gold span,
                   "notes_with_missed": notes with >= 1 missed identifier,
                   "notes_with_missed_share": notes_with_missed / notes
                   (0.0 when there are no notes),
                   "visible_words": gold identifier tokens with a letter or
                   digit that no prediction covers (what a reader would see:
                   the half of a name a partial span leaves),
                   "notes_with_visible_word": notes with >= 1 of them}
    bootstrap     {"resamples": n, "seed": s, "level": 0.95,
                   "ci": {"strict"|"relaxed"|"token":
                          {"f1": [low, high], "recall": [low, high]}}}
                  percentile intervals over notes resampled with
                  replacement; null bounds when resamples is 0 or no notes
    errors        {"false_negatives": [[note, start, end, label], ...],
                   "false_positives": [...]}  (strict; sorted)

    PRF = {"precision", "recall", "f1", "tp", "fp", "fn"}

``note`` is the index of the note in the lists given to `evaluate`;
offsets are code points into its text.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from app.core.spans import Span
from app.core.words import count
from app.eval.bootstrap import bootstrap_prf
from app.core.tokenize import tokenize
from app.eval.metrics import (PRF, label_confusion, label_token_counts, marked_tokens,
                              missed_spans, relaxed_counts, strict_counts, strict_errors,
                              token_counts, word_tokens)

SCHEMA = "deid.evaluation/1"
KINDS = ("strict", "relaxed", "token")
_ZERO = PRF(0, 0, 0)

Error = tuple[int, int, int, str]


@dataclass
class EvaluationReport:
    """Everything `evaluate` measured; see the module docstring for the JSON form."""

    notes: int
    labels: list[str]
    micro: dict[str, PRF]
    per_label: dict[str, dict[str, PRF]]
    confusion: dict[str, Counter]            # kind -> Counter[(gold, pred)]
    missed_identifiers: int
    notes_with_identifiers: int
    notes_with_missed: int
    resamples: int
    seed: int
    level: float
    ci: dict[str, dict[str, tuple[float, float] | None]]
    visible_words: int = 0
    notes_with_visible_word: int = 0
    false_negatives: list[Error] = field(default_factory=list)
    false_positives: list[Error] = field(default_factory=list)
    # Each note's binary identifier-token (tp, fp, fn), in the order given to
    # `evaluate`: for intervals drawn over groups of notes (patients). Not in
    # the JSON form.
    note_token_counts: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def notes_with_missed_share(self) -> float:
        return self.notes_with_missed / self.notes if self.notes else 0.0

    def support(self, label: str) -> int:
        c = self.per_label[label]["strict"]
        return c.tp + c.fn

    def to_dict(self) -> dict:
        """The JSON-ready form (see the module docstring)."""
        def confusion_rows(counter: Counter) -> list[dict]:
            rows = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
            return [{"gold": g, "pred": p, "count": n} for (g, p), n in rows]

        return {
            "schema": SCHEMA,
            "notes": self.notes,
            "labels": list(self.labels),
            "micro": {k: self.micro[k].as_dict() for k in KINDS},
            "per_label": {
                label: {"support": self.support(label),
                        "strict": self.per_label[label]["strict"].as_dict(),
                        "relaxed": self.per_label[label]["relaxed"].as_dict(),
                        "token": _leak(self.per_label[label]["token"])}
                for label in self.labels},
            "confusion": {kind: confusion_rows(self.confusion[kind])
                          for kind in ("exact", "overlap")},
            "privacy": {
                "missed_identifiers": self.missed_identifiers,
                "notes_with_identifiers": self.notes_with_identifiers,
                "notes_with_missed": self.notes_with_missed,
                "notes_with_missed_share": self.notes_with_missed_share,
                "visible_words": self.visible_words,
                "notes_with_visible_word": self.notes_with_visible_word},
            "bootstrap": {
                "resamples": self.resamples, "seed": self.seed, "level": self.level,
                "ci": {k: {m: (list(v) if v is not None else [None, None])
                           for m, v in self.ci[k].items()} for k in KINDS}},
            "errors": {"false_negatives": [list(e) for e in self.false_negatives],
                       "false_positives": [list(e) for e in self.false_positives]},
        }

    def to_json(self, indent: int | None = 2) -> str:
        """`to_dict` as JSON text (key order fixed by the schema)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def render(self, max_confusions: int = 5) -> str:
        """A compact text table for the terminal."""
        def ci(kind: str, metric: str) -> str:
            v = self.ci[kind][metric]
            return f"[{v[0]:.3f}, {v[1]:.3f}]" if v is not None else "-"

        lines = [f"{'':18s} {'P':>6s} {'R':>6s} {'F1':>6s}  {'F1 95% CI':16s} "
                 f"{'R 95% CI':16s}"]
        for kind in KINDS:
            c = self.micro[kind]
            lines.append(f"{kind:18s} {c.precision:6.3f} {c.recall:6.3f} {c.f1:6.3f}  "
                         f"{ci(kind, 'f1'):16s} {ci(kind, 'recall'):16s}")
        lines.append("")
        width = max([18] + [len(label) for label in self.labels])
        lines.append(f"{'label':{width}s} {'support':>7s} {'P':>6s} {'R':>6s} {'F1':>6s}"
                     f"  {'relaxed F1':>10s}  {'token R':>7s}")
        for label in self.labels:
            s, r = self.per_label[label]["strict"], self.per_label[label]["relaxed"]
            t = _leak(self.per_label[label]["token"])
            lines.append(f"{label:{width}s} {self.support(label):7d} {s.precision:6.3f} "
                         f"{s.recall:6.3f} {s.f1:6.3f}  {r.f1:10.3f}  {t['recall']:7.3f}")
        lines.append("")
        # "Missed entirely", as the benchmarks say it: an identifier a
        # prediction only touched leaves words visible, counted after.
        lines.append(f"identifiers missed entirely: {self.missed_identifiers}; notes with a missed "
                     f"identifier: {self.notes_with_missed}/{self.notes} "
                     f"({self.notes_with_missed_share:.1%}); identifier words left "
                     f"visible: {self.visible_words}, in {count(self.notes_with_visible_word, 'note')}")
        top = sorted(((n, kind, g, p) for kind in ("exact", "overlap")
                      for (g, p), n in self.confusion[kind].items()),
                     key=lambda t: (-t[0], t[1:]))[:max_confusions]
        if top:
            lines.append("label confusions (gold -> predicted): " + "; ".join(
                f"{g} -> {p} x{n}" + (" (overlap)" if kind == "overlap" else "")
                for n, kind, g, p in top))
        return "\n".join(lines)


def _leak(c: PRF) -> dict:
    tokens = c.tp + c.fn
    return {"tokens": tokens, "missed": c.fn, "recall": c.tp / tokens if tokens else 1.0}


def evaluate(texts: Sequence[str], gold: Sequence[Sequence[Span]],
             pred: Sequence[Sequence[Span]], *, labels: Sequence[str] | None = None,
             bootstrap: int = 1000, seed: int = 0, level: float = 0.95) -> EvaluationReport:
    """Score predicted spans against gold spans, note by note.

    Parameters
    ----------
    texts, gold, pred
        Parallel lists: the text of each note, its gold spans, its predicted spans.
    labels
        Labels to evaluate. Spans with other labels are ignored on both
        sides. Default: every label seen in gold or pred.
    bootstrap
        Number of resamples for the confidence intervals (0 = none).
    seed
        Seed of the resampling; the same seed gives the same intervals.
    level
        Coverage of the intervals.
    """
    if not (len(texts) == len(gold) == len(pred)):
        raise ValueError("texts, gold and pred must be parallel lists")
    if labels is None:
        labels = sorted({s.label for doc in (*gold, *pred) for s in doc})
    else:
        labels = sorted(set(labels))
        keep = set(labels)
        gold = [[s for s in doc if s.label in keep] for doc in gold]
        pred = [[s for s in doc if s.label in keep] for doc in pred]

    n = len(texts)
    per_doc = np.zeros((n, len(KINDS), 3), dtype=np.int64)
    per_label = {label: {"strict": _ZERO, "relaxed": _ZERO, "token": _ZERO} for label in labels}
    confusion = {"exact": Counter(), "overlap": Counter()}
    fns: list[Error] = []
    fps: list[Error] = []
    missed = notes_with_ids = notes_missed = visible = notes_visible = 0
    for i, (text, g, p) in enumerate(zip(texts, gold, pred)):
        toks = tokenize(text)
        for k, c in enumerate((strict_counts(g, p), relaxed_counts(g, p),
                               token_counts(text, g, p, tokens=toks))):
            per_doc[i, k] = (c.tp, c.fp, c.fn)
        for label, c in label_token_counts(text, g, p, tokens=toks).items():
            per_label[label]["token"] += c
        for label in {s.label for s in g} | {s.label for s in p}:
            entry = per_label[label]
            entry["strict"] += strict_counts(g, p, label)
            entry["relaxed"] += relaxed_counts(g, p, label)
        for (kind, gl, pl), count in label_confusion(g, p).items():
            confusion[kind][(gl, pl)] += count
        fn, fp = strict_errors(g, p)
        fns += [(i, s.start, s.end, s.label) for s in fn]
        fps += [(i, s.start, s.end, s.label) for s in fp]
        shown = len(word_tokens(text, toks, g) - marked_tokens(toks, p))
        visible += shown
        notes_visible += bool(shown)
        lost = len(missed_spans(g, p))
        missed += lost
        notes_with_ids += bool(g)
        notes_missed += bool(lost)

    totals = per_doc.sum(axis=0)
    micro = {kind: PRF(*map(int, totals[k])) for k, kind in enumerate(KINDS)}
    ci: dict[str, dict[str, tuple[float, float] | None]] = {
        kind: {"f1": None, "recall": None} for kind in KINDS}
    if bootstrap > 0 and n:
        bounds = bootstrap_prf(per_doc, resamples=bootstrap, seed=seed, level=level)
        for k, kind in enumerate(KINDS):
            for metric in ("f1", "recall"):
                lo, hi = bounds[metric][k]
                ci[kind][metric] = (float(lo), float(hi))
    return EvaluationReport(
        notes=n, labels=list(labels), micro=micro, per_label=per_label,
        confusion=confusion, missed_identifiers=missed,
        notes_with_identifiers=notes_with_ids, notes_with_missed=notes_missed,
        visible_words=visible, notes_with_visible_word=notes_visible,
        resamples=bootstrap if n else 0, seed=seed, level=level, ci=ci,
        false_negatives=fns, false_positives=fps,
        note_token_counts=[tuple(map(int, c)) for c in per_doc[:, KINDS.index("token")]])
