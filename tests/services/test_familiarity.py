"""Notes unlike the annotated ones (app.services.familiarity): said where
the dev figures cannot speak for them, quiet where they can."""
from __future__ import annotations

from app.services.familiarity import MIN_NOTES, assess, note_words
from app.synth import generate


def _texts(n: int, style: str, seed: int) -> list:
    return generate(n, seed=seed, style=style)


def test_notes_of_another_kind_read_unlike_the_annotated_ones_and_notes_like_them_do_not():
    """A walkthrough annotated referral letters and met ICU notes to do: the
    trained model tagged their capitalised words as names at 0.99."""
    letters = _texts(60, "discharge", 1)
    annotated = [(d.patient_id, d.text) for d in letters[:40]]
    more_letters = [(i, d.text) for i, d in enumerate(letters[40:])]
    icu = [(100 + i, d.text) for i, d in enumerate(_texts(20, "icu", 2))]
    like = assess(annotated, more_letters)
    assert like is not None and like.todo == len(more_letters) and like.unlike == []
    assert like.sentence() is None
    unlike = assess(annotated, more_letters + icu)
    assert set(unlike.unlike) <= {i for i, _ in icu} and len(unlike.unlike) >= len(icu) // 2
    assert unlike.median_unlike > unlike.threshold > unlike.typical
    said = unlike.sentence()
    assert said.startswith(f"{len(unlike.unlike)} of the {len(more_letters) + len(icu)} notes "
                           "to do") and "annotate some of them and train again" in said
    # A note too short to read is said apart ("1 of the 1 notes to do" read
    # beside a project's "2 notes to do").
    short = assess(annotated, more_letters + icu + [(999, "Seen. Fine.")])
    assert short.short == 1 and short.sentence().startswith(
        f"{len(short.unlike)} of the {len(more_letters) + len(icu)} notes to do of 20 words "
        f"or more (")
    # Too few annotated notes to tell: no figure at all.
    assert assess(annotated[:MIN_NOTES - 1], icu) is None


def test_a_notes_words_are_its_distinct_lower_cased_words_with_a_letter():
    assert note_words("BP 120/80. Seen by Dr Lee; LEE agrees.") == \
        {"bp", "seen", "by", "dr", "lee", "agrees"}


def test_deid_train_says_how_many_notes_to_do_read_unlike_the_annotated_ones(tmp_path, capsys):
    from app.cli.main import main
    from app.core.labels import PRESETS
    from app.project import Project
    path = tmp_path / "p.deid"
    with Project.create(path, list(PRESETS["paper"])) as p:
        for i, d in enumerate(_texts(30, "discharge", 3)):
            p.add_document(d.name, d.text, patient_id=d.patient_id,
                           split="dev" if i % 5 == 0 else "train", status="done",
                           spans=d.spans, span_source="import")
        for d in _texts(8, "icu", 4):
            p.add_document(d.name, d.text, patient_id=d.patient_id)          # to do
    assert main(["train", str(path), "--models", "rules", "--budget", "quick"]) == 0
    out = capsys.readouterr().out
    assert " of the 8 notes to do " in out and "read unlike the annotated ones" in out
    with Project.open(path) as p:
        from app.services.familiarity import unlike_to_do
        from app.services.runs import active_run
        run = active_run(p)
        assert any("read unlike the annotated ones" in n for n in run.notes)
        # The run keeps which: the ICU notes, the most unlike first, while to do.
        icu = {info.id for info in p.document_infos(status="todo")}
        assert run.unlike and set(run.unlike) <= icu and unlike_to_do(p) == run.unlike
        p.set_document_fields(run.unlike[0], status="done")
        assert unlike_to_do(p) == run.unlike[1:]
        for doc_id in run.unlike[:6]:                 # annotated (none holds an identifier)
            p.set_document_fields(doc_id, status="done")
    # Trained again: the two left read like the annotated ones now, and the run says so.
    capsys.readouterr()
    assert main(["train", str(path), "--models", "rules", "--budget", "quick"]) == 0
    out = capsys.readouterr().out
    assert ("The notes to do now read like the annotated ones (the model in use found 8 notes "
            "unlike them).") in out
    with Project.open(path) as p:
        assert active_run(p).unlike == [] and unlike_to_do(p) == []


def test_no_trained_model_lists_no_note_unlike_the_annotated(tmp_path):
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.familiarity import unlike_to_do
    with Project.create(tmp_path / "p.deid", list(PRESETS["paper"])) as p:
        p.add_document("a", "Seen by Dr Lee today.")
        assert unlike_to_do(p) == []
