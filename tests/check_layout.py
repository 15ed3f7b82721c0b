#!/usr/bin/env python3
# check_layout.py GOT.jsonl WANT.jsonl [TOL_MM] - the one `layout` record of GOT must hold the
# same card ids as WANT's, each with the same owner and within TOL_MM (default 3) of its
# position. Prints one FAIL line per difference and exits 1; else "ok: N cards as typed".
# Used by analyze_layout.sh and browser/live_layout.sh.
# SPDX-License-Identifier: MIT
import json
import sys


def layout(path):
    recs = [r for r in map(json.loads, (l for l in open(path, encoding='utf-8') if l.strip()))
            if r['type'] == 'layout']
    if len(recs) != 1:
        sys.exit('FAIL: %d layout records in %s' % (len(recs), path))
    return {c['card']: c for c in recs[0]['cards']}


def main():
    got, want = layout(sys.argv[1]), layout(sys.argv[2])
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
    fails = []
    if set(got) != set(want):
        fails.append('card ids differ: missing %s, extra %s'
                     % (sorted(set(want) - set(got)), sorted(set(got) - set(want))))
    for k in sorted(set(got) & set(want)):
        g, w = got[k], want[k]
        if g['owner'] != w['owner']:
            fails.append('card %d owner %s, want %s' % (k, g['owner'], w['owner']))
        if max(abs(g['x_mm'] - w['x_mm']), abs(g['y_mm'] - w['y_mm'])) > tol:
            fails.append('card %d at (%.1f, %.1f), want (%.1f, %.1f)' % (k, g['x_mm'], g['y_mm'], w['x_mm'], w['y_mm']))
    for f in fails:
        print('FAIL:', f)
    if fails:
        sys.exit(1)
    print('ok: %d cards as typed' % len(got))


main()
