"""python -m app.bench.lists on a tiny corpus of our own (brat notes + lists/)."""
from __future__ import annotations

import json

from app.bench.lists import main


def test_lists_bench_figures(tmp_path, capsys):
    train, lists = tmp_path / "train", tmp_path / "lists"
    train.mkdir()
    lists.mkdir()
    notes = {
        "p1_n1": ("DR QUILLAN SAW PT. DAUGHTER ODALYS HERE.", ["QUILLAN", "ODALYS"]),
        "p2_n1": ("TX FROM STOURBRIDGE ON 3/4. MAY NEED LASIX.", ["STOURBRIDGE", "3/4"]),
        "p2_n2": ("NO EVENTS. ODALYS NOT HERE.", []),
    }
    for stem, (text, gold) in notes.items():
        (train / f"{stem}.txt").write_text(text, encoding="utf-8")
        (train / f"{stem}.ann").write_text("".join(
            f"T{k}\tNAME {text.index(w)} {text.index(w) + len(w)}\t{w}\n"
            for k, w in enumerate(gold, 1)), encoding="utf-8")
    (lists / "staff_last_names.txt").write_text("QUILLAN\nMAY\n", encoding="utf-8")
    (lists / "hospitals.txt").write_text("Stourbridge\n", encoding="utf-8")
    (lists / "patients.csv").write_text("patient_id,first_name,last_name\np1,ODALYS,VARGA\n",
                                        encoding="utf-8")
    assert main([str(tmp_path), "--json", str(tmp_path / "out.json")]) == 0
    fig = json.loads((tmp_path / "out.json").read_text())
    # 6 gold tokens ("3/4" is three); the lists find QUILLAN, ODALYS (p1), STOURBRIDGE;
    # ODALYS in p2's note is not p2's name, MAY has no context.
    assert fig["all lists"]["gold_tokens"] == 6
    assert fig["all lists"]["found_tokens"] == 3 and fig["all lists"]["false_tokens"] == 0
    assert fig["all lists"]["notes_leaking"] == 1 and fig["all lists"]["notes_with_identifiers"] == 2
    assert fig["patients"]["found_tokens"] == 1 and fig["hospitals"]["found_tokens"] == 1
    out = capsys.readouterr().out
    assert "QUILLAN" not in out and "all lists" in out                 # figures, never text
