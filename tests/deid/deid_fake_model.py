"""A stand-in for a trained model in folder tests: a picklable factory
returning a predictor that tags a fixed vocabulary and dates/MRNs by regex.
(Tests only: real models predict spans, they never search for strings.)"""
from __future__ import annotations

import re

from app.core.spans import Span

BUILDS: list[int] = []  # factory calls in this process


class FakePredictor:
    def __init__(self, names: tuple[str, ...]) -> None:
        alts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        self._names = re.compile(rf"\b(?:{alts})\b")
        self._dates = re.compile(r"\b\d{1,2}/\d{1,2}/\d{4}\b")
        self._mrn = re.compile(r"\bMRN (\d{6,8})\b")

    def predict_spans(self, text: str) -> list[Span]:
        spans = [Span(m.start(), m.end(), "PERSON") for m in self._names.finditer(text)]
        spans += [Span(m.start(), m.end(), "DATE") for m in self._dates.finditer(text)]
        spans += [Span(m.start(1), m.end(1), "IDN") for m in self._mrn.finditer(text)]
        return spans


def make_predictor(names: tuple[str, ...] = ("John Smith", "John", "Smith", "Mary Jones",
                                              "Mary", "Jones")) -> FakePredictor:
    BUILDS.append(1)
    return FakePredictor(names)


#: The labels of the vetoed predictor's project.
VETO_LABELS = ("PERSON", "DATE", "IDN")


def make_vetoed_predictor(names: tuple[str, ...] = ("John Smith", "HIGH FIELDS")):
    """The fake model's spans settled by the shipped English floor, as a
    project's rules predictor has them: its vetoes remove the name of
    ordinary words ("HIGH FIELDS") and record which rule did."""
    from app.lists.floor import Floor
    from app.lists.labels import label_map
    from app.services.prediction import RulesPredictor
    BUILDS.append(1)
    return RulesPredictor(FakePredictor(names), Floor(None, shapes=True),
                          label_map(VETO_LABELS)[0])
