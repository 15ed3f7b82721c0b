/* kr_calib_warp.c - top-down mat image from camera frames: the lookup is built once
 * (mat pixel -> raw camera px through the calibration), each frame is one remap.
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_calib_internal.h"
#include "kr_cv.h"

#include <math.h>
#include <stdlib.h>

struct kr_calib_warp {
    int       w, h;       /* output size, px */
    int       src_w, src_h;
    int16_t  *xy;         /* owned: 2 * w * h */
    uint16_t *frac;       /* owned: w * h */
};

void kr_calib_warp_config_default(kr_calib_warp_config *cfg)
{
    cfg->px_per_mm = 1.0;
    cfg->x_min_mm = -KR_CALIB_FIELD_HALF_W_MM - 40;
    cfg->x_max_mm = KR_CALIB_FIELD_HALF_W_MM + 40;
    cfg->y_min_mm = -KR_CALIB_FIELD_HALF_H_MM - 40;
    cfg->y_max_mm = KR_CALIB_FIELD_HALF_H_MM + 40;
}

kr_status kr_calib_px_grid_to_mm(const kr_calib_t *c, int step, float *table, int grid_w,
                                 int grid_h)
{
    if (!c || !table || step < 1 || grid_w != (c->img_w + step - 1) / step ||
        grid_h != (c->img_h + step - 1) / step) {
        kr_calib_set_error("px grid: step %d needs a %dx%d table", step,
                           c ? (c->img_w + step - 1) / (step > 0 ? step : 1) : 0,
                           c ? (c->img_h + step - 1) / (step > 0 ? step : 1) : 0);
        return KR_ERR_INVALID;
    }
    for (int r = 0; r < grid_h; r++)
        for (int col = 0; col < grid_w; col++) {
            double x, y;
            float *o = table + 2 * ((size_t)r * (size_t)grid_w + (size_t)col);
            if (kr_calib_px_to_mm(c, (col + 0.5) * step - 0.5, (r + 0.5) * step - 0.5, &x, &y)) {
                o[0] = o[1] = NAN;
            } else {
                o[0] = (float)x;
                o[1] = (float)y;
            }
        }
    return KR_OK;
}

kr_status kr_calib_warp_create(const kr_calib_t *c, const kr_calib_warp_config *cfg_in,
                               kr_calib_warp_t **out)
{
    kr_calib_warp_config cfg;
    float *mx = NULL, *my = NULL;
    kr_status st = KR_ERR_NOMEM;
    *out = NULL;
    if (cfg_in)
        cfg = *cfg_in;
    else
        kr_calib_warp_config_default(&cfg);
    if (!c || !(cfg.px_per_mm >= 0.05 && cfg.px_per_mm <= 8) || !(cfg.x_max_mm > cfg.x_min_mm) ||
        !(cfg.y_max_mm > cfg.y_min_mm)) {
        kr_calib_set_error("warp: bad resolution or area");
        return KR_ERR_INVALID;
    }
    double fw = (cfg.x_max_mm - cfg.x_min_mm) * cfg.px_per_mm;
    double fh = (cfg.y_max_mm - cfg.y_min_mm) * cfg.px_per_mm;
    if (fw < 1 || fh < 1 || fw * fh > 64e6) {
        kr_calib_set_error("warp: output of %.0fx%.0f px is empty or too large", fw, fh);
        return KR_ERR_INVALID;
    }
    kr_calib_warp_t *w = calloc(1, sizeof *w);
    if (!w)
        return KR_ERR_NOMEM;
    w->w = (int)ceil(fw - 1e-9);
    w->h = (int)ceil(fh - 1e-9);
    w->src_w = c->img_w;
    w->src_h = c->img_h;
    size_t n = (size_t)w->w * (size_t)w->h;
    w->xy = malloc(sizeof(int16_t) * 2 * n);
    w->frac = malloc(sizeof(uint16_t) * n);
    mx = malloc(sizeof(float) * n);
    my = malloc(sizeof(float) * n);
    if (!w->xy || !w->frac || !mx || !my)
        goto fail;
    for (int r = 0; r < w->h; r++)
        for (int col = 0; col < w->w; col++) {
            double x = cfg.x_min_mm + (col + 0.5) / cfg.px_per_mm;
            double y = cfg.y_max_mm - (r + 0.5) / cfg.px_per_mm;
            double px, py;
            size_t i = (size_t)r * (size_t)w->w + (size_t)col;
            if (kr_calib_mm_to_px(c, x, y, &px, &py) || fabs(px) > 30000 || fabs(py) > 30000) {
                px = -10;
                py = -10; /* outside: black */
            }
            mx[i] = (float)px;
            my[i] = (float)py;
        }
    if ((st = kr_cv_calib_remap_tables(mx, my, w->w, w->h, w->xy, w->frac)) != KR_OK) {
        kr_calib_set_error("warp: %s", kr_cv_last_error());
        goto fail;
    }
    free(mx);
    free(my);
    *out = w;
    return KR_OK;
fail:
    free(mx);
    free(my);
    kr_calib_warp_destroy(w);
    return st;
}

void kr_calib_warp_size(const kr_calib_warp_t *w, int *out_w, int *out_h)
{
    *out_w = w->w;
    *out_h = w->h;
}

kr_status kr_calib_warp_apply(const kr_calib_warp_t *w, const kr_image_t *src, kr_image_t *dst)
{
    if (!w || !src || !dst || !src->px || !dst->px || src->w != w->src_w || src->h != w->src_h ||
        dst->w != w->w || dst->h != w->h || dst->channels != src->channels)
        return KR_ERR_INVALID;
    return kr_cv_calib_remap(src, w->xy, w->frac, dst);
}

void kr_calib_warp_destroy(kr_calib_warp_t *w)
{
    if (!w)
        return;
    free(w->xy);
    free(w->frac);
    free(w);
}
