/* test_calib.c - camera-to-mat calibration: model recovery from synthetic card corners,
 * JSON round trip and grid, failures; as test_calib_media also detection on rendered frames.
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_calib_internal.h"
#include "kr_cv.h"
#include "kr_media.h"

#include <CUnit/Basic.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- generators ------------------------------------------------------------ */

static uint64_t rng_state = 88172645463325252ull;
static double urand(void) /* xorshift64, [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static double nrand(void)
{
    double u = urand() + 1e-12, v = urand();
    return sqrt(-2 * log(u)) * cos(2 * KR_CALIB_PI * v);
}

typedef struct cam {
    int    w, h;
    double f;
    double yaw_deg;   /* rotation of the mat in the image */
    double tilt_deg;  /* optical axis away from vertical */
    double tilt_dir_deg;
    double dist_mm;   /* camera distance from the field centre */
    double k1, k2;
    double shift_x_mm, shift_y_mm; /* point the camera off the field centre */
} cam;

static void rot_z(double a, double R[9])
{
    double c = cos(a), s = sin(a);
    double t[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, t, sizeof t);
}

/* True model: pinhole at distance dist_mm from the aim point, looking at it; its centre
 * (mat mm, z up) into C when not NULL, and the calibration given the focal length f_guess
 * (0: the true one) */
static kr_calib_t *make_camera_at(const cam *cm, double f_guess, double C_out[3])
{
    double base[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1}; /* columns: camera x, y, z in world */
    double Rz[9], Rt[9], Rdir[9], Rdiri[9], T[9], Rcw[9];
    rot_z(cm->yaw_deg * KR_CALIB_PI / 180, Rz);
    rot_z(cm->tilt_dir_deg * KR_CALIB_PI / 180, Rdir);
    rot_z(-cm->tilt_dir_deg * KR_CALIB_PI / 180, Rdiri);
    double a = cm->tilt_deg * KR_CALIB_PI / 180;
    double Rx[9] = {1, 0, 0, 0, cos(a), -sin(a), 0, sin(a), cos(a)};
    kr_calib_mat3_mul(Rdir, Rx, T);
    kr_calib_mat3_mul(T, Rdiri, Rt);
    kr_calib_mat3_mul(Rz, base, T);
    kr_calib_mat3_mul(Rt, T, Rcw);
    /* camera centre: back along the optical axis (third column) from the aim point */
    double C[3] = {cm->shift_x_mm - cm->dist_mm * Rcw[2], cm->shift_y_mm - cm->dist_mm * Rcw[5],
                   -cm->dist_mm * Rcw[8]};
    double R[9]; /* world -> camera = Rcw^T */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i * 3 + j] = Rcw[j * 3 + i];
    double t[3];
    for (int i = 0; i < 3; i++)
        t[i] = -(R[i * 3] * C[0] + R[i * 3 + 1] * C[1] + R[i * 3 + 2] * C[2]);
    double M[9] = {R[0], R[1], t[0], R[3], R[4], t[1], R[6], R[7], t[2]};
    double cx = (cm->w - 1) / 2.0, cy = (cm->h - 1) / 2.0;
    double K[9] = {cm->f, 0, cx, 0, cm->f, cy, 0, 0, 1}, H[9];
    kr_calib_mat3_mul(K, M, H);
    double dist[5] = {cm->k1, cm->k2, 0, 0, 0};
    if (C_out)
        memcpy(C_out, C, sizeof C);
    const double f = f_guess > 0 ? f_guess : cm->f;
    kr_calib_t *c = NULL;
    if (kr_calib_create_from_model(cm->w, cm->h, f, f, cx, cy, dist, H, &c) != KR_OK)
        return NULL;
    return c;
}
static kr_calib_t *make_camera(const cam *cm) { return make_camera_at(cm, 0, NULL); }

typedef struct layout {
    int    n;
    double x[64], y[64], rot[64]; /* centre mm, rotation rad */
    double rim_mm;                /* width of a dark rim around each card's face (render only) */
} layout;

/* 25 cards per territory in 3 rows, random gaps, centred on x = 0 as the calibration
 * convention expects; jitter_mm / rot_deg: how carelessly they were laid. */
static void make_layout(layout *L, int per_side, double jitter_mm, double rot_deg)
{
    static const double rows[6] = {-217.5, -134.5, -51.5, 51.5, 134.5, 217.5};
    L->n = 0;
    L->rim_mm = 0;
    for (int r = 0; r < 6; r++) {
        int k = per_side / 3 + (r % 3 < per_side % 3);
        double gap = (800.0 - k * 52.0) / (k > 1 ? k - 1 : 1);
        for (int i = 0; i < k; i++) {
            double x = -400 + 26 + i * (52 + gap) + (urand() - 0.5) * gap * 0.5;
            L->x[L->n] = x;
            L->y[L->n] = rows[r] + jitter_mm * (urand() * 2 - 1);
            L->rot[L->n] = rot_deg * KR_CALIB_PI / 180 * (urand() * 2 - 1);
            L->n++;
        }
    }
    double lo = 1e9, hi = -1e9;
    for (int i = 0; i < L->n; i++) {
        lo = fmin(lo, L->x[i] - 26);
        hi = fmax(hi, L->x[i] + 26);
    }
    for (int i = 0; i < L->n; i++)
        L->x[i] -= (lo + hi) / 2;
}

static void card_corner(const layout *L, int i, int j, double *x, double *y)
{
    static const double Lc[4][2] = {{-26, -36.5}, {26, -36.5}, {26, 36.5}, {-26, 36.5}};
    double c = cos(L->rot[i]), s = sin(L->rot[i]);
    *x = L->x[i] + c * Lc[j][0] - s * Lc[j][1];
    *y = L->y[i] + s * Lc[j][0] + c * Lc[j][1];
}

/* Corners through the true camera with noise, corner order rotated at random. */
static int project_cards(const kr_calib_t *truth, const layout *L, double noise_px, double *quads)
{
    for (int i = 0; i < L->n; i++) {
        int start = (int)(urand() * 4);
        for (int j = 0; j < 4; j++) {
            double x, y, px, py;
            card_corner(L, i, (start + j) % 4, &x, &y);
            if (kr_calib_mm_to_px(truth, x, y, &px, &py))
                return -1;
            quads[8 * i + 2 * j] = px + noise_px * nrand();
            quads[8 * i + 2 * j + 1] = py + noise_px * nrand();
        }
    }
    return L->n;
}

/* Error of est against truth over field points (mm): the raw pixel where the truth
 * shows a mat point, mapped back through est. */
static void field_error(const kr_calib_t *truth, const kr_calib_t *est, double *rms, double *worst)
{
    double s = 0;
    int n = 0;
    *worst = 0;
    for (double y = -254; y <= 254.01; y += 254.0 / 8)
        for (double x = -435; x <= 435.01; x += 435.0 / 12) {
            double px, py, ex, ey;
            if (kr_calib_mm_to_px(truth, x, y, &px, &py) || kr_calib_px_to_mm(est, px, py, &ex, &ey)) {
                *worst = 1e9;
                continue;
            }
            double e = hypot(ex - x, ey - y);
            s += e * e;
            n++;
            *worst = fmax(*worst, e);
        }
    *rms = n ? sqrt(s / n) : 1e9;
}

/* Where the true camera shows A, by the calibration's rule (near 90 degrees: A left
 * counts as bottom). */
static kr_calib_a_side truth_a_side(const kr_calib_t *t)
{
    double ax, ay, bx, by;
    kr_calib_mm_to_px(t, 0, -134.5, &ax, &ay);
    kr_calib_mm_to_px(t, 0, 134.5, &bx, &by);
    if (fabs(ay - by) > 0.2 * hypot(ax - bx, ay - by))
        return ay > by ? KR_CALIB_A_BOTTOM : KR_CALIB_A_TOP;
    return ax < bx ? KR_CALIB_A_BOTTOM : KR_CALIB_A_TOP;
}

/* ---- unit: model and fit --------------------------------------------------- */

static void test_mapping_round_trip(void)
{
    cam cm = {1920, 1080, 1500, 25, 8, 60, 1300, -0.18, 0.03, 0, 0};
    kr_calib_t *c = make_camera(&cm);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    double worst = 0;
    for (double y = -275; y <= 275; y += 25)
        for (double x = -450; x <= 450; x += 25) {
            double px, py, bx, by;
            CU_ASSERT_EQUAL_FATAL(kr_calib_mm_to_px(c, x, y, &px, &py), 0);
            CU_ASSERT_EQUAL_FATAL(kr_calib_px_to_mm(c, px, py, &bx, &by), 0);
            worst = fmax(worst, hypot(bx - x, by - y));
        }
    CU_ASSERT(worst < 1e-6);
    /* distortion really acts: a field corner moves by pixels, not by rounding */
    double px, py, ux, uy;
    kr_calib_mm_to_px(c, 435, 254, &px, &py);
    CU_ASSERT_EQUAL(kr_calib_undistort(c, px, py, &ux, &uy), 0);
    CU_ASSERT(hypot(px - ux, py - uy) > 5.0);
    kr_calib_destroy(c);
}

/* The fit recovers a known camera from noisy card corners within tolerance. */
static void check_recovery(const cam *cm, double jitter_mm, double rot_deg, double noise_px,
                           double max_rms, double max_worst)
{
    kr_calib_t *truth = make_camera(cm);
    CU_ASSERT_PTR_NOT_NULL_FATAL(truth);
    layout L;
    make_layout(&L, 25, jitter_mm, rot_deg);
    double quads[8 * 64];
    CU_ASSERT_EQUAL_FATAL(project_cards(truth, &L, noise_px, quads), 50);
    kr_calib_config cfg;
    kr_calib_config_default(&cfg);
    kr_calib_t *est = NULL;
    kr_status st = kr_calib_fit_cards(&cfg, cm->w, cm->h, quads, L.n, 123, &est);
    if (st != KR_OK)
        fprintf(stderr, "fit failed: %s\n", kr_calib_error());
    CU_ASSERT_EQUAL_FATAL(st, KR_OK);
    double rms, worst;
    field_error(truth, est, &rms, &worst);
    if (!(rms < max_rms && worst < max_worst) || getenv("KR_TEST_VERBOSE"))
        fprintf(stderr, "\nyaw %.0f tilt %.0f k1 %.2f: field error rms %.3f worst %.3f mm "
                "(fit rms %.3f mm, k1 %.3f k2 %.3f, %d cards)\n", cm->yaw_deg, cm->tilt_deg, cm->k1,
                rms, worst, est->rms_mm, est->dist[0], est->dist[1], est->n_cards);
    CU_ASSERT(rms < max_rms);
    CU_ASSERT(worst < max_worst);
    CU_ASSERT_EQUAL(est->n_cards, 50);
    CU_ASSERT_EQUAL(est->t_us, 123);
    CU_ASSERT(est->ok);
    /* each card lands in the row it was laid in */
    int rows_ok = 1;
    for (int i = 0; i < est->n_cards; i++) {
        double y = est->cards[i].y_mm;
        int r = est->cards[i].row;
        int expect = y < 0 ? -1 - (int)((-y - 15) / 83) : 1 + (int)((y - 15) / 83);
        if (r != expect)
            rows_ok = 0;
    }
    CU_ASSERT(rows_ok);
    kr_calib_destroy(est);
    kr_calib_destroy(truth);
}

static void test_fit_straight_down(void)
{
    cam cm = {1920, 1080, 1600, 0, 0, 0, 1500, 0, 0, 0, 0};
    check_recovery(&cm, 0, 0, 0.1, 0.3, 0.8);
}

static void test_fit_tilt_rotation_barrel(void)
{
    cam cm = {1920, 1080, 1400, 17, 10, 70, 1250, -0.20, 0.04, 20, -15};
    check_recovery(&cm, 0.5, 0.5, 0.15, 1.0, 2.5);
}

static void test_fit_any_rotation(void)
{
    static const double yaws[] = {90, 135, 180, 250, 315};
    for (size_t i = 0; i < sizeof yaws / sizeof yaws[0]; i++) {
        cam cm = {1920, 1080, 1500, yaws[i], 6, 200, 1550, -0.12, 0.0, 0, 0};
        if (fmod(yaws[i], 180) != 0) /* the field is wider than the image is high */
            cm.dist_mm = 2200;
        /* the calibration puts A at the bottom: compare with the truth turned to match */
        kr_calib_t *truth = make_camera(&cm);
        int a_bottom = truth_a_side(truth) == KR_CALIB_A_BOTTOM;
        kr_calib_destroy(truth);
        if (!a_bottom)
            cm.yaw_deg += 180;
        check_recovery(&cm, 0.3, 0.5, 0.15, 1.0, 2.5);
    }
}

static void test_a_side_option(void)
{
    cam cm = {1920, 1080, 1500, 0, 0, 0, 1500, -0.1, 0, 0, 0};
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0, 0);
    double quads[8 * 64];
    project_cards(truth, &L, 0.1, quads);
    kr_calib_config cfg;
    kr_calib_config_default(&cfg);
    cfg.a_side = KR_CALIB_A_TOP;
    kr_calib_t *est = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_fit_cards(&cfg, 1920, 1080, quads, L.n, 0, &est), KR_OK);
    double px, py, x, y;
    kr_calib_mm_to_px(truth, 100, -200, &px, &py); /* truth: A bottom */
    CU_ASSERT_EQUAL(kr_calib_px_to_mm(est, px, py, &x, &y), 0);
    CU_ASSERT(fabs(x + 100) < 1.0 && fabs(y - 200) < 1.0); /* turned half a circle */
    CU_ASSERT_EQUAL(est->a_side, KR_CALIB_A_TOP);
    kr_calib_destroy(est);
    kr_calib_destroy(truth);
    /* players at the left and right of the picture: A where asked, and the file says so */
    static const kr_calib_a_side sides[2] = {KR_CALIB_A_LEFT, KR_CALIB_A_RIGHT};
    for (int k = 0; k < 2; k++) {
        cam c90 = {1920, 1080, 1500, 90, 3, 0, 2200, -0.1, 0, 0, 0};
        truth = make_camera(&c90);
        project_cards(truth, &L, 0.1, quads);
        cfg.a_side = sides[k];
        CU_ASSERT_EQUAL_FATAL(kr_calib_fit_cards(&cfg, 1920, 1080, quads, L.n, 0, &est), KR_OK);
        double ax, ay, bx, by;
        kr_calib_mm_to_px(est, 0, -134.5, &ax, &ay);
        kr_calib_mm_to_px(est, 0, 134.5, &bx, &by);
        CU_ASSERT(k == 0 ? ax < bx - 100 : ax > bx + 100); /* 269 mm apart, 0.68 px/mm */
        CU_ASSERT_EQUAL(est->a_side, sides[k]);
        kr_calib_destroy(est);
        kr_calib_destroy(truth);
    }
}

static void test_fit_rejects_stray_quads(void)
{
    cam cm = {1920, 1080, 1500, 5, 5, 0, 1500, -0.1, 0, 0, 0};
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0, 0);
    double quads[8 * 70];
    project_cards(truth, &L, 0.1, quads);
    /* five wrong-sized rectangles (a smartphone, a box) and one crooked card */
    for (int k = 0; k < 5; k++) {
        double x0 = 200 + 250 * k, y0 = 60, w = 70 + 10 * k, h = 100 + 12 * k;
        double q[8] = {x0, y0, x0 + w, y0, x0 + w, y0 + h, x0, y0 + h};
        memcpy(quads + 8 * (L.n + k), q, sizeof q);
    }
    for (int j = 0; j < 4; j++) /* card 3's corner 2 is 6 px off */
        if (j == 2)
            quads[8 * 3 + 2 * j] += 6;
    kr_calib_config cfg;
    kr_calib_config_default(&cfg);
    kr_calib_t *est = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_fit_cards(&cfg, 1920, 1080, quads, L.n + 5, 0, &est), KR_OK);
    double rms, worst;
    field_error(truth, est, &rms, &worst);
    CU_ASSERT(rms < 0.5);
    if (est->n_cards != 49)
        fprintf(stderr, "\n%d cards used, rms %.3f\n", est->n_cards, rms);
    CU_ASSERT(est->n_cards == 49);
    CU_ASSERT_EQUAL(est->n_found, 55);
    kr_calib_destroy(est);
    kr_calib_destroy(truth);
}

/* With the lens known (as from a board) only the homography is fitted; the lens is kept. */
static void test_fit_with_known_lens(void)
{
    cam cm = {1920, 1080, 1350, -25, 9, 160, 1300, -0.22, 0.05, 10, 10};
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0.5, 0.5);
    double quads[8 * 64];
    CU_ASSERT_EQUAL_FATAL(project_cards(truth, &L, 0.15, quads), L.n);
    kr_calib_config cfg;
    kr_calib_config_default(&cfg);
    kr_calib_lens lens = {1920, 1080, truth->fx, truth->fy, truth->cx, truth->cy,
                          {-0.22, 0.05, 0, 0, 0}, 0.1, 9};
    kr_calib_config_set_lens(&cfg, &lens);
    kr_calib_t *est = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_fit_cards(&cfg, 1920, 1080, quads, L.n, 0, &est), KR_OK);
    CU_ASSERT(est->intrinsics_known);
    CU_ASSERT_DOUBLE_EQUAL(est->dist[0], -0.22, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(est->fx, 1350, 1e-9);
    double rms, worst;
    field_error(truth, est, &rms, &worst);
    CU_ASSERT(rms < 0.6 && worst < 1.5);
    kr_calib_destroy(est);
    kr_calib_destroy(truth);
}

static void test_too_few_cards(void)
{
    cam cm = {1920, 1080, 1500, 0, 0, 0, 1500, 0, 0, 0, 0};
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0, 0);
    double quads[8 * 64];
    project_cards(truth, &L, 0.1, quads);
    kr_calib_t *est = (kr_calib_t *)1;
    CU_ASSERT_EQUAL(kr_calib_fit_cards(NULL, 1920, 1080, quads, 9, 0, &est), KR_ERR_INVALID);
    CU_ASSERT_PTR_NULL(est);
    CU_ASSERT_STRING_EQUAL(kr_calib_error(), "found 9 card outlines, need at least 12");
    kr_calib_destroy(truth);
}

static void test_field_cut_off(void)
{
    cam cm = {1920, 1080, 1500, 0, 0, 0, 640, 0, 0, 0, 0}; /* too close: sides leave the image */
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0, 0);
    double quads[8 * 64];
    int n = 0;
    for (int i = 0; i < L.n; i++) { /* keep the cards that are inside the picture */
        layout one = {1, {L.x[i]}, {L.y[i]}, {0}, 0};
        double q[8];
        if (project_cards(truth, &one, 0.05, q) != 1)
            continue;
        int in = 1;
        for (int j = 0; j < 4; j++)
            in &= q[2 * j] > 2 && q[2 * j] < 1917 && q[2 * j + 1] > 2 && q[2 * j + 1] < 1077;
        if (in)
            memcpy(quads + 8 * n++, q, sizeof q);
    }
    CU_ASSERT(n >= 20);
    kr_calib_t *est = NULL;
    CU_ASSERT_EQUAL(kr_calib_fit_cards(NULL, 1920, 1080, quads, n, 0, &est), KR_ERR_INVALID);
    CU_ASSERT(strstr(kr_calib_error(), "field cut off by the frame") != NULL);
    kr_calib_destroy(truth);
}

/* Writes root as JSON to path (the test fails when it cannot). */
static void write_json(const cJSON *root, const char *path)
{
    char *txt = cJSON_Print(root);
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(txt, fp);
    fclose(fp);
    free(txt);
}

static void test_json_round_trip_and_grid(void)
{
    cam cm = {1280, 720, 1000, 12, 7, 30, 1500, -0.15, 0.02, 0, 0};
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0.3, 0.3);
    double quads[8 * 64];
    project_cards(truth, &L, 0.1, quads);
    kr_calib_t *c = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_fit_cards(NULL, 1280, 720, quads, L.n, 4500000, &c), KR_OK);
    snprintf(c->source, sizeof c->source, "%s", "match.mp4");
    c->readout_us = 15000;
    char dir[] = "/tmp/kr_calib_XXXXXX", path[300];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/calib.json", dir);
    CU_ASSERT_EQUAL_FATAL(kr_calib_save(c, path), KR_OK);
    kr_calib_t *d = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_load(path, &d), KR_OK);
    double worst = 0;
    for (double y = -300; y <= 300; y += 30)
        for (double x = -480; x <= 480; x += 30) {
            double a0, a1, b0, b1;
            CU_ASSERT_EQUAL(kr_calib_mm_to_px(c, x, y, &a0, &a1), 0);
            CU_ASSERT_EQUAL(kr_calib_mm_to_px(d, x, y, &b0, &b1), 0);
            worst = fmax(worst, hypot(a0 - b0, a1 - b1));
        }
    CU_ASSERT(worst < 1e-6);
    CU_ASSERT_EQUAL(d->img_w, 1280);
    CU_ASSERT_EQUAL(d->t_us, 4500000);
    CU_ASSERT_EQUAL(d->n_cards, c->n_cards);
    CU_ASSERT_EQUAL(d->ok, c->ok);
    CU_ASSERT_STRING_EQUAL(d->source, "match.mp4");
    CU_ASSERT_EQUAL(d->readout_us, 15000);
    CU_ASSERT(fabs(d->rms_mm - c->rms_mm) < 1e-3);
    /* the grid an outside tool reads: 19 x 12 points, each where the model puts it */
    FILE *fp = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    static char buf[1 << 20];
    size_t len = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[len] = 0;
    cJSON *root = cJSON_Parse(buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    cJSON *grid = cJSON_GetObjectItem(root, "grid");
    CU_ASSERT_EQUAL(cJSON_GetArraySize(grid), 19 * 12);
    int seen_corner = 0;
    double gworst = 0;
    cJSON *g;
    cJSON_ArrayForEach(g, grid)
    {
        cJSON *mm = cJSON_GetObjectItem(g, "mm"), *px = cJSON_GetObjectItem(g, "px");
        double x = cJSON_GetArrayItem(mm, 0)->valuedouble, y = cJSON_GetArrayItem(mm, 1)->valuedouble;
        double tx, ty;
        CU_ASSERT_EQUAL(kr_calib_mm_to_px(truth, x, y, &tx, &ty), 0);
        /* against the TRUE camera: the file is as good as the fit */
        gworst = fmax(gworst, hypot(cJSON_GetArrayItem(px, 0)->valuedouble - tx,
                                    cJSON_GetArrayItem(px, 1)->valuedouble - ty));
        if (x == -450 && y == -275)
            seen_corner = 1;
    }
    CU_ASSERT(seen_corner);
    CU_ASSERT(gworst < 2.0); /* px; about 1.3 px per mm here */
    CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(root, "rms_mm")));
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(root, "a_side")->valuestring, "bottom");
    /* the rolling shutter's readout: a bad one is refused by name; a file from before it
     * (no member) reads as none */
    kr_calib_t *e = NULL;
    const double readouts[] = {-5, 1.5, 200000};
    for (int i = 0; i < 3; i++) {
        cJSON_ReplaceItemInObject(root, "readout_us", cJSON_CreateNumber(readouts[i]));
        write_json(root, path);
        CU_ASSERT_EQUAL(kr_calib_load(path, &e), KR_ERR_FORMAT);
        CU_ASSERT_PTR_NULL(e);
        CU_ASSERT(strstr(kr_calib_error(), "readout_us") != NULL);
    }
    cJSON_DeleteItemFromObject(root, "readout_us");
    write_json(root, path);
    CU_ASSERT_EQUAL(kr_calib_load(path, &e), KR_OK);
    CU_ASSERT(e && e->readout_us == 0);
    kr_calib_destroy(e);
    cJSON_Delete(root);
    /* a damaged file is refused with the member named */
    fp = fopen(path, "wb");
    fputs("{\"format\":\"karuta-calib/1\",\"image\":{\"w\":1280,\"h\":720}}", fp);
    fclose(fp);
    kr_calib_t *bad = NULL;
    CU_ASSERT_EQUAL(kr_calib_load(path, &bad), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NULL(bad);
    CU_ASSERT(strstr(kr_calib_error(), "intrinsics.fx") != NULL);
    remove(path);
    rmdir(dir);
    kr_calib_destroy(c);
    kr_calib_destroy(d);
    kr_calib_destroy(truth);
}

/* A still, textured scene under lamps pulsing at hz with a share amp, n frames at fps, rows
 * read over readout_us (0: a global shutter; from frame n/2 on, later_readout_us), sensor
 * noise; the readout measured from it. */
static kr_calib_readout flicker_scene(double hz, double amp, double fps, int64_t readout_us, int n,
                                      int64_t later_readout_us)
{
    enum { W = 320, H = 180 };
    static uint8_t base[W * H], px[W * H];
    unsigned seed = 7;
    for (int i = 0; i < W * H; i++) { /* a mat's weave and some bright cards */
        seed = seed * 1103515245u + 12345u;
        base[i] = (uint8_t)(90 + (seed >> 16) % 40 + (((i % W) / 40 + (i / W) / 30) % 3 == 0 ? 100 : 0));
    }
    kr_calib_flicker_t *f = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_flicker_create(W, H, 96, &f), KR_OK);
    for (int k = 0; k < n; k++) {
        double t = k / fps;
        for (int y = 0; y < H; y++) {
            double ro = (k < n / 2 ? readout_us : later_readout_us) / 1e6;
            double g = 1 + amp * sin(2 * 3.14159265358979 * hz * (t + ((y + 0.5) / H - 0.5) * ro) + 0.3);
            for (int x = 0; x < W; x++) {
                seed = seed * 1103515245u + 12345u;
                double v = base[y * W + x] * g + ((int)((seed >> 16) % 7) - 3);
                px[y * W + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
            }
        }
        kr_image_t img = {W, H, W, 1, px};
        CU_ASSERT_EQUAL(kr_calib_flicker_add(f, &img, (int64_t)llround(t * 1e6)), KR_OK);
    }
    kr_calib_readout ro;
    CU_ASSERT_EQUAL(kr_calib_flicker_fit(f, &ro), KR_OK);
    kr_calib_flicker_destroy(f);
    return ro;
}

/* The readout is measured from flicker bands (100 Hz at 60 fps, 120 Hz at 25 fps): within
 * 0.2 ms; a global shutter, steady light, bands that stand still (120 Hz at 60 fps), too
 * few frames, or bands the two halves of the frames do not agree on: none found. */
static void test_readout_from_flicker(void)
{
    kr_calib_readout ro = flicker_scene(100, 0.05, 60, 12000, 90, 12000);
    CU_ASSERT(ro.found);
    CU_ASSERT_EQUAL(ro.flicker_hz, 100);
    CU_ASSERT(llabs(ro.readout_us - 12000) <= 200);
    ro = flicker_scene(120, 0.03, 25, 35000, 50, 35000);
    CU_ASSERT(ro.found);
    CU_ASSERT_EQUAL(ro.flicker_hz, 120);
    CU_ASSERT(llabs(ro.readout_us - 35000) <= 200);
    CU_ASSERT_FALSE(flicker_scene(100, 0.05, 60, 0, 90, 0).found);
    CU_ASSERT_FALSE(flicker_scene(100, 0, 60, 12000, 90, 12000).found);
    CU_ASSERT_FALSE(flicker_scene(120, 0.05, 60, 12000, 90, 12000).found);
    CU_ASSERT_FALSE(flicker_scene(100, 0.05, 60, 12000, 7, 12000).found);
    /* bands whose count changes half-way (9 then 12 ms: no camera does that): the whole fits
     * at 10.6 ms explaining 0.87 of the rows, but the halves disagree */
    ro = flicker_scene(100, 0.05, 60, 9000, 90, 12000);
    CU_ASSERT(ro.fit > 0.5);
    CU_ASSERT_FALSE(ro.found);
    kr_calib_flicker_t *f = NULL;
    CU_ASSERT_EQUAL(kr_calib_flicker_create(8, 8, 96, &f), KR_ERR_INVALID);
    CU_ASSERT_PTR_NULL(f);
    CU_ASSERT_EQUAL(kr_calib_flicker_create(320, 180, 2, &f), KR_ERR_INVALID);
    CU_ASSERT_EQUAL_FATAL(kr_calib_flicker_create(320, 180, 8, &f), KR_OK);
    uint8_t one[4] = {0};
    kr_image_t small = {2, 2, 2, 1, one};
    CU_ASSERT_EQUAL(kr_calib_flicker_add(f, &small, 0), KR_ERR_INVALID); /* another size */
    kr_calib_flicker_destroy(f);
    kr_calib_flicker_destroy(NULL);
}

/* Cards laid edge to edge are seen as one long outline (a strip): it still helps the fit
 * (one card deep, unknown width) and comes back with its width. */
static void test_fit_with_strips(void)
{
    cam cm = {1920, 1080, 1450, 12, 8, 40, 1450, -0.15, 0.02, 0, 0};
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0, 0);
    double quads[8 * 64];
    CU_ASSERT_EQUAL_FATAL(project_cards(truth, &L, 0.1, quads), L.n);
    /* in rows 0 and 5 (A lower, B lower) the first three cards touch: one outline */
    int out = 0, strips = 0;
    double sq[8 * 64];
    for (int i = 0; i < L.n; i++) {
        int row_first = i == 0 || fabs(L.y[i] - L.y[i - 1]) > 20;
        if (row_first && (fabs(L.y[i] + 217.5) < 5 || fabs(L.y[i] - 217.5) < 5)) {
            layout st = {1, {L.x[i] + 52}, {L.y[i]}, {0}, 0};
            double q[8];
            CU_ASSERT_EQUAL_FATAL(project_cards(truth, &st, 0.0, q), 1);
            /* widen the projected card to three: corners through the true camera */
            static const double Lx[4] = {-78, 78, 78, -78}, Ly[4] = {-36.5, -36.5, 36.5, 36.5};
            for (int j = 0; j < 4; j++)
                kr_calib_mm_to_px(truth, st.x[0] + Lx[j], st.y[0] + Ly[j], &q[2 * j], &q[2 * j + 1]);
            memcpy(sq + 8 * out++, q, sizeof q);
            strips++;
            i += 2; /* the next two cards are inside the strip */
            continue;
        }
        memcpy(sq + 8 * out++, quads + 8 * i, sizeof(double) * 8);
    }
    CU_ASSERT_EQUAL(strips, 2);
    kr_calib_t *est = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_fit_cards(NULL, 1920, 1080, sq, out, 0, &est), KR_OK);
    double rms, worst;
    field_error(truth, est, &rms, &worst);
    CU_ASSERT(rms < 0.6 && worst < 1.5);
    int wide = 0;
    for (int i = 0; i < est->n_cards; i++)
        wide += fabs(est->cards[i].w_mm - 156) < 1.5;
    CU_ASSERT_EQUAL(wide, 2);
    CU_ASSERT_EQUAL(est->n_cards, out);
    kr_calib_destroy(est);
    kr_calib_destroy(truth);
}

static void test_px_grid_lookup(void)
{
    cam cm = {1280, 720, 1000, 20, 8, 30, 1400, -0.15, 0.02, 0, 0};
    kr_calib_t *c = make_camera(&cm);
    enum { STEP = 8, GW = 160, GH = 90 };
    float *table = malloc(sizeof(float) * 2 * GW * GH);
    CU_ASSERT_PTR_NOT_NULL_FATAL(table);
    CU_ASSERT_EQUAL(kr_calib_px_grid_to_mm(c, STEP, table, GW + 1, GH), KR_ERR_INVALID);
    CU_ASSERT_EQUAL_FATAL(kr_calib_px_grid_to_mm(c, STEP, table, GW, GH), KR_OK);
    double worst = 0;
    int n = 0;
    for (int r = 0; r < GH; r += 7)
        for (int col = 0; col < GW; col += 9) {
            const float *t = table + 2 * (r * GW + col);
            if (isnan(t[0]))
                continue;
            double px, py;
            CU_ASSERT_EQUAL(kr_calib_mm_to_px(c, t[0], t[1], &px, &py), 0);
            worst = fmax(worst, hypot(px - ((col + 0.5) * STEP - 0.5), py - ((r + 0.5) * STEP - 0.5)));
            n++;
        }
    CU_ASSERT(n > 200);
    CU_ASSERT(worst < 0.05); /* float mm, about 1 px per mm */
    free(table);
    kr_calib_destroy(c);
}

/* Cards bunched in the middle: the side lines cannot be placed, so quality is poor. */
static void test_narrow_layout_is_poor(void)
{
    cam cm = {1920, 1080, 1500, 0, 4, 0, 1500, -0.1, 0, 0, 0};
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0, 0);
    for (int i = 0; i < L.n; i++)
        L.x[i] *= 0.55;
    double quads[8 * 64];
    CU_ASSERT_EQUAL_FATAL(project_cards(truth, &L, 0.1, quads), L.n);
    kr_calib_t *est = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_fit_cards(NULL, 1920, 1080, quads, L.n, 0, &est), KR_OK);
    CU_ASSERT_FALSE(est->ok);
    CU_ASSERT(strstr(est->reason, "870 mm width") != NULL);
    kr_calib_destroy(est);
    kr_calib_destroy(truth);
}

/* ---- media: rendered frames ----------------------------------------------- */

/* Renders the layout through the true camera: textured tatami with vignetting, light
 * cards with dark "text" strokes. 2x2 supersampling. buf: w*h*3 BGR, caller-owned. */
/* Mat point seen at raw pixel (px, py): bilinear in a table of exact points every
 * LK_STEP px (the mapping is smooth: far below 0.01 px error), exact near invalid nodes. */
#define LK_STEP 4
typedef struct lookup {
    const kr_calib_t *c;
    int    gw, gh;
    double *mm; /* 2 * gw * gh, NAN where invalid */
} lookup;

static void lookup_init(lookup *lk, const kr_calib_t *c)
{
    lk->c = c;
    lk->gw = c->img_w / LK_STEP + 2;
    lk->gh = c->img_h / LK_STEP + 2;
    lk->mm = malloc(sizeof(double) * 2 * (size_t)lk->gw * (size_t)lk->gh);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lk->mm);
    for (int j = 0; j < lk->gh; j++)
        for (int i = 0; i < lk->gw; i++) {
            double *o = lk->mm + 2 * ((size_t)j * lk->gw + i);
            if (kr_calib_px_to_mm(c, i * LK_STEP - 1.0, j * LK_STEP - 1.0, &o[0], &o[1]))
                o[0] = o[1] = NAN;
        }
}

static int lookup_mm(const lookup *lk, double px, double py, double *mx, double *my)
{
    double gx = (px + 1.0) / LK_STEP, gy = (py + 1.0) / LK_STEP;
    int i = (int)floor(gx), j = (int)floor(gy);
    if (i < 0 || j < 0 || i + 1 >= lk->gw || j + 1 >= lk->gh)
        return kr_calib_px_to_mm(lk->c, px, py, mx, my);
    const double *a = lk->mm + 2 * ((size_t)j * lk->gw + i), *b = a + 2, *c = a + 2 * lk->gw, *d = c + 2;
    if (isnan(a[0]) || isnan(b[0]) || isnan(c[0]) || isnan(d[0]))
        return kr_calib_px_to_mm(lk->c, px, py, mx, my);
    double fx = gx - i, fy = gy - j;
    *mx = (1 - fy) * ((1 - fx) * a[0] + fx * b[0]) + fy * ((1 - fx) * c[0] + fx * d[0]);
    *my = (1 - fy) * ((1 - fx) * a[1] + fx * b[1]) + fy * ((1 - fx) * c[1] + fx * d[1]);
    return 0;
}

static void render_frame(const kr_calib_t *truth, const layout *L, uint8_t *buf)
{
    int w = truth->img_w, h = truth->img_h;
    lookup lk;
    lookup_init(&lk, truth);
    double cs[64], sn[64];
    for (int i = 0; i < L->n; i++) {
        cs[i] = cos(L->rot[i]);
        sn[i] = sin(L->rot[i]);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double acc[3] = {0, 0, 0};
            for (int sy = 0; sy < 2; sy++)
                for (int sx = 0; sx < 2; sx++) {
                    double mx, my, col[3];
                    double px = x - 0.25 + 0.5 * sx, py = y - 0.25 + 0.5 * sy;
                    if (lookup_mm(&lk, px, py, &mx, &my)) {
                        col[0] = col[1] = col[2] = 20;
                    } else {
                        /* tatami: weave along x, ~15 mm period, yellow-green */
                        double weave = 0.5 + 0.5 * sin(2 * KR_CALIB_PI * my / 15.0);
                        double grain = sin(mx * 0.9 + 3 * sin(my * 0.05)) * 6;
                        col[0] = 70 + 20 * weave + grain;
                        col[1] = 125 + 25 * weave + grain;
                        col[2] = 135 + 25 * weave + grain;
                        for (int i = 0; i < L->n; i++) {
                            double dx = mx - L->x[i], dy = my - L->y[i];
                            if (fabs(dx) > 47 || fabs(dy) > 47) /* beyond card and shadow */
                                continue;
                            double c = cs[i], s = sn[i];
                            double lx = c * dx + s * dy, ly = -s * dx + c * dy;
                            if (fabs(lx) > 26 || fabs(ly) > 36.5) {
                                /* contact shadow, offset down-right by 0.8 mm */
                                if (fabs(lx - 0.8) <= 26 && fabs(ly + 0.8) <= 36.5)
                                    for (int k = 0; k < 3; k++)
                                        col[k] *= 0.7;
                                continue;
                            }
                            double v = 228;
                            if (L->rim_mm > 0 && (fabs(lx) > 26 - L->rim_mm || fabs(ly) > 36.5 - L->rim_mm)) {
                                col[0] = 50; /* dark green rim: the detected edge is inside */
                                col[1] = 78;
                                col[2] = 40;
                                break;
                            }
                            /* three vertical text columns, broken into characters */
                            for (int k = -1; k <= 1; k++)
                                if (fabs(lx - k * 13) < 2.2 && fabs(ly) < 28 &&
                                    fmod(ly + 40, 9) < 6.5)
                                    v = 40;
                            col[0] = v - 6;
                            col[1] = v;
                            col[2] = v + 4;
                            break;
                        }
                    }
                    for (int k = 0; k < 3; k++)
                        acc[k] += col[k] / 4;
                }
            double nx = (x - w / 2.0) / (w / 2.0), ny = (y - h / 2.0) / (w / 2.0);
            double vig = 1.0 - 0.35 * (nx * nx + ny * ny);
            uint8_t *p = buf + ((size_t)y * w + x) * 3;
            for (int k = 0; k < 3; k++) {
                double v = acc[k] * vig + 3 * nrand();
                p[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
    free(lk.mm);
}

static void check_frame(const cam *cm, double rim_mm, double max_rms, double max_worst)
{
    kr_calib_t *truth = make_camera(cm);
    CU_ASSERT_PTR_NOT_NULL_FATAL(truth);
    layout L;
    make_layout(&L, 25, 0.8, 0.8);
    L.rim_mm = rim_mm;
    uint8_t *buf = malloc((size_t)cm->w * cm->h * 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    render_frame(truth, &L, buf);
    kr_image_t img = {cm->w, cm->h, cm->w * 3, 3, buf};
    kr_calib_t *est = NULL;
    kr_calib_config cfg;
    kr_calib_config_default(&cfg);
    cfg.a_side = truth_a_side(truth);
    kr_status st = kr_calib_create_from_frame(&cfg, &img, 0, &est);
    if (st != KR_OK)
        fprintf(stderr, "\ncalibration failed: %s\n", kr_calib_error());
    CU_ASSERT_EQUAL_FATAL(st, KR_OK);
    double rms, worst;
    field_error(truth, est, &rms, &worst);
    fprintf(stderr, "\n  rendered yaw %.0f tilt %.0f k1 %.2f: %d cards, field error rms %.3f "
            "worst %.3f mm, fit rms %.3f mm, inset %.2f mm ", cm->yaw_deg, cm->tilt_deg, cm->k1,
            est->n_cards, rms, worst, est->rms_mm, est->card_inset_mm);
    CU_ASSERT(est->n_cards >= 45);
    CU_ASSERT(fabs(est->card_inset_mm - rim_mm) < 0.4); /* the rim is measured, not assumed */
    CU_ASSERT(rms < max_rms);
    CU_ASSERT(worst < max_worst);
    if (getenv("KR_TEST_KEEP")) {
        kr_calib_draw_overlay(est, &img);
        kr_cv_write_image("/tmp/kr_test_calib_overlay.png", &img);
    }
    kr_calib_destroy(est);
    kr_calib_destroy(truth);
    free(buf);
}

static void test_frame_tilted_barrel(void)
{
    cam cm = {1280, 720, 950, 8, 9, 120, 1250, -0.2, 0.03, 0, 0};
    check_frame(&cm, 0.0, 2.0, 5.0);
}

static void test_frame_rimmed_cards_rotated(void)
{
    cam cm = {1280, 720, 1000, 205, 7, 300, 1200, -0.12, 0.0, 0, 0};
    check_frame(&cm, 1.2, 2.0, 5.0);
}

static void test_blank_frame(void)
{
    uint8_t *buf = malloc(640 * 480 * 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    memset(buf, 17, 640 * 480 * 3);
    kr_image_t img = {640, 480, 640 * 3, 3, buf};
    kr_calib_t *est = NULL;
    CU_ASSERT_EQUAL(kr_calib_create_from_frame(NULL, &img, 0, &est), KR_ERR_INVALID);
    CU_ASSERT_PTR_NULL(est);
    CU_ASSERT(strncmp(kr_calib_error(), "blank frame", 11) == 0);
    free(buf);
}

static void test_warp_top_down(void)
{
    cam cm = {640, 360, 480, 30, 8, 0, 1300, -0.1, 0, 0, 0};
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0, 0);
    uint8_t *buf = malloc(640 * 360 * 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    render_frame(truth, &L, buf);
    kr_image_t img = {640, 360, 640 * 3, 3, buf};
    kr_calib_warp_config wc;
    kr_calib_warp_config_default(&wc);
    wc.px_per_mm = 0.5;
    kr_calib_warp_t *w = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_warp_create(truth, &wc, &w), KR_OK);
    int ow, oh;
    kr_calib_warp_size(w, &ow, &oh);
    CU_ASSERT_EQUAL(ow, (int)ceil((870 + 80) * 0.5));
    uint8_t *mat = malloc((size_t)ow * oh * 3);
    kr_image_t dst = {ow, oh, ow * 3, 3, mat};
    CU_ASSERT_EQUAL_FATAL(kr_calib_warp_apply(w, &img, &dst), KR_OK);
    /* every card centre is bright in the top-down image, the gaps between rows are not */
    int bright = 0, dark = 0;
    for (int i = 0; i < L.n; i++) {
        /* between two text columns of the card */
        int col = (int)((L.x[i] + 6.5 - wc.x_min_mm) * 0.5), row = (int)((wc.y_max_mm - L.y[i] + 20) * 0.5);
        bright += mat[((size_t)row * ow + col) * 3 + 1] > 180;
        int grow = (int)((wc.y_max_mm - (L.y[i] > 0 ? 10.0 : -10.0)) * 0.5);
        dark += mat[((size_t)grow * ow + col) * 3 + 1] < 170;
    }
    CU_ASSERT(bright >= 48);
    CU_ASSERT(dark >= 48);
    kr_calib_warp_destroy(w);
    free(mat);
    free(buf);
    kr_calib_destroy(truth);
}

/* Calibration from a video file: a still clip calibrates (median of frames), the same
 * clip with a dark blob (an arm) sweeping across is refused as moving, and a time past
 * the end is refused. Clips are written with kr_media's H.264 writer. */
static void test_video_still_moving_outside(void)
{
    enum { W = 960, H = 540, NF = 12 };
    cam cm = {W, H, 760, 4, 5, 30, 1250, -0.12, 0.02, 0, 0};
    kr_calib_t *truth = make_camera(&cm);
    layout L;
    make_layout(&L, 25, 0.5, 0.5);
    uint8_t *still = malloc((size_t)W * H * 3), *frame = malloc((size_t)W * H * 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(still);
    CU_ASSERT_PTR_NOT_NULL_FATAL(frame);
    render_frame(truth, &L, still);
    char tmpd[] = "/tmp/kr_calib_vid_XXXXXX", path[2][300];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpd));
    for (int v = 0; v < 2; v++) {
        snprintf(path[v], sizeof path[v], "%s/%s.mp4", tmpd, v ? "moving" : "still");
        kr_media_writer_t *wr = NULL;
        CU_ASSERT_EQUAL_FATAL(kr_media_writer_create(path[v], W, H, 10, 1, 18, &wr), KR_OK);
        for (int k = 0; k < NF; k++) {
            memcpy(frame, still, (size_t)W * H * 3);
            if (v) /* an arm, 120 px wide, crossing the picture */
                for (int y = 100; y < 440; y++)
                    for (int x = 60 * k; x < 60 * k + 120 && x < W; x++)
                        memset(frame + ((size_t)y * W + x) * 3, 30, 3);
            kr_image_t img = {W, H, W * 3, 3, frame};
            CU_ASSERT_EQUAL(kr_media_writer_write(wr, &img, k * 100000), KR_OK);
        }
        CU_ASSERT_EQUAL(kr_media_writer_close(wr), KR_OK);
        kr_media_writer_destroy(wr);
    }
    kr_calib_video_config vc;
    kr_calib_video_config_default(&vc);
    vc.at_us = 600000;
    kr_calib_t *est = NULL;
    kr_image_t fr;
    uint8_t *px = NULL;
    kr_status st = kr_calib_create_from_video(NULL, &vc, path[0], &est, &fr, &px);
    if (st != KR_OK)
        fprintf(stderr, "\nvideo calibration: %s\n", kr_calib_error());
    CU_ASSERT_EQUAL_FATAL(st, KR_OK);
    double rms, worst;
    field_error(truth, est, &rms, &worst);
    fprintf(stderr, "\n  from video: %d cards, field error rms %.3f worst %.3f mm ", est->n_cards, rms, worst);
    CU_ASSERT(rms < 2.0 && worst < 5.0);
    CU_ASSERT_STRING_EQUAL(est->source, path[0]);
    CU_ASSERT(est->t_us >= 200000 && est->t_us <= 1000000);
    CU_ASSERT_EQUAL(fr.w, W);
    CU_ASSERT_PTR_NOT_NULL(px);
    free(px);
    kr_calib_destroy(est);
    est = NULL;
    CU_ASSERT_EQUAL(kr_calib_create_from_video(NULL, &vc, path[1], &est, NULL, NULL), KR_ERR_INVALID);
    CU_ASSERT_PTR_NULL(est);
    CU_ASSERT(strstr(kr_calib_error(), "moving scene") != NULL);
    /* no time given: other moments are tried, all moving here */
    vc.at_us = -1;
    CU_ASSERT_EQUAL(kr_calib_create_from_video(NULL, &vc, path[1], &est, NULL, NULL), KR_ERR_INVALID);
    CU_ASSERT(strstr(kr_calib_error(), "moving scene") != NULL);
    CU_ASSERT(strstr(kr_calib_error(), "also moving") != NULL);
    vc.at_us = 5000000;
    CU_ASSERT_EQUAL(kr_calib_create_from_video(NULL, &vc, path[0], &est, NULL, NULL), KR_ERR_INVALID);
    CU_ASSERT(strstr(kr_calib_error(), "outside the video") != NULL);
    remove(path[0]);
    remove(path[1]);
    rmdir(tmpd);
    free(still);
    free(frame);
    kr_calib_destroy(truth);
}

/* Lens from a ChArUco board: views rendered through a known camera (board plane as the
 * "mat"), OpenCV's board calibration through kr_calib, lens compared with the truth. */
/* The camera's centre from the homography: found where it was put, tilted or not; with a
 * focal length guessed 25 % long, a camera looking straight down keeps its nadir and its
 * height grows by the guess's share; a mirrored view has no camera over the mat */
static void test_camera_pose(void)
{
    const cam cams[] = {
        {1280, 720, 1231, 0, 0, 0, 1300, 0, 0, 10, 43},
        {1920, 1080, 1500, 90, 12, 30, 2000, 0, 0, -60, 20},
        {1280, 720, 1000, 180, 25, 200, 1600, 0, 0, 0, 0},
        {640, 360, 520, -90, 35, 95, 1800, 0, 0, 30, -80},
    };
    for (size_t i = 0; i < sizeof cams / sizeof cams[0]; i++) {
        double C[3];
        kr_calib_t *c = make_camera_at(&cams[i], 0, C);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        kr_calib_camera pose;
        CU_ASSERT_EQUAL_FATAL(kr_calib_camera_pose(c, &pose), KR_OK);
        CU_ASSERT_DOUBLE_EQUAL(pose.x_mm, C[0], 0.5);
        CU_ASSERT_DOUBLE_EQUAL(pose.y_mm, C[1], 0.5);
        CU_ASSERT_DOUBLE_EQUAL(pose.height_mm, C[2], 0.5);
        CU_ASSERT_DOUBLE_EQUAL(pose.tilt_deg, cams[i].tilt_deg, 0.05);
        kr_calib_destroy(c);
    }
    double C[3];
    kr_calib_t *c = make_camera_at(&cams[0], 1.25 * cams[0].f, C);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    kr_calib_camera pose;
    CU_ASSERT_EQUAL_FATAL(kr_calib_camera_pose(c, &pose), KR_OK);
    CU_ASSERT_DOUBLE_EQUAL(pose.x_mm, C[0], 1.0);
    CU_ASSERT_DOUBLE_EQUAL(pose.y_mm, C[1], 1.0);
    CU_ASSERT_DOUBLE_EQUAL(pose.height_mm, 1.25 * C[2], 5.0);
    /* the same view mirrored left to right: x' = w - 1 - x */
    double H[9];
    memcpy(H, c->H, sizeof H);
    for (int j = 0; j < 3; j++)
        H[j] = (cams[0].w - 1) * H[6 + j] - H[j];
    kr_calib_t *m = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_create_from_model(c->img_w, c->img_h, c->fx, c->fy, c->cx, c->cy, c->dist, H, &m),
                          KR_OK);
    CU_ASSERT_EQUAL(kr_calib_camera_pose(m, &pose), KR_ERR_INVALID);
    kr_calib_destroy(m);
    kr_calib_destroy(c);
}

static void test_board_lens(void)
{
    kr_calib_board b;
    kr_calib_board_default(&b);
    const double ppm = 4.0; /* board image px per mm */
    kr_image_t board;
    uint8_t *bpx = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_board_image(&b, ppm, &board, &bpx), KR_OK);
    CU_ASSERT_EQUAL(board.w, (int)lround((250 + 20) * ppm));
    enum { NV = 9, W = 960, H = 540 };
    /* frontal, four tilted, and four with the board in the image corners (the lens is
     * only known where the board has been) */
    static const double tilt[NV] = {0, 28, 28, 28, 28, 10, 10, 10, 10};
    static const double dir[NV] = {0, 0, 90, 180, 270, 45, 135, 225, 315};
    static const double aim[NV][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0},
                                      {-170, -95}, {170, -95}, {170, 95}, {-170, 95}};
    kr_image_t views[NV];
    uint8_t *bufs[NV];
    kr_calib_t *truth = NULL;
    for (int v = 0; v < NV; v++) {
        /* board centre at (135, 97.5) mm from the image's corner (10 mm margin) */
        cam cm = {W, H, 800, 10.0 * v, tilt[v], dir[v], 480, -0.18, 0.03, 135 + aim[v][0], 97.5 + aim[v][1]};
        kr_calib_destroy(truth);
        truth = make_camera(&cm);
        CU_ASSERT_PTR_NOT_NULL_FATAL(truth);
        bufs[v] = malloc((size_t)W * H);
        CU_ASSERT_PTR_NOT_NULL_FATAL(bufs[v]);
        lookup lk;
        lookup_init(&lk, truth);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                double mx, my, val = 128;
                if (!lookup_mm(&lk, x, y, &mx, &my)) {
                    /* printed with y down: mat y up -> board row up; bilinear lookup */
                    double bx = mx * ppm - 0.5, by = (board.h / ppm - my) * ppm - 0.5;
                    if (bx >= 0 && by >= 0 && bx < board.w - 1 && by < board.h - 1) {
                        int ix = (int)bx, iy = (int)by;
                        double fx = bx - ix, fy = by - iy;
                        const uint8_t *q = board.px + (size_t)iy * board.stride + ix;
                        val = (1 - fy) * ((1 - fx) * q[0] + fx * q[1]) +
                              fy * ((1 - fx) * q[board.stride] + fx * q[board.stride + 1]);
                    }
                }
                bufs[v][(size_t)y * W + x] = (uint8_t)lround(val);
            }
        free(lk.mm);
        views[v] = (kr_image_t){W, H, W, 1, bufs[v]};
    }
    kr_calib_lens lens;
    kr_status st = kr_calib_lens_from_images(&b, views, NV, &lens);
    if (st != KR_OK)
        fprintf(stderr, "\nlens: %s\n", kr_calib_error());
    CU_ASSERT_EQUAL_FATAL(st, KR_OK);
    fprintf(stderr, "\n  board lens: %d views, fx %.1f fy %.1f (true 800), k1 %.3f k2 %.3f, rms %.3f px ",
            lens.views, lens.fx, lens.fy, lens.dist[0], lens.dist[1], lens.rms_px);
    CU_ASSERT(lens.views == NV);
    CU_ASSERT(fabs(lens.fx - 800) < 16 && fabs(lens.fy - 800) < 16);
    /* the lens maps undistorted to raw pixels like the truth, over the whole image */
    double H0[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    kr_calib_t *est = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_create_from_model(W, H, lens.fx, lens.fy, lens.cx, lens.cy, lens.dist, H0, &est), KR_OK);
    double worst = 0;
    for (int y = 30; y < H - 30; y += 30)
        for (int x = 30; x < W - 30; x += 30) {
            double tx, ty, ex, ey, ux, uy;
            if (kr_calib_undistort(truth, x, y, &ux, &uy))
                continue;
            kr_calib_distort(truth, ux, uy, &tx, &ty);
            /* compare the undistorted direction: same raw pixel -> same ray (in px at f=800) */
            CU_ASSERT_EQUAL(kr_calib_undistort(est, x, y, &ex, &ey), 0);
            double rx = (ex - lens.cx) / lens.fx * 800 - (ux - truth->cx) / truth->fx * 800;
            double ry = (ey - lens.cy) / lens.fy * 800 - (uy - truth->cy) / truth->fy * 800;
            worst = fmax(worst, hypot(rx, ry));
        }
    fprintf(stderr, "worst ray error %.2f px ", worst);
    CU_ASSERT(worst < 3.0);
    /* lens file round trip */
    char tmpd[] = "/tmp/kr_lens_XXXXXX", path[300];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpd));
    snprintf(path, sizeof path, "%s/lens.json", tmpd);
    CU_ASSERT_EQUAL(kr_calib_lens_save(&lens, path), KR_OK);
    kr_calib_lens back;
    CU_ASSERT_EQUAL(kr_calib_lens_load(path, &back), KR_OK);
    CU_ASSERT(fabs(back.fx - lens.fx) < 1e-9 && fabs(back.dist[0] - lens.dist[0]) < 1e-12);
    CU_ASSERT_EQUAL(back.img_w, W);
    remove(path);
    /* the same views as a video (H.264, one view per 0.5 s) through the video path */
    snprintf(path, sizeof path, "%s/board.mp4", tmpd);
    kr_media_writer_t *wr = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_writer_create(path, W, H, 2, 1, 12, &wr), KR_OK);
    for (int v = 0; v < NV; v++)
        CU_ASSERT_EQUAL(kr_media_writer_write(wr, &views[v], v * 500000), KR_OK);
    CU_ASSERT_EQUAL(kr_media_writer_close(wr), KR_OK);
    kr_media_writer_destroy(wr);
    kr_calib_lens vl;
    st = kr_calib_lens_from_video(&b, path, 500000, &vl);
    if (st != KR_OK)
        fprintf(stderr, "\nlens from video: %s\n", kr_calib_error());
    CU_ASSERT_EQUAL(st, KR_OK);
    CU_ASSERT(vl.views >= NV - 1);
    CU_ASSERT(fabs(vl.fx - 800) < 16 && fabs(vl.dist[0] + 0.18) < 0.05);
    remove(path);
    rmdir(tmpd);
    kr_calib_destroy(est);
    kr_calib_destroy(truth);
    for (int v = 0; v < NV; v++)
        free(bufs[v]);
    free(bpx);
}

/* Built twice (tests/meson.build): test_calib runs the unit tests, test_calib_media
 * (name ends in "media") adds the rendered-frame tests. */
int main(int argc, char **argv)
{
    int images = argc > 0 && strstr(argv[0], "media") != NULL;
    if (getenv("KR_TEST_VERBOSE"))
        kr_log_set_level(KR_LOG_DEBUG);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("calib", NULL, NULL);
    CU_add_test(s, "mapping_round_trip", test_mapping_round_trip);
    CU_add_test(s, "readout_from_flicker", test_readout_from_flicker);
    CU_add_test(s, "fit_straight_down", test_fit_straight_down);
    CU_add_test(s, "fit_tilt_rotation_barrel", test_fit_tilt_rotation_barrel);
    CU_add_test(s, "fit_any_rotation", test_fit_any_rotation);
    CU_add_test(s, "a_side_option", test_a_side_option);
    CU_add_test(s, "fit_rejects_stray_quads", test_fit_rejects_stray_quads);
    CU_add_test(s, "fit_with_known_lens", test_fit_with_known_lens);
    CU_add_test(s, "too_few_cards", test_too_few_cards);
    CU_add_test(s, "field_cut_off", test_field_cut_off);
    CU_add_test(s, "json_round_trip_and_grid", test_json_round_trip_and_grid);
    CU_add_test(s, "px_grid_lookup", test_px_grid_lookup);
    CU_add_test(s, "fit_with_strips", test_fit_with_strips);
    CU_add_test(s, "narrow_layout_is_poor", test_narrow_layout_is_poor);
    CU_add_test(s, "camera_pose", test_camera_pose);
    if (images) {
        CU_add_test(s, "frame_tilted_barrel", test_frame_tilted_barrel);
        CU_add_test(s, "frame_rimmed_cards_rotated", test_frame_rimmed_cards_rotated);
        CU_add_test(s, "blank_frame", test_blank_frame);
        CU_add_test(s, "warp_top_down", test_warp_top_down);
        CU_add_test(s, "board_lens", test_board_lens);
        CU_add_test(s, "video_still_moving_outside", test_video_still_moving_outside);
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    int fails = (int)CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
