"""build/gpu_check.sh in its CPU-only dry mode: what CI can check of the GPU run."""
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _dry_run(**env) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(REPO / "build" / "gpu_check.sh"), "--dry-run"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHON": sys.executable, **env})


def test_dry_run_parses_every_command_line_of_the_gpu_run():
    done = _dry_run()
    assert done.returncode == 0, done.stderr
    assert "command lines ok: transformer crf rules starter standard" in done.stdout


def test_dry_run_refuses_a_model_kind_that_does_not_exist():
    done = _dry_run(GPU_CHECK_MODELS="transformer bert")
    assert done.returncode != 0 and "unknown model kinds" in done.stderr


def test_dry_run_checks_the_seed_and_the_cross_fit_as_the_run_passes_them():
    assert _dry_run(GPU_CHECK_SEED="14", GPU_CHECK_CROSS_FIT="5").returncode == 0
    done = _dry_run(GPU_CHECK_SEED="fourteen")
    assert done.returncode != 0 and "--seed" in done.stderr
