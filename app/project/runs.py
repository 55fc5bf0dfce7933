"""Runs (train/predict/redact jobs) and their chunked artifacts."""
from __future__ import annotations

import hashlib
import io
import os
import shutil
import tarfile
from pathlib import Path
from typing import BinaryIO

from .core import ProjectCore, dumps, loads
from .errors import ProjectError
from .lock import writer_gone
from .records import ArtifactRecord, RunRecord
from .schema import NOW, RUN_STATUSES

#: Bytes per artifact chunk: big enough for few rows, small enough that a
#: 200 MB model never has to sit in memory at once.
CHUNK_SIZE = 4 * 1024 * 1024

_RUN_COLS = "id, kind, status, config_json, metrics_json, started_at, finished_at"
_ART_COLS = "id, run_id, name, kind, packing, meta_json, size, sha256, created_at"


def _run(row) -> RunRecord:
    return RunRecord(row[0], row[1], row[2], loads(row[3]), loads(row[4]), row[5], row[6])


#: Stored in ``metrics_json`` of a run whose process ended without finishing it.
INTERRUPTED = "interrupted"


def _as_interrupted(record: RunRecord) -> RunRecord:
    """A ``running`` record as a writable open stores it once its process is gone."""
    return RunRecord(record.id, record.kind, "cancelled", record.config,
                     {**(record.metrics or {}), INTERRUPTED: True}, record.started_at,
                     record.finished_at)


def is_interrupted(record: RunRecord) -> bool:
    """The run's process ended (killed, crashed) before it finished the run."""
    return bool((record.metrics or {}).get(INTERRUPTED))


def _artifact(row) -> ArtifactRecord:
    return ArtifactRecord(*row[:5], loads(row[5]), *row[6:])


class _ChunkWriter(io.RawIOBase):
    """Write-only stream that stores what it is given as numbered chunks."""

    def __init__(self, db, artifact_id: int) -> None:
        super().__init__()
        self._db, self._id = db, artifact_id
        self._buf = bytearray()
        self.seq = self.size = 0
        self.hash = hashlib.sha256()

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._buf += data
        while len(self._buf) >= CHUNK_SIZE:
            self._store(bytes(self._buf[:CHUNK_SIZE]))
            del self._buf[:CHUNK_SIZE]
        return len(data)

    def finish(self) -> None:
        if self._buf:
            self._store(bytes(self._buf))
            self._buf.clear()

    def _store(self, chunk: bytes) -> None:
        self._db.execute("INSERT INTO artifact_chunks (artifact_id, seq, data) VALUES (?, ?, ?)",
                         (self._id, self.seq, chunk))
        self.hash.update(chunk)
        self.seq += 1
        self.size += len(chunk)


class _ChunkReader(io.RawIOBase):
    """Read-only stream over an artifact's chunks, one chunk in memory.

    Checks size and SHA-256 at the end of the data and raises
    ``ProjectError`` if the stored blob was damaged.
    """

    def __init__(self, project: "RunsMixin", record: ArtifactRecord) -> None:
        super().__init__()
        self._project, self._record = project, record
        self._seq = 0
        self._chunk = memoryview(b"")
        self._hash = hashlib.sha256()
        self._size = 0
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if not self._chunk and not self._next_chunk():
            return 0
        n = min(len(buffer), len(self._chunk))
        buffer[:n] = self._chunk[:n]
        self._chunk = self._chunk[n:]
        return n

    def _next_chunk(self) -> bool:
        if self._done:
            return False
        with self._project._read() as db:
            row = db.execute("SELECT data FROM artifact_chunks WHERE artifact_id = ? AND seq = ?",
                             (self._record.id, self._seq)).fetchone()
        if row is None:
            self._done = True
            if (self._size != self._record.size
                    or self._hash.hexdigest() != self._record.sha256):
                raise ProjectError(f"artifact {self._record.id} is damaged (checksum mismatch)")
            return False
        self._seq += 1
        self._size += len(row[0])
        self._hash.update(row[0])
        self._chunk = memoryview(row[0])
        return bool(self._chunk) or self._next_chunk()


# Final statuses of a run that did not finish: nothing of it is kept.
_UNFINISHED = ("cancelled", "failed")


class RunsMixin(ProjectCore):
    """Runs and artifacts."""

    # ----------------------------------------------------------------- runs
    def start_run(self, kind: str, config: dict) -> int:
        """Record a job as ``running`` and return its id.

        If the process dies before :meth:`finish_run`, the next writable open
        marks the run ``cancelled``.
        """
        with self._write() as db:
            return db.execute("INSERT INTO runs (kind, status, config_json) VALUES (?, 'running', ?)",
                              (kind, dumps(config))).lastrowid

    def finish_run(self, run_id: int, status: str, metrics: dict | None = None) -> None:
        """Record how a run ended. A ``cancelled`` or ``failed`` run's
        artifacts are deleted with it: nothing reuses them (only a finished
        run's members are reused), and model files can hold training words."""
        if status == "running" or status not in RUN_STATUSES:
            raise ValueError(f"invalid final run status {status!r}")
        with self._write() as db:
            cur = db.execute(f"UPDATE runs SET status = ?, metrics_json = ?, finished_at = {NOW}"
                             " WHERE id = ?",
                             (status, None if metrics is None else dumps(metrics), run_id))
            if cur.rowcount == 0:
                raise ProjectError(f"no run with id {run_id}")
            if status in _UNFINISHED:
                db.execute("DELETE FROM artifacts WHERE run_id = ?", (run_id,))

    def runs(self, kind: str | None = None) -> list[RunRecord]:
        """Runs, newest first, optionally of one kind."""
        sql, args = f"SELECT {_RUN_COLS} FROM runs", []
        if kind is not None:
            sql, args = sql + " WHERE kind = ?", [kind]
        with self._read() as db:
            records = [_run(row) for row in db.execute(sql + " ORDER BY id DESC", args)]
        return [self._judged(r) for r in records]

    def run(self, run_id: int) -> RunRecord:
        with self._read() as db:
            row = db.execute(f"SELECT {_RUN_COLS} FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise ProjectError(f"no run with id {run_id}")
        return self._judged(_run(row))

    def _judged(self, record: RunRecord) -> RunRecord:
        """A read-only open cannot mark a killed run, and read it ``running``
        for good: it says ``cancelled`` and interrupted, as the next writable
        open will store, once no process can still be writing the project."""
        if record.status == "running" and self.readonly and writer_gone(self.path):
            return _as_interrupted(record)
        return record

    def _interrupted_for_reading(self) -> list[int]:
        """Ids of the runs a read-only open reads as interrupted."""
        with self._read() as db:
            ids = [row[0] for row in db.execute("SELECT id FROM runs WHERE status = 'running'")]
        return ids if ids and writer_gone(self.path) else []

    def _cancel_interrupted_runs(self) -> list[int]:
        """Mark runs left ``running`` by a crash as ``cancelled`` and
        interrupted (:func:`is_interrupted`; Buzz's pattern).

        Only called on a writable open: the write lock proves no other
        process can still be running them.
        """
        with self._write() as db:
            ids = [row[0] for row in db.execute("SELECT id FROM runs WHERE status = 'running'")]
            if ids:
                db.execute(f"UPDATE runs SET status = 'cancelled', finished_at = {NOW},"
                           " metrics_json = json_set(coalesce(metrics_json, '{}'),"
                           f" '$.{INTERRUPTED}', json('true')) WHERE status = 'running'")
                db.execute("INSERT INTO audit_log (event, detail_json) VALUES (?, ?)",
                           ("runs_interrupted", dumps({"run_ids": ids})))
            # What a killed run stored before it died (and what files made
            # before runs cleaned up after themselves still hold).
            removed = db.execute(
                "DELETE FROM artifacts WHERE run_id IN (SELECT id FROM runs WHERE status IN"
                f" ({', '.join('?' * len(_UNFINISHED))}))", _UNFINISHED).rowcount
            if removed:
                db.execute("INSERT INTO audit_log (event, detail_json) VALUES (?, ?)",
                           ("artifacts_of_unfinished_runs_removed", dumps({"artifacts": removed})))
        if removed:
            self.reclaim_space()
        return ids

    # ------------------------------------------------------------ artifacts
    def put_artifact(self, run_id: int | None, name: str, kind: str,
                     source: str | os.PathLike | BinaryIO, meta: dict | None = None) -> int:
        """Stream a file, a directory (as a tar) or a binary file object in.

        Memory stays bounded by :data:`CHUNK_SIZE`. The whole artifact is one
        transaction: an interrupted put leaves nothing behind.
        """
        path = None if hasattr(source, "read") else Path(source)
        if path is not None and not path.exists():
            raise ProjectError(f"cannot store artifact: {path.name} does not exist")
        packing = "tar" if path is not None and path.is_dir() else "file"
        with self._write() as db:
            art_id = db.execute(
                "INSERT INTO artifacts (run_id, name, kind, packing, meta_json)"
                " VALUES (?, ?, ?, ?, ?)",
                (run_id, name, kind, packing, dumps(meta or {}))).lastrowid
            out = _ChunkWriter(db, art_id)
            if packing == "tar":
                with tarfile.open(fileobj=out, mode="w|") as tar:
                    tar.add(path, arcname=".")
            elif path is not None:
                with path.open("rb") as src:
                    shutil.copyfileobj(src, out, CHUNK_SIZE)
            else:
                shutil.copyfileobj(source, out, CHUNK_SIZE)
            out.finish()
            db.execute("UPDATE artifacts SET size = ?, sha256 = ? WHERE id = ?",
                       (out.size, out.hash.hexdigest(), art_id))
            return art_id

    def artifact(self, artifact_id: int) -> ArtifactRecord:
        with self._read() as db:
            row = db.execute(f"SELECT {_ART_COLS} FROM artifacts WHERE id = ?",
                             (artifact_id,)).fetchone()
        if row is None:
            raise ProjectError(f"no artifact with id {artifact_id}")
        return _artifact(row)

    def artifacts(self, run_id: int | None = None) -> list[ArtifactRecord]:
        """Artifacts in id order, all of them or those of one run."""
        sql, args = f"SELECT {_ART_COLS} FROM artifacts", []
        if run_id is not None:
            sql, args = sql + " WHERE run_id = ?", [run_id]
        with self._read() as db:
            return [_artifact(row) for row in db.execute(sql + " ORDER BY id", args)]

    def open_artifact(self, artifact_id: int) -> BinaryIO:
        """A binary stream of the stored bytes (a tar stream for directories).

        Reading to the end verifies size and SHA-256 (``ProjectError`` if damaged).
        """
        return io.BufferedReader(_ChunkReader(self, self.artifact(artifact_id)), CHUNK_SIZE)

    def extract_artifact(self, artifact_id: int, dest_path: str | os.PathLike) -> Path:
        """Write an artifact to ``dest_path`` (a file, or a directory for tars).

        ``dest_path`` must not exist. The data is written beside it under a
        temporary name and renamed into place only once verified, so a
        damaged artifact never leaves a partial file or directory.
        """
        dest = Path(dest_path)
        if dest.exists():
            raise ProjectError(f"{dest.name} already exists; refusing to overwrite it")
        record = self.artifact(artifact_id)
        tmp = dest.with_name(f".{dest.name}.part{os.getpid()}")
        try:
            with self.open_artifact(artifact_id) as stream:
                if record.packing == "tar":
                    tmp.mkdir()
                    with tarfile.open(fileobj=stream, mode="r|") as tar:
                        tar.extractall(tmp, filter="data")
                    while stream.read(CHUNK_SIZE):  # tar padding: read to the end to verify
                        pass
                else:
                    with tmp.open("wb") as out:
                        shutil.copyfileobj(stream, out, CHUNK_SIZE)
            os.replace(tmp, dest)
        finally:
            if tmp.is_dir():
                shutil.rmtree(tmp)
            else:
                tmp.unlink(missing_ok=True)
        return dest

    def delete_artifacts(self, run_id: int) -> int:
        """Delete the artifacts of a run and return how many.

        Outside a transaction the freed space is given back to the file
        system at once; inside one, by the next :meth:`reclaim_space`.
        """
        with self._write() as db:
            n = db.execute("DELETE FROM artifacts WHERE run_id = ?", (run_id,)).rowcount
        self.reclaim_space()
        return n
