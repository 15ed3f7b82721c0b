/* kr_track.h - per-frame tracking of cards and hands in a top-down mat image.
 * Camera frames are warped once per frame (precomputed gather table) into a small
 * mat-space image; an adaptive background gives hands, shadows and card motion.
 * SPDX-License-Identifier: MIT                                                  */
#ifndef KR_TRACK_H
#define KR_TRACK_H
#include "kr_core.h" /* kr_status, kr_image_t */

#include <stdint.h>
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started:
 *   kr_track_config cfg; kr_track_config_default(&cfg);
 *   kr_track_create(&cfg, mm_to_px, ctx, frame_w, frame_h, &t)   builds the gather table once
 *   kr_track_set_layout(t, cards, n)                             cards from the match log
 *   per frame: kr_track_update(t, &bgr_frame, t_us, gap_us, &fr)  fr owned by t
 *          or: kr_track_update_yuv(t, &yuv_planes, t_us, gap_us, &fr)   (decoded 4:2:0, no BGR copy)
 *   kr_track_draw_overlay(t, fr, scale, &img)                     optional debug picture
 *   kr_track_destroy(t)
 * All positions in the results are mat millimetres (geometry.md): origin at the field
 * centre, +x to A's right, +y from A towards B. Pixels stay inside. Not thread-safe
 * per object; distinct objects may run in distinct threads. */

#define KR_TRACK_FIELD_HALF_W_MM 435.0 /* field: x in [-435, 435] */
#define KR_TRACK_FIELD_HALF_H_MM 254.0 /* field: y in [-254, 254] */
#define KR_TRACK_CARD_W_MM 52.0        /* card width along x (portrait) */
#define KR_TRACK_CARD_H_MM 73.0        /* card depth along y */
#define KR_TRACK_MAX_CARDS 128
#define KR_TRACK_NOISE_CLEAN 6         /* kr_track_frame.noise_floor on clean footage */

/* How far (mm) a card's whole outline lies beyond the field lines: centre (x_mm, y_mm),
 * turned angle_deg; > 0 when every corner is past the nearest line's far side (the card is
 * wholly out, geometry.md), else <= 0. A turned card reaches further along each axis
 * (half width |cos| + half depth |sin|): a swept card turned 10 degrees is wholly out 5.9 mm
 * later than an upright one. */
double kr_track_out_over(double x_mm, double y_mm, double angle_deg);

typedef struct kr_track_config {
    double mm_per_px;   /* mat image resolution, mm per mat pixel; default 3.0 (range 1..8) */
    double margin_x_mm; /* area beyond the field's left/right edges warped, mm; default 90 */
    double margin_y_mm; /* area behind each player's edge warped, mm; default 150 */
    double bg_rate;     /* background adaptation per frame where nothing moves (0..1); default 0.03 */
    int    warmup_frames; /* frames used to settle the background before results; default 3 */
    double chroma_thresh; /* normalised colour distortion above which a pixel is foreground; default 0.11 */
    double chroma_join; /* weaker distortion (below chroma_thresh) that joins foreground pieces into one
                         * arm without being hand itself: skin over pale tatami; default 0.07, 0 off */
    double bright_hi;   /* brightness ratio above which a pixel is foreground (brighter); default 1.30 */
    double shadow_lo;   /* brightness ratio range of a shadow: [shadow_lo, shadow_hi); defaults 0.35, 0.86 */
    double shadow_hi;
    double min_hand_area_mm2; /* smaller foreground components are noise, mm^2; default 250 */
    double card_change_frac;  /* share of a card's visible pixels changed => card moved; default 0.30 */
    int    bilinear;          /* 1: bilinear sampling of the camera frame; 0: nearest (faster); default 0 */
} kr_track_config;

void kr_track_config_default(kr_track_config *cfg);

/* Maps a mat point (mm) to the camera's raw image (px, with lens distortion). Returns 0
 * on success, non-zero when the point has no image (behind the camera). Called only from
 * kr_track_create(), never per frame. */
typedef int (*kr_track_map_fn)(void *ctx, double x_mm, double y_mm, double *px, double *py);

typedef enum { KR_TRACK_A = 0, KR_TRACK_B = 1 } kr_track_player;

/* A card as the match log's layout gives it. */
typedef struct kr_track_card_init {
    int    id;      /* poem number 1..100 */
    int    owner;   /* KR_TRACK_A or KR_TRACK_B */
    double x_mm, y_mm; /* centre */
} kr_track_card_init;

typedef struct kr_track_card {
    int     id, owner;
    double  x_mm, y_mm;       /* current best centre estimate (mm) */
    double  corners_mm[4][2]; /* current outline, counter-clockwise (mm) */
    double  rest_x_mm, rest_y_mm; /* centre where it last lay still (mm) */
    double  moved_mm;         /* displacement of the centre from rest (mm) */
    double  change;           /* share of its visible rest pixels that no longer look like it (0..1) */
    double  visible;          /* share of its rest footprint not covered by a hand (0..1) */
    double  hand_cover[2];    /* share of its footprint covered by A's / B's hand (0..1) */
    double  shadow_cover;     /* share of its footprint in shadow (0..1) */
    int     moving;           /* 1 while it differs from its rest appearance */
    int     occluded;         /* 1 when too little of it is visible to judge */
    int     displaced;        /* 1 once it has left its rest footprint (latched until re-rest) */
    int     out_of_field;     /* 1 once its whole outline is seen outside the field */
    int     lost;             /* 1 when it moved and could not be found again */
    double  contrast;         /* grey level inside its outline minus around it when first seen (0..255);
                                 near 0 or negative: no card there */
    /* fields below added in the second tracking session (readers of the fields above unchanged) */
    double  angle_deg;        /* rotation of the outline, degrees counter-clockwise, in (-90, 90]:
                                 0 = portrait (52 mm side along x); corners_mm follow it */
    double  rest_angle_deg;   /* the angle where it last lay still (degrees) */
    double  vx_mm_s, vy_mm_s; /* centre velocity while displaced (mm/s), 0 at rest */
    int     found;            /* 1 when a displaced card was seen this frame (0: predicted/held) */
    int64_t last_seen_us;     /* presentation time it was last seen (at rest or followed) */
    /* added in the sixth session (sweeps): the centre of the card's whole outline while it is
     * followed. x_mm/y_mm is the centroid of the card evidence seen, which leans away from a
     * hand still covering part of the card (the hand pushing it just after contact); here the
     * pixels of a hand or shadow inside the outline count as card too, starting from that
     * centroid (moved back towards the hand until the outline's covered part is filled).
     * Equal to x_mm/y_mm when whole_ok is 0 (not followed this frame, too little seen, or
     * the outline not all in view). */
    double  whole_x_mm, whole_y_mm;
    int     whole_ok;
    /* added in the seventh session (sweeps): the centre of a swept card whose outline reaches
     * beyond the warped area (the follower loses it there: a card leaves the field's side
     * margin after a frame at 60 fps), from its leading edge on the camera frame, which the
     * hand pushing it from behind does not cover: along the motion, where the brightness is
     * halfway between the mat's ahead of it and the card's (the point the card covered for half
     * the exposure: the edge at the frame's time, whatever the motion blur up to two card
     * widths), less the half card to its centre. Measured for the first LOST_AFTER_US of a
     * displacement while the camera sees that part of the floor (the calibration's map
     * extended beyond the warped area along each row). edge_ok 0: not measured this frame. */
    double  edge_x_mm, edge_y_mm;
    int     edge_ok;
    /* added in the thirty-third session: the follower of a displaced card that found it
     * again after frames unseen, beyond where it would have looked had it not missed them
     * (its window grows with each frame missed), may follow something else since (another
     * card's print, the edge of an arm). rejoined 1 from that frame until the card lies
     * still again; rejoin_us the time the card was last seen before that gap. */
    int     rejoined;
    int64_t rejoin_us;
} kr_track_card;

typedef struct kr_track_hand {
    int     present;          /* 1 when this player's arm is in view over the mat */
    double  area_mm2;         /* arm + hand area in the warped region (mm^2) */
    double  bbox_mm[4];       /* x0, y0, x1, y1 (mm) */
    double  lead_x_mm, lead_y_mm; /* leading point: furthest from where the arm enters (mm) */
    double  base_x_mm, base_y_mm; /* where the arm crosses its player's edge (mm) */
    double  vx_mm_s, vy_mm_s; /* velocity of the leading point (mm/s), 0 on first sight */
    int     side;             /* -1 left hand, +1 right hand, 0 unknown (from the player's view) */
    int     in_field;         /* 1 when the leading point is inside the field rectangle */
    double  shadow_px;        /* shadow mat pixels within 45 mm of the leading point not under the hand */
    double  shadow_dist_mm;   /* distance from the leading point to the shadow's own leading point; -1 none */
    /* added in the fourth session: the tip settling. Change since the previous frame within
     * 60 mm of the leading point (the other player's hand left out): sum over pixels of
     * (|dB| + |dG| + |dR| - N)+ / 3 x pixel area (grey levels x mm^2), N the noise of the still
     * picture around the tip (since the ninth session; at least 6). While a hand comes
     * down onto a card it changes (the hand grows and shrinks in the view, its shadow slides
     * under it, it covers the card's print); once it lies on the card it falls to noise. */
    double  tip_change;
    /* added in the eighth session (races): tip_change with the other player's hand masked on
     * this frame and the last, and every pixel within TIP_OWN_MARGIN_MM of those (the edge
     * of its blur, its shadow close under it): the change of this hand's own descent while
     * the other's moves beside it. Equal to tip_change, less the other's hand of this frame,
     * when the other hand is nowhere near. tip_own_share: the share of the circle's pixels
     * (in view) that are left to it (0..1; 1 when nothing is masked). */
    double  tip_change_own;
    double  tip_own_share;
    /* added in the twenty-ninth session: tip_change_own with the codec's redraw of a light
     * step counted too (kr_track_frame.light_steadied: the change is otherwise taken beyond
     * a share of the step, which can hide a hand's last millimetres of descent). Since the
     * forty-fourth session tip_change and tip_change_own compare this frame with the last
     * one lit as this one (scaled by the global gain's step); this one compares them as they
     * are, so it differs from tip_change_own where the light stepped, steadied or not. */
    double  tip_change_own_lit;
    /* added in the thirteenth session: the pixels of either player's hand within 100 mm
     * of the leading point (mm^2). A hand lying on a card keeps it (the other hand coming
     * over it covers what it hides); when the tracker leaves the leading point on a print
     * the arm left behind, it falls as the hand goes on. */
    double  near_area_mm2;
    /* added in the fourteenth session: the same of this player's hand alone. With the other
     * hand passing by, near_area_mm2 rises and falls with it while this one's stays. */
    double  near_own_mm2;
    /* added in the thirty-fourth session: 1 when the leading point lies at the edge of the
     * view (the warped area's border, or mat the camera does not see): the hand may reach
     * on beyond it, and the point is only where it leaves the view. */
    int     at_view_edge;
} kr_track_hand;

typedef struct kr_track_frame {
    int64_t t_us;        /* presentation time of the frame */
    int64_t gap_us;      /* > 0: frames were missing before this one (time since the previous) */
    int64_t index;       /* frames seen so far - 1 */
    int     ready;       /* 0 during background warm-up (results not meaningful) */
    int     n_cards;
    const kr_track_card *cards;  /* owned by the tracker; n_cards entries */
    kr_track_hand hands[2];      /* [KR_TRACK_A], [KR_TRACK_B] */
    int     hand_contact;        /* 1 when A's and B's hand regions meet */
    double  contact_x_mm, contact_y_mm;
    double  gain;                /* global brightness of this frame vs the background (1 = same) */
    /* added in the twenty-eighth session: the light's fast swing (mains flicker), RMS share
     * of the levels of bands of camera rows off the light's steady level, over about a
     * second; light_steadied 1 while it is taken out of the picture (from over 0.7 % until
     * under 0.5 %; 1.5 and 1.1 % until the forty-third session) */
    double  light_swing;
    int     light_steadied;
    /* added in the forty-eighth session: the sensor's noise, the per-pixel level (|dB| + |dG|
     * + |dR| between frames) the hands' own tip changes count beyond: KR_TRACK_NOISE_CLEAN
     * on clean footage, more where the whole mat's still picture changes by more over the
     * last frames */
    int     noise_floor;
} kr_track_frame;

typedef struct kr_track kr_track_t; /* opaque */

/* The frame size to track a w x h camera image at: half size (even) from 1200 px wide (the
 * mat image is coarser anyway), else w x h. analyze, live and the tools all use it, so
 * they track the same pictures. */
void kr_track_frame_size(int w, int h, int *out_w, int *out_h);

/* Creates a tracker for frames of frame_w x frame_h pixels (BGR). map is called for
 * every mat pixel once here. cfg is copied. *out owned by the caller (kr_track_destroy). */
kr_status kr_track_create(const kr_track_config *cfg, kr_track_map_fn map, void *map_ctx,
                          int frame_w, int frame_h, kr_track_t **out);
void      kr_track_destroy(kr_track_t *t); /* NULL-safe */

/* Sets the cards to track (copied). Resets card state; call before the first update. */
kr_status kr_track_set_layout(kr_track_t *t, const kr_track_card_init *cards, int n);

/* Processes one BGR frame (view, borrowed for the call). *out owned by t, valid until the
 * next update or destroy. Does not allocate. */
kr_status kr_track_update(kr_track_t *t, const kr_image_t *frame, int64_t t_us, int64_t gap_us,
                          const kr_track_frame **out);

/* Same as kr_track_update on a decoded YUV 4:2:0 picture (view, borrowed for the call):
 * only the mat's camera pixels are converted to BGR (swscale's integer formula for the
 * frame's matrix and range, chroma of each 2x2 block), so no whole-frame conversion is
 * needed. frame->w/h must be the tracker's frame size. Frames of one tracker may mix
 * both entry points. *out owned by t, valid until the next update or destroy. Does not
 * allocate. */
kr_status kr_track_update_yuv(kr_track_t *t, const kr_yuv_t *frame, int64_t t_us, int64_t gap_us,
                              const kr_track_frame **out);

/* 1 when the next update fits every card's start-up pose on its frame (once per run, on
 * the warm-up's last frame: about 1 ms of CPU a card, half of them on a helper thread),
 * else 0. A live source may pause around that update so that later frames do not queue. */
int kr_track_fit_due(const kr_track_t *t);

/* The current warped mat image (BGR, owned by t) and per-pixel class (owned by t;
 * 0 background, 1 hand of A, 2 hand of B, 3 and 5 other foreground, 4 shadow, 6 card-coloured
 * foreground, 7 pixels that only join an arm's pieces (see chroma_join), 255 outside frame). */
kr_status kr_track_mat_view(const kr_track_t *t, kr_image_t *bgr, kr_image_t *cls);

/* Mat mm <-> mat image pixel (continuous, pixel centres at +0.5). */
void kr_track_mm_to_mat(const kr_track_t *t, double x_mm, double y_mm, double *u, double *v);
void kr_track_mat_to_mm(const kr_track_t *t, double u, double v, double *x_mm, double *y_mm);

/* Draws the debug overlay (mat image scaled by `scale`, card outlines and ids, hand
 * outlines, leading points, competition lines) into a buffer owned by t; *img is a view
 * of it valid until the next call. Allocates (debug only, not in the per-frame path). */
kr_status kr_track_draw_overlay(kr_track_t *t, const kr_track_frame *fr, int scale, kr_image_t *img);

/* Writes fr as one JSON line to f (the trace format of `analyze --trace`: time, hands with
 * leading point, base, velocity, area, side and shadow cues, and per card [id, x, y, moving,
 * displaced, occluded, out_of_field, lost, change, cover A, cover B, visible, angle]).
 * KR_ERR_IO when the stream has an error. Debug and evaluation only. */
kr_status kr_track_write_trace(FILE *f, const kr_track_frame *fr);

/* Last error text of this tracker (owned by t). */
const char *kr_track_last_error(const kr_track_t *t);

#ifdef __cplusplus
}
#endif
#endif /* KR_TRACK_H */
