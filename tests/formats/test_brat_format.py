import codecs

from app.core.spans import Document, Span
from app.formats import ImportedDoc, ImportProblem, read_path, write_documents


def write_pair(folder, stem, text, ann, encoding="utf-8"):
    (folder / f"{stem}.txt").write_bytes(text.encode(encoding))
    if ann is not None:
        (folder / f"{stem}.ann").write_text(ann, encoding="utf-8")


def read_one(path):
    (doc,) = list(read_path(path, "brat"))
    return doc


def test_t_lines_and_ignored_lines(tmp_path):
    text = "Jan Smith saw Dr Who on 1/2/2020."
    write_pair(tmp_path, "n", text,
               "T1\tPERSON 0 9\tJan Smith\n"
               "T2\tPERSON 17 20\tWho\r\n"
               "A1\tNegated T1\nR1\tRel Arg1:T1 Arg2:T2\n#1\tAnnotatorNotes T1\tnote\n"
               "N1\tReference T1 Wikipedia:1\tx\n\n")
    doc = read_one(tmp_path)
    assert doc.name == "n"
    assert [(s.start, s.end, s.label) for s in doc.spans] == [(0, 9, "PERSON"), (17, 20, "PERSON")]
    assert doc.meta["brat_ignored"] == {"#": 1, "A": 1, "N": 1, "R": 1}
    assert doc.warnings == []


def test_discontinuous_span_becomes_fragments_with_warning(tmp_path):
    text = "Smith, John and Mary"
    write_pair(tmp_path, "n", text, "T1\tPERSON 0 5;7 11\tSmith John\n")
    doc = read_one(tmp_path)
    assert [(s.start, s.end) for s in doc.spans] == [(0, 5), (7, 11)]
    assert len(doc.warnings) == 1 and "discontinuous" in doc.warnings[0]


def test_text_mismatch_warns_and_keeps_offsets(tmp_path):
    write_pair(tmp_path, "n", "Jan Smith here", "T1\tPERSON 0 3\tBob\n")
    doc = read_one(tmp_path)
    assert doc.spans == [Span(0, 3, "PERSON")]
    assert "line 1" in doc.warnings[0] and "Bob" not in doc.warnings[0]


def test_offsets_beyond_text_is_a_problem(tmp_path):
    write_pair(tmp_path, "n", "short", "T1\tPERSON 2 50\tort\n")
    (problem,) = list(read_path(tmp_path, "brat"))
    assert isinstance(problem, ImportProblem) and "line 1" in problem.reason


def test_malformed_ann_skips_document_with_line_number(tmp_path):
    write_pair(tmp_path, "bad", "Jan Smith", "T1\tPERSON 0 3\tJan\nT2\tPERSON zero 3\tJan\n")
    write_pair(tmp_path, "good", "Jan Smith", "T1\tPERSON 0 9\tJan Smith\n")
    out = list(read_path(tmp_path, "brat"))
    assert isinstance(out[0], ImportProblem) and "line 2" in out[0].reason
    assert out[0].path.name == "bad.ann"
    assert isinstance(out[1], ImportedDoc) and out[1].name == "good"


def test_txt_without_ann_and_orphan_ann(tmp_path):
    write_pair(tmp_path, "plain", "Nothing to see", None)
    (tmp_path / "orphan.ann").write_text("T1\tX 0 1\ta\n")
    out = list(read_path(tmp_path, "brat"))
    assert [type(x) for x in out] == [ImportProblem, ImportedDoc]
    assert out[1].spans == [] and "without matching .txt" in out[0].reason


def test_empty_ann_means_no_spans(tmp_path):
    write_pair(tmp_path, "n", "Some text", "")
    assert read_one(tmp_path).spans == []


def test_bom_counted_offsets_are_mapped(tmp_path):
    # brat (and MEDDOCAN) count a UTF-8 BOM as a character.
    text = "Paciente: Ana López"
    (tmp_path / "n.txt").write_bytes(codecs.BOM_UTF8 + text.encode("utf-8"))
    (tmp_path / "n.ann").write_text("T1\tNOMBRE 11 20\tAna López\n", encoding="utf-8")
    doc = read_one(tmp_path)
    assert doc.text == text
    assert doc.spans[0].text_in(text) == "Ana López"
    assert doc.meta["offset_basis"] == "bom-counted" and doc.warnings == []


def test_crlf_offsets_as_stored_and_as_one(tmp_path):
    text = "Line one\r\nJan Smith\r\nline three Bob"
    write_pair(tmp_path, "raw", text, "T1\tP 10 19\tJan Smith\nT2\tP 32 35\tBob\n")
    # The same annotations computed by a tool that read "\r\n" as "\n".
    write_pair(tmp_path, "lf", text, "T1\tP 9 18\tJan Smith\nT2\tP 30 33\tBob\n")
    docs = {d.name: d for d in read_path(tmp_path, "brat")}
    for doc in docs.values():
        assert doc.text == text
        assert [s.text_in(text) for s in doc.spans] == ["Jan Smith", "Bob"]
        assert doc.warnings == []
    assert docs["lf"].meta["offset_basis"] == "crlf-as-one"


def test_writer_sorted_ids_and_newlines_as_spaces(tmp_path):
    text = "Dr Who\r\nlives at 1 Main\nSt now"
    doc = Document("x/y", text, [Span(17, 30, "ADDRESS"), Span(0, 6, "PERSON")])
    result = write_documents([doc], tmp_path, "brat")
    assert [p.relative_to(tmp_path).as_posix() for p in result.paths] == ["x/y.txt", "x/y.ann"]
    assert (tmp_path / "x/y.txt").read_bytes() == text.encode("utf-8")
    assert (tmp_path / "x/y.ann").read_text() == (
        "T1\tPERSON 0 6\tDr Who\nT2\tADDRESS 17 30\t1 Main St now\n")
    assert not [p for p in tmp_path.rglob(".*")]     # no temp files left


def test_latin1_note_imports_with_warning(tmp_path):
    write_pair(tmp_path, "n", "Hélène vue le 3/4", "T1\tPERSON 0 6\tHélène\n", encoding="cp1252")
    doc = read_one(tmp_path)
    assert doc.spans[0].text_in(doc.text) == "Hélène"
    assert doc.meta["source_encoding"] == "cp1252" and "cp1252" in doc.warnings[0]


def test_single_file_path(tmp_path):
    write_pair(tmp_path, "n", "Jan Smith", "T1\tPERSON 0 9\tJan Smith\n")
    for path in (tmp_path / "n.txt", tmp_path / "n.ann"):
        doc = read_one(path)
        assert doc.name == "n" and doc.spans == [Span(0, 9, "PERSON")]
