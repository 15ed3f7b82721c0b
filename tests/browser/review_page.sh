#!/bin/sh
# review_page.sh - browser test of the review page: builds a review folder from the
# fixture (clips made with ffmpeg's test source), opens index.html#selftest in headless
# Chromium (cdp.js), and checks what the page's test hook reports (every ruling present, the
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
command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed (apt-get install nodejs)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/fixture/events.jsonl" "$here/fixture/rulings.jsonl" "$tmp/"
mkdir "$tmp/clips"
fps=30
ffmpeg -loglevel error -f lavfi -i "testsrc2=size=320x180:rate=$fps" -t 3.5 -c:v libx264 -preset ultrafast \
  -pix_fmt yuv420p -movflags +faststart "$tmp/clips/seq1.mp4"
ffmpeg -loglevel error -f lavfi -i testsrc=size=480x100:rate=1 -frames:v 1 "$tmp/clips/seq1.png"
for s in 1 2 3; do
  [ $s = 1 ] || { cp "$tmp/clips/seq1.mp4" "$tmp/clips/seq$s.mp4"; cp "$tmp/clips/seq1.png" "$tmp/clips/seq$s.png"; }
  echo "{\"seq\":$s,\"video\":\"clips/seq$s.mp4\",\"sheet\":\"clips/seq$s.png\",\"fps\":$fps.000000,\"start_us\":${s}000000,\"slow\":1}" \
    > "$tmp/clips/seq$s.json"
done
"$bin" review --page-only --out "$tmp"
# one browser run (real time, DevTools protocol): wait for the page's self-test, then
# take the screenshot of the page as a judge sees it at the top
node "$here/cdp.js" "file://$tmp/index.html#selftest" \
  "document.getElementById('kr-selftest').dataset.done && document.documentElement.outerHTML" 20000 \
  "$shots/review_page.png" 1280x2600 > "$tmp/dom.json" 2>"$tmp/cdp.err" || { cat "$tmp/cdp.err"; exit 1; }
python3 -c 'import json,sys; open(sys.argv[2],"w",encoding="utf-8").write(json.load(open(sys.argv[1],encoding="utf-8")))' \
  "$tmp/dom.json" "$tmp/dom.html"
python3 "$here/check_review.py" "$tmp/dom.html" "$tmp/rulings.jsonl" "$fps" "$tmp/clips"
test -s "$shots/review_page.png"
echo "screenshot: $shots/review_page.png"
