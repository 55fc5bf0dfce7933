"""Turn predicted spans into de-identified text with an exact offset map.

Overlapping input spans are joined first into one over their union
(``app.core.spans.merge_overlaps``, the longest one's label), so that no
character of any stays in clear; each span is then replaced according to the policy's strategy for its label, and the
``span_map`` records where every replacement landed in the output, so the
GUI can highlight it and exporters can write offsets into the output.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable, Iterable, NamedTuple

from app.core.spans import Span, merge_overlaps
from app.deid.dates import note_day_first, note_year
from app.deid.policy import Policy
from app.deid.surrogates import Surrogator


class MappedSpan(NamedTuple):
    """One replacement: input range, output range, label and strategy used."""

    in_start: int
    in_end: int
    out_start: int
    out_end: int
    label: str
    strategy: str


@dataclass(frozen=True)
class RedactionResult:
    """De-identified text and where each replacement went."""

    text: str
    span_map: list[MappedSpan]

    def label_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for m in self.span_map:
            counts[m.label] = counts.get(m.label, 0) + 1
        return counts


def map_offset(span_map, offset: int, forward: bool = True) -> int:
    """Map an offset of the original to the redacted text (or back).

    Inside a replaced span the result is that span's start on the other side.
    For many offsets of one note use :func:`offset_mapper` (O(log n) each).
    """
    return offset_mapper(span_map, forward)(offset)


def offset_mapper(span_map, forward: bool = True) -> Callable[[int], int]:
    """:func:`map_offset` for one ``span_map`` (sorted, disjoint), by bisection."""
    spans = list(span_map)
    starts = [m.in_start if forward else m.out_start for m in spans]
    shifts = [0]                       # total shift before each span
    for m in spans:
        shifts.append(shifts[-1] + (m.out_end - m.out_start) - (m.in_end - m.in_start))

    def mapped(offset: int) -> int:
        i = bisect_right(starts, offset) - 1      # the last span starting at or before
        if i >= 0:
            m = spans[i]
            end = m.in_end if forward else m.out_end
            if offset < end:
                return m.out_start if forward else m.in_start
        shift = shifts[i + 1]
        return max(0, offset + shift if forward else offset - shift)
    return mapped


def mask(text: str, char: str = "*", keep_punctuation: bool = True) -> str:
    """Same-length mask: letters/digits -> ``char``; whitespace always kept,
    other punctuation kept when ``keep_punctuation``."""
    return "".join(
        c if c.isspace() or (keep_punctuation and not c.isalnum()) else char for c in text)


class Redactor:
    """Applies a policy to documents; holds the surrogate state of a run.

    One ``Redactor`` should serve a whole export so that a patient's notes
    share their collision checks; ``known`` (the project's known
    identifiers) keeps surrogates from recreating a real identifier. The
    surrogate machinery is created lazily, so the tag/bracket/mask/remove
    strategies need no secret.
    """

    def __init__(self, policy: Policy, *, secret: str | bytes | None = None,
                 memory: object = None, locale: str | None = None,
                 known: object = None) -> None:
        self.policy = policy
        self._secret = secret
        self._memory = memory
        self._locale = locale
        self._known = known
        self._surrogator: Surrogator | None = None

    @property
    def surrogator(self) -> Surrogator:
        if self._surrogator is None:
            self._surrogator = Surrogator(self.policy, self._secret or b"", self._memory,
                                          self._locale, self._known)
        return self._surrogator

    def replacement(self, original: str, label: str, strategy: str, patient_key: str,
                    day_first: bool | None = None, year: int | None = None) -> str:
        if strategy == "tag":
            return f"<**{label}**>"
        if strategy == "bracket":
            return f"[{label}]"
        if strategy == "remove":
            return ""
        if strategy == "mask":
            return mask(original, self.policy.mask_char, self.policy.mask_keep_punctuation)
        return self.surrogator.surrogate(original, label, patient_key, day_first=day_first,
                                         year=year)

    def redact(self, text: str, spans: Iterable[Span], *, patient_key: str = "") -> RedactionResult:
        """Replace ``spans`` of ``text`` (see ``redact_text``)."""
        kept = merge_overlaps(spans)
        for s in kept:
            if s.end > len(text):
                raise ValueError(f"span [{s.start}, {s.end}) beyond end of text ({len(text)} chars)")
        strategies = [self.policy.strategy_for(s.label) for s in kept]
        day_first = year = None
        if "surrogate" in strategies:
            self.surrogator.register(patient_key, (text[s.start:s.end] for s in kept))
            # One reading of numeric dates for the whole note, so that the
            # shift keeps every interval between them; a date without its
            # year is shifted in the note's ("Feb 28" as "28/02/2020").
            dates = [text[s.start:s.end] for s, strategy in zip(kept, strategies)
                     if strategy == "surrogate" and self.policy.kind_for(s.label) == "date"]
            day_first = note_day_first(dates, default=self.surrogator.day_first)
            year = note_year(dates, day_first=day_first,
                             pivot=self.policy.two_digit_year_pivot)
        pieces: list[str] = []
        span_map: list[MappedSpan] = []
        pos = out = 0
        for s, strategy in zip(kept, strategies):
            pieces.append(text[pos:s.start])
            out += s.start - pos
            new = self.replacement(text[s.start:s.end], s.label, strategy, patient_key,
                                   day_first, year)
            pieces.append(new)
            span_map.append(MappedSpan(s.start, s.end, out, out + len(new), s.label, strategy))
            out += len(new)
            pos = s.end
        pieces.append(text[pos:])
        return RedactionResult("".join(pieces), span_map)


def redact_text(text: str, spans: Iterable[Span], policy: Policy, *, patient_key: str = "",
                secret: str | bytes | None = None, memory: object = None,
                locale: str | None = None) -> RedactionResult:
    """De-identify one note.

    Parameters
    ----------
    text
        The note.
    spans
        Predicted (or gold) spans; overlapping ones are joined first.
    policy
        Strategy per label (and surrogate settings).
    patient_key
        Whose note this is: surrogates and the date offset are per patient.
    secret
        Project secret; required only when a label uses ``surrogate``.
    memory
        ``SurrogateMemory`` or project store; ``None`` = consistent within
        this call only.
    locale
        Overrides ``policy.locale``.

    Returns
    -------
    RedactionResult
        ``text`` and ``span_map``; ``result.text[m.out_start:m.out_end]`` is
        exactly the replacement of ``text[m.in_start:m.in_end]``.

    Raises
    ------
    ValueError
        A span beyond the text, or a surrogate requested without a secret.
    """
    return Redactor(policy, secret=secret, memory=memory, locale=locale).redact(
        text, spans, patient_key=patient_key)
