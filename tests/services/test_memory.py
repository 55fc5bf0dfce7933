"""PeakMemory: the most a block held, and what it added to the process."""
from __future__ import annotations

import json
import subprocess
import sys

# In a fresh process: one that freed memory before (the test suite's) reuses
# it, and its resident size does not grow.
_SCRIPT = """
import json, time
from app.services.memory import PeakMemory
held = b"\\x01" * (150 * 2**20)               # what the app holds already (resident)
with PeakMemory(interval=0.01) as mem:
    block = b"\\x02" * (60 * 2**20)
    time.sleep(0.1)                            # sampled while it is held
    del block
print(json.dumps({"start": mem.start_mb, "peak": mem.peak_mb, "added": mem.added_mb}))
"""


def test_a_block_is_charged_what_it_added_not_what_the_process_held_before():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    mem = json.loads(out.strip().splitlines()[-1])
    assert mem["start"] >= 150 and mem["peak"] >= mem["start"] + 50
    assert 50 <= mem["added"] < mem["peak"] - 140
