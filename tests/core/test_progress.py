"""Structured progress events: nesting and the one throttle."""
import pytest

from app.core import progress as progress_mod
from app.core.progress import EPOCH, MEMBER_DONE, UPDATE, Progress, Throttle, nested


def test_nested_maps_the_child_into_its_part_of_the_parent():
    seen: list[Progress] = []
    child = nested(seen.append, 0.25, 0.75, model="spacy", prefix="trial 2/4")
    child(Progress(0.5, "train", epoch=3, message="epoch 3"))
    child(Progress(1.5, "train"))                      # an overshoot stays inside its part
    first, last = seen
    assert first.fraction == pytest.approx(0.5) and first.model_fraction == pytest.approx(0.5)
    assert first.model == "spacy" and first.epoch == 3 and first.kind == UPDATE
    assert first.message == "trial 2/4: epoch 3"
    assert last.fraction == pytest.approx(0.75) and last.message == "trial 2/4"
    # Two levels: a trial inside a member inside a run.
    deep: list[Progress] = []
    nested(nested(deep.append, 0.5, 1.0), 0.0, 0.5)(Progress(1.0, "train", kind=EPOCH))
    assert deep[0].fraction == pytest.approx(0.75) and deep[0].kind == EPOCH


def test_throttle_keeps_milestones_and_new_members(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(progress_mod.time, "monotonic", lambda: now[0])
    show = Throttle(1.0)
    assert show(Progress(0.1, "train", model="a"))
    assert not show(Progress(0.2, "train", model="a"))             # too soon
    assert show(Progress(0.2, "train", model="a", kind=EPOCH))     # a milestone
    assert show(Progress(0.2, "train", model="b"))                 # another member
    assert show(Progress(0.3, "train", model="b", kind=MEMBER_DONE))
    assert not show(Progress(0.31, "train", model="b"))
    now[0] += 1.0
    assert show(Progress(0.32, "train", model="b"))                # the interval passed
    assert show(Progress(1.0, "train", model="b"))                 # the end
