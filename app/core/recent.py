"""What was computed last for a few keys, for work that several readers
repeat on the same segments one after the other (the starter's tags, the
CRF members' attributes)."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable, Sequence


class Recent:
    """The values of the ``size`` keys used last. Thread-safe: the GUI's
    worker and a preview may read the same one."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def get(self, keys: Sequence[Hashable],
            compute: Callable[[list[int]], Sequence[Any]]) -> list[Any]:
        """The value of each of ``keys``; ``compute(indices)`` gives those of
        the keys not kept (their indices in ``keys``, in order), once."""
        with self._lock:
            out = [self._kept.get(key) for key in keys]
        missing = [i for i, value in enumerate(out) if value is None]
        if missing:
            for i, value in zip(missing, compute(missing)):
                out[i] = value
        with self._lock:
            for key, value in zip(keys, out):
                self._kept[key] = value
                self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return out
