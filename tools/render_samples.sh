#!/usr/bin/env bash
# tools/render_samples.sh [--out DIR] [--fps N] [--size WxH] [--seed N] [--holdout] [--no-video] [NAME...]
#   Renders samples/scenarios/*.json (and holdout/*.json with --holdout, or the named
#   ones) with karuta-synth into DIR/NAME/ (default out/samples). Builds karuta-synth
#   into ./build (or $KR_BUILD) if needed. Variants: --fps 30 --size 1920x1080,
#   --fps 120, --size 640x360 (fast).
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/samples
opts=()
holdout=0
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --fps|--size|--seed|--duration) opts+=("$1" "$2"); shift 2 ;;
    --no-video) opts+=("$1"); shift ;;
    --holdout) holdout=1; shift ;;
    -h|--help) sed -n 2,6p "$0"; exit 0 ;;
    -*) echo "render_samples.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
build=${KR_BUILD:-build}
if [ ! -x "$build/tools/synth/karuta-synth" ]; then
  [ -f "$build/build.ninja" ] || meson setup "$build" >&2
  ninja -C "$build" tools/synth/karuta-synth >&2
fi
files=()
if [ ${#names[@]} -gt 0 ]; then
  for n in "${names[@]}"; do
    f=samples/scenarios/$n.json
    [ -f "$f" ] || f=samples/scenarios/holdout/$n.json
    [ -f "$f" ] || { echo "render_samples.sh: no scenario $n" >&2; exit 2; }
    files+=("$f")
  done
else
  files=(samples/scenarios/*.json)
  [ $holdout = 1 ] && files+=(samples/scenarios/holdout/*.json)
fi
for f in "${files[@]}"; do
  n=$(basename "$f" .json)
  echo "== $n" >&2
  "$build/tools/synth/karuta-synth" "$f" -o "$out/$n" "${opts[@]+"${opts[@]}"}"
done
