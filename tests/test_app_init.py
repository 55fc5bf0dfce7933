"""What importing ``app`` sets up before any model library loads."""
import os
import subprocess
import sys

import pytest

SHOW = "import app, os; print(os.environ.get('OMP_WAIT_POLICY'))"


@pytest.mark.parametrize("given, seen", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_openmp_threads_sleep_unless_told_otherwise(given, seen):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    out = subprocess.run([sys.executable, "-c", SHOW], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == seen
