"""The base-model interface every member of an ensemble implements.

A ``ModelSpec`` is immutable configuration with a registry name; ``fit``
returns a ``TrainedModel``. A trained model predicts BIO tags (with a
confidence) for *canonical* token segments, so every model is aligned to
the same tokens by construction; ``save``/``load`` round-trip through a
directory holding ``meta.json`` (kind, config, versions) and the weights.
"""
from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, NamedTuple, Sequence

from app.core.bio import tags_to_spans
from app.core.progress import ProgressFn, no_progress
from app.core.spans import Span
from app.core.tokenize import Segment, segment
from app.models.budget import Budget, get_budget


class TagSeq(NamedTuple):
    """A model's output for one segment: a tag and a confidence per token."""

    tags: list[str]
    confidences: list[float]


@dataclass(frozen=True, slots=True)
class TaggedSegment:
    """A training example: a segment of ``text`` with gold BIO tags.

    ``text`` is the whole document (shared, not copied); the segment's
    tokens index into it.
    """

    doc_id: str
    text: str
    segment: Segment
    tags: tuple[str, ...]

    def words(self) -> list[str]:
        return [self.text[t.start:t.end] for t in self.segment.tokens]


@dataclass
class Corpus:
    """What a model trains on. ``dev`` selects epochs/hyperparameters."""

    train: list[TaggedSegment]
    dev: list[TaggedSegment]
    labels: list[str]
    language: str = "en"
    # The texts of the train and dev notes, plus any unannotated texts the
    # caller gave (`build_corpora`; a training run gives none), for unsupervised
    # resources: word vectors, groups of like words, the transformer's vocabulary.
    raw_texts: list[str] = field(default_factory=list)


#: The registry's index: each built-in kind and the module that registers
#: it (imported on first use, so listing the kinds imports nothing heavy).
#: The paper's three neural kinds, then the CRF, then the fixed kinds.
_BUILTIN: dict[str, str] = {"spacy": "spacy_ner", "stanza": "stanza_ner", "flair": "flair_ner",
                            "transformer": "transformer_ner", "crf": "crf_ner", "rules": "rules_model", "lists": "lists_model",
                            "names": "names_model", "starter": "starter_model"}
#: Kinds trained once per run, on every training line, with no search:
#: nothing in them depends on the data variant or a hyperparameter.
FIXED_KINDS = ("rules", "lists", "names", "starter")


def builtin_kinds() -> tuple[str, ...]:
    """The built-in model kinds, in the order runs train them (no import)."""
    return tuple(_BUILTIN)


@dataclass
class TrainContext:
    """Everything about *how* to train that is not model configuration."""

    workdir: Path
    device: str = "cpu"          # "cpu" or "cuda"
    seed: int = 13
    # The run's Budget (a budget name is accepted and looked up): it bounds
    # the work of every fit (app.models.budget).
    budget: Budget = "standard"  # type: ignore[assignment]
    progress: ProgressFn = no_progress
    # The safety stop of this fit: what is left of the run's clock (see
    # budget.safety_seconds); None = no clock at all.
    max_seconds: float | None = None
    # Shared resources built once per run (e.g. {"word_vectors": Path}).
    resources: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.budget = get_budget(self.budget)


class Retagger(NamedTuple):
    """A thresholded model's reading of some items (`TrainedModel.retagger`):
    ``at(t)`` tags them at threshold ``t``; ``threshold`` is the model's own,
    ``higher`` the thresholds above it a run may raise it to
    (`app.services.finishing.fit_threshold`)."""

    threshold: float
    higher: tuple[float, ...]
    at: Callable[[float], list[TagSeq]]


class TrainedModel(ABC):
    """A fitted model. ``predict`` is pure."""

    kind: ClassVar[str]
    #: ``load(directory, "auto")`` puts it on the GPU when there is one (a
    #: model that predicts in batches there); others load on the CPU.
    auto_device: ClassVar[bool] = False

    @abstractmethod
    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        """Tag each ``(document text, segment)`` pair, one tag per token."""

    def fit_details(self) -> dict[str, Any]:
        """What fitting chose that a person may want to see (epochs kept, a
        threshold tuned on dev, GPU memory): JSON-friendly, none by default.
        The run stores it with the member's params (``fit``)."""
        return {}

    def retagger(self, items: Sequence[tuple[str, Segment]]) -> "Retagger | None":
        """``items`` read once and tagged at any threshold of the model's
        (a model that tags a word when a probability reaches one: the
        transformer); None for a model without one."""
        return None

    @abstractmethod
    def save(self, directory: Path) -> None:
        """Write weights and ``meta.json`` (see ``write_meta``)."""

    @classmethod
    @abstractmethod
    def load(cls, directory: Path, device: str = "cpu") -> "TrainedModel":
        """Rebuild a model saved by ``save``."""

    def predict_spans(self, text: str) -> list[Span]:
        """Convenience: segment, tag and decode one document."""
        segs = segment(text)
        spans: list[Span] = []
        for seg, out in zip(segs, self.predict([(text, s) for s in segs])):
            spans += tags_to_spans(seg.tokens, out.tags, out.confidences)
        return spans


class ModelSpec(ABC):
    """Immutable configuration of a base model; ``fit`` trains it."""

    kind: ClassVar[str]
    #: Its training time relative to the others' (a CRF is 1), for the share
    #: of a run's progress bar it takes; not a promise about seconds.
    relative_cost: ClassVar[float] = 2.0
    #: Its trained models run on torch (a process loading only models that do
    #: not may keep torch out: app.services.predictor).
    uses_torch: ClassVar[bool] = False
    #: Loading its trained models imports scikit-learn (a process loading
    #: only models that do not keeps it out, as torch: app.services.predictor).
    uses_sklearn: ClassVar[bool] = False
    #: Once a run has scored it and selected, it can be fitted again on
    #: train + dev (``refit`` in app.services.training) and be no worse tuned:
    #: its training reads ``corpus.dev`` for nothing (the CRF), or only to
    #: choose what ``refit_params`` then fixes (the transformer's epochs, on a GPU).
    refits: ClassVar[bool] = False
    #: The data variants it trains on a CPU (None: every variant the run
    #: trains): a kind that balances its own data there trains once.
    cpu_variants: ClassVar[tuple[str, ...] | None] = None
    #: Learned end to end from the site's own notes, so what it finds carries
    #: to new patients: the selection keeps it unless the dev patients can
    #: tell another candidate is better (``prefer`` in app.ensemble.selection).
    kept_among_equals: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params = dict(params)

    @classmethod
    def refit_params(cls, params: dict[str, Any]) -> dict[str, Any] | None:
        """The params a refit on train + dev fits with, from the scored fit's
        (its search's choice, with ``fit``: what ``fit_details`` reported):
        by default those as they are; None: this fit is not refitted."""
        return dict(params)

    @abstractmethod
    def fit(self, corpus: Corpus, ctx: TrainContext) -> TrainedModel:
        """Train on ``corpus.train`` (select on ``corpus.dev``); honour
        ``ctx.progress`` (which may raise ``Cancelled``)."""


_SPECS: dict[str, type[ModelSpec]] = {}
_MODELS: dict[str, type[TrainedModel]] = {}


def register(spec_cls: type[ModelSpec], model_cls: type[TrainedModel]) -> None:
    """Register a spec/model pair under ``spec_cls.kind``."""
    _SPECS[spec_cls.kind] = spec_cls
    _MODELS[model_cls.kind] = model_cls


def spec_class(kind: str) -> type[ModelSpec]:
    _import_builtin()
    try:
        return _SPECS[kind]
    except KeyError:
        raise ValueError(f"unknown model kind {kind!r} (known: {', '.join(sorted(_SPECS))})") from None


def known_kinds() -> list[str]:
    _import_builtin()
    return sorted(_SPECS)


META_FILE = "meta.json"


def write_meta(directory: Path, kind: str, config: dict[str, Any], **extra: Any) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    meta = {"kind": kind, "config": config, **extra}
    (directory / META_FILE).write_text(json.dumps(meta, indent=2, sort_keys=True), encoding="utf-8")


def read_meta(directory: Path, kind: str | None = None) -> dict[str, Any]:
    """The meta.json of a saved model; with ``kind``, refuse one of another kind."""
    meta = json.loads((Path(directory) / META_FILE).read_text(encoding="utf-8"))
    if kind is not None and meta.get("kind") != kind:
        raise ValueError(f"not a saved {kind!r} model: kind {meta.get('kind')!r}")
    return meta


def load_model(directory: Path, device: str = "cpu") -> TrainedModel:
    """Load any saved model, dispatching on the ``kind`` in its meta.json.

    ``device="auto"``: the GPU for a kind with ``auto_device``, the CPU for
    the others."""
    _import_builtin()
    kind = read_meta(directory)["kind"]
    try:
        cls = _MODELS[kind]
    except KeyError:
        raise ValueError(f"saved model of unknown kind {kind!r}") from None
    if device == "auto" and not cls.auto_device:
        device = "cpu"
    return cls.load(directory, device=device)


def _import_builtin() -> None:
    # Importing the modules registers them; heavy libraries are imported
    # lazily inside each module's fit/load, so this stays cheap.
    import importlib
    for name in _BUILTIN.values():
        try:
            importlib.import_module(f"app.models.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"app.models.{name}":
                raise
