"""Fill ``.gpu/`` (git-ignored) with what ``build/gpu_check.sh`` carries to a lent GPU.

The device tool sends at most 64 MiB: the project's tree (about 9 MB), the
wheels the GPU machine lacks (about 10 MB), the PhysioNet training notes
packed (about 3 MB) and a slim copy of the vendored MiniLM: its word pieces
cut to those the PhysioNet notes use plus every single character, in fp16
(about 29 MB instead of 88 MB; the notes tokenise identically, since the
transformer member cuts the vocabulary the same way: app.models.transformer_ner).

    python build/gpu_prepare.py [--physionet DIR] [--out .gpu] [--no-wheels]
    python build/gpu_prepare.py --stanza --no-minilm    # for the Stanza member instead
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

#: What the check's members need that the GPU machine's Python 3.12 lacks (it
#: has torch, transformers, numpy, scikit-learn: ../shared/GPU-DEVICE.md).
#: Fetched at the versions installed here, so the GPU runs what the tests ran.
GPU_WHEELS = ("python-crfsuite", "xgboost-cpu", "scikit-optimize", "pyaml", "PyYAML", "Faker",
              "psutil", "charset-normalizer")
#: What the Stanza member adds (``--stanza``): Stanza and its dependencies, and
#: gensim for the word vectors it trains on the site's notes (about 32 MB: with
#: the slim MiniLM it would not fit what travels, so ``--no-minilm`` with it).
STANZA_WHEELS = ("stanza", "emoji", "orjson", "protobuf", "platformdirs", "udtools", "udapi",
                 "termcolor", "colorama", "regex", "gensim", "smart-open", "wrapt")
#: The GPU machine's wheel tags: CPython 3.12 on manylinux x86-64.
_TAGS = ["--python-version", "3.12", "--implementation", "cp", "--abi", "cp312", "--abi", "abi3",
         "--abi", "none", "--platform", "any",
         *(arg for tag in ("manylinux1", "manylinux2010", "manylinux2014", "manylinux_2_5",
                           "manylinux_2_12", "manylinux_2_17", "manylinux_2_24", "manylinux_2_28")
           for arg in ("--platform", f"{tag}_x86_64"))]


def fetch_wheels(dest: Path, names: tuple[str, ...] = GPU_WHEELS) -> list[Path]:
    """Download the wheels of ``names`` for the GPU machine into ``dest``,
    replacing those there (the package registry must be reachable from here;
    nothing is fetched there)."""
    from importlib.metadata import version

    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("*.whl"):
        old.unlink()
    pins = [f"{name}=={version(name)}" for name in names]
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--dest", str(dest),
                    "--no-deps", "--only-binary=:all:", *_TAGS, *pins], check=True)
    return sorted(dest.glob("*.whl"))


def slim_minilm(dest: Path, texts: list[str]) -> int:
    """Write the slim MiniLM copy into ``dest``; returns its size in bytes."""
    import torch
    from safetensors.torch import load_file, save_file

    from app.models.transformer_ner import base_model_path, cut_vocabulary

    src = base_model_path()
    vocab = (src / "vocab.txt").read_text(encoding="utf-8").splitlines()
    keep = cut_vocabulary(vocab, iter(texts))
    dest.mkdir(parents=True, exist_ok=True)
    state = load_file(str(src / "model.safetensors"))
    emb = next(k for k in state if k.endswith("embeddings.word_embeddings.weight"))
    state[emb] = state[emb][torch.tensor(keep)]
    save_file({k: v.to(torch.float16).contiguous() for k, v in state.items()
               if v.is_floating_point()}, str(dest / "model.safetensors"))
    config = json.loads((src / "config.json").read_text(encoding="utf-8"))
    config["vocab_size"] = len(keep)
    (dest / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    (dest / "vocab.txt").write_text("\n".join(vocab[i] for i in keep) + "\n", encoding="utf-8")
    return sum(f.stat().st_size for f in dest.iterdir())


def main() -> None:
    from app.bench.config import physionet_dir

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--physionet", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=Path(".gpu"))
    ap.add_argument("--no-wheels", action="store_true",
                    help="keep the wheels already in OUT/whl (no registry here)")
    ap.add_argument("--stanza", action="store_true",
                    help="also carry Stanza and gensim, to check the Stanza member "
                         "(GPU_CHECK_MODELS='stanza crf rules starter'); needs --no-minilm")
    ap.add_argument("--no-minilm", action="store_true",
                    help="leave the slim MiniLM out (no transformer member in the check)")
    args = ap.parse_args()
    if args.stanza and not args.no_minilm:
        ap.error("--stanza needs --no-minilm: both would not fit the 64 MiB that travel")
    root = args.physionet or physionet_dir()
    if root is None:
        raise SystemExit("PhysioNet deid notes not found (../shared/data/physionet-deid)")
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    if not args.no_wheels:
        wheels = fetch_wheels(out / "whl", GPU_WHEELS + (STANZA_WHEELS if args.stanza else ()))
        print(f"wheels: {len(wheels)}, {sum(w.stat().st_size for w in wheels) / 2**20:.1f} MiB")
    if args.no_minilm:
        shutil.rmtree(out / "models", ignore_errors=True)
    else:
        texts = [p.read_text(encoding="utf-8") for p in sorted((root / "train").glob("*.txt"))]
        size = slim_minilm(out / "models" / "all-MiniLM-L6-v2", texts)
        print(f"slim MiniLM: {size / 2**20:.1f} MiB")
    with tarfile.open(out / "physionet.tar.gz", "w:gz") as tar:
        for part in ("train", "lists"):
            if (root / part).is_dir():
                tar.add(root / part, arcname=part)
        for name in ("README.md", "LICENSE"):
            if (root / name).is_file():
                tar.add(root / name, arcname=name)
    print(f"PhysioNet notes: {(out / 'physionet.tar.gz').stat().st_size / 2**20:.1f} MiB")
    shutil.rmtree(out / "__pycache__", ignore_errors=True)


if __name__ == "__main__":
    main()
