"""The finishing steps after a candidate has tagged a note: recall fill,
then propagation (app.ensemble.fill, app.ensemble.propagation).

Both are learned on dev for the selected candidate when a run is trained
(``fit_finishing``), stored in the run's metrics (``"fill"`` and
``"propagation"``) and applied by the predictor, `deid evaluate` and the
benchmark (``finish``), so what is scored is what `deid annotate` writes.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from app.core.spans import Span
from app.core.tokenize import Segment
from app.ensemble.fill import fill, fit_fill
from app.ensemble.propagation import fit_propagation, propagate, token_bounds


def fit_finishing(name: str, seqs, dev, member_seqs: Mapping[str, Sequence], beta: float, *,
                  use_fill: bool = True, use_propagation: bool = True) -> tuple[dict | None, dict | None]:
    """Fill rules, then propagated labels, of candidate ``name`` learned from
    its dev predictions ``seqs`` (out-of-fold for an ensemble) and the
    members' dev predictions ``member_seqs``, note by note.

    Returns ``(fill, propagation)`` records for the run's metrics (None for
    a step that is switched off).
    """
    from app.core.bio import tags_to_spans

    member_seqs = member_seqs if use_fill else {}      # only the fill reads them
    notes: dict[str, dict] = {}
    for i, (item, seq) in enumerate(zip(dev, seqs)):
        note = notes.setdefault(item.doc_id, {"text": item.text, "pred": [], "gold": [],
                                              "segs": [], "members": {m: [] for m in member_seqs}})
        toks = item.segment.tokens
        note["pred"] += tags_to_spans(toks, seq.tags, seq.confidences)
        note["gold"] += tags_to_spans(toks, item.tags)
        note["segs"].append(item.segment)
        for m, out in member_seqs.items():
            note["members"][m] += tags_to_spans(toks, out[i].tags, out[i].confidences)
    notes_list = list(notes.values())
    fill_record = None
    if use_fill:
        rules, before, after = fit_fill([(n["pred"], n["gold"], n["members"]) for n in notes_list],
                                        beta=beta)
        fill_record = {"candidate": name, "rules": [list(r) for r in rules], "beta": beta,
                       "dev_before": round(before, 4), "dev_after": round(after, 4)}
        for n in notes_list:
            n["pred"] = fill(n["pred"], n["members"], rules)
    propagation = None
    if use_propagation:
        labels, before, after = fit_propagation(
            [(n["text"], n["pred"], n["gold"], n["segs"]) for n in notes_list], beta=beta)
        propagation = {"candidate": name, "labels": labels, "beta": beta,
                       "dev_before": round(before, 4), "dev_after": round(after, 4)}
    return fill_record, propagation


def finish(text: str, spans: Sequence[Span], segments: Sequence[Segment],
           member_spans: Mapping[str, Sequence[Span]], rules: Sequence[tuple[str, str]],
           labels: Sequence[str]) -> list[Span]:
    """A candidate's spans of one note after the fill ``rules`` and the
    propagation of ``labels`` (``segments``: the parts that were tagged)."""
    out = fill(spans, member_spans, rules) if rules else list(spans)
    if labels:
        out = propagate(text, out, labels, token_bounds(segments))
    return out


def describe_rules(rules) -> str:
    """``[(member, label), ...]`` as "LABEL from member, ..."."""
    return ", ".join(f"{label} from {member}" for member, label in rules)


def _summary(title: str, record: dict | None, items: str, nothing: str) -> str:
    """One line on what a step learned ("" when it did not run)."""
    if not record:
        return ""
    if not items:
        return f"{title}: {nothing} gains on dev, so it is off."
    score = "F2" if record.get("beta", 1.0) != 1.0 else "F1"
    return (f"{title}: {items} "
            f"(dev strict {score} {record['dev_before']:.4f} -> {record['dev_after']:.4f}).")


def fill_summary(record: dict | None) -> str:
    """One line on what the fill learned ("" when it did not run)."""
    return _summary("Recall fill", record, describe_rules((record or {}).get("rules", [])),
                    "no member's spans")


def propagation_summary(record: dict | None) -> str:
    """One line on what the propagation learned ("" when it did not run)."""
    return _summary("Propagation in a note", record, ", ".join((record or {}).get("labels", [])),
                    "no label")


def finishing_summary(fill_record: dict | None, propagation: dict | None) -> list[str]:
    """The lines of both steps that ran."""
    return [line for line in (fill_summary(fill_record), propagation_summary(propagation)) if line]
