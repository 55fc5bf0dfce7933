"""How much of what the model misses does the leak scan flag?

``python -m app.bench.leakscan PROJECT.deid [--split test] [--json FILE]``

For every document of the split: the project's active model predicts, the
spans are replaced (``tag`` for every label, so every gold label counts),
and the output is scanned as an export scans it (known identifiers, rules,
the model's recall-biased union, names beside replacements). The known
identifiers are those people accepted in the *other* documents (the split's
own gold is left out: a new note's identifiers are not known before it is
annotated) and the hospital lists, plus what the model replaced in the
note's patient.

Figures, against the gold spans:

* ``missed_tokens``: identifier words (gold) no replacement touches;
* ``flagged_missed``: of those, the share a suspicion covers (target 0.95);
  ``flagged_missed_not_kept`` the same without the ages and sex the policy
  keeps in clear (the scan does not look for those);
* ``notes_leaking`` / ``notes_leaking_all_flagged``: notes with a missed
  word, and those whose every missed word is flagged;
* ``false_alarm_share``: suspicions that cover no missed word;
* ``clear_words_flagged``: the share of non-identifier words in clear that
  a suspicion covers (what a reviewer wades through);
* ``suspicions_per_1000_words``: suspicions per thousand words left in the
  output (outside replacements); ``notes_with_suspicions``: the notes a
  reviewer must open; ``suspicions_by_source_and_label``: per category
  (source, label, whether it covers a missed word).
"""
from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path


def measure(project, split: str = "test", *, model_scan: bool = True, limit: int | None = None,
            debug: list | None = None, model: str | None = None,
            threshold: float | None = None) -> dict:
    from app.deid import Policy, Redactor
    from app.deid.folder import doubts_in_output, predictor_doubts, without_kept_ages
    from app.deid.redact import map_offset
    from app.deid.policy import WORDED_KINDS
    from app.deid.rescan import KnownIdentifiers, _WORD, rescan
    from app.services.prediction import resolve
    from app.services.redaction import (_KEPT_KINDS, ModelScanFactory, document_patient_key,
                                        project_known_identifiers, project_policy,
                                        rule_leak_scan, scan_shapes)

    policy = Policy.from_dict({**project_policy(project).to_dict(), "default": "tag",
                               "strategies": {}})
    kinds = project_policy(project)
    infos = project.document_infos(split=split)[:limit]
    ids = {i.id for i in infos}
    # The project's known identifiers as an export knows them, but the split's own.
    known = project_known_identifiers(project, kinds, exclude=frozenset(ids))
    common = known.common
    seen = KnownIdentifiers(common, own_patient_only=True)
    rules = rule_leak_scan(project)
    shapes = scan_shapes(project, kinds)
    spec = resolve(project, model=model, untrained="error")
    threshold = spec.scan_threshold if threshold is None else threshold
    scan = ModelScanFactory(spec.with_all_members(), threshold)() if model_scan else None
    redactor = Redactor(policy)
    counts: Counter = Counter()
    sources: Counter = Counter()
    unflagged: Counter = Counter()
    by_category: Counter = Counter()
    t0 = time.perf_counter()
    with spec.load(project) as predictor:
        for info in infos:
            text = project.document(info.id).text
            spans = predictor.predict_spans(text)
            result = redactor.redact(text, spans, patient_key=document_patient_key(info))
            key = document_patient_key(info)
            for m in result.span_map:
                kind = kinds.kind_for(m.label)
                if kind not in _KEPT_KINDS:
                    seen.add(key, m.label, text[m.in_start:m.in_end], name=kind == "name")
            # The model's doubts, read with the prediction on the original (as an export).
            doubts = doubts_in_output(predictor_doubts(predictor, [text], threshold)[0],
                                      result.span_map) if scan is not None else []
            # The ages the policy keeps are not suspected, as in an export (_scan_task).
            found = [lk for lk in rescan(
                result.text, (), lambda t: without_kept_ages(policy, t, rules(t)),
                known=(seen, known), patient=key,
                model_fn=(lambda t: without_kept_ages(policy, t, list(scan(t)) + doubts))
                if scan is not None else None,
                replaced=[(m.out_start, m.out_end) for m in result.span_map],
                names_replaced=[(m.out_start, m.out_end) for m in result.span_map
                                if kinds.kind_for(m.label) == "name"],
                worded_replaced=[(m.out_start, m.out_end) for m in result.span_map
                                 if kinds.kind_for(m.label) in WORDED_KINDS],
                shapes=shapes) if not lk.in_replacement]
            gold = project.gold_spans(info.id)
            missed_out, clear_out, missed_labels = [], [], []
            for w in _WORD.finditer(text):
                a, b = w.start(), w.end()
                if any(m.in_start < b and a < m.in_end for m in result.span_map):
                    continue
                oa = map_offset(result.span_map, a)
                ob = oa + (b - a)
                label = next((g.label for g in gold if g.start < b and a < g.end), None)
                (missed_out if label else clear_out).append((oa, ob))
                if label:
                    missed_labels.append(label)
            flagged = [any(lk.start < ob and oa < lk.end for lk in found) for oa, ob in missed_out]
            for label, hit, (oa, ob) in zip(missed_labels, flagged, missed_out):
                if not hit:
                    unflagged[label] += 1
                    if debug is not None:
                        debug.append(("MISSED", label, result.text[max(0, oa - 25):ob + 10]))
            counts["notes"] += 1
            counts["missed_tokens"] += len(missed_out)
            counts["flagged_missed_tokens"] += sum(flagged)
            # Ages and sex the policy keeps in clear (ages up to the cap): the
            # scan does not look for them, so they are also counted apart.
            kept = [kinds.kind_for(label) in _KEPT_KINDS for label in missed_labels]
            counts["missed_not_kept"] += kept.count(False)
            counts["flagged_missed_not_kept"] += sum(f for f, k in zip(flagged, kept) if not k)
            counts["notes_leaking"] += bool(missed_out)
            counts["notes_leaking_all_flagged"] += bool(missed_out) and all(flagged)
            counts["clear_words"] += len(clear_out)
            counts["clear_words_flagged"] += sum(
                any(lk.start < ob and oa < lk.end for lk in found) for oa, ob in clear_out)
            counts["suspicions"] += len(found)
            counts["notes_with_suspicions"] += bool(found)
            for lk in found:
                hit = any(lk.start < ob and oa < lk.end for oa, ob in missed_out)
                counts["true_suspicions"] += hit
                sources[f"{lk.kind}:{'hit' if hit else 'false'}"] += 1
                by_category[f"{lk.kind}:{lk.category}:{'hit' if hit else 'false'}"] += 1
                if debug is not None and not hit:
                    debug.append((lk.kind, lk.category, result.text[lk.start:lk.end]))
            counts["gold_tokens"] += sum(
                1 for w in _WORD.finditer(text)
                if any(g.start < w.end() and w.start() < g.end for g in gold))
    if scan is not None:
        scan.close()
    c = counts
    return {
        "split": split, "notes": c["notes"], "gold_tokens": c["gold_tokens"],
        "missed_tokens": c["missed_tokens"],
        "model_token_recall": round(1 - c["missed_tokens"] / max(c["gold_tokens"], 1), 4),
        "flagged_missed": round(c["flagged_missed_tokens"] / max(c["missed_tokens"], 1), 4),
        "missed_not_kept": c["missed_not_kept"],
        "flagged_missed_not_kept": round(
            c["flagged_missed_not_kept"] / max(c["missed_not_kept"], 1), 4),
        "notes_leaking": c["notes_leaking"],
        "notes_leaking_all_flagged": c["notes_leaking_all_flagged"],
        "suspicions": c["suspicions"],
        "notes_with_suspicions": c["notes_with_suspicions"],
        "false_alarm_share": round(1 - c["true_suspicions"] / max(c["suspicions"], 1), 4),
        "clear_words_flagged": round(c["clear_words_flagged"] / max(c["clear_words"], 1), 4),
        "suspicions_per_1000_words": round(
            1000 * c["suspicions"] / max(c["clear_words"] + c["missed_tokens"], 1), 2),
        "suspicions_by_source": dict(sorted(sources.items())),
        "unflagged_missed_by_label": dict(unflagged.most_common()),
        "suspicions_by_source_and_label": dict(by_category.most_common()),
        "model": predictor.name, "model_scan": model_scan, "scan_threshold": threshold,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    from app.bench.record import print_figures
    from app.project import Project
    ap = argparse.ArgumentParser(prog="python -m app.bench.leakscan", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("project")
    ap.add_argument("--split", default="test")
    ap.add_argument("--no-model-scan", action="store_true")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--model", help="a candidate of the active run (default: the selected one)")
    ap.add_argument("--threshold", type=float,
                    help="the scan's CRF threshold (default: the product's, "
                         "PredictorSpec.scan_threshold)")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    with Project.open(Path(args.project), readonly=True) as project:
        figures = measure(project, args.split, model_scan=not args.no_model_scan, limit=args.limit,
                          model=args.model, threshold=args.threshold)
    print_figures(figures, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
