"""The project file: one SQLite ``*.deid`` file per project. Imports no Qt."""
from .documents import ADJUDICATED
from .errors import ProjectError, ProjectLockedError, ProjectNotWritableError, ProjectVersionError
from .records import (ArtifactRecord, AuditEntry, DocumentInfo, DocumentRecord,
                      HistoryEntry, RunRecord, SpanCounts, SpanRecord)
from .store import Project

__all__ = ["ADJUDICATED", "ArtifactRecord", "AuditEntry", "DocumentInfo", "DocumentRecord",
           "HistoryEntry", "Project", "ProjectError", "ProjectLockedError", "ProjectNotWritableError",
           "ProjectVersionError", "RunRecord", "SpanCounts", "SpanRecord"]
