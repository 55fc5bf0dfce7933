"""Conversion between spans and BIO tags over canonical tokens.

Alignment policy (where spans and tokens disagree):

* A token belongs to a span if it overlaps it at all. A span boundary that
  falls inside a token therefore snaps *outward* to the token boundary
  (recall first: we would rather redact a few extra characters than leave
  part of an identifier). Such spans are reported as ``misaligned``.
* A token overlapped by two spans goes to the first (by start offset); the
  second span loses that token and is reported as ``conflicting``.
* A span that covers no token (only whitespace) is reported as ``lost``.

Decoding (`tags_to_spans`) repairs invalid sequences: an ``I-X`` that does
not continue an ``X`` span starts a new span, as conlleval does.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Sequence

from app.core.spans import Span
from app.core.tokenize import Token

OUTSIDE = "O"


@dataclass
class AlignmentReport:
    misaligned: list[Span] = field(default_factory=list)
    conflicting: list[Span] = field(default_factory=list)
    lost: list[Span] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.misaligned or self.conflicting or self.lost)

    def extend(self, other: "AlignmentReport") -> None:
        self.misaligned += other.misaligned
        self.conflicting += other.conflicting
        self.lost += other.lost


def spans_to_tags(tokens: Sequence[Token], spans: Sequence[Span]
                  ) -> tuple[list[str], AlignmentReport]:
    """Tag ``tokens`` with BIO labels from ``spans`` (see module policy)."""
    tags = [OUTSIDE] * len(tokens)
    report = AlignmentReport()
    starts = [t.start for t in tokens]
    ends = [t.end for t in tokens]
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        i = bisect_right(ends, span.start)      # first token ending after span.start
        j = bisect_left(starts, span.end)       # first token starting at/after span.end
        if i >= j:
            report.lost.append(span)
            continue
        if tokens[i].start != span.start or tokens[j - 1].end != span.end:
            report.misaligned.append(span)
        first = True
        clashed = False
        for k in range(i, j):
            if tags[k] != OUTSIDE:
                clashed = True
                continue
            tags[k] = ("B-" if first else "I-") + span.label
            first = False
        if clashed:
            report.conflicting.append(span)
    return tags, report


def tags_to_spans(tokens: Sequence[Token], tags: Sequence[str],
                  confidences: Sequence[float] | None = None) -> list[Span]:
    """Decode BIO tags into spans, repairing invalid ``I-`` continuations.

    With ``confidences`` (one per token) a span's confidence is the mean over
    its tokens.
    """
    spans: list[Span] = []
    cur_label: str | None = None
    cur_start = cur_end = 0
    conf_sum = 0.0
    conf_n = 0

    def close() -> None:
        if cur_label is not None:
            conf = conf_sum / conf_n if confidences is not None and conf_n else None
            spans.append(Span(tokens[cur_start].start, tokens[cur_end].end, cur_label, conf))

    for k, tag in enumerate(tags):
        if tag == OUTSIDE or len(tag) < 3:
            close()
            cur_label = None
            continue
        prefix, label = tag[0], tag[2:]
        if prefix == "I" and cur_label == label:
            cur_end = k
        else:
            close()
            cur_label, cur_start, cur_end = label, k, k
            conf_sum, conf_n = 0.0, 0
        if confidences is not None:
            conf_sum += confidences[k]
            conf_n += 1
    close()
    return spans


def repair_tags(tags: Sequence[str]) -> list[str]:
    """Return a valid BIO sequence: an orphan ``I-X`` becomes ``B-X``."""
    out: list[str] = []
    prev = OUTSIDE
    for tag in tags:
        if tag.startswith("I-") and prev[2:] != tag[2:]:
            tag = "B-" + tag[2:]
        out.append(tag)
        prev = tag
    return out
