#!/usr/bin/env python3
# eval_beyond.py - every matched touch over all renders and sets, and those further from the
# truth than their own t_err (overconfident), worst first.
# SPDX-License-Identifier: MIT
#   tools/eval_beyond.py NAME[,NAME...] [--top N] [--twice] [--not SUBSTR[,SUBSTR...]] [--races] [--nadir]
#                        [--kinds] [--rates]
# Reads the renders of tools/eval_events.sh under out/eval*/FPS/SCENARIO/ (truth.jsonl beside
# the analyze outputs NAME/events.jsonl) and the sets of tools/eval_sealed.sh under
# out/sets-NAME/SET/SCENARIO/ (truth in out/eval/SET/SCENARIO/). Per scenario the first NAME
# found is taken (e.g. "j41,i40": the newest outputs where they exist). A true touch is paired
# with the same player's nearest detected touch of the same card within 100 ms, as
# tools/eval_touch_diff.py; touches with none (most are the tidying after play, which analyze
# does not report as touches) are counted apart. Prints the counts, then the touches beyond
# their t_err (with --twice: beyond twice it), by how many t_err, worst first (--top, default 20).
# --not: leave out the scenarios whose path holds SUBSTR (several: comma-separated; e.g. the
# looks only one build has run). --races: only the touches of a race (the other player's true
# touch on the same card within 100 ms), and first their errors per rate (a render's FPS
# folder; a set's name). --nadir: first the presses (a true touch with no push-out of its card
# within 300 ms, as tools/eval_signed.py) by their card's distance from the camera's nadir (the
# render's meta.json camera C_mm, x and y): within 100 mm, 100 to 200, beyond; per group the
# count, the signed median and how many lie beyond their t_err and 1.5 times it (a hand coming
# straight down under the camera moves its picture least). --kinds: first the sweeps and the
# presses apart (a sweep as above: its card pushed out within 300 ms): how many, how many lie
# within their t_err and within twice it, and |error| / t_err at the 68th and 95th percentiles
# (about 1 and 2 if t_err were one standard deviation, the reading of rulings.md's
# near-simultaneous rule). --rates: first the presses per frame rate (a render's FPS folder):
# how many, |error| in frame periods at the 68th percentile, how many lie beyond their t_err,
# and the largest |error| / t_err.
import argparse
import glob
import json
import os
import statistics

from eval_touch_diff import detected_touches, load, pair

SETS = ("varied", "varied8", "varied4", "sealed3", "sealed10")


def pairs(truth_dir, out_dir, races=False):
    """each true touch (with races, only those of a race: the other player's true touch on the
    same card within 100 ms) and its detected pair"""
    truth = [r for r in load(truth_dir + "/truth.jsonl") if r["type"] == "touch"]
    det = detected_touches(out_dir + "/events.jsonl")
    for t in truth:
        if races and not any(u["player"] != t["player"] and u.get("card") == t.get("card") and
                             abs(u["t_us"] - t["t_us"]) <= 100000 for u in truth):
            continue
        yield t, pair(t, det)


def scenario(truth_dir):
    """what --nadir and --kinds read of a scenario, once: its true push-outs, its layout's card
    places and the camera's nadir (meta.json camera C_mm; None without one)"""
    truth = load(truth_dir + "/truth.jsonl")
    try:
        c = json.load(open(truth_dir + "/meta.json"))["camera"]["C_mm"]
    except (OSError, ValueError, KeyError):
        c = None
    places = {k["card"]: (k["x_mm"], k["y_mm"]) for r in truth if r["type"] == "layout" for k in r["cards"]}
    return [r for r in truth if r["type"] == "push_out"], places, c


def is_sweep(pushes, t):
    """true touch t's card pushed out within 300 ms after it (tools/eval_signed.py's test)"""
    return any(r.get("card") == t.get("card") and 0 <= r["t_us"] - t["t_us"] < 300000 for r in pushes)


def nadir_mm(places, c, t):
    """the distance (mm) of true touch t's card from the nadir c, or None (no camera, or the card
    not in the layout)"""
    if c is None or t.get("card") not in places:
        return None
    x, y = places[t["card"]]
    return ((x - c[0]) ** 2 + (y - c[1]) ** 2) ** 0.5


def by_nadir(near):
    """the presses by their card's distance from the nadir: count, signed median (ms), beyond
    t_err and 1.5 t_err"""
    for lo, hi in ((0, 100), (100, 200), (200, 1e9)):
        v = [(e, te) for r, e, te in near if lo <= r < hi]
        if v:
            print("  presses %3d-%s mm from the nadir: %3d, signed median %+5.1f ms; beyond t_err %d, 1.5 t_err %d"
                  % (lo, "%-4d" % hi if hi < 1e9 else "    ", len(v), statistics.median(e for e, _ in v),
                     sum(abs(e) > te for e, te in v), sum(abs(e) > 1.5 * te for e, te in v)))


def by_rate(errs):
    """per rate (a render's FPS folder, or a set's name): the paired touches' signed median,
    |error| median and 95th percentile (ms), and how many lie beyond their t_err and twice it"""
    for rate in sorted(errs, key=lambda r: (not r.isdigit(), int(r) if r.isdigit() else 0, r)):
        v = errs[rate]
        a = sorted(abs(e) for e, _ in v)
        print("  %-8s %3d touches: signed median %+6.1f ms, |error| median %5.1f, p95 %5.1f; beyond t_err %d, "
              "twice %d" % (rate, len(v), statistics.median(e for e, _ in v), statistics.median(a),
                            a[min(len(a) - 1, int(0.95 * len(a)))], sum(abs(e) > te for e, te in v),
                            sum(abs(e) > 2 * te for e, te in v)))


def press_rates(errs):
    """--rates: per rate, the presses' |error| in periods (p68) and against their t_err"""
    for rate in sorted((r for r in errs if r.isdigit()), key=int):
        v = errs[rate]
        per = 1000.0 / int(rate)
        q = sorted(abs(e) / per for e, _ in v)
        print("  %4s fps %3d presses: |error| p68 %.2f periods; beyond t_err %d, |error| / t_err at most %.2f" % (
            rate, len(v), q[int(0.68 * (len(q) - 1))], sum(abs(e) > te for e, te in v), max(abs(e) / te for e, te in v)))


def main():
    ap = argparse.ArgumentParser(description="touches further from the truth than their own t_err")
    ap.add_argument("names", help="NAME[,NAME...]: the analyze outputs' folder names, first found taken")
    ap.add_argument("--top", type=int, default=20, help="how many to list (default 20)")
    ap.add_argument("--twice", action="store_true", help="beyond twice their t_err")
    ap.add_argument("--not", dest="skip", default="", help="SUBSTR[,SUBSTR...]: scenarios to leave out")
    ap.add_argument("--races", action="store_true",
                    help="the racing touches only, and their errors per rate before the list")
    ap.add_argument("--nadir", action="store_true",
                    help="first the presses by their card's distance from the camera's nadir")
    ap.add_argument("--rates", action="store_true",
                    help="first the presses per frame rate: |error| in periods, beyond their t_err")
    ap.add_argument("--kinds", action="store_true",
                    help="first the sweeps and the presses apart, within their t_err and twice it")
    a = ap.parse_args()
    top, twice = a.top, a.twice
    skip = [x for x in a.skip.split(",") if x]
    names = a.names.split(",")
    runs = []  # (truth dir, output dir)
    for sd in sorted(glob.glob("out/eval*/*/*/")):
        if os.path.basename(os.path.dirname(sd.rstrip("/"))) in SETS:
            continue
        for n in names:
            if os.path.exists(sd + n + "/events.jsonl"):
                runs.append((sd.rstrip("/"), sd + n))
                break
    for s in SETS:
        for sd in sorted(glob.glob("out/eval/%s/*/" % s)):
            for n in names:
                o = "out/sets-%s/%s/%s" % (n, s, os.path.basename(sd.rstrip("/")))
                if os.path.exists(o + "/events.jsonl"):
                    runs.append((sd.rstrip("/"), o))
                    break
    if skip:
        runs = [r for r in runs if not any(x in r[0] for x in skip)]
    matched = unpaired = 0
    beyond = []
    rates = {}
    near = []  # (distance from the nadir, signed error, t_err) of each paired press
    kinds = {"sweep": [], "press": []}  # (signed error, t_err) of each paired touch
    press_by_rate = {}  # rate: (signed error, t_err) of each paired press
    for truth_dir, out_dir in runs:
        pushes, places, nadir = scenario(truth_dir) if a.nadir or a.kinds or a.rates else ([], {}, None)
        for t, d in pairs(truth_dir, out_dir, a.races):
            if d is None:
                unpaired += 1
                continue
            matched += 1
            e = (d["t_us"] - t["t_us"]) / 1000.0
            te = max(d.get("t_err_us", 0), 1) / 1000.0
            rates.setdefault(os.path.basename(os.path.dirname(truth_dir)), []).append((e, te))
            sweep = is_sweep(pushes, t)
            kinds["sweep" if sweep else "press"].append((e, te))
            if not sweep:
                press_by_rate.setdefault(os.path.basename(os.path.dirname(truth_dir)), []).append((e, te))
            r = nadir_mm(places, nadir, t) if a.nadir and not sweep else None
            if r is not None:
                near.append((r, e, te))
            if abs(e) > (2 if twice else 1) * te:
                beyond.append((abs(e) / te, truth_dir, t["player"], t.get("card"), e, te))
    beyond.sort(reverse=True)
    print("scenarios %d, true touches paired %d (none within 100 ms: %d); beyond %s t_err: %d (%d early, %d late)"
          % (len(runs), matched, unpaired, "twice their" if twice else "their", len(beyond),
             sum(1 for b in beyond if b[4] < 0), sum(1 for b in beyond if b[4] >= 0)))
    if a.races:
        by_rate(rates)
    if a.rates:
        press_rates(press_by_rate)
    if a.kinds:
        for k, v in kinds.items():
            q = sorted(abs(e) / te for e, te in v)
            print("  %s %3d: within their t_err %d, within twice it %d; |error| / t_err p68 %.2f, p95 %.2f" % (
                k + "s" if k == "sweep" else k + "es", len(v), sum(abs(e) <= te for e, te in v),
                sum(abs(e) <= 2 * te for e, te in v), q[int(0.68 * (len(q) - 1))] if q else float("nan"),
                q[int(0.95 * (len(q) - 1))] if q else float("nan")))
    if a.nadir:
        by_nadir(near)
    for ratio, where, player, card, e, te in beyond[:top]:
        print("  %-50s %s card %3s %+7.1f ms on %5.1f (%.1fx)" % (where, player, card, e, te, ratio))


if __name__ == "__main__":
    main()
