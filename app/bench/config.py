"""Sizes of a benchmark run, the corpora's seeds, and the targets reported against.

A run's *size* follows its training budget (``quick``, ``standard``,
``full``) unless ``--smoke`` asks for the tiny size the tests use. The
size fixes how much data each part generates or samples; the budget fixes
how long each model trains (:mod:`app.models.budget`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from app.models.budget import BUDGETS

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "bench-out"
BENCHMARKS_MD = REPO / "BENCHMARKS.md"

# Synthetic corpora: train/dev from seed A, the held-out test set from seed B,
# the speed-test text from seed B too (never trained on), the 10,000-note
# project from seed C. Half of each set is en_AU, half en_US.
SEED_TRAIN = 1101
SEED_TEST = 2202
SEED_OPEN = 3303
LOCALES = ("en_AU", "en_US")
# Subsampling of MEDDOCAN train/dev for the learning curve.
SEED_SUBSAMPLE = 13
CURVE_SIZES = (25, 50, 100, 200)
# Rows of the first page the document list shows (app.gui.documents_view.PAGE;
# not imported: app.gui pulls in Qt).
FIRST_PAGE = 200


@dataclass(frozen=True)
class Size:
    """How much data each part uses.

    Attributes
    ----------
    synth_train, synth_dev, synth_test
        Notes of the synthetic accuracy corpus (the speed part trains on the
        same train/dev sets).
    speed_notes
        Held-out notes whose throughput is measured.
    growth_base
        Notes at "1x" of the cost-growth curve (4x and 16x follow).
    open_notes
        Notes in the project whose open time is measured.
    repeats
        Timing repeats of the cheap measurements (baseline, rules, open);
        the median is reported.
    bootstrap
        Resamples of the 95 % intervals.
    curve_sizes
        Training notes of the learning-curve points.
    meddocan_limit
        ``(train, dev, test)`` notes sampled from MEDDOCAN; ``None`` = all.
    train
        Overrides of `app.services.training.TrainConfig` (the smoke size
        trains fewer ensembles so the test stays short).
    """

    name: str
    synth_train: int
    synth_dev: int
    synth_test: int
    speed_notes: int
    growth_base: int
    open_notes: int
    repeats: int
    bootstrap: int
    curve_sizes: tuple[int, ...] = CURVE_SIZES
    meddocan_limit: tuple[int, int, int] | None = None
    train: dict = field(default_factory=dict)


SIZES: dict[str, Size] = {
    "smoke": Size("smoke", 10, 6, 8, speed_notes=6, growth_base=1, open_notes=200, repeats=2,
                  bootstrap=50, curve_sizes=(4, 8), meddocan_limit=(8, 4, 4),
                  train={"variants": ["imbalanced"], "ensembles": ["voting", "stacking"],
                         "meta_models": ["lr"], "folds": 2}),
    "quick": Size("quick", 24, 12, 100, speed_notes=100, growth_base=20, open_notes=10_000,
                  repeats=3, bootstrap=1000),
    "standard": Size("standard", 300, 100, 300, speed_notes=300, growth_base=50,
                     open_notes=10_000, repeats=5, bootstrap=1000),
    "full": Size("full", 1000, 250, 500, speed_notes=1000, growth_base=100, open_notes=10_000,
                 repeats=5, bootstrap=2000),
}

# A size for every training budget (the schema's names), and the smoke one.
assert set(SIZES) == {"smoke", *BUDGETS}


def size_for(budget: str, smoke: bool = False) -> Size:
    return SIZES["smoke" if smoke else budget]


def meddocan_dir() -> Path | None:
    """MEDDOCAN: ``$DEID_MEDDOCAN`` or ``../shared/data/meddocan`` beside the repo."""
    env = os.environ.get("DEID_MEDDOCAN")
    path = Path(env) if env else REPO.parent / "shared" / "data" / "meddocan"
    return path if (path / "train").is_dir() else None


def physionet_dir() -> Path | None:
    """PhysioNet deid training notes: ``$DEID_PHYSIONET`` or
    ``../shared/data/physionet-deid`` beside the repo."""
    env = os.environ.get("DEID_PHYSIONET")
    path = Path(env) if env else REPO.parent / "shared" / "data" / "physionet-deid"
    return path if (path / "train").is_dir() else None


@dataclass(frozen=True)
class Target:
    key: str
    what: str
    threshold: float
    unit: str

    def check(self, measured: float | None, note: str = "") -> dict:
        """The JSON row: target vs measured; ``pass`` is None when not measured."""
        ok = None if measured is None else bool(measured >= self.threshold)
        return {"key": self.key, "what": self.what, "target": self.threshold,
                "measured": measured, "unit": self.unit, "pass": ok, "note": note}


TARGETS = {
    "meddocan_strict_f1": Target("meddocan_strict_f1",
                                 "selected ensemble strict micro-F1, MEDDOCAN test", 0.965, ""),
    "meddocan_token_recall": Target("meddocan_token_recall",
                                    "selected ensemble binary token recall, MEDDOCAN test",
                                    0.99, ""),
    "physionet_token_recall": Target("physionet_token_recall",
                                     "selected model binary token recall, PhysioNet dev "
                                     "patients", 0.99, ""),
    "physionet_token_precision": Target("physionet_token_precision",
                                        "selected model binary token precision, PhysioNet dev "
                                        "patients", 0.90, ""),
    "folds_token_recall": Target("folds_token_recall",
                                 "selected model binary token recall, mean of the PhysioNet "
                                 "patient-disjoint folds", 0.985, ""),
    "folds_token_recall_lists": Target("folds_token_recall_lists",
                                       "selected model binary token recall, mean of the "
                                       "PhysioNet folds, with the hospital lists", 0.99, ""),
    "folds_token_precision": Target("folds_token_precision",
                                    "selected model binary token precision, mean of the "
                                    "PhysioNet patient-disjoint folds", 0.90, ""),
    "folds_token_precision_lists": Target("folds_token_precision_lists",
                                          "selected model binary token precision, mean of the "
                                          "PhysioNet folds, with the hospital lists", 0.90, ""),
    "physionet_notes_kept": Target("physionet_notes_kept",
                                   "share of PhysioNet dev notes with identifiers that leak "
                                   "none", 0.98, ""),
    "selected_cpu_chars_per_s": Target("selected_cpu_chars_per_s",
                                       "selected ensemble throughput, CPU", 20_000, "chars/s"),
    "rules_cpu_chars_per_s": Target("rules_cpu_chars_per_s", "rules-only throughput, CPU",
                                    1_000_000, "chars/s"),
    "every_core_chars_per_s": Target("every_core_chars_per_s",
                                     "selected model, `deid annotate` on every core", 40_000,
                                     "chars/s"),
}
