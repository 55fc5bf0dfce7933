"""Plain list files as a hospital's IT saves them: lines, tables with a
header, UTF-16 from Windows; one clear error otherwise."""
import pytest

from app.lists.io import ListFileError, read_plain_list


def test_a_staff_list_saved_as_a_table_gives_its_name_column(tmp_path):
    """Read line by line, "name,role" made "Katelyn Nichols,consultant" and
    the header staff names, and "Consultant" was replaced in every note."""
    table = tmp_path / "staff.csv"
    table.write_text("name,role\nKatelyn Nichols,consultant\n\"Moss, Cara\",GP\n", encoding="utf-8")
    assert read_plain_list(table) == ["Katelyn Nichols", "Moss, Cara"]
    tabs = tmp_path / "wards.txt"
    tabs.write_text("ward\tfloor\nKestrel\t7\nOsprey\t8\n", encoding="utf-8")
    assert read_plain_list(tabs) == ["Kestrel", "Osprey"]
    one = tmp_path / "one.csv"
    one.write_text("Name\nKatelyn Nichols\n", encoding="utf-8")
    assert read_plain_list(one) == ["Katelyn Nichols"]
    lines = tmp_path / "staff.txt"            # a .txt keeps "Surname, First" whole
    lines.write_text("# staff\nNichols, Katelyn\n\nMoss, Cara\n", encoding="utf-8")
    assert read_plain_list(lines) == ["Nichols, Katelyn", "Moss, Cara"]


def test_a_table_with_no_name_column_is_refused_without_its_content(tmp_path):
    table = tmp_path / "staff.csv"
    table.write_text("Katelyn Nichols,consultant\nCara Moss,GP\n", encoding="utf-8")
    with pytest.raises(ListFileError) as err:
        read_plain_list(table)
    assert "staff.csv is a table of 2 columns" in str(err.value)
    assert "Nichols" not in str(err.value) and "consultant" not in str(err.value)


def test_a_utf16_list_from_windows_is_read(tmp_path):
    """Notepad's "Unicode" was called "not a text file"."""
    path = tmp_path / "wards.txt"
    path.write_bytes("Kestrel Pod\r\nZoë Ward\r\n".encode("utf-16"))
    assert read_plain_list(path) == ["Kestrel Pod", "Zoë Ward"]
