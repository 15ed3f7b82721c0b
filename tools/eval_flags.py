#!/usr/bin/env python3
# eval_flags.py - two runs' flagged readings side by side, over the render folders both ran.
# SPDX-License-Identifier: MIT
#   tools/eval_flags.py NAME_A NAME_B [--not SUBSTR[,SUBSTR...]]
# Reads the per-scenario results tools/eval_events.sh wrote (--results NAME.jsonl) in each folder
# out/eval*/FPS/ holding both NAME_A.jsonl and NAME_B.jsonl (full_match left out, as the looks
# skip it). Prints per run: readings flagged for a judge, wrong rulings not flagged, and
# readings ruled as the truth over all readings. --not: leave out the folders whose path holds
# SUBSTR (several: comma-separated).
import argparse
import glob
import json
import os


def main():
    ap = argparse.ArgumentParser(description="flagged readings of two runs over the folders both ran")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--not", dest="skip", default="", help="SUBSTR[,SUBSTR...]: folders to leave out")
    args = ap.parse_args()
    skip = [x for x in args.skip.split(",") if x]
    tot = {args.a: [0, 0, 0, 0], args.b: [0, 0, 0, 0]}
    folders = 0
    for d in sorted(glob.glob("out/eval*/*/")):
        if any(s in d for s in skip) or not all(os.path.exists(d + n + ".jsonl") for n in tot):
            continue
        folders += 1
        for n, t in tot.items():
            for r in map(json.loads, open(d + n + ".jsonl")):
                if r["scenario"] == "full_match":
                    continue
                t[0] += r["flagged"]
                t[1] += r["wrong_unflagged"]
                t[2] += r["same"]
                t[3] += r["readings"]
    print("folders %d" % folders)
    for n, t in tot.items():
        print("  %-8s flagged %d, wrong not flagged %d, readings as the truth %d of %d" % (n, t[0], t[1], t[2], t[3]))


if __name__ == "__main__":
    main()
