"""The bad-input corpus: small, odd or broken inputs, generated (import as a
plain module, or ``python tests/services/bad_inputs.py OUT`` to write it).

Each case is a folder holding one odd thing and a *control* note that is
fine, in the same format: whatever the odd thing does, the command must end
with exit 0 or 1 (one clear line), never 2, and the control note must be
imported whole (nothing lost). Notes are synthetic; nothing comes from a
corpus.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Callable

CONTROL_TEXT = "Seen by Dr Alex Quill on 03/04/2021, MRN 4455667.\n"
CONTROL_ANN = "T1\tPERSON 11 21\tAlex Quill\nT2\tIDN 43 50\t4455667\n"


def _control(folder: Path, fmt: str) -> None:
    if fmt in ("txt", "brat"):
        (folder / "control.txt").write_text(CONTROL_TEXT, encoding="utf-8", newline="")
        if fmt == "brat":
            (folder / "control.ann").write_text(CONTROL_ANN, encoding="utf-8")
    elif fmt == "jsonl":
        (folder / "control.jsonl").write_text(json.dumps(
            {"name": "control", "text": CONTROL_TEXT,
             "spans": [{"start": 11, "end": 21, "label": "PERSON"}]}) + "\n", encoding="utf-8")
    elif fmt == "i2b2":
        (folder / "control.xml").write_text(
            f"<deIdi2b2><TEXT><![CDATA[{CONTROL_TEXT}]]></TEXT><TAGS>"
            '<NAME id="P0" start="11" end="21" text="Alex Quill" TYPE="PERSON"/>'
            "</TAGS></deIdi2b2>", encoding="utf-8")
    elif fmt == "conll":
        (folder / "control.conll").write_text(
            "Seen O\nby O\nDr O\nAlex B-PERSON\nQuill I-PERSON\n.\tO\n\n", encoding="utf-8")


def _b(folder: Path, name: str | bytes, data: bytes) -> None:
    path = os.path.join(os.fsencode(folder), name if isinstance(name, bytes) else name.encode())
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def _t(folder: Path, name: str, text: str) -> None:
    _b(folder, name, text.encode("utf-8"))


NOTE = "Patient Sam Reyes, DOB 01/02/1950, phone 0412 345 678.\n"
DEEP = "[" * 50000 + "]" * 50000

# name -> (format, writer of the odd thing)
CASES: dict[str, tuple[str, Callable[[Path], None]]] = {
    # --- plain text: encodings, bytes, sizes
    "txt-empty": ("txt", lambda d: _b(d, "odd.txt", b"")),
    "txt-whitespace": ("txt", lambda d: _b(d, "odd.txt", b" \n\t\r\n")),
    "txt-nul-bytes": ("txt", lambda d: _b(d, "odd.txt", b"abc\x00def" * 10)),
    "txt-png": ("txt", lambda d: _b(d, "odd.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)),
    "txt-cp1252": ("txt", lambda d: _b(d, "odd.txt", "José Núñez, café.\n".encode("cp1252"))),
    "txt-utf16-bom": ("txt", lambda d: _b(d, "odd.txt", NOTE.encode("utf-16"))),
    "txt-utf8-bom": ("txt", lambda d: _b(d, "odd.txt", b"\xef\xbb\xbf" + NOTE.encode())),
    "txt-bad-utf8": ("txt", lambda d: _b(d, "odd.txt", "Dr José ".encode() + b"\xff\xfe" + b" x\n")),
    "txt-surrogate-bytes": ("txt", lambda d: _b(d, "odd.txt", b"Note \xed\xa0\x80 here\n")),
    "txt-utf16-no-bom": ("txt", lambda d: _b(d, "odd.txt", NOTE.encode("utf-16-le"))),
    "txt-control-chars": ("txt", lambda d: _b(d, "odd.txt", b"\x01\x02\x03\x04" * 40)),
    "txt-one-long-line": ("txt", lambda d: _t(d, "odd.txt", "word " * 200000)),
    "txt-cr-only": ("txt", lambda d: _t(d, "odd.txt", NOTE.replace("\n", "\r") * 3)),
    "txt-form-feeds": ("txt", lambda d: _t(d, "odd.txt", NOTE + "\f" + NOTE)),
    "txt-rtl-and-emoji": ("txt", lambda d: _t(d, "odd.txt", "مريض 😀 Sam Reyes\u200f\n")),
    "txt-combining": ("txt", lambda d: _t(d, "odd.txt", "Jose\u0301 Nun\u0303ez\n")),
    # Issue 35 item 11: every path linear in the note; a line of thousands of
    # identifiers (every one a span, dropped or kept by each step) and a run
    # of sentence ends with no space.
    "txt-thousands-of-spans": ("txt", lambda d: _t(
        d, "odd.txt", "".join(f"Seen 0{i % 9 + 1}/1{i % 3}/2019 ph 0412 3{i % 10}5 678, "
                              for i in range(1500)) + "\n")),
    "txt-run-of-stops": ("txt", lambda d: _t(d, "odd.txt", "Seen" + ".!?" * 20000 + " Then.\n")),
    # --- file names
    "name-latin1-bytes": ("txt", lambda d: _b(d, b"nota_\xe9.txt", NOTE.encode())),
    "name-colon": ("txt", lambda d: _t(d, "a:b.txt", NOTE)),
    "name-backslash": ("txt", lambda d: _t(d, "a\\b.txt", NOTE)),
    "name-newline": ("txt", lambda d: _t(d, "a\nb.txt", NOTE)),
    "name-trailing-space": ("txt", lambda d: _t(d, "odd .txt", NOTE)),
    "name-trailing-dot": ("txt", lambda d: _t(d, "odd..txt", NOTE)),
    "name-case-twin": ("txt", lambda d: (_t(d, "Control.txt", NOTE))),
    "name-reserved": ("txt", lambda d: _t(d, "CON.txt", NOTE)),
    "name-very-long": ("txt", lambda d: _t(d, "n" * 240 + ".txt", NOTE)),
    "name-same-in-two-folders": ("txt", lambda d: (_t(d, "a/note1.txt", NOTE),
                                                   _t(d, "b/note1.txt", NOTE + "b"))),
    "name-hidden": ("txt", lambda d: _t(d, ".hidden.txt", NOTE)),
    # An identifier in the name: no output or report name may carry it.
    "name-holds-phone": ("txt", lambda d: _t(d, "ring_0412_345_678.txt", NOTE)),
    "folder-named-like-a-note": ("txt", lambda d: os.makedirs(d / "dir.txt")),
    "symlink-loop": ("txt", lambda d: os.symlink(d / "loop", d / "loop")),
    "symlink-dangling": ("txt", lambda d: os.symlink(d / "nowhere.txt", d / "dangling.txt")),
    # Never followed out of the folder: listed, not imported nor redacted.
    "symlink-out-of-folder": ("txt", lambda d: os.symlink("/etc/hostname", d / "linked.txt")),
    "note-md-and-no-extension": ("txt", lambda d: (_t(d, "odd.md", NOTE), _t(d, "odd", NOTE))),
    "deep-folders": ("txt", lambda d: _t(d, "/".join(["d"] * 40) + "/deep.txt", NOTE)),
    # --- brat
    "brat-bad-offsets": ("brat", lambda d: (_t(d, "odd.txt", NOTE),
                                            _t(d, "odd.ann", "T1\tPERSON x y\tSam\n"))),
    "brat-beyond-end": ("brat", lambda d: (_t(d, "odd.txt", NOTE),
                                           _t(d, "odd.ann", "T1\tPERSON 50 5000\tSam\n"))),
    "brat-negative": ("brat", lambda d: (_t(d, "odd.txt", NOTE),
                                         _t(d, "odd.ann", "T1\tPERSON -3 2\tSam\n"))),
    "brat-text-mismatch": ("brat", lambda d: (_t(d, "odd.txt", NOTE),
                                              _t(d, "odd.ann", "T1\tPERSON 8 17\tSomeone\n"))),
    "brat-discontinuous": ("brat", lambda d: (_t(d, "odd.txt", NOTE),
                                              _t(d, "odd.ann", "T1\tPERSON 8 11;12 17\tSam Reyes\n"))),
    "brat-duplicate-span": ("brat", lambda d: (_t(d, "odd.txt", NOTE), _t(
        d, "odd.ann", "T1\tPERSON 8 17\tSam Reyes\nT2\tPERSON 8 17\tSam Reyes\n"))),
    "brat-relations-notes": ("brat", lambda d: (_t(d, "odd.txt", NOTE), _t(
        d, "odd.ann", "T1\tPERSON 8 17\tSam Reyes\nR1\tRel Arg1:T1 Arg2:T1\n"
                      "#1\tAnnotatorNotes T1\tx\nA1\tNeg T1\nE1\tEv:T1\n"))),
    "brat-ann-without-txt": ("brat", lambda d: _t(d, "lonely.ann", "T1\tPERSON 0 3\tSam\n")),
    "brat-ann-cp1252": ("brat", lambda d: (_t(d, "odd.txt", "José here.\n"),
                                           _b(d, "odd.ann", "T1\tPERSON 0 4\tJosé\n".encode("cp1252")))),
    "brat-ann-binary": ("brat", lambda d: (_t(d, "odd.txt", NOTE), _b(d, "odd.ann", b"\x00\x01" * 50))),
    "brat-label-with-space": ("brat", lambda d: (_t(d, "odd.txt", NOTE),
                                                 _t(d, "odd.ann", "T1\tMY LABEL 8 17\tSam Reyes\n"))),
    "brat-crlf-offsets": ("brat", lambda d: (_b(d, "odd.txt", NOTE.replace("\n", "\r\n").encode() * 2),
                                             _t(d, "odd.ann", "T1\tPERSON 64 73\tSam Reyes\n"))),
    # --- JSON Lines
    "jsonl-bad-line": ("jsonl", lambda d: _t(d, "odd.jsonl", '{"text": "ok"}\n{not json\n')),
    "jsonl-deep": ("jsonl", lambda d: _t(d, "odd.jsonl", '{"text": "x", "meta": ' + DEEP + "}\n")),
    "json-deep-array": ("jsonl", lambda d: _t(d, "odd.json", DEEP)),
    "jsonl-not-object": ("jsonl", lambda d: _t(d, "odd.jsonl", '[1, 2]\n"text"\n3\n')),
    "jsonl-text-not-string": ("jsonl", lambda d: _t(d, "odd.jsonl", '{"text": 5}\n')),
    "jsonl-spans-outside": ("jsonl", lambda d: _t(d, "odd.jsonl", json.dumps(
        {"text": "abc", "spans": [{"start": 1, "end": 99, "label": "X"}]}) + "\n")),
    "jsonl-lone-surrogate": ("jsonl", lambda d: _t(d, "odd.jsonl", '{"text": "a \\ud800 b"}\n')),
    "jsonl-nan-and-huge": ("jsonl", lambda d: _t(d, "odd.jsonl", '{"text": "a", "spans": '
                                                 '[{"start": NaN, "end": 1e999, "label": "X"}]}\n')),
    "jsonl-duplicate-names": ("jsonl", lambda d: _t(d, "odd.jsonl", "".join(
        json.dumps({"name": "control", "text": f"Other note {i}."}) + "\n" for i in range(3)))),
    "jsonl-bad-split-patient": ("jsonl", lambda d: _t(d, "odd.jsonl", json.dumps(
        {"name": "sp", "text": "Note.", "split": ["x"], "patient_id": {"a": 1}}) + "\n")),
    "jsonl-empty-file": ("jsonl", lambda d: _t(d, "odd.jsonl", "")),
    "jsonl-5000-digit-int": ("jsonl", lambda d: _t(d, "odd.jsonl", '{"text": "a", "n": '
                                                   + "7" * 5000 + "}\n")),
    "jsonl-bad-utf8": ("jsonl", lambda d: _b(d, "odd.jsonl", b'{"text": "caf\xe9"}\n')),
    # --- i2b2 / MEDDOCAN XML
    "xml-no-text": ("i2b2", lambda d: _t(d, "odd.xml", "<deIdi2b2><TAGS/></deIdi2b2>")),
    "xml-two-texts": ("i2b2", lambda d: _t(d, "odd.xml", "<deIdi2b2><TEXT>a</TEXT><TEXT>b</TEXT>"
                                                       "<TAGS/></deIdi2b2>")),
    "xml-surrogate-reference": ("i2b2", lambda d: _t(d, "odd.xml", "<deIdi2b2><TEXT>a &#xD800; b"
                                                                  "</TEXT><TAGS/></deIdi2b2>")),
    "xml-entity-bomb": ("i2b2", lambda d: _t(d, "odd.xml", '<!DOCTYPE x [<!ENTITY a "aaaa">]>'
                                                         "<deIdi2b2><TEXT>&a;</TEXT></deIdi2b2>")),
    "xml-malformed": ("i2b2", lambda d: _t(d, "odd.xml", "<deIdi2b2><TEXT>a</TEXT><TAGS><NAME"
                                                       "</deIdi2b2>")),
    "xml-unterminated-cdata": ("i2b2", lambda d: _t(d, "odd.xml", "<deIdi2b2><TEXT><![CDATA[a"
                                                                "</TEXT></deIdi2b2>")),
    "xml-bad-tag-offsets": ("i2b2", lambda d: _t(d, "odd.xml", "<deIdi2b2><TEXT>abc</TEXT><TAGS>"
                                                             '<NAME start="x" end="2" TYPE="P"/>'
                                                             "</TAGS></deIdi2b2>")),
    "xml-tag-beyond-end": ("i2b2", lambda d: _t(d, "odd.xml", "<deIdi2b2><TEXT>abc</TEXT><TAGS>"
                                                            '<NAME start="1" end="90" TYPE="P"/>'
                                                            "</TAGS></deIdi2b2>")),
    # --- CoNLL
    "conll-bad-columns": ("conll", lambda d: _t(d, "odd.conll", "a\nb c d e f\n\n")),
    "conll-invalid-bio": ("conll", lambda d: _t(d, "odd.conll", "Sam I-PERSON\nReyes B-X\n\n")),
    "conll-no-final-blank": ("conll", lambda d: _t(d, "odd.conll", "Sam B-PERSON")),
    "conll-binary": ("conll", lambda d: _b(d, "odd.conll", b"\x00" * 100)),
    # --- not a note format at all
    "only-tsv": ("auto-none", lambda d: _t(d, "x.tsv", "a\tb\n")),
    "docx-as-txt": ("txt", lambda d: _b(d, "odd.txt", b"PK\x03\x04" + b"\x00" * 200)),
}


def write_case(name: str, root: Path) -> tuple[Path, str]:
    """Write one case under ``root/name``; returns (folder, format for import)."""
    fmt, make = CASES[name]
    folder = root / name
    folder.mkdir(parents=True)
    if fmt != "auto-none":
        _control(folder, fmt)
    try:
        make(folder)
    except OSError:                 # a file system that refuses this name
        pass
    return folder, fmt


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bad-inputs")
    for case in CASES:
        write_case(case, out)
    print(f"wrote {len(CASES)} cases to {out}")
