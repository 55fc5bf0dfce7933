"""Ensembles over base-model outputs: voting, pruned voting, stacking,
selection of the deployed system, and member disagreement for active learning.

Every ensemble works on `MemberOutputs` (member name -> one `TagSeq` per
segment, all members on the same canonical segments) and never runs a
member itself; `predict_items` runs trained members and combines them.
"""
from app.ensemble.base import Ensemble, load_ensemble, predict_items
from app.ensemble.encoding import MemberOutputs
from app.ensemble.features import FeatureConfig
from app.ensemble.groups import make_groups, rank_members
from app.ensemble.pruning import PruningResult, prune_voting
from app.ensemble.scoring import gold_tags, score_members, score_tags
from app.ensemble.selection import SelectionResult, SelectionRow, select
from app.ensemble.stacking import StackingEnsemble, cross_val_predict, fit_stacking
from app.ensemble.uncertainty import document_uncertainty, rank_documents
from app.ensemble.voting import VotingEnsemble

__all__ = [
    "Ensemble", "FeatureConfig", "MemberOutputs", "PruningResult", "SelectionResult",
    "SelectionRow", "StackingEnsemble", "VotingEnsemble", "cross_val_predict",
    "document_uncertainty", "fit_stacking", "gold_tags", "load_ensemble", "make_groups",
    "predict_items", "prune_voting", "rank_documents", "rank_members", "score_members",
    "score_tags", "select",
]
