"""`deid annotate` never destroys annotations: in = out refused, existing
.ann files kept unless --force, a missing input folder is an error."""
import pytest

from app.cli.main import main
from app.project import Project
from app.services.training import TrainConfig, train_project

from synth_projects import make_project


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A project with a rules-only run (seconds to train)."""
    path = make_project(tmp_path_factory.mktemp("annotate") / "p.deid", n=20)
    with Project.open(path) as p:
        train_project(p, TrainConfig(models=["rules"], budget="quick", fill=False,
                                     propagate=False))
    return path


@pytest.fixture
def gold_folder(trained, tmp_path):
    """Notes with hand-made gold .ann files beside them."""
    notes = tmp_path / "notes"
    notes.mkdir()
    with Project.open(trained, readonly=True) as p:
        for info in p.document_infos()[:3]:
            text = p.document(info.id).text
            (notes / f"{info.name}.txt").write_text(text, encoding="utf-8", newline="")
            (notes / f"{info.name}.ann").write_text("T1\tPERSON 0 1\tx\n# human gold\n",
                                                    encoding="utf-8")
    return notes


def _anns(folder):
    return {p.name: p.read_bytes() for p in folder.glob("*.ann")}


def test_annotate_into_its_input_folder_is_refused(trained, gold_folder, capsys):
    before = _anns(gold_folder)
    assert main(["-q", "annotate", str(trained), str(gold_folder), str(gold_folder)]) == 1
    assert "must differ from the input folder" in capsys.readouterr().err
    assert _anns(gold_folder) == before


def test_annotate_never_overwrites_an_existing_ann_without_force(trained, gold_folder,
                                                                 tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    for name, data in _anns(gold_folder).items():
        (out / name).write_bytes(data)
    before = _anns(out)
    assert main(["-q", "annotate", str(trained), str(gold_folder), str(out)]) == 1
    err = capsys.readouterr().err
    assert "--force" in err and "3 files" in err
    assert _anns(out) == before and not list(out.glob("*.txt"))
    assert main(["-q", "annotate", str(trained), str(gold_folder), str(out), "--force"]) == 0
    after = _anns(out)
    assert set(after) == set(before) and all(after[n] != before[n] for n in before)


def test_annotate_into_a_fresh_folder_writes_every_note(trained, gold_folder, tmp_path):
    out = tmp_path / "fresh"
    assert main(["-q", "annotate", str(trained), str(gold_folder), str(out)]) == 0
    assert len(list(out.glob("*.ann"))) == 3 and len(list(out.glob("*.txt"))) == 3
    # The same notes again into the same folder: its own files, replaced.
    assert main(["-q", "annotate", str(trained), str(gold_folder), str(out)]) == 0
    assert len(list(out.glob("*.ann"))) == 3


def test_annotate_a_missing_input_folder_is_a_user_error(trained, tmp_path, capsys):
    assert main(["-q", "annotate", str(trained), str(tmp_path / "nope"), str(tmp_path / "o")]) == 1
    assert "input folder not found" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_annotate_to_a_path_that_is_a_file_is_a_user_error(trained, gold_folder, tmp_path, capsys):
    target = tmp_path / "file.txt"
    target.write_text("keep me", encoding="utf-8")
    assert main(["-q", "annotate", str(trained), str(gold_folder), str(target)]) == 1
    assert target.read_text(encoding="utf-8") == "keep me"


def test_suggestions_never_cover_text_a_person_labelled(tmp_path):
    """A suggestion over an accepted span was shown at confidence 1.00 (the
    model re-finds what it was trained on); the person's label decides that text."""
    from app.core.labels import PRESETS
    from app.services.annotating import suggest_rules
    text = "Call 0412 345 678 about DOB 01/02/1950."
    with Project.create(tmp_path / "p.deid", list(PRESETS["paper"])) as p:
        doc = p.add_document("n1", text)
        p.add_span(doc, text.index("01/02"), text.index("01/02") + 5, "IDN", annotator="ann")
        assert suggest_rules(p, doc_ids=[doc]) == 1
        suggested = [(text[r.start:r.end], r.label) for r in p.span_records(doc, status="suggested")]
        assert suggested == [("0412 345 678", "PHONE")]
        p.assign(doc, "bob")                    # blind: each annotator decides for themself
        suggest_rules(p, doc_ids=[doc])
        assert len(p.span_records(doc, status="suggested")) == 2



def test_what_a_runs_rules_or_lists_found_is_suggested_as_the_rules(tmp_path):
    """Annotate drew a user's pattern ("7 WEST") found by a run's rules as a
    model suggestion: each predicted span is suggested under what made it."""
    from app.core.spans import Span
    from app.lists.floor import LISTED, SHAPES
    from app.services.previewing import suggestion_source
    assert suggestion_source(Span(0, 3, "PHONE", origin=f"{SHAPES}: pager")) == "rule"
    assert suggestion_source(Span(0, 3, "PERSON", origin=LISTED)) == "rule"
    assert suggestion_source(Span(0, 3, "PERSON", origin="rules")) == "rule"
    assert suggestion_source(Span(0, 3, "PERSON", origin="crf-balanced")) == "model"
    assert suggestion_source(Span(0, 3, "PERSON", origin="propagation")) == "model"
    assert suggestion_source(Span(0, 3, "PERSON")) == "model"

    from app.services.annotating import preannotate
    path = make_project(tmp_path / "p.deid", n=20)
    with Project.open(path) as p:
        train_project(p, TrainConfig(models=["rules"], budget="quick", fill=False,
                                     propagate=False))
        todo = [p.add_document("new", "Call 0412 345 678 on 01/02/2020.")]
        assert preannotate(p, doc_ids=todo) == 1
        suggested = [r for d in todo for r in p.span_records(d, status="suggested")]
    assert suggested and {r.source for r in suggested} == {"rule"}
    assert all(r.run_id is not None for r in suggested)

def test_the_progress_follows_the_notes_written_not_those_read(trained, tmp_path):
    """Reading runs ahead of the predictions by a few batches: the bar says
    how many notes are written."""
    from app.services.annotating import annotate_folder
    notes = tmp_path / "notes"
    notes.mkdir()
    with Project.open(trained, readonly=True) as p:
        for info in p.document_infos()[:7]:
            (notes / f"{info.name}.txt").write_text(p.document(info.id).text, encoding="utf-8")
    shown = []
    with Project.open(trained, readonly=True) as p:
        annotate_folder(p, notes, tmp_path / "out", batch=2, workers=1,
                        progress=lambda pr: shown.append(round(pr.fraction * 7)))
    assert shown == [2, 4, 6, 7]


def test_suggesting_says_how_many_notes_are_done(tmp_path):
    """A big folder's suggestions take minutes: each report says how many
    notes of how many have theirs (the window shows it beside Stop)."""
    from app.core.labels import PRESETS
    from app.services.annotating import suggest_rules
    with Project.create(tmp_path / "p.deid", list(PRESETS["paper"])) as p:
        docs = [p.add_document(f"n{i}", f"Call 0412 345 {i:03d}.") for i in range(20)]
        shown = []
        assert suggest_rules(p, doc_ids=docs, progress=shown.append) == 20
    assert [r.message for r in shown] == ["16 of 20 notes", "20 of 20 notes"]


def _forty_phone_notes(tmp_path):
    """A folder of 40 notes with a phone each, and a new Spanish project (the rules suggest)."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(40):
        (notes / f"n{i:02d}.txt").write_text(f"Call 0412 345 6{i:02d} about the results.\n",
                                             encoding="utf-8")
    proj = tmp_path / "p.deid"
    assert main(["-q", "new", str(proj), "--labels", "meddocan", "--language", "es"]) == 0
    return notes, proj


def test_a_killed_import_resumes_its_suggestions_on_the_next_run(tmp_path, capsys):
    """A kill during the suggestion step of `deid import` left the notes not
    yet reached without suggestions, and the re-run said "N duplicates
    skipped" and did nothing (issue 35 item 9)."""
    from app.services.annotating import pending_suggestions, suggest_new_notes
    from app.services.importing import import_path
    notes, proj = _forty_phone_notes(tmp_path)

    class Killed(BaseException):
        """Where the process died (nothing after it runs)."""

    def die_after_the_first_notes(p):
        raise Killed

    with Project.open(proj) as p:
        ids = import_path(p, notes).doc_ids
        with pytest.raises(Killed):
            suggest_new_notes(p, ids, progress=die_after_the_first_notes)
        suggested = {i.id for i in p.document_infos() if p.span_records(i.id, status="suggested")}
        # The notes suggested are taken off with their suggestions: exactly the rest wait.
        assert 0 < len(suggested) < 40
        assert pending_suggestions(p) == sorted(set(ids) - suggested)
        left = len(ids) - len(suggested)
    capsys.readouterr()
    assert main(["-q", "import", str(proj), str(notes)]) == 0
    assert f"{left} notes to do now have the rules' suggestions to review" in \
        capsys.readouterr().out
    with Project.open(proj, readonly=True) as p:
        assert all(p.span_records(i.id, status="suggested") for i in p.document_infos())
        assert pending_suggestions(p) == []


def test_preannotating_the_next_notes_takes_the_head_of_the_queue(tmp_path):
    """After training, "Pre-annotate next notes" took the first to-do notes
    by document order: notes keeping a day-one model's suggestions and its
    higher uncertainty stayed first in the queue, stale."""
    from app.services.annotating import preannotate
    path = make_project(tmp_path / "p.deid", n=20)
    with Project.open(path) as p:
        train_project(p, TrainConfig(models=["rules"], budget="quick", fill=False,
                                     propagate=False))
        calm, doubtful = (p.add_document(name, f"Call 0412 345 67{k} on 01/02/2020.")
                          for k, name in enumerate(("calm", "doubtful")))
        p.set_document_fields(calm, uncertainty=0.1)
        p.set_document_fields(doubtful, uncertainty=0.9)       # the queue's head
        assert preannotate(p, limit=1) == 1
        assert p.span_records(doubtful, status="suggested")
        assert not p.span_records(calm, status="suggested")
        # The note left out forgets the older model's uncertainty: it read
        # higher than the trained model's (0.21 against 0.08 on the sample),
        # and Next to annotate took it before every note the model suggested on.
        scored = {i.id: i.uncertainty for i in p.document_infos()}
        assert scored[calm] is None and scored[doubtful] is not None
        assert p.document_infos(status="todo", order="uncertainty")[0].id == doubtful


def test_suggestions_cancelled_by_a_closing_project_wait_and_stopped_ones_do_not(tmp_path):
    """Quitting while suggestions ran dropped them for every note not yet
    reached (220 of 300), as a press of Stop suggesting does."""
    from app.core.progress import CancelToken, Cancelled
    from app.services.annotating import pending_suggestions, suggest_new_notes
    from app.services.importing import import_path
    notes, proj = _forty_phone_notes(tmp_path)
    with Project.open(proj) as p:
        ids = import_path(p, notes).doc_ids
        for person, waiting in ((False, True), (True, False)):
            token = CancelToken()
            with pytest.raises(Cancelled):
                suggest_new_notes(p, ids, cancel=token, progress=lambda _: token.cancel(),
                                  stopped=lambda: person)
            assert bool(pending_suggestions(p)) is waiting
            assert len(pending_suggestions(p)) in ((24,) if waiting else (0,))
