/* test_rules.c - CUnit suite for the pure rules engine (src/rules): clauses 1-9 of
 * docs/spec/rulings.md and its conventions, dynamic kimariji, input validation.
 * SPDX-License-Identifier: MIT */
#include "kr_rules.h"

#include <CUnit/Basic.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixture: one engine, records built in code -------------------------- */

static kr_rules_state st;
static kr_rules_output outs[128];
static int n_outs;
static kr_rules_record rec;

static void drain(void)
{
    kr_rules_output o;
    while (kr_rules_next(&st, &o))
        if (n_outs < 128)
            outs[n_outs++] = o;
}

static kr_rules_status feed(void)
{
    kr_rules_status s = kr_rules_feed(&st, &rec);
    drain();
    return s;
}

#define FEED_OK() CU_ASSERT_EQUAL_FATAL(feed(), KR_RULES_OK)

static void r_init(kr_rules_rec_type t, int64_t t_us)
{
    kr_rules_record_init(&rec, t);
    rec.has_t = true;
    rec.t_us = t_us;
}

/* A: cards a[], B: cards b[] (0-terminated); declared hands (NONE: undeclared). */
static void begin_full(int64_t tie, int64_t mora, const int *a, const int *b, kr_rules_hand ha,
                       kr_rules_hand hb)
{
    kr_rules_config cfg;
    kr_rules_config_default(&cfg);
    cfg.tie_us = tie;
    if (mora)
        cfg.mora_us = mora;
    CU_ASSERT_EQUAL_FATAL(kr_rules_reset(&st, &cfg), KR_RULES_OK);
    n_outs = 0;
    kr_rules_record_init(&rec, KR_REC_MATCH);
    rec.declared[0] = ha;
    rec.declared[1] = hb;
    FEED_OK();
    kr_rules_record_init(&rec, KR_REC_LAYOUT);
    for (int i = 0; a[i]; i++)
        rec.cards[rec.n_cards++] = (kr_rules_layout_card){a[i], KR_SIDE_A, KR_ROW_UPPER, false, 0, 0};
    for (int i = 0; b[i]; i++)
        rec.cards[rec.n_cards++] = (kr_rules_layout_card){b[i], KR_SIDE_B, KR_ROW_UPPER, false, 0, 0};
    FEED_OK();
}

/* Standard field: A holds 17 57 87 4, B holds 70 22 13 46. */
static const int FA[] = {17, 57, 87, 4, 0};
static const int FB[] = {70, 22, 13, 46, 0};

static void begin(int64_t tie) { begin_full(tie, 0, FA, FB, KR_HAND_NONE, KR_HAND_NONE); }
static void begin_right(void) { begin_full(0, 0, FA, FB, KR_HAND_RIGHT, KR_HAND_RIGHT); }

static void kami(int seq, int card, int64_t t)
{
    r_init(KR_REC_KAMI_START, t);
    rec.seq = seq;
    rec.card = card;
    FEED_OK();
}

static void seqrec(kr_rules_rec_type type, int seq, int64_t t)
{
    r_init(type, t);
    rec.seq = seq;
    FEED_OK();
}

static void touch_c(int64_t t, kr_rules_side p, kr_rules_hand h, int card, kr_rules_side terr, double conf,
                    int64_t err, const char *id)
{
    r_init(KR_REC_TOUCH, t);
    rec.player = p;
    rec.hand = h;
    rec.card = card;
    rec.territory = terr;
    rec.confidence = conf;
    rec.t_err_us = err;
    if (id)
        snprintf(rec.id, sizeof rec.id, "%s", id);
    FEED_OK();
}

static void touch(int64_t t, kr_rules_side p, kr_rules_hand h, int card, kr_rules_side terr)
{
    touch_c(t, p, h, card, terr, 1.0, 0, NULL);
}

static void simple(kr_rules_rec_type type, int64_t t, kr_rules_side p, kr_rules_hand h, int card)
{
    r_init(type, t);
    rec.player = p;
    rec.hand = h;
    rec.card = card;
    FEED_OK();
}

static void send(int64_t t, kr_rules_side from, int card) { simple(KR_REC_SEND, t, from, KR_HAND_NONE, card); }
static void settle(int64_t t) { simple(KR_REC_SETTLE, t, KR_SIDE_NONE, KR_HAND_NONE, 0); }

/* kami_start at base, kimariji at base + 250 ms. */
static void open_reading(int seq, int card, int64_t base)
{
    kami(seq, card, base);
    seqrec(KR_REC_KIMARIJI, seq, base + 250000);
}

static void close_reading(int seq, int64_t base) { seqrec(KR_REC_SHIMO_START, seq, base + 5000000); }

static const kr_ruling *ruling(int i)
{
    int k = 0;
    for (int j = 0; j < n_outs; j++)
        if (outs[j].type == KR_OUT_RULING && k++ == i)
            return &outs[j].ruling;
    CU_FAIL_FATAL("ruling missing");
    return NULL;
}

static const kr_rules_match_end *match_end(void)
{
    for (int j = 0; j < n_outs; j++)
        if (outs[j].type == KR_OUT_MATCH_END)
            return &outs[j].end;
    return NULL;
}

static bool has_fault(const kr_ruling *r, kr_rules_side p, uint8_t terr)
{
    for (int i = 0; i < r->n_faults; i++)
        if (r->faults[i].player == p && r->faults[i].territories == terr)
            return true;
    return false;
}

static bool has_void(const kr_ruling *r, kr_rules_side p, kr_rules_void_reason why)
{
    for (int i = 0; i < r->n_voided; i++)
        if (r->voided[i].player == p && r->voided[i].reason == why)
            return true;
    return false;
}

#define A KR_SIDE_A
#define B KR_SIDE_B
#define L KR_HAND_LEFT
#define R KR_HAND_RIGHT
#define TA 1u
#define TB 2u

/* ---- clause 1: takes --------------------------------------------------------- */

static void test_first_valid_touch_takes_own_card(void)
{
    begin(0);
    open_reading(1, 87, 10000000); /* む, A's card */
    touch(10600000, A, R, 87, A);
    touch(10800000, B, R, 87, A);
    settle(12000000);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_TRUE(r->established && r->has_take);
    CU_ASSERT_EQUAL(r->take_player, A);
    CU_ASSERT_EQUAL(r->take_how, KR_TAKE_TOUCH);
    CU_ASSERT_TRUE(r->has_margin);
    CU_ASSERT_EQUAL(r->margin_us, 200000);
    CU_ASSERT_EQUAL(r->send_from, KR_SIDE_NONE);
    CU_ASSERT_EQUAL(r->counts[0], 3);
    CU_ASSERT_EQUAL(r->counts[1], 4);
    CU_ASSERT_FALSE(r->needs_review);
}

static void test_take_in_opponent_territory_owes_one_send(void)
{
    begin(0);
    open_reading(1, 70, 10000000); /* さ, B's card */
    touch(10600000, A, R, 70, B);
    settle(12000000);
    send(12500000, A, 57);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->take_player, A);
    CU_ASSERT_EQUAL(r->owed[0], 1);
    CU_ASSERT_EQUAL(r->owed[1], 0);
    CU_ASSERT_EQUAL(r->send_from, A);
    CU_ASSERT_EQUAL(r->send_count, 1);
    CU_ASSERT_EQUAL(r->counts[0], 3); /* 4 - 57 sent */
    CU_ASSERT_EQUAL(r->counts[1], 4); /* 4 - 70 taken + 57 */
    CU_ASSERT_EQUAL(kr_rules_location(&st, 57), B);
}

static void test_push_out_before_any_touch_takes(void)
{
    begin(0);
    open_reading(1, 87, 10000000);
    touch(10600000, B, R, 57, A); /* same territory as the read card: no fault */
    r_init(KR_REC_PUSH_OUT, 10620000);
    rec.player = B;
    rec.card = 87;
    FEED_OK();
    touch(10700000, A, R, 87, A);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->take_player, B);
    CU_ASSERT_EQUAL(r->take_how, KR_TAKE_PUSH_OUT);
    CU_ASSERT_EQUAL(r->n_faults, 0);
    CU_ASSERT_EQUAL(r->owed[1], 1);
}

static void test_touch_before_push_out_takes_by_touch(void)
{
    begin(0);
    open_reading(1, 87, 10000000);
    touch(10600000, A, R, 87, A);
    r_init(KR_REC_PUSH_OUT, 10620000);
    rec.player = B;
    rec.card = 87;
    FEED_OK();
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->take_player, A);
    CU_ASSERT_EQUAL(ruling(0)->take_how, KR_TAKE_TOUCH);
}

static void test_touches_within_tie_go_to_owner(void)
{
    begin(50000);
    open_reading(1, 17, 10000000); /* A's card */
    touch(10700000, B, R, 17, A);
    touch(10730000, A, R, 17, A);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->take_player, A);
    CU_ASSERT_EQUAL(r->take_how, KR_TAKE_SIMULTANEOUS);
    CU_ASSERT_TRUE(r->needs_review);
    CU_ASSERT_EQUAL(r->owed[0] + r->owed[1], 0);
}

static void test_touches_outside_tie_go_to_the_first(void)
{
    begin(50000);
    open_reading(1, 17, 10000000);
    touch(10700000, B, R, 17, A);
    touch(10750001, A, R, 17, A);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->take_player, B);
    CU_ASSERT_EQUAL(ruling(0)->take_how, KR_TAKE_TOUCH);
    CU_ASSERT_FALSE(ruling(0)->needs_review);
}

static void test_equal_times_with_zero_tie_are_simultaneous(void)
{
    begin(0);
    open_reading(1, 22, 10000000); /* B's card */
    touch(10700000, A, R, 22, B);
    touch(10700000, B, R, 22, B);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->take_player, B);
    CU_ASSERT_EQUAL(ruling(0)->take_how, KR_TAKE_SIMULTANEOUS);
    CU_ASSERT_TRUE(ruling(0)->needs_review);
}

/* ---- clause 2: void takes -------------------------------------------------------- */

static void test_early_entry_voids_take_and_awards_opponent_where_card_lay(void)
{
    begin_right();
    simple(KR_REC_EARLY_ENTRY, 9900000, A, R, 0);
    open_reading(1, 57, 10000000); /* A's own card */
    touch(10600000, A, R, 57, A);
    touch(10900000, B, R, 57, A);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->take_player, B);
    CU_ASSERT_EQUAL(r->take_how, KR_TAKE_AWARDED);
    CU_ASSERT_TRUE(has_void(r, A, KR_VOID_EARLY_ENTRY));
    CU_ASSERT_EQUAL(r->owed[1], 1); /* taken in A's territory */
    CU_ASSERT_EQUAL(r->send_from, B);
}

static void test_early_entry_with_the_other_hand_does_not_void(void)
{
    begin_right();
    simple(KR_REC_EARLY_ENTRY, 9900000, A, L, 0);
    open_reading(1, 57, 10000000);
    touch(10600000, A, R, 57, A);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->take_player, A);
    CU_ASSERT_EQUAL(ruling(0)->n_voided, 0);
}

static void test_early_entry_applies_only_to_the_next_reading(void)
{
    begin_right();
    simple(KR_REC_EARLY_ENTRY, 9900000, A, R, 0);
    open_reading(1, 87, 10000000);
    touch(10600000, B, R, 87, A); /* B takes reading 1 */
    close_reading(1, 10000000);
    open_reading(2, 57, 20000000);
    touch(20600000, A, R, 57, A);
    close_reading(2, 20000000);
    CU_ASSERT_EQUAL(ruling(1)->take_player, A);
    CU_ASSERT_EQUAL(ruling(1)->n_voided, 0);
}

static void test_invalid_hand_touch_on_read_card_voids_take(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10600000, A, L, 22, B);
    touch(10700000, A, R, 22, B);
    touch(10900000, B, R, 22, B);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->take_player, B);
    CU_ASSERT_EQUAL(r->take_how, KR_TAKE_AWARDED);
    CU_ASSERT_TRUE(has_void(r, A, KR_VOID_INVALID_HAND));
    CU_ASSERT_EQUAL(r->owed[0] + r->owed[1], 0);
}

static void test_invalid_hand_only_then_opponent_touch_takes_by_touch(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10600000, A, L, 22, B);
    touch(10700000, B, R, 22, B);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->take_player, B);
    CU_ASSERT_EQUAL(ruling(0)->take_how, KR_TAKE_TOUCH);
}

static void test_interference_voids_interferer_take_and_victims_fault(void)
{
    begin_right();
    open_reading(1, 22, 10000000); /* B's card */
    touch(10500000, B, R, 57, A);  /* B's fault, but A interfered with B */
    r_init(KR_REC_INTERFERENCE, 10550000);
    rec.player = A;
    rec.kind = KR_KIND_GRAB;
    FEED_OK();
    touch(10600000, A, R, 22, B);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->take_player, B);
    CU_ASSERT_EQUAL(r->take_how, KR_TAKE_AWARDED);
    CU_ASSERT_TRUE(has_void(r, A, KR_VOID_INTERFERENCE));
    CU_ASSERT_EQUAL(r->n_faults, 0);
    CU_ASSERT_EQUAL(r->owed[0] + r->owed[1], 0);
}

static void test_interferers_own_fault_stands(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10500000, A, R, 57, A); /* A faults (card in B) */
    r_init(KR_REC_INTERFERENCE, 10550000);
    rec.player = A;
    FEED_OK();
    touch(10600000, B, R, 22, B);
    close_reading(1, 10000000);
    CU_ASSERT_TRUE(has_fault(ruling(0), A, TA));
    CU_ASSERT_EQUAL(ruling(0)->owed[1], 1);
}

/* ---- clause 3: valid hand ---------------------------------------------------------- */

static void test_valid_hand_fixed_by_first_take(void)
{
    begin(0);
    open_reading(1, 70, 10000000);
    touch(10600000, A, L, 70, B);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(kr_rules_valid_hand(&st, A), KR_HAND_LEFT);
    open_reading(2, 22, 20000000);
    touch(20500000, A, R, 17, A); /* other hand: never a fault */
    touch(20700000, B, R, 22, B);
    close_reading(2, 20000000);
    CU_ASSERT_EQUAL(ruling(1)->n_faults, 0);
    CU_ASSERT_EQUAL(kr_rules_valid_hand(&st, B), KR_HAND_RIGHT);
    open_reading(3, 13, 30000000);
    touch(30500000, A, L, 87, A); /* valid hand on the wrong territory: fault */
    touch(30700000, B, R, 13, B);
    close_reading(3, 30000000);
    CU_ASSERT_TRUE(has_fault(ruling(2), A, TA));
}

static void test_valid_hand_fixed_by_first_fault(void)
{
    begin(0);
    open_reading(1, 70, 10000000);
    touch(10400000, A, R, 57, A); /* first: a fault with the right */
    touch(10600000, A, L, 70, B); /* then the left on the read card: invalid hand */
    touch(10900000, B, R, 70, B);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(kr_rules_valid_hand(&st, A), KR_HAND_RIGHT);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_TRUE(has_fault(r, A, TA));
    CU_ASSERT_TRUE(has_void(r, A, KR_VOID_INVALID_HAND));
    CU_ASSERT_EQUAL(r->take_player, B);
}

static void test_declared_hand_other_hand_never_faults(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10500000, A, L, 57, A);
    touch(10500000, B, L, 17, A);
    touch(10700000, B, R, 22, B);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->n_faults, 0);
    CU_ASSERT_EQUAL(kr_rules_valid_hand(&st, A), KR_HAND_RIGHT);
}

static void test_voided_fault_does_not_fix_valid_hand(void)
{
    begin(0);
    kami(1, 31, 10000000); /* 31 needs 6 kana: kimariji at 11.5 s */
    touch(10800000, A, L, 22, B);
    seqrec(KR_REC_READING_VOID, 1, 11000000);
    CU_ASSERT_EQUAL(kr_rules_valid_hand(&st, A), KR_HAND_NONE);
    open_reading(2, 70, 20000000);
    touch(20600000, A, R, 70, B);
    close_reading(2, 20000000);
    CU_ASSERT_EQUAL(kr_rules_valid_hand(&st, A), KR_HAND_RIGHT);
    CU_ASSERT_FALSE(ruling(0)->established);
}

/* ---- clause 4: faults ---------------------------------------------------------------- */

static void test_fault_on_territory_without_the_read_card(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10550000, A, R, 57, A);
    touch(10700000, B, R, 22, B);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->n_faults, 1);
    CU_ASSERT_TRUE(has_fault(r, A, TA));
    CU_ASSERT_EQUAL(r->faults[0].card, 57);
    CU_ASSERT_EQUAL(r->owed[1], 1);
    CU_ASSERT_EQUAL(r->send_from, B);
}

static void test_several_cards_of_one_territory_are_one_fault(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10550000, A, R, 57, A);
    touch(10560000, A, R, 17, A);
    touch(10570000, A, R, 4, A);
    touch(10700000, B, R, 22, B);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->n_faults, 1);
    CU_ASSERT_EQUAL(ruling(0)->owed[1], 1);
}

static void test_dead_card_fault_on_both_territories_is_two(void)
{
    begin_right();
    open_reading(1, 97, 10000000); /* not on the field */
    touch(10600000, A, R, 57, A);
    touch(10650000, A, R, 70, B);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->location, KR_SIDE_NONE);
    CU_ASSERT_FALSE(r->has_take);
    CU_ASSERT_TRUE(has_fault(r, A, TA | TB));
    CU_ASSERT_EQUAL(r->owed[1], 2);
    CU_ASSERT_EQUAL(r->send_count, 2);
}

static void test_dead_card_fault_on_own_territory_is_one(void)
{
    begin_right();
    open_reading(1, 97, 10000000);
    touch(10600000, B, R, 70, B);
    close_reading(1, 10000000);
    CU_ASSERT_TRUE(has_fault(ruling(0), B, TB));
    CU_ASSERT_EQUAL(ruling(0)->owed[0], 1);
}

static void test_fault_on_the_way_back_after_a_take(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10600000, A, R, 22, B);
    touch(10700000, A, R, 57, A);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->take_player, A);
    CU_ASSERT_TRUE(has_fault(r, A, TA));
    CU_ASSERT_EQUAL(r->owed[0], 1);
    CU_ASSERT_EQUAL(r->owed[1], 1);
    CU_ASSERT_EQUAL(r->send_from, KR_SIDE_NONE);
}

static void test_touch_after_settle_is_never_a_fault(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch(10600000, A, R, 87, A);
    settle(12000000);
    touch(12300000, A, R, 22, B);
    touch(12400000, B, R, 57, A);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->n_faults, 0);
}

/* ---- clause 5: reading_void ---------------------------------------------------------- */

static void test_reading_void_before_kimariji_voids_faults_and_keeps_card(void)
{
    begin(0);
    kami(1, 22, 10000000); /* ふ: 1 kana, derived kimariji at 10.25 s */
    touch(10100000, A, R, 57, A);
    seqrec(KR_REC_READING_VOID, 1, 10200000);
    kami(2, 70, 20000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_FALSE(r->established);
    CU_ASSERT_FALSE(r->has_take);
    CU_ASSERT_EQUAL(r->n_faults, 0);
    CU_ASSERT_EQUAL(r->owed[0] + r->owed[1], 0);
    CU_ASSERT_EQUAL(kr_rules_location(&st, 22), B); /* not consumed */
    CU_ASSERT_EQUAL(r->counts[1], 4);
}

static void test_reading_void_at_or_after_kimariji_stands_with_review(void)
{
    begin(0);
    kami(1, 22, 10000000);
    touch(10100000, A, R, 57, A);
    seqrec(KR_REC_READING_VOID, 1, 10250000); /* exactly at the derived kimariji */
    touch(10300000, B, R, 22, B);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_TRUE(r->established);
    CU_ASSERT_TRUE(has_fault(r, A, TA));
    CU_ASSERT_EQUAL(r->take_player, B);
    CU_ASSERT_TRUE(r->needs_review);
}

static void test_kimariji_moment_derived_from_mora(void)
{
    /* 31 needs six kana: with mora 100 ms the kimariji falls at +600 ms */
    begin_full(0, 100000, FA, FB, KR_HAND_NONE, KR_HAND_NONE);
    kami(1, 31, 10000000);
    seqrec(KR_REC_READING_VOID, 1, 10599999);
    kami(2, 31, 20000000);
    seqrec(KR_REC_READING_VOID, 2, 20600000);
    kr_rules_finish(&st);
    drain();
    CU_ASSERT_FALSE(ruling(0)->established);
    CU_ASSERT_TRUE(ruling(1)->established);
    CU_ASSERT_TRUE(ruling(1)->needs_review);
}

/* ---- clause 6: sends ----------------------------------------------------------------- */

static void test_double_take_in_opponent_territory_and_opponent_fault_sends_two(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10600000, B, R, 4, A);
    touch(10700000, A, R, 22, B);
    send(12500000, A, 57);
    send(12600000, A, 87);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->owed[0], 2);
    CU_ASSERT_EQUAL(r->send_count, 2);
    CU_ASSERT_EQUAL(r->sends_missing, 0);
    CU_ASSERT_EQUAL(r->sends_in_error, 0);
    CU_ASSERT_EQUAL(r->counts[0], 2);
    CU_ASSERT_EQUAL(r->counts[1], 5);
}

static void test_double_with_one_send_made_misses_one(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10600000, B, R, 4, A);
    touch(10700000, A, R, 22, B);
    send(12500000, A, 57);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->send_count, 2);
    CU_ASSERT_EQUAL(r->sends_missing, 1);
    CU_ASSERT_EQUAL(r->sends_in_error, 0);
    CU_ASSERT_EQUAL(r->counts[0], 3);
    CU_ASSERT_EQUAL(r->counts[1], 4);
}

static void test_both_owed_only_the_difference_is_sent(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10550000, B, R, 17, A);
    touch(10600000, A, R, 22, B);
    touch(10700000, A, R, 57, A);
    send(12500000, A, 87);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_EQUAL(r->owed[0], 2);
    CU_ASSERT_EQUAL(r->owed[1], 1);
    CU_ASSERT_EQUAL(r->send_from, A);
    CU_ASSERT_EQUAL(r->send_count, 1);
    CU_ASSERT_TRUE(r->double_fault);
    CU_ASSERT_EQUAL(r->counts[0], 3);
    CU_ASSERT_EQUAL(r->counts[1], 4);
}

static void test_send_not_made_by_shimo_start_is_lost(void)
{
    begin_right();
    open_reading(1, 22, 10000000);
    touch(10600000, A, R, 57, A);
    touch(10700000, B, R, 22, B);
    close_reading(1, 10000000);
    send(15500000, B, 70); /* after shimo_start: lost, moves nothing */
    open_reading(2, 70, 20000000);
    close_reading(2, 20000000);
    CU_ASSERT_EQUAL(ruling(0)->send_from, B);
    CU_ASSERT_EQUAL(ruling(0)->sends_missing, 1);
    CU_ASSERT_EQUAL(ruling(0)->counts[0], 4);
    CU_ASSERT_EQUAL(ruling(0)->counts[1], 3);
    CU_ASSERT_EQUAL(ruling(1)->location, B);
}

static void test_send_in_error_stands_at_shimo_start(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch(10600000, A, R, 87, A);
    send(12500000, B, 22);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->send_from, KR_SIDE_NONE);
    CU_ASSERT_EQUAL(ruling(0)->sends_missing, 0); /* nothing owed: a send in error misses nothing */
    CU_ASSERT_EQUAL(ruling(0)->sends_in_error, 1);
    CU_ASSERT_EQUAL(ruling(0)->counts[0], 4);
    CU_ASSERT_EQUAL(ruling(0)->counts[1], 3);
    CU_ASSERT_EQUAL(kr_rules_location(&st, 22), A);
}

static void test_first_of_two_cards_sent_counts(void)
{
    begin_right();
    open_reading(1, 70, 10000000);
    touch(10600000, A, R, 70, B);
    send(12500000, A, 57);
    send(12600000, A, 87);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(kr_rules_location(&st, 57), B);
    CU_ASSERT_EQUAL(kr_rules_location(&st, 87), A);
    CU_ASSERT_EQUAL(ruling(0)->sends_in_error, 1); /* owed one, sent two */
    CU_ASSERT_EQUAL(ruling(0)->counts[0], 3);
    CU_ASSERT_EQUAL(ruling(0)->counts[1], 4);
}

/* ---- clause 7: double fault ------------------------------------------------------------ */

static void test_both_players_fault_is_a_double_fault(void)
{
    begin_right();
    open_reading(1, 97, 10000000);
    touch(10600000, A, R, 57, A);
    touch(10650000, B, R, 70, B);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_TRUE(r->double_fault);
    CU_ASSERT_EQUAL(r->owed[0], 1);
    CU_ASSERT_EQUAL(r->owed[1], 1);
    CU_ASSERT_EQUAL(r->send_from, KR_SIDE_NONE);
    CU_ASSERT_FALSE(r->needs_review);
}

static void test_hand_contact_before_fault_is_double_fault_for_review(void)
{
    begin_right();
    open_reading(1, 97, 10000000);
    simple(KR_REC_HAND_CONTACT, 10600000, KR_SIDE_NONE, KR_HAND_NONE, 0);
    touch(10620000, B, R, 57, A);
    close_reading(1, 10000000);
    const kr_ruling *r = ruling(0);
    CU_ASSERT_TRUE(r->double_fault);
    CU_ASSERT_EQUAL(r->n_faults, 1);
    CU_ASSERT_EQUAL(r->owed[0], 1);
    CU_ASSERT_EQUAL(r->owed[1], 1);
    CU_ASSERT_TRUE(r->needs_review);
}

static void test_hand_contact_after_fault_is_not_double_fault(void)
{
    begin_right();
    open_reading(1, 97, 10000000);
    touch(10620000, B, R, 57, A);
    simple(KR_REC_HAND_CONTACT, 10700000, KR_SIDE_NONE, KR_HAND_NONE, 0);
    close_reading(1, 10000000);
    CU_ASSERT_FALSE(ruling(0)->double_fault);
    CU_ASSERT_EQUAL(ruling(0)->owed[0], 1);
    CU_ASSERT_EQUAL(ruling(0)->owed[1], 0);
}

/* ---- clause 8: re-read in error ----------------------------------------------------- */

static void test_reread_card_is_ruled_as_the_matching_unread_card(void)
{
    const int a[] = {87, 57, 17, 0}, b[] = {78, 22, 13, 0};
    begin_full(0, 0, a, b, KR_HAND_RIGHT, KR_HAND_RIGHT);
    open_reading(1, 45, 10000000); /* あわれ, dead */
    close_reading(1, 10000000);
    open_reading(2, 45, 20000000); /* read again: treated as 78 あわじ */
    touch(20600000, A, R, 57, A);
    touch(20700000, B, R, 78, B);
    close_reading(2, 20000000);
    const kr_ruling *r = ruling(1);
    CU_ASSERT_EQUAL(r->card, 78);
    CU_ASSERT_STRING_EQUAL(r->kimariji, "あわ");
    CU_ASSERT_EQUAL(r->location, B);
    CU_ASSERT_EQUAL(r->take_player, B);
    CU_ASSERT_EQUAL(r->n_faults, 0); /* faults in a re-read are void */
    CU_ASSERT_EQUAL(kr_rules_location(&st, 78), KR_SIDE_NONE);
}

static void test_reread_matching_no_unread_card_is_not_established(void)
{
    begin_right();
    open_reading(1, 22, 10000000); /* ふ, the only ふ card */
    touch(10600000, B, R, 22, B);
    close_reading(1, 10000000);
    open_reading(2, 22, 20000000);
    touch(20600000, A, R, 57, A);
    close_reading(2, 20000000);
    const kr_ruling *r = ruling(1);
    CU_ASSERT_FALSE(r->established);
    CU_ASSERT_EQUAL(r->n_faults, 0);
    CU_ASSERT_EQUAL(r->owed[0] + r->owed[1], 0);
    CU_ASSERT_TRUE(r->needs_review);
}

/* ---- clause 9: match end ----------------------------------------------------------------- */

static void test_match_ends_when_a_territory_is_empty(void)
{
    const int a[] = {87, 0}, b[] = {70, 22, 0};
    begin_full(0, 0, a, b, KR_HAND_RIGHT, KR_HAND_RIGHT);
    open_reading(1, 87, 10000000);
    touch(10600000, A, R, 87, A);
    close_reading(1, 10000000);
    const kr_rules_match_end *e = match_end();
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->winner, A);
    CU_ASSERT_EQUAL(e->counts[0], 0);
    CU_ASSERT_EQUAL(e->counts[1], 2);
    CU_ASSERT_EQUAL(outs[n_outs - 1].type, KR_OUT_MATCH_END);
}

static void test_last_card_with_fault_does_not_end_the_match(void)
{
    const int a[] = {87, 0}, b[] = {70, 22, 13, 0};
    begin_full(0, 0, a, b, KR_HAND_RIGHT, KR_HAND_RIGHT);
    open_reading(1, 87, 10000000);
    touch(10500000, A, R, 70, B);
    touch(10700000, A, R, 87, A);
    send(12500000, B, 22);
    close_reading(1, 10000000);
    CU_ASSERT_PTR_NULL(match_end());
    CU_ASSERT_EQUAL(ruling(0)->counts[0], 1);
    open_reading(2, 22, 20000000);
    touch(20600000, A, R, 22, A);
    settle(22000000);
    kr_rules_finish(&st);
    drain();
    CU_ASSERT_PTR_NOT_NULL_FATAL(match_end());
    CU_ASSERT_EQUAL(match_end()->winner, A);
}

static void test_empty_territory_only_through_a_lost_send_is_flagged(void)
{
    const int a[] = {87, 0}, b[] = {70, 22, 13, 0};
    begin_full(0, 0, a, b, KR_HAND_RIGHT, KR_HAND_RIGHT);
    open_reading(1, 87, 10000000);
    touch(10500000, A, R, 70, B);
    touch(10700000, A, R, 87, A);
    close_reading(1, 10000000); /* B owed A a card but did not send it */
    CU_ASSERT_PTR_NOT_NULL_FATAL(match_end());
    CU_ASSERT_TRUE(match_end()->needs_review);
}

/* ---- conventions: review ------------------------------------------------------------- */

static void test_low_confidence_deciding_touch_needs_review(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch_c(10600000, A, R, 87, A, 0.85, 0, "e1");
    close_reading(1, 10000000);
    CU_ASSERT_TRUE(ruling(0)->needs_review);
    CU_ASSERT_DOUBLE_EQUAL(ruling(0)->confidence, 0.85, 1e-9);
    CU_ASSERT_EQUAL(ruling(0)->n_evidence, 1);
    CU_ASSERT_STRING_EQUAL(ruling(0)->evidence[0], "e1");
}

static void test_confident_evidence_needs_no_review(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch_c(10600000, A, R, 87, A, 0.95, 0, "e1");
    touch_c(10900000, B, R, 17, A, 0.5, 0, "e2"); /* decides nothing */
    close_reading(1, 10000000);
    CU_ASSERT_FALSE(ruling(0)->needs_review);
}

static void test_near_simultaneous_within_timing_error_needs_review(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch_c(10600000, A, R, 87, A, 1.0, 3000, NULL);
    touch_c(10608000, B, R, 87, A, 1.0, 3000, NULL); /* 8 ms <= 2 sqrt(2) 3 ms = 8.49 ms */
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->take_player, A);
    CU_ASSERT_EQUAL(ruling(0)->take_how, KR_TAKE_TOUCH);
    CU_ASSERT_TRUE(ruling(0)->needs_review);
}

static void test_touches_beyond_timing_error_need_no_review(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch_c(10600000, A, R, 87, A, 1.0, 3000, NULL);
    touch_c(10609000, B, R, 87, A, 1.0, 3000, NULL); /* 9 ms > 8.49 ms */
    close_reading(1, 10000000);
    CU_ASSERT_FALSE(ruling(0)->needs_review);
}

static void test_card_null_touch_before_opponent_take_needs_review(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch(10550000, B, R, 0, A); /* could have been 87 */
    touch(10600000, A, R, 87, A);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->take_player, A);
    CU_ASSERT_TRUE(ruling(0)->needs_review);
}

static void test_card_null_touch_on_wrong_territory_is_a_fault_for_review(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch(10550000, B, R, 0, B);
    touch(10600000, A, R, 87, A);
    close_reading(1, 10000000);
    CU_ASSERT_TRUE(has_fault(ruling(0), B, TB));
    CU_ASSERT_EQUAL(ruling(0)->faults[0].card, 0);
    CU_ASSERT_TRUE(ruling(0)->needs_review);
}

static void test_untaken_card_on_field_leaves_owner_territory_for_review(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    close_reading(1, 10000000);
    CU_ASSERT_FALSE(ruling(0)->has_take);
    CU_ASSERT_TRUE(ruling(0)->needs_review);
    CU_ASSERT_EQUAL(ruling(0)->counts[0], 3);
}

static void test_force_majeure_gives_card_to_owner(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    simple(KR_REC_FORCE_MAJEURE, 10500000, KR_SIDE_NONE, KR_HAND_NONE, 87);
    touch(10600000, B, R, 87, A);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL(ruling(0)->take_player, A);
    CU_ASSERT_EQUAL(ruling(0)->take_how, KR_TAKE_FORCE_MAJEURE);
    CU_ASSERT_EQUAL(ruling(0)->owed[1], 0);
}

/* ---- streaming ---------------------------------------------------------------------------- */

static void test_ruling_is_final_only_at_shimo_start(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch(10600000, A, R, 87, A);
    settle(12000000);
    CU_ASSERT_EQUAL(n_outs, 0);
    seqrec(KR_REC_SHIMO_START, 1, 15000000);
    CU_ASSERT_EQUAL(n_outs, 1);
    CU_ASSERT_TRUE(ruling(0)->final);
    CU_ASSERT_EQUAL(ruling(0)->t_us, 15000000);
}

static void test_next_kami_start_or_finish_completes_a_reading(void)
{
    begin_right();
    open_reading(1, 87, 10000000);
    touch(10600000, A, R, 87, A);
    CU_ASSERT_EQUAL(n_outs, 0);
    open_reading(2, 17, 20000000);
    CU_ASSERT_EQUAL(n_outs, 1);
    touch(20600000, A, R, 17, A);
    CU_ASSERT_EQUAL(kr_rules_finish(&st), KR_RULES_OK);
    drain();
    CU_ASSERT_EQUAL(n_outs, 2);
    CU_ASSERT_EQUAL(ruling(1)->seq, 2);
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_USAGE);
}

static void test_provisional_ruling_at_settle_changes_nothing(void)
{
    const int a[] = {87, 0}, b[] = {70, 22, 0};
    kr_rules_config cfg;
    kr_rules_config_default(&cfg);
    cfg.provisional = true;
    CU_ASSERT_EQUAL_FATAL(kr_rules_reset(&st, &cfg), KR_RULES_OK);
    n_outs = 0;
    kr_rules_record_init(&rec, KR_REC_MATCH);
    FEED_OK();
    kr_rules_record_init(&rec, KR_REC_LAYOUT);
    rec.cards[rec.n_cards++] = (kr_rules_layout_card){a[0], KR_SIDE_A, KR_ROW_NONE, false, 0, 0};
    rec.cards[rec.n_cards++] = (kr_rules_layout_card){b[0], KR_SIDE_B, KR_ROW_NONE, false, 0, 0};
    rec.cards[rec.n_cards++] = (kr_rules_layout_card){b[1], KR_SIDE_B, KR_ROW_NONE, false, 0, 0};
    FEED_OK();
    open_reading(1, 87, 10000000);
    touch(10500000, A, R, 70, B); /* A's fault: B owes her a card */
    touch(10700000, A, R, 87, A);
    settle(12000000);
    CU_ASSERT_EQUAL_FATAL(n_outs, 1);
    CU_ASSERT_FALSE(outs[0].ruling.final);
    CU_ASSERT_EQUAL(outs[0].ruling.counts[0], 0);
    CU_ASSERT_PTR_NULL(match_end()); /* no match end from a provisional ruling */
    CU_ASSERT_EQUAL(kr_rules_location(&st, 87), A);
    CU_ASSERT_EQUAL(kr_rules_valid_hand(&st, A), KR_HAND_NONE);
    send(12500000, B, 22);
    close_reading(1, 10000000);
    CU_ASSERT_EQUAL_FATAL(n_outs, 2);
    CU_ASSERT_TRUE(outs[1].ruling.final);
    CU_ASSERT_EQUAL(outs[1].ruling.counts[0], 1);
    CU_ASSERT_PTR_NULL(match_end());
    CU_ASSERT_EQUAL(kr_rules_valid_hand(&st, A), KR_HAND_RIGHT);
}

static void test_same_records_give_same_rulings(void)
{
    kr_ruling first;
    for (int run = 0; run < 2; run++) {
        begin_right();
        open_reading(1, 22, 10000000);
        touch(10600000, B, R, 4, A);
        touch(10700000, A, R, 22, B);
        close_reading(1, 10000000);
        if (run == 0)
            first = *ruling(0);
    }
    CU_ASSERT_EQUAL(memcmp(&first.owed, &ruling(0)->owed, sizeof first.owed), 0);
    CU_ASSERT_EQUAL(memcmp(&first.counts, &ruling(0)->counts, sizeof first.counts), 0);
    CU_ASSERT_EQUAL(first.take_player, ruling(0)->take_player);
}

/* ---- validation --------------------------------------------------------------------------- */

static void test_duplicate_layout_card_is_rejected(void)
{
    kr_rules_reset(&st, NULL);
    kr_rules_record_init(&rec, KR_REC_MATCH);
    FEED_OK();
    kr_rules_record_init(&rec, KR_REC_LAYOUT);
    rec.cards[0] = (kr_rules_layout_card){57, KR_SIDE_A, KR_ROW_NONE, false, 0, 0};
    rec.cards[1] = (kr_rules_layout_card){57, KR_SIDE_B, KR_ROW_NONE, false, 0, 0};
    rec.n_cards = 2;
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_rules_last_error(&st), "57"));
}

static void test_out_of_range_card_is_rejected(void)
{
    begin_right();
    r_init(KR_REC_KAMI_START, 10000000);
    rec.seq = 1;
    rec.card = 101;
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_rules_last_error(&st), "out of range"));
}

static void test_time_going_backwards_is_rejected(void)
{
    begin_right();
    kami(1, 87, 10000000);
    r_init(KR_REC_SETTLE, 9999999);
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_rules_last_error(&st), "backwards"));
}

static void test_touch_on_card_off_the_field_is_rejected(void)
{
    begin_right();
    kami(1, 87, 10000000);
    r_init(KR_REC_TOUCH, 10500000);
    rec.player = A;
    rec.hand = R;
    rec.card = 99;
    rec.territory = A;
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(kr_rules_last_error(&st), "not on the field"));
}

static void test_records_before_match_and_wrong_seq_are_rejected(void)
{
    kr_rules_reset(&st, NULL);
    r_init(KR_REC_SETTLE, 0);
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
    begin_right();
    r_init(KR_REC_KAMI_START, 10000000);
    rec.seq = 2;
    rec.card = 87;
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
    kami(1, 87, 10000000);
    r_init(KR_REC_SHIMO_START, 15000000);
    rec.seq = 3;
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
}

static void test_out_of_range_config_and_timing_are_rejected(void)
{
    kr_rules_config cfg;
    kr_rules_config_default(&cfg);
    cfg.mora_us = 0;
    CU_ASSERT_EQUAL(kr_rules_reset(&st, &cfg), KR_RULES_ERR_USAGE);
    cfg.mora_us = 250000;
    cfg.tie_us = -1;
    CU_ASSERT_EQUAL(kr_rules_reset(&st, &cfg), KR_RULES_ERR_USAGE);
    cfg.tie_us = KR_RULES_MAX_CONFIG_US + 1;
    CU_ASSERT_EQUAL(kr_rules_reset(&st, &cfg), KR_RULES_ERR_USAGE);
    begin_right();
    kami(1, 87, 10000000);
    r_init(KR_REC_HAND_CONTACT, 10500000);
    rec.t_err_us = -1;
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
    r_init(KR_REC_HAND_CONTACT, INT64_MAX);
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
    r_init(KR_REC_HAND_CONTACT, 10500000);
    rec.confidence = 1.5;
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
}

static void test_rejected_record_leaves_state_unchanged(void)
{
    begin_right();
    kami(1, 87, 10000000);
    r_init(KR_REC_SEND, 10500000);
    rec.player = B;
    rec.card = 57; /* A's card */
    CU_ASSERT_EQUAL(kr_rules_feed(&st, &rec), KR_RULES_ERR_INPUT);
    CU_ASSERT_EQUAL(kr_rules_location(&st, 57), A);
    touch(10400000, A, R, 87, A); /* time did not advance to 10.5 s */
}

/* ---- kimariji ------------------------------------------------------------------------------- */

static void test_opening_kimariji_split_7_42_37_6_2_6(void)
{
    bool unread[KR_RULES_CARDS + 1];
    int hist[8] = {0};
    for (int c = 0; c <= KR_RULES_CARDS; c++)
        unread[c] = c > 0;
    for (int c = 1; c <= KR_RULES_CARDS; c++) {
        char buf[KR_RULES_KANA_MAX];
        int n = kr_rules_kimariji(c, unread, buf, sizeof buf);
        CU_ASSERT_TRUE_FATAL(n >= 1 && n <= 6);
        hist[n]++;
        CU_ASSERT_STRING_EQUAL(buf, kr_rules_poem_get(c)->kimariji);
    }
    CU_ASSERT_EQUAL(hist[1], 7);
    CU_ASSERT_EQUAL(hist[2], 42);
    CU_ASSERT_EQUAL(hist[3], 37);
    CU_ASSERT_EQUAL(hist[4], 6);
    CU_ASSERT_EQUAL(hist[5], 2);
    CU_ASSERT_EQUAL(hist[6], 6);
}

static void test_ou_and_oo_sound_alike(void)
{
    CU_ASSERT_EQUAL(kr_rules_common_sound(44, 60), 2); /* おうこ / おおえ */
    CU_ASSERT_EQUAL(kr_rules_common_sound(44, 95), 2);
    bool unread[KR_RULES_CARDS + 1];
    memset(unread, 0, sizeof unread);
    unread[44] = unread[5] = true; /* おく: shares only お */
    char buf[KR_RULES_KANA_MAX];
    CU_ASSERT_EQUAL(kr_rules_kimariji(44, unread, buf, sizeof buf), 2);
    CU_ASSERT_STRING_EQUAL(buf, "おう");
    unread[60] = true;
    CU_ASSERT_EQUAL(kr_rules_kimariji(44, unread, buf, sizeof buf), 3);
    CU_ASSERT_STRING_EQUAL(buf, "おうこ");
}

static void test_kimariji_shrinks_as_cards_are_read(void)
{
    bool unread[KR_RULES_CARDS + 1];
    char buf[KR_RULES_KANA_MAX];
    for (int c = 0; c <= KR_RULES_CARDS; c++)
        unread[c] = c > 0;
    CU_ASSERT_EQUAL(kr_rules_kimariji(64, unread, buf, sizeof buf), 6);
    unread[31] = false;
    CU_ASSERT_EQUAL(kr_rules_kimariji(64, unread, buf, sizeof buf), 3);
    CU_ASSERT_STRING_EQUAL(buf, "あさぼ");
    CU_ASSERT_EQUAL(kr_rules_kimariji(0, unread, buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(kr_rules_kimariji(64, unread, buf, 4), 0); /* too small */
}

/* The committed C table equals models/hyakunin-isshu.json. */
static void test_poem_table_equals_json(void)
{
    FILE *f = fopen("models/hyakunin-isshu.json", "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    CU_ASSERT_EQUAL_FATAL(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    cJSON *root = cJSON_Parse(buf);
    free(buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(root), KR_RULES_CARDS);
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, root)
    {
        i++;
        const kr_rules_poem *c = kr_rules_poem_get(i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_EQUAL(cJSON_GetObjectItem(p, "no")->valueint, c->no);
        CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(p, "kami")->valuestring, c->kami);
        CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(p, "shimo")->valuestring, c->shimo);
        CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(p, "kimariji")->valuestring, c->kimariji);
        CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(p, "poet")->valuestring, c->poet);
    }
    cJSON_Delete(root);
    CU_ASSERT_PTR_NULL(kr_rules_poem_get(0));
    CU_ASSERT_PTR_NULL(kr_rules_poem_get(101));
}

int main(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
#define T(x) {#x, x}
        T(test_first_valid_touch_takes_own_card),
        T(test_take_in_opponent_territory_owes_one_send),
        T(test_push_out_before_any_touch_takes),
        T(test_touch_before_push_out_takes_by_touch),
        T(test_touches_within_tie_go_to_owner),
        T(test_touches_outside_tie_go_to_the_first),
        T(test_equal_times_with_zero_tie_are_simultaneous),
        T(test_early_entry_voids_take_and_awards_opponent_where_card_lay),
        T(test_early_entry_with_the_other_hand_does_not_void),
        T(test_early_entry_applies_only_to_the_next_reading),
        T(test_invalid_hand_touch_on_read_card_voids_take),
        T(test_invalid_hand_only_then_opponent_touch_takes_by_touch),
        T(test_interference_voids_interferer_take_and_victims_fault),
        T(test_interferers_own_fault_stands),
        T(test_valid_hand_fixed_by_first_take),
        T(test_valid_hand_fixed_by_first_fault),
        T(test_declared_hand_other_hand_never_faults),
        T(test_voided_fault_does_not_fix_valid_hand),
        T(test_fault_on_territory_without_the_read_card),
        T(test_several_cards_of_one_territory_are_one_fault),
        T(test_dead_card_fault_on_both_territories_is_two),
        T(test_dead_card_fault_on_own_territory_is_one),
        T(test_fault_on_the_way_back_after_a_take),
        T(test_touch_after_settle_is_never_a_fault),
        T(test_reading_void_before_kimariji_voids_faults_and_keeps_card),
        T(test_reading_void_at_or_after_kimariji_stands_with_review),
        T(test_kimariji_moment_derived_from_mora),
        T(test_double_take_in_opponent_territory_and_opponent_fault_sends_two),
        T(test_double_with_one_send_made_misses_one),
        T(test_both_owed_only_the_difference_is_sent),
        T(test_send_not_made_by_shimo_start_is_lost),
        T(test_send_in_error_stands_at_shimo_start),
        T(test_first_of_two_cards_sent_counts),
        T(test_both_players_fault_is_a_double_fault),
        T(test_hand_contact_before_fault_is_double_fault_for_review),
        T(test_hand_contact_after_fault_is_not_double_fault),
        T(test_reread_card_is_ruled_as_the_matching_unread_card),
        T(test_reread_matching_no_unread_card_is_not_established),
        T(test_match_ends_when_a_territory_is_empty),
        T(test_last_card_with_fault_does_not_end_the_match),
        T(test_empty_territory_only_through_a_lost_send_is_flagged),
        T(test_low_confidence_deciding_touch_needs_review),
        T(test_confident_evidence_needs_no_review),
        T(test_near_simultaneous_within_timing_error_needs_review),
        T(test_touches_beyond_timing_error_need_no_review),
        T(test_card_null_touch_before_opponent_take_needs_review),
        T(test_card_null_touch_on_wrong_territory_is_a_fault_for_review),
        T(test_untaken_card_on_field_leaves_owner_territory_for_review),
        T(test_force_majeure_gives_card_to_owner),
        T(test_ruling_is_final_only_at_shimo_start),
        T(test_next_kami_start_or_finish_completes_a_reading),
        T(test_provisional_ruling_at_settle_changes_nothing),
        T(test_same_records_give_same_rulings),
        T(test_duplicate_layout_card_is_rejected),
        T(test_out_of_range_card_is_rejected),
        T(test_time_going_backwards_is_rejected),
        T(test_touch_on_card_off_the_field_is_rejected),
        T(test_records_before_match_and_wrong_seq_are_rejected),
        T(test_out_of_range_config_and_timing_are_rejected),
        T(test_rejected_record_leaves_state_unchanged),
        T(test_opening_kimariji_split_7_42_37_6_2_6),
        T(test_ou_and_oo_sound_alike),
        T(test_kimariji_shrinks_as_cards_are_read),
        T(test_poem_table_equals_json),
#undef T
    };
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("rules", NULL, NULL);
    for (size_t i = 0; s && i < sizeof tests / sizeof tests[0]; i++)
        CU_add_test(s, tests[i].name, tests[i].fn);
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
