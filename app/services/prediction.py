"""Which predictor predicts a project's notes: one answer, in one place.

:func:`resolve` looks at a project and returns a :class:`PredictorSpec`, a
frozen, picklable description of what predicts: a trained run's candidate,
the shipped starter model (an English project on day one,
`app.services.starter`), the rules with the label mapping of the project
(before any training, or when asked for), or annotations read from brat
files. The spec carries its identity (part of the resume fingerprints), its
words for people and the audit report, the leak scan's threshold for its
doubts, and ``load()``, which gives a `app.core.prediction.SpanPredictor`.
Annotate, redact, export, Preview, suggestions, evaluation and the leak
scan all ask here; none decides "starter or model" itself.

The leak scan's factories (:class:`ModelScanFactory`, :func:`rule_leak_scan`)
live here too: they read the same predictor.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from app.core.prediction import Prediction, SpanPredictor
from app.core.progress import ProgressFn, no_progress
from app.core.spans import Span
from app.errors import UserError

#: A token is suspected when a member reading token probabilities gives it at
#: least this probability of being part of an identifier (the CRF's 1 - P(O),
#: read on the original text with the prediction: ``SpanPredictor.doubts``).
#: Chosen on the leak-scan bench (BENCHMARKS.md): lower adds false alarms
#: faster than it adds missed identifiers.
SCAN_THRESHOLD = 0.05

#: The threshold while the starter model predicts (a new English project, no
#: trained run): its CRF learnt from synthetic notes only, so its doubts on a
#: hospital's real notes are not calibrated; at ``SCAN_THRESHOLD`` they were
#: 395 false alarms for 1 missed word on 583 real ICU notes, at 0.5 18 for
#: the same word (BENCHMARKS.md, Leak scan). A trained run's CRF learnt from
#: the project's own notes and keeps ``SCAN_THRESHOLD``.
STARTER_SCAN_THRESHOLD = 0.5

#: What can predict (``PredictorSpec.kind``).
KINDS = ("model", "starter", "rules", "annotations")

#: What ``PredictorSpec.description`` says of the annotations.
ANNOTATIONS_NAME = "annotations (.ann files)"


@dataclass(frozen=True)
class PredictorSpec:
    """What predicts a project's notes (:func:`resolve` makes one).

    Frozen and picklable: worker processes call it (``spec()`` is
    ``spec.load()``) to build their own predictor from the project file,
    opened read-only.
    """

    kind: str                      # one of KINDS
    project_path: str              # absolute: a cluster's workers open it
    #: Names what gives the spans precisely enough that another model,
    #: candidate, finishing step or rule mapping gives another string (the
    #: resume fingerprint hashes it). Names and ids only, no identifier.
    identity: str
    #: In a person's words: the candidate's name, "starter model", "rules"...
    description: str
    #: Why this predicts (the audit report's "reason"; may be empty).
    reason: str = ""
    run_id: int | None = None      # the trained run (kind "model")
    model: str | None = None       # its candidate
    #: Load every member of the run too: the predictor then also serves the
    #: model's leak scan, so a worker loads the models once, not twice.
    all_members: bool = False
    device: str = "auto"
    annotations: "AnnotationSpans | None" = None
    #: The leak scan's threshold for the model's doubts; ``None``: no model
    #: to scan with (the rules, annotations).
    scan_threshold: float | None = None

    def load(self, project=None) -> SpanPredictor:
        """The predictor, loaded (from ``project`` when given, an open
        project; else the file, read-only). Close it when done."""
        if self.kind == "annotations":
            return self.annotations
        if project is not None:
            return self._load(project)
        from app.project import Project
        opened = Project.open(Path(self.project_path), readonly=True)
        try:
            return self._load(opened)
        finally:
            opened.close()

    __call__ = load

    def _load(self, project) -> SpanPredictor:
        from app.services.predictor import Predictor
        if self.kind == "starter":
            return _starter_predictor(project)
        if self.kind == "rules":
            return rules_predictor(project)
        return Predictor.from_project(project, run_id=self.run_id, model=self.model,
                                      device=self.device, all_members=self.all_members)

    def with_all_members(self) -> "PredictorSpec":
        """The same predictor with every member of the run loaded (Preview, the scan)."""
        return replace(self, all_members=True)

    def report(self, project) -> tuple[dict, dict | None]:
        """What the audit report says of the model: ``(model info, dev figures or None)``."""
        if self.kind != "model":
            info = {"model": self.description}
            if self.reason:
                info["reason"] = self.reason
            return info, None
        from app.services.finishing import finishing_summary
        from app.services.runs import active_run
        run = active_run(project, self.run_id)
        best = run.row(self.model)
        info = {"model": self.model, "run": run.id, "reason": run.selection.get("reason")}
        # Labels and member names only: what was added after the model, for the auditor.
        finishing = finishing_summary(run)
        if finishing:
            info["finishing"] = " ".join(finishing)
        return info, ({"dev_strict": best} if best else None)


def uses_starter(project) -> bool:
    """True when ``project`` predicts with the starter: English, no trained
    run, and not turned off (project setting ``starter_model`` False)."""
    from app.models.starter_model import starter_manifest
    from app.services.runs import active_run_id
    from app.services.starter import STARTER_SETTING

    return (active_run_id(project) is None and project.language == "en"
            and project.get_setting(STARTER_SETTING, True) is not False
            and starter_manifest() is not None)


def predicts_by(project) -> str:
    """The kind of predictor `resolve` gives ``project`` (``"model"``,
    ``"starter"`` or ``"rules"``), without loading or digesting anything:
    what a window says after every edit."""
    if uses_starter(project):
        return "starter"
    from app.services.runs import active_run
    try:
        active_run(project)
    except UserError:
        return "rules"
    return "model"


def resolve(project, *, rules_only: bool = False, annotations: "AnnotationSpans | None" = None,
            model: str | None = None, run_id: int | None = None, all_members: bool = False,
            untrained: str = "rules", device: str = "auto") -> PredictorSpec:
    """What predicts ``project``'s notes.

    ``annotations``: those (``AnnotationSpans``); ``rules_only``: the rules.
    Else the candidate ``model`` of run ``run_id`` (defaults: the selected
    candidate of the active run); with neither given and no trained run, the
    starter model of an English project, and otherwise the rules, or with
    ``untrained="error"`` the ``UserError`` that asks to train first (a
    command that names no ``--rules-only``).
    """
    path = str(Path(project.path).resolve())
    if annotations is not None:
        digest = hashlib.sha256(json.dumps(sorted(annotations.by_sha.items())).encode()
                                ).hexdigest()
        return PredictorSpec("annotations", path, f"annotations {digest[:16]}",
                             ANNOTATIONS_NAME, annotations=annotations)
    if rules_only:
        return _rules_spec(project, path)
    from app.rules.registry import overrides_digest
    if run_id is None and model is None and predicts_by(project) == "starter":
        from app.services.starter import STARTER_NAME, STARTER_REASON, starter_identity
        # The rules a project switched or added change the spans; named only
        # when there are some (an older export resumes).
        rules = overrides_digest(project)
        return PredictorSpec("starter", path, starter_identity() + (f" rules {rules}" if rules
                                                                    else ""),
                             STARTER_NAME, STARTER_REASON, all_members=all_members,
                             device=device, scan_threshold=STARTER_SCAN_THRESHOLD)
    from app.services.runs import active_run
    if untrained == "rules" and run_id is None and model is None \
            and predicts_by(project) == "rules":
        return _rules_spec(project, path)
    run = active_run(project, run_id)
    name = model or run.selected
    rules = overrides_digest(project)
    fixed = run.fixed_steps(name)
    identity = json.dumps({"run": run.id, "candidate": name, "fill": run.fill_rules(name),
                           "propagate": run.propagation_labels(name),
                           **({"fixed": list(fixed)} if fixed is not None else {}),
                           **({"rules": rules} if rules else {})}, sort_keys=True)
    return PredictorSpec("model", path, identity, str(name), run_id=run.id, model=name,
                         all_members=all_members, device=device,
                         scan_threshold=SCAN_THRESHOLD)


def _rules_spec(project, path: str) -> PredictorSpec:
    from app.services.runs import active_run
    # A trained run's rules member (its learned mapping) is what runs: another
    # run is another predictor, and a folder it wrote is redone.
    try:
        run = f" run {active_run(project).id}"
    except UserError:
        run = ""
    return PredictorSpec("rules", path, "rules " + rules_mapping_digest(project) + run, "rules")


# ------------------------------------------------------------------ the starter

def _starter_predictor(project):
    """A `Predictor` over the shipped starter (`predictor.starter_predictor`)."""
    from app.services.predictor import starter_predictor
    return starter_predictor(project)


# -------------------------------------------------------------------- the rules

class RulesPredictor:
    """Any TrainedModel's ``predict_spans(text)`` as a `SpanPredictor`, with
    the floor of the project's hospital lists (as a `Predictor` has it)."""

    run_id = None

    def __init__(self, model, lists=None, list_labels: dict[str, str] | None = None) -> None:
        self.model = model
        self.lists = lists
        self.list_labels = dict(list_labels or {})

    def predict_spans(self, text: str, patient_id: str | None = None) -> list[Span]:
        return self._predict(text, patient_id).spans

    def _predict(self, text: str, patient_id: str | None) -> Prediction:
        spans = self.model.predict_spans(text)
        if self.lists is None:
            return Prediction(spans)
        removed: list[tuple[Span, str]] = []
        return Prediction(self.lists.settle(text, spans, self.list_labels, patient_id,
                                            removed=removed), removed=removed)

    def predict(self, texts: Sequence[str], *, patients: Sequence[str | None] | None = None,
                with_members: bool = False, progress: ProgressFn = no_progress,
                spans_only: bool = False) -> list[Prediction]:
        """A `Prediction` per text: the rules' spans settled by the floor,
        with the spans its vetoes removed (``removed``)."""
        patients = list(patients) if patients is not None else [None] * len(texts)
        return [self._predict(t, p) for t, p in zip(texts, patients)]

    def doubts(self, texts: Sequence[str], threshold: float) -> list[list[tuple[int, int, str]]]:
        return [[] for _ in texts]

    def close(self) -> None:
        pass

    def __enter__(self) -> "RulesPredictor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def label_preset(project) -> str:
    """The built-in label preset whose rule mapping fits the project's labels."""
    from app.core.labels import PRESETS
    names = {l.name for l in project.labels()}
    for preset in ("paper", "extended", "hipaa", "meddocan"):
        if names <= {l.name for l in PRESETS[preset]}:
            return preset
    return "extended"


def rules_predictor(project) -> SpanPredictor:
    """The rules alone: the learned mapping of the active run when it has
    one, else the preset mapping for the project's labels; with the hospital
    lists and the site's own rules, never a model's spans (not the starter's
    day-one ones a trained run's candidates cover: "rules only" promises no
    model)."""
    from app.models.rules_model import RulesModel
    from app.services.predictor import Predictor
    try:
        return Predictor.from_project(project, model="rules", starter_floor=False)
    except UserError:
        from app.services.lists import project_matcher
        return RulesPredictor(RulesModel.from_preset(label_preset(project)),
                              *project_matcher(project))


# ------------------------------------------------------------------ annotations

@dataclass(frozen=True)
class AnnotationSpans:
    """Picklable predictor that returns the spans of brat ``.ann`` files found
    beside the notes (keyed by the SHA-256 of the note text), for redacting a
    corpus someone has already annotated. Notes of the same text share the
    spans of all their files (the key cannot tell them apart, and the last
    file's alone left another's annotated name in clear)."""

    by_sha: dict
    run_id = None

    @classmethod
    def from_folder(cls, folder: Path) -> "AnnotationSpans":
        from app.formats import ImportedDoc, read_path
        by_sha = {}
        for item in read_path(folder, "brat"):
            if isinstance(item, ImportedDoc) and item.meta.get("annotated"):
                key = hashlib.sha256(item.text.encode("utf-8")).hexdigest()
                spans = {(sp.start, sp.end, sp.label) for sp in item.spans}
                by_sha[key] = tuple(sorted(spans.union(by_sha.get(key, ()))))
        if not by_sha:
            raise UserError(f"no brat .ann annotations found in {folder}")
        return cls(by_sha)

    def __call__(self) -> "AnnotationSpans":
        return self

    def predict_spans(self, text: str) -> list[Span]:
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()
        # Named, so that the report's "found by" says where they came from.
        return [Span(s, e, label, origin=ANNOTATIONS_NAME)
                for s, e, label in self.by_sha.get(key, ())]

    def predict(self, texts: Sequence[str], *, patients: Sequence[str | None] | None = None,
                with_members: bool = False, progress: ProgressFn = no_progress,
                spans_only: bool = False) -> list[Prediction]:
        return [Prediction(self.predict_spans(t)) for t in texts]

    def doubts(self, texts: Sequence[str], threshold: float) -> list[list[tuple[int, int, str]]]:
        return [[] for _ in texts]

    def close(self) -> None:
        pass


# ---------------------------------------------------------------- the leak scan

@dataclass(frozen=True)
class RuleLeakScan:
    """Leak re-scan by rules, limited to what the project calls identifiers.

    A rule hit counts only if the rules' mapping sends its (category, cue)
    to one of the project's labels: with the paper's five labels an
    admission date is not an identifier, and flagging every date would bury
    real leftovers. Picklable (worker processes may call it).
    """

    mapping_rows: tuple
    #: The project's switches and own rules (`app.rules.registry`, JSON) and
    #: its labels: the site's rules that are on and give a label are part of
    #: the scan (the hospital's formats, "KH-" and seven digits, which the
    #: shipped recognisers do not know); a file name is read by every
    #: finding rule of the floor (`in_file_name`).
    rules: str = "{}"
    labels: tuple = ()

    def __call__(self, text: str) -> list[tuple]:
        """``(start, end, label)`` of each hit; a site rule's hit adds its
        source and its name (`app.deid.rescan.recogniser_leaks`)."""
        return self._recognised(text) + self._floor(text, site_only=True)

    def in_file_name(self, text: str) -> list[tuple]:
        """What the scan finds in a file name (as text), and what every
        finding rule of the floor does ("ref # 8336652"): a name holds no
        surrogate, so no rule needs to be kept from suspecting one."""
        return self._recognised(text) + self._floor(text, site_only=False)

    def _recognised(self, text: str) -> list[tuple[int, int, str]]:
        from app.models.rules_model import RuleMapping
        from app.rules import find_hits
        mapping = RuleMapping.from_json(self.mapping_rows)
        return [(h.start, h.end, h.category) for h in find_hits(text)
                if mapping.lookup(h.category, h.cue) is not None]

    def _floor(self, text: str, *, site_only: bool) -> list[tuple]:
        # The rule's name goes with its hits: a reviewer reads which rule
        # suspected a word, and what it looks for on the Rules page.
        return [(a, b, label, "rule", name)
                for find, label, name in _floor_finders(self.rules, self.labels, site_only)
                for a, b in find(text)]

    def runs_site_rules(self) -> bool:
        """Whether a site's own rule is part of the scan."""
        return bool(_floor_finders(self.rules, self.labels, True))


@lru_cache(maxsize=16)
def _floor_finders(rules: str, labels: tuple, site_only: bool) -> list:
    """The enabled finding rules of the floor under ``rules`` (a project's
    overrides, JSON) that give one of ``labels`` a label: ``(finder, label,
    rule name)``."""
    from app.lists.floor import SHAPES
    from app.rules.registry import kind_label, merge, shipped_rules
    ruleset = merge(shipped_rules(), json.loads(rules))
    out = []
    for rule, find in ruleset.finders(SHAPES):
        label = kind_label(rule.kind, labels)
        if label is not None and (rule.site or not site_only):
            out.append((find, label, rule.name))
    return out


def rule_leak_scan(project) -> RuleLeakScan:
    """The rules' leak scan, with the mapping the rules predict with and
    the project's rules."""
    from app.rules.registry import RULES_KEY
    predictor = rules_predictor(project)
    try:
        model = predictor.model if isinstance(predictor, RulesPredictor) \
            else predictor.members["rules"]
        english = project.language == "en"
        return RuleLeakScan(tuple(model.mapping.to_json()),
                            json.dumps(project.get_setting(RULES_KEY) or {}, sort_keys=True),
                            tuple(label.name for label in project.labels()) if english else ())
    finally:
        predictor.close()


def rules_mapping_digest(project) -> str:
    """A digest of the rules' label mapping and the site's own rules (part of
    the resume fingerprints)."""
    scan = rule_leak_scan(project)
    # Without site rules the digest is the mapping's alone, as exports made
    # before site rules counted resume with.
    what = [scan.mapping_rows, scan.rules] if scan.runs_site_rules() else scan.mapping_rows
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ModelScanFactory:
    """Picklable: the model's recall-biased leak scan for a project.

    The scan runs the selected candidate *and every member of the run* over
    the redacted text and keeps the union of their spans (one member is
    enough), so it errs towards suspecting: a surrogate is expected where
    it finds a name, an original-looking name beside it is not.
    """

    spec: PredictorSpec               # every member loaded (``with_all_members``)
    #: The prediction's doubts threshold (read by redact_notes with the prediction).
    threshold: float = SCAN_THRESHOLD

    def __call__(self) -> "_ModelScan":
        return _ModelScan(self.spec.load())

    def predictor(self) -> PredictorSpec:
        """The factory of the predictor this scan reads (every member loaded):
        given to ``redact_notes`` as the predictor factory too, one loaded
        predictor per worker predicts the spans and scans the redacted text."""
        return self.spec


class _ModelScan:
    def __init__(self, predictor) -> None:
        self.predictor = predictor

    def __call__(self, text: str) -> list[tuple[int, int, str]]:
        return self.many([text])[0]

    def many(self, texts: list[str]) -> list[list[tuple[int, int, str]]]:
        """The scan of several texts, their segments batched through the models."""
        from app.deid.folder import scan_spans
        return scan_spans(self.predictor, texts)

    def close(self) -> None:
        self.predictor.close()


def model_scan_factory(spec: PredictorSpec,
                       threshold: float | None = None) -> ModelScanFactory | None:
    """The model's leak scan for an export by ``spec`` (``None`` when no model
    predicts: the rules, annotations); ``threshold`` (default the spec's) for
    the model's doubts, checked here."""
    if spec.scan_threshold is None:
        return None
    default = spec.scan_threshold
    threshold = default if threshold is None else threshold
    if not 0.0 < threshold < 1.0:
        raise UserError(f"--scan-threshold {threshold}: give a probability between 0 and 1 "
                        f"(default {default})")
    return ModelScanFactory(spec.with_all_members(), threshold=threshold)
