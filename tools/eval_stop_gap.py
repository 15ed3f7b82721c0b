#!/usr/bin/env python3
# eval_stop_gap.py - each press's reading against its hand's fitted stop, with its true error.
# SPDX-License-Identifier: MIT
#   tools/eval_stop_gap.py [--karuta-ref BIN] [--before MS] SCENARIO_DIR...
# Runs a debug build's `karuta-ref analyze` (BIN, default $KR_BUILD/src/app/karuta-ref; KR_DEBUG
# output: release builds print none) on each rendered scenario (video.mp4, match.jsonl,
# truth.jsonl) and reads its "press of card" lines: the hand's rest and fitted stop and the
# time read. Pairs each with the same player's nearest true touch of the card and prints the
# presses read more than MS (default 40) before their stop, then how many of the presses within
# twice their t_err and of those beyond it were read so: whether a reading before the stop
# says the reading is wrong (forty-ninth session, look 7055 race_20ms).
import argparse
import json
import os
import re
import subprocess
import tempfile

PRESS = re.compile(r"press of card (\d+) by (\w): rest -?\d+ stop (-?\d+) .*?-> (-?\d+) \+- (\d+);.*? merged (\d)")


def presses(binary, d):
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([binary, "analyze", os.path.join(d, "video.mp4"), "--match", os.path.join(d, "match.jsonl"),
                              "--out", out], env=dict(os.environ, KR_DEBUG="1"), capture_output=True, text=True)
    truth = [json.loads(line) for line in open(os.path.join(d, "truth.jsonl"))]
    for m in PRESS.finditer(run.stderr):
        card, player, stop, t, err, merged = m.groups()
        errs = [int(t) - r["t_us"] for r in truth if r.get("type") == "touch" and r.get("card") == int(card)
                and r.get("player") == player]
        true = min(errs, key=abs) if errs else None
        yield player, int(card), (int(t) - int(stop)) / 1000, int(err) / 1000, None if true is None else true / 1000, int(merged)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--karuta-ref", default=os.path.join(os.environ.get("KR_BUILD", "build"), "src/app/karuta-ref"))
    ap.add_argument("--before", type=float, default=40)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    within = beyond = within_before = beyond_before = 0
    for d in a.dirs:
        for player, card, gap, err, true, merged in presses(a.karuta_ref, d):
            if true is None:
                continue
            ok = abs(true) <= 2 * err
            within += ok
            beyond += not ok
            if gap < -a.before:
                within_before += ok
                beyond_before += not ok
                print("%-50s %s card %3d  read %6.1f ms before the stop  true %+7.1f on %5.1f%s" %
                      (d, player, card, -gap, true, err, "  merged" if merged else ""))
    print("read more than %.0f ms before the stop: %d of %d presses within twice their t_err, %d of %d beyond" %
          (a.before, within_before, within, beyond_before, beyond))


if __name__ == "__main__":
    main()
