"""The hospital lists as a base model (kind ``lists``), for the ensembles.

The saved model holds only the label of each hit category (chosen from
the training label set by :func:`app.lists.labels.label_map`), never an
entry: the entries stay in the project, and whoever loads the model for a
project binds them with :meth:`ListsModel.bind` (the predictor and the
training service do). An unbound model tags nothing.

``predict`` gets ``(text, segment)`` pairs, not notes, so the patient of
each text comes from the mapping given to ``bind`` (text -> patient id),
which its owner keeps up to date; a text missing from it gets the plain
lists only.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from app.core.bio import OUTSIDE, spans_to_tags
from app.core.progress import Progress
from app.core.spans import Span
from app.core.tokenize import Segment
from app.lists.labels import label_map
from app.models.base import (Corpus, ModelSpec, TagSeq, TrainContext, TrainedModel,
                             read_meta, register, write_meta)

LISTS_VERSION = 1
# Confidences for the stacking features: list hits are rarely wrong
# (0.98 token precision on the PhysioNet training notes) and miss most
# identifiers that are not on a list.
_HIT_CONFIDENCE = 0.95
_O_CONFIDENCE = 0.9


class ListsSpec(ModelSpec):
    """The lists member: nothing to learn but the label of each hit category."""

    kind = "lists"
    relative_cost = 0.2

    def fit(self, corpus: Corpus, ctx: TrainContext) -> "ListsModel":
        mapping, _ = label_map(corpus.labels)
        ctx.progress(Progress(1.0, "train", model=self.kind, model_fraction=1.0))
        return ListsModel(mapping, params=self.params)


class ListsModel(TrainedModel):
    """Hits of the bound :class:`app.lists.ListMatcher`, as BIO tags."""

    kind = "lists"

    def __init__(self, labels: Mapping[str, str], params: dict[str, Any] | None = None) -> None:
        self.labels = dict(labels)
        self.params = dict(params or {})
        self._matcher = None
        self._patients: Mapping[str, str | None] = {}

    def bind(self, matcher, patients: Mapping[str, str | None]) -> None:
        """Use ``matcher`` (or ``None``: tag nothing); ``patients`` maps a
        note's text to its patient id, read at every ``predict``."""
        self._matcher = matcher
        self._patients = patients

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        hits: dict[int, tuple[str, list[Span]]] = {}
        out = []
        for text, seg in items:
            entry = hits.get(id(text))
            if entry is None or entry[0] is not text:
                spans = [] if self._matcher is None else [
                    Span(h.start, h.end, self.labels[h.category], _HIT_CONFIDENCE)
                    for h in self._matcher.find(text, self._patients.get(text))
                    if h.category in self.labels]
                # The text is kept in the entry, so its id cannot be reused.
                entry = hits[id(text)] = (text, spans)
            inside = [s for s in entry[1] if s.start < seg.end and s.end > seg.start]
            tags, _ = spans_to_tags(seg.tokens, inside)
            out.append(TagSeq(tags, [_O_CONFIDENCE if t == OUTSIDE else _HIT_CONFIDENCE
                                     for t in tags]))
        return out

    def save(self, directory: Path) -> None:
        write_meta(Path(directory), self.kind, self.params, lists_version=LISTS_VERSION,
                   labels=self.labels)

    @classmethod
    def load(cls, directory: Path, device: str = "cpu") -> "ListsModel":
        meta = read_meta(Path(directory), cls.kind)
        if meta.get("lists_version", 0) > LISTS_VERSION:
            raise ValueError("lists model saved by a newer version of the application")
        return cls(meta["labels"], params=meta.get("config", {}))


register(ListsSpec, ListsModel)
