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


def _carry(folder: Path, wheels: list[str], minilm: bool) -> Path:
    """A stand-in for what gpu_prepare.py fills (names and sizes only)."""
    (folder / "whl").mkdir(parents=True)
    for name in wheels:
        (folder / "whl" / name).write_bytes(b"w")
    (folder / "physionet.tar.gz").write_bytes(b"t")
    if minilm:
        (folder / "models" / "all-MiniLM-L6-v2").mkdir(parents=True)
        (folder / "models" / "all-MiniLM-L6-v2" / "model.safetensors").write_bytes(b"m")
    return folder


def test_dry_run_checks_that_the_carried_files_hold_what_the_members_need(tmp_path):
    base = ["python_crfsuite-0.9.12-cp312-cp312-manylinux_2_28_x86_64.whl",
            "faker-40.54.0-py3-none-any.whl"]
    stanza = base + ["stanza-1.15.0-py3-none-any.whl", "gensim-4.4.0-cp312-cp312-manylinux_2_28_x86_64.whl"]
    with_minilm = _carry(tmp_path / "a", base, minilm=True)
    for_stanza = _carry(tmp_path / "b", stanza, minilm=False)
    ok = _dry_run(GPU_CHECK_CARRY=str(with_minilm))
    assert ok.returncode == 0 and "carried files ok" in ok.stdout, ok.stderr
    # The transformer without the slim MiniLM, Stanza without its wheels: refused.
    assert _dry_run(GPU_CHECK_CARRY=str(for_stanza)).returncode != 0
    assert _dry_run(GPU_CHECK_CARRY=str(with_minilm),
                    GPU_CHECK_MODELS="stanza crf rules starter").returncode != 0
    done = _dry_run(GPU_CHECK_CARRY=str(for_stanza), GPU_CHECK_MODELS="stanza crf rules starter")
    assert done.returncode == 0 and "stanza crf rules starter" in done.stdout, done.stderr
