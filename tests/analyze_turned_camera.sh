#!/bin/sh
# analyze_turned_camera.sh - a camera mounted the other way round (turned half a turn:
# player B at the bottom of the picture). The field fits as well with player A at the
# bottom; the match's layout tells the sides apart (kr_app_calibrate). own_take rendered
# with the camera's roll at 180 degrees: analyze, given no calibration, must calibrate with
# A at the top (summary.json's calibration.a_side), rule the reading as the truth and time
# A's sweep within twice its t_err (before: refused, "layout card ... is not on the mat").
# Usage: analyze_turned_camera.sh KARUTA_REF KARUTA_SYNTH
# SPDX-License-Identifier: MIT
set -eu
kr=$1
synth=$2
. "$(dirname "$0")/synth_analyze.sh"
python3 - samples/scenarios/own_take.json "$tmp/turned.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s.setdefault('camera', {})['roll_deg'] = 180.0
json.dump(s, open(sys.argv[2], 'w'))
PY
synth_analyze "$tmp/turned.json" --fps 60 --duration 3.0
python3 - "$tmp" "$(dirname "$0")" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from e2e_check import load, within_2_terr, takes_as_truth, finish
t = sys.argv[1]
fails = []
side = json.load(open(t + '/o/summary.json'))['calibration'].get('a_side')
if side != 'top':
    fails.append('calibrated with A at the %s of the picture, not the top' % side)
seen = load(t + '/o/events.jsonl')
for tr in (r for r in load(t + '/s/truth.jsonl') if r['type'] == 'touch'):
    within_2_terr(tr, [e for e in seen if e['type'] == 'touch' and e.get('card') == tr['card'] and
                       e.get('player') == tr['player']], 'touch of card %d' % tr['card'], fails)
takes_as_truth(t, fails, how=True)
finish(fails, 'A at the top; touches within 2 t_err; takes as the truth')
PY
