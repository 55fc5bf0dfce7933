"""Propagation learned in training, applied by the predictor (annotate, redact, evaluate)."""
from types import SimpleNamespace

from app.core.bio import spans_to_tags
from app.core.spans import Span
from app.core.tokenize import segment
from app.models.base import TaggedSegment, TagSeq
from app.services.predictor import Predictor, propagation_labels
from app.services.training import _fit_propagation, propagation_summary

TEXT = "Paciente: Ana Ruiz.\nAna Ruiz acude con su hija.\nFirma: Dr Gil.\n"


class FirstMentionOnly:
    """A member that finds "Ana Ruiz" only in the first line."""

    def predict(self, items):
        out = []
        for text, seg in items:
            spans = [Span(10, 18, "PERSON")] if seg.start == 0 else []
            tags, _ = spans_to_tags(seg.tokens, spans)
            out.append(TagSeq(tags, [0.9] * len(tags)))
        return out


def test_the_predictor_tags_the_recurring_string_when_the_run_learned_it():
    member = {"m": FirstMentionOnly()}
    plain = Predictor("m", member).predict([TEXT])[0].spans
    assert [(TEXT[s.start:s.end], s.start) for s in plain] == [("Ana Ruiz", 10)]
    spans = Predictor("m", member, propagate=["PERSON"]).predict([TEXT])[0].spans
    assert [(TEXT[s.start:s.end], s.label, s.start) for s in spans] == [
        ("Ana Ruiz", "PERSON", 10), ("Ana Ruiz", "PERSON", 20)]


def test_training_learns_the_labels_on_dev_notes():
    gold_spans = [Span(10, 18, "PERSON"), Span(20, 28, "PERSON")]
    dev = []
    for doc in ("a", "b"):
        for seg in segment(TEXT):
            tags, _ = spans_to_tags(seg.tokens, gold_spans)
            dev.append(TaggedSegment(doc, TEXT, seg, tuple(tags)))
    seqs = FirstMentionOnly().predict([(it.text, it.segment) for it in dev])
    learned = _fit_propagation("m", seqs, dev, beta=1.0)
    assert learned["candidate"] == "m" and learned["labels"] == ["PERSON"]
    assert learned["dev_before"] < learned["dev_after"] == 1.0
    assert "PERSON" in propagation_summary(learned) and propagation_summary(None) == ""

    run = SimpleNamespace(metrics={"propagation": learned})
    assert propagation_labels(run, "m") == ["PERSON"]
    assert propagation_labels(run, "another-candidate") == []
    assert propagation_labels(SimpleNamespace(metrics={}), "m") == []
