"""Preview model words journey (issue 34 item 13): a trained project opened
from the File menu, a note opened from Documents and read in Preview, span
by span with Next. What found each span is said in words ("a word-pattern
model", "a majority vote of all 2 models"); their names
(crf-balanced, voting[all]) stay in the panel's tooltip, for experts."""
from __future__ import annotations

import re

import pytest

from app.gui.qt import QFileDialog

from journey import choose, click, go, open_row, screenshot, shown, synth_project

pytestmark = pytest.mark.slow

#: A candidate's or member's name as the runs store it.
EXPERT_NAME = re.compile(r"\b(crf|spacy|stanza|flair|voting|pruned|stacking)[-\[]|\[(all|top)")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A project of 30 synthetic notes with a quick CRF + rules run (vote of both)."""
    from app.project import Project
    from app.services.training import TrainConfig, train_project
    path = synth_project(tmp_path_factory.mktemp("words"))
    with Project.open(path) as p:
        train_project(p, TrainConfig(models=["crf", "rules"], variants=["balanced"],
                                     budget="quick", ensembles=["voting"]))
    return path


def test_preview_names_what_found_a_span_in_words(qtbot, settings, monkeypatch, trained):
    from app.gui.main_window import MainWindow
    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(trained), ""))
    choose(qtbot, w, "File", "Open project…")
    assert w.windowTitle().startswith("ward.deid")
    go(qtbot, w, "Documents")
    model = w.documents.table.model()
    note = model.data(model.index(0, 0))
    open_row(qtbot, w, note)
    go(qtbot, w, "Preview")
    p = w.preview
    qtbot.waitUntil(lambda: not p.status.text().startswith("Predicting"), timeout=120000)
    said, details, hovers = [], [], []
    for _ in range(len(p.order)):
        click(qtbot, p.next_button)
        said.append(p.info.text())
        details.append(p.info.toolTip())
    for pane in (p.original, p.redacted):
        hovers += [sel.format.toolTip() for sel in pane.extraSelections()]
    assert said, "no span to read"
    assert not [t for t in said + hovers if EXPERT_NAME.search(t)], \
        [t for t in said + hovers if EXPERT_NAME.search(t)]
    shown_words = " ".join(said)
    assert "Made by a " in shown_words              # the model that predicts, in words
    assert "read the note: a word-pattern model" in shown_words or \
        "read the note: the pattern rules" in shown_words  # the members that found it
    # The experts' names are still there, in the panel's tooltip.
    assert any(re.search(r"Made by: (crf-balanced|voting\[all\])", d) for d in details)
    assert any("Found exactly by: " in d for d in details)
    screenshot(w, "preview_model_words")
    w.close()
