#!/usr/bin/env python3
# eval_press_stop.py - each true press (no push-out of its card within 300 ms) beside how analyze
# read it: its hand's stop, the landing read against it, the contact against it, the error.
# SPDX-License-Identifier: MIT
#   tools/eval_press_stop.py KARUTA_REF NAME [--within MM] [--before] DIR...
# KARUTA_REF: a build whose debug lines are on (a debug build, or meson -Db_ndebug=false); it
# is run with KR_DEBUG=1 on each render DIR (out/eval*/FPS/SCENARIO, as tools/eval_events.sh
# left it) whose analyze output NAME/events.jsonl pairs the press (tools/eval_beyond.py's
# pairing). Per press: the card's distance from the camera's nadir (the render's meta.json),
# "landing" (a single press) or "race_landing" (the other hand near), the landing read and the
# true contact, each less the hand's stop as the debug line "press of card" gives them (ms),
# and the reported time's error on its t_err. --within: only cards this near the nadir (mm).
# --before: only presses read at or before their stop; then the counts by kind, within and
# beyond 200 mm of the nadir, and how many lie within their t_err.
import argparse
import os
import re
import subprocess
import tempfile

import eval_beyond as eb

LINE = re.compile(r"press of card (\d+) by ([AB]): rest (\d+) stop (\d+) .*?(race_landing|landing) (-?\d+) "
                  r"force (\d+) -> (\d+) \+- (\d+)")


def main():
    ap = argparse.ArgumentParser(description="presses: the landing read and the contact against the hand's stop")
    ap.add_argument("kr", help="karuta-ref with debug lines")
    ap.add_argument("name", help="the analyze outputs' folder name")
    ap.add_argument("dirs", nargs="+", help="render folders")
    ap.add_argument("--within", type=float, default=1e9, help="only cards this near the nadir (mm)")
    ap.add_argument("--before", action="store_true", help="only presses read at or before their stop")
    a = ap.parse_args()
    counts = {}  # (kind, near) -> [n, within t_err]
    with tempfile.TemporaryDirectory() as tmp:
        for sd in a.dirs:
            sd = sd.rstrip("/")
            o = sd + "/" + a.name
            if not os.path.exists(o + "/events.jsonl"):
                continue
            pushes, places, nadir = eb.scenario(sd)
            want = []
            for t, d in eb.pairs(sd, o):
                if d is None or eb.is_sweep(pushes, t):
                    continue
                r = eb.nadir_mm(places, nadir, t)
                if r is not None and r <= a.within:
                    want.append((t, d, r))
            if not want:
                continue
            err = subprocess.run([a.kr, "analyze", sd + "/video.mp4", "--match", sd + "/match.jsonl", "--out",
                                  tmp + "/out"], env=dict(os.environ, KR_DEBUG="1"), capture_output=True,
                                 text=True).stderr
            lines = [m.groups() for m in LINE.finditer(err)]
            for t, d, r in want:
                got = [g for g in lines if int(g[0]) == t["card"] and g[1] == t["player"] and
                       abs(int(g[7]) - d["t_us"]) < 2000]
                if not got:
                    print("  %-44s %s card %3d, %3.0f mm from the nadir: no debug line" % (sd, t["player"], t["card"], r))
                    continue
                g = got[-1]
                stop, kind, land = int(g[3]), g[4], int(g[7])
                if a.before and land > stop:
                    continue
                e, te = (d["t_us"] - t["t_us"]) / 1e3, d["t_err_us"] / 1e3
                c = counts.setdefault((kind, r < 200), [0, 0])
                c[0] += 1
                c[1] += abs(e) <= te
                print("  %-44s %s card %3d, %3.0f mm from the nadir, %-12s read %+6.1f ms from the stop, contact "
                      "%+6.1f; %+6.1f ms on %5.1f" % (sd, t["player"], t["card"], r, kind, (land - stop) / 1e3,
                                                      (t["t_us"] - stop) / 1e3, e, te))
    if a.before:
        for (kind, near), (n, w) in sorted(counts.items()):
            print("%-12s %s 200 mm of the nadir: %d read at or before the stop, %d within their t_err"
                  % (kind, "within" if near else "beyond", n, w))


if __name__ == "__main__":
    main()
