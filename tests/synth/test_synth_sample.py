"""The shipped sample (resources/sample) is exactly what the generator writes."""
from __future__ import annotations

import re
from pathlib import Path

import faker
import pytest

from app.synth.__main__ import main

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"


def test_sample_is_small_and_documented():
    notes = sorted((SAMPLE / "notes").glob("*.txt"))
    assert len(notes) == 300
    assert all(p.with_suffix(".ann").is_file() for p in notes)
    total = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert total < 2_000_000
    readme = (SAMPLE / "README.md").read_text(encoding="utf-8")
    assert "synthetic" in readme.lower()
    assert "--n 300 --seed 2024 --locale mixed --labels paper" in readme


def test_sample_equals_generator_output(tmp_path):
    readme = (SAMPLE / "README.md").read_text(encoding="utf-8")
    version = re.search(r"Faker (\d+\.\d+\.\d+)", readme).group(1)
    if faker.VERSION != version:
        pytest.skip(f"sample made with Faker {version}, installed {faker.VERSION}")
    out = tmp_path / "notes"
    assert main([str(out), "--n", "300", "--seed", "2024", "--locale", "mixed",
                 "--labels", "paper"]) == 0
    shipped = sorted(p.name for p in (SAMPLE / "notes").iterdir())
    assert sorted(p.name for p in out.iterdir()) == shipped
    for name in shipped:
        assert (out / name).read_bytes() == (SAMPLE / "notes" / name).read_bytes(), name
