import json
import os
import signal
import sys
import time
import sqlite3

import pytest

from app.cli.main import main
from app.errors import UserError


def run(*argv):
    return main(["-q", *map(str, argv)])


@pytest.fixture
def notes(tmp_path):
    d = tmp_path / "notes"
    d.mkdir()
    (d / "P1_a.txt").write_text("Seen by Dr Jones, ph 0412 345 678.\n", encoding="utf-8")
    (d / "P1_a.ann").write_text("T1\tPERSON 11 16\tJones\nT2\tPHONE 21 33\t0412 345 678\n", encoding="utf-8")
    (d / "P2_b.txt").write_text("MRN 998877 reviewed.\n", encoding="utf-8")
    (d / "P2_b.ann").write_text("T1\tIDN 4 10\t998877\n", encoding="utf-8")
    return d


def test_new_import_export_round_trip(tmp_path, notes, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    assert run("import", proj, notes, "--patient-regex", r"^(P\d+)_") == 0
    assert "imported 2 documents" in capsys.readouterr().out
    for fmt in ("brat", "conll", "jsonl", "i2b2"):
        assert run("export", proj, tmp_path / fmt, "--format", fmt) == 0
    assert (tmp_path / "brat" / "P1_a.ann").read_text(encoding="utf-8").splitlines() == [
        "T1\tPERSON 11 16\tJones", "T2\tPHONE 21 33\t0412 345 678"]
    rows = [json.loads(l) for l in (tmp_path / "jsonl" / "documents.jsonl").read_text().splitlines()]
    assert {r["patient_id"] for r in rows} == {"P1", "P2"}


def test_user_errors_exit_1_with_one_line_and_change_nothing(tmp_path, notes, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    before = proj.read_bytes()
    capsys.readouterr()
    assert run("new", proj) == 1                                  # exists
    assert run("import", tmp_path / "missing.deid", notes) == 1   # no project
    assert run("import", proj, tmp_path / "nowhere") == 1         # no input
    assert run("new", tmp_path / "x.deid", "--labels", "nope") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(l.startswith("deid: error: ") for l in err)
    assert "Traceback" not in "".join(err)
    assert proj.read_bytes() == before
    assert not (tmp_path / "x.deid").exists()


def test_not_a_project_and_newer_version_are_refused(tmp_path, capsys):
    bogus = tmp_path / "bogus.deid"
    bogus.write_bytes(b"hello, not sqlite")
    assert run("export", bogus, tmp_path / "o", "--format", "brat") == 1
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    con = sqlite3.connect(proj)
    con.execute("PRAGMA user_version = 999")
    con.commit()
    con.close()
    capsys.readouterr()
    assert run("export", proj, tmp_path / "o", "--format", "brat") == 1
    assert "newer" in capsys.readouterr().err


def test_doctor_reports_versions_and_offline_checks(capsys, monkeypatch, tmp_path):
    from app.services.doctor import run_doctor
    expected = 0 if run_doctor().ok else 1
    capsys.readouterr()
    code = run("doctor")
    out = capsys.readouterr().out
    assert "torch" in out and "Offline self-check" in out
    assert code == expected and ("[FAIL]" in out) == bool(expected)
    assert "[FAIL] vendored MiniLM" not in out
    # Where the transformer starts, and how it computes on this processor.
    assert "[ok] starter's transformer encoder" in out
    assert "cpu_bfloat16" in out
    from app.models.packed_bert import packed_products
    from app.models.transformer_ner import cpu_bf16
    assert ("packed for the processor's matrix units" in out) == (cpu_bf16() and packed_products())


def test_doctor_exits_1_when_a_check_fails(capsys, monkeypatch, tmp_path):
    from app import paths
    monkeypatch.setattr(paths, "sample_notes_dir", lambda: tmp_path / "no-samples")
    assert run("doctor") == 1
    assert "[FAIL] bundled sample notes" in capsys.readouterr().out


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="POSIX signals")
def test_sigterm_is_an_interrupt_while_a_command_runs():
    from app.cli.main import _terminate_as_interrupt
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        with _terminate_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
    assert signal.getsignal(signal.SIGTERM) == before


def test_train_objectives_match_the_training_service():
    from app.cli.main import build_parser
    from app.services.schema import OBJECTIVES
    train = next(a for a in build_parser()._subparsers._group_actions[0].choices["train"]._actions
                 if a.dest == "objective")
    assert tuple(train.choices) == OBJECTIVES


def test_train_options_become_the_config_field_by_field(tmp_path, monkeypatch):
    """deid train builds its TrainConfig from the options named as its fields;
    an option left out keeps the schema's default."""
    from app.services import training
    from app.services.schema import TrainConfig
    seen = []

    def fake_train(project, config, progress=None):
        seen.append(config)
        raise UserError("stop here")

    monkeypatch.setattr(training, "train_project", fake_train)
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    assert run("train", proj, "--budget", "quick", "--data", "imbalanced", "--seed", "7",
               "--objective", "f1", "--jobs", "2", "--max-minutes", "5", "--no-fill",
               "--no-starter-floor", "--group", "fast=crf,rules", "--models", "crf",
               "rules") == 1
    assert run("train", proj) == 1
    assert seen[0] == TrainConfig(models=["crf", "rules"], variants=["imbalanced"], budget="quick",
                                  seed=7, objective="f1", jobs=2, max_minutes=5.0, fill=False,
                                  starter_floor=False, groups={"fast": ["crf", "rules"]})
    assert seen[1] == TrainConfig()


def test_train_leads_with_one_plain_sentence_on_the_model_used(tmp_path, monkeypatch, capsys):
    """Issue 34 item 9: `deid train` says in plain words which model is used
    and why; the selection's own terms follow as details."""
    from app.services import training
    from app.services.runs import TrainedRun, set_active_run
    row = {"name": "crf-balanced", "score": 0.86, "eligible": True, "precision": 0.9,
           "recall": 0.83, "f1": 0.86, "token": {"precision": 0.9, "recall": 0.995, "f1": 0.9}}

    def fake_train(project, config, progress=None):
        set_active_run(project, 7)
        return TrainedRun(7, config={"models": ["crf"]}, selected="crf-balanced", device="cpu",
                          seconds=1.0, selection={
            "best": "crf-balanced", "objective": "privacy", "target": 0.99,
            "reason": "crf-balanced has the best dev strict micro-F1", "rows": [row]})

    monkeypatch.setattr(training, "train_project", fake_train)
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    capsys.readouterr()
    assert run("train", proj) == 0
    out = capsys.readouterr().out
    assert ("The model in use is a word-pattern model, learned from the annotated "
            "lines with identifiers and as many without: of the models that hid at least 99% of "
            "the identifier words of the dev notes") in out
    assert "details: crf-balanced — crf-balanced has the best dev strict micro-F1" in out
    # Item 13: the plain sentence leads; the names and counts come after it.
    lines = out.splitlines()
    plain = next(i for i, line in enumerate(lines) if line.startswith("The model in use"))
    assert plain < min(i for i, line in enumerate(lines)
                       if line.startswith(("models: ", "trained ", "details: ")))
    assert "preannotate" not in out                     # no note to do: nothing to refresh

    # Notes still to do hold the earlier suggestions: the command that refreshes them is said.
    from app.project import Project
    with Project.open(proj) as project:
        project.add_document("n1", "Seen by Ann Lee.")
    assert run("train", proj) == 0
    out = capsys.readouterr().out
    assert (f"1 note to do, with the earlier model's suggestions: `deid preannotate {proj} "
            "--limit 50`") in out


def test_group_options_parse_into_named_member_sets():
    from app.cli.commands import _groups
    assert _groups(["fast=spacy, crf,rules", "pair=crf-imbalanced,rules"]) == {
        "fast": ["spacy", "crf", "rules"], "pair": ["crf-imbalanced", "rules"]}
    for bad in (["fast"], ["=spacy,crf"], ["fast="], ["a=spacy,crf", "a=crf,rules"]):
        with pytest.raises(UserError, match="--group"):
            _groups(bad)


# --- issue 23 items 12 and 13: one clear line instead of exit 2 ----------------

def _one_error_line(capsys, *needles):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("deid: error: "), err
    assert all(n in err[0] for n in needles), err[0]


def test_a_folder_of_unsupported_files_is_a_user_error(tmp_path, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    (tmp_path / "tsv").mkdir()
    (tmp_path / "tsv" / "x.tsv").write_text("a\tb\n", encoding="utf-8")
    capsys.readouterr()
    assert run("import", proj, tmp_path / "tsv") == 1
    _one_error_line(capsys, "no files of a supported format")


def test_a_seed_numpy_cannot_take_is_refused_before_training(tmp_path, notes, capsys):
    # "--seed -5" failed with an internal error once the members had trained,
    # leaving a failed run in the project.
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    assert run("import", proj, notes) == 0
    capsys.readouterr()
    assert run("train", proj, "--models", "rules", "--budget", "quick", "--seed", "-5") == 1
    _one_error_line(capsys, "the seed must be a whole number from 0 to 4,294,967,295")
    from app.project import Project
    with Project.open(proj) as project:
        assert project.runs() == []


def test_deeply_nested_json_is_skipped_not_a_crash(tmp_path, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    deep = '{"text": "x", "meta": ' + "[" * 100000 + "]" * 100000 + "}"
    (tmp_path / "j").mkdir()
    (tmp_path / "j" / "deep.jsonl").write_text(deep + '\n{"text": "A note."}\n', encoding="utf-8")
    (tmp_path / "j" / "deep.json").write_text(deep, encoding="utf-8")
    assert run("import", proj, tmp_path / "j", "--format", "jsonl") == 0
    out = capsys.readouterr().out
    assert "imported 1 document (" in out and out.count("nested too deeply") == 2


def test_a_project_that_cannot_be_written_is_refused_for_writing_and_read_for_export(
        tmp_path, notes, capsys, monkeypatch):
    from app.project import store
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    assert run("import", proj, notes) == 0
    monkeypatch.setattr(store, "_writable", lambda path: False)    # a 0444 file (we run as root)
    before = proj.read_bytes()
    capsys.readouterr()
    assert run("import", proj, notes) == 1
    _one_error_line(capsys, "cannot be written here", "copy it somewhere writable")
    assert run("export", proj, tmp_path / "out", "--format", "jsonl") == 0
    assert "opened p.deid read-only" in capsys.readouterr().err
    assert len((tmp_path / "out" / "documents.jsonl").read_text().splitlines()) == 2
    assert proj.read_bytes() == before
    assert not list(tmp_path.glob("p.deid-*"))


def test_export_while_another_process_writes_opens_read_only(tmp_path, notes, capsys):
    from app.project import Project
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    assert run("import", proj, notes) == 0
    with Project.open(proj) as writer:
        events = len(writer.audit_entries())
        capsys.readouterr()
        assert run("import", proj, notes) == 1
        _one_error_line(capsys, "already open for writing", "close it there first")
        assert run("export", proj, tmp_path / "out", "--format", "brat") == 0
        assert "another process is writing it" in capsys.readouterr().err
        assert run("export", proj, tmp_path / "out2", "--format", "brat", "--read-only") == 0
        assert len(writer.audit_entries()) == events
    assert (tmp_path / "out" / "P1_a.ann").is_file()


def test_a_symlink_to_an_open_project_takes_the_same_lock(tmp_path):
    from app.project import Project, ProjectLockedError
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    link = tmp_path / "link.deid"
    link.symlink_to(proj)
    with Project.open(proj):
        with pytest.raises(ProjectLockedError):
            Project.open(link)


def test_a_damaged_page_is_noticed_on_open(tmp_path, capsys):
    from app.project import Project
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    with Project.open(proj) as p:
        for k in range(300):
            p.add_document(f"n{k}", f"Note {k} " + "text " * 200)
    data = bytearray(proj.read_bytes())
    page = 4096
    middle = (len(data) // page // 2) * page
    data[middle:middle + page] = b"\x5a" * page              # one page of garbage
    proj.write_bytes(bytes(data))
    capsys.readouterr()
    assert run("import", proj, tmp_path) == 1
    _one_error_line(capsys, "is damaged", "Restore it from your last copy")
    assert run("export", proj, tmp_path / "o", "--format", "jsonl") == 1
    assert bytes(data) == proj.read_bytes()


def test_a_full_disk_is_a_user_error(tmp_path, notes, capsys, monkeypatch):
    from app.project import Project
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0

    def full(*a, **k):
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(Project, "add_document", full)
    capsys.readouterr()
    assert run("import", proj, notes) == 1
    _one_error_line(capsys, "disk is full")


def test_preannotate_suggests_for_the_notes_to_do(tmp_path, capsys):
    from app.project import Project
    from app.services.starter import STARTER_SETTING
    d = tmp_path / "todo"
    d.mkdir()
    (d / "P1_a.txt").write_text("Call 0412 345 678 about DOB 01/02/1950.\n", encoding="utf-8")
    (d / "P2_b.txt").write_text("MRN 998877 reviewed.\n", encoding="utf-8")
    path = tmp_path / "p.deid"
    assert run("new", path, "--labels", "paper") == 0
    assert run("import", path, d, "--no-suggest") == 0
    with Project.open(path) as p:
        p.set_setting(STARTER_SETTING, False)            # the rules, whatever ships
    capsys.readouterr()
    assert run("preannotate", path, "--limit", "1") == 0
    assert "1 note to do now has the rules' suggestions" in capsys.readouterr().out
    with Project.open(path, readonly=True) as p:
        counts = [len(p.span_records(i.id, status="suggested")) for i in p.document_infos()]
    assert counts == [2, 0]                             # the phone and the date of birth
    assert run("preannotate", path, "--limit", "0") == 1


def test_new_and_import_say_what_the_labels_leave_in_clear(tmp_path, capsys):
    """The paper's five labels take no e-mail: `deid new` says so against
    the Safe Harbor list, `deid import` when the rules find one in the notes."""
    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "paper") == 0
    out = capsys.readouterr().out
    assert "HIPAA Safe Harbor: 12 of 17 kinds of identifier protected, 1 partly" in out
    assert "left in clear: ages over 89; e-mail addresses; web addresses (URLs); IP addresses" in out
    assert "warning: e-mail addresses: the rules recognise them" in out
    notes = tmp_path / "n"
    notes.mkdir()
    (notes / "a.txt").write_text("Write to jo@example.org or jo2@example.org.\n", encoding="utf-8")
    assert run("import", proj, notes) == 0
    out = capsys.readouterr().out
    assert ("warning: e-mail addresses: the rules find 2 in the project's notes, but no label "
            "takes them, so they stay in clear") in out
    assert "web addresses" not in out                         # none in these notes
    assert run("new", tmp_path / "h.deid", "--labels", "hipaa") == 0
    out = capsys.readouterr().out
    assert "17 of 17" in out and "warning" not in out


def test_a_new_english_project_gets_the_hipaa_labels_unless_told(tmp_path, capsys):
    """A hospital that names no label set gets one that leaves no kind of
    identifier the rules find in clear (all dates, ages, places); Spanish
    projects keep the paper's five unless told."""
    from app.project import Project
    assert run("new", tmp_path / "en.deid") == 0
    out = capsys.readouterr().out
    assert "with 7 labels: NAME, PROFESSION, LOCATION, AGE, DATE, CONTACT, ID" in out
    assert "17 of 17" in out and "warning" not in out
    assert run("new", tmp_path / "es.deid", "--language", "es") == 0
    with Project.open(tmp_path / "es.deid", readonly=True) as project:
        assert [l.name for l in project.labels()] == ["PERSON", "ADDRESS", "DOB", "IDN", "PHONE"]


def test_train_names_the_models_it_trained_the_devices_default_unless_named(tmp_path, capsys):
    """Without --models a CPU run trains crf, rules and the starter (the neural
    models take hours there), says so and stores them; named models win."""
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.runs import active_run
    from app.synth import generate
    path = tmp_path / "p.deid"
    with Project.create(path, list(PRESETS["paper"])) as p:
        for i, d in enumerate(generate(10, seed=7)):
            p.add_document(d.name, d.text, patient_id=d.patient_id, split=("dev", "train")[i % 2],
                           status="done", spans=d.spans, span_source="import")
    assert run("train", path, "--budget", "quick", "--device", "cpu") == 0
    assert "models: crf, rules, starter\n" in capsys.readouterr().out
    with Project.open(path) as p:
        assert active_run(p).train_config().models == ["crf", "rules", "starter"]
    assert run("train", path, "--budget", "quick", "--device", "cpu", "--models", "rules") == 0
    assert "models: rules\n" in capsys.readouterr().out


def test_evaluate_without_a_test_split_says_how_to_split_by_patient(tmp_path, capsys):
    """Issue 34 item 11: notes imported without --split have no test notes;
    evaluate says how to get them and `deid split` splits by patient."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for p in range(12):
        text = f"Seen by Dr Quill{p} today."
        (notes / f"p{p:03d}_n001.txt").write_text(text, encoding="utf-8")
        (notes / f"p{p:03d}_n001.ann").write_text(f"T1\tNAME 11 {11 + len(f'Quill{p}')}\t"
                                                  f"Quill{p}\n", encoding="utf-8")
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    assert run("import", proj, notes, "--patient-regex", r"^(p\d+)_", "--no-suggest") == 0
    capsys.readouterr()
    assert run("evaluate", proj) == 1
    err = capsys.readouterr().err
    assert "12 annotated notes have no split" in err and "deid split p.deid" in err
    assert "dev figures" not in err
    assert run("evaluate", proj, "--split", "dev") == 1
    # A run's dev notes are its own draw: where its figures are is said.
    assert "A run's dev figures are of the dev notes it drew" in capsys.readouterr().err
    assert run("split", proj) == 0
    out = capsys.readouterr().out
    assert "split 12 notes by patient" in out and "train again" in out
    from app.project import Project
    with Project.open(proj, readonly=True) as p:
        assert all(i.split for i in p.document_infos())
    assert run("split", proj) == 0
    assert "nothing changed" in capsys.readouterr().out


def test_import_files_another_sets_labels_under_the_projects_when_told(tmp_path, notes, capsys):
    """Paper-labelled notes into a HIPAA project: without --map the import
    keeps their labels and says which project labels take those kinds;
    --map auto (or pairs) files them there; a pair without a side is refused."""
    from app.project import Project
    assert run("new", tmp_path / "kept.deid") == 0
    capsys.readouterr()
    assert run("import", tmp_path / "kept.deid", notes, "--no-suggest") == 0
    out = capsys.readouterr().out
    assert "labels added: IDN, PERSON, PHONE" in out
    assert "--map auto files them there (IDN=ID PERSON=NAME PHONE=CONTACT)" in out
    assert run("new", tmp_path / "mapped.deid") == 0
    assert run("import", tmp_path / "mapped.deid", notes, "--no-suggest", "--map", "auto") == 0
    out = capsys.readouterr().out
    assert "labels filed under the project's: PERSON -> NAME (1 span)" in out
    assert "labels added" not in out
    assert run("new", tmp_path / "pairs.deid") == 0
    assert run("import", tmp_path / "pairs.deid", notes, "--no-suggest",
               "--map", "PERSON=NAME", "IDN=MRN") == 0
    with Project.open(tmp_path / "pairs.deid", readonly=True) as p:
        labels = {s.label for i in p.document_infos() for s in p.gold_spans(i.id)}
        assert labels == {"NAME", "MRN", "PHONE"}
        assert {"MRN", "PHONE"} <= {label.name for label in p.labels()}
    capsys.readouterr()
    assert run("import", tmp_path / "pairs.deid", notes, "--map", "PERSON") == 1
    assert "--map takes FILE_LABEL=PROJECT_LABEL pairs or auto, not 'PERSON'" in \
        capsys.readouterr().err


def test_day_one_in_a_hipaa_project_hides_whole_email_and_web_addresses(tmp_path):
    """CONTACT holds phones, e-mails and web addresses: the cut that takes
    the words out of a phone number ("555-010-6286 OFFICE 555-010-4517") took
    them out of every e-mail and URL too, leaving "reception", the practice's
    name and "com" in clear around three replaced dots."""
    proj = tmp_path / "h.deid"
    notes = tmp_path / "in"
    notes.mkdir()
    text = ("P: (02) 9439 8243 E: reception@hoganfamilypractice.com.au\n"
            "Seen by Dr Ryan Blake. Website www.hoganfamily.com.au\n"
            "Call 555-010-6286 OFFICE 555-010-4517.\n")
    (notes / "a.txt").write_text(text, encoding="utf-8")
    assert run("new", proj) == 0
    assert run("annotate", proj, notes, tmp_path / "out") == 0
    found = {line.split("\t")[2] for line in
             (tmp_path / "out" / "a.ann").read_text(encoding="utf-8").splitlines()}
    assert {"reception@hoganfamilypractice.com.au", "www.hoganfamily.com.au",
            "(02) 9439 8243"} <= found
    assert "OFFICE" not in " ".join(found)


def test_a_named_pipe_in_the_folder_is_passed_over_and_its_warnings_are_listed(tmp_path, capsys):
    """A walkthrough's import of a folder holding a named pipe waited for ever
    (reading one waits for a writer); the other notes are imported, and a
    note read with a warning is named with it, not sent to the audit log."""
    folder = tmp_path / "in"
    folder.mkdir()
    os.mkfifo(folder / "pipe.txt")
    (folder / "ok.txt").write_text("Seen today.\n", encoding="utf-8")
    (folder / "latin.txt").write_bytes("Patient seen by Dr Müller.\n".encode("cp1252"))
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    capsys.readouterr()
    assert run("import", proj, folder, "--no-suggest") == 0
    out = capsys.readouterr().out
    assert "imported 2 documents" in out
    assert "1 note read with a warning:\n  latin: " in out and "audit log" not in out


def test_notes_an_import_killed_before_its_suggestions_left_get_them_next_time(
        tmp_path, capsys):
    """A walkthrough killed `deid import` while it imported: the notes it had
    committed never got suggestions, and importing the folder again found
    them all duplicates and suggested nothing. Each batch's notes to do are
    recorded as waiting for theirs with the batch."""
    from app.project import Project
    from app.services.annotating import SUGGESTIONS_PENDING
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text("Seen by Dr Alex Quill today.\n", encoding="utf-8")
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    import app.services.annotating as annotating
    real = annotating.suggest_new_notes
    annotating.suggest_new_notes = lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt)
    try:
        assert run("import", proj, folder) == 1                       # "killed" after the import
    finally:
        annotating.suggest_new_notes = real
    with Project.open(proj) as p:
        assert p.get_setting(SUGGESTIONS_PENDING) == [1]
    capsys.readouterr()
    assert run("import", proj, folder) == 0
    assert "1 note to do now has the starter model's suggestions to review" in capsys.readouterr().out
    with Project.open(proj) as p:
        assert not p.get_setting(SUGGESTIONS_PENDING)
    assert run("import", proj, folder, "--no-suggest") == 0


def test_overlapping_spans_of_a_brat_file_are_kept_said_and_replaced_as_one(tmp_path, capsys):
    """A walkthrough's brat file held two overlapping spans of one name: both
    were taken silently, and the export left "Zebulon <**PERSON**>ttoline"."""
    folder = tmp_path / "in"
    folder.mkdir()
    text = "Patient Zebulon Ottoline Fairweather was seen.\n"
    (folder / "n1.txt").write_text(text, encoding="utf-8")
    (folder / "n1.ann").write_text("T1\tPERSON 8 24\tZebulon Ottoline\n"
                                   "T2\tPERSON 16 36\tOttoline Fairweather\n", encoding="utf-8")
    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "paper") == 0
    capsys.readouterr()
    assert run("import", proj, folder) == 0
    assert "n1: 1 span overlapping another (kept; check them in Annotate)" in \
        capsys.readouterr().out
    assert run("export", proj, tmp_path / "out", "--format", "redacted") == 0
    written = (tmp_path / "out" / "n1.txt").read_text(encoding="utf-8")
    assert written == "Patient <**PERSON**> was seen.\n"
