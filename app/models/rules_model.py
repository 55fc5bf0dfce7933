"""Rules as a base model: `app.rules` hits mapped onto a project's labels.

The rules know generic categories (DATE, PHONE, ID, ...) and the cue
written before a hit ("mrn", "fax", "fecha de nacimiento"); a project has
its own labels (the paper's DOB/IDN/PHONE, MEDDOCAN's FECHAS,
ID_SUJETO_ASISTENCIA, ...). ``fit`` learns that mapping from the training
segments: every hit that, snapped to canonical tokens, has exactly the
offsets of a gold span counts for that span's label. For each key

* ``(category, cue)`` -- ``cue`` is ``None`` for hits with no cue -- and
* ``(category, "*")`` -- all hits of the category (the back-off),

the most frequent label is kept when its precision (hits with that label /
all hits with the key) is at least ``threshold`` and it was right at least
``min_support`` times. A key seen ``min_support`` times or more whose
precision is below the threshold maps to nothing: its hits are dropped and
do NOT back off ("hace 5 años" is a duration even though most "N años" are
ages). A hit whose key is unseen, or seen too rarely to decide, backs off
to its category key; a hit with no mapping is dropped. A hit's confidence is its key's training precision;
tokens outside hits get the training precision of "O" among such tokens.

``RulesModel.from_preset`` gives a hand-written mapping for the built-in
label presets, usable with no training data.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from app.core.bio import OUTSIDE, spans_to_tags, tags_to_spans
from app.core.progress import Progress
from app.core.spans import Span
from app.core.tokenize import Segment
from app.models.base import (Corpus, ModelSpec, TagSeq, TrainContext, TrainedModel,
                             read_meta, register, write_meta)
from app.rules import RuleHit, find_hits
from app.rules.recognizer import hits_between

ANY_CUE = "*"
RULES_VERSION = 1
_DEFAULT_O_CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class MappingEntry:
    """Where hits of ``(category, cue)`` go. ``label`` None means "drop"."""

    category: str
    cue: str | None          # None: hits without a cue; "*": any cue (back-off)
    label: str | None
    precision: float
    support: int             # hits with this key seen in training (0 for presets)


def _preset(rows: Iterable[tuple[str, str | None, str, float]]) -> list[MappingEntry]:
    return [MappingEntry(cat, cue, label, conf, 0) for cat, cue, label, conf in rows]


# Hand-written mappings for the built-in presets. Confidences are priors; the
# MEDDOCAN ones are close to the precisions `RulesSpec.fit` learns there.
DEFAULT_MAPPINGS: dict[str, list[MappingEntry]] = {
    "paper": _preset([
        ("DATE", "dob", "DOB", 0.95), ("DATE", "fecha de nacimiento", "DOB", 0.95),
        ("PHONE", ANY_CUE, "PHONE", 0.9), ("ID", ANY_CUE, "IDN", 0.8),
        ("POSTCODE", ANY_CUE, "ADDRESS", 0.8),
    ]),
    "extended": _preset([
        ("DATE", "dob", "DOB", 0.95), ("DATE", "fecha de nacimiento", "DOB", 0.95),
        ("DATE", ANY_CUE, "DATE", 0.9), ("PHONE", ANY_CUE, "PHONE", 0.9),
        ("ID", "pager", "PHONE", 0.8), ("ID", ANY_CUE, "IDN", 0.8),
        ("POSTCODE", ANY_CUE, "ADDRESS", 0.8), ("AGE", ANY_CUE, "AGE", 0.8),
        ("EMAIL", ANY_CUE, "EMAIL", 0.95), ("URL", ANY_CUE, "URL", 0.9),
        ("IP", ANY_CUE, "URL", 0.9),
    ]),
    "hipaa": _preset([
        ("DATE", ANY_CUE, "DATE", 0.9), ("PHONE", ANY_CUE, "CONTACT", 0.9),
        ("EMAIL", ANY_CUE, "CONTACT", 0.95), ("URL", ANY_CUE, "CONTACT", 0.9),
        ("IP", ANY_CUE, "CONTACT", 0.9), ("ID", ANY_CUE, "ID", 0.8),
        ("POSTCODE", ANY_CUE, "LOCATION", 0.8), ("AGE", ANY_CUE, "AGE", 0.8),
    ]),
    "meddocan": _preset([
        ("DATE", ANY_CUE, "FECHAS", 0.95), ("YEAR", "en", "FECHAS", 0.6),
        ("PHONE", ANY_CUE, "NUMERO_TELEFONO", 0.8), ("PHONE", "fax", "NUMERO_FAX", 0.8),
        ("EMAIL", ANY_CUE, "CORREO_ELECTRONICO", 0.95),
        ("ID", "nhc", "ID_SUJETO_ASISTENCIA", 0.95), ("ID", "nass", "ID_ASEGURAMIENTO", 0.95),
        ("ID", "episode", "ID_CONTACTO_ASISTENCIAL", 0.95),
        ("ID", "col", "ID_TITULACION_PERSONAL_SANITARIO", 0.95),
        ("POSTCODE", ANY_CUE, "TERRITORIO", 0.95),
        ("AGE", "age", "EDAD_SUJETO_ASISTENCIA", 0.95),
        ("AGE", "de", "EDAD_SUJETO_ASISTENCIA", 0.9),
        ("AGE", "a los", "EDAD_SUJETO_ASISTENCIA", 0.9),
    ]),
}


class RuleMapping:
    """Lookup from a hit's ``(category, cue)`` to ``(label, confidence)``."""

    def __init__(self, entries: Iterable[MappingEntry]) -> None:
        self.entries = sorted(entries, key=lambda e: (e.category, e.cue is None, e.cue or ""))
        self._by_key = {(e.category, e.cue): e for e in self.entries}

    def lookup(self, category: str, cue: str | None) -> tuple[str, float] | None:
        entry = self._by_key.get((category, cue)) or self._by_key.get((category, ANY_CUE))
        if entry is None or entry.label is None:
            return None
        return entry.label, entry.precision

    @property
    def labels(self) -> list[str]:
        return sorted({e.label for e in self.entries if e.label is not None})

    def to_json(self) -> list[dict[str, Any]]:
        return [asdict(e) for e in self.entries]

    @classmethod
    def from_json(cls, rows: Sequence[dict[str, Any]]) -> "RuleMapping":
        return cls(MappingEntry(**row) for row in rows)


class RulesSpec(ModelSpec):
    """Rule recogniser whose category -> label mapping is learned.

    Parameters
    ----------
    threshold
        Minimum training precision for a key to be mapped (default 0.5).
    min_support
        Minimum number of correct training hits for a mapping, and of hits
        for a "drop" decision (default 2).
    preset
        Optional preset name whose default mapping is used when the
        training set is empty.
    """

    kind = "rules"
    relative_cost = 0.2

    def __init__(self, threshold: float = 0.5, min_support: int = 2,
                 preset: str | None = None) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError("threshold must be in (0, 1]")
        if min_support < 1:
            raise ValueError("min_support must be at least 1")
        if preset is not None and preset not in DEFAULT_MAPPINGS:
            raise ValueError(f"no default rule mapping for preset {preset!r} "
                             f"(known: {', '.join(DEFAULT_MAPPINGS)})")
        super().__init__(threshold=threshold, min_support=min_support, preset=preset)

    def fit(self, corpus: Corpus, ctx: TrainContext) -> "RulesModel":
        if not corpus.train and self.params["preset"]:
            return RulesModel.from_preset(self.params["preset"], params=self.params)
        counts: dict[tuple[str, str | None], Counter] = defaultdict(Counter)
        records = []      # (segment tags, [(token range, key)]) for the O confidence
        cache = _HitCache()
        n = len(corpus.train)
        for k, item in enumerate(corpus.train):
            if k % 500 == 0:
                ctx.progress(Progress(k / max(n, 1), "train", model=self.kind,
                                      model_fraction=k / max(n, 1)))
            tokens = item.segment.tokens
            gold = {(s.start, s.end): s.label for s in tags_to_spans(tokens, item.tags)}
            placed = []
            for hit, i, j in _hits_on_tokens(cache.get(item.text), item.segment):
                label = gold.get((tokens[i].start, tokens[j - 1].end))
                for key in ((hit.category, hit.cue), (hit.category, ANY_CUE)):
                    counts[key][label] += 1
                placed.append(((i, j), (hit.category, hit.cue)))
            records.append((item.tags, placed))
        mapping = RuleMapping(self._decide(counts, set(corpus.labels)))
        model = RulesModel(mapping, _o_confidence(mapping, records), params=self.params)
        ctx.progress(Progress(1.0, "train", model=self.kind, model_fraction=1.0))
        return model

    def _decide(self, counts: dict, labels: set[str]) -> list[MappingEntry]:
        threshold, min_support = self.params["threshold"], self.params["min_support"]
        entries = []
        for (category, cue), counter in counts.items():
            total = sum(counter.values())
            right = [(c, lab) for lab, c in counter.items() if lab is not None and lab in labels]
            best_count, best = max(right, default=(0, None))
            precision = best_count / total
            if precision >= threshold:
                if best_count >= min_support:
                    entries.append(MappingEntry(category, cue, best, precision, total))
                # else: too little evidence either way, so the key backs off
            elif total >= min_support:
                entries.append(MappingEntry(category, cue, None, precision, total))
        return entries


class RulesModel(TrainedModel):
    """A fitted rules model: `app.rules.find_hits` + a `RuleMapping`."""

    kind = "rules"

    def __init__(self, mapping: RuleMapping, o_confidence: float = _DEFAULT_O_CONFIDENCE,
                 params: dict[str, Any] | None = None) -> None:
        self.mapping = mapping
        self.o_confidence = o_confidence
        self.params = dict(params or {})

    @classmethod
    def from_preset(cls, preset: str, params: dict[str, Any] | None = None) -> "RulesModel":
        """A model with the hand-written mapping of a built-in label preset."""
        try:
            entries = DEFAULT_MAPPINGS[preset]
        except KeyError:
            raise ValueError(f"no default rule mapping for preset {preset!r}") from None
        return cls(RuleMapping(entries), _DEFAULT_O_CONFIDENCE,
                   params=params or {"preset": preset})

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        cache = _HitCache()
        out = []
        for text, seg in items:
            spans, ranges = [], []
            for hit, i, j in _hits_on_tokens(cache.get(text), seg):
                found = self.mapping.lookup(hit.category, hit.cue)
                if found is None:
                    continue
                label, conf = found
                spans.append(Span(seg.tokens[i].start, seg.tokens[j - 1].end, label, conf))
                ranges.append((i, j, conf))
            tags, _ = spans_to_tags(seg.tokens, spans)
            confidences = [self.o_confidence] * len(tags)
            for i, j, conf in ranges:
                for k in range(i, j):
                    if tags[k] != OUTSIDE:
                        confidences[k] = conf
            out.append(TagSeq(tags, confidences))
        return out

    def save(self, directory: Path) -> None:
        write_meta(Path(directory), self.kind, self.params, rules_version=RULES_VERSION,
                   mapping=self.mapping.to_json(), o_confidence=self.o_confidence,
                   labels=self.mapping.labels)

    @classmethod
    def load(cls, directory: Path, device: str = "cpu") -> "RulesModel":
        meta = read_meta(Path(directory), cls.kind)
        if meta.get("rules_version", 0) > RULES_VERSION:
            raise ValueError("rules model saved by a newer version of the application")
        return cls(RuleMapping.from_json(meta["mapping"]), float(meta["o_confidence"]),
                   params=meta.get("config", {}))


class _HitCache:
    """Hits per document text within one call (segments share their text)."""

    def __init__(self) -> None:
        self._hits: dict[int, tuple[str, list[RuleHit], list[int]]] = {}

    def get(self, text: str) -> tuple[list[RuleHit], list[int]]:
        """The hits of ``text`` and their end offsets (both sorted)."""
        entry = self._hits.get(id(text))
        if entry is None or entry[0] is not text:
            hits = find_hits(text)
            # The text is kept in the entry, so its id cannot be reused.
            entry = (text, hits, [h.end for h in hits])
            self._hits[id(text)] = entry
        return entry[1], entry[2]


def _hits_on_tokens(found: tuple[list[RuleHit], list[int]], seg: Segment
                    ) -> list[tuple[RuleHit, int, int]]:
    """Hits inside ``seg`` as token ranges ``[i, j)``, snapped outward."""
    hits, hit_ends = found
    if not seg.tokens:
        return []
    starts = [t.start for t in seg.tokens]
    ends = [t.end for t in seg.tokens]
    out = []
    for hit in hits_between(hits, hit_ends, seg.start, seg.end):
        i = bisect_right(ends, hit.start)
        j = bisect_left(starts, hit.end)
        if i < j:
            out.append((hit, i, j))
    return out


def _o_confidence(mapping: RuleMapping, records: list) -> float:
    """Training precision of "O" on tokens the mapped rules leave untagged."""
    right = total = 0
    for tags, placed in records:
        covered = [False] * len(tags)
        for (i, j), key in placed:
            if mapping.lookup(*key) is not None:
                for k in range(i, j):
                    covered[k] = True
        for tag, cov in zip(tags, covered):
            if not cov:
                total += 1
                right += tag == OUTSIDE
    return right / total if total else _DEFAULT_O_CONFIDENCE


register(RulesSpec, RulesModel)
