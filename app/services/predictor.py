"""Load a trained run from a project and predict spans for texts.

A `Predictor` holds the member models the chosen candidate needs (a single
base model or an ensemble) and runs them on canonical segments. Members'
individual outputs are kept on request: the preview shows which members
found a span, and their disagreement ranks notes for annotation.

The project's hospital lists (app.lists) are the last step, after the model
and its finishing steps: every list hit is in the output (the *floor*), and
a ``lists`` member, when the candidate has one, is bound to them. A note's
patient table entries apply when its patient id is given.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from app.core.bio import tags_to_spans
from app.core.parallel import unimportable
from app.core.prediction import Prediction, member_doubts
from app.core.progress import Progress, ProgressFn, no_progress
from app.core.spans import Span
from app.core.tokenize import segment
from app.errors import UserError
from app.core.private import PrivateDir
from app.services.finishing import finish
from app.services.lists import project_matcher
from app.services.runs import active_run
from app.services.settings import project_policy


def run_ensembles(project, run_id: int) -> dict:
    """Every ensemble saved by run ``run_id``, loaded, by candidate name.

    Ensembles hold only their combination (weights, meta-model): they are
    applied to member outputs with ``predict_from_members``.
    """
    from app.ensemble import load_ensemble

    out = {}
    for name, art in active_run(project, run_id).ensemble_artifacts(project).items():
        with PrivateDir("deid-ens-") as folder:
            dest = folder / "e"
            project.extract_artifact(art.id, dest)
            out[name] = load_ensemble(dest)
    return out


class Predictor:
    """Members + optional ensemble, loaded from a project's run."""

    def __init__(self, name: str, members: dict, ensemble=None, private: PrivateDir | None = None,
                 run_id: int | None = None, propagate: Sequence[str] = (),
                 fill: Sequence[tuple[str, str]] = (), lists=None,
                 list_labels: dict[str, str] | None = None,
                 candidate_members: Sequence[str] | None = None,
                 unmarked: frozenset[str] = frozenset(), edges=None,
                 fixed_steps: Sequence[str] | None = None, starter=None,
                 threshold: float | None = None) -> None:
        self.name = name
        # The candidate's threshold where the run raised its member's (None: its own).
        self.threshold = threshold
        self.members = members
        # The members the candidate's spans need (its ensemble's, the fill's);
        # others loaded (``all_members``) serve the preview and the leak scan.
        self.candidate_members = list(members) if candidate_members is None \
            else [m for m in members if m in set(candidate_members)]
        self.ensemble = ensemble
        # The project label of each member label, where the members name
        # their own kinds (the starter's ensemble maps them: its "HOSPITAL"
        # is a HIPAA project's LOCATION); a kind with no project label keeps
        # its name.
        self._member_labels: dict[str, str] = dict(getattr(ensemble, "mapping", None) or {})
        self.run_id = run_id
        # Learned on dev for the selected candidate (app.services.finishing):
        # (member, label) rules adding a member's spans where the candidate
        # found nothing, then the labels whose predicted strings are tagged
        # wherever they recur in a note.
        self.fill = [tuple(r) for r in fill]
        self._fill_members = {m for m, _ in self.fill}
        self.propagate = list(propagate)
        # ... and the words the project's annotators never mark (app.ensemble.unmarked).
        self.unmarked = frozenset(unmarked)
        # ... and the words they never start or end one with (app.ensemble.edges).
        self.edges = edges
        # ... and the fixed steps of the floor its dev agreed with (None: all, day one).
        self.fixed_steps = None if fixed_steps is None else tuple(fixed_steps)
        # ... and the starter's day-one spans it covers (`StarterFloor`).
        self.starter = starter
        self._private = private
        self._patients: dict[str, str | None] = {}
        self.use_lists(lists, list_labels)

    def use_lists(self, lists, labels: dict[str, str] | None) -> None:
        """Apply hospital lists (an ``app.lists.ListMatcher`` or ``None``) as
        the floor, their hit categories taking ``labels``, and bind any
        ``lists`` member to them. Every way of building a predictor for a
        project ends here (``project_matcher`` gives both arguments)."""
        self.lists = lists
        self.list_labels = dict(labels or {})
        for model in self.members.values():
            if getattr(model, "kind", None) == "lists":
                model.bind(lists, self._patients)

    @classmethod
    def from_project(cls, project, *, run_id: int | None = None, model: str | None = None,
                     device: str = "auto", all_members: bool = False,
                     starter_floor: bool = True) -> "Predictor":
        """Load the selected candidate of the run (or ``model`` by name).

        Which run and candidate predict a project's notes is
        `app.services.prediction.resolve`'s to say; this loads one.
        ``device="auto"``: the members that predict in batches on a GPU
        (the transformer) go there when there is one, the rest on the CPU.
        ``starter_floor=False``: without the starter's day-one spans the run's
        candidates cover (the rules alone are asked for: no model of any kind).
        """
        from app.ensemble import load_ensemble
        from app.models.base import known_kinds, load_model, spec_class

        run = active_run(project, run_id)
        name = model or run.selected
        member_arts, ensemble_arts = run.member_artifacts(project), run.ensemble_artifacts(project)
        if name in member_arts:
            needed, ens_art = [name], None
        elif name in ensemble_arts:
            ens_art = ensemble_arts[name]
            needed = list(ens_art.meta.get("members", []))
        else:
            known = sorted({*member_arts, *ensemble_arts})
            raise UserError(f"no model called {name!r} in run {run.id} (known: {', '.join(known)})")
        rules = run.fill_rules(name)
        # The fill's members run too, even those outside the candidate.
        needed = sorted({*needed, *(m for m, _ in rules if m in member_arts)})
        candidate = needed
        if all_members:
            needed = sorted({*needed, *member_arts})
        # scikit-learn only fits meta-models, but Flair imports it; torch only
        # runs some kinds (an unknown kind is left to load_model's error, both
        # allowed).
        kinds = {member_arts[m].meta.get("kind") for m in needed}
        skip = []
        if kinds <= set(known_kinds()):
            specs = [spec_class(k) for k in kinds]
            skip = [name for name, used in (("sklearn", any(s.uses_sklearn for s in specs)),
                                            ("torch", any(s.uses_torch for s in specs)))
                    if not used]
        private = PrivateDir("deid-model-")
        try:
            members = {}
            with unimportable(skip):
                for m in needed:
                    dest = private.path / "members" / m
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    project.extract_artifact(member_arts[m].id, dest)
                    members[m] = load_model(dest, device=device)
                ensemble = None
                if ens_art is not None:
                    dest = private.path / "ensemble"
                    project.extract_artifact(ens_art.id, dest)
                    ensemble = load_ensemble(dest)
        except BaseException:
            private.close()
            raise
        starter = None
        if run.starter_floor and starter_floor:
            try:
                starter = StarterFloor(project, run.starter_floor.get("labels"))
            except BaseException:
                private.close()
                raise
        return cls(name, members, ensemble, private, run.id, run.propagation_labels(name), rules,
                   *project_matcher(project), candidate_members=candidate,
                   unmarked=run.unmarked_words(name), edges=run.edge_words(name),
                   fixed_steps=run.fixed_steps(name), starter=starter,
                   threshold=run.member_threshold(name))

    def doubts(self, texts: Sequence[str], threshold: float) -> list[list[tuple[int, int, str]]]:
        """The tokens the candidate's own members doubt (`member_doubts`; a
        predictor that also serves the scan holds more members), each named
        by the project's label (the starter's members name their own kinds:
        its "HOSPITAL" is a LOCATION doubt in a HIPAA project)."""
        found = member_doubts({m: self.members[m] for m in self.candidate_members}, texts,
                              threshold)
        named = self._member_labels
        return [[(a, b, named.get(kind, kind)) for a, b, kind in note] for note in found]

    def close(self) -> None:
        if self.starter is not None:
            self.starter.close()
            self.starter = None
        if self._private is not None:
            self._private.close()
            self._private = None

    def __enter__(self) -> "Predictor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def combine(self, items, members: Sequence[str] | None = None):
        """``(the candidate's tags, {member: its tags})`` of ``items``, read
        by ``members`` (all loaded ones by default; the candidate's must be
        among them). A member whose threshold the run raised
        (`TrainedRun.member_threshold`) tags the candidate at that one and
        itself, for the preview and the ensembles, at its own."""
        outputs, final = {}, None
        for m in self.members if members is None else members:
            model = self.members[m]
            if m == self.name and self.threshold is not None:
                read = model.retagger(items)
                outputs[m], final = read.at(read.threshold), read.at(self.threshold)
            else:
                outputs[m] = model.predict(items)
        if self.ensemble is not None:
            final = self.ensemble.predict_from_members(outputs, items)
        elif final is None:
            final = outputs[self.name]
        return final, outputs

    def set_patients(self, texts: Sequence[str], patients: Sequence[str | None]) -> None:
        """The patient of each text, for a lists member called directly
        (``predict`` sets it itself)."""
        self._patients.clear()
        self._patients.update(zip(texts, patients))

    def predict_spans(self, text: str, patient_id: str | None = None) -> list[Span]:
        """Spans for one text (what folder redaction calls per note)."""
        return self.predict([text], patients=[patient_id])[0].spans

    def predict(self, texts: Sequence[str], *, patients: Sequence[str | None] | None = None,
                with_members: bool = False, progress: ProgressFn = no_progress,
                batch_segments: int = 256, spans_only: bool = False) -> list[Prediction]:
        """Predict spans for each text (segments batched across texts).

        ``patients`` gives each text's patient id, for the patient table of
        the hospital lists (none: the plain lists only). ``spans_only``: run
        only the members the spans need (``candidate_members``), not every
        loaded one; the spans are the same, the uncertainty covers those.
        A text longer than `WINDOW_CHARS` is read in windows cut at line
        ends (`text_windows`), each as a note of its own.
        """
        patient_of = list(patients) if patients is not None else [None] * len(texts)
        cuts = [text_windows(t) for t in texts]
        if all(len(c) == 1 for c in cuts):
            return self._predict(texts, patient_of, with_members, progress, batch_segments,
                                 spans_only)
        owners = [(i, a) for i, c in enumerate(cuts) for a, _ in c]
        parts = self._predict([texts[i][a:b] for i, c in enumerate(cuts) for a, b in c],
                              [patient_of[i] for i, _ in owners], with_members, progress,
                              batch_segments, spans_only)
        merged = [Prediction([]) for _ in texts]
        for (i, at), part in zip(owners, parts):
            whole = merged[i]
            whole.spans += _shifted(part.spans, at)
            whole.uncertainty = max(whole.uncertainty, part.uncertainty)
            whole.listed += _shifted(part.listed, at)
            whole.removed += [(_shifted([sp], at)[0], why) for sp, why in part.removed]
            for m, spans in part.member_spans.items():
                whole.member_spans.setdefault(m, []).extend(_shifted(spans, at))
        return merged

    def _predict(self, texts: Sequence[str], patient_of: list, with_members: bool,
                 progress: ProgressFn, batch_segments: int, spans_only: bool
                 ) -> list[Prediction]:
        from app.ensemble import document_uncertainty

        results: list[Prediction] = []
        pending: list[tuple[int, str, list]] = []
        n = len(texts)

        def flush() -> None:
            items = [(text, seg) for _, text, segs in pending for seg in segs]
            self.set_patients([text for _, text, _ in pending], [patient_of[i] for i, _, _ in pending])
            if not items:
                for i, _, _ in pending:
                    results.append(Prediction([]))
                pending.clear()
                return
            final, outputs = self.combine(
                items, self.candidate_members if spans_only and not with_members else self.members)
            if self.starter is not None:
                self.starter.read([text for _, text, _ in pending],
                                  [patient_of[i] for i, _, _ in pending])
            k = 0
            for i, text, segs in pending:
                doc_final = final[k:k + len(segs)]
                doc_out = {m: o[k:k + len(segs)] for m, o in outputs.items()}
                # Each span names what made it: the candidate, a member, a step.
                spans = [replace(sp, origin=self.name) for seg, seq in zip(segs, doc_final)
                         for sp in tags_to_spans(seg.tokens, seq.tags, seq.confidences)]
                # Every member's spans for the preview; else only the fill's.
                member_spans = {
                    m: [replace(sp, origin=m, label=self._member_labels.get(sp.label, sp.label))
                        for seg, seq in zip(segs, o)
                        for sp in tags_to_spans(seg.tokens, seq.tags, seq.confidences)]
                    for m, o in doc_out.items() if with_members or m in self._fill_members}
                removed: list[tuple[Span, str]] = []
                spans = finish(text, spans, segs, member_spans, self.fill, self.propagate,
                               self.unmarked, self.edges, removed)
                if self.lists is not None:
                    spans = self.lists.settle(text, spans, self.list_labels, patient_of[i],
                                              steps=self.fixed_steps, removed=removed)
                if self.starter is not None:
                    spans = self.starter.cover(text, spans, patient_of[i])
                pred = Prediction(spans, removed=removed)
                if len(doc_out) > 1 and segs:
                    pred.uncertainty = float(document_uncertainty(doc_out))
                if with_members:
                    pred.member_spans = member_spans
                    if self.lists is not None and self.lists.lists is not None:
                        from app.lists.floor import floor_spans
                        pred.listed = floor_spans(self.lists.lists.find(text, patient_of[i]),
                                                  self.list_labels)
                results.append(pred)
                k += len(segs)
            pending.clear()

        queued = 0
        for i, text in enumerate(texts):
            segs = segment(text)
            pending.append((i, text, segs))
            queued += len(segs)
            if queued >= batch_segments:
                flush()
                queued = 0
                progress(Progress(len(results) / max(n, 1), "predict"))
        flush()
        progress(Progress(1.0, "predict"))
        return results


#: A note longer than this is read in windows of about this many characters:
#: every member read all of a note's segments at once, and a 2 MB note took
#: 1.9 GB to redact (20 MB, over 10.9 GB). What reads a whole note (a name
#: completed from its other mentions) reads its window.
WINDOW_CHARS = 100_000


def text_windows(text: str, size: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of ``text``'s windows, each at most ``size``
    (default `WINDOW_CHARS`) characters, cut after the last line end in a
    window's last half (else after its last space, else at ``size``): one
    window for a shorter text."""
    size = size or WINDOW_CHARS
    out, start = [], 0
    while len(text) - start > size:
        end = start + size
        cut = text.rfind("\n", start + size // 2, end)
        if cut < 0:
            cut = max(text.rfind(" ", start + size // 2, end), text.rfind("\t", start + size // 2,
                                                                          end))
        end = cut + 1 if cut >= 0 else end
        out.append((start, end))
        start = end
    out.append((start, len(text)))
    return out


def _shifted(spans: Sequence[Span], by: int) -> list[Span]:
    return [replace(sp, start=sp.start + by, end=sp.end + by) for sp in spans] if by \
        else list(spans)


# ------------------------------------------------------------ the starter

def starter_predictor(project) -> "Predictor":
    """A `Predictor` over the shipped starter, its labels mapped to ``project``'s."""
    from app.models.starter_model import StarterEnsemble, label_map, load_members, starter_manifest
    from app.services.starter import STARTER_NAME

    if starter_manifest() is None:
        raise UserError("this installation has no starter model: run `deid train` first")
    members = dict(load_members())
    mapping = label_map([label.name for label in project.labels()])
    lists, list_labels = project_matcher(project)       # the hospital lists' floor
    # Only a settled order (the locale chosen, or an export read it off the notes):
    # unsettled, the default locale is day first, and US ventilator settings
    # ("16/5/40") would become dates.
    ensemble = StarterEnsemble(mapping, day_first=project_policy(project).date_order == "dmy")
    return Predictor(STARTER_NAME, members, ensemble, lists=lists, list_labels=list_labels)


#: The starter's floor leaves a label out when, on the annotated notes, its
#: starter spans cover at least this many tokens ...
FLOOR_MIN_TOKENS = 20
#: ... and fewer than this share of them are identifier tokens (as the
#: selection's `USABLE_PRECISION`: a candidate tagging mostly ordinary words
#: is no answer).
FLOOR_PRECISION = 0.5


class StarterFloor:
    """What a project replaced on day one stays replaced after training.

    The shipped starter with every fixed step of the floor (exactly what an
    English project predicts before its first run) reads each note, and a
    trained candidate's spans are widened or joined to cover its spans
    (`app.lists.floor.apply_floor`, the model's label winning where both
    found something), as the hospital lists' hits are. A run trained with
    it (``TrainConfig.starter_floor``) is scored on dev with it, learns its
    finishing steps with it, and predicts with it (``TrainedRun.starter_floor``).

    Why: on the 5 folds of PhysioNet patients no rule was written from, the
    trained default hid 0.9714 of the identifier tokens and day one 0.9764;
    a dev split of a few dozen patients picks candidates that drop what the
    starter found, as the held-out patients of issue 32 showed (day one
    0.935, the trained default 0.924). Spans are remembered by note text for
    the last notes read (the selection settles each dev note many times).

    ``labels``: the project labels whose starter spans it covers (None:
    every one); a run keeps those its annotators agree with (`fit_labels`).
    """

    _REMEMBERED = 4096

    def __init__(self, project, labels: Sequence[str] | None = None) -> None:
        self._predictor = starter_predictor(project)
        self._project_labels = [label.name for label in project.labels()]
        self._spans: dict[str, list[Span]] = {}
        self.labels = None if labels is None else frozenset(labels)
        # What `fit_labels` found, for the run to store.
        self.record: dict | None = None

    def read(self, texts: Sequence[str], patients: Sequence[str | None] | None = None) -> None:
        """Read the notes of ``texts`` not read yet, in one batch."""
        patients = list(patients) if patients is not None else [None] * len(texts)
        todo = {t: p for t, p in zip(texts, patients) if t not in self._spans}
        if not todo:
            return
        if len(self._spans) + len(todo) > self._REMEMBERED:
            self._spans.clear()
        found = self._predictor.predict(list(todo), patients=list(todo.values()), spans_only=True)
        self._spans.update((t, [s for s in p.spans if self.labels is None or s.label in self.labels])
                           for t, p in zip(todo, found))

    def fit_labels(self, docs) -> dict:
        """Keep the labels whose starter spans the annotators agree with:
        on the annotated ``docs`` (each with ``text`` and gold ``spans``), a
        label is left out when its starter spans cover at least
        `FLOOR_MIN_TOKENS` tokens and fewer than `FLOOR_PRECISION` of them
        are identifier tokens (under the paper's labels, the starter's
        places become ADDRESS, which the bundled sample's annotators keep
        for street addresses: 0.32 of them). Returns the record a run
        stores: ``{"labels": kept, "left_out": [..], "precision": {label:
        share}, "tokens": {label: n}}`` (also kept as ``record``)."""
        from app.core.tokenize import tokenize
        from app.eval.metrics import marked_tokens

        self.labels = None
        self.read([d.text for d in docs])
        hit: dict[str, int] = {}
        tokens: dict[str, int] = {}
        for d in docs:
            toks = tokenize(d.text)
            gold = marked_tokens(toks, d.spans)
            for span in self._spans[d.text]:
                mine = marked_tokens(toks, [span])
                tokens[span.label] = tokens.get(span.label, 0) + len(mine)
                hit[span.label] = hit.get(span.label, 0) + len(mine & gold)
        precision = {label: round(hit[label] / n, 4) for label, n in tokens.items() if n}
        left_out = sorted(label for label, n in tokens.items()
                          if n >= FLOOR_MIN_TOKENS and precision[label] < FLOOR_PRECISION)
        kept = [label for label in self._project_labels if label not in left_out]
        self.labels = frozenset(kept)
        # The notes read stay read (dev among them), with the labels kept.
        self._spans = {t: [s for s in spans if s.label in self.labels]
                       for t, spans in self._spans.items()}
        self.record = {"labels": kept, "left_out": left_out, "precision": precision,
                       "tokens": dict(sorted(tokens.items()))}
        return self.record

    def cover(self, text: str, spans: Sequence[Span], patient_id: str | None = None) -> list[Span]:
        """``spans`` with every span the starter finds in ``text`` covered."""
        from app.lists.floor import apply_floor
        self.read([text], [patient_id])
        return apply_floor(spans, self._spans[text], text)

    def close(self) -> None:
        self._predictor.close()
