"""How much the hospital lists alone find: ``python -m app.bench.lists DATA_DIR``.

``DATA_DIR`` is laid out as the PhysioNet deid corpus of ``../shared/data``:
``train/*.txt`` + ``.ann`` (brat, the patient id before the first ``_``) and
``lists/`` (``patients.csv`` and ``staff_*.txt``, ``local_places.txt``,
``hospitals.txt``, ``wards.txt`` when present). For the matcher with every
list and with each list alone it prints label-blind binary-token recall
and precision over every gold identifier token, the recall on the gold
tokens of the labels lists are about (NAME/PERSON, LOCATION), and the
notes with identifiers that still leak one; then the rule recogniser
(``app.rules``, what a project has before any training) alone and with every
list, i.e. what the lists add to it. Figures only, never text.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from app.core.tokenize import tokenize
from app.lists import HospitalLists, ListMatcher, read_patient_table, read_plain_list

_PLAIN_FILES = {"staff_first_names.txt": "staff", "staff_last_names.txt": "staff",
                "staff.txt": "staff", "local_places.txt": "places", "places.txt": "places",
                "hospitals.txt": "hospitals", "wards.txt": "wards", "other.txt": "other"}
_LIST_LABELS = {"NAME", "PERSON", "LOCATION", "ADDRESS", "HOSPITAL"}


def load_lists(folder: Path) -> dict[str, HospitalLists]:
    """Every list of ``folder`` by name (file stem), each as its own HospitalLists."""
    out = {}
    for path in sorted(folder.iterdir()):
        lists = HospitalLists()
        if path.name == "patients.csv":
            for pid, field_name, value in read_patient_table(path):
                lists.add("patients", value, patient_id=pid, field_name=field_name)
        elif path.name in _PLAIN_FILES:
            for value in read_plain_list(path):
                lists.add(_PLAIN_FILES[path.name], value)
        else:
            continue
        out[path.stem] = lists
    return out


def _union(parts) -> HospitalLists:
    all_lists = HospitalLists()
    for lists in parts:
        for kind, values in lists.plain.items():
            all_lists.plain.setdefault(kind, []).extend(values)
        all_lists.patients.update(lists.patients)
    return all_lists


def _gold(ann: Path) -> list[tuple[int, int, str]]:
    spans = []
    for line in ann.read_text(encoding="utf-8").splitlines():
        if not line.startswith("T"):
            continue
        _, mid, _ = line.split("\t", 2)
        label, _, offsets = mid.partition(" ")
        for piece in offsets.split(";"):
            a, b = piece.split()
            spans.append((int(a), int(b), label))
    return spans


def measure(notes, find) -> dict:
    """Binary-token figures over ``notes`` [(text, patient, gold)] of
    ``find(text, patient)``, which returns ``(start, end)`` pairs."""
    tp = fp = fn = 0
    focus_gold = focus_found = 0
    leaking = with_pii = 0
    for text, patient, gold in notes:
        hits = find(text, patient)
        leaked = False
        for tok in tokenize(text):
            labels = {lab for a, b, lab in gold if a < tok.end and tok.start < b}
            found = any(a < tok.end and tok.start < b for a, b in hits)
            if labels:
                tp += found
                fn += not found
                leaked |= not found
                if labels & _LIST_LABELS:
                    focus_gold += 1
                    focus_found += found
            else:
                fp += found
        if gold:
            with_pii += 1
            leaking += leaked
    return {"recall": round(tp / max(tp + fn, 1), 4),
            "precision": round(tp / max(tp + fp, 1), 4) if tp + fp else None,
            "found_tokens": tp, "false_tokens": fp, "gold_tokens": tp + fn,
            "recall_name_location": round(focus_found / max(focus_gold, 1), 4),
            "name_location_tokens": focus_gold,
            "notes_with_identifiers": with_pii, "notes_leaking": leaking}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.bench.lists", description=__doc__.split("\n")[0])
    p.add_argument("data", type=Path, help="corpus folder with train/ and lists/")
    p.add_argument("--json", type=Path, help="also write the figures here")
    args = p.parse_args(argv)
    lists = load_lists(args.data / "lists")
    notes = []
    for txt in sorted((args.data / "train").glob("*.txt")):
        m = re.match(r"(p\d+)_", txt.name)
        notes.append((txt.read_text(encoding="utf-8"), m.group(1) if m else None,
                      _gold(txt.with_suffix(".ann"))))
    from app.rules import find_hits

    def with_lists(lists_):
        matcher = ListMatcher(lists_)
        return lambda text, patient: [(h.start, h.end) for h in matcher.find(text, patient)]

    def rules(text, patient):
        return [(h.start, h.end) for h in find_hits(text)]

    every_list = with_lists(_union(lists.values()))
    rows = {"all lists": every_list,
            **{name: with_lists(lists_) for name, lists_ in lists.items()},
            "rules (no list)": rules,
            "rules + all lists": lambda text, patient: rules(text, patient) + every_list(text, patient)}
    result = {}
    print(f"{len(notes)} notes; label-blind binary tokens "
          f"(R/P: all identifier tokens; R name+loc: NAME/LOCATION tokens)")
    print(f"{'lists':<22} {'R':>6} {'P':>6} {'R name+loc':>10} {'false tok':>9} "
          f"{'leaking':>8} {'s':>5}")
    for name, find in rows.items():
        t0 = time.perf_counter()
        fig = measure(notes, find)
        fig["seconds"] = round(time.perf_counter() - t0, 1)
        result[name] = fig
        prec = "-" if fig["precision"] is None else f"{fig['precision']:.4f}"
        print(f"{name:<22} {fig['recall']:6.4f} {prec:>6} {fig['recall_name_location']:10.4f} "
              f"{fig['false_tokens']:9d} {fig['notes_leaking']:4d}/{fig['notes_with_identifiers']:<3d}"
              f" {fig['seconds']:5.1f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
