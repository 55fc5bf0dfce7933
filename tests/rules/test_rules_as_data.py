"""The English rules' patterns and word sets are data of the shipped file
(``resources/rules/en.json``): each built-in rule's expressions are named
and described there, the Python keeps the engine, and a rule switched off
in the registry or for a project stops. Invented text only."""
from __future__ import annotations

import json
import re

from app.core.spans import Span
from app.lists.floor import Floor
from app.lists.labels import label_map
from app.rules import registry
from app.rules.lexicon import _lexicon

LABELS, _ = label_map(["NAME", "DATE", "LOCATION", "HOSPITAL", "PHONE", "ID", "AGE"])

# Invented ward-note lines, each with what one moved rule finds in it.
FOUND = {
    "titled-name": ("SEEN BY DR. QUILLFEATHER TODAY.", ["QUILLFEATHER"]),
    "church-named-hospital": ("WENT TO HOLY FAMILY WITH FEVER.", ["HOLY FAMILY"]),
    "hospital-initials": ("TRANSFER FROM QRGH, BY WSMC, TO HIGH 80S; HGH GIVEN.",
                          ["QRGH", "WSMC"]),
    "numeric-date": ("LAST ECHO 9/2/92, TREATMENTS 10/03/10/04.", ["9/2/92", "10/03/10/04"]),
    "history-year": ("PMHX: CVA IN 94 AND 00.", ["94", "00"]),
    "credentialed-name": ("CALLED B. ZORVANDER MD RE K+.", ["B. ZORVANDER"]),
    "initialed-name": ("SEEN WITH p. quorravane TODAY.", ["p. quorravane"]),
}


def found(rule: str, text: str) -> list[str]:
    return [text[a:b] for a, b in registry.shipped_finder(rule)(text)]


def test_every_shipped_pattern_is_named_described_and_compiles_and_its_words_exist():
    lexicon = _lexicon()
    data = json.loads(registry.shipped_path().read_text(encoding="utf-8"))
    for name, f in data["fragments"].items():
        assert re.fullmatch(r"[A-Z][A-Z_]*", name) and f["about"], name
        re.compile(f["regex"])
    for rule in registry.project_rules(None).rules:
        # patterns alone, or logic that names its code
        assert rule.function or (rule.action == registry.FINDS and rule.patterns), rule.name
        names = [p.name for p in rule.patterns]
        assert all(names) and len(set(names)) == len(names), rule.name
        for p in rule.patterns:
            assert p.about or not rule.function, (rule.name, p.name)
            assert "{" + "}" not in registry.expand(p.regex)
            p.compiled()
        assert set(rule.lists) <= set(lexicon), rule.name
    # every word set is read by a rule that says so (`deid rules show` lists it)
    assert {name for r in registry.project_rules(None).rules for name in r.lists} == set(lexicon)


def test_the_built_in_rules_read_their_expressions_from_the_shipped_file():
    from app.lists import floor
    from app.rules import nursing, nursing_names, vetoes

    assert nursing_names._TITLED_RE is registry.shipped_pattern("titled-name", "title")
    assert nursing._HISTORY_YEAR_RE is registry.shipped_pattern("history-year", "item-year")
    assert vetoes._EPONYM_AFTER_RE is registry.shipped_pattern("eponym", "noun-after")
    assert floor._POSSESSIVE_RE is registry.shipped_pattern("punctuation-cuts", "possessive")
    # a fragment is written out where a pattern names it
    assert "{NAME_WORD}" in registry.project_rules(None).get("titled-name").patterns[0].regex
    assert registry.fragment("NAME_WORD") in nursing_names._TITLED_RE.pattern


def test_the_moved_rules_find_what_they_found_in_python():
    for rule, (text, hits) in FOUND.items():
        assert found(rule, text) == hits, rule


def test_a_moved_rule_switched_off_in_the_registry_no_longer_finds():
    text = " ".join(t for t, _ in FOUND.values())
    on = Floor(None, shapes=True).find(text)
    assert {h.rule for h in on} >= {"titled-name", "church-named-hospital"}
    rules = registry.merge(registry.shipped_rules(),
                           {"enabled": {"titled-name": False, "church-named-hospital": False}})
    off = Floor(None, shapes=True, rules=rules).find(text)
    assert {h.rule for h in off} == {h.rule for h in on} - {"titled-name", "church-named-hospital"}


def test_a_moved_veto_switched_off_for_a_project_keeps_the_span(tmp_path):
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.lists import project_matcher

    text = "DOUGLAS POUCH CLEAR."
    span = Span(0, 7, "NAME", origin="crf")
    with Project.create(tmp_path / "p.deid", list(PRESETS["hipaa"]), language="en") as project:
        floor, labels = project_matcher(project)
        assert floor.settle(text, [span], labels) == []
        registry.set_enabled(project, "eponym", False)
        floor, labels = project_matcher(project)
        assert [(s.start, s.end) for s in floor.settle(text, [span], labels)] == [(0, 7)]


def test_show_names_a_moved_rules_patterns_and_words():
    rule = registry.project_rules(None).get("titled-name")
    lines = registry.rule_detail(rule, ["NAME"])
    assert any(line.startswith("pattern:  title: ") for line in lines)
    assert any(line.startswith("fragment: {NAME_WORD} = ") for line in lines)
    assert any(line.startswith("words:    after_title: ") for line in lines)
    listed = registry.rule_lines(registry.project_rules(None), ["NAME"])
    assert any(line.startswith("titled-name") and "words: after_title, not_after_name" in line
               for line in listed)
