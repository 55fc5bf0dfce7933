"""The finishing steps (recall fill, propagation) learned in training on dev
notes and applied by the predictor (annotate, redact, evaluate)."""
import pytest

from app.core.bio import spans_to_tags
from app.core.spans import Span
from app.core.tokenize import segment
from app.models.base import TaggedSegment, TagSeq
from app.services.finishing import (fill_summary, finishing_summary, fit_finishing,
                                    joins_summary, propagation_summary, unmarked_summary)
from app.services.predictor import Predictor
from app.services.runs import TrainedRun
from dev_notes import tagged_dev

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


class AlsoPunctuation:
    """A member that tags "Ana Ruiz" and the colon and full stop after it."""

    def predict(self, items):
        out = []
        for text, seg in items:
            spans = [Span(8, 9, "PERSON"), Span(10, 18, "PERSON"), Span(18, 19, "PERSON")] \
                if seg.start == 0 else []
            tags, _ = spans_to_tags(seg.tokens, spans)
            out.append(TagSeq(tags, [0.9] * len(tags)))
        return out


def test_a_span_of_punctuation_alone_is_dropped_whatever_the_run_learned():
    spans = Predictor("m", {"m": AlsoPunctuation()}).predict([TEXT])[0].spans
    assert [TEXT[s.start:s.end] for s in spans] == ["Ana Ruiz"]


def test_training_learns_the_labels_on_dev_notes():
    gold_spans = [Span(10, 18, "PERSON"), Span(20, 28, "PERSON")]
    dev = []
    for doc in ("a", "b"):
        for seg in segment(TEXT):
            tags, _ = spans_to_tags(seg.tokens, gold_spans)
            dev.append(TaggedSegment(doc, TEXT, seg, tuple(tags)))
    seqs = FirstMentionOnly().predict([(it.text, it.segment) for it in dev])
    fill, learned, unmarked, edges, *_ = fit_finishing("m", seqs, dev, {"m": seqs}, beta=1.0)
    assert unmarked is edges is None      # no training notes given: these steps do not run
    assert fill["rules"] == []            # its own spans add nothing where it found nothing
    assert learned["candidate"] == "m" and learned["labels"] == ["PERSON"]
    assert learned["dev_before"] < learned["dev_after"] == 1.0
    assert "PERSON" in propagation_summary(learned) and propagation_summary(None) == ""

    run = TrainedRun(1, propagation=learned)
    assert run.propagation_labels("m") == ["PERSON"]
    assert run.propagation_labels("another-candidate") == []
    assert TrainedRun(1).propagation_labels("m") == []


class SignatureOnly:
    """A member that finds only the doctor on the signature line."""

    def predict(self, items):
        out = []
        for text, seg in items:
            spans = [Span(58, 61, "PERSON")] if text[seg.start:seg.end].startswith("Firma") else []
            tags, _ = spans_to_tags(seg.tokens, spans)
            out.append(TagSeq(tags, [0.7] * len(tags)))
        return out


def _dev(gold_spans):
    return tagged_dev(TEXT, gold_spans)


def test_training_learns_a_fill_from_another_member_then_propagates():
    assert TEXT[58:61] == "Gil"
    dev = _dev([Span(10, 18, "PERSON"), Span(20, 28, "PERSON"), Span(58, 61, "PERSON")])
    items = [(it.text, it.segment) for it in dev]
    first, sig = FirstMentionOnly().predict(items), SignatureOnly().predict(items)
    fill, prop, *_ = fit_finishing("first", first, dev, {"first": first, "sig": sig}, beta=1.0)
    assert fill["rules"] == [["sig", "PERSON"]] and fill["dev_before"] < fill["dev_after"]
    # Propagation is learned on the filled output: it still adds "Ana Ruiz" twice.
    assert prop["labels"] == ["PERSON"] and prop["dev_after"] == 1.0
    assert "PERSON from sig" in fill_summary(fill)
    assert len(finishing_summary(TrainedRun(1, fill=fill, propagation=prop))) == 2
    assert finishing_summary(TrainedRun(1)) == []
    _, off, *_ = fit_finishing("first", first, dev, {"sig": sig}, beta=1.0, use_propagation=False)
    assert off is None

    run = TrainedRun(1, fill=fill, propagation=prop)
    assert run.fill_rules("first") == [("sig", "PERSON")] and run.fill_rules("other") == []

    members = {"first": FirstMentionOnly(), "sig": SignatureOnly()}
    spans = Predictor("first", members, propagate=["PERSON"], fill=[("sig", "PERSON")]).predict([TEXT])[0].spans
    assert [TEXT[s.start:s.end] for s in spans] == ["Ana Ruiz", "Ana Ruiz", "Gil"]
    assert spans[-1].confidence == 0.7           # the member's own confidence
    plain = Predictor("first", members).predict([TEXT])[0].spans
    assert [TEXT[s.start:s.end] for s in plain] == ["Ana Ruiz"]


class EverySecondWord:
    """A member that calls "Ana Ruiz" and the word "con" names."""

    def predict(self, items):
        out = []
        for text, seg in items:
            found = [Span(a, b, "PERSON") for a, b in ((10, 18), (20, 28), (35, 38))
                     if seg.start <= a and b <= seg.end]
            tags, _ = spans_to_tags(seg.tokens, found)
            out.append(TagSeq(tags, [0.6] * len(tags)))
        return out


def test_training_learns_the_unmarked_words_from_the_training_notes():
    assert TEXT[35:38] == "con"
    dev = _dev([Span(10, 18, "PERSON"), Span(20, 28, "PERSON")])
    seqs = EverySecondWord().predict([(it.text, it.segment) for it in dev])
    # The training notes hold "con" five times, never inside an identifier.
    train = [("Ana acude con su hija. Luis con fiebre. Paz con tos.", [Span(0, 3, "PERSON")]),
             ("Vino con su hijo y con su madre.", [])]
    unmarked = fit_finishing("m", seqs, dev, {"m": seqs}, beta=1.0, train_docs=train).unmarked
    assert "con" in unmarked["words"] and "ana" not in unmarked["words"]
    assert unmarked["dev_before"] < unmarked["dev_after"] == 1.0
    assert unmarked["dev_tokens_lost"] == 0
    line = unmarked_summary(unmarked)
    assert "words your annotators never mark are dropped" in line and "con" not in line.split("(")[0]

    run = TrainedRun(1, unmarked=unmarked)
    assert "con" in run.unmarked_words("m") and run.unmarked_words("other") == frozenset()
    spans = Predictor("m", {"m": EverySecondWord()},
                      unmarked=run.unmarked_words("m")).predict([TEXT])[0].spans
    assert [TEXT[s.start:s.end] for s in spans] == ["Ana Ruiz", "Ana Ruiz"]

    # Not when dropping them costs dev its identifiers: "ana" and "ruiz" are unmarked in
    # these training notes (five times each, never annotated), but dev marks them.
    train = [("Ana Ruiz con " * 5, [])]
    kept_off = fit_finishing("m", seqs, dev, {"m": seqs}, beta=1.0, train_docs=train).unmarked
    assert kept_off["words"] == [] and "does not gain on dev" in unmarked_summary(kept_off)
    none = fit_finishing("m", seqs, dev, {"m": seqs}, beta=1.0, train_docs=[]).unmarked
    assert none["learned"] == 0 and "no word often enough" in unmarked_summary(none)


@pytest.mark.timeout(120)
def test_finishing_a_huge_notes_spans_stays_linear():
    """Issue 35 item 11: which spans a step dropped was found by comparing
    every span before it with every span after it, the square of a big
    note's spans. 100,000 spans of punctuation dropped beside 100,000 kept:
    the quadratic version needs hours."""
    from app.services.finishing import WORDED, finish
    text = ", a" * 100_000
    spans = [Span(3 * i + k, 3 * i + k + 1, "NAME") for i in range(100_000) for k in (0, 2)]
    removed: list = []
    kept = finish(text, spans, [], {}, [], [], removed=removed)
    assert len(kept) == 100_000 and all(text[s.start] == "a" for s in kept)
    assert len(removed) == 100_000 and {step for _, step in removed} == {WORDED}


@pytest.mark.slow
def test_a_real_training_stores_the_joins_and_every_path_reads_them(tmp_path):
    """The synthetic notes' dates are marked whole: the run learns digits/digits."""
    from app.project import Project
    from app.services.runs import active_run
    from app.services.training import TrainConfig, train_project
    from synth_projects import make_project

    path = make_project(tmp_path / "p.deid", n=20)
    with Project.open(path) as p:
        run = train_project(p, TrainConfig(models=["crf", "rules"], budget="quick",
                                           variants=["imbalanced"], ensembles=["voting"]))
    record = run.joins
    assert record["candidate"] == run.selected and ("D", "/", "D") in map(tuple, record["joins"])
    assert joins_summary(record) in finishing_summary(run)
    with Project.open(path, readonly=True) as p:
        stored = active_run(p)
        assert stored.joins == record and ("D", "/", "D") in stored.edge_words(stored.selected).joins
