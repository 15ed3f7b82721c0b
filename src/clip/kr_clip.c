/* kr_clip.c - kr_clip_export: seek to the keyframe before the window, run the tracker
 * from warmup_us earlier, draw the overlays into each decoded frame, encode the window
 * to H.264 MP4 and compose the contact sheet (both complete or absent).
 * SPDX-License-Identifier: MIT */
#include "kr_clip.h"
#include "kr_clip_internal.h"
#include "kr_cv.h"
#include "kr_media.h"
#include "kr_recog.h"
#include "kr_recog_scene.h"
#include "kr_track.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct kr_clip_t {
    kr_clip_config          cfg;
    const kr_calib_t       *calib; /* borrowed */
    const kr_clip_events_t *ev;    /* borrowed */
    const kr_clip_tracks_t *tracks; /* borrowed (kr_clip_set_tracks); NULL: none */
    kr_recog_model_t       *model; /* owned: the card model that reads the outlines sent cards
                                      are looked for among (place_sent); loaded once, by the
                                      first export that looks for a sent card; NULL before
                                      that (or when it cannot be loaded) */
    int                     model_tried; /* 1 once its load was tried */
    char                    err[512];
};

#define set_err(c, st, ...) kr_error_set((c)->err, sizeof (c)->err, (st), __VA_ARGS__)

void kr_clip_config_default(kr_clip_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->before_us = 2000000;
    cfg->after_us = 2000000;
    cfg->slow = 1;
    cfg->max_h = 720;
    cfg->track = 1;
    cfg->warmup_us = 1000000;
    cfg->sheet = 1;
    cfg->preset = "ultrafast";
    cfg->crf = 20;
    cfg->threads = 0;
}

kr_status kr_clip_create(const kr_clip_config *cfg, const kr_calib_t *calib, const kr_clip_events_t *ev,
                         kr_clip_t **out, char *err, size_t cap)
{
    if (!out)
        return KR_ERR_INVALID;
    *out = NULL;
    kr_clip_config d;
    if (!cfg) {
        kr_clip_config_default(&d);
        cfg = &d;
    }
    if (cfg->before_us < 0 || cfg->after_us < 0 || cfg->before_us + cfg->after_us <= 0)
        return kr_error_set(err, cap, KR_ERR_INVALID, "clip: the window --before %.3f --after %.3f s is %s",
                            (double)cfg->before_us / 1e6, (double)cfg->after_us / 1e6,
                            cfg->before_us + cfg->after_us <= 0 ? "empty" : "negative");
    if (cfg->slow < 1 || cfg->slow > 64 || cfg->max_h < 0 || (cfg->max_h > 0 && cfg->max_h < 16) ||
        cfg->warmup_us < 0 || cfg->crf < 0 || cfg->crf > 51 || cfg->threads < 0)
        return kr_error_set(err, cap, KR_ERR_INVALID, "clip: bad settings (slow %d, max height %d, crf %d)",
                            cfg->slow, cfg->max_h, cfg->crf);
    kr_clip_t *c = calloc(1, sizeof *c);
    if (!c)
        return kr_error_set(err, cap, KR_ERR_NOMEM, "clip: out of memory");
    c->cfg = *cfg;
    if (!c->cfg.preset)
        c->cfg.preset = "ultrafast";
    c->calib = calib;
    c->ev = ev;
    *out = c;
    return KR_OK;
}

void kr_clip_destroy(kr_clip_t *c)
{
    if (!c)
        return;
    kr_recog_model_destroy(c->model);
    free(c);
}

void kr_clip_set_tracks(kr_clip_t *c, const kr_clip_tracks_t *s)
{
    if (c)
        c->tracks = s;
}

const char *kr_clip_last_error(const kr_clip_t *c) { return c ? c->err : "clip: no clip object"; }

/* ---- phase timing (benchmarks) ------------------------------------------------ */
const char *kr_clip_phase_name(int phase)
{
    static const char *const names[KR_CLIP_N_PHASES] = {"open", "tracker start", "seek", "decode",
                                                        "tracker first frame", "track", "draw", "contact sheet",
                                                        "encode", "close"};
    return phase >= 0 && phase < KR_CLIP_N_PHASES ? names[phase] : "?";
}

static int64_t thread_cpu_us(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

typedef struct clip_laps {
    int64_t wall, cpu;                   /* at the last lap */
    int64_t w[KR_CLIP_N_PHASES], c[KR_CLIP_N_PHASES]; /* totals */
} clip_laps;

static void lap_start(clip_laps *l)
{
    memset(l, 0, sizeof *l);
    l->wall = kr_clock_us();
    l->cpu = thread_cpu_us();
}

/* Charges the time since the previous lap to phase. */
static void lap(clip_laps *l, int phase)
{
    int64_t w = kr_clock_us(), c = thread_cpu_us();
    l->w[phase] += w - l->wall;
    l->c[phase] += c - l->cpu;
    l->wall = w;
    l->cpu = c;
}

/* ---- colours (BGR) -------------------------------------------------------- */
static const uint8_t C_WHITE[3] = {255, 255, 255}, C_BLACK[3] = {0, 0, 0};
static const uint8_t C_A[3] = {255, 160, 40};    /* player A: blue */
static const uint8_t C_B[3] = {40, 140, 255};    /* player B: orange */
static const uint8_t C_BOTH[3] = {60, 220, 240}; /* no player: yellow */
static const uint8_t C_RED[3] = {40, 40, 230};
static const uint8_t C_LINE[3] = {60, 60, 235};   /* competition lines */
static const uint8_t C_CARD[3] = {80, 235, 80};   /* card at rest: green */
static const uint8_t C_MOVE[3] = {255, 80, 255};  /* card moving / displaced: magenta */

/* ---- the picture drawn on: BGR, or 4:2:0 planes --------------------------------
 * Decoded frames are drawn on as they come (planar 4:2:0) and encoded from the same
 * planes: no YUV -> BGR conversion for drawing and none back for x264 (about 1.6 ms of
 * the 3.4 ms a 720p frame cost both ways). Each shape is drawn on the luma plane with
 * the colour's Y, on the half-size chroma planes with its U and V: what BGR drawing
 * and the encoder's 4:2:0 subsampling give, up to anti-aliasing at the chroma edges. */
#define HAND_MAX_PTS 2048
typedef struct clip_canvas {
    int        yuv;        /* 1: pl[0..2] are Y, U, V (grey views, U and V at half size) */
    int        w, h;       /* picture size, px */
    kr_image_t bgr;        /* yuv 0: the BGR picture */
    kr_image_t pl[3];
    kr_yuv_t   view;       /* yuv 1: the planes as a kr_yuv_t (for the tracker and encoder) */
    double     sxy[2 * HAND_MAX_PTS]; /* scratch: points scaled to a chroma plane */
    uint8_t   *patch;      /* scratch: a text's coverage mask (owned by the export), patch_cap bytes */
    size_t     patch_cap;
} clip_canvas;

/* BGR picture (borrowed view). */
static void canvas_bgr(clip_canvas *cv, const kr_image_t *img)
{
    cv->yuv = 0;
    cv->w = img->w;
    cv->h = img->h;
    cv->bgr = *img;
}

/* Packed planes in buf (Y w x h, then U and V (w/2) x (h/2); w, h even) with the colours
 * of src (src's planes copied into buf when src->y != NULL). */
static void yuv_pack(uint8_t *buf, int w, int h, const kr_yuv_t *src)
{
    const int cw = w / 2, ch = h / 2;
    uint8_t *pl[3] = {buf, buf + (size_t)w * h, buf + (size_t)w * h + (size_t)cw * ch};
    const uint8_t *sp[3] = {src->y, src->u, src->v};
    const int ss[3] = {src->stride_y, src->stride_c, src->stride_c};
    for (int p = 0; p < 3; p++) {
        int rw = p ? cw : w, rh = p ? ch : h;
        for (int y = 0; y < rh; y++)
            memcpy(pl[p] + (size_t)y * rw, sp[p] + (size_t)y * ss[p], (size_t)rw);
    }
}

/* The packed planes in buf as a view, in the colours of `like`. */
static kr_yuv_t packed_yuv(uint8_t *buf, int w, int h, const kr_yuv_t *like)
{
    const size_t ny = (size_t)w * h, nc = (size_t)(w / 2) * (h / 2);
    return (kr_yuv_t){w, h, w, w / 2, buf, buf + ny, buf + ny + nc, like->full_range, like->bt709};
}

static void canvas_yuv(clip_canvas *cv, uint8_t *buf, int w, int h, const kr_yuv_t *src)
{
    if (src->y && src->y != buf)
        yuv_pack(buf, w, h, src);
    cv->yuv = 1;
    cv->w = w;
    cv->h = h;
    cv->view = packed_yuv(buf, w, h, src);
    const uint8_t *pl[3] = {cv->view.y, cv->view.u, cv->view.v};
    for (int p = 0; p < 3; p++)
        cv->pl[p] = (kr_image_t){p ? w / 2 : w, p ? h / 2 : h, p ? w / 2 : w, 1, (uint8_t *)pl[p]};
}

static uint8_t clamp_u8(double v) { return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)lround(v); }

/* A BGR colour as the canvas's Y, U, V, each as a grey "BGR" triple for kr_cv_draw_*
 * (which draws a colour's luma on 1-channel pictures). */
static void canvas_colour(const clip_canvas *cv, const uint8_t bgr[3], uint8_t out[3][3])
{
    double kr = cv->view.bt709 ? 0.2126 : 0.299, kb = cv->view.bt709 ? 0.0722 : 0.114, kg = 1.0 - kr - kb;
    double y = kr * bgr[2] + kg * bgr[1] + kb * bgr[0];
    double pb = (bgr[0] - y) / (2 * (1 - kb)), pr = (bgr[2] - y) / (2 * (1 - kr));
    if (!cv->view.full_range) {
        y = 16 + y * 219.0 / 255.0;
        pb *= 224.0 / 255.0;
        pr *= 224.0 / 255.0;
    }
    const uint8_t v[3] = {clamp_u8(y), clamp_u8(128 + pb), clamp_u8(128 + pr)};
    for (int p = 0; p < 3; p++)
        out[p][0] = out[p][1] = out[p][2] = v[p];
}

/* Picture px -> plane p's px (pixel centres). */
static double pl_x(int p, double x) { return p ? (x + 0.5) * 0.5 - 0.5 : x; }
static int    pl_th(int p, int th) { return p ? (th + 1) / 2 : th; }

/* xy's n points on the chroma planes, into cv->sxy. */
static void chroma_pts(clip_canvas *cv, const double *xy, int n)
{
    for (int i = 0; i < 2 * n; i++)
        cv->sxy[i] = pl_x(1, xy[i]);
}

static void cv_line(clip_canvas *cv, double x0, double y0, double x1, double y1, const uint8_t bgr[3], int th)
{
    if (!cv->yuv) {
        kr_cv_draw_line(&cv->bgr, x0, y0, x1, y1, bgr, th);
        return;
    }
    uint8_t c[3][3];
    canvas_colour(cv, bgr, c);
    for (int p = 0; p < 3; p++)
        kr_cv_draw_line(&cv->pl[p], pl_x(p, x0), pl_x(p, y0), pl_x(p, x1), pl_x(p, y1), c[p], pl_th(p, th));
}

/* xy: n <= HAND_MAX_PTS points. */
static void cv_polyline(clip_canvas *cv, const double *xy, int n, int closed, const uint8_t bgr[3], int th)
{
    if (!cv->yuv) {
        kr_cv_draw_polyline(&cv->bgr, xy, n, closed, bgr, th);
        return;
    }
    uint8_t c[3][3];
    canvas_colour(cv, bgr, c);
    kr_cv_draw_polyline(&cv->pl[0], xy, n, closed, c[0], th);
    chroma_pts(cv, xy, n);
    for (int p = 1; p < 3; p++)
        kr_cv_draw_polyline(&cv->pl[p], cv->sxy, n, closed, c[p], pl_th(p, th));
}

static void cv_polygon_fill(clip_canvas *cv, const double *xy, int n, const uint8_t bgr[3], double alpha)
{
    if (!cv->yuv) {
        kr_cv_draw_polygon_fill(&cv->bgr, xy, n, bgr, alpha);
        return;
    }
    uint8_t c[3][3];
    canvas_colour(cv, bgr, c);
    kr_cv_draw_polygon_fill(&cv->pl[0], xy, n, c[0], alpha);
    chroma_pts(cv, xy, n);
    for (int p = 1; p < 3; p++)
        kr_cv_draw_polygon_fill(&cv->pl[p], cv->sxy, n, c[p], alpha);
}

static void cv_circle(clip_canvas *cv, double x, double y, double rad, const uint8_t bgr[3], int th)
{
    if (!cv->yuv) {
        kr_cv_draw_circle(&cv->bgr, x, y, rad, bgr, th);
        return;
    }
    uint8_t c[3][3];
    canvas_colour(cv, bgr, c);
    for (int p = 0; p < 3; p++)
        kr_cv_draw_circle(&cv->pl[p], pl_x(p, x), pl_x(p, y), p ? rad * 0.5 : rad, c[p], th > 0 ? pl_th(p, th) : th);
}

static void cv_rect_fill(clip_canvas *cv, int x, int y, int w, int h, const uint8_t bgr[3], double alpha)
{
    if (!cv->yuv) {
        kr_cv_draw_rect_fill(&cv->bgr, x, y, w, h, bgr, alpha);
        return;
    }
    uint8_t c[3][3];
    canvas_colour(cv, bgr, c);
    kr_cv_draw_rect_fill(&cv->pl[0], x, y, w, h, c[0], alpha);
    int x0 = x >> 1, y0 = y >> 1, x1 = (x + w + 1) >> 1, y1 = (y + h + 1) >> 1; /* chroma samples touched */
    for (int p = 1; p < 3; p++)
        kr_cv_draw_rect_fill(&cv->pl[p], x0, y0, x1 - x0, y1 - y0, c[p], alpha);
}

/* Pictures to BGR for the contact sheet and the sent cards' search: planes y (dst's size)
 * and u, v (dst's size or half of it) in the colours of `like` into dst. */
static void planes_to_bgr(const kr_image_t *py, const kr_image_t *pu, const kr_image_t *pv, const kr_yuv_t *like,
                          kr_image_t *dst)
{
    double kr = like->bt709 ? 0.2126 : 0.299, kb = like->bt709 ? 0.0722 : 0.114, kg = 1.0 - kr - kb;
    double ys = like->full_range ? 1.0 : 255.0 / 219.0, cs = like->full_range ? 1.0 : 255.0 / 224.0;
    int y0 = like->full_range ? 0 : 16;
    /* fixed point, 16 bits: R = Y' + cr V', G = Y' - cgu U' - cgv V', B = Y' + cb U' */
    const int sy = (int)lround(ys * 65536), crv = (int)lround(2 * (1 - kr) * cs * 65536),
              cbu = (int)lround(2 * (1 - kb) * cs * 65536),
              cgu = (int)lround(2 * (1 - kb) * kb / kg * cs * 65536),
              cgv = (int)lround(2 * (1 - kr) * kr / kg * cs * 65536);
    const int half = pu->w < dst->w;
    for (int y = 0; y < dst->h; y++) {
        const uint8_t *ly = py->px + (size_t)y * py->stride;
        const uint8_t *lu = pu->px + (size_t)(half ? y / 2 : y) * pu->stride;
        const uint8_t *lv = pv->px + (size_t)(half ? y / 2 : y) * pv->stride;
        uint8_t *o = dst->px + (size_t)y * dst->stride;
        for (int x = 0; x < dst->w; x++) {
            int cx = half ? x / 2 : x;
            int l = (ly[x] - y0) * sy + 32768, u = lu[cx] - 128, v = lv[cx] - 128;
            int r = (l + crv * v) >> 16, g = (l - cgu * u - cgv * v) >> 16, b = (l + cbu * u) >> 16;
            o[3 * x] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
            o[3 * x + 1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
            o[3 * x + 2] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        }
    }
}

/* As kr_cv_draw_text (bg: its box with a 3 px margin, blended at bg_alpha). On planes the
 * box is blended plane by plane and the glyphs (Hershey strokes do not scale to the
 * half-size chroma planes) are drawn as a coverage mask on a patch around the box, then
 * blended in: luma per pixel, chroma per 2 x 2 block by the block's mean coverage, which
 * is what drawing in BGR and the encoder's 4:2:0 averaging give. */
static void cv_text(clip_canvas *cv, const char *s, int x, int y, double hpx, const uint8_t bgr[3], int th,
                    const uint8_t *bg, double bg_alpha)
{
    if (!cv->yuv) {
        kr_cv_draw_text(&cv->bgr, s, x, y, hpx, bgr, th, bg, bg_alpha);
        return;
    }
    int tw = 0, tht = 0;
    if (kr_cv_text_size(s, hpx, th, &tw, &tht) != KR_OK)
        return;
    if (bg)
        cv_rect_fill(cv, x - 3, y - 3, tw + 6, tht + 6, bg, bg_alpha);
    int m = th + 3; /* stroke half-width, anti-aliasing */
    int x0 = (x - m) & ~1, y0 = (y - m) & ~1, x1 = (x + tw + m + 1) & ~1, y1 = (y + tht + m + 1) & ~1;
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > cv->w ? cv->w : x1;
    y1 = y1 > cv->h ? cv->h : y1;
    int pw = x1 - x0, ph = y1 - y0;
    uint8_t c[3][3];
    canvas_colour(cv, bgr, c);
    if (pw <= 0 || ph <= 0)
        return;
    if ((size_t)pw * ph > cv->patch_cap) { /* larger than any label: luma only */
        kr_cv_draw_text(&cv->pl[0], s, x, y, hpx, c[0], th, NULL, 0);
        return;
    }
    kr_image_t mk = {pw, ph, pw, 1, cv->patch};
    static const uint8_t full[3] = {255, 255, 255};
    memset(mk.px, 0, (size_t)pw * ph);
    if (kr_cv_draw_text(&mk, s, x - x0, y - y0, hpx, full, th, NULL, 0) != KR_OK)
        return;
    const int cy = c[0][0], cu = c[1][0], cvv = c[2][0];
    for (int by = 0; by < ph; by += 2) {
        const uint8_t *m0 = mk.px + (size_t)by * pw, *m1 = m0 + pw;
        uint8_t *ly0 = cv->pl[0].px + (size_t)(y0 + by) * cv->pl[0].stride + x0, *ly1 = ly0 + cv->pl[0].stride;
        uint8_t *lu = cv->pl[1].px + (size_t)((y0 + by) / 2) * cv->pl[1].stride + x0 / 2;
        uint8_t *lv = cv->pl[2].px + (size_t)((y0 + by) / 2) * cv->pl[2].stride + x0 / 2;
        for (int bx = 0; bx < pw; bx += 2) {
            int a = m0[bx], b = m0[bx + 1], d = m1[bx], e = m1[bx + 1], sum = a + b + d + e;
            if (!sum)
                continue;
            ly0[bx] = (uint8_t)(ly0[bx] + ((cy - ly0[bx]) * a + (cy >= ly0[bx] ? 127 : -127)) / 255);
            ly0[bx + 1] = (uint8_t)(ly0[bx + 1] + ((cy - ly0[bx + 1]) * b + (cy >= ly0[bx + 1] ? 127 : -127)) / 255);
            ly1[bx] = (uint8_t)(ly1[bx] + ((cy - ly1[bx]) * d + (cy >= ly1[bx] ? 127 : -127)) / 255);
            ly1[bx + 1] = (uint8_t)(ly1[bx + 1] + ((cy - ly1[bx + 1]) * e + (cy >= ly1[bx + 1] ? 127 : -127)) / 255);
            int k = bx / 2;
            lu[k] = (uint8_t)(lu[k] + ((cu - lu[k]) * sum + (cu >= lu[k] ? 510 : -510)) / 1020);
            lv[k] = (uint8_t)(lv[k] + ((cvv - lv[k]) * sum + (cvv >= lv[k] ? 510 : -510)) / 1020);
        }
    }
}

static const uint8_t *contact_color(const kr_clip_contact *e)
{
    return !strcmp(e->player, "A") ? C_A : !strcmp(e->player, "B") ? C_B : C_BOTH;
}

static void contact_label(const kr_clip_contact *e, char *buf, size_t n)
{
    char card[16] = "";
    if (e->card >= 0)
        snprintf(card, sizeof card, " #%d", e->card);
    snprintf(buf, n, "%s%s%s%s %.0f ms", e->player, e->player[0] ? " " : "", e->type, card, (double)e->t_us / 1e3);
}

#define SHOW_US 500000   /* a contact stays labelled this long (source time) */
#define LINE_SEG 24      /* segments per competition-line edge (lens curvature) */
#define N_LINES 2        /* A's and B's territory outlines */
#define HAND_MAX_POLYS 8
#define PLATE_FRAMES 7  /* tracker background: the first frame's weight (see kr_clip_export) */

/* ---- per-export state (allocated once per export, never per frame) -------- */
typedef struct clip_run {
    const kr_clip_t       *c;
    const kr_calib_t      *calib; /* c's, or the export's automatic one; NULL: none */
    const kr_clip_contact *ev;
    size_t                 n_ev;
    int64_t                start_us, end_us, at_us;
    double                 text_px;
    int                    thick;
    double                 sx, sy; /* output px per raw px */
    kr_track_t            *trk;   /* the export's own tracker; NULL when drawing from tracks */
    const kr_track_frame  *tf;    /* the frame drawn: trk's, or &sfr */
    const kr_clip_tracks_t *tracks; /* the recorded run drawn from (c's), or NULL */
    kr_track_frame         sfr;   /* the recorded frame, with scards */
    clip_canvas            cv;    /* the frame drawn on */
    clip_canvas            plate; /* the tracker's background plate (the video's first frame) */
    clip_canvas            warm;  /* a warm-up frame (the reader's picture, not copied) */
    kr_track_card          scards[KR_TRACK_MAX_CARDS];
    uint8_t               *cls_px; /* owned: the recorded frame's class image */
    int                    mat_w, mat_h;
    double                 mx0, my0, ms; /* recorded mat px -> mm: x = mx0 + u ms, y = my0 - v ms */
    int                    show[KR_TRACK_MAX_CARDS]; /* card k outlined (present when tracking began) */
    int                    show_decided;
    int                    cards_drawn;
    double                 lines[N_LINES][8 * LINE_SEG];
    int                    lines_ok[N_LINES];
    double                 hand_xy[2 * HAND_MAX_PTS];
    int                    hand_counts[HAND_MAX_POLYS];
} clip_run;

/* Mat mm -> output px (0 ok). */
static int map_out(const clip_run *r, double x, double y, double *u, double *v)
{
    double px, py;
    if (kr_calib_mm_to_px(r->calib, x, y, &px, &py) != 0)
        return -1;
    *u = (px + 0.5) * r->sx - 0.5;
    *v = (py + 0.5) * r->sy - 0.5;
    return 0;
}

/* kr_track_map_fn over the output frame size. */
static int map_track(void *ctx, double x, double y, double *px, double *py)
{
    return map_out((const clip_run *)ctx, x, y, px, py);
}

static void build_lines(clip_run *r)
{
    static const double terr[N_LINES][4] = {{-435, -254, 435, -15}, {-435, 15, 435, 254}};
    for (int l = 0; l < N_LINES; l++) {
        const double *b = terr[l];
        const double cx[4] = {b[0], b[2], b[2], b[0]}, cy[4] = {b[1], b[1], b[3], b[3]};
        r->lines_ok[l] = 1;
        for (int e = 0; e < 4 && r->lines_ok[l]; e++)
            for (int s = 0; s < LINE_SEG; s++) {
                double f = (double)s / LINE_SEG;
                double x = cx[e] + (cx[(e + 1) % 4] - cx[e]) * f, y = cy[e] + (cy[(e + 1) % 4] - cy[e]) * f;
                double *p = &r->lines[l][2 * (e * LINE_SEG + s)];
                if (map_out(r, x, y, &p[0], &p[1]) != 0) {
                    r->lines_ok[l] = 0;
                    break;
                }
            }
    }
}

/* Competition lines, tracked cards with ids, hand outlines (tracked runs only). */
static void draw_scene(clip_run *r, clip_canvas *img)
{
    for (int l = 0; l < N_LINES; l++)
        if (r->lines_ok[l])
            cv_polyline(img, r->lines[l], 4 * LINE_SEG, 1, C_LINE, r->thick);
    const kr_track_frame *tf = r->tf;
    if (!tf || !tf->ready)
        return;
    if (!r->show_decided) { /* cards taken earlier in the match are not there: no outline */
        for (int k = 0; k < tf->n_cards && k < KR_TRACK_MAX_CARDS; k++)
            r->show[k] = tf->cards[k].contrast >= KR_CLIP_MIN_CONTRAST &&
                         (!r->tracks || (!tf->cards[k].out_of_field && !tf->cards[k].lost));
        r->show_decided = 1;
    }
    double id_px = r->text_px * 0.55 < 9 ? 9 : r->text_px * 0.55;
    int drawn = 0;
    for (int k = 0; k < tf->n_cards && k < KR_TRACK_MAX_CARDS; k++) {
        const kr_track_card *cd = &tf->cards[k];
        if (!r->show[k] || cd->lost)
            continue;
        double xy[8];
        int ok = 1;
        for (int j = 0; j < 4 && ok; j++)
            ok = map_out(r, cd->corners_mm[j][0], cd->corners_mm[j][1], &xy[2 * j], &xy[2 * j + 1]) == 0;
        if (!ok)
            continue;
        const uint8_t *col = cd->moving || cd->displaced || cd->out_of_field ? C_MOVE : C_CARD;
        cv_polyline(img, xy, 4, 1, col, r->thick);
        char id[8];
        snprintf(id, sizeof id, "%d", cd->id);
        double u, v;
        if (map_out(r, cd->x_mm, cd->y_mm, &u, &v) == 0) {
            int tw = 0, th = 0;
            kr_cv_text_size(id, id_px, 1, &tw, &th);
            cv_text(img, id, (int)(u - tw / 2.0), (int)(v - th / 2.0), id_px, col, 1, C_BLACK, 0.55);
        }
        drawn++;
    }
    r->cards_drawn = drawn;
    kr_image_t cls = {r->mat_w, r->mat_h, r->mat_w, 1, r->cls_px};
    if (r->trk && kr_track_mat_view(r->trk, NULL, &cls) != KR_OK)
        return;
    for (int p = 0; p < 2; p++) {
        int n_poly = 0;
        if (!tf->hands[p].present ||
            kr_cv_draw_label_outlines(&cls, (uint8_t)(p + 1), 20, 1.0, r->hand_xy, HAND_MAX_PTS, r->hand_counts,
                                      HAND_MAX_POLYS, &n_poly) != KR_OK)
            continue;
        const uint8_t *col = p == KR_TRACK_A ? C_A : C_B;
        int at = 0;
        for (int q = 0; q < n_poly; q++) {
            double *xy = &r->hand_xy[2 * at];
            int n = r->hand_counts[q], ok = 1;
            for (int i = 0; i < n && ok; i++) { /* in place: mat px -> mm -> output px */
                double x = r->mx0 + xy[2 * i] * r->ms, y = r->my0 - xy[2 * i + 1] * r->ms;
                if (r->trk)
                    kr_track_mat_to_mm(r->trk, xy[2 * i], xy[2 * i + 1], &x, &y);
                ok = map_out(r, x, y, &xy[2 * i], &xy[2 * i + 1]) == 0;
            }
            if (ok)
                cv_polyline(img, xy, n, 1, col, r->thick);
            at += n;
        }
        double u, v;
        if (map_out(r, tf->hands[p].lead_x_mm, tf->hands[p].lead_y_mm, &u, &v) == 0)
            cv_circle(img, u, v, r->thick * 2.5, col, 0);
    }
}

/* The contact's card, outlined (filled on the frame that first shows the contact): at
 * its tracked place when tracking, else where the events file put it. */
static void mark_card(const clip_run *r, clip_canvas *img, const kr_clip_contact *e, int first)
{
    if (!r->calib || e->card < 1)
        return;
    double cx = e->x_mm, cy = e->y_mm, corners[4][2];
    int have = 0;
    if (r->tf && r->tf->ready)
        for (int k = 0; k < r->tf->n_cards; k++)
            if (r->tf->cards[k].id == e->card) {
                memcpy(corners, r->tf->cards[k].corners_mm, sizeof corners);
                have = 1;
                break;
            }
    if (!have) {
        if (!e->has_pos)
            return;
        const double dx[4] = {-26, 26, 26, -26}, dy[4] = {-36.5, -36.5, 36.5, 36.5};
        for (int j = 0; j < 4; j++) {
            corners[j][0] = cx + dx[j];
            corners[j][1] = cy + dy[j];
        }
    }
    double xy[8];
    for (int j = 0; j < 4; j++)
        if (map_out(r, corners[j][0], corners[j][1], &xy[2 * j], &xy[2 * j + 1]) != 0)
            return;
    const uint8_t *col = contact_color(e);
    if (first)
        cv_polygon_fill(img, xy, 4, col, 0.35);
    cv_polyline(img, xy, 4, 1, col, r->thick + 2);
}

static void draw_card_marks(const clip_run *r, clip_canvas *img, int64_t t_us, int64_t prev_us)
{
    for (size_t i = 0; i < r->n_ev; i++) {
        const kr_clip_contact *e = &r->ev[i];
        if (e->t_us <= t_us && e->t_us > t_us - SHOW_US)
            mark_card(r, img, e, e->t_us > prev_us);
    }
}

/* Time code, contact flashes and labels, timeline (on top of everything). prev_us: the
 * previous frame's time (contacts in (prev, t] flash on this frame). */
static void draw_builtin(const clip_run *r, clip_canvas *img, int64_t t_us, int64_t prev_us, int64_t index)
{
    char buf[128];
    int th = r->text_px >= 24 ? 2 : 1;
    int pad = (int)(r->text_px * 0.6);
    snprintf(buf, sizeof buf, "%.3f s  frame %lld  (%+.0f ms)", (double)t_us / 1e6, (long long)index,
             (double)(t_us - r->at_us) / 1e3);
    cv_text(img, buf, pad, pad, r->text_px, C_WHITE, th, C_BLACK, 0.85);
    if (r->c->cfg.slow > 1) {
        snprintf(buf, sizeof buf, "slow x%d", r->c->cfg.slow);
        int tw = 0, tht = 0;
        kr_cv_text_size(buf, r->text_px, th, &tw, &tht);
        cv_text(img, buf, img->w - tw - pad, pad, r->text_px, C_WHITE, th, C_BLACK, 0.85);
    }
    int line = 0;
    double lh = r->text_px * 1.6;
    int bar_h = (int)(r->text_px * 0.5) + 2;
    int bar_y = img->h - pad - bar_h;
    for (size_t i = 0; i < r->n_ev; i++) {
        const kr_clip_contact *e = &r->ev[i];
        if (e->t_us > t_us || e->t_us <= t_us - SHOW_US)
            continue;
        const uint8_t *c = contact_color(e);
        if (e->t_us > prev_us) { /* first frame at or after the contact: a coloured frame */
            int b = (int)(r->text_px * 0.25) + 2;
            cv_rect_fill(img, 0, 0, img->w, b, c, 1.0);
            cv_rect_fill(img, 0, img->h - b, img->w, b, c, 1.0);
            cv_rect_fill(img, 0, 0, b, img->h, c, 1.0);
            cv_rect_fill(img, img->w - b, 0, b, img->h, c, 1.0);
        }
        contact_label(e, buf, sizeof buf);
        int y = bar_y - pad - (int)(lh * (line + 1));
        double rad = r->text_px * 0.45;
        cv_circle(img, pad + rad, y + r->text_px * 0.5, rad, c, 0);
        cv_text(img, buf, pad + (int)(2.6 * rad), y, r->text_px, c, th, C_BLACK, 0.6);
        line++;
    }
    double span = (double)(r->end_us - r->start_us);
    if (span > 0) {
        int x0 = pad, x1 = img->w - pad;
        cv_rect_fill(img, x0, bar_y, x1 - x0, bar_h, C_BLACK, 0.5);
        for (size_t i = 0; i < r->n_ev; i++) {
            if (r->ev[i].t_us < r->start_us || r->ev[i].t_us > r->end_us)
                continue;
            double x = x0 + (x1 - x0) * (double)(r->ev[i].t_us - r->start_us) / span;
            cv_line(img, x, bar_y - bar_h, x, bar_y + bar_h, contact_color(&r->ev[i]), 2);
        }
        double xa = x0 + (x1 - x0) * (double)(r->at_us - r->start_us) / span;
        cv_line(img, xa, bar_y, xa, bar_y + bar_h, C_RED, 2);
        double x = x0 + (x1 - x0) * (double)(t_us - r->start_us) / span;
        cv_circle(img, x, bar_y + bar_h * 0.5, bar_h * 0.9, C_WHITE, 0);
    }
}

/* ---- contact sheet ----------------------------------------------------------- */
#define SHEET_N 8 /* frames on the sheet: 4 before --at, 4 from it */
#define SHEET_COLS 4

typedef struct clip_sheet {
    uint8_t   *px; /* whole sheet, BGR */
    kr_image_t img;
    int        cw, ch, lh; /* cell size, label strip height */
    uint8_t   *cells;      /* SHEET_N cell images (cw x ch BGR) */
    uint8_t   *scr;        /* Y, U, V shrunk to a cell (3 x cw x ch), for 4:2:0 frames */
    int64_t    t[SHEET_N];
    int64_t    prev[SHEET_N];
    int        before_n, before_pos, after_n;
} clip_sheet;

static kr_image_t cell_view(clip_sheet *s, int k)
{
    kr_image_t v = {s->cw, s->ch, s->cw * 3, 3, s->cells + (size_t)k * s->cw * s->ch * 3};
    return v;
}

static kr_status sheet_create(clip_sheet *s, int w, int h)
{
    memset(s, 0, sizeof *s);
    s->cw = w < 480 ? w : 480;
    s->ch = (int)((int64_t)h * s->cw / w);
    if (s->ch < 1)
        s->ch = 1;
    s->lh = 30;
    s->img.w = SHEET_COLS * s->cw + (SHEET_COLS + 1) * 4;
    s->img.h = (SHEET_N / SHEET_COLS) * (s->ch + s->lh) + (SHEET_N / SHEET_COLS + 1) * 4;
    s->img.channels = 3;
    s->img.stride = s->img.w * 3;
    s->px = calloc((size_t)s->img.stride * s->img.h, 1);
    s->cells = malloc((size_t)SHEET_N * s->cw * s->ch * 3);
    s->scr = malloc((size_t)s->cw * s->ch * 3);
    s->img.px = s->px;
    return s->px && s->cells && s->scr ? KR_OK : KR_ERR_NOMEM;
}

/* Offers a frame (scene overlays drawn, time code not yet) to the sheet. */
static void sheet_offer(clip_sheet *s, const clip_canvas *frame, int64_t t_us, int64_t prev_us, int64_t at_us)
{
    int k;
    if (t_us < at_us) {
        k = s->before_pos;
        s->before_pos = (s->before_pos + 1) % (SHEET_N / 2);
        if (s->before_n < SHEET_N / 2)
            s->before_n++;
    } else if (s->after_n < SHEET_N / 2) {
        k = SHEET_N / 2 + s->after_n++;
    } else {
        return;
    }
    kr_image_t v = cell_view(s, k);
    if (!frame->yuv) {
        kr_cv_resize(&frame->bgr, &v);
    } else { /* each plane shrunk to the cell, then to BGR */
        kr_image_t q[3];
        for (int p = 0; p < 3; p++) { /* chroma (half size, smooth): bilinear, the fast path */
            q[p] = (kr_image_t){s->cw, s->ch, s->cw, 1, s->scr + (size_t)p * s->cw * s->ch};
            if (p && frame->pl[p].w < 2 * s->cw)
                kr_cv_resize_linear(&frame->pl[p], &q[p]);
            else
                kr_cv_resize(&frame->pl[p], &q[p]);
        }
        planes_to_bgr(&q[0], &q[1], &q[2], &frame->view, &v);
    }
    s->t[k] = t_us;
    s->prev[k] = prev_us;
}

static void sheet_compose(clip_sheet *s, const clip_run *r)
{
    memset(s->px, 32, (size_t)s->img.stride * s->img.h);
    int half = SHEET_N / 2;
    for (int slot = 0; slot < SHEET_N; slot++) {
        int k;
        if (slot < half) { /* before-frames oldest first; missing ones leave cells empty */
            int i = slot - (half - s->before_n);
            if (i < 0)
                continue;
            k = (s->before_pos - s->before_n + i + half) % half;
        } else {
            if (slot - half >= s->after_n)
                break;
            k = slot;
        }
        int col = slot % SHEET_COLS, row = slot / SHEET_COLS;
        int x = 4 + col * (s->cw + 4), y = 4 + row * (s->ch + s->lh + 4);
        kr_image_t dst = {s->cw, s->ch, s->img.stride, 3, s->px + (size_t)y * s->img.stride + (size_t)x * 3};
        kr_image_t src = cell_view(s, k);
        kr_cv_resize(&src, &dst);
        char buf[96];
        snprintf(buf, sizeof buf, "%.3f s (%+.0f ms)", (double)s->t[k] / 1e6, (double)(s->t[k] - r->at_us) / 1e3);
        kr_cv_draw_text(&s->img, buf, x + 4, y + s->ch + 6, 16, C_WHITE, 1, NULL, 0);
        if (slot == half) { /* the first frame at or after --at */
            double box[8] = {x - 2.0, y - 2.0, x + s->cw + 1.0, y - 2.0, x + s->cw + 1.0, y + s->ch + 1.0,
                             x - 2.0, y + s->ch + 1.0};
            kr_cv_draw_polyline(&s->img, box, 4, 1, C_RED, 3);
        }
        int mark = 0; /* contacts between the previous frame and this one */
        for (size_t e = 0; e < r->n_ev; e++)
            if (r->ev[e].t_us > s->prev[k] && r->ev[e].t_us <= s->t[k]) {
                char lab[96];
                contact_label(&r->ev[e], lab, sizeof lab);
                kr_cv_draw_text(&s->img, lab, x + 6, y + 6 + mark * 24, 16, contact_color(&r->ev[e]), 1, C_BLACK,
                                0.6);
                mark++;
            }
    }
}

static void sheet_destroy(clip_sheet *s)
{
    free(s->px);
    free(s->cells);
    free(s->scr);
}

/* "dir/x.mp4" -> "dir/x.png" (".png" appended when there is no extension). */
static char *sheet_path(const char *out)
{
    size_t n = strlen(out);
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    size_t keep = (dot && (!slash || dot > slash)) ? (size_t)(dot - out) : n;
    char *p = malloc(keep + 5);
    if (p) {
        memcpy(p, out, keep);
        memcpy(p + keep, ".png", 5);
    }
    return p;
}

/* The cards as they lie at t_us: the layout, moved by earlier rearranges. sent[k]: -1 when
 * card k's place is known, else the territory (KR_TRACK_A / _B) it was last sent into
 * (a send gives no place; a later rearrange of the card does). Returns the card count. */
static int layout_at(const kr_clip_events_t *ev, int64_t t_us, kr_track_card_init *ci, int *sent)
{
    int n = 0;
    for (int k = 0; k < ev->n_cards && n < KR_CLIP_MAX_CARD; k++, n++) {
        ci[n].id = ev->cards[k].id;
        ci[n].owner = ev->cards[k].owner ? KR_TRACK_B : KR_TRACK_A;
        ci[n].x_mm = ev->cards[k].x_mm;
        ci[n].y_mm = ev->cards[k].y_mm;
        sent[n] = -1;
    }
    for (int k = 0; k < n; k++) {
        int64_t last = -1; /* the latest placing record of card k up to t_us (file order on ties) */
        for (size_t m = 0; m < ev->n_moves; m++)
            if (ev->moves[m].card == ci[k].id && ev->moves[m].t_us <= t_us && ev->moves[m].t_us >= last) {
                last = ev->moves[m].t_us;
                ci[k].x_mm = ev->moves[m].x_mm;
                ci[k].y_mm = ev->moves[m].y_mm;
            }
        for (size_t m = 0; m < ev->n_sends; m++)
            if (ev->sends[m].card == ci[k].id && ev->sends[m].t_us <= t_us && ev->sends[m].t_us > last) {
                last = ev->sends[m].t_us;
                sent[k] = ev->sends[m].from ? KR_TRACK_A : KR_TRACK_B;
            }
        if (sent[k] >= 0) /* the sent card is now the receiver's */
            ci[k].owner = sent[k];
    }
    return n;
}

/* Sent cards' new places, found in the frame where tracking begins (img: the output-size
 * view): the card outlines kr_calib_detect_cards finds there, read by kr_recog_read_layout
 * (centre, owner, each sampled upright for its owner, with the default card model), that
 * no card with a known place accounts for (centre within 30 mm), of a card's size, inside
 * the receiving territory. A territory that received k cards and shows exactly k such
 * outlines: with k == 1 the card is placed there; with k > 1 the sent cards are assigned
 * to them jointly by their scores, each only with a score of at least the model's
 * min_score. Anything else (more or fewer outlines, an unreadable one, no card model)
 * leaves the cards out rather than drawn at a guessed place. Returns the cards placed.
 * Allocates (once per export, only when cards were sent). */
#define SENT_MAX_QUADS 128
#define SENT_MAX_CAND 8 /* candidate outlines kept per territory */

/* Output px -> raw px -> mat mm (a kr_recog_map_fn over a clip_run). */
static int map_out_to_mm(void *ctx, double u, double v, double *x_mm, double *y_mm)
{
    const clip_run *r = ctx;
    return kr_calib_px_to_mm(r->calib, (u + 0.5) / r->sx - 0.5, (v + 0.5) / r->sy - 0.5, x_mm, y_mm);
}

/* Assigns the cards sent into one territory (ids[0..n-1]) to its candidate outlines
 * (lc[cand[j]], j < n_cand, n_cand >= n) by their scores with the model m: cand_of[i] the
 * candidate of card i. 0 when no assignment keeps every card at min_score or above. */
static int read_sent(const kr_recog_model_t *m, const kr_recog_layout_card *lc, const int *cand, int n_cand,
                     const int *ids, int n, int *cand_of)
{
    int ok = 0;
    double *w = malloc(sizeof *w * (size_t)n * (size_t)n_cand);
    int *assign = malloc(sizeof *assign * (size_t)n);
    if (!w || !assign)
        goto done;
    kr_recog_config rc;
    kr_recog_config_default(&rc);
    for (int j = 0; j < n_cand; j++)
        for (int i = 0; i < n; i++) {
            double sc = kr_recog_score(m, &rc, &lc[cand[j]].feat, ids[i], NULL);
            w[i * n_cand + j] = sc < rc.min_score ? -2e9 : sc; /* below min_score: forbidden */
        }
    if (kr_recog_assign(w, n, n_cand, assign, NULL) != KR_OK)
        goto done;
    for (int i = 0; i < n; i++)
        cand_of[i] = assign[i];
    ok = 1;
done:
    free(w);
    free(assign);
    return ok;
}

/* 1 when (x, y) mm lies inside a territory and no card with a known place accounts for
 * it (its centre within 30 mm). */
static int sent_place_free(const kr_track_card_init *ci, const int *sent, int n, double x, double y)
{
    if (fabs(x) > KR_TRACK_FIELD_HALF_W_MM || fabs(y) > KR_TRACK_FIELD_HALF_H_MM || fabs(y) < 15)
        return 0;
    for (int k = 0; k < n; k++)
        if (sent[k] < 0 && hypot(ci[k].x_mm - x, ci[k].y_mm - y) < 30)
            return 0;
    return 1;
}

static int place_sent(const clip_run *r, const kr_image_t *img, kr_track_card_init *ci, const int *sent, int n,
                      kr_clip_result *res)
{
    int want[2] = {0, 0};
    for (int k = 0; k < n; k++)
        if (sent[k] >= 0)
            want[sent[k]]++;
    if ((!want[0] && !want[1]) || !r->c->model)
        return 0;
    kr_calib_config ccfg;
    kr_calib_config_default(&ccfg);
    double quads[8 * SENT_MAX_QUADS];
    int nq = 0;
    if (kr_calib_detect_cards(&ccfg, img, quads, SENT_MAX_QUADS, &nq) != KR_OK || nq == 0)
        return 0;
    /* only the outlines whose centre is in a territory and no known card's are read (the
     * others, most of the field, would only cost their reading) */
    int keep = 0;
    for (int q = 0; q < nq; q++) {
        double u = 0, v = 0, cx, cy;
        for (int j = 0; j < 4; j++) {
            u += quads[8 * q + 2 * j] / 4;
            v += quads[8 * q + 2 * j + 1] / 4;
        }
        if (map_out_to_mm((void *)r, u, v, &cx, &cy) != 0 || !sent_place_free(ci, sent, n, cx, cy))
            continue;
        memmove(&quads[8 * keep++], &quads[8 * q], 8 * sizeof *quads);
    }
    if (!keep)
        return 0;
    nq = keep;
    kr_recog_layout_card *lc = malloc(sizeof *lc * (size_t)nq);
    kr_recog_config rc;
    kr_recog_config_default(&rc);
    if (!lc || kr_recog_read_layout(r->c->model, &rc, img, quads, nq, map_out_to_mm, (void *)r, lc) != KR_OK) {
        free(lc);
        return 0;
    }
    int cand[2][SENT_MAX_CAND], n_cand[2] = {0, 0};
    for (int q = 0; q < nq; q++) {
        const kr_recog_layout_card *c = &lc[q];
        double mm[4][2];
        int ok = 1;
        for (int j = 0; j < 4 && ok; j++) /* TL TR BR BL: sides 0-1 and 1-2 */
            ok = map_out_to_mm((void *)r, c->corners_px[j][0], c->corners_px[j][1], &mm[j][0], &mm[j][1]) == 0;
        if (!ok)
            continue;
        /* a single card: sides of about 52 and 73 mm (detected corners sit a little inside) */
        double s0 = hypot(mm[1][0] - mm[0][0], mm[1][1] - mm[0][1]);
        double s1 = hypot(mm[2][0] - mm[1][0], mm[2][1] - mm[1][1]);
        double lo = fmin(s0, s1), hi = fmax(s0, s1);
        if (lo < 36 || lo > 62 || hi < 56 || hi > 85)
            continue;
        if (!sent_place_free(ci, sent, n, c->x_mm, c->y_mm))
            continue;
        int side = c->owner == KR_RECOG_OWNER_A ? KR_TRACK_A : KR_TRACK_B; /* A's territory is y < 0 */
        if (n_cand[side] < SENT_MAX_CAND)
            cand[side][n_cand[side]] = q;
        n_cand[side]++;
    }
    int placed = 0;
    for (int side = 0; side < 2; side++) {
        if (!want[side] || n_cand[side] != want[side] || n_cand[side] > SENT_MAX_CAND)
            continue;
        int idx[KR_CLIP_MAX_CARD], ids[KR_CLIP_MAX_CARD], cand_of[KR_CLIP_MAX_CARD], m = 0;
        for (int k = 0; k < n; k++)
            if (sent[k] == side) {
                idx[m] = k;
                ids[m] = ci[k].id;
                cand_of[m] = 0;
                m++;
            }
        if (m > 1 && !read_sent(r->c->model, lc, cand[side], n_cand[side], ids, m, cand_of))
            continue;
        for (int i = 0; i < m; i++) {
            const kr_recog_layout_card *c = &lc[cand[side][cand_of[i]]];
            kr_track_card_init *cc = &ci[idx[i]];
            cc->x_mm = c->x_mm;
            cc->y_mm = c->y_mm;
            if (res && res->n_placed < KR_CLIP_MAX_PLACED) {
                res->placed[res->n_placed].card = cc->id;
                res->placed[res->n_placed].x_mm = cc->x_mm;
                res->placed[res->n_placed].y_mm = cc->y_mm;
                res->n_placed++;
            }
            placed++;
        }
    }
    free(lc);
    return placed;
}

/* ---- three-stage pipeline ------------------------------------------------------
 * With automatic threads an export runs in three stages over one ring of n frame
 * buffers (RING_MAX_BYTES, at most RING_MAX_SLOTS; allocated once per export): a
 * decoding thread (FFmpeg's decoder and scaler) fills slots in order (4:2:0 planes, or
 * BGR for other sources), the calling thread tracks and draws into them in order, an
 * encoding thread (x264) encodes them in order and frees them. Slots live in one sequence: released <=
 * encoded-or-skipped <= processed <= taken <= decoded <= released + n. So the tracker's
 * start (its pose fit of every card, 0.2 s) and the drawing
 * overlap decoding, and each frame is copied once (from the decoder into its slot), not
 * a second time for the encoder. */
#define RING_MAX_SLOTS 24 /* 1280x720: 8 slots in RING_MAX_BYTES, 1920x1080: 4 */
#define RING_MAX_BYTES (24u << 20)

/* src's rows into dst, packed (stride src->w * 3): a BGR picture into a ring slot or plate. */
static void copy_bgr(uint8_t *dst, const kr_image_t *src)
{
    const size_t row = (size_t)src->w * 3;
    for (int y = 0; y < src->h; y++)
        memcpy(dst + (size_t)y * row, src->px + (size_t)y * src->stride, row);
}

typedef struct frame_ring {
    pthread_t          dec_th, enc_th;
    int                dec_started, enc_started;
    pthread_mutex_t    mu;
    pthread_cond_t     cv;
    int                sync_ok;
    kr_media_reader_t *rd;    /* borrowed; used only by the decoding thread while it runs */
    kr_media_writer_t *wr;    /* borrowed; used only by the encoding thread while it runs */
    int                w, h;  /* frame size, px (a slot holds w * h * 3 bytes: BGR, or packed planes) */
    int                n;     /* slots */
    int64_t            end_us; /* the decoding thread stops after the first frame at or past it */
    uint8_t           *block;                /* owned: the slots, one allocation */
    uint8_t           *buf[RING_MAX_SLOTS]; /* slot k's pixels, inside block */
    kr_frame_t         meta[RING_MAX_SLOTS]; /* t_us, gap_us, index of each slot's frame (img and yuv's
                                                planes unused; yuv.y != NULL: the slot holds packed
                                                4:2:0 planes in yuv's colours, else BGR) */
    int64_t            pts[RING_MAX_SLOTS];  /* encoder time of a processed slot, -1: not encoded */
    int64_t            decoded, taken, processed, released; /* sequence counters */
    kr_status          dec_status; /* KR_OK while decoding; then KR_ERR_EOF or an error */
    int                dec_done, main_done, stop, enc_failed;
    int64_t            enc_cpu_us, dec_cpu_us; /* the threads' CPU, set when they end */
} frame_ring;

/* Frame f (the reader's; 4:2:0 planes or BGR) into slot k. */
static void ring_put(frame_ring *q, int k, const kr_frame_t *f)
{
    kr_image_t img = f->img;
    img.w = q->w;
    img.h = q->h;
    if (f->yuv.y)
        yuv_pack(q->buf[k], q->w, q->h, &f->yuv);
    else
        copy_bgr(q->buf[k], &img);
    q->meta[k] = *f;
    q->meta[k].img.px = NULL;
    q->meta[k].yuv.y = f->yuv.y ? q->buf[k] : NULL; /* a flag: the planes are the slot's */
    q->meta[k].yuv.u = q->meta[k].yuv.v = NULL;
}

static void *ring_decode_main(void *arg)
{
    frame_ring *q = arg;
    kr_status st = KR_OK;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (!q->stop && q->decoded - q->released >= q->n)
            pthread_cond_wait(&q->cv, &q->mu);
        int stop = q->stop;
        pthread_mutex_unlock(&q->mu);
        if (stop)
            break;
        kr_frame_t f;
        if ((st = kr_media_reader_next(q->rd, &f)) != KR_OK)
            break;
        ring_put(q, (int)(q->decoded % q->n), &f); /* free: only this thread writes it now */
        pthread_mutex_lock(&q->mu);
        q->decoded++;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        if (f.t_us >= q->end_us) {
            st = KR_ERR_EOF;
            break;
        }
    }
    pthread_mutex_lock(&q->mu);
    q->dec_status = st == KR_OK ? KR_ERR_EOF : st;
    q->dec_done = 1;
    q->dec_cpu_us = thread_cpu_us();
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

static void *ring_encode_main(void *arg)
{
    frame_ring *q = arg;
    int64_t pos = 0;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (pos >= q->processed && !q->main_done)
            pthread_cond_wait(&q->cv, &q->mu);
        if (pos >= q->processed) { /* main_done and all encoded */
            pthread_mutex_unlock(&q->mu);
            break;
        }
        int failed = q->enc_failed;
        pthread_mutex_unlock(&q->mu);
        int k = (int)(pos % q->n);
        int bad = 0;
        if (q->pts[k] >= 0 && !failed) {
            if (q->meta[k].yuv.y) {
                kr_yuv_t v = packed_yuv(q->buf[k], q->w, q->h, &q->meta[k].yuv);
                bad = kr_media_writer_write_yuv(q->wr, &v, q->pts[k]) != KR_OK;
            } else {
                kr_image_t im = {q->w, q->h, q->w * 3, 3, q->buf[k]};
                bad = kr_media_writer_write(q->wr, &im, q->pts[k]) != KR_OK;
            }
        }
        pos++;
        pthread_mutex_lock(&q->mu);
        q->enc_failed |= bad;
        q->released = pos;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
    }
    q->enc_cpu_us = thread_cpu_us(); /* read by the caller after pthread_join */
    return NULL;
}

/* Starts both threads; `first` (may be NULL): a frame already read (the reader's), queued
 * first. */
static kr_status ring_start(frame_ring *q, kr_media_reader_t *rd, kr_media_writer_t *wr, int w, int h,
                           int64_t end_us, const kr_frame_t *first)
{
    memset(q, 0, sizeof *q);
    q->rd = rd;
    q->wr = wr;
    q->w = w;
    q->h = h;
    q->end_us = end_us;
    q->dec_status = KR_OK;
    size_t fb = (size_t)w * h * 3;
    q->n = (int)(RING_MAX_BYTES / fb);
    q->n = q->n < 4 ? 4 : q->n > RING_MAX_SLOTS ? RING_MAX_SLOTS : q->n;
    /* one block, in 2 MB huge pages where the kernel allows it (madvise mode): first
     * touching it in 4 KB pages costs a page fault each (6000 for 24 MB, about 0.1 s of
     * system CPU on this machine), per export. A larger ring decoded further ahead during
     * the tracker's start but its page faults cost more than that gained. */
    size_t total = (fb * (size_t)q->n + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    void *blk = NULL;
    if (posix_memalign(&blk, 2u << 20, total) != 0)
        return KR_ERR_NOMEM;
    q->block = blk;
#ifdef MADV_HUGEPAGE
    madvise(blk, total, MADV_HUGEPAGE); /* a hint: failure only costs speed */
#endif
    for (int k = 0; k < q->n; k++)
        q->buf[k] = q->block + (size_t)k * fb;
    if (pthread_mutex_init(&q->mu, NULL) != 0)
        return KR_ERR_NOMEM;
    if (pthread_cond_init(&q->cv, NULL) != 0) {
        pthread_mutex_destroy(&q->mu);
        return KR_ERR_NOMEM;
    }
    q->sync_ok = 1;
    if (first) {
        ring_put(q, 0, first);
        q->decoded = 1;
        if (first->t_us >= end_us) {
            q->dec_done = 1;
            q->dec_status = KR_ERR_EOF;
        }
    }
    if (!q->dec_done) {
        if (pthread_create(&q->dec_th, NULL, ring_decode_main, q) != 0)
            return KR_ERR_NOMEM;
        q->dec_started = 1;
    }
    if (pthread_create(&q->enc_th, NULL, ring_encode_main, q) != 0)
        return KR_ERR_NOMEM;
    q->enc_started = 1;
    return KR_OK;
}

/* The calling thread's next frame in order: its slot as the picture of *cv and its times
 * in *f; 0 when decoding has ended (q->dec_status says how) or the encoder failed. */
static int ring_take(frame_ring *q, clip_canvas *cv, kr_frame_t *f)
{
    pthread_mutex_lock(&q->mu);
    while (q->taken >= q->decoded && !q->dec_done && !q->enc_failed)
        pthread_cond_wait(&q->cv, &q->mu);
    int ok = q->taken < q->decoded && !q->enc_failed;
    int k = (int)(q->taken % q->n);
    if (ok) {
        *f = q->meta[k];
        q->taken++;
    }
    pthread_mutex_unlock(&q->mu);
    if (ok && f->yuv.y) {
        canvas_yuv(cv, q->buf[k], q->w, q->h, &f->yuv);
    } else if (ok) {
        kr_image_t im = {q->w, q->h, q->w * 3, 3, q->buf[k]};
        canvas_bgr(cv, &im);
    }
    return ok;
}

/* The calling thread is done with the frame it took last: encode it at pts (us), or
 * pts < 0: not part of the clip (warm-up), its slot is only freed. */
static void ring_done(frame_ring *q, int64_t pts)
{
    pthread_mutex_lock(&q->mu);
    q->pts[q->processed % q->n] = pts;
    q->processed++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* Stops decoding (the calling thread needs no more frames) and waits for its thread. */
static void ring_stop_decoding(frame_ring *q)
{
    if (!q->dec_started)
        return;
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->dec_th, NULL);
    q->dec_started = 0;
}

/* Waits until every processed frame is encoded and ends the encoding thread; 1 if a
 * write failed. */
static int ring_finish(frame_ring *q)
{
    ring_stop_decoding(q);
    if (q->enc_started) {
        pthread_mutex_lock(&q->mu);
        q->main_done = 1;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        pthread_join(q->enc_th, NULL);
        q->enc_started = 0;
    }
    return q->enc_failed;
}

static void ring_free(frame_ring *q)
{
    ring_finish(q);
    if (q->sync_ok) {
        pthread_cond_destroy(&q->cv);
        pthread_mutex_destroy(&q->mu);
        q->sync_ok = 0;
    }
    free(q->block);
    q->block = NULL;
    memset(q->buf, 0, sizeof q->buf);
}

/* The frame the reader returned last (ow x oh of it) copied into buf (room for
 * ow * oh * 3 bytes) as the picture of cv: its 4:2:0 planes, else its BGR picture. */
static void frame_copy(const kr_frame_t *f, int ow, int oh, uint8_t *buf, clip_canvas *cv)
{
    if (f->yuv.y) {
        canvas_yuv(cv, buf, ow, oh, &f->yuv);
        return;
    }
    kr_image_t img = f->img;
    img.w = ow;
    img.h = oh;
    copy_bgr(buf, &img);
    img.px = buf;
    img.stride = ow * 3;
    canvas_bgr(cv, &img);
}

/* The tracker on cv's picture (its planes or its BGR). */
static kr_status canvas_track(kr_track_t *trk, const clip_canvas *cv, int64_t t_us, int64_t gap_us,
                              const kr_track_frame **tf)
{
    return cv->yuv ? kr_track_update_yuv(trk, &cv->view, t_us, gap_us, tf) : kr_track_update(trk, &cv->bgr, t_us, gap_us, tf);
}

/* ---- automatic calibration, beside the export's own opening of the video ------- */
typedef struct auto_calib {
    pthread_t   th;
    int         started;
    const char *video;  /* borrowed */
    kr_calib_t *calib;  /* owned by the export; NULL when it failed */
    char        err[512];
} auto_calib;

static void *auto_calib_main(void *arg)
{
    auto_calib *a = arg;
    if (kr_clip_calib_auto(a->video, &a->calib, a->err, sizeof a->err) != KR_OK)
        a->calib = NULL;
    return NULL;
}

/* ---- export ------------------------------------------------------------------- */
kr_status kr_clip_export(kr_clip_t *c, const char *video, int64_t at_us, const char *out_mp4,
                         kr_clip_result *res)
{
    if (!c)
        return KR_ERR_INVALID;
    c->err[0] = '\0';
    if (res)
        memset(res, 0, sizeof *res);
    if (!video || !out_mp4 || !*out_mp4)
        return set_err(c, KR_ERR_INVALID, "clip: no video or no output file given");
    const kr_clip_config *cfg = &c->cfg;
    kr_status st = KR_OK;
    kr_media_reader_t *rd = NULL;
    kr_media_writer_t *wr = NULL;
    clip_run *r = NULL;
    clip_sheet sheet;
    memset(&sheet, 0, sizeof sheet);
    char *png = NULL, *png_tmp = NULL;
    int mp4_done = 0;
    frame_ring ring;
    memset(&ring, 0, sizeof ring);
    uint8_t *plate_px = NULL; /* the background plate's copy */
    uint8_t *frame_px = NULL; /* without the ring: the frame drawn on (the reader's, copied) */
    uint8_t *bgr0_px = NULL;  /* the first tracked frame in BGR, when sent cards are looked for */
    int use_ring = cfg->threads != 1;
    clip_laps tm;
    lap_start(&tm);

    /* the automatic calibration (first frame at full size) in a thread of its own while
     * this one opens the video at the output size */
    auto_calib ac;
    memset(&ac, 0, sizeof ac);
    char calib_warn[600] = "";
    if (!c->calib && cfg->auto_calib) {
        ac.video = video;
        ac.started = pthread_create(&ac.th, NULL, auto_calib_main, &ac) == 0;
        if (!ac.started)
            auto_calib_main(&ac);
    }

    /* a damaged file still gives the frames that can be read (reported as a warning) */
    kr_media_reader_config rcfg;
    kr_media_reader_config_default(&rcfg);
    rcfg.keep_going = 1;
    rcfg.threads = cfg->threads;
    /* 4:2:0 frames: tracked, drawn on and encoded as planes (no BGR picture is made;
     * a source in another format comes as BGR and goes the BGR way) */
    rcfg.yuv = 1;
    kr_media_info_t info;
    /* output size: scaled down to max_h (decoder and scaler in one open; a source no
     * taller than max_h is reopened at its own size), even sizes for 4:2:0 */
    rcfg.out_h = cfg->max_h > 0 ? cfg->max_h & ~1 : 0;
    for (int pass = 0; pass < 2; pass++) {
        if (kr_media_reader_open2(video, &rcfg, &rd) != KR_OK) {
            st = set_err(c, KR_ERR_IO, "clip: %s", kr_media_reader_error(NULL));
            goto fail;
        }
        kr_media_reader_info(rd, &info);
        if (!rcfg.out_h || info.h >= rcfg.out_h)
            break;
        kr_media_reader_destroy(rd);
        rd = NULL;
        rcfg.out_h = 0;
    }
    int ow = info.out_w & ~1, oh = info.out_h & ~1;
    double dur = (double)info.duration_us / 1e6;
    if (at_us < 0 || (info.duration_us > 0 && at_us > info.duration_us)) {
        st = set_err(c, KR_ERR_INVALID, "clip: --at %.3f s is outside %s (0 to %.3f s)", (double)at_us / 1e6, video,
                     dur);
        goto fail;
    }
    int64_t start_us = at_us - cfg->before_us, end_us = at_us + cfg->after_us;
    if (start_us < 0)
        start_us = 0;
    if (info.duration_us > 0 && end_us > info.duration_us)
        end_us = info.duration_us;
    if (end_us <= start_us) {
        st = set_err(c, KR_ERR_INVALID, "clip: the window %.3f to %.3f s of %s holds no time", (double)start_us / 1e6,
                     (double)end_us / 1e6, video);
        goto fail;
    }
    if (c->calib && (c->calib->img_w != info.w || c->calib->img_h != info.h)) {
        st = set_err(c, KR_ERR_INVALID, "clip: the calibration is for %dx%d images, %s is %dx%d", (int)c->calib->img_w,
                     (int)c->calib->img_h, video, info.w, info.h);
        goto fail;
    }
    r = calloc(1, sizeof *r);
    png = cfg->sheet ? sheet_path(out_mp4) : NULL;
    size_t pn = png ? strlen(png) + 40 : 0;
    png_tmp = png ? malloc(pn) : NULL;
    if (!r || (cfg->sheet && (!png || !png_tmp || sheet_create(&sheet, ow, oh) != KR_OK))) {
        st = set_err(c, KR_ERR_NOMEM, "clip: out of memory");
        goto fail;
    }
    if (png)
        snprintf(png_tmp, pn, "%.*s.tmp.%ld.png", (int)(strlen(png) - 4), png, (long)getpid());
    r->c = c;
    r->ev = NULL;
    r->n_ev = c->ev ? kr_clip_events_contacts(c->ev, &r->ev) : 0;
    r->start_us = start_us;
    r->end_us = end_us;
    r->at_us = at_us;
    r->text_px = oh / 36.0 < 12 ? 12 : oh / 36.0;
    r->cv.patch_cap = (size_t)ow * (size_t)(4 * r->text_px + 64); /* a label's box */
    if (!(r->cv.patch = malloc(r->cv.patch_cap))) {
        st = set_err(c, KR_ERR_NOMEM, "clip: out of memory");
        goto fail;
    }
    r->thick = oh >= 900 ? 3 : 2;
    r->sx = (double)ow / info.w;
    r->sy = (double)oh / info.h;

    /* output rate: the source's nominal rate, slowed down; real times from the frames */
    double fps = info.fps > 0 ? info.fps : 30.0;
    int fps_den = 1000 * cfg->slow, fps_num = (int)lround(fps * 1000.0);
    kr_media_writer_config wcfg;
    kr_media_writer_config_default(&wcfg);
    wcfg.preset = cfg->preset;
    wcfg.crf = cfg->crf;
    wcfg.threads = cfg->threads;
    wcfg.gop_s10 = 10 * cfg->slow; /* a keyframe every source second: quick seeking in the browser */
    if ((st = kr_media_writer_create2(out_mp4, ow, oh, fps_num, fps_den, &wcfg, &wr)) != KR_OK) {
        set_err(c, st, "clip: %s", kr_media_writer_error(NULL));
        goto fail;
    }

    /* Tracking (card and hand outlines) runs from warmup_us before the window when there
     * is a layout and a calibration: the automatic one is still being made, so this is
     * decided as if it will succeed (if it fails, the warm-up frames are only skipped). */
    /* A recorded run that covers the window (review: what analyze tracked) is drawn
     * from instead: no tracker, no warm-up, no background plate. */
    if (cfg->track && c->calib && c->tracks && kr_clip_tracks_covers(c->tracks, start_us, end_us)) {
        r->tracks = c->tracks;
        kr_clip_tracks_mat(r->tracks, &r->mat_w, &r->mat_h, &r->mx0, &r->my0, &r->ms);
        if (!(r->cls_px = malloc((size_t)r->mat_w * r->mat_h + 1))) {
            st = set_err(c, KR_ERR_NOMEM, "clip: out of memory");
            goto fail;
        }
    }
    int want_track = cfg->track && !r->tracks && c->ev && c->ev->n_cards > 0 &&
                     (c->calib || (cfg->auto_calib && (ac.started || ac.calib)));
    int64_t read_from = start_us;
    if (want_track)
        read_from = start_us - cfg->warmup_us < 0 ? 0 : start_us - cfg->warmup_us;
    kr_frame_t f;
    memset(&f, 0, sizeof f);
    kr_status rs = KR_OK;
    int held = 0; /* f holds the first frame to process (read, not yet processed) */
    if (!use_ring && !(frame_px = malloc((size_t)ow * oh * 3))) {
        st = set_err(c, KR_ERR_NOMEM, "clip: out of memory");
        goto fail;
    }
    if (want_track) {
        /* Background plate: a window mid-match often starts with an arm over the mat,
         * which a background learnt from it would keep as a ghost. So the tracker first
         * sees the video's first frame (the laid-out field, as analyze and the calibration
         * see it) PLATE_FRAMES times, then the window's first frame, which gets
         * 1/(PLATE_FRAMES+1) of the background and gives the cards their rest appearance
         * and contrast. The reader has just been opened: its next frame is the first,
         * without a seek; it is copied (the reader's planes change with the next frame). */
        if ((rs = kr_media_reader_next(rd, &f)) != KR_OK) {
            st = set_err(c, KR_ERR_FORMAT, "clip: %s", kr_media_reader_error(rd));
            goto fail;
        }
        if (!(plate_px = malloc((size_t)ow * oh * 3))) {
            st = set_err(c, KR_ERR_NOMEM, "clip: out of memory");
            goto fail;
        }
        frame_copy(&f, ow, oh, plate_px, &r->plate);
        held = f.t_us >= read_from; /* a window from the start: no seek */
    }
    if (!held && read_from > 0 && kr_media_reader_seek(rd, read_from) != KR_OK) {
        st = set_err(c, KR_ERR_FORMAT, "clip: %s", kr_media_reader_error(rd));
        goto fail;
    }
    lap(&tm, KR_CLIP_PH_SEEK);
    if (use_ring) { /* decoding and encoding threads from here (the held frame first), so
                     * decoding overlaps the calibration's end and the tracker's start */
        if ((st = ring_start(&ring, rd, wr, ow, oh, end_us, held ? &f : NULL)) != KR_OK) {
            set_err(c, st, "clip: cannot start the decoding and encoding threads");
            goto fail;
        }
        held = 0;
    }

    const kr_calib_t *calib = c->calib;
    if (ac.started) { /* the automatic calibration, made meanwhile */
        pthread_join(ac.th, NULL);
        ac.started = 0;
    }
    if (!c->calib && cfg->auto_calib) {
        calib = ac.calib;
        if (!calib)
            snprintf(calib_warn, sizeof calib_warn, "clip: %s: the clip has no lines or outlines (give --calib)",
                     ac.err);
    }
    if (calib && (calib->img_w != info.w || calib->img_h != info.h)) {
        st = set_err(c, KR_ERR_INVALID, "clip: the calibration is for %dx%d images, %s is %dx%d", (int)calib->img_w,
                     (int)calib->img_h, video, info.w, info.h);
        goto fail;
    }
    r->calib = calib;
    if (calib)
        build_lines(r);
    lap(&tm, KR_CLIP_PH_OPEN);

    /* the tracker, with the cards as they lie at read_from */
    kr_track_card_init ci[KR_CLIP_MAX_CARD];
    int sent[KR_CLIP_MAX_CARD], n_ci = 0;
    if (want_track && calib) {
        kr_track_config tcfg;
        kr_track_config_default(&tcfg);
        tcfg.warmup_frames = PLATE_FRAMES + 1;
        st = kr_track_create(&tcfg, map_track, r, ow, oh, &r->trk);
        if (st != KR_OK) {
            set_err(c, st, "clip: cannot start the tracker: %s", kr_status_str(st));
            goto fail;
        }
        n_ci = layout_at(c->ev, read_from, ci, sent);
        if (kr_track_set_layout(r->trk, ci, n_ci) != KR_OK) {
            st = set_err(c, KR_ERR_INVALID, "clip: tracker: %s", kr_track_last_error(r->trk));
            goto fail;
        }
        for (int k = 0; k < PLATE_FRAMES; k++)
            if (canvas_track(r->trk, &r->plate, read_from - (PLATE_FRAMES - k) * 1000 - 1000000, 0, &r->tf) !=
                KR_OK) {
                st = set_err(c, KR_ERR_INVALID, "clip: tracker: %s", kr_track_last_error(r->trk));
                goto fail;
            }
    }
    lap(&tm, KR_CLIP_PH_TRACK_START);
    /* the first frame to track, taken here (into r->cv) for the sent cards' places */
    int pre = 0;
    if (r->trk) {
        if (use_ring) {
            pre = ring_take(&ring, &r->cv, &f);
        } else {
            if (!held && (rs = kr_media_reader_next(rd, &f)) != KR_OK && rs != KR_ERR_EOF) {
                st = set_err(c, rs, "clip: %s", kr_media_reader_error(rd));
                goto fail;
            }
            pre = held || rs == KR_OK;
            if (pre)
                frame_copy(&f, ow, oh, frame_px, &r->cv);
            held = 0;
        }
        lap(&tm, KR_CLIP_PH_DECODE);
        int any_sent = 0;
        for (int k = 0; k < n_ci; k++)
            any_sent |= sent[k] >= 0;
        if (any_sent && !c->model_tried) { /* the card model, once, only when needed */
            char merr[256];
            c->model_tried = 1;
            if (kr_recog_model_load(kr_recog_default_model(), &c->model, merr, sizeof merr) != KR_OK)
                c->model = NULL; /* sent cards are then not placed (left out, not guessed) */
        }
        if (pre && any_sent && c->model) {
            kr_image_t img0 = r->cv.bgr;
            if (r->cv.yuv) { /* the outlines are read on a BGR picture */
                if (!(bgr0_px = malloc((size_t)ow * oh * 3))) {
                    st = set_err(c, KR_ERR_NOMEM, "clip: out of memory");
                    goto fail;
                }
                img0 = (kr_image_t){ow, oh, ow * 3, 3, bgr0_px};
                planes_to_bgr(&r->cv.pl[0], &r->cv.pl[1], &r->cv.pl[2], &r->cv.view, &img0);
            }
            if (place_sent(r, &img0, ci, sent, n_ci, res) > 0 && kr_track_set_layout(r->trk, ci, n_ci) != KR_OK) {
                st = set_err(c, KR_ERR_INVALID, "clip: tracker: %s", kr_track_last_error(r->trk));
                goto fail;
            }
        }
        lap(&tm, KR_CLIP_PH_TRACK_START);
    }
    int tracked_first = 0;
    int64_t first_us = -1, last_us = -1, prev_us = start_us - 1, n_frames = 0, n_dec = 0;
    rs = KR_OK;
    for (;;) {
        clip_canvas *cv = &r->cv; /* the picture that is tracked, drawn and encoded */
        clip_canvas *tv = cv;     /* the picture tracked: a warm-up frame is not copied */
        if (pre) {
            pre = 0;
        } else if (use_ring) {
            if (!ring_take(&ring, cv, &f))
                break;
        } else {
            if (!held && (rs = kr_media_reader_next(rd, &f)) != KR_OK)
                break;
            held = 0;
            if (f.t_us < start_us) { /* warm-up: tracked on the reader's picture */
                tv = &r->warm;
                if (f.yuv.y) {
                    tv->yuv = 1;
                    tv->view = f.yuv;
                    tv->view.w = ow;
                    tv->view.h = oh;
                } else {
                    kr_image_t im = f.img;
                    im.w = ow;
                    im.h = oh;
                    canvas_bgr(tv, &im);
                }
            } else {
                frame_copy(&f, ow, oh, frame_px, cv);
            }
        }
        lap(&tm, KR_CLIP_PH_DECODE);
        n_dec++;
        if (f.t_us >= end_us && !(end_us == info.duration_us && n_frames == 0)) {
            if (use_ring)
                ring_done(&ring, -1);
            break;
        }
        if (r->tracks) /* the recorded frame (the last one at or before this frame) */
            r->tf = kr_clip_tracks_get(r->tracks, f.t_us, &r->sfr, r->scards, r->cls_px) ? &r->sfr : NULL;
        if (r->trk && canvas_track(r->trk, tv, f.t_us, f.gap_us, &r->tf) != KR_OK) {
            st = set_err(c, KR_ERR_INVALID, "clip: tracker at %.3f s: %s", (double)f.t_us / 1e6,
                         kr_track_last_error(r->trk));
            goto fail;
        }
        if (r->trk) {
            lap(&tm, !tracked_first && r->tf && r->tf->ready ? KR_CLIP_PH_TRACK_FIRST : KR_CLIP_PH_TRACK);
            tracked_first |= r->tf && r->tf->ready;
        }
        if (f.t_us < start_us) { /* warm-up: tracked, not shown */
            if (use_ring)
                ring_done(&ring, -1);
            continue;
        }
        if (first_us < 0) {
            first_us = f.t_us;
            prev_us = f.t_us - (int64_t)(1e6 / fps); /* contacts just before the first frame */
        }
        if (calib)
            draw_scene(r, cv);
        draw_card_marks(r, cv, f.t_us, prev_us);
        if (res && f.t_us >= at_us && prev_us < at_us)
            res->cards_drawn = r->cards_drawn;
        lap(&tm, KR_CLIP_PH_DRAW);
        /* only frames that can still be among the 4 before --at are shrunk (VFR margin) */
        if (cfg->sheet && (f.t_us >= at_us || at_us - f.t_us <= (int64_t)(8 * 1e6 / fps))) {
            sheet_offer(&sheet, cv, f.t_us, prev_us, at_us);
            lap(&tm, KR_CLIP_PH_SHEET);
        }
        draw_builtin(r, cv, f.t_us, prev_us, f.index);
        lap(&tm, KR_CLIP_PH_DRAW);
        int64_t pts = (f.t_us - first_us) * cfg->slow;
        if (use_ring)
            ring_done(&ring, pts);
        else if ((cv->yuv ? kr_media_writer_write_yuv(wr, &cv->view, pts) : kr_media_writer_write(wr, &cv->bgr, pts)) !=
                 KR_OK) {
            st = set_err(c, KR_ERR_IO, "clip: %s", kr_media_writer_error(wr));
            goto fail;
        }
        lap(&tm, KR_CLIP_PH_ENCODE);
        prev_us = f.t_us;
        last_us = f.t_us;
        n_frames++;
    }
    lap(&tm, KR_CLIP_PH_DECODE);
    if (use_ring) {
        ring_stop_decoding(&ring); /* the reader is the calling thread's again */
        rs = ring.dec_status;
    }
    if (rs != KR_OK && rs != KR_ERR_EOF) {
        st = set_err(c, rs, "clip: %s", kr_media_reader_error(rd));
        goto fail;
    }
    if (n_frames == 0) {
        st = set_err(c, KR_ERR_INVALID, "clip: no frame of %s lies in %.3f to %.3f s", video, (double)start_us / 1e6,
                     (double)end_us / 1e6);
        goto fail;
    }
    /* sheet first (to a temporary, while the encoder thread finishes its last frames),
     * then the MP4 appears, then the sheet */
    if (cfg->sheet) {
        sheet_compose(&sheet, r);
        if (kr_cv_write_image(png_tmp, &sheet.img) != KR_OK) {
            st = set_err(c, KR_ERR_IO, "clip: cannot write %s: %s", png, kr_cv_last_error());
            remove(png_tmp);
            goto fail;
        }
        lap(&tm, KR_CLIP_PH_SHEET);
    }
    if (ring_finish(&ring)) {
        st = set_err(c, KR_ERR_IO, "clip: %s", kr_media_writer_error(wr));
        if (png_tmp)
            remove(png_tmp);
        goto fail;
    }
    lap(&tm, KR_CLIP_PH_ENCODE);
    if ((st = kr_media_writer_close(wr)) != KR_OK) {
        set_err(c, st, "clip: %s", kr_media_writer_error(wr));
        if (png_tmp)
            remove(png_tmp);
        goto fail;
    }
    mp4_done = 1;
    if (cfg->sheet && rename(png_tmp, png) != 0) {
        st = set_err(c, KR_ERR_IO, "clip: cannot write %s: %s", png, strerror(errno));
        remove(png_tmp);
        goto fail;
    }
    if (res) {
        res->first_us = first_us;
        res->last_us = last_us;
        res->n_frames = n_frames;
        res->n_decoded = n_dec;
        res->out_fps = (double)fps_num / fps_den;
        res->out_w = ow;
        res->out_h = oh;
        res->tracked = r->trk != NULL || r->tracks != NULL;
        res->from_tracks = r->tracks != NULL;
        lap(&tm, KR_CLIP_PH_CLOSE);
        memcpy(res->phase_us, tm.w, sizeof tm.w);
        memcpy(res->phase_cpu_us, tm.c, sizeof tm.c);
        res->encoder_cpu_us = ring.enc_cpu_us;
        res->decoder_cpu_us = ring.dec_cpu_us;
    }
    if (kr_media_reader_damage(rd) > 0) /* a warning: the clip is written */
        set_err(c, KR_OK, "clip: %s (the clip shows the frames that could be read)", kr_media_reader_error(rd));
    else if (calib_warn[0])
        set_err(c, KR_OK, "%s", calib_warn);
    if (res)
        res->calibrated = calib != NULL;

fail:
    if (ac.started)
        pthread_join(ac.th, NULL);
    kr_calib_destroy(ac.calib);
    ring_free(&ring); /* before the reader and writer it uses */
    free(plate_px);
    free(frame_px);
    free(bgr0_px);
    if (st != KR_OK && mp4_done)
        remove(out_mp4);
    kr_media_writer_destroy(wr); /* removes the temporary MP4 unless closed */
    kr_media_reader_destroy(rd);
    if (r) {
        kr_track_destroy(r->trk);
        free(r->cls_px);
        free(r->cv.patch);
    }
    free(r);
    sheet_destroy(&sheet);
    free(png);
    free(png_tmp);
    return st;
}

kr_status kr_clip_calib_auto(const char *video, kr_calib_t **out, char *err, size_t cap)
{
    if (!out || !video)
        return KR_ERR_INVALID;
    *out = NULL;
    kr_media_reader_t *rd = NULL;
    kr_media_reader_config rcfg; /* one frame: no decoder threads to start */
    kr_media_reader_config_default(&rcfg);
    rcfg.threads = 1;
    kr_status st = kr_media_reader_open2(video, &rcfg, &rd);
    if (st != KR_OK)
        return kr_error_set(err, cap, st, "%s", kr_media_reader_error(NULL));
    kr_frame_t f0;
    st = kr_media_reader_next(rd, &f0);
    if (st != KR_OK) {
        kr_error_set(err, cap, st == KR_ERR_EOF ? KR_ERR_FORMAT : st, "%s: no frame to calibrate from: %s", video,
                     kr_media_reader_error(rd));
        st = st == KR_ERR_EOF ? KR_ERR_FORMAT : st;
    } else {
        kr_calib_config ccfg;
        kr_calib_config_default(&ccfg);
        st = kr_calib_create_from_frame(&ccfg, &f0.img, f0.t_us, out);
        if (st != KR_OK)
            kr_error_set(err, cap, st, "%s: cannot calibrate from the first frame: %s", video, kr_calib_error());
    }
    kr_media_reader_destroy(rd);
    return st;
}
