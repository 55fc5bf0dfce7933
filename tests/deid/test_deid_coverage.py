"""What a label set protects against the HIPAA Safe Harbor list."""
from app.core.labels import PRESETS
from app.deid.coverage import SAFE_HARBOR, coverage, rule_gaps
from app.deid.policy import default_kind


def _names(preset):
    return [label.name for label in PRESETS[preset]]


def test_every_safe_harbor_item_gets_a_row():
    rows = coverage(_names("paper"))
    assert [r.key for r in rows] == [k for k, _ in SAFE_HARBOR]
    status = {r.key: r.status for r in rows}
    assert status["A"] == "protected" and status["C"] == "partly"      # DOB: birth dates only
    assert status["F"] == "in clear" and status["C+"] == "in clear"
    assert status["P"] == status["Q"] == "not text"


def test_paper_labels_leave_emails_to_the_rules_in_clear():
    gaps = {g.category: g.what for g in rule_gaps(_names("paper"))}
    assert gaps == {"DATE": "dates other than dates of birth", "AGE": "ages",
                    "EMAIL": "e-mail addresses", "URL": "web addresses", "IP": "IP addresses"}
    assert rule_gaps(_names("hipaa")) == [] and rule_gaps(_names("extended")) == []


def test_counted_gaps_keep_only_what_the_notes_hold():
    gaps = rule_gaps(_names("paper"), hits={"EMAIL": 3, "PHONE": 9})
    assert [(g.category, g.hits) for g in gaps] == [("EMAIL", 3)]
    assert "the rules find 3 in the project's notes" in gaps[0].sentence


def test_a_project_kind_table_decides():
    # A custom label the project maps to the e-mail kind closes that gap.
    def kind_for(label):
        return "email" if label == "MAIL" else default_kind(label)
    assert "EMAIL" in {g.category for g in rule_gaps(_names("paper") + ["MAIL"])}
    assert "EMAIL" not in {g.category for g in rule_gaps(_names("paper") + ["MAIL"], kind_for)}
