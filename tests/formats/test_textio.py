import codecs

import pytest

from app.formats import BadInputError, read_text_file
from app.formats.textio import decode_bytes

NOTE = "Pt: José O’Brien\r\nDOB 03/03/1946\r\n"

ENCODINGS = [
    # (bytes on disk, expected encoding, expected had_bom)
    (NOTE.encode("utf-8"), "utf-8", False),
    (codecs.BOM_UTF8 + NOTE.encode("utf-8"), "utf-8", True),
    (codecs.BOM_UTF16_LE + NOTE.encode("utf-16-le"), "utf-16-le", True),
    (codecs.BOM_UTF16_BE + NOTE.encode("utf-16-be"), "utf-16-be", True),
    (NOTE.encode("cp1252"), "cp1252", False),
]


@pytest.mark.parametrize("data,encoding,had_bom", ENCODINGS,
                         ids=["utf8", "utf8-bom", "utf16le", "utf16be", "cp1252"])
def test_encoding_table(tmp_path, data, encoding, had_bom):
    path = tmp_path / "note.txt"
    path.write_bytes(data)
    decoded = read_text_file(path)
    assert decoded == (NOTE, encoding, had_bom, 0)
    # CRLF kept: offsets computed on the file's characters stay true.
    assert decoded.text.count("\r\n") == 2
    assert decoded.text[4:16] == "José O’Brien"
    assert decoded.text[18:21] == "DOB"      # after a two-character "\r\n"


def test_latin1_file_decodes_as_cp1252(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("Patient: Hélène Müller, né à Noël".encode("latin-1"))
    assert read_text_file(path) == ("Patient: Hélène Müller, né à Noël", "cp1252", False, 0)


def test_non_western_falls_back_to_charset_normalizer():
    # 0x81/0x8D/0x8F/0x90/0x9D are undefined in cp1252, so this cannot be cp1252.
    text = "Пациент Иванов Иван Иванович поступил в отделение кардиологии. " * 4
    data = text.encode("cp866")
    assert b"\x8d" in data or b"\x81" in data or b"\x8f" in data or b"\x90" in data
    decoded = decode_bytes(data)
    assert decoded.text == text


@pytest.mark.parametrize("data,reason", [
    (b"", "empty file"),
    (codecs.BOM_UTF8, "empty file"),
    (b" \r\n\t", "only whitespace"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "NUL"),
    (bytes(range(1, 32)) * 4 + b"abc", "control characters"),
    (codecs.BOM_UTF8 + b"caf\xe9", "utf-8"),
])
def test_bad_inputs(tmp_path, data, reason):
    path = tmp_path / "x.txt"
    path.write_bytes(data)
    with pytest.raises(BadInputError) as err:
        read_text_file(path)
    assert reason in err.value.reason


def test_size_limit_is_configurable(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"a" * 2000)
    assert read_text_file(path, max_bytes=2000).text == "a" * 2000
    with pytest.raises(BadInputError, match="too large"):
        read_text_file(path, max_bytes=1999)


def test_missing_file_is_bad_input(tmp_path):
    with pytest.raises(BadInputError, match="cannot read"):
        read_text_file(tmp_path / "nope.txt")


def test_reason_never_contains_content(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(codecs.BOM_UTF8 + b"SECRETNAME \xff\xfe")
    with pytest.raises(BadInputError) as err:
        read_text_file(path)
    assert "SECRET" not in str(err.value)


def test_a_file_just_over_the_limit_says_by_how_much(tmp_path):
    """"file too large (52.4 MB > limit 52.4 MB)" (issue 35 item 14): bytes."""
    path = tmp_path / "big.txt"
    path.write_bytes(b"a" * 1_000_001)
    with pytest.raises(BadInputError, match=r"1,000,001 bytes > limit 1,000,000 bytes"):
        read_text_file(path, max_bytes=1_000_000)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_its_byte_order_mark_is_read_not_refused_as_binary(encoding):
    # Saved so by some exports: every Latin character beside a NUL.
    text = "Seen by Dr Ann Lee on 03/04/2021.\r\nMRN 1234567, ward 7B. Café.\r\n"
    decoded = decode_bytes(text.encode(encoding))
    assert (decoded.text, decoded.encoding, decoded.had_bom) == (text, encoding, False)
    # A NUL here and there is no text of either kind.
    with pytest.raises(BadInputError, match="NUL"):
        decode_bytes(b"abc\x00def\x00ghi\x00jk")
