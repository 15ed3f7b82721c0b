#!/usr/bin/env python3
# eval_signed.py - signed timing errors of matched touches, by kind, per frame rate (each of
# WORK's rate folders).
# SPDX-License-Identifier: MIT
#   tools/eval_signed.py WORK [PREFIX] [--press-shift MS]
# WORK is an evaluation work directory of tools/eval_events.sh (WORK/FPS/NAME with the
# scenario's truth.jsonl and analyze's out/events.jsonl). For each rate, prints the sweeps'
# and the presses' median signed error (detected - true, ms; negative: early) and every
# value, sorted. A true touch is a sweep when a push_out of its card follows within 300 ms;
# it is matched to the same player's nearest detected touch of the same card within 60 ms.
# Held-out scenarios (h_*) are left out; with PREFIX, only scenarios whose name starts so
# (e.g. race_). KR_OUT_NAME: the analyze output folder's name in each scenario (default out;
# tools/eval_events.sh --out-name). Then, per rate, how many matched touches lie within a quarter
# of a period of the truth (the median target), and with --press-shift MS how many
# would with every press moved MS ms later (a what-if for the press tail, not a measurement).
import glob
import json
import os
import statistics
import sys

OUT = os.environ.get("KR_OUT_NAME", "out")


def main():
    args = sys.argv[1:]
    shift = 0.0
    if "--press-shift" in args:
        i = args.index("--press-shift")
        shift = float(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (1, 2):
        sys.exit("usage: tools/eval_signed.py WORK [PREFIX] [--press-shift MS]")
    prefix = args[1] if len(args) == 2 else ""
    rates = sorted(int(x) for x in os.listdir(args[0]) if x.isdigit() and os.path.isdir(os.path.join(args[0], x)))
    for fps in rates:
        rows = {"sweep": [], "press": []}
        for d in sorted(glob.glob("%s/%d/*/" % (args[0], fps))):
            name = d.rstrip("/").split("/")[-1]
            if name.startswith("h_") or not name.startswith(prefix):
                continue
            try:
                tr = [json.loads(line) for line in open(d + "truth.jsonl")]
                ev = [json.loads(line) for line in open(d + OUT + "/events.jsonl")]
            except (OSError, ValueError):
                continue
            det = [r for r in ev if r["type"] == "touch" and "t_err_us" in r]
            pushes = [r for r in tr if r["type"] == "push_out"]
            for t in (r for r in tr if r["type"] == "touch"):
                c = [e for e in det if e["player"] == t["player"] and e.get("card") == t.get("card")]
                if not c:
                    continue
                e = min(c, key=lambda e: abs(e["t_us"] - t["t_us"]))
                if abs(e["t_us"] - t["t_us"]) > 60000:
                    continue
                kind = "sweep" if any(p.get("card") == t.get("card") and 0 <= p["t_us"] - t["t_us"] < 300000
                                      for p in pushes) else "press"
                rows[kind].append((e["t_us"] - t["t_us"]) / 1000)
        for kind, v in rows.items():
            if v:
                v.sort()
                print(fps, kind, len(v), "median signed %.1f ms" % statistics.median(v),
                      " ".join("%.1f" % x for x in v))
        q = 250.0 / fps  # a quarter of a period, ms
        every = rows["sweep"] + rows["press"]
        if every:
            moved = rows["sweep"] + [x + shift for x in rows["press"]]
            print(fps, "within 1/4 frame: %d of %d" % (sum(abs(x) <= q for x in every), len(every)),
                  "(with the presses %+.1f ms: %d)" % (shift, sum(abs(x) <= q for x in moved)) if shift else "")


if __name__ == "__main__":
    main()
