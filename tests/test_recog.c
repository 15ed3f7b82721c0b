/* test_recog.c - card-face recognition: rendered cards (held-out IPA fonts) through
 * noise, blur, rotation and corner error; joint assignment; ambiguity; bad input.
 * SPDX-License-Identifier: MIT                                                       */
#include "../tools/eval_layout_patch.h"
#include "kr_calib.h"
#include "kr_media.h"
#include "kr_recog.h"
#include "kr_recog_scene.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POEMS "models/hyakunin-isshu.json"
#define MODEL "models/cards.krm"
#define IPAG "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf"
#define IPAM "/usr/share/fonts/opentype/ipafont-mincho/ipam.ttf"
enum { PN = KR_RECOG_PATCH_W * KR_RECOG_PATCH_H };

static kr_recog_poem     poems[KR_RECOG_MAX_ID];
static kr_recog_model_t *fonts_model; /* models/cards.krm: fonts other than IPA */
static kr_recog_font_t  *ipag, *ipam;

static int setup(void)
{
    char err[256];
    if (kr_recog_poems_load(POEMS, poems, err, sizeof err) != KR_OK ||
        kr_recog_model_load(MODEL, &fonts_model, err, sizeof err) != KR_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return kr_recog_font_open(IPAG, 0, &ipag) != KR_OK || kr_recog_font_open(IPAM, 0, &ipam) != KR_OK;
}

static int teardown(void)
{
    kr_recog_model_destroy(fonts_model);
    kr_recog_font_destroy(ipag);
    kr_recog_font_destroy(ipam);
    return 0;
}

/* Renders card id with font f in a layout varied by seed. */
static void render(kr_recog_font_t *f, int id, unsigned *seed, uint8_t *patch)
{
    kr_recog_style st;
    kr_recog_style_default(&st);
    st.char_mm = 6.5 + kr_degrade_rand(seed);
    st.pitch_mm = st.char_mm + 0.8 + kr_degrade_rand(seed);
    st.col_mm = 14 + 3 * kr_degrade_rand(seed);
    st.top_mm = 6 + 2 * kr_degrade_rand(seed);
    const char *lines[4];
    for (int l = 0; l < poems[id - 1].n_lines; l++)
        lines[l] = poems[id - 1].lines[l];
    CU_ASSERT_EQUAL_FATAL(kr_recog_render_card(f, &st, lines, poems[id - 1].n_lines, patch), KR_OK);
}

/* A camera-like image of the patch: px_per_mm, rotation, blur, noise, corner error. */
static void degrade(const uint8_t *patch, double k, int upside_down, unsigned *seed, uint8_t *out)
{
    int        fw = (int)(90 * k), fh = (int)(110 * k);
    uint8_t   *frame = malloc((size_t)fw * fh);
    kr_degrade d = {k, 6 * kr_degrade_rand(seed) - 3, 1.0, 0.5 * k, 6, 0.8, 10, upside_down};
    CU_ASSERT_PTR_NOT_NULL_FATAL(frame);
    CU_ASSERT_EQUAL(kr_degrade_apply(patch, &d, seed, frame, fw, fh, out), KR_OK);
    free(frame);
}

static void test_assignment_is_unique_and_optimal(void)
{
    unsigned seed = 7;
    for (int trial = 0; trial < 30; trial++) {
        enum { N = 4, M = 6 };
        double w[N * M];
        for (int i = 0; i < N * M; i++)
            w[i] = kr_degrade_rand(&seed);
        int    a[N];
        double total;
        CU_ASSERT_EQUAL_FATAL(kr_recog_assign(w, N, M, a, &total), KR_OK);
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N; j++)
                CU_ASSERT_NOT_EQUAL(a[i], a[j]);
        /* brute force over all injective maps */
        double best = -1;
        for (int x0 = 0; x0 < M; x0++)
            for (int x1 = 0; x1 < M; x1++)
                for (int x2 = 0; x2 < M; x2++)
                    for (int x3 = 0; x3 < M; x3++) {
                        if (x0 == x1 || x0 == x2 || x0 == x3 || x1 == x2 || x1 == x3 || x2 == x3)
                            continue;
                        double s = w[x0] + w[M + x1] + w[2 * M + x2] + w[3 * M + x3];
                        best = s > best ? s : best;
                    }
        CU_ASSERT_DOUBLE_EQUAL(total, best, 1e-9);
    }
}

static void test_assignment_respects_forbidden_and_counts(void)
{
    /* Both rows prefer column 0; the joint answer gives it to one only. */
    double w[2 * 3] = {0.9, 0.1, 0.0, 0.8, 0.7, 0.0};
    int    a[2];
    CU_ASSERT_EQUAL(kr_recog_assign(w, 2, 3, a, NULL), KR_OK);
    CU_ASSERT_EQUAL(a[0], 0);
    CU_ASSERT_EQUAL(a[1], 1);
    w[0] = -1e12; /* row 0 may not take column 0 */
    CU_ASSERT_EQUAL(kr_recog_assign(w, 2, 3, a, NULL), KR_OK);
    CU_ASSERT_NOT_EQUAL(a[0], 0);
    double one[2] = {-1e12, -1e12};
    CU_ASSERT_EQUAL(kr_recog_assign(one, 1, 2, a, NULL), KR_ERR_INVALID);
    CU_ASSERT_EQUAL(kr_recog_assign(w, 3, 2, a, NULL), KR_ERR_INVALID); /* more rows than columns */
}

/* 30 distinct cards, held-out fonts, varied layout, degraded: jointly identified. */
static void test_recognises_degraded_held_out_fonts(void)
{
    enum { N = 30 };
    unsigned         seed = 42;
    kr_recog_feat   *feat = calloc(N, sizeof *feat);
    kr_recog_result  res[N];
    int              ids[N];
    uint8_t          patch[PN], got[PN];
    kr_recog_config  cfg;
    kr_recog_config_default(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(feat);
    for (int i = 0; i < N; i++) {
        ids[i] = 1 + (i * 37) % 100; /* distinct */
        render(i % 2 ? ipag : ipam, ids[i], &seed, patch);
        degrade(patch, 2.0, 0, &seed, got);
        CU_ASSERT_EQUAL(kr_recog_features(got, &feat[i]), KR_OK);
    }
    CU_ASSERT_EQUAL_FATAL(kr_recog_identify(fonts_model, &cfg, feat, N, res, NULL), KR_OK);
    int right = 0, confident_wrong = 0;
    for (int i = 0; i < N; i++) {
        right += res[i].id == ids[i];
        confident_wrong += res[i].id != ids[i] && res[i].verdict == KR_RECOG_OK && res[i].confidence >= 0.9;
        for (int j = i + 1; j < N; j++)
            CU_ASSERT(res[i].id != res[j].id);
        CU_ASSERT(res[i].runner_up != res[i].id);
    }
    CU_ASSERT(right >= N - 2);
    CU_ASSERT_EQUAL(confident_wrong, 0);
    free(feat);
}

static void test_upside_down_card_is_recognised_turned(void)
{
    unsigned        seed = 3;
    uint8_t         patch[PN], got[PN];
    kr_recog_feat  *f = calloc(1, sizeof *f);
    kr_recog_config cfg;
    kr_recog_config_default(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    render(ipag, 77, &seed, patch);
    degrade(patch, 2.0, 1, &seed, got);
    kr_recog_features(got, f);
    int    flipped = 0;
    double s = kr_recog_score(fonts_model, &cfg, f, 77, &flipped);
    CU_ASSERT_EQUAL(flipped, 1);
    int    beaten = 0;
    for (int id = 1; id <= 100; id++)
        beaten += id != 77 && kr_recog_score(fonts_model, &cfg, f, id, NULL) >= s;
    CU_ASSERT_EQUAL(beaten, 0);
    cfg.both_orientations = 0; /* without the turn the card does not match itself */
    CU_ASSERT(kr_recog_score(fonts_model, &cfg, f, 77, NULL) < s - 0.2);
    free(f);
}

/* A model where cards 1 and 2 have the same face: a card of that face is ambiguous, and
 * two of them are reported as look-alikes with both ids. */
static void test_look_alike_cards_are_flagged(void)
{
    unsigned          seed = 9;
    uint8_t           patch[PN], got[PN];
    kr_recog_model_t *m = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_recog_model_create(&m), KR_OK);
    render(ipag, 1, &seed, patch);
    CU_ASSERT_EQUAL(kr_recog_model_add_patch(m, 1, "t", patch), KR_OK);
    CU_ASSERT_EQUAL(kr_recog_model_add_patch(m, 2, "t", patch), KR_OK);
    for (int id = 3; id <= 10; id++) {
        render(ipag, id, &seed, patch);
        CU_ASSERT_EQUAL(kr_recog_model_add_patch(m, id, "t", patch), KR_OK);
    }
    kr_recog_layout_card *cards = calloc(3, sizeof *cards);
    kr_recog_feat        *feat = calloc(3, sizeof *feat);
    kr_recog_result       res[3];
    kr_recog_config       cfg;
    kr_recog_config_default(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cards);
    CU_ASSERT_PTR_NOT_NULL_FATAL(feat);
    const int faces[3] = {1, 1, 5};
    for (int i = 0; i < 3; i++) {
        unsigned s2 = 100 + (unsigned)i;
        render(ipag, faces[i], &s2, patch);
        degrade(patch, 2.0, 0, &seed, got);
        kr_recog_features(got, &feat[i]);
    }
    CU_ASSERT_EQUAL_FATAL(kr_recog_identify(m, &cfg, feat, 3, res, NULL), KR_OK);
    CU_ASSERT_EQUAL(res[0].verdict, KR_RECOG_AMBIGUOUS);
    CU_ASSERT_EQUAL(res[1].verdict, KR_RECOG_AMBIGUOUS);
    CU_ASSERT((res[0].id == 1 && res[1].id == 2) || (res[0].id == 2 && res[1].id == 1));
    CU_ASSERT_EQUAL(res[0].runner_up, res[1].id);
    CU_ASSERT_EQUAL(res[0].rival, 1);
    CU_ASSERT_EQUAL(res[2].id, 5);
    CU_ASSERT_EQUAL(res[2].verdict, KR_RECOG_OK);
    for (int i = 0; i < 3; i++) {
        cards[i].res = res[i];
        cards[i].row = 1;
        cards[i].x_mm = -100 + 60 * i;
        cards[i].y_mm = -51.5;
    }
    char msg[512];
    CU_ASSERT_EQUAL(kr_recog_layout_problem(cards, 3, 3, msg, sizeof msg), KR_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "look alike"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "(-100, -52)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "1 or 2") ? strstr(msg, "1 or 2") : strstr(msg, "2 or 1"));
    CU_ASSERT_PTR_NULL(strchr(msg, '\n'));
    free(cards);
    free(feat);
    kr_recog_model_destroy(m);
}

static void test_blank_card_and_wrong_count_are_refused(void)
{
    uint8_t               patch[PN];
    unsigned              seed = 5;
    kr_recog_feat        *feat = calloc(2, sizeof *feat);
    kr_recog_layout_card *cards = calloc(2, sizeof *cards);
    kr_recog_result       res[2];
    kr_recog_config       cfg;
    kr_recog_config_default(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(feat);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cards);
    for (int i = 0; i < PN; i++) /* a face-down card: plain back with sensor noise */
        patch[i] = (uint8_t)(60 + 3 * kr_degrade_gauss(&seed));
    kr_recog_features(patch, &feat[0]);
    render(ipam, 12, &seed, patch);
    kr_recog_features(patch, &feat[1]);
    CU_ASSERT_EQUAL_FATAL(kr_recog_identify(fonts_model, &cfg, feat, 2, res, NULL), KR_OK);
    CU_ASSERT_EQUAL(res[0].verdict, KR_RECOG_BLANK);
    CU_ASSERT_EQUAL(res[0].id, 0);
    CU_ASSERT_EQUAL(res[1].id, 12);
    char msg[512];
    for (int i = 0; i < 2; i++) {
        cards[i].res = res[i];
        cards[i].row = 2;
        cards[i].x_mm = 10.0 + 100 * i;
        cards[i].y_mm = 134.5;
    }
    CU_ASSERT_EQUAL(kr_recog_layout_problem(cards, 2, 2, msg, sizeof msg), KR_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "card at (10, 134) mm face down"));
    CU_ASSERT_PTR_NULL(strstr(msg, "(110,"));
    CU_ASSERT_EQUAL(kr_recog_layout_problem(cards + 1, 1, 2, msg, sizeof msg), KR_ERR_INVALID);
    CU_ASSERT_STRING_EQUAL(msg, "found 1 cards, expected 2");
    CU_ASSERT_EQUAL(kr_recog_layout_problem(cards + 1, 1, 1, msg, sizeof msg), KR_OK);
    free(feat);
    free(cards);
}

/* Mat mm <-> image px of the test frame: 2 px/mm, A at the bottom. */
static int test_px_to_mm(void *ctx, double px, double py, double *x, double *y)
{
    (void)ctx;
    *x = (px - 700) / 2.0;
    *y = (550 - py) / 2.0;
    return 0;
}

/* Draws card patch (upright for its owner) centred at (x, y) mm into a grey frame. */
static void draw_card(uint8_t *frame, int fw, int fh, const uint8_t *patch, double x, double y, int owner_b)
{
    for (int py = 0; py < fh; py++)
        for (int px = 0; px < fw; px++) {
            double mx, my;
            test_px_to_mm(NULL, px + 0.5, py + 0.5, &mx, &my);
            double u = mx - x, v = my - y; /* card frame, mm */
            if (owner_b) {
                u = -u;
                v = -v;
            }
            /* upright for the owner: patch column grows with u, patch row with -v */
            int pu = (int)((u + 26) * 2), pv = (int)((36.5 - v) * 2);
            if (pu >= 0 && pv >= 0 && pu < KR_RECOG_PATCH_W && pv < KR_RECOG_PATCH_H)
                frame[py * fw + px] = patch[pv * KR_RECOG_PATCH_W + pu];
        }
}

static void test_read_layout_owner_row_position_cut_off(void)
{
    enum { FW = 1400, FH = 1100, N = 4 };
    uint8_t *frame = malloc((size_t)FW * FH);
    CU_ASSERT_PTR_NOT_NULL_FATAL(frame);
    memset(frame, 80, (size_t)FW * FH);
    const int    ids[N] = {17, 61, 3, 90};
    const double pos[N][2] = {{-100, -51.5}, {40, -217.5}, {100, 134.5}, {-300, 51.5}};
    uint8_t      patch[PN];
    unsigned     seed = 11;
    double       quads[N * 8];
    for (int i = 0; i < N; i++) {
        render(i % 2 ? ipag : ipam, ids[i], &seed, patch);
        draw_card(frame, FW, FH, patch, pos[i][0], pos[i][1], pos[i][1] > 0);
        const double c[4][2] = {{-26, -36.5}, {26, -36.5}, {26, 36.5}, {-26, 36.5}};
        for (int k = 0; k < 4; k++) { /* corners in px, in some outline order */
            int kk = (k + i) % 4;
            quads[8 * i + 2 * k] = 700 + 2 * (pos[i][0] + c[kk][0]);
            quads[8 * i + 2 * k + 1] = 550 - 2 * (pos[i][1] + c[kk][1]);
        }
    }
    kr_recog_layout_card *cards = calloc(N + 1, sizeof *cards);
    kr_recog_config       cfg;
    kr_recog_config_default(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cards);
    kr_image_t img = {FW, FH, FW, 1, frame};
    CU_ASSERT_EQUAL_FATAL(kr_recog_read_layout(fonts_model, &cfg, &img, quads, N, test_px_to_mm, NULL, cards), KR_OK);
    for (int i = 0; i < N; i++) {
        CU_ASSERT_EQUAL(cards[i].res.id, ids[i]);
        CU_ASSERT_EQUAL(cards[i].res.flipped, 0); /* owner orientation was right */
        CU_ASSERT_EQUAL(cards[i].owner, pos[i][1] > 0 ? KR_RECOG_OWNER_B : KR_RECOG_OWNER_A);
        CU_ASSERT_DOUBLE_EQUAL(cards[i].x_mm, pos[i][0], 0.01);
        CU_ASSERT_DOUBLE_EQUAL(cards[i].y_mm, pos[i][1], 0.01);
        CU_ASSERT_FALSE(cards[i].cut_off);
    }
    CU_ASSERT_EQUAL(cards[0].row, 1);
    CU_ASSERT_EQUAL(cards[1].row, 3);
    CU_ASSERT_EQUAL(cards[2].row, 2);
    CU_ASSERT_STRING_EQUAL(kr_recog_row_str(cards[1].row), "lower");
    char msg[512];
    CU_ASSERT_EQUAL(kr_recog_layout_problem(cards, N, N, msg, sizeof msg), KR_OK);
    /* The same cards with the frame cut at the left edge through card 4. */
    quads[8 * 3 + 0] = 0;
    quads[8 * 3 + 6] = 0;
    CU_ASSERT_EQUAL_FATAL(kr_recog_read_layout(fonts_model, &cfg, &img, quads, N, test_px_to_mm, NULL, cards), KR_OK);
    CU_ASSERT_TRUE(cards[3].cut_off);
    CU_ASSERT_EQUAL(kr_recog_layout_problem(cards, N, N, msg, sizeof msg), KR_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cut off by the frame"));
    free(cards);
    free(frame);
}

/* Enrolment in miniature: a model made from one physical set (here: the brush-like
 * Aoyagi Kouzan face when installed, else IPA Mincho at a fixed layout) recognises
 * camera images of that same set. Save/load keeps it. */
static void test_enrolled_model_roundtrip(void)
{
    kr_recog_model_t *m = NULL, *back = NULL;
    kr_recog_style    st;
    kr_recog_style_default(&st);
    CU_ASSERT_EQUAL_FATAL(kr_recog_model_create(&m), KR_OK);
    uint8_t patch[PN], got[PN];
    for (int id = 1; id <= 100; id++) {
        const char *lines[4];
        for (int l = 0; l < poems[id - 1].n_lines; l++)
            lines[l] = poems[id - 1].lines[l];
        CU_ASSERT_EQUAL(kr_recog_render_card(ipam, &st, lines, poems[id - 1].n_lines, patch), KR_OK);
        CU_ASSERT_EQUAL(kr_recog_model_add_patch(m, id, "enroll:test", patch), KR_OK);
    }
    char path[] = "/tmp/kr_test_recog_XXXXXX";
    int  fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    CU_ASSERT_EQUAL(kr_recog_model_save(m, path), KR_OK);
    char err[256];
    CU_ASSERT_EQUAL_FATAL(kr_recog_model_load(path, &back, err, sizeof err), KR_OK);
    CU_ASSERT_EQUAL(kr_recog_model_count(back), 100);
    CU_ASSERT_EQUAL(kr_recog_model_has(back, 55), 1);
    kr_recog_config cfg;
    kr_recog_config_default(&cfg);
    unsigned       seed = 21;
    kr_recog_feat *f = calloc(1, sizeof *f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int id = 5; id <= 100; id += 19) {
        const char *lines[4];
        for (int l = 0; l < poems[id - 1].n_lines; l++)
            lines[l] = poems[id - 1].lines[l];
        kr_recog_render_card(ipam, &st, lines, poems[id - 1].n_lines, patch);
        degrade(patch, 1.2, 0, &seed, got);
        kr_recog_features(got, f);
        double s = kr_recog_score(back, &cfg, f, id, NULL);
        int beaten = 0;
        for (int other = 1; other <= 100; other++)
            beaten += other != id && kr_recog_score(back, &cfg, f, other, NULL) >= s;
        CU_ASSERT_EQUAL(beaten, 0);
        CU_ASSERT_DOUBLE_EQUAL(s, kr_recog_score(m, &cfg, f, id, NULL), 0.02); /* int8 quantisation */
    }
    /* A damaged file names its line. */
    FILE *fp = fopen(path, "a");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\"card\":101,\"scale\":1,\"q\":\"\"}\n", fp);
    fclose(fp);
    kr_recog_model_t *bad = NULL;
    CU_ASSERT_EQUAL(kr_recog_model_load(path, &bad, err, sizeof err), KR_ERR_FORMAT);
    CU_ASSERT_PTR_NULL(bad);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, ":102:"));
    remove(path);
    free(f);
    kr_recog_model_destroy(m);
    kr_recog_model_destroy(back);
}

/* ---- media: a layout read from a video file ------------------------------ */

/* A 1280x720 clip of 6 cards (two laid edge to edge) on a plain mat at 1.2 px/mm, A at
 * the bottom, with a matching calibration file: kr_recog_scene_read decodes, detects the
 * outlines, maps them and reads the ids; the layout record names them. */
static void test_scene_read_from_video(void)
{
    enum { W = 1280, H = 720, N = 6 };
    const double k = 1.2, cx = 640, cy = 360;
    const int    ids[N] = {8, 44, 45, 70, 99, 1};
    const double pos[N][2] = {{-300, -51.5}, {-26, -134.5}, {26, -134.5}, {250, -217.5}, {-120, 51.5}, {300, 217.5}};
    uint8_t     *grey = malloc((size_t)W * H), *bgr = malloc((size_t)W * H * 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(grey);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bgr);
    memset(grey, 70, (size_t)W * H);
    unsigned seed = 31;
    uint8_t  patch[PN];
    for (int i = 0; i < N; i++) {
        render(i % 2 ? ipag : ipam, ids[i], &seed, patch);
        for (int py = 0; py < H; py++)
            for (int px = 0; px < W; px++) {
                double u = (px + 0.5 - cx) / k - pos[i][0], v = (cy - py - 0.5) / k - pos[i][1];
                if (pos[i][1] > 0) {
                    u = -u;
                    v = -v;
                }
                int pu = (int)((u + 26) * 2), pv = (int)((36.5 - v) * 2);
                if (pu >= 0 && pv >= 0 && pu < KR_RECOG_PATCH_W && pv < KR_RECOG_PATCH_H)
                    grey[py * W + px] = patch[pv * KR_RECOG_PATCH_W + pu];
            }
    }
    for (int i = 0; i < W * H; i++)
        bgr[3 * i] = bgr[3 * i + 1] = bgr[3 * i + 2] = grey[i];
    char dir[] = "/tmp/kr_test_recog_XXXXXX", video[64], calib[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(video, sizeof video, "%s/v.mp4", dir);
    snprintf(calib, sizeof calib, "%s/c.json", dir);
    kr_media_writer_t *wr = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_media_writer_create(video, W, H, 10, 1, 12, &wr), KR_OK);
    kr_image_t img = {W, H, W * 3, 3, bgr};
    for (int f = 0; f < 6; f++)
        CU_ASSERT_EQUAL(kr_media_writer_write(wr, &img, f * 100000), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_media_writer_close(wr), KR_OK);
    kr_media_writer_destroy(wr);
    const double Hm[9] = {k, 0, cx, 0, -k, cy, 0, 0, 1}; /* mat mm -> px */
    kr_calib_t  *c = NULL;
    CU_ASSERT_EQUAL_FATAL(kr_calib_create_from_model(W, H, 1280, 1280, cx, cy, NULL, Hm, &c), KR_OK);
    CU_ASSERT_EQUAL_FATAL(kr_calib_save(c, calib), KR_OK);
    kr_calib_destroy(c);

    kr_recog_config cfg;
    kr_recog_config_default(&cfg);
    kr_recog_scene sc;
    char           err[512];
    CU_ASSERT_EQUAL_FATAL(kr_recog_scene_read(video, 0.2, calib, fonts_model, &cfg, &sc, err, sizeof err), KR_OK);
    CU_ASSERT_EQUAL(sc.n, N);
    int found = 0;
    for (int i = 0; i < sc.n; i++)
        for (int j = 0; j < N; j++)
            if (fabs(sc.cards[i].x_mm - pos[j][0]) < 2 && fabs(sc.cards[i].y_mm - pos[j][1]) < 2) {
                found++;
                CU_ASSERT_EQUAL(sc.cards[i].res.id, ids[j]);
                CU_ASSERT_EQUAL(sc.cards[i].owner, pos[j][1] > 0 ? KR_RECOG_OWNER_B : KR_RECOG_OWNER_A);
            }
    CU_ASSERT_EQUAL(found, N);
    char msg[512];
    CU_ASSERT_EQUAL(kr_recog_layout_problem(sc.cards, sc.n, N, msg, sizeof msg), KR_OK);
    CU_ASSERT_EQUAL(kr_recog_layout_problem(sc.cards, sc.n, 50, msg, sizeof msg), KR_ERR_INVALID);
    CU_ASSERT_STRING_EQUAL(msg, "found 6 cards, expected 50");
    /* The record: one line, sorted A before B, with the spec's fields. */
    char   *buf = NULL;
    size_t  len = 0;
    FILE   *mf = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mf);
    CU_ASSERT_EQUAL(kr_recog_layout_write(mf, sc.cards, sc.n, 0, 1), KR_OK);
    fclose(mf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "{\"type\":\"layout\",\"t_us\":0,\"cards\":[{\"card\":8,\"owner\":\"A\",\"row\":\"upper\",\"x_mm\":-300."));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"card\":1,\"owner\":\"B\",\"row\":\"lower\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"runner_up\":"));
    CU_ASSERT_EQUAL(strchr(buf, '\n'), buf + len - 1);
    free(buf);
    kr_recog_scene_free(&sc);
    /* The same frame handed over in memory (live): the same cards, owners and ids. */
    CU_ASSERT_EQUAL_FATAL(kr_recog_scene_from_frame(&img, 200000, "cam", calib, fonts_model, &cfg, &sc, err, sizeof err),
                          KR_OK);
    CU_ASSERT_EQUAL(sc.n, N);
    CU_ASSERT_EQUAL(sc.t_us, 200000);
    found = 0;
    for (int i = 0; i < sc.n; i++)
        for (int j = 0; j < N; j++)
            if (fabs(sc.cards[i].x_mm - pos[j][0]) < 2 && fabs(sc.cards[i].y_mm - pos[j][1]) < 2) {
                found++;
                CU_ASSERT_EQUAL(sc.cards[i].res.id, ids[j]);
                CU_ASSERT_EQUAL(sc.cards[i].owner, pos[j][1] > 0 ? KR_RECOG_OWNER_B : KR_RECOG_OWNER_A);
            }
    CU_ASSERT_EQUAL(found, N);
    kr_recog_scene_free(&sc);
    /* A frame of another size than the calibration: refused, naming the source and --calib. */
    kr_image_t half = {W / 2, H / 2, W * 3, 3, bgr};
    CU_ASSERT_EQUAL(kr_recog_scene_from_frame(&half, 0, "cam", calib, fonts_model, &cfg, &sc, err, sizeof err),
                    KR_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cam"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--calib"));
    /* A video that does not exist: refused with its name. */
    CU_ASSERT_NOT_EQUAL(kr_recog_scene_read("/nonexistent/v.mp4", 0.2, calib, fonts_model, &cfg, &sc, err, sizeof err), KR_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/v.mp4"));
    remove(video);
    remove(calib);
    rmdir(dir);
    free(grey);
    free(bgr);
}

int main(int argc, char **argv)
{
    int media = argc > 0 && strstr(argv[0], "media") != NULL;
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("recog", setup, teardown);
    CU_add_test(s, "assignment_is_unique_and_optimal", test_assignment_is_unique_and_optimal);
    CU_add_test(s, "assignment_respects_forbidden_and_counts", test_assignment_respects_forbidden_and_counts);
    CU_add_test(s, "recognises_degraded_held_out_fonts", test_recognises_degraded_held_out_fonts);
    CU_add_test(s, "upside_down_card_is_recognised_turned", test_upside_down_card_is_recognised_turned);
    CU_add_test(s, "look_alike_cards_are_flagged", test_look_alike_cards_are_flagged);
    CU_add_test(s, "blank_card_and_wrong_count_are_refused", test_blank_card_and_wrong_count_are_refused);
    CU_add_test(s, "read_layout_owner_row_position_cut_off", test_read_layout_owner_row_position_cut_off);
    CU_add_test(s, "enrolled_model_roundtrip", test_enrolled_model_roundtrip);
    if (media)
        CU_add_test(s, "scene_read_from_video", test_scene_read_from_video);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
