#!/bin/sh
# The README screenshots of the documents, editor, training and preview
# screens, replayed by the journey tests through user actions only (menus,
# keys, clicks, answered file dialogs) in the real main window, offscreen:
#     sh build/journey_screenshots.sh [OUT_DIR]      (default docs/screenshots)
# Agreement and adjudication need two annotators' work, which the window
# cannot assign yet: `python -m app.gui.screenshots OUT_DIR` stages those.
set -e
cd "$(dirname "$0")/.."
OUT="$(mkdir -p "${1:-docs/screenshots}" && cd "${1:-docs/screenshots}" && pwd)"
PYTHON="${PYTHON:-python}"
DEID_JOURNEY_SHOTS="$OUT" QT_QPA_PLATFORM=offscreen PYTHONPATH="$PWD" \
    "$PYTHON" -m pytest -q -p no:cacheprovider tests/gui/journeys
ls -l "$OUT"
