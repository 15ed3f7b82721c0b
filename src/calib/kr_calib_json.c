/* kr_calib_json.c - the calibration file (calib/README.md): save (atomic, with the
 * outside-checkable `grid`) and load (every member validated).
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_calib_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KR_CALIB_FORMAT "karuta-calib/1"

static double round_to(double v, double q) { return round(v / q) * q; }

static cJSON *num_array(const double *v, int n, double q)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        cJSON *x = cJSON_CreateNumber(q > 0 ? round_to(v[i], q) : v[i]);
        if (!x || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static int add(cJSON *obj, const char *name, cJSON *item)
{
    if (!item)
        return -1;
    if (!cJSON_AddItemToObject(obj, name, item)) {
        cJSON_Delete(item);
        return -1;
    }
    return 0;
}

static int push(cJSON *arr, cJSON *item)
{
    if (!item)
        return -1;
    if (!cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return -1;
    }
    return 0;
}

/* Mat point -> [px, py] or null when it has no image. */
static cJSON *px_of(const kr_calib_t *c, double x, double y)
{
    double p[2];
    if (kr_calib_mm_to_px(c, x, y, &p[0], &p[1]))
        return cJSON_CreateNull();
    return num_array(p, 2, 0.001);
}

static cJSON *to_json(const kr_calib_t *c)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    int e = 0;
    e |= add(root, "format", cJSON_CreateString(KR_CALIB_FORMAT));
    cJSON *img = cJSON_CreateObject();
    if (add(root, "image", img))
        goto fail;
    e |= add(img, "w", cJSON_CreateNumber(c->img_w));
    e |= add(img, "h", cJSON_CreateNumber(c->img_h));
    cJSON *src = cJSON_CreateObject();
    if (add(root, "source", src))
        goto fail;
    e |= add(src, "video", cJSON_CreateString(c->source));
    e |= add(src, "t_us", c->t_us >= 0 ? cJSON_CreateNumber((double)c->t_us) : cJSON_CreateNull());
    cJSON *in = cJSON_CreateObject();
    if (add(root, "intrinsics", in))
        goto fail;
    e |= add(in, "known", cJSON_CreateBool(c->intrinsics_known));
    e |= add(in, "fx", cJSON_CreateNumber(c->fx));
    e |= add(in, "fy", cJSON_CreateNumber(c->fy));
    e |= add(in, "cx", cJSON_CreateNumber(c->cx));
    e |= add(in, "cy", cJSON_CreateNumber(c->cy));
    e |= add(in, "dist", num_array(c->dist, 5, 0));
    cJSON *H = cJSON_CreateArray();
    if (add(root, "homography", H))
        goto fail;
    for (int r = 0; r < 3; r++)
        e |= push(H, num_array(c->H + 3 * r, 3, 0));
    e |= add(root, "a_side", cJSON_CreateString(kr_calib_a_side_str(c->a_side)));
    e |= add(root, "rms_mm", cJSON_CreateNumber(round_to(c->rms_mm, 1e-4)));
    e |= add(root, "worst_mm", cJSON_CreateNumber(round_to(c->worst_mm, 1e-4)));
    e |= add(root, "rms_px", cJSON_CreateNumber(round_to(c->rms_px, 1e-4)));
    e |= add(root, "px_per_mm", cJSON_CreateNumber(round_to(c->px_per_mm, 1e-5)));
    e |= add(root, "card_inset_mm", cJSON_CreateNumber(round_to(c->card_inset_mm, 1e-4)));
    e |= add(root, "readout_us", cJSON_CreateNumber((double)c->readout_us));
    e |= add(root, "cards_found", cJSON_CreateNumber(c->n_found));
    e |= add(root, "cards_used", cJSON_CreateNumber(c->n_cards));
    cJSON *q = cJSON_CreateObject();
    if (add(root, "quality", q))
        goto fail;
    e |= add(q, "ok", cJSON_CreateBool(c->ok));
    e |= add(q, "reason", cJSON_CreateString(c->reason));
    /* field outline: 10 segments per edge, counter-clockwise from A's left corner */
    cJSON *fo = cJSON_CreateArray();
    if (add(root, "field_px", fo))
        goto fail;
    static const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; k++)
        for (int s = 0; s < 10; s++) {
            double t = s / 10.0;
            double x = (corner[k][0] + t * (corner[(k + 1) % 4][0] - corner[k][0])) * KR_CALIB_FIELD_HALF_W_MM;
            double y = (corner[k][1] + t * (corner[(k + 1) % 4][1] - corner[k][1])) * KR_CALIB_FIELD_HALF_H_MM;
            e |= push(fo, px_of(c, x, y));
        }
    cJSON *cards = cJSON_CreateArray();
    if (add(root, "cards", cards))
        goto fail;
    for (int i = 0; i < c->n_cards; i++) {
        const kr_calib_card_t *k = &c->cards[i];
        cJSON *o = cJSON_CreateObject();
        if (push(cards, o))
            goto fail;
        double ctr[2] = {k->x_mm, k->y_mm};
        e |= add(o, "mm", num_array(ctr, 2, 0.01));
        e |= add(o, "rot_deg", cJSON_CreateNumber(round_to(k->rot_deg, 0.001)));
        e |= add(o, "w_mm", cJSON_CreateNumber(round_to(k->w_mm, 0.01)));
        e |= add(o, "row", cJSON_CreateNumber(k->row));
        e |= add(o, "resid_mm", cJSON_CreateNumber(round_to(k->resid_mm, 1e-4)));
        cJSON *pa = cJSON_CreateArray();
        if (add(o, "px", pa))
            goto fail;
        for (int j = 0; j < 4; j++)
            e |= push(pa, num_array(k->px[j], 2, 0.001));
    }
    cJSON *grid = cJSON_CreateArray();
    if (add(root, "grid", grid))
        goto fail;
    for (int y = -275; y <= 275; y += 50)
        for (int x = -450; x <= 450; x += 50) {
            cJSON *o = cJSON_CreateObject();
            if (push(grid, o))
                goto fail;
            double mm[2] = {x, y};
            e |= add(o, "mm", num_array(mm, 2, 0));
            e |= add(o, "px", px_of(c, x, y));
        }
    if (e)
        goto fail;
    return root;
fail:
    cJSON_Delete(root);
    return NULL;
}

kr_status kr_calib_save(const kr_calib_t *c, const char *path)
{
    kr_outfile_t of;
    char *txt = NULL;
    kr_status st;
    cJSON *root = to_json(c);
    if (!root) {
        kr_calib_set_error("%s: out of memory building the calibration JSON", path);
        return KR_ERR_NOMEM;
    }
    txt = cJSON_Print(root);
    cJSON_Delete(root);
    if (!txt) {
        kr_calib_set_error("%s: out of memory printing the calibration JSON", path);
        return KR_ERR_NOMEM;
    }
    if ((st = kr_outfile_open(path, &of)) != KR_OK) {
        kr_calib_set_error("%s: cannot create the file", path);
        goto fail;
    }
    if (fputs(txt, of.fp) < 0 || fputc('\n', of.fp) < 0) {
        kr_outfile_abort(&of);
        kr_calib_set_error("%s: write failed", path);
        st = KR_ERR_IO;
        goto fail;
    }
    if ((st = kr_outfile_commit(&of)) != KR_OK)
        kr_calib_set_error("%s: write failed", path);
fail:
    free(txt);
    return st;
}

/* ---- load ---------------------------------------------------------------- */

static int get_num(const cJSON *o, const char *name, double *v, const char *path, const char *ctx)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) {
        kr_calib_set_error("%s: %s%s is missing or not a number", path, ctx, name);
        return -1;
    }
    *v = x->valuedouble;
    return 0;
}

static int get_nums(const cJSON *a, double *v, int n, const char *path, const char *what)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) {
        kr_calib_set_error("%s: %s must be an array of %d numbers", path, what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) {
            kr_calib_set_error("%s: %s[%d] is not a number", path, what, i);
            return -1;
        }
        v[i] = x->valuedouble;
    }
    return 0;
}

kr_status kr_calib_load(const char *path, kr_calib_t **out)
{
    kr_status st = KR_ERR_FORMAT;
    char *buf = NULL;
    cJSON *root = NULL;
    kr_calib_t *c = NULL;
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        kr_calib_set_error("%s: cannot open", path);
        return KR_ERR_IO;
    }
    size_t cap = 1 << 16, len = 0;
    buf = malloc(cap + 1);
    while (buf) {
        size_t r = fread(buf + len, 1, cap - len, fp);
        len += r;
        if (len < cap)
            break;
        if (cap > (64u << 20)) {
            kr_calib_set_error("%s: too large for a calibration file", path);
            fclose(fp);
            goto fail;
        }
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int rerr = ferror(fp);
    fclose(fp);
    if (!buf) {
        st = KR_ERR_NOMEM;
        goto fail;
    }
    if (rerr) {
        kr_calib_set_error("%s: read error", path);
        st = KR_ERR_IO;
        goto fail;
    }
    buf[len] = 0;
    root = cJSON_Parse(buf);
    if (!root || !cJSON_IsObject(root)) {
        kr_calib_set_error("%s: not a JSON object", path);
        goto fail;
    }
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, KR_CALIB_FORMAT)) {
        kr_calib_set_error("%s: format must be \"%s\"", path, KR_CALIB_FORMAT);
        goto fail;
    }
    if (!(c = kr_calib_alloc())) {
        st = KR_ERR_NOMEM;
        goto fail;
    }
    const cJSON *img = cJSON_GetObjectItemCaseSensitive(root, "image");
    double w, h;
    if (get_num(img, "w", &w, path, "image.") || get_num(img, "h", &h, path, "image."))
        goto fail;
    if (w < 1 || h < 1 || w > 65536 || h > 65536 || w != floor(w) || h != floor(h)) {
        kr_calib_set_error("%s: image.w/h must be positive integers", path);
        goto fail;
    }
    c->img_w = (int32_t)w;
    c->img_h = (int32_t)h;
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "intrinsics");
    if (get_num(in, "fx", &c->fx, path, "intrinsics.") || get_num(in, "fy", &c->fy, path, "intrinsics.") ||
        get_num(in, "cx", &c->cx, path, "intrinsics.") || get_num(in, "cy", &c->cy, path, "intrinsics.") ||
        get_nums(cJSON_GetObjectItemCaseSensitive(in, "dist"), c->dist, 5, path, "intrinsics.dist"))
        goto fail;
    if (!(c->fx > 0) || !(c->fy > 0)) {
        kr_calib_set_error("%s: intrinsics.fx/fy must be positive", path);
        goto fail;
    }
    c->intrinsics_known = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(in, "known"));
    const cJSON *H = cJSON_GetObjectItemCaseSensitive(root, "homography");
    if (!cJSON_IsArray(H) || cJSON_GetArraySize(H) != 3) {
        kr_calib_set_error("%s: homography must be 3 rows of 3 numbers", path);
        goto fail;
    }
    for (int r = 0; r < 3; r++)
        if (get_nums(cJSON_GetArrayItem(H, r), c->H + 3 * r, 3, path, "homography row"))
            goto fail;
    if (kr_calib_finish_model(c)) {
        kr_calib_set_error("%s: homography is singular", path);
        goto fail;
    }
    const cJSON *side = cJSON_GetObjectItemCaseSensitive(root, "a_side");
    if (!cJSON_IsString(side) || kr_calib_a_side_parse(side->valuestring, &c->a_side)) {
        kr_calib_set_error("%s: a_side must be \"bottom\", \"top\", \"left\" or \"right\"", path);
        goto fail;
    }
    if (get_num(root, "rms_mm", &c->rms_mm, path, ""))
        goto fail;
    double v;
    if (!get_num(root, "worst_mm", &v, path, ""))
        c->worst_mm = v;
    if (!get_num(root, "rms_px", &v, path, ""))
        c->rms_px = v;
    if (!get_num(root, "card_inset_mm", &v, path, ""))
        c->card_inset_mm = v;
    if (!get_num(root, "cards_found", &v, path, ""))
        c->n_found = (int)v;
    if (cJSON_GetObjectItemCaseSensitive(root, "readout_us")) { /* optional: files before it have none */
        if (get_num(root, "readout_us", &v, path, "") || v < 0 || v > KR_CALIB_MAX_READOUT_US || v != floor(v)) {
            kr_calib_set_error("%s: readout_us must be a whole number of microseconds within 0 ... %d", path,
                               KR_CALIB_MAX_READOUT_US);
            goto fail;
        }
        c->readout_us = (int64_t)v;
    }
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "quality");
    const cJSON *qok = cJSON_GetObjectItemCaseSensitive(q, "ok");
    if (!cJSON_IsBool(qok)) {
        kr_calib_set_error("%s: quality.ok must be true or false", path);
        goto fail;
    }
    c->ok = cJSON_IsTrue(qok);
    const cJSON *qr = cJSON_GetObjectItemCaseSensitive(q, "reason");
    if (cJSON_IsString(qr))
        snprintf(c->reason, sizeof c->reason, "%s", qr->valuestring);
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "source");
    const cJSON *vid = cJSON_GetObjectItemCaseSensitive(src, "video");
    if (cJSON_IsString(vid))
        snprintf(c->source, sizeof c->source, "%s", vid->valuestring);
    const cJSON *tus = cJSON_GetObjectItemCaseSensitive(src, "t_us");
    c->t_us = cJSON_IsNumber(tus) ? (int64_t)tus->valuedouble : -1;
    const cJSON *cards = cJSON_GetObjectItemCaseSensitive(root, "cards");
    if (cJSON_IsArray(cards)) {
        int i = 0;
        const cJSON *o;
        cJSON_ArrayForEach(o, cards)
        {
            if (i >= KR_CALIB_MAX_CARDS)
                break;
            kr_calib_card_t *k = &c->cards[i];
            double ctr[2], pts[2], rot = 0, row = 0, res = 0, wmm = KR_CALIB_CARD_W_MM;
            if (get_nums(cJSON_GetObjectItemCaseSensitive(o, "mm"), ctr, 2, path, "cards[].mm"))
                goto fail;
            get_num(o, "rot_deg", &rot, path, "cards[].");
            get_num(o, "row", &row, path, "cards[].");
            get_num(o, "resid_mm", &res, path, "cards[].");
            get_num(o, "w_mm", &wmm, path, "cards[].");
            const cJSON *pa = cJSON_GetObjectItemCaseSensitive(o, "px");
            if (!cJSON_IsArray(pa) || cJSON_GetArraySize(pa) != 4) {
                kr_calib_set_error("%s: cards[%d].px must hold 4 corners", path, i);
                goto fail;
            }
            for (int j = 0; j < 4; j++) {
                if (get_nums(cJSON_GetArrayItem(pa, j), pts, 2, path, "cards[].px[]"))
                    goto fail;
                k->px[j][0] = pts[0];
                k->px[j][1] = pts[1];
            }
            k->x_mm = ctr[0];
            k->y_mm = ctr[1];
            k->rot_deg = rot;
            k->row = (int)row;
            k->resid_mm = res;
            k->w_mm = wmm;
            double cs = cos(rot * KR_CALIB_PI / 180.0), sn = sin(rot * KR_CALIB_PI / 180.0);
            const double L[4][2] = {{-wmm / 2, -36.5}, {wmm / 2, -36.5}, {wmm / 2, 36.5}, {-wmm / 2, 36.5}};
            for (int j = 0; j < 4; j++) {
                k->mm[j][0] = ctr[0] + cs * L[j][0] - sn * L[j][1];
                k->mm[j][1] = ctr[1] + sn * L[j][0] + cs * L[j][1];
            }
            i++;
        }
        c->n_cards = i;
    }
    kr_calib_set_error("%s", "");
    cJSON_Delete(root);
    free(buf);
    *out = c;
    return KR_OK;
fail:
    cJSON_Delete(root);
    free(buf);
    free(c);
    return st;
}
