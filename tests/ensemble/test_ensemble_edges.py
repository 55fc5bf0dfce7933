"""Edge words: learned from where the training notes' spans start and end,
trimmed from predicted spans, kept only when dev agrees."""
from app.core.bio import spans_to_tags
from app.core.spans import Span
from app.ensemble.edges import Edges, edge_words, trim_edges
from app.models.base import TagSeq
from app.services.finishing import edges_summary, finishing_summary, fit_finishing
from app.services.predictor import Predictor
from app.services.runs import TrainedRun
from dev_notes import tagged_dev


def _at(text: str, piece: str, label: str, after: int = 0) -> Span:
    start = text.index(piece, after)
    return Span(start, start + len(piece), label)


def _train() -> list[tuple[str, list[Span]]]:
    """Five dates ending before a full stop, one abbreviation ending with one,
    and names preceded by "con" but never starting with it."""
    docs = []
    for day in range(1, 6):
        text = f"Ingresa el {day} de marzo de 2009. Acude con Ana Ruiz."
        docs.append((text, [_at(text, f"{day} de marzo de 2009", "DATE"),
                            _at(text, "Ana Ruiz", "PERSON")]))
    text = "Trabaja en Acme S.A. desde 2001."
    docs.append((text, [_at(text, "Acme S.A.", "ORG"), _at(text, "2001", "DATE")]))
    return docs


def test_the_words_spans_almost_never_start_or_end_with():
    edges = edge_words(_train())
    # "." follows eleven spans and is the last token of one: 1 of 12 > 2 %.
    assert "." not in edges.ends
    assert edge_words(_train(), max_share=0.2).ends >= {"."}
    assert "con" in edges.starts and "el" in edges.starts
    assert not {"ana", "de", "2009"} & (edges.starts | edges.ends)
    assert edge_words([]) == Edges(frozenset(), frozenset()) and not edge_words([])


def test_trimming_keeps_offsets_and_drops_what_is_left_empty():
    text = "Acude con Ana Ruiz el 3 de marzo. Vino."
    edges = Edges(frozenset({"con"}), frozenset({".", "el"}))
    spans = [_at(text, "con Ana Ruiz el", "PERSON"), _at(text, "3 de marzo.", "DATE"),
             _at(text, ".", "DATE", after=text.index("Vino"))]
    out = trim_edges(text, spans, edges)
    assert [(text[s.start:s.end], s.label) for s in out] == [("Ana Ruiz", "PERSON"),
                                                             ("3 de marzo", "DATE")]
    assert trim_edges(text, spans, Edges(frozenset(), frozenset())) == spans


TEXT = "Ingresa el 7 de marzo de 2009. Acude con Ana Ruiz.\n"


class OnePastTheEnd:
    """A member whose date runs on to the full stop after it."""

    def predict(self, items):
        out = []
        for text, seg in items:
            found = [s for s in (_at(text, "7 de marzo de 2009.", "DATE"), _at(text, "Ana Ruiz", "PERSON"))
                     if seg.start <= s.start and s.end <= seg.end]
            tags, _ = spans_to_tags(seg.tokens, found)
            out.append(TagSeq(tags, [0.7] * len(tags)))
        return out


def _dev(gold):
    return tagged_dev(TEXT, gold)


def test_training_keeps_the_edge_words_when_dev_agrees_and_the_predictor_trims():
    dev = _dev([_at(TEXT, "7 de marzo de 2009", "DATE"), _at(TEXT, "Ana Ruiz", "PERSON")])
    seqs = OnePastTheEnd().predict([(it.text, it.segment) for it in dev])
    train = _train() * 10                  # "." after 110 spans, the last token of 10
    edges = fit_finishing("m", seqs, dev, {"m": seqs}, beta=2.0, train_docs=train).edges
    assert edges["ends"] == [] and "does not gain on dev" in edges_summary(edges)
    train = _train()[:5] * 2               # the abbreviation left out: "." never ends a span
    edges = fit_finishing("m", seqs, dev, {"m": seqs}, beta=2.0, train_docs=train).edges
    assert "." in edges["ends"] and edges["dev_before"] < edges["dev_after"] == 1.0
    assert edges["dev_tokens_lost"] == 0
    line = edges_summary(edges)
    assert line.startswith("Edge words: spans lose 0 words") and "." not in line.split("(")[0][:-1]

    run = TrainedRun(1, edges=edges)
    assert any(l.startswith("Edge words:") for l in finishing_summary(run))
    assert not run.edge_words("other")
    spans = Predictor("m", {"m": OnePastTheEnd()}, edges=run.edge_words("m")).predict([TEXT])[0].spans
    assert [TEXT[s.start:s.end] for s in spans] == ["7 de marzo de 2009", "Ana Ruiz"]


def test_an_edge_word_that_would_unhide_an_identifier_token_on_dev_is_not_kept():
    # Dev's annotators included the full stop: trimming it unhides one of their tokens.
    dev = _dev([_at(TEXT, "7 de marzo de 2009.", "DATE"), _at(TEXT, "Ana Ruiz", "PERSON")])
    seqs = OnePastTheEnd().predict([(it.text, it.segment) for it in dev])
    edges = fit_finishing("m", seqs, dev, {"m": seqs}, beta=2.0, train_docs=_train()[:5]).edges
    assert edges["learned"] > 0 and edges["ends"] == [] and edges["starts"] == []
