import pytest

from app.core.bio import spans_to_tags
from app.core.progress import Progress
from app.core.spans import Span
from app.core.tokenize import segment
from app.models.base import (Corpus, TaggedSegment, TrainContext, known_kinds, load_model,
                             read_meta, spec_class)
from app.models.rules_model import ANY_CUE, RulesModel, RulesSpec


def build(parts):
    """Text and gold spans from ``[(piece, label or None), ...]``."""
    text, spans = "", []
    for piece, label in parts:
        if label:
            spans.append(Span(len(text), len(text) + len(piece), label))
        text += piece
    return text, spans


def tagged(docs):
    out = []
    for k, (text, spans) in enumerate(docs):
        for seg in segment(text):
            tags, _ = spans_to_tags(seg.tokens, [s for s in spans if seg.start <= s.start < seg.end])
            out.append(TaggedSegment(f"d{k}", text, seg, tuple(tags)))
    return out


def train_docs():
    docs = []
    for mrn, dob, phone in (("1234567", "03/05/1950", "02 9382 1234"),
                            ("7654321", "11/12/1961", "02 9399 0000"),
                            ("5550001", "01/01/1940", "0412 345 678")):
        docs.append(build([
            ("MRN: ", None), (mrn, "IDN"), ("\nDOB: ", None), (dob, "DOB"),
            # Dates other than the DOB and ages are not identifiers in this project.
            ("\nAn 82-year-old seen 04/06/2014 and 05/06/2014 by Dr Who, ph ", None),
            (phone, "PHONE"), (".\n", None)]))
    return docs


LABELS = ["PERSON", "ADDRESS", "DOB", "IDN", "PHONE"]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    corpus = Corpus(tagged(train_docs()), [], LABELS)
    return RulesSpec().fit(corpus, TrainContext(tmp_path_factory.mktemp("w")))


def entry(model, category, cue):
    return next(e for e in model.mapping.entries if (e.category, e.cue) == (category, cue))


def test_mapping_is_learned(model):
    assert (entry(model, "ID", "mrn").label, entry(model, "ID", "mrn").precision) == ("IDN", 1.0)
    assert entry(model, "DATE", "dob").label == "DOB"
    assert entry(model, "PHONE", "tel").label == "PHONE"
    # Dates without a cue were never identifiers here: a learned "drop".
    assert entry(model, "DATE", None).label is None
    assert entry(model, "DATE", None).support == 6
    # DOB is 3 of 9 dates: below the threshold, so no date backs off to DOB.
    assert entry(model, "DATE", ANY_CUE).label is None
    assert entry(model, "AGE", ANY_CUE).label is None
    # Every gold span was found by a mapped rule.
    assert model.o_confidence == 1.0


def test_predict_maps_hits_and_backs_off(model):
    text = ("MRN: 9876543\nDOB: 02/02/1972\nFax: 02 9382 5555\n"
            "Admission date: 07/07/2020. A 70-year-old.\n")
    spans = model.predict_spans(text)
    got = [(text[s.start:s.end], s.label, s.confidence) for s in spans]
    # "fax" was never seen: it backs off to all PHONE hits (precision 1.0);
    # the admission date backs off to DATE/* which is a learned drop.
    assert got == [("9876543", "IDN", 1.0), ("02/02/1972", "DOB", 1.0),
                   ("02 9382 5555", "PHONE", 1.0)]


def test_predict_gives_a_tag_and_confidence_per_token(model):
    text = "MRN: 9876543 seen 02/02/2020"
    segs = segment(text)
    (out,) = model.predict([(text, segs[0])])
    assert out.tags == ["O", "O", "B-IDN", "O", "O", "O", "O", "O", "O"]
    assert len(out.confidences) == len(out.tags)


def test_min_support_and_threshold_are_honoured(tmp_path):
    corpus = Corpus(tagged(train_docs()), [], LABELS)
    strict = RulesSpec(min_support=4).fit(corpus, TrainContext(tmp_path))
    assert all(e.label is None for e in strict.mapping.entries)
    assert strict.predict_spans("MRN: 9876543") == []
    loose = RulesSpec(threshold=0.3).fit(corpus, TrainContext(tmp_path))
    assert entry(loose, "DATE", ANY_CUE).label == "DOB"


def test_save_load_gives_identical_predictions(model, tmp_path):
    model.save(tmp_path / "rules")
    assert read_meta(tmp_path / "rules")["kind"] == "rules"
    again = load_model(tmp_path / "rules")
    assert isinstance(again, RulesModel)
    text = "\n".join(t for t, _ in train_docs()) + "\nFax: 02 9382 5555, MRN 1112223."
    items = [(text, s) for s in segment(text)]
    assert again.predict(items) == model.predict(items)
    assert again.mapping.entries == model.mapping.entries
    assert again.o_confidence == model.o_confidence


def test_a_saved_model_of_another_kind_is_refused(model, tmp_path):
    from app.models.spacy_ner import SpacyNERModel
    model.save(tmp_path / "rules")
    with pytest.raises(ValueError, match="not a saved 'spacy' model: kind 'rules'"):
        SpacyNERModel.load(tmp_path / "rules")


def test_registry_knows_rules():
    assert "rules" in known_kinds()
    assert spec_class("rules") is RulesSpec


def test_fit_reports_progress(tmp_path):
    seen = []
    RulesSpec().fit(Corpus(tagged(train_docs()), [], LABELS),
                    TrainContext(tmp_path, progress=seen.append))
    assert seen and isinstance(seen[-1], Progress) and seen[-1].fraction == 1.0


@pytest.mark.parametrize("preset", ["paper", "extended", "hipaa", "meddocan"])
def test_presets_work_without_training(preset, tmp_path):
    model = RulesModel.from_preset(preset)
    text = "DOB: 03/05/1950 MRN 1234567, tel 02 9382 1234"
    labels = [s.label for s in model.predict_spans(text)]
    assert labels and len(labels) <= 3
    via_spec = RulesSpec(preset=preset).fit(Corpus([], [], []), TrainContext(tmp_path))
    assert via_spec.predict_spans(text) == model.predict_spans(text)


def test_paper_preset_labels():
    text = "DOB: 03/05/1950 MRN 1234567, tel 02 9382 1234, seen 04/06/2014"
    got = [(text[s.start:s.end], s.label) for s in RulesModel.from_preset("paper").predict_spans(text)]
    assert got == [("03/05/1950", "DOB"), ("1234567", "IDN"), ("02 9382 1234", "PHONE")]


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        RulesSpec(threshold=0)
    with pytest.raises(ValueError):
        RulesSpec(preset="nope")
    with pytest.raises(ValueError):
        RulesModel.from_preset("nope")


class _Hits(list):
    """A note's rule hits that count the hits copied out of them by slicing."""
    copied = 0

    def __getitem__(self, k):
        if isinstance(k, slice):
            type(self).copied += len(range(*k.indices(len(self))))
        return list.__getitem__(self, k)


def test_each_segment_reads_its_own_hits_not_a_copy_of_those_after_it(monkeypatch):
    """Each segment copied every hit after its start (``hits[i:]``): on one
    big note that grew with the square of its size (issue 35 item 11, 16 MB).
    Counted in hits copied, not in seconds; the hits found stay the same."""
    from app.core.tokenize import segment
    from app.models import crf_ner
    from app.models.rules_model import _hits_on_tokens
    from app.rules import find_hits

    text = "Seen 03/05/2014, MRN 1234567. Call 0412 555 123 today.\n" * 400
    segments = segment(text)
    plain = find_hits(text)
    hits = _Hits(plain)
    ends = [h.end for h in plain]
    _Hits.copied = 0
    found = [_hits_on_tokens((hits, ends), seg) for seg in segments]
    assert found == [_hits_on_tokens((plain, ends), seg) for seg in segments]
    assert sum(map(len, found)) == len(plain)
    monkeypatch.setattr(crf_ner, "find_hits", lambda t: _Hits(find_hits(t)))
    categories = [crf_ner._rule_categories(text, seg) for seg in segments]
    assert sum(c is not None for cats in categories for c in cats) >= len(plain)
    assert _Hits.copied == 0
