#!/usr/bin/env python3
# gen_match.py - writes a karuta-synth scenario of a whole match segment (about three
# minutes by default): an explicit 25 + 25 layout, readings in random order (about half
# dead cards), takes by sweep (row-end cards, swept out) or press (inner cards), the
# loser's late hand, occasional faults, and the sends the rules require.
# SPDX-License-Identifier: MIT
#   tools/synth/gen_match.py [--readings N] [--seed S] [--name NAME] [--holdout] [--races P] > scenario.json
# --races P: a take of an inner card is, with probability P, a race: the loser presses the
# same card 6-80 ms after the taker instead of hovering near it (default 0: no races, and
# the same scenario as before for a given seed).
# --land-speed LO:HI: every press strikes the card at a speed drawn from LO..HI m/s
# (karuta-synth's land_speed; drawn from a second generator, so the rest of the scenario
# is the seed's as without it; default: the hand slows to rest on the card).
import argparse
import json
import random

ROW_Y = {"upper": 51.5, "middle": 134.5, "lower": 217.5}


def layout(rng, cards):
    """Slots as karuta-synth builds them: per row a left and a right group from the side lines."""
    places = []
    it = iter(cards)
    for owner in ("A", "B"):
        for row, n in (("upper", 9), ("middle", 9), ("lower", 7)):
            nl = n // 2 + rng.choice((-1, 0, 1))
            xs = []
            x = -435 + 26 + rng.uniform(0, 3)
            for _ in range(nl):
                xs.append(x)
                x += 52 + rng.uniform(2, 9)
            x = 435 - 26 - rng.uniform(0, 3)
            for _ in range(n - nl):
                xs.append(x)
                x -= 52 + rng.uniform(2, 9)
            for x in xs:
                places.append({"card": next(it), "owner": owner, "row": row, "x_mm": round(x, 1)})
    return places


def outermost(places, p):
    """True if no card of the same row lies between p and its side line."""
    same = [q for q in places if q["owner"] == p["owner"] and q["row"] == p["row"] and q is not p]
    if p["x_mm"] >= 0:
        return not any(q["x_mm"] > p["x_mm"] for q in same)
    return not any(q["x_mm"] < p["x_mm"] for q in same)


def free_spot(rng, places, owner):
    sign = -1 if owner == "A" else 1
    for _ in range(200):
        row = rng.choice(list(ROW_Y))
        x = round(rng.uniform(-160, 160), 1)
        if all(not (q["owner"] == owner and q["row"] == row and abs(q["x_mm"] - x) < 60) for q in places):
            return row, x, sign * ROW_Y[row]
    raise SystemExit("no free spot")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readings", type=int, default=18)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--name", default="full_match")
    ap.add_argument("--holdout", action="store_true")
    ap.add_argument("--races", type=float, default=0.0)
    ap.add_argument("--land-speed", default=None)
    a = ap.parse_args()
    land = None
    if a.land_speed:
        try:
            lo, hi = (float(x) for x in a.land_speed.split(":"))
        except ValueError:
            raise SystemExit("--land-speed: need LO:HI in m/s")
        land = (random.Random(a.seed + 1), lo, hi)
    rng = random.Random(a.seed)
    ids = list(range(1, 101))
    rng.shuffle(ids)
    field, rest = ids[:50], ids[50:]
    places = layout(rng, field)
    layout_out = [dict(p) for p in places]  # the layout at the start (places changes with sends)
    hand = {"A": "right", "B": "left"}
    opp = {"A": "B", "B": "A"}
    order = []
    on, off = field[:], rest[:]
    rng.shuffle(on)
    rng.shuffle(off)
    for i in range(a.readings):
        order.append(on.pop() if (rng.random() < 0.55 and on) or not off else off.pop())
    readings = []
    live = {p["card"]: p for p in places}
    for card in order:
        acts = []
        owed = {"A": 0, "B": 0}
        p = live.get(card)
        if p:
            taker = p["owner"] if rng.random() < 0.6 else opp[p["owner"]]
            t = round(rng.uniform(0.22, 0.45), 3)
            if outermost(list(live.values()), p):
                acts.append({"do": "sweep", "player": taker, "hand": hand[taker], "card": card, "t": t,
                             "speed": round(rng.uniform(2.4, 3.6), 2), "dir": "right" if p["x_mm"] >= 0 else "left"})
            else:
                acts.append({"do": "press", "player": taker, "hand": hand[taker], "card": card, "t": t,
                             "hold_s": 0.2})
                if taker == p["owner"]:
                    # nothing to send: the taker puts the pressed card aside after play
                    acts.append({"do": "remove", "player": taker, "hand": hand[taker], "card": card, "t": 1.9})
            loser = opp[taker]
            if a.races > 0 and acts[0]["do"] == "press" and rng.random() < a.races:
                # both press the card, each near its own end of it (y towards its own line)
                toward = {"A": -1, "B": 1}
                acts[0]["at"] = [round(rng.uniform(-6, 6), 1), toward[taker] * 9]
                acts.insert(1, {"do": "press", "player": loser, "hand": hand[loser], "card": card,
                                "at": [round(rng.uniform(-6, 6), 1), toward[loser] * 11],
                                "t": round(t + rng.uniform(0.006, 0.08), 3), "hold_s": 0.12})
            else:
                acts.append({"do": "hover", "player": loser, "hand": hand[loser],
                             "at": [round(p["x_mm"] * 0.7, 1),
                                    round((-1 if p["owner"] == "A" else 1) * ROW_Y[p["row"]] * 0.6, 1)],
                             "t": round(t + rng.uniform(0.06, 0.2), 3), "height_mm": 45})
            if taker != p["owner"]:
                owed[taker] += 1
            del live[card]
        elif rng.random() < 0.3:
            # a fault on a dead card: press a card of the opponent's territory
            faulter = rng.choice("AB")
            cands = [q for q in live.values() if q["owner"] == opp[faulter] and abs(q["x_mm"]) > 150]
            if cands:
                q = rng.choice(cands)
                acts.append({"do": "press", "player": faulter, "hand": hand[faulter], "card": q["card"],
                             "t": round(rng.uniform(0.25, 0.45), 3), "hold_s": 0.12})
                owed[opp[faulter]] += 1
        # sends: net entitlement, made by the player owed more
        net = owed["A"] - owed["B"]
        sender = "A" if net > 0 else "B"
        ts = 2.1
        for _ in range(abs(net)):
            mine = [q for q in live.values() if q["owner"] == sender]
            if not mine:
                break
            q = rng.choice(mine)
            row, x, y = free_spot(rng, list(live.values()), opp[sender])
            acts.append({"do": "send", "player": sender, "hand": hand[sender], "card": q["card"], "to": [x, y],
                         "t": ts})
            q.update({"owner": opp[sender], "row": row, "x_mm": x})
            ts += 1.3
        if land:
            for ac in acts:
                if ac["do"] == "press":
                    ac["land_speed"] = round(land[0].uniform(land[1], land[2]), 2)
        readings.append({"card": card, "shimo_after_s": 6.6, "actions": acts})
    scen = {
        "name": a.name,
        "description": "Generated by tools/synth/gen_match.py --readings %d --seed %d%s: %d readings of a match "
                       "(takes by sweep or press, dead cards, faults, sends%s%s)."
                       % (a.readings, a.seed, (" --races %g" % a.races if a.races > 0 else "")
                          + (" --land-speed " + a.land_speed if land else ""), a.readings,
                          ", races" if a.races > 0 else "", ", presses striking the card" if land else ""),
        "holdout": a.holdout,
        "seed": a.seed,
        "players": {"A": {"name": "Sato", "hand": "right", "skin": rng.choice(["light", "fair", "medium"])},
                    "B": {"name": "Ito", "hand": "left", "skin": rng.choice(["tan", "olive", "dark"])}},
        "layout": {"per_side": 25, "place": layout_out},
        "readings": readings,
    }
    print(json.dumps(scen, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
