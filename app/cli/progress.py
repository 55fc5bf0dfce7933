"""Render core progress reports on a terminal (a single updating line)."""
from __future__ import annotations

import sys

from app.core.progress import Progress, Throttle


class TerminalProgress:
    """A ``ProgressFn`` drawing a bar on stderr: ~10 Hz on a terminal, a line
    every 5 s in a log (milestones always; see ``Throttle``)."""

    def __init__(self, stream=None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._throttle = Throttle(0.1 if self._tty else 5.0)

    def __call__(self, p: Progress) -> None:
        if self.quiet or not self._throttle(p):
            return
        final = p.fraction >= 1.0
        width = 24
        filled = int(round(width * max(0.0, min(1.0, p.fraction))))
        bar = "#" * filled + "-" * (width - filled)
        parts = [f"{p.stage:<8}", f"[{bar}]", f"{100 * p.fraction:5.1f}%"]
        if p.model:
            parts.append(p.model)
        if p.epoch is not None:
            parts.append(f"epoch {p.epoch}")
        if p.loss is not None:
            parts.append(f"loss {p.loss:.3f}")
        if p.dev_f1 is not None:
            parts.append(f"dev F1 {p.dev_f1:.3f}")
        if p.eta_s is not None:
            parts.append(f"ETA {int(p.eta_s) // 60}m{int(p.eta_s) % 60:02d}s")
        if p.message:
            parts.append(p.message)
        line = " ".join(parts)
        if self._tty:
            self.stream.write("\r\x1b[K" + line[:160])
            if final:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self._tty and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()
