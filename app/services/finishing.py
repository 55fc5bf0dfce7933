"""The finishing steps after a candidate has tagged a note: recall fill,
then propagation, then the edge words, then the unmarked words
(app.ensemble.fill, app.ensemble.propagation, app.ensemble.edges,
app.ensemble.unmarked). Before them, always, a
span with no letter or digit is dropped (``worded``): punctuation alone
identifies nobody, and no annotated span of MEDDOCAN's or PhysioNet's
training notes is one (MEDDOCAN's recall-first stack tagged 20 lone commas
and dashes on test).

They are learned on dev for the selected candidate when a run is trained
(``fit_finishing``), stored in the run's metrics (``"fill"``,
``"propagation"``, ``"edges"``, ``"unmarked"``) and applied by the predictor, `deid
evaluate` and the benchmark (``finish``), so what is scored is what `deid
annotate` writes.
"""
from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

from app.core.spans import Span
from app.core.tokenize import Segment
from app.ensemble.fill import fill, fit_fill
from app.ensemble.propagation import fit_propagation, propagate, token_bounds
from app.ensemble.edges import Edges, edge_words, span_edges, trim_edges
from app.ensemble.unmarked import drop_unmarked, unmarked_words

#: Identifier tokens of dev the edge words or the unmarked words may cost,
#: as a share of them: these steps serve precision only where recall does
#: not pay for it.
UNMARKED_RECALL_COST = 0.001


class Finishing(NamedTuple):
    """The records of the finishing steps (None: the step did not run)."""

    fill: dict | None
    propagation: dict | None
    unmarked: dict | None = None
    edges: dict | None = None


def fit_finishing(name: str, seqs, dev, member_seqs: Mapping[str, Sequence], beta: float, *,
                  use_fill: bool = True, use_propagation: bool = True,
                  train_docs: Sequence[tuple[str, Sequence[Span]]] | None = None) -> Finishing:
    """Fill rules, then propagated labels, then the unmarked words, of
    candidate ``name`` learned from its dev predictions ``seqs``
    (out-of-fold for an ensemble) and the members' dev predictions
    ``member_seqs``, note by note. The edge words and the unmarked words
    are read off ``train_docs`` (``(text, gold spans)`` of the training
    split; none: these steps do not run), each kept when applying it raises
    dev strict micro-F-beta and hides at most `UNMARKED_RECALL_COST` fewer
    identifier tokens.
    """
    from app.core.bio import tags_to_spans

    member_seqs = member_seqs if use_fill else {}      # only the fill reads them
    notes: dict[str, dict] = {}
    for i, (item, seq) in enumerate(zip(dev, seqs)):
        note = notes.setdefault(item.doc_id, {"text": item.text, "pred": [], "gold": [],
                                              "segs": [], "members": {m: [] for m in member_seqs}})
        toks = item.segment.tokens
        note["pred"] += worded(item.text, tags_to_spans(toks, seq.tags, seq.confidences))
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
        if labels:
            for n in notes_list:
                n["pred"] = propagate(n["text"], n["pred"], labels, token_bounds(n["segs"]))
    if train_docs is None:
        return Finishing(fill_record, propagation)
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
    return Finishing(fill_record, propagation, unmarked, edges_record)


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
    from app.eval.metrics import PRF, f_beta, strict_counts, token_counts

    def score(apply: bool) -> tuple[float, PRF]:
        strict = tokens = PRF(0, 0, 0)
        for n in notes:
            pred = step(n["text"], n["pred"]) if apply else n["pred"]
            strict += strict_counts(n["gold"], pred)
            tokens += token_counts(n["text"], n["gold"], pred)
        return f_beta(strict.precision, strict.recall, beta), tokens

    (before, tok_before), (after, tok_after) = score(False), score(True)
    lost = tok_before.tp - tok_after.tp
    keep = after > before and lost <= UNMARKED_RECALL_COST * (tok_before.tp + tok_before.fn)
    return keep, {"beta": beta, "dev_before": round(before, 4), "dev_after": round(after, 4),
                  "dev_tokens_lost": lost}


def worded(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` less those whose text holds no letter or digit."""
    return [s for s in spans if any(c.isalnum() for c in text[s.start:s.end])]


def finish(text: str, spans: Sequence[Span], segments: Sequence[Segment],
           member_spans: Mapping[str, Sequence[Span]], rules: Sequence[tuple[str, str]],
           labels: Sequence[str], unmarked: frozenset[str] = frozenset(),
           edges: Edges | None = None) -> list[Span]:
    """A candidate's spans of one note, ``worded``, after the fill ``rules``,
    the propagation of ``labels`` (``segments``: the parts that were
    tagged), trimmed of their ``edges`` words and without the spans made
    only of ``unmarked`` words."""
    spans = worded(text, spans)
    out = fill(spans, member_spans, rules) if rules else spans
    if labels:
        out = propagate(text, out, labels, token_bounds(segments))
    if edges:
        out = trim_edges(text, out, edges)
    if unmarked:
        out = drop_unmarked(text, out, unmarked)
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
    """What a precision step did on dev: its score before and after, the tokens it unhid."""
    score = "F2" if record.get("beta", 1.0) != 1.0 else "F1"
    return (f"dev strict {score} {record['dev_before']:.4f} -> {record['dev_after']:.4f}; "
            f"{record.get('dev_tokens_lost', 0)} identifier tokens of dev less hidden")


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
    return (f"Edge words: spans lose the {len(record['starts'])} words your annotators never "
            f"start one with and the {len(record['ends'])} they never end one with "
            f"({_dev_change(record)}).")


def refit_summary(members: dict) -> str:
    """One line on the members refitted on train + dev after the selection
    (``MemberRecord.refit``; "" when none was)."""
    done = {n: m.refit for n, m in members.items() if m.refit}
    if not done:
        return ""
    seconds = sum(r.get("seconds", 0.0) for r in done.values())
    return (f"Refit: {', '.join(done)} trained again on train + dev once selected "
            f"({seconds:.0f} s); they predict, and every dev figure is of the models before, "
            f"which had not seen dev.")


def finishing_summary(run) -> list[str]:
    """The lines of the steps that ran in ``run`` (an
    `app.services.runs.TrainedRun`), the refit last."""
    return [line for line in (fill_summary(run.fill), propagation_summary(run.propagation),
                              edges_summary(run.edges), unmarked_summary(run.unmarked),
                              refit_summary(run.members)) if line]
