"""The benchmark harness end to end on its tiny 'smoke' size (synthetic data)."""
import json
import re

import pytest

from app.bench.cli import main
from app.bench.corpora import subsample
from app.bench.learning import dev_size
from app.bench.markdown import update_benchmarks
from app.bench.record import PART_IDS, load_records
from app.services.evaluating import RAW

ENVELOPE = ["schema", "id", "part", "command", "date", "machine", "budget", "size", "models",
            "seed", "load_average", "seconds", "results", "targets"]


@pytest.fixture(scope="module")
def bench_out(tmp_path_factory):
    """Smoke accuracy (trains spacy + rules) then speed on the same project."""
    out = tmp_path_factory.mktemp("bench")
    md = out / "BENCHMARKS.md"
    common = ["--smoke", "--out", str(out), "--benchmarks", str(md), "--write-md", "-q"]
    assert main(["accuracy", "--corpus", "synthetic", "--models", "spacy", "rules", *common]) == 0
    project = out / "projects" / "accuracy-synthetic-smoke.deid"
    assert main(["speed", "--project", str(project), *common]) == 0
    return out, md


def _load(out, rec_id):
    rec = json.loads((out / f"{rec_id}.json").read_text())
    assert list(rec) == ENVELOPE
    assert rec["schema"] == "deid.bench/1" and rec["id"] == rec_id
    assert rec["command"].startswith("python -m app.bench ")
    assert rec["machine"]["cores_logical"] >= 1 and rec["machine"]["ram_gb"] > 0
    return rec


@pytest.mark.slow
def test_accuracy_scores_every_candidate_with_intervals(bench_out):
    out, _ = bench_out
    rec = _load(out, "accuracy-synthetic")
    res = rec["results"]
    assert list(res) == ["corpus", "project", "data", "train", "evaluation", "lists"]
    assert res["lists"] is False
    assert rec["budget"] == "quick" and rec["size"] == "smoke"
    assert {s: d["notes"] for s, d in res["data"].items()} == {"train": 10, "dev": 6, "test": 8}
    assert set(res["train"]["members"]) == {"spacy-imbalanced", "rules"}
    rows = res["evaluation"]["rows"]
    assert {r["type"] for r in rows} == {"base", "rules", "ensemble"}
    assert sum(r["selected"] for r in rows) == 1
    assert any(r["name"].startswith("voting[") for r in rows)
    for r in rows:
        for kind in ("strict", "relaxed", "token"):
            lo, hi = r[kind]["f1_ci"]
            assert 0 <= lo <= r[kind]["f1"] + 1e-9 and r[kind]["f1"] - 1e-9 <= hi <= 1
        assert set(r["per_label"]) == {"PERSON", "ADDRESS", "DOB", "IDN", "PHONE"}
    # The rules find phones and IDs in synthetic notes: a real score, not zeros.
    rules = next(r for r in rows if r["name"] == "rules")
    assert rules["strict"]["tp"] > 0
    _together_bounds_every_candidate(res["evaluation"])
    assert rec["targets"] == []          # targets are defined on MEDDOCAN only


@pytest.mark.slow
def test_speed_measures_every_model_against_the_baseline(bench_out):
    out, _ = bench_out
    rec = _load(out, "speed")
    res = rec["results"]
    assert list(res) == ["project", "train", "corpus", "baseline", "devices", "find_hits",
                         "growth", "project_open", "scale"]
    cpu = res["devices"]["cpu"]
    names = {r["name"] for r in cpu["rows"]}
    assert {"spacy-imbalanced", "rules"} <= names
    assert any(r["type"] == "ensemble" for r in cpu["rows"])
    for r in cpu["rows"]:
        assert r["chars_per_s"] > 0
        assert r["ratio"] == pytest.approx(r["chars_per_s"] / res["baseline"]["chars_per_s"],
                                           rel=1e-3)
    assert set(cpu["end_to_end"]) == {"selected", "rules"}
    assert [p["factor"] for p in res["growth"]["selected"]["points"]] == [1, 4, 16]
    assert res["project_open"]["notes"] == 200 and res["project_open"]["first_page_rows"] == 200
    assert [t["key"] for t in rec["targets"]] == ["selected_cpu_chars_per_s",
                                                  "rules_cpu_chars_per_s",
                                                  "every_core_chars_per_s"]
    assert all(isinstance(t["pass"], bool) for t in rec["targets"])
    # The jobs, each as a ratio to copying the same files in the same run.
    scale = res["scale"]
    copy = scale["copy"]["chars_per_s"]
    assert [(r["job"], r["how"].split()[0]) for r in scale["jobs"]] == [
        ("annotate", "one"), ("annotate", "every"), ("redact", "one"), ("redact", "every")]
    for r in scale["jobs"]:
        assert r["notes"] == res["corpus"]["notes"]
        assert r["ratio"] == pytest.approx(r["chars_per_s"] / copy, rel=1e-3)
    assert set(scale["fsync"]["ms_per_note"]) == {"fsync per file", "one sync at the end"}


@pytest.mark.slow
def test_markdown_renders_and_report_rewrites_only_its_sections(bench_out, tmp_path):
    out, md = bench_out
    text = md.read_text()
    for rec_id in PART_IDS:
        assert f"<!-- bench:{rec_id} -->" in text and f"<!-- /bench:{rec_id} -->" in text
    assert "rules-only throughput, CPU" in text.split("<!-- /bench:targets -->")[0]
    assert "| candidate | type | strict P |" in text and "| model | type | chars/s |" in text
    assert "| member | kind | data | trained in run |" in text
    assert "`python -m app.bench speed --project" in text
    assert "| job | how | notes | s | chars/s | ratio to copy | x before |" in text
    assert (out / "speed.md").read_text().startswith("## Speed")

    # A hand-kept MEDDOCAN section survives a report that has no MEDDOCAN record.
    other = tmp_path / "B.md"
    kept = text.replace("<!-- bench:accuracy-meddocan -->\n_not run yet_",
                        "<!-- bench:accuracy-meddocan -->\nearlier figures")
    other.write_text(kept)
    assert main(["report", "--out", str(out), "--benchmarks", str(other), "-q"]) == 0
    assert other.read_text() == kept
    update_benchmarks(other, load_records(out))         # idempotent
    assert other.read_text() == kept


def test_report_without_results_is_a_user_error(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path), "--benchmarks", str(tmp_path / "B.md")]) == 1
    assert "no benchmark results" in capsys.readouterr().err
    assert not (tmp_path / "B.md").exists()


def test_missing_meddocan_is_a_user_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DEID_MEDDOCAN", str(tmp_path / "absent"))
    assert main(["accuracy", "--corpus", "meddocan", "--smoke", "--models", "rules",
                 "--out", str(tmp_path)]) == 1
    assert "MEDDOCAN not found" in capsys.readouterr().err


def test_learning_curve_samples_are_nested_and_dev_is_proportional():
    stems = [f"n{i:03d}" for i in range(500)]
    small, large = subsample(stems, 25), subsample(stems, 100)
    assert large[:25] == small and len(set(large)) == 100
    assert [dev_size(n, 500, 250) for n in (25, 50, 100, 250, 500)] == [12, 25, 50, 125, 250]
    assert dev_size(1, 500, 250) == 2


@pytest.mark.slow
def test_accuracy_rescores_a_trained_project_without_training(bench_out, tmp_path):
    out, _ = bench_out
    project = out / "projects" / "accuracy-synthetic-smoke.deid"
    before = json.loads((out / "accuracy-synthetic.json").read_text())
    again = tmp_path / "again"
    assert main(["accuracy", "--corpus", "synthetic", "--project", str(project),
                 "--budget", "standard", "--out", str(again), "-q"]) == 0
    rec = _load(again, "accuracy-synthetic")
    # The stored run is reported (its budget, its members), not the flags.
    assert rec["budget"] == "quick"
    assert rec["results"]["train"]["run"] == before["results"]["train"]["run"]
    def f1s(r):
        return {row["name"]: row["strict"]["f1"] for row in r["results"]["evaluation"]["rows"]}
    assert f1s(rec) == f1s(before)


def test_quiet_filters_flair_info_like_deid_q(tmp_path, monkeypatch):
    import logging
    flair, stanza, root = (logging.getLogger(n) for n in ("flair", "stanza", ""))
    monkeypatch.setattr(flair, "filters", [])
    for log in (flair, stanza, root):
        monkeypatch.setattr(log, "level", log.level)
        for handler in log.handlers:
            monkeypatch.setattr(handler, "level", handler.level)
    main(["report", "-q", "--out", str(tmp_path), "--benchmarks", str(tmp_path / "B.md")])
    info = logging.LogRecord("flair", logging.INFO, __file__, 1, "SequenceTagger predicts", None, None)
    warning = logging.LogRecord("flair", logging.WARNING, __file__, 1, "w", None, None)
    assert not flair.filter(info) and flair.filter(warning)


@pytest.fixture
def physionet():
    from app.bench.config import physionet_dir

    if physionet_dir() is None:
        pytest.skip("the PhysioNet deid notes are not beside the repository")


@pytest.mark.slow
def test_physionet_holds_out_whole_patients_and_checks_its_targets(physionet, tmp_path):
    from app.bench.corpora import physionet_is_dev
    from app.project import Project

    assert main(["accuracy", "--corpus", "physionet", "--smoke", "--models", "crf", "rules",
                 "--out", str(tmp_path), "-q"]) == 0
    rec = json.loads((tmp_path / "accuracy-physionet.json").read_text())
    data = rec["results"]["data"]
    # Our dev patients are the test split; the run splits the rest itself.
    assert data["train"]["notes"] == data["dev"]["notes"] == 0
    assert data["test"]["notes"] == data["unsplit"]["notes"] == 40
    with Project.open(rec["results"]["project"]) as project:
        infos = project.document_infos()
        test_patients = {i.patient_id for i in infos if i.split == "test"}
        rest_patients = {i.patient_id for i in infos if i.split != "test"}
    assert test_patients and rest_patients and not test_patients & rest_patients
    assert all(physionet_is_dev(f"{p}_n001") for p in test_patients)
    assert [t["key"] for t in rec["targets"]] == [
        "physionet_token_recall", "physionet_token_precision", "physionet_notes_kept"]
    assert all(t["measured"] is not None for t in rec["targets"])


def test_the_folds_with_the_lists_have_targets_of_their_own():
    from app.bench.accuracy import fold_targets

    mean = {"token_recall": 0.9884, "token_precision": 0.8976, "token_recall_ci": [0.981, 0.993]}
    plain = fold_targets(mean, 5, False, "standard", ["crf"], "standard")
    listed = fold_targets(mean, 5, True, "standard", ["crf", "lists"], "standard")
    assert [t["key"] for t in plain] == ["folds_token_recall", "folds_token_precision"]
    assert [t["key"] for t in listed] == ["folds_token_recall_lists", "folds_token_precision_lists"]
    assert all("with the hospital lists" in t["what"] for t in listed)
    assert [t["pass"] for t in listed] == [False, False] and plain[0]["pass"] is True
    # Both runs' rows stand in the targets table, each named for what it measured.
    from app.bench.markdown import _targets_summary

    text = "".join(f"<!-- bench:{rec_id} -->\n<!-- targets-json: {json.dumps(targets)} -->\n"
                   f"<!-- /bench:{rec_id} -->\n"
                   for rec_id, targets in (("accuracy-physionet-folds", plain),
                                           ("accuracy-physionet-folds-lists", listed)))
    rows = [r for r in _targets_summary(text).splitlines() if "folds" in r]
    assert len(rows) == 4 and not any("not measured" in r for r in rows)
    assert any("precision, mean of the PhysioNet folds, with the hospital lists | 0.9 | 0.8976" in r
               for r in rows)


def test_curve_takes_notes_until_enough_have_identifiers():
    from app.bench.learning import take
    from app.core.spans import Document, Span

    def note(name, ids):
        return Document(name, "x" * 10, [Span(0, 1, "NAME")] * ids)

    order = [note("a", 0), note("b", 1), note("c", 0), note("d", 2), note("e", 1)]
    first = take(order, [], 1)
    assert [d.name for d in first] == ["a", "b"]           # notes without identifiers ride along
    assert [d.name for d in take(order, first, 3)] == ["a", "b", "c", "d", "e"]
    # An earlier choice is kept and the next notes come from the new order.
    assert [d.name for d in take(order[::-1], first, 2)] == ["a", "b", "e"]
    assert len(take(order, [], 99)) == 5                    # the pool runs out


@pytest.mark.slow
def test_physionet_curve_compares_random_and_uncertainty_order(physionet, tmp_path):
    assert main(["learning-curve", "--corpus", "physionet", "--smoke", "--models", "crf", "rules",
                 "--out", str(tmp_path), "-q"]) == 0
    rec = json.loads((tmp_path / "learning-curve-physionet.json").read_text())
    points = rec["results"]["points"]
    assert [(p["order"], p["identified_notes"]) for p in points] == [
        ("random", 4), ("random", 8), ("uncertainty", 4), ("uncertainty", 8)]
    # The first point is the same sample; later ones are chosen differently.
    assert points[0]["train_notes"] == points[2]["train_notes"]
    assert all(0.0 <= p["token"]["recall"] <= 1.0 for p in points)


def test_cluster_projection_shows_its_arithmetic():
    from app.bench.scale import project, projection_lines
    rows = [{"job": "redact", "workers": 1, "chars_per_s": 10_000.0,
             "client_chars_per_cpu_s": 500_000.0},
            {"job": "redact", "workers": 2, "chars_per_s": 18_000.0,
             "client_chars_per_cpu_s": 400_000.0}]
    pr = project(rows)
    # 160 workers x 10,000 x 0.9 = 1,440,000 chars/s, above the client's 400,000.
    assert pr["workers"] == 160 and pr["efficiency_2"] == 0.9
    assert pr["cluster_chars_per_s"] == 1_440_000 and pr["bound"] == "client"
    assert pr["hours"] == round(2e9 / 400_000 / 3600, 2)
    text = "\n".join(projection_lines(pr))
    assert "160 x 10,000 x 0.9 = 1,440,000 chars/s" in text and "client bound" in text


def test_cluster_projection_uses_the_steady_rates():
    """A million-note job starts its workers and sets up once: the projection
    reads the rates from the first note written to the last where measured."""
    from app.bench.scale import project, projection_lines
    rows = [{"job": "redact", "workers": 1, "chars_per_s": 8_000.0, "steady_chars_per_s": 10_000.0,
             "client_chars_per_cpu_s": 300_000.0, "steady_client_chars_per_cpu_s": 500_000.0},
            {"job": "redact", "workers": 2, "chars_per_s": 15_000.0,
             "steady_chars_per_s": 18_000.0, "client_chars_per_cpu_s": 250_000.0,
             "steady_client_chars_per_cpu_s": 400_000.0}]
    rows[0]["worker_chars_per_cpu_s"] = 12_000.0     # the worker's own CPU time, load-blind
    pr = project(rows)
    assert pr["per_worker_chars_per_s"] == 10_000 and pr["efficiency_2"] == 0.9
    assert pr["client_cap_chars_per_s"] == 400_000 and pr["bound"] == "client"
    assert pr["cpu_chars_per_s"] == 400_000            # 160 x 12,000, capped by the client
    assert "160 x 12,000 chars per worker CPU s = 1,920,000 chars/s" in \
        "\n".join(projection_lines(pr))


def test_physionet_lists_leave_out_our_dev_patients(physionet, tmp_path):
    # The corpus's held-out patients are not in its table: ours must not be either.
    from app.bench.config import physionet_dir
    from app.bench.corpora import add_physionet_lists, physionet_is_dev
    from app.project import Project

    with Project.create(tmp_path / "p.deid", [], language="en") as project:
        read = add_physionet_lists(project, physionet_dir(), work=tmp_path)
        listed = project.list_patient_ids()
        counts = project.list_counts()
    assert set(read) == {"patients", "staff", "places", "hospitals"}
    assert listed and not any(physionet_is_dev(f"{p}_n001") for p in listed)
    rows = (physionet_dir() / "lists" / "patients.csv").read_text().splitlines()[1:]
    assert len(listed) == sum(not physionet_is_dev(r.split(",")[0] + "_n") for r in rows)
    assert counts["staff"] and counts["places"] and counts["hospitals"]


@pytest.mark.parametrize("flag, key, expected", [
    (["--flair-minilm"], "flair_minilm", True), (["--no-flair-minilm"], "flair_minilm", False),
    ([], "flair_minilm", None), (["--data", "balanced"], "variants", ["balanced"]),
    ([], "variants", None), (["--jobs", "2"], "jobs", 2), ([], "jobs", None)])
def test_training_flags_reach_the_training_config(flag, key, expected, tmp_path, monkeypatch):
    import app.bench.accuracy as accuracy
    from app.errors import UserError

    seen = {}

    def fake_run_accuracy(corpus, *, size, **_):
        seen.update(size.train)
        raise UserError("stop before building anything")

    monkeypatch.setattr(accuracy, "run_accuracy", fake_run_accuracy)
    assert main(["accuracy", "--corpus", "physionet", "--models", "flair", "rules",
                 "--out", str(tmp_path), "-q", *flag]) == 1
    assert seen.get(key) == expected and (expected is not None or key not in seen)


@pytest.mark.parametrize("cuda, models", [
    (False, ["crf", "rules", "starter"]),
    (True, ["spacy", "stanza", "flair", "transformer", "crf", "rules", "starter"])])
def test_the_bench_trains_what_a_default_deid_train_would_on_this_machine(cuda, models, tmp_path,
                                                                          monkeypatch):
    import app.bench.accuracy as accuracy
    import app.models.device as device
    from app.errors import UserError

    monkeypatch.setattr(device, "detect_devices",
                        lambda: device.DeviceInfo(cuda_available=cuda))
    seen = {}

    def fake_run_accuracy(corpus, *, models, **_):
        seen["models"] = models
        raise UserError("stop before building anything")

    monkeypatch.setattr(accuracy, "run_accuracy", fake_run_accuracy)
    assert main(["accuracy", "--corpus", "physionet", "--out", str(tmp_path), "-q"]) == 1
    assert seen["models"] == models


def _together_bounds_every_candidate(evaluation: dict) -> None:
    """The union of every candidate hides at least what each one does, and
    leaks in no more notes than any."""
    together = evaluation["together"]
    rows = [r for r in evaluation["rows"] if not r["name"].endswith(RAW)]
    assert together["candidates"] == len(rows)
    assert together["token_recall"] >= max(r["token"]["recall"] for r in rows)
    assert together["notes_leaking"] <= min(r["privacy"]["notes_with_missed"] for r in rows)
    assert 0 < together["token_precision"] <= 1


@pytest.mark.slow
def test_folds_hold_out_each_fold_of_patients_once_and_report_the_mean(physionet, tmp_path):
    from pathlib import Path as P

    from app.bench.config import physionet_dir
    from app.bench.corpora import physionet_folds, physionet_is_dev
    from app.project import Project

    assigned = physionet_folds([p.stem for p in P(physionet_dir(), "train").glob("*.txt")], 2)

    assert main(["accuracy", "--corpus", "physionet", "--folds", "2", "--smoke", "--models", "crf",
                 "rules", "--out", str(tmp_path), "-q"]) == 0
    rec = json.loads((tmp_path / "accuracy-physionet-folds.json").read_text())
    folds = rec["results"]["folds"]
    assert [f["fold"] for f in folds] == [0, 1]
    for f in folds:
        path = tmp_path / "projects" / f"folds-physionet-{f['fold']}of2-smoke.deid"
        with Project.open(path) as project:
            infos = project.document_infos()
        test = {i.patient_id for i in infos if i.split == "test"}
        assert test and all(assigned[int(p[1:])] == f["fold"] for p in test)
        assert not any(physionet_is_dev(f"{p}_n") for p in test)
        assert not test & {i.patient_id for i in infos if i.split != "test"}
    mean = rec["results"]["mean"]["token_recall"]
    assert mean == pytest.approx(sum(f["token_recall"] for f in folds) / 2)
    # Each fold's figure is its patients' tokens; the intervals are over them and hold the point.
    for f, d in zip(folds, rec["results"]["details"]):
        tp, fp, fn = (sum(c[i] for c in d["token_by_patient"]) for i in range(3))
        assert f["token_recall"] == pytest.approx(tp / (tp + fn))
        assert f["token_recall_ci"][0] <= f["token_recall"] <= f["token_recall_ci"][1]
    low, high = rec["results"]["mean"]["token_recall_ci"]
    assert low <= mean <= high
    assert "95 % interval" in rec["targets"][0]["note"]
    assert [t["key"] for t in rec["targets"]] == ["folds_token_recall", "folds_token_precision"]
    assert "mean of every fold" in (tmp_path / "accuracy-physionet-folds.md").read_text()


@pytest.mark.slow
def test_folds_trained_at_once_read_as_one_after_another(physionet, tmp_path):
    """--folds-at-once N trains folds in processes of their own: the same record, fold for
    fold. One member, so that no choice among near-equal candidates weighs their
    measured speed."""
    def record(out, *at_once):
        assert main(["accuracy", "--corpus", "physionet", "--folds", "2", "--smoke", "--models",
                     "crf", "--data", "imbalanced", "--out", str(out), "-q", *at_once]) == 0
        results = json.loads((out / "accuracy-physionet-folds.json").read_text())["results"]
        for row in results["folds"]:
            assert row.pop("train_seconds") > 0
        for detail in results["details"]:      # the refit's time
            detail["finishing"] = [re.sub(r"\(\d+ s\)", "", line) for line in detail["finishing"]]
        return results

    alone, at_once = record(tmp_path / "one"), record(tmp_path / "two", "--folds-at-once", "2")
    assert [f["fold"] for f in at_once["folds"]] == [0, 1]
    assert at_once["details"][0]["candidates"]
    for key in ("folds", "details", "mean"):
        assert at_once[key] == alone[key]
    assert main(["accuracy", "--corpus", "physionet", "--folds", "2", "--folds-at-once", "0",
                 "--smoke", "--out", str(tmp_path), "-q"]) == 1


def test_one_fold_runs_alone_with_every_candidate_and_no_target(physionet, tmp_path):
    assert main(["accuracy", "--corpus", "physionet", "--folds", "2", "--fold", "1", "--smoke",
                 "--models", "crf", "rules", "--out", str(tmp_path), "-q"]) == 0
    rec = json.loads((tmp_path / "accuracy-physionet-folds-fold1.json").read_text())
    [fold] = rec["results"]["folds"]
    assert fold["fold"] == 1 and rec["targets"] == []
    [details] = rec["results"]["details"]
    names = [c["name"] for c in details["candidates"]]
    assert fold["name"] in names and "rules" in names
    # Each candidate's dev figures (as its selection scored them) sit beside its test ones.
    chosen = next(c for c in details["candidates"] if c["name"] == fold["name"])
    assert 0 < chosen["dev_token_recall"] <= 1 and 0 <= chosen["dev_strict_f1"] <= 1
    assert isinstance(details["finishing"], list)
    # Every candidate together bounds what the selection could have hidden.
    assert fold["together"]["token_recall"] >= max(c["token_recall"] for c in details["candidates"]
                                                   if not c["name"].endswith(RAW))
    assert fold["together"]["notes_leaking"] <= fold["notes_leaking"]
    # A note where a whole identifier leaks shows a word of it.
    assert fold["notes_leaking"] <= fold["notes_showing_a_word"] <= fold["notes_with_identifiers"]
    shown = (tmp_path / "accuracy-physionet-folds-fold1.md").read_text()
    assert "fold 1 alone" in shown and "mean of every fold" not in shown
    together = fold["together"]
    assert (f"{together['token_recall']:.4f} / {together['token_precision']:.4f}, "
            f"{together['notes_leaking']}") in shown
    assert main(["accuracy", "--corpus", "physionet", "--folds", "2", "--fold", "2", "--smoke",
                 "--out", str(tmp_path), "-q"]) == 1


def test_folds_are_for_physionet_only(tmp_path):
    assert main(["accuracy", "--corpus", "meddocan", "--folds", "5", "--smoke",
                 "--out", str(tmp_path), "-q"]) == 1
