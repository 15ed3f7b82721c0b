/* build_models.c - builds a karuta-recog/1 card model (models/README.md) by rendering
 * every card's torifuda lines with the given fonts in a few layout variants.
 * SPDX-License-Identifier: MIT                                                       */
#include "kr_core.h"
#include "kr_cv.h"
#include "kr_recog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: build_models -o MODEL.krm --font PATH[@FACE][=LABEL] [--font ...]\n"
            "                    [--poems models/hyakunin-isshu.json] [--variants N] [--dump DIR]\n"
            "  renders the 100 cards' torifuda lines with each font in N layout variants\n"
            "  (1..5, default 3) and writes one template per rendering.\n");
}

/* Layout variants: the nominal layout and small changes of glyph size, pitch and
 * column spacing, so that card sets laid out a little differently still correlate. */
static void variant_style(int v, kr_recog_style *s)
{
    kr_recog_style_default(s);
    switch (v) {
    case 1: s->char_mm = 6.4; s->pitch_mm = 8.8; s->col_mm = 16.5; s->top_mm = 6.0; break;
    case 2: s->char_mm = 7.6; s->pitch_mm = 7.8; s->col_mm = 13.5; s->top_mm = 8.0; break;
    case 3: s->char_mm = 6.8; s->pitch_mm = 8.0; s->col_mm = 17.0; s->top_mm = 9.0; break;
    case 4: s->char_mm = 7.2; s->pitch_mm = 8.6; s->col_mm = 14.0; s->top_mm = 5.5; break;
    default: break;
    }
}

int main(int argc, char **argv)
{
    kr_log_set_program("build_models");
    const char *out = NULL, *poems_path = "models/hyakunin-isshu.json", *dump = NULL;
    const char *fonts[16];
    int         n_fonts = 0, variants = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--poems") && i + 1 < argc) {
            poems_path = argv[++i];
        } else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
            dump = argv[++i];
        } else if (!strcmp(argv[i], "--font") && i + 1 < argc) {
            if (n_fonts == 16) {
                kr_log(KR_LOG_ERROR, "--font: at most 16 fonts");
                return 2;
            }
            fonts[n_fonts++] = argv[++i];
        } else if (!strcmp(argv[i], "--variants") && i + 1 < argc) {
            char *end;
            variants = (int)strtol(argv[++i], &end, 10);
            if (*end || variants < 1 || variants > 5) {
                kr_log(KR_LOG_ERROR, "--variants: want 1..5, got '%s'", argv[i]);
                return 2;
            }
        } else {
            kr_log(KR_LOG_ERROR, "unknown or incomplete option '%s'", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!out || !n_fonts) {
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
    if (kr_recog_model_create(&m) != KR_OK)
        return 1;
    int rc = 1;
    for (int f = 0; f < n_fonts; f++) {
        char  spec[512], label[600];
        snprintf(spec, sizeof spec, "%s", fonts[f]);
        char *eq = strchr(spec, '=');
        if (eq)
            *eq++ = 0;
        char *at = strchr(spec, '@');
        int   face = 0;
        if (at) {
            *at++ = 0;
            face = atoi(at);
        }
        const char *base = strrchr(spec, '/');
        snprintf(label, sizeof label, "%s", eq ? eq : base ? base + 1 : spec);
        kr_recog_font_t *font = NULL;
        if (kr_recog_font_open(spec, face, &font) != KR_OK) {
            kr_log(KR_LOG_ERROR, "--font %s: cannot open face %d", spec, face);
            goto fail;
        }
        for (int v = 0; v < variants; v++) {
            kr_recog_style st;
            variant_style(v, &st);
            for (int id = 1; id <= KR_RECOG_MAX_ID; id++) {
                uint8_t     patch[KR_RECOG_PATCH_W * KR_RECOG_PATCH_H];
                const char *lines[4];
                for (int l = 0; l < poems[id - 1].n_lines; l++)
                    lines[l] = poems[id - 1].lines[l];
                char src[96];
                snprintf(src, sizeof src, "font:%.60s/v%d", label, v);
                if (kr_recog_render_card(font, &st, lines, poems[id - 1].n_lines, patch) != KR_OK ||
                    kr_recog_model_add_patch(m, id, src, patch) != KR_OK) {
                    kr_log(KR_LOG_ERROR, "--font %s: could not render card %d", spec, id);
                    kr_recog_font_destroy(font);
                    goto fail;
                }
                if (dump && id <= 3) {
                    char       path[1024];
                    kr_image_t img = {KR_RECOG_PATCH_W, KR_RECOG_PATCH_H, KR_RECOG_PATCH_W, 1, patch};
                    snprintf(path, sizeof path, "%.500s/%.60s-v%d-%03d.png", dump, label, v, id);
                    kr_cv_write_image(path, &img);
                }
            }
        }
        kr_recog_font_destroy(font);
        fprintf(stderr, "build_models: %s (face %d): %d templates\n", label, face, variants * 100);
    }
    if (kr_recog_model_save(m, out) != KR_OK) {
        kr_log(KR_LOG_ERROR, "-o %s: cannot write", out);
        goto fail;
    }
    fprintf(stderr, "build_models: wrote %s (%d templates)\n", out, kr_recog_model_count(m));
    rc = 0;
fail:
    kr_recog_model_destroy(m);
    return rc;
}
