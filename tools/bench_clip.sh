#!/bin/sh
# bench_clip.sh - speed of dispute clips: (1) `karuta-ref clip` of a 4 s window of a 1080p
# file, (2) `review` against `analyze` alone on the same match, run alternately in one go.
# Prints wall and CPU (user + sys) seconds per run and the review / analyze ratios.
# Usage: tools/bench_clip.sh [BUILD_DIR] [RUNS]   (defaults build-review, 3)
#   CLIP_VIDEO (default out/review/1080/video.mp4; rendered with karuta-synth if missing),
#   CLIP_AT (default 3.0), MATCH_DIR (default out/eval/60/full_match, else samples/demo).
# SPDX-License-Identifier: MIT
set -eu
build=${1:-build-review}
runs=${2:-3}
bin=$build/src/app/karuta-ref
synth=$build/tools/synth/karuta-synth
[ -x "$bin" ] || { echo "bench_clip: $bin not built (meson setup $build && ninja -C $build)" >&2; exit 2; }
video=${CLIP_VIDEO:-out/review/1080/video.mp4}
at=${CLIP_AT:-3.0}
if [ ! -f "$video" ]; then
  echo "rendering $video (1920x1080, 30 fps) ..."
  nice -n 5 "$synth" samples/scenarios/own_take.json -o "$(dirname "$video")" --size 1920x1080 --fps 30 >/dev/null
fi
mdir=${MATCH_DIR:-out/eval/60/full_match}
[ -f "$mdir/video.mp4" ] || mdir=samples/demo
tmp=$(mktemp -d /tmp/bench_clip.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# one_run LABEL CMD... : appends "label wall cpu" to $tmp/times
one_run() {
  label=$1; shift
  /usr/bin/time -o "$tmp/t" -f "%e %U %S" nice -n 5 "$@" >/dev/null 2>"$tmp/err" || {
    echo "bench_clip: $label failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  read -r wall u s < "$tmp/t"
  cpu=$(echo "$u $s" | awk '{printf "%.2f", $1 + $2}')
  echo "$label $wall $cpu" >> "$tmp/times"
  printf '  %-28s wall %6.2f s  cpu %6.2f s\n' "$label" "$wall" "$cpu"
}

echo "== clip: 4 s window (--at $at, 2 s each side) of $video ($(ffprobe -v error -select_streams v \
  -show_entries stream=width,height,r_frame_rate -of csv=p=0 "$video" 2>/dev/null || echo '?'))"
cal=$tmp/calib.json
"$bin" calibrate "$video" --at 0 -o "$cal" >/dev/null 2>&1 || cal=
i=1
while [ "$i" -le "$runs" ]; do
  one_run "clip (auto calibration)" "$bin" clip "$video" --at "$at" --match "$(dirname "$video")/match.jsonl" \
    --events "$(dirname "$video")/truth.jsonl" -o "$tmp/c.mp4"
  [ -n "$cal" ] && one_run "clip (--calib)" "$bin" clip "$video" --at "$at" --calib "$cal" \
    --match "$(dirname "$video")/match.jsonl" --events "$(dirname "$video")/truth.jsonl" -o "$tmp/c.mp4"
  one_run "clip (no overlays)" "$bin" clip "$video" --at "$at" --no-calib -o "$tmp/c.mp4"
  i=$((i + 1))
done
echo "   clip: $(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames,width,height \
  -of csv=p=0 "$tmp/c.mp4" 2>/dev/null) (w,h,frames)"

echo "== review vs analyze: $mdir/video.mp4"
i=1
while [ "$i" -le "$runs" ]; do
  rm -rf "$tmp/a" "$tmp/r"
  one_run analyze "$bin" analyze "$mdir/video.mp4" --match "$mdir/match.jsonl" --out "$tmp/a"
  one_run review "$bin" review "$mdir/video.mp4" --match "$mdir/match.jsonl" --out "$tmp/r" --timings
  i=$((i + 1))
done
echo "   review made $(ls "$tmp/r/clips" 2>/dev/null | grep -c '\.mp4$') clips; the last run's --timings:"
sed -n '/^review: /,$p' "$tmp/err" | sed 's/^/   /'  # the clips' CPU per phase
awk '
  /^analyze/ { aw += $2; ac += $3; na++ }
  /^review/  { rw += $2; rc += $3; nr++ }
  END {
    if (na && nr)
      printf "== review / analyze: wall %.2f (%.2f / %.2f s), cpu %.2f (%.2f / %.2f s), means of %d\n",
        (rw / nr) / (aw / na), rw / nr, aw / na, (rc / nr) / (ac / na), rc / nr, ac / na, na
  }' "$tmp/times"
awk '/^clip \(auto/ { w += $(NF-1); c += $NF; n++ } END { if (n) printf "== clip (auto calibration): wall %.2f s, cpu %.2f s, mean of %d\n", w / n, c / n, n }' "$tmp/times"
awk '/^clip \(--calib/ { w += $(NF-1); c += $NF; n++ } END { if (n) printf "== clip (--calib): wall %.2f s, cpu %.2f s, mean of %d\n", w / n, c / n, n }' "$tmp/times"
uptime
