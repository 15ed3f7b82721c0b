#!/usr/bin/env python3
# trace_lead_jumps.py - one-frame jumps of the hands' leading points in analyze --trace files.
# SPDX-License-Identifier: MIT
#   tools/trace_lead_jumps.py TRACE...
# For each trace (karuta-ref analyze --trace) and hand: the fastest one-frame velocity of
# the leading point (the tracker's hand "v", mm/s), how many frames move it faster than
# 1.5 m/s and more than twice as fast as both neighbouring frames (a jump that comes and
# goes, not a sweep, which keeps its speed over several frames), and the first few such
# frames (time s: speeds before, on and after, mm/s). The tracker's hand's way
# (kr_track_hand_way_) takes the middle one of three neighbouring frames for that reason.
import json
import math
import sys


def speeds(rows, p):
    out = []
    for d in rows:
        h = d["hands"][p]
        out.append((d["t_us"], math.hypot(*h["v"]) if h.get("present") and "v" in h else None))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: tools/trace_lead_jumps.py TRACE...")
    for path in sys.argv[1:]:
        try:
            with open(path) as f:
                rows = [json.loads(line) for line in f if line.strip()]
        except (OSError, ValueError) as e:
            sys.exit("%s: %s" % (path, e))
        for p, name in ((0, "A"), (1, "B")):
            sp = speeds(rows, p)
            jumps = []
            for i in range(1, len(sp) - 1):
                a, b, c = sp[i - 1][1], sp[i][1], sp[i + 1][1]
                if None in (a, b, c):
                    continue
                if b > 1500 and b > 2 * max(a, c):
                    jumps.append("%.3f: %.0f %.0f %.0f" % (sp[i][0] / 1e6, a, b, c))
            fastest = max([s for _, s in sp if s is not None] or [0])
            print("%s %s: fastest %.0f mm/s, %d one-frame jumps%s" %
                  (path, name, fastest, len(jumps), (" (" + "; ".join(jumps[:3]) + ")") if jumps else ""))


if __name__ == "__main__":
    main()
