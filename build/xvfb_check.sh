#!/bin/sh
# On-demand check (not CI) that `deid-studio` works on a real X server with
# real input events: starts Xvfb at 1366x768, opens a project of unannotated
# notes in deid-studio, and with xdotool picks the annotator's name, takes
# Next to annotate (Ctrl+.), selects two words (Ctrl+Shift+Right), labels them
# (1), opens Preview (Ctrl+4), captures the screen, quits (Ctrl+Q) and checks
# the span was saved under that name.
#     sh build/xvfb_check.sh [OUT.png]
# Needs Xvfb, xdotool and the libraries of Qt's xcb plugin:
# apt-get install xvfb xdotool libxcb-cursor0
# libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
# libxcb-render-util0 libxcb-xinerama0
set -eu
cd "$(dirname "$0")/.."
OUT="${1:-xvfb_check.png}"
BIN="${DEID_BIN:-$(dirname "$(command -v deid-studio)")}"
for tool in Xvfb xdotool; do
    command -v "$tool" > /dev/null || { echo "missing $tool (apt-get install xvfb xdotool)"; exit 1; }
done
WORK="$(mktemp -d)"
DISPLAY_NUM="${XVFB_DISPLAY:-:97}"
Xvfb "$DISPLAY_NUM" -screen 0 1366x768x24 -nolisten tcp > "$WORK/xvfb.log" 2>&1 &
XVFB=$!
APP=""
cleanup() {
    [ -n "$APP" ] && kill "$APP" 2> /dev/null || true
    kill "$XVFB" 2> /dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
export DISPLAY="$DISPLAY_NUM" DEID_USER_DIR="$WORK/user" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p "$WORK/notes"
printf 'Patient Cara Moss, DOB 01/02/1950, lives at 4 High St Perth.\n' > "$WORK/notes/P2_a.txt"
"$BIN/deid" -q new "$WORK/x.deid" --labels paper > /dev/null
"$BIN/deid" -q import "$WORK/x.deid" "$WORK/notes" > /dev/null
sleep 1
START=$(date +%s.%N)
"$BIN/deid-studio" "$WORK/x.deid" > "$WORK/app.log" 2>&1 &
APP=$!
# The first run asks who annotates: wait for that dialog (it proves the window is up).
WIN=""
for _ in $(seq 1 120); do
    WIN=$(xdotool search --name "Who is annotating" 2> /dev/null | head -n 1) || true
    [ -n "$WIN" ] && break
    kill -0 "$APP" 2> /dev/null || { echo "deid-studio exited:"; cat "$WORK/app.log"; exit 1; }
    sleep 0.25
done
[ -n "$WIN" ] || { echo "no window after 30 s"; cat "$WORK/app.log"; exit 1; }
echo "cold start to the first dialog: $(echo "$(date +%s.%N) - $START" | bc) s"
xdotool windowfocus --sync "$WIN"
xdotool key ctrl+a type --delay 40 "Xavier"
xdotool key Return
sleep 1
MAIN=$(xdotool search --name "x.deid" | head -n 1)
xdotool windowfocus --sync "$MAIN"
xdotool key ctrl+period                  # Next to annotate
sleep 1
xdotool key ctrl+Right ctrl+shift+Right ctrl+shift+Right   # after "Patient": "Cara Moss"
xdotool key 1                            # PERSON
sleep 1
xdotool key ctrl+4                       # Preview
sleep 3
# The whole X screen, grabbed by a second Qt client of the same server.
QT_QPA_PLATFORM=xcb "${PYTHON:-python}" -c "
import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication(sys.argv[:1])
sys.exit(0 if app.primaryScreen().grabWindow(0).save(sys.argv[1]) else 1)" "$OUT"
echo "screen: $OUT"
xdotool key ctrl+q
wait "$APP" || true
APP=""
PYTHONPATH="$PWD" "${PYTHON:-python}" - "$WORK/x.deid" <<'PY'
import sys
from app.project import Project
with Project.open(sys.argv[1], readonly=True) as p:
    doc = p.document_infos()[0]
    text = p.document(doc.id).text
    spans = [(text[r.start:r.end], r.label, r.annotator)
             for r in p.span_records(doc.id, status="accepted")]
ok = ("Cara Moss", "PERSON", "Xavier") in spans
print("saved span:", "yes" if ok else "NO", [(label, who) for _, label, who in spans])
sys.exit(0 if ok else 1)
PY
