"""The starter model: useful English predictions before any annotation.

A new English project has no trained run; it predicts with the starter
that ships with the application (``resources/starter/``):

* ``crf`` -- a CRF (`app.models.crf_ner`) trained only on synthetic notes
  from `app.synth` (discharge letters and ICU nursing notes, half each),
  with the generator's extended labels;
* ``rules`` -- the rule recogniser (`app.rules`) with a fixed mapping;
* ``names`` -- the shipped name lists with their context cues
  (`app.models.names_model`).

Their spans are joined (a union, rules first, then names, then the CRF:
day one favours recall) and mapped onto the project's labels
(`label_map`): "PERSON" becomes the project's NAME in a HIPAA project,
HOSPITAL and LOCATION become its LOCATION, and so on; a kind of identifier
the project has no label for is dropped. Ages under 90 are dropped too:
only ages over 89 identify (HIPAA).

The starter is rebuilt by ``python -m app.services.starter OUT_DIR`` (the
same command wrote the shipped one; see ``resources/starter/README.md``):
deterministic synthetic notes, a fixed seed, no benchmark data.
"""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Sequence

from app.models.starter_model import (MANIFEST, MEMBERS, label_map, starter_dir,  # noqa: F401
                                      starter_manifest)

STARTER_NAME = "starter model"
STARTER_REASON = ("no trained run yet: the starter model that ships with DeID Studio "
                  "(trained on synthetic notes only, with rules and name lists)")
DEFAULT_NOTES = 6000
DEFAULT_SEED = 19

# Project setting: False turns the starter off (no day-one suggestions;
# read by app.services.prediction.resolve).
STARTER_SETTING = "starter_model"


def starter_identity() -> str:
    """Names the shipped starter precisely (for resume fingerprints); no identifier."""
    import hashlib

    digest = hashlib.sha256((starter_dir() / "crf" / "model.crfsuite").read_bytes()).hexdigest()
    return json.dumps({"model": STARTER_NAME, "crf": digest[:16]}, sort_keys=True)


# -------------------------------------------------------------------- build

#: The starter encoder's fit: notes and word pieces (a CPU fit's recipe, two
#: epochs; about 18 minutes on 2 cores).
TRANSFORMER_NOTES = 3000
TRANSFORMER_PIECES = 400_000
TRANSFORMER_SEED = 23


def build_starter_transformer(out_dir: Path, *, n_notes: int = TRANSFORMER_NOTES,
                              seed: int = TRANSFORMER_SEED,
                              pieces: int = TRANSFORMER_PIECES) -> dict:
    """Fine-tune the vendored MiniLM on synthetic notes only, on the CPU, and
    write its encoder to ``out_dir/transformer/encoder.safetensors``
    (``pack_encoder``: each tensor's change from MiniLM, the word-piece rows
    the fit trained named by piece; the tagging head is left out, a site's
    fit grows its own).
    Records how it was built under ``transformer`` in the manifest and
    returns that record."""
    from safetensors.torch import save_file

    from app.models import transformer_ner as T
    from app.models.base import TrainContext
    from app.models.datasets import build_corpus
    from app.synth import generate

    out_dir = Path(out_dir)
    t0 = time.monotonic()
    docs = generate(n_notes, seed=seed, locale="en_US", label_set="extended", style="mixed")
    corpus = build_corpus(docs, dev_fraction=0.05, seed=seed).corpus
    work = out_dir / "work"
    # Every layer, as before a CPU fit kept fewer (`CPU_LAYERS`): a site's fit
    # starts from as many of them as it keeps.
    # Uncased, so its file holds MiniLM's token types and a site's fit grows
    # its case types from the one it used (`T.CASE_TYPES`).
    spec = T.TransformerSpec(init="minilm", pieces=pieces, layers=T.MINILM_LAYERS, case=False)
    model = spec.fit(corpus, TrainContext(workdir=work, device="cpu", budget="standard",
                                          seed=seed))
    shutil.rmtree(work, ignore_errors=True)
    base_vocab = T._read_vocab(T.base_model_path() / T._VOCAB)
    index = {piece: i for i, piece in enumerate(base_vocab)}
    base = T.minilm_state()
    tuned = {k.removeprefix("bert."): v for k, v in model.net.state_dict().items()
             if k.startswith("bert.") and v.is_floating_point()}
    encoder = T.pack_encoder(tuned, base, "embeddings.word_embeddings.weight",
                             [index[p] for p in model.vocab])
    metadata = {T.STARTER_ROW_PIECES: "\n".join(model.vocab)}
    path = out_dir / T.STARTER_ENCODER
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(encoder, str(path), metadata=metadata)
    details = model.fit_details()
    record = {
        "trained_on": {"generator": "app.synth.generate", "n_notes": n_notes, "seed": seed,
                       "style": "mixed", "locale": "en_US", "label_set": "extended",
                       "train_segments": len(corpus.train), "dev_segments": len(corpus.dev)},
        "fit": {k: details.get(k) for k in ("epochs_run", "best_epoch", "train_pieces",
                                             "learning_rate", "identifier_weight", "compute",
                                             "train_seconds")},
        "word_rows": len(model.vocab),
        "size_mb": round(path.stat().st_size / 2 ** 20, 1),
        "command": f"python -m app.services.starter OUT_DIR --transformer --n {n_notes} "
                   f"--seed {seed} --pieces {pieces}",
        "build_seconds": round(time.monotonic() - t0, 1),
    }
    manifest_path = out_dir / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) \
        if manifest_path.is_file() else {}
    manifest["transformer"] = record
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n",
                             encoding="utf-8")
    return record


def build_starter(out_dir: Path, *, n_notes: int = DEFAULT_NOTES, seed: int = DEFAULT_SEED,
                  iterations: int = 150) -> dict:
    """Train the starter's CRF on synthetic notes only and write it to ``out_dir``.

    ``out_dir/crf/`` holds the saved CRF, ``out_dir/starter.json`` the
    manifest (how it was built). Returns the manifest.
    """
    from app.models.base import TrainContext
    from app.models.crf_ner import CrfSpec
    from app.models.datasets import build_corpus
    from app.synth import generate

    out_dir = Path(out_dir)
    t0 = time.monotonic()
    docs = generate(n_notes, seed=seed, locale="en_US", label_set="extended", style="mixed")
    built = build_corpus(docs, dev_fraction=0.0, seed=seed)
    corpus = built.corpus
    # No word clusters: the shipped starter must not need the MiniLM weights.
    spec = CrfSpec(max_iterations=iterations, max_seconds=3600, hints="none", clusters="none")
    model = spec.fit(corpus, TrainContext(workdir=out_dir / "work", budget="standard", seed=seed))
    model.save(out_dir / "crf")
    for leftover in (out_dir / "work").glob("*"):
        leftover.unlink()
    (out_dir / "work").rmdir()
    manifest = {
        "name": STARTER_NAME, "version": 1, "members": list(MEMBERS),
        "labels": sorted(corpus.labels),
        "trained_on": {"generator": "app.synth.generate", "n_notes": n_notes, "seed": seed,
                       "style": "mixed", "locale": "en_US", "label_set": "extended",
                       "train_segments": len(corpus.train)},
        "crf": {"iterations": iterations, **model.info},
        "command": f"python -m app.services.starter OUT_DIR --n {n_notes} --seed {seed}",
        "build_seconds": round(time.monotonic() - t0, 1),
    }
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n",
                                    encoding="utf-8")
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m app.services.starter",
                                     description="Build the starter model from synthetic notes.")
    parser.add_argument("out_dir", type=Path, help="e.g. resources/starter")
    parser.add_argument("--n", type=int, default=None,
                        help=f"synthetic notes (default {DEFAULT_NOTES}; "
                             f"{TRANSFORMER_NOTES} with --transformer)")
    parser.add_argument("--seed", type=int, default=None,
                        help=f"default {DEFAULT_SEED}; {TRANSFORMER_SEED} with --transformer")
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--transformer", action="store_true",
                        help="build the starter's transformer encoder only (the CRF stays)")
    parser.add_argument("--pieces", type=int, default=TRANSFORMER_PIECES,
                        help="word pieces the transformer's fit reads (--transformer)")
    args = parser.parse_args(argv)
    if args.transformer:
        record = build_starter_transformer(args.out_dir, n_notes=args.n or TRANSFORMER_NOTES,
                                           seed=TRANSFORMER_SEED if args.seed is None else args.seed,
                                           pieces=args.pieces)
        print(f"starter transformer written to {args.out_dir} in {record['build_seconds']} s")
        return 0
    manifest = build_starter(args.out_dir, n_notes=args.n or DEFAULT_NOTES,
                             seed=DEFAULT_SEED if args.seed is None else args.seed,
                             iterations=args.iterations)
    print(f"starter written to {args.out_dir} in {manifest['build_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
