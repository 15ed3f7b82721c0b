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
. "$(dirname "$0")/synth_analyze.sh"
synth_analyze samples/scenarios/race_60ms.json --fps 30 --jitter 0.2 --drop 0.05 --duration 3.5
python3 - "$tmp" "$(dirname "$0")" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from e2e_check import load, within_2_terr, takes_as_truth, finish
t = sys.argv[1]
frames = [r['t_us'] for r in load(t + '/s/truth_frames.jsonl')]
steps = [b - a for a, b in zip(frames, frames[1:])]
fails = []
if max(steps) < 1.5 * 33333 or min(steps) > 0.9 * 33333:
    fails.append('the render is not uneven: steps %d..%d us' % (min(steps), max(steps)))
truth = [r for r in load(t + '/s/truth.jsonl') if r['type'] == 'touch' and r.get('card') == 48]
seen = [r for r in load(t + '/o/events.jsonl') if r['type'] == 'touch' and r.get('card') == 48]
for tr in truth:
    within_2_terr(tr, [e for e in seen if e['player'] == tr['player']], '%s touch of card 48' % tr['player'], fails)
takes_as_truth(t, fails)
finish(fails, '%d frames %d..%d us apart; both racing touches within 2 t_err, the take as the truth' %
       (len(frames), min(steps), max(steps)))
PY
