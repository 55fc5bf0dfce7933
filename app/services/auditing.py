"""Residual-risk audit of an export: sample, review, bound.

1. ``start_audit`` draws a random sample of the export's notes (enough for
   the target rate, ``app.deid.audit.sample_size``) and writes a review file
   beside them (``audit-review.tsv``: one row per sampled note, the number of
   identifiers it replaced, an empty column for the identifiers a person
   finds left in clear);
2. the reviewer reads each sampled note and fills the column (0 when none);
3. ``finish_audit`` reads the file back, states the observed leak rate per
   note and per identifier with exact one-sided 95 % upper bounds, who
   reviewed and when, the model and policy of the export, adds it to the
   export's audit report and keeps it in the project (settings, no schema
   change).

The review file and the result hold note names (output names) and counts,
never identifier text.
"""
from __future__ import annotations

import datetime as _dt
import json
import secrets
from collections import Counter
from pathlib import Path

from app.errors import UserError
from app.core.words import count
from app.formats.written import UNFINISHED

from app.services.export_reports import export_report_path, folder_key

REVIEW_FILE = "audit-review.tsv"
AUDITS_KEY = "audit_reviews"
#: The samples drawn and not yet finished, by export folder (its resolved
#: path): what ``finish_audit`` checks a review file against.
SAMPLES_KEY = "audit_samples"
_MANIFEST = ".deid-manifest.jsonl"
_HEADER = ("# Residual-risk review. Open each note below in this folder, read it whole, and "
           "write in 'identifiers_left' how many identifiers you find in clear (0 if none).\n"
           "# Stand-ins read like real identifiers: where each replacement is, in characters "
           "of the written note, is in <note>.spans.jsonl (or <note>.ann) beside it; what "
           "identifies outside those places is in clear. DeID Studio's review window marks them "
           "(File > Residual-risk review of an export...).\n"
           "# Do not write the identifiers themselves. Then run: deid audit PROJECT FOLDER "
           "--finish --reviewer NAME\n")


def _export_notes(folder: Path) -> dict[str, int]:
    """Written notes of an export: output name -> identifiers replaced."""
    manifest = folder / _MANIFEST
    if not manifest.is_file():
        raise UserError(f"{folder} holds no export (no {_MANIFEST}); export or redact into it first")
    if (folder / UNFINISHED).exists():
        raise UserError(f"{folder} holds an export that did not finish (its run was stopped or "
                        f"failed): export into it again with the same settings to finish it "
                        f"(the notes done are kept), then review it")
    notes: dict[str, int] = {}
    for line in manifest.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        out = entry.get("output") if isinstance(entry, dict) else None
        if out and (folder / out).is_file():
            notes[out] = sum((entry.get("labels") or {}).values())
    if not notes:
        raise UserError(f"{folder} holds no finished notes to review")
    return notes


def start_audit(project, folder, *, notes: int | None = None, max_rate: float = 0.05,
                confidence: float = 0.95, seed: int | None = None, force: bool = False) -> dict:
    """Draw the sample, keep it in the project and write the review file;
    returns the open audit.

    A review file a reviewer has begun to fill (a count or a comment) is
    not replaced unless ``force``: drawing again would lose that work.
    """
    from app.deid.audit import draw_sample, sample_size

    folder = Path(folder)
    written = _export_notes(folder)
    if not force and _review_begun(folder / REVIEW_FILE):
        raise UserError(f"{folder / REVIEW_FILE} holds a reviewer's counts or comments: finish "
                        f"that audit (--finish), or draw a new sample over it with --force")
    try:
        n = notes if notes is not None else sample_size(max_rate, confidence)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if n < 1:
        raise UserError("the sample must hold at least one note")
    seed = secrets.randbelow(2**31) if seed is None else seed
    sample = draw_sample(list(written), n, seed)
    rows = "".join(f"{name}\t{written[name]}\t\t\n" for name in sample)
    (folder / REVIEW_FILE).write_text(
        _HEADER + "note\tidentifiers_replaced\tidentifiers_left\tcomment\n" + rows,
        encoding="utf-8")
    audit = {"export": folder.name, "started_at": _now(), "seed": seed, "sample": sample,
             "notes_in_export": len(written), "target_rate": max_rate,
             "confidence": confidence, "status": "open"}
    samples = dict(project.get_setting(SAMPLES_KEY) or {})
    samples[folder_key(folder)] = {"seed": seed, "sample": sample}
    project.set_setting(SAMPLES_KEY, samples)
    project.log("audit_started", {"sample": len(sample), "notes": len(written)})
    return audit


def _review_begun(path: Path) -> bool:
    """Whether the review file at ``path`` holds a count or a comment."""
    if not path.is_file():
        return False
    try:
        lines = _review_lines(path)
    except UserError:
        return True                  # not ours to read: not ours to replace either
    return any(any(c.strip() for c in line.split("\t")[2:]) for _, line in lines)


def _review_lines(path: Path) -> list[tuple[int, str]]:
    """``(line number, line)`` of the rows of a review file: not the header
    nor the comments. A BOM (as a spreadsheet saves the file) is skipped."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{path.name} is not a review file (not UTF-8 text)") from None
    return [(i, line) for i, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.startswith("#") and not line.startswith("note\t")]


def read_review(path: Path) -> list[tuple[str, int, int]]:
    """``(note, replaced, left)`` rows of a filled review file."""
    if not path.is_file():
        raise UserError(f"no review file {path}: start the audit first")
    rows = []
    for i, line in _review_lines(path):
        cells = line.split("\t")
        if len(cells) < 3:
            raise UserError(f"{path.name} line {i}: expected note, identifiers_replaced, "
                            f"identifiers_left")
        try:
            left = _count(cells[2])
            replaced = _count(cells[1] or "0")
        except ValueError:
            raise UserError(f"{path.name} line {i}: write how many identifiers are left in "
                            f"clear in {cells[0]} (a number, 0 if none)") from None
        if left < 0:
            raise UserError(f"{path.name} line {i}: a count cannot be negative")
        rows.append((cells[0], replaced, left))
    if not rows:
        raise UserError(f"{path.name} lists no notes")
    return rows


def _count(cell: str) -> int:
    """A count written in a review cell: digits only, and few of them (a
    400-digit number is no count of identifiers, and ``int`` of a long one
    is slow or refused)."""
    cell = cell.strip()
    if not cell.isascii() or not cell.isdigit() or len(cell) > 9:
        raise ValueError(cell)
    return int(cell)


def _count_or(cell: str, default: int | None) -> int | None:
    """The count in ``cell``, or ``default`` where there is none (yet)."""
    try:
        return _count(cell)
    except ValueError:
        return default


def export_document_ids(project, infos=None, namings=("same", "pseudonymous")) -> dict[str, int]:
    """Output name -> project document id, for the names an export of the
    project's documents gives them (``namings``: those that may have been
    used), so a reviewer sees a written note beside its original."""
    from app.deid.folder import output_name
    from app.services.redaction import project_note_sources
    from app.services.settings import project_secret
    infos = project.document_infos() if infos is None else infos
    secret = project_secret(project)
    sources = project_note_sources(project, infos)
    return {output_name(src.rel, naming, secret): info.id
            for naming in namings for src, info in zip(sources, infos)}


def replacements_in(folder, note: str) -> list[tuple[int, int]]:
    """Where the export replaced identifiers in its written ``note``: the
    ``[start, end)`` code-point ranges of its spans file (``<stem>.spans.jsonl``
    beside it), so a reviewer sees what was replaced, surrogates too, and
    reads the rest; ``[]`` without a readable spans file."""
    path = Path(folder) / f"{Path(note).stem}.spans.jsonl"
    try:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip()]
        return [(int(r["start"]), int(r["end"])) for r in rows]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def save_marks(project, folder, marks: dict[str, list[tuple[int, int]]]) -> None:
    """Keep where the reviewer marked identifiers left in each sampled note
    (positions in the written notes, never text) with the open sample, so
    that a review closed and opened again shows them and counts from them
    (only the counts were kept: a note's "1 left" became 0 when read again)."""
    samples = dict(project.get_setting(SAMPLES_KEY) or {})
    key = folder_key(Path(folder))
    if key not in samples:
        return
    samples[key] = {**samples[key],
                    "marks": {note: [list(m) for m in ms] for note, ms in marks.items() if ms}}
    project.set_setting(SAMPLES_KEY, samples)


def saved_marks(project, folder) -> dict[str, list[tuple[int, int]]]:
    """The marks `save_marks` kept for the open sample of ``folder``."""
    entry = (project.get_setting(SAMPLES_KEY) or {}).get(folder_key(Path(folder))) or {}
    try:
        return {note: [(int(a), int(b)) for a, b in ms]
                for note, ms in (entry.get("marks") or {}).items()}
    except (TypeError, ValueError):
        return {}


def signed_audit(project, folder) -> dict | None:
    """The audit signed into the report of the export in ``folder`` (its
    reviewer, date and figures), None when none is."""
    folder = Path(folder)
    for path in (export_report_path(project, folder), folder / "audit-report.json"):
        try:
            audit = json.loads(path.read_text(encoding="utf-8")).get("audit")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(audit, dict) and audit.get("reviewer"):
            return audit
    return None


def suspicions_in(project, folder, note: str) -> list[tuple[int, int, str]]:
    """Where the export's leak scan suspects an identifier left in its written
    ``note``: ``(start, end, category)`` code-point ranges of the output, from
    the export's report (`export_report_path`), for the reviewer to judge
    each; ``[]`` without a readable report or a suspicion."""
    try:
        report = json.loads(export_report_path(project, Path(folder)).read_text(encoding="utf-8"))
        entry = next((n for n in report.get("per_note") or () if n.get("note") == note), None)
        return [(int(x["start"]), int(x["end"]), str(x.get("category", "")))
                for x in (entry or {}).get("suspicions") or ()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


def sampled_notes(folder) -> list[tuple[str, int, int | None]]:
    """The open review of ``folder``: ``(note, replaced, left)`` per sampled
    note, ``left`` None where the reviewer has not written a count yet."""
    path = Path(folder) / REVIEW_FILE
    if not path.is_file():
        raise UserError(f"no review file in {folder}: start the audit first")
    rows = []
    for _, line in _review_lines(path):
        cells = (line.split("\t") + ["", "", ""])[:3]
        rows.append((cells[0], _count_or(cells[1], 0), _count_or(cells[2], None)))
    return rows


def save_review(folder, counts: dict[str, int], *, partial: bool = False) -> Path:
    """Write the reviewer's counts (note -> identifiers left in clear) into
    the review file of ``folder``, for ``finish_audit`` to read: the GUI
    review and a hand-filled file end in the same place. ``partial``: the
    notes reviewed so far, the others' counts left empty (the review window
    saves as it goes: closing it had lost every count)."""
    path = Path(folder) / REVIEW_FILE
    rows = sampled_notes(folder)
    missing = [name for name, _, _ in rows if name not in counts]
    if missing and not partial:
        raise UserError(f"{count(len(missing), 'sampled note')} {'is' if len(missing) == 1 else 'are'} not reviewed yet "
                        f"(first: {missing[0]})")
    if any(n < 0 for n in counts.values()):
        raise UserError("a count cannot be negative")
    body = "".join(f"{name}\t{replaced}\t{counts.get(name, '')}\t\n"
                   for name, replaced, _ in rows)
    path.write_text(_HEADER + "note\tidentifiers_replaced\tidentifiers_left\tcomment\n" + body,
                    encoding="utf-8")
    return path


def finish_audit(project, folder, *, reviewer: str, review_file=None,
                 confidence: float = 0.95) -> dict:
    """Read the filled review, bound the residual risk, store and report it."""
    from app.deid.audit import risk_sentence, upper_bound
    from app.deid.report import write_report

    if not reviewer or not reviewer.strip():
        raise UserError("say who reviewed the notes (--reviewer NAME)")
    folder = Path(folder)
    rows = read_review(Path(review_file) if review_file else folder / REVIEW_FILE)
    written = _export_notes(folder)
    rows = _checked_against_sample(project, folder, rows, written)
    n = len(rows)
    leaking = sum(1 for _, _, left in rows if left)
    left = sum(r[2] for r in rows)
    checked = sum(r[1] for r in rows) + left
    report_json = export_report_path(project, folder)
    export_report = _export_report(report_json)
    result = {
        "reviewer": reviewer.strip(), "reviewed_at": _now(), "export": folder.name,
        "notes_in_export": len(written), "notes_reviewed": n, "notes_leaking": leaking,
        "identifiers_checked": checked, "identifiers_left": left,
        "confidence": confidence,
        "note_rate_upper": upper_bound(leaking, n, confidence),
        "identifier_rate_upper": upper_bound(left, checked, confidence) if checked else None,
        "notes_sentence": risk_sentence(leaking, n, "notes", confidence),
        "identifiers_sentence": (risk_sentence(left, checked, "identifiers", confidence)
                                 if checked else "No identifier in the sample."),
        "model": export_report.get("model"), "policy": export_report.get("policy"),
        "export_generated_at": export_report.get("generated_at"),
        "scan_disagrees": _scan_disagrees(rows, export_report),
    }
    audits = list(project.get_setting(AUDITS_KEY) or [])
    audits.append(result)
    project.set_setting(AUDITS_KEY, audits)
    samples = dict(project.get_setting(SAMPLES_KEY) or {})
    samples.pop(folder_key(folder), None)
    project.set_setting(SAMPLES_KEY, samples)
    project.log("audit_finished", {"notes_reviewed": n, "notes_leaking": leaking,
                                   "identifiers_left": left}, actor=reviewer.strip())
    if export_report:
        export_report["audit"] = result
        write_report(export_report, report_json, report_json.with_suffix(".html"))
    else:
        write_report({"audit": result}, folder / "audit-report.json",
                     folder / "audit-report.html")
    return result


def _scan_disagrees(rows: list[tuple[str, int, int]], export_report: dict) -> dict | None:
    """The notes read and found clean where the export's leak scan still
    suspects something (``{"notes", "suspicions"}``; None when none is): a
    signed "0 of 5 notes leak" beside 8 open suspicions in those notes
    (a walkthrough) must say so."""
    open_ = {n.get("note"): int(n.get("leaks") or 0) for n in export_report.get("per_note") or ()
             if isinstance(n, dict)}
    clean = [open_.get(note, 0) for note, _, left in rows if not left]
    doubted = [n for n in clean if n]
    return {"notes": len(doubted), "suspicions": sum(doubted)} if doubted else None


def _export_report(path: Path) -> dict:
    """The export's audit report (``{}`` when there is none), refused in one
    line when damaged: the audit is added to it, and must not replace it."""
    if not path.is_file():
        return {}
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        report = None
    if not isinstance(report, dict):
        raise UserError(f"{path.name} is damaged (not a DeID Studio report); restore it or "
                        f"export again")
    return report


def _checked_against_sample(project, folder: Path, rows: list[tuple[str, int, int]],
                            written: dict[str, int]) -> list[tuple[str, int, int]]:
    """``rows`` of a review checked against the sample the project keeps
    for ``folder``: exactly the notes drawn, once each, each count within
    the words of its note. ``replaced`` comes from the export's manifest,
    not from the file a person can edit. The bound signed from these rows
    cannot be talked down by a duplicated, dropped, added or edited row."""
    stored = (project.get_setting(SAMPLES_KEY) or {}).get(folder_key(folder))
    if not stored:
        raise UserError(f"no sample drawn for {folder} in this project: start the audit first "
                        f"(deid audit PROJECT FOLDER)")
    sample = list(stored["sample"])
    names = Counter(name for name, _, _ in rows)
    twice = sorted(name for name, k in names.items() if k > 1)
    if twice:
        raise UserError(f"the review lists {count(len(twice), 'note')} more than once "
                        f"(first: {twice[0]})")
    drawn = set(sample)
    extra = [name for name in names if name not in drawn]
    if extra:
        raise UserError(f"the review names {count(len(extra), 'note')} outside the sample drawn "
                        f"(first: {extra[0]})")
    missing = [name for name in sample if name not in names]
    if missing:
        raise UserError(f"the review leaves out {count(len(missing), 'sampled note')} "
                        f"(first: {missing[0]})")
    gone = [name for name in sample if name not in written]
    if gone:
        raise UserError(f"{count(len(gone), 'sampled note')} {'is' if len(gone) == 1 else 'are'} no longer in the export "
                        f"(first: {gone[0]})")
    checked = []
    for name, _, left in rows:
        words = len((folder / name).read_text(encoding="utf-8", errors="replace").split())
        if left > words:
            raise UserError(f"the review counts {left} identifiers left in {name}, which "
                            f"holds {words} words")
        checked.append((name, written[name], left))
    return checked


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
