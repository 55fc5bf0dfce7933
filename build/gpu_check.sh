#!/usr/bin/env bash
# The GPU check: one prepared run on a lent GPU (the device tool, see
# ../shared/GPU-DEVICE.md), and its CPU-only dry mode for CI.
#
#   python build/gpu_prepare.py        # here, once: fills .gpu/ (git-ignored):
#                                      # wheels the GPU machine lacks, a slim MiniLM,
#                                      # the PhysioNet training notes packed
#   bash build/gpu_check.sh --dry-run  # CI and here: checks the carried files (when
#                                      # .gpu/ exists) and every command line, no GPU
#   bash build/gpu_check.sh            # on the GPU machine, through the device tool:
#        run(command="bash build/gpu_check.sh", carry=[".gpu"], timeout_s=590)
#   python build/gpu_prepare.py --stanza --no-minilm   # or: the Stanza member's wheels
#                                      # and gensim instead of the MiniLM (both do not fit),
#        run(command="GPU_CHECK_MODELS='stanza crf rules starter' bash build/gpu_check.sh", ...)
#
# On the GPU it installs the wheels (no network there), trains the PhysioNet
# training notes (the bench's split: dev patients held out as test) with
# --device cuda on the standard budget, prints each member's training time,
# GPU memory and dev figures and every candidate's figures on the dev
# patients, then annotates the dev patients' plain notes with the selected
# model and prints its throughput. Figures go to the terminal and to $OUT, two
# files a run (the device tool brings back at most 8 a call): gpu-check.log,
# which holds the bench's report and a summary, and the bench's JSON record.
set -euo pipefail
cd "$(dirname "$0")/.."
# GPU_CHECK_MODELS, GPU_CHECK_BUDGET and GPU_CHECK_DATA (data variants) narrow
# the run; GPU_CHECK_EXPORT=MEMBER brings that trained member back in $OUT
# (a tar in parts of 15 MiB, the device tool's limit per file) to measure it
# on a CPU; GPU_CHECK_ANNOTATE=0 skips the annotation. GPU_CHECK_FOLD=K trains
# and scores fold K of the 5-fold bench instead (patients nobody tuned on;
# `accuracy --folds 5 --fold K`), with the hospital lists when
# GPU_CHECK_LISTS=1; it implies no annotation (the fold's test notes are not
# the dev patients). GPU_CHECK_FOLD=all trains and scores all 5 folds at once,
# each in its own process (`accuracy --folds 5 --folds-at-once 5 --jobs 2`: two members
# of each fold side by side): one record, the mean
# of patients nobody tuned on. GPU_CHECK_CROSS_FIT=K chooses on every training note,
# K-fold cross-fitted by patient (`deid train --cross-fit K`; each trained
# member fitted K more times: about 5 more minutes for K=5 on an H100).
# GPU_CHECK_SEED=N seeds the training (the bench's --seed, default 13), so a
# change can be measured over more than one draw.
# GPU_CHECK_TAG=NAME keeps a run's files apart ($OUT/NAME, its own work folder),
# so that several settings can run side by side in one call of the device tool.
MODELS="${GPU_CHECK_MODELS:-transformer crf rules starter}"
BUDGET="${GPU_CHECK_BUDGET:-standard}"
DATA="${GPU_CHECK_DATA:-balanced imbalanced}"
CROSS_FIT="${GPU_CHECK_CROSS_FIT:-0}"
SEED="${GPU_CHECK_SEED:-13}"
CARRY="${GPU_CHECK_CARRY:-.gpu}"   # another folder only for the dry mode's tests
dry=0
[ "${1:-}" = "--dry-run" ] && dry=1

if [ "$dry" = 1 ]; then
  PY="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3)}"
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
  if [ -d "$CARRY" ]; then
    # What travels: at most 64 MiB with the tracked tree (about 22 MB, the
    # starter's transformer encoder 14 of them).
    size=$(du -sm "$CARRY" | cut -f1)
    tree=$(( ( $(git ls-files -z | xargs -0 cat 2>/dev/null | wc -c) + 1048575 ) / 1048576 ))
    [ $(( size + tree )) -le 63 ] || {
      echo "gpu_check: $CARRY is $size MiB and the tree $tree MiB: too much to carry" >&2; exit 1; }
    ls "$CARRY"/whl/*cp312*.whl "$CARRY"/whl/*py3*.whl >/dev/null
    test -s "$CARRY/physionet.tar.gz"
    # The transformer needs the slim MiniLM, Stanza its wheels and gensim's
    # (python build/gpu_prepare.py --stanza --no-minilm).
    case " $MODELS " in *" transformer "*)
      test -s "$CARRY/models/all-MiniLM-L6-v2/model.safetensors" ;; esac
    case " $MODELS " in *" stanza "*)
      ls "$CARRY"/whl/stanza-*.whl "$CARRY"/whl/gensim-*.whl >/dev/null ;; esac
    echo "gpu_check: carried files ok ($size MiB)"
  else
    echo "gpu_check: no $CARRY/ here (python build/gpu_prepare.py makes it); command lines only"
  fi
  # Every command line the real run uses, parsed without running it.
  "$PY" - "$MODELS" "$BUDGET" "$DATA" "$CROSS_FIT" "$SEED" <<'EOF'
import sys
from app.bench.cli import build_parser
from app.cli.main import build_parser as deid_parser
from app.models.base import known_kinds

models, budget = sys.argv[1].split(), sys.argv[2]
unknown = sorted(set(models) - set(known_kinds()))
assert not unknown, f"unknown model kinds {unknown}"
build_parser().parse_args(["accuracy", "--corpus", "physionet", "--budget", budget,
                           "--models", *models, "--data", *sys.argv[3].split(),
                           "--cross-fit", sys.argv[4], "--seed", sys.argv[5], "--out", "/tmp/x", "-q"])
build_parser().parse_args(["accuracy", "--corpus", "physionet", "--folds", "5", "--folds-at-once", "5", "--jobs", "2",
                           "--budget", budget, "--models", *models, "--out", "/tmp/x", "-q"])
build_parser().parse_args(["accuracy", "--corpus", "physionet", "--folds", "5", "--fold", "3",
                           "--lists", "--budget", budget, "--models", *models,
                           "--data", *sys.argv[3].split(), "--cross-fit", sys.argv[4],
                           "--seed", sys.argv[5], "--out", "/tmp/x"])
deid_parser().parse_args(["annotate", "p.deid", "in", "out", "--workers", "1"])
deid_parser().parse_args(["doctor"])
print("gpu_check: command lines ok:", " ".join(models), budget)
EOF
  exit 0
fi

OUT="${OUT:-$PWD/out/gpu-check}${GPU_CHECK_TAG:+/$GPU_CHECK_TAG}"
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-check.log") 2>&1
work=/tmp/deid-gpu-check${GPU_CHECK_TAG:+-$GPU_CHECK_TAG}
rm -rf "$work" && mkdir -p "$work/physionet" "$work/dev-notes" "$work/annotated"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target "$work/site" "$CARRY"/whl/*.whl
export PYTHONPATH="$PWD:$work/site" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export DEID_MODELS_DIR="$PWD/$CARRY/models" DEID_PHYSIONET="$work/physionet"
tar xzf "$CARRY/physionet.tar.gz" -C "$work/physionet"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
python3 -c 'import sys, torch, transformers; print("python", sys.version.split()[0], "torch", torch.__version__, "transformers", transformers.__version__, "cuda", torch.cuda.is_available())'
python3 -m app.cli doctor || true

start=$(date +%s)
if [ -n "${GPU_CHECK_FOLD:-}" ]; then
  lists=(); [ "${GPU_CHECK_LISTS:-0}" = 1 ] && lists=(--lists)
  which=(--fold "$GPU_CHECK_FOLD"); [ "$GPU_CHECK_FOLD" = all ] && which=(--folds-at-once 5 --jobs 2)
  python3 -m app.bench accuracy --corpus physionet --folds 5 "${which[@]}" "${lists[@]}" \
    --budget "$BUDGET" --models $MODELS --data $DATA --cross-fit "$CROSS_FIT" --seed "$SEED" --out "$work/bench"
  echo "gpu_check: fold $GPU_CHECK_FOLD train + score took $(( $(date +%s) - start )) s"
  cp "$work"/bench/accuracy-physionet-folds*.json "$OUT/"
  cat "$work"/bench/accuracy-physionet-folds*.md
  exit 0
fi
python3 -m app.bench accuracy --corpus physionet --budget "$BUDGET" --models $MODELS \
  --data $DATA --cross-fit "$CROSS_FIT" --seed "$SEED" --out "$work/bench"
echo "gpu_check: train + score took $(( $(date +%s) - start )) s"
project=$(ls "$work"/bench/projects/*.deid | head -1)
if [ -n "${GPU_CHECK_EXPORT:-}" ]; then
  python3 - "$project" "$GPU_CHECK_EXPORT" "$work/export" <<'EOF'
import sys
from pathlib import Path
from app.project import Project
from app.services.runs import active_run
project = Project.open(Path(sys.argv[1]))
art = active_run(project).member_artifacts(project)[sys.argv[2]]
project.extract_artifact(art.id, Path(sys.argv[3]))
project.close()
EOF
  tar cf - -C "$work/export" . | split -b 15M - "$OUT/member.tar.part-"
fi

# The dev patients' plain notes, annotated as a user would with the selected model.
python3 - "$work" <<'EOF'
import shutil, sys
from pathlib import Path
from app.bench.corpora import physionet_is_dev
work = Path(sys.argv[1])
for p in sorted((work / "physionet" / "train").glob("*.txt")):
    if physionet_is_dev(p.stem):
        shutil.copyfile(p, work / "dev-notes" / p.name)
EOF
chars=$(cat "$work"/dev-notes/*.txt | wc -m)
t0=$(date +%s.%N)
if [ "${GPU_CHECK_ANNOTATE:-1}" = 1 ]; then
  python3 -m app.cli annotate "$project" "$work/dev-notes" "$work/annotated" --workers 1
fi
t1=$(date +%s.%N)
python3 - "$work" "$OUT" "$chars" "$t0" "$t1" "${GPU_CHECK_ANNOTATE:-1}" <<'EOF'
import json, shutil, sys
from pathlib import Path
work, out = Path(sys.argv[1]), Path(sys.argv[2])
chars, t0, t1 = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
record = next((work / "bench").glob("accuracy-physionet*.json"))
shutil.copyfile(record, out / "bench-record.json")
res = json.loads(record.read_text())["results"]
print(record.with_suffix(".md").read_text())
# The member's figures last: its refit record, not the scored fit's "refit": false.
members = {n: (m.get("params") or {}).get("fit", {})
           | {k: m.get(k) for k in ("seconds", "peak_mb", "dev_f1", "refit")}
           for n, m in res["train"]["members"].items()}
summary = {"device": res["train"]["device"], "selected": res["train"]["selected"],
           "train_seconds": res["train"]["seconds"], "members": members,
           "annotate": {"notes_chars": chars, "seconds": round(t1 - t0, 1),
                        "chars_per_s": round(chars / max(t1 - t0, 1e-9))}
           if sys.argv[6] == "1" else None}
print("gpu_check: summary", json.dumps(summary, indent=1))
EOF
echo "gpu_check: done in $(( $(date +%s) - start )) s"
