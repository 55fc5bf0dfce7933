"""What the training and evaluation services say about their figures."""
from __future__ import annotations

from app.cli.main import main
from app.services.evaluating import sample_size_note
from synth_projects import make_project


def test_cli_train_warns_of_a_small_dev_sample_as_the_train_view_does(tmp_path, capsys):
    """Dev scores from two notes were printed bare by deid train; the Train
    view already said they were too few to trust (issue 18 item 7)."""
    path = make_project(tmp_path / "p.deid", n=10)                 # 2 dev notes
    assert main(["-q", "train", str(path), "--models", "rules", "--budget", "quick"]) == 0
    assert "Small sample: the dev scores come from 2 notes with " in capsys.readouterr().out


def test_sample_size_note_only_below_the_floors():
    assert sample_size_note(5, 30) is None and sample_size_note(None, 3) is None
    assert "2 notes with 40 identifiers" in sample_size_note(2, 40)
    assert "one error moves them by 5.0 points" in sample_size_note(9, 20)


def test_a_miss_says_which_words_stay_visible_and_whether_another_candidate_hides_them():
    from app.core.spans import Span
    from app.services.evaluating import ErrorRow, miss_visibility, together
    text = "Seen by Dr. Ann Lee (617) 555-0100 on 3/4."
    name = Span(text.index("Ann"), text.index("Lee") + 3, "NAME")
    phone = Span(text.index("("), text.index("0100") + 4, "PHONE")
    date = Span(text.index("3/4"), text.index("3/4") + 3, "DATE")
    # The model hides "Ann" but not "Lee", hides the phone but for its opening
    # bracket, and labels the date a phone; the other candidate finds "Lee".
    model = [Span(name.start, name.start + 3, "NAME"),
             Span(text.index("617"), phone.end, "PHONE"), Span(date.start, date.end, "PHONE")]
    other = [Span(text.index("Lee"), name.end, "NAME")]
    misses = [(0, s.start, s.end, s.label) for s in (name, phone, date)]
    seen = miss_visibility([text], misses, [model], [[other]])
    assert seen == [{"words": 2, "visible": 1, "elsewhere": 1},      # Lee; the other finds it
                    {"words": 3, "visible": 0, "elsewhere": 0},      # only "(" shown
                    {"words": 2, "visible": 0, "elsewhere": 0}]      # hidden as a phone
    alone = miss_visibility([text], misses[:1], [model], [])
    assert alone == [{"words": 2, "visible": 1, "elsewhere": 0}]
    unread = miss_visibility([text], misses[:1], [model], None)      # others not read
    assert unread == [{"words": 2, "visible": 1, "elsewhere": None}]
    assert ErrorRow("missed", 1, "n", 0, 1, "NAME", "", "", "", 1, None).shown() == \
        "1 word visible"
    row = ErrorRow("missed", 1, "n", name.start, name.end, "NAME", "", "", "", 1, 0)
    assert row.shown() == "1 word visible; no candidate finds it"
    assert ErrorRow("missed", 1, "n", 0, 1, "NAME", "", "", "", 2, 2).shown() == \
        "2 words visible; another candidate hides them"
    assert ErrorRow("missed", 1, "n", 0, 1, "DATE", "", "", "", 0, 0).shown().startswith("hidden")
    assert ErrorRow("false hit", 1, "n", 0, 1, "DATE", "", "", "").shown() == ""
    # Together the two hide every token of the three identifiers but the bracket.
    joint = together([text], [[name, phone, date]], [[model], [other]], ["NAME", "PHONE", "DATE"])
    assert joint["candidates"] == 2 and joint["notes_leaking"] == 0
    gold_tokens = 2 + 6 + 3           # Ann Lee | ( 617 ) 555 - 0100 | 3 / 4
    assert joint["token_recall"] == (gold_tokens - 1) / gold_tokens
    assert joint["token_precision"] == 1.0


def test_a_false_hit_names_what_made_it_in_the_cli_json_and_the_kept_evaluation(tmp_path, capsys):
    """An engineer reading the false hits learns which rule, list or model
    made each (what to switch off or annotate more of), and the evaluation
    kept for the Results tab after a restart says it too."""
    import json

    from app.project import Project
    from app.services.evaluating import evaluation_summary, stored_evaluation
    path = make_project(tmp_path / "p.deid", n=15)
    text = "Seen on the ward. Call 617-555-0100 with results."          # no gold span
    with Project.open(path) as p:
        note = p.add_document("extra", text, split="test", status="done")
    assert main(["-q", "train", str(path), "--models", "rules", "--budget", "quick"]) == 0
    capsys.readouterr()
    out = tmp_path / "eval.json"
    assert main(["evaluate", str(path), "--json", str(out)]) == 0
    said = capsys.readouterr().out
    data = json.loads(out.read_text())
    fps = data["evaluation"]["errors"]["false_positives"]
    assert len(data["false_hits_made_by"]) == len(fps) >= 1
    phone = text.index("617")
    made = [m for (doc, start, end, label), m in zip(fps, data["false_hits_made_by"])
            if start == phone]
    assert made == ["rules"]
    line = next(l for l in said.splitlines() if "false hits (exactly) by what made them" in l)
    assert "the rules " in line and "617" not in line
    with Project.open(path) as p:
        summary = evaluation_summary(p)
        row = next(e for e in summary["errors"] if e.doc_id == note and e.start == phone)
        assert row.kind == "false hit" and row.made_by == "rules"
        kept = next(e for e in stored_evaluation(p)["errors"]
                    if e.doc_id == note and e.start == phone)
        assert kept.made_by == "rules"


def test_evaluate_warns_when_the_notes_were_split_after_the_model_trained(tmp_path, capsys):
    """`deid split` after training put notes the model had learned from in
    the test split, and evaluate printed perfect figures without a word."""
    import json
    from app.project import Project
    path = make_project(tmp_path / "p.deid", n=20)
    with Project.open(path) as p:
        for info in p.document_infos():
            p.set_document_fields(info.id, split=None)
    assert main(["-q", "train", str(path), "--models", "rules", "--budget", "quick"]) == 0
    assert main(["-q", "split", str(path)]) == 0
    capsys.readouterr()
    assert main(["-q", "evaluate", str(path), "--json", str(tmp_path / "e.json")]) == 0
    said = ("warning: the notes were split after the model in use trained (run 1): test notes "
            "annotated before then were among the notes it learned from")
    assert said in capsys.readouterr().out
    assert json.loads((tmp_path / "e.json").read_text())["warnings"][0].startswith(
        "the notes were split after the model in use trained")
    # Trained again, the test notes are held out: no warning.
    assert main(["-q", "train", str(path), "--models", "rules", "--budget", "quick"]) == 0
    capsys.readouterr()
    assert main(["-q", "evaluate", str(path)]) == 0
    assert "split after the model" not in capsys.readouterr().out
