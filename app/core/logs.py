"""Keeping the model libraries' INFO chatter off the terminal (``-q``).

Used by the CLI, the benchmarks and the training worker processes (which
start with fresh logging and must inherit the parent's choice).
"""
from __future__ import annotations

import logging

#: Model libraries whose INFO lines would otherwise reach the terminal.
CHATTY_LOGGERS = ("stanza", "flair")


def _warnings_only(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.WARNING


def quiet_library_logs() -> None:
    """``-q``: only warnings and errors of Stanza and Flair reach the terminal.

    Levels, handler levels and one logger filter, never a process-wide
    ``logging.disable()``: Stanza's trainer reports progress (and is
    cancelled) through INFO records read by a handler that
    ``app.models.stanza_ner`` puts on the "stanza" logger, whose level it
    sets to INFO while training and restores afterwards. Those records
    still reach that handler; the terminal handlers drop them.
    """
    for handler in logging.getLogger().handlers:       # logging.basicConfig's stderr
        handler.setLevel(max(handler.level, logging.WARNING))
    for name in CHATTY_LOGGERS:
        log = logging.getLogger(name)
        log.setLevel(logging.WARNING)
        for handler in log.handlers:                   # stanza's own, if imported first
            if isinstance(handler, logging.StreamHandler):
                handler.setLevel(max(handler.level, logging.WARNING))
    # Importing flair (later, lazily) reconfigures its logger with dictConfig:
    # level INFO, a stdout handler, no propagation. Filters survive that, and
    # Flair logs on "flair" only. (Stanza's logger gets no filter: it would
    # hide the INFO lines from the progress handler too.)
    flair = logging.getLogger("flair")
    if _warnings_only not in flair.filters:
        flair.addFilter(_warnings_only)


def library_logs_quiet() -> bool:
    """Whether ``quiet_library_logs`` was applied in this process."""
    return _warnings_only in logging.getLogger("flair").filters
