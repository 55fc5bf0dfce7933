"""The finishing steps after a candidate has tagged a note: recall fill,
then propagation, then the joins, then the edge words, then the unmarked
words (app.ensemble.fill, app.ensemble.propagation, app.ensemble.joins,
app.ensemble.edges, app.ensemble.unmarked). Before them, always, a
span with no letter or digit is dropped (``worded``): punctuation alone
identifies nobody, and no annotated span of MEDDOCAN's or PhysioNet's
training notes is one (MEDDOCAN's recall-first stack tagged 20 lone commas
and dashes on test).

Before them, a selected member that tags at a threshold (the transformer)
may have it raised where its output, as written, agrees (``fit_threshold``).

They are learned on dev for the selected candidate when a run is trained
(``fit_finishing``), stored in the run's metrics (``"fill"``,
``"propagation"``, ``"joins"``, ``"edges"``, ``"unmarked"``) and applied by
the predictor, `deid evaluate` and the benchmark (``finish``), so what is
scored is what `deid annotate` writes. A widened span keeps the name of
what made it (the joins only grow spans, never make one).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping, NamedTuple, Sequence

from app.core.spans import Span, met_by
from app.core.tokenize import Segment
from app.core.words import count
from app.ensemble.fill import fill, fit_fill
from app.ensemble.propagation import fit_propagation, propagate, token_bounds
from app.ensemble.edges import Edges, edge_words, span_edges, trim_edges
from app.ensemble.joins import describe_join, kept_joins, widen
from app.ensemble.unmarked import drop_unmarked, unmarked_words

#: Identifier tokens of dev the edge words or the unmarked words may cost,
#: as a share of them: these steps serve precision only where recall does
#: not pay for it.
UNMARKED_RECALL_COST = 0.001


#: ``settle(text, spans, steps)``: a note's spans after the hospital lists
#: and the fixed steps ``steps`` (`app.lists.floor.Floor.settle`, bound to a
#: project's floor and labels).
Settle = Callable[[str, Sequence[Span], Sequence[str]], list[Span]]


class Finishing(NamedTuple):
    """The records of the finishing steps (None: the step did not run)."""

    fill: dict | None
    propagation: dict | None
    unmarked: dict | None = None
    edges: dict | None = None
    fixed: dict | None = None
    joins: dict | None = None


def dev_notes(dev, seqs, member_seqs: Mapping[str, Sequence] | None = None) -> list[dict]:
    """A candidate's dev predictions ``seqs`` (one per item of ``dev``)
    gathered by note: ``{"text", "pred" (worded), "gold", "segs", "items"
    (the indices into ``dev``), "members" (each of ``member_seqs``' spans)}``."""
    from app.core.bio import tags_to_spans

    member_seqs = member_seqs or {}
    notes: dict[str, dict] = {}
    for i, (item, seq) in enumerate(zip(dev, seqs)):
        note = notes.setdefault(item.doc_id, {"text": item.text, "pred": [], "gold": [],
                                              "segs": [], "items": [],
                                              "members": {m: [] for m in member_seqs}})
        toks = item.segment.tokens
        note["pred"] += worded(item.text, tags_to_spans(toks, seq.tags, seq.confidences))
        note["gold"] += tags_to_spans(toks, item.tags)
        note["segs"].append(item.segment)
        note["items"].append(i)
        for m, out in member_seqs.items():
            note["members"][m] += tags_to_spans(toks, out[i].tags, out[i].confidences)
    return list(notes.values())


def fit_fixed_steps(notes: list[dict], settle: Settle, beta: float,
                    steps: Sequence[str]) -> dict:
    """The fixed ``steps`` (`app.lists.floor.FIXED_STEPS`) the dev ``notes``
    (`dev_notes`) agree with, tried one by one in their order on top of
    those kept: a step is kept when dev agrees (`_compare`: it raises dev
    strict micro-F-beta, or hides more identifier tokens and raises token
    F-beta, and hides at most `UNMARKED_RECALL_COST` fewer of them), as the
    learned steps are, or when it changes nothing on dev (no evidence
    against the shipped default). Returns the record ``{"steps": [kept],
    "tried": {step: figures}}``; each note's ``"pred"`` becomes its output
    with the kept steps."""
    kept: list[str] = []
    current = [settle(n["text"], n["pred"], ()) for n in notes]
    tried = {}
    for step in steps:
        trial = [settle(n["text"], n["pred"], (*kept, step)) for n in notes]
        if trial == current:
            tried[step] = {"changed": False}
            kept.append(step)
            continue
        keep, record = _compare(notes, beta, current, trial)
        tried[step] = {"changed": True, "kept": keep, **record}
        if keep:
            kept.append(step)
            current = trial
    for n, pred in zip(notes, current):
        n["pred"] = pred
    return {"steps": kept, "tried": tried}


def fit_threshold(name: str, retagger, dev, settle: Settle | None = None,
                  steps: Sequence[str] | None = None) -> tuple[dict | None, list | None]:
    """The threshold of the selected member ``name`` that its written output
    agrees with: the member read dev once (``retagger``, a
    `app.models.base.Retagger`); at each of its ``higher`` thresholds dev
    is tagged again and output as it would be (``settle`` with the fixed
    ``steps`` the candidate kept, None: every one; the hospital lists, the
    rules, the starter's day-one spans). The threshold kept is the one whose output is
    the most precise in identifier tokens among those that hide every dev
    identifier token the member's own threshold hid and leave no more
    identifiers wholly in clear; a tie keeps the lower (the member's own
    first). Returns ``(record, dev tags at it)``, ``(None, None)`` when the
    member has no threshold to raise.

    Why: the member tuned its threshold on its own output (strict F2), where
    a word found only at a low probability counts; once the lists, rules
    and the starter's floor are added, many of those words are found
    anyway, and the low threshold adds only false ones. On PhysioNet folds'
    dev the written output hid the same 175 (365) identifier tokens from the
    member's 0.769 up to 0.952 with 10 false ones instead of 15 (39 instead
    of 51); 0.978 left 2 of the 365 in clear (BENCHMARKS.md, session 47)."""
    from app.eval.metrics import PRF, marked_tokens
    from app.core.tokenize import tokenize

    if retagger is None or not retagger.higher:
        return None, None
    own = retagger.at(retagger.threshold)
    # Each dev note's tokens and gold identifiers' tokens, once for every threshold.
    golds = []
    for n in dev_notes(dev, own):
        toks = tokenize(n["text"])
        golds.append((toks, marked_tokens(toks, n["gold"]),
                      [t for g in n["gold"] if (t := marked_tokens(toks, [g]))]))

    def score(seqs) -> tuple[PRF, int, set]:
        tokens, in_clear, hidden_gold = PRF(0, 0, 0), 0, set()
        for k, (n, (toks, gold, identifiers)) in enumerate(zip(dev_notes(dev, seqs), golds)):
            pred = settle(n["text"], n["pred"], steps) if settle is not None else n["pred"]
            hidden = marked_tokens(toks, pred)
            tp = len(gold & hidden)
            tokens += PRF(tp, len(hidden) - tp, len(gold) - tp)
            hidden_gold |= {(k, i) for i in gold & hidden}
            in_clear += sum(1 for mine in identifiers if not mine & hidden)
        return tokens, in_clear, hidden_gold

    base_tokens, base_clear, base_hidden = score(own)
    best = (base_tokens.precision, retagger.threshold, own)
    tried = [{"threshold": retagger.threshold, "hidden": base_tokens.tp,
              "false": base_tokens.fp, "in_clear": base_clear}]
    for t in retagger.higher:
        seqs = retagger.at(t)
        tokens, in_clear, hidden = score(seqs)
        tried.append({"threshold": t, "hidden": tokens.tp, "false": tokens.fp,
                      "in_clear": in_clear})
        if hidden >= base_hidden and in_clear <= base_clear and tokens.precision > best[0]:
            best = (tokens.precision, t, seqs)
    record = {"candidate": name, "fit": retagger.threshold, "threshold": best[1],
              "tried": tried}
    return record, best[2]


def fit_finishing(name: str, seqs, dev, member_seqs: Mapping[str, Sequence], beta: float, *,
                  use_fill: bool = True, use_propagation: bool = True,
                  train_docs: Sequence[tuple[str, Sequence[Span]]] | None = None,
                  settle: Settle | None = None, fixed_steps: Sequence[str] = ()) -> Finishing:
    """Fill rules, then propagated labels, then the unmarked words, of
    candidate ``name`` learned from its dev predictions ``seqs``
    (out-of-fold for an ensemble) and the members' dev predictions
    ``member_seqs``, note by note. The edge words and the unmarked words
    are read off ``train_docs`` (``(text, gold spans)`` of the training
    split; none: these steps do not run), each kept when applying it raises
    dev strict micro-F-beta and hides at most `UNMARKED_RECALL_COST` fewer
    identifier tokens. Last, with ``settle``, the ``fixed_steps`` dev agrees
    with on top of the learned ones (`fit_fixed_steps`).
    """
    notes_list = dev_notes(dev, seqs, member_seqs if use_fill else {})  # only the fill reads them
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
        if labels:
            for n in notes_list:
                n["pred"] = propagate(n["text"], n["pred"], labels, token_bounds(n["segs"]))
    unmarked = edges_record = joins = None
    if train_docs is not None:
        joins = _fit_joins(name, notes_list, train_docs, beta)
        unmarked, edges_record = _fit_words(name, notes_list, train_docs, beta)
    fixed = None
    if settle is not None:
        fixed = {"candidate": name, "beta": beta,
                 **fit_fixed_steps(notes_list, settle, beta, fixed_steps)}
    return Finishing(fill_record, propagation, unmarked, edges_record, fixed, joins)


def _fit_words(name: str, notes_list: list[dict], train_docs, beta: float
               ) -> tuple[dict, dict]:
    """The records of the unmarked words and the edge words (see
    `fit_finishing`); the notes' predictions become those after the kept ones."""
    learned = edge_words(train_docs)
    edges = _fit_edge_words(notes_list, learned, beta)
    keep, record = _dev_agrees(notes_list, beta, lambda text, spans: trim_edges(text, spans, edges))
    keep = keep and bool(edges)
    edges_record = {"candidate": name, "starts": sorted(edges.starts) if keep else [],
                    "ends": sorted(edges.ends) if keep else [],
                    "learned": len(learned.starts) + len(learned.ends), **record}
    if keep:
        for n in notes_list:
            n["pred"] = trim_edges(n["text"], n["pred"], edges)
    words = unmarked_words(train_docs)
    keep, record = _dev_agrees(notes_list, beta, lambda text, spans: drop_unmarked(text, spans, words))
    unmarked = {"candidate": name, "words": sorted(words) if keep else [], "learned": len(words),
                **record}
    if keep:
        for n in notes_list:
            n["pred"] = drop_unmarked(n["text"], n["pred"], words)
    return unmarked, edges_record


def _fit_joins(name: str, notes: list[dict], train_docs, beta: float) -> dict:
    """The record of the joins (app.ensemble.joins): the join types the
    training notes keep whole, kept unless widening dev's predictions over
    them lowers dev strict F-beta. Widening never unhides a token and the
    training notes are the evidence (PhysioNet's: 370 of 370 digit/digit
    joins an identifier touched were inside it), so a dev with no partial
    prediction of one keeps them. The notes' predictions become the widened ones."""
    learned = kept_joins(train_docs)
    trial = [widen(n["text"], n["pred"], learned) for n in notes]
    changed = sum(t != n["pred"] for t, n in zip(trial, notes))
    _, record = _compare(notes, beta, [n["pred"] for n in notes], trial)
    keep = bool(learned) and record["dev_after"] >= record["dev_before"]
    if keep:
        for n, pred in zip(notes, trial):
            n["pred"] = pred
    return {"candidate": name, "joins": [list(j) for j in sorted(learned)] if keep else [],
            "learned": len(learned), "dev_notes_changed": changed, **record}


def _fit_edge_words(notes: list[dict], edges: Edges, beta: float) -> Edges:
    """The edge words of the training notes that dev agrees with one by one:
    trimming that word alone raises dev strict F-beta and unhides no
    identifier token. (A word that ends the annotators' spans almost never
    may still end many *partial* predictions, "Calle [San]" for "Calle San
    Juan", where trimming it unhides a word of the identifier.)"""
    from app.eval.metrics import PRF, f_beta, strict_counts, token_counts

    base = [(strict_counts(n["gold"], n["pred"]), token_counts(n["text"], n["gold"], n["pred"]))
            for n in notes]
    strict0 = sum((b[0] for b in base), PRF(0, 0, 0))
    score0 = f_beta(strict0.precision, strict0.recall, beta)
    # Each note's span edges, once: a word is only tried on the notes it touches.
    touched = [span_edges(n["text"], n["pred"]) for n in notes]
    kept: dict[str, set] = {"starts": set(), "ends": set()}
    for side, words in (("starts", edges.starts), ("ends", edges.ends)):
        for word in sorted(words):
            one = Edges(frozenset({word}) if side == "starts" else frozenset(),
                        frozenset({word}) if side == "ends" else frozenset())
            strict, lost = strict0, 0
            for n, (s0, t0), (firsts, lasts) in zip(notes, base, touched):
                if word not in (firsts if side == "starts" else lasts):
                    continue
                pred = trim_edges(n["text"], n["pred"], one)
                if pred == n["pred"]:
                    continue
                strict = strict - s0 + strict_counts(n["gold"], pred)
                lost += t0.tp - token_counts(n["text"], n["gold"], pred).tp
            if lost == 0 and f_beta(strict.precision, strict.recall, beta) > score0:
                kept[side].add(word)
    return Edges(frozenset(kept["starts"]), frozenset(kept["ends"]))


def _dev_agrees(notes: list[dict], beta: float, step) -> tuple[bool, dict]:
    """Whether ``step(text, spans)`` on the dev notes' predictions raises
    strict F-beta and costs at most `UNMARKED_RECALL_COST` of the identifier
    tokens; and the figures for the record."""
    return _compare(notes, beta, [n["pred"] for n in notes],
                    [step(n["text"], n["pred"]) for n in notes])


def _compare(notes: list[dict], beta: float, before_spans: Sequence[Sequence[Span]],
             after_spans: Sequence[Sequence[Span]]) -> tuple[bool, dict]:
    """Whether the dev ``notes``' predictions ``after_spans`` raise strict
    F-beta over ``before_spans`` (or hide more identifier tokens and raise
    token F-beta) and cost at most `UNMARKED_RECALL_COST` of the identifier
    tokens; and the figures for the record."""
    from app.eval.metrics import PRF, f_beta, strict_counts, token_counts

    def score(preds) -> tuple[float, PRF]:
        strict = tokens = PRF(0, 0, 0)
        for n, pred in zip(notes, preds):
            strict += strict_counts(n["gold"], pred)
            tokens += token_counts(n["text"], n["gold"], pred)
        return f_beta(strict.precision, strict.recall, beta), tokens

    (before, tok_before), (after, tok_after) = score(before_spans), score(after_spans)
    lost = tok_before.tp - tok_after.tp
    # A step that hides more identifier tokens is also kept when it raises
    # the leak measure (token F-beta), whatever exact boundaries say: on a
    # fold of patients nobody tuned on, the English floor turned off for
    # lowering strict F2 (0.8837 -> 0.8736) while hiding 7 more dev tokens
    # left 0.012 of the test tokens in clear.
    hides_more = lost < 0 and tok_after.f(beta) > tok_before.f(beta)
    keep = (after > before or hides_more) \
        and lost <= UNMARKED_RECALL_COST * (tok_before.tp + tok_before.fn)
    return keep, {"beta": beta, "dev_before": round(before, 4), "dev_after": round(after, 4),
                  "dev_tokens_lost": lost}


def worded(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` less those whose text holds no letter or digit."""
    return [s for s in spans if any(c.isalnum() for c in text[s.start:s.end])]


#: The registered names of the learned steps, as spans and removals name them.
WORDED, FILL, PROPAGATION, JOINS, EDGE_WORDS, UNMARKED = (
    "worded.v1", "recall-fill.v1", "propagation.v1", "joins.v1", "edge-words.v1",
    "unmarked-words.v1")


def finish(text: str, spans: Sequence[Span], segments: Sequence[Segment],
           member_spans: Mapping[str, Sequence[Span]], rules: Sequence[tuple[str, str]],
           labels: Sequence[str], unmarked: frozenset[str] = frozenset(),
           edges: Edges | None = None, removed: list | None = None) -> list[Span]:
    """A candidate's spans of one note, ``worded``, after the fill ``rules``,
    the propagation of ``labels`` (``segments``: the parts that were
    tagged), widened over the ``edges`` joins, trimmed of their ``edges``
    words and without the spans made only of ``unmarked`` words. A span a step made or changed names it
    (``Span.origin``, where the span had none: a filled span keeps its
    member's); ``removed`` receives ``(span, step)`` for each span dropped."""
    out = _named(WORDED, spans, worded(text, spans), removed)
    if rules:
        out = _named(FILL, out, fill(out, member_spans, rules), removed)
    if labels:
        out = _named(PROPAGATION, out, propagate(text, out, labels, token_bounds(segments)),
                     removed)
    if edges and edges.joins:
        out = _named(JOINS, out, widen(text, out, edges.joins), removed)
    if edges and (edges.starts or edges.ends):
        out = _named(EDGE_WORDS, out, trim_edges(text, out, edges), removed)
    if unmarked:
        out = _named(UNMARKED, out, drop_unmarked(text, out, unmarked), removed)
    return out


def _named(step: str, before: Sequence[Span], after: list[Span], removed: list | None
           ) -> list[Span]:
    """``after`` (``step``'s output from ``before``) with the spans it made
    from nothing named naming it, and the spans it dropped (none of
    ``after`` overlaps them) added to ``removed``."""
    if removed is not None:
        removed += [(s, step) for s, met in zip(before, met_by(before, after)) if not met]
    return [s if s.origin else replace(s, origin=step) for s in after]


def describe_rules(rules) -> str:
    """``[(member, label), ...]`` as "LABEL from member, ..."."""
    return ", ".join(f"{label} from {member}" for member, label in rules)


def _summary(title: str, record: dict | None, items: str, nothing: str) -> str:
    """One line on what a step learned ("" when it did not run)."""
    if not record:
        return ""
    if not items:
        return f"{title}: {nothing[0].upper()}{nothing[1:]} gains on dev, so it is off."
    score = "F2" if record.get("beta", 1.0) != 1.0 else "F1"
    return (f"{title}: {items} "
            f"(dev strict {score} {record['dev_before']:.4f} -> {record['dev_after']:.4f}).")


def fill_summary(record: dict | None) -> str:
    """One line on what the fill learned ("" when it did not run)."""
    return _summary("Recall fill", record, describe_rules((record or {}).get("rules", [])),
                    "adding no member's spans")


def propagation_summary(record: dict | None) -> str:
    """One line on what the propagation learned ("" when it did not run)."""
    return _summary("Propagation in a note", record, ", ".join((record or {}).get("labels", [])),
                    "propagating no label")


def unmarked_summary(record: dict | None) -> str:
    """One line on the unmarked words ("" when the step did not run); their
    number only, never the words."""
    if not record:
        return ""
    if not record.get("learned"):
        return "Unmarked words: the training notes hold no word often enough to tell, so it is off."
    if not record.get("words"):
        return (f"Unmarked words: dropping the spans made only of the {record['learned']} "
                f"words your annotators never mark does not gain on dev, so it is off.")
    return (f"Unmarked words: spans made only of {len(record['words'])} words your annotators "
            f"never mark are dropped ({_dev_change(record)}).")


def _dev_change(record: dict) -> str:
    """What a step did on dev: its score before and after, the tokens it unhid
    (or hid: a step that finds identifiers)."""
    score = "F2" if record.get("beta", 1.0) != 1.0 else "F1"
    lost = record.get("dev_tokens_lost", 0)
    tokens = (f"{count(lost, 'identifier token')} of dev less hidden" if lost >= 0
              else f"{count(-lost, 'identifier token')} of dev more hidden")
    return f"dev strict {score} {record['dev_before']:.4f} -> {record['dev_after']:.4f}; {tokens}"


def edges_summary(record: dict | None) -> str:
    """One line on the edge words ("" when the step did not run); their
    number only, never the words."""
    if not record:
        return ""
    if not record.get("learned"):
        return "Edge words: the training notes show no word where spans never start or end."
    if not (record.get("starts") or record.get("ends")):
        return (f"Edge words: trimming the {record['learned']} words your annotators leave out "
                f"of a span's edges does not gain on dev, so it is off.")
    return (f"Edge words: spans lose {count(len(record['starts']), 'word')} your annotators "
            f"never start one with and {count(len(record['ends']), 'word')} they never end one "
            f"with ({_dev_change(record)}).")


def joins_summary(record: dict | None) -> str:
    """One line on the joins ("" when the step did not run)."""
    if not record:
        return ""
    if not record.get("learned"):
        return "Glued words: the training notes show no glued word your annotators always mark whole."
    if not record.get("joins"):
        return (f"Glued words: widening a span over the {record['learned']} kinds of glued word "
                f"your annotators always mark whole loses on dev, so it is off.")
    kinds = "; ".join(describe_join(j) for j in record["joins"])
    return (f"Glued words: a span that covers part of a word your annotators always mark "
            f"whole covers all of it ({_dev_change(record)}): {kinds}.")


def fixed_summary(record: dict | None) -> str:
    """One line on the fixed steps of the floor dev turned off ("" when
    they were not chosen on dev or dev agreed with every one)."""
    off = {step: r for step, r in ((record or {}).get("tried") or {}).items()
           if r.get("changed") and not r.get("kept")}
    if not off:
        return ""
    # The day-one floor (`app.services.predictor.StarterFloor`) reads each
    # note with every fixed step, so what they found then may still be
    # covered, and credited to them in the audit report's "found by".
    return ("Fixed steps off for the trained model, as dev does not agree with them: "
            + "; ".join(f"{step} ({_dev_change(r)})" for step, r in off.items())
            + ". What they found on day one stays replaced where the run keeps what day one "
              "replaced.")


def refit_summary(members: dict) -> str:
    """One line on the members refitted on train + dev after the selection
    (``MemberRecord.refit``; "" when none was)."""
    done = {n: m.refit for n, m in members.items() if m.refit}
    if not done:
        return ""
    seconds = sum(r.get("seconds", 0.0) for r in done.values())
    return (f"Refit: {', '.join(done)} trained again on train + dev once selected "
            f"({seconds:.0f} s); they predict wherever the model in use holds them, and every "
            f"dev figure is of the models before, which had not seen dev.")


def threshold_summary(record: dict | None) -> str:
    """One line on the selected member's threshold (`fit_threshold`; "" when
    the candidate has none)."""
    if not record:
        return ""
    tried = {r["threshold"]: r for r in record.get("tried", [])}
    own, kept = tried.get(record["fit"]), tried.get(record["threshold"])
    if own is None or kept is None:
        return ""
    if record["threshold"] == record["fit"]:
        return (f"Threshold: {record['candidate']} keeps its own ({record['fit']:.2f} of a word's "
                f"probability on an identifier): no higher threshold kept every dev identifier "
                f"word hidden with fewer false hits.")
    return (f"Threshold: {record['candidate']} tags a word once {record['threshold']:.2f} of its "
            f"probability is on an identifier, not its own {record['fit']:.2f}: with the lists, "
            f"the rules and the starter's spans its output hid the same "
            f"{count(kept['hidden'], 'dev identifier word')} with "
            f"{own['false'] - kept['false']} fewer false ones ({own['false']} -> {kept['false']}).")


def starter_floor_summary(record: dict | None) -> str:
    """One line on the labels the day-one floor leaves out, with the figures
    that left them out ("" when it leaves none out, or the run has none)."""
    out = (record or {}).get("left_out") or []
    if not out:
        return ""
    shares = "; ".join(f"{label}: {_share_of(record['precision'][label], record['tokens'][label])}"
                       for label in out)
    return (f"Day one kept for {', '.join(record.get('labels', []))}, not for "
            f"{' or '.join(out)}: of the words the starter model marks so in your annotated "
            f"notes, few are identifiers there ({shares}).")


def _share_of(share: float, words: int) -> str:
    """"none of 32 words", "24% of 3,822 words"."""
    if share <= 0:
        return f"none of {count(words, 'word')}"
    return f"{share:.0%} of {count(words, 'word')}"


def finishing_summary(run) -> list[str]:
    """The lines of the steps that ran in ``run`` (an
    `app.services.runs.TrainedRun`): the threshold first, the refit last."""
    learned = [line for line in (fill_summary(run.fill), propagation_summary(run.propagation),
                                 joins_summary(run.joins), edges_summary(run.edges),
                                 unmarked_summary(run.unmarked)) if line]
    fixed = fixed_summary(run.fixed)
    steps = [*learned, fixed]
    # The learned steps' and the fixed steps' "dev strict F2 a -> b" start
    # from different figures: said why (a walkthrough read three "before"
    # figures for one model).
    how = ["Each step below is scored on dev against the model with the steps decided "
           "before it: the learned steps on the model's own spans, the fixed steps with what "
           "the starter model replaced on day one as well, so their starting figures differ."
           ] if learned and fixed and run.starter_floor else []
    return [line for line in (starter_floor_summary(run.starter_floor),
                              threshold_summary(run.threshold), *how, *steps,
                              refit_summary(run.members)) if line]
