"""PreviewView: aligned side-by-side redaction, live strategies, member support,
corrections that land in the annotations."""
from __future__ import annotations

import pytest

from app.core.labels import PRESETS
from app.deid import MappedSpan
from app.services.editing import AnnotationSession
from app.gui.qt import Qt
from app.project import Project
from app.services.training import TrainConfig, train_project
from app.synth import generate

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """30 synthetic notes with a quick spaCy + rules model trained on them."""
    p = Project.create(tmp_path_factory.mktemp("preview") / "p.deid", list(PRESETS["paper"]))
    for i, d in enumerate(generate(30, seed=3)):
        split = "test" if i % 5 == 0 else "dev" if i % 5 == 1 else "train"
        p.add_document(d.name, d.text, patient_id=d.patient_id, split=split, status="done",
                       spans=d.spans)
    train_project(p, TrainConfig(models=["spacy", "rules"], variants=["balanced"],
                                 budget="quick", ensembles=["voting"]))
    yield p
    p.close()


@pytest.fixture
def view(qtbot, project):
    from app.gui.preview_view import PreviewView
    v = PreviewView(project, "ann")
    qtbot.addWidget(v)
    v.resize(1100, 420)
    v.show()
    yield v
    v.shutdown()


def _doc(project, k: int = 0) -> int:
    return [i.id for i in project.document_infos(split="test")][k]


def _loaded(view, qtbot, doc_id: int, mode: str) -> None:
    view.load_document(doc_id)
    qtbot.waitUntil(lambda: not view.wait_for_prediction(), timeout=120000)
    view.mode_box.setCurrentIndex(view.mode_box.findData(mode))


def test_map_offset_both_ways():
    from app.deid.redact import map_offset
    span_map = [MappedSpan(5, 8, 5, 17, "PERSON", "tag"), MappedSpan(20, 30, 29, 29, "IDN", "remove")]
    assert map_offset(span_map, 3) == 3
    assert map_offset(span_map, 6) == 5                  # inside a span: its start
    assert map_offset(span_map, 10) == 19
    assert map_offset(span_map, 31) == 30
    assert map_offset(span_map, 19, forward=False) == 10


def test_side_by_side_text_is_aligned(view, qtbot, project):
    doc = _doc(project)
    _loaded(view, qtbot, doc, "annotations")
    text = project.document(doc).text
    gold = project.gold_spans(doc)
    result = view.result
    assert view.original.toPlainText() == text
    assert view.redacted.toPlainText() == result.text
    assert [(m.in_start, m.in_end, m.label) for m in result.span_map] == [s.key for s in gold]
    for m in result.span_map:
        assert result.text[m.out_start:m.out_end] == f"<**{m.label}**>"
    assert len(view.original.extraSelections()) == len(result.span_map)
    assert len(view.redacted.extraSelections()) == len(result.span_map)
    # Every stretch between replacements is the original text, unchanged.
    for a, b in zip([None, *result.span_map], [*result.span_map, None]):
        i0, o0 = (a.in_end, a.out_end) if a else (0, 0)
        i1 = b.in_start if b else len(text)
        assert result.text[o0:o0 + i1 - i0] == text[i0:i1]


def test_strategy_switch_redacts_again_live(view, qtbot, project):
    doc = _doc(project)
    _loaded(view, qtbot, doc, "annotations")
    labels = {m.label for m in view.result.span_map}
    assert "PERSON" in labels
    view.strategy_boxes["PERSON"].setCurrentText("bracket")
    out = view.redacted.toPlainText()
    assert "[PERSON]" in out and "<**PERSON**>" not in out
    view.set_strategy("PERSON", "mask")
    for m in view.result.span_map:
        if m.label == "PERSON":
            assert m.out_end - m.out_start == m.in_end - m.in_start
            assert not any(c.isalnum() for c in view.result.text[m.out_start:m.out_end])
    assert view.strategy_boxes["PERSON"].currentText() == "mask"
    view.save_policy()
    from app.services.redaction import project_policy
    assert project_policy(project).strategy_for("PERSON") == "mask"
    view.set_strategy("PERSON", "tag")
    view.save_policy()


def test_model_mode_shows_members_and_uncertain_first(view, qtbot, project):
    doc = _doc(project, 1)
    _loaded(view, qtbot, doc, "model")
    assert doc in view.predictions
    prediction = view.predictions[doc]
    assert set(prediction.member_spans) == {"spacy-balanced", "rules"}
    infos = view.infos
    assert infos and all(s.n_members == 2 for s in infos if s.origin == "model")
    certainties = [infos[i].certainty for i in view.order]
    assert certainties == sorted(certainties)
    view.step(1)
    first = view.infos[view.current]
    assert view.current == view.order[0]
    assert "models that read the note" in view.info.text() or first.origin == "accepted"
    # A click on the redacted pane selects the span in both panes.
    last = view.order[-1]
    m = view.infos[last].mapped
    view.set_current(last)                  # scrolls it into view
    view.set_current(None)
    pane = view.redacted
    rect = pane.cursorRect(pane.cursor_for(m.out_start + 1, m.out_start + 1))
    qtbot.mouseClick(pane.viewport(), Qt.LeftButton, pos=rect.center())
    assert view.current == last
    assert m.label in view.info.text()


def test_flag_miss_and_false_hit_become_corrections(view, qtbot, project):
    doc = _doc(project, 2)
    _loaded(view, qtbot, doc, "model")
    text = project.document(doc).text
    covered = {i for m in view.result.span_map for i in range(m.in_start, m.in_end)}
    # A word no span covers: flag it as a missed PERSON.
    start = next(i for i in range(len(text) - 4) if text[i:i + 4].isalpha()
                 and not covered & set(range(i, i + 4)) and (i == 0 or not text[i - 1].isalnum()))
    end = start
    while end < len(text) and text[end].isalpha():
        end += 1
    view.original.select(start, end)
    with qtbot.waitSignal(view.corrected) as blocker:
        span_id = view.flag_miss("PERSON")
    assert blocker.args == [doc]
    rec = project.span_record(span_id)
    assert (rec.start, rec.end, rec.label, rec.source, rec.status, rec.annotator) == \
        (start, end, "PERSON", "human", "accepted", "ann")
    assert (start, end, "PERSON") in {i.key for i in view.infos}
    assert project.audit_entries(limit=1)[0].event == "preview_flag_miss"
    # False hit on a predicted span: stored as rejected, gone from the preview.
    target = next(i for i, s in enumerate(view.infos) if s.origin == "model")
    key = view.infos[target].key
    view.set_current(target)
    view.flag_false_hit()
    rejected = [r for r in project.span_records(doc, status="rejected")
                if (r.start, r.end, r.label) == key]
    assert len(rejected) == 1 and rejected[0].annotator == "ann"
    assert key not in {s.key for s in view.infos}
    assert project.audit_entries(limit=1)[0].event == "preview_false_hit"
    # Both are ordinary, undoable edits in the annotation workspace.
    session = AnnotationSession(project, doc, "ann")
    assert session.can_undo()
    session.undo()
    session.undo()
    assert not project.span_records(doc, status="rejected")
    assert span_id not in {r.id for r in project.span_records(doc)}


def test_scrolling_is_synchronised(view, qtbot, project):
    longest = max(project.document_infos(split="test"),
                  key=lambda i: len(project.document(i.id).text)).id
    _loaded(view, qtbot, longest, "annotations")
    view.resize(900, 260)
    qtbot.wait(10)
    left, right = view.original.verticalScrollBar(), view.redacted.verticalScrollBar()
    assert left.maximum() > 0
    left.setValue(left.maximum())
    assert right.value() > 0
    top = view.original.top_offset()
    mapped = view.redacted.top_offset()
    from app.deid.redact import map_offset
    # The redacted pane's top line holds the mapped offset of the original's top.
    target = map_offset(view.result.span_map, top)
    line_start = view.redacted.toPlainText().rfind("\n", 0, target) + 1
    assert line_start <= mapped <= target or right.value() == right.maximum()
    left.setValue(0)
    assert right.value() == 0
