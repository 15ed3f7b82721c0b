/* kr_synth_render.c - the renderer: a mat-space canvas (tatami + resting cards, rebuilt
 * only when a card changes state), hands/arms/shadows/moving cards composited per frame
 * in their bounding boxes with motion blur, then the camera (remap through lens
 * distortion), vignetting, exposure flicker and sensor noise. With a rolling shutter
 * (look.readout) the image is made in bands of rows, each from the canvas at its own time.
 * SPDX-License-Identifier: MIT                                                        */
#include "kr_synth_internal.h"
#include "kr_cv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OBJ (KR_SYNTH_N_HANDS + 32) /* hands + moving cards drawn per frame */
#define MAX_ROI MAX_OBJ
#define MAX_SAMPLES 8
#define NOISE_PAD 65536

/* hot pixel loops: let GCC vectorise them even in debugoptimized builds */
#if defined(__GNUC__) && !defined(__clang__)
#define KR_HOT __attribute__((optimize("O3")))
#else
#define KR_HOT
#endif

typedef struct { int x0, y0, x1, y1; } rect; /* half-open */

typedef struct sprite {
    int w, h;           /* px */
    uint8_t *bgra;      /* owned */
} sprite;

struct kr_synth_render {
    double ppm;                 /* canvas px per mm */
    double x0, y1;              /* mm at canvas px (0, 0) corner: x left, y top */
    int cw, ch;                 /* canvas size */
    uint8_t *tatami;            /* cw*ch*3, owned */
    uint8_t *stat;              /* static canvas (tatami + resting cards) */
    uint8_t *work;              /* per-frame canvas */
    uint8_t *tmp;               /* sample buffer (canvas sized) */
    uint16_t *acc;              /* accumulator (canvas sized) */
    uint8_t *mask;              /* 1-channel shadow mask (canvas sized) */
    uint8_t *mask2;             /* 1-channel hand mask, sharp (canvas sized) */
    uint8_t *frame;             /* w*h*3 */
    uint16_t *vig;              /* w*h*3, Q12: vignetting x white balance */
    int8_t *noise;              /* w*h*3 + NOISE_PAD */
    kr_cv_synth_remap_t *remap;
    rect *rowbox;               /* per image row: the canvas px its remap reads */
    uint8_t border[3];
    double spp;                 /* sprite px per mm */
    sprite cards[101];
    int   sig[101];             /* static signature: segment index, -1 dynamic */
    bool  stat_valid;
    rect  dirty[MAX_ROI];
    int   n_dirty;
    double *poly_xy;            /* scratch polygon points */
    int   *poly_n;
};

/* ---- helpers ---- */

static inline double clampd(double v, double a, double b) { return v < a ? a : v > b ? b : v; }
static inline uint8_t u8(double v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5); }

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

static double hashf(int32_t a, int32_t b, uint32_t seed) /* [-1, 1] */
{
    uint32_t h = hash32((uint32_t)a * 73856093U ^ (uint32_t)b * 19349663U ^ seed * 83492791U);
    return (h & 0xFFFFFF) / (double)0x7FFFFF - 1.0;
}

static double value_noise(double x, double y, uint32_t seed)
{
    int xi = (int)floor(x), yi = (int)floor(y);
    double fx = x - xi, fy = y - yi;
    fx = fx * fx * (3 - 2 * fx);
    fy = fy * fy * (3 - 2 * fy);
    double a = hashf(xi, yi, seed), b = hashf(xi + 1, yi, seed);
    double c = hashf(xi, yi + 1, seed), d = hashf(xi + 1, yi + 1, seed);
    return (a + (b - a) * fx) * (1 - fy) + (c + (d - c) * fx) * fy;
}

static inline void canvas_of_mm(const kr_synth_render *r, double x, double y, double *X, double *Y)
{
    *X = (x - r->x0) * r->ppm - 0.5;
    *Y = (r->y1 - y) * r->ppm - 0.5;
}

/* ---- tatami ---- */

/* Woven rush: parallel stems (rounded profile, each its own shade), the binding warp
 * every ~14 mm alternating between neighbouring stems, slow colour drift, grain. */
static void make_tatami(kr_synth_t *s, kr_synth_render *r)
{
    const kr_synth_look *lk = &s->look;
    uint32_t seed = (uint32_t)(s->look_seed * 2654435761u);
    double ca = cos(lk->strand_angle), sa = sin(lk->strand_angle);
    double pitch = lk->strand_pitch, warp = 14.0;
    kr_synth_rng rng;
    kr_synth_rng_seed(&rng, s->look_seed, 5);
    for (int Y = 0; Y < r->ch; Y++) {
        double y = r->y1 - (Y + 0.5) / r->ppm;
        uint8_t *row = r->tatami + (size_t)Y * r->cw * 3;
        for (int X = 0; X < r->cw; X++) {
            double x = r->x0 + (X + 0.5) / r->ppm;
            double u = ca * x + sa * y, w = -sa * x + ca * y;
            double fw = w / pitch;
            int si = (int)floor(fw);
            fw -= si;
            double prof = 0.78 + 0.24 * sqrt(sin(KR_PI * fw));
            double fu = u / warp + (si & 1) * 0.5 + hashf(si, 7, seed) * 0.04;
            fu -= floor(fu);
            double dd = fu - 0.5;
            double weave = 0.95 + 0.05 * cos(2 * KR_PI * fu) - 0.16 * exp(-dd * dd / (2 * 0.035 * 0.035));
            double sv = hashf(si, 0, seed) * lk->tatami_var;
            double hue = hashf(si, 1, seed) * lk->tatami_var * 0.8;
            double low = value_noise(x / 70.0, y / 70.0, seed) * 0.045 + value_noise(x / 260.0, y / 260.0, seed + 1) * 0.05;
            double k = prof * weave * (1 + sv + low);
            double g = kr_synth_rng_gauss(&rng) * 3.0;
            row[3 * X + 0] = u8(lk->tatami_bgr[0] * k * (1 - hue) + g);
            row[3 * X + 1] = u8(lk->tatami_bgr[1] * k + g);
            row[3 * X + 2] = u8(lk->tatami_bgr[2] * k * (1 + hue * 0.5) + g);
        }
    }
    kr_image_t im = {r->cw, r->ch, r->cw * 3, 3, r->tatami};
    kr_cv_synth_blur(&im, 0.45);
    if (lk->bodies) {
        /* the kneeling players' laps just beyond the field's outer lines: a dark hakama
         * shape per player, soft-edged, a little lighter on the folds */
        for (int p = 0; p < 2; p++) {
            double sign = p == 0 ? -1.0 : 1.0, xy[2 * 48];
            int cnt = 48;
            for (int i = 0; i < cnt; i++) {
                double a = 2 * KR_PI * i / cnt;
                double x = 400 * cos(a), y = sign * (KR_FIELD_HALF_H + 95 + 210) + 210 * sin(a);
                canvas_of_mm(r, x, y, &xy[2 * i], &xy[2 * i + 1]);
            }
            double base[3];
            for (int c = 0; c < 3; c++)
                base[c] = s->players[p].sleeve[c] * 0.25 + 30;
            uint8_t col[3] = {u8(base[0]), u8(base[1]), u8(base[2])};
            kr_cv_synth_fill_polys(&im, xy, &cnt, 1, 0, 0, col);
            for (int f = -1; f <= 1; f += 2) { /* two folds */
                double fx[8];
                double y0 = sign * (KR_FIELD_HALF_H + 140), y1 = sign * (KR_FIELD_HALF_H + 400);
                canvas_of_mm(r, f * 120 - 12, y0, &fx[0], &fx[1]);
                canvas_of_mm(r, f * 120 + 12, y0, &fx[2], &fx[3]);
                canvas_of_mm(r, f * 170 + 12, y1, &fx[4], &fx[5]);
                canvas_of_mm(r, f * 170 - 12, y1, &fx[6], &fx[7]);
                int four = 4;
                uint8_t fc[3] = {u8(base[0] * 1.35), u8(base[1] * 1.35), u8(base[2] * 1.35)};
                kr_cv_synth_fill_polys(&im, fx, &four, 1, 0, 0, fc);
            }
        }
        kr_cv_synth_blur(&im, 1.2);
    }
    r->border[0] = u8(lk->tatami_bgr[0] * 0.9);
    r->border[1] = u8(lk->tatami_bgr[1] * 0.9);
    r->border[2] = u8(lk->tatami_bgr[2] * 0.9);
}

/* ---- card sprites ---- */

static kr_status make_card_sprite(kr_synth_t *s, kr_synth_render *r, kr_synth_font *font, int id,
                                  uint8_t *cov)
{
    sprite *sp = &r->cards[id];
    const double spp = r->spp, margin = 1.0;
    sp->w = (int)ceil((KR_CARD_W + 2 * margin) * spp);
    sp->h = (int)ceil((KR_CARD_H + 2 * margin) * spp);
    sp->bgra = malloc((size_t)sp->w * sp->h * 4);
    if (!sp->bgra)
        return KR_ERR_NOMEM;
    int tw = (int)ceil(KR_CARD_W * spp), th = (int)ceil(KR_CARD_H * spp);
    kr_status st = kr_synth_font_card(font, &s->poems[id], cov, tw, th, spp);
    if (st != KR_OK)
        return st;
    const kr_synth_look *lk = &s->look;
    double tint = s->cards[id].tint;
    kr_synth_rng rng;
    kr_synth_rng_seed(&rng, s->seed + (uint64_t)id, 6);
    double rim = 1.1, rad = 2.0;
    double gx = kr_synth_rng_range(&rng, -0.05, 0.05), gy = kr_synth_rng_range(&rng, -0.05, 0.05);
    for (int y = 0; y < sp->h; y++)
        for (int x = 0; x < sp->w; x++) {
            double mx = (x + 0.5) / spp - margin, my = (y + 0.5) / spp - margin; /* card mm from top-left */
            /* signed distance to the rounded rectangle */
            double qx = fabs(mx - KR_CARD_W / 2) - (KR_CARD_W / 2 - rad);
            double qy = fabs(my - KR_CARD_H / 2) - (KR_CARD_H / 2 - rad);
            double out = hypot(fmax(qx, 0), fmax(qy, 0)) + fmin(fmax(qx, qy), 0) - rad;
            double alpha = clampd(0.5 - out * spp, 0, 1);
            double inner = clampd(0.5 - (out + rim) * spp, 0, 1); /* 1 inside the rim */
            double paper[3];
            double grain = kr_synth_rng_gauss(&rng) * 2.5;
            /* slight curl: the card catches the light unevenly */
            double curl = 1 + gx * (mx / KR_CARD_W - 0.5) + gy * (my / KR_CARD_H - 0.5);
            for (int c = 0; c < 3; c++)
                paper[c] = lk->card_bgr[c] * (1 + 0.025 * tint) * curl + grain;
            paper[0] -= 6 * fmax(tint, 0); /* older cards are yellower */
            int tx = (int)(mx * spp), ty = (int)(my * spp);
            double ink = (tx >= 0 && ty >= 0 && tx < tw && ty < th) ? cov[(size_t)ty * tw + tx] / 255.0 : 0.0;
            uint8_t *o = &sp->bgra[((size_t)y * sp->w + x) * 4];
            for (int c = 0; c < 3; c++) {
                double v = paper[c] * (1 - ink * 0.88);
                v = v * inner + lk->border_bgr[c] * (1 - inner);
                o[c] = u8(v);
            }
            o[3] = u8(alpha * 255);
        }
    /* ink and paper are soft at this scale */
    kr_image_t im = {sp->w, sp->h, sp->w * 4, 1, NULL};
    (void)im;
    return KR_OK;
}

/* Draws card `id` with pose p at height z into the canvas region `dst` (canvas
 * coordinates of dst's origin ox, oy; dst w x h, stride), with a soft contact shadow.
 * 2x2 supersampled bilinear lookup in the sprite. */
static void draw_card(const kr_synth_t *s, const kr_synth_render *r, int id, const kr_synth_pose *p, double z,
                      uint8_t *dst, int dw, int dh, size_t stride, int ox, int oy)
{
    const sprite *sp = &r->cards[id];
    const kr_synth_camera *cam = &s->cam;
    double sc = cam->C[2] / (cam->C[2] - z); /* proxy scale about the nadir */
    double corners[8];
    kr_synth_card_corners(p, corners);
    double bx0 = 1e9, by0 = 1e9, bx1 = -1e9, by1 = -1e9;
    for (int i = 0; i < 4; i++) {
        double q[2], X, Y;
        kr_synth_cam_proxy(cam, corners[2 * i], corners[2 * i + 1], z, q);
        canvas_of_mm(r, q[0], q[1], &X, &Y);
        bx0 = fmin(bx0, X); bx1 = fmax(bx1, X); by0 = fmin(by0, Y); by1 = fmax(by1, Y);
    }
    double sh_dx = 0.9 + z * s->look.light_dir[0], sh_dy = -0.9 + z * s->look.light_dir[1]; /* mm */
    double sh_blur = 0.8 + z * 0.08, sh_k = z > 0 ? 0.35 * clampd(1 - z / 200, 0, 1) : 0.32;
    int pad = (int)ceil((3 * sh_blur + fabs(sh_dx) + fabs(sh_dy) + 2) * r->ppm);
    int X0 = (int)floor(bx0) - pad - ox, X1 = (int)ceil(bx1) + pad - ox;
    int Y0 = (int)floor(by0) - pad - oy, Y1 = (int)ceil(by1) + pad - oy;
    if (X0 < 0) X0 = 0;
    if (Y0 < 0) Y0 = 0;
    if (X1 > dw) X1 = dw;
    if (Y1 > dh) Y1 = dh;
    double ca = cos(p->a), sa = sin(p->a), spp = r->spp;
    for (int Y = Y0; Y < Y1; Y++) {
        uint8_t *row = dst + (size_t)Y * stride;
        for (int X = X0; X < X1; X++) {
            double acc[3] = {0, 0, 0}, aa = 0;
            for (int k = 0; k < 4; k++) {
                double qx = r->x0 + (X + ox + 0.25 + 0.5 * (k & 1)) / r->ppm;
                double qy = r->y1 - (Y + oy + 0.25 + 0.5 * (k >> 1)) / r->ppm;
                /* back from the proxy plane to the card's plane */
                double mx = cam->C[0] + (qx - cam->C[0]) / sc, my = cam->C[1] + (qy - cam->C[1]) / sc;
                double dx = mx - p->x, dy = my - p->y;
                double lx = ca * dx + sa * dy, ly = -sa * dx + ca * dy;
                double sx = (lx + KR_CARD_W / 2 + 1.0) * spp - 0.5, sy = (KR_CARD_H / 2 + 1.0 - ly) * spp - 0.5;
                if (sx < 0 || sy < 0 || sx >= sp->w - 1 || sy >= sp->h - 1)
                    continue;
                int ix = (int)sx, iy = (int)sy;
                double fx = sx - ix, fy = sy - iy;
                const uint8_t *a0 = &sp->bgra[((size_t)iy * sp->w + ix) * 4];
                const uint8_t *a1 = a0 + (size_t)sp->w * 4;
                double w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy;
                double al = (w00 * a0[3] + w10 * a0[7] + w01 * a1[3] + w11 * a1[7]) / 255.0;
                for (int c = 0; c < 3; c++)
                    acc[c] += (w00 * a0[c] * a0[3] + w10 * a0[4 + c] * a0[7] + w01 * a1[c] * a1[3] +
                               w11 * a1[4 + c] * a1[7]) / 255.0;
                aa += al;
            }
            /* shadow: distance of the shadowed card rectangle */
            double qx = r->x0 + (X + ox + 0.5) / r->ppm - sh_dx, qy = r->y1 - (Y + oy + 0.5) / r->ppm - sh_dy;
            double dx = qx - p->x, dy = qy - p->y;
            double lx = fabs(ca * dx + sa * dy) - KR_CARD_W / 2, ly = fabs(-sa * dx + ca * dy) - KR_CARD_H / 2;
            double dist = hypot(fmax(lx, 0), fmax(ly, 0)) + fmin(fmax(lx, ly), 0);
            double shade = sh_k * clampd(0.5 - dist / (2.5 * sh_blur), 0, 1);
            uint8_t *o = &row[3 * X];
            double a = aa / 4;
            for (int c = 0; c < 3; c++) {
                double bg = o[c] * (1 - shade);
                o[c] = u8(bg * (1 - a) + acc[c] / 4);
            }
        }
    }
}

/* ---- hands ---- */

/* Hand outline model (wrist frame, mm; v to the left of a right hand; mirrored for
 * the left). Middle fingertip at u = 176, same constants as the footprint. */
static const double fb_v[4] = {27, 9, -9, -26}, f_len[4] = {70, 80, 75, 58};
static const double f_ang[4] = {0.09, 0.0, -0.07, -0.16}, f_wid[4] = {17, 18, 17, 15};
static const double palm[][2] = {{0, -31}, {12, -37}, {55, -42}, {92, -39}, {101, -33}, {104, -18},
                                 {104, 18}, {101, 33}, {92, 39}, {60, 43}, {30, 46}, {8, 38}, {0, 30}};

typedef struct hand_geo {
    double P[3], d[2], n[2];
    double s, mir;
    const kr_synth_camera *cam;
    const kr_synth_render *r;
    double light[2];
    bool shadow; /* project onto the mat along the light instead of to the camera */
} hand_geo;

static double height_at(double u)
{
    if (u >= 130) return 0;
    if (u >= 0) return (130 - u) * 0.2;
    return 26 + (-u) * 0.35;
}

static void hpt(const hand_geo *g, double u, double v, double extra_z, double *out)
{
    double lu = (u - 176) * g->s, lv = v * g->s * g->mir;
    double x = g->P[0] + g->d[0] * lu + g->n[0] * lv, y = g->P[1] + g->d[1] * lu + g->n[1] * lv;
    double z = g->P[2] + height_at(u) + extra_z;
    double q[2];
    if (g->shadow) {
        /* the top of the hand is ~18 mm above its lowest point: the shadow never vanishes */
        q[0] = x - (z + 18) * g->light[0];
        q[1] = y - (z + 18) * g->light[1];
    } else {
        kr_synth_cam_proxy(g->cam, x, y, z, q);
    }
    canvas_of_mm(g->r, q[0], q[1], &out[0], &out[1]);
}

static void hpt3(const hand_geo *g, const double w[3], double *out)
{
    double q[2];
    if (g->shadow) {
        q[0] = w[0] - (w[2] + 18) * g->light[0];
        q[1] = w[1] - (w[2] + 18) * g->light[1];
    } else {
        kr_synth_cam_proxy(g->cam, w[0], w[1], w[2], q);
    }
    canvas_of_mm(g->r, q[0], q[1], &out[0], &out[1]);
}

/* Polygon list builder */
typedef struct { double *xy; int *cnt; int n, np; } polys;

static void poly_begin(polys *p) { p->cnt[p->n] = 0; }
static void poly_pt(polys *p, const double *q) { p->xy[2 * p->np] = q[0]; p->xy[2 * p->np + 1] = q[1]; p->np++; p->cnt[p->n]++; }
static void poly_end(polys *p) { p->n++; }

/* finger capsule: base (u,v) + angle, length, half widths; shrink insets the outline */
static void finger_poly(const hand_geo *g, polys *p, double bu, double bv, double ang, double len,
                        double w0, double w1, double shrink)
{
    double du = cos(ang), dv = sin(ang), nu = -dv, nv = du;
    double q[2];
    len -= shrink;
    w0 -= shrink;
    w1 -= shrink;
    poly_begin(p);
    hpt(g, bu - du * 4 + nu * w0, bv - dv * 4 + nv * w0, 0, q); poly_pt(p, q);
    double tu = bu + du * (len - w1), tv = bv + dv * (len - w1);
    hpt(g, tu + nu * w1, tv + nv * w1, 0, q); poly_pt(p, q);
    for (int i = 1; i < 6; i++) {
        double a = KR_PI / 2 - KR_PI * i / 6.0;
        double cu = cos(a), cv = sin(a); /* in (tangent=d, normal=n) frame */
        hpt(g, tu + du * w1 * cv + nu * w1 * cu, tv + dv * w1 * cv + nv * w1 * cu, 0, q);
        poly_pt(p, q);
    }
    hpt(g, tu - nu * w1, tv - nv * w1, 0, q); poly_pt(p, q);
    hpt(g, bu - du * 4 - nu * w0, bv - dv * 4 - nv * w0, 0, q); poly_pt(p, q);
    poly_end(p);
}

static void palm_poly(const hand_geo *g, polys *p, double shrink)
{
    double q[2];
    int n = (int)(sizeof palm / sizeof palm[0]);
    poly_begin(p);
    for (int i = 0; i < n; i++) {
        double u = palm[i][0], v = palm[i][1];
        double cu = 52, cv = 2; /* shrink towards the palm centre */
        double du = u - cu, dv = v - cv, l = hypot(du, dv);
        hpt(g, u - du / l * shrink, v - dv / l * shrink, 0, q);
        poly_pt(p, q);
    }
    poly_end(p);
}

/* forearm (skin) from the wrist to the sleeve, and the sleeve up to the shoulder */
static void arm_polys(const hand_geo *g, const double shoulder[3], polys *skin, polys *sleeve, double shrink)
{
    double q[2];
    double sl = -95; /* sleeve starts here */
    poly_begin(skin);
    hpt(g, 8, 36 - shrink, 0, q); poly_pt(skin, q);
    hpt(g, -20, 33 - shrink, 0, q); poly_pt(skin, q);
    hpt(g, sl - 10, 36 - shrink, 0, q); poly_pt(skin, q);
    hpt(g, sl - 10, -36 + shrink, 0, q); poly_pt(skin, q);
    hpt(g, -20, -33 + shrink, 0, q); poly_pt(skin, q);
    hpt(g, 8, -34 + shrink, 0, q); poly_pt(skin, q);
    poly_end(skin);
    /* sleeve: forearm part then upper arm towards the shoulder */
    double e3[3];
    double lu = (-270 - 176) * g->s;
    e3[0] = g->P[0] + g->d[0] * lu;
    e3[1] = g->P[1] + g->d[1] * lu;
    e3[2] = g->P[2] + height_at(-270);
    double ex = shoulder[0] - e3[0], ey = shoulder[1] - e3[1], el = hypot(ex, ey);
    /* left of the arm's forward direction (shoulder -> elbow), mirrored like v */
    double enx = el > 0 ? ey / el * g->mir : 0, eny = el > 0 ? -ex / el * g->mir : 0;
    double w_up = (62 - shrink) * g->s;
    poly_begin(sleeve);
    hpt(g, sl, 44 - shrink, 0, q); poly_pt(sleeve, q);
    hpt(g, -270, 52 - shrink, 0, q); poly_pt(sleeve, q);
    double w3[3] = {shoulder[0] + enx * w_up, shoulder[1] + eny * w_up, shoulder[2]};
    hpt3(g, w3, q); poly_pt(sleeve, q);
    w3[0] = shoulder[0] - enx * w_up; w3[1] = shoulder[1] - eny * w_up;
    hpt3(g, w3, q); poly_pt(sleeve, q);
    hpt(g, -270, -52 + shrink, 0, q); poly_pt(sleeve, q);
    hpt(g, sl, -44 + shrink, 0, q); poly_pt(sleeve, q);
    poly_end(sleeve);
}

static void setup_geo(const kr_synth_t *s, const kr_synth_render *r, const kr_synth_hand *hd, double t,
                      hand_geo *g)
{
    double vel[3];
    kr_synth_hand_eval(hd, t, g->P, vel);
    kr_synth_hand_dir(hd, g->P, vel, g->d);
    g->n[0] = -g->d[1];
    g->n[1] = g->d[0];
    g->s = hd->length;
    g->mir = hd->side == 1 ? 1.0 : -1.0;
    g->cam = &s->cam;
    g->r = r;
    g->light[0] = s->look.light_dir[0];
    g->light[1] = s->look.light_dir[1];
    g->shadow = false;
}

static void fill(kr_image_t *im, polys *p, int ox, int oy, const double bgr[3])
{
    uint8_t c[3] = {u8(bgr[0]), u8(bgr[1]), u8(bgr[2])};
    if (p->n)
        kr_cv_synth_fill_polys(im, p->xy, p->cnt, p->n, ox, oy, c);
    p->n = p->np = 0;
}

static void scale3(const double *a, double k, double *o) { for (int i = 0; i < 3; i++) o[i] = a[i] * k; }

static void draw_hand_flat(const kr_synth_t *s, kr_synth_render *r, const kr_synth_hand *hd, double t,
                           kr_image_t *im, int ox, int oy)
{
    hand_geo g;
    setup_geo(s, r, hd, t, &g);
    const kr_synth_player *pl = &s->players[hd->player];
    polys p = {r->poly_xy, r->poly_n, 0, 0}, q = {r->poly_xy + 2 * 400, r->poly_n + 40, 0, 0};
    double edge[3], body[3], hi[3], nail[3], sl_edge[3];
    scale3(pl->skin, 0.80, edge);
    scale3(pl->skin, 1.0, body);
    scale3(pl->skin, 1.04, hi);
    for (int c = 0; c < 3; c++)
        nail[c] = pl->skin[c] * 0.55 + (c == 0 ? 200 : c == 1 ? 205 : 225) * 0.45;
    scale3(pl->sleeve, 0.78, sl_edge);
    /* sleeve and forearm */
    arm_polys(&g, hd->shoulder, &p, &q, 0);
    fill(im, &q, ox, oy, sl_edge);
    fill(im, &p, ox, oy, edge);
    arm_polys(&g, hd->shoulder, &p, &q, 3);
    fill(im, &q, ox, oy, pl->sleeve);
    fill(im, &p, ox, oy, body);
    /* thumb under the palm, then the palm with a soft highlight on the back of the hand */
    finger_poly(&g, &p, 36, 34, 0.42, 66, 13, 10, 0);
    fill(im, &p, ox, oy, edge);
    finger_poly(&g, &p, 36, 34, 0.42, 66, 13, 10, 2.2);
    fill(im, &p, ox, oy, body);
    palm_poly(&g, &p, 0);
    fill(im, &p, ox, oy, edge);
    palm_poly(&g, &p, 2.2);
    fill(im, &p, ox, oy, body);
    palm_poly(&g, &p, 14);
    fill(im, &p, ox, oy, hi);
    /* fingers: little to index */
    for (int f = 3; f >= 0; f--) {
        finger_poly(&g, &p, 96, fb_v[f], f_ang[f], f_len[f], f_wid[f] / 2, f_wid[f] / 2 * 0.85, 0);
        fill(im, &p, ox, oy, edge);
        finger_poly(&g, &p, 96, fb_v[f], f_ang[f], f_len[f], f_wid[f] / 2, f_wid[f] / 2 * 0.85, 1.8);
        fill(im, &p, ox, oy, body);
        /* highlight along the top of the finger, nail at the tip */
        finger_poly(&g, &p, 96 + 12, fb_v[f] + 12 * sin(f_ang[f]), f_ang[f], f_len[f] - 24, 2.5, 2.0, 0);
        fill(im, &p, ox, oy, hi);
        double tu = 96 + (f_len[f] - 13) * cos(f_ang[f]), tv = fb_v[f] + (f_len[f] - 13) * sin(f_ang[f]);
        finger_poly(&g, &p, tu, tv, f_ang[f], 10.5, f_wid[f] * 0.3, f_wid[f] * 0.28, 0);
        fill(im, &p, ox, oy, nail);
    }
}

/* Hand with rounded shading: the flat-coloured model, then every pixel of the hand and
 * arm darkened by how close it is to the silhouette's edge (a blurred silhouette), so
 * fingers and forearm look round rather than cut out of paper. */
static void draw_hand(const kr_synth_t *s, kr_synth_render *r, const kr_synth_hand *hd, double t,
                      kr_image_t *im, int ox, int oy)
{
    draw_hand_flat(s, r, hd, t, im, ox, oy);
    hand_geo g;
    setup_geo(s, r, hd, t, &g);
    polys p = {r->poly_xy, r->poly_n, 0, 0}, q = {r->poly_xy + 2 * 400, r->poly_n + 40, 0, 0};
    arm_polys(&g, hd->shoulder, &p, &q, 0);
    palm_poly(&g, &p, 0);
    finger_poly(&g, &p, 36, 34, 0.42, 66, 13, 10, 0);
    for (int f = 0; f < 4; f++)
        finger_poly(&g, &p, 96, fb_v[f], f_ang[f], f_len[f], f_wid[f] / 2, f_wid[f] / 2 * 0.85, 0);
    double bx0 = 1e9, by0 = 1e9, bx1 = -1e9, by1 = -1e9;
    for (int i = 0; i < p.np; i++) {
        bx0 = fmin(bx0, p.xy[2 * i]); bx1 = fmax(bx1, p.xy[2 * i]);
        by0 = fmin(by0, p.xy[2 * i + 1]); by1 = fmax(by1, p.xy[2 * i + 1]);
    }
    for (int i = 0; i < q.np; i++) {
        bx0 = fmin(bx0, q.xy[2 * i]); bx1 = fmax(bx1, q.xy[2 * i]);
        by0 = fmin(by0, q.xy[2 * i + 1]); by1 = fmax(by1, q.xy[2 * i + 1]);
    }
    int X0 = (int)floor(bx0) - 2 - ox, X1 = (int)ceil(bx1) + 2 - ox;
    int Y0 = (int)floor(by0) - 2 - oy, Y1 = (int)ceil(by1) + 2 - oy;
    if (X0 < 0) X0 = 0;
    if (Y0 < 0) Y0 = 0;
    if (X1 > im->w) X1 = im->w;
    if (Y1 > im->h) Y1 = im->h;
    if (X1 <= X0 || Y1 <= Y0)
        return;
    int mw = X1 - X0, mh = Y1 - Y0;
    kr_image_t sharp = {mw, mh, mw, 1, r->mask2}, soft = {mw, mh, mw, 1, r->mask};
    memset(r->mask2, 0, (size_t)mw * mh);
    uint8_t white[3] = {255, 255, 255};
    kr_cv_synth_fill_polys(&sharp, p.xy, p.cnt, p.n, ox + X0, oy + Y0, white);
    kr_cv_synth_fill_polys(&sharp, q.xy, q.cnt, q.n, ox + X0, oy + Y0, white);
    memcpy(r->mask, r->mask2, (size_t)mw * mh);
    kr_cv_synth_blur(&soft, 3.5 * r->ppm * g.s);
    for (int y = 0; y < mh; y++) {
        uint8_t *row = im->px + (size_t)(Y0 + y) * im->stride + (size_t)X0 * 3;
        const uint8_t *a = r->mask2 + (size_t)y * mw, *b = r->mask + (size_t)y * mw;
        for (int x = 0; x < mw; x++) {
            if (!a[x])
                continue;
            /* f = 0.70 at the very edge .. 1.0 well inside (b >= ~200) */
            int f = 180 + (b[x] > 200 ? 76 : (b[x] * 76) / 200);       /* /256 */
            int k = 256 - ((256 - f) * a[x]) / 255;
            row[3 * x] = (uint8_t)((row[3 * x] * k) >> 8);
            row[3 * x + 1] = (uint8_t)((row[3 * x + 1] * k) >> 8);
            row[3 * x + 2] = (uint8_t)((row[3 * x + 2] * k) >> 8);
        }
    }
}

/* Shadow of the hand and arm: silhouette cast along the light onto the mat, blurred
 * more and weaker the higher the hand; converges on the hand as its height -> 0. */
static void draw_hand_shadow(const kr_synth_t *s, kr_synth_render *r, const kr_synth_hand *hd, double t,
                             kr_image_t *im, int ox, int oy)
{
    hand_geo g;
    setup_geo(s, r, hd, t, &g);
    g.shadow = true;
    polys p = {r->poly_xy, r->poly_n, 0, 0}, q = {r->poly_xy + 2 * 400, r->poly_n + 40, 0, 0};
    /* bounding box of the shadow in the region */
    arm_polys(&g, hd->shoulder, &p, &q, 0);
    palm_poly(&g, &p, 0);
    finger_poly(&g, &p, 36, 34, 0.42, 66, 13, 10, 0);
    for (int f = 0; f < 4; f++)
        finger_poly(&g, &p, 96, fb_v[f], f_ang[f], f_len[f], f_wid[f] / 2, f_wid[f] / 2 * 0.85, 0);
    double sigma = (2.5 + 0.07 * g.P[2]) * r->ppm;
    int pad = (int)ceil(3 * sigma) + 2;
    double bx0 = 1e9, by0 = 1e9, bx1 = -1e9, by1 = -1e9;
    for (int i = 0; i < p.np; i++) {
        bx0 = fmin(bx0, p.xy[2 * i]); bx1 = fmax(bx1, p.xy[2 * i]);
        by0 = fmin(by0, p.xy[2 * i + 1]); by1 = fmax(by1, p.xy[2 * i + 1]);
    }
    for (int i = 0; i < q.np; i++) {
        bx0 = fmin(bx0, q.xy[2 * i]); bx1 = fmax(bx1, q.xy[2 * i]);
        by0 = fmin(by0, q.xy[2 * i + 1]); by1 = fmax(by1, q.xy[2 * i + 1]);
    }
    int X0 = (int)floor(bx0) - pad - ox, X1 = (int)ceil(bx1) + pad - ox;
    int Y0 = (int)floor(by0) - pad - oy, Y1 = (int)ceil(by1) + pad - oy;
    if (X0 < 0) X0 = 0;
    if (Y0 < 0) Y0 = 0;
    if (X1 > im->w) X1 = im->w;
    if (Y1 > im->h) Y1 = im->h;
    if (X1 <= X0 || Y1 <= Y0) {
        p.n = p.np = q.n = q.np = 0;
        return;
    }
    int mw = X1 - X0, mh = Y1 - Y0;
    kr_image_t m = {mw, mh, mw, 1, r->mask};
    memset(r->mask, 0, (size_t)mw * mh);
    uint8_t white[3] = {255, 255, 255};
    kr_cv_synth_fill_polys(&m, p.xy, p.cnt, p.n, ox + X0, oy + Y0, white);
    kr_cv_synth_fill_polys(&m, q.xy, q.cnt, q.n, ox + X0, oy + Y0, white);
    kr_cv_synth_blur(&m, sigma);
    double k = s->look.shadow * clampd(1.0 - g.P[2] / 260.0, 0.35, 1.0);
    int ki = (int)(k * 256);
    for (int y = 0; y < mh; y++) {
        uint8_t *row = im->px + (size_t)(Y0 + y) * im->stride + (size_t)X0 * 3;
        const uint8_t *mr = r->mask + (size_t)y * mw;
        for (int x = 0; x < mw; x++) {
            int a = 65536 - ki * mr[x];
            row[3 * x] = (uint8_t)((row[3 * x] * a) >> 16);
            row[3 * x + 1] = (uint8_t)((row[3 * x + 1] * a) >> 16);
            row[3 * x + 2] = (uint8_t)((row[3 * x + 2] * a) >> 16);
        }
    }
}

/* canvas bounding box of a hand (with arm and shadow) at time t */
static rect hand_box(const kr_synth_t *s, kr_synth_render *r, const kr_synth_hand *hd, double t)
{
    hand_geo g;
    setup_geo(s, r, hd, t, &g);
    polys p = {r->poly_xy, r->poly_n, 0, 0}, q = {r->poly_xy + 2 * 400, r->poly_n + 40, 0, 0};
    double bx0 = 1e9, by0 = 1e9, bx1 = -1e9, by1 = -1e9;
    for (int pass = 0; pass < 2; pass++) {
        g.shadow = pass == 1;
        arm_polys(&g, hd->shoulder, &p, &q, 0);
        palm_poly(&g, &p, 0);
        for (int f = 0; f < 4; f++)
            finger_poly(&g, &p, 96, fb_v[f], f_ang[f], f_len[f], f_wid[f] / 2, f_wid[f] / 2 * 0.85, 0);
        finger_poly(&g, &p, 36, 34, 0.42, 66, 13, 10, 0);
        for (int i = 0; i < p.np; i++) {
            bx0 = fmin(bx0, p.xy[2 * i]); bx1 = fmax(bx1, p.xy[2 * i]);
            by0 = fmin(by0, p.xy[2 * i + 1]); by1 = fmax(by1, p.xy[2 * i + 1]);
        }
        for (int i = 0; i < q.np; i++) {
            bx0 = fmin(bx0, q.xy[2 * i]); bx1 = fmax(bx1, q.xy[2 * i]);
            by0 = fmin(by0, q.xy[2 * i + 1]); by1 = fmax(by1, q.xy[2 * i + 1]);
        }
        p.n = p.np = q.n = q.np = 0;
    }
    int pad = (int)ceil((3 * (2.5 + 0.07 * g.P[2]) + 3) * r->ppm);
    rect b = {(int)floor(bx0) - pad, (int)floor(by0) - pad, (int)ceil(bx1) + pad, (int)ceil(by1) + pad};
    return b;
}

static rect card_box(const kr_synth_t *s, const kr_synth_render *r, const kr_synth_pose *p, double z)
{
    double mm[8];
    kr_synth_card_corners(p, mm);
    double bx0 = 1e9, by0 = 1e9, bx1 = -1e9, by1 = -1e9;
    for (int i = 0; i < 4; i++) {
        double q[2], X, Y;
        kr_synth_cam_proxy(&s->cam, mm[2 * i], mm[2 * i + 1], z, q);
        canvas_of_mm(r, q[0], q[1], &X, &Y);
        bx0 = fmin(bx0, X); bx1 = fmax(bx1, X); by0 = fmin(by0, Y); by1 = fmax(by1, Y);
    }
    int pad = (int)ceil((4 + z * 0.5) * r->ppm);
    rect b = {(int)floor(bx0) - pad, (int)floor(by0) - pad, (int)ceil(bx1) + pad, (int)ceil(by1) + pad};
    return b;
}

static rect runion(rect a, rect b)
{
    rect o = {a.x0 < b.x0 ? a.x0 : b.x0, a.y0 < b.y0 ? a.y0 : b.y0, a.x1 > b.x1 ? a.x1 : b.x1, a.y1 > b.y1 ? a.y1 : b.y1};
    return o;
}

static bool roverlap(rect a, rect b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

static rect rclip(const kr_synth_render *r, rect a)
{
    if (a.x0 < 0) a.x0 = 0;
    if (a.y0 < 0) a.y0 = 0;
    if (a.x1 > r->cw) a.x1 = r->cw;
    if (a.y1 > r->ch) a.y1 = r->ch;
    return a;
}

/* ---- static canvas ---- */

static void rebuild_static(const kr_synth_t *s, kr_synth_render *r, double t)
{
    memcpy(r->stat, r->tatami, (size_t)r->cw * r->ch * 3);
    for (int i = 0; i < s->n_cards; i++) {
        int id = s->card_ids[i];
        kr_synth_pose p;
        if (kr_synth_card_pose(s, &s->cards[id], t, &p, NULL) != KR_CARD_REST)
            continue;
        draw_card(s, r, id, &p, 0, r->stat, r->cw, r->ch, (size_t)r->cw * 3, 0, 0);
    }
}

static bool static_changed(const kr_synth_t *s, kr_synth_render *r, double t)
{
    bool changed = !r->stat_valid;
    for (int i = 0; i < s->n_cards; i++) {
        int id = s->card_ids[i];
        const kr_synth_card *c = &s->cards[id];
        kr_synth_pose p;
        int seg = c->n_seg - 1;
        while (seg > 0 && c->seg[seg].t0 > t)
            seg--;
        int sig = kr_synth_card_pose(s, c, t, &p, NULL) == KR_CARD_REST ? seg : -1;
        if (sig != r->sig[id]) {
            r->sig[id] = sig;
            changed = true;
        }
    }
    return changed;
}

/* ---- init / free ---- */

kr_status kr_synth_render_init(kr_synth_t *s, char *err, size_t errlen)
{
    kr_synth_render *r = calloc(1, sizeof *r);
    kr_synth_font *font = NULL;
    uint8_t *cov = NULL;
    float *mx = NULL, *my = NULL;
    kr_status st = KR_ERR_NOMEM;
    if (!r)
        return KR_ERR_NOMEM;
    s->render = r;
    const kr_synth_camera *cam = &s->cam;
    /* canvas bounds: the mat region seen by the camera (border rays), + margin */
    double bx0 = 1e9, by0 = 1e9, bx1 = -1e9, by1 = -1e9, ppm = 0;
    for (int i = 0; i <= 64; i++) {
        double uv[4][2] = {{i * (s->w - 1) / 64.0, 0}, {i * (s->w - 1) / 64.0, s->h - 1},
                           {0, i * (s->h - 1) / 64.0}, {s->w - 1, i * (s->h - 1) / 64.0}};
        for (int k = 0; k < 4; k++) {
            double a[2], b[2];
            if (!kr_synth_cam_unproject(cam, uv[k][0], uv[k][1], a) ||
                !kr_synth_cam_unproject(cam, uv[k][0] + 1, uv[k][1], b)) {
                snprintf(err, errlen, "camera: the image does not look at the mat");
                st = KR_ERR_INVALID;
                goto fail;
            }
            bx0 = fmin(bx0, a[0]); bx1 = fmax(bx1, a[0]); by0 = fmin(by0, a[1]); by1 = fmax(by1, a[1]);
            ppm = fmax(ppm, 1.0 / hypot(b[0] - a[0], b[1] - a[1]));
        }
    }
    r->ppm = ppm * 1.2;
    r->x0 = bx0 - 20;
    r->y1 = by1 + 20;
    r->cw = (int)ceil((bx1 - bx0 + 40) * r->ppm);
    r->ch = (int)ceil((by1 - by0 + 40) * r->ppm);
    size_t cn = (size_t)r->cw * r->ch;
    r->tatami = malloc(cn * 3);
    r->stat = malloc(cn * 3);
    r->work = malloc(cn * 3);
    r->tmp = malloc(cn * 3);
    r->acc = malloc(cn * 3 * sizeof(uint16_t));
    r->mask = malloc(cn);
    r->mask2 = malloc(cn);
    r->frame = malloc((size_t)s->w * s->h * 3);
    r->vig = malloc((size_t)s->w * s->h * 3 * sizeof(uint16_t));
    r->noise = malloc((size_t)s->w * s->h * 3 + NOISE_PAD);
    r->poly_xy = malloc(sizeof(double) * 2 * 800);
    r->poly_n = malloc(sizeof(int) * 80);
    r->rowbox = malloc(sizeof *r->rowbox * (size_t)s->h);
    mx = malloc(sizeof(float) * (size_t)s->w * s->h);
    my = malloc(sizeof(float) * (size_t)s->w * s->h);
    cov = malloc((size_t)(KR_CARD_W * 4 * r->ppm + 8) * (size_t)(KR_CARD_H * 4 * r->ppm + 8));
    if (!r->tatami || !r->stat || !r->work || !r->tmp || !r->acc || !r->mask || !r->mask2 || !r->frame || !r->vig ||
        !r->noise || !r->poly_xy || !r->poly_n || !r->rowbox || !mx || !my || !cov)
        goto fail;
    /* camera maps: every image px -> canvas px */
    for (int v = 0; v < s->h; v++) {
        double rx0 = 1e9, ry0 = 1e9, rx1 = -1e9, ry1 = -1e9;
        for (int u = 0; u < s->w; u++) {
            double m[2];
            size_t i = (size_t)v * s->w + u;
            if (kr_synth_cam_unproject(cam, u, v, m)) {
                double X, Y;
                canvas_of_mm(r, m[0], m[1], &X, &Y);
                mx[i] = (float)X;
                my[i] = (float)Y;
                rx0 = fmin(rx0, X); rx1 = fmax(rx1, X); ry0 = fmin(ry0, Y); ry1 = fmax(ry1, Y);
            } else {
                mx[i] = my[i] = -10;
            }
            /* vignetting: cos^4-like falloff in the normalised radius */
            double xn = (u - cam->K[2]) / cam->K[0], yn = (v - cam->K[5]) / cam->K[4];
            double rr = (xn * xn + yn * yn) / (0.5 * s->w / cam->K[0] * 0.5 * s->w / cam->K[0] + 1e-9);
            double g = 1.0 - s->look.vignette * rr * (0.6 + 0.4 * rr);
            for (int c = 0; c < 3; c++)
                r->vig[3 * i + c] = (uint16_t)(clampd(g * s->look.wb[c], 0.2, 1.3) * 4096);
        }
        /* bilinear reads px floor(X) .. floor(X) + 1; 2 px more for the maps' fixed point */
        r->rowbox[v].x0 = rx0 > rx1 ? 0 : (int)floor(rx0) - 2;
        r->rowbox[v].y0 = rx0 > rx1 ? 0 : (int)floor(ry0) - 2;
        r->rowbox[v].x1 = rx0 > rx1 ? 0 : (int)floor(rx1) + 4;
        r->rowbox[v].y1 = rx0 > rx1 ? 0 : (int)floor(ry1) + 4;
    }
    if ((st = kr_cv_synth_remap_create(mx, my, s->w, s->h, &r->remap)) != KR_OK) {
        snprintf(err, errlen, "remap tables: %s", kr_cv_last_error());
        goto fail;
    }
    kr_synth_rng nr;
    kr_synth_rng_seed(&nr, s->look_seed, 7);
    for (size_t i = 0; i < (size_t)s->w * s->h * 3 + NOISE_PAD; i++) {
        double g = kr_synth_rng_gauss(&nr) * s->look.noise;
        r->noise[i] = (int8_t)clampd(lround(g), -127, 127);
    }
    make_tatami(s, r);
    /* card sprites */
    if ((st = kr_synth_font_open(s->look.font, &font, err, errlen)) != KR_OK)
        goto fail;
    r->spp = r->ppm * 2.0;
    for (int i = 0; i < s->n_cards; i++)
        if ((st = make_card_sprite(s, r, font, s->card_ids[i], cov)) != KR_OK) {
            snprintf(err, errlen, "card %d: cannot render its text", s->card_ids[i]);
            goto fail;
        }
    for (int i = 0; i <= 100; i++)
        r->sig[i] = -2;
    st = KR_OK;
fail:
    kr_synth_font_close(font);
    free(cov);
    free(mx);
    free(my);
    return st;
}

void kr_synth_render_free(kr_synth_render *r)
{
    if (!r)
        return;
    free(r->tatami); free(r->stat); free(r->work); free(r->tmp); free(r->acc); free(r->mask); free(r->mask2);
    free(r->frame); free(r->vig); free(r->noise); free(r->poly_xy); free(r->poly_n); free(r->rowbox);
    for (int i = 0; i <= 100; i++)
        free(r->cards[i].bgra);
    kr_cv_synth_remap_destroy(r->remap);
    free(r);
}

/* ---- per frame ---- */

double kr_synth_frame_gain(const kr_synth_t *s, int frame)
{
    return kr_synth_gain_at(s, (double)kr_synth_frame_t_us(s, frame) / 1e6);
}

double kr_synth_gain_at(const kr_synth_t *s, double t)
{
    double ph = (double)(s->look_seed % 1000) / 1000.0 * 2 * KR_PI;
    /* mains flicker sampled by the shutter + slow auto-exposure drift. A sine is taken at
     * the instant t; lamps that switch (a square wave, duty 0.5: on at 1 + flicker, off at
     * 1 - flicker) are averaged over the exposure centred on t, so that a rolling shutter
     * shows their bands with edges as sharp as the shutter makes them (a short shutter:
     * steps; one as long as the lamps' period: none) */
    double w;
    if (!s->look.flicker_square) {
        w = sin(2 * KR_PI * s->look.flicker_hz * t + ph);
    } else {
        const int n = 64;
        double sh = kr_synth_period_at(s, t) * s->look.shutter, sum = 0;
        for (int i = 0; i < n; i++) {
            double ti = t + ((i + 0.5) / n - 0.5) * sh;
            sum += sin(2 * KR_PI * s->look.flicker_hz * ti + ph) >= 0 ? 1 : -1;
        }
        w = sum / n;
    }
    return s->look.exposure * (1 + s->look.flicker * w + 0.01 * sin(2 * KR_PI * 0.13 * t + ph * 0.7));
}

static KR_HOT void photometric(uint8_t *restrict px, const uint16_t *restrict vig, const int8_t *restrict noise,
                               size_t n, int g8)
{
    for (size_t k = 0; k < n; k++) {
        int v = ((px[k] * vig[k]) >> 4) * g8;
        v = (v >> 16) + noise[k];
        px[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

static KR_HOT void accumulate(uint16_t *restrict acc, const uint8_t *restrict src, size_t n)
{
    for (size_t k = 0; k < n; k++)
        acc[k] = (uint16_t)(acc[k] + src[k]);
}

static KR_HOT void average(uint8_t *restrict dst, const uint16_t *restrict acc, size_t n, int samples)
{
    uint32_t mul = (uint32_t)(65536 / samples);
    for (size_t k = 0; k < n; k++)
        dst[k] = (uint8_t)(((uint32_t)acc[k] * mul + 32768) >> 16);
}

typedef struct object { rect box; int kind; int id; int samples; } object; /* kind 0 hand, 1 card */

/* The canvas (r->work) as the camera sees it at time t: the static canvas, then the
 * hands, shadows and moving cards drawn in their regions, each averaged over samples in
 * the exposure window [t - shutter/2, t + shutter/2]. need: the canvas rect the caller
 * will read (a rolling shutter's band): only the regions' parts near it are drawn (a band
 * costs what its rows see, not the whole picture); NULL draws all. Any order of times
 * works: the static canvas is rebuilt when a card's rest changes, the regions drawn last
 * time are restored. */
static void render_canvas(kr_synth_t *s, double t, double shutter, const rect *need)
{
    kr_synth_render *r = s->render;
    size_t stride = (size_t)r->cw * 3;
    if (static_changed(s, r, t)) {
        rebuild_static(s, r, t);
        memcpy(r->work, r->stat, (size_t)r->ch * stride);
        r->stat_valid = true;
        r->n_dirty = 0;
    }
    for (int i = 0; i < r->n_dirty; i++) {
        rect d = r->dirty[i];
        for (int y = d.y0; y < d.y1; y++)
            memcpy(r->work + y * stride + (size_t)d.x0 * 3, r->stat + y * stride + (size_t)d.x0 * 3,
                   (size_t)(d.x1 - d.x0) * 3);
    }
    r->n_dirty = 0;
    /* dynamic objects and their motion-blur sample counts */
    object obj[MAX_OBJ];
    int no = 0;
    double ta = t - shutter / 2, tb = t + shutter / 2;
    for (int hi = 0; hi < KR_SYNTH_N_HANDS; hi++) {
        const kr_synth_hand *hd = &s->hands[hi];
        if (!kr_synth_hand_visible(hd, t))
            continue;
        double pa[3], pb[3];
        kr_synth_hand_eval(hd, ta, pa, NULL);
        kr_synth_hand_eval(hd, tb, pb, NULL);
        double disp = hypot(pb[0] - pa[0], pb[1] - pa[1]) * r->ppm;
        int n = (int)ceil(disp / 2.5);
        n = n < 1 ? 1 : n > MAX_SAMPLES ? MAX_SAMPLES : n;
        rect b = hand_box(s, r, hd, ta);
        if (n > 1)
            b = runion(b, hand_box(s, r, hd, tb));
        obj[no].box = b; obj[no].kind = 0; obj[no].id = hi; obj[no].samples = n;
        no++;
    }
    for (int i = 0; i < s->n_cards && no < MAX_OBJ; i++) {
        int id = s->card_ids[i];
        kr_synth_pose pa, pb;
        double za, zb;
        kr_card_mode ma = kr_synth_card_pose(s, &s->cards[id], ta, &pa, &za);
        kr_card_mode mb = kr_synth_card_pose(s, &s->cards[id], tb, &pb, &zb);
        kr_synth_pose pt;
        if (kr_synth_card_pose(s, &s->cards[id], t, &pt, NULL) == KR_CARD_REST && ma == KR_CARD_REST &&
            mb == KR_CARD_REST)
            continue;
        double disp = hypot(pb.x - pa.x, pb.y - pa.y) * r->ppm + fabs(pb.a - pa.a) * 45 * r->ppm;
        int n = (int)ceil(disp / 2.5);
        n = n < 1 ? 1 : n > MAX_SAMPLES ? MAX_SAMPLES : n;
        obj[no].box = runion(card_box(s, r, &pa, za), card_box(s, r, &pb, zb));
        obj[no].kind = 1; obj[no].id = id; obj[no].samples = n;
        no++;
    }
    /* merge overlapping boxes into regions */
    int group[MAX_OBJ];
    rect gbox[MAX_OBJ];
    int gs[MAX_OBJ], ng = 0;
    for (int i = 0; i < no; i++) {
        obj[i].box = rclip(r, obj[i].box);
        group[i] = -1;
    }
    for (int i = 0; i < no; i++) {
        if (obj[i].box.x1 <= obj[i].box.x0 || obj[i].box.y1 <= obj[i].box.y0)
            continue;
        gbox[ng] = obj[i].box;
        gs[ng] = obj[i].samples;
        group[i] = ng++;
    }
    bool merged = true;
    while (merged) {
        merged = false;
        for (int a = 0; a < ng && !merged; a++)
            for (int b = a + 1; b < ng && !merged; b++)
                if (roverlap(gbox[a], gbox[b])) {
                    gbox[a] = runion(gbox[a], gbox[b]);
                    gs[a] = gs[a] > gs[b] ? gs[a] : gs[b];
                    for (int i = 0; i < no; i++)
                        if (group[i] == b) group[i] = a;
                        else if (group[i] > b) group[i]--;
                    for (int k = b; k < ng - 1; k++) { gbox[k] = gbox[k + 1]; gs[k] = gs[k + 1]; }
                    ng--;
                    merged = true;
                }
    }
    for (int gi = 0; gi < ng && gi < MAX_ROI; gi++) {
        rect b = gbox[gi];
        if (need) {
            /* only the part the band reads, and around it what the blurs of the hand's
             * shading and shadow reach (two box passes of width sqrt(6) sigma reach 2.45
             * sigma): within the band the pixels are the whole region's, but for a grey
             * level on a few anti-aliased polygon edges (sub-pixel offsets of the fill) */
            double sig = 0;
            for (int i = 0; i < no; i++)
                if (group[i] == gi && obj[i].kind == 0) {
                    const kr_synth_hand *hd = &s->hands[obj[i].id];
                    double za[3], zt[3], zb[3];
                    kr_synth_hand_eval(hd, ta, za, NULL);
                    kr_synth_hand_eval(hd, t, zt, NULL);
                    kr_synth_hand_eval(hd, tb, zb, NULL);
                    double z = fmax(za[2], fmax(zt[2], zb[2])) + 30; /* + what it may rise between */
                    sig = fmax(sig, fmax(3.5 * hd->length, 2.5 + 0.07 * z) * r->ppm);
                }
            int m = (int)ceil(2.5 * sig) + 4;
            rect c = {need->x0 - m, need->y0 - m, need->x1 + m, need->y1 + m};
            if (!roverlap(b, c))
                continue;
            b.x0 = b.x0 > c.x0 ? b.x0 : c.x0;
            b.y0 = b.y0 > c.y0 ? b.y0 : c.y0;
            b.x1 = b.x1 < c.x1 ? b.x1 : c.x1;
            b.y1 = b.y1 < c.y1 ? b.y1 : c.y1;
        }
        int bw = b.x1 - b.x0, bh = b.y1 - b.y0, n = gs[gi];
        size_t bstride = (size_t)bw * 3;
        kr_image_t roi = {bw, bh, (int)bstride, 3, r->tmp};
        if (n > 1)
            memset(r->acc, 0, (size_t)bh * bstride * sizeof(uint16_t));
        for (int k = 0; k < n; k++) {
            double tk = n > 1 ? ta + shutter * (k + 0.5) / n : t;
            for (int y = 0; y < bh; y++)
                memcpy(r->tmp + y * bstride, r->stat + (size_t)(b.y0 + y) * stride + (size_t)b.x0 * 3, bstride);
            /* cards sliding on the mat */
            for (int i = 0; i < no; i++) {
                if (group[i] != gi || obj[i].kind != 1)
                    continue;
                kr_synth_pose p;
                double z;
                if (kr_synth_card_pose(s, &s->cards[obj[i].id], tk, &p, &z) == KR_CARD_CARRY)
                    continue;
                draw_card(s, r, obj[i].id, &p, 0, r->tmp, bw, bh, bstride, b.x0, b.y0);
            }
            for (int i = 0; i < no; i++)
                if (group[i] == gi && obj[i].kind == 0)
                    draw_hand_shadow(s, r, &s->hands[obj[i].id], tk, &roi, b.x0, b.y0);
            /* carried cards above the mat, then hands (lowest first) */
            for (int i = 0; i < no; i++) {
                if (group[i] != gi || obj[i].kind != 1)
                    continue;
                kr_synth_pose p;
                double z;
                if (kr_synth_card_pose(s, &s->cards[obj[i].id], tk, &p, &z) != KR_CARD_CARRY)
                    continue;
                draw_card(s, r, obj[i].id, &p, z + 1.0, r->tmp, bw, bh, bstride, b.x0, b.y0);
            }
            int order[KR_SYNTH_N_HANDS], nh = 0;
            double hz[KR_SYNTH_N_HANDS];
            for (int i = 0; i < no; i++)
                if (group[i] == gi && obj[i].kind == 0) {
                    double p3[3];
                    kr_synth_hand_eval(&s->hands[obj[i].id], tk, p3, NULL);
                    int j = nh++;
                    while (j > 0 && hz[j - 1] > p3[2]) { hz[j] = hz[j - 1]; order[j] = order[j - 1]; j--; }
                    hz[j] = p3[2];
                    order[j] = obj[i].id;
                }
            for (int j = 0; j < nh; j++) {
                if (n > 2) /* fast motion blurs the rounded shading away: skip it */
                    draw_hand_flat(s, r, &s->hands[order[j]], tk, &roi, b.x0, b.y0);
                else
                    draw_hand(s, r, &s->hands[order[j]], tk, &roi, b.x0, b.y0);
            }
            if (n > 1) {
                accumulate(r->acc, r->tmp, (size_t)bh * bstride);
            }
        }
        for (int y = 0; y < bh; y++) {
            uint8_t *dst = r->work + (size_t)(b.y0 + y) * stride + (size_t)b.x0 * 3;
            if (n > 1) {
                average(dst, r->acc + (size_t)y * bstride, bstride, n);
            } else {
                memcpy(dst, r->tmp + y * bstride, bstride);
            }
        }
        if (r->n_dirty < MAX_ROI)
            r->dirty[r->n_dirty++] = b;
    }
}

/* Rolling shutter: bands of rows rendered at one time each, so that no band spans more
 * than about 1 ms of the readout (a hand at 3 m/s moves 3 mm in it), at most 32 (each
 * band costs a pass over the moving objects) and at least 8 rows each. */
int kr_synth_readout_bands(const kr_synth_t *s, double readout_s)
{
    if (readout_s <= 0)
        return 1;
    int k = (int)ceil(readout_s / 0.001 - 1e-9);
    if (k > 32)
        k = 32;
    if (k > s->h / 8)
        k = s->h / 8;
    return k < 1 ? 1 : k;
}

/* A frame. Global shutter (look.readout 0): the canvas at the frame's time t, through the
 * camera. Rolling shutter: image row y (0 top, of H) is exposed centred on
 *   t + ((y + 0.5) / H - 0.5) * readout * period,
 * the middle row at t (the presentation time), each row's motion-blur window centred on its
 * own time. Rows are made in K bands (kr_synth_readout_bands): band b, rows y0 .. y1-1,
 * takes the canvas at its rows' mean time, so a row's picture is off its time by at most
 * half a band's readout/K; the exposure gain (mains flicker) is each row's own. The lens
 * blur runs over the whole image after the bands. */
kr_status kr_synth_render_do(kr_synth_t *s, int frame, kr_image_t *out)
{
    kr_synth_render *r = s->render;
    double t = (double)kr_synth_frame_t_us(s, frame) / 1e6;
    double period = kr_synth_period_at(s, t);
    double shutter = period * s->look.shutter, readout = period * s->look.readout;
    int bands = kr_synth_readout_bands(s, readout);
    kr_image_t canvas = {r->cw, r->ch, r->cw * 3, 3, r->work};
    kr_image_t img = {s->w, s->h, s->w * 3, 3, r->frame};
    kr_status st;
    if (bands <= 1) {
        render_canvas(s, t, shutter, NULL);
        if ((st = kr_cv_synth_remap(r->remap, &canvas, &img, r->border)) != KR_OK)
            return st;
    } else {
        for (int b = 0; b < bands; b++) {
            int y0 = (int)((int64_t)s->h * b / bands), y1 = (int)((int64_t)s->h * (b + 1) / bands);
            double tb = t + ((y0 + y1) * 0.5 / s->h - 0.5) * readout;
            rect need = r->rowbox[y0];
            for (int y = y0 + 1; y < y1; y++)
                need = runion(need, r->rowbox[y]);
            render_canvas(s, tb, shutter, &need);
            if ((st = kr_cv_synth_remap_rows(r->remap, &canvas, &img, y0, y1, r->border)) != KR_OK)
                return st;
        }
    }
    /* lens softness */
    if (s->look.blur > 0 && (st = kr_cv_synth_blur(&img, s->look.blur)) != KR_OK)
        return st;
    /* exposure (flicker, white balance), vignetting, sensor noise; with a readout, each row
     * has the gain of its own time (not its band's: mains flicker makes smooth bands of light
     * as on a phone, not steps at the bands' edges) */
    kr_synth_rng fr;
    kr_synth_rng_seed(&fr, s->look_seed, 1000 + (uint64_t)frame);
    size_t off = (size_t)(kr_synth_rng_u64(&fr) % NOISE_PAD), rowpx = (size_t)s->w * 3;
    if (readout > 0) {
        for (int y = 0; y < s->h; y++) {
            double ty = t + ((y + 0.5) / s->h - 0.5) * readout;
            size_t o = (size_t)y * rowpx;
            photometric(r->frame + o, r->vig + o, r->noise + off + o, rowpx, (int)lround(kr_synth_gain_at(s, ty) * 256));
        }
    } else {
        int g8 = (int)lround(kr_synth_frame_gain(s, frame) * 256);
        photometric(r->frame, r->vig, r->noise + off, rowpx * s->h, g8);
    }
    *out = img;
    return KR_OK;
}
