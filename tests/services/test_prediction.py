"""One answer to "what predicts this project's notes": `resolve` and its spec."""
from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from app.core.labels import PRESETS
from app.core.prediction import SpanPredictor
from app.errors import UserError
from app.project import Project
from app.services.prediction import (SCAN_THRESHOLD, STARTER_SCAN_THRESHOLD, model_scan_factory,
                                     predicts_by, resolve, uses_starter)
from app.services.starter import STARTER_SETTING

APP = Path(__file__).resolve().parents[2] / "app"


def _project(tmp_path, language: str = "en", preset: str = "hipaa") -> Project:
    return Project.create(tmp_path / "p.deid", list(PRESETS[preset]), language=language)


def test_an_untrained_project_predicts_with_the_starter_else_the_rules(tmp_path):
    with _project(tmp_path) as p:
        if not uses_starter(p):
            pytest.skip("this installation has no starter model")
        spec = resolve(p)
        assert (spec.kind, spec.description, spec.scan_threshold) == \
            ("starter", "starter model", STARTER_SCAN_THRESHOLD)
        assert spec.reason                    # the report says why
        assert predicts_by(p) == "starter"
        p.set_setting(STARTER_SETTING, False)
        assert predicts_by(p) == "rules"          # the window's words follow at once
        rules = resolve(p)
        assert (rules.kind, rules.description, rules.scan_threshold) == ("rules", "rules", None)
        assert rules.identity.startswith("rules ") and model_scan_factory(rules) is None
        # A command that asks for the model says to train first.
        with pytest.raises(UserError, match="no trained model"):
            resolve(p, untrained="error")
        assert resolve(p, rules_only=True) == rules


def test_a_spanish_project_uses_the_rules(tmp_path):
    with _project(tmp_path, "es", "meddocan") as p:
        assert resolve(p).kind == "rules"           # the starter is English
        with pytest.raises(UserError):
            resolve(p, model="crf")                 # a candidate named needs a run


def test_a_spec_is_picklable_and_loads_a_span_predictor(tmp_path):
    with _project(tmp_path) as p:
        p.set_setting(STARTER_SETTING, False)
        spec = resolve(p)
        again = pickle.loads(pickle.dumps(spec))
        assert again == spec and again.identity == spec.identity
    predictor = again.load()                  # in a worker: the file, read-only
    try:
        assert isinstance(predictor, SpanPredictor)
        [pred] = predictor.predict(["Call 555-123-4567 now."])
        assert pred.spans and predictor.doubts(["x"], 0.5) == [[]]
    finally:
        predictor.close()


def test_a_threshold_given_is_checked_against_the_specs(tmp_path):
    with _project(tmp_path) as p:
        if not uses_starter(p):
            pytest.skip("this installation has no starter model")
        spec = resolve(p)
        assert model_scan_factory(spec, SCAN_THRESHOLD).threshold == SCAN_THRESHOLD
        assert model_scan_factory(spec).spec == spec.with_all_members()
        with pytest.raises(UserError, match="default 0.5"):
            model_scan_factory(spec, 2.0)


def test_no_caller_decides_starter_or_model_itself():
    """The question is answered in app/services/prediction.py only."""
    pattern = re.compile(r"uses_starter|predicts_with|hasattr\(predictor")
    found = [f"{path.relative_to(APP)}:{n}" for path in sorted(APP.rglob("*.py"))
             if path.name != "prediction.py" or path.parent.name != "services"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert found == []


def test_rules_only_after_training_runs_no_model(tmp_path):
    """A trained run's candidates cover the starter's day-one spans; "rules
    only" (`deid redact --rules-only`, the export wizard's box) promises no
    model, so the rules candidate it loads leaves them out."""
    from synth_projects import make_project

    from app.services.prediction import rules_predictor
    from app.services.predictor import Predictor
    from app.services.training import TrainConfig, train_project

    path = make_project(tmp_path / "p.deid", n=15)
    with Project.open(path) as p:
        if not uses_starter(p):
            pytest.skip("this installation has no starter model")
        train_project(p, TrainConfig(models=["rules"], budget="quick"))
        texts = [p.document(info.id).text for info in p.document_infos()]
        with Predictor.from_project(p, model="rules") as candidate:
            floored = {s.origin for note in candidate.predict(texts) for s in note.spans}
        only = rules_predictor(p)
        try:
            ruled = {s.origin for note in only.predict(texts) for s in note.spans}
        finally:
            only.close()
    starter = {o for o in floored if o and "starter" in o}
    assert starter, "the synthetic notes hold names only the starter finds"
    assert ruled and not {o for o in ruled if o and "starter" in o}


def test_a_site_rules_suspicion_names_the_rule(tmp_path):
    """A reviewer reads which of the site's rules suspected a word (and can
    switch that rule off on the Rules page); the recogniser's stay unnamed."""
    from app.cli.commands import suspicion_words
    from app.deid.rescan import REASONS, merge_leaks, recogniser_leaks
    from app.rules import registry
    from app.services.prediction import rule_leak_scan
    with Project.create(tmp_path / "p.deid", list(PRESETS["hipaa"]), language="en") as p:
        p.add_document("n1", "ICU handover. Record no KH-9988776. Jacaranda Ward is closed.\n")
        registry.add_rules(p, [registry.check_site_rule(
            {"name": "kh-record", "kind": "record_number", "patterns": [r"\bKH-\d{7}\b"]})])
        scan = rule_leak_scan(p)
    out = "Seen 03/05/2014 in clinic. Record no KH-1234567 kept."
    leaks = merge_leaks(recogniser_leaks(out, scan))
    by_text = {out[lk.start:lk.end]: lk for lk in leaks}
    assert by_text["KH-1234567"].rule == "kh-record"
    assert by_text["KH-1234567"].reason == "the rule “kh-record” finds an identifier"
    assert by_text["03/05/2014"].rule == ""
    assert by_text["03/05/2014"].reason == REASONS["rule"]
    said = suspicion_words([{"kind": lk.kind, "category": lk.category, "start": lk.start,
                             "end": lk.end, **({"rule": lk.rule} if lk.rule else {})}
                            for lk in leaks])
    assert "the rule “kh-record” finds an identifier (ID) at characters 37-47" in said
    assert "KH-1234567" not in said


def test_text_windows_cut_at_line_ends_and_cover_the_text():
    from app.services.predictor import text_windows
    assert text_windows("short note") == [(0, 10)]
    text = "".join(f"line {i} of a long note\n" for i in range(500))
    cuts = text_windows(text, 1000)
    assert cuts[0][0] == 0 and cuts[-1][1] == len(text) and len(cuts) > 10
    assert all(a == b for (_, a), (b, _) in zip(cuts, cuts[1:]))          # no gap, no overlap
    assert all(b - a <= 1000 and text[b - 1] == "\n" for a, b in cuts[:-1])
    # No line end in reach: after a space, else at the size.
    assert text_windows("word " * 300, 100)[0] == (0, 100)
    assert text_windows("x" * 250, 100) == [(0, 100), (100, 200), (200, 250)]


def test_a_long_note_is_read_in_windows_with_the_spans_of_the_whole(tmp_path, monkeypatch):
    # Every member read all of a note's segments at once: a 2 MB note took
    # 1.9 GB to redact. Read in windows, its spans are the whole note's.
    from app.services import predictor as predictor_module
    from app.services.predictor import starter_predictor
    text = "".join(f"Patient Ann Lee (MRN {7700000 + i}) was seen on {i % 28 + 1:02d}/03/2020 "
                   f"by Dr Abernethy, phone 0491 571 {100 + i}.\n" for i in range(120))
    with _project(tmp_path) as p:
        if not uses_starter(p):
            pytest.skip("this installation has no starter model")
        pred = starter_predictor(p)
        try:
            whole = pred.predict([text, "Seen by Ann Lee."], with_members=True)
            monkeypatch.setattr(predictor_module, "WINDOW_CHARS", 1500)
            windowed = pred.predict([text, "Seen by Ann Lee."], with_members=True)
        finally:
            pred.close()
    key = lambda spans: sorted((s.start, s.end, s.label) for s in spans)     # noqa: E731
    assert len(predictor_module.text_windows(text, 1500)) > 5
    assert key(windowed[0].spans) == key(whole[0].spans) and len(whole[0].spans) >= 480
    assert key(windowed[1].spans) == key(whole[1].spans)
    assert {m: key(s) for m, s in windowed[0].member_spans.items()} == \
        {m: key(s) for m, s in whole[0].member_spans.items()}
    assert all(text[s.start:s.end] for s in windowed[0].spans)
