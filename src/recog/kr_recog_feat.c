/* kr_recog_feat.c - canonical card patches (homography sampling) and their ink-map
 * features: contrast-normalised ink, averaged in 2 mm cells, smoothed, zero-mean unit-norm.
 * SPDX-License-Identifier: MIT                                                        */
#include "kr_recog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Solves the 8x8 system A x = b in place (Gaussian elimination, partial pivoting).
 * Returns 0 on success, -1 when singular. */
static int solve8(double a[8][9], double x[8])
{
    for (int c = 0; c < 8; c++) {
        int piv = c;
        for (int r = c + 1; r < 8; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (fabs(a[piv][c]) < 1e-12)
            return -1;
        if (piv != c)
            for (int k = 0; k < 9; k++) {
                double t = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = t;
            }
        for (int r = c + 1; r < 8; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 9; k++)
                a[r][k] -= f * a[c][k];
        }
    }
    for (int r = 7; r >= 0; r--) {
        double s = a[r][8];
        for (int k = r + 1; k < 8; k++)
            s -= a[r][k] * x[k];
        x[r] = s / a[r][r];
    }
    return 0;
}

/* Homography H (h[8] = 1) with H * (u, v, 1) ~ (x, y, 1) for the 4 correspondences
 * src[i] -> dst[i]: the standard 8-unknown linear system
 *   x = (h0 u + h1 v + h2) / (h6 u + h7 v + 1),  y = (h3 u + h4 v + h5) / (h6 u + h7 v + 1). */
static int homography4(const double src[4][2], const double dst[4][2], double h[9])
{
    double a[8][9];
    for (int i = 0; i < 4; i++) {
        double u = src[i][0], v = src[i][1], x = dst[i][0], y = dst[i][1];
        double r0[9] = {u, v, 1, 0, 0, 0, -u * x, -v * x, x};
        double r1[9] = {0, 0, 0, u, v, 1, -u * y, -v * y, y};
        memcpy(a[2 * i], r0, sizeof r0);
        memcpy(a[2 * i + 1], r1, sizeof r1);
    }
    if (solve8(a, h))
        return -1;
    h[8] = 1.0;
    return 0;
}

static double grey_at(const kr_image_t *img, int x, int y)
{
    const uint8_t *p = img->px + (size_t)y * (size_t)img->stride + (size_t)x * (size_t)img->channels;
    if (img->channels == 1)
        return p[0];
    return (29.0 * p[0] + 150.0 * p[1] + 77.0 * p[2]) / 256.0;
}

kr_status kr_recog_extract(const kr_image_t *frame, const double corners_px[4][2], uint8_t *patch)
{
    if (!frame || !frame->px || !corners_px || !patch || frame->w < 2 || frame->h < 2 ||
        (frame->channels != 1 && frame->channels != 3))
        return KR_ERR_INVALID;
    const double src[4][2] = {{0, 0},
                              {KR_RECOG_PATCH_W, 0},
                              {KR_RECOG_PATCH_W, KR_RECOG_PATCH_H},
                              {0, KR_RECOG_PATCH_H}};
    double h[9];
    if (homography4(src, corners_px, h))
        return KR_ERR_INVALID;
    for (int v = 0; v < KR_RECOG_PATCH_H; v++) {
        for (int u = 0; u < KR_RECOG_PATCH_W; u++) {
            double uu = u + 0.5, vv = v + 0.5;
            double w = h[6] * uu + h[7] * vv + h[8];
            double x = (h[0] * uu + h[1] * vv + h[2]) / w - 0.5;
            double y = (h[3] * uu + h[4] * vv + h[5]) / w - 0.5;
            double val = 0;
            if (x >= 0 && y >= 0 && x <= frame->w - 1 && y <= frame->h - 1) {
                int x0 = (int)x, y0 = (int)y;
                int x1 = x0 + 1 < frame->w ? x0 + 1 : x0, y1 = y0 + 1 < frame->h ? y0 + 1 : y0;
                double fx = x - x0, fy = y - y0;
                val = (1 - fy) * ((1 - fx) * grey_at(frame, x0, y0) + fx * grey_at(frame, x1, y0)) +
                      fy * ((1 - fx) * grey_at(frame, x0, y1) + fx * grey_at(frame, x1, y1));
            }
            patch[v * KR_RECOG_PATCH_W + u] = (uint8_t)(val + 0.5);
        }
    }
    return KR_OK;
}

enum {
    X0 = KR_RECOG_MARGIN_MM * KR_RECOG_PX_PER_MM, /* face crop origin in px */
    Y0 = X0,
    RW = KR_RECOG_PATCH_W - 2 * X0, /* face crop size in px */
    RH = KR_RECOG_PATCH_H - 2 * Y0
};

/* Sum of ink over the fractional rectangle [x0, x1) x [y0, y1) (crop px), from the
 * integral image ii ((RH + 1) x (RW + 1)) interpolated bilinearly. */
static double rect_sum(const double *ii, double x0, double y0, double x1, double y1)
{
#define II(x, y) ii[(size_t)(y) * (RW + 1) + (size_t)(x)]
    double c[2][2], xs[2] = {x0, x1}, ys[2] = {y0, y1};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            double x = xs[b] < 0 ? 0 : xs[b] > RW ? RW : xs[b];
            double y = ys[a] < 0 ? 0 : ys[a] > RH ? RH : ys[a];
            int    xi = (int)x, yi = (int)y;
            int    xj = xi < RW ? xi + 1 : xi, yj = yi < RH ? yi + 1 : yi;
            double fx = x - xi, fy = y - yi;
            c[a][b] = (1 - fy) * ((1 - fx) * II(xi, yi) + fx * II(xj, yi)) +
                      fy * ((1 - fx) * II(xi, yj) + fx * II(xj, yj));
        }
#undef II
    return c[1][1] - c[1][0] - c[0][1] + c[0][0];
}

/* Position where the cumulative sum of prof[lo..hi) reaches share q of its total. */
static double mass_at(const double *prof, int lo, int hi, double total, double q)
{
    double acc = 0, want = q * total;
    for (int i = lo; i < hi; i++) {
        if (acc + prof[i] >= want && prof[i] > 0)
            return i + (want - acc) / prof[i];
        acc += prof[i];
    }
    return hi;
}

/* The columns2 feature of one ink map (RH x RW): split at the ink gap nearest the
 * middle, each column's ink extent (1 .. 99 % of its ink mass) resampled to
 * KR_RECOG_COL_W x KR_RECOG_FEAT_H cells, smoothed, zero-mean unit-norm. */
static void columns_feature(const float *ink, double *ii, float *v)
{
    double px[RW], py[RH];
    memset(px, 0, sizeof px);
    for (int y = 0; y < RH; y++)
        for (int x = 0; x < RW; x++)
            px[x] += ink[y * RW + x];
    for (int y = 0; y <= RH; y++)
        for (int x = 0; x <= RW; x++)
            ii[(size_t)y * (RW + 1) + x] =
                (x && y) ? ink[(y - 1) * RW + x - 1] + ii[(size_t)(y - 1) * (RW + 1) + x] +
                               ii[(size_t)y * (RW + 1) + x - 1] - ii[(size_t)(y - 1) * (RW + 1) + x - 1]
                         : 0;
    /* Split: least ink (profile smoothed over 5 px) in the middle 40 % of the face. */
    int    split = RW / 2;
    double best = 1e300;
    for (int x = RW * 3 / 10; x < RW * 7 / 10; x++) {
        double s = 0;
        for (int k = -2; k <= 2; k++)
            s += px[x + k];
        /* prefer the middle a little among equally empty gaps */
        s += 1e-3 * (x - RW / 2) * (x - RW / 2);
        if (s < best) {
            best = s;
            split = x;
        }
    }
    float cells[KR_RECOG_FEAT_N];
    memset(cells, 0, sizeof cells);
    for (int col = 0; col < 2; col++) {
        int    xa = col ? split : 0, xb = col ? RW : split;
        double mx = 0;
        for (int x = xa; x < xb; x++)
            mx += px[x];
        if (mx < 1.0) /* (nearly) empty column */
            continue;
        memset(py, 0, sizeof py);
        for (int y = 0; y < RH; y++)
            for (int x = xa; x < xb; x++)
                py[y] += ink[y * RW + x];
        double x0 = mass_at(px, xa, xb, mx, 0.01), x1 = mass_at(px, xa, xb, mx, 0.99) + 1;
        double y0 = mass_at(py, 0, RH, mx, 0.01), y1 = mass_at(py, 0, RH, mx, 0.99) + 1;
        double cw = (x1 - x0) / KR_RECOG_COL_W, ch = (y1 - y0) / KR_RECOG_FEAT_H;
        if (cw <= 0 || ch <= 0)
            continue;
        for (int cy = 0; cy < KR_RECOG_FEAT_H; cy++)
            for (int cx = 0; cx < KR_RECOG_COL_W; cx++) {
                double sx = x0 + cx * cw, sy = y0 + cy * ch;
                cells[cy * KR_RECOG_FEAT_W + col * KR_RECOG_COL_W + cx] =
                    (float)(rect_sum(ii, sx, sy, sx + cw, sy + ch) / (cw * ch));
            }
    }
    /* Separable [1 2 1] / 4 smoothing within each column (edges clamped). */
    float tmp[KR_RECOG_FEAT_N];
    for (int y = 0; y < KR_RECOG_FEAT_H; y++)
        for (int x = 0; x < KR_RECOG_FEAT_W; x++) {
            int c0 = x < KR_RECOG_COL_W ? 0 : KR_RECOG_COL_W, c1 = c0 + KR_RECOG_COL_W - 1;
            int xl = x > c0 ? x - 1 : x, xr = x < c1 ? x + 1 : x;
            const float *r = cells + y * KR_RECOG_FEAT_W;
            tmp[y * KR_RECOG_FEAT_W + x] = 0.25f * r[xl] + 0.5f * r[x] + 0.25f * r[xr];
        }
    double mean = 0;
    for (int y = 0; y < KR_RECOG_FEAT_H; y++)
        for (int x = 0; x < KR_RECOG_FEAT_W; x++) {
            int   yu = y > 0 ? y - 1 : y, yd = y + 1 < KR_RECOG_FEAT_H ? y + 1 : y;
            float f = 0.25f * tmp[yu * KR_RECOG_FEAT_W + x] + 0.5f * tmp[y * KR_RECOG_FEAT_W + x] +
                      0.25f * tmp[yd * KR_RECOG_FEAT_W + x];
            v[y * KR_RECOG_FEAT_W + x] = f;
            mean += f;
        }
    mean /= KR_RECOG_FEAT_N;
    double norm = 0;
    for (int i = 0; i < KR_RECOG_FEAT_N; i++) {
        v[i] -= (float)mean;
        norm += (double)v[i] * v[i];
    }
    norm = sqrt(norm);
    for (int i = 0; i < KR_RECOG_FEAT_N; i++)
        v[i] = norm > 1e-9 ? (float)(v[i] / norm) : 0.f;
}

kr_status kr_recog_features(const uint8_t *patch, kr_recog_feat *out)
{
    if (!patch || !out)
        return KR_ERR_INVALID;
    memset(out, 0, sizeof *out);
    float *buf = malloc(sizeof(float) * RW * RH * 3);
    double *ii = malloc(sizeof(double) * (RW + 1) * (RH + 1));
    if (!buf || !ii) {
        free(buf);
        free(ii);
        return KR_ERR_NOMEM;
    }
    float *sm = buf, *ink = buf + RW * RH, *ink180 = buf + 2 * RW * RH;
    /* The face crop smoothed 3x3 (sensor noise), and its paper and ink levels: paper
     * is the median (text covers far less than half), ink the 2nd percentile. */
    unsigned hist[256] = {0};
    for (int y = 0; y < RH; y++)
        for (int x = 0; x < RW; x++) {
            int sum = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    sum += patch[(Y0 + y + dy) * KR_RECOG_PATCH_W + X0 + x + dx];
            sm[y * RW + x] = sum / 9.0f;
            hist[(sum + 4) / 9]++;
        }
    unsigned total = (unsigned)(RW * RH), acc = 0;
    int      p_dark = -1, p_paper = -1;
    for (int g = 0; g < 256; g++) {
        acc += hist[g];
        if (p_dark < 0 && acc >= total / 50)
            p_dark = g;
        if (p_paper < 0 && acc >= total / 2)
            p_paper = g;
    }
    double paper = p_paper, contrast = p_paper - p_dark;
    out->contrast = (float)contrast;
    if (contrast < 4) { /* flat: nothing printed */
        free(buf);
        free(ii);
        return KR_OK;
    }
    unsigned inked = 0;
    /* Ink: 0 at paper, 1 at the dark percentile, with the lowest 25 % (paper grain,
     * noise, shading) cut off. */
    for (int i = 0; i < RW * RH; i++) {
        double v = (paper - sm[i]) / contrast;
        v = (v - 0.25) / 0.75;
        v = v < 0 ? 0 : v > 1 ? 1 : v;
        ink[i] = (float)v;
        inked += v > 0.5;
    }
    out->ink = (float)inked / (float)total;
    /* A crop row or column inked over most of its length is a card edge or border
     * caught by an inexact outline, not text: clear it. */
    for (int x = 0; x < RW; x++) {
        int n = 0;
        for (int y = 0; y < RH; y++)
            n += ink[y * RW + x] > 0.5f;
        if (n > RH / 2)
            for (int y = 0; y < RH; y++)
                ink[y * RW + x] = 0;
    }
    for (int y = 0; y < RH; y++) {
        int n = 0;
        for (int x = 0; x < RW; x++)
            n += ink[y * RW + x] > 0.5f;
        if (n > RW / 2)
            for (int x = 0; x < RW; x++)
                ink[y * RW + x] = 0;
    }
    for (int i = 0; i < RW * RH; i++)
        ink180[i] = ink[RW * RH - 1 - i];
    columns_feature(ink, ii, out->v);
    columns_feature(ink180, ii, out->v180);
    free(buf);
    free(ii);
    return KR_OK;
}
