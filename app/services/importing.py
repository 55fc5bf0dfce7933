"""Import notes and annotated documents into a project.

Each batch of documents is saved in one transaction, so a crash or a cancel
keeps whole documents only; re-running the import skips what is already in
(duplicates are recognised by the SHA-256 of the text) and goes on.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from app.core.progress import CancelToken, Progress, ProgressFn, no_progress
from app.core.words import count
from app.errors import UserError
from app.formats.errors import BadInputError
from app.services.settings import (PATIENT_REGEX, compile_patient_regex,  # noqa: F401
                                   guess_patient_regex, note_path, patient_id_from)

BATCH = 50


@dataclass
class ImportSummary:
    imported: int = 0
    duplicates: int = 0
    spans: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)   # (relative path, reason)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    labels_added: list[str] = field(default_factory=list)
    chars: int = 0
    seconds: float = 0.0
    #: Ids of the notes added (suggestions are made for these afterwards).
    doc_ids: list[int] = field(default_factory=list)
    #: Kinds the rules find in the project's notes that no label takes, in
    #: words with counts (``app.services.coverage.project_rule_gaps``).
    left_in_clear: list[str] = field(default_factory=list)
    #: Notes imported with no patient that the patient table's ids in their
    #: file names gave one (``app.services.lists.link_patients``).
    patients_from_table: int = 0
    #: The files' labels filed under another (``label_map``): spans by (file's, project's).
    labels_mapped: dict[tuple[str, str], int] = field(default_factory=dict)
    #: Notes already in the project that a file annotated (`known_note`):
    #: notes to do that got their annotations, and notes that got the
    #: importing annotator's own layer (double annotation).
    annotated: int = 0
    layer: int = 0
    #: The annotated spans those notes took (``spans`` counts the new notes').
    taken_spans: int = 0
    #: Duplicates under ``--annotator`` whose note holds annotations of no
    #: named annotator: not compared (`unnamed_sentence`).
    unnamed: int = 0
    #: (file's name, the project's note of the same text) for each duplicate
    #: skipped: shown beside the count ("10 duplicates skipped" said not which).
    duplicate_of: list[tuple[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"imported": self.imported, "duplicates": self.duplicates, "spans": self.spans,
                "problems": [{"path": p, "reason": r} for p, r in self.problems],
                "warnings": len(self.warnings), "labels_added": self.labels_added,
                "chars": self.chars, "seconds": round(self.seconds, 3),
                "left_in_clear": self.left_in_clear,
                "patients_from_table": self.patients_from_table,
                "labels_mapped": {f"{a}={b}": n for (a, b), n in self.labels_mapped.items()},
                "annotated": self.annotated, "layer": self.layer,
                "taken_spans": self.taken_spans}


SPLITS = ("train", "dev", "test")


def _unique_spans(doc, summary: "ImportSummary") -> list:
    """``doc.spans`` without exact repeats (same start, end and label): a
    tool that writes a span twice means it once."""
    seen: set = set()
    kept = []
    for span in doc.spans:
        if span.key not in seen:
            seen.add(span.key)
            kept.append(span)
    if len(kept) < len(doc.spans):
        summary.warnings.append((doc.name, f"{count(len(doc.spans) - len(kept), 'repeated span')}"
                                           " imported once"))
    overlapping, reach = 0, -1
    for span in sorted(kept, key=lambda s: (s.start, s.end)):
        overlapping += span.start < reach
        reach = max(reach, span.end)
    if overlapping:
        # Kept as the file has them: a redaction replaces overlapping spans
        # as one (their union), training keeps the longest of them.
        summary.warnings.append((doc.name, f"{count(overlapping, 'span')} overlapping another "
                                           f"(kept; check them in Annotate)"))
    return kept


#: How many documents `file_labels` reads: labels show in the first ones, and
#: a huge folder must not be read twice.
LABEL_SAMPLE = 500


def file_labels(path: str | Path, fmt: str = "auto", limit: int = LABEL_SAMPLE) -> list[str]:
    """The labels the annotations under ``path`` use (its first ``limit``
    documents), sorted; none for plain notes or what cannot be read (the
    import itself reports that)."""
    from app.formats import ImportedDoc, detect_format, read_path
    path = Path(path)
    found: set[str] = set()
    try:
        fmt = detect_format(path) if fmt == "auto" else fmt
        if fmt == "txt":
            return []
        for n, item in enumerate(read_path(path, fmt)):
            if n >= limit:
                break
            if isinstance(item, ImportedDoc):
                found.update(s.label for s in item.spans)
    except (ValueError, BadInputError, OSError):
        return []
    return sorted(found)


def suggested_label_map(project_labels: list[str], labels: list[str]) -> dict[str, str]:
    """For each of ``labels`` the project lacks, the project label of the
    same kind where one is plain: another label set's PERSON is a HIPAA
    project's NAME, its DOB a DATE, its PHONE a CONTACT (the kinds the
    starter model maps, `app.models.starter_model.label_map`)."""
    from app.models.starter_model import label_map
    kinds = label_map(project_labels)
    have = set(project_labels)
    return {label: kinds[label] for label in labels
            if label not in have and kinds.get(label) in have}


def narrowed_dates(label_map: dict[str, str]) -> list[str]:
    """A sentence for each of the files' labels for dates of birth only
    (`app.deid.coverage.birth_only`) that ``label_map`` files under a
    project label taking every date (DOB -> DATE): the files' other dates
    are not marked, so training reads them as no identifier and the model
    it selects leaves them in clear (the bundled sample's notes mark dates
    of birth only: a HIPAA project's export from them left the other dates
    in clear while its report said dates were protected)."""
    from app.deid.coverage import birth_only
    from app.deid.policy import default_kind

    return [f"{old} marks dates of birth only, and it is filed under {new}, which takes "
            f"every date: the notes' other dates are not marked, so a model trained on them "
            f"learns to leave dates in clear. Mark the other dates of the notes you annotate, "
            f"or file {old} under a label for dates of birth"
            for old, new in label_map.items()
            if birth_only(old) and not birth_only(new) and default_kind(new) == "date"]


def unmarked_labels(project) -> list[str]:
    """A sentence naming the project's labels that no accepted span marks,
    once the project holds some annotation: a model trained on these notes
    learns to leave what those labels take in clear, and the run's learned
    steps may drop the rules and the day-one spans of them (the bundled sample
    imported into a HIPAA project marks no AGE: its "99 Y/O" stayed in clear
    though the rule for ages over 89 was on). Empty when nothing is
    annotated or every label is used."""
    used = project.accepted_labels()
    unused = [label.name for label in project.labels() if label.name not in used]
    if not used or not unused:
        return []
    it, takes = ("it", "takes") if len(unused) == 1 else ("them", "take")
    return [f"No annotated note marks {' or '.join(unused)}: a model trained on these notes "
            f"learns to leave what {'it' if it == 'it' else 'they'} {takes} in clear, and may "
            f"drop the rules' and the day-one finds of {it}. Mark {it} where the notes hold "
            f"{it}, or remove the label{'s' if len(unused) > 1 else ''}"]


def parse_label_map(pairs: list[str], project_labels: list[str], path: str | Path,
                    fmt: str = "auto") -> dict[str, str]:
    """``--map`` of `deid import`: ``["PERSON=NAME", ...]``, or ``["auto"]`` for
    `suggested_label_map` of the labels under ``path`` (`file_labels`: read
    only then). A pair needs a label on each side."""
    if pairs == ["auto"]:
        return suggested_label_map(project_labels, file_labels(path, fmt))
    out = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise UserError(f"--map takes FILE_LABEL=PROJECT_LABEL pairs or auto, not {pair!r}")
        out[old.strip()] = new.strip()
    return out


def _count_files(path: Path) -> int:
    if path.is_file():
        return 1
    return sum(1 for p in path.rglob("*") if p.is_file() and p.suffix.lower() != ".ann") or 1


def unnamed_sentence(summary: "ImportSummary") -> str | None:
    """Why an annotator's files of notes annotated by no named annotator
    were skipped, once for all of them; None when none was."""
    if not summary.unnamed:
        return None
    return (f"{count(summary.unnamed, 'note')} in the project {'is' if summary.unnamed == 1 else 'are'} "
            "annotated by no named annotator: their annotations are kept and these files' are "
            "not (to compare two annotators, import both folders with --annotator into a new "
            "project)")


def duplicates_words(pairs: list[tuple[str, str]], shown: int = 3) -> str:
    """The first duplicates skipped, each with the note it repeats
    ("ward_01 (as P1_a), ward_02 (as P1_b) and 8 more")."""
    said = [f"{file} (as {note})" if file != note else file for file, note in pairs[:shown]]
    more = len(pairs) - shown
    return ", ".join(said) + (f" and {more} more" if more > 0 else "")


def known_note(project, text: str, spans, annotator: str | None, source: str,
               summary: ImportSummary) -> str | None:
    """Take a file's annotations of a note the project holds already (its
    text's): ``"annotated"`` when the note was still to do with no accepted
    span (imported plain, annotated in another tool, imported again): the
    annotations become its own, its suggestions go and it is done;
    ``"layer"`` when an ``annotator`` brings their own layer beside the named
    annotator(s) who annotated it: the note becomes double-annotated
    (assigned to each, done for each), the Agreement and Adjudicate views
    compare the layers and training reads their union until it is
    adjudicated (`Project.gold_spans`), so two brat folders of the same notes
    imported with ``--annotator A`` and ``--annotator B`` give A and B's
    agreement. None: a duplicate, nothing written (``annotator`` has a
    layer there already, said when it differs; the note is done or
    adjudicated; or its annotations name no annotator, counted in
    ``summary.unnamed``)."""
    from app.project import ADJUDICATED

    doc_id = project.document_of_text(text)
    info = project.document_infos(ids=[doc_id])[0]
    records = project.span_records(doc_id, status="accepted")
    named = {r.annotator for r in records if r.annotator}
    layers = named | set(project.assignments(doc_id))
    if not records and not layers and info.status in ("todo", "in_progress"):
        project.replace_prediction(doc_id, {"model": (), "rule": ()}, None)
        for span in spans:
            project.add_span(doc_id, span.start, span.end, span.label, source=source,
                             annotator=annotator)
        project.set_document_fields(doc_id, status="done")
        return "annotated"
    if annotator is None or ADJUDICATED in named:
        return None
    if annotator in layers:
        mine = {r.span.key for r in records if r.annotator == annotator}
        if mine != {(sp.start, sp.end, sp.label) for sp in spans}:
            # A corrected export of a layer the project holds: not merged unasked.
            summary.warnings.append((info.name, f"{annotator}'s annotations in the project "
                                                "differ from this file's: the project's are "
                                                "kept (edit them in the desktop app)"))
        return None
    if any(r.annotator is None for r in records) or not layers:
        summary.unnamed += 1                     # said once, not as a warning per note
        return None
    finished = info.status in ("done", "reviewed")
    for span in spans:
        project.add_span(doc_id, span.start, span.end, span.label, source="human",
                         annotator=annotator)
    for name in sorted(layers) + [annotator]:
        project.assign(doc_id, name)
        if finished or name == annotator:
            project.set_own_status(doc_id, name, "done")
    return "layer"


def import_path(project, path: str | Path, *, fmt: str = "auto", split: str | None = None,
                patient_regex: str | None = None, annotator: str | None = None,
                label_map: dict[str, str] | None = None,
                progress: ProgressFn = no_progress, cancel: CancelToken | None = None,
                suggest_after: bool = False) -> ImportSummary:
    """Import ``path`` (file or folder) into ``project``; bad files are listed, not fatal.

    ``label_map``: the files' labels filed under the project's (``{"PERSON":
    "NAME"}``); a label it does not name is kept, added to the project if new.
    ``suggest_after``: suggestions follow the import, so each batch's new
    notes to do are recorded as waiting for theirs with the batch: an
    import killed or stopped before them leaves them to the next
    suggestions (`app.services.annotating.suggest_new_notes`).
    """
    from app.formats import ImportedDoc, detect_format, read_path
    from app.formats.base import NameAllocator, printable_path, utf8_name

    path = Path(path)
    if not path.exists():
        raise UserError(f"no such file or folder: {path}")
    regex = compile_patient_regex(patient_regex)
    if regex is not None:
        # Remembered for the notes annotated later (their patient table entries).
        project.set_setting(PATIENT_REGEX, patient_regex)
    try:
        fmt = detect_format(path) if fmt == "auto" else fmt
    except ValueError as exc:
        raise UserError(str(exc)) from None
    except BadInputError as exc:
        raise UserError(f"{path}: {exc.reason} (txt, brat .txt/.ann, CoNLL, JSONL, "
                        "i2b2/MEDDOCAN .xml)") from None
    if split not in (None, "train", "dev", "test"):
        raise UserError(f"unknown split {split!r}")
    summary = ImportSummary()
    start = time.perf_counter()
    total = _count_files(path)
    known = {label.name for label in project.labels()}
    source = "human" if annotator else "import"
    if annotator is not None:
        given, annotator = annotator, annotator.strip()
        if not annotator or annotator.startswith("@"):
            # "@adjudicated" is the adjudicated gold's layer: taking it made a
            # file the gold of every note, adjudicated by no one.
            raise UserError(f"--annotator {given!r}: give a person's name or initials "
                            "(not blank, not starting with @)")
        project.add_annotator(annotator)
    batch: list = []
    seen = 0
    names = NameAllocator(info.name for info in project.document_infos())
    logged_warnings = [0]          # how many of summary.warnings the audit log holds

    def flush() -> None:
        if not batch:
            return
        if label_map:
            for d in batch:
                for s in d.spans:
                    if s.label in label_map:
                        key = (s.label, label_map[s.label])
                        summary.labels_mapped[key] = summary.labels_mapped.get(key, 0) + 1
                d.spans = [replace(s, label=label_map.get(s.label, s.label)) for s in d.spans]
        added_todo: list[int] = []
        with project.transaction():
            new_labels = sorted({s.label for d in batch for s in d.spans} - known)
            if new_labels:
                project.ensure_labels(new_labels)
                known.update(new_labels)
                summary.labels_added += new_labels
            for doc in batch:
                # Annotation formats carry a person's judgement: such notes
                # are done (even with no span: a PII-free note is a label too).
                annotated = fmt in ("conll", "jsonl", "i2b2") or bool(doc.meta.pop("annotated", False))
                # A file's own patient and split (JSONL fields, as our export
                # writes them) unless the command names them.
                own_patient, own_split = doc.meta.pop("patient_id", None), doc.meta.pop("split", None)
                patient = patient_id_from(note_path(doc), regex) if regex else own_patient
                doc_split = split or (own_split if own_split in SPLITS else None)
                spans = _unique_spans(doc, summary)
                if annotator and annotated and doc.name in names and \
                        project.document_of_text(doc.text) is None:
                    # Another annotator's copy of a note whose text differs (an edit, a
                    # character): a near-copy beside the note would be trained on
                    # and exported, and compared with no one.
                    summary.problems.append((where(doc.source_path),
                                             "its text differs from the project's note of that "
                                             "name: annotations are compared only on the same "
                                             "text (not imported)"))
                    # Its reading warnings went with it (counted, they read as notes imported).
                    summary.warnings = [w for w in summary.warnings if w[0] != doc.name]
                    continue
                name = names.allocate(doc.name)
                if name != doc.name:
                    doc.meta["source_name"] = doc.name
                doc_id = project.add_document(
                    name, doc.text, source_path=str(doc.source_path),
                    status="done" if annotated else "todo",
                    patient_id=None if patient is None else str(patient), split=doc_split,
                    meta=doc.meta or None, spans=spans, span_source=source,
                    annotator=annotator)
                if doc_id is None:
                    names.release(name)
                    took = annotated and known_note(project, doc.text, spans, annotator,
                                                    source, summary)
                    if took:
                        setattr(summary, took, getattr(summary, took) + 1)
                        summary.taken_spans += len(spans)
                    else:
                        summary.duplicates += 1
                        same = project.document_of_text(doc.text)
                        summary.duplicate_of.append(
                            (doc.name, project.document_infos(ids=[same])[0].name))
                else:
                    if name != doc.name:
                        summary.warnings.append((name, "renamed: the name repeats another "
                                                       "document's or cannot be a file name"))
                    summary.imported += 1
                    summary.doc_ids.append(doc_id)
                    if not annotated:
                        added_todo.append(doc_id)
                    summary.spans += len(spans)
                    summary.chars += len(doc.text)
            if suggest_after and added_todo:
                from app.services.annotating import SUGGESTIONS_PENDING
                waiting = project.get_setting(SUGGESTIONS_PENDING) or []
                project.set_setting(SUGGESTIONS_PENDING, [*waiting, *added_todo])
            project.log("import", {"documents": len(batch), "format": fmt, "split": split,
                                   **({"label_map": label_map} if label_map else {})})
            # The summary sends the user here for the details; warnings name
            # documents and problems, never note text.
            warned = [[name, w] for name, w in summary.warnings[logged_warnings[0]:]]
            if warned:
                project.log("import_warnings", {"warnings": warned})
                logged_warnings[0] = len(summary.warnings)
        batch.clear()

    def where(file) -> str:
        """A file as the summary names it: its path within the folder imported."""
        try:
            return printable_path(Path(file).relative_to(path) if path.is_dir() else Path(file).name)
        except ValueError:                      # a link's target outside the folder
            return printable_path(file)

    try:
        for item in read_path(path, fmt):
            seen += 1
            if cancel is not None:
                cancel.check()
            if isinstance(item, ImportedDoc) and not (utf8_name(item.name)
                                                      and utf8_name(str(item.source_path))):
                summary.problems.append((where(item.source_path),
                                         "file name is not valid UTF-8 (rename the file)"))
            elif isinstance(item, ImportedDoc) and not utf8_name(item.text):
                summary.problems.append((where(item.source_path),
                                         "text holds invalid Unicode (a lone surrogate)"))
            elif isinstance(item, ImportedDoc):
                for w in item.warnings:
                    summary.warnings.append((item.name, w))
                batch.append(item)
                if len(batch) >= BATCH:
                    flush()
            else:
                summary.problems.append((where(item.path), item.reason))
            progress(Progress(min(1.0, seen / total), "import",
                              message=f"{summary.imported + len(batch)} documents"))
        flush()
    except (ValueError, BadInputError) as exc:           # unknown format, unreadable root
        raise UserError(str(exc)) from None
    if summary.doc_ids and regex is None:
        from app.services.lists import link_patients
        with project.transaction():
            summary.patients_from_table = link_patients(project, summary.doc_ids)
    if summary.imported:
        from app.services.coverage import project_rule_gaps
        summary.left_in_clear = [gap.sentence for gap in project_rule_gaps(project)] \
            + narrowed_dates({a: b for (a, b), n in summary.labels_mapped.items() if n}) \
            + (unmarked_labels(project) if summary.spans else [])
    summary.seconds = time.perf_counter() - start
    progress(Progress(1.0, "import", message=f"{summary.imported} documents"))
    return summary
