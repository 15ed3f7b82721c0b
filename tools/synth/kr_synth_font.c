/* kr_synth_font.c - card text with FreeType and the IPA / Noto Japanese fonts:
 * the lower verse in vertical columns, read right to left, upright for the owner.
 * SPDX-License-Identifier: MIT                                                    */
#include "kr_synth_internal.h"

#include <ft2build.h>
#include FT_FREETYPE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct kr_synth_font {
    FT_Library lib;
    FT_Face    face;
};

static const char *font_paths[4] = {
    "/usr/share/fonts/opentype/ipafont-mincho/ipam.ttf",
    "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
};

kr_status kr_synth_font_open(int which, kr_synth_font **out, char *err, size_t errlen)
{
    *out = NULL;
    if (which < 0 || which > 3)
        which = 0;
    kr_synth_font *f = calloc(1, sizeof *f);
    if (!f)
        return KR_ERR_NOMEM;
    if (FT_Init_FreeType(&f->lib)) {
        snprintf(err, errlen, "FreeType initialisation failed");
        free(f);
        return KR_ERR_INVALID;
    }
    if (FT_New_Face(f->lib, font_paths[which], 0, &f->face)) {
        /* fall back on the IPA Mincho font (fonts-ipafont-mincho) */
        if (FT_New_Face(f->lib, font_paths[0], 0, &f->face)) {
            snprintf(err, errlen, "%s: cannot open font (install fonts-ipafont-mincho)", font_paths[which]);
            FT_Done_FreeType(f->lib);
            free(f);
            return KR_ERR_IO;
        }
    }
    *out = f;
    return KR_OK;
}

void kr_synth_font_close(kr_synth_font *f)
{
    if (!f)
        return;
    FT_Done_Face(f->face);
    FT_Done_FreeType(f->lib);
    free(f);
}

kr_status kr_synth_font_card(kr_synth_font *f, const kr_synth_poem *p, uint8_t *cov, int w, int h,
                             double px_per_mm)
{
    memset(cov, 0, (size_t)w * (size_t)h);
    int maxn = 1;
    int cps[3][16], n[3] = {0, 0, 0};
    for (int l = 0; l < p->n_lines; l++) {
        n[l] = kr_synth_utf8_decode(p->lines[l], cps[l], 16);
        if (n[l] < 0)
            n[l] = 0;
        if (n[l] > maxn)
            maxn = n[l];
    }
    /* glyph step along the column: text fills ~84 % of the card height */
    double step_mm = 61.0 / (maxn > 7 ? maxn : 7);
    double size_mm = step_mm * 0.98;
    double col_mm = p->n_lines > 2 ? 14.0 : 18.0;
    int px = (int)lround(size_mm * px_per_mm);
    if (px < 4)
        px = 4;
    if (FT_Set_Pixel_Sizes(f->face, 0, (FT_UInt)px))
        return KR_ERR_INVALID;
    for (int l = 0; l < p->n_lines; l++) {
        /* columns right to left, centred on the card */
        double cx_mm = KR_CARD_W / 2 + col_mm * ((p->n_lines - 1) / 2.0 - l);
        /* second and later columns start a little lower, as printed */
        double y0_mm = 6.5 + (l > 0 ? step_mm * 0.5 : 0.0);
        for (int i = 0; i < n[l]; i++) {
            if (FT_Load_Char(f->face, (FT_ULong)cps[l][i], FT_LOAD_RENDER))
                continue;
            FT_GlyphSlot g = f->face->glyph;
            double cell_cx = cx_mm * px_per_mm, cell_top = (y0_mm + i * step_mm) * px_per_mm;
            int gx = (int)lround(cell_cx - g->bitmap.width / 2.0);
            /* centre the glyph box vertically in its cell */
            int gy = (int)lround(cell_top + (size_mm * px_per_mm - g->bitmap.rows) / 2.0);
            for (unsigned r = 0; r < g->bitmap.rows; r++) {
                int y = gy + (int)r;
                if (y < 0 || y >= h)
                    continue;
                const uint8_t *src = g->bitmap.buffer + (ptrdiff_t)r * g->bitmap.pitch;
                for (unsigned c = 0; c < g->bitmap.width; c++) {
                    int x = gx + (int)c;
                    if (x < 0 || x >= w)
                        continue;
                    uint8_t *d = &cov[(size_t)y * w + x];
                    if (src[c] > *d)
                        *d = src[c];
                }
            }
        }
    }
    return KR_OK;
}
