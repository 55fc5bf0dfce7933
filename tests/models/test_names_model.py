"""The names member: shipped lists + context cues, any letter case."""
from __future__ import annotations

from app.models.base import Corpus, TaggedSegment, TrainContext, load_model
from app.models.names_model import NamesModel, NamesSpec
from app.core.bio import spans_to_tags
from app.core.spans import Span
from app.core.tokenize import segment


def names(text, model=None):
    model = model or NamesModel("PERSON")
    return [text[s.start:s.end] for s in model.predict_spans(text)]


def test_titles_relatives_and_contact_verbs_in_any_case():
    assert names("DR. SMITH AWARE OF BP") == ["SMITH"]
    assert names("dr jones in to see pt") == ["jones"]
    assert names("WIFE MARY IN TO VISIT, SON JOHN CALLED") == ["MARY", "JOHN"]
    assert names("case manager spoke with ingrid today") == ["ingrid"]
    assert names("Report given to Karen, RN") == ["Karen"]


def test_full_names_extend_over_listed_words():
    assert names("SEEN BY DR. JOHN SMITH TODAY") == ["JOHN SMITH"]


def test_common_words_need_context():
    # "MAY", "WILL", "BILL" are names and words: alone they are words.
    assert names("PT MAY NEED TRACH. WILL CONT TO MONITOR. BILL SENT") == []
    assert names("DR AWARE") == []
    assert names("SON BILL IN TO VISIT") == ["BILL"]
    assert names("SON WILL CALL TONIGHT") == []
    assert names("NEURO: A+OX3, MAE. CV: HR 80S") == []


def test_fit_learns_the_label_and_round_trips(tmp_path):
    text = "Seen by Dr Smith today."
    seg = segment(text)[0]
    start = text.index("Smith")   # test data: the planted name
    tags, _ = spans_to_tags(seg.tokens, [Span(start, start + 5, "NAME")])
    corpus = Corpus([TaggedSegment("d", text, seg, tuple(tags))], [], ["NAME", "DATE"])
    model = NamesSpec().fit(corpus, TrainContext(workdir=tmp_path))
    assert model.label == "NAME"
    model.save(tmp_path / "m")
    again = load_model(tmp_path / "m")
    assert isinstance(again, NamesModel) and names(text, again) == ["Smith"]
