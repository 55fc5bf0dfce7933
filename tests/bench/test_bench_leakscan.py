"""The leak-scan bench runs end to end and its figures hold together."""
from app.bench.leakscan import measure
from app.cli.main import main
from app.formats import write_documents
from app.project import Project
from app.services.training import TrainConfig, train_project
from app.synth import generate


def test_leakscan_bench_figures(tmp_path):
    docs = generate(12, seed=5)
    write_documents(docs[:8], tmp_path / "train", "brat")
    write_documents(docs[8:], tmp_path / "test", "brat")
    path = tmp_path / "p.deid"
    assert main(["-q", "new", str(path)]) == 0
    for split in ("train", "test"):
        assert main(["-q", "import", str(path), str(tmp_path / split), "--split", split]) == 0
    with Project.open(path) as p:
        train_project(p, TrainConfig(models=["rules"], budget="quick"))
        fig = measure(p, "test")
    assert fig["notes"] >= 1 and fig["gold_tokens"] >= fig["missed_tokens"] > 0
    assert 0.0 <= fig["flagged_missed"] <= 1.0 and 0.0 <= fig["false_alarm_share"] <= 1.0
    assert fig["missed_not_kept"] <= fig["missed_tokens"]
    assert fig["suspicions"] == sum(fig["suspicions_by_source"].values())
    assert fig["notes_leaking_all_flagged"] <= fig["notes"]
    assert (fig["suspicions"] > 0) <= fig["notes_with_suspicions"] <= min(fig["notes"],
                                                                        fig["suspicions"])
    assert fig["suspicions_per_1000_words"] >= 0 and fig["scan_threshold"] == 0.05


def test_leakscan_bench_on_day_one_reads_the_starters_threshold(tmp_path):
    """No trained run: the bench measures what an export scans, the starter's
    doubts from STARTER_SCAN_THRESHOLD, unless told another threshold."""
    from app.services.redaction import STARTER_SCAN_THRESHOLD
    write_documents(generate(3, seed=7), tmp_path / "test", "brat")
    path = tmp_path / "p.deid"
    assert main(["-q", "new", str(path)]) == 0
    assert main(["-q", "import", str(path), str(tmp_path / "test"), "--split", "test",
                 "--no-suggest"]) == 0
    with Project.open(path, readonly=True) as p:
        fig = measure(p, "test")
        assert (fig["model"], fig["scan_threshold"]) == ("starter model", STARTER_SCAN_THRESHOLD)
        assert measure(p, "test", threshold=0.05)["scan_threshold"] == 0.05


def test_leakscan_bench_does_not_suspect_the_ages_the_policy_keeps(tmp_path):
    """As an export: an age up to the policy's cap stays in clear unsuspected."""
    notes = tmp_path / "test"
    notes.mkdir()
    (notes / "n1.txt").write_text("Pt is a 58 yo man, stable overnight.\n", encoding="utf-8")
    (notes / "n1.ann").write_text("", encoding="utf-8")
    path = tmp_path / "p.deid"
    assert main(["-q", "new", str(path)]) == 0
    assert main(["-q", "import", str(path), str(notes), "--split", "test", "--no-suggest"]) == 0
    with Project.open(path, readonly=True) as p:
        fig = measure(p, "test")
    assert fig["missed_tokens"] == 0 and fig["suspicions"] == 0, fig["suspicions_by_source"]
