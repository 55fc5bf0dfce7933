"""Deterministic, secret-keyed choices (HMAC-SHA256 in counter mode).

Every surrogate is drawn from a ``KeyedDraw`` seeded with the project
secret and a context (patient key, label, normalised original), so a re-run
with the same secret reproduces the same output, and nobody without the
secret can link a surrogate back to its original by recomputing it. The
byte stream is our own (not ``random.Random``), so outputs do not depend on
the Python version.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import Sequence, TypeVar

T = TypeVar("T")
_SEP = "\x1f"  # unit separator: cannot occur in a label and rarely in text


def as_key(secret: str | bytes) -> bytes:
    """Normalise a project secret to bytes (UTF-8 for ``str``)."""
    return secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)


def keyed_hex(secret: str | bytes, *parts: str, length: int = 16) -> str:
    """A hex digest of ``parts`` keyed with ``secret`` (``length`` hex chars)."""
    msg = _SEP.join(parts).encode("utf-8")
    return hmac.new(as_key(secret), msg, hashlib.sha256).hexdigest()[:length]


class KeyedDraw:
    """A reproducible stream of choices derived from ``secret`` and ``parts``."""

    __slots__ = ("_key", "_msg", "_counter", "_buf")

    def __init__(self, secret: str | bytes, *parts: str) -> None:
        self._key = as_key(secret)
        self._msg = _SEP.join(parts).encode("utf-8")
        self._counter = 0
        self._buf = b""

    def _bytes(self, n: int) -> bytes:
        while len(self._buf) < n:
            block = hmac.new(self._key, self._msg + self._counter.to_bytes(4, "big"),
                             hashlib.sha256).digest()
            self._counter += 1
            self._buf += block
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def below(self, n: int) -> int:
        """A number in ``[0, n)``; 64 random bits make the modulo bias negligible."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        return int.from_bytes(self._bytes(8), "big") % n

    def between(self, lo: int, hi: int) -> int:
        """A number in ``[lo, hi]``."""
        return lo + self.below(hi - lo + 1)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def digit(self, *, nonzero: bool = False) -> str:
        return str(self.between(1, 9) if nonzero else self.below(10))

    def letter(self, upper: bool) -> str:
        ch = chr(ord("a") + self.below(26))
        return ch.upper() if upper else ch


def seal(secret: str | bytes, nonce: str, data: bytes) -> str:
    """Encrypt ``data`` for storage beside an export (base64 text).

    XOR with a ``KeyedDraw`` stream of (secret, ``nonce``) plus a keyed tag.
    The nonce must be unique per plaintext (a note's key, digest and
    settings fingerprint): the same nonce is only reused for the same data.
    """
    import base64
    stream = KeyedDraw(secret, "seal", nonce)._bytes(len(data))
    body = base64.b64encode(bytes(a ^ b for a, b in zip(data, stream))).decode("ascii")
    return keyed_hex(secret, "seal-tag", nonce, body, length=16) + ":" + body


def unseal(secret: str | bytes, nonce: str, token: object) -> bytes | None:
    """The data of a ``seal`` token, or ``None`` when it is missing, damaged
    or was sealed under another secret or nonce."""
    import base64
    import binascii
    if not isinstance(token, str) or ":" not in token:
        return None
    tag, body = token.split(":", 1)
    if not hmac.compare_digest(tag, keyed_hex(secret, "seal-tag", nonce, body, length=16)):
        return None
    try:
        raw = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return None
    stream = KeyedDraw(secret, "seal", nonce)._bytes(len(raw))
    return bytes(a ^ b for a, b in zip(raw, stream))
