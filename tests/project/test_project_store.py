"""Project store: documents, spans, labels, runs, settings, history, threads."""
from __future__ import annotations

import sqlite3
import threading

import pytest

from app.core.labels import PRESETS, LabelDef
from app.core.spans import Span
from app.project import ADJUDICATED, Project, ProjectError, SpanCounts

TEXT = "Seen by Dr Alex Quill on 03/04/2021. MRN 1234567."
PERSON, IDN = Span(11, 21, "PERSON"), Span(41, 48, "IDN")


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.deid", PRESETS["paper"], language="es") as proj:
        yield proj


def test_create_open_reopen(tmp_path):
    path = tmp_path / "p.deid"
    with Project.create(path, PRESETS["paper"], language="es") as proj:
        doc = proj.add_document("n1", TEXT, spans=[PERSON], split="train",
                                patient_id="P1", meta={"ward": 3})
        assert proj.path == path and proj.schema_version == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.deid"]  # WAL, shm, lock gone
    with Project.open(path) as proj:
        assert proj.language == "es"
        rec = proj.document(doc)
        assert (rec.text, rec.split, rec.patient_id, rec.meta) == (TEXT, "train", "P1", {"ward": 3})
        assert rec.as_document(proj.gold_spans(doc)).spans == [PERSON]
        assert [label.name for label in proj.labels()] == [l.name for l in PRESETS["paper"]]
        assert proj.audit_entries()[-1].event == "project_created"
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(path, [])
    with pytest.raises(ProjectError, match="no project file"):
        Project.open(tmp_path / "missing.deid")


def test_duplicate_text_is_skipped(project):
    first = project.add_document("a", TEXT, spans=[PERSON])
    assert project.add_document("b", TEXT, spans=[IDN]) is None
    assert project.count_documents() == 1
    assert project.gold_spans(first) == [PERSON]


def test_document_list_filters_and_fields(project):
    ids = [project.add_document(f"note{i}", f"text {i} of note", split=split)
           for i, split in enumerate(["train", "train", "test"])]
    project.set_document_fields(ids[1], status="done", uncertainty=0.9, name="renamed")
    project.set_document_fields(ids[2], uncertainty=0.2, split=None)
    assert project.count_documents(split="train") == 2
    assert project.count_documents(status="done") == 1
    infos = project.document_infos(order="uncertainty")
    assert [i.id for i in infos] == [ids[1], ids[2], ids[0]]
    assert not hasattr(infos[0], "text")
    assert [i.id for i in project.document_infos(search="RENAMED")] == [ids[1]]
    assert [i.id for i in project.document_infos(search="2 of")] == [ids[2]]
    assert project.document_infos(search="%") == []
    assert [i.id for i in project.document_infos(limit=1, offset=1)] == [ids[1]]
    project.set_document_fields(ids[0], patient_id="P7")
    project.set_document_fields(ids[2], patient_id="P7")
    assert [i.id for i in project.document_infos(patient_id="P7")] == [ids[0], ids[2]]
    # Listed documents (a run's notes unlike the annotated ones), however many are named.
    assert [i.id for i in project.document_infos(ids=[ids[2], ids[0], 10**6])] == [ids[0], ids[2]]
    assert project.count_documents(ids=[ids[2], *range(10**6, 10**6 + 50_000)]) == 1
    assert project.count_documents(status="done", ids=[ids[0], ids[1]]) == 1
    assert project.document_infos(ids=[]) == []
    # The most uncertain first, then the unscored in the order given.
    listed = [ids[0], ids[2], ids[1]]
    assert [i.id for i in project.document_infos(ids=listed, order="uncertain_listed")] == \
        [ids[1], ids[2], ids[0]]
    project.set_document_fields(ids[2], uncertainty=None)
    for listed in ([ids[2], ids[0]], [ids[0], ids[2]]):
        assert [i.id for i in project.document_infos(ids=listed, order="uncertain_listed")] == \
            listed
    with pytest.raises(ValueError):
        project.document_infos(order="uncertain_listed")
    with pytest.raises(ValueError):
        project.set_document_fields(ids[0], text="x")
    with pytest.raises(ValueError):
        project.set_document_fields(ids[0], status="finished")
    project.delete_document(ids[0])
    assert project.count_documents() == 2


def test_spans_crud(project):
    doc = project.add_document("n", TEXT)
    sid = project.add_span(doc, 11, 21, "PERSON", annotator="ann")
    project.update_span(sid, end=15, label="IDN", confidence=0.5)
    rec = project.span_record(sid)
    assert (rec.start, rec.end, rec.label, rec.source, rec.annotator) == (11, 15, "IDN", "human", "ann")
    with pytest.raises(ValueError, match="beyond end"):
        project.add_span(doc, 40, len(TEXT) + 1, "IDN")
    with pytest.raises(ValueError):
        project.update_span(sid, start=20)          # start >= end
    assert project.span_records(doc, status="accepted") == [rec]
    project.delete_span(sid)
    assert project.span_records(doc) == []
    with pytest.raises(ProjectError):
        project.delete_span(sid)


def test_every_documents_spans_in_one_read_are_those_read_one_by_one(project):
    first = project.add_document("a", TEXT, spans=[IDN, PERSON])
    project.add_document("b", "No identifier here.")
    third = project.add_document("c", TEXT + " Again.", spans=[PERSON])
    project.add_span(third, 0, 4, "PERSON", source="model", status="suggested")
    assert project.spans_by_document() == {first: project.span_records(first),
                                           third: project.span_records(third)}
    assert [r.start for r in project.spans_by_document()[first]] == [11, 41]   # text order


def test_suggestions_and_counts(project):
    doc = project.add_document("n", TEXT)
    run = project.start_run("predict", {})
    rejected = project.add_span(doc, 41, 48, "IDN", source="model", status="suggested")
    project.update_span(rejected, status="rejected")
    assert project.replace_suggestions(doc, [PERSON, IDN], run) == 1   # IDN was rejected
    assert project.replace_suggestions(doc, [Span(0, 4, "PERSON", 0.7)], run) == 1
    suggested = project.span_records(doc, status="suggested")
    assert [(s.span, s.run_id, s.confidence) for s in suggested] == [(Span(0, 4, "PERSON"), run, 0.7)]
    assert project.span_counts() == {doc: SpanCounts(accepted=0, suggested=1, rejected=1)}
    assert project.gold_spans(doc) == []



def test_a_prediction_replaces_the_model_and_rule_suggestions_in_one_write(project):
    """A span the rules suggested that the next prediction makes as the
    model's moves to the model (it was lost when each source was replaced
    alone: the new one skipped the old, then the old was deleted)."""
    doc = project.add_document("n", TEXT)
    run = project.start_run("predict", {})
    project.replace_suggestions(doc, [PERSON], None, source="rule")
    assert project.replace_prediction(doc, {"model": [PERSON], "rule": [IDN]}, run) == 2
    suggested = {s.span: s.source for s in project.span_records(doc, status="suggested")}
    assert suggested == {PERSON: "model", IDN: "rule"}
    with pytest.raises(ValueError):
        project.replace_prediction(doc, {"human": [PERSON]}, run)

def test_gold_spans_double_annotation(project):
    doc = project.add_document("n", TEXT)
    project.assign(doc, "ann1")
    project.assign(doc, "ann2")
    project.add_span(doc, 11, 21, "PERSON", annotator="ann1")
    project.add_span(doc, 11, 21, "PERSON", annotator="ann2")
    project.add_span(doc, 41, 48, "IDN", annotator="ann2")
    assert project.assignments(doc) == ["ann1", "ann2"]
    assert project.gold_spans(doc) == [PERSON, IDN]          # union before adjudication
    project.adjudicate(doc, [PERSON])
    assert project.gold_spans(doc) == [PERSON]
    assert {s.annotator for s in project.span_records(doc)} == {"ann1", "ann2", ADJUDICATED}


def test_labels(project):
    project.add_label(LabelDef("EMAIL", "#000000", None, "mail"))
    with pytest.raises(ProjectError, match="already exists"):
        project.add_label(LabelDef("EMAIL"))
    doc = project.add_document("n", TEXT, spans=[PERSON])
    project.update_label("PERSON", name="NAME", colour="#111111")
    assert project.gold_spans(doc) == [Span(11, 21, "NAME")]
    assert project.ensure_labels(["NAME", "AGE", "AGE"]) == ["AGE"]
    names = [label.name for label in project.labels()]
    assert names == ["NAME", "ADDRESS", "DOB", "IDN", "PHONE", "EMAIL", "AGE"]
    assert project.labels()[0].colour == "#111111"
    # An added label takes the first number key no label has (the editor's
    # keys): 6 after the paper's five, then 7 ... 9, 0, then none.
    assert project.labels()[-1].hotkey == "6"
    project.ensure_labels([f"L{i}" for i in range(6)])
    assert [label.hotkey for label in project.labels()][-6:] == ["7", "8", "9", "0", None, None]


def test_runs_left_running_are_cancelled_on_open(tmp_path):
    path = tmp_path / "p.deid"
    with Project.create(path, []) as proj:
        done = proj.start_run("train", {"seed": 1})
        proj.finish_run(done, "done", {"f1": 0.9})
        crashed = proj.start_run("train", {"seed": 2})
    with Project.open(path, readonly=True) as proj:      # a reader changes nothing...
        assert proj.run(crashed).status == "cancelled"   # ...but reads it as interrupted
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert db.execute("SELECT status FROM runs WHERE id = ?", (crashed,)).fetchone() == ("running",)
    db.close()
    with Project.open(path) as proj:
        assert proj.interrupted_runs == (crashed,)
        assert proj.run(crashed).status == "cancelled"
        assert proj.run(done).metrics == {"f1": 0.9}
        assert [r.id for r in proj.runs(kind="train")] == [crashed, done]
        assert proj.audit_entries(limit=1)[0].detail == {"run_ids": [crashed]}


def test_audit_log_is_append_only(project):
    project.log("export", {"count": 3}, actor="ann")
    entry = project.audit_entries(limit=1)[0]
    assert (entry.event, entry.actor, entry.detail) == ("export", "ann", {"count": 3})
    db = project._conn()
    for sql in ("UPDATE audit_log SET event = 'x'", "DELETE FROM audit_log"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute(sql)
    assert len(project.audit_entries()) == 2


def test_settings_and_surrogates(project):
    assert project.get_setting("k", 5) == 5
    project.set_setting("k", {"a": [1, 2]})
    project.set_setting("k", {"a": [3]})
    assert project.get_setting("k") == {"a": [3]}
    assert project.surrogate_get("p1", "PERSON", "Alex") is None
    project.surrogate_put("p1", "PERSON", "Alex", "Sam")
    assert project.surrogate_get("p1", "PERSON", "Alex") == "Sam"
    assert project.surrogates_export(actor="ann") == [
        {"patient_key": "p1", "label": "PERSON", "original": "Alex", "surrogate": "Sam"}]
    assert project.audit_entries(limit=1)[0].event == "surrogates_exported"


def test_transactions_nest_and_roll_back(project):
    with project.transaction():
        project.add_document("a", "text a")
        try:
            with project.transaction():
                project.add_document("b", "text b")
                raise RuntimeError
        except RuntimeError:
            pass
        project.add_document("c", "text c")
    assert [i.name for i in project.document_infos()] == ["a", "c"]
    with pytest.raises(RuntimeError):
        with project.transaction():
            project.add_document("d", "text d")
            raise RuntimeError
    assert project.count_documents() == 2


def test_readonly_refuses_writes(tmp_path):
    path = tmp_path / "p.deid"
    Project.create(path, []).close()
    with Project.open(path) as writer, Project.open(path, readonly=True) as reader:
        writer.add_document("a", "text a")
        assert reader.count_documents() == 1
        with pytest.raises(ProjectError, match="read-only"):
            reader.add_document("b", "text b")


def test_threads_share_one_project(project):
    def work(k):
        for i in range(20):
            with project.transaction():
                doc = project.add_document(f"t{k}-{i}", f"thread {k} note {i}")
                project.add_span(doc, 0, 6, "PERSON")
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert project.count_documents() == 80
    assert all(c == SpanCounts(accepted=1) for c in project.span_counts().values())


def test_history_undo_redo_survives_reopen(tmp_path):
    path = tmp_path / "p.deid"
    with Project.create(path, []) as proj:
        doc = proj.add_document("n", TEXT)
        assert proj.push_edit(doc, "ann", "add", {"n": 1}) == 1
        assert proj.push_edit(doc, "ann", "add", {"n": 2}) == 2
        assert proj.push_edit(doc, "other", "add", {"n": 3}) == 3
        assert proj.undo(doc, "ann").payload == {"n": 2}
    with Project.open(path) as proj:
        assert proj.can_redo(doc, "ann") and proj.can_undo(doc, "ann")
        assert proj.redo(doc, "ann").payload == {"n": 2}
        assert proj.redo(doc, "ann") is None
        assert proj.undo(doc, "ann").seq == 2
        assert proj.undo(doc, "ann").seq == 1
        assert proj.undo(doc, "ann") is None
        assert proj.push_edit(doc, "ann", "add", {"n": 4}) == 4     # drops the redo stack
        assert not proj.can_redo(doc, "ann")
        assert [e.seq for e in proj.history(doc)] == [3, 4]
        assert proj.undo(doc, "other").payload == {"n": 3}          # stacks are per annotator


def test_backup_is_verified_single_file(project, tmp_path):
    project.add_document("a", "text a")
    dest = project.backup(tmp_path / "copy.deid")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == ["copy.deid"]
    with pytest.raises(ProjectError, match="already exists"):
        project.backup(dest)
    with Project.open(dest, readonly=True) as copy:
        assert copy.count_documents() == 1
