"""What the training and evaluation services say about their figures."""
from __future__ import annotations

from app.cli.main import main
from app.services.evaluating import sample_size_note
from synth_projects import make_project


def test_cli_train_warns_of_a_small_dev_sample_as_the_train_view_does(tmp_path, capsys):
    """Dev scores from two notes were printed bare by deid train; the Train
    view already said they were too few to trust (issue 18 item 7)."""
    path = make_project(tmp_path / "p.deid", n=10)                 # 2 dev notes
    assert main(["-q", "train", str(path), "--models", "rules", "--budget", "quick"]) == 0
    assert "Small sample: the dev scores come from 2 notes with " in capsys.readouterr().out


def test_sample_size_note_only_below_the_floors():
    assert sample_size_note(5, 30) is None and sample_size_note(None, 3) is None
    assert "2 notes with 40 identifiers" in sample_size_note(2, 40)
    assert "one error moves them by 5 points" in sample_size_note(9, 20)
