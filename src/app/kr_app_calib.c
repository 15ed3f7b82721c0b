/* kr_app_calib.c - the calibration analyze and live make from a camera frame when none is
 * given, and which side of the picture player A sits on, told by the match's layout; the
 * rolling shutter's readout measured from the lights' flicker.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_calib.h"
#include "kr_core.h"
#include "kr_media.h"
#include "kr_rules.h"

#include <math.h>
#include <string.h>

#define ON_CARD_MM 5.0 /* a layout card's centre this far outside a seen outline still lies on it */

/* 1 when (x, y) mat mm lies on one of the card outlines the fit used (strips of cards laid
 * edge to edge are one wider outline). */
static int on_outline(const kr_calib_t *c, double x, double y)
{
    for (int i = 0; i < c->n_cards; i++) {
        const kr_calib_card_t *k = &c->cards[i];
        double a = k->rot_deg * 3.14159265358979323846 / 180.0, dx = x - k->x_mm, dy = y - k->y_mm;
        double lx = cos(a) * dx + sin(a) * dy, ly = -sin(a) * dx + cos(a) * dy;
        if (fabs(lx) <= k->w_mm / 2 + ON_CARD_MM && fabs(ly) <= KR_CALIB_CARD_H_MM / 2 + ON_CARD_MM)
            return 1;
    }
    return 0;
}

/* How many of the layout's placed cards lie on outlines seen through calibration c. */
static int layout_score(const kr_calib_t *c, const kr_rules_record *layout)
{
    int n = 0;
    for (int k = 0; k < layout->n_cards; k++)
        n += layout->cards[k].has_pos && on_outline(c, layout->cards[k].x_mm, layout->cards[k].y_mm);
    return n;
}

kr_status kr_app_calibrate(const kr_image_t *img, int64_t t_us, const kr_rules_record *layout, kr_calib_t **out)
{
    kr_calib_config cfg;
    kr_calib_config_default(&cfg);
    kr_calib_t *best = NULL;
    kr_status s = kr_calib_create_from_frame(&cfg, img, t_us, &best);
    if (s != KR_OK)
        return s;
    int placed = 0;
    for (int k = 0; layout && k < layout->n_cards; k++)
        placed += layout->cards[k].has_pos;
    int best_score = placed ? layout_score(best, layout) : 0;
    if (best_score < placed) {
        /* a camera turned half a turn (or a quarter) fits the field as well with A at the
         * bottom: only the layout tells the sides apart */
        static const kr_calib_a_side other[] = {KR_CALIB_A_TOP, KR_CALIB_A_LEFT, KR_CALIB_A_RIGHT};
        for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
            cfg.a_side = other[i];
            kr_calib_t *c = NULL;
            if (kr_calib_create_from_frame(&cfg, img, t_us, &c) != KR_OK)
                continue;
            int score = layout_score(c, layout);
            if (score > best_score) {
                kr_calib_destroy(best);
                best = c;
                best_score = score;
            } else {
                kr_calib_destroy(c);
            }
        }
        if (best->a_side != KR_CALIB_A_BOTTOM)
            kr_log(KR_LOG_INFO,
                   "calibrated with player A at the %s of the image: %d of the layout's %d cards lie on cards "
                   "seen that way, fewer with A at the bottom",
                   kr_calib_a_side_str(best->a_side), best_score, placed);
    }
    *out = best;
    return KR_OK;
}

#define FLICKER_FRAMES 48       /* frames fitted at most ... */
#define FLICKER_SPAN_US 2000000 /* ... within this span from the first */
#define FLICKER_PEEK 16         /* after this many, a fit explaining under FLICKER_PEEK_FIT of the */
#define FLICKER_PEEK_FIT 0.3    /* rows' variation ends the search: no bands (the usual case, cheap) */

kr_calib_flicker_t *kr_app_flicker_create(int w, int h)
{
    kr_calib_flicker_t *fl = NULL;
    return kr_calib_flicker_create(w, h, FLICKER_FRAMES, &fl) == KR_OK ? fl : NULL;
}

int kr_app_flicker_feed(kr_calib_flicker_t *fl, int64_t *t0, const kr_image_t *img, int64_t t_us, kr_calib_readout *ro)
{
    memset(ro, 0, sizeof *ro);
    if (*t0 == INT64_MIN)
        *t0 = t_us;
    int more = t_us - *t0 <= FLICKER_SPAN_US && kr_calib_flicker_add(fl, img, t_us) == KR_OK;
    int n = kr_calib_flicker_count(fl);
    if (more && n == FLICKER_PEEK && (kr_calib_flicker_fit(fl, ro) != KR_OK || ro->fit < FLICKER_PEEK_FIT)) {
        ro->found = 0; /* no bands (the usual case): stop here, cheaply */
        more = 0;
    } else if (!more || n >= FLICKER_FRAMES) {
        kr_calib_flicker_fit(fl, ro);
        more = 0;
    }
    if (!more)
        KR_DEBUG("flicker: %d frames, fit %.3f amplitude %.4f at %.0f Hz, readout %lld us%s", n, ro->fit,
                 ro->amplitude, ro->flicker_hz, (long long)ro->readout_us, ro->found ? "" : " (not found)");
    return more;
}

void kr_app_readout_from_flicker(kr_media_reader_t *rd, const kr_frame_t *first, kr_calib_readout *ro)
{
    kr_media_info_t info;
    kr_media_reader_info(rd, &info);
    memset(ro, 0, sizeof *ro);
    kr_calib_flicker_t *fl = kr_app_flicker_create(info.w, info.h);
    if (!fl)
        return;
    int64_t t0 = INT64_MIN;
    int more = first ? kr_app_flicker_feed(fl, &t0, &first->img, first->t_us, ro) : 1;
    kr_frame_t f;
    while (more && kr_media_reader_next(rd, &f) == KR_OK)
        more = kr_app_flicker_feed(fl, &t0, &f.img, f.t_us, ro);
    if (more) /* the video ended first */
        kr_calib_flicker_fit(fl, ro);
    kr_calib_flicker_destroy(fl);
}
