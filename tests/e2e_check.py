# e2e_check.py - shared checks of the end-to-end tests that render a scenario and analyze
# it (tests/synth_analyze.sh): the output folder T holds s/ (karuta-synth's render), o/
# (analyze's output) and truth_rulings.jsonl (the truth ruled by the same engine).
# SPDX-License-Identifier: MIT
import json
import sys


def load(path):
    return [json.loads(line) for line in open(path, encoding='utf-8') if line.strip()]


def within_2_terr(truth, seen, what, fails):
    """The detection nearest the true record truth among seen, within twice its t_err."""
    if not seen:
        fails.append('%s not seen' % what)
        return
    e = min(seen, key=lambda e: abs(e['t_us'] - truth['t_us']))
    if abs(e['t_us'] - truth['t_us']) > 2 * e.get('t_err_us', 0):
        fails.append('%s at %d us, truth %d, t_err %d' % (what, e['t_us'], truth['t_us'], e.get('t_err_us', 0)))


def takes_as_truth(t, fails, how=False):
    """Every ruling's take (its player, and how with how=True) as the truth's."""
    def take(p):
        return [(r['seq'], (r.get('take') or {}).get('player')) + (((r.get('take') or {}).get('how'),) if how else ())
                for r in load(p) if r['type'] == 'ruling']
    got, want = take(t + '/o/rulings.jsonl'), take(t + '/truth_rulings.jsonl')
    if got != want:
        fails.append('takes %s, truth %s' % (got, want))


def finish(fails, ok):
    for f in fails:
        print('FAIL:', f)
    if fails:
        sys.exit(1)
    print('ok:', ok)
