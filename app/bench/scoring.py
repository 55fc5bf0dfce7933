"""Every candidate of a trained run scored on a split, each with 95 % intervals.

`app.services.evaluating.evaluate_project` gives bootstrap intervals for one
model and plain P/R/F1 for the rest of the table; the benchmark wants
intervals and per-label figures for every base model, the rules and every
ensemble. Members run once over the split and each stored ensemble combines
their outputs (`evaluating.candidate_spans`, as for `deid evaluate`); `app.eval.report.evaluate` then
scores each candidate.

A row (JSON, keys in this order)::

    name, type ("base" | "rules" | "ensemble"), selected (bool),
    description (ensembles: members and settings), dev_f1 (selection on dev),
    strict | relaxed | token: {precision, recall, f1, tp, fp, fn,
                               f1_ci: [lo, hi], recall_ci: [lo, hi]},
    per_label: {label: {support, strict: PRF, relaxed: PRF}},
    privacy: {missed_identifiers, notes_with_identifiers, notes_with_missed,
              notes_with_missed_share, visible_words, notes_with_visible_word}

Beside the rows, ``together``: every candidate's spans (after its finishing
steps) taken together, scored as one (`evaluating.together`): the identifier tokens that some
candidate hides. No choice among these candidates can hide more, so the gap
between it and the selected row is what the selection leaves on the table,
and what it misses is beyond every member the run trained.

And for the selected row, ``token_by_patient``: ``[tp, fp, fn]`` identifier
tokens per patient of the split (no patient id), so that an interval can be
drawn over patients rather than notes (`app.eval.bootstrap.mean_of_folds_interval`).
"""
from __future__ import annotations


KINDS = ("strict", "relaxed", "token")


def _row(name: str, kind: str, report, *, selected: bool, description: str | None,
         dev_f1: float | None) -> dict:
    data = report.to_dict()
    row = {"name": name, "type": kind, "selected": selected, "description": description,
           "dev_f1": dev_f1}
    for k in KINDS:
        ci = data["bootstrap"]["ci"][k]
        row[k] = {**data["micro"][k], "f1_ci": ci["f1"], "recall_ci": ci["recall"]}
    row["per_label"] = data["per_label"]
    privacy = data["privacy"]
    row["privacy"] = {key: privacy[key] for key in
                      ("missed_identifiers", "notes_with_identifiers", "notes_with_missed",
                       "notes_with_missed_share", "visible_words", "notes_with_visible_word")}
    return row


def score_candidates(project, *, split: str = "test", bootstrap: int = 1000,
                     only_selected: bool = False) -> dict:
    """Score the active run's candidates on ``split``.

    Returns
    -------
    dict
        ``{"split", "notes", "labels", "selected", "rows"}``; rows best strict
        F1 first (only the selected one with ``only_selected``).
    """
    from app.eval.report import evaluate
    from app.services.evaluating import RAW, candidate_spans, table_candidates, together
    from app.services.runs import active_run
    from app.services.training import gold_documents

    docs = gold_documents(project, splits=(split,))
    if not docs:
        raise ValueError(f"no annotated documents in the {split!r} split")
    run = active_run(project)
    selected = run.selected
    member_kind = {n: m.kind for n, m in run.members.items()}
    dev_f1 = {r["name"]: r["f1"] for r in run.rows}
    descriptions = {n: e.description for n, e in run.ensembles.items()}
    texts = [d.text for d in docs]
    gold = [d.spans for d in docs]
    spans_by = candidate_spans(project, run, texts, name=selected, every=not only_selected,
                               patients=[d.patient_id for d in docs])
    spans_by = {selected: spans_by[selected]} if only_selected \
        else table_candidates(spans_by, selected)

    labels = [label.name for label in project.labels()]
    rows = []
    for name, spans in spans_by.items():
        report = evaluate(texts, gold, spans, labels=labels or None, bootstrap=bootstrap)
        kind = member_kind.get(name.removesuffix(RAW))
        kind = "ensemble" if kind is None else "rules" if kind == "rules" else "base"
        rows.append(_row(name, kind, report, selected=name == selected,
                         description=descriptions.get(name), dev_f1=dev_f1.get(name)))
        if name == selected:
            rows[-1]["token_by_patient"] = token_by_patient(
                report.note_token_counts, [d.patient_id or d.name for d in docs])
    rows.sort(key=lambda r: (-r["strict"]["f1"], r["name"]))
    out = {"split": split, "notes": len(docs), "labels": sorted(labels), "selected": selected,
           "rows": rows}
    if not only_selected:
        out["together"] = together(texts, gold, [s for n, s in spans_by.items()
                                                 if not n.endswith(RAW)], labels)
    return out


def token_by_patient(note_counts, patients) -> list[list[int]]:
    """``[tp, fp, fn]`` binary identifier tokens per patient (sorted by
    patient), from each note's counts (`EvaluationReport.note_token_counts`)
    and each note's patient."""
    by: dict[str, list[int]] = {}
    for counts, who in zip(note_counts, patients):
        acc = by.setdefault(str(who), [0, 0, 0])
        for i, c in enumerate(counts):
            acc[i] += c
    return [by[k] for k in sorted(by)]


def selected_row(scores: dict) -> dict:
    return next(r for r in scores["rows"] if r["selected"])
