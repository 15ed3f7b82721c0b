/* eval_layout_patch.h - degraded card images for recognition tests and evaluation:
 * a rendered canonical patch re-imaged at another scale, turned, blurred and noised.
 * SPDX-License-Identifier: MIT                                                       */
#ifndef EVAL_LAYOUT_PATCH_H
#define EVAL_LAYOUT_PATCH_H
#include "kr_recog.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct kr_degrade {
    double px_per_mm;   /* camera resolution on the mat, px/mm (1.2 .. 3) */
    double angle_deg;   /* card rotation in the image */
    double jitter_mm;   /* error of each corner given to the extractor, mm (uniform +-) */
    double blur_px;     /* box blur radius in camera px (0 none) */
    double noise;       /* Gaussian noise sigma, grey levels */
    double gain, offset; /* grey' = gain * grey + offset */
    int    upside_down; /* 1: hand the extractor the corners turned 180 degrees */
} kr_degrade;

static double kr_degrade_rand(unsigned *seed) /* uniform 0..1 */
{
    *seed = *seed * 1103515245u + 12345u;
    return ((*seed >> 8) & 0xFFFFFF) / (double)0x1000000;
}

static double kr_degrade_gauss(unsigned *seed)
{
    double u = kr_degrade_rand(seed) + 1e-12, v = kr_degrade_rand(seed);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* Images patch (canonical, 2 px/mm) into a frame of fw x fh (caller buffer, grey) with
 * the card centred, then extracts it back with jittered corners into out. */
static kr_status kr_degrade_apply(const uint8_t *patch, const kr_degrade *d, unsigned *seed,
                                  uint8_t *frame, int fw, int fh, uint8_t *out)
{
    double a = d->angle_deg * 3.141592653589793 / 180, c = cos(a), s = sin(a);
    double cx = fw / 2.0, cy = fh / 2.0, k = d->px_per_mm;
    /* Frame px -> card mm (card frame: origin at card centre, x right, y down). */
    for (int y = 0; y < fh; y++)
        for (int x = 0; x < fw; x++) {
            double dx = (x + 0.5 - cx) / k, dy = (y + 0.5 - cy) / k;
            double mx = c * dx + s * dy, my = -s * dx + c * dy;
            double u = (mx + KR_RECOG_CARD_W_MM / 2) * KR_RECOG_PX_PER_MM - 0.5;
            double v = (my + KR_RECOG_CARD_H_MM / 2) * KR_RECOG_PX_PER_MM - 0.5;
            double val = 90; /* mat colour */
            if (u >= 0 && v >= 0 && u <= KR_RECOG_PATCH_W - 1 && v <= KR_RECOG_PATCH_H - 1) {
                int    u0 = (int)u, v0 = (int)v;
                int    u1 = u0 + 1 < KR_RECOG_PATCH_W ? u0 + 1 : u0;
                int    v1 = v0 + 1 < KR_RECOG_PATCH_H ? v0 + 1 : v0;
                double fu = u - u0, fv = v - v0;
                const uint8_t *p = patch;
                val = (1 - fv) * ((1 - fu) * p[v0 * KR_RECOG_PATCH_W + u0] + fu * p[v0 * KR_RECOG_PATCH_W + u1]) +
                      fv * ((1 - fu) * p[v1 * KR_RECOG_PATCH_W + u0] + fu * p[v1 * KR_RECOG_PATCH_W + u1]);
            }
            frame[y * fw + x] = (uint8_t)val;
        }
    int r = (int)(d->blur_px + 0.5);
    if (r > 0) {
        uint8_t *tmp = malloc((size_t)fw * fh);
        if (!tmp)
            return KR_ERR_NOMEM;
        for (int pass = 0; pass < 2; pass++) {
            memcpy(tmp, frame, (size_t)fw * fh);
            for (int y = 0; y < fh; y++)
                for (int x = 0; x < fw; x++) {
                    int sum = 0, n = 0;
                    for (int q = -r; q <= r; q++) {
                        int xx = pass ? x : x + q, yy = pass ? y + q : y;
                        if (xx < 0 || yy < 0 || xx >= fw || yy >= fh)
                            continue;
                        sum += tmp[yy * fw + xx];
                        n++;
                    }
                    frame[y * fw + x] = (uint8_t)(sum / n);
                }
        }
        free(tmp);
    }
    for (int i = 0; i < fw * fh; i++) {
        double v = d->gain * frame[i] + d->offset + d->noise * kr_degrade_gauss(seed);
        frame[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
    }
    /* Corners of the card (mm, upright TL TR BR BL) -> frame px, plus jitter. */
    const double cm[4][2] = {{-26, -36.5}, {26, -36.5}, {26, 36.5}, {-26, 36.5}};
    double       corners[4][2];
    for (int i = 0; i < 4; i++) {
        int    j = d->upside_down ? (i + 2) % 4 : i;
        double mx = cm[j][0] + d->jitter_mm * (2 * kr_degrade_rand(seed) - 1);
        double my = cm[j][1] + d->jitter_mm * (2 * kr_degrade_rand(seed) - 1);
        corners[i][0] = cx + k * (c * mx - s * my);
        corners[i][1] = cy + k * (s * mx + c * my);
    }
    kr_image_t img = {fw, fh, fw, 1, frame};
    return kr_recog_extract(&img, (const double(*)[2])corners, out);
}
#endif
