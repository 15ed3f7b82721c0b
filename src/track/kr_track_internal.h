/* kr_track_internal.h - tracker state shared by kr_track*.c files (not public).
 * SPDX-License-Identifier: MIT */
#ifndef KR_TRACK_INTERNAL_H
#define KR_TRACK_INTERNAL_H
#include "kr_track.h"

#include <math.h>

#define KR_TRACK_MAX_COMPS 4096

/* Mat pixel classes (t->cls). JOIN is background whose colour moved less than foreground's
 * but more than noise: it joins a piece no arm owns to the arm it touches (pale skin over
 * pale tatami: kr_track_update.c, join_pieces) and is never a hand's pixel; it stays JOIN
 * where it joins an arm (and is learned as slowly as the arm), background elsewhere. */
enum { KR_CLS_BG = 0, KR_CLS_HAND_A = 1, KR_CLS_HAND_B = 2, KR_CLS_OTHER = 3, KR_CLS_SHADOW = 4,
       KR_CLS_FG = 5, KR_CLS_CARDLIKE = 6, KR_CLS_JOIN = 7, KR_CLS_OUT = 255 };

typedef struct kr_track_comp {
    int    area;
    int    zone_a, zone_b;     /* pixels in A's / B's entry band */
    double sum_u, sum_v;       /* sums of pixel coordinates */
    double za_u, za_v, zb_u, zb_v; /* sums over the entry-band pixels */
    int    u0, v0, u1, v1;     /* bounding box (mat px) */
    int    owner;              /* -1 none, 0 A, 1 B, 2 both (contact) */
    double still_sum;          /* sum of the pixels' unchanged-frame counts */
} kr_track_comp;

typedef struct kr_track_cstate {
    int32_t *fp;       /* footprint mat pixel indices (owned) */
    uint8_t *tmpl;     /* rest appearance of fp (BGR, owned) */
    int      n_fp, cap_fp;
    double   fp_x, fp_y; /* centre the footprint was built at */
    int      still_frames; /* consecutive frames found still since displacement */
    double   last_x, last_y;
    double   vx, vy;   /* mm/s while displaced */
    int64_t  last_t;
    int      misses;   /* consecutive frames a displaced card was not found */
    double   last_a;   /* angle (degrees) at the last sighting */
    int      hint;     /* 1: first look after displacement, also try the hand's velocity */
    double   hvx, hvy; /* that hand's velocity (mm/s) */
    /* the leading-edge measure beyond the warped area (kr_track_card.edge_*), seventh session */
    int64_t  disp_t;   /* when it was seen displaced */
    int64_t  in_place_t; /* the frame before that (last seen lying in place), 0 none */
    double   ux, uy;   /* unit direction of its motion from rest (0, 0: not known yet) */
    double   ex, ey;   /* its centre last measured (followed or by the edge), mm */
    int64_t  et;       /* ... at this time; 0 none */
    double   evx, evy; /* velocity for the next edge search (mm/s) */
    int      en;       /* 2: that velocity is from two measured centres, 1: a guess */
    int      blind;    /* 1: follow it this once as not seen (its evidence is another card's) */
} kr_track_cstate;

/* The camera frame of one update: a BGR view or YUV 4:2:0 planes (exactly one is set).
 * YUV pixels are converted to BGR only where read, with swscale's integer formula. */
typedef struct kr_track_src {
    const kr_image_t *bgr; /* borrowed for the update; NULL for YUV */
    const kr_yuv_t   *yuv; /* borrowed for the update; NULL for BGR */
    const int32_t    *tab; /* 5 x 256 terms: Y, V->R, U->G, V->G, U->B; owned by the tracker */
} kr_track_src;

#define KR_TRACK_LIGHT_BANDS 12 /* bands of camera rows the light's level is measured in */
#define KR_TRACK_NOISE_N 9      /* frames whose still picture's noise noise_floor takes the median of */

#define KR_TRACK_HV_N 16 /* hand velocities kept (kr_track.hv) */

struct kr_track {
    kr_track_config cfg;
    char     err[256];
    int      fw, fh;         /* camera frame size */
    int      w, h, n;        /* mat image size, pixel count */
    double   x0_mm, y0_mm;   /* mm of the mat image's top-left corner (u = 0, v = 0) */
    int32_t *lut_off;        /* n: camera pixel offset of the top-left tap, -1 = outside */
    uint16_t *lut_w;         /* 4n bilinear weights, sum 256 */
    float   *camxy;          /* 2n: camera px (x, y) of each mat pixel centre, -1 outside (pose fits) */
    uint8_t *mat;            /* 3n current warped image */
    uint8_t *prev;           /* 3n previous warped image */
    float   *bg;             /* 3n background */
    uint8_t *cls;            /* n classes */
    uint8_t *raw;            /* n: the colour test's class (BG, SHADOW, FG) when last computed */
    uint8_t *learned;        /* n: 1 where non-hand foreground other than shadow was taken into
                                the background: bare mat there later is a ghost */
    uint8_t *rowfg;          /* h: 1 where a row has foreground this frame (labelling skips the rest) */
    uint8_t *yuv_prev;       /* 3n: the Y, U, V each mat pixel was converted from last frame */
    int      yuv_prev_key;   /* -1: yuv_prev not valid for this frame's gather, else yuv_key */
    double   g_prev;         /* last frame's global gain */
    unsigned light_step_q;   /* this frame's gain over the last's, x 4096 (forty-fourth session: the tip
                                changes compare this frame with the last one lit as this one) */
    double   period_acc;     /* smoothed frame period x 60 */
    double   fscale;         /* frame period x 60 (1 at 60 fps, 0.5 at 120), from the frame times;
                                exactly 1 within 2 % of 60 fps */
    double   sb_next;        /* background B+G+R summed over the gain's sample for the next frame */
    long     n_edge_scores;  /* pose-fit edge scores computed so far (cost statistic, tests) */
    int      plain;          /* 1: the per-pixel loops one pixel at a time, the start-up fit on the
                                calling thread only (tests compare the two ways) */
    uint16_t *still;         /* n frames each pixel has been unchanged */
    uint8_t *zone;           /* n: 1 A entry band, 2 B entry band */
    uint8_t *fpmask;         /* n: 1 inside some card's rest footprint */
    int32_t *label;          /* n component labels */
    int32_t *parent;         /* union-find */
    kr_track_comp *comp;     /* KR_TRACK_MAX_COMPS */
    int      n_comp;
    int      min_area_px;
    int64_t  frames;
    int64_t  last_t;
    int      cards_ready;
    int      n_cards;
    kr_track_cstate cs[KR_TRACK_MAX_CARDS];
    kr_track_card   cards[KR_TRACK_MAX_CARDS];
    kr_track_cstate saved_cs[KR_TRACK_MAX_CARDS];  /* displaced cards before this frame's follow (untangle) */
    kr_track_card   saved_cards[KR_TRACK_MAX_CARDS];
    kr_track_frame  fr;
    kr_track_hand   prev_hand[2];
    int             attached_last[2]; /* each arm attached to its player's edge on the last frame */
    int64_t         attached_t[2];    /* ... the last frame it was (INT64_MIN never) */
    int             cut_last[2];      /* a piece cut off from each arm was kept as its hand on the last
                                         frame, ... */
    double          cut_u[2], cut_v[2]; /* ... its centroid (mat pixels) */
    /* each hand's leading point's velocity on its last hv_n frames present, at most
     * KR_TRACK_HV_N (t_us, vx, vy; the newest at hv_head - 1, circular; hv_n 0 once the
     * hand was absent): the velocity that set a swept card going (kr_track_cards.c) */
    double          hv[2][KR_TRACK_HV_N][3];
    int             hv_head[2], hv_n[2];
    double   card_rgb[3], mat_rgb[3]; /* reference colours at start */
    int32_t  yuv_tab[5][256]; /* YUV->BGR terms for the matrix/range in yuv_key */
    int      yuv_key;        /* -1 none yet, else full_range * 2 + bt709 */
    uint8_t *ovl;            /* overlay buffer (debug) */
    size_t   ovl_cap;
    /* added in the seventh session (races): each hand followed through a contact. 2n bytes,
     * two maps of n: the hand each mat pixel belonged to on the last frame and on this one
     * (0 none, 1 A, 2 B); hand_cur (0 or 1) is the index of this frame's map. Owned. */
    uint8_t *hmap;
    int      hand_cur;
    /* added in the twenty-third session: each hand's colour around its leading point (mean
     * B, G, R), learned while it touches no other hand; skin_ok[p] once learned */
    double   skin[2][3];
    int      skin_ok[2];
    /* added in the twenty-eighth session: the light's fast swing (mains flicker) taken out of
     * the mat image (kr_track_update.c, light_steady). row_gain: fh factors (x 4096), one per
     * camera row, owned; light_ref the light's steady level (gain, smoothed); light_swing
     * the median of the bands' squared shares off it (the mean until the forty-third
     * session), smoothed; light_on while compensating */
    uint16_t *row_gain;
    uint8_t  *row_band;       /* fh: each camera row's band of KR_TRACK_LIGHT_BANDS, owned (29th session) */
    /* added in the forty-third session: the mat's in-view pixels in runs of consecutive ones
     * gathered from one camera row (light_steady scales a run by its row's factor in one
     * pass the compiler vectorises): run_start (first mat pixel), run_len and run_row, n_runs
     * of each, owned */
    int32_t  *run_start, *run_len;
    uint16_t *run_row;
    int       n_runs;
    double   light_band[KR_TRACK_LIGHT_BANDS]; /* the bands' levels on the last frame, 0 unmeasured */
    double   light_codec;     /* per-pixel change of the codec's redraw of a light step, a share
                                 of B+G+R (0 unless compensating) */
    double   light_ref;
    double   light_swing;
    /* added in the forty-eighth session: the sensor's per-pixel noise level (frame_noise):
     * TIP_CHANGE_NOISE, or more where the whole mat's still picture changes by more over
     * the last frames; noise_q: those frames' quantiles, noise_n of them, a ring whose next
     * slot is noise_head */
    int      noise_floor;
    int      noise_q[KR_TRACK_NOISE_N], noise_head, noise_n;
    int      light_on;
    /* added in the thirty-sixth session: light sleeves (kr_track_cards.c, find_sleeves).
     * sleeve: n, 1 where card-like foreground reaches a player's entry band through card-like
     * pixels over more than a card and a half (an arm's sleeve, no card); valid on frames
     * with sleeve_ok. sleeve_q: n, the fill's queue, its first sleeve_nq the pixels the last
     * fill reached (cleared by the next). zone_px: the n_zone_px pixels of the entry bands.
     * All owned. */
    uint8_t *sleeve;
    int32_t *sleeve_q;
    int      sleeve_nq;
    int      sleeve_ok;
    int32_t *zone_px;
    int      n_zone_px;
};

/* Mat point (mm) to mat pixel coordinates: kr_track_mm_to_mat's arithmetic, inline for the
 * pose fits' many samples (kr_track_mm_to_mat calls it). */
static inline void kr_track_mm_to_mat_(const kr_track_t *t, double x_mm, double y_mm, double *u, double *v)
{
    *u = (x_mm - t->x0_mm) / t->cfg.mm_per_px;
    *v = (t->y0_mm - y_mm) / t->cfg.mm_per_px;
}

/* The number of frames spanning n60 frame times of 60 fps footage (n60 / 60 s) at this
 * tracker's frame rate, at least 1: the frame-count thresholds were tuned at 60 fps and
 * are times. */
static inline int kr_track_nframes_(const kr_track_t *t, double n60)
{
    double n = n60 / t->fscale;
    return n < 1 ? 1 : (int)(n + 0.5);
}

/* Mat pixel (u, v) lies in the warped area and in the camera's view. */
static inline int kr_track_px_in_view_(const kr_track_t *t, int u, int v)
{
    return u >= 0 && v >= 0 && u < t->w && v < t->h && t->lut_off[(size_t)v * t->w + u] >= 0;
}

/* Sets c->corners_mm from its centre and angle: the 52 x 73 mm outline rotated by
 * angle_deg counter-clockwise, corners counter-clockwise from the lower left. */
static inline void kr_track_card_outline_(kr_track_card *c)
{
    double hx = KR_TRACK_CARD_W_MM / 2, hy = KR_TRACK_CARD_H_MM / 2;
    double d[4][2] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
    double a = c->angle_deg * 0.017453292519943295, ca = cos(a), sa = sin(a);
    for (int k = 0; k < 4; k++) {
        c->corners_mm[k][0] = c->x_mm + ca * d[k][0] - sa * d[k][1];
        c->corners_mm[k][1] = c->y_mm + sa * d[k][0] + ca * d[k][1];
    }
}

/* Colour test shared by background and card templates: 0 same, 1 shadow, 2 different.
 * Brightness ratio a of I to the reference R, colour distortion |I - aR| / |R|; with
 * d = I.R and rr = R.R: a = d / rr and |I - aR|^2 / rr = (|I|^2 rr - d^2) / rr^2, so every
 * test is multiplied out and needs no division. */
static inline int kr_track_compare_px_(const kr_track_config *cfg, const uint8_t *I, float r0, float r1, float r2)
{
    float i0 = I[0], i1 = I[1], i2 = I[2];
    float rr = r0 * r0 + r1 * r1 + r2 * r2 + 1.0f;
    float d = i0 * r0 + i1 * r1 + i2 * r2;
    float ii = i0 * i0 + i1 * i1 + i2 * i2;
    float ct = (float)cfg->chroma_thresh;
    ct = i0 + i1 + i2 < 150 ? ct * 1.6f : ct; /* dark pixels carry little colour: widen the chroma test */
    /* without branches (a pixel's outcome is unpredictable): bit operations on the tests */
    int fg = (ii * rr - d * d > ct * ct * rr * rr) | (d > (float)cfg->bright_hi * rr) |
             (d < (float)cfg->shadow_lo * rr);
    int sh = d < (float)cfg->shadow_hi * rr;
    return fg ? 2 : sh;
}

/* Is I close in colour to reference ref scaled by gain g (normalised chroma within
 * ctol, brightness within [lo, hi] of the reference)? */
static inline int kr_track_near_colour_(const uint8_t *I, const double *ref, double g, double lo, double hi,
                                        double ctol)
{
    double s = I[0] + I[1] + I[2] + 1.0, rs = (ref[0] + ref[1] + ref[2]) * g + 1.0;
    if (s < lo * rs || s > hi * rs)
        return 0;
    double d = 0;
    for (int c = 0; c < 3; c++) {
        double e = I[c] / s - ref[c] * g / rs;
        d += e * e;
    }
    return d < ctol * ctol;
}

/* Is I card-coloured (the reference card colour at gain g): the colour test of the card-like
 * class (kr_track_update.c) and of a card found again by its colour (kr_track_cards.c). */
static inline int kr_track_card_coloured_(const kr_track_t *t, const uint8_t *I, double g)
{
    return kr_track_near_colour_(I, t->card_rgb, g, 0.80, 1.25, 0.035);
}

/* BGR of one Y, U, V sample into d[0..2] (the tables of kr_track_src). kr_track_yuv_px_:
 * of YUV pixel (x, y) (inside the picture), with the chroma of its 2x2 block (4:2:0, no
 * chroma interpolation, as swscale's unscaled converter). */
static inline void kr_track_yuv_conv_(const kr_track_src *s, int Y, int U, int V, uint8_t *d)
{
    const int32_t *T = s->tab;
    int32_t ty = T[Y];
    int32_t b = ty + T[4 * 256 + U], g = ty + T[2 * 256 + U] + T[3 * 256 + V], r = ty + T[256 + V];
    d[0] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
    d[1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
    d[2] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
}

static inline void kr_track_yuv_px_(const kr_track_src *s, int x, int y, uint8_t *d)
{
    const kr_yuv_t *f = s->yuv;
    size_t co = (size_t)(y >> 1) * f->stride_c + (x >> 1);
    kr_track_yuv_conv_(s, f->y[(size_t)y * f->stride_y + x], f->u[co], f->v[co], d);
}

/* kr_track_cards.c: card pose fitting, rest footprints and the card follower. */
void kr_track_cards_start_(kr_track_t *t, const kr_track_src *frame);
void kr_track_cards_update_(kr_track_t *t, const kr_track_src *frame, double g, int64_t t_us);
/* The way hand p was going when it struck a card last seen lying there at since_us, from
 * its velocities kept in t->hv; *vx, *vy: this frame's velocity in, the way out
 * (kr_track_cards.c) */
void kr_track_hand_way_(const kr_track_t *t, int p, int64_t since_us, double *vx, double *vy);
/* The pose of a card come to rest near (*x, *y) (within r_xy mm, searched further when the
 * best lies on that square's border) at any angle, fitted on frame f: *x, *y (mm), *a
 * (degrees) in and out; returns its edge score (kr_track_cards.c) */
double kr_track_fit_pose_wide_(kr_track_t *t, const kr_track_src *f, double *x, double *y, double *a, double r_xy);

#endif /* KR_TRACK_INTERNAL_H */
