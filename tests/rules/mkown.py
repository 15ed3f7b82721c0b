# mkown.py OUTDIR - writes tests/rules/own: match logs and their expected rulings, which were
# worked out BY HAND from docs/spec/rulings.md and typed below (never taken from the engine).
# Usage: python3 tests/rules/mkown.py tests/rules/own   (SPDX-License-Identifier: MIT)
import json, os, sys
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
STD_A = [17, 57, 87, 4]; STD_B = [70, 22, 13, 46]

def layout(a, b):
    cards = [{"card": c, "owner": "A", "row": "upper", "x_mm": -400.0 + 100 * i, "y_mm": -51.5} for i, c in enumerate(a)]
    cards += [{"card": c, "owner": "B", "row": "upper", "x_mm": -400.0 + 100 * i, "y_mm": 51.5} for i, c in enumerate(b)]
    return {"type": "layout", "t_us": 0, "cards": cards}

def ms(s): return int(round(s * 1000000))
def kami(seq, card, t): return {"type": "kami_start", "seq": seq, "card": card, "t_us": ms(t)}
def kima(seq, t): return {"type": "kimariji", "seq": seq, "t_us": ms(t)}
def shimo(seq, t): return {"type": "shimo_start", "seq": seq, "t_us": ms(t)}
def void(seq, t): return {"type": "reading_void", "seq": seq, "t_us": ms(t)}
def settle(t): return {"type": "settle", "t_us": ms(t)}
def send(t, frm, card): return {"type": "send", "t_us": ms(t), "from": frm, "card": card}
n_id = [0]
def touch(t, p, hand, card, terr, **kw):
    n_id[0] += 1
    r = {"type": "touch", "id": "o%d" % n_id[0], "t_us": ms(t), "player": p, "hand": hand, "card": card, "territory": terr}
    r.update(kw); return r
def other(typ, t, **kw):
    r = {"type": typ, "t_us": ms(t)}; r.update(kw); return r

def R(seq, card, kima_, loc, take=None, faults=(), df=False, voided=(), owed=(0, 0), send_=None,
      counts=(0, 0), review=False, est=True):
    return {"type": "ruling", "seq": seq, "card": card, "kimariji": kima_, "location": loc, "established": est,
            "take": None if take is None else {"player": take[0], "how": take[1]},
            "faults": [{"player": p, "territories": list(t)} for p, t in faults], "double_fault": df,
            "voided": [{"player": p, "reason": r} for p, r in voided],
            "owed": {"A": owed[0], "B": owed[1]},
            "send": None if send_ is None else {"from": send_[0], "count": send_[1]},
            "counts": {"A": counts[0], "B": counts[1]}, "final": True, "needs_review": review}
def END(w, counts): return {"type": "match_end", "winner": w, "counts": {"A": counts[0], "B": counts[1]}}

def case(name, note, recs, expected, a=STD_A, b=STD_B, hands=(None, None), args=None):
    players = {"A": {"name": "Sato"}, "B": {"name": "Ito"}}
    if hands[0]: players["A"]["hand"] = hands[0]
    if hands[1]: players["B"]["hand"] = hands[1]
    lines = [{"type": "match", "format": "karuta-match/1", "players": players, "note": note}, layout(a, b)] + recs
    with open(os.path.join(OUT, name + ".jsonl"), "w") as f:
        for l in lines: f.write(json.dumps(l, ensure_ascii=False) + "\n")
    with open(os.path.join(OUT, name + ".expected.jsonl"), "w") as f:
        for l in expected: f.write(json.dumps(l, ensure_ascii=False) + "\n")
    if args:
        with open(os.path.join(OUT, name + ".args"), "w") as f: f.write(args + "\n")

RR = ("right", "right")
# ---- clause 1
case("c1_take_own_touch", "rule 1: A touches her own read card first; B's later touch is no take: no send",
     [kami(1, 87, 10), kima(1, 10.25), touch(10.6, "A", "right", 87, "A"), touch(10.8, "B", "right", 87, "A"), settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "touch"), counts=(3, 4))])
case("c1_push_out_own", "rule 1: B pushes his own read card wholly out before anyone touches it: B takes by push_out",
     [kami(1, 22, 10), kima(1, 10.25), other("push_out", 10.6, id="o90", player="B", card=22, territory="B"), settle(12), shimo(1, 15)],
     [R(1, 22, "ふ", "B", ("B", "push_out"), counts=(4, 3))])
case("c1_tie_within_tolerance", "rule 1 + convention (ties inclusive): touches exactly tie_us apart go to the owner B, for review",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.6, "A", "right", 22, "B"), touch(10.63, "B", "right", 22, "B"), settle(12), shimo(1, 15)],
     [R(1, 22, "ふ", "B", ("B", "simultaneous"), counts=(4, 3), review=True)], args="--tie-us 30000")
case("c1_tie_just_outside", "rule 1: 1 us beyond the tie tolerance, A's earlier touch takes in B territory; A sends 1",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.6, "A", "right", 22, "B"), touch(10.630001, "B", "right", 22, "B"), settle(12),
      send(12.5, "A", 57), shimo(1, 15)],
     [R(1, 22, "ふ", "B", ("A", "touch"), owed=(1, 0), send_=("A", 1), counts=(3, 4))], args="--tie-us 30000")
# ---- clause 2
case("c2_interference_award_own_territory", "rule 2 + convention: A takes her own card but a judge enters interference against A: void, B is awarded it where it lay (A territory), so B is owed 1 and sends",
     [kami(1, 57, 10), kima(1, 10.25), touch(10.6, "A", "right", 57, "A"), other("interference", 10.65, player="A", kind="grab"), settle(12),
      send(12.5, "B", 70), shimo(1, 15)],
     [R(1, 57, "め", "A", ("B", "awarded"), voided=[("A", "interference")], owed=(0, 1), send_=("B", 1), counts=(4, 3))], hands=RR)
case("c2_invalid_hand_then_opponent_touch", "rule 2 + convention: A (right hand declared) touches the read card with her left; B then touches it validly: B takes by touch, A's take void",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.6, "A", "left", 22, "B"), touch(10.7, "B", "right", 22, "B"), settle(12), shimo(1, 15)],
     [R(1, 22, "ふ", "B", ("B", "touch"), voided=[("A", "invalid_hand")], counts=(4, 3))], hands=RR)
case("c2_invalid_hand_awarded", "rule 2: A touches B's read card with her left, then her right; B never touches: void, B is awarded his own card (no send)",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.6, "A", "left", 22, "B"), touch(10.65, "A", "right", 22, "B"), settle(12), shimo(1, 15)],
     [R(1, 22, "ふ", "B", ("B", "awarded"), voided=[("A", "invalid_hand")], counts=(4, 3))], hands=RR)
case("c2_early_entry_taker_in_opponent_territory", "rule 2: A's valid hand entered early; she takes B's card first: void, B awarded his own card where it lay: nothing owed",
     [other("early_entry", 9.9, id="o91", player="A", hand="right"), kami(1, 70, 10), kima(1, 10.25), touch(10.5, "A", "right", 70, "B"),
      touch(10.8, "B", "right", 70, "B"), settle(12), shimo(1, 15)],
     [R(1, 70, "さ", "B", ("B", "awarded"), voided=[("A", "early_entry")], counts=(4, 3))], hands=RR)
case("c2_early_entry_not_taker", "rule 2: B entered early but A takes: only the taker's take can be void; A takes normally",
     [other("early_entry", 9.9, player="B", hand="right"), kami(1, 87, 10), kima(1, 10.25), touch(10.6, "A", "right", 87, "A"), settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "touch"), counts=(3, 4))], hands=RR)
case("c2_early_entry_without_hand", "rule 2: an early entry with no hand named counts against any hand: B's take of A's card is void, A awarded her own card",
     [other("early_entry", 9.9, player="B"), kami(1, 87, 10), kima(1, 10.25), touch(10.6, "B", "right", 87, "A"), settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "awarded"), voided=[("B", "early_entry")], counts=(3, 4))], hands=RR)
# ---- clause 3
case("c3_declared_left_hand", "rule 3: A declared her left hand: her right never faults, her left does; B declared right",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.5, "A", "right", 57, "A"), touch(10.7, "B", "right", 22, "B"), settle(12), shimo(1, 15),
      kami(2, 70, 20), kima(2, 20.25), touch(20.5, "A", "left", 4, "A"), touch(20.7, "B", "right", 70, "B"), settle(22), send(22.5, "B", 13), shimo(2, 25)],
     [R(1, 22, "ふ", "B", ("B", "touch"), counts=(4, 3)),
      R(2, 70, "さ", "B", ("B", "touch"), faults=[("A", "A")], owed=(0, 1), send_=("B", 1), counts=(5, 1))], hands=("left", "right"))
case("c3_hand_fixed_by_first_fault", "rule 3: A's first fault (right hand, dead card) fixes her right hand; her later left-hand touch on the wrong territory is no fault",
     [kami(1, 97, 10), kima(1, 10.5), touch(10.6, "A", "right", 57, "A"), settle(12), send(12.5, "B", 70), shimo(1, 15),
      kami(2, 22, 20), kima(2, 20.25), touch(20.5, "A", "left", 17, "A"), touch(20.7, "B", "right", 22, "B"), settle(22), shimo(2, 25)],
     [R(1, 97, "こぬ", "dead", None, faults=[("A", "A")], owed=(0, 1), send_=("B", 1), counts=(5, 3)),
      R(2, 22, "ふ", "B", ("B", "touch"), counts=(5, 2))])
case("c3_voided_fault_does_not_fix_hand", "rule 3 + convention: A's left-hand fault in a voided reading fixes nothing; her right-hand fault in the next (established) reading fixes right; later left touches are no fault",
     [kami(1, 22, 10), touch(10.1, "A", "left", 57, "A"), void(1, 10.2), settle(11),
      kami(2, 70, 20), kima(2, 20.25), touch(20.5, "A", "right", 57, "A"), touch(20.7, "B", "right", 70, "B"), settle(22), send(22.5, "B", 13), shimo(2, 25),
      kami(3, 18, 30), kima(3, 30.25), touch(30.5, "A", "left", 17, "A"), settle(32), shimo(3, 35)],
     [R(1, 22, "ふ", "B", None, counts=(4, 4), est=False),
      R(2, 70, "さ", "B", ("B", "touch"), faults=[("A", "A")], owed=(0, 1), send_=("B", 1), counts=(5, 2)),
      R(3, 18, "す", "dead", None, counts=(5, 2))])
# ---- clause 4
case("c4_one_fault_per_territory", "rule 4: A touches three cards of her own territory (read card in B): one fault",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.5, "A", "right", 57, "A"), touch(10.52, "A", "right", 17, "A"), touch(10.54, "A", "right", 4, "A"),
      touch(10.7, "B", "right", 22, "B"), settle(12), send(12.5, "B", 13), shimo(1, 15)],
     [R(1, 22, "ふ", "B", ("B", "touch"), faults=[("A", "A")], owed=(0, 1), send_=("B", 1), counts=(5, 2))], hands=RR)
case("c4_dead_both_territories_by_b", "rule 4 + 6: dead card, B touches a card in each territory: a fault worth two, A sends 2",
     [kami(1, 97, 10), kima(1, 10.5), touch(10.6, "B", "right", 57, "A"), touch(10.65, "B", "right", 70, "B"), settle(12),
      send(12.5, "A", 17), send(12.6, "A", 57), shimo(1, 15)],
     [R(1, 97, "こぬ", "dead", None, faults=[("B", "AB")], owed=(2, 0), send_=("A", 2), counts=(2, 6))], hands=RR)
case("c4_tidying_after_settle", "rule 4: play ends at settle; A touching her card afterwards (tidying) is no fault on a dead card",
     [kami(1, 97, 10), kima(1, 10.5), settle(12), touch(12.3, "A", "right", 57, "A"), shimo(1, 15)],
     [R(1, 97, "こぬ", "dead", None, counts=(4, 4))], hands=RR)
# ---- clause 5
case("c5_void_before_derived_kimariji", "rule 5: 64 needs six kana (derived kimariji at +1.5 s with mora 250 ms); the reading is stopped at +1.0 s: B's fault is void, 64 not consumed; read again later it is normal",
     [kami(1, 64, 10), touch(10.8, "B", "right", 57, "A"), void(1, 11.0), settle(12),
      kami(2, 64, 20), kima(2, 21.5), touch(21.7, "B", "right", 64, "B"), settle(23), shimo(2, 25)],
     [R(1, 64, "あさぼらけう", "B", None, counts=(4, 4), est=False),
      R(2, 64, "あさぼらけう", "B", ("B", "touch"), counts=(4, 3))], b=[70, 22, 13, 64], hands=RR)
case("c5_void_after_explicit_kimariji_stands", "rule 5 + convention: reading_void after the kimariji record does not undo the reading: fault and take stand, for review",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.3, "A", "right", 57, "A"), touch(10.4, "B", "right", 22, "B"), void(1, 10.5), settle(12),
      send(12.5, "B", 13), shimo(1, 15)],
     [R(1, 22, "ふ", "B", ("B", "touch"), faults=[("A", "A")], owed=(0, 1), send_=("B", 1), counts=(5, 2), review=True)], hands=RR)
case("c5_void_exactly_at_derived_kimariji", "rule 5 + conventions: no kimariji record; 22 (one kana) is decided at +250 ms; a reading_void exactly then stands: A's fault counts; nobody takes 22, which leaves from B's territory (review)",
     [kami(1, 22, 10), touch(10.2, "A", "right", 57, "A"), void(1, 10.25), settle(12), send(12.5, "B", 13), shimo(1, 15)],
     [R(1, 22, "ふ", "B", None, faults=[("A", "A")], owed=(0, 1), send_=("B", 1), counts=(5, 2), review=True)], hands=RR)
# ---- clause 6
case("c6_dead_card_net", "rule 6 + 7: dead card; A faults on both territories (B owed 2), B on his own (A owed 1): double fault, B sends the difference 1",
     [kami(1, 97, 10), kima(1, 10.5), touch(10.55, "A", "right", 57, "A"), touch(10.6, "A", "right", 70, "B"), touch(10.62, "B", "right", 13, "B"),
      settle(12), send(12.5, "B", 22), shimo(1, 15)],
     [R(1, 97, "こぬ", "dead", None, faults=[("A", "AB"), ("B", "B")], df=True, owed=(1, 2), send_=("B", 1), counts=(5, 3))], hands=RR)
case("c6_late_send_is_lost", "rule 6: A is owed 1 but sends only after shimo_start: lost, the card stays A's (it is then read in A territory)",
     [kami(1, 70, 10), kima(1, 10.25), touch(10.6, "A", "right", 70, "B"), settle(12), shimo(1, 15), send(15.5, "A", 57),
      kami(2, 57, 20), kima(2, 20.25), touch(20.6, "A", "right", 57, "A"), settle(22), shimo(2, 25)],
     [R(1, 70, "さ", "B", ("A", "touch"), owed=(1, 0), send_=("A", 1), counts=(4, 3)),
      R(2, 57, "め", "A", ("A", "touch"), counts=(3, 3))], hands=RR)
case("c6_second_send_in_error", "rule 6: nothing owed, B sends 22 then 13 in error: the first stands, the second does not (13 is later read in B territory)",
     [kami(1, 87, 10), kima(1, 10.25), touch(10.6, "A", "right", 87, "A"), settle(12), send(12.5, "B", 22), send(12.6, "B", 13), shimo(1, 15),
      kami(2, 13, 20), kima(2, 20.5), touch(20.6, "B", "right", 13, "B"), settle(22), shimo(2, 25)],
     [R(1, 87, "む", "A", ("A", "touch"), counts=(4, 3)),
      R(2, 13, "つく", "B", ("B", "touch"), counts=(4, 2))], hands=RR)
# ---- clause 7
case("c7_both_fault_live_card", "rule 7 + convention: both players fault while B takes his own card: double fault, owed 1/1, nothing sent",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.5, "A", "right", 57, "A"), touch(10.55, "B", "right", 17, "A"), touch(10.7, "B", "right", 22, "B"),
      settle(12), shimo(1, 15)],
     [R(1, 22, "ふ", "B", ("B", "touch"), faults=[("A", "A"), ("B", "A")], df=True, owed=(1, 1), counts=(4, 3))], hands=RR)
case("c7_contact_then_fault_both_faulted", "rule 7: B faults first; hands touch; A then faults: double fault, A's fault contact-caused (review); B's own fault already counts, owed 1/1",
     [kami(1, 97, 10), kima(1, 10.5), touch(10.5, "B", "right", 70, "B"), other("hand_contact", 10.6, id="o92"), touch(10.62, "A", "right", 57, "A"),
      settle(12), shimo(1, 15)],
     [R(1, 97, "こぬ", "dead", None, faults=[("A", "A"), ("B", "B")], df=True, owed=(1, 1), counts=(4, 4), review=True)], hands=RR)
case("c7_contact_after_fault", "rule 7 + convention: a hand contact after the fault does not make a double fault: B sends 1",
     [kami(1, 97, 10), kima(1, 10.5), touch(10.5, "A", "right", 57, "A"), other("hand_contact", 10.6), settle(12), send(12.5, "B", 70), shimo(1, 15)],
     [R(1, 97, "こぬ", "dead", None, faults=[("A", "A")], owed=(0, 1), send_=("B", 1), counts=(5, 3))], hands=RR)
# ---- clause 8
case("c8_reread_maps_to_card_in_a", "rule 8: 45 (あわれ) read twice; the second is treated as 78 (あわじ, decided at あわ) lying in A territory: B's take there stands (B sends 1), B's fault is void",
     [kami(1, 45, 10), kima(1, 10.75), settle(12), shimo(1, 15),
      kami(2, 45, 20), kima(2, 20.5), touch(20.55, "B", "right", 70, "B"), touch(20.6, "B", "right", 78, "A"), settle(22), send(22.5, "B", 13), shimo(2, 25)],
     [R(1, 45, "あわれ", "dead", None, counts=(4, 4)),
      R(2, 78, "あわ", "A", ("B", "touch"), owed=(0, 1), send_=("B", 1), counts=(4, 3))], a=[17, 57, 87, 78], hands=RR)
case("c8_reread_no_unread_match", "rule 8 + convention: 22 (ふ, the only ふ card) read again: no unread card matches, the reading is not established, A's fault is void (review)",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.6, "B", "right", 22, "B"), settle(12), shimo(1, 15),
      kami(2, 22, 20), kima(2, 20.25), touch(20.5, "A", "right", 57, "A"), settle(22), shimo(2, 25)],
     [R(1, 22, "ふ", "B", ("B", "touch"), counts=(4, 3)),
      R(2, 22, "ふ", "dead", None, counts=(4, 3), est=False, review=True)], hands=RR)
# ---- clause 9
case("c9_match_end_after_send", "rule 9: A takes in B territory and sends her last card: her territory is empty once the send is made, A wins",
     [kami(1, 70, 10), kima(1, 10.25), touch(10.6, "A", "right", 70, "B"), settle(12), send(12.5, "A", 87), shimo(1, 15)],
     [R(1, 70, "さ", "B", ("A", "touch"), owed=(1, 0), send_=("A", 1), counts=(0, 3)), END("A", (0, 3))], a=[87], b=[70, 22, 13], hands=RR)
case("c9_match_end_own_last_card", "rule 9: B takes his last card; the match ends at end of input (no shimo_start), B wins",
     [kami(1, 22, 10), kima(1, 10.25), touch(10.6, "B", "right", 22, "B"), settle(12)],
     [R(1, 22, "ふ", "B", ("B", "touch"), counts=(2, 0)), END("B", (2, 0))], a=[17, 57], b=[22], hands=RR)
case("c9_empty_by_lost_send", "rule 9 + convention: A takes her last card after faulting in B territory; B does not send: A's territory is empty only through the lost send: A wins, flagged for review",
     [kami(1, 87, 10), kima(1, 10.25), touch(10.5, "A", "right", 70, "B"), touch(10.7, "A", "right", 87, "A"), settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "touch"), faults=[("A", "B")], owed=(0, 1), send_=("B", 1), counts=(0, 3), review=True), END("A", (0, 3))],
     a=[87], b=[70, 22, 13], hands=RR)
# ---- review conventions
case("conv_low_confidence_take", "convention: the deciding touch has confidence 0.85 < 0.9: review",
     [kami(1, 87, 10), kima(1, 10.25), touch(10.6, "A", "right", 87, "A", confidence=0.85), settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "touch"), counts=(3, 4), review=True)], hands=RR)
case("conv_low_confidence_not_deciding", "convention: a low-confidence touch that decides nothing (B on A territory, read card there) needs no review",
     [kami(1, 87, 10), kima(1, 10.25), touch(10.6, "A", "right", 87, "A", confidence=0.95), touch(10.9, "B", "right", 17, "A", confidence=0.5),
      settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "touch"), counts=(3, 4))], hands=RR)
case("conv_near_simultaneous_timing_error", "convention: 12 ms apart with t_err 5 ms each: within 2*sqrt(5^2+5^2) = 14.1 ms: A takes, for review",
     [kami(1, 87, 10), kima(1, 10.25), touch(10.6, "A", "right", 87, "A", t_err_us=5000), touch(10.612, "B", "right", 87, "A", t_err_us=5000),
      settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "touch"), counts=(3, 4), review=True)], hands=RR)
case("conv_beyond_timing_error", "convention: 15 ms apart with t_err 5 ms each (window 14.1 ms): no review",
     [kami(1, 87, 10), kima(1, 10.25), touch(10.6, "A", "right", 87, "A", t_err_us=5000), touch(10.615, "B", "right", 87, "A", t_err_us=5000),
      settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "touch"), counts=(3, 4))], hands=RR)
case("conv_null_touch_fault", "convention: B touches an unknown card (card null) of his own territory while A's card is read: a fault, decided by a card:null touch: review",
     [kami(1, 87, 10), kima(1, 10.25), touch(10.55, "B", "right", None, "B"), touch(10.6, "A", "right", 87, "A"), settle(12), send(12.5, "A", 17), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "touch"), faults=[("B", "B")], owed=(1, 0), send_=("A", 1), counts=(2, 5), review=True)], hands=RR)
case("conv_null_touch_before_take", "convention: B touched an unknown card in A territory just before A's take: it may have been the read card: review",
     [kami(1, 87, 10), kima(1, 10.25), touch(10.55, "B", "right", None, "A"), touch(10.6, "A", "right", 87, "A"), settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", ("A", "touch"), counts=(3, 4), review=True)], hands=RR)
case("conv_untaken_card", "convention: nobody takes the read card on the field: take null, it leaves from its owner's territory, review",
     [kami(1, 87, 10), kima(1, 10.25), settle(12), shimo(1, 15)],
     [R(1, 87, "む", "A", None, counts=(3, 4), review=True)], hands=RR)
case("conv_force_majeure", "take.how force_majeure: the read card is moved out by an outside cause before anyone touches it: given to its owner B",
     [kami(1, 22, 10), kima(1, 10.25), other("force_majeure", 10.5, card=22), touch(10.6, "A", "right", 22, "B"), settle(12), shimo(1, 15)],
     [R(1, 22, "ふ", "B", ("B", "force_majeure"), counts=(4, 3))], hands=RR)

# ---- bad input (exit 1, one line naming the line number)
def bad(name, lines, lineno):
    with open(os.path.join(OUT, name + ".jsonl"), "w") as f:
        for l in lines: f.write((l if isinstance(l, str) else json.dumps(l, ensure_ascii=False)) + "\n")
    with open(os.path.join(OUT, name + ".expect-error.txt"), "w") as f:
        f.write("line %d\n:%d:\n" % (lineno, lineno))
M = {"type": "match", "format": "karuta-match/1", "players": {"A": {"name": "Sato"}, "B": {"name": "Ito"}}}
LY = layout(STD_A, STD_B)
bad("bad_unknown_type", [M, LY, kami(1, 87, 10), {"type": "tuch", "t_us": 10600000}], 4)
bad("bad_touch_off_field", [M, LY, kami(1, 87, 10), touch(10.6, "A", "right", 99, "A")], 4)
bad("bad_card_out_of_range", [M, LY, kami(1, 101, 10)], 3)
bad("bad_missing_hand", [M, LY, kami(1, 87, 10), {"type": "touch", "t_us": 10600000, "player": "A", "card": 87, "territory": "A"}], 4)
bad("bad_seq_mismatch", [M, LY, kami(1, 87, 10), kima(1, 10.25), shimo(2, 15)], 5)
bad("bad_send_not_in_territory", [M, LY, kami(1, 87, 10), touch(10.6, "A", "right", 87, "A"), send(12.0, "B", 57)], 5)
bad("bad_layout_card_zero", [M, {"type": "layout", "t_us": 0, "cards": [{"card": 0, "owner": "A"}]}], 2)
bad("bad_no_match_first", [LY, M], 1)
bad("bad_touch_on_taken_card", [M, LY, kami(1, 87, 10), touch(10.6, "A", "right", 87, "A"), shimo(1, 15), kami(2, 57, 20),
                                touch(20.6, "B", "right", 87, "A")], 7)
bad("bad_blank_then_malformed", [M, "", LY, "{\"type\": \"settle\", \"t_us\": }"], 4)
