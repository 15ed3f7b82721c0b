#!/bin/sh
# analyze_layout.sh - a match file without a layout: analyze reads the layout from the
# memorisation period (issue 9) and must find the same 50 cards, owners and positions
# (within 3 mm) as the scene's true layout, and rule the reading as with the typed one.
# Usage: analyze_layout.sh KARUTA_REF KARUTA_SYNTH
# SPDX-License-Identifier: MIT
set -eu
kr=$1
synth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$synth" samples/scenarios/own_take.json -o "$tmp/s" --size 1280x720 >/dev/null 2>&1
grep -v '"type": *"layout"' "$tmp/s/match.jsonl" > "$tmp/nolayout.jsonl"
if grep -q '"layout"' "$tmp/nolayout.jsonl"; then echo "FAIL: could not strip the layout"; exit 1; fi
"$kr" analyze "$tmp/s/video.mp4" --match "$tmp/nolayout.jsonl" --out "$tmp/read"
"$kr" analyze "$tmp/s/video.mp4" --match "$tmp/s/match.jsonl" --out "$tmp/typed"
fails=0
python3 "$(dirname "$0")/check_layout.py" "$tmp/read/events.jsonl" "$tmp/s/match.jsonl" || fails=1
python3 - "$tmp" <<'PY' || fails=1
import json, sys
t = sys.argv[1]
fails = []
def rulings(p):
    return [(r['seq'], r['card'], r.get('take'), r['counts']) for r in map(json.loads, open(p, encoding='utf-8'))
            if r['type'] == 'ruling']
a, b = rulings(t + '/read/rulings.jsonl'), rulings(t + '/typed/rulings.jsonl')
strip = lambda rs: [(s, c, (tk or {}).get('player'), (tk or {}).get('how'), n) for s, c, tk, n in rs]
if strip(a) != strip(b):
    fails.append('rulings differ: %s vs %s' % (strip(a), strip(b)))
for f in fails:
    print('FAIL:', f)
if fails:
    sys.exit(1)
print('ok: rulings with the layout read from the footage are as with the typed one')
PY
[ "$fails" -eq 0 ] || exit 1
