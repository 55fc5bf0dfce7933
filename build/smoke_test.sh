#!/usr/bin/env bash
# Smoke test of a built bundle (bash build/build.sh first).
#   bash build/smoke_test.sh [BUNDLE_DIR] [OUT_DIR]
# The bundle is copied to a new path containing a space (relocatability) and run
# with an empty environment and a fresh HOME (nothing from the build machine's
# venv, caches or ~ can help), inside a network namespace without network when
# `unshare -n` is allowed (proves offline). Writes OUT_DIR/main-window*.png.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC="$(realpath "${1:-dist/deid-studio}")"
OUT="$(realpath -m "${2:-work/smoke}")"
[ -x "$SRC/deid" ] || { echo "smoke: no bundle at $SRC (run build/build.sh)" >&2; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
APPDIR="$tmp/moved copy/DeID Studio"
mkdir -p "$(dirname "$APPDIR")" "$tmp/home"
cp -a "$SRC" "$APPDIR"

clean_env=(env -i "HOME=$tmp/home" PATH=/usr/bin:/bin LANG=C.UTF-8)
netns=()
if unshare -n true 2>/dev/null; then netns=(unshare -n)
elif unshare -rn true 2>/dev/null; then netns=(unshare -rn)
else echo "smoke: unshare -n not permitted here; running WITH network (offline not proven)"; fi
run() { "${netns[@]}" "${clean_env[@]}" "$@"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b-a}'; }
step() { echo; echo "== $*"; }

step "bundle: $APPDIR ($(du -sh "$APPDIR" | cut -f1)); network namespace: ${netns[*]:-none}"

step "deid --help (cold start)"
t=$(now); run "$APPDIR/deid" --help > "$OUT/help.txt"; e=$(now)
head -3 "$OUT/help.txt"
echo "deid --help: $(secs "$t" "$e") s"
t=$(now); run "$APPDIR/deid" --help > /dev/null; e=$(now)
echo "deid --help (warm): $(secs "$t" "$e") s"

step "deid doctor"
run "$APPDIR/deid" doctor | tee "$OUT/doctor.txt"

step "deid: user error exit code"
set +e; run "$APPDIR/deid" import "$tmp/missing.deid" "$tmp" 2> "$OUT/user-error.txt"; rc=$?; set -e
cat "$OUT/user-error.txt"
[ "$rc" = 1 ] || { echo "smoke: expected exit 1 for a missing project, got $rc" >&2; exit 1; }

step "deid demo"
t=$(now); run "$APPDIR/deid" -q demo "$tmp/demo" | tee "$OUT/demo.txt"; e=$(now)
echo "deid demo: $(secs "$t" "$e") s"
[ -f "$tmp/demo/sample.deid" ] || { echo "smoke: demo wrote no project" >&2; exit 1; }

step "day one: starter model, deid annotate on 5 sample notes with a new empty project"
mkdir -p "$tmp/in"
notes=("$APPDIR/_internal/resources/sample/notes/"*.txt)
cp "${notes[@]:0:5}" "$tmp/in/"
run "$APPDIR/deid" -q new "$tmp/day1.deid" --labels hipaa
run "$APPDIR/deid" annotate "$tmp/day1.deid" "$tmp/in" "$tmp/annotated" | tee "$OUT/annotate.txt"
grep -q "starter model" "$OUT/annotate.txt" || { echo "smoke: annotate did not use the starter model" >&2; exit 1; }
echo "$(cat "$tmp/annotated/"*.ann | wc -l) predicted spans in 5 notes"

step "deid-studio (offscreen) -> main-window.png"
t=$(now)
run QT_QPA_PLATFORM=offscreen "DEID_SCREENSHOT=$OUT/main-window.png" "$APPDIR/deid-studio"
e=$(now)
echo "deid-studio start to first window grabbed and exit: $(secs "$t" "$e") s"
[ -s "$OUT/main-window.png" ] || { echo "smoke: no screenshot" >&2; exit 1; }

step "deid-studio with the demo project -> main-window-demo.png (the project shown)"
t=$(now)
run bash build/demo_screenshot.sh "$OUT/main-window-demo.png" "$tmp/demo/sample.deid" \
  "$tmp/home/.local/share/deid-studio" "$APPDIR/deid-studio"
e=$(now)
echo "deid-studio with a project: $(secs "$t" "$e") s"

leftover="$(find "$tmp/home" -type f | grep -v '/deid-studio/' || true)"
if [ -n "$leftover" ]; then echo "note: files written outside the user data folder:"; echo "$leftover"; fi
step "smoke test passed; outputs in $OUT"
