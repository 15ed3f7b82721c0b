/* eval_layout.c - measures card identification: on rendered cards degraded like camera
 * images (held-out fonts) or on synthetic footage with its meta.json truth.
 * SPDX-License-Identifier: MIT                                                       */
#include "eval_layout_patch.h"
#include "kr_core.h"
#include "kr_recog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: eval_layout patches --model MODEL.krm --font PATH[@FACE] [--font ...]\n"
            "                   [--poems FILE] [--trials N] [--px-per-mm K] [--seed S]\n"
            "  N layouts of 50 distinct random cards rendered with the given (held-out) fonts\n"
            "  in random layouts, imaged at K px/mm with rotation, corner error, blur, noise;\n"
            "  prints identified share, flagged, wrong, wrong unflagged / with confidence >= 0.9,\n"
            "  ms per layout (kr_recog_identify of 50 cards).\n");
}

static int eval_patches(int argc, char **argv)
{
    const char *model_path = NULL, *poems_path = "models/hyakunin-isshu.json";
    const char *fonts[8];
    int         n_fonts = 0, trials = 10;
    double      k = 2.0;
    unsigned    seed = 1;
    int         fixed_style = 0, shift = -1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--model") && i + 1 < argc)
            model_path = argv[++i];
        else if (!strcmp(argv[i], "--poems") && i + 1 < argc)
            poems_path = argv[++i];
        else if (!strcmp(argv[i], "--font") && i + 1 < argc && n_fonts < 8)
            fonts[n_fonts++] = argv[++i];
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc)
            trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--px-per-mm") && i + 1 < argc)
            k = atof(argv[++i]);
        else if (!strcmp(argv[i], "--shift") && i + 1 < argc)
            shift = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--fixed-style"))
            fixed_style = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = (unsigned)atoi(argv[++i]);
        else {
            kr_log(KR_LOG_ERROR, "unknown or incomplete option '%s'", argv[i]);
            return 2;
        }
    }
    if (!model_path || !n_fonts || trials < 1 || k < 0.5) {
        usage(stderr);
        return 2;
    }
    static kr_recog_poem poems[KR_RECOG_MAX_ID];
    char                 err[512];
    if (kr_recog_poems_load(poems_path, poems, err, sizeof err) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", err);
        return 1;
    }
    kr_recog_model_t *m = NULL;
    if (kr_recog_model_load(model_path, &m, err, sizeof err) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", err);
        return 1;
    }
    kr_recog_font_t *fo[8] = {0};
    for (int f = 0; f < n_fonts; f++) {
        char spec[512];
        snprintf(spec, sizeof spec, "%s", fonts[f]);
        char *at = strchr(spec, '@');
        int   face = 0;
        if (at) {
            *at++ = 0;
            face = atoi(at);
        }
        if (kr_recog_font_open(spec, face, &fo[f]) != KR_OK) {
            kr_log(KR_LOG_ERROR, "--font %s: cannot open", spec);
            return 1;
        }
    }
    kr_recog_config cfg;
    kr_recog_config_default(&cfg);
    if (shift >= 0)
        cfg.max_shift_cells = shift;
    int      fw = (int)(100 * k), fh = (int)(120 * k);
    uint8_t *frame = malloc((size_t)fw * fh);
    long     n = 0, ok = 0, amb = 0, wrong = 0, wrong_conf = 0, amb_right = 0, wrong_90 = 0;
    double   t_total = 0, min_margin_ok = 1e9;
    for (int t = 0; t < trials; t++) {
        int            ids[100];
        kr_recog_feat  feat[50];
        kr_recog_result res[50];
        for (int i = 0; i < 100; i++)
            ids[i] = i + 1;
        for (int i = 0; i < 100; i++) { /* shuffle */
            int j = i + (int)(kr_degrade_rand(&seed) * (100 - i));
            int x = ids[i];
            ids[i] = ids[j];
            ids[j] = x;
        }
        for (int c = 0; c < 50; c++) {
            kr_recog_style st;
            kr_recog_style_default(&st);
            st.char_mm = 6.3 + 1.4 * kr_degrade_rand(&seed);
            st.pitch_mm = st.char_mm + 0.6 + 1.2 * kr_degrade_rand(&seed);
            st.col_mm = 13 + 4 * kr_degrade_rand(&seed);
            st.top_mm = 5.5 + 3 * kr_degrade_rand(&seed);
            st.dx_mm = 2 * kr_degrade_rand(&seed) - 1;
            if (fixed_style)
                kr_recog_style_default(&st);
            uint8_t     patch[KR_RECOG_PATCH_W * KR_RECOG_PATCH_H], got[KR_RECOG_PATCH_W * KR_RECOG_PATCH_H];
            const char *lines[4];
            const kr_recog_poem *p = &poems[ids[c] - 1];
            for (int l = 0; l < p->n_lines; l++)
                lines[l] = p->lines[l];
            kr_recog_render_card(fo[(t + c) % n_fonts], &st, lines, p->n_lines, patch);
            kr_degrade d = {k, 6 * kr_degrade_rand(&seed) - 3, 1.5, 0.6 * kr_degrade_rand(&seed) * k,
                            4 + 6 * kr_degrade_rand(&seed), 0.6 + 0.5 * kr_degrade_rand(&seed),
                            20 * kr_degrade_rand(&seed), 0};
            kr_degrade_apply(patch, &d, &seed, frame, fw, fh, got);
            kr_recog_features(got, &feat[c]);
        }
        int64_t t0 = kr_clock_us();
        if (kr_recog_identify(m, &cfg, feat, 50, res, NULL) != KR_OK) {
            kr_log(KR_LOG_ERROR, "identify failed");
            return 1;
        }
        t_total += (kr_clock_us() - t0) / 1000.0;
        for (int c = 0; c < 50; c++) {
            n++;
            int right = res[c].id == ids[c];
            if (res[c].verdict == KR_RECOG_OK) {
                ok += right;
                wrong_conf += !right;
                wrong_90 += !right && res[c].confidence >= 0.9;
                if (!right)
                    fprintf(stderr, "  wrong but not flagged: read %d (score %.3f, margin %.3f, conf %.2f, "
                            "runner-up %d) where %d lies\n", res[c].id, res[c].score, res[c].margin,
                            res[c].confidence, res[c].runner_up, ids[c]);
                if (right && res[c].margin < min_margin_ok)
                    min_margin_ok = res[c].margin;
            } else {
                amb++;
                amb_right += right;
            }
            wrong += !right;
        }
    }
    printf("cards %ld  identified %.1f%%  flagged to confirm %.1f%% (of which right %ld)  "
           "wrong %ld  wrong not flagged %ld  wrong with confidence >= 0.9: %ld  ms/layout %.1f\n",
           n, 100.0 * ok / n, 100.0 * amb / n, amb_right, wrong, wrong_conf, wrong_90, t_total / trials);
    for (int f = 0; f < n_fonts; f++)
        kr_recog_font_destroy(fo[f]);
    kr_recog_model_destroy(m);
    free(frame);
    return 0;
}

int main(int argc, char **argv)
{
    kr_log_set_program("eval_layout");
    if (argc >= 2 && !strcmp(argv[1], "patches"))
        return eval_patches(argc, argv);
    usage(argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
    return argc >= 2 && !strcmp(argv[1], "--help") ? 0 : 2;
}
