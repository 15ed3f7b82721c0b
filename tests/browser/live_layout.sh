#!/bin/sh
# live_layout.sh - `karuta-ref live` with a match file that has no layout (issue 9): the
# layout is read from the source's first frame (the memorisation period), as analyze reads
# it from the file, and must give the typed layout's 50 cards, owners and positions
# (within 3 mm); a source whose cards cannot be read for sure is refused with one line
# naming the problem (exit 1), never a layout invented.
# Usage: live_layout.sh KARUTA_REF   (exit 77: skipped)
# SPDX-License-Identifier: MIT
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
video=samples/demo/video.mp4
match=samples/demo/match.jsonl
[ -f "$video" ] || { echo "SKIP: no footage at $video"; exit 77; }
gst-inspect-1.0 avdec_h264 >/dev/null 2>&1 || { echo "SKIP: GStreamer avdec_h264 (gstreamer1.0-libav) missing"; exit 77; }
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
grep -v '"type": *"layout"' "$match" > "$tmp/nolayout.jsonl"
grep -q '"layout"' "$tmp/nolayout.jsonl" && { echo "FAIL: could not strip the layout"; exit 1; }

# 1. read from the first frame, then tracked as usual (3 s of the demo at real speed)
"$bin" live --source "filesrc location=$video ! decodebin" --match "$tmp/nolayout.jsonl" --out "$tmp/read" \
  --max-s 3 2>"$tmp/err1"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: live with no layout: exit $rc"; cat "$tmp/err1"; fails=$((fails + 1)); }
python3 "$here/../check_layout.py" "$tmp/read/events.jsonl" "$match" || fails=$((fails + 1))

# 2. cards too blurred to read (the picture shrunk to 256x144 and blown up again): refused
"$bin" live --source "filesrc location=$video ! decodebin ! videoscale ! video/x-raw,width=256,height=144 ! videoscale ! video/x-raw,width=1280,height=720" \
  --match "$tmp/nolayout.jsonl" --out "$tmp/blur" --max-s 3 2>"$tmp/err2"
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: unreadable cards: exit $rc, want 1"; cat "$tmp/err2"; fails=$((fails + 1)); }
n=$(grep -c "no layout" "$tmp/err2")
[ "$n" -eq 1 ] || { echo "FAIL: want one line about the layout, got $n"; cat "$tmp/err2"; fails=$((fails + 1)); }
grep -q '"type": *"layout"' "$tmp/blur/events.jsonl" 2>/dev/null && { echo "FAIL: a layout was written anyway"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] || exit 1
echo "ok: live reads a missing layout from the source and refuses unreadable cards"
