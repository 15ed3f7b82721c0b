#!/usr/bin/env bash
# tools/eval_calib.sh [BUILD_DIR] [OUT_DIR]: renders the calibration scenarios of
# tools/eval_calib_scenarios/ with karuta-synth (1.6 s each, 30 fps; kept in OUT_DIR and
# reused) and prints tools/eval_calib's accuracy/speed table (Markdown).
# Targets (issue 4): field error <= 2 mm RMS and <= 5 mm worst; detection+fit < 1 s.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-out/eval_calib}
mkdir -p "$out"
dirs=()
for s in tools/eval_calib_scenarios/*.json; do
  name=$(basename "$s" .json)
  d="$out/$name"
  if [ ! -f "$d/meta.json" ] || [ "$s" -nt "$d/meta.json" ]; then
    "$build/tools/synth/karuta-synth" "$s" -o "$d" --fps 30 --duration 1.6 >&2
  fi
  dirs+=("$d")
done
"$build/tools/eval_calib" --at 1.0 --png "${dirs[@]}"
