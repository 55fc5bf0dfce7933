#!/bin/sh
# GUI cold start: seconds from launching `deid-studio` (a new process, no
# project) to its main window mapped on a real X server (Xvfb, 1366x768),
# five runs. On demand, not CI; needs Xvfb, xdotool and bc.
#     sh build/cold_start.sh
set -eu
BIN="${DEID_BIN:-$(dirname "$(command -v deid-studio)")}"
WORK="$(mktemp -d)"
DISPLAY_NUM="${XVFB_DISPLAY:-:98}"
Xvfb "$DISPLAY_NUM" -screen 0 1366x768x24 -nolisten tcp > /dev/null 2>&1 &
XVFB=$!
trap 'kill "$XVFB" 2> /dev/null || true; rm -rf "$WORK"' EXIT
export DISPLAY="$DISPLAY_NUM" DEID_USER_DIR="$WORK/user" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
sleep 1
for _ in 1 2 3 4 5; do
    START=$(date +%s.%N)
    "$BIN/deid-studio" > /dev/null 2>&1 &
    APP=$!
    xdotool search --sync --onlyvisible --name "DeID Studio" > /dev/null
    echo "main window shown after $(echo "$(date +%s.%N) - $START" | bc) s"
    kill "$APP"
    wait "$APP" 2> /dev/null || true
done
