"""The scale benchmark's steady rates (app.bench.scale._job)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

import app.bench.scale as scale


@pytest.fixture
def fake_job(monkeypatch, tmp_path):
    """A job whose progress ticks come at given wall-clock times (no project,
    no model): ``run([(fraction, wall), ...], end)`` gives _job's row."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("x" * 1000, encoding="utf-8")

    def run(ticks, end):
        clock = iter([0.0, *[w for _, w in ticks], end])
        monkeypatch.setattr(scale.time, "perf_counter", lambda: next(clock))

        def annotate_folder(project, src, out, progress, **kw):
            for fraction, _ in ticks:
                progress(SimpleNamespace(fraction=fraction))
            return SimpleNamespace(notes=1, workers=2)

        import app.project
        import app.services.annotating
        monkeypatch.setattr(app.services.annotating, "annotate_folder", annotate_folder)
        monkeypatch.setattr(app.project, "Project", type(
            "P", (), {"open": staticmethod(lambda *a, **k: _Ctx())}))
        return scale._job("annotate", tmp_path / "p.deid", notes, tmp_path / "out")

    return run


class _Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_steady_rate_from_the_first_note_written_to_the_last(fake_job):
    row = fake_job([(0.25, 2.0), (0.5, 4.0), (1.0, 8.0)], end=8.0)
    assert row["steady_chars_per_s"] == pytest.approx(1000 * 0.75 / 6.0, rel=1e-3)


def test_no_steady_rate_from_a_burst_of_outputs_at_the_end(fake_job):
    # Outputs recorded in order: everything arrives in the job's last second.
    row = fake_job([(0.25, 9.0), (0.5, 9.2), (1.0, 9.5)], end=9.5)
    assert "steady_chars_per_s" not in row
    assert row["wall"] == pytest.approx(9.5)
