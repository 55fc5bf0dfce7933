"""``python -m app.bench.familiarity``: ICU notes read unlike annotated letters, letters do not."""
from __future__ import annotations


def test_the_familiarity_bench_tells_icu_notes_from_letters(monkeypatch, capsys):
    import app.bench.config as config
    from app.bench.familiarity import main
    monkeypatch.setattr(config, "physionet_dir", lambda: None)    # the synthetic case only
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "physionet: not found" in out
    assert "20 of the 20 ICU notes, 0 of the 20 letters" in out
