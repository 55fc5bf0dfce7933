"""One machine, every core: batched multi-worker redaction and annotation
write byte for byte what the one-note-at-a-time, one-process path writes."""
import sys
from pathlib import Path

import pytest

import app.deid.folder as folder
from app.cli.main import main
from app.project import Project
from app.services.annotating import annotate_folder
from app.services.redaction import redact_corpus
from app.synth import generate


@pytest.fixture(scope="module")
def day_one(tmp_path_factory):
    """A new English project (it predicts with the shipped starter model:
    rules, names, CRF) and 40 synthetic notes of 10 patients: three batches."""
    root = tmp_path_factory.mktemp("scale")
    project = root / "p.deid"
    assert main(["-q", "new", str(project), "--labels", "hipaa"]) == 0
    notes = root / "notes"
    notes.mkdir()
    for i, doc in enumerate(generate(40, seed=2121, locale="en_AU")):
        (notes / f"pt{i % 10:02d}_n{i:02d}.txt").write_text(doc.text, encoding="utf-8")
    return project, notes


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_batched_workers_write_what_one_note_at_a_time_writes(day_one, tmp_path, monkeypatch):
    project, notes = day_one
    with Project.open(project) as p:
        # Today's path: one process, each note predicted on its own, in order.
        monkeypatch.setattr(folder, "BATCH_NOTES", 1)
        one, _ = redact_corpus(p, notes, tmp_path / "one", strategy="surrogate",
                               patient_regex=r"^(pt\d+)_", workers=1)
        monkeypatch.undo()
        # Every core: batches of notes through the models in 2 worker processes.
        many, _ = redact_corpus(p, notes, tmp_path / "many", strategy="surrogate",
                                patient_regex=r"^(pt\d+)_", workers=2)
    assert one.workers == 1 and many.workers == 2
    assert one.count("done") == many.count("done") == 40
    a, b = _files(tmp_path / "one"), _files(tmp_path / "many")
    assert len(a) == 2 * 40 + 2              # notes, spans files, manifest, what was written
    assert a == b                                        # byte for byte, manifest included
    assert sum(n.leaks for n in one.notes) == sum(n.leaks for n in many.notes)


def test_annotate_with_workers_writes_the_same_files(day_one, tmp_path):
    project, notes = day_one
    with Project.open(project) as p:
        one = annotate_folder(p, notes, tmp_path / "one", batch=8, workers=1)
        many = annotate_folder(p, notes, tmp_path / "many", batch=8, workers=2)
    assert one.notes == many.notes == 40 and one.spans == many.spans > 0
    assert _files(tmp_path / "one") == _files(tmp_path / "many")


def test_cluster_without_the_extra_is_one_clear_error(day_one, tmp_path, monkeypatch, capsys):
    project, notes = day_one
    monkeypatch.setitem(sys.modules, "distributed", None)     # as if not installed
    code = main(["-q", "redact", str(project), str(notes), str(tmp_path / "out"),
                 "--cluster", "local:2"])
    assert code == 1
    err = capsys.readouterr().err
    assert "deid-studio[cluster]" in err and "Traceback" not in err
    assert not any((tmp_path / "out").glob("*.txt"))
