"""What a label set protects (HIPAA Safe Harbor) and what the rules see that
it leaves in clear: for the label set picker, ``deid new`` and ``deid import``.

The GUI and the CLI show the same words (``app.deid.coverage``).
"""
from __future__ import annotations

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
