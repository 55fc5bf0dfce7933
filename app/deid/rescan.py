"""Leak re-scan: look for identifiers that survived de-identification.

After redaction the OUTPUT is searched (this is the one place where
searching text is right: we look for leaks, we do not locate spans) for

* every identifier string detected anywhere in the same patient's notes,
  case-insensitively and on word boundaries (a missed second mention of a
  name, say), and
* hits of a rules recogniser (``rules_fn(text) -> [(start, end, category)]``)
  outside the replacements (well-formed dates, phones, IDs the model
  missed; inside a replacement they are our own surrogates).

A ``Leak`` carries offsets and a category, never the leaked text, so it can
go into reports and logs. An identifier hit *inside* a replacement is
flagged ``in_replacement``: a surrogate that happens to equal another real
identifier of the patient (a shifted date landing on another real date);
``redact_folder`` reports those as coincidences, not leaks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

RulesFn = Callable[[str], Iterable[tuple[int, int, str]]]

#: Identifier strings shorter than this are not searched (initials, "Dr").
MIN_IDENTIFIER_CHARS = 3


@dataclass(frozen=True)
class Leak:
    """A suspected identifier in de-identified text (no text, only where and what)."""

    start: int
    end: int
    kind: str          # "identifier" (a known string of the patient) or "rule"
    category: str      # "identifier" or the rule's category
    in_replacement: bool = False


class LeakError(RuntimeError):
    """Strict mode found leaks; ``leaks`` maps note id -> count."""

    def __init__(self, leaks: dict[str, int]) -> None:
        super().__init__(f"{sum(leaks.values())} suspected identifier leak(s) in "
                         f"{len(leaks)} note(s); the notes were not exported")
        self.leaks = leaks


def _pattern(identifiers: Iterable[str], allow: frozenset[str], min_chars: int) -> re.Pattern | None:
    strings = set()
    for s in identifiers:
        s = " ".join(s.split())
        if len(s) >= min_chars and s.casefold() not in allow:
            strings.add(s)
    if not strings:
        return None
    # Longest first so "John Smith" is reported as one leak, not "John".
    alts = [r"\s+".join(re.escape(w) for w in s.split(" "))
            for s in sorted(strings, key=len, reverse=True)]
    return re.compile(r"(?<!\w)(?:" + "|".join(alts) + r")(?!\w)", re.IGNORECASE)


def rescan(out_text: str, original_identifiers_of_patient: Sequence[str],
           rules_fn: RulesFn | None = None, *,
           replaced: Sequence[tuple[int, int]] = (),
           allow: Iterable[str] = ("90+",),
           min_chars: int = MIN_IDENTIFIER_CHARS) -> list[Leak]:
    """Find suspected leaks in ``out_text``.

    Parameters
    ----------
    out_text
        De-identified text.
    original_identifiers_of_patient
        Every identifier string detected for this patient (pass only those
        whose replacement differs from the original: an age the policy keeps
        is not a leak).
    rules_fn
        Optional rules recogniser; its hits inside ``replaced`` are ignored.
    replaced
        Output ranges of the replacements (``MappedSpan.out_start/out_end``).
    allow
        Strings the surrogates legitimately produce (``"90+"``).
    min_chars
        Identifier strings shorter than this are ignored.

    Returns
    -------
    list[Leak]
        Sorted by position.
    """
    allow_set = frozenset(a.casefold() for a in allow)
    ranges = sorted(replaced)

    def inside(start: int, end: int) -> bool:
        return any(s < end and start < e for s, e in ranges)

    leaks: list[Leak] = []
    pattern = _pattern(original_identifiers_of_patient, allow_set, min_chars)
    if pattern is not None:
        for m in pattern.finditer(out_text):
            leaks.append(Leak(m.start(), m.end(), "identifier", "identifier",
                              inside(m.start(), m.end())))
    if rules_fn is not None:
        for start, end, category in rules_fn(out_text):
            if not inside(start, end):
                leaks.append(Leak(start, end, "rule", str(category)))
    return sorted(leaks, key=lambda lk: (lk.start, lk.end, lk.kind))
