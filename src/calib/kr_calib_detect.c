/* kr_calib_detect.c - card outlines in a still frame (coarse quads from kr_cv, then
 * sub-pixel edges fitted here), calibration from a frame, and the check overlay.
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_calib_internal.h"
#include "kr_cv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES 1024

/* Bilinear grey value at (x, y); -1 outside the image. */
static double sample(const kr_image_t *g, double x, double y)
{
    if (!(x >= 0 && y >= 0 && x <= g->w - 1.001 && y <= g->h - 1.001))
        return -1;
    int ix = (int)x, iy = (int)y;
    double fx = x - ix, fy = y - iy;
    const uint8_t *p = g->px + (size_t)iy * (size_t)g->stride + ix;
    double a = p[0] + fx * (p[1] - p[0]);
    double b = p[g->stride] + fx * (p[g->stride + 1] - p[g->stride]);
    return a + fy * (b - a);
}

/* Total-least-squares line through pts (n x 2) as a x + b y + c = 0 with a^2+b^2 = 1.
 * Points with |distance| > reject (if > 0) are dropped and the line refitted. */
static int fit_line(double *pts, int n, double reject, double line[3])
{
    for (int pass = 0; pass < 3; pass++) {
        if (n < 4)
            return -1;
        double mx = 0, my = 0;
        for (int i = 0; i < n; i++) {
            mx += pts[2 * i];
            my += pts[2 * i + 1];
        }
        mx /= n;
        my /= n;
        double sxx = 0, sxy = 0, syy = 0;
        for (int i = 0; i < n; i++) {
            double dx = pts[2 * i] - mx, dy = pts[2 * i + 1] - my;
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
        /* normal = eigenvector of the smaller eigenvalue */
        double th = 0.5 * atan2(2 * sxy, sxx - syy); /* direction of the line */
        line[0] = -sin(th);
        line[1] = cos(th);
        line[2] = -(line[0] * mx + line[1] * my);
        if (reject <= 0 || pass == 2)
            return 0;
        int k = 0;
        for (int i = 0; i < n; i++) {
            double d = line[0] * pts[2 * i] + line[1] * pts[2 * i + 1] + line[2];
            if (fabs(d) <= reject) {
                pts[2 * k] = pts[2 * i];
                pts[2 * k + 1] = pts[2 * i + 1];
                k++;
            }
        }
        if (k == n)
            return 0;
        n = k;
    }
    return 0;
}

/* One pass: for each side, edge points along the outward normal at the strongest
 * bright-to-dark step (parabolic sub-sample peak), a robust line, corners at the
 * intersections of neighbouring lines. */
static int refine_pass(const kr_image_t *g, double q[8], double R)
{
    double mx = (q[0] + q[2] + q[4] + q[6]) / 4, my = (q[1] + q[3] + q[5] + q[7]) / 4;
    double lines[4][3];
    double pts[2 * 64];
    enum { NPROF = 41 };
    double prof[NPROF], der[NPROF];
    const double step = 0.5;
    int half = (int)(R / step);
    if (half > (NPROF - 3) / 2)
        half = (NPROF - 3) / 2;
    for (int k = 0; k < 4; k++) {
        double x0 = q[2 * k], y0 = q[2 * k + 1];
        double x1 = q[2 * ((k + 1) % 4)], y1 = q[2 * ((k + 1) % 4) + 1];
        double len = hypot(x1 - x0, y1 - y0);
        if (len < 8)
            return -1;
        double tx = (x1 - x0) / len, ty = (y1 - y0) / len;
        double nx = ty, ny = -tx;
        if (nx * ((x0 + x1) / 2 - mx) + ny * ((y0 + y1) / 2 - my) < 0) {
            nx = -nx;
            ny = -ny;
        }
        int ns = (int)(len / 3);
        ns = ns < 8 ? 8 : ns > 64 ? 64 : ns;
        int m = 0;
        for (int i = 0; i < ns; i++) {
            double f = 0.12 + 0.76 * i / (ns - 1);
            double bx = x0 + f * (x1 - x0), by = y0 + f * (y1 - y0);
            int ok = 1;
            for (int s = -half - 1; s <= half + 1; s++) {
                double v = sample(g, bx + s * step * nx, by + s * step * ny);
                if (v < 0) {
                    ok = 0;
                    break;
                }
                prof[s + half + 1] = v;
            }
            if (!ok)
                continue;
            int np = 2 * half + 3, best = -1;
            double bestd = 0;
            for (int s = 1; s < np - 1; s++) {
                der[s] = prof[s - 1] - prof[s + 1]; /* > 0: darker outward */
                if (der[s] > bestd) {
                    bestd = der[s];
                    best = s;
                }
            }
            if (best < 2 || best > np - 3 || bestd < 6.0)
                continue;
            double dm = der[best - 1], d0 = der[best], dp = der[best + 1];
            double den = dm - 2 * d0 + dp;
            double off = den < 0 ? 0.5 * (dm - dp) / den : 0;
            double s = (best - half - 1 + off) * step;
            pts[2 * m] = bx + s * nx;
            pts[2 * m + 1] = by + s * ny;
            m++;
        }
        if (m < ns / 2 || fit_line(pts, m, 0.8, lines[k]))
            return -1;
    }
    double nq[8];
    for (int k = 0; k < 4; k++) {
        const double *a = lines[(k + 3) % 4], *b = lines[k];
        double det = a[0] * b[1] - a[1] * b[0];
        if (fabs(det) < 0.2)
            return -1; /* sides nearly parallel: not a quad */
        nq[2 * k] = (a[1] * b[2] - b[1] * a[2]) / det;
        nq[2 * k + 1] = (b[0] * a[2] - a[0] * b[2]) / det;
        if (hypot(nq[2 * k] - q[2 * k], nq[2 * k + 1] - q[2 * k + 1]) > 3 * R + 2)
            return -1;
    }
    memcpy(q, nq, sizeof nq);
    return 0;
}

int kr_calib_refine_quad(const kr_image_t *grey, double q[8])
{
    double t[8];
    memcpy(t, q, sizeof t);
    double side = 0;
    for (int k = 0; k < 4; k++)
        side += hypot(t[2 * ((k + 1) % 4)] - t[2 * k], t[2 * ((k + 1) % 4) + 1] - t[2 * k + 1]) / 4;
    double R = fmin(8.0, fmax(3.0, 0.06 * side));
    if (refine_pass(grey, t, R) || refine_pass(grey, t, 2.5))
        return -1;
    memcpy(q, t, sizeof t);
    return 0;
}

static void quad_params(const kr_calib_config *cfg, int w, int h, kr_cv_quad_params *p)
{
    double m = w > h ? w : h;
    double lmin = cfg->min_card_frac * m, lmax = cfg->max_card_frac * m;
    p->block_px = (int)(m / 8) | 1;
    p->offset = cfg->thresh_offset;
    p->min_area_px = 0.5 * lmin * lmin / 1.4;
    p->max_area_px = lmax * lmax / 1.4;
    p->min_aspect = 1.1;
    p->max_aspect = 1.9;
    p->max_strip_aspect = 14.0;
    p->min_fill = 0.8;
}

static kr_status detect_grey(const kr_calib_config *cfg, const kr_image_t *grey, double *quads,
                             int max, int *n)
{
    kr_cv_quad_params p;
    int nc = 0;
    *n = 0;
    double *cand = malloc(sizeof(double) * 8 * MAX_CANDIDATES);
    if (!cand)
        return KR_ERR_NOMEM;
    quad_params(cfg, grey->w, grey->h, &p);
    kr_status st = kr_cv_calib_find_quads(grey, &p, cand, MAX_CANDIDATES, &nc);
    if (st != KR_OK) {
        kr_calib_set_error("card detection: %s", kr_cv_last_error());
        free(cand);
        return st;
    }
    for (int i = 0; i < nc && *n < max; i++) {
        double *q = cand + 8 * i;
        if (kr_calib_refine_quad(grey, q))
            continue;
        memcpy(quads + 8 * *n, q, sizeof(double) * 8);
        (*n)++;
    }
    free(cand);
    return KR_OK;
}

static kr_status make_grey(const kr_image_t *img, kr_image_t *grey, uint8_t **buf)
{
    *buf = NULL;
    if (!img || !img->px || img->w < 16 || img->h < 16 ||
        (img->channels != 1 && img->channels != 3)) {
        kr_calib_set_error("calibration: unreadable frame (empty or unsupported pixel format)");
        return KR_ERR_INVALID;
    }
    *buf = malloc((size_t)img->w * (size_t)img->h);
    if (!*buf)
        return KR_ERR_NOMEM;
    grey->w = img->w;
    grey->h = img->h;
    grey->stride = img->w;
    grey->channels = 1;
    grey->px = *buf;
    kr_status st = kr_cv_calib_grey(img, grey);
    if (st != KR_OK) {
        kr_calib_set_error("calibration: %s", kr_cv_last_error());
        free(*buf);
        *buf = NULL;
    }
    return st;
}

kr_status kr_calib_detect_cards(const kr_calib_config *cfg_in, const kr_image_t *img,
                                double *quads, int max, int *n)
{
    kr_calib_config cfg;
    kr_image_t grey;
    uint8_t *buf;
    if (cfg_in)
        cfg = *cfg_in;
    else
        kr_calib_config_default(&cfg);
    if (!quads || !n || max < 0)
        return KR_ERR_INVALID;
    *n = 0;
    kr_status st = make_grey(img, &grey, &buf);
    if (st != KR_OK)
        return st;
    st = detect_grey(&cfg, &grey, quads, max, n);
    free(buf);
    return st;
}

kr_status kr_calib_create_from_frame(const kr_calib_config *cfg_in, const kr_image_t *img,
                                     int64_t t_us, kr_calib_t **out)
{
    kr_calib_config cfg;
    kr_image_t grey;
    uint8_t *buf = NULL;
    double *quads = NULL;
    int n = 0;
    kr_status st;
    *out = NULL;
    if (cfg_in)
        cfg = *cfg_in;
    else
        kr_calib_config_default(&cfg);
    if ((st = make_grey(img, &grey, &buf)) != KR_OK)
        return st;
    /* a blank frame (black, grey, lens cap) has almost no contrast anywhere */
    double s = 0, s2 = 0;
    long cnt = 0;
    for (int y = 0; y < grey.h; y += 4)
        for (int x = 0; x < grey.w; x += 4) {
            double v = grey.px[(size_t)y * (size_t)grey.stride + x];
            s += v;
            s2 += v * v;
            cnt++;
        }
    double mean = s / cnt, sd = sqrt(fmax(0, s2 / cnt - mean * mean));
    if (sd < 3.0) {
        kr_calib_set_error("blank frame: uniform grey level %.0f (contrast %.1f), no mat visible",
                           mean, sd);
        st = KR_ERR_INVALID;
        goto fail;
    }
    quads = malloc(sizeof(double) * 8 * KR_CALIB_MAX_CARDS);
    if (!quads) {
        st = KR_ERR_NOMEM;
        goto fail;
    }
    if ((st = detect_grey(&cfg, &grey, quads, KR_CALIB_MAX_CARDS, &n)) != KR_OK)
        goto fail;
    st = kr_calib_fit_cards(&cfg, img->w, img->h, quads, n, t_us, out);
fail:
    free(quads);
    free(buf);
    return st;
}

/* ---- overlay --------------------------------------------------------------- */

/* Polyline of the mat segment (x0,y0)-(x1,y1) through the camera (curved by the lens). */
static void draw_mm_line(const kr_calib_t *c, kr_image_t *img, double x0, double y0, double x1,
                         double y1, const uint8_t col[3], int th)
{
    double xy[2 * 33];
    int m = 0;
    for (int i = 0; i <= 32; i++) {
        double t = i / 32.0;
        if (!kr_calib_mm_to_px(c, x0 + t * (x1 - x0), y0 + t * (y1 - y0), &xy[2 * m], &xy[2 * m + 1]))
            m++;
    }
    if (m >= 2)
        kr_cv_calib_polyline(img, xy, m, 0, col, th);
}

static void draw_mm_rect(const kr_calib_t *c, kr_image_t *img, double xa, double ya, double xb,
                         double yb, const uint8_t col[3], int th)
{
    draw_mm_line(c, img, xa, ya, xb, ya, col, th);
    draw_mm_line(c, img, xb, ya, xb, yb, col, th);
    draw_mm_line(c, img, xb, yb, xa, yb, col, th);
    draw_mm_line(c, img, xa, yb, xa, ya, col, th);
}

kr_status kr_calib_draw_overlay(const kr_calib_t *c, kr_image_t *img)
{
    static const uint8_t red[3] = {40, 40, 255}, cyan[3] = {255, 255, 0}, green[3] = {0, 230, 0},
                         magenta[3] = {255, 0, 255}, white[3] = {255, 255, 255},
                         yellow[3] = {0, 230, 255};
    if (!c || !img || !img->px || img->channels != 3 || img->w != c->img_w || img->h != c->img_h)
        return KR_ERR_INVALID;
    int th = img->w >= 1280 ? 2 : 1;
    /* rows (thin) inside each territory, then the competition lines (thick) */
    static const double rows[6][2] = {{-254, -181}, {-171, -98}, {-88, -15},
                                      {15, 88}, {98, 171}, {181, 254}};
    for (int r = 0; r < 6; r++)
        draw_mm_rect(c, img, -435, rows[r][0], 435, rows[r][1], cyan, 1);
    draw_mm_line(c, img, -435, 0, 435, 0, yellow, 1);
    draw_mm_rect(c, img, -435, -254, 435, -15, red, th + 1);
    draw_mm_rect(c, img, -435, 15, 435, 254, red, th + 1);
    for (int i = 0; i < c->n_cards; i++) {
        const kr_calib_card_t *k = &c->cards[i];
        double xy[8];
        for (int j = 0; j < 4; j++) {
            xy[2 * j] = k->px[j][0];
            xy[2 * j + 1] = k->px[j][1];
        }
        kr_cv_calib_polyline(img, xy, 4, 1, green, th);
        for (int j = 0; j < 4; j++)
            draw_mm_line(c, img, k->mm[j][0], k->mm[j][1], k->mm[(j + 1) % 4][0],
                         k->mm[(j + 1) % 4][1], magenta, 1);
    }
    double px, py, scale = img->w / 1280.0 + 0.2;
    if (!kr_calib_mm_to_px(c, 0, -134.5, &px, &py))
        kr_cv_calib_text(img, px - 12 * scale, py + 12 * scale, "A", 1.5 * scale, white);
    if (!kr_calib_mm_to_px(c, 0, 134.5, &px, &py))
        kr_cv_calib_text(img, px - 12 * scale, py + 12 * scale, "B", 1.5 * scale, white);
    char line[256];
    snprintf(line, sizeof line, "cards %d/%d  rms %.2f mm  worst %.2f mm  k1 %.3f k2 %.3f  %s%s",
             c->n_cards, c->n_found, c->rms_mm, c->worst_mm, c->dist[0], c->dist[1],
             c->ok ? "OK" : "POOR: ", c->reason);
    kr_cv_calib_text(img, 10, 24 * scale, line, 0.6 * scale, c->ok ? white : red);
    return KR_OK;
}
