"""Hospital lists in the project file (schema v3)."""
from __future__ import annotations

import pytest

from app.project import Project, ProjectError


def test_lists_round_trip_dedupe_and_remove(tmp_path):
    path = tmp_path / "p.deid"
    with Project.create(path, []) as proj:
        assert not proj.has_lists()
        assert proj.add_plain_list("staff", ["QUILL", "REED", "QUILL"]) == 2
        assert proj.add_plain_list("staff", ["REED"]) == 0                 # already stored
        assert proj.add_list_entries("patients", [("p1", "first_name", "ALEX"),
                                                  ("p1", "last_name", "QUILL"),
                                                  ("p2", "last_name", "MOSS")]) == 3
        with pytest.raises(ProjectError, match="unknown list kind 'nurses'"):
            proj.add_plain_list("nurses", ["X"])
        with pytest.raises(ProjectError, match="patient id"):
            proj.add_list_entries("staff", [("p1", "name", "X")])
    with Project.open(path, readonly=True) as proj:
        assert proj.list_counts() == {"staff": {"entries": 2},
                                      "patients": {"entries": 3, "patients": 2}}
        lists = proj.hospital_lists()
        assert lists.plain == {"staff": ["QUILL", "REED"]}
        assert lists.patients["p1"] == {"first_name": ["ALEX"], "last_name": ["QUILL"]}
        with pytest.raises(ProjectError, match="read-only"):
            proj.remove_list("staff")
    with Project.open(path) as proj:
        assert proj.remove_list("staff") == 2
        assert proj.list_counts() == {"patients": {"entries": 3, "patients": 2}}
        # Counts only: the audit log holds no entry of a list.
        assert not any("QUILL" in str(e.detail) for e in proj.audit_entries())
