"""app.services.previewing: one note as an export writes it, and the
corrections made while reading it, without the GUI."""
from __future__ import annotations

from app.core.labels import PRESETS
from app.core.spans import Span
from app.project import Project
from app.services.previewing import CorrectionSession, predict_note, preview_note, store_strategies
from app.services.redaction import project_policy

TEXT = "Seen by Ann Lee on 03/04/2021. MRN 1234567."


def _project(tmp_path, starter: bool = False):
    from app.services.starter import STARTER_SETTING
    p = Project.create(tmp_path / "p.deid", list(PRESETS["paper"]))
    p.set_setting(STARTER_SETTING, starter)
    doc = p.add_document("n1", TEXT, patient_id="P1", spans=[Span(8, 15, "PERSON")])
    return p, doc


def test_a_note_previewed_before_training_is_what_a_rules_only_export_writes(tmp_path):
    p, doc = _project(tmp_path)
    with p:
        prediction, predictor = predict_note(p, doc)
        from app.services.prediction import RulesPredictor
        assert isinstance(predictor, RulesPredictor)           # no model: the rules
        assert ("IDN" in {s.label for s in prediction.spans})
        shown = preview_note(p, doc, project_policy(p), "model", prediction)
        assert "Ann Lee" not in shown.result.text and "1234567" not in shown.result.text
        person = next(i for i in shown.infos if i.mapped.label == "PERSON")
        assert person.origin == "accepted" and person.certainty == 1.0
        assert [shown.infos[i].certainty for i in shown.order] == \
            sorted(i.certainty for i in shown.infos)           # least sure first
        # The rules do not find the name: shown as missed, replaced all the same.
        assert [(s.start, s.end, s.label) for s in shown.missed] == [(8, 15, "PERSON")]


def test_corrections_and_strategies_are_stored_for_exports(tmp_path):
    p, doc = _project(tmp_path)
    with p:
        session = CorrectionSession(p, doc, "ann")
        start = TEXT.index("03/04/2021")
        assert session.flag_miss(start, start + 10, "DATE") is not None
        session.flag_false_hit(8, 15, "PERSON")
        assert [(s.start, s.label) for s in p.gold_spans(doc)] == [(start, "DATE")]
        policy = project_policy(p)
        from app.deid import Policy
        store_strategies(p, Policy.from_dict({**policy.to_dict(),
                                              "strategies": {"PERSON": "surrogate"}}), "ann")
        assert project_policy(p).strategy_for("PERSON") == "surrogate"
        assert preview_note(p, doc, project_policy(p), "annotations").result.text.startswith(
            "Seen by Ann Lee on ")                             # a false hit is left in clear


def test_day_one_a_note_is_previewed_with_the_starter_model_as_exported(tmp_path):
    from pathlib import Path
    from app.services.exporting import ExportRequest, export_documents
    p, doc = _project(tmp_path, starter=True)
    with p:
        prediction, predictor = predict_note(p, doc)
        assert predictor is not None and predictor.name == "starter model"
        shown = preview_note(p, doc, project_policy(p), "model", prediction)
        export_documents(p, ExportRequest(Path(tmp_path / "out")))
        assert (tmp_path / "out" / "n1.txt").read_text(encoding="utf-8") == shown.result.text


def test_a_project_open_read_only_with_no_secret_yet_previews_with_one_of_its_own(tmp_path):
    """Nothing exported yet, so no secret stored, and none can be stored
    read-only: Preview draws surrogates with one of its own, the same for
    every note while the project is open, and stores nothing."""
    from app.services.redaction import SECRET_KEY, preview_secret
    text = "Seen by Dr Alba Reyes on 03/04/2020."
    path = tmp_path / "p.deid"
    with Project.create(path, list(PRESETS["paper"])) as p:
        doc = p.add_document("n1", text)
        p.add_span(doc, 11, 21, "PERSON", annotator="ann")
    with Project.open(path, readonly=True) as p:
        policy = project_policy(p, "surrogate")
        first = preview_note(p, doc, policy, "annotations").result.text
        assert "Alba Reyes" not in first and first.startswith("Seen by Dr ")
        assert preview_note(p, doc, policy, "annotations").result.text == first
        assert preview_secret(p) == preview_secret(p)
        assert p.get_setting(SECRET_KEY) is None


def test_the_preview_names_the_rule_behind_a_replacement_and_behind_a_span_kept_in_clear(
        tmp_path):
    from app.gui.preview_view import describe
    from app.services.predictor import Prediction
    p, doc = _project(tmp_path)
    mrn = TEXT.index("1234567")
    name = Span(8, 15, "PERSON", 0.9, "crf-balanced")
    prediction = Prediction([Span(mrn, mrn + 7, "IDN", 1.0, "english-floor.v1: mrn")],
                            removed=[(name, "vetoes.v1: ordinary-words")])
    with p:
        session = CorrectionSession(p, doc, "ann")
        session.flag_false_hit(8, 15, "PERSON")              # nothing replaces the name now
        shown = preview_note(p, doc, project_policy(p), "model", prediction)
    info = next(i for i in shown.infos if i.mapped.label == "IDN")
    assert info.made_by == "english-floor.v1: mrn"
    text = describe(info, "<**IDN**>")
    assert "Found by the rule “mrn”" in text and "confidence" not in text
    assert shown.vetoed == [(name, "vetoes.v1: ordinary-words")]


def test_what_made_a_span_reads_in_words_with_each_find_it_was_widened_over():
    from app.services.choice import made_by
    assert made_by("english-floor.v1: phone") == "the rule “phone”"
    assert made_by("hospital lists") == "the hospital lists"
    assert made_by("starter model") == "the shipped starter model"
    assert made_by("crf-balanced, widened by hospital lists, widened by english-floor.v1: date") \
        == (made_by("crf-balanced") + ", widened over what the hospital lists found, widened "
            "over what the rule “date” found")
    assert made_by("crf-balanced, widened by starter model", words=str.upper) == \
        "CRF-BALANCED, widened over what STARTER MODEL found"
    assert made_by(None) is None and made_by("") is None


def test_a_span_the_starter_kept_from_day_one_says_so_not_that_the_models_joined_it(
        tmp_path, monkeypatch):
    """A walkthrough read "Model prediction / Made by the shipped starter
    model / None of the 5 models that read the note found exactly these
    words; what they found around them was joined into this span" for a
    place the starter's floor kept after training."""
    import app.services.prediction as prediction_service
    from app.core.prediction import Prediction
    from app.gui.preview_view import describe
    from app.services.starter import STARTER_NAME
    p, doc = _project(tmp_path)
    mrn = TEXT.index("1234567")
    kept = Span(mrn, mrn + 7, "IDN", 0.96, STARTER_NAME)
    members = {"crf-balanced": [], "rules": [Span(mrn - 4, mrn + 7, "IDN")]}
    prediction = Prediction([kept], member_spans=members)
    with p:
        monkeypatch.setattr(prediction_service, "predicts_by", lambda project: "model")
        info = next(i for i in preview_note(p, doc, project_policy(p), "model",
                                            prediction).infos if i.mapped.label == "IDN")
        assert info.day_one and info.made_by == STARTER_NAME
        text = describe(info, "<**IDN**>")
        assert "Replaced since day one, confidence 0.96" in text
        assert "The shipped starter model replaced these words before any training" in text
        assert "joined" not in text and "Model prediction" not in text
        # Once, not also as "made by" it and found by none of the models.
        assert "Made by" not in text and "None of the" not in text
        assert ("Of the 2 models that read the note, these found words overlapping them: "
                "the pattern rules") in text
        # Before any training the starter is the model: no day one to keep.
        monkeypatch.setattr(prediction_service, "predicts_by", lambda project: "starter")
        info = next(i for i in preview_note(p, doc, project_policy(p), "model",
                                            prediction).infos if i.mapped.label == "IDN")
        assert not info.day_one and "Model prediction" in describe(info, "<**IDN**>")


def test_an_annotation_the_model_only_touched_is_missed_for_the_words_it_leaves(tmp_path):
    """A walkthrough's "2 Payne Promenade" (ADDRESS): the model took "Payne"
    for a PERSON, so the annotation counted as found, where the model alone
    left "2" and "Promenade" visible."""
    from app.services.previewing import missed_annotations
    text = "Lives at 2 Payne Promenade with Heather."
    with Project.create(tmp_path / "p.deid", list(PRESETS["paper"])) as p:
        doc = p.add_document("n1", text)
        address = (text.index("2 Payne"), text.index(" with"))
        p.add_span(doc, *address, "ADDRESS", annotator="ann")
        payne = text.index("Payne")
        assert [(g.start, g.end) for g in missed_annotations(
            p, doc, [Span(payne, payne + 5, "PERSON")])] == [address]
        assert missed_annotations(p, doc, [Span(*address, "ADDRESS")]) == []


def test_a_note_is_previewed_after_its_patients_earlier_notes_as_the_export_predicts_them(
        tmp_path):
    # The patient's earlier notes were redacted with their stored spans, where
    # the export redacts them with the model's: a name the export drew again
    # after a collision came out otherwise in Preview ("Mercedes Avery"
    # against the export's "Joseph Avery").
    from pathlib import Path
    from app.services.exporting import ExportRequest, export_documents
    from app.services.previewing import earlier_notes
    from app.services.starter import STARTER_SETTING
    p = Project.create(tmp_path / "p.deid", list(PRESETS["paper"]))
    p.set_setting(STARTER_SETTING, True)
    with p:
        first = p.add_document("n1", "Seen by Ann Lee and Mr Jack Lee on 03/04/2021.",
                               patient_id="P1")
        second = p.add_document("n2", "Lee called back. Ann Lee is well.", patient_id="P1")
        prediction, predictor = predict_note(p, second)
        earlier = earlier_notes(p, second, predictor)
        assert list(earlier) == [first] and earlier[first].spans
        assert earlier_notes(p, second, predictor, known=earlier) == {}
        shown = preview_note(p, second, project_policy(p), "model", prediction, earlier)
        predictor.close()
        export_documents(p, ExportRequest(Path(tmp_path / "out")))
        assert (tmp_path / "out" / "n2.txt").read_text(encoding="utf-8") == shown.result.text
