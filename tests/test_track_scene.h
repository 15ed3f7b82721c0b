/* test_track_scene.h - drawn camera frames for the tracker and event tests: a
 * textured mat, light cards and a skin-coloured arm with its shadow (mat mm in, px out).
 * SPDX-License-Identifier: MIT */
#ifndef TEST_TRACK_SCENE_H
#define TEST_TRACK_SCENE_H
#include <math.h>
#include <stdint.h>
#include <string.h>

#define FW 960
#define FH 600
#define SCALE 0.85 /* px per mm of the drawn camera */

/* camera: mat mm -> px, a plain scale with A at the bottom, slightly shifted */
static inline int map_fn(void *ctx, double x, double y, double *px, double *py)
{
    (void)ctx;
    *px = FW / 2.0 + 3.0 + x * SCALE;
    *py = FH / 2.0 - 2.0 - y * SCALE;
    return 0;
}

static uint8_t frame[FW * FH * 3];
static uint8_t base[FW * FH * 3];

static inline void put(uint8_t *img, int x, int y, double b, double g, double r)
{
    if (x < 0 || y < 0 || x >= FW || y >= FH)
        return;
    uint8_t *p = img + ((size_t)y * FW + x) * 3;
    p[0] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
    p[1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
    p[2] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
}

static unsigned rng = 12345;
static inline double rnd(void)
{
    rng = rng * 1103515245u + 12345u;
    return ((rng >> 8) & 0xffff) / 65535.0;
}

/* tatami-ish: yellow-green with woven stripes and noise */
static inline void draw_mat(void)
{
    for (int y = 0; y < FH; y++)
        for (int x = 0; x < FW; x++) {
            double s = 12 * sin(x * 0.9) + 6 * ((y / 3) % 2) + 6 * (rnd() - 0.5);
            put(base, x, y, 80 + s, 150 + s, 165 + s);
        }
}

static inline void draw_card(uint8_t *img, double cx, double cy)
{
    double px, py;
    map_fn(NULL, cx, cy, &px, &py);
    int hw = (int)(26 * SCALE), hh = (int)(36.5 * SCALE);
    for (int y = (int)py - hh; y <= (int)py + hh; y++)
        for (int x = (int)px - hw; x <= (int)px + hw; x++) {
            double k = ((x + y) % 7 == 0) ? 40 : 0; /* some "text" */
            put(img, x, y, 225 - k, 232 - k, 236 - k);
        }
}

/* tatami of another colour (b, g, r): a pale mat whose bare patches read as a card's
 * shadow (same chroma, darker) rather than as a different colour */
static inline void draw_mat_colour(double b, double g, double r)
{
    for (int y = 0; y < FH; y++)
        for (int x = 0; x < FW; x++) {
            double s = 8 * sin(x * 0.9) + 4 * ((y / 3) % 2) + 4 * (rnd() - 0.5);
            put(base, x, y, b + s, g + s, r + s);
        }
}

/* A card rotated by a degrees counter-clockwise (in mat mm) about its centre, drawn
 * with sub-pixel coverage (4x4 samples per pixel) so that its edges are exact. */
static inline void draw_card_rot(uint8_t *img, double cx, double cy, double a)
{
    double ca = cos(a * 3.14159265358979323846 / 180), sa = sin(a * 3.14159265358979323846 / 180);
    double px, py;
    map_fn(NULL, cx, cy, &px, &py);
    for (int y = (int)py - 60; y <= (int)py + 60; y++)
        for (int x = (int)px - 60; x <= (int)px + 60; x++) {
            if (x < 0 || y < 0 || x >= FW || y >= FH)
                continue;
            int in = 0;
            for (int sy = 0; sy < 4; sy++)
                for (int sx = 0; sx < 4; sx++) {
                    double mx = (x + (sx + 0.5) / 4 - 0.5 - FW / 2.0 - 3.0) / SCALE - cx;
                    double my = (FH / 2.0 - 2.0 - (y + (sy + 0.5) / 4 - 0.5)) / SCALE - cy;
                    double lx = ca * mx + sa * my, ly = -sa * mx + ca * my;
                    in += fabs(lx) <= 26 && fabs(ly) <= 36.5;
                }
            if (!in)
                continue;
            uint8_t *p = img + ((size_t)y * FW + x) * 3;
            double f = in / 16.0, k = ((x + y) % 7 == 0 && in == 16) ? 40 : 0;
            put(img, x, y, p[0] * (1 - f) + (225 - k) * f, p[1] * (1 - f) + (232 - k) * f, p[2] * (1 - f) + (236 - k) * f);
        }
}

/* A's arm from the bottom edge at (ax, -420) mm to the fingertip (tx, ty); shadow
 * offset by (sx, sy) mm, drawn first (darker mat colour, same chroma). with_arm: 0 shadow
 * only, 1 skin-coloured arm, 2 arm in a white (card-coloured) sleeve up to 60 % of its length. */
/* frame (BGR) -> planar 4:2:0 into the caller's planes y (FW x FH), u, v (FW/2 x FH/2):
 * limited or full range, BT.709 or BT.601, chroma the mean of each 2x2 block */
static inline void scene_to_yuv(int full, int bt709, uint8_t *yuv_y, uint8_t *yuv_u, uint8_t *yuv_v)
{
    double kr = bt709 ? 0.2126 : 0.299, kb = bt709 ? 0.0722 : 0.114, kg = 1 - kr - kb;
    double ys = full ? 255.0 / 255 : 219.0 / 255, yo = full ? 0 : 16, cs = full ? 255.0 / 255 : 224.0 / 255;
    for (int y = 0; y < FH; y += 2)
        for (int x = 0; x < FW; x += 2) {
            double su = 0, sv = 0;
            for (int k = 0; k < 4; k++) {
                int xx = x + (k & 1), yy = y + (k >> 1);
                const uint8_t *p = frame + ((size_t)yy * FW + xx) * 3;
                double Y = kr * p[2] + kg * p[1] + kb * p[0];
                yuv_y[yy * FW + xx] = (uint8_t)lround(yo + ys * Y);
                su += (p[0] - Y) / (2 * (1 - kb));
                sv += (p[2] - Y) / (2 * (1 - kr));
            }
            double u = 128 + cs * su / 4, v = 128 + cs * sv / 4;
            yuv_u[(y / 2) * (FW / 2) + x / 2] = (uint8_t)(u < 0 ? 0 : u > 255 ? 255 : lround(u));
            yuv_v[(y / 2) * (FW / 2) + x / 2] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
        }
}

/* An arm entering at (ax, ay) mm (a player's edge: y = -420 A, +420 B) with its fingertip at
 * (tx, ty), its shadow drawn first offset by (sx, sy); with_arm 0 shadow only, 2 a light
 * sleeve over the first 60 % of it, 3 that sleeve and pale skin beyond it (BGR 140, 212,
 * 252: over the pale tatami of draw_mat_colour(106, 207, 251) its colour is 0.087 off), 4
 * dark skin, 5 the plain arm with its last 12 % (the fingers) 15 levels darker. */
static inline void draw_arm_from(uint8_t *img, double ax, double ay, double tx, double ty, double sx, double sy,
                                 int with_arm)
{
    for (int pass = 0; pass < 2; pass++) {
        double ox = pass == 0 ? sx : 0, oy = pass == 0 ? sy : 0;
        if (pass == 1 && !with_arm)
            break;
        for (int y = 0; y < FH; y++)
            for (int x = 0; x < FW; x++) {
                double mx = (x - FW / 2.0 - 3.0) / SCALE - ox, my = (FH / 2.0 - 2.0 - y) / SCALE - oy;
                /* distance to the segment (ax,ay)-(tx,ty) */
                double dx = tx - ax, dy = ty - ay, L2 = dx * dx + dy * dy;
                double s = ((mx - ax) * dx + (my - ay) * dy) / L2;
                if (s < 0 || s > 1)
                    continue;
                double qx = ax + s * dx - mx, qy = ay + s * dy - my;
                double rad = s > 0.85 ? 38 * sqrt((1 - s) / 0.15) : 40;
                if (qx * qx + qy * qy > rad * rad)
                    continue;
                uint8_t *p = img + ((size_t)y * FW + x) * 3;
                if (pass == 0)
                    put(img, x, y, p[0] * 0.62, p[1] * 0.62, p[2] * 0.62);
                else if (with_arm == 5 && s > 0.88) /* fingers shaded 15 darker (settling onto a card) */
                    put(img, x, y, 105 + 5 * (rnd() - 0.5), 125 + 5 * (rnd() - 0.5), 200 + 5 * (rnd() - 0.5));
                else if (with_arm == 4) /* dark skin, bare arm */
                    put(img, x, y, 45 + 4 * (rnd() - 0.5), 62 + 4 * (rnd() - 0.5), 98 + 4 * (rnd() - 0.5));
                else if (with_arm >= 2 && s < 0.6)
                    put(img, x, y, 224 + 4 * (rnd() - 0.5), 231 + 4 * (rnd() - 0.5), 236 + 4 * (rnd() - 0.5));
                else if (with_arm == 3)
                    put(img, x, y, 140 + 3 * (rnd() - 0.5), 212 + 3 * (rnd() - 0.5), 252 + 3 * (rnd() - 0.5));
                else
                    put(img, x, y, 120 + 5 * (rnd() - 0.5), 140 + 5 * (rnd() - 0.5), 215 + 5 * (rnd() - 0.5));
            }
    }
}

/* A's arm, entering from A's edge at x = ax. */
static inline void draw_arm(uint8_t *img, double ax, double tx, double ty, double sx, double sy, int with_arm)
{
    draw_arm_from(img, ax, -420, tx, ty, sx, sy, with_arm);
}

#endif /* TEST_TRACK_SCENE_H */
