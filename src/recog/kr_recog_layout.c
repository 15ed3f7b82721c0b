/* kr_recog_layout.c - a layout from card outlines: mat position, owner, row and
 * upright orientation of each card, joint identification, and a one-line problem report.
 * SPDX-License-Identifier: MIT                                                        */
#include "kr_recog.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *kr_recog_row_str(int row)
{
    return row == 1 ? "upper" : row == 2 ? "middle" : row == 3 ? "lower" : "none";
}

const char *kr_recog_owner_str(int owner) { return owner == KR_RECOG_OWNER_B ? "B" : "A"; }

/* Row from the centre's distance to the middle line (geometry.md: upper 15..88,
 * middle 98..171, lower 181..254 mm); a centre within half a card depth of a row's
 * middle belongs to it. */
static int row_of(double y_mm)
{
    static const double mid[3] = {51.5, 134.5, 217.5};
    double              ay = fabs(y_mm);
    for (int r = 0; r < 3; r++)
        if (fabs(ay - mid[r]) <= 41.5)
            return r + 1;
    return 0;
}

kr_status kr_recog_read_layout(const kr_recog_model_t *m, const kr_recog_config *cfg,
                               const kr_image_t *frame, const double *quads, int n,
                               kr_recog_map_fn px_to_mm, void *ctx, kr_recog_layout_card *out)
{
    if (!m || !cfg || !frame || (n > 0 && (!quads || !out)) || n < 0 || !px_to_mm)
        return KR_ERR_INVALID;
    kr_status s = KR_OK;
    for (int i = 0; i < n; i++) {
        kr_recog_layout_card *c = &out[i];
        memset(c, 0, sizeof *c);
        double mm[4][2], cx = 0, cy = 0;
        for (int k = 0; k < 4; k++) {
            double px = quads[8 * i + 2 * k], py = quads[8 * i + 2 * k + 1];
            if (px_to_mm(ctx, px, py, &mm[k][0], &mm[k][1]))
                return KR_ERR_INVALID;
            if (px < 2 || py < 2 || px > frame->w - 3 || py > frame->h - 3)
                c->cut_off = 1;
            cx += mm[k][0] / 4;
            cy += mm[k][1] / 4;
        }
        c->x_mm = cx;
        c->y_mm = cy;
        c->owner = cy < 0 ? KR_RECOG_OWNER_A : KR_RECOG_OWNER_B;
        c->row = row_of(cy);
        /* Owner's view: A looks along +y with +x to the right; B the opposite. The
         * corner furthest up-left in that view is TL, and so on. */
        double sgn = c->owner == KR_RECOG_OWNER_A ? 1 : -1, ext_x = 0, ext_y = 0;
        const double pick[4][2] = {{-1, 1}, {1, 1}, {1, -1}, {-1, -1}}; /* TL TR BR BL */
        for (int q = 0; q < 4; q++) {
            int    bk = 0;
            double bv = -1e300;
            for (int k = 0; k < 4; k++) {
                double a = sgn * (mm[k][0] - cx), b = sgn * (mm[k][1] - cy);
                double v = pick[q][0] * a + pick[q][1] * b;
                if (v > bv) {
                    bv = v;
                    bk = k;
                }
            }
            c->corners_px[q][0] = quads[8 * i + 2 * bk];
            c->corners_px[q][1] = quads[8 * i + 2 * bk + 1];
        }
        for (int k = 0; k < 4; k++) {
            ext_x += fabs(mm[k][0] - cx);
            ext_y += fabs(mm[k][1] - cy);
        }
        c->landscape = ext_x > ext_y;
        uint8_t patch[KR_RECOG_PATCH_W * KR_RECOG_PATCH_H];
        if ((s = kr_recog_extract(frame, (const double(*)[2])c->corners_px, patch)) != KR_OK)
            return s;
        if ((s = kr_recog_features(patch, &c->feat)) != KR_OK)
            return s;
    }
    if (n == 0)
        return KR_OK;
    kr_recog_feat   *feat = malloc(sizeof *feat * (size_t)n);
    kr_recog_result *res = malloc(sizeof *res * (size_t)n);
    if (!feat || !res) {
        s = KR_ERR_NOMEM;
        goto fail;
    }
    for (int i = 0; i < n; i++)
        feat[i] = out[i].feat;
    if ((s = kr_recog_identify(m, cfg, feat, n, res, NULL)) != KR_OK)
        goto fail;
    for (int i = 0; i < n; i++)
        out[i].res = res[i];
fail:
    free(feat);
    free(res);
    return s;
}

/* Appends to msg (bounded). */
static void add(char *msg, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void add(char *msg, size_t len, const char *fmt, ...)
{
    size_t used = strlen(msg);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + used, len - used, fmt, ap);
    va_end(ap);
}

kr_status kr_recog_layout_problem(const kr_recog_layout_card *cards, int n, int expected,
                                  char *msg, size_t msglen)
{
    if (!msg || !msglen)
        return KR_ERR_INVALID;
    msg[0] = 0;
    int bad = 0;
    if (expected > 0 && n != expected) {
        add(msg, msglen, "found %d cards, expected %d", n, expected);
        bad++;
    }
    for (int i = 0; i < n; i++) {
        const kr_recog_layout_card *c = &cards[i];
        const char                 *why = NULL;
        char                        extra[96] = "";
        if (c->cut_off)
            why = "cut off by the frame";
        else if (c->landscape)
            why = "lies across (not portrait)";
        else if (c->res.verdict == KR_RECOG_BLANK)
            why = "face down or blank";
        else if (!c->row)
            why = "outside the rows";
        else if (c->res.verdict == KR_RECOG_UNKNOWN) {
            why = "not recognised";
            snprintf(extra, sizeof extra, " (best %d, score %.2f)", c->res.id, c->res.score);
        } else if (c->res.verdict == KR_RECOG_AMBIGUOUS) {
            if (c->res.rival >= 0 && c->res.rival < i &&
                cards[c->res.rival].res.verdict == KR_RECOG_AMBIGUOUS)
                continue; /* reported with its rival */
            if (c->res.rival >= 0) {
                const kr_recog_layout_card *r = &cards[c->res.rival];
                add(msg, msglen, "%scards at (%.0f, %.0f) and (%.0f, %.0f) mm look alike (%d or %d)",
                    bad ? "; " : "", c->x_mm, c->y_mm, r->x_mm, r->y_mm, c->res.id, r->res.id);
            } else {
                add(msg, msglen, "%scard at (%.0f, %.0f) mm looks like both %d and %d",
                    bad ? "; " : "", c->x_mm, c->y_mm, c->res.id, c->res.runner_up);
            }
            bad++;
            continue;
        }
        if (why) {
            add(msg, msglen, "%scard at (%.0f, %.0f) mm %s%s", bad ? "; " : "", c->x_mm, c->y_mm,
                why, extra);
            bad++;
        }
    }
    return bad ? KR_ERR_INVALID : KR_OK;
}
