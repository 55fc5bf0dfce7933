"""Prediction speed of a saved transformer member on this machine's CPU: fp32 vs int8.

    python -m app.bench.transformer MODEL_DIR NOTES_DIR [--limit N]

MODEL_DIR is a saved ``transformer`` member (e.g. one a GPU run trained,
brought back by ``build/gpu_check.sh`` with ``GPU_CHECK_EXPORT``); NOTES_DIR
holds plain ``.txt`` notes. Both loads read the same fp16 weights; the
int8 one quantises the linear layers dynamically (what a CPU predicts with
by default). Prints characters a second of each, their ratio, and how many
tokens the two call differently (identifier or not), so the choice of
int8 is made on figures of one run.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def measure(model_dir: Path, notes: list[str]) -> dict:
    """Figures of fp32 and int8 prediction over ``notes`` (one run)."""
    import torch

    from app.core.tokenize import segment
    from app.models.transformer_ner import TransformerModel

    items = [(text, seg) for text in notes for seg in segment(text)]
    chars = sum(len(t) for t in notes)
    out: dict = {"notes": len(notes), "chars": chars, "threads": torch.get_num_threads()}
    calls = {}
    for name, quantize in (("fp32", False), ("int8", True)):
        model = TransformerModel.load(model_dir, device="cpu", quantize=quantize)
        started = time.perf_counter()
        tags = model.predict(items)
        seconds = time.perf_counter() - started
        calls[name] = [t != "O" for seq in tags for t in seq.tags]
        out[name] = {"seconds": round(seconds, 1), "chars_per_s": round(chars / seconds)}
    differ = sum(a != b for a, b in zip(calls["fp32"], calls["int8"]))
    out["int8_speedup"] = round(out["int8"]["chars_per_s"] / out["fp32"]["chars_per_s"], 2)
    out["tokens"] = len(calls["fp32"])
    out["tokens_called_differently"] = differ
    out["identifier_tokens_fp32"] = sum(calls["fp32"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("notes_dir", type=Path)
    ap.add_argument("--limit", type=int, default=None, help="the first N notes (by name)")
    args = ap.parse_args(argv)
    paths = sorted(args.notes_dir.glob("*.txt"))[:args.limit]
    notes = [p.read_text(encoding="utf-8") for p in paths]
    print(json.dumps(measure(args.model_dir, notes), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
