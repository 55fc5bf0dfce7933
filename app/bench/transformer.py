"""Speed of the transformer member on this machine's CPU: prediction in
fp32, int8 and bfloat16, and training steps in fp32 and bfloat16.

    python -m app.bench.transformer MODEL_DIR NOTES_DIR [--limit N]
    python -m app.bench.transformer --fit NOTES_DIR [--limit N] [--steps N]

MODEL_DIR is a saved ``transformer`` member (e.g. one a GPU run trained,
brought back by ``build/gpu_check.sh`` with ``GPU_CHECK_EXPORT``); NOTES_DIR
holds plain ``.txt`` notes. Every load reads the same fp16 weights: fp32
computes in float32, int8 quantises the linear layers dynamically, bf16
runs the network in bfloat16 with its weights packed for the CPU's matrix
units (`app.models.packed_bert`; measured only where the CPU has bfloat16 in
hardware, ``cpu_bf16``; the default there). Prints characters a second of
each, their ratio to fp32, and how many tokens each calls differently from
fp32 (identifier or not), so the default is chosen on figures of one run.

``--fit`` times training steps of the vendored MiniLM on windows of the
notes as a CPU fit packs them (batches of 16, all tags ``O``: the cost does
not depend on them), in float32 and in bfloat16, alternated so both meet the
same machine load; prints seconds a step, word pieces a second and their ratio.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def measure(model_dir: Path, notes: list[str]) -> dict:
    """Figures of fp32, int8 and (where the CPU has it) bf16 prediction over
    ``notes`` (one run)."""
    import torch

    from app.core.tokenize import segment
    from app.models.transformer_ner import TransformerModel, cpu_bf16

    items = [(text, seg) for text in notes for seg in segment(text)]
    chars = sum(len(t) for t in notes)
    out: dict = {"notes": len(notes), "chars": chars, "threads": torch.get_num_threads(),
                 "cpu_bf16": cpu_bf16()}
    calls = {}
    for compute in ("fp32", "int8", "bf16") if out["cpu_bf16"] else ("fp32", "int8"):
        model = TransformerModel.load(model_dir, device="cpu", compute=compute)
        started = time.perf_counter()
        tags = model.predict(items)
        seconds = time.perf_counter() - started
        calls[compute] = [t != "O" for seq in tags for t in seq.tags]
        out[compute] = {"seconds": round(seconds, 1), "chars_per_s": round(chars / seconds)}
    for compute in calls:
        out[compute]["speedup"] = round(out[compute]["chars_per_s"] / out["fp32"]["chars_per_s"], 2)
        out[compute]["tokens_called_differently"] = sum(
            a != b for a, b in zip(calls["fp32"], calls[compute]))
    out["tokens"] = len(calls["fp32"])
    out["identifier_tokens_fp32"] = sum(calls["fp32"])
    return out


def measure_fit(notes: list[str], steps: int = 4) -> dict:
    """Training-step figures of a CPU fit in float32 and in bfloat16,
    ``steps`` timed steps each after one warm-up, alternated (one run)."""
    import torch

    from app.core.tokenize import segment
    from app.models import transformer_ner as T

    base_vocab = T._read_vocab(T.base_model_path() / T._VOCAB)
    keep = T.cut_vocabulary(base_vocab, iter(notes))
    pieces = T.WordPieces([base_vocab[i] for i in keep])
    items = [(text, seg) for text in notes for seg in segment(text) if seg.tokens]
    windows = T.sliding_windows(items, pieces, T.DEFAULTS["max_length"], 0.0)
    batch = T.DEFAULTS["batch_size"]
    if len(windows) < batch:
        raise ValueError(f"the notes make {len(windows)} training windows; "
                         f"a step reads {batch}: give more notes")
    tags = ["O", "B-NAME", "I-NAME"]
    case = bool(T.DEFAULTS["case"])          # as a fit reads its pieces
    runs = {}
    for name in ("fp32", "bf16"):
        torch.manual_seed(0)
        net, _ = T._base_network(tags, keep, T.CPU_ATTENTION_DROPOUT, case=case)
        net.train()
        runs[name] = {"net": net, "bf16": name == "bf16", "seconds": [],
                      "opt": torch.optim.AdamW(net.parameters(), lr=1e-4)}
    chunks = [windows[i:i + batch] for i in range(0, len(windows) - batch + 1, batch)]

    def step(run: dict, chunk) -> float:
        ids, mask, types = T._tensors(chunk, pieces, "cpu")
        started = time.perf_counter()
        with T._autocast("cpu", run["bf16"]):
            logits = run["net"](input_ids=ids, attention_mask=mask,
                                token_type_ids=types if case else None).logits
        gold = torch.zeros(ids.shape, dtype=torch.long)
        torch.nn.functional.cross_entropy(logits.reshape(-1, len(tags)).float(), gold.reshape(-1)).backward()
        run["opt"].step()
        run["opt"].zero_grad(set_to_none=True)
        return time.perf_counter() - started

    read = 0
    for k in range(steps + 1):
        chunk = chunks[k % len(chunks)]
        for run in runs.values():
            seconds = step(run, chunk)
            if k:                       # the first step of each warms up
                run["seconds"].append(seconds)
        if k:
            read += sum(len(w.ids) + 2 for w in chunk)
    out: dict = {"notes": len(notes), "windows": len(windows), "batch": batch, "steps": steps,
                 "threads": torch.get_num_threads(), "cpu_bf16": T.cpu_bf16()}
    for name, run in runs.items():
        total = sum(run["seconds"])
        out[name] = {"seconds_a_step": round(total / steps, 2), "pieces_per_s": round(read / total)}
    out["bf16_speedup"] = round(out["bf16"]["pieces_per_s"] / out["fp32"]["pieces_per_s"], 2)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", type=Path, nargs="+",
                    help="MODEL_DIR NOTES_DIR, or with --fit only NOTES_DIR")
    ap.add_argument("--fit", action="store_true",
                    help="time training steps instead of a saved model's prediction")
    ap.add_argument("--steps", type=int, default=4, help="timed training steps of each (--fit)")
    ap.add_argument("--limit", type=int, default=None, help="the first N notes (by name)")
    args = ap.parse_args(argv)
    if len(args.dirs) != (1 if args.fit else 2):
        ap.error("give NOTES_DIR with --fit, else MODEL_DIR NOTES_DIR")
    paths = sorted(args.dirs[-1].glob("*.txt"))[:args.limit]
    notes = [p.read_text(encoding="utf-8") for p in paths]
    if args.fit:
        print(json.dumps(measure_fit(notes, args.steps), indent=1))
    else:
        print(json.dumps(measure(args.dirs[0], notes), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
