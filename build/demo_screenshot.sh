#!/usr/bin/env bash
# The main window with a project open, grabbed offscreen, and the check that
# the picture shows that project (not "Open or create a project to start.").
#   bash build/demo_screenshot.sh OUT.png PROJECT.deid USER_DIR APP_COMMAND...
# APP_COMMAND starts the desktop app: the bundle's deid-studio
# (build/smoke_test.sh) or `python -m app.gui.main` (tests/build). USER_DIR
# becomes the user data folder (DEID_USER_DIR); an annotator name is written
# to its settings first, as for a returning user: a first start asks who
# annotates before it shows the project.
set -euo pipefail
shot="$1" project="$2" user="$3"; shift 3
fail() { echo "demo screenshot: $*" >&2; exit 1; }
mkdir -p "$user"
[ -e "$user/settings.ini" ] || printf '[General]\nannotator=smoke\n' > "$user/settings.ini"
DEID_USER_DIR="$user" QT_QPA_PLATFORM=offscreen DEID_SCREENSHOT="$shot" "$@" "$project" \
  > "$shot.txt"
[ -s "$shot" ] || fail "no screenshot at $shot"
name="$(basename "$project")"
grep -qF "window: $name" "$shot.txt" \
  || fail "the window does not show $name; it says: $(tr '\n' ' ' < "$shot.txt")"
if grep -qF "Open or create a project" "$shot.txt"; then
  fail "the window asks to open a project: $(tr '\n' ' ' < "$shot.txt")"
fi
echo "demo screenshot: $shot shows $name"
