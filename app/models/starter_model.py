"""The starter's predictions: rules, shipped name lists and a synthetic-trained CRF.

The pieces of the starter model (`app.services.starter`) that predict, kept
in the model layer so that a trained member can read them too: the English
CRF of a trained run takes the starter's spans as features ("hints",
`app.models.crf_ner`), which carries what the rules, the name lists and the
synthetic notes know into a model trained on a hospital's own notes.

Members: ``rules`` (the rule recogniser with a fixed category mapping and
the nursing rules of `app.rules.nursing`), ``names`` (`app.models.names_model`)
and ``crf`` (trained on `app.synth` notes only, ``resources/starter/crf``).
Their spans are joined, rules first, and each must pass the shape checks of
``_identifying`` (a blood pressure is no date, "LINE" is no name).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Sequence

from app.core.bio import OUTSIDE, spans_to_tags, tags_to_spans
from app.core.progress import Progress
from app.core.recent import Recent
from app.core.spans import Span
from app.rules.cues import cue_before
from app.core.tokenize import Segment
from app.errors import UserError
from app.models.base import (Corpus, ModelSpec, TagSeq, TrainContext, TrainedModel, read_meta,
                             register, write_meta)
from app.rules.dictionaries import US_STATE_NAMES
from app.paths import resources_dir

MANIFEST = "starter.json"
# Member order is the union's priority where spans overlap.
MEMBERS = ("rules", "names", "crf")

# Starter label -> the project labels it may become, first present wins; a
# label with none of them is left out (`mapping_lines` says so).
LABEL_TARGETS: dict[str, tuple[str, ...]] = {
    "PERSON": ("PERSON", "NAME", "NOMBRE_SUJETO_ASISTENCIA"),
    # A date is never a date of birth: under the paper's five labels (DOB,
    # no DATE) calling every date one gave the demo DOB precision 0.31.
    # Those projects leave other dates to the leak scan (it searches date
    # shapes where a label is a date); their dates of birth are the CRF's
    # DOB (a rule's DATE left out does not hold the tokens: the CRF's span
    # takes them, `StarterEnsemble`).
    "DATE": ("DATE", "FECHAS"),
    "DOB": ("DOB", "DATE", "FECHAS"),
    "AGE": ("AGE", "EDAD_SUJETO_ASISTENCIA"),
    "HOSPITAL": ("HOSPITAL", "LOCATION", "ADDRESS"),
    "LOCATION": ("LOCATION", "ADDRESS", "TERRITORIO"),
    "ADDRESS": ("ADDRESS", "LOCATION", "CALLE"),
    "PHONE": ("PHONE", "CONTACT", "NUMERO_TELEFONO"),
    "EMAIL": ("EMAIL", "CONTACT", "CORREO_ELECTRONICO"),
    "URL": ("URL", "CONTACT"),
    "IDN": ("IDN", "ID", "ID_SUJETO_ASISTENCIA"),
}
# Rule categories -> starter labels (a fixed mapping: there is no training
# data to learn one from). A bare year is a date element in clinical notes.
RULE_LABELS = {"DATE": "DATE", "YEAR": "DATE", "PHONE": "PHONE", "EMAIL": "EMAIL", "URL": "URL",
               "IP": "URL", "ID": "IDN", "POSTCODE": "ADDRESS", "AGE": "AGE",
               "HOSPITAL": "HOSPITAL"}
# Ages below this are not identifiers (HIPAA: ages over 89).
MIN_IDENTIFYING_AGE = 90


def starter_dir() -> Path:
    """Folder of the shipped starter (``resources/starter``)."""
    return resources_dir() / "starter"


def starter_manifest(folder: Path | None = None) -> dict | None:
    """The starter's manifest (how it was built), or None when none ships."""
    path = (folder or starter_dir()) / MANIFEST
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))



def label_map(project_labels: Sequence[str]) -> dict[str, str]:
    """Starter label -> project label, for the labels the project can hold.

    A project with no labels at all (preset ``none``) gets the starter's own.
    """
    present = set(project_labels)
    if not present:
        return {label: label for label in LABEL_TARGETS}
    out = {}
    for label, targets in LABEL_TARGETS.items():
        target = next((t for t in targets if t in present), None)
        if target is not None:
            out[label] = target
    return out


#: Each kind the starter finds in words, for a page that shows only the
#: project's own label names.
KIND_WORDS = {"PERSON": "people's names", "DATE": "dates", "DOB": "dates of birth",
              "AGE": "ages over 89", "HOSPITAL": "hospitals", "LOCATION": "places",
              "ADDRESS": "addresses", "PHONE": "phone numbers", "EMAIL": "e-mail addresses",
              "URL": "web addresses", "IDN": "record and other numbers"}


def mapping_sentence(project_labels: Sequence[str]) -> str:
    """`mapping_lines` as one sentence in words, naming no label the project
    lacks: "people's names become NAME; dates are left to the leak scan; ..."."""
    mapping = label_map(project_labels)
    parts = []
    for kind in LABEL_TARGETS:
        label = mapping.get(kind)
        parts.append(f"{KIND_WORDS[kind]} become {label}" if label
                     else f"{KIND_WORDS[kind]} are left to the leak scan")
    return "; ".join(parts)


def mapping_lines(project_labels: Sequence[str]) -> list[str]:
    """What each kind the starter finds becomes in a project of
    ``project_labels`` (`label_map`), one line a kind: the project label, or
    that it has none and its hits are left out of the spans (the leak scan
    still searches dates, numbers and e-mails where a label is of that kind)."""
    mapping = label_map(project_labels)
    return [f"{kind:9} -> {mapping.get(kind) or 'no label: left to the leak scan'}"
            for kind in LABEL_TARGETS]


class RulesMember:
    """The rule recogniser with the starter's fixed category mapping, plus
    the dates ward notes write without a year and the hospitals and named
    wards found by their context (`app.rules.nursing`)."""

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        from app.models.rules_model import _HitCache, _hits_on_tokens
        from app.rules import RuleHit
        from app.rules.nursing import find_care_places, find_short_dates
        from app.rules.registry import shipped_finder

        cache = _HitCache()
        short: dict[int, tuple[str, tuple[list[RuleHit], list[int]]]] = {}
        out = []
        for text, seg in items:
            if id(text) not in short or short[id(text)][0] is not text:
                hits = sorted([RuleHit(a, b, "DATE", None) for a, b in find_short_dates(text)]
                              + [RuleHit(a, b, "HOSPITAL", None) for a, b in find_care_places(text)]
                              + [RuleHit(a, b, "PHONE", None)
                                 for a, b in shipped_finder("pager")(text)])
                short[id(text)] = (text, (hits, [h.end for h in hits]))
            spans = []
            # The nursing shapes first: a pager number is a phone, not an ID.
            found = _hits_on_tokens(short[id(text)][1], seg) + _hits_on_tokens(cache.get(text), seg)
            for hit, i, j in found:
                label = RULE_LABELS.get(hit.category)
                if label is not None:
                    spans.append(Span(seg.tokens[i].start, seg.tokens[j - 1].end, label, 0.9))
            tags, _ = spans_to_tags(seg.tokens, spans)
            out.append(TagSeq(tags, [0.9] * len(tags)))
        return out


#: A date with a four-digit year or a word (a weekday, a month) in it: the
#: evidence of a note's date order. A ventilator's "16/5/40%" reads only day
#: first too, and would make its own setting a date.
_FIRM_DATE_RE = re.compile(r"\d{4}|[^\W\d_]")


class StarterEnsemble:
    """Union of the members' spans mapped to the project's labels.

    A numeric date that only day first can read ("25/11") is one in a note
    whose dates read day first (`app.deid.dates.note_day_first`, the reading
    its surrogates get), else a setting or a score ("16/5/40"). ``day_first``:
    the project's settled order, for notes that show none."""

    def __init__(self, mapping: dict[str, str], day_first: bool = False) -> None:
        self.mapping = mapping
        self.day_first = day_first
        self._order: tuple[str | None, bool] = (None, day_first)    # (note, reads day first)

    def _reads_day_first(self, text: str) -> bool:
        order = self._order            # one read: threads may share the ensemble
        if order[0] is not text:
            from app.deid.dates import note_day_first
            from app.rules import find_hits
            dates = [text[h.start:h.end] for h in find_hits(text) if h.category == "DATE"]
            firm = [d for d in dates if _FIRM_DATE_RE.search(d)]
            order = self._order = (text, note_day_first(firm, default=self.day_first))
        return order[1]

    def predict_from_members(self, outputs: dict[str, list[TagSeq]],
                             items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        result = []
        for k, (text, seg) in enumerate(items):
            # Token ranges [i, j) with the label and the size of the largest
            # member span in each, merged where members' spans overlap.
            regions: list[list] = []
            for member in MEMBERS:
                seq = outputs[member][k]
                for span in tags_to_spans(seg.tokens, seq.tags, seq.confidences):
                    label = self.mapping.get(span.label)
                    if label is None or not _identifying(
                            text, span, member, lambda t=text: self._reads_day_first(t)):
                        continue
                    idx = [i for i, t in enumerate(seg.tokens) if span.start <= t.start < span.end]
                    if idx:
                        _add_region(regions, [idx[0], idx[-1] + 1, label, span.confidence,
                                              span.label], widens=member == "crf"
                                    and span.label == "ADDRESS")
            toks = seg.tokens
            chosen = [Span(toks[i].start, toks[j - 1].end, label, conf)
                      for i, j, label, conf, _ in regions]
            tags, _ = spans_to_tags(seg.tokens, chosen)
            conf = [1.0] * len(tags)
            for span in chosen:
                for i, t in enumerate(seg.tokens):
                    if span.start <= t.start < span.end:
                        conf[i] = span.confidence if span.confidence is not None else 0.9
            result.append(TagSeq(tags, conf))
        return result


def _add_region(regions: list[list], region: list, widens: bool) -> None:
    """Add ``region`` (``[i, j, label, conf, kind]``: token range, project
    label, confidence, the starter's kind) to ``regions``, taken in the
    members' order: one that overlaps a region taken is left out, unless it
    ``widens``: the CRF's street address then takes the names and places it
    holds (a name the names member found inside "31 JASON LOOKOUT", a
    postcode the rules found in "WARNERHAVEN TAS 7633"), which left the rest
    of the address in clear. Only an address, over names and places only: the
    CRF's other long spans widened over ordinary words on the PhysioNet
    notes, and a number inside an address is better kept as the rules read it."""
    i, j = region[0], region[1]
    over = [r for r in regions if r[0] < j and i < r[1]]
    if over:
        covered = sum(r[1] - r[0] for r in over if i <= r[0] and r[1] <= j)
        if not widens or covered == j - i or any(r[4] not in _NAMED_LABELS for r in over):
            return                # a place over a name it adds nothing to stays a name
        region = [min([i] + [r[0] for r in over]), max([j] + [r[1] for r in over]), *region[2:]]
    regions[:] = sorted([r for r in regions if r not in over] + [region])


_NAMED_LABELS = frozenset({"PERSON", "LOCATION", "HOSPITAL", "ADDRESS"})
_WORD_RE = re.compile(r"[^\W\d_]+")
_YEAR_BEFORE_RE = re.compile(r"(?:\bin|\bsince|\byear|\byr|\bs/p|\bof|['\u2019])\s*$", re.I)
_TIME_BEFORE_RE = re.compile(r"(?:\bat|@|\bby|\buntil|\btill|\baround|~|\d-|->|\bfrom)\s*$", re.I)
_TIME_AFTER_RE = re.compile(r"\s*(?:-+>?\s*\d{3,4}|hrs?\b|h\b|am\b|pm\b|:)", re.I)


# Hospitals written as initials: "BGH", "GH", "UMMC".
_HOSPITAL_INITIALS_RE = re.compile(r"[A-Z]{0,3}(?:GH|MC|H)")


def _has_name_word(surface: str, label: str) -> bool:
    """A name or a place has a word that could be one: three letters or more
    and not a common word, a listed place for a place, or a hospital's
    initials ("LINE", "COMFORT", "HO", "both LE" are not names)."""
    from app.rules import dictionaries as D

    for word in _WORD_RE.findall(surface):
        if len(word) >= 3 and not D.is_common_word(word):
            return True
        if label != "PERSON" and not D.is_common_word(word) \
                and (D.is_place(word) or _HOSPITAL_INITIALS_RE.fullmatch(word)):
            return True
    return False


def _is_clock_time(text: str, start: int, surface: str) -> bool:
    """"1845", "AT 2000", "1900-0700": a four-digit time of day, not a year.
    A number outside 1900-2030 is no year of these notes; one inside is a
    time when a time cue is around it ("AT", "@", "BY", a range, "HRS")."""
    if not (len(surface) == 4 and surface.isdigit()):
        return False
    value, hours, minutes = int(surface), int(surface[:2]), int(surface[2:])
    if hours > 23 or minutes > 59:
        return False
    if not 1900 <= value <= 2030:
        return True
    if minutes == 0 and not _YEAR_BEFORE_RE.search(text, max(0, start - 12), start):
        return True               # "1900", "2000": the hour, unless "IN 2000", "SINCE 1900"
    end = start + 4
    return bool(_TIME_BEFORE_RE.search(text, max(0, start - 8), start)
                or _TIME_AFTER_RE.match(text, end))


_NUMERIC_DATE_RE = re.compile(r"(\d{1,4})([/.-])(\d{1,2})(?:\2(\d{2}|\d{4}))?")


#: Cues (`app.rules.cues`) that make a number a date whatever the note's order.
_DATE_CUES = frozenset({"dob", "date", "admission", "discharge", "fecha de nacimiento",
                        "fecha de ingreso", "fecha de alta"})


def _month_first() -> bool:
    return False


def _identifying(text: str, span: Span, member: str,
                 day_first: Callable[[], bool] = _month_first) -> bool:
    """Shape checks a span must pass, whichever member found it.

    Every hospital's numbers look like dates and phones: "BP 110/60",
    "CVP 9-15", "HR 105-130". A numeric date must be a valid month/day (a
    day over 12 first only where the note reads day first: ``day_first()``,
    asked only then; a year written first is ISO 8601's year-month-day; a
    hyphen needs a year: "9-12" is a range; after a date's cue, "DOB 18/2/16",
    either order); a phone from
    the CRF needs seven digits or more; an age must be over 89, and only the
    rules (which need a cue: "93 yo", "aged 93") find ages.
    """
    surface = text[span.start:span.end]
    if span.label in _NAMED_LABELS and member == "crf" and not _has_name_word(surface, span.label):
        return False
    if span.label in ("LOCATION", "ADDRESS") and surface.lower() in US_STATE_NAMES:
        return False              # a state alone identifies no one (HIPAA keeps states)
    if span.label in ("DATE", "DOB") and _is_clock_time(text, span.start, surface):
        return False
    if span.label == "AGE":
        digits = "".join(ch for ch in surface if ch.isdigit())
        return member == "rules" and bool(digits) and int(digits) >= MIN_IDENTIFYING_AGE
    if span.label in ("DATE", "DOB"):
        m = _NUMERIC_DATE_RE.fullmatch(surface)
        if m is None:
            return True
        a, sep, b, year = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
        if year is None and len(m.group(1)) == 4:
            return False          # "2014/12" is not how these notes write a date
        if len(m.group(1)) == 4:
            return 1 <= b <= 12 and 1 <= int(year) <= 31     # ISO 8601: "2013-07-27"
        if year is None and sep != "/":
            return False
        if year is None and 1 <= a <= 12 and len(m.group(3)) == 2 and b > 31:
            return True           # month/two-digit year: "S/P AVR 8/88"
        if (year is None or len(year) == 2) and a > 12 and not day_first() \
                and cue_before(text, span.start) not in _DATE_CUES:
            return False          # "16/5/40" in month-first notes is a setting, "DOB 18/2/16" no
        return (1 <= a <= 12 and 1 <= b <= 31) or (1 <= b <= 12 and 1 <= a <= 31)
    if span.label == "PHONE" and member == "crf":
        return sum(ch.isdigit() for ch in surface) >= 7
    return True


@lru_cache(maxsize=1)
def load_members(folder: Path | None = None) -> dict:
    """The starter's members, loaded once per process, each remembering
    the tags of the segments it read last (`RememberingMember`)."""
    from app.models.base import load_model
    from app.models.names_model import NamesModel

    folder = folder or starter_dir()
    return {name: RememberingMember(name, member) for name, member in
            (("rules", RulesMember()), ("names", NamesModel("PERSON")),
             ("crf", load_model(folder / "crf")))}


class RememberingMember:
    """A starter member that keeps the tags of the segments it read last,
    by (text, start, end): a trained run's starter member (`starter_tags`)
    and the starter's floor (app.services.predictor.StarterFloor) read the
    same segments one after the other, and the starter costs as much as a
    CRF member."""

    def __init__(self, name: str, member) -> None:
        self.name = name
        self.member = member

    def __getattr__(self, attr):
        if attr == "member":                      # not set yet (a copy being built)
            raise AttributeError(attr)
        return getattr(self.member, attr)

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        keys = [(self.name, text, seg.start, seg.end) for text, seg in items]
        return _MEMBER_TAGS.get(keys, lambda missing: self.member.predict(
            [items[i] for i in missing]))


def available() -> bool:
    """True when a starter ships with this installation."""
    return starter_manifest() is not None


# Tags of the segments tagged last, by (text, start, end): the starter member
# of a run, the two CRF members' hints and the leak scan's reading of their
# doubts tag the same segments one after the other.
_TAGS = Recent(4096)
# ... and each member's own tags, by (member, text, start, end): `RememberingMember`.
_MEMBER_TAGS = Recent(3 * 4096)


def starter_tags(items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
    """The starter's joined tags (its own labels) for each ``(text, segment)``.

    A segment's tags depend on its note and its range only, so those of the
    segments seen last (`_TAGS`) are kept and not computed again.
    """
    def compute(missing: list[int]) -> list[TagSeq]:
        pairs = [items[i] for i in missing]
        outputs = {name: member.predict(pairs) for name, member in load_members().items()}
        return StarterEnsemble({label: label for label in LABEL_TARGETS}).predict_from_members(
            outputs, pairs)

    return _TAGS.get([(text, seg.start, seg.end) for text, seg in items], compute)


# ------------------------------------------------------- the starter member

STARTER_MEMBER_VERSION = 1


class StarterSpec(ModelSpec):
    """The shipped starter as a member of a trained run (kind ``starter``).

    Nothing to learn but which project label each starter label becomes.
    As a member it is a candidate of the selection like any other: a run
    whose trained models hide fewer identifiers on dev than the starter
    keeps the starter (25 annotated notes do not beat a model that knows
    names), and the ensembles and the recall fill may use its spans.
    """

    kind = "starter"
    relative_cost = 0.5

    def fit(self, corpus: Corpus, ctx: TrainContext) -> "StarterModel":
        if starter_manifest() is None:
            raise ValueError("this installation has no starter model")
        ctx.progress(Progress(1.0, "train", model=self.kind, model_fraction=1.0))
        return StarterModel(label_map(corpus.labels), params=self.params)


class StarterModel(TrainedModel):
    """The starter's spans with the project's labels (a label the project
    cannot hold is left out)."""

    kind = "starter"

    def __init__(self, mapping: dict[str, str], params: dict[str, Any] | None = None) -> None:
        self.mapping = dict(mapping)
        self.params = dict(params or {})

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        pairs = [item for item in items if item[1].tokens]
        tagged = iter(starter_tags(pairs))
        out = []
        for _, seg in items:
            if not seg.tokens:
                out.append(TagSeq([], []))
                continue
            seq = next(tagged)
            # A label the project cannot hold becomes O.
            tags = [f"{t[:2]}{self.mapping[t[2:]]}" if t != OUTSIDE and t[2:] in self.mapping
                    else OUTSIDE for t in seq.tags]
            out.append(TagSeq(tags, list(seq.confidences)))
        return out

    def save(self, directory: Path) -> None:
        write_meta(Path(directory), self.kind, self.params,
                   starter_member_version=STARTER_MEMBER_VERSION, labels=self.mapping)

    @classmethod
    def load(cls, directory: Path, device: str = "cpu") -> "StarterModel":
        meta = read_meta(Path(directory), cls.kind)
        if meta.get("starter_member_version", 0) > STARTER_MEMBER_VERSION:
            raise UserError("this run's starter member was saved by a newer version of the "
                            "application: update the application")
        if starter_manifest() is None:
            # A run trained where the starter shipped, opened where it does not.
            raise UserError("this run uses the starter model, which this installation lacks: "
                            "reinstall the application or train again without the starter")
        return cls(meta["labels"], params=meta.get("config", {}))


register(StarterSpec, StarterModel)
