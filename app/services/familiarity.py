"""Notes unlike the annotated ones: where the dev figures do not speak.

A model's dev figures speak for notes like those it learned from. A project
whose annotated sample is one kind of note (referral letters) and whose
queue holds another (ICU nursing notes) meets a model that is sure of what it
never saw: a walkthrough's, trained on letters, tagged HOPES, NUTRITION and
MONITOR in capitals as names at 0.99.

A note's *unseen share* is the share of its distinct words (lower-cased,
with a letter) that no annotated note of another patient holds. Over the
annotated notes, each read against the other patients' (a new patient's
names are unseen too, so they count in the baseline), it says how new a
note like them reads; a to-do note whose share passes the ``QUANTILE`` of
theirs by ``MARGIN`` reads unlike them. Words only, no model: the same
figure whatever was trained.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from app.core.tokenize import tokenize

#: A to-do note is unlike the annotated ones when its unseen share passes this
#: quantile of theirs by ``MARGIN``: on five folds of one corpus's patients
#: (PhysioNet ICU notes) the quantile alone flagged 2-5 % of the held-out notes
#: (7-10 % of their words unseen, against 7 %); with the margin none, and still
#: every ICU note against annotated letters (`python -m app.bench.familiarity`).
QUANTILE, MARGIN = 0.95, 0.10
#: Fewer annotated notes than this, or notes of fewer distinct words: no figure.
MIN_NOTES, MIN_WORDS = 20, 20


def note_words(text: str) -> set[str]:
    """The distinct words of ``text`` with a letter, lower-cased."""
    words = (text[t.start:t.end].lower() for t in tokenize(text))
    return {w for w in words if any(c.isalpha() for c in w)}


@dataclass(frozen=True)
class Unfamiliar:
    """The to-do notes that read unlike the annotated ones."""

    todo: int                      # to-do notes of at least MIN_WORDS words
    unlike: list[int]              # their document ids, the most unlike first
    threshold: float               # the annotated notes' QUANTILE unseen share
    typical: float                 # the annotated notes' median unseen share
    median_unlike: float           # the median unseen share of the notes unlike them
    short: int = 0                 # to-do notes of fewer words, not read

    def sentence(self) -> str | None:
        """What a person reads, or None when every to-do note reads like the
        annotated ones."""
        if not self.unlike:
            return None
        share = len(self.unlike) / self.todo
        # The notes too short to read are said: "1 of the 1 notes to do" read
        # wrong beside a project's "2 notes to do".
        read = (f"{self.todo} notes to do of {MIN_WORDS} words or more" if self.short
                else f"{self.todo} notes to do")
        return (f"{len(self.unlike)} of the {read} ({share:.0%}) read unlike "
                f"the annotated ones: {self.median_unlike:.0%} of their words occur in no "
                f"annotated note (a typical annotated note, read against the other patients': "
                f"{self.typical:.0%}). The dev figures do not speak for them: annotate some "
                f"of them and train again.")


def _share(words: set[str], known: Counter, own: Counter | None = None) -> float:
    """Share of ``words`` that ``known`` (document frequency by patient) lacks,
    less the note's own patient's ``own`` counts."""
    unseen = sum(known[w] - (own[w] if own is not None else 0) <= 0 for w in words)
    return unseen / len(words)


def assess(annotated, todo) -> Unfamiliar | None:
    """``todo`` (``(id, text)`` pairs) read against ``annotated`` (``(patient
    id or None, text)`` pairs); None with too few annotated notes to tell."""
    by_patient: dict[str, set[str]] = {}
    note_sets = []
    for i, (patient, text) in enumerate(annotated):
        words = note_words(text)
        patient = patient or f"note {i}"                 # no patient: a patient of its own
        by_patient.setdefault(patient, set()).update(words)
        note_sets.append((patient, words))
    known = Counter(w for words in by_patient.values() for w in words)
    own = {p: Counter(words) for p, words in by_patient.items()}
    shares = sorted(_share(words, known, own[p]) for p, words in note_sets
                    if len(words) >= MIN_WORDS)
    if len(shares) < MIN_NOTES:
        return None
    threshold = shares[min(len(shares) - 1, int(QUANTILE * len(shares)))]
    typical = shares[len(shares) // 2]
    read, short, unlike = 0, 0, []
    for doc_id, text in todo:
        words = note_words(text)
        if len(words) < MIN_WORDS:
            short += 1
            continue
        read += 1
        share = _share(words, known)
        if share > threshold + MARGIN:
            unlike.append((share, doc_id))
    unlike.sort(reverse=True)
    middle = unlike[len(unlike) // 2][0] if unlike else 0.0
    return Unfamiliar(read, [i for _, i in unlike], threshold, typical, middle, short)


def unfamiliar_notes(project, annotated) -> Unfamiliar | None:
    """``project``'s to-do notes read against its ``annotated`` documents
    (`app.services.training.gold_documents`), as `assess` reads them (the
    notes to do are read only when there are enough annotated ones)."""
    todo = ((info.id, project.document(info.id).text)
            for status in ("todo", "in_progress") for info in project.document_infos(status=status))
    return assess([(d.patient_id, d.text) for d in annotated], todo)


def unlike_found(project) -> list[int]:
    """The notes to do the model in use found unlike the notes it learned
    from when it was trained (its run's `Unfamiliar.unlike`), the most unlike
    first; ``[]`` without a trained model."""
    from app.errors import UserError
    from app.services.runs import active_run

    try:
        return active_run(project).unlike
    except UserError:
        return []


def unlike_to_do(project) -> list[int]:
    """`unlike_found`, those still to do or in progress."""
    listed = unlike_found(project)
    if not listed:
        return []
    open_ = {info.id for status in ("todo", "in_progress")
             for info in project.document_infos(status=status, ids=listed)}
    return [i for i in listed if i in open_]
