"""`deid evaluate`: score the selected model (and every candidate) on a split.

Members run once over the split; every stored ensemble then combines their
outputs, so the full table (base models, rules, ensembles x groups) costs
little more than the selected model alone.

``deid evaluate --json`` (``"schema": "deid.evaluate/1"``)::

    run, model, split     the training run, the model scored, the split
    selection_on_dev      {best, objective, target, reason, rows: [{name, score,
                           eligible, precision, recall, f1, tp, fp, fn,
                           token: PRF}]}  (strict counts, and binary token
                           counts in ``token``; runs trained before token
                           counts were kept have no ``token``); with
                           ``cross_fit`` {folds, notes, patients, seconds}
                           when made on every annotated note (`deid train
                           --cross-fit`), the rows then of those notes
    propagated_labels     labels propagated in the model's output
    fill_rules            [[member, label], ...] applied where it found nothing
    fixed_steps           the floor's fixed steps run after the model (its dev kept
                          them); null: every one (a run from before they were chosen)
    evaluation            the model's report, app.eval.report (deid.evaluation/1)
    false_hits_made_by    per strict false positive of ``evaluation`` (same order):
                          what made it (``Span.origin``: a member, a rule, the
                          hospital lists, a step), null when unknown
    misses                per strict false negative of ``evaluation`` (same order):
                          {visible, words, elsewhere}: its words (tokens with a
                          letter or digit) the model leaves visible, all its
                          words, and how many of the visible ones some other
                          candidate hides (`miss_visibility`; null when the
                          other candidates were not read)
    together              every candidate's spans together (`together`): token
                          recall and precision, notes leaking; what no choice
                          among them could improve on
    candidates            [{name, strict: PRF, relaxed: PRF, token: PRF}, ...]
                          every candidate on the split as it would write (after
                          the floor's fixed steps its dev kept; the selected one
                          after its finishing steps too), and the selected one
                          without them (``RAW``), best strict F1 first

The selection's dev rows score the candidates in the same way (after the
fixed steps each one's dev kept: app.services.training.settle_candidates).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from app.core.bio import tags_to_spans
from app.core.progress import Progress, ProgressFn, no_progress
from app.core.tokenize import segment
from app.core.words import count
from app.errors import UserError
from app.eval.metrics import marked_tokens, micro, word_tokens


@dataclass
class EvaluationResult:
    run_id: int
    model: str
    split: str
    report: object                 # app.eval.report.EvaluationReport
    table: list[dict]              # every candidate: strict/relaxed/token P/R/F1 on the split
    selection: dict
    propagated: list[str] = field(default_factory=list)   # labels propagated in the model's output
    filled: list[list[str]] = field(default_factory=list)  # fill rules [member, label] applied
    fixed_steps: list[str] | None = None   # the floor's fixed steps kept (None: every one)
    misses: list[dict] = field(default_factory=list)   # per strict miss: `miss_visibility`
    together: dict | None = None   # every candidate together (`together`); None without the table
    # Per strict false positive of ``report`` (same order): what made it
    # (``Span.origin``: a member, a rule, the lists, a step), None if unknown.
    made_by: list[str | None] = field(default_factory=list)
    # What makes these figures not what they seem (`split_after_training`).
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"schema": "deid.evaluate/1", "run": self.run_id, "model": self.model,
                "split": self.split, "warnings": self.warnings,
                "selection_on_dev": self.selection,
                "propagated_labels": self.propagated, "fill_rules": self.filled,
                "fixed_steps": self.fixed_steps,
                "evaluation": self.report.to_dict(), "misses": self.misses,
                "false_hits_made_by": self.made_by,
                "together": self.together, "candidates": self.table}

    def false_hits_by_maker(self, words=None) -> list[tuple[str, int]]:
        """The strict false positives counted by what made them, in plain
        words (`app.services.choice.made_by`; ``words`` names a model, e.g.
        `app.services.choice.model_namer` of the project), most first."""
        from collections import Counter

        from app.services.choice import made_by
        counts = Counter(made_by(origin, words) or "unknown" for origin in self.made_by)
        return counts.most_common()

    def visible_misses(self) -> tuple[int, int]:
        """Strict misses that leave a word visible, and of them those whose
        visible words no other candidate hides (beyond every model the run
        trained)."""
        visible = [m for m in self.misses if m["visible"]]
        return len(visible), sum(m["elsewhere"] == 0 for m in visible)


#: Suffix of the candidate's row without its finishing steps.
RAW = " w/o finishing steps"


def _prf_row(name: str, scores: dict) -> dict:
    row = {"name": name}
    for kind, prf in scores.items():
        row[kind] = prf.as_dict()
    return row


def candidate_spans(project, run, texts: list[str], *, name: str, every: bool = True,
                    patients: list[str | None] | None = None,
                    progress: ProgressFn = no_progress) -> dict[str, list[list]]:
    """Spans per text of candidate ``name`` and, with ``every``, of every
    member and stored ensemble of ``run``: ``{candidate: [spans per text]}``.

    Members run once; the ensembles combine their outputs. ``name`` holds
    what `deid annotate` writes (after the finishing steps of
    app.services.finishing and the hospital lists' floor), every other
    candidate its spans after the floor's fixed steps its dev kept, and
    ``"CANDIDATE" + RAW`` each candidate's own spans. A run trained with the
    starter's floor (`app.services.predictor.StarterFloor`) covers the
    starter's day-one spans in every candidate but the raw ones, as
    `deid annotate` does. ``patients``: each text's patient id (the lists'
    patient table).
    """
    from app.services.finishing import finish, worded
    from app.services.prediction import resolve
    from app.services.predictor import run_ensembles

    segs = [segment(t) for t in texts]
    items = [(t, s) for t, ss in zip(texts, segs) for s in ss]

    def to_spans(seqs, origin: str) -> list[list]:
        # Each span names what made it, as the predictor's do.
        out, k = [], 0
        for ss in segs:
            out.append([replace(sp, origin=origin) for seg, seq in zip(ss, seqs[k:k + len(ss)])
                        for sp in tags_to_spans(seg.tokens, seq.tags, seq.confidences)])
            k += len(ss)
        return out

    patients = list(patients) if patients is not None else [None] * len(texts)
    with resolve(project, run_id=run.id, model=name, all_members=every).load(project) as pred:
        pred.set_patients(texts, patients)
        progress(Progress(0.0, "evaluate", model=name))
        final, outputs = pred.combine(items)
        candidates = dict(outputs) if every else {}
        if every:
            for ens_name, ens in run_ensembles(project, run.id).items():
                candidates[ens_name] = ens.predict_from_members(outputs, items)
        candidates[name] = final
        labels, rules, unmarked, edges = pred.propagate, pred.fill, pred.unmarked, pred.edges
        lists, list_labels = pred.lists, pred.list_labels
        starter = getattr(pred, "starter", None)
        if starter is not None:
            starter.read(texts, patients)
    raw_by = {c: to_spans(seqs, c) for c, seqs in candidates.items()}
    helpers = {m: to_spans(outputs[m], m) for m in {m for m, _ in rules}}
    spans_by = {}
    for c, raw in raw_by.items():
        if c == name:
            final = [finish(t, sp, ss, {m: h[i] for m, h in helpers.items()}, rules, labels,
                            unmarked, edges) for i, (t, sp, ss) in enumerate(zip(texts, raw, segs))]
        else:
            final = [worded(t, sp) for t, sp in zip(texts, raw)]
        if lists is not None:
            steps = run.fixed_steps(c)
            final = [lists.settle(t, sp, list_labels, p, steps=steps)
                     for t, sp, p in zip(texts, final, patients)]
        if starter is not None:
            final = [starter.cover(t, sp, p) for t, sp, p in zip(texts, final, patients)]
        spans_by[c], spans_by[c + RAW] = final, raw
    return spans_by


def miss_visibility(texts: list[str], misses, spans: list[list],
                    others: list[list[list]] | None) -> list[dict]:
    """For each strict miss ``(note, start, end, label)``: ``words`` (its
    tokens with a letter or digit), ``visible`` (those ``spans`` leave
    uncovered) and ``elsewhere`` (of the visible ones, those some candidate
    of ``others`` covers). A miss with nothing visible was hidden under
    another label or with other boundaries; one whose visible words no
    other candidate covers is beyond every model the run trained.
    ``others`` None (the other candidates not read): ``elsewhere`` is None."""
    from app.core.spans import Span
    from app.core.tokenize import tokenize

    toks_by: dict[int, list] = {}
    out = []
    for note, start, end, label in misses:
        text = texts[note]
        toks = toks_by.setdefault(note, tokenize(text))
        words = word_tokens(text, toks, [Span(start, end, label)])
        visible = words - marked_tokens(toks, spans[note])
        elsewhere = None if others is None else set()
        for other in others or ():
            elsewhere |= visible & marked_tokens(toks, other[note])
        out.append({"words": len(words), "visible": len(visible),
                    "elsewhere": None if elsewhere is None else len(elsewhere)})
    return out


def together(texts: list[str], gold: list[list], candidates: list[list[list]],
             labels: list[str]) -> dict:
    """Token figures of the union of ``candidates`` (each a list of spans per
    text): the identifier tokens that some candidate hides, its precision,
    and the notes where no candidate hides a gold identifier. No choice among
    the candidates can hide more."""
    from app.eval.report import evaluate

    union = [[s for spans in candidates for s in spans[i]] for i in range(len(texts))]
    data = evaluate(texts, gold, union, labels=labels or None, bootstrap=0).to_dict()
    token, privacy = data["micro"]["token"], data["privacy"]
    return {"candidates": len(candidates), "token_recall": token["recall"],
            "token_precision": token["precision"],
            "notes_leaking": privacy["notes_with_missed"],
            "notes_with_identifiers": privacy["notes_with_identifiers"]}


def table_candidates(spans_by: dict[str, list], name: str) -> dict[str, list]:
    """The rows of a table of `candidate_spans`: every candidate with its
    steps, and without them the selected ``name`` alone (the other rows are
    what each would write if it were selected)."""
    return {c: spans for c, spans in spans_by.items() if not c.endswith(RAW) or c == name + RAW}


def evaluate_project(project, *, split: str = "test", model: str | None = None,
                     run_id: int | None = None, table: bool = True, bootstrap: int = 1000,
                     progress: ProgressFn = no_progress) -> EvaluationResult:
    from app.eval.report import evaluate
    from app.services.runs import active_run
    from app.services.training import gold_documents

    docs = gold_documents(project, splits=(split,))
    if not docs:
        from app.services.splits import split_offer
        raise UserError(split_offer(project, split)
                        or f"no annotated documents in the {split!r} split to evaluate on: "
                           f"import annotated notes with `deid import PROJECT PATH --split {split}`"
                           f", or name another split with --split")
    run = active_run(project, run_id)
    name = model or run.selected
    texts = [d.text for d in docs]
    gold = [d.spans for d in docs]
    spans_by = candidate_spans(project, run, texts, name=name, every=table,
                               patients=[d.patient_id for d in docs], progress=progress)
    labels = [l.name for l in project.labels()]
    report = evaluate(texts, gold, spans_by[name], labels=labels or None, bootstrap=bootstrap)
    rows = []
    others = [sp for c, sp in spans_by.items() if c != name and not c.endswith(RAW)] \
        if table else None
    misses = miss_visibility(texts, report.false_negatives, spans_by[name], others)
    made_by = false_hit_makers(report.false_positives, spans_by[name])
    joint = None
    if table:
        for c, spans in table_candidates(spans_by, name).items():
            rows.append(_prf_row(c, micro(texts, gold, spans)))
        rows.sort(key=lambda r: -r["strict"]["f1"])
        joint = together(texts, gold, [spans_by[name], *(others or [])], labels)
    progress(Progress(1.0, "evaluate"))
    if not project.readonly:
        project.log("evaluate", {"run": run.id, "model": name, "split": split, "notes": len(docs)})
    warning = split_after_training(project, run.id, split)
    return EvaluationResult(run.id, name, split, report, rows, run.selection,
                            run.propagation_labels(name), [list(r) for r in run.fill_rules(name)],
                            None if (steps := run.fixed_steps(name)) is None else list(steps),
                            misses, joint, made_by, [warning] if warning else [])


def split_after_training(project, run_id: int, split: str) -> str | None:
    """A warning when the project's notes were dealt into splits (`deid
    split`, the app's offer to split) after run ``run_id`` trained: the test
    notes annotated then were among those it learned from. None otherwise."""
    if split != "test":
        return None
    started = project.run(run_id).started_at
    dealt = next((e.at for e in project.audit_entries() if e.event == "assign_splits"), None)
    if dealt is None or dealt <= started:
        return None
    return (f"the notes were split after the model in use trained (run {run_id}): test notes "
            "annotated before then were among the notes it learned from, so these figures "
            "flatter it; train again (`deid train`) to hold them out")


def false_hit_makers(false_positives, spans: list[list]) -> list[str | None]:
    """For each strict false positive ``(note, start, end, label)``, the
    origin of the predicted span it is (None when none matches)."""
    by_note: dict[int, dict] = {}
    out = []
    for note, start, end, label in false_positives:
        keyed = by_note.setdefault(note, {s.key: s.origin for s in spans[note]})
        out.append(keyed.get((start, end, label)))
    return out


def render_table(rows: list[dict], selected: str) -> str:
    w = max([28, *(len(r["name"]) + 2 for r in rows)])
    head = f"{'model':<{w}} {'strict P':>8} {'R':>6} {'F1':>6}  {'relaxed F1':>10}  {'token P':>7} {'R':>6} {'F1':>6}"
    lines = [head, "-" * len(head)]
    for r in rows:
        s, rl, t = r["strict"], r["relaxed"], r["token"]
        mark = " *" if r["name"] == selected else ""
        lines.append(f"{(r['name'] + mark):<{w}} {s['precision']:8.4f} {s['recall']:6.4f} {s['f1']:6.4f}"
                     f"  {rl['f1']:10.4f}  {t['precision']:7.4f} {t['recall']:6.4f} {t['f1']:6.4f}")
    return "\n".join(lines)


#: Project setting keeping the last test evaluation (figures and error offsets).
EVALUATION_KEY = "evaluation.latest"


@dataclass(frozen=True)
class ErrorRow:
    """One evaluation error, located by document id and code-point offsets."""

    kind: str            # "missed" (false negative) or "false hit" (false positive)
    doc_id: int
    doc_name: str
    start: int
    end: int
    label: str
    before: str
    span: str
    after: str
    # A miss's words left visible and, of them, those another candidate hides
    # (`miss_visibility`); None for a false hit or an evaluation kept before.
    visible: int | None = None
    elsewhere: int | None = None
    # A false hit's maker (``Span.origin``); None for a miss or when unknown.
    made_by: str | None = None

    def shown(self) -> str:
        """What a miss leaves for a reader, in words ("" for a false hit)."""
        if self.visible is None:
            return ""
        if not self.visible:
            return "hidden (another label or other edges)"
        words, them = count(self.visible, "word"), "them" if self.visible > 1 else "it"
        if self.elsewhere is None:                  # the other candidates were not read
            return f"{words} visible"
        if self.elsewhere == self.visible:
            return f"{words} visible; another candidate hides {them}"
        if self.elsewhere:
            return f"{words} visible; other candidates hide some"
        return f"{words} visible; no candidate finds {them}"


def error_rows(project, errors: dict, split: str, context: int = 30,
               misses: list[dict] | None = None,
               made_by: list[str | None] | None = None) -> list[ErrorRow]:
    """Evaluation errors (``report.to_dict()['errors']``), missed ones first;
    ``made_by`` (`false_hit_makers`, in the order of the false positives)
    says what made each false hit; ``misses`` (`miss_visibility`, in the
    order of the false negatives) say
    what each miss leaves visible, and order them for a reviewer: those
    whose visible words no candidate finds first (annotate more like them),
    then those another candidate hides, then those hidden under another
    label or edges; each group in note order.

    Note indices refer to ``gold_documents(project, splits=(split,))``,
    the list :func:`app.services.evaluating.evaluate_project` scored.
    """
    from app.services.training import gold_documents
    docs = gold_documents(project, splits=(split,))
    names = {info.id: info.name for info in project.document_infos(split=split)}
    rows = []
    for kind, key in (("missed", "false_negatives"), ("false hit", "false_positives")):
        for k, (note, start, end, label) in enumerate(errors.get(key, [])):
            doc = docs[note]
            seen = misses[k] if kind == "missed" and misses else {}
            maker = made_by[k] if kind == "false hit" and made_by else None
            rows.append(_error_row(kind, int(doc.name), names.get(int(doc.name), doc.name),
                                   doc.text, start, end, label, context,
                                   seen.get("visible"), seen.get("elsewhere"), maker))
    return sorted(rows, key=_review_order)      # stable: note order within a group


def _review_order(row: ErrorRow) -> int:
    if row.kind != "missed":
        return 3
    if row.visible is None:           # an evaluation kept before misses were weighed
        return 0
    return 2 if not row.visible else 0 if row.elsewhere == 0 else 1


def _error_row(kind: str, doc_id: int, name: str, text: str, start: int, end: int, label: str,
               context: int = 30, visible: int | None = None,
               elsewhere: int | None = None, made_by: str | None = None) -> ErrorRow:
    return ErrorRow(kind, doc_id, name, start, end, label,
                    text[max(0, start - context):start].replace("\n", " "),
                    text[start:end].replace("\n", " "),
                    text[end:end + context].replace("\n", " "), visible, elsewhere, made_by)


def evaluation_summary(project, split: str = "test") -> dict:
    """The candidates' scores on ``split``, per-label figures and the errors
    (what the GUI's results tab shows after "Evaluate on test").

    The summary is also kept in the project (figures and error offsets, no
    text), so it is shown again after a restart: see :func:`stored_evaluation`.
    """
    result = evaluate_project(project, split=split, table=True, bootstrap=0)
    report = result.report.to_dict()
    summary = {"run": result.run_id, "model": result.model, "split": split,
               "table": {r["name"]: {**r["strict"], "token_recall": r["token"]["recall"]}
                         for r in result.table},
               "per_label": {label: {"P": v["strict"]["precision"], "R": v["strict"]["recall"],
                                     "F1": v["strict"]["f1"], "support": v["support"]}
                             for label, v in report["per_label"].items()},
               "micro": report["micro"]["strict"],
               "token": report["micro"]["token"],
               "privacy": report["privacy"],
               "errors": error_rows(project, report["errors"], split, misses=result.misses,
                                    made_by=result.made_by),
               "together": result.together}
    if not project.readonly:
        kept = {k: v for k, v in summary.items() if k != "errors"}
        kept["errors"] = [[e.kind, e.doc_id, e.start, e.end, e.label, e.visible, e.elsewhere,
                           e.made_by] for e in summary["errors"]]
        project.set_setting(EVALUATION_KEY, kept)
    return summary


def stored_evaluation(project) -> dict | None:
    """The last :func:`evaluation_summary` of the active run, if one was made."""
    from app.services.runs import active_run
    kept = project.get_setting(EVALUATION_KEY)
    try:
        run = active_run(project)
    except UserError:
        return None
    if not kept or kept.get("run") != run.id:
        return None
    errors = []
    texts: dict[int, tuple[str, str]] = {}
    # Kept before: no seen (visible, elsewhere), no maker.
    for kind, doc_id, start, end, label, *seen in kept["errors"]:
        if doc_id not in texts:
            try:
                doc = project.document(doc_id)
            except Exception:  # noqa: BLE001 - the note was deleted since
                continue
            texts[doc_id] = (doc.text, doc.name)
        text, name = texts[doc_id]
        errors.append(_error_row(kind, doc_id, name, text, start, end, label, 30, *seen))
    return {**kept, "errors": errors}


#: Fewer dev notes or identifiers than these: the dev scores get a sample-size warning.
MIN_DEV_NOTES, MIN_DEV_IDENTIFIERS = 5, 30


def sample_size_note(dev_notes: int | None, dev_identifiers: int | None) -> str | None:
    """A warning when the dev scores rest on too few notes or identifiers to trust."""
    if dev_notes is None or dev_identifiers is None:
        return None
    if dev_notes >= MIN_DEV_NOTES and dev_identifiers >= MIN_DEV_IDENTIFIERS:
        return None
    return (f"Small sample: the dev scores come from {count(dev_notes, 'note')} with "
            f"{count(dev_identifiers, 'identifier')}, too few to trust (one error moves them by "
            f"{100 / max(dev_identifiers, 1):.1f} points). Annotate more notes before relying "
            "on them.")


def dev_sample_note(run) -> str | None:
    """:func:`sample_size_note` of a training run (``app.services.runs.TrainedRun``):
    its dev notes, and the identifiers its best candidate was scored on."""
    best = run.rows[0] if run.rows else {}
    identifiers = best["tp"] + best["fn"] if "tp" in best and "fn" in best else None
    return sample_size_note(run.documents.get("dev"), identifiers)
