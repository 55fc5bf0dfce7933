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


THRESHOLD_TEXT = "Seen by Smith at General ward today.\n"


class Thresholded:
    """A member tagging "Smith", "General" and "today" at 0.5, "today"
    dropped at 0.6, nothing at 0.7 (its own threshold 0.5)."""

    threshold = 0.5
    WORDS = {0.5: ("Smith", "General", "today"), 0.6: ("Smith", "General"), 0.7: ()}

    def retagger(self, items):
        from app.models.base import Retagger

        def at(t):
            words = self.WORDS[max(k for k in self.WORDS if k <= t)]
            out = []
            for text, seg in items:
                spans = [Span(text.index(w), text.index(w) + len(w), "PERSON") for w in words]
                tags, _ = spans_to_tags(seg.tokens, spans)
                out.append(TagSeq(tags, [0.9] * len(tags)))
            return out
        return Retagger(self.threshold, (0.6, 0.7), at)

    def predict(self, items):
        return self.retagger(items).at(self.threshold)


def test_a_selected_member_s_threshold_is_raised_while_its_output_hides_as_much():
    from app.services.finishing import fit_threshold, threshold_summary

    dev = tagged_dev(THRESHOLD_TEXT, [Span(8, 13, "PERSON")])
    items = [(s.text, s.segment) for s in dev]
    record, seqs = fit_threshold("m", Thresholded().retagger(items), dev)
    # 0.7 would leave "Smith" in clear: 0.6 drops "today" and hides as much.
    assert record["fit"] == 0.5 and record["threshold"] == 0.6
    assert [r["false"] for r in record["tried"]] == [4, 2, 0]
    assert seqs == Thresholded().retagger(items).at(0.6)
    assert "not its own 0.50" in threshold_summary(record)

    # Written with a floor that finds "Smith" itself, 0.7 hides as much and tags nothing false.
    def floor(text, spans, steps):
        return [*spans, Span(8, 13, "PERSON")] if not any(s.start == 8 for s in spans) else spans
    record, _ = fit_threshold("m", Thresholded().retagger(items), dev, floor)
    assert record["threshold"] == 0.7


def test_a_member_without_a_threshold_to_raise_keeps_its_own():
    from app.services.finishing import fit_threshold

    dev = tagged_dev(THRESHOLD_TEXT, [Span(8, 13, "PERSON")])
    assert fit_threshold("m", None, dev) == (None, None)
    record, seqs = fit_threshold("m", Thresholded().retagger([(s.text, s.segment) for s in dev])
                                 ._replace(higher=(0.7,)), dev)
    assert record["threshold"] == 0.5 and seqs == Thresholded().retagger(
        [(s.text, s.segment) for s in dev]).at(0.5)


def test_the_predictor_tags_at_the_run_s_threshold_and_shows_the_member_at_its_own():
    run = TrainedRun(1, threshold={"candidate": "m", "fit": 0.5, "threshold": 0.6, "tried": []})
    assert run.member_threshold("m") == 0.6 and run.member_threshold("other") is None
    assert TrainedRun(1).member_threshold("m") is None
    pred = Predictor("m", {"m": Thresholded()}, threshold=run.member_threshold("m"))
    out = pred.predict([THRESHOLD_TEXT], with_members=True)[0]
    assert [THRESHOLD_TEXT[s.start:s.end] for s in out.spans] == ["Smith", "General"]
    assert [THRESHOLD_TEXT[s.start:s.end] for s in out.member_spans["m"]] == [
        "Smith", "General", "today"]


def test_a_run_raises_the_threshold_only_on_a_dev_large_enough_to_trust(tmp_path):
    from types import SimpleNamespace

    from app.ensemble.specs import MIN_TUNING_ENTITIES
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.training import raise_threshold

    dev = tagged_dev(THRESHOLD_TEXT, [Span(8, 13, "PERSON")])
    read = Thresholded().retagger([(s.text, s.segment) for s in dev])
    members, plan = SimpleNamespace(retaggers={"m": read}), SimpleNamespace(split_dev=dev)
    with Project.create(tmp_path / "p.deid", list(PRESETS["paper"])) as project:
        few = SimpleNamespace(n_entities=MIN_TUNING_ENTITIES - 1)
        assert raise_threshold(project, members, "m", plan, few) == (None, None)
        enough = SimpleNamespace(n_entities=MIN_TUNING_ENTITIES)
        record, seqs = raise_threshold(project, members, "m", plan, enough)
        # Written with the English floor, "General" and "today" are dropped
        # at 0.5 already: 0.6 gains nothing, and a tie keeps the member's own.
        assert [r["false"] for r in record["tried"]] == [0, 0, 0]
        assert record["threshold"] == 0.5 and seqs is None
        # A candidate that is no thresholded member keeps what it is.
        assert raise_threshold(project, members, "voting[all]", plan, enough) == (None, None)


def test_the_details_say_why_learned_and_fixed_steps_start_from_different_figures():
    """A walkthrough read three "before" figures of one model's dev F2: the
    learned steps are scored on the model's own spans, the fixed ones with the
    starter's day-one spans too."""
    from app.services.finishing import finishing_summary
    from app.services.runs import TrainedRun
    run = TrainedRun(1, propagation={"candidate": "first", "labels": ["PERSON"], "beta": 2.0,
                                     "dev_before": 0.9943, "dev_after": 0.9957},
                     fixed={"tried": {"vetoes.v1": {
                         "changed": True, "kept": False, "beta": 2.0, "dev_before": 0.9347,
                         "dev_after": 0.9151, "dev_tokens_lost": 0}}},
                     starter_floor={"labels": ["NAME"], "left_out": []})
    lines = finishing_summary(run)
    how = next(i for i, line in enumerate(lines) if line.startswith("Each step below"))
    assert any(line.startswith("Propagation in a note") for line in lines[how + 1:])
    run.starter_floor = None
    assert not any(line.startswith("Each step below") for line in finishing_summary(run))
