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
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
def layout(p):
    return [json.loads(l) for l in open(p, encoding='utf-8') if json.loads(l)['type'] == 'layout'][0]
got = {c['card']: c for c in layout(t + '/read/events.jsonl')['cards']}
want = {c['card']: c for c in layout(t + '/s/match.jsonl')['cards']}
fails = []
if set(got) != set(want):
    fails.append('card ids differ: missing %s, extra %s' % (sorted(set(want) - set(got)), sorted(set(got) - set(want))))
for k in set(got) & set(want):
    g, w = got[k], want[k]
    if g['owner'] != w['owner']:
        fails.append('card %d owner %s, want %s' % (k, g['owner'], w['owner']))
    if max(abs(g['x_mm'] - w['x_mm']), abs(g['y_mm'] - w['y_mm'])) > 3.0:
        fails.append('card %d at (%.1f, %.1f), want (%.1f, %.1f)' % (k, g['x_mm'], g['y_mm'], w['x_mm'], w['y_mm']))
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
print('ok: layout read from the footage: %d cards as typed; rulings identical' % len(got))
PY
