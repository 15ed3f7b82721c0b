/* kr_calib_board.c - lens intrinsics from a printed ChArUco board (OpenCV aruco through
 * kr_cv): the printable board, board views from a video, the lens file.
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_calib_internal.h"
#include "kr_cv.h"
#include "kr_media.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KR_LENS_FORMAT "karuta-lens/1"
#define MAX_VIEWS 40
#define MIN_CORNERS 12

void kr_calib_board_default(kr_calib_board *b)
{
    b->squares_x = 10;
    b->squares_y = 7;
    b->square_mm = 25.0;
    b->marker_mm = 18.0;
}

static void to_cv(const kr_calib_board *b, kr_cv_charuco *c)
{
    c->squares_x = b->squares_x;
    c->squares_y = b->squares_y;
    c->square_mm = b->square_mm;
    c->marker_mm = b->marker_mm;
}

kr_status kr_calib_board_image(const kr_calib_board *b, double px_per_mm, kr_image_t *out,
                               uint8_t **px)
{
    kr_cv_charuco c;
    to_cv(b, &c);
    kr_status st = kr_cv_calib_charuco_draw(&c, px_per_mm, 10.0, out, px);
    if (st != KR_OK)
        kr_calib_set_error("board image: %s", st == KR_ERR_INVALID ? "bad board size" : kr_cv_last_error());
    return st;
}

void kr_calib_config_set_lens(kr_calib_config *cfg, const kr_calib_lens *l)
{
    cfg->intrinsics_known = 1;
    cfg->fx = l->fx;
    cfg->fy = l->fy;
    cfg->cx = l->cx;
    cfg->cy = l->cy;
    memcpy(cfg->dist, l->dist, sizeof cfg->dist);
}

/* Collects board corners of a view into the arrays at offset *k. Returns corners added. */
static int add_view(const kr_cv_charuco *c, const kr_image_t *img, double *obj, double *ipx,
                    int room, kr_status *st)
{
    int per_row = c->squares_x - 1, max = (c->squares_x - 1) * (c->squares_y - 1);
    int *ids = malloc(sizeof(int) * (size_t)max);
    double *xy = malloc(sizeof(double) * 2 * (size_t)max);
    int n = 0;
    *st = KR_OK;
    if (!ids || !xy) {
        *st = KR_ERR_NOMEM;
        goto done;
    }
    if ((*st = kr_cv_calib_charuco_detect(c, img, ids, xy, max, &n)) != KR_OK) {
        kr_calib_set_error("board detection: %s", kr_cv_last_error());
        n = 0;
        goto done;
    }
    if (n < MIN_CORNERS || n > room) {
        n = 0;
        goto done;
    }
    for (int i = 0; i < n; i++) {
        obj[2 * i] = (ids[i] % per_row + 1) * c->square_mm;
        obj[2 * i + 1] = (ids[i] / per_row + 1) * c->square_mm;
        ipx[2 * i] = xy[2 * i];
        ipx[2 * i + 1] = xy[2 * i + 1];
    }
done:
    free(ids);
    free(xy);
    return n;
}

typedef struct views {
    int     n, total;
    int     counts[MAX_VIEWS];
    double *obj, *img; /* 2 * capacity each */
    int     cap;
} views;

static kr_status views_init(views *v, const kr_cv_charuco *c)
{
    memset(v, 0, sizeof *v);
    v->cap = MAX_VIEWS * (c->squares_x - 1) * (c->squares_y - 1);
    v->obj = malloc(sizeof(double) * 2 * (size_t)v->cap);
    v->img = malloc(sizeof(double) * 2 * (size_t)v->cap);
    return v->obj && v->img ? KR_OK : KR_ERR_NOMEM;
}

static kr_status views_add(views *v, const kr_cv_charuco *c, const kr_image_t *img)
{
    kr_status st;
    if (v->n >= MAX_VIEWS)
        return KR_OK;
    int k = add_view(c, img, v->obj + 2 * v->total, v->img + 2 * v->total, v->cap - v->total, &st);
    if (k > 0) {
        v->counts[v->n++] = k;
        v->total += k;
    }
    return st;
}

static kr_status views_solve(views *v, int w, int h, kr_calib_lens *out)
{
    double K[9];
    if (v->n < 4) {
        kr_calib_set_error("the board was seen in %d views with %d+ corners, need at least 4", v->n,
                           MIN_CORNERS);
        return KR_ERR_INVALID;
    }
    memset(out, 0, sizeof *out);
    kr_status st = kr_cv_calib_camera(v->n, v->counts, v->obj, v->img, w, h, K, out->dist, &out->rms_px);
    if (st != KR_OK) {
        kr_calib_set_error("lens calibration: %s", kr_cv_last_error());
        return st;
    }
    out->img_w = w;
    out->img_h = h;
    out->fx = K[0];
    out->fy = K[4];
    out->cx = K[2];
    out->cy = K[5];
    out->views = v->n;
    return KR_OK;
}

static void views_free(views *v)
{
    free(v->obj);
    free(v->img);
}

kr_status kr_calib_lens_from_images(const kr_calib_board *b, const kr_image_t *imgs, int n,
                                    kr_calib_lens *out)
{
    kr_cv_charuco c;
    views v;
    to_cv(b, &c);
    kr_status st = views_init(&v, &c);
    for (int i = 0; st == KR_OK && i < n; i++) {
        if (imgs[i].w != imgs[0].w || imgs[i].h != imgs[0].h) {
            kr_calib_set_error("board views differ in size");
            st = KR_ERR_INVALID;
            break;
        }
        st = views_add(&v, &c, &imgs[i]);
    }
    if (st == KR_OK)
        st = n > 0 ? views_solve(&v, imgs[0].w, imgs[0].h, out) : KR_ERR_INVALID;
    views_free(&v);
    return st;
}

kr_status kr_calib_lens_from_video(const kr_calib_board *b, const char *path, int64_t step_us,
                                   kr_calib_lens *out)
{
    kr_cv_charuco c;
    views v;
    kr_media_reader_t *r = NULL;
    int w = 0, h = 0;
    int64_t next = 0;
    to_cv(b, &c);
    kr_status st = views_init(&v, &c);
    if (st != KR_OK)
        goto fail;
    if ((st = kr_media_reader_open(path, &r)) != KR_OK) {
        kr_calib_set_error("%s", kr_media_reader_error(NULL));
        goto fail;
    }
    for (;;) {
        kr_frame_t f;
        st = kr_media_reader_next(r, &f);
        if (st == KR_ERR_EOF)
            break;
        if (st != KR_OK) {
            kr_calib_set_error("%s", kr_media_reader_error(r));
            goto fail;
        }
        if (f.t_us < next)
            continue;
        next = f.t_us + (step_us > 0 ? step_us : 500000);
        w = f.img.w;
        h = f.img.h;
        if ((st = views_add(&v, &c, &f.img)) != KR_OK)
            goto fail;
    }
    if ((st = views_solve(&v, w, h, out)) != KR_OK) {
        char msg[320];
        snprintf(msg, sizeof msg, "%s", kr_calib_error());
        kr_calib_set_error("%s: %s", path, msg);
    }
fail:
    kr_media_reader_destroy(r);
    views_free(&v);
    return st;
}

kr_status kr_calib_lens_save(const kr_calib_lens *l, const char *path)
{
    kr_outfile_t of;
    char line[1024];
    snprintf(line, sizeof line,
             "{\n  \"format\": \"%s\",\n  \"image\": {\"w\": %d, \"h\": %d},\n"
             "  \"intrinsics\": {\"known\": true, \"fx\": %.17g, \"fy\": %.17g, \"cx\": %.17g, "
             "\"cy\": %.17g,\n    \"dist\": [%.17g, %.17g, %.17g, %.17g, %.17g]},\n"
             "  \"rms_px\": %.4f,\n  \"views\": %d\n}\n",
             KR_LENS_FORMAT, l->img_w, l->img_h, l->fx, l->fy, l->cx, l->cy, l->dist[0], l->dist[1],
             l->dist[2], l->dist[3], l->dist[4], l->rms_px, l->views);
    kr_status st = kr_outfile_open(path, &of);
    if (st != KR_OK) {
        kr_calib_set_error("%s: cannot create the file", path);
        return st;
    }
    if (fputs(line, of.fp) < 0) {
        kr_outfile_abort(&of);
        kr_calib_set_error("%s: write failed", path);
        return KR_ERR_IO;
    }
    if ((st = kr_outfile_commit(&of)) != KR_OK)
        kr_calib_set_error("%s: write failed", path);
    return st;
}

kr_status kr_calib_lens_load(const char *path, kr_calib_lens *out)
{
    /* a calibration file carries the same intrinsics */
    kr_calib_t *c = NULL;
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        kr_calib_set_error("%s: cannot open", path);
        return KR_ERR_IO;
    }
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    if (!strstr(buf, KR_LENS_FORMAT)) {
        kr_status st = kr_calib_load(path, &c);
        if (st != KR_OK)
            return st;
        out->img_w = c->img_w;
        out->img_h = c->img_h;
        out->fx = c->fx;
        out->fy = c->fy;
        out->cx = c->cx;
        out->cy = c->cy;
        memcpy(out->dist, c->dist, sizeof out->dist);
        kr_calib_destroy(c);
        return KR_OK;
    }
    cJSON *root = cJSON_Parse(buf);
    const cJSON *img = cJSON_GetObjectItemCaseSensitive(root, "image");
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "intrinsics");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(in, "dist");
    const char *names[6] = {"w", "h", "fx", "fy", "cx", "cy"};
    double v[6];
    kr_status st = KR_ERR_FORMAT;
    for (int i = 0; i < 6; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(i < 2 ? img : in, names[i]);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) {
            kr_calib_set_error("%s: %s%s is missing or not a number", path, i < 2 ? "image." : "intrinsics.",
                               names[i]);
            goto fail;
        }
        v[i] = x->valuedouble;
    }
    if (!cJSON_IsArray(d) || cJSON_GetArraySize(d) != 5) {
        kr_calib_set_error("%s: intrinsics.dist must be 5 numbers", path);
        goto fail;
    }
    for (int i = 0; i < 5; i++) {
        const cJSON *x = cJSON_GetArrayItem(d, i);
        if (!cJSON_IsNumber(x)) {
            kr_calib_set_error("%s: intrinsics.dist[%d] is not a number", path, i);
            goto fail;
        }
        out->dist[i] = x->valuedouble;
    }
    if (v[0] < 1 || v[1] < 1 || !(v[2] > 0) || !(v[3] > 0)) {
        kr_calib_set_error("%s: image size and focal lengths must be positive", path);
        goto fail;
    }
    out->img_w = (int32_t)v[0];
    out->img_h = (int32_t)v[1];
    out->fx = v[2];
    out->fy = v[3];
    out->cx = v[4];
    out->cy = v[5];
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(root, "rms_px");
    out->rms_px = cJSON_IsNumber(r) ? r->valuedouble : 0;
    const cJSON *vw = cJSON_GetObjectItemCaseSensitive(root, "views");
    out->views = cJSON_IsNumber(vw) ? vw->valueint : 0;
    st = KR_OK;
fail:
    cJSON_Delete(root);
    return st;
}
