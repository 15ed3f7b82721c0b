#!/usr/bin/env python3
# eval_events.py - compares analyze's events.jsonl / rulings.jsonl with a synthetic
# scenario's truth (truth.jsonl, truth_frames.jsonl, meta.json) and prints one JSON line
# of measures: touch precision / recall (sweeps, presses), push-out recall (and the matched
# push-outs' signed timing errors and how many lie within their t_err), timing error,
# rulings as the truth rules them, wrong rulings not flagged, flags without need.
# usage: eval_events.py SCENARIO_DIR ANALYZE_OUT_DIR --karuta-ref BIN
# SPDX-License-Identifier: MIT
import argparse
import json
import os
import subprocess
import sys

TOL_US = 60000  # a detected touch matches a true one of the same player and card within this


def load_jsonl(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit("%s:%d: %s" % (path, n, e))
    return out


def play_windows(log):
    """[kami_start, settle or shimo_start) per reading, from the true log."""
    wins, cur = [], None
    for r in log:
        t = r.get("type")
        if t == "kami_start":
            if cur is not None:
                wins.append((cur, r["t_us"]))
            cur = r["t_us"]
        elif t in ("settle", "shimo_start") and cur is not None:
            wins.append((cur, r["t_us"]))
            cur = None
    if cur is not None:
        wins.append((cur, 1 << 62))
    return wins


def in_windows(t, wins):
    return any(a <= t < b for a, b in wins)


def sweep_cards(frames):
    """(card, first time seen moving) from the per-frame truth."""
    first = {}
    for fr in frames:
        for c in fr.get("cards", []):
            if c.get("state") not in (None, "rest") and c["card"] not in first:
                first[c["card"]] = fr["t_us"]
    return first


def match(truth, det, key):
    """Greedy time-ordered matching of detections to truths with equal key."""
    pairs, used = [], set()
    cands = []
    for i, t in enumerate(truth):
        for j, d in enumerate(det):
            if key(t) == key(d) and abs(t["t_us"] - d["t_us"]) <= TOL_US:
                cands.append((abs(t["t_us"] - d["t_us"]), i, j))
    cands.sort()
    ti, dj = set(), set()
    for _, i, j in cands:
        if i in ti or j in dj:
            continue
        ti.add(i)
        dj.add(j)
        pairs.append((i, j))
    return pairs


def norm_ruling(r):
    take = r.get("take")
    return json.dumps({
        "card": r.get("card"), "location": r.get("location"), "established": r.get("established"),
        "take": None if not take else (take.get("player"), take.get("how")),
        "faults": sorted((f.get("player"), tuple(sorted(f.get("territories", [])))) for f in r.get("faults", [])),
        "double_fault": r.get("double_fault"),
        "voided": sorted((v.get("player"), v.get("reason")) for v in r.get("voided", [])),
        "owed": r.get("owed"), "send": r.get("send"), "counts": r.get("counts")}, sort_keys=True)


def pct(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--karuta-ref", default="build/src/app/karuta-ref")
    a = ap.parse_args()
    truth = load_jsonl(os.path.join(a.scenario_dir, "truth.jsonl"))
    meta = json.load(open(os.path.join(a.scenario_dir, "meta.json")))
    fps = meta["fps"][0] / meta["fps"][1]
    frame_us = 1e6 / fps
    fpath = os.path.join(a.scenario_dir, "truth_frames.jsonl")
    frames = load_jsonl(fpath) if os.path.exists(fpath) else []
    events = load_jsonl(os.path.join(a.out_dir, "events.jsonl"))
    rulings = [r for r in load_jsonl(os.path.join(a.out_dir, "rulings.jsonl")) if r.get("type") == "ruling"]

    wins = play_windows(truth)
    moved = sweep_cards(frames)
    t_touch = [r for r in truth if r.get("type") == "touch" and in_windows(r["t_us"], wins)]
    d_touch = [r for r in events if r.get("type") == "touch" and r.get("id", "").startswith("v")]
    key = lambda r: (r.get("player"), r.get("card"))
    pairs = match(t_touch, d_touch, key)
    kinds = {}
    for i, t in enumerate(t_touch):
        m = moved.get(t.get("card"))
        kinds[i] = "sweep" if m is not None and 0 <= m - t["t_us"] <= 100000 else "press"
    matched_t = {i for i, _ in pairs}
    n_sweep = sum(1 for k in kinds.values() if k == "sweep")
    n_press = len(t_touch) - n_sweep
    hit_sweep = sum(1 for i in matched_t if kinds[i] == "sweep")
    hit_press = len(matched_t) - hit_sweep
    errs = [abs(d_touch[j]["t_us"] - t_touch[i]["t_us"]) for i, j in pairs]
    # t_err honesty: matched touches whose error is within 1 and 2 of the t_err they report
    terr = [d_touch[j].get("t_err_us", 0) for _, j in pairs]
    within_terr = [sum(1 for e, s in zip(errs, terr) if e <= k * s) for k in (1, 2)]
    # the hand a matched touch names, against the truth's (when both name one)
    named = [(t_touch[i].get("hand"), d_touch[j].get("hand")) for i, j in pairs]
    named = [(a, b) for a, b in named if a and b]
    hand_same = [sum(1 for a, b in named if a == b), len(named)]
    t_push = [r for r in truth if r.get("type") == "push_out" and in_windows(r["t_us"], wins)]
    d_push = [r for r in events if r.get("type") == "push_out" and r.get("id", "").startswith("v")]
    ppairs = match(t_push, d_push, lambda r: r.get("card"))
    # push-out timing (signed, detected - true) and its t_err honesty
    perr = [d_push[j]["t_us"] - t_push[i]["t_us"] for i, j in ppairs]
    pterr = [d_push[j].get("t_err_us", 0) for _, j in ppairs]
    push_within = [sum(1 for e, s in zip(perr, pterr) if abs(e) <= k * s) for k in (1, 2)]

    # rulings of the truth, from the same engine
    tr = subprocess.run([a.karuta_ref, "rule", os.path.join(a.scenario_dir, "truth.jsonl")],
                        capture_output=True, text=True)
    if tr.returncode != 0:
        sys.exit("rule on truth failed: " + tr.stderr.strip())
    t_rul = {r["seq"]: r for r in (json.loads(l) for l in tr.stdout.splitlines() if l.strip())
             if r.get("type") == "ruling"}
    same = wrong_unflagged = wrong_carried = flag_no_need = flagged = 0
    details = []
    flag_details = []  # rulings flagged without need, with their review reasons
    prev_r = prev_t = None
    earlier_flagged_wrong = False
    for r in rulings:
        t = t_rul.get(r["seq"])
        ok = t is not None and norm_ruling(t) == norm_ruling(r)
        same += ok
        flagged += bool(r.get("needs_review"))
        if not ok and not r.get("needs_review"):
            wrong_unflagged += 1
            # carried: only the counts differ, they change as the truth's do, and an earlier
            # wrong ruling was flagged (the judge's correction there moves these counts too)
            if (t is not None and prev_r is not None and prev_t is not None and earlier_flagged_wrong and
                    norm_ruling(dict(r, counts=None)) == norm_ruling(dict(t, counts=None)) and
                    all(r["counts"][p] - prev_r["counts"][p] == t["counts"][p] - prev_t["counts"][p]
                        for p in ("A", "B"))):
                wrong_carried += 1
                details.append("seq %d: counts carried from an earlier flagged ruling" % r["seq"])
            else:
                details.append("seq %d: got %s want %s" % (r["seq"], norm_ruling(r), norm_ruling(t) if t else None))
        if not ok and r.get("needs_review"):
            earlier_flagged_wrong = True
        prev_r, prev_t = r, t
        if ok and r.get("needs_review") and not (t or {}).get("needs_review"):
            flag_no_need += 1
            flag_details.append("seq %d: %s" % (r["seq"], "; ".join(r.get("review", []))))
    # settle: detected minus true, per reading (the first settle after each kami_start)
    def settles(log):
        out, cur = {}, None
        for r in log:
            if r.get("type") == "kami_start":
                cur = r.get("seq")
            elif r.get("type") == "settle" and cur is not None and cur not in out:
                out[cur] = r["t_us"]
        return out
    t_set, d_set = settles(truth), settles(events)
    settle_ms = [(d_set[q] - t_set[q]) / 1000.0 for q in t_set if q in d_set]
    settle_missing = sum(1 for q in t_set if q not in d_set)
    res = {
        "scenario": meta.get("scenario"), "holdout": meta.get("holdout", False), "fps": fps,
        "touch_true": len(t_touch), "touch_detected": len(d_touch), "touch_matched": len(pairs),
        "precision": len(pairs) / len(d_touch) if d_touch else None,
        "recall_sweep": hit_sweep / n_sweep if n_sweep else None, "n_sweep": n_sweep,
        "recall_press": hit_press / n_press if n_press else None, "n_press": n_press,
        "push_true": len(t_push), "push_matched": len(ppairs),
        "push_err_ms": sorted(e / 1000.0 for e in perr), "push_within_terr": push_within,
        "err_ms": sorted(e / 1000.0 for e in errs),
        "err_sweep_ms": sorted(e / 1000.0 for e, (i, _) in zip(errs, pairs) if kinds[i] == "sweep"),
        "err_press_ms": sorted(e / 1000.0 for e, (i, _) in zip(errs, pairs) if kinds[i] == "press"),
        "median_ms": pct(errs, 0.5) / 1000.0 if errs else None,
        "p95_ms": pct(errs, 0.95) / 1000.0 if errs else None,
        "worst_ms": max(errs) / 1000.0 if errs else None,
        "frame_ms": frame_us / 1000.0,
        "readings": len(t_rul), "rulings": len(rulings), "same": same,
        "within_terr": within_terr, "hand_same": hand_same,
        "wrong_unflagged": wrong_unflagged, "wrong_carried": wrong_carried, "flag_no_need": flag_no_need,
        "flagged": flagged,
        "wrong_details": details, "flag_no_need_details": flag_details,
        "settle_ms": settle_ms, "settle_missing": settle_missing,
    }
    print(json.dumps(res))


if __name__ == "__main__":
    main()
