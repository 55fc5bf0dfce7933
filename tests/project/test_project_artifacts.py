"""Artifacts: chunked streaming in and out, verification, deletion."""
from __future__ import annotations

import hashlib
import io

import pytest

from app.project import Project, ProjectError
from app.project import runs as runs_module


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.deid", []) as proj:
        yield proj


def _blob(n: int) -> bytes:
    # Deterministic, incompressible-looking bytes without os.urandom.
    out, block = bytearray(), b"seed"
    while len(out) < n:
        block = hashlib.sha256(block).digest()
        out += block * 64
    return bytes(out[:n])


def test_file_roundtrip_is_chunked(project, tmp_path):
    data = _blob(9 * 1024 * 1024 + 123)
    src = tmp_path / "model.bin"
    src.write_bytes(data)
    run = project.start_run("train", {})
    art = project.put_artifact(run, "model", "spacy", src, {"f1": 0.5})
    rec = project.artifact(art)
    assert (rec.size, rec.sha256, rec.packing, rec.meta) == (
        len(data), hashlib.sha256(data).hexdigest(), "file", {"f1": 0.5})
    n_chunks = project._conn().execute(
        "SELECT count(*), max(length(data)) FROM artifact_chunks WHERE artifact_id = ?",
        (art,)).fetchone()
    assert n_chunks == (3, runs_module.CHUNK_SIZE)
    out = project.extract_artifact(art, tmp_path / "out.bin")
    assert out.read_bytes() == data
    with project.open_artifact(art) as stream:
        assert stream.read() == data
    with pytest.raises(ProjectError, match="already exists"):
        project.extract_artifact(art, out)


def test_fileobj_and_directory_roundtrip(project, tmp_path, monkeypatch):
    monkeypatch.setattr(runs_module, "CHUNK_SIZE", 1000)
    art = project.put_artifact(None, "report", "json", io.BytesIO(b"x" * 2500))
    assert project.open_artifact(art).read() == b"x" * 2500
    model = tmp_path / "model"
    (model / "sub").mkdir(parents=True)
    (model / "config.cfg").write_text("[nlp]\n")
    (model / "sub" / "weights.bin").write_bytes(_blob(5000))
    art = project.put_artifact(None, "model", "spacy", model)
    assert project.artifact(art).packing == "tar"
    out = project.extract_artifact(art, tmp_path / "restored")
    assert (out / "config.cfg").read_text() == "[nlp]\n"
    assert (out / "sub" / "weights.bin").read_bytes() == _blob(5000)


def test_damaged_artifact_is_detected(project, tmp_path):
    art = project.put_artifact(None, "x", "bin", io.BytesIO(b"abc" * 1000))
    project._conn().execute("UPDATE artifact_chunks SET data = zeroblob(3000) WHERE artifact_id = ?",
                            (art,))
    with pytest.raises(ProjectError, match="damaged"):
        project.extract_artifact(art, tmp_path / "out.bin")
    assert list(tmp_path.glob("*out.bin*")) == []   # no partial file left behind


def test_delete_artifacts_of_a_run(project):
    run = project.start_run("train", {})
    project.put_artifact(run, "a", "bin", io.BytesIO(_blob(2 * 1024 * 1024)))
    keep = project.put_artifact(None, "b", "bin", io.BytesIO(b"keep"))
    assert project.delete_artifacts(run) == 1
    assert [a.id for a in project.artifacts()] == [keep]
    assert project.artifacts(run_id=run) == []
    assert project._conn().execute("SELECT count(*) FROM artifact_chunks").fetchone()[0] == 1
    assert project._conn().execute("PRAGMA freelist_count").fetchone()[0] == 0


def test_a_cancelled_or_failed_run_keeps_no_artifact(tmp_path):
    """Issue 23 item 11: artifacts of cancelled runs were kept forever."""
    from app.project import Project
    blob = tmp_path / "weights.bin"
    blob.write_bytes(b"w" * 1000)
    with Project.create(tmp_path / "p.deid", []) as p:
        runs = {status: p.start_run("train", {}) for status in ("done", "cancelled", "failed")}
        for status, run in runs.items():
            p.put_artifact(run, "member:crf", "model", blob)
            p.finish_run(run, status)
        assert {a.run_id for a in p.artifacts()} == {runs["done"]}


def test_a_killed_runs_artifacts_are_removed_on_the_next_open(tmp_path):
    from app.project import Project
    blob = tmp_path / "weights.bin"
    blob.write_bytes(b"w" * 1000)
    path = tmp_path / "p.deid"
    p = Project.create(path, [])
    killed = p.start_run("train", {})
    p.put_artifact(killed, "member:spacy", "model", blob)
    p.close()                                   # as if killed: the run is still 'running'
    with Project.open(path) as again:
        assert again.interrupted_runs == (killed,)
        assert again.artifacts() == []
        assert any(e.event == "artifacts_of_unfinished_runs_removed" for e in again.audit_entries())
