"""How often a run calls notes to do unlike the annotated ones.

``python -m app.bench.familiarity [--folds 5]``

Words only, no training (app.services.familiarity.assess):

* PhysioNet: for each of the patient-disjoint folds of
  ``accuracy --folds`` (`app.bench.corpora.physionet_folds`), the fold's
  notes as the notes to do, every other note as the annotated ones: one
  corpus, so few or none should read unlike;
* synthetic: 40 annotated referral letters (the bundled sample's style)
  against 20 more letters and 20 ICU nursing notes to do (`app.synth`):
  the ICU notes should, the letters should not.

Prints one line per case: notes to do, those unlike, the annotated notes'
95th-percentile and median unseen share.

``--loop``: what annotating them first buys (minutes, trains models). A
project of 40 annotated synthetic letters, 30 letters and 30 ICU notes to
do, 70 annotated ICU notes (other patients) as its test split, trained
(``LOOP_MODELS``, quick); then ``--take`` notes to do annotated (their
generated spans, no split: the run splits them) as Next to annotate would
give them, each way from the same trained project: the most unlike first
(the run's list, `unlike_to_do`), the most uncertain of those, the most
uncertain first (pre-annotated, the queue's order), and drawn at random; trained again, each scored on the
ICU test notes. For each of ``--seeds`` (the runs' seed and the random
draw's), one line per way: the notes taken (ICU among them), the model
selected and token recall / precision on the test notes; then each way's
mean over the seeds.
"""
from __future__ import annotations

import argparse


def _line(name: str, result, extra: str = "") -> str:
    if result is None:
        return f"{name}: too few annotated notes"
    return (f"{name}: {len(result.unlike)} of {result.todo} notes to do unlike the annotated "
            f"ones{extra} (annotated notes' unseen share: 95th percentile "
            f"{result.threshold:.3f}, median {result.typical:.3f})")


#: The members of the loop's runs: trained in seconds on a CPU.
LOOP_MODELS = ["crf", "rules"]
#: How the loop's notes to annotate are taken.
WAYS = ("most unlike first", "unlike, most uncertain first", "most uncertain first",
        "at random")


def _loop(take: int, seed: int) -> dict[str, tuple[float, float]]:
    """One seed of the ``--loop`` case (see the module docstring); returns
    ``{way: (token recall, token precision)}``, "before" among them."""
    import random
    import shutil
    import tempfile
    from dataclasses import replace
    from pathlib import Path

    from app.core.labels import PRESETS
    from app.project import Project
    from app.services.annotating import preannotate
    from app.services.evaluating import evaluate_project
    from app.services.familiarity import unlike_to_do
    from app.services.training import TrainConfig, train_project
    from app.synth import generate

    config = TrainConfig(models=LOOP_MODELS, budget="quick", seed=seed)
    letters = generate(70, seed=1, style="discharge")
    # Apart from the letters' patients (both number theirs from P0001).
    icu = [replace(d, patient_id=f"ICU-{d.patient_id}") for d in generate(100, seed=2, style="icu")]
    with tempfile.TemporaryDirectory(prefix="deid-familiarity-") as tmp:
        base = Path(tmp) / "base.deid"
        gold: dict[int, tuple] = {}
        with Project.create(base, list(PRESETS["paper"])) as p:
            for i, d in enumerate(letters[:40]):
                p.add_document(d.name, d.text, patient_id=d.patient_id, status="done",
                               split="dev" if i % 4 == 0 else "train", spans=d.spans)
            for d in icu[:70]:
                p.add_document(d.name, d.text, patient_id=d.patient_id, status="done",
                               split="test", spans=d.spans)
            for kind, d in [("letter", d) for d in letters[40:]] + [("icu", d) for d in icu[70:]]:
                doc_id = p.add_document(d.name, d.text, patient_id=d.patient_id)
                gold[doc_id] = (kind, d.spans)
            run = train_project(p, config)
            before = evaluate_project(p, table=False, bootstrap=0).report
            unlike = unlike_to_do(p)
        scores = {"before": _pair(before)}
        print(f"loop, seed {seed}: {len(gold)} notes to do ({sum(k == 'icu' for k, _ in gold.values())} ICU); "
              f"the run calls {len(unlike)} unlike the annotated letters; before: "
              f"{run.selected}, {_scores(before)} on the 70 ICU test notes ({', '.join(LOOP_MODELS)}, "
              f"quick)")
        for k, way in enumerate(WAYS):
            path = Path(tmp) / f"way{k}.deid"
            shutil.copyfile(base, path)
            with Project.open(path) as p:
                if way == "most unlike first":
                    chosen = unlike_to_do(p)[:take]
                elif way in ("most uncertain first", "unlike, most uncertain first"):
                    preannotate(p)
                    among = unlike_to_do(p) if way.startswith("unlike") else None
                    chosen = [i.id for i in p.document_infos(status="todo", order="uncertainty",
                                                             ids=among, limit=take)]
                else:
                    chosen = random.Random(seed).sample(sorted(gold), take)
                with p.transaction():
                    for doc_id in chosen:
                        for span in gold[doc_id][1]:
                            p.add_span(doc_id, span.start, span.end, span.label)
                        p.set_document_fields(doc_id, status="done")   # split by the run
                run = train_project(p, config)
                after = evaluate_project(p, table=False, bootstrap=0).report
            icu_taken = sum(gold[i][0] == "icu" for i in chosen)
            print(f"loop, seed {seed}, {take} notes annotated {way} ({icu_taken} ICU): "
                  f"{run.selected}, {_scores(after)}")
            scores[way] = _pair(after)
    return scores


def _pair(report) -> tuple[float, float]:
    token = report.micro["token"]
    return token.recall, token.precision


def _scores(report) -> str:
    token = report.micro["token"]
    return (f"token recall {token.recall:.3f}, precision {token.precision:.3f}, "
            f"{report.notes_with_missed} of {report.notes_with_identifiers} notes leaking")


def main(argv: list[str] | None = None) -> int:
    from app.bench.config import physionet_dir
    from app.bench.corpora import physionet_folds, physionet_patient
    from app.services.familiarity import assess
    from app.synth import generate

    parser = argparse.ArgumentParser(prog="python -m app.bench.familiarity")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--loop", action="store_true",
                        help="also train: what annotating the unlike notes first buys (minutes)")
    parser.add_argument("--take", type=int, default=10, help="--loop: notes annotated")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3],
                        help="--loop: one loop a seed, then the means")
    args = parser.parse_args(argv)
    root = physionet_dir()
    if root is None:
        print("physionet: not found ($DEID_PHYSIONET or ../shared/data/physionet-deid)")
    else:
        notes = {p.stem: p.read_text(encoding="utf-8") for p in sorted((root / "train").glob("*.txt"))}
        fold_of = physionet_folds(list(notes), args.folds)
        for k in range(args.folds):
            todo = [(stem, text) for stem, text in notes.items()
                    if fold_of.get(physionet_patient(stem)) == k]
            annotated = [(str(physionet_patient(stem)), text) for stem, text in notes.items()
                         if fold_of.get(physionet_patient(stem)) != k]
            print(_line(f"physionet fold {k}", assess(annotated, todo)))
    letters = generate(60, seed=1, style="discharge")
    icu = generate(20, seed=2, style="icu")
    annotated = [(d.patient_id, d.text) for d in letters[:40]]
    todo = [(f"letter {i}", d.text) for i, d in enumerate(letters[40:])] + \
        [(f"icu {i}", d.text) for i, d in enumerate(icu)]
    result = assess(annotated, todo)
    icu_unlike = sum(str(i).startswith("icu") for i in result.unlike)
    print(_line("synthetic letters against letters and ICU notes", result,
                f": {icu_unlike} of the 20 ICU notes, "
                f"{len(result.unlike) - icu_unlike} of the 20 letters"))
    if args.loop:
        runs = [_loop(args.take, seed) for seed in args.seeds]
        for way in runs[0]:
            recall = sum(r[way][0] for r in runs) / len(runs)
            precision = sum(r[way][1] for r in runs) / len(runs)
            print(f"loop, mean of {len(runs)} seeds, {way}: token recall {recall:.3f}, "
                  f"precision {precision:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
