"""What the tool wrote in an output folder, so that it never replaces a
file it did not write.

Before a command writes into a folder a person names (``redact``,
``export``), it claims the relative paths it is about to write
(:func:`claim_paths`): a file already at one of them that the tool did not
write refuses the run, unless forced, before anything is written; the
others are appended to :data:`WRITTEN` (JSON Lines, fsynced) before the
first of them is written. A run killed before it could record its notes
still owns the files it wrote, so the next run replaces them and a resume
after ``kill -9`` stays the same as an uninterrupted run. The outputs a
redaction's manifest (:data:`MANIFEST`) names count as the tool's too.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Iterable

from app.errors import UserError
from app.core.words import count

#: A redaction's manifest: one entry per finished note (``app.deid.folder``).
MANIFEST = ".deid-manifest.jsonl"
#: The paths the tool wrote or was about to write in the folder.
WRITTEN = ".deid-written.jsonl"
#: There while a redaction writes into the folder, gone once it finished:
#: a folder holding it is an export a run did not finish (killed, stopped,
#: failed), which a residual-risk review must not be drawn from.
UNFINISHED = ".deid-unfinished"


def _entries(path: Path) -> Iterable[dict]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue                 # a line cut short by a crash
        if isinstance(entry, dict):
            yield entry


def paths_written(folder: Path) -> set[str]:
    """Relative paths the tool wrote or was about to write in ``folder``
    (and the keys of those claimed by key: `claim_paths`)."""
    folder = Path(folder)
    owned = {p for e in _entries(folder / WRITTEN) for k in ("paths", "keyed")
             for p in e.get(k) or () if isinstance(p, str)}
    owned.update(e[k] for e in _entries(folder / MANIFEST) for k in ("output", "spans")
                 if isinstance(e.get(k), str))
    return owned


def claim_paths(folder: Path, rels: Iterable[str], *, force: bool = False,
                key: Callable[[str], str] | None = None) -> None:
    """Claim ``rels`` (relative to ``folder``) for writing.

    Raises ``UserError`` when a file is already at one of them that the
    tool did not write (a person's own ``.ann``, an unrelated
    ``documents.jsonl``), unless ``force``; the message names how many and
    the first (a path in the person's own folder, no note text). Else the
    paths not yet recorded are appended to :data:`WRITTEN`, fsynced; with
    ``key``, as their keys (a redaction may yet find that a note's name
    holds an identifier and write it under another: the folder then keeps
    no trace of the name).
    """
    folder = Path(folder)
    rels = list(dict.fromkeys(rels))
    owned = paths_written(folder)
    mark = key or (lambda rel: rel)
    new = [rel for rel in rels if rel not in owned and mark(rel) not in owned]
    foreign = [rel for rel in new if os.path.lexists(folder / rel)]
    if foreign and not force:
        raise UserError(f"{folder} already holds {count(len(foreign), 'file')} that deid did not "
                        f"write and would replace (e.g. {foreign[0]}); choose an empty folder "
                        f"or pass --force")
    if not new:
        return
    folder.mkdir(parents=True, exist_ok=True)
    record = {"keyed": [key(rel) for rel in new]} if key else {"paths": new}
    with open(folder / WRITTEN, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
