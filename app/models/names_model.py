"""Names from the shipped lists, with the context cues notes write around them.

A member that needs no training data: it tags person names from the shipped
first-name and surname lists (`app.rules.dictionaries`) where the context
says a person is meant, whatever the letter case:

* after a title: "DR. SMITH", "dr jones", "MRS. O'NEIL" (the word after a
  title is a name even when it is not listed, unless it is a common word:
  "DR AWARE");
* after a relative or a contact verb: "WIFE MARY", "SON JOHN IN TO VISIT",
  "SPOKE WITH INGRID", "CALLED ANNE", "REPORT GIVEN TO KIM";
* before a role: "MARY, RN", "JOHN (SON)";
* alone, when the word is a listed first name or surname, not a common
  English or clinical word and at least ``min_bare_length`` letters long
  (a lower confidence: bare words are where the lists err).

A name extends over the listed name words that follow ("DR. JOHN SMITH").
The label is learned like the rules' mapping: ``fit`` takes the training
label that most of its hits carry (default ``PERSON``).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from app.core.bio import tags_to_spans
from app.core.progress import Progress
from app.core.tokenize import Segment
from app.models.base import (Corpus, ModelSpec, TagSeq, TrainContext, TrainedModel,
                             read_meta, register, write_meta)
from app.rules import dictionaries as D

NAMES_VERSION = 1
TITLES = frozenset({"dr", "drs", "doctor", "mr", "mrs", "ms", "miss", "mister", "prof", "professor"})
RELATIVES = frozenset({
    "wife", "husband", "son", "daughter", "sister", "brother", "mother", "father", "mom", "dad",
    "niece", "nephew", "grandson", "granddaughter", "grandmother", "grandfather", "aunt", "uncle",
    "cousin", "friend", "partner", "fiance", "fiancee", "girlfriend", "boyfriend", "gf", "bf",
    "hcp", "proxy", "guardian", "neighbor", "neighbour", "sil", "dil", "stepson", "stepdaughter"})
# Words after which the next word, if a listed name, is a person.
VERBS = frozenset({"with", "to", "called", "call", "per", "paged", "notified", "by", "from",
                   "informed", "updated", "update", "visited", "asked", "told", "and", "cc"})
ROLES = frozenset({"rn", "np", "pa", "md", "lpn", "cna", "rrt", "rt", "ot", "sw", "resident",
                   "intern", "fellow", "attending", "nurse", "bsn", "msw", "crnp"})
# Words that follow "SON", "WIFE", "NP" without being a name ("SON WILL CALL").
FUNCTION_WORDS = frozenset({
    "will", "may", "can", "could", "would", "should", "is", "was", "has", "had", "did", "does",
    "and", "or", "to", "at", "in", "here", "there", "also", "not", "who", "called", "visited",
    "aware", "notified", "paged", "updated", "present", "the", "a", "an", "of", "on", "by"})
# Words that follow a title without being a name ("DR AWARE", "MD NOTIFIED").
NOT_AFTER_TITLE = FUNCTION_WORDS | frozenset({
    "office", "team", "service", "note", "notes", "order", "orders", "ordered", "rounds", "here",
    "came", "saw", "seen", "spoke", "states", "stated", "wants", "feels", "said", "wrote",
    "ok", "okd", "consulted", "consult", "re", "regarding", "about", "for", "with", "that",
    "per"})
# Verbs that follow a clinician's name in a note: "E. WELSH AWARE".
REPORTED = frozenset({"aware", "notified", "paged", "called", "ordered", "informed", "made",
                      "updated", "in", "at"})
# Genus initials look like a person's: "S. AUREUS", "E. COLI", "C. DIFF".
GERMS = frozenset({"aureus", "coli", "diff", "difficile", "dif", "pneumoniae", "albicans",
                   "epidermidis", "faecalis", "faecium", "influenzae", "glabrata", "cloacae",
                   "aeruginosa", "pneumo", "flu", "mrsa", "vre"})
_CONF_CUE, _CONF_BARE = 0.9, 0.6


def _words(text: str, seg: Segment) -> list[str]:
    return [text[t.start:t.end] for t in seg.tokens]


class NamesModel(TrainedModel):
    """Dictionary + context name tagger (no weights: the shipped lists)."""

    kind = "names"

    def __init__(self, label: str = "PERSON", min_bare_length: int = 4,
                 params: dict[str, Any] | None = None) -> None:
        self.label = label
        self.min_bare_length = min_bare_length
        self.params = dict(params or {})

    # -- decisions ---------------------------------------------------------

    @staticmethod
    def _alpha(w: str) -> bool:
        return w.isalpha() and w.isascii()

    def _listed(self, w: str) -> bool:
        return self._alpha(w) and D.is_name(w)

    def _strong(self, w: str) -> bool:
        """A listed name of three letters or more that is not also a common word
        (two letters are abbreviations in notes far more often than names)."""
        return len(w) >= 3 and self._listed(w) and not D.is_common_word(w)

    def _name_spans(self, words: list[str]) -> list[tuple[int, int, float]]:
        n = len(words)
        low = [w.lower() for w in words]
        out: list[tuple[int, int, float]] = []
        i = 0
        while i < n:
            start, conf, stop = None, 0.0, i + 1
            w = words[i]
            if self._alpha(w) and len(w) == 1 and i + 2 < n and low[i + 1] == "." \
                    and self._initial_surname(w, words[i + 2], low[i + 3] if i + 3 < n else "",
                                              _prev_word(low, i)):
                start, conf, stop = i, _CONF_CUE, i + 3    # "B. LINDQVIST", "E. WELSH AWARE"
            elif self._alpha(w) and len(w) == 1 and _prev_word(low, i) in TITLES and i + 1 < n \
                    and self._alpha(words[i + 1]) and len(words[i + 1]) >= 3 \
                    and low[i + 1] not in NOT_AFTER_TITLE:
                start, conf, stop = i, _CONF_CUE, i + 2    # "Dr B Muse"
            elif self._alpha(w) and len(w) >= 2:
                prev = _prev_word(low, i)
                after_comma = _next_word(low, i)
                if _title_before(low, i) and low[i] not in NOT_AFTER_TITLE \
                        and (low[i - 1] == "." or _prev_word(low, i) != "ms" or self._strong(w)):
                    start, conf = i, _CONF_CUE        # "DR. PRICE", "dr pica"
                elif prev in RELATIVES | VERBS and self._strong(w):
                    start, conf = i, _CONF_CUE
                elif prev in RELATIVES and D.is_first_name(w) and len(w) >= 3 \
                        and low[i] not in FUNCTION_WORDS:
                    start, conf = i, _CONF_CUE        # "SON BILL"
                elif prev in ROLES and D.is_first_name(w) and self._strong(w):
                    start, conf = i, _CONF_CUE        # "NP KAREN"
                elif self._listed(w) and (after_comma in ROLES or after_comma in RELATIVES) \
                        and len(w) >= 3 and low[i] not in FUNCTION_WORDS:
                    start, conf = i, _CONF_CUE        # "OKAFOR, RN", "JOHN (SON)"
                elif self._strong(w) and len(w) >= self.min_bare_length:
                    start, conf = i, _CONF_BARE
            if start is None:
                i += 1
                continue
            start, end = self._extend(words, low, start, stop)
            if out and start < out[-1][1]:
                start = out[-1][1]
            out.append((start, end, conf))
            i = end
        return out

    def _initial_surname(self, initial: str, word: str, after: str, before: str) -> bool:
        """An initial and a surname: "B. LINDQVIST", "E. WELSH AWARE". The word
        must be a listed surname, or have a cue around it: what clinicians do
        ("AWARE", "NOTIFIED"), their role, or "PER", "TO", "AND" before it;
        abbreviations follow initials too ("S. NEO", "D. RIJ"). "L." and
        "R." are sides ("R. ARM")."""
        if not (self._alpha(word) and len(word) >= 3) or word.lower() in GERMS:
            return False
        if after in REPORTED or after in ROLES or after == "," or before in VERBS | TITLES:
            return initial.lower() not in ("l", "r") or not D.is_common_word(word)
        return D.is_surname(word) and not D.is_common_word(word) and initial.lower() not in ("l", "r")

    def _extend(self, words: list[str], low: list[str], start: int, end: int) -> tuple[int, int]:
        """Grow a name over the name words, initials and hyphens around it:
        "DR. JOHN C. SMITH", "irene okafor, rn", "BRANDVOLD-LYONS", and an
        unlisted word after a first name, its surname unless it is a common
        word ("EDWIN KOWALCZYK")."""
        n = len(words)
        while True:
            if end < n and self._strong(words[end]):
                end += 1
            elif end < n and D.is_first_name(words[end - 1]) and self._alpha(words[end]) \
                    and len(words[end]) >= 3 and not D.is_common_word(words[end]) \
                    and low[end] not in ROLES:
                end += 1
            elif end + 1 < n and low[end] == "-" and self._alpha(words[end + 1]) \
                    and not D.is_common_word(words[end + 1]):
                end += 2                               # hyphenated surname
            elif end + 2 < n and len(words[end]) == 1 and words[end].isalpha() \
                    and low[end + 1] == "." and self._listed(words[end + 2]):
                end += 3                               # middle initial: "C. SMITH"
            else:
                break
        while start > 0:
            prev = words[start - 1]
            if low[start - 1] in TITLES or low[start - 1] in RELATIVES:
                break
            if self._strong(prev):
                start -= 1
            elif start >= 2 and low[start - 1] == "-" and self._alpha(words[start - 2]) \
                    and not D.is_common_word(words[start - 2]):
                start -= 2                             # hyphenated surname
            elif start >= 2 and low[start - 1] == "." and len(words[start - 2]) == 1 \
                    and words[start - 2].isalpha() and (start < 3 or low[start - 3] not in TITLES):
                start -= 2                             # initial before a surname: "E. WELSH"
            else:
                break
        return start, end

    # -- TrainedModel --------------------------------------------------------

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        out = []
        for text, seg in items:
            words = _words(text, seg)
            tags = ["O"] * len(words)
            conf = [0.9] * len(words)
            for i, j, c in self._name_spans(words):
                tags[i] = f"B-{self.label}"
                for k in range(i + 1, j):
                    tags[k] = f"I-{self.label}"
                for k in range(i, j):
                    conf[k] = c
            out.append(TagSeq(tags, conf))
        return out

    def save(self, directory: Path) -> None:
        write_meta(Path(directory), self.kind, self.params, names_version=NAMES_VERSION,
                   label=self.label, min_bare_length=self.min_bare_length)

    @classmethod
    def load(cls, directory: Path, device: str = "cpu") -> "NamesModel":
        meta = read_meta(Path(directory), cls.kind)
        if meta.get("names_version", 0) > NAMES_VERSION:
            raise ValueError("names model saved by a newer version of the application")
        return cls(meta["label"], int(meta["min_bare_length"]), params=meta.get("config", {}))


def _prev_word(low: list[str], i: int) -> str:
    """The word before ``i``, skipping one "." ("DR. SMITH") or "(" / ":" / ","."""
    j = i - 1
    if j >= 0 and low[j] in (".", "(", ":", ","):
        j -= 1
    return low[j] if j >= 0 else ""


def _title_before(low: list[str], i: int) -> bool:
    """A title right before ``i``, with or without its period ("DR. X",
    "DR X"); not across a colon ("MS: SEDATED" is mental status)."""
    j = i - 1
    if j >= 0 and low[j] == ".":
        j -= 1
    return j >= 0 and low[j] in TITLES


def _next_word(low: list[str], i: int) -> str:
    """The word after ``i``, skipping one "," or "(" ("MARY, RN", "JOHN (SON)")."""
    j = i + 1
    if j < len(low) and low[j] in (",", "(", "-"):
        j += 1
    return low[j] if j < len(low) else ""


class NamesSpec(ModelSpec):
    """Names member. Params: ``min_bare_length`` (default 4). ``fit`` learns
    only the label its hits carry in the training data."""

    kind = "names"
    relative_cost = 0.2

    def fit(self, corpus: Corpus, ctx: TrainContext) -> NamesModel:
        min_bare = int(self.params.get("min_bare_length", 4))
        probe = NamesModel("?", min_bare)
        votes: Counter = Counter()
        for item in corpus.train:
            gold = {(s.start, s.end): s.label for s in tags_to_spans(item.segment.tokens, item.tags)}
            toks = item.segment.tokens
            for i, j, _ in probe._name_spans(item.words()):
                label = gold.get((toks[i].start, toks[j - 1].end))
                if label is not None:
                    votes[label] += 1
        label = votes.most_common(1)[0][0] if votes else _default_label(corpus.labels)
        ctx.progress(Progress(1.0, "train", model=self.kind, model_fraction=1.0))
        return NamesModel(label, min_bare, params=self.params)


def _default_label(labels: Sequence[str]) -> str:
    for name in ("PERSON", "NAME", "NOMBRE_SUJETO_ASISTENCIA"):
        if name in labels:
            return name
    return labels[0] if labels else "PERSON"


register(NamesSpec, NamesModel)
