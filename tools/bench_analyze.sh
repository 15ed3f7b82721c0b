#!/usr/bin/env bash
# tools/bench_analyze.sh VIDEO MATCH.jsonl [CALIB.json] [-- ANALYZE_OPTIONS...]
#   Side by side on the same file, interleaved, best of $KR_RUNS runs (default 3):
#   plain decoding (`ffmpeg -i VIDEO -f null -`) and the whole `karuta-ref analyze`
#   (with ANALYZE_OPTIONS, e.g. --threads 1). Prints wall and CPU (user + sys) seconds,
#   the analyze / ffmpeg ratios (CPU is the steadier figure on a shared machine) and
#   speed in multiples of real time; then the tracker + event detector alone on decoded
#   frames (one thread, decode excluded; tools/bench_analyze_track).
#   KR_COMPARE="OPTIONS": also runs analyze with those options in the same interleaved
#   loop (e.g. KR_COMPARE="--bgr-frames --decode-ahead 0", the path before YUV frames
#   and the decode thread) and prints it as a second line.
#   KR_BASE=/path/to/another/karuta-ref: also runs that binary (e.g. an older commit's
#   build) in the same interleaved loop and prints it beside, for before/after figures.
#   Builds into $KR_BUILD (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,15p "$0"; exit 2; }
video=$1; match=$2; shift 2
calib=
if [ $# -gt 0 ] && [ "$1" != "--" ]; then calib=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
extra=("$@")
build=${KR_BUILD:-build}
runs=${KR_RUNS:-3}
ninja -C "$build" src/app/karuta-ref tools/bench_analyze_track >&2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
dur=$(ffprobe -v error -show_entries format=duration -of default=nw=1:nk=1 "$video")
info=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height,avg_frame_rate -of csv=p=0 "$video")
args=("$video" --match "$match" --out "$out/a")
[ -n "$calib" ] && args+=(--calib "$calib")
args+=("${extra[@]}")
# "user sys wall" of a command, appended to the file named by $1
run() { local f=$1; shift; /usr/bin/time -a -f "%U %S %e" -o "$f" "$@"; }
cmp_opts=${KR_COMPARE:-}
: > "$out/cmp"
: > "$out/base"
base=${KR_BASE:-}
for i in $(seq "$runs"); do
  run "$out/ff" ffmpeg -nostdin -loglevel error -i "$video" -f null -
  run "$out/an" "$build/src/app/karuta-ref" analyze "${args[@]}" 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
  if [ -n "$base" ]; then
    run "$out/base" "$base" analyze "${args[@]}" --out "$out/b" 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
  fi
  if [ -n "$cmp_opts" ]; then
    # shellcheck disable=SC2086
    run "$out/cmp" "$build/src/app/karuta-ref" analyze "${args[@]}" $cmp_opts --out "$out/c" 2>"$out/err" ||
      { cat "$out/err" >&2; exit 1; }
  fi
done
python3 - "$dur" "$info" "$out/ff" "$out/an" "$runs" "${extra[*]:-}" "$out/cmp" "$cmp_opts" "$out/base" "$base" <<'PY'
import sys
dur = float(sys.argv[1]); info = sys.argv[2]; runs = sys.argv[5]; extra = sys.argv[6]
def best(p):
    rows = [list(map(float, l.split()[-3:])) for l in open(p) if l.strip() and l.split()[0][0].isdigit()]
    return min(r[0] + r[1] for r in rows), min(r[2] for r in rows)
cff, wff = best(sys.argv[3])
can, wan = best(sys.argv[4])
print("video %s (w,h,fps), %.2f s; best of %s interleaved runs" % (info, dur, runs))
print("ffmpeg -f null (decode only): %6.2f s wall = %5.1fx real time; cpu %6.2f s" % (wff, dur / wff, cff))
print("karuta-ref analyze %s: %6.2f s wall = %5.1fx real time; cpu %6.2f s" % (extra, wan, dur / wan, can))
print("analyze / decode-only: wall %.2fx, cpu %.2fx; real time per cpu-second on 2 cores: %.1fx" %
      (wan / wff, can / cff, dur / (can / 2)))
if sys.argv[8]:
    ccm, wcm = best(sys.argv[7])
    print("compare: analyze %s: %6.2f s wall = %5.1fx real time; cpu %6.2f s; / decode-only: wall %.2fx, cpu %.2fx" %
          (sys.argv[8], wcm, dur / wcm, ccm, wcm / wff, ccm / cff))
if sys.argv[10]:
    cb, wb = best(sys.argv[9])
    print("base: %s analyze: %6.2f s wall = %5.1fx real time; cpu %6.2f s; / decode-only: wall %.2fx, cpu %.2fx" %
          (sys.argv[10], wb, dur / wb, cb, wb / wff, cb / cff))
with open('/proc/loadavg') as f:
    print('machine load average: %s' % f.read().split()[0])
PY
"$build/tools/bench_analyze_track" "$video" 20
