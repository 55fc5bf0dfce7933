"""Cross-fitting: the ensembles and the selection see every annotated note,
each tagged by members that never trained on its patient."""
import pytest

import app.services.crossfit as crossfit_module
import app.services.members as members_module
from app.errors import UserError
from app.project import Project
from app.services.choice import plain_choice
from app.services.predictor import Predictor
from app.services.training import TrainConfig, gold_documents, train_project

from synth_projects import make_project

pytestmark = pytest.mark.slow

CONFIG = dict(models=["crf", "rules"], budget="quick", variants=["imbalanced"],
              ensembles=["voting", "stacking"], meta_models=["lr"])


@pytest.fixture(scope="module")
def crossfitted(tmp_path_factory):
    """A run with 3-fold cross-fitting; every fold fit's training notes and
    the notes it tagged are recorded by patient."""
    path = make_project(tmp_path_factory.mktemp("crossfit") / "p.deid", n=40)
    fits = []
    real_fit = members_module.fit_member

    def spy(job, progress):
        fit, model = real_fit(job, progress)
        if "crossfit" in job.workdir.name:
            trained_on = {s.doc_id for s in job.corpus.train} | {s.doc_id for s in job.corpus.dev}
            real_predict = model.predict

            def predict(items):
                fits.append((trained_on, {text for text, _ in items}))
                return real_predict(items)
            model.predict = predict
        return fit, model

    mp = pytest.MonkeyPatch()
    mp.setattr(members_module, "fit_member", spy)
    mp.setattr(crossfit_module, "MAX_WORKERS", 1)      # the spy sees fits in this process
    try:
        with Project.open(path) as p:
            run = train_project(p, TrainConfig(**CONFIG, cross_fit=3))
            docs = gold_documents(p)
    finally:
        mp.undo()
    return path, run, fits, docs


def test_each_note_is_tagged_by_a_fit_that_never_saw_its_patient(crossfitted):
    _, _, fits, docs = crossfitted
    patient = {d.name: d.patient_id for d in docs}
    patient_of_text = {d.text: d.patient_id for d in docs}
    assert len(fits) == 3                      # one CRF, three folds
    tagged = set()
    for trained_on, texts in fits:
        seen = {patient[name] for name in trained_on}
        held = {patient_of_text[t] for t in texts}
        assert held and not held & seen
        tagged |= texts
    # Every annotated note outside test is tagged once, by one of the folds.
    assert tagged == {d.text for d in docs}


def test_the_selection_is_made_on_every_annotated_note(crossfitted):
    _, run, _, docs = crossfitted
    gold_entities = sum(len(d.spans) for d in docs)
    rows = run.selection["rows"]
    best = next(r for r in rows if r["name"] == run.selected)
    # Strict counts over the selection's notes: every gold identifier of the
    # training and dev notes, not the dev split's few.
    assert best["tp"] + best["fn"] == gold_entities
    sentence = next(n for n in run.notes if n.startswith("Ensembles fitted and the model chosen"))
    assert f"all {len(docs)} annotated notes" in sentence
    assert "3-fold cross-fitting" in sentence
    record = run.selection["cross_fit"]
    assert record["folds"] == 3 and record["notes"] == len(docs)
    assert record["patients"] == len({d.patient_id for d in docs})
    # The plain words name the notes the choice was made on.
    words = plain_choice(run)
    assert "the annotated notes" in words and "the dev notes" not in words


def test_what_predicts_is_the_run_s_own_members(crossfitted):
    path, run, _, _ = crossfitted
    with Project.open(path) as p:
        with Predictor.from_project(p, all_members=True) as predictor:
            assert set(predictor.members) == {"crf-imbalanced", "rules"}
        names = {a.name for a in p.artifacts(run.id)}
    assert not any("crossfit" in n for n in names)


def test_fits_side_by_side_in_worker_processes_tag_as_one_after_another(crossfitted, tmp_path):
    """The fold fits run in worker processes on a machine with cores to spare:
    the CRF is deterministic, so the selection's table is the same."""
    _, serial, _, _ = crossfitted
    path = make_project(tmp_path / "p.deid", n=40)
    mp = pytest.MonkeyPatch()
    mp.setattr(crossfit_module, "default_workers", lambda: 2)
    try:
        with Project.open(path) as p:
            run = train_project(p, TrainConfig(**CONFIG, cross_fit=3))
    finally:
        mp.undo()
    assert run.selection["rows"] == serial.selection["rows"]
    assert run.selected == serial.selected


def test_too_few_patients_for_the_folds_chooses_on_dev(tmp_path):
    path = make_project(tmp_path / "p.deid", n=20)
    with Project.open(path) as p:
        patients = {d.patient_id for d in gold_documents(p)}
        run = train_project(p, TrainConfig(**CONFIG, cross_fit=len(patients) + 1))
    assert any(n.startswith("No cross-fitting: the annotated notes are of") for n in run.notes)
    assert "cross_fit" not in run.selection
    assert not any(n.startswith("Ensembles fitted and the model chosen") for n in run.notes)


def test_one_fold_is_refused():
    with pytest.raises(UserError, match="2 to 20 folds"):
        TrainConfig(cross_fit=1).validate()


def test_a_balanced_only_run_is_cross_fitted_on_every_annotated_note(tmp_path):
    """Without the imbalanced variant the training notes are tagged afresh:
    still every note, every gold identifier."""
    path = make_project(tmp_path / "p.deid", n=30)
    with Project.open(path) as p:
        run = train_project(p, TrainConfig(**{**CONFIG, "variants": ["balanced"]}, cross_fit=3))
        docs = gold_documents(p)
    best = next(r for r in run.selection["rows"] if r["name"] == run.selected)
    assert best["tp"] + best["fn"] == sum(len(d.spans) for d in docs)
    assert run.selection["cross_fit"]["notes"] == len(docs)


def test_the_cost_is_said_before_the_run_in_plain_words():
    from app.services.crossfit import cost_factor, cost_note
    from app.services.training import cost_notes

    # Calibrated on the one run timed alone: 5 folds on 2 cores took 2.5 times as long.
    gb = 2**30
    assert cost_factor(5, cores=2, memory=16 * gb) == pytest.approx(2.5)
    assert cost_factor(5, cores=16, memory=64 * gb) < cost_factor(5, cores=2, memory=16 * gb)
    # At most 8 fits at once, and no more than the memory holds (3 GB a fit).
    assert cost_factor(5, cores=64, memory=512 * gb) == cost_factor(5, cores=8, memory=512 * gb)
    assert cost_factor(5, cores=16, memory=7 * gb) == cost_factor(5, cores=2, memory=64 * gb)
    assert cost_note(5, cores=16, memory=2 * gb).startswith(
        "Choosing on all notes fits each trained model 5 more times, 1 fit at a time here")
    assert cost_note(5, cores=2, memory=16 * gb) == (
        "Choosing on all notes fits each trained model 5 more times, 2 fits at a time here: "
        "the run takes about 2.5 times as long as without it.")
    plain = TrainConfig(models=["crf", "rules"], device="cpu")
    assert not any("Choosing on all notes" in n for n in cost_notes(plain))
    assert any(n.startswith("Choosing on all notes fits each trained model 5 more times")
               for n in cost_notes(TrainConfig(models=["crf", "rules"], device="cpu", cross_fit=5)))
