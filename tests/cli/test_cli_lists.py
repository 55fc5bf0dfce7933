"""`deid lists`: add, show, remove; bad files exit 1 without a value in the message."""
from __future__ import annotations

from app.cli.main import main
from app.project import Project


def run(*argv):
    return main(["-q", *map(str, argv)])


def test_lists_add_show_remove(tmp_path, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    table = tmp_path / "pt.csv"
    table.write_text("ID,FIRST,SURNAME,BORN\np1,Ottoline,Varga,1946-03-04\n"
                     "p2,Ivo,Hargreave,\n", encoding="utf-8")
    staff = tmp_path / "staff.txt"
    staff.write_text("QUILLAN\n# a comment\n\nTibbs\n", encoding="utf-8")
    capsys.readouterr()
    assert run("lists", proj, "add", table, "--kind", "patients",
               "--map", "patient_id=ID", "first_name=FIRST", "last_name=SURNAME", "dob=BORN") == 0
    assert run("lists", proj, "add", staff, "--kind", "staff") == 0
    assert run("lists", proj, "add", staff, "--kind", "staff") == 0
    out = capsys.readouterr().out
    assert "patients: read 5 entries of 2 patients (dob, first_name, last_name); 5 new" in out
    assert "staff: read 2 entries; 0 new, 2 already there" in out
    assert run("lists", proj, "show") == 0
    out = capsys.readouterr().out
    assert "patients         5 entries of 2 patients" in out and "staff            2 entries" in out
    assert "staff_name -> NAME" in out and "hospital -> LOCATION" in out
    assert "other -> ID" in out and "no label for" not in out     # a reference number is an ID
    for value in ("Varga", "QUILLAN", "Tibbs", "1946"):                # counts only
        assert value not in out
    wards = tmp_path / "wards.txt"
    wards.write_text("Kestrel Ward\n", encoding="utf-8")
    assert run("lists", proj, "add", wards, "--kind", "wards") == 0
    assert run("lists", proj, "show") == 0
    assert "wards            1 entry\n" in capsys.readouterr().out          # not "1 entries"
    assert run("lists", proj, "remove", "--kind", "wards") == 0
    assert run("lists", proj, "remove", "--kind", "staff") == 0
    with Project.open(proj, readonly=True) as p:
        assert p.list_counts() == {"patients": {"entries": 5, "patients": 2}}
        assert not any("Varga" in str(e.detail) for e in p.audit_entries())


def test_lists_bad_input_exits_1_with_one_clear_line(tmp_path, capsys):
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    table = tmp_path / "pt.csv"
    table.write_text("ID,SURNAME\np1,Varga\np2,Moss,extra\n", encoding="utf-8")
    no_id = tmp_path / "noid.csv"
    no_id.write_text("NAME,SURNAME\nOttoline,Varga\n", encoding="utf-8")
    capsys.readouterr()
    before = proj.read_bytes()
    assert run("lists", proj, "add", table, "--kind", "patients", "--map", "last_name=NOPE") == 1
    assert run("lists", proj, "add", table, "--kind", "patients", "--map", "colour=ID") == 1
    assert run("lists", proj, "add", table, "--kind", "patients") == 1           # ragged row
    assert run("lists", proj, "add", no_id, "--kind", "patients") == 1           # no id column
    assert run("lists", proj, "add", tmp_path / "missing.txt", "--kind", "staff") == 1
    assert run("lists", proj, "add", table, "--kind", "staff", "--map", "last_name=ID") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "deid: error: pt.csv has no column 'NOPE' (mapped to last_name)",
        "deid: error: --map 'colour': unknown field (fields: patient_id, first_name, last_name, "
        "other_names, dob, record_numbers, phones, addresses)",
        "deid: error: pt.csv line 3: 3 cells, the header has 2",
        "deid: error: noid.csv has no patient id column: map one with --map patient_id=COLUMN",
        f"deid: error: no such list file: {tmp_path / 'missing.txt'}",
        "deid: error: --map is for the patient table (--kind patients) only"]
    assert proj.read_bytes() == before                    # nothing stored


def test_columns_read_into_no_field_are_named_with_the_mapping_to_read_them(tmp_path, capsys):
    """`ID,FIRST,SURNAME,HOME` lost the phones without a word (issue 35 item 12)."""
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    table = tmp_path / "pt.csv"
    table.write_text("ID,FIRST,SURNAME,HOME\np1,Ottoline,Varga,0412 345 678\n", encoding="utf-8")
    capsys.readouterr()
    assert run("lists", proj, "add", table, "--kind", "patients") == 0
    out = capsys.readouterr().out
    assert "columns not read: HOME (to read one, add it again with --map FIELD=HOME" in out
    assert "phones" in out and "0412" not in out and "Varga" not in out
    assert run("lists", proj, "add", table, "--kind", "patients", "--map", "phones=HOME") == 0
    out = capsys.readouterr().out
    assert "columns not read" not in out and "1 new" in out


def test_mixed_line_endings_and_a_cell_of_two_lines_are_read(tmp_path, capsys):
    """Mixed CR/CRLF/LF gave csv's raw "new-line character seen in unquoted
    field" message; a cell of two lines (a spreadsheet's Alt+Enter) holds two
    values (issue 35 item 12)."""
    proj = tmp_path / "p.deid"
    assert run("new", proj) == 0
    table = tmp_path / "pt.csv"
    table.write_bytes(b'ID,FIRST,SURNAME,PHONE\rp1,Ottoline,Varga,"0412 345 678\r\n'
                      b'0412 345 679"\r\np2,Ivo,Hargreave,\n')
    capsys.readouterr()
    assert run("lists", proj, "add", table, "--kind", "patients") == 0
    assert "read 6 entries of 2 patients (first_name, last_name, phones)" in capsys.readouterr().out
