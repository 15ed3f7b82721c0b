#!/bin/sh
# live_replay.sh - `karuta-ref live` with the judge's page: the instant replay of a reading
# is cut at reduced size (issue 8: cheap enough to keep real time at 1080p60): from a
# 1920x1080 source, which live analyses at 960x540, the replay is 640x360; it is a
# complete H.264 MP4 with the frames before the take. Uses the first 5 s of the demo
# (A's take at 1.8 s), scaled to 1080p at 30 fps. Usage: live_replay.sh KARUTA_REF
# SPDX-License-Identifier: MIT
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
video=samples/demo/video.mp4
match=samples/demo/match.jsonl
[ -f "$video" ] || { echo "SKIP: no footage at $video"; exit 77; }
command -v ffmpeg >/dev/null 2>&1 || { echo "SKIP: ffmpeg is not installed"; exit 77; }
gst-inspect-1.0 avdec_h264 >/dev/null 2>&1 || { echo "SKIP: GStreamer avdec_h264 (gstreamer1.0-libav) missing"; exit 77; }
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -loglevel error -i "$video" -t 5 -vf scale=1920:1080,fps=30 -c:v libx264 -preset ultrafast -crf 18 \
  -pix_fmt yuv420p -an "$tmp/v.mp4" || exit 1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" live --source "filesrc location=$tmp/v.mp4 ! decodebin" --match "$match" --out "$tmp/out" \
  --http "$port" --exit-on-eof 2>"$tmp/err" || { echo "FAIL: live exited $?"; cat "$tmp/err"; exit 1; }
r="$tmp/out/replay/seq1.mp4"
[ -f "$r" ] || { echo "FAIL: no replay of reading 1 ($(ls "$tmp/out/replay" 2>/dev/null))"; cat "$tmp/err"; exit 1; }
info=$(ffprobe -v error -count_frames -select_streams v -show_entries stream=codec_name,width,height,pix_fmt,nb_read_frames \
  -of csv=p=0 "$r") || { echo "FAIL: the replay does not decode"; exit 1; }
echo "replay of reading 1: $info (codec,width,height,pix_fmt,frames)"
python3 - "$info" <<'PY'
import sys
codec, w, h, pix, n = sys.argv[1].split(',')
if (codec, w, h, pix) != ('h264', '640', '360', 'yuv420p'):
    sys.exit('FAIL: replay is %s %sx%s %s, want h264 640x360 yuv420p' % (codec, w, h, pix))
# from 0.3 s (1.5 s before the take) to when the take is seen, at 30 frames/s: about 45;
# fewer only if frames were dropped under load, but never a stub
if int(n) < 20:
    sys.exit('FAIL: the replay has %s frames' % n)
PY
