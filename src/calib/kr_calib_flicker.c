/* kr_calib_flicker.c - a rolling shutter's readout time measured from mains flicker: lamps
 * on mains power brighten and dim at twice its frequency (100 or 120 Hz); a camera reading
 * its rows one after another sees each row at another phase of it, so the picture carries
 * level bands whose count over the height is flicker_hz x readout, and which move from
 * frame to frame by flicker_hz x the frame interval. Both are fitted together over the
 * first frames; a global shutter (every row at once) shows the flicker as the whole
 * picture's level only, which the fit leaves out.
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_calib_internal.h" /* KR_CALIB_PI */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GRID_W 48         /* columns of the level grid */
#define GRID_H 96         /* rows of the level grid (fewer when the picture is lower) */
#define READOUT_STEP_US 100
#define DARK_LEVEL 12.0   /* grid cells darker than this (of 255) carry too little light */
#define FIT_MIN 0.5       /* the bands must explain this share of the rows' variation ... */
#define AMP_MIN 0.0015    /* ... and swing the level by this share at least */
#define HALF_AGREE_S 0.0003 /* each half's readout within this ... */
#define HALF_AGREE_SHARE 0.05 /* ... or this share of the whole's */

struct kr_calib_flicker {
    int      w, h, gh, max_n, n;
    float   *lvl;    /* max_n x GRID_W x gh cell levels, frame-major */
    int64_t *t_us;   /* max_n presentation times */
};

kr_status kr_calib_flicker_create(int img_w, int img_h, int max_frames, kr_calib_flicker_t **out)
{
    if (!out)
        return KR_ERR_INVALID;
    *out = NULL;
    if (img_w < GRID_W || img_h < 16 || max_frames < 8 || max_frames > 1024)
        return KR_ERR_INVALID;
    kr_calib_flicker_t *f = calloc(1, sizeof *f);
    if (!f)
        return KR_ERR_NOMEM;
    f->w = img_w;
    f->h = img_h;
    f->gh = img_h < GRID_H ? img_h : GRID_H;
    f->max_n = max_frames;
    f->lvl = malloc((size_t)max_frames * GRID_W * (size_t)f->gh * sizeof *f->lvl);
    f->t_us = malloc((size_t)max_frames * sizeof *f->t_us);
    if (!f->lvl || !f->t_us) {
        kr_calib_flicker_destroy(f);
        return KR_ERR_NOMEM;
    }
    *out = f;
    return KR_OK;
}

void kr_calib_flicker_destroy(kr_calib_flicker_t *f)
{
    if (!f)
        return;
    free(f->lvl);
    free(f->t_us);
    free(f);
}

int kr_calib_flicker_count(const kr_calib_flicker_t *f) { return f ? f->n : 0; }

kr_status kr_calib_flicker_add(kr_calib_flicker_t *f, const kr_image_t *img, int64_t t_us)
{
    if (!f || !img || !img->px || img->w != f->w || img->h != f->h || (img->channels != 1 && img->channels != 3))
        return KR_ERR_INVALID;
    if (f->n >= f->max_n)
        return KR_OK; /* enough */
    float *g = f->lvl + (size_t)f->n * GRID_W * f->gh;
    for (int gy = 0; gy < f->gh; gy++) {
        int y0 = (int)((int64_t)gy * f->h / f->gh), y1 = (int)((int64_t)(gy + 1) * f->h / f->gh);
        for (int gx = 0; gx < GRID_W; gx++) {
            int x0 = (int)((int64_t)gx * f->w / GRID_W), x1 = (int)((int64_t)(gx + 1) * f->w / GRID_W);
            /* every other pixel of every other row: a cell's level needs no more */
            uint64_t sum = 0, cnt = 0;
            for (int y = y0; y < y1; y += 2) {
                const uint8_t *p = img->px + (size_t)y * img->stride + (size_t)x0 * img->channels;
                if (img->channels == 1)
                    for (int x = x0; x < x1; x += 2, p += 2, cnt++)
                        sum += 4u * *p;
                else
                    for (int x = x0; x < x1; x += 2, p += 6, cnt++)
                        sum += p[0] + 2u * p[1] + p[2]; /* B + 2G + R: four times the grey level */
            }
            g[gy * GRID_W + gx] = cnt ? (float)((double)sum / (4.0 * (double)cnt)) : 0.0f;
        }
    }
    f->t_us[f->n++] = t_us;
    return KR_OK;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The fitted bands' share of the rows' variation for one flicker frequency and readout:
 * per frame and grid row, r = the row's level relative to its usual one, less the frame's
 * mean over rows; the model a sin(theta) + b cos(theta), theta = 2 pi hz (t + (v - 1/2)
 * readout), v the row's height share, its regressors likewise less their frame means. */
static double fit_share(const double *r, const unsigned char *ok, const double *t_s, int n, int gh, double hz,
                        double readout_s, double total, double *scratch, double *amp)
{
    double ss = 0, sc = 0, cc = 0, sr = 0, cr = 0;
    double *s = scratch, *c = scratch + gh; /* 2 gh */
    for (int k = 0; k < n; k++) {
        double ms = 0, mc = 0;
        int m = 0;
        /* theta steps by d from row to row: rotate (cos, sin) instead of calling sin, cos */
        const double w = 2 * KR_CALIB_PI * hz;
        double th0 = w * (t_s[k] + (0.5 / gh - 0.5) * readout_s), d = w * readout_s / gh;
        double cs = cos(th0), sn = sin(th0), cd = cos(d), sd = sin(d);
        for (int y = 0; y < gh; y++) {
            s[y] = sn;
            c[y] = cs;
            double nc = cs * cd - sn * sd;
            sn = sn * cd + cs * sd;
            cs = nc;
            if (!ok[(size_t)k * gh + y])
                continue;
            ms += s[y];
            mc += c[y];
            m++;
        }
        if (m < 2)
            continue;
        ms /= m;
        mc /= m;
        for (int y = 0; y < gh; y++) {
            if (!ok[(size_t)k * gh + y])
                continue;
            double a = s[y] - ms, b = c[y] - mc, x = r[(size_t)k * gh + y];
            ss += a * a;
            sc += a * b;
            cc += b * b;
            sr += a * x;
            cr += b * x;
        }
    }
    double det = ss * cc - sc * sc;
    if (!(det > 1e-9 * (ss * cc + 1e-30)) || !(total > 0)) {
        *amp = 0;
        return 0;
    }
    double a = (cc * sr - sc * cr) / det, b = (ss * cr - sc * sr) / det;
    *amp = hypot(a, b);
    return (a * sr + b * cr) / total;
}

/* The best (flicker_hz, readout) over n frames' row levels r (from fit_share); readouts up
 * to steps x READOUT_STEP_US. */
typedef struct band_fit { double share, amp, hz, readout_s; } band_fit;
static band_fit best_fit(const double *r, const unsigned char *ok, const double *t_s, int n, int gh, int steps,
                         double *scratch)
{
    static const double hzs[2] = {100, 120};
    band_fit b = {0, 0, 0, 0};
    double total = 0;
    for (size_t i = 0; i < (size_t)n * gh; i++)
        if (ok[i])
            total += r[i] * r[i];
    for (int h = 0; h < 2; h++)
        for (int i = 1; i <= steps; i++) {
            double amp, ro = i * READOUT_STEP_US / 1e6;
            double share = fit_share(r, ok, t_s, n, gh, hzs[h], ro, total, scratch, &amp);
            if (share > b.share)
                b = (band_fit){share, amp, hzs[h], ro};
        }
    return b;
}

kr_status kr_calib_flicker_fit(const kr_calib_flicker_t *f, kr_calib_readout *out)
{
    if (!f || !out)
        return KR_ERR_INVALID;
    memset(out, 0, sizeof *out);
    const int n = f->n, gh = f->gh, cells = GRID_W * gh;
    if (n < 8)
        return KR_OK; /* too few frames: not found */
    float  *ref = malloc((size_t)cells * sizeof *ref), *col = malloc((size_t)n * sizeof *col);
    float  *row = malloc(GRID_W * sizeof *row);
    double *r = malloc((size_t)n * gh * sizeof *r), *t_s = malloc((size_t)n * sizeof *t_s);
    double *scratch = malloc((size_t)gh * 2 * sizeof *scratch);
    unsigned char *ok = malloc((size_t)n * gh);
    kr_status st = KR_ERR_NOMEM;
    if (!ref || !col || !row || !r || !t_s || !ok || !scratch)
        goto done;
    /* each cell's usual level: its median over the frames (what a band passing over leaves) */
    for (int i = 0; i < cells; i++) {
        for (int k = 0; k < n; k++)
            col[k] = f->lvl[(size_t)k * cells + i];
        qsort(col, (size_t)n, sizeof *col, cmp_float);
        ref[i] = col[n / 2];
    }
    /* each grid row's level relative to its usual one: the median over its lit cells (a hand
     * or a shadow passing covers a few), less the frame's mean over rows (the whole
     * picture's level: a global shutter's flicker, the exposure's drift) */
    for (int k = 0; k < n; k++) {
        double mean = 0;
        int m = 0;
        for (int y = 0; y < gh; y++) {
            int nc = 0;
            for (int x = 0; x < GRID_W; x++) {
                float q = ref[y * GRID_W + x];
                if (q >= DARK_LEVEL)
                    row[nc++] = f->lvl[(size_t)k * cells + y * GRID_W + x] / q - 1.0f;
            }
            ok[(size_t)k * gh + y] = nc >= GRID_W / 4;
            if (!ok[(size_t)k * gh + y])
                continue;
            qsort(row, (size_t)nc, sizeof *row, cmp_float);
            r[(size_t)k * gh + y] = row[nc / 2];
            mean += row[nc / 2];
            m++;
        }
        if (m)
            mean /= m;
        for (int y = 0; y < gh; y++)
            r[(size_t)k * gh + y] = ok[(size_t)k * gh + y] ? r[(size_t)k * gh + y] - mean : 0;
        t_s[k] = (double)(f->t_us[k] - f->t_us[0]) / 1e6;
    }
    /* the frames' period (median interval): a readout takes at most one */
    for (int k = 1; k < n; k++)
        col[k - 1] = (float)(t_s[k] - t_s[k - 1]);
    qsort(col, (size_t)n - 1, sizeof *col, cmp_float);
    double period = col[(n - 1) / 2];
    if (!(period > 0)) {
        st = KR_OK;
        goto done;
    }
    int steps = (int)(period * 1e6 / READOUT_STEP_US);
    if (steps * (int64_t)READOUT_STEP_US > KR_CALIB_MAX_READOUT_US)
        steps = KR_CALIB_MAX_READOUT_US / READOUT_STEP_US;
    band_fit b = best_fit(r, ok, t_s, n, gh, steps, scratch);
    out->fit = b.share;
    out->amplitude = b.amp;
    out->flicker_hz = b.hz;
    out->readout_us = (int64_t)llround(b.readout_s * 1e6);
    out->found = b.share >= FIT_MIN && b.amp >= AMP_MIN;
    if (out->found) {
        /* real bands hold over time: each half of the frames alone must find them again (a
         * codec updating some rows of a flickering picture and not others can mimic a fit) */
        int h1 = n / 2;
        band_fit p = best_fit(r, ok, t_s, h1, gh, steps, scratch);
        band_fit q = best_fit(r + (size_t)h1 * gh, ok + (size_t)h1 * gh, t_s + h1, n - h1, gh, steps, scratch);
        double tol = fmax(HALF_AGREE_S, HALF_AGREE_SHARE * b.readout_s);
        out->found = p.hz == b.hz && q.hz == b.hz && fabs(p.readout_s - b.readout_s) <= tol &&
                     fabs(q.readout_s - b.readout_s) <= tol && p.share >= FIT_MIN && q.share >= FIT_MIN;
    }
    st = KR_OK;
done:
    free(ref);
    free(col);
    free(row);
    free(r);
    free(t_s);
    free(ok);
    free(scratch);
    return st;
}
