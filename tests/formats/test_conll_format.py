import pytest

from app.core.spans import Document, Span
from app.formats import ImportedDoc, ImportProblem, read_path, write_documents
from app.formats.conll import decode_tags


def spans_text(doc):
    return [(s.text_in(doc.text), s.label) for s in doc.spans]


def test_bio_rebuilds_text_and_offsets(tmp_path):
    (tmp_path / "a.conll").write_text(
        "Jan NNP B-PER\nSmith NNP I-PER\nseen VB O\n\n"
        "MRN NN O\n123 CD B-ID\n\n\n", encoding="utf-8")
    (doc,) = list(read_path(tmp_path, "conll"))
    assert doc.text == "Jan Smith seen\nMRN 123"
    assert spans_text(doc) == [("Jan Smith", "PER"), ("123", "ID")]
    assert doc.spans[0] == Span(0, 9, "PER")


@pytest.mark.parametrize("tags,chunks", [
    (["B-X", "I-X", "B-X", "O", "I-Y"], [(0, 1, "X"), (2, 2, "X"), (4, 4, "Y")]),   # BIO / orphan I
    (["S-X", "B-X", "E-X", "I-X"], [(0, 0, "X"), (1, 2, "X"), (3, 3, "X")]),         # BIOES
    (["U-X", "B-Y", "L-Y"], [(0, 0, "X"), (1, 2, "Y")]),                              # BILOU
    (["I-X", "I-X", "O", "I-Y", "I-X"], [(0, 1, "X"), (3, 3, "Y"), (4, 4, "X")]),    # IO / IOB1
    (["I-X", "B-X"], [(0, 0, "X"), (1, 1, "X")]),                                     # IOB1 split
])
def test_tag_schemes(tags, chunks):
    assert decode_tags(tags) == chunks


def test_docstart_splits_documents_and_bad_line_skips_one(tmp_path):
    (tmp_path / "c.bio").write_text(
        "-DOCSTART- -X- O O\n\nJan B-PER\n\n-DOCSTART- -X- O O\n\nbad\n\n"
        "-DOCSTART- -X- O O\n\nBob S-PER\nok O\n", encoding="utf-8")
    out = list(read_path(tmp_path, "conll"))
    assert [type(x) for x in out] == [ImportedDoc, ImportProblem, ImportedDoc]
    assert out[0].name == "c/0001" and out[2].name == "c/0003"
    assert "document 2" in out[1].reason and "line 7" in out[1].reason
    assert spans_text(out[2]) == [("Bob", "PER")] and out[2].text == "Bob ok"


def test_invalid_tag_is_reported(tmp_path):
    (tmp_path / "c.conll").write_text("Jan PERSON\n", encoding="utf-8")
    (problem,) = list(read_path(tmp_path, "conll"))
    assert "line 1" in problem.reason


def test_writer_uses_canonical_tokens_and_reports_misalignment(tmp_path):
    text = "Seen DrSmith today.\nMRN12345 noted"
    doc = Document("n", text, [Span(7, 12, "PERSON"),      # "Smith" inside "DrSmith"
                               Span(20, 26, "IDN")])       # "MRN123" cuts "12345"
    result = write_documents([doc], tmp_path, "conll")
    lines = (tmp_path / "n.conll").read_text(encoding="utf-8").split("\n")
    assert lines[:5] == ["Seen O", "Dr O", "Smith B-PERSON", "today O", ". O"]
    assert "MRN B-IDN" in lines and "12345 I-IDN" in lines     # widened outward
    assert "1 span not aligned" in result.warnings[0]
