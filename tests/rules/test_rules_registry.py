"""The rules after the models as named data: the shipped file, a project's
switches and its own patterns, and the names spans and removals carry."""
import json

import pytest

from app.core.spans import Span
from app.errors import UserError
from app.lists.floor import SHAPES, Floor
from app.lists.labels import label_map
from app.rules import registry

LABELS, _ = label_map(["NAME", "DATE", "LOCATION", "PHONE", "ID", "AGE"])


def test_every_shipped_rule_is_documented_and_its_code_exists():
    rules = registry.project_rules(None).rules
    assert len({r.name for r in rules}) == len(rules)
    for r in rules:
        assert r.action in (registry.FINDS, registry.VETOES) and r.evidence and r.example
        if r.function:
            assert callable(r.code()), r.name


def test_a_span_names_the_rule_that_made_it_and_a_removal_its_veto():
    text = "Pager #12345. Seen by HIGH FIELDS today."
    removed: list = []
    out = Floor(None, shapes=True).settle(text, [Span(22, 33, "NAME", origin="crf")], LABELS,
                                          removed=removed)
    assert [(text[s.start:s.end], s.origin) for s in out] == [("12345", f"{SHAPES}: pager")]
    assert [(text[s.start:s.end], why) for s, why in removed] == \
        [("HIGH FIELDS", "vetoes.v1: ordinary-words")]


def test_a_rule_switched_off_no_longer_runs():
    text = "Pager #12345. Seen by HIGH FIELDS today."
    rules = registry.merge(registry.shipped_rules(),
                           {"enabled": {"pager": False, "ordinary-words": False}})
    out = Floor(None, shapes=True, rules=rules).settle(text, [Span(22, 33, "NAME")], LABELS)
    assert [text[s.start:s.end] for s in out] == ["HIGH FIELDS"]


def test_a_site_pattern_finds_with_its_context_and_takes_its_kind_label(tmp_path):
    path = tmp_path / "site.json"
    path.write_text(json.dumps([{"name": "site-mrn", "kind": "record_number",
                                 "patterns": [r"\bQ\d{6}\b"], "context": ["mrn"],
                                 "example": "MRN Q123456", "evidence": "our MRN format"}]))
    rules = registry.merge(registry.shipped_rules(),
                           {"added": registry.read_site_rules(path)})
    text = "MRN Q123456 seen by the team today, later moved to bed Q654321."
    out = Floor(None, shapes=True, rules=rules).settle(text, [], LABELS)
    assert [(text[s.start:s.end], s.label, s.origin) for s in out] == \
        [("Q123456", "ID", f"{SHAPES}: site-mrn")]


@pytest.mark.parametrize("entry, says", [
    ({"name": "x", "kind": "record_number", "patterns": ["("]}, "no regular expression"),
    ({"name": "x", "kind": "dates", "patterns": ["a"]}, "kind must be one of"),
    ({"name": "x", "kind": "date", "patterns": ["a*"]}, "matches the empty text"),
    ({"name": "x", "kind": "date", "patterns": [".*"]}, "hit everywhere"),
    ({"name": "x", "kind": "date", "patterns": [r"(\w+\s?)+$"]}, "backtracks without end"),
    ({"name": "x", "kind": "date", "patterns": ["a"], "colour": 1}, "unknown field"),
    ({"name": "x", "kind": "date", "patterns": ["a"], "unless": ["colours"]}, "word sets"),
    ({"name": "x", "kind": "date", "patterns": ["a"], "context": [""]}, "none of them empty"),
])
def test_a_wrong_site_rule_is_refused_with_what_is_wrong(tmp_path, entry, says):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([entry]))
    with pytest.raises(UserError, match=says):
        registry.read_site_rules(path)


def test_a_bad_pattern_is_named_by_its_place_never_echoed(tmp_path):
    """A site may write a patient's name into a pattern: messages name the
    pattern by its place in the rule."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"name": "x", "kind": "patient_name",
                                 "patterns": ["Smith", "John Carrow ("]}]))
    with pytest.raises(UserError) as caught:
        registry.read_site_rules(path)
    assert "pattern 2 is no regular expression" in str(caught.value)
    assert "Carrow" not in str(caught.value)


@pytest.mark.parametrize("raw, says", [(b"", "is empty"), (b"  \n", "is empty"),
                                       (b"\xff\xfe[", "not UTF-8")])
def test_an_empty_or_undecodable_rules_file_says_so(tmp_path, raw, says):
    path = tmp_path / "rules.json"
    path.write_bytes(raw)
    with pytest.raises(UserError, match=says):
        registry.read_site_rules(path)


def test_a_rules_file_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "rules.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(
        [{"name": "ward-x", "kind": "ward", "patterns": ["Jacaranda Ward"]}]).encode())
    assert [e["name"] for e in registry.read_site_rules(path)] == ["ward-x"]


def test_a_site_pattern_that_backtracks_on_a_note_stops_with_the_rule_named():
    """Python's ``re`` would run for hours on a pattern with a repeat inside a
    repeat; a site's pattern gives up within seconds, naming the rule only."""
    rule = registry.merge([], {"added": [{"name": "slow-pod", "kind": "ward",
                                          "patterns": [r"(\w+\s?)+$"]}]}).get("slow-pod")
    with pytest.raises(UserError) as caught:
        rule.finder()("ab " * 30000 + "!")
    assert "slow-pod" in str(caught.value) and "ab ab" not in str(caught.value)
    assert "deid rules PROJECT off slow-pod" in str(caught.value)


def _project_with(tmp_path, text: str, labels=("hipaa",)):
    from app.core.labels import PRESETS
    from app.project import Project
    p = Project.create(tmp_path / "p.deid", list(PRESETS[labels[0]]), language="en")
    p.add_document("n1", text)
    return p


def test_a_rule_that_hits_most_of_the_notes_is_refused(tmp_path):
    with _project_with(tmp_path, "ICU handover. Bed 4. Record no KH-9988776. "
                                 "Jacaranda Ward is closed.\n") as p:
        for pattern in (".+", r"\w+"):
            with pytest.raises(UserError, match="of the text of the notes it was tried on"):
                registry.add_rules(p, [registry.check_site_rule(
                    {"name": "wide", "kind": "record_number", "patterns": [pattern]})])
        assert registry.add_rules(p, [registry.check_site_rule(
            {"name": "kh", "kind": "record_number", "patterns": [r"\bKH-\d{7}\b"]})]) == ["kh"]


def test_a_rule_too_wide_is_refused_before_any_note_is_imported(tmp_path):
    """A site adds its rules first: the bundled sample's letters stand in."""
    from app.core.labels import PRESETS
    from app.project import Project
    with Project.create(tmp_path / "p.deid", list(PRESETS["hipaa"]), language="en") as p:
        with pytest.raises(UserError, match="of the text of the notes it was tried on"):
            registry.add_rules(p, [registry.check_site_rule(
                {"name": "wide", "kind": "record_number", "patterns": [r"\w+"]})])
        assert registry.add_rules(p, [registry.check_site_rule(
            {"name": "kh", "kind": "record_number", "patterns": [r"\bKH-\d{7}\b"]})]) == ["kh"]


def test_two_rules_of_one_name_and_a_taken_name_are_told_apart(tmp_path):
    with _project_with(tmp_path, "Jacaranda Ward\n") as p:
        entry = registry.check_site_rule({"name": "w", "kind": "ward", "patterns": ["Jacaranda"]})
        with pytest.raises(UserError, match="two rules are called w"):
            registry.add_rules(p, [entry, entry])
        with pytest.raises(UserError, match="pager: the name of a shipped rule"):
            registry.add_rules(p, [dict(entry, name="pager")])


def test_a_rule_whose_kind_has_no_label_is_said_to_hide_nothing():
    entries = [{"name": "visit-date", "kind": "date"}, {"name": "kh", "kind": "record_number"}]
    assert registry.without_label(entries, ["PERSON", "ADDRESS", "DOB", "IDN", "PHONE"]) == [
        "visit-date: a date takes no label in this project, so its hits are not replaced, "
        "only suspected by the leak scan"]


def test_a_site_rule_labels_what_it_covers_over_the_model_label():
    """The site's rule is the hospital's word ("KH-" and seven digits is our
    record number): a model's phone span inside its hit takes its label, and
    the phone's word cuts then leave its words alone."""
    from app.core.spans import Span
    rules = registry.merge(registry.shipped_rules(), {"added": [
        {"name": "kh-bed", "kind": "ward", "patterns": [r"Bed \d+\. Record no KH-\d{7}"]}]})
    text = "ICU handover. Bed 4. Record no KH-9988776. Jacaranda Ward is closed."
    start = text.index("KH")
    model = [Span(start, start + 10, "CONTACT", 0.9, "starter")]
    out = Floor(None, shapes=True, rules=rules).settle(text, model, LABELS)
    assert [(text[s.start:s.end], s.label) for s in out] == \
        [("Bed 4. Record no KH-9988776", "LOCATION")]


def test_the_word_sets_of_the_rules_live_in_the_shipped_file_with_their_evidence():
    import importlib
    from app.rules.lexicon import _lexicon, words
    lexicon = _lexicon()
    assert len(lexicon) >= 33
    for name, entry in lexicon.items():
        if entry["used_by"].startswith("rule:"):        # a pattern rule's `unless`
            assert name in registry.project_rules(None).get(entry["used_by"][5:]).unless
        else:
            module, _, attr = entry["used_by"].rpartition(".")
            assert getattr(importlib.import_module(module), attr) == words(name), name
        assert entry["evidence"] and entry["words"] == sorted(set(entry["words"])), name


def test_a_rule_switched_off_makes_an_export_redo_its_notes(tmp_path):
    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.prediction import resolve
    with Project.create(tmp_path / "p.deid", list(PRESETS["hipaa"]), language="en") as p:
        before = resolve(p).identity
        registry.set_enabled(p, "pager", False)
        assert resolve(p).identity != before            # in the resume fingerprint
        assert [e.detail for e in p.audit_entries() if e.event == "rule_switched"] == \
            [{"rule": "pager", "enabled": False}]


def site_hits(tmp_path, pattern: str, text: str, **fields) -> list[str]:
    """What a site's rule of one ``pattern`` (and ``fields``) finds in ``text``."""
    path = tmp_path / "site.json"
    path.write_text(json.dumps([{"name": "site-rule", "kind": "ward", "patterns": [pattern],
                                 "example": "an example", "evidence": "our own", **fields}]))
    site = registry.merge([], {"added": registry.read_site_rules(path)}).get("site-rule")
    return [text[a:b] for a, b in site.finder()(text)]


def test_a_site_pattern_may_use_a_shipped_fragment(tmp_path):
    text = "pod nurse Quarrel aware; pod nurse 12"
    assert site_hits(tmp_path, r"\bpod nurse (?P<hit>{NAME_WORD})", text) == ["Quarrel"]


def test_a_site_pattern_leaves_out_the_words_of_its_unless_sets(tmp_path):
    text = "pod Vandrell, pod Window, pod PICU, pod Zephyrine"
    assert site_hits(tmp_path, r"\bpod (?P<hit>\w+)", text,
                     unless=["common-words", "unit_types"]) == ["Vandrell", "Zephyrine"]


def test_a_pattern_rule_hits_its_group_named_hit_and_the_shipped_ones_are_patterns(tmp_path):
    """A rule that is a pattern alone ships as data (its pattern in the
    file, none in Python); a pattern's group named ``hit`` is what it
    replaces, shipped or a site's own."""
    shipped = registry.project_rules(None)
    for name in ("pager", "ten-digit-phone", "age-over-89", "reference-number", "month-date",
                 "written-year", "church-named-hospital", "hospital-initials"):
        rule = shipped.get(name)
        assert rule.patterns and rule.function is None, name
    text = "moved to bed K12, then bed K12 again; K13"
    assert site_hits(tmp_path, r"\bbed[ \t]+(?P<hit>[A-Z]\d{2})\b", text) == ["K12", "K12"]
    text = "Pager #12345 and PG 23456"
    assert [text[a:b] for a, b in registry.shipped_finder("pager")(text)] == ["12345", "23456"]


def test_a_runs_notes_say_which_rules_the_project_changed(tmp_path):
    """The training summary and the Train view named no rule switched off and
    none of the site's own; only the audit report did."""
    from app.core.labels import PRESETS
    from app.project import Project
    from app.rules.registry import add_rules, check_site_rule, rules_sentence, set_enabled
    with Project.create(tmp_path / "p.deid", list(PRESETS["hipaa"])) as project:
        assert rules_sentence(project) is None                       # as shipped
        set_enabled(project, "eponym", False)
        add_rules(project, [check_site_rule({"name": "kestrel-pod", "kind": "ward",
                                             "patterns": [r"\bkestrel\b"]})])
        assert rules_sentence(project) == (
            "Rules after the models: switched off here: eponym; the site's own: kestrel-pod "
            "(Rules page, `deid rules`).")


def test_a_context_of_one_word_may_be_written_as_a_string_as_a_pattern_may():
    from app.rules.registry import check_site_rule
    entry = check_site_rule({"name": "pod", "kind": "ward", "patterns": r"\bkestrel\b",
                             "context": "to"})
    assert entry["patterns"] == [r"\bkestrel\b"] and entry["context"] == ["to"]


def test_a_context_word_counts_within_five_words_or_forty_characters():
    """A walkthrough's "locker of Mr <a double-barrelled name>: KL4821": the
    cue stood 42 characters before the code, which was left in clear."""
    entry = registry.check_site_rule({"name": "kh-locker", "kind": "record_number",
                                      "patterns": [r"\bKL\d{4}\b"], "context": "locker"})
    find = registry.merge(registry.shipped_rules(), {"added": [entry]}).get("kh-locker").finder()
    long_name = "locker of Mr Bartholomew-Fitzwilliam Smythe: KL4821"
    assert [long_name[a:b] for a, b in find(long_name)] == ["KL4821"]
    assert find("locker: " + "x" * 45 + " KL4821") == [(54, 60)]      # one long word
    assert find("locker one two three four five six seven eight nine KL4821") == []
    assert find("KL4821 by the locker") == []                          # before, not after
