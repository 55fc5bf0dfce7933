"""Inter-annotator agreement between two annotators' spans (no Qt).

Two measures, as annotation papers report them:

* strict entity F1: annotator A's spans taken as the reference, B's as the
  prediction (the F1 is symmetric, so the choice does not matter); a match
  needs the same start, end and label;
* Cohen's kappa over canonical tokens (:func:`app.core.tokenize.tokenize`),
  each token's category being its BIO tag (``B-PERSON``, ``I-PERSON``, ``O``)
  from :func:`app.core.bio.spans_to_tags`, so boundary disagreements count.
  It is given over all tokens and over *annotated* tokens only (tokens that
  at least one annotator tagged): PII is rare, and the all-token kappa is
  inflated by the sea of ``O`` tokens both agree on.

Per label: strict F1 restricted to that label, and a binary kappa (token in
a span of that label or not) over all tokens.

Disagreements are reported as *conflict groups*: maximal runs of overlapping
spans that are not in both annotations; the adjudication view offers a
choice per group.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from app.core.bio import OUTSIDE, spans_to_tags
from app.core.spans import Span, sort_spans
from app.core.tokenize import tokenize
from app.eval.metrics import PRF, strict_counts


@dataclass(frozen=True, slots=True)
class ConflictGroup:
    """Overlapping spans on which the two annotators differ.

    ``kind`` is ``"label"`` (same boundaries, other label), ``"boundary"``
    (overlapping, other boundaries), ``"only_a"`` or ``"only_b"`` (one
    annotator marked nothing there).
    """

    start: int
    end: int
    a: tuple[Span, ...]
    b: tuple[Span, ...]

    @property
    def kind(self) -> str:
        if not self.b:
            return "only_a"
        if not self.a:
            return "only_b"
        if [(s.start, s.end) for s in self.a] == [(s.start, s.end) for s in self.b]:
            return "label"
        return "boundary"


@dataclass
class Agreement:
    """Agreement of two annotators over one document or a pooled set."""

    strict: PRF = PRF(0, 0, 0)
    per_label: dict[str, PRF] = field(default_factory=dict)
    kappa_all: float = 1.0
    kappa_annotated: float = 1.0
    per_label_kappa: dict[str, float] = field(default_factory=dict)
    tokens: int = 0
    annotated_tokens: int = 0
    disagreements: list[ConflictGroup] = field(default_factory=list)

    @property
    def f1(self) -> float:
        """Strict entity F1; 1.0 when neither annotator marked anything."""
        if self.strict.tp + self.strict.fp + self.strict.fn == 0:
            return 1.0
        return self.strict.f1


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """Cohen's kappa of two parallel category sequences.

    ``(p_o - p_e) / (1 - p_e)``; when chance agreement is certain
    (``p_e == 1``: both used one and the same category throughout) the
    annotators agree perfectly and 1.0 is returned. An empty input gives 1.0.
    """
    if len(a) != len(b):
        raise ValueError("kappa needs parallel sequences")
    n = len(a)
    if n == 0:
        return 1.0
    observed = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[c] * cb[c] for c in ca) / (n * n)
    if expected >= 1.0:
        return 1.0
    return (observed - expected) / (1.0 - expected)


def token_tags(text: str, spans: Sequence[Span]) -> list[str]:
    """BIO tag of every canonical token of ``text`` (overlaps resolved as in ``bio``)."""
    tags, _ = spans_to_tags(tokenize(text), list(spans))
    return tags


def conflict_groups(a: Sequence[Span], b: Sequence[Span]
                    ) -> tuple[list[Span], list[ConflictGroup]]:
    """Split two annotations into agreed spans and conflict groups.

    A span in both (same start, end and label) is agreed. The others are
    clustered into groups of transitively overlapping spans.
    """
    keys_a, keys_b = {s.key for s in a}, {s.key for s in b}
    agreed = sort_spans({s.key: s for s in a if s.key in keys_b}.values())
    rest = sorted([(s, "a") for s in a if s.key not in keys_b]
                  + [(s, "b") for s in b if s.key not in keys_a],
                  key=lambda item: (item[0].start, item[0].end, item[1]))
    groups: list[ConflictGroup] = []
    cur: list[tuple[Span, str]] = []
    cur_end = -1
    for span, who in rest:
        if cur and span.start >= cur_end:
            groups.append(_group(cur))
            cur = []
        cur.append((span, who))
        cur_end = max(cur_end, span.end) if len(cur) > 1 else span.end
    if cur:
        groups.append(_group(cur))
    return agreed, groups


def _group(items: list[tuple[Span, str]]) -> ConflictGroup:
    return ConflictGroup(min(s.start for s, _ in items), max(s.end for s, _ in items),
                         tuple(s for s, w in items if w == "a"),
                         tuple(s for s, w in items if w == "b"))


def _labels(spans: Sequence[Span]) -> set[str]:
    return {s.label for s in spans}


def agreement(docs: Sequence[tuple[str, Sequence[Span], Sequence[Span]]]) -> Agreement:
    """Pooled agreement over documents given as ``(text, a_spans, b_spans)``.

    Counts and tokens are pooled (micro) across documents, so a single
    document gives that document's agreement.
    """
    out = Agreement()
    tags_a: list[str] = []
    tags_b: list[str] = []
    labels: set[str] = set()
    for text, a, b in docs:
        labels |= _labels(a) | _labels(b)
        out.strict += strict_counts(a, b)
        tags_a += token_tags(text, a)
        tags_b += token_tags(text, b)
        out.disagreements += conflict_groups(a, b)[1]
    for label in sorted(labels):
        out.per_label[label] = sum(
            (strict_counts(a, b, label) for _, a, b in docs), PRF(0, 0, 0))
        out.per_label_kappa[label] = cohen_kappa(
            [t[2:] == label for t in tags_a], [t[2:] == label for t in tags_b])
    annotated = [i for i, (x, y) in enumerate(zip(tags_a, tags_b))
                 if x != OUTSIDE or y != OUTSIDE]
    out.tokens = len(tags_a)
    out.annotated_tokens = len(annotated)
    out.kappa_all = cohen_kappa(tags_a, tags_b)
    out.kappa_annotated = cohen_kappa([tags_a[i] for i in annotated],
                                      [tags_b[i] for i in annotated])
    return out


def label_f1(prf: PRF) -> float:
    """F1 of a per-label count, 1.0 when neither annotator used the label."""
    return 1.0 if prf.tp + prf.fp + prf.fn == 0 else prf.f1
