import pytest

from app.core.spans import Document, Span
from app.formats import ImportProblem, read_path, write_documents

I2B2 = (
    '<?xml version="1.0" encoding="UTF-8" ?>\r\n<deIdi2b2>\r\n'
    "<TEXT><![CDATA[Record date: 2067-05-03\r\nJohn Smith, 45 y/o\r\nDr. Ann Lee]]></TEXT>\r\n"
    "<TAGS>\r\n"
    '<DATE id="P0" start="13" end="23" text="2067-05-03" TYPE="DATE" comment="" />\r\n'
    '<NAME id="P1" start="25" end="35" text="John Smith" TYPE="PATIENT" comment="" />\r\n'
    '<AGE id="P2" start="37" end="39" text="45" TYPE="AGE" comment="" />\r\n'
    '<NAME id="P3" start="49" end="56" text="Ann Lee" TYPE="DOCTOR" comment="" />\r\n'
    "</TAGS>\r\n</deIdi2b2>\r\n")


def covered(doc):
    return [(s.text_in(doc.text), s.label) for s in doc.spans]


def test_crlf_file_keeps_text_and_offsets(tmp_path):
    (tmp_path / "100-01.xml").write_bytes(I2B2.encode("utf-8"))
    (doc,) = list(read_path(tmp_path))
    assert doc.text == "Record date: 2067-05-03\r\nJohn Smith, 45 y/o\r\nDr. Ann Lee"
    assert covered(doc) == [("2067-05-03", "DATE"), ("John Smith", "PATIENT"),
                            ("45", "AGE"), ("Ann Lee", "DOCTOR")]
    assert doc.warnings == [] and "offset_basis" not in doc.meta


def test_offsets_from_a_parser_that_normalised_crlf(tmp_path):
    # Same file, offsets computed on the parser's text ("\r\n" -> "\n").
    xml = I2B2.replace('start="25" end="35"', 'start="24" end="34"').replace(
        'start="37" end="39"', 'start="36" end="38"').replace(
        'start="49" end="56"', 'start="47" end="54"')
    (tmp_path / "n.xml").write_bytes(xml.encode("utf-8"))
    (doc,) = list(read_path(tmp_path, "i2b2"))
    assert [c for c, _ in covered(doc)] == ["2067-05-03", "John Smith", "45", "Ann Lee"]
    assert doc.meta["offset_basis"] == "crlf-as-one" and doc.warnings == []


def test_label_from_tag_name(tmp_path):
    (tmp_path / "n.xml").write_text(I2B2, encoding="utf-8")
    (doc,) = list(read_path(tmp_path, "i2b2", label_from="tag"))
    assert [lab for _, lab in covered(doc)] == ["DATE", "NAME", "AGE", "NAME"]


def test_meddocan_style_and_escaped_text(tmp_path):
    xml = ("<?xml version='1.0' encoding='UTF-8'?><MEDDOCAN><TEXT>Calle &amp; "
           "<![CDATA[Mayor 5]]></TEXT><TAGS><LOCATION id=\"T1\" start=\"0\" end=\"13\" "
           "text=\"Calle &amp; Mayor\" TYPE=\"CALLE\"/></TAGS></MEDDOCAN>")
    (tmp_path / "m.xml").write_text(xml, encoding="utf-8")
    (doc,) = list(read_path(tmp_path))
    assert doc.text == "Calle & Mayor 5" and covered(doc) == [("Calle & Mayor", "CALLE")]


@pytest.mark.parametrize("xml,reason", [
    ("<root><TAGS/></root>", "no <TEXT>"),
    ("<r><TEXT><![CDATA[abc]]></TEXT><TAGS><X start='a' end='2'/></TAGS></r>", "tag 1"),
    ("<r><TEXT><![CDATA[abc]]></TEXT><TAGS><X start='1' end='9'/></TAGS></r>", "beyond"),
    ("<r><TEXT><![CDATA[abc]]></TEXT><TAGS><X></TAGS></r>", "malformed XML"),
])
def test_bad_files_are_problems(tmp_path, xml, reason):
    (tmp_path / "n.xml").write_text(xml, encoding="utf-8")
    (problem,) = list(read_path(tmp_path, "i2b2"))
    assert isinstance(problem, ImportProblem) and reason in problem.reason


def test_writer_categories_and_cdata_terminator(tmp_path):
    text = 'a ]]> b\r\n"Ann" <Lee> &\tco'
    doc = Document("n", text, [Span(9, 25, "PATIENT"), Span(0, 1, "CALLE"), Span(2, 5, "ODD")])
    write_documents([doc], tmp_path, "i2b2")
    xml = (tmp_path / "n.xml").read_text(encoding="utf-8")
    assert '<NAME id="P2" start="9" end="25"' in xml
    assert '<LOCATION id="P0"' in xml and '<PHI id="P1"' in xml
    (back,) = list(read_path(tmp_path, "i2b2"))
    assert back.text == text and back.spans == sorted(doc.spans) and back.warnings == []
