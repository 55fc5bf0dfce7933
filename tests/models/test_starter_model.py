"""The starter as a member of a trained run: saved, loaded, and refused
plainly where it cannot load."""
from __future__ import annotations

import json

import pytest

from app.errors import UserError
from app.models import starter_model as S
from app.models.base import load_model


def _saved(tmp_path):
    folder = tmp_path / "starter"
    S.StarterModel(S.label_map(["NAME", "DATE"])).save(folder)
    return folder


def test_a_saved_starter_member_loads_with_its_labels(tmp_path):
    model = load_model(_saved(tmp_path))
    assert isinstance(model, S.StarterModel)
    assert model.mapping["PERSON"] == "NAME" and model.mapping["DOB"] == "DATE"


def test_an_installation_without_the_starter_says_so_as_a_user_error(tmp_path, monkeypatch):
    folder = _saved(tmp_path)
    monkeypatch.setattr(S, "starter_manifest", lambda folder=None: None)
    with pytest.raises(UserError, match="lacks: reinstall the application or train again"):
        load_model(folder)


def test_a_starter_member_from_a_newer_version_is_a_user_error(tmp_path):
    folder = _saved(tmp_path)
    meta_path = next(p for p in folder.iterdir() if p.suffix == ".json")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["starter_member_version"] = S.STARTER_MEMBER_VERSION + 1
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(UserError, match="newer version"):
        load_model(folder)
