from pathlib import Path

import pytest

from app.core.bio import tags_to_spans
from app.core.progress import Cancelled, Progress
from app.models.base import TrainContext, load_model, read_meta, spec_class
from app.models.datasets import build_corpus
from app.models.spacy_ner import SpacyNERModel, SpacyNERSpec
from models_synth import make_docs


@pytest.fixture(scope="module")
def corpus():
    return build_corpus(make_docs(30, seed=1), "imbalanced", seed=3).corpus


@pytest.fixture(scope="module")
def trained(corpus, tmp_path_factory):
    reports: list[Progress] = []
    ctx = TrainContext(workdir=tmp_path_factory.mktemp("spacy"), budget="quick",
                       progress=reports.append)
    model = SpacyNERSpec(width=64, batch_size=8, max_epochs=8, patience=8).fit(corpus, ctx)
    return model, reports


def _items(corpus):
    return [(it.text, it.segment) for it in corpus.dev]


def test_registered():
    assert spec_class("spacy") is SpacyNERSpec


def test_trains_quick_reports_progress_and_learns(corpus, trained):
    model, reports = trained
    epochs = [p for p in reports if p.dev_f1 is not None]
    assert [p.epoch for p in epochs] == list(range(1, 9))
    assert all(p.stage == "train" and p.loss is not None and p.eta_s is not None for p in epochs)
    assert epochs[-1].fraction == pytest.approx(1.0)
    assert model.info["dev_f1"] == max(p.dev_f1 for p in epochs)
    assert model.info["dev_f1"] > 0.8           # the synthetic patterns are easy
    out = model.predict(_items(corpus))
    assert len(out) == len(corpus.dev)
    for item, tags in zip(corpus.dev, out):
        assert len(tags.tags) == len(tags.confidences) == len(item.segment.tokens)
        assert all(c == 1.0 for c in tags.confidences)


def test_predict_spans_on_new_text(trained):
    model, _ = trained
    text = "Seen by Dr Jones on ward.\nCall 0498765432 if worse.\n"
    spans = model.predict_spans(text)
    assert {(text[s.start:s.end], s.label) for s in spans} == {
        ("Jones", "PERSON"), ("0498765432", "PHONE")}


def test_save_load_identical_predictions(corpus, trained, tmp_path: Path):
    model, _ = trained
    model.save(tmp_path / "m")
    meta = read_meta(tmp_path / "m")
    assert meta["kind"] == "spacy" and meta["seed"] == 13
    assert meta["spacy_version"] and meta["config"]["width"] == 64
    assert sorted(meta["labels"]) == ["PERSON", "PHONE"]
    loaded = load_model(tmp_path / "m")
    assert isinstance(loaded, SpacyNERModel)
    assert loaded.predict(_items(corpus)) == model.predict(_items(corpus))


def test_saved_model_holds_no_training_identifiers(corpus, trained, tmp_path: Path):
    model, _ = trained
    model.save(tmp_path / "m")
    blob = b"".join(f.read_bytes() for f in (tmp_path / "m").rglob("*") if f.is_file())
    gold = {it.text[s.start:s.end] for it in corpus.train + corpus.dev
            for s in tags_to_spans(it.segment.tokens, it.tags)}
    assert any(len(g) == 10 for g in gold)      # phone numbers are among them
    for identifier in gold:
        assert identifier.encode() not in blob


def test_cancel_from_progress_stops_training(corpus, tmp_path: Path):
    seen: list[int] = []

    def progress(p: Progress) -> None:
        if p.dev_f1 is not None:
            seen.append(p.epoch)
            raise Cancelled()

    ctx = TrainContext(workdir=tmp_path, budget="quick", progress=progress)
    with pytest.raises(Cancelled):
        SpacyNERSpec(width=32, max_epochs=50, patience=50).fit(corpus, ctx)
    assert seen == [1]


def test_unknown_language_falls_back_to_multilingual(corpus, tmp_path: Path):
    odd = build_corpus(make_docs(6, seed=9), "imbalanced", language="zz-unknown").corpus
    ctx = TrainContext(workdir=tmp_path, budget="quick")
    model = SpacyNERSpec(width=32, max_epochs=1).fit(odd, ctx)
    assert model.nlp.lang == "xx"


def test_static_vectors_and_cuda_request_fall_back(tmp_path: Path):
    small = build_corpus(make_docs(8, seed=4), "imbalanced").corpus
    words = sorted({w for it in small.train for w in it.words()})
    vec = tmp_path / "vec.txt"
    vec.write_text(f"{len(words)} 4\n" + "".join(
        f"{w} {i % 3} 0.5 -0.5 {i / 10}\n" for i, w in enumerate(words)), encoding="utf-8")
    ctx = TrainContext(workdir=tmp_path, budget="quick", device="cuda")   # no GPU here
    model = SpacyNERSpec(width=32, max_epochs=1, vectors=str(vec)).fit(small, ctx)
    assert model.nlp.vocab.vectors.shape == (len(words), 4)
    model.save(tmp_path / "m")
    assert SpacyNERModel.load(tmp_path / "m").nlp.vocab.vectors.shape == (len(words), 4)


def test_unknown_param_rejected():
    with pytest.raises(ValueError):
        SpacyNERSpec(learning_rate=0.1)


def test_hpo_grid_mapping_keeps_order():
    rates = [SpacyNERSpec.hpo_params({"learn_rate": lr})["learn_rate"] for lr in (0.1, 0.01, 0.001)]
    assert rates[0] > rates[1] > rates[2]
    assert rates[1] == pytest.approx(0.001)
    assert max(rates) < 0.01


def test_same_seed_same_weights(corpus, tmp_path: Path):
    def weights(seed):
        ctx = TrainContext(workdir=tmp_path, budget="quick", seed=seed)
        model = SpacyNERSpec(width=32, max_epochs=1).fit(corpus, ctx)
        return model.nlp.get_pipe("ner").to_bytes(exclude=["vocab"])

    assert weights(5) == weights(5)


def test_safety_stop_keeps_the_best_epoch_and_says_so(corpus, tmp_path):
    reports: list[Progress] = []
    ctx = TrainContext(workdir=tmp_path, budget="quick", progress=reports.append)
    model = SpacyNERSpec(width=32, max_seconds=1e-3).fit(corpus, ctx)
    assert model.info["stop_reason"] == "safety_stop" and model.info["clock_stop"] is True
    assert model.info["epochs"] == 1
    assert [r.model for r in reports if r.kind == "safety_stop"] == ["spacy"]
    assert len(model.predict(_items(corpus))) == len(corpus.dev)


def test_epochs_follow_the_budget_and_the_data_size(corpus, tmp_path):
    from app.models.budget import get_budget
    ctx = TrainContext(workdir=tmp_path, budget="quick")
    model = SpacyNERSpec(width=32, batch_size=64, patience=99).fit(corpus, ctx)
    assert model.info["max_epochs"] == get_budget("quick").epochs(len(corpus.train), 64)
    assert model.info["clock_stop"] is False
