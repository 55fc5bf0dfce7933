import json

from app.core.spans import Document, Span
from app.formats import ImportedDoc, ImportProblem, read_path, write_documents


def test_bad_line_is_reported_and_import_goes_on(tmp_path):
    lines = [
        json.dumps({"id": "n1", "text": "Jan Smith", "spans": [
            {"start": 0, "end": 9, "label": "PERSON", "token_start": 0, "token_end": 1}]}),
        '{"text": "broken',
        json.dumps({"text": "Bob", "spans": [{"start": 0, "end": 9, "label": "PERSON"}]}),
        "",
        json.dumps({"name": "n4", "text": "MRN 1", "entities": [[4, 5, "IDN"]],
                    "meta": {"ward": 3}, "patient_id": "p1", "split": "dev"}),
        json.dumps({"text": "Tel 1", "label": [[4, 5, "PHONE"]]}),
    ]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = list(read_path(tmp_path))
    assert [type(x) for x in out] == [ImportedDoc, ImportProblem, ImportProblem,
                                      ImportedDoc, ImportedDoc]
    assert "line 2" in out[1].reason and "bad JSON" in out[1].reason
    assert "line 3" in out[2].reason
    assert out[0].name == "n1" and out[0].spans == [Span(0, 9, "PERSON")]
    assert out[3].spans == [Span(4, 5, "IDN")]
    assert out[3].meta == {"ward": 3, "patient_id": "p1", "split": "dev"}
    assert out[3].to_document().patient_id == "p1"
    assert out[4].name == "d/000006" and out[4].spans == [Span(4, 5, "PHONE")]


def test_span_text_mismatch_warns(tmp_path):
    (tmp_path / "d.jsonl").write_text(json.dumps(
        {"text": "Jan Smith", "spans": [{"start": 0, "end": 3, "label": "P", "text": "Bob"}]}))
    (doc,) = list(read_path(tmp_path, "jsonl"))
    assert doc.spans == [Span(0, 3, "P")] and "line 1" in doc.warnings[0]


def test_json_array_file(tmp_path):
    (tmp_path / "d.json").write_text(json.dumps(
        [{"text": "A"}, {"text": "Jan", "spans": [{"start": 0, "end": 3, "label": "P"}]}]))
    out = list(read_path(tmp_path))
    assert [d.text for d in out] == ["A", "Jan"]


def test_writer_one_file_keeps_crlf_and_patient(tmp_path):
    doc = Document("a/b", "Jan\r\nSmith", [Span(5, 10, "P")], patient_id="p9", split="train",
                   meta={"k": 1})
    result = write_documents([doc], tmp_path, "jsonl")
    assert result.paths == [tmp_path / "documents.jsonl"]
    obj = json.loads((tmp_path / "documents.jsonl").read_text(encoding="utf-8"))
    assert obj == {"name": "a/b", "text": "Jan\r\nSmith", "meta": {"k": 1},
                   "spans": [{"start": 5, "end": 10, "label": "P"}],
                   "patient_id": "p9", "split": "train"}


def test_a_predicted_span_says_what_made_it_and_reads_back(tmp_path):
    """`deid annotate --format jsonl` wrote no origin: an engineer could not
    tell which rule or model made a span."""
    text = "Seen at Kestrel Ward by Dr Quill."
    doc = Document("n1", text, [Span(8, 20, "LOCATION", origin="english-floor.v1: kestrel-wards"),
                                Span(27, 32, "NAME")])
    write_documents([doc], tmp_path, "jsonl")
    line = json.loads((tmp_path / "documents.jsonl").read_text(encoding="utf-8"))
    assert line["spans"] == [
        {"start": 8, "end": 20, "label": "LOCATION", "origin": "english-floor.v1: kestrel-wards"},
        {"start": 27, "end": 32, "label": "NAME"}]
    [back] = [d for d in read_path(tmp_path, "jsonl") if isinstance(d, ImportedDoc)]
    assert [(s.start, s.end, s.label) for s in back.spans] == [(8, 20, "LOCATION"), (27, 32, "NAME")]
