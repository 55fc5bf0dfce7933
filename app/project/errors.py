"""Exceptions raised by the project store.

Messages are written for the person using the application (the CLI prints
them and exits with status 1) and never contain note text or identifiers.
"""
from __future__ import annotations


class ProjectError(Exception):
    """A user-level problem with a project file (missing, not a project, ...)."""


class ProjectLockedError(ProjectError):
    """The project is already open for writing in another process."""


class ProjectNotWritableError(ProjectError):
    """The file or its folder cannot be written (permissions, a read-only
    medium, a share without locks): it can still be opened read-only."""


class ProjectVersionError(ProjectError):
    """The file's schema version cannot be used by this version of the code."""
