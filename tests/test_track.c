/* test_track.c - the tracker on frames drawn here: textured mat, light cards, a
 * skin-coloured arm with a shadow, a lighting change and a card that slides away.
 * SPDX-License-Identifier: MIT */
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
