"""Audit report of a redaction run: JSON for machines, HTML for people.

The report holds counts, settings, model figures and timings, and names
notes only by their OUTPUT path (a keyed-hash name under pseudonymous
naming), never by identifier text: ``RedactionSummary`` carries none, and
caller-provided sections are passed through as given (they must not carry
identifiers either; paths in ``settings`` are reduced to their last part).
The HTML page is self-contained (inline CSS, no scripts, no external links).
"""
from __future__ import annotations

import datetime as _dt
import html
import json
import os
from pathlib import Path
from typing import Any, Mapping

from app.deid.folder import RedactionSummary
from app.deid.policy import Policy
from app.deid.rescan import BY_WEIGHT, KNOWN_KINDS, strength, suspicion_reason
from app.core.words import count

REPORT_VERSION = 1
_PATH_KEYS = ("dir", "path", "file", "folder")


def _clean_settings(settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """Settings with path-like values reduced to their final component
    (a folder name can be a patient's name; the report must not carry it)."""
    out: dict[str, Any] = {}
    for k, v in (settings or {}).items():
        if isinstance(v, os.PathLike) or (isinstance(v, str) and any(p in k.lower() for p in _PATH_KEYS)):
            name = Path(v).name
            v = f"…/{name}" if name else ""
        out[str(k)] = v
    return out


def build_report(summary: RedactionSummary, model_info: Mapping[str, Any] | None = None,
                 evaluation: Mapping[str, Any] | None = None, policy: Policy | None = None,
                 settings: Mapping[str, Any] | None = None,
                 timings: Mapping[str, float] | None = None,
                 version: str | None = None) -> dict[str, Any]:
    """Assemble the audit report as a JSON-ready dict.

    Parameters
    ----------
    summary
        From ``redact_folder``.
    model_info
        The model or ensemble used (name, members, kind, trained at, ...).
    evaluation
        Its evaluation figures (e.g. strict/relaxed micro P/R/F1, per label).
    policy
        The policy applied (strategies, surrogate settings).
    settings
        Other run settings (workers, naming, locale, ...).
    timings
        Seconds per phase; ``summary.elapsed_s`` is added as ``redact_total``.
    version
        Tool version (defaults to ``app.__version__``).
    """
    if version is None:
        from app import __version__ as version
    per_label: dict[str, dict[str, Any]] = {}
    made_by: dict[str, int] = {}       # spans by the candidate, member, step or rule that made them
    kept_by: dict[str, int] = {}       # spans a step or rule left in clear, by its name
    per_note = []
    for n in summary.notes:
        for label, c in n.labels.items():
            row = per_label.setdefault(label, {"spans": 0, "notes": 0})
            if policy is not None:
                row["strategy"] = policy.strategy_for(label)
            row["spans"] += c
            row["notes"] += 1
        per_note.append({"note": n.note, "status": n.status, "reason": n.reason,
                         "chars_in": n.chars_in, "chars_out": n.chars_out,
                         "spans": sum(n.labels.values()), "labels": dict(sorted(n.labels.items())),
                         "strategies": dict(sorted(n.strategies.items())), "leaks": n.leaks,
                         "coincidences": n.coincidences, "dismissed": n.dismissed,
                         "redone": n.redone,
                         "renamed": n.renamed, "suspicions": list(n.suspicions),
                         "made_by": dict(sorted(n.made_by.items())),
                         "kept_by": dict(sorted(n.kept_by.items()))})
        for totals_of, counts in ((made_by, n.made_by), (kept_by, n.kept_by)):
            for origin, c in counts.items():
                totals_of[origin] = totals_of.get(origin, 0) + c
    statuses = ("done", "resumed", "bad", "failed", "leak")
    written = [n for n in summary.notes if n.status in ("done", "resumed")]
    totals = {
        "notes": len(summary.notes),
        **{f"notes_{s}": summary.count(s) for s in statuses},
        "spans": sum(sum(n.labels.values()) for n in written),
        "chars_in": sum(n.chars_in for n in written),
        "chars_out": sum(n.chars_out for n in written),
        "notes_with_leaks": sum(1 for n in summary.notes if n.leaks),
        "leaks": sum(n.leaks for n in summary.notes),
        "coincidences": sum(n.coincidences for n in summary.notes),
        "dismissed": sum(n.dismissed for n in summary.notes),
        "notes_renamed": sum(1 for n in summary.notes if n.renamed),
    }
    all_timings = dict(timings or {})
    all_timings.setdefault("redact_total", round(summary.elapsed_s, 3))
    return {
        "report_version": REPORT_VERSION,
        "tool": {"name": "DeID Studio", "version": version},
        "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "policy": policy.to_dict() if policy is not None else None,
        "settings": {"naming": summary.naming, "spans_format": summary.spans_format,
                     "workers": summary.workers, **_clean_settings(settings)},
        "model": dict(model_info) if model_info else None,
        "evaluation": dict(evaluation) if evaluation else None,
        "totals": totals,
        "per_label": dict(sorted(per_label.items())),
        "made_by": _most_first(made_by),
        "kept_by": _most_first(kept_by),
        "per_note": per_note,
        "timings": all_timings,
    }


def _most_first(counts: Mapping[str, int]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:70em;
color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}
.bad{color:#a40000;font-weight:600}.ok{color:#0a6d2a;font-weight:600}.muted{color:#666}
.big{font-size:1.15em;font-weight:600}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


#: Strategies in words, for people.
STRATEGY_WORDS = {
    "tag": "replaced by its label, as <**LABEL**>",
    "bracket": "replaced by its label, as [LABEL]",
    "remove": "removed",
    "mask": "masked character by character (***)",
    "surrogate": "replaced by a realistic stand-in (surrogate)",
}
STATUS_WORDS = {"done": "written", "resumed": "kept from an earlier run",
                "bad": "unreadable, skipped", "failed": "failed, skipped",
                "leak": "withheld (strict mode: suspected leak)"}
_METRIC_WORDS = {"precision": "Precision", "recall": "Recall", "f1": "F1", "tp": "Found",
                 "fp": "False alarms", "fn": "Missed"}


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def when(stamp: str) -> str:
    """An ISO time as a person reads it ("2026-11-30 17:28 UTC"); as it is
    when it is none."""
    try:
        t = _dt.datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return str(stamp)
    if t.tzinfo is not None:
        t = t.astimezone(_dt.timezone.utc)
        return t.strftime("%Y-%m-%d %H:%M UTC")
    return t.strftime("%Y-%m-%d %H:%M")


def _num(v: Any) -> str:
    return f"{v:.3f}" if isinstance(v, float) else _e(v)


def _figures(row: Mapping[str, Any]) -> str:
    """A model's figures as a two-row table (entities, and identifier words)."""
    def cells(d: Mapping[str, Any]) -> str:
        return "".join(f"<td class='n'>{_num(d.get(k, ''))}</td>" for k in _METRIC_WORDS)
    head = "".join(f"<th>{w}</th>" for w in _METRIC_WORDS.values())
    rows = f"<tr><th>Whole identifiers (strict)</th>{cells(row)}</tr>"
    if isinstance(row.get("token"), Mapping):
        rows += f"<tr><th>Identifier words</th>{cells(row['token'])}</tr>"
    return f"<table><tr><th></th>{head}</tr>{rows}</table>"


def _annotated_share(report: Mapping[str, Any]) -> str:
    """A sentence when people's annotations made much of what an export
    replaced: a review of those notes measures them, not the model."""
    from app.deid.folder import ANNOTATED
    made = report.get("made_by") or {}
    total = sum(made.values())
    people = made.get(ANNOTATED, 0)
    if not total or people < total / 4:
        return ""
    return (f" Of the {total:,} replacements in these notes {people:,} ({people / total:.0%}) "
            f"are people's annotations, not the model's: the bounds hold for notes annotated "
            f"as these were. For notes that only the model redacts, review an export of notes "
            f"no one annotated.")


def _audit_section(audit: Mapping[str, Any] | None, annotated: str = "") -> str:
    if not audit:
        return ("<p>No one has reviewed a sample of this export yet. To measure the risk "
                "that is left, in DeID Studio press <b>Review a sample (residual risk)…</b> "
                "on the export summary, or choose <b>File › Residual-risk review of an "
                "export…</b>: read the notes it draws, mark what is left, and sign.</p>"
                "<p class='muted'>From a terminal: <code>deid audit PROJECT FOLDER</code> "
                "(it draws the notes to read), fill the review file, then <code>deid audit "
                "PROJECT FOLDER --finish --reviewer NAME</code>.</p>")
    return (f"<p class='big'>{_e(audit['notes_sentence'])}</p>"
            f"<p class='big'>{_e(audit['identifiers_sentence'])}</p>"
            f"<p>{_e(audit['reviewer'])} read {_read(audit)} on "
            f"{_e(when(audit['reviewed_at']))} and found {_plural(audit['identifiers_left'], 'identifier')} "
            f"left in clear in {_plural(audit['notes_leaking'], 'note')}. The bounds are exact "
            f"(Clopper-Pearson, one-sided) and hold for notes like these, redacted by "
            f"{_by(audit)}.{_e(annotated)}</p>" + _disagreement(audit.get("scan_disagrees")))


def _disagreement(record: Mapping[str, Any] | None) -> str:
    """What the leak scan still suspects in notes the review found clean."""
    from app.deid.audit import disagreement_sentence
    said = disagreement_sentence(record)
    return f"<p class='bad'>{_e(said)}</p>" if said else ""


def _read(audit: Mapping[str, Any]) -> str:
    """What the reviewer read: every note of the export, or a sample of it."""
    n, of = audit["notes_reviewed"], audit["notes_in_export"]
    if n >= of:
        return f"every note of this export ({of})"
    return f"{_plural(n, 'note')} drawn at random from the {of} of this export"


def _by(audit: Mapping[str, Any]) -> str:
    """The model and policy the bounds hold for, named where the export's
    report names them."""
    model = audit.get("model")
    if isinstance(model, Mapping):                 # the export report's "model" record
        model = model.get("model")
    if not model:
        return ("the same model and policy (this folder holds no export report to name them: "
                "export with one to have them named here)")
    return f"the same model ({_e(model)}) and policy (the Settings below)"


def _coverage_section(rows: Any, report: Mapping[str, Any]) -> str:
    """The HIPAA Safe Harbor kinds the project's labels cover and leave in
    clear (``app.deid.coverage``), when the report carries them, with how
    many of each this export replaced and how many the leak scan suspects
    were left in clear: a label protects only what the model marks (a model
    taught by annotations that leave dates unmarked replaces few dates, and
    the report must not call them protected)."""
    if not rows:
        return ""
    replaced = {label: row.get("spans", 0) for label, row in (report.get("per_label") or {}).items()}
    # A suspicion's category is a label, or a rule's category in lower case ("date").
    suspected: dict[str, int] = {}
    suspect_notes: dict[str, set] = {}
    for n in report.get("per_note") or ():
        for sp in n.get("suspicions") or ():
            key = str(sp.get("category", "")).upper()
            suspected[key] = suspected.get(key, 0) + 1
            suspect_notes.setdefault(key, set()).add(n["note"])
    clear = [r for r in rows if r["status"] == "in clear"]
    said = {"protected": "label", "partly": "label for dates of birth only,",
            "in clear": "<span class='bad'>no label: left in clear</span>",
            "not text": "<span class='muted'>not part of note text</span>"}
    doubted: dict[str, tuple[int, int, int]] = {}      # label: replaced, suspected, notes
    # Kinds under the same labels share one row: the counts are the labels',
    # and a row each read as 1,041 URLs where CONTACT replaced 1,041 phone
    # numbers (a walkthrough).
    shared: dict[tuple, list[str]] = {}
    for r in rows:
        if r["status"] not in ("in clear", "not text"):
            shared.setdefault((r["status"], tuple(r["labels"])), []).append(r["what"])
    body = ""
    for r in rows:
        status = r["status"]
        if status in ("in clear", "not text"):
            body += f"<tr><td>{_e(r['what'])}</td><td>{said[status]}</td><td></td><td></td></tr>"
            continue
        kinds = shared.pop((status, tuple(r["labels"])), None)
        if kinds is None:
            continue                                    # said on the row of its first kind
        rep = sum(replaced.get(label, 0) for label in r["labels"])
        sus = sum(suspected.get(label.upper(), 0) for label in r["labels"])
        body += (f"<tr><td>{_e('; '.join(kinds))}</td><td>{_e(said[status])} "
                 f"{_e(', '.join(r['labels']))}</td><td class='n'>{rep:,}</td>"
                 f"<td class='n{' bad' if sus else ''}'>{sus:,}</td></tr>")
        for label in r["labels"]:
            if suspected.get(label.upper()):
                doubted[label] = (replaced.get(label, 0), suspected[label.upper()],
                                  len(suspect_notes[label.upper()]))
    if clear:
        lead = (f"<p class='bad'>{count(len(clear), 'kind')} of identifier of the HIPAA Safe "
                f"Harbor list have no label in this project, so nothing replaces them: "
                f"{_e('; '.join(r['what'] for r in clear))}.</p>")
    elif suspected:
        lead = "<p>Every kind of the HIPAA Safe Harbor list that notes can hold has a label.</p>"
    else:
        lead = ("<p class='ok'>Every kind of the HIPAA Safe Harbor list that notes can hold has "
                "a label, and the leak scan suspects none of them left in clear.</p>")
    if doubted:
        kinds = "; ".join(f"{label}: {sus:,} suspected in {count(notes, 'note')}, "
                          f"{rep:,} replaced" for label, (rep, sus, notes)
                          in sorted(doubted.items(), key=lambda kv: -kv[1][1]))
        lead += (f"<p class='bad'>A label protects only what the model marks, and the leak "
                 f"scan suspects some kinds the labels cover were left in clear: {_e(kinds)}. "
                 f"Read those suspicions (the leak list below; Preview opens each). Where your "
                 f"annotators leave such identifiers unmarked, the model learned to leave them "
                 f"too: mark them, train again and export again.</p>")
    return (f"<h3>What the labels cover</h3>{lead}<table><tr><th>Safe Harbor identifier</th>"
            f"<th>In this project</th><th>Replaced here</th><th>Suspected in clear</th></tr>"
            f"{body}</table>")


def _scan_by_reason(suspects) -> str:
    """The suspicions by why, the strongest first, and which to read first:
    a string the project knows as an identifier, found in clear, is nearly
    always one; a recall-biased model's hint often an ordinary word."""
    # A rule of the rules file has its own row: one rule that suspects
    # hundreds of ordinary words is one a reviewer can switch off.
    per: dict[tuple, int] = {}
    notes: dict[tuple, set] = {}
    for n in suspects:
        for s in n.get("suspicions") or ():
            key = (s["kind"], s.get("rule") or "")
            per[key] = per.get(key, 0) + 1
            notes.setdefault(key, set()).add(n["note"])
    if not per:
        return ""
    keys = sorted(per, key=lambda k: (strength({"kind": k[0]}), k[1]))
    rows = "".join(f"<tr><td>{_e(suspicion_reason({'kind': k[0], 'rule': k[1]}))}</td>"
                   f"<td class='n'>{per[k]:,}</td><td class='n'>{len(notes[k]):,}</td></tr>"
                   for k in keys)
    known = sum(per[k] for k in keys if k[0] in KNOWN_KINDS)
    known_notes = len(set().union(*(notes[k] for k in keys if k[0] in KNOWN_KINDS)))
    lead = (f"<p class='bad'>Read these first: {_plural(known, 'suspicion')} in "
            f"{_plural(known_notes, 'note')} {'is a string' if known == 1 else 'are strings'} "
            f"the project knows as an identifier (annotated, listed or replaced elsewhere), "
            f"found in clear; such a string is seldom anything else. They head the list "
            f"below.</p>" if known else
            "<p>None of the suspicions is a string the project knows as an identifier; each "
            "is a hint (a shape, a model's guess, a capitalised word), often an ordinary "
            "word.</p>")
    return (f"{lead}<table><tr><th>Why suspected (the strongest first)</th><th>Suspicions</th>"
            f"<th>Notes</th></tr>{rows}</table>")


def _kept_section(kept_by: Mapping[str, int]) -> str:
    """The spans a step or rule after the model removed and nothing else
    replaced, by the rule's name (counts only: the report holds no text)."""
    if not kept_by:
        return ""
    said = ", ".join(f"{_e(k)} {v}" for k, v in kept_by.items())
    rows = "".join(f"<tr><td>{_e(k)}</td><td class='n'>{v}</td></tr>"
                   for k, v in kept_by.items())
    return (f"<p>Left in clear by a rule: {said}. A step after the model judged "
            f"{_plural(sum(kept_by.values()), 'span')} no identifier and removed "
            f"{'it' if sum(kept_by.values()) == 1 else 'them'} (this report names no text: "
            f"Preview underlines each with dots, and its tooltip says \u201ckept in clear "
            f"by\u201d the rule). Where a rule keeps real identifiers, switch it off: "
            f"<code>deid rules PROJECT off RULE</code>, or the "
            f"Rules page.</p><table><tr><th>Left in clear by (step or rule)</th>"
            f"<th>Spans</th></tr>{rows}</table>")


def _rules_fact(rules: Mapping[str, Any]) -> str:
    """The rules after the models, as the settings say them."""
    off, on, site_off = (list(rules.get(k) or []) for k in ("shipped_off", "site_on", "site_off"))
    parts = [f"shipped rules switched off: {_e(', '.join(off))}" if off
             else "every shipped rule on"]
    if on:
        parts.append(f"the site's own rules: {_e(', '.join(on))}")
    if site_off:
        parts.append(f"the site's rules switched off: {_e(', '.join(site_off))}")
    return "rules after the models: " + ", ".join(parts)


def render_html(report: Mapping[str, Any]) -> str:
    """The report as one self-contained HTML page, in sentences and tables."""
    tool = report.get("tool") or {"name": "DeID Studio", "version": ""}
    audit = report.get("audit")
    head = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>De-identification report</title><style>{_CSS}</style></head><body>"
            f"<h1>De-identification report</h1>")
    if "totals" not in report:              # a review of an export without its report
        return (head + "<h2>Residual risk</h2>" + _audit_section(audit) + "</body></html>\n")
    t = report["totals"]
    model = report.get("model") or {}
    settings = report.get("settings") or {}
    model_name = model.get("model") or "an unnamed model"
    run = f" (training run {model['run']})" if model.get("run") is not None else ""
    intro = (f"<p>{_e(tool['name'])} {_e(tool['version'])} de-identified "
             f"{_plural(t['notes_done'] + t['notes_resumed'], 'note')} on "
             f"{_e(report['generated_at'][:10])} with <b>{_e(model_name)}</b>{run}, replacing "
             f"{_plural(t['spans'], 'identifier')}. ")
    if t["notes_resumed"]:
        intro += (f"{_plural(t['notes_resumed'], 'note was', 'notes were')} kept as an "
                  f"earlier export with the same settings wrote them. ")
    if t["notes_bad"] + t["notes_failed"]:
        intro += f"{_plural(t['notes_bad'] + t['notes_failed'], 'note')} could not be read. "
    if t["notes_leak"]:
        intro += (f"{_plural(t['notes_leak'], 'note was', 'notes were')} withheld because the "
                  f"leak scan suspected an identifier (strict mode). ")
    intro += "</p>"

    label_rows = "".join(
        f"<tr><td>{_e(k)}</td><td>{_e(STRATEGY_WORDS.get(v.get('strategy', ''), v.get('strategy', '')))}"
        f"</td><td class='n'>{v['spans']}</td><td class='n'>{v['notes']}</td></tr>"
        for k, v in report["per_label"].items())
    removed = ("<p>No identifier was found.</p>" if not label_rows else
               "<table><tr><th>Kind of identifier</th><th>What was done</th>"
               f"<th>Replaced</th><th>In notes</th></tr>{label_rows}</table>")
    words = report.get("made_by_words") or {}
    made_rows = "".join(f"<tr><td>{_e(words.get(k, k))}</td><td class='n'>{v}</td>"
                        f"<td class='muted'>{_e(k)}</td></tr>"
                        for k, v in (report.get("made_by") or {}).items())
    if made_rows:
        # Who or what made the replacements: a person's annotation, the model, a member,
        # a step or a rule (in words; their names, never text, for the experts).
        removed += ("<table><tr><th>Found by (a person, model, step or rule)</th>"
                    f"<th>Spans</th><th>Name</th></tr>{made_rows}</table>")
    removed += _kept_section(report.get("kept_by") or {})

    suspects = [n for n in report["per_note"] if n.get("leaks")]
    # The notes with the strongest suspicion first (a known identifier in
    # clear before a model's hint), each one's strongest first.
    suspects.sort(key=lambda n: (min((strength(s)[0] for s in n.get("suspicions") or ()),
                                     default=len(BY_WEIGHT)), n["note"]))
    if suspects:
        rows = []
        for n in suspects:
            what = "; ".join(
                f"{_e(suspicion_reason(s))} ({_e(s['category'])}) at characters "
                f"{s['start']}–{s['end']}" for s in sorted(n.get("suspicions", []), key=strength)) \
                or _plural(n["leaks"], "suspicion")
            done = ("withheld, not written" if n["status"] == "leak"
                    else "written: open it in Preview to check and fix")
            rows.append(f"<tr><td>{_e(n['note'])}</td><td>{what}</td><td>{done}</td></tr>")
        scan = (f"<p class='bad'>The leak scan suspects {_plural(t['leaks'], 'identifier')} left "
                f"in clear in {_plural(t['notes_with_leaks'], 'note')}.</p><p>It re-read every "
                f"written note for the identifiers the project knows (this patient's, other "
                f"patients', the hospital lists), for well-formed identifiers the rules "
                f"recognise, and with the model set to err towards suspecting. A suspicion is "
                f"not proof: a person should look at each"
                + ("; most are ordinary words, and the residual risk above is what people "
                   "found in the notes they read" if audit else "") + ".</p>"
                + _scan_by_reason(suspects) +
                "<table><tr><th>Note</th><th>What and where (characters in the written note)"
                f"</th><th>What was done</th></tr>{''.join(rows)}</table>")
    else:
        scan = ("<p class='ok'>The leak scan suspects nothing: no known identifier, no pattern "
                "the rules recognise and nothing the model reads as an identifier was found in "
                "clear in the written notes.</p>")
    if t.get("dismissed"):
        scan += (f"<p>{_plural(t['dismissed'], 'suspicion')} that people judged not a leak "
                 f"{'is' if t['dismissed'] == 1 else 'are'} not listed (each recorded in the "
                 f"project with who judged it and when).</p>")
    if t.get("coincidences"):
        scan += (f"<p>{_plural(t['coincidences'], 'time')} a stand-in holds a word or phrase "
                 f"that is also a known identifier of the project: a generic word a made-up "
                 f"address keeps (a state, \u201cApt\u201d), a first name another patient "
                 f"also has, a shifted date landing on a real one. Each lies wholly inside what "
                 f"the export wrote in place of an identifier: they are not leaks, and not "
                 f"listed.</p>")

    evaluation = report.get("evaluation") or {}
    model_html = f"<p>The spans were found by <b>{_e(model_name)}</b>{run}.</p>"
    if model.get("reason"):
        model_html += f"<p>Why this model: {_e(model['reason'])}</p>"
    if model.get("finishing"):
        model_html += f"<p>After the model: {_e(model['finishing'])}</p>"
    for key, title in (("test", "On the project's test notes"),
                       ("dev_strict", "On the development notes (used to choose the model)")):
        if isinstance(evaluation.get(key), Mapping):
            model_html += f"<p>{title}:</p>{_figures(evaluation[key])}"
    if not evaluation:
        model_html += "<p>No evaluation figures were recorded for these spans.</p>"

    facts = []
    if settings.get("naming"):
        facts.append("file names kept (a name holding an identifier the project knows took a "
                     "keyed-hash name; a record number or patient key it does not know stays: "
                     "export with keyed-hash names where yours hold one)"
                     if settings["naming"] == "same" else "file names replaced by keyed hashes")
    if "strict" in settings:
        facts.append("strict mode (suspected notes are withheld)" if settings["strict"]
                     else "suspected notes are written and listed here")
    if settings.get("date_order"):
        facts.append(f"numeric dates read as {_e(settings['date_order'])}")
    rules = report.get("rules")
    if isinstance(rules, Mapping):
        facts.append(_rules_fact(rules))
    policy = report.get("policy") or {}
    if policy.get("default"):
        facts.append(f"labels without their own strategy: "
                     f"{_e(STRATEGY_WORDS.get(policy['default'], policy['default']))}")

    note_rows = "".join(
        f"<tr><td>{_e(n['note'])}</td><td class='{'bad' if n['status'] in ('bad', 'failed', 'leak') else ''}'>"
        f"{_e(STATUS_WORDS.get(n['status'], n['status']))}"
        f"{(' — ' + _e(n['reason'])) if n.get('reason') else ''}"
        f"{(' (redone: ' + _e(n['redone']) + ')') if n.get('redone') else ''}</td>"
        f"<td class='n'>{n['spans']}</td><td class='n {'bad' if n['leaks'] else ''}'>{n['leaks']}</td></tr>"
        for n in report["per_note"])
    seconds = (report.get("timings") or {}).get("redact_total")
    took = (f" This run took {seconds:.1f} seconds." if isinstance(seconds, (int, float))
            else "")
    return f"""{head}
<p class="muted">Generated {_e(when(report['generated_at']))}.{took}</p>
{intro}
<h2>Residual risk</h2>{_audit_section(audit, _annotated_share(report))}
<h2>What was removed</h2>{removed}{_coverage_section(report.get("coverage"), report)}
<h2>What the leak scan suspected</h2>{scan}
<h2>The model</h2>{model_html}
<h2>Settings</h2><p>{'; '.join(facts) or 'Defaults.'}.</p>
<h2>Every note</h2>
<table><tr><th>Note (as written)</th><th>What happened</th><th>Identifiers replaced</th>
<th>Suspicions</th></tr>{note_rows}</table>
</body></html>
"""


def write_report(report: Mapping[str, Any], path_json: str | os.PathLike | None = None,
                 path_html: str | os.PathLike | None = None) -> None:
    """Write the report as JSON and/or HTML (UTF-8)."""
    if path_json is not None:
        Path(path_json).write_text(json.dumps(report, indent=2, sort_keys=True, default=str),
                                   encoding="utf-8")
    if path_html is not None:
        Path(path_html).write_text(render_html(report), encoding="utf-8")
