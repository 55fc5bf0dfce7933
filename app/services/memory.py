"""Peak resident memory of the process while a block runs (sampled), and
how much of it the block added."""
from __future__ import annotations

import threading

import psutil


class PeakMemory:
    """Context manager sampling RSS every ``interval`` seconds; ``peak_mb`` after,
    and ``added_mb``: the peak less what the process held on entering (in a
    process that already holds other models, the peak is theirs as much as
    the block's: a run's every member read 2,984 MB)."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self.peak_mb = 0.0
        self.start_mb: float | None = None
        self._stop = threading.Event()
        self._proc = psutil.Process()

    @property
    def added_mb(self) -> float:
        return max(0.0, self.peak_mb - (self.start_mb or 0.0))

    def _sample(self) -> None:
        rss = self._proc.memory_info().rss / 2**20
        if self.start_mb is None:
            self.start_mb = rss
        if rss > self.peak_mb:
            self.peak_mb = rss

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def __enter__(self) -> "PeakMemory":
        self._sample()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()
