#!/usr/bin/env bash
# tools/eval_calib.sh [BUILD_DIR] [OUT_DIR]: renders the calibration scenarios of
# tools/eval_calib_scenarios/ with karuta-synth (1.6 s each at 30 fps, kept in OUT_DIR and
# reused) and prints tools/eval_calib's accuracy/speed table (Markdown), then checks that
# `karuta-ref calibrate` refuses the scenarios of tools/eval_calib_scenarios/refuse/
# (moving scene, too few cards, field cut off) and a blank video, with exit status 1.
# Targets (issue 4): field error <= 2 mm RMS and <= 5 mm worst; detection+fit < 1 s.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-out/eval_calib}
mkdir -p "$out"
render() { # scenario.json dir
  if [ ! -f "$2/meta.json" ] || [ "$1" -nt "$2/meta.json" ]; then
    "$build/tools/synth/karuta-synth" "$1" -o "$2" --fps 30 --duration 1.6 >&2
  fi
}
dirs=()
for s in tools/eval_calib_scenarios/*.json; do
  d="$out/$(basename "$s" .json)"
  render "$s" "$d"
  dirs+=("$d")
done
status=0
"$build/tools/eval_calib" --at 1.0 --png "${dirs[@]}" || status=1

echo
echo "| must refuse | exit | message |"
echo "| --- | --- | --- |"
refuse() { # name video
  local rc=0 msg
  msg=$("$build/src/app/karuta-ref" calibrate "$2" --at 1.2 -o "$out/refused.json" 2>&1 >/dev/null) || rc=$?
  echo "| $1 | $rc | ${msg#karuta-ref: } |"
  if [ "$rc" != 1 ] || [ -e "$out/refused.json" ]; then status=1; fi
}
for s in tools/eval_calib_scenarios/refuse/*.json; do
  d="$out/refuse_$(basename "$s" .json)"
  render "$s" "$d"
  refuse "$(basename "$s" .json)" "$d/video.mp4"
done
if [ ! -f "$out/blank.mp4" ]; then
  ffmpeg -loglevel error -y -f lavfi -i color=c=gray:s=640x360:d=2 -pix_fmt yuv420p "$out/blank.mp4"
fi
refuse blank "$out/blank.mp4"
exit $status
