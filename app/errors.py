"""Errors shared by services and front ends."""


class UserError(Exception):
    """A problem the user can fix (bad path, bad option, bad file).

    The CLI prints the message on one line and exits with status 1; the GUI
    shows it in a dialog. Messages never contain identifier text.
    """
