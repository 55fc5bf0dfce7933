"""Project files: identity, versions, upgrades with backup, the write lock."""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.spans import Span
from app.project import (Project, ProjectError, ProjectLockedError,
                         ProjectVersionError, migrations)

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_V1 = Path(__file__).parent / "fixtures" / "project_v1.deid"
FIXTURE_V2 = Path(__file__).parent / "fixtures" / "project_v2.deid"
FIXTURE_V3 = Path(__file__).parent / "fixtures" / "project_v3.deid"
FIXTURE_V4 = Path(__file__).parent / "fixtures" / "project_v4.deid"


def _schema(path: Path) -> list[tuple]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall()
    finally:
        db.close()


def _pragma(path: Path, name: str):
    db = sqlite3.connect(path)
    try:
        return db.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        db.close()


def _copied(fixture: Path, tmp_path: Path, version: int) -> Path:
    """A copy of an old-schema ``fixture`` (of schema ``version``) to upgrade."""
    path = tmp_path / f"v{version}.deid"
    shutil.copy(fixture, path)
    assert _pragma(path, "user_version") == version
    return path


def _upgraded_as_new(path: Path, fixture: Path, version: int) -> None:
    """``path``, upgraded from ``fixture``'s schema ``version``, kept a backup
    of that version and has exactly a new project's schema; the fixture is
    untouched."""
    assert _pragma(path.with_name(f"{path.name}.bak-v{version}"), "user_version") == version
    Project.create(path.with_name("fresh.deid"), []).close()
    assert _schema(path) == _schema(path.with_name("fresh.deid"))
    assert _pragma(fixture, "user_version") == version


def test_non_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "notes.deid"
    path.write_bytes(b"this is not a database\n" * 200)
    with pytest.raises(ProjectError, match="not an SQLite database"):
        Project.open(path)
    assert path.read_bytes() == b"this is not a database\n" * 200
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.deid"]


def test_foreign_sqlite_file_is_refused_untouched(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    before = path.read_bytes()
    for readonly in (False, True):
        with pytest.raises(ProjectError, match="not a DeID Studio project"):
            Project.open(path, readonly=readonly)
    assert path.read_bytes() == before            # not even switched to WAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_an_empty_file_is_said_to_be_empty_and_left_so(tmp_path):
    """SQLite reads an empty file as an empty database: "an SQLite database
    but not a DeID Studio project" misled a walkthrough."""
    path = tmp_path / "cut.deid"
    path.write_bytes(b"")
    with pytest.raises(ProjectError, match="is an empty file"):
        Project.open(path)
    assert path.read_bytes() == b""


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "new.deid"
    Project.create(path, []).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    for readonly in (False, True):
        with pytest.raises(ProjectVersionError,
                           match=r"made by a newer DeID Studio \(schema 99\); this version reads up to 5"):
            Project.open(path, readonly=readonly)
    assert _pragma(path, "user_version") == 99


def test_v1_fixture_upgrades_with_verified_backup(tmp_path):
    path = tmp_path / "old.deid"
    shutil.copy(FIXTURE_V1, path)
    with pytest.raises(ProjectVersionError, match="older schema 1"):
        Project.open(path, readonly=True)
    with Project.open(path) as proj:
        assert (proj.schema_version, proj.upgraded_from) == (migrations.current_version(), 1)
        assert proj.interrupted_runs == (1,)
        assert proj.run(1).status == "cancelled"
        assert proj.count_documents() == 2 and proj.count_documents(split="test") == 1
        note1 = proj.document_infos(search="note1")[0].id
        assert proj.gold_spans(note1) == [Span(11, 21, "PERSON"), Span(41, 48, "IDN")]
        assert proj.assignments(note1) == ["ann1"]
        assert proj.surrogate_get("p1", "PERSON", "Alex Quill") == "Sam Reed"
        assert proj.push_edit(note1, "ann1", "add_span", {"id": 1}) == 1   # v2 history works
        upgraded = [e for e in proj.audit_entries() if e.event == "schema_upgraded"]
        assert upgraded[0].detail == {"from": 1, "to": 5, "backup": "old.deid.bak-v1"}
        assert proj.add_plain_list("staff", ["SMITH"]) == 1                  # v3 lists work
        # v4: the shared Done of a note assigned to ann1 alone was ann1's.
        assert proj.status_seen_by(note1, "ann1") == "done"
    backup = tmp_path / "old.deid.bak-v1"
    assert _pragma(backup, "user_version") == 1
    assert _pragma(backup, "journal_mode") == "delete"     # one self-contained file
    assert _schema(backup) == _schema(FIXTURE_V1)
    # An upgraded file and a fresh one have exactly the same schema.
    Project.create(tmp_path / "fresh.deid", []).close()
    assert _schema(path) == _schema(tmp_path / "fresh.deid")
    assert FIXTURE_V1.exists() and _pragma(FIXTURE_V1, "user_version") == 1


def test_v2_fixture_upgrades_to_lists(tmp_path):
    path = _copied(FIXTURE_V2, tmp_path, 2)
    with Project.open(path) as proj:
        assert (proj.schema_version, proj.upgraded_from) == (5, 2)
        note1 = proj.document_infos(search="note1")[0].id
        assert proj.gold_spans(note1) == [Span(11, 21, "PERSON"), Span(41, 48, "IDN")]
        assert [e.seq for e in proj.history(note1, "ann1")] == [1]     # v2 data kept
        assert proj.list_counts() == {}
        proj.add_list_entries("patients", [("p1", "last_name", "QUILL")])
        assert proj.list_counts() == {"patients": {"entries": 1, "patients": 1}}
        upgraded = [e for e in proj.audit_entries() if e.event == "schema_upgraded"]
        assert upgraded[0].detail == {"from": 2, "to": 5, "backup": "v2.deid.bak-v2"}
    _upgraded_as_new(path, FIXTURE_V2, 2)


def test_v3_fixture_upgrades_to_each_annotators_own_status(tmp_path):
    """Issue 34 item 14: in blind double annotation one Done status was
    shared, so the second annotator saw the first's Done. v4 gives each
    annotator theirs, read from what the older file holds."""
    path = _copied(FIXTURE_V3, tmp_path, 3)
    with Project.open(path) as proj:
        assert (proj.schema_version, proj.upgraded_from) == (5, 3)
        note1, note2 = (proj.document_infos(search=n)[0].id for n in ("note1", "note2"))
        # ann1 marked note1 done (their history says so); ann2 only labelled it.
        assert proj.status_seen_by(note1, "ann1") == "done"
        assert proj.status_seen_by(note1, "ann2") == "in_progress"
        # Nobody's change recorded for note2: its shared status was both annotators'.
        assert [proj.status_seen_by(note2, a) for a in ("ann1", "ann2")] == ["in_progress"] * 2
        # The shared statuses are kept as they were.
        assert [i.status for i in proj.document_infos()] == ["done", "in_progress"]
        assert [i.status for i in proj.document_infos(annotator="ann2")] == \
            ["in_progress", "in_progress"]
        assert [e.seq for e in proj.history(note1, "ann1")] == [1, 2]
        upgraded = [e for e in proj.audit_entries() if e.event == "schema_upgraded"]
        assert upgraded[0].detail == {"from": 3, "to": 5, "backup": "v3.deid.bak-v3"}
    _upgraded_as_new(path, FIXTURE_V3, 3)


def test_v4_fixture_upgrades_to_suggestions_that_name_what_made_them(tmp_path):
    from app.core.spans import Span
    path = _copied(FIXTURE_V4, tmp_path, 4)
    with Project.open(path) as proj:
        assert (proj.schema_version, proj.upgraded_from) == (5, 4)
        note2 = proj.document_infos(search="note2")[0].id
        [old] = proj.span_records(note2, status="suggested")
        assert (old.label, old.source, old.origin) == ("PHONE", "rule", None)
        # (5, 17) is also a person's accepted span: a prediction never adds it again.
        proj.replace_prediction(note2, {"rule": [Span(5, 9, "PHONE", origin="english-floor.v1: phone")]},
                                None)
        [new] = proj.span_records(note2, status="suggested")
        assert new.origin == "english-floor.v1: phone"
    _upgraded_as_new(path, FIXTURE_V4, 4)


def test_failed_migration_leaves_file_unchanged(tmp_path, monkeypatch):
    def broken(db):
        db.execute("CREATE TABLE history (x)")
        raise RuntimeError("simulated failure")
    monkeypatch.setattr(migrations, "MIGRATIONS", [broken])
    path = tmp_path / "old.deid"
    shutil.copy(FIXTURE_V1, path)
    with pytest.raises(ProjectError, match="file is unchanged"):
        Project.open(path)
    assert _pragma(path, "user_version") == 1
    assert _schema(path) == _schema(FIXTURE_V1)
    assert (tmp_path / "old.deid.bak-v1").exists()
    monkeypatch.undo()
    with Project.open(path) as proj:                      # the lock was released
        assert proj.schema_version == migrations.current_version()


def test_second_writer_in_same_process_is_refused(tmp_path):
    path = tmp_path / "p.deid"
    with Project.create(path, []):
        with pytest.raises(ProjectLockedError, match=f"process {os.getpid()}"):
            Project.open(path)
        with pytest.raises(ProjectError, match="already exists"):
            Project.create(path, [])


def test_lock_held_by_other_process_then_stale(tmp_path):
    path = tmp_path / "p.deid"
    Project.create(path, []).close()
    holder = ("import sys; from app.project import Project; p = Project.open(sys.argv[1]);"
              " print('ready', flush=True); sys.stdin.read()")
    proc = subprocess.Popen([sys.executable, "-c", holder, str(path)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        with pytest.raises(ProjectLockedError, match=f"already open for writing by process {proc.pid}"):
            Project.open(path)
        with Project.open(path, readonly=True) as reader:   # reading is allowed
            assert reader.count_documents() == 0
    finally:
        proc.kill()
        proc.wait()
    assert (tmp_path / "p.deid.lock").exists()            # left behind by the killed holder
    with Project.open(path) as proj:                      # ...and does not block
        proj.add_document("a", "text a")
    assert not (tmp_path / "p.deid.lock").exists()


def test_a_read_only_open_of_a_file_it_cannot_write_leaves_nothing_beside_it(
        tmp_path, monkeypatch):
    """-wal/-shm files left by a read-only open (as read-only as the project)
    later stopped whoever could write it (issue 35 item 6). Root may write
    any file: the test takes that right away as a user without it has."""
    from app.core.labels import PRESETS
    from app.project import connection
    path = tmp_path / "p.deid"
    Project.create(path, PRESETS["paper"]).close()
    path.chmod(0o444)
    real = os.access
    monkeypatch.setattr(connection.os, "access",
                        lambda p, mode, **k: False if mode == os.W_OK else real(p, mode, **k))
    with Project.open(path, readonly=True) as p:
        assert p.schema_version > 0 and p.document_infos() == []
    monkeypatch.undo()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["p.deid"]
    path.chmod(0o644)
    with Project.open(path) as p:                  # writable again, and written
        p.set_setting("after", 1)


def test_saves_another_readers_snapshot_keeps_in_the_wal_are_said(tmp_path, monkeypatch, capsys):
    """While another process reads, a writer's last saves stay in the -wal:
    `deid import` said nothing, and a copy of the .deid alone (as users move
    a project) missed the notes (issue 35 item 5). The close retries the
    checkpoint, then says so."""
    from app.cli.main import main
    from app.project import core
    monkeypatch.setattr(core, "CLOSE_CHECKPOINT_WAIT_S", 0.2)
    path = tmp_path / "p.deid"
    assert main(["-q", "new", str(path)]) == 0
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("Seen today.\n", encoding="utf-8")
    reader = sqlite3.connect(path)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM sqlite_master").fetchone()   # holds a snapshot
        capsys.readouterr()
        assert main(["-q", "import", str(path), str(notes), "--no-suggest"]) == 0
        err = capsys.readouterr().err
        assert "deid: warning: another program is reading p.deid" in err and "-wal" in err
    finally:
        reader.close()
    assert main(["-q", "import", str(path), str(notes), "--no-suggest"]) == 0
    assert "warning" not in capsys.readouterr().err      # nobody reading: all in the file
    assert not (tmp_path / "p.deid-wal").exists() or not (tmp_path / "p.deid-wal").stat().st_size
