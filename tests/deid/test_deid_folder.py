import json
from functools import partial

import pytest

from app.core.progress import Cancelled, CancelToken
from app.deid.folder import MANIFEST, redact_folder
from app.formats.base import TEMP_PREFIX
from app.formats.written import UNFINISHED
from app.deid.memory import JsonFileSurrogateMemory
from app.deid.policy import Policy
from app.deid.rescan import KnownIdentifiers, LeakError

import deid_fake_model
from deid_fake_model import FakePredictor, make_predictor

SECRET = "folder-secret"
POLICY = Policy(default="surrogate")


def write_notes(root, n=6):
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        who = "John Smith" if i % 2 == 0 else "Mary Jones"
        (root / f"pt{i % 2}_note{i}.txt").write_text(
            f"{who} seen 03/0{i + 1}/2014. MRN 12345{i}78.\nLater John came back.\n",
            encoding="utf-8")


def run(in_dir, out_dir, **kw):
    kw.setdefault("patient_regex", r"^(pt\d+)_")
    return redact_folder(in_dir, out_dir, make_predictor, POLICY, secret=SECRET, **kw)


def test_folder_outputs_spans_and_manifest(tmp_path):
    write_notes(tmp_path / "in")
    (tmp_path / "in" / "sub").mkdir()
    (tmp_path / "in" / "sub" / "x.txt").write_text("Mary Jones, 01/01/2000", encoding="utf-8")
    summary = run(tmp_path / "in", tmp_path / "out")
    assert summary.count("done") == 7
    out = (tmp_path / "out" / "sub" / "x.txt").read_text(encoding="utf-8")
    spans = [json.loads(line) for line in
             (tmp_path / "out" / "sub" / "x.spans.jsonl").read_text().splitlines()]
    assert [s["label"] for s in spans] == ["PERSON", "DATE"]
    assert "Mary" not in out and "01/01/2000" not in out
    assert out[spans[1]["start"]:spans[1]["end"]].count("/") == 2
    manifest = (tmp_path / "out" / MANIFEST).read_text()
    assert "Mary" not in manifest and "John" not in manifest
    # Nor a digest that whoever holds a note's text can match (sha256sum of it).
    import hashlib
    for path in (tmp_path / "in").rglob("*.txt"):
        assert hashlib.sha256(path.read_bytes()).hexdigest() not in manifest


def test_a_manifest_of_plain_digests_resumes_without_redoing(tmp_path):
    """Exports written before the manifest keyed its digests resume as they were."""
    import hashlib
    write_notes(tmp_path / "in")
    run(tmp_path / "in", tmp_path / "out")
    path = tmp_path / "out" / MANIFEST
    entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    plain = {e["output"]: hashlib.sha256((tmp_path / "in" / e["output"]).read_bytes()).hexdigest()
             for e in entries}
    path.write_text("".join(json.dumps({**e, "sha256": plain[e["output"]]}) + "\n"
                            for e in entries))
    again = run(tmp_path / "in", tmp_path / "out")
    assert (again.count("resumed"), again.count("done")) == (6, 0)


def test_patient_consistency_across_notes(tmp_path):
    write_notes(tmp_path / "in")
    run(tmp_path / "in", tmp_path / "out")
    texts = [(tmp_path / "out" / f"pt0_note{i}.txt").read_text() for i in (0, 2, 4)]
    names = {t.split(" seen")[0] for t in texts}
    assert len(names) == 1                       # same patient, same surrogate
    first = names.pop().split()[0]
    assert all(f"Later {first} came back" in t for t in texts)   # "John" == "John" of "John Smith"
    other = (tmp_path / "out" / "pt1_note1.txt").read_text()
    assert f"Later {first} came back" not in other  # another patient's John differs


def test_resume_after_cancel_and_temp_cleanup(tmp_path):
    write_notes(tmp_path / "in")
    out = tmp_path / "out"
    token = CancelToken()
    seen = []

    def progress(p):
        seen.append(p.fraction)
        if len(seen) == 3:
            token.cancel()

    with pytest.raises(Cancelled):
        run(tmp_path / "in", out, progress=progress, cancel=token)
    # Three notes recorded as done; the worker may have written the batch's
    # others, which count for nothing until recorded.
    recorded = [json.loads(line)["output"] for line in (out / MANIFEST).read_text().splitlines()]
    assert len(recorded) == 3
    assert (out / UNFINISHED).exists()          # no review may be drawn from it yet
    first_pass = {name: (out / name).read_bytes() for name in recorded}
    (out / f"{TEMP_PREFIX}leftover").write_text("partial")       # as after a crash
    with open(out / MANIFEST, "a") as fh:
        fh.write('{"key": "trunc')                              # a line cut by a crash
    summary = run(tmp_path / "in", out)
    assert summary.count("resumed") == 3 and summary.count("done") == 3
    assert not (out / UNFINISHED).exists()
    assert not list(out.glob(f"{TEMP_PREFIX}*"))
    for name, data in first_pass.items():
        assert (out / name).read_bytes() == data
    # A changed note is redone; unchanged ones are skipped.
    (tmp_path / "in" / "pt0_note0.txt").write_text("John Smith again.", encoding="utf-8")
    summary = run(tmp_path / "in", out)
    assert summary.count("resumed") == 5 and summary.count("done") == 1


def test_pseudonymous_names_bad_files_and_brat(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "john_smith_2014.txt").write_text("John Smith seen 03/05/2014.", encoding="utf-8")
    (src / "empty.txt").write_bytes(b"")
    (src / "binary.txt").write_bytes(b"\x00\x01\x02binary")
    summary = redact_folder(src, tmp_path / "out", make_predictor, POLICY, secret=SECRET,
                            naming="pseudonymous", spans_format="brat")
    assert summary.count("done") == 1 and summary.count("bad") == 2
    assert all(n.reason for n in summary.notes if n.status == "bad")
    names = [p.name for p in (tmp_path / "out").iterdir()]
    assert not any("john" in n.lower() or "smith" in n.lower() or "empty" in n for n in names)
    done = next(n for n in summary.notes if n.status == "done")
    assert done.note.startswith("note-") and "john" not in done.note
    ann = (tmp_path / "out" / done.note.replace(".txt", ".ann")).read_text()
    out = (tmp_path / "out" / done.note).read_text()
    for line in ann.splitlines():
        _, info, shown = line.split("\t")
        label, start, end = info.split()
        assert out[int(start):int(end)] == shown and "Smith" not in shown


def test_memory_file_and_workers_give_the_same_output(tmp_path):
    write_notes(tmp_path / "in", n=4)
    mem = tmp_path / "mem.json"
    run(tmp_path / "in", tmp_path / "out1", memory_path_or_factory=mem)
    assert len(JsonFileSurrogateMemory(mem, SECRET)) > 0
    assert "Smith" not in mem.read_text()
    run(tmp_path / "in", tmp_path / "out2", workers=2)
    for p in (tmp_path / "out1").glob("*.txt"):
        assert (tmp_path / "out2" / p.name).read_text() == p.read_text()


def test_model_built_once_in_process(tmp_path):
    write_notes(tmp_path / "in", n=4)
    before = len(deid_fake_model.BUILDS)
    run(tmp_path / "in", tmp_path / "out", workers=1)
    assert len(deid_fake_model.BUILDS) - before == 1


def test_strict_rescan_withholds_leaky_notes(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    # The fake model misses "JSmith" (no word boundary): the rules function flags it.
    (src / "a.txt").write_text("John Smith, login JSmith, 03/05/2014.", encoding="utf-8")
    (src / "b.txt").write_text("Mary Jones was fine.", encoding="utf-8")

    def rules(text):
        return [(m.start(), m.end(), "LOGIN") for m in __import__("re").finditer(r"JSmith", text)]

    with pytest.raises(LeakError) as info:
        redact_folder(src, tmp_path / "out", make_predictor, POLICY, secret=SECRET,
                      rules_fn=rules, strict=True)
    assert info.value.leaks == {"a.txt": 1}
    assert not (tmp_path / "out" / "a.txt").exists() and (tmp_path / "out" / "b.txt").exists()
    summary = redact_folder(src, tmp_path / "out2", make_predictor, POLICY, secret=SECRET,
                            rules_fn=rules)
    assert {n.note: n.leaks for n in summary.notes} == {"a.txt": 1, "b.txt": 0}


def test_an_age_the_policy_keeps_is_no_suspected_leak(tmp_path):
    """HIPAA keeps ages up to 89 (so do the surrogates): found in clear by
    the rules or a model, such an age is not suspected; an older one is,
    and the policy's threshold decides."""
    import re
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("58 YO WOMAN. HER MOTHER, 95 YO, VISITED.", encoding="utf-8")

    def ages(text):
        return [(m.start(), m.end(), "AGE") for m in re.finditer(r"\d+(?= YO)", text)]

    for policy, suspected in ((POLICY, ["95"]), (Policy(default="surrogate", age_threshold=50),
                                                   ["58", "95"])):
        out = tmp_path / f"out{policy.age_threshold}"
        summary = redact_folder(src, out, make_predictor, policy, secret=SECRET, rules_fn=ages)
        text = (out / "a.txt").read_text(encoding="utf-8")
        assert [text[s["start"]:s["end"]] for s in summary.notes[0].suspicions] == suspected


def test_partial_factory_and_refusals(tmp_path):
    write_notes(tmp_path / "in", n=2)
    factory = partial(make_predictor, ("John",))
    summary = redact_folder(tmp_path / "in", tmp_path / "out", factory, Policy(default="tag"),
                            secret=SECRET)
    assert "<**PERSON**> Smith" in (tmp_path / "out" / "pt0_note0.txt").read_text()
    assert summary.count("done") == 2
    with pytest.raises(ValueError):
        redact_folder(tmp_path / "in", tmp_path / "in", factory, POLICY, secret=SECRET)
    with pytest.raises(ValueError):
        redact_folder(tmp_path / "in", tmp_path / "o", factory, POLICY, secret=SECRET, naming="x")


def test_fallback_decoder_matches_the_contract():
    from app.deid.textin import UnreadableNote, _fallback_decode

    assert _fallback_decode("Pérez\r\n".encode("utf-8")) == "Pérez\r\n"
    assert _fallback_decode("Pérez".encode("cp1252")) == "Pérez"
    assert _fallback_decode(b"\xef\xbb\xbfhi") == "hi"
    for bad in (b"", b"  \n", b"a\x00b"):
        with pytest.raises(UnreadableNote):
            _fallback_decode(bad)


def test_resumed_run_gives_the_output_of_an_uninterrupted_run(tmp_path, monkeypatch):
    """Issue 23 item 4: the collision state of the notes skipped on resume is
    rebuilt (tiny name pools make collisions, and so re-draws, frequent)."""
    import app.deid.surrogates as surrogates
    monkeypatch.setattr(surrogates, "last_names", lambda loc: ["Ames", "Boyd", "Cruz", "Diaz"])
    monkeypatch.setattr(surrogates, "first_names",
                        lambda loc, g: ["Ava", "Ben", "Cal", "Dot", "Eve"])
    people = ["Alan Reed", "Bob Stone", "Carl Hart", "Dora West", "Emma Ford", "Fred Lowe"]
    src = tmp_path / "in"
    src.mkdir()
    for i in range(12):
        who, other = people[i % 6], people[(i + 1) % 6]
        (src / f"pt{i % 6}_n{i:02d}.txt").write_text(
            f"{who} met {other} on 03/0{i % 9 + 1}/2014.\n", encoding="utf-8")
    factory = partial(make_predictor, tuple(people) + tuple(n for p in people for n in p.split()))

    def go(out, **kw):
        return redact_folder(src, out, factory, POLICY, secret=SECRET,
                             patient_regex=r"^(pt\d+)_", **kw)

    go(tmp_path / "whole")
    token = CancelToken()
    seen = []

    def progress(p):
        seen.append(p)
        if len(seen) == 5:
            token.cancel()

    with pytest.raises(Cancelled):
        go(tmp_path / "resumed", progress=progress, cancel=token)
    summary = go(tmp_path / "resumed")
    assert summary.count("resumed") == 5 and summary.count("done") == 7
    for p in sorted((tmp_path / "whole").glob("*.txt")):
        assert (tmp_path / "resumed" / p.name).read_text() == p.read_text(), p.name


def test_one_fsync_per_batch_and_a_damaged_output_is_redone(tmp_path, monkeypatch):
    import os
    write_notes(tmp_path / "in", n=20)
    calls = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    import app.deid.folder as folder
    syncs = []
    monkeypatch.setattr(folder, "sync_folder", syncs.append)
    summary = run(tmp_path / "in", tmp_path / "out", workers=1)
    monkeypatch.undo()
    assert summary.count("done") == 20
    # Two patients of ten notes, two batches: the manifest fsynced once a
    # batch (was 3 a note), the output folder synced once a batch by the
    # worker that wrote it and once at the end; the paths the run claims
    # (app.formats.written) once before anything is written.
    assert len(calls) == 3
    assert len(syncs) == 3
    # An output a crash left short (renamed into place, its data never on
    # disk) does not match the manifest's hash: that note alone is redone.
    (tmp_path / "out" / "pt1_note3.txt").write_bytes(b"")
    again = run(tmp_path / "in", tmp_path / "out", workers=1)
    assert again.count("resumed") == 19 and again.count("done") == 1
    assert again.redone() == {"its output was damaged (written just before a crash)": 1}
    assert (tmp_path / "out" / "pt1_note3.txt").read_bytes()


class _Doubter:
    """A member reading token probabilities: it doubts every "Zed" and "John"."""

    def suspicions(self, items, threshold):
        return [[(i, "PERSON") for i, t in enumerate(seg.tokens)
                 if text[t.start:t.end] in ("Zed", "John")]
                for text, seg in items]


class _DoubtingPredictor(FakePredictor):
    """A `SpanPredictor` whose member doubts."""

    run_id = None

    def predict(self, texts, *, patients=None, with_members=False, progress=None,
                spans_only=False):
        from app.core.prediction import Prediction
        return [Prediction(self.predict_spans(t)) for t in texts]

    def doubts(self, texts, threshold):
        from app.core.prediction import member_doubts
        return member_doubts({"crf": _Doubter()}, texts, threshold)

    def close(self):
        pass


def _doubting_predictor():
    return _DoubtingPredictor(("John",))


class _NoScan:
    """The model scan's factory: its threshold asks for the prediction's doubts."""

    threshold = 0.05

    def __call__(self):
        return lambda text: []


def test_the_models_doubts_read_on_the_original_are_suspicions(tmp_path):
    """A token the model left as O but doubts ("Zed") is reported at its place
    in the output, as 'unsure'; a doubted token inside a replacement is not."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("John met Zed today. Zed again.", encoding="utf-8")
    summary = redact_folder(src, tmp_path / "out", _doubting_predictor, POLICY, secret=SECRET,
                            workers=1, model_scan=_NoScan(), known=KnownIdentifiers())
    out = (tmp_path / "out" / "a.txt").read_text(encoding="utf-8")
    found = [(out[s["start"]:s["end"]], s["kind"]) for s in summary.notes[0].suspicions]
    assert found == [("Zed", "unsure"), ("Zed", "unsure")]


class _Tagger:
    """A member tagging every token equal to ``word``; counts its calls."""

    def __init__(self, word: str, label: str) -> None:
        self.word, self.label, self.calls = word, label, 0

    def predict(self, items):
        from app.models.base import TagSeq
        self.calls += 1
        out = []
        for text, seg in items:
            tags = [f"B-{self.label}" if text[t.start:t.end] == self.word else "O"
                    for t in seg.tokens]
            out.append(TagSeq(tags, [1.0] * len(tags)))
        return out

    def suspicions(self, items, threshold):
        return [[(i, self.label) for i, t in enumerate(seg.tokens) if text[t.start:t.end] == self.word]
                for text, seg in items]


def test_a_predictor_serving_the_scan_predicts_with_the_candidates_members_only():
    """One predictor per worker predicts and scans: loaded with every member
    (the scan's), its spans and doubts are still the candidate's alone, and
    the members only the scan needs do not run for the spans."""
    from app.deid.folder import predict_task, scan_spans
    from app.services.predictor import Predictor

    own, scan_only = _Tagger("Zed", "PERSON"), _Tagger("Ann", "PERSON")
    predictor = Predictor("own", {"own": own, "other": scan_only}, candidate_members=["own"])
    text = "Zed met Ann."
    [predicted] = predict_task(lambda: predictor, "candidate-only", [text], [None], 0.5)
    assert predicted.error == "" and [text[s:e] for s, e, *_ in predicted.spans] == ["Zed"]
    assert [text[s:e] for s, e, _ in predicted.doubts] == ["Zed"]
    assert scan_only.calls == 0
    found = {text[s:e] for s, e, _ in scan_spans(predictor, [text])[0]}
    assert found == {"Zed", "Ann"} and scan_only.calls == 1


def _tree(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_batches_hold_whole_patients_redacted_in_the_workers_with_the_same_output(
        tmp_path, monkeypatch):
    """Batches are cut at patient boundaries, whatever the path order (a
    patient of more notes than a batch is one batch of its own), so every
    batch is redacted, scanned and written in a worker task; the output,
    spans and manifest are byte for byte what the client alone writes."""
    import app.deid.folder as folder
    from app.deid.memory import InMemorySurrogateMemory

    src = tmp_path / "in"
    src.mkdir()
    for i in range(11):       # pt0 and pt1 (3 notes each) interleaved in path order, pt9 (5)
        who = ("John Smith", "Mary Jones")[i % 2]
        (src / f"n{i}_pt{i % 2 if i < 6 else 9}.txt").write_text(
            f"{who} seen 03/0{i % 9 + 1}/2014. MRN 12345{i}78.\nLater John came back.\n",
            encoding="utf-8")
    for i in range(4):                          # four notes, each its own patient
        (src / f"solo{i}.txt").write_text(f"Mary Jones seen 0{i + 1}/02/2015, John again.\n",
                                          encoding="utf-8")
    tasks = []
    real = folder._patients_task
    monkeypatch.setattr(folder, "_patients_task",
                        lambda *a: tasks.append(sorted(it.rel for it in a[-1])) or real(*a))
    kw = dict(patient_regex=r"_(pt\d+)\.txt$", batch=4, known=KnownIdentifiers(), workers=1)
    summary = redact_folder(src, tmp_path / "workers", make_predictor, POLICY, secret=SECRET, **kw)
    assert summary.count("done") == 15
    # Patients in the order of their first note: pt0, pt9 (n10), pt1, the solos.
    assert tasks == [["n0_pt0.txt", "n2_pt0.txt", "n4_pt0.txt"],
                     [f"n{i}_pt9.txt" for i in (10, 6, 7, 8, 9)],
                     ["n1_pt1.txt", "n3_pt1.txt", "n5_pt1.txt", "solo0.txt"],
                     ["solo1.txt", "solo2.txt", "solo3.txt"]]
    # A memory object of this process only: every note redacted here.
    redact_folder(src, tmp_path / "client", make_predictor, POLICY, secret=SECRET,
                  memory_path_or_factory=InMemorySurrogateMemory(), **kw)
    assert len(tasks) == 4
    assert _tree(tmp_path / "workers") == _tree(tmp_path / "client")
    assert not list((tmp_path / "workers").rglob(f"{TEMP_PREFIX}*"))


class _Killed(BaseException):
    """A worker process killed in the middle of writing a file."""


def test_a_batch_cut_short_mid_write_leaves_no_temp_file_and_counts_nothing_done(
        tmp_path, monkeypatch):
    """A worker that dies after writing some of its batch's files: its
    half-written temporary file is removed when the run ends, no note of the
    batch is recorded, and a re-run writes each note once, as a clean run."""
    import app.deid.folder as folder
    write_notes(tmp_path / "in", n=6)           # two patients of three notes: one batch
    run(tmp_path / "in", tmp_path / "clean", workers=1)
    real, calls = folder.atomic_write, []

    def dying(path, data, **kw):
        calls.append(path)
        if len(calls) == 3:                     # the second note, its text half-written
            (path.parent / f"{TEMP_PREFIX}cut.tmp").write_bytes(data[:len(data) // 2])
            raise _Killed
        return real(path, data, **kw)

    monkeypatch.setattr(folder, "atomic_write", dying)
    out = tmp_path / "out"
    with pytest.raises(_Killed):
        run(tmp_path / "in", out, workers=1)
    monkeypatch.undo()
    assert (out / "pt0_note0.txt").is_file()    # written, but never reported done
    assert not list(out.rglob(f"{TEMP_PREFIX}*"))
    assert not (out / MANIFEST).exists() or not (out / MANIFEST).read_text()
    again = run(tmp_path / "in", out, workers=1)
    assert again.count("done") == 6 and again.count("resumed") == 0
    assert _tree(out) == _tree(tmp_path / "clean")


def test_a_resumed_run_reports_the_coincidences_of_the_notes_it_kept(tmp_path, monkeypatch):
    """A surrogate equal to a real identifier is a coincidence, not a leak; a
    resumed export's report lost their total (issue 35 item 14)."""
    from app.deid import folder
    from app.deid.rescan import Leak
    real = folder.known_leaks

    def one_coincidence(text, **kw):          # as a shifted date landing on a real one
        return real(text, **kw) + [Leak(0, 2, "known", "identifier", True)]

    monkeypatch.setattr(folder, "known_leaks", one_coincidence)
    write_notes(tmp_path / "in")
    first = run(tmp_path / "in", tmp_path / "out")
    again = run(tmp_path / "in", tmp_path / "out")
    assert again.count("resumed") == 6
    assert [n.coincidences for n in again.notes] == [n.coincidences for n in first.notes] \
        == [1] * 6
