"""`python -m app.bench.dayone`: a new empty project scored on plain notes."""
import json

from app.bench.dayone import main


def test_day_one_prints_one_json_object_of_the_starters_scores(tmp_path, capsys):
    gold = tmp_path / "gold"
    gold.mkdir()
    text = "PT SEEN BY DR. OKAFOR ON 3/14. SON TOBIAS CALLED FROM GLENDALE.\n"
    (gold / "p1_n1.txt").write_text(text, encoding="utf-8")
    spans = [("NAME", "OKAFOR"), ("DATE", "3/14"), ("NAME", "TOBIAS")]
    (gold / "p1_n1.ann").write_text("".join(
        f"T{i}\t{label} {text.index(w)} {text.index(w) + len(w)}\t{w}\n"
        for i, (label, w) in enumerate(spans, 1)), encoding="utf-8")
    (gold / "p1_n2.txt").write_text("NO ACUTE EVENTS OVERNIGHT.\n", encoding="utf-8")
    (gold / "p1_n2.ann").write_text("", encoding="utf-8")

    assert main([str(gold)]) == 0
    result = json.loads(capsys.readouterr().out)       # stdout holds the JSON alone
    assert (result["notes"], result["notes_with_identifiers"]) == (2, 1)
    assert result["tp"] + result["fn"] == 4                 # OKAFOR, 3, 14, TOBIAS
    # the starter and the English floor find the titled name and the date on day one
    assert result["tp"] >= 3 and result["labels"] == "hipaa"
