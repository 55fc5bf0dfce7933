"""Redact a folder of notes: predict, replace, re-scan, write, resumably.

Work split: worker processes only *predict* spans (the expensive part, the
model is built once per worker by a picklable ``predictor_factory``); the
parent redacts the notes one by one **in sorted path order** with a single
``Redactor`` and a single surrogate memory. So surrogate consistency needs
no shared state between workers, and collision re-draws happen in the same
order on every run, whatever the number of workers.

Output layout in ``out_dir``:

* each note, UTF-8, same relative path (``naming="same"``) or
  ``note-<hmac of the path>.txt`` (``"pseudonymous"``: flat, never the
  original name);
* beside it the replacement offsets *into the output*: ``<stem>.spans.jsonl``
  (one ``{"start", "end", "label", "strategy"}`` per line) or brat
  ``<stem>.ann`` whose span text is the replacement, never the original;
* ``.deid-manifest.jsonl``: one line per finished note (keyed hash of the
  input path, sha256 of its bytes, output names, label counts). A re-run
  skips notes whose entry matches (same bytes, same settings fingerprint,
  output present), so a killed or cancelled export resumes.

Every file is written to a ``.deid-tmp-*`` file and ``os.replace``d into
place; leftovers from a crash are removed at the next start.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
import uuid
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Iterable

from app.core.progress import CancelToken, Progress, ProgressFn, no_progress
from app.core.spans import Span
from app.deid.keyed import keyed_hex
from app.deid.memory import InMemorySurrogateMemory, JsonFileSurrogateMemory, as_memory
from app.deid.policy import Policy
from app.deid.redact import MappedSpan, RedactionResult, Redactor
from app.deid.rescan import LeakError, RulesFn, rescan
from app.deid.textin import UnreadableNote, decode_note

MANIFEST = ".deid-manifest.jsonl"
TEMP_PREFIX = ".deid-tmp-"
NAMINGS = ("same", "pseudonymous")
SPANS_FORMATS = ("jsonl", "brat")


@dataclass
class NoteOutcome:
    """What happened to one note. ``note`` is its OUTPUT relative path."""

    note: str
    status: str                      # "done", "resumed", "bad", "leak", "failed"
    reason: str = ""
    chars_in: int = 0
    chars_out: int = 0
    labels: dict[str, int] = field(default_factory=dict)
    strategies: dict[str, int] = field(default_factory=dict)
    leaks: int = 0
    leak_categories: dict[str, int] = field(default_factory=dict)
    # Known identifier strings that a surrogate happened to reproduce (a
    # shifted date equal to another real date): reported, not a leak.
    coincidences: int = 0


@dataclass
class RedactionSummary:
    """Result of ``redact_folder`` (no identifier text anywhere)."""

    notes: list[NoteOutcome]
    naming: str
    spans_format: str
    workers: int
    elapsed_s: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for n in self.notes if n.status == status)

    def label_totals(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for n in self.notes:
            for label, c in n.labels.items():
                out[label] = out.get(label, 0) + c
        return dict(sorted(out.items()))

    def to_dict(self) -> dict[str, Any]:
        return {"naming": self.naming, "spans_format": self.spans_format,
                "workers": self.workers, "elapsed_s": round(self.elapsed_s, 3),
                "notes": [asdict(n) for n in self.notes]}


# ----------------------------------------------------------------- workers
_WORKER_PREDICTOR: Any = None


def _init_worker(factory: Callable[[], Any]) -> None:
    global _WORKER_PREDICTOR
    _WORKER_PREDICTOR = factory()


def _predict_with(predictor: Any, text: str) -> list[tuple[int, int, str]]:
    fn = getattr(predictor, "predict_spans", None) or predictor
    return [(s.start, s.end, s.label) for s in fn(text)]


def _worker_predict(text: str) -> list[tuple[int, int, str]]:
    return _predict_with(_WORKER_PREDICTOR, text)


# ------------------------------------------------------------------- files
def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f"{TEMP_PREFIX}{uuid.uuid4().hex}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _remove_temp_files(out_dir: Path) -> None:
    for p in out_dir.rglob(f"{TEMP_PREFIX}*"):
        if p.is_file():
            p.unlink(missing_ok=True)


def _spans_payload(result: RedactionResult, fmt: str) -> tuple[str, bytes]:
    """(file suffix, content) of the spans file: offsets into the OUTPUT."""
    if fmt == "jsonl":
        lines = [json.dumps({"start": m.out_start, "end": m.out_end, "label": m.label,
                             "strategy": m.strategy}) for m in result.span_map]
        return ".spans.jsonl", ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8")
    lines = []
    n = 0
    for m in result.span_map:
        if m.out_end == m.out_start:
            continue  # brat cannot hold an empty span ("remove" strategy)
        n += 1
        frags, shown = _brat_fragments(result.text, m)
        lines.append(f"T{n}\t{m.label} {frags}\t{shown}")
    return ".ann", ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8")


def _brat_fragments(text: str, m: MappedSpan) -> tuple[str, str]:
    """brat offsets split at line breaks (discontinuous span) and its text."""
    frags = []
    pos = m.out_start
    for piece in re.split(r"(\r\n|\n|\r)", text[m.out_start:m.out_end]):
        if piece and piece not in ("\n", "\r\n", "\r"):
            frags.append((pos, pos + len(piece)))
        pos += len(piece)
    shown = " ".join(text[s:e] for s, e in frags)
    return ";".join(f"{s} {e}" for s, e in frags), shown


# ---------------------------------------------------------------- manifest
def _read_manifest(path: Path) -> dict[str, dict]:
    entries: dict[str, dict] = {}
    if not path.is_file():
        return entries
    with open(path, "rb+") as fh:
        if fh.seek(0, os.SEEK_END):
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                fh.write(b"\n")  # end a line cut short by a crash before appending more
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a crash
        if isinstance(entry, dict) and "key" in entry:
            entries[entry["key"]] = entry
    return entries


def _append_manifest(path: Path, entry: dict) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


# ---------------------------------------------------------------- helpers
def _open_memory(spec: Any, secret: str | bytes):
    if spec is None:
        return InMemorySurrogateMemory()
    if isinstance(spec, (str, os.PathLike)):
        return JsonFileSurrogateMemory(spec, secret)
    if callable(spec) and not hasattr(spec, "get") and not hasattr(spec, "surrogate_get"):
        return as_memory(spec())
    return as_memory(spec)


def _patient_key(rel: str, regex: re.Pattern | None, note_key: str) -> str:
    if regex is not None:
        m = regex.search(rel)
        if m:
            if "patient" in regex.groupindex:
                return "patient:" + m.group("patient")
            return "patient:" + (m.group(1) if regex.groups else m.group(0))
    return "note:" + note_key[:16]


def _output_name(rel: str, naming: str, secret: str | bytes) -> str:
    if naming == "same":
        return rel
    return f"note-{keyed_hex(secret, 'output-name', rel, length=16)}.txt"


def _stem(name: str) -> str:
    return name[:-4] if name.lower().endswith(".txt") else name


@dataclass
class _Pending:
    rel: str
    key: str
    out_name: str
    patient: str
    sha256: str
    text: str


def redact_folder(in_dir: str | os.PathLike, out_dir: str | os.PathLike,
                  predictor_factory: Callable[[], Any], policy: Policy, *,
                  secret: str | bytes,
                  memory_path_or_factory: Any = None,
                  workers: int = 1,
                  naming: str = "same",
                  patient_regex: str | None = None,
                  progress: ProgressFn = no_progress,
                  cancel: CancelToken | None = None,
                  spans_format: str = "jsonl",
                  rules_fn: RulesFn | None = None,
                  strict: bool = False,
                  run_tag: str = "",
                  pattern: str = "*.txt") -> RedactionSummary:
    """De-identify every note under ``in_dir`` into ``out_dir``.

    Parameters
    ----------
    in_dir, out_dir
        Input folder (searched recursively for ``pattern``) and output
        folder (created; must differ from ``in_dir``).
    predictor_factory
        Picklable callable with no arguments returning a predictor: an
        object with ``predict_spans(text) -> list[Span]`` (a trained model
        or ensemble) or a callable ``text -> list[Span]``. Called once per
        worker process (once in-process when ``workers <= 1``).
    policy
        Strategy per label and surrogate settings.
    secret
        Project secret (surrogates, pseudonymous names, manifest keys).
    memory_path_or_factory
        Surrogate memory: a path (a ``JsonFileSurrogateMemory`` that holds
        keyed hashes only), a factory returning a memory or store, a memory
        or store object, or ``None`` (this run only). Saved at the end, also
        after a cancel.
    workers
        Prediction processes (``spawn`` context, safe with torch and Qt).
    naming
        ``"same"`` relative paths or ``"pseudonymous"`` keyed-hash names.
    patient_regex
        Applied to the relative POSIX path; group ``patient`` (or group 1,
        or the whole match) is the patient key. Without a match each note
        is its own patient.
    progress, cancel
        Progress reports; cancellation is checked between notes and raises
        ``Cancelled`` after cleaning up (finished notes stay finished).
    spans_format
        ``"jsonl"`` or ``"brat"``.
    rules_fn, strict
        Leak re-scan (see ``app.deid.rescan``). In strict mode a note with a
        suspected leak is not written and ``LeakError`` is raised at the end.
    run_tag
        Extra text for the settings fingerprint (e.g. the model id), so a
        re-run with another model redoes the notes.

    Returns
    -------
    RedactionSummary
    """
    t0 = time.perf_counter()
    in_dir, out_dir = Path(in_dir), Path(out_dir)
    if naming not in NAMINGS:
        raise ValueError(f"unknown naming {naming!r} (known: {', '.join(NAMINGS)})")
    if spans_format not in SPANS_FORMATS:
        raise ValueError(f"unknown spans format {spans_format!r} (known: {', '.join(SPANS_FORMATS)})")
    if not in_dir.is_dir():
        raise ValueError("input folder not found")
    if not secret:
        raise ValueError("a non-empty project secret is required")
    out_dir.mkdir(parents=True, exist_ok=True)
    if out_dir.resolve() == in_dir.resolve():
        raise ValueError("the output folder must differ from the input folder")
    _remove_temp_files(out_dir)
    regex = re.compile(patient_regex) if patient_regex else None
    cancel = cancel or CancelToken()
    memory = _open_memory(memory_path_or_factory, secret)
    redactor = Redactor(policy, secret=secret, memory=memory)
    fingerprint = keyed_hex(secret, "settings", json.dumps(policy.to_dict(), sort_keys=True),
                            naming, spans_format, run_tag, length=32)
    manifest_path = out_dir / MANIFEST
    manifest = _read_manifest(manifest_path)
    out_resolved = out_dir.resolve()
    files = sorted(p for p in in_dir.rglob(pattern)
                   if p.is_file() and out_resolved not in p.resolve().parents)
    outcomes: list[NoteOutcome] = []
    pending: list[_Pending] = []
    for path in files:
        rel = path.relative_to(in_dir).as_posix()
        key = keyed_hex(secret, "note", rel, length=32)
        out_name = _output_name(rel, naming, secret)
        try:
            data = path.read_bytes()
        except OSError as exc:
            outcomes.append(NoteOutcome(out_name, "bad", f"cannot read file ({type(exc).__name__})"))
            continue
        digest = hashlib.sha256(data).hexdigest()
        entry = manifest.get(key)
        if entry and entry.get("sha256") == digest and entry.get("settings") == fingerprint \
                and (out_dir / entry["output"]).is_file():
            outcomes.append(NoteOutcome(out_name, "resumed", "", entry.get("chars_in", 0),
                                        entry.get("chars_out", 0), entry.get("labels", {}),
                                        entry.get("strategies", {}), entry.get("leaks", 0)))
            continue
        try:
            text = decode_note(data)
        except UnreadableNote as exc:
            outcomes.append(NoteOutcome(out_name, "bad", str(exc)))
            continue
        pending.append(_Pending(rel, key, out_name,
                                _patient_key(rel, regex, key), digest, text))

    total = len(files)
    state = {"done": len(outcomes)}
    patient_ids: dict[str, set[str]] = {}
    leaky: dict[str, int] = {}

    def finish(item: _Pending, spans: list[tuple[int, int, str]] | None, error: str) -> None:
        if error:
            outcomes.append(NoteOutcome(item.out_name, "failed", error, len(item.text)))
        else:
            outcomes.append(_finish_note(item, spans or [], redactor, out_dir, spans_format,
                                         manifest_path, fingerprint, patient_ids, rules_fn,
                                         strict, leaky))
        state["done"] += 1
        progress(Progress(state["done"] / max(total, 1), "redact",
                          message=f"{state['done']}/{total} notes"))

    try:
        if pending:
            _run(pending, predictor_factory, workers, cancel, finish)
    finally:
        save = getattr(memory, "save", None)
        if callable(save):
            save()
        _remove_temp_files(out_dir)
    summary = RedactionSummary(sorted(outcomes, key=lambda n: n.note), naming, spans_format,
                               max(1, workers), time.perf_counter() - t0)
    if strict and leaky:
        err = LeakError(leaky)
        err.summary = summary  # type: ignore[attr-defined]
        raise err
    return summary


def _run(pending: list[_Pending], factory: Callable[[], Any], workers: int,
         cancel: CancelToken, finish: Callable[[_Pending, Any, str], None]) -> None:
    """Predict ``pending`` (in workers or in-process) and ``finish`` each in order."""
    if workers <= 1:
        predictor = factory()
        for item in pending:
            cancel.check()
            try:
                spans = _predict_with(predictor, item.text)
            except Exception as exc:  # one bad note must not stop the export
                finish(item, None, f"prediction failed ({type(exc).__name__})")
                continue
            finish(item, spans, "")
        return
    window: deque[tuple[_Pending, Future]] = deque()
    todo = iter(pending)
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                             initializer=_init_worker, initargs=(factory,)) as pool:
        try:
            def top_up() -> None:
                while len(window) < 2 * workers:
                    item = next(todo, None)
                    if item is None:
                        return
                    window.append((item, pool.submit(_worker_predict, item.text)))

            top_up()
            while window:
                cancel.check()
                item, fut = window.popleft()
                try:
                    spans, error = fut.result(), ""
                except Exception as exc:
                    spans, error = None, f"prediction failed ({type(exc).__name__})"
                finish(item, spans, error)
                top_up()
        except BaseException:
            for _, fut in window:
                fut.cancel()
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _finish_note(item: _Pending, raw_spans: Iterable[tuple[int, int, str]], redactor: Redactor,
                 out_dir: Path, spans_format: str, manifest_path: Path, fingerprint: str,
                 patient_ids: dict[str, set[str]], rules_fn: RulesFn | None, strict: bool,
                 leaky: dict[str, int]) -> NoteOutcome:
    spans = [Span(s, e, label) for s, e, label in raw_spans if 0 <= s < e <= len(item.text)]
    result = redactor.redact(item.text, spans, patient_key=item.patient)
    ids = patient_ids.setdefault(item.patient, set())
    for m in result.span_map:
        original = item.text[m.in_start:m.in_end]
        if result.text[m.out_start:m.out_end] != original:
            ids.add(original)
    found = rescan(result.text, sorted(ids), rules_fn,
                   replaced=[(m.out_start, m.out_end) for m in result.span_map])
    leaks = [lk for lk in found if not lk.in_replacement]
    labels = result.label_counts()
    strategies: dict[str, int] = {}
    for m in result.span_map:
        strategies[m.strategy] = strategies.get(m.strategy, 0) + 1
    categories: dict[str, int] = {}
    for lk in leaks:
        categories[lk.category] = categories.get(lk.category, 0) + 1
    outcome = NoteOutcome(item.out_name, "done", "", len(item.text), len(result.text),
                          labels, strategies, len(leaks), categories,
                          len(found) - len(leaks))
    if leaks and strict:
        leaky[item.out_name] = len(leaks)
        outcome.status, outcome.reason = "leak", "suspected identifier leak; not exported"
        return outcome
    out_path = out_dir / item.out_name
    suffix, payload = _spans_payload(result, spans_format)
    spans_name = _stem(item.out_name) + suffix
    _atomic_write(out_path, result.text.encode("utf-8"))
    _atomic_write(out_dir / spans_name, payload)
    _append_manifest(manifest_path, {
        "key": item.key, "sha256": item.sha256, "settings": fingerprint,
        "output": item.out_name, "spans": spans_name, "chars_in": len(item.text),
        "chars_out": len(result.text), "labels": labels, "strategies": strategies,
        "leaks": len(leaks)})
    return outcome
