"""The surrogate bench: surrogate words that repeat the original or a known word."""
from app.bench.surrogates import measure
from app.cli.main import main
from app.project import Project
from app.services.lists import add_list_file


def test_no_surrogate_word_repeats_the_original_or_the_lists(tmp_path):
    hospitals = tmp_path / "hospitals.txt"
    hospitals.write_text("Holy Cross\nFranklin Square\nSt. Joseph\n", encoding="utf-8")
    proj = tmp_path / "p.deid"
    assert main(["-q", "new", str(proj), "--labels", "hipaa"]) == 0
    with Project.open(proj) as p:
        add_list_file(p, hospitals, "hospitals")
        text = "Moved from HOLY CROSS to franklin square hosp; Dr Patty Quill saw him."
        doc = p.add_document("a", text, patient_id="A", split="test", status="done")
        for words, label in (("HOLY CROSS", "LOCATION"), ("franklin square hosp", "LOCATION"),
                             ("Patty Quill", "NAME")):
            start = text.index(words)
            p.add_span(doc, start, start + len(words), label)
    with Project.open(proj, readonly=True) as p:
        figures = measure(p, "test")
    assert figures["worded_spans"] == 3 and figures["surrogate_words"] >= 3
    assert figures["words_of_original"] == 0 and figures["words_known"] == 0
