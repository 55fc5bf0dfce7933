"""`deid annotate`: predicted spans for every note of a folder (brat or JSONL),
and pre-annotation of the project's own notes for the learning loop."""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from app.core.parallel import InProcess, forget, open_engine, resolve_workers
from app.core.progress import CancelToken, Cancelled, Progress, ProgressFn, no_progress
from app.core.spans import Document
from app.deid.folder import predict_task, spans_of
from app.errors import UserError
from app.core.words import count


@dataclass
class AnnotateSummary:
    notes: int = 0
    spans: int = 0
    chars: int = 0
    seconds: float = 0.0
    problems: list[tuple[str, str]] = field(default_factory=list)
    model: str = ""           # the candidate that predicted ("starter model" on day one)
    reason: str = ""          # why that one, when it is not the project's own (the starter)
    workers: int = 1          # processes (or cluster worker threads) that predicted


def _checked(results: list) -> list:
    """A batch's predictions; a note the model failed on stops the job (as before)."""
    for predicted in results:
        if predicted.error:
            raise (UserError if predicted.user_error else RuntimeError)(predicted.error)
    return results


def _brat_meta(meta: dict) -> dict:
    """``meta`` with the offset basis of the source file (see ``write_brat``)."""
    if meta.get("source_bom") and meta.get("source_encoding") == "utf-8":
        return {**meta, "offset_basis": "bom-counted"}
    return meta


def _outputs(src: Path, out: Path, files: list[Path], fmt: str) -> list[tuple[Path, Path]]:
    """What ``annotate_folder`` writes: ``(output, the note it holds or
    None)``, the note's copy beside its ``.ann`` for brat."""
    from app.formats.jsonl import JSONL_FILENAME

    if fmt == "jsonl":
        return [(out / JSONL_FILENAME, None)]
    pairs = []
    for path in files:
        base = out / path.relative_to(src).with_suffix("")
        pairs += [(base.with_name(base.name + ".ann"), None),
                  (base.with_name(base.name + ".txt"), path)]
    return pairs


def _existing_outputs(out: Path, outputs: list[tuple[Path, Path]]) -> list[Path]:
    """The files ``annotate_folder`` would replace that it cannot know it wrote.

    Every ``.ann`` (and the ``.jsonl``) counts: a human's annotations look
    like a model's. A ``.txt`` counts only when its bytes differ from the
    note's, since rewriting the same note loses nothing. What an earlier run
    claimed (`app.formats.written`; a run killed half-way) is its own.
    """
    from app.formats.written import paths_written

    owned = paths_written(out)
    found = []
    for target, note in outputs:
        if not target.exists() or target.relative_to(out).as_posix() in owned:
            continue
        try:
            if note is None or target.read_bytes() != note.read_bytes():
                found.append(target)
        except OSError:
            found.append(target)
    return found


def annotate_folder(project, in_dir, out_dir, *, fmt: str = "brat", batch: int = 32,
                    force: bool = False, patient_regex: str | None = None,
                    workers: int | None = None, cluster: str | None = None,
                    progress: ProgressFn = no_progress,
                    cancel: CancelToken | None = None) -> AnnotateSummary:
    """Predict every ``*.txt`` under ``in_dir``; write ``fmt`` files to ``out_dir``.

    brat output: ``OUT_DIR/<stem>.txt`` (the note as read, so offsets are
    true) and ``<stem>.ann`` with character offsets into it. A UTF-8 note
    with a byte-order mark keeps it, and its offsets count it as brat and
    MEDDOCAN do, so the ``.ann`` also fits the original file.

    Refused (``UserError``, nothing written) when ``out_dir`` is ``in_dir``,
    or when it already holds an ``.ann``/``.jsonl`` (or a different ``.txt``)
    this call would replace, unless ``force``: gold annotations beside the
    notes must never be overwritten by predictions unasked.

    ``patient_regex`` (default: the last one given to an import) names each
    note's patient from its file name, for the patient table of the
    project's hospital lists; with neither, a part of the file name that is
    a patient id of that table does.

    ``workers`` processes (default every core; a folder of one batch is
    done in this process) or the Dask scheduler ``cluster`` (an address or
    ``local:N``) predict batches of ``batch`` notes; this process writes.
    """
    from app.formats import ImportedDoc, read_path, write_documents
    from app.formats.base import iter_files, sweep_temp_files
    from app.formats.written import claim_paths
    from app.services.settings import PATIENT_REGEX, compile_patient_regex, note_path
    from app.services.lists import patient_namer
    from app.services.prediction import resolve

    patient_of = patient_namer(project, compile_patient_regex(
        patient_regex or project.get_setting(PATIENT_REGEX)))
    src = Path(in_dir)
    if not src.is_dir():
        raise UserError(f"input folder not found: {src}")
    if fmt not in ("brat", "jsonl"):
        raise UserError(f"unknown output format {fmt!r} (brat or jsonl)")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UserError(f"the output path is a file, not a folder: {out}")
    if out.resolve() == src.resolve():
        raise UserError("the output folder must differ from the input folder "
                        "(annotate would overwrite the notes' own .ann files)")
    files = list(iter_files(src, [".txt"]))
    outputs = _outputs(src, out, files, fmt)
    existing = [] if force else _existing_outputs(out, outputs)
    if existing:
        raise UserError(f"{out} already holds {count(len(existing), 'file')} annotate would replace "
                        f"(e.g. {existing[0].name}); choose an empty folder or pass --force")
    # The candidate that predicts (the starter model on day one); a project
    # with none is refused here, before anything is written.
    spec = resolve(project, untrained="error")
    summary = AnnotateSummary(model=spec.description, reason=spec.reason)
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    sweep_temp_files(out)          # what a killed run left there
    # Claimed before anything is written: a run killed half-way leaves files
    # the next run knows as its own, and replaces without --force.
    claim_paths(out, [target.relative_to(out).as_posix() for target, _ in outputs], force=True)
    if not project.readonly:
        project.checkpoint()       # workers open the file read-only
    factory = spec
    key = f"{project.path}:{spec.identity}"
    written: list[Document] = []
    # Notes written so far: the bar follows them, not the notes read (reading
    # runs ahead of the workers by a few batches).
    done = {"notes": 0}

    def batches():
        pending: list = []
        for item in read_path(src, "txt"):
            if cancel is not None:
                cancel.check()
            if isinstance(item, ImportedDoc):
                pending.append(item)
                summary.notes += 1
                summary.chars += len(item.text)
                if len(pending) >= batch:
                    yield pending
                    pending = []
            else:
                summary.problems.append((str(item.path), item.reason))
        if pending:
            yield pending

    def write(pending: list, spans: list) -> None:
        docs = [Document(d.name, d.text, spans_of(predicted.spans),
                         meta=_brat_meta(d.meta) if fmt == "brat" else d.meta)
                for d, predicted in zip(pending, spans)]
        if fmt == "brat":
            write_documents(docs, out, "brat")
        else:
            written.extend(docs)
        summary.spans += sum(len(d.spans) for d in docs)
        done["notes"] += len(docs)
        progress(Progress((done["notes"] + len(summary.problems)) / max(len(files), 1),
                          "annotate"))

    n_batches = -(-len(files) // max(1, batch))
    with open_engine(1 if cluster else resolve_workers(workers), cluster,
                     batches=n_batches) as engine:
        summary.workers = engine.workers
        ahead: deque = deque()
        try:
            for pending in batches():
                ahead.append((pending, engine.submit(
                    predict_task, factory, key, [d.text for d in pending],
                    [patient_of(note_path(d)) for d in pending])))
                while len(ahead) > 2 * engine.workers:
                    pending, fut = ahead.popleft()
                    write(pending, _checked(fut.result()))
            while ahead:
                if cancel is not None:
                    cancel.check()
                pending, fut = ahead.popleft()
                write(pending, _checked(fut.result()))
        finally:
            if isinstance(engine, InProcess):
                forget(("predict", key))
    if fmt == "jsonl":
        write_documents(written, out, "jsonl")
    summary.seconds = time.perf_counter() - t0
    if not project.readonly:
        project.log("annotate_folder", {"notes": summary.notes, "format": fmt})
    return summary


def preannotate(project, *, limit: int | None = None, only_unannotated: bool = True,
                doc_ids: list[int] | None = None,
                progress: ProgressFn = no_progress, cancel: CancelToken | None = None) -> int:
    """Store the active model's predictions as *suggested* spans and each
    note's member disagreement as its uncertainty; returns notes processed.
    What the model found is suggested as the model's, what the prediction's
    hospital lists and rules found as the rules' (`suggestion_source`): the
    prediction replaces both, the rules' day-one suggestions too, as the run
    keeps or drops each rule.

    With ``limit``, the notes processed are the first ``limit`` to-do notes
    of the annotation queue, most uncertain first (their uncertainty is
    computed again on the way, and the other to-do notes' forgotten, so
    Next to annotate takes the notes this model suggested on first); up to half
    of them, first, the notes the model in use found unlike the annotated
    ones (`app.services.familiarity.unlike_to_do`), whose uncertainty orders
    Next to annotate under Documents' filter of them.
    ``doc_ids`` restricts the work to those notes (the ones just imported).
    """
    from app.services.prediction import resolve
    from app.services.previewing import suggestion_source

    # The next notes of the annotation queue (most uncertain first): in
    # document order, notes keeping a day-one model's suggestions (and its
    # higher uncertainty) stayed at the queue's head after training.
    infos = _to_suggest(project, doc_ids, only_unannotated,
                        order="uncertainty" if limit is not None else "id")
    if limit is not None:
        from app.services.familiarity import unlike_to_do
        first = set(unlike_to_do(project)[:limit // 2]) if doc_ids is None else set()
        infos = ([i for i in infos if i.id in first] + [i for i in infos if i.id not in first]
                 )[:limit]
        if doc_ids is None:
            # The notes left out keep an older model's uncertainty (the
            # starter's reads higher than a trained model's): Next to annotate
            # took them before every note this model suggested on. Unscored,
            # they come after.
            project.clear_uncertainty(i.id for i in infos)
    predictor = resolve(project, all_members=True, untrained="error").load(project)
    try:
        for k in range(0, len(infos), 16):
            if cancel is not None:
                cancel.check()
            chunk = infos[k:k + 16]
            records = [project.document(i.id) for i in chunk]
            preds = predictor.predict([r.text for r in records],
                                      patients=[r.patient_id for r in records])
            with project.transaction():
                for info, p in zip(chunk, preds):
                    spans = undecided(project, info.id, p.spans)
                    project.replace_prediction(info.id, {
                        source: [s for s in spans if suggestion_source(s) == source]
                        for source in ("model", "rule")}, predictor.run_id)
                    project.set_document_fields(info.id, uncertainty=p.uncertainty)
                _suggested(project, [i.id for i in chunk])
            progress(_notes_done(k + len(chunk), len(infos), "predict"))
    finally:
        predictor.close()
    project.log("preannotate", {"notes": len(infos)})
    return len(infos)


def _notes_done(done: int, total: int, stage: str) -> Progress:
    """How far suggesting ``total`` notes is, in a person's words ("120 of
    1,913 notes": a big folder's suggestions take minutes, and the window
    says how many are left)."""
    return Progress(min(1.0, done / max(total, 1)), stage,
                    message=f"{done:,} of {total:,} notes")


def undecided(project, doc_id: int, spans: list) -> list:
    """``spans`` less those overlapping a span a person accepted: that text is
    decided. (A model trained on the note's accepted spans also re-finds them
    at full confidence, and "1.00" on a suggestion over a person's label
    misleads.) Blind notes keep every suggestion: each annotator decides alone."""
    if project.assignments(doc_id):
        return list(spans)
    accepted = project.span_records(doc_id, status="accepted")
    return [s for s in spans if not any(a.start < s.end and s.start < a.end for a in accepted)]


def _to_suggest(project, doc_ids: list[int] | None, only_unannotated: bool,
                order: str = "id") -> list:
    wanted = None if doc_ids is None else set(doc_ids)
    return [i for i in project.document_infos(order=order)
            if (wanted is None or i.id in wanted)
            and (not only_unannotated or i.status in ("todo", "in_progress"))]


#: Whose suggestions, in words, by ``PredictorSpec.kind``.
SUGGESTIONS_BY = {"model": "the model's", "starter": "the starter model's",
                  "rules": "the rules'"}


def suggest_rules(project, *, doc_ids: list[int] | None = None,
                  progress: ProgressFn = no_progress, cancel: CancelToken | None = None) -> int:
    """Store the rules' hits (phones, dates of birth, ids...) mapped onto the
    project's labels as *rule suggestions* of the to-do notes; returns notes
    processed. Works in a new project: with no trained run the rules use the
    preset mapping for the project's labels."""
    from app.services.prediction import resolve

    infos = _to_suggest(project, doc_ids, True)
    predictor = resolve(project, rules_only=True).load(project)
    try:
        for k in range(0, len(infos), 16):
            if cancel is not None:
                cancel.check()
            chunk = infos[k:k + 16]
            with project.transaction():
                for info in chunk:
                    spans = predictor.predict([project.document(info.id).text])[0].spans
                    project.replace_suggestions(info.id, undecided(project, info.id, spans),
                                                None, source="rule")
                _suggested(project, [i.id for i in chunk])
            progress(_notes_done(k + len(chunk), len(infos), "rules"))
    finally:
        predictor.close()
    project.log("suggest_rules", {"notes": len(infos)})
    return len(infos)


#: The notes whose suggestions a run began and did not finish (a killed
#: import): a project setting, so that the next run does them too.
SUGGESTIONS_PENDING = "suggestions_pending"


def pending_suggestions(project) -> list[int]:
    """Ids of the notes a killed run left without their suggestions."""
    return list(project.get_setting(SUGGESTIONS_PENDING) or [])


def _suggested(project, ids: list[int]) -> None:
    """Take ``ids`` off the pending notes (in the transaction that stored
    their suggestions: a kill leaves exactly the notes without theirs)."""
    waiting = project.get_setting(SUGGESTIONS_PENDING)
    if waiting:
        done = set(ids)
        project.set_setting(SUGGESTIONS_PENDING, [i for i in waiting if i not in done])


def suggest_new_notes(project, doc_ids: list[int], *, progress: ProgressFn = no_progress,
                      cancel: CancelToken | None = None,
                      stopped: Callable[[], bool] | None = None) -> tuple[str, int]:
    """Suggestions for notes just imported, so they arrive ready to review:
    the active model's predictions in a trained project, the starter model's
    in a new English one (`app.services.starter`), else the rules'.
    Returns ``(what suggested: "model", "starter" or "rules", notes processed)``.

    The notes are recorded as pending first, and each taken off as its
    suggestions are stored: after a kill, or a cancel that ``stopped`` says
    no person asked for (the project closed under them), the next call (the
    window opening the project, a re-run of the import) suggests for those
    left. A cancel a person asked for (``stopped`` true, or None) drops them."""
    ids = sorted(set(pending_suggestions(project)) | set(doc_ids))
    if not project.readonly:
        project.set_setting(SUGGESTIONS_PENDING, ids)
    try:
        from app.services.prediction import predicts_by
        source = predicts_by(project)
        if source != "rules":
            done = preannotate(project, doc_ids=ids, progress=progress, cancel=cancel)
        else:
            done = suggest_rules(project, doc_ids=ids, progress=progress, cancel=cancel)
    except Cancelled:
        if not project.readonly and (stopped is None or stopped()):
            project.set_setting(SUGGESTIONS_PENDING, [])    # a person stopped them
        raise
    if not project.readonly:
        project.set_setting(SUGGESTIONS_PENDING, [])
    return source, done
