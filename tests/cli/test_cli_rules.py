"""`deid rules`: list, show, switch and add the rules after the models; a
site's own pattern is in what `deid annotate` writes."""
from __future__ import annotations

import json

from app.cli.main import main
from app.project import Project


def run(*argv):
    return main(["-q", *map(str, argv)])


def test_a_site_switches_a_rule_off_and_adds_its_own_pattern(tmp_path, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    site = tmp_path / "site.json"
    # "kestrel": the site's name for a ward pod, which no shipped rule or model knows.
    site.write_text(json.dumps([{"name": "kestrel-pod", "kind": "ward",
                                 "patterns": [r"\bkestrel\b"], "context": ["to", "in"],
                                 "example": "MOVED TO kestrel POD", "evidence": "our pod names"}]))
    capsys.readouterr()
    assert run("rules", proj, "off", "ordinary-words") == 0
    assert run("rules", proj, "add", site) == 0
    assert "added 1 rule: kestrel-pod" in capsys.readouterr().out
    assert run("rules", proj, "list") == 0
    out = capsys.readouterr().out
    assert any(line.startswith("ordinary-words") and " off " in line for line in out.splitlines())
    assert any(line.startswith("kestrel-pod") and "-> LOCATION" in line and "site" in line
               for line in out.splitlines())
    assert run("rules", proj, "show", "kestrel-pod") == 0
    assert "pattern:  \\bkestrel\\b" in capsys.readouterr().out
    notes, out_dir = tmp_path / "notes", tmp_path / "out"
    notes.mkdir()
    text = "PT MOVED TO kestrel POD OVERNIGHT.\n"
    (notes / "n1.txt").write_text(text, encoding="utf-8")
    assert run("annotate", proj, notes, out_dir) == 0
    ann = (out_dir / "n1.ann").read_text(encoding="utf-8")
    at = text.index("kestrel")
    assert f"LOCATION {at} {at + 7}\tkestrel" in ann
    # The audit report names the rule behind the replacement (its name, never the text).
    report = tmp_path / "report.json"
    assert run("redact", proj, notes, tmp_path / "redacted", "--report", report) == 0
    made_by = json.loads(report.read_text(encoding="utf-8"))["per_note"][0]["made_by"]
    assert made_by == {"english-floor.v1: kestrel-pod": 1}
    html = report.with_suffix(".html").read_text(encoding="utf-8")
    assert "english-floor.v1: kestrel-pod" in html and "kestrel " not in html


def test_a_wrong_rules_file_or_name_exits_1_and_changes_nothing(tmp_path, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"name": "x", "kind": "record_number", "patterns": ["("]}]))
    capsys.readouterr()
    assert run("rules", proj, "add", bad) == 1
    assert "no regular expression" in capsys.readouterr().err
    assert run("rules", proj, "off", "no-such-rule") == 1
    assert run("rules", proj, "add", tmp_path / "missing.json") == 1
    with Project.open(proj, readonly=True) as p:
        assert p.get_setting("rules") is None


def test_rules_off_on_a_project_stops_a_moved_rule_and_list_shows_its_words(tmp_path, capsys):
    from app.services.lists import project_matcher

    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    text = "SEEN BY DR. QUILLFEATHER, THEN WENT TO HOLY FAMILY."

    def rules_found() -> set[str]:
        with Project.open(proj) as project:
            floor, _ = project_matcher(project)
            return {h.rule for h in floor.find(text)}

    assert {"titled-name", "church-named-hospital"} <= rules_found()
    capsys.readouterr()
    assert run("rules", proj, "list") == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("titled-name"))
    assert " on " in line and "words: after_title, not_after_name" in line
    assert run("rules", proj, "show", "titled-name") == 0
    shown = capsys.readouterr().out
    assert "pattern:  title: " in shown and "words:    after_title: " in shown
    assert run("rules", proj, "off", "titled-name") == 0
    assert "titled-name" not in rules_found() and "church-named-hospital" in rules_found()
    assert run("rules", proj, "on", "titled-name") == 0
    assert "titled-name" in rules_found()


def test_a_rule_switched_or_added_says_the_notes_to_do_keep_their_suggestions(tmp_path, capsys):
    """The desktop app suggests the notes to do again after a change of the
    rules; the command line says it is one command away."""
    import json
    proj = tmp_path / "p.deid"
    notes = tmp_path / "in"
    notes.mkdir()
    (notes / "a.txt").write_text("Moved to Jacaranda Ward.\n", encoding="utf-8")
    assert main(["-q", "new", str(proj), "--labels", "paper"]) == 0
    assert main(["-q", "import", str(proj), str(notes), "--no-suggest"]) == 0
    capsys.readouterr()
    assert main(["rules", str(proj), "off", "pager"]) == 0
    assert f"1 note to do keeps the suggestions made before this change: `deid preannotate " \
           f"{proj}`" in capsys.readouterr().out
    assert main(["rules", str(proj), "off", "pager"]) == 0               # nothing changes
    assert capsys.readouterr().out.strip() == "pager: off for this project already"
    rules = tmp_path / "r.json"
    rules.write_text(json.dumps([{"name": "visit", "kind": "date", "patterns": [r"\d{4}"]}]),
                     encoding="utf-8")
    assert main(["rules", str(proj), "add", str(rules)]) == 0
    said = capsys.readouterr().out
    assert "visit: a date takes no label in this project" in said


def test_a_stored_rule_that_backtracks_stops_annotate_and_fails_its_note_in_redact_named(
        tmp_path, capsys):
    """A project from before patterns were tried when added may hold one that
    backtracks without end: annotate stops with one clear error naming the
    rule (it read "internal error (RuntimeError)"), redact fails that note
    saying why, and writes the others."""
    from app.rules.registry import RULES_KEY
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    with Project.open(proj) as p:
        p.set_setting(RULES_KEY, {"added": [{"name": "slow-pod", "kind": "ward",
                                             "patterns": [r"(\w+\s?)+$"]}]})
    notes = tmp_path / "in"
    notes.mkdir()
    (notes / "long.txt").write_text("ab " * 30000 + "!\n", encoding="utf-8")
    (notes / "short.txt").write_text("Seen today.\n", encoding="utf-8")
    capsys.readouterr()
    assert run("annotate", proj, notes, tmp_path / "ann", "--workers", "1") == 1
    err = capsys.readouterr().err
    assert "the site's rule 'slow-pod' takes too long" in err and "internal error" not in err
    assert run("redact", proj, notes, tmp_path / "red", "--workers", "1") == 0
    report = json.loads((tmp_path / "red" / "deid-report.json").read_text(encoding="utf-8"))
    statuses = sorted(n["status"] for n in report["per_note"])
    failed = [n for n in report["per_note"] if n["status"] == "failed"]
    assert statuses == ["done", "failed"] and "slow-pod" in failed[0]["reason"]


def test_a_sites_rules_are_written_out_added_to_another_project_replaced_and_removed(
        tmp_path, capsys):
    """A wrong rule could only be switched off and added again under another
    name, and a site could not take its rules to its next project."""
    a, b = tmp_path / "a.deid", tmp_path / "b.deid"
    for proj in (a, b):
        assert run("new", proj, "--labels", "hipaa") == 0
    site = tmp_path / "site.json"
    rule = {"name": "kestrel-pod", "kind": "ward", "patterns": [r"\bkestrel\b"],
            "example": "TO kestrel POD", "evidence": "our pod names"}
    site.write_text(json.dumps([rule]))
    assert run("rules", a, "add", site) == 0
    assert run("rules", a, "off", "kestrel-pod") == 0
    capsys.readouterr()
    shared = tmp_path / "shared.json"
    assert run("rules", a, "export", shared) == 0
    assert "wrote 1 rule of this project's own to shared.json: kestrel-pod" in \
        capsys.readouterr().out
    assert json.loads(shared.read_text(encoding="utf-8"))["rules"] == [
        {**rule, "context": [], "unless": [], "enabled": False}]
    assert run("rules", b, "add", shared) == 0
    with Project.open(b, readonly=True) as p:
        from app.rules.registry import project_rules
        assert project_rules(p).get("kestrel-pod").enabled is False      # as it was in a
    # A corrected rule of the same name: refused, unless it replaces the project's own.
    site.write_text(json.dumps([{**rule, "patterns": [r"\bkestrel pod\b"]}]))
    capsys.readouterr()
    assert run("rules", a, "add", site) == 1
    assert "add --replace" in capsys.readouterr().err
    assert run("rules", a, "add", "--replace", site) == 0
    assert "(replacing yours of the same name: kestrel-pod)" in capsys.readouterr().out
    with Project.open(a, readonly=True) as p:
        got = project_rules(p).get("kestrel-pod")
        assert got.enabled and [x.regex for x in got.patterns] == [r"\bkestrel pod\b"]
    # Removed: a shipped rule only switches off.
    assert run("rules", a, "remove", "pager") == 1
    assert "switch it off instead" in capsys.readouterr().err
    assert run("rules", a, "remove", "kestrel-pod") == 0
    assert "removed 1 rule: kestrel-pod" in capsys.readouterr().out
    assert run("rules", a, "export", tmp_path / "none.json") == 1
    assert "no rules of its own" in capsys.readouterr().err
    assert not (tmp_path / "none.json").exists()
