#!/usr/bin/env bash
# tools/eval_sealed.sh [--set NAME] [--work DIR] [--out DIR]
#   A sealed set (samples/scenarios/NAME, default sealed; sealed2 is the second one):
#   scenarios nobody tunes on, each rendered at its own frame rate and size (cached in
#   WORK/NAME, default out/eval/SET), analyzed with $KR_BUILD's karuta-ref (default
#   build) into OUT/NAME (default out/SET), compared
#   with the truth (tools/eval_events.py) and printed as one markdown table.
#   Report the figures; do not tune on them (a scenario looked into is no longer sealed:
#   say so in its description and report it apart).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KR_BUILD:-build}
set=sealed
work=
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --set) set=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n 2,9p "$0"; exit 0 ;;
    *) echo "eval_sealed.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -d "samples/scenarios/$set" ] || { echo "eval_sealed.sh: --set $set: no folder samples/scenarios/$set" >&2; exit 2; }
work=${work:-out/eval/$set}
out=${out:-out/$set}
ninja -C "$build" src/app/karuta-ref tools/synth/karuta-synth >&2
mkdir -p "$work" "$out"
res="$out/results.jsonl"
: > "$res"
for f in "samples/scenarios/$set"/*.json; do
  n=$(basename "$f" .json)
  d="$work/$n"
  if [ ! -f "$d/video.mp4" ]; then
    echo "== render $n" >&2
    "$build/tools/synth/karuta-synth" "$f" -o "$d" >&2
  fi
  echo "== analyze $n" >&2
  rm -rf "${out:?}/$n"
  if "$build/src/app/karuta-ref" analyze "$d/video.mp4" --match "$d/match.jsonl" --out "$out/$n" 2>"$out/$n.err"; then
    python3 tools/eval_events.py "$d" "$out/$n" --karuta-ref "$build/src/app/karuta-ref" >> "$res"
  else
    echo "{\"scenario\":\"$n\",\"failed\":\"$(tr -d '"\n' < "$out/$n.err" | cut -c1-200)\"}" >> "$res"
  fi
done
python3 tools/eval_events_table.py "$res" --title "$set"
