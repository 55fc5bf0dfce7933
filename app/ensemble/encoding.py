"""Member outputs as aligned integer arrays: the fast path of every ensemble.

Every member tags the same canonical segments, so the outputs of ``M``
members over segments holding ``N`` tokens in all stack into ``(M, N)``
arrays over the concatenated tokens. A tag is coded as an integer:

* ``0`` is ``O``;
* label ``i`` (1-based in a `LabelIndex`) is ``2i - 1`` for ``B-`` and
  ``2i`` for ``I-``.

So ``label = (code + 1) // 2`` and ``inside = code > 0 and code even``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from app.models.base import TagSeq

MemberOutputs = dict[str, list[TagSeq]]
"""Per member name, one `TagSeq` per segment, aligned with a segment list."""

OUTSIDE = "O"


def tags_of(seq: TagSeq | Sequence[str]) -> Sequence[str]:
    """The tags of a `TagSeq` or of a plain tag sequence."""
    return seq.tags if isinstance(seq, TagSeq) else seq


class LabelIndex:
    """A fixed, sorted set of entity labels and the tag codes built on it."""

    def __init__(self, labels: Iterable[str]) -> None:
        self.labels: tuple[str, ...] = tuple(sorted(set(labels)))
        self._codes: dict[str, int] = {OUTSIDE: 0}
        for i, label in enumerate(self.labels, start=1):
            self._codes["B-" + label] = 2 * i - 1
            self._codes["I-" + label] = 2 * i

    @classmethod
    def from_tags(cls, *collections: Iterable[TagSeq | Sequence[str]]) -> "LabelIndex":
        """Collect every label used in any of the tag collections."""
        labels: set[str] = set()
        for coll in collections:
            for seq in coll:
                labels.update(_label_of(t) for t in tags_of(seq) if t != OUTSIDE)
        return cls(labels)

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    @property
    def n_tags(self) -> int:
        return 2 * len(self.labels) + 1

    def tag_names(self) -> list[str]:
        return [OUTSIDE] + [f"{p}-{label}" for label in self.labels for p in "BI"]

    def encode(self, tags: Sequence[str], *, unknown_as_outside: bool = False) -> np.ndarray:
        """Code a flat tag sequence. A label outside the index raises
        ``ValueError`` unless ``unknown_as_outside`` (then it reads as ``O``)."""
        codes = self._codes
        try:
            return np.fromiter((codes[t] for t in tags), dtype=np.int16, count=len(tags))
        except KeyError:
            pass
        out = np.empty(len(tags), dtype=np.int16)
        for k, t in enumerate(tags):
            code = codes.get(t)
            if code is None:
                _label_of(t)            # raises on a malformed tag
                if not unknown_as_outside:
                    raise ValueError(f"tag {t!r} has a label outside the label set")
                code = 0
            out[k] = code
        return out

    def decode(self, codes: np.ndarray) -> list[str]:
        names = np.asarray(self.tag_names(), dtype=object)
        return names[codes].tolist()


def _label_of(tag: str) -> str:
    if len(tag) < 3 or tag[1] != "-" or tag[0] not in "BI":
        raise ValueError(f"not a BIO tag: {tag!r}")
    return tag[2:]


def label_codes(codes: np.ndarray) -> np.ndarray:
    """Entity label id (0 for ``O``) of each tag code."""
    return (codes + 1) // 2


def inside_mask(codes: np.ndarray) -> np.ndarray:
    """True where a tag code is an ``I-`` tag."""
    return (codes > 0) & (codes % 2 == 0)


@dataclass(frozen=True, eq=False)
class Layout:
    """Where each segment's tokens lie in the concatenated token axis."""

    offsets: np.ndarray          # (S + 1,), offsets[s]..offsets[s+1] is segment s

    @classmethod
    def of(cls, seqs: Sequence[TagSeq | Sequence[str]]) -> "Layout":
        lengths = np.fromiter((len(tags_of(s)) for s in seqs), dtype=np.int64, count=len(seqs))
        return cls(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))

    @property
    def n_segments(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_tokens(self) -> int:
        return int(self.offsets[-1])

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def segment_ids(self) -> np.ndarray:
        """(N,) index of the segment of each token."""
        return np.repeat(np.arange(self.n_segments), self.lengths())

    def starts(self) -> np.ndarray:
        """(N,) True at the first token of each segment."""
        mask = np.zeros(self.n_tokens, dtype=bool)
        mask[self.offsets[:-1][self.lengths() > 0]] = True
        return mask

    def split(self, values: np.ndarray) -> list[np.ndarray]:
        return np.split(values, self.offsets[1:-1])

    def check(self, seqs: Sequence[TagSeq | Sequence[str]], what: str) -> None:
        """Raise ``ValueError`` unless ``seqs`` has this layout."""
        if len(seqs) != self.n_segments:
            raise ValueError(f"{what}: {len(seqs)} segments, expected {self.n_segments}")
        if not np.array_equal(Layout.of(seqs).offsets, self.offsets):
            raise ValueError(f"{what}: token counts differ from the other members")
        for s in seqs:
            if isinstance(s, TagSeq) and len(s.confidences) != len(s.tags):
                raise ValueError(f"{what}: one confidence per tag expected")


def flat_tags(seqs: Sequence[TagSeq | Sequence[str]]) -> list[str]:
    return [t for s in seqs for t in tags_of(s)]


def flat_confidences(seqs: Sequence[TagSeq]) -> np.ndarray:
    return np.fromiter((c for s in seqs for c in s.confidences), dtype=np.float32)


@dataclass(frozen=True, eq=False)
class Encoded:
    """Aligned member outputs: ``codes`` and ``conf`` are ``(M, N)``."""

    members: list[str]
    codes: np.ndarray
    conf: np.ndarray
    layout: Layout
    index: LabelIndex


def encode_members(outputs: Mapping[str, Sequence[TagSeq]], members: Sequence[str],
                   index: LabelIndex | None = None, *, unknown_as_outside: bool = False
                   ) -> Encoded:
    """Stack the outputs of ``members`` (in that order) into arrays.

    Raises ``ValueError`` if a member is missing or the members disagree on
    the number of segments or tokens.
    """
    missing = [m for m in members if m not in outputs]
    if missing:
        raise ValueError(f"no outputs for member(s): {', '.join(missing)}")
    if not members:
        raise ValueError("an ensemble needs at least one member")
    layout = Layout.of(outputs[members[0]])
    for m in members:
        layout.check(outputs[m], m)
    if index is None:
        index = LabelIndex.from_tags(*(outputs[m] for m in members))
    codes = np.empty((len(members), layout.n_tokens), dtype=np.int16)
    conf = np.empty((len(members), layout.n_tokens), dtype=np.float32)
    for row, m in enumerate(members):
        codes[row] = index.encode(flat_tags(outputs[m]), unknown_as_outside=unknown_as_outside)
        conf[row] = flat_confidences(outputs[m])
    return Encoded(list(members), codes, conf, layout, index)


def repair_codes(codes: np.ndarray, layout: Layout) -> np.ndarray:
    """Vectorised `app.core.bio.repair_tags`: an ``I-X`` that does not follow
    an ``X`` token of the same segment becomes ``B-X``."""
    labels = label_codes(codes)
    prev = np.zeros_like(labels)
    prev[1:] = labels[:-1]
    orphan = inside_mask(codes) & ((prev != labels) | layout.starts())
    out = codes.copy()
    out[orphan] -= 1
    return out


def to_tag_seqs(codes: np.ndarray, conf: np.ndarray, layout: Layout,
                index: LabelIndex) -> list[TagSeq]:
    """Split flat codes and confidences back into one `TagSeq` per segment."""
    tags = index.decode(codes)
    conf_list = conf.astype(float).tolist()
    out = []
    for a, b in zip(layout.offsets[:-1].tolist(), layout.offsets[1:].tolist()):
        out.append(TagSeq(tags[a:b], conf_list[a:b]))
    return out
