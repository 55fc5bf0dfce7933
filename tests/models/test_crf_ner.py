"""The CRF member: learns, reports, keeps its time cap, saves no training word."""
from pathlib import Path

import pytest

from app.core.bio import tags_to_spans
from app.core.recent import Recent
from app.core.progress import Cancelled
from app.models.base import TrainContext, load_model, read_meta, spec_class
from app.models.crf_ner import CrfModel, CrfSpec
from app.models.datasets import build_corpus
from app.models.hpo import search
from models_synth import dev_f1, dev_items, make_docs


@pytest.fixture(scope="module")
def corpus():
    return build_corpus(make_docs(30, seed=1), "imbalanced", seed=3).corpus


@pytest.fixture(scope="module")
def trained(corpus, tmp_path_factory):
    reports = []
    ctx = TrainContext(workdir=tmp_path_factory.mktemp("crf"), budget="quick", progress=reports.append)
    return CrfSpec().fit(corpus, ctx), reports



def test_registered_with_its_own_search_space():
    assert spec_class("crf") is CrfSpec
    assert set(CrfSpec.HPO_GRID) == {"c1", "c2"}


def test_learns_and_reports_every_iteration(corpus, trained):
    model, reports = trained
    iters = [p for p in reports if p.epoch is not None]
    assert iters and [p.epoch for p in iters] == list(range(1, len(iters) + 1))
    assert all(p.model == "crf" and p.loss is not None for p in iters)
    assert dev_f1(model, corpus) > 0.9           # names after "Dr", phones by shape
    for item, out in zip(corpus.dev, model.predict(dev_items(corpus))):
        assert len(out.tags) == len(out.confidences) == len(item.segment.tokens)
        assert all(0.0 <= c <= 1.0 + 1e-9 for c in out.confidences)


def test_new_text_and_empty_segments(trained):
    model, _ = trained
    text = "Seen by Dr Jones on ward.\nCall 0498765432 if worse.\n"
    assert {(text[s.start:s.end], s.label) for s in model.predict_spans(text)} == {
        ("Jones", "PERSON"), ("0498765432", "PHONE")}
    assert model.predict_spans("") == []


def test_save_load_identical_and_no_training_word_in_clear(corpus, trained, tmp_path: Path):
    model, _ = trained
    model.save(tmp_path / "m")
    assert read_meta(tmp_path / "m")["kind"] == "crf"
    loaded = load_model(tmp_path / "m")
    assert isinstance(loaded, CrfModel)
    assert loaded.predict(dev_items(corpus)) == model.predict(dev_items(corpus))
    blob = b"".join(f.read_bytes() for f in (tmp_path / "m").rglob("*") if f.is_file())
    gold = {it.text[s.start:s.end] for it in corpus.train + corpus.dev
            for s in tags_to_spans(it.segment.tokens, it.tags)}
    assert any(len(g) == 10 for g in gold)
    for identifier in gold:
        assert identifier.encode() not in blob and identifier.lower().encode() not in blob


def test_a_model_from_a_newer_version_is_refused(trained, tmp_path):
    model, _ = trained
    model.save(tmp_path / "m")
    meta = read_meta(tmp_path / "m")
    meta["crf_version"] = 99
    import json
    (tmp_path / "m" / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match="newer version"):
        load_model(tmp_path / "m")


def test_time_cap_sizes_the_run_from_the_first_iteration(corpus, tmp_path):
    ctx = TrainContext(workdir=tmp_path, budget="full", max_seconds=0.05)
    model = CrfSpec().fit(corpus, ctx)
    assert 1 <= model.info["iterations"] < 300     # full would run 300
    assert model.info["clock_stop"] is True         # and it says the clock stopped it
    assert model.predict(dev_items(corpus))           # still a working model


def test_cancel_stops_training(corpus, tmp_path):
    def progress(p):
        if p.epoch:
            raise Cancelled()
    with pytest.raises(Cancelled):
        CrfSpec().fit(corpus, TrainContext(workdir=tmp_path, budget="quick", progress=progress))


def test_search_tunes_the_penalties(corpus, tmp_path):
    params, trials = search(CrfSpec, {}, corpus, TrainContext(workdir=tmp_path, budget="quick"),
                            n_trials=3)
    assert trials[0].point == CrfSpec.HPO_DEFAULT          # the defaults come first
    assert len({tuple(sorted(t.point.items())) for t in trials}) == 3
    assert all(set(t.point) == {"c1", "c2"} and t.dev_f1 is not None for t in trials)
    assert params == max(trials, key=lambda t: t.dev_f1).params


def test_suspicions_read_the_marginals_below_the_decision(corpus, trained):
    """The leak scan's reading: every token the decoder tags is suspected at
    any threshold below its confidence, and a lower threshold only adds."""
    model, _ = trained
    items = dev_items(corpus)[:40]
    decided = [{i for i, t in enumerate(out.tags) if t != "O"} for out in model.predict(items)]
    strict = model.suspicions(items, 0.5)
    loose = model.suspicions(items, 0.01)
    for tags, s, l in zip(decided, strict, loose):
        assert {i for i, _ in s} <= {i for i, _ in l}
        assert tags <= {i for i, _ in l}
        assert all(label in {"PERSON", "PHONE", "DOB", "IDN", "ADDRESS"} for _, label in l)
    every = model.suspicions(items, 0.0)                      # no threshold: every token
    assert [len(s) for s in every] == [len(seg.tokens) for _, seg in items]


def test_an_english_crf_reads_the_starter_hints(trained, monkeypatch):
    import app.models.crf_ner as crf
    from app.core.tokenize import segment

    model, _ = trained
    assert model.params["hints"] == "starter"         # English corpus, a starter ships
    text = "SEEN BY DR. KOWALSKI ON 2/14."
    seg = segment(text)[0]
    hints = crf.starter_hints([(text, seg)])[0]
    words = [text[t.start:t.end] for t in seg.tokens]
    assert hints[words.index("KOWALSKI")] == "PERSON" and hints[words.index("ON")] == "O"
    feats = crf.segment_features(text, seg, hints)
    assert "hint=PERSON" in feats[words.index("KOWALSKI")]
    assert "+1hint=PERSON" in feats[words.index("KOWALSKI") - 1]
    # Predicting reads them too: without the starter the same model cannot.
    monkeypatch.setattr(crf, "starter_hints", lambda items: (_ for _ in ()).throw(RuntimeError))
    with pytest.raises(RuntimeError):
        model.predict([(text, seg)])
    # A model saved without hints (CRF version 2, the shipped starter's own
    # CRF) predicts without them; a Spanish corpus gets none.
    plain = CrfModel(model._data, {k: v for k, v in model.params.items()
                                   if k not in ("hints", "clusters")})
    assert len(plain.predict([(text, seg)])[0].tags) == len(seg.tokens)
    assert crf._resolve_hints("auto", "es") == "none"
    with pytest.raises(ValueError, match="unknown CRF hints"):
        crf._resolve_hints("lists", "en")


def test_a_spanish_crf_trains_without_hints(corpus, tmp_path):
    import dataclasses

    spanish = dataclasses.replace(corpus, language="es")
    model = CrfSpec(max_iterations=2).fit(spanish, TrainContext(workdir=tmp_path, budget="quick"))
    assert model.params["hints"] == "none"


def test_starter_tags_of_a_segment_are_computed_once(monkeypatch):
    # The starter member, the two CRF members' hints and the leak scan's
    # doubts tag the same segments one after the other.
    import app.models.crf_ner as crf
    import app.models.starter_model as starter
    from app.core.tokenize import segment

    text = "SEEN BY DR. KOWALSKI ON 2/14.\nWIFE ODALYS CALLED."
    items = [(text, seg) for seg in segment(text)]
    calls = []
    members = starter.load_members()

    class Counting:
        def __init__(self, member):
            self.member = member

        def predict(self, got):
            calls.append(len(got))
            return self.member.predict(got)

    monkeypatch.setattr(starter, "load_members",
                        lambda: {"crf": Counting(members["crf"]),
                                 **{k: v for k, v in members.items() if k != "crf"}})
    monkeypatch.setattr(starter, "_TAGS", Recent(4096))
    first = crf.starter_hints(items)
    assert "PERSON" in first[0]
    assert crf.starter_hints(items) == first and calls == [len(items)]
    assert crf.starter_hints(items[:1] + [(text + " ", items[0][1])])[0] == first[0]
    assert calls == [len(items), 1]                  # another note: computed
    monkeypatch.setattr(starter._TAGS, "size", 1)
    crf.starter_hints(items)
    assert len(starter._TAGS) == 1                   # the oldest are dropped



def test_two_members_with_the_same_features_build_a_segments_attributes_once(
        trained, corpus, tmp_path, monkeypatch):
    # A run's balanced and imbalanced CRFs, and the leak scan after them, read
    # the same segments: the attributes are built once and the tags are those
    # built afresh.
    import app.models.crf_ner as crf

    model, _ = trained
    model.save(tmp_path / "m")
    twin = load_model(tmp_path / "m")                 # loaded apart: other objects
    items = dev_items(corpus)
    monkeypatch.setattr(crf, "_XSEQS", Recent(1024))
    built = []
    real = crf.segment_features
    monkeypatch.setattr(crf, "segment_features", lambda *a: built.append(1) or real(*a))
    first = model.predict(items)
    n = len(built)
    assert n == sum(1 for _, seg in items if seg.tokens)
    assert twin.predict(items) == first and len(built) == n
    assert twin.suspicions(items, 0.05) == model.suspicions(items, 0.05) and len(built) == n
    # Other features (no hints): built again, not mixed up.
    bare = CrfModel(model._data, {**model.params, "hints": "none"}, model.clusters)
    bare.predict(items)
    assert len(built) == 2 * n
    monkeypatch.setattr(crf, "_XSEQS", Recent(1024))
    assert model.predict(items) == first              # built afresh: the same tags


def test_an_english_crf_reads_groups_of_like_words_it_saves_without_the_words(
        corpus, trained, tmp_path):
    import app.models.crf_ner as crf
    from app.core.tokenize import segment

    model, _ = trained
    assert model.params["clusters"] == "minilm"      # English, the MiniLM weights installed
    text = "Seen by Dr Kowalczyk on ward."
    seg = segment(text)[0]
    words = [text[t.start:t.end] for t in seg.tokens]
    feats = crf.segment_features(text, seg, None, model.clusters)
    own = [f for f in feats[words.index("Kowalczyk")] if f.startswith("cl=")]
    assert len(own) == 1 and f"+1{own[0]}" in feats[words.index("Dr")]
    assert not any(f.startswith("cl=") for f in feats[words.index(".")])
    # Saved as centroids only; a model whose file is gone is refused, not
    # silently read without its features.
    model.save(tmp_path / "m")
    assert {p.name for p in (tmp_path / "m").iterdir()} >= {"clusters.npy"}
    loaded = load_model(tmp_path / "m")
    assert (loaded.clusters.centroids == model.clusters.centroids).all()   # stored as scored
    assert loaded.predict(dev_items(corpus)) == model.predict(dev_items(corpus))
    (tmp_path / "m" / "clusters.npy").unlink()
    with pytest.raises(ValueError, match="clusters are missing"):
        load_model(tmp_path / "m")
    assert crf._resolve_clusters("auto", "es") == "none"
    with pytest.raises(ValueError, match="unknown CRF clusters"):
        crf._resolve_clusters("fasttext", "en")


def test_word_groups_are_learned_deterministically_and_bounded_by_the_vocabulary():
    from app.models.wordclusters import fit_clusters

    texts = [d.text for d in make_docs(20, seed=4)]
    a, b = fit_clusters(texts, seed=5), fit_clusters(texts, seed=5)
    assert (a.centroids == b.centroids).all()
    assert 1 < len(a) <= 256
    smith, upper, date = a.groups(["Smith", "SMITH", "2/14"])
    assert smith == upper is not None
    assert date is None
    assert len(fit_clusters(["Seen by Dr Jones."])) == 1    # too few words for groups
