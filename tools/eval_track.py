#!/usr/bin/env python3
# eval_track.py - the tracker against a synthetic scenario's per-frame truth.
# Input: SCENARIO_DIR (meta.json, truth_frames.jsonl) and TRACE.jsonl written by
# `karuta-ref analyze ... --trace TRACE.jsonl`. Prints one JSON line: card centre error
# (mm, cards at rest and cards the truth shows moving), corner error (mm, at rest),
# id switches (a moving card's estimate nearer another card's true centre than its
# own), hand leading-point error (mm, vs the middle fingertip, hands low over the field),
# frames where a hand over the field was missed, and frames where a hand was reported
# though the truth had none of that player's hands over the field (shadows, phantoms).
# The card's 13th field, the angle (kr_track_write_trace: tools/track_trace and
# `analyze --trace` alike), also gives the rest angle error, the corner error of the
# rotated outline, and the corner error of moved cards once they lie still again (frames
# counted); an older trace without it is scored with an axis-aligned outline.
# lead_near_mm: the leading-point error on the frames where A's and B's true fingertips
# (over the field) are within 120 mm of each other (races: two hands on one card, where
# the tracker splits one merged component between the players); lead_contact_mm: the
# same on the frames the trace reports hand contact.
# usage: eval_track.py SCENARIO_DIR TRACE.jsonl
# SPDX-License-Identifier: MIT
import json
import math
import sys


def pct(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def centre(c):
    return sum(c[0::2]) / 4.0, sum(c[1::2]) / 4.0


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: eval_track.py SCENARIO_DIR TRACE.jsonl")
    d, trace = sys.argv[1], sys.argv[2]
    meta = json.load(open(d + "/meta.json"))
    rest = {c["card"]: c["corners_mm"] for c in meta["cards"]}
    truth = {}
    for line in open(d + "/truth_frames.jsonl"):
        fr = json.loads(line)
        truth[fr["t_us"]] = fr
    rest_err, corner_err, move_err, lead_err, angle_err, moved_corner_err = [], [], [], [], [], []
    near_err, contact_err = [], []
    switches = missed = phantom = frames = 0
    for line in open(trace):
        tr = json.loads(line)
        if not tr.get("ready"):
            continue
        fr = truth.get(tr["t_us"])
        if fr is None:
            continue
        frames += 1
        moving = {c["card"]: c["corners_mm"] for c in fr.get("cards", [])}
        states = {c["card"]: c.get("state") for c in fr.get("cards", [])}
        true_c = {k: centre(v) for k, v in rest.items()}
        for k, v in moving.items():
            true_c[k] = centre(v)
        for c in tr["cards"]:
            cid, x, y, mov, disp, occ, out, lost = c[:8]
            if cid not in true_c:
                continue
            tx, ty = true_c[cid]
            e = math.hypot(x - tx, y - ty)
            if cid in moving:
                if not lost and abs(tx) < 600 and abs(ty) < 450:
                    move_err.append(e)
                    near = min((math.hypot(x - ox, y - oy), k) for k, (ox, oy) in true_c.items())
                    if near[1] != cid and near[0] + 5 < e:
                        switches += 1
                # a moved card lying still again (inside the view), seen at rest: its
                # outline at the new place and angle
                st = states.get(cid)
                if st == "rest" and not disp and not lost and len(c) > 12 and abs(tx) < 500:
                    cs = moving[cid]
                    a = math.radians(c[12])
                    ca, sa = math.cos(a), math.sin(a)
                    mine = [(x + ca * lx - sa * ly, y + sa * lx + ca * ly)
                            for lx, ly in ((-26, -36.5), (26, -36.5), (26, 36.5), (-26, 36.5))]
                    for i in range(4):
                        px, py = cs[2 * i], cs[2 * i + 1]
                        moved_corner_err.append(min(math.hypot(px - mx, py - my) for mx, my in mine))
            elif not disp:
                rest_err.append(e)
                # the tracker's outline (rotated by its angle when the trace gives one,
                # track_trace does; else axis-aligned) vs the true corners
                cs = rest[cid]
                a = math.radians(c[12]) if len(c) > 12 else 0.0
                ca, sa = math.cos(a), math.sin(a)
                mine = [(x + ca * lx - sa * ly, y + sa * lx + ca * ly)
                        for lx, ly in ((-26, -36.5), (26, -36.5), (26, 36.5), (-26, 36.5))]
                if len(c) > 12:
                    ta = math.degrees(math.atan2(cs[3] - cs[1], cs[2] - cs[0]))
                    angle_err.append(abs((c[12] - ta + 90) % 180 - 90))
                for i in range(4):
                    px, py = cs[2 * i], cs[2 * i + 1]
                    corner_err.append(min(math.hypot(px - mx, py - my) for mx, my in mine))
        tips = {p: [t["tip_mm"] for t in fr.get("hands", []) if t["player"] == p
                    and abs(t["tip_mm"][0]) <= 435 and abs(t["tip_mm"][1]) <= 254] for p in "AB"}
        near = any(math.hypot(a[0] - b[0], a[1] - b[1]) < 120 for a in tips["A"] for b in tips["B"])
        for h in tr["hands"]:
            p = h["player"]
            th = [t for t in fr.get("hands", []) if t["player"] == p
                  and abs(t["tip_mm"][0]) <= 435 and abs(t["tip_mm"][1]) <= 254]
            if th and not h["present"]:
                missed += 1
            elif h["present"] and h.get("in_field") and not th:
                phantom += 1
            elif h["present"] and th:
                lx, ly = h["lead"]
                e = min(math.hypot(lx - t["tip_mm"][0], ly - t["tip_mm"][1]) for t in th)
                lead_err.append(e)
                if near:
                    near_err.append(e)
                if tr.get("contact"):
                    contact_err.append(e)
    r = lambda v: None if v is None else round(v, 1)
    print(json.dumps({
        "scenario": meta.get("scenario"), "frames": frames,
        "card_rest_centre_mm": {"median": r(pct(rest_err, .5)), "p95": r(pct(rest_err, .95))},
        "card_rest_corner_mm": {"median": r(pct(corner_err, .5)), "p95": r(pct(corner_err, .95)),
                                "worst": r(max(corner_err) if corner_err else None)},
        "card_rest_angle_deg": {"median": r(pct(angle_err, .5)), "p95": r(pct(angle_err, .95))},
        "card_moving_centre_mm": {"median": r(pct(move_err, .5)), "p95": r(pct(move_err, .95)), "n": len(move_err)},
        "card_moved_rest_corner_mm": {"median": r(pct(moved_corner_err, .5)), "p95": r(pct(moved_corner_err, .95)),
                                      "n": len(moved_corner_err) // 4},
        "id_switch_frames": switches,
        "lead_mm": {"median": r(pct(lead_err, .5)), "p95": r(pct(lead_err, .95)), "n": len(lead_err)},
        "lead_near_mm": {"median": r(pct(near_err, .5)), "p95": r(pct(near_err, .95)), "n": len(near_err)},
        "lead_contact_mm": {"median": r(pct(contact_err, .5)), "p95": r(pct(contact_err, .95)),
                            "n": len(contact_err)},
        "hand_missed_frames": missed, "hand_phantom_frames": phantom}))


if __name__ == "__main__":
    main()
