"""Strict entity scoring of tag sequences against gold tags.

Spans are decoded per segment with `app.core.bio.tags_to_spans` over
*index tokens* (token ``k`` covers ``[k, k+1)``) and compared with
`app.eval.metrics.strict_counts`. Canonical tokens never overlap and keep
their order, so a token-index span matches exactly when the character span
over the real tokens matches: the counts are those of character-level strict
evaluation, without needing the segments' text.

`strict_prf_codes` is the vectorised equivalent over coded arrays (see
`app.ensemble.encoding`); pruned voting calls it hundreds of times.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from app.core.bio import tags_to_spans
from app.core.tokenize import Token
from app.ensemble.encoding import Layout, inside_mask, label_codes, tags_of
from app.eval.metrics import PRF, strict_counts
from app.models.base import TaggedSegment, TagSeq

GoldTags = Sequence[Sequence[str]]
"""Gold BIO tags, one sequence per segment."""


def gold_tags(segments: Sequence[TaggedSegment]) -> list[tuple[str, ...]]:
    """The gold tags of tagged segments, in order."""
    return [s.tags for s in segments]


def score_tags(pred: Sequence[TagSeq | Sequence[str]], gold: GoldTags) -> PRF:
    """Strict entity micro counts of ``pred`` against ``gold`` (parallel,
    one entry per segment, equal lengths)."""
    if len(pred) != len(gold):
        raise ValueError(f"{len(pred)} predicted segments for {len(gold)} gold segments")
    total = PRF(0, 0, 0)
    for p, g in zip(pred, gold):
        p = tags_of(p)
        if len(p) != len(g):
            raise ValueError("predicted and gold segments differ in length")
        toks = [Token(k, k + 1) for k in range(len(g))]
        total += strict_counts(tags_to_spans(toks, g), tags_to_spans(toks, p))
    return total


def score_tokens(pred: Sequence[TagSeq | Sequence[str]], gold: GoldTags) -> PRF:
    """Binary PII-token counts of ``pred`` against ``gold`` (a token is PII
    when its tag is not ``O``, whatever the label): the leak measure."""
    if len(pred) != len(gold):
        raise ValueError(f"{len(pred)} predicted segments for {len(gold)} gold segments")
    tp = fp = fn = 0
    for p, g in zip(pred, gold):
        for pt, gt in zip(tags_of(p), g):
            if pt != "O":
                if gt != "O":
                    tp += 1
                else:
                    fp += 1
            elif gt != "O":
                fn += 1
    return PRF(tp, fp, fn)


def score_members(outputs: Mapping[str, Sequence[TagSeq]], gold: GoldTags) -> dict[str, PRF]:
    """Strict entity counts of every member (in the mapping's order)."""
    return {name: score_tags(seqs, gold) for name, seqs in outputs.items()}


def span_keys(codes: np.ndarray, layout: Layout, n_labels: int) -> np.ndarray:
    """One int64 key per decoded span: ``(start, end, label)`` packed.

    Decoding follows `tags_to_spans`: an ``I-X`` continues a span only after
    an ``X`` token of the same segment; anything else that is not ``O``
    begins a span.
    """
    n = len(codes)
    labels = label_codes(codes).astype(np.int64)
    entity = codes > 0
    prev = np.zeros_like(labels)
    prev[1:] = labels[:-1]
    cont = inside_mask(codes) & (prev == labels) & ~layout.starts()
    next_cont = np.zeros(n, dtype=bool)
    next_cont[:-1] = cont[1:]
    begins = np.flatnonzero(entity & ~cont)
    ends = np.flatnonzero(entity & ~next_cont)
    return (begins * n + ends) * (n_labels + 1) + labels[begins]


def strict_prf_codes(pred: np.ndarray, gold_keys: np.ndarray, layout: Layout,
                     n_labels: int) -> PRF:
    """Strict counts of coded predictions against precomputed gold
    `span_keys` (same layout and label index)."""
    keys = span_keys(pred, layout, n_labels)
    tp = int(np.intersect1d(keys, gold_keys, assume_unique=True).size)
    return PRF(tp, len(keys) - tp, len(gold_keys) - tp)
