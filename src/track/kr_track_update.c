/* kr_track_update.c - the per-frame path: gather, background, classes, arms, cards.
 * Allocates nothing: every buffer was sized in kr_track_create / kr_track_set_layout.
 * SPDX-License-Identifier: MIT */
#include "kr_track.h"

#include "kr_track_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define KR_TRACK_SIMD 1 /* the classification and background update 4 pixels at a time */
#else
#define KR_TRACK_SIMD 0
#endif

#define STILL_DIFF 24       /* sum of |BGR| change below which a pixel is unchanged */
/* times below in frames of 60 fps footage (1/60 s each), scaled to the frame rate */
#define SNAP_FRAMES 18      /* unchanged non-hand foreground absorbed after this long */
#define SNAP_HAND_FRAMES 600
#define GHOST_FRAMES 30     /* still mat-coloured hand pixels absorbed after this long */
#define GHOST_FAST_FRAMES 6 /* the same where non-hand, non-shadow foreground was learned (t->learned) */
#define NEAR_MM 100.0       /* kr_track_hand.near_area_mm2: within this of the leading point */
#define DETACHED_STILL 6.0  /* a detached piece unchanged this long on average is not a hand */
#define STILL_HAND_MM2 4000.0 /* ... unless a hand lies still as it: at least this big (a fist from above) */
#define DETACHED_HAND_US 1000000 /* ... kept, cut off from its arm, at most this long after the arm was last seen, */
#define STILL_HAND_SHARE 0.6  /* ... with this share of it unchanged since it was that hand, */
#define CUT_STEP_MM 4.0      /* ... its centroid this near the one of the piece kept on the last frame */
#define SKIN_MIN_PX 30     /* a hand's colour is learned from at least this many of its pixels near the tip ... */
#define SKIN_APART 120.0   /* ... and splits a contact where the two hands' differ by this much (|B|+|G|+|R|) ... */
#define SKIN_NEARER 2.0    /* ... a pixel going to the hand this many times nearer in colour */
#define CUT_ARM_SHARE 0.3   /* an arm cut off from its edge: this share of its last hand in the other's component */
#define TIP_CHANGE_MM 60.0 /* tip_change is summed within this of the leading point */
#define TIP_CHANGE_NOISE KR_TRACK_NOISE_CLEAN /* |BGR| change between frames up to this is noise (tip_change) ... */
#define TIP_NOISE_Q 0.9    /* ... or up to this quantile of the still picture's change around the tip (tip_noise) */
#define TIP_NOISE_MIN_PX 40 /* ... measured on at least this many pixels */
#define FRAME_NOISE_STEP 3  /* frame_noise reads every this many rows and columns */
#ifndef TIP_OWN_MARGIN_MM
#define TIP_OWN_MARGIN_MM 9.0 /* tip_change_own: the other hand masked with this margin */
#endif
#define SHOULDER_MM 700.0   /* a kneeling player's shoulders: this far from the mat's centre line */
#define ARM_LINE_MM 100.0   /* the arm's line is read when its leading point lies this far in from its base */
#define GAIN_STEADY 0.004   /* gain change between frames below which unchanged pixels keep their class */
#define VIEW_EDGE_PX 2      /* kr_track_hand.at_view_edge: the leading point within this of the view's edge */

/* Sum for the global gain over every third pixel that was background last frame: B+G+R
 * of this frame (si; the background's, sb, was summed by last frame's background update,
 * t->sb_next, so the gather does not read the background). */
#define GAIN_SUM(i, d)                                                                                       \
    do {                                                                                                     \
        if ((i) == next_g) {                                                                                 \
            next_g += 3;                                                                                     \
            if (cls[i] == KR_CLS_BG)                                                                         \
                si += (d)[0] + (d)[1] + (d)[2];                                                              \
        }                                                                                                    \
    } while (0)

/* The gain sum of this frame (see GAIN_SUM) after the gather, in one pass over every
 * third pixel: whole numbers, so an integer sum is the pixel-order double sum exactly
 * (below 2^53), without a chain of double additions. */
static double gain_sum_of_mat(const kr_track_t *t)
{
    int64_t si = 0;
    for (int i = 0; i < t->n; i += 3)
        if (t->cls[i] == KR_CLS_BG && t->lut_off[i] >= 0) {
            const uint8_t *d = t->mat + (size_t)i * 3;
            si += d[0] + d[1] + d[2];
        }
    return (double)si;
}

/* The mat image from a BGR frame (nearest or bilinear through the gather table), with
 * the gain sums (see GAIN_SUM). */
static void gather(kr_track_t *t, const kr_image_t *f, double *si_out, double *sb_out)
{
    const uint8_t *src = f->px;
    const int stride = f->stride;
    t->yuv_prev_key = -1;
    const int32_t *restrict lut = t->lut_off;
    uint8_t *restrict mat = t->mat;
    for (int i = 0; i < t->n; i++) {
        int32_t off = lut[i];
        uint8_t *d = mat + (size_t)i * 3;
        if (off < 0) {
            d[0] = d[1] = d[2] = 0;
            continue;
        }
        int y = off >> 15, x = off & 0x7fff;
        const uint8_t *p = src + (size_t)y * stride + (size_t)x * 3;
        if (!t->cfg.bilinear) {
            d[0] = p[0];
            d[1] = p[1];
            d[2] = p[2];
        } else {
            const uint16_t *w = t->lut_w + (size_t)i * 4;
            for (int c = 0; c < 3; c++) {
                unsigned v = w[0] * p[c] + w[1] * p[3 + c] + w[2] * p[stride + c] + w[3] * p[stride + 3 + c];
                d[c] = (uint8_t)((v + 128) >> 8);
            }
        }
    }
    *si_out = gain_sum_of_mat(t);
    *sb_out = t->sb_next;
}

#define PREFETCH_AHEAD 16 /* mat pixels */

/* The gather from YUV planes: only the mat's taps are converted to BGR (nearest: one
 * pixel; bilinear: the four taps converted, then blended as in the BGR path). */
static void gather_yuv(kr_track_t *t, const kr_track_src *s, double *si_out, double *sb_out)
{
    const uint8_t *cls = t->cls;
    double si = 0, sb = t->sb_next;
    int next_g = 0;
    const kr_yuv_t *f = s->yuv;
    const int same = t->yuv_prev_key == t->yuv_key; /* yuv_prev holds last frame's samples */
    for (int i = 0; i < t->n; i++) {
        int32_t off = t->lut_off[i];
        uint8_t *d = t->mat + (size_t)i * 3;
        if (i + PREFETCH_AHEAD < t->n && t->lut_off[i + PREFETCH_AHEAD] >= 0) {
            /* the planes are read in scattered rows: ask for the lines a little ahead */
            int32_t o2 = t->lut_off[i + PREFETCH_AHEAD];
            int y2 = o2 >> 15, x2 = o2 & 0x7fff;
            __builtin_prefetch(f->y + (size_t)y2 * f->stride_y + x2);
            __builtin_prefetch(f->u + (size_t)(y2 >> 1) * f->stride_c + (x2 >> 1));
            __builtin_prefetch(f->v + (size_t)(y2 >> 1) * f->stride_c + (x2 >> 1));
        }
        if (off < 0) {
            d[0] = d[1] = d[2] = 0;
            if (i == next_g)
                next_g += 3;
            continue;
        }
        int y = off >> 15, x = off & 0x7fff;
        if (!t->cfg.bilinear) {
            /* most of a still scene decodes to the very same samples as last frame (the
             * codec's skipped blocks): then the pixel is last frame's, no conversion */
            const uint8_t Y = f->y[(size_t)y * f->stride_y + x];
            const size_t co = (size_t)(y >> 1) * f->stride_c + (x >> 1);
            const uint8_t U = f->u[co], V = f->v[co];
            uint8_t *q = t->yuv_prev + (size_t)i * 3;
            if (same && q[0] == Y && q[1] == U && q[2] == V)
                memcpy(d, t->prev + (size_t)i * 3, 3);
            else {
                kr_track_yuv_conv_(s, Y, U, V, d);
                q[0] = Y;
                q[1] = U;
                q[2] = V;
            }
        } else {
            uint8_t q[4][3];
            kr_track_yuv_px_(s, x, y, q[0]);
            kr_track_yuv_px_(s, x + 1, y, q[1]);
            kr_track_yuv_px_(s, x, y + 1, q[2]);
            kr_track_yuv_px_(s, x + 1, y + 1, q[3]);
            const uint16_t *w = t->lut_w + (size_t)i * 4;
            for (int c = 0; c < 3; c++) {
                unsigned v = w[0] * q[0][c] + w[1] * q[1][c] + w[2] * q[2][c] + w[3] * q[3][c];
                d[c] = (uint8_t)((v + 128) >> 8);
            }
        }
        GAIN_SUM(i, d);
    }
    t->yuv_prev_key = t->cfg.bilinear ? -1 : t->yuv_key;
    *si_out = si;
    *sb_out = sb;
}

/* This frame's mat image goes where the one before last was; the last one becomes
 * t->prev (a pointer swap instead of a copy: the gather writes every pixel). */
static void swap_mat(kr_track_t *t)
{
    uint8_t *m = t->mat;
    t->mat = t->prev;
    t->prev = m;
}

/* floor(a / 65536) for negative a too (pmulhw keeps the high half of the product) */
static int32_t hi16(int64_t a) { return (int32_t)(a >= 0 ? a / 65536 : -((-a + 65535) / 65536)); }

/* swscale's YUV->RGB terms for the unscaled 4:2:0 -> BGR24 converter of FFmpeg 5.1 on
 * x86 (the SIMD one: libswscale/x86/yuv_2_rgb.asm with the coefficients of yuv2rgb.c's
 * ff_yuv2rgb_c_init_tables): 16-bit coefficients (value x 8192), samples x 8, each
 * term truncated on its own, no rounding; sum saturated to 0..255. Luma scaled by
 * 255/219 and offset by 16 for limited range, chroma by 224/255 for full range.
 * Bit-exact with that converter (test yuv_entry_matches_bgr_entry). */
static void yuv_tables(kr_track_t *t, int full_range, int bt709)
{
    int key = (full_range ? 2 : 0) + (bt709 ? 1 : 0);
    if (t->yuv_key == key)
        return;
    static const int64_t coef[2][4] = {{104597, 132201, 25675, 53279}, {117489, 138438, 13975, 34925}};
    int64_t crv = coef[bt709 ? 1 : 0][0], cbu = coef[bt709 ? 1 : 0][1], cgu = -coef[bt709 ? 1 : 0][2],
            cgv = -coef[bt709 ? 1 : 0][3], cy = 1 << 16, oy = 0;
    if (!full_range) {
        cy = cy * 255 / 219;
        oy = 16;
    } else {
        crv = crv * 224 / 255;
        cbu = cbu * 224 / 255;
        cgu = cgu * 224 / 255;
        cgv = cgv * 224 / 255;
    }
    /* roundToInt16(c * 2^13) of 16.16 values */
    int64_t yc = (cy * 8192 + 32768) >> 16, vr = (crv * 8192 + 32768) >> 16, ub = (cbu * 8192 + 32768) >> 16,
            ug = hi16(cgu * 8192 + 32768), vg = hi16(cgv * 8192 + 32768);
    for (int k = 0; k < 256; k++) {
        t->yuv_tab[0][k] = hi16(8 * (k - oy) * yc);
        t->yuv_tab[1][k] = hi16(8 * (k - 128) * vr);
        t->yuv_tab[2][k] = hi16(8 * (k - 128) * ug);
        t->yuv_tab[3][k] = hi16(8 * (k - 128) * vg);
        t->yuv_tab[4][k] = hi16(8 * (k - 128) * ub);
    }
    t->yuv_key = key;
}

/* Is mat pixel i within a card's reach (45 mm) of a displaced card's centre? (a card
 * carried or put down by a hand, not a sleeve) */
static int near_moved_card(const kr_track_t *t, int i)
{
    double x, y;
    kr_track_mat_to_mm(t, i % t->w + 0.5, i / t->w + 0.5, &x, &y);
    for (int k = 0; k < t->n_cards; k++) {
        const kr_track_card *o = &t->cards[k];
        if (o->displaced && !o->lost && (o->x_mm - x) * (o->x_mm - x) + (o->y_mm - y) * (o->y_mm - y) < 45.0 * 45.0)
            return 1;
    }
    return 0;
}

/* Union-find with path halving over t->parent. */
static int32_t uf_find(int32_t *p, int32_t a)
{
    while (p[a] != a) {
        p[a] = p[p[a]];
        a = p[a];
    }
    return a;
}

/* The first u in [u, w) where row[u] is one of the classes in want (bit k = class k,
 * k < 8), or w: most of a row is not, and is passed 16 pixels at a time. */
static inline int next_wanted(const uint8_t *row, int u, int w, unsigned want)
{
#if KR_TRACK_SIMD
    if (u < w && !(row[u] < 8 && ((want >> row[u]) & 1u))) {
        for (; u + 16 <= w; u += 16) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(row + u));
            __m128i m = _mm_setzero_si128();
            for (unsigned c = 0; c < 8; c++)
                if (want >> c & 1u)
                    m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8((char)c)));
            const unsigned bits = (unsigned)_mm_movemask_epi8(m);
            if (bits)
                return u + __builtin_ctz(bits);
        }
    }
#endif
    while (u < w && !(row[u] < 8 && ((want >> row[u]) & 1u)))
        u++;
    return u;
}

/* Labels 4-connected pixels whose class is in the bit set `want` (bit k = class k, k < 8)
 * into t->comp (area >= 1). Returns count. t->label[i] is the component of pixel i only
 * where its class is in `want` (elsewhere stale: test the class first). Rows without
 * foreground (t->rowfg) hold none of the classes it is called with (foreground and what
 * the refinement makes of it) and are not read. */
#define WANTED(c) ((c) < 8 && ((want >> (c)) & 1u))
static int label_class(kr_track_t *t, unsigned want)
{
    int W = t->w, H = t->h;
    int32_t *lab = t->label, *par = t->parent;
    int32_t next = 1;
    int vmin = H, vmax = -1; /* rows holding labelled pixels */
    par[0] = 0;
    for (int v = 0; v < H; v++) {
        if (!t->rowfg[v])
            continue; /* no foreground (nor what it was refined into) in this row */
        for (int u = 0; (u = next_wanted(t->cls + (size_t)v * W, u, W, want)) < W; u++) {
            int i = v * W + u; /* (wanted: no label is written elsewhere; readers test the class first) */
            if (v < vmin)
                vmin = v;
            vmax = v;
            int32_t l = u > 0 && WANTED(t->cls[i - 1]) ? lab[i - 1] : 0;
            int32_t up = v > 0 && WANTED(t->cls[i - W]) ? lab[i - W] : 0;
            if (!l && !up) {
                par[next] = next;
                lab[i] = next++;
            } else if (l && up) {
                int32_t a = uf_find(par, l), b = uf_find(par, up);
                if (a != b)
                    par[a > b ? a : b] = a < b ? a : b;
                lab[i] = a < b ? a : b;
            } else
                lab[i] = l ? l : up;
        }
    }
    /* compact roots to component indices */
    int nc = 0;
    for (int32_t k = 1; k < next; k++) {
        if (par[k] == k) {
            par[k] = -(nc < KR_TRACK_MAX_COMPS ? nc : KR_TRACK_MAX_COMPS - 1) - 1;
            if (nc < KR_TRACK_MAX_COMPS)
                nc++;
        }
    }
    for (int32_t k = 1; k < next; k++)
        if (par[k] >= 0) {
            int32_t r = k;
            while (par[r] >= 0)
                r = par[r];
            par[k] = par[r];
        }
    for (int c = 0; c < nc; c++) {
        kr_track_comp *cp = &t->comp[c];
        memset(cp, 0, sizeof *cp);
        cp->u0 = W;
        cp->v0 = H;
        cp->u1 = -1;
        cp->v1 = -1;
        cp->owner = -1;
    }
    for (int v = vmin; v <= vmax; v++)
        for (int u = 0; t->rowfg[v] && (u = next_wanted(t->cls + (size_t)v * W, u, W, want)) < W; u++) {
            int i = v * W + u;
            int c = -par[lab[i]] - 1;
            lab[i] = c;
            kr_track_comp *cp = &t->comp[c];
            cp->area++;
            cp->still_sum += t->still[i];
            cp->sum_u += u;
            cp->sum_v += v;
            if (u < cp->u0) cp->u0 = u;
            if (u > cp->u1) cp->u1 = u;
            if (v < cp->v0) cp->v0 = v;
            if (v > cp->v1) cp->v1 = v;
            if (t->zone[i] == 1) {
                cp->zone_a++;
                cp->za_u += u;
                cp->za_v += v;
            } else if (t->zone[i] == 2) {
                cp->zone_b++;
                cp->zb_u += u;
                cp->zb_v += v;
            }
        }
    t->n_comp = nc;
    return nc;
}

/* The colour and skin tests of one frame (see update's classification). */
typedef struct cls_par {
    float    gf;                 /* global gain */
    float    cc0, cc1;           /* squared chroma thresholds: bright, dark pixels */
    float    cj0, cj1;           /* the same for joining pixels (chroma_join) */
    float    bh, sl, shh;        /* bright_hi, shadow_lo, shadow_hi */
    int      coherent;           /* unchanged background pixels may keep their class */
    unsigned phase;              /* pixels with i & 3 == phase are tested afresh anyway */
} cls_par;

/* Does mat pixel i keep its class (background, exactly last frame's pixel)? */
static inline int cls_keeps(const kr_track_t *t, const cls_par *cp, int i)
{
    if (!cp->coherent || ((unsigned)i & 3u) == cp->phase || t->raw[i] != KR_CLS_BG)
        return 0;
    const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
    return I[0] == P[0] && I[1] == P[1] && I[2] == P[2];
}

/* The class of one pixel: branch-free (the same tests as kr_track_compare_px_ and the
 * skin test, combined with bit operations). FG 5, SHADOW 4, JOIN 7 (neither, but its
 * chroma moved past chroma_join), BG 0; OUT (255) where the lut has no camera pixel. */
static inline uint8_t cls_of_px(const cls_par *cp, const uint8_t *I, const float *b, int32_t lut)
{
    float r0 = cp->gf * b[0], r1 = cp->gf * b[1], r2 = cp->gf * b[2];
    float i0 = I[0], i1 = I[1], i2 = I[2];
    float rr = r0 * r0 + r1 * r1 + r2 * r2 + 1.0f;
    float d = i0 * r0 + i1 * r1 + i2 * r2;
    float ii = i0 * i0 + i1 * i1 + i2 * i2;
    const int dark = I[0] + I[1] + I[2] < 150; /* dark pixels: wider chroma tests */
    float cc = dark ? cp->cc1 : cp->cc0, cj = dark ? cp->cj1 : cp->cj0;
    float dist = ii * rr - d * d;
    int fg = (dist > cc * rr * rr) | (d > cp->bh * rr) | (d < cp->sl * rr);
    int sh = d < cp->shh * rr;
    /* skin is redder than tatami or paper: (R - G) / sum rises by more than 0.03 even
     * where a blurred hand is mixed with the mat (multiplied out) */
    float is = (float)(I[0] + I[1] + I[2]) + 1.0f, bs = b[0] + b[1] + b[2] + 1.0f;
    fg |= ((float)I[2] - (float)I[1]) * bs - (b[2] - b[1]) * is > 0.03f * is * bs;
    int join = (dist > cj * rr * rr) & !(fg | sh);
    return (uint8_t)((4 * (fg | sh) + fg + 7 * join) | (lut >> 31));
}

/* Classifies mat pixels [i0, i1) into t->cls and t->raw; returns 1 if any is foreground
 * or joining. */
static int classify_span(kr_track_t *t, const cls_par *cp, int i0, int i1)
{
    int any = 0;
    for (int i = i0; i < i1; i++) {
        if (cls_keeps(t, cp, i)) {
            t->cls[i] = t->raw[i];
            continue;
        }
        uint8_t c = cls_of_px(cp, t->mat + (size_t)i * 3, t->bg + (size_t)i * 3, t->lut_off[i]);
        t->cls[i] = t->raw[i] = c;
        any |= c == KR_CLS_FG || c == KR_CLS_JOIN;
    }
    return any;
}

#if KR_TRACK_SIMD
/* 12 bytes (4 BGR pixels) into the low 12 lanes of a vector, the rest zero. */
static inline __m128i load12(const uint8_t *p)
{
    int64_t lo;
    int32_t hi;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 4);
    return _mm_set_epi64x((int64_t)(uint32_t)hi, lo);
}

/* 4 interleaved BGR floats (a0 = B0 G0 R0 B1, a1 = G1 R1 B2 G2, a2 = R2 B3 G3 R3) into
 * one vector per channel. */
static inline void deinterleave3(__m128 a0, __m128 a1, __m128 a2, __m128 *b, __m128 *g, __m128 *r)
{
    __m128 tb = _mm_shuffle_ps(a1, a2, _MM_SHUFFLE(0, 1, 0, 2));   /* a1[2] . a2[1] . */
    *b = _mm_shuffle_ps(a0, tb, _MM_SHUFFLE(2, 0, 3, 0));          /* a0[0] a0[3] a1[2] a2[1] */
    __m128 tg1 = _mm_shuffle_ps(a0, a1, _MM_SHUFFLE(0, 0, 0, 1));  /* a0[1] . a1[0] . */
    __m128 tg2 = _mm_shuffle_ps(a1, a2, _MM_SHUFFLE(0, 2, 0, 3));  /* a1[3] . a2[2] . */
    *g = _mm_shuffle_ps(tg1, tg2, _MM_SHUFFLE(2, 0, 2, 0));
    __m128 tr1 = _mm_shuffle_ps(a0, a1, _MM_SHUFFLE(0, 1, 0, 2));  /* a0[2] . a1[1] . */
    __m128 tr2 = _mm_shuffle_ps(a2, a2, _MM_SHUFFLE(0, 3, 0, 0));  /* a2[0] . a2[3] . */
    *r = _mm_shuffle_ps(tr1, tr2, _MM_SHUFFLE(2, 0, 2, 0));
}

/* 4 BGR pixels (12 bytes at p) as float vectors per channel. */
static inline void load_px4(const uint8_t *p, __m128 *b, __m128 *g, __m128 *r)
{
    const __m128i z = _mm_setzero_si128(), x = load12(p);
    const __m128i lo = _mm_unpacklo_epi8(x, z), hi = _mm_unpackhi_epi8(x, z);
    deinterleave3(_mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, z)), _mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, z)),
                  _mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, z)), b, g, r);
}

/* classify_span, 4 pixels at a time: the same single-precision operations in the same
 * order as cls_of_px (SSE2 has no fused multiply-add), so the same classes bit for bit. */
static int classify_span_simd(kr_track_t *t, const cls_par *cp, int i0, int i1)
{
    const __m128 gf = _mm_set1_ps(cp->gf), one = _mm_set1_ps(1.0f), c150 = _mm_set1_ps(150.0f),
                 cc0 = _mm_set1_ps(cp->cc0), cc1 = _mm_set1_ps(cp->cc1), bh = _mm_set1_ps(cp->bh),
                 sl = _mm_set1_ps(cp->sl), shh = _mm_set1_ps(cp->shh), c003 = _mm_set1_ps(0.03f),
                 cj0 = _mm_set1_ps(cp->cj0), cj1 = _mm_set1_ps(cp->cj1);
    const __m128i four = _mm_set1_epi32(4), onei = _mm_set1_epi32(1), ff = _mm_set1_epi32(255),
                  seven = _mm_set1_epi32(KR_CLS_JOIN);
    const __m128i five = _mm_set1_epi32(KR_CLS_FG), zero = _mm_setzero_si128();
    unsigned phase_free = 0; /* bit k: pixel i + k is not tested afresh this frame (i - i0 a multiple of 4) */
    for (int k = 0; k < 4; k++)
        phase_free |= (unsigned)((((unsigned)i0 + (unsigned)k) & 3u) != cp->phase) << k;
    int any = 0, i = i0;
    for (; i + 4 <= i1; i += 4) {
        unsigned keep = 0;
        if (cp->coherent) {
            /* cls_keeps for 4 pixels: background last time (raw 0), not this frame's
             * phase, the same 3 bytes as last frame (compared 12 bytes at a time) */
            int32_t rw;
            memcpy(&rw, t->raw + i, 4);
            unsigned eq = (unsigned)_mm_movemask_epi8(
                _mm_cmpeq_epi8(load12(t->mat + (size_t)i * 3), load12(t->prev + (size_t)i * 3)));
            eq &= (eq >> 1) & (eq >> 2); /* bit 3k: pixel k's 3 bytes equal */
            eq = (eq & 1u) | (eq >> 2 & 2u) | (eq >> 4 & 4u) | (eq >> 6 & 8u);
            unsigned bg = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_cvtsi32_si128(rw), zero)) & 15u;
            keep = eq & bg & phase_free;
            if (keep == 15u) {
                memset(t->cls + i, KR_CLS_BG, 4); /* (= raw) */
                continue;
            }
        }
        __m128 i0v, i1v, i2v, b0, b1, b2;
        load_px4(t->mat + (size_t)i * 3, &i0v, &i1v, &i2v);
        const float *bp = t->bg + (size_t)i * 3;
        deinterleave3(_mm_loadu_ps(bp), _mm_loadu_ps(bp + 4), _mm_loadu_ps(bp + 8), &b0, &b1, &b2);
        __m128 r0 = _mm_mul_ps(gf, b0), r1 = _mm_mul_ps(gf, b1), r2 = _mm_mul_ps(gf, b2);
        __m128 rr = _mm_add_ps(
            _mm_add_ps(_mm_add_ps(_mm_mul_ps(r0, r0), _mm_mul_ps(r1, r1)), _mm_mul_ps(r2, r2)), one);
        __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(i0v, r0), _mm_mul_ps(i1v, r1)), _mm_mul_ps(i2v, r2));
        __m128 ii = _mm_add_ps(_mm_add_ps(_mm_mul_ps(i0v, i0v), _mm_mul_ps(i1v, i1v)), _mm_mul_ps(i2v, i2v));
        __m128 sum = _mm_add_ps(_mm_add_ps(i0v, i1v), i2v); /* exact: small integers */
        __m128 dark = _mm_cmplt_ps(sum, c150);
        __m128 cc = _mm_or_ps(_mm_and_ps(dark, cc1), _mm_andnot_ps(dark, cc0));
        __m128 cj = _mm_or_ps(_mm_and_ps(dark, cj1), _mm_andnot_ps(dark, cj0));
        __m128 dist = _mm_sub_ps(_mm_mul_ps(ii, rr), _mm_mul_ps(d, d));
        __m128 fg = _mm_cmpgt_ps(dist, _mm_mul_ps(_mm_mul_ps(cc, rr), rr));
        fg = _mm_or_ps(fg, _mm_cmpgt_ps(d, _mm_mul_ps(bh, rr)));
        fg = _mm_or_ps(fg, _mm_cmplt_ps(d, _mm_mul_ps(sl, rr)));
        __m128 sh = _mm_cmplt_ps(d, _mm_mul_ps(shh, rr));
        __m128 is = _mm_add_ps(sum, one), bs = _mm_add_ps(_mm_add_ps(_mm_add_ps(b0, b1), b2), one);
        __m128 skin = _mm_cmpgt_ps(_mm_sub_ps(_mm_mul_ps(_mm_sub_ps(i2v, i1v), bs), _mm_mul_ps(_mm_sub_ps(b2, b1), is)),
                                   _mm_mul_ps(_mm_mul_ps(c003, is), bs));
        fg = _mm_or_ps(fg, skin);
        __m128i fgi = _mm_castps_si128(fg), shi = _mm_castps_si128(sh);
        __m128i join = _mm_andnot_si128(_mm_or_si128(fgi, shi),
                                        _mm_castps_si128(_mm_cmpgt_ps(dist, _mm_mul_ps(_mm_mul_ps(cj, rr), rr))));
        __m128i c = _mm_or_si128(_mm_and_si128(_mm_or_si128(fgi, shi), four), _mm_and_si128(fgi, onei));
        c = _mm_or_si128(c, _mm_and_si128(join, seven));
        __m128i out = _mm_srai_epi32(_mm_loadu_si128((const __m128i *)(t->lut_off + i)), 31);
        c = _mm_or_si128(c, _mm_and_si128(out, ff));
        /* kept pixels: their class is raw's, background (0) */
        const __m128i kv = _mm_set_epi32(-(int)(keep >> 3 & 1u), -(int)(keep >> 2 & 1u), -(int)(keep >> 1 & 1u),
                                         -(int)(keep & 1u));
        c = _mm_andnot_si128(kv, c);
        any |= _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi32(c, five), _mm_cmpeq_epi32(c, seven))) != 0;
        c = _mm_packs_epi32(c, c);
        c = _mm_packus_epi16(c, c);
        const uint32_t w = (uint32_t)_mm_cvtsi128_si32(c);
        memcpy(t->cls + i, &w, 4);
        memcpy(t->raw + i, &w, 4);
    }
    return any | classify_span(t, cp, i, i1);
}
#else
#define classify_span_simd classify_span
#endif

/* The background update's parameters for one frame (see update). */
typedef struct bg_par {
    float  rate2;           /* the background's learning rate (every other pixel per frame) */
    float  ig;              /* 1 / gain */
    double g;               /* gain */
    int    snap, snap_hand, ghost, ghost_fast; /* frames (see SNAP_FRAMES ...) */
    int    refs;            /* the reference colours are known (cards ready) */
} bg_par;

/* Does I look like bare mat (the mat's colour under gain g)? The one test of the ghosts
 * (bg_px), of mat revealed where a card lay and of joining pixels that are the mat (update). */
static inline int mat_coloured(const kr_track_t *t, const uint8_t *I, double g)
{
    return kr_track_near_colour_(I, t->mat_rgb, g, 0.75, 1.30, 0.030);
}

/* Background update of mat pixel i (class not OUT): its unchanged-frame count, its
 * background (learned where background, taken over where unchanged foreground has lasted). */
static inline void bg_px(kr_track_t *t, const bg_par *bp, int i)
{
    const uint8_t cl = t->cls[i];
    const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
    int d = abs(I[0] - P[0]) + abs(I[1] - P[1]) + abs(I[2] - P[2]);
    uint16_t st = t->still[i];
    st = d < STILL_DIFF ? (uint16_t)(st < 65000 ? st + 1 : st) : 0;
    t->still[i] = st;
    float *b = t->bg + (size_t)i * 3;
    if (cl == KR_CLS_BG) {
        if (!(((unsigned)i ^ (unsigned)t->frames) & 1u)) /* half the pixels per frame, at twice the rate */
            for (int c = 0; c < 3; c++)
                b[c] += bp->rate2 * (I[c] * bp->ig - b[c]);
    } else {
        const int hand = cl == KR_CLS_HAND_A || cl == KR_CLS_HAND_B;
        /* a light sleeve (card-like) on an arm is the arm: not learned quickly either
         * (learned, it would cut the hand off its player's edge, and leave a ghost of
         * itself when the arm goes) */
        const int arm = hand || cl == KR_CLS_JOIN ||
                        (cl == KR_CLS_CARDLIKE && t->comp[t->label[i]].owner >= 0 &&
                         t->comp[t->label[i]].area >= t->min_area_px && !t->fpmask[i] && !near_moved_card(t, i));
        const int matlike =
            bp->refs && st > bp->ghost_fast && mat_coloured(t, I, bp->g);
        if ((!arm && st > bp->snap) || st > bp->snap_hand ||
            (matlike && (st > bp->ghost || (hand && t->learned[i])))) {
            /* (the last: an arm-attached patch that has looked like bare mat, unchanged,
             * for a while is a ghost of something absorbed into the background there;
             * soon where non-hand foreground was learned, a resting arm's shadow
             * included: those ghosts were most phantom hands) */
            for (int c = 0; c < 3; c++)
                b[c] = I[c] * bp->ig;
            t->learned[i] = (uint8_t)(!arm && !matlike);
        }
    }
}

/* B+G+R of background pixel i's background, in single precision (its term of the gain sum) */
static inline float bg_sum3(const kr_track_t *t, int i)
{
    const float *b = t->bg + (size_t)i * 3;
    return b[0] + b[1] + b[2];
}

/* The background update of every mat pixel; returns next frame's gain sum: B+G+R of
 * the background over every third pixel that is background (see GAIN_SUM), added in
 * pixel order in double precision. */
static double bg_update(kr_track_t *t, const bg_par *bp)
{
    double sbn = 0;
    for (int i = 0, m3 = 0; i < t->n; i++) {
        const int third = m3 == 0; /* i % 3 == 0 */
        m3 = m3 == 2 ? 0 : m3 + 1;
        if (t->cls[i] == KR_CLS_OUT)
            continue;
        bg_px(t, bp, i);
        if (third && t->cls[i] == KR_CLS_BG)
            sbn += bg_sum3(t, i);
    }
    return sbn;
}

/* The gain sum without its chain of double additions in pixel order (4 cycles each, one
 * after the other): while every term is 0 or in [2^-4, 2^11), each is a whole multiple of
 * 2^-27 (a float of exponent >= -4); if the total stays below 2^26, every partial sum in
 * any order is a multiple of 2^-27 below 2^26 (53 bits): exact in double precision, so
 * sums in several lanes agree bit for bit with the pixel-order sum. Otherwise (a term out
 * of range: a near-black background) the sum is taken again in pixel order. */
typedef struct exact_sum {
#if KR_TRACK_SIMD
    __m128d v0, v1; /* 4 lanes of partial sums */
    __m128  bad;    /* lanes that met a term out of range */
#endif
    double  s;      /* terms added one at a time */
    int     ok;     /* ... all in range */
} exact_sum;

static inline void exact_sum_add(exact_sum *x, float s)
{
    if (s >= 0.0625f && s < 2048.0f)
        x->s += s;
    else if (s != 0.0f)
        x->ok = 0;
}

static double exact_sum_value(const kr_track_t *t, const exact_sum *x)
{
    double v = x->s;
    int    ok = x->ok;
#if KR_TRACK_SIMD
    double l[4];
    _mm_storeu_pd(l, x->v0);
    _mm_storeu_pd(l + 2, x->v1);
    v += (l[0] + l[1]) + (l[2] + l[3]);
    ok &= !_mm_movemask_ps(x->bad);
#endif
    if (ok && v < 67108864.0) /* 2^26 */
        return v;
    double sbn = 0;
    for (int i = 0; i < t->n; i += 3)
        if (t->cls[i] == KR_CLS_BG)
            sbn += bg_sum3(t, i);
    return sbn;
}

#if KR_TRACK_SIMD
/* bg_update, 4 pixels at a time where all 4 are background (most of the mat): the
 * unchanged-frame counts in 16-bit lanes, the background in the same single-precision
 * operations as bg_px, the gain sum as exact_sum. Other groups go through bg_px. */
static double bg_update_simd(kr_track_t *t, const bg_par *bp)
{
    const __m128 rate2 = _mm_set1_ps(bp->rate2), ig = _mm_set1_ps(bp->ig);
    const __m128i z = _mm_setzero_si128(), bias = _mm_set1_epi16((short)0x8000),
                  lim = _mm_set1_epi16((short)(65000 ^ 0x8000)), diff = _mm_set1_epi16(STILL_DIFF);
    /* the pixels learning this frame: ((i + k) ^ frames) & 1 == 0, i a multiple of 4:
     * k = 0, 2 on even frames, 1, 3 on odd ones; as masks over the 12 interleaved floats */
    const int odd = (int)(t->frames & 1);
    const __m128 m0 = _mm_castsi128_ps(odd ? _mm_set_epi32(-1, 0, 0, 0) : _mm_set_epi32(0, -1, -1, -1)),
                 m1 = _mm_castsi128_ps(odd ? _mm_set_epi32(0, 0, -1, -1) : _mm_set_epi32(-1, -1, 0, 0)),
                 m2 = _mm_castsi128_ps(odd ? _mm_set_epi32(-1, -1, -1, 0) : _mm_set_epi32(0, 0, 0, -1));
    exact_sum sum = {_mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_ps(), 0, 1};
    const __m128 lo = _mm_set1_ps(0.0625f), hi = _mm_set1_ps(2048.0f), fz = _mm_setzero_ps();
    /* the lanes of pixels with i % 3 == 0 in a group whose first pixel has i % 3 == m3 */
    const __m128 third[3] = {_mm_castsi128_ps(_mm_set_epi32(-1, 0, 0, -1)),
                             _mm_castsi128_ps(_mm_set_epi32(0, -1, 0, 0)),
                             _mm_castsi128_ps(_mm_set_epi32(0, 0, -1, 0))};
    int i = 0, m3 = 0; /* m3 = i % 3 */
    for (; i + 4 <= t->n; i += 4, m3 = m3 == 2 ? 0 : m3 + 1) {
        uint32_t cw;
        memcpy(&cw, t->cls + i, 4);
        if (cw != 0) { /* not all background (KR_CLS_BG is 0) */
            for (int k = 0; k < 4; k++)
                if (t->cls[i + k] != KR_CLS_OUT) {
                    bg_px(t, bp, i + k);
                    if ((m3 + k) % 3 == 0 && t->cls[i + k] == KR_CLS_BG)
                        exact_sum_add(&sum, bg_sum3(t, i + k));
                }
            continue;
        }
        const __m128i x = load12(t->mat + (size_t)i * 3), y = load12(t->prev + (size_t)i * 3);
        /* unchanged-frame counts: d = |dB| + |dG| + |dR| per pixel */
        const __m128i ad = _mm_or_si128(_mm_subs_epu8(x, y), _mm_subs_epu8(y, x));
        const __m128i alo = _mm_unpacklo_epi8(ad, z), ahi = _mm_unpackhi_epi8(ad, z);
        __m128 db, dg, dr;
        deinterleave3(_mm_castsi128_ps(_mm_unpacklo_epi16(alo, z)), _mm_castsi128_ps(_mm_unpackhi_epi16(alo, z)),
                      _mm_castsi128_ps(_mm_unpacklo_epi16(ahi, z)), &db, &dg, &dr);
        __m128i d = _mm_add_epi32(_mm_add_epi32(_mm_castps_si128(db), _mm_castps_si128(dg)), _mm_castps_si128(dr));
        d = _mm_packs_epi32(d, d);
        __m128i st = _mm_loadl_epi64((const __m128i *)(t->still + i));
        st = _mm_sub_epi16(st, _mm_cmplt_epi16(_mm_xor_si128(st, bias), lim)); /* +1 below 65000 */
        st = _mm_and_si128(st, _mm_cmplt_epi16(d, diff));                      /* 0 when changed */
        _mm_storel_epi64((__m128i *)(t->still + i), st);
        /* background: b += rate2 * (I * ig - b) where learning this frame */
        const __m128i xlo = _mm_unpacklo_epi8(x, z), xhi = _mm_unpackhi_epi8(x, z);
        const __m128 i0 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(xlo, z)), i1 = _mm_cvtepi32_ps(_mm_unpackhi_epi16(xlo, z)),
                     i2 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(xhi, z));
        float *b = t->bg + (size_t)i * 3;
        const __m128 b0 = _mm_loadu_ps(b), b1 = _mm_loadu_ps(b + 4), b2 = _mm_loadu_ps(b + 8);
        const __m128 n0 = _mm_add_ps(b0, _mm_mul_ps(rate2, _mm_sub_ps(_mm_mul_ps(i0, ig), b0))),
                     n1 = _mm_add_ps(b1, _mm_mul_ps(rate2, _mm_sub_ps(_mm_mul_ps(i1, ig), b1))),
                     n2 = _mm_add_ps(b2, _mm_mul_ps(rate2, _mm_sub_ps(_mm_mul_ps(i2, ig), b2)));
        const __m128 s0 = _mm_or_ps(_mm_and_ps(m0, n0), _mm_andnot_ps(m0, b0)),
                     s1 = _mm_or_ps(_mm_and_ps(m1, n1), _mm_andnot_ps(m1, b1)),
                     s2 = _mm_or_ps(_mm_and_ps(m2, n2), _mm_andnot_ps(m2, b2));
        _mm_storeu_ps(b, s0);
        _mm_storeu_ps(b + 4, s1);
        _mm_storeu_ps(b + 8, s2);
        /* the gain sum over pixels with i % 3 == 0: B+G+R of each pixel in registers */
        __m128 sb, sg, sr;
        deinterleave3(s0, s1, s2, &sb, &sg, &sr);
        const __m128 s3 = _mm_and_ps(_mm_add_ps(_mm_add_ps(sb, sg), sr), third[m3]);
        sum.bad = _mm_or_ps(sum.bad, _mm_or_ps(_mm_and_ps(_mm_cmplt_ps(s3, lo), _mm_cmpneq_ps(s3, fz)),
                                               _mm_cmpge_ps(s3, hi)));
        sum.v0 = _mm_add_pd(sum.v0, _mm_cvtps_pd(s3));
        sum.v1 = _mm_add_pd(sum.v1, _mm_cvtps_pd(_mm_movehl_ps(s3, s3)));
    }
    for (; i < t->n; i++, m3 = m3 == 2 ? 0 : m3 + 1)
        if (t->cls[i] != KR_CLS_OUT) {
            bg_px(t, bp, i);
            if (m3 == 0 && t->cls[i] == KR_CLS_BG)
                exact_sum_add(&sum, bg_sum3(t, i));
        }
    return exact_sum_value(t, &sum);
}
#else
#define bg_update_simd bg_update
#endif

static double sqr(double a) { return a * a; }

static void hand_from_pixels(kr_track_t *t, int p, double dt_s);

/* The player (0 A, 1 B) whose hand lies still as most of detached piece c: hand-sized, and
 * over half its pixels (card-like ones included: a card left on the mat is no hand) were
 * that player's hand on the last frame (t->hmap), are unchanged since and are not the
 * mat's colour (bare mat where the background had learned a hand is its ghost); -1 none.
 * *share: the share of the piece that is so (of the player returned; 0 with -1).
 * Scraps an arm leaves behind as it withdraws (unchanged: the background there had
 * learned skin) are smaller, and would keep themselves alive as a hand frame after frame.
 * g: the frame's gain. */
static int still_hand(const kr_track_t *t, int c, double g, double *share)
{
    const kr_track_comp *cp = &t->comp[c];
    *share = 0;
    if (cp->area * t->cfg.mm_per_px * t->cfg.mm_per_px < STILL_HAND_MM2)
        return -1;
    const uint8_t *last = t->hmap + (size_t)(t->hand_cur ^ 1) * (size_t)t->n;
    int kept[2] = {0, 0};
    for (int v = cp->v0; v <= cp->v1; v++)
        for (int u = cp->u0, i = v * t->w + u; u <= cp->u1; u++, i++) {
            if (t->cls[i] != KR_CLS_FG || t->label[i] != c)
                continue;
            const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
            if (last[i] && abs(I[0] - P[0]) + abs(I[1] - P[1]) + abs(I[2] - P[2]) < STILL_DIFF &&
                !mat_coloured(t, I, g))
                kept[last[i] - 1]++;
        }
    for (int p = 0; p < 2; p++)
        if (2 * kept[p] > cp->area) {
            *share = (double)kept[p] / cp->area;
            return p;
        }
    return -1;
}

/* Is mat pixel i part of component c (a pixel of the arms' labelling)? */
static inline int in_comp(const kr_track_t *t, int i, int c)
{
    return (t->cls[i] == KR_CLS_FG || t->cls[i] == KR_CLS_CARDLIKE) && t->label[i] == c;
}

/* The pixels of component c that changed since the last frame (by STILL_DIFF or more).
 * (Its still_sum counts the frames unchanged up to the last frame: a piece arrived on this
 * one has the mat's count there.) */
static long changed_px(const kr_track_t *t, int c)
{
    const kr_track_comp *cp = &t->comp[c];
    long n = 0;
    for (int v = cp->v0; v <= cp->v1; v++)
        for (int u = cp->u0, i = v * t->w + u; u <= cp->u1; u++, i++) {
            if (!in_comp(t, i, c))
                continue;
            const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
            n += abs(I[0] - P[0]) + abs(I[1] - P[1]) + abs(I[2] - P[2]) >= STILL_DIFF;
        }
    return n;
}

/* An arm cut off from its player's edge as it meets the other's hand (its sleeve, dark or
 * pale, not told from the mat for a frame: strike_a at 30 fps, B's hand and forearm joined
 * to A's on card 15, B's edge left with 4446 of its 24138 mm^2) joins the other arm's
 * component, which then held both hands with one entry band and was all the other's: its
 * leading point went to B's elbow, and neither racing press was seen. Such a component is
 * a contact (owner 2, split by split_contacts from what each hand was on the last frame)
 * when it holds CUT_ARM_SHARE of what was the cut-off player's hand on the last frame (and
 * STILL_HAND_MM2 or more of it), and that player's edge keeps less than half its last
 * area: the arm is not elsewhere. */
static void take_back_cut_off_arms(kr_track_t *t)
{
    const uint8_t *last = t->hmap + (size_t)(t->hand_cur ^ 1) * (size_t)t->n;
    const double px_mm2 = t->cfg.mm_per_px * t->cfg.mm_per_px;
    long edge[2] = {0, 0}; /* each player's area joined to its edge, in mat pixels */
    for (int c = 0; c < t->n_comp; c++) {
        const kr_track_comp *cp = &t->comp[c];
        if (cp->area >= t->min_area_px) { /* (a piece with a player's band is that player's or both's) */
            edge[0] += cp->zone_a ? cp->area : 0;
            edge[1] += cp->zone_b ? cp->area : 0;
        }
    }
    for (int c = 0; c < t->n_comp; c++) {
        kr_track_comp *cp = &t->comp[c];
        if (cp->area < t->min_area_px || (cp->owner != 0 && cp->owner != 1))
            continue;
        const int q = 1 - cp->owner;
        const kr_track_hand *qh = &t->prev_hand[q];
        if (!qh->present || (double)edge[q] * px_mm2 >= 0.5 * qh->area_mm2) /* (c holds none of q's edge) */
            continue;
        long held = 0; /* pixels of c that were q's hand on the last frame */
        for (int v = cp->v0; v <= cp->v1; v++)
            for (int u = cp->u0, i = v * t->w + u; u <= cp->u1; u++, i++)
                held += last[i] == q + 1 && in_comp(t, i, c);
        if (held * px_mm2 >= STILL_HAND_MM2 && held * px_mm2 >= CUT_ARM_SHARE * qh->area_mm2)
            cp->owner = 2;
    }
}

static void join_pieces(kr_track_t *t);
static void shadow_links(kr_track_t *t, uint8_t *link);
static void split_contacts(kr_track_t *t, double dt_s);
static void tip_change_own(kr_track_t *t, int p);
static void near_area(kr_track_t *t, int p);

static kr_status update(kr_track_t *t, const kr_track_src *frame, int64_t t_us, int64_t gap_us, double si,
                        double sb, const kr_track_frame **out);

kr_status kr_track_update(kr_track_t *t, const kr_image_t *frame, int64_t t_us, int64_t gap_us,
                          const kr_track_frame **out)
{
    if (!t || !frame || !frame->px || !out)
        return KR_ERR_INVALID;
    if (frame->w != t->fw || frame->h != t->fh || frame->channels != 3) {
        snprintf(t->err, sizeof t->err, "frame is %dx%dx%d, tracker expects %dx%dx3", frame->w, frame->h,
                 frame->channels, t->fw, t->fh);
        return KR_ERR_INVALID;
    }
    kr_track_src src = {frame, NULL, NULL};
    double si, sb;
    swap_mat(t);
    gather(t, frame, &si, &sb);
    return update(t, &src, t_us, gap_us, si, sb, out);
}

kr_status kr_track_update_yuv(kr_track_t *t, const kr_yuv_t *frame, int64_t t_us, int64_t gap_us,
                              const kr_track_frame **out)
{
    if (!t || !frame || !frame->y || !frame->u || !frame->v || !out)
        return KR_ERR_INVALID;
    if (frame->w != t->fw || frame->h != t->fh || frame->stride_y < frame->w ||
        frame->stride_c < (frame->w + 1) / 2) {
        snprintf(t->err, sizeof t->err, "YUV frame is %dx%d (strides %d, %d), tracker expects %dx%d", frame->w,
                 frame->h, frame->stride_y, frame->stride_c, t->fw, t->fh);
        return KR_ERR_INVALID;
    }
    yuv_tables(t, frame->full_range, frame->bt709);
    kr_track_src src = {NULL, frame, &t->yuv_tab[0][0]};
    double si, sb;
    swap_mat(t);
    gather_yuv(t, &src, &si, &sb);
    return update(t, &src, t_us, gap_us, si, sb, out);
}

/* |dB| + |dG| + |dR| of a pixel from the last frame (P) to this one (I), the last one lit as
 * this one (P scaled by t->light_step_q, the global gain's step: 1 to the bit when it holds).
 * A step of the light changes every lit pixel by its share, a bright hand or card by more
 * than the fixed noise at 1 %: under lamps too steady to be steadied (light_steady) a still
 * hand kept "changing" on such frames (look 7087 at 60 fps, a phone's footage: rolling
 * shutter, no B-frames, frame times jittered; the gain stepping by up to 1.1 % between
 * frames at a swing of 0.36 %: race_5ms A's own change 2880 on a frame 66 ms after it lay
 * on the card, its landing read there, +73.9 ms, and the take went to B unflagged). The
 * change as it was (the lit change, tip_change_own_lit) is kept beside it: the codec's redraw
 * of a step is not exact, and on the main renders at 60 and 120 fps race_20ms B's last frame
 * of descent (4.6 mm, 1083 over a level of 1000 as it was, 903 lit as the last) went quiet
 * with it, read 45 and 29 ms early and the take given to B (flagged): the event detector
 * reads a race's landing on both and widens its error to span them (race_landing) */
static inline int px_change(const kr_track_t *t, const uint8_t *I, const uint8_t *P)
{
    const unsigned q = t->light_step_q;
    int d = 0;
    for (int k = 0; k < 3; k++) {
        const int pk = (int)((P[k] * q + 2048) >> 12);
        d += abs(I[k] - pk);
    }
    return d;
}

/* The codec's share of a pixel's change on a frame whose light stepped (kr_track.light_codec) */
static inline int light_noise(const kr_track_t *t, const uint8_t *I)
{
    return t->light_codec > 0 ? (int)(t->light_codec * (I[0] + I[1] + I[2])) : 0;
}

/* The TIP_NOISE_Q quantile of the n changes counted in hist (|dB| + |dG| + |dR|: 0 .. 765) */
static int noise_quantile(const int32_t *hist, long n)
{
    long want = (long)(TIP_NOISE_Q * (double)n), acc = 0;
    int q = 0;
    while (q < 765 && acc + hist[q] <= want)
        acc += hist[q++];
    return q;
}

/* The per-pixel level of the sensor's noise (t->noise_floor): the median over the last
 * KR_TRACK_NOISE_N frames of the TIP_NOISE_Q quantile of |dB| + |dG| + |dR| since the
 * frame before, over the mat's pixels that are background now and were unchanged
 * (STILL_DIFF) from the frame before that (tip_noise's pixels, but over the whole mat, on a
 * grid of every FRAME_NOISE_STEP rows and columns; a frame with fewer than TIP_NOISE_MIN_PX
 * of them is not counted), or TIP_CHANGE_NOISE when that is more. A sensor's noise (a dim
 * hall, a phone's small sensor at a high gain) is in every pixel of every frame, the
 * hands' and the cards' as well as the mat's, so it is read over the whole mat and over
 * frames; the codec's redraw of its blocks at a keyframe comes in one frame and in regions
 * (tip_noise reads it where the tip is). Clean renders' still mat changes by 3 to 4 at that
 * quantile (a keyframe's frame up to 15): the level stays TIP_CHANGE_NOISE but on a few
 * frames (9 of the demo's 773 at 30 fps, at 9); under a sensor's noise of 12 grey levels at
 * 30 fps it is 16.6 on average, up to 20 (there a hand lying still by another changed its
 * own picture by 5898 to 9387 a frame counted beyond TIP_CHANGE_NOISE, against a quiet
 * level of 2000; docs/results-events.md, forty-eighth session). */
static void frame_noise(kr_track_t *t)
{
    if (t->frames > 0) {
        int32_t hist[766];
        memset(hist, 0, sizeof hist);
        long n = 0;
        for (int v = 0; v < t->h; v += FRAME_NOISE_STEP)
            for (int u = 0; u < t->w; u += FRAME_NOISE_STEP) {
                const int i = v * t->w + u;
                if (t->cls[i] != KR_CLS_BG || t->still[i] == 0)
                    continue;
                const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
                hist[abs(I[0] - P[0]) + abs(I[1] - P[1]) + abs(I[2] - P[2])]++;
                n++;
            }
        if (n >= TIP_NOISE_MIN_PX) {
            t->noise_q[t->noise_head] = noise_quantile(hist, n);
            t->noise_head = (t->noise_head + 1) % KR_TRACK_NOISE_N;
            if (t->noise_n < KR_TRACK_NOISE_N)
                t->noise_n++;
        }
    }
    /* the median of the noise_n kept (the ring's first noise_n until it is full) */
    int sorted[KR_TRACK_NOISE_N];
    memcpy(sorted, t->noise_q, sizeof sorted);
    for (int a = 1; a < t->noise_n; a++)
        for (int b = a; b > 0 && sorted[b - 1] > sorted[b]; b--) {
            const int x = sorted[b];
            sorted[b] = sorted[b - 1];
            sorted[b - 1] = x;
        }
    const int med = t->noise_n > 0 ? sorted[t->noise_n / 2] : 0;
    t->noise_floor = med > TIP_CHANGE_NOISE ? med : TIP_CHANGE_NOISE;
}

/* The change between frames that is noise around the leading point (lu, lv; mat px), within
 * r px of it (tip_change's per-pixel level): the sensor's (t->noise_floor, frame_noise: at
 * least TIP_CHANGE_NOISE), or more where the still picture there changed (the codec
 * redrawing its blocks at a keyframe or a step of its rate control, a flicker of the
 * light): the TIP_NOISE_Q quantile of |dB| + |dG| + |dR| since the last frame over the
 * pixels that are background now and were unchanged
 * (STILL_DIFF) from the frame before to the last (no hand, shadow or card in motion, nor
 * where one just left), when there are TIP_NOISE_MIN_PX of them. The codec's noise comes
 * in regions of blocks (a still hand on a card changing by 1000-12000 over its circle at
 * levels of 3 to 21 while the mat a hand's length away stays unchanged), so it is read
 * where the tip is. A hand lying still changes by no more than the card and mat around
 * it; one coming down changes its outline and its shadow by tens of levels. */
static int tip_noise(const kr_track_t *t, double lu, double lv, int r)
{
    int32_t hist[766];
    memset(hist, 0, sizeof hist);
    long n = 0;
    const int lu_i = (int)lu, lv_i = (int)lv;
    for (int v = lv_i - r; v <= lv_i + r; v++)
        for (int u = lu_i - r; u <= lu_i + r; u++) {
            if (u < 0 || v < 0 || u >= t->w || v >= t->h || sqr(u + 0.5 - lu) + sqr(v + 0.5 - lv) > r * r)
                continue;
            int i = v * t->w + u;
            if (t->cls[i] != KR_CLS_BG || t->still[i] == 0)
                continue;
            const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
            hist[abs(I[0] - P[0]) + abs(I[1] - P[1]) + abs(I[2] - P[2])]++;
            n++;
        }
    if (n < TIP_NOISE_MIN_PX)
        return t->noise_floor;
    const int q = noise_quantile(hist, n);
    return q > t->noise_floor ? q : t->noise_floor;
}

/* The light's fast swing taken out of the mat image. Lamps on mains power pulse at 100 or
 * 120 Hz: a global shutter sees each frame brighter or darker than the last (by a few per
 * cent under old tubes or cheap LED drivers), a rolling shutter sees bands of rows at
 * different levels. Every lit surface changes by the same factor, so a still hand and the
 * card under it change by more grey levels than the mat's noise, and the presses' tip
 * change (a hand settling) never goes quiet. The level is measured in LIGHT_BANDS bands
 * of camera rows, each from the pixels that were background last frame (this frame's
 * B+G+R over the background's), against the light's steady level (the global gain
 * smoothed over LIGHT_REF_S). Once the bands swing by more than LIGHT_ON (the median of
 * the bands' squared shares off it, smoothed over about LIGHT_SWING_S, its root: lamps
 * swing every band, a body's shadow or an arm and cards crossing the mat a few: two renders
 * at 30 fps under lamps of 1.2 % swung by 1.5 and 2.2 % with the mean, by 0.65 and 0.82 %
 * with the median), each mat pixel is scaled by its camera row's factor, interpolated between the
 * bands' centres, so that the picture is lit at the steady level; below LIGHT_OFF the
 * picture is left as it is (a light steady to within the codec's noise). Returns the gain
 * the classification uses: the steady level while compensating, else g. */
#define LIGHT_BANDS KR_TRACK_LIGHT_BANDS
#define LIGHT_MIN_SAMPLES 100 /* a band's level from at least this many background samples, else g */
#define LIGHT_REF_S 0.15
#define LIGHT_SWING_S 1.0
#ifndef LIGHT_ON /* (a build with -DLIGHT_ON=9 never steadies: the figures without it) */
#define LIGHT_ON 0.007  /* RMS share of the bands' levels off the steady level: on above ... */
#endif
#define LIGHT_OFF 0.005 /* ... off below. The usual lamps (1.2 % of flicker at 100 Hz) swing by
                           0.86-0.93 % in a video coded without B-frames, as phones record: the
                           codec keeps each step, two frames in three at 60 fps, and a hand lying
                           still beside the other changes by thousands on them (tip_change_own
                           counts beyond a fixed level). With the threshold at 1.5 % (until the
                           forty-third session) such footage was left as it was: at 60 fps
                           both_fault's press came 41 ms late, at 120 fps four presses came 25-96
                           ms late, two were lost and a ruling went wrong unflagged. An encoder
                           with B-frames draws the same lamps in steps of one level of luma every
                           few frames (0.5-0.9 %): such renders are steadied in part (the demo,
                           match_b at 120 fps), their touches moved by up to 23 ms within their
                           errors, no ruling's outcome */
#ifndef LIGHT_CODEC /* (-DLIGHT_CODEC=F: the docs' comparison of factors) */
#define LIGHT_CODEC 0.3 /* a compressed picture redraws a light step of s with per-pixel errors up
                           to about this share of s x (B + G + R): the tip change counts beyond it */
#endif
static double light_steady(kr_track_t *t, double g, double dt_s)
{
    double  sb[LIGHT_BANDS] = {0};
    int64_t si_n[LIGHT_BANDS] = {0}; /* whole numbers: the sum in any order, exactly */
    int     ns[LIGHT_BANDS] = {0};
    const uint8_t *restrict cls = t->cls;
    const int32_t *restrict lut = t->lut_off;
    /* the band's sums in registers while the band stays the same (a mat row's pixels lie
     * in a few camera rows), written back when it changes: the same additions in the same
     * order as into the arrays */
    int     kc = 0, nc = ns[0];
    int64_t sic = si_n[0];
    double  sbc = sb[0];
    for (int i = 0; i < t->n; i += 3) {
        int32_t off = lut[i];
        if (cls[i] != KR_CLS_BG || off < 0)
            continue;
        int k = t->row_band[off >> 15];
        if (k != kc) {
            si_n[kc] = sic;
            sb[kc] = sbc;
            ns[kc] = nc;
            kc = k;
            sic = si_n[k];
            sbc = sb[k];
            nc = ns[k];
        }
        const uint8_t *I = t->mat + (size_t)i * 3;
        const float *b = t->bg + (size_t)i * 3;
        sic += I[0] + I[1] + I[2];
        sbc += (double)b[0] + b[1] + b[2];
        nc++;
    }
    si_n[kc] = sic;
    sb[kc] = sbc;
    ns[kc] = nc;
    double si[LIGHT_BANDS];
    for (int k = 0; k < LIGHT_BANDS; k++)
        si[k] = (double)si_n[k];
    if (t->light_ref <= 0 || dt_s <= 0) /* the first frame measured, or one after a gap */
        t->light_ref = g;
    else
        t->light_ref += (1.0 - exp(-dt_s / LIGHT_REF_S)) * (g - t->light_ref);
    const double ref = t->light_ref;
    double gk[LIGHT_BANDS], dev[LIGHT_BANDS];
    int nd = 0;
    for (int k = 0; k < LIGHT_BANDS; k++) {
        gk[k] = ns[k] >= LIGHT_MIN_SAMPLES && sb[k] > 0 ? si[k] / sb[k] : g;
        if (ns[k] >= LIGHT_MIN_SAMPLES)
            dev[nd++] = sqr(gk[k] / ref - 1.0);
    }
    if (nd > 0 && dt_s > 0)
        t->light_swing += (1.0 - exp(-dt_s / LIGHT_SWING_S)) * (kr_median(dev, nd) - t->light_swing);
    /* the largest step of a band's level since the last frame */
    double step = 0;
    for (int k = 0; k < LIGHT_BANDS; k++) {
        if (ns[k] >= LIGHT_MIN_SAMPLES && t->light_band[k] > 0 && fabs(gk[k] / t->light_band[k] - 1.0) > step)
            step = fabs(gk[k] / t->light_band[k] - 1.0);
        t->light_band[k] = ns[k] >= LIGHT_MIN_SAMPLES && dt_s > 0 ? gk[k] : 0;
    }
    t->light_codec = 0;
    const double rms = sqrt(t->light_swing);
    if (!t->light_on && rms > LIGHT_ON)
        t->light_on = 1;
    else if (t->light_on && rms < LIGHT_OFF)
        t->light_on = 0;
    if (!t->light_on)
        return g;
    t->light_codec = LIGHT_CODEC * step;
    /* each camera row's factor (x 4096): the bands' ref / level, linear between their
     * centres, flat beyond the outer ones */
    for (int y = 0; y < t->fh; y++) {
        double pos = (y + 0.5) * LIGHT_BANDS / t->fh - 0.5;
        int k = (int)floor(pos);
        double f = pos - k, lev;
        if (k < 0)
            lev = gk[0];
        else if (k >= LIGHT_BANDS - 1)
            lev = gk[LIGHT_BANDS - 1];
        else
            lev = gk[k] + f * (gk[k + 1] - gk[k]);
        double s = ref / lev;
        s = s < 0.75 ? 0.75 : s > 1.33 ? 1.33 : s;
        t->row_gain[y] = (uint16_t)lround(s * 4096.0);
    }
    for (int r = 0; r < t->n_runs; r++) { /* a run of pixels from one camera row: one factor */
        const unsigned s = t->row_gain[t->run_row[r]];
        uint8_t *restrict I = t->mat + (size_t)t->run_start[r] * 3;
        const int m = 3 * t->run_len[r];
        for (int k = 0; k < m; k++) {
            const unsigned v = (I[k] * s + 2048) >> 12;
            I[k] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
    t->yuv_prev_key = -1; /* t->prev will hold a scaled picture: the next gather converts afresh */
    return ref;
}

/* Everything after the gather (t->mat holds this frame's mat image; si, sb its gain sums). */
static kr_status update(kr_track_t *t, const kr_track_src *frame, int64_t t_us, int64_t gap_us, double si,
                        double sb, const kr_track_frame **out)
{
    const kr_track_config *cfg = &t->cfg;
    double dt_s = t->frames > 0 ? (t_us - t->last_t) / 1e6 : 0;
    if (dt_s > 0.001 && dt_s < 0.2 && gap_us <= 0) {
        /* the frame period, smoothed; thresholds counted in frames follow it */
        double s = dt_s * 60.0;
        t->period_acc = t->frames < 2 ? s : t->period_acc + 0.1 * (s - t->period_acc);
        t->fscale = fabs(t->period_acc - 1.0) < 0.02 ? 1.0 : t->period_acc;
    }
    const int n = t->n;
    /* warm-up: background is the running mean of the first frames */
    if (t->frames < cfg->warmup_frames) {
        double r = 1.0 / (double)(t->frames + 1);
        for (int i = 0; i < n; i++) {
            const uint8_t *I = t->mat + (size_t)i * 3;
            float *b = t->bg + (size_t)i * 3;
            for (int c = 0; c < 3; c++)
                b[c] = (float)(t->frames == 0 ? I[c] : b[c] + r * (I[c] - b[c]));
            t->cls[i] = t->lut_off[i] < 0 ? KR_CLS_OUT : KR_CLS_BG;
        }
    }
    /* global gain from pixels that were background last frame (summed in the gather,
     * again here during the warm-up, which has just changed the background) */
    if (t->frames < cfg->warmup_frames) {
        si = sb = 0;
        for (int i = 0; i < n; i += 3) {
            if (t->cls[i] != KR_CLS_BG)
                continue;
            const uint8_t *I = t->mat + (size_t)i * 3;
            const float *b = t->bg + (size_t)i * 3;
            si += I[0] + I[1] + I[2];
            sb += b[0] + b[1] + b[2];
        }
    }
    double g = sb > 0 ? si / sb : 1.0;
    if (g < 0.4) g = 0.4;
    if (g > 2.5) g = 2.5;
    const double g_raw = g;
    if (t->frames >= cfg->warmup_frames)
        g = light_steady(t, g, gap_us > 0 ? 0 : dt_s);
    /* classify: branch-free per pixel (the same tests as kr_track_compare_px_ and the
     * skin test, combined with bit operations), then the rarer foreground refinements */
    const float gf = (float)g;
    int refs = t->cards_ready;
    {
        cls_par cp;
        cp.gf = gf;
        cp.cc0 = (float)cfg->chroma_thresh;
        cp.cc1 = cp.cc0 * 1.6f;
        cp.cc0 *= cp.cc0;
        cp.cc1 *= cp.cc1;
        cp.cj0 = (float)cfg->chroma_join;
        cp.cj1 = cp.cj0 * 1.6f;
        cp.cj0 *= cp.cj0;
        cp.cj1 *= cp.cj1;
        if (!(cfg->chroma_join > 0 && cfg->chroma_join < cfg->chroma_thresh)) {
            cp.cj0 = cp.cc0; /* off: a pixel past these is foreground, never joining */
            cp.cj1 = cp.cc1;
        }
        cp.bh = (float)cfg->bright_hi;
        cp.sl = (float)cfg->shadow_lo;
        cp.shh = (float)cfg->shadow_hi;
        /* a background pixel that is exactly last frame's stays background while the
         * gain holds still; each pixel is still tested afresh every fourth frame (the
         * background creeps). Foreground and shadow are tested every frame. */
        cp.coherent = t->frames > cfg->warmup_frames && fabs(g - t->g_prev) <= GAIN_STEADY;
        cp.phase = (unsigned)(t->frames & 3);
        for (int v = 0; v < t->h; v++)
            t->rowfg[v] = (uint8_t)(t->plain ? classify_span(t, &cp, v * t->w, (v + 1) * t->w)
                                               : classify_span_simd(t, &cp, v * t->w, (v + 1) * t->w));
    }
    for (int v = 0; v < t->h && refs; v++)
        for (int i = v * t->w, e = i + t->w; i < e && t->rowfg[v]; i++) {
            if (t->cls[i] == KR_CLS_JOIN) {
                /* a slight change to the mat's own colour is the mat (where the background
                 * had learned something that has gone: a ghost), not pale skin */
                if (mat_coloured(t, t->mat + (size_t)i * 3, g))
                    t->cls[i] = KR_CLS_BG;
                continue;
            }
            if (t->cls[i] != KR_CLS_FG)
                continue;
            const uint8_t *I = t->mat + (size_t)i * 3;
            if (kr_track_card_coloured_(t, I, g))
                t->cls[i] = KR_CLS_CARDLIKE;
            else if (t->fpmask[i] && mat_coloured(t, I, g))
                t->cls[i] = KR_CLS_OTHER; /* bare mat revealed where a card lay (it moved away);
                                             elsewhere mat-coloured change is a blurred hand */
        }
    /* arms: foreground joined through card-coloured foreground, so that a light sleeve
     * (card-like against the mat) still connects a hand to its player's edge; only the
     * non-card-like pixels become the hand (pieces joined only through joining pixels are
     * given an arm afterwards: join_pieces) */
    label_class(t, (1u << KR_CLS_FG) | (1u << KR_CLS_CARDLIKE));
    memset(t->fr.hands, 0, sizeof t->fr.hands);
    t->fr.hand_contact = 0;
    for (int c = 0; c < t->n_comp; c++) {
        kr_track_comp *cp = &t->comp[c];
        if (cp->area < t->min_area_px)
            continue;
        if (cp->zone_a && cp->zone_b)
            cp->owner = 2;
        else if (cp->zone_a)
            cp->owner = 0;
        else if (cp->zone_b)
            cp->owner = 1;
        else {
            /* detached piece: give it to the arm whose last leading point is near */
            double cu = cp->sum_u / cp->area, cv = cp->sum_v / cp->area, best = 1e30;
            for (int p = 0; p < 2; p++) {
                if (!t->prev_hand[p].present)
                    continue;
                double u, v;
                kr_track_mm_to_mat(t, t->prev_hand[p].lead_x_mm, t->prev_hand[p].lead_y_mm, &u, &v);
                double d = sqrt(sqr(u - cu) + sqr(v - cv)) * cfg->mm_per_px;
                if (d < 90 && d < best) {
                    best = d;
                    cp->owner = p;
                }
            }
        }
    }
    /* a detached piece only joins an arm that is really there this frame (attached to
     * its player's edge); otherwise a static blob near the last leading point would keep
     * itself alive as a phantom hand */
    int attached[2] = {0, 0}, cut[2] = {0, 0};
    double cut_u[2] = {0, 0}, cut_v[2] = {0, 0};
    for (int c = 0; c < t->n_comp; c++) {
        const kr_track_comp *cp = &t->comp[c];
        if (cp->area >= t->min_area_px && (cp->zone_a || cp->zone_b)) {
            if (cp->owner == 0 || cp->owner == 2)
                attached[0] = 1;
            if (cp->owner == 1 || cp->owner == 2)
                attached[1] = 1;
        }
    }
    /* ... or joined to it through shadow alone: a fast hand's dark sleeve, blurred over the
     * mat, reads as shadow from the hand to the edge, at most a scrap of it by the edge
     * foreground (look 7120 own_take at 25 fps, A's 3 m/s sweep of card 17: the hand cut
     * off for three frames and taken for card evidence, the card's track on it, its
     * push-out read 53 ms late). Such a piece is that player's hand, and the arm is there:
     * a hand seen on the last frame (its base carried on), a piece a quarter of which or
     * more changed since the last frame (a blob left lying does not; its still_sum cannot
     * tell: changed_px), not one the other player's attached arm holds by its leading
     * point (above); a piece whose shadow reaches both edges is neither's. */
    uint8_t link[KR_TRACK_MAX_COMPS], linked[KR_TRACK_MAX_COMPS];
    memset(linked, 0, sizeof linked);
    int loose = 0; /* pieces no edge holds: the shadow pass (every row) only when there are */
    for (int c = 0; c < t->n_comp && !loose; c++)
        loose = t->comp[c].area >= t->min_area_px && !t->comp[c].zone_a && !t->comp[c].zone_b;
    if (loose && (t->prev_hand[0].present || t->prev_hand[1].present)) {
        shadow_links(t, link);
        int by_shadow[2] = {0, 0};
        for (int c = 0; c < t->n_comp; c++) {
            kr_track_comp *cp = &t->comp[c];
            const int p = link[c] - 1;
            if (cp->area < t->min_area_px || cp->zone_a || cp->zone_b || (p != 0 && p != 1) ||
                !t->prev_hand[p].present || (cp->owner == 1 - p && attached[1 - p]) ||
                4 * changed_px(t, c) < cp->area)
                continue;
            cp->owner = p;
            linked[c] = 1;
            by_shadow[p] = 1;
        }
        for (int p = 0; p < 2; p++)
            attached[p] |= by_shadow[p];
    }
    for (int c = 0; c < t->n_comp; c++) {
        kr_track_comp *cp = &t->comp[c];
        if (cp->area < t->min_area_px || cp->zone_a || cp->zone_b || linked[c])
            continue;
        /* ... nor a piece that has not changed for a while (a hand moves; bare mat where a
         * card lay, or a dropped sleeve, does not), unless it is a hand that lies still: most
         * of it was that player's hand on the last frame, unchanged since (a resting pale
         * forearm taken into the background cuts the hand on the card off its arm) */
        int kept = -1;
        double kept_share = 0;
        if (cp->owner < 0 || !attached[cp->owner] || cp->still_sum > DETACHED_STILL / t->fscale * cp->area)
            kept = still_hand(t, c, g, &kept_share);
        if (kept >= 0)
            cp->owner = kept;
        /* ... nor an arm that is not attached this frame, but for one frame's grace to a piece
         * that is mostly that hand of the last frame (still_hand) when its arm was attached
         * then: a fast hand's dark sleeve read as shadow against the mat on one frame cuts it
         * off its edge (early_entry at 60 fps, 3.000 s, its frames halved one grey level
         * apart: A's 3 m/s sweep kept or lost by whether a small scrap of sleeve at its edge
         * reached the least area; h_match_segment at 60 fps, B on card 42 at 80.0 s). A
         * grace of one frame keeps no still blob alive (kept >= 0: cp->owner is kept).
         * Beyond it, up to DETACHED_HAND_US after the arm was last attached, a hand that lies
         * still: STILL_HAND_SHARE of it unchanged since it was that hand, and its centroid
         * within CUT_STEP_MM of the piece kept on the last frame (the sleeve may stay cut off
         * all the while the hand lies on a card: look 7068 fault_way_back at 60 fps, A's dark
         * sleeve read as shadow to A's edge from the frame A's hand landed on card 27, the
         * hand dropped and the fault missed). Not a hand moving on cut off: its inner pixels
         * may be unchanged frame to frame, but it moves (varied8 v8_strike_b_120, B's hand
         * at 1 m/s, 8-12 mm a frame: kept by the share alone in the thirty-ninth session, it
         * then took A's sweeping fingers when the blobs met); the centroid's step holds that
         * off, not the share (a hand sliding 8 mm a frame keeps 0.89 of its picture). A hand
         * still braking onto the card changes a third of its picture a frame (look 7121
         * fault_way_back at 60 fps: A's hand cut off from its dark sleeve 50 ms before its
         * press on card 27, 0.68 of it unchanged on the frame after its frame of grace;
         * dropped there under a share of 0.75, the fault was missed) */
        double cu = cp->sum_u / cp->area, cv = cp->sum_v / cp->area;
        int grace = kept >= 0 && t->attached_last[kept];
        if (kept >= 0 && !grace && !attached[kept] && t->cut_last[kept]) {
            const double step_mm = sqrt(sqr(cu - t->cut_u[kept]) + sqr(cv - t->cut_v[kept])) * cfg->mm_per_px;
            grace = t->attached_t[kept] >= t_us - DETACHED_HAND_US && step_mm <= CUT_STEP_MM &&
                    kept_share > STILL_HAND_SHARE;
            KR_DEBUG("track %.3f: %c's hand cut off from its arm: %.2f of it unchanged, its centroid %.1f mm from the "
                     "last frame's: %s", t_us / 1e6, kept ? 'B' : 'A', kept_share, step_mm, grace ? "kept" : "dropped");
        }
        if ((cp->owner == 0 || cp->owner == 1) && ((!attached[cp->owner] && !grace) ||
                                                    (kept < 0 && cp->still_sum > DETACHED_STILL / t->fscale * cp->area)))
            cp->owner = -1;
        if (grace && cp->owner == kept && !attached[kept]) {
            cut[kept] = 1;
            cut_u[kept] = cu;
            cut_v[kept] = cv;
        }
    }
    for (int p = 0; p < 2; p++) {
        t->attached_last[p] = attached[p];
        if (attached[p])
            t->attached_t[p] = t_us;
        t->cut_last[p] = cut[p];
        t->cut_u[p] = cut_u[p];
        t->cut_v[p] = cut_v[p];
    }
    take_back_cut_off_arms(t);
    join_pieces(t);
    split_contacts(t, dt_s);
    {
        const double st = t->frames > cfg->warmup_frames && t->g_prev > 0 ? g / t->g_prev : 1.0;
        t->light_step_q = (unsigned)lround(4096.0 * (st < 0.5 ? 0.5 : st > 2.0 ? 2.0 : st));
    }
    frame_noise(t);
    for (int p = 0; p < 2; p++)
        hand_from_pixels(t, p, dt_s);
    for (int p = 0; p < 2; p++) {
        tip_change_own(t, p);
        near_area(t, p);
    }
    t->hand_cur ^= 1; /* this frame's hand map is the next one's last */
    /* cards */
    t->frames++;
    if (!t->cards_ready && t->frames >= cfg->warmup_frames && t->n_cards > 0) {
        kr_track_cards_start_(t, frame);
        t->cards_ready = 1;
    } else if (t->cards_ready)
        kr_track_cards_update_(t, frame, g, t_us);
    /* background update */
    /* bg_rate is per 1/60 s */
    float rate2 = (float)(2 * (t->fscale == 1.0 ? cfg->bg_rate : 1.0 - pow(1.0 - cfg->bg_rate, t->fscale)));
    const int snap = kr_track_nframes_(t, SNAP_FRAMES), snap_hand = kr_track_nframes_(t, SNAP_HAND_FRAMES),
              ghost = kr_track_nframes_(t, GHOST_FRAMES), ghost_fast = kr_track_nframes_(t, GHOST_FAST_FRAMES);
    bg_par bp = {rate2, (float)(1.0 / g), g, snap, snap_hand, ghost, ghost_fast, refs};
    double sbn = t->plain ? bg_update(t, &bp) : bg_update_simd(t, &bp);
    t->sb_next = sbn;

    t->fr.t_us = t_us;
    t->fr.gap_us = gap_us;
    t->fr.index = t->frames - 1;
    t->fr.ready = t->cards_ready || (t->n_cards == 0 && t->frames >= cfg->warmup_frames);
    t->fr.n_cards = t->n_cards;
    t->fr.cards = t->cards;
    t->fr.gain = g_raw;
    t->fr.light_swing = sqrt(t->light_swing);
    t->fr.light_steadied = t->light_on;
    t->fr.noise_floor = t->noise_floor;
    t->g_prev = g;
    t->prev_hand[0] = t->fr.hands[0];
    t->prev_hand[1] = t->fr.hands[1];
    for (int p = 0; p < 2; p++) {
        const kr_track_hand *h = &t->fr.hands[p];
        if (!h->present) {
            t->hv_n[p] = 0;
            continue;
        }
        double *e = t->hv[p][t->hv_head[p]];
        e[0] = (double)t_us;
        e[1] = h->vx_mm_s;
        e[2] = h->vy_mm_s;
        t->hv_head[p] = (t->hv_head[p] + 1) % KR_TRACK_HV_N;
        if (t->hv_n[p] < KR_TRACK_HV_N)
            t->hv_n[p]++;
    }
    t->last_t = t_us;
    *out = &t->fr;
    return KR_OK;
}

/* The sets of the components (the labelling's, FG and CARDLIKE) joined through 4-connected
 * pixels of class via, in union-find over t->parent (free once the labels are compacted):
 * the components are nodes 0 .. n_comp - 1, each pixel of class via a node after them (its
 * number in t->label, which the labelling leaves alone for that class); every set's root is
 * its smallest node, a component wherever the set holds one (components and those pixels
 * are distinct pixels: at most t->n nodes). Only the rows marked in t->rowfg are read,
 * unless all_rows. Returns the node count: n_comp when no pixel is of class via. */
static int32_t union_through(kr_track_t *t, uint8_t via, int all_rows)
{
    const int W = t->w, nc = t->n_comp;
    int32_t *par = t->parent, next = nc;
    for (int32_t c = 0; c < nc; c++)
        par[c] = c;
    for (int v = 0; v < t->h; v++)
        for (int u = 0; u < W && (all_rows || t->rowfg[v]); u++) {
            const int i = v * W + u;
            const uint8_t cl = t->cls[i];
            const int link = cl == via;
            if (!link && cl != KR_CLS_FG && cl != KR_CLS_CARDLIKE)
                continue;
            if (link) {
                par[next] = next;
                t->label[i] = next++;
            }
            const int nb[2] = {u > 0 ? i - 1 : -1, v > 0 ? i - W : -1};
            for (int k = 0; k < 2; k++) {
                if (nb[k] < 0)
                    continue;
                const uint8_t cn = t->cls[nb[k]];
                if (!(cn == via || (link && (cn == KR_CLS_FG || cn == KR_CLS_CARDLIKE))))
                    continue; /* two pieces' pixels: the labelling's */
                int32_t a = uf_find(par, t->label[i]), b = uf_find(par, t->label[nb[k]]);
                if (a != b)
                    par[a > b ? a : b] = a < b ? a : b;
            }
        }
    return next;
}

/* Pieces of foreground joined through joining pixels (KR_CLS_JOIN: pale skin over pale
 * tatami, less changed than foreground): a piece no arm owns (cut off from its arm, and
 * dropped as a still detached piece when the hand lies on a card: v5_bright_5994's race)
 * is given the one player whose arm it is joined to; joined to both, or to none, it stays
 * no one's. The joining pixels change no piece's pixels or owner otherwise, so they make
 * no contact between the two hands. The sets: union_through (split_contacts uses
 * t->parent next). Joining pixels stay so where joined to an arm (bg_px learns them as
 * slowly as the arm: learned, a resting arm would come apart again), and are background
 * elsewhere. */
static void join_pieces(kr_track_t *t)
{
    const int W = t->w, nc = t->n_comp;
    int32_t *par = t->parent;
    if (union_through(t, KR_CLS_JOIN, 0) == nc)
        return; /* no joining pixel */
    uint8_t owners[KR_TRACK_MAX_COMPS]; /* per set (its root): bit 0 A's arm, bit 1 B's */
    memset(owners, 0, (size_t)nc);
    for (int c = 0; c < nc; c++)
        if (t->comp[c].area >= t->min_area_px && t->comp[c].owner >= 0)
            owners[uf_find(par, c)] |= (uint8_t)(t->comp[c].owner == 2 ? 3 : 1 << t->comp[c].owner);
    for (int c = 0; c < nc; c++) {
        kr_track_comp *cp = &t->comp[c];
        const uint8_t o = cp->area >= t->min_area_px && cp->owner < 0 ? owners[uf_find(par, c)] : 0;
        if (o == 1 || o == 2)
            cp->owner = o - 1;
    }
    for (int v = 0; v < t->h; v++)
        for (int i = v * W, e = i + W; i < e && t->rowfg[v]; i++)
            if (t->cls[i] == KR_CLS_JOIN) {
                const int32_t r = uf_find(par, t->label[i]);
                if (r >= nc || !owners[r])
                    t->cls[i] = KR_CLS_BG;
            }
}

/* Per component c, link[c] (link: KR_TRACK_MAX_COMPS entries): the players (bit 0 A, bit 1
 * B) whose entry band its shadow reaches, through 4-connected shadow pixels (KR_CLS_SHADOW)
 * from a pixel beside it to a shadow pixel in the band (union_through; every row is read:
 * shadow alone does not mark a row in t->rowfg). */
static void shadow_links(kr_track_t *t, uint8_t *link)
{
    const int nc = t->n_comp;
    int32_t *par = t->parent;
    memset(link, 0, (size_t)KR_TRACK_MAX_COMPS);
    if (union_through(t, KR_CLS_SHADOW, 1) == nc)
        return; /* no shadow */
    for (int i = 0; i < t->n; i++)
        if (t->cls[i] == KR_CLS_SHADOW && (t->zone[i] == 1 || t->zone[i] == 2)) {
            const int32_t r = uf_find(par, t->label[i]);
            if (r < nc) /* (a set holding a component has one for its root) */
                link[r] |= (uint8_t)t->zone[i];
        }
    for (int c = 0; c < nc; c++)
        link[c] = link[uf_find(par, c)];
}

/* The hand (1 A, 2 B) whose learned colour mat pixel i is SKIN_NEARER times nearer than
 * the other's, or 0. */
static int skin_side(const kr_track_t *t, int i)
{
    const uint8_t *I = t->mat + (size_t)i * 3;
    double d[2] = {0, 0};
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 3; k++)
            d[p] += fabs(I[k] - t->skin[p][k]);
    return d[0] * SKIN_NEARER < d[1] ? 1 : d[1] * SKIN_NEARER < d[0] ? 2 : 0;
}

/* The hands followed through a contact. Where A's and B's arms form one component, each
 * pixel goes to the hand it is joined to, grown from what is known to be each hand: the
 * pixels of each player's entry band, and the pixels that were that hand on the last
 * frame, where they were and where they are now if the hand moved on as its leading point
 * did (a moving hand covers its own path; a hand that lies still keeps its pixels; a
 * pixel of one hand that has not changed since is that hand's). A pixel both hands claim
 * is left to the growth. The two regions grow together from those
 * seeds through the component (breadth first: each pixel to the seed nearest along the
 * component), so a fingertip reaching past the other hand's wrist stays with its own
 * arm; a split by the nearest entry point gave it to the other player (the bisector of
 * the two bases runs through the card they both reach for). When the two hands differ in
 * colour (t->skin, learned by hand_from_pixels), a pixel both claim goes to the one whose
 * colour it clearly has, and the growth first keeps out of pixels clearly of the other
 * hand's colour (see below). Writes this frame's hand map
 * (t->hmap, half hand_cur: cleared, then 1 A / 2 B on the contact components' pixels);
 * hand_from_pixels adds the other hands' pixels. The queue is t->parent (n + 2 entries,
 * free once the labels are compacted). */
static void split_contacts(kr_track_t *t, double dt_s)
{
    const size_t n = (size_t)t->n;
    uint8_t *last = t->hmap + (size_t)(t->hand_cur ^ 1) * n, *cur = t->hmap + (size_t)t->hand_cur * n;
    memset(cur, 0, n);
    int32_t *q = t->parent;
    const int W = t->w, H = t->h;
    int sh[2][2] = {{0, 0}, {0, 0}}; /* each hand's shift over the frame (mat px) */
    for (int p = 0; p < 2 && dt_s > 0; p++) {
        const kr_track_hand *ph = &t->prev_hand[p];
        if (!ph->present)
            continue;
        double du = ph->vx_mm_s * dt_s / t->cfg.mm_per_px, dv = -ph->vy_mm_s * dt_s / t->cfg.mm_per_px;
        du = du > 30 ? 30 : du < -30 ? -30 : du;
        dv = dv > 30 ? 30 : dv < -30 ? -30 : dv;
        sh[p][0] = (int)lround(du);
        sh[p][1] = (int)lround(dv);
    }
    double gap = 0; /* the two hands' colours apart (sum of |B|, |G|, |R|) */
    for (int k = 0; k < 3; k++)
        gap += fabs(t->skin[0][k] - t->skin[1][k]);
    const int apart = t->skin_ok[0] && t->skin_ok[1] && gap >= SKIN_APART;
    for (int c = 0; c < t->n_comp; c++) {
        const kr_track_comp *cp = &t->comp[c];
        if (cp->area < t->min_area_px || cp->owner != 2)
            continue;
        int head = 0, tail = 0;
        for (int v = cp->v0; v <= cp->v1; v++)
            for (int u = cp->u0; u <= cp->u1; u++) {
                int i = v * W + u;
                if (!in_comp(t, i, c))
                    continue;
                int claim[2];
                for (int p = 0; p < 2; p++) {
                    int su = u - sh[p][0], sv = v - sh[p][1];
                    claim[p] = last[i] == p + 1 ||
                               (su >= 0 && sv >= 0 && su < W && sv < H && last[sv * W + su] == p + 1);
                }
                /* a pixel that was one hand's and has not changed is still that hand's (nothing
                 * moved over it), whatever the other's motion claims */
                const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
                if (last[i] && abs(I[0] - P[0]) + abs(I[1] - P[1]) + abs(I[2] - P[2]) < STILL_DIFF)
                    claim[2 - last[i]] = 0;
                /* claimed by both (where one hand moved over the other's last place): the hand
                 * whose colour it has, when the two hands differ in colour and it is clearly
                 * nearer one. Not a pixel neither claims: a dark sleeve would pass for a
                 * dark hand (v8_strike_b at 60 fps: B's hand seeded on A's navy sleeve) */
                if (claim[0] && claim[1] && apart) {
                    const int sd = skin_side(t, i);
                    claim[0] = sd == 1;
                    claim[1] = sd == 2;
                }
                uint8_t s = t->zone[i] == 1 ? 1 : t->zone[i] == 2 ? 2 : claim[0] == claim[1] ? 0 : claim[0] ? 1 : 2;
                if (s) {
                    cur[i] = s;
                    q[tail++] = i;
                }
            }
        /* the growth: first only into pixels not clearly of the other hand's colour (a
         * fast hand's fingers sliding past the other's still hand are neither hand's last
         * place: grown from the still hand beside them, they were that hand's); then the
         * rest (a sleeve of the other's colour, unclaimed) */
        for (int pass = 0; pass < (apart ? 2 : 1); pass++) {
            if (pass == 1) {
                head = tail = 0;
                for (int v = cp->v0; v <= cp->v1; v++)
                    for (int u = cp->u0, i = v * W + u; u <= cp->u1; u++, i++)
                        if (cur[i] && in_comp(t, i, c))
                            q[tail++] = i;
            }
            while (head < tail) {
                int i = q[head++], u = i % W, v = i / W;
                int nb[4] = {u > 0 ? i - 1 : -1, u + 1 < W ? i + 1 : -1, v > 0 ? i - W : -1, v + 1 < t->h ? i + W : -1};
                for (int k = 0; k < 4; k++) {
                    int j = nb[k];
                    if (j >= 0 && !cur[j] && in_comp(t, j, c)) {
                        if (apart && pass == 0) {
                            const int sd = skin_side(t, j);
                            if (sd && sd != cur[i])
                                continue;
                        }
                        cur[j] = cur[i];
                        q[tail++] = j;
                    }
                }
            }
        }
    }
}

/* A mat pixel within VIEW_EDGE_PX of (u, v) lies outside the warped area or the view. */
static int near_view_edge(const kr_track_t *t, int u, int v)
{
    for (int y = v - VIEW_EDGE_PX; y <= v + VIEW_EDGE_PX; y++)
        for (int x = u - VIEW_EDGE_PX; x <= u + VIEW_EDGE_PX; x++)
            if (!kr_track_px_in_view_(t, x, y))
                return 1;
    return 0;
}

/* Builds player p's hand from the components it owns (and its share of a contact
 * component): classes, base, leading point, velocity, shadow cue. */
static void hand_from_pixels(kr_track_t *t, int p, double dt_s)
{
    const double mmpp = t->cfg.mm_per_px;
    kr_track_hand *h = &t->fr.hands[p];
    double bu = 0, bv = 0;
    long bn = 0;
    long area = 0;
    for (int c = 0; c < t->n_comp; c++) {
        kr_track_comp *cp = &t->comp[c];
        if (cp->area < t->min_area_px)
            continue;
        if (cp->owner == p || cp->owner == 2) {
            if (p == 0) {
                bu += cp->za_u;
                bv += cp->za_v;
                bn += cp->zone_a;
            } else {
                bu += cp->zb_u;
                bv += cp->zb_v;
                bn += cp->zone_b;
            }
        }
    }
    if (bn == 0) {
        /* pieces without an entry band (arm hidden): base from the last frame */
        if (!t->prev_hand[p].present)
            return;
        kr_track_mm_to_mat(t, t->prev_hand[p].base_x_mm, t->prev_hand[p].base_y_mm, &bu, &bv);
        bn = 1;
    } else {
        bu /= bn;
        bv /= bn;
    }
    /* a contact component is split by split_contacts (this frame's hand map) */
    uint8_t *hcur = t->hmap + (size_t)t->hand_cur * (size_t)t->n;
    /* the leading point is the arm's pixel furthest from the base among those over the
     * field (or at most 30 mm behind the player's edge) when there are any: pixels strung
     * along the edge behind it (the other hand, a sleeve, a ghost where the arm lay) are
     * not the reach */
    double eu, ev;
    kr_track_mm_to_mat(t, 0, p == 0 ? -KR_TRACK_FIELD_HALF_H_MM - 30 : KR_TRACK_FIELD_HALF_H_MM + 30, &eu, &ev);
    (void)eu;
    double best = -1, best_in = -1;
    int best_l = -1, best_in_l = -1;
    int u0 = t->w, v0 = t->h, u1 = -1, v1 = -1;
    double cu = 0, cvv = 0;
    long cn = 0;
    uint8_t mine = (uint8_t)(p == 0 ? KR_CLS_HAND_A : KR_CLS_HAND_B);
    /* only the boxes of the components this hand may own hold its pixels */
    int su0 = t->w, sv0 = t->h, su1 = -1, sv1 = -1;
    for (int c = 0; c < t->n_comp; c++) {
        const kr_track_comp *cp = &t->comp[c];
        if (cp->area < t->min_area_px || (cp->owner != p && cp->owner != 2))
            continue;
        if (cp->u0 < su0) su0 = cp->u0;
        if (cp->v0 < sv0) sv0 = cp->v0;
        if (cp->u1 > su1) su1 = cp->u1;
        if (cp->v1 > sv1) sv1 = cp->v1;
    }
    for (int v = sv0; v <= sv1; v++)
        for (int u = su0; u <= su1; u++) {
            int i = v * t->w + u;
            if (t->cls[i] != KR_CLS_FG)
                continue; /* (labelled: FG was in the label set) */
            int l = t->label[i];
            kr_track_comp *cp = &t->comp[l];
            if (cp->area < t->min_area_px || (cp->owner != p && cp->owner != 2))
                continue;
            double d = sqr(u - bu) + sqr(v - bv);
            if (cp->owner == 2) {
                if (hcur[i] != p + 1)
                    continue;
                /* where the two hands meet: a pixel beside one of the other's */
                const uint8_t o = (uint8_t)(2 - p);
                if ((u > 0 && hcur[i - 1] == o) || (u + 1 < t->w && hcur[i + 1] == o) ||
                    (v > 0 && hcur[i - t->w] == o) || (v + 1 < t->h && hcur[i + t->w] == o)) {
                    cu += u;
                    cvv += v;
                    cn++;
                }
            }
            hcur[i] = (uint8_t)(p + 1);
            t->cls[i] = mine;
            area++;
            if (u < u0) u0 = u;
            if (u > u1) u1 = u;
            if (v < v0) v0 = v;
            if (v > v1) v1 = v;
            if (d > best) {
                best = d;
                best_l = l;
            }
            if ((p == 0 ? v < ev : v > ev) && d > best_in) {
                best_in = d;
                best_in_l = l;
            }
        }
    if (area < t->min_area_px)
        return;
    /* leading point: at the furthest distance from the base, in the direction of the mean
     * of the pixels within 3 px of it (a single furthest pixel jumps between fingers and
     * blur from frame to frame; the mean of a band alone falls short of the tip) */
    int only_in = best_in >= 0;
    int lc = only_in ? best_in_l : best_l;
    if (only_in)
        best = best_in;
    /* measured from the entry of the arm that reaches there (the player's other arm
     * enters elsewhere and would pull a shared base aside) */
    double lbu = bu, lbv = bv;
    const kr_track_comp *lcp = &t->comp[lc];
    int lzone = p == 0 ? lcp->zone_a : lcp->zone_b;
    if (lcp->owner == p && lzone > 0) {
        lbu = (p == 0 ? lcp->za_u : lcp->zb_u) / lzone;
        lbv = (p == 0 ? lcp->za_v : lcp->zb_v) / lzone;
        best = -1;
        for (int v = lcp->v0; v <= lcp->v1; v++)
            for (int u = lcp->u0; u <= lcp->u1; u++) {
                int i = v * t->w + u;
                if (t->cls[i] != mine || t->label[i] != lc || (only_in && !(p == 0 ? v < ev : v > ev)))
                    continue;
                double d = sqr(u - lbu) + sqr(v - lbv);
                if (d > best)
                    best = d;
            }
    } else
        lc = -1;
    double lim = sqrt(best) - 3.0, lu = 0, lv = 0;
    long ln = 0;
    lim = lim > 0 ? lim * lim : 0;
    for (int v = v0; v <= v1; v++)
        for (int u = u0; u <= u1; u++) {
            int i = v * t->w + u;
            if (t->cls[i] != mine || (lc >= 0 && t->label[i] != lc))
                continue;
            double d = sqr(u - lbu) + sqr(v - lbv);
            if (d >= lim && (!only_in || (p == 0 ? v < ev : v > ev))) {
                lu += u;
                lv += v;
                ln++;
            }
        }
    lu /= ln;
    lv /= ln;
    double lb = sqrt(sqr(lu - lbu) + sqr(lv - lbv));
    if (lb > 1e-6) {
        double reach = sqrt(best) + 0.5; /* to the far edge of the furthest pixel */
        lu = lbu + (lu - lbu) / lb * reach;
        lv = lbv + (lv - lbv) / lb * reach;
    }
    lu += 0.5;
    lv += 0.5;
    /* the leading point at the edge of the view (the warped area's border, or mat the camera
     * does not see): the hand may reach on beyond it */
    h->at_view_edge = near_view_edge(t, (int)lu, (int)lv);
    h->present = 1;
    h->area_mm2 = area * mmpp * mmpp;
    kr_track_mat_to_mm(t, u0, v1 + 1, &h->bbox_mm[0], &h->bbox_mm[1]);
    kr_track_mat_to_mm(t, u1 + 1, v0, &h->bbox_mm[2], &h->bbox_mm[3]);
    kr_track_mat_to_mm(t, lu, lv, &h->lead_x_mm, &h->lead_y_mm);
    kr_track_mat_to_mm(t, bu + 0.5, bv + 0.5, &h->base_x_mm, &h->base_y_mm);
    h->in_field = fabs(h->lead_x_mm) <= KR_TRACK_FIELD_HALF_W_MM && fabs(h->lead_y_mm) <= KR_TRACK_FIELD_HALF_H_MM;
    const kr_track_hand *ph = &t->prev_hand[p];
    if (ph->present && dt_s > 0) {
        h->vx_mm_s = (h->lead_x_mm - ph->lead_x_mm) / dt_s;
        h->vy_mm_s = (h->lead_y_mm - ph->lead_y_mm) / dt_s;
    }
    /* left / right from the player's view: the side of the body the arm comes from. The
     * arm's line from the leading point back through its base, followed to the shoulders'
     * depth (SHOULDER_MM), says which shoulder it hangs from; the base alone is fooled by a
     * hand reaching across the body (a left hand on a card at the far right enters the view
     * right of the middle: open v7 study, a left-handed A's first take read right). Only
     * for a hand reaching in (its leading point ARM_LINE_MM or more in from the base), and
     * not past three times the line's own depth back: a hand held at its guard, the wrist
     * along the edge, points sideways, not at its shoulder (v4_bodies_60_8203: left-handed
     * B's guard read right on 1339 frames). */
    double sx = h->base_x_mm, ax = h->base_x_mm - h->lead_x_mm, ay = h->base_y_mm - h->lead_y_mm;
    double back = (p == 0 ? -SHOULDER_MM : SHOULDER_MM) - h->base_y_mm;
    if (fabs(ay) >= ARM_LINE_MM && ay * back > 0)
        sx += ax * fmin(back / ay, 3.0);
    double rel = sx * (p == 0 ? 1 : -1);
    h->side = rel > 40 ? 1 : rel < -40 ? -1 : 0;
    /* shadow cue around the leading point */
    int r1 = (int)(45 / mmpp), r2 = (int)(100 / mmpp);
    int lu_i = (int)lu, lv_i = (int)lv;
    double sbest = -1, su = 0, sv = 0;
    int scount = 0;
    for (int v = lv_i - r2; v <= lv_i + r2; v++)
        for (int u = lu_i - r2; u <= lu_i + r2; u++) {
            if (u < 0 || v < 0 || u >= t->w || v >= t->h)
                continue;
            if (t->cls[v * t->w + u] != KR_CLS_SHADOW)
                continue;
            double dl = sqr(u - lu) + sqr(v - lv);
            if (dl <= r1 * r1)
                scount++;
            double db = sqr(u - bu) + sqr(v - bv);
            if (db > sbest) {
                sbest = db;
                su = u + 0.5;
                sv = v + 0.5;
            }
        }
    /* the tip settling: change since the previous frame around the leading point (the hand
     * coming down, its shadow sliding under it), the other player's hand left out; per pixel,
     * beyond the noise of the still picture around it (tip_noise) */
    int r3 = (int)(TIP_CHANGE_MM / mmpp);
    uint8_t theirs = (uint8_t)(p == 0 ? KR_CLS_HAND_B : KR_CLS_HAND_A);
    const int noise = t->frames > 0 ? tip_noise(t, lu, lv, r3) : TIP_CHANGE_NOISE;
    double chg = 0, chg_lit = 0, rgb[3] = {0, 0, 0};
    long nrgb = 0;
    for (int v = lv_i - r3; v <= lv_i + r3; v++)
        for (int u = lu_i - r3; u <= lu_i + r3; u++) {
            if (u < 0 || v < 0 || u >= t->w || v >= t->h || sqr(u + 0.5 - lu) + sqr(v + 0.5 - lv) > r3 * r3)
                continue;
            int i = v * t->w + u;
            if (t->cls[i] == KR_CLS_OUT || t->cls[i] == theirs)
                continue;
            const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
            if (t->cls[i] == mine) {
                for (int k = 0; k < 3; k++)
                    rgb[k] += I[k];
                nrgb++;
            }
            const int d_lit = abs(I[0] - P[0]) + abs(I[1] - P[1]) + abs(I[2] - P[2]) - noise;
            const int d = px_change(t, I, P) - noise - light_noise(t, I);
            if (d > 0)
                chg += d;
            if (d_lit > 0)
                chg_lit += d_lit;
        }
    h->tip_change = chg / 3.0 * mmpp * mmpp;
    h->tip_change_own_lit = chg_lit / 3.0 * mmpp * mmpp; /* the whole circle's: kept when nothing is masked */
    if (cn == 0 && nrgb >= SKIN_MIN_PX) { /* touching no other hand: its colour (split_contacts) */
        for (int k = 0; k < 3; k++)
            t->skin[p][k] = t->skin_ok[p] ? 0.7 * t->skin[p][k] + 0.3 * rgb[k] / (double)nrgb : rgb[k] / (double)nrgb;
        t->skin_ok[p] = 1;
    }
    h->shadow_px = scount;
    h->shadow_dist_mm = sbest >= 0 ? sqrt(sqr(su - lu) + sqr(sv - lv)) * mmpp : -1;
    if (cn > 0) { /* (B's, made after A's, is the one kept) */
        t->fr.hand_contact = 1;
        kr_track_mat_to_mm(t, cu / cn + 0.5, cvv / cn + 0.5, &t->fr.contact_x_mm, &t->fr.contact_y_mm);
    }
}

/* Chessboard (8-neighbour) distance transform in place over a ww x wh box: d holds 0 on
 * the seed pixels and a value above any distance in the box elsewhere; two passes. */
static void chess_dt(int32_t *d, int ww, int wh)
{
    for (int y = 0; y < wh; y++)
        for (int x = 0; x < ww; x++) {
            int32_t *c = &d[y * ww + x], b = *c;
            if (b == 0)
                continue;
            if (x > 0 && c[-1] + 1 < b) b = c[-1] + 1;
            if (y > 0) {
                const int32_t *a = c - ww;
                if (a[0] + 1 < b) b = a[0] + 1;
                if (x > 0 && a[-1] + 1 < b) b = a[-1] + 1;
                if (x + 1 < ww && a[1] + 1 < b) b = a[1] + 1;
            }
            *c = b;
        }
    for (int y = wh - 1; y >= 0; y--)
        for (int x = ww - 1; x >= 0; x--) {
            int32_t *c = &d[y * ww + x], b = *c;
            if (b == 0)
                continue;
            if (x + 1 < ww && c[1] + 1 < b) b = c[1] + 1;
            if (y + 1 < wh) {
                const int32_t *a = c + ww;
                if (a[0] + 1 < b) b = a[0] + 1;
                if (x > 0 && a[-1] + 1 < b) b = a[-1] + 1;
                if (x + 1 < ww && a[1] + 1 < b) b = a[1] + 1;
            }
            *c = b;
        }
}

/* kr_track_hand.near_area_mm2 of hand p: the pixels of either hand (this frame's hand
 * map) within NEAR_MM of its leading point; near_own_mm2: those of hand p alone. */
static void near_area(kr_track_t *t, int p)
{
    kr_track_hand *h = &t->fr.hands[p];
    h->near_area_mm2 = 0;
    h->near_own_mm2 = 0;
    if (!h->present)
        return;
    const double mmpp = t->cfg.mm_per_px;
    const uint8_t *cur = t->hmap + (size_t)t->hand_cur * (size_t)t->n;
    double lu, lv;
    kr_track_mm_to_mat(t, h->lead_x_mm, h->lead_y_mm, &lu, &lv);
    const double r = NEAR_MM / mmpp;
    const int v0 = (int)floor(lv - r), v1 = (int)ceil(lv + r), u0 = (int)floor(lu - r), u1 = (int)ceil(lu + r);
    long count = 0, own = 0;
    for (int v = v0 < 0 ? 0 : v0; v <= v1 && v < t->h; v++)
        for (int u = u0 < 0 ? 0 : u0; u <= u1 && u < t->w; u++) {
            const uint8_t c = cur[v * t->w + u];
            if (c && sqr(u + 0.5 - lu) + sqr(v + 0.5 - lv) <= r * r) {
                count++;
                own += c == p + 1;
            }
        }
    h->near_area_mm2 = count * mmpp * mmpp;
    h->near_own_mm2 = own * mmpp * mmpp;
}

/* The tip change of hand p's own descent (kr_track_hand.tip_change_own): in a race both
 * hands come down on one card side by side, and the change around either tip is the sum
 * of both descents, so either looks settled only once the later hand lies still. Here the
 * pixels of the other hand on this frame and on the last (the hand maps, split through a
 * contact by split_contacts) are left out, with every pixel within TIP_OWN_MARGIN_MM of
 * them: the blurred edge of a hand in motion and its shadow falling close beside it (a
 * hand low over the mat casts it within a few mm, and it moves with the hand). Of the rest,
 * each pixel's change is put to the hand nearer it (either hand's pixels of this frame or
 * the last): what one hand changes of the mat, the card and its own shadow lies next to
 * it, so a pixel nearer the other hand is left out too (race_60ms at 60 fps: after A lay
 * still, all of the change left in its circle, 850 and 500 on two frames, was on pixels
 * nearer B's hand, still coming down, and on its shadow). What is left is p's own outline,
 * its own shadow and the card around its fingers. Each pixel counts beyond the sensor's
 * noise (t->noise_floor, frame_noise: TIP_CHANGE_NOISE on clean footage), not beyond
 * tip_change's tip_noise (with the other hand far off, own is tip_change itself):
 * race_landing's quiet levels were set on the count beyond TIP_CHANGE_NOISE. So on a frame
 * whose codec redrew its blocks the own change can exceed tip_change (look 7023 match_b at
 * 30 fps, B's card 56 with A's hand by it: own 1161 and 8037 on its second and third frames
 * down, tip_change 96 and 1449; its touch came +46 ms on 47, not checked to be from this).
 * Counted beyond tip_noise instead (tried in the twenty-sixth session, and again in the
 * forty-eighth), race_20ms at 60 and 120 fps put B's landing 83 and 75 ms early and ruled
 * A's take B's, unflagged (the forty-eighth: race_60ms A at 120 fps -72.3 ms on 33.7). Distances:
 * chessboard distance transforms over a box twice the circle's size, in t->parent (free
 * once split_contacts is done). */
static void tip_change_own(kr_track_t *t, int p)
{
    kr_track_hand *h = &t->fr.hands[p];
    h->tip_change_own = 0;
    h->tip_own_share = 0;
    if (!h->present) {
        h->tip_change_own_lit = 0;
        return;
    }
    const double mmpp = t->cfg.mm_per_px;
    const size_t n = (size_t)t->n;
    const uint8_t *cur = t->hmap + (size_t)t->hand_cur * n, *last = t->hmap + (size_t)(t->hand_cur ^ 1) * n;
    const uint8_t o = (uint8_t)(2 - p), me = (uint8_t)(p + 1);
    double lu, lv;
    kr_track_mm_to_mat(t, h->lead_x_mm, h->lead_y_mm, &lu, &lv);
    const int r3 = (int)(TIP_CHANGE_MM / mmpp), m = (int)ceil(TIP_OWN_MARGIN_MM / mmpp);
    /* the box the distances are taken over: a pixel of the circle is left out when the
     * other hand is within the margin of it (so within r3 + m of the centre) or nearer it
     * than this hand, whose leading point is the centre (so within 2 r3 of the centre) */
    const int rb = (r3 > m ? 2 * r3 : r3 + m) + 1;
    /* the other hand nowhere near that box on this frame or the last: nothing to mask, the
     * sum is tip_change's (hand_from_pixels: same pixels, same order) */
    const double reach = (rb + 1) * mmpp;
    int near = 0;
    for (int f = 0; f < 2; f++) {
        const kr_track_hand *oh = f ? &t->prev_hand[o - 1] : &t->fr.hands[o - 1];
        if (oh->present && h->lead_x_mm > oh->bbox_mm[0] - reach && h->lead_x_mm < oh->bbox_mm[2] + reach &&
            h->lead_y_mm > oh->bbox_mm[1] - reach && h->lead_y_mm < oh->bbox_mm[3] + reach)
            near = 1;
    }
    if (!near) {
        h->tip_change_own = h->tip_change; /* and tip_change_own_lit as hand_from_pixels left it */
        h->tip_own_share = 1;
        return;
    }
    const int lu_i = (int)lu, lv_i = (int)lv;
    int u0 = lu_i - rb, v0 = lv_i - rb, u1 = lu_i + rb, v1 = lv_i + rb;
    u0 = u0 < 0 ? 0 : u0;
    v0 = v0 < 0 ? 0 : v0;
    u1 = u1 >= t->w ? t->w - 1 : u1;
    v1 = v1 >= t->h ? t->h - 1 : v1;
    if (u1 < u0 || v1 < v0)
        return;
    const int ww = u1 - u0 + 1, wh = v1 - v0 + 1;
    /* two maps in t->parent (n + 2 entries): distance to the other hand, then to this one;
     * 2 (2 rb + 1)^2 is well under n at any mat scale the tracker accepts */
    if (2 * (size_t)ww * (size_t)wh > n)
        return;
    int32_t *d = t->parent, *dm = t->parent + (size_t)ww * (size_t)wh;
    const int32_t far = ww + wh;
    int any = 0;
    for (int v = v0; v <= v1; v++)
        for (int u = u0; u <= u1; u++) {
            int i = v * t->w + u, oth = cur[i] == o || last[i] == o;
            d[(v - v0) * ww + (u - u0)] = oth ? 0 : far;
            dm[(v - v0) * ww + (u - u0)] = cur[i] == me || last[i] == me ? 0 : far;
            any |= oth;
        }
    if (any) {
        chess_dt(d, ww, wh);
        chess_dt(dm, ww, wh);
    }
    double chg = 0, chg_lit = 0;
    long all = 0, kept = 0;
    for (int v = lv_i - r3; v <= lv_i + r3; v++)
        for (int u = lu_i - r3; u <= lu_i + r3; u++) {
            if (u < 0 || v < 0 || u >= t->w || v >= t->h || sqr(u + 0.5 - lu) + sqr(v + 0.5 - lv) > r3 * r3)
                continue;
            int i = v * t->w + u;
            if (t->cls[i] == KR_CLS_OUT)
                continue;
            all++;
            const int32_t od = d[(v - v0) * ww + (u - u0)];
            if (od <= m || (any && dm[(v - v0) * ww + (u - u0)] > od))
                continue;
            kept++;
            const uint8_t *I = t->mat + (size_t)i * 3, *P = t->prev + (size_t)i * 3;
            const int e_lit = abs(I[0] - P[0]) + abs(I[1] - P[1]) + abs(I[2] - P[2]) - t->noise_floor;
            const int e = px_change(t, I, P) - t->noise_floor - light_noise(t, I);
            if (e > 0)
                chg += e;
            if (e_lit > 0)
                chg_lit += e_lit;
        }
    h->tip_change_own = chg / 3.0 * mmpp * mmpp;
    h->tip_change_own_lit = chg_lit / 3.0 * mmpp * mmpp;
    h->tip_own_share = all > 0 ? (double)kept / (double)all : 0;
}
