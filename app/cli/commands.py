"""Handlers of the `deid` sub-commands: parse-free glue over app.services."""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path

from app.cli.progress import TerminalProgress
from app.errors import UserError
from app.core.words import count


def _print(*a) -> None:
    print(*a, flush=True)


@contextmanager
def open_project(path: str, readonly: bool = False, *, fall_back_to_readonly: bool = False):
    """The project open for the command.

    ``fall_back_to_readonly``: for commands that only read (evaluate,
    export, annotate), a project another process is writing, or a file that
    cannot be written here, is opened read-only instead of refused; the
    command then leaves no trace in its audit log, and says so.
    """
    from app.project import Project, ProjectError, ProjectLockedError, ProjectNotWritableError
    p = Path(path)
    if not p.exists():
        raise UserError(f"no such project file: {p}")
    try:
        project = Project.open(p, readonly=readonly)
    except ProjectError as exc:
        if not (fall_back_to_readonly
                and isinstance(exc, (ProjectLockedError, ProjectNotWritableError))):
            # What to do depends on the command: this one changes the project
            # (one that only reads opened it read-only instead, below).
            advice = ("; close it there first: this command changes the project"
                      if isinstance(exc, ProjectLockedError) else
                      "; copy it somewhere writable: this command changes the project"
                      if isinstance(exc, ProjectNotWritableError) else "")
            raise UserError(f"{exc}{advice}") from None
        try:
            project = Project.open(p, readonly=True)
        except ProjectError as again:
            raise UserError(str(again)) from None
        reason = ("another process is writing it" if isinstance(exc, ProjectLockedError)
                  else "it cannot be written here")
        print(f"deid: opened {p.name} read-only ({reason}); this run is not recorded in its "
              "audit log", file=sys.stderr)
    if project.interrupted_runs:
        ids = ", ".join(map(str, project.interrupted_runs))
        print(f"deid: run {ids} of {p.name} was interrupted (the process running it ended "
              f"before it finished)" + ("" if project.readonly else "; marked cancelled"),
              file=sys.stderr)
    try:
        yield project
    finally:
        project.close()
        if project.saves_in_wal:
            print(f"deid: warning: another program is reading {p.name}, so its last saves are "
                  f"still in {p.name}-wal beside it: copy or move the project only once that "
                  f"program has closed it (or use Save a copy in the app)", file=sys.stderr)


def cmd_new(args) -> int:
    from app.core.labels import default_preset, preset_or_file
    from app.project import Project, ProjectError
    try:
        labels = preset_or_file(args.labels or default_preset(args.language))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    path = Path(args.project)
    if path.exists():
        raise UserError(f"{path} already exists (choose another name or delete it first)")
    if not path.parent.exists():
        raise UserError(f"folder does not exist: {path.parent}")
    try:
        settings = {}
        if args.locale:
            from app.services.settings import locale_policy
            settings = locale_policy(args.locale)
        Project.create(path, labels, language=args.language, settings=settings).close()
    except ProjectError as exc:
        raise UserError(str(exc)) from None
    _print(f"created {path} with {len(labels)} labels: {', '.join(l.name for l in labels) or '(none yet)'}")
    if labels:
        from app.services.coverage import labels_coverage
        for line in labels_coverage(labels)[2]:
            _print(line)
    return 0


def print_import_summary(s) -> None:
    from app.services.importing import duplicates_words
    _print(f"imported {count(s.imported, 'document')} ({count(s.spans, 'annotated span')}, "
           f"{count(s.chars, 'character')}) in {s.seconds:.1f} s; "
           f"{count(s.duplicates, 'duplicate')} skipped; "
           f"{count(len(s.problems), 'file')} skipped")
    from app.services.importing import unnamed_sentence
    if said := unnamed_sentence(s):
        _print(said)
    if s.duplicate_of:
        _print("skipped as duplicates (each the text of a note the project holds): "
               + duplicates_words(s.duplicate_of))
    if s.annotated or s.layer:
        _print(f"{count(s.taken_spans, 'annotated span')} went to notes the project holds:")
    if s.annotated:
        _print(f"  {count(s.annotated, 'note')} to do took the files' annotations and "
               f"{'is' if s.annotated == 1 else 'are'} done")
    if s.layer:
        _print(f"  {count(s.layer, 'note')} already annotated got this annotator's "
               "annotations as their own layer (double annotation: compare them in the "
               "desktop app's Agreement view)")
    if s.labels_mapped:
        _print("labels filed under the project's: " + ", ".join(
            f"{old} -> {new} ({count(n, 'span')})" for (old, new), n in s.labels_mapped.items()))
    if s.labels_added:
        _print(f"labels added: {', '.join(s.labels_added)}")
    if s.patients_from_table:
        _print(f"{s.patients_from_table} notes have the patient that their file name names "
               f"(an id of the patient table)")
    for path, reason in s.problems[:50]:
        _print(f"  skipped {path}: {reason}")
    if len(s.problems) > 50:
        _print(f"  ... and {len(s.problems) - 50} more")
    if s.warnings:
        # As the desktop app's import summary lists them (they are in the
        # project's audit log too, which no command prints).
        _print(f"{count(len(s.warnings), 'note')} read with a warning:")
        for name, warning in s.warnings[:SHOWN_WARNINGS]:
            _print(f"  {name}: {warning}")
        if len(s.warnings) > SHOWN_WARNINGS:
            _print(f"  ... and {len(s.warnings) - SHOWN_WARNINGS} more")
    for sentence in s.left_in_clear:
        _print(f"warning: {sentence}")


#: Import warnings listed one by one; the rest are counted.
SHOWN_WARNINGS = 20


def cmd_import(args) -> int:
    """Import, then (as the desktop app does) suggest labels for the new notes to do."""
    from app.services.annotating import SUGGESTIONS_BY, pending_suggestions, suggest_new_notes
    from app.services.importing import import_path, parse_label_map, suggested_label_map
    bar = TerminalProgress(quiet=args.quiet)
    with open_project(args.project) as project:
        project_labels = [label.name for label in project.labels()]
        mapping = parse_label_map(args.label_map, project_labels, args.path, args.format) \
            if args.label_map else None
        s = import_path(project, args.path, fmt=args.format, split=args.split,
                        patient_regex=args.patient_regex, annotator=args.annotator,
                        label_map=mapping, progress=bar, suggest_after=not args.no_suggest)
        print_import_summary(s)
        unmapped = suggested_label_map(project_labels, s.labels_added)
        if unmapped and not args.label_map:
            _print("  the notes' " + ", ".join(unmapped) + " are kinds the project has labels for ("
                   + ", ".join(dict.fromkeys(unmapped.values())) + "): an import with --map auto "
                   "files them there (" + " ".join(f"{a}={b}" for a, b in unmapped.items())
                   + "); notes already in the project keep theirs")
        # Also the notes a killed run left without suggestions (their import
        # now reads as duplicates).
        if (s.doc_ids or pending_suggestions(project)) and not args.no_suggest:
            source, n = suggest_new_notes(project, s.doc_ids,
                                          progress=TerminalProgress(quiet=args.quiet))
            if n:
                # New notes and any an earlier, killed import left waiting.
                _print(f"{count(n, 'note')} to do now {'has' if n == 1 else 'have'} "
                       f"{SUGGESTIONS_BY[source]} suggestions to review")
    return 0


def cmd_export(args) -> int:
    from app.services.exporting import export_project
    if args.format == "redacted":
        return _export_redacted(args)
    with open_project(args.project, args.read_only, fall_back_to_readonly=True) as project:
        s = export_project(project, args.out_dir, args.format, split=args.split,
                           include_suggestions=args.include_suggestions,
                           progress=TerminalProgress(quiet=args.quiet), force=args.force)
    _print(f"exported {s.documents} documents ({s.spans} spans) as {args.format} to {s.out_dir}")
    if s.renamed:
        _print(f"{s.renamed} documents written under another name (theirs repeat another's or "
               "cannot be a file name on every system)")
    return 0


def _export_redacted(args) -> int:
    """``deid export P OUT --format redacted``: the project's documents,
    de-identified straight from the store (what the preview shows)."""
    from app.deid import LeakError
    from app.services.exporting import ExportRequest, export_documents
    from app.services.redaction import dismiss_suspicions
    request = ExportRequest(Path(args.out_dir), "split" if args.split else "all", args.split,
                            naming=args.naming, strategy=args.strategy,
                            rules_only=args.rules_only, strict=args.strict, report=args.report,
                            scan_threshold=args.scan_threshold, force=args.force)
    with open_project(args.project) as project:
        dismiss_suspicions(project, args.dismiss, listed_in=args.out_dir)
        try:          # the export wizard's job: the same notes, policy and report
            outcome = export_documents(project, request,
                                       progress=TerminalProgress(quiet=args.quiet))
        except LeakError as exc:
            raise UserError(f"leak re-scan failed in strict mode: {exc}") from None
    _print_redaction(outcome.summary, args.out_dir, outcome.report_json)
    return 0


def cmd_audit(args) -> int:
    from app.services.auditing import REVIEW_FILE, finish_audit, start_audit
    from app.services.export_reports import audit_report_path
    with open_project(args.project) as project:
        if args.finish:
            r = finish_audit(project, args.folder, reviewer=args.reviewer or "",
                             review_file=args.review)
            _print(f"reviewed by {r['reviewer']} on {r['reviewed_at']}")
            _print(r["notes_sentence"])
            _print(r["identifiers_sentence"])
            from app.deid.audit import disagreement_sentence
            if said := disagreement_sentence(r.get("scan_disagrees")):
                _print(said)
            _print(f"written to the audit report {audit_report_path(project, args.folder)}")
            return 0
        audit = start_audit(project, args.folder, notes=args.notes, max_rate=args.max_rate,
                            seed=args.seed, force=args.force)
    _print(f"drew {len(audit['sample'])} of {audit['notes_in_export']} notes (seed {audit['seed']}); "
           f"review each and fill {Path(args.folder) / REVIEW_FILE}, then run with --finish")
    return 0


def cmd_doctor(args) -> int:
    from app.services.doctor import run_doctor
    rep = run_doctor()
    _print(rep.render())
    return 0 if rep.ok else 1


def cmd_synth(args) -> int:
    from app.synth import generate
    from app.formats import write_documents
    out = Path(args.out_dir)
    docs = generate(args.n, seed=args.seed, locale=args.locale, label_set=args.labels,
                    style=args.style)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot write into {out}: {exc.strerror or exc}") from None
    write_documents(docs, out, "brat")
    _print(f"wrote {len(docs)} synthetic notes to {out}")
    return 0


def cmd_lists(args) -> int:
    from app.services.lists import add_list_file, remove_list, show_lists
    with open_project(args.project, fall_back_to_readonly=args.lists_action == "show") as project:
        if args.lists_action == "add":
            s = add_list_file(project, args.file, args.kind, args.map)
            for line in (s.sentence(), *_stale_suggestions(project, args.project)):
                _print(line)
        elif args.lists_action == "remove":
            _print(f"{args.kind}: removed {count(remove_list(project, args.kind), 'entry', 'entries')}")
            for line in _stale_suggestions(project, args.project):
                _print(line)
        else:
            for line in show_lists(project):
                _print(line)
    return 0


def _stale_suggestions(project, project_arg: str) -> list[str]:
    """After a change of the lists or the rules: the notes to do keep the
    suggestions made before it (the desktop app suggests them again; here
    that is one command away, as it may take a while)."""
    todo = sum(1 for i in project.document_infos() if i.status in ("todo", "in_progress"))
    if not todo:
        return []
    return [f"{count(todo, 'note')} to do {'keeps' if todo == 1 else 'keep'} the suggestions "
            f"made before this change: `deid preannotate {project_arg}` suggests "
            f"{'it' if todo == 1 else 'them'} again with it"]


def cmd_rules(args) -> int:
    from app.rules import registry
    with open_project(args.project,
                      fall_back_to_readonly=args.rules_action in ("list", "show", "export")
                      ) as project:
        labels = [label.name for label in project.labels()]
        if args.rules_action == "list":
            lines = [f"The shipped rules are read from {registry.shipped_path()} (the same for "
                     f"every project); this project's switches and own rules are kept in it.",
                     *registry.rule_lines(registry.project_rules(project), labels), "",
                     registry.RECOGNISER]
            if project.language != "en":
                lines.append(f"(these rules run on English notes; this project's are "
                             f"{project.language!r})")
            else:
                from app.models.starter_model import mapping_lines
                lines += ["", "What the starter model finds, in this project's labels:",
                          *(f"  {line}" for line in mapping_lines(labels))]
        elif args.rules_action == "show":
            lines = registry.rule_detail(registry.project_rules(project).get(args.name), labels)
        elif args.rules_action == "add":
            entries = registry.read_site_rules(args.file)
            replaced = registry.replacing(project, entries) if args.replace else []
            names = registry.add_rules(project, entries, replace=args.replace)
            lines = [f"added {count(len(names), 'rule')}: {', '.join(names)}"
                     + (f" (replacing yours of the same name: {', '.join(replaced)})"
                        if replaced else ""),
                     *registry.without_label(entries, labels),
                     *_stale_suggestions(project, args.project)]
        elif args.rules_action == "remove":
            names = registry.remove_rules(project, args.name)
            lines = [f"removed {count(len(names), 'rule')}: {', '.join(names)}",
                     *_stale_suggestions(project, args.project)]
        elif args.rules_action == "export":
            names = registry.write_site_rules(project, args.file)
            lines = [f"wrote {count(len(names), 'rule')} of this project's own to "
                     f"{Path(args.file).name}: {', '.join(names)} (another project adds them "
                     f"with `deid rules PROJECT add {Path(args.file).name}`)"]
        else:
            on = args.rules_action == "on"
            if registry.project_rules(project).get(args.name).enabled == on:
                lines = [f"{args.name}: {'on' if on else 'off'} for this project already"]
            else:
                rule = registry.set_enabled(project, args.name, on)
                lines = [f"{rule.name}: {'on' if rule.enabled else 'off'} for this project",
                         *_stale_suggestions(project, args.project)]
    for line in lines:
        _print(line)
    return 0


def cmd_demo(args) -> int:
    from app.services.demo import run_demo
    run_demo(Path(args.out_dir), progress=TerminalProgress(quiet=args.quiet), echo=_print)
    return 0


def _not_json_serialisable(o):
    raise TypeError(type(o).__name__)


def write_json(path: str, data: dict) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=_not_json_serialisable),
                   encoding="utf-8")
    tmp.replace(p)


def _groups(specs: list[str]) -> dict[str, list[str]]:
    """``NAME=MODEL,MODEL,...`` options as TrainConfig.groups."""
    groups: dict[str, list[str]] = {}
    for spec in specs:
        name, eq, models = spec.partition("=")
        entries = [m.strip() for m in models.split(",") if m.strip()]
        if not eq or not name.strip() or not entries:
            raise UserError(f"--group {spec!r}: write NAME=MODEL,MODEL,... (e.g. fast=spacy,crf,rules)")
        if name.strip() in groups:
            raise UserError(f"--group {name.strip()!r} is given twice")
        groups[name.strip()] = entries
    return groups


def cmd_train(args) -> int:
    from app.services.choice import plain_choice
    from app.services.evaluating import dev_sample_note
    from app.services.finishing import finishing_summary
    from app.services.runs import active_run_id
    from app.services.schema import config_from
    from app.services.training import cost_notes, reusable_models, train_project
    # The options are named as TrainConfig's fields; what is not given keeps its default.
    cfg = config_from({**vars(args), "groups": _groups(args.group)})
    bar = TerminalProgress(quiet=args.quiet)
    with open_project(args.project) as project:
        if args.reuse_members and not args.models:
            cfg.models = reusable_models(project) or cfg.models   # the last run's kinds
        for note in cost_notes(cfg, chars=project.annotated_characters()):
            _print(note)
        from app.services.coverage import unmarked_sentences
        warned = unmarked_sentences(project)
        for note in warned:
            _print(f"warning: {note}")
        r = train_project(project, cfg, progress=bar)
        used = active_run_id(project) == r.id
        todo = sum(project.count_documents(status=status) for status in ("todo", "in_progress"))
    # The plain sentence first (issue 34 item 13); the experts' names and figures after it.
    _print(plain_choice(r, used=used))
    for note in ([r.device_note] if r.device_note else []) + r.notes:
        if note not in warned:                  # said before the run
            _print(note)
    small = dev_sample_note(r)                  # the same warning as the Train view's
    if small:
        _print(small)
    reused = sum(m.reused_from is not None for m in r.members.values())
    _print(f"models: {', '.join(r.train_config().models)}")
    _print(f"trained {len(r.members) - reused} base models"
           + (f" (and reused {reused})" if reused else "")
           + f" and {len(r.ensembles)} ensembles on {r.device} in {r.seconds:.0f} s (run {r.id})")
    _print(f"details: {r.selected} — {r.reason}")
    for line in finishing_summary(r):
        _print(line)
    _print("")
    _print(f"{'candidate (dev)':<28} {'strict P':>8} {'R':>6} {'F1':>6}  {'token P':>7} {'R':>6}")
    for row in r.rows:
        tok = row["token"]
        _print(f"{row['name']:<28} {row['precision']:8.3f} {row['recall']:6.3f} {row['f1']:6.3f}"
               f"  {tok['precision']:7.3f} {tok['recall']:6.3f}")
    if used and todo:
        # The window refreshes them itself; a script decides for itself when to.
        _print(f"\n{count(todo, 'note')} to do, with the earlier model's suggestions: "
               f"`deid preannotate {args.project} --limit 50` gives the next 50 in the queue "
               "this model's")
    return 0


def cmd_split(args) -> int:
    from app.services.splits import assign_splits
    with open_project(args.project) as project:
        try:
            counts = assign_splits(project, dev=args.dev, test=args.test, seed=args.seed)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    if not sum(counts.values()):
        _print("every note already has a split: nothing changed")
        return 0
    _print(f"split {count(sum(counts.values()), 'note')} by patient: {counts['train']} train, "
           f"{counts['dev']} dev, {counts['test']} test")
    _print("train again (`deid train`) so that the test notes are held out, then `deid evaluate`")
    return 0


def cmd_evaluate(args) -> int:
    from app.services.choice import model_namer
    from app.services.evaluating import RAW, evaluate_project, render_table
    from app.services.finishing import describe_rules
    from app.services.runs import active_run
    with open_project(args.project, args.read_only, fall_back_to_readonly=True) as project:
        res = evaluate_project(project, split=args.split, model=args.model,
                               progress=TerminalProgress(quiet=args.quiet))
        makers = res.false_hits_by_maker(model_namer(project))
        refitted = sorted(name for name, m in active_run(project, res.run_id).members.items()
                          if m.refit) if res.run_id is not None else []
    _print(f"model {res.model} (run {res.run_id}) on the {res.split} split")
    for warning in res.warnings:
        _print(f"warning: {warning}")
    if refitted and res.split in ("train", "dev"):
        # A walkthrough read dev figures of 1.000 without a word of why.
        _print(f"warning: {', '.join(refitted)} learned from the {res.split} notes too (refitted "
               f"on train + dev after the selection): these figures are on notes the model "
               f"learned from; the run's dev figures, before the refit, are in the Train view")
    if res.selection.get("reason"):
        _print(f"selected on dev: {res.selection['reason']}")
    if res.filled:
        _print(f"where it found nothing, it takes {describe_rules(res.filled)}")
    if res.propagated:
        _print(f"its predicted strings of {', '.join(res.propagated)} are tagged wherever they "
               f"recur in a note")
    if res.filled or res.propagated:
        _print("(learned on dev)")
    if any(row.get("name") == res.model + RAW for row in res.table or ()):
        # It is the model's own spans: the tagging above was blamed for a
        # gap the starter's floor made.
        _print(f"the row \"{res.model}{RAW}\" is the model's own spans: without its finishing "
               f"steps, the rules' fixed steps, the hospital lists or what the starter model "
               f"replaced on day one")
    _print(res.report.render())
    if res.misses:
        visible, beyond = res.visible_misses()
        _print(f"of the {len(res.misses)} identifiers not found exactly, {visible} leave a word "
               f"visible; no other candidate finds {beyond} of them (annotate more notes like "
               f"those); the rest are hidden under another label or with other edges")
    if makers:
        said = "; ".join(f"{maker} {n}" for maker, n in makers)
        _print(f"the {len(res.made_by)} false hits (exactly) by what made them: {said}")
    if res.together:
        t = res.together
        _print(f"every candidate together hides {t['token_recall']:.4f} of the identifier "
               f"tokens (precision {t['token_precision']:.4f}): no choice among them hides more")
    if res.table:
        _print("")
        _print(f"every candidate on {res.split} (* = selected on dev):")
        _print(render_table(res.table, res.model))
    if args.json_path:
        write_json(args.json_path, res.to_dict())
        _print(f"JSON report: {args.json_path}")
    return 0


def cmd_annotate(args) -> int:
    from app.services.annotating import annotate_folder
    with open_project(args.project, args.read_only, fall_back_to_readonly=True) as project:
        s = annotate_folder(project, args.in_dir, args.out_dir, fmt=args.format,
                            force=args.force, patient_regex=args.patient_regex,
                            workers=args.workers, cluster=args.cluster,
                            progress=TerminalProgress(quiet=args.quiet))
    rate = s.chars / s.seconds if s.seconds else 0
    _print(f"annotated {s.notes} notes ({s.spans} spans) in {s.seconds:.1f} s "
           f"({rate:,.0f} characters/s) -> {args.out_dir}")
    if s.reason:                         # the starter model: why it predicts
        _print(f"model: {s.model} ({s.reason})")
    for path, reason in s.problems:
        _print(f"  skipped {path}: {reason}")
    return 0


def cmd_preannotate(args) -> int:
    from app.services.annotating import SUGGESTIONS_BY, suggest_new_notes
    if args.limit is not None and args.limit < 1:
        raise UserError("--limit must be at least 1")
    with open_project(args.project) as project:
        todo = [i.id for i in project.document_infos() if i.status in ("todo", "in_progress")]
        source, n = suggest_new_notes(project, todo[:args.limit] if args.limit else todo,
                                      progress=TerminalProgress(quiet=args.quiet))
    _print(f"{count(n, 'note')} to do now {'has' if n == 1 else 'have'} {SUGGESTIONS_BY[source]} "
           f"suggestions to review")
    return 0


#: Suspected notes listed one by one; the rest are counted.
SHOWN_SUSPECTS = 10


def _print_redaction(summary, out_dir, report_path) -> None:
    """What ``redact`` and ``export --format redacted`` say when done."""
    counts = {s: summary.count(s) for s in ("done", "resumed", "bad", "leak", "failed")}
    chars = sum(n.chars_in for n in summary.notes if n.status == "done")
    rate = chars / summary.elapsed_s if summary.elapsed_s else 0
    _print(f"redacted {count(counts['done'], 'note')} ({rate:,.0f} characters/s) to {out_dir}; "
           f"{counts['resumed']} already done, {counts['bad']} unreadable, {counts['failed']} failed")
    for reason, n in summary.redone().items():
        _print(f"  {count(n, 'note')} written before {'was' if n == 1 else 'were'} redone: {reason}")
    renamed = sum(1 for n in summary.notes if n.renamed and n.status != "bad")
    if renamed:
        _print(f"  {count(renamed, 'note')} whose file name holds an identifier "
               f"{'was' if renamed == 1 else 'were'} written under a pseudonymous name "
               "(note-<code>.txt)")
    for n in summary.notes:
        if n.status in ("bad", "failed"):
            _print(f"  skipped {n.note}: {n.reason}")
    from app.deid.rescan import strength
    # The notes with the strongest suspicion first (a known identifier in clear).
    suspects = sorted((n for n in summary.notes if n.leaks),
                      key=lambda n: min((strength(s) for s in n.suspicions), default=(99, 0)))
    leaks = sum(n.leaks for n in suspects)
    _print(f"leak re-scan: {count(leaks, 'possible leftover')} in {count(len(suspects), 'note')}"
           + (", the strongest first" if len(suspects) > 1 else ""))
    for n in suspects[:SHOWN_SUSPECTS]:
        _print(f"  {n.note}: {suspicion_words(n.suspicions)}")
    if len(suspects) > SHOWN_SUSPECTS:
        _print(f"  and {len(suspects) - SHOWN_SUSPECTS} more "
               + ("(the audit report lists every one)" if report_path else
                  "(an audit report lists every one: --report FILE)"))
    if report_path:
        from app.services.redaction import report_paths
        _print(f"audit report: {report_paths(str(report_path))[0]} and .html")


def suspicion_words(suspicions: list[dict]) -> str:
    """'3 suspected: a known identifier of this patient (PERSON) at output
    characters 6-21, ...' (places and reasons, never the text)."""
    from app.deid.rescan import strength, suspicion_reason
    parts = [f"{suspicion_reason(s)} ({s['category']}) at characters "
             f"{s['start']}-{s['end']} [id {s.get('id', '?')}]"
             for s in sorted(suspicions, key=strength)[:3]]
    more = f", and {len(suspicions) - 3} more" if len(suspicions) > 3 else ""
    return f"{len(suspicions)} suspected: " + "; ".join(parts) + more


def cmd_redact(args) -> int:
    from app.deid import LeakError
    from app.services.export_reports import REPORT_STEM
    from app.services.redaction import dismiss_suspicions, redact_corpus
    # As an export from the app: the report beside the notes, where `deid
    # audit` finds the model and policy it signs for.
    report_path = args.report or str(Path(args.out_dir) / f"{REPORT_STEM}.json")
    with open_project(args.project) as project:
        dismiss_suspicions(project, args.dismiss, listed_in=args.out_dir)
        try:
            summary, report = redact_corpus(
                project, args.in_dir, args.out_dir, strategy=args.strategy,
                report_path=report_path, workers=args.workers, cluster=args.cluster,
                naming=args.naming,
                patient_regex=args.patient_regex, strict=args.strict, rules_only=args.rules_only,
                use_annotations=args.use_annotations, scan_threshold=args.scan_threshold,
                force=args.force, progress=TerminalProgress(quiet=args.quiet))
        except LeakError as exc:
            raise UserError(f"leak re-scan failed in strict mode: {exc}") from None
    _print_redaction(summary, args.out_dir, report_path)
    return 0
