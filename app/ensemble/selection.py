"""Choosing the system to deploy from dev-set predictions.

Every candidate (single members and each ensemble x group) is scored by
strict entity micro P/R/F1 on the same dev segments. Objectives:

* ``"privacy"`` (the default): the best strict F1 among candidates that
  tag at least ``target`` of the binary PII tokens (the leak measure,
  below) with a token precision of at least ``USABLE_PRECISION`` (tagging
  every word reaches any recall). When none does, the candidate with the
  best token F2 (recall weighs four times precision) is chosen, among those
  whose token precision is at least ``USABLE_PRECISION`` when any is (a
  candidate tagging mostly ordinary words is no answer), and the reason
  says plainly that the target was missed. (The most recall alone took,
  on 200 annotated PhysioNet notes, a stack hiding 0.0015 more of the
  tokens at half the precision of the starter: 0.48 against 0.80 on
  held-out patients.) Given ``groups`` (each dev segment's patient), the
  candidates whose token F2 the dev patients cannot tell from the chosen one
  (`tied_on_dev`: a paired bootstrap over patients) are named with it
  (``SelectionResult.tied``), so the run can say plainly when its dev notes
  are too few to rank the candidates. They are named, not taken: taking the
  one of them hiding the most tokens was measured on the 5 PhysioNet folds
  with the hospital lists (2026-11-27) and bought 0.003 more token recall
  for 0.035 less precision, a worse token F2.
  Given ``prefer`` (candidates learned end to end from the site's own
  notes: the fine-tuned transformer), the best of them by dev token F2 is
  kept over the candidate the objective ranked first unless the dev
  patients can tell that one is better (`tied_on_dev`: its token F2, or its
  strict F1, above the preferred one's in at least ``1 - TIE_SHARE`` of the
  resamples);
  ``SelectionResult.kept_over`` then names the one it was kept over. On
  twenty dev patients a candidate meets the target, or misses it, by one to
  three tokens: on three of the ten PhysioNet folds of sessions 38-39 a stack
  met it so and read 0.61-0.77 token precision on its test patients, where
  the transformer read 0.905-0.936 at recall 0.005 lower to 0.019 higher.
  Measured since on four folds dealt otherwise (BENCHMARKS.md, "The
  transformer kept among equals").
* ``"f1"`` (the paper's): highest F1;
* ``"f2"``: highest F2 (recall weighs four times precision);
* ``"recall_at_precision"``: highest recall among candidates with
  precision >= ``target``;
* ``"precision_at_recall"``: highest precision among candidates with
  recall >= ``target`` (recall-first de-identification: "miss at most 5 %");
* ``"precision_at_token_recall"``: the same over binary PII tokens (PII vs
  not, label-blind): highest token precision among candidates that tag at
  least ``target`` of the identifier tokens. This is the leak measure: a
  name found with the wrong label or a boundary off by one token still hides
  the identifier, which strict recall counts as a miss.

Ties go to higher F1, then higher recall, then the earlier candidate. When no
candidate meets a constraint, the one closest to it is chosen and the reason
says so.

Cost: given each candidate's prediction cost (e.g. seconds its members took
to tag dev) and a ``tolerance``, the cheapest candidate whose score is
within ``tolerance`` of the best one wins instead. An ensemble of seven
members is several times slower than one of three, and a dev-F1 difference
of 0.002 on a few thousand entities is noise; ``tolerance=0`` turns this off.
Only a candidate at least ``MIN_SPEEDUP`` times cheaper is worth giving up
score for: adding the rules to three models costs next to nothing.

Stacking candidates should be scored on out-of-fold predictions
(`app.ensemble.stacking.cross_val_predict`) when they were fit on dev.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

MIN_SPEEDUP = 1.25
#: A candidate is the best one's equal on dev when its token F2 is at least
#: the best one's in this share of the bootstrap resamples of dev patients
#: (a one-sided test at 5 %), over ``TIE_RESAMPLES`` resamples.
TIE_SHARE = 0.05
TIE_RESAMPLES = 1000
#: Below this dev token precision a candidate that misses the privacy
#: target is only chosen when every candidate does.
USABLE_PRECISION = 0.5

from app.core.words import count
from app.ensemble.encoding import tags_of
from app.ensemble.scoring import GoldTags, score_tags, score_tokens
from app.eval.metrics import PRF
from app.models.base import TagSeq

OBJECTIVES = ("privacy", "f1", "f2", "recall_at_precision", "precision_at_recall",
              "precision_at_token_recall")


@dataclass(frozen=True)
class SelectionRow:
    name: str
    prf: PRF               # strict entity counts
    token: PRF             # binary PII-token counts
    score: float           # the objective's value (F1, F2, recall or precision)
    eligible: bool         # meets the objective's constraint (always True for f1/f2)

    def as_dict(self) -> dict:
        return {"name": self.name, "score": self.score, "eligible": self.eligible,
                **self.prf.as_dict(), "token": self.token.as_dict()}


@dataclass(frozen=True)
class SelectionResult:
    best_name: str
    rows: list[SelectionRow]        # best first
    objective: str
    target: float | None
    reason: str
    # The candidates dev could not tell from the chosen one's token F2
    # (`tied_on_dev`), when the target was missed and dev patients were given.
    tied: tuple[str, ...] = ()
    # The candidate the objective ranked first, when a preferred one (``prefer``)
    # was kept over it (dev could not tell it was better).
    kept_over: str | None = None

    def as_dict(self) -> dict:
        return {"best": self.best_name, "objective": self.objective, "target": self.target,
                "reason": self.reason, "rows": [r.as_dict() for r in self.rows],
                "tied": list(self.tied), "kept_over": self.kept_over}


def select(candidates: Mapping[str, Sequence[TagSeq | Sequence[str]]], dev_gold: GoldTags,
           objective: str = "f1", target: float | None = None, *,
           costs: Mapping[str, float] | None = None, tolerance: float = 0.0,
           groups: Sequence[str] | None = None, seed: int = 13,
           prefer: Sequence[str] = ()) -> SelectionResult:
    """Score every candidate on dev and pick the best under ``objective``
    (the cheapest within ``tolerance`` of it when ``costs`` are given).

    ``groups`` names each dev segment's patient (or note): with it, a
    ``privacy`` selection that misses its target names the candidates dev
    cannot tell from the one it takes (`tied_on_dev`, seeded by ``seed``),
    and the best of the ``prefer`` candidates is kept over the one ranked
    first unless dev can tell that one is better (module docstring).

    Raises ``ValueError`` for no candidates, an unknown objective, a missing
    or out-of-range ``target`` for the constrained objectives, or a target
    given to ``f1``/``f2``.
    """
    if not candidates:
        raise ValueError("no candidates to select from")
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r} (use {', '.join(OBJECTIVES)})")
    constrained = "_at_" in objective or objective == "privacy"
    if constrained and (target is None or not 0.0 < target <= 1.0):
        raise ValueError(f"objective {objective!r} needs a target in (0, 1]")
    if not constrained and target is not None:
        raise ValueError(f"objective {objective!r} takes no target")

    rows, keys, tags_by = [], [], {}
    for pos, (name, pred) in enumerate(candidates.items()):
        tags = tags_by[name] = [tags_of(p) for p in pred]
        prf, token = score_tags(tags, dev_gold), score_tokens(tags, dev_gold)
        score, constraint, eligible = _objective(prf, token, objective, target)
        rows.append(SelectionRow(name, prf, token, score, eligible))
        # Eligible rows rank on the objective; the others on how close they come.
        usable = objective != "privacy" or token.precision >= USABLE_PRECISION
        closest = token.f(2.0) if objective == "privacy" else constraint
        keys.append((1, 1, score, prf.f1, prf.recall, -pos) if eligible
                    else (0, usable, closest, score, prf.f1, -pos))
    ranked = [r for _, r in sorted(zip(keys, rows), key=lambda kr: kr[0], reverse=True)]
    reason = _reason(ranked, objective, target)
    top = ranked[0]
    if objective == "privacy" and groups is not None:
        usable = [r for r in ranked if r.token.precision >= USABLE_PRECISION] or ranked
        kept = _kept_among_equals(top, [r for r in usable if r.name in prefer], tags_by,
                                  dev_gold, groups, seed)
        if kept is not None:
            ranked.remove(kept)
            ranked.insert(0, kept)
            reason = (f"{kept.name} kept: {top.name} ranked first ({reason}), and the dev "
                      f"patients cannot tell it from {kept.name} by token F2 "
                      f"({top.token.f(2.0):.4f} against {kept.token.f(2.0):.4f}) nor by strict "
                      f"F1 ({top.prf.f1:.4f} against {kept.prf.f1:.4f}); a network "
                      f"fine-tuned end to end on the site's own notes is kept among equals, as "
                      f"it carried best to patients nobody tuned on; token P "
                      f"{kept.token.precision:.3f}, R {kept.token.recall:.3f}")
            return SelectionResult(kept.name, ranked, objective, target, reason,
                                   kept_over=top.name)
        if not top.eligible:
            tied = tied_on_dev(top.name, [r.name for r in usable if r is not top], tags_by,
                               dev_gold, groups, seed)
            if tied:
                reason = (f"{reason}; the dev patients cannot tell {count(len(tied), 'other')} "
                          f"from it ({', '.join(tied)})")
            return SelectionResult(top.name, ranked, objective, target, reason,
                                   tuple(sorted(tied)))
    if costs and tolerance > 0 and top.eligible and top.name in costs:
        near = [r for r in ranked if r.eligible and r.name in costs
                and top.score - r.score <= tolerance
                and costs[r.name] * MIN_SPEEDUP <= costs[top.name]]
        cheap = min(near, key=lambda r: costs[r.name], default=None)   # min keeps rank order on ties
        if cheap is not None:
            ranked.remove(cheap)
            ranked.insert(0, cheap)
            what = _WHAT[objective]
            speedup = costs[top.name] / max(costs[cheap.name], 1e-9)
            reason = (f"{cheap.name} is within {tolerance:.4f} of the best dev {what} "
                      f"({cheap.score:.4f} vs {top.name} {top.score:.4f}) and {speedup:.1f}x "
                      f"cheaper to run; P {cheap.prf.precision:.3f}, R {cheap.prf.recall:.3f}, "
                      f"F1 {cheap.prf.f1:.3f}")
    return SelectionResult(ranked[0].name, ranked, objective, target, reason)


def _kept_among_equals(top: SelectionRow, preferred: Sequence[SelectionRow],
                       tags_by: Mapping[str, Sequence], gold: GoldTags,
                       groups: Sequence[str], seed: int) -> SelectionRow | None:
    """The best ``preferred`` row by dev token F2 when the dev patients
    cannot tell ``top`` is better than it (`tied_on_dev`); None when ``top``
    is preferred itself, none is, or dev can tell."""
    if not preferred or top in preferred:
        return None
    best = max(preferred, key=lambda r: r.token.f(2.0))     # max keeps rank order on ties
    # Equal in what it hides, and in what it calls each span: a member that
    # hides as much but splits names and calls phones places (the bundled
    # sample's quick run: dev strict F1 0.495 against 0.943) gives surrogates
    # of the wrong kind and worse suggestions to the annotators.
    return best if tied_on_dev(top.name, [best.name], tags_by, gold, groups, seed) \
        and tied_on_dev(top.name, [best.name], tags_by, gold, groups, seed,
                        measure="strict_f1") else None


def tied_on_dev(best: str, others: Sequence[str], tags_by: Mapping[str, Sequence],
                gold: GoldTags, groups: Sequence[str], seed: int = 13,
                measure: str = "token_f2") -> list[str]:
    """The ``others`` whose token F2 (``measure`` "strict_f1": strict
    entity F1) dev cannot tell from ``best``'s.

    A paired bootstrap over ``groups`` (each dev segment's patient): dev
    patients are drawn with replacement ``TIE_RESAMPLES`` times, every
    candidate scored on the same draw, and a candidate is ``best``'s equal
    when its token F2 is at least ``best``'s in ``TIE_SHARE`` of the draws
    or more. Patients, not segments or notes, are what is drawn, as a new
    site's notes are of new patients. With fewer than two groups nobody is
    an equal.
    """
    if len(gold) != len(groups):
        raise ValueError(f"{len(groups)} groups for {len(gold)} dev segments")
    names = sorted(set(groups))
    if len(names) < 2 or not others:
        return []
    members = {g: [i for i, h in enumerate(groups) if h == g] for g in names}

    def counts(name: str) -> np.ndarray:
        """(groups, 3): each group's identifier tokens hidden, wrongly hidden, missed."""
        out = []
        for g in names:
            idx = members[g]
            prf = scorer([tags_by[name][i] for i in idx], [gold[i] for i in idx])
            out.append((prf.tp, prf.fp, prf.fn))
        return np.array(out, dtype=float)

    scorer, beta2 = (score_tags, 1.0) if measure == "strict_f1" else (score_tokens, 4.0)
    draws = np.random.default_rng(seed).multinomial(
        len(names), [1.0 / len(names)] * len(names), size=TIE_RESAMPLES)

    def fscore(name: str) -> np.ndarray:
        tp, fp, fn = (draws @ counts(name)).T
        return (1 + beta2) * tp / np.maximum((1 + beta2) * tp + beta2 * fn + fp, 1e-9)

    top = fscore(best)
    return [n for n in others if np.mean(fscore(n) >= top) >= TIE_SHARE]


def _objective(prf: PRF, token: PRF, objective: str, target: float | None
               ) -> tuple[float, float, bool]:
    """(score, constrained metric, eligible)."""
    if objective == "privacy":
        # Tagging every token reaches any recall: such a candidate is no answer.
        return prf.f1, token.recall, (token.recall >= target
                                      and token.precision >= USABLE_PRECISION)
    if objective == "f1":
        return prf.f1, 0.0, True
    if objective == "f2":
        return prf.f(2.0), 0.0, True
    if objective == "recall_at_precision":
        return prf.recall, prf.precision, prf.precision >= target
    if objective == "precision_at_token_recall":
        return token.precision, token.recall, token.recall >= target
    return prf.precision, prf.recall, prf.recall >= target


_WHAT = {"privacy": "strict micro-F1", "f1": "strict micro-F1", "f2": "strict micro-F2",
         "recall_at_precision": "strict recall", "precision_at_recall": "strict precision",
         "precision_at_token_recall": "token precision"}


def _reason(ranked: list[SelectionRow], objective: str, target: float | None) -> str:
    best = ranked[0]
    what = _WHAT[objective]
    if objective == "recall_at_precision":
        cond = f" with precision >= {target:.3f}"
        near = "highest precision"
    elif objective == "precision_at_recall":
        cond = f" with recall >= {target:.3f}"
        near = "highest recall"
    elif objective in ("precision_at_token_recall", "privacy"):
        cond = f" with token recall >= {target:.3f}"
        near = "best token F2" if objective == "privacy" else "highest token recall"
    else:
        cond = near = ""
    token = (f"; token P {best.token.precision:.3f}, R {best.token.recall:.3f}"
             if objective in ("precision_at_token_recall", "privacy") else "")
    if not best.eligible:
        return (f"no candidate reaches{cond.replace(' with', '')} on dev: the privacy target "
                f"is missed; {best.name} comes closest "
                f"({near}; P {best.prf.precision:.3f}, R {best.prf.recall:.3f}{token})")
    text = f"{best.name} has the best dev {what}{cond} ({best.score:.4f}"
    if len(ranked) > 1:
        text += f"; runner-up {ranked[1].name} {ranked[1].score:.4f}"
    return (text + f"; P {best.prf.precision:.3f}, R {best.prf.recall:.3f}, "
            f"F1 {best.prf.f1:.3f}{token})")
