#!/usr/bin/env python3
# eval_review_causes.py - two of the review reasons measured against what caused them, over the
# render folders.
# SPDX-License-Identifier: MIT
#   tools/eval_review_causes.py NAME --near-scale S[,S...]
#   tools/eval_review_causes.py NAME --gaps
# Reads each scenario folder out/eval*/FPS/SCENARIO/ holding NAME/rulings.jsonl and
# NAME/events.jsonl (analyze's outputs, tools/eval_events.sh --out-name NAME) and, in its FPS
# folder, NAME.jsonl (the per-scenario results, whose flag_no_need_details tell a ruling
# flagged without need from a wrong one).
# --near-scale: the readings flagged "near-simultaneous touches" (rulings.md: both players'
# first touches on the read card within 2 sqrt(e1^2 + e2^2)), and for each scale S how many
# would stay flagged with every t_err times S, and how many of those unflagged are wrong or
# flagged with need (the results' flag_no_need_details do not list them).
# --gaps: each decisive observation (a ruling's evidence) of the readings flagged "frames
# missing around the decisive moment": its time and t_err, the nearest gap in the video's
# presentation times (longer than 1.5 periods, the median period; read with ffprobe), how far
# from it in periods (0: inside it), its error against the truth's same record, and whether
# the ruling was flagged without need.
import argparse
import glob
import math
import os
import re
import subprocess

from eval_touch_diff import load


def folders(name):
    for sd in sorted(glob.glob("out/eval*/*/*/")):
        sd = sd.rstrip("/")
        if os.path.exists(os.path.join(sd, name, "rulings.jsonl")):
            yield sd


def no_need(sd, name):
    """the seqs of sd's rulings flagged without need (right rulings)"""
    res = os.path.join(os.path.dirname(sd), name + ".jsonl")
    seqs = set()
    if os.path.exists(res):
        for r in load(res):
            if r.get("scenario") == os.path.basename(sd):
                for d in r.get("flag_no_need_details", []):
                    m = re.match(r"seq (\d+)", d)
                    if m:
                        seqs.add(int(m.group(1)))
    return seqs


def near_scale(name, scales):
    cases = []  # (folder, seq, gap us, e1^2 + e2^2, wrong)
    for sd in folders(name):
        ev = load(os.path.join(sd, name, "events.jsonl"))
        right = no_need(sd, name)
        for r in load(os.path.join(sd, name, "rulings.jsonl")):
            if "near-simultaneous touches" not in r.get("review", []):
                continue
            first = {}
            for t in sorted((e for e in ev if e["type"] == "touch" and e.get("card") == r["card"]),
                            key=lambda e: e["t_us"]):
                first.setdefault(t["player"], t)
            if len(first) < 2:
                continue
            a, b = first["A"], first["B"]
            cases.append((sd, r["seq"], abs(a["t_us"] - b["t_us"]),
                          a.get("t_err_us", 0) ** 2 + b.get("t_err_us", 0) ** 2,
                          len(r["review"]) == 1, r["seq"] not in right))
    print("readings flagged near-simultaneous: %d (%d with no other reason)"
          % (len(cases), sum(c[4] for c in cases)))
    for s in scales:
        gone = [c for c in cases if c[4] and c[2] ** 2 > 4 * s * s * c[3]]
        print("  t_err x %.2f: %d would be flagged no more, %d of them wrong or flagged with need" % (
            s, len(gone), sum(c[5] for c in gone)))
        for c in gone:
            print("    %s seq %d: touches %.1f ms apart, flagged within %.1f" % (
                c[0], c[1], c[2] / 1000.0, 2 * s * math.sqrt(c[3]) / 1000.0))


def gaps(name):
    for sd in folders(name):
        rulings = [r for r in load(os.path.join(sd, name, "rulings.jsonl"))
                   if "frames missing around the decisive moment" in r.get("review", [])]
        if not rulings:
            continue
        out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                              "packet=pts_time", "-of", "csv=p=0", os.path.join(sd, "video.mp4")],
                             capture_output=True, text=True, check=True).stdout.split()
        pts = sorted(float(x) for x in out if x.strip() and x != "N/A")
        steps = sorted(b - a for a, b in zip(pts, pts[1:]))
        per = steps[len(steps) // 2]
        holes = [(a, b) for a, b in zip(pts, pts[1:]) if b - a > 1.5 * per]
        ev = {e["id"]: e for e in load(os.path.join(sd, name, "events.jsonl")) if "id" in e}
        truth = load(os.path.join(sd, "truth.jsonl"))
        right = no_need(sd, name)
        for r in rulings:
            for i in r.get("evidence", []):
                o = ev.get(i)
                if not o or "t_err_us" not in o:
                    continue
                t, e = o["t_us"] / 1e6, o["t_err_us"] / 1e6
                off = min((0.0 if lo <= t <= hi else (t - hi if t > hi else t - lo) for lo, hi in holes),
                          key=abs, default=None)
                same = [x for x in truth if x["type"] == o["type"] and x.get("card") == o.get("card")
                        and x.get("player") == o.get("player")]
                err = min((abs(x["t_us"] / 1e6 - t) for x in same), default=None)
                print("%-45s seq %2d %-12s t %9.3f s e %6.1f ms (%.2f periods)  nearest gap %s  error %s  %s" % (
                    sd, r["seq"], o["type"], t, e * 1e3, e / per,
                    "%+.2f periods" % (off / per) if off is not None else "none",
                    "%.1f ms" % (err * 1e3) if err is not None else "-",
                    "without need" if r["seq"] in right else "needed, or wrong"))


def main():
    ap = argparse.ArgumentParser(description="review reasons against their causes")
    ap.add_argument("name", help="the analyze outputs' folder name")
    ap.add_argument("--near-scale", help="S[,S...]: t_err scales for the near-simultaneous rule")
    ap.add_argument("--gaps", action="store_true", help="the decisive observations flagged for frames missing")
    a = ap.parse_args()
    if a.near_scale:
        near_scale(a.name, [float(x) for x in a.near_scale.split(",")])
    if a.gaps:
        gaps(a.name)


if __name__ == "__main__":
    main()
