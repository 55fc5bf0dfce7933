"""Members trained in worker processes (``deid train --jobs N``)."""
import multiprocessing as mp
from pathlib import Path

import pytest

from app.core.progress import Cancelled
from app.models.base import Corpus
from app.project import Project
from app.services.members import MemberJob, fit_in_workers, thread_budget
from app.services.training import TrainConfig, train_project

from synth_projects import make_project

pytestmark = pytest.mark.slow


def _train(path: Path, **config):
    with Project.open(path) as p:
        return train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick",
                                            ensembles=["voting"], **config))


def test_members_in_workers_learn_what_they_learn_in_process(tmp_path):
    path = make_project(tmp_path / "p.deid")
    alone = _train(path)
    events = []
    with Project.open(path) as p:
        side = train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick",
                                            ensembles=["voting"], jobs=3), progress=events.append)
        names = {a.name for a in p.artifacts(side.id)}
    assert set(side.members) == set(alone.members) == {"spacy-balanced", "spacy-imbalanced", "rules"}
    # Same seed, same data, same epochs: the worker processes train the same models.
    for name, member in side.members.items():
        assert member.dev["f1"] == pytest.approx(alone.members[name].dev["f1"], abs=1e-9)
    assert {f"member:{m}" for m in side.members} <= names
    # Progress comes from the workers (epochs) and rises to the end.
    assert any(e.model == "spacy-imbalanced" and e.epoch for e in events)
    assert events[-1].fraction == 1.0
    fractions = [e.fraction for e in events]
    assert fractions == sorted(fractions)          # the bar never moves back
    assert not mp.active_children()


def test_members_side_by_side_each_get_what_is_left_of_the_run(tmp_path):
    path = make_project(tmp_path / "t.deid")
    result = _train(path, jobs=3, max_minutes=10)
    # Two timed members start together: each may use the whole 90% of the
    # ten minutes left for members before the safety stop.
    for name in ("spacy-balanced", "spacy-imbalanced"):
        assert 530 < result.members[name].time_cap <= 540
    assert result.members["rules"].time_cap is None


def _job(tmp_path: Path, kind: str, corpus: Corpus | None = None) -> MemberJob:
    corpus = corpus or Corpus(train=[], dev=[], labels=["PERSON"])
    return MemberJob(kind, kind, None, {}, corpus, tmp_path / kind, tmp_path / "saved" / kind,
                     tmp_path / "cache", budget="quick")


def test_a_worker_error_is_raised_in_the_parent(tmp_path):
    with pytest.raises(ValueError, match="unknown model kind"):
        fit_in_workers([_job(tmp_path, "no-such-model")], 2, prepare=lambda j, n: j,
                       on_progress=lambda n, p: None, on_done=lambda j, f: None)
    assert not mp.active_children()


def test_cancel_stops_every_worker(tmp_path):
    from app.models.datasets import build_corpora
    from app.services.training import gold_documents
    path = make_project(tmp_path / "c.deid")
    with Project.open(path) as p:
        corpus = build_corpora(gold_documents(p), variants=["imbalanced"], language="en",
                               seed=13)["imbalanced"].corpus
    seen = []

    def cancel_on_epoch(name, progress):
        seen.append(name)
        if progress.epoch:
            raise Cancelled()

    jobs = [_job(tmp_path, "spacy", corpus), _job(tmp_path, "rules", corpus)]
    with pytest.raises(Cancelled):
        fit_in_workers(jobs, 2, prepare=lambda j, n: j, on_progress=cancel_on_epoch,
                       on_done=lambda j, f: None)
    assert "spacy" in seen
    assert not mp.active_children()


def test_config_refuses_bad_jobs_and_time_limits():
    from app.errors import UserError
    for bad in (dict(jobs=0), dict(jobs=99), dict(max_minutes=0)):
        with pytest.raises(UserError):
            TrainConfig(**bad).validate()


def test_workers_share_the_threads_the_process_was_given(monkeypatch):
    """A process told OMP_NUM_THREADS (one of several sharing a machine) splits that
    among its workers, not every core of the machine."""
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert thread_budget() == 3
    monkeypatch.setenv("OMP_NUM_THREADS", "not a number")
    from app.core.parallel import default_workers
    assert thread_budget() == default_workers()
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert thread_budget() == default_workers()
