/* test_track.c - the tracker on frames drawn here: textured mat, light cards, a
 * skin-coloured arm with a shadow, a lighting change and a card that slides away.
 * SPDX-License-Identifier: MIT */
#include "kr_track.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FW 960
#define FH 600
#define SCALE 0.85 /* px per mm of the drawn camera */

/* camera: mat mm -> px, a plain scale with A at the bottom, slightly shifted */
static int map_fn(void *ctx, double x, double y, double *px, double *py)
{
    (void)ctx;
    *px = FW / 2.0 + 3.0 + x * SCALE;
    *py = FH / 2.0 - 2.0 - y * SCALE;
    return 0;
}

static uint8_t frame[FW * FH * 3];
static uint8_t base[FW * FH * 3];

static void put(uint8_t *img, int x, int y, double b, double g, double r)
{
    if (x < 0 || y < 0 || x >= FW || y >= FH)
        return;
    uint8_t *p = img + ((size_t)y * FW + x) * 3;
    p[0] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
    p[1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
    p[2] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
}

static unsigned rng = 12345;
static double rnd(void)
{
    rng = rng * 1103515245u + 12345u;
    return ((rng >> 8) & 0xffff) / 65535.0;
}

/* tatami-ish: yellow-green with woven stripes and noise */
static void draw_mat(void)
{
    for (int y = 0; y < FH; y++)
        for (int x = 0; x < FW; x++) {
            double s = 12 * sin(x * 0.9) + 6 * ((y / 3) % 2) + 6 * (rnd() - 0.5);
            put(base, x, y, 80 + s, 150 + s, 165 + s);
        }
}

static void draw_card(uint8_t *img, double cx, double cy)
{
    double px, py;
    map_fn(NULL, cx, cy, &px, &py);
    int hw = (int)(26 * SCALE), hh = (int)(36.5 * SCALE);
    for (int y = (int)py - hh; y <= (int)py + hh; y++)
        for (int x = (int)px - hw; x <= (int)px + hw; x++) {
            double k = ((x + y) % 7 == 0) ? 40 : 0; /* some "text" */
            put(img, x, y, 225 - k, 232 - k, 236 - k);
        }
}

/* A's arm from the bottom edge at (ax, -420) mm to the fingertip (tx, ty); shadow
 * offset by (sx, sy) mm, drawn first (darker mat colour, same chroma). */
static void draw_arm(uint8_t *img, double ax, double tx, double ty, double sx, double sy, int with_arm)
{
    for (int pass = 0; pass < 2; pass++) {
        double ox = pass == 0 ? sx : 0, oy = pass == 0 ? sy : 0;
        if (pass == 1 && !with_arm)
            break;
        for (int y = 0; y < FH; y++)
            for (int x = 0; x < FW; x++) {
                double mx = (x - FW / 2.0 - 3.0) / SCALE - ox, my = (FH / 2.0 - 2.0 - y) / SCALE - oy;
                /* distance to the segment (ax,-420)-(tx,ty) */
                double dx = tx - ax, dy = ty + 420, L2 = dx * dx + dy * dy;
                double s = ((mx - ax) * dx + (my + 420) * dy) / L2;
                if (s < 0 || s > 1)
                    continue;
                double qx = ax + s * dx - mx, qy = -420 + s * dy - my;
                double rad = s > 0.85 ? 38 * sqrt((1 - s) / 0.15) : 40;
                if (qx * qx + qy * qy > rad * rad)
                    continue;
                uint8_t *p = img + ((size_t)y * FW + x) * 3;
                if (pass == 0)
                    put(img, x, y, p[0] * 0.62, p[1] * 0.62, p[2] * 0.62);
                else
                    put(img, x, y, 120 + 5 * (rnd() - 0.5), 140 + 5 * (rnd() - 0.5), 215 + 5 * (rnd() - 0.5));
            }
    }
}

static const kr_track_card_init layout[] = {
    {17, KR_TRACK_A, -200, -51.5}, {5, KR_TRACK_A, 0, -51.5}, {33, KR_TRACK_A, 200, -134.5},
    {64, KR_TRACK_B, -100, 51.5},  {88, KR_TRACK_B, 150, 217.5},
};
#define NCARDS (int)(sizeof layout / sizeof layout[0])

static kr_track_t *make_tracker(void)
{
    kr_track_config cfg;
    kr_track_config_default(&cfg);
    kr_track_t *t = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_track_create(&cfg, map_fn, NULL, FW, FH, &t), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_track_set_layout(t, layout, NCARDS), KR_OK);
    return t;
}

static void still_scene(uint8_t *img, double gain)
{
    memcpy(img, base, sizeof base);
    for (int k = 0; k < NCARDS; k++)
        draw_card(img, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
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
        CU_ASSERT_DOUBLE_EQUAL(fr->hands[KR_TRACK_A].lead_x_mm, tips[i][0], 8.0);
        CU_ASSERT_DOUBLE_EQUAL(fr->hands[KR_TRACK_A].lead_y_mm, tips[i][1], 8.0);
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
        memcpy(frame, base, sizeof base);
        for (int k = 0; k < NCARDS; k++)
            if (k != 3)
                draw_card(frame, layout[k].x_mm + (k == 2 ? 2.0 : 0), layout[k].y_mm);
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

int main(void)
{
    draw_mat();
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("track", NULL, NULL);
    CU_add_test(s, "still_scene_has_no_hands_and_still_cards", test_still_scene_has_no_hands_and_still_cards);
    CU_add_test(s, "arm_found_with_leading_point", test_arm_found_with_leading_point);
    CU_add_test(s, "shadow_alone_is_not_a_hand", test_shadow_alone_is_not_a_hand);
    CU_add_test(s, "lighting_change_is_not_motion", test_lighting_change_is_not_motion);
    CU_add_test(s, "swept_card_is_followed_out_of_the_field", test_swept_card_is_followed_out_of_the_field);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
