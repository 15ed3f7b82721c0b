/* kr_recog_scene.c - one still frame of a video -> calibration, card outlines and an
 * identified layout; the layout record writer.
 * SPDX-License-Identifier: MIT                                                        */
#include "kr_recog_scene.h"
#include "kr_media.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef KR_RECOG_MODEL_DEFAULT
#define KR_RECOG_MODEL_DEFAULT "models/cards.krm"
#endif

const char *kr_recog_default_model(void) { return KR_RECOG_MODEL_DEFAULT; }

/* one-line error text into the caller's err[errlen] (NULL-safe): kr_core's helper */
#define set_err(err, errlen, ...) ((void)kr_error_set((err), (errlen), KR_OK, __VA_ARGS__))

static int map_px_to_mm(void *ctx, double px, double py, double *x, double *y)
{
    return kr_calib_px_to_mm((const kr_calib_t *)ctx, px, py, x, y);
}

/* Cards laid edge to edge can come out of the outline detector as one outline two or
 * three cards wide. Such an outline (measured on the mat: one side a whole multiple k
 * of a card width, the other a card depth) is cut into k card outlines, interpolated
 * on the mat and mapped back to the image. quads has room for max; returns the new n. */
static int split_merged(const kr_calib_t *c, double *quads, int n, int max)
{
    int out = n;
    for (int i = 0; i < n; i++) {
        double mm[4][2];
        int    ok = 1;
        for (int k = 0; k < 4 && ok; k++)
            ok = !kr_calib_px_to_mm(c, quads[8 * i + 2 * k], quads[8 * i + 2 * k + 1], &mm[k][0], &mm[k][1]);
        if (!ok)
            continue;
        double e[4];
        for (int k = 0; k < 4; k++)
            e[k] = hypot(mm[(k + 1) % 4][0] - mm[k][0], mm[(k + 1) % 4][1] - mm[k][1]);
        double a = (e[0] + e[2]) / 2, b = (e[1] + e[3]) / 2; /* sides 0-1 / 1-2 */
        int    along01 = a > b;                              /* the long side */
        double lng = along01 ? a : b, shrt = along01 ? b : a;
        int    k = (int)(lng / KR_RECOG_CARD_W_MM + 0.5);
        if (k < 2 || fabs(shrt - KR_RECOG_CARD_H_MM) > 12 ||
            fabs(lng - k * KR_RECOG_CARD_W_MM) > 6.0 * k || out + k - 1 > max)
            continue;
        /* Corners p0..p3 with the long side p0->p1 (and p3->p2). */
        double p[4][2];
        for (int q = 0; q < 4; q++) {
            int from = along01 ? q : (q + 1) % 4;
            p[q][0] = mm[from][0];
            p[q][1] = mm[from][1];
        }
        for (int part = 0; part < k; part++) {
            double t0 = (double)part / k, t1 = (double)(part + 1) / k, sub[4][2];
            for (int d = 0; d < 2; d++) {
                sub[0][d] = p[0][d] + t0 * (p[1][d] - p[0][d]);
                sub[1][d] = p[0][d] + t1 * (p[1][d] - p[0][d]);
                sub[2][d] = p[3][d] + t1 * (p[2][d] - p[3][d]);
                sub[3][d] = p[3][d] + t0 * (p[2][d] - p[3][d]);
            }
            int     slot = part == 0 ? i : out++;
            double *q = quads + 8 * slot;
            for (int v = 0; v < 4; v++)
                kr_calib_mm_to_px(c, sub[v][0], sub[v][1], &q[2 * v], &q[2 * v + 1]);
        }
    }
    return out;
}

/* Outlines whose centre lies more than half a card outside the field (a sleeve, a
 * card box, the neighbouring match) are not part of the layout: dropped. */
static int drop_off_field(const kr_calib_t *c, double *quads, int n)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        double cx = 0, cy = 0, x, y;
        int    ok = 1;
        for (int k = 0; k < 4 && ok; k++) {
            ok = !kr_calib_px_to_mm(c, quads[8 * i + 2 * k], quads[8 * i + 2 * k + 1], &x, &y);
            cx += x / 4;
            cy += y / 4;
        }
        if (!ok || fabs(cx) > KR_CALIB_FIELD_HALF_W_MM + KR_RECOG_CARD_W_MM / 2 ||
            fabs(cy) > KR_CALIB_FIELD_HALF_H_MM + KR_RECOG_CARD_H_MM / 2) {
            KR_DEBUG("recog: outline at (%.0f, %.0f) mm is off the field; ignored", cx, cy);
            continue;
        }
        memmove(quads + 8 * kept++, quads + 8 * i, 8 * sizeof *quads);
    }
    return kept;
}

void kr_recog_scene_free(kr_recog_scene *s)
{
    if (!s)
        return;
    free(s->cards);
    kr_calib_destroy(s->calib);
    free(s->px);
    memset(s, 0, sizeof *s);
}

/* The cards of out->frame, calibrated by out->calib: outlines (merged ones split, off-field
 * ones dropped), then the layout read with m (NULL: positions and features only). what names
 * the source in errors. Frees nothing on failure: the caller does. */
static kr_status read_cards(kr_recog_scene *out, const char *what, const kr_recog_model_t *m,
                            const kr_recog_config *cfg, char *err, size_t errlen)
{
    kr_calib_config ccfg;
    kr_calib_config_default(&ccfg);
    kr_status s;
    double   *quads = malloc(sizeof *quads * 8 * KR_CALIB_MAX_CARDS);
    if (!quads)
        return KR_ERR_NOMEM;
    int n = 0;
    if ((s = kr_calib_detect_cards(&ccfg, &out->frame, quads, KR_CALIB_MAX_CARDS, &n)) != KR_OK) {
        set_err(err, errlen, "%s at %.2f s: card detection failed: %s", what, out->t_us / 1e6, kr_calib_error());
        goto done;
    }
    n = split_merged(out->calib, quads, n, KR_CALIB_MAX_CARDS);
    n = drop_off_field(out->calib, quads, n);
    out->cards = calloc((size_t)(n ? n : 1), sizeof *out->cards);
    if (!out->cards) {
        s = KR_ERR_NOMEM;
        goto done;
    }
    out->n = n;
    int64_t t_recog = kr_clock_us();
    if (m) {
        s = kr_recog_read_layout(m, cfg, &out->frame, quads, n, map_px_to_mm, out->calib, out->cards);
    } else {
        /* positions and features only: identify against an empty model is not possible */
        kr_recog_model_t *empty = NULL;
        if ((s = kr_recog_model_create(&empty)) == KR_OK) {
            kr_recog_config c2 = *cfg;
            c2.min_contrast = 1e9; /* every card "blank": no assignment needed */
            s = kr_recog_read_layout(empty, &c2, &out->frame, quads, n, map_px_to_mm, out->calib, out->cards);
            kr_recog_model_destroy(empty);
        }
    }
    if (s != KR_OK)
        set_err(err, errlen, "%s at %.2f s: reading the cards failed (%s)", what, out->t_us / 1e6,
                kr_status_str(s));
    out->recog_us = kr_clock_us() - t_recog;
done:
    free(quads);
    return s;
}

/* Loads the calibration at calib_path into out->calib and checks it fits out->frame. */
static kr_status load_calib(kr_recog_scene *out, const char *calib_path, const char *what, char *err,
                            size_t errlen)
{
    kr_status s = kr_calib_load(calib_path, &out->calib);
    if (s != KR_OK) {
        set_err(err, errlen, "%s", kr_calib_error());
        return s;
    }
    if (out->calib->img_w != out->frame.w || out->calib->img_h != out->frame.h) {
        set_err(err, errlen, "--calib %s is for %dx%d images, %s is %dx%d", calib_path, out->calib->img_w,
                out->calib->img_h, what, out->frame.w, out->frame.h);
        return KR_ERR_INVALID;
    }
    return KR_OK;
}

kr_status kr_recog_scene_from_frame(const kr_image_t *bgr, int64_t t_us, const char *what, const char *calib_path,
                                    const kr_recog_model_t *m, const kr_recog_config *cfg, kr_recog_scene *out,
                                    char *err, size_t errlen)
{
    if (!bgr || !bgr->px || bgr->channels != 3 || bgr->w <= 0 || bgr->h <= 0 || !out || !cfg)
        return KR_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!what)
        what = "the frame";
    int64_t   t_start = kr_clock_us();
    kr_status s = KR_OK;
    size_t    row = (size_t)bgr->w * 3;
    out->px = malloc(row * (size_t)bgr->h);
    if (!out->px) {
        s = KR_ERR_NOMEM;
        goto fail;
    }
    for (int y = 0; y < bgr->h; y++)
        memcpy(out->px + row * (size_t)y, bgr->px + (size_t)bgr->stride * (size_t)y, row);
    out->frame = (kr_image_t){bgr->w, bgr->h, (int32_t)row, 3, out->px};
    out->t_us = t_us;
    if (calib_path) {
        if ((s = load_calib(out, calib_path, what, err, errlen)) != KR_OK)
            goto fail;
    } else {
        kr_calib_config ccfg;
        kr_calib_config_default(&ccfg);
        if ((s = kr_calib_create_from_frame(&ccfg, &out->frame, t_us, &out->calib)) != KR_OK) {
            set_err(err, errlen, "%s at %.2f s: cannot calibrate: %s", what, t_us / 1e6, kr_calib_error());
            goto fail;
        }
    }
    if ((s = read_cards(out, what, m, cfg, err, errlen)) != KR_OK)
        goto fail;
    out->read_us = kr_clock_us() - t_start;
    return KR_OK;
fail:
    kr_recog_scene_free(out);
    return s;
}

kr_status kr_recog_scene_read(const char *video, double at_s, const char *calib_path,
                              const kr_recog_model_t *m, const kr_recog_config *cfg,
                              kr_recog_scene *out, char *err, size_t errlen)
{
    if (!video || !out || !cfg)
        return KR_ERR_INVALID;
    memset(out, 0, sizeof *out);
    int64_t            t_start = kr_clock_us();
    kr_media_reader_t *r = NULL;
    kr_status          s = KR_OK;
    if (!calib_path) {
        /* Calibrate from the video itself: the calib module combines a few frames
         * around the time by a per-pixel median (a passing hand disappears). */
        kr_calib_config ccfg;
        kr_calib_config_default(&ccfg);
        kr_calib_video_config vc;
        kr_calib_video_config_default(&vc);
        if (at_s >= 0)
            vc.at_us = (int64_t)(at_s * 1e6);
        s = kr_calib_create_from_video(&ccfg, &vc, video, &out->calib, &out->frame, &out->px);
        if (s != KR_OK) {
            set_err(err, errlen, "cannot calibrate: %s", kr_calib_error());
            goto fail;
        }
        out->t_us = out->calib->t_us;
    } else {
        if ((s = kr_media_reader_open(video, &r)) != KR_OK) {
            set_err(err, errlen, "%s", kr_media_reader_error(NULL));
            goto fail;
        }
        kr_frame_t f;
        if (at_s < 0)
            at_s = 2.0;
        if ((s = kr_media_reader_seek(r, (int64_t)(at_s * 1e6))) == KR_OK)
            s = kr_media_reader_next(r, &f);
        if (s == KR_ERR_EOF) {
            set_err(err, errlen, "%s: --at %.2f s is past the end of the video", video, at_s);
            s = KR_ERR_INVALID;
            goto fail;
        }
        if (s != KR_OK) {
            set_err(err, errlen, "%s at %.2f s: %s", video, at_s, kr_media_reader_error(r));
            goto fail;
        }
        /* that frame, as live reads one: copied, calibration loaded, cards read */
        s = kr_recog_scene_from_frame(&f.img, f.t_us, video, calib_path, m, cfg, out, err, errlen);
        kr_media_reader_destroy(r);
        if (s == KR_OK)
            out->read_us = kr_clock_us() - t_start; /* the reading of the video included */
        return s;
    }
    if ((s = read_cards(out, video, m, cfg, err, errlen)) != KR_OK)
        goto fail;
    out->read_us = kr_clock_us() - t_start;
    return KR_OK;
fail:
    kr_media_reader_destroy(r);
    kr_recog_scene_free(out);
    return s;
}

static int card_order(const void *a, const void *b)
{
    const kr_recog_layout_card *x = *(const kr_recog_layout_card *const *)a;
    const kr_recog_layout_card *y = *(const kr_recog_layout_card *const *)b;
    if (x->owner != y->owner)
        return x->owner - y->owner;
    if (x->row != y->row)
        return x->row - y->row;
    return (x->x_mm > y->x_mm) - (x->x_mm < y->x_mm);
}

kr_status kr_recog_layout_write(FILE *fp, const kr_recog_layout_card *cards, int n, int64_t t_us,
                                int mark_confirm)
{
    if (!fp || (n > 0 && !cards) || n < 0)
        return KR_ERR_INVALID;
    const kr_recog_layout_card **order = malloc(sizeof *order * (size_t)(n ? n : 1));
    if (!order)
        return KR_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        order[i] = &cards[i];
    qsort(order, (size_t)n, sizeof *order, card_order);
    fprintf(fp, "{\"type\":\"layout\",\"t_us\":%lld,\"cards\":[", (long long)t_us);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const kr_recog_layout_card *c = order[i];
        if (c->res.id < 1)
            continue;
        fprintf(fp,
                "%s{\"card\":%d,\"owner\":\"%s\",\"row\":\"%s\",\"x_mm\":%.1f,\"y_mm\":%.1f,"
                "\"confidence\":%.3f,\"runner_up\":%d,\"score\":%.3f%s}",
                k++ ? "," : "", c->res.id, kr_recog_owner_str(c->owner), kr_recog_row_str(c->row),
                c->x_mm, c->y_mm, c->res.confidence, c->res.runner_up, c->res.score,
                mark_confirm && c->res.verdict == KR_RECOG_AMBIGUOUS ? ",\"confirm\":true" : "");
    }
    fprintf(fp, "]}\n");
    free(order);
    return ferror(fp) ? KR_ERR_IO : KR_OK;
}
