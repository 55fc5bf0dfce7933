"""``deid -q``: Stanza's and Flair's INFO lines stay off the terminal, while a
handler on the "stanza" logger (Stanza training progress and cancel) still
receives them."""
from __future__ import annotations

import io
import logging
import logging.config

import pytest

from app.cli.main import main

NAMES = ("", "stanza", "flair")


@pytest.fixture
def clean_logging():
    """Restore the loggers' levels, handlers, filters and propagation afterwards."""
    saved = {}
    for name in NAMES:
        log = logging.getLogger(name)
        saved[name] = (log.level, list(log.handlers), list(log.filters), log.propagate,
                       [h.level for h in log.handlers])
    yield
    for name, (level, handlers, filters, propagate, levels) in saved.items():
        log = logging.getLogger(name)
        log.setLevel(level)
        log.handlers[:] = handlers
        log.filters[:] = filters
        log.propagate = propagate
        for h, lv in zip(handlers, levels):
            h.setLevel(lv)


def test_quiet_keeps_library_info_off_the_terminal(tmp_path, capsys, clean_logging):
    terminal = io.StringIO()
    root = logging.getLogger()
    root.addHandler(logging.StreamHandler(terminal))           # what basicConfig installs
    assert main(["-q", "new", str(tmp_path / "p.deid")]) == 0
    capsys.readouterr()
    assert logging.root.manager.disable == logging.NOTSET        # never logging.disable()
    stanza = logging.getLogger("stanza")
    assert stanza.level == logging.WARNING

    # Stanza training (app.models.stanza_ner): INFO on the logger, a progress handler.
    seen = []
    progress = logging.Handler(logging.INFO)
    progress.emit = seen.append
    stanza.setLevel(logging.INFO)
    stanza.addHandler(progress)
    stanza.info("ner step 10: loss 1.23")
    stanza.warning("something to know")
    stanza.removeHandler(progress)
    assert [r.getMessage() for r in seen] == ["ner step 10: loss 1.23", "something to know"]
    assert terminal.getvalue() == "something to know\n"

    # Flair, imported later, reconfigures its logger (as flair/__init__.py does).
    logging.config.dictConfig({
        "version": 1, "disable_existing_loggers": False,
        "handlers": {"console": {"level": "INFO", "class": "logging.StreamHandler",
                                 "stream": "ext://sys.stdout"}},
        "loggers": {"flair": {"handlers": ["console"], "level": "INFO", "propagate": False}}})
    flair = logging.getLogger("flair")
    flair.info("epoch 1 - iter 3/10 - loss 0.5")
    flair.warning("flair warning")
    assert capsys.readouterr().out == "flair warning\n"
