#!/usr/bin/env python3
# landing_brake.py - single presses timed by their landing (landing() of src/event/kr_event.c),
# read from analyze's debug log: the tip change on the last changing frame and the three
# before it, the share of the last full frame's change against the one before (the braking
# cue, LANDING_BRAKE_*), how long after the start (the earlier of the hand's stop and its
# rest's start) the motion was last seen (the strike cue, LANDING_STRIKE_US), and the signed
# error against the truth. Then, per frame rate, landing() replayed on those numbers with
# the strike cue alone and with the braking cue too (at every rate, whatever
# LANDING_BRAKE_MIN_PER_US says): median and 95th percentile |error| (ms), over the landings
# the build's own rule reproduces within 1.5 ms (others are timed by a later rule: the drop,
# a keyframe, the rest's start).
# SPDX-License-Identifier: MIT
#   tools/landing_brake.py SCENARIO_DIR DEBUG_LOG [SCENARIO_DIR DEBUG_LOG ...] [--all]
# DEBUG_LOG: the stderr of `KR_DEBUG=1 karuta-ref analyze SCENARIO_DIR/video.mp4 --out OUT ...`
# (a debug build: its "landing of card" lines). A landing is paired with the same player's
# true touch of the same card within 150 ms. --all: a line per landing (default: totals).
import json
import re
import statistics
import sys

LAND = re.compile(r"landing of card (\d+) by ([AB]): last change at (\d+) \((\d+), after (\d+), (-?\d+), (-?\d+)\), "
                  r"then quiet at (\d+) \((\d+)\); from (-?\d+)")
PRESS = re.compile(r"press of card (\d+) by ([AB]): .* landing (-?\d+) force \d -> (-?\d+) \+- (\d+);")
STRIKE_US, PLACED_US, TAIL_US = 25000, 50000, 11000   # kr_event.c's LANDING_STRIKE_US, _PLACED_US, _TAIL_ALONE_US
BRAKE_LO, BRAKE_HI, BRAKE_MIN_PER_US = 0.9, 1.0, 12000  # LANDING_BRAKE_LO, _HI, _MIN_PER_US
PAIR_US = 150000


def clamp(x):
    return 0.0 if x < 0 else 1.0 if x > 1 else x


def replay(r, brake):
    """landing()'s time from the logged numbers: the motion last seen, plus the tail in
    proportion to how placed the landing reads; never after the first quiet frame"""
    per, e = r["per"], r["E"]
    share = min(1.0, e[0] / e[1]) if e[1] > 0 else 1.0
    end = r["L"] - per + share * per
    placed = clamp((end - r["from"] - STRIKE_US) / (PLACED_US - STRIKE_US))
    if brake and e[2] > 0:
        placed = max(placed, clamp((BRAKE_HI - e[1] / e[2]) / (BRAKE_HI - BRAKE_LO)))
    return min(end + placed * TAIL_US, r["L"] + per), end


def landings(sd, log):
    truth = [json.loads(l) for l in open(sd + "/truth.jsonl") if l.strip()]
    touches = [t for t in truth if t.get("type") == "touch"]
    out, pend = [], None
    for line in open(log):
        m = LAND.search(line)
        if m:
            pend = m
            continue
        m = PRESS.search(line)
        if not m:
            continue
        if pend and pend.group(1) == m.group(1) and pend.group(2) == m.group(2) and "race_landing" not in line:
            card, pl, t = int(m.group(1)), m.group(2), int(m.group(4))
            near = [x["t_us"] for x in touches if x.get("card") == card and x.get("player") == pl and
                    abs(x["t_us"] - t) <= PAIR_US]
            if near:
                L, q = int(pend.group(3)), int(pend.group(8))
                out.append({"scenario": sd.rstrip("/").split("/")[-1], "card": card, "player": pl, "t": t,
                            "tc": min(near, key=lambda x: abs(x - t)), "L": L, "per": q - L,
                            "E": [float(pend.group(i)) for i in (4, 5, 6, 7)], "from": int(pend.group(10))})
        pend = None
    return out


def main():
    show = "--all" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--all"]
    if len(args) < 2 or len(args) % 2:
        sys.exit("usage: tools/landing_brake.py SCENARIO_DIR DEBUG_LOG [SCENARIO_DIR DEBUG_LOG ...] [--all]")
    rows = []
    for sd, log in zip(args[0::2], args[1::2]):
        rows += landings(sd, log)
    by_fps = {}
    for r in rows:
        fps = round(1e6 / r["per"])
        t_time, end = replay(r, False)
        t_brake, _ = replay(r, True)
        own = t_brake if r["per"] >= BRAKE_MIN_PER_US else t_time
        r["ok"] = abs(own - r["t"]) <= 1500
        if show:
            e = r["E"]
            print("%4d fps %-22s %c card %3d  brake share %5.2f  motion last seen %6.1f ms after the start  "
                  "error %+6.1f ms%s" % (fps, r["scenario"][:22], r["player"][0], r["card"],
                                         e[1] / e[2] if e[2] > 0 else float("nan"), (end - r["from"]) / 1e3,
                                         (r["t"] - r["tc"]) / 1e3, "" if r["ok"] else "  (timed by a later rule)"))
        if r["ok"]:
            by_fps.setdefault(fps, []).append((abs(t_time - r["tc"]) / 1e3, abs(t_brake - r["tc"]) / 1e3))
    for fps in sorted(by_fps):
        v = by_fps[fps]
        for i, name in ((0, "strike cue alone"), (1, "with the braking cue")):
            a = sorted(x[i] for x in v)
            p95 = a[min(len(a) - 1, int(round(0.95 * (len(a) - 1))))]
            print("%4d fps, %d landings replayed, %-20s: |error| median %.1f ms, p95 %.1f ms" %
                  (fps, len(a), name, statistics.median(a), p95))


if __name__ == "__main__":
    main()
