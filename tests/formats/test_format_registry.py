import json

import pytest

from app.core.spans import Document, Span
from app.formats import (BadInputError, ImportedDoc, ImportProblem, detect_format, read_path,
                         write_documents)


def test_mixed_folder_imports_good_notes_and_reports_each_bad_one(tmp_path):
    (tmp_path / "good1.txt").write_text("Jan Smith seen today", encoding="utf-8")
    (tmp_path / "good1.ann").write_text("T1\tPERSON 0 9\tJan Smith\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "good2.txt").write_bytes("Line\r\nBob Lee".encode("utf-8"))
    (tmp_path / "sub" / "good2.ann").write_text("T1\tPERSON 6 13\tBob Lee\n", encoding="utf-8")
    (tmp_path / "latin.txt").write_bytes("Hélène née Noël".encode("latin-1"))
    (tmp_path / "latin.ann").write_text("T1\tPERSON 0 6\tHélène\n", encoding="utf-8")
    (tmp_path / "scan.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01")
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "broken.txt").write_text("Ann Lee", encoding="utf-8")
    (tmp_path / "broken.ann").write_text("T1\tPERSON 0 3\tAnn\nX9 what\n", encoding="utf-8")
    (tmp_path / ".DS_Store").write_bytes(b"\x00\x01")

    assert detect_format(tmp_path) == "brat"
    out = list(read_path(tmp_path))
    docs = {d.name: d for d in out if isinstance(d, ImportedDoc)}
    problems = {p.path.name: p.reason for p in out if isinstance(p, ImportProblem)}
    assert set(docs) == {"good1", "sub/good2", "latin"}
    assert [s.text_in(docs["sub/good2"].text) for s in docs["sub/good2"].spans] == ["Bob Lee"]
    assert docs["latin"].spans == [Span(0, 6, "PERSON")]
    assert "binary" in problems["scan.txt"]
    assert problems["empty.txt"] == "empty file"
    assert "line 2" in problems["broken.ann"]
    assert len(out) == 6


@pytest.mark.parametrize("files,fmt", [
    ({"a.txt": "x"}, "txt"),
    ({"a.txt": "x", "a.ann": ""}, "brat"),
    ({"d/a.jsonl": '{"text": "x"}'}, "jsonl"),
    ({"a.xml": "<r><TEXT>x</TEXT></r>"}, "i2b2"),
    ({"a.conll": "x O\n"}, "conll"),
])
def test_detect_format(tmp_path, files, fmt):
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content, encoding="utf-8")
    assert detect_format(tmp_path) == fmt
    first = sorted(files)[0]
    if not first.endswith(".ann"):
        assert detect_format(tmp_path / first) == fmt


@pytest.mark.parametrize("content,fmt", [("Jan B-PER\nSmith I-PER\n", "conll"),
                                         ('{"text": "Jan"}\n', "jsonl")])
def test_single_file_with_unknown_extension_is_peeked(tmp_path, content, fmt):
    path = tmp_path / "export.data"
    path.write_text(content, encoding="utf-8")
    assert detect_format(path) == fmt
    (doc,) = list(read_path(path))
    assert doc.text == "Jan" + (" Smith" if fmt == "conll" else "")


def test_detect_format_refuses_unknown(tmp_path):
    (tmp_path / "a.png").write_bytes(b"\x89PNG")
    (tmp_path / "notes.xml").write_text("<config/>", encoding="utf-8")
    with pytest.raises(BadInputError):
        detect_format(tmp_path)
    with pytest.raises(BadInputError):
        detect_format(tmp_path / "missing")


@pytest.mark.parametrize("names", [["../evil"], ["/abs"], ["a//b"], ["Note", "note"],
                                   ["a/b:c"], [""]])
def test_writers_refuse_bad_names_before_writing(tmp_path, names):
    docs = [Document("ok", "fine")] + [Document(n, "text") for n in names]
    for fmt in ("brat", "jsonl", "i2b2", "conll", "txt"):
        with pytest.raises(ValueError):
            write_documents(docs, tmp_path / fmt, fmt)
    assert not any(tmp_path.rglob("*"))


def test_writer_refuses_span_beyond_text(tmp_path):
    doc = Document("n", "abc", [Span(1, 9, "X")])
    with pytest.raises(ValueError):
        write_documents([doc], tmp_path, "brat")


def test_unknown_format(tmp_path):
    with pytest.raises(ValueError):
        write_documents([], tmp_path, "docx")
    with pytest.raises(ValueError):
        list(read_path(tmp_path, "docx"))


def test_writer_overwrites_atomically_without_leftovers(tmp_path):
    write_documents([Document("n", "old text")], tmp_path, "jsonl")
    write_documents([Document("n", "new text")], tmp_path, "jsonl")
    assert json.loads((tmp_path / "documents.jsonl").read_text())["text"] == "new text"
    assert [p.name for p in tmp_path.iterdir()] == ["documents.jsonl"]


def test_a_table_beside_notes_is_left_out_without_advice_to_import_it_as_a_note(tmp_path):
    (tmp_path / "p1_n1.txt").write_text("Seen today.", encoding="utf-8")
    (tmp_path / "patients.tsv").write_text("note\tpatient\np1_n1\tp1\n", encoding="utf-8")
    (tmp_path / "readme.md").write_text("# notes", encoding="utf-8")
    out = list(read_path(tmp_path, "txt"))
    reasons = {x.path.name: x.reason for x in out if isinstance(x, ImportProblem)}
    assert [x.name for x in out if isinstance(x, ImportedDoc)] == ["p1_n1"]
    assert reasons["patients.tsv"].startswith("a table (.tsv), not a note: left out")
    assert "rename" not in reasons["patients.tsv"] and "Hospital lists" in reasons["patients.tsv"]
    assert "rename it to .txt" in reasons["readme.md"]
