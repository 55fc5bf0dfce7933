"""`python -m app.bench.falsehits`: replaced spans that are no identifier."""
import json

from app.bench.falsehits import false_hits, main
from bench_brat import write_brat


def test_a_false_hit_is_a_replaced_span_no_gold_span_meets(tmp_path):
    text = "PT IN USOH UNTIL 8/23. SEEN BY DR. OKAFOR. HIGH FIELDS.\n"
    write_brat(tmp_path / "gold", "p001_n001", text, [("DATE", "8/23"), ("NAME", "OKAFOR")])
    write_brat(tmp_path / "pred", "p001_n001", text,
               [("LOCATION", "USOH"), ("DATE", "8/23"), ("NAME", "OKAFOR"), ("NAME", "FIELDS")])
    counts, texts = false_hits(tmp_path / "gold", tmp_path / "pred")
    assert (counts["replaced_spans"], counts["not_identifiers"]) == (4, 2)
    assert counts["clinical_abbreviation"] == 1             # USOH
    assert counts["all_common_words"] == 1                  # FIELDS
    assert counts["not_identifiers_LOCATION"] == counts["not_identifiers_NAME"] == 1


def test_the_command_runs_day_one_on_the_dev_patients_only(tmp_path, capsys):
    # p001 % 5 == 1: one of our dev patients; p002 a training patient
    write_brat(tmp_path / "gold", "p001_n001", "SEEN BY DR. OKAFOR.\n", [("NAME", "OKAFOR")])
    write_brat(tmp_path / "gold", "p002_n001", "SEEN BY DR. PRICE.\n", [("NAME", "PRICE")])
    assert main([str(tmp_path / "gold"), "--patients", "dev"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["patients"], result["notes"]) == ("dev", 1)
    assert result["replaced_spans"] >= 1 and result["not_identifiers"] == 0
