"""What a label set protects (HIPAA Safe Harbor) and what the rules see that
it leaves in clear: for the label set picker, ``deid new`` and ``deid import``.

The GUI and the CLI show the same words (``app.deid.coverage``).
"""
from __future__ import annotations

import re

from app.deid.coverage import (CoverageRow, RuleGap, coverage, coverage_lines,
                               rule_gaps, rule_hits_by_category)


def labels_coverage(labels) -> tuple[list[CoverageRow], list[RuleGap], list[str]]:
    """A label set before any note exists (a preset or a label file):
    the Safe Harbor rows, the rule kinds no label takes, and the words."""
    names = [getattr(label, "name", label) for label in labels]
    return coverage(names), rule_gaps(names), coverage_lines(names)


def project_rule_gaps(project) -> list[RuleGap]:
    """The rule kinds the project's labels leave in clear that the rules
    actually find in its notes, with how often (counts only, never text)."""
    from app.services.settings import project_policy
    policy = project_policy(project)
    names = [label.name for label in project.labels()]
    if not rule_gaps(names, policy.kind_for):
        return []
    texts = (project.document(info.id).text for info in project.document_infos())
    return rule_gaps(names, policy.kind_for, rule_hits_by_category(texts))


#: A label the annotations mostly leave unmarked: under this share of the
#: rules' finds of it in the annotated notes overlap an annotation, of at
#: least ``UNMARKED_MIN_FINDS`` finds.
UNMARKED_SHARE = 0.5
UNMARKED_MIN_FINDS = 20
_NUMBER = re.compile(r"\d+")


def unmarked_sentences(project, docs=None) -> list[str]:
    """`unmarked_finds` in words, a sentence a label (the run's notes and
    `deid train` say them)."""
    return [f"The annotated notes mark {marked:,} of the {n:,} {label} finds of the rules: a "
            f"model trained on them learns to leave {label} in clear, and its run may drop the "
            f"rules' finds of it too. Mark them in the notes you annotate, or remove the label "
            f"{label}"
            for label, marked, n in unmarked_finds(project, docs)]


def unmarked_finds(project, docs=None) -> list[tuple[str, int, int]]:
    """``(label, marked, finds)`` for each label whose finds by the rules (its
    preset mapping: well-formed dates, phones, ids, ages over 89 ...) the
    annotated notes mostly leave unmarked: a model trained on those notes
    learns to leave them in clear, and the run's learned steps may drop the
    rules' finds of it too. The bundled letters, annotated with the paper's
    labels (dates of birth only), imported into a HIPAA project mark a few of
    the 849 dates the rules find there: its export left 792 dates in clear
    after training, with a warning at import only (a walkthrough). ``docs``:
    the annotated notes (``.text``, ``.spans``) a run has read already; by
    default those done or reviewed. Counts only, never text."""
    from collections import Counter

    from app.models.rules_model import RulesModel
    from app.services.prediction import label_preset
    from app.services.settings import project_policy

    if docs is None:
        docs = [project.document(info.id).as_document(project.gold_spans(info.id))
                for status in ("done", "reviewed")
                for info in project.document_infos(status=status)]
    policy = project_policy(project)
    model = RulesModel.from_preset(label_preset(project))
    finds: Counter = Counter()
    marked: Counter = Counter()
    for doc in docs:
        for s in model.predict_spans(doc.text):
            if policy.kind_for(s.label) == "age" and not any(
                    int(n) > policy.age_threshold for n in _NUMBER.findall(doc.text[s.start:s.end])):
                continue        # an age the policy keeps: annotators need not mark it
            finds[s.label] += 1
            marked[s.label] += any(g.start < s.end and s.start < g.end for g in doc.spans)
    return [(label, marked[label], n) for label, n in sorted(finds.items())
            if n >= UNMARKED_MIN_FINDS and marked[label] < UNMARKED_SHARE * n]
