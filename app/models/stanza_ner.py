"""Stanza BiLSTM-CRF NER, trained and run fully offline.

Training drives ``stanza.models.ner_tagger`` (the same code as Stanza's own
training scripts) on JSON files written to a private folder of
``ctx.workdir``; the word embeddings come from vectors trained locally
(:mod:`app.models.vectors`), converted once per run to Stanza's pretrain
``.pt``. Prediction loads the model through ``stanza.Pipeline`` with
``tokenize_pretokenized=True`` so the model tags exactly the canonical
tokens, and always with an explicit ``ner_pretrain_path`` (without it
Stanza silently falls back to the training-time path).

Progress and cancel: Stanza reports training only through its ``stanza``
logger, so a logging handler parses its step/dev-score lines and forwards
them to ``ctx.progress``. An exception raised inside a handler's ``emit``
propagates out of ``logger.info`` into Stanza's training loop, which has no
``try`` around its steps, so ``Cancelled`` stops training within
``log_step`` steps. The one place that swallows exceptions (Stanza's model
save) logs a warning right after, and the handler raises again there.

Confidence: Stanza decodes its CRF with Viterbi and exposes no scores. We
capture the emission scores and transition matrix with a forward hook and
run forward-backward to get each token's marginal probability; a token's
confidence is the marginal mass of its predicted BIO class (``B-X`` sums
``B-X`` and ``S-X``; ``I-X`` sums ``I-X`` and ``E-X``).
"""
from __future__ import annotations

import json
import logging
import math
import re
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from app.core.bio import repair_tags
from app.core.progress import EPOCH, Cancelled, Progress, ProgressFn
from app.core.tokenize import Segment
from app.models.base import (Corpus, ModelSpec, TagSeq, TaggedSegment, TrainContext,
                             TrainedModel, read_meta, register, write_meta)
from app.models.budget import Budget, SafetyClock, safety_seconds
from app.models.hpo import adam_point
from app.models.vectors import ensure_word_vectors

MODEL_FILE = "stanza_ner.pt"
PRETRAIN_FILE = "stanza_pretrain.pt"

# Adam, not Stanza's own SGD at 0.1: in a budget's thousand-odd steps on
# notes where most lines hold no identifier, SGD left dev F1 near 0 (PhysioNet,
# the imbalanced variant, quick: 0.21 at step 1,000 against Adam's 0.69).
DEFAULTS: dict[str, Any] = {
    "batch_size": 32,
    "lr": 0.001,
    "dropout": 0.1,
    "optim": "adam",
    "hidden_dim": 256,
    "char_hidden_dim": 100,
}

# Segments per Pipeline call at prediction time (bounds memory).
_PREDICT_CHUNK = 1024

_STEP_RE = re.compile(r"step (\d+)/(\d+), loss = ([0-9.eE+-]+|nan|inf)")
_DEV_RE = re.compile(r"step (\d+): train_loss = [^,]+, dev_score = ([0-9.]+)")


def _bio_tag(tag: str) -> str:
    """One BIOES tag as BIO (``S-`` -> ``B-``, ``E-`` -> ``I-``, other -> ``O``)."""
    prefix = tag[:2]
    if prefix in ("B-", "S-"):
        return "B-" + tag[2:]
    if prefix in ("I-", "E-"):
        return "I-" + tag[2:]
    return "O"


def to_bio(tags: Sequence[str]) -> list[str]:
    """A BIOES sequence as a valid BIO sequence."""
    return repair_tags([_bio_tag(t) for t in tags])


def _budget_schedule(budget: Budget, n_train: int, batch_size: int,
                     max_steps: int | None = None) -> dict[str, int]:
    n_batches = max(1, math.ceil(n_train / batch_size))
    max_steps = int(max_steps or budget.steps(n_train, batch_size))
    # About ten dev evaluations per run, the best one kept; at most 100 steps
    # apart, since a time cap can only stop training at an evaluation.
    eval_interval = max(1, min(max_steps // 10, 100))
    return {
        "max_steps": max_steps,
        "eval_interval": eval_interval,
        # Early stop after five evaluations without a better dev score, but
        # never in the first half: dev F1 often sits at 0 for a while.
        "max_steps_no_improve": max(5 * eval_interval, max_steps // 2),
        # A log line every ~10 steps at most: the handler checks for cancel on each.
        "log_step": max(1, min(10, n_batches // 10)),
    }


class _TimeUp(Exception):
    """Raised by the handler when the safety clock fired (after a dev evaluation)."""


class _ProgressHandler(logging.Handler):
    """Turns Stanza's training log lines into ``Progress`` reports.

    Only records from the training thread are considered, so concurrent
    trainings do not see each other's lines (or cancels). Message text is
    never forwarded.
    """

    def __init__(self, progress: ProgressFn, max_steps: int, clock: SafetyClock) -> None:
        super().__init__(level=logging.INFO)
        self._progress = progress
        self._max_steps = max_steps
        self._clock = clock
        self._thread = threading.get_ident()
        self._cancelled = False
        self.best_dev: float | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self._thread:
            return
        if self._cancelled:
            # Stanza swallows exceptions while saving and logs a warning:
            # raise again on that line so the cancel is not lost.
            raise Cancelled()
        msg = record.getMessage()
        report: Progress | None = None
        if (m := _STEP_RE.search(msg)) is not None:
            step, loss = int(m.group(1)), float(m.group(3))
            frac = min(1.0, step / self._max_steps)
            report = Progress(frac, "train", model="stanza", model_fraction=frac,
                              loss=loss, message=f"step {step}/{self._max_steps}")
        elif (m := _DEV_RE.search(msg)) is not None:
            step, dev = int(m.group(1)), float(m.group(2))
            self.best_dev = dev if self.best_dev is None else max(self.best_dev, dev)
            frac = min(1.0, step / self._max_steps)
            report = Progress(frac, "train", model="stanza", model_fraction=frac,
                              dev_f1=dev, message=f"step {step}: dev F1 {dev:.3f}", kind=EPOCH)
        if report is not None:
            try:
                self._progress(report)
            except Cancelled:
                self._cancelled = True
                raise
            # Stop on a step line (no try around it in Stanza) once a model
            # has been saved by a dev evaluation.
            if self.best_dev is not None and report.loss is not None and self._clock.expired():
                raise _TimeUp()


def _write_json(path: Path, items: Sequence[TaggedSegment]) -> None:
    data = [[{"text": w, "ner": t} for w, t in zip(item.words(), item.tags)]
            for item in items if item.segment.tokens]
    # ASCII-escaped: Stanza opens the file in the locale's encoding.
    path.write_text(json.dumps(data, ensure_ascii=True), encoding="ascii")


def _stanza_pretrain(vectors_txt: Path) -> Path:
    """Stanza's pretrain .pt for the run's vectors, built once beside them."""
    from stanza.models.common.pretrain import Pretrain

    pt = vectors_txt.with_name(PRETRAIN_FILE)
    if not pt.exists():
        tmp = pt.with_name(pt.name + ".tmp")
        pretrain = Pretrain(str(tmp), str(vectors_txt), max_vocab=-1)
        pretrain.emb  # noqa: B018 -- touching .emb reads the text file and saves the .pt
        tmp.replace(pt)
    return pt


class StanzaSpec(ModelSpec):
    """Stanza BiLSTM-CRF NER configuration.

    Parameters (``params``): ``batch_size``, ``lr``, ``dropout``, ``optim``,
    ``hidden_dim``, ``char_hidden_dim`` (see ``DEFAULTS``); ``max_steps``
    overrides the budget's number of optimizer steps for the data size;
    ``max_seconds`` (a safety stop below the run's) stops training
    (keeping the best model so far) after the first dev evaluation past
    that time.
    """

    kind = "stanza"
    relative_cost = 3.0
    uses_torch = True
    #: The shared search grid's name for Stanza's learning rate, and its
    #: SGD-scale rates as Adam's (app.models.hpo: its first point, 0.01, is
    #: the default 0.001).
    HPO_NAMES = {"learn_rate": "lr"}
    hpo_params = staticmethod(adam_point)

    def fit(self, corpus: Corpus, ctx: TrainContext) -> "StanzaModel":
        stanza_log = logging.getLogger("stanza")
        level = stanza_log.level
        # Importing Stanza's training code sets its logger to DEBUG for good;
        # the level is restored after training.
        from stanza.models import ner_tagger

        params = {**DEFAULTS, **self.params}
        train = [s for s in corpus.train if s.segment.tokens]
        if not train:
            raise ValueError("no training segments")
        # Stanza requires a dev file; without a dev split, select on a slice of train.
        dev = [s for s in corpus.dev if s.segment.tokens] or train[: max(1, len(train) // 10)]

        ctx.progress(Progress(0.0, "train", model="stanza", model_fraction=0.0,
                              message="preparing word vectors"))
        vectors = ensure_word_vectors(corpus, ctx)
        pretrain_pt = _stanza_pretrain(vectors.path_txt)

        sched = _budget_schedule(ctx.budget, len(train), int(params["batch_size"]),
                                 params.get("max_steps"))
        Path(ctx.workdir).mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="stanza-", dir=ctx.workdir))
        train_json, dev_json = folder / "train.json", folder / "dev.json"
        ok = False
        try:
            _write_json(train_json, train)
            _write_json(dev_json, dev)
            argv = [
                "--mode", "train",
                "--shorthand", f"{corpus.language}_deid",
                "--train_file", str(train_json), "--eval_file", str(dev_json),
                "--wordvec_pretrain_file", str(pretrain_pt),
                "--save_dir", str(folder), "--save_name", MODEL_FILE,
                "--batch_size", str(int(params["batch_size"])),
                "--lr", str(float(params["lr"])),
                "--dropout", str(float(params["dropout"])),
                "--optim", str(params["optim"]),
                "--hidden_dim", str(int(params["hidden_dim"])),
                "--char_hidden_dim", str(int(params["char_hidden_dim"])),
                "--seed", str(ctx.seed),
                *(f"--{k}={v}" for k, v in sched.items()),
                "--cuda" if ctx.device == "cuda" else "--cpu",
            ]
            handler = _ProgressHandler(ctx.progress, sched["max_steps"], SafetyClock(
                safety_seconds(ctx, params), ctx.progress, self.kind))
            # The handler needs Stanza's INFO lines (progress *and* cancel).
            # Importing flair runs logging.config.dictConfig, which disables
            # every logger that existed then (Stanza's included): re-enable.
            was_disabled = stanza_log.disabled
            stanza_log.disabled = False
            # A process-wide logging.disable() would silence them too.
            global_disable = logging.root.manager.disable
            logging.disable(logging.NOTSET)
            stanza_log.setLevel(logging.INFO)
            stanza_log.addHandler(handler)
            try:
                ner_tagger.main(argv)
            except _TimeUp:
                pass            # the best model so far is already on disk
            finally:
                stanza_log.removeHandler(handler)
                stanza_log.setLevel(level)
                stanza_log.disabled = was_disabled
                logging.disable(global_disable)
            ok = True
        finally:
            # The JSON files hold note text: never leave them behind.
            train_json.unlink(missing_ok=True)
            dev_json.unlink(missing_ok=True)
            if not ok:
                shutil.rmtree(folder, ignore_errors=True)
        # Keep a private copy of the pretrain, so the model stays valid
        # even if the run's vectors cache is cleared.
        shutil.copyfile(pretrain_pt, folder / PRETRAIN_FILE)
        ctx.progress(Progress(1.0, "train", model="stanza", model_fraction=1.0,
                              dev_f1=handler.best_dev, message="stanza trained"))
        return StanzaModel(folder, params, language=corpus.language,
                           labels=list(corpus.labels), device=ctx.device)


class StanzaModel(TrainedModel):
    """A trained Stanza NER model: ``stanza_ner.pt`` + ``stanza_pretrain.pt``."""

    kind = "stanza"

    def __init__(self, folder: Path, config: dict[str, Any], *, language: str,
                 labels: list[str], device: str = "cpu") -> None:
        self.folder = Path(folder)
        self.config = dict(config)
        self.language = language
        self.labels = labels
        self.device = device
        self._pipeline = None
        self._marginals: list[np.ndarray] = []
        self._tag_classes: dict[str, np.ndarray] = {}

    # -- prediction -------------------------------------------------------
    def _get_pipeline(self):
        if self._pipeline is None:
            import stanza

            # Stanza insists on a resources.json in `dir`, even with nothing to download.
            resources = self.folder / "resources.json"
            if not resources.exists():
                resources.write_text("{}", encoding="utf-8")
            self._pipeline = stanza.Pipeline(
                lang=self.language, processors="tokenize,ner", tokenize_pretokenized=True,
                ner_model_path=str(self.folder / MODEL_FILE),
                ner_pretrain_path=str(self.folder / PRETRAIN_FILE),
                download_method=None, dir=str(self.folder), allow_unknown_language=True,
                use_gpu=self.device == "cuda", logging_level="WARN",
            )
            self._install_marginals(self._pipeline.processors["ner"].trainers[0])
        return self._pipeline

    def _install_marginals(self, trainer) -> None:
        """Wrap the NER trainer's ``predict`` to record CRF marginals."""
        from stanza.models.common.utils import unsort

        id2tag = list(trainer.vocab["tag"].items(0))
        classes: dict[str, list[int]] = {}
        for idx, tag in enumerate(id2tag):
            classes.setdefault(_bio_tag(tag), []).append(idx)
        self._tag_classes = {k: np.array(v) for k, v in classes.items()}
        original = trainer.predict
        sink = self._marginals

        def predict(batch, unsort_=True):
            captured: dict[str, Any] = {}

            def hook(_module, inputs, output):
                captured["logits"] = output[1][0].detach().float().cpu().numpy()
                captured["trans"] = output[2][0].detach().float().cpu().numpy()
                captured["lens"] = list(inputs[5])

            handle = trainer.model.register_forward_hook(hook)
            try:
                tags = original(batch, unsort_)
            finally:
                handle.remove()
            margs = crf_marginals_batch(captured["logits"], captured["trans"], captured["lens"])
            sink.extend(unsort(margs, batch[5]) if unsort_ else margs)
            return tags

        trainer.predict = predict

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        out: list[TagSeq | None] = [None] * len(items)
        todo = [i for i, (_, seg) in enumerate(items) if seg.tokens]
        for i, (_, seg) in enumerate(items):
            if not seg.tokens:
                out[i] = TagSeq([], [])
        if todo:
            nlp = self._get_pipeline()
        for c in range(0, len(todo), _PREDICT_CHUNK):
            chunk = todo[c:c + _PREDICT_CHUNK]
            words = [[text[t.start:t.end] for t in seg.tokens]
                     for text, seg in (items[i] for i in chunk)]
            self._marginals.clear()
            doc = nlp(words)
            if len(doc.sentences) != len(chunk) or len(self._marginals) != len(chunk):
                raise RuntimeError("stanza returned a different number of sentences")
            for i, sent, marg, w in zip(chunk, doc.sentences, self._marginals, words):
                tags = to_bio([tok.ner for tok in sent.tokens])
                if len(tags) != len(w):
                    raise RuntimeError("stanza returned a different number of tokens")
                conf = [float(marg[k, self._tag_classes[tag]].sum()) if tag in self._tag_classes
                        else 0.0 for k, tag in enumerate(tags)]
                out[i] = TagSeq(tags, [min(1.0, max(0.0, c)) for c in conf])
            self._marginals.clear()
        return out  # type: ignore[return-value]

    # -- persistence ------------------------------------------------------
    def save(self, directory: Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        if directory.resolve() != self.folder.resolve():
            for name in (MODEL_FILE, PRETRAIN_FILE):
                shutil.copyfile(self.folder / name, directory / name)
        (directory / "resources.json").write_text("{}", encoding="utf-8")
        import stanza
        import torch
        write_meta(directory, self.kind, self.config, language=self.language, labels=self.labels,
                   versions={"stanza": stanza.__version__, "torch": torch.__version__})

    @classmethod
    def load(cls, directory: Path, device: str = "cpu") -> "StanzaModel":
        meta = read_meta(Path(directory), cls.kind)
        return cls(Path(directory), meta["config"], language=meta["language"],
                   labels=meta["labels"], device=device)


def crf_marginals(scores: np.ndarray, trans: np.ndarray) -> np.ndarray:
    """Per-token tag marginals of a linear-chain CRF (forward-backward).

    ``scores`` is ``(n, k)`` emission scores, ``trans[i, j]`` the score of
    tag ``i`` followed by tag ``j`` (Stanza's convention, no start/end
    transitions). Returns ``(n, k)`` probabilities whose rows sum to 1.
    """
    return crf_marginals_batch(scores[None], trans, [scores.shape[0]])[0]


def crf_marginals_batch(scores: np.ndarray, trans: np.ndarray,
                        lengths: Sequence[int]) -> list[np.ndarray]:
    """``crf_marginals`` of a padded batch at once: ``scores`` is ``(b, t, k)``,
    sequence ``i`` the first ``lengths[i]`` rows of ``scores[i]``.

    Scaled forward-backward in probability space: ``exp(trans)`` is taken
    once and each step is a matrix product over the whole batch, instead of
    a log-sum-exp over a ``(k, k)`` matrix per token of every sentence (that
    loop took a third of Stanza's tagging time).
    """
    b, t, k = scores.shape
    lens = np.asarray(lengths, dtype=np.int64)
    s = scores.astype(np.float64)
    emit = np.exp(s - s.max(axis=2, keepdims=True))             # (b, t, k), max 1 per token
    trans = trans.astype(np.float64)
    step_t = np.exp(trans - trans.max())                         # (k, k), max 1
    alpha = np.empty((b, t, k))
    scale = np.empty((b, t))
    beta = np.ones((b, t, k))
    # Past a sentence's end the padding holds garbage; nothing read there is used.
    with np.errstate(all="ignore"):
        a = emit[:, 0]
        for i in range(t):
            if i:
                a = (alpha[:, i - 1] @ step_t) * emit[:, i]
            scale[:, i] = a.sum(axis=1)
            alpha[:, i] = a / scale[:, i, None]
        for i in range(t - 2, -1, -1):
            back = ((emit[:, i + 1] * beta[:, i + 1]) @ step_t.T) / scale[:, i + 1, None]
            # A sentence's backward pass starts (at 1) on its own last token.
            beta[:, i] = np.where((i < lens - 1)[:, None], back, 1.0)
    out = []
    for j, n in enumerate(lens):
        m = alpha[j, :n] * beta[j, :n]
        out.append(m / m.sum(axis=1, keepdims=True))
    return out


register(StanzaSpec, StanzaModel)
