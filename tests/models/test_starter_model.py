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


def test_each_starter_member_reads_a_segment_once_for_the_member_and_the_floor():
    from app.core.tokenize import segment
    from app.models.base import TagSeq

    class Counting:
        kind = "counting"

        def __init__(self):
            self.read = 0

        def predict(self, items):
            self.read += len(items)
            return [TagSeq(["O"] * len(seg.tokens), [1.0] * len(seg.tokens)) for _, seg in items]

    text = "SEEN BY DR. OKAFOR.\nLAST BM 2/14.\n"
    items = [(text, seg) for seg in segment(text)]
    member = S.RememberingMember("counting-test", Counting())
    first = member.predict(items)
    again = member.predict(items[::-1])
    assert member.read == len(items) == 2 and member.kind == "counting"
    assert [s.tags for s in again] == [s.tags for s in first][::-1]
    # The shipped members remember so: a run's starter member and the floor share them.
    assert all(isinstance(m, S.RememberingMember) for m in S.load_members().values())


def _starter_spans(text: str, day_first: bool = False, labels: dict | None = None) -> list[str]:
    """The spans the starter finds in ``text`` (its members joined as on day
    one), its dates only unless ``labels`` maps more of its kinds."""
    from app.core.bio import tags_to_spans
    from app.core.tokenize import segment

    items = [(text, seg) for seg in segment(text)]
    outputs = {name: member.predict(items) for name, member in S.load_members().items()}
    joined = S.StarterEnsemble(labels or {"DATE": "DATE", "DOB": "DATE"},
                               day_first).predict_from_members(outputs, items)
    return [text[s.start:s.end] for (_, seg), seq in zip(items, joined)
            for s in tags_to_spans(seg.tokens, seq.tags)]


def test_the_starter_keeps_iso_dates_and_a_day_first_notes_dates():
    # ISO 8601 dates were refused as "month 2013"; a day over 12 first was
    # refused in every note, though its surrogates read it day first.
    note = ("ADMISSION 2013-07-27 - DISCHARGE 28/7  WARD CCU\n"
            "FAMILY MEETING ON SAT 27/07/13 WITH HER DAUGHTER.\n")
    found = _starter_spans(note)
    assert "2013-07-27" in found and "28/7" in found
    # A ventilator setting in a month-first project stays no date, though it
    # reads only day first: the note shows both orders, so the project's decides.
    us = "Vent settings 16/5/40 overnight. Seen in clinic 10/25/2019.\n"
    assert _starter_spans(us) == ["10/25/2019"]
    # A note that shows no order follows the project's settled order.
    plain = "Seen 28/7, review in clinic.\n"
    assert ("28/7" in _starter_spans(plain, day_first=True),
            "28/7" in _starter_spans(plain, day_first=False)) == (True, False)
    # After a date's cue it is a date in either order ("DOB 18/2/16" was left
    # in clear on day one in a note with no four-digit year).
    for cued, date in (("Pt seen. DOB 18/2/16\n", "18/2/16"), ("Date: 22/6/16\n", "22/6/16"),
                       ("Discharged 28/7, review in clinic.\n", "28/7")):
        assert date in _starter_spans(cued, day_first=False), cued


def test_the_starter_keeps_a_whole_street_address_over_a_name_or_postcode_in_it():
    """The CRF's address lost to the names member's "Jason" and the rules'
    postcode, which left "31", "Lookout" and the town in clear; a name
    the CRF calls an address, adding nothing, stays a name."""
    note = ("St Luke's Hospital\n31 Jason Lookout\nWarnerhaven TAS 7633\n"
            "Tel (03) 9301 7180\n\nDear Dr Browning\n")
    found = _starter_spans(note, labels={"ADDRESS": "LOCATION", "HOSPITAL": "LOCATION",
                                         "PERSON": "NAME", "PHONE": "CONTACT"})
    assert {"31 Jason Lookout", "Warnerhaven TAS 7633", "(03) 9301 7180"} <= set(found)
    assert "Browning" in found
