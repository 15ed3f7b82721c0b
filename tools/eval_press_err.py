#!/usr/bin/env python3
# eval_press_err.py - every press decision of analyze beside the true touch: how it was timed
# (landing alone, race_landing measured or modelled), the hand's fitted stop, the time and the
# t_err it claims, and its signed error; then, per way of timing, how many lie further from
# the truth than 1 and 2 t_err. Answers "does a press's claimed error hold?", which decides
# whether a near-simultaneous race is flagged.
# SPDX-License-Identifier: MIT
#   tools/eval_press_err.py SCENARIO_DIR DEBUG_LOG [SCENARIO_DIR DEBUG_LOG ...] [--all] [--near] [--rest] [--quiet]
#                           [--shadow-off]
# DEBUG_LOG: the stderr of `KR_DEBUG=1 karuta-ref analyze SCENARIO_DIR/video.mp4 --out OUT ...` (its
# "press of card" lines), kept in OUT: only decisions that became a touch of OUT/events.jsonl
# are counted (not those outside play or dropped as weak). A decision is paired with the same
# player's nearest true touch of the same card within 500 ms (a reading's play; a modelled
# descent put on a stop fitted late can be 300 ms off, and must count, not fall out of the
# table), and those with none are counted apart. --all prints every pair (default: only
# those beyond 2 t_err).
# --near: instead, the share of hand pixels still near the leading point when each press was
# decided ("hand by the point N of M", the NEAR_LEFT_SHARE rule of src/event/kr_event.c), for
# every press decision (also those ruled no press): its lowest among decisions with a true
# touch of the same player and card within 150 ms, and the shares of those with none.
# --rest: instead, for the presses timed by their landing alone ("landing of card" lines:
# the last changing frame) within a reading's first second of play (their true touch at most
# 1 s after its kimariji: not the pick-ups of sends and tidying), the time from the rest's
# start to the last changing frame, and the signed error; then the least, median and most
# of both. Tells a hand lowered onto the card after it stopped over it (the renders' slowing
# landing) from one striking it (varied8), which LANDING_STRIKE_US of src/event/kr_event.c
# reads.
# --quiet: instead, for the presses timed by their landing alone, the first frame the landing
# read as quiet ("then quiet at T (C)") where its change C was above TIP_QUIET (1000: taken
# for quiet by the settle and residue shares of tip_still in src/event/kr_event.c), and that
# frame's time from the true contact (ms): at or after it, the change was the hand settling
# on the card; before it, the last of a descent the picture barely showed. Then the counts.
# --shadow-off: instead, the press decisions the shadow cue drops as no hand on the mat
# (shadow_off in src/event/kr_event.c: a shadow seen that never met the leading point, the
# other hand's box over SHADOW_ALONE_MM off, and the point jumped or the hand drew back),
# with and without a true touch of the same player and card within 500 ms; those with one
# are listed.
import json
import os
import re
import sys

LINE = re.compile(r"press of card (\d+) by ([AB]): rest (-?\d+) stop (-?\d+) \((?:first look -?\d+, )?jumped \d\) "
                  r"(\w+) (-?\d+) force \d -> (-?\d+) \+- (\d+);")
LANDED = re.compile(r"landing of card (\d+) by ([AB]): last change at (\d+)")
PLAY_US = 1000000
PAIR_US = 500000
QUIET = re.compile(r"landing of card (\d+) by ([AB]): .*then quiet at (\d+) \((\d+)\)")
TIP_QUIET = 1000
NEAR = re.compile(r"press of card (\d+) by ([AB]):.* -> (-?\d+) \+-.*hand by the point (\d+) of (\d+)")
NEAR_PAIR_US = 150000
KINDS = {("landing", True): "landing", ("landing", False): "model",
         ("race_landing", True): "race_measured", ("race_landing", False): "race_model"}


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def decisions(log):
    """The press decisions of a debug log that became touches of the events.jsonl beside it."""
    ev = os.path.join(os.path.dirname(log) or ".", "events.jsonl")
    touches = [r for r in load(ev) if r["type"] == "touch"] if os.path.exists(ev) else None
    out = []
    last = {}  # (card, player): the last changing frame of the landing read just before
    with open(log, errors="replace") as f:
        for line in f:
            m = LANDED.search(line)
            if m:
                last[(int(m.group(1)), m.group(2))] = int(m.group(3))
                continue
            m = LINE.search(line)
            if not m:
                continue
            card, pl, rest, stop, how, measured, t, err = m.groups()
            d = {"card": int(card), "player": pl, "rest": int(rest), "stop": int(stop), "t": int(t),
                 "err": int(err), "kind": KINDS[(how, int(measured) > 0)],
                 "last": last.pop((int(card), pl), None)}
            if touches is None or any(r.get("card") == d["card"] and r["player"] == pl and
                                      abs(r["t_us"] - d["t"]) <= 1 for r in touches):
                out.append(d)
    return out


def matching(pairs, rx):
    """Each line of the debug logs that rx matches: (scenario dir, its true touches, the match)."""
    for sd, log in pairs:
        truth = [r for r in load(sd + "/truth.jsonl") if r["type"] == "touch"]
        with open(log, errors="replace") as f:
            for line in f:
                m = rx.search(line)
                if m:
                    yield sd, truth, m


def near_shares(pairs):
    """--near: the hand's share near its point at each press decision, true touches apart."""
    true, other = [], []
    for _, truth, m in matching(pairs, NEAR):
        card, pl, t, n, most = int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5))
        share = n / most if most > 0 else 1.0
        hit = any(r.get("card") == card and r["player"] == pl and abs(r["t_us"] - t) < NEAR_PAIR_US for r in truth)
        (true if hit else other).append(share)
    true.sort()
    other.sort()
    print("press decisions: %d with a true touch within %d ms, lowest share %.2f; %d without, shares %s" % (
        len(true), NEAR_PAIR_US // 1000, true[0] if true else float("nan"), len(other),
        " ".join("%.2f" % x for x in other)))


SHADOW = re.compile(r"press of card (\d+) by ([AB]):.*jumped (\d)\).* -> (-?\d+) \+-.* back (\d) shadow seen (\d) "
                    r"met (\d) none \d obx (\S+)")
SHADOW_ALONE_MM = 150.0


def shadow_off(pairs):
    """--shadow-off: the decisions the shadow cue drops, true touches apart."""
    n_true = n_other = 0
    for sd, truth, m in matching(pairs, SHADOW):
        card, pl, jumped, t, back, seen, met, obx = (int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4)),
                                                    int(m.group(5)), int(m.group(6)), int(m.group(7)),
                                                    float(m.group(8)))
        if not (seen and not met and obx > SHADOW_ALONE_MM and (jumped or back)):
            continue
        if any(r.get("card") == card and r["player"] == pl and abs(r["t_us"] - t) < PAIR_US for r in truth):
            n_true += 1
            print("%s: %s card %d at %.3f s dropped, a true touch there" % (sd.rstrip("/"), pl, card, t / 1e6))
        else:
            n_other += 1
    print("dropped by the shadow cue: %d, with a true touch within %d ms %d" % (n_true + n_other, PAIR_US // 1000,
                                                                                n_true))


def rest_to_landing(pairs):
    """--rest: a single press's last changing frame after its rest's start, in play."""
    gaps, errs = [], []
    for sd, log in pairs:
        truth = load(sd + "/truth.jsonl")
        kim = [r["t_us"] for r in truth if r["type"] == "kimariji"]
        touches = [r for r in truth if r["type"] == "touch" and
                   any(0 <= r["t_us"] - k <= PLAY_US for k in kim)]
        for d in decisions(log):
            if d["kind"] != "landing" or d["last"] is None:
                continue
            c = [t for t in touches if t.get("card") == d["card"] and t["player"] == d["player"]
                 and abs(t["t_us"] - d["t"]) < PAIR_US]
            if not c:
                continue
            t = min(c, key=lambda r: abs(r["t_us"] - d["t"]))
            gap, e = (d["last"] - d["rest"]) / 1000.0, (d["t"] - t["t_us"]) / 1000.0
            gaps.append(gap)
            errs.append(e)
            print("%-28s %s card %-3d last change %+6.1f ms after the rest's start; err %+6.1f on %5.1f ms" % (
                sd.rstrip("/").split("/")[-1][:28], d["player"], d["card"], gap, e, d["err"] / 1000.0))
    if gaps:
        gaps.sort()
        errs.sort()
        print("%d presses: last change after the rest's start %.1f / %.1f / %.1f ms (least / median / most); "
              "signed error %.1f / %.1f / %.1f ms" % (len(gaps), gaps[0], gaps[len(gaps) // 2], gaps[-1],
                                                      errs[0], errs[len(errs) // 2], errs[-1]))


def quiet_frames(pairs):
    """--quiet: landings whose first quiet frame changed by more than TIP_QUIET, against the truth."""
    n = above = after = 0
    for sd, log in pairs:
        truth = [r for r in load(sd + "/truth.jsonl") if r["type"] == "touch"]
        quiet = {}  # (card, player): the first quiet frame of the landing read just before
        with open(log, errors="replace") as f:
            for line in f:
                m = QUIET.search(line)
                if m:
                    quiet[(int(m.group(1)), m.group(2))] = (int(m.group(3)), int(m.group(4)))
                    continue
                m = LINE.search(line)
                if not m or (int(m.group(1)), m.group(2)) not in quiet:
                    continue
                card, pl, t = int(m.group(1)), m.group(2), int(m.group(7))
                tq, cq = quiet.pop((card, pl))
                c = [r for r in truth if r.get("card") == card and r["player"] == pl and abs(r["t_us"] - t) < NEAR_PAIR_US]
                if not c:
                    continue
                n += 1
                if cq <= TIP_QUIET:
                    continue
                above += 1
                dq = (tq - min(c, key=lambda r: abs(r["t_us"] - t))["t_us"]) / 1000.0
                after += dq >= 0
                print("%-28s %s card %-3d first quiet frame's change %6d, %+6.1f ms from the contact" % (
                    sd.rstrip("/").split("/")[-1][:28], pl, card, cq, dq))
    print("%d landings with a true touch within %d ms; %d with a first quiet frame above %d, %d of them at or "
          "after the contact" % (n, NEAR_PAIR_US // 1000, above, TIP_QUIET, after))


def main():
    flags = {"--all", "--near", "--rest", "--quiet", "--shadow-off"}
    args = [a for a in sys.argv[1:] if a not in flags]
    if len(args) < 2 or len(args) % 2:
        sys.exit("usage: tools/eval_press_err.py SCENARIO_DIR DEBUG_LOG [SCENARIO_DIR DEBUG_LOG ...] "
                 "[--all | --near | --rest | --quiet | --shadow-off]")
    pairs = list(zip(args[0::2], args[1::2]))
    if "--rest" in sys.argv:
        rest_to_landing(pairs)
        return
    if "--near" in sys.argv:
        near_shares(pairs)
        return
    if "--quiet" in sys.argv:
        quiet_frames(pairs)
        return
    if "--shadow-off" in sys.argv:
        shadow_off(pairs)
        return
    stats = {}
    unpaired = 0
    for sd, log in pairs:
        truth = [r for r in load(sd + "/truth.jsonl") if r["type"] == "touch"]
        for d in decisions(log):
            c = [t for t in truth if t.get("card") == d["card"] and t["player"] == d["player"]
                 and abs(t["t_us"] - d["t"]) < PAIR_US]
            if not c:
                unpaired += 1
                print("%-28s %s card %-3d %-13s no true touch within %d ms" % (
                    sd.rstrip("/").split("/")[-1][:28], d["player"], d["card"], d["kind"], PAIR_US // 1000))
                continue
            t = min(c, key=lambda r: abs(r["t_us"] - d["t"]))
            e = (d["t"] - t["t_us"]) / 1000.0
            s = stats.setdefault(d["kind"], [0, 0, 0, []])
            s[0] += 1
            s[1] += abs(e) > d["err"] / 1000.0
            s[2] += abs(e) > 2 * d["err"] / 1000.0
            s[3].append(abs(e) / (d["err"] / 1000.0))
            if "--all" in sys.argv or abs(e) > 2 * d["err"] / 1000.0:
                print("%-28s %s card %-3d %-13s true-stop %+6.1f ms  err %+7.1f on %5.1f ms" % (
                    sd.rstrip("/").split("/")[-1][:28], d["player"], d["card"], d["kind"],
                    (t["t_us"] - d["stop"]) / 1000.0, e, d["err"] / 1000.0))
    for k, (n, b1, b2, r) in sorted(stats.items()):
        r.sort()
        print("%-13s %3d presses: beyond t_err %d, beyond 2 t_err %d; |err|/t_err median %.2f, max %.2f" % (
            k, n, b1, b2, r[len(r) // 2], r[-1]))
    print("with no true touch of the same player and card within %d ms: %d" % (PAIR_US // 1000, unpaired))


if __name__ == "__main__":
    main()
