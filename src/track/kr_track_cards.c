/* kr_track_cards.c - cards: rotated pose fits on the camera frame, rest footprints, and
 * the follower that keeps a moving card's id (prediction, speed-sized search, re-acquire).
 * SPDX-License-Identifier: MIT */
#include "kr_track.h"

#include "kr_track_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define DEG 0.017453292519943295
/* times in frames of 60 fps footage (1/60 s each), scaled to the frame rate */
#define REST_STILL_FRAMES 8 /* followed card steady (< 1.5 mm per 1/60 s) this long: at rest */
#define LOST_AFTER_US 150000
#define REACQ_EVERY 4 /* between searches for a lost card */
#define UNTANGLE_MM 10.0 /* two followed cards' centres this near: one card seen twice (untangle) */
#define RESTING_MM 20.0  /* a followed card's evidence this near a card at rest is that card's (follow) */
#define EVIDENCE_STILL_MAX 20 /* pixels unchanged this long are no evidence of a moving card */

static double sqr(double a) { return a * a; }

/* Angle in degrees folded into (-90, 90] (a card's outline is symmetric by 180). */
static double fold_angle(double a)
{
    while (a > 90)
        a -= 180;
    while (a <= -90)
        a += 180;
    return a;
}

/* Camera pixel (raw) of mat point (x, y) mm, bilinear through the stored camera
 * coordinates of the mat pixel grid; 0 where the point has none. ext: beyond the warped
 * area's left or right edge (a card swept off the field's side), each of the two rows'
 * camera coordinates extrapolated along the row by the cubic through four of its columns
 * EXT_STEP mat pixels apart from that edge inwards (the camera's map is smooth: perspective
 * and a lens's radial distortion; on the synthetic cameras within 0.1 px 200 mm beyond),
 * up to EXT_MAX mat pixels out. */
#define EXT_STEP 25
#define EXT_MAX 80
static int cam_at(const kr_track_t *t, double x, double y, int ext, double *px, double *py)
{
    double u, v;
    kr_track_mm_to_mat_(t, x, y, &u, &v);
    u -= 0.5;
    v -= 0.5;
    if (ext && v >= 0 && (int)v + 1 < t->h && (u < 0 || u >= t->w - 1) && u > -EXT_MAX && u < t->w - 1 + EXT_MAX &&
        t->w > 3 * EXT_STEP + 1) {
        int iv = (int)v, e = u < 0 ? 0 : t->w - 1, dir = u < 0 ? 1 : -1;
        double fv = v - iv, r[2][2];
        for (int row = 0; row < 2; row++) {
            const float *cx = t->camxy + 2 * (size_t)(iv + row) * t->w;
            r[row][0] = r[row][1] = 0;
            for (int i = 0; i < 4; i++) {
                int ci = e + dir * EXT_STEP * i;
                if (cx[2 * ci] < 0)
                    return 0;
                double l = 1; /* Lagrange basis of node i at u */
                for (int j = 0; j < 4; j++)
                    if (j != i)
                        l *= (u - (e + dir * EXT_STEP * j)) / (double)(dir * EXT_STEP * (i - j));
                r[row][0] += l * cx[2 * ci];
                r[row][1] += l * cx[2 * ci + 1];
            }
        }
        *px = (1 - fv) * r[0][0] + fv * r[1][0];
        *py = (1 - fv) * r[0][1] + fv * r[1][1];
        return *px >= 0 && *py >= 0;
    }
    if (u < 0 || v < 0) /* (floor would be negative: outside) */
        return 0;
    int iu = (int)u, iv = (int)v; /* = floor: not negative */
    if (iu < 0 || iv < 0 || iu + 1 >= t->w || iv + 1 >= t->h)
        return 0;
    double fu = u - iu, fv = v - iv;
    const float *c00 = t->camxy + 2 * ((size_t)iv * t->w + iu), *c01 = c00 + 2, *c10 = c00 + 2 * (size_t)t->w,
                *c11 = c10 + 2;
    if (c00[0] < 0 || c01[0] < 0 || c10[0] < 0 || c11[0] < 0)
        return 0;
    *px = (1 - fv) * ((1 - fu) * c00[0] + fu * c01[0]) + fv * ((1 - fu) * c10[0] + fu * c11[0]);
    *py = (1 - fv) * ((1 - fu) * c00[1] + fu * c01[1]) + fv * ((1 - fu) * c10[1] + fu * c11[1]);
    return *px >= 0 && *py >= 0;
}

/* B+G+R of the camera frame at mat point (x, y) mm, bilinear (cam_at; ext as there); -1
 * where the point has no camera pixel. */
static double frame_at_(const kr_track_t *t, const kr_track_src *f, double x, double y, int ext)
{
    double px, py;
    if (!cam_at(t, x, y, ext, &px, &py))
        return -1;
    int x0 = (int)px, y0 = (int)py; /* = floor */
    if (x0 < 0 || y0 < 0 || x0 + 1 >= t->fw || y0 + 1 >= t->fh)
        return -1;
    double fx = px - x0, fy = py - y0, s00, s01, s10, s11;
    if (f->bgr) {
        const uint8_t *p = f->bgr->px + (size_t)y0 * f->bgr->stride + (size_t)x0 * 3, *q = p + f->bgr->stride;
        s00 = p[0] + p[1] + p[2];
        s01 = p[3] + p[4] + p[5];
        s10 = q[0] + q[1] + q[2];
        s11 = q[3] + q[4] + q[5];
    } else {
        uint8_t d[4][3];
        kr_track_yuv_px_(f, x0, y0, d[0]);
        kr_track_yuv_px_(f, x0 + 1, y0, d[1]);
        kr_track_yuv_px_(f, x0, y0 + 1, d[2]);
        kr_track_yuv_px_(f, x0 + 1, y0 + 1, d[3]);
        s00 = d[0][0] + d[0][1] + d[0][2];
        s01 = d[1][0] + d[1][1] + d[1][2];
        s10 = d[2][0] + d[2][1] + d[2][2];
        s11 = d[3][0] + d[3][1] + d[3][2];
    }
    return (1 - fy) * ((1 - fx) * s00 + fx * s01) + fy * ((1 - fx) * s10 + fx * s11);
}

static double frame_at(const kr_track_t *t, const kr_track_src *f, double x, double y)
{
    return frame_at_(t, f, x, y, 0);
}

/* B, G, R of the camera frame at mat point (x, y) mm into bgr (as frame_at_, ext as there);
 * 0 where the point has no camera pixel. */
static int frame_bgr_at(const kr_track_t *t, const kr_track_src *f, double x, double y, double *bgr)
{
    double px, py;
    if (!cam_at(t, x, y, 1, &px, &py))
        return 0;
    int x0 = (int)px, y0 = (int)py; /* = floor */
    if (x0 < 0 || y0 < 0 || x0 + 1 >= t->fw || y0 + 1 >= t->fh)
        return 0;
    double fx = px - x0, fy = py - y0;
    uint8_t d[4][3];
    if (f->bgr) {
        const uint8_t *p = f->bgr->px + (size_t)y0 * f->bgr->stride + (size_t)x0 * 3, *q = p + f->bgr->stride;
        memcpy(d[0], p, 3);
        memcpy(d[1], p + 3, 3);
        memcpy(d[2], q, 3);
        memcpy(d[3], q + 3, 3);
    } else {
        kr_track_yuv_px_(f, x0, y0, d[0]);
        kr_track_yuv_px_(f, x0 + 1, y0, d[1]);
        kr_track_yuv_px_(f, x0, y0 + 1, d[2]);
        kr_track_yuv_px_(f, x0 + 1, y0 + 1, d[3]);
    }
    for (int c = 0; c < 3; c++)
        bgr[c] = (1 - fy) * ((1 - fx) * d[0][c] + fx * d[1][c]) + fy * ((1 - fx) * d[2][c] + fx * d[3][c]);
    return 1;
}

/* Edge contrast of a card outline at pose (x, y, a degrees): mean brightness in thin
 * bands 1-4 mm inside the four edges minus the same just outside. Unlike an
 * inside-minus-surround test, it changes with every sub-millimetre shift of an edge.
 * coarse: every 5 mm along the edges at two depths (a third of the samples), for the
 * first, coarse steps of a search. */
static double edge_score(kr_track_t *t, const kr_track_src *f, double x, double y, double a, int coarse)
{
    static const double dd[3] = {1.2, 2.6, 4.0};
    double ca = cos(a * DEG), sa = sin(a * DEG), hx = KR_TRACK_CARD_W_MM / 2, hy = KR_TRACK_CARD_H_MM / 2;
    double sum = 0;
    t->n_edge_scores++;
    int n = 0;
    for (int e = 0; e < 4; e++) {
        /* edge e: outward normal (nx, ny) in the card's frame, half length L, distance D */
        double nx = e == 0 ? 1 : e == 1 ? -1 : 0, ny = e == 2 ? 1 : e == 3 ? -1 : 0;
        double L = nx != 0 ? hy : hx, D = nx != 0 ? hx : hy;
        for (double s = -L + 5; s <= L - 5; s += coarse ? 5.0 : 2.5)
            for (int k = 0; k < 3; k += coarse ? 2 : 1) {
                double lx_in = nx * (D - dd[k]) + ny * s, ly_in = ny * (D - dd[k]) + nx * s;
                double lx_out = nx * (D + dd[k]) + ny * s, ly_out = ny * (D + dd[k]) + nx * s;
                double vi = frame_at(t, f, x + ca * lx_in - sa * ly_in, y + sa * lx_in + ca * ly_in);
                double vo = frame_at(t, f, x + ca * lx_out - sa * ly_out, y + sa * lx_out + ca * ly_out);
                if (vi < 0 || vo < 0)
                    continue;
                sum += vi - vo;
                n++;
            }
    }
    return n >= 40 ? sum / n : -1e30;
}

static double search_a(kr_track_t *t, const kr_track_src *f, double x, double y, double *a, double r,
                       double s, int coarse)
{
    double best = -1e30, ba = *a, ca = *a;
    for (double da = -r; da <= r + 1e-9; da += s) {
        double sc = edge_score(t, f, x, y, ca + da, coarse);
        if (sc > best) {
            best = sc;
            ba = ca + da;
        }
    }
    *a = ba;
    return best;
}

/* Line search of edge_score along x (axis 0) or y (axis 1) around the current (x, y)
 * within +-r mm at step s, angle fixed; keeps the current point unless another scores
 * higher. */
static double search_line(kr_track_t *t, const kr_track_src *f, double *x, double *y, double a, int axis,
                          double r, double s, double x0, double y0, double prior_mm, int coarse)
{
    double best = -1e30, bx = *x, by = *y, cx = *x, cy = *y;
    for (double e = -r; e <= r + 1e-9; e += s) {
        double px = cx + (axis == 0 ? e : 0), py = cy + (axis == 1 ? e : 0);
        double sc = edge_score(t, f, px, py, a, coarse) - prior_mm * (sqr(px - x0) + sqr(py - y0));
        if (sc > best) {
            best = sc;
            bx = px;
            by = py;
        }
    }
    *x = bx;
    *y = by;
    return best;
}

/* The position search of fit_pose: x and y in turn (the left and right edges move with
 * x, the near and far ones with y, so the score is nearly separable), `rounds` times;
 * about 2r/s x 2 x rounds scores instead of (2r/s)^2 for the full grid. */
static double search_xy_sep(kr_track_t *t, const kr_track_src *f, double *x, double *y, double a, double r,
                            double s, double x0, double y0, double prior_mm, int rounds, int coarse)
{
    double sc = -1e30;
    for (int k = 0; k < rounds; k++) {
        search_line(t, f, x, y, a, 0, r, s, x0, y0, prior_mm, coarse);
        sc = search_line(t, f, x, y, a, 1, r, s, x0, y0, prior_mm, coarse);
    }
    return sc;
}

/* Fits a card's pose on the camera frame: position within +-r_xy mm, angle within
 * +-r_a degrees of the start, coarse to fine to 0.125 mm and 0.1 degree. About 100 edge
 * scores (the position by line searches, search_xy_sep), the first 49 of them coarse. */
static double fit_pose(kr_track_t *t, const kr_track_src *f, double *x, double *y, double *a, double r_xy,
                       double r_a)
{
    double x0 = *x, y0 = *y;
    double prior = 0.02; /* brightness units per mm^2: ties go to the start */
    search_xy_sep(t, f, x, y, *a, r_xy, r_xy > 6 ? 2.0 : r_xy > 3 ? 1.5 : 0.75, x0, y0, prior, 2, 1);
    if (r_a > 0)
        search_a(t, f, *x, *y, a, r_a, r_a > 4 ? 1.0 : 0.5, 1);
    search_xy_sep(t, f, x, y, *a, 1.5, 0.5, x0, y0, prior, 1, 0);
    if (r_a > 0)
        search_a(t, f, *x, *y, a, 1.0, 0.25, 0);
    search_xy_sep(t, f, x, y, *a, 0.75, 0.25, x0, y0, prior, 1, 0);
    if (r_a > 0)
        search_a(t, f, *x, *y, a, 0.3, 0.1, 0);
    double sc = search_xy_sep(t, f, x, y, *a, 0.25, 0.125, x0, y0, prior, 1, 0);
    *a = fold_angle(*a);
    return sc;
}

/* Pose of a card come to rest anywhere at any angle: a coarse joint search over every
 * angle (6 degree steps) and +-r_xy mm (3 mm steps), then fit_pose around the best.
 * About 2500 edge scores a round, coarse ones (a third of the samples) but for the final
 * fit: run once per card coming to rest, not per frame. A best on the square's border may lie
 * beyond it (the followed centre leant on the hand leaving the card): searched again
 * around it, at most twice (look 7038 match_b at 60 fps: card 72 put down by a send, its
 * followed centre 22 mm off, fitted 12 mm off and turned a quarter turn, so that the
 * footprint held bare mat and an arm passing over it later read as the card moving). */
double kr_track_fit_pose_wide_(kr_track_t *t, const kr_track_src *f, double *x, double *y, double *a, double r_xy)
{
    double best = -1e30, bx = *x, by = *y, ba = *a;
    for (int round = 0; round < 3; round++) {
        const double cx = bx, cy = by, ca = *a;
        for (double da = -90; da < 90; da += 6)
            for (double dy = -r_xy; dy <= r_xy + 1e-9; dy += 3)
                for (double dx = -r_xy; dx <= r_xy + 1e-9; dx += 3) {
                    double sc = edge_score(t, f, cx + dx, cy + dy, ca + da, 1);
                    if (sc > best) {
                        best = sc;
                        bx = cx + dx;
                        by = cy + dy;
                        ba = ca + da;
                    }
                }
        if (fabs(bx - cx) < r_xy - 1 && fabs(by - cy) < r_xy - 1)
            break;
    }
    *x = bx;
    *y = by;
    *a = ba;
    return fit_pose(t, f, x, y, a, 3.0, 4.0);
}

/* Grey level inside the outline minus a ring around it (0..255), on the frame. */
static double card_contrast(const kr_track_t *t, const kr_track_src *f, double x, double y, double a)
{
    double ca = cos(a * DEG), sa = sin(a * DEG), in = 0, out = 0;
    int ni = 0, no = 0;
    for (double yy = -45; yy <= 45; yy += 3)
        for (double xx = -34; xx <= 34; xx += 3) {
            int inside = fabs(xx) < 23 && fabs(yy) < 33, ring = fabs(xx) > 29 || fabs(yy) > 40;
            if (!inside && !ring)
                continue;
            double s = frame_at(t, f, x + ca * xx - sa * yy, y + sa * xx + ca * yy);
            if (s < 0)
                continue;
            if (inside) {
                in += s;
                ni++;
            } else {
                out += s;
                no++;
            }
        }
    return ni && no ? (in / ni - out / no) / 3.0 : 0;
}

/* Footprint (mat pixels well inside the rotated outline) and template at the card's rest
 * pose; the template from the background (from_bg) or from the current frame / gain g. */
static void card_take_rest(kr_track_t *t, int k, int from_bg, double g)
{
    kr_track_card *o = &t->cards[k];
    kr_track_cstate *c = &t->cs[k];
    double m = t->cfg.mm_per_px * 0.9 + 1.5; /* stay clear of edges: pose error, blur */
    double ax = KR_TRACK_CARD_W_MM / 2 - m, ay = KR_TRACK_CARD_H_MM / 2 - m;
    double ca = cos(o->rest_angle_deg * DEG), sa = sin(o->rest_angle_deg * DEG);
    double u0, v0, u1, v1;
    kr_track_mm_to_mat(t, o->rest_x_mm - 46, o->rest_y_mm + 46, &u0, &v0);
    kr_track_mm_to_mat(t, o->rest_x_mm + 46, o->rest_y_mm - 46, &u1, &v1);
    c->n_fp = 0;
    float ig = (float)(1.0 / (g > 0.1 ? g : 1.0));
    for (int v = (int)floor(v0); v <= (int)ceil(v1); v++)
        for (int u = (int)floor(u0); u <= (int)ceil(u1); u++) {
            if (u < 0 || v < 0 || u >= t->w || v >= t->h || c->n_fp >= c->cap_fp)
                continue;
            int i = v * t->w + u;
            if (t->lut_off[i] < 0)
                continue;
            double x, y;
            kr_track_mat_to_mm(t, u + 0.5, v + 0.5, &x, &y);
            double dx = x - o->rest_x_mm, dy = y - o->rest_y_mm;
            if (fabs(ca * dx + sa * dy) > ax || fabs(-sa * dx + ca * dy) > ay)
                continue;
            for (int ch = 0; ch < 3; ch++) {
                float val = from_bg ? t->bg[(size_t)i * 3 + ch] : t->mat[(size_t)i * 3 + ch] * ig;
                c->tmpl[c->n_fp * 3 + ch] = (uint8_t)(val > 254.5f ? 255 : val + 0.5f);
            }
            c->fp[c->n_fp++] = i;
        }
    c->fp_x = o->rest_x_mm;
    c->fp_y = o->rest_y_mm;
    c->still_frames = 0;
    c->misses = 0;
    memset(t->fpmask, 0, (size_t)t->n);
    for (int q = 0; q < t->n_cards; q++)
        for (int j = 0; j < t->cs[q].n_fp; j++)
            t->fpmask[t->cs[q].fp[j]] = 1;
    o->x_mm = o->rest_x_mm;
    o->y_mm = o->rest_y_mm;
    o->angle_deg = o->rest_angle_deg;
    o->vx_mm_s = o->vy_mm_s = 0;
    o->moved_mm = 0;
    o->displaced = 0;
    o->moving = 0;
    o->lost = 0;
    o->found = 1;
    o->whole_ok = 0;
    o->whole_x_mm = o->x_mm;
    o->whole_y_mm = o->y_mm;
    o->rejoined = 0;
}

/* Reference colours of cards and bare mat, from the settled background. */
static void reference_colours(kr_track_t *t)
{
    double cs[3] = {0}, ms[3] = {0};
    long cn = 0, mn = 0;
    for (int k = 0; k < t->n_cards; k++)
        for (int j = 0; j < t->cs[k].n_fp; j++) {
            const float *b = t->bg + (size_t)t->cs[k].fp[j] * 3;
            for (int c = 0; c < 3; c++)
                cs[c] += b[c];
            cn++;
        }
    /* bare mat: the 30 mm gap between the territories and the field's side strips */
    for (int v = 0; v < t->h; v++)
        for (int u = 0; u < t->w; u++) {
            double x, y;
            kr_track_mat_to_mm(t, u + 0.5, v + 0.5, &x, &y);
            if (fabs(y) > 10 || fabs(x) > 430 || t->lut_off[v * t->w + u] < 0)
                continue;
            const float *b = t->bg + (size_t)(v * t->w + u) * 3;
            for (int c = 0; c < 3; c++)
                ms[c] += b[c];
            mn++;
        }
    for (int c = 0; c < 3; c++) {
        t->card_rgb[c] = cn ? cs[c] / cn : 230;
        t->mat_rgb[c] = mn ? ms[c] / mn : 120;
    }
}

/* The start-up pose fits of cards [k0, k1): from their layout positions (nominal; cards
 * lie a few mm and degrees off) into pose[k] (x, y mm, angle degrees). Reads the frame
 * and the tracker's tables only (t may be a copy: it counts its edge scores). */
static void fit_start_poses(kr_track_t *t, const kr_track_src *frame, int k0, int k1, double (*pose)[3])
{
    for (int k = k0; k < k1; k++) {
        double x = t->cards[k].x_mm, y = t->cards[k].y_mm, a = 0;
        fit_pose(t, frame, &x, &y, &a, 6.0, 3.0);
        pose[k][0] = x;
        pose[k][1] = y;
        pose[k][2] = a;
    }
}

typedef struct fit_job {
    kr_track_t          tc;   /* a shallow copy of the tracker: its tables (read only), its own count */
    const kr_track_src *frame;
    int                 k0, k1;
    double            (*pose)[3];
} fit_job;

static void *fit_job_run(void *arg)
{
    fit_job *j = arg;
    fit_start_poses(&j->tc, j->frame, j->k0, j->k1, j->pose);
    return NULL;
}

void kr_track_cards_start_(kr_track_t *t, const kr_track_src *frame)
{
    /* The fits (about 100 edge scores a card, 60-100 ms for 50 cards) are the one long
     * step of a run, on its third frame: the second half of the cards is fitted on a
     * helper thread (once per run), so live's frames wait about half as long. Each fit
     * reads only the frame: the poses are the same whichever thread fits them. */
    double   pose[KR_TRACK_MAX_CARDS][3];
    int      half = t->n_cards / 2;
    fit_job *job = t->n_cards >= 8 && !t->plain ? malloc(sizeof *job) : NULL;
    pthread_t th;
    const long scores0 = t->n_edge_scores;
    if (job) {
        job->tc = *t;
        job->frame = frame;
        job->k0 = half;
        job->k1 = t->n_cards;
        job->pose = pose;
        if (pthread_create(&th, NULL, fit_job_run, job) != 0) {
            free(job);
            job = NULL;
        }
    }
    fit_start_poses(t, frame, 0, job ? half : t->n_cards, pose);
    if (job) {
        pthread_join(th, NULL);
        t->n_edge_scores += job->tc.n_edge_scores - scores0;
        free(job);
    }
    for (int k = 0; k < t->n_cards; k++) {
        kr_track_card *o = &t->cards[k];
        double x = pose[k][0], y = pose[k][1], a = pose[k][2];
        o->contrast = card_contrast(t, frame, x, y, a);
        o->x_mm = o->rest_x_mm = x;
        o->y_mm = o->rest_y_mm = y;
        o->angle_deg = o->rest_angle_deg = a;
        card_take_rest(t, k, 1, 1.0);
        kr_track_card_outline_(o);
    }
    reference_colours(t);
}

/* Evidence that mat pixel i shows (part of) a card now: card-coloured foreground, or
 * foreground (not a hand) brighter than the background there whose colour leans from
 * the mat's towards the cards' (a blurred card over the mat). */
typedef struct { double dn[3], dd, mn[3]; } card_axis;

static int card_evidence(const kr_track_t *t, const card_axis *ax, int i, double g)
{
    uint8_t cl = t->cls[i];
    if (t->sleeve_ok && t->sleeve[i])
        return 0;
    if (t->still[i] > kr_track_nframes_(t, EVIDENCE_STILL_MAX)) {
        /* unchanged for long (t->still counts up to the previous frame; look at this one):
         * not the card in motion but a resting sleeve or a knee */
        const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
        if (abs(I[0] - P[0]) + abs(I[1] - P[1]) + abs(I[2] - P[2]) < 24)
            return 0;
    }
    if (cl == KR_CLS_CARDLIKE)
        return 2;
    if (cl != KR_CLS_FG && cl != KR_CLS_OTHER)
        return 0; /* not hand pixels: a lit arm or sleeve would pull the card onto the arm */
    const uint8_t *I = t->mat + (size_t)i * 3;
    const float *b = t->bg + (size_t)i * 3;
    double s = I[0] + I[1] + I[2] + 1.0, bs = (b[0] + b[1] + b[2]) * g + 1.0;
    if (s < 1.12 * bs)
        return 0;
    double p = 0;
    for (int c = 0; c < 3; c++)
        p += (I[c] / s - ax->mn[c]) * ax->dn[c];
    return p > 0.4 * ax->dd ? 1 : 0;
}

/* Weighted centroid of card evidence in the square of half side r mm around (x, y);
 * with moments when mom != NULL (sxx, syy, sxy about the centroid, mm^2). Returns the
 * evidence weight (pixels; blurred ones count half). */
static double evidence_centroid(const kr_track_t *t, const card_axis *ax, double g, double x, double y, double r,
                                double *cx, double *cy, double *mom, int *hand_px)
{
    double u0, v0, u1, v1;
    kr_track_mm_to_mat(t, x - r, y + r, &u0, &v0);
    kr_track_mm_to_mat(t, x + r, y - r, &u1, &v1);
    int a0 = u0 < 0 ? 0 : (int)u0, a1 = u1 >= t->w ? t->w - 1 : (int)u1;
    int b0 = v0 < 0 ? 0 : (int)v0, b1 = v1 >= t->h ? t->h - 1 : (int)v1;
    double su = 0, sv = 0, suu = 0, svv = 0, suv = 0, w = 0;
    int hp = 0;
    for (int v = b0; v <= b1; v++)
        for (int u = a0; u <= a1; u++) {
            int i = v * t->w + u;
            int e = card_evidence(t, ax, i, g);
            if (t->cls[i] == KR_CLS_HAND_A || t->cls[i] == KR_CLS_HAND_B)
                hp++;
            if (!e)
                continue;
            double we = e == 2 ? 1.0 : 0.5;
            w += we;
            su += we * u;
            sv += we * v;
            suu += we * u * u;
            svv += we * v * v;
            suv += we * u * v;
        }
    if (hand_px)
        *hand_px = hp;
    if (w <= 0)
        return 0;
    double mu = su / w, mv = sv / w;
    kr_track_mat_to_mm(t, mu + 0.5, mv + 0.5, cx, cy);
    if (mom) {
        double m2 = t->cfg.mm_per_px * t->cfg.mm_per_px;
        mom[0] = (suu / w - mu * mu) * m2;
        mom[1] = (svv / w - mv * mv) * m2;
        mom[2] = -(suv / w - mu * mv) * m2; /* v grows downwards, y upwards */
    }
    return w;
}

/* Weighted centroid of card-coloured background pixels other than the cards' at rest
 * (t->fpmask) in the square of half side r mm around (x, y): a card put down under a hand
 * and left lying there is soon taken into the background, and then no card evidence (a
 * light sleeve is card-coloured too, but foreground: v3_bodies_flicker_60, A's grey sleeve
 * read as card 66 at its angle). Returns the pixel count. */
static double colour_centroid(const kr_track_t *t, double g, double x, double y, double r, double *cx, double *cy)
{
    double u0, v0, u1, v1;
    kr_track_mm_to_mat(t, x - r, y + r, &u0, &v0);
    kr_track_mm_to_mat(t, x + r, y - r, &u1, &v1);
    int a0 = u0 < 0 ? 0 : (int)u0, a1 = u1 >= t->w ? t->w - 1 : (int)u1;
    int b0 = v0 < 0 ? 0 : (int)v0, b1 = v1 >= t->h ? t->h - 1 : (int)v1;
    double su = 0, sv = 0, w = 0;
    for (int v = b0; v <= b1; v++)
        for (int u = a0; u <= a1; u++) {
            int i = v * t->w + u;
            if (t->cls[i] != KR_CLS_BG || t->fpmask[i] || !kr_track_card_coloured_(t, t->mat + (size_t)i * 3, g))
                continue;
            w++;
            su += u;
            sv += v;
        }
    if (w > 0)
        kr_track_mat_to_mm(t, su / w + 0.5, sv / w + 0.5, cx, cy);
    return w;
}

/* Is the mat point inside the warped area and seen by the camera? */
static int in_view(const kr_track_t *t, double x, double y)
{
    double u, v;
    kr_track_mm_to_mat(t, x, y, &u, &v);
    return u >= 0 && v >= 0 && kr_track_px_in_view_(t, (int)u, (int)v);
}

double kr_track_out_over(double x_mm, double y_mm, double angle_deg)
{
    const double a = angle_deg * DEG, c = fabs(cos(a)), s = fabs(sin(a));
    double over_x = fabs(x_mm) - (KR_TRACK_FIELD_HALF_W_MM + KR_TRACK_CARD_W_MM / 2 * c + KR_TRACK_CARD_H_MM / 2 * s);
    double over_y = fabs(y_mm) - (KR_TRACK_FIELD_HALF_H_MM + KR_TRACK_CARD_W_MM / 2 * s + KR_TRACK_CARD_H_MM / 2 * c);
    return over_x > over_y ? over_x : over_y;
}

static int beyond_field(double x, double y, double angle_deg) { return kr_track_out_over(x, y, angle_deg) > 0; }

/* Finds the card evidence near (px, py): the weighted centroid in a window of half side
 * r mm, then mean shift in card-sized windows; 0 when it walks out of the window. */
static double locate(const kr_track_t *t, const card_axis *ax, double g, double px, double py, double r, double *fx,
                     double *fy, double *mom, int *hand_px)
{
    double card_px = KR_TRACK_CARD_W_MM * KR_TRACK_CARD_H_MM / (t->cfg.mm_per_px * t->cfg.mm_per_px);
    *fx = px;
    *fy = py;
    double w = evidence_centroid(t, ax, g, px, py, r, fx, fy, NULL, NULL);
    for (int it = 0; w > 0.2 * card_px && it < 3; it++)
        w = evidence_centroid(t, ax, g, *fx, *fy, 40, fx, fy, it == 2 ? mom : NULL, it == 2 ? hand_px : NULL);
    if (w <= 0.2 * card_px || sqr(*fx - px) + sqr(*fy - py) > r * r)
        return 0; /* too little, or walked out of the search window onto something else */
    return w;
}

/* The centre of a followed card's whole outline (angle a degrees) from the centroid (x, y)
 * of its visible evidence: inside the outline placed at the current estimate, a pixel of a
 * hand or shadow counts as card (it may hide the card), as does card evidence; the centroid
 * of those is the next estimate. A hand covering the card's trailing part pulls the evidence
 * centroid forward, and the outline placed there holds the hand's front over the card: each
 * round moves the estimate about half the remaining lean back towards the true centre (an
 * estimate behind the card would stay put on the arm, so it starts from the evidence
 * centroid, which is never behind). 0 when too little is seen. */
static int whole_centre(const kr_track_t *t, const card_axis *ax, double g, const kr_track_card *o, double x,
                        double y, double a, double *ox, double *oy)
{
    double mmpp = t->cfg.mm_per_px, card_px = KR_TRACK_CARD_W_MM * KR_TRACK_CARD_H_MM / (mmpp * mmpp);
    double ca = cos(a * DEG), sa = sin(a * DEG), hx = KR_TRACK_CARD_W_MM / 2, hy = KR_TRACK_CARD_H_MM / 2;
    double ra = cos(o->rest_angle_deg * DEG), rb = sin(o->rest_angle_deg * DEG);
    for (int it = 0; it < 5; it++) {
        double u0, v0, u1, v1, sx = 0, sy = 0, w = 0, ev = 0;
        kr_track_mm_to_mat(t, x - 46, y + 46, &u0, &v0);
        kr_track_mm_to_mat(t, x + 46, y - 46, &u1, &v1);
        int a0 = u0 < 0 ? 0 : (int)u0, a1 = u1 >= t->w ? t->w - 1 : (int)u1;
        int b0 = v0 < 0 ? 0 : (int)v0, b1 = v1 >= t->h ? t->h - 1 : (int)v1;
        for (int v = b0; v <= b1; v++)
            for (int u = a0; u <= a1; u++) {
                double xm, ym;
                kr_track_mat_to_mm(t, u + 0.5, v + 0.5, &xm, &ym);
                double dx = xm - x, dy = ym - y;
                if (fabs(ca * dx + sa * dy) > hx || fabs(-sa * dx + ca * dy) > hy)
                    continue;
                int i = v * t->w + u;
                uint8_t cl = t->cls[i];
                int e = card_evidence(t, ax, i, g);
                /* where it lay, the background is the card: unchanged there, it still covers it
                 * (card evidence leaves such pixels out, being still) */
                double rx = xm - o->rest_x_mm, ry = ym - o->rest_y_mm;
                if (!e && cl == KR_CLS_BG && fabs(ra * rx + rb * ry) <= hx && fabs(-rb * rx + ra * ry) <= hy)
                    e = 1;
                if (!e && cl != KR_CLS_HAND_A && cl != KR_CLS_HAND_B && cl != KR_CLS_SHADOW)
                    continue;
                ev += e != 0;
                w += 1;
                sx += xm;
                sy += ym;
            }
        if (ev < 0.2 * card_px || w <= 0)
            return 0;
        double nx = sx / w, ny = sy / w;
        int done = sqr(nx - x) + sqr(ny - y) < 0.04;
        x = nx;
        y = ny;
        if (done)
            break;
    }
    *ox = x;
    *oy = y;
    return 1;
}

/* Share of card in colour I seen as a mix of the floor M and the card (CM = card - M,
 * cm2 = |CM|^2): its projection on the line from M to the card; a colour off that line (a
 * hand, a sleeve) is no card (0). */
static double edge_cover(const double I[3], const double M[3], const double CM[3], double cm2)
{
    double d[3], p = 0, r = 0;
    for (int k = 0; k < 3; k++) {
        d[k] = I[k] - M[k];
        p += d[k] * CM[k];
    }
    p /= cm2;
    for (int k = 0; k < 3; k++)
        r += (d[k] - p * CM[k]) * (d[k] - p * CM[k]);
    return r > 0.25 * 0.25 * cm2 ? 0 : p;
}

/* The centre of a swept card from its leading edge on the camera frame (kr_track_card.edge_*),
 * searched within +-r mm along its motion (c->ux, c->uy) of where the centre is predicted,
 * (px, py): the mean brightness along EDGE_LINES lines parallel to the motion across the
 * card's leading edge, the mat's level M the mean of the last EDGE_AHEAD_MM of them (ahead of
 * the card), the card's level C its reference colour at this frame's gain (or more where the
 * profile is brighter); the edge where the profile, walked back from ahead, first reaches
 * M + (C - M) / 2: the point the card covered for half the exposure, the edge at the frame's
 * time (blur up to two card widths); the centre the edge's distance along the motion
 * behind it. 0 when no such edge is there (too little contrast, the camera does not see
 * it, a profile that does not rise behind the edge as a card's does). */
#define EDGE_LINES 5
#define EDGE_STEP_MM 1.0
#define EDGE_AHEAD_MM 12.0
#define EDGE_MAX_N 256
static int edge_centre(const kr_track_t *t, const kr_track_src *f, double g, const kr_track_card *o,
                       const kr_track_cstate *c, double px, double py, double r, double *ox, double *oy)
{
    double ux = c->ux, uy = c->uy, wx = -uy, wy = ux;
    double a = o->angle_deg * DEG, ca = cos(a), sa = sin(a);
    double hx = KR_TRACK_CARD_W_MM / 2, hy = KR_TRACK_CARD_H_MM / 2;
    double cu = fabs(ca * ux + sa * uy), su = fabs(-sa * ux + ca * uy); /* the motion in the card's frame */
    /* the leading side: the one whose normal is nearer the motion; D: centre to its middle
     * along the motion; L: its length seen across the motion */
    double D = cu >= su ? hx / cu : hy / su, L = cu >= su ? 2 * hy * cu : 2 * hx * su;
    double s0 = D - r - 12, s1 = D + r + EDGE_AHEAD_MM + 8;
    int n = (int)((s1 - s0) / EDGE_STEP_MM) + 1;
    if (n > EDGE_MAX_N || n < 20)
        return 0;
    double col[EDGE_MAX_N][EDGE_LINES][3];
    for (int i = 0; i < n; i++) { /* up to where the camera's view ends */
        double s = s0 + i * EDGE_STEP_MM;
        int ok = 1;
        for (int j = 0; j < EDGE_LINES && ok; j++) {
            double w = (j - (EDGE_LINES - 1) / 2.0) / (EDGE_LINES - 1) * 0.5 * L; /* +-0.25 of the side */
            ok = frame_bgr_at(t, f, px + s * ux + w * wx, py + s * uy + w * wy, col[i][j]);
        }
        if (!ok) {
            n = i;
            break;
        }
    }
    int na = (int)(EDGE_AHEAD_MM / EDGE_STEP_MM);
    if (n < na + 20)
        return 0;
    /* the floor ahead M (colour), the card C: its reference colour at this frame's gain */
    double M[3] = {0, 0, 0}, C[3], CM[3], cm2 = 0;
    for (int i = n - na; i < n; i++)
        for (int j = 0; j < EDGE_LINES; j++)
            for (int k = 0; k < 3; k++)
                M[k] += col[i][j][k] / (na * EDGE_LINES);
    for (int k = 0; k < 3; k++) {
        C[k] = t->card_rgb[k] * g;
        CM[k] = C[k] - M[k];
        cm2 += CM[k] * CM[k];
    }
    if (sqrt(cm2) < 0.2 * sqrt(C[0] * C[0] + C[1] * C[1] + C[2] * C[2]))
        return 0; /* a card hardly different from what is ahead of it */
    double prof[EDGE_MAX_N], mlo = 1e30, mhi = -1e30;
    for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int j = 0; j < EDGE_LINES; j++) {
            sum += edge_cover(col[i][j], M, CM, cm2);
        }
        prof[i] = sum / EDGE_LINES;
        if (i >= n - na) {
            mlo = prof[i] < mlo ? prof[i] : mlo;
            mhi = prof[i] > mhi ? prof[i] : mhi;
        }
    }
    if (mhi - mlo > 0.35)
        return 0; /* no plain floor ahead */
    int i = n - 1;
    while (i >= 0 && prof[i] < 0.5)
        i--;
    if (i < 0 || i >= n - na - (int)(6 / EDGE_STEP_MM))
        return 0; /* not seen, or too near the floor measured ahead (a blurred edge reaches it) */
    double se = s0 + (i + (prof[i] - 0.5) / (prof[i] - prof[i + 1])) * EDGE_STEP_MM;
    /* a card behind it: the coverage 10 mm further back well above half (blur spreads it at
     * most over half its width; a speck of light does not) */
    int ib = i - (int)(10 / EDGE_STEP_MM);
    if (ib < 0 || prof[ib] < 0.6 || fabs(se - D) > r)
        return 0;
    /* across the motion: the card's two sides along it (crisp: the blur runs along them),
     * just behind the leading edge (the hand pushes further back), where the coverage
     * across is a half, walked in from both ends; apart by about the card's extent across
     * the motion (else it is no card) */
    double lat[EDGE_MAX_N], wl = L / 2 + 25;
    int nl = (int)(2 * wl / EDGE_STEP_MM) + 1;
    if (nl > EDGE_MAX_N)
        return 0;
    for (int q = 0; q < nl; q++) {
        double w = -wl + q * EDGE_STEP_MM, sum = 0, I[3];
        for (int j = 0; j < 3; j++) {
            double sb = se - 5 - 3 * j;
            if (!frame_bgr_at(t, f, px + sb * ux + w * wx, py + sb * uy + w * wy, I))
                return 0;
            sum += edge_cover(I, M, CM, cm2);
        }
        lat[q] = sum / 3;
    }
    /* (so near the leading edge the blur leaves less than full cover: levels relative to
     * the most seen across) */
    double lmax = 0;
    for (int q = 0; q < nl; q++)
        lmax = lat[q] > lmax ? lat[q] : lmax;
    if (lmax < 0.5)
        return 0;
    double hl = lmax / 2;
    int q0 = 0, q1 = nl - 1;
    while (q0 < nl && lat[q0] < hl)
        q0++;
    while (q1 >= 0 && lat[q1] < hl)
        q1--;
    if (q0 <= 0 || q1 >= nl - 1 || q1 <= q0)
        return 0;
    double w0 = -wl + (q0 - (lat[q0] - hl) / (lat[q0] - lat[q0 - 1])) * EDGE_STEP_MM;
    double w1 = -wl + (q1 + (lat[q1] - hl) / (lat[q1] - lat[q1 + 1])) * EDGE_STEP_MM;
    /* a side is a step from floor to card within a few mm (a hand beside the card, or its
     * shadow, is not card-coloured all through): with one such side the other is the card's
     * extent away */
    int g4 = (int)(4 / EDGE_STEP_MM);
    int ok0 = q0 - g4 >= 0 && q0 + g4 < nl && lat[q0 - g4] < 0.25 * lmax && lat[q0 + g4] > 0.75 * lmax;
    int ok1 = q1 - g4 >= 0 && q1 + g4 < nl && lat[q1 + g4] < 0.25 * lmax && lat[q1 - g4] > 0.75 * lmax;
    double wc;
    if (ok0 && ok1 && fabs((w1 - w0) - L) <= 15)
        wc = (w0 + w1) / 2;
    else if (ok0 && w1 - w0 > 0.5 * L && w1 - w0 < L + 15)
        wc = w0 + L / 2;
    else if (ok1 && w1 - w0 > 0.5 * L && w1 - w0 < L + 15)
        wc = w1 - L / 2;
    else
        return 0;
    /* the centre is the side's half width behind it along the side's normal (nx, ny), which
     * may lean from the motion */
    double nx = cu >= su ? ca : -sa, ny = cu >= su ? sa : ca;
    if (nx * ux + ny * uy < 0) {
        nx = -nx;
        ny = -ny;
    }
    double back = se * (nx * ux + ny * uy) - (cu >= su ? hx : hy);
    *ox = px + wc * wx + back * nx;
    *oy = py + wc * wy + back * ny;
    return 1;
}

/* The edge measure's base (edge_follow): the card's centre measured at (x, y) at t_us, and
 * its velocity: from the last measured centre when there is one, else along its motion at
 * the speed so far (the hand's pushing it, its velocity when it was seen displaced, or the
 * follower's). */
static void edge_base(kr_track_cstate *c, double x, double y, int64_t t_us)
{
    if (c->et > 0 && t_us > c->et) {
        double dt = (t_us - c->et) / 1e6;
        c->evx = (x - c->ex) / dt;
        c->evy = (y - c->ey) / dt;
        c->en = 2;
    } else {
        double hs = sqrt(sqr(c->hvx) + sqr(c->hvy)), fs = sqrt(sqr(c->vx) + sqr(c->vy)), v = hs > fs ? hs : fs;
        c->evx = v * c->ux;
        c->evy = v * c->uy;
        c->en = 1;
    }
    c->ex = x;
    c->ey = y;
    c->et = t_us;
}

/* Measures a displaced card k by its leading edge (edge_centre) where the warped area does
 * not hold its whole outline, for EDGE_SPAN_US after it was seen displaced: from its last
 * measured centre (followed whole or by the edge) moved on with the velocity since, or on its
 * first frames from where the follower puts it. */
#define EDGE_SPAN_US 100000
static void edge_follow(kr_track_t *t, const kr_track_src *f, double g, int64_t t_us, int k)
{
    kr_track_card *o = &t->cards[k];
    kr_track_cstate *c = &t->cs[k];
    if (o->whole_ok || t_us - c->disp_t > EDGE_SPAN_US || (c->et > 0 && t_us <= c->et))
        return;
    double px, py, r;
    if (c->et > 0) {
        double dt = (t_us - c->et) / 1e6;
        px = c->ex + c->evx * dt;
        py = c->ey + c->evy * dt;
        /* a velocity from two measured centres predicts within a few mm; the follower's
         * (smoothed from rest) or the hand's may be far off */
        double sp = sqrt(sqr(c->evx) + sqr(c->evy));
        r = 10 + (c->en >= 2 ? 0.15 : 0.6) * sp * dt;
    } else {
        px = o->x_mm;
        py = o->y_mm;
        r = 40;
    }
    if (r > 80)
        r = 80;
    if (c->ux == 0 && c->uy == 0) {
        double dx = px - o->rest_x_mm, dy = py - o->rest_y_mm, d = sqrt(dx * dx + dy * dy);
        if (d < 8)
            return;
        c->ux = dx / d;
        c->uy = dy / d;
    }
    /* the follower's job where the warped area holds the whole outline */
    double a = o->angle_deg * DEG, ca = cos(a), sa = sin(a);
    int inside = 1;
    for (int q = 0; q < 4; q++) {
        double lx = (q & 1 ? 1 : -1) * (KR_TRACK_CARD_W_MM / 2 + 3), ly = (q & 2 ? 1 : -1) * (KR_TRACK_CARD_H_MM / 2 + 3);
        if (!in_view(t, px + ca * lx - sa * ly, py + sa * lx + ca * ly))
            inside = 0;
    }
    double ox, oy;
    if (inside || !edge_centre(t, f, g, o, c, px, py, r, &ox, &oy))
        return;
    o->edge_ok = 1;
    o->edge_x_mm = ox;
    o->edge_y_mm = oy;
    edge_base(c, ox, oy, t_us);
}

/* Card k seen displaced at t_us: its follower starts from where it lay. */
static void follow_start(kr_track_t *t, int k, int64_t t_us)
{
    kr_track_card *o = &t->cards[k];
    kr_track_cstate *c = &t->cs[k];
    o->displaced = 1;
    c->last_x = o->x_mm;
    c->last_y = o->y_mm;
    c->last_a = o->angle_deg;
    c->last_t = t_us;
    c->vx = c->vy = 0;
    c->still_frames = 0;
    c->misses = 0;
    c->hint = 0;
    c->disp_t = t_us;
    c->in_place_t = t->frames > 0 && t->last_t < t_us ? t->last_t : 0;
    c->ux = c->uy = 0;
    c->et = 0;
    c->hvx = c->hvy = 0;
    o->rejoined = 0;
}

/* A card lying across the way of card k from (x0, y0) to the evidence found at (x1, y1):
 * not displaced before this frame (t_us), its rest centre within 20 mm of that way and
 * between its ends, its footprint showing bare mat this frame (moving: it left its spot
 * too) or, a hand over a quarter of it or more, what is seen of it begun to change. A card
 * does not pass through its neighbour: the evidence beyond it is that card's, knocked
 * ahead. A card seen displaced on this same frame lay there on the last (push_out at 120
 * fps: 77 and 78 seen displaced together, 78 looked for where A's hand went, found 77's
 * card beyond 77's spot and followed it out). At 50 fps 78, pushed 20 mm, lies over a
 * third of 77's spot when 77 has flown a card width, and A's hand over most of the rest:
 * 77 changed on 0.24 of what is seen of it, not yet moving. With under_hand (k's first
 * look after a fast hand set it going: struck, it strikes its neighbour at once), a hand
 * over half of it or more, changed or not: what is seen of it may be the pusher's card
 * lying over its spot (look 7140 push_out at 60 fps, 640x360: A's hand over 0.66 of 77,
 * what was seen of it changed on 0.10 as 78 slid onto it; 78's track took 77's card 97 mm
 * beyond 77's spot and followed it out, 77's then 78's: 77's push-out 136 ms late, not
 * flagged). Not on later looks, nor for a card no fast hand set going: a card carried in
 * the hand passes over the cards under it (full_match at 30 and 120 fps, B's send at
 * 148.4-148.9 s: the evidence found on the picked-up card's first look given to a card
 * under the hand, the send taken for a rearrangement). The nearest such card, -1 none. With
 * any_rest, any card not displaced before this frame will do, changed or not (a way the
 * card may not have taken at all: follow's flight with the hand). */
static int card_across(const kr_track_t *t, int k, double x0, double y0, double x1, double y1, int64_t t_us,
                       int any_rest, int under_hand)
{
    double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);
    int best = -1;
    double bu = 2;
    if (len < KR_TRACK_CARD_W_MM / 2)
        return -1;
    for (int j = 0; j < t->n_cards; j++) {
        const kr_track_card *q = &t->cards[j];
        const double cover = q->hand_cover[0] + q->hand_cover[1];
        int hidden_change =
            (cover >= 0.25 && q->change > 0.5 * t->cfg.card_change_frac) || (under_hand && cover >= 0.5);
        if (j == k || (q->displaced && t->cs[j].disp_t < t_us) || !(any_rest || q->moving || hidden_change))
            continue;
        double rx = q->rest_x_mm - x0, ry = q->rest_y_mm - y0;
        double u = (rx * dx + ry * dy) / (len * len), off = fabs(rx * dy - ry * dx) / len;
        if (u > 0 && u < 1 && off < 20 && u < bu) {
            bu = u;
            best = j;
        }
    }
    return best;
}

static void follow_card(kr_track_t *t, const kr_track_src *frame, const card_axis *ax, double g, int64_t t_us, int k);

/* Follows displaced card k: predicts with its velocity, searches a window that grows
 * with its speed and with frames missed, mean-shifts onto the card evidence; notices
 * it leaving the view; brings it to rest (new footprint and pose) when it stays put. */
static void follow(kr_track_t *t, const kr_track_src *frame, const card_axis *ax, double g, int64_t t_us, int k)
{
    kr_track_card *o = &t->cards[k];
    kr_track_cstate *c = &t->cs[k];
    double mmpp = t->cfg.mm_per_px;
    double card_px = KR_TRACK_CARD_W_MM * KR_TRACK_CARD_H_MM / (mmpp * mmpp);
    double dt = (t_us - c->last_t) / 1e6;
    if (dt > 0.2)
        dt = 0.2;
    if (dt < 0)
        dt = 0;
    double px = c->last_x + c->vx * dt, py = c->last_y + c->vy * dt;
    double speed = sqrt(sqr(c->vx) + sqr(c->vy));
    /* just displaced (no velocity yet): a swept card may already be a card length away */
    int first = c->vx == 0 && c->vy == 0;
    const int struck = c->hint; /* (a fast hand at it as it was seen displaced: kr_track_cards_update_) */
    const double r_seen = first ? 100 : 42 + 0.6 * speed * dt; /* the window had no frame been missed */
    double r = r_seen + 20 * c->misses * t->fscale; /* 20 mm per 1/60 s missed */
    if (r > 220)
        r = 220;
    double fx = px, fy = py, mom[3] = {0, 0, 0};
    int hand_px = 0;
    double w = locate(t, ax, g, px, py, r, &fx, &fy, mom, &hand_px);
    if (c->hint) {
        /* first look after the sweep began: the card may also have gone with the hand
         * (c->hvx, c->hvy since last_t); keep whichever hypothesis shows more card */
        double qx = c->last_x + c->hvx * dt, qy = c->last_y + c->hvy * dt, gx = qx, gy = qy, m2[3] = {0, 0, 0};
        int hp2 = 0;
        double w2 = locate(t, ax, g, qx, qy, 42 + 0.6 * sqrt(sqr(c->hvx) + sqr(c->hvy)) * dt, &gx, &gy, m2, &hp2);
        if (w2 > w) {
            w = w2;
            fx = gx;
            fy = gy;
            memcpy(mom, m2, sizeof mom);
            hand_px = hp2;
            px = qx;
            py = qy;
        } else if (w2 <= 0 && w <= 0 &&
                   (beyond_field(qx, qy, o->angle_deg) || !in_view(t, qx - 40, qy) || !in_view(t, qx + 40, qy) ||
                    !in_view(t, qx, qy - 40) || !in_view(t, qx, qy + 40)) &&
                   card_across(t, k, c->last_x, c->last_y, qx, qy, t_us, 1, 0) < 0) {
            /* seen in neither place, and the hand's way takes it to the edge of the view:
             * it flew (partly) out of view already; go on with the hand. Not through a card
             * lying in that way: it struck that card and lies hidden on its spot (a card on
             * a card's footprint is no card evidence), the struck card flown on ahead (look
             * 7042 push_out at 25 fps: 78 swept into 77, 77 out of view 40 ms later, neither
             * seen; 78 sent out with the hand and 77 taken for it) */
            c->vx = c->hvx;
            c->vy = c->hvy;
            px = qx;
            py = qy;
        }
        c->hint = 0;
    }
    if (c->blind) { /* untangle: what it found is another card's */
        w = 0;
        c->blind = 0;
    }
    /* two cards do not lie in one place: evidence on a card at rest (the rim its footprint
     * leaves out, before the background has it) is that card's */
    for (int q = 0; q < t->n_cards && w > 0; q++)
        if (q != k && !t->cards[q].displaced && !t->cards[q].lost &&
            sqr(t->cards[q].rest_x_mm - fx) + sqr(t->cards[q].rest_y_mm - fy) < sqr(RESTING_MM))
            w = 0;
    if (w > 0.2 * card_px) {
        int j = card_across(t, k, c->last_x, c->last_y, fx, fy, t_us, 0, first && struck);
        if (j >= 0) {
            /* the knocked card is followed from the evidence; this one, on its spot (card
             * on card, under the hand), is not seen on this frame: held there, not where
             * the hand's way would have taken it */
            px = c->last_x;
            py = c->last_y;
            follow_start(t, j, t_us);
            t->cs[j].last_x = t->cards[j].x_mm = fx;
            t->cs[j].last_y = t->cards[j].y_mm = fy;
            if (j < k) /* (passed over on this frame) */
                follow_card(t, frame, ax, g, t_us, j);
            w = 0;
        }
    }
    int found = w > 0.2 * card_px;
    o->found = found;
    /* found only by the window grown for the frames missed (look 7034 hand_contact_fault
     * at 120 fps before the thirty-second session's hand's way, kr_track_hand_way_: card
     * 44, unseen for seven frames, taken up on two resting cards' prints and then an arm's
     * edge, and followed over the line) */
    if (found && c->misses > 0 && !o->rejoined && sqrt(sqr(fx - px) + sqr(fy - py)) > r_seen) {
        o->rejoined = 1;
        o->rejoin_us = c->last_t;
    }
    if (found) {
        if (dt > 0) {
            double nvx = (fx - c->last_x) / dt, nvy = (fy - c->last_y) / dt;
            double keep = c->misses ? 0.0 : t->fscale == 1.0 ? 0.4 : pow(0.4, t->fscale); /* 0.4 per 1/60 s */
            c->vx = keep * c->vx + (1 - keep) * nvx;
            c->vy = keep * c->vy + (1 - keep) * nvy;
        }
        double step = sqrt(sqr(fx - c->last_x) + sqr(fy - c->last_y));
        c->still_frames = step < 1.5 * t->fscale ? c->still_frames + 1 : 0;
        /* angle from the second moments while slow enough not to be smeared */
        double tr = mom[0] + mom[1], det = mom[0] * mom[1] - mom[2] * mom[2];
        double disc = sqrt(fmax(tr * tr / 4 - det, 0)), l1 = tr / 2 + disc, l2 = tr / 2 - disc;
        if (speed < 600 && w > 0.6 * card_px && l2 > 1 && l1 / l2 > 1.4)
            c->last_a = fold_angle(0.5 * atan2(2 * mom[2], mom[0] - mom[1]) / DEG - 90.0);
        c->last_x = fx;
        c->last_y = fy;
        c->last_t = t_us;
        c->misses = 0;
        o->x_mm = fx;
        o->y_mm = fy;
        o->angle_deg = c->last_a;
        o->last_seen_us = t_us;
        o->lost = 0;
        o->whole_ok = whole_centre(t, ax, g, o, fx, fy, c->last_a, &o->whole_x_mm, &o->whole_y_mm);
        /* a card partly out of the view: its centre is not where the seen part puts it */
        for (int q = 0; q < 4 && o->whole_ok; q++) {
            double ca = cos(c->last_a * DEG), sa = sin(c->last_a * DEG);
            double lx = (q & 1 ? 1 : -1) * (KR_TRACK_CARD_W_MM / 2 + 3), ly = (q & 2 ? 1 : -1) * (KR_TRACK_CARD_H_MM / 2 + 3);
            if (!in_view(t, o->whole_x_mm + ca * lx - sa * ly, o->whole_y_mm + sa * lx + ca * ly))
                o->whole_ok = 0;
        }
        if (o->whole_ok) { /* the base of the edge measure (edge_follow) */
            double dx = o->whole_x_mm - o->rest_x_mm, dy = o->whole_y_mm - o->rest_y_mm, d = sqrt(dx * dx + dy * dy);
            if (d >= 8) {
                c->ux = dx / d;
                c->uy = dy / d;
            }
            edge_base(c, o->whole_x_mm, o->whole_y_mm, t_us);
        }
    } else {
        c->misses++;
        /* hold it where it should be for a few frames (blur, a hand over it) */
        if (c->misses <= kr_track_nframes_(t, 3)) {
            o->x_mm = px;
            o->y_mm = py;
        }
        int covered = o->hand_cover[0] + o->hand_cover[1] > 0.05;
        if (!in_view(t, px, py) || (beyond_field(px, py, o->angle_deg) && c->misses > kr_track_nframes_(t, 1)))
            o->lost = 1; /* left the camera's view or slid off the field */
        else if (t_us - c->last_t > LOST_AFTER_US && !covered)
            o->lost = 1;
        if (beyond_field(px, py, o->angle_deg) && o->lost)
            o->out_of_field = 1;
    }
    o->vx_mm_s = c->vx;
    o->vy_mm_s = c->vy;
    if (beyond_field(o->x_mm, o->y_mm, o->angle_deg) && (found || o->lost))
        o->out_of_field = 1;
    o->moved_mm = sqrt(sqr(o->x_mm - o->rest_x_mm) + sqr(o->y_mm - o->rest_y_mm));
    /* at rest again, no hand on it: new rest pose (fitted on this frame) */
    if (found && c->still_frames >= kr_track_nframes_(t, REST_STILL_FRAMES) && hand_px < 0.03 * card_px) {
        int was_out = o->out_of_field;
        if (o->moved_mm > 4) {
            double x = o->x_mm, y = o->y_mm, a = o->angle_deg;
            /* the followed centre leans towards nearby change (the leaving hand, its
             * shadow) and the moments' angle is rough: search wide, every angle */
            kr_track_fit_pose_wide_(t, frame, &x, &y, &a, 12.0);
            o->rest_x_mm = x;
            o->rest_y_mm = y;
            o->rest_angle_deg = a;
            card_take_rest(t, k, 0, g);
        } else
            card_take_rest(t, k, 1, g);
        o->out_of_field = was_out;
    } else if (!found && o->moved_mm < 3 && o->change < 0.2) {
        o->displaced = 0; /* false alarm: it never left */
        o->x_mm = o->rest_x_mm;
        o->y_mm = o->rest_y_mm;
    }
    if (o->displaced)
        edge_follow(t, frame, g, t_us, k);
}

/* Card k on this frame once its footprint is read: followed while displaced, its outline. */
static void follow_card(kr_track_t *t, const kr_track_src *frame, const card_axis *ax, double g, int64_t t_us, int k)
{
    kr_track_card *o = &t->cards[k];
    o->whole_ok = 0;
    o->edge_ok = 0;
    if (o->displaced && !o->lost)
        follow(t, frame, ax, g, t_us, k);
    else if (o->displaced)
        edge_follow(t, frame, g, t_us, k); /* lost from the warped area: its edge may still show */
    if (!o->whole_ok) {
        o->whole_x_mm = o->x_mm;
        o->whole_y_mm = o->y_mm;
    }
    if (!o->displaced && !o->occluded)
        o->last_seen_us = t_us;
    kr_track_card_outline_(o);
}

/* A lost card that comes to rest in view again: a still, card-sized patch of card
 * evidence that no other card explains is given to the nearest lost card. In the field,
 * a card-coloured patch taken into the background will do (a card carried hidden under the
 * hand that sends it and put down in the other territory: v8_strike_a at 60 fps, card 6,
 * never seen moving, lost once the hand left its place, by then lying still for 0.5 s). */
static void reacquire(kr_track_t *t, const kr_track_src *frame, const card_axis *ax, double g, int64_t t_us)
{
    double mmpp = t->cfg.mm_per_px;
    double card_px = KR_TRACK_CARD_W_MM * KR_TRACK_CARD_H_MM / (mmpp * mmpp);
    for (int pass = 0; pass < 2; pass++) {
        int best_k = -1, best_absorbed = 0;
        double best_d = 1e30, bx = 0, by = 0;
        /* scan a coarse grid of candidate centres (every 30 mm) for a still card patch */
        for (double y = -KR_TRACK_FIELD_HALF_H_MM - 60; y <= KR_TRACK_FIELD_HALF_H_MM + 60; y += 30)
            for (double x = -KR_TRACK_FIELD_HALF_W_MM - 40; x <= KR_TRACK_FIELD_HALF_W_MM + 40; x += 30) {
                double u, v;
                kr_track_mm_to_mat(t, x, y, &u, &v);
                int iu = (int)u, iv = (int)v;
                if (iu < 0 || iv < 0 || iu >= t->w || iv >= t->h)
                    continue;
                int i = iv * t->w + iu;
                if (t->still[i] < kr_track_nframes_(t, 3) || t->fpmask[i])
                    continue;
                const int absorbed = !card_evidence(t, ax, i, g);
                if (absorbed && (t->cls[i] != KR_CLS_BG || fabs(x) > KR_TRACK_FIELD_HALF_W_MM ||
                                 fabs(y) > KR_TRACK_FIELD_HALF_H_MM ||
                                 !kr_track_card_coloured_(t, t->mat + (size_t)i * 3, g)))
                    continue;
                double cx = x, cy = y;
                double w = 0;
                for (int it = 0; it < 3; it++)
                    w = absorbed ? colour_centroid(t, g, cx, cy, 40, &cx, &cy)
                                 : evidence_centroid(t, ax, g, cx, cy, 40, &cx, &cy, NULL, NULL);
                if (w < 0.6 * card_px || w > 1.5 * card_px)
                    continue;
                /* not a card that is already followed there */
                int taken = 0;
                for (int q = 0; q < t->n_cards; q++) {
                    const kr_track_card *o = &t->cards[q];
                    if (!o->lost && sqr(o->x_mm - cx) + sqr(o->y_mm - cy) < sqr(40))
                        taken = 1;
                }
                if (taken)
                    continue;
                for (int q = 0; q < t->n_cards; q++) {
                    const kr_track_card *o = &t->cards[q];
                    if (!o->lost || o->out_of_field)
                        continue;
                    /* the nearest, where it could have been carried since it was last
                     * seen (a hand's 0.5 m/s): the card just lost, not one lost long ago
                     * nearer by chance (look 7045 match_b at 120 fps: B's send, card 100,
                     * put down unseen, was taken for card 56, lost 24 s before when B
                     * took it as the read card) */
                    double d = sqrt(sqr(o->x_mm - cx) + sqr(o->y_mm - cy)) +
                               0.5e-3 * (double)(t_us - o->last_seen_us);
                    if (d < best_d) {
                        best_d = d;
                        best_k = q;
                        best_absorbed = absorbed;
                        bx = cx;
                        by = cy;
                    }
                }
            }
        if (best_k < 0)
            return;
        kr_track_card *o = &t->cards[best_k];
        kr_track_cstate *c = &t->cs[best_k];
        if (best_absorbed) {
            /* lying still for a while already: at rest there now, its pose fitted */
            double a = o->angle_deg;
            kr_track_fit_pose_wide_(t, frame, &bx, &by, &a, 12.0);
            o->rest_x_mm = bx;
            o->rest_y_mm = by;
            o->rest_angle_deg = a;
            card_take_rest(t, best_k, 0, g); /* (the frame: the background may not have all of it yet) */
            o->last_seen_us = t_us;
            continue;
        }
        o->lost = 0;
        o->found = 1;
        o->x_mm = c->last_x = bx;
        o->y_mm = c->last_y = by;
        c->last_t = t_us;
        c->vx = c->vy = 0;
        c->misses = 0;
        c->still_frames = 0;
        o->last_seen_us = t_us;
    }
}

/* Two cards do not lie in one place: two followed cards found on one patch of card
 * evidence (centres within UNTANGLE_MM) are one card seen twice. In a knock the card that
 * moved first is the pusher and comes to lie where the knocked one lay, while the knocked
 * one flies on ahead, often out of the view before it is seen displaced (push_out at
 * 30 fps: card 78, swept into 77's place, covered 77's spot as 77 flew off; 77's track
 * then took 78's evidence for 130 ms and its push-out came as late). So the card displaced
 * later is followed again on this frame as not seen (from its state before the frame): it
 * goes on with its velocity, and leaves the field or is lost as a card not found does.
 * When its only sighting displaced was its first look, that too may have been the
 * pusher's card, and its spot may have been covered by the pusher since the pusher began
 * to move: it was last seen for sure on the frame before the pusher was seen displaced.
 * Cards displaced on the same frame are left as they are (which is which cannot be told
 * from the times), as is a card that came to rest on this frame (its footprint was taken
 * anew). */
static void untangle(kr_track_t *t, const kr_track_src *frame, const card_axis *ax, double g, int64_t t_us)
{
    for (int k = 0; k < t->n_cards; k++) {
        const kr_track_card *a = &t->cards[k];
        if (!a->displaced || !a->found || a->lost)
            continue;
        for (int j = 0; j < t->n_cards; j++) {
            const kr_track_card *b = &t->cards[j];
            if (j == k || !b->displaced || !b->found || b->lost || t->cs[j].disp_t <= t->cs[k].disp_t ||
                !t->saved_cards[j].displaced || t->cs[j].fp != t->saved_cs[j].fp || /* (owned: the one saved) */
                sqr(a->x_mm - b->x_mm) + sqr(a->y_mm - b->y_mm) >= sqr(UNTANGLE_MM))
                continue;
            /* j, displaced later, on k's card: followed again as not seen */
            t->cs[j] = t->saved_cs[j];
            t->cards[j] = t->saved_cards[j];
            t->cs[j].blind = 1;
            if (t->cs[j].last_t == t->cs[j].disp_t && t->cs[k].in_place_t > 0 &&
                t->cs[k].in_place_t < t->cards[j].last_seen_us)
                t->cards[j].last_seen_us = t->cs[k].in_place_t;
            follow_card(t, frame, ax, g, t_us, j);
        }
    }
}

/* The way hand p was going when it struck a card last seen lying there at since_us; *vx,
 * *vy hold this frame's velocity of its leading point and get the way. A hand slowing at the
 * edge of the view (cut off there, its point creeping along it) or stopping after the hit:
 * the fastest of this frame's and the last frame's velocity, as they are, and the hand's
 * velocities on the frames since then, each taken as the middle one (by speed) of three
 * neighbouring frames' (the oldest may reach one frame further back). A sweep keeps its
 * speed over several frames, while the point's one-frame jumps (a piece of the blob joining
 * or leaving it) come and go (tools/trace_lead_jumps.py: on six renders' traces at 60 and 120 fps 2 to 148
 * frames a hand faster than 1.5 m/s and twice both neighbours, one-frame velocities up to
 * 56 m/s), and such a way would give a card up as flown out of view. This frame's and the
 * last one's are taken as they are, as before the hand's older frames were looked at: at 50
 * fps push_out this frame's 7.1 m/s between 3.0 and 1.6 (the card knocked ahead flying in
 * the hand's blob?) found card 78's way, and without it card 77 was lost, not seen out
 * (three renders), while eleven sweeps' touches came 1-11 ms nearer the truth. */
void kr_track_hand_way_(const kr_track_t *t, int p, int64_t since_us, double *vx, double *vy)
{
    double v[KR_TRACK_HV_N + 1][2] = {{*vx, *vy}};
    int n = 1, in = 1; /* v[0 .. in-1]: this frame and the frames since; then one older */
    for (int j = 1; j <= t->hv_n[p]; j++) {
        const double *e = t->hv[p][(t->hv_head[p] - j + KR_TRACK_HV_N) % KR_TRACK_HV_N];
        v[n][0] = e[1];
        v[n][1] = e[2];
        n++;
        if (j > 1 && e[0] <= (double)since_us)
            break;
        in = n;
    }
    if (n > 1 && sqr(v[1][0]) + sqr(v[1][1]) > sqr(*vx) + sqr(*vy)) {
        *vx = v[1][0];
        *vy = v[1][1];
    }
    double best = sqr(*vx) + sqr(*vy);
    for (int i = 0; i < in && i + 2 < n; i++) {
        double s[3];
        for (int q = 0; q < 3; q++)
            s[q] = sqr(v[i + q][0]) + sqr(v[i + q][1]);
        int m = (s[0] <= s[1]) == (s[1] <= s[2]) ? 1 : (s[1] <= s[0]) == (s[0] <= s[2]) ? 0 : 2;
        if (s[m] > best) {
            best = s[m];
            *vx = v[i + m][0];
            *vy = v[i + m][1];
        }
    }
}

/* Light sleeves: card-like foreground joined through card-like pixels to a player's entry
 * band (the arm's end at the view's edge) over more than a card and a half is a sleeve, no
 * card (look 7045 race_60ms at 120 fps: A's white sleeve lay over card 27's spot when 27,
 * carried off under A's fingers, was first seen gone; its follower took the sleeve and went
 * with it out of the field, and the send was not seen). A card itself is joined to a sleeve
 * only through the hand's skin; one lying alone in the band (flung out past a player's edge)
 * is no more than a card. Marks t->sleeve (1) for this frame. */
static void find_sleeves(kr_track_t *t)
{
    double card_px = KR_TRACK_CARD_W_MM * KR_TRACK_CARD_H_MM / (t->cfg.mm_per_px * t->cfg.mm_per_px);
    uint8_t *m = t->sleeve; /* 0 not reached, 1 sleeve, 2 reached (too small) */
    int32_t *q = t->sleeve_q;
    int nq = 0;
    for (int j = 0; j < t->sleeve_nq; j++)
        m[q[j]] = 0;
    for (int z = 0; z < t->n_zone_px; z++) {
        int i = t->zone_px[z];
        if (m[i] || t->cls[i] != KR_CLS_CARDLIKE)
            continue;
        int start = nq;
        m[i] = 2;
        q[nq++] = i;
        for (int j = start; j < nq; j++) {
            int a = q[j], u = a % t->w, v = a / t->w;
            int nb[4] = {u > 0 ? a - 1 : -1, u + 1 < t->w ? a + 1 : -1, v > 0 ? a - t->w : -1,
                         v + 1 < t->h ? a + t->w : -1};
            for (int e = 0; e < 4; e++)
                if (nb[e] >= 0 && !m[nb[e]] && t->cls[nb[e]] == KR_CLS_CARDLIKE) {
                    m[nb[e]] = 2;
                    q[nq++] = nb[e];
                }
        }
        if (nq - start > 1.5 * card_px)
            for (int j = start; j < nq; j++)
                m[q[j]] = 1;
    }
    for (int j = 0; j < nq; j++)
        if (m[q[j]] == 2)
            m[q[j]] = 0;
    t->sleeve_nq = nq;
}

void kr_track_cards_update_(kr_track_t *t, const kr_track_src *frame, double g, int64_t t_us)
{
    const kr_track_config *cfg = &t->cfg;
    card_axis ax;
    double ms = t->mat_rgb[0] + t->mat_rgb[1] + t->mat_rgb[2] + 1, cs = t->card_rgb[0] + t->card_rgb[1] + t->card_rgb[2] + 1;
    ax.dd = 0;
    for (int c = 0; c < 3; c++) {
        ax.mn[c] = t->mat_rgb[c] / ms;
        ax.dn[c] = t->card_rgb[c] / cs - ax.mn[c];
        ax.dd += ax.dn[c] * ax.dn[c];
    }
    int any_lost = 0;
    for (int k = 0; k < t->n_cards; k++) {
        kr_track_card *o = &t->cards[k];
        kr_track_cstate *c = &t->cs[k];
        int ha = 0, hb = 0, sh = 0, ch = 0, vis = 0, bare = 0;
        for (int j = 0; j < c->n_fp; j++) {
            int i = c->fp[j];
            uint8_t cl = t->cls[i];
            if (cl == KR_CLS_HAND_A) {
                ha++;
                continue;
            }
            if (cl == KR_CLS_HAND_B) {
                hb++;
                continue;
            }
            vis++;
            const uint8_t *tp = c->tmpl + (size_t)j * 3, *I = t->mat + (size_t)i * 3;
            int r = kr_track_compare_px_(cfg, I, (float)(g * tp[0]), (float)(g * tp[1]), (float)(g * tp[2]));
            if (r == 0)
                continue;
            /* bare mat where the card lay: different from the card, or only darker
             * than it (a light mat reads as the card's shadow) but mat-coloured */
            int is_bare = kr_track_near_colour_(I, t->mat_rgb, g, 0.70, 1.35, 0.035);
            if (r == 2 || is_bare)
                ch++;
            else
                sh++;
            bare += is_bare;
        }
        double nf = c->n_fp > 0 ? c->n_fp : 1;
        o->hand_cover[0] = ha / nf;
        o->hand_cover[1] = hb / nf;
        o->shadow_cover = sh / nf;
        o->visible = vis / nf;
        o->occluded = vis < 0.25 * nf;
        o->change = vis > 0 ? (double)ch / vis : 0;
        /* a card that moved shows bare mat (or another card) where it lay; an arm,
         * sleeve or shadow over it does not look like bare mat */
        o->moving = !o->occluded && o->change > cfg->card_change_frac && bare > 0.12 * vis;
        if (!o->displaced && !o->occluded && o->change > 0.5 && ch > 0.2 * nf && bare > 0.25 * ch) {
            follow_start(t, k, t_us);
            /* a sweep is seen a frame or more after it began, the card already a card
             * length away: it may move with the fast hand at it, so look also where
             * that hand's velocity takes it since the card was last seen in place. The
             * hand at it: its leading point near on this frame or the last (a card seen
             * displaced a frame late, the hand gone on by 3 m/s: v_race_60 card 59) */
            double best = 120;
            for (int p = 0; p < 2; p++) {
                const kr_track_hand *h = &t->fr.hands[p], *hp = &t->prev_hand[p];
                double hs = sqrt(sqr(h->vx_mm_s) + sqr(h->vy_mm_s));
                double d = sqrt(sqr(h->lead_x_mm - o->x_mm) + sqr(h->lead_y_mm - o->y_mm));
                if (hp->present)
                    d = fmin(d, sqrt(sqr(hp->lead_x_mm - o->x_mm) + sqr(hp->lead_y_mm - o->y_mm)));
                if (h->present && hs > 500 && d < best) {
                    best = d;
                    c->hint = 1;
                    c->hvx = h->vx_mm_s;
                    c->hvy = h->vy_mm_s;
                    /* it left at the earliest when it was last seen lying there (a hand
                     * covering it hides the start), at the latest a frame ago */
                    if (t->last_t < t_us)
                        c->last_t = t->last_t;
                    if (o->last_seen_us > 0 && o->last_seen_us < c->last_t && t_us - o->last_seen_us < 200000)
                        c->last_t = o->last_seen_us;
                    kr_track_hand_way_(t, p, c->last_t, &c->hvx, &c->hvy);
                }
            }
        }
    }
    /* sleeves, once a card is followed or looked for (its first look included) */
    t->sleeve_ok = 0;
    for (int k = 0; k < t->n_cards && !t->sleeve_ok; k++)
        if (t->cards[k].displaced || (t->cards[k].lost && !t->cards[k].out_of_field))
            t->sleeve_ok = 1;
    if (t->sleeve_ok)
        find_sleeves(t);
    /* every footprint read first: a card's follower may find its neighbour knocked ahead */
    for (int k = 0; k < t->n_cards; k++) {
        if (t->cards[k].displaced) {
            t->saved_cs[k] = t->cs[k];
            t->saved_cards[k] = t->cards[k];
        }
        follow_card(t, frame, &ax, g, t_us, k);
    }
    untangle(t, frame, &ax, g, t_us);
    for (int k = 0; k < t->n_cards; k++)
        if (t->cards[k].lost && !t->cards[k].out_of_field)
            any_lost = 1;
    if (any_lost && t->frames % kr_track_nframes_(t, REACQ_EVERY) == 0)
        reacquire(t, frame, &ax, g, t_us);
}
