"""Redact a folder of notes: predict, replace, re-scan, write, resumably.

Work split: notes are cut into batches that each hold every note of their
patients (`_cut_batches`). A worker (process or Dask worker; the model is
built once per worker by a picklable ``predictor_factory``) predicts,
redacts in order, scans and writes a batch's notes, and reports their
manifest entries; the parent (the client) appends them to the manifest and
keeps the surrogates drawn. A patient's surrogates depend only on its own
notes (in path order), the memory as it stood and the known identifiers,
so the output is the same whatever the number of workers, and a task run
twice writes the same bytes again.

Output layout in ``out_dir``:

* each note, UTF-8, same relative path (``naming="same"``) or
  ``note-<hmac of the path>.txt`` (``"pseudonymous"``: flat, never the
  original name);
* beside it the replacement offsets *into the output*: ``<stem>.spans.jsonl``
  (one ``{"start", "end", "label", "strategy"}`` per line) or brat
  ``<stem>.ann`` whose span text is the replacement, never the original;
* ``.deid-manifest.jsonl``: one line per finished note (keyed hash of the
  input path, keyed hash of its bytes, output names, label counts). A re-run
  skips notes whose entry matches (same bytes, same settings fingerprint,
  output present), so a killed or cancelled export resumes.

Every file is written to a ``.deid-tmp-*`` file beside it and
``os.replace``d into place; a note counts as done only once its manifest
entry is appended, after its worker reported the whole batch written (and
synced once). Temporary files a killed worker left are removed when the
run ends and when the next one starts.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import deque
from concurrent.futures import CancelledError
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, NamedTuple

from app.core.bounded import BoundedPattern
from app.core.prediction import SpanPredictor, kept_counts
from app.core.parallel import Engine, forget, loaded, open_engine, resolve_workers
from app.core.progress import CancelToken, Progress, ProgressFn, no_progress
from app.core.spans import Span
from app.deid.keyed import keyed_hex, seal, unseal
from app.deid.memory import (BufferedMemory, InMemorySurrogateMemory, JsonFileSurrogateMemory,
                             StoreMemoryAdapter, as_memory)
from app.deid.policy import WORDED_KINDS, Policy
from app.deid.redact import MappedSpan, RedactionResult, Redactor, offset_mapper
from app.deid.rescan import (KnownIdentifiers, Leak, LeakError, RulesFn, known_leaks, merge_leaks,
                             recogniser_leaks)
from app.deid.textin import UnreadableNote, decode_note
from app.errors import UserError
from app.formats.base import (atomic_write, links_inside, printable_path, sweep_temp_files,
                              sync_folder, utf8_name)
from app.formats.written import MANIFEST, UNFINISHED, claim_paths

NAMINGS = ("same", "pseudonymous")
#: Why a note is refused in strict mode when its file name holds an identifier.
NAME_HOLDS_IDENTIFIER = ("the file name holds an identifier (rename the file, or use "
                         "pseudonymous naming)")
SPANS_FORMATS = ("jsonl", "brat")
#: The suffix of a note's spans file (beside it), by spans format.
SPANS_SUFFIXES = {"jsonl": ".spans.jsonl", "brat": ".ann"}


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
    # Why a note written before was done again ("changed: the model"); empty
    # for a note written for the first time.
    redone: str = ""
    # Where the leak scan suspects an identifier: output and input offsets,
    # source and category, never the text (see app.deid.rescan.Leak).
    suspicions: list[dict] = field(default_factory=list)
    # The input's file name held an identifier: the note took its
    # pseudonymous name under ``naming="same"`` (`name_holds_identifier`).
    renamed: bool = False
    # How many of the note's spans each candidate, member, step or rule made
    # (`Span.origin`; "not named" for spans that carry none, e.g. annotations).
    made_by: dict[str, int] = field(default_factory=dict)
    # How many spans each step or rule after the model removed and left in
    # clear (no replacement covers them): `kept_counts`, names and counts only.
    kept_by: dict[str, int] = field(default_factory=dict)
    # Suspicions of the note that people judged not a leak (no longer listed).
    dismissed: int = 0


#: What `NoteOutcome.made_by` counts a span under when it names nothing.
NOT_NAMED = "not named"
#: The origin of a span a person annotated (accepted in the editor, or
#: imported with the notes): what the report says found it.
ANNOTATED = "a person's annotation"


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

    def redone(self) -> dict[str, int]:
        """How many notes were written again, by reason."""
        out: dict[str, int] = {}
        for n in self.notes:
            if n.status in ("done", "leak") and n.redone:
                out[n.redone] = out.get(n.redone, 0) + 1
        return out

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
#: Notes per task (more for a patient of more notes): enough for the models
#: to batch segments across notes, few enough that a task lost with its
#: worker costs little. Fixed, so the batches are the same whatever runs them.
BATCH_NOTES = 16


def span_rows(spans: Iterable[Span]) -> list[tuple]:
    """Spans as the rows a batch's predictions travel in between processes:
    ``(start, end, label, origin)`` (`spans_of` reads them back)."""
    return [(s.start, s.end, s.label, s.origin) for s in spans]


def spans_of(rows: Iterable[tuple], length: int | None = None) -> list[Span]:
    """The spans of ``rows`` (`span_rows`; rows without their origin too),
    those outside a text of ``length`` left out."""
    return [Span(r[0], r[1], r[2], origin=r[3] if len(r) > 3 else None) for r in rows
            if length is None or 0 <= r[0] < r[1] <= length]


class Predicted(NamedTuple):
    """One note's prediction as it travels back from a worker (picklable,
    offsets and names only, never text)."""

    #: `span_rows` of the spans (``None``: the prediction failed).
    spans: list[tuple] | None
    #: Why the prediction failed ("" when it did not).
    error: str = ""
    #: The tokens the predictor doubts (`predictor_doubts`), when asked.
    doubts: list[tuple[int, int, str]] | tuple = ()
    #: `span_rows` of the spans a step after the model removed, each one's
    #: origin the step or rule that removed it (`Prediction.removed`).
    removed: list[tuple] | tuple = ()
    #: The failure was the user's to fix (a ``UserError``: a site's rule that
    #: backtracks without end), and ``error`` says how.
    user_error: bool = False


def _predict_batch(predictor: Any, texts: list[str], patients: list[str | None]
                   ) -> list[tuple[list[tuple], list[tuple]]]:
    """Per text, ``(spans, removed)`` as `span_rows`: the spans, and those a
    step after the model removed (origin: the step or rule that removed
    them). ``patients`` are patient ids (or ``None``) for the patient table
    of a predictor holding hospital lists.

    A `SpanPredictor` (what ``PredictorSpec.load`` gives) batches segments
    through the models across notes and runs only the members the spans
    need (those loaded for the leak scan wait); any other predictor is a
    ``predict_spans(text)`` or a function of the text (nothing removed)."""
    if isinstance(predictor, SpanPredictor):
        preds = predictor.predict(texts, patients=patients, spans_only=True)
        return [(span_rows(p.spans), [(s.start, s.end, s.label, why) for s, why in p.removed])
                for p in preds]
    fn = getattr(predictor, "predict_spans", None) or predictor
    return [(span_rows(fn(t)), []) for t in texts]


def predictor_doubts(predictor: Any, texts: list[str],
                     threshold: float) -> list[list[tuple[int, int, str]]]:
    """Tokens of each text that the predictor doubts (`SpanPredictor.doubts`:
    at least ``threshold`` chance of being part of an identifier), ``(start,
    end, label)`` in the text, in order; none for a predictor that is no
    `SpanPredictor`. Read on the original text, where the model sees its
    usual context (on the redacted text the tags confuse it): the leak
    scan's ``unsure``."""
    if isinstance(predictor, SpanPredictor):
        return predictor.doubts(texts, threshold)
    return [[] for _ in texts]


def doubts_in_output(doubts: Iterable[tuple[int, int, str]],
                     span_map: list[MappedSpan]) -> list[tuple[int, int, str, str]]:
    """The doubted tokens a replacement did not cover, at their place in the
    output, as the leak scan's model hits of source ``unsure``; neighbours
    (one space apart, no replacement between) make one suspicion."""
    from app.deid.rescan import _Ranges
    replaced = _Ranges([(m.in_start, m.in_end) for m in span_map])
    forward = offset_mapper(span_map)
    out: list[tuple[int, int, str, str]] = []
    last_in = -2
    for a, b, label in doubts:
        if replaced.meeting(a, b):
            continue
        o = forward(a)
        if out and a - last_in <= 1 and o - out[-1][1] == a - last_in:
            out[-1] = (out[-1][0], o + b - a, out[-1][2], "unsure")
        else:
            out.append((o, o + b - a, label, "unsure"))
        last_in = b
    return out


def predict_task(factory: Callable[[], Any], key: str, texts: list[str],
                 patients: list[str | None], doubt: float | None = None) -> list[Predicted]:
    """Worker side of a batch: a `Predicted` per note (``error`` says why a
    note failed), with the doubts (``predictor_doubts``) when ``doubt`` (a
    threshold) is given.

    ``factory`` builds the predictor, once per worker process for ``key``
    (``app.core.parallel.loaded``); ``patients`` are patient ids or ``None``.
    Pure (a cluster may run it twice), shared by redaction and annotation.
    """
    predictor, lock = loaded(factory, ("predict", key))

    def batch(texts: list[str], patients: list[str | None]) -> list[Predicted]:
        found = _predict_batch(predictor, texts, patients)
        doubts = [()] * len(texts) if doubt is None else predictor_doubts(predictor, texts, doubt)
        return [Predicted(s, "", d, r) for (s, r), d in zip(found, doubts)]

    with lock:
        try:
            return batch(texts, patients)
        except Exception:   # find the note that fails; the others go on
            out: list[Predicted] = []
            for text, patient in zip(texts, patients):
                try:
                    out += batch([text], [patient])
                except UserError as exc:  # its message holds no identifier, by contract
                    out.append(Predicted(None, f"prediction failed: {exc}", user_error=True))
                except Exception as exc:  # one bad note must not stop the export
                    out.append(Predicted(None, f"prediction failed ({type(exc).__name__})"))
            return out


@dataclass(frozen=True)
class ScanJob:
    """What a worker needs to scan one redacted note (no original text)."""

    text: str
    replaced: tuple[tuple[int, int], ...]
    names_replaced: tuple[tuple[int, int], ...]
    #: Model hits found before the scan (the doubts read on the original).
    hits: tuple[tuple, ...] = ()
    #: The replacements of identifiers written in words (``rescan``'s
    #: ``worded_replaced``); ``None``: every replacement.
    worded_replaced: tuple[tuple[int, int], ...] | None = None


def scan_spans(predictor: Any, texts: list[str]) -> list[list[tuple[int, int, str]]]:
    """The model's recall-biased leak scan of ``texts`` by a `Predictor`
    holding every member: the candidate's spans and each member's, united
    (one member is enough to suspect), their segments batched through the models."""
    out = []
    for pred in predictor.predict(texts, with_members=True):
        spans = list(pred.spans) + [s for found in pred.member_spans.values() for s in found]
        out.append([(s.start, s.end, s.label) for s in spans])
    return out


def kept_age(policy: Policy, text: str, start: int, end: int, label: str) -> bool:
    """Whether a hit of ``label`` at ``text[start:end]`` is an age the
    policy keeps (up to ``age_threshold``: HIPAA Safe Harbor keeps them,
    the surrogates keep them, the starter model does not take them), so no
    identifier left in clear, whoever finds it ("58 YEAR OLD")."""
    digits = "".join(c for c in text[start:end] if c.isdigit())
    return bool(digits) and policy.kind_for(str(label)) == "age" \
        and int(digits) <= policy.age_threshold


def without_kept_ages(policy: Policy, text: str, hits: Iterable[tuple]) -> list[tuple]:
    """``hits`` (``(start, end, label, ...)`` in ``text``) less the ages the
    policy keeps (``kept_age``): the leak scan does not suspect those."""
    return [h for h in hits if not kept_age(policy, text, h[0], h[1], h[2])]


def _scan_task(model_scan: Callable[[], Any] | None, rules_fn: RulesFn | None, key: tuple,
               jobs: list[ScanJob], shapes: tuple[str, ...],
               corpus: frozenset[str] | None, shared: bool = False,
               policy: Policy | None = None) -> list[list[Leak]]:
    """Worker side of the leak scan of a batch: everything but the known
    identifiers (``rescan.recogniser_leaks``: the rules', the model's and
    its members' hits, names beside replacements, residues, shapes), the
    expensive part. ``corpus`` ``None``: the shipped common words. Pure.

    ``shared``: ``model_scan`` is the predictor factory of the prediction
    and ``key`` its key, so the worker's loaded predictor scans
    (``scan_spans``) instead of a second copy of the models. With
    ``policy``, the ages it keeps are not suspected (``kept_age``)."""
    if policy is not None and rules_fn is not None:
        all_rules = rules_fn

        def rules_fn(text: str) -> list:
            return without_kept_ages(policy, text, all_rules(text))
    texts = [j.text for j in jobs]
    models: list[list] = [[] for _ in texts]
    if model_scan is not None:
        scan, lock = loaded(model_scan, key)
        with lock:
            many = getattr(scan, "many", None)
            models = scan_spans(scan, texts) if shared else \
                many(texts) if callable(many) else [list(scan(t)) for t in texts]
    models = [list(m) + list(j.hits) for m, j in zip(models, jobs)]
    if policy is not None:
        models = [without_kept_ages(policy, j.text, m) for m, j in zip(models, jobs)]
    corpus = common_words() if corpus is None else corpus
    return [recogniser_leaks(j.text, rules_fn, (lambda _, m=m: m) if m else None,
                             replaced=j.replaced, names_replaced=j.names_replaced,
                             worded_replaced=j.worded_replaced,
                             shapes=shapes, corpus=corpus, beside=True)
            for j, m in zip(jobs, models)]


@dataclass(frozen=True)
class MemorySource:
    """Picklable: the surrogate memory of a run as it stood, opened read-only
    in a worker (``"none"``: empty; ``"json"``: a memory file; ``"project"``:
    the project file). A worker reads only the entries of the patients it
    redacts, which no other task writes during the run."""

    kind: str
    path: str = ""
    secret: str | bytes = b""

    def __call__(self):
        if self.kind == "json":
            return JsonFileSurrogateMemory(self.path, self.secret)
        if self.kind == "project":
            from app.project import Project
            return _ProjectMemory(Project.open(Path(self.path), readonly=True))
        return InMemorySurrogateMemory()


class _ProjectMemory(StoreMemoryAdapter):
    """A read-only project's surrogates, closed with it."""

    def close(self) -> None:
        self._store.close()


def memory_source(spec: Any, secret: str | bytes) -> MemorySource | None:
    """How a worker opens ``redact_notes``' memory, or ``None`` when it cannot
    (a memory object of this process only): the notes are then redacted here."""
    if spec is None:
        return MemorySource("none")
    if isinstance(spec, (str, os.PathLike)):
        return MemorySource("json", str(Path(spec).resolve()), secret)
    path = getattr(spec, "path", None)
    if path is not None and callable(getattr(spec, "surrogate_get", None)):
        return MemorySource("project", str(Path(path).resolve()))
    return None


@dataclass(frozen=True)
class _Output:
    """Where and how a run's notes are written (picklable: workers write)."""

    out_dir: Path
    spans_format: str
    fingerprint: str
    parts: Mapping[str, str]
    secret: str | bytes
    strict: bool
    # Suspicions a person judged not a leak (see `redact_notes`).
    dismissed: frozenset[str]


@dataclass(frozen=True)
class WorkerRedaction:
    """What a worker needs to redact whole patients' notes in order, scan
    and write them (picklable; the same for every task of a run)."""

    policy: Policy
    memory: MemorySource
    known: KnownIdentifiers | None
    rules_fn: RulesFn | None
    shapes: tuple[str, ...]
    corpus: frozenset[str] | None
    output: _Output


@dataclass
class _InOrder:
    """What redacting notes in order needs (`_redact_note`)."""

    redactor: Redactor
    seen: KnownIdentifiers
    known: KnownIdentifiers | None
    dismissed: frozenset[str]


def _redact_batch(batch: list["_Pending"], results: dict, ctx: Any) -> list:
    """Redact a batch's notes in order with their predictions (``results``:
    ``id(item)`` -> `Predicted`): per note a `NoteOutcome` (failed, or kept
    from an earlier run) or ``(_Redacted, the doubts in its output)``."""
    out: list = []
    for item in batch:
        pred = Predicted(item.spans) if item.spans is not None else results[id(item)]
        if pred.error:
            out.append(NoteOutcome(item.out_name, "failed", pred.error, len(item.text)))
            continue
        spans = pred.spans or []
        if item.adjust is not None and item.spans is None:   # predicted now
            spans = item.adjust(spans)
        record = _redact_note(item, spans, ctx, pred.removed)
        if isinstance(record, NoteOutcome):                  # kept from an earlier run
            out.append(record)
        else:
            out.append((record, tuple(doubts_in_output(pred.doubts, record.result.span_map))))
    return out


def _patients_task(factory: Callable[[], Any], keys: tuple[str, str], scan_with: tuple,
                   shared: bool, doubt: float | None, setup: WorkerRedaction,
                   batch: list["_Pending"]) -> tuple[list[NoteOutcome], list[dict], dict]:
    """Worker side of a batch holding every note of its patients: predict,
    redact in order, scan, write. A patient's surrogates depend only on its
    own notes, the memory as it stood and the project's known identifiers,
    and the run's replaced identifiers are searched only in their own
    patient's notes: so this is what the client would do, without the client.

    Idempotent (the memory is read, never written; each file is replaced
    whole by the same bytes): returns the notes' outcomes, the manifest
    entries of the notes written, made durable by one sync of the output
    folder, and the surrogates drawn (for the client to keep in the memory)."""
    need = [it for it in batch if it.spans is None]
    results = dict(zip((id(it) for it in need), predict_task(
        factory, keys[0], [it.text for it in need], [_patient_id(it.patient) for it in need],
        doubt))) if need else {}
    # A project is opened for the task (its connection stays in this thread);
    # a memory file is read once per worker.
    own = setup.memory.kind == "project"
    base = setup.memory() if own else loaded(setup.memory, ("memory", setup.memory))[0]
    memory = BufferedMemory(base)
    out = setup.output
    ctx = _InOrder(Redactor(setup.policy, secret=out.secret, memory=memory, known=setup.known),
                   KnownIdentifiers(common_words(), own_patient_only=True), setup.known,
                   out.dismissed)
    try:
        done = _redact_batch(batch, results, ctx)
    finally:
        if own:
            base.close()
    records = [d for d in done if not isinstance(d, NoteOutcome)]
    jobs = [ScanJob(r.result.text, r.replaced, r.names_replaced, h, r.worded_replaced)
            for r, h in records]
    scanned = iter(_scan_task(scan_with[0], setup.rules_fn, scan_with[1], jobs, setup.shapes,
                              setup.corpus, shared, setup.policy) if jobs else [])
    entries: list[dict] = []
    outcomes = [d if isinstance(d, NoteOutcome) else _write_note(d[0], next(scanned), out, entries)
                for d in done]
    if entries:
        sync_folder(out.out_dir)
    return outcomes, entries, memory.pending()


def _patient_id(patient: str | None) -> str | None:
    return patient[len(_PATIENT_PREFIX):] if patient and patient.startswith(_PATIENT_PREFIX) \
        else None


# ------------------------------------------------------------------- files
def _spans_payload(result: RedactionResult, fmt: str) -> tuple[str, bytes]:
    """(file suffix, content) of the spans file: offsets into the OUTPUT."""
    if fmt == "jsonl":
        lines = [json.dumps({"start": m.out_start, "end": m.out_end, "label": m.label,
                             "strategy": m.strategy}) for m in result.span_map]
        return SPANS_SUFFIXES[fmt], ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8")
    lines = []
    n = 0
    for m in result.span_map:
        if m.out_end == m.out_start:
            continue  # brat cannot hold an empty span ("remove" strategy)
        n += 1
        frags, shown = _brat_fragments(result.text, m)
        lines.append(f"T{n}\t{m.label} {frags}\t{shown}")
    return SPANS_SUFFIXES[fmt], ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8")


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


def suspicion_ids(out_dir: Path) -> set[str]:
    """The ids of every suspicion the runs into ``out_dir`` recorded (its
    manifest), those since dismissed too: what ``--dismiss`` may name."""
    path = Path(out_dir) / MANIFEST
    if not path.is_file():
        return set()
    return {str(sp.get("id")) for entry in _read_manifest(path).values()
            for sp in entry.get("suspicions") or () if isinstance(sp, dict)}


def _append_manifest(path: Path, entries: list[dict]) -> None:
    """Append the entries of a batch with one fsync. The outputs they name
    were written without one: each entry holds its outputs' SHA-256, and a
    resume redoes a note whose output does not match (lost in a crash)."""
    if not entries:
        return
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(e, sort_keys=True) + "\n" for e in entries))
        fh.flush()
        os.fsync(fh.fileno())


def _sha256_file(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


# ---------------------------------------------------------------- helpers
def _open_memory(spec: Any, secret: str | bytes):
    if spec is None:
        return InMemorySurrogateMemory()
    if isinstance(spec, (str, os.PathLike)):
        return JsonFileSurrogateMemory(spec, secret)
    if callable(spec) and not hasattr(spec, "get") and not hasattr(spec, "surrogate_get"):
        return as_memory(spec())
    return as_memory(spec)


def common_words() -> frozenset[str]:
    """Words never searched alone as parts of a name (the shipped list)."""
    try:
        from app.rules.dictionaries import lexicon
    except ImportError:
        return frozenset()
    return lexicon().common_words


_PATIENT_PREFIX = "patient:"


def patient_key(patient_id: str) -> str:
    """The surrogate key of a patient: the same for a folder note whose path
    names the patient and for a project document of that patient, so both
    get the same surrogates and date shift."""
    return _PATIENT_PREFIX + patient_id


def output_name(rel: str, naming: str, secret: str | bytes) -> str:
    """The output path of the note named ``rel`` under ``naming``."""
    if naming == "same":
        return rel
    return f"note-{keyed_hex(secret, 'output-name', rel, length=16)}.txt"


def name_holds_identifier(rel: str, patient: str | None = None, *,
                          known: KnownIdentifiers | None = None,
                          rules_fn: RulesFn | None = None) -> bool:
    """Whether the file name ``rel`` holds an identifier, searched like a
    note's text: the ``known`` identifiers (of ``patient`` and the project,
    the hospital lists) and the ``rules_fn`` hits (its ``in_file_name``
    where it has one: `app.services.prediction.RuleLeakScan`).

    A name is read as its words: separators become spaces, and the words
    are also read capitalised (a file is named "smith_john" as often as
    "Smith_John", and in text a lowercase word alone is no name). The rules
    also read it as written, underscores as spaces (a record number
    "KH-1234567" or "ref # 8336652" is one only with its "-" or "#"), and
    with letters and digits apart ("MRN1234567").
    Only ``True``/``False``: the identifier itself is never returned.
    """
    stem = _stem(rel)
    words = re.sub(r"[\W_]+", " ", stem).strip()
    unglued = " ".join(p for w in words.split() for p in (_glued_parts(w) or [w]))
    if not words:
        return False
    if known is not None:
        for text in (words, " ".join(w[:1].upper() + w[1:] for w in words.split())):
            if known.find(text, patient):
                return True
    # The project's rule scan reads a name with every rule of the floor too.
    read = getattr(rules_fn, "in_file_name", rules_fn)
    return bool(read is not None and any(read(text) for text in
                                         dict.fromkeys((words, stem.replace("_", " "), unglued))))


def name_shows_spans(rel: str, text: str, spans: Iterable[Span]) -> bool:
    """Whether the file name ``rel`` holds a word of one of its note's own
    identifiers (``spans`` of ``text``, as replaced): "Zebulon
    Quackenbush.txt", a note about him, though no list knows him. A word of
    one character, or a common word ("discharge"), is not enough."""
    # "MRN1234567": its parts too, letters and digits apart.
    words = {p.casefold() for w in _WORD_RE.findall(_stem(rel)) for p in (w, *_glued_parts(w))}
    if not words:
        return False
    common = common_words()
    return any(len(w) >= 2 and w.casefold() in words
               and not (w.isalpha() and w.casefold() in common)
               for s in spans for w in _WORD_RE.findall(text[s.start:s.end]))


_WORD_RE = re.compile(r"[^\W_]+")
_GLUED_RE = re.compile(r"\d+|[^\W\d_]+")


def _glued_parts(word: str) -> list[str]:
    """A word's runs of letters and of digits, where it has both."""
    parts = _GLUED_RE.findall(word)
    return parts if len(parts) > 1 else []


def _stem(name: str) -> str:
    return name[:-4] if name.lower().endswith(".txt") else name


@dataclass(frozen=True)
class NoteSource:
    """One note to redact.

    ``rel`` names it (output path under ``naming="same"``, manifest key);
    ``patient`` is its surrogate key (``None``: the note is its own
    patient); ``read`` returns its bytes (a file) or its text (a project
    document, already decoded); ``adjust`` turns predicted spans into the
    spans to replace, ``version`` names that input.
    """

    rel: str
    patient: str | None
    read: Callable[[], bytes | str]
    # What a person decided about the note's spans (a project document):
    # applied to the predicted spans in this process, and part of the note's
    # version so that changed decisions redo the note.
    adjust: Callable[[list[tuple]], list[tuple]] | None = None
    version: str = ""


#: What each part of the settings fingerprint is, for "redone because ..." messages.
SETTING_NAMES = {"model": "the model", "policy": "the redaction policy",
                 "strict": "strict mode", "naming": "the file naming",
                 "spans_format": "the spans format", "lists": "the hospital lists",
                 "scan": "the leak scan"}


def settings_parts(secret: str | bytes, policy: Policy, *, naming: str, spans_format: str,
                   strict: bool, producer: Mapping[str, str] | None = None) -> dict[str, str]:
    """Keyed digests of every setting that changes what is written.

    ``producer`` adds what the caller knows: the model (run, selected
    candidate, finishing steps) or rules or annotations that give the spans,
    the hospital lists, the leak scan. Each part is hashed on its own so a
    re-run can say which one changed.
    """
    raw = {"policy": json.dumps(policy.to_dict(), sort_keys=True), "naming": naming,
           "spans_format": spans_format, "strict": str(bool(strict)),
           **{str(k): str(v) for k, v in (producer or {}).items()}}
    return {k: keyed_hex(secret, "settings", k, v, length=16) for k, v in sorted(raw.items())}


def _fingerprint(secret: str | bytes, parts: Mapping[str, str]) -> str:
    return keyed_hex(secret, "settings", json.dumps(dict(parts), sort_keys=True), length=32)


def note_digest(secret: str | bytes, sha256: str) -> str:
    """What the manifest keeps of a note's SHA-256: keyed with the project's
    secret, so that whoever holds a note's text cannot tell from the export
    folder whether it is there (a plain SHA-256 of the file matched
    ``sha256sum`` of the source)."""
    return keyed_hex(secret, "note-digest", sha256, length=64)


def _redo_reason(entry: dict | None, digest: str, fingerprint: str, parts: Mapping[str, str],
                 out_dir: Path, version: str = "", secret: str | bytes = b"") -> str | None:
    """Why a note must be (re)done; ``None`` when its output can be kept.
    ``digest``: the note's SHA-256 (a manifest written before it was keyed
    holds it plain)."""
    if entry is None:
        return ""
    if entry.get("sha256") not in (note_digest(secret, digest), digest):
        return "the note changed"
    if entry.get("version", "") != version:
        return "its annotations changed"
    if entry.get("settings") != fingerprint:
        old = entry.get("parts")
        if not isinstance(old, dict):
            return "written under other settings"
        changed = [SETTING_NAMES.get(k, k) for k in sorted(set(parts) | set(old))
                   if old.get(k) != parts.get(k)]
        return "changed: " + ", ".join(changed)
    if not (out_dir / str(entry.get("output", ""))).is_file():
        return "its output was missing"
    for name_key, sha_key in (("output", "output_sha256"), ("spans", "spans_sha256")):
        if sha_key in entry and _sha256_file(out_dir / str(entry.get(name_key, ""))) != entry[sha_key]:
            return "its output was damaged (written just before a crash)"
    return None


def _replay_nonce(key: str, digest: str, fingerprint: str) -> str:
    return f"{key}:{digest}:{fingerprint}"


def _seal_spans(secret: str | bytes, nonce: str, spans: Iterable[tuple[int, int, str]]) -> str:
    """The input spans of a finished note, encrypted: offsets into the input
    hint at identifier lengths, so they are not stored in the clear."""
    return seal(secret, nonce, json.dumps([list(s) for s in spans]).encode("utf-8"))


def _unseal_spans(secret: str | bytes, nonce: str, token: object) -> list[tuple[int, int, str]] | None:
    raw = unseal(secret, nonce, token)
    if raw is None:
        return None
    try:
        return [(int(s), int(e), str(label)) for s, e, label in json.loads(raw)]
    except (ValueError, TypeError):
        return None


@dataclass
class _Pending:
    rel: str
    key: str
    out_name: str
    patient: str
    sha256: str
    text: str
    redo: str = ""                        # why it is done again ("" for a first run)
    # A note kept from an earlier run: its manifest entry and (when the
    # manifest could give them back) the spans it was redacted with. It is
    # redacted again without writing, so the surrogate state a later note
    # sees is the one an uninterrupted run would have built.
    kept: dict | None = None
    spans: list[tuple[int, int, str]] | None = None
    adjust: Callable[[list[tuple]], list[tuple]] | None = None
    version: str = ""


def patient_in_name(regex: BoundedPattern, name: str) -> str | None:
    """The patient a note's ``name`` names, by the one patient-pattern rule
    of `deid import`, `annotate` and `redact`.

    ``name`` is the note's path relative to its folder, ``/``-separated,
    with its extension. ``regex`` is searched in the file name, then in the
    file name without its extension, then in the whole path (a folder per
    patient), then in it without the extension; the first
    that matches names the patient: group ``patient``, else group 1, else
    the whole match."""
    base = name.rsplit("/", 1)[-1]
    stem, dot, _ = base.rpartition(".")
    places = [base, stem if dot else base, name, name[:len(name) - len(base)] + stem if dot
              else name]
    for where in dict.fromkeys(places):
        m = regex.search(where)
        if m:
            return m.group("patient") if "patient" in regex.groupindex \
                else m.group(1) if regex.groups else m.group(0)
    return None


def folder_sources(in_dir: str | os.PathLike, *, pattern: str = "*.txt",
                   patient_regex: str | None = None,
                   exclude: str | os.PathLike | None = None) -> list[NoteSource]:
    """The notes under ``in_dir`` (recursive ``pattern``), sorted by path.

    ``patient_regex`` names each note's patient (`patient_in_name`, on the
    relative POSIX path).
    ``exclude``: a folder whose files are skipped (an output folder inside
    the input).
    """
    in_dir = Path(in_dir)
    regex = BoundedPattern(patient_regex) if patient_regex else None
    skip = Path(exclude).resolve() if exclude is not None else None
    sources = []
    for path in sorted(p for p in in_dir.rglob(pattern) if p.is_file()):
        if skip is not None and skip in path.resolve().parents:
            continue
        if not links_inside(path, in_dir):
            continue                     # never a file linked from outside the folder
        rel = path.relative_to(in_dir).as_posix()
        patient = None
        if regex is not None:
            found = patient_in_name(regex, rel)
            patient = patient_key(found) if found is not None else None
        sources.append(NoteSource(rel, patient, path.read_bytes))
    return sources


def redact_folder(in_dir: str | os.PathLike, out_dir: str | os.PathLike,
                  predictor_factory: Callable[[], Any], policy: Policy, *,
                  patient_regex: str | None = None, pattern: str = "*.txt",
                  **options: Any) -> RedactionSummary:
    """De-identify every note under ``in_dir`` into ``out_dir``.

    ``in_dir`` is searched recursively for ``pattern``; ``patient_regex``
    (`patient_in_name`: the file name, else the relative path; group ``patient`` or group 1 or
    the whole match) names each note's patient, else each note is its own
    patient. ``out_dir`` must differ from ``in_dir``. Everything else is
    ``redact_notes``.
    """
    in_dir, out_dir = Path(in_dir), Path(out_dir)
    if not in_dir.is_dir():
        raise ValueError("input folder not found")
    if out_dir.resolve() == in_dir.resolve():
        raise ValueError("the output folder must differ from the input folder")
    sources = folder_sources(in_dir, pattern=pattern, patient_regex=patient_regex,
                             exclude=out_dir)
    return redact_notes(sources, out_dir, predictor_factory, policy, **options)


def redact_notes(sources: Iterable[NoteSource], out_dir: str | os.PathLike,
                 predictor_factory: Callable[[], Any], policy: Policy, *,
                 secret: str | bytes,
                 memory_path_or_factory: Any = None,
                 workers: int | None = None,
                 cluster: str | None = None,
                 naming: str = "same",
                 progress: ProgressFn = no_progress,
                 cancel: CancelToken | None = None,
                 spans_format: str = "jsonl",
                 rules_fn: RulesFn | None = None,
                 strict: bool = False,
                 producer: Mapping[str, str] | None = None,
                 known: KnownIdentifiers | None = None,
                 model_scan: Callable[[], RulesFn] | None = None,
                 dismissed: Iterable[str] = (),
                 shapes: Iterable[str] = (),
                 batch: int | None = None,
                 force: bool = False) -> RedactionSummary:
    """De-identify ``sources`` into ``out_dir``, in the order given.

    Parameters
    ----------
    sources
        The notes (``NoteSource``); their ``rel`` names must be unique.
    out_dir
        Output folder (created).
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
    workers, cluster
        Where the models run (``app.core.parallel.open_engine``): ``workers``
        processes (default every core; a job of one batch runs in this
        process), or the Dask scheduler ``cluster`` (an address or
        ``local:N``). Workers predict, redact, scan and write batches of
        about :data:`BATCH_NOTES` notes that hold whole patients; this
        process keeps the manifest and the surrogate memory, so the output
        is the same whatever runs the models and a task run twice changes
        nothing.
    naming
        ``"same"`` relative paths or ``"pseudonymous"`` keyed-hash names.
    progress, cancel
        Progress reports; cancellation is checked between notes and raises
        ``Cancelled`` after cleaning up (finished notes stay finished).
    spans_format
        ``"jsonl"`` or ``"brat"``.
    rules_fn, strict
        Leak scan (see ``app.deid.rescan``). In strict mode a note with a
        suspected leak is not written and ``LeakError`` is raised at the end.
    known
        Identifiers known before this run (the project's, hospital lists),
        by patient key: the leak scan searches them (with those replaced in
        this run) and no surrogate recreates one.
    shapes
        Identifier shapes the scan searches too (``app.deid.rescan.SHAPES``:
        ``"date"``, ``"number"``), for the kinds the project protects.
    dismissed
        Ids of suspicions a person judged not a leak (``suspicions[i]["id"]``,
        keyed by the note, its version and the place): not reported, and
        no longer withhold the note in strict mode.
    force
        Replace files in ``out_dir`` that this tool did not write (a
        person's own); without it such a file refuses the run with a
        ``UserError`` before anything is written (``app.formats.written``).
    model_scan
        Picklable factory of the model's recall-biased scan (``text ->
        [(start, end, label)]``), built once in this process when needed.
    producer
        What else decides the output, as ``{part: description}``: the
        model (``"model"``), hospital lists, the leak scan. With the policy,
        naming, spans format and strictness it makes the settings
        fingerprint: a note written under other settings is done again and
        its outcome says why (``NoteOutcome.redone``).

    Returns
    -------
    RedactionSummary
    """
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    if naming not in NAMINGS:
        raise ValueError(f"unknown naming {naming!r} (known: {', '.join(NAMINGS)})")
    if spans_format not in SPANS_FORMATS:
        raise ValueError(f"unknown spans format {spans_format!r} (known: {', '.join(SPANS_FORMATS)})")
    if not secret:
        raise ValueError("a non-empty project secret is required")
    out_dir.mkdir(parents=True, exist_ok=True)
    sweep_temp_files(out_dir)
    cancel = cancel or CancelToken()
    memory = BufferedMemory(_open_memory(memory_path_or_factory, secret))
    redactor = Redactor(policy, secret=secret, memory=memory, known=known)
    parts = settings_parts(secret, policy, naming=naming, spans_format=spans_format,
                           strict=strict, producer=producer)
    fingerprint = _fingerprint(secret, parts)
    manifest_path = out_dir / MANIFEST
    manifest = _read_manifest(manifest_path)
    outcomes: list[NoteOutcome] = []
    items: list[_Pending] = []
    renamed_names: set[str] = set()
    sources = list(sources)
    for source in sources:
        rel = source.rel
        if not utf8_name(rel):
            # No output, manifest or report could carry this name.
            outcomes.append(NoteOutcome(printable_path(rel), "bad",
                                        "file name is not valid UTF-8 (rename the file)"))
            continue
        key = keyed_hex(secret, "note", rel, length=32)
        out_name = output_name(rel, naming, secret)
        pseudonym = output_name(rel, "pseudonymous", secret)
        # A name once found to hold an identifier stays hidden: a note that
        # no longer names its patient had been written under its name again.
        renamed = naming == "same" and (
            (manifest.get(key) or {}).get("output") == pseudonym
            or name_holds_identifier(rel, source.patient, known=known, rules_fn=rules_fn))
        if renamed:
            # Neither the output nor a report may carry the name: the note
            # takes its pseudonymous name (the audit finds it under that).
            out_name = pseudonym
            if strict:
                outcomes.append(NoteOutcome(out_name, "bad", NAME_HOLDS_IDENTIFIER, renamed=True))
                continue
        try:
            data = source.read()
        except OSError as exc:
            outcomes.append(NoteOutcome(out_name, "bad", f"cannot read file ({type(exc).__name__})"))
            continue
        raw = data.encode("utf-8") if isinstance(data, str) else data
        digest = hashlib.sha256(raw).hexdigest()
        entry = manifest.get(key)
        redo = _redo_reason(entry, digest, fingerprint, parts, out_dir, source.version, secret)
        try:
            text = data if isinstance(data, str) else decode_note(data)
        except UnreadableNote as exc:
            outcomes.append(NoteOutcome(out_name, "bad", str(exc)))
            continue
        if renamed:
            renamed_names.add(out_name)
        item = _Pending(rel, key, out_name, source.patient or "note:" + key[:16], digest, text,
                        redo or "", adjust=source.adjust, version=source.version)
        if redo is None:
            item.kept = entry
            item.spans = _unseal_spans(secret, _replay_nonce(key, digest, fingerprint),
                                       entry.get("replay"))
        items.append(item)

    to_write = [name for it in items if it.kept is None
                for name in (it.out_name, _stem(it.out_name) + SPANS_SUFFIXES[spans_format])]
    claim_paths(out_dir, to_write, force=force,
                key=lambda rel: keyed_hex(secret, "written", rel, length=32))
    unfinished = out_dir / UNFINISHED
    atomic_write(unfinished, b"a redaction is writing into this folder, or was stopped\n",
                 sync=False, beside=True)

    total = len(sources)
    state = {"done": len(outcomes)}
    leaky: dict[str, int] = {}
    # What this run replaces, by patient: searched by the scan, but not used
    # to draw surrogates (that would make a note's surrogates depend on the
    # notes before it).
    seen = KnownIdentifiers(common_words(), own_patient_only=True)
    corpus = frozenset().union(*(t.common for t in ((seen,) if known is None else (seen, known))))
    # Absolute: a cluster's workers write there, from their own working folders.
    output = _Output(out_dir.resolve(), spans_format, fingerprint, dict(parts), secret, strict,
                     frozenset(dismissed))
    context = _Context(redactor, output, manifest_path, known, seen, rules_fn, leaky,
                       tuple(shapes), memory, None if corpus == common_words() else corpus,
                       manifest)

    def report(n: int) -> None:
        state["done"] += n
        progress(Progress(state["done"] / max(total, 1), "redact",
                          message=f"{state['done']}/{total} notes"))

    n_workers = 1 if cluster else resolve_workers(workers)
    batches = _cut_batches(items, max(1, batch or BATCH_NOTES))
    engine = open_engine(n_workers, cluster, batches=sum(
        1 for b in batches if any(it.spans is None for it in b)))
    keys = (f"{fingerprint}:{type(predictor_factory).__name__}", f"{fingerprint}:scan")
    # Batches are redacted and written in the workers (`_patients_task`),
    # but here, in order, when the memory is an object of this process or a
    # note's spans are adjusted by a person's decisions (a project's notes).
    source = memory_source(memory_path_or_factory, secret)
    setup = None if source is None else WorkerRedaction(
        policy, source, known, rules_fn, context.shapes, context.corpus, output)
    whole = [setup is not None and all(it.adjust is None for it in b) for b in batches]
    try:
        if items:
            _pipeline(batches, whole, setup, engine, predictor_factory, model_scan, keys,
                      context, cancel, outcomes, report)
    finally:
        engine.close()
        if engine.workers == 1 and not cluster:
            forget(("predict", keys[0]))
            forget(("scan", keys[1]))
            if source is not None:
                forget(("memory", source))
        memory.save()
        sweep_temp_files(out_dir)
        sync_folder(out_dir)
    if context.renamed_since:
        _compact_manifest(manifest_path)
    if not cancel.cancelled:
        unfinished.unlink(missing_ok=True)
    for outcome in outcomes:
        outcome.renamed = outcome.renamed or outcome.note in renamed_names
    summary = RedactionSummary(sorted(outcomes, key=lambda n: n.note), naming, spans_format,
                               engine.workers, time.perf_counter() - t0)
    if strict and leaky:
        err = LeakError(leaky)
        err.summary = summary  # type: ignore[attr-defined]
        raise err
    return summary


def _cut_batches(items: list[_Pending], size: int) -> list[list[_Pending]]:
    """``items`` in batches of at most ``size`` notes that each hold every
    note of their patients (a patient of more notes is a batch of its own):
    patients in the order of their first note, each one's notes in order."""
    patients: dict[str, list[_Pending]] = {}
    for it in items:
        patients.setdefault(it.patient, []).append(it)
    batches: list[list[_Pending]] = []
    for notes in patients.values():
        if batches and len(batches[-1]) + len(notes) <= size:
            batches[-1] += notes
        else:
            batches.append(list(notes))
    return batches


def _pipeline(batches: list[list[_Pending]], whole: list[bool], setup: WorkerRedaction | None,
              engine: Engine, factory: Callable[[], Any],
              model_scan: Callable[[], Any] | None, keys: tuple[str, str], ctx: "_Context",
              cancel: CancelToken, outcomes: list[NoteOutcome],
              report: Callable[[int], None]) -> None:
    """A ``whole`` batch: predict, redact, scan and write in one worker task
    (`_patients_task`) -> manifest (here). Any other: predict (workers) ->
    redact in order (here) -> scan (workers) -> write and manifest (here).

    Tasks run ahead by ``2 x workers`` batches; a batch's scan is sent as
    soon as it is redacted, ahead of the predictions (priority), and its
    notes are recorded (written, for the client's batches) as soon as it
    comes back, oldest batch first. A note counts as done once its manifest
    entry is appended: a cancel between notes leaves a worker's later notes
    written but unrecorded, so a re-run does them again.
    """
    ahead = max(2, 2 * engine.workers)
    # The model's doubts are read with the prediction, on the original text.
    doubt = getattr(model_scan, "threshold", None)
    # One predictor per worker predicts and scans when the scan's models are
    # the prediction's (`ModelScanFactory.predictor`): loaded once, not twice.
    shared = callable(getattr(model_scan, "predictor", None)) and model_scan.predictor() == factory
    scan_with = (factory, ("predict", keys[0])) if shared else (model_scan, ("scan", keys[1]))
    predicting: deque = deque()
    scanning: deque = deque()
    todo = iter(zip(batches, whole))
    # The known identifiers travel once to a cluster's workers, not with every task.
    shared_setup = engine.share(setup) if setup is not None and any(whole) else None

    def top_up() -> None:
        while len(predicting) < ahead:
            b, in_workers = next(todo, (None, False))
            if b is None:
                return
            if in_workers:
                fut = engine.submit(_patients_task, factory, keys, scan_with, shared, doubt,
                                    shared_setup, b)
                predicting.append((b, None, fut))
                continue
            need = [it for it in b if it.spans is None]
            fut = engine.submit(predict_task, factory, keys[0], [it.text for it in need],
                                [_patient_id(it.patient) for it in need], doubt) if need else None
            predicting.append((b, need, fut))

    def write_oldest() -> None:
        b, done, fut = scanning.popleft()
        entries: list[dict] = []
        try:
            if done is None:                       # redacted, scanned and written in a worker
                try:
                    done, written, drawn = fut.result()
                except CancelledError:
                    # A cluster dropped it with a killed worker: run it again
                    # (it is deterministic, so the output is the same).
                    done, written, drawn = engine.submit(
                        _patients_task, factory, keys, scan_with, shared, doubt,
                        engine.share(setup), b).result()
                for key, surrogate in drawn.items():
                    ctx.memory.put(*key, surrogate)
                entry_of = {e["output"]: e for e in written}
                for outcome in done:
                    cancel.check()
                    _record(outcome, entry_of.get(outcome.note), ctx, outcomes, entries)
                    report(1)
                return
            hits = iter(fut.result() if fut is not None else [])
            for d in done:
                cancel.check()
                if isinstance(d, NoteOutcome):
                    _record(d, None, ctx, outcomes, entries)
                else:
                    written = []
                    _record(_write_note(d[0], next(hits), ctx.output, written),
                            written[0] if written else None, ctx, outcomes, entries)
                report(1)
        finally:
            _append_manifest(ctx.manifest_path, entries)
            ctx.memory.flush()

    try:
        top_up()
        while predicting:
            cancel.check()
            b, need, fut = predicting.popleft()
            if need is None:
                scanning.append((b, None, fut))
            else:
                results = dict(zip((id(it) for it in need), fut.result())) \
                    if fut is not None else {}
                top_up()                           # the workers go on while this redacts
                done = _redact_batch(b, results, ctx)
                records = [d for d in done if not isinstance(d, NoteOutcome)]
                jobs = [ScanJob(r.result.text, r.replaced, r.names_replaced, h,
                                r.worded_replaced) for r, h in records]
                scan = engine.submit(_scan_task, scan_with[0], ctx.rules_fn, scan_with[1],
                                     jobs, ctx.shapes, ctx.corpus, shared,
                                     ctx.redactor.policy, priority=1) if records else None
                scanning.append((b, done, scan))
            top_up()
            while len(scanning) > engine.workers:
                write_oldest()
        while scanning:
            write_oldest()
    except BaseException:
        for _, _, fut in predicting:
            if fut is not None and hasattr(fut, "cancel"):
                fut.cancel()
        raise


def _record(outcome: NoteOutcome, entry: dict | None, ctx: "_Context",
            outcomes: list[NoteOutcome], entries: list[dict]) -> None:
    """Count a note's outcome and queue the manifest entry of a note written."""
    outcomes.append(outcome)
    if entry is not None:
        entries.append(entry)
        _drop_stale(ctx, entry)
    if outcome.status == "leak":
        ctx.leaky[outcome.note] = outcome.leaks


def _compact_manifest(path: Path) -> None:
    """Rewrite the manifest with each note's latest entry alone (whole or
    not at all): an older line named an output since renamed, a patient's
    name it may hold."""
    entries = _read_manifest(path)
    atomic_write(path, "".join(json.dumps(e, sort_keys=True) + "\n"
                               for e in entries.values()).encode("utf-8"), beside=True)


def _drop_stale(ctx: "_Context", entry: dict) -> None:
    """Remove what an earlier run wrote for this note under other names (it
    is named then renamed, or the other way): a resumed run had left the
    old output beside the new, a patient's name in clear in one of them."""
    old = ctx.previous.get(entry["key"]) or {}
    for part in ("output", "spans"):
        name = old.get(part)
        if isinstance(name, str) and name not in (entry.get("output"), entry.get("spans")):
            path = ctx.output.out_dir / name
            if ctx.output.out_dir in path.resolve().parents:   # never outside it (resolved)
                path.unlink(missing_ok=True)
                ctx.renamed_since = True


@dataclass
class _Context:
    """What every note of one run is finished with."""

    redactor: Redactor
    output: _Output
    manifest_path: Path
    known: KnownIdentifiers | None
    seen: KnownIdentifiers
    rules_fn: RulesFn | None
    leaky: dict[str, int]
    shapes: tuple[str, ...] = ()
    memory: BufferedMemory | None = None
    # Common words the scan never suspects alone: None for the shipped ones
    # (each worker has them), else the tables' own (sent with each batch).
    corpus: frozenset[str] | None = None
    # The manifest as the run found it: each note's earlier outputs, by key.
    previous: dict = field(default_factory=dict)
    # A note's output changed name: the manifest's older lines, naming the
    # old one, are dropped at the end of the run (`_compact_manifest`).
    renamed_since: bool = False

    @property
    def dismissed(self) -> frozenset[str]:
        return self.output.dismissed


@dataclass
class _Redacted:
    item: _Pending
    spans: list[Span]
    result: RedactionResult
    replaced: tuple[tuple[int, int], ...]
    names_replaced: tuple[tuple[int, int], ...]
    known: list[Leak]                     # known identifiers, as of this note's turn
    worded_replaced: tuple[tuple[int, int], ...] = ()
    # The spans a step after the model removed, each one's origin the step or rule.
    removed: list[Span] = field(default_factory=list)


def _redact_note(item: _Pending, raw_spans: Iterable[tuple], ctx: _Context,
                 removed: Iterable[tuple] = ()) -> "_Redacted | NoteOutcome":
    """Redact one note (in order: surrogate memory and the run's identifiers
    grow note by note); a note kept from an earlier run is done here.
    ``removed``: `span_rows` of the spans the steps after the model removed."""
    spans = spans_of(raw_spans, len(item.text))
    result = ctx.redactor.redact(item.text, spans, patient_key=item.patient)
    policy = ctx.redactor.policy
    for m in result.span_map:
        original = item.text[m.in_start:m.in_end]
        if result.text[m.out_start:m.out_end] != original:
            ctx.seen.add(item.patient, m.label, original,
                          name=policy.kind_for(m.label) == "name")
    if item.kept is not None:
        entry = item.kept
        listed = entry.get("suspicions", [])
        still = [sp for sp in listed if sp.get("id") not in ctx.dismissed]
        # Entries written before coincidences were recorded have none. The
        # note is where the earlier run wrote it (its spans may have renamed it).
        output = entry.get("output") or item.out_name
        return NoteOutcome(output, "resumed", "", entry.get("chars_in", 0),
                           entry.get("chars_out", 0), entry.get("labels", {}),
                           entry.get("strategies", {}), len(still), suspicions=still,
                           coincidences=entry.get("coincidences", 0),
                           made_by=entry.get("made_by", {}), kept_by=entry.get("kept_by", {}),
                           dismissed=entry.get("dismissed", 0) + len(listed) - len(still),
                           renamed=output != item.out_name)
    tables = (ctx.seen,) if ctx.known is None else (ctx.seen, ctx.known)
    replaced = tuple((m.out_start, m.out_end) for m in result.span_map)
    names = tuple((m.out_start, m.out_end) for m in result.span_map
                  if policy.kind_for(m.label) == "name")
    worded = tuple((m.out_start, m.out_end) for m in result.span_map
                   if policy.kind_for(m.label) in WORDED_KINDS)
    # The tables grow with every note: a note is searched for what was known
    # at its turn, as in one pass; the rest of the scan runs in a worker.
    return _Redacted(item, spans, result, replaced, names,
                     known_leaks(result.text, replaced=replaced, known=tables,
                                 patient=item.patient), worded, spans_of(removed, len(item.text)))


def _write_note(record: _Redacted, scanned: list[Leak], out: _Output,
                entries: list[dict]) -> NoteOutcome:
    """Finish the scan of a redacted note (the worker's part merged with the
    known identifiers), write it and its spans file (not synced), and add its
    manifest entry to ``entries``; in strict mode a note with a suspected
    leak is not written (its outcome says "leak")."""
    item, spans, result = record.item, record.spans, record.result
    found = merge_leaks(record.known + list(scanned))
    leaks = [lk for lk in found if not lk.in_replacement]
    back = offset_mapper(result.span_map, forward=False)
    suspicions = []
    for lk in leaks:
        a, b = back(lk.start), back(lk.end)
        sid = keyed_hex(out.secret, "suspicion", item.key, item.sha256, item.version,
                        str(a), str(b), lk.kind, length=16)
        suspicion = {"id": sid, "start": lk.start, "end": lk.end, "in_start": a,
                     "in_end": b, "kind": lk.kind, "category": lk.category}
        if lk.rule:
            suspicion["rule"] = lk.rule
        suspicions.append(suspicion)
    # A suspicion a person judged not a leak stays closed while the note is the same.
    kept_leaks = [lk for lk, sp in zip(leaks, suspicions) if sp["id"] not in out.dismissed]
    dismissed = len(suspicions) - len(kept_leaks)
    suspicions = [sp for sp in suspicions if sp["id"] not in out.dismissed]
    leaks = kept_leaks
    labels = result.label_counts()
    strategies: dict[str, int] = {}
    for m in result.span_map:
        strategies[m.strategy] = strategies.get(m.strategy, 0) + 1
    categories: dict[str, int] = {}
    for lk in leaks:
        categories[lk.category] = categories.get(lk.category, 0) + 1
    made_by: dict[str, int] = {}
    for s in spans:
        made_by[s.origin or NOT_NAMED] = made_by.get(s.origin or NOT_NAMED, 0) + 1
    kept_by = kept_counts(((s, s.origin or NOT_NAMED) for s in record.removed),
                          [(m.in_start, m.in_end) for m in result.span_map])
    outcome = NoteOutcome(item.out_name, "done", "", len(item.text), len(result.text),
                          labels, strategies, len(leaks), categories,
                          len(found) - len(leaks), redone=item.redo, suspicions=suspicions,
                          made_by=made_by, kept_by=kept_by, dismissed=dismissed)
    if item.out_name == item.rel and name_shows_spans(item.rel, item.text, spans):
        # The name was read before the note (`redact_notes`): one holding a
        # word the note's own spans replace takes its pseudonymous name too.
        item.out_name = outcome.note = output_name(item.rel, "pseudonymous", out.secret)
        outcome.renamed = True
        if out.strict:
            outcome.status, outcome.reason = "bad", NAME_HOLDS_IDENTIFIER
            return outcome
    if leaks and out.strict:
        outcome.status, outcome.reason = "leak", "suspected identifier leak; not exported"
        return outcome
    out_path = out.out_dir / item.out_name
    suffix, payload = _spans_payload(result, out.spans_format)
    spans_name = _stem(item.out_name) + suffix
    text_bytes = result.text.encode("utf-8")
    atomic_write(out_path, text_bytes, sync=False, beside=True)
    atomic_write(out.out_dir / spans_name, payload, sync=False, beside=True)
    used = [(s.start, s.end, s.label) for s in spans]
    entries.append({
        "key": item.key, "sha256": note_digest(out.secret, item.sha256), "version": item.version,
        "settings": out.fingerprint,
        "parts": dict(out.parts), "output": item.out_name, "spans": spans_name,
        "output_sha256": hashlib.sha256(text_bytes).hexdigest(),
        "spans_sha256": hashlib.sha256(payload).hexdigest(),
        "chars_in": len(item.text), "chars_out": len(result.text), "labels": labels,
        "strategies": strategies, "leaks": len(leaks), "suspicions": suspicions,
        "coincidences": outcome.coincidences, "made_by": made_by, "kept_by": kept_by,
        "dismissed": dismissed,
        "replay": _seal_spans(out.secret, _replay_nonce(item.key, item.sha256, out.fingerprint),
                              used)})
    return outcome
