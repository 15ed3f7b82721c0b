#!/usr/bin/env python3
# check_review.py - asserts on the review page's #selftest report (see review.js).
# Usage: check_review.py DOM.html RULINGS.jsonl FPS CLIPS_DIR
# SPDX-License-Identifier: MIT
import html
import json
import os
import re
import sys

dom_path, rulings_path, fps, clips = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
dom = open(dom_path, encoding='utf-8').read()
m = re.search(r'<pre id="kr-selftest"[^>]*data-done="1"[^>]*>(.*?)</pre>', dom, re.S)
if not m:
    sys.exit('FAIL: the page did not finish its self-test (no data-done on #kr-selftest)')
rep = json.loads(html.unescape(m.group(1)))
print('selftest:', json.dumps(rep))
rulings = [json.loads(l) for l in open(rulings_path, encoding='utf-8') if l.strip()]
seqs = [r['seq'] for r in rulings if r['type'] == 'ruling']
review = [r['seq'] for r in rulings if r['type'] == 'ruling' and r.get('needs_review')]
with_clip = sorted(int(f[3:-4]) for f in os.listdir(clips) if f.endswith('.mp4'))
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
check(rep.get('errors') == [], 'page errors: %s' % rep.get('errors'))
check(rep.get('rulings') == seqs, 'timeline rows %s != rulings %s' % (rep.get('rulings'), seqs))
check(rep.get('review') == review, 'review list %s != needs_review rulings %s' % (rep.get('review'), review))
check(set(review) <= set(rep.get('details', [])), 'a ruling needing review has no detail section')
check(rep.get('players') == len([s for s in with_clip if s in rep.get('details', [])]),
      'video players %s != clips %s' % (rep.get('players'), with_clip))
check(rep.get('sheetsLoaded') == rep.get('sheets') and rep.get('sheets', 0) > 0, 'contact sheets did not load')
check(rep.get('readyState', 0) >= 2, 'clip not loaded (readyState %s)' % rep.get('readyState'))
check(abs(rep.get('duration', 0) - 3.5) < 0.1, 'clip duration %s, expected 3.5 s' % rep.get('duration'))
check(rep.get('playedTo', 0) > 0.05, 'clip did not play (currentTime %s)' % rep.get('playedTo'))
check(abs(rep.get('stepDelta', 0) - 1 / fps) < 0.25 / fps, 'ArrowRight moved %s s, expected one frame' % rep.get('stepDelta'))
check(rep.get('stepFrames') == 1, 'ArrowRight moved %s frames' % rep.get('stepFrames'))
check(abs(rep.get('backDelta', 0) + 1 / fps) < 0.25 / fps, 'ArrowLeft moved %s s' % rep.get('backDelta'))
# visible content: every ruling's card and every review reason is on the page
for r in rulings:
    if r['type'] != 'ruling':
        continue
    check(('id="t%d"' % r['seq']) in dom, 'ruling %d missing from the timeline' % r['seq'])
    for why in r.get('review', []):
        check(why in html.unescape(dom), 'reason "%s" not shown' % why)
check('<script src=' not in dom and 'http://' not in dom and 'https://' not in dom,
      'page refers to the network')
if fails:
    for f in fails:
        print('FAIL:', f)
    sys.exit(1)
print('ok: %d rulings, %d needing review, clip plays and steps one frame' % (len(seqs), len(review)))
