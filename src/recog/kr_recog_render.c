/* kr_recog_render.c - the poem texts (torifuda lines) and a FreeType renderer of card
 * faces in vertical columns, used to build font models and test patches.
 * SPDX-License-Identifier: MIT                                                       */
#include "kr_recog.h"

#include <cjson/cJSON.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct kr_recog_font {
    FT_Library lib;
    FT_Face    face;
};

/* one-line error text into the caller's err[errlen] (NULL-safe): kr_core's helper */
#define set_err(err, errlen, ...) ((void)kr_error_set((err), (errlen), KR_OK, __VA_ARGS__))

kr_status kr_recog_poems_load(const char *path, kr_recog_poem *poems, char *err, size_t errlen)
{
    kr_status s = KR_OK;
    char     *text = NULL;
    cJSON    *root = NULL;
    FILE     *fp = NULL;
    if (!path || !poems)
        return KR_ERR_INVALID;
    fp = fopen(path, "rb");
    if (!fp) {
        set_err(err, errlen, "%s: %s", path, strerror(errno));
        return KR_ERR_IO;
    }
    size_t cap = 1 << 16, len = 0;
    text = malloc(cap);
    if (!text) {
        s = KR_ERR_NOMEM;
        goto fail;
    }
    for (;;) {
        size_t r = fread(text + len, 1, cap - len - 1, fp);
        len += r;
        if (len + 1 < cap)
            break;
        char *t = realloc(text, cap * 2);
        if (!t) {
            s = KR_ERR_NOMEM;
            goto fail;
        }
        text = t;
        cap *= 2;
    }
    text[len] = 0;
    root = cJSON_Parse(text);
    if (!cJSON_IsArray(root)) {
        set_err(err, errlen, "%s: not a JSON array of poems", path);
        s = KR_ERR_FORMAT;
        goto fail;
    }
    memset(poems, 0, sizeof *poems * KR_RECOG_MAX_ID);
    const cJSON *p;
    int          k = 0;
    cJSON_ArrayForEach(p, root)
    {
        const cJSON *no = cJSON_GetObjectItemCaseSensitive(p, "no");
        const cJSON *lines = cJSON_GetObjectItemCaseSensitive(p, "torifuda_lines");
        if (!cJSON_IsNumber(no) || no->valueint < 1 || no->valueint > KR_RECOG_MAX_ID ||
            !cJSON_IsArray(lines) || cJSON_GetArraySize(lines) < 1 || cJSON_GetArraySize(lines) > 4) {
            set_err(err, errlen, "%s: entry %d: needs \"no\" 1..100 and 1..4 \"torifuda_lines\"", path, k);
            s = KR_ERR_FORMAT;
            goto fail;
        }
        kr_recog_poem *o = &poems[no->valueint - 1];
        o->id = no->valueint;
        const cJSON *l;
        cJSON_ArrayForEach(l, lines)
        {
            if (!cJSON_IsString(l) || strlen(l->valuestring) >= sizeof o->lines[0]) {
                set_err(err, errlen, "%s: poem %d: bad torifuda line", path, o->id);
                s = KR_ERR_FORMAT;
                goto fail;
            }
            snprintf(o->lines[o->n_lines++], sizeof o->lines[0], "%s", l->valuestring);
        }
        k++;
    }
    for (int i = 0; i < KR_RECOG_MAX_ID; i++)
        if (poems[i].id != i + 1) {
            set_err(err, errlen, "%s: poem %d missing", path, i + 1);
            s = KR_ERR_FORMAT;
            goto fail;
        }
fail:
    cJSON_Delete(root);
    free(text);
    fclose(fp);
    return s;
}

kr_status kr_recog_font_open(const char *path, int face_index, kr_recog_font_t **out)
{
    if (!path || !out)
        return KR_ERR_INVALID;
    *out = NULL;
    kr_recog_font_t *f = calloc(1, sizeof *f);
    if (!f)
        return KR_ERR_NOMEM;
    if (FT_Init_FreeType(&f->lib)) {
        free(f);
        return KR_ERR_IO;
    }
    if (FT_New_Face(f->lib, path, face_index, &f->face)) {
        FT_Done_FreeType(f->lib);
        free(f);
        return KR_ERR_IO;
    }
    *out = f;
    return KR_OK;
}

void kr_recog_font_destroy(kr_recog_font_t *f)
{
    if (!f)
        return;
    FT_Done_Face(f->face);
    FT_Done_FreeType(f->lib);
    free(f);
}

void kr_recog_style_default(kr_recog_style *s)
{
    s->char_mm = 7.0;
    s->pitch_mm = 8.2;
    s->col_mm = 15.0;
    s->top_mm = 7.0;
    s->dx_mm = 0.0;
    s->paper = 235;
    s->ink = 30;
    s->border = 0;
}

/* Next code point of UTF-8 text *p (advanced); 0 at the end, 0xFFFD on bad bytes. */
static uint32_t utf8_next(const char **p)
{
    const unsigned char *s = (const unsigned char *)*p;
    if (!*s)
        return 0;
    uint32_t c = *s++;
    int      more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (more)
        c &= 0x3F >> more;
    for (int i = 0; i < more; i++) {
        if ((*s & 0xC0) != 0x80) {
            *p = (const char *)s;
            return 0xFFFD;
        }
        c = (c << 6) | (*s++ & 0x3F);
    }
    *p = (const char *)s;
    return c;
}

enum { SS = 4 }; /* supersampling factor */

kr_status kr_recog_render_card(kr_recog_font_t *f, const kr_recog_style *s,
                               const char *const *lines, int n_lines, uint8_t *patch)
{
    enum { CW = KR_RECOG_PATCH_W * SS, CH = KR_RECOG_PATCH_H * SS };
    if (!f || !s || !lines || n_lines < 1 || !patch)
        return KR_ERR_INVALID;
    const double px_mm = KR_RECOG_PX_PER_MM * SS;
    uint8_t     *cov = calloc((size_t)CW * CH, 1); /* ink coverage 0..255 */
    if (!cov)
        return KR_ERR_NOMEM;
    kr_status s_ = KR_OK;
    int       em = (int)(s->char_mm * px_mm + 0.5);
    if (FT_Set_Pixel_Sizes(f->face, 0, (FT_UInt)em)) {
        s_ = KR_ERR_INVALID;
        goto fail;
    }
    for (int c = 0; c < n_lines; c++) {
        /* Columns run right to left: column 0 is the rightmost. */
        double      xc = (KR_RECOG_CARD_W_MM / 2 + s->dx_mm + s->col_mm * ((n_lines - 1) / 2.0 - c)) * px_mm;
        const char *t = lines[c];
        int         k = 0;
        for (uint32_t cp; (cp = utf8_next(&t)) != 0; k++) {
            if (FT_Load_Char(f->face, cp, FT_LOAD_RENDER))
                continue;
            FT_GlyphSlot g = f->face->glyph;
            double       top = (s->top_mm + k * s->pitch_mm) * px_mm;
            int          base = (int)(top + 0.88 * em);
            int          x0 = (int)(xc - g->bitmap.width / 2.0);
            int          y0 = base - g->bitmap_top;
            for (unsigned r = 0; r < g->bitmap.rows; r++) {
                int y = y0 + (int)r;
                if (y < 0 || y >= CH)
                    continue;
                const uint8_t *src = g->bitmap.buffer + (long)r * g->bitmap.pitch;
                for (unsigned q = 0; q < g->bitmap.width; q++) {
                    int x = x0 + (int)q;
                    if (x < 0 || x >= CW)
                        continue;
                    uint8_t a = g->bitmap.pixel_mode == FT_PIXEL_MODE_MONO
                                    ? ((src[q >> 3] >> (7 - (q & 7))) & 1) * 255
                                    : src[q];
                    if (a > cov[y * CW + x])
                        cov[y * CW + x] = a;
                }
            }
        }
    }
    if (s->border) {
        int b = (int)(1.5 * px_mm);
        for (int y = 0; y < CH; y++)
            for (int x = 0; x < CW; x++)
                if (x < b || y < b || x >= CW - b || y >= CH - b)
                    cov[y * CW + x] = 255;
    }
    for (int y = 0; y < KR_RECOG_PATCH_H; y++)
        for (int x = 0; x < KR_RECOG_PATCH_W; x++) {
            unsigned sum = 0;
            for (int yy = 0; yy < SS; yy++)
                for (int xx = 0; xx < SS; xx++)
                    sum += cov[(y * SS + yy) * CW + x * SS + xx];
            double a = sum / (255.0 * SS * SS);
            patch[y * KR_RECOG_PATCH_W + x] = (uint8_t)(s->paper + (s->ink - s->paper) * a + 0.5);
        }
fail:
    free(cov);
    return s_;
}
