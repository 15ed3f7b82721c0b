#!/usr/bin/env bash
# tools/run.sh demo|test [meson setup options...]
#   Installs missing Debian packages (tools/debian-packages.txt), builds into
#   ./build (or $KR_BUILD), then runs the main job on the bundled sample (demo)
#   or every test (test).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
shift || true
case "$mode" in demo|test) ;; *) echo "usage: tools/run.sh demo|test [meson options]" >&2; exit 2 ;; esac

pkgs=$(grep -v '^#' tools/debian-packages.txt | tr '\n' ' ')
missing=()
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

build=${KR_BUILD:-build}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$@" >&2
fi
ninja -C "$build" >&2

if [ "$mode" = demo ]; then
  out=${KR_OUT:-out/demo}
  # The main job: analyze the bundled footage and build the judge's review page.
  "$build/src/app/karuta-ref" review samples/demo/video.mp4 --match samples/demo/match.jsonl --out "$out"
  cat "$out/rulings.jsonl"
  echo "review page: $out/index.html (summary: $out/summary.json)" >&2
else
  # Timeouts are generous multiples: the machine is shared and the sanitizer
  # build runs several times slower; speed is measured by benchmarks, not here.
  meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier "${KR_TIMEOUT_MULT:-4}"
fi
