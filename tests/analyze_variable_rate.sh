#!/bin/sh
# analyze_variable_rate.sh - times come from the presentation timestamps (issue 6): a
# race rendered as a phone records it (30 fps, each frame up to a fifth of a period early or
# late, frames dropped: karuta-synth --jitter 0.2 --drop 0.05) is analyzed with both racing
# touches within twice their t_err of the truth and the take given as the truth gives it.
# Timed by frame index x nominal period, every touch after a dropped frame would be a
# period late or more. The file's frame times are checked to be uneven first.
# Usage: analyze_variable_rate.sh KARUTA_REF KARUTA_SYNTH
# SPDX-License-Identifier: MIT
set -eu
kr=$1
synth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$synth" samples/scenarios/race_60ms.json -o "$tmp/s" --fps 30 --jitter 0.2 --drop 0.05 --duration 3.5 >/dev/null 2>&1
"$kr" analyze "$tmp/s/video.mp4" --match "$tmp/s/match.jsonl" --out "$tmp/o" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
"$kr" rule "$tmp/s/truth.jsonl" > "$tmp/truth_rulings.jsonl"
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
load = lambda p: [json.loads(l) for l in open(p, encoding='utf-8') if l.strip()]
frames = [r['t_us'] for r in load(t + '/s/truth_frames.jsonl')]
steps = [b - a for a, b in zip(frames, frames[1:])]
fails = []
if max(steps) < 1.5 * 33333 or min(steps) > 0.9 * 33333:
    fails.append('the render is not uneven: steps %d..%d us' % (min(steps), max(steps)))
truth = [r for r in load(t + '/s/truth.jsonl') if r['type'] == 'touch' and r.get('card') == 48]
seen = [r for r in load(t + '/o/events.jsonl') if r['type'] == 'touch' and r.get('card') == 48]
for tr in truth:
    c = [e for e in seen if e['player'] == tr['player']]
    if not c:
        fails.append('%s touch of card 48 not seen' % tr['player'])
        continue
    e = min(c, key=lambda e: abs(e['t_us'] - tr['t_us']))
    if abs(e['t_us'] - tr['t_us']) > 2 * e.get('t_err_us', 0):
        fails.append('%s touch at %d us, truth %d, t_err %d' % (tr['player'], e['t_us'], tr['t_us'], e.get('t_err_us', 0)))
take = lambda p: [(r['seq'], (r.get('take') or {}).get('player')) for r in load(p) if r['type'] == 'ruling']
if take(t + '/o/rulings.jsonl') != take(t + '/truth_rulings.jsonl'):
    fails.append('takes %s, truth %s' % (take(t + '/o/rulings.jsonl'), take(t + '/truth_rulings.jsonl')))
for f in fails:
    print('FAIL:', f)
if fails:
    sys.exit(1)
print('ok: %d frames %d..%d us apart; both racing touches within 2 t_err, the take as the truth' %
      (len(frames), min(steps), max(steps)))
PY
