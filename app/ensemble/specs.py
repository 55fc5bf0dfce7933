"""Ensemble methods as specs with a registry, like the base models' (app.models.base).

An ``EnsembleSpec`` is a method's configuration; ``candidates`` fits it over
one group of members on dev and yields, for each candidate it makes, the
candidate's name, its *out-of-fold* dev predictions (what selection scores
it by: a tuned ensemble never scores the answers it was tuned on) and the
fitted ensemble deployed (tuned on the whole dev set). The fold assignment
is the dev set's (``DevSet.fold``, app.ensemble.folds), made once per run.

Built-in methods, in the order a run builds them: ``voting`` (no fitting:
its dev predictions are already honest), ``pruned`` (member exclusion and
vote threshold, cross-validated) and ``stacking`` (one candidate per
meta-model, its decision's weight on ``O`` tuned out of fold under a
recall-first objective).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar, Iterator, Sequence

import numpy as np

from app.core.progress import CancelToken, no_progress
from app.ensemble.base import Ensemble, Items
from app.ensemble.encoding import MemberOutputs
from app.ensemble.folds import assign_folds, out_of_fold
from app.ensemble.scoring import GoldTags
from app.models.base import TagSeq


@dataclass
class DevSet:
    """What every ensemble is fitted and scored on: the members' dev outputs.

    ``doc_ids`` names each segment's document; the folds (``fold``) keep a
    document's segments together. ``beta`` weighs recall in pruning (2 under
    a recall-first objective); ``objective``/``target`` are the selection's,
    ``outside_weights`` the ``O`` weights a stacking decision may take;
    ``cancel`` is checked between the folds of a stacking fit (a run's Cancel
    waited for every meta-model of a group, minutes with XGBoost).
    """

    outputs: MemberOutputs
    gold: GoldTags
    items: Items
    doc_ids: Sequence[str]
    priority: Sequence[str]
    folds: int = 5
    seed: int = 13
    beta: float = 1.0
    objective: str = "f1"
    target: float | None = None
    outside_weights: tuple[float, ...] = (1.0,)
    cancel: CancelToken | None = field(default=None, repr=False, compare=False)
    fold: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.n_docs = len(set(self.doc_ids))
        self.n_entities = sum(t.startswith("B-") for tags in self.gold for t in tags)
        self.k = max(2, min(self.folds, self.n_docs))
        self.fold = assign_folds(self.doc_ids, self.k, self.seed) if self.n_docs >= self.k \
            else np.zeros(len(self.doc_ids), dtype=int)

    def subset(self, idx: Sequence[int]) -> MemberOutputs:
        return {m: [seqs[i] for i in idx] for m, seqs in self.outputs.items()}


#: Fewer identifiers than this on dev and no ensemble is tuned there (no
#: pruning, no stacking): with a few dozen notes annotated, a meta-model
#: fitted and scored on a dozen names looks perfect out of fold and hides a
#: third of the identifiers on new notes (PhysioNet learning curve at 25
#: annotated notes with identifiers: stacking-xgb chosen, token recall 0.36
#: on held-out patients, where the starter alone hides 0.91).
MIN_TUNING_ENTITIES = 50

Candidate = tuple[str, list[TagSeq], Ensemble]


class EnsembleSpec(ABC):
    """An ensemble method's configuration (registry name ``method``)."""

    method: ClassVar[str]
    #: Whether it is tuned on dev, so needs two dev documents to cross-validate.
    tuned: ClassVar[bool] = True

    @abstractmethod
    def candidates(self, group_name: str, group: Sequence[str], dev: DevSet) -> Iterator[Candidate]:
        """Fit over ``group`` on ``dev``; yield ``(name, out-of-fold dev
        predictions, deployed ensemble)`` per candidate."""


_SPECS: dict[str, type[EnsembleSpec]] = {}


def register_spec(cls: type[EnsembleSpec]) -> type[EnsembleSpec]:
    """Class decorator: make ``cls`` the spec of ensemble method ``cls.method``."""
    _SPECS[cls.method] = cls
    return cls


def ensemble_methods() -> tuple[str, ...]:
    """The registered methods, in the order a run builds them."""
    return tuple(_SPECS)


def ensemble_specs(methods: Sequence[str], *, meta_models: Sequence[str] = ("lr",)
                   ) -> list[EnsembleSpec]:
    """The specs of ``methods``, in registry order (``ValueError`` for an unknown one)."""
    unknown = [m for m in methods if m not in _SPECS]
    if unknown:
        raise ValueError(f"unknown ensemble method(s) {', '.join(unknown)}")
    return [StackingSpec(tuple(meta_models)) if m == StackingSpec.method else _SPECS[m]()
            for m in _SPECS if m in methods]


@register_spec
class VotingSpec(EnsembleSpec):
    """Token-level majority voting; ties go to the best-F1 member."""

    method = "voting"
    tuned = False

    def candidates(self, group_name, group, dev):
        from app.ensemble.voting import VotingEnsemble
        ens = VotingEnsemble(group, dev.priority)
        yield f"voting[{group_name}]", ens.predict_from_members(dev.outputs), ens


@register_spec
class PrunedSpec(EnsembleSpec):
    """Pruned voting (greedy member exclusion, tuned vote threshold)."""

    method = "pruned"

    def candidates(self, group_name, group, dev):
        from app.ensemble.pruning import prune_voting

        def fit_predict(train: list[int], test: list[int]) -> list[TagSeq]:
            ens = prune_voting(dev.subset(train), [dev.gold[i] for i in train], group,
                               dev.priority, beta=dev.beta).ensemble
            return ens.predict_from_members(dev.subset(test))

        oof = out_of_fold(dev.fold, fit_predict)
        ens = prune_voting(dev.outputs, dev.gold, group, dev.priority, beta=dev.beta).ensemble
        yield f"pruned[{group_name}]", oof, ens


@register_spec
@dataclass(frozen=True)
class StackingSpec(EnsembleSpec):
    """Stacking: one meta-model per ``meta_models`` entry over the members' tags."""

    meta_models: tuple[str, ...] = ("lr",)
    method: ClassVar[str] = "stacking"

    def candidates(self, group_name, group, dev):
        from app.ensemble.stacking import (cross_val_predict_weighted, fit_stacking,
                                           tune_outside_weight)
        for meta in self.meta_models:
            try:
                oof = cross_val_predict_weighted(dev.outputs, dev.gold, group, meta,
                                                 dev.outside_weights, folds=dev.k,
                                                 groups=dev.doc_ids, items=dev.items, seed=dev.seed,
                                                 progress=dev.cancel.wrap(no_progress)
                                                 if dev.cancel else no_progress)
                weight = tune_outside_weight(oof, dev.gold, dev.objective, dev.target)
                ens = fit_stacking(dev.outputs, dev.gold, group, meta, items=dev.items,
                                   seed=dev.seed, outside_weight=weight)
            except ValueError:
                continue       # too little dev data for this meta-model (e.g. one class per fold)
            yield f"stacking-{meta}[{group_name}]", oof[weight], ens
