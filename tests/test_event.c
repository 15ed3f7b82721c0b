/* test_event.c - event detection on drawn footage: a sweep timed between frames, a
 * press, a hover that must not count, and a push-out; tracker and detector together.
 * SPDX-License-Identifier: MIT */
#include "kr_event.h"
#include "kr_event_internal.h"
#include "kr_track.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_track_scene.h"

static const kr_track_card_init layout[] = {
    {17, KR_TRACK_A, -200, -51.5}, {5, KR_TRACK_A, 0, -51.5}, {33, KR_TRACK_A, 200, -134.5},
    {64, KR_TRACK_B, -100, 51.5},  {88, KR_TRACK_B, 150, 217.5},
};
#define NCARDS (int)(sizeof layout / sizeof layout[0])
#define DT 16667

/* what one frame shows: the arm's fingertip (if any), its shadow offset, card 64's centre */
typedef struct shot {
    int    arm;
    double tx, ty, sx, sy;
    double c64x, c64y;
    double base_dx; /* the arm's base, mm along x from x = -60 (where every scene's arm comes from) */
} shot;

typedef struct run {
    kr_track_t *t;
    kr_event_t *ev;
    kr_event_obs obs[64];
    int64_t obs_frame_t[64]; /* time of the frame after which each came out */
    int n_obs;
    int early;       /* observations that came out with t_us before the horizon reported before them */
    int64_t horizon; /* kr_event_horizon() after the last frame */
    int64_t max_lag_us[1]; /* largest frame time - horizon within [lag_from, lag_to) */
    int64_t lag_from, lag_to;
} run;

static void run_start_seq(run *r, int32_t seq, int64_t kami_t)
{
    memset(r, 0, sizeof *r);
    kr_track_config cfg;
    kr_track_config_default(&cfg);
    CU_ASSERT_EQUAL_FATAL(kr_track_create(&cfg, map_fn, NULL, FW, FH, &r->t), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_track_set_layout(r->t, layout, NCARDS), KR_OK);
    kr_event_config ecfg;
    kr_event_config_default(&ecfg);
    CU_ASSERT_EQUAL_FATAL(kr_event_create(&ecfg, &r->ev), KR_OK);
    CU_ASSERT_EQUAL(kr_event_horizon(r->ev), INT64_MIN);
    kr_event_reading(r->ev, KR_REC_KAMI_START, seq, 64, kami_t);
}

static void run_start_at(run *r, int64_t kami_t) { run_start_seq(r, 1, kami_t); }
static void run_start(run *r) { run_start_at(r, 150000); }

static void run_frame_gap(run *r, int64_t t_us, int64_t gap_us, const shot *s);
static void run_frame(run *r, int64_t t_us, const shot *s) { run_frame_gap(r, t_us, 0, s); }

/* One frame at t_us, gap_us (> 0) the frames missing before it (kr_frame_t.gap_us). */
static void run_frame_gap(run *r, int64_t t_us, int64_t gap_us, const shot *s)
{
    memcpy(frame, base, sizeof base);
    for (int k = 0; k < NCARDS; k++)
        if (k != 3)
            draw_card(frame, layout[k].x_mm, layout[k].y_mm);
    draw_card(frame, s->c64x, s->c64y);
    if (s->arm)
        draw_arm(frame, -60 + s->base_dx, s->tx, s->ty, s->sx, s->sy, 1);
    kr_image_t im = {FW, FH, FW * 3, 3, frame};
    const kr_track_frame *fr;
    CU_ASSERT_EQUAL_FATAL(kr_track_update(r->t, &im, t_us, gap_us, &fr), KR_OK);
    const kr_event_obs *o;
    int n;
    int64_t h = kr_event_horizon(r->ev);
    CU_ASSERT_EQUAL_FATAL(kr_event_update(r->ev, fr, &o, &n), KR_OK);
    if (getenv("KR_TEST_TRACE"))
        printf("%lld A %d a%.0f s%d (%.0f,%.0f) f%d chg %.0f B %d c64 (%.0f,%.0f) m%d d%d o%d l%d\n", (long long)t_us,
               fr->hands[0].present, fr->hands[0].area_mm2, fr->hands[0].side, fr->hands[0].lead_x_mm,
               fr->hands[0].lead_y_mm, fr->hands[0].in_field,
               fr->hands[0].tip_change, fr->hands[1].present,
               fr->cards[3].x_mm, fr->cards[3].y_mm, fr->cards[3].moving, fr->cards[3].displaced,
               fr->cards[3].out_of_field, fr->cards[3].lost);
    for (int i = 0; i < n; i++)
        if (o[i].rec.t_us < h)
            r->early++;
    for (int i = 0; i < n && r->n_obs < 64; i++) {
        r->obs_frame_t[r->n_obs] = t_us;
        r->obs[r->n_obs++] = o[i];
    }
    r->horizon = kr_event_horizon(r->ev);
    if (t_us >= r->lag_from && t_us < r->lag_to && t_us - r->horizon > r->max_lag_us[0])
        r->max_lag_us[0] = t_us - r->horizon;
    /* the horizon never passes the frame just fed */
    if (fr->ready)
        CU_ASSERT_TRUE(r->horizon <= t_us);
}

/* Every scene checks the horizon's promise: nothing came out before it. */
static void run_end(run *r)
{
    CU_ASSERT_EQUAL(r->early, 0);
    CU_ASSERT_EQUAL(kr_event_late_count(r->ev), 0);
    const kr_event_obs *o;
    int n;
    CU_ASSERT_EQUAL(kr_event_finish(r->ev, &o, &n), KR_OK);
    CU_ASSERT_EQUAL(kr_event_horizon(r->ev), INT64_MAX);
    kr_track_destroy(r->t);
    kr_event_destroy(r->ev);
}

static int count(const run *r, kr_rules_rec_type type)
{
    int c = 0;
    for (int i = 0; i < r->n_obs; i++)
        c += r->obs[i].rec.type == type;
    return c;
}

static const kr_event_obs *first(const run *r, kr_rules_rec_type type)
{
    for (int i = 0; i < r->n_obs; i++)
        if (r->obs[i].rec.type == type)
            return &r->obs[i];
    return NULL;
}

/* A's hand sweeps card 64 (B territory, near edge at y = 15 mm) at 2 m/s; contact at
 * tc (between frames); the card then slides at 2.5 m/s towards B's far edge... and on. */
#define SWEEP_HAND_MM_S 2000.0 /* the hand */
#define SWEEP_CARD_MM_S 2500.0 /* the card it sends off */
static void sweep_frames(run *r, int64_t tc);
static void sweep_case(int64_t tc, double *err_us)
{
    run r;
    run_start(&r);
    sweep_frames(&r, tc);
    CU_ASSERT_EQUAL(count(&r, KR_REC_TOUCH), 1);
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(o->rec.card, 64);
    CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
    CU_ASSERT_EQUAL(o->rec.territory, KR_SIDE_B);
    CU_ASSERT_TRUE(o->rec.t_err_us > 0 && o->rec.t_err_us < DT);
    CU_ASSERT_TRUE(o->rec.confidence > 0.5);
    *err_us = (double)(o->rec.t_us - tc);
    if (getenv("KR_TEST_VERBOSE"))
        printf("sweep tc %lld err %.0f us t_err %lld cue %d\n", (long long)tc, *err_us, (long long)o->rec.t_err_us,
               o->cue);
    /* the card flew over B's far edge: pushed out by A */
    const kr_event_obs *po = first(&r, KR_REC_PUSH_OUT);
    CU_ASSERT_PTR_NOT_NULL(po);
    if (po) {
        CU_ASSERT_EQUAL(po->rec.card, 64);
        CU_ASSERT_EQUAL(po->rec.player, KR_SIDE_A);
        /* whole outline past y = 254: centre past 290.5 mm, at 2.5 m/s after tc */
        double t_out = tc + (290.5 - 51.5) / SWEEP_CARD_MM_S * 1e6;
        CU_ASSERT_DOUBLE_EQUAL((double)po->rec.t_us, t_out, 2.0 * DT);
    }
    run_end(&r);
}

/* sweep_case's frames: the hand and the card, contact at tc; before the frame at set_at
 * (>= 0) a rolling shutter's readout is set (kr_event_set_rolling, rows_map). */
static int rows_map(void *ctx, double x, double y, double *px, double *py);
static void sweep_frames_set_at(run *r, int64_t tc, int64_t set_at, int64_t readout)
{
    const double v = SWEEP_HAND_MM_S, vc = SWEEP_CARD_MM_S;
    for (int64_t t = 0; t < 900000; t += DT) {
        if (set_at >= 0 && t >= set_at && t - DT < set_at) {
            int64_t h0 = kr_event_horizon(r->ev);
            CU_ASSERT_EQUAL(kr_event_set_rolling(r->ev, readout, rows_map, NULL, 600), KR_OK);
            CU_ASSERT_EQUAL(kr_event_horizon(r->ev), h0); /* what was promised stays */
        }
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        double dtc = (t - tc) / 1e6;
        if (t > 250000) {
            double y = 15 + v * dtc;
            if (y > 60)
                y = 60;
            s.arm = 1;
            s.tx = -100;
            s.ty = y;
            s.sx = 4;
            s.sy = -4;
        }
        if (dtc > 0)
            s.c64y = 51.5 + vc * dtc;
        run_frame(r, t, &s);
    }
}

static void sweep_frames(run *r, int64_t tc) { sweep_frames_set_at(r, tc, -1, 0); }

/* A rolling shutter (kr_event_set_rolling): the same sweep read with rows v = (y + 300) /
 * 600 over 16 ms. The touch moves by its card's row less the middle row's, (351.5 / 600 -
 * 1/2) 16 ms = +1373 us (the card where the tracker put it); the push-out (the card last seen past B's edge, a row further
 * down) by more, within half the readout; the horizon's promise holds (run_end); a settle
 * does not move. A readout is refused below 0, and once an observation came out; set after
 * some frames (before the hand came: live measures it on the first frames) it moves the same. */
static int rows_map(void *ctx, double x, double y, double *px, double *py)
{
    (void)ctx;
    *px = x;
    *py = y + 300 - 0.5; /* (py + 1/2) / 600 = (y + 300) / 600 */
    return 0;
}

static void test_rolling_shutter_moves_by_row(void)
{
    const int64_t tc = 408000, readout = 16000;
    run a, b;
    run_start(&a);
    sweep_frames(&a, tc);
    run_start(&b);
    CU_ASSERT_EQUAL(kr_event_set_rolling(b.ev, -1, rows_map, NULL, 600), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_event_set_rolling(b.ev, readout, NULL, NULL, 600), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_event_set_rolling(b.ev, readout, rows_map, NULL, 0), KR_ERR_INVALID);
    CU_ASSERT_EQUAL_FATAL(kr_event_set_rolling(b.ev, readout, rows_map, NULL, 600), KR_OK);
    sweep_frames(&b, tc);
    CU_ASSERT_EQUAL(kr_event_set_rolling(b.ev, readout, rows_map, NULL, 600), KR_ERR_INVALID);
    const kr_event_obs *ta = first(&a, KR_REC_TOUCH), *tb = first(&b, KR_REC_TOUCH);
    const kr_event_obs *pa = first(&a, KR_REC_PUSH_OUT), *pb = first(&b, KR_REC_PUSH_OUT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ta);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pa);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pb);
    CU_ASSERT_EQUAL(ta->row_shift_us, 0);
    CU_ASSERT_TRUE(llabs(tb->row_shift_us - 1373) <= 20); /* the card's place as tracked: within 0.75 mm */
    CU_ASSERT_EQUAL(tb->rec.t_us - ta->rec.t_us, tb->row_shift_us);
    CU_ASSERT_EQUAL(tb->rec.t_err_us, ta->rec.t_err_us);
    CU_ASSERT_TRUE(pb->row_shift_us > tb->row_shift_us && pb->row_shift_us <= readout / 2);
    CU_ASSERT_EQUAL(pb->rec.t_us - pa->rec.t_us, pb->row_shift_us);
    for (int i = 0; i < b.n_obs; i++)
        if (b.obs[i].rec.type == KR_REC_SETTLE)
            CU_ASSERT_EQUAL(b.obs[i].row_shift_us, 0);
    CU_ASSERT_EQUAL(a.n_obs, b.n_obs);
    run c;
    run_start(&c);
    sweep_frames_set_at(&c, tc, 100000, readout);
    const kr_event_obs *tcl = first(&c, KR_REC_TOUCH);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tcl);
    CU_ASSERT_EQUAL(tcl->rec.t_us, tb->rec.t_us);
    CU_ASSERT_EQUAL(c.n_obs, b.n_obs);
    run_end(&a);
    run_end(&b);
    run_end(&c);
}

static void test_sweep_is_timed_between_frames(void)
{
    double worst = 0;
    int64_t offs[] = {3000, 8000, 13000};
    for (int i = 0; i < 3; i++) {
        double e;
        sweep_case(400000 + offs[i], &e);
        if (fabs(e) > worst)
            worst = fabs(e);
    }
    /* better than a third of a frame at 60 fps, whatever the phase */
    CU_ASSERT_TRUE(worst < DT / 3.0);
}

/* A's arm with its fingertip at (tx, ty), its shadow 4 mm off; card 64 at rest */
static shot arm_at(double tx, double ty)
{
    shot s = {1, tx, ty, 4, -4, -100, 51.5, 0};
    return s;
}

/* The verdict on a sweep of card 64 whose hand the tracker lost: blamed, one touch, card 64
 * by A at confidence 0.9 or more, and no UNBLAMED reason; else no touch and that reason.
 * Returns the touch (NULL if none). */
static const kr_event_obs *lost_sweep_verdict(const run *r, int blamed)
{
    const kr_event_obs *o = first(r, KR_REC_TOUCH);
    if (blamed) {
        CU_ASSERT_EQUAL(count(r, KR_REC_TOUCH), 1);
        CU_ASSERT_PTR_NOT_NULL(o);
        if (o) {
            CU_ASSERT_EQUAL(o->rec.card, 64);
            CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
            CU_ASSERT_TRUE(o->rec.confidence >= 0.9);
        }
        CU_ASSERT_FALSE(kr_event_reading_flags(r->ev, 1) & KR_EVENT_FLAG_UNBLAMED);
    } else {
        CU_ASSERT_EQUAL(count(r, KR_REC_TOUCH), 0);
        CU_ASSERT_TRUE(kr_event_reading_flags(r->ev, 1) & KR_EVENT_FLAG_UNBLAMED);
    }
    return o;
}

/* The same sweep with the hand lost by the tracker on the frames the card starts moving
 * (a fast sweep blurred at 30 fps, early_entry): the hand seen on the card right after is
 * blamed (confidence 0.95: B's hand never in view, see late_blame_sure_when_the_other_hand_is_off;
 * 0.6 before flags session 8), and no UNBLAMED reason; a card that
 * moves with no hand at all is still the UNBLAMED reason, with no touch. */
static void test_sweep_with_hand_lost_is_blamed(void)
{
    for (int with_hand = 1; with_hand >= 0; with_hand--) {
        run r;
        run_start(&r);
        const double v = 2000, vc = 2500;
        const int64_t tc = 405000;
        for (int64_t t = 0; t < 900000; t += DT) {
            shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
            double dtc = (t - tc) / 1e6;
            if (t > 250000 && with_hand && (t < tc - DT || t > tc + DT))
                s = arm_at(-100, fmin(15 + v * dtc, 60));
            if (dtc > 0)
                s.c64y = 51.5 + vc * dtc;
            run_frame(&r, t, &s);
        }
        const kr_event_obs *o = lost_sweep_verdict(&r, with_hand);
        if (o)
            CU_ASSERT_TRUE(fabs((double)(o->rec.t_us - tc)) <= 2.0 * (double)o->rec.t_err_us + DT);
        run_end(&r);
    }
}

/* What frame t shows of A's arm in view from 250 to 900 ms: its fingertip at x tx going
 * from y0 to y0 + dy over ramp_us, resting there, then back from 700 ms as fast. */
static shot arm_shot(int64_t t, double ramp_us, double tx, double y0, double dy)
{
    shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
    if (t > 250000 && t < 900000) {
        double f = (t - 250000) / ramp_us;
        if (f > 1)
            f = 1;
        if (t > 700000)
            f = 1 - (t - 700000) / ramp_us;
        s.arm = 1;
        s.tx = tx;
        s.ty = y0 + f * dy;
        s.sx = 3;
        s.sy = -3;
    }
    return s;
}

/* A's hand comes to card 5 (0, -51.5) from 250 ms, rests on it from 450 to 700 ms, then
 * leaves by 900 ms. */
static shot press_shot(int64_t t) { return arm_shot(t, 200000, 0, -300, 300 - 60); }

static void test_press_counts_once(void)
{
    run r;
    run_start(&r);
    r.lag_from = 600000; /* the hand rests on card 5, its press reported */
    r.lag_to = 700000;
    /* A's hand comes to card 5 (0, -51.5) and rests on it, then leaves */
    for (int64_t t = 0; t < 1200000; t += DT) {
        shot s = press_shot(t);
        run_frame(&r, t, &s);
    }
    CU_ASSERT_EQUAL(count(&r, KR_REC_TOUCH), 1);
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    if (o) {
        CU_ASSERT_EQUAL(o->rec.card, 5);
        CU_ASSERT_EQUAL(o->rec.territory, KR_SIDE_A);
        CU_ASSERT_EQUAL(o->cue, 2);
        /* the hand stops at 450 ms, and the picture around its tip never changes after: it
         * came down as it stopped (before: at its stop as fitted, 478 ms, a stop fitted
         * after the rest's start is no later contact) */
        CU_ASSERT_DOUBLE_EQUAL((double)o->rec.t_us, 450000.0, DT);
    }
    /* a hand resting on a card it is known to touch holds nothing back: the horizon stays
     * within a speed window (and a sweep's half window) of the newest frame, and a period
     * (a landing may lie in the frame before a rest's start) (before: the covered card's
     * last clear frame held it, 100 ms and growing) */
    if (getenv("KR_TEST_VERBOSE"))
        printf("press: horizon lag at rest %lld us\n", (long long)r.max_lag_us[0]);
    CU_ASSERT_TRUE(r.max_lag_us[0] <= 60000 + DT);
    run_end(&r);
}

/* test_press_counts_once's press with the frames in [g1_from, g1_to) and [g2_from, g2_to)
 * left out (the frame after each gap says so): its touch's gap_us, -1 without one touch;
 * *made the time of the frame after which it came out. */
static int64_t press_with_gaps(int64_t g1_from, int64_t g1_to, int64_t g2_from, int64_t g2_to, int64_t *made)
{
    run r;
    run_start(&r);
    int64_t prev = -DT;
    for (int64_t t = 0; t < 1200000; t += DT) {
        if ((t >= g1_from && t < g1_to) || (t >= g2_from && t < g2_to))
            continue;
        shot s = press_shot(t);
        run_frame_gap(&r, t, t - prev > 3 * DT / 2 ? t - prev - DT : 0, &s);
        prev = t;
    }
    int64_t g = -1;
    if (count(&r, KR_REC_TOUCH) == 1)
        for (int i = 0; i < r.n_obs; i++)
            if (r.obs[i].rec.type == KR_REC_TOUCH) {
                g = r.obs[i].gap_us;
                *made = r.obs_frame_t[i];
                if (getenv("KR_TEST_VERBOSE"))
                    printf("press with gaps: t %lld gap %lld made after %lld\n", (long long)r.obs[i].rec.t_us,
                           (long long)g, (long long)*made);
            }
    run_end(&r);
    return g;
}

/* Frames missing around a press's moment mark its touch (gap_us: the ruling's "frames
 * missing around the decisive moment"); missing further off, they do not. The gap
 * at the landing still counts whole when one more frame goes missing before the press is
 * decided (only the newest gap was kept: the smaller later one stood for both). */
static void test_gap_near_a_press_marks_it(void)
{
    int64_t made = 0, made2 = 0;
    CU_ASSERT_EQUAL(press_with_gaps(0, 0, 0, 0, &made), 0);
    CU_ASSERT_TRUE_FATAL(made > 450000);
    /* two frames missing where the hand comes down (it stops at 450 ms) */
    CU_ASSERT_EQUAL(press_with_gaps(420000, 460000, 0, 0, &made2), 2 * DT);
    /* missing 0.5 s after the hand left, or early in its descent (150 ms before its moment:
     * not the frames its time is read from) */
    CU_ASSERT_EQUAL(press_with_gaps(1100000, 1140000, 0, 0, &made2), 0);
    CU_ASSERT_EQUAL(press_with_gaps(300000, 340000, 0, 0, &made2), 0);
    /* both: the landing's two frames, and one more missing just before the press came out */
    int64_t g2 = made - DT;
    CU_ASSERT_EQUAL(press_with_gaps(420000, 460000, g2, g2 + DT, &made2), 2 * DT);
}

/* A's hand presses card 5 (0, -51.5), then moves over to card 17 (-200, -51.5) and
 * presses it too: two touches, one per card (a fault on the way back is such a second
 * touch). */
static void test_two_presses_count_twice(void)
{
    run r;
    run_start(&r);
    for (int64_t t = 0; t < 1500000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        if (t > 250000 && t < 1300000) {
            double x = 0, y;
            if (t < 450000)
                y = -300 + (t - 250000) / 200000.0 * 240;
            else {
                y = -60;
                if (t > 700000)
                    x = -200 * fmin(1.0, (t - 700000) / 200000.0); /* 1 m/s across */
            }
            if (t > 1100000)
                y = -60 - (t - 1100000) / 200000.0 * 240;
            s.arm = 1;
            s.tx = x;
            s.ty = y;
            s.sx = 3;
            s.sy = -3;
        }
        run_frame(&r, t, &s);
    }
    CU_ASSERT_EQUAL(count(&r, KR_REC_TOUCH), 2);
    int seen5 = 0, seen17 = 0;
    for (int i = 0; i < r.n_obs; i++)
        if (r.obs[i].rec.type == KR_REC_TOUCH) {
            if (getenv("KR_TEST_VERBOSE"))
                printf("press card %d t %lld\n", r.obs[i].rec.card, (long long)r.obs[i].rec.t_us);
            seen5 += r.obs[i].rec.card == 5;
            seen17 += r.obs[i].rec.card == 17;
        }
    CU_ASSERT_EQUAL(seen5, 1);
    CU_ASSERT_EQUAL(seen17, 1);
    run_end(&r);
}

/* A press decelerating evenly onto card 5 (1 m/s to rest over 200 ms), drawn with its
 * shadow at a fixed offset, so the hand does not come down after it stops: the picture
 * around the tip stops changing at the stop, which is the contact measured (the landing
 * cue; before it, stop + a modelled 50 ms descent). Returns the touch minus the stop. */
static double press_decel_case_at(int64_t t_stop, int64_t dt, int64_t *t_err)
{
    *t_err = 0;
    run r;
    run_start(&r);
    for (int64_t t = 0; t < 1100000; t += dt) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        double ts = (t_stop - t) / 1e6;
        if (t > 200000 && t < 900000) {
            double y = -60;
            if (ts > 0.2)
                y = -60 - 100 - (ts - 0.2) * 1000; /* 1 m/s until 200 ms before the stop */
            else if (ts > 0)
                y = -60 - 2500 * ts * ts;        /* a = 5 m/s^2 */
            s.arm = 1;
            s.tx = 0;
            s.ty = y;
            s.sx = 3;
            s.sy = -3;
        }
        run_frame(&r, t, &s);
    }
    kr_event_config cfg;
    kr_event_config_default(&cfg);
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    double e = 1e9;
    CU_ASSERT_PTR_NOT_NULL(o);
    if (o) {
        e = (double)(o->rec.t_us - t_stop);
        *t_err = o->rec.t_err_us;
        (void)cfg;
        if (getenv("KR_TEST_VERBOSE"))
            printf("press stop %lld period %lld err %.0f us t_err %lld\n", (long long)t_stop, (long long)dt, e, (long long)o->rec.t_err_us);
    }
    run_end(&r);
    return e;
}

static double press_decel_case(int64_t t_stop, int64_t *t_err) { return press_decel_case_at(t_stop, DT, t_err); }

/* The same press at 30 and 120 frames per second: speeds and rests are measured over
 * time, not frames, and the landing is read from the frames themselves, so the press is
 * timed within a frame at either rate and within twice the error it reports (before: the
 * speed over three frames and the stop fitted when the rest was first seen put it 25-40 ms
 * early at 120 fps). */
static void test_press_timing_any_frame_rate(void)
{
    int64_t dts[] = {8333, 33333};
    int64_t offs[] = {2000, 7000, 12000};
    for (int d = 0; d < 2; d++) {
        double worst = 0;
        for (int i = 0; i < 3; i++) {
            int64_t t_err;
            double e = fabs(press_decel_case_at(500000 + offs[i], dts[d], &t_err));
            CU_ASSERT_TRUE(e <= 2.0 * (double)t_err);
            if (e > worst)
                worst = e;
        }
        CU_ASSERT_TRUE(worst < (dts[d] > 12000 ? (double)dts[d] : 12000.0));
    }
}

/* The same press at 15 frames per second: its descent (press_descent_us, 50 ms) is
 * shorter than a period and shows on no frame of its own, so its landing may be read a
 * frame off: its error is a period at least (looks 7154 and 7155 at 15 fps: 9 of 33
 * presses beyond an error of about a third of one, up to 3.1 times). At 30 fps it stays
 * under a period. */
static void test_press_error_a_period_below_the_descent(void)
{
    int64_t offs[] = {2000, 30000, 55000};
    for (int i = 0; i < 3; i++) {
        int64_t t15, t30;
        double e15 = fabs(press_decel_case_at(500000 + offs[i], 66667, &t15));
        (void)press_decel_case_at(500000 + offs[i], 33333, &t30);
        CU_ASSERT_TRUE(t15 >= 66667);
        CU_ASSERT_TRUE(e15 <= (double)t15);
        CU_ASSERT_TRUE(t30 < 33333);
    }
}

/* One drawn press: the hand stops over card 5 at t_stop, then comes down onto it over 70 ms
 * (braking to rest as it lands, the synthetic renderer's press), drawn from above: only its
 * shadow slides under it (0.35 mm per mm of height, a low side light). Returns the touch
 * minus the contact (t_stop + 70 ms), *t_err its reported error (1e9, 0: no touch). */
static double landing_case_seen(int64_t dt, int64_t t_stop, const double *camera, double slope, int64_t *t_err)
{
    int64_t t_contact = t_stop + 70000;
    double e = 1e9;
    *t_err = 0;
    run r;
    run_start(&r);
    if (camera)
        CU_ASSERT_EQUAL(kr_event_set_camera(r.ev, camera[0], camera[1], camera[2]), KR_OK);
    for (int64_t t = 0; t < 1100000; t += dt) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        double ts = (t_stop - t) / 1e6;
        if (t > 200000 && t < 900000) {
            double y = -60, z = 0;
            if (ts > 0.2)
                y = -60 - 100 - (ts - 0.2) * 1000;
            else if (ts > 0)
                y = -60 - 2500 * ts * ts;
            /* height: 30 mm at the stop, down to 0 at contact (cubic, no speed at the end) */
            double u = (t - t_stop) / 70000.0;
            if (u <= 0)
                z = 30;
            else if (u < 1)
                z = 30 * (2 * u * u * u - 3 * u * u + 1) - 21 * (u * u * u - 2 * u * u + u);
            s.arm = 1;
            s.tx = 0;
            s.ty = y;
            s.sx = 3 + slope * z;
            s.sy = -3 - slope * z;
        }
        run_frame(&r, t, &s);
    }
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    CU_ASSERT_PTR_NOT_NULL(o);
    if (o) {
        e = (double)(o->rec.t_us - t_contact);
        *t_err = o->rec.t_err_us;
        if (getenv("KR_TEST_VERBOSE"))
            printf("landing contact %lld period %lld err %.0f us t_err %lld\n", (long long)t_contact, (long long)dt, e,
                   (long long)o->rec.t_err_us);
    }
    run_end(&r);
    return e;
}
static double landing_case(int64_t dt, int64_t t_stop, int64_t *t_err)
{
    return landing_case_seen(dt, t_stop, NULL, 0.35, t_err);
}

/* The camera's nadir (kr_event_set_camera): the same press read at the same time (the drawing's
 * noise aside), its error widened when the camera stands right above its card, 1.3 m up (the
 * fingertips' span over the height against PRESS_NADIR_REF: the tail's 5 ms spread 4.9
 * times, 24 ms, in quadrature), and a little at 150 mm off; not at 600 mm off, nor with no
 * camera set. Bad values are refused. */
static void test_press_error_widens_under_the_camera(void)
{
    const double above[3] = {0, -51.5, 1300}, near[3] = {150, -51.5, 1300}, far[3] = {600, -51.5, 1300};
    for (int64_t dt = 8333; dt <= 33333; dt *= 2) {
        int64_t e0, ea, en, ef;
        const double t0 = landing_case(dt, 500000, &e0);
        CU_ASSERT_DOUBLE_EQUAL(landing_case_seen(dt, 500000, above, 0.35, &ea), t0, 1000); /* (the drawing's noise) */
        CU_ASSERT_DOUBLE_EQUAL(landing_case_seen(dt, 500000, near, 0.35, &en), t0, 1000);
        CU_ASSERT_DOUBLE_EQUAL(landing_case_seen(dt, 500000, far, 0.35, &ef), t0, 1000);
        CU_ASSERT_TRUE(e0 > 0);
        CU_ASSERT_TRUE(ea >= (int64_t)sqrt((double)e0 * e0 + 23000.0 * 23000.0));
        CU_ASSERT_TRUE(en > e0 && en < e0 + 5000);
        CU_ASSERT_EQUAL(ef, e0);
    }
    kr_event_t *ev = NULL;
    kr_event_config cfg;
    kr_event_config_default(&cfg);
    CU_ASSERT_EQUAL_FATAL(kr_event_create(&cfg, &ev), KR_OK);
    CU_ASSERT_EQUAL(kr_event_set_camera(ev, 0, 0, 0), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_event_set_camera(ev, NAN, 0, 1300), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_event_set_camera(NULL, 0, 0, 1300), KR_ERR_INVALID);
    kr_event_destroy(ev);
}

/* A descent that does not show at all (the shadow straight under the hand: a light from
 * above) goes quiet as the hand stops over the card: read there, 70 ms before the contact.
 * With the camera right above the card (kr_event_set_camera) the hand may have come down
 * unseen: put midway to the modelled descent, its contact within twice its error and nearer
 * than before; 600 mm off the nadir the landing stays where it was read (a hand coming down
 * as it stops shows there). */
static void test_press_unseen_descent_under_the_camera(void)
{
    const double above[3] = {0, -51.5, 1300}, far[3] = {600, -51.5, 1300};
    for (int64_t dt = 8333; dt <= 33333; dt *= 2) {
        int64_t e0, ea, ef;
        const double t0 = landing_case_seen(dt, 500000, NULL, 0, &e0);
        const double ta = landing_case_seen(dt, 500000, above, 0, &ea);
        const double tf = landing_case_seen(dt, 500000, far, 0, &ef);
        if (getenv("KR_TEST_VERBOSE"))
            printf("unseen descent dt %lld: %.0f on %lld, under the camera %.0f on %lld, off it %.0f on %lld us\n",
                   (long long)dt, t0, (long long)e0, ta, (long long)ea, tf, (long long)ef);
        CU_ASSERT_TRUE(t0 < -50000);
        CU_ASSERT_TRUE(fabs(ta) < fabs(t0) - 15000);
        CU_ASSERT_TRUE(fabs(ta) <= 2.0 * (double)ea);
        CU_ASSERT_DOUBLE_EQUAL(tf, t0, 1000);
        CU_ASSERT_EQUAL(ef, e0);
    }
}

/* The touch is where the shadow stops moving, within 1.5 frames (1.4 at 120 fps, a frame
 * at 30 and 60) and within twice its reported error, at 30, 60 and 120 fps and any phase
 * of the contact between frames (before: the stop + a modelled 50 ms descent, 20 ms early
 * here whatever the footage showed). */
static void test_press_landing_seen_in_the_shadow(void)
{
    int64_t dts[] = {8333, DT, 33333};
    int64_t offs[] = {0, 5000, 11000};
    for (int d = 0; d < 3; d++)
        for (int i = 0; i < 3; i++) {
            int64_t t_err;
            double e = fabs(landing_case(dts[d], 500000 + offs[i], &t_err));
            CU_ASSERT_TRUE(e <= 1.5 * (double)dts[d]);
            CU_ASSERT_TRUE(e <= 2.0 * (double)t_err);
        }
}

/* The landing between frames: the last frame still changing saw the picture move for a
 * share of its period (its change against the frame before's), and contact follows the
 * last visible motion by the last millimetre's time. At six phases of the contact across
 * a frame, at 30 and 60 fps: the mean error within a quarter of a period, the worst within
 * half of one, each within twice its reported error (before: contact on the last changing
 * frame, mean 0.27 / 0.33 of a period, worst 0.57 / 0.70; now 0.07 / 0.22, 0.12 / 0.36). */
static void test_press_landing_between_frames(void)
{
    int64_t dts[] = {33333, DT};
    for (int d = 0; d < 2; d++) {
        double sum = 0, worst = 0;
        for (int i = 0; i < 6; i++) {
            int64_t t_err;
            double e = fabs(landing_case(dts[d], 500000 + dts[d] * i / 6, &t_err));
            CU_ASSERT_TRUE(e <= 2.0 * (double)t_err);
            sum += e;
            if (e > worst)
                worst = e;
        }
        if (getenv("KR_TEST_VERBOSE"))
            printf("landing period %lld mean %.0f worst %.0f us\n", (long long)dts[d], sum / 6, worst);
        CU_ASSERT_TRUE(sum / 6 <= 0.25 * (double)dts[d]);
        CU_ASSERT_TRUE(worst <= 0.5 * (double)dts[d]);
    }
}

/* A leading point that appears over card 5 by a jump (the tracker switching to a left-over
 * blob of foreground) and stays there did not brake onto the card: with no shadow either,
 * it is not a press (before: a touch of confidence 0.5, a phantom fault). */
static void test_jump_onto_a_card_is_not_a_press(void)
{
    run r;
    run_start(&r);
    for (int64_t t = 0; t < 1100000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        if (t > 250000 && t < 900000) {
            s.arm = 1;
            s.tx = 0;
            s.ty = t < 400000 ? -300 : -60;
        }
        run_frame(&r, t, &s);
    }
    CU_ASSERT_EQUAL(count(&r, KR_REC_TOUCH), 0);
    run_end(&r);
}

static void test_press_stop_between_frames(void)
{
    double worst = 0, sum = 0;
    int64_t offs[] = {2000, 7000, 12000};
    for (int i = 0; i < 3; i++) {
        int64_t t_err;
        double e = fabs(press_decel_case(500000 + offs[i], &t_err));
        CU_ASSERT_TRUE(e <= 2.0 * (double)t_err);
        sum += e;
        if (e > worst)
            worst = e;
    }
    /* the old "rest seen + 50 ms" was off by about 3.5 frames here; a stop fitted when the
     * rest was first seen came out 12-24 ms early; the landing read where the picture around
     * the tip stops changing: within 10 ms of the stop in this drawn case */
    CU_ASSERT_TRUE(sum / 3 < 0.5 * DT);
    CU_ASSERT_TRUE(worst < 0.75 * DT);
}

static void test_hover_is_not_a_touch(void)
{
    run r;
    run_start(&r);
    /* A's hand passes over card 5 without stopping, its shadow well away (high) */
    for (int64_t t = 0; t < 900000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        if (t > 250000 && t < 700000) {
            double f = (t - 250000) / 450000.0;
            s.arm = 1;
            s.tx = -150 + 300 * f;
            s.ty = -60;
            s.sx = 40;
            s.sy = -35;
        }
        run_frame(&r, t, &s);
    }
    CU_ASSERT_EQUAL(count(&r, KR_REC_TOUCH), 0);
    CU_ASSERT_EQUAL(count(&r, KR_REC_PUSH_OUT), 0);
    run_end(&r);
}

static void test_nothing_before_the_reading(void)
{
    run r;
    run_start_at(&r, 5000000); /* the reading starts long after */
    for (int64_t t = 0; t < 700000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        if (t > 250000) {
            s.arm = 1;
            s.tx = 0;
            s.ty = -60;
        }
        run_frame(&r, t, &s);
    }
    CU_ASSERT_EQUAL(count(&r, KR_REC_TOUCH), 0);
    run_end(&r);
}

/* A hand in the field before kami_start is reported at its entry time, after the
 * frame of kami_start: until then the horizon stays at or before the entry. A sweep,
 * a press and a push-out (the scenes above) check the horizon in run_end too. */
static void test_horizon_holds_for_early_entry(void)
{
    run r;
    run_start_at(&r, 500000);
    int64_t h_at_kami = INT64_MIN;
    for (int64_t t = 0; t < 1100000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        if (t > 250000 && t < 800000) {
            double f = (t - 250000) / 100000.0;
            if (f > 1)
                f = 1;
            s.arm = 1;
            s.tx = 300;
            s.ty = -330 + f * 130; /* crosses A's line (y = -254) at about 310 ms, stops at -200 */
            s.sx = 3;
            s.sy = -3;
        }
        run_frame(&r, t, &s);
        if (t < 500000)
            h_at_kami = r.horizon;
    }
    const kr_event_obs *o = first(&r, KR_REC_EARLY_ENTRY);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
    CU_ASSERT_DOUBLE_EQUAL((double)o->rec.t_us, 310000.0, 2.0 * DT);
    CU_ASSERT_TRUE(h_at_kami <= o->rec.t_us);
    /* nothing pending long after the hand left: the horizon is the last frame */
    CU_ASSERT_TRUE(r.horizon > 1100000 - 2 * DT);
    run_end(&r);
}

/* A's hand sweeps card 64 at 400 ms and stays on it; from leave_t it goes back behind
 * A's line (y = -254) at 2 m/s, or (vanish) disappears where it is; with via_y (> 60) it
 * first goes on to y = via_y at 2 m/s, stays there, and goes back from back_t. */
static void sweep_back_scene_via(run *r, int64_t leave_t, int vanish, int64_t end_t, double via_y, int64_t back_t)
{
    run_start(r);
    const int64_t tc = 400000;
    for (int64_t t = 0; t < end_t; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        double dtc = (t - tc) / 1e6;
        if (t > 250000) {
            double y = 15 + 2000 * dtc;
            if (y > 60)
                y = 60;
            if (t > leave_t)
                y = via_y > 60 ? fmin(via_y, 60 + 2000 * (t - leave_t) / 1e6) : 60 - 2000 * (t - leave_t) / 1e6;
            if (via_y > 60 && t > back_t)
                y = via_y - 2000 * (t - back_t) / 1e6;
            s.arm = !(vanish && t > leave_t) && y > -330;
            s.tx = -100;
            s.ty = y;
            s.sx = 4;
            s.sy = -4;
        }
        if (dtc > 0)
            s.c64y = 51.5 + 2500 * dtc;
        run_frame(r, t, &s);
    }
}

/* ... going straight back from leave_t */
static void sweep_back_scene(run *r, int64_t leave_t, int vanish, int64_t end_t)
{
    sweep_back_scene_via(r, leave_t, vanish, end_t, 0, 0);
}

/* Play is over when the hand is back behind its line: settle comes within 250 ms of
 * that, timed when it was back (the old rule waited 350 ms of quiet). */
static void test_settle_soon_after_hands_back(void)
{
    run r;
    sweep_back_scene(&r, 700000, 0, 1600000);
    /* the tip crosses y = -254 at 700 + (60 + 254) / 2 = 857 ms */
    const double back = 857000;
    CU_ASSERT_EQUAL(count(&r, KR_REC_SETTLE), 1);
    for (int i = 0; i < r.n_obs; i++)
        if (r.obs[i].rec.type == KR_REC_SETTLE) {
            if (getenv("KR_TEST_VERBOSE"))
                printf("settle t %lld out at %lld\n", (long long)r.obs[i].rec.t_us, (long long)r.obs_frame_t[i]);
            CU_ASSERT_DOUBLE_EQUAL((double)r.obs[i].rec.t_us, back, 80000);
            CU_ASSERT_TRUE(r.obs_frame_t[i] <= back + 250000);
        }
    CU_ASSERT_EQUAL(kr_event_reading_flags(r.ev, 1) & KR_EVENT_FLAG_HAND_UNSEEN, 0);
    CU_ASSERT_EQUAL(kr_event_reading_flags(r.ev, 1) & KR_EVENT_FLAG_BESIDE, 0);
    run_end(&r);
}

/* A's hand comes to rest beside the field's right side line during play (1 s of frames). */
static void rest_beside(run *r)
{
    for (int64_t t = 0; t < 1000000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        if (t > 250000 && t < 900000) {
            double f = fmin(1.0, (t - 250000) / 250000.0);
            f = f * f * (3 - 2 * f);
            s.arm = 1;
            s.tx = 480;
            s.ty = -330 + 200 * f;
            s.sx = 3;
            s.sy = -3;
        }
        run_frame(r, t, &s);
    }
}

/* A long session: reading records that frames have passed make room for new ones (the
 * detector held 1024 records, about 341 readings, whatever the frames), and the review
 * reasons of a reading numbered past 1024 are kept under its own number. */
static void test_long_session(void)
{
    run r;
    run_start(&r);
    shot still = {0, 0, 0, 0, 0, -100, 51.5, 0};
    run_frame(&r, 0, &still);
    for (int seq = 2; seq <= 400; seq++) { /* 1198 records more, a frame after each reading */
        int64_t k = 200000 + (int64_t)seq * 30000;
        CU_ASSERT_EQUAL(kr_event_reading(r.ev, KR_REC_KAMI_START, seq, 64, k), KR_OK);
        CU_ASSERT_EQUAL(kr_event_reading(r.ev, KR_REC_KIMARIJI, seq, 0, k + 10000), KR_OK);
        CU_ASSERT_EQUAL(kr_event_reading(r.ev, KR_REC_SHIMO_START, seq, 0, k + 20000), KR_OK);
        run_frame(&r, k + 25000, &still);
    }
    run_end(&r);
    /* a hand at rest beside the field during reading 1500: flagged under 1500, not 476 */
    run_start_seq(&r, 1500, 150000);
    rest_beside(&r);
    CU_ASSERT_NOT_EQUAL(kr_event_reading_flags(r.ev, 1500) & KR_EVENT_FLAG_BESIDE, 0);
    CU_ASSERT_EQUAL(kr_event_reading_flags(r.ev, 1500 - 1024), 0);
    run_end(&r);
}

/* During play A's hand comes to rest beside the field's right side line (x > 435 mm): no
 * card there, so its fingertip may have been put off the card it presses: the judge is
 * told (before: nothing, and a missed fault was ruled without review at 120 fps). */
static void test_rest_beside_the_field_is_flagged(void)
{
    run r;
    run_start(&r);
    rest_beside(&r);
    CU_ASSERT_NOT_EQUAL(kr_event_reading_flags(r.ev, 1) & KR_EVENT_FLAG_BESIDE, 0);
    CU_ASSERT_EQUAL(count(&r, KR_REC_TOUCH), 0);
    run_end(&r);
}

/* After play (the sweep scene's settle), A takes hold of its own card 5 and lets go; visit:
 * on the way it crosses into B's territory (where a send would end). */
static unsigned handled_flags(int visit)
{
    run r;
    run_start(&r);
    const int64_t tc = 400000;
    for (int64_t t = 0; t < 3600000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        double dtc = (t - tc) / 1e6;
        if (t > 250000 && t < 1100000) { /* sweep_back_scene's play */
            double y = 15 + 2000 * dtc;
            if (y > 60)
                y = 60;
            if (t > 700000)
                y = 60 - 2000 * (t - 700000) / 1e6;
            s.arm = y > -330;
            s.tx = -100;
            s.ty = y;
            s.sx = 4;
            s.sy = -4;
        }
        if (dtc > 0)
            s.c64y = 51.5 + 2500 * dtc;
        if (t >= 1600000 && t < 2600000) {
            double y = -60;
            if (t < 1800000)
                y = -330 + (t - 1600000) / 200000.0 * 270;
            else if (visit && t >= 2000000 && t < 2200000)
                y = -60 + 180 * sin((t - 2000000) / 200000.0 * 3.14159265);
            else if (t >= 2400000)
                y = -60 - (t - 2400000) / 200000.0 * 270;
            s.arm = 1;
            s.tx = 0;
            s.ty = y;
            s.sx = 3;
            s.sy = -3;
        }
        run_frame(&r, t, &s);
    }
    CU_ASSERT_EQUAL(count(&r, KR_REC_SETTLE), 1);
    unsigned f = kr_event_reading_flags(r.ev, 1);
    run_end(&r);
    return f;
}

/* A card its owner took hold of after play and let go without a move seen: if the hand
 * never went into the other territory no send can be missing (a rearrangement changes no
 * count), so no reason for the judge; if it did, the judge is told (before: told always). */
static void test_handled_needs_a_possible_send(void)
{
    CU_ASSERT_EQUAL(handled_flags(0) & KR_EVENT_FLAG_HANDLED, 0);
    CU_ASSERT_NOT_EQUAL(handled_flags(1) & KR_EVENT_FLAG_HANDLED, 0);
}

/* A sweeps the read card 64 at 400 ms, its hand stays in the field (no settle), and 1.2 s
 * later comes forward onto its own card 5 and rests: as a fault it would decide the ruling, yet it may be the
 * tidying after play of a settle not seen, so a judge looks (before: confidence 0.92). */
static void test_late_own_card_touch_is_weak(void)
{
    run r;
    run_start(&r);
    const int64_t tc = 400000;
    for (int64_t t = 0; t < 2200000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        double dtc = (t - tc) / 1e6;
        if (t > 250000) {
            double x = -100, y = 15 + 2000 * dtc;
            if (y > 60)
                y = 60;
            if (t > 1000000) { /* down between cards 17 and 5, still deep in the field */
                double f = fmin(1.0, (t - 1000000) / 300000.0);
                y = 60 - 180 * f * f * (3 - 2 * f);
            }
            if (t > 1300000) { /* then forward onto card 5 (0, -51.5), braking, at rest from 1.6 s */
                double f = fmin(1.0, (t - 1300000) / 300000.0);
                f = f * f * (3 - 2 * f);
                x = -100 + 100 * f;
                y = -120 + 60 * f;
            }
            s.arm = 1;
            s.tx = x;
            s.ty = y;
            s.sx = 4;
            s.sy = -4;
        }
        if (dtc > 0)
            s.c64y = 51.5 + 2500 * dtc;
        run_frame(&r, t, &s);
    }
    int n = 0;
    for (int i = 0; i < r.n_obs; i++)
        if (r.obs[i].rec.type == KR_REC_TOUCH && r.obs[i].rec.card == 5) {
            n++;
            CU_ASSERT_TRUE(r.obs[i].rec.confidence < 0.9);
        }
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(count(&r, KR_REC_SETTLE), 0);
    run_end(&r);
}

/* A sweeps card 64 at 400 ms; from 700 ms its leading point goes on past B's line to
 * y = 330 (where B kneels: the tracker's point at the wrong end of merged blobs) and stays
 * there till 1.2 s, then the hand goes back behind A's line (y = -254) at 2 m/s. A point
 * past the other player's line is not a hand back home: play settles only once it is back
 * (before: settled at 0.87 s, as soon as the point left the field, as if behind its line). */
static void test_point_past_the_other_line_is_not_back(void)
{
    run r;
    sweep_back_scene_via(&r, 700000, 0, 2000000, 330, 1200000);
    /* the tip crosses y = -254 at 1200 + (330 + 254) / 2 = 1492 ms */
    CU_ASSERT_EQUAL(count(&r, KR_REC_SETTLE), 1);
    const kr_event_obs *o = first(&r, KR_REC_SETTLE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    if (getenv("KR_TEST_VERBOSE"))
        printf("settle t %lld\n", (long long)o->rec.t_us);
    CU_ASSERT_DOUBLE_EQUAL((double)o->rec.t_us, 1492000.0, 80000);
    run_end(&r);
}

/* A hand lost from view deep in the field is not back: no settle for a second, and the
 * reading gets a reason for the judge. */
static void test_hand_lost_in_field_is_not_back(void)
{
    run r;
    sweep_back_scene(&r, 700000, 1, 1600000);
    for (int i = 0; i < r.n_obs; i++)
        if (r.obs[i].rec.type == KR_REC_SETTLE)
            CU_ASSERT_TRUE(r.obs[i].rec.t_us >= 700000 + 1000000 - 2 * DT);
    CU_ASSERT_NOT_EQUAL(kr_event_reading_flags(r.ev, 1) & KR_EVENT_FLAG_HAND_UNSEEN, 0);
    run_end(&r);
}

/* A hand that entered the lines after the previous shimo_start and went back out before
 * kami_start still entered early (the old rule wanted it still in at kami_start). */
static void test_early_entry_withdrawn(void)
{
    run r;
    run_start_at(&r, 1600000);
    for (int64_t t = 0; t < 2000000; t += DT) {
        shot s = arm_shot(t, 100000, 300, -330, 130);
        run_frame(&r, t, &s);
    }
    const kr_event_obs *o = first(&r, KR_REC_EARLY_ENTRY);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(count(&r, KR_REC_EARLY_ENTRY), 1);
    CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
    CU_ASSERT_DOUBLE_EQUAL((double)o->rec.t_us, 310000.0, 2.0 * DT);
    run_end(&r);
}

/* Every flag bit the detector can set has words for the judge; other bits have none. */
static void test_flag_reasons(void)
{
    const char *r = kr_event_flag_reason(KR_EVENT_FLAG_CARD_LOST);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT(strstr(r, "card") != NULL);
    unsigned all[] = {KR_EVENT_FLAG_CARD_LOST, KR_EVENT_FLAG_HAND_UNSEEN, KR_EVENT_FLAG_SEND_BY_HAND,
                      KR_EVENT_FLAG_HANDLED, KR_EVENT_FLAG_UNBLAMED, KR_EVENT_FLAG_OBSCURED,
                      KR_EVENT_FLAG_KNOCK_ORDER, KR_EVENT_FLAG_BESIDE};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        CU_ASSERT_PTR_NOT_NULL(kr_event_flag_reason(all[i]));
        for (size_t j = 0; j < i; j++)
            CU_ASSERT(all[i] != all[j] && strcmp(kr_event_flag_reason(all[i]), kr_event_flag_reason(all[j])));
    }
    CU_ASSERT_PTR_NULL(kr_event_flag_reason(0));
    CU_ASSERT_PTR_NULL(kr_event_flag_reason(1u << 31));
}

/* ---- sweep session 6: a sweep timed from the card's own motion ---- */

/* A's fingertip crosses card 64's near edge (y = 15 mm) at te still in the air (seen from
 * above, nothing shows it): the card starts moving air_us later, at contact, at 2.5 m/s.
 * Frames every dt_us. Returns the touch's error (us) and its t_err. */
static void sweep_air_case(int64_t te, int64_t air_us, int64_t dt_us, double *err_us, int64_t *t_err)
{
    run r;
    run_start(&r);
    const double v = 2000, vc = 2500;
    const int64_t tc = te + air_us;
    for (int64_t t = 0; t < 900000; t += dt_us) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        if (t > 250000) {
            double y = 15 + v * (t - te) / 1e6;
            s.arm = 1;
            s.tx = -100;
            s.ty = y > 60 ? 60 : y;
            s.sx = 4;
            s.sy = -4;
        }
        if (t > tc)
            s.c64y = 51.5 + vc * (t - tc) / 1e6;
        run_frame(&r, t, &s);
    }
    CU_ASSERT_EQUAL(count(&r, KR_REC_TOUCH), 1);
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(o->rec.card, 64);
    CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
    CU_ASSERT_EQUAL(o->cue, 1);
    *err_us = (double)(o->rec.t_us - tc);
    *t_err = o->rec.t_err_us;
    if (getenv("KR_TEST_VERBOSE"))
        printf("sweep in the air: dt %lld tc %lld err %.0f us t_err %lld\n", (long long)dt_us, (long long)tc, *err_us,
               (long long)o->rec.t_err_us);
    run_end(&r);
}

/* The fingertip over the card's edge 12 ms before contact (the hand still coming down):
 * timed from the path's entry, the touch was 12 ms early; from the card's motion, within
 * 4 ms at 60 and 120 fps whatever the phase, and its t_err covers its error. */
static void test_sweep_timed_from_card_motion(void)
{
    const int64_t dts[2] = {16667, 8333}, te[3] = {401000, 405500, 411200};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            double e;
            int64_t te_us;
            sweep_air_case(te[j], 12000, dts[i], &e, &te_us);
            CU_ASSERT_TRUE(fabs(e) < 4000);
            CU_ASSERT_TRUE(fabs(e) <= 2.0 * (double)te_us);
            CU_ASSERT_TRUE(te_us < 8000); /* from the path's entry: 10.4 ms and more */
        }
}

/* At 30 fps and below the card flies off before its motion can be fitted (a fit needs three
 * frames there): the sweep is timed from the path alone. The fingertip is over the card from
 * the path's entry on and lands before it has crossed the card (73 mm at 2 m/s here) and
 * before the card is seen moved: put midway, the touch is within 0.6 of a period of the
 * contact and within two of its errors whether the hand touched down as it entered or
 * 30 ms later, early for one and late for the other (timed at the entry, it was up to 30 ms
 * early, never late). */
static void test_sweep_unfitted_lands_midway(void)
{
    const int64_t dts[3] = {33333, 40000, 41667}, airs[4] = {0, 10000, 20000, 30000};
    for (int i = 0; i < 3; i++) {
        double lo = 0, hi = 0;
        for (int j = 0; j < 4; j++) {
            double e;
            int64_t t_err;
            sweep_air_case(401000, airs[j], dts[i], &e, &t_err);
            CU_ASSERT_TRUE(fabs(e) <= 0.6 * (double)dts[i]);
            CU_ASSERT_TRUE(fabs(e) <= 2.0 * (double)t_err);
            lo = fmin(lo, e);
            hi = fmax(hi, e);
        }
        CU_ASSERT_TRUE(lo < -3000 && hi > 3000);
    }
}

/* One frame of the scene with card 88 (B's far row, 150, 217.5) at y c88y and A's arm
 * reaching (tx, ty) when arm is set; like run_frame otherwise. */
static void run_frame88(run *r, int64_t t_us, int arm, double tx, double ty, double c88y)
{
    memcpy(frame, base, sizeof base);
    for (int k = 0; k < NCARDS; k++)
        draw_card(frame, layout[k].x_mm, k == 4 ? c88y : layout[k].y_mm);
    if (arm)
        draw_arm(frame, -60, tx, ty, 4, -4, 1);
    kr_image_t im = {FW, FH, FW * 3, 3, frame};
    const kr_track_frame *fr;
    CU_ASSERT_EQUAL_FATAL(kr_track_update(r->t, &im, t_us, 0, &fr), KR_OK);
    const kr_event_obs *o;
    int n;
    int64_t h = kr_event_horizon(r->ev);
    CU_ASSERT_EQUAL_FATAL(kr_event_update(r->ev, fr, &o, &n), KR_OK);
    for (int i = 0; i < n; i++) {
        if (o[i].rec.t_us < h)
            r->early++;
        if (r->n_obs < 64)
            r->obs[r->n_obs++] = o[i];
    }
    r->horizon = kr_event_horizon(r->ev);
}

/* 30 fps: A's hand, lost by the tracker on the frame the card moves (blurred), sweeps card
 * 88 out of the field in one frame (4 m/s: 133 mm a frame); the hand is seen over the card's
 * place on the next frame. The hand near the card just before was not seen on that frame,
 * and the card was out of the field on it: no hand was looked for after it (opp_take_send
 * and push_out at 30 fps had no touch); now the hand seen on it is blamed, a touch of
 * confidence 0.95 (B's hand never in view; 0.6 before flags session 8), besides the push-out.
 * sweep_out_in_one_frame: the scene into r (started here, ended by the caller), the hand at
 * 2 m/s reaching the card's edge (y = 181) at te, the card set off at vc mm/s 5 ms later. */
static void sweep_out_in_one_frame(int64_t te, double vc, run *r)
{
    const int64_t dt = 33333, tc = te + 5000;
    run_start(r);
    for (int64_t t = 0; t < 900000; t += dt) {
        double y = 181 + 2000.0 * (t - te) / 1e6, c88y = 217.5;
        if (t > tc)
            c88y += vc * (t - tc) / 1e6;
        int arm = t > 200000 && !(t > tc && t < tc + dt); /* lost on the frame the card moves */
        run_frame88(r, t, arm, 150, y > 215 ? 215 : y, c88y > 420 ? 420 : c88y);
    }
}

static void test_sweep_out_in_one_frame_is_blamed(void)
{
    const int64_t tc = 410000;
    run r;
    sweep_out_in_one_frame(405000, 4000, &r);
    CU_ASSERT_EQUAL(r.early, 0);
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    CU_ASSERT_PTR_NOT_NULL(o);
    if (o) {
        CU_ASSERT_EQUAL(o->rec.card, 88);
        CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
        CU_ASSERT_TRUE(o->rec.confidence >= 0.9);
        CU_ASSERT_TRUE(fabs((double)(o->rec.t_us - tc)) <= 2.0 * (double)o->rec.t_err_us);
    }
    const kr_event_obs *po = first(&r, KR_REC_PUSH_OUT);
    CU_ASSERT_PTR_NOT_NULL(po);
    if (po)
        CU_ASSERT_EQUAL(po->rec.card, 88);
    if (getenv("KR_TEST_VERBOSE") && o)
        printf("sweep out in one frame: err %lld t_err %lld\n", (long long)(o->rec.t_us - tc), (long long)o->rec.t_err_us);
    run_end(&r);
}

/* The same with the hand 35 mm or more off the card on the frames before (no hand near it
 * as it set off: unblamed) and the card swept out at 12 m/s from 425 ms: wholly past the
 * line (its near edge past y = 254 from 431 ms) on the frame the hand is lost (433 ms), no
 * hand in view to name for the push-out. It is held until the hand seen on the card on the
 * next frame is blamed for the sweep, then is A's, within twice its error of the true one
 * (look 7107 early_entry at 30 fps: card 55's push-out was dropped, its touch alone seen). */
static void test_push_out_with_the_hand_lost_waits_for_the_blame(void)
{
    const int64_t tc = 425000, t_out = tc + (int64_t)((254 + KR_TRACK_CARD_H_MM / 2 - 217.5) / 12000.0 * 1e6);
    run r;
    sweep_out_in_one_frame(tc - 5000, 12000, &r);
    CU_ASSERT_EQUAL(r.early, 0);
    const kr_event_obs *o = first(&r, KR_REC_TOUCH), *po = first(&r, KR_REC_PUSH_OUT);
    CU_ASSERT_TRUE(o && o->rec.card == 88 && o->rec.player == KR_SIDE_A);
    CU_ASSERT_PTR_NOT_NULL(po);
    if (po) {
        if (getenv("KR_TEST_VERBOSE"))
            printf("push-out with the hand lost: %lld (true %lld) +- %lld, %.2f\n", (long long)po->rec.t_us,
                   (long long)t_out, (long long)po->rec.t_err_us, po->rec.confidence);
        CU_ASSERT_EQUAL(po->rec.card, 88);
        CU_ASSERT_EQUAL(po->rec.player, KR_SIDE_A);
        CU_ASSERT_TRUE(llabs(po->rec.t_us - t_out) <= 2 * po->rec.t_err_us);
        CU_ASSERT_TRUE(o && po->rec.t_us > o->rec.t_us);
    }
    run_end(&r);
}

/* The hand lost on the frames the card starts moving (as in sweep_with_hand_lost_is_blamed)
 * with a slow card (1 m/s: the first frames after contact show it shifted a few mm, which a
 * card's change does not show): the touch, blamed on the hand seen after, is put in the
 * window that starts where the card was last seen unchanged with no hand over it, and its
 * t_err covers the error (within 2 t_err) whatever the phase, at 60 and 120 fps. */
static void test_blamed_sweep_error_is_honest(void)
{
    const int64_t dts[2] = {16667, 8333}, offs[3] = {2000, 7000, 12500};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            const int64_t dt = dts[i], tc = 400000 + offs[j];
            const double v = 2000, vc = 1000;
            run r;
            run_start(&r);
            for (int64_t t = 0; t < 900000; t += dt) {
                shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
                double dtc = (t - tc) / 1e6;
                if (t > 250000 && (t < tc - 16667 || t > tc + 16667)) {
                    double y = 15 + v * dtc;
                    s.arm = 1;
                    s.tx = -100;
                    s.ty = y > 60 ? 60 : y;
                    s.sx = 4;
                    s.sy = -4;
                }
                if (dtc > 0)
                    s.c64y = 51.5 + vc * dtc;
                run_frame(&r, t, &s);
            }
            const kr_event_obs *o = first(&r, KR_REC_TOUCH);
            CU_ASSERT_PTR_NOT_NULL(o);
            if (o) {
                double e = (double)(o->rec.t_us - tc);
                if (getenv("KR_TEST_VERBOSE"))
                    printf("blamed sweep: dt %lld tc %lld err %.0f t_err %lld\n", (long long)dt, (long long)tc, e,
                           (long long)o->rec.t_err_us);
                CU_ASSERT_TRUE(fabs(e) <= 2.0 * (double)o->rec.t_err_us);
            }
            run_end(&r);
        }
}

/* 24 fps, a long exposure: A's hand comes at card 64 at 2.5 m/s and is seen last 25 ms
 * before it touches (y = -47.5 at 375 ms); on every frame after, the blur leaves the tracker
 * no hand (way 0), or only a stub of the arm 350 mm away (way 1: its leading point jumped),
 * never a hand on the card; the card slides off at 2.5 m/s (look 7117 early_entry,
 * fault_way_back, send_back: the sweep's touch was missed, the card moved unblamed). The
 * path, carried on from its last sighting, enters the card: A's touch, within twice its
 * error (under a period), sure (B's hand never in view), no UNBLAMED. Way 2: the same hand
 * 200 mm to the card's side, lost alike: its path passes the card by, no touch, UNBLAMED.
 * Way 3, at 60 fps: the hand seen last 33 ms before it touches, lost on the two frames
 * before the card is seen moving (look 7121 send_back, a 60 fps exposure of a whole period):
 * A's touch as in ways 0 and 1. Way 4: as way 1, and on the frame before the last sighting
 * the leading point is on the arm, 250 mm off the hand's way towards A's edge (look 7120
 * fault_way_back at 25 fps: A's point on the hand, the arm, the hand, then a stub): that
 * frame is the excursion, not the last sighting (before: the last sighting, between two
 * frames on the arm, was taken for it and the sweep was not carried on). Way 5: as way 0,
 * at 60 fps as way 3, and on the last frame before the loss the leading point is 140 mm to
 * the path's side, at (40, -100) mm (less than a jump from the frame before; 144 mm off
 * where the path went: the tracker's point on another part of a blurred arm, look 7138
 * opp_take_send at 30 fps): carried on from the sighting before it, a period longer
 * (before: carried from that point, sideways, past the card: no touch, UNBLAMED). Way 6: as
 * way 1, with the stub at (-250, -155) mm: 185 mm from the last sighting, under a jump, but
 * 259 mm off where the path went (look 7144 match_b at 30 fps: B's point put back on the
 * arm's root as its sweep went on blurred); the break is found there (before: none, no
 * touch, UNBLAMED). */
static void test_sweep_lost_on_its_way_is_carried_on(void)
{
    const int64_t tc = 400000;
    for (int way = 0; way < 7; way++) {
        const int64_t dt = way == 3 || way == 5 ? 16667 : 41667,
                      seen_to = way == 3 || way == 5 ? 370000 : 380000; /* (frames at dt k) */
        run r;
        run_start(&r);
        const double v = 2500, vc = 2500;
        for (int64_t t = 0; t < 1200000; t += dt) {
            shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
            double dtc = (t - tc) / 1e6;
            if (way == 4 && t > 300000 && t < 350000)
                s = arm_at(-330, -250);
            else if (t > 250000 && t <= seen_to)
                s = arm_at(way == 2 ? 100 : -100, 15 + v * dtc);
            else if (t > seen_to && (way == 1 || way == 4))
                s = arm_at(-350, -300);
            else if (t > seen_to && way == 6)
                s = arm_at(-250, -155);
            if (way == 5 && t > seen_to - dt && t <= seen_to)
                s = arm_at(40, -100);
            if (dtc > 0)
                s.c64y = 51.5 + vc * dtc;
            run_frame(&r, t, &s);
        }
        const kr_event_obs *o = lost_sweep_verdict(&r, way != 2);
        if (getenv("KR_TEST_VERBOSE") && o)
            printf("sweep lost on its way %d: err %lld t_err %lld conf %.2f\n", way, (long long)(o->rec.t_us - tc),
                   (long long)o->rec.t_err_us, o->rec.confidence);
        if (o) {
            CU_ASSERT_TRUE(o->rec.t_err_us < dt);
            CU_ASSERT_TRUE(llabs(o->rec.t_us - tc) <= 2 * o->rec.t_err_us);
        }
        run_end(&r);
    }
}

/* 60 fps: A's hand comes onto card 64; on the frame the card starts moving the tracker's
 * leading point is thrown 300 mm back along the arm (faster than a hand moves: the blob on
 * another part of the arm, early_entry at 60 fps), then is seen on the card again. The hand
 * was near the card just before and present: it was only remembered as the last toucher,
 * no touch. Now the jump counts as the hand lost: the hand seen on the card is blamed. */
static void test_sweep_with_lead_jump_is_blamed(void)
{
    run r;
    run_start(&r);
    const double v = 2000, vc = 2500;
    const int64_t tc = 405000;
    for (int64_t t = 0; t < 900000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        double dtc = (t - tc) / 1e6;
        if (t > 250000) {
            double y = 15 + v * dtc;
            s.arm = 1;
            s.tx = -100;
            s.ty = t > tc && t < tc + DT ? -300 : y > 60 ? 60 : y; /* thrown back on one frame */
            s.sx = 4;
            s.sy = -4;
        }
        if (dtc > 0)
            s.c64y = 51.5 + vc * dtc;
        run_frame(&r, t, &s);
    }
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    CU_ASSERT_PTR_NOT_NULL(o);
    if (o) {
        CU_ASSERT_EQUAL(o->rec.card, 64);
        CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
        CU_ASSERT_TRUE(fabs((double)(o->rec.t_us - tc)) <= 2.0 * (double)o->rec.t_err_us);
        if (getenv("KR_TEST_VERBOSE"))
            printf("lead jump: err %lld t_err %lld conf %.2f\n", (long long)(o->rec.t_us - tc),
                   (long long)o->rec.t_err_us, o->rec.confidence);
    }
    run_end(&r);
}

/* ---- press session 6 ------------------------------------------------------------------ */

/* A's leading point appears over card 5 by a jump from behind its line (as in
 * test_jump_onto_a_card_is_not_a_press) and rests there, drawn with its shadow offset by
 * (sx, sy) mm; *conf gets the confidence of the one touch reported (-1 none). Returns the
 * number of touches. */
static int jump_press(double sx, double sy, double *conf)
{
    run r;
    run_start(&r);
    for (int64_t t = 0; t < 1100000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        if (t > 250000 && t < 900000) {
            s.arm = 1;
            s.tx = 0;
            s.ty = t < 400000 ? -300 : -60;
            s.sx = sx;
            s.sy = sy;
        }
        run_frame(&r, t, &s);
    }
    int n = count(&r, KR_REC_TOUCH);
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    *conf = o ? o->rec.confidence : -1;
    run_end(&r);
    return n;
}

/* A leading point that jumped onto card 5 with the hand's shadow seen 85 mm off it on
 * every frame it rested there (held high, or not a hand at all: the shadow never meets
 * it) is not a press (before: confidence 0.5, a phantom touch that changed a ruling at
 * 120 fps, dead_fault). With the shadow meeting it (the hand down on the card, the
 * tracker putting its leading point back on the fingertip by a jump) it is a press as
 * sure as any (before: 0.5, and the ruling it decided flagged, fault_way_back 120 fps). */
static void test_press_needs_its_shadow_to_meet_it(void)
{
    double conf;
    CU_ASSERT_EQUAL(jump_press(60, -60, &conf), 0);
    CU_ASSERT_EQUAL(jump_press(3, -3, &conf), 1);
    CU_ASSERT_TRUE(conf >= 0.9);
}

/* Frames made by hand for the detector alone (no tracker): cards at rest where the
 * layout puts them, hand A's leading point on a path of key points (straight at constant
 * speed between them; x > 1e8: not in view), its shadow meeting the tip. */
typedef struct key_pt {
    int64_t t;
    double  x, y;
    int     blob; /* 1: a still blob with no shadow (what an arm leaves behind), not a hand;
                   * 2: a hand whose leading point is at the edge of the view (at_view_edge) */
} key_pt;

typedef struct fake {
    kr_track_card  cards[2];
    kr_track_frame fr;
    kr_event_t    *ev;
    kr_event_obs   obs[64];
    int            n_obs;
    double         near;  /* the hand's near_area_mm2 on the next frames (0: not given) */
    double         near_own; /* ... its near_own_mm2 (0: the same as near) */
    const key_pt  *path_b;   /* hand B's leading point (NULL: B never in view; not owned) */
    int            n_b;      /* ... its key points */
} fake;

/* The fake's two cards where lay puts them (NULL: 64 in B's territory, 5 in A's, apart). */
static void fake_start_with(fake *f, const kr_track_card_init *lay, int32_t read_card, int64_t kami_t)
{
    static const kr_track_card_init apart[2] = {{64, KR_TRACK_B, -100, 51.5}, {5, KR_TRACK_A, -380, -51.5}};
    if (!lay)
        lay = apart;
    memset(f, 0, sizeof *f);
    for (int k = 0; k < 2; k++) {
        kr_track_card *c = &f->cards[k];
        c->id = lay[k].id;
        c->owner = lay[k].owner;
        c->x_mm = c->rest_x_mm = lay[k].x_mm;
        c->y_mm = c->rest_y_mm = lay[k].y_mm;
        c->visible = 1;
    }
    f->fr.ready = 1;
    f->fr.n_cards = 2;
    f->fr.cards = f->cards;
    kr_event_config cfg;
    kr_event_config_default(&cfg);
    CU_ASSERT_EQUAL_FATAL(kr_event_create(&cfg, &f->ev), KR_OK);
    kr_event_reading(f->ev, KR_REC_KAMI_START, 1, read_card, kami_t);
}

static void fake_start(fake *f, int32_t read_card, int64_t kami_t) { fake_start_with(f, NULL, read_card, kami_t); }

/* Player p's hand (0 A, 1 B: its arm from y = -330 or 330) at time t on its path of n key
 * points: its leading point, the picture around its tip changing by chg, its blob area. */
static void fake_hand(const fake *f, kr_track_hand *h, int p, int64_t t, const key_pt *path, int n, double chg,
                      double area)
{
    int i = 0;
    while (i + 1 < n && path[i + 1].t <= t)
        i++;
    double x = path[i].x, y = path[i].y;
    if (i + 1 < n && t > path[i].t && path[i].x < 1e8 && path[i + 1].x < 1e8) {
        double u = (double)(t - path[i].t) / (double)(path[i + 1].t - path[i].t);
        x += u * (path[i + 1].x - path[i].x);
        y += u * (path[i + 1].y - path[i].y);
    }
    if (t >= path[0].t && x < 1e8) {
        const double base_y = p ? 330 : -330;
        h->present = 1;
        h->lead_x_mm = x;
        h->lead_y_mm = y;
        h->base_x_mm = x;
        h->base_y_mm = base_y;
        h->bbox_mm[0] = x - 40;
        h->bbox_mm[1] = p ? y : base_y;
        h->bbox_mm[2] = x + 40;
        h->bbox_mm[3] = p ? base_y : y;
        h->area_mm2 = area;
        h->side = 1;
        h->in_field = fabs(x) <= KR_TRACK_FIELD_HALF_W_MM && fabs(y) <= KR_TRACK_FIELD_HALF_H_MM;
        h->shadow_px = path[i].blob == 1 ? 0 : 20;
        h->shadow_dist_mm = path[i].blob == 1 ? -1 : 5;
        h->at_view_edge = path[i].blob == 2;
        h->tip_change = chg;
        h->near_area_mm2 = f->near;
        h->near_own_mm2 = f->near_own > 0 ? f->near_own : f->near;
    }
}

/* One frame at time t: hand A on its path, the picture around its tip changing by chg
 * (tip_change), its blob area mm^2 (arm and hand); hand B on f->path_b (if any), the picture
 * around its tip unchanged. */
static void fake_frame_area(fake *f, int64_t t, const key_pt *path, int n, double chg, double area)
{
    memset(&f->fr.hands, 0, sizeof f->fr.hands);
    fake_hand(f, &f->fr.hands[0], 0, t, path, n, chg, area);
    if (f->path_b)
        fake_hand(f, &f->fr.hands[1], 1, t, f->path_b, f->n_b, 0, 20000);
    f->fr.t_us = t;
    const kr_event_obs *o;
    int no;
    CU_ASSERT_EQUAL_FATAL(kr_event_update(f->ev, &f->fr, &o, &no), KR_OK);
    for (int k = 0; k < no && f->n_obs < 64; k++)
        f->obs[f->n_obs++] = o[k];
}

static void fake_frame_chg(fake *f, int64_t t, const key_pt *path, int n, double chg)
{
    fake_frame_area(f, t, path, n, chg, 20000);
}

static void fake_frame(fake *f, int64_t t, const key_pt *path, int n) { fake_frame_chg(f, t, path, n, 0); }

/* After play A takes hold of its card 5 in the column by the side line, lifts it with its
 * leading point put beside the field (the arm's far edge) for 300 ms, carries it into B's
 * territory and puts it down there slowly: the card is seen at rest there 1.3 s after the
 * hand was beside the field. A send, seen: no reason for review (before: the hand beside
 * the field was taken for a hand gone back, the card for let go, and a second later, the
 * card not yet seen moved, HANDLED flagged; double and send_back at 30-120 fps). */
static void test_hand_beside_the_field_has_not_let_go(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -330, 0}, {500000, -100, 60, 0}, {900000, -100, 60, 0}, {1200000, -100, -330, 0}, /* press 64 */
        {1300000, 1e9, 0, 0},                                                                   /* gone */
        {1600000, -380, -330, 0}, {1900000, -380, -60, 0}, {2300000, -380, -60, 0},                   /* holds 5 */
        {2400000, -450, -60, 0}, {2700000, -450, -60, 0},                                           /* beside */
        {3000000, -300, 100, 0}, {4200000, -300, 100, 0}, {4500000, -300, -330, 0}, {4600000, 1e9, 0, 0}, /* puts it in B */
    };
    const int np = (int)(sizeof path / sizeof path[0]);
    for (int64_t t = 0; t < 5000000; t += DT) {
        kr_track_card *c = &f.cards[1];
        if (t >= 2700000 && t < 4000000) { /* carried */
            c->displaced = c->moving = 1;
            c->visible = 0.2;
        } else if (t >= 4000000) { /* at rest in B's territory */
            c->displaced = c->moving = 0;
            c->visible = 1;
            c->x_mm = c->rest_x_mm = -300;
            c->y_mm = c->rest_y_mm = 100;
        }
        fake_frame(&f, t, path, np);
    }
    int sends = 0, settles = 0, touches = 0;
    for (int i = 0; i < f.n_obs; i++) {
        sends += f.obs[i].rec.type == KR_REC_SEND;
        settles += f.obs[i].rec.type == KR_REC_SETTLE;
        touches += f.obs[i].rec.type == KR_REC_TOUCH;
    }
    CU_ASSERT_EQUAL(touches, 1);
    CU_ASSERT_EQUAL(settles, 1);
    CU_ASSERT_EQUAL(sends, 1);
    CU_ASSERT_EQUAL(kr_event_reading_flags(f.ev, 1) & KR_EVENT_FLAG_HANDLED, 0);
    CU_ASSERT_EQUAL(kr_event_reading_flags(f.ev, 1) & KR_EVENT_FLAG_SEND_BY_HAND, 0);
    kr_event_destroy(f.ev);
}

/* A presses card 64 deep in the field and draws back behind its line; 50 ms later, for
 * one frame, a still blob with no shadow shows deep in the field where the arm was (the
 * background not yet caught up with it), then nothing. The hand was seen back: no reason
 * for review, and play settles (before: the blob was taken for the hand, lost from view
 * deep in the field: HAND_UNSEEN, reading_void at every rate). A hand really lost deep
 * in the field is still flagged. */
static unsigned ghost_flags(int lost_deep)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt back[] = {
        {250000, -100, -330, 0}, {500000, -100, 60, 0}, {900000, -100, 60, 0}, {1200000, -100, -330, 0},
        {1216000, 1e9, 0, 0}, {1250000, 120, -115, 1}, {1266000, 1e9, 0, 0},
    };
    const key_pt lost[] = {
        {250000, -100, -330, 0}, {500000, -100, 60, 0}, {900000, -100, 60, 0}, {1000000, -100, -60, 0}, {1016000, 1e9, 0, 0},
    };
    for (int64_t t = 0; t < 1900000; t += DT) /* (a hand lost deep is waited for 1 s) */
        fake_frame(&f, t, lost_deep ? lost : back, lost_deep ? 5 : 7);
    int settles = 0;
    for (int i = 0; i < f.n_obs; i++)
        settles += f.obs[i].rec.type == KR_REC_SETTLE;
    CU_ASSERT_EQUAL(settles, !lost_deep);
    unsigned fl = kr_event_reading_flags(f.ev, 1);
    kr_event_destroy(f.ev);
    return fl;
}

static void test_still_blob_left_behind_is_not_the_hand(void)
{
    CU_ASSERT_EQUAL(ghost_flags(0) & KR_EVENT_FLAG_HAND_UNSEEN, 0);
    CU_ASSERT_NOT_EQUAL(ghost_flags(1) & KR_EVENT_FLAG_HAND_UNSEEN, 0);
}

/* A presses card 64 and draws back; its leading point stays on what the arm left 150 mm
 * in from A's line (a print: no shadow, a still picture) while the hand goes on home:
 * twice the point hops to the hand at its line and back onto the print (140 and 150 mm in a
 * frame, under a jump), then it is gone (way 1). Hops onto a print are no sightings: the
 * hand was last seen at its line, play settles and no reason goes to the judge (before:
 * lost deep in the field, HAND_UNSEEN; looks 7133 and 7136 both_fault). Way 0: the same
 * hops onto a hand seen with its shadow there are sightings: lost deep, flagged. Way 2: no
 * hand; the print itself draws its point home in steps of 70 and 64 mm (the arm's trail
 * breaking up), to 20 mm in from the line, then is gone: sightings, the last near the line, so no
 * reason either (look 7143 both_fault, flagged by a draft that took any move of 60 mm onto
 * a print for a hop). Returns the reading's flags; *settle_t the settle's time (-1: none by
 * 1.9 s). */
static unsigned print_hop_flags(int way, int64_t *settle_t)
{
    fake f;
    fake_start(&f, 64, 150000);
    const int b = way ? 1 : 0;
    const key_pt hops[] = {
        {250000, -100, -330, 0}, {500000, -100, 60, 0}, {900000, -100, 60, 0}, {1000000, -100, -100, 0},
        {1010000, -100, -100, 1}, {1060000, -100, -100, 1},  /* the print */
        {1060001, -100, -240, 0}, {1075000, -100, -240, 0},  /* the hand at its line */
        {1075001, -100, -100, b}, {1092000, -100, -100, b},  /* back on the print */
        {1092001, -100, -250, 0}, {1108000, -100, -250, 0},  /* the hand */
        {1108001, -100, -100, b}, {1125000, -100, -100, b},  /* the print */
        {1125001, 1e9, 0, 0},
    };
    const key_pt trail[] = {
        {250000, -100, -330, 0}, {500000, -100, 60, 0}, {900000, -100, 60, 0}, {1000000, -100, -100, 0},
        {1010000, -100, -100, 1}, {1060000, -100, -100, 1},  /* the print */
        {1060001, -100, -170, 1}, {1075000, -100, -170, 1},  /* its point 70 mm on */
        {1075001, -100, -234, 1}, {1092000, -100, -234, 1},  /* and 64 more */
        {1092001, 1e9, 0, 0},
    };
    for (int64_t t = 0; t < 1900000; t += DT)
        fake_frame(&f, t, way == 2 ? trail : hops, way == 2 ? 11 : 15);
    *settle_t = -1;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_SETTLE)
            *settle_t = f.obs[i].rec.t_us;
    unsigned fl = kr_event_reading_flags(f.ev, 1);
    kr_event_destroy(f.ev);
    return fl;
}

static void test_point_hopping_back_onto_a_print_is_not_the_hand(void)
{
    int64_t settle_t;
    CU_ASSERT_EQUAL(print_hop_flags(1, &settle_t) & KR_EVENT_FLAG_HAND_UNSEEN, 0);
    CU_ASSERT_TRUE(settle_t > 1000000 && settle_t < 1400000);
    CU_ASSERT_NOT_EQUAL(print_hop_flags(0, &settle_t) & KR_EVENT_FLAG_HAND_UNSEEN, 0);
    CU_ASSERT_EQUAL(settle_t, -1);
    CU_ASSERT_EQUAL(print_hop_flags(2, &settle_t) & KR_EVENT_FLAG_HAND_UNSEEN, 0);
    CU_ASSERT_TRUE(settle_t > 1000000 && settle_t < 1400000);
}

/* 30 fps: A's hand sweeps card 64 sideways at 4.5 m/s, its leading point seen 40 mm short of
 * the card's left edge and, a frame later, 58 mm past its right edge (near it on neither, its
 * path through it between them), then lost; the card slides off to the right at 2.5 m/s,
 * first seen moved on the frame A is lost (on the frame before, the blurred hand hid its
 * motion). B's hand, coming down the field behind, is within reach of the card 33 ms
 * after. The hand whose path went through the card in the window moved it: A's touch where
 * the path entered it, sure (before: A was no candidate, the card moved unblamed, and B,
 * found near it soon after, was blamed for it at 0.6; look 7144 demo at 30 fps, card 17). */
static void test_sweep_crossing_between_frames_is_blamed_on_its_hand(void)
{
    const int64_t dt = 33333, t1 = 11 * dt, t2 = 12 * dt; /* (frames at dt k) */
    const double x1 = -166, x2 = -16; /* the card's left edge at -126, its right at -74 */
    const int64_t tc = t1 + (int64_t)((t2 - t1) * (-126 - x1) / (x2 - x1));
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt a[] = {{200000, -300, -330, 0}, {t1 - dt, -316, 51.5, 0}, {t1, x1, 51.5, 0}, {t2, x2, 51.5, 0},
                        {t2 + 1, 1e9, 0, 0}};
    const key_pt b[] = {{200000, 60, 330, 0}, {t2 + dt, 60, 220, 0}, {t2 + 2 * dt, 60, 60, 0},
                        {t2 + 12 * dt, 60, 60, 0}};
    f.path_b = b;
    f.n_b = 4;
    for (int64_t t = 0; t < 1500000; t += dt) {
        kr_track_card *c = &f.cards[0];
        if (t > t2) { /* sliding off to the right, then out */
            c->moving = c->displaced = 1;
            c->x_mm = -100 + 2500 * (t - tc) / 1e6;
            c->out_of_field = c->x_mm - KR_TRACK_CARD_W_MM / 2 > KR_TRACK_FIELD_HALF_W_MM;
        }
        fake_frame(&f, t, a, 5);
    }
    int touches = 0;
    const kr_event_obs *o = NULL;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH) {
            touches++;
            o = &f.obs[i];
        }
    CU_ASSERT_EQUAL(touches, 1);
    CU_ASSERT_PTR_NOT_NULL(o);
    if (o) {
        if (getenv("KR_TEST_VERBOSE"))
            printf("crossing between frames: %c err %lld t_err %lld conf %.2f\n",
                   o->rec.player == KR_SIDE_A ? 'A' : 'B', (long long)(o->rec.t_us - tc), (long long)o->rec.t_err_us,
                   o->rec.confidence);
        CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
        CU_ASSERT_EQUAL(o->rec.card, 64);
        CU_ASSERT_TRUE(o->rec.confidence >= 0.9);
        CU_ASSERT_TRUE(llabs(o->rec.t_us - tc) <= 2 * o->rec.t_err_us);
    }
    kr_event_destroy(f.ev);
}

/* After A's press on card 64, while play goes on, A's leading point rests 300 ms beside
 * the right side line: with no shadow within 100 mm of it and a still picture around it
 * (what the arm left as the hand went home), it is no hand at rest there: no reason for
 * review (before: BESIDE, fault_way_back at 60 fps). With its shadow (a hand), flagged.
 * card_out: card 5 lies under that point from 1 s on, seen out of the field (flung past
 * the side line into the warped margin). */
static unsigned beside_flags(int blob, int card_out)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -330, 0}, {500000, -100, 60, 0}, {900000, -100, 60, 0}, {1000000, 200, -60, 0},
        {1100000, 440, -185, blob}, {1500000, 440, -185, blob}, {1520000, 1e9, 0, 0},
    };
    for (int64_t t = 0; t < 1500000; t += DT) {
        if (card_out && t >= 1000000) { /* its outline from x = 440 to 492: wholly out */
            kr_track_card *c = &f.cards[1];
            c->x_mm = c->rest_x_mm = 466;
            c->y_mm = c->rest_y_mm = -185;
            c->displaced = c->out_of_field = 1;
        }
        fake_frame(&f, t, path, 7);
    }
    unsigned fl = kr_event_reading_flags(f.ev, 1);
    kr_event_destroy(f.ev);
    return fl;
}

static void test_still_blob_beside_is_not_a_hand_at_rest(void)
{
    CU_ASSERT_EQUAL(beside_flags(1, 0) & KR_EVENT_FLAG_BESIDE, 0);
    CU_ASSERT_NOT_EQUAL(beside_flags(0, 0) & KR_EVENT_FLAG_BESIDE, 0);
}

/* The same hand at rest, shadowed as a hand is, its point on card 5 seen out of the field:
 * the point is on what it rests on, a card out of play, so no touch can be missing there:
 * no reason for review (before: BESIDE, push_out at 48 fps, the tracker's point held on
 * card 78's print as the hand went home beyond the view). */
static void test_point_on_a_card_out_of_the_field_is_no_rest_beside(void)
{
    CU_ASSERT_EQUAL(beside_flags(0, 1) & KR_EVENT_FLAG_BESIDE, 0);
}

/* A's hand rests 550 ms with its point on card 5 at (180, y) (out: its outline wholly past
 * A's line, as a taken card put aside by the knee is), then presses the read card 64 in B's
 * territory. Counts A's touches of card 5 and of card 64 (*t64 the first one's time), and the
 * settles before that touch. */
static void rest_on_a_card_put_aside(double y, int out, int *n5, int *n64, int *early_settles)
{
    static const kr_track_card_init lay[2] = {{64, KR_TRACK_B, -100, 51.5}, {5, KR_TRACK_A, 180, 0}};
    kr_track_card_init l[2] = {lay[0], lay[1]};
    l[1].y_mm = y;
    fake f;
    fake_start_with(&f, l, 64, 150000);
    f.cards[1].out_of_field = out;
    const key_pt path[] = {
        {250000, 180, -330, 0},   {450000, 180, y, 0},    {1000000, 180, y, 0},     /* on card 5 */
        {1300000, -100, 60, 0},   {1700000, -100, 60, 0}, {2000000, -100, -330, 0}, /* presses 64 */
        {2100000, 1e9, 0, 0},
    };
    for (int64_t t = 0; t < 3500000; t += DT)
        fake_frame(&f, t, path, 7);
    int64_t t64 = INT64_MAX;
    *n5 = *n64 = *early_settles = 0;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.player == KR_SIDE_A) {
            *n5 += f.obs[i].rec.card == 5;
            if (f.obs[i].rec.card == 64) {
                (*n64)++;
                if (f.obs[i].rec.t_us < t64)
                    t64 = f.obs[i].rec.t_us;
            }
        }
    for (int i = 0; i < f.n_obs; i++)
        *early_settles += f.obs[i].rec.type == KR_REC_SETTLE && f.obs[i].rec.t_us < t64;
    if (getenv("KR_TEST_VERBOSE"))
        printf("rest on card 5 at y %.0f (out %d): touches of 5 %d, of 64 %d at %lld, settles before %d\n", y, out,
               *n5, *n64, (long long)t64, *early_settles);
    kr_event_destroy(f.ev);
}

/* A hand resting on a card out of the field touches nothing in play: no touch of it, and no
 * settle of the reading before the hand's press of the read card (before: a press of the
 * taken card, then the reading settled and the press of card 64 was not read: look 7148
 * match_b at 25 fps). The same rest on card 5 in A's lower row is a press of it. */
static void test_rest_on_a_card_out_of_the_field_is_no_press(void)
{
    int n5, n64, early;
    rest_on_a_card_put_aside(-300, 1, &n5, &n64, &early);
    CU_ASSERT_EQUAL(n5, 0);
    CU_ASSERT_EQUAL(n64, 1);
    CU_ASSERT_EQUAL(early, 0);
    rest_on_a_card_put_aside(-218, 0, &n5, &n64, &early);
    CU_ASSERT_EQUAL(n5, 1);
}

/* ---- sweep session 7: a swept card measured beyond the warped area ---- */

/* Card 64 lies 65 mm inside the left side line of a tracker that warps no margin beside the
 * field (margin_x_mm 0; the camera sees 130 mm beyond): A's hand comes from the right at
 * 2 m/s, its fingertip over the card's right edge 12 ms before contact (in the air), then
 * pushes the card left at vc mm/s; frames every dt_us. The warped area holds the whole
 * card on one moved frame at most (as a 60 fps sweep off the field's side with the 90 mm
 * margin): its later centres come from its leading edge on the camera frame. */
static void sweep_side_case(int64_t te, double vc, int64_t dt_us, double *err_us, int64_t *t_err)
{
    static const kr_track_card_init lay[] = {
        {17, KR_TRACK_A, -200, -51.5}, {5, KR_TRACK_A, 0, -51.5}, {33, KR_TRACK_A, 200, -134.5},
        {64, KR_TRACK_B, -370, 51.5},  {88, KR_TRACK_B, 150, 217.5},
    };
    run r;
    memset(&r, 0, sizeof r);
    kr_track_config cfg;
    kr_track_config_default(&cfg);
    cfg.margin_x_mm = 0;
    CU_ASSERT_EQUAL_FATAL(kr_track_create(&cfg, map_fn, NULL, FW, FH, &r.t), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_track_set_layout(r.t, lay, NCARDS), KR_OK);
    kr_event_config ecfg;
    kr_event_config_default(&ecfg);
    CU_ASSERT_EQUAL_FATAL(kr_event_create(&ecfg, &r.ev), KR_OK);
    kr_event_reading(r.ev, KR_REC_KAMI_START, 1, 64, 150000);
    const int64_t tc = te + 12000;
    const double edge = -370 + 26; /* the card's right edge */
    for (int64_t t = 0; t < 900000; t += dt_us) {
        memcpy(frame, base, sizeof base);
        for (int k = 0; k < NCARDS; k++)
            if (k != 3)
                draw_card(frame, lay[k].x_mm, lay[k].y_mm);
        double cx = t > tc ? -370 - vc * (t - tc) / 1e6 : -370;
        draw_card(frame, cx, 51.5);
        if (t > 250000) {
            double tx = edge - 2000 * (t - te) / 1e6; /* over the edge at te */
            if (t > tc)
                tx = cx + 26 - 2000 * 0.012; /* then with the card, its tip over it */
            if (tx < -470)
                tx = -470;
            draw_arm(frame, tx + 200, tx, 51.5, 4, -4, 1);
        }
        kr_image_t im = {FW, FH, FW * 3, 3, frame};
        const kr_track_frame *fr;
        CU_ASSERT_EQUAL_FATAL(kr_track_update(r.t, &im, t, 0, &fr), KR_OK);
        const kr_event_obs *o;
        int n;
        int64_t h = kr_event_horizon(r.ev);
        CU_ASSERT_EQUAL_FATAL(kr_event_update(r.ev, fr, &o, &n), KR_OK);
        if (getenv("KR_TEST_TRACE"))
            printf("%lld card %.1f: est %.1f found %d whole %d (%.1f) lost %d\n", (long long)t, cx, fr->cards[3].x_mm,
                   fr->cards[3].found, fr->cards[3].whole_ok, fr->cards[3].whole_x_mm, fr->cards[3].lost);
        for (int i = 0; i < n; i++) {
            if (o[i].rec.t_us < h)
                r.early++;
            if (r.n_obs < 64)
                r.obs[r.n_obs++] = o[i];
        }
    }
    CU_ASSERT_EQUAL(count(&r, KR_REC_TOUCH), 1);
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(o->rec.card, 64);
    CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
    *err_us = (double)(o->rec.t_us - tc);
    *t_err = o->rec.t_err_us;
    if (getenv("KR_TEST_VERBOSE"))
        printf("sweep off the side: dt %lld vc %.0f tc %lld err %.0f us t_err %lld\n", (long long)dt_us, vc,
               (long long)tc, *err_us, (long long)o->rec.t_err_us);
    run_end(&r);
}

/* At 60 fps, timed from the card's motion beyond the warped area: within a quarter frame
 * whatever the phase, its t_err covering it twice (before: from the path's entry, 8.7 to
 * 11.8 ms early). (At 30 fps this camera's 130 mm beyond the side line hold one moved frame.) */
static void test_sweep_off_the_side_is_timed_from_its_edge(void)
{
    const int64_t te[3] = {401000, 405500, 411200};
    for (int j = 0; j < 3; j++) {
        double e;
        int64_t te_us;
        sweep_side_case(te[j], 2500, 16667, &e, &te_us);
        CU_ASSERT_TRUE(fabs(e) < 16667 / 4.0);
        CU_ASSERT_TRUE(fabs(e) <= 2.0 * (double)te_us);
    }
}

/* ---- lead session 7 ---- */

/* A sweeps its card 78 to the right into its neighbour 77 (the read card, 56 mm on): 78
 * moves from the frame after the leading point reached it; 77 a few frames later, when the
 * leading point is 15 mm inside 77's place (as 78, pushed, moved it a few mm unseen; it is
 * seen changed where it lay, then followed). From
 * above a hand touching 77 and a hand pushing 78 into it look alike: KNOCK_ORDER, so the
 * ruling (a take by touch or by push-out) is looked at (before: 77 was taken for a touch
 * unflagged; push_out at 60 and 120 fps with contacts between frames). */
static void test_card_knocked_by_its_neighbour_is_flagged(void)
{
    static const kr_track_card_init lay[2] = {{78, KR_TRACK_A, 300, -51.5}, {77, KR_TRACK_A, 356, -51.5}};
    fake f;
    fake_start_with(&f, lay, 77, 150000);
    const key_pt path[] = {{250000, 240, -330, 0}, {500000, 240, -51.5, 0}, {800000, 510, -51.5, 0}, {1000000, 1e9, 0, 0}};
    const int np = (int)(sizeof path / sizeof path[0]);
    for (int64_t t = 0; t < 1500000; t += DT) {
        double lead = t >= 500000 && t < 800000 ? 240 + (t - 500000) * 0.0009 : t >= 800000 ? 510 : 240;
        kr_track_card *c78 = &f.cards[0], *c77 = &f.cards[1];
        if (lead > 274 + 5) { /* 78 pushed ahead of the fingertip */
            c78->moving = c78->displaced = 1;
            c78->x_mm = lead + 26;
        }
        if (lead > 330 + 15) { /* 77 seen changed where it lay, then followed */
            c77->moving = 1;
            if (c77->displaced || lead > 330 + 35) {
                c77->displaced = 1;
                c77->x_mm = lead + 82;
            }
        }
        fake_frame(&f, t, path, np);
    }
    int t78 = 0;
    for (int i = 0; i < f.n_obs; i++)
        t78 += f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 78;
    CU_ASSERT_EQUAL(t78, 1);
    CU_ASSERT_NOT_EQUAL(kr_event_reading_flags(f.ev, 1) & KR_EVENT_FLAG_KNOCK_ORDER, 0);
    kr_event_destroy(f.ev);
}

/* ---- precision session 7 ---- */

/* Frames of fake_frame with the two hands' blobs touching (hand_contact) from c0 to c1. */
static void fake_run(fake *f, const key_pt *path, int n, int64_t t_end, int64_t c0, int64_t c1)
{
    for (int64_t t = 0; t < t_end; t += DT) {
        f->fr.hand_contact = t >= c0 && t < c1;
        fake_frame(f, t, path, n);
    }
}

static int fake_count(const fake *f, kr_rules_rec_type type)
{
    int c = 0;
    for (int i = 0; i < f->n_obs; i++)
        c += f->obs[i].rec.type == type;
    return c;
}

/* The last observation of this type and card (a record with t_us -1: none). */
static kr_rules_record fake_last(const fake *f, kr_rules_rec_type type, int32_t card)
{
    kr_rules_record r = {.t_us = -1, .confidence = -1};
    for (int i = 0; i < f->n_obs; i++)
        if (f->obs[i].rec.type == type && f->obs[i].rec.card == card)
            r = f->obs[i].rec;
    return r;
}

/* A presses card 64; the other hand's arm passes over it and for 100 ms the blobs touch,
 * the tracker putting A's leading point 90 mm off the card; the blobs part, A's leading
 * point is on the card again, still, until A lifts. One contact, one touch (before: the
 * time "away" during the merge ended the contact and the hand seen on the card after it
 * was a second press: match_b, card 3 at 57.5 s, at 30, 60 and 120 fps). Without the
 * merge (the hand really away 100 ms, then back), two touches. */
static int merged_presses(int merged)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -330, 0}, {500000, -100, 60, 0}, {800000, -100, 60, 0}, {816000, -100, -40, 0},
        {920000, -100, -40, 0},  {936000, -100, 60, 0}, {1300000, -100, 60, 0}, {1600000, -100, -330, 0},
        {1700000, 1e9, 0, 0},
    };
    fake_run(&f, path, 9, 1800000, merged ? 816000 : -1, merged ? 936000 : -1);
    int n = fake_count(&f, KR_REC_TOUCH);
    kr_event_destroy(f.ev);
    return n;
}

static void test_merged_hands_do_not_end_a_contact(void)
{
    CU_ASSERT_EQUAL(merged_presses(1), 1);
    CU_ASSERT_EQUAL(merged_presses(0), 2);
}

/* A's leading point comes onto card 64 and stops on it, with no shadow anywhere near
 * (held high, or what the tracker left on a still spot): 35 mm off its rest point two
 * frames before it stops (slow enough there), then 28 mm off one frame before. Stopping
 * dead from 1.7 m/s is no hand braking onto a card: no press (before: confidence 0.5, a
 * phantom, fault_way_back card 42 at 120 fps, match_b card 91 at 60 fps). Braking onto it
 * over four frames, the same rest is a press (0.5: no shadow seen to meet it). */
static int dead_stop_presses(int dead)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt stop[] = {
        {250000, -100, -200, 0}, {583000, -100, 15, 0}, {600000, -100, 22, 0}, {616000, -100, 50, 1},
        {900000, -100, 50, 1},   {1000000, 1e9, 0, 0},
    };
    const key_pt brake[] = {
        {250000, -100, -200, 0}, {583000, -100, 15, 0}, {600000, -100, 22, 0}, {633000, -100, 40, 1},
        {666000, -100, 48, 1},   {700000, -100, 50, 1}, {900000, -100, 50, 1}, {1000000, 1e9, 0, 0},
    };
    fake_run(&f, dead ? stop : brake, dead ? 6 : 8, 1200000, -1, -1);
    int n = fake_count(&f, KR_REC_TOUCH);
    kr_event_destroy(f.ev);
    return n;
}

static void test_dead_stop_is_not_a_press(void)
{
    CU_ASSERT_EQUAL(dead_stop_presses(1), 0);
    CU_ASSERT_EQUAL(dead_stop_presses(0), 1);
}

/* ---- session 14: a press while the hand was lost ---- */

/* A's hand passes over card 64 (50 mm in 100 ms, not a rest), is lost from 600 to 750 ms
 * (its point put on a blob near A's line, as the tracker did when the hand lay still on
 * the card: dead_fault_two at 60 fps under --look-seed 7004), and is found again on the
 * card, where it rests until 1.0 s with the picture around its tip changing (no landing
 * read). Its press may have been made while it was lost: the sighting over the card
 * before the loss lies within the touch's error (before: 50 ms after the rest's start on
 * 29.2 ms, the contact at 700 ms far outside). */
static void test_press_while_the_hand_was_lost(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -250, 0}, {500000, -100, 20, 0}, {599999, -100, 70, 0}, {600000, -100, -300, 0},
        {749999, -100, -300, 0}, {750000, -100, 51.5, 0}, {1000000, -100, 51.5, 0}, {1200000, -100, -330, 0},
        {1300000, 1e9, 0, 0},
    };
    const int np = (int)(sizeof path / sizeof path[0]);
    for (int64_t t = 0; t < 1500000; t += DT)
        fake_frame_chg(&f, t, path, np, t > 250000 && t < 1000000 ? 3000 : 0);
    CU_ASSERT_EQUAL(fake_count(&f, KR_REC_TOUCH), 1);
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH) {
            const kr_rules_record *o = &f.obs[i].rec;
            if (getenv("KR_TEST_VERBOSE"))
                printf("press while lost: %lld +- %lld\n", (long long)o->t_us, (long long)o->t_err_us);
            CU_ASSERT_EQUAL(o->card, 64);
            CU_ASSERT_TRUE(o->t_us >= 750000);                      /* not before the rest */
            CU_ASSERT_TRUE(o->t_us - o->t_err_us <= 600000);        /* the sighting before the loss */
            CU_ASSERT_TRUE(llabs(o->t_us - 700000) <= o->t_err_us); /* a contact while lost */
        }
    kr_event_destroy(f.ev);
}

/* A's hand comes over card 64 fast, then drifts 30 mm across it, slowing from 150 mm/s
 * (under the rest speed) to a stop over 400 ms while it comes down (the picture around its
 * tip changing), and lands at 833 ms (its last changing frame): contact about 841 ms. The
 * landing is waited for from the hand's stop (before: the wait ran out 250 ms after the
 * slow drift began, and contact was put on the
 * model, 50 ms after a stop not yet made; dead_fault_two card 9 at 30 fps, 72 ms late). */
static void test_slow_approach_waits_for_the_landing(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -200, 0}, {500000, -100, 20, 0}, {600000, -100, 35, 0}, {700000, -100, 44, 0},
        {800000, -100, 49, 0},   {900000, -100, 50, 0}, {1300000, -100, 50, 0}, {1500000, -100, -330, 0},
        {1600000, 1e9, 0, 0},
    };
    for (int64_t t = 0; t < 1700000; t += DT)
        fake_frame_chg(&f, t, path, 9, t < 840000 ? 50000 : 0);
    CU_ASSERT_EQUAL(fake_count(&f, KR_REC_TOUCH), 1);
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH) {
            if (getenv("KR_TEST_VERBOSE"))
                printf("slow approach landing: %lld\n", (long long)f.obs[i].rec.t_us);
            CU_ASSERT_TRUE(llabs(f.obs[i].rec.t_us - 841000) < 15000);
        }
    kr_event_destroy(f.ev);
}

/* A's hand comes over card 64 and stops on it at 500 ms; the picture around its tip never
 * stays quiet (a flickering light: a change of 50000 on every other frame, as v2_flicker_60
 * B card 43's 1227, 8106, 0, 108, 17553, 0 while it lay there), so no landing is read and
 * the contact is put on the model. From 600 ms the hand rises straight up, its point
 * wobbling by 6 mm (under the rest speed) until it leaves at 800 ms, before the wait for a
 * landing ran out: fitted at the rest's end, the stop moves onto the wobble (817 ms; 493
 * at the first look). The contact is put midway between the two stops, with half the span
 * in its error: the model on the first stop (543 ms) lies within it (before: 50 ms after
 * the stop fitted at the end, 867 +- 29 ms; v2_flicker_60 B card 43 and v3_dim_flicker_60
 * A card 71, 278 and 274 ms late), and back to the rest's start (session 39). Returns the
 * touch's time, *err its t_err. */
static int64_t rising_wobble_press(int64_t *err)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -200, 0}, {450000, -100, 40, 0}, {500000, -100, 50, 0}, {600000, -100, 50, 0},
        {650000, -106, 50, 0},   {700000, -100, 44, 0}, {750000, -94, 50, 0},  {800000, -100, 56, 0},
        {900000, -100, -330, 0}, {1000000, 1e9, 0, 0},
    };
    const int np = (int)(sizeof path / sizeof path[0]);
    for (int64_t t = 0; t < 1500000; t += DT)
        fake_frame_chg(&f, t, path, np, t / DT % 2 ? 50000 : 0);
    int64_t tt = -1;
    *err = -1;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 64) {
            tt = f.obs[i].rec.t_us;
            *err = f.obs[i].rec.t_err_us;
        }
    if (getenv("KR_TEST_VERBOSE"))
        printf("rising wobble: %d touches, at %lld +- %lld\n", fake_count(&f, KR_REC_TOUCH), (long long)tt,
               (long long)*err);
    CU_ASSERT_EQUAL(fake_count(&f, KR_REC_TOUCH), 1);
    kr_event_destroy(f.ev);
    return tt;
}

static void test_stop_moved_by_a_rising_hand_widens_the_model(void)
{
    int64_t e, t = rising_wobble_press(&e);
    CU_ASSERT_TRUE_FATAL(t > 0 && e > 0);
    CU_ASSERT_TRUE(llabs(t - 543000) <= e);
    /* ... and back to the rest's start at 500 ms: the hand may have come down as it
     * stopped (session 39, look 7067 fault_way_back at 40 fps: down 50 ms after its rest
     * began, quiet for two frames only, modelled from its stops 204 ms late on 125) */
    CU_ASSERT_TRUE(t - e <= 500000);
}

/* Card 5 put beside card 64 (its left edge on 64's right edge). A's hand comes over card
 * 64 and drifts slowly towards card 5 while it comes down (the picture around its tip
 * changing: it never lies still on 64), then moves on onto card 5 and lands there. One
 * press, on card 5 (before: the rest over 64 that ended was a press too, put on the model:
 * dead_fault_two card 7 at 60 fps, a phantom beside the card pressed). With the hand
 * seen lying still on 64 before it moves on, both are presses. So too when the two hands'
 * blobs touch as its point moves on (merged): the point is then where the tracker's split
 * put them, not where the hand went. */
static int slide_presses(int landed_first, int merged, int *on5)
{
    fake f;
    fake_start(&f, 64, 150000);
    kr_track_card *c5 = &f.cards[1];
    c5->x_mm = c5->rest_x_mm = -48;
    c5->y_mm = c5->rest_y_mm = 51.5;
    const key_pt path[] = {
        {250000, -100, -200, 0}, {500000, -90, 40, 0},   {700000, -80, 50, 0},    {750000, -60, 50, 0},
        {1100000, -60, 50, 0},   {1300000, -60, -330, 0}, {1400000, 1e9, 0, 0},
    };
    for (int64_t t = 0; t < 1500000; t += DT) {
        f.fr.hand_contact = merged && t >= 690000 && t < 760000;
        fake_frame_chg(&f, t, path, 7,
                       t >= 780000 || (landed_first && t >= 560000 && t < 700000) ? 0 : 50000);
    }
    *on5 = 0;
    for (int i = 0; i < f.n_obs; i++)
        *on5 += f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 5;
    int n = fake_count(&f, KR_REC_TOUCH);
    kr_event_destroy(f.ev);
    return n;
}

static void test_hand_going_on_to_the_next_card(void)
{
    int on5;
    CU_ASSERT_EQUAL(slide_presses(0, 0, &on5), 1);
    CU_ASSERT_EQUAL(on5, 1);
    CU_ASSERT_EQUAL(slide_presses(1, 0, &on5), 2);
    CU_ASSERT_EQUAL(on5, 1);
    CU_ASSERT_EQUAL(slide_presses(0, 1, &on5), 2);
    CU_ASSERT_EQUAL(on5, 1);
}

/* A's hand sweeps card 64 up at 1 m/s, contact at 500 ms; the card's followed centre on its
 * first frames lies on the line, or off it by noise_mm (+, -, -, +: the same line fits, the
 * same contact time) as a card measured by its blurred edge, or pushed on by its neighbour,
 * may be. The sweep's t_err is what the residuals show (before: a fixed 3 mm whatever they
 * were; hand_contact_fault at 60 fps, contacts between frames, was 7.9 ms off on 3.9).
 * Returns the touch's t_err, *e its error. */
static int64_t noisy_sweep(double noise_mm, double *e)
{
    fake f;
    fake_start(&f, 64, 150000);
    const double v = 1000, tc = 500000; /* the card's near edge at y = 15 mm */
    const key_pt path[] = {{250000, -100, 15 - 0.001 * v * 250000, 0}, {900000, -100, 15 + 0.001 * v * 400000, 0}};
    static const double pattern[4] = {1, -1, -1, 1};
    int k = 0;
    for (int64_t t = 0; t < 1200000; t += DT) {
        kr_track_card *c = &f.cards[0];
        if (t > tc && t < tc + 200000) {
            double d = v * (t - tc) / 1e6 + (k < 4 ? pattern[k] * noise_mm : 0);
            k++;
            c->moving = c->displaced = c->found = c->whole_ok = 1;
            c->x_mm = c->whole_x_mm = -100;
            c->y_mm = c->whole_y_mm = 51.5 + d;
        } else if (t >= tc + 200000) {
            c->moving = c->displaced = c->found = c->whole_ok = 0;
            c->lost = 1;
        }
        fake_frame(&f, t, path, 2);
    }
    int64_t te = -1;
    *e = 1e9;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 64) {
            te = f.obs[i].rec.t_err_us;
            *e = (double)(f.obs[i].rec.t_us - (int64_t)tc);
        }
    kr_event_destroy(f.ev);
    return te;
}

static void test_sweep_error_grows_with_its_residuals(void)
{
    double e0, e1;
    int64_t te0 = noisy_sweep(0, &e0), te1 = noisy_sweep(4.5, &e1);
    if (getenv("KR_TEST_VERBOSE"))
        printf("sweep residuals: clean err %.0f t_err %lld, noisy err %.0f t_err %lld\n", e0, (long long)te0, e1,
               (long long)te1);
    CU_ASSERT_TRUE_FATAL(te0 > 0 && te1 > 0);
    CU_ASSERT_TRUE(fabs(e0) <= 2.0 * (double)te0);
    CU_ASSERT_TRUE(fabs(e1) <= 2.0 * (double)te1);
    CU_ASSERT_TRUE(te1 > 1.6 * (double)te0);
}

/* ---- precision session 8 ---- */

/* Touches of card id in the fake's observations. */
static int fake_touches(const fake *f, int32_t id)
{
    int c = 0;
    for (int i = 0; i < f->n_obs; i++)
        c += f->obs[i].rec.type == KR_REC_TOUCH && f->obs[i].rec.card == id;
    return c;
}

/* Cards 78 and 77 side by side in A's upper row, and A's hand coming from its guard along
 * the row at 3 m/s from 500 ms (knock_case, ghost_case). */
static const kr_track_card_init knock_lay[2] = {{78, KR_TRACK_A, 300, -51.5}, {77, KR_TRACK_A, 356, -51.5}};
static const key_pt knock_path[] = {
    {250000, 200, -330, 0}, {500000, 200, -51.5, 0}, {600000, 500, -51.5, 0}, {650000, 1e9, 0, 0}};
#define KNOCK_NP ((int)(sizeof knock_path / sizeof knock_path[0]))
#define KNOCK_DT 8333 /* 120 fps */

static void knock_start(fake *f) { fake_start_with(f, knock_lay, 77, 150000); }

/* At 120 fps A's fingertip sweeps along row y = -51.5 at 3 m/s (x = 200 at 0.5 s): it
 * enters card 78 (x 274..326) and pushes it; 78 pushes 77 (x 330..382) from when the tip
 * is at x = knock_at (77 then moves with it, 22 mm ahead of the tip), and both go out of
 * the field. The hand hides 78: it is seen moving once the tip is at x = 380; 77 once
 * 20 mm off its rest, then followed whole. Returns the touches on 77
 * (78's into *t78). */
static int knock_case(double knock_at, int *t78)
{
    fake f;
    knock_start(&f);
    kr_track_card *c78 = &f.cards[0], *c77 = &f.cards[1];
    for (int64_t t = 0; t < 1500000; t += KNOCK_DT) {
        double lead = t < 500000 ? 200 : t < 600000 ? 200 + (t - 500000) * 0.003 : 500;
        if (lead > 274) { /* the hand over 78 hides it */
            c78->occluded = 1;
            c78->visible = 0.2;
        }
        if (lead > 380) {
            c78->moving = c78->displaced = 1;
            c78->x_mm = lead - 4;
        }
        double x77 = lead > knock_at ? 356 + (lead - knock_at) : 356;
        if (x77 > 356 + 20) { /* (the hand near it: seen moving late) */
            c77->moving = c77->displaced = c77->found = c77->whole_ok = 1;
            c77->x_mm = c77->whole_x_mm = x77;
            c77->whole_y_mm = c77->y_mm;
            if (x77 > KR_TRACK_FIELD_HALF_W_MM + KR_TRACK_CARD_W_MM) {
                c77->out_of_field = c77->lost = 1;
                c77->found = c77->whole_ok = 0;
            }
        }
        if (c78->x_mm > KR_TRACK_FIELD_HALF_W_MM + KR_TRACK_CARD_W_MM)
            c78->out_of_field = c78->lost = 1;
        fake_frame(&f, t, knock_path, KNOCK_NP);
    }
    *t78 = fake_touches(&f, 78);
    int t77 = fake_touches(&f, 77);
    kr_event_destroy(f.ev);
    return t77;
}

/* A's hand sweeps card 78 into the read card 77 beside it. ghost: the tracker keeps 77's
 * track on 78 (cards look alike), so the two tracks leave the field together, 77's second;
 * else 77 flies ahead, 60 mm in front of 78. Returns the confidence of 77's push-out (-1:
 * none). */
static double ghost_case(int ghost)
{
    fake f;
    knock_start(&f);
    kr_track_card *c78 = &f.cards[0], *c77 = &f.cards[1];
    const double out_x = KR_TRACK_FIELD_HALF_W_MM + KR_TRACK_CARD_W_MM;
    for (int64_t t = 0; t < 1500000; t += KNOCK_DT) {
        double lead = t < 500000 ? 200 : t < 600000 ? 200 + (t - 500000) * 0.003 : 500;
        if (lead > 274) {
            c78->moving = c78->displaced = c78->found = 1;
            c78->x_mm = lead + 30;
        }
        double x77 = ghost ? c78->x_mm : c78->x_mm + 60;
        if (x77 > 356 + 20) {
            c77->moving = c77->displaced = c77->found = 1;
            c77->x_mm = x77;
        }
        if (c78->x_mm > out_x)
            c78->out_of_field = 1;
        if (c77->x_mm > out_x + (ghost ? 5 : 0)) /* the ghost: a frame or so after 78 */
            c77->out_of_field = 1;
        fake_frame(&f, t, knock_path, KNOCK_NP);
    }
    double conf = fake_last(&f, KR_REC_PUSH_OUT, 77).confidence;
    kr_event_destroy(f.ev);
    return conf;
}

/* A's arm passes over B's card 64 (at -100, 51.5) on its way across the field, its leading
 * point crossing the card at about 500 ms, and lies on across it while the hand presses
 * B's card 43 (at -100, 134.5) from 560 ms, the two players' blobs touching there (merged).
 * Card 64 looks changed on one frame under the arm (moved 0: the shadow and blur of the arm
 * above), then as before; or it is swept off (moved 1: displaced and followed towards B's
 * line at 2 m/s). Writes the confidence of A's touch of card 64 and returns whether A's
 * press of card 43 came out. */
static int arm_over_card(int moved, double *conf64)
{
    static const kr_track_card_init lay[2] = {{64, KR_TRACK_B, -100, 51.5}, {43, KR_TRACK_B, -100, 134.5}};
    fake f;
    fake_start_with(&f, lay, 5, 150000);
    const key_pt path[] = {{250000, -100, -330, 0}, {560000, -100, 134.5, 0}, {900000, -100, 134.5, 0},
                           {1000000, -100, -330, 0}, {1050000, 1e9, 0, 0}};
    for (int64_t t = 0; t < 1500000; t += DT) {
        kr_track_card *c = &f.cards[0];
        c->hand_cover[0] = t > 460000 && t < 950000 ? 0.3 : 0;
        f.cards[1].hand_cover[0] = t > 540000 && t < 950000 ? 0.3 : 0;
        if (!moved)
            c->moving = t > 480000 && t < 500000;
        else if (t > 480000 && t < 700000) {
            c->moving = c->displaced = c->found = c->whole_ok = 1;
            c->hand_cover[0] = 0;
            c->x_mm = c->whole_x_mm = -100;
            c->y_mm = c->whole_y_mm = 51.5 - 2.0 * (double)(t - 480000) / 1000;
        }
        f.fr.hand_contact = t > 560000 && t < 900000;
        fake_frame_chg(&f, t, path, 5, t < 580000 ? 30000 : 0);
    }
    *conf64 = fake_last(&f, KR_REC_TOUCH, 64).confidence;
    int pressed = fake_last(&f, KR_REC_TOUCH, 43).t_us >= 0;
    kr_event_destroy(f.ev);
    return pressed;
}

/* A sweep's touch stands on the card's motion: one whose card never left its footprint
 * (it only looked changed under the arm) is below the rules engine's review level; the
 * same arm sweeping the card off is not (open v7 study: B's arm 64 mm over its own card 16
 * on the way across, ruled a fault at confidence 0.95). */
static void test_card_unmoved_under_a_passing_arm_is_no_sure_sweep(void)
{
    double unmoved, swept;
    int pressed = arm_over_card(0, &unmoved);
    arm_over_card(1, &swept);
    if (getenv("KR_TEST_VERBOSE"))
        printf("arm over the card: unmoved %.2f (press beyond: %d), swept %.2f\n", unmoved, pressed, swept);
    CU_ASSERT_TRUE(unmoved > 0 && unmoved < 0.9);
    CU_ASSERT_TRUE(swept >= 0.9);
    CU_ASSERT_TRUE(pressed); /* the arm lying across the unmoved card holds no contact there */
}

/* A's hand sweeps B's card 64 (at -100, 51.5) at 100 fps, its leading point crossing the
 * card's near edge at about 500 ms. The card looks changed under the hand on the frames
 * to 510 ms (moving, not yet displaced), is seen at rest for `rest_frames` frames, then
 * is followed shifted towards B's line at 2 m/s. Writes the number of A's touches of card
 * 64 and the last one's confidence. */
static void sweep_shown_late(int rest_frames, int *touches, double *conf)
{
    fake f;
    fake_start(&f, 5, 150000);
    const int64_t dt = 10000;
    const key_pt path[] = {{250000, -100, -330, 0}, {520000, -100, 60, 0}, {700000, -100, 250, 0},
                           {750000, 1e9, 0, 0}};
    const int64_t shift_t = 510000 + (int64_t)rest_frames * dt; /* the last frame before it shows shifted */
    for (int64_t t = 0; t < 1200000; t += dt) {
        kr_track_card *c = &f.cards[0];
        c->hand_cover[0] = t >= 490000 && t < 700000 ? 0.3 : 0;
        c->moving = t >= 500000 && t <= 510000;
        if (t > shift_t) {
            c->moving = c->displaced = c->found = c->whole_ok = 1;
            c->x_mm = c->whole_x_mm = -100;
            c->y_mm = c->whole_y_mm = 51.5 + 2.0 * (double)(t - shift_t) / 1000;
            c->out_of_field = c->y_mm > KR_TRACK_FIELD_HALF_H_MM;
        }
        fake_frame(&f, t, path, 4);
    }
    *touches = 0;
    for (int i = 0; i < f.n_obs; i++)
        *touches += f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 64;
    *conf = fake_last(&f, KR_REC_TOUCH, 64).confidence;
    kr_event_destroy(f.ev);
}

/* A card the hand pushed may show its shift a frame or two after the change the hand
 * made on it: one sweep, one sure touch (look 7111 send_back at 100 fps: card 33 changed
 * under B's hand, at rest one frame, then shifted; let out as an unmoved sweep at once,
 * the shift became a second touch and the first, at confidence 0.5, decided the take). */
static void test_sweep_shown_a_frame_late_is_one_touch(void)
{
    for (int rest = 0; rest <= 1; rest++) {
        int n;
        double conf;
        sweep_shown_late(rest, &n, &conf);
        if (getenv("KR_TEST_VERBOSE"))
            printf("sweep shown after %d still frames: %d touches, confidence %.2f\n", rest, n, conf);
        CU_ASSERT_EQUAL(n, 1);
        CU_ASSERT_TRUE(conf >= 0.9);
    }
}

/* A sweeps its card 5 (row end, at rest at x -380) off to the left at 60 fps; the card is
 * seen out of the field from 600 ms on, at x0 - v (t - 600 ms) (v in mm/ms). Before, it
 * lies in its place, seen there but on the frames after unseen_from: hidden under the hand
 * (kept 0), or kept in its place while it changed as it began to move (kept 1: moving, not
 * yet displaced). Returns card 5's push-out (t_us -1: none). */
static kr_rules_record card5_push_out_rejoined(double x0, double v, int64_t unseen_from, int kept, int64_t rejoin_us)
{
    fake f;
    fake_start(&f, 5, 150000);
    const key_pt path[] = {{250000, -200, -330, 0}, {500000, -250, -51.5, 0}, {650000, -600, -51.5, 0},
                           {700000, 1e9, 0, 0}};
    for (int64_t t = 0; t < 1200000; t += DT) {
        kr_track_card *c = &f.cards[1];
        int unseen = t > unseen_from && t < 600000;
        c->occluded = unseen && !kept;
        c->moving = unseen && kept;
        if (t >= 600000) {
            c->displaced = c->moving = c->found = c->out_of_field = 1;
            c->occluded = 0;
            c->x_mm = c->whole_x_mm = x0 - v * (double)(t - 600000) / 1000;
            c->rejoined = rejoin_us >= 0;
            c->rejoin_us = rejoin_us;
        }
        fake_frame(&f, t, path, 4);
    }
    kr_rules_record r = fake_last(&f, KR_REC_PUSH_OUT, 5);
    kr_event_destroy(f.ev);
    return r;
}

static kr_rules_record card5_push_out(double x0, double v, int64_t unseen_from, int kept)
{
    return card5_push_out_rejoined(x0, v, unseen_from, kept, -1);
}

/* ---- session 33 ---- */


/* The card's follower lost it under the hand at 450 ms and found it again away from where
 * it would have looked had it not missed those frames (kr_track_card.rejoined): what it
 * followed out at 600 ms may be something else (look 7034 hand_contact_fault at 120 fps,
 * before the hand's way was mended: card 44's track taken up on two resting cards' prints
 * and an arm's edge, its push-out 106 ms late on 2.4). The push-out keeps its time, but its
 * error reaches back to that last sighting and its confidence is below the rules engine's
 * review level; the same push-out on a track without the gap is sure and precise. */
static void test_push_out_on_a_track_found_again_is_doubtful(void)
{
    kr_rules_record plain = card5_push_out(-470, 3.0, 450000, 0);
    kr_rules_record gap = card5_push_out_rejoined(-470, 3.0, 450000, 0, 450000);
    if (getenv("KR_TEST_VERBOSE"))
        printf("push-out found again: %lld +- %lld (%.2f), without the gap %lld +- %lld (%.2f)\n",
               (long long)gap.t_us, (long long)gap.t_err_us, gap.confidence, (long long)plain.t_us,
               (long long)plain.t_err_us, plain.confidence);
    CU_ASSERT_TRUE_FATAL(plain.t_us > 0 && gap.t_us > 0);
    CU_ASSERT_EQUAL(gap.t_us, plain.t_us);
    CU_ASSERT_TRUE(plain.confidence >= 0.9);
    CU_ASSERT_TRUE(plain.t_err_us < 20000);
    CU_ASSERT_TRUE(gap.confidence < 0.9);
    CU_ASSERT_TRUE(gap.t_err_us >= gap.t_us - 450000);
}

/* Hidden on the frame before it was seen out, the card may have left already then: its
 * push-out's error spans the two periods since it was last seen inside (before: one, as if
 * seen inside there; 60 fps send_back card 33 was 9.5 ms off on 4.8). Seen out at x -470,
 * 3 m/s; seen in place or hidden on the frame before. */
static void test_push_out_after_hidden_frame_spans_two_periods(void)
{
    int64_t seen = card5_push_out(-470, 3.0, 600000, 0).t_err_us;
    int64_t hidden = card5_push_out(-470, 3.0, 570000, 0).t_err_us;
    if (getenv("KR_TEST_VERBOSE"))
        printf("push-out t_err: seen before %lld, hidden before %lld\n", (long long)seen, (long long)hidden);
    CU_ASSERT_TRUE_FATAL(seen > 0 && hidden > 0);
    CU_ASSERT_TRUE(llabs(seen - (int64_t)(DT / sqrt(12.0))) < 100);
    CU_ASSERT_TRUE(llabs(hidden - (int64_t)(2 * DT / sqrt(12.0))) < 100);
}

/* The card slides from 560 ms at 2.7 m/s, so its whole outline is past the line (x -461)
 * at 590 ms; seen in place at 550 ms, not seen where it was on the two frames after (hidden,
 * or kept in place), seen out at 600 ms 108 mm from where it lay. Its push-out is put back
 * from there at its speed since it was last seen (at least 2.2 m/s), not at the speed the
 * kept place gives for one period (6.5 m/s: 5.8 ms late; 120 fps double card 88, hidden on
 * the two frames after its sweep, was put 13 ms late on a t_err of 4.8, 120 fps early_entry
 * card 55, kept in place on the frame before, 5.8 ms late on 2.4). */
static void test_push_out_after_unseen_frames_at_the_cards_speed(void)
{
    const double v = 2.7, t_out = 560000 + (KR_TRACK_FIELD_HALF_W_MM + KR_TRACK_CARD_W_MM / 2 - 380) / v * 1000;
    for (int kept = 0; kept < 2; kept++) {
        int64_t push_t = card5_push_out(-380 - v * 40, v, 560000, kept).t_us;
        if (getenv("KR_TEST_VERBOSE"))
            printf("push-out after unseen frames (%s): %lld, true %.0f\n", kept ? "kept" : "hidden",
                   (long long)push_t, t_out);
        CU_ASSERT_TRUE_FATAL(push_t > 0);
        CU_ASSERT_TRUE(fabs((double)push_t - t_out) < 4000);
    }
}

/* At 24 fps A sweeps its card 5 (row end) off to the left at 3 m/s, contact at about
 * 490 ms: the card, seen in place at 458 ms, is gone on the next frame (flung off unseen)
 * and given up later, lost. Its push-out, put half a period after it was last seen
 * (479 ms), would come before the sweep's touch (the hand's way into its outline) and take
 * the card as pushed out; it cannot be before the contact that set it going: it comes
 * after the touch (v6_film_24 card 25; the same as for a push-out seen in the contact's
 * frame). */
static void test_lost_card_push_out_not_before_its_touch(void)
{
    fake f;
    fake_start(&f, 5, 150000);
    const int64_t dt = 41667;
    const key_pt path[] = {{250000, -200, -330, 0}, {450000, -234, -51.5, 0}, {572000, -600, -51.5, 0},
                           {650000, 1e9, 0, 0}};
    for (int64_t t = 0; t < 1500000; t += dt) {
        kr_track_card *c = &f.cards[1];
        if (t < 480000) {
            c->last_seen_us = t;
        } else {
            c->displaced = c->moving = 1;
            c->found = 0;
            c->visible = 1;
            c->change = 1;
            c->lost = t >= 650000;
        }
        fake_frame(&f, t, path, 4);
    }
    int64_t touch_t = -1, push_t = -1;
    double margin = 0;
    for (int i = 0; i < f.n_obs; i++) {
        if (f.obs[i].rec.card != 5)
            continue;
        if (f.obs[i].rec.type == KR_REC_TOUCH)
            touch_t = f.obs[i].rec.t_us;
        if (f.obs[i].rec.type == KR_REC_PUSH_OUT) {
            push_t = f.obs[i].rec.t_us;
            margin = f.obs[i].line_margin_mm;
        }
    }
    if (getenv("KR_TEST_VERBOSE"))
        printf("lost card: touch %lld push-out %lld\n", (long long)touch_t, (long long)push_t);
    CU_ASSERT_TRUE_FATAL(touch_t > 0 && push_t > 0);
    CU_ASSERT_TRUE(push_t > touch_t);
    CU_ASSERT_TRUE(isnan(margin)); /* not seen past the line: no margin to it (kr_pipe says so) */
    kr_event_destroy(f.ev);
}

/* Two cards cannot lie in one place: a push-out whose card's track lies where another
 * card's does is one track following the other's card (push_out at 30 fps: 77's push-out
 * 134 ms late on a t_err of 9.6, taken on 78's track), so its confidence is below the
 * rules engine's review level; the same push-out with the cards apart is not. */
static void test_push_out_on_another_cards_track(void)
{
    double ghost = ghost_case(1), apart = ghost_case(0);
    CU_ASSERT(ghost > 0 && ghost < 0.9);
    CU_ASSERT(apart >= 0.9);
}

/* A sweeps its card 5 off to the left at 60 fps; it is first seen out at 600 ms, its edge
 * 1.5 mm past the line (within a calibration's error), and then (how 0..3):
 *   0 slides on at 3 mm/ms, found on every frame;
 *   1 lies still there (at rest again from the next frame);
 *   2 lies still there, then from 800 ms a hand carries it on (its taker's, putting it aside);
 *   3 slides on but is not found (held where it was predicted).
 * Returns kr_event_line_margin of its push-out after the frames to 1.2 s (-1: none). */
static double pushed_card_margin(int how)
{
    fake f;
    fake_start(&f, 5, 150000);
    const key_pt path[] = {{250000, -200, -330, 0}, {500000, -250, -51.5, 0}, {650000, -600, -51.5, 0},
                           {700000, 1e9, 0, 0}};
    const double x0 = -(KR_TRACK_FIELD_HALF_W_MM + KR_TRACK_CARD_W_MM / 2 + 1.5);
    for (int64_t t = 0; t < 1200000; t += DT) {
        kr_track_card *c = &f.cards[1];
        if (t >= 560000) {
            const int64_t from = how == 2 ? 800000 : 600000; /* slides from */
            const int slides = how == 0 || how == 3 || t < 600000 || (how == 2 && t >= from);
            c->displaced = c->moving = slides;
            c->found = t <= 600000 || how != 3;
            c->out_of_field = t >= 600000;
            c->x_mm = c->whole_x_mm = t < 600000 ? x0 + 20 : x0 - (slides ? 3.0 * (double)(t - from) / 1000 : 0);
            c->hand_cover[0] = how == 2 && t >= from ? 0.5 : 0;
        }
        fake_frame(&f, t, path, 4);
    }
    double margin = -1;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_PUSH_OUT && f.obs[i].rec.card == 5) {
            CU_ASSERT_DOUBLE_EQUAL(f.obs[i].line_margin_mm, 1.5, 0.1); /* its first frame out */
            margin = kr_event_line_margin(f.ev, &f.obs[i]);
        }
    kr_event_destroy(f.ev);
    return margin;
}

/* How surely a card left the field is the farthest it was seen past the line in the motion
 * that took it out, not where it was on the first frame seen out (look 7059 push_out at 72
 * fps: 1-3 mm past on that frame, 42 mm on the next, flagged "within the calibration error
 * of the line" without need). A card that stops there keeps the first frame's margin, also
 * when a hand carries it on after it lay still (where its taker puts it says nothing of the
 * push); so does one not found on the frames after. */
static void test_push_out_margin_is_the_farthest_the_card_slid(void)
{
    double slid = pushed_card_margin(0), still = pushed_card_margin(1), carried = pushed_card_margin(2),
           unfound = pushed_card_margin(3);
    if (getenv("KR_TEST_VERBOSE"))
        printf("push-out margin: slid %.1f still %.1f carried %.1f unfound %.1f\n", slid, still, carried, unfound);
    CU_ASSERT(slid > 100);
    CU_ASSERT_DOUBLE_EQUAL(still, 1.5, 0.1);
    CU_ASSERT_DOUBLE_EQUAL(carried, 1.5, 0.1);
    CU_ASSERT_DOUBLE_EQUAL(unfound, 1.5, 0.1);
}

/* A's hand sweeps card 64 at 1 m/s, contact on the frame at 500 ms (the card seen at rest
 * there); from the next frame the card is not found (flung off faster than the follower
 * finds it blurred, at 30 fps), the hand over its place for 50 ms; it is given up 250 ms
 * after it was last seen, and found at rest out of the field at 1.1 s. One push-out, half
 * a period after the card was last seen, t_err half a period, never before the horizon
 * promised (before: at the frame it was given up, 250 ms late on a t_err of 4.8 ms, and a
 * second push-out when it was found out of the field; own_take, demo and others at 30 fps,
 * full_match and match_b at 60). */
/* The flung card of test_flung_card_pushed_out_when_last_seen, hidden in its place under the
 * hand on the `hidden` frames after its last sighting (tracker: occluded) before it is seen
 * moving: its push-out's time and error (-1: not one push-out). */
static int64_t flung_card_case(int hidden, int64_t *err)
{
    fake f;
    fake_start(&f, 64, 150000);
    const int64_t tc = 30 * DT;
    const key_pt path[] = {{250000, -100, 15 - 250, 0}, {900000, -100, 15 + 400, 0}, {900001, 1e9, 0, 0}};
    kr_track_card *c = &f.cards[0];
    int late = 0;
    for (int64_t t = 0; t < 1500000; t += DT) {
        c->found = 0;
        if (t <= tc)
            c->last_seen_us = t;
        else if (t <= tc + hidden * DT) { /* in its place, under the hand */
            c->occluded = 1;
            c->hand_cover[0] = 0.7;
        } else if (t < 1100000) {
            c->occluded = 0;
            c->moving = c->displaced = 1;
            c->hand_cover[0] = t < tc + 50000 ? 0.3 : 0;
            c->lost = t - c->last_seen_us > 250000;
        } else { /* at rest beyond B's line */
            c->moving = c->lost = 0;
            c->found = c->out_of_field = 1;
            c->x_mm = -100;
            c->y_mm = 300;
            c->last_seen_us = t;
        }
        int64_t h = kr_event_horizon(f.ev);
        int n0 = f.n_obs;
        fake_frame(&f, t, path, 3);
        for (int i = n0; i < f.n_obs; i++)
            late += f.obs[i].rec.t_us < h;
    }
    const kr_event_obs *po = NULL;
    int n = 0;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_PUSH_OUT && f.obs[i].rec.card == 64) {
            po = &f.obs[i];
            n++;
        }
    if (getenv("KR_TEST_VERBOSE") && po)
        printf("flung card, hidden %d frames: %d push-outs, at %lld +- %lld (last seen %lld)\n", hidden, n,
               (long long)po->rec.t_us, (long long)po->rec.t_err_us, (long long)tc);
    CU_ASSERT_EQUAL(late, 0);
    const int64_t t = n == 1 ? po->rec.t_us - tc : -1;
    *err = n == 1 ? po->rec.t_err_us : -1;
    kr_event_destroy(f.ev);
    return t;
}

static void test_flung_card_pushed_out_when_last_seen(void)
{
    int64_t e;
    CU_ASSERT_TRUE(llabs(flung_card_case(0, &e) - DT / 2) <= 1);
    CU_ASSERT_TRUE(llabs(e - DT / 2) <= 1);
}

/* Hidden in its place on the two frames after its last sighting, the card may have lain
 * there until the second: it left within the period after that frame. Its push-out is put
 * midway from the sighting, 1.5 periods after it, half that span its error (before: half a
 * period after the sighting, whatever hid it after: look 7117 rearrange at 24 fps, 28 ms
 * early on 21). */
static void test_flung_card_hidden_after_its_last_sighting(void)
{
    int64_t e;
    CU_ASSERT_TRUE(llabs(flung_card_case(2, &e) - 3 * DT / 2) <= 1);
    CU_ASSERT_TRUE(llabs(e - 3 * DT / 2) <= 1);
}

/* A's point comes within 30 mm of card 64 at 300 ms (25 mm short of it), stays there, then
 * lies on it from 500 ms to 1 s, no landing seen (the fake hand's picture never changes);
 * `covered`: B's hand over 90 % of the card from 320 to 450 ms, A's coming down possibly
 * under it. Returns A's touch of 64 (t_us -1:
 * none); *hidden its hidden mark. */
static kr_rules_record press_under_other_case(int covered, int *hidden)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {{200000, -100, -100, 0}, {300000, -100, -10, 0}, {400000, -100, -10, 0},
                           {500000, -100, 51.5, 0}, {1000000, -100, 51.5, 0}, {1200000, -100, -330, 0},
                           {1300000, 1e9, 0, 0}};
    for (int64_t t = 0; t < 1800000; t += DT) {
        f.cards[0].hand_cover[1] = covered && t >= 320000 && t <= 450000 ? 0.9 : 0;
        fake_frame_chg(&f, t, path, (int)(sizeof path / sizeof path[0]), 5000); /* never still */
    }
    kr_rules_record r = fake_last(&f, KR_REC_TOUCH, 64);
    *hidden = -1;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 64)
            *hidden = f.obs[i].hidden;
    if (getenv("KR_TEST_VERBOSE"))
        printf("press under the other hand (covered %d): %lld +- %lld, hidden %d\n", covered, (long long)r.t_us,
               (long long)r.t_err_us, *hidden);
    kr_event_destroy(f.ev);
    return r;
}

/* A press with no landing read, the card under the other player's hand since this hand
 * came near it: this hand may have come down under that one, unseen, any time since then
 * (look 7153 hand_contact_fault at 60 fps: A's fault press 221 ms before its modelled time,
 * on an error of 146, under B's hand). Its error reaches back to when it came near (300
 * ms) and the card is marked hidden; with the card uncovered, neither. */
static void test_press_under_the_other_hand_is_hidden(void)
{
    int h_cov, h_open;
    kr_rules_record cov = press_under_other_case(1, &h_cov), open = press_under_other_case(0, &h_open);
    CU_ASSERT_TRUE_FATAL(cov.t_us >= 0 && open.t_us >= 0);
    CU_ASSERT_EQUAL(h_cov, 1);
    CU_ASSERT_EQUAL(h_open, 0);
    CU_ASSERT_EQUAL(cov.t_us, open.t_us); /* the time is kept */
    CU_ASSERT_TRUE(cov.t_us - cov.t_err_us <= 300000 + DT); /* (its first frame there) */
    CU_ASSERT_TRUE(open.t_us - open.t_err_us > 300000 + DT);
}

/* A card knocked by its neighbour, seen moving for a frame, then at rest and unchanged for
 * two while the neighbour, not found, slides into its place, then lost (look 7067 push_out at
 * 40 fps: read card 77 pushed out at 1.568 s, its push-out put after its last sighting at
 * 1.625, 69 ms late on 12.5): those sightings may be the neighbour's, so its push-out may
 * be as early as the frame before it was seen moving, and its error reaches back there (put
 * midway). The same card with the neighbour left at rest: from its last sighting, half a
 * period (the flung card's rule). No observation before the horizon in either. stirred 0:
 * the card is not seen moving before the neighbour slides into its place, only after. */
static int64_t stand_in_case(int neighbour_moves, int stirred, int64_t *t_err, int *late)
{
    const kr_track_card_init lay[2] = {{64, KR_TRACK_B, -100, 51.5}, {5, KR_TRACK_B, -156, 51.5}};
    fake f;
    fake_start_with(&f, lay, 64, 150000);
    const int64_t tc = 30 * DT; /* 64 seen moving on the frame after */
    const key_pt path[] = {{250000, -156, -250, 0}, {900000, -156, 400, 0}, {900001, 1e9, 0, 0}};
    kr_track_card *c = &f.cards[0], *o = &f.cards[1];
    *late = 0;
    for (int64_t t = 0; t < 1500000; t += DT) {
        c->found = o->found = 0;
        c->moving = (stirred && t == tc + DT) || t > tc + 3 * DT;
        c->displaced = t > tc + 3 * DT;
        c->lost = t - c->last_seen_us > 250000;
        if (t <= tc + 3 * DT)
            c->last_seen_us = t;
        if (neighbour_moves && t > tc) {
            o->moving = o->displaced = 1;
            o->found = t >= tc + 3 * DT;
            if (o->found) { /* over 64's place, then on past it */
                o->x_mm = -100 + (double)(t - tc - 3 * DT) / 1000.0;
                o->y_mm = 60;
            }
        }
        int64_t h = kr_event_horizon(f.ev);
        int n0 = f.n_obs;
        fake_frame(&f, t, path, 3);
        for (int i = n0; i < f.n_obs; i++)
            *late += f.obs[i].rec.t_us < h;
    }
    int64_t t_po = -1;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_PUSH_OUT && f.obs[i].rec.card == 64) {
            t_po = f.obs[i].rec.t_us - tc;
            *t_err = f.obs[i].rec.t_err_us;
        }
    kr_event_destroy(f.ev);
    return t_po;
}

/* Both ways of stand_in_case for a card seen moving first (stirred) or not: with the
 * neighbour sliding into its place, the frame before (its motion, or the neighbour's
 * coming) within the push-out's error; with the neighbour left at rest, half a period after
 * its last sighting; no observation before the horizon in either. */
static void check_stand_in(int stirred)
{
    int64_t e_in, e_alone;
    int late_in, late_alone;
    int64_t d_in = stand_in_case(1, stirred, &e_in, &late_in), d_alone = stand_in_case(0, stirred, &e_alone, &late_alone);
    if (getenv("KR_TEST_VERBOSE"))
        printf("knocked card lost (seen moving first %d): neighbour slid into its place %lld us after the frame "
               "before, +- %lld; neighbour still %lld +- %lld\n",
               stirred, (long long)d_in, (long long)e_in, (long long)d_alone, (long long)e_alone);
    CU_ASSERT_TRUE(d_in >= 0 && d_in <= e_in);
    CU_ASSERT_TRUE(llabs(d_alone - (3 * DT + DT / 2)) <= 1 && llabs(e_alone - DT / 2) <= 1);
    CU_ASSERT_EQUAL(late_in, 0);
    CU_ASSERT_EQUAL(late_alone, 0);
}

static void test_knocked_card_seen_at_rest_where_its_neighbour_slid(void) { check_stand_in(1); }

/* The knocked card not seen moving before its neighbour slides into its place (look 7138
 * push_out at 30 fps: read card 77 knocked out at 1.568 s, its place taken by 78's blur on
 * the next frame and by 78, found there, on the one after, both read as 77 at rest; seen
 * moving only then, lost later, its push-out put after the second, 82 ms late on 17): its
 * sightings with the neighbour there may be the neighbour's, as when it was seen moving
 * first. With the neighbour left at rest, it is the flung card's rule as before. */
static void test_knocked_card_taken_for_at_rest_where_its_neighbour_slid(void) { check_stand_in(0); }

/* A card set moving before the hand's path reached its outline (its motion, fitted from its
 * first frames, starts 7 ms before the tip crosses its edge) with the card the same hand
 * touched lying against it: knocked, no touch of it (its push-out is the hand's). Before:
 * seen moving before its neighbour (the follower lost that one under the hand), it was
 * touched (push_out at 120 fps, phase 0 and 0.5: an extra touch on the read card, its
 * take ruled by touch). The same hand reaching 77's edge before it moves touches it. */
static void test_card_moving_before_the_hand_reached_it_is_knocked(void)
{
    int t78 = 0;
    CU_ASSERT_EQUAL(knock_case(308, &t78), 0); /* 77 moves at x = 308: the tip is 22 mm short */
    CU_ASSERT_EQUAL(t78, 1);
    CU_ASSERT_EQUAL(knock_case(332, &t78), 1); /* the tip on its edge (x = 330) first */
    CU_ASSERT_EQUAL(t78, 1);
}

/* A presses card 5 (x = -300, y = -51.5) from 0.5 s; from 0.8 s the two hands' blobs
 * touch (merged: contact 1 to 0.8 + merge_s) and A's leading point is put 100 mm off, on
 * card 6 (y = -150), still there for 200 ms; then it goes home. While the blobs touch, the
 * split says nothing of where A's hand is, and its press on 5 was not seen to end: one
 * touch (before: a second press, on 6, at confidence 0.6; match_b at 60 fps, card 37 at
 * 35.6 s, the other player's hand over the pressing one). The leading point really going
 * there with no merge: a second press. Returns the touches. */
static int merged_rest_touches(int merged)
{
    static const kr_track_card_init lay[2] = {{5, KR_TRACK_A, -300, -51.5}, {6, KR_TRACK_A, -300, -150}};
    fake f;
    fake_start_with(&f, lay, 5, 150000);
    const key_pt path[] = {{250000, -300, -330, 0}, {500000, -300, -51.5, 0}, {800000, -300, -51.5, 0},
                           {880000, -300, -150, 0}, {1100000, -300, -150, 0}, {1300000, -300, -330, 0},
                           {1400000, 1e9, 0, 0}};
    fake_run(&f, path, (int)(sizeof path / sizeof path[0]), 1800000, merged ? 800000 : -1, merged ? 1150000 : -1);
    int n = fake_count(&f, KR_REC_TOUCH);
    kr_event_destroy(f.ev);
    return n;
}

static void test_rest_while_merged_is_no_second_press(void)
{
    CU_ASSERT_EQUAL(merged_rest_touches(1), 1);
    CU_ASSERT_EQUAL(merged_rest_touches(0), 2);
}

/* ---- flags session 8 ---- */

/* A frame built by hand (no tracker): card 64 of B's territory at rest at (-100, 51.5) or
 * swept along +y (moving and displaced, centre at c64y), card 5 of A's far off; A's hand at
 * its leading point (ax, ay) when a_on, B's at (bx, by) when b_on (arms from their own
 * edges, the box from the fingertip to the edge, 80 mm wide). a_cover: A's hand's cover of
 * card 64. Observations are collected in f. */
typedef struct flag_scene {
    kr_track_card cards[2];
    kr_track_frame fr;
    kr_event_t *ev;
    kr_event_obs obs[64];
    int n_obs, early;
} flag_scene;

static void flag_start_read(flag_scene *f, int64_t kami_t, int32_t read_card);
static void flag_start(flag_scene *f, int64_t kami_t) { flag_start_read(f, kami_t, 64); }

static void flag_start_read(flag_scene *f, int64_t kami_t, int32_t read_card)
{
    memset(f, 0, sizeof *f);
    static const kr_track_card_init lay[2] = {{64, KR_TRACK_B, -100, 51.5}, {5, KR_TRACK_A, 380, -134.5}};
    for (int k = 0; k < 2; k++) {
        kr_track_card *c = &f->cards[k];
        c->id = lay[k].id;
        c->owner = lay[k].owner;
        c->x_mm = c->rest_x_mm = c->whole_x_mm = lay[k].x_mm;
        c->y_mm = c->rest_y_mm = c->whole_y_mm = lay[k].y_mm;
        c->visible = 1;
    }
    f->fr.ready = 1;
    f->fr.n_cards = 2;
    f->fr.cards = f->cards;
    kr_event_config cfg;
    kr_event_config_default(&cfg);
    CU_ASSERT_EQUAL_FATAL(kr_event_create(&cfg, &f->ev), KR_OK);
    kr_event_reading(f->ev, KR_REC_KAMI_START, 1, read_card, kami_t);
}

static void flag_hand(kr_track_hand *h, int p, double x, double y)
{
    double edge = p ? 420 : -420;
    h->present = 1;
    h->lead_x_mm = x;
    h->lead_y_mm = y;
    h->base_x_mm = x;
    h->base_y_mm = edge;
    h->bbox_mm[0] = x - 40;
    h->bbox_mm[2] = x + 40;
    h->bbox_mm[1] = y < edge ? y : edge;
    h->bbox_mm[3] = y < edge ? edge : y;
    h->area_mm2 = 20000;
    h->side = 1;
    h->in_field = fabs(x) <= KR_TRACK_FIELD_HALF_W_MM && fabs(y) <= KR_TRACK_FIELD_HALF_H_MM;
    h->shadow_px = 20;
    h->shadow_dist_mm = 5;
    h->tip_change = 50000;
}

static void flag_feed(flag_scene *f, int64_t t);

static void flag_frame(flag_scene *f, int64_t t, int a_on, double ax, double ay, double a_cover, int b_on, double bx,
                       double by, double c64y, int c64_occluded)
{
    memset(f->fr.hands, 0, sizeof f->fr.hands);
    if (a_on)
        flag_hand(&f->fr.hands[0], 0, ax, ay);
    if (b_on)
        flag_hand(&f->fr.hands[1], 1, bx, by);
    kr_track_card *c = &f->cards[0];
    int moved = c64y > 51.5 + 0.5;
    c->y_mm = c->whole_y_mm = c64y;
    c->moving = c->displaced = moved;
    c->found = moved;
    c->moved_mm = c64y - 51.5;
    c->change = moved ? 1 : c64_occluded ? 0.4 : 0;
    c->occluded = !moved && c64_occluded;
    c->visible = c64_occluded ? 0.4 : 1;
    c->hand_cover[0] = a_cover;
    flag_feed(f, t);
}

static void flag_feed(flag_scene *f, int64_t t)
{
    f->fr.t_us = t;
    const kr_event_obs *o;
    int n;
    int64_t h = kr_event_horizon(f->ev);
    CU_ASSERT_EQUAL_FATAL(kr_event_update(f->ev, &f->fr, &o, &n), KR_OK);
    for (int i = 0; i < n; i++) {
        if (o[i].rec.t_us < h)
            f->early++;
        if (f->n_obs < 64)
            f->obs[f->n_obs++] = o[i];
    }
}

static const kr_event_obs *flag_touch(flag_scene *f)
{
    const kr_event_obs *o;
    int n;
    CU_ASSERT_EQUAL(kr_event_finish(f->ev, &o, &n), KR_OK);
    for (int i = 0; i < n && f->n_obs < 64; i++)
        f->obs[f->n_obs++] = o[i];
    for (int i = 0; i < f->n_obs; i++)
        if (f->obs[i].rec.type == KR_REC_TOUCH)
            return &f->obs[i];
    return NULL;
}

/* A's hand sweeps card 64 at 2.5 m/s (contact at 405 ms, 60 fps) and is lost by the
 * tracker on the frames around the contact (a fast sweep blurred), then seen pushing the
 * card: blamed late (sweep_with_hand_lost_is_blamed). B's hand: 0 never in view, 1 hovering
 * 50 mm beyond the card (it may have moved it: unseen there is no telling), 2 in view far
 * off at the other side, 3 seen deep in the field beside the card, then lost from view
 * before the card moved. Returns the touch's confidence (-1 none) and its player. */
static double late_blame_conf(int b, int *player)
{
    flag_scene f;
    flag_start(&f, 150000);
    const int64_t tc = 405000;
    *player = -1;
    for (int64_t t = 0; t < 900000; t += DT) {
        double dtc = (t - tc) / 1e6, c64y = dtc > 0 ? 51.5 + 2500 * dtc : 51.5;
        if (c64y > 200)
            c64y = 200;
        int a_on = t > 250000 && (t < tc - DT || t > tc + DT);
        double ay = dtc > 0 ? c64y - 36.5 : 15 + 2500 * dtc;
        int b_on = b == 1 || b == 2 || (b == 3 && t < tc - 3 * DT);
        double bx = b == 2 ? 380 : b == 3 ? -170 : -100, by = b == 2 ? 200 : b == 3 ? 60 : 51.5 + 36.5 + 50;
        if (b == 1 && c64y > 51.5)
            by = c64y + 36.5 + 50; /* (drawing back before the card) */
        flag_frame(&f, t, a_on, -100, ay, a_on && dtc > 0 ? 0.3 : 0, b_on, bx, by, c64y, 0);
    }
    const kr_event_obs *o = flag_touch(&f);
    CU_ASSERT_EQUAL(f.early, 0);
    double conf = -1;
    if (o) {
        conf = o->rec.confidence;
        *player = o->rec.player == KR_SIDE_B;
        CU_ASSERT_TRUE(fabs((double)(o->rec.t_us - tc)) <= 2.0 * (double)o->rec.t_err_us);
    }
    if (getenv("KR_TEST_VERBOSE"))
        printf("late blame, B case %d: conf %.2f player %d flags %x\n", b, conf, *player,
               kr_event_reading_flags(f.ev, 1));
    kr_event_destroy(f.ev);
    return conf;
}

/* The late blame is sure when the other player's hand was kept off the card (never in
 * view, or seen far off): confidence 0.95 (before: 0.6 always, and a judge was asked on
 * early_entry at 30, 60 and 120 fps and opp_take_send at 30 fps); with B's hand near the
 * card, or lost from view beside it, still 0.6. */
static void test_late_blame_sure_when_the_other_hand_is_off(void)
{
    int pl;
    CU_ASSERT_TRUE(late_blame_conf(0, &pl) >= 0.9);
    CU_ASSERT_EQUAL(pl, 0);
    CU_ASSERT_TRUE(late_blame_conf(2, &pl) >= 0.9);
    CU_ASSERT_EQUAL(pl, 0);
    double c1 = late_blame_conf(1, &pl);
    CU_ASSERT_TRUE(c1 > 0 && c1 <= 0.6);
    double c3 = late_blame_conf(3, &pl);
    CU_ASSERT_TRUE(c3 > 0 && c3 <= 0.6);
}

/* 30 fps: A's fingertip crosses card 64's near edge between two frames and covers the card
 * on the next (too little of it seen to call it still), the card is seen moving one frame
 * later: the window from its last still frame is two periods (67 ms), the contact dated by
 * the path's entry. Confidence 0.95 (before: 0.8 for any window over 50 ms, a judge asked on
 * double, fault_way_back at 30 fps; match_b and send_back at phase 0.5). path 0: the hand is
 * first seen already over the card (no path entry, nothing dates it in the window): 0.8. */
static double wide_window_conf(int path)
{
    flag_scene f;
    flag_start(&f, 150000);
    const int64_t dt = 33333, t_in = 425000, tc = 433333; /* (the frame at tc shows it unmoved) */
    for (int64_t t = 0; t < 1000000; t += dt) {
        double c64y = t > tc ? 51.5 + 1500 * (t - tc) / 1e6 : 51.5;
        if (c64y > 200)
            c64y = 200;
        double ay = 15 + 1500 * (t - t_in) / 1e6;
        if (ay > c64y - 20)
            ay = c64y - 20;
        int a_on = path ? t > 250000 : t > t_in;
        int over = ay > 15;
        flag_frame(&f, t, a_on, -100, ay, a_on && over ? 0.4 : 0, 0, 0, 0, c64y, a_on && over && t <= tc);
    }
    const kr_event_obs *o = flag_touch(&f);
    CU_ASSERT_EQUAL(f.early, 0);
    CU_ASSERT_PTR_NOT_NULL(o);
    double conf = -1;
    if (o) {
        conf = o->rec.confidence;
        CU_ASSERT_EQUAL(o->rec.player, KR_SIDE_A);
        CU_ASSERT_TRUE(fabs((double)(o->rec.t_us - tc)) <= 2.0 * (double)o->rec.t_err_us + 5000);
        if (getenv("KR_TEST_VERBOSE"))
            printf("wide window, path %d: t %lld (tc %lld) t_err %lld conf %.2f\n", path, (long long)o->rec.t_us,
                   (long long)tc, (long long)o->rec.t_err_us, conf);
    }
    kr_event_destroy(f.ev);
    return conf;
}

static void test_wide_window_dated_by_the_path(void)
{
    CU_ASSERT_TRUE(wide_window_conf(1) >= 0.9);
    double c0 = wide_window_conf(0);
    CU_ASSERT_TRUE(c0 > 0 && c0 < 0.9);
}

/* 120 fps, no card near: A's hand rests deep in the field at (200, 0), showing itself
 * (shadow beside its tip, its picture changing), then draws back; the tracker keeps its
 * leading point on the arm's print (the picture there still, no shadow pixels beside it)
 * for 200 ms, switches to the hand near A's line at (180, -230) for a frame (shadow, change),
 * back onto the print, and loses both (reading_void at 120 fps, 60 fps at phase 0.5).
 * how 0: so; 1: the hand is never seen near its line (the print then lost: a hand lost deep
 * in the field, HAND_UNSEEN); 2: what the leading point jumps to shows no hand (no shadow
 * beside it, still): not believed, HAND_UNSEEN. Returns the reading's flags. */
static unsigned print_flags(int how)
{
    flag_scene f;
    flag_start(&f, 150000);
    const int64_t dt = 8333;
    for (int64_t t = 0; t < 1400000; t += dt) {
        memset(f.fr.hands, 0, sizeof f.fr.hands);
        kr_track_hand *h = &f.fr.hands[0];
        if (t >= 300000 && t < 500000) /* the hand, deep */
            flag_hand(h, 0, 200, 0);
        else if (t >= 500000 && t < 800000) { /* the print; the hand once near its line */
            int real = how != 1 && t >= 700000 && t < 700000 + dt;
            flag_hand(h, 0, real ? 180 : 200, real ? -230 : 0);
            if (!real || how == 2) {
                h->shadow_px = 0;
                h->shadow_dist_mm = -1;
                h->tip_change = 0;
            }
        }
        flag_feed(&f, t);
    }
    unsigned fl = kr_event_reading_flags(f.ev, 1);
    if (getenv("KR_TEST_VERBOSE"))
        printf("arm's print, case %d: flags %x\n", how, fl);
    kr_event_destroy(f.ev);
    return fl;
}

/* The hand seen near its line between the print's frames is believed at once, the print
 * after it is no sighting: no HAND_UNSEEN (before: the jump back onto the print put the hand
 * deep in the field again, and a judge was asked when the print faded). */
static void test_print_of_the_arm_is_not_the_hand(void)
{
    CU_ASSERT_FALSE(print_flags(0) & KR_EVENT_FLAG_HAND_UNSEEN);
    CU_ASSERT_TRUE(print_flags(1) & KR_EVENT_FLAG_HAND_UNSEEN);
    CU_ASSERT_TRUE(print_flags(2) & KR_EVENT_FLAG_HAND_UNSEEN);
}

/* 120 fps: A's arm reaches over its own card 5 (380, -134.5) to (380, 20) and stays; from
 * 500 ms to 700 ms the tracker drops the part of the arm over card 5 (its blob split: the
 * card looks changed, no hand's cover on it; dead_fault at 120 fps), then has it again.
 * how 0: so; 1: card 5 was not under the arm before it looked changed (something else
 * covers it); 2: the hand itself is out of view while the card looks changed. Returns the
 * reading's flags. */
static unsigned dropped_arm_flags(int how)
{
    flag_scene f;
    flag_start(&f, 150000);
    const int64_t dt = 8333;
    for (int64_t t = 0; t < 1100000; t += dt) {
        memset(f.fr.hands, 0, sizeof f.fr.hands);
        int on = t >= 250000 && t < 1000000 && !(how == 2 && t >= 500000 && t < 700000);
        if (on)
            flag_hand(&f.fr.hands[0], 0, 380, 20);
        kr_track_card *c = &f.cards[1];
        int under = on && t >= 300000 && !(t >= 500000 && t < 700000) && !(how == 1 && t < 500000);
        int changed = under || (t >= 500000 && t < 700000);
        c->hand_cover[0] = under ? 1.0 : 0;
        c->change = changed ? 1.0 : 0;
        c->visible = under ? 0 : 1;
        c->occluded = under;
        flag_feed(&f, t);
    }
    unsigned fl = kr_event_reading_flags(f.ev, 1);
    if (getenv("KR_TEST_VERBOSE"))
        printf("dropped arm, case %d: flags %x\n", how, fl);
    kr_event_destroy(f.ev);
    return fl;
}

/* A card under the arm the frame before it looks changed with no hand on it, the hand still
 * in view: the arm the tracker dropped, no OBSCURED (before: a judge asked, dead_fault at 120
 * fps at phase 0 and 0.5); not under it before, or the hand out of view: OBSCURED. */
static void test_card_under_a_dropped_arm_is_not_obscured(void)
{
    CU_ASSERT_FALSE(dropped_arm_flags(0) & KR_EVENT_FLAG_OBSCURED);
    CU_ASSERT_TRUE(dropped_arm_flags(1) & KR_EVENT_FLAG_OBSCURED);
    CU_ASSERT_TRUE(dropped_arm_flags(2) & KR_EVENT_FLAG_OBSCURED);
}

/* 60 fps, card 33 read (not on the field): A presses its card 5 at 0.3-0.7 s (play begins)
 * and stays deep in the field at no card; B's hand comes in and 1.2 s later sweeps its own card 64
 * with a window over 50 ms, its motion followed. An own card touched well after play
 * began stays weak (0.6: late_own_card_touch_is_weak), however well its contact is dated.
 * Returns the sweep's confidence (-1 none). */
static double late_own_wide_conf(void)
{
    flag_scene f;
    flag_start_read(&f, 150000, 33);
    const int64_t dt = 16667, t_in = 1905000, tc = 1945000; /* (over it on two frames before it moves) */
    double conf = -1;
    for (int64_t t = 0; t < 2600000; t += dt) {
        double c64y = t > tc ? 51.5 + 1500 * (t - tc) / 1e6 : 51.5;
        if (c64y > 200)
            c64y = 200;
        memset(f.fr.hands, 0, sizeof f.fr.hands);
        if (t >= 300000) /* (then deep in the field at no card: play goes on) */
            flag_hand(&f.fr.hands[0], 0, t < 700000 ? 380 : 200, t < 700000 ? -134.5 : 0);
        double by = 88 + 1500 * (t_in - t) / 1e6;
        if (by > 240)
            by = 240;
        if (by < c64y + 36.5 - 20)
            by = c64y + 36.5 - 20;
        int b_over = by < 88;
        if (t >= 700000)
            flag_hand(&f.fr.hands[1], 1, -100, by);
        kr_track_card *c = &f.cards[0];
        int moved = c64y > 52;
        c->y_mm = c->whole_y_mm = c64y;
        c->moving = c->displaced = c->found = c->whole_ok = moved; /* followed: its motion dates the contact */
        c->change = moved ? 1 : b_over ? 0.4 : 0;
        c->occluded = !moved && b_over;
        c->visible = b_over ? 0.4 : 1;
        c->hand_cover[1] = b_over ? 0.4 : 0;
        flag_feed(&f, t);
    }
    const kr_event_obs *o;
    int n;
    CU_ASSERT_EQUAL(kr_event_finish(f.ev, &o, &n), KR_OK);
    for (int i = 0; i < n && f.n_obs < 64; i++)
        f.obs[f.n_obs++] = o[i];
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 64) {
            conf = f.obs[i].rec.confidence;
            if (getenv("KR_TEST_VERBOSE"))
                printf("late own wide sweep: t %lld conf %.2f cue %d player %d\n", (long long)f.obs[i].rec.t_us, conf, f.obs[i].cue,
                       f.obs[i].rec.player == KR_SIDE_B);
        }
    kr_event_destroy(f.ev);
    return conf;
}

static void test_late_own_sweep_stays_weak_when_dated(void)
{
    double c = late_own_wide_conf();
    CU_ASSERT_TRUE(c > 0 && c <= 0.6);
}

/* ---- race session 8: racing presses timed from their own landings ---- */

/* One frame of a race on card 64 (at -100, 51.5): A's hand comes from its edge to a stop
 * at (-100, 45) at 500 ms, B's from its edge to (-100, 60) at 520 ms; both come down.
 * chg: the change around either tip (the two descents together, tip_change: quiet only
 * once the later hand lies still), own[p]: each hand's own change (tip_change_own), share
 * what the other hand's mask left of the circle. */
static const double *race_lit; /* each hand's tip_change_own_lit for race_frame (NULL: own) */
static const double *race_whole; /* each hand's tip_change for race_frame (NULL: chg) */
static double  race_share_a;     /* > 0: A's tip_own_share for race_frame (else share) */
static int64_t race_wobble_a;    /* > 0: A's point put 20 mm further in on every other 67 ms until then */
static int64_t race_merged_a;    /* > 0: the two blobs one from 500 ms until then, A's point 60 mm further in */
static int64_t race_jump_b;      /* > 0: B's point stops over the card only then, and is put 20 mm
                                    further in on the frame after */
static int64_t race_wander_a;    /* > 0: the two blobs one from 500 ms until then, A's point going
                                    round a circle of 20 mm at 400 mm/s (no jump) */
static int64_t race_b_gone;      /* > 0: B's point back at its edge from then on */
static int64_t race_flutter_a;   /* > 0: A braking onto its stop, its point put 14 mm back on every other
                                    50 ms from 520 ms until then (no merge) */
static int64_t race_creep_b;     /* > 0: B's point 20 mm short of its stop at 520 ms and braking onto it
                                    then, the two blobs one from 500 ms until then (unless race_creep_apart) */
static int     race_creep_apart;
static int64_t race_hide_b;      /* > 0: B's tip_own_share 0.05 from then on (the other hand's mask over its
                                    circle), and B braking onto its stop */
static void race_frame(fake *f, int64_t t, const double own[2], double chg, double share)
{
    memset(&f->fr.hands, 0, sizeof f->fr.hands);
    for (int p = 0; p < 2; p++) {
        kr_track_hand *h = &f->fr.hands[p];
        int64_t t0 = p ? 270000 : 250000, t1 = p ? race_jump_b > 0 ? race_jump_b : 520000 : 500000;
        double y_edge = p ? 330 : -330, y_stop = p ? 60 : 45;
        if (t < t0)
            continue;
        double u = t >= t1 ? 1 : (double)(t - t0) / (double)(t1 - t0);
        if ((!p && race_flutter_a > 0) || (p && race_hide_b > 0)) /* braking onto its stop */
            u = 1 - (1 - u) * (1 - u);
        double y = y_edge + u * (y_stop - y_edge), x = -100 + (p ? -6 : 6);
        if (!p && t >= t1 && t < race_wobble_a && (t - t1) / 66668 % 2 == 1)
            y += 20;
        if (!p && t >= t1 && t < race_merged_a)
            y += 60;
        if (!p && t >= 520000 && t < race_flutter_a && (t - 520000) / 50000 % 2 == 0)
            y -= 14;
        if (!p && t >= t1 && t < race_wander_a) {
            double w = 20.0 * (double)(t - t1) / 1e6;
            x += 20 * sin(w);
            y += 20 * (1 - cos(w));
        }
        if (p && race_jump_b > 0 && llabs(t - race_jump_b - DT) < DT / 2)
            y -= 20;
        if (p && race_b_gone > 0 && t >= race_b_gone)
            y = y_edge;
        if (p && race_creep_b > 0 && t < race_creep_b) {
            double v = t < 520000 ? 1 : 1 - (double)(t - 520000) / (double)(race_creep_b - 520000);
            y += 20 * v * v;
        }
        h->present = 1;
        h->lead_x_mm = x;
        h->lead_y_mm = y;
        h->base_x_mm = x;
        h->base_y_mm = y_edge;
        h->bbox_mm[0] = x - 40;
        h->bbox_mm[1] = p ? y : y_edge;
        h->bbox_mm[2] = x + 40;
        h->bbox_mm[3] = p ? y_edge : y;
        h->area_mm2 = 20000;
        h->side = 1;
        h->in_field = fabs(y) <= KR_TRACK_FIELD_HALF_H_MM;
        h->shadow_px = 20;
        h->shadow_dist_mm = 5;
        h->tip_change = race_whole ? race_whole[p] : chg;
        h->tip_change_own = own[p];
        h->tip_change_own_lit = race_lit ? race_lit[p] : own[p];
        h->tip_own_share = !p && race_share_a > 0 ? race_share_a : share;
        if (p && race_hide_b > 0 && t >= race_hide_b)
            h->tip_own_share = 0.05;
    }
    f->fr.t_us = t;
    f->fr.hand_contact =
        t >= 500000 && (t < race_merged_a || t < race_wander_a || (t < race_creep_b && !race_creep_apart));
    const kr_event_obs *o;
    int no;
    const int64_t h = kr_event_horizon(f->ev);
    CU_ASSERT_EQUAL_FATAL(kr_event_update(f->ev, &f->fr, &o, &no), KR_OK);
    for (int k = 0; k < no; k++)
        CU_ASSERT_TRUE(o[k].rec.t_us >= h); /* the horizon's promise (a press read back through a merge) */
    for (int k = 0; k < no && f->n_obs < 64; k++)
        f->obs[f->n_obs++] = o[k];
}

/* Each player's touch of card 64 in f (t -1: none), its error and (conf not NULL) confidence. */
static void race_touches(const fake *f, int64_t t[2], int64_t err[2], double conf[2])
{
    for (int p = 0; p < 2; p++)
        t[p] = -1;
    for (int i = 0; i < f->n_obs; i++)
        if (f->obs[i].rec.type == KR_REC_TOUCH && f->obs[i].rec.card == 64) {
            int p = f->obs[i].rec.player == KR_SIDE_B;
            t[p] = f->obs[i].rec.t_us;
            err[p] = f->obs[i].rec.t_err_us;
            if (conf)
                conf[p] = f->obs[i].rec.confidence;
        }
}

/* The end of a race scene with a merge (race_wander_a or race_merged_a) and B going
 * (race_b_gone): those set back, the touches read (race_touches) and f's detector freed. */
static void race_merge_end(fake *f, int64_t t[2], int64_t err[2], double conf[2])
{
    race_wander_a = 0;
    race_merged_a = 0;
    race_b_gone = 0;
    race_touches(f, t, err, conf);
    kr_event_destroy(f->ev);
}

/* The end of a race scene: the touches read (race_touches), f's detector freed, and with
 * KR_TEST_VERBOSE each player's touch printed after `what`. */
static void race_read(fake *f, const char *what, int64_t t[2], int64_t err[2])
{
    err[0] = err[1] = 0;
    race_touches(f, t, err, NULL);
    kr_event_destroy(f->ev);
    if (getenv("KR_TEST_VERBOSE"))
        printf("%s: A %lld +- %lld, B %lld +- %lld\n", what, (long long)t[0], (long long)err[0], (long long)t[1],
               (long long)err[1]);
}

/* The race: both hands stop over the card and come down; A lies on it from 650 ms, B from
 * 710 ms (their own changes fall to noise then); the change around either tip goes quiet
 * only at 710 ms. leak: A's own change after its landing holds that share of B's (what the
 * mask does not cover of B's motion). Writes each player's touch time, error and
 * confidence (t -1: none). */
static void race_case_cut(double leak, double share, int cut, int64_t t[2], int64_t err[2], double conf[2])
{
    fake f;
    fake_start(&f, 64, 150000);
    for (int64_t tt = 0; tt < 1300000; tt += DT) {
        double own[2];
        for (int p = 0; p < 2; p++) {
            int64_t land = p ? 710000 : 650000;
            own[p] = tt < 300000 ? 0 : tt < (p ? 520000 : 500000) ? 60000 : tt < land ? 6000 : 50;
        }
        if (tt >= 650000 && tt < 710000)
            own[0] = leak * own[1];
        if (cut && tt >= 680000 && tt < 710000)
            own[0] = 2500; /* B's shadow crossing A's circle: more than the leak rule takes */
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 710000 ? 30000 : 50, share);
    }
    race_touches(&f, t, err, conf);
    if (getenv("KR_TEST_VERBOSE"))
        printf("race leak %.2f share %.2f: A %lld +- %lld (%.2f), B %lld +- %lld (%.2f)\n", leak, share,
               (long long)t[0], (long long)err[0], conf[0], (long long)t[1], (long long)err[1], conf[1]);
    kr_event_destroy(f.ev);
}

static void race_case(double leak, double share, int64_t t[2], int64_t err[2], double conf[2])
{
    race_case_cut(leak, share, 0, t, err, conf);
}

/* Each racing press is timed from its own landing (A's last changing frame 633 ms, B's
 * 700 ms, plus the tail): A within 15 ms of 650 ms, B of 710 ms, their errors under a
 * frame, and the evidence strong (0.92: a 60 ms race needs no judge). Before: neither
 * landing was measured with the other hand near, both were put on the modelled descent
 * (575 and 599 ms, 29 ms) at confidence 0.6. With the mask leaving too
 * little of the circle (share 0.1), the own change says nothing: the model, at 0.6. */
static void test_race_presses_timed_from_own_landing(void)
{
    int64_t t[2], err[2];
    double conf[2];
    race_case(0, 0.6, t, err, conf);
    CU_ASSERT_TRUE(llabs(t[0] - 650000) < 15000);
    CU_ASSERT_TRUE(llabs(t[1] - 710000) < 15000);
    for (int p = 0; p < 2; p++) {
        CU_ASSERT_TRUE(err[p] > 0 && err[p] < DT);
        CU_ASSERT_TRUE(conf[p] >= 0.9);
    }
    race_case(0, 0.1, t, err, conf);
    CU_ASSERT_TRUE(t[0] >= 0 && t[1] >= 0 && t[0] < 620000 && t[1] < 620000);
    CU_ASSERT_TRUE(conf[0] < 0.9 && conf[1] < 0.9);
}

/* What the mask leaves of the other hand's motion can keep a hand's own change up after
 * it lies still (A's own change 30 % of B's, 1800 a frame, until B lands at 710 ms): its
 * quiet run starts with B's, and the landing measured is late. Those frames may be the
 * leak alone: the landing is put between A's last change of its own and the one measured,
 * with an error that spans them, so the truth (650 ms) is within two errors (before: at
 * 708 ms with 12 ms, 58 ms late). */
static void test_race_leak_widens_the_error(void)
{
    int64_t t[2], err[2];
    double conf[2];
    race_case(0.3, 0.6, t, err, conf);
    CU_ASSERT_TRUE(t[0] >= 0 && llabs(t[0] - 650000) <= 2 * err[0]);
    CU_ASSERT_TRUE(err[0] > 20000);
    CU_ASSERT_TRUE(llabs(t[1] - 710000) < 15000);
}

/* A racing hand still moving on its own after its last changing frame is no leak. The
 * 120 fps race_20ms at 60 fps (the levels twice theirs): B's own change is 6000 a frame
 * coming down, then 1200, 1200 beside A's 3300, 3300 (a share the leak rule takes), then
 * 414, 678, 414, 480 under the quiet level while A's falls to 1100, 636, 66, 126 as it
 * lies still, then noise from B's contact at 725 ms. The 678 after A's 636 and the 414 and
 * 480 after A's 66 and 126 are none of A's leak: B moved on after the 1200s, which were
 * its own too, and its landing is not put back among them (race_20ms: B's 630, 567
 * beside A's 1656, 1671, then 207, 339, 207, 240, read 2.041 +- 28.9 before A's 2.044,
 * contact 2.070). */
static void test_race_hand_moving_on_is_no_leak(void)
{
    /* each hand's own change on the frames from 617 ms (A's, B's), then the last on */
    static const double tail[2][8] = {{6000, 3300, 3300, 1100, 636, 66, 126, 50},
                                      {6000, 1200, 1200, 414, 678, 414, 480, 50}};
    fake f;
    fake_start(&f, 64, 150000);
    for (int64_t tt = 0; tt < 1300000; tt += DT) {
        double own[2];
        const int i = tt < 37 * DT ? 0 : (int)(tt / DT) - 37; /* 633 ms: 1 */
        for (int p = 0; p < 2; p++)
            own[p] = tt < 300000 ? 0 : tt < (p ? 520000 : 500000) ? 60000 : tail[p][i < 7 ? i : 7];
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 725000 ? 30000 : 50, 0.6);
    }
    int64_t t[2], err[2];
    race_read(&f, "race moving on", t, err);
    CU_ASSERT_TRUE(t[0] >= 0 && t[1] > t[0] && llabs(t[1] - 725000) <= 2 * err[1]);
    CU_ASSERT_TRUE(err[1] < 40000); /* before: 658 +- 48.6 ms, before A's 664 */
}

/* The two hands' blobs one from 500 ms, B's point still braking onto its stop, 20 mm off
 * at 520 ms (its stop fitted at 569), while its own change, the mask of A's pixels put by
 * the tracker's split over B's fingertips, stays calm from 520 ms (300 a frame, under half
 * the quiet level) until its contact at 610 ms; A comes down in sight until 650 ms. B's
 * landing, read at its last change (520 ms), is anywhere up to its stop: its error reaches
 * on to it, and the truth is within twice that error (before: 517 +- 11.7 ms, 93 ms early;
 * look 7055 race_20ms at 100 fps, B read 78 ms early on 12.4, before A: B's take, not
 * near-simultaneous). The blobs apart, the same reading keeps its error (under a frame): a
 * landing read before its hand's stop is as a rule right. */
static void test_race_merged_reading_before_the_stop(void)
{
    for (int merged = 1; merged >= 0; merged--) {
        fake f;
        fake_start(&f, 64, 150000);
        race_creep_b = 700000;
        race_creep_apart = !merged;
        for (int64_t tt = 0; tt < 1300000; tt += DT) {
            double own[2] = {tt < 300000 ? 0 : tt < 500000 ? 60000 : tt < 650000 ? 6000 : 50,
                             tt < 300000 ? 0 : tt < 520000 ? 60000 : tt < 610000 ? 300 : 50};
            race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 710000 ? 30000 : 50, 0.6);
        }
        race_creep_b = 0;
        race_creep_apart = 0;
        int64_t t[2], err[2] = {0, 0};
        race_touches(&f, t, err, NULL);
        kr_event_destroy(f.ev);
        if (getenv("KR_TEST_VERBOSE"))
            printf("race merged %d, B braking on: A %lld +- %lld, B %lld +- %lld\n", merged, (long long)t[0],
                   (long long)err[0], (long long)t[1], (long long)err[1]);
        CU_ASSERT_TRUE(t[0] >= 0 && llabs(t[0] - 650000) < 20000);
        CU_ASSERT_TRUE(t[1] >= 0);
        if (merged) {
            CU_ASSERT_TRUE(llabs(t[1] - 610000) <= 2 * err[1]);
        } else {
            CU_ASSERT_TRUE(err[1] < DT);
        }
    }
}

/* B stops over the card at 520 ms and comes down slowly, its own change 6000 a frame until
 * its contact at 640 ms, calm for a frame; then A's hand, lifting off its own landing (600
 * ms), comes over B's circle and lies still on it: from 673 ms the mask leaves 5 % of it,
 * B's own change there 3000 (A's motion, 40000 a frame), from 706 ms 50. No quiet run of
 * B's own is read before its wait runs out (race_landing: 0), but the frames the mask left
 * readable show B moving until 640 ms and lying still after, A's leak aside: B's press is
 * read there, not modelled on its stop (before: 570 +- 29 ms, 70 ms early; look 7110
 * match_b at 25 fps, B on A's card 9, where the quiet run was read only under the mask:
 * -1). */
static void test_race_landing_hidden_after_it_is_read_before(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    race_hide_b = 673000;
    for (int64_t tt = 0; tt < 1300000; tt += DT) {
        double own[2] = {tt < 300000 ? 0 : tt < 500000 ? 60000 : tt < 600000 ? 6000 : tt < 660000 ? 50
                                                                              : tt < 706000 ? 40000 : 50,
                         tt < 300000 ? 0 : tt < 520000 ? 60000 : tt < 640000 ? 6000 : tt < 673000 ? 50
                                                                               : tt < 706000 ? 3000 : 50};
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 706000 ? 30000 : 50, 0.6);
    }
    race_hide_b = 0;
    int64_t t[2], err[2];
    race_read(&f, "race, B's landing hidden after it", t, err);
    CU_ASSERT_TRUE(t[0] >= 0 && llabs(t[0] - 600000) < 20000);
    CU_ASSERT_TRUE(t[1] >= 0 && llabs(t[1] - 640000) <= err[1] && err[1] < DT);
}

/* A lies still on the card from 650 ms (its own change at noise for two frames and more),
 * then B's shadow, which the mask leaves, crosses A's circle (A's own change 2500 a frame
 * at 680-710 ms, under half of B's own and over what the leak rule takes) and A's quiet
 * run that counts starts at 710 ms. The landing may be the earlier run's: the error spans
 * back to it, so the truth (650 ms) is within two errors (before: 708 ms with 12 ms). */
static void test_race_quiet_run_cut_short_widens_the_error(void)
{
    int64_t t[2], err[2];
    double conf[2];
    race_case_cut(0, 0.6, 1, t, err, conf);
    CU_ASSERT_TRUE(t[0] >= 0 && llabs(t[0] - 650000) <= 2 * err[0]);
    CU_ASSERT_TRUE(err[0] > 15000);
    CU_ASSERT_TRUE(llabs(t[1] - 710000) < 15000);
}

/* A race where A strikes the card: its own change a_desc a frame from its stop (500 ms) to
 * its landing (650 ms), then a_lie while it lies on the card under B's fingers (the
 * picture of B coming down that the mask leaves), until B lands at 710 ms, B's own change
 * 8000 a frame from its stop on. The whole change as in race_case. Writes both touches. */
static void race_struck_case(double a_desc, double a_lie, int64_t t[2], int64_t err[2])
{
    fake f;
    fake_start(&f, 64, 150000);
    for (int64_t tt = 0; tt < 1300000; tt += DT) {
        double own[2] = {tt < 300000 ? 0 : tt < 500000 ? 60000 : tt < 650000 ? a_desc : tt < 710000 ? a_lie : 50,
                         tt < 300000 ? 0 : tt < 520000 ? 60000 : tt < 710000 ? 8000 : 50};
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 710000 ? 30000 : 50, 0.6);
    }
    race_touches(&f, t, err, NULL);
    if (getenv("KR_TEST_VERBOSE"))
        printf("race struck %.0f lie %.0f: A %lld +- %lld, B %lld +- %lld\n", a_desc, a_lie, (long long)t[0],
               (long long)err[0], (long long)t[1], (long long)err[1]);
    kr_event_destroy(f.ev);
}

/* A struck the card (its own change 30000 a frame coming down) and lay under B's fingers,
 * its own change 3500 a frame (under half of B's, over the quiet levels and the tenth of
 * B's that the leak rule takes; strike_a at 120 fps, B's press of card 15 +42 ms on 10.4):
 * a drop to under a quarter of its descent, a leak. The landing is put between the two
 * readings, the truth (650 ms) within two errors (before: 700 ms with 12 ms). A hand still
 * coming down (5000, more than half of B's) is not taken for leak: timed on its quiet run. */
static void test_race_struck_card_under_the_others_fingers(void)
{
    int64_t t[2], err[2];
    race_struck_case(30000, 3500, t, err);
    CU_ASSERT_TRUE(t[0] >= 0 && llabs(t[0] - 650000) <= 2 * err[0]);
    CU_ASSERT_TRUE(t[0] < 690000);
    CU_ASSERT_TRUE(llabs(t[1] - 710000) < 15000);
    race_struck_case(30000, 5000, t, err);
    CU_ASSERT_TRUE(t[0] >= 690000 && err[0] < 15000);
}

/* A race where the later hand's last mm of descent change its own picture by less than
 * the quiet level: A lies on the card from 650 ms, its own change a_lie a frame while B
 * comes down and 50 after, B comes down (8000 a frame) until 683 ms, then by b_last a frame
 * for two frames, and lies on it from 717 ms, its own change 50 a frame but b_blip on the
 * frame at 767 ms (0: none). Writes both touches. The mask leaves each circle whole (share
 * 1): the levels these cases were written with are the whole circle's, and the own change's
 * level follows the share (test_race_level_follows_the_share). */
static void race_slow_last_case(double b_last, double a_lie, double b_blip, int64_t t[2], int64_t err[2])
{
    fake f;
    fake_start(&f, 64, 150000);
    for (int64_t tt = 0; tt < 1300000; tt += DT) {
        double own[2] = {tt < 300000 ? 0 : tt < 500000 ? 60000 : tt < 650000 ? 6000 : tt < 717000 ? a_lie : 50,
                         tt < 300000 ? 0 : tt < 520000 ? 60000 : tt < 683000 ? 8000 : tt < 717000 ? b_last : 50};
        if (b_blip > 0 && llabs(tt - 767000) < DT / 2)
            own[1] = b_blip;
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 717000 ? 30000 : 50, 1.0);
    }
    race_touches(&f, t, err, NULL);
    if (getenv("KR_TEST_VERBOSE"))
        printf("race slow last %.0f beside %.0f, blip %.0f: A %lld +- %lld, B %lld +- %lld\n", b_last, a_lie, b_blip,
               (long long)t[0], (long long)err[0], (long long)t[1], (long long)err[1]);
    kr_event_destroy(f.ev);
}

/* B's last two frames change its own picture by 800 (under the quiet level of 1000, over
 * half of it) while A's own change beside it is 50: A lies still, nothing of it leaks into
 * B's circle, so that is B moving (its last mm, or its fingers settling after the contact):
 * B's landing is put between the end of its last frame over the quiet level and the end of
 * those two, the truth (717 ms) within its error (before: at the end of its last frame
 * over the quiet level, 42 ms early on an error of 12; race_20ms at 50 fps ruled for B
 * so). A change of 400, under half the quiet level, is quiet as before. */
static void test_race_last_mm_beside_a_still_hand(void)
{
    int64_t t[2], err[2];
    race_slow_last_case(800, 50, 0, t, err);
    CU_ASSERT_TRUE(t[1] > 690000 && llabs(t[1] - 717000) <= err[1]);
    CU_ASSERT_TRUE(llabs(t[0] - 650000) < 15000);
    race_slow_last_case(400, 50, 0, t, err);
    CU_ASSERT_TRUE(t[1] >= 0 && t[1] < 700000);
}

/* The same beside a hand whose fingers settle on the card: A's own change 400 a frame (under
 * half the quiet level: calm) while B's last two frames change its own by 900. What A's
 * change may leak into B's circle is at most half of it, far less than B's: B moved (the
 * main renders' race_20ms at 60 fps: B's 966 and 903 beside A's 321 and 441, read as quiet,
 * B's landing 45 ms early). Before, the other hand had to lie at a fifth of this one's
 * change: B was put midway from its last frame over the level, 700 ms +- 28. Beside a
 * hand still moving (A's 2000, over the quiet level) B's 900 may be that hand's leak, and
 * stays quiet. */
static void test_race_last_mm_beside_settling_fingers(void)
{
    int64_t t[2], err[2];
    race_slow_last_case(900, 400, 0, t, err);
    CU_ASSERT_TRUE(t[1] > 705000 && llabs(t[1] - 717000) <= err[1]);
    CU_ASSERT_TRUE(llabs(t[0] - 650000) < 15000);
    race_slow_last_case(900, 2000, 0, t, err);
    CU_ASSERT_TRUE(t[1] >= 0 && t[1] < 705000);
    /* a change over half the level after two calm frames of the hand lying on the card
     * (before the quiet run counts) is no descent going on: the landing stays at 717 ms
     * (bf0 both_fault at 120 fps: B's 291 after calm frames beside A's 207, taken for
     * motion, put B's press 50 ms later) */
    race_slow_last_case(8000, 50, 700, t, err);
    CU_ASSERT_TRUE(llabs(t[1] - 717000) < 15000 && err[1] < 20000);
}

/* Look 7115 race_5ms at 50 fps: both hands come down onto the card, A's own change 11340,
 * 6714, 5796 a frame from 540 ms, then 54, 111 and noise (its contact at 590 ms, in the
 * interval after the 5796), B's 9774, 1479, 1161, then 402, 330 and noise (its contact at
 * 595 ms, in the interval of the 402), the mask leaving half of A's circle and 0.46 of
 * B's. Summed over under half its circle, B's last 10 mm of descent (1479, 1161) are under
 * the whole circle's quiet level (1200 at 50 fps) and at most a quarter of A's change: read
 * as quiet, and as A's leak, B's landing was put at 543 ms +- 12, before A's: B's take,
 * not flagged. At the level of the share the mask leaves (own_level) they are B's own
 * descent: B's contact lies within twice its error, and B is not read ahead of A unless
 * the two are within twice their combined error (near-simultaneous: the judge asked). */
static void test_race_level_follows_the_share(void)
{
    static const double seq[2][5] = {{11340, 6714, 5796, 54, 111}, {9774, 1479, 1161, 402, 330}};
    const int64_t per = 20000;
    fake f;
    fake_start(&f, 64, 150000);
    race_share_a = 0.5;
    for (int64_t tt = 0; tt < 1300000; tt += per) {
        const int i = (int)((tt - 540000) / per);
        double own[2];
        for (int p = 0; p < 2; p++)
            own[p] = tt < 300000 ? 0 : tt < 540000 ? 60000 : i < 5 ? seq[p][i] : p ? 0 : 9;
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 640000 ? 20000 : 40, 0.46);
    }
    race_share_a = 0;
    int64_t t[2], err[2];
    race_read(&f, "race level at the share", t, err);
    CU_ASSERT_TRUE(t[0] >= 0 && llabs(t[0] - 590000) <= 2 * err[0]);
    CU_ASSERT_TRUE(t[1] >= 0 && llabs(t[1] - 595000) <= 2 * err[1]);
    const double e0 = (double)err[0], e1 = (double)err[1];
    CU_ASSERT_TRUE(t[1] >= t[0] || (double)(t[0] - t[1]) <= 2 * sqrt(e0 * e0 + e1 * e1));
}

/* A race at 60 fps whose last frames are given: from 533 ms (the frame after both hands
 * stopped) each hand's own change own_seq[p][i] and the change around its whole circle
 * whole_seq[p][i] (tip_change), for seven frames, then noise; the mask leaves A share_a of
 * its circle and B share_b. Writes each player's touch time and error (race_read). */
static void race_whole_case(const double own_seq[2][7], const double whole_seq[2][7], double share_a, double share_b,
                            const char *what, int64_t t[2], int64_t err[2])
{
    const int64_t per = 16667, from = 32 * per;
    fake f;
    fake_start(&f, 64, 150000);
    race_share_a = share_a;
    for (int64_t tt = 0; tt < 1300000; tt += per) {
        const int i = (int)((tt - from) / per);
        double own[2], whole[2];
        for (int p = 0; p < 2; p++) {
            own[p] = tt < 300000 ? 0 : tt < from ? 60000 : i < 7 ? own_seq[p][i] : p ? 0 : 9;
            whole[p] = tt < 300000 ? 0 : tt < from ? 40000 : i < 7 ? whole_seq[p][i] : 30;
        }
        race_whole = whole;
        race_frame(&f, tt, own, 0, share_b);
    }
    race_whole = NULL;
    race_share_a = 0;
    race_read(&f, what, t, err);
}

/* Look 7125 race_20ms at 60 fps, a diffuse light (the hands cast almost no shadow): both
 * hands come down onto the card at once, each under the other's mask (share 0.55 for A,
 * 0.48 for B). A's last 20 mm change its own picture by 1047, 1317, 606, 558 (its contact
 * at the end of the 558's interval, 600 ms here), B's by 213, 951, 1104, 801 (its contact
 * 3 ms into the interval after the 801, 620 ms), then both by noise. The change around B's
 * whole circle is 909, 990, 774 on those frames: under the whole circle's quiet level (1000
 * per 1/60 s), but over the level of B's share of it, which B's own change is read
 * against. Taken as still (with A still moving beside it, own_goes_on cannot say), B's
 * landing was put at 580 ms +- 46, 40 ms early (in the look, 43 ms before its contact and
 * before A's: B's take, flagged near-simultaneous). Read against the share's level, B's
 * descent is seen to its end: the landing is anywhere from the one reading to the other,
 * 600 ms +- 23, the truth within its error.
 * Look 7121 race_5ms at 60 fps, an exposure of a whole period: A's contact at 600 ms, B's
 * at 605, both inside the exposure of the frame at 600, which holds their last motion; the
 * frame after it changes from it, 522 and 849 of their own, 705 and 636 around their whole
 * circles (shares of about 0.5: a level of 500), though both hands lay still all through
 * its exposure. Read against the share's level alone, both landings came after that frame
 * (in the look A +12 ms on 17, B +18 on 12); between the two readings both contacts lie
 * within their errors. */
static void test_race_whole_level_follows_the_share(void)
{
    static const double own_dim[2][7] = {{2829, 1047, 1317, 606, 558, 102, 24}, {25155, 2148, 213, 951, 1104, 801, 18}};
    static const double whole_dim[2][7] = {{18396, 2760, 1524, 1263, 1149, 915, 42},
                                           {21162, 2397, 321, 909, 990, 774, 18}};
    int64_t t[2], err[2];
    race_whole_case(own_dim, whole_dim, 0.55, 0.48, "race whole level at the share, dim", t, err);
    CU_ASSERT_TRUE(t[0] >= 0 && llabs(t[0] - 600000) <= 2 * err[0]);
    CU_ASSERT_TRUE(t[1] >= 0 && llabs(t[1] - 620000) <= err[1] && llabs(t[1] - 620000) <= 25000);
    static const double own_full[2][7] = {{10902, 12654, 3813, 3276, 465, 522, 0}, {12489, 10254, 1029, 798, 990, 849, 0}};
    static const double whole_full[2][7] = {{21312, 7059, 5253, 4416, 1542, 705, 0},
                                            {14514, 4584, 3927, 3855, 1302, 636, 0}};
    race_whole_case(own_full, whole_full, 0.5, 0.48, "race whole level at the share, full exposure", t, err);
    CU_ASSERT_TRUE(t[0] >= 0 && llabs(t[0] - 600000) <= err[0]);
    CU_ASSERT_TRUE(t[1] >= 0 && llabs(t[1] - 605000) <= err[1]);
}

/* A race read frame by frame at period per: both hands come to their stops (A at 500 ms,
 * B at 520 ms) with an own change of 60000 and a whole change of 20000; from `from` on
 * (race_own_seq: 533 ms), frame i has own change own[i] (both hands alike) and whole
 * change whole[i]; noise (40) after the n given. The mask leaves each circle whole (share
 * 1), as race_slow_last_case. Writes A's touch time and error (t -1: none). */
static void race_own_seq_from(int64_t per, int64_t from, const double *own, const double *whole, int n, int64_t *t,
                              int64_t *err)
{
    fake f;
    fake_start(&f, 64, 150000);
    for (int64_t tt = 0; tt < 1300000; tt += per) {
        int i = tt < from ? -1 : (int)((tt - from) / per);
        double o = tt < 300000 ? 0 : i < 0 ? 60000 : i < n ? own[i] : 40;
        double w = tt < 300000 ? 0 : i < 0 ? 20000 : i < n ? whole[i] : 40;
        const double ow[2] = {o, o};
        race_frame(&f, tt, ow, w, 1.0);
    }
    *t = -1;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 64 && f.obs[i].rec.player == KR_SIDE_A) {
            *t = f.obs[i].rec.t_us;
            *err = f.obs[i].rec.t_err_us;
        }
    if (getenv("KR_TEST_VERBOSE"))
        printf("race own seq at %lld us: A %lld +- %lld\n", (long long)per, (long long)*t, (long long)*err);
    kr_event_destroy(f.ev);
}

static void race_own_seq(int64_t per, const double *own, const double *whole, int n, int64_t *t, int64_t *err)
{
    race_own_seq_from(per, 533000, own, whole, n, t, err);
}

/* At 30 fps a racing hand's own change after its large descent (80000 a frame) is 12000
 * over the interval that holds the contact (640 ms, in 633-667 ms), then 3600 (over the own
 * change's quiet level: the hand settling, or the picture catching up), then noise, while
 * the whole change around the tip is already quiet on that frame (880): what the whole
 * circle shows as the picture's noise is no motion of this hand, and the landing is read
 * at 646 ms +- 15, the truth within its error (read from the own change alone 685 ms +- 15,
 * beyond two errors: v3_bodies_1080_30 card 14 B with the light's change taken out, +37.5 ms
 * on 15.4; until the thirty-second session put between the two, 665 +- 25). With the whole
 * change not quiet there (5000) the 3600 is motion: read after it, 685 ms. A hand still
 * coming down whose own change falls small under the mask (1300 with its last 20 mm to go,
 * race_20ms at 60 fps B) while the whole change keeps moving (5000) keeps its own reading
 * (contact 605 ms: within 15 ms, error under a frame; counting the own change's shares as
 * still instead, tip_still's settle and residue rules, put it at 568 ms +- 41.5). */
static void test_race_own_quiet_where_the_whole_is_quiet(void)
{
    const double own[] = {80000, 80000, 80000, 80000, 12000, 3600};
    const double whole[] = {80000, 80000, 80000, 80000, 35000, 880};
    int64_t t, err;
    race_own_seq(33333, own, whole, 6, &t, &err);
    CU_ASSERT_TRUE(t >= 0 && llabs(t - 640000) <= err);
    CU_ASSERT_TRUE(err < 20000);
    const double whole_moving[] = {80000, 80000, 80000, 80000, 35000, 5000};
    int64_t t_moving, err_moving;
    race_own_seq(33333, own, whole_moving, 6, &t_moving, &err_moving);
    CU_ASSERT_TRUE(t_moving > 670000 && t_moving < 700000);
    const double own2[] = {13000, 1300, 1300, 950, 1080};
    const double whole2[] = {5000, 5000, 5000, 5000, 5000};
    race_own_seq(DT, own2, whole2, 5, &t, &err);
    CU_ASSERT_TRUE(t >= 0 && llabs(t - 605000) < 15000);
    CU_ASSERT_TRUE(err < DT);
}

/* At 90 fps (the own change's quiet level 667 a frame) a racing hand's own change falls
 * from its descent (6000 a frame) to 1400 over the interval that holds the contact, then
 * 130, then 770 on one frame (a B-frame redrawing the still hand's blocks), then noise: a
 * lone change between two calm frames (under half the level), small against the descent,
 * is the picture catching up, and the landing is read in the 1400's interval (566.3 to
 * 577.4 ms) or just after it, not after the 770 (599.7 ms; look 7053 both_fault B, +33.6
 * ms on 10.8). Twice in a row, or over half the descent's change, it is motion, read
 * after it. */
static void test_race_lone_change_between_quiet_frames(void)
{
    const int64_t per = 11111;
    const double lone[] = {6000, 6000, 6000, 6000, 1400, 130, 770};
    int64_t t, err;
    race_own_seq(per, lone, lone, 7, &t, &err);
    CU_ASSERT_TRUE(t > 577444 - per && t <= 577444 + 10000);
    CU_ASSERT_TRUE(err < per);
    const double twice[] = {6000, 6000, 6000, 6000, 1400, 130, 770, 770};
    race_own_seq(per, twice, twice, 8, &t, &err);
    CU_ASSERT_TRUE(t >= 610777);
    const double large[] = {6000, 6000, 6000, 6000, 1400, 130, 3500};
    race_own_seq(per, large, large, 7, &t, &err);
    CU_ASSERT_TRUE(t >= 599666);
}

/* At 100 fps (the own change's quiet level 600 a frame) A's own change falls quiet as its
 * point comes to rest (500 ms), its descent before: read so, the hand came down as it
 * stopped. But the frames after are 474, 174, 132, 273, 477 before noise: over half the
 * level twice, the hand may still have been coming down under it (look 7055 race_5ms at
 * 100 fps, B: read at its stop, 55 ms early on 10.6, and the race given the wrong way
 * unflagged). The landing is anywhere up to the last such frame (540 ms), its error
 * spanning it; with the frames after the stop calm (under half the level), at the stop. */
static void test_race_quiet_from_the_stop_reaches_to_its_last_uncalm_frame(void)
{
    const int64_t per = 10000;
    const double uncalm[] = {474, 174, 132, 273, 477, 234, 54, 15};
    int64_t t, err;
    race_own_seq_from(per, 500000, uncalm, uncalm, 8, &t, &err);
    CU_ASSERT_TRUE(t > 505000 && t < 540000);
    CU_ASSERT_TRUE(t + err >= 540000);
    const double calm[] = {174, 174, 132, 273, 177, 234, 54, 15};
    int64_t t_calm, err_calm;
    race_own_seq_from(per, 500000, calm, calm, 8, &t_calm, &err_calm);
    CU_ASSERT_TRUE(t_calm >= 0 && t_calm <= 505000);
    CU_ASSERT_TRUE(err_calm < 15000);
}

/* At 60 fps A's point stops at 500 ms; its own change is the approach's (60000) to 517 ms,
 * then 879, 987, 789 (under the level of 1000, over half of it: the hand coming down under
 * a light from nearly straight above), 1473 over the interval that holds the contact (567
 * .. 583 ms), then 255, 9, 87 and noise. The last change seen is no later than the stop
 * fitted to the point, so the hand's descent after it was not seen: the landing may be as
 * late as the 1473, and its error spans it (look 7074 race_5ms, B: read 64 ms early on 17, the race
 * given the wrong way unflagged). Decided only once a calm run follows (not on the 789). */
/* race_own_seq of the n readings own and whole at period per: A's touch read with the
 * contact within its error, the error under max_err; *t the time read */
static void race_own_reads(int64_t per, const double *own, const double *whole, int n, int64_t contact,
                           int64_t max_err, int64_t *t)
{
    int64_t err = 0;
    race_own_seq(per, own, whole, n, t, &err);
    CU_ASSERT_TRUE(*t >= 0 && llabs(*t - contact) <= err);
    CU_ASSERT_TRUE(err < max_err);
}

static void test_race_descent_unseen_after_the_stop_spans_its_last_change(void)
{
    const double own[] = {879, 987, 789, 1473, 255, 9, 87};
    const double whole[] = {2400, 2400, 1300, 1300, 300, 40, 40};
    int64_t t;
    race_own_reads(DT, own, whole, 7, 575000, 50000, &t);
    CU_ASSERT_TRUE(t > 520000);
}

/* At 60 fps A's own change comes down 2142, 2136 (its last 20 mm), drops to 855 over its
 * last 3 mm to the contact at 567 ms, is 1146 while it lies on the card (the other hand
 * landing beside it), then noise. The 855 may be the descent's end and the 1146 its fingers
 * settling: the landing is anywhere from that frame on (look 7074 race_5ms, A: put after
 * the 1146, +24.7 ms on 11.7). After a steady slow descent (1300, 1300, 950, 1080) the 950
 * is no drop and the reading stays after the 1080 (test_race_own_quiet_where_the_whole_is_quiet). */
static void test_race_last_change_after_a_drop_may_be_settling(void)
{
    const double own[] = {2142, 2136, 855, 1146, 105, 0, 129};
    const double whole[] = {3000, 3000, 1700, 1700, 300, 40, 40};
    int64_t t;
    race_own_reads(DT, own, whole, 7, 567000, 25000, &t);
}

/* At 120 fps (the own change's quiet level 500 a frame) a racing hand strikes the card: its
 * own change 80000 a frame, 67000 over the interval that holds the contact (542 .. 550 ms),
 * then 978, 303, 558, 156 (its fingers settling, under 2 % of the strike's), then noise.
 * Read at the strike (varied8 v8_strike_a_120 B card 25: put after the 558, +33 ms on 10.4).
 * A hand still coming down whose own change is a tenth of its approach's keeps its reading
 * (test_race_own_quiet_where_the_whole_is_quiet's 1300 after 13000). */
static void test_race_struck_card_then_settling(void)
{
    const double own[] = {80000, 80000, 67000, 978, 303, 558, 156};
    const double whole[] = {80000, 80000, 67000, 996, 312, 567, 165};
    int64_t t;
    race_own_reads(8333, own, whole, 7, 548000, 15000, &t);
    CU_ASSERT_TRUE(t < 558000);
}

/* Under lamps the tracker steadies, a hand's own change is counted beyond the share of the
 * light's step that the codec's redraw may leave (tip_change_own), and that can hide the
 * last millimetres of its descent: A's own change falls quiet from the first frame at or
 * after hidden_a, its lit change (tip_change_own_lit, the light's term counted) only at its
 * landing, 650 ms, and is lit_after a frame after it. B's alike in both. same: the lit
 * change as the own (no light step). A's touch lies between the own change's reading and
 * the lit one's; while the lit change has no quiet run yet, its error spans to the newest
 * frame: the truth within two errors (the own reading alone, 625 ms +- 11.7, puts it 25 ms
 * off, over two errors). Before (twenty-eighth session) such a race's confidence was
 * capped at 0.6 instead. */
static void race_lit_case(int64_t hidden_a, double lit_after, int same, int64_t t[2], int64_t err[2], double conf[2])
{
    fake f;
    fake_start(&f, 64, 150000);
    for (int64_t tt = 0; tt < 1300000; tt += DT) {
        double own[2], lit[2];
        for (int p = 0; p < 2; p++) {
            int64_t land = p ? 710000 : 650000, hidden = p ? 710000 : hidden_a;
            double pre = tt < 300000 ? 0 : tt < (p ? 520000 : 500000) ? 60000 : 6000;
            own[p] = tt < hidden ? pre : 50;
            lit[p] = tt < land ? pre : p ? 50 : lit_after;
        }
        race_lit = same ? own : lit;
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 710000 ? 30000 : 50, 0.6);
    }
    race_lit = NULL;
    race_touches(&f, t, err, conf);
    if (getenv("KR_TEST_VERBOSE"))
        printf("race lit (A hidden from %lld) after %.0f%s: A %lld +- %lld (%.2f), B %lld +- %lld (%.2f)\n",
               (long long)hidden_a, lit_after,
               same ? " (lit as own)" : "", (long long)t[0], (long long)err[0], conf[0], (long long)t[1],
               (long long)err[1], conf[1]);
    kr_event_destroy(f.ev);
}

static void test_race_under_steadied_light_spans_the_lit_reading(void)
{
    int64_t t0[2], e0[2], t[2], err[2];
    double conf[2];
    race_lit_case(617000, 50, 1, t0, e0, conf); /* the own change alone */
    CU_ASSERT_TRUE(t0[0] >= 0 && t0[0] < 640000 && 650000 - t0[0] > e0[0]);
    race_lit_case(617000, 50, 0, t, err, conf);
    CU_ASSERT_TRUE(t[0] == t0[0] && err[0] > 2 * e0[0]);
    CU_ASSERT_TRUE(llabs(t[0] - 650000) <= 2 * err[0]);
    CU_ASSERT_TRUE(conf[0] >= 0.9); /* an error that says it, no cap */
    CU_ASSERT_TRUE(t[1] == t0[1] && err[1] == e0[1]);
    /* decided (at 667 ms) before the lit change has been quiet for SETTLED_US: the error
     * spans to the newest frame, whether it falls quiet later or never (the redraw) */
    int64_t t2[2], e2[2];
    race_lit_case(617000, 3000, 0, t2, e2, conf);
    CU_ASSERT_TRUE(t2[0] == t[0] && e2[0] == err[0]);
}

/* ---- presses session 9 ---- */

/* A presses card 64, then its hand goes off beside the field (x = -520, its leading point
 * beside the side line: deep), and the tracker, losing it there, puts its leading point
 * for 250 ms on a still print with no shadow behind A's line (a jump of 650 mm in a
 * frame); then it is seen beside the field again and goes on to press its own card 5 on
 * the way back. The jump onto the print is no sighting: play is not over, and the press
 * of card 5 is a touch of this play (before: the hand was taken as back behind its line,
 * play settled 150 ms later and the press was tidying; fault_way_back at 120 fps with
 * contacts half a frame off: a fault missed). Returns the touches. */
static int print_from_beside_touches(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -330, 0},  {500000, -100, 60, 0},   {800000, -100, 60, 0},    /* press 64 */
        {1000000, -520, -24, 0},  {1200000, -520, -24, 0},                            /* beside */
        {1200001, 94, -277, 1},   {1450000, 94, -277, 1},                              /* a print */
        {1450001, -520, -210, 0}, {1600000, -520, -210, 0}, {1800000, -380, -51.5, 0}, /* back beside, on to 5 */
        {2100000, -380, -51.5, 0}, {2300000, -380, -330, 0}, {2400000, 1e9, 0, 0},
    };
    for (int64_t t = 0; t < 2800000; t += DT)
        fake_frame(&f, t, path, (int)(sizeof path / sizeof path[0]));
    int n = fake_touches(&f, 5);
    if (getenv("KR_TEST_VERBOSE"))
        printf("print from beside: touches of 64 %d, of 5 %d, settles %d\n", fake_touches(&f, 64), n,
               fake_count(&f, KR_REC_SETTLE));
    CU_ASSERT_EQUAL(fake_touches(&f, 64), 1);
    kr_event_destroy(f.ev);
    return n;
}

static void test_jump_onto_a_print_from_beside_is_no_sighting(void) { CU_ASSERT_EQUAL(print_from_beside_touches(), 1); }

/* A presses card 64 (-100, 51.5) from 0.5 s to 1.3 s. From 0.8 s the two hands' blobs
 * touch, and B's leading point comes down the field at 1.7 m/s and stops dead on card 6
 * (-100, 140) just past A's (the tracker's split of the merged blob putting it on A's arm,
 * which lies still over it), for 400 ms, the picture around it never quiet. No landing of
 * B's own is seen and its point never braked: no press of card 6 (before: a touch at
 * confidence 0.6; full_match at 60 fps, card 58 at 158.5 s: B's hand hovering past at
 * 45 mm). With A's hand only passing by, not in contact with a card, the same rest is B's
 * press. Returns B's touches of card 6. */
static int split_rest_touches(int a_pressing)
{
    flag_scene f;
    flag_start(&f, 150000);
    kr_track_card *c6 = &f.cards[1];
    c6->id = 6;
    c6->x_mm = c6->rest_x_mm = c6->whole_x_mm = -100;
    c6->y_mm = c6->rest_y_mm = c6->whole_y_mm = 140;
    for (int64_t t = 0; t < 2000000; t += DT) {
        int a_on = t >= 250000 && t < 1500000, b_on = t >= 650000 && t < 1500000;
        double ax = -100, ay = t < 500000 ? -300 + 351.5 * (t - 250000) / 250000.0 : 51.5;
        if (!a_pressing) { /* A's hand waits at its line, off every card */
            ax = 200;
            ay = -240;
        }
        double by = t < 850000 ? 480 - 1700 * (t - 650000) / 1e6 : 140;
        if (t >= 1300000) {
            ay = -300;
            by = 400;
        }
        f.fr.hand_contact = t >= 800000 && t < 1300000;
        flag_frame(&f, t, a_on, ax, ay, a_pressing && t >= 500000 && t < 1300000 ? 0.5 : 0, b_on, -100, by, 51.5, 0);
    }
    int n = 0;
    for (int i = 0; i < f.n_obs; i++)
        n += f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 6 && f.obs[i].rec.player == KR_SIDE_B;
    if (getenv("KR_TEST_VERBOSE"))
        for (int i = 0; i < f.n_obs; i++)
            if (f.obs[i].rec.type == KR_REC_TOUCH)
                printf("split rest (A pressing %d): touch of %d by %d at %lld conf %.2f\n", a_pressing,
                       f.obs[i].rec.card, (int)f.obs[i].rec.player, (long long)f.obs[i].rec.t_us,
                       f.obs[i].rec.confidence);
    CU_ASSERT_EQUAL(f.early, 0);
    kr_event_destroy(f.ev);
    return n;
}

static void test_rest_on_the_other_arm_is_no_press(void)
{
    CU_ASSERT_EQUAL(split_rest_touches(1), 0);
    CU_ASSERT_EQUAL(split_rest_touches(0), 1);
}

/* knock_case's sweep at 120 fps (card 78 touched, card 77 pushed by it): the KNOCK_ORDER
 * reason is given when a touch comes out with an adjacent card the same hand set moving
 * just before, unless that card was found knocked by then (push_out at 120 fps: 77 was
 * found knocked a frame after 78 was seen moving, and the reason stayed though 77 had no
 * touch). Both touched (the tip reached 77's edge first): still given. Returns the flags,
 * *t77 the touches of 77. */
static unsigned knock_flags(double knock_at, int *t77)
{
    static const kr_track_card_init lay[2] = {{78, KR_TRACK_A, 300, -51.5}, {77, KR_TRACK_A, 356, -51.5}};
    const int64_t dt = 8333;
    fake f;
    fake_start_with(&f, lay, 77, 150000);
    const key_pt path[] = {{250000, 200, -330, 0}, {500000, 200, -51.5, 0}, {600000, 500, -51.5, 0}, {650000, 1e9, 0, 0}};
    kr_track_card *c78 = &f.cards[0], *c77 = &f.cards[1];
    for (int64_t t = 0; t < 1500000; t += dt) {
        double lead = t < 500000 ? 200 : t < 600000 ? 200 + (t - 500000) * 0.003 : 500;
        if (lead > 274) {
            c78->occluded = 1;
            c78->visible = 0.2;
        }
        if (lead > 380) {
            c78->moving = c78->displaced = 1;
            c78->x_mm = lead - 4;
        }
        double x77 = lead > knock_at ? 356 + (lead - knock_at) : 356;
        if (x77 > 356 + 20) {
            c77->moving = c77->displaced = c77->found = c77->whole_ok = 1;
            c77->x_mm = c77->whole_x_mm = x77;
            c77->whole_y_mm = c77->y_mm;
            if (x77 > KR_TRACK_FIELD_HALF_W_MM + KR_TRACK_CARD_W_MM) {
                c77->out_of_field = c77->lost = 1;
                c77->found = c77->whole_ok = 0;
            }
        }
        if (c78->x_mm > KR_TRACK_FIELD_HALF_W_MM + KR_TRACK_CARD_W_MM)
            c78->out_of_field = c78->lost = 1;
        fake_frame(&f, t, path, (int)(sizeof path / sizeof path[0]));
    }
    *t77 = fake_touches(&f, 77);
    CU_ASSERT_EQUAL(fake_touches(&f, 78), 1);
    unsigned fl = kr_event_reading_flags(f.ev, 1);
    kr_event_destroy(f.ev);
    return fl;
}

static void test_knock_order_waits_for_the_knock(void)
{
    int t77 = -1;
    CU_ASSERT_EQUAL(knock_flags(308, &t77) & KR_EVENT_FLAG_KNOCK_ORDER, 0);
    CU_ASSERT_EQUAL(t77, 0);
    CU_ASSERT_NOT_EQUAL(knock_flags(332, &t77) & KR_EVENT_FLAG_KNOCK_ORDER, 0);
    CU_ASSERT_EQUAL(t77, 1);
}

/* ---- timing session 9 ---- */

/* Median of n values, sorted in place. */
static double median_of(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One press fed to the detector alone at 60 fps: A's hand comes over card 64 and stops
 * (as in slow_approach_waits_for_the_landing), then the picture around its tip changes by
 * chg[0..3] on the four frames up to the last changing one (frame 48, at 800 ms), by
 * after[0..3] on the four after, and by nothing from then on. Returns the touch minus the
 * contact, put f periods after frame 47 (us), *t_err its reported error (0: no touch).
 * landing_seq_case_dt: the same with frames every dt (us), nc changes up to the last
 * changing frame (the one nearest 800 ms, chg[0], newest first) and na after it; before
 * them the oldest, chg[nc - 1], not 50000: a flat 50000 for 200 ms after the hand's stop
 * reads as a descent that dropped to the given frames (landing_drop_then_rest). */
static double landing_key_case(const double *chg, int nc, const double *after, int na, double f, int64_t dt,
                               int key_back, int64_t *t_err);
static double landing_seq_case_dt(const double *chg, int nc, const double *after, int na, double f, int64_t dt,
                                  int64_t *t_err)
{
    return landing_key_case(chg, nc, after, na, f, dt, -1, t_err);
}

/* One press of card 64 whose hand moves in along path (np keys) and whose tip change is chg
 * (newest first, nc frames up to the last changing one, frame kl = 800 ms / dt), then after
 * (na frames), then quiet, with the frame key_back frames before the last changing one
 * intra-coded (a keyframe the detector is told of: kr_event_keyframe; -1 none); returns the
 * detected contact minus the one put f periods after frame kl - 1. */
static double landing_run(const key_pt *path, int np, const double *chg, int nc, const double *after, int na,
                          double f, int64_t dt, int key_back, int64_t *t_err)
{
    fake fk;
    fake_start(&fk, 64, 150000);
    const int kl = (int)((800000 + dt / 2) / dt);
    for (int k = 0; k * dt < 1700000; k++) {
        double e = k <= kl - nc ? chg[nc - 1] : k <= kl ? chg[kl - k] : k <= kl + na ? after[k - kl - 1] : 0;
        if (key_back >= 0 && k == kl - key_back)
            kr_event_keyframe(fk.ev, (int64_t)k * dt);
        fake_frame_chg(&fk, (int64_t)k * dt, path, np, e);
    }
    const int64_t contact = (int64_t)(kl - 1) * dt + (int64_t)(f * (double)dt);
    double err = 1e9;
    *t_err = 0;
    CU_ASSERT_EQUAL(fake_count(&fk, KR_REC_TOUCH), 1);
    for (int i = 0; i < fk.n_obs; i++)
        if (fk.obs[i].rec.type == KR_REC_TOUCH) {
            err = (double)(fk.obs[i].rec.t_us - contact);
            *t_err = fk.obs[i].rec.t_err_us;
        }
    kr_event_destroy(fk.ev);
    return err;
}

/* ... the hand slowing onto the card, at rest over it from 800 ms */
static double landing_key_case(const double *chg, int nc, const double *after, int na, double f, int64_t dt,
                               int key_back, int64_t *t_err)
{
    const key_pt path[] = {
        {250000, -100, -200, 0}, {500000, -100, 20, 0}, {600000, -100, 35, 0}, {700000, -100, 44, 0},
        {750000, -100, 48, 0},   {800000, -100, 49, 0}, {1300000, -100, 49, 0}, {1500000, -100, -330, 0},
        {1600000, 1e9, 0, 0},
    };
    return landing_run(path, 9, chg, nc, after, na, f, dt, key_back, t_err);
}

static double landing_seq_case(const double chg[4], const double after[4], double f, int64_t *t_err)
{
    return landing_seq_case_dt(chg, 4, after, 4, f, DT, t_err);
}

/* 12 single presses of the 60 fps renders (out/eval and out/eval-phase50: both_fault, the
 * races, the presses timed elsewhere and match_b card 52 at phase 0.5, whose quiet run this
 * harness does not end the same way, left out) as the tracker saw them: the tip change on
 * the four frames up to the last changing one, newest first, on the four after it, and where
 * the contact was (periods after the frame before the last changing one). The contact came
 * 2.5-22 ms after the picture was last seen moving (median 11.5 ms at 60 fps, 11.1 at every
 * rate): with 8 ms for the last mm the presses came early, median error 5.5 ms (0.33 of a
 * period, signed -5.5), above issue 6's quarter of a period; now 2.5 ms (signed -2.5), each
 * within 2 t_err. */
static void test_landing_tail_of_the_renders(void)
{
    static const struct {
        double chg[4], after[4], f;
    } seq[] = {
        {{20280, 38304, 36039, 18210}, {3411, 3, 0, 0}, 1.5},        /* dead_fault, phase 0.5 */
        {{36738, 53280, 40998, 28119}, {669, 393, 39, 99}, 1.5},     /* dead_fault_two card 8 */
        {{34929, 51948, 36375, 25524}, {30, 21, 9, 60}, 1.5},        /* dead_fault_two card 9 */
        {{2694, 18270, 17187, 6306}, {1290, 0, 0, 9}, 1.5},          /* demo */
        {{27978, 37932, 33828, 19137}, {3636, 2445, 654, 369}, 1.9}, /* double */
        {{37668, 63735, 52458, 35460}, {1470, 117, 18, 36}, 1.5},    /* fault_way_back */
        {{14241, 34989, 44841, 36228}, {492, 531, 6, 27}, 0.96},     /* match_b card 81 */
        {{10443, 12876, 10338, 9447}, {255, 165, 0, 9}, 1.5},        /* reading_void */
        {{4467, 33798, 36945, 30033}, {2136, 0, 0, 0}, 1.0},         /* dead_fault, phase 0 */
        {{18012, 49050, 47619, 37110}, {0, 255, 18, 60}, 1.0},       /* dead_fault_two card 8 */
        {{19908, 33816, 38109, 25584}, {267, 693, 606, 198}, 1.4},   /* double */
        {{13572, 53922, 56520, 39813}, {1185, 567, 240, 270}, 1.0},  /* fault_way_back */
    };
    const int n = (int)(sizeof seq / sizeof seq[0]);
    double a[16], s[16];
    for (int i = 0; i < n; i++) {
        int64_t t_err;
        double e = landing_seq_case(seq[i].chg, seq[i].after, seq[i].f, &t_err);
        if (getenv("KR_TEST_VERBOSE"))
            printf("landing tail %d: error %.0f us, t_err %lld\n", i, e, (long long)t_err);
        CU_ASSERT_TRUE(fabs(e) <= 2.0 * (double)t_err);
        a[i] = fabs(e);
        s[i] = e;
    }
    double ma = median_of(a, n), ms = median_of(s, n);
    if (getenv("KR_TEST_VERBOSE"))
        printf("landing tail of the renders: median error %.0f us, signed %.0f\n", ma, ms);
    CU_ASSERT_TRUE(ma <= 0.25 * DT);
    CU_ASSERT_TRUE(fabs(ms) <= 0.25 * DT);
}


/* The tail after the picture stops changing belongs to a hand that slows as it lands: one
 * that stops over the card and lowers itself onto it (the renders: the last changing frame
 * 33 ms or more after the rest began, at 60 fps). A hand that strikes the card is stopped by it: its
 * motion is last seen where it lands (strike_a at 60 fps, land_speed 1.5 m/s, A's press of
 * card 79 came 12.7 ms late on 8.5 with the tail). The same change, the hand arriving at
 * 1 m/s and stopping dead on the landing frame: the contact where the motion was last seen;
 * come to rest 100 ms before: the tail (11 ms) after it. The share between the last full
 * frame's change and the one before tells them apart too (LANDING_BRAKE_*, 60 fps). */
static void test_press_striking_the_card_has_no_tail(void)
{
    const key_pt struck[] = {{250000, -100, -500, 0}, {800000, -100, 49, 0}, {1300000, -100, 49, 0},
                             {1500000, -100, -330, 0}, {1600000, 1e9, 0, 0}};
    const key_pt placed[] = {{250000, -100, -200, 0}, {600000, -100, 45, 0}, {700000, -100, 49, 0},
                             {1300000, -100, 49, 0}, {1500000, -100, -330, 0}, {1600000, 1e9, 0, 0}};
    const double chg[] = {12000, 30000, 30000, 30000}; /* the motion ends 0.4 of the way into the last */
    int64_t e_struck, e_placed;
    double d_struck = landing_run(struck, 5, chg, 4, NULL, 0, 0.4, DT, -1, &e_struck);
    double d_placed = landing_run(placed, 6, chg, 4, NULL, 0, 0.4, DT, -1, &e_placed);
    if (getenv("KR_TEST_VERBOSE"))
        printf("struck: %.0f us on %lld; placed: %.0f us on %lld (both from the motion last seen)\n", d_struck,
               (long long)e_struck, d_placed, (long long)e_placed);
    CU_ASSERT_TRUE(fabs(d_struck) <= 1500);
    CU_ASSERT_TRUE(d_placed >= 9000 && d_placed <= 12000);
    CU_ASSERT_TRUE(e_struck > 0 && e_struck == e_placed);
    /* its rest found as late, but the change slowing over the last full frames (24000 after
     * 30000: braking): lowered onto the card, the tail after all (twenty-third session; the
     * renders' placed presses whose rest was found late came 10-15 ms early at 60 fps) */
    const double braking[] = {12000, 24000, 30000, 34000};
    int64_t e_braked;
    double d_braked = landing_run(struck, 5, braking, 4, NULL, 0, 0.4, DT, -1, &e_braked);
    if (getenv("KR_TEST_VERBOSE"))
        printf("struck path, braking change: %.0f us on %lld\n", d_braked, (long long)e_braked);
    CU_ASSERT_TRUE(d_braked >= 9000 && d_braked <= 14000); /* (its share 0.5: the motion last seen 1.7 ms later) */
}

/* ---- session 11: a drop, then a rest of change ---- */

/* A press whose change drops to under half its descent's and stays there for frames before
 * the quiet run (open set v3_bodies_flicker_60 card 31, a pale sleeve: 11802, 13821, 12141,
 * then 5232, 4803, 2373 before going quiet; the contact lay 0.54 of a period after the
 * 12141 frame): timed from the rest's end it came 43.6 ms late on an error of 8.5 ms. Now
 * it is timed at the drop, as the same descent going straight to quiet is, within its
 * error, which grows to take in the rest's end; with no rest the error stays a third of a
 * period and the tail's spread (under 10 ms). */
static void test_landing_drop_then_rest(void)
{
    /* newest first, up to the last changing frame; then the frames after it */
    const double rest[] = {2373, 4803, 5232, 12141, 13821, 11802}, rest_after[] = {729, 474, 0, 0};
    const double plain[] = {5232, 12141, 13821, 11802}, plain_after[] = {474, 0, 0, 0};
    int64_t e_rest, e_plain;
    double d_rest = landing_seq_case_dt(rest, 6, rest_after, 4, -2 + 0.54, DT, &e_rest);
    double d_plain = landing_seq_case_dt(plain, 4, plain_after, 4, 0.54, DT, &e_plain);
    if (getenv("KR_TEST_VERBOSE"))
        printf("drop then rest: error %.0f us on t_err %lld; no rest: %.0f us on %lld\n", d_rest, (long long)e_rest,
               d_plain, (long long)e_plain);
    CU_ASSERT_TRUE(e_rest > 0 && fabs(d_rest) <= (double)e_rest);
    CU_ASSERT_TRUE(fabs(d_plain - d_rest) < 1000);     /* timed at the drop, as with no rest */
    CU_ASSERT_TRUE(e_rest > e_plain + DT / 2);         /* ... the rest's end within 2 t_err */
    CU_ASSERT_TRUE(e_plain > 0 && fabs(d_plain) <= 2.0 * (double)e_plain);
    CU_ASSERT_TRUE(e_plain < 10000);
}

/* A drop followed by a rest of two frames only (reading_void at 60 fps under look 7021,
 * card 14: 8112, 9537, then 1818 and 1683, then quiet; the contact at the end of the 1818
 * frame): too short for the rest rule above, timed from the rest's end it came 26.4 ms
 * late on an error of 8.5 ms. The rest cannot be told from the descent's last frames: the
 * landing is put midway between the drop's reading and the rest's end, the truth within
 * its error. A lone small frame after the drop (no rest) is read as before. */
static void test_landing_short_rest_after_a_drop(void)
{
    const double rest[] = {1683, 1818, 9537, 8112}, lone[] = {1818, 9537, 8112}, after[] = {18, 0, 0, 0};
    int64_t e_rest, e_lone;
    double d_rest = landing_seq_case_dt(rest, 4, after, 4, 0, DT, &e_rest);
    double d_lone = landing_seq_case_dt(lone, 3, after, 4, 1, DT, &e_lone);
    if (getenv("KR_TEST_VERBOSE"))
        printf("short rest after a drop: %.0f us on %lld; a lone frame: %.0f us on %lld\n", d_rest, (long long)e_rest,
               d_lone, (long long)e_lone);
    CU_ASSERT_TRUE(e_rest > 0 && fabs(d_rest) <= (double)e_rest);
    CU_ASSERT_TRUE(e_lone > 0 && e_lone < 10000 && fabs(d_lone) <= (double)e_lone);
}

/* A hand lying on the card for two quiet readings, then moving on it again (fingers shifting
 * as it lifts): at 40 fps those readings cover 50 ms of footage, a settled hand, and the
 * landing is read at the descent's end (look 7067 fault_way_back: until the fortieth session
 * the run was measured from its first reading to its last, 25 ms, no landing was read and
 * the press was modelled). At 60 fps two quiet readings cover 33 ms, too short: the same
 * sequence is not read as landed there, three are (the count the 60 fps renders were
 * measured with, kept). */
static void test_quiet_run_is_the_footage_it_covers(void)
{
    const double descent[] = {5232, 12141, 13821, 11802}, after[] = {300, 200, 9000, 9000, 9000, 9000};
    const double after3[] = {300, 200, 100, 9000, 9000, 9000};
    int64_t e40, e60, e60_3;
    double d40 = landing_seq_case_dt(descent, 4, after, 6, 0.5, 25000, &e40);
    double d60 = landing_seq_case_dt(descent, 4, after, 6, 0.5, DT, &e60);
    double d60_3 = landing_seq_case_dt(descent, 4, after3, 6, 0.5, DT, &e60_3);
    if (getenv("KR_TEST_VERBOSE"))
        printf("two quiet readings, then change: 40 fps %.0f us on %lld; 60 fps %.0f us on %lld; three at 60 fps "
               "%.0f us on %lld\n",
               d40, (long long)e40, d60, (long long)e60, d60_3, (long long)e60_3);
    CU_ASSERT_TRUE(e40 > 0 && e40 < 25000 && fabs(d40) <= 2.0 * (double)e40);
    CU_ASSERT_TRUE(e60_3 > 0 && e60_3 < DT && fabs(d60_3) <= 2.0 * (double)e60_3);
    CU_ASSERT_TRUE(e60 > 2 * DT); /* not read as landed */
}

/* At 100 fps under a light from nearly straight above a hand stops over the card after a
 * fast approach (24756 a frame) and comes down its last 30 mm in 80 ms, changing the
 * picture by a steady 1100-2000 a frame, under a tenth of the approach's, then lies still
 * (12, then nothing): that steady run is motion, not a hand settling, so the contact may
 * be as late as its end (look 7055 reading_void at 100 fps; read as settled from the
 * approach's end, -84 ms on 7). Here, the approach braking into the card from its stop,
 * landing_drop times it at the drop and its error reaches to the run's end (before:
 * -73.5 ms on 7.0); in the render, its stop fitted later, at the run's end (+10 ms on 7).
 * A hand settling for two frames after its descent is still read at the descent's end. */
static void test_landing_after_a_slow_plateau(void)
{
    const double plateau[] = {1119, 1209, 1419, 1572, 1488, 1497, 1842, 2058, 9849, 18039, 19764, 24756};
    const double after[] = {12, 0, 0, 0};
    int64_t e_slow;
    double d_slow = landing_seq_case_dt(plateau, 12, after, 4, 1.0, 10000, &e_slow);
    const double descent[] = {9849, 18039, 19764, 24756}, settling[] = {2058, 1842, 12, 0};
    int64_t e_settle;
    double d_settle = landing_seq_case_dt(descent, 4, settling, 4, 1.0, 10000, &e_settle);
    if (getenv("KR_TEST_VERBOSE"))
        printf("slow plateau: %.0f us on %lld; two settling frames: %.0f us on %lld\n", d_slow, (long long)e_slow,
               d_settle, (long long)e_settle);
    CU_ASSERT_TRUE(e_slow > 0 && fabs(d_slow) <= 2.0 * (double)e_slow);
    CU_ASSERT_TRUE(e_settle > 0 && fabs(d_settle) <= 2.0 * (double)e_settle);
}

/* A hand that hovers over the card, drifting in slowly (a rest: its leading point under
 * rest_speed_mm_s for 250 ms), then comes down fast, its leading point sliding 25 mm as it
 * does (seen from above, a hand coming down moves it), and lies still: the picture around
 * the tip changes until the contact (dead_fault_two at 60 fps, A's press of card 9: the
 * rest ended 83 ms before the contact and the modelled descent was put on it, -58 ms on
 * 38). The rest that ends while the point is still over the card, no landing seen, is not
 * decided then: the rest that follows reads the landing (before: 125.5 ms early on
 * 135.3). A hand that never comes to rest there again keeps the decision made as the rest
 * ended. */
static void test_press_rest_ended_by_the_descent(void)
{
    const key_pt path[] = {{250000, -100, -200, 0}, {400000, -100, 0, 0},   {460000, -100, 20, 0},
                           {500000, -100, 25, 0},   {730000, -100, 40, 0},  {790000, -100, 65, 0},
                           {1300000, -100, 65, 0},  {1500000, -100, -330, 0}, {1600000, 1e9, 0, 0}};
    const double chg[] = {20000, 30000}, after[] = {0, 0};
    int64_t e_down;
    double d_down = landing_run(path, 9, chg, 2, after, 2, 0.6, DT, -1, &e_down);
    if (getenv("KR_TEST_VERBOSE"))
        printf("rest ended by the descent: %.0f us on %lld\n", d_down, (long long)e_down);
    CU_ASSERT_TRUE(e_down > 0 && fabs(d_down) <= (double)e_down);
    CU_ASSERT_TRUE(e_down < DT);
    /* ... going on off the card instead, further into B's territory (a press is still
     * given: the rest lasted the hold; landing_run counts one touch), on the modelled
     * descent as before */
    const key_pt on[] = {{250000, -100, -200, 0}, {400000, -100, 0, 0},   {460000, -100, 20, 0},
                         {500000, -100, 25, 0},   {730000, -100, 40, 0},  {790000, -100, 65, 0},
                         {900000, -100, 200, 0},  {1000000, 1e9, 0, 0}};
    int64_t e_on;
    double d_on = landing_run(on, 8, chg, 2, after, 2, 0.6, DT, -1, &e_on);
    if (getenv("KR_TEST_VERBOSE"))
        printf("rest ended, the hand gone on: %.0f us on %lld\n", d_on, (long long)e_on);
    CU_ASSERT_TRUE(e_on > 2 * DT);
}

/* The same hand's point sliding twice as it comes down (a sensor's noise of 6 grey levels
 * at 120 fps, dead_fault_two's A over card 9): a hover rest ended by a slide, a second
 * rest, the hand still coming down (the picture around the tip changing all through),
 * ended by another slide, then the hand lies still on the card. Each rest that ends with
 * no landing seen is held in turn, and the third reads the landing (before: the second
 * was given out at once, weak, under the confidence kept, and the fault was lost). */
static void test_press_two_rests_ended_by_the_descent(void)
{
    const key_pt path[] = {{250000, -100, -200, 0}, {400000, -100, 0, 0},    {460000, -100, 20, 0},
                           {500000, -100, 25, 0},   {730000, -100, 40, 0},   {770000, -100, 55, 0},
                           {900000, -100, 58, 0},   {930000, -100, 70, 0},   {1400000, -100, 70, 0},
                           {1500000, -100, -330, 0}, {1600000, 1e9, 0, 0}};
    const int64_t contact = 950000;
    fake fk;
    fake_start(&fk, 64, 150000);
    for (int64_t t = 0; t < 1700000; t += DT) {
        /* the share of the interval ending at t the hand still came down in */
        const double moving = t <= contact ? 1 : t - DT >= contact ? 0 : (double)(contact - (t - DT)) / DT;
        fake_frame_chg(&fk, t, path, 11, t < 400000 ? 0 : 30000 * moving);
    }
    CU_ASSERT_EQUAL(fake_count(&fk, KR_REC_TOUCH), 1);
    for (int i = 0; i < fk.n_obs; i++)
        if (fk.obs[i].rec.type == KR_REC_TOUCH) {
            const double d = (double)(fk.obs[i].rec.t_us - contact);
            if (getenv("KR_TEST_VERBOSE"))
                printf("two rests ended by the descent: %.0f us on %lld, confidence %.2f\n", d,
                       (long long)fk.obs[i].rec.t_err_us, fk.obs[i].rec.confidence);
            CU_ASSERT_TRUE(fabs(d) <= (double)fk.obs[i].rec.t_err_us && fk.obs[i].rec.t_err_us < DT);
            CU_ASSERT_TRUE(fk.obs[i].rec.confidence >= 0.9);
        }
    kr_event_destroy(fk.ev);
}

/* One pass of A's hand over card 64 at 30 fps: from behind A's line its leading point
 * jumps over the card (no braking approach), zigzags there for 170 ms as a hand turning
 * back does (the tracker's point at the hand's far edge), then goes home; the picture
 * around the tip changes by still (tip_change) on the zigzag's frames, moving elsewhere;
 * the two hands' blobs one from 300 ms to merged_to (-1: never). Returns the touches
 * reported, *conf (not NULL) the last one's confidence. */
static int turn_over_card_merged(double still, int64_t merged_to, double *conf)
{
    const int64_t dt = 33333;
    const key_pt path[] = {{250000, -100, -200, 0}, {400000, -100, -180, 0}, {433333, -100, -180, 0},
                           {466666, -100, 45, 0},   {500000, -95, 50, 0},    {533333, -103, 42, 0},
                           {566666, -96, 50, 0},    {600000, -102, 44, 0},   {633333, -97, 49, 0},
                           {666666, -100, -100, 0}, {700000, -100, -300, 0}, {733333, 1e9, 0, 0}};
    fake f;
    fake_start(&f, 64, 150000);
    for (int64_t t = 0; t < 1200000; t += dt) {
        f.fr.hand_contact = t >= 300000 && t <= merged_to;
        fake_frame_chg(&f, t, path, 12, t >= 500000 && t <= 633333 ? still : 60000);
    }
    int n = fake_count(&f, KR_REC_TOUCH);
    for (int i = 0; conf && i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH)
            *conf = f.obs[i].rec.confidence;
    kr_event_destroy(f.ev);
    return n;
}

static int turn_over_card(double still) { return turn_over_card_merged(still, -1, NULL); }

/* A hand turning back high over a card, under light from straight above (its shadow meets
 * its fingertip at any height): its leading point rested over the card for the hold, but
 * it never braked onto it and the picture around it never went still. Not a press
 * (before: a touch at confidence 0.92; look 7023, full_match at 30 fps, 146.5 s: A's hand
 * at 45 mm). With the picture still for the frames of that rest (a hand lying there, its
 * leading point put back on the fingertip by a jump) it is a press. */
static void test_hand_turning_over_a_card_is_no_press(void)
{
    CU_ASSERT_EQUAL(turn_over_card(60000), 0);
    CU_ASSERT_EQUAL(turn_over_card(200), 1);
}

/* A's hand drifting high over card 64 at 150 mm/s for 120 ms (under rest_speed_mm_s) on
 * its way across to the next column, its point braking into that drift (no jump: 1130,
 * 700, 300 mm/s before it); the change around the tip still (a hand lying there) or at
 * the level of motion all through (look 7064 dead_fault_two at 60 fps: A's hand at 60-70
 * mm over card 7 on its way to card 9, under a light from nearly straight above,
 * 60000-90000 a frame). Returns the touches of card 64, *conf the last one's confidence. */
static int drift_over_card(double chg, double *conf)
{
    const key_pt path[] = {{250000, -100, -200, 0}, {400000, -100, -30, 0}, {450000, -100, 5, 0},
                           {500000, -100, 20, 0},   {620000, -100, 38, 0},  {700000, 60, 38, 0},
                           {850000, 60, -300, 0},   {883333, 1e9, 0, 0}};
    fake f;
    fake_start(&f, 64, 150000);
    for (int64_t t = 0; t < 1400000; t += DT)
        fake_frame_chg(&f, t, path, 8, t >= 500000 && t <= 620000 ? chg : 60000);
    int n = 0;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 64) {
            n++;
            *conf = f.obs[i].rec.confidence;
        }
    if (getenv("KR_TEST_VERBOSE"))
        printf("drift over card 64, change %.0f: %d touches, conf %.2f\n", chg, n, *conf);
    kr_event_destroy(f.ev);
    return n;
}

/* Never seen still, such a rest is a weak press (0.6: a judge looks; before, 0.92, a fault
 * where there was none); still on its frames, a press as sure as any. */
static void test_drift_never_still_is_a_weak_press(void)
{
    double conf = 0;
    CU_ASSERT_EQUAL(drift_over_card(60000, &conf), 1);
    CU_ASSERT_DOUBLE_EQUAL(conf, 0.6, 1e-9);
    CU_ASSERT_EQUAL(drift_over_card(200, &conf), 1);
    CU_ASSERT_DOUBLE_EQUAL(conf, 0.92, 1e-9);
}

/* ... unless the two hands' blobs were one on the frame before that rest: its leading
 * point's jump onto the card is then the tracker's split of them, not a pass from behind
 * the line, and the other hand going off over this one keeps the picture changing (look
 * 7054 hand_contact_fault at 24 fps: A's fault press of card 45 lost, the ruling A's take
 * and not flagged). A press at confidence 0.6 (a judge looks); with the blobs apart a frame
 * earlier, none. */
static void test_jump_onto_a_card_as_the_blobs_part_is_a_weak_press(void)
{
    double conf = 0;
    CU_ASSERT_EQUAL(turn_over_card_merged(60000, 433333, &conf), 1);
    CU_ASSERT_DOUBLE_EQUAL(conf, 0.6, 1e-9);
    CU_ASSERT_EQUAL(turn_over_card_merged(60000, 400000, &conf), 0);
}

/* A keyframe right after a press's landing (race_5ms at 60 fps with jittered frame times:
 * one 19 ms after A's contact, and both racing presses were put on it, +27 and +22 ms): the
 * codec's redraw changes the picture around the still hand by thousands, so the keyframe
 * reads as the descent's last frame, a period late. Told it was a keyframe, the detector
 * puts the landing midway between that reading and the frame before, the span in its
 * error: nearer the contact, and within its error. A keyframe inside the descent, or
 * none, changes nothing. */
static void test_landing_on_a_keyframe(void)
{
    /* the descent's last change on frame 47 (8000: the last mm, the contact 0.2 of a period
     * after frame 47); frame 48 the keyframe (a still hand, 24000: over half the descent's
     * largest, no drop and rest for landing_drop), then quiet */
    const double chg[] = {24000, 8000, 30000, 45000}, after[] = {0, 0, 0, 0};
    int64_t e_plain, e_key, e_mid;
    double d_plain = landing_key_case(chg, 4, after, 4, 0.2, DT, -1, &e_plain);
    double d_key = landing_key_case(chg, 4, after, 4, 0.2, DT, 0, &e_key);
    double d_mid = landing_key_case(chg, 4, after, 4, 0.2, DT, 2, &e_mid);
    if (getenv("KR_TEST_VERBOSE"))
        printf("landing on a keyframe: %.0f us on %lld, told %.0f on %lld, keyframe in the descent %.0f on %lld\n",
               d_plain, (long long)e_plain, d_key, (long long)e_key, d_mid, (long long)e_mid);
    CU_ASSERT_TRUE(d_plain > (double)e_plain);       /* late, beyond its error */
    CU_ASSERT_TRUE(fabs(d_key) < d_plain - DT / 3);  /* nearer ... */
    CU_ASSERT_TRUE(fabs(d_key) <= (double)e_key);    /* ... and within its error */
    CU_ASSERT_TRUE(e_key > e_plain);
    CU_ASSERT_EQUAL(d_mid, d_plain);
    CU_ASSERT_EQUAL(e_mid, e_plain);
}

/* ---- timing session 11 ---- */

/* Single presses of the 120 fps renders as the tracker saw them (tools/landing_trace.py):
 * the tip change from the frame after the contact back over the descent, newest first, the
 * frames after it, and the contact (periods after the descent's last frame). Once the hand
 * lies on the card the picture still catches up for a frame (the coder refining the blocks
 * it left, its shadow closing): 0.11 of the descent's largest change, above the settle
 * share (0.1), so the frame read as the descent's last and the landing was put on the
 * first quiet frame after it, a period and a half late (dead_fault_two card 8 at phase
 * 0.5: +12.5 ms on t_err 6.7; varied2 v2_diffuse_120 card 57, 0.13: +13.0). A lone change
 * followed by a quiet frame and at most TIP_RESIDUE_SHARE of the largest change before it
 * is the hand lying still: -0.2 and -3.7 ms. */
static void test_landing_residue_after_the_contact(void)
{
    static const struct {
        double chg[12], after[4], f;
    } seq[] = {
        {{3021, 2766, 17925, 15372, 26475, 24699, 19515, 17373, 7452, 5484, 4665, 14076}, {180, 18, 270, 6}, 0.5},
        {{1851, 1092, 8580, 8475, 14352, 13896, 13686, 12819, 5724, 4350, 7413, 18003}, {75, 0, 87, 0}, 0.44},
    };
    const int n = (int)(sizeof seq / sizeof seq[0]);
    for (int i = 0; i < n; i++) {
        int64_t t_err;
        double e = landing_seq_case_dt(seq[i].chg, 12, seq[i].after, 4, seq[i].f, 8333, &t_err);
        if (getenv("KR_TEST_VERBOSE"))
            printf("landing residue %d: error %.0f us, t_err %lld\n", i, e, (long long)t_err);
        CU_ASSERT_TRUE(fabs(e) <= 0.5 * 8333);
        CU_ASSERT_TRUE(fabs(e) <= (double)t_err);
    }
}

/* ---- session 47 ---- */

/* A descent slowing to the card at 24 fps, as the tracker saw it on a phone's render (look
 * 7100, frame times jittered, reading_void A card 14): 111018, 103689, 64317 a frame, then
 * 18426 over the last 11 mm, then 9519 over the interval of the contact (8.5 ms before its
 * end), then 180: quiet. The 9519 is under 0.15 of the 64317 two frames (84 ms) back, and so
 * was read as a residue (the picture catching up after the landing), the landing put after
 * the 18426, 52.8 ms early on 16.1. A residue is read against the changes within 50 ms alone
 * (here the 18426: the 9519 is half of it, the descent still slowing), and the drop to the
 * 18426 then the 9519 is no rest after a drop (landing_drop): a rest is two readings or more
 * after the drop's, so the landing is anywhere from the drop to the 9519's end (midway). */
static void test_landing_slowing_at_24_fps_is_no_residue(void)
{
    const double chg[6] = {9519, 18426, 64317, 103689, 111018, 98733}, after[4] = {180, 678, 30, 0};
    int64_t t_err;
    const double e = landing_seq_case_dt(chg, 6, after, 4, 0.8, 41667, &t_err);
    if (getenv("KR_TEST_VERBOSE"))
        printf("landing slowing at 24 fps: error %.0f us, t_err %lld\n", e, (long long)t_err);
    CU_ASSERT_TRUE(fabs(e) <= (double)t_err);
    CU_ASSERT_TRUE(e > -0.75 * 41667);
}

/* ---- session 14: a lone change between quiet frames ---- */

/* Single presses of the 60 fps renders under another look (tools/eval_events.sh --look-seed
 * 7001: a light from the side, +0.19 mm per mm of height across), as the tracker saw them:
 * the descent's last frames (newest first), then the contact frame, already quiet (the
 * last 3 mm), a lone change of a frame the picture took to catch up with the hand lying
 * still (0.27 and 0.24 of the descent's largest), and quiet. That frame read as the
 * descent's last, and the landing went on the quiet frame after it, 27.7 ms late on a t_err
 * of 8.5 (demo A card 5, reading_void A card 14). A lone change with a quiet frame on either
 * side, under TIP_LONE_SHARE of the largest before it, is the hand lying still. */
static void test_landing_lone_change_after_the_contact(void)
{
    static const struct {
        double chg[4], after[4];
    } seq[] = {
        {{4419, 3696, 3399, 6240}, {744, 1215, 84, 42}}, /* demo A card 5 */
        {{5355, 5463, 5067, 5829}, {858, 1293, 72, 0}},  /* reading_void A card 14 */
    };
    for (int i = 0; i < 2; i++) {
        int64_t t_err;
        double e = landing_seq_case_dt(seq[i].chg, 4, seq[i].after, 4, 2.0, DT, &t_err);
        if (getenv("KR_TEST_VERBOSE"))
            printf("landing lone change %d: error %.0f us, t_err %lld\n", i, e, (long long)t_err);
        CU_ASSERT_TRUE(fabs(e) <= (double)t_err);
        CU_ASSERT_TRUE(fabs(e) <= 0.5 * DT);
    }
}

/* ---- session 45: a short quiet run cut by a lone change ---- */

/* Look 7087 at 60 fps (a phone's footage: rolling shutter, no B-frames, frame times
 * jittered), dead_fault_two A card 8 as the tracker saw it: the descent's last frames,
 * 20892 over the last 3.6 mm to the contact at the end of that frame, then 390 and 177
 * lying on the card, one lone change of 1431 and quiet. The two quiet frames are too short
 * a run to count and the hand's stop was fitted after the descent's last frame, so the
 * drop (landing_drop) was not seen: the landing was read after the 1431, +61.3 ms on 8.4
 * (here, the hand sliding onto the card to 810 ms, its stop fitted at 838: +61.0 on 8.5).
 * The landing may be either side of the lone change: the truth within the error now. A
 * lone change as large as the descent's last frame is the descent (no span). */
static void test_landing_short_quiet_run_cut_by_a_lone_change(void)
{
    const key_pt path[] = {
        {250000, -100, -200, 0}, {600000, -100, -60, 0}, {700000, -100, 10, 0}, {760000, -100, 36, 0},
        {790000, -100, 45, 0},   {810000, -100, 49, 0}, {1300000, -100, 49, 0}, {1500000, -100, -330, 0},
        {1600000, 1e9, 0, 0},
    };
    const double chg[] = {20892, 32721, 42447, 36825};
    const double after[] = {390, 177, 1431, 138, 135, 243};
    int64_t t_err;
    double e = landing_run(path, 9, chg, 4, after, 6, 1.0, DT, -1, &t_err);
    if (getenv("KR_TEST_VERBOSE"))
        printf("landing cut run: error %.0f us, t_err %lld\n", e, (long long)t_err);
    CU_ASSERT_TRUE(fabs(e) <= 1.25 * (double)t_err); /* (+33.0 on 29.3: midway, the truth at the early end) */
    CU_ASSERT_TRUE(t_err < 40000);
    /* the same with the change after the run as large as the descent's: read after it */
    const double after2[] = {390, 177, 30000, 138, 135, 243};
    e = landing_run(path, 9, chg, 4, after2, 6, 4.0, DT, -1, &t_err);
    if (getenv("KR_TEST_VERBOSE"))
        printf("landing cut run, large change: error %.0f us, t_err %lld\n", e, (long long)t_err);
    CU_ASSERT_TRUE(e >= 0 && e <= 2.0 * (double)t_err); /* (the 11 ms tail after the motion last seen) */
    CU_ASSERT_TRUE(t_err < 15000);
}

/* ---- session 42: a slow descent under the quiet level, then a deeper rest ---- */

/* At 120 fps (look 7078 reading_void, a light from nearly straight above) A's hand stops
 * over card 64 and comes down slowly: its change falls from the approach's (11277 over the
 * last fast frame) to 2196, 1737, then 654, 501, 849, 855, 693, 1005 (under the quiet level
 * of 1000, steady), then 90, 132, 126 and noise; the contact is on the frame after the 90.
 * Read from the first quiet run the touch came 83.7 ms early on an error of 6.7; the
 * landing is anywhere from there to the deeper rest, put midway, the truth (at the far
 * end) within twice its error. A
 * shallow run of two frames (the fingers settling, test_landing_lone_change_after_the_contact)
 * keeps its reading. */
static void test_landing_slow_descent_then_deeper_rest(void)
{
    const double chg[] = {11277, 11814, 17883, 19707};
    const double after[] = {2196, 1737, 654, 501, 849, 855, 693, 1005, 90, 132, 126, 246, 78};
    int64_t t_err;
    double e = landing_seq_case_dt(chg, 4, after, 13, 11.0, 8333, &t_err);
    if (getenv("KR_TEST_VERBOSE"))
        printf("landing slow descent: error %.0f us, t_err %lld\n", e, (long long)t_err);
    CU_ASSERT_TRUE(fabs(e) <= 2.0 * (double)t_err);
    CU_ASSERT_TRUE(e > -60000);
}

/* A racing hand at 120 fps (look 7078 race_60ms A): its own change 6000 as it stops, then
 * 648, 414, 381, 498, 480 (under the own change's quiet level of 500 but over 0.3 of it,
 * steady: the hand still coming down, its whole change large), then 123, 54 and noise,
 * the contact on the 123's frame (583 ms). Read from the first quiet run: 42 ms early on
 * 10.4; now the truth within the error, and later than before. */
static void test_race_slow_descent_then_deeper_rest(void)
{
    const double own[] = {6000, 648, 414, 381, 498, 480, 123, 54};
    const double whole[] = {18000, 18000, 15000, 9000, 7000, 1000, 700, 600};
    int64_t t;
    race_own_reads(8333, own, whole, 8, 583000, 30000, &t);
    CU_ASSERT_TRUE(t > 560000);
}

/* A's fingertip crosses card 64's near edge at te still in the air; the card is sent
 * sliding at contact (te + 5 ms) at 2 m/s and slows by its friction, 3.7 m/s^2 (as a card
 * on a mat does, 0.38 g). Frames every dt_us. Returns the touch's error (us), *t_err its
 * reported error. */
static double sweep_slide_case(int64_t te, int64_t dt_us, int64_t *t_err)
{
    run r;
    run_start(&r);
    const double v = 2000, vc = 2000, dec = 3700;
    const int64_t tc = te + 5000;
    for (int64_t t = 0; t < 900000; t += dt_us) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        if (t > 250000) {
            double y = 15 + v * (t - te) / 1e6;
            s.arm = 1;
            s.tx = -100;
            s.ty = y > 60 ? 60 : y;
            s.sx = 4;
            s.sy = -4;
        }
        if (t > tc) {
            double u = (t - tc) / 1e6;
            if (u > vc / dec)
                u = vc / dec;
            s.c64y = 51.5 + vc * u - 0.5 * dec * u * u;
        }
        run_frame(&r, t, &s);
    }
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    CU_ASSERT_PTR_NOT_NULL(o);
    double e = 1e9;
    *t_err = 0;
    if (o) {
        e = (double)(o->rec.t_us - tc);
        *t_err = o->rec.t_err_us;
        if (getenv("KR_TEST_VERBOSE"))
            printf("sliding sweep: dt %lld tc %lld err %.0f us t_err %lld\n", (long long)dt_us, (long long)tc, e,
                   (long long)o->rec.t_err_us);
    }
    run_end(&r);
    return e;
}

/* A card sent sliding slows by its friction over the frames that time it: a straight line
 * through them met d = 0 early (the renders' sweeps at 60 fps, phase 0.5: signed median
 * -4.6 ms). At 60 fps, six phases of the contact across a frame: the mean signed error
 * within a tenth of a period, each within 2 t_err. */
static void test_sliding_card_is_timed_with_its_friction(void)
{
    double sum = 0;
    for (int i = 0; i < 6; i++) {
        int64_t t_err;
        double e = sweep_slide_case(401000 + DT * i / 6, DT, &t_err);
        CU_ASSERT_TRUE(fabs(e) <= 2.0 * (double)t_err);
        sum += e;
    }
    if (getenv("KR_TEST_VERBOSE"))
        printf("sliding sweep: mean signed error %.0f us\n", sum / 6);
    CU_ASSERT_TRUE(fabs(sum / 6) <= 0.1 * DT);
}

/* ---- retreat session 10 ----------------------------------------------------------------- */

/* 60 fps: A's hand takes card 64 in B's territory (braking onto it, shadow meeting its tip),
 * then draws back at 1.2 m/s and its leading point, braking over 50 ms, rests over A's own
 * card 5 on its way home. how 0: the shadow met the tip on the way there and none is seen
 * near it at rest (the hand risen, its point left on the arm's print: v_mix_30 card 7 at
 * 30 fps); 1: no shadow anywhere, on the take either (diffuse light); 2: the shadow meets
 * the tip at rest too (a hand down on card 5 on its way back: a fault); 3: as 2, but the
 * hand goes on, its point left behind; 4: as 2, with the other hand by the point for a
 * while. Returns the number of touches; *conf the last one's confidence. */
static int retreat_touches(int how, double *conf)
{
    static const kr_track_card_init lay[2] = {{64, KR_TRACK_B, -100, 51.5}, {5, KR_TRACK_A, -100, -134.5}};
    fake f;
    fake_start_with(&f, lay, 64, 150000);
    const int lit = how != 1, down = how >= 2 ? 0 : 1;
    const key_pt path[] = {
        {250000, -100, -250, !lit}, {583000, -100, 15, !lit}, {600000, -100, 22, !lit}, {633000, -100, 40, !lit},
        {666000, -100, 48, !lit},   {700000, -100, 50, !lit}, {1000000, -100, 50, !lit}, {1100000, -100, -70, !lit},
        {1133000, -100, -110, !lit}, {1166000, -100, -125, !lit}, {1183000, -100, -128, down || !lit},
        {1500000, -100, -128, down || !lit}, {1600000, 1e9, 0, 0},
    };
    const int np = (int)(sizeof path / sizeof path[0]);
    for (int64_t t = 0; t < 1800000; t += DT) { /* the picture around the tip changes while the hand moves */
        /* case 3: the hand goes on from 1.2 s, its point left where it rested: the hand's
         * pixels near the point fall from 6000 to 400 mm^2 by 1.25 s */
        f.near = how < 2 ? 0 : how == 3 && t > 1200000 ? (t >= 1250000 ? 400 : 6000 - 5600 * (t - 1200000) / 50000.0) : 6000;
        /* case 4: the other hand by the point from 1.19 to 1.25 s, then gone: both hands'
         * pixels near it 13000 mm^2, this one's 6000 throughout */
        f.near_own = how == 4 ? 6000 : 0;
        if (how == 4 && t >= 1190000 && t < 1250000)
            f.near = 13000;
        fake_frame_chg(&f, t, path, np, (t > 250000 && t <= 700000) || (t > 1000000 && t <= 1183000) ? 3000 : 0);
    }
    int n = fake_count(&f, KR_REC_TOUCH);
    *conf = -1;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH)
            *conf = f.obs[i].rec.confidence;
    if (getenv("KR_TEST_VERBOSE"))
        printf("retreat, case %d: %d touches, last at %.2f\n", how, n, *conf);
    kr_event_destroy(f.ev);
    return n;
}

/* The rest on the way home with the shadow gone from the tip is no press (before: a touch
 * at 0.5, A's fault on its own card 5); with no shadow to be seen anywhere it stays one at
 * 0.5 (the light says nothing), and with the shadow meeting the tip it is a press (0.6:
 * drawing back, a judge looks), unless the hand went on and left the point where it
 * rested, its pixels near the point falling under half of the most (case 3: full_match
 * card 100 at 120 fps, a shadow met at the rest's start; before, a touch at 0.6). With the
 * other hand by the point for a while and gone, this hand's own pixels still there, it is
 * a press (case 4: hand_contact_fault at 30 fps under --look-seed 7002; before, no touch). */
static void test_retreat_pause_is_no_press(void)
{
    double conf;
    CU_ASSERT_EQUAL(retreat_touches(0, &conf), 1);
    CU_ASSERT_TRUE(conf >= 0.9); /* the take */
    CU_ASSERT_EQUAL(retreat_touches(1, &conf), 2);
    CU_ASSERT_DOUBLE_EQUAL(conf, 0.5, 1e-9);
    CU_ASSERT_EQUAL(retreat_touches(2, &conf), 2);
    CU_ASSERT_DOUBLE_EQUAL(conf, 0.6, 1e-9);
    CU_ASSERT_EQUAL(retreat_touches(3, &conf), 1);
    CU_ASSERT_TRUE(conf >= 0.9);
    CU_ASSERT_EQUAL(retreat_touches(4, &conf), 2);
    CU_ASSERT_DOUBLE_EQUAL(conf, 0.6, 1e-9);
}

/* ---- flags session 10 ---- */

/* A presses the read card 64 (-100, 51.5) from 0.5 s to 0.8 s, then goes home, slowing
 * over its own card 5 (-100, -51.5) by 1.0 s; the tracker keeps its leading point there
 * (no shadow beside it: what the arm passed over, the picture not caught up) for 200 ms
 * while the arm draws back out of view under it, its blob shrinking from 20000 to 6000
 * mm^2, then the hand is out of view. The arm drawing back is a hand going home: no press
 * of card 5 and no hand lost deep in the field (before: a touch of card 5 at confidence
 * 0.5, v_mix_30 card 7 at 13.6 s, a fault of A's; and HAND_UNSEEN, reading_void at 30 fps).
 * shrink 0: the blob keeps its area, a hand lying there in diffuse light: both as before.
 * shrink 2: as 1, the point hopping 14 mm on the last frame within the shrinking blob (what
 * is left of the arm breaking up: look 7107 both_fault at 30 fps, HAND_UNSEEN before).
 * Returns the touches of card 5; *flags the reading's flags. */
static int withdrawn_touches(int shrink, unsigned *flags)
{
    static const kr_track_card_init lay[2] = {{64, KR_TRACK_B, -100, 51.5}, {5, KR_TRACK_A, -100, -51.5}};
    fake f;
    fake_start_with(&f, lay, 64, 150000);
    /* diffuse light all the way home (no shadow from 64 on), so the two cases differ only in
     * the blob's area: a shadow that met the point on the way there and is gone at the rest
     * is a hand rising, no press whatever the area (retreat_touches) */
    static const key_pt path[] = {
        {250000, -100, -330, 0}, {500000, -100, 51.5, 0}, {800000, -100, 51.5, 1}, /* press 64 */
        {1000000, -100, -51.5, 1}, {1200000, -100, -51.5, 1},                       /* left on 5 */
        {1200001, 1e9, 0, 0},
    };
    /* shrink 2: the point hops 14 mm on the last frame (1.183 s) within what is left */
    static const key_pt hop[] = {
        {250000, -100, -330, 0}, {500000, -100, 51.5, 0}, {800000, -100, 51.5, 1},
        {1000000, -100, -51.5, 1}, {1170000, -100, -51.5, 1}, {1170001, -100, -37.5, 1}, {1200000, -100, -37.5, 1},
        {1200001, 1e9, 0, 0},
    };
    for (int64_t t = 0; t < 2400000; t += DT) {
        double area = 20000;
        if (shrink && t > 1000000)
            area = 20000 - 14000 * (double)(t - 1000000) / 200000.0;
        if (shrink == 2)
            fake_frame_area(&f, t, hop, (int)(sizeof hop / sizeof hop[0]), 0, area);
        else
            fake_frame_area(&f, t, path, (int)(sizeof path / sizeof path[0]), 0, area);
    }
    int n = fake_touches(&f, 5);
    *flags = kr_event_reading_flags(f.ev, 1);
    if (getenv("KR_TEST_VERBOSE"))
        printf("withdrawn (shrink %d): touches of 64 %d, of 5 %d, flags %x\n", shrink, fake_touches(&f, 64), n,
               *flags);
    CU_ASSERT_EQUAL(fake_touches(&f, 64), 1);
    kr_event_destroy(f.ev);
    return n;
}

static void test_arm_drawing_back_is_no_press_nor_lost(void)
{
    unsigned fl;
    CU_ASSERT_EQUAL(withdrawn_touches(1, &fl), 0);
    CU_ASSERT_FALSE(fl & KR_EVENT_FLAG_HAND_UNSEEN);
    CU_ASSERT_EQUAL(withdrawn_touches(2, &fl), 0);
    CU_ASSERT_FALSE(fl & KR_EVENT_FLAG_HAND_UNSEEN);
    CU_ASSERT_EQUAL(withdrawn_touches(0, &fl), 1);
    CU_ASSERT_TRUE(fl & KR_EVENT_FLAG_HAND_UNSEEN);
}

/* After play A takes hold of its card 5, carries it across and puts it down in B's lower
 * row, its leading point at rest rest_y, then goes home; the tracker never finds the card
 * at rest again (lost after it was carried). At 262 (8 mm past B's line: the fingertips
 * past the card's far edge, full_match at 30 fps with contacts half a frame off, card 83)
 * it is a send seen by the hand (before: the hand past the line was not in B's territory,
 * the card was taken as let go, no send and HANDLED). At 330, well past B's line, the hand
 * is not putting a card in the field: let go, HANDLED as before. spikes: on every fifth
 * frame of the rest the point jumps 45 mm to the card's corner for that frame alone (the
 * tracker's point flipping between two fingertips: v2_diffuse_120, card 29). found_t: the
 * tracker finds the card at rest at (found_x, found_y; -300, 217 in far_row_sends_found) from then on
 * (0: never). Returns the sends; *flags the reading's flags, *send the last send (t_us -1:
 * none), *rearranged (if not NULL) the rearrangements. */
static int far_row_sends_found_at(double rest_y, int spikes, int64_t found_t, double found_x, double found_y,
                                  unsigned *flags, kr_rules_record *send, int *rearranged)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -330, 0}, {500000, -100, 60, 0}, {900000, -100, 60, 0}, {1200000, -100, -330, 0}, /* press 64 */
        {1300000, 1e9, 0, 0},                                                                   /* gone */
        {1600000, -380, -330, 0}, {1900000, -380, -60, 0}, {2300000, -380, -60, 0},                   /* holds 5 */
        {2700000, -300, rest_y, 0}, {3200000, -300, rest_y, 0}, {3600000, -300, -330, 0}, {3700000, 1e9, 0, 0},
    };
    const int np = (int)(sizeof path / sizeof path[0]);
    for (int64_t t = 0; t < 5500000; t += DT) {
        kr_track_card *c = &f.cards[1];
        if (found_t > 0 && t >= found_t) { /* at rest where it was put down */
            c->displaced = c->moving = c->lost = 0;
            c->visible = 1;
            c->change = 0;
            c->x_mm = c->rest_x_mm = found_x;
            c->y_mm = c->rest_y_mm = found_y;
        } else if (t >= 2300000) { /* carried, then not found at rest */
            c->displaced = c->moving = 1;
            c->visible = 0.2;
            c->change = 1;
            c->lost = found_t <= 0 && t >= 3200000;
            if (found_t > 0) { /* followed: carried over, then still where it is put down (2.7 s) */
                double u = t >= 2700000 ? 1 : (double)(t - 2300000) / 400000.0;
                c->x_mm = -380 + (found_x + 380) * u + ((t / DT) % 3 - 1.0);
                c->y_mm = -60 + (found_y + 60) * u + ((t / DT) % 2);
            }
        }
        const key_pt jump[] = {{0, -280, rest_y - 40, 0}};
        if (spikes && t >= 2700000 && t < 3200000 && (t / DT) % 5 == 0)
            fake_frame(&f, t, jump, 1);
        else
            fake_frame(&f, t, path, np);
    }
    int sends = fake_count(&f, KR_REC_SEND);
    if (rearranged)
        *rearranged = fake_count(&f, KR_REC_REARRANGE);
    *flags = kr_event_reading_flags(f.ev, 1);
    if (send)
        *send = fake_last(&f, KR_REC_SEND, 5);
    if (getenv("KR_TEST_VERBOSE"))
        printf("far row (rest at %.0f, spikes %d, found %lld): sends %d, flags %x\n", rest_y, spikes,
               (long long)found_t, sends, *flags);
    kr_event_destroy(f.ev);
    return sends;
}

static int far_row_sends_found(double rest_y, int spikes, int64_t found_t, unsigned *flags, kr_rules_record *send)
{
    return far_row_sends_found_at(rest_y, spikes, found_t, -300, 217, flags, send, NULL);
}

static int far_row_sends(double rest_y, int spikes, unsigned *flags)
{
    return far_row_sends_found(rest_y, spikes, 0, flags, NULL);
}

static void test_send_to_the_far_row_reaches_past_the_line(void)
{
    unsigned fl;
    CU_ASSERT_EQUAL(far_row_sends(262, 0, &fl), 1);
    CU_ASSERT_FALSE(fl & KR_EVENT_FLAG_HANDLED);
    CU_ASSERT_EQUAL(far_row_sends(330, 0, &fl), 0);
    CU_ASSERT_TRUE(fl & KR_EVENT_FLAG_HANDLED);
}

/* The card is found lying in B's territory at 3.5 s, 0.8 s after A's hand came to rest there
 * with it (carried hidden, found once the hand had gone): one send, put down when the hand
 * came to rest (2.7 s), not when the card was found (before: at 3.5 s with an error of
 * 0.1 s; v8_strike_a at 60 fps, card 6, 0.6 s late). */
static void test_send_found_late_is_put_at_the_hands_rest(void)
{
    unsigned fl;
    kr_rules_record r;
    CU_ASSERT_EQUAL(far_row_sends_found(200, 0, 3500000, &fl, &r), 1);
    CU_ASSERT_EQUAL(r.player, KR_SIDE_A);
    CU_ASSERT_TRUE(llabs(r.t_us - 2700000) <= r.t_err_us && r.t_err_us <= 200000);
    CU_ASSERT_FALSE(fl & (KR_EVENT_FLAG_HANDLED | KR_EVENT_FLAG_SEND_BY_HAND));
}

/* Followed as it is carried over and put down at 2.7 s (its centre then within 2 mm), the
 * card is seen at rest at 3.5 s, once the hand (at rest past B's line: no send by the hand)
 * has gone: the send is put between the two, its error spanning them to a frame (before: at
 * 3.5 s with an error of 0.1 s; the renders' sends came 430-530 ms after the card was put
 * down). */
static void test_send_seen_at_rest_late_spans_its_putting_down(void)
{
    unsigned fl;
    kr_rules_record r;
    CU_ASSERT_EQUAL(far_row_sends_found(330, 0, 3500000, &fl, &r), 1);
    if (getenv("KR_TEST_VERBOSE"))
        printf("send seen at rest late: %lld +- %lld\n", (long long)r.t_us, (long long)r.t_err_us);
    CU_ASSERT_TRUE(llabs(r.t_us - 2700000) <= r.t_err_us + DT && r.t_us < 3500000 && r.t_err_us >= 300000);
}

/* A carries its card 5 within its own territory: put down in its lower row (y -217) it is a
 * rearrangement; put down beyond its line (y -330, where the taken cards go) it is none,
 * no card left the field's arrangement (before: one; full_match and match_b at 30 and 60
 * fps, each taken card put aside after play). */
static void test_card_put_beyond_the_line_is_no_rearrangement(void)
{
    unsigned fl;
    int re;
    CU_ASSERT_EQUAL(far_row_sends_found_at(-217, 0, 3500000, -300, -217, &fl, NULL, &re), 0);
    CU_ASSERT_EQUAL(re, 1);
    CU_ASSERT_EQUAL(far_row_sends_found_at(-300, 0, 3500000, -300, -330, &fl, NULL, &re), 0);
    CU_ASSERT_EQUAL(re, 0);
}

/* The card's track comes to rest on card 64's place (-100, 51.5): two cards cannot lie in
 * one place, one track follows the other's card (full_match at 120 fps: card 26 carried
 * off the field, its track left on card 62, a rearrangement that never was). No send nor
 * rearrangement is read from that track: the send is the one the hand's rest in B's
 * territory says, and the reading says it was inferred so (before: a send read from the
 * track, no doubt said). */
static void test_card_track_on_another_card_is_no_send(void)
{
    unsigned fl;
    int re;
    int sends = far_row_sends_found_at(200, 0, 3500000, -100, 51.5, &fl, NULL, &re);
    if (getenv("KR_TEST_VERBOSE"))
        printf("track on another card: sends %d, rearranged %d, flags %x\n", sends, re, fl);
    CU_ASSERT_EQUAL(sends, 1);
    CU_ASSERT_TRUE(fl & KR_EVENT_FLAG_SEND_BY_HAND);
    CU_ASSERT_EQUAL(re, 0);
}

/* A point that leaves the rest for single frames (a jump and straight back) has not
 * ended it: the send is seen (before: every jump began the rest anew, none lasted
 * press_hold_us, the send was missed and the card taken as let go). */
static void test_send_rest_survives_single_frame_jumps(void)
{
    unsigned fl;
    CU_ASSERT_EQUAL(far_row_sends(200, 1, &fl), 1);
    CU_ASSERT_FALSE(fl & KR_EVENT_FLAG_HANDLED);
}

/* The hand a touch names is the side A's arm came from on most frames, not on the touch's
 * own: A's arm (its base left of A's middle, left hand) lies at rest by A's left knee for
 * 0.6 s, leaves, and sweeps card 64 reaching across, its base now right of the middle
 * (v5_blur_side_120: left-handed B named right on every touch). Without the rest first
 * the touch's frames are all there is: right. rest_y: where the resting arm's tip lies
 * (0: no rest); at -340 only a speck of it is in view (under SIDE_AREA_MM2), which does
 * not count (v4_race_dim_flicker_60). */
static kr_rules_hand hand_after_rest(double rest_y)
{
    const int rest = rest_y != 0;
    run r;
    run_start_at(&r, 1100000);
    const int64_t tc = 1405000;
    for (int64_t t = 0; t < 1900000; t += DT) {
        shot s = {0, 0, 0, 0, 0, -100, 51.5, 0};
        double dtc = (t - tc) / 1e6;
        if (rest && t > 300000 && t < 900000) { /* (the first frames teach the tracker the bare mat) */
            s.arm = 1;
            s.base_dx = -190; /* base at x = -250 */
            s.tx = -300;
            s.ty = rest_y;
            s.sx = 4;
            s.sy = -4;
        } else if (t > tc - 150000) {
            double y = 15 + 2000 * dtc;
            s.arm = 1;
            s.base_dx = 180; /* base at x = +120 */
            s.tx = -100;
            s.ty = y > 60 ? 60 : y;
            s.sx = 4;
            s.sy = -4;
        }
        if (dtc > 0)
            s.c64y = 51.5 + 2500 * dtc;
        run_frame(&r, t, &s);
    }
    const kr_event_obs *o = first(&r, KR_REC_TOUCH);
    CU_ASSERT_PTR_NOT_NULL(o);
    kr_rules_hand hand = o ? o->rec.hand : KR_HAND_NONE;
    if (o)
        CU_ASSERT_EQUAL(o->rec.card, 64);
    run_end(&r);
    return hand;
}

static void test_hand_named_from_the_arm_seen_most(void)
{
    CU_ASSERT_EQUAL(hand_after_rest(-300), KR_HAND_LEFT);
    CU_ASSERT_EQUAL(hand_after_rest(0), KR_HAND_RIGHT);
    CU_ASSERT_EQUAL(hand_after_rest(-340), KR_HAND_RIGHT);
}

/* ---- session 33: races ---- */

/* The race of race_frame, A's own change falling to noise at a_quiet_t (its landing),
 * with what the caller set of race_share_a, race_wobble_a and race_merged_a (reset here).
 * B's landing is read at 710 ms. Without a cause (cause 0) A's press comes before B's;
 * with one, after it, but with an error reaching back to reach_t or earlier, so the two
 * touches are within their combined error. */
static int64_t race_checked(const char *what, int cause, int64_t a_quiet_t, int64_t reach_t)
{
    fake f;
    fake_start(&f, 64, 150000);
    for (int64_t tt = 0; tt < 1300000; tt += DT) {
        double own[2] = {tt < 300000 ? 0 : tt < 500000 ? 60000 : tt < a_quiet_t ? 6000 : 50,
                         tt < 300000 ? 0 : tt < 520000 ? 60000 : tt < 710000 ? 6000 : 50};
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 710000 ? 30000 : 50, 0.6);
    }
    race_share_a = 0;
    race_wobble_a = 0;
    race_merged_a = 0;
    race_wander_a = 0;
    race_flutter_a = 0;
    int64_t t[2], err[2];
    double conf[2];
    race_touches(&f, t, err, conf);
    if (getenv("KR_TEST_VERBOSE"))
        printf("race, %s %d: A %lld +- %lld (%.2f), B %lld +- %lld (%.2f)\n", what, cause, (long long)t[0],
               (long long)err[0], conf[0], (long long)t[1], (long long)err[1], conf[1]);
    CU_ASSERT_TRUE_FATAL(t[0] >= 0 && t[1] >= 0);
    CU_ASSERT_TRUE(llabs(t[1] - 710000) < 15000);
    if (cause) {
        CU_ASSERT_TRUE(t[0] > t[1]);
        CU_ASSERT_TRUE(t[0] - err[0] <= reach_t);
        CU_ASSERT_TRUE(t[0] - t[1] <= 2 * hypot((double)err[0], (double)err[1]));
    } else
        CU_ASSERT_TRUE(t[0] < t[1]);
    kr_event_destroy(f.ev);
    return t[0];
}

/* A race on card 64 whose two hands' blobs merge over it: A's point, over the card from
 * about 480 ms, is put 20 mm further in on every other 67 ms until 830 ms (the tracker's
 * split of the merged blob), so its rest starts only then, jumped into, and A's own change
 * says nothing (the mask leaves 0.1 of the circle): its press is the modelled descent
 * after that rest's start, after B's landing at 710 ms. The hand may have come down any
 * time since its point came over the card: the error reaches back to then, so the two
 * touches are within their combined error (look 7036 race_60ms at 60 fps: B's take, not
 * flagged, where A's contact was 55 ms before B's). Without the jumps, A's rest starts at
 * 500 ms and its press is put before B's. */
static void test_race_press_after_the_points_jumps_spans_its_stay(void)
{
    for (int wobble = 0; wobble < 2; wobble++) {
        race_share_a = 0.1;
        race_wobble_a = wobble ? 830000 : 0;
        race_checked("A's point jumping", wobble, 650000, 500000);
    }
}

/* The same jumps with A's own change seen (the mask leaves 0.6 of the circle): quiet from
 * A's landing at 650 ms, while its point still jumped about. The landing is read from when
 * the point came over the card: A's press at 650 ms, before B's (look 7062 race_60ms at 90
 * fps: A's point jumped 17 mm on card 48 at 2.100 s, 50 ms after its contact; modelled at
 * 2.250 +- 350 ms, after B's touch at 2.107: B's take, flagged; now 2.046 +- 11.8, A's). */
static void test_race_press_read_from_its_stay_over_the_card(void)
{
    race_wobble_a = 830000;
    int64_t ta = race_checked("A's point jumping, its own change seen", 0, 650000, 650000);
    CU_ASSERT_TRUE(llabs(ta - 650000) < 15000);
}

/* A's hand braking onto its stop (no jump into it), its point fluttering between two spots
 * 14 mm apart every 50 ms from 520 ms to 800 while the hand comes down and lies on the card
 * (no merge: the tracker's leading point switching between two fingers): its rest starts
 * only at 783 ms, after A's landing at 650 and B's at 710, and no descent is seen in it;
 * the press was modelled after the rest's stop, 830 +- 29 ms, after B's: B's take (look
 * 7092 race_5ms at 50 fps, lamps flickering at 120 Hz: A's point switching by 12-15 mm
 * until 2.160 s, its contact at 2.050, modelled at 2.179 +- 30 ms, B's take at 2.054 not
 * flagged). A race's press with no landing of its own read in its rest is read from when
 * its point came over the card, as after a jump (the test above). */
static void test_race_press_with_a_fluttering_point_read_from_its_stay(void)
{
    race_flutter_a = 800000;
    int64_t ta = race_checked("A's point fluttering, its own change seen", 0, 650000, 650000);
    CU_ASSERT_TRUE(llabs(ta - 650000) < 15000);
}

/* ---- session 35: races ---- */

/* A race on card 64 (A lies on it from 650 ms, B from 710) whose B's point stops over the
 * card only at 683 ms and is put 20 mm further in on the frame at 700 ms, its descent's
 * last (the tracker's split of the two hands' blobs): B's rest starts after it, its own
 * change quiet from then on. The landing is looked for a period before the rest's start,
 * not modelled after its stop (look 7043 race_20ms at 50 fps: B's point off for the frame
 * at 2.080 s, its rest from 2.100, its contact 2.070, put at 2.156 +- 30 ms: 86 ms late). */
static void test_race_press_quiet_before_its_rest_is_read_there(void)
{
    for (int jump = 0; jump < 2; jump++) {
        race_jump_b = jump ? 683334 : 0;
        int64_t t[2], err[2];
        double conf[2];
        race_case_cut(0, 0.6, 0, t, err, conf);
        if (getenv("KR_TEST_VERBOSE"))
            printf("race, B's point jumping %d: A %lld +- %lld, B %lld +- %lld\n", jump, (long long)t[0],
                   (long long)err[0], (long long)t[1], (long long)err[1]);
        CU_ASSERT_TRUE_FATAL(t[0] >= 0 && t[1] >= 0);
        CU_ASSERT_TRUE(llabs(t[1] - 710000) < 20000);
        CU_ASSERT_TRUE(llabs(t[1] - 710000) <= 2 * err[1]);
        CU_ASSERT_TRUE(t[0] < t[1]);
    }
    race_jump_b = 0;
}

/* ---- session 34: races ---- */

/* A race on card 64 whose two hands' blobs are one from 500 ms to 830 ms, the tracker's
 * split putting A's point 60 mm further in, off the card (on B's hand), until they part:
 * A's rest starts only then, jumped into, its hand already down (A lies on the card from
 * 650 ms, B from 710), and its own change, around a point on B's moving hand, is quiet
 * only from then: A's landing is read at its rest's start. A may have come down any time
 * while the blobs were one: the error reaches back through them, so the two touches are
 * within their combined error (look 7036 hand_contact_fault at 60 fps: A's press read at
 * its rest's start after the blobs parted, 59 ms late on a claimed 12.4). Without the
 * merge A's rest starts at 500 ms and its press is put before B's. */
static void test_race_press_after_the_blobs_parted_spans_the_merge(void)
{
    for (int merged = 0; merged < 2; merged++) {
        race_merged_a = merged ? 830000 : 0;
        race_checked("the blobs one", merged, merged ? 860000 : 650000, 650000);
    }
}

/* ---- session 36: races; session 38 ---- */

/* A race on card 64 whose two hands' blobs are one from 500 ms to 830 ms, the tracker's
 * split moving A's point round a circle of 20 mm at 400 mm/s (no jump): A's rest starts
 * only at 800 ms, its hand down since 650 ms (B from 710) and its own change quiet from
 * then, inside the merge. The landing is read through the merge: A's press at 650 ms,
 * before B's, as without the merge (sessions 36 and 37: not read, the press modelled after
 * the stop, after B's, its error reaching back through the merge; look 7048
 * hand_contact_fault at 60 fps: A's fault press, 2.070 s, read at 2.267 +- 333 ms after
 * B's hand slid out from under A's, now 2.072 +- 19). */
static void test_race_press_read_through_a_wandering_merge(void)
{
    for (int merged = 0; merged < 2; merged++) {
        race_wander_a = merged ? 830000 : 0;
        int64_t ta = race_checked("A's point wandering", 0, 650000, 650000);
        CU_ASSERT_TRUE(llabs(ta - 650000) < 15000);
    }
}

/* A lies on card 64 from 650 ms while the two hands' blobs are one (500 to 830 ms, A's
 * point wandering as above); B's hand goes on over it, never still, and back to its edge at
 * 900 ms, so the change around A's tip is quiet only from then. A's press, decided after B's
 * hand has gone, is read from A's own change through the merge: at 650 ms. Before, with the
 * other hand far at the decision, the change around the tip was read: B's going, 900 ms,
 * on an error of a frame (looks 7060 at 120 fps and 7061 at 25 fps hand_contact_fault:
 * A's fault press at 2.070 s read at 2.200 +- 6.7 ms and 2.370 +- 87). */
static void test_press_after_a_merge_is_read_from_its_own_change(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    race_wander_a = 830000;
    race_b_gone = 900000;
    for (int64_t tt = 0; tt < 1400000; tt += DT) {
        double own[2] = {tt < 300000 ? 0 : tt < 500000 ? 60000 : tt < 650000 ? 6000 : 50,
                         tt < 300000 ? 0 : tt < 900000 ? 6000 : 50};
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 900000 ? 30000 : 50, 0.6);
    }
    int64_t t[2], err[2];
    double conf[2];
    race_merge_end(&f, t, err, conf);
    if (getenv("KR_TEST_VERBOSE"))
        printf("press after a merge, B gone: A %lld +- %lld (%.2f), B %lld\n", (long long)t[0], (long long)err[0],
               conf[0], (long long)t[1]);
    CU_ASSERT_TRUE_FATAL(t[0] >= 0);
    CU_ASSERT_TRUE(llabs(t[0] - 650000) < 15000);
    CU_ASSERT_TRUE(llabs(t[0] - 650000) <= 2 * err[0]);
}

/* A lies on card 64 from 650 ms while the two hands' blobs are one (500 to 830 ms, A's
 * point 60 mm further in, on B's hand); after they part B's hand stays beside it, moving
 * (own change 20000 a frame at 120 fps, until 1000 ms), and A's own change reads 9, 378,
 * 705, 195, 117, 468, 84 (B's leak: at most half of B's), then noise. A landing read from
 * that in the rest, within SETTLED_US of its start, is no change of A's own: A's press is
 * read through the merge, at 650 ms
 * (look 7078 hand_contact_fault at 120 fps: A's fault press at 2.070 s read at 2.137 +-
 * 11.3 from B's leak after the blobs parted at 2.125, 67 ms late; look 7074's +68.7 on
 * 18.2). */
static void test_race_press_after_the_blobs_parted_beside_the_other_leaving(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    race_merged_a = 830000;
    race_b_gone = 1000000;
    static const double parted[] = {9, 378, 705, 195, 117, 468, 84}; /* from 833 ms, 120 fps */
    for (int64_t tt = 0; tt < 1400000; tt += 8333) {
        const int k = (int)((tt - 830000) / 8333);
        double a = tt < 300000 ? 0 : tt < 500000 ? 30000 : tt < 650000 ? 3000 : tt < 830000 ? 25 : 12;
        if (tt >= 830000 && k < 7)
            a = parted[k];
        double own[2] = {a, tt < 300000 ? 0 : tt < 1000000 ? 20000 : 25};
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 1000000 ? 30000 : 50, 0.6);
    }
    int64_t t[2], err[2];
    race_merge_end(&f, t, err, NULL);
    if (getenv("KR_TEST_VERBOSE"))
        printf("press after the blobs parted, B leaving: A %lld +- %lld\n", (long long)t[0], (long long)err[0]);
    CU_ASSERT_TRUE_FATAL(t[0] >= 0);
    CU_ASSERT_TRUE(llabs(t[0] - 650000) <= 2 * err[0]);
    CU_ASSERT_TRUE(t[0] < 800000);
}

/* The same race, the blobs one from 500 to 830 ms with A's point 60 mm further in (on B's
 * hand) until they part, but A's hand hovers over the card while they are one (its own
 * change quiet from its stop at 500 ms) and comes down after they part: a descent from 840
 * to 900 ms, then quiet. The rest's own reading sees that descent: A's press is read at its
 * end, after B's. Read through the merge instead, the quiet hover after the approach would
 * have put it at about 500 ms, before B's. */
static void test_race_hover_in_a_merge_is_not_a_landing(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    race_merged_a = 830000;
    for (int64_t tt = 0; tt < 1400000; tt += DT) {
        double own[2] = {tt < 300000   ? 0
                         : tt < 500000 ? 60000
                         : tt < 840000 ? 50
                         : tt < 900000 ? 6000
                                       : 50,
                         tt < 300000 ? 0 : tt < 520000 ? 60000 : tt < 710000 ? 6000 : 50};
        race_frame(&f, tt, own, tt < 300000 ? 0 : tt < 900000 ? 30000 : 50, 0.6);
    }
    race_merged_a = 0;
    int64_t t[2], err[2];
    double conf[2];
    race_touches(&f, t, err, conf);
    if (getenv("KR_TEST_VERBOSE"))
        printf("race, A hovering in the merge: A %lld +- %lld (%.2f), B %lld +- %lld (%.2f)\n", (long long)t[0],
               (long long)err[0], conf[0], (long long)t[1], (long long)err[1], conf[1]);
    CU_ASSERT_TRUE_FATAL(t[0] >= 0 && t[1] >= 0);
    CU_ASSERT_TRUE(llabs(t[1] - 710000) < 15000);
    CU_ASSERT_TRUE(t[0] > t[1]);
    CU_ASSERT_TRUE(llabs(t[0] - 900000) < 20000);
    kr_event_destroy(f.ev);
}

/* Runs f's hand along path until end_t and checks that card was touched once and play
 * settled once, after settled_after (what: for KR_TEST_VERBOSE). */
static void fake_play_checked(fake *f, const char *what, const key_pt *path, int np, int64_t end_t, int32_t card,
                              int64_t settled_after)
{
    for (int64_t t = 0; t < end_t; t += DT)
        fake_frame(f, t, path, np);
    int touches = 0, settles = 0;
    int64_t settle_t = -1;
    for (int i = 0; i < f->n_obs; i++) {
        touches += f->obs[i].rec.type == KR_REC_TOUCH && f->obs[i].rec.card == card;
        if (f->obs[i].rec.type == KR_REC_SETTLE) {
            settles++;
            settle_t = f->obs[i].rec.t_us;
        }
    }
    if (getenv("KR_TEST_VERBOSE"))
        printf("%s: touches of %d %d, settles %d at %lld\n", what, card, touches, settles, (long long)settle_t);
    CU_ASSERT_EQUAL(touches, 1);
    CU_ASSERT_EQUAL(settles, 1);
    CU_ASSERT_TRUE(settle_t > settled_after);
}

/* After pressing card 64 A's hand goes out past the view's left edge beside the field;
 * its leading point, only where the arm leaves the view (at_view_edge), slides down the
 * edge to behind A's line and stays there 200 ms; the hand is then out of view for 300 ms,
 * comes back in and presses A's own card 5 on its way home. Play was not over while the
 * hand was out of view: card 5's touch is in play and play settles after the hand went
 * home (before: the point behind A's line was taken for the hand back home, play settled
 * at 1.4 s and card 5's touch was not seen; fault_way_back at 120 fps under --look-seed
 * 7037). Nor was the hand lost from view inside the field: it left past the edge. */
static void test_hand_out_past_the_views_edge_is_not_back(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -330, 0},  {500000, -100, 60, 0},   {900000, -100, 60, 0},  /* press 64 */
        {1100000, -525, 60, 2},   {1400000, -525, -300, 2}, {1600000, 1e9, 0, 0}, /* out of view */
        {1900000, -525, -300, 2}, {2000000, -380, -51.5, 0}, {2400000, -380, -51.5, 0}, /* presses 5 */
        {2700000, -380, -330, 0}, {2800000, 1e9, 0, 0},
    };
    fake_play_checked(&f, "out past the view's edge", path, (int)(sizeof path / sizeof path[0]), 3600000, 5, 2400000);
    CU_ASSERT_EQUAL(kr_event_reading_flags(f.ev, 1) & KR_EVENT_FLAG_HAND_UNSEEN, 0);
    kr_event_destroy(f.ev);
}

/* ... but a hand whose point was at the view's edge inside the field (a camera that does
 * not see all of it) and is then gone may be touching cards there unseen: lost from view
 * inside the field, flagged. */
static void test_hand_gone_at_the_views_edge_in_the_field_is_lost(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -330, 0}, {500000, -100, 60, 0}, {900000, -100, 60, 0}, /* press 64 */
        {1000000, -300, -100, 2}, {1100000, 1e9, 0, 0}, {1600000, -300, -100, 0},   /* gone at an edge in the field */
        {1900000, -300, -330, 0}, {2000000, 1e9, 0, 0},
    };
    const int np = (int)(sizeof path / sizeof path[0]);
    for (int64_t t = 0; t < 2600000; t += DT)
        fake_frame(&f, t, path, np);
    CU_ASSERT_NOT_EQUAL(kr_event_reading_flags(f.ev, 1) & KR_EVENT_FLAG_HAND_UNSEEN, 0);
    kr_event_destroy(f.ev);
}

/* A presses card 81, the read card, in B's lower row (216.5 mm: within 90 mm of B's line)
 * and lies on it 600 ms before going home. Its hand is far from home there: play is not
 * over until it is back, and its touch is in play (before: a hand within 90 mm of either
 * line was taken for one back at its guard; play settled as A's hand came to rest on the
 * card, and the touch came after it; look 7038 match_b at 60 fps, A's fault on B's card 81
 * left out of the ruling). */
static void test_hand_on_the_other_players_lower_row_is_not_back(void)
{
    static const kr_track_card_init lay[2] = {{81, KR_TRACK_B, -350, 216.5}, {5, KR_TRACK_A, -380, -51.5}};
    fake f;
    fake_start_with(&f, lay, 81, 150000);
    const key_pt path[] = {
        {250000, -350, -330, 0}, {500000, -350, 216, 0}, {1100000, -350, 216, 0}, {1400000, -350, -330, 0},
        {1500000, 1e9, 0, 0},
    };
    fake_play_checked(&f, "on the other's lower row", path, (int)(sizeof path / sizeof path[0]), 2200000, 81, 1100000);
    kr_event_destroy(f.ev);
}

/* After pressing card 64 A's hand goes out past the view's left side; its leading point,
 * beside the field, jumps 400 mm onto what the arm left behind A's line (no shadow near it,
 * the picture there changing on that frame as the arm leaves it, then still) and stays
 * there 400 ms while the hand is out of view; the hand comes back in and presses A's own
 * card 5 on its way home. The jump is no sighting: play was not over, card 5's touch is in
 * play (before: the point behind A's line was taken for the hand back home at once, play
 * settled at 1.2 s; look 7044 fault_way_back at 30 fps). */
static void test_jump_from_beside_the_field_onto_a_print_is_not_back(void)
{
    fake f;
    fake_start(&f, 64, 150000);
    const key_pt path[] = {
        {250000, -100, -330, 0},   {500000, -100, 60, 0},    {900000, -100, 60, 0}, /* press 64 */
        {1100000, -525, 60, 2},    {1200000, -500, -130, 0}, /* out past the view's side, beside the field */
        {1200001, -100, -290, 1},  {1600000, -100, -290, 1}, /* the point on the arm's print */
        {1600001, -500, -50, 0},   {1800000, -380, -51.5, 0}, {2200000, -380, -51.5, 0}, /* presses 5 */
        {2500000, -380, -330, 0},  {2600000, 1e9, 0, 0},
    };
    const int np = (int)(sizeof path / sizeof path[0]);
    for (int64_t t = 0; t < 3400000; t += DT)
        fake_frame_chg(&f, t, path, np, t > 1200001 && t < 1200001 + DT ? 40000 : 0);
    int touches = 0, settles = 0;
    int64_t settle_t = -1;
    for (int i = 0; i < f.n_obs; i++) {
        touches += f.obs[i].rec.type == KR_REC_TOUCH && f.obs[i].rec.card == 5;
        if (f.obs[i].rec.type == KR_REC_SETTLE) {
            settles++;
            settle_t = f.obs[i].rec.t_us;
        }
    }
    if (getenv("KR_TEST_VERBOSE"))
        printf("jump from beside the field onto a print: touches of 5 %d, settles %d at %lld\n", touches, settles,
               (long long)settle_t);
    CU_ASSERT_EQUAL(touches, 1);
    CU_ASSERT_EQUAL(settles, 1);
    CU_ASSERT_TRUE(settle_t > 2200000);
    kr_event_destroy(f.ev);
}

/* A's hand sweeps along A's upper row towards its end: card 78 (x = 350 mm) lies between it
 * and card 77 (406), the read card. On the frame both are first seen moving the hand is
 * lost from view (a blurred sweep at 30 fps); it is found again beyond them. Both windows
 * are alike, so are their midpoint times: the card nearer where the hand was last seen,
 * 78, was reached first, and 77 was knocked by it (before: 77 came first by its place in
 * the layout and was touched too; look 7044 push_out at 30 fps: the touch was 77's, 78 was
 * taken for the card it knocked, A's take by a touch, flagged). */
static void test_sweep_with_hand_lost_goes_to_the_nearer_card(void)
{
    static const kr_track_card_init lay[2] = {{77, KR_TRACK_A, 406, -51.5}, {78, KR_TRACK_A, 350, -51.5}};
    fake f;
    fake_start_with(&f, lay, 77, 150000);
    const key_pt path[] = {
        {250000, 100, -330, 0}, {700000, 100, -60, 0}, {1000000, 300, -51.5, 0}, /* along the row */
        {1016000, 1e9, 0, 0},                                                   /* lost */
        {1033000, 420, -45, 0}, {1300000, 600, -200, 0}, {1400000, 1e9, 0, 0},
    };
    const int np = (int)(sizeof path / sizeof path[0]);
    for (int64_t t = 0; t < 2400000; t += DT) {
        kr_track_card *c77 = &f.cards[0], *c78 = &f.cards[1];
        if (t > 1016000) { /* (the frames at 1016.7 ms and on) */
            double u = (t - 1000000) / 1e6;
            c78->displaced = c78->found = 1;
            c78->moving = t < 1150000;
            c78->x_mm = u < 0.15 ? 350 + 600 * u : 440;
            c77->displaced = c77->moving = 1;
            c77->x_mm = 406 + 1500 * u;
            c77->found = c77->x_mm < 470;
            c77->lost = c77->out_of_field = c77->x_mm >= 470;
        }
        fake_frame(&f, t, path, np);
    }
    int t77 = 0, t78 = 0;
    for (int i = 0; i < f.n_obs; i++)
        if (f.obs[i].rec.type == KR_REC_TOUCH) {
            t77 += f.obs[i].rec.card == 77;
            t78 += f.obs[i].rec.card == 78;
        }
    if (getenv("KR_TEST_VERBOSE"))
        printf("sweep with the hand lost: touches of 77 %d, of 78 %d\n", t77, t78);
    CU_ASSERT_EQUAL(t78, 1);
    CU_ASSERT_EQUAL(t77, 0);
    kr_event_destroy(f.ev);
}

int main(void)
{
    draw_mat();
    if (getenv("KR_TEST_VERBOSE"))
        kr_log_set_level(KR_LOG_DEBUG);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("event", NULL, NULL);
    CU_add_test(s, "sweep_is_timed_between_frames", test_sweep_is_timed_between_frames);
    CU_add_test(s, "rolling_shutter_moves_by_row", test_rolling_shutter_moves_by_row);
    CU_add_test(s, "press_counts_once", test_press_counts_once);
    CU_add_test(s, "gap_near_a_press_marks_it", test_gap_near_a_press_marks_it);
    CU_add_test(s, "hover_is_not_a_touch", test_hover_is_not_a_touch);
    CU_add_test(s, "two_presses_count_twice", test_two_presses_count_twice);
    CU_add_test(s, "press_stop_between_frames", test_press_stop_between_frames);
    CU_add_test(s, "press_timing_any_frame_rate", test_press_timing_any_frame_rate);
    CU_add_test(s, "press_error_a_period_below_the_descent", test_press_error_a_period_below_the_descent);
    CU_add_test(s, "sweep_with_hand_lost_is_blamed", test_sweep_with_hand_lost_is_blamed);
    CU_add_test(s, "press_landing_seen_in_the_shadow", test_press_landing_seen_in_the_shadow);
    CU_add_test(s, "press_landing_between_frames", test_press_landing_between_frames);
    CU_add_test(s, "press_error_widens_under_the_camera", test_press_error_widens_under_the_camera);
    CU_add_test(s, "press_unseen_descent_under_the_camera", test_press_unseen_descent_under_the_camera);
    CU_add_test(s, "jump_onto_a_card_is_not_a_press", test_jump_onto_a_card_is_not_a_press);
    CU_add_test(s, "nothing_before_the_reading", test_nothing_before_the_reading);
    CU_add_test(s, "flag_reasons", test_flag_reasons);
    CU_add_test(s, "horizon_holds_for_early_entry", test_horizon_holds_for_early_entry);
    CU_add_test(s, "early_entry_withdrawn", test_early_entry_withdrawn);
    CU_add_test(s, "settle_soon_after_hands_back", test_settle_soon_after_hands_back);
    CU_add_test(s, "point_past_the_other_line_is_not_back", test_point_past_the_other_line_is_not_back);
    CU_add_test(s, "hand_lost_in_field_is_not_back", test_hand_lost_in_field_is_not_back);
    CU_add_test(s, "handled_needs_a_possible_send", test_handled_needs_a_possible_send);
    CU_add_test(s, "send_rest_survives_single_frame_jumps", test_send_rest_survives_single_frame_jumps);
    CU_add_test(s, "late_own_card_touch_is_weak", test_late_own_card_touch_is_weak);
    CU_add_test(s, "long_session", test_long_session);
    CU_add_test(s, "rest_beside_the_field_is_flagged", test_rest_beside_the_field_is_flagged);
    CU_add_test(s, "sweep_timed_from_card_motion", test_sweep_timed_from_card_motion); /* sweep session 6 */
    CU_add_test(s, "sweep_unfitted_lands_midway", test_sweep_unfitted_lands_midway);
    CU_add_test(s, "sweep_out_in_one_frame_is_blamed", test_sweep_out_in_one_frame_is_blamed); /* sweep session 6 */
    CU_add_test(s, "push_out_with_the_hand_lost_waits_for_the_blame", test_push_out_with_the_hand_lost_waits_for_the_blame);
    CU_add_test(s, "blamed_sweep_error_is_honest", test_blamed_sweep_error_is_honest); /* sweep session 6 */
    CU_add_test(s, "sweep_with_lead_jump_is_blamed", test_sweep_with_lead_jump_is_blamed); /* sweep session 6 */
    CU_add_test(s, "sweep_lost_on_its_way_is_carried_on", test_sweep_lost_on_its_way_is_carried_on);
    CU_add_test(s, "press_needs_its_shadow_to_meet_it", test_press_needs_its_shadow_to_meet_it);
    CU_add_test(s, "hand_beside_the_field_has_not_let_go", test_hand_beside_the_field_has_not_let_go);
    CU_add_test(s, "still_blob_left_behind_is_not_the_hand", test_still_blob_left_behind_is_not_the_hand);
    CU_add_test(s, "point_hopping_back_onto_a_print_is_not_the_hand", /* session 59 */
                test_point_hopping_back_onto_a_print_is_not_the_hand);
    CU_add_test(s, "sweep_crossing_between_frames_is_blamed_on_its_hand", /* session 59 */
                test_sweep_crossing_between_frames_is_blamed_on_its_hand);
    CU_add_test(s, "still_blob_beside_is_not_a_hand_at_rest", test_still_blob_beside_is_not_a_hand_at_rest);
    CU_add_test(s, "sweep_off_the_side_is_timed_from_its_edge", test_sweep_off_the_side_is_timed_from_its_edge); /* sweep session 7 */
    CU_add_test(s, "card_knocked_by_its_neighbour_is_flagged", test_card_knocked_by_its_neighbour_is_flagged);
    CU_add_test(s, "sweep_error_grows_with_its_residuals", test_sweep_error_grows_with_its_residuals);
    CU_add_test(s, "flung_card_pushed_out_when_last_seen", test_flung_card_pushed_out_when_last_seen); /* session 13 */
    CU_add_test(s, "flung_card_hidden_after_its_last_sighting", /* session 60 */
                test_flung_card_hidden_after_its_last_sighting);
    CU_add_test(s, "press_under_the_other_hand_is_hidden", test_press_under_the_other_hand_is_hidden);
    CU_add_test(s, "knocked_card_seen_at_rest_where_its_neighbour_slid", test_knocked_card_seen_at_rest_where_its_neighbour_slid);
    CU_add_test(s, "knocked_card_taken_for_at_rest_where_its_neighbour_slid",
                test_knocked_card_taken_for_at_rest_where_its_neighbour_slid);
    CU_add_test(s, "push_out_on_another_cards_track", test_push_out_on_another_cards_track);
    CU_add_test(s, "push_out_margin_is_the_farthest_the_card_slid", /* session 39 */
                test_push_out_margin_is_the_farthest_the_card_slid);
    CU_add_test(s, "lost_card_push_out_not_before_its_touch", test_lost_card_push_out_not_before_its_touch);
    CU_add_test(s, "push_out_after_hidden_frame_spans_two_periods", test_push_out_after_hidden_frame_spans_two_periods);
    CU_add_test(s, "push_out_after_unseen_frames_at_the_cards_speed", test_push_out_after_unseen_frames_at_the_cards_speed);
    CU_add_test(s, "card_unmoved_under_a_passing_arm_is_no_sure_sweep", test_card_unmoved_under_a_passing_arm_is_no_sure_sweep);
    CU_add_test(s, "sweep_shown_a_frame_late_is_one_touch", test_sweep_shown_a_frame_late_is_one_touch);
    /* precision session 7 */
    CU_add_test(s, "merged_hands_do_not_end_a_contact", test_merged_hands_do_not_end_a_contact);
    CU_add_test(s, "dead_stop_is_not_a_press", test_dead_stop_is_not_a_press);
    CU_add_test(s, "press_while_the_hand_was_lost", test_press_while_the_hand_was_lost);
    CU_add_test(s, "slow_approach_waits_for_the_landing", test_slow_approach_waits_for_the_landing);
    CU_add_test(s, "stop_moved_by_a_rising_hand_widens_the_model", test_stop_moved_by_a_rising_hand_widens_the_model); /* session 13 */
    CU_add_test(s, "hand_going_on_to_the_next_card", test_hand_going_on_to_the_next_card);
    /* precision session 8 */
    CU_add_test(s, "card_moving_before_the_hand_reached_it_is_knocked", test_card_moving_before_the_hand_reached_it_is_knocked);
    CU_add_test(s, "rest_while_merged_is_no_second_press", test_rest_while_merged_is_no_second_press);
    /* flags session 8 */
    CU_add_test(s, "late_blame_sure_when_the_other_hand_is_off", test_late_blame_sure_when_the_other_hand_is_off);
    CU_add_test(s, "wide_window_dated_by_the_path", test_wide_window_dated_by_the_path);
    CU_add_test(s, "print_of_the_arm_is_not_the_hand", test_print_of_the_arm_is_not_the_hand);
    CU_add_test(s, "card_under_a_dropped_arm_is_not_obscured", test_card_under_a_dropped_arm_is_not_obscured);
    CU_add_test(s, "late_own_sweep_stays_weak_when_dated", test_late_own_sweep_stays_weak_when_dated);
    CU_add_test(s, "race_presses_timed_from_own_landing", test_race_presses_timed_from_own_landing); /* race session 8 */
    CU_add_test(s, "race_leak_widens_the_error", test_race_leak_widens_the_error); /* race session 8 */
    CU_add_test(s, "race_hand_moving_on_is_no_leak", test_race_hand_moving_on_is_no_leak);
    CU_add_test(s, "race_merged_reading_before_the_stop", test_race_merged_reading_before_the_stop);
    CU_add_test(s, "race_landing_hidden_after_it_is_read_before", test_race_landing_hidden_after_it_is_read_before);
    CU_add_test(s, "race_level_follows_the_share", test_race_level_follows_the_share); /* session 52 */
    CU_add_test(s, "race_whole_level_follows_the_share", test_race_whole_level_follows_the_share); /* session 55 */
    CU_add_test(s, "send_found_late_is_put_at_the_hands_rest", test_send_found_late_is_put_at_the_hands_rest); /* session 22 */
    CU_add_test(s, "send_seen_at_rest_late_spans_its_putting_down", test_send_seen_at_rest_late_spans_its_putting_down);
    CU_add_test(s, "card_put_beyond_the_line_is_no_rearrangement", test_card_put_beyond_the_line_is_no_rearrangement); /* session 23 */
    CU_add_test(s, "card_track_on_another_card_is_no_send", test_card_track_on_another_card_is_no_send); /* session 23 */
    CU_add_test(s, "race_quiet_run_cut_short_widens_the_error", test_race_quiet_run_cut_short_widens_the_error);
    CU_add_test(s, "race_struck_card_under_the_others_fingers", test_race_struck_card_under_the_others_fingers);
    CU_add_test(s, "race_own_quiet_where_the_whole_is_quiet", test_race_own_quiet_where_the_whole_is_quiet);
    CU_add_test(s, "race_lone_change_between_quiet_frames", test_race_lone_change_between_quiet_frames);
    CU_add_test(s, "race_quiet_from_the_stop_reaches_to_its_last_uncalm_frame",
                test_race_quiet_from_the_stop_reaches_to_its_last_uncalm_frame);
    CU_add_test(s, "landing_after_a_slow_plateau", test_landing_after_a_slow_plateau);
    CU_add_test(s, "race_descent_unseen_after_the_stop_spans_its_last_change",
                test_race_descent_unseen_after_the_stop_spans_its_last_change); /* session 41 */
    CU_add_test(s, "race_last_change_after_a_drop_may_be_settling", test_race_last_change_after_a_drop_may_be_settling);
    CU_add_test(s, "race_struck_card_then_settling", test_race_struck_card_then_settling);
    CU_add_test(s, "jump_onto_a_card_as_the_blobs_part_is_a_weak_press",
                test_jump_onto_a_card_as_the_blobs_part_is_a_weak_press);
    CU_add_test(s, "race_under_steadied_light_spans_the_lit_reading",
                test_race_under_steadied_light_spans_the_lit_reading); /* session 29 */
    /* presses session 9 */
    CU_add_test(s, "jump_onto_a_print_from_beside_is_no_sighting", test_jump_onto_a_print_from_beside_is_no_sighting);
    CU_add_test(s, "rest_on_the_other_arm_is_no_press", test_rest_on_the_other_arm_is_no_press);
    CU_add_test(s, "knock_order_waits_for_the_knock", test_knock_order_waits_for_the_knock);
    /* timing session 9 */
    CU_add_test(s, "landing_tail_of_the_renders", test_landing_tail_of_the_renders);
    CU_add_test(s, "press_striking_the_card_has_no_tail", test_press_striking_the_card_has_no_tail);
    CU_add_test(s, "landing_drop_then_rest", test_landing_drop_then_rest);
    CU_add_test(s, "landing_short_rest_after_a_drop", test_landing_short_rest_after_a_drop);
    CU_add_test(s, "quiet_run_is_the_footage_it_covers", test_quiet_run_is_the_footage_it_covers);
    CU_add_test(s, "press_rest_ended_by_the_descent", test_press_rest_ended_by_the_descent);
    CU_add_test(s, "hand_turning_over_a_card_is_no_press", test_hand_turning_over_a_card_is_no_press);
    CU_add_test(s, "landing_on_a_keyframe", test_landing_on_a_keyframe);
    CU_add_test(s, "sliding_card_is_timed_with_its_friction", test_sliding_card_is_timed_with_its_friction);
    /* retreat session 10 */
    CU_add_test(s, "retreat_pause_is_no_press", test_retreat_pause_is_no_press);
    /* flags session 10 */
    CU_add_test(s, "arm_drawing_back_is_no_press_nor_lost", test_arm_drawing_back_is_no_press_nor_lost);
    CU_add_test(s, "send_to_the_far_row_reaches_past_the_line", test_send_to_the_far_row_reaches_past_the_line);
    CU_add_test(s, "landing_residue_after_the_contact", test_landing_residue_after_the_contact); /* timing session 11 */
    CU_add_test(s, "landing_lone_change_after_the_contact", test_landing_lone_change_after_the_contact);
    CU_add_test(s, "landing_slow_descent_then_deeper_rest", test_landing_slow_descent_then_deeper_rest); /* s42 */
    CU_add_test(s, "landing_short_quiet_run_cut_by_a_lone_change", /* session 45 */
                test_landing_short_quiet_run_cut_by_a_lone_change);
    CU_add_test(s, "race_slow_descent_then_deeper_rest", test_race_slow_descent_then_deeper_rest);
    CU_add_test(s, "race_press_after_the_blobs_parted_beside_the_other_leaving",
                test_race_press_after_the_blobs_parted_beside_the_other_leaving);
    CU_add_test(s, "hand_named_from_the_arm_seen_most", test_hand_named_from_the_arm_seen_most); /* session 15 */
    CU_add_test(s, "point_on_a_card_out_of_the_field_is_no_rest_beside", /* session 31 */
                test_point_on_a_card_out_of_the_field_is_no_rest_beside);
    CU_add_test(s, "rest_on_a_card_out_of_the_field_is_no_press", /* session 60 */
                test_rest_on_a_card_out_of_the_field_is_no_press);
    CU_add_test(s, "race_last_mm_beside_a_still_hand", test_race_last_mm_beside_a_still_hand); /* session 31 */
    CU_add_test(s, "race_last_mm_beside_settling_fingers", test_race_last_mm_beside_settling_fingers); /* session 46 */
    CU_add_test(s, "landing_slowing_at_24_fps_is_no_residue", test_landing_slowing_at_24_fps_is_no_residue); /* s47 */
    CU_add_test(s, "press_two_rests_ended_by_the_descent", test_press_two_rests_ended_by_the_descent); /* s47 */
    CU_add_test(s, "push_out_on_a_track_found_again_is_doubtful", /* session 33 */
                test_push_out_on_a_track_found_again_is_doubtful);
    CU_add_test(s, "race_press_after_the_points_jumps_spans_its_stay", /* session 33 */
                test_race_press_after_the_points_jumps_spans_its_stay);
    CU_add_test(s, "race_press_after_the_blobs_parted_spans_the_merge", /* session 34 */
                test_race_press_after_the_blobs_parted_spans_the_merge);
    CU_add_test(s, "race_press_quiet_before_its_rest_is_read_there", /* session 35 */
                test_race_press_quiet_before_its_rest_is_read_there);
    CU_add_test(s, "race_press_read_through_a_wandering_merge",
                test_race_press_read_through_a_wandering_merge); /* sessions 36, 38 */
    CU_add_test(s, "race_hover_in_a_merge_is_not_a_landing", test_race_hover_in_a_merge_is_not_a_landing);
    CU_add_test(s, "race_press_read_from_its_stay_over_the_card", test_race_press_read_from_its_stay_over_the_card);
    CU_add_test(s, "race_press_with_a_fluttering_point_read_from_its_stay", /* session 45 */
                test_race_press_with_a_fluttering_point_read_from_its_stay);
    CU_add_test(s, "drift_never_still_is_a_weak_press", test_drift_never_still_is_a_weak_press);
    CU_add_test(s, "press_after_a_merge_is_read_from_its_own_change",
                test_press_after_a_merge_is_read_from_its_own_change);
    CU_add_test(s, "jump_from_beside_the_field_onto_a_print_is_not_back", /* session 35 */
                test_jump_from_beside_the_field_onto_a_print_is_not_back);
    CU_add_test(s, "sweep_with_hand_lost_goes_to_the_nearer_card", /* session 35 */
                test_sweep_with_hand_lost_goes_to_the_nearer_card);
    CU_add_test(s, "hand_out_past_the_views_edge_is_not_back", /* session 34 */
                test_hand_out_past_the_views_edge_is_not_back);
    CU_add_test(s, "hand_gone_at_the_views_edge_in_the_field_is_lost", /* session 34 */
                test_hand_gone_at_the_views_edge_in_the_field_is_lost);
    CU_add_test(s, "hand_on_the_other_players_lower_row_is_not_back", /* session 34 */
                test_hand_on_the_other_players_lower_row_is_not_back);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
