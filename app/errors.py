"""Errors shared by services and front ends."""

import os


class UserError(Exception):
    """A problem the user can fix (bad path, bad option, bad file).

    The CLI prints the message on one line and exits with status 1; the GUI
    shows it in a dialog. Messages never contain identifier text.
    """


def environment_problem(exc: BaseException) -> str | None:
    """One line for a failure of the machine rather than of the program
    (a full disk, a read-only file or medium, a permission), else ``None``.

    Such failures are the user's to fix, so the CLI exits 1 with this line
    instead of 2, and the GUI shows it instead of "internal error". Every
    save is one transaction: the project keeps its last save.
    """
    import errno
    import sqlite3

    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        if "disk is full" in text:
            return "the disk is full: free some space and run again; the project keeps its last save"
        if "readonly database" in text or "read-only" in text:
            return "the project file cannot be written here (read-only); use --read-only or copy it"
        return None
    from concurrent.futures.process import BrokenProcessPool
    if isinstance(exc, BrokenProcessPool):
        return ("a worker process died twice while it held the same notes (most often the "
                "memory ran out): run again with fewer --workers; finished notes are kept")
    if isinstance(exc, OSError):
        import os
        where = ""
        if exc.filename is not None:
            where = " (" + os.fsencode(exc.filename).decode("utf-8", "backslashreplace") + ")"
        if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            return (f"the disk is full{where}: free some space and run again; finished work "
                    "is kept")
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return f"permission denied{where}: {exc.strerror}"
    return None


def log_internal_error(exc: BaseException) -> str:
    """Append ``exc``'s traceback to ``deid-error.log`` in the user data
    folder and return the one line to show: ``internal error (Type);
    details in LOG``. The traceback can quote data (file content in an
    exception message), so it goes to that private file, never to a
    terminal or a window."""
    import traceback

    from app.paths import user_data_dir
    log = user_data_dir() / "deid-error.log"
    # Private like the data it may quote: created 0600 (it was 0644).
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.fchmod(fd, 0o600)                 # one an older version made 0644 too
    with open(fd, "a", encoding="utf-8") as fh:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=fh)
    return f"internal error ({type(exc).__name__}); details in {log}"
