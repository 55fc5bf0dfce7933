"""ExportWizard: project documents -> de-identified folder, report, leak re-scan,
cancel and resume (rules only: no training needed)."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from app.core.labels import PRESETS
from app.core.progress import CancelToken, Cancelled
from app.services.exporting import ExportRequest, export_documents, select_documents
from app.gui import export_wizard
from app.gui.export_wizard import ExportWizard
from gui_helpers import held_until_cancelled
from app.project import Project
from app.synth import generate


@pytest.fixture
def project(tmp_path):
    from app.services.starter import STARTER_SETTING
    p = Project.create(tmp_path / "p.deid", list(PRESETS["paper"]))
    p.set_setting(STARTER_SETTING, False)            # no model at all: the rules export
    for i, d in enumerate(generate(12, seed=3)):
        split = "test" if i % 4 == 0 else "train"
        p.add_document(d.name, d.text, patient_id=d.patient_id, split=split,
                       status="done" if i % 3 else "todo", spans=d.spans)
    yield p
    p.close()


@pytest.fixture
def wizard(qtbot, project, monkeypatch):
    from app.gui.qt import QDesktopServices
    w = ExportWizard(project)
    qtbot.addWidget(w)
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    w.opened = opened
    return w


def _notes(folder):
    return sorted(p for p in folder.rglob("*.txt"))


def test_scopes_select_documents(project):
    assert len(select_documents(project)) == 12
    assert len(select_documents(project, "split", "test")) == 3
    assert len(select_documents(project, "split", "none")) == 0
    assert len(select_documents(project, "status", "todo")) == 4


def test_export_is_read_from_the_store_and_names_carry_no_patient_id(project, tmp_path):
    outcome = export_documents(project, ExportRequest(tmp_path / "out", rules_only=True))
    names = [p.relative_to(tmp_path / "out").as_posix() for p in _notes(tmp_path / "out")]
    # The documents' own names, no folder per patient (a patient key in a path).
    assert sorted(names) == sorted(f"{i.name}.txt" for i in select_documents(project))
    assert outcome.summary.count("done") == 12
    # Nothing was staged in a temporary folder.
    assert not list(Path(tempfile.gettempdir()).glob("deid-export-*"))


def test_wizard_exports_a_split_with_report_and_leak_scan(wizard, qtbot, project, tmp_path):
    w = wizard
    assert w.rules_only.isChecked() and not w.rules_only.isEnabled()   # no model yet
    w.set_scope("split", "test")
    assert w.count_label.text() == "3 documents"
    w.go(1)
    assert not w.next_button.isEnabled()                 # no folder yet
    # The notes are named with their patient ids ("P0001_..."): named
    # pseudonymously unless the person chooses otherwise.
    assert w.naming_box.currentData() == "pseudonymous"
    assert w.naming_hint.text() == ("3 notes are named with their patient id: pseudonymous "
                                    "names keep it out of the export.")
    out = tmp_path / "out"
    w.folder_edit.setText(str(out))
    w.strategy_box.setCurrentIndex(w.strategy_box.findData("bracket"))
    assert w.next_button.isEnabled()
    with qtbot.waitSignal(w.exported, timeout=120000) as blocker:
        assert w.start_export()
    outcome = blocker.args[0]
    notes = _notes(out)
    assert len(notes) == 3 and outcome.documents == 3
    assert all(p.stem.startswith("note-") for p in notes)
    text = "".join(p.read_text(encoding="utf-8") for p in notes)
    assert "[PHONE]" in text or "[IDN]" in text
    assert outcome.report_html == out / "deid-report.html" and outcome.report_html.is_file()
    report = json.loads(outcome.report_json.read_text(encoding="utf-8"))
    assert report["totals"]["notes_done"] == 3 and report["policy"]["default"] == "bracket"
    assert w.stack.currentIndex() == 3
    assert "Leak scan" in w.summary_label.text()
    assert str(outcome.leaks) in w.summary_label.text() or "nothing suspected" in w.summary_label.text()
    w.open_button.click()
    assert [u.toLocalFile() for u in w.opened] == [str(outcome.report_html)]
    assert project.audit_entries(limit=1)[0].event == "export_redacted"


def test_same_names_chosen_keep_the_patient_ids_and_the_wizard_says_so(wizard, qtbot, project,
                                                                        tmp_path):
    w = wizard
    w.go(1)
    w.naming_box.setCurrentIndex(w.naming_box.findData("same"))
    w.naming_box.activated.emit(w.naming_box.currentIndex())     # as a person's choice
    assert w.naming_hint.text() == ("12 notes are named with their patient id: under the same "
                                    "names the exported files keep it.")
    w.go(0)
    w.go(1)                                  # back and forth: the person's choice stays
    assert w.naming_box.currentData() == "same"
    w.folder_edit.setText(str(tmp_path / "out"))
    with qtbot.waitSignal(w.exported, timeout=120000):
        w.start_export()
    assert sorted(p.stem for p in _notes(tmp_path / "out")) == sorted(
        i.name for i in select_documents(project))


def test_pseudonymous_names(wizard, qtbot, project, tmp_path):
    wizard.folder_edit.setText(str(tmp_path / "out"))
    wizard.naming_box.setCurrentIndex(wizard.naming_box.findData("pseudonymous"))
    with qtbot.waitSignal(wizard.exported, timeout=120000):
        wizard.start_export()
    names = [p.name for p in _notes(tmp_path / "out")]
    assert len(names) == 12 and all(n.startswith("note-") for n in names)


def test_cancel_then_resume_skips_finished_notes(wizard, qtbot, project, tmp_path, monkeypatch):
    out = tmp_path / "out"
    # Deterministic partial export: cancel after the first note is written.
    token = CancelToken()
    with pytest.raises(Cancelled):
        export_documents(project, ExportRequest(out, rules_only=True),
                         progress=lambda p: token.cancel(), cancel=token)
    assert len(_notes(out)) == 1
    # The wizard's Cancel stops its worker too and offers to resume. The
    # worker waits for Cancel at its first event, however fast the machine.
    monkeypatch.setattr(export_wizard, "export_documents",
                        held_until_cancelled(export_documents, lambda p: True))
    wizard.folder_edit.setText(str(out))
    with qtbot.waitSignal(wizard.cancelled, timeout=120000):        # not a failure
        wizard.start_export()
        wizard.cancel()
    assert wizard.start_button.text() == "Resume export"
    monkeypatch.setattr(export_wizard, "export_documents", export_documents)
    with qtbot.waitSignal(wizard.exported, timeout=120000) as blocker:
        wizard.start_export()
    totals = blocker.args[0].report["totals"]
    assert totals["notes_resumed"] >= 1
    assert totals["notes_done"] + totals["notes_resumed"] == 12
    assert len(_notes(out)) == 12


def test_the_report_opens_inside_the_app_where_no_browser_opens_it(wizard, project, tmp_path,
                                                                   qtbot, monkeypatch):
    """Issue 34 item 8: "Open audit report" did nothing where no browser is set."""
    from app.gui.qt import QDesktopServices, Qt
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)
    wizard.folder_edit.setText(str(tmp_path / "out"))
    with qtbot.waitSignal(wizard.exported, timeout=60000):
        assert wizard.start_export()
    qtbot.mouseClick(wizard.open_button, Qt.LeftButton)
    dialog = wizard.report_dialog
    assert dialog is not None and dialog.isVisible()
    assert "No web browser opened the report" in dialog.note.text()
    assert "Residual risk" in dialog.browser.toPlainText()
    dialog.close()
