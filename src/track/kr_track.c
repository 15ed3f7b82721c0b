/* kr_track.c - warps frames to a mat-space image, keeps an adaptive background, and
 * from it finds each player's arm, its leading point, shadows, and card motion.
 * SPDX-License-Identifier: MIT */
#include "kr_track.h"

#include "kr_track_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kr_track_config_default(kr_track_config *cfg)
{
    cfg->mm_per_px = 3.0;
    cfg->margin_x_mm = 90.0;
    cfg->margin_y_mm = 150.0;
    cfg->bg_rate = 0.03;
    cfg->warmup_frames = 3;
    cfg->chroma_thresh = 0.11;
    cfg->chroma_join = 0.07;
    cfg->bright_hi = 1.30;
    cfg->shadow_lo = 0.35;
    cfg->shadow_hi = 0.86;
    cfg->min_hand_area_mm2 = 250.0;
    cfg->card_change_frac = 0.30;
    cfg->bilinear = 0;
}

static void set_err(kr_track_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->err, sizeof t->err, fmt, ap);
    va_end(ap);
}

const char *kr_track_last_error(const kr_track_t *t) { return t ? t->err : "no tracker"; }

void kr_track_mm_to_mat(const kr_track_t *t, double x_mm, double y_mm, double *u, double *v)
{
    kr_track_mm_to_mat_(t, x_mm, y_mm, u, v);
}

int kr_track_fit_due(const kr_track_t *t)
{
    /* (update: frames is counted up before the cards start at frames >= warmup_frames) */
    return t && !t->cards_ready && t->n_cards > 0 && t->frames + 1 >= t->cfg.warmup_frames;
}

void kr_track_mat_to_mm(const kr_track_t *t, double u, double v, double *x_mm, double *y_mm)
{
    *x_mm = t->x0_mm + u * t->cfg.mm_per_px;
    *y_mm = t->y0_mm - v * t->cfg.mm_per_px;
}

void kr_track_frame_size(int w, int h, int *out_w, int *out_h)
{
    int half = w >= 1200;
    *out_w = half ? (w / 2) & ~1 : w;
    *out_h = half ? (h / 2) & ~1 : h;
}

/* Writes a zero on every 4 KiB of buf's n bytes (their pages mapped now, not on first use). */
static void touch_pages(void *buf, size_t n)
{
    volatile uint8_t *p = buf;
    for (size_t k = 0; k < n; k += 4096)
        p[k] = 0;
}

kr_status kr_track_create(const kr_track_config *cfg, kr_track_map_fn map, void *map_ctx,
                          int frame_w, int frame_h, kr_track_t **out)
{
    kr_status s = KR_ERR_NOMEM;
    *out = NULL;
    if (!cfg || !map || frame_w < 2 || frame_h < 2 || frame_w > 32767 || frame_h > 32767 || cfg->mm_per_px < 0.5 || cfg->mm_per_px > 16)
        return KR_ERR_INVALID;
    kr_track_t *t = calloc(1, sizeof *t);
    if (!t)
        return KR_ERR_NOMEM;
    t->cfg = *cfg;
    t->attached_t[0] = t->attached_t[1] = INT64_MIN;
    t->fw = frame_w;
    t->fh = frame_h;
    double half_w = KR_TRACK_FIELD_HALF_W_MM + cfg->margin_x_mm;
    double half_h = KR_TRACK_FIELD_HALF_H_MM + cfg->margin_y_mm;
    t->w = (int)ceil(2 * half_w / cfg->mm_per_px);
    t->h = (int)ceil(2 * half_h / cfg->mm_per_px);
    t->x0_mm = -half_w;
    t->y0_mm = half_h;
    t->n = t->w * t->h;
    size_t n = (size_t)t->n;
    t->lut_off = malloc(n * sizeof *t->lut_off);
    t->lut_w = malloc(n * 4 * sizeof *t->lut_w);
    t->camxy = malloc(n * 2 * sizeof *t->camxy);
    t->mat = calloc(n * 3, 1);
    t->raw = malloc(n);
    t->rowfg = calloc((size_t)t->h, 1);
    t->learned = calloc(n, 1);
    t->yuv_prev = malloc(n * 3);
    t->prev = calloc(n * 3, 1);
    t->bg = malloc(n * 3 * sizeof *t->bg);
    t->cls = malloc(n);
    t->still = calloc(n, sizeof *t->still);
    t->label = malloc(n * sizeof *t->label);
    t->parent = malloc((n + 2) * sizeof *t->parent);
    t->comp = malloc(KR_TRACK_MAX_COMPS * sizeof *t->comp);
    t->zone = malloc(n);
    t->fpmask = calloc(n, 1);
    t->hmap = calloc(2 * n, 1);
    t->sleeve = calloc(n, 1);
    t->sleeve_q = malloc(n * sizeof *t->sleeve_q);
    t->row_gain = malloc((size_t)frame_h * sizeof *t->row_gain);
    t->row_band = malloc((size_t)frame_h);
    t->ovl = NULL;
    t->yuv_key = -1;
    t->yuv_prev_key = -1;
    t->light_step_q = 4096;
    t->fscale = 1.0; /* until two frames are seen */
    if (!t->lut_off || !t->lut_w || !t->camxy || !t->mat || !t->raw || !t->rowfg || !t->learned || !t->yuv_prev || !t->prev || !t->bg || !t->cls || !t->still ||
        !t->label || !t->parent || !t->comp || !t->zone || !t->fpmask || !t->hmap || !t->sleeve || !t->sleeve_q ||
        !t->row_gain || !t->row_band)
        goto fail;
    for (int y = 0; y < frame_h; y++) /* (a division per row once, not per pixel and frame) */
        t->row_band[y] = (uint8_t)(y * KR_TRACK_LIGHT_BANDS / frame_h);
    /* every per-frame buffer touched once now (a zero written on each of its pages:
     * volatile, which the compiler may not drop as it drops a memset of calloc'd memory;
     * every buffer is zero there already or written before it is read): the first frames
     * would otherwise take their page faults, about 500 (10-35 ms on a loaded machine),
     * and live's next frames queue behind them; here they are taken before it plays */
    touch_pages(t->mat, n * 3);
    touch_pages(t->prev, n * 3);
    touch_pages(t->raw, n);
    touch_pages(t->learned, n);
    touch_pages(t->yuv_prev, n * 3);
    touch_pages(t->bg, n * 3 * sizeof *t->bg);
    touch_pages(t->cls, n);
    touch_pages(t->still, n * sizeof *t->still);
    touch_pages(t->label, n * sizeof *t->label);
    touch_pages(t->parent, (n + 2) * sizeof *t->parent);
    touch_pages(t->fpmask, n);
    touch_pages(t->hmap, 2 * n);
    /* Gather table: for every mat pixel centre, the camera pixel it comes from, as the
     * offset of the top-left neighbour and four bilinear weights summing to 256. */
    for (int v = 0; v < t->h; v++)
        for (int u = 0; u < t->w; u++) {
            size_t i = (size_t)v * t->w + u;
            double xm, ym, px, py;
            kr_track_mat_to_mm(t, u + 0.5, v + 0.5, &xm, &ym);
            t->zone[i] = 0;
            if (ym < -KR_TRACK_FIELD_HALF_H_MM + 8)
                t->zone[i] = 1; /* A's entry band: behind (or on) A's edge */
            else if (ym > KR_TRACK_FIELD_HALF_H_MM - 8)
                t->zone[i] = 2;
            if (map(map_ctx, xm, ym, &px, &py) != 0 || !(px >= 0 && py >= 0 &&
                                                          px <= frame_w - 1.001 && py <= frame_h - 1.001)) {
                t->lut_off[i] = -1;
                t->camxy[2 * i] = t->camxy[2 * i + 1] = -1.0f;
                continue;
            }
            t->camxy[2 * i] = (float)px;
            t->camxy[2 * i + 1] = (float)py;
            if (!cfg->bilinear) {
                px = floor(px + 0.5);
                py = floor(py + 0.5);
            }
            int x0 = (int)px, y0 = (int)py;
            double fx = px - x0, fy = py - y0;
            t->lut_off[i] = (int32_t)((y0 << 15) | x0); /* row and column: no division per frame */
            int w00 = (int)lround((1 - fx) * (1 - fy) * 256), w01 = (int)lround(fx * (1 - fy) * 256);
            int w10 = (int)lround((1 - fx) * fy * 256);
            int w11 = 256 - w00 - w01 - w10;
            t->lut_w[i * 4 + 0] = (uint16_t)w00;
            t->lut_w[i * 4 + 1] = (uint16_t)w01;
            t->lut_w[i * 4 + 2] = (uint16_t)w10;
            t->lut_w[i * 4 + 3] = (uint16_t)(w11 < 0 ? 0 : w11);
        }
    /* entry bands: the outermost 15 mm of warped, in-view mat behind each player's edge,
     * per column (the camera may not see the whole margin) */
    int band = (int)ceil(15.0 / cfg->mm_per_px);
    for (int u = 0; u < t->w; u++) {
        int vb = -1, vt = -1;
        for (int v = 0; v < t->h; v++)
            if (t->lut_off[(size_t)v * t->w + u] >= 0) {
                if (vt < 0)
                    vt = v;
                vb = v;
            }
        for (int v = 0; v < t->h; v++) {
            size_t i = (size_t)v * t->w + u;
            if (t->zone[i] == 1 && (vb < 0 || v < vb - band))
                t->zone[i] = 0;
            if (t->zone[i] == 2 && (vt < 0 || v > vt + band))
                t->zone[i] = 0;
        }
    }
    for (int i = 0; i < t->n; i++)
        t->n_zone_px += t->zone[i] != 0;
    t->zone_px = malloc((size_t)(t->n_zone_px > 0 ? t->n_zone_px : 1) * sizeof *t->zone_px);
    if (!t->zone_px)
        goto fail;
    for (int i = 0, j = 0; i < t->n; i++)
        if (t->zone[i])
            t->zone_px[j++] = i;
    /* the runs of one camera row (two passes: count, then fill) */
    for (int pass = 0; pass < 2; pass++) {
        int r = -1, last_row = -1;
        for (int i = 0; i < t->n; i++) {
            const int row = t->lut_off[i] < 0 ? -1 : t->lut_off[i] >> 15;
            if (row >= 0 && row != last_row) { /* (last_row -1: the pixel before out of view) */
                r++;
                if (pass) {
                    t->run_start[r] = i;
                    t->run_len[r] = 0;
                    t->run_row[r] = (uint16_t)row;
                }
            }
            if (row >= 0 && pass)
                t->run_len[r]++;
            last_row = row;
        }
        if (!pass) {
            t->n_runs = r + 1;
            const size_t nr = (size_t)(t->n_runs > 0 ? t->n_runs : 1);
            t->run_start = malloc(nr * sizeof *t->run_start);
            t->run_len = malloc(nr * sizeof *t->run_len);
            t->run_row = malloc(nr * sizeof *t->run_row);
            if (!t->run_start || !t->run_len || !t->run_row)
                goto fail;
        }
    }
    t->min_area_px = (int)(cfg->min_hand_area_mm2 / (cfg->mm_per_px * cfg->mm_per_px));
    if (t->min_area_px < 4)
        t->min_area_px = 4;
    *out = t;
    return KR_OK;
fail:
    kr_track_destroy(t);
    return s;
}

void kr_track_destroy(kr_track_t *t)
{
    if (!t)
        return;
    free(t->lut_off);
    free(t->row_gain);
    free(t->row_band);
    free(t->run_start);
    free(t->run_len);
    free(t->run_row);
    free(t->lut_w);
    free(t->camxy);
    free(t->mat);
    free(t->prev);
    free(t->raw);
    free(t->rowfg);
    free(t->learned);
    free(t->yuv_prev);
    free(t->bg);
    free(t->cls);
    free(t->still);
    free(t->label);
    free(t->parent);
    free(t->comp);
    free(t->zone);
    free(t->fpmask);
    free(t->hmap);
    free(t->sleeve);
    free(t->sleeve_q);
    free(t->zone_px);
    free(t->ovl);
    for (int i = 0; i < t->n_cards; i++) {
        free(t->cs[i].fp);
        free(t->cs[i].tmpl);
    }
    free(t);
}

/* Rebuilds a card's footprint (mat pixels well inside its outline) at centre (x, y). */
static void card_footprint(kr_track_t *t, kr_track_cstate *c, double x, double y)
{
    double m = t->cfg.mm_per_px * 0.9 + 1.5; /* stay clear of edges: pose error, blur */
    double hx = KR_TRACK_CARD_W_MM / 2 - m, hy = KR_TRACK_CARD_H_MM / 2 - m;
    double u0, v0, u1, v1;
    kr_track_mm_to_mat(t, x - hx, y + hy, &u0, &v0);
    kr_track_mm_to_mat(t, x + hx, y - hy, &u1, &v1);
    int iu0 = (int)ceil(u0 - 0.5), iu1 = (int)floor(u1 - 0.5);
    int iv0 = (int)ceil(v0 - 0.5), iv1 = (int)floor(v1 - 0.5);
    c->n_fp = 0;
    for (int v = iv0; v <= iv1; v++)
        for (int u = iu0; u <= iu1; u++) {
            if (u < 0 || v < 0 || u >= t->w || v >= t->h || c->n_fp >= c->cap_fp)
                continue;
            c->fp[c->n_fp++] = v * t->w + u;
        }
    c->fp_x = x;
    c->fp_y = y;
}

kr_status kr_track_set_layout(kr_track_t *t, const kr_track_card_init *cards, int n)
{
    if (!t || n < 0 || n > KR_TRACK_MAX_CARDS || (n > 0 && !cards))
        return KR_ERR_INVALID;
    for (int i = 0; i < t->n_cards; i++) {
        free(t->cs[i].fp);
        free(t->cs[i].tmpl);
        t->cs[i].fp = NULL;
        t->cs[i].tmpl = NULL;
    }
    t->n_cards = 0;
    double a = (KR_TRACK_CARD_W_MM + 2 * t->cfg.mm_per_px) * (KR_TRACK_CARD_H_MM + 2 * t->cfg.mm_per_px) /
               (t->cfg.mm_per_px * t->cfg.mm_per_px);
    int cap = (int)(a * 1.2) + 16;
    for (int i = 0; i < n; i++) {
        kr_track_cstate *c = &t->cs[i];
        memset(c, 0, sizeof *c);
        c->fp = malloc((size_t)cap * sizeof *c->fp);
        c->tmpl = malloc((size_t)cap * 3);
        if (!c->fp || !c->tmpl) {
            free(c->fp);
            free(c->tmpl);
            set_err(t, "out of memory for card footprints");
            return KR_ERR_NOMEM;
        }
        c->cap_fp = cap;
        t->n_cards = i + 1;
        kr_track_card *o = &t->cards[i];
        memset(o, 0, sizeof *o);
        o->id = cards[i].id;
        o->owner = cards[i].owner;
        o->x_mm = o->rest_x_mm = cards[i].x_mm;
        o->y_mm = o->rest_y_mm = cards[i].y_mm;
        o->visible = 1;
        kr_track_card_outline_(o);
        card_footprint(t, c, o->x_mm, o->y_mm);
    }
    t->cards_ready = 0;
    return KR_OK;
}

kr_status kr_track_mat_view(const kr_track_t *t, kr_image_t *bgr, kr_image_t *cls)
{
    if (!t)
        return KR_ERR_INVALID;
    if (bgr)
        *bgr = (kr_image_t){t->w, t->h, t->w * 3, 3, t->mat};
    if (cls)
        *cls = (kr_image_t){t->w, t->h, t->w, 1, t->cls};
    return KR_OK;
}
