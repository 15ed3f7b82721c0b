/* test_track.c - the tracker on frames drawn here: textured mat, light cards, a
 * skin-coloured arm with a shadow, a lighting change and a card that slides away.
 * SPDX-License-Identifier: MIT */
#include "kr_track.h"

#include <CUnit/Basic.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "kr_track_internal.h" /* n_edge_scores: the pose fits' cost; the classes */
#include "test_track_scene.h"

static const kr_track_card_init layout[] = {
    {17, KR_TRACK_A, -200, -51.5}, {5, KR_TRACK_A, 0, -51.5}, {33, KR_TRACK_A, 200, -134.5},
    {64, KR_TRACK_B, -100, 51.5},  {88, KR_TRACK_B, 150, 217.5},
};
#define NCARDS (int)(sizeof layout / sizeof layout[0])

/* A tracker of the test camera with the n cards of lay laid out (default config). */
static kr_track_t *tracker_with(const kr_track_card_init *lay, int n)
{
    kr_track_config cfg;
    kr_track_config_default(&cfg);
    kr_track_t *t = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_track_create(&cfg, map_fn, NULL, FW, FH, &t), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_track_set_layout(t, lay, n), KR_OK);
    return t;
}

static kr_track_t *make_tracker(void) { return tracker_with(layout, NCARDS); }

/* The still scene without card skip (an index of layout; -1: every card), gain 1. */
static void scene_but(uint8_t *img, int skip)
{
    memcpy(img, base, sizeof base);
    for (int k = 0; k < NCARDS; k++)
        if (k != skip)
            draw_card(img, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
}

static void still_scene(uint8_t *img, double gain)
{
    scene_but(img, -1);
    if (gain != 1.0)
        for (size_t i = 0; i < sizeof frame; i++) {
            double v = img[i] * gain;
            img[i] = (uint8_t)(v > 255 ? 255 : v);
        }
}

static const kr_track_frame *feed(kr_track_t *t, int64_t t_us)
{
    kr_image_t im = {FW, FH, FW * 3, 3, frame};
    const kr_track_frame *fr = NULL;
    CU_ASSERT_EQUAL(kr_track_update(t, &im, t_us, 0, &fr), KR_OK);
    return fr;
}

static void warm(kr_track_t *t, int64_t *t_us)
{
    for (int i = 0; i < 8; i++) {
        still_scene(frame, 1.0);
        feed(t, *t_us);
        *t_us += 16667;
    }
}

static void test_still_scene_has_no_hands_and_still_cards(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    still_scene(frame, 1.0);
    const kr_track_frame *fr = feed(t, ts);
    CU_ASSERT_TRUE(fr->ready);
    CU_ASSERT_FALSE(fr->hands[0].present);
    CU_ASSERT_FALSE(fr->hands[1].present);
    CU_ASSERT_EQUAL(fr->n_cards, NCARDS);
    for (int k = 0; k < fr->n_cards; k++) {
        CU_ASSERT_FALSE(fr->cards[k].moving);
        CU_ASSERT_FALSE(fr->cards[k].displaced);
    }
    /* card 33 was drawn 2 mm right of its layout position: refined */
    CU_ASSERT_DOUBLE_EQUAL(fr->cards[2].x_mm, 202.0, 1.6);
    kr_track_destroy(t);
}

static void test_arm_found_with_leading_point(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    double tips[3][2] = {{-150, -300}, {-120, -200}, {-100, -90}};
    const kr_track_frame *fr = NULL;
    for (int i = 0; i < 3; i++) {
        still_scene(frame, 1.0);
        draw_arm(frame, 0, tips[i][0], tips[i][1], 25, -20, 1);
        fr = feed(t, ts);
        ts += 16667;
        CU_ASSERT_TRUE(fr->hands[KR_TRACK_A].present);
        CU_ASSERT_FALSE(fr->hands[KR_TRACK_B].present);
        if (getenv("KR_TEST_VERBOSE")) printf("lead %.1f %.1f\n", fr->hands[0].lead_x_mm, fr->hands[0].lead_y_mm);
        /* the tip itself, not a pixel of the blurred rim a few mm short of it */
        CU_ASSERT_DOUBLE_EQUAL(fr->hands[KR_TRACK_A].lead_x_mm, tips[i][0], 3.0);
        CU_ASSERT_DOUBLE_EQUAL(fr->hands[KR_TRACK_A].lead_y_mm, tips[i][1], 3.0);
    }
    /* moving towards B at about 110 mm / 16.7 ms */
    CU_ASSERT_TRUE(fr->hands[KR_TRACK_A].vy_mm_s > 4000 && fr->hands[KR_TRACK_A].vy_mm_s < 9000);
    CU_ASSERT_FALSE(fr->hand_contact);
    kr_track_destroy(t);
}

static void test_shadow_alone_is_not_a_hand(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    for (int i = 0; i < 3; i++) {
        still_scene(frame, 1.0);
        draw_arm(frame, 0, -100, -150 + 20 * i, 0, 0, 0); /* shadow only */
        const kr_track_frame *fr = feed(t, ts);
        ts += 16667;
        CU_ASSERT_FALSE(fr->hands[KR_TRACK_A].present);
        CU_ASSERT_FALSE(fr->hands[KR_TRACK_B].present);
    }
    kr_track_destroy(t);
}

static void test_lighting_change_is_not_motion(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    double gains[] = {0.85, 1.1, 0.9};
    for (int i = 0; i < 3; i++) {
        still_scene(frame, gains[i]);
        const kr_track_frame *fr = feed(t, ts);
        ts += 16667;
        CU_ASSERT_FALSE(fr->hands[0].present);
        CU_ASSERT_FALSE(fr->hands[1].present);
        for (int k = 0; k < fr->n_cards; k++)
            CU_ASSERT_FALSE(fr->cards[k].moving);
        CU_ASSERT_DOUBLE_EQUAL(fr->gain, gains[i], 0.05);
    }
    kr_track_destroy(t);
}

static void test_swept_card_is_followed_out_of_the_field(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    /* card 64 (B, at -100, 51.5) slides to the left: 60 mm per frame, no hand drawn */
    const kr_track_frame *fr = NULL;
    double x = -100;
    for (int i = 0; i < 8; i++) {
        x -= 60;
        scene_but(frame, 3);
        draw_card(frame, x, 51.5);
        fr = feed(t, ts);
        ts += 16667;
        if (i == 0) {
            CU_ASSERT_TRUE(fr->cards[3].moving);
            CU_ASSERT_TRUE(fr->cards[3].displaced);
        }
        if (i == 3)
            CU_ASSERT_DOUBLE_EQUAL(fr->cards[3].x_mm, x, 10.0);
    }
    /* x = -580: centre 145 mm beyond the edge */
    CU_ASSERT_TRUE(fr->cards[3].out_of_field || fr->cards[3].lost);
    for (int k = 0; k < NCARDS; k++)
        if (k != 3)
            CU_ASSERT_FALSE(fr->cards[k].displaced);
    kr_track_destroy(t);
}

/* A's other arm lies behind A's line, reaching further from the arms' common base than
 * the hand in the field: the leading point is the tip of the hand over the field,
 * measured from that arm's own entry. */
static void test_leading_point_is_over_the_field(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    for (int i = 0; i < 3; i++) {
        still_scene(frame, 1.0);
        draw_arm(frame, -300, -440, -300, 0, 0, 1);
        draw_arm(frame, 100, 150, -180 + 5 * i, 0, 0, 1);
        fr = feed(t, ts);
        ts += 16667;
        CU_ASSERT_TRUE_FATAL(fr->hands[KR_TRACK_A].present);
        if (getenv("KR_TEST_VERBOSE"))
            printf("lead %.1f %.1f\n", fr->hands[0].lead_x_mm, fr->hands[0].lead_y_mm);
        CU_ASSERT_DOUBLE_EQUAL(fr->hands[KR_TRACK_A].lead_x_mm, 150, 4.0);
        CU_ASSERT_DOUBLE_EQUAL(fr->hands[KR_TRACK_A].lead_y_mm, -180 + 5 * i, 4.0);
        CU_ASSERT_TRUE(fr->hands[KR_TRACK_A].in_field);
    }
    kr_track_destroy(t);
}

/* A's hand flings card 17 off the left of the mat at 130 mm per frame: first seen gone
 * when already a card length and more away, found where the hand's velocity takes it,
 * followed out of view: out of the field (not lost where it lay). */
static void test_card_flung_off_with_the_hand_is_out_of_the_field(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    int out = 0;
    /* card centre and fingertip per frame: the hand reaches it and pushes it at 130 mm
     * per frame (when it is first seen to have left, it is already off its place and the
     * search around its place sees nothing), then it is half out of view, then gone */
    static const double cxs[6] = {-200, -330, -460, -590, -720, -850};
    static const double hxs[6] = {-165, -295, -425, -500, -500, -500};
    for (int i = 0; i < 6; i++) {
        double cx = cxs[i], hx = hxs[i];
        memcpy(frame, base, sizeof base);
        for (int k = 0; k < NCARDS; k++)
            if (k != 0)
                draw_card(frame, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
        draw_card(frame, cx, -51.5);
        draw_arm(frame, -80, hx, -51.5, 0, 0, 1);
        fr = feed(t, ts);
        ts += 16667;
        out |= fr->cards[0].out_of_field;
        if (getenv("KR_TEST_VERBOSE"))
            printf("fling %d: card %.0f est %.0f disp %d found %d out %d lost %d\n", i, cx, fr->cards[0].x_mm,
                   fr->cards[0].displaced, fr->cards[0].found, fr->cards[0].out_of_field, fr->cards[0].lost);
    }
    CU_ASSERT_TRUE(out);
    CU_ASSERT_TRUE(fr->cards[0].displaced);
    kr_track_destroy(t);
}

/* A card at the row's end swept off by a hand at 3 m/s, seen displaced only once the hand
 * has gone on past it: on the frame before, the hand covered the card's spot; on this one
 * its leading point is 140 mm from the spot (beyond the 120 mm that tie a hand to a card)
 * and the card lies under it 125 mm off. The hand near the spot on the frame before counts:
 * the card is looked for along the hand's way and found there, then leaves the field
 * (before: looked for around its spot only, not found, held there and lost in place; in
 * v_race_60 its follower took other evidence 150 mm off and its push-out came 83 ms late). */
static void test_card_seen_displaced_late_goes_with_the_hand(void)
{
    static const kr_track_card_init lay[] = {{17, KR_TRACK_A, -360, -51.5}, {78, KR_TRACK_A, 100, -51.5},
                                             {64, KR_TRACK_B, 100, 51.5}};
    kr_track_t *t = tracker_with(lay, 3);
    static const double tip[] = {-200, -250, -300, -370, -500, -545, -545, -545, -545, -545};
    static const double card[] = {-360, -360, -360, -360, -485, -600, -600, -600, -600, -600};
    const int nf = (int)(sizeof tip / sizeof tip[0]);
    const kr_track_frame *fr = NULL;
    int64_t ts = 0;
    int out_at = -1, found_off = 0;
    for (int i = -8; i < nf; i++) {
        int f = i < 0 ? 0 : i;
        memcpy(frame, base, sizeof base);
        draw_card(frame, 100, -51.5);
        draw_card(frame, 100, 51.5);
        if (card[f] > -600)
            draw_card(frame, card[f], -51.5);
        if (i >= 0)
            draw_arm(frame, tip[i] + 60, tip[i], -51.5, 0, 0, 1);
        fr = feed(t, ts);
        ts += 16667;
        const kr_track_card *c = &fr->cards[0];
        if (out_at < 0 && c->out_of_field)
            out_at = i;
        found_off |= c->found && c->displaced && c->x_mm < -450;
        if (getenv("KR_TEST_VERBOSE") && i >= 0)
            printf("late %d: tip %.0f card %.0f est %.0f disp %d found %d out %d lost %d\n", i, tip[i], card[f],
                   c->x_mm, c->displaced, c->found, c->out_of_field, c->lost);
    }
    CU_ASSERT_TRUE(fr->cards[0].displaced);
    CU_ASSERT_TRUE(found_off);
    CU_ASSERT_TRUE(out_at >= 4 && out_at <= 6);
    kr_track_destroy(t);
}

/* Card 64 drawn rotated by 2.5 degrees and 1.5 mm off its layout position: the pose fit
 * finds the angle, and the outline's corners are the rotated ones. */
static void test_rotated_card_pose_and_corners(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    const kr_track_frame *fr = NULL;
    const double ang = 2.5, cx = -100 + 1.5, cy = 51.5 - 1.0;
    for (int i = 0; i < 8; i++) {
        memcpy(frame, base, sizeof base);
        for (int k = 0; k < NCARDS; k++)
            if (k != 3)
                draw_card(frame, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
        draw_card_rot(frame, cx, cy, ang);
        fr = feed(t, ts);
        ts += 16667;
    }
    const kr_track_card *c = &fr->cards[3];
    if (getenv("KR_TEST_VERBOSE"))
        printf("pose %.2f %.2f %.2f\n", c->x_mm, c->y_mm, c->angle_deg);
    CU_ASSERT_DOUBLE_EQUAL(c->angle_deg, ang, 0.6);
    CU_ASSERT_DOUBLE_EQUAL(c->rest_angle_deg, ang, 0.6);
    CU_ASSERT_DOUBLE_EQUAL(c->x_mm, cx, 1.0);
    CU_ASSERT_DOUBLE_EQUAL(c->y_mm, cy, 1.0);
    /* true corners: (+-26, +-36.5) rotated by ang about (cx, cy) */
    double a = ang * 3.14159265358979323846 / 180;
    for (int q = 0; q < 4; q++) {
        double lx = (q == 1 || q == 2) ? 26 : -26, ly = q >= 2 ? 36.5 : -36.5;
        double tx = cx + cos(a) * lx - sin(a) * ly, ty = cy + sin(a) * lx + cos(a) * ly;
        CU_ASSERT_TRUE(hypot(c->corners_mm[q][0] - tx, c->corners_mm[q][1] - ty) < 1.5);
    }
    /* the unrotated neighbours stay unrotated */
    CU_ASSERT_DOUBLE_EQUAL(fr->cards[1].angle_deg, 0.0, 0.6);
    kr_track_destroy(t);
}

/* A card swept 60 mm per frame and stopped 180 mm away, turned by 20 degrees: followed
 * with its id, then at rest again with the new rest pose (centre and angle). */
static void test_swept_card_comes_to_rest_with_new_pose(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    double x = -100, a = 0;
    for (int i = 0; i < 24; i++) {
        if (i < 3) {
            x -= 60;
            a += 20.0 / 3;
        }
        memcpy(frame, base, sizeof base);
        for (int k = 0; k < NCARDS; k++)
            if (k != 3)
                draw_card(frame, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
        draw_card_rot(frame, x, 51.5, a);
        fr = feed(t, ts);
        ts += 16667;
        if (i == 1) {
            CU_ASSERT_TRUE(fr->cards[3].displaced);
            CU_ASSERT_DOUBLE_EQUAL(fr->cards[3].x_mm, x, 12.0);
        }
    }
    const kr_track_card *c = &fr->cards[3];
    if (getenv("KR_TEST_VERBOSE"))
        printf("rest %.2f %.2f %.2f disp %d\n", c->rest_x_mm, c->rest_y_mm, c->rest_angle_deg, c->displaced);
    CU_ASSERT_FALSE(c->displaced);
    CU_ASSERT_FALSE(c->lost);
    CU_ASSERT_FALSE(c->out_of_field);
    CU_ASSERT_DOUBLE_EQUAL(c->rest_x_mm, -280.0, 1.5);
    CU_ASSERT_DOUBLE_EQUAL(c->rest_y_mm, 51.5, 1.5);
    CU_ASSERT_DOUBLE_EQUAL(c->rest_angle_deg, 20.0, 1.5);
    for (int k = 0; k < NCARDS; k++)
        if (k != 3)
            CU_ASSERT_FALSE(fr->cards[k].displaced);
    kr_track_destroy(t);
}

/* A light sleeve reads as card-coloured against the mat: the arm is still joined to
 * A's edge through it, and its leading point is the skin-coloured hand's tip. */
static void test_arm_in_white_sleeve_is_a_hand(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    for (int i = 0; i < 3; i++) {
        still_scene(frame, 1.0);
        draw_arm(frame, 300, 320, -150 + 10 * i, 25, -20, 2);
        fr = feed(t, ts);
        ts += 16667;
        CU_ASSERT_TRUE(fr->hands[KR_TRACK_A].present);
        if (fr->hands[KR_TRACK_A].present) {
            CU_ASSERT_DOUBLE_EQUAL(fr->hands[KR_TRACK_A].lead_x_mm, 320, 8.0);
            CU_ASSERT_DOUBLE_EQUAL(fr->hands[KR_TRACK_A].lead_y_mm, -150 + 10 * i, 8.0);
        }
    }
    kr_track_destroy(t);
}

/* On a pale mat the bare spot a card leaves is only darker than the card, not another
 * colour (it reads as the card's shadow): the card is still seen to leave. */
static void test_card_leaving_a_pale_mat_is_displaced(void)
{
    draw_mat_colour(150, 170, 180);
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    int disp = 0;
    for (int i = 0; i < 4; i++) {
        memcpy(frame, base, sizeof base);
        for (int k = 0; k < NCARDS; k++)
            if (k != 3)
                draw_card(frame, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
        draw_card(frame, -100 - 70.0 * (i + 1), 51.5);
        fr = feed(t, ts);
        ts += 16667;
        disp |= fr->cards[3].displaced;
    }
    CU_ASSERT_TRUE(disp);
    CU_ASSERT_TRUE(fr->cards[3].change > 0.5);
    for (int k = 0; k < NCARDS; k++)
        if (k != 3)
            CU_ASSERT_FALSE(fr->cards[k].displaced);
    kr_track_destroy(t);
    draw_mat();
}

/* Pale skin over pale tatami (overexposed, a warm light): the forearm between the sleeve
 * and the card differs from the mat by less than chroma_thresh, so the hand over card 5
 * is a piece cut off from its arm; lying still on the card it was dropped as a static
 * blob (v5_bright_5994's race). Joining pixels keep it the arm's, and the hand at the
 * card for the whole rest; without them (chroma_join 0) it is lost. One pixel at a time
 * gives the same classes (joining ones included) as four. */
static void test_pale_arm_over_pale_mat_stays_a_hand(void)
{
    draw_mat_colour(106, 207, 251);
    for (int join = 1; join >= 0; join--) {
        kr_track_config cfg;
        kr_track_config_default(&cfg);
        if (!join)
            cfg.chroma_join = 0;
        kr_track_t *t = NULL, *plain = NULL;
        CU_ASSERT_EQUAL_FATAL(kr_track_create(&cfg, map_fn, NULL, FW, FH, &t), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_track_set_layout(t, layout, NCARDS), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_track_create(&cfg, map_fn, NULL, FW, FH, &plain), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_track_set_layout(plain, layout, NCARDS), KR_OK);
        plain->plain = 1;
        int64_t ts = 0;
        int at_card = 0, joining = 0, differing = 0;
        const int frames = 8 + 12 + 45;
        for (int f = 0; f < frames; f++, ts += 16667) {
            still_scene(frame, 1.0);
            if (f >= 8) { /* reaching card 5 at (0, -51.5) in 12 frames, then lying on it */
                double k = f < 20 ? (f - 8) / 12.0 : 1.0;
                draw_arm(frame, 0, 0, -300 + k * 240, 10, -8, 3);
            }
            kr_image_t im = {FW, FH, FW * 3, 3, frame};
            const kr_track_frame *fr = NULL, *fp = NULL;
            CU_ASSERT_EQUAL_FATAL(kr_track_update(t, &im, ts, 0, &fr), KR_OK);
            CU_ASSERT_EQUAL_FATAL(kr_track_update(plain, &im, ts, 0, &fp), KR_OK);
            differing += memcmp(t->cls, plain->cls, (size_t)t->n) || memcmp(t->raw, plain->raw, (size_t)t->n);
            for (int i = 0; i < t->n; i++)
                joining += t->raw[i] == KR_CLS_JOIN;
            const kr_track_hand *h = &fr->hands[KR_TRACK_A];
            if (getenv("KR_TEST_VERBOSE"))
                printf("join %d f %d present %d lead %.1f %.1f\n", join, f, h->present, h->lead_x_mm, h->lead_y_mm);
            at_card += f >= 20 && h->present && fabs(h->lead_x_mm) < 10 && fabs(h->lead_y_mm + 60) < 10;
        }
        CU_ASSERT_EQUAL(differing, 0);
        if (join) {
            CU_ASSERT_EQUAL(at_card, frames - 20);
            CU_ASSERT_TRUE(joining > 0);
        } else {
            CU_ASSERT_TRUE(at_card < frames - 20); /* the scene shows what the joining is for */
            CU_ASSERT_EQUAL(joining, 0);
        }
        kr_track_destroy(t);
        kr_track_destroy(plain);
    }
    draw_mat();
}

static uint8_t yuv_y[FW * FH], yuv_u[FW * FH / 4], yuv_v[FW * FH / 4], via_sws[FW * FH * 3];
static void to_yuv(int full, int bt709) { scene_to_yuv(full, bt709, yuv_y, yuv_u, yuv_v); }

/* The planes back to BGR24 with FFmpeg's swscale, set up as the media reader does */
static void sws_to_bgr(int full, int bt709)
{
    struct SwsContext *c = sws_getContext(FW, FH, AV_PIX_FMT_YUV420P, FW, FH, AV_PIX_FMT_BGR24, SWS_POINT, NULL,
                                          NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    sws_setColorspaceDetails(c, sws_getCoefficients(bt709 ? SWS_CS_ITU709 : SWS_CS_ITU601), full,
                             sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
    const uint8_t *src[3] = {yuv_y, yuv_u, yuv_v};
    int ss[3] = {FW, FW / 2, FW / 2}, ds[1] = {FW * 3};
    uint8_t *dst[1] = {via_sws};
    sws_scale(c, src, ss, 0, FH, dst, ds);
    sws_freeContext(c);
}

/* The same picture through kr_track_update (BGR from swscale) and kr_track_update_yuv
 * (the planes): mat images within swscale's rounding, same card poses and hands. */
static void test_yuv_entry_matches_bgr_entry(void)
{
    for (int mode = 0; mode < 3; mode++) {
        int full = mode == 1, bt709 = mode != 1;
        kr_track_config cfg;
        kr_track_config_default(&cfg);
        cfg.bilinear = mode == 2;
        kr_track_t *tb = NULL, *ty = NULL;
        CU_ASSERT_EQUAL_FATAL(kr_track_create(&cfg, map_fn, NULL, FW, FH, &tb), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_track_create(&cfg, map_fn, NULL, FW, FH, &ty), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_track_set_layout(tb, layout, NCARDS), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_track_set_layout(ty, layout, NCARDS), KR_OK);
        kr_yuv_t yv = {FW, FH, FW, FW / 2, yuv_y, yuv_u, yuv_v, full, bt709};
        kr_image_t im = {FW, FH, FW * 3, 3, via_sws};
        const double ang = 2.5, cx = -100 + 1.5, cy = 51.5 - 1.0;
        double tips[3][2] = {{-150, -300}, {-120, -200}, {-100, -90}};
        for (int i = 0; i < 11; i++) {
            memcpy(frame, base, sizeof base);
            for (int k = 0; k < NCARDS; k++)
                if (k != 3)
                    draw_card(frame, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
            draw_card_rot(frame, cx, cy, ang);
            if (i >= 8)
                draw_arm(frame, 0, tips[i - 8][0], tips[i - 8][1], 25, -20, 1);
            to_yuv(full, bt709);
            sws_to_bgr(full, bt709);
            const kr_track_frame *fb = NULL, *fy = NULL;
            CU_ASSERT_EQUAL_FATAL(kr_track_update(tb, &im, i * 16667, 0, &fb), KR_OK);
            CU_ASSERT_EQUAL_FATAL(kr_track_update_yuv(ty, &yv, i * 16667, 0, &fy), KR_OK);
            kr_image_t mb, my, cb, cl;
            CU_ASSERT_EQUAL_FATAL(kr_track_mat_view(tb, &mb, &cb), KR_OK);
            CU_ASSERT_EQUAL_FATAL(kr_track_mat_view(ty, &my, &cl), KR_OK);
            int maxd = 0;
            for (int v = 0; v < mb.h; v++)
                for (int u = 0; u < mb.w * 3; u++) {
                    int d = abs(mb.px[(size_t)v * mb.stride + u] - my.px[(size_t)v * my.stride + u]);
                    maxd = d > maxd ? d : maxd;
                }
            /* the same formula as swscale's SIMD converter (bit-exact on x86 with FFmpeg
             * 5.1; its C fallback rounds, off by one at most) */
            CU_ASSERT_TRUE(maxd <= 1);
            CU_ASSERT_EQUAL(fb->hands[0].present, fy->hands[0].present);
            CU_ASSERT_EQUAL(fb->hands[1].present, fy->hands[1].present);
            if (fb->hands[0].present && fy->hands[0].present) {
                CU_ASSERT_DOUBLE_EQUAL(fb->hands[0].lead_x_mm, fy->hands[0].lead_x_mm, 1.5);
                CU_ASSERT_DOUBLE_EQUAL(fb->hands[0].lead_y_mm, fy->hands[0].lead_y_mm, 1.5);
                CU_ASSERT_DOUBLE_EQUAL(fb->hands[0].area_mm2, fy->hands[0].area_mm2, 0.03 * fb->hands[0].area_mm2);
            }
            CU_ASSERT_EQUAL_FATAL(fb->n_cards, fy->n_cards);
            for (int k = 0; k < fb->n_cards; k++) {
                CU_ASSERT_DOUBLE_EQUAL(fb->cards[k].x_mm, fy->cards[k].x_mm, 0.3);
                CU_ASSERT_DOUBLE_EQUAL(fb->cards[k].y_mm, fy->cards[k].y_mm, 0.3);
                CU_ASSERT_DOUBLE_EQUAL(fb->cards[k].angle_deg, fy->cards[k].angle_deg, 0.3);
                CU_ASSERT_EQUAL(fb->cards[k].moving, fy->cards[k].moving);
            }
            if (i == 10) {
                CU_ASSERT_TRUE(fy->hands[0].present);
                CU_ASSERT_DOUBLE_EQUAL(fy->hands[0].lead_y_mm, -90, 3.0);
                CU_ASSERT_DOUBLE_EQUAL(fy->cards[3].angle_deg, ang, 0.6);
            }
        }
        /* a picture of another size is refused */
        kr_yuv_t bad = yv;
        bad.w = FW / 2;
        const kr_track_frame *fr = NULL;
        CU_ASSERT_EQUAL(kr_track_update_yuv(ty, &bad, 12 * 16667, 0, &fr), KR_ERR_INVALID);
        kr_track_destroy(tb);
        kr_track_destroy(ty);
    }
}

/* A dark object put down on the mat (not a hand, not a card) is taken into the
 * background after the same time (about 0.3 s) at 60 and at 120 frames per second: the
 * tracker's frame-count thresholds are times. */
static void test_absorption_delay_is_a_time(void)
{
    for (int fps = 60; fps <= 120; fps += 60) {
        kr_track_t *t = make_tracker();
        const int64_t step = 1000000 / fps;
        int64_t ts = 0;
        for (int i = 0; i < 8; i++, ts += step) {
            still_scene(frame, 1.0);
            feed(t, ts);
        }
        double u, v;
        kr_track_mm_to_mat(t, 300, 80, &u, &v);
        int fg_at_200ms = 0, fg_at_450ms = 1;
        for (int64_t dt = 0; dt <= 450000; dt += step, ts += step) {
            still_scene(frame, 1.0);
            for (int y = -12; y <= 12; y++)
                for (int x = -12; x <= 12; x++) {
                    double px, py;
                    map_fn(NULL, 300 + x, 80 + y, &px, &py);
                    put(frame, (int)px, (int)py, 110, 40, 30);
                }
            feed(t, ts);
            kr_image_t cls;
            CU_ASSERT_EQUAL_FATAL(kr_track_mat_view(t, NULL, &cls), KR_OK);
            int c = cls.px[(int)v * cls.stride + (int)u];
            if (dt <= 200000)
                fg_at_200ms = c != 0; /* still foreground at 0.2 s */
            else
                fg_at_450ms = c != 0;
        }
        if (getenv("KR_TEST_VERBOSE"))
            printf("%d fps: foreground at 0.2 s %d, at 0.45 s %d\n", fps, fg_at_200ms, fg_at_450ms);
        CU_ASSERT_TRUE(fg_at_200ms);
        CU_ASSERT_FALSE(fg_at_450ms);
        kr_track_destroy(t);
    }
}

/* The start-up pose fit of every card (a tracker started mid-match pays it on its first
 * ready frame) costs at most 120 edge scores a card (the position by line searches, not
 * a grid: 233 before), and still finds the cards to a millimetre. */
static void test_start_fit_is_cheap_and_accurate(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    double per_card = (double)t->n_edge_scores / NCARDS;
    if (getenv("KR_TEST_VERBOSE"))
        printf("start-up fit: %.1f edge scores per card\n", per_card);
    CU_ASSERT_TRUE(per_card > 20 && per_card <= 120);
    still_scene(frame, 1.0);
    const kr_track_frame *fr = feed(t, ts);
    for (int k = 0; k < NCARDS; k++) {
        CU_ASSERT_DOUBLE_EQUAL(fr->cards[k].x_mm, layout[k].x_mm + (k == 2 ? 2.0 : 0), 1.0);
        CU_ASSERT_DOUBLE_EQUAL(fr->cards[k].y_mm, layout[k].y_mm, 1.0);
        CU_ASSERT_DOUBLE_EQUAL(fr->cards[k].angle_deg, 0.0, 0.6);
    }
    kr_track_destroy(t);
}

/* An arm in a white (card-coloured) sleeve resting still for a second stays a hand: its
 * sleeve is not taken into the background after 0.3 s like other still foreground, which
 * cut the hand off its player's edge (before: the hand was lost after 0.3 s). */
static void test_resting_sleeved_arm_stays_a_hand(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    int present_all = 1;
    const kr_track_frame *fr = NULL;
    for (int i = 0; i < 60; i++, ts += 16667) {
        still_scene(frame, 1.0);
        draw_arm(frame, 300, 320, -20, 25, -20, 2);
        fr = feed(t, ts);
        present_all &= fr->hands[KR_TRACK_A].present && fabs(fr->hands[KR_TRACK_A].lead_y_mm + 20) < 10;
    }
    CU_ASSERT_TRUE(present_all);
    kr_track_destroy(t);
}

/* The frame shows bare mat (the background) over the mat rectangle from (x0, y0) to
 * (x1, y1) mm, x0 < x1, y0 > y1 (cut to the picture). */
static void bare_mat(double x0, double y0, double x1, double y1)
{
    double px0, py0, px1, py1;
    map_fn(NULL, x0, y0, &px0, &py0);
    map_fn(NULL, x1, y1, &px1, &py1);
    const int u0 = px0 < 0 ? 0 : (int)px0, u1 = px1 > FW ? FW : (int)px1;
    for (int y = py0 < 0 ? 0 : (int)py0; y <= (int)py1 && y < FH && u1 > u0; y++)
        memcpy(frame + ((size_t)y * FW + (size_t)u0) * 3, base + ((size_t)y * FW + (size_t)u0) * 3,
               (size_t)(u1 - u0) * 3);
}

/* A's arm in from its edge onto card 5 (its tip at y -45) over 13 frames at 60 fps, from
 * *ts on (moved on past them); returns the last frame. */
static const kr_track_frame *arm_in_onto_card5(kr_track_t *t, int64_t *ts)
{
    const kr_track_frame *fr = NULL;
    for (int i = 0; i <= 12; i++, *ts += 16667) {
        still_scene(frame, 1.0);
        draw_arm(frame, 0, 0, -300 + (-45.0 + 300) * i / 12, 10, -8, 1);
        fr = feed(t, *ts);
    }
    return fr;
}

/* A hand lying still on a card, cut off from its arm by a band of the arm that looks like
 * the mat (a pale forearm the background had learned: v8_strike_a at 60 fps, card 6), stays
 * the player's hand: most of it was that hand on the last frame and has not changed since.
 * Before, a detached piece unchanged for 0.1 s was dropped, the lead fell back to the stub
 * at the edge, and the card the hand then carried off was lost. Once the arm goes, the hand
 * goes with it. */
static void test_hand_cut_off_its_arm_stays_a_hand(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = arm_in_onto_card5(t, &ts);
    for (int i = 0; i < 8; i++, ts += 16667) { /* at rest, whole */
        still_scene(frame, 1.0);
        draw_arm(frame, 0, 0, -45, 10, -8, 1);
        fr = feed(t, ts);
    }
    CU_ASSERT_TRUE(fr->hands[KR_TRACK_A].present && fabs(fr->hands[KR_TRACK_A].lead_y_mm + 45) < 10);
    int kept = 0, n = 40;
    for (int i = 0; i < n; i++, ts += 16667) { /* at rest, cut: mat across the forearm, y -260..-220 */
        still_scene(frame, 1.0);
        draw_arm(frame, 0, 0, -45, 10, -8, 1);
        bare_mat(-60, -220, 60, -260);
        fr = feed(t, ts);
        kept += fr->hands[KR_TRACK_A].present && fabs(fr->hands[KR_TRACK_A].lead_y_mm + 45) < 10;
    }
    CU_ASSERT_EQUAL(kept, n);
    int gone = 0;
    for (int i = 0; i < 30; i++, ts += 16667) { /* the arm withdrawn: gone within 0.17 s (a scrap of
                                                    shadow at the cut's edge lingers until then) */
        still_scene(frame, 1.0);
        fr = feed(t, ts);
        gone += i >= 10 && !fr->hands[KR_TRACK_A].present;
    }
    CU_ASSERT_EQUAL(gone, 20);
    kr_track_destroy(t);
}

/* A hand lying still on a card whose whole forearm, to the player's edge, reads as the
 * mat (a dark sleeve read as shadow: look 7068 fault_way_back at 60 fps, A's hand on card
 * 27 from the frame it landed): no stub of the arm is attached, yet the hand, unchanged
 * since it was that hand and not moving, stays the player's for up to DETACHED_HAND_US (1 s)
 * after its arm was last seen (before: dropped, the press on the card missed). No longer than that: a still blob does not live on. A hand sliding on at 8 mm a
 * frame, cut off the same way, is dropped after its frame of grace (varied8
 * v8_strike_b_120: B's hand kept so took A's fingers when the blobs met). With settle > 0,
 * the fingers' shading changes on the first settle frames of the cut, a third of the hand's
 * picture a frame (a hand braking onto the card as its arm is cut off: look 7121
 * fault_way_back at 60 fps, A's hand 0.68 of it unchanged on the frame after its frame of
 * grace; dropped then, the fault on card 27 was missed). */
static int cut_to_the_edge_case(double step_mm, int settle, int *kept, int *late)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = arm_in_onto_card5(t, &ts);
    const int in = fr->hands[KR_TRACK_A].present && fabs(fr->hands[KR_TRACK_A].lead_y_mm + 45) < 10;
    *kept = *late = 0;
    for (int i = 0; i < 90; i++, ts += 16667) { /* lying or sliding, cut from y -150 to the edge */
        const double x = step_mm * i;
        still_scene(frame, 1.0);
        draw_arm(frame, x, x, -45, 10, -8, i < settle && i % 2 ? 5 : 1);
        bare_mat(x - 80, -150, x + 80, -440);
        fr = feed(t, ts);
        const kr_track_hand *h = &fr->hands[KR_TRACK_A];
        *kept += i < 50 && h->present && fabs(h->lead_y_mm + 45) < 10 && fabs(h->lead_x_mm - x) < 25; /* 0.83 s */
        *late += i >= 65 && h->present; /* after 1.08 s */
        if (getenv("KR_TEST_VERBOSE") && i % 10 == 0)
            printf("cut to the edge, %.0f mm a frame, settling %d, %d: present %d lead %.0f %.0f\n", step_mm, settle,
                   i, h->present, h->lead_x_mm, h->lead_y_mm);
    }
    kr_track_destroy(t);
    return in;
}

static void test_still_hand_cut_off_to_the_edge_stays_a_hand(void)
{
    int kept, late;
    CU_ASSERT_EQUAL(cut_to_the_edge_case(0, 0, &kept, &late), 1);
    CU_ASSERT_EQUAL(kept, 50);
    CU_ASSERT_EQUAL(late, 0);
    CU_ASSERT_EQUAL(cut_to_the_edge_case(0, 4, &kept, &late), 1);
    CU_ASSERT_EQUAL(kept, 50);
    CU_ASSERT_EQUAL(late, 0);
    CU_ASSERT_EQUAL(cut_to_the_edge_case(8, 0, &kept, &late), 1);
    CU_ASSERT_TRUE(kept <= 1);
    CU_ASSERT_EQUAL(late, 0);
    CU_ASSERT_EQUAL(cut_to_the_edge_case(8, 4, &kept, &late), 1);
    CU_ASSERT_TRUE(kept <= 1);
    CU_ASSERT_EQUAL(late, 0);
}

/* A's hand sweeping at 1.8 m/s (30 mm a frame); from one frame on its forearm is cut off
 * its edge (mat over it from the edge to y = -220: a dark sleeve read as shadow). The
 * hand is kept on that frame, its leading point by the tip: a piece mostly that hand of the
 * last frame, whose arm was attached then, has one frame's grace (before: dropped, no hand
 * on that frame; early_entry at 60 fps lost its sweep so once the frames were rounded
 * otherwise). A cut that lasts is no hand after that frame: no still blob lives on. */
static void test_fast_hand_cut_off_for_a_frame_stays_a_hand(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    int seen_cut = -1, later = 0;
    for (int i = 0; i <= 14; i++, ts += 16667) {
        double tip = -250 + 30.0 * i;
        still_scene(frame, 1.0);
        draw_arm(frame, tip - 60, tip, -45, 10, -8, 1);
        if (i >= 10) /* cut from frame 10 on (to below the picture's edge) */
            bare_mat(tip - 160, -220, tip + 40, -440);
        fr = feed(t, ts);
        const kr_track_hand *h = &fr->hands[KR_TRACK_A];
        if (i == 10)
            seen_cut = h->present && fabs(h->lead_x_mm - tip) < 25 && fabs(h->lead_y_mm + 45) < 25;
        if (i >= 12)
            later += h->present;
        if (getenv("KR_TEST_VERBOSE"))
            printf("cut %d: tip %.0f present %d lead %.0f %.0f\n", i, tip, h->present, h->lead_x_mm, h->lead_y_mm);
    }
    CU_ASSERT_EQUAL(seen_cut, 1);
    CU_ASSERT_EQUAL(later, 0);
    kr_track_destroy(t);
}

/* The mat in the rectangle from (x0, y0) to (x1, y1) mm in shade (the background's colour
 * times 0.62, as draw_arm's shadow): what a dark sleeve blurred over the mat reads as. */
static void shaded_mat(double x0, double y0, double x1, double y1)
{
    double px0, py0, px1, py1;
    map_fn(NULL, x0, y0, &px0, &py0);
    map_fn(NULL, x1, y1, &px1, &py1);
    const int u0 = px0 < 0 ? 0 : (int)px0, u1 = px1 > FW ? FW : (int)px1;
    for (int y = py0 < 0 ? 0 : (int)py0; y <= (int)py1 && y < FH; y++)
        for (int x = u0; x < u1; x++) {
            const uint8_t *b = base + ((size_t)y * FW + (size_t)x) * 3;
            put(frame, x, y, b[0] * 0.62, b[1] * 0.62, b[2] * 0.62);
        }
}

/* test_fast_hand_cut_off_for_a_frame_stays_a_hand's sweep with its forearm, from frame 10
 * on, shaded to the picture's edge instead (a fast hand's dark sleeve blurred into shadow:
 * look 7120 own_take at 25 fps, A's 3 m/s sweep of card 17 lost for three frames, taken for
 * card evidence, and the card's track followed it). The hand is joined to A's edge through
 * shadow alone, and it moves: A's hand on every frame of the cut, its leading point by the
 * tip (before: on the first frame only, by its grace). Returns those frames, of 5. With the
 * shade reaching B's edge too (both = 1), the piece is neither's. */
static int fast_hand_over_a_shaded_sleeve(int both)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    int kept = 0;
    for (int i = 0; i <= 14; i++, ts += 16667) {
        double tip = -250 + 30.0 * i;
        still_scene(frame, 1.0);
        if (both && i >= 10) /* a band of shade from under the hand to B's edge */
            shaded_mat(tip - 40, 420, tip + 10, -120);
        draw_arm(frame, tip - 60, tip, -45, 10, -8, 1);
        if (i >= 10)
            shaded_mat(tip - 160, -220, tip + 40, -440);
        const kr_track_frame *fr = feed(t, ts);
        const kr_track_hand *h = &fr->hands[KR_TRACK_A];
        if (i >= 10)
            kept += h->present && fabs(h->lead_x_mm - tip) < 25 && fabs(h->lead_y_mm + 45) < 25;
        if (getenv("KR_TEST_VERBOSE"))
            printf("shaded sleeve %d, %d: tip %.0f present %d lead %.0f %.0f\n", both, i, tip, h->present,
                   h->lead_x_mm, h->lead_y_mm);
    }
    kr_track_destroy(t);
    return kept;
}

static void test_fast_hand_joined_to_its_edge_by_shadow_stays_a_hand(void)
{
    CU_ASSERT_EQUAL(fast_hand_over_a_shaded_sleeve(0), 5);
    CU_ASSERT_TRUE(fast_hand_over_a_shaded_sleeve(1) <= 1); /* (the first: its frame of grace) */
}

/* B's fingers over A's (B's tip at y 0, A's at 40, on card 64's column), the two hands one
 * blob split between them; then B's forearm is cut off its edge by a band of mat-like sleeve
 * (y 260-300: strike_a at 30 fps, B's dark sleeve lost for a frame as the hands met). B's
 * hand and forearm are joined to A's arm only: before, that blob was all A's, A's leading
 * point went to B's elbow and B's to the stub at its edge, and neither racing press was
 * seen. Now the blob is split as a contact: each leading point stays by its own tip. */
static void test_arm_cut_off_in_a_contact_stays_its_players(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    for (int i = 0; i <= 12; i++, ts += 16667) { /* in from both edges until the fingers cross */
        still_scene(frame, 1.0);
        draw_arm_from(frame, -100, -420, -100, -300 + (40.0 + 300) * i / 12, 10, -8, 1);
        draw_arm_from(frame, -100, 420, -100, 300 + (0.0 - 300) * i / 12, 10, 8, 1);
        fr = feed(t, ts);
    }
    for (int i = 0; i < 4; i++, ts += 16667) { /* lying so, both arms whole */
        still_scene(frame, 1.0);
        draw_arm_from(frame, -100, -420, -100, 40, 10, -8, 1);
        draw_arm_from(frame, -100, 420, -100, 0, 10, 8, 1);
        fr = feed(t, ts);
    }
    CU_ASSERT_TRUE(fr->hand_contact);
    CU_ASSERT_TRUE(fr->hands[KR_TRACK_B].present && fabs(fr->hands[KR_TRACK_B].lead_y_mm) < 30);
    int kept[2] = {0, 0}, n = 6;
    for (int i = 0; i < n; i++, ts += 16667) {
        still_scene(frame, 1.0);
        draw_arm_from(frame, -100, -420, -100, 40, 10, -8, 1);
        draw_arm_from(frame, -100, 420, -100, 0, 10, 8, 1);
        double px0, py0, px1, py1;
        map_fn(NULL, -170, 300, &px0, &py0);
        map_fn(NULL, -30, 260, &px1, &py1);
        for (int y = (int)py0; y <= (int)py1; y++)
            memcpy(frame + ((size_t)y * FW + (size_t)px0) * 3, base + ((size_t)y * FW + (size_t)px0) * 3,
                   (size_t)(px1 - px0) * 3);
        fr = feed(t, ts);
        if (getenv("KR_TEST_VERBOSE"))
            printf("cut arm: A %d (%.0f, %.0f) B %d (%.0f, %.0f)\n", fr->hands[0].present, fr->hands[0].lead_x_mm,
                   fr->hands[0].lead_y_mm, fr->hands[1].present, fr->hands[1].lead_x_mm, fr->hands[1].lead_y_mm);
        /* (where the fingers overlap the split runs between the tips) */
        kept[0] += fr->hands[KR_TRACK_A].present && fabs(fr->hands[KR_TRACK_A].lead_y_mm - 40) < 30;
        kept[1] += fr->hands[KR_TRACK_B].present && fabs(fr->hands[KR_TRACK_B].lead_y_mm) < 30;
    }
    CU_ASSERT_EQUAL(kept[0], n);
    CU_ASSERT_EQUAL(kept[1], n);
    kr_track_destroy(t);
}

/* B's dark hand lies still, its fingertips at (-100, 0); A's pale hand, still beside its
 * own row, swings over in one frame (a 3 m/s strike at 30 fps) until its fingers lie
 * against B's (tip at -60, 10). A's new place is neither hand's last; its fingers, next to
 * B's still hand and far along the arm from what was A, grew from B (the hands' split
 * gives each pixel to the nearest of what each hand was: v8_strike_b at 60 fps, B's
 * leading point ran off with A's sweep of card 64, and its push-out was blamed on B). The
 * hands' colours differ: a pixel clearly of A's colour is grown from A only. B's point
 * stays by its tip, A's goes with its fingers. */
static void test_hand_swung_against_another_colour_stays_its_own(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    for (int i = 0; i <= 12; i++, ts += 16667) { /* B in from its edge; A in to the side */
        still_scene(frame, 1.0);
        draw_arm_from(frame, -100, 420, -100, 300 + (0.0 - 300) * i / 12, 10, 8, 4);
        draw_arm_from(frame, -380, -420, -380, -300 + (-120.0 + 300) * i / 12, 10, -8, 1);
        fr = feed(t, ts);
    }
    for (int i = 0; i < 6; i++, ts += 16667) { /* both still, apart */
        still_scene(frame, 1.0);
        draw_arm_from(frame, -100, 420, -100, 0, 10, 8, 4);
        draw_arm_from(frame, -380, -420, -380, -120, 10, -8, 1);
        fr = feed(t, ts);
    }
    int b_kept = 0, a_with = 0, n = 4;
    for (int i = 0; i < n; i++, ts += 16667) { /* swung over, fingers against B's */
        still_scene(frame, 1.0);
        draw_arm_from(frame, -100, 420, -100, 0, 10, 8, 4);
        draw_arm_from(frame, -380, -420, -60, 10, 10, -8, 1);
        fr = feed(t, ts);
        if (getenv("KR_TEST_VERBOSE"))
            printf("swung: A lead (%.0f, %.0f), B lead %d (%.0f, %.0f), contact %d\n", fr->hands[0].lead_x_mm,
                   fr->hands[0].lead_y_mm, fr->hands[1].present, fr->hands[1].lead_x_mm, fr->hands[1].lead_y_mm,
                   fr->hand_contact);
        b_kept += fr->hands[KR_TRACK_B].present && fabs(fr->hands[KR_TRACK_B].lead_x_mm + 100) < 30 &&
                  fabs(fr->hands[KR_TRACK_B].lead_y_mm) < 30;
        a_with += fr->hands[KR_TRACK_A].present && fabs(fr->hands[KR_TRACK_A].lead_x_mm + 60) < 30 &&
                  fabs(fr->hands[KR_TRACK_A].lead_y_mm - 10) < 30;
    }
    CU_ASSERT_EQUAL(b_kept, n);
    CU_ASSERT_EQUAL(a_with, n);
    kr_track_destroy(t);
}

/* Card 64 (B, at -100, 51.5) carried off hidden under B's hand and put down in A's
 * territory at (-100, -150): the hand lies on it there for half a second, then goes home.
 * Never seen moving, the card is lost once its place shows bare mat; by the time the hand
 * leaves it has lain still too long to be card evidence (taken into the background). It is
 * found again at rest where it lies (before: lost for good; v8_strike_a at 60 fps, card 6). */
static void test_card_put_down_hidden_is_found_again(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    /* the hand's tip 80 mm beyond the card's centre: the arm hides all of it; put down, the
     * fingertips lie on its far edge, and most of it lies still in view for half a second */
    for (int i = 0; i <= 40; i++, ts += 16667) {
        /* in from B's edge onto the card (10 frames), over to A's side (15), at rest (15) */
        double ty = i <= 10 ? 330 + (51.5 - 80 - 330) * i / 10.0
                            : i <= 25 ? -28.5 + (-150 - 80 + 28.5) * (i - 10) / 15.0 : -230;
        scene_but(frame, i <= 10 ? -1 : 3);
        draw_arm_from(frame, -100, 420, -100, ty, 10, 8, 1);
        fr = feed(t, ts);
    }
    for (int i = 0; i < 30; i++, ts += 16667) { /* put down, the fingers at rest on its edge */
        scene_but(frame, 3);
        draw_card(frame, -100, -150);
        draw_arm_from(frame, -100, 420, -100, -125, 10, 8, 1);
        fr = feed(t, ts);
    }
    for (int i = 0; i < 45; i++, ts += 16667) { /* the hand gone */
        scene_but(frame, 3);
        draw_card(frame, -100, -150);
        fr = feed(t, ts);
    }
    const kr_track_card *c = &fr->cards[3];
    if (getenv("KR_TEST_VERBOSE"))
        printf("hidden card: at %.1f, %.1f displaced %d lost %d rest %.1f, %.1f\n", c->x_mm, c->y_mm, c->displaced,
               c->lost, c->rest_x_mm, c->rest_y_mm);
    CU_ASSERT_FALSE(c->lost);
    CU_ASSERT_FALSE(c->displaced);
    CU_ASSERT_DOUBLE_EQUAL(c->rest_x_mm, -100, 5.0);
    CU_ASSERT_DOUBLE_EQUAL(c->rest_y_mm, -150, 5.0);
    kr_track_destroy(t);
}

/* The per-pixel loops 4 pixels at a time (SSE2) give the same tracker, bit for bit, as
 * one pixel at a time: every class, background value, unchanged-frame count and gain sum
 * after every frame of a scene with lighting changes, an arm coming and resting, a card
 * swept away and a near-black background (where the gain sum is not taken as an exact
 * integer sum). */
static void test_simd_matches_one_pixel_at_a_time(void)
{
    kr_track_t *a = make_tracker(), *b = make_tracker();
    b->plain = 1;
    int64_t ts = 0;
    int frames_differing = 0, outputs_differing = 0;
    for (int f = 0; f < 70; f++, ts += 16667) {
        double gain = f >= 10 && f < 14 ? 0.9 + 0.05 * (f - 10) : 1.0;
        memcpy(frame, base, sizeof base);
        for (int k = 0; k < NCARDS; k++)
            if (k != 3 || f < 40)
                draw_card(frame, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
        if (f >= 40)
            draw_card(frame, -100 - 30.0 * (f - 39), 51.5); /* card 64 swept away */
        if (f >= 16 && f < 40) /* A's arm reaching, then resting */
            draw_arm(frame, 0, -150 + 3.0 * (f < 28 ? f - 16 : 12), -300 + 15.0 * (f < 28 ? f - 16 : 12), 25, -20, 1);
        if (gain != 1.0)
            for (size_t i = 0; i < sizeof frame; i++) {
                double v = frame[i] * gain;
                frame[i] = (uint8_t)(v > 255 ? 255 : v);
            }
        if (f == 50) /* a near-black background on a few pixels of both: sums of 0.001 .. 0.01 */
            for (int i = 0; i < a->n; i += 97)
                for (int c = 0; c < 3; c++)
                    a->bg[(size_t)i * 3 + c] = b->bg[(size_t)i * 3 + c] = 0.001f * (float)(1 + i % 3);
        kr_image_t im = {FW, FH, FW * 3, 3, frame};
        const kr_track_frame *fa = NULL, *fb = NULL;
        CU_ASSERT_EQUAL_FATAL(kr_track_update(a, &im, ts, 0, &fa), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_track_update(b, &im, ts, 0, &fb), KR_OK);
        size_t n = (size_t)a->n;
        frames_differing += memcmp(a->cls, b->cls, n) || memcmp(a->raw, b->raw, n) ||
                            memcmp(a->bg, b->bg, n * 3 * sizeof *a->bg) ||
                            memcmp(a->still, b->still, n * sizeof *a->still) || memcmp(a->learned, b->learned, n) ||
                            memcmp(a->rowfg, b->rowfg, (size_t)a->h) || a->sb_next != b->sb_next;
        for (int p = 0; p < 2; p++)
            outputs_differing += fa->hands[p].present != fb->hands[p].present ||
                                 fa->hands[p].lead_x_mm != fb->hands[p].lead_x_mm ||
                                 fa->hands[p].lead_y_mm != fb->hands[p].lead_y_mm ||
                                 fa->hands[p].area_mm2 != fb->hands[p].area_mm2 ||
                                 fa->hands[p].tip_change != fb->hands[p].tip_change;
        for (int k = 0; k < fa->n_cards; k++)
            outputs_differing += fa->cards[k].x_mm != fb->cards[k].x_mm || fa->cards[k].y_mm != fb->cards[k].y_mm ||
                                 fa->cards[k].angle_deg != fb->cards[k].angle_deg ||
                                 fa->cards[k].displaced != fb->cards[k].displaced;
        outputs_differing += fa->gain != fb->gain;
        if (f == 25) /* the scene did what it is for: A's hand is seen */
            CU_ASSERT_TRUE(fa->hands[KR_TRACK_A].present);
    }
    CU_ASSERT_EQUAL(frames_differing, 0);
    CU_ASSERT_EQUAL(outputs_differing, 0);
    kr_track_destroy(a);
    kr_track_destroy(b);
}

/* The start-up fit of a dozen cards, half of them on a helper thread, gives every pose
 * and the edge score count exactly as on one thread, and finds the cards. */
static void test_threaded_start_fit_matches_one_thread(void)
{
    kr_track_card_init many[12];
    for (int k = 0; k < 12; k++) {
        many[k].id = k + 1;
        many[k].owner = k < 6 ? KR_TRACK_A : KR_TRACK_B;
        many[k].x_mm = -310 + 124.0 * (k % 6) + (k % 3) * 1.5; /* a few mm off the grid */
        many[k].y_mm = k < 6 ? -51.5 - (k % 2) : 51.5 + (k % 2);
    }
    kr_track_config cfg;
    kr_track_config_default(&cfg);
    kr_track_t *t[2] = {NULL, NULL};
    for (int j = 0; j < 2; j++) {
        CU_ASSERT_EQUAL_FATAL(kr_track_create(&cfg, map_fn, NULL, FW, FH, &t[j]), KR_OK);
        CU_ASSERT_EQUAL_FATAL(kr_track_set_layout(t[j], many, 12), KR_OK);
    }
    t[1]->plain = 1;
    memcpy(frame, base, sizeof base);
    for (int k = 0; k < 12; k++)
        draw_card(frame, many[k].x_mm + 1.0, many[k].y_mm - 0.5); /* the nominal layout is 1 mm off */
    const kr_track_frame *fr[2] = {NULL, NULL};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            kr_image_t im = {FW, FH, FW * 3, 3, frame};
            CU_ASSERT_EQUAL_FATAL(kr_track_update(t[j], &im, i * 16667, 0, &fr[j]), KR_OK);
        }
    CU_ASSERT_TRUE_FATAL(fr[0]->ready && fr[1]->ready);
    CU_ASSERT_EQUAL(t[0]->n_edge_scores, t[1]->n_edge_scores);
    int differ = 0;
    for (int k = 0; k < 12; k++) {
        differ += fr[0]->cards[k].x_mm != fr[1]->cards[k].x_mm || fr[0]->cards[k].y_mm != fr[1]->cards[k].y_mm ||
                  fr[0]->cards[k].angle_deg != fr[1]->cards[k].angle_deg ||
                  fr[0]->cards[k].contrast != fr[1]->cards[k].contrast;
        if (getenv("KR_TEST_VERBOSE"))
            printf("card %d: %.2f %.2f (drawn at %.2f %.2f)\n", k, fr[0]->cards[k].x_mm, fr[0]->cards[k].y_mm,
                   many[k].x_mm + 1.0, many[k].y_mm - 0.5);
        /* (drawn on whole camera pixels, 1.2 mm apart) */
        CU_ASSERT_DOUBLE_EQUAL(fr[0]->cards[k].x_mm, many[k].x_mm + 1.0, 1.5);
        CU_ASSERT_DOUBLE_EQUAL(fr[0]->cards[k].y_mm, many[k].y_mm - 0.5, 1.5);
    }
    CU_ASSERT_EQUAL(differ, 0);
    kr_track_destroy(t[0]);
    kr_track_destroy(t[1]);
}

/* The tracker's per-frame buffers are touched when it is created (live creates it with
 * the source paused): its first frames take no page faults for them, which queued live's
 * next frames behind the first (about 900 faults, 10-35 ms on a loaded machine). */
static void test_first_frames_take_no_page_faults(void)
{
#if defined(__GLIBC__)
    /* large buffers from fresh mappings, as in a new process (this test runs first, and
     * glibc would raise its threshold once a large buffer is freed) */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    kr_track_t *t = make_tracker();
    still_scene(frame, 1.0); /* (the frame's own pages touched before counting) */
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    for (int i = 0; i < 2; i++)
        feed(t, i * 16667);
    getrusage(RUSAGE_SELF, &r1);
    long faults = r1.ru_minflt - r0.ru_minflt;
    if (getenv("KR_TEST_VERBOSE"))
        printf("page faults in the first two frames: %ld (mat %d x %d)\n", faults, t->w, t->h);
#if !defined(__SANITIZE_ADDRESS__)
    CU_ASSERT_TRUE(faults < 100); /* (the buffers alone are over 800 pages) */
#endif
    kr_track_destroy(t);
}

/* ---- race session 7: the two hands followed through a contact ---- */

/* A's hand arrives (20 mm a frame at 60 fps) at its tip (x, y) and lies still there, four
 * frames from *ts on, its shadow offset by (sx, sy) mm; returns the last frame. */
static const kr_track_frame *a_arrives(kr_track_t *t, int64_t *ts, double x, double y, double sx, double sy)
{
    const kr_track_frame *fr = NULL;
    for (int i = 0; i < 4; i++) {
        still_scene(frame, 1.0);
        draw_arm(frame, 100, x, i < 3 ? y - 60 + 20 * i : y, sx, sy, 1);
        fr = feed(t, *ts);
        *ts += 16667;
    }
    return fr;
}

/* A race: A's hand reaches into B's half (tip at y = +45), B's comes down beside it into
 * A's half (tip at y = -35); the two hands merge into one component. Each fingertip lies
 * past the bisector of the two arms' entry points, where a split by the nearest entry
 * gave it to the other player and put both leading points on the bisector (about 45 mm
 * off). Followed from the frames before the contact, each hand keeps its own tip. */
static void test_hands_followed_through_contact(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const double atx = 10, aty = 45;
    const kr_track_frame *fr = a_arrives(t, &ts, atx, aty, 25, -20);
    int contact = 0;
    for (int i = 0; i <= 8; i++) { /* B comes down 25 mm a frame, then lies still */
        double by = i < 6 ? 110 - 25 * i : -35, bx = -25 + 2 * (i < 6 ? i : 5);
        still_scene(frame, 1.0);
        draw_arm(frame, 100, atx, aty, 25, -20, 1);
        draw_arm_from(frame, -60, 420, bx, by, 25, -20, 1); /* B's arm */
        fr = feed(t, ts);
        ts += 16667;
        CU_ASSERT_TRUE_FATAL(fr->hands[0].present && fr->hands[1].present);
        contact |= fr->hand_contact;
        if (getenv("KR_TEST_VERBOSE"))
            printf("contact %d A %.1f %.1f B %.1f %.1f true B %.1f %.1f\n", fr->hand_contact, fr->hands[0].lead_x_mm,
                   fr->hands[0].lead_y_mm, fr->hands[1].lead_x_mm, fr->hands[1].lead_y_mm, bx, by);
        CU_ASSERT_DOUBLE_EQUAL(fr->hands[0].lead_x_mm, atx, 8.0);
        CU_ASSERT_DOUBLE_EQUAL(fr->hands[0].lead_y_mm, aty, 8.0);
        if (i >= 4) {
            CU_ASSERT_DOUBLE_EQUAL(fr->hands[1].lead_x_mm, bx, 8.0);
            CU_ASSERT_DOUBLE_EQUAL(fr->hands[1].lead_y_mm, by, 8.0);
        }
    }
    CU_ASSERT_TRUE(contact); /* (one component: what is tested here) */
    kr_track_destroy(t);
}

/* ---- precision session 8 ---- */

/* Cards 78 and 77 side by side in A's upper row, and two more away from them (the knock tests). */
static const kr_track_card_init knock_row[4] = {
    {17, KR_TRACK_A, -200, -51.5}, {77, KR_TRACK_A, 156, -51.5}, {78, KR_TRACK_A, 100, -51.5}, {64, KR_TRACK_B, -100, 51.5}};

/* The knock tests' frame: the two cards away from the row, card 77 at (x77, -51.5) and card
 * 78 at (x78, y78) (x < 0: not drawn, out of the view or hidden). */
static void knock_scene(double x77, double x78, double y78)
{
    memcpy(frame, base, sizeof base);
    draw_card(frame, -200, -51.5);
    draw_card(frame, -100, 51.5);
    if (x77 >= 0)
        draw_card(frame, x77, -51.5);
    if (x78 >= 0)
        draw_card(frame, x78, y78);
}

/* A's hand sweeps card 78 (x = 100) into card 77 (x = 156), which flies on ahead (94, 50,
 * 48 mm a frame) while 78 ends partly on 77's spot, card on card. On the frame 78 is first
 * seen displaced A's hand covers most of 77's footprint: 77 is not seen displaced there,
 * only some bare mat shows (moving). 78's follower, looking where the fast hand takes it,
 * finds one card's evidence 150 mm on, beyond 77's spot: a card does not pass through its
 * neighbour, it is 77's. Each card keeps its id to where it comes to rest (before: 78
 * took 77's evidence to x = 460 and 77 was left where it lay; push_out at 60 fps,
 * phase 0.5: the read card's push-out was put on its neighbour). */
static void test_knocked_card_keeps_its_id(void)
{
    kr_track_t *t = tracker_with(knock_row, 4);
    int64_t ts = 0;
    const kr_track_frame *fr = NULL;
    static const double x78[] = {100, 104, 130, 143, 155, 162, 168, 172, 172, 172, 172, 172, 172, 172, 172, 172, 172, 172};
    static const double x77[] = {156, 160, 250, 300, 348, 390, 420, 440, 452, 458, 460, 460, 460, 460, 460, 460, 460, 460};
    static const double xarm[] = {60, 142, 190, 238, 286};
    const int nf = (int)(sizeof x78 / sizeof x78[0]);
    for (int i = -8; i < nf; i++) {
        int f = i < 0 ? 0 : i;
        knock_scene(x77[f], x78[f], f < 2 ? -51.5 : -20); /* (78 pushed up too: less of it on 77's spot) */
        if (i >= 0 && i < 5)
            draw_arm(frame, xarm[f], xarm[f], 10, 0, 0, 1);
        fr = feed(t, ts);
        ts += 16667;
        if (getenv("KR_TEST_VERBOSE"))
            printf("knock %d: 77 %.0f est %.0f disp %d found %d | 78 %.0f est %.0f disp %d found %d\n", i, x77[f],
                   fr->cards[1].x_mm, fr->cards[1].displaced, fr->cards[1].found, x78[f], fr->cards[2].x_mm,
                   fr->cards[2].displaced, fr->cards[2].found);
    }
    CU_ASSERT_DOUBLE_EQUAL(fr->cards[1].x_mm, 460, 15);
    CU_ASSERT_DOUBLE_EQUAL(fr->cards[2].x_mm, 172, 15);
    kr_track_destroy(t);
}

/* The knock tests with A's hand behind card 77: 77 at x77[f] and 78 at x78[f] on frame f
 * (nf frames, dt_us apart, after eight still ones), A's fingertips behind_mm behind 77's
 * trailing edge at y = tip_y on frames 1 .. arm_frames - 1 (at x = 60 on frame 0). Each card
 * must end within 15 mm of where its card came to rest (x77[nf - 1], x78[nf - 1]); with
 * hidden, on frame 2 A's hand must lie over half or more of 77's spot while what is seen of
 * it has changed on under 0.15 and does not move (the scene is the one a test describes).
 * tag names the verbose lines. */
static void knock_under_hand(const double *x77, const double *x78, int nf, int64_t dt_us, double behind_mm,
                             int arm_frames, double tip_y, const char *tag, int hidden)
{
    kr_track_t *t = tracker_with(knock_row, 4);
    int64_t ts = 0;
    const kr_track_frame *fr = NULL;
    int seen_hidden = 0;
    for (int i = -8; i < nf; i++) {
        int f = i < 0 ? 0 : i;
        knock_scene(x77[f], x78[f], -51.5);
        if (i >= 0 && i < arm_frames) {
            double tip = f < 1 ? 60 : x77[f] - 26 - behind_mm;
            draw_arm_from(frame, tip - 200, -420, tip, tip_y, 0, 0, 1);
        }
        fr = feed(t, ts);
        ts += dt_us;
        if (f == 2 && fr->cards[1].hand_cover[0] >= 0.5 && fr->cards[1].change < 0.15 && !fr->cards[1].moving)
            seen_hidden = 1;
        if (getenv("KR_TEST_VERBOSE"))
            printf("%s %d: 77 %.0f est %.0f disp %d found %d moving %d cover %.2f change %.2f | 78 %.0f est %.0f "
                   "disp %d found %d\n",
                   tag, i, x77[f], fr->cards[1].x_mm, fr->cards[1].displaced, fr->cards[1].found, fr->cards[1].moving,
                   fr->cards[1].hand_cover[0], fr->cards[1].change, x78[f], fr->cards[2].x_mm, fr->cards[2].displaced,
                   fr->cards[2].found);
    }
    if (hidden)
        CU_ASSERT_TRUE(seen_hidden);
    CU_ASSERT_DOUBLE_EQUAL(fr->cards[1].x_mm, x77[nf - 1], 15);
    CU_ASSERT_DOUBLE_EQUAL(fr->cards[2].x_mm, x78[nf - 1], 15);
    kr_track_destroy(t);
}

/* The same at 50 fps, the pusher slow: 78 is pushed 35 mm onto half of 77's spot while 77
 * flies a card width a frame, A's hand just behind 77, over most of its spot. On the frame
 * 78 is first seen displaced, 77's spot has changed on a quarter of what is seen of it: not
 * yet moving. 78's follower, looking where the hand goes, finds 77's card beyond
 * 77's spot: it is 77's (a card partly hidden under the hand and begun to change counts as
 * one that may have been knocked), and 78 is held on its spot, not on the hand's way, until
 * it is seen again. Each card keeps its id to where it comes to rest (before: 78 followed
 * 77's card to its rest at x = 440 and 77 was never seen displaced; push_out at 50 fps:
 * each push-out named with the other card). */
static void test_knocked_card_under_the_hand_keeps_its_id(void)
{
    static const double x78[] = {100, 100, 135, 138, 152, 162, 168, 170, 170, 170, 170, 170, 170, 170, 170, 170, 170};
    static const double x77[] = {156, 156, 212, 268, 322, 368, 400, 420, 432, 438, 440, 440, 440, 440, 440, 440, 440};
    /* (the fingertips 13 mm behind 77's trailing edge; 77 ends at 440, 78 at 170) */
    knock_under_hand(x77, x78, (int)(sizeof x78 / sizeof x78[0]), 20000, 13, 5, -35, "knock50", 0);
}

/* As the last at 60 fps, 78 pushed 48 mm in a frame onto most of 77's spot on the frame it
 * is first seen displaced, A's fingertips just behind 77 over more than half of the spot:
 * what is seen of it is mostly 78's card, changed on less than a tenth, not moving (the
 * scene is checked to be so on that frame). A hand over half of a card or more hides
 * whether it moved: 78's follower, finding 77's card beyond 77's spot, gives it to 77
 * (before: 78's track followed 77's card out and 77's track then 78's; look 7140 push_out
 * at 60 fps, 640x360: the read card's push-out 136 ms late, not flagged). */
static void test_knocked_card_mostly_under_the_hand_keeps_its_id(void)
{
    static const double x78[] = {100, 100, 148, 156, 162, 166, 168, 169, 170, 170, 170, 170, 170, 170, 170, 170, 170};
    static const double x77[] = {156, 156, 206, 256, 300, 340, 372, 396, 412, 422, 428, 430, 430, 430, 430, 430, 430};
    /* (the fingertips 2 mm behind 77's trailing edge; 77 ends at 430, 78 at 170) */
    knock_under_hand(x77, x78, (int)(sizeof x78 / sizeof x78[0]), 16667, 2, 6, -40, "knock60", 1);
}

/* Card 78 is swept along its row into card 77's place and on; 77, knocked, flies out of
 * the view at once, unseen, while 78 covers its spot, and is seen displaced only once 78
 * has moved on. 77's follower then finds 78's card: one card seen twice (untangle). 77,
 * displaced later, is not found there: it is not left on 78's track, and it was last seen
 * for sure no later than the first frame 78 moved on (before: 77's track followed 78's card to
 * its rest, last seen on every frame). */
static void test_knocked_card_flung_unseen_is_not_the_pushers(void)
{
    kr_track_t *t = tracker_with(knock_row, 4);
    int64_t ts = 0, moved_t = -1;
    const kr_track_frame *fr = NULL;
    static const double x78[] = {100, 100, 130, 156, 180, 200, 215, 222, 225, 225, 225, 225,
                                 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225, 225};
    const int nf = (int)(sizeof x78 / sizeof x78[0]);
    int twice = 0;
    for (int i = -8; i < nf; i++) {
        int f = i < 0 ? 0 : i;
        knock_scene(x78[f] < 130 ? 156 : -1, x78[f], -51.5); /* 77 until 78 reaches it; then out of the view */
        if (i >= 0 && i < 8)
            draw_arm(frame, x78[f] - 40, x78[f] - 40, -51.5, 0, 0, 1);
        if (f == 2 && moved_t < 0)
            moved_t = ts;
        fr = feed(t, ts);
        ts += 16667;
        const kr_track_card *c77 = &fr->cards[1], *c78 = &fr->cards[2];
        if (c77->displaced && c77->found && c78->displaced && c78->found &&
            hypot(c77->x_mm - c78->x_mm, c77->y_mm - c78->y_mm) < 10)
            twice++;
        if (getenv("KR_TEST_VERBOSE"))
            printf("flung %d: 77 est %.0f disp %d found %d lost %d seen %lld | 78 %.0f est %.0f disp %d found %d\n", i,
                   c77->x_mm, c77->displaced, c77->found, c77->lost, (long long)c77->last_seen_us, x78[f], c78->x_mm,
                   c78->displaced, c78->found);
    }
    CU_ASSERT_DOUBLE_EQUAL(fr->cards[2].x_mm, 225, 15);
    CU_ASSERT_TRUE(fr->cards[1].displaced);
    CU_ASSERT_TRUE(fr->cards[1].lost || fr->cards[1].out_of_field);
    CU_ASSERT_EQUAL(twice, 0);
    CU_ASSERT_TRUE(fr->cards[1].last_seen_us <= moved_t);
    kr_track_destroy(t);
}

/* Cards 78 and 77 side by side at the right end of A's upper row (the 25 fps knock). */
static const kr_track_card_init knock_end[4] = {
    {17, KR_TRACK_A, -200, -51.5}, {77, KR_TRACK_A, 406, -51.5}, {78, KR_TRACK_A, 350, -51.5}, {64, KR_TRACK_B, -100, 51.5}};

/* At 25 fps A's hand sweeps card 78 into card 77 at the end of the row. On the frame 78 is
 * first seen displaced it lies on 77's spot (a card on a card's footprint: no card
 * evidence) and 77 has flown out of the view (not drawn again): 78 is seen neither where it
 * lay nor where the fast hand's way takes it, beyond the field. It did not fly out with the hand: 77 lay in
 * that way, and a card does not pass through its neighbour. 78 comes out from under the
 * hand just past 77's spot and comes to rest there, 77 is not seen again: 78 keeps its id
 * to its rest, and 77 is the card gone (before: 78 was sent on with the hand and counted
 * out, and 77 took 78's card; look 7042 push_out at 25 fps: each push-out named with the
 * other card). */
static void test_knocked_card_hidden_under_the_hand_did_not_fly_out(void)
{
    kr_track_t *t = tracker_with(knock_end, 4);
    int64_t ts = 0;
    const kr_track_frame *fr = NULL;
    static const double x78[] = {350, 360, 402, 433, 440, 440, 440, 440, 440, 440, 440, 440, 440, 440, 440, 440};
    static const double x77[] = {406, 430, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    static const double tip[] = {250, 380, 500, 470};
    const int nf = (int)(sizeof x78 / sizeof x78[0]);
    for (int i = -8; i < nf; i++) {
        int f = i < 0 ? 0 : i;
        knock_scene(x77[f], x78[f], -51.5);
        if (i >= 0 && i < 4)
            draw_arm_from(frame, tip[f] - 250, -420, tip[f], f == 3 ? -140 : -51.5, 0, 0, 1);
        fr = feed(t, ts);
        ts += 40000;
        if (getenv("KR_TEST_VERBOSE"))
            printf("knock25 %d: 77 %.0f est %.0f disp %d found %d lost %d out %d | 78 %.0f est %.0f disp %d found %d "
                   "lost %d out %d\n",
                   i, x77[f], fr->cards[1].x_mm, fr->cards[1].displaced, fr->cards[1].found, fr->cards[1].lost,
                   fr->cards[1].out_of_field, x78[f], fr->cards[2].x_mm, fr->cards[2].displaced, fr->cards[2].found,
                   fr->cards[2].lost, fr->cards[2].out_of_field);
    }
    CU_ASSERT_DOUBLE_EQUAL(fr->cards[2].x_mm, 440, 15);
    CU_ASSERT_FALSE(fr->cards[2].lost);
    CU_ASSERT_FALSE(fr->cards[2].out_of_field);
    CU_ASSERT_TRUE(fr->cards[1].displaced);
    CU_ASSERT_TRUE(fr->cards[1].lost || fr->cards[1].out_of_field);
    kr_track_destroy(t);
}

/* ---- race session 8: each hand's own tip change ---- */

/* A's hand lies still on the card (tip at 10, 45); B's comes down beside it, its tip 70 mm
 * to the side, 15 mm a frame, to 30 mm. The change around A's tip (tip_change) holds B's motion; A's
 * own change (tip_change_own: B's pixels of this frame and the last masked, with a
 * margin) is noise, while B's own change shows B's motion and A's share of its circle is
 * what the mask left (before: no own change, both hands' tip changes alike). */
static void test_own_tip_change_masks_the_other_hand(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const double atx = 10, aty = 45;
    const kr_track_frame *fr = a_arrives(t, &ts, atx, aty, 8, -8);
    int seen = 0;
    for (int i = 0; i < 9; i++) {
        double by = 150 - 15 * i, bx = -60;
        still_scene(frame, 1.0);
        draw_arm(frame, 100, atx, aty, 8, -8, 1);
        draw_arm_from(frame, -60, 420, bx, by, 8, -8, 1); /* B's arm */
        fr = feed(t, ts);
        ts += 16667;
        const kr_track_hand *a = &fr->hands[0], *b = &fr->hands[1];
        CU_ASSERT_TRUE_FATAL(a->present && b->present);
        if (getenv("KR_TEST_VERBOSE"))
            printf("own tip change: B at %.0f: A %.0f own %.0f share %.2f, B %.0f own %.0f share %.2f\n", by,
                   a->tip_change, a->tip_change_own, a->tip_own_share, b->tip_change, b->tip_change_own,
                   b->tip_own_share);
        if (a->tip_change < 3000)
            continue; /* B not yet near A's tip */
        seen++;
        CU_ASSERT_TRUE(a->tip_change_own < 0.1 * a->tip_change);
        CU_ASSERT_TRUE(a->tip_change_own < 1000);
        CU_ASSERT_TRUE(b->tip_change_own > 3000);
        CU_ASSERT_TRUE(a->tip_own_share > 0.2 && a->tip_own_share < 0.99);
    }
    CU_ASSERT_TRUE(seen >= 3);
    kr_track_destroy(t);
}

/* ---- session 13: the hands' pixels near the leading point ---- */

/* A's hand lies still on the card (tip at 10, 45): near_area_mm2 is the arm's last 100 mm
 * around the tip, steady frame to frame. B's arm then comes down from the other side, over
 * A's fingertips (its tip from 200 to -20 mm, drawn over A's): A's own pixels there are
 * hidden, but the hands' pixels near A's point are not fewer (a hand coming over another
 * is not that hand leaving its point). near_own_mm2 counts A's alone: it stays as B's arm
 * comes (fourteenth session). */
static void test_near_area_counts_both_hands(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const double atx = 10, aty = 45;
    const kr_track_frame *fr = a_arrives(t, &ts, atx, aty, 8, -8);
    double alone = fr->hands[0].near_area_mm2;
    CU_ASSERT_DOUBLE_EQUAL(fr->hands[0].near_own_mm2, alone, 1e-9); /* alone: all of it its own */
    if (getenv("KR_TEST_VERBOSE"))
        printf("near area: A alone %.0f\n", alone);
    CU_ASSERT_TRUE(alone > 3000 && alone < 3.1416 * 100 * 100);
    for (int i = 0; i < 3; i++) {
        still_scene(frame, 1.0);
        draw_arm(frame, 100, atx, aty, 8, -8, 1);
        fr = feed(t, ts);
        ts += 16667;
        CU_ASSERT_DOUBLE_EQUAL(fr->hands[0].near_area_mm2, alone, 0.05 * alone);
    }
    for (int i = 0; i < 12; i++) { /* B's tip from 200 down to -20, 20 mm a frame */
        double by = 200 - 20 * i;
        still_scene(frame, 1.0);
        draw_arm(frame, 100, atx, aty, 8, -8, 1);
        draw_arm_from(frame, -60, 420, atx, by, 8, -8, 1); /* B's arm, drawn over A's */
        fr = feed(t, ts);
        ts += 16667;
        const kr_track_hand *a = &fr->hands[0], *b = &fr->hands[1];
        if (getenv("KR_TEST_VERBOSE"))
            printf("near area: B's tip at %.0f: A %.0f (own %.0f) at (%.0f, %.0f), B present %d contact %d\n", by,
                   a->near_area_mm2, a->near_own_mm2, a->lead_x_mm, a->lead_y_mm, b->present, fr->hand_contact);
        CU_ASSERT_TRUE_FATAL(a->present && b->present);
        CU_ASSERT_DOUBLE_EQUAL(a->lead_y_mm, aty, 10);
        CU_ASSERT_TRUE(a->near_area_mm2 >= 0.9 * alone);
        /* A's own pixels stay while both hands' grow with B's arm by the point (the
         * event's near rule asks both to fall: B going again is not A leaving) */
        CU_ASSERT_DOUBLE_EQUAL(a->near_own_mm2, alone, 0.05 * alone);
        if (by <= 60)
            CU_ASSERT_TRUE(a->near_area_mm2 > 1.5 * a->near_own_mm2);
    }
    kr_track_destroy(t);
}

/* ---- races session 9: each hand's own tip change, the other hand's shadow left out ---- */

/* A's hand lies still on the card (tip at 10, 45); B's hangs beside it, its tip 80 mm to
 * the side, and comes down in place: its shadow (cast to A's side, 40 mm out at first)
 * slides in under it, 6 mm a frame. Where that shadow shows between the two hands it lies
 * nearer B's hand than A's, but more than the mask's margin from B's pixels: it is B's
 * change, not A's (the leak that timed A's landing late in race_60ms at 60 fps). A's own
 * change stays noise while its tip change holds B's shadow sliding (before: A's own change
 * was the shadow's, as large as its tip change). */
static void test_own_tip_change_leaves_out_the_other_shadow(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const double atx = 10, aty = 45, btx = -80, bty = 45;
    const kr_track_frame *fr = a_arrives(t, &ts, atx, aty, 8, -8);
    for (int i = 0; i < 3; i++) { /* B arrives, high: its shadow far out */
        still_scene(frame, 1.0);
        draw_arm(frame, 100, atx, aty, 8, -8, 1);
        draw_arm_from(frame, -80, 420, btx, bty + 40 - 20 * i, 30, -12, 1);
        fr = feed(t, ts);
        ts += 16667;
    }
    int seen = 0;
    for (int i = 0; i < 6; i++) {
        double sx = 30 - 6 * i; /* its shadow slides in as it comes down */
        still_scene(frame, 1.0);
        draw_arm(frame, 100, atx, aty, 8, -8, 1);
        draw_arm_from(frame, -80, 420, btx, bty, sx, -0.4 * sx, 1);
        fr = feed(t, ts);
        ts += 16667;
        const kr_track_hand *a = &fr->hands[0], *b = &fr->hands[1];
        CU_ASSERT_TRUE_FATAL(a->present && b->present);
        if (getenv("KR_TEST_VERBOSE"))
            printf("other's shadow: B's at %.0f: A %.0f own %.0f share %.2f, B %.0f own %.0f share %.2f\n", sx,
                   a->tip_change, a->tip_change_own, a->tip_own_share, b->tip_change, b->tip_change_own,
                   b->tip_own_share);
        if (a->tip_change < 2000)
            continue; /* the shadow not yet in A's circle */
        seen++;
        CU_ASSERT_TRUE(a->tip_change_own < 0.25 * a->tip_change);
        CU_ASSERT_TRUE(a->tip_own_share > 0.2);
    }
    CU_ASSERT_TRUE(seen >= 2);
    kr_track_destroy(t);
}

/* ---- presses session 9: the tip change beyond the picture's own noise ---- */

/* Every pixel of the picture moved by up to +-amp grey levels per channel, as the codec
 * redraws every block of a frame at a keyframe or a step of its rate control. */
static void add_codec_noise(uint8_t *img, int amp)
{
    for (size_t i = 0; i < sizeof frame; i++) {
        double v = img[i] + amp * (2 * rnd() - 1);
        img[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

/* A's hand lies still on card 64 (tip at -100, 60); on one frame the whole picture is
 * redrawn with noise of up to 6 levels per channel (double at 30 fps, 2.40 s: the mat far
 * from any hand changed by 9 levels at the median, 18 at the 90th percentile, and the
 * still hand's tip_change was 12273, so its landing was put a frame late). The change
 * around the tip counts only beyond the noise the still picture around it shows: the
 * still hand stays near noise (before: thousands), while the same hand moving 12 mm on a
 * noisy frame still changes its picture by far more. */
static void test_tip_change_beyond_the_pictures_noise(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = a_arrives(t, &ts, -100, 60, 8, -8);
    for (int i = 0; i < 3; i++) { /* lying still */
        still_scene(frame, 1.0);
        draw_arm(frame, 100, -100, 60, 8, -8, 1);
        fr = feed(t, ts);
        ts += 16667;
    }
    double quiet = fr->hands[0].tip_change;
    still_scene(frame, 1.0);
    draw_arm(frame, 100, -100, 60, 8, -8, 1);
    add_codec_noise(frame, 6);
    fr = feed(t, ts);
    ts += 16667;
    CU_ASSERT_TRUE_FATAL(fr->hands[0].present);
    double noisy = fr->hands[0].tip_change;
    /* the next frame clean again (noise gone: a change of its own), then moving on a noisy frame */
    still_scene(frame, 1.0);
    draw_arm(frame, 100, -100, 60, 8, -8, 1);
    feed(t, ts);
    ts += 16667;
    still_scene(frame, 1.0);
    draw_arm(frame, 100, -100, 72, 8, -8, 1);
    add_codec_noise(frame, 6);
    fr = feed(t, ts);
    double moving = fr->hands[0].tip_change;
    if (getenv("KR_TEST_VERBOSE"))
        printf("tip change: still %.0f, still on a noisy frame %.0f, moving on a noisy frame %.0f\n", quiet, noisy,
               moving);
    CU_ASSERT_TRUE(noisy < 1500);
    CU_ASSERT_TRUE(moving > 5000);
    kr_track_destroy(t);
}

/* ---- forty-eighth session: the own change beyond the sensor's noise ---- */

/* The scene of test_own_tip_change_masks_the_other_hand (A's hand still on the card, tip
 * at 10, 45; B's arm beside it, its tip at (-60, by)) drawn with every pixel moved by up
 * to +-amp levels per channel (add_codec_noise, on every frame) */
static const kr_track_frame *noisy_pair(kr_track_t *t, int64_t *ts, double by, int amp)
{
    still_scene(frame, 1.0);
    draw_arm(frame, 100, 10, 45, 8, -8, 1);
    draw_arm_from(frame, -60, 420, -60, by, 8, -8, 1);
    add_codec_noise(frame, amp);
    const kr_track_frame *fr = feed(t, *ts);
    *ts += 16667;
    return fr;
}

/* A's hand arrives and lies still, B's arm hangs beside it, then comes down 15 mm a frame,
 * all under a sensor's noise of +-amp levels from the first frame on: A's largest own
 * change over the frames both lie still (*still_max, on *masked frames with B's pixels
 * masked: share under 1) and B's least as it comes (*moving_min) */
static void still_pair_under_noise(int amp, double *still_max, int *masked, double *moving_min)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    for (int i = 0; i < 12; i++) { /* warm-up, then A arrives 20 mm a frame and lies still */
        still_scene(frame, 1.0);
        if (i >= 8)
            draw_arm(frame, 100, 10, i < 11 ? -15 + 20 * (i - 8) : 45, 8, -8, 1);
        add_codec_noise(frame, amp);
        feed(t, ts);
        ts += 16667;
    }
    *still_max = 0;
    *masked = 0;
    for (int i = 0; i < 6; i++) { /* B's arm beside it, still from the third frame on */
        const kr_track_frame *fr = noisy_pair(t, &ts, 75, amp);
        const kr_track_hand *a = &fr->hands[0];
        CU_ASSERT_TRUE_FATAL(a->present && fr->hands[1].present);
        CU_ASSERT_DOUBLE_EQUAL(a->lead_y_mm, 45, 10);
        if (i >= 2) {
            *still_max = fmax(*still_max, a->tip_change_own);
            *masked += a->tip_own_share < 0.999;
        }
    }
    *moving_min = 1e30;
    for (int i = 1; i <= 3; i++) {
        const kr_track_frame *fr = noisy_pair(t, &ts, 75 - 15 * i, amp);
        CU_ASSERT_TRUE_FATAL(fr->hands[1].present);
        *moving_min = fmin(*moving_min, fr->hands[1].tip_change_own);
    }
    kr_track_destroy(t);
}

/* Both hands lie still side by side under a sensor's noise of +-8 levels per channel (a
 * dim hall, a phone's small sensor at a high gain): A's own change (tip_change_own, B's
 * pixels masked) counts each pixel beyond the noise the whole mat's still picture shows
 * (kr_track's noise_floor), so it stays within 1500 of the same still hand's without
 * noise (the drawn scene's own few hundred), while B's coming down 15 mm a frame changes
 * its own picture twenty times as much or more. Counted beyond the fixed 6 levels (before),
 * A's own change was the noise's: 30942 here (noise 12 at 30 fps: 5898 to 9387 a frame
 * for a hand lying still, against a quiet level of 2000). */
static void test_own_tip_change_beyond_the_sensors_noise(void)
{
    double clean, noisy, moving;
    int masked;
    still_pair_under_noise(0, &clean, &masked, &moving);
    still_pair_under_noise(8, &noisy, &masked, &moving);
    if (getenv("KR_TEST_VERBOSE"))
        printf("sensor noise: A still: own change up to %.0f, %.0f without noise (%d frames masked); B coming "
               "down: at least %.0f\n", noisy, clean, masked, moving);
    CU_ASSERT_TRUE(masked >= 3); /* the other hand near: the masked count, not tip_change's */
    CU_ASSERT_TRUE(noisy < clean + 1500);
    CU_ASSERT_TRUE(moving > 20 * noisy);
}

/* The light of frame f's row y: 1 + amp sin(2 pi 100 Hz t), t the frame's time plus, with a
 * rolling shutter, the row's offset over a readout of readout_s; square: lamps that switch,
 * 1 + amp while the sine is up, 1 - amp while it is down (a short exposure: sharp steps). */
static int lamps_square; /* the waveform of light_rows */
static void light_rows(uint8_t *img, double t_s, double amp, double readout_s)
{
    for (int y = 0; y < FH; y++) {
        double ty = t_s + ((y + 0.5) / FH - 0.5) * readout_s;
        double w = sin(2 * M_PI * 100.0 * ty + 0.4);
        double g = 1.0 + amp * (lamps_square ? (w >= 0 ? 1 : -1) : w);
        uint8_t *row = img + (size_t)y * FW * 3;
        for (int i = 0; i < FW * 3; i++) {
            double v = row[i] * g + 0.5;
            row[i] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

/* A hand lying still on the mat under lamps that swing by amp at 100 Hz, at 60 fps (a
 * global shutter, or a rolling one reading its rows over 15 ms): once the swing is
 * measured (about 0.3 s), the picture is steadied and the hand's tip change is quiet
 * (without: up to 120000 a frame, 8000 in bands); moving, it still changes. A light swinging by 1 %
 * (RMS 0.6 %, the usual lamps through a codec with B-frames) is left as it is. */
static void still_hand_under_lamps(double amp, double readout_s, double *quiet_max, int *steadied,
                                   double *moving)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    a_arrives(t, &ts, -100, 60, 8, -8);
    const kr_track_frame *fr = NULL;
    *quiet_max = 0;
    *steadied = 0;
    for (int i = 0; i < 60; i++) { /* a second lying still */
        still_scene(frame, 1.0);
        draw_arm(frame, 100, -100, 60, 8, -8, 1);
        light_rows(frame, ts / 1e6, amp, readout_s);
        fr = feed(t, ts);
        ts += 16667;
        CU_ASSERT_TRUE_FATAL(fr->hands[0].present);
        if (i >= 30) { /* the last half second */
            *steadied += fr->light_steadied;
            if (fr->hands[0].tip_change > *quiet_max)
                *quiet_max = fr->hands[0].tip_change;
        }
    }
    still_scene(frame, 1.0);
    draw_arm(frame, 100, -100, 72, 8, -8, 1);
    light_rows(frame, ts / 1e6, amp, readout_s);
    fr = feed(t, ts);
    *moving = fr->hands[0].tip_change;
    if (getenv("KR_TEST_VERBOSE"))
        printf("lamps %.3f readout %.0f ms: swing %.4f, steadied %d of 30, still hand's tip change at most %.0f, "
               "moving %.0f\n", amp, readout_s * 1e3, fr->light_swing, *steadied, *quiet_max, *moving);
    kr_track_destroy(t);
}

static void test_still_hand_under_flickering_lamps(void)
{
    double quiet, moving;
    int steadied;
    still_hand_under_lamps(0.05, 0, &quiet, &steadied, &moving); /* global shutter */
    CU_ASSERT_EQUAL(steadied, 30);
    CU_ASSERT_TRUE(quiet < 1000);
    CU_ASSERT_TRUE(moving > 5000);
    still_hand_under_lamps(0.05, 0.015, &quiet, &steadied, &moving); /* rolling: bands of rows */
    CU_ASSERT_EQUAL(steadied, 30);
    CU_ASSERT_TRUE(quiet < 1000);
    CU_ASSERT_TRUE(moving > 5000);
    still_hand_under_lamps(0.01, 0, &quiet, &steadied, &moving); /* the usual lamps: left alone */
    CU_ASSERT_EQUAL(steadied, 0);
    /* lamps of 1.8 % kept step by step (a codec without B-frames: RMS 1.0 %; phone
     * footage under the usual lamps swings by 0.8-1.0 %): steadied since the forty-third session */
    still_hand_under_lamps(0.018, 0, &quiet, &steadied, &moving);
    CU_ASSERT_EQUAL(steadied, 30);
    CU_ASSERT_TRUE(quiet < 1000);
    CU_ASSERT_TRUE(moving > 5000);
    lamps_square = 1; /* lamps that switch, read by a rolling shutter: steps between bands */
    still_hand_under_lamps(0.05, 0.015, &quiet, &steadied, &moving);
    lamps_square = 0;
    CU_ASSERT_EQUAL(steadied, 30);
    CU_ASSERT_TRUE(quiet < 1000);
    CU_ASSERT_TRUE(moving > 5000);
}

/* Two hands lying still side by side (A's tip at 10, 45, B's 70 mm to the side) while the
 * light steps once by 1.5 % (brighter from frame 20 on, back at frame 40: a lamp's level, or
 * a phone's exposure, stepping; too rare to be steadied): A's own change on those frames
 * (counted beyond a fixed level, tip_change_own) stays under the quiet level of a frame
 * (1000; before the forty-fourth session, which compares the last frame lit as this one,
 * 2100: every bright pixel changes by 1.5 %, 6-10 levels of B + G + R; now 525).
 * Moving, A changes. */
static void test_still_hands_through_a_light_step(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const double atx = 10, aty = 45;
    a_arrives(t, &ts, atx, aty, 8, -8);
    const kr_track_frame *fr = NULL;
    double own_max = 0, share = 0;
    int steadied = 0;
    for (int i = 0; i < 60; i++) {
        still_scene(frame, 1.0);
        draw_arm(frame, 100, atx, aty, 8, -8, 1);
        draw_arm_from(frame, -60, 420, -60, 30, 8, -8, 1); /* B's arm */
        if (i >= 20 && i < 40)
            light_rows(frame, 0, 0.015 / sin(0.4), 0); /* the sine's phase at t = 0: 1 + 1.5 % */
        fr = feed(t, ts);
        ts += 16667;
        CU_ASSERT_TRUE_FATAL(fr->hands[0].present && fr->hands[1].present);
        steadied += fr->light_steadied;
        if (i == 20 || i == 40) {
            own_max = fmax(own_max, fr->hands[0].tip_change_own);
            share = fr->hands[0].tip_own_share;
        }
    }
    still_scene(frame, 1.0);
    draw_arm(frame, 100, atx, aty + 12, 8, -8, 1);
    draw_arm_from(frame, -60, 420, -60, 30, 8, -8, 1);
    fr = feed(t, ts);
    if (getenv("KR_TEST_VERBOSE"))
        printf("a light step of 1.5 %%: still A's own change %.0f on the steps (share %.2f), steadied %d, moving %.0f\n",
               own_max, share, steadied, fr->hands[0].tip_change_own);
    CU_ASSERT_EQUAL(steadied, 0);
    CU_ASSERT_TRUE(share > 0.2 && share < 0.99); /* B's hand is masked out of A's circle */
    CU_ASSERT_TRUE(own_max < 1000);
    CU_ASSERT_TRUE(fr->hands[0].tip_change_own > 5000);
    kr_track_destroy(t);
}

/* Under a steady light, a dimming over two bands of camera rows of the twelve the light is
 * measured in (a body's shadow over part of the mat, a cloud's edge through a window)
 * that comes and goes every 100 ms for a second is not the lamps' flicker: the swing is
 * the median of the bands' (since the forty-third session; their mean put it at 1.5-2.2 %
 * on renders at 30 fps where arms and cards crossed the mat), and the picture is not
 * steadied. Lamps swinging every band by 2 % are. */
static void test_shade_over_some_bands_is_no_flicker(void)
{
    for (int lamps = 0; lamps < 2; lamps++) {
        kr_track_t *t = make_tracker();
        int64_t ts = 0;
        warm(t, &ts);
        int steadied = 0;
        double swing = 0;
        for (int i = 0; i < 60; i++) {
            still_scene(frame, 1.0);
            if (lamps)
                light_rows(frame, ts / 1e6, 0.02, 0);
            else if ((i / 6) % 2) /* rows of two bands (FH / 12 each) 6 % darker, 100 ms on, 100 off */
                for (size_t k = (size_t)FH / 12 * 3 * FW * 3; k < (size_t)FH / 12 * 5 * FW * 3; k++)
                    frame[k] = (uint8_t)(frame[k] * 0.94);
            const kr_track_frame *fr = feed(t, ts);
            ts += 16667;
            if (i >= 30)
                steadied += fr->light_steadied;
            swing = fr->light_swing;
        }
        if (getenv("KR_TEST_VERBOSE"))
            printf("%s: swing %.4f, steadied %d of 30\n", lamps ? "lamps 2 %" : "shade over two bands", swing, steadied);
        CU_ASSERT_EQUAL(steadied, lamps ? 30 : 0);
        kr_track_destroy(t);
    }
}

/* A card is wholly out of the field when its whole outline is past a line: an upright card
 * once its centre is half a width past the side line; a turned one reaches further (a swept
 * card turned 10 degrees still has a corner inside there, out 5.9 mm later); on B's back
 * line half the depth counts, and a card at 90 degrees swaps the two. */
static void test_out_over_counts_the_turn(void)
{
    const double side = KR_TRACK_FIELD_HALF_W_MM, back = KR_TRACK_FIELD_HALF_H_MM;
    const double w2 = KR_TRACK_CARD_W_MM / 2, h2 = KR_TRACK_CARD_H_MM / 2;
    CU_ASSERT_DOUBLE_EQUAL(kr_track_out_over(side + w2 + 1, 0, 0), 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(kr_track_out_over(-(side + w2 + 1), 10, 0), 1.0, 1e-9);
    const double turned = w2 * cos(10 * M_PI / 180) + h2 * sin(10 * M_PI / 180);
    CU_ASSERT(kr_track_out_over(side + w2 + 1, 0, 10) < 0);
    CU_ASSERT(kr_track_out_over(side + w2 + 1, 0, -10) < 0);
    CU_ASSERT_DOUBLE_EQUAL(kr_track_out_over(side + turned + 0.5, 0, -10), 0.5, 1e-9);
    CU_ASSERT(turned - w2 > 5.8 && turned - w2 < 6.0);
    CU_ASSERT_DOUBLE_EQUAL(kr_track_out_over(0, back + h2 + 2, 0), 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(kr_track_out_over(0, back + w2 + 2, 90), 2.0, 1e-9);
    CU_ASSERT(kr_track_out_over(0, 0, 30) < -200); /* in the middle: far inside */
}

/* A player's hand reaching across the body: A's left arm (shoulder at x -190, 720 mm behind
 * the centre line) on a card at the far right, and the right arm mirrored. Where each arm
 * enters the view lies on the other side of the middle (x +110 and -110); followed back to
 * the shoulders' depth, the arm's line gives the side it hangs from. */
static void test_hand_side_from_the_arms_line(void)
{
    for (int right = 0; right < 2; right++) {
        kr_track_t *t = make_tracker();
        int64_t ts = 0;
        warm(t, &ts);
        const double sh = right ? 190 : -190, tx = right ? -340 : 340;
        const kr_track_frame *fr = NULL;
        for (int i = 0; i < 4; i++) {
            still_scene(frame, 1.0);
            draw_arm_from(frame, sh, -720, tx + (right ? 20 : -20) * (3 - i), -60 - 20 * (3 - i), 25, -20, 1);
            fr = feed(t, ts);
            ts += 16667;
        }
        const kr_track_hand *h = &fr->hands[KR_TRACK_A];
        if (getenv("KR_TEST_VERBOSE"))
            printf("arm from %.0f: base %.0f %.0f lead %.0f %.0f side %d\n", sh, h->base_x_mm, h->base_y_mm,
                   h->lead_x_mm, h->lead_y_mm, h->side);
        CU_ASSERT_TRUE_FATAL(h->present);
        CU_ASSERT_TRUE(right ? h->base_x_mm < -40 : h->base_x_mm > 40); /* the entry alone says the other side */
        CU_ASSERT_EQUAL(h->side, right ? 1 : -1);
        kr_track_destroy(t);
    }
}

/* ---- session 32: a card swept out of the view with the hand that swept it ---- */

/* A's hand sweeps card 17 (at the row's end, -460) off at 3 m/s and runs off the view's
 * left edge with it; there its leading point is cut off by the edge and only creeps along
 * it (12 mm a frame, 0.7 m/s). B's hand lies on the card's spot from before the sweep until
 * the card is long gone, so the card is seen displaced only then. It is looked for along
 * the way A's hand was going when it struck (the hand's fastest since the card was last
 * seen lying there), which leaves the view: the card flew out with it and is out of the
 * field at once (before: the faster of this frame's and the last frame's velocity only,
 * both along the edge: held on its spot and lost there, in the field; in look 7034
 * hand_contact_fault at 120 fps its follower took other evidence seven frames later and its
 * push-out came 106 ms late on 2.4). */
static void test_card_swept_out_of_view_goes_with_the_hand(void)
{
    static const kr_track_card_init lay[] = {{17, KR_TRACK_A, -460, -51.5}, {78, KR_TRACK_A, 100, -51.5},
                                             {64, KR_TRACK_B, 100, 51.5}};
    kr_track_t *t = tracker_with(lay, 3);
    static const double tipx[] = {-250, -300, -350, -400, -450, -500, -545, -545, -545, -545, -545, -545, -545, -545};
    static const double card[] = {-460, -460, -460, -460, -460, -530, -700, -700, -700, -700, -700, -700, -700, -700};
    const int nf = (int)(sizeof tipx / sizeof tipx[0]);
    const kr_track_frame *fr = NULL;
    int64_t ts = 0;
    int out_at = -1, disp_at = -1;
    for (int i = -8; i < nf; i++) {
        int f = i < 0 ? 0 : i;
        double ty = -51.5 + (i >= 7 ? 12.0 * (i - 6) : 0);
        memcpy(frame, base, sizeof base);
        draw_card(frame, 100, -51.5);
        draw_card(frame, 100, 51.5);
        if (card[f] > -600)
            draw_card(frame, card[f], -51.5);
        if (i >= 2 && i <= 10)
            draw_arm_from(frame, -460, 420, -460, -140, 0, 0, 1); /* B's arm over the spot */
        if (i >= 0)
            draw_arm(frame, tipx[i] + 60, tipx[i], ty, 0, 0, 1);
        fr = feed(t, ts);
        ts += 16667;
        const kr_track_card *c = &fr->cards[0];
        if (out_at < 0 && c->out_of_field)
            out_at = i;
        if (disp_at < 0 && c->displaced)
            disp_at = i;
        if (getenv("KR_TEST_VERBOSE") && i >= 0)
            printf("out of view %d: tip %.0f,%.0f (v %.0f,%.0f) card %.0f est %.0f disp %d found %d out %d lost %d\n",
                   i, tipx[i], ty, fr->hands[0].vx_mm_s, fr->hands[0].vy_mm_s, card[f], c->x_mm, c->displaced,
                   c->found, c->out_of_field, c->lost);
    }
    CU_ASSERT_TRUE(disp_at >= 10);
    CU_ASSERT_TRUE(out_at >= disp_at && out_at <= disp_at + 2);
    kr_track_destroy(t);
}

/* ---- session 33: a follower that finds its card again far off after frames unseen ---- */

/* Card 17 slides right at 1.2 m/s (20 mm a frame at 60 fps) from -200 to -100, then is not
 * seen for six frames (lifted: not drawn) and lies on the seventh at dy from where its way
 * would take it (x +40). Returns the card as the tracker has it on that frame. */
static kr_track_card found_again_case(double dy)
{
    static const kr_track_card_init lay[] = {{17, KR_TRACK_A, -200, -51.5}, {64, KR_TRACK_B, 100, 51.5}};
    kr_track_t *t = tracker_with(lay, 2);
    const kr_track_frame *fr = NULL;
    int64_t ts = 0;
    for (int i = -8; i <= 12; i++) {
        memcpy(frame, base, sizeof base);
        draw_card(frame, 100, 51.5);
        if (i <= 5)
            draw_card(frame, -200 + 20.0 * (i < 0 ? 0 : i), -51.5);
        else if (i == 12)
            draw_card(frame, 40, -51.5 + dy);
        fr = feed(t, ts);
        if (getenv("KR_TEST_VERBOSE") && i >= 0)
            printf("found again (dy %.0f) %d: est %.0f,%.0f v %.0f disp %d found %d lost %d rejoined %d (%lld)\n",
                   dy, i, fr->cards[0].x_mm, fr->cards[0].y_mm, fr->cards[0].vx_mm_s, fr->cards[0].displaced,
                   fr->cards[0].found, fr->cards[0].lost, fr->cards[0].rejoined, (long long)fr->cards[0].rejoin_us);
        ts += 16667;
    }
    kr_track_card c = fr->cards[0];
    kr_track_destroy(t);
    return c;
}

/* Found again after the gap where its way takes it, the track goes on as before; found
 * 165 mm off that (within the window grown by the frames missed, beyond the one it would
 * have searched without them) it is marked found again, with the time it was last seen
 * before the gap (frame 5), so that a push-out on it says it may follow something else. */
static void test_card_found_again_far_off_is_marked(void)
{
    kr_track_card near = found_again_case(0), far = found_again_case(-165);
    CU_ASSERT_TRUE(near.displaced && near.found && !near.lost);
    CU_ASSERT_DOUBLE_EQUAL(near.x_mm, 40, 8);
    CU_ASSERT_FALSE(near.rejoined);
    CU_ASSERT_TRUE(far.displaced && far.found && !far.lost);
    CU_ASSERT_DOUBLE_EQUAL(far.y_mm, -51.5 - 165, 8);
    CU_ASSERT_TRUE(far.rejoined);
    CU_ASSERT_EQUAL(far.rejoin_us, (8 + 5) * 16667);
}

/* The way a hand was going when it struck a card: the fastest of this frame's and the last
 * frame's velocity, as they are, and its older ones since the card was last seen lying
 * there, each the middle one of three neighbouring frames', so that the leading point's
 * one-frame jump on an older frame (a piece of the blob joining or leaving it:
 * tools/trace_lead_jumps.py) is no way, while a sweep that has slowed at the view's edge
 * keeps its speed. The ring
 * holds one velocity a frame (t, vx, vy), oldest first; this frame's is (vx0, 0). */
static double way_of(const double (*ring)[3], int n, double vx0, int64_t since_us)
{
    kr_track_t *t = make_tracker();
    for (int j = 0; j < n; j++)
        memcpy(t->hv[0][j], ring[j], sizeof ring[j]);
    t->hv_n[0] = n;
    t->hv_head[0] = n % KR_TRACK_HV_N;
    double vx = vx0, vy = 0;
    kr_track_hand_way_(t, 0, since_us, &vx, &vy);
    kr_track_destroy(t);
    return vx;
}

static void test_hand_way_is_no_one_frame_jump(void)
{
    static const double jump[][3] = {{100, 800, 0}, {200, 900, 0}, {300, 30000, 0}, {400, 1000, 0}, {500, 900, 0}};
    static const double sweep[][3] = {{100, 800, 0}, {200, 3000, 0}, {300, 3100, 0}, {400, 2900, 0}, {500, 700, 0}};
    static const double young[][3] = {{400, 1000, 0}};
    CU_ASSERT_DOUBLE_EQUAL(way_of(jump, 5, 700, 150), 1000, 1e-9);   /* the jump is no way */
    CU_ASSERT_DOUBLE_EQUAL(way_of(sweep, 5, 700, 150), 3000, 1e-9);  /* slowed at the edge: the sweep's */
    CU_ASSERT_DOUBLE_EQUAL(way_of(sweep, 5, 700, 450), 700, 1e-9);   /* since 450: this frame's and 500's */
    CU_ASSERT_DOUBLE_EQUAL(way_of(young, 1, 700, 450), 1000, 1e-9);  /* two velocities: the faster */
    CU_ASSERT_DOUBLE_EQUAL(way_of(jump, 5, 7000, 150), 7000, 1e-9);  /* this frame's, as it is */
}

/* A's arm reaching out past the warped area's right side (x > 525 mm): its leading point
 * is where the arm leaves the view, marked at_view_edge; an arm whose hand lies in the
 * field is not. */
static void test_hand_past_the_views_edge_is_marked(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    static const double tips[][2] = {{300, -60}, {620, -40}, {300, -60}};
    for (int i = 0; i < 3; i++) {
        still_scene(frame, 1.0);
        draw_arm(frame, 380, tips[i][0], tips[i][1], 25, -20, 1);
        const kr_track_frame *fr = feed(t, ts);
        ts += 16667;
        const kr_track_hand *h = &fr->hands[KR_TRACK_A];
        CU_ASSERT_TRUE_FATAL(h->present);
        if (getenv("KR_TEST_VERBOSE"))
            printf("tip %.0f: lead %.1f %.1f edge %d\n", tips[i][0], h->lead_x_mm, h->lead_y_mm, h->at_view_edge);
        CU_ASSERT_EQUAL(h->at_view_edge, tips[i][0] > 525);
        if (tips[i][0] > 525)
            CU_ASSERT_TRUE(h->lead_x_mm > 515);
    }
    kr_track_destroy(t);
}

/* A card put down 25 mm from where its follower last had it (the followed centre leans on
 * the hand leaving it): the search for its rest pose, +-12 mm around that, looks further
 * while its best lies on the square's border, and finds the card as it lies, upright (it
 * was fitted 12 mm off and a quarter turn round: look 7038 match_b, card 72 after a send). */
static void test_card_put_down_off_its_follower_is_fitted_where_it_lies(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    still_scene(frame, 1.0);
    draw_card(frame, -330, -160);
    kr_image_t im = {FW, FH, FW * 3, 3, frame};
    kr_track_src src = {&im, NULL, NULL};
    double x = -326, y = -135, a = 27;
    kr_track_fit_pose_wide_(t, &src, &x, &y, &a, 12.0);
    double up = fmod(fabs(a) + 1.0, 180.0) - 1.0; /* 0 for a card upright either way round */
    if (getenv("KR_TEST_VERBOSE"))
        printf("card put down off its follower: %.1f %.1f at %.1f degrees\n", x, y, a);
    CU_ASSERT_DOUBLE_EQUAL(x, -330, 1.5);
    CU_ASSERT_DOUBLE_EQUAL(y, -160, 1.5);
    CU_ASSERT_DOUBLE_EQUAL(up, 0, 2.0);
    kr_track_destroy(t);
}

/* A card carried off under the fingers, its spot under a light sleeve all the while (look
 * 7045 race_60ms at 120 fps): the sleeve, card-coloured, is no card. The card is not
 * followed onto the arm and out of the field with it; put down in B's territory and left,
 * it is found there. */
static void test_card_carried_under_the_hand_is_not_the_sleeve(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    int left_field = 0;
    /* the arm in from A's edge at x = 300, its sleeve over the first 60 % of it: the hand
     * onto card 33 (10 frames), lying on it (10), carrying it to (60, 110) (24), at rest
     * there (10); then back to A's side (15), and gone (45). Uncovered by the skin, the
     * spot lies two thirds under the sleeve. */
    for (int i = 0; i < 114; i++, ts += 16667) {
        double cx = 202, cy = -134.5, tx = 200, ty = -120;
        if (i < 10)
            ty = -330 + (-120 + 330) * i / 10.0;
        else if (i >= 20 && i < 54) {
            double s = i < 44 ? (i - 20) / 24.0 : 1.0;
            cx = 202 + (60 - 202) * s;
            cy = -134.5 + (110 + 134.5) * s;
            tx = cx - 2;
            ty = cy + 14.5;
        } else if (i >= 54) {
            cx = 60;
            cy = 110;
            double s = i < 69 ? (i - 54) / 15.0 : 1.0;
            tx = 58 + (200 - 58) * s;
            ty = 124.5 + (-330 - 124.5) * s;
        }
        scene_but(frame, i < 20 ? -1 : 2);
        if (i >= 20)
            draw_card(frame, cx, cy);
        if (i < 69)
            draw_arm_from(frame, 300, -420, tx, ty, 10, -8, 2);
        fr = feed(t, ts);
        left_field |= fr->cards[2].out_of_field;
    }
    const kr_track_card *c = &fr->cards[2];
    if (getenv("KR_TEST_VERBOSE"))
        printf("carried card: at %.1f, %.1f displaced %d lost %d out %d (ever %d) rest %.1f, %.1f\n", c->x_mm,
               c->y_mm, c->displaced, c->lost, c->out_of_field, left_field, c->rest_x_mm, c->rest_y_mm);
    CU_ASSERT_FALSE(left_field);
    CU_ASSERT_FALSE(c->lost);
    CU_ASSERT_DOUBLE_EQUAL(c->rest_x_mm, 60, 5.0);
    CU_ASSERT_DOUBLE_EQUAL(c->rest_y_mm, 110, 5.0);
    kr_track_destroy(t);
}

/* A card found lying where no card lay is the one lost last, when the one lost long before
 * lies nearer only by chance (look 7045 match_b at 120 fps: B's send, put down unseen, was
 * taken for the read card B had taken 24 s before). Card 17 leaves its spot unseen, and
 * card 88 two seconds later; then a card lies at (-150, 150), 207 mm from 17's spot and
 * 307 mm from 88's. */
static void test_card_found_again_is_the_one_lost_last(void)
{
    kr_track_t *t = make_tracker();
    int64_t ts = 0;
    warm(t, &ts);
    const kr_track_frame *fr = NULL;
    int lost17 = 0, lost88 = 0;
    for (int i = 0; i < 240; i++, ts += 16667) {
        memcpy(frame, base, sizeof base);
        for (int k = 0; k < NCARDS; k++)
            if (k != 0 && (k != 4 || i < 120))
                draw_card(frame, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
        if (i >= 150)
            draw_card(frame, -150, 150);
        fr = feed(t, ts);
        if (i == 119)
            lost17 = fr->cards[0].lost && !fr->cards[0].out_of_field;
        if (i == 149)
            lost88 = fr->cards[4].lost && !fr->cards[4].out_of_field;
    }
    const kr_track_card *c17 = &fr->cards[0], *c88 = &fr->cards[4];
    if (getenv("KR_TEST_VERBOSE"))
        printf("lost last: 17 lost %d (at 2 s %d), 88 lost %d (at 2.5 s %d) at %.1f, %.1f\n", c17->lost, lost17,
               c88->lost, lost88, c88->x_mm, c88->y_mm);
    CU_ASSERT_TRUE(lost17);
    CU_ASSERT_TRUE(lost88);
    CU_ASSERT_TRUE(c17->lost);
    CU_ASSERT_FALSE(c88->lost);
    CU_ASSERT_DOUBLE_EQUAL(c88->x_mm, -150, 5.0);
    CU_ASSERT_DOUBLE_EQUAL(c88->y_mm, 150, 5.0);
    kr_track_destroy(t);
}

int main(void)
{
    draw_mat();
    if (getenv("KR_TEST_VERBOSE"))
        kr_log_set_level(KR_LOG_DEBUG);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("track", NULL, NULL);
    /* first: its trackers from fresh memory (no buffers freed by earlier tests to reuse) */
    CU_add_test(s, "first_frames_take_no_page_faults", test_first_frames_take_no_page_faults);
    CU_add_test(s, "still_scene_has_no_hands_and_still_cards", test_still_scene_has_no_hands_and_still_cards);
    CU_add_test(s, "arm_found_with_leading_point", test_arm_found_with_leading_point);
    CU_add_test(s, "shadow_alone_is_not_a_hand", test_shadow_alone_is_not_a_hand);
    CU_add_test(s, "lighting_change_is_not_motion", test_lighting_change_is_not_motion);
    CU_add_test(s, "swept_card_is_followed_out_of_the_field", test_swept_card_is_followed_out_of_the_field);
    CU_add_test(s, "leading_point_is_over_the_field", test_leading_point_is_over_the_field);
    CU_add_test(s, "card_flung_off_with_the_hand_is_out_of_the_field",
                test_card_flung_off_with_the_hand_is_out_of_the_field);
    CU_add_test(s, "rotated_card_pose_and_corners", test_rotated_card_pose_and_corners);
    CU_add_test(s, "swept_card_comes_to_rest_with_new_pose", test_swept_card_comes_to_rest_with_new_pose);
    CU_add_test(s, "arm_in_white_sleeve_is_a_hand", test_arm_in_white_sleeve_is_a_hand);
    CU_add_test(s, "card_leaving_a_pale_mat_is_displaced", test_card_leaving_a_pale_mat_is_displaced);
    CU_add_test(s, "pale_arm_over_pale_mat_stays_a_hand", test_pale_arm_over_pale_mat_stays_a_hand);
    CU_add_test(s, "yuv_entry_matches_bgr_entry", test_yuv_entry_matches_bgr_entry);
    CU_add_test(s, "absorption_delay_is_a_time", test_absorption_delay_is_a_time);
    CU_add_test(s, "start_fit_is_cheap_and_accurate", test_start_fit_is_cheap_and_accurate);
    CU_add_test(s, "resting_sleeved_arm_stays_a_hand", test_resting_sleeved_arm_stays_a_hand);
    CU_add_test(s, "simd_matches_one_pixel_at_a_time", test_simd_matches_one_pixel_at_a_time);
    CU_add_test(s, "threaded_start_fit_matches_one_thread", test_threaded_start_fit_matches_one_thread);
    CU_add_test(s, "hands_followed_through_contact", test_hands_followed_through_contact); /* race session 7 */
    CU_add_test(s, "knocked_card_keeps_its_id", test_knocked_card_keeps_its_id); /* precision session 8 */
    CU_add_test(s, "own_tip_change_masks_the_other_hand", test_own_tip_change_masks_the_other_hand); /* race session 8 */
    CU_add_test(s, "near_area_counts_both_hands", test_near_area_counts_both_hands); /* session 13 */
    CU_add_test(s, "own_tip_change_leaves_out_the_other_shadow", /* races session 9 */
                test_own_tip_change_leaves_out_the_other_shadow);
    /* presses session 9 */
    CU_add_test(s, "tip_change_beyond_the_pictures_noise", test_tip_change_beyond_the_pictures_noise);
    CU_add_test(s, "own_tip_change_beyond_the_sensors_noise", test_own_tip_change_beyond_the_sensors_noise); /* session 48 */
    CU_add_test(s, "out_over_counts_the_turn", test_out_over_counts_the_turn);
    CU_add_test(s, "still_hand_under_flickering_lamps", test_still_hand_under_flickering_lamps); /* session 28 */
    CU_add_test(s, "shade_over_some_bands_is_no_flicker", test_shade_over_some_bands_is_no_flicker); /* session 43 */
    CU_add_test(s, "still_hands_through_a_light_step", test_still_hands_through_a_light_step); /* session 44 */
    /* session 19 (last: the scene noise's generator is shared, the tests before keep their draws) */
    CU_add_test(s, "knocked_card_flung_unseen_is_not_the_pushers", test_knocked_card_flung_unseen_is_not_the_pushers);
    CU_add_test(s, "card_seen_displaced_late_goes_with_the_hand", test_card_seen_displaced_late_goes_with_the_hand);
    CU_add_test(s, "hand_side_from_the_arms_line", test_hand_side_from_the_arms_line); /* session 20 */
    CU_add_test(s, "hand_cut_off_its_arm_stays_a_hand", test_hand_cut_off_its_arm_stays_a_hand); /* session 22 */
    CU_add_test(s, "arm_cut_off_in_a_contact_stays_its_players", test_arm_cut_off_in_a_contact_stays_its_players); /* session 23 */
    CU_add_test(s, "hand_swung_against_another_colour_stays_its_own", test_hand_swung_against_another_colour_stays_its_own); /* session 23 */
    CU_add_test(s, "card_put_down_hidden_is_found_again", test_card_put_down_hidden_is_found_again); /* session 22 */
    CU_add_test(s, "knocked_card_under_the_hand_keeps_its_id", test_knocked_card_under_the_hand_keeps_its_id);
    CU_add_test(s, "knocked_card_mostly_under_the_hand_keeps_its_id", test_knocked_card_mostly_under_the_hand_keeps_its_id); /* session 30 */
    CU_add_test(s, "fast_hand_cut_off_for_a_frame_stays_a_hand", test_fast_hand_cut_off_for_a_frame_stays_a_hand); /* session 30 */
    CU_add_test(s, "fast_hand_joined_to_its_edge_by_shadow_stays_a_hand", /* session 60 */
                test_fast_hand_joined_to_its_edge_by_shadow_stays_a_hand);
    CU_add_test(s, "card_swept_out_of_view_goes_with_the_hand",
                test_card_swept_out_of_view_goes_with_the_hand); /* session 32 */
    CU_add_test(s, "card_found_again_far_off_is_marked", test_card_found_again_far_off_is_marked); /* session 33 */
    CU_add_test(s, "hand_way_is_no_one_frame_jump", test_hand_way_is_no_one_frame_jump); /* session 33 */
    CU_add_test(s, "hand_past_the_views_edge_is_marked", test_hand_past_the_views_edge_is_marked); /* session 34 */
    CU_add_test(s, "card_put_down_off_its_follower_is_fitted_where_it_lies", /* session 34 */
                test_card_put_down_off_its_follower_is_fitted_where_it_lies);
    CU_add_test(s, "knocked_card_hidden_under_the_hand_did_not_fly_out",
                test_knocked_card_hidden_under_the_hand_did_not_fly_out); /* session 35 */
    CU_add_test(s, "card_carried_under_the_hand_is_not_the_sleeve",
                test_card_carried_under_the_hand_is_not_the_sleeve); /* session 36 */
    CU_add_test(s, "still_hand_cut_off_to_the_edge_stays_a_hand",
                test_still_hand_cut_off_to_the_edge_stays_a_hand); /* session 40 */
    CU_add_test(s, "card_found_again_is_the_one_lost_last", test_card_found_again_is_the_one_lost_last); /* session 36 */
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
