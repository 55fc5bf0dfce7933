"""The interface shared by every ensemble, and loading by kind.

An ensemble combines the outputs of named members that were already run on
the same segments; it never runs a member itself (`predict_items` does both
for callers holding trained member models). Saved ensembles are a directory
with ``meta.json`` (``kind`` + ``config``, as for base models) and, for
stacking, the meta-model's weights in a non-pickle format. Each subclass
registers itself (``register_ensemble``); loading dispatches on the saved
kind through the registry, importing a built-in kind's module by name, so
this module never imports its subclasses.
"""
from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar, Mapping, Sequence

from app.core.tokenize import Segment
from app.ensemble.encoding import MemberOutputs
from app.models.base import TagSeq, TrainedModel, read_meta

Items = Sequence[tuple[str, Segment]]
"""``(document text, segment)`` pairs, as `TrainedModel.predict` takes."""


class Ensemble(ABC):
    """A fitted combination of member outputs. ``predict_from_members`` is pure."""

    kind: ClassVar[str]
    members: list[str]

    @abstractmethod
    def predict_from_members(self, outputs: MemberOutputs, items: Items | None = None
                             ) -> list[TagSeq]:
        """Combine ``outputs`` (which must hold every member; extra keys are
        ignored) into one repaired BIO `TagSeq` per segment. ``items`` (the
        segments' texts) is needed only by ensembles that read the tokens."""

    @abstractmethod
    def describe(self) -> str:
        """One line for reports (member names and settings, no data)."""

    @abstractmethod
    def save(self, directory: Path) -> None:
        """Write ``meta.json`` and any weights into ``directory``."""

    @classmethod
    @abstractmethod
    def load(cls, directory: Path) -> "Ensemble":
        """Rebuild an ensemble written by ``save``."""


_KINDS: dict[str, type[Ensemble]] = {}
#: The registry's index: each built-in saved kind and the module registering it.
_BUILTIN = {"ensemble.voting": "app.ensemble.voting", "ensemble.stacking": "app.ensemble.stacking"}


def register_ensemble(cls: type[Ensemble]) -> type[Ensemble]:
    """Class decorator: load saved ensembles of ``cls.kind`` with ``cls``."""
    _KINDS[cls.kind] = cls
    return cls


def load_ensemble(directory: Path) -> Ensemble:
    """Load any saved ensemble, dispatching on the ``kind`` in its meta.json."""
    kind = read_meta(Path(directory))["kind"]
    if kind not in _KINDS and kind in _BUILTIN:
        importlib.import_module(_BUILTIN[kind])
    try:
        cls = _KINDS[kind]
    except KeyError:
        raise ValueError(f"saved ensemble of unknown kind {kind!r}") from None
    return cls.load(Path(directory))


def predict_items(ensemble: Ensemble, models: Mapping[str, TrainedModel], items: Items
                  ) -> list[TagSeq]:
    """Run each member model of ``ensemble`` on ``items`` and combine."""
    missing = [m for m in ensemble.members if m not in models]
    if missing:
        raise ValueError(f"no trained model for member(s): {', '.join(missing)}")
    outputs = {m: models[m].predict(items) for m in ensemble.members}
    return ensemble.predict_from_members(outputs, items)
