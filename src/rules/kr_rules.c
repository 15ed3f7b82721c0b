/* kr_rules.c - the streaming rules engine: validates match-log records, collects each
 * reading's evidence in fixed-size marks and rules it at shimo_start (rulings.md 1-9).
 * SPDX-License-Identifier: MIT */
#include "kr_rules.h"
#include "kr_rules_internal.h"

#include <string.h>

#define T_NONE INT64_MAX
#define LOW_CONFIDENCE 0.9

static const char *const rec_names[KR_REC_COUNT_] = {
    "?",           "match",         "layout",       "kami_start",   "kimariji", "reading_void",
    "shimo_start", "touch",         "push_out",     "hand_contact", "early_entry", "settle",
    "send",        "rearrange",     "force_majeure", "interference"};

kr_rules_rec_type kr_rules_rec_type_from_name(const char *s)
{
    if (!s)
        return KR_REC_NONE;
    for (int i = 1; i < KR_REC_COUNT_; i++)
        if (!strcmp(s, rec_names[i]))
            return (kr_rules_rec_type)i;
    return KR_REC_NONE;
}

const char *kr_rules_rec_type_name(kr_rules_rec_type t)
{
    return (t > KR_REC_NONE && t < KR_REC_COUNT_) ? rec_names[t] : "?";
}

const char *kr_rules_how_name(kr_rules_how h)
{
    switch (h) {
    case KR_TAKE_TOUCH: return "touch";
    case KR_TAKE_PUSH_OUT: return "push_out";
    case KR_TAKE_SIMULTANEOUS: return "simultaneous";
    case KR_TAKE_AWARDED: return "awarded";
    case KR_TAKE_FORCE_MAJEURE: return "force_majeure";
    }
    return "?";
}

const char *kr_rules_void_reason_name(kr_rules_void_reason r)
{
    switch (r) {
    case KR_VOID_EARLY_ENTRY: return "early_entry";
    case KR_VOID_INVALID_HAND: return "invalid_hand";
    case KR_VOID_INTERFERENCE: return "interference";
    }
    return "?";
}

void kr_rules_record_init(kr_rules_record *rec, kr_rules_rec_type type)
{
    if (!rec)
        return;
    memset(rec, 0, sizeof *rec);
    rec->type = type;
    rec->confidence = 1.0;
}

void kr_rules_config_default(kr_rules_config *cfg)
{
    if (!cfg)
        return;
    cfg->tie_us = 0;
    cfg->mora_us = 250000;
    cfg->provisional = false;
}

/* ---- error text without stdio: "<a><number><b><number><c>" ---------------- */

static size_t put_str(char *buf, size_t pos, const char *s)
{
    while (s && *s && pos + 1 < KR_RULES_ERR_MAX)
        buf[pos++] = *s++;
    buf[pos] = '\0';
    return pos;
}

static size_t put_int(char *buf, size_t pos, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + (u % 10));
        u /= 10;
    } while (u && n < 22);
    if (v < 0)
        tmp[n++] = '-';
    while (n > 0 && pos + 1 < KR_RULES_ERR_MAX)
        buf[pos++] = tmp[--n];
    buf[pos] = '\0';
    return pos;
}

static kr_rules_status fail1(kr_rules_state *st, const char *a, int64_t n, const char *b)
{
    size_t p = put_str(st->err, 0, a);
    p = put_int(st->err, p, n);
    put_str(st->err, p, b);
    return KR_RULES_ERR_INPUT;
}

static kr_rules_status fail2(kr_rules_state *st, const char *a, int64_t n, const char *b, int64_t m,
                             const char *c)
{
    size_t p = put_str(st->err, 0, a);
    p = put_int(st->err, p, n);
    p = put_str(st->err, p, b);
    p = put_int(st->err, p, m);
    put_str(st->err, p, c);
    return KR_RULES_ERR_INPUT;
}

static kr_rules_status fail(kr_rules_state *st, const char *msg)
{
    put_str(st->err, 0, msg);
    return KR_RULES_ERR_INPUT;
}

/* ---- small helpers ---------------------------------------------------------- */

static int pidx(kr_rules_side s) { return s == KR_SIDE_B ? 1 : 0; }
static kr_rules_side opp(kr_rules_side s) { return s == KR_SIDE_A ? KR_SIDE_B : KR_SIDE_A; }
static bool is_side(kr_rules_side s) { return s == KR_SIDE_A || s == KR_SIDE_B; }
static bool is_hand(kr_rules_hand h) { return h == KR_HAND_LEFT || h == KR_HAND_RIGHT; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static void mark_clear(kr_rules__mark *m)
{
    memset(m, 0, sizeof *m);
    m->t = T_NONE;
}

/* Keeps the first occurrence; later ones only add "a card was named". */
static void mark_hit(kr_rules__mark *m, const kr_rules_record *r)
{
    if (r->card)
        m->nonnull = true;
    if (m->t != T_NONE)
        return;
    m->t = r->t_us;
    m->t_err = r->t_err_us;
    m->conf = r->confidence;
    m->card = r->card;
    memcpy(m->id, r->id, sizeof m->id);
    m->id[KR_RULES_ID_MAX - 1] = '\0';
}

kr_rules_status kr_rules_reset(kr_rules_state *st, const kr_rules_config *cfg)
{
    if (!st)
        return KR_RULES_ERR_USAGE;
    memset(st, 0, sizeof *st);
    kr_rules_config_default(&st->cfg);
    if (cfg) {
        if (cfg->tie_us < 0 || cfg->tie_us > KR_RULES_MAX_CONFIG_US || cfg->mora_us <= 0 ||
            cfg->mora_us > KR_RULES_MAX_CONFIG_US) {
            put_str(st->err, 0, "tie_us must be 0 ... 1e9 us and mora_us 1 ... 1e9 us");
            return KR_RULES_ERR_USAGE;
        }
        st->cfg = *cfg;
    }
    st->last_t = INT64_MIN;
    for (int c = 0; c <= KR_RULES_CARDS; c++) {
        st->loc[c] = KR_SIDE_NONE;
        st->unread[c] = c > 0;
    }
    for (int p = 0; p < 2; p++)
        mark_clear(&st->pend_early[p]);
    return KR_RULES_OK;
}

const char *kr_rules_last_error(const kr_rules_state *st) { return st ? st->err : "no state"; }

bool kr_rules_is_unread(const kr_rules_state *st, int32_t card)
{
    return st && card >= 1 && card <= KR_RULES_CARDS && st->unread[card];
}

int32_t kr_rules_count(const kr_rules_state *st, kr_rules_side side)
{
    int32_t n = 0;
    if (!st || !is_side(side))
        return 0;
    for (int c = 1; c <= KR_RULES_CARDS; c++)
        n += st->loc[c] == side;
    return n;
}

kr_rules_side kr_rules_location(const kr_rules_state *st, int32_t card)
{
    if (!st || card < 1 || card > KR_RULES_CARDS)
        return KR_SIDE_NONE;
    return st->loc[card];
}

kr_rules_hand kr_rules_valid_hand(const kr_rules_state *st, kr_rules_side player)
{
    if (!st || !is_side(player))
        return KR_HAND_NONE;
    return st->valid[pidx(player)];
}

bool kr_rules_next(kr_rules_state *st, kr_rules_output *out)
{
    if (!st || !out || st->n_out == 0)
        return false;
    *out = st->out[st->out_head];
    st->out_head = (st->out_head + 1) % 4;
    st->n_out--;
    return true;
}

static kr_rules_output *push_out(kr_rules_state *st)
{
    kr_rules_output *o = &st->out[(st->out_head + st->n_out) % 4];
    st->n_out++;
    memset(o, 0, sizeof *o);
    return o;
}

/* ---- ruling assembly ----------------------------------------------------------- */

static void review(kr_ruling *r, const char *why)
{
    for (int i = 0; i < r->n_review; i++)
        if (r->review[i] == why)
            return;
    if (r->n_review < KR_RULES_MAX_REVIEW)
        r->review[r->n_review++] = why;
    r->needs_review = true;
}

/* Cites a mark as evidence: its id (if any) and its confidence. */
static void cite(kr_ruling *r, const kr_rules__mark *m)
{
    if (m->t == T_NONE)
        return;
    if (m->conf < r->confidence)
        r->confidence = m->conf;
    if (!m->id[0])
        return;
    for (int i = 0; i < r->n_evidence; i++)
        if (!strcmp(r->evidence[i], m->id))
            return;
    if (r->n_evidence < KR_RULES_MAX_EVIDENCE)
        memcpy(r->evidence[r->n_evidence++], m->id, KR_RULES_ID_MAX);
}

/* First touch on the read card by player pi with hand (NONE: either hand). */
static const kr_rules__mark *read_touch(const kr_rules__reading *rd, int pi, kr_rules_hand h)
{
    const kr_rules__mark *l = &rd->marks[pi][0][0], *r = &rd->marks[pi][1][0];
    if (h == KR_HAND_LEFT)
        return l;
    if (h == KR_HAND_RIGHT)
        return r;
    return l->t <= r->t ? l : r;
}

static kr_rules_hand other_hand(kr_rules_hand h)
{
    return h == KR_HAND_LEFT ? KR_HAND_RIGHT : h == KR_HAND_RIGHT ? KR_HAND_LEFT : KR_HAND_NONE;
}

/* Rules the open reading (final at t) and queues its ruling, then the match end. */
static void finalise(kr_rules_state *st, int64_t t)
{
    kr_rules__reading *rd = &st->rd;
    kr_rules_output *o = push_out(st);
    kr_ruling *R = &o->ruling;
    o->type = KR_OUT_RULING;
    R->seq = rd->seq;
    R->card = rd->card ? rd->card : rd->read_card;
    memcpy(R->kimariji, rd->kimariji, sizeof R->kimariji);
    R->location = rd->card ? rd->location : KR_SIDE_NONE;
    R->established = !rd->voided && rd->card != 0;
    R->confidence = 1.0;
    R->final = true;
    R->t_us = t;

    int32_t count[2] = {0, 0}, deemed[2] = {0, 0};
    if (rd->card == 0)
        review(R, "the card re-read in error matches no unread card: reading not established");
    if (rd->void_late)
        review(R, "reading_void at or after the kimariji: the reading stands");

    if (R->established) {
        bool faults_void[2];
        kr_rules_hand hand[2];
        int64_t a_t[2], vt[2], it[2];
        const kr_rules__mark *vmark[2];
        for (int p = 0; p < 2; p++) {
            /* rule 8: faults in a re-read are void; rule 2: the interfered-with player's are */
            faults_void[p] = rd->reread || rd->interf[1 - p].t != T_NONE;
            hand[p] = st->valid[p];
            a_t[p] = min64(read_touch(rd, p, KR_HAND_NONE)->t, rd->push[p].t);
        }

        /* rule 1: the earliest attempt on the read card takes; ties go to the owner */
        kr_rules_side taker = KR_SIDE_NONE;
        bool tie = false;
        if (a_t[0] != T_NONE || a_t[1] != T_NONE) {
            if (a_t[0] != T_NONE && a_t[1] != T_NONE) {
                int64_t d = a_t[0] > a_t[1] ? a_t[0] - a_t[1] : a_t[1] - a_t[0];
                if (d <= st->cfg.tie_us) {
                    tie = true;
                    taker = is_side(rd->location) ? rd->location : KR_SIDE_A;
                } else {
                    taker = a_t[0] < a_t[1] ? KR_SIDE_A : KR_SIDE_B;
                }
            } else {
                taker = a_t[0] != T_NONE ? KR_SIDE_A : KR_SIDE_B;
            }
        }
        bool force = rd->force.t != T_NONE && rd->force.t < min64(a_t[0], a_t[1]);

        /* rule 3: an unfixed valid hand is fixed by the first take or (standing) fault */
        for (int p = 0; p < 2; p++) {
            if (hand[p] != KR_HAND_NONE)
                continue;
            int64_t ft = T_NONE;
            kr_rules_hand fh = KR_HAND_NONE;
            if (!faults_void[p])
                for (int h = 0; h < 2; h++)
                    for (int k = 1; k < 3; k++)
                        if (rd->marks[p][h][k].t < ft) {
                            ft = rd->marks[p][h][k].t;
                            fh = (kr_rules_hand)(h + 1);
                        }
            const kr_rules__mark *tm = read_touch(rd, p, KR_HAND_NONE);
            bool takes = !force && taker != KR_SIDE_NONE && pidx(taker) == p && tm->t != T_NONE &&
                         tm->t <= rd->push[p].t;
            if (takes && tm->t < ft)
                hand[p] = tm == &rd->marks[p][0][0] ? KR_HAND_LEFT : KR_HAND_RIGHT;
            else if (ft != T_NONE)
                hand[p] = fh;
            st->valid[p] = hand[p];
        }
        for (int p = 0; p < 2; p++) {
            vmark[p] = read_touch(rd, p, hand[p]);
            vt[p] = vmark[p]->t;
            it[p] = hand[p] != KR_HAND_NONE ? read_touch(rd, p, other_hand(hand[p]))->t : T_NONE;
        }

        /* rules 1 and 2: the take, and whether it is void */
        if (force) {
            R->has_take = is_side(rd->location);
            R->take_player = rd->location;
            R->take_how = KR_TAKE_FORCE_MAJEURE;
            R->take_t_us = rd->force.t;
            cite(R, &rd->force);
        } else if (taker != KR_SIDE_NONE) {
            int p = pidx(taker);
            const kr_rules__mark *am = rd->push[p].t < read_touch(rd, p, KR_HAND_NONE)->t
                                           ? &rd->push[p]
                                           : read_touch(rd, p, KR_HAND_NONE);
            cite(R, am);
            kr_rules_void_reason why = 0;
            uint8_t eh = rd->early_hands[p];
            if (rd->early[p].t != T_NONE &&
                (hand[p] == KR_HAND_NONE || (eh & 1u) || (eh & (1u << hand[p])))) {
                why = KR_VOID_EARLY_ENTRY;
                cite(R, &rd->early[p]);
            } else if (it[p] != T_NONE && it[p] <= vt[p]) {
                why = KR_VOID_INVALID_HAND;
            } else if (rd->interf[p].t != T_NONE) {
                why = KR_VOID_INTERFERENCE;
                cite(R, &rd->interf[p]);
            }
            R->has_take = true;
            if (why) {
                int q = 1 - p;
                R->voided[R->n_voided].player = taker;
                R->voided[R->n_voided++].reason = why;
                R->take_player = opp(taker);
                if (vt[q] != T_NONE && vt[q] < vt[p]) {
                    R->take_how = KR_TAKE_TOUCH;
                    R->take_t_us = vt[q];
                    cite(R, vmark[q]);
                } else {
                    R->take_how = KR_TAKE_AWARDED;
                    R->take_t_us = a_t[p];
                }
                uint8_t qh = rd->early_hands[q];
                if (rd->interf[q].t != T_NONE ||
                    (rd->early[q].t != T_NONE &&
                     (hand[q] == KR_HAND_NONE || (qh & 1u) || (qh & (1u << hand[q])))))
                    review(R, "both players' takes are void");
            } else {
                R->take_player = taker;
                R->take_how = tie ? KR_TAKE_SIMULTANEOUS
                              : am == &rd->push[p] ? KR_TAKE_PUSH_OUT
                                                   : KR_TAKE_TOUCH;
                R->take_t_us = am->t;
            }
            if (tie)
                review(R, "touches within the tie tolerance: given to the owner");
            int64_t ot = read_touch(rd, pidx(opp(R->take_player)), KR_HAND_NONE)->t;
            if (ot != T_NONE) {
                R->has_margin = true;
                R->margin_us = ot - R->take_t_us;
            }
            /* near-simultaneous: within max(tie, 2 sqrt(e1^2 + e2^2)) */
            if (vt[0] != T_NONE && vt[1] != T_NONE) {
                double d = (double)(vt[0] > vt[1] ? vt[0] - vt[1] : vt[1] - vt[0]);
                double e1 = (double)vmark[0]->t_err, e2 = (double)vmark[1]->t_err;
                if (d <= (double)st->cfg.tie_us || d * d <= 4.0 * (e1 * e1 + e2 * e2))
                    review(R, "near-simultaneous touches");
            }
        } else if (is_side(rd->location)) {
            review(R, "the read card lay on the field and nobody took it");
        }
        if (R->has_take) {
            for (int p = 0; p < 2; p++) {
                /* a card:null touch in the read card's territory before the take may have been it */
                if (rd->null_read[p].t != T_NONE && pidx(R->take_player) != p &&
                    rd->null_read[p].t <= R->take_t_us + st->cfg.tie_us) {
                    review(R, "a card:null touch may decide the take");
                    cite(R, &rd->null_read[p]);
                }
            }
        }

        /* rule 4: faults with the valid hand on a territory not holding the read card */
        int64_t first_fault[2] = {T_NONE, T_NONE};
        for (int p = 0; p < 2; p++) {
            if (faults_void[p] || hand[p] == KR_HAND_NONE)
                continue;
            const kr_rules__mark *fa = &rd->marks[p][hand[p] - 1][1], *fb = &rd->marks[p][hand[p] - 1][2];
            uint8_t terr = (uint8_t)((fa->t != T_NONE ? 1u : 0u) | (fb->t != T_NONE ? 2u : 0u));
            if (!terr)
                continue;
            const kr_rules__mark *first = fa->t <= fb->t ? fa : fb;
            kr_rules_fault *f = &R->faults[R->n_faults++];
            f->player = (kr_rules_side)(p + 1);
            f->territories = terr;
            f->t_us = first->t;
            f->card = first->card;
            first_fault[p] = first->t;
            count[p] = (terr & 1u) + ((terr >> 1) & 1u);
            for (int k = 0; k < 2; k++) {
                const kr_rules__mark *m = k ? fb : fa;
                if (m->t == T_NONE)
                    continue;
                cite(R, m);
                if (!m->nonnull)
                    review(R, "a card:null touch decides a fault");
            }
        }
        /* rule 7: a fault at or after a hand contact in the same reading */
        if (rd->contact.t != T_NONE) {
            for (int p = 0; p < 2; p++) {
                if (count[p] > 0 && first_fault[p] >= rd->contact.t) {
                    R->double_fault = true;
                    review(R, "hand contact before a fault: double fault (rule 7)");
                    cite(R, &rd->contact);
                    if (count[1 - p] == 0)
                        deemed[1 - p] = 1;
                }
            }
        }
        if (count[0] > 0 && count[1] > 0)
            R->double_fault = true;

        /* rule 6: what each player is owed, then the net send */
        if (R->has_take && is_side(rd->location) && R->take_player != rd->location)
            R->owed[pidx(R->take_player)] += 1;
        for (int p = 0; p < 2; p++)
            R->owed[p] += count[1 - p] > 0 ? count[1 - p] : deemed[1 - p];
        if (R->owed[0] != R->owed[1]) {
            R->send_from = R->owed[0] > R->owed[1] ? KR_SIDE_A : KR_SIDE_B;
            R->send_count = R->owed[0] > R->owed[1] ? R->owed[0] - R->owed[1] : R->owed[1] - R->owed[0];
        }

        /* the read card leaves the field (taken, or from its owner's territory) */
        st->loc[rd->card] = KR_SIDE_NONE;
        st->unread[rd->card] = false;
    }

    /* rule 6: sends made by shimo_start count up to the entitlement; one made in error stands */
    bool lost_to[2] = {false, false};
    for (int p = 0; p < 2; p++) {
        int32_t ent = pidx(R->send_from) == p && R->send_from != KR_SIDE_NONE ? R->send_count : 0;
        int32_t allow = ent > 0 ? ent : 1;
        int32_t n = rd->n_sends[p] < allow ? rd->n_sends[p] : allow;
        for (int i = 0; i < n; i++) {
            int32_t c = rd->sends[p][i];
            if (st->loc[c] == (kr_rules_side)(p + 1))
                st->loc[c] = opp((kr_rules_side)(p + 1));
        }
        if (n < ent) {
            lost_to[1 - p] = true;
            R->sends_missing = ent - n;
        }
        if (rd->n_sends[p] > ent)
            R->sends_in_error += rd->n_sends[p] - ent;
    }
    R->counts[0] = kr_rules_count(st, KR_SIDE_A);
    R->counts[1] = kr_rules_count(st, KR_SIDE_B);
    if (R->confidence < LOW_CONFIDENCE)
        review(R, "evidence with confidence below 0.9 decides the ruling");

    /* rule 9: a territory empty once the reading is final ends the match */
    if (R->counts[0] == 0 || R->counts[1] == 0) {
        kr_rules_output *e = push_out(st);
        e->type = KR_OUT_MATCH_END;
        e->end.winner = R->counts[0] == 0 ? KR_SIDE_A : KR_SIDE_B;
        if (R->counts[0] == 0 && R->counts[1] == 0) {
            e->end.winner = R->has_take ? R->take_player : KR_SIDE_A;
            review(R, "both territories are empty");
        }
        if (lost_to[pidx(e->end.winner)])
            review(R, "the territory is empty only because a send owed to it was not made");
        e->end.needs_review = R->needs_review;
        e->end.counts[0] = R->counts[0];
        e->end.counts[1] = R->counts[1];
        e->end.t_us = t;
        st->ended = true;
    }
    rd->active = false;
}

/* A provisional ruling at settle: rules the reading as if it ended now, queues the
 * ruling with final = false and puts the match state back (no match end). */
static void preview(kr_rules_state *st, int64_t t)
{
    kr_rules_side loc[KR_RULES_CARDS + 1];
    bool unread[KR_RULES_CARDS + 1];
    kr_rules_hand valid[2] = {st->valid[0], st->valid[1]};
    bool ended = st->ended;
    int32_t n_before = st->n_out;
    memcpy(loc, st->loc, sizeof loc);
    memcpy(unread, st->unread, sizeof unread);
    finalise(st, t);
    st->out[(st->out_head + n_before) % 4].ruling.final = false;
    st->n_out = n_before + 1;
    memcpy(st->loc, loc, sizeof loc);
    memcpy(st->unread, unread, sizeof unread);
    st->valid[0] = valid[0];
    st->valid[1] = valid[1];
    st->ended = ended;
    st->rd.active = true;
}

/* ---- reading start ---------------------------------------------------------------- */

static void begin_reading(kr_rules_state *st, const kr_rules_record *r)
{
    kr_rules__reading *rd = &st->rd;
    memset(rd, 0, sizeof *rd);
    kr_rules__mark *all[] = {&rd->push[0], &rd->push[1], &rd->null_read[0], &rd->null_read[1],
                             &rd->contact, &rd->force, &rd->interf[0], &rd->interf[1]};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        mark_clear(all[i]);
    for (int p = 0; p < 2; p++) {
        for (int h = 0; h < 2; h++)
            for (int k = 0; k < 3; k++)
                mark_clear(&rd->marks[p][h][k]);
        rd->early[p] = st->pend_early[p];
        rd->early_hands[p] = st->pend_early_hands[p];
        mark_clear(&st->pend_early[p]);
        st->pend_early_hands[p] = 0;
    }
    rd->active = rd->in_play = true;
    rd->seq = r->seq;
    rd->read_card = r->card;
    rd->kami_t = r->t_us;
    if (st->unread[r->card]) {
        rd->card = r->card;
        rd->kima_len = kr_rules_kimariji(r->card, st->unread, rd->kimariji, sizeof rd->kimariji);
    } else {
        /* rule 8: re-read in error; follow the kana as read until one unread card (or none) remains */
        rd->reread = true;
        int n = kr_rules_kana_count(r->card);
        for (int len = 1; len <= n; len++) {
            int32_t match = 0, nmatch = 0;
            for (int32_t c = 1; c <= KR_RULES_CARDS; c++)
                if (st->unread[c] && kr_rules_common_sound(r->card, c) >= len) {
                    match = c;
                    nmatch++;
                }
            if (nmatch <= 1 || len == n) {
                rd->card = nmatch == 1 ? match : 0;
                rd->kima_len = kr_rules_kana_prefix(nmatch == 1 ? match : r->card, len, rd->kimariji,
                                                    sizeof rd->kimariji);
                break;
            }
        }
    }
    rd->location = rd->card ? st->loc[rd->card] : KR_SIDE_NONE;
}

/* ---- feed ------------------------------------------------------------------------------ */

static kr_rules_status check_card(kr_rules_state *st, int32_t card, bool null_ok)
{
    if (card == 0 && null_ok)
        return KR_RULES_OK;
    if (card < 1 || card > KR_RULES_CARDS)
        return fail1(st, "card ", card, " is out of range (1 ... 100)");
    return KR_RULES_OK;
}

static kr_rules_status not_on_field(kr_rules_state *st, const kr_rules_record *r)
{
    size_t p = put_str(st->err, 0, kr_rules_rec_type_name(r->type));
    p = put_str(st->err, p, " on card ");
    p = put_int(st->err, p, r->card);
    put_str(st->err, p, ", which is not on the field");
    return KR_RULES_ERR_INPUT;
}

static kr_rules_status need_player(kr_rules_state *st, const kr_rules_record *r, const char *field)
{
    if (is_side(r->player))
        return KR_RULES_OK;
    size_t p = put_str(st->err, 0, kr_rules_rec_type_name(r->type));
    p = put_str(st->err, p, ": \"");
    p = put_str(st->err, p, field);
    put_str(st->err, p, "\" must be \"A\" or \"B\"");
    return KR_RULES_ERR_INPUT;
}

static kr_rules_status check_seq(kr_rules_state *st, const kr_rules_record *r)
{
    if (!st->rd.active) {
        size_t p = put_str(st->err, 0, kr_rules_rec_type_name(r->type));
        p = put_str(st->err, p, " for seq ");
        p = put_int(st->err, p, r->seq);
        put_str(st->err, p, " but no reading is in progress");
        return KR_RULES_ERR_INPUT;
    }
    if (r->seq != st->rd.seq) {
        size_t p = put_str(st->err, 0, kr_rules_rec_type_name(r->type));
        p = put_str(st->err, p, " for seq ");
        p = put_int(st->err, p, r->seq);
        p = put_str(st->err, p, " but reading ");
        p = put_int(st->err, p, st->rd.seq);
        put_str(st->err, p, " is in progress");
        return KR_RULES_ERR_INPUT;
    }
    return KR_RULES_OK;
}

/* Validates r against the state without changing it. */
static kr_rules_status validate(kr_rules_state *st, const kr_rules_record *r)
{
    kr_rules_status s;
    if (r->type <= KR_REC_NONE || r->type >= KR_REC_COUNT_)
        return fail1(st, "unknown record type ", (int64_t)r->type, "");
    if (r->type == KR_REC_MATCH) {
        if (st->have_match)
            return fail(st, "a second match record (match comes first, once)");
        for (int p = 0; p < 2; p++)
            if (r->declared[p] != KR_HAND_NONE && !is_hand(r->declared[p]))
                return fail(st, "match: a declared hand must be \"left\" or \"right\"");
        return KR_RULES_OK;
    }
    if (!st->have_match)
        return fail(st, "the first record must be the match record");
    if (r->type != KR_REC_LAYOUT && !r->has_t)
        return fail(st, "missing \"t_us\"");
    if (r->has_t && r->t_us < st->last_t)
        return fail2(st, "time goes backwards (t_us ", r->t_us, " after ", st->last_t, ")");
    if (r->confidence < 0.0 || r->confidence > 1.0 || r->confidence != r->confidence)
        return fail(st, "confidence must be between 0 and 1");
    if (r->t_err_us < 0 || r->t_err_us > KR_RULES_MAX_T_US)
        return fail(st, "t_err_us must be between 0 and 4e15");
    if (r->has_t && (r->t_us < -KR_RULES_MAX_T_US || r->t_us > KR_RULES_MAX_T_US))
        return fail(st, "t_us must be between -4e15 and 4e15");
    if (st->ended)
        return KR_RULES_OK; /* after the match end records are only checked for order */
    switch (r->type) {
    case KR_REC_LAYOUT: {
        bool seen[KR_RULES_CARDS + 1];
        if (st->have_layout)
            return fail(st, "a second layout record");
        if (st->last_seq > 0)
            return fail(st, "layout after the first reading");
        if (r->n_cards < 0 || r->n_cards > KR_RULES_CARDS)
            return fail1(st, "layout has ", r->n_cards, " cards (at most 100)");
        memset(seen, 0, sizeof seen);
        for (int i = 0; i < r->n_cards; i++) {
            int32_t c = r->cards[i].card;
            if ((s = check_card(st, c, false)) != KR_RULES_OK)
                return s;
            if (seen[c])
                return fail1(st, "layout: card ", c, " appears twice");
            if (!is_side(r->cards[i].owner))
                return fail1(st, "layout: card ", c, " has no owner \"A\" or \"B\"");
            seen[c] = true;
        }
        return KR_RULES_OK;
    }
    case KR_REC_KAMI_START:
        if (!st->have_layout)
            return fail(st, "kami_start before the layout");
        if ((s = check_card(st, r->card, false)) != KR_RULES_OK)
            return s;
        if (r->seq != st->last_seq + 1)
            return fail2(st, "kami_start seq ", r->seq, " does not follow seq ", st->last_seq, "");
        return KR_RULES_OK;
    case KR_REC_KIMARIJI:
    case KR_REC_READING_VOID:
    case KR_REC_SHIMO_START:
        return check_seq(st, r);
    case KR_REC_TOUCH:
        if ((s = need_player(st, r, "player")) != KR_RULES_OK)
            return s;
        if (!is_hand(r->hand))
            return fail(st, "touch: \"hand\" must be \"left\" or \"right\"");
        if (!is_side(r->territory))
            return fail(st, "touch: \"territory\" must be \"A\" or \"B\"");
        if ((s = check_card(st, r->card, true)) != KR_RULES_OK)
            return s;
        return r->card && st->loc[r->card] == KR_SIDE_NONE ? not_on_field(st, r) : KR_RULES_OK;
    case KR_REC_PUSH_OUT:
    case KR_REC_REARRANGE:
        if ((s = need_player(st, r, "player")) != KR_RULES_OK)
            return s;
        if ((s = check_card(st, r->card, false)) != KR_RULES_OK)
            return s;
        return st->loc[r->card] == KR_SIDE_NONE ? not_on_field(st, r) : KR_RULES_OK;
    case KR_REC_FORCE_MAJEURE:
        if ((s = check_card(st, r->card, false)) != KR_RULES_OK)
            return s;
        return st->loc[r->card] == KR_SIDE_NONE ? not_on_field(st, r) : KR_RULES_OK;
    case KR_REC_SEND:
        if ((s = need_player(st, r, "from")) != KR_RULES_OK)
            return s;
        if ((s = check_card(st, r->card, false)) != KR_RULES_OK)
            return s;
        if (st->loc[r->card] == KR_SIDE_NONE)
            return not_on_field(st, r);
        if (st->loc[r->card] != r->player)
            return fail1(st, "send: card ", r->card,
                         r->player == KR_SIDE_A ? " is not in A's territory" : " is not in B's territory");
        if (st->rd.active && r->card == st->rd.card)
            return fail1(st, "send: card ", r->card, " is the card being read");
        if (st->rd.active)
            for (int i = 0; i < st->rd.n_sends[pidx(r->player)]; i++)
                if (st->rd.sends[pidx(r->player)][i] == r->card)
                    return fail1(st, "send: card ", r->card, " is sent twice in one reading");
        return KR_RULES_OK;
    case KR_REC_EARLY_ENTRY:
        if (r->hand != KR_HAND_NONE && !is_hand(r->hand))
            return fail(st, "early_entry: \"hand\" must be \"left\" or \"right\"");
        return need_player(st, r, "player");
    case KR_REC_INTERFERENCE:
        return need_player(st, r, "player");
    default:
        return KR_RULES_OK;
    }
}

kr_rules_status kr_rules_feed(kr_rules_state *st, const kr_rules_record *r)
{
    if (!st || !r)
        return KR_RULES_ERR_USAGE;
    if (st->finished) {
        put_str(st->err, 0, "record fed after kr_rules_finish");
        return KR_RULES_ERR_USAGE;
    }
    if (st->n_out > 2) {
        put_str(st->err, 0, "outputs not drained with kr_rules_next");
        return KR_RULES_ERR_USAGE;
    }
    st->err[0] = '\0';
    kr_rules_status s = validate(st, r);
    if (s != KR_RULES_OK)
        return s;
    if (r->has_t && r->type != KR_REC_MATCH)
        st->last_t = r->t_us;
    kr_rules__reading *rd = &st->rd;
    bool play = rd->active && rd->in_play;
    if (r->type == KR_REC_MATCH) {
        st->have_match = true;
        st->valid[0] = r->declared[0];
        st->valid[1] = r->declared[1];
        return KR_RULES_OK;
    }
    if (st->ended)
        return KR_RULES_OK;
    switch (r->type) {
    case KR_REC_LAYOUT:
        st->have_layout = true;
        for (int i = 0; i < r->n_cards; i++)
            st->loc[r->cards[i].card] = r->cards[i].owner;
        break;
    case KR_REC_KAMI_START:
        if (rd->active)
            finalise(st, r->t_us);
        st->last_seq = r->seq;
        if (!st->ended)
            begin_reading(st, r);
        break;
    case KR_REC_KIMARIJI:
        if (!rd->has_kima_t && !rd->voided) {
            rd->has_kima_t = true;
            rd->kima_t = r->t_us;
        }
        break;
    case KR_REC_READING_VOID:
        if (!rd->voided && !rd->void_late) {
            int64_t kt = rd->has_kima_t ? rd->kima_t : rd->kami_t + (int64_t)rd->kima_len * st->cfg.mora_us;
            if (r->t_us < kt) {
                rd->voided = true;
                rd->in_play = false;
            } else {
                rd->void_late = true;
            }
        }
        break;
    case KR_REC_SHIMO_START:
        finalise(st, r->t_us);
        break;
    case KR_REC_TOUCH:
        if (play) {
            int p = pidx(r->player), h = r->hand - 1;
            if (r->card != 0 && r->card == rd->card)
                mark_hit(&rd->marks[p][h][0], r);
            else if (r->card == 0 && r->territory == rd->location)
                mark_hit(&rd->null_read[p], r);
            else if (r->territory != rd->location)
                mark_hit(&rd->marks[p][h][r->territory == KR_SIDE_A ? 1 : 2], r);
        }
        break;
    case KR_REC_PUSH_OUT:
        if (play && r->card == rd->card)
            mark_hit(&rd->push[pidx(r->player)], r);
        break;
    case KR_REC_HAND_CONTACT:
        if (play)
            mark_hit(&rd->contact, r);
        break;
    case KR_REC_EARLY_ENTRY:
        if (!play) {
            mark_hit(&st->pend_early[pidx(r->player)], r);
            st->pend_early_hands[pidx(r->player)] |= (uint8_t)(1u << r->hand);
        }
        break;
    case KR_REC_SETTLE:
        if (rd->active && rd->in_play && st->cfg.provisional && !rd->voided)
            preview(st, r->t_us);
        if (rd->active)
            rd->in_play = false;
        break;
    case KR_REC_SEND:
        if (rd->active) {
            int p = pidx(r->player);
            if (rd->n_sends[p] < KR_RULES_MAX_SENDS)
                rd->sends[p][rd->n_sends[p]++] = r->card;
        }
        break;
    case KR_REC_FORCE_MAJEURE:
        if (play && r->card == rd->card)
            mark_hit(&rd->force, r);
        break;
    case KR_REC_INTERFERENCE:
        if (rd->active)
            mark_hit(&rd->interf[pidx(r->player)], r);
        break;
    default:
        break;
    }
    return KR_RULES_OK;
}

kr_rules_status kr_rules_finish(kr_rules_state *st)
{
    if (!st)
        return KR_RULES_ERR_USAGE;
    if (st->finished)
        return KR_RULES_OK;
    if (st->n_out > 2) {
        put_str(st->err, 0, "outputs not drained with kr_rules_next");
        return KR_RULES_ERR_USAGE;
    }
    if (st->rd.active && !st->ended)
        finalise(st, st->last_t);
    st->finished = true;
    return KR_RULES_OK;
}
