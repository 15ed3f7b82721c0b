/* kr_track_internal.h - tracker state shared by kr_track*.c files (not public).
 * SPDX-License-Identifier: MIT */
#ifndef KR_TRACK_INTERNAL_H
#define KR_TRACK_INTERNAL_H
#include "kr_track.h"

#define KR_TRACK_MAX_COMPS 4096

enum { KR_CLS_BG = 0, KR_CLS_HAND_A = 1, KR_CLS_HAND_B = 2, KR_CLS_OTHER = 3, KR_CLS_SHADOW = 4,
       KR_CLS_FG = 5, KR_CLS_CARDLIKE = 6, KR_CLS_OUT = 255 };

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
} kr_track_cstate;

struct kr_track {
    kr_track_config cfg;
    char     err[256];
    int      fw, fh;         /* camera frame size */
    int      w, h, n;        /* mat image size, pixel count */
    double   x0_mm, y0_mm;   /* mm of the mat image's top-left corner (u = 0, v = 0) */
    int32_t *lut_off;        /* n: camera pixel offset of the top-left tap, -1 = outside */
    uint16_t *lut_w;         /* 4n bilinear weights, sum 256 */
    uint8_t *mat;            /* 3n current warped image */
    uint8_t *prev;           /* 3n previous warped image */
    float   *bg;             /* 3n background */
    uint8_t *cls;            /* n classes */
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
    kr_track_frame  fr;
    kr_track_hand   prev_hand[2];
    double   card_rgb[3], mat_rgb[3]; /* reference colours at start */
    uint8_t *ovl;            /* overlay buffer (debug) */
    size_t   ovl_cap;
};

/* Sets c->corners_mm from its centre (axis-aligned portrait outline). */
static inline void kr_track_card_outline_(kr_track_card *c)
{
    double hx = KR_TRACK_CARD_W_MM / 2, hy = KR_TRACK_CARD_H_MM / 2;
    double d[4][2] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
    for (int k = 0; k < 4; k++) {
        c->corners_mm[k][0] = c->x_mm + d[k][0];
        c->corners_mm[k][1] = c->y_mm + d[k][1];
    }
}

#endif /* KR_TRACK_INTERNAL_H */
