/* kr_cmd_clip.c - karuta-ref clip: a window of a video around a moment as an H.264 MP4
 * with overlays (time code, contacts from an events file, plug-in layers such as the
 * calibration) and a PNG contact sheet of the frames around the moment.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_calib.h"
#include "kr_core.h"
#include "kr_cv.h"
#include "kr_media.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- overlay layers: the plug-in point ------------------------------------
 * A layer draws on every frame of the clip, in place, on the BGR frame at source
 * size, given the frame's source time t_us. Layers are drawn in table order, after
 * decoding and before the built-in overlays (time code, contact markers, timeline),
 * which stay on top; the contact sheet shows the frames with the layers drawn.
 * To add one (e.g. card/hand outlines from the tracker): write open/draw/close
 * below and add a row to clip_layers[] naming the option that enables it; the
 * option takes one argument, handed to open. open sees the frame size and may
 * refuse (message in err, one line). draw must not allocate per frame. */
typedef struct clip_layer {
    const char *option; /* command-line option, e.g. "--calib" */
    const char *arg;    /* its argument's name in --help */
    const char *help;
    kr_status (*open)(const char *arg, int w, int h, void **ctx, char *err, size_t cap);
    kr_status (*draw)(void *ctx, kr_image_t *bgr, int64_t t_us);
    void (*close)(void *ctx);
} clip_layer;

/* Layer: calibration (field outline, competition lines, card outlines). */
static kr_status calib_open(const char *arg, int w, int h, void **ctx, char *err, size_t cap)
{
    kr_calib_t *c = NULL;
    kr_status st = kr_calib_load(arg, &c);
    if (st != KR_OK) {
        snprintf(err, cap, "%s", kr_calib_error());
        return st;
    }
    if (c->img_w != w || c->img_h != h) {
        snprintf(err, cap, "%s: calibration is for %dx%d images, the video is %dx%d", arg, (int)c->img_w,
                 (int)c->img_h, w, h);
        kr_calib_destroy(c);
        return KR_ERR_INVALID;
    }
    *ctx = c;
    return KR_OK;
}
static kr_status calib_draw(void *ctx, kr_image_t *bgr, int64_t t_us)
{
    (void)t_us;
    return kr_calib_draw_overlay((const kr_calib_t *)ctx, bgr);
}
static void calib_close(void *ctx) { kr_calib_destroy((kr_calib_t *)ctx); }

static const clip_layer clip_layers[] = {
    {"--calib", "CALIB.json", "draw the field, competition lines and cards of a calibration",
     calib_open, calib_draw, calib_close},
};
#define N_LAYERS (sizeof clip_layers / sizeof clip_layers[0])

/* ---- options ----------------------------------------------------------- */
typedef struct clip_opts {
    const char *video, *out, *events;
    const char *layer_arg[N_LAYERS + 1];
    double      at, before, after;
    int         slow, has_at;
} clip_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: karuta-ref clip VIDEO --at SECONDS [--before S] [--after S] [--slow N]\n"
               "                       [--events EVENTS.jsonl]");
    for (size_t i = 0; i < N_LAYERS; i++)
        fprintf(f, " [%s %s]", clip_layers[i].option, clip_layers[i].arg);
    fprintf(f, " -o CLIP.mp4\n\n"
               "Cuts [at - before, at + after] seconds (defaults 2 and 2) of VIDEO into CLIP.mp4\n"
               "(H.264, plays in browsers and phones), slowed down N times (default 1), with a\n"
               "running time code and, with --events, each touch / push_out / hand_contact /\n"
               "early_entry marked with its player and time in ms (and, with --calib and a\n"
               "layout record in EVENTS, outlined on its card). Also writes CLIP.png, a\n"
               "contact sheet of the 8 frames around --at with their times.\n");
    for (size_t i = 0; i < N_LAYERS; i++)
        fprintf(f, "  %s %s: %s\n", clip_layers[i].option, clip_layers[i].arg, clip_layers[i].help);
}

static int parse_seconds(const char *opt, const char *s, double *v)
{
    char *end = NULL;
    errno = 0;
    double d = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || errno || !isfinite(d)) {
        kr_log(KR_LOG_ERROR, "clip: %s needs a number of seconds, got '%s'", opt, s ? s : "");
        return 0;
    }
    *v = d;
    return 1;
}

/* Returns 0 on success, else the exit status (2 usage). */
static int parse_args(int argc, char **argv, clip_opts *o)
{
    memset(o, 0, sizeof *o);
    o->before = 2.0;
    o->after = 2.0;
    o->slow = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -1;
        }
        if (a[0] == '-' && a[1] != '\0') {
            if (!v) {
                kr_log(KR_LOG_ERROR, "clip: %s needs a value (see karuta-ref clip --help)", a);
                return 2;
            }
            i++;
            if (!strcmp(a, "--at")) {
                if (!parse_seconds(a, v, &o->at))
                    return 2;
                o->has_at = 1;
            } else if (!strcmp(a, "--before")) {
                if (!parse_seconds(a, v, &o->before))
                    return 2;
            } else if (!strcmp(a, "--after")) {
                if (!parse_seconds(a, v, &o->after))
                    return 2;
            } else if (!strcmp(a, "--slow")) {
                char *end = NULL;
                long n = strtol(v, &end, 10);
                if (end == v || *end || n < 1 || n > 64) {
                    kr_log(KR_LOG_ERROR, "clip: --slow needs a whole factor from 1 to 64, got '%s'", v);
                    return 2;
                }
                o->slow = (int)n;
            } else if (!strcmp(a, "--events")) {
                o->events = v;
            } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
                o->out = v;
            } else {
                size_t k = 0;
                while (k < N_LAYERS && strcmp(a, clip_layers[k].option))
                    k++;
                if (k == N_LAYERS) {
                    kr_log(KR_LOG_ERROR, "clip: unknown option %s (see karuta-ref clip --help)", a);
                    return 2;
                }
                o->layer_arg[k] = v;
            }
        } else if (!o->video) {
            o->video = a;
        } else {
            kr_log(KR_LOG_ERROR, "clip: unexpected argument '%s' (one VIDEO only)", a);
            return 2;
        }
    }
    if (!o->video || !o->has_at || !o->out) {
        kr_log(KR_LOG_ERROR, "clip: %s is required (see karuta-ref clip --help)",
               !o->video ? "VIDEO" : !o->has_at ? "--at SECONDS" : "-o CLIP.mp4");
        return 2;
    }
    return 0;
}

/* ---- events ------------------------------------------------------------ */
typedef struct clip_event {
    int64_t t_us;
    char    type[16];   /* touch, push_out, hand_contact, early_entry */
    char    player[4];  /* "A", "B" or "" */
    int     card;       /* -1: none / unknown */
    int     has_pos;    /* the card's place is known (layout / rearrange records) */
    double  x_mm, y_mm; /* its centre on the mat then (geometry.md) */
} clip_event;

#define CLIP_MAX_CARD 100 /* card ids 1 .. 100 */
#define CARD_HALF_W_MM 26.0 /* a card is 52 x 73 mm, portrait */
#define CARD_HALF_H_MM 36.5

/* Where each card lies, from the layout and rearrange records read so far (the match
 * log is in time order, so this is the place at the time of the record being read). */
typedef struct card_places {
    double x[CLIP_MAX_CARD + 1], y[CLIP_MAX_CARD + 1];
    int    known[CLIP_MAX_CARD + 1];
} card_places;

static void place_card(card_places *pl, const cJSON *rec)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(rec, "card");
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(rec, "x_mm");
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(rec, "y_mm");
    if (cJSON_IsNumber(c) && cJSON_IsNumber(x) && cJSON_IsNumber(y) && c->valueint >= 1 &&
        c->valueint <= CLIP_MAX_CARD) {
        pl->x[c->valueint] = x->valuedouble;
        pl->y[c->valueint] = y->valuedouble;
        pl->known[c->valueint] = 1;
    }
}

static int wanted_type(const char *t)
{
    return !strcmp(t, "touch") || !strcmp(t, "push_out") || !strcmp(t, "hand_contact") ||
           !strcmp(t, "early_entry");
}

/* Reads the contact records of a JSON Lines file (other record types are skipped).
 * Returns 0 and *ev (caller frees) or 1 with the error logged (file:line). */
static int load_events(const char *path, clip_event **ev, size_t *n)
{
    *ev = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        kr_log(KR_LOG_ERROR, "clip: cannot read %s: %s", path, strerror(errno));
        return 1;
    }
    char *line = NULL;
    size_t cap = 0, n_alloc = 0;
    ssize_t len;
    long lineno = 0;
    int rc = 0;
    card_places *places = calloc(1, sizeof *places);
    if (!places) {
        kr_log(KR_LOG_ERROR, "clip: out of memory reading %s", path);
        fclose(f);
        return 1;
    }
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        const char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            continue;
        cJSON *j = cJSON_ParseWithLength(line, (size_t)len);
        if (!j || !cJSON_IsObject(j)) {
            kr_log(KR_LOG_ERROR, "clip: %s:%ld: not a JSON object (invalid or truncated line)", path, lineno);
            cJSON_Delete(j);
            rc = 1;
            break;
        }
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "type");
        if (cJSON_IsString(type) && !strcmp(type->valuestring, "layout")) {
            const cJSON *cards = cJSON_GetObjectItemCaseSensitive(j, "cards"), *card;
            cJSON_ArrayForEach(card, cards)
                place_card(places, card);
        } else if (cJSON_IsString(type) && !strcmp(type->valuestring, "rearrange")) {
            place_card(places, j);
        }
        if (cJSON_IsString(type) && wanted_type(type->valuestring)) {
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "t_us");
            if (!cJSON_IsNumber(t) || t->valuedouble < 0 || t->valuedouble > 9.0e15) {
                kr_log(KR_LOG_ERROR, "clip: %s:%ld: %s without a valid \"t_us\"", path, lineno, type->valuestring);
                cJSON_Delete(j);
                rc = 1;
                break;
            }
            if (*n == n_alloc) {
                size_t na = n_alloc ? 2 * n_alloc : 64;
                clip_event *ne = realloc(*ev, na * sizeof *ne);
                if (!ne) {
                    kr_log(KR_LOG_ERROR, "clip: out of memory reading %s", path);
                    cJSON_Delete(j);
                    rc = 1;
                    break;
                }
                *ev = ne;
                n_alloc = na;
            }
            clip_event *e = &(*ev)[(*n)++];
            memset(e, 0, sizeof *e);
            e->t_us = (int64_t)t->valuedouble;
            snprintf(e->type, sizeof e->type, "%s", type->valuestring);
            const cJSON *who = cJSON_GetObjectItemCaseSensitive(j, "player");
            if (cJSON_IsString(who))
                snprintf(e->player, sizeof e->player, "%s", who->valuestring);
            const cJSON *cd = cJSON_GetObjectItemCaseSensitive(j, "card");
            e->card = cJSON_IsNumber(cd) ? cd->valueint : -1;
            if (e->card >= 1 && e->card <= CLIP_MAX_CARD && places->known[e->card]) {
                e->has_pos = 1;
                e->x_mm = places->x[e->card];
                e->y_mm = places->y[e->card];
            }
        }
        cJSON_Delete(j);
    }
    if (!rc && ferror(f)) {
        kr_log(KR_LOG_ERROR, "clip: error reading %s", path);
        rc = 1;
    }
    free(line);
    free(places);
    fclose(f);
    if (rc) {
        free(*ev);
        *ev = NULL;
        *n = 0;
    }
    return rc;
}

/* ---- drawing ----------------------------------------------------------- */
static const uint8_t C_WHITE[3] = {255, 255, 255}, C_BLACK[3] = {0, 0, 0};
static const uint8_t C_A[3] = {255, 160, 40};    /* player A: blue (BGR) */
static const uint8_t C_B[3] = {40, 140, 255};    /* player B: orange */
static const uint8_t C_BOTH[3] = {60, 220, 240}; /* no player: yellow */
static const uint8_t C_RED[3] = {40, 40, 230};

static const uint8_t *event_color(const clip_event *e)
{
    return !strcmp(e->player, "A") ? C_A : !strcmp(e->player, "B") ? C_B : C_BOTH;
}

static void event_label(const clip_event *e, char *buf, size_t n)
{
    char card[16] = "";
    if (e->card >= 0)
        snprintf(card, sizeof card, " #%d", e->card);
    snprintf(buf, n, "%s%s%s%s %.3f s", e->player, e->player[0] ? " " : "", e->type, card, (double)e->t_us / 1e6);
}

#define SHOW_US 500000 /* a contact stays labelled this long (source time) */

typedef struct clip_draw {
    const clip_opts  *o;
    const clip_event *ev;
    size_t            n_ev;
    int64_t           start_us, end_us, at_us;
    double            text_px;
    const kr_calib_t *calib; /* with --calib: contacts are also marked on their card */
} clip_draw;

/* Outlines the contact's card on the frame (needs the calibration and the card's
 * place); filled translucent on the frame that first shows the contact. */
static void mark_card(const clip_draw *d, kr_image_t *img, const clip_event *e, int first)
{
    if (!d->calib || !e->has_pos)
        return;
    const double cx[4] = {-CARD_HALF_W_MM, CARD_HALF_W_MM, CARD_HALF_W_MM, -CARD_HALF_W_MM};
    const double cy[4] = {-CARD_HALF_H_MM, -CARD_HALF_H_MM, CARD_HALF_H_MM, CARD_HALF_H_MM};
    double xy[8];
    for (int k = 0; k < 4; k++)
        if (kr_calib_mm_to_px(d->calib, e->x_mm + cx[k], e->y_mm + cy[k], &xy[2 * k], &xy[2 * k + 1]) != 0)
            return;
    const uint8_t *c = event_color(e);
    if (first)
        kr_cv_draw_polygon_fill(img, xy, 4, c, 0.35);
    kr_cv_draw_polyline(img, xy, 4, 1, c, d->text_px >= 24 ? 4 : 2);
}

/* Contacts on their cards (drawn before the contact-sheet snapshot, so the sheet
 * shows them too): each contact for SHOW_US from its time. */
static void draw_card_marks(const clip_draw *d, kr_image_t *img, int64_t t_us, int64_t prev_us)
{
    for (size_t i = 0; i < d->n_ev; i++) {
        const clip_event *e = &d->ev[i];
        if (e->t_us <= t_us && e->t_us > t_us - SHOW_US)
            mark_card(d, img, e, e->t_us > prev_us);
    }
}

/* Built-in overlays: time code, contact markers and labels, timeline. prev_us: the
 * previous frame's time (contacts in (prev, t] are flashed on this frame). */
static void draw_builtin(const clip_draw *d, kr_image_t *img, int64_t t_us, int64_t prev_us, int64_t index)
{
    char buf[128];
    int th = d->text_px >= 24 ? 2 : 1;
    int pad = (int)(d->text_px * 0.6);
    snprintf(buf, sizeof buf, "%.3f s  frame %lld  (%+.0f ms)", (double)t_us / 1e6, (long long)index,
             (double)(t_us - d->at_us) / 1e3);
    kr_cv_draw_text(img, buf, pad, pad, d->text_px, C_WHITE, th, C_BLACK, 0.85);
    if (d->o->slow > 1) {
        snprintf(buf, sizeof buf, "slow x%d", d->o->slow);
        int tw = 0, tht = 0;
        kr_cv_text_size(buf, d->text_px, th, &tw, &tht);
        kr_cv_draw_text(img, buf, img->w - tw - pad, pad, d->text_px, C_WHITE, th, C_BLACK, 0.85);
    }
    /* contacts: flash the frame that first shows one, label each for SHOW_US */
    int line = 0;
    double lh = d->text_px * 1.6;
    int bar_h = (int)(d->text_px * 0.5) + 2;
    int bar_y = img->h - pad - bar_h;
    for (size_t i = 0; i < d->n_ev; i++) {
        const clip_event *e = &d->ev[i];
        if (e->t_us > t_us || e->t_us <= t_us - SHOW_US)
            continue;
        const uint8_t *c = event_color(e);
        if (e->t_us > prev_us) { /* first frame at or after the contact */
            int b = (int)(d->text_px * 0.25) + 2;
            kr_cv_draw_rect_fill(img, 0, 0, img->w, b, c, 1.0);
            kr_cv_draw_rect_fill(img, 0, img->h - b, img->w, b, c, 1.0);
            kr_cv_draw_rect_fill(img, 0, 0, b, img->h, c, 1.0);
            kr_cv_draw_rect_fill(img, img->w - b, 0, b, img->h, c, 1.0);
        }
        event_label(e, buf, sizeof buf);
        int y = bar_y - pad - (int)(lh * (line + 1));
        double r = d->text_px * 0.45;
        kr_cv_draw_circle(img, pad + r, y + d->text_px * 0.5, r, c, 0);
        kr_cv_draw_text(img, buf, pad + (int)(2.6 * r), y, d->text_px, c, th, C_BLACK, 0.6);
        line++;
    }
    /* timeline: the clip window, a tick per contact, the play head */
    double span = (double)(d->end_us - d->start_us);
    if (span > 0) {
        int x0 = pad, x1 = img->w - pad;
        kr_cv_draw_rect_fill(img, x0, bar_y, x1 - x0, bar_h, C_BLACK, 0.5);
        for (size_t i = 0; i < d->n_ev; i++) {
            if (d->ev[i].t_us < d->start_us || d->ev[i].t_us > d->end_us)
                continue;
            double x = x0 + (x1 - x0) * (double)(d->ev[i].t_us - d->start_us) / span;
            kr_cv_draw_line(img, x, bar_y - bar_h, x, bar_y + bar_h, event_color(&d->ev[i]), 2);
        }
        double xa = x0 + (x1 - x0) * (double)(d->at_us - d->start_us) / span;
        kr_cv_draw_line(img, xa, bar_y, xa, bar_y + bar_h, C_RED, 2);
        double x = x0 + (x1 - x0) * (double)(t_us - d->start_us) / span;
        kr_cv_draw_circle(img, x, bar_y + bar_h * 0.5, bar_h * 0.9, C_WHITE, 0);
    }
}

/* ---- contact sheet ------------------------------------------------------ */
#define SHEET_N 8 /* frames on the sheet: 4 before --at, 4 from it */
#define SHEET_COLS 4

typedef struct clip_sheet {
    uint8_t *px;               /* whole sheet, BGR */
    kr_image_t img;
    int      cw, ch, lh;       /* cell size, label strip height */
    uint8_t *cells;            /* SHEET_N cell images (cw x ch BGR) */
    int64_t  t[SHEET_N];
    int64_t  prev[SHEET_N];    /* previous frame's time (for contact marks) */
    int      before_n, before_pos, after_n;
} clip_sheet;

static kr_image_t cell_view(clip_sheet *s, int k)
{
    kr_image_t v = {s->cw, s->ch, s->cw * 3, 3, s->cells + (size_t)k * s->cw * s->ch * 3};
    return v;
}

static kr_status sheet_create(clip_sheet *s, int w, int h)
{
    memset(s, 0, sizeof *s);
    s->cw = w < 480 ? w : 480;
    s->ch = (int)((int64_t)h * s->cw / w);
    if (s->ch < 1)
        s->ch = 1;
    s->lh = 30;
    s->img.w = SHEET_COLS * s->cw + (SHEET_COLS + 1) * 4;
    s->img.h = (SHEET_N / SHEET_COLS) * (s->ch + s->lh) + (SHEET_N / SHEET_COLS + 1) * 4;
    s->img.channels = 3;
    s->img.stride = s->img.w * 3;
    s->px = calloc((size_t)s->img.stride * s->img.h, 1);
    s->cells = malloc((size_t)SHEET_N * s->cw * s->ch * 3);
    s->img.px = s->px;
    return s->px && s->cells ? KR_OK : KR_ERR_NOMEM;
}

/* Offers a frame (layers drawn, built-ins not yet) to the sheet. */
static void sheet_offer(clip_sheet *s, const kr_image_t *frame, int64_t t_us, int64_t prev_us, int64_t at_us)
{
    int k;
    if (t_us < at_us) {
        k = s->before_pos;
        s->before_pos = (s->before_pos + 1) % (SHEET_N / 2);
        if (s->before_n < SHEET_N / 2)
            s->before_n++;
    } else if (s->after_n < SHEET_N / 2) {
        k = SHEET_N / 2 + s->after_n++;
    } else {
        return;
    }
    kr_image_t v = cell_view(s, k);
    kr_cv_resize(frame, &v);
    s->t[k] = t_us;
    s->prev[k] = prev_us;
}

static void sheet_compose(clip_sheet *s, const clip_draw *d)
{
    memset(s->px, 32, (size_t)s->img.stride * s->img.h);
    /* before-frames in time order (oldest first; missing ones leave the first cells
     * empty), then the after-frames */
    int half = SHEET_N / 2;
    for (int slot = 0; slot < SHEET_N; slot++) {
        int k;
        if (slot < half) {
            int i = slot - (half - s->before_n);
            if (i < 0)
                continue;
            k = (s->before_pos - s->before_n + i + half) % half;
        } else {
            if (slot - half >= s->after_n)
                break;
            k = slot;
        }
        int col = slot % SHEET_COLS, row = slot / SHEET_COLS;
        int x = 4 + col * (s->cw + 4), y = 4 + row * (s->ch + s->lh + 4);
        kr_image_t dst = {s->cw, s->ch, s->img.stride, 3, s->px + (size_t)y * s->img.stride + (size_t)x * 3};
        kr_image_t src = cell_view(s, k);
        kr_cv_resize(&src, &dst);
        char buf[96];
        snprintf(buf, sizeof buf, "%.3f s (%+.0f ms)", (double)s->t[k] / 1e6, (double)(s->t[k] - d->at_us) / 1e3);
        kr_cv_draw_text(&s->img, buf, x + 4, y + s->ch + 6, 16, C_WHITE, 1, NULL, 0);
        if (slot == half) { /* the first frame at or after --at */
            double box[8] = {x - 2.0, y - 2.0, x + s->cw + 1.0, y - 2.0, x + s->cw + 1.0, y + s->ch + 1.0,
                             x - 2.0, y + s->ch + 1.0};
            kr_cv_draw_polyline(&s->img, box, 4, 1, C_RED, 3);
        }
        /* contacts between the previous frame and this one */
        int mark = 0;
        for (size_t e = 0; e < d->n_ev; e++)
            if (d->ev[e].t_us > s->prev[k] && d->ev[e].t_us <= s->t[k]) {
                char lab[96];
                event_label(&d->ev[e], lab, sizeof lab);
                kr_cv_draw_text(&s->img, lab, x + 6, y + 6 + mark * 24, 16, event_color(&d->ev[e]), 1, C_BLACK, 0.6);
                mark++;
            }
    }
}

static void sheet_destroy(clip_sheet *s)
{
    free(s->px);
    free(s->cells);
}

/* "dir/x.mp4" -> "dir/x.png" (or "dir/x.png" appended when there is no extension). */
static char *sheet_path(const char *out)
{
    size_t n = strlen(out);
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    size_t keep = (dot && (!slash || dot > slash)) ? (size_t)(dot - out) : n;
    char *p = malloc(keep + 5);
    if (p) {
        memcpy(p, out, keep);
        memcpy(p + keep, ".png", 5);
    }
    return p;
}

/* ---- the command --------------------------------------------------------- */
int kr_cmd_clip(int argc, char **argv)
{
    clip_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    rc = 1;

    clip_event *ev = NULL;
    size_t n_ev = 0;
    kr_media_reader_t *rd = NULL;
    kr_media_writer_t *wr = NULL;
    void *layer_ctx[N_LAYERS + 1] = {0};
    clip_sheet sheet;
    memset(&sheet, 0, sizeof sheet);
    char *png = NULL, *png_tmp = NULL;
    int mp4_done = 0;

    if (o.before < 0 || o.after < 0 || o.before + o.after <= 0) {
        kr_log(KR_LOG_ERROR, "clip: the window --before %g --after %g s is %s", o.before, o.after,
               o.before + o.after <= 0 ? "empty" : "negative");
        goto fail;
    }
    if (o.events && load_events(o.events, &ev, &n_ev))
        goto fail;
    /* a damaged file still gives the frames that can be read (the loss shows in the
     * time code's jumps and is reported below) */
    kr_media_reader_config rcfg;
    kr_media_reader_config_default(&rcfg);
    rcfg.keep_going = 1;
    if (kr_media_reader_open2(o.video, &rcfg, &rd) != KR_OK) {
        kr_log(KR_LOG_ERROR, "clip: %s", kr_media_reader_error(NULL));
        goto fail;
    }
    kr_media_info_t info;
    kr_media_reader_info(rd, &info);
    double dur = (double)info.duration_us / 1e6;
    if (!(o.at >= 0) || (info.duration_us > 0 && o.at > dur)) {
        kr_log(KR_LOG_ERROR, "clip: --at %.3f s is outside %s (0 to %.3f s)", o.at, o.video, dur);
        goto fail;
    }
    int64_t at_us = (int64_t)llround(o.at * 1e6);
    int64_t start_us = at_us - (int64_t)llround(o.before * 1e6);
    int64_t end_us = at_us + (int64_t)llround(o.after * 1e6);
    if (start_us < 0)
        start_us = 0;
    if (info.duration_us > 0 && end_us > info.duration_us)
        end_us = info.duration_us;
    if (end_us <= start_us) {
        kr_log(KR_LOG_ERROR, "clip: the window %.3f to %.3f s of %s holds no time", (double)start_us / 1e6,
               (double)end_us / 1e6, o.video);
        goto fail;
    }
    int w = info.w & ~1, h = info.h & ~1; /* H.264 4:2:0 wants even sizes */
    for (size_t k = 0; k < N_LAYERS; k++) {
        if (!o.layer_arg[k])
            continue;
        char err[512] = "";
        if (clip_layers[k].open(o.layer_arg[k], info.w, info.h, &layer_ctx[k], err, sizeof err) != KR_OK) {
            kr_log(KR_LOG_ERROR, "clip: %s", err[0] ? err : o.layer_arg[k]);
            goto fail;
        }
    }
    png = sheet_path(o.out);
    size_t pn = png ? strlen(png) + 40 : 0;
    png_tmp = png ? malloc(pn) : NULL;
    if (!png || !png_tmp || sheet_create(&sheet, w, h) != KR_OK) {
        kr_log(KR_LOG_ERROR, "clip: out of memory");
        goto fail;
    }
    snprintf(png_tmp, pn, "%.*s.tmp.%ld.png", (int)(strlen(png) - 4), png, (long)getpid());

    /* output rate: the source's nominal rate, slowed down; real times from the frames */
    int fps_den = 1000 * o.slow, fps_num = (int)lround(info.fps * 1000.0);
    if (fps_num < 1)
        fps_num = 30000;
    kr_media_writer_config wcfg;
    kr_media_writer_config_default(&wcfg);
    /* clips are wanted fast (issue 7: 4 s of 1080p in under 2 s on 2 cores): ultrafast
     * costs about 0.7x superfast's CPU for ~1.5x the bytes; crf 18 keeps the detail */
    wcfg.preset = "ultrafast";
    wcfg.crf = 18;
    wcfg.gop_s10 = 10 * o.slow; /* a keyframe every source second keeps browser seeking quick */
    if (kr_media_writer_create2(o.out, w, h, fps_num, fps_den, &wcfg, &wr) != KR_OK) {
        kr_log(KR_LOG_ERROR, "clip: %s", kr_media_writer_error(NULL));
        goto fail;
    }

    clip_draw d = {&o, ev, n_ev, start_us, end_us, at_us, h / 36.0 < 12 ? 12 : h / 36.0, NULL};
    for (size_t k = 0; k < N_LAYERS; k++)
        if (layer_ctx[k] && clip_layers[k].open == calib_open)
            d.calib = (const kr_calib_t *)layer_ctx[k];
    if (kr_media_reader_seek(rd, start_us) != KR_OK) {
        kr_log(KR_LOG_ERROR, "clip: %s", kr_media_reader_error(rd));
        goto fail;
    }
    kr_frame_t f;
    kr_status st;
    int64_t first_us = -1, prev_us = start_us - 1, n_frames = 0;
    while ((st = kr_media_reader_next(rd, &f)) == KR_OK) {
        if (f.t_us >= end_us && !(end_us == info.duration_us && n_frames == 0))
            break;
        if (first_us < 0) {
            first_us = f.t_us;
            prev_us = f.t_us - (int64_t)(1e6 / info.fps); /* contacts just before the first frame */
        }
        kr_image_t img = f.img;
        img.w = w;
        img.h = h;
        for (size_t k = 0; k < N_LAYERS; k++)
            if (layer_ctx[k] && clip_layers[k].draw(layer_ctx[k], &img, f.t_us) != KR_OK) {
                kr_log(KR_LOG_ERROR, "clip: the %s overlay failed at %.3f s", clip_layers[k].option,
                       (double)f.t_us / 1e6);
                goto fail;
            }
        draw_card_marks(&d, &img, f.t_us, prev_us);
        /* only frames that can still be among the 4 before --at are shrunk (VFR margin) */
        if (f.t_us >= at_us || at_us - f.t_us <= (int64_t)(8 * 1e6 / info.fps))
            sheet_offer(&sheet, &img, f.t_us, prev_us, at_us);
        draw_builtin(&d, &img, f.t_us, prev_us, f.index);
        if (kr_media_writer_write(wr, &img, (f.t_us - first_us) * o.slow) != KR_OK) {
            kr_log(KR_LOG_ERROR, "clip: %s", kr_media_writer_error(wr));
            goto fail;
        }
        prev_us = f.t_us;
        n_frames++;
    }
    if (st != KR_OK && st != KR_ERR_EOF) {
        kr_log(KR_LOG_ERROR, "clip: %s", kr_media_reader_error(rd));
        goto fail;
    }
    if (kr_media_reader_damage(rd) > 0)
        kr_log(KR_LOG_WARN, "clip: %s (the clip shows the frames that could be read)", kr_media_reader_error(rd));
    if (n_frames == 0) {
        kr_log(KR_LOG_ERROR, "clip: no frame of %s lies in %.3f to %.3f s", o.video, (double)start_us / 1e6,
               (double)end_us / 1e6);
        goto fail;
    }

    /* sheet first (to a temporary), then the MP4 appears, then the sheet */
    sheet_compose(&sheet, &d);
    if (kr_cv_write_image(png_tmp, &sheet.img) != KR_OK) {
        kr_log(KR_LOG_ERROR, "clip: cannot write %s: %s", png, kr_cv_last_error());
        remove(png_tmp);
        goto fail;
    }
    if (kr_media_writer_close(wr) != KR_OK) {
        kr_log(KR_LOG_ERROR, "clip: %s", kr_media_writer_error(wr));
        remove(png_tmp);
        goto fail;
    }
    mp4_done = 1;
    if (rename(png_tmp, png) != 0) {
        kr_log(KR_LOG_ERROR, "clip: cannot write %s: %s", png, strerror(errno));
        remove(png_tmp);
        remove(o.out);
        goto fail;
    }
    rc = 0;

fail:
    if (rc && mp4_done)
        remove(o.out);
    kr_media_writer_destroy(wr); /* removes the temporary MP4 unless closed */
    kr_media_reader_destroy(rd);
    for (size_t k = 0; k < N_LAYERS; k++)
        if (layer_ctx[k])
            clip_layers[k].close(layer_ctx[k]);
    sheet_destroy(&sheet);
    free(png);
    free(png_tmp);
    free(ev);
    return rc;
}
