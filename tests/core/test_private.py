"""Private temp folders: removed on close, and swept when their owner died."""
import multiprocessing as mp
import os
import subprocess
import sys

from app.core.private import PrivateDir, _owner_tag, sweep_stale


def _folder(root, name, tag):
    folder = root / name
    (folder / "model").mkdir(parents=True)
    (folder / "model" / "weights.bin").write_bytes(b"x" * 10)
    if tag is not None:
        (folder / ".owner").write_text(tag, encoding="ascii")
    return folder


def _dead_pid_tag():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return f"{proc.pid} 12345.000"      # gone, or a different process with that pid


def test_sweep_removes_folders_of_dead_owners_only(tmp_path):
    dead = _folder(tmp_path, "deid-train-dead", _dead_pid_tag())
    alive = _folder(tmp_path, "deid-train-alive", _owner_tag(os.getpid()))
    foreign = _folder(tmp_path, "deid-train-foreign", None)
    other = _folder(tmp_path, "other-dead", _dead_pid_tag())
    garbled = _folder(tmp_path, "deid-model-garbled", "not a pid")

    assert sweep_stale(tmp_path) == [dead]
    assert not dead.exists()
    assert alive.exists() and foreign.exists() and other.exists() and garbled.exists()


def test_a_private_dir_names_its_owner_and_is_removed_on_close():
    private = PrivateDir("deid-test-")
    assert (private.path / ".owner").read_text(encoding="ascii") == _owner_tag(os.getpid())
    assert private.path.exists()
    private.close()
    assert not private.path.exists()


def _grandchild(ready):
    from app.core.parallel import end_with_parent
    import time
    end_with_parent()
    ready.put(os.getpid())
    time.sleep(120)


def _child(ready):
    ctx = mp.get_context("spawn")
    ctx.Process(target=_grandchild, args=(ready,)).start()
    import time
    time.sleep(120)


def test_a_training_worker_stops_when_its_parent_is_killed():
    import psutil
    ctx = mp.get_context("spawn")
    ready = ctx.Queue()
    parent = ctx.Process(target=_child, args=(ready,))
    parent.start()
    worker = psutil.Process(ready.get(timeout=60))
    parent.kill()                       # no chance to clean up after itself
    parent.join()
    try:
        worker.wait(timeout=20)
    except psutil.TimeoutExpired:
        worker.kill()
        raise AssertionError("the worker outlived its killed parent")


# --- issue 23 item 10: nothing with identifiers outlives a crash unattended ----

def test_private_folders_live_in_the_user_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_USER_DIR", str(tmp_path / "user"))
    with PrivateDir("deid-train-") as folder:
        assert folder.parent == tmp_path / "user" / "tmp"
        assert (folder.parent.stat().st_mode & 0o777) == 0o700


def test_every_command_sweeps_what_a_killed_training_left(tmp_path, monkeypatch):
    from app.cli.main import main
    monkeypatch.setenv("DEID_USER_DIR", str(tmp_path / "user"))
    root = tmp_path / "user" / "tmp"
    root.mkdir(parents=True)
    left = _folder(root, "deid-train-killed", _dead_pid_tag())
    (left / "stanza-x").mkdir()
    (left / "stanza-x" / "train.json").write_text('[["Alex Quill"]]', encoding="utf-8")
    assert main(["-q", "new", str(tmp_path / "p.deid")]) == 0
    assert not left.exists()


def test_a_file_being_written_never_sits_in_the_output_folder(tmp_path, monkeypatch):
    """A killed export left hidden .tmp files with names and an address that
    survived a later successful export."""
    from app.core.spans import Span
    from app.formats.base import TEMP_PREFIX
    monkeypatch.setenv("DEID_USER_DIR", str(tmp_path / "user"))
    out = tmp_path / "out"
    out.mkdir()
    (out / f"{TEMP_PREFIX}killed.tmp").write_text("T1\tPERSON 0 10\tAlex Quill", encoding="utf-8")
    renamed_from = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (renamed_from.append(a), real_replace(a, b)))
    from app.services.exporting import export_project
    from app.project import Project
    with Project.create(tmp_path / "p.deid", []) as p:
        p.add_document("n1", "Alex Quill was seen.", spans=[Span(0, 10, "PERSON")])
        export_project(p, out, "brat")
    assert renamed_from and all(os.path.dirname(a) != str(out) for a in renamed_from)
    # Beside the notes, only the record of what the export wrote (issue 35 item 4).
    assert sorted(x.name for x in out.iterdir()) == [".deid-written.jsonl", "n1.ann", "n1.txt"]
