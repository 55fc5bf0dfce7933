"""Where identifier -> surrogate assignments are remembered.

HMAC determinism already makes a re-run reproduce its surrogates; the
memory adds what determinism alone cannot: assignments made after a
collision re-draw, and assignments a user edited, stay fixed across runs and
are visible to the GUI. Anything with ``get``/``put`` is a
``SurrogateMemory``; the project store offers ``surrogate_get`` /
``surrogate_put`` and is wrapped with ``as_memory``.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from app.deid.keyed import keyed_hex


@runtime_checkable
class SurrogateMemory(Protocol):
    """Per-patient identifier -> surrogate assignments."""

    def get(self, patient_key: str, label: str, original: str) -> str | None: ...

    def put(self, patient_key: str, label: str, original: str, surrogate: str) -> None: ...


class InMemorySurrogateMemory:
    """A ``SurrogateMemory`` held in a dict (GUI preview, tests, one run)."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str, str], str] = {}

    def get(self, patient_key: str, label: str, original: str) -> str | None:
        return self._data.get((patient_key, label, original))

    def put(self, patient_key: str, label: str, original: str, surrogate: str) -> None:
        self._data[(patient_key, label, original)] = surrogate

    def __len__(self) -> int:
        return len(self._data)


class StoreMemoryAdapter:
    """Adapts any object with ``surrogate_get``/``surrogate_put`` (the project
    store) to ``SurrogateMemory``; arguments are passed in the same order."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def get(self, patient_key: str, label: str, original: str) -> str | None:
        return self._store.surrogate_get(patient_key, label, original)

    def put(self, patient_key: str, label: str, original: str, surrogate: str) -> None:
        self._store.surrogate_put(patient_key, label, original, surrogate)

    def batch(self):
        """A context in which puts are one transaction of the store (when it has them)."""
        from contextlib import nullcontext
        tx = getattr(self._store, "transaction", None)
        return tx() if callable(tx) else nullcontext()


class BufferedMemory:
    """A memory whose puts are kept here until ``flush``, then written in one
    batch (one transaction of a project store, not one commit per surrogate:
    that was most of a folder redaction's own time). Reads see the buffer
    first. Safe to lose on a crash: a resumed run redacts the notes it keeps
    again, in order, and so draws the same surrogates again."""

    def __init__(self, base: SurrogateMemory) -> None:
        self.base = base
        self._pending: dict[tuple[str, str, str], str] = {}

    def get(self, patient_key: str, label: str, original: str) -> str | None:
        hit = self._pending.get((patient_key, label, original))
        return hit if hit is not None else self.base.get(patient_key, label, original)

    def put(self, patient_key: str, label: str, original: str, surrogate: str) -> None:
        self._pending[(patient_key, label, original)] = surrogate

    def pending(self) -> dict[tuple[str, str, str], str]:
        """What was put and not yet flushed, by (patient, label, original)."""
        return dict(self._pending)

    def flush(self) -> None:
        if not self._pending:
            return
        from contextlib import nullcontext
        batch = getattr(self.base, "batch", None)
        with batch() if callable(batch) else nullcontext():
            for (patient_key, label, original), surrogate in self._pending.items():
                self.base.put(patient_key, label, original, surrogate)
        self._pending.clear()

    def save(self) -> None:
        self.flush()
        save = getattr(self.base, "save", None)
        if callable(save):
            save()


def as_memory(obj: Any) -> SurrogateMemory:
    """Return ``obj`` as a ``SurrogateMemory`` (``None`` -> a fresh in-memory one).

    Raises
    ------
    TypeError
        ``obj`` offers neither ``get``/``put`` nor ``surrogate_get``/``surrogate_put``.
    """
    if obj is None:
        return InMemorySurrogateMemory()
    if callable(getattr(obj, "surrogate_get", None)) and callable(getattr(obj, "surrogate_put", None)):
        return StoreMemoryAdapter(obj)
    if callable(getattr(obj, "get", None)) and callable(getattr(obj, "put", None)):
        return obj
    raise TypeError("a surrogate memory needs get/put or surrogate_get/surrogate_put methods")


class JsonFileSurrogateMemory:
    """A file-backed memory that stores no identifier text.

    Keys are HMAC digests of (patient, label, original) under the project
    secret, so the file reveals neither originals nor which patient they
    belong to; values are surrogates (fake by construction). Call ``save``
    to write it (atomically: temp file + ``os.replace``).
    """

    VERSION = 1

    def __init__(self, path: str | os.PathLike, secret: str | bytes) -> None:
        self.path = Path(path)
        self._secret = secret
        self._data: dict[str, str] = {}
        self._dirty = False
        if self.path.is_file():
            try:
                raw = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError):
                raise ValueError(f"surrogate memory file {self.path.name} is unreadable") from None
            if not isinstance(raw, dict) or raw.get("version") != self.VERSION:
                raise ValueError(f"surrogate memory file {self.path.name} has an unknown format")
            self._data = dict(raw.get("entries", {}))

    def _key(self, patient_key: str, label: str, original: str) -> str:
        return keyed_hex(self._secret, "memory", patient_key, label, original, length=32)

    def get(self, patient_key: str, label: str, original: str) -> str | None:
        return self._data.get(self._key(patient_key, label, original))

    def put(self, patient_key: str, label: str, original: str, surrogate: str) -> None:
        key = self._key(patient_key, label, original)
        if self._data.get(key) != surrogate:
            self._data[key] = surrogate
            self._dirty = True

    def save(self) -> None:
        if not self._dirty and self.path.exists():
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".deid-tmp-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": self.VERSION, "entries": self._data}, fh)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._dirty = False

    def __len__(self) -> int:
        return len(self._data)
