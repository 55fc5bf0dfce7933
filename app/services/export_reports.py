"""Where an export's audit report is (no Qt): its folder's own
``deid-report.json``, or the file a ``--report`` named elsewhere, which the
project remembers so that `deid audit` weighs that report and signs into it.
"""
from __future__ import annotations

from pathlib import Path

REPORT_STEM = "deid-report"
#: Where each export's report went when ``--report`` put it outside the
#: export's folder (resolved folder -> resolved .json path).
REPORTS_KEY = "export_reports"


def folder_key(folder: Path) -> str:
    """How the project's settings name an export folder: its resolved path."""
    return str(folder.resolve())


def record_report(project, folder, report_json) -> None:
    """Remember where the report of the export in ``folder`` went when it is
    not the folder's own ``deid-report.json``: the audit weighs what that
    report says (its leak scan's doubts) and writes its result into it."""
    folder, report_json = Path(folder), Path(report_json)
    reports = dict(project.get_setting(REPORTS_KEY) or {})
    if report_json.resolve() == (folder / f"{REPORT_STEM}.json").resolve():
        if reports.pop(folder_key(folder), None) is None:
            return
    else:
        reports[folder_key(folder)] = str(report_json.resolve())
    project.set_setting(REPORTS_KEY, reports)


def audit_report_path(project, folder) -> Path:
    """The .html report a finished audit of ``folder`` is written into: the
    export's (`export_report_path`), else the audit's own in the folder."""
    folder = Path(folder)
    export = export_report_path(project, folder)
    return (export if export.is_file() else folder / "audit-report.json").with_suffix(".html")


def export_report_path(project, folder: Path) -> Path:
    """The report of the export in ``folder``: the one its last run wrote
    elsewhere (`record_report`) while it is there, else the folder's own."""
    elsewhere = (project.get_setting(REPORTS_KEY) or {}).get(folder_key(folder))
    if elsewhere and Path(elsewhere).is_file():
        return Path(elsewhere)
    return folder / f"{REPORT_STEM}.json"
