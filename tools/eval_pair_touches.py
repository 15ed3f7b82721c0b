#!/usr/bin/env python3
# eval_pair_touches.py - two analyze runs over the same renders, touch by touch: the touches
# of the truth matched in both (same player and card, within 60 ms), their median |error|
# in each run, in how many the second run is closer, and the median signed error (detected -
# true, ms) by the territory of the card (A's cards lie in the picture's lower half from a
# camera on A's side, B's in its upper half: a rolling shutter not allowed for puts them
# early and late). Held-out scenarios (h_*) included.
# SPDX-License-Identifier: MIT
#   tools/eval_pair_touches.py WORK FPS OUT_A OUT_B
# WORK/FPS/NAME is a render (truth.jsonl) with the runs' outputs in NAME/OUT_A, NAME/OUT_B
# (tools/eval_events.sh --out-name), e.g. `tools/eval_pair_touches.py out/eval-rs 60 blind told`.
import glob
import json
import os
import statistics
import sys


def touches(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [e for e in (json.loads(line) for line in f if line.strip()) if e.get("type") == "touch"]


def nearest(found, true):
    c = [e for e in found if e.get("card") == true["card"] and e.get("player") == true["player"]
         and abs(e["t_us"] - true["t_us"]) < 60000]
    return min(c, key=lambda e: abs(e["t_us"] - true["t_us"])) if c else None


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: tools/eval_pair_touches.py WORK FPS OUT_A OUT_B")
    work, fps, a, b = sys.argv[1:]
    rows = []
    for d in sorted(glob.glob(os.path.join(work, fps, "*", ""))):
        ta, tb = touches(os.path.join(d, a, "events.jsonl")), touches(os.path.join(d, b, "events.jsonl"))
        for t in touches(os.path.join(d, "truth.jsonl")):
            ma, mb = nearest(ta, t), nearest(tb, t)
            if ma and mb:
                rows.append((t.get("territory"), (ma["t_us"] - t["t_us"]) / 1e3, (mb["t_us"] - t["t_us"]) / 1e3))
    if not rows:
        sys.exit("no touch matched in both runs")
    med = statistics.median
    print("%s fps: %d touches matched in both; median |error| %s %.2f ms, %s %.2f ms; %s closer on %d" %
          (fps, len(rows), a, med(abs(r[1]) for r in rows), b, med(abs(r[2]) for r in rows), b,
           sum(abs(r[2]) < abs(r[1]) for r in rows)))
    for side in ("A", "B"):
        s = [r for r in rows if r[0] == side]
        if s:
            print("  cards of %s's territory (%d): median signed %s %+.2f ms, %s %+.2f ms" %
                  (side, len(s), a, med(r[1] for r in s), b, med(r[2] for r in s)))


if __name__ == "__main__":
    main()
