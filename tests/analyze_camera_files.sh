#!/bin/sh
# analyze_camera_files.sh - files as cameras write them (issue 6, footage not made here):
# a phone's QuickTime file whose first stream is the sound and whose video carries a
# display rotation (a phone held on its side). analyze reads the video stream wherever it
# lies and the frames as stored (the mat is found on them, turned or not): the same
# observations and rulings as from the plain render, byte for byte. A file with sound and
# no video is refused in one line that names it, with no output folder left. An interlaced
# copy (each frame two fields, as a camcorder's 1080i) is analyzed with a warning that
# names it and says contact times are no finer than its frame rate, and summary.json says
# "interlaced": true (false for the render). summary.json says where the camera stands: the
# render's nadir within 10 mm, and its height as the focal length guessed from the picture's
# size makes it, within 3 %.
# Usage: analyze_camera_files.sh KARUTA_REF KARUTA_SYNTH
# SPDX-License-Identifier: MIT
set -eu
kr=$1
synth=$2
. "$(dirname "$0")/synth_analyze.sh"
synth_analyze samples/scenarios/race_60ms.json --fps 60 --duration 3.5
fail() { echo "FAIL: $*"; exit 1; }
ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=48000 -i "$tmp/s/video.mp4" -map 0:a -map 1:v \
  -c:v copy -c:a aac -shortest -metadata:s:v:0 rotate=90 "$tmp/phone.mov"
first=$(ffprobe -v error -show_entries stream=codec_type -of csv=p=0 "$tmp/phone.mov" | head -n 1)
[ "$first" = audio ] || fail "the phone file's first stream is $first, not the sound"
ffprobe -v error -show_entries stream_side_data=rotation -of csv=p=0 "$tmp/phone.mov" | grep -q 90 ||
  fail "the phone file has no display rotation"
"$kr" analyze "$tmp/phone.mov" --match "$tmp/s/match.jsonl" --out "$tmp/p" 2>"$tmp/perr" || { cat "$tmp/perr"; fail "analyze refused the phone file"; }
for f in events.jsonl rulings.jsonl; do
  cmp -s "$tmp/o/$f" "$tmp/p/$f" || fail "$f differs between the render and the phone file"
done
ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=48000 -t 1 -c:a aac "$tmp/sound.m4a"
if "$kr" analyze "$tmp/sound.m4a" --match "$tmp/s/match.jsonl" --out "$tmp/q" 2>"$tmp/qerr"; then
  fail "a file with no video stream was analyzed"
fi
[ "$(wc -l < "$tmp/qerr")" -eq 1 ] || fail "not one line: $(cat "$tmp/qerr")"
grep -q "sound.m4a" "$tmp/qerr" || fail "the error does not name the file: $(cat "$tmp/qerr")"
[ ! -e "$tmp/q" ] || fail "an output folder was left for the refused file"
grep -q '"interlaced": false' "$tmp/o/summary.json" || fail "the render's summary does not say it is not interlaced"
ffmpeg -v error -i "$tmp/s/video.mp4" -vf tinterlace=mode=interleave_top,setfield=tff -c:v libx264 -preset ultrafast \
  -flags +ildct+ilme -x264opts tff=1 "$tmp/i30.mp4"
"$kr" analyze "$tmp/i30.mp4" --match "$tmp/s/match.jsonl" --out "$tmp/i" 2>"$tmp/ierr" || { cat "$tmp/ierr"; fail "analyze refused the interlaced file"; }
grep -q "i30.mp4: interlaced video" "$tmp/ierr" || fail "no warning naming the interlaced file: $(cat "$tmp/ierr")"
grep -q '"interlaced": true' "$tmp/i/summary.json" || fail "the interlaced file's summary does not say so"
python3 - "$tmp" <<'E' || exit 1
import json, sys
tmp = sys.argv[1]
cam = json.load(open(tmp + "/o/summary.json"))["calibration"]["camera"]
meta = json.load(open(tmp + "/s/meta.json"))
c, f, guess = meta["camera"]["C_mm"], meta["camera"]["K"][0], max(meta["size"])
if ((cam["x_mm"] - c[0]) ** 2 + (cam["y_mm"] - c[1]) ** 2) ** 0.5 > 10:
    sys.exit("FAIL: the camera's nadir (%.1f, %.1f) mm is not the render's (%.1f, %.1f)" % (cam["x_mm"], cam["y_mm"],
             c[0], c[1]))
if abs(cam["height_mm"] / (c[2] * guess / f) - 1) > 0.03:
    sys.exit("FAIL: the camera %.0f mm up, the render's %.0f (%.0f with the focal length guessed)"
             % (cam["height_mm"], c[2], c[2] * guess / f))
E
echo "ok: sound first and a rotation: the same $(wc -l < "$tmp/p/events.jsonl") observations and rulings; interlaced: warned; no video: $(cat "$tmp/qerr")"
