#!/bin/sh
# review_clips.sh - `karuta-ref review` on the bundled demo makes its clips in process (two
# threads): one MP4 + contact sheet + sidecar per ruling the page wants a clip for, each
# decoding with FFmpeg to the expected frame count and duration, nothing half-written left.
# Usage: review_clips.sh KARUTA_REF      (exit 77 = skipped without ffprobe)
# SPDX-License-Identifier: MIT
set -u
bin=$1
command -v ffprobe >/dev/null 2>&1 || { echo "SKIP: ffprobe is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
out=$tmp/r
# 0.25 s before and 0.35 s after each deciding contact: 36 frames at 60 fps
"$bin" review samples/demo/video.mp4 --match samples/demo/match.jsonl --out "$out" --before 0.25 --after 0.35 \
  >"$tmp/stdout" 2>"$tmp/stderr" || { cat "$tmp/stderr"; fail "review exited $?"; exit 1; }
[ -s "$out/index.html" ] || fail "no index.html"
n=0
for side in "$out"/clips/seq*.json; do
  [ -e "$side" ] || { fail "no clips made"; break; }
  seq=$(basename "$side" .json)
  mp4=$out/clips/$seq.mp4
  [ -s "$mp4" ] || fail "$seq: sidecar without its MP4"
  [ -s "$out/clips/$seq.png" ] || fail "$seq: no contact sheet"
  frames=$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$mp4")
  dur=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$mp4")
  codec=$(ffprobe -v error -select_streams v -show_entries stream=codec_name,pix_fmt -of csv=p=0 "$mp4")
  [ "$frames" = 36 ] || fail "$seq: $frames frames, expected 36 (0.6 s at 60 fps)"
  python3 -c 'import sys; d = float(sys.argv[1]); sys.exit(0 if abs(d - 0.6) < 0.02 else 1)' "$dur" ||
    fail "$seq: duration $dur s, expected 0.6 s"
  [ "$codec" = "h264,yuv420p" ] || fail "$seq: $codec, expected h264,yuv420p"
  grep -q "src=\"clips/$seq.mp4\"" "$out/index.html" || fail "$seq: not on the page"
  python3 -c 'import json,sys; c = json.load(open(sys.argv[1])); sys.exit(0 if c["fps"] == 60 and c["start_us"] > 0 else 1)' \
    "$side" || fail "$seq: sidecar $(cat "$side")"
  n=$((n + 1))
done
# every ruling that decides a take or fault, or needs review, got its clip
want=$(python3 -c '
import json, sys
n = 0
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("type") == "ruling" and (r.get("needs_review") or r.get("take") or r.get("faults")):
        n += 1
print(n)' "$out/rulings.jsonl")
[ "$n" -ge 1 ] && [ "$n" -eq "$want" ] || fail "$n clips for $want rulings that want one"
left=$(find "$out" -name '*.tmp.*' -o -name '.review-*' | head -3)
[ -z "$left" ] || fail "left behind: $left"
[ "$fails" -eq 0 ] || { cat "$tmp/stderr"; exit 1; }
echo "ok: $n clips in process, 36 frames / 0.6 s each, on the page"
