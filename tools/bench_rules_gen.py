#!/usr/bin/env python3
"""bench_rules_gen.py [READINGS] [TOUCHES] > LOG.jsonl - a synthetic match log for the rules
benchmark: 25 + 25 cards, READINGS readings (default 100; every card read once, cards not
on the field are dead), TOUCHES touch records in all (default 50000): one take per field-card reading and
the rest spread evenly as brushes on cards of the territory holding the read card
(no faults, no sends), so the match runs all READINGS readings. Deterministic (fixed seed).
SPDX-License-Identifier: MIT"""
import json
import random
import sys


def main():
    readings = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    touches = int(sys.argv[2]) if len(sys.argv) > 2 else 50000
    rng = random.Random(20261130)
    cards = list(range(1, 101))
    rng.shuffle(cards)
    field_a, field_b = cards[:25], cards[25:50]
    # 24 + 24 field cards and the 50 dead cards read once each (98 readings); the last
    # card of each territory is never read, so the match never ends; readings beyond 98
    # re-read the last A card but are voided before its kimariji (not consumed).
    order = field_a[:24] + field_b[:24] + cards[50:]
    rng.shuffle(order)
    order = order[:readings] + [field_a[24]] * max(0, readings - len(order))
    out = sys.stdout
    w = lambda r: out.write(json.dumps(r, separators=(',', ':')) + '\n')
    w({"type": "match", "format": "karuta-match/1",
       "players": {"A": {"name": "Bench A", "hand": "right"}, "B": {"name": "Bench B", "hand": "right"}}})
    lay = [{"card": c, "owner": "A", "row": "upper", "x_mm": -400.0 + 30 * i, "y_mm": -80.0} for i, c in enumerate(field_a)]
    lay += [{"card": c, "owner": "B", "row": "upper", "x_mm": -400.0 + 30 * i, "y_mm": 80.0} for i, c in enumerate(field_b)]
    w({"type": "layout", "t_us": 0, "cards": lay})
    loc = {c: "A" for c in field_a}
    loc.update({c: "B" for c in field_b})
    takes = sum(1 for c in order[:98] if c in loc)  # one take touch per field-card reading
    brushes = max(0, touches - takes)
    per = brushes // len(order)
    extra = brushes - per * len(order)
    n = 0
    for seq, card in enumerate(order, 1):
        t0 = seq * 20000000
        voided = seq > 98
        w({"type": "kami_start", "seq": seq, "card": card, "t_us": t0})
        if voided:
            w({"type": "reading_void", "seq": seq, "t_us": t0 + 100000})
        else:
            w({"type": "kimariji", "seq": seq, "t_us": t0 + 500000})
        where = loc.get(card)
        k = per + (1 if seq <= extra else 0)
        # brushes only in the read card's territory (card null for a dead card): no faults
        same = [c for c, v in loc.items() if v == where and c != card] if where else []
        for i in range(k):
            t = t0 + 600000 + i * 20
            if same:
                c = rng.choice(same)
                w({"type": "touch", "id": "b%d" % n, "t_us": t, "t_err_us": 2000, "player": rng.choice("AB"),
                   "hand": "right", "card": c, "territory": where, "confidence": 0.97})
            else:
                w({"type": "touch", "id": "b%d" % n, "t_us": t, "player": rng.choice("AB"), "hand": "left",
                   "card": None, "territory": rng.choice("AB")})
            n += 1
        t = t0 + 600000 + k * 20 + 1000
        if where and not voided:
            taker = where  # each player takes her own cards: nothing is sent
            w({"type": "touch", "id": "take%d" % seq, "t_us": t, "player": taker, "hand": "right", "card": card,
               "territory": where})
            del loc[card]
        w({"type": "settle", "t_us": t + 1000000})
        if not voided:
            w({"type": "shimo_start", "seq": seq, "t_us": max(t0 + 5000000, t + 1000001)})
    return 0


if __name__ == '__main__':
    sys.exit(main())
