/* kr_recog.h - card-face recognition: which of the 100 tori-fuda lies where, read from
 * a canonical upright patch of each card and assigned jointly (each id at most once).
 * SPDX-License-Identifier: MIT                                                        */
#ifndef KR_RECOG_H
#define KR_RECOG_H
#include "kr_core.h" /* kr_status, kr_image_t */

#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started (a layout from a video, the usual way): see kr_recog_scene.h
 *   (kr_recog_scene_read -> kr_recog_layout_problem -> kr_recog_layout_write).
 * Getting started (reading a layout from card outlines you already have):
 *   kr_recog_model_load("models/cards.krm", &m, err, sizeof err)   templates per card id
 *   kr_recog_read_layout(m, &cfg, frame, quads, n, px_to_mm, ctx, cards)   all in one, or:
 *   per card on the mat: corners_px[4] (upright TL, TR, BR, BL in image px) ->
 *       kr_recog_extract(frame, corners_px, patch)      canonical KR_RECOG_PATCH_W x _H grey patch
 *       kr_recog_features(patch, &feat[i])              blank test + feature vector
 *   kr_recog_identify(m, &cfg, feat, n, res)            joint assignment, confidence, runner-up
 *   kr_recog_model_destroy(m)
 * Getting started (building models):
 *   kr_recog_poems_load(path, poems, err, n)            torifuda lines per card id
 *   kr_recog_font_open(font_path, face, &f); kr_recog_render_card(f, &style, lines, n, patch)
 *   kr_recog_model_create(&m); kr_recog_model_add_patch(m, id, "source", patch) ...
 *   kr_recog_model_save(m, path)
 * Threading: objects are independent; a model is read-only during identify and may be
 * shared between threads. Nothing here allocates per video frame. */

#define KR_RECOG_CARD_W_MM 52.0 /* tori-fuda width (portrait), mm */
#define KR_RECOG_CARD_H_MM 73.0 /* tori-fuda height, mm */
#define KR_RECOG_PX_PER_MM 2    /* canonical patch resolution, px per mm */
#define KR_RECOG_PATCH_W 104    /* 52 mm * 2 px/mm */
#define KR_RECOG_PATCH_H 146    /* 73 mm * 2 px/mm */
#define KR_RECOG_MAX_ID 100     /* card ids are 1..100 */
/* Feature ("columns2"): the card face minus a KR_RECOG_MARGIN_MM border is split into
 * its two printed columns at the ink gap between them; each column's ink extent is
 * resampled to KR_RECOG_COL_W x KR_RECOG_FEAT_H cells (mean ink, 0 paper .. 1 darkest),
 * left column at x 0..7, right at 8..15, so the feature does not depend on the glyph size, pitch, column
 * spacing or position of a particular card set, only on the shapes. */
#define KR_RECOG_MARGIN_MM 3
#define KR_RECOG_COL_W 8
#define KR_RECOG_FEAT_W (2 * KR_RECOG_COL_W)
#define KR_RECOG_FEAT_H 56
#define KR_RECOG_FEAT_N (KR_RECOG_FEAT_W * KR_RECOG_FEAT_H)

/* ---- patches and features --------------------------------------------------- */

/* Samples the card whose corners appear at corners_px (image px, in the order top-left,
 * top-right, bottom-right, bottom-left of the card seen UPRIGHT, text read top to bottom)
 * into patch (caller-owned, KR_RECOG_PATCH_W * KR_RECOG_PATCH_H bytes, grey, row-major).
 * frame: 1- or 3-channel (BGR) view. The mapping is the homography of the 4 corners
 * (lens distortion over one card is negligible) with bilinear sampling; points
 * outside the frame read as 0. KR_ERR_INVALID for degenerate corners. */
kr_status kr_recog_extract(const kr_image_t *frame, const double corners_px[4][2], uint8_t *patch);

typedef struct kr_recog_feat {
    float v[KR_RECOG_FEAT_N];    /* zero mean, unit L2 norm ink map (all 0 when blank) */
    float v180[KR_RECOG_FEAT_N]; /* the same for the patch turned 180 degrees */
    float contrast;           /* paper minus ink grey level of the 3x3-smoothed face
                                 (median - 2nd percentile), 0..255 */
    float ink;                /* share of the face darker than half-way paper -> ink (0..1) */
} kr_recog_feat;

/* Computes the feature of a canonical patch (as written by kr_recog_extract). */
kr_status kr_recog_features(const uint8_t *patch, kr_recog_feat *out);

/* ---- recognition configuration ---------------------------------------------- */

typedef struct kr_recog_config {
    int    max_shift_cells; /* templates are compared at shifts up to this many feature
                               cells in x and y; default 1 (range 0..3) */
    int    both_orientations; /* 1: also score each patch turned 180 degrees (a card
                               put down the wrong way, or the wrong owner side); default 1 */
    double min_contrast;    /* face contrast (kr_recog_feat.contrast, grey levels) below
                               this = blank / face down; default 12 */
    double min_ink;         /* ink share below this = blank / face down; default 0.004 */
    double min_score;       /* assigned correlation below this = not recognised; default 0.30 */
    double min_margin;      /* joint-assignment margin (correlation units) below this =
                               ambiguous, a person must confirm; default 0.07 */
    double conf_scale;      /* confidence = 1 - exp(-margin / conf_scale); default 0.04 */
} kr_recog_config;
void kr_recog_config_default(kr_recog_config *cfg);

/* ---- models ----------------------------------------------------------------- */

typedef struct kr_recog_model kr_recog_model_t; /* opaque: feature templates per card id */

kr_status kr_recog_model_create(kr_recog_model_t **out); /* *out caller-owned */
void      kr_recog_model_destroy(kr_recog_model_t *m);   /* NULL-safe */
/* Adds one template for card id (1..100) from a canonical patch. source: a short label
 * (font name, "enroll:<video>"), copied; NULL allowed. KR_ERR_INVALID for a blank patch. */
kr_status kr_recog_model_add_patch(kr_recog_model_t *m, int id, const char *source,
                                   const uint8_t *patch);
/* Adds a template from an already computed feature. */
kr_status kr_recog_model_add_feat(kr_recog_model_t *m, int id, const char *source,
                                  const kr_recog_feat *f);
/* Appends every template of src to m. */
kr_status kr_recog_model_merge(kr_recog_model_t *m, const kr_recog_model_t *src);
int kr_recog_model_count(const kr_recog_model_t *m);          /* templates */
int kr_recog_model_has(const kr_recog_model_t *m, int id);    /* templates for id */
/* Model files: format "karuta-recog/1", see models/README.md. Load: *out caller-owned;
 * on failure err gets a one-line message naming the file and line. Save is atomic. */
kr_status kr_recog_model_load(const char *path, kr_recog_model_t **out, char *err, size_t errlen);
kr_status kr_recog_model_save(const kr_recog_model_t *m, const char *path);

/* ---- identification --------------------------------------------------------- */

typedef enum {
    KR_RECOG_OK = 0,        /* identified with a margin >= min_margin */
    KR_RECOG_AMBIGUOUS,     /* identified, but the runner-up is too close: confirm */
    KR_RECOG_UNKNOWN,       /* best correlation below min_score: not a card we know */
    KR_RECOG_BLANK          /* no text: face down, or not a card */
} kr_recog_verdict;

typedef struct kr_recog_result {
    int    id;          /* assigned card id (1..100), 0 when blank */
    double score;       /* correlation with the assigned id's best template (-1..1) */
    int    runner_up;   /* id this card would get in the best assignment without `id`; 0 none */
    double margin;      /* total score lost by that second-best joint assignment (>= 0) */
    int    rival;       /* index of the card that takes `id` in that assignment, -1 none */
    double confidence;  /* 1 - exp(-margin / conf_scale), 0..1 */
    int    flipped;     /* 1 when the 180-degree turned patch matched better */
    kr_recog_verdict verdict;
} kr_recog_result;

/* Scores n cards (features feat[0..n-1]) against every card id in m and assigns ids
 * jointly: the assignment maximising the summed correlation with each id used at most
 * once (Hungarian algorithm). Blank cards take no id. res: caller-owned array of n.
 * scores: optional caller-owned n * (KR_RECOG_MAX_ID + 1) array receiving the score of
 * card i for id j at [i * (KR_RECOG_MAX_ID + 1) + j] (-2 where m has no template).
 * KR_ERR_INVALID when m knows fewer ids than there are non-blank cards. */
kr_status kr_recog_identify(const kr_recog_model_t *m, const kr_recog_config *cfg,
                            const kr_recog_feat *feat, int n, kr_recog_result *res,
                            double *scores);

/* Best score of one feature against one id (max over templates, shifts, orientations);
 * -2 when m has no template for id. *flipped (optional) set when the turned patch won. */
double kr_recog_score(const kr_recog_model_t *m, const kr_recog_config *cfg,
                      const kr_recog_feat *f, int id, int *flipped);

/* Maximum-weight assignment of n rows to m columns (n <= m), weights w[i * m + j];
 * entries <= -1e9 are forbidden. assign[i] receives the column of row i. *total
 * (optional) receives the summed weight. KR_ERR_INVALID when n > m or no full
 * assignment avoids the forbidden entries. Allocates O(n + m) scratch. */
kr_status kr_recog_assign(const double *w, int n, int m, int *assign, double *total);

/* ---- layouts: cards on the mat ---------------------------------------------- */

/* Maps an image point (raw px) to the mat (mm, geometry.md), e.g. kr_calib_px_to_mm
 * through a wrapper. Returns 0 on success, non-zero when the point has no mat position. */
typedef int (*kr_recog_map_fn)(void *ctx, double px, double py, double *x_mm, double *y_mm);

typedef enum { KR_RECOG_OWNER_A = 0, KR_RECOG_OWNER_B = 1 } kr_recog_owner;

typedef struct kr_recog_layout_card {
    double corners_px[4][2]; /* outline in raw px, upright for the owner: TL TR BR BL */
    double x_mm, y_mm;       /* centre on the mat, mm */
    int    owner;            /* KR_RECOG_OWNER_A (y < 0) or _B */
    int    row;              /* 1 upper, 2 middle, 3 lower; 0 outside the rows */
    int    cut_off;          /* 1 when the outline touches the image border */
    int    landscape;        /* 1 when the card lies across (long side along x) */
    kr_recog_feat   feat;    /* its feature */
    kr_recog_result res;     /* identification (kr_recog_identify) */
} kr_recog_layout_card;

/* Reads a layout: for each of the n card outlines quads (8 doubles per card: 4 corners
 * in raw px, any order along the outline, e.g. from kr_calib_detect_cards) finds its
 * mat position, owner and row through px_to_mm, samples it upright for its owner from
 * frame, and identifies all cards jointly. out: caller-owned array of n (large: ~15 KB
 * per card, allocate it on the heap). Problems (blank, cut off, ambiguous, unknown)
 * are left in the results: see kr_recog_layout_problem(). */
kr_status kr_recog_read_layout(const kr_recog_model_t *m, const kr_recog_config *cfg,
                               const kr_image_t *frame, const double *quads, int n,
                               kr_recog_map_fn px_to_mm, void *ctx, kr_recog_layout_card *out);

/* Checks a read layout against the expected card count (expected <= 0: any). Returns
 * KR_OK, or KR_ERR_INVALID with msg holding ONE line that says which cards are wrong
 * and why (count, face down/blank, cut off, outside the rows, not recognised, two cards
 * that look alike with both candidate ids and positions in mm). */
kr_status kr_recog_layout_problem(const kr_recog_layout_card *cards, int n, int expected,
                                  char *msg, size_t msglen);

/* Row and owner names for the match log: "upper"/"middle"/"lower", "A"/"B". */
const char *kr_recog_row_str(int row);
const char *kr_recog_owner_str(int owner);

/* ---- poems and rendering (model building) ----------------------------------- */

typedef struct kr_recog_poem {
    int  id;            /* 1..100 */
    int  n_lines;       /* printed columns, right to left (1..4) */
    char lines[4][96];  /* UTF-8 kana of each column (torifuda_lines) */
} kr_recog_poem;

/* Reads the 100 poems (models/hyakunin-isshu.json format: no, torifuda_lines) into
 * poems[0..99] (caller-owned; poems[i].id == i + 1). err: one line naming the file. */
kr_status kr_recog_poems_load(const char *path, kr_recog_poem *poems, char *err, size_t errlen);

typedef struct kr_recog_font kr_recog_font_t; /* opaque FreeType face */
/* Opens face face_index of a TrueType/OpenType file (path copied). *out caller-owned. */
kr_status kr_recog_font_open(const char *path, int face_index, kr_recog_font_t **out);
void      kr_recog_font_destroy(kr_recog_font_t *f); /* NULL-safe */

typedef struct kr_recog_style {
    double char_mm;   /* glyph em size, mm; default 7.0 */
    double pitch_mm;  /* vertical advance per kana, mm; default 8.2 */
    double col_mm;    /* distance between column centres, mm; default 15.0 */
    double top_mm;    /* top of the first kana below the card's top edge, mm; default 7.0 */
    double dx_mm;     /* shift of the whole text block to the right, mm; default 0 */
    int    paper, ink; /* grey levels; defaults 235 and 30 */
    int    border;    /* 1: draw a 1.5 mm dark border (coloured card edge); default 0 */
} kr_recog_style;
void kr_recog_style_default(kr_recog_style *s);

/* Renders a card face with the given columns (right to left, each read top to bottom)
 * into patch (KR_RECOG_PATCH_W * KR_RECOG_PATCH_H grey, caller-owned), at 4x
 * supersampling. Not thread-safe per font. */
kr_status kr_recog_render_card(kr_recog_font_t *f, const kr_recog_style *s,
                               const char *const *lines, int n_lines, uint8_t *patch);

#ifdef __cplusplus
}
#endif
#endif /* KR_RECOG_H */
