#!/usr/bin/env python3
# eval_touch_diff.py - every true touch of one scenario beside the detected touch of each of
# several analyze runs: signed error (detected - true, ms) and the t_err it claims.
# SPDX-License-Identifier: MIT
#   tools/eval_touch_diff.py SCENARIO_DIR OUT_DIR [OUT_DIR...] [--all]
# SCENARIO_DIR holds truth.jsonl (karuta-synth); each OUT_DIR an analyze output (events.jsonl),
# e.g. the same footage analyzed by two builds. A true touch is paired with the same player's
# nearest detected touch of the same card within 100 ms (wider than eval_events.py's 60 ms, so
# that a touch timed too late to match still shows). Prints the touches whose pairing differs
# between the runs (every touch with --all), then per run how many paired touches lie further
# from the truth than twice their t_err.
import json
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def detected_touches(path):
    """The touches analyze observed (ids v...) in an events.jsonl."""
    return [r for r in load(path) if r["type"] == "touch" and r.get("id", "").startswith("v")]


def pair(t, detected):
    c = [d for d in detected if d.get("card") == t.get("card") and d.get("player") == t["player"]
         and abs(d["t_us"] - t["t_us"]) < 100000]
    return min(c, key=lambda d: abs(d["t_us"] - t["t_us"])) if c else None


def main():
    args = [a for a in sys.argv[1:] if a != "--all"]
    if len(args) < 2:
        sys.exit("usage: tools/eval_touch_diff.py SCENARIO_DIR OUT_DIR [OUT_DIR...] [--all]")
    truth = [r for r in load(args[0] + "/truth.jsonl") if r["type"] == "touch"]
    runs = [detected_touches(d + "/events.jsonl") for d in args[1:]]
    beyond = [0] * len(runs)
    paired = [0] * len(runs)
    for t in truth:
        cells = []
        for k, det in enumerate(runs):
            d = pair(t, det)
            if d is None:
                cells.append("      -      ")
                continue
            err, te = (d["t_us"] - t["t_us"]) / 1000.0, d.get("t_err_us", 0) / 1000.0
            paired[k] += 1
            beyond[k] += abs(err) > 2 * te
            cells.append("%+7.1f / %4.1f" % (err, te))
        if "--all" in sys.argv or len(set(cells)) > 1:
            print("%-5s %s card %-3s t=%9.3f s  %s" % (t["id"], t["player"], t.get("card"), t["t_us"] / 1e6,
                                                      "   ".join(cells)))
    for k in range(len(runs)):
        print("run %d (%s): %d of %d paired touches beyond 2 t_err" % (k + 1, args[1 + k], beyond[k], paired[k]))


if __name__ == "__main__":
    main()
