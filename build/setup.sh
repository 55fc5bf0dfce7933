#!/usr/bin/env bash
# One-step set-up for developers and CI.
#   bash build/setup.sh demo   -> install, then run `deid demo` on the bundled sample notes
#   bash build/setup.sh test   -> install (with test extras), then run the whole test suite
# The venv lives in .venv; the install is skipped when pyproject.toml has not changed.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-test}"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.deid-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  # torch first and pinned: an unpinned resolve pulls gigabytes of CUDA wheels.
  .venv/bin/python -m pip install -q "torch==2.13.0"
  # cluster: CI runs the Dask tests (scheduler and workers on 127.0.0.1).
  .venv/bin/python -m pip install -q -e ".[dev,cluster]"
  echo "$want" > "$stamp"
fi
export QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
case "$what" in
  demo) shift || true; exec .venv/bin/deid demo "${@:-deid-demo}" ;;
  test) shift || true; exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@" ;;
  *) echo "usage: bash build/setup.sh demo|test" >&2; exit 1 ;;
esac
