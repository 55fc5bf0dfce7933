"""Document-level propagation of predicted strings, and which labels learn it."""
import pytest

from app.core.spans import Span
from app.core.tokenize import segment
from app.ensemble.propagation import fit_propagation, propagate, token_bounds

TEXT = "Paciente Ana Ruiz, varón no. Ana Ruiz acude. Cita con Ana Ruizz. Sexo: varón. Ana Ruiz."


def _at(text, word, nth=0, label="NOMBRE", conf=0.9):
    start = -1
    for _ in range(nth + 1):
        start = text.index(word, start + 1)
    return Span(start, start + len(word), label, conf)


def _strings(text, spans):
    return [(text[s.start:s.end], s.label, s.start) for s in spans]


def test_every_other_whole_token_occurrence_is_added():
    first = _at(TEXT, "Ana Ruiz", 0, conf=0.8)
    out = propagate(TEXT, [first], ["NOMBRE"])
    # "Ana Ruizz" is not a whole-token match of "Ana Ruiz": left alone.
    assert [(t, lab) for t, lab, _ in _strings(TEXT, out)] == [("Ana Ruiz", "NOMBRE")] * 3
    assert out[0] is first and all(s.confidence == 0.8 for s in out)
    assert [s.start for s in out] == sorted(s.start for s in out)


def test_other_labels_short_strings_and_overlaps_are_left_alone():
    name = _at(TEXT, "Ana Ruiz", 0)
    sex = _at(TEXT, "varón", 1, label="SEXO")
    assert propagate(TEXT, [name, sex], ["SEXO"]) == sorted(
        [name, sex, _at(TEXT, "varón", 0, label="SEXO")], key=lambda s: s.start)
    short = Span(0, 2, "NOMBRE", None)        # "Pa"
    assert propagate(TEXT, [short], ["NOMBRE"]) == [short]
    # An occurrence inside a longer predicted span is not added again.
    text = "Ruiz vive en Calle Ruiz 3. Ruiz"
    spans = [Span(0, 4, "NOMBRE", None), Span(13, 25, "CALLE", None)]
    assert _strings(text, propagate(text, spans, ["NOMBRE"])) == [
        ("Ruiz", "NOMBRE", 0), ("Calle Ruiz 3", "CALLE", 13), ("Ruiz", "NOMBRE", 27)]


def test_a_string_takes_its_majority_label_and_longer_strings_go_first():
    text = "La Paz. Hospital La Paz. La Paz. Hospital La Paz."
    spans = [Span(0, 6, "CIUDAD", None), Span(8, 23, "HOSPITAL", None), Span(25, 31, "HOSPITAL", None)]
    out = propagate(text, spans, ["HOSPITAL", "CIUDAD"])
    assert ("Hospital La Paz", "HOSPITAL", 33) in _strings(text, out)
    assert ("La Paz", "HOSPITAL", 45) not in _strings(text, out)   # inside the added hospital


def test_fit_keeps_the_labels_that_gain_on_dev():
    # Names: every mention is gold, the model found one of two -> keep.
    # Sex: only the "Sexo:" mention is gold -> propagating adds a false positive.
    docs = []
    for _ in range(3):
        gold = [_at(TEXT, "Ana Ruiz", 0), _at(TEXT, "Ana Ruiz", 1), _at(TEXT, "Ana Ruiz", 3),
                _at(TEXT, "varón", 1, label="SEXO")]
        pred = [_at(TEXT, "Ana Ruiz", 0), _at(TEXT, "varón", 1, label="SEXO")]
        docs.append((TEXT, pred, gold, segment(TEXT)))
    labels, before, after = fit_propagation(docs)
    assert labels == ["NOMBRE"]
    assert before == pytest.approx(2 * 6 / (2 * 6 + 6)) and after == 1.0
    assert fit_propagation([]) == ([], 0.0, 0.0)


def test_only_the_predicted_segments_count():
    # The gold of the second line is unknown (not predicted): an occurrence
    # there is neither a gain nor a loss.
    segs = segment(TEXT)
    assert len(segs) > 1
    first = [s for s in segs if s.end <= TEXT.index("Cita")]
    pred = [_at(TEXT, "Ana Ruiz", 0)]
    out = propagate(TEXT, pred, ["NOMBRE"], token_bounds(first))
    assert all(s.end <= first[-1].end for s in out) and len(out) == 2
