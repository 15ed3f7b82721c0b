#!/usr/bin/env python3
# eval_run_diff.py - what changed between two analyze runs over the same renders: touches and
# push-outs that moved or came and went, and rulings ruled or flagged otherwise.
# SPDX-License-Identifier: MIT
#   tools/eval_run_diff.py OUT_A OUT_B DIR...
# Each DIR is a scenario's render (truth.jsonl). OUT_A and OUT_B name the two runs' analyze
# outputs: a bare name is a folder inside each DIR (tools/eval_events.sh --out-name); a path
# with a slash is a folder holding one output per scenario, DIR's own name inside it
# (tools/eval_sealed.sh --out), e.g. `tools/eval_run_diff.py out/a-varied out/b-varied
# out/eval/varied/*/`. Observations are paired by type, player and card, nearest in time
# within 150 ms; a pair more than 0.5 ms apart has moved; a pair whose t_err or confidence
# differs is printed too (confidence alone: counted apart). Prints one line per change with the
# truth's time where there is one, then the totals. On a sealed set, read only the totals
# (`| tail -1`): the lines show the footage's details.
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return None


def out_dir(d, name):
    if "/" in name:
        return os.path.join(os.path.normpath(name), os.path.basename(os.path.normpath(d)))
    return os.path.join(d, name)


def obs(events, kind):
    return [e for e in events if e.get("type") == kind and str(e.get("id", "")).startswith("v")]


def key(e):
    return (e.get("player"), e.get("card"))


def pair(a, bs):
    c = [b for b in bs if key(b) == key(a) and abs(b["t_us"] - a["t_us"]) < 150000]
    return min(c, key=lambda b: abs(b["t_us"] - a["t_us"])) if c else None


def truth_of(e, truth, kind):
    c = [t for t in truth if t.get("type") == kind and key(t) == key(e)]
    return min(c, key=lambda t: abs(t["t_us"] - e["t_us"])) if c else None


def ruling_view(r):
    take = r.get("take") or {}
    return (take.get("player"), take.get("how"),
            tuple(sorted((f.get("player"), tuple(f.get("territories", []))) for f in r.get("faults", []))),
            bool(r.get("needs_review")), json.dumps(r.get("counts"), sort_keys=True))


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: tools/eval_run_diff.py OUT_A OUT_B DIR...")
    name_a, name_b = sys.argv[1], sys.argv[2]
    totals = {"moved": 0, "gone": 0, "new": 0, "rulings": 0, "pairs": 0, "confidence": 0}
    for d in sys.argv[3:]:
        truth = load(os.path.join(d, "truth.jsonl")) or []
        ev_a = load(os.path.join(out_dir(d, name_a), "events.jsonl"))
        ev_b = load(os.path.join(out_dir(d, name_b), "events.jsonl"))
        if ev_a is None or ev_b is None:
            continue
        name = os.path.basename(os.path.normpath(d))
        for kind in ("touch", "push_out"):
            oa, ob = obs(ev_a, kind), obs(ev_b, kind)
            for a in oa:
                b = pair(a, ob)
                t = truth_of(a, truth, kind)
                tt = " (true %+.1f -> %s)" % ((a["t_us"] - t["t_us"]) / 1000,
                                              "%+.1f" % ((b["t_us"] - t["t_us"]) / 1000) if b else "-") if t else ""
                if b is None:
                    totals["gone"] += 1
                    print("%s %s %s card %s at %.3f s: only in %s%s" % (name, kind, a.get("player"), a.get("card"),
                                                                        a["t_us"] / 1e6, name_a, tt))
                    continue
                totals["pairs"] += 1
                moved = abs(b["t_us"] - a["t_us"]) > 500
                if moved or b.get("t_err_us") != a.get("t_err_us") or b.get("confidence") != a.get("confidence"):
                    totals["moved"] += moved
                    totals["confidence"] += not moved and b.get("confidence") != a.get("confidence")
                    print("%s %s %s card %s at %.3f s: moved %+.1f ms, t_err %.1f -> %.1f, confidence %s -> %s%s" % (
                        name, kind, a.get("player"), a.get("card"), a["t_us"] / 1e6, (b["t_us"] - a["t_us"]) / 1000,
                        a.get("t_err_us", 0) / 1000, b.get("t_err_us", 0) / 1000, a.get("confidence"),
                        b.get("confidence"), tt))
            for b in ob:
                if pair(b, oa) is None:
                    totals["new"] += 1
                    print("%s %s %s card %s at %.3f s: only in %s" % (name, kind, b.get("player"), b.get("card"),
                                                                      b["t_us"] / 1e6, name_b))
        ra = {r["seq"]: r for r in load(os.path.join(out_dir(d, name_a), "rulings.jsonl")) or [] if "seq" in r}
        rb = {r["seq"]: r for r in load(os.path.join(out_dir(d, name_b), "rulings.jsonl")) or [] if "seq" in r}
        for seq in sorted(set(ra) | set(rb)):
            va = ruling_view(ra[seq]) if seq in ra else None
            vb = ruling_view(rb[seq]) if seq in rb else None
            if va != vb:
                totals["rulings"] += 1
                print("%s ruling seq %d: %s -> %s" % (name, seq, va, vb))
    print("paired observations %d: moved %d, only in %s %d, only in %s %d; rulings changed %d; "
          "confidence alone changed %d" % (totals["pairs"], totals["moved"], name_a, totals["gone"], name_b,
                                           totals["new"], totals["rulings"], totals["confidence"]))


if __name__ == "__main__":
    main()
