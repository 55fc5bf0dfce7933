"""The learning loop end to end on tiny synthetic data: train (quick budget)
-> select -> evaluate -> annotate a folder -> pre-annotate -> redact."""
import json

import pytest

from app.cli.main import main
from app.core.labels import PRESETS
from app.core.progress import Cancelled
from app.core.spans import Span
from app.project import Project
from app.services.training import TrainConfig, train_project
from app.synth import generate

from synth_projects import make_project

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    path = make_project(tmp_path_factory.mktemp("loop") / "p.deid")
    events = []
    with Project.open(path) as p:
        result = train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick"),
                               progress=events.append)
    return path, result, events


def test_training_stores_members_ensembles_and_selection(trained):
    path, result, events = trained
    assert set(result.members) == {"spacy-balanced", "spacy-imbalanced", "rules"}
    assert any(name.startswith("stacking-") for name in result.ensembles)
    assert result.selected in {r["name"] for r in result.rows}
    assert events[-1].fraction == 1.0
    assert any(e.model == "spacy-balanced" and e.epoch for e in events)
    with Project.open(path, readonly=True) as p:
        run = p.run(result.id)
        assert run.status == "done"
        assert run.metrics["selected"] == result.selected
        # Every candidate has a measured cost: an ensemble's is its members' sum.
        costs = run.metrics["costs"]
        assert set(costs) == {r["name"] for r in result.rows}
        assert costs["voting[all]"] == pytest.approx(
            sum(costs[m] for m in result.members), abs=0.01)
        names = {a.name for a in p.artifacts(run.id)}
        assert {"member:spacy-balanced", "member:spacy-imbalanced", "member:rules"} <= names


def test_predictions_survive_reload_from_the_project_file(trained):
    from app.services.predictor import Predictor
    path, result, _ = trained
    text = generate(45, seed=7)[-1].text
    with Project.open(path, readonly=True) as p:
        with Predictor.from_project(p) as a:
            first = a.predict([text])[0].spans
        with Predictor.from_project(p) as b:
            second = b.predict([text])[0].spans
    assert first == second and first


def test_evaluate_cli_writes_stable_json(trained, tmp_path, capsys):
    import json

    from app.services.evaluating import RAW
    path, result, _ = trained
    out = tmp_path / "eval.json"
    assert main(["-q", "evaluate", str(path), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["schema"] == "deid.evaluate/1"
    assert data["model"] == result.selected
    micro = data["evaluation"]["micro"]
    assert 0 < micro["strict"]["f1"] <= 1 and micro["token"]["recall"] > 0.5
    assert {r["name"] for r in data["candidates"]} >= {"rules", "spacy-balanced"}
    # Each strict miss says what it leaves visible, and the candidates together
    # hide at least what each one does.
    misses = data["misses"]
    assert len(misses) == len(data["evaluation"]["errors"]["false_negatives"])
    assert all(0 <= m["elsewhere"] <= m["visible"] <= m["words"] for m in misses)
    assert data["together"]["token_recall"] >= max(
        r["token"]["recall"] for r in data["candidates"] if not r["name"].endswith(RAW))
    out = capsys.readouterr().out
    together = data["together"]["token_recall"]
    assert f"every candidate together hides {together:.4f} of the identifier tokens" in out
    visible = sum(m["visible"] > 0 for m in misses)
    assert (f"of the {len(misses)} identifiers not found exactly, {visible} leave a word "
            "visible") in out if misses else "not found exactly" not in out
    privacy = data["evaluation"]["privacy"]
    assert f"identifier words left visible: {privacy['visible_words']}" in out
    # The row without finishing steps is said for what it is (a walkthrough
    # read the tagging blamed for a gap the starter's floor made).
    if any(r["name"] == result.selected + RAW for r in data["candidates"]):
        assert f'the row "{result.selected}{RAW}" is the model\'s own spans' in out
    # Dev figures of a model refitted on train + dev are on notes it learned from.
    from app.services.runs import active_run
    with Project.open(path, readonly=True) as p:
        refitted = [n for n, m in active_run(p).members.items() if m.refit]
    assert main(["-q", "evaluate", str(path), "--split", "dev"]) == 0
    assert ("learned from the dev notes too" in capsys.readouterr().out) == bool(refitted)


def test_annotate_folder_scores_like_evaluate(trained, tmp_path):
    """brat output of `deid annotate`, scored by an outside scorer, equals evaluate."""
    import brat_scorer
    from app.services.evaluating import evaluate_project
    path, _, _ = trained
    notes, gold = tmp_path / "notes", tmp_path / "gold"
    notes.mkdir()
    gold.mkdir()
    with Project.open(path, readonly=True) as p:
        for info in p.document_infos(split="test"):
            text = p.document(info.id).text
            (notes / f"{info.name}.txt").write_text(text, encoding="utf-8", newline="")
            # Gold written by hand, not by app.formats: the scorer must not
            # share the writer it checks.
            lines = [f"T{i}\t{s.label} {s.start} {s.end}\t{text[s.start:s.end]}"
                     for i, s in enumerate(p.gold_spans(info.id), 1)]
            (gold / f"{info.name}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
        ev = evaluate_project(p, split="test", table=False, bootstrap=0)
    assert main(["-q", "annotate", str(path), str(notes), str(tmp_path / "ann")]) == 0
    outside = brat_scorer.score(gold, tmp_path / "ann")
    ours = ev.report.to_dict()["micro"]["strict"]
    assert outside["tp"] > 0
    for key in ("precision", "recall", "f1"):
        assert outside[key] == pytest.approx(ours[key], abs=1e-12), key


def test_annotate_keeps_a_bom_and_counts_it_like_brat(trained, tmp_path):
    """A UTF-8 note with a byte-order mark (as in MEDDOCAN): the .txt written
    is the input byte for byte and the .ann offsets fit the original file."""
    path, _, _ = trained
    with Project.open(path, readonly=True) as p:
        info = p.document_infos(split="test")[0]
        text = p.document(info.id).text
    notes = tmp_path / "notes"
    notes.mkdir()
    raw = "\ufeff".encode("utf-8") + text.encode("utf-8")
    (notes / "n1.txt").write_bytes(raw)
    assert main(["-q", "annotate", str(path), str(notes), str(tmp_path / "ann")]) == 0
    assert (tmp_path / "ann" / "n1.txt").read_bytes() == raw
    original = raw.decode("utf-8")            # brat's reading: the mark is character 0
    lines = (tmp_path / "ann" / "n1.ann").read_text(encoding="utf-8").splitlines()
    assert lines
    for line in lines:
        _, middle, shown = line.split("\t")
        _, start, end = middle.split(" ")
        assert original[int(start):int(end)] == shown


def test_redact_cli_replaces_identifiers_and_writes_report(trained, tmp_path):
    path, _, _ = trained
    notes = tmp_path / "notes"
    notes.mkdir()
    with Project.open(path, readonly=True) as p:
        info = p.document_infos(split="test")[0]
        text = p.document(info.id).text
        persons = [text[s.start:s.end] for s in p.gold_spans(info.id) if s.label == "PERSON"]
    (notes / "n1.txt").write_text(text, encoding="utf-8")
    report = tmp_path / "report.json"
    assert main(["-q", "redact", str(path), str(notes), str(tmp_path / "out"),
                 "--strategy", "tag", "--report", str(report)]) == 0
    out = (tmp_path / "out" / "n1.txt").read_text(encoding="utf-8")
    assert "<**" in out
    assert report.exists() and report.with_suffix(".html").exists()
    body = report.read_text() + report.with_suffix(".html").read_text()
    assert not any(name in body for name in persons if len(name) > 3)
    # The auditor sees what the finishing steps add after the model.
    model = json.loads(report.read_text())["model"]
    assert "Recall fill:" in model["finishing"] and "Propagation in a note:" in model["finishing"]


def test_preannotate_stores_suggestions_and_uncertainty(trained, tmp_path):
    import shutil
    from app.services.annotating import preannotate
    path, _, _ = trained
    copy = tmp_path / "copy.deid"
    shutil.copy(path, copy)
    with Project.open(copy) as p:
        doc = p.add_document("new", generate(45, seed=7)[-1].text)
        assert preannotate(p) == 1
        recs = p.span_records(doc, status="suggested")
        # What the run's rules or lists found is suggested as the rules' (dotted).
        assert any(r.source == "model" for r in recs)
        assert {r.source for r in recs} <= {"model", "rule"}
        assert all(r.run_id is not None for r in recs)
        info = next(i for i in p.document_infos() if i.id == doc)
        assert info.uncertainty is not None


def test_cancel_leaves_run_cancelled_and_project_consistent(tmp_path):
    path = make_project(tmp_path / "c.deid", n=15)

    def cancel_on_epoch(p):
        if p.epoch:
            raise Cancelled()

    with Project.open(path) as p:
        with pytest.raises(Cancelled):
            train_project(p, TrainConfig(models=["spacy"], budget="quick"), progress=cancel_on_epoch)
        run = p.runs(kind="train")[0]
        assert run.status == "cancelled"
        assert p.get_setting("active_run") is None
    with Project.open(path) as p:                 # reopens cleanly
        assert p.count_documents() == 15


def test_run_clock_is_a_safety_stop_left_to_each_member(tmp_path, monkeypatch):
    import dataclasses

    from app.models import budget
    quick = budget.get_budget("quick")
    monkeypatch.setitem(budget._BUDGETS, "quick", dataclasses.replace(quick, safety_seconds=600.0))
    path = make_project(tmp_path / "b.deid", n=15)
    with Project.open(path) as p:
        result = train_project(p, TrainConfig(models=["spacy", "rules"], budget="quick",
                                              ensembles=["voting"]))
    first, second = result.members["spacy-balanced"], result.members["spacy-imbalanced"]
    # 90% of the run's clock is left to the members: each one may use all
    # that is left when it starts (its work is bounded by the budget).
    assert 530 < first.time_cap <= 540
    assert 540 - first.seconds - 30 < second.time_cap <= 540 - first.seconds
    assert result.members["rules"].time_cap is None
    assert not first.clock_stop and not second.clock_stop
    assert not any("safety time limit" in n for n in result.notes)


def test_balanced_equal_to_imbalanced_is_trained_once(tmp_path):
    # Every line names someone: balancing has no PII-free line to leave out.
    names = ["Ann Lee", "Bob Ray", "Cara Moss", "Dan Wu", "Eve Kim", "Fay Orr"]
    path = tmp_path / "all-pii.deid"
    with Project.create(path, list(PRESETS["paper"])) as p:
        for i in range(12):
            a, b = names[i % 6], names[(i + 1) % 6]
            text = f"Seen by {a} today.\nCall {b} later."
            spans = [(8, 8 + len(a), "PERSON")]
            start = text.index("\n") + 6
            spans.append((start, start + len(b), "PERSON"))
            p.add_document(f"n{i}", text, split="dev" if i % 3 == 0 else "train", status="done",
                           spans=[Span(s, e, lab) for s, e, lab in spans], span_source="import")
    with Project.open(path) as p:
        result = train_project(p, TrainConfig(models=["spacy"], budget="quick",
                                              ensembles=["voting"]))
        run = p.run(result.id)
    assert set(result.members) == {"spacy-imbalanced"}
    assert result.notes and "trained once" in result.notes[0]
    assert run.config["variants_trained"] == ["imbalanced"]
