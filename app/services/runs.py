"""A training run as a typed record: the one place run records are read and written.

``TrainedRun`` is what a finished training run is: its configuration, the
members it trained (``MemberRecord``), the ensembles it built
(``EnsembleRecord``), the selection (the candidates' dev table and the
reason), the finishing steps learned for the selected candidate, the notes.
``train_project`` returns one and stores it (``metrics()``); everything that
reads a stored run (the predictor, evaluate, redact's report, the training
view, the benchmark) reads it through ``active_run`` / ``TrainedRun.of``.
This module also owns the project's active-run pointer and the naming of
the run's artifacts (``member:NAME``, ``ensemble:NAME``, and ``refit:NAME``
for a member fitted again on train + dev after the selection).

Stored runs of older versions (no ``version`` key) open as they are: every
field a record lacks gets its default (``TrainedRun.of``), and the store is
never rewritten on read.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from app.errors import UserError

#: Project setting holding the id of the run that predicts.
ACTIVE_RUN = "active_run"
#: Version of the stored record; 1 = before it was written (no key).
RECORD_VERSION = 2
MEMBER = "member"
ENSEMBLE = "ensemble"
REFIT = "refit"
_ROLES = (MEMBER, ENSEMBLE, REFIT)


def artifact_name(role: str, name: str) -> str:
    """The stored artifact name of a run's member, ensemble or refitted member ``name``."""
    if role not in _ROLES:
        raise ValueError(f"unknown artifact role {role!r}")
    return f"{role}:{name}"


def parse_artifact_name(stored: str) -> tuple[str, str] | None:
    """``(role, name)`` of a stored artifact name; ``None`` for another artifact."""
    role, sep, name = stored.partition(":")
    return (role, name) if sep and role in _ROLES else None


@dataclass
class MemberRecord:
    """One trained member of a run."""

    name: str
    kind: str
    variant: str | None
    params: dict
    seconds: float
    peak_mb: float
    size_mb: float
    dev: dict                          # its dev scores (PRF.as_dict)
    trials: list[dict] = field(default_factory=list)
    time_cap: float | None = None      # its safety stop: seconds left of the run's clock
    reused_from: int | None = None     # the run that trained it, when reused
    clock_stop: bool = False           # the safety stop ended its training early
    # Fitted again on train + dev after the selection (what predicts):
    # {"seconds", "peak_mb", "train_segments"}; its ``dev`` scores are the
    # model's before, which had not seen dev.
    refit: dict | None = None
    # Memory its training added to what the process held (None: a run
    # stored before it was measured); ``peak_mb`` counts that too.
    added_mb: float | None = None

    @classmethod
    def of(cls, name: str, stored: dict) -> "MemberRecord":
        """A stored member record, older ones included (missing fields get defaults)."""
        known = {f.name for f in fields(cls)}
        values = {"name": name, "kind": "", "variant": None, "params": {},
                  "seconds": 0.0, "peak_mb": 0.0, "size_mb": 0.0, "dev": {}}
        values.update({k: v for k, v in stored.items() if k in known})
        return cls(**values)


@dataclass
class EnsembleRecord:
    """One ensemble a run built (its combination is the ``ensemble:`` artifact)."""

    members: list[str]
    description: str = ""


@dataclass
class TrainedRun:
    """A finished (or stopped) training run, typed. See the module docstring."""

    id: int
    status: str = "done"
    # As stored: the TrainConfig's fields and what the plan added
    # (RunPlan.stored_config); read through train_config(), documents and
    # split_hashes.
    config: dict = field(default_factory=dict)
    selected: str | None = None
    # The selection (app.ensemble.selection.SelectionResult.as_dict): best,
    # objective, target, reason, rows (best first).
    selection: dict = field(default_factory=dict)
    members: dict[str, MemberRecord] = field(default_factory=dict)
    ensembles: dict[str, EnsembleRecord] = field(default_factory=dict)
    # Finishing steps learned for the selected candidate (app.services.finishing).
    fill: dict | None = None
    propagation: dict | None = None
    unmarked: dict | None = None
    edges: dict | None = None
    # The join types spans are widened over (app.ensemble.joins): {"candidate",
    # "joins", "learned", dev figures}; None for a run stored before them.
    joins: dict | None = None
    # The fixed steps of the floor kept on dev (app.services.finishing.fit_fixed_steps):
    # {"candidate", "steps", "tried", "by_candidate": {name: steps}}; None
    # for a run without a floor, or stored before they were chosen on dev.
    fixed: dict | None = None
    # The selected member's threshold raised once its output is written
    # (app.services.finishing.fit_threshold): {"candidate", "fit", "threshold",
    # "tried"}; None where the selected candidate has no threshold.
    threshold: dict | None = None
    # The starter's floor (app.services.predictor.StarterFloor.fit_labels):
    # {"labels" it covers, "left_out", "precision", "tokens"}; None when the
    # run has none (turned off, not English, or stored before it).
    starter_floor: dict | None = None
    notes: list[str] = field(default_factory=list)
    # The to-do notes that read unlike the annotated ones when the run was
    # made, the most unlike first (app.services.familiarity).
    unlike: list[int] = field(default_factory=list)
    costs: dict[str, float] = field(default_factory=dict)
    device: str | None = None
    device_note: str | None = None
    seconds: float | None = None
    data: dict = field(default_factory=dict)

    # -- reading ----------------------------------------------------------
    @classmethod
    def of(cls, record) -> "TrainedRun":
        """The typed view of a project's run record (``project.run(id)``)."""
        m = dict(record.metrics or {})
        return cls(
            id=record.id, status=record.status, config=dict(record.config or {}),
            selected=m.get("selected"), selection=dict(m.get("selection") or {}),
            members={n: MemberRecord.of(n, v) for n, v in (m.get("members") or {}).items()},
            ensembles={n: EnsembleRecord(list(v.get("members", [])), v.get("description", ""))
                       for n, v in (m.get("ensembles") or {}).items()},
            fill=m.get("fill"), propagation=m.get("propagation"), unmarked=m.get("unmarked"),
            edges=m.get("edges"), joins=m.get("joins"), fixed=m.get("fixed"),
            threshold=m.get("threshold"),
            starter_floor=m.get("starter_floor") or None, notes=list(m.get("notes") or []),
            unlike=[int(i) for i in m.get("unlike") or []],
            costs=dict(m.get("costs") or {}), device=m.get("device"),
            device_note=m.get("device_note"), seconds=m.get("seconds"),
            data=dict(m.get("data") or {}))

    def train_config(self):
        """The run's ``app.services.schema.TrainConfig`` (what a run of an
        older version did not store keeps its default)."""
        from app.services.schema import config_from
        return config_from(self.config)

    @property
    def documents(self) -> dict[str, int]:
        """Annotated notes the run learned from: ``{"train": n, "dev": n}``."""
        return dict(self.config.get("documents") or {})

    @property
    def split_hashes(self) -> dict[str, dict]:
        """Each data variant's split fingerprints (members are reusable only
        by a run over the same split)."""
        return dict(self.config.get("split_hashes") or {})

    @property
    def reason(self) -> str:
        """Why the selected candidate was selected."""
        return self.selection.get("reason", "")

    @property
    def rows(self) -> list[dict]:
        """The candidates' dev table, best first."""
        return list(self.selection.get("rows", []))

    def row(self, name: str) -> dict | None:
        """The dev row of candidate ``name``."""
        return next((r for r in self.rows if r.get("name") == name), None)

    def fill_rules(self, name: str) -> list[tuple[str, str]]:
        """The fill rules ``(member, label)`` learned for candidate ``name``."""
        return [tuple(r) for r in self._learned(self.fill, "rules", name)]

    def propagation_labels(self, name: str) -> list[str]:
        """The labels propagated for candidate ``name``."""
        return self._learned(self.propagation, "labels", name)

    def unmarked_words(self, name: str) -> frozenset[str]:
        """The unmarked words dropped from candidate ``name``'s output
        (app.ensemble.unmarked; empty when the step is off)."""
        return frozenset(self._learned(self.unmarked, "words", name))

    def edge_words(self, name: str):
        """The start and end words trimmed from candidate ``name``'s spans
        (app.ensemble.edges) and the joins they are widened over
        (app.ensemble.joins); empty where a step is off."""
        from app.ensemble.edges import Edges
        return Edges(frozenset(self._learned(self.edges, "starts", name)),
                     frozenset(self._learned(self.edges, "ends", name)),
                     frozenset(tuple(j) for j in self._learned(self.joins, "joins", name)))

    def fixed_steps(self, name: str) -> tuple[str, ...] | None:
        """The fixed steps of the floor that run after candidate ``name``
        (`app.lists.floor.FIXED_STEPS`): those its dev agreed with; None
        (every one: the shipped defaults) for a run that did not choose them."""
        record = self.fixed or {}
        if record.get("candidate") == name:
            return tuple(record.get("steps", ()))
        steps = (record.get("by_candidate") or {}).get(name)
        return None if steps is None else tuple(steps)

    def member_threshold(self, name: str) -> float | None:
        """The threshold candidate ``name`` (a member) tags at, where the run
        raised it from the member's own (`fit_threshold`); None otherwise."""
        record = self.threshold or {}
        if record.get("candidate") != name or record.get("threshold") == record.get("fit"):
            return None
        return float(record["threshold"])

    @staticmethod
    def _learned(record: dict | None, items: str, name: str) -> list:
        # A step is learned for one candidate: none for any other.
        record = record or {}
        return list(record.get(items, [])) if record.get("candidate") == name else []

    def member_artifacts(self, project) -> dict:
        """``{member: artifact}`` of this run: what predicts (a member's
        refit on train + dev where the run made one)."""
        return {**_artifacts(project, self.id, MEMBER), **_artifacts(project, self.id, REFIT)}

    def scored_member_artifacts(self, project) -> dict:
        """``{member: artifact}`` as the run scored them on dev, before any
        refit: what another run may reuse (its dev scores stay honest)."""
        return _artifacts(project, self.id, MEMBER)

    def ensemble_artifacts(self, project) -> dict:
        """``{ensemble: artifact}`` of this run."""
        return _artifacts(project, self.id, ENSEMBLE)

    # -- writing ----------------------------------------------------------
    def metrics(self) -> dict:
        """The record as stored in the project's ``runs`` table."""
        return {
            "version": RECORD_VERSION,
            "selected": self.selected, "selection": self.selection,
            "fill": self.fill, "propagation": self.propagation, "unmarked": self.unmarked,
            "edges": self.edges, "joins": self.joins, "fixed": self.fixed,
            "threshold": self.threshold,
            "starter_floor": self.starter_floor,
            "notes": self.notes,
            "unlike": self.unlike,
            "costs": self.costs,
            "members": {n: asdict(m) for n, m in self.members.items()},
            "ensembles": {n: asdict(e) for n, e in self.ensembles.items()},
            "device": self.device, "device_note": self.device_note, "seconds": self.seconds,
            "data": self.data,
        }


def _artifacts(project, run_id: int, role: str) -> dict:
    out = {}
    for art in project.artifacts(run_id):
        parsed = parse_artifact_name(art.name)
        if parsed is not None and parsed[0] == role:
            out[parsed[1]] = art
    return out


def put_member(project, run_id: int, name: str, directory, meta: dict) -> int:
    """Store a run's saved member model ``name``."""
    return project.put_artifact(run_id, artifact_name(MEMBER, name), "model", directory, meta=meta)


def put_refit(project, run_id: int, name: str, directory, meta: dict) -> int:
    """Store member ``name`` refitted on train + dev (it predicts instead of the scored one)."""
    return project.put_artifact(run_id, artifact_name(REFIT, name), "model", directory, meta=meta)


def put_ensemble(project, run_id: int, name: str, directory, meta: dict) -> int:
    """Store a run's saved ensemble ``name``."""
    return project.put_artifact(run_id, artifact_name(ENSEMBLE, name), "ensemble", directory,
                                meta=meta)


def active_run_id(project) -> int | None:
    """The id of the project's active run, or ``None``."""
    return project.get_setting(ACTIVE_RUN)


def set_active_run(project, run_id: int | None) -> None:
    """Make ``run_id`` the run that predicts."""
    project.set_setting(ACTIVE_RUN, run_id)


def active_run(project, run_id: int | None = None) -> TrainedRun:
    """The run to predict with: ``run_id`` or the project's active run;
    ``UserError`` when there is none or it did not finish."""
    if run_id is None:
        run_id = active_run_id(project)
    if run_id is None:
        raise UserError("this project has no trained model yet: run `deid train` first")
    record = project.run(run_id)
    if record is None or record.status != "done":
        raise UserError(f"training run {run_id} did not finish; train again")
    return TrainedRun.of(record)
