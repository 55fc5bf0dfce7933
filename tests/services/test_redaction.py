"""Project redaction: honest re-runs (settings fingerprint), one redaction path."""
import pytest

from app.cli.main import main
from app.project import Project
from app.services.training import TrainConfig, train_project

from synth_projects import make_project


@pytest.fixture(scope="module")
def rules_trained(tmp_path_factory):
    """A project whose active run selected the rules model (trains in seconds)."""
    path = make_project(tmp_path_factory.mktemp("red") / "p.deid", n=15)
    with Project.open(path) as p:
        train_project(p, TrainConfig(models=["rules"], budget="quick"))
    return path


def _notes(project_path, folder, n=4):
    folder.mkdir()
    with Project.open(project_path, readonly=True) as p:
        for info in p.document_infos()[:n]:
            (folder / f"{info.name}.txt").write_text(p.document(info.id).text, encoding="utf-8")
    return folder


def test_model_after_rules_only_redoes_every_note(rules_trained, tmp_path, capsys):
    notes = _notes(rules_trained, tmp_path / "notes")
    out = tmp_path / "out"
    assert main(["-q", "redact", str(rules_trained), str(notes), str(out), "--rules-only"]) == 0
    capsys.readouterr()
    assert main(["-q", "redact", str(rules_trained), str(notes), str(out)]) == 0
    said = capsys.readouterr().out
    assert "redacted 4 notes" in said and "0 already done" in said
    assert "4 note(s) written before were redone: changed: the model" in said
    # The same settings again: nothing to redo.
    assert main(["-q", "redact", str(rules_trained), str(notes), str(out)]) == 0
    assert "4 already done" in capsys.readouterr().out
    # Strictness and the policy are part of the settings too.
    assert main(["-q", "redact", str(rules_trained), str(notes), str(out), "--strategy", "mask"]) == 0
    assert "redone: changed: the redaction policy" in capsys.readouterr().out


def test_export_into_a_used_folder_redoes_under_another_model(rules_trained, tmp_path):
    from app.gui.export_wizard import ExportRequest, export_documents
    out = tmp_path / "export"
    with Project.open(rules_trained) as p:
        first = export_documents(p, ExportRequest(out, rules_only=True))
        again = export_documents(p, ExportRequest(out))
    assert first.summary.count("done") == 15
    assert again.summary.count("resumed") == 0
    assert again.summary.redone() == {"changed: the model": 15}
