"""Per-token features for stacking, built as one sparse matrix.

Column blocks, in order:

1. for each window offset ``d`` in ``-w .. w`` and each member: a one-hot
   of the member's tag at token ``i + d`` and the member's confidence there;
   for ``d != 0`` one more column that is 1 when ``i + d`` lies outside the
   segment (then the member columns hold 0);
2. the share of members voting each label (``O`` included) at ``i``;
3. optionally, the shape of token ``i`` (capitalised, all caps, digits,
   letters, punctuation, length bucket); this needs the segments' text.

Everything is built with numpy over the ``(M, N)`` coded arrays; no Python
loop runs per token except the optional shape features.

`easy_rows` finds the tokens where every member says ``O`` across the whole
window; stacking subsamples them for training (see `app.ensemble.stacking`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np
from scipy import sparse

from app.core.tokenize import Segment
from app.ensemble.encoding import Encoded, Layout, label_codes

SHAPES = ("init_cap", "all_caps", "digits", "letters", "punct",
          "len1", "len2_3", "len4_6", "len7+")


@dataclass(frozen=True)
class FeatureConfig:
    """Which features a stacking model reads."""

    window: int = 2
    confidences: bool = True
    shape: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


def build_features(enc: Encoded, cfg: FeatureConfig,
                   items: Sequence[tuple[str, Segment]] | None = None) -> sparse.csr_matrix:
    """The ``(N, F)`` feature matrix of encoded member outputs.

    ``items`` (the segments' ``(text, segment)``) is required when
    ``cfg.shape`` is set.

    Every row stores the same number of entries in the same slots, in
    increasing column order, so the CSR arrays are filled directly with no
    sort. A slot with nothing to say (a neighbour outside the segment, a
    label no member voted) stores an explicit 0; xgboost then sees the same
    present/absent pattern at training and prediction.
    """
    m, n = enc.codes.shape
    n_tags, n_labels = enc.index.n_tags, enc.index.n_labels
    per_member = n_tags + int(cfg.confidences)
    seg = enc.layout.segment_ids()
    token = np.arange(n)
    slots: list[tuple[np.ndarray | int, np.ndarray]] = []   # (column(s), values)
    col = 0
    for d in range(-cfg.window, cfg.window + 1):
        j, valid = _neighbours(seg, d)
        for r in range(m):
            base = col + r * per_member
            slots.append((base + np.where(valid, enc.codes[r, j], 0), valid))
            if cfg.confidences:
                slots.append((base + n_tags, np.where(valid, enc.conf[r, j], 0.0)))
        col += m * per_member
        if d != 0:
            slots.append((col, ~valid))
            col += 1
    labels = label_codes(enc.codes)
    counts = np.zeros((n_labels + 1, n), dtype=np.float32)
    for row in labels:
        counts[row, token] += 1.0 / m
    for lab in range(n_labels + 1):
        slots.append((col + lab, counts[lab]))
    col += n_labels + 1
    if cfg.shape:
        if items is None:
            raise ValueError("this stacking model reads token shapes: pass the segments' items")
        shape = token_shapes(items, enc.layout)
        for k in range(len(SHAPES)):
            slots.append((col + k, shape[:, k]))
        col += len(SHAPES)
    width = len(slots)
    indices = np.empty((n, width), dtype=np.int32)
    data = np.empty((n, width), dtype=np.float32)
    for k, (c, v) in enumerate(slots):
        indices[:, k] = c
        data[:, k] = v
    indptr = np.arange(0, n * width + 1, width, dtype=np.int64)
    return sparse.csr_matrix((data.ravel(), indices.ravel(), indptr), shape=(n, col))


def token_shapes(items: Sequence[tuple[str, Segment]], layout: Layout) -> np.ndarray:
    """``(N, len(SHAPES))`` booleans for the tokens of ``items``."""
    if len(items) != layout.n_segments:
        raise ValueError(f"{len(items)} items for {layout.n_segments} segments")
    if [len(seg.tokens) for _, seg in items] != layout.lengths().tolist():
        raise ValueError("items do not match the member outputs' token counts")
    out = np.zeros((layout.n_tokens, len(SHAPES)), dtype=bool)
    k = 0
    for text, seg in items:
        for tok in seg.tokens:
            s = text[tok.start:tok.end]
            n = len(s)
            out[k] = (s[:1].isupper(), n > 1 and s.isupper(), s.isdigit(), s.isalpha(),
                      not s.isalnum(), n == 1, 2 <= n <= 3, 4 <= n <= 6, n >= 7)
            k += 1
    return out


def easy_rows(enc: Encoded, window: int) -> np.ndarray:
    """(N,) True where every member tags ``O`` at every position of the
    token's window inside its segment."""
    n = enc.codes.shape[1]
    busy = (enc.codes > 0).any(axis=0)
    seg = enc.layout.segment_ids()
    easy = ~busy
    for d in range(-window, window + 1):
        j, valid = _neighbours(seg, d)
        easy &= ~(valid & busy[j])
    return easy


def _neighbours(seg: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Index of token ``i + d`` (clipped) and whether it is in ``i``'s segment."""
    n = len(seg)
    token = np.arange(n)
    j = np.clip(token + d, 0, max(n - 1, 0))
    return j, (token + d >= 0) & (token + d < n) & (seg[j] == seg)
