#!/bin/sh
# bench_clip.sh - speed of dispute clips: (1) `karuta-ref clip` of a 4 s window of a 1080p
# file, (2) `review` against `analyze` alone on the same match, run alternately in one go.
# Prints wall and CPU (user + sys) seconds per run and the review / analyze ratios.
# Usage: tools/bench_clip.sh [BUILD_DIR] [RUNS]   (defaults build-review, 3)
#   CLIP_VIDEO (default out/review/1080/video.mp4; rendered with karuta-synth if missing),
#   CLIP_AT (default 3.0), MATCH_DIR (default out/eval/60/full_match, else samples/demo).
#   BASE_BUILD: a second build (e.g. a clean build of an older commit: git archive C | tar
#   -x -C /tmp/base && meson setup /tmp/base/build && ninja -C /tmp/base/build); each run
#   then runs its binary too, interleaved with BUILD_DIR's, and both means are printed
#   side by side ("base" and "new").
#   REVIEW_AFTER=1: each round also runs `review --clips-after` (every clip made after
#   analyze) beside the default review (clips made while analyze runs), means printed.
# SPDX-License-Identifier: MIT
set -eu
build=${1:-build-review}
runs=${2:-3}
bin=$build/src/app/karuta-ref
synth=$build/tools/synth/karuta-synth
[ -x "$bin" ] || { echo "bench_clip: $bin not built (meson setup $build && ninja -C $build)" >&2; exit 2; }
tags=new
if [ -n "${BASE_BUILD:-}" ]; then
  [ -x "$BASE_BUILD/src/app/karuta-ref" ] || { echo "bench_clip: $BASE_BUILD/src/app/karuta-ref not built" >&2; exit 2; }
  tags="base new"
fi
bin_of() { if [ "$1" = base ]; then echo "$BASE_BUILD/src/app/karuta-ref"; else echo "$bin"; fi; }
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

# one_run TAG LABEL CMD... : appends "tag|label|wall|cpu" to $tmp/times
one_run() {
  tag=$1; label=$2; shift 2
  /usr/bin/time -o "$tmp/t" -f "%e %U %S" nice -n 5 "$@" >/dev/null 2>"$tmp/err.$tag" || {
    echo "bench_clip: $tag $label failed:" >&2; cat "$tmp/err.$tag" >&2; exit 1; }
  read -r wall u s < "$tmp/t"
  cpu=$(echo "$u $s" | awk '{printf "%.2f", $1 + $2}')
  echo "$tag|$label|$wall|$cpu" >> "$tmp/times"
  printf '  %-5s %-26s wall %6.2f s  cpu %6.2f s  (load %s)\n' "$tag" "$label" "$wall" "$cpu" \
    "$(cut -d' ' -f1 /proc/loadavg)"
}

echo "== clip: 4 s window (--at $at, 2 s each side) of $video ($(ffprobe -v error -select_streams v \
  -show_entries stream=width,height,r_frame_rate -of csv=p=0 "$video" 2>/dev/null || echo '?'))"
cal=$tmp/calib.json
"$bin" calibrate "$video" --at 0 -o "$cal" >/dev/null 2>&1 || cal=
vdir=$(dirname "$video")
i=1
while [ "$i" -le "$runs" ]; do
  for tag in $tags; do
    b=$(bin_of "$tag")
    one_run "$tag" "clip (auto calibration)" "$b" clip "$video" --at "$at" --match "$vdir/match.jsonl" \
      --events "$vdir/truth.jsonl" -o "$tmp/c.$tag.mp4"
  done
  for tag in $tags; do
    b=$(bin_of "$tag")
    [ -n "$cal" ] && one_run "$tag" "clip (--calib)" "$b" clip "$video" --at "$at" --calib "$cal" \
      --match "$vdir/match.jsonl" --events "$vdir/truth.jsonl" -o "$tmp/c.$tag.mp4"
  done
  for tag in $tags; do
    b=$(bin_of "$tag")
    one_run "$tag" "clip (no overlays)" "$b" clip "$video" --at "$at" --no-calib -o "$tmp/c.$tag.mp4"
  done
  i=$((i + 1))
done
for tag in $tags; do
  echo "   $tag clip: $(ffprobe -v error -count_frames -select_streams v -show_entries \
    stream=nb_read_frames,width,height -of csv=p=0 "$tmp/c.$tag.mp4" 2>/dev/null) (w,h,frames)"
done
# where the last auto-calibrated clip's time went (the calling thread per phase)
"$bin" clip "$video" --at "$at" --match "$vdir/match.jsonl" --events "$vdir/truth.jsonl" -o "$tmp/c.mp4" \
  --timings 2>&1 | sed 's/^/   /'

echo "== review vs analyze: $mdir/video.mp4"
i=1
while [ "$i" -le "$runs" ]; do
  for tag in $tags; do
    b=$(bin_of "$tag")
    rm -rf "$tmp/a" "$tmp/r"
    one_run "$tag" analyze "$b" analyze "$mdir/video.mp4" --match "$mdir/match.jsonl" --out "$tmp/a"
    one_run "$tag" review "$b" review "$mdir/video.mp4" --match "$mdir/match.jsonl" --out "$tmp/r" --timings
    cp "$tmp/err.$tag" "$tmp/review-err.$tag"
    if [ "${REVIEW_AFTER:-0}" = 1 ]; then
      rm -rf "$tmp/r2"
      one_run "$tag" "review --clips-after" "$b" review "$mdir/video.mp4" --match "$mdir/match.jsonl" \
        --out "$tmp/r2" --clips-after
    fi
  done
  i=$((i + 1))
done
for tag in $tags; do
  echo "   $tag: review made $(ls "$tmp/r/clips" 2>/dev/null | grep -c '\.mp4$') clips; the last run's --timings:"
  sed -n '/^review: /,$p' "$tmp/review-err.$tag" | sed 's/^/   /' # the clips' CPU per phase
done
for tag in $tags; do
  awk -F'|' -v tag="$tag" '
    $1 != tag { next }
    $2 == "analyze" { aw += $3; ac += $4; na++ }
    $2 == "review"  { rw += $3; rc += $4; nr++ }
    $2 == "review --clips-after" { xw += $3; xc += $4; nx++ }
    $2 == "clip (auto calibration)" { cw += $3; cc += $4; nc++ }
    $2 == "clip (--calib)" { kw += $3; kc += $4; nk++ }
    END {
      if (na && nr)
        printf "== %-4s review / analyze: wall %.2f (%.2f / %.2f s), cpu %.2f (%.2f / %.2f s), means of %d\n",
          tag, (rw / nr) / (aw / na), rw / nr, aw / na, (rc / nr) / (ac / na), rc / nr, ac / na, na
      if (na && nx)
        printf "== %-4s review --clips-after / analyze: wall %.2f (%.2f s), cpu %.2f (%.2f s), means of %d\n",
          tag, (xw / nx) / (aw / na), xw / nx, (xc / nx) / (ac / na), xc / nx, nx
      if (nc) printf "== %-4s clip (auto calibration): wall %.2f s, cpu %.2f s, mean of %d\n", tag, cw / nc, cc / nc, nc
      if (nk) printf "== %-4s clip (--calib): wall %.2f s, cpu %.2f s, mean of %d\n", tag, kw / nk, kc / nk, nk
    }' "$tmp/times"
done
# per round: review / analyze of each binary (its own analyze of the same round)
awk -F'|' '
  $2 == "analyze" { a[$1] = $3; ac[$1] = $4 }
  $2 == "review"  { n[$1]++; printf "   round %d %-4s review / analyze: wall %.2f, cpu %.2f\n", n[$1], $1, $3 / a[$1], $4 / ac[$1] }
' "$tmp/times"
uptime
