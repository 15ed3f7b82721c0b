#!/usr/bin/env bash
# tools/bench_rules.sh [BUILD] [READINGS] [TOUCHES] - benchmark of `karuta-ref rule`:
# rules a synthetic log (tools/bench_rules_gen.py: 100 readings, 50,000 touch records by
# default) and reports records per second and peak memory (GNU time, package `time`).
# Not a test: prints figures only. BUILD defaults to ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
readings=${2:-100}
touches=${3:-50000}
bin="$build/src/app/karuta-ref"
[ -x "$bin" ] || { echo "bench_rules.sh: $bin not built (ninja -C $build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench_rules.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 tools/bench_rules_gen.py "$readings" "$touches" > "$tmp/log.jsonl"
records=$(grep -c . "$tmp/log.jsonl")
ntouch=$(grep -c '"type":"touch"' "$tmp/log.jsonl")
best=""
for run in 1 2 3; do
  /usr/bin/time -v -o "$tmp/time.txt" "$bin" rule "$tmp/log.jsonl" > "$tmp/rulings.jsonl"
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$tmp/time.txt")
  secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  user=$(awk -F': ' '/User time/{print $2}' "$tmp/time.txt")
  sys=$(awk -F': ' '/System time/{print $2}' "$tmp/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$tmp/time.txt")
  cpu=$(echo "$user $sys" | awk '{print $1 + $2}')
  echo "run $run: wall ${secs} s, cpu ${cpu} s (user $user, sys $sys), peak RSS ${rss} KB"
  if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$cpu; best_rss=$rss; best_wall=$secs; fi
done
rulings=$(grep -c '"type":"ruling"' "$tmp/rulings.jsonl")
echo "log: $records records ($ntouch touch), $rulings rulings"
awk -v n="$records" -v c="$best" -v w="$best_wall" -v r="$best_rss" 'BEGIN{
  printf "best of 3: %.0f records/s of CPU time (%.3f s), %.0f records/s wall (%.3f s), peak RSS %.1f MB\n",
         n / (c > 0 ? c : 0.001), c, n / (w > 0 ? w : 0.001), w, r / 1024 }'
# The program start (OpenCV, FFmpeg, GStreamer shared libraries) dominates a 50k-record
# run; a log ten times larger gives the marginal cost per record.
python3 tools/bench_rules_gen.py "$readings" $((touches * 10)) > "$tmp/big.jsonl"
big=$(grep -c . "$tmp/big.jsonl")
bigbest=""
for run in 1 2; do
  /usr/bin/time -v -o "$tmp/tbig.txt" "$bin" rule "$tmp/big.jsonl" > /dev/null
  c=$(awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{print u + s}' "$tmp/tbig.txt")
  r=$(awk -F': ' '/Maximum resident set size/{print $2}' "$tmp/tbig.txt")
  if [ -z "$bigbest" ] || awk -v a="$c" -v b="$bigbest" 'BEGIN{exit !(a < b)}'; then bigbest=$c; bigrss=$r; fi
done
awk -v n="$records" -v c="$best" -v N="$big" -v C="$bigbest" -v R="$bigrss" 'BEGIN{
  d = C - c; if (d < 0.001) d = 0.001
  printf "%d-record log: %.3f s CPU, peak RSS %.1f MB; marginal rate %.0f records/s of CPU time\n", N, C, R / 1024, (N - n) / d }'
