"""The transformer member: alignment to canonical tokens, windows, the cut
vocabulary, a real fine-tune that learns, compact storage, device choice."""
from pathlib import Path

import pytest

from app.core.progress import EPOCH, Cancelled
from app.core.tokenize import segment
from app.models.base import TrainContext, load_model, read_meta, spec_class
from app.models.datasets import build_corpus
from app.models.transformer_ner import (CASE_TYPES, TransformerModel, TransformerSpec, WordPieces,
                                        case_type,
                                        _base_network, _decode, _read_vocab, base_model_path,
                                        CPU_LAYERS, STARTER_ROW_PIECES, cpu_bf16, minilm_state, pack_encoder,
                                        resolve_init,
                                        cut_vocabulary, epoch_plan, pack_windows, thresholds,
                                        sliding_windows)
from models_synth import dev_f1, dev_items, make_docs, offline_single_thread  # noqa: F401

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def vocab():
    return _read_vocab(base_model_path() / "vocab.txt")


@pytest.fixture(scope="module")
def corpus():
    return build_corpus(make_docs(40, seed=1), "imbalanced", seed=3).corpus


@pytest.fixture(scope="module")
def trained(corpus, tmp_path_factory):
    reports = []
    ctx = TrainContext(workdir=tmp_path_factory.mktemp("tf"), budget="quick",
                       progress=reports.append, seed=7)
    model = TransformerSpec(max_epochs=6, max_length=64).fit(corpus, ctx)
    return model, reports



def test_registered_without_a_search_and_a_default_with_a_gpu_or_a_bfloat16_cpu():
    from app.services.schema import CPU_MODELS, NEURAL_KINDS, default_models

    assert spec_class("transformer") is TransformerSpec
    assert len(TransformerSpec.HPO_GRID) == 1 and all(len(v) == 1 for v in TransformerSpec.HPO_GRID.values())
    assert "transformer" in default_models("cuda")
    assert "transformer" not in default_models("cpu") and "transformer" not in CPU_MODELS
    # A CPU that multiplies bfloat16 in hardware fits and tags it fast enough.
    assert default_models("cpu", cpu_bf16=True) == [*CPU_MODELS, "transformer"]
    assert "transformer" in NEURAL_KINDS         # the training view warns it is slow on a CPU


def test_every_token_in_exactly_one_prediction_window_and_notes_never_mix(vocab):
    pieces = WordPieces(vocab)
    a = "Seen by Dr Smith.\nCall 0412345678 today.\n" * 30
    b = "Another note, its own words.\n"
    items = [(a, s) for s in segment(a)] + [(b, s) for s in segment(b)]
    windows = pack_windows(items, pieces, 32)
    seen = [where for w in windows for where in w.where]
    expected = [(i, k) for i, (_, s) in enumerate(items) for k in range(len(s.tokens))]
    assert sorted(seen) == expected                          # each token once
    assert all(len(w.ids) <= 30 for w in windows)           # room for [CLS] and [SEP]
    n_a = len(segment(a))
    assert all(len({i < n_a for i, _ in w.where}) == 1 for w in windows)
    for w in windows:                                        # firsts point at each token's first piece
        ids = [pieces.ids(items[i][0][items[i][1].tokens[k].start:items[i][1].tokens[k].end])
               for i, k in w.where]
        assert [f - 1 for f in w.firsts] == [sum(len(x) for x in ids[:j]) for j in range(len(ids))]


def test_training_windows_overlap_and_cover_every_token(vocab):
    pieces = WordPieces(vocab)
    text = "Seen by Dr Smith on the ward today.\n" * 40
    items = [(text, s) for s in segment(text)]
    windows = sliding_windows(items, pieces, 34, 0.5)
    covered = {where for w in windows for where in w.where}
    assert covered == {(i, k) for i, (_, s) in enumerate(items) for k in range(len(s.tokens))}
    total = sum(len(w.where) for w in windows)
    assert total > 1.7 * len(covered)                      # about two contexts a token
    assert len(sliding_windows(items, pieces, 34, 0.0)) < len(windows)


def test_a_cpu_fit_reads_every_identifier_window_and_fresh_plain_ones_within_its_pieces(vocab):
    import random

    pieces = WordPieces(vocab)
    text = "Seen by Dr Smith on the ward today.\n" * 60
    items = [(text, s) for s in segment(text)]
    windows = sliding_windows(items, pieces, 34, 0.0)
    labels = [[1 if n % 5 == 0 and j == 0 else 0 for j in range(len(w.where))]
              for n, w in enumerate(windows)]
    marked = {n for n, lab in enumerate(labels) if any(lab)}
    size = sum(len(w.ids) for w in windows)
    plans = epoch_plan(windows, labels, size // 2, 2, random.Random(1))
    assert len(plans) == 2
    for plan in plans:
        assert marked <= set(plan)                         # every identifier window, each epoch
        read = sum(len(windows[n].ids) for n in plan)
        assert size // 4 <= read <= size // 4 + 34         # the epoch's share of the pieces
    assert set(plans[0]) - marked != set(plans[1]) - marked   # plain windows drawn afresh
    full = epoch_plan(windows, labels, None, 3, random.Random(1))
    assert all(sorted(plan) == list(range(len(windows))) for plan in full)


def test_cut_vocabulary_tokenises_the_notes_as_the_full_one_and_keeps_characters(vocab):
    text = "Pt seen by Dr Kowalski at St Vincent's, call 0412 345 678; BP 120/80 énorme"
    keep = cut_vocabulary(vocab, iter([text]))
    cut = [vocab[i] for i in keep]
    assert len(cut) < len(vocab) // 2
    full, small = WordPieces(vocab), WordPieces(cut)
    from app.core.tokenize import tokenize
    for t in tokenize(text):
        word = text[t.start:t.end]
        assert [full.vocab[i] for i in full.ids(word)] == [small.vocab[i] for i in small.ids(word)]
    # An unseen word still splits into pieces, not into [UNK].
    assert small.unk not in small.ids("zyxwvut")


def test_a_token_s_case_type():
    assert [case_type(w) for w in ("12/3", "-", "rob", "Rob", "A", "ROB", "McRae", "iPod",
                                   "o'neil", "O'Neil", "x45", "X45")] == \
        [0, 0, 1, 2, 2, 3, 4, 4, 1, 4, 1, 2]
    assert CASE_TYPES == 5


def test_every_piece_of_a_window_carries_its_token_s_case(vocab):
    pieces = WordPieces(vocab)
    text = "Seen by Dr SMITH on 12/3.\nCalled McRae, rob.\n" * 20
    items = [(text, s) for s in segment(text)]
    for windows in (pack_windows(items, pieces, 32), sliding_windows(items, pieces, 34, 0.5)):
        for w in windows:
            words = [text[items[i][1].tokens[k].start:items[i][1].tokens[k].end] for i, k in w.where]
            assert w.types == [case_type(word) for word in words for _ in pieces.ids(word)]


def test_the_case_types_start_as_the_one_minilm_used(vocab):
    """A fit with the case types starts from exactly the network it had."""
    import torch

    keep = list(range(2000))
    plain, config = _base_network(["O", "B-NAME", "I-NAME"], keep, 0.0)
    cased, cased_config = _base_network(["O", "B-NAME", "I-NAME"], keep, 0.0, case=True)
    assert config["type_vocab_size"] == 2 and cased_config["type_vocab_size"] == CASE_TYPES
    cased.classifier.load_state_dict(plain.classifier.state_dict())      # the fresh heads alike
    plain.eval(), cased.eval()
    ids = torch.randint(5, 2000, (2, 12))
    types = torch.randint(0, CASE_TYPES, (2, 12))
    with torch.no_grad():
        assert torch.allclose(plain(input_ids=ids).logits,
                              cased(input_ids=ids, token_type_ids=types).logits, atol=1e-5)


def test_the_base_network_keeps_minilms_attention_dropout_unless_told(vocab):
    keep = list(range(200))
    gpu, _ = _base_network(["O", "B-NAME", "I-NAME"], keep)          # a GPU fit's default
    cpu, config = _base_network(["O", "B-NAME", "I-NAME"], keep, 0.0)
    assert gpu.config.attention_probs_dropout_prob == 0.1
    assert cpu.config.attention_probs_dropout_prob == config["attention_probs_dropout_prob"] == 0.0
    assert cpu.config.hidden_dropout_prob == gpu.config.hidden_dropout_prob == 0.1


def test_the_base_network_keeps_only_its_lowest_layers_when_told(vocab):
    import torch

    keep = list(range(200))
    full, _ = _base_network(["O", "B-NAME", "I-NAME"], keep, 0.0)
    low, config = _base_network(["O", "B-NAME", "I-NAME"], keep, 0.0, layers=4)
    assert config["num_hidden_layers"] == low.config.num_hidden_layers == len(low.bert.encoder.layer) == 4
    for i in range(4):
        assert torch.equal(low.bert.encoder.layer[i].output.dense.weight,
                           full.bert.encoder.layer[i].output.dense.weight)
    with pytest.raises(ValueError, match="layers must be 1 to 6"):
        _base_network(["O", "B-NAME", "I-NAME"], keep, 0.0, layers=7)


def test_the_starters_encoder_is_laid_over_minilm_where_it_trained(vocab, tmp_path, monkeypatch):
    import torch
    from safetensors.torch import save_file

    from app import paths

    base = minilm_state()
    emb, dense = "embeddings.word_embeddings.weight", "encoder.layer.0.output.dense.weight"
    tuned = {dense: base[dense] + 0.01, "encoder.layer.0.output.dense.bias": torch.zeros(384),
             emb: base[emb][[5, 7]] - 0.02}
    packed = pack_encoder(tuned, base, emb, [5, 7])
    assert packed[dense + ".q"].dtype == torch.int8             # a quarter of fp32
    (tmp_path / "starter" / "transformer").mkdir(parents=True)
    save_file(packed, str(tmp_path / "starter" / "transformer" / "encoder.safetensors"),
              metadata={STARTER_ROW_PIECES: f"{vocab[5]}\n{vocab[7]}"})
    monkeypatch.setattr(paths, "resources_dir", lambda: tmp_path)
    keep = [0, 5, 6, 7]
    tags = ["O", "B-NAME", "I-NAME"]
    plain, _ = _base_network(tags, keep)
    started, _ = _base_network(tags, keep, init="starter")
    layer = started.bert.encoder.layer[0].output.dense
    assert torch.allclose(layer.weight, plain.bert.encoder.layer[0].output.dense.weight + 0.01,
                          atol=1e-4)
    assert not layer.bias.any()
    words, minilm = (started.bert.embeddings.word_embeddings.weight,
                     plain.bert.embeddings.word_embeddings.weight)
    assert torch.allclose(words[[1, 3]], minilm[[1, 3]] - 0.02, atol=1e-4)   # ids 5 and 7
    assert torch.equal(words[[0, 2]], minilm[[0, 2]])                        # not trained
    # Every other tensor is MiniLM's.
    assert torch.equal(started.bert.encoder.layer[1].output.dense.weight,
                       plain.bert.encoder.layer[1].output.dense.weight)


def test_an_english_fit_starts_from_the_starters_encoder_where_installed(tmp_path, monkeypatch):
    from app import paths

    assert resolve_init("minilm", "en") == "minilm" and resolve_init("starter", "es") == "starter"
    assert resolve_init("auto", "es") == "minilm"        # it learned from English notes
    assert resolve_init("auto", "en") == "starter"       # shipped in resources/starter
    monkeypatch.setattr(paths, "resources_dir", lambda: tmp_path)
    assert resolve_init("auto", "en") == "minilm"
    with pytest.raises(ValueError, match="init"):
        resolve_init("bert-large", "en")


def test_decode_tags_an_identifier_where_its_mass_reaches_the_threshold():
    import numpy as np

    tags = ["O", "B-PERSON", "I-PERSON", "B-PHONE"]
    probs = np.array([[0.7, 0.2, 0.05, 0.05], [0.9, 0.02, 0.06, 0.02]], dtype=np.float32)
    assert _decode(probs, tags, 0.5).tags == ["O", "O"]
    low = _decode(probs, tags, 0.25)
    assert low.tags == ["B-PERSON", "O"] and low.confidences[0] == pytest.approx(0.3)


def test_notes_predicted_together_as_each_alone_whatever_their_windows_lengths(trained,
                                                                              tmp_path):
    # Windows are batched shortest first: each one's probabilities must still
    # land on its own tokens. fp32, so padding alone cannot move a token.
    trained[0].save(tmp_path / "m")
    model = TransformerModel.load(tmp_path / "m", compute="fp32")
    notes = ["Seen by Dr Smith on 3 May.\n" * n + "Call 0412345678.\n" for n in (1, 9, 2, 14, 5)]
    items = [(t, s) for t in notes for s in segment(t)]
    together = model.predict(items)
    alone = [o for t in notes for o in model.predict([(t, s) for s in segment(t)])]
    assert [o.tags for o in together] == [o.tags for o in alone]
    assert max(abs(a - b) for x, y in zip(together, alone)
               for a, b in zip(x.confidences, y.confidences)) < 1e-4


@pytest.mark.slow
def test_fine_tunes_learns_and_reports_epochs(corpus, trained):
    model, reports = trained
    epochs = [p for p in reports if p.kind == EPOCH]
    assert epochs and all(p.model == "transformer" and p.dev_f1 is not None for p in epochs)
    assert dev_f1(model, corpus) > 0.8
    details = model.fit_details()
    assert details["device"] == "cpu" and 1 <= details["best_epoch"] <= details["epochs_run"] <= 6
    # One of the thresholds tried for its loss weight (never above its argmax's).
    assert details["threshold"] in thresholds(details["identifier_weight"])
    # The CPU's recipe: few steps, so a bolder rate and identifier tags weighing more.
    assert details["learning_rate"] == 3e-4 and details["identifier_weight"] == 5.0
    # ... and no dropout on the attention weights (the hidden layers keep theirs).
    assert details["attention_dropout"] == 0.0
    # ... in bfloat16 where the CPU multiplies it in hardware.
    assert details["compute"] == ("bf16" if cpu_bf16() else "fp32")
    assert model.network_config["attention_probs_dropout_prob"] == 0.0
    assert model.network_config["hidden_dropout_prob"] == 0.1
    # ... and the lowest CPU_LAYERS of the encoder's layers.
    assert details["layers"] == model.network_config["num_hidden_layers"] == CPU_LAYERS < 6
    for item, out in zip(corpus.dev, model.predict(dev_items(corpus))):
        assert len(out.tags) == len(out.confidences) == len(item.segment.tokens)


@pytest.mark.slow
def test_saved_compact_fp16_and_loaded_model_predicts_the_same(corpus, trained, tmp_path):
    model, _ = trained
    model.save(tmp_path / "m")
    size = sum(p.stat().st_size for p in (tmp_path / "m").iterdir())
    base = (base_model_path() / "model.safetensors").stat().st_size
    assert size < base / 3                                  # fp16, cut vocabulary
    meta = read_meta(tmp_path / "m", "transformer")
    assert meta["tags"][0] == "O" and meta["config"]["threshold"] == model.threshold
    exact = TransformerModel.load(tmp_path / "m", device="cpu", compute="fp32")
    assert exact.device == "cpu" and exact.compute == "fp32"
    items = dev_items(corpus)
    before = [t for o in model.predict(items) for t in o.tags]
    after = [t for o in exact.predict(items) for t in o.tags]
    # fp16 storage moves a borderline token at most.
    assert sum(a == b for a, b in zip(before, after)) >= 0.995 * len(before)
    # The default load (bfloat16 where the CPU has it, else int8) keeps what it finds,
    # and so does the other.
    default = load_model(tmp_path / "m", device="auto")
    assert default.device == "cpu"
    assert default.compute == ("bf16" if cpu_bf16() else "int8")
    assert dev_f1(default, corpus) > 0.8
    for compute in ("int8", "bf16"):
        assert dev_f1(TransformerModel.load(tmp_path / "m", compute=compute), corpus) > 0.8


def test_a_fit_reads_case_and_a_model_fitted_before_reads_every_piece_as_one_type(
        corpus, trained, tmp_path):
    import json

    model, _ = trained
    assert model.case and model.fit_details()["case"] is True
    assert model.network_config["type_vocab_size"] == CASE_TYPES
    ctx = TrainContext(workdir=tmp_path / "w", budget="quick", seed=7)
    uncased = TransformerSpec(max_epochs=1, max_length=64, case=False).fit(corpus, ctx)
    assert not uncased.case and uncased.network_config["type_vocab_size"] == 2
    uncased.save(tmp_path / "m")
    items = dev_items(corpus)
    before = [t for o in uncased.predict(items) for t in o.tags]
    # A model saved before the case types: no "case" in its config.
    meta_path = next(p for p in (tmp_path / "m").iterdir() if p.name.startswith("meta"))
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    del meta["config"]["case"]
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    old = TransformerModel.load(tmp_path / "m", device="cpu")
    assert not old.case
    after = [t for o in old.predict(items) for t in o.tags]
    assert sum(a == b for a, b in zip(before, after)) >= 0.995 * len(before)


@pytest.mark.slow
def test_a_cpu_bfloat16_load_packs_its_weights_and_tags_as_transformers_does(corpus, trained,
                                                                            tmp_path):
    import subprocess
    import sys

    from safetensors.torch import load_file

    from app.models.packed_bert import PackedBert, can_pack

    model, _ = trained
    if not cpu_bf16() or not can_pack(model.network_config):
        pytest.skip("this CPU has no bfloat16 in hardware, or torch no packed products")
    model.save(tmp_path / "m")
    packed = TransformerModel.load(tmp_path / "m")
    assert isinstance(packed.net, PackedBert) and packed.compute == "bf16"
    reference = TransformerModel.load(tmp_path / "m", compute="fp32")
    reference.compute = "bf16"            # transformers' network under autocast
    items = dev_items(corpus)
    mine = [t for o in packed.predict(items) for t in o.tags]
    theirs = [t for o in reference.predict(items) for t in o.tags]
    assert sum(a != b for a, b in zip(mine, theirs)) <= 0.005 * len(mine)
    # Saved again, the weights it was built from.
    packed.save(tmp_path / "again")
    first, again = (load_file(str(tmp_path / d / "model.safetensors")) for d in ("m", "again"))
    assert first.keys() == again.keys() and all(first[k].equal(again[k]) for k in first)
    # Loading and tagging do not import transformers (seconds off each worker's start).
    probe = ("import sys; from pathlib import Path; from app.core.tokenize import segment; "
             "from app.models.transformer_ner import TransformerModel as T; "
             f"m = T.load(Path({str(tmp_path / 'm')!r})); t = 'Seen by Dr Smith.'; "
             "m.predict([(t, s) for s in segment(t)]); print('transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_without_bfloat16_a_cpu_load_is_int8(corpus, trained, tmp_path, monkeypatch):
    model, _ = trained
    model.save(tmp_path / "m")
    monkeypatch.setenv("DEID_CPU_BF16", "0")
    assert not cpu_bf16()
    assert TransformerModel.load(tmp_path / "m").compute == "int8"


@pytest.mark.slow
def test_cancel_stops_training(corpus, tmp_path):
    def cancel(p):
        if p.epoch is not None:
            raise Cancelled()

    with pytest.raises(Cancelled):
        TransformerSpec(max_epochs=1, max_length=64).fit(
            corpus, TrainContext(workdir=tmp_path, budget="quick", progress=cancel))


def test_auto_device_is_the_cpu_without_a_gpu_and_other_kinds_never_auto(monkeypatch):
    import torch

    from app.models.base import TrainedModel
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert TransformerModel.auto_device and not TrainedModel.auto_device
    from app.models.crf_ner import CrfModel
    assert not CrfModel.auto_device


def test_an_epoch_is_judged_at_its_own_best_threshold():
    """Early in a fit every token sits below 0.5: the tuned threshold still
    finds what it learnt (a fixed 0.5 kept a quick PhysioNet fit at F1 0)."""
    import numpy as np

    from app.core.tokenize import segment as seg_of
    from app.core.bio import spans_to_tags
    from app.core.spans import Span
    from app.models.base import TaggedSegment
    from app.models.transformer_ner import tune_threshold

    text = "Seen by Smith today"
    seg = seg_of(text)[0]
    tags, _ = spans_to_tags(seg.tokens, [Span(8, 13, "PERSON")])
    item = TaggedSegment("d", text, seg, tuple(tags))
    names = ["O", "B-PERSON", "I-PERSON"]
    probs = np.array([[0.95, 0.05, 0], [0.95, 0.05, 0], [0.7, 0.3, 0], [0.9, 0.1, 0]], dtype=np.float32)
    threshold, f2, f1 = tune_threshold([item], [probs], names)
    assert threshold == 0.3 and f1 == 1.0 and f2 == pytest.approx(1.0)


def test_a_weighted_fit_is_tuned_over_thresholds_moved_by_its_weight():
    """Identifier tags weighing 5 times O push the network's identifier mass
    up: the thresholds tried go up with it (an unweighted 0.5 is 5/6 of the
    weighted fit's mass), so dev can drop a word the weight alone pushed over
    0.5, which the unweighted range could not."""
    import numpy as np

    from app.core.bio import spans_to_tags
    from app.core.spans import Span
    from app.core.tokenize import segment as seg_of
    from app.models.base import TaggedSegment
    from app.models.transformer_ner import _THRESHOLDS, tune_threshold

    assert thresholds(1.0) == _THRESHOLDS
    moved = thresholds(5.0)
    assert moved[-1] == pytest.approx(5 / 6, abs=1e-3)
    assert all(a < b for a, b in zip(moved, moved[1:]))
    text = "Seen by Smith today"
    seg = seg_of(text)[0]
    tags, _ = spans_to_tags(seg.tokens, [Span(8, 13, "PERSON")])
    item = TaggedSegment("d", text, seg, tuple(tags))
    names = ["O", "B-PERSON", "I-PERSON"]
    probs = np.array([[0.95, 0.05, 0], [0.95, 0.05, 0], [0.05, 0.95, 0], [0.35, 0.65, 0]],
                     dtype=np.float32)
    assert tune_threshold([item], [probs], names)[2] < 1.0        # "today" tagged at 0.5
    threshold, _, f1 = tune_threshold([item], [probs], names, weight=5.0)
    assert threshold > 0.65 and f1 == 1.0


@pytest.mark.slow
def test_the_same_seed_fits_the_same_model(corpus, tmp_path):
    def fit():
        return TransformerSpec(max_epochs=1, max_length=64).fit(
            corpus, TrainContext(workdir=tmp_path, budget="quick", seed=5))

    a, b = fit(), fit()
    items = dev_items(corpus)
    assert [o.confidences for o in a.predict(items)] == [o.confidences for o in b.predict(items)]


def test_an_english_fit_also_reads_copies_with_other_names_and_places(corpus, tmp_path):
    def fit(**params):
        return TransformerSpec(max_epochs=1, max_length=64, **params).fit(
            corpus, TrainContext(workdir=tmp_path, budget="quick", seed=5)).fit_details()

    plain, copies = fit(augment="none"), fit()
    assert corpus.language == "en"
    assert plain["augment"] == "none" and copies["augment"] == "mentions"
    # The synthetic notes name people and places: their segments are copied.
    assert copies["train_windows"] > plain["train_windows"]
    with pytest.raises(ValueError, match="augment"):
        fit(augment="synonyms")


def test_a_refit_takes_dev_s_choices_from_the_scored_fit_and_learns_dev_too(corpus, trained,
                                                                            tmp_path, monkeypatch):
    from dataclasses import replace

    import app.models.transformer_ner as tn

    model, _ = trained
    details = model.fit_details()
    scored = {"learning_rate": None, "max_length": 64, "fit": details}
    # On a CPU the refit cost a run 8 minutes for nothing measured: not refitted there.
    assert details["device"] == "cpu" and TransformerSpec.refit_params(scored) is None
    monkeypatch.setattr(tn, "REFIT_DEVICES", ("cuda", "cpu"))
    params = TransformerSpec.refit_params(scored)
    assert params["max_epochs"] == details["best_epoch"]
    assert params["threshold"] == details["threshold"] and "fit" not in params
    with pytest.raises(ValueError, match="epoch and threshold"):
        TransformerSpec.refit_params({"fit": {}})

    # Dev is in its training now: it must choose nothing there.
    def no_dev(*a, **k):
        raise AssertionError("a refit tuned its threshold on dev")

    monkeypatch.setattr(tn, "tune_threshold", no_dev)
    both = replace(corpus, train=[*corpus.train, *corpus.dev])     # as `refit_corpus` gives
    reports = []
    refit = TransformerSpec(**params).fit(both, TrainContext(workdir=tmp_path, budget="quick",
                                                             progress=reports.append, seed=7))
    again = refit.fit_details()
    assert again["refit"] and not details.get("refit")
    assert again["threshold"] == details["threshold"] == refit.threshold
    assert again["epochs_run"] == again["best_epoch"] == details["best_epoch"]
    # It reads dev's windows besides.
    assert again["train_windows"] > details["train_windows"]
    assert all(p.dev_f1 is None for p in reports if p.kind == EPOCH)
    assert dev_f1(refit, corpus) > 0.8


def test_a_retagger_reads_once_and_tags_at_its_own_threshold_as_predict(trained, tmp_path):
    model = trained[0]
    notes = ["Seen by Dr Smith on 3 May.\nCall 0412345678.\n", "Nothing here today.\n"]
    items = [(t, s) for t in notes for s in segment(t)]
    read = model.retagger(items)
    assert read.threshold == model.threshold
    assert [o.tags for o in read.at(read.threshold)] == [o.tags for o in model.predict(items)]
    # Every higher threshold tags a subset of what a lower one tags.
    assert all(t > read.threshold for t in read.higher)
    for low, high in zip((read.threshold, *read.higher), read.higher):
        for a, b in zip(read.at(low), read.at(high)):
            assert all(y == "O" or x != "O" for x, y in zip(a.tags, b.tags))


def test_the_thresholds_a_run_may_raise_to_are_above_the_fit_s_and_moved_by_its_weight():
    from app.models.transformer_ner import raised_thresholds

    assert raised_thresholds(0.5) == (0.6, 0.7, 0.8, 0.9)
    assert raised_thresholds(0.769, 5.0) == (0.833, 0.882, 0.921, 0.952, 0.978)
    assert raised_thresholds(0.99, 5.0) == ()
