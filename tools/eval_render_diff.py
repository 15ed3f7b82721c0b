#!/usr/bin/env python3
# eval_render_diff.py - the same scenarios rendered two ways (e.g. another keyframe interval,
# karuta-synth --gop), each analyzed: every true touch's signed error (detected - true, ms)
# and t_err in the two, those that differ by more than --moved ms listed, then totals.
# SPDX-License-Identifier: MIT
#   tools/eval_render_diff.py ROOT_A NAME_A ROOT_B NAME_B [--moved MS]
# ROOT_A and ROOT_B are render folders of tools/eval_events.sh at one rate (e.g. out/eval/60
# and out/eval-gop13/60), NAME_A and NAME_B the analyze outputs' folder names in each
# (ROOT/SCENARIO/NAME/events.jsonl). Only scenarios in both are compared. A true touch is
# paired with the same player's nearest detected touch of the same card within 100 ms
# (tools/eval_touch_diff.py); touches paired in one only are listed.
import argparse
import glob
import os
import statistics

from eval_touch_diff import detected_touches, load, pair


def main():
    ap = argparse.ArgumentParser(description="one set of scenarios rendered two ways, touch by touch")
    ap.add_argument("root_a")
    ap.add_argument("name_a")
    ap.add_argument("root_b")
    ap.add_argument("name_b")
    ap.add_argument("--moved", type=float, default=5.0, help="list touches whose errors differ by more (ms; 5)")
    a = ap.parse_args()
    errs = ([], [])
    for sd in sorted(glob.glob(os.path.join(a.root_a, "*", ""))):
        sc = os.path.basename(sd.rstrip("/"))
        out_a = os.path.join(sd, a.name_a, "events.jsonl")
        out_b = os.path.join(a.root_b, sc, a.name_b, "events.jsonl")
        if not (os.path.exists(out_a) and os.path.exists(out_b)):
            continue
        da, db = detected_touches(out_a), detected_touches(out_b)
        for t in (r for r in load(os.path.join(sd, "truth.jsonl")) if r["type"] == "touch"):
            pa, pb = pair(t, da), pair(t, db)
            if pa is None or pb is None:
                if (pa is None) != (pb is None):
                    print("  %-24s %-4s %s card %-3s paired in %s only" % (sc, t["id"], t["player"], t.get("card"),
                                                                           "A" if pb is None else "B"))
                continue
            ea, eb = (pa["t_us"] - t["t_us"]) / 1000.0, (pb["t_us"] - t["t_us"]) / 1000.0
            ta, tb = pa.get("t_err_us", 0) / 1000.0, pb.get("t_err_us", 0) / 1000.0
            errs[0].append((ea, ta))
            errs[1].append((eb, tb))
            if abs(ea - eb) > a.moved:
                print("  %-24s %-4s %s card %-3s %+7.1f / %4.1f  ->  %+7.1f / %4.1f" % (sc, t["id"], t["player"],
                                                                                    t.get("card"), ea, ta, eb, tb))
    for label, e in (("A", errs[0]), ("B", errs[1])):
        if not e:
            print("%s: no paired touches" % label)
            continue
        print("%s: %d paired, |error| median %.1f ms, signed median %+.1f, beyond t_err %d, beyond 2 t_err %d" % (
            label, len(e), statistics.median(abs(x) for x, _ in e), statistics.median(x for x, _ in e),
            sum(1 for x, te in e if abs(x) > te), sum(1 for x, te in e if abs(x) > 2 * te)))


if __name__ == "__main__":
    main()
