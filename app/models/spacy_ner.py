"""spaCy CNN NER (transition-based) as an ensemble base model.

The pipeline is ``spacy.blank(language)`` with one ``ner`` component; spaCy's
tokenizer is never used: every ``Doc`` is built from the canonical tokens of
a segment, so predictions map back to those tokens one to one.

Architecture: the transition-based NER over a ``spacy.Tok2Vec.v2`` with a
``MultiHashEmbed`` of NORM, PREFIX, SUFFIX and SHAPE (sub-word and character
shape features matter for identifiers such as "28 28 20943" or "H") and a
maxout CNN encoder, wider than spaCy's CPU default (128 vs 96). Optional
static word vectors (word2vec text, ``.bin`` or gensim ``.kv``) are added to
the embedding when ``vectors`` is given.

Confidence: the greedy transition parser computes no per-token probability,
and the beam parser that does costs several times the prediction time, so
every tag gets confidence 1.0. Ensembles therefore weigh spaCy by its vote
and its dev scores, not by confidence.
"""
from __future__ import annotations

import json
import logging
import math
import random
import time
import warnings
from pathlib import Path
from typing import Any, Sequence

from app.core.bio import OUTSIDE, repair_tags, tags_to_spans
from app.core.progress import EPOCH, Progress
from app.core.tokenize import Segment
from app.eval.metrics import PRF, strict_counts
from app.models.base import (Corpus, ModelSpec, TaggedSegment, TagSeq, TrainContext,
                             TrainedModel, read_meta, register, write_meta)
from app.models.budget import SafetyClock, safety_seconds
from app.models.hpo import adam_point

log = logging.getLogger(__name__)

_NLP_DIR = "nlp"
_PREDICT_BATCH = 256
_REPORT_EVERY_S = 2.0           # progress (and so cancel checks) inside an epoch


def _blank(language: str):
    import spacy
    try:
        return spacy.blank(language)
    except ImportError:
        # A language spaCy does not know: the multi-language class is
        # neutral (no stop words / lexical norms beyond lower-casing).
        return spacy.blank("xx")


def _use_gpu(device: str) -> bool:
    """Activate the GPU for thinc when asked; False (CPU) if that fails."""
    if device != "cuda":
        return False
    import spacy
    try:
        return bool(spacy.require_gpu())
    except Exception as exc:  # no cupy / no device: CPU still works
        log.warning("spaCy could not use the GPU (%s); using the CPU", type(exc).__name__)
        return False


def _make_doc(vocab, text: str, seg: Segment):
    """A ``Doc`` over the canonical tokens of ``seg`` (never spaCy's tokenizer)."""
    from spacy.tokens import Doc
    toks = seg.tokens
    words = [text[t.start:t.end] for t in toks]
    spaces = [toks[i + 1].start > toks[i].end for i in range(len(toks) - 1)] + [False]
    return Doc(vocab, words=words, spaces=spaces)


def _doc_tags(doc) -> list[str]:
    return [OUTSIDE if not t.ent_iob_ or t.ent_iob_ == "O" else f"{t.ent_iob_}-{t.ent_type_}"
            for t in doc]


def _load_vectors(nlp, path: Path) -> None:
    """Put word vectors from ``path`` into ``nlp.vocab`` (keys: token text)."""
    from gensim.models import KeyedVectors
    from spacy.vectors import Vectors
    if path.suffix == ".kv":
        kv = KeyedVectors.load(str(path))
    else:
        kv = KeyedVectors.load_word2vec_format(str(path), binary=path.suffix == ".bin")
    keys = [nlp.vocab.strings.add(w) for w in kv.index_to_key]
    nlp.vocab.vectors = Vectors(strings=nlp.vocab.strings, data=kv.vectors.astype("float32"),
                                keys=keys, name="deid_vectors")


def _ner_config(p: dict[str, Any], with_vectors: bool) -> dict:
    width = int(p["width"])
    return {"model": {
        "@architectures": "spacy.TransitionBasedParser.v2",
        "state_type": "ner", "extra_state_tokens": False,
        "hidden_width": int(p["hidden_width"]), "maxout_pieces": 2, "use_upper": True, "nO": None,
        "tok2vec": {
            "@architectures": "spacy.Tok2Vec.v2",
            "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": width,
                      "attrs": ["NORM", "PREFIX", "SUFFIX", "SHAPE"],
                      "rows": [5000, 1000, 2500, 2500],
                      "include_static_vectors": with_vectors},
            "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": width,
                       "window_size": int(p["window_size"]), "maxout_pieces": 3,
                       "depth": int(p["depth"])},
        }}}


class SpacyNERSpec(ModelSpec):
    """Configuration of a spaCy CNN NER member.

    Parameters (all optional)
    -------------------------
    batch_size : int
        Segments per update (default 32).
    learn_rate : float
        Adam learning rate (default 0.001). The shared HPO grid is in SGD
        units; ``hpo_params`` maps it (see there).
    dropout : float
        Dropout during updates (default 0.1).
    vectors : str | None
        Path of static word vectors (word2vec text/.bin or gensim .kv).
    width, depth, window_size, hidden_width : int
        Tok2vec width/depth/window and the NER hidden layer width.
    max_epochs, patience
        Override the budget's limits (by default the epochs follow the
        budget and the size of the training set).
    max_seconds
        A safety stop on the clock, below the run's.
    """

    kind = "spacy"
    relative_cost = 2.0
    DEFAULTS: dict[str, Any] = {"batch_size": 32, "learn_rate": 0.001, "dropout": 0.1,
                                "vectors": None, "width": 128, "depth": 4, "window_size": 1,
                                "hidden_width": 64}

    def __init__(self, **params: Any) -> None:
        unknown = set(params) - set(self.DEFAULTS) - {"max_epochs", "patience", "max_seconds"}
        if unknown:
            raise ValueError(f"unknown spaCy NER parameter(s): {', '.join(sorted(unknown))}")
        super().__init__(**{**self.DEFAULTS, **params})

    #: The shared grid's SGD-scale learning rates as Adam's (app.models.hpo).
    hpo_params = staticmethod(adam_point)

    def fit(self, corpus: Corpus, ctx: TrainContext) -> "SpacyNERModel":
        import spacy
        from spacy.training import Example, iob_to_biluo
        from spacy.util import fix_random_seed, minibatch
        from thinc.api import Adam

        p = self.params
        budget = ctx.budget.with_overrides(p)
        clock = SafetyClock(safety_seconds(ctx, p), ctx.progress, self.kind)
        max_seconds = clock.seconds
        _use_gpu(ctx.device)
        fix_random_seed(ctx.seed)
        nlp = _blank(corpus.language)
        if p["vectors"]:
            _load_vectors(nlp, Path(p["vectors"]))
        ner = nlp.add_pipe("ner", config=_ner_config(p, bool(p["vectors"])))
        for label in corpus.labels:
            ner.add_label(label)

        def examples(items: Sequence[TaggedSegment]) -> list:
            return [Example.from_dict(_make_doc(nlp.vocab, it.text, it.segment),
                                      {"entities": iob_to_biluo(list(it.tags))})
                    for it in items]

        train = examples(corpus.train)
        if not train:
            raise ValueError("the training corpus is empty")
        with warnings.catch_warnings():
            # W033: no lexeme-norm table for blank pipelines; expected offline.
            warnings.filterwarnings("ignore", message=r".*\[W033\]")
            nlp.initialize(lambda: train[:500])
        optimizer = Adam(float(p["learn_rate"]))
        model = SpacyNERModel(nlp, dict(p), seed=ctx.seed)
        dev_items = [(it.text, it.segment) for it in corpus.dev]
        dev_gold = [tags_to_spans(it.segment.tokens, it.tags) for it in corpus.dev]

        def dev_f1() -> float:
            with nlp.use_params(optimizer.averages):
                out = model.predict(dev_items)
            total = PRF(0, 0, 0)
            for it, gold, pred in zip(corpus.dev, dev_gold, out):
                total += strict_counts(gold, tags_to_spans(it.segment.tokens, pred.tags))
            return total.f1

        rng = random.Random(ctx.seed)
        batch_size, dropout = int(p["batch_size"]), float(p["dropout"])
        n_batches = math.ceil(len(train) / batch_size)
        max_epochs = int(p.get("max_epochs") or budget.epochs(len(train), batch_size))
        start = last_report = time.monotonic()
        best_f1, best_bytes, best_epoch, bad_epochs = -1.0, None, 0, 0
        history: list[dict[str, float]] = []
        stop_reason = "max_epochs"
        for epoch in range(1, max_epochs + 1):
            rng.shuffle(train)
            losses: dict[str, float] = {}
            out_of_time = False
            for b, batch in enumerate(minibatch(train, size=batch_size), 1):
                nlp.update(batch, drop=dropout, sgd=optimizer, losses=losses)
                now = time.monotonic()
                if clock.expired():
                    out_of_time = True
                    break
                if now - last_report > _REPORT_EVERY_S:
                    last_report = now
                    frac = (epoch - 1 + b / n_batches) / max_epochs
                    # No loss: spaCy's is a sum over the epoch's batches, and
                    # so far is only part of one (charted, it climbed each epoch).
                    ctx.progress(Progress(frac, "train", model=self.kind, model_fraction=frac,
                                          epoch=epoch, eta_s=_eta(now - start, frac, max_seconds)))
            f1 = dev_f1() if dev_items else None
            loss = float(losses.get("ner", 0.0))
            history.append({"epoch": epoch, "loss": loss, "dev_f1": f1})
            if f1 is None or f1 > best_f1:
                best_f1, best_epoch, bad_epochs = f1 or 0.0, epoch, 0
                with nlp.use_params(optimizer.averages):
                    best_bytes = ner.to_bytes(exclude=["vocab"])
            else:
                bad_epochs += 1
            elapsed = time.monotonic() - start
            frac = epoch / max_epochs
            ctx.progress(Progress(frac, "train", model=self.kind, model_fraction=frac,
                                  epoch=epoch, loss=loss, dev_f1=f1,
                                  eta_s=_eta(elapsed, frac, max_seconds),
                                  message=f"epoch {epoch} done", kind=EPOCH))
            if out_of_time:
                stop_reason = "safety_stop"
                break
            if dev_items and bad_epochs >= budget.patience:
                stop_reason = "early_stopping"
                break
        ner.from_bytes(best_bytes, exclude=["vocab"])
        model.info = {"best_epoch": best_epoch, "dev_f1": best_f1 if dev_items else None,
                      "epochs": len(history), "max_epochs": max_epochs,
                      "stop_reason": stop_reason, "clock_stop": clock.fired,
                      "train_seconds": round(time.monotonic() - start, 1),
                      "spacy_version": spacy.__version__, "history": history}
        return model


def _eta(elapsed: float, frac: float, cap: float | None) -> float | None:
    if frac <= 0:
        return None
    left = elapsed / frac - elapsed
    return max(0.0, left if cap is None else min(left, cap - elapsed))


class SpacyNERModel(TrainedModel):
    """A trained spaCy NER; ``predict`` tags canonical segments in batches."""

    kind = "spacy"

    def __init__(self, nlp, params: dict[str, Any], seed: int = 13,
                 info: dict[str, Any] | None = None) -> None:
        self.nlp = nlp
        self.params = params
        self.seed = seed
        self.info = info or {}

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        docs = (_make_doc(self.nlp.vocab, text, seg) for text, seg in items)
        out = []
        for doc in self.nlp.pipe(docs, batch_size=_PREDICT_BATCH):
            tags = repair_tags(_doc_tags(doc))
            out.append(TagSeq(tags, [1.0] * len(tags)))
        return out

    def save(self, directory: Path) -> None:
        import spacy
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        nlp_dir = directory / _NLP_DIR
        # The vocabulary's string table would hold every token seen in
        # training (names, numbers): it is left out and replaced by the blank
        # language's strings plus the labels. Features are hashes and vector
        # rows are keyed by hash, so predictions need no other strings.
        self.nlp.to_disk(nlp_dir, exclude=["vocab"])
        self.nlp.vocab.to_disk(nlp_dir / "vocab", exclude=["strings"])
        keep = set(_blank(self.nlp.lang).vocab.strings) | set(self.nlp.get_pipe("ner").labels)
        (nlp_dir / "vocab" / "strings.json").write_text(
            json.dumps(sorted(keep), ensure_ascii=False), encoding="utf-8")
        write_meta(directory, self.kind, self.params, spacy_version=spacy.__version__,
                   seed=self.seed, labels=list(self.nlp.get_pipe("ner").labels),
                   language=self.nlp.lang, info=self.info)

    @classmethod
    def load(cls, directory: Path, device: str = "cpu") -> "SpacyNERModel":
        import spacy
        directory = Path(directory)
        meta = read_meta(directory, cls.kind)
        _use_gpu(device)
        nlp = spacy.load(directory / _NLP_DIR)
        return cls(nlp, meta["config"], seed=meta.get("seed", 13), info=meta.get("info"))


register(SpacyNERSpec, SpacyNERModel)
