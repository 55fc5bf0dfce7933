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
"""
from __future__ import annotations

import argparse


def _line(name: str, result, extra: str = "") -> str:
    if result is None:
        return f"{name}: too few annotated notes"
    return (f"{name}: {len(result.unlike)} of {result.todo} notes to do unlike the annotated "
            f"ones{extra} (annotated notes' unseen share: 95th percentile "
            f"{result.threshold:.3f}, median {result.typical:.3f})")


def main(argv: list[str] | None = None) -> int:
    from app.bench.config import physionet_dir
    from app.bench.corpora import physionet_folds, physionet_patient
    from app.services.familiarity import assess
    from app.synth import generate

    parser = argparse.ArgumentParser(prog="python -m app.bench.familiarity")
    parser.add_argument("--folds", type=int, default=5)
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
