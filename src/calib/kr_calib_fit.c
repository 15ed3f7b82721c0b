/* kr_calib_fit.c - fitting the camera-to-mat model to card corners: robust start,
 * Levenberg-Marquardt with the per-card unknowns eliminated (Schur complement),
 * row assignment, placement of the competition lines, quality figures.
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_calib_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model being fitted.
 *   card i has mat centre (x_i, base_i + dy_i) and rotation th_i; its corner j is
 *     m = centre + R(th_i) * L_j,  L = (-26,-36.5) (26,-36.5) (26,36.5) (-26,36.5)
 *   normalised mat point  X = m / MS  (MS = 500 mm keeps the numbers near 1)
 *   normalised camera point  (x, y) = dehom(Hn * [X, 1])     Hn = [g0 g1 g2; g3 g4 g5; g6 g7 1]
 *   raw px = (fx xd + cx, fy yd + cy) with (xd, yd) = lens(x, y; k1, k2 [, p1 p2 k3 fixed])
 * Unknowns: g0..g7, k1, k2 (global) and x_i, dy_i, th_i per card. Residuals: corner
 * reprojection in raw px over sig_px, and priors dy_i / sig_y, th_i / sig_th,
 * (x_i - x0_i) / sig_x, k / sig_k. The per-card 3x3 blocks are eliminated each step
 * (as in bundle adjustment), so a step costs O(n) plus a 10x10 solve.
 * The final homography in mm and undistorted px is H = K * Hn * diag(1/MS, 1/MS, 1). */

#define MS 500.0
#define NG_MAX 11 /* H (8), k1, k2, edge inset */
#define HALF_W (KR_CALIB_CARD_W_MM / 2.0)
#define NC 4 /* per-outline unknowns: x, dy, th, extra half-width (strips of touching cards) */
#define HALF_H (KR_CALIB_CARD_H_MM / 2.0)

static const double LOCAL[4][2] = {{-HALF_W, -HALF_H}, {HALF_W, -HALF_H}, {HALF_W, HALF_H},
                                   {-HALF_W, HALF_H}};
/* Row centres, mm, for rows -3..-1 (A lower..upper) and 1..3 (B upper..lower). */
static const double ROW_Y[6] = {-217.5, -134.5, -51.5, 51.5, 134.5, 217.5};
static const int ROW_ID[6] = {-3, -2, -1, 1, 2, 3};

typedef struct fcard {
    double obs[4][2]; /* raw px, ordered as LOCAL */
    double base;      /* row centre y (mm) or 0 in the free fit */
    double p[NC];     /* x (mm), dy (mm), th (rad), extra half-width (mm) */
    double x0, dy0;   /* prior centres */
    double sig_w;     /* prior sigma of p[3]: ~0 for one card, large for a strip */
    int    row;       /* -3..3, 0 = unknown */
    double rms_px;
} fcard;

typedef struct fit {
    int     n;
    fcard  *c;
    int     lens_free;/* 1: k1, k2 are g[8], g[9]; 0: the lens is dist, fixed */
    double  g[NG_MAX];
    double  gmu[NG_MAX], gsig[NG_MAX]; /* prior on each global; gsig <= 0: none */
    double  fx, fy, cx, cy;
    double  dist[5];
    double  sig_px, sig_x, sig_y, sig_th;
} fit;

static void lens_of(const fit *f, const double *g, double d[5])
{
    memcpy(d, f->dist, sizeof f->dist);
    if (f->lens_free) {
        d[0] = g[8];
        d[1] = g[9];
    }
}

/* Corner j of card (params p) through the globals g to raw px. */
static void predict(const fit *f, const double *g, const double d[5], double base,
                    const double *p, int j, double *u, double *v)
{
    double cs = cos(p[2]), sn = sin(p[2]);
    /* the detected outline lies g[10] mm inside the card's edge (a coloured rim) */
    double hw = HALF_W - g[10] + p[3];
    double lx = LOCAL[j][0] < 0 ? -hw : hw;
    double ly = LOCAL[j][1] < 0 ? LOCAL[j][1] + g[10] : LOCAL[j][1] - g[10];
    double mx = p[0] + cs * lx - sn * ly;
    double my = base + p[1] + sn * lx + cs * ly;
    double X = mx / MS, Y = my / MS;
    double w = g[6] * X + g[7] * Y + 1.0;
    double x = (g[0] * X + g[1] * Y + g[2]) / w;
    double y = (g[3] * X + g[4] * Y + g[5]) / w;
    double xd, yd;
    kr_calib_lens_apply(d, x, y, &xd, &yd);
    *u = f->fx * xd + f->cx;
    *v = f->fy * yd + f->cy;
}

static double cost_of(const fit *f, const double *g, const double *cp /* NC n */)
{
    double d[5], s = 0;
    lens_of(f, g, d);
    for (int i = 0; i < f->n; i++) {
        const fcard *c = &f->c[i];
        const double *p = cp + NC * i;
        for (int j = 0; j < 4; j++) {
            double u, v;
            predict(f, g, d, c->base, p, j, &u, &v);
            double ru = (u - c->obs[j][0]) / f->sig_px, rv = (v - c->obs[j][1]) / f->sig_px;
            s += ru * ru + rv * rv;
        }
        double a = (p[0] - c->x0) / f->sig_x, b = (p[1] - c->dy0) / f->sig_y, t = p[2] / f->sig_th;
        double ww = p[3] / c->sig_w;
        s += a * a + b * b + t * t + ww * ww;
    }
    for (int k = 0; k < NG_MAX; k++)
        if (f->gsig[k] > 0) {
            double r = (g[k] - f->gmu[k]) / f->gsig[k];
            s += r * r;
        }
    if (!isfinite(s))
        return INFINITY;
    return s;
}

/* Solves the symmetric positive system A x = b (n <= NG_MAX) by Cholesky; -1 if not PD. */
static int chol_solve(int n, double *A, double *b, double *x)
{
    double L[NG_MAX * NG_MAX];
    memset(L, 0, sizeof L);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = A[i * n + j];
            for (int k = 0; k < j; k++)
                s -= L[i * n + k] * L[j * n + k];
            if (i == j) {
                if (!(s > 0))
                    return -1;
                L[i * n + i] = sqrt(s);
            } else
                L[i * n + j] = s / L[j * n + j];
        }
    double y[NG_MAX];
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= L[i * n + k] * y[k];
        y[i] = s / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = y[i];
        for (int k = i + 1; k < n; k++)
            s -= L[k * n + i] * x[k];
        x[i] = s / L[i * n + i];
    }
    return 0;
}

/* Inverse of a small n x n matrix (Gauss-Jordan, partial pivoting); -1 if singular. */
static int inv_small(int n, const double *m, double *o)
{
    double a[NC * 2 * NC];
    for (int r = 0; r < n; r++)
        for (int c = 0; c < 2 * n; c++)
            a[r * 2 * n + c] = c < n ? m[r * n + c] : (c - n == r);
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * 2 * n + c]) > fabs(a[piv * 2 * n + c]))
                piv = r;
        if (!(fabs(a[piv * 2 * n + c]) > 1e-300))
            return -1;
        if (piv != c)
            for (int k = 0; k < 2 * n; k++) {
                double t = a[c * 2 * n + k];
                a[c * 2 * n + k] = a[piv * 2 * n + k];
                a[piv * 2 * n + k] = t;
            }
        double d = a[c * 2 * n + c];
        for (int k = 0; k < 2 * n; k++)
            a[c * 2 * n + k] /= d;
        for (int r = 0; r < n; r++)
            if (r != c) {
                double fct = a[r * 2 * n + c];
                for (int k = 0; k < 2 * n; k++)
                    a[r * 2 * n + k] -= fct * a[c * 2 * n + k];
            }
    }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            o[r * n + c] = a[r * 2 * n + n + c];
    return 0;
}

/* Work arrays for one LM run: per card V (9), W (NG_MAX*3), b (3). */
typedef struct lm_work {
    double *V, *W, *b, *cp, *cp_new;
} lm_work;

static void lm_work_free(lm_work *w)
{
    free(w->V);
    free(w->W);
    free(w->b);
    free(w->cp);
    free(w->cp_new);
}

static int lm_work_alloc(lm_work *w, int n)
{
    w->V = malloc(sizeof(double) * NC * NC * (size_t)n);
    w->W = malloc(sizeof(double) * NG_MAX * NC * (size_t)n);
    w->b = malloc(sizeof(double) * NC * (size_t)n);
    w->cp = malloc(sizeof(double) * NC * (size_t)n);
    w->cp_new = malloc(sizeof(double) * NC * (size_t)n);
    if (!w->V || !w->W || !w->b || !w->cp || !w->cp_new) {
        lm_work_free(w);
        return -1;
    }
    return 0;
}

/* Runs Levenberg-Marquardt on f (globals and card params updated in place). */
static kr_status lm_run(fit *f, int max_iter)
{
    lm_work w;
    memset(&w, 0, sizeof w);
    if (lm_work_alloc(&w, f->n))
        return KR_ERR_NOMEM;
    const int ng = NG_MAX;
    for (int i = 0; i < f->n; i++)
        memcpy(w.cp + NC * i, f->c[i].p, sizeof f->c[i].p);
    double cost = cost_of(f, f->g, w.cp);
    double lambda = 1e-3;
    static const double gstep[NG_MAX] = {1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-7, 1e-7, 1e-6, 1e-6, 1e-4};
    static const double cstep[NC] = {1e-4, 1e-4, 1e-6, 1e-4};
    for (int it = 0; it < max_iter; it++) {
        double U[NG_MAX * NG_MAX], bg[NG_MAX];
        memset(U, 0, sizeof U);
        memset(bg, 0, sizeof bg);
        double d[5];
        lens_of(f, f->g, d);
        for (int i = 0; i < f->n; i++) {
            const fcard *c = &f->c[i];
            double *V = w.V + NC * NC * i, *W = w.W + NG_MAX * NC * i, *b = w.b + NC * i;
            const double *p = w.cp + NC * i;
            memset(V, 0, sizeof(double) * NC * NC);
            memset(W, 0, sizeof(double) * NG_MAX * NC);
            memset(b, 0, sizeof(double) * NC);
            for (int j = 0; j < 4; j++) {
                double u0, v0, Jg[2][NG_MAX], Jc[2][NC];
                predict(f, f->g, d, c->base, p, j, &u0, &v0);
                double r[2] = {(u0 - c->obs[j][0]) / f->sig_px, (v0 - c->obs[j][1]) / f->sig_px};
                for (int k = 0; k < ng; k++) {
                    double gp[NG_MAX], gm[NG_MAX], dp[5], dm[5], up, vp, um, vm;
                    memcpy(gp, f->g, sizeof gp);
                    memcpy(gm, f->g, sizeof gm);
                    gp[k] += gstep[k];
                    gm[k] -= gstep[k];
                    lens_of(f, gp, dp);
                    lens_of(f, gm, dm);
                    predict(f, gp, dp, c->base, p, j, &up, &vp);
                    predict(f, gm, dm, c->base, p, j, &um, &vm);
                    Jg[0][k] = (up - um) / (2 * gstep[k] * f->sig_px);
                    Jg[1][k] = (vp - vm) / (2 * gstep[k] * f->sig_px);
                }
                for (int k = 0; k < NC; k++) {
                    double pp[NC], pm[NC], up, vp, um, vm;
                    memcpy(pp, p, sizeof pp);
                    memcpy(pm, p, sizeof pm);
                    pp[k] += cstep[k];
                    pm[k] -= cstep[k];
                    predict(f, f->g, d, c->base, pp, j, &up, &vp);
                    predict(f, f->g, d, c->base, pm, j, &um, &vm);
                    Jc[0][k] = (up - um) / (2 * cstep[k] * f->sig_px);
                    Jc[1][k] = (vp - vm) / (2 * cstep[k] * f->sig_px);
                }
                for (int e = 0; e < 2; e++) {
                    for (int a = 0; a < ng; a++) {
                        for (int bb = 0; bb < ng; bb++)
                            U[a * ng + bb] += Jg[e][a] * Jg[e][bb];
                        for (int bb = 0; bb < NC; bb++)
                            W[a * NC + bb] += Jg[e][a] * Jc[e][bb];
                        bg[a] -= Jg[e][a] * r[e];
                    }
                    for (int a = 0; a < NC; a++) {
                        for (int bb = 0; bb < NC; bb++)
                            V[a * NC + bb] += Jc[e][a] * Jc[e][bb];
                        b[a] -= Jc[e][a] * r[e];
                    }
                }
            }
            /* priors on the card's own parameters */
            V[0] += 1.0 / (f->sig_x * f->sig_x);
            b[0] -= (p[0] - c->x0) / (f->sig_x * f->sig_x);
            V[NC + 1] += 1.0 / (f->sig_y * f->sig_y);
            b[1] -= (p[1] - c->dy0) / (f->sig_y * f->sig_y);
            V[2 * NC + 2] += 1.0 / (f->sig_th * f->sig_th);
            b[2] -= p[2] / (f->sig_th * f->sig_th);
            V[3 * NC + 3] += 1.0 / (c->sig_w * c->sig_w);
            b[3] -= p[3] / (c->sig_w * c->sig_w);
        }
        for (int k = 0; k < ng; k++)
            if (f->gsig[k] > 0) {
                U[k * ng + k] += 1.0 / (f->gsig[k] * f->gsig[k]);
                bg[k] -= (f->g[k] - f->gmu[k]) / (f->gsig[k] * f->gsig[k]);
            }
        /* damped solve with the Schur complement; retry with more damping on failure */
        int accepted = 0;
        for (int tries = 0; tries < 12 && !accepted; tries++) {
            double S[NG_MAX * NG_MAX], rhs[NG_MAX], dg[NG_MAX];
            memcpy(S, U, sizeof S);
            memcpy(rhs, bg, sizeof rhs);
            for (int a = 0; a < ng; a++)
                S[a * ng + a] += lambda * U[a * ng + a] + 1e-12;
            int bad = 0;
            for (int i = 0; i < f->n && !bad; i++) {
                double Vd[NC * NC], Vi[NC * NC];
                memcpy(Vd, w.V + NC * NC * i, sizeof Vd);
                for (int a = 0; a < NC; a++)
                    Vd[a * (NC + 1)] += lambda * Vd[a * (NC + 1)] + 1e-12;
                if (inv_small(NC, Vd, Vi)) {
                    bad = 1;
                    break;
                }
                const double *W = w.W + NG_MAX * NC * i, *b = w.b + NC * i;
                double WVi[NG_MAX * NC];
                for (int a = 0; a < ng; a++)
                    for (int bb = 0; bb < NC; bb++) {
                        double t = 0;
                        for (int k = 0; k < NC; k++)
                            t += W[a * NC + k] * Vi[k * NC + bb];
                        WVi[a * NC + bb] = t;
                    }
                for (int a = 0; a < ng; a++) {
                    for (int bb = 0; bb < ng; bb++) {
                        double t = 0;
                        for (int k = 0; k < NC; k++)
                            t += WVi[a * NC + k] * W[bb * NC + k];
                        S[a * ng + bb] -= t;
                    }
                    for (int k = 0; k < NC; k++)
                        rhs[a] -= WVi[a * NC + k] * b[k];
                }
            }
            if (bad || chol_solve(ng, S, rhs, dg)) {
                lambda *= 10;
                continue;
            }
            double g_new[NG_MAX];
            memcpy(g_new, f->g, sizeof g_new);
            for (int a = 0; a < ng; a++)
                g_new[a] += dg[a];
            for (int i = 0; i < f->n; i++) {
                double Vd[NC * NC], Vi[NC * NC], t[NC];
                memcpy(Vd, w.V + NC * NC * i, sizeof Vd);
                for (int a = 0; a < NC; a++)
                    Vd[a * (NC + 1)] += lambda * Vd[a * (NC + 1)] + 1e-12;
                inv_small(NC, Vd, Vi);
                const double *W = w.W + NG_MAX * NC * i, *b = w.b + NC * i;
                for (int a = 0; a < NC; a++) {
                    t[a] = b[a];
                    for (int k = 0; k < ng; k++)
                        t[a] -= W[k * NC + a] * dg[k];
                }
                for (int a = 0; a < NC; a++) {
                    double acc = 0;
                    for (int k = 0; k < NC; k++)
                        acc += Vi[a * NC + k] * t[k];
                    w.cp_new[NC * i + a] = w.cp[NC * i + a] + acc;
                }
            }
            double c_new = cost_of(f, g_new, w.cp_new);
            if (c_new < cost) {
                double rel = (cost - c_new) / (cost + 1e-30);
                memcpy(f->g, g_new, sizeof g_new);
                memcpy(w.cp, w.cp_new, sizeof(double) * NC * (size_t)f->n);
                cost = c_new;
                lambda = fmax(lambda / 4, 1e-9);
                accepted = 1;
                if (rel < 1e-12)
                    it = max_iter; /* converged */
            } else
                lambda *= 8;
        }
        if (!accepted)
            break; /* no descent left: at the minimum */
    }
    for (int i = 0; i < f->n; i++)
        memcpy(f->c[i].p, w.cp + NC * i, sizeof f->c[i].p);
    lm_work_free(&w);
    return KR_OK;
}

/* Per-card RMS reprojection residual (raw px). */
static void card_residuals(fit *f)
{
    double d[5];
    lens_of(f, f->g, d);
    for (int i = 0; i < f->n; i++) {
        fcard *c = &f->c[i];
        double s = 0;
        for (int j = 0; j < 4; j++) {
            double u, v;
            predict(f, f->g, d, c->base, c->p, j, &u, &v);
            s += (u - c->obs[j][0]) * (u - c->obs[j][0]) + (v - c->obs[j][1]) * (v - c->obs[j][1]);
        }
        c->rms_px = sqrt(s / 4);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Drops cards whose residual is far above the others'. Returns how many were dropped. */
static int drop_outliers(fit *f, double floor_px)
{
    if (f->n < 6)
        return 0;
    card_residuals(f);
    double *r = malloc(sizeof(double) * (size_t)f->n);
    if (!r)
        return 0;
    for (int i = 0; i < f->n; i++)
        r[i] = f->c[i].rms_px;
    qsort(r, (size_t)f->n, sizeof *r, cmp_double);
    double med = r[f->n / 2], top = r[f->n - 1];
    free(r);
    /* only the worst ones per round: a gross outlier drags its neighbours' residuals up */
    double lim = fmax(fmax(4.0 * med, floor_px), 0.5 * top);
    int k = 0, dropped = 0;
    for (int i = 0; i < f->n; i++) {
        if (f->c[i].rms_px > lim) {
            KR_DEBUG("calib: drop card at (%.0f, %.0f) px: residual %.2f px > %.2f", f->c[i].obs[0][0],
                     f->c[i].obs[0][1], f->c[i].rms_px, lim);
            dropped++;
            continue;
        }
        f->c[k++] = f->c[i];
    }
    f->n = k;
    return dropped;
}

/* Moves the mat frame: new = old - (tx, ty). Hn <- Hn * T with T mapping new to old. */
static void shift_frame(fit *f, double tx, double ty)
{
    double Hn[9] = {f->g[0], f->g[1], f->g[2], f->g[3], f->g[4], f->g[5], f->g[6], f->g[7], 1.0};
    double T[9] = {1, 0, tx / MS, 0, 1, ty / MS, 0, 0, 1};
    kr_calib_mat3_mul(Hn, T, Hn);
    for (int k = 0; k < 8; k++)
        f->g[k] = Hn[k] / Hn[8];
    /* the lens acts after the homography, so the normalised image is unchanged */
    for (int i = 0; i < f->n; i++) {
        f->c[i].p[0] -= tx;
        f->c[i].x0 -= tx;
        f->c[i].p[1] -= ty;
    }
}

/* Clusters card centres' y into rows and assigns them to the six row slots.
 * Returns the y shift (old frame) that puts the rows at their nominal centres, sets
 * each card's row and base; -1 with the error text when the layout is not 3+3 rows. */
static int assign_rows(fit *f, double *shift_y, int *n_rows_out)
{
    int n = f->n;
    double *ys = malloc(sizeof(double) * (size_t)n);
    if (!ys) {
        kr_calib_set_error("out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++)
        ys[i] = f->c[i].p[1] + f->c[i].base;
    qsort(ys, (size_t)n, sizeof *ys, cmp_double);
    double cm[32];
    int cn[32], k = 0;
    double sum = ys[0];
    int cnt = 1;
    for (int i = 1; i <= n; i++) {
        if (i == n || ys[i] - ys[i - 1] > 35.0) {
            if (k == 32)
                break;
            cm[k] = sum / cnt;
            cn[k] = cnt;
            k++;
            if (i < n) {
                sum = ys[i];
                cnt = 1;
            }
        } else {
            sum += ys[i];
            cnt++;
        }
    }
    free(ys);
    if (k > 6) {
        kr_calib_set_error("card centres form %d rows, expected at most 6 (3 per territory)", k);
        return -1;
    }
    /* try every increasing map of the k clusters into the 6 slots */
    double best = INFINITY, best_off = 0;
    int best_slot[6] = {0};
    for (int mask = 0; mask < 64; mask++) {
        if (__builtin_popcount((unsigned)mask) != k)
            continue;
        int slot[6], m = 0;
        for (int s = 0; s < 6; s++)
            if (mask & (1 << s))
                slot[m++] = s;
        double wsum = 0, off = 0;
        for (int c = 0; c < k; c++) {
            off += cn[c] * (cm[c] - ROW_Y[slot[c]]);
            wsum += cn[c];
        }
        off /= wsum;
        double e = 0;
        for (int c = 0; c < k; c++) {
            double r = cm[c] - ROW_Y[slot[c]] - off;
            e += cn[c] * r * r;
        }
        /* prefer layouts centred on the middle gap when the fit cannot tell */
        e += 1e-6 * off * off;
        if (e < best) {
            best = e;
            best_off = off;
            memcpy(best_slot, slot, sizeof slot);
        }
    }
    if (!(best / n < 15.0 * 15.0)) {
        kr_calib_set_error("card rows are %.0f mm off the 83/103 mm row pitch; not a karuta layout",
                           sqrt(best / n));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        double y = f->c[i].p[1] + f->c[i].base - best_off;
        int bs = 0;
        for (int c = 0; c < k; c++)
            if (fabs(y - ROW_Y[best_slot[c]]) < fabs(y - ROW_Y[best_slot[bs]]))
                bs = c;
        f->c[i].row = ROW_ID[best_slot[bs]];
    }
    *shift_y = best_off;
    *n_rows_out = k;
    return 0;
}

/* Orders a card's 4 corners as LOCAL given the image directions of mat +x (ux) and
 * +y (vx). Returns -1 if they do not fall one per quadrant. */
static int order_corners(const double *q, const double u[2], const double v[2], double out[4][2])
{
    double mx = (q[0] + q[2] + q[4] + q[6]) / 4, my = (q[1] + q[3] + q[5] + q[7]) / 4;
    int used = 0;
    for (int j = 0; j < 4; j++) {
        double dx = q[2 * j] - mx, dy = q[2 * j + 1] - my;
        double a = dx * u[0] + dy * u[1], b = dx * v[0] + dy * v[1];
        int idx = a < 0 ? (b < 0 ? 0 : 3) : (b < 0 ? 1 : 2);
        if (used & (1 << idx))
            return -1;
        used |= 1 << idx;
        out[idx][0] = q[2 * j];
        out[idx][1] = q[2 * j + 1];
    }
    return 0;
}

/* Direction of mat +y in the image from the card long sides, signed for the A side. */
static void mat_axes(const double *quads, const unsigned char *single, int n, kr_calib_a_side side,
                     double u[2], double v[2])
{
    double s2 = 0, c2 = 0;
    for (int i = 0; i < n; i++) {
        const double *q = quads + 8 * i;
        if (!single[i])
            continue;
        double l01 = hypot(q[2] - q[0], q[3] - q[1]), l12 = hypot(q[4] - q[2], q[5] - q[3]);
        double ax, ay;
        if (l01 > l12) {
            ax = (q[2] - q[0]) + (q[4] - q[6]);
            ay = (q[3] - q[1]) + (q[5] - q[7]);
        } else {
            ax = (q[4] - q[2]) + (q[6] - q[0]);
            ay = (q[5] - q[3]) + (q[7] - q[1]);
        }
        double a = atan2(ay, ax);
        s2 += sin(2 * a);
        c2 += cos(2 * a);
    }
    double a = 0.5 * atan2(s2, c2);
    v[0] = cos(a);
    v[1] = sin(a);
    /* A is at mat y < 0: the image direction -v must point to A's side */
    int flip = 0;
    switch (side) {
    case KR_CALIB_A_BOTTOM: flip = fabs(v[1]) > 0.2 ? v[1] > 0 : v[0] < 0; break;
    case KR_CALIB_A_TOP: flip = fabs(v[1]) > 0.2 ? v[1] < 0 : v[0] > 0; break;
    case KR_CALIB_A_LEFT: flip = fabs(v[0]) > 0.2 ? v[0] < 0 : v[1] > 0; break;
    case KR_CALIB_A_RIGHT: flip = fabs(v[0]) > 0.2 ? v[0] > 0 : v[1] < 0; break;
    }
    if (flip) {
        v[0] = -v[0];
        v[1] = -v[1];
    }
    /* seen from above with image y down, +x is +y turned clockwise on the screen */
    u[0] = -v[1];
    u[1] = v[0];
}

/* Long / short side of a quad (mean of opposite sides) and the long side length. */
static double quad_aspect(const double *q, double *long_px, double *short_px)
{
    double a = 0.5 * (hypot(q[2] - q[0], q[3] - q[1]) + hypot(q[6] - q[4], q[7] - q[5]));
    double b = 0.5 * (hypot(q[4] - q[2], q[5] - q[3]) + hypot(q[0] - q[6], q[1] - q[7]));
    *long_px = fmax(a, b);
    *short_px = fmin(a, b);
    return *short_px > 0 ? *long_px / *short_px : 0;
}

/* Angle between a card's long side and v, degrees in [0, 90]. */
static double long_side_angle(const double *q, const double v[2])
{
    double l01 = hypot(q[2] - q[0], q[3] - q[1]) + hypot(q[6] - q[4], q[7] - q[5]);
    double l12 = hypot(q[4] - q[2], q[5] - q[3]) + hypot(q[0] - q[6], q[1] - q[7]);
    double ax = l01 > l12 ? q[2] - q[0] : q[4] - q[2];
    double ay = l01 > l12 ? q[3] - q[1] : q[5] - q[3];
    double c = fabs(ax * v[0] + ay * v[1]) / (hypot(ax, ay) + 1e-12);
    return acos(fmin(1.0, c)) * 180.0 / KR_CALIB_PI;
}

static double quad_area(const double *q)
{
    double a = 0;
    for (int j = 0; j < 4; j++) {
        int k = (j + 1) % 4;
        a += q[2 * j] * q[2 * k + 1] - q[2 * k] * q[2 * j + 1];
    }
    return fabs(a) / 2;
}

/* Builds the public calibration from the fitted state. */
static kr_status export_model(const fit *f, int img_w, int img_h, kr_calib_t *c)
{
    c->img_w = img_w;
    c->img_h = img_h;
    c->fx = f->fx;
    c->fy = f->fy;
    c->cx = f->cx;
    c->cy = f->cy;
    lens_of(f, f->g, c->dist);
    double Hn[9] = {f->g[0], f->g[1], f->g[2], f->g[3], f->g[4], f->g[5], f->g[6], f->g[7], 1.0};
    double K[9] = {f->fx, 0, f->cx, 0, f->fy, f->cy, 0, 0, 1};
    double S[9] = {1.0 / MS, 0, 0, 0, 1.0 / MS, 0, 0, 0, 1};
    kr_calib_mat3_mul(K, Hn, c->H);
    kr_calib_mat3_mul(c->H, S, c->H);
    if (kr_calib_finish_model(c)) {
        kr_calib_set_error("calibration fit diverged (singular homography)");
        return KR_ERR_INVALID;
    }
    return KR_OK;
}

static void fill_quality(const fit *f, const kr_calib_config *cfg, kr_calib_t *c, int n_rows,
                         double span_mm)
{
    double d[5], s2 = 0, s2px = 0, worst = 0;
    int m = 0;
    lens_of(f, f->g, d);
    c->n_cards = f->n < KR_CALIB_MAX_CARDS ? f->n : KR_CALIB_MAX_CARDS;
    for (int i = 0; i < c->n_cards; i++) {
        const fcard *fc = &f->c[i];
        kr_calib_card_t *cc = &c->cards[i];
        double cs = cos(fc->p[2]), sn = sin(fc->p[2]), cs2 = 0;
        cc->x_mm = fc->p[0];
        cc->y_mm = fc->base + fc->p[1];
        cc->rot_deg = fc->p[2] * 180.0 / KR_CALIB_PI;
        cc->row = fc->row;
        cc->w_mm = 2 * (HALF_W + fc->p[3]);
        for (int j = 0; j < 4; j++) {
            double hw = HALF_W + fc->p[3], fx = LOCAL[j][0] < 0 ? -hw : hw;
            cc->px[j][0] = fc->obs[j][0];
            cc->px[j][1] = fc->obs[j][1];
            cc->mm[j][0] = cc->x_mm + cs * fx - sn * LOCAL[j][1];
            cc->mm[j][1] = cc->y_mm + sn * fx + cs * LOCAL[j][1];
            double mx, my, u, v;
            predict(f, f->g, d, fc->base, fc->p, j, &u, &v);
            s2px += (u - fc->obs[j][0]) * (u - fc->obs[j][0]) + (v - fc->obs[j][1]) * (v - fc->obs[j][1]);
            if (kr_calib_px_to_mm(c, fc->obs[j][0], fc->obs[j][1], &mx, &my))
                continue;
            /* the detected corner is inset from the card's corner */
            double e = f->g[10];
            double lx = LOCAL[j][0] < 0 ? -(hw - e) : hw - e;
            double ly = LOCAL[j][1] < 0 ? LOCAL[j][1] + e : LOCAL[j][1] - e;
            double ix = cc->x_mm + cs * lx - sn * ly, iy = cc->y_mm + sn * lx + cs * ly;
            double e2 = (mx - ix) * (mx - ix) + (my - iy) * (my - iy);
            s2 += e2;
            cs2 += e2;
            worst = fmax(worst, sqrt(e2));
            m++;
        }
        cc->resid_mm = sqrt(cs2 / 4);
    }
    c->rms_mm = m ? sqrt(s2 / m) : 0;
    c->rms_px = c->n_cards ? sqrt(s2px / (4.0 * c->n_cards)) : 0;
    c->worst_mm = worst;
    c->ok = 1;
    c->reason[0] = 0;
    if (c->n_cards < cfg->poor_cards) {
        c->ok = 0;
        snprintf(c->reason, sizeof c->reason, "only %d cards used (want %d or more)", c->n_cards,
                 cfg->poor_cards);
    } else if (c->rms_mm > cfg->poor_rms_mm) {
        c->ok = 0;
        snprintf(c->reason, sizeof c->reason, "card corners fit to %.2f mm RMS (limit %.2f)",
                 c->rms_mm, cfg->poor_rms_mm);
    } else if (n_rows < 4) {
        c->ok = 0;
        snprintf(c->reason, sizeof c->reason, "cards in only %d rows; the territories are guessed",
                 n_rows);
    } else if (span_mm < 0.75 * 2 * KR_CALIB_FIELD_HALF_W_MM) {
        c->ok = 0;
        snprintf(c->reason, sizeof c->reason, "cards span only %.0f of the 870 mm width; the side "
                 "lines are guessed", span_mm);
    }
}

/* Field outline inside the image? Returns 0 or -1 with the error text. */
static int check_field_visible(const kr_calib_t *c)
{
    for (int e = 0; e < 4; e++)
        for (int k = 0; k <= 20; k++) {
            double t = -1.0 + k / 10.0;
            double x = (e < 2) ? t * KR_CALIB_FIELD_HALF_W_MM : (e == 2 ? -1 : 1) * KR_CALIB_FIELD_HALF_W_MM;
            double y = (e < 2) ? (e == 0 ? -1 : 1) * KR_CALIB_FIELD_HALF_H_MM : t * KR_CALIB_FIELD_HALF_H_MM;
            double px, py;
            if (kr_calib_mm_to_px(c, x, y, &px, &py) || px < 0 || py < 0 || px > c->img_w - 1 ||
                py > c->img_h - 1) {
                kr_calib_set_error("field cut off by the frame: mat point (%.0f, %.0f) mm falls "
                                   "outside the %dx%d image", x, y, c->img_w, c->img_h);
                return -1;
            }
        }
    return 0;
}

/* Where A's territory ended up in the image: the dominant direction from B's centre to
 * A's; views near 90 degrees (A at the left or right) say left/right. */
static kr_calib_a_side observed_a_side(const kr_calib_t *c, kr_calib_a_side wanted)
{
    double ax, ay, bx, by;
    if (kr_calib_mm_to_px(c, 0, -134.5, &ax, &ay) || kr_calib_mm_to_px(c, 0, 134.5, &bx, &by))
        return wanted;
    double dx = ax - bx, dy = ay - by;
    if (fabs(dy) >= fabs(dx))
        return dy > 0 ? KR_CALIB_A_BOTTOM : KR_CALIB_A_TOP;
    return dx < 0 ? KR_CALIB_A_LEFT : KR_CALIB_A_RIGHT;
}

kr_status kr_calib_fit_cards(const kr_calib_config *cfg_in, int img_w, int img_h,
                             const double *quads, int n, int64_t t_us, kr_calib_t **out)
{
    kr_calib_config cfg;
    kr_status st = KR_OK;
    fit f;
    kr_calib_t *c = NULL;
    memset(&f, 0, sizeof f);
    *out = NULL;
    if (cfg_in)
        cfg = *cfg_in;
    else
        kr_calib_config_default(&cfg);
    if (img_w <= 0 || img_h <= 0 || n < 0 || (n > 0 && !quads)) {
        kr_calib_set_error("calibration: bad arguments");
        return KR_ERR_INVALID;
    }
    if (n < cfg.min_cards) {
        kr_calib_set_error("found %d card outlines, need at least %d", n, cfg.min_cards);
        return KR_ERR_INVALID;
    }
    /* single cards (aspect near 73/52) set the axes and the scale; longer outlines may be
     * strips of cards laid edge to edge in a row: one card deep, of unknown width */
    unsigned char *single = calloc((size_t)n, 1);
    double *areas = malloc(sizeof(double) * (size_t)n);
    f.c = calloc((size_t)n, sizeof *f.c);
    if (!single || !areas || !f.c) {
        free(single);
        free(areas);
        st = KR_ERR_NOMEM;
        goto fail;
    }
    int ns = 0;
    for (int i = 0; i < n; i++) {
        double lp, sp, asp = quad_aspect(quads + 8 * i, &lp, &sp);
        single[i] = asp >= 1.1 && asp <= 1.9;
        if (single[i])
            areas[ns++] = quad_area(quads + 8 * i);
    }
    if (ns < cfg.min_cards) {
        kr_calib_set_error("found %d card outlines, only %d of them single cards, need at least %d",
                           n, ns, cfg.min_cards);
        free(single);
        free(areas);
        st = KR_ERR_INVALID;
        goto fail;
    }
    double u[2], v[2];
    mat_axes(quads, single, n, cfg.a_side, u, v);
    qsort(areas, (size_t)ns, sizeof *areas, cmp_double);
    double med_area = areas[ns / 2];
    free(areas);
    double s = sqrt(med_area / (KR_CALIB_CARD_W_MM * KR_CALIB_CARD_H_MM)); /* px per mm */
    double Cx = 0, Cy = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        const double *q = quads + 8 * i;
        double a = quad_area(q), lp, sp;
        quad_aspect(q, &lp, &sp);
        int ok = single[i] ? a >= 0.5 * med_area && a <= 2.0 * med_area && long_side_angle(q, v) <= 20.0
                           : fabs(sp / s - KR_CALIB_CARD_H_MM) < 0.25 * KR_CALIB_CARD_H_MM &&
                                 lp / s > 1.5 * KR_CALIB_CARD_W_MM && long_side_angle(q, v) >= 70.0;
        if (!ok) {
            KR_DEBUG("calib: skip quad at (%.0f, %.0f) px: area %.0f px^2 (median %.0f), "
                     "%.0f deg off the card axis", q[0], q[1], a, med_area, long_side_angle(q, v));
            continue;
        }
        if (order_corners(q, u, v, f.c[m].obs)) {
            KR_DEBUG("calib: skip quad at (%.0f, %.0f) px: corners not one per quadrant", q[0], q[1]);
            continue;
        }
        f.c[m].sig_w = single[i] ? 1e-6 : 1e4;
        f.c[m].p[3] = single[i] ? 0 : 0.5 * (lp / s - KR_CALIB_CARD_W_MM);
        for (int j = 0; j < 4; j++) {
            Cx += f.c[m].obs[j][0] / 4;
            Cy += f.c[m].obs[j][1] / 4;
        }
        m++;
    }
    free(single);
    if (m < cfg.min_cards) {
        kr_calib_set_error("found %d card outlines, only %d of them consistent cards, need at "
                           "least %d", n, m, cfg.min_cards);
        st = KR_ERR_INVALID;
        goto fail;
    }
    Cx /= m;
    Cy /= m;
    f.n = m;
    if (cfg.intrinsics_known) {
        f.fx = cfg.fx;
        f.fy = cfg.fy;
        f.cx = cfg.cx;
        f.cy = cfg.cy;
        memcpy(f.dist, cfg.dist, sizeof f.dist);
        f.lens_free = 0;
        f.gsig[8] = f.gsig[9] = 1e-9; /* unused */
    } else {
        double foc = cfg.focal_px > 0 ? cfg.focal_px : (img_w > img_h ? img_w : img_h);
        f.fx = f.fy = foc;
        f.cx = (img_w - 1) / 2.0;
        f.cy = (img_h - 1) / 2.0;
        f.lens_free = 1;
        f.gsig[8] = 1.0;
        f.gsig[9] = cfg.fit_k2 ? 0.5 : 1e-9;
    }
    f.sig_px = 0.5;
    f.sig_x = 1e4;
    f.sig_y = 1e4;
    f.sig_th = fmax(cfg.card_rot_deg, 0.01) * KR_CALIB_PI / 180.0;
    f.gsig[10] = 1e-9; /* the edge inset needs the rows to be seen: fixed at 0 for now */
    /* affine start: mat (x, y) -> C + s (x u + y v) */
    f.g[0] = MS * s * u[0] / f.fx;
    f.g[1] = MS * s * v[0] / f.fx;
    f.g[2] = (Cx - f.cx) / f.fx;
    f.g[3] = MS * s * u[1] / f.fy;
    f.g[4] = MS * s * v[1] / f.fy;
    f.g[5] = (Cy - f.cy) / f.fy;
    for (int i = 0; i < m; i++) {
        double mx = 0, my = 0;
        for (int j = 0; j < 4; j++) {
            mx += f.c[i].obs[j][0] / 4;
            my += f.c[i].obs[j][1] / 4;
        }
        f.c[i].p[0] = f.c[i].x0 = ((mx - Cx) * u[0] + (my - Cy) * u[1]) / s;
        f.c[i].p[1] = f.c[i].dy0 = ((mx - Cx) * v[0] + (my - Cy) * v[1]) / s;
    }
    /* 1: free fit (card centres anywhere), dropping cards that do not fit */
    for (int round = 0; round < 8; round++) {
        if ((st = lm_run(&f, 100)) != KR_OK)
            goto fail;
        if (!drop_outliers(&f, 1.0))
            break;
    }
    if (f.n < cfg.min_cards) {
        kr_calib_set_error("found %d card outlines, only %d fit one plane of same-size cards, "
                           "need at least %d", n, f.n, cfg.min_cards);
        st = KR_ERR_INVALID;
        goto fail;
    }
    /* 2: rows: the six row slots fix y; cards keep a small prior jitter inside a row */
    double shift_y;
    int n_rows;
    if (assign_rows(&f, &shift_y, &n_rows)) {
        st = KR_ERR_INVALID;
        goto fail;
    }
    shift_frame(&f, 0, shift_y);
    for (int i = 0; i < f.n; i++) {
        fcard *fc = &f.c[i];
        double y = fc->base + fc->p[1];
        fc->base = ROW_Y[fc->row < 0 ? fc->row + 3 : fc->row + 2];
        fc->p[1] = y - fc->base;
        fc->dy0 = 0;
    }
    f.sig_y = fmax(cfg.row_jitter_mm, 0.01);
    f.gsig[10] = 2.0; /* rows give the y scale, so card heights now tell the inset */
    for (int round = 0; round < 4; round++) {
        if ((st = lm_run(&f, 100)) != KR_OK)
            goto fail;
        if (!drop_outliers(&f, 1.0))
            break;
    }
    /* 3: x: the 870 mm width centred on the cards */
    double xlo = INFINITY, xhi = -INFINITY;
    for (int i = 0; i < f.n; i++) {
        xlo = fmin(xlo, f.c[i].p[0] - HALF_W - f.c[i].p[3]);
        xhi = fmax(xhi, f.c[i].p[0] + HALF_W + f.c[i].p[3]);
    }
    shift_frame(&f, 0.5 * (xlo + xhi), 0);

    c = kr_calib_alloc();
    if (!c) {
        st = KR_ERR_NOMEM;
        goto fail;
    }
    if ((st = export_model(&f, img_w, img_h, c)) != KR_OK)
        goto fail;
    c->intrinsics_known = cfg.intrinsics_known;
    c->card_inset_mm = f.g[10];
    c->a_side = observed_a_side(c, cfg.a_side);
    c->t_us = t_us;
    c->n_found = n;
    fill_quality(&f, &cfg, c, n_rows, xhi - xlo);
    if (!cfg.allow_cutoff && check_field_visible(c)) {
        st = KR_ERR_INVALID;
        goto fail;
    }
    free(f.c);
    *out = c;
    return KR_OK;
fail:
    free(f.c);
    free(c);
    return st;
}
