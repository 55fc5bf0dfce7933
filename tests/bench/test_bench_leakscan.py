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
    assert fig["suspicions_per_1000_words"] >= 0 and fig["scan_threshold"] == 0.05
