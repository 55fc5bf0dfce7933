"""Notes to do unlike the annotated ones, as a person meets them after a run:
the Train view says how many and offers them; Documents lists them, and
Next to annotate takes the most uncertain of them first (unscored: the most
unlike first), then (once they are done) the queue as before."""
from __future__ import annotations

from app.core.words import count

import pytest

from app.gui.qt import QFileDialog, Qt

from journey import choose, click, go, key, screenshot, shown, view_shown

pytestmark = pytest.mark.slow


@pytest.fixture
def letters_trained(tmp_path):
    """A project whose annotated notes are 30 letters, with 8 ICU notes and
    2 letters to do, trained by `deid train` on the rules (quick)."""
    from app.cli.main import main
    from app.core.labels import PRESETS
    from app.project import Project
    from app.synth import generate
    path = tmp_path / "ward.deid"
    with Project.create(path, list(PRESETS["paper"])) as p:
        letters = generate(32, seed=3, style="discharge")
        for i, d in enumerate(letters[:30]):
            p.add_document(d.name, d.text, patient_id=d.patient_id,
                           split="dev" if i % 5 == 0 else "train", status="done",
                           spans=d.spans, span_source="import")
        for d in letters[30:] + generate(8, seed=4, style="icu"):
            p.add_document(d.name, d.text, patient_id=d.patient_id)          # to do
    assert main(["-q", "train", str(path), "--models", "rules", "--budget", "quick"]) == 0
    return path


def _names_listed(w) -> list[str]:
    model = w.documents.table.model()
    return [model.data(model.index(r, 0)) for r in range(model.rowCount())]


def test_the_notes_unlike_the_annotated_are_offered_listed_and_taken_first(
        qtbot, settings, tmp_path, monkeypatch, letters_trained):
    from app.gui.main_window import MainWindow
    from app.project import Project
    from app.services.runs import active_run
    with Project.open(letters_trained) as p:
        unlike = active_run(p).unlike
        names = {i: p.document(i).name for i in unlike}
        letters_to_do = {i.name for i in p.document_infos(status="todo")} - set(names.values())
    assert unlike and len(letters_to_do) == 2

    w = MainWindow(settings)
    qtbot.addWidget(w)
    shown(w, qtbot)
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(letters_trained), ""))
    choose(qtbot, w, "File", "Open project…")
    go(qtbot, w, "Train")
    t = w.training
    offer = t.unlike_button
    assert offer.isVisible()
    assert offer.text() == f"Show the {len(unlike)} notes to do unlike the annotated ones"
    assert "read unlike the annotated ones" in t.reason_label.text()
    screenshot(w, "train_unlike_offer")

    click(qtbot, offer)
    assert view_shown(w) == "Documents"
    docs = w.documents
    assert docs.status_box.currentText() == "To do, unlike the annotated"
    assert _names_listed(w) == [names[i] for i in unlike]           # the most unlike first
    assert docs.count_label.text() == count(len(unlike), "document")
    screenshot(w, "documents_unlike")

    # Next to annotate: the most unlike note first; done, then the next one.
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)
    assert view_shown(w) == "Annotate"
    assert w.editor.title.text().split()[0] == names[unlike[0]]
    key(qtbot, w, Qt.Key_Return, Qt.ControlModifier)                    # done
    assert w.editor.status_label.text() == "Done"
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)
    assert w.editor.title.text().split()[0] == names[unlike[1]]

    # Documents counts those still to do; the Train view too, beside the run's
    # sentence that counts what it found.
    go(qtbot, w, "Documents")
    assert docs.count_label.text() == count(len(unlike) - 1, "document")
    go(qtbot, w, "Train")
    assert offer.text() == f"Show the {len(unlike) - 1} of them still to do"
    click(qtbot, offer)
    assert _names_listed(w) == [names[i] for i in unlike[1:]]

    # Pre-annotated (Train > Pre-annotate next notes): they are listed, and
    # taken, the most uncertain first.
    go(qtbot, w, "Train")
    with qtbot.waitSignal(t.preannotated, timeout=120000):
        click(qtbot, t.preannotate_button)
    click(qtbot, offer)
    model = docs.table.model()
    column = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount())
              ].index("Uncertainty")
    shown_order = [float(model.data(model.index(r, column))) for r in range(model.rowCount())]
    assert len(shown_order) == len(unlike) - 1 and shown_order == sorted(shown_order, reverse=True)
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)
    assert w.editor.title.text().split()[0] == _names_listed(w)[0]
    # Every one done (by another annotator, say): Next goes on with the queue,
    # and says so.
    for doc_id in unlike:
        w.project.set_document_fields(doc_id, status="done")
    key(qtbot, w, Qt.Key_Period, Qt.ControlModifier)
    assert w.editor.title.text().split()[0] in letters_to_do
    assert w.statusBar().currentMessage().startswith(
        "No note unlike the annotated ones is left to do")
    go(qtbot, w, "Documents")

    # The other filters are as before: every note to do, the letters too.
    docs.status_box.setFocus()
    key(qtbot, w, Qt.Key_Up, widget=docs.status_box)         # "Reviewed"
    key(qtbot, w, Qt.Key_Up, widget=docs.status_box)         # "Done"
    key(qtbot, w, Qt.Key_Up, widget=docs.status_box)         # "In progress"
    key(qtbot, w, Qt.Key_Up, widget=docs.status_box)         # "To do"
    assert docs.status_box.currentText() == "To do"
    assert letters_to_do <= set(_names_listed(w))
    w.close()
