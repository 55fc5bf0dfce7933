"""Write then read gives back identical text and spans, for every format."""
import pytest

from app.core.spans import Document, Span
from app.formats import FORMATS, ImportedDoc, read_path, write_documents


def _doc(name, text, *marks):
    """Document with spans given as (substring, label); test data only, first occurrence."""
    spans = []
    for sub, label in marks:
        start = text.index(sub)
        spans.append(Span(start, start + len(sub), label))
    return Document(name, text, spans)


def rich_docs():
    return [
        _doc("ward/a1", "Pt: José O’Brien\r\nDOB 03/03/1946 ☺ 😀 Tel 0412 345 678\r\n",
             ("José O’Brien", "PERSON"), ("03/03/1946", "DOB"), ("0412 345 678", "PHONE")),
        _doc("ward/sub/a2", "Seen by Dr Smith at\n12 King St, Sydney.\n\nMRN 12345",
             ("Smith at\n12 King St", "ADDRESS"), ("12345", "IDN")),
        _doc("b3", "No identifiers here & <none> ]]> at all.\n"),
        _doc("b4", "Tab\tseparated\tSmith\tline", ("Smith", "PERSON")),
    ]


def conll_docs():
    # CoNLL keeps no whitespace: texts already in its canonical form
    # (one space between tokens, one sentence per line) survive exactly.
    return [
        _doc("ward/a1", "Pt : José O ’ Brien\nDOB 03 / 03 / 1946",
             ("José O ’ Brien", "PERSON"), ("03 / 03 / 1946", "DOB")),
        _doc("b2", "Seen by Dr Smith Jones\nMRN 12345 , tel 0412 345",
             ("Smith Jones", "PERSON"), ("12345", "IDN"), ("0412 345", "PHONE")),
    ]


def read_all(path, fmt):
    out = list(read_path(path, fmt))
    assert all(isinstance(d, ImportedDoc) for d in out), out
    return {d.name: d for d in out}


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f not in ("txt", "conll")])
def test_round_trip(tmp_path, fmt):
    docs = rich_docs()
    write_documents(docs, tmp_path, fmt)
    back = read_all(tmp_path, fmt)
    assert set(back) == {d.name for d in docs}
    for doc in docs:
        got = back[doc.name]
        assert got.text == doc.text
        assert got.spans == sorted(doc.spans)
        assert got.warnings == []


def test_round_trip_txt(tmp_path):
    docs = rich_docs()
    write_documents(docs, tmp_path, "txt")
    back = read_all(tmp_path, "txt")
    assert {n: d.text for n, d in back.items()} == {d.name: d.text for d in docs}


def test_round_trip_conll(tmp_path):
    docs = conll_docs()
    result = write_documents(docs, tmp_path, "conll", split_sentences=False)
    assert result.warnings == []
    back = read_all(tmp_path, "conll")
    for doc in docs:
        assert back[doc.name].text == doc.text
        assert back[doc.name].spans == sorted(doc.spans)


def test_auto_detection_reads_what_was_written(tmp_path):
    for fmt in FORMATS:
        out = tmp_path / fmt
        write_documents(rich_docs() if fmt != "conll" else conll_docs(), out, fmt)
        assert {type(d) for d in read_path(out)} == {ImportedDoc}
