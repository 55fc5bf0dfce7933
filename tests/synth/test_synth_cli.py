"""``python -m app.synth``: brat output and exit codes."""
from __future__ import annotations

from app.synth import generate
from app.synth.__main__ import main


def _read_ann(path):
    spans = []
    for line in path.read_text(encoding="utf-8").splitlines():
        tid, mid, text = line.split("\t")
        label, start, end = mid.split(" ")
        assert tid.startswith("T")
        spans.append((int(start), int(end), label, text))
    return spans


def test_writes_brat_matching_generate(tmp_path):
    out = tmp_path / "notes"
    assert main([str(out), "--n", "6", "--seed", "9", "--locale", "en_US",
                 "--labels", "extended"]) == 0
    docs = generate(6, seed=9, locale="en_US", label_set="extended")
    rows = (out / "patients.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == "note\tpatient_id"
    assert rows[1:] == [f"{d.name}\t{d.patient_id}" for d in docs]
    for d in docs:
        text = (out / f"{d.name}.txt").read_bytes().decode("utf-8")
        assert text == d.text
        ann = _read_ann(out / f"{d.name}.ann")
        assert [(s, e, lab) for s, e, lab, _ in ann] == sorted(sp.key for sp in d.spans)
        assert all(text[s:e] == t for s, e, _, t in ann)


def test_refuses_non_empty_folder_and_bad_args(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("x", encoding="utf-8")
    assert_exit(lambda: main([str(tmp_path), "--n", "2"]), 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
    assert_exit(lambda: main([str(tmp_path / "new"), "--n", "0"]), 1)
    assert_exit(lambda: main([str(tmp_path / "new"), "--labels", "nope"]), 1)
    assert not (tmp_path / "new").exists()


def assert_exit(fn, code):
    try:
        result = fn()
    except SystemExit as exc:
        result = exc.code
    assert result == code
