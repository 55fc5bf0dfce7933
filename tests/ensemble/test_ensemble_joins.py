"""Joins: the glued words the training notes' annotators keep whole, learned
from their spans, predicted spans widened over them, kept unless dev disagrees."""
import pytest

from app.core.bio import spans_to_tags
from app.core.spans import Span
from app.ensemble.joins import describe_join, kept_joins, widen
from app.models.base import TagSeq
from app.services.finishing import finishing_summary, fit_finishing, joins_summary
from app.services.predictor import Predictor
from app.services.runs import TrainedRun
from dev_notes import tagged_dev

SLASH, DASH, GLUED = ("D", "/", "D"), ("D", "-", "D"), ("A", "", "D")


def _at(text: str, piece: str, label: str, after: int = 0) -> Span:
    start = text.index(piece, after)
    return Span(start, start + len(piece), label)


def _train() -> list[tuple[str, list[Span]]]:
    """Dates glued by "/" and "-" marked whole; ward names glued to their
    number marked whole as often as without it."""
    docs = []
    for day in range(1, 7):
        text = f"Seen on {day}/1{day} and again {day}-{day + 1}. To WARD{day} today."
        ward = _at(text, f"WARD{day}", "LOCATION")
        if day % 2:
            ward = Span(ward.start, ward.end - 1, "LOCATION")   # the number left out
        docs.append((text, [_at(text, f"{day}/1{day}", "DATE"),
                            _at(text, f"{day}-{day + 1}", "DATE"), ward]))
    return docs


def test_the_joins_annotators_keep_whole():
    joins = kept_joins(_train())
    assert joins == {SLASH, DASH}
    assert GLUED not in kept_joins(_train(), max_share=0.2)        # cut 3 times of 6
    assert GLUED in kept_joins(_train(), max_share=0.5)
    assert kept_joins(_train()[:2]) == frozenset()                 # 2 of each: too few to tell
    assert kept_joins([]) == frozenset()
    assert describe_join(SLASH) == "digits/digits" and describe_join(GLUED) == "letters then digits"
    # A bracket or comma between them is quoted, so a list of joins still reads.
    assert describe_join(("D", ")", "D")) == 'digits ")" digits'
    assert describe_join(("A", ",", "D")) == 'letters "," digits'


def test_widening_covers_the_whole_glued_word_and_nothing_past_it():
    text = "UO-9/10 then 7-8 and 1-2-3 on 10/15; x 4/5 in WARD7"
    joins = frozenset({SLASH, DASH})
    spans = [Span(text.index("/10"), text.index("/10") + 3, "DATE"),   # starts at the "/"
             _at(text, "8", "DATE"),
             _at(text, "3", "DATE", text.index("1-2-3")),                # the last of three
             _at(text, "10", "DATE", 28), _at(text, "15", "DATE"),      # two halves of one date
             _at(text, "WARD", "LOCATION")]
    out = widen(text, spans, joins)
    assert [(text[s.start:s.end], s.label) for s in out] == [
        ("9/10", "DATE"), ("7-8", "DATE"), ("1-2-3", "DATE"), ("10/15", "DATE"),
        ("WARD", "LOCATION")]
    assert widen(text, spans, frozenset()) == spans
    assert [text[s.start:s.end] for s in widen(text, spans, frozenset({GLUED}))][-1] == "WARD7"
    untouched = [_at(text, "4/5", "DATE")]
    assert widen(text, untouched, joins) == untouched


TEXT = "Back to theatre on 7-8 for coiling.\n"


class HalfTheDate:
    """A member that tags only the "8" of "7-8"."""

    def predict(self, items):
        out = []
        for text, seg in items:
            found = [s for s in (_at(text, "8", "DATE"),) if seg.start <= s.start and s.end <= seg.end]
            tags, _ = spans_to_tags(seg.tokens, found)
            out.append(TagSeq(tags, [0.7] * len(tags)))
        return out


def _dev(gold):
    return tagged_dev(TEXT, gold)


def test_training_keeps_the_joins_and_the_predictor_widens():
    dev = _dev([_at(TEXT, "7-8", "DATE")])
    seqs = HalfTheDate().predict([(it.text, it.segment) for it in dev])
    record = fit_finishing("m", seqs, dev, {"m": seqs}, beta=2.0, train_docs=_train()).joins
    assert record["joins"] == [list(DASH), list(SLASH)] and record["dev_notes_changed"] == 2
    assert record["dev_before"] < record["dev_after"] == 1.0 and record["dev_tokens_lost"] < 0
    line = joins_summary(record)
    assert line.startswith("Glued words: a span that covers part of a word") and "digits-digits" in line

    run = TrainedRun(1, joins=record)
    assert line in finishing_summary(run)
    assert not run.edge_words("other")
    spans = Predictor("m", {"m": HalfTheDate()}, edges=run.edge_words("m")).predict([TEXT])[0].spans
    assert [TEXT[s.start:s.end] for s in spans] == ["7-8"]
    # Stored and read back as the run record keeps it.
    assert TrainedRun.of(_Record(run.metrics())).edge_words("m").joins == {DASH, SLASH}


def test_joins_dev_disagrees_with_are_off_and_none_learned_says_so():
    dev = _dev([_at(TEXT, "8", "DATE")])      # dev's annotator marked the "8" alone
    seqs = HalfTheDate().predict([(it.text, it.segment) for it in dev])
    record = fit_finishing("m", seqs, dev, {"m": seqs}, beta=2.0, train_docs=_train()).joins
    assert record["joins"] == [] and record["learned"] == 2
    assert "loses on dev, so it is off" in joins_summary(record)
    none = fit_finishing("m", seqs, dev, {"m": seqs}, beta=2.0, train_docs=[]).joins
    assert none["learned"] == 0 and "no glued word" in joins_summary(none)
    # A dev with no partial prediction of a glued word keeps what training learned.
    quiet = _dev([])
    nothing = [TagSeq(["O"] * len(it.segment.tokens), [1.0] * len(it.segment.tokens)) for it in quiet]
    kept = fit_finishing("m", nothing, quiet, {"m": nothing}, beta=2.0, train_docs=_train()).joins
    assert kept["joins"] and kept["dev_notes_changed"] == 0


class _Record:
    def __init__(self, metrics):
        self.id, self.status, self.config, self.metrics = 1, "done", {}, metrics


@pytest.mark.timeout(120)
def test_widening_a_huge_notes_spans_stays_linear():
    text = "1/2 " * 100_000
    spans = [Span(4 * i + 2, 4 * i + 3, "DATE") for i in range(100_000)]    # every "2"
    out = widen(text, spans, frozenset({SLASH}))
    assert len(out) == 100_000 and all(text[s.start:s.end] == "1/2" for s in out)

