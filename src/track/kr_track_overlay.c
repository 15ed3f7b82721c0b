/* kr_track_overlay.c - debug picture of the tracker's view: the warped mat image with
 * classes tinted, card outlines and ids, arms, leading points and competition lines.
 * SPDX-License-Identifier: MIT */
#include "kr_track.h"

#include "kr_cv.h"
#include "kr_track_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void mm_poly(const kr_track_t *t, int scale, const double (*mm)[2], int n, double *xy)
{
    for (int k = 0; k < n; k++) {
        double u, v;
        kr_track_mm_to_mat(t, mm[k][0], mm[k][1], &u, &v);
        xy[2 * k] = u * scale;
        xy[2 * k + 1] = v * scale;
    }
}

kr_status kr_track_draw_overlay(kr_track_t *t, const kr_track_frame *fr, int scale, kr_image_t *img)
{
    if (!t || !fr || !img || scale < 1 || scale > 8)
        return KR_ERR_INVALID;
    size_t need = (size_t)t->w * scale * t->h * scale * 3;
    if (need > t->ovl_cap) {
        uint8_t *p = realloc(t->ovl, need);
        if (!p)
            return KR_ERR_NOMEM;
        t->ovl = p;
        t->ovl_cap = need;
    }
    kr_image_t small = {t->w, t->h, t->w * 3, 3, t->mat};
    kr_image_t big = {t->w * scale, t->h * scale, t->w * scale * 3, 3, t->ovl};
    kr_status s = kr_cv_track_upscale(&small, &big, scale);
    if (s != KR_OK)
        return s;
    /* tint classes: A's arm blue, B's arm red, shadow dark violet, other fg yellow,
     * card-like green (a sleeve, no card evidence on this frame: grey), joining pixels of
     * an arm cyan */
    for (int v = 0; v < t->h; v++)
        for (int u = 0; u < t->w; u++) {
            uint8_t c = t->cls[v * t->w + u];
            int tb = 0, tg = 0, tr = 0;
            if (c == 6 && t->sleeve_ok && t->sleeve[v * t->w + u]) { tb = 90; tg = 90; tr = 90; }
            else if (c == 1) tb = 255;
            else if (c == 2) tr = 255;
            else if (c == 4) { tb = 120; tr = 60; }
            else if (c == 5 || c == 3) { tg = 220; tr = 220; }
            else if (c == 6) { tg = 255; }
            else if (c == 7) { tb = 220; tg = 220; }
            else continue;
            for (int y = 0; y < scale; y++)
                for (int x = 0; x < scale; x++) {
                    uint8_t *p = t->ovl + ((size_t)(v * scale + y) * big.w + (size_t)(u * scale + x)) * 3;
                    p[0] = (uint8_t)((p[0] + tb) / 2);
                    p[1] = (uint8_t)((p[1] + tg) / 2);
                    p[2] = (uint8_t)((p[2] + tr) / 2);
                }
        }
    double xy[16];
    /* competition lines: each territory's outline */
    const double terr[2][4][2] = {
        {{-435, -254}, {435, -254}, {435, -15}, {-435, -15}},
        {{-435, 15}, {435, 15}, {435, 254}, {-435, 254}}};
    for (int k = 0; k < 2; k++) {
        mm_poly(t, scale, terr[k], 4, xy);
        kr_cv_track_polyline(&big, xy, 4, 1, 255, 255, 255, 1);
    }
    for (int k = 0; k < fr->n_cards; k++) {
        const kr_track_card *c = &fr->cards[k];
        mm_poly(t, scale, (const double(*)[2])c->corners_mm, 4, xy);
        uint8_t r = c->moving ? 255 : 0, g = c->occluded ? 128 : 200, b = c->displaced ? 255 : 0;
        kr_cv_track_polyline(&big, xy, 4, 1, b, g, r, 1);
        char id[16];
        snprintf(id, sizeof id, "%d", c->id);
        kr_cv_track_text(&big, xy[6] + 2, xy[7] + 12, id, 0.35 * scale / 2.0, 0, 0, 160);
    }
    for (int p = 0; p < 2; p++) {
        const kr_track_hand *h = &fr->hands[p];
        if (!h->present)
            continue;
        double u, v, bu, bv;
        kr_track_mm_to_mat(t, h->lead_x_mm, h->lead_y_mm, &u, &v);
        kr_track_mm_to_mat(t, h->base_x_mm, h->base_y_mm, &bu, &bv);
        double seg[4] = {bu * scale, bv * scale, u * scale, v * scale};
        kr_cv_track_polyline(&big, seg, 2, 0, p ? 0 : 255, 255, p ? 255 : 0, 1);
        kr_cv_track_circle(&big, u * scale, v * scale, 3.0 * scale / 2.0, 0, 255, 255, -1);
        char txt[64];
        snprintf(txt, sizeof txt, "%c %.0f,%.0f v%.0f", p ? 'B' : 'A', h->lead_x_mm, h->lead_y_mm,
                 sqrt(h->vx_mm_s * h->vx_mm_s + h->vy_mm_s * h->vy_mm_s));
        kr_cv_track_text(&big, u * scale + 6, v * scale, txt, 0.35 * scale / 2.0, 0, 255, 255);
    }
    if (fr->hand_contact) {
        double u, v;
        kr_track_mm_to_mat(t, fr->contact_x_mm, fr->contact_y_mm, &u, &v);
        kr_cv_track_circle(&big, u * scale, v * scale, 6.0 * scale, 0, 0, 255, 2);
    }
    char txt[64];
    snprintf(txt, sizeof txt, "t=%.3f s  #%lld", fr->t_us / 1e6, (long long)fr->index);
    kr_cv_track_text(&big, 6, 16, txt, 0.5, 255, 255, 255);
    *img = big;
    return KR_OK;
}
