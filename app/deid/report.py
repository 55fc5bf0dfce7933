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
                         "coincidences": n.coincidences, "redone": n.redone,
                         "suspicions": list(n.suspicions)})
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
        "per_note": per_note,
        "timings": all_timings,
    }


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:70em;
color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}
.bad{color:#a40000;font-weight:600}.ok{color:#0a6d2a;font-weight:600}.muted{color:#666}
pre{background:#f6f6f6;padding:.6em;overflow:auto;font-size:.85em}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _kv_table(data: Mapping[str, Any] | None) -> str:
    if not data:
        return '<p class="muted">Not given.</p>'
    rows = []
    for k, v in data.items():
        cell = (f"<pre>{_e(json.dumps(v, indent=2, sort_keys=True, default=str))}</pre>"
                if isinstance(v, (dict, list)) else _e(v))
        rows.append(f"<tr><th>{_e(k)}</th><td>{cell}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def render_html(report: Mapping[str, Any]) -> str:
    """The report as one self-contained HTML page."""
    t = report["totals"]
    leak_cls = "bad" if t["leaks"] else "ok"
    label_rows = "".join(
        f"<tr><td>{_e(k)}</td><td class='n'>{v['spans']}</td><td class='n'>{v['notes']}</td></tr>"
        for k, v in report["per_label"].items())
    note_rows = "".join(
        f"<tr><td>{_e(n['note'])}</td><td class='{'bad' if n['status'] in ('bad', 'failed', 'leak') else ''}'>"
        f"{_e(n['status'])}</td><td>{_e(n['reason'])}</td><td class='n'>{n['chars_in']}</td>"
        f"<td class='n'>{n['spans']}</td><td>{_e(', '.join(f'{k}: {c}' for k, c in n['labels'].items()))}</td>"
        f"<td class='n {'bad' if n['leaks'] else ''}'>{n['leaks']}</td></tr>"
        for n in report["per_note"])
    tool = report["tool"]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>De-identification report</title><style>{_CSS}</style></head><body>
<h1>De-identification report</h1>
<p class="muted">{_e(tool['name'])} {_e(tool['version'])} · generated {_e(report['generated_at'])}</p>
<h2>Summary</h2>
<table>
<tr><th>Notes</th><td class="n">{t['notes']}</td></tr>
<tr><th>Redacted now / resumed</th><td class="n">{t['notes_done']} / {t['notes_resumed']}</td></tr>
<tr><th>Unreadable / failed / withheld (leak)</th><td class="n">{t['notes_bad']} / {t['notes_failed']} / {t['notes_leak']}</td></tr>
<tr><th>Replaced spans</th><td class="n">{t['spans']}</td></tr>
<tr><th>Characters in / out</th><td class="n">{t['chars_in']} / {t['chars_out']}</td></tr>
<tr><th>Suspected leaks (notes)</th><td class="n {leak_cls}">{t['leaks']} ({t['notes_with_leaks']})</td></tr>
<tr><th>Surrogates equal to a real identifier</th><td class="n">{t['coincidences']}</td></tr>
</table>
<h2>Per label</h2>
<table><tr><th>Label</th><th>Spans</th><th>Notes</th></tr>{label_rows}</table>
<h2>Model</h2>{_kv_table(report.get('model'))}
<h2>Evaluation</h2>{_kv_table(report.get('evaluation'))}
<h2>Policy</h2>{_kv_table(report.get('policy'))}
<h2>Settings</h2>{_kv_table(report.get('settings'))}
<h2>Timings (s)</h2>{_kv_table(report.get('timings'))}
<h2>Per note</h2>
<table><tr><th>Note (output name)</th><th>Status</th><th>Reason</th><th>Chars</th><th>Spans</th>
<th>Labels</th><th>Leaks</th></tr>{note_rows}</table>
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
