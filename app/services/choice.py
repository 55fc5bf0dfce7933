"""Which trained model predicts, and why, in plain words.

``plain_choice`` is the one sentence the Train view's results and ``deid
train`` lead with, naming the model in words (``model_words``: "a vote of
all 4 models" for ``voting[all]``); the selection's own reason, with the
candidates' names, F1 and F2, stays the details. ``activate_unless_worse`` decides whether a finished run
becomes the one that predicts: a run does not replace an active run that
learned from the same notes and does better on them (a Quick run after a
Standard one replaced a better model without a word).
"""
from __future__ import annotations

import re

from app.core.words import count
from app.lists.floor import LABELLED, LISTED, NAME_COMPLETION, SHAPES, WIDENED
from app.services.finishing import EDGE_WORDS, PROPAGATION, WORDED
from app.services.runs import TrainedRun, active_run_id, set_active_run

#: Each kind of member in words a person reads (its name stays in the details).
_KIND_WORDS = {"crf": "word-pattern model", "spacy": "neural network (spaCy)",
               "stanza": "neural network (Stanza)", "flair": "neural network (Flair)",
               "transformer": "pretrained language model", "starter": "shipped starter model",
               "rules": "pattern rules", "lists": "hospital lists", "names": "name lists"}
#: The data a member learned from, by variant.
_VARIANT_WORDS = {
    "balanced": "learned from the annotated lines with identifiers and as many without",
    "imbalanced": "learned from every annotated line"}
_CANDIDATE = re.compile(r"(?P<method>voting|pruned|stacking)(?:-\w+)?\[(?P<group>[^\]]+)\]")

#: The F-beta of binary-token scores the privacy objective falls back on
#: when no candidate meets the target (``app.ensemble.selection``).
_FALLBACK_BETA = 2.0


def _f(precision: float, recall: float, beta: float) -> float:
    b2 = beta * beta
    return (1 + b2) * precision * recall / (b2 * precision + recall) if precision + recall else 0.0


def _standing(row: dict, objective: str) -> tuple:
    """How ``row`` ranks under ``objective``, comparable across runs: meeting
    the target first, then the objective's score (token F2 for a privacy
    candidate that misses the target, as the selection ranks them)."""
    eligible = bool(row.get("eligible", True))
    if objective == "privacy" and not eligible:
        token = row.get("token") or {}
        return (0, _f(token.get("precision", 0.0), token.get("recall", 0.0), _FALLBACK_BETA))
    return (int(eligible), float(row.get("score", row.get("f1", 0.0))))


def _group_words(run: TrainedRun | None, group: str, name: str) -> str:
    """A member group of an ensemble in words ("all 4 models", "the 3 most exact")."""
    record = run.ensembles.get(name) if run is not None else None
    top = re.fullmatch(r"top(\d+)_(f1|recall)", group)
    n = len(record.members) if record and record.members else int(top.group(1)) if top else 0
    if group == "all":
        return f"all {n} models" if n else "all the models"
    if top:
        return (f"the {n} most exact models" if top.group(2) == "f1"
                else f"the {n} models that miss the fewest identifiers")
    return f"the {n} models of the group “{group}”" if n else f"the models of the group “{group}”"


def model_words(run: TrainedRun | None, name: str) -> str:
    """A candidate of ``run`` in plain words, for a sentence a person reads
    ("a vote of all 4 models, leaving out those that did not help" for
    ``pruned[all]``); the name itself is for the details.

    Parameters
    ----------
    run
        The run whose candidate it is (its ensembles say their members);
        ``None`` for no run (the starter model and its members).
    name
        A member name (``crf-balanced``, ``rules``), an ensemble name
        (``voting[top3_f1]``, ``pruned[all]``, ``stacking-xgb[all]``) or
        the starter's (``starter model``).
    """
    ensemble = _CANDIDATE.fullmatch(name)
    if ensemble and ensemble["method"] == "pruned" and run is not None:
        # Its members are those kept: said against the whole group's (a run
        # read "a majority vote of all 4 models" beside "a vote of all 3").
        kept = run.ensembles.get(name)
        whole = run.ensembles.get(f"voting[{ensemble['group']}]")
        if kept and kept.members and whole and whole.members:
            group = _group_words(run, ensemble["group"], f"voting[{ensemble['group']}]")
            left = len(whole.members) - len(kept.members)
            if left <= 0:
                return f"a vote of {group}, none left out"
            return (f"a vote of {len(kept.members)} of {group}, leaving out "
                    f"{'the one' if left == 1 else f'the {left}'} that did not help")
    if ensemble:
        group = _group_words(run, ensemble["group"], name)
        return {"voting": f"a majority vote of {group}",
                "pruned": f"a vote of {group}, leaving out those that did not help",
                "stacking": f"a combination of {group}, weighted by what each got right on "
                            "notes it had not learned from"}[ensemble["method"]]
    kind, _, variant = name.removesuffix(" model").partition("-")
    words = _KIND_WORDS.get(kind)
    if words is None:
        return name
    article = "the" if kind in ("starter", "rules", "lists", "names") else "a"
    learned = _VARIANT_WORDS.get(variant)
    return f"{article} {words}" + (f", {learned}" if learned else "")


def plain_choice(run: TrainedRun, *, used: bool = True) -> str:
    """One sentence saying which model ``run`` chose and why, without the
    experts' words (F2, token recall); ``used``: whether it predicts now."""
    selection = run.selection
    row = run.row(run.selected or "") or {}
    if not run.selected or not row:
        return "No model was chosen."
    objective = selection.get("objective", "f1")
    target = selection.get("target")
    token = (row.get("token") or {}).get("recall")
    hides = f" It hides {token:.1%} of them." if token is not None else ""
    chosen = model_words(run, run.selected)
    head = (f"The model in use is {chosen}" if used
            else f"This run's best model is {chosen}")
    share = f"{target:.0%}" if target else ""
    # Cross-fitted, the choice was made on every annotated note, each tagged
    # by models trained without its patient (app.services.crossfit).
    notes = "the annotated notes" if selection.get("cross_fit") else "the dev notes"
    over = selection.get("kept_over")
    # A model kept within the noise of a slower one that scores a little
    # higher: not "most exactly" (a run said both).
    better = [r for r in run.rows if _standing(r, objective) > _standing(row, objective)]
    cheaper = bool(better) and row.get("eligible", True) and over is None
    exactly = "nearly as exactly as the best" if cheaper else "most exactly"
    if over is not None:
        # A model learned end to end from the site's notes is kept among
        # equals (app.ensemble.selection, ``prefer``).
        other = (run.row(over) or {}).get("token") or {}
        compared = ("" if token is None or "recall" not in other else
                    f" (both hid {token:.1%} of the identifier words)"
                    if f"{token:.1%}" == f"{other['recall']:.1%}" else
                    f" (that one hid {other['recall']:.1%} of the identifier words, this one "
                    f"{token:.1%})")
        why = (f"it was fine-tuned on your own notes. Another model ranked first on {notes}, "
               f"{model_words(run, over)}{compared}, but {notes} are of too few patients to "
               f"tell the two apart, and in our tests a model fine-tuned on a site's own notes "
               f"carried best to new patients.")
    elif objective in ("privacy", "precision_at_token_recall") and not row.get("eligible", True):
        why = (f"no model hid {share} of the identifier words of {notes}, so the one that "
               + ("hides the most of them without hiding too many ordinary words"
                  " (a missed identifier counts four times a wrongly hidden word)"
                  if objective == "privacy" else "hides the most of them")
               + f" was taken.{hides}")
        if (tied := selection.get("tied")) and selection.get("cross_fit"):
            # Every annotated patient took part: more of them would not tell
            # these apart; they find nearly the same words.
            why += (f" On {notes} it cannot be told from {count(len(tied), 'other model')}: "
                    "they hide nearly the same words.")
        elif tied:
            why += (f" {notes[0].upper()}{notes[1:]} are of too few patients to tell it from "
                    f"{count(len(tied), 'other model')}: annotating notes of more patients "
                    "would.")
    elif objective == "privacy":
        why = (f"of the models that hid at least {share} of the identifier words of {notes}, "
               f"it finds the identifiers {exactly} (F1 {row.get('f1', 0.0):.3f}).{hides}")
    elif objective == "precision_at_token_recall":
        why = (f"of the models that hid at least {share} of the identifier words of {notes}, "
               f"it hides the fewest ordinary words.{hides}")
    elif objective == "f2":
        why = (f"it finds the identifiers of {notes} best, a missed identifier counting four "
               "times a wrong find.")
    elif objective in ("precision_at_recall", "recall_at_precision"):
        why = (f"it does best on {notes} of the models that meet the target you set"
               if row.get("eligible", True) else
               f"no model meets the target you set on {notes}; it comes closest")
        why += "."
    else:
        why = f"it finds the identifiers of {notes} {exactly} (F1 {row.get('f1', 0.0):.3f})."
    if cheaper:
        other = model_words(run, better[0]["name"])
        why += (f" {other[0].upper()}{other[1:]} scores a little higher but is slower to run, "
                f"and the difference is within the noise of {notes}.")
    if run.starter_floor:
        left_out = run.starter_floor.get("left_out") or []
        but = (f" (but for what it marks as {' or '.join(left_out)}, which your annotators "
               "mostly do not mark)") if left_out else ""
        why += (" What the starter model that ships with DeID Studio replaced before any "
                f"training stays replaced{but}: the model adds to it.")
    return f"{head}: {why}"


def _same_notes(a: TrainedRun, b: TrainedRun) -> bool:
    """Whether two runs learned from, and were scored on, the same notes
    (the same split of some data variant)."""
    old, new = a.split_hashes, b.split_hashes
    shared = set(old) & set(new)
    return bool(shared) and all(old[v] == new[v] for v in shared)


def activate_unless_worse(project, run: TrainedRun) -> str | None:
    """Make ``run`` the run that predicts, unless the active run learned from
    the same notes and its selected model does better on their dev part
    under ``run``'s objective: that one stays active.

    Returns ``None`` when ``run`` is now active, else the sentence saying
    which run stays active and why (for the run's notes)."""
    current_id = active_run_id(project)
    record = project.run(current_id) if current_id not in (None, run.id) else None
    if record is not None and record.status == "done":
        current = TrainedRun.of(record)
        objective = run.selection.get("objective", "f1")
        mine, theirs = run.row(run.selected or ""), current.row(current.selected or "")
        if mine and theirs and _same_notes(current, run) and \
                objective == current.selection.get("objective", "f1") and \
                _standing(theirs, objective) > _standing(mine, objective):
            budget = current.train_config().budget
            return (f"The model of run {current.id} ({budget}) stays in use: on the same dev "
                    f"notes it finds the identifiers better than this run's (F1 "
                    f"{theirs.get('f1', 0.0):.3f} against {mine.get('f1', 0.0):.3f}; "
                    f"{current.selected} against {run.selected}).")
    set_active_run(project, run.id)
    return None


def steps_not_run(project) -> dict[str, str]:
    """The fixed steps of the floor (`app.lists.floor.FIXED_STEPS`) that the
    active run's model does not run, each with why in a person's words: its
    dev notes disagreed (`app.services.finishing.fit_fixed_steps`). Empty
    on day one or for a run that did not choose them. The Rules view shows
    it beside each rule's switch: a rule switched on whose step the model
    does not run finds nothing (a walkthrough's HIPAA project previewed dates
    in clear under ticked date rules)."""
    from app.errors import UserError
    from app.services.runs import active_run
    try:
        run = active_run(project)
    except UserError:
        return {}
    kept = run.fixed_steps(run.selected or "")
    if kept is None:
        return {}
    tried = (run.fixed or {}).get("tried") or {}
    floor = day_one_labels(project)
    covered = (f"; what its rules find on day one stays hidden where their label is "
               f"{', '.join(sorted(floor))} (the run keeps what day one replaced, with the "
               f"model's label where both find something)") if floor else ""
    out = {}
    for step, record in tried.items():
        if step in kept:
            continue
        figures = (f" (dev F2 {record['dev_before']:.3f} with it off, {record['dev_after']:.3f} "
                   f"on)" if "dev_after" in record and "dev_before" in record else "")
        out[step] = (f"the model in use does not run this step: on your dev notes it made the "
                     f"output worse{figures}{covered}; train again after annotating more to try "
                     f"it again")
    return out


def day_one_labels(project) -> frozenset[str]:
    """The labels whose day-one spans the active run keeps hidden
    (`app.services.predictor.StarterFloor`): the starter with every fixed
    step reads each note, so a rule of a step the model does not run still
    hides what it finds under these labels. Empty without a run or a floor."""
    from app.errors import UserError
    from app.services.runs import active_run
    try:
        run = active_run(project)
    except UserError:
        return frozenset()
    return frozenset((run.starter_floor or {}).get("labels") or ())


def made_by(origin: str | None, words=None) -> str | None:
    """What made a span (``Span.origin``) in plain words: the hospital lists,
    a rule by its name, a step, else the model named by ``words`` (default:
    a member or a vote of several without a run, `model_words`); a
    span widened over another's find says both ("a word-pattern model,
    widened over what the starter model found"). None when nothing is named."""
    if not origin:
        return None
    if words is None:
        words = lambda name: model_words(None, name)  # noqa: E731
    def said(part: str) -> str:
        base, _, by = part.partition(LABELLED)
        return (found_by(base) or words(base)) + (
            f", with its label from {found_by(by) or words(by)}" if by else "")

    first, *widened = origin.split(WIDENED)
    return said(first) + "".join(f", widened over what {said(w)} found" for w in widened)


def found_by(made_by: str | None) -> str | None:
    """What made a span, in plain words, when it was not a model: the
    hospital lists, a rule by its name, a step after the vote (``made_by``
    is ``Span.origin``); ``None`` for a model, the vote or one of its
    members (then the members say who found it)."""
    if not made_by:
        return None
    head, _, rule = made_by.split(WIDENED)[0].partition(LABELLED)[0].partition(": ")
    steps = {LISTED: "the hospital lists", "lists": "the hospital lists",
             "rules": "the rules", SHAPES: f"the rule “{rule}”",
             NAME_COMPLETION: f"the rule “{rule}”, which completes a name",
             PROPAGATION: "the same words marked elsewhere in the note",
             WORDED: "the cut to whole words", EDGE_WORDS: "the trim of edge words"}
    return steps.get(head)


def model_namer(project):
    """A function naming what found a span (the active run's candidate, one
    of its members, the starter model) in the words a person reads
    (:func:`model_words`: "a word-pattern model" for
    ``crf-balanced``); the names themselves are for the experts' details."""
    from app.errors import UserError
    from app.services.runs import active_run
    try:
        run = active_run(project)
    except UserError:
        run = None                  # the starter or the rules: their names need no run
    return lambda name: model_words(run, name)
