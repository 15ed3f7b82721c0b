#!/usr/bin/env bash
# tools/bench_analyze.sh VIDEO MATCH.jsonl [CALIB.json]
#   Side by side on the same file: plain decoding (`ffmpeg -i VIDEO -f null -`), the
#   whole `karuta-ref analyze`, and the tracker + event detector alone on decoded
#   frames (one thread, decode excluded; tools/bench_analyze_track). Prints wall and
#   CPU seconds, analyze / ffmpeg ratio and speed in multiples of real time.
#   Builds into $KR_BUILD (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,7p "$0"; exit 2; }
video=$1; match=$2; calib=${3:-}
build=${KR_BUILD:-build}
ninja -C "$build" src/app/karuta-ref tools/bench_analyze_track >&2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
dur=$(ffprobe -v error -show_entries format=duration -of default=nw=1:nk=1 "$video")
info=$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height,avg_frame_rate -of csv=p=0 "$video")
now() { date +%s.%N; }
# CPU seconds (user + sys) of a command, into the file named by $1
cpu() { local f=$1; shift; /usr/bin/time -f "%U %S" -o "$f" "$@"; }
t0=$(now); cpu "$out/cpu_ff" ffmpeg -nostdin -loglevel error -i "$video" -f null - ; t1=$(now)
args=("$video" --match "$match" --out "$out/a")
[ -n "$calib" ] && args+=(--calib "$calib")
t2=$(now); cpu "$out/cpu_an" "$build/src/app/karuta-ref" analyze "${args[@]}" 2>"$out/err" || { cat "$out/err" >&2; exit 1; }; t3=$(now)
python3 - "$dur" "$info" "$t0" "$t1" "$t2" "$t3" "$out/cpu_ff" "$out/cpu_an" <<'EOF'
import sys
dur = float(sys.argv[1]); info = sys.argv[2]
t0, t1, t2, t3 = map(float, sys.argv[3:7])
cff = sum(map(float, open(sys.argv[7]).read().split()[-2:]))
can = sum(map(float, open(sys.argv[8]).read().split()[-2:]))
ff, an = t1 - t0, t3 - t2
print("video %s (w,h,fps), %.2f s" % (info, dur))
print("ffmpeg -f null (decode only): %6.2f s wall = %5.1fx real time; cpu %6.2f s" % (ff, dur / ff, cff))
print("karuta-ref analyze:           %6.2f s wall = %5.1fx real time; cpu %6.2f s" % (an, dur / an, can))
print("analyze / decode-only: wall %.2fx, cpu %.2fx; real time per cpu-second on 2 cores: %.1fx" %
      (an / ff, can / cff, dur / (can / 2)))
EOF
"$build/tools/bench_analyze_track" "$video" 20
