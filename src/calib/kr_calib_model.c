/* kr_calib_model.c - the camera model: lens distortion, homography, point mapping,
 * configuration defaults and the module's error text.
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_calib_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char calib_error[320];

const char *kr_calib_error(void) { return calib_error; }

void kr_calib_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kr_error_setv(calib_error, sizeof calib_error, KR_OK, fmt, ap);
    va_end(ap);
}

void kr_calib_config_default(kr_calib_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->min_cards = 12;
    cfg->poor_cards = 20;
    cfg->poor_rms_mm = 1.5;
    cfg->row_jitter_mm = 1.0;
    cfg->card_rot_deg = 1.0;
    cfg->focal_px = 0.0;
    cfg->fit_k2 = 1;
    cfg->a_side = KR_CALIB_A_BOTTOM;
    cfg->allow_cutoff = 0;
    cfg->thresh_offset = 8.0;
    cfg->min_card_frac = 0.02;
    cfg->max_card_frac = 0.25;
    cfg->intrinsics_known = 0;
}

static const char *const side_names[] = {"bottom", "top", "left", "right"};

const char *kr_calib_a_side_str(kr_calib_a_side s)
{
    return (unsigned)s < 4 ? side_names[s] : "bottom";
}

int kr_calib_a_side_parse(const char *s, kr_calib_a_side *out)
{
    for (int i = 0; i < 4; i++)
        if (s && !strcmp(s, side_names[i])) {
            *out = (kr_calib_a_side)i;
            return 0;
        }
    return -1;
}

kr_calib_t *kr_calib_alloc(void)
{
    kr_calib_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->t_us = -1;
    c->ok = 1;
    c->H[0] = c->H[4] = c->H[8] = 1.0;
    c->Hinv[0] = c->Hinv[4] = c->Hinv[8] = 1.0;
    return c;
}

void kr_calib_destroy(kr_calib_t *c) { free(c); }

/* ---- 3x3 matrices ------------------------------------------------------- */
void kr_calib_mat3_mul(const double a[9], const double b[9], double out[9])
{
    double t[9];
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            t[r * 3 + k] = a[r * 3] * b[k] + a[r * 3 + 1] * b[3 + k] + a[r * 3 + 2] * b[6 + k];
    memcpy(out, t, sizeof t);
}

int kr_calib_mat3_inv(const double m[9], double out[9])
{
    double c0 = m[4] * m[8] - m[5] * m[7];
    double c1 = m[5] * m[6] - m[3] * m[8];
    double c2 = m[3] * m[7] - m[4] * m[6];
    double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    double scale = fabs(m[0]) + fabs(m[1]) + fabs(m[2]) + fabs(m[3]) + fabs(m[4]) +
                   fabs(m[5]) + fabs(m[6]) + fabs(m[7]) + fabs(m[8]);
    if (!(fabs(det) > 1e-300) || !(fabs(det) > 1e-14 * scale * scale * scale))
        return -1;
    double t[9] = {c0, m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                   c1, m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                   c2, m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]};
    for (int i = 0; i < 9; i++)
        out[i] = t[i] / det;
    return 0;
}

/* ---- lens ----------------------------------------------------------------
 * OpenCV's model on normalised coordinates x = (u - cx) / fx, y = (v - cy) / fy:
 *   r2 = x^2 + y^2,  R = 1 + k1 r2 + k2 r2^2 + k3 r2^3
 *   xd = x R + 2 p1 x y + p2 (r2 + 2 x^2),  yd = y R + p1 (r2 + 2 y^2) + 2 p2 x y
 * Raw px = (fx xd + cx, fy yd + cy). */
void kr_calib_lens_apply(const double d[5], double x, double y, double *xd, double *yd)
{
    double r2 = x * x + y * y;
    double R = 1.0 + r2 * (d[0] + r2 * (d[1] + r2 * d[4]));
    *xd = x * R + 2.0 * d[2] * x * y + d[3] * (r2 + 2.0 * x * x);
    *yd = y * R + d[2] * (r2 + 2.0 * y * y) + 2.0 * d[3] * x * y;
}

/* Newton on the 2x2 system; the Jacobian is analytic (see the model above). */
int kr_calib_lens_invert(const double d[5], double xd, double yd, double *xo, double *yo)
{
    double x = xd, y = yd;
    for (int it = 0; it < 30; it++) {
        double r2 = x * x + y * y;
        double R = 1.0 + r2 * (d[0] + r2 * (d[1] + r2 * d[4]));
        double dR = d[0] + r2 * (2.0 * d[1] + 3.0 * r2 * d[4]); /* dR / d(r2) */
        double fx = x * R + 2.0 * d[2] * x * y + d[3] * (r2 + 2.0 * x * x) - xd;
        double fy = y * R + d[2] * (r2 + 2.0 * y * y) + 2.0 * d[3] * x * y - yd;
        double a = R + 2.0 * x * x * dR + 2.0 * d[2] * y + 6.0 * d[3] * x;
        double b = 2.0 * x * y * dR + 2.0 * d[2] * x + 2.0 * d[3] * y;
        double c = 2.0 * x * y * dR + 2.0 * d[2] * x + 2.0 * d[3] * y;
        double e = R + 2.0 * y * y * dR + 6.0 * d[2] * y + 2.0 * d[3] * x;
        double det = a * e - b * c;
        if (!(det > 1e-9))
            return -1; /* the lens folds here: no unique inverse */
        double dx = (e * fx - b * fy) / det, dy = (a * fy - c * fx) / det;
        x -= dx;
        y -= dy;
        if (!isfinite(x) || !isfinite(y))
            return -1;
        if (fabs(dx) + fabs(dy) < 1e-13) {
            *xo = x;
            *yo = y;
            return 0;
        }
    }
    double cx, cy;
    kr_calib_lens_apply(d, x, y, &cx, &cy);
    if (fabs(cx - xd) + fabs(cy - yd) > 1e-9)
        return -1;
    *xo = x;
    *yo = y;
    return 0;
}

/* The radial map r -> r R(r) must be increasing up to the point, or the point folds. */
static int lens_unfolded(const double d[5], double x, double y)
{
    double r2 = x * x + y * y;
    double R = 1.0 + r2 * (d[0] + r2 * (d[1] + r2 * d[4]));
    double dR = d[0] + r2 * (2.0 * d[1] + 3.0 * r2 * d[4]);
    return R + 2.0 * r2 * dR > 0.05;
}

void kr_calib_distort(const kr_calib_t *c, double ux, double uy, double *px, double *py)
{
    double xd, yd;
    kr_calib_lens_apply(c->dist, (ux - c->cx) / c->fx, (uy - c->cy) / c->fy, &xd, &yd);
    *px = c->fx * xd + c->cx;
    *py = c->fy * yd + c->cy;
}

int kr_calib_undistort(const kr_calib_t *c, double px, double py, double *ux, double *uy)
{
    double x, y;
    if (kr_calib_lens_invert(c->dist, (px - c->cx) / c->fx, (py - c->cy) / c->fy, &x, &y))
        return -1;
    *ux = c->fx * x + c->cx;
    *uy = c->fy * y + c->cy;
    return 0;
}

int kr_calib_mm_to_px(const kr_calib_t *c, double x_mm, double y_mm, double *px, double *py)
{
    const double *H = c->H;
    double w = H[6] * x_mm + H[7] * y_mm + H[8];
    if (!(w > 1e-12))
        return -1;
    double u = (H[0] * x_mm + H[1] * y_mm + H[2]) / w;
    double v = (H[3] * x_mm + H[4] * y_mm + H[5]) / w;
    double x = (u - c->cx) / c->fx, y = (v - c->cy) / c->fy;
    if (!lens_unfolded(c->dist, x, y))
        return -1;
    kr_calib_distort(c, u, v, px, py);
    return 0;
}

int kr_calib_map_mm_to_px(void *calib, double x_mm, double y_mm, double *px, double *py)
{
    return kr_calib_mm_to_px((const kr_calib_t *)calib, x_mm, y_mm, px, py);
}

int kr_calib_px_to_mm(const kr_calib_t *c, double px, double py, double *x_mm, double *y_mm)
{
    double u, v;
    if (kr_calib_undistort(c, px, py, &u, &v))
        return -1;
    if (!lens_unfolded(c->dist, (u - c->cx) / c->fx, (v - c->cy) / c->fy))
        return -1;
    const double *G = c->Hinv;
    double w = G[6] * u + G[7] * v + G[8];
    if (fabs(w) < 1e-15)
        return -1;
    *x_mm = (G[0] * u + G[1] * v + G[2]) / w;
    *y_mm = (G[3] * u + G[4] * v + G[5]) / w;
    /* a pixel on the far side of the horizon has no mat point */
    const double *H = c->H;
    if (!(H[6] * *x_mm + H[7] * *y_mm + H[8] > 0))
        return -1;
    return 0;
}

int kr_calib_finish_model(kr_calib_t *c)
{
    if (!(fabs(c->H[8]) > 0))
        return -1;
    if (c->H[8] < 0) /* keep w > 0 in front of the camera */
        for (int i = 0; i < 9; i++)
            c->H[i] = -c->H[i];
    double s = c->H[8];
    for (int i = 0; i < 9; i++)
        c->H[i] /= s;
    if (kr_calib_mat3_inv(c->H, c->Hinv))
        return -1;
    /* mean scale: raw px distance of 100 mm steps across the field */
    double sum = 0;
    int n = 0;
    for (int i = -4; i <= 4; i++)
        for (int j = -2; j <= 2; j++) {
            double x = i * 100.0, y = j * 100.0, a0, a1, b0, b1, c0, c1;
            if (kr_calib_mm_to_px(c, x, y, &a0, &a1) || kr_calib_mm_to_px(c, x + 10, y, &b0, &b1) ||
                kr_calib_mm_to_px(c, x, y + 10, &c0, &c1))
                continue;
            sum += 0.05 * (hypot(b0 - a0, b1 - a1) + hypot(c0 - a0, c1 - a1));
            n++;
        }
    c->px_per_mm = n ? sum / n : 0.0;
    return 0;
}

kr_status kr_calib_create_from_model(int img_w, int img_h, double fx, double fy, double cx,
                                     double cy, const double dist[5], const double H[9],
                                     kr_calib_t **out)
{
    *out = NULL;
    if (img_w <= 0 || img_h <= 0 || !(fx > 0) || !(fy > 0) || !H) {
        kr_calib_set_error("calibration model: bad image size or intrinsics");
        return KR_ERR_INVALID;
    }
    kr_calib_t *c = kr_calib_alloc();
    if (!c)
        return KR_ERR_NOMEM;
    c->img_w = img_w;
    c->img_h = img_h;
    c->fx = fx;
    c->fy = fy;
    c->cx = cx;
    c->cy = cy;
    if (dist)
        memcpy(c->dist, dist, sizeof c->dist);
    memcpy(c->H, H, sizeof c->H);
    if (kr_calib_finish_model(c)) {
        kr_calib_set_error("calibration model: singular homography");
        free(c);
        return KR_ERR_INVALID;
    }
    *out = c;
    return KR_OK;
}

kr_status kr_calib_camera_pose(const kr_calib_t *c, kr_calib_camera *out)
{
    if (!c || !out || !(c->fx > 0) || !(c->fy > 0))
        return KR_ERR_INVALID;
    /* M = K^-1 H: its columns are r1, r2 and t (the mat origin in camera coordinates), all
     * scaled alike */
    double m[3][3];
    for (int j = 0; j < 3; j++) {
        const double u = c->H[j], v = c->H[3 + j], w = c->H[6 + j];
        m[0][j] = (u - c->cx * w) / c->fx;
        m[1][j] = (v - c->cy * w) / c->fy;
        m[2][j] = w;
    }
    const double n1 = sqrt(m[0][0] * m[0][0] + m[1][0] * m[1][0] + m[2][0] * m[2][0]);
    const double n2 = sqrt(m[0][1] * m[0][1] + m[1][1] * m[1][1] + m[2][1] * m[2][1]);
    if (!(n1 > 0) || !(n2 > 0) || !isfinite(n1 + n2))
        return KR_ERR_INVALID;
    double s = 2.0 / (n1 + n2);
    if (m[2][2] * s < 0)
        s = -s; /* the mat lies in front of the camera */
    double r1[3], r2[3], r3[3], t[3];
    for (int i = 0; i < 3; i++) {
        r1[i] = m[i][0] / n1 * (s > 0 ? 1 : -1);
        r2[i] = m[i][1] * s;
        t[i] = m[i][2] * s;
    }
    /* r2 made orthogonal to r1 and of unit length (Gram-Schmidt), r3 = r1 x r2 */
    const double d = r1[0] * r2[0] + r1[1] * r2[1] + r1[2] * r2[2];
    for (int i = 0; i < 3; i++)
        r2[i] -= d * r1[i];
    const double l2 = sqrt(r2[0] * r2[0] + r2[1] * r2[1] + r2[2] * r2[2]);
    if (!(l2 > 0.5))
        return KR_ERR_INVALID; /* r1 and r2 nearly parallel: no camera */
    for (int i = 0; i < 3; i++)
        r2[i] /= l2;
    r3[0] = r1[1] * r2[2] - r1[2] * r2[1];
    r3[1] = r1[2] * r2[0] - r1[0] * r2[2];
    r3[2] = r1[0] * r2[1] - r1[1] * r2[0];
    /* a mat point X is X_cam = R X + t in camera coordinates, R = [r1 r2 r3] (the mat's axes
     * seen from the camera): the centre is C = -R^T t, and the camera's axes in mat
     * coordinates are R's rows */
    const double cx = -(r1[0] * t[0] + r1[1] * t[1] + r1[2] * t[2]);
    const double cy = -(r2[0] * t[0] + r2[1] * t[1] + r2[2] * t[2]);
    const double cz = -(r3[0] * t[0] + r3[1] * t[1] + r3[2] * t[2]);
    if (!(cz > 0) || !isfinite(cx + cy + cz))
        return KR_ERR_INVALID; /* seen from below the mat (a mirrored image) */
    out->x_mm = cx;
    out->y_mm = cy;
    out->height_mm = cz;
    /* the optical axis in mat coordinates is R's third row (r1[2], r2[2], r3[2]) */
    out->tilt_deg = acos(fmax(-1.0, fmin(1.0, -r3[2]))) * 180.0 / KR_CALIB_PI;
    return KR_OK;
}
