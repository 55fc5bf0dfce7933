import json
import re

from app.deid.folder import redact_folder
from app.deid.policy import Policy
from app.deid.report import build_report, write_report
from app.deid.rescan import rescan

from deid_fake_model import make_predictor


def test_rescan_catches_a_planted_leftover():
    out = "Seen by Dr Brown. Later JOHN   smith called; Johnson is unrelated. Age 90+."
    leaks = rescan(out, ["John Smith", "John", "Jo", "90+"])
    assert [(lk.start, lk.end, lk.kind) for lk in leaks] == [(24, 36, "identifier")]
    assert out[24:36] == "JOHN   smith"
    assert not hasattr(leaks[0], "text")


def test_rescan_rules_ignore_replacements():
    out = "DOB 12/07/1950, phone 9876 5432."

    def rules(text):
        return [(m.start(), m.end(), "DATE_OR_PHONE") for m in re.finditer(r"[\d/ ]{8,}\d", text)]

    replaced = [(4, 14)]  # the surrogate date
    leaks = rescan(out, [], rules, replaced=replaced)
    assert [(lk.kind, lk.category) for lk in leaks] == [("rule", "DATE_OR_PHONE")]
    assert out[leaks[0].start:leaks[0].end].strip() == "9876 5432"


def test_report_has_no_identifier_text(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    planted = ["John Smith", "Mary Jones", "03/05/2014", "1234567"]
    (src / "John_Smith_note.txt").write_text(
        "John Smith seen 03/05/2014, MRN 1234567. Mary Jones visited.", encoding="utf-8")
    (src / "bad.txt").write_bytes(b"")
    summary = redact_folder(src, tmp_path / "out", make_predictor, Policy(default="surrogate"),
                            secret="s", naming="pseudonymous")
    report = build_report(summary, model_info={"name": "ensemble-vote", "members": 6},
                          evaluation={"strict_f1": 0.93}, policy=Policy(default="surrogate"),
                          settings={"in_dir": str(src), "workers": 1}, timings={"predict": 1.5},
                          version="9.9")
    assert report["totals"]["notes_done"] == 1 and report["totals"]["notes_bad"] == 1
    assert report["per_label"]["PERSON"] == {"spans": 2, "notes": 1}
    assert report["model"]["name"] == "ensemble-vote" and report["tool"]["version"] == "9.9"
    write_report(report, tmp_path / "r.json", tmp_path / "r.html")
    blob = (tmp_path / "r.json").read_text() + (tmp_path / "r.html").read_text()
    for ident in planted + ["John", "Smith", "john_smith", "Mary", "Jones"]:
        assert not re.search(rf"(?<![a-z]){re.escape(ident)}(?![a-z])", blob, re.I), ident
    json.loads((tmp_path / "r.json").read_text())
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert not re.search(r"(src|href)\s*=|<script|@import|url\(", page)
