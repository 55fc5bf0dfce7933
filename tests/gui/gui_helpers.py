"""Shared test data for the GUI tests: tiny brat notes."""
from __future__ import annotations

from pathlib import Path

# Three notes of two patients, with brat gold for the first only.
NOTES = {
    "P1_a": ("Seen by Dr Ann Lee on 03/04/2021. MRN 1234567.\nCall Bob Ray on 0412 345 678.",
             [("PERSON", "Ann Lee")]),
    # No title before the name in P1_b: the English floor replaces a titled name.
    "P1_b": ("Follow-up: Bob Ray phoned. Ann Lee reviewed MRN 1234567.", []),
    "P2_a": ("Patient Cara Moss, DOB 01/02/1950, lives at 4 High St Perth.", []),
}


def write_brat(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, (text, spans) in NOTES.items():
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
        lines = []
        for i, (label, surface) in enumerate(spans, 1):
            start = text.index(surface)  # test data only: the fixture plants these strings
            lines.append(f"T{i}\t{label} {start} {start + len(surface)}\t{surface}")
        if lines:  # a note without .ann is unannotated (to do)
            (folder / f"{name}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def doc_id(window, name: str) -> int:
    return next(i.id for i in window.project.document_infos() if i.name == name)


def held_until_cancelled(fn, hold, release=None):
    """``fn(*args, progress=..., cancel=...)`` (a service a worker runs) whose
    progress holds the worker, from the first event for which ``hold(p)`` is
    true, until the run is cancelled, or until the test sets the
    ``threading.Event`` ``release`` when given: a test's Stop or Cancel then
    always finds the run under way, or a test sees it under way before letting
    it finish. Without it, a quiet machine finished the run before the click,
    and the test failed on speed alone (issue 35 item 15). The hold gives up
    after two minutes so that a broken Stop fails the test's own wait
    instead of hanging the suite."""
    def held(*args, progress, cancel, **kwargs):
        def gated(p):
            progress(p)
            if hold(p):
                for _ in range(1200):
                    if cancel.wait(0.1) or (release is not None and release.is_set()):
                        break
        return fn(*args, progress=gated, cancel=cancel, **kwargs)
    return held
