"""Synthetic English clinical notes with gold PII spans, deterministic by seed.

Patients get 1-4 notes (discharge summaries, progress notes, clinic and
referral letters) that share the patient's identifiers. Text is assembled
from templates and every span offset is recorded while the text is built.
The text depends only on ``seed`` and ``locale``; ``label_set`` only decides
which entities are annotated, so the paper spans of a seed are a subset of
its extended spans.

Faker draws names and places offline (it has no network code paths).
"""
from __future__ import annotations

import random
from datetime import date, timedelta

from faker import Faker

from app.core.labels import PRESETS
from app.core.spans import Document
from app.synth.clinical import EPONYMS
from app.synth.notes import NOTE_TYPES, Encounter, NoteWriter
from app.synth.people import PeopleFactory

__all__ = ["generate", "EPONYMS", "LABEL_SETS", "LOCALES", "STYLES"]

LABEL_SETS = ("paper", "extended")
LOCALES = ("en_AU", "en_US", "mixed")
# "discharge": letters and summaries (the bundled sample); "icu": ICU nursing
# notes (app.synth.icu); "mixed": both, half each.
STYLES = ("discharge", "icu", "mixed")
_US_SHARE_IN_MIXED = 0.2
_NOTE_TYPE_WEIGHTS = {"discharge_summary": 4, "progress_note": 3, "clinic_letter": 2,
                      "referral_letter": 2}
_UPPER_SHARE = 0.15


def generate(n: int, *, seed: int = 0, locale: str = "en_AU",
             label_set: str = "paper", style: str = "discharge") -> list[Document]:
    """Generate ``n`` synthetic notes with gold spans.

    Parameters
    ----------
    n
        Number of notes (``>= 0``).
    seed
        Same seed, locale and ``n`` give identical notes; the notes of a
        smaller ``n`` are a prefix of those of a larger one.
    locale
        ``"en_AU"``, ``"en_US"`` or ``"mixed"`` (each patient en_US with
        probability 0.2, else en_AU).
    label_set
        ``"paper"`` (PERSON, ADDRESS, DOB, IDN, PHONE) or ``"extended"``
        (adds DATE, AGE, EMAIL, URL, HOSPITAL, LOCATION). Entities outside
        the set are still written but not annotated.
    style
        ``"discharge"`` (letters and summaries, the default: the bundled
        sample), ``"icu"`` (ICU nursing notes, `app.synth.icu`; always US,
        ``locale`` is ignored) or ``"mixed"`` (the first half discharge
        notes, the second half ICU notes of other patients).

    Returns
    -------
    list of Document
        Named ``P0001_note_0001``... (patient id first, so a file-name regex recovers it); ``patient_id`` is ``P0001``...; ``meta``
        holds ``note_type``, ``locale``, ``upper`` and the patient's ``mrn``
        and ``dob`` (ISO), for per-patient consistency checks.
    """
    if n < 0:
        raise ValueError("n must be >= 0")
    if locale not in LOCALES:
        raise ValueError(f"unknown locale {locale!r} (choose from {', '.join(LOCALES)})")
    if label_set not in LABEL_SETS:
        raise ValueError(f"unknown label set {label_set!r} (choose from {', '.join(LABEL_SETS)})")
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r} (choose from {', '.join(STYLES)})")
    if style != "discharge":
        from app.synth.icu import generate_icu

        n_icu = n if style == "icu" else n // 2
        first = generate(n - n_icu, seed=seed, locale=locale, label_set=label_set)
        start = int(first[-1].patient_id[1:]) + 1 if first else 1
        return first + generate_icu(n_icu, seed=seed, label_set=label_set, first_patient=start)
    labels = frozenset(d.name for d in PRESETS[label_set])
    fakers = {loc: Faker(loc) for loc in ("en_AU", "en_US")}
    types, weights = list(_NOTE_TYPE_WEIGHTS), list(_NOTE_TYPE_WEIGHTS.values())
    docs: list[Document] = []
    p_index = 0
    while len(docs) < n:
        p_index += 1
        # A string seed is hashed with SHA-512 by `random`, so this is stable
        # across processes and Python runs (unlike hash()).
        prng = random.Random(f"deid-synth:{seed}:{locale}:{p_index}")
        loc = locale
        if locale == "mixed":
            loc = "en_US" if prng.random() < _US_SHARE_IN_MIXED else "en_AU"
        fake = fakers[loc]
        fake.seed_instance(prng.getrandbits(64))
        factory = PeopleFactory(fake, prng, loc)
        day = date(2012, 1, 1) + timedelta(days=prng.randrange(12 * 365))
        pt = factory.patient(f"P{p_index:04d}", day)
        for _ in range(prng.choice((1, 1, 2, 2, 3, 4))):
            if len(docs) >= n:
                break
            note_type = prng.choices(types, weights)[0]
            enc, day = _encounter(prng, day, note_type)
            nrng = random.Random(prng.getrandbits(64))
            writer = NoteWriter(nrng, PeopleFactory(fake, nrng, loc), pt, enc, labels,
                                upper=nrng.random() < _UPPER_SHARE)
            NOTE_TYPES[note_type](writer)
            docs.append(Document(
                name=f"{pt.pid}_note_{len(docs) + 1:04d}", text=writer.builder.text(),
                spans=writer.builder.spans, patient_id=pt.pid,
                meta={"note_type": note_type, "locale": loc, "upper": writer.builder.upper,
                      "mrn": pt.mrn, "dob": pt.dob.isoformat()}))
    return docs


def _encounter(rng: random.Random, last: date, note_type: str) -> tuple[Encounter, date]:
    """Dates of the next episode after ``last``; returns it and the new 'last'."""
    admitted = last + timedelta(days=rng.randint(7, 300))
    discharged = admitted + timedelta(days=rng.randint(1, 14))
    procedure = admitted + timedelta(days=rng.randint(0, (discharged - admitted).days))
    if note_type == "progress_note":
        written = procedure
    elif note_type == "discharge_summary":
        written = discharged
    else:
        written = discharged + timedelta(days=rng.randint(14, 60))
    return Encounter(admitted, discharged, procedure, written), written
