"""Hospital lists in use: the `lists` member and the floor in annotate/evaluate."""
from __future__ import annotations

from app.cli.main import main
from app.core.spans import Span
from app.lists.floor import apply_floor
from app.project import Project
from app.services.evaluating import evaluate_project
from app.services.training import TrainConfig, train_project


def run(*argv):
    return main(["-q", *map(str, argv)])


NOTES = {
    "p1_n1": "PT SEEN BY DR QUILLAN. DAUGHTER ODALYS VISITED. CALL 0400 111 222.\n",
    "p1_n2": "QUIET NIGHT. VARGA RESTING. DR QUILLAN AWARE.\n",
    "p2_n1": "TX FROM STOURBRIDGE. VARGA IS ANOTHER PATIENT'S NAME HERE.\n",
    "p2_n2": "BP STABLE. MAY NEED LASIX.\n",
}


GOLD = [("NAME", "QUILLAN"), ("NAME", "ODALYS"), ("NAME", "VARGA"),
        ("LOCATION", "STOURBRIDGE"), ("CONTACT", "0400 111 222")]


def _project(tmp_path):
    """Four annotated notes of two patients, and list files for them."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / f"{name}.txt").write_text(text, encoding="utf-8")
        gold = [(label, word) for label, word in GOLD if word in text]
        (notes / f"{name}.ann").write_text("".join(
            f"T{k}\t{label} {text.index(word)} {text.index(word) + len(word)}\t{word}\n"
            for k, (label, word) in enumerate(gold, 1)), encoding="utf-8")
    proj = tmp_path / "p.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    assert run("import", proj, notes, "--patient-regex", r"^(p\d+)_") == 0
    with Project.open(proj) as p:
        for i, info in enumerate(p.document_infos()):
            p.set_document_fields(info.id, split="dev" if i % 2 else "train", status="done")
    (tmp_path / "staff.txt").write_text("QUILLAN\nMAY\n", encoding="utf-8")
    (tmp_path / "places.txt").write_text("Stourbridge\n", encoding="utf-8")
    (tmp_path / "pt.csv").write_text("patient_id,first_name,last_name\np1,Odalys,Varga\n",
                                     encoding="utf-8")
    return proj, notes


def _add_lists(tmp_path, proj):
    assert run("lists", proj, "add", tmp_path / "staff.txt", "--kind", "staff") == 0
    assert run("lists", proj, "add", tmp_path / "places.txt", "--kind", "places") == 0
    assert run("lists", proj, "add", tmp_path / "pt.csv", "--kind", "patients") == 0


def _one_note_project(tmp_path, text):
    """A folder holding one note of patient p1, and a new empty HIPAA project."""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "p1_n9.txt").write_text(text, encoding="utf-8")
    proj = tmp_path / "one.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    return plain, proj


def _ann_texts(folder, stem):
    """The NAME and LOCATION spans of a written .ann, as "LABEL text"."""
    rows = [line.split("\t") for line in
            (folder / f"{stem}.ann").read_text(encoding="utf-8").splitlines()]
    return sorted(f"{r[1].split()[0]} {r[2]}" for r in rows
                  if r[1].split()[0] in ("NAME", "LOCATION"))


def test_floor_in_annotate(tmp_path):
    proj, notes = _project(tmp_path)
    with Project.open(proj) as p:
        # The rules alone, without the starter's floor (which knows these names).
        train_project(p, TrainConfig(models=["rules"], budget="quick", starter_floor=False))
    assert run("annotate", proj, notes, tmp_path / "before") == 0
    # The rules find no name; the English floor finds the one after a title.
    assert _ann_texts(tmp_path / "before", "p1_n2") == ["NAME QUILLAN"]
    _add_lists(tmp_path, proj)
    assert run("annotate", proj, notes, tmp_path / "out") == 0
    out = tmp_path / "out"
    assert _ann_texts(out, "p1_n1") == ["NAME ODALYS", "NAME QUILLAN"]
    assert _ann_texts(out, "p1_n2") == ["NAME QUILLAN", "NAME VARGA"]
    # p2's notes: the plain lists apply, p1's patient table does not; "MAY" has no context.
    assert _ann_texts(out, "p2_n1") == ["LOCATION STOURBRIDGE"]
    assert _ann_texts(out, "p2_n2") == []
    # A regex that names no patient: the plain lists only.
    assert run("annotate", proj, notes, tmp_path / "other", "--patient-regex", "^(x)") == 0
    assert _ann_texts(tmp_path / "other", "p1_n2") == ["NAME QUILLAN"]
    # No regex at all (none stored): a part of the file name that is a table id names it.
    with Project.open(proj) as p:
        p.set_setting("patient_regex", None)
    assert run("annotate", proj, notes, tmp_path / "noregex") == 0
    assert _ann_texts(tmp_path / "noregex", "p1_n2") == ["NAME QUILLAN", "NAME VARGA"]
    assert _ann_texts(tmp_path / "noregex", "p2_n1") == ["LOCATION STOURBRIDGE"]


def test_lists_member_and_floor_in_evaluate(tmp_path):
    proj, _ = _project(tmp_path)
    _add_lists(tmp_path, proj)
    with Project.open(proj) as p:
        r = train_project(p, TrainConfig(budget="quick", models=["rules"]))
        assert "lists" not in r.members                  # asked for the rules only
        # A default run of a project with lists has the lists member.
        default = TrainConfig(budget="quick")
        default.models = ["rules"] + ["lists"]
        r = train_project(p, default)
        assert set(r.members) == {"rules", "lists"}
        assert r.members["lists"].dev["recall"] > 0       # it tagged dev with the lists
        res = evaluate_project(p, split="dev", bootstrap=0)
        rows = {row["name"]: row for row in res.table}
        # The floor adds the listed names to whatever was selected.
        assert rows[res.model]["token"]["recall"] >= rows["lists"]["token"]["recall"]


def test_a_default_run_on_the_cpu_adds_the_lists_member(tmp_path):
    from app.services.training import plan_run, planned_members
    proj, _ = _project(tmp_path)
    _add_lists(tmp_path, proj)
    with Project.open(proj) as p:
        # Not named, or named as the training view ticks them on a CPU.
        for models in (None, ["crf", "rules", "starter"]):
            plan = plan_run(p, TrainConfig(models=models, device="cpu"))
            assert plan.config.models == ["crf", "rules", "starter", "lists"]
            # ... and the view's Progress lists it before the run starts.
            assert "lists" in planned_members(p, TrainConfig(models=models, device="cpu"))
        # The Train view ticks the defaults in its own order: the lists join
        # them all the same (a walkthrough's run trained without them).
        ticked = plan_run(p, TrainConfig(models=["starter", "rules", "crf"], device="cpu"))
        assert ticked.config.models == ["starter", "rules", "crf", "lists"]
        assert "lists" not in plan_run(p, TrainConfig(models=["spacy", "rules"],
                                                      device="cpu")).config.models


def test_apply_floor_adds_and_widens():
    spans = [Span(0, 5, "NAME"), Span(10, 14, "DATE")]
    floor = [Span(3, 8, "NAME"), Span(10, 12, "LOCATION"), Span(20, 25, "LOCATION")]
    assert apply_floor(spans, floor) == [Span(0, 8, "NAME"), Span(10, 14, "DATE"),
                                         Span(20, 25, "LOCATION")]


def _floor_by_comparing_all(spans, floor, text=None):
    """`apply_floor` as it was: every floor hit compared with every span."""
    out = sorted(spans, key=lambda s: (s.start, s.end))
    for f in floor:
        hit = [s for s in out if s.start < f.end and f.start < s.end]
        if not hit:
            out.append(f)
        else:
            covered = f.start
            for s in hit:
                if s.start > covered and (text is None or text[covered:s.start].strip()):
                    break
                covered = max(covered, s.end)
            if covered >= f.end:
                continue
            merged = Span(min(f.start, hit[0].start), max(f.end, hit[-1].end), hit[0].label,
                          hit[0].confidence)
            out = [s for s in out if s not in hit] + [merged]
        out.sort(key=lambda s: (s.start, s.end))
    return out


def test_apply_floor_found_by_bisection_is_the_floor_compared_with_every_span():
    """The floor, linear in the note now (a 400 kB note spent most of its
    suggestions comparing every list hit with every span: issue 35 item 11),
    gives what comparing with every span gave."""
    import random
    rng = random.Random(35)
    text = "".join(rng.choice("ab  ") for _ in range(400))

    def some(n, labels):
        out = []
        for _ in range(n):
            a = rng.randrange(0, 390)
            out.append(Span(a, a + rng.randrange(1, 12), rng.choice(labels)))
        return out

    for _ in range(300):
        spans, floor = some(rng.randrange(0, 30), "NP"), some(rng.randrange(0, 30), "LD")
        for t in (None, text):
            assert apply_floor(spans, floor, t) == _floor_by_comparing_all(spans, floor, t)


def test_floor_in_redact_with_the_patient_of_each_file(tmp_path):
    proj, notes = _project(tmp_path)
    with Project.open(proj) as p:
        train_project(p, TrainConfig(models=["rules"], budget="quick", starter_floor=False))
    _add_lists(tmp_path, proj)
    plain = tmp_path / "plain"
    plain.mkdir()
    for name, text in NOTES.items():
        (plain / f"{name}.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "red"
    assert run("redact", proj, plain, out, "--strategy", "tag",
               "--patient-regex", r"^(p\d+)_") == 0
    p1 = (out / "p1_n2.txt").read_text(encoding="utf-8")
    p2 = (out / "p2_n1.txt").read_text(encoding="utf-8")
    assert "VARGA" not in p1 and "QUILLAN" not in p1          # p1's own name and a staff name
    assert "STOURBRIDGE" not in p2 and "VARGA" in p2           # p1's name is not p2's


def test_listed_identifiers_for_the_leak_scan(tmp_path):
    from app.services.lists import listed_identifiers
    proj, _ = _project(tmp_path)
    _add_lists(tmp_path, proj)
    with Project.open(proj, readonly=True) as p:
        assert sorted(listed_identifiers(p), key=str) == sorted([
            (None, "NAME", "QUILLAN", True), (None, "NAME", "MAY", True),
            (None, "LOCATION", "Stourbridge", False),
            ("p1", "NAME", "Odalys", True), ("p1", "NAME", "Varga", True)], key=str)


def test_floor_before_any_training(tmp_path):
    """A project with no trained model: the rules alone, with the lists' floor."""
    from app.services.redaction import rules_predictor
    proj, notes = _project(tmp_path)
    _add_lists(tmp_path, proj)
    with Project.open(proj, readonly=True) as p:
        predictor = rules_predictor(p)
        text = NOTES["p1_n2"]
        spans = {text[s.start:s.end] for s in predictor.predict_spans(text, "p1")}
        assert {"VARGA", "QUILLAN"} <= spans
        assert "VARGA" not in {text[s.start:s.end] for s in predictor.predict_spans(text, "p2")}
    out = tmp_path / "red"
    assert run("redact", proj, notes, out, "--rules-only", "--strategy", "tag",
               "--patient-regex", r"^(p\d+)_") == 0
    red = (out / "p1_n2.txt").read_text(encoding="utf-8")
    assert "VARGA" not in red and "QUILLAN" not in red


def test_floor_on_day_one_with_the_starter(tmp_path):
    """A new English project (no annotation, no training) annotates with the
    starter model, and the lists' floor is in its output (the starter alone
    misses both identifiers of this note)."""
    from app.services.prediction import resolve
    plain, proj = _one_note_project(tmp_path, "seen by quillan today. TO STOURBRIDGE IN AM.\n")
    with Project.open(proj, readonly=True) as p:
        if resolve(p).kind != "starter":
            import pytest
            pytest.skip("this installation has no starter model")
    assert run("annotate", proj, plain, tmp_path / "before") == 0
    assert _ann_texts(tmp_path / "before", "p1_n9") == []
    (tmp_path / "staff.txt").write_text("QUILLAN\n", encoding="utf-8")
    (tmp_path / "places.txt").write_text("Stourbridge\n", encoding="utf-8")
    assert run("lists", proj, "add", tmp_path / "staff.txt", "--kind", "staff") == 0
    assert run("lists", proj, "add", tmp_path / "places.txt", "--kind", "places") == 0
    assert run("annotate", proj, plain, tmp_path / "out") == 0
    assert _ann_texts(tmp_path / "out", "p1_n9") == ["LOCATION STOURBRIDGE", "NAME quillan"]


def test_english_floor_replaces_pagers_and_written_years_with_no_list(tmp_path):
    # No training note may show a pager number, so no model learns one: the
    # floor of an English project replaces it, in annotate as in evaluate.
    from app.lists.floor import Floor
    from app.services.lists import project_matcher

    notes = tmp_path / "in"
    notes.mkdir()
    text = "S/P CABG '92. AAA REPAIR IN 14'. Pager #12345. BP 120/60 HR 80. WALKED 14' TODAY.\n"
    (notes / "n1.txt").write_text(text, encoding="utf-8")
    for lang, expected in (("en", {("CONTACT", "12345"), ("DATE", "92"), ("DATE", "14")}),
                           ("es", set())):
        proj = tmp_path / f"{lang}.deid"
        assert run("new", proj, "--labels", "hipaa", "--language", lang) == 0
        with Project.open(proj) as p:
            floor, labels = project_matcher(p)
        assert (floor is None) == (lang == "es")
        if floor is not None:
            assert isinstance(floor, Floor) and floor.lists is None
            found = {(labels[h.category], text[h.start:h.end]) for h in floor.find(text)}
            assert found == expected
        out = tmp_path / f"out-{lang}"
        if lang == "en":                                   # day one: the starter and its floor
            assert run("annotate", proj, notes, out, "--format", "brat") == 0
            ann = (out / "n1.ann").read_text(encoding="utf-8")
            assert {tuple(r.split("\t")[1].split()[0:1]) + (r.split("\t")[2],)
                    for r in ann.splitlines()} >= expected


def test_a_listed_identifier_is_replaced_even_where_a_person_rejected_it(tmp_path):
    from app.services.redaction import document_spans

    text = "QUIET NIGHT. DR QUILLAN AWARE. RESTING.\n"
    notes, proj = _one_note_project(tmp_path, text)
    assert run("import", proj, notes, "--patient-regex", r"^(p\d+)_", "--no-suggest") == 0
    (tmp_path / "staff.txt").write_text("QUILLAN\n", encoding="utf-8")
    assert run("lists", proj, "add", tmp_path / "staff.txt", "--kind", "staff") == 0
    listed = Span(text.index("QUILLAN"), text.index("QUILLAN") + 7, "NAME")
    other = Span(text.index("RESTING"), text.index("RESTING") + 7, "NAME")
    with Project.open(proj) as p:
        doc_id = p.document_infos()[0].id
        for s in (listed, other):
            p.add_span(doc_id, s.start, s.end, s.label, status="rejected")
        out = document_spans(p, doc_id, [listed, other])
    assert [text[s.start:s.end] for s in out] == ["QUILLAN"]   # the list wins; RESTING stays out


def test_the_compiled_lists_are_reused_until_an_entry_changes(tmp_path):
    from app.services.lists import project_matcher

    proj = tmp_path / "c.deid"
    assert run("new", proj, "--labels", "hipaa") == 0
    (tmp_path / "staff.txt").write_text("QUILLAN\n", encoding="utf-8")
    (tmp_path / "places.txt").write_text("Stourbridge\n", encoding="utf-8")
    assert run("lists", proj, "add", tmp_path / "staff.txt", "--kind", "staff") == 0
    text = "DR QUILLAN AWARE. TO STOURBRIDGE."
    with Project.open(proj, readonly=True) as p:     # read-only: the CLI may write
        first, _ = project_matcher(p)
        assert project_matcher(p)[0] is first                  # compiled once
        assert [text[h.start:h.end] for h in first.lists.find(text)] == ["QUILLAN"]
        # Another process adds a list: this handle sees it at its next call.
        assert run("lists", proj, "add", tmp_path / "places.txt", "--kind", "places") == 0
        second, _ = project_matcher(p)
        assert second is not first
        assert [text[h.start:h.end] for h in second.lists.find(text)] == ["QUILLAN", "STOURBRIDGE"]
        assert run("lists", proj, "remove", "--kind", "staff") == 0
        assert [text[h.start:h.end] for h in project_matcher(p)[0].lists.find(text)] == [
            "STOURBRIDGE"]
