#!/bin/sh
# review_page.sh - browser test of the review page: builds a review folder from the
# fixture (clips made with ffmpeg's test source), opens index.html#selftest in headless
# Chromium, and checks what the page's test hook reports (every ruling present, the
# clip loads and plays, arrow keys step one frame). Writes a screenshot.
# Usage: review_page.sh KARUTA_REF SCREENSHOT_DIR     (exit 77 = skipped)
# SPDX-License-Identifier: MIT
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$1
shots=${2:-.}
if ! command -v chromium >/dev/null 2>&1; then
  echo "SKIP: chromium is not installed (apt-get install chromium; tools/debian-packages.txt lists it)"
  exit 77
fi
command -v ffmpeg >/dev/null 2>&1 || { echo "SKIP: ffmpeg is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/fixture/events.jsonl" "$here/fixture/rulings.jsonl" "$tmp/"
mkdir "$tmp/clips"
fps=30
for s in 1 2 3; do
  ffmpeg -loglevel error -f lavfi -i "testsrc2=size=640x360:rate=$fps" -t 3.5 -c:v libx264 \
    -pix_fmt yuv420p -movflags +faststart "$tmp/clips/seq$s.mp4"
  ffmpeg -loglevel error -f lavfi -i testsrc=size=960x200:rate=1 -frames:v 1 "$tmp/clips/seq$s.png"
  echo "{\"seq\":$s,\"video\":\"clips/seq$s.mp4\",\"sheet\":\"clips/seq$s.png\",\"fps\":$fps.000000,\"start_us\":${s}000000,\"slow\":1}" \
    > "$tmp/clips/seq$s.json"
done
"$bin" review --page-only --out "$tmp"
"$here/chromium.sh" --virtual-time-budget=15000 --dump-dom "file://$tmp/index.html#selftest" > "$tmp/dom.html"
"$here/chromium.sh" --window-size=1280,2600 --virtual-time-budget=5000 \
  --screenshot="$shots/review_page.png" "file://$tmp/index.html" >/dev/null
python3 "$here/check_review.py" "$tmp/dom.html" "$tmp/rulings.jsonl" "$fps" "$tmp/clips"
test -s "$shots/review_page.png"
echo "screenshot: $shots/review_page.png"
