#!/usr/bin/env python3
# landing_trace.py - a single press's tip change around its true contact, frame by frame,
# and landing() of src/event/kr_event.c replayed on it with other constants.
# SPDX-License-Identifier: MIT
#   tools/landing_trace.py WORK FPS [NAME...] [--karuta-ref BIN] [--span-ms A,B] [--summary]
#                          [--model V1,V2,...]
# WORK is an evaluation work directory of tools/eval_events.sh (WORK/FPS/NAME with the
# scenario's video.mp4, match.jsonl, truth.jsonl and truth_frames.jsonl; FPS may be any
# subdirectory, e.g. varied). For each scenario (held-out ones, h_*, are left out) runs
# `karuta-ref analyze --trace` once into WORK/FPS/NAME/ltrace/ (kept: delete it to run again
# with another build; BIN default $KR_BUILD/src/app/karuta-ref). For every true press (a
# touch with no push_out of its card within 300 ms, as tools/eval_signed.py) prints the
# detected touch's signed error and t_err (same player and card, nearest within 60 ms) and,
# for each frame from A to B ms around the contact (default -100,40), the time from the
# contact (ms), the true tip height (mm), tip_change and tip_change_own, and the other hand's
# tip_change_own (-1: not present; a race's leak is read against it). A frame's change is
# over the interval that ends at it.
# --summary: one line per press: the signed error, the last frame whose true height is above
# 0.5 mm and the frames after the largest change before the contact, as shares of it.
# --model: landing() (rule TIP_RULE_ALL) replayed on the trace with the variants given (see
# params(); "cur" is kr_event.c's constants), for the presses it reproduces (cur within 1 ms
# of the detected touch: races, timed from the own change, and modelled descents are left
# out). Prints per press the last changing frame's period P, share, its change and the one
# before (E), the first quiet frame's change and where the contact was (periods after the
# start of the last changing interval), then each variant's signed error (ms); and per
# variant the median signed and absolute error and the 95th percentile (ms). The rest's
# start is approximated from the trace (simulate()).
import glob
import json
import os
import statistics
import subprocess
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def run_trace(d, binary):
    out = os.path.join(d, "ltrace")
    tr = os.path.join(out, "trace.jsonl")
    if os.path.exists(tr) and os.path.exists(os.path.join(out, "events.jsonl")):
        return out
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "analyze.err"), "w") as err:
        subprocess.run([binary, "analyze", os.path.join(d, "video.mp4"), "--match", os.path.join(d, "match.jsonl"),
                        "--out", out, "--trace", tr], stderr=err, stdout=subprocess.DEVNULL, check=False)
    return out


QUIET = 1000.0


def params(v):
    """a variant: "cur" (kr_event.c as it is) or key=value pairs joined by ':' changing
    tail (ms), share, span (ms), quiet; brake=1: the share read as a braking descent's
    (x = r + sqrt(r^2 + r)); tailp: a tail of this many periods added"""
    p = {"tail": 11.0, "share": 0.1, "span": 50.0, "quiet": QUIET, "brake": 0.0, "tailp": 0.0, "qper": 0.0, "resid": 0.0}
    if v != "cur":
        for kv in v.split(":"):
            k, x = kv.split("=")
            p[k] = float(x)
    return p


def still(chg, ts, i, p, per):
    """tip_still with rule TIP_RULE_ALL (chg, ts newest first); p the variant's params"""
    e = chg[i]
    q = p["quiet"] * (min(1.0, per / 16667.0) if p["qper"] else 1.0)
    if e <= q:
        return True
    prev = 0
    k = i + 1
    while k < len(chg) and (k <= i + 2 or ts[i] - ts[k] <= p["span"] * 1000):
        prev = max(prev, chg[k])
        k += 1
    if e <= p["share"] * prev:
        return True
    if p["resid"] and i > 0 and chg[i - 1] <= q and e <= p["resid"] * prev:
        return True
    return i + 1 < len(chg) and chg[i + 1] <= q and e <= 2 * p["share"] * prev


def simulate(hand, tc, v, info=None):
    """landing() of kr_event.c on one hand's trace (oldest first) for the press whose true
    contact is tc; the start is put at the last frame before tc whose leading point was more
    than 4 mm from where it lies 40 ms after tc (the rest's start, roughly). v: variant name"""
    if not hand:
        return None
    p = params(v)
    rest = [h for h in hand if h[0] <= tc + 40000]
    if not rest:
        return None
    lx, ly = rest[-1][3]
    start = hand[0][0]
    for h in hand:
        if h[0] <= tc and ((h[3][0] - lx) ** 2 + (h[3][1] - ly) ** 2) ** 0.5 > 4:
            start = h[0]
    ts = [h[0] for h in reversed(hand)]
    chg = [h[1] for h in reversed(hand)]
    n = sum(1 for x in ts if x > start)
    j = -1
    for k in range(n - 1, -1, -1):
        i = k
        while i >= 0:
            per = ts[i] - ts[i + 1] if i + 1 < len(ts) else 16667
            if not still(chg, ts, i, p, per):
                break
            if k - i >= 1 and ts[i] - ts[k] >= 30000:
                j = k
                break
            i -= 1
        if j >= 0:
            break
    if j < 0:
        return None
    if j == n - 1:
        return None
    L = j + 1
    share = 1.0
    if L + 1 < len(ts) and chg[L + 1] > 0:
        share = min(1.0, chg[L] / chg[L + 1])
    per = ts[L] - ts[L + 1]
    if info is not None:
        info.update(per=per, share=share, eL=chg[L], eL1=chg[L + 1], eq=chg[j], x=(tc - ts[L + 1]) / per)
    x = min(1.0, share + (share * share + share) ** 0.5) if p["brake"] else share
    tcst = ts[L] - per + x * per + p["tail"] * 1000 + p["tailp"] * per
    return min(tcst, ts[j])


def main():
    args = sys.argv[1:]
    binary = os.path.join(os.environ.get("KR_BUILD", "build"), "src/app/karuta-ref")
    span = (-100.0, 40.0)
    summary = False
    model = []
    sims = {}
    pos = []
    i = 0
    while i < len(args):
        if args[i] == "--karuta-ref":
            binary = args[i + 1]
            i += 2
        elif args[i] == "--span-ms":
            a, b = args[i + 1].split(",")
            span = (float(a), float(b))
            i += 2
        elif args[i] == "--model":
            model = args[i + 1].split(",")
            i += 2
        elif args[i] == "--summary":
            summary = True
            i += 1
        else:
            pos.append(args[i])
            i += 1
    if len(pos) < 2:
        sys.exit("usage: tools/landing_trace.py WORK FPS [NAME...] [--karuta-ref BIN] [--span-ms A,B] [--summary] "
                 "[--model V1,V2,...]")
    work, fps, names = pos[0], pos[1], pos[2:]
    errs = []
    for d in sorted(glob.glob("%s/%s/*/" % (work, fps))):
        d = d.rstrip("/")
        name = os.path.basename(d)
        if name.startswith("h_") or (names and name not in names) or not os.path.exists(d + "/video.mp4"):
            continue
        out = run_trace(d, binary)
        try:
            truth = load(d + "/truth.jsonl")
            tframes = load(d + "/truth_frames.jsonl")
            trace = {r["t_us"]: r for r in load(out + "/trace.jsonl")}
            ev = load(out + "/events.jsonl")
        except (OSError, ValueError):
            print(name, "no trace")
            continue
        det = [r for r in ev if r["type"] == "touch" and "t_err_us" in r]
        pushes = [r for r in truth if r["type"] == "push_out"]
        for t in (r for r in truth if r["type"] == "touch"):
            if any(p.get("card") == t.get("card") and 0 <= p["t_us"] - t["t_us"] < 300000 for p in pushes):
                continue
            pi = 0 if t["player"] == "A" else 1
            c = [e for e in det if e["player"] == t["player"] and e.get("card") == t.get("card")]
            e = min(c, key=lambda e: abs(e["t_us"] - t["t_us"])) if c else None
            if e and abs(e["t_us"] - t["t_us"]) > 60000:
                e = None
            head = "%s card %d %s: %s" % (name, t["card"], t["player"],
                                          "%+.1f ms on %.1f" % ((e["t_us"] - t["t_us"]) / 1000, e["t_err_us"] / 1000)
                                          if e else "not matched")
            rows = []
            for f in tframes:
                dt = (f["t_us"] - t["t_us"]) / 1000
                if dt < span[0] - 1e-6 or dt > span[1] + 1e-6:
                    continue
                h = f["hands"][pi]["h_mm"] if pi < len(f["hands"]) else float("nan")
                r = trace.get(f["t_us"])
                hh = r["hands"][pi] if r else None
                chg = hh.get("tip_change", -1) if hh and hh.get("present") else -1
                own = hh.get("tip_change_own", -1) if hh and hh.get("present") else -1
                ho = r["hands"][1 - pi] if r and len(r["hands"]) > 1 else None
                oth = ho.get("tip_change_own", -1) if ho and ho.get("present") else -1
                rows.append((dt, h, chg, own, oth))
            if model:
                hand = []
                for tt in sorted(trace):
                    hh = trace[tt]["hands"][pi]
                    if hh.get("present") and t["t_us"] - 400000 <= tt <= t["t_us"] + 200000:
                        hand.append((tt, hh["tip_change"], hh["tip_change_own"], hh["lead"]))
                cur = simulate(hand, t["t_us"], "cur")
                if e is None or cur is None or abs(cur - e["t_us"]) > 1000:
                    continue  # not timed by landing (a race, the modelled descent) or not reproduced
                line = head
                inf = {}
                simulate(hand, t["t_us"], "cur", inf)
                line += " [P %.1f share %.2f E %.0f %.0f quiet %.0f; contact at %.2f P]" % (
                    inf["per"] / 1000, inf["share"], inf["eL1"], inf["eL"], inf["eq"], inf["x"])
                for v in model:
                    est = simulate(hand, t["t_us"], v)
                    sims.setdefault(v, []).append((est - t["t_us"]) / 1000)
                    line += "; %s %+.1f" % (v, (est - t["t_us"]) / 1000)
                print(line)
            elif summary:
                if e:
                    errs.append((e["t_us"] - t["t_us"]) / 1000)
                end = max((r[0] for r in rows if r[0] <= 0 and r[1] > 0.5), default=float("nan"))
                before = [r for r in rows if r[0] <= 0]
                peak = max((r[2] for r in before), default=0)
                k = max((j for j, r in enumerate(rows) if r[0] <= 0 and r[2] == peak), default=0)
                tail = " ".join("%+.1f:%.2f" % (r[0], r[2] / peak if peak > 0 else 0) for r in rows[k + 1:])
                print("%s; descent ends %+.1f ms; peak %.0f; after it %s" % (head, end, peak, tail))
            else:
                print(head)
                for r in rows:
                    print("  %+7.1f ms  h %6.2f  chg %7.0f  own %7.0f  other's own %7.0f" % r)
    for v, x in sims.items():
        x.sort()
        a = sorted(abs(y) for y in x)
        print("%s: presses %d, signed median %+.1f ms, |error| median %.1f, p95 %.1f ms" %
              (v, len(x), statistics.median(x), statistics.median(a), a[min(len(a) - 1, int(0.95 * len(a)))]))
    if summary and errs:
        errs.sort()
        print("presses %d, signed median %+.1f ms, |error| median %.1f ms" %
              (len(errs), statistics.median(errs), statistics.median(abs(x) for x in errs)))


if __name__ == "__main__":
    main()
