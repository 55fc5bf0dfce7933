"""Inter-annotator agreement on planted two-annotator cases with known values."""
from __future__ import annotations

import pytest

from app.core.spans import Span
from app.services.agreement import (agreement, cohen_kappa, conflict_groups, label_f1,
                                    token_tags)

TEXT = "Dr Ann Lee met Bob Ray in Perth on Monday"
A = [Span(3, 10, "PERSON"), Span(15, 22, "PERSON"), Span(26, 31, "ADDRESS")]
B = [Span(3, 10, "PERSON"), Span(15, 22, "PERSON"), Span(26, 31, "PERSON")]


def test_planted_document_agreement():
    agr = agreement([(TEXT, A, B)])
    assert (agr.strict.tp, agr.strict.fp, agr.strict.fn) == (2, 1, 1)
    assert agr.f1 == pytest.approx(2 / 3)
    # 10 tokens, 9 agree; p_e = (5*5 + 2*3 + 2*2) / 100 = 0.35
    assert agr.tokens == 10
    assert agr.kappa_all == pytest.approx((0.9 - 0.35) / 0.65)
    # annotated tokens: Ann Lee Bob Ray Perth; p_o = 0.8, p_e = 0.4
    assert agr.annotated_tokens == 5
    assert agr.kappa_annotated == pytest.approx(2 / 3)
    assert label_f1(agr.per_label["PERSON"]) == pytest.approx(0.8)
    assert label_f1(agr.per_label["ADDRESS"]) == 0.0
    assert agr.per_label_kappa["PERSON"] == pytest.approx(0.8)
    [group] = agr.disagreements
    assert (group.start, group.end, group.kind) == (26, 31, "label")


def test_kappa_matches_sklearn():
    sklearn = pytest.importorskip("sklearn.metrics")
    a = token_tags(TEXT, A)
    b = token_tags(TEXT, B)
    assert cohen_kappa(a, b) == pytest.approx(sklearn.cohen_kappa_score(a, b))


def test_perfect_and_empty_agreement():
    agr = agreement([(TEXT, A, A), ("no identifiers here", [], [])])
    assert agr.f1 == 1.0 and agr.kappa_all == 1.0 and agr.kappa_annotated == 1.0
    assert agr.disagreements == []
    assert cohen_kappa([], []) == 1.0
    with pytest.raises(ValueError):
        cohen_kappa(["O"], [])


def test_conflict_groups_kinds_and_pooling():
    a = [Span(3, 10, "PERSON"), Span(15, 18, "PERSON")]
    b = [Span(3, 10, "PERSON"), Span(15, 22, "PERSON"), Span(35, 41, "DOB")]
    agreed, groups = conflict_groups(a, b)
    assert agreed == [Span(3, 10, "PERSON")]
    assert [(g.start, g.end, g.kind) for g in groups] == [(15, 22, "boundary"), (35, 41, "only_b")]
    assert groups[0].a == (Span(15, 18, "PERSON"),) and groups[0].b == (Span(15, 22, "PERSON"),)
    pooled = agreement([(TEXT, A, B), (TEXT, a, b)])
    assert (pooled.strict.tp, pooled.strict.fp, pooled.strict.fn) == (3, 3, 2)
    assert pooled.tokens == 20 and len(pooled.disagreements) == 3


def test_double_annotation_of_a_project(tmp_path):
    """Assign, each annotator's spans, the agreement over the shared notes,
    the adjudicated gold: the service the Agreement and Adjudicate views show."""
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.double_annotation import (assign_notes, project_agreement,
                                                save_adjudication, shared_documents)
    text = "Dr Ann Lee saw Bob Ray in Perth."
    with Project.create(tmp_path / "p.deid", list(PRESETS["paper"])) as p:
        doc = p.add_document("n1", text)
        p.add_document("n2", "Nothing to see.")
        assign_notes(p, [doc], ["ann", "bob"], actor="lead")
        assert shared_documents(p, "ann", "bob") == [doc] and p.assignments(doc) == ["ann", "bob"]
        p.add_span(doc, 3, 10, "PERSON", annotator="ann")
        p.add_span(doc, 26, 31, "ADDRESS", annotator="ann")
        p.add_span(doc, 3, 10, "PERSON", annotator="bob")
        p.add_span(doc, 26, 31, "PERSON", annotator="bob")
        measured = project_agreement(p, "ann", "bob")
        assert list(measured.items) == [doc] and measured.overall.f1 == pytest.approx(0.5)
        assert [g.kind for g in measured.overall.disagreements] == ["label"]
        gold = [Span(3, 10, "PERSON"), Span(26, 31, "ADDRESS")]
        save_adjudication(p, doc, gold, annotators=("ann", "bob"), agreed=1, choices=["A"],
                          actor="lead")
        assert [(s.start, s.label) for s in p.gold_spans(doc)] == [(3, "PERSON"), (26, "ADDRESS")]
        assert p.document(doc).status == "reviewed"
        entry = next(e for e in p.audit_entries() if e.event == "adjudicated")
        assert entry.actor == "lead" and entry.detail["took_a"] == 1
