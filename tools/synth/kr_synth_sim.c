/* kr_synth_sim.c - the simulation: hand paths from actions (Hermite keys), card
 * motion (rest / slide with friction / carried), and the exact truth events found
 * by stepping 0.5 ms and bisecting every state change to the microsecond.
 * SPDX-License-Identifier: MIT                                                 */
#include "kr_synth_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEP_US 500
#define Z_CONTACT 1e-12   /* a hand touches only at height exactly 0 */
#define PUSH_SPEED 150.0  /* mm/s: slower contacts press, faster ones push the card */

/* ---- hand paths ---- */

/* Cubic Hermite between keys a and b at time t. */
static void hermite(const kr_synth_key *a, const kr_synth_key *b, double t, double p[3], double v[3])
{
    double dt = b->t - a->t;
    double s = dt > 0 ? (t - a->t) / dt : 1.0;
    if (s < 0) s = 0;
    if (s > 1) s = 1;
    double s2 = s * s, s3 = s2 * s;
    double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    double d00 = 6 * s2 - 6 * s, d10 = 3 * s2 - 4 * s + 1, d01 = -6 * s2 + 6 * s, d11 = 3 * s2 - 2 * s;
    const double pa[3] = {a->x, a->y, a->z}, pb[3] = {b->x, b->y, b->z};
    const double va[3] = {a->vx, a->vy, a->vz}, vb[3] = {b->vx, b->vy, b->vz};
    for (int i = 0; i < 3; i++) {
        p[i] = h00 * pa[i] + h10 * dt * va[i] + h01 * pb[i] + h11 * dt * vb[i];
        if (v)
            v[i] = dt > 0 ? (d00 * pa[i] + d01 * pb[i]) / dt + d10 * va[i] + d11 * vb[i] : 0;
    }
}

void kr_synth_hand_eval(const kr_synth_hand *hd, double t, double p[3], double v[3])
{
    const kr_synth_key *k = hd->key;
    int n = hd->n_key;
    if (n == 0 || t <= k[0].t) {
        p[0] = n ? k[0].x : hd->ready[0]; p[1] = n ? k[0].y : hd->ready[1]; p[2] = n ? k[0].z : hd->ready[2];
        if (v) v[0] = v[1] = v[2] = 0;
        return;
    }
    if (t >= k[n - 1].t) {
        p[0] = k[n - 1].x; p[1] = k[n - 1].y; p[2] = k[n - 1].z;
        if (v) v[0] = v[1] = v[2] = 0;
        return;
    }
    int lo = 0, hi = n - 1; /* k[lo].t <= t < k[hi].t */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (k[mid].t <= t) lo = mid; else hi = mid;
    }
    hermite(&k[lo], &k[hi], t, p, v);
    if (p[2] < 0)
        p[2] = 0;
}

bool kr_synth_hand_visible(const kr_synth_hand *hd, double t)
{
    (void)t;
    return hd->used;
}

/* The fingers point from the shoulder to the fingertip, turned towards the motion when
 * the hand moves fast and low (a sweep leads with the fingers); v may be NULL. */
void kr_synth_hand_dir(const kr_synth_hand *hd, const double p[3], const double v[3], double d[2])
{
    double dx = p[0] - hd->shoulder[0], dy = p[1] - hd->shoulder[1];
    double n = sqrt(dx * dx + dy * dy);
    dx = n > 0 ? dx / n : 0;
    dy = n > 0 ? dy / n : 1;
    if (v) {
        double sp = hypot(v[0], v[1]);
        if (sp > 300) {
            double mx = v[0] / sp, my = v[1] / sp, dot = mx * dx + my * dy;
            double w = fmin(1.0, (sp - 300) / 1500) * 1.5;
            w *= fmin(1.0, fmax(0.0, 1.0 - p[2] / 60.0));
            w *= fmin(1.0, fmax(0.0, (dot + 0.3) / 0.5));
            dx += w * mx;
            dy += w * my;
            n = hypot(dx, dy);
            dx /= n;
            dy /= n;
        }
    }
    d[0] = dx;
    d[1] = dy;
}

/* Hand model (mm, wrist frame: u forward from the wrist, v to the hand's left);
 * fingertip of the middle finger at u = 176. Shared with the renderer. */
static const double finger_base_v[4] = {27, 9, -9, -26};   /* index, middle, ring, little (right hand) */
static const double finger_len[4] = {70, 80, 75, 58};
static const double finger_ang[4] = {0.09, 0.0, -0.07, -0.16};

void kr_synth_footprint(const kr_synth_hand *hd, const double p[3], const double d[2],
                        double fp[KR_SYNTH_FOOT_N][2])
{
    double s = hd->length, mir = hd->side == 1 ? 1.0 : -1.0;
    double n[2] = {-d[1], d[0]};
    for (int f = 0; f < 3; f++) { /* index, middle, ring: the little finger is lifted */
        for (int j = 0; j < 2; j++) {
            double back = j == 0 ? 6.0 : 24.0;
            double len = finger_len[f] - back;
            double u = 96 + len * cos(finger_ang[f]) - 176;
            double v = (finger_base_v[f] + len * sin(finger_ang[f])) * mir;
            fp[f * 2 + j][0] = p[0] + s * (d[0] * u + n[0] * v);
            fp[f * 2 + j][1] = p[1] + s * (d[1] * u + n[1] * v);
        }
    }
}

/* ---- cards ---- */

void kr_synth_card_corners(const kr_synth_pose *p, double mm[8])
{
    static const double lc[4][2] = {{-26, 36.5}, {26, 36.5}, {26, -36.5}, {-26, -36.5}};
    double c = cos(p->a), s = sin(p->a);
    for (int i = 0; i < 4; i++) {
        mm[2 * i] = p->x + c * lc[i][0] - s * lc[i][1];
        mm[2 * i + 1] = p->y + s * lc[i][0] + c * lc[i][1];
    }
}

static int seg_at(const kr_synth_card *c, double t)
{
    int i = c->n_seg - 1;
    while (i > 0 && c->seg[i].t0 > t)
        i--;
    return i;
}

kr_card_mode kr_synth_card_pose(const kr_synth_t *s, const kr_synth_card *c, double t,
                                kr_synth_pose *p, double *z)
{
    const kr_synth_seg *g = &c->seg[seg_at(c, t)];
    if (z)
        *z = 0;
    if (g->mode == KR_CARD_REST) {
        *p = g->p0;
        return KR_CARD_REST;
    }
    if (g->mode == KR_CARD_SLIDE) {
        double v0 = hypot(g->vx, g->vy), ts = v0 / g->decel;
        double tau = t - g->t0;
        bool moving = tau < ts;
        if (!moving)
            tau = ts;
        double d = v0 * tau - 0.5 * g->decel * tau * tau;
        p->x = g->p0.x + g->vx / v0 * d;
        p->y = g->p0.y + g->vy / v0 * d;
        p->a = g->p0.a + g->w * (tau - tau * tau / (2 * ts));
        return moving ? KR_CARD_SLIDE : KR_CARD_REST;
    }
    /* carried: follows the hand's fingertip */
    double hp[3];
    kr_synth_hand_eval(&s->hands[g->hand], t, hp, NULL);
    double u = (t - g->t0) / (g->t_rel - g->t0);
    if (u < 0) u = 0;
    if (u > 1) u = 1;
    u = u * u * (3 - 2 * u);
    p->x = hp[0] + g->ox;
    p->y = hp[1] + g->oy;
    p->a = g->oa + (g->a_to - g->oa) * u;
    if (z)
        *z = hp[2];
    return KR_CARD_CARRY;
}

static bool point_in_card(const kr_synth_pose *p, double x, double y)
{
    double c = cos(p->a), s = sin(p->a), dx = x - p->x, dy = y - p->y;
    double lx = c * dx + s * dy, ly = -s * dx + c * dy;
    return fabs(lx) <= KR_CARD_W / 2 && fabs(ly) <= KR_CARD_H / 2;
}

/* Separating-axis test: does the card overlap the field rectangle? */
static bool card_overlaps_field(const kr_synth_pose *p)
{
    double mm[8];
    kr_synth_card_corners(p, mm);
    double minx = 1e9, maxx = -1e9, miny = 1e9, maxy = -1e9;
    for (int i = 0; i < 4; i++) {
        minx = fmin(minx, mm[2 * i]); maxx = fmax(maxx, mm[2 * i]);
        miny = fmin(miny, mm[2 * i + 1]); maxy = fmax(maxy, mm[2 * i + 1]);
    }
    if (maxx < -KR_FIELD_HALF_W || minx > KR_FIELD_HALF_W || maxy < -KR_FIELD_HALF_H || miny > KR_FIELD_HALF_H)
        return false;
    /* card axes */
    double ax[2][2] = {{cos(p->a), sin(p->a)}, {-sin(p->a), cos(p->a)}};
    double half[2] = {KR_CARD_W / 2, KR_CARD_H / 2};
    for (int k = 0; k < 2; k++) {
        double c0 = ax[k][0] * p->x + ax[k][1] * p->y;
        double lo = 1e9, hi = -1e9;
        for (int i = 0; i < 4; i++) {
            double cx = (i & 1) ? KR_FIELD_HALF_W : -KR_FIELD_HALF_W, cy = (i & 2) ? KR_FIELD_HALF_H : -KR_FIELD_HALF_H;
            double pr = ax[k][0] * cx + ax[k][1] * cy;
            lo = fmin(lo, pr); hi = fmax(hi, pr);
        }
        if (hi < c0 - half[k] || lo > c0 + half[k])
            return false;
    }
    return true;
}

/* Separating-axis test between two cards. */
static bool cards_overlap(const kr_synth_pose *p, const kr_synth_pose *q)
{
    const kr_synth_pose *r[2] = {p, q};
    double mm[2][8];
    kr_synth_card_corners(p, mm[0]);
    kr_synth_card_corners(q, mm[1]);
    for (int k = 0; k < 2; k++)
        for (int ax = 0; ax < 2; ax++) {
            double a = r[k]->a + ax * KR_PI / 2, ux = cos(a), uy = sin(a);
            double lo[2] = {1e9, 1e9}, hi[2] = {-1e9, -1e9};
            for (int m = 0; m < 2; m++)
                for (int i = 0; i < 4; i++) {
                    double pr = ux * mm[m][2 * i] + uy * mm[m][2 * i + 1];
                    lo[m] = fmin(lo[m], pr);
                    hi[m] = fmax(hi[m], pr);
                }
            if (hi[0] < lo[1] || hi[1] < lo[0])
                return false;
        }
    return true;
}

static bool in_field(double x, double y)
{
    return fabs(x) <= KR_FIELD_HALF_W && fabs(y) <= KR_FIELD_HALF_H;
}

/* ---- building paths ---- */

static kr_status add_key(kr_synth_hand *hd, double t, double x, double y, double z,
                         double vx, double vy, double vz, char *err, size_t errlen)
{
    if (hd->n_key >= KR_SYNTH_MAX_KEYS) {
        snprintf(err, errlen, "too many path keys for one hand");
        return KR_ERR_INVALID;
    }
    if (hd->n_key && t <= hd->key[hd->n_key - 1].t + 1e-7) {
        snprintf(err, errlen, "%s: player %c %s hand: actions overlap in time (at %.3f s)",
                 "scenario", 'A' + hd->player, hd->side ? "right" : "left", t);
        return KR_ERR_INVALID;
    }
    kr_synth_key *k = &hd->key[hd->n_key++];
    k->t = t; k->x = x; k->y = y; k->z = z; k->vx = vx; k->vy = vy; k->vz = vz;
    return KR_OK;
}

/* Idle drift around the guard position between t0 and t1 (exclusive). */
static kr_status idle(kr_synth_hand *hd, kr_synth_rng *rng, double t0, double t1, char *err, size_t errlen)
{
    double t = t0 + 0.7 + kr_synth_rng_range(rng, 0, 0.3);
    while (t < t1 - 0.6) {
        kr_status st = add_key(hd, t, hd->ready[0] + kr_synth_rng_range(rng, -6, 6),
                               hd->ready[1] + kr_synth_rng_range(rng, -5, 5),
                               hd->ready[2] + kr_synth_rng_range(rng, -8, 8), 0, 0, 0, err, errlen);
        if (st != KR_OK)
            return st;
        t += kr_synth_rng_range(rng, 0.6, 1.1);
    }
    return KR_OK;
}

typedef struct { int action; double t0, t1; } span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Moves the landing point T (fingertip) so the hand's footprint lies on the card if
 * it can (a press lands on one card, not on its neighbours). */
static void fit_on_card(const kr_synth_hand *hd, const kr_synth_pose *cp, double *Tx, double *Ty)
{
    double c = cos(cp->a), s = sin(cp->a);
    for (int it = 0; it < 4; it++) {
        double P3[3] = {*Tx, *Ty, 0}, d[2], fp[KR_SYNTH_FOOT_N][2];
        kr_synth_hand_dir(hd, P3, NULL, d);
        kr_synth_footprint(hd, P3, d, fp);
        double lo[2] = {1e9, 1e9}, hi[2] = {-1e9, -1e9};
        for (int i = 0; i < KR_SYNTH_FOOT_N; i++) {
            double dx = fp[i][0] - cp->x, dy = fp[i][1] - cp->y;
            double l[2] = {c * dx + s * dy, -s * dx + c * dy};
            for (int k = 0; k < 2; k++) {
                lo[k] = fmin(lo[k], l[k]);
                hi[k] = fmax(hi[k], l[k]);
            }
        }
        const double half[2] = {KR_CARD_W / 2 - 1.0, KR_CARD_H / 2 - 1.0};
        double sh[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            if (hi[k] - lo[k] > 2 * half[k])
                sh[k] = -(hi[k] + lo[k]) / 2; /* cannot fit: centre it */
            else if (hi[k] > half[k])
                sh[k] = half[k] - hi[k];
            else if (lo[k] < -half[k])
                sh[k] = -half[k] - lo[k];
        }
        *Tx += c * sh[0] - s * sh[1];
        *Ty += s * sh[0] + c * sh[1];
    }
}

/* Keys of one action; the hand starts and ends at the guard position (consecutive
 * actions of one hand chain directly when there is no time to go back). */
static kr_status action_keys(kr_synth_t *s, const kr_synth_card *plan, kr_synth_action *ac, char *err,
                             size_t errlen)
{
    kr_synth_hand *hd = &s->hands[ac->player * 2 + ac->side];
    const double *G = hd->ready;
    double tc = ac->t;
    double Tx = ac->tx, Ty = ac->ty;
    kr_synth_pose cp = {0, 0, 0};
    if (ac->card) {
        cp = s->cards[ac->card].pose0;
        /* the pose the card has when the action starts (it may have been moved, by any
         * hand: plan holds every move of the previous planning pass) */
        kr_synth_card_pose(s, plan ? &plan[ac->card] : &s->cards[ac->card], tc - 0.5, &cp, NULL);
        Tx = cp.x + (ac->has_point ? ac->tx : 0);
        Ty = cp.y + (ac->has_point ? ac->ty : 0);
    }
    if (ac->card && (ac->kind == KR_ACT_PRESS || ac->kind == KR_ACT_SEND || ac->kind == KR_ACT_REARRANGE ||
                     ac->kind == KR_ACT_REMOVE))
        fit_on_card(hd, &cp, &Tx, &Ty);
    double appr = ac->approach > 0 ? ac->approach : 0.32 + hypot(Tx - G[0], Ty - G[1]) / 2500.0;
    kr_status st = KR_OK;
    /* chain: drop the previous return to the guard if it would overlap */
    bool chain = false;
    if (hd->n_key > 1 && hd->key[hd->n_key - 1].t > tc - appr - 0.05) {
        hd->n_key--;
        chain = true;
    }
#define K(t, x, y, z, vx, vy, vz) do { if ((st = add_key(hd, t, x, y, z, vx, vy, vz, err, errlen)) != KR_OK) return st; } while (0)
    switch (ac->kind) {
    case KR_ACT_SWEEP: {
        double dir = ac->dir;
        if (isnan(dir))
            dir = Tx >= 0 ? 0.0 : KR_PI;
        double dx = cos(dir), dy = sin(dir), v = ac->speed;
        /* land with the whole footprint just past the card's entry edge (1.5 mm),
         * so the first contact is exactly at tc and is on this card */
        double back = 0.0;
        if (ac->card) {
            double P3[3] = {Tx, Ty, 0}, V3[3] = {dx * v, dy * v, 0}, hdv[2], fp[KR_SYNTH_FOOT_N][2];
            kr_synth_hand_dir(hd, P3, V3, hdv);
            kr_synth_footprint(hd, P3, hdv, fp);
            double mm[8], e = 1e9, f = 1e9;
            kr_synth_card_corners(&cp, mm);
            for (int i = 0; i < 4; i++)
                e = fmin(e, mm[2 * i] * dx + mm[2 * i + 1] * dy);
            for (int i = 0; i < KR_SYNTH_FOOT_N; i++)
                f = fmin(f, fp[i][0] * dx + fp[i][1] * dy);
            back = f - e - 1.5;
        }
        if (back < -KR_CARD_W) back = -KR_CARD_W;
        double Sx = Tx - dx * back, Sy = Ty - dy * back;
        double pre = 0.06, through = fmax(back + ac->follow, 5.0) / v;
        if (!chain) K(tc - appr, G[0], G[1], G[2], 0, 0, 0);
        K(tc - pre, Sx - dx * v * pre, Sy - dy * v * pre, 22, dx * v, dy * v, -300);
        K(tc, Sx, Sy, 0, dx * v, dy * v, 0);
        K(tc + through, Sx + dx * v * through, Sy + dy * v * through, 0, dx * v * 0.9, dy * v * 0.9, 0);
        double tl = tc + through + 0.1;
        K(tl, Sx + dx * v * (through + 0.08), Sy + dy * v * (through + 0.08), 45, dx * v * 0.3, dy * v * 0.3, 200);
        K(tl + 0.55, G[0], G[1], G[2], 0, 0, 0);
        break;
    }
    case KR_ACT_PRESS:
    case KR_ACT_ENTER: {
        double z = ac->kind == KR_ACT_PRESS ? 0.0 : ac->hover;
        if (!chain) K(tc - appr, G[0], G[1], G[2], 0, 0, 0);
        /* from 30 mm above the card: slowing to rest on it (land 0), or straight down at
         * `land` mm/s until it strikes the card and stops there */
        if (ac->kind == KR_ACT_PRESS && ac->land > 0)
            K(tc - 30 / ac->land, Tx, Ty, 30, 0, 0, -ac->land);
        else if (ac->kind == KR_ACT_PRESS)
            K(tc - 0.07, Tx, Ty, 30, 0, 0, -300);
        K(tc, Tx, Ty, z, 0, 0, -ac->land); /* (0 but for a press) */
        K(tc + ac->hold, Tx, Ty, z, 0, 0, 0);
        K(tc + ac->hold + 0.12, Tx, Ty, z + 35, 0, 0, 150);
        K(tc + ac->hold + 0.6, G[0], G[1], G[2], 0, 0, 0);
        break;
    }
    case KR_ACT_HOVER: {
        double dir = isnan(ac->dir) ? (Tx >= 0 ? 0.0 : KR_PI) : ac->dir;
        double dx = cos(dir), dy = sin(dir), v = ac->speed * 0.5, L = 90;
        if (!chain) K(tc - appr, G[0], G[1], G[2], 0, 0, 0);
        K(tc - L / v, Tx - dx * L, Ty - dy * L, ac->hover, dx * v, dy * v, 0);
        K(tc, Tx, Ty, ac->hover, dx * v, dy * v, 0);
        K(tc + L / v, Tx + dx * L, Ty + dy * L, ac->hover, dx * v, dy * v, 0);
        K(tc + L / v + 0.5, G[0], G[1], G[2], 0, 0, 0);
        break;
    }
    case KR_ACT_SEND:
    case KR_ACT_REARRANGE:
    case KR_ACT_REMOVE: {
        /* the fingertip keeps its offset from the card centre: the card lands centred on `to` */
        double Dx = ac->to_x - (cp.x - Tx), Dy = ac->to_y - (cp.y - Ty);
        double dist = hypot(Dx - Tx, Dy - Ty);
        double tg = tc + 0.12;                       /* grab */
        double tr = tg + 0.25 + dist / 700.0;         /* release at the destination */
        if (!chain) K(tc - appr, G[0], G[1], G[2], 0, 0, 0);
        K(tc - 0.07, Tx, Ty, 30, 0, 0, -300);
        K(tc, Tx, Ty, 0, 0, 0, 0);
        K(tg, Tx, Ty, 0, 0, 0, 0);
        K(tg + 0.12, Tx, Ty, 18, 0, 0, 100);
        K(tr - 0.12, Dx, Dy, 18, 0, 0, -100);
        K(tr, Dx, Dy, 0, 0, 0, 0);
        K(tr + 0.1, Dx, Dy, 0, 0, 0, 0);
        K(tr + 0.22, Dx, Dy, 35, 0, 0, 150);
        K(tr + 0.7, G[0], G[1], G[2], 0, 0, 0);
        /* the card follows the hand from the grab to the release */
        kr_synth_card *c = &s->cards[ac->card];
        if (c->n_seg + 2 > KR_SYNTH_MAX_SEGS) {
            snprintf(err, errlen, "card %d moved too often", c->id);
            return KR_ERR_INVALID;
        }
        kr_synth_seg *g = &c->seg[c->n_seg++];
        memset(g, 0, sizeof *g);
        g->mode = KR_CARD_CARRY;
        g->t0 = tg;
        g->hand = ac->player * 2 + ac->side;
        g->ox = cp.x - Tx;
        g->oy = cp.y - Ty;
        g->oa = cp.a;
        g->a_to = ac->kind == KR_ACT_SEND ? cp.a + KR_PI : cp.a;
        g->t_rel = tr;
        kr_synth_seg *r = &c->seg[c->n_seg++];
        memset(r, 0, sizeof *r);
        r->mode = KR_CARD_REST;
        r->t0 = tr;
        r->p0.x = Dx + g->ox;
        r->p0.y = Dy + g->oy;
        r->p0.a = g->a_to;
        break;
    }
    case KR_ACT_PATH: {
        for (int i = 0; i < ac->n_path; i++) {
            double *k = ac->path[i], v3[3] = {0, 0, 0};
            if (i > 0 && i < ac->n_path - 1) {
                double *a = ac->path[i - 1], *b = ac->path[i + 1];
                for (int j = 0; j < 3; j++)
                    v3[j] = (b[j + 1] - a[j + 1]) / (b[0] - a[0]);
                bool extremum = (k[3] - a[3]) * (b[3] - k[3]) <= 0;
                if (k[3] == 0 || a[3] == 0 || b[3] == 0 || extremum)
                    v3[2] = 0;
            }
            K(k[0], k[1], k[2], k[3], v3[0], v3[1], v3[2]);
        }
        break;
    }
    }
#undef K
    ac->t_end = hd->key[hd->n_key - 1].t;
    return KR_OK;
}

/* ---- events ---- */

static kr_synth_event *push_event(kr_synth_t *s, kr_synth_ev_type type, int64_t t_us)
{
    if (s->n_events >= KR_SYNTH_MAX_EVENTS)
        return NULL;
    kr_synth_event *e = &s->events[s->n_events++];
    memset(e, 0, sizeof *e);
    e->type = type;
    e->t_us = t_us;
    e->player = e->hand = e->territory = e->from = -1;
    return e;
}

static bool touching(kr_synth_t *s, int hi, int card, double t)
{
    const kr_synth_hand *hd = &s->hands[hi];
    double p[3], v[3], d[2], fp[KR_SYNTH_FOOT_N][2];
    kr_synth_hand_eval(hd, t, p, v);
    if (p[2] > Z_CONTACT)
        return false;
    kr_synth_pose cp;
    if (kr_synth_card_pose(s, &s->cards[card], t, &cp, NULL) == KR_CARD_CARRY)
        return false;
    kr_synth_hand_dir(hd, p, v, d);
    kr_synth_footprint(hd, p, d, fp);
    for (int i = 0; i < KR_SYNTH_FOOT_N; i++)
        if (point_in_card(&cp, fp[i][0], fp[i][1]))
            return true;
    return false;
}

static bool hand_in_field(kr_synth_t *s, int hi, double t)
{
    const kr_synth_hand *hd = &s->hands[hi];
    double p[3], v[3], d[2], fp[KR_SYNTH_FOOT_N][2];
    kr_synth_hand_eval(hd, t, p, v);
    kr_synth_hand_dir(hd, p, v, d);
    kr_synth_footprint(hd, p, d, fp);
    for (int i = 0; i < KR_SYNTH_FOOT_N; i++)
        if (in_field(fp[i][0], fp[i][1]))
            return true;
    return false;
}

static bool hands_touch(kr_synth_t *s, int a, int b, double t)
{
    double pa[3], pb[3], va[3], vb[3], da[2], db[2];
    kr_synth_hand_eval(&s->hands[a], t, pa, va);
    kr_synth_hand_eval(&s->hands[b], t, pb, vb);
    if (fabs(pa[2] - pb[2]) > 30)
        return false;
    kr_synth_hand_dir(&s->hands[a], pa, va, da);
    kr_synth_hand_dir(&s->hands[b], pb, vb, db);
    const double off[2] = {40, 125}, rad[2] = {38, 46};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double ax = pa[0] - da[0] * off[i] * s->hands[a].length, ay = pa[1] - da[1] * off[i] * s->hands[a].length;
            double bx = pb[0] - db[0] * off[j] * s->hands[b].length, by = pb[1] - db[1] * off[j] * s->hands[b].length;
            if (hypot(ax - bx, ay - by) < rad[i] * s->hands[a].length + rad[j] * s->hands[b].length)
                return true;
        }
    return false;
}

static bool card_inside(kr_synth_t *s, int card, double t)
{
    kr_synth_pose p;
    kr_synth_card_pose(s, &s->cards[card], t, &p, NULL);
    return card_overlaps_field(&p);
}

/* Smallest whole microsecond in (lo, hi] where pred becomes `want`. */
typedef bool (*pred_fn)(kr_synth_t *, int, int, double);
static bool p_touch(kr_synth_t *s, int a, int b, double t) { return touching(s, a, b, t); }
static bool p_field(kr_synth_t *s, int a, int b, double t) { (void)b; return hand_in_field(s, a, t); }
static bool p_hands(kr_synth_t *s, int a, int b, double t) { return hands_touch(s, a, b, t); }
static bool p_out(kr_synth_t *s, int a, int b, double t) { (void)b; return !card_inside(s, a, t); }
static bool p_cards(kr_synth_t *s, int a, int b, double t)
{
    kr_synth_pose pa, pb;
    kr_synth_card_pose(s, &s->cards[a], t, &pa, NULL);
    kr_synth_card_pose(s, &s->cards[b], t, &pb, NULL);
    return cards_overlap(&pa, &pb);
}

static int64_t refine(kr_synth_t *s, pred_fn f, int a, int b, int64_t lo, int64_t hi)
{
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (f(s, a, b, (double)mid / 1e6))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static int territory_of(const kr_synth_pose *p) { return p->y < 0 ? 0 : 1; }

/* Card moves in time order (hands are planned one after the other). */
static void sort_moves(kr_synth_t *s)
{
    for (int id = 1; id < 101; id++) {
        kr_synth_card *c = &s->cards[id];
        for (int i = 2; i < c->n_seg; i++) /* insertion sort: stable, usually sorted */
            for (int j = i; j > 1 && c->seg[j - 1].t0 > c->seg[j].t0; j--) {
                kr_synth_seg g = c->seg[j];
                c->seg[j] = c->seg[j - 1];
                c->seg[j - 1] = g;
            }
    }
}

/* 1 when the cards' moves equal plan's. */
static int same_moves(const kr_synth_t *s, const kr_synth_card *plan)
{
    for (int id = 1; id < 101; id++) {
        const kr_synth_card *a = &s->cards[id], *b = &plan[id];
        if (a->n_seg != b->n_seg || memcmp(a->seg, b->seg, sizeof a->seg[0] * (size_t)a->n_seg))
            return 0;
    }
    return 1;
}

/* Every hand's keys: its actions in time order, idle drift in between. Card poses for
 * actions on a card from plan (NULL: from the moves planned so far). */
static kr_status plan_hands(kr_synth_t *s, kr_synth_rng *rng, const kr_synth_card *plan, char *err,
                            size_t errlen)
{
    span sp[KR_SYNTH_MAX_ACTIONS];
    kr_status st = KR_OK;
    for (int i = 1; i < 101; i++)
        if (s->cards[i].id)
            s->cards[i].n_seg = 1; /* the layout pose; moves are added by action_keys */
    for (int hi = 0; hi < KR_SYNTH_N_HANDS; hi++) {
        kr_synth_hand *hd = &s->hands[hi];
        if (!hd->used)
            continue;
        int n = 0;
        for (int i = 0; i < s->n_actions; i++)
            if (s->actions[i].player * 2 + s->actions[i].side == hi) {
                sp[n].action = i;
                sp[n].t0 = s->actions[i].t;
                n++;
            }
        qsort(sp, (size_t)n, sizeof sp[0], cmp_span);
        double t = -1.0;
        hd->n_key = 0;
        st = add_key(hd, t, hd->ready[0], hd->ready[1], hd->ready[2], 0, 0, 0, err, errlen);
        for (int k = 0; k < n && st == KR_OK; k++) {
            kr_synth_action *ac = &s->actions[sp[k].action];
            double t_start = ac->t - (ac->approach > 0 ? ac->approach : 0.5) - 0.5;
            if ((st = idle(hd, rng, t, t_start, err, errlen)) != KR_OK)
                break;
            st = action_keys(s, plan, ac, err, errlen);
            t = hd->key[hd->n_key - 1].t;
        }
        if (st == KR_OK)
            st = idle(hd, rng, t, s->duration + 2.0, err, errlen);
        if (st == KR_OK && hd->key[hd->n_key - 1].t < s->duration + 1.0)
            st = add_key(hd, s->duration + 1.0, hd->ready[0], hd->ready[1], hd->ready[2], 0, 0, 0, err, errlen);
        if (st != KR_OK)
            return st;
    }
    sort_moves(s);
    return KR_OK;
}

kr_status kr_synth_sim_run(kr_synth_t *s, char *err, size_t errlen)
{
    kr_status st;
    kr_synth_rng rng;
    kr_synth_rng_seed(&rng, s->seed, 3);
    /* hands: the valid hands are always present; others only if used */
    for (int hi = 0; hi < KR_SYNTH_N_HANDS; hi++) {
        kr_synth_hand *hd = &s->hands[hi];
        memset(hd, 0, sizeof *hd);
        hd->player = hi / 2;
        hd->side = hi % 2;
        hd->used = s->players[hd->player].hand == hd->side;
        double fwd = hd->player == 0 ? 1.0 : -1.0;          /* towards the field */
        double right = hd->side == 1 ? 1.0 : -1.0;           /* from the player's view */
        double xs = fwd * right;                             /* mat x of the player's right */
        hd->length = s->players[hd->player].size;
        hd->ready[0] = xs * 120 + kr_synth_rng_range(&rng, -20, 20);
        hd->ready[1] = -fwd * (KR_FIELD_HALF_H + 30 + kr_synth_rng_range(&rng, 0, 12));
        hd->ready[2] = 55 + kr_synth_rng_range(&rng, 0, 20);
        hd->shoulder[0] = xs * 190;
        hd->shoulder[1] = -fwd * 720;
        hd->shoulder[2] = 420;
    }
    for (int i = 0; i < s->n_actions; i++)
        s->hands[s->actions[i].player * 2 + s->actions[i].side].used = true;
    /* Hands are planned one after the other, so a hand moving a card another hand moved
     * earlier (a card sent back) would take it from where it lay before. Each pass plans
     * with the card moves of the previous one, from the same random stream, until the moves
     * agree: scenarios whose cards move at most once agree at the second pass, with the
     * keys of the first. */
    kr_synth_card *plan = malloc(sizeof s->cards);
    if (!plan) {
        snprintf(err, errlen, "out of memory");
        return KR_ERR_NOMEM;
    }
    kr_synth_rng rng0 = rng;
    for (int pass = 0;; pass++) {
        rng = rng0;
        st = plan_hands(s, &rng, pass ? plan : NULL, err, errlen);
        if (st == KR_OK && pass > 0 && same_moves(s, plan))
            break;
        if (st == KR_OK && pass == 4) {
            snprintf(err, errlen, "card moves do not settle after %d planning passes", pass + 1);
            st = KR_ERR_INVALID;
        }
        if (st != KR_OK) {
            free(plan);
            return st;
        }
        memcpy(plan, s->cards, sizeof s->cards);
    }
    free(plan);

    /* reading records */
    for (int r = 0; r < s->n_readings; r++) {
        kr_synth_reading *rd = &s->readings[r];
        kr_synth_event *e = push_event(s, KR_SYNTH_EV_KAMI_START, llround(rd->kami * 1e6));
        if (!e) goto full;
        e->seq = r + 1;
        e->card = rd->card;
        bool voided = !isnan(rd->void_t);
        if (!voided || rd->void_t >= rd->kim) {
            if (!(e = push_event(s, KR_SYNTH_EV_KIMARIJI, llround(rd->kim * 1e6)))) goto full;
            e->seq = r + 1;
        }
        if (voided) {
            if (!(e = push_event(s, KR_SYNTH_EV_READING_VOID, llround(rd->void_t * 1e6)))) goto full;
            e->seq = r + 1;
        }
        if (!(e = push_event(s, KR_SYNTH_EV_SHIMO_START, llround(rd->shimo * 1e6)))) goto full;
        e->seq = r + 1;
    }

    /* step the world */
    static bool contact[KR_SYNTH_N_HANDS][101], knock[101][101];
    memset(contact, 0, sizeof contact);
    memset(knock, 0, sizeof knock);
    bool infield[KR_SYNTH_N_HANDS] = {false}, hcontact[KR_SYNTH_N_HANDS][KR_SYNTH_N_HANDS];
    memset(hcontact, 0, sizeof hcontact);
    int64_t end_us = llround((s->duration + 0.5) * 1e6);
    int64_t start_us = -STEP_US;
    kr_synth_rng prng;
    kr_synth_rng_seed(&prng, s->seed, 4);
    int touch_id = 0;
    for (int64_t tu = 0; tu <= end_us; tu += STEP_US) {
        double t = (double)tu / 1e6;
        int64_t pu = tu - STEP_US;
        for (int hi = 0; hi < KR_SYNTH_N_HANDS; hi++) {
            kr_synth_hand *hd = &s->hands[hi];
            if (!hd->used)
                continue;
            double p[3], v[3];
            kr_synth_hand_eval(hd, t, p, v);
            /* early entry: footprint in the field between the previous shimo_start and kami_start */
            bool inf = hand_in_field(s, hi, t);
            if (inf && !infield[hi] && tu > start_us) {
                int64_t tc = refine(s, p_field, hi, 0, pu, tu);
                for (int r = 0; r < s->n_readings; r++) {
                    double w0 = r > 0 ? s->readings[r - 1].shimo : s->readings[r].kami - 2.0;
                    double tcs = (double)tc / 1e6;
                    if (tcs >= w0 && tcs < s->readings[r].kami) {
                        kr_synth_event *e = push_event(s, KR_SYNTH_EV_EARLY_ENTRY, tc);
                        if (!e) goto full;
                        e->player = hd->player;
                        e->hand = hd->side;
                    }
                }
            }
            infield[hi] = inf;
            for (int ci = 0; ci < s->n_cards; ci++) {
                int cid = s->card_ids[ci];
                bool now = p[2] <= Z_CONTACT && touching(s, hi, cid, t);
                kr_synth_pose cp;
                bool carried = kr_synth_card_pose(s, &s->cards[cid], t, &cp, NULL) == KR_CARD_CARRY;
                if (carried) {
                    now = s->cards[cid].seg[seg_at(&s->cards[cid], t)].hand == hi;
                    contact[hi][cid] = contact[hi][cid] || now;
                    if (now)
                        continue;
                }
                if (now && !contact[hi][cid]) {
                    int64_t tc = refine(s, p_touch, hi, cid, pu, tu);
                    double tcs = (double)tc / 1e6;
                    kr_synth_pose pc;
                    kr_card_mode mode = kr_synth_card_pose(s, &s->cards[cid], tcs, &pc, NULL);
                    if (card_inside(s, cid, tcs)) {
                        kr_synth_event *e = push_event(s, KR_SYNTH_EV_TOUCH, tc);
                        if (!e) goto full;
                        e->player = hd->player;
                        e->hand = hd->side;
                        e->card = cid;
                        e->territory = territory_of(&pc);
                        e->seq = ++touch_id; /* used for ids */
                    }
                    double hp[3], hv[3];
                    kr_synth_hand_eval(hd, tcs, hp, hv);
                    double hs = hypot(hv[0], hv[1]);
                    kr_synth_card *c = &s->cards[cid];
                    double cs = 0;
                    if (mode == KR_CARD_SLIDE) {
                        const kr_synth_seg *g = &c->seg[seg_at(c, tcs)];
                        cs = hypot(g->vx, g->vy) - g->decel * (tcs - g->t0);
                    }
                    if (hs > PUSH_SPEED && hs > cs && c->n_seg < KR_SYNTH_MAX_SEGS) {
                        /* the card flies from the contact instant */
                        kr_synth_seg *g = &c->seg[c->n_seg++];
                        memset(g, 0, sizeof *g);
                        g->mode = KR_CARD_SLIDE;
                        g->t0 = tcs;
                        g->p0 = pc;
                        double jit = kr_synth_rng_range(&prng, -0.1, 0.1), k = 1.15;
                        g->vx = k * (hv[0] * cos(jit) - hv[1] * sin(jit));
                        g->vy = k * (hv[0] * sin(jit) + hv[1] * cos(jit));
                        g->w = kr_synth_rng_range(&prng, 2, 7) * (kr_synth_rng_uniform(&prng) < 0.5 ? -1 : 1);
                        g->decel = kr_synth_rng_range(&prng, 3000, 4500);
                        g->player = hd->player;
                        /* keep later segments (carries) after this one in time order */
                        if (c->n_seg >= 2 && c->seg[c->n_seg - 2].t0 > g->t0) {
                            snprintf(err, errlen, "card %d is pushed before a planned send/rearrange", cid);
                            return KR_ERR_INVALID;
                        }
                        c->out_reported = false;
                    }
                }
                contact[hi][cid] = now;
            }
        }
        /* a sliding card knocks resting cards it runs into: they fly on, it slows down */
        for (int ci = 0; ci < s->n_cards; ci++) {
            kr_synth_card *c = &s->cards[s->card_ids[ci]];
            kr_synth_pose pc;
            if (kr_synth_card_pose(s, c, t, &pc, NULL) != KR_CARD_SLIDE)
                continue;
            for (int di = 0; di < s->n_cards; di++) {
                kr_synth_card *d = &s->cards[s->card_ids[di]];
                kr_synth_pose pd;
                if (d == c || kr_synth_card_pose(s, d, t, &pd, NULL) != KR_CARD_REST)
                    continue;
                bool now = fabs(pc.x - pd.x) < 95 && fabs(pc.y - pd.y) < 95 && cards_overlap(&pc, &pd);
                if (now && !knock[c->id][d->id] && c->n_seg < KR_SYNTH_MAX_SEGS && d->n_seg < KR_SYNTH_MAX_SEGS) {
                    int64_t tc = refine(s, p_cards, c->id, d->id, pu, tu);
                    double tcs = (double)tc / 1e6;
                    const kr_synth_seg *g = &c->seg[seg_at(c, tcs)];
                    if (g->mode == KR_CARD_SLIDE) {
                        double v0 = hypot(g->vx, g->vy), vt = v0 - g->decel * (tcs - g->t0);
                        if (vt > 50) {
                            kr_synth_pose a0, b0;
                            kr_synth_card_pose(s, c, tcs, &a0, NULL);
                            kr_synth_card_pose(s, d, tcs, &b0, NULL);
                            double ux = g->vx / v0, uy = g->vy / v0, jit = kr_synth_rng_range(&prng, -0.15, 0.15);
                            kr_synth_seg *h = &d->seg[d->n_seg++];
                            memset(h, 0, sizeof *h);
                            h->mode = KR_CARD_SLIDE;
                            h->t0 = tcs;
                            h->p0 = b0;
                            h->vx = 0.9 * vt * (ux * cos(jit) - uy * sin(jit));
                            h->vy = 0.9 * vt * (ux * sin(jit) + uy * cos(jit));
                            h->w = kr_synth_rng_range(&prng, -5, 5);
                            h->decel = kr_synth_rng_range(&prng, 3000, 4500);
                            h->player = g->player;
                            kr_synth_seg *k2 = &c->seg[c->n_seg++];
                            *k2 = *g;
                            k2->t0 = tcs;
                            k2->p0 = a0;
                            k2->vx = 0.3 * vt * ux;
                            k2->vy = 0.3 * vt * uy;
                            k2->w = g->w * 0.3;
                            d->out_reported = false;
                        }
                    }
                }
                knock[c->id][d->id] = now;
            }
        }
        /* push-out: the whole outline left the field */
        for (int ci = 0; ci < s->n_cards; ci++) {
            kr_synth_card *c = &s->cards[s->card_ids[ci]];
            const kr_synth_seg *g = &c->seg[seg_at(c, t)];
            if (g->mode != KR_CARD_SLIDE || c->out_reported)
                continue;
            if (!card_inside(s, c->id, t)) {
                int64_t tc = refine(s, p_out, c->id, 0, pu, tu);
                if ((double)tc / 1e6 < g->t0)
                    tc = (int64_t)ceil(g->t0 * 1e6);
                c->out_reported = true;
                if (card_inside(s, c->id, g->t0)) {
                    kr_synth_event *e = push_event(s, KR_SYNTH_EV_PUSH_OUT, tc);
                    if (!e) goto full;
                    e->player = g->player;
                    e->card = c->id;
                    e->territory = territory_of(&g->p0);
                }
            }
        }
        /* hand contact between the players */
        for (int a = 0; a < 2; a++)
            for (int b = 2; b < 4; b++) {
                if (!s->hands[a].used || !s->hands[b].used)
                    continue;
                bool now = hands_touch(s, a, b, t);
                if (now && !hcontact[a][b] && tu > 0) {
                    int64_t tc = refine(s, p_hands, a, b, pu, tu);
                    if (!push_event(s, KR_SYNTH_EV_HAND_CONTACT, tc))
                        goto full;
                }
                hcontact[a][b] = now;
            }
    }

    /* sends and rearranges: at the release */
    for (int i = 0; i < s->n_actions; i++) {
        kr_synth_action *ac = &s->actions[i];
        if (ac->kind != KR_ACT_SEND && ac->kind != KR_ACT_REARRANGE)
            continue;
        kr_synth_card *c = &s->cards[ac->card];
        for (int k = 0; k < c->n_seg; k++)
            if (c->seg[k].mode == KR_CARD_CARRY && c->seg[k].hand == ac->player * 2 + ac->side &&
                fabs(c->seg[k].t0 - (ac->t + 0.12)) < 1e-6) {
                const kr_synth_seg *r = &c->seg[k + 1];
                kr_synth_event *e = push_event(s, ac->kind == KR_ACT_SEND ? KR_SYNTH_EV_SEND : KR_SYNTH_EV_REARRANGE,
                                               llround(r->t0 * 1e6));
                if (!e) goto full;
                e->card = c->id;
                e->player = ac->player;
                e->from = ac->player;
                e->x_mm = r->p0.x;
                e->y_mm = r->p0.y;
            }
    }

    /* settle: hands of this reading's play back out of the field and its cards still */
    for (int r = 0; r < s->n_readings; r++) {
        kr_synth_reading *rd = &s->readings[r];
        double settle = rd->kim + 1.2, first_tidy = 1e9;
        bool any = false;
        for (int i = 0; i < s->n_actions; i++) {
            kr_synth_action *ac = &s->actions[i];
            if (ac->reading != r)
                continue;
            if (!ac->play) {
                first_tidy = fmin(first_tidy, ac->t - 0.3);
                continue;
            }
            double e = ac->t_end;
            settle = any ? fmax(settle, e) : e;
            any = true;
        }
        for (int ci = 0; ci < s->n_cards; ci++) {
            const kr_synth_card *c = &s->cards[s->card_ids[ci]];
            for (int k = 0; k < c->n_seg; k++)
                if (c->seg[k].mode == KR_CARD_SLIDE && c->seg[k].t0 >= rd->kami &&
                    c->seg[k].t0 < (r + 1 < s->n_readings ? s->readings[r + 1].kami : 1e9)) {
                    double stop = c->seg[k].t0 + hypot(c->seg[k].vx, c->seg[k].vy) / c->seg[k].decel;
                    settle = fmax(settle, fmin(stop, c->seg[k].t0 + 1.0));
                }
        }
        settle += 0.1;
        if (rd->settle_given)
            settle = rd->settle;
        if (settle > first_tidy) {
            snprintf(err, errlen, "%s: readings[%d]: play settles at %.3f s, after a send/rearrange starts: move it later",
                     s->path, r, settle);
            return KR_ERR_INVALID;
        }
        if (settle >= rd->shimo)
            settle = rd->shimo - 0.001;
        kr_synth_event *e = push_event(s, KR_SYNTH_EV_SETTLE, llround(settle * 1e6));
        if (!e) goto full;
    }

    /* stable sort by time */
    for (int i = 1; i < s->n_events; i++) {
        kr_synth_event x = s->events[i];
        int j = i - 1;
        while (j >= 0 && s->events[j].t_us > x.t_us) {
            s->events[j + 1] = s->events[j];
            j--;
        }
        s->events[j + 1] = x;
    }
    return KR_OK;
full:
    snprintf(err, errlen, "too many events (max %d)", KR_SYNTH_MAX_EVENTS);
    return KR_ERR_INVALID;
}
