"""Training corpora from gold documents: segments, BIO tags, splits.

Every model trains on the same canonical segments (``app.core.tokenize``)
tagged with ``app.core.bio.spans_to_tags``. Two variants, as in the paper:

* ``imbalanced`` - every segment of the training documents;
* ``balanced`` - every segment that holds PII plus ``ratio`` times as many
  PII-free segments, sampled with a fixed seed.

Balancing applies to the training part only: the dev part always keeps every
segment, so early stopping and model selection see the real rate of PII-free
text and the two variants are compared on the same dev data.

Splits are by document (a document is never cut between train and dev), and
documents whose ``split`` is ``"test"`` are never used at all.
"""
from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

from app.core.bio import OUTSIDE, AlignmentReport, repair_tags, spans_to_tags
from app.core.spans import Document
from app.core.tokenize import Segment, segment
from app.models.base import Corpus, TaggedSegment

VARIANTS = ("imbalanced", "balanced")
DEV_FRACTION = 0.15


@dataclass
class AlignmentStats:
    """How well the gold spans fit the canonical tokens (counts only, no text).

    ``cross_segment`` counts segment boundaries that a gold span crossed; the
    segments on both sides were merged into one training segment.
    """

    spans: int = 0
    misaligned: int = 0
    conflicting: int = 0
    lost: int = 0
    cross_segment: int = 0

    def add(self, report: AlignmentReport, n_spans: int, merged: int) -> None:
        self.spans += n_spans
        self.misaligned += len(report.misaligned)
        self.conflicting += len(report.conflicting)
        self.lost += len(report.lost)
        self.cross_segment += merged

    @property
    def aligned(self) -> int:
        """Spans represented exactly (no snapping, clash or loss)."""
        return self.spans - self.misaligned - self.conflicting - self.lost

    def as_dict(self) -> dict:
        return {"spans": self.spans, "aligned": self.aligned, "misaligned": self.misaligned,
                "conflicting": self.conflicting, "lost": self.lost,
                "cross_segment": self.cross_segment}


@dataclass
class DatasetBuild:
    """A built corpus with what a reproducibility record needs.

    ``split_hashes`` are sha256 digests over (document id, segment offsets,
    tags) of each part, in order; equal hashes mean equal training data.
    """

    variant: str
    corpus: Corpus
    train_docs: list[str]
    dev_docs: list[str]
    split_hashes: dict[str, str]
    stats: AlignmentStats
    split_source: str               # "documents" (own split field) or "seeded"
    counts: dict[str, int] = field(default_factory=dict)


def tag_document(doc: Document) -> tuple[list[TaggedSegment], AlignmentReport, int]:
    """Segment and tag one document.

    Returns the tagged segments, the alignment report and how many segment
    boundaries were removed because a gold span crossed them.
    """
    segs = segment(doc.text)
    tokens = [t for s in segs for t in s.tokens]
    tags, report = spans_to_tags(tokens, doc.spans)
    out: list[TaggedSegment] = []
    merged = 0
    k = 0
    for seg in segs:
        seg_tags = tags[k:k + len(seg.tokens)]
        k += len(seg.tokens)
        # An I- tag at a segment start can only continue a span from the
        # previous segment (spans_to_tags starts every span with B-).
        if out and seg_tags[0].startswith("I-"):
            prev = out.pop()
            seg = Segment(prev.segment.start, seg.end, prev.segment.tokens + seg.tokens)
            seg_tags = list(prev.tags) + seg_tags
            merged += 1
        out.append(TaggedSegment(doc.name, doc.text, seg, tuple(repair_tags(seg_tags))))
    return out, report, merged


def has_pii(item: TaggedSegment) -> bool:
    return any(t != OUTSIDE for t in item.tags)


def split_documents(docs: Sequence[Document], seed: int = 13,
                    dev_fraction: float = DEV_FRACTION
                    ) -> tuple[list[Document], list[Document], str]:
    """Split the non-test documents into train and dev.

    Documents keep their own ``split`` (``"train"``/``"dev"``) when any has
    one; the others are split with ``seed``. Documents of one patient stay
    together. If that leaves no dev document, a seeded ``dev_fraction`` of
    the training documents becomes dev (when there are at least two).

    Returns ``(train, dev, source)`` where ``source`` is ``"documents"`` or
    ``"seeded"``.
    """
    usable = [d for d in docs if d.split != "test"]
    train = [d for d in usable if d.split == "train"]
    dev = [d for d in usable if d.split == "dev"]
    rest = [d for d in usable if d.split not in ("train", "dev")]
    source = "documents" if (train or dev) else "seeded"
    if rest:
        a, b = _seeded_split(rest, seed, dev_fraction)
        train += a
        dev += b
    if not dev and len(train) >= 2:
        train, dev = _seeded_split(train, seed, dev_fraction)
        source = "seeded"
    return train, dev, source


def _seeded_split(docs: list[Document], seed: int, fraction: float
                  ) -> tuple[list[Document], list[Document]]:
    groups: dict[str, list[Document]] = {}
    for d in sorted(docs, key=lambda d: d.name):
        groups.setdefault(d.patient_id or f"\0{d.name}", []).append(d)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    if len(keys) < 2:
        return [d for k in keys for d in groups[k]], []
    n_dev = min(len(keys) - 1, max(1, math.ceil(fraction * len(keys))))
    dev_keys = set(keys[:n_dev])
    train = [d for k in sorted(groups) if k not in dev_keys for d in groups[k]]
    dev = [d for k in sorted(groups) if k in dev_keys for d in groups[k]]
    return train, dev


def balance(items: Sequence[TaggedSegment], seed: int, ratio: float = 1.0) -> list[TaggedSegment]:
    """All PII segments plus ``round(ratio * n_pii)`` seeded PII-free ones.

    The original order of ``items`` is kept.
    """
    if ratio < 0:
        raise ValueError("ratio must be >= 0")
    empty_idx = [i for i, it in enumerate(items) if not has_pii(it)]
    n_pii = len(items) - len(empty_idx)
    k = min(len(empty_idx), round(ratio * n_pii))
    keep = set(random.Random(seed).sample(empty_idx, k))
    return [it for i, it in enumerate(items) if has_pii(it) or i in keep]


def split_hash(items: Iterable[TaggedSegment]) -> str:
    """sha256 over document ids, segment offsets and tags, in order."""
    h = hashlib.sha256()
    for it in items:
        h.update(f"{it.doc_id}\t{it.segment.start}\t{it.segment.end}\t".encode())
        h.update(" ".join(it.tags).encode())
        h.update(b"\n")
    return h.hexdigest()


def build_corpora(docs: Sequence[Document], *, variants: Sequence[str] = VARIANTS,
                  labels: Sequence[str] | None = None, language: str = "en",
                  seed: int = 13, ratio: float = 1.0, dev_fraction: float = DEV_FRACTION,
                  raw_texts: Sequence[str] = ()) -> dict[str, DatasetBuild]:
    """Build one corpus per variant over a single shared document split.

    Parameters
    ----------
    docs
        Gold documents; those with ``split == "test"`` are ignored.
    variants
        Any of ``"imbalanced"``, ``"balanced"``.
    labels
        The project's label set; default: labels found in train/dev spans.
    language
        Corpus language code passed to models (e.g. ``"es"``).
    seed
        Seeds the document split and the PII-free sampling.
    ratio
        PII-free segments per PII segment in the balanced variant.
    raw_texts
        Extra unannotated texts for unsupervised resources (word vectors,
        groups of like words);
        the train/dev texts are always included, test texts never.
    """
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        raise ValueError(f"unknown corpus variant {bad[0]!r} (known: {', '.join(VARIANTS)})")
    train_docs, dev_docs, source = split_documents(docs, seed, dev_fraction)
    stats = AlignmentStats()
    parts: dict[str, list[TaggedSegment]] = {"train": [], "dev": []}
    for part, part_docs in (("train", train_docs), ("dev", dev_docs)):
        for d in part_docs:
            items, report, merged = tag_document(d)
            stats.add(report, len(d.spans), merged)
            parts[part] += items
    if labels is None:
        labels = sorted({s.label for d in train_docs + dev_docs for s in d.spans})
    texts = [d.text for d in train_docs + dev_docs] + list(raw_texts)
    dev_hash = split_hash(parts["dev"])
    out: dict[str, DatasetBuild] = {}
    for variant in variants:
        train = parts["train"] if variant == "imbalanced" else balance(parts["train"], seed, ratio)
        corpus = Corpus(train=list(train), dev=list(parts["dev"]), labels=list(labels),
                        language=language, raw_texts=texts)
        out[variant] = DatasetBuild(
            variant=variant, corpus=corpus,
            train_docs=[d.name for d in train_docs], dev_docs=[d.name for d in dev_docs],
            split_hashes={"train": split_hash(train), "dev": dev_hash},
            stats=stats, split_source=source,
            counts={"train_segments": len(train),
                    "train_pii_segments": sum(map(has_pii, train)),
                    "dev_segments": len(parts["dev"]),
                    "dev_pii_segments": sum(map(has_pii, parts["dev"]))})
    return out


def refit_corpus(build: DatasetBuild, seed: int = 13, ratio: float = 1.0) -> Corpus:
    """``build``'s corpus with its dev segments added to the training ones
    (balanced the same way for the balanced variant), for a member refitted
    after the selection; ``dev`` stays as it was (a refitted member has seen it)."""
    dev = build.corpus.dev if build.variant == "imbalanced" else balance(build.corpus.dev, seed, ratio)
    return replace(build.corpus, train=[*build.corpus.train, *dev])


def build_corpus(docs: Sequence[Document], variant: str = "imbalanced", **kwargs) -> DatasetBuild:
    """One variant of ``build_corpora`` (same keyword arguments)."""
    return build_corpora(docs, variants=(variant,), **kwargs)[variant]
