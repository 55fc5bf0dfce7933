"""Do surrogates bring back what they replace or what the project knows?

``python -m app.bench.surrogates PROJECT.deid [--split test] [--json FILE]``

Every gold span of the split's notes is replaced by its surrogate (as an
export with the ``surrogate`` strategy: the project's known identifiers and
hospital lists, a fresh memory), and every word of each surrogate of a name
or place is compared, case-blind, with

* ``words_of_original``: the words of the identifier it replaces, the closed
  list of generic words (``app.deid.pools.is_generic_place_word``: "Hospital",
  "Street", ...) that a place keeps aside;
* ``words_known``: the words of the project's known identifiers (the
  names and places people accepted in any note, the hospital lists), but
  common words (``KnownIdentifiers.common``).

Both should be 0. Figures only, never text.
"""
from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

_WORD = re.compile(r"[^\W\d_]+")


def measure(project, split: str = "test") -> dict:
    """Counts of surrogate words that repeat the original or a known word."""
    from app.deid import Redactor
    from app.deid.policy import WORDED_KINDS
    from app.deid.pools import fold, is_generic_place_word
    from app.services.redaction import (document_patient_key, project_known_identifiers,
                                        preview_secret, project_policy)

    policy = project_policy(project, "surrogate")
    known = project_known_identifiers(project, policy)
    known_words = _known_words(project, policy, known.common)
    redactor = Redactor(policy, secret=preview_secret(project), known=known)
    counts: Counter = Counter()
    by_label: Counter = Counter()
    for info in project.document_infos(split=None if split == "all" else split):
        text = project.document(info.id).text
        gold = project.gold_spans(info.id)
        result = redactor.redact(text, gold, patient_key=document_patient_key(info))
        counts["notes"] += 1
        for m in result.span_map:
            if policy.kind_for(m.label) not in WORDED_KINDS:
                continue
            original = {fold(w): is_generic_place_word(w)
                        for w in _WORD.findall(text[m.in_start:m.in_end])}
            words = [w for w in _WORD.findall(result.text[m.out_start:m.out_end])
                     if not original.get(fold(w))]       # a generic word kept from the original
            counts["worded_spans"] += 1
            counts["surrogate_words"] += len(words)
            repeated = sum(fold(w) in original for w in words)
            met = sum(fold(w) in known_words for w in words)
            counts["words_of_original"] += repeated
            counts["words_known"] += met
            if repeated or met:
                by_label[m.label] += 1
    return {"split": split, **counts, "spans_by_label": dict(by_label.most_common())}


def _known_words(project, policy, common) -> set[str]:
    """Folded words (3 letters or more) of the names and places people
    accepted and of the hospital lists, common words aside."""
    from app.deid.pools import fold
    from app.deid.policy import WORDED_KINDS
    from app.services.redaction import listed_identifiers
    texts = [text for _, _, text, _ in listed_identifiers(project)]
    for doc_id, records in project.spans_by_document().items():
        wanted = [r for r in records if r.status == "accepted"
                  and policy.kind_for(r.label) in WORDED_KINDS]
        if wanted:
            text = project.document(doc_id).text
            texts += [text[r.start:r.end] for r in wanted]
    return {fold(w) for t in texts for w in _WORD.findall(t)
            if len(w) >= 3 and fold(w) not in common}


def main(argv: list[str] | None = None) -> int:
    from app.bench.record import print_figures
    from app.project import Project
    ap = argparse.ArgumentParser(prog="python -m app.bench.surrogates", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("project")
    ap.add_argument("--split", default="test", help="a split, or all")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    with Project.open(Path(args.project), readonly=True) as project:
        figures = measure(project, args.split)
    print_figures(figures, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
