"""Recall fill: a member's span where the chosen candidate found nothing.

Voting needs a majority, and a majority of members misses what only one
of them knows: spaCy finds hospitals Stanza does not, the rules find
dates written in a way neither model saw. A fill rule ``(member, label)``
adds every span of ``label`` that ``member`` predicted and that overlaps no
span of the output so far; rules apply in order, each seeing the spans the
earlier ones added.

Which rules to keep is learned on dev (``fit_fill``), greedily: each round
adds the rule that raises dev strict micro-F-beta most (F1, or F2 under a
recall-first objective) and stops when none does. A rule must also be
right at least half the time in what it adds (``MIN_ADDED_PRECISION``): F2
rewards adding spans that are right only one time in five, and on a dev
split of thirty patients such a rule is luck (on PhysioNet dev patients a
fill of Stanza's names chosen by F2 took the selected model's precision from
0.79 to 0.37). Members' dev outputs are
honest (they never trained on dev); the candidate's are out-of-fold for an
ensemble. On MEDDOCAN the fill learned for pruned voting over spaCy,
Stanza, Flair and the rules added spaCy's countries, relatives, ages and
patient IDs and the rules' dates (dev 0.957 -> 0.960, and as much on test).
"""
from __future__ import annotations

from typing import Mapping, Sequence

from app.core.spans import Covered, Span
from app.eval.metrics import PRF, f_beta, strict_counts

Rule = tuple[str, str]          # (member, label)
# Share of the spans a rule adds on dev that must be exact identifiers.
MIN_ADDED_PRECISION = 0.5


def fill(spans: Sequence[Span], member_spans: Mapping[str, Sequence[Span]],
         rules: Sequence[Rule]) -> list[Span]:
    """``spans`` plus, rule by rule, each ``member``'s span of ``label`` that
    overlaps none of the spans so far. Returns them sorted by offset."""
    out = list(spans)
    covered = Covered(out)
    for member, label in rules:
        for s in member_spans.get(member, ()):
            if s.label == label and not covered.overlaps(s.start, s.end):
                out.append(s)
                covered.add(s.start, s.end)
    return sorted(out, key=lambda s: (s.start, s.end))


Doc = tuple[Sequence[Span], Sequence[Span], Mapping[str, Sequence[Span]]]


def fit_fill(docs: Sequence[Doc], beta: float = 1.0, max_rules: int = 40,
             min_added_precision: float = MIN_ADDED_PRECISION) -> tuple[list[Rule], float, float]:
    """Fill rules that raise strict micro-F-beta on ``docs``, with the score
    before and after them.

    ``docs`` are ``(candidate spans, gold spans, {member: spans})`` of data
    none of them trained on (dev). Greedy forward selection: a round tries
    every remaining rule on the notes where it could add a span and keeps
    the best one whose added spans are exact identifiers at least
    ``min_added_precision`` of the time; it stops when no rule raises the score.
    """
    members = sorted({m for _, _, by in docs for m in by})
    labels = sorted({s.label for _, _, by in docs for spans in by.values() for s in spans})
    current = [list(pred) for pred, _, _ in docs]
    counts = [strict_counts(gold, pred) for pred, (_, gold, _) in zip(current, docs)]
    total = sum(counts, PRF(0, 0, 0))
    before = best = f_beta(total.precision, total.recall, beta)
    # The notes where a rule has something to add: only those are rescored.
    where = {(m, lab): [i for i, (_, _, by) in enumerate(docs)
                        if any(s.label == lab for s in by.get(m, ()))]
             for m in members for lab in labels}
    where = {rule: idx for rule, idx in where.items() if idx}
    rules: list[Rule] = []
    while where and len(rules) < max_rules:
        choice = None
        for rule, idx in where.items():
            trial = total
            for i in idx:
                trial = trial - counts[i] + strict_counts(docs[i][1], fill(current[i], docs[i][2], [rule]))
            score = f_beta(trial.precision, trial.recall, beta)
            added = (trial.tp + trial.fp) - (total.tp + total.fp)
            if added <= 0 or (trial.tp - total.tp) < min_added_precision * added:
                continue
            if score > best + 1e-12 and (choice is None or score > choice[0]):
                choice = (score, rule)
        if choice is None:
            break
        best, rule = choice
        for i in where.pop(rule):
            current[i] = fill(current[i], docs[i][2], [rule])
            new = strict_counts(docs[i][1], current[i])
            total = total - counts[i] + new
            counts[i] = new
        rules.append(rule)
    return rules, before, best
