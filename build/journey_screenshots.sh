#!/bin/sh
# The README screenshots, replayed by the journey tests through user actions
# only (menus, keys, clicks, answered file dialogs) in the real main window,
# offscreen, and every view at 1024x700 (OUT_DIR/1024x700/small_<view>.png):
#     sh build/journey_screenshots.sh [OUT_DIR]      (default docs/screenshots)
set -e
cd "$(dirname "$0")/.."
OUT="$(mkdir -p "${1:-docs/screenshots}" && cd "${1:-docs/screenshots}" && pwd)"
PYTHON="${PYTHON:-python}"
export QT_QPA_PLATFORM=offscreen PYTHONPATH="$PWD" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
DEID_JOURNEY_SHOTS="$OUT" "$PYTHON" -m pytest -q -p no:cacheprovider tests/gui/journeys
DEID_JOURNEY_SHOTS="$OUT/1024x700" "$PYTHON" -m pytest -q -p no:cacheprovider \
    tests/gui/test_main_window.py -k fits_small_screens
ls -l "$OUT" "$OUT/1024x700"
