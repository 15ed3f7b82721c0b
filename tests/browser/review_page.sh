#!/bin/sh
# review_page.sh - browser test of the review page: builds a review folder from the
# fixture rulings with a real clip (karuta-ref clip of the bundled demo), opens
# index.html#selftest in headless
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
# a real clip (kr_clip: tracked card and hand outlines, contacts, time code) of the bundled
# demo: 3.5 s around B's touch of card 33 at 11.37 s, 60 fps; shown for every ruling
fps=60
"$bin" clip samples/demo/video.mp4 --at 11.37 --before 1.5 --after 2.0 --match samples/demo/match.jsonl \
  --events samples/demo/truth.jsonl -o "$tmp/clips/seq1.mp4"
for s in 1 2 3; do
  [ $s = 1 ] || { cp "$tmp/clips/seq1.mp4" "$tmp/clips/seq$s.mp4"; cp "$tmp/clips/seq1.png" "$tmp/clips/seq$s.png"; }
  echo "{\"seq\":$s,\"video\":\"clips/seq$s.mp4\",\"sheet\":\"clips/seq$s.png\",\"fps\":$fps.000000,\"start_us\":9870000,\"slow\":1}" \
    > "$tmp/clips/seq$s.json"
done
# what a judge sees in the clip at the touch, and the contact sheet (to look at)
ffmpeg -loglevel error -y -ss 1.52 -i "$tmp/clips/seq1.mp4" -frames:v 1 "$shots/review_clip_frame.png"
cp "$tmp/clips/seq1.png" "$shots/review_clip_sheet.png"
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
echo "screenshot: $shots/review_page.png; clip frame: $shots/review_clip_frame.png; sheet: $shots/review_clip_sheet.png"
