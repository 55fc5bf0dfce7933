"""The audit report names the rule behind each span left in clear: counts
by the rule's name travel from the workers through the manifest (a resumed
note keeps them) into the JSON and HTML report, never the text."""
import json
import re

from app.core.prediction import kept_counts
from app.core.spans import Span
from app.deid.folder import MANIFEST, redact_folder
from app.deid.policy import Policy
from app.deid.report import build_report, write_report

from deid_fake_model import make_vetoed_predictor

VETO = "vetoes.v1: ordinary-words"
NOTE = "John Smith was seen by HIGH FIELDS today.\n"


def _redact(src, out, **kw):
    return redact_folder(src, out, make_vetoed_predictor, Policy(default="tag"), secret="s",
                         patient_regex=r"^(pt\d+)_", **kw)


def test_the_report_counts_the_spans_a_veto_left_in_clear_by_its_rule(tmp_path):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    for i in range(2):           # two patients: two batches, redacted in two workers
        (src / f"pt{i}_note.txt").write_text(NOTE, encoding="utf-8")
    summary = _redact(src, out, workers=2, batch=1)
    assert [n.kept_by for n in summary.notes] == [{VETO: 1}, {VETO: 1}]
    assert all("HIGH FIELDS" in (out / n.note).read_text(encoding="utf-8")
               for n in summary.notes)
    entries = [json.loads(line) for line in (out / MANIFEST).read_text().splitlines()]
    assert [e["kept_by"] for e in entries] == [{VETO: 1}, {VETO: 1}]

    again = _redact(src, out, workers=1)                 # resumed: kept from the manifest
    assert [n.status for n in again.notes] == ["resumed", "resumed"]
    report = build_report(again, policy=Policy(default="tag"))
    assert report["kept_by"] == {VETO: 2}
    assert [n["kept_by"] for n in report["per_note"]] == [{VETO: 1}, {VETO: 1}]
    write_report(report, tmp_path / "r.json", tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert f"Left in clear by a rule: {VETO} 2." in page
    assert f"<tr><td>{VETO}</td><td class='n'>2</td></tr>" in page
    blob = (tmp_path / "r.json").read_text(encoding="utf-8") + page
    for ident in ("John", "Smith", "HIGH", "FIELDS"):
        assert not re.search(rf"(?<![a-z]){ident}(?![a-z])", blob, re.I), ident


def test_a_removed_span_that_a_replacement_still_covers_is_not_left_in_clear():
    removed = [(Span(0, 10, "PERSON"), "vetoes.v1: name-part"),
               (Span(20, 25, "PERSON"), VETO), (Span(30, 35, "DATE"), VETO)]
    assert kept_counts(removed, [(0, 4), (31, 33)]) == {VETO: 1}
    assert kept_counts(removed, []) == {"vetoes.v1: name-part": 1, VETO: 2}
