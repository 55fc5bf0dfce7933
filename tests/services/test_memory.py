"""PeakMemory: the most a block held, and what it added to the process."""
from __future__ import annotations

import time

from app.services.memory import PeakMemory


def test_a_block_is_charged_what_it_added_not_what_the_process_held_before():
    held = b"\x01" * (150 * 2**20)               # what the app holds already (resident)
    with PeakMemory(interval=0.01) as mem:
        block = b"\x02" * (60 * 2**20)
        time.sleep(0.1)                           # sampled while it is held
        del block
    assert mem.start_mb is not None and mem.peak_mb >= mem.start_mb + 50
    assert 50 <= mem.added_mb < mem.peak_mb - 140
    del held
