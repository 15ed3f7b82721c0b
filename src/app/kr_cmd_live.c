/* kr_cmd_live.c - karuta-ref live: GStreamer capture -> kr_pipe (the pipeline analyze
 * uses), outputs appended line by line, and a judge's page (server-sent events,
 * snapshots, replays, typed readings) that never stalls the frame thread.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* syscall(SYS_gettid): a per-thread nice value for the page's helpers */
#include "kr_app.h"
#include "kr_app_opts.h"
#include "kr_calib.h"
#include "kr_capture.h"
#include "kr_core.h"
#include "kr_cv.h"
#include "kr_event.h"
#include "kr_json.h"
#include "kr_media.h"
#include "kr_pipe.h"
#include "kr_rules.h"
#include "kr_serve.h"
#include "kr_track.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- options --------------------------------------------------------------- */

typedef struct live_opts {
    const char *source, *match, *out, *calib;
    int         http_port;    /* -1: no server */
    int64_t     hold_us;      /* extra wait after the detector's horizon before records are written */
    int64_t     tie_us;
    double      mm_per_px;
    double      max_s;        /* stop after this much source time (0: never) */
    bool        exit_on_eof;  /* a file source: stop at its end instead of retrying */
    bool        no_sync;      /* take frames as fast as the source gives them */
    double      retry_max_s;  /* longest wait between source retries */
    double      max_behind_s; /* frames queued at most this long behind (then the oldest are
                                 dropped, said, and rulings there flagged); 0: no limit */
    int64_t     delay_us;     /* the detector runs this far behind the camera, so that reading
                                 records typed up to this late still come before their frames */
    int64_t     readout_us;   /* --readout-us: the rolling shutter's; -1 the calibration's */
} live_opts;

static void usage(FILE *f)
{
    fputs("usage: karuta-ref live --source PIPELINE --match MATCH.jsonl --out DIR [--http PORT]\n"
          "  PIPELINE: a GStreamer description ending in raw video, e.g. 'v4l2src',\n"
          "  'rtspsrc location=rtsp://cam ! decodebin', 'filesrc location=F ! decodebin'\n"
          "  (a file plays at real speed). MATCH.jsonl is read as it grows (the reader's\n"
          "  records may arrive while running; they may also be typed into the page).\n"
          "  Writes DIR/events.jsonl and DIR/rulings.jsonl line by line (flushed),\n"
          "  DIR/summary.json at the end, and serves the judge's page on\n"
          "  http://127.0.0.1:PORT/ (server-sent events at /events). Frames go through\n"
          "  the same pipeline as analyze (kr_pipe), made BGR by FFmpeg as analyze's\n"
          "  reader makes them: a file gives the same events and rulings as analyze.\n"
          "  Without a layout record in MATCH.jsonl the layout is read from the source's\n"
          "  first frame (the memorisation period); any doubt about it stops the run.\n"
          "  --calib FILE    camera calibration (default: from the first frames)\n"
          "  --readout-us N  the camera's rolling shutter, top row to bottom row (default: the\n"
          "                  calibration's readout_us, else measured from the lamps' flicker\n"
          "                  on the first frames, else 0), as analyze\n"
          "  --tie-us N      simultaneous-touch tolerance (default 0)\n"
          "  --hold-ms N     records are written N ms after the event detector's horizon\n"
          "                  (nothing earlier can still come) has passed them (default 0)\n"
          "  --mm-per-px X   tracker resolution (default 3, as analyze)\n"
          "  --exit-on-eof   stop when the source ends (default: say so and retry)\n"
          "  --max-s S       stop after S seconds of source time\n"
          "  --no-sync       do not pace a file source at real speed\n"
          "  --retry-max-s S longest wait between source retries (default 8)\n"
          "  --max-behind-s S  if analysis falls this far behind a live source, the oldest\n"
          "                  queued frames are dropped (said on the page and the log; rulings\n"
          "                  around them need review) so memory stays bounded (default 10;\n"
          "                  0: never drop, queue without limit)\n"
          "  --reading-delay-ms N  run the event detector N ms behind the camera so that a\n"
          "                  reading record typed up to N ms late still counts (default 0)\n"
          "SIGINT / SIGTERM end the run cleanly with complete files.\n", f);
}

enum { O_SOURCE = 1, O_MATCH, O_OUT, O_CALIB, O_HTTP, O_HOLD, O_TIE, O_DELAY, O_MM_PX, O_MAX_S, O_RETRY_MAX_S,
       O_MAX_BEHIND_S, O_EXIT_ON_EOF, O_NO_SYNC, O_READOUT };
static const kr_app_opt live_opts_table[] = {
    {"--source", NULL, O_SOURCE, 1},          {"--match", NULL, O_MATCH, 1},
    {"--out", NULL, O_OUT, 1},                {"--calib", NULL, O_CALIB, 1},
    {"--http", NULL, O_HTTP, 1},              {"--hold-ms", NULL, O_HOLD, 1},
    {"--tie-us", NULL, O_TIE, 1},             {"--reading-delay-ms", NULL, O_DELAY, 1},
    {"--mm-per-px", NULL, O_MM_PX, 1},        {"--max-s", NULL, O_MAX_S, 1},
    {"--retry-max-s", NULL, O_RETRY_MAX_S, 1}, {"--max-behind-s", NULL, O_MAX_BEHIND_S, 1},
    {"--exit-on-eof", NULL, O_EXIT_ON_EOF, 0}, {"--no-sync", NULL, O_NO_SYNC, 0},
    {"--readout-us", NULL, O_READOUT, 1},     {NULL, NULL, 0, 0}};

/* Returns 0 on success, -1 after --help, else the exit status (2 usage). */
static int parse_args(int argc, char **argv, live_opts *o)
{
    memset(o, 0, sizeof *o);
    o->http_port = -1;
    o->hold_us = 0;
    o->mm_per_px = 3.0;
    o->retry_max_s = 8;
    o->max_behind_s = 10;
    o->readout_us = -1;
    static const char cmd[] = "live";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        long long   n = 0;
        double      d = 0;
        int         key = kr_app_opt_next(cmd, live_opts_table, argc, argv, &i, &v);
        switch (key) {
        case KR_APP_OPT_HELP:
            usage(stdout);
            return -1;
        case KR_APP_OPT_BAD:
            return 2;
        case KR_APP_OPT_ARG:
            kr_log(KR_LOG_ERROR, "live: unexpected argument '%s' (the source is --source PIPELINE)", a);
            return 2;
        case O_EXIT_ON_EOF: o->exit_on_eof = true; break;
        case O_NO_SYNC: o->no_sync = true; break;
        case O_SOURCE: o->source = v; break;
        case O_MATCH: o->match = v; break;
        case O_OUT: o->out = v; break;
        case O_CALIB: o->calib = v; break;
        case O_READOUT:
            if (kr_app_opt_int(cmd, a, v, 0, KR_CALIB_MAX_READOUT_US, &n))
                return 2;
            o->readout_us = n;
            break;
        case O_HTTP:
            if (kr_app_opt_int(cmd, a, v, 0, 65535, &n))
                return 2;
            o->http_port = (int)n;
            break;
        case O_HOLD:
        case O_TIE:
            if (kr_app_opt_int(cmd, a, v, 0, INT64_MAX / 1000, &n))
                return 2;
            if (key == O_HOLD)
                o->hold_us = n * 1000;
            else
                o->tie_us = n;
            break;
        case O_DELAY:
            if (kr_app_opt_int(cmd, a, v, 0, 10000, &n))
                return 2;
            o->delay_us = n * 1000;
            break;
        case O_MM_PX:
            if (kr_app_opt_double(cmd, a, v, 1, 8, &o->mm_per_px))
                return 2;
            break;
        default: /* --max-s, --retry-max-s, --max-behind-s: seconds */
            if (kr_app_opt_double(cmd, a, v, 0, 1e9, &d))
                return 2;
            if (key == O_MAX_S)
                o->max_s = d;
            else if (key == O_MAX_BEHIND_S)
                o->max_behind_s = d;
            else
                o->retry_max_s = d < 0.1 ? 0.1 : d;
            break;
        }
    }
    if (!o->source || !o->match || !o->out) {
        kr_log(KR_LOG_ERROR, "live: need --source PIPELINE, --match MATCH.jsonl and --out DIR (see --help)");
        return 2;
    }
    return 0;
}

/* ---- signals ----------------------------------------------------------------- */

static volatile sig_atomic_t g_stop;
static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- snapshot thread: JPEG of the live view, off the frame thread ---------- */

typedef struct snapper {
    pthread_t        th;
    pthread_mutex_t  lock;
    pthread_cond_t   cond;
    bool             started, stop, have, busy;
    uint8_t         *px;      /* owned copy of the frame */
    size_t           cap;
    kr_image_t       img;
    char             path[128];
    kr_serve_http_t *srv;     /* borrowed */
    uint8_t         *jpeg;    /* owned read-back buffer */
    size_t           jcap;
    /* overlay: what the tracker saw on this frame (copied), drawn by the thread */
    int            (*map)(void *ctx, double x_mm, double y_mm, double *px, double *py); /* thread-safe */
    void            *map_ctx;
    int              n_cards;
    double           corners[KR_TRACK_MAX_CARDS][4][2];
    int              owner[KR_TRACK_MAX_CARDS], moving[KR_TRACK_MAX_CARDS];
    int              hand_in[2];
    double           lead[2][2];
    int64_t          t_us;
} snapper;

/* Draws the competition lines, card outlines and hands' leading points (mat mm
 * mapped to the frame through the calibration) and the time on s->img. */
static void snap_overlay(snapper *s)
{
    static const uint8_t line_c[3] = {255, 255, 255}, a_c[3] = {235, 99, 37}, b_c[3] = {12, 88, 234},
                         mv_c[3] = {40, 40, 230}, hand_c[3] = {40, 220, 255}, bg[3] = {0, 0, 0};
    double xy[2 * 4 * 16];
    for (int terr = 0; terr < 2; terr++) { /* each territory's outline, sampled (lens curvature) */
        double y0 = terr ? 15 : -254, y1 = terr ? 254 : -15, pts[4][2] = {{-435, y0}, {435, y0}, {435, y1}, {-435, y1}};
        int    n = 0;
        for (int e = 0; e < 4; e++)
            for (int k = 0; k < 16; k++) {
                double f = k / 16.0, x = pts[e][0] + f * (pts[(e + 1) % 4][0] - pts[e][0]),
                       y = pts[e][1] + f * (pts[(e + 1) % 4][1] - pts[e][1]);
                if (s->map(s->map_ctx, x, y, &xy[2 * n], &xy[2 * n + 1]) == 0)
                    n++;
            }
        if (n > 2)
            kr_cv_draw_polyline(&s->img, xy, n, 1, line_c, 1);
    }
    for (int c = 0; c < s->n_cards; c++) {
        int n = 0;
        for (int k = 0; k < 4; k++)
            if (s->map(s->map_ctx, s->corners[c][k][0], s->corners[c][k][1], &xy[2 * n], &xy[2 * n + 1]) == 0)
                n++;
        if (n == 4)
            kr_cv_draw_polyline(&s->img, xy, 4, 1, s->moving[c] ? mv_c : s->owner[c] ? b_c : a_c, s->moving[c] ? 2 : 1);
    }
    for (int p = 0; p < 2; p++) {
        double x, y;
        if (s->hand_in[p] && s->map(s->map_ctx, s->lead[p][0], s->lead[p][1], &x, &y) == 0)
            kr_cv_draw_circle(&s->img, x, y, 6, hand_c, 2);
    }
    char tc[48];
    snprintf(tc, sizeof tc, "%.3f s", s->t_us / 1e6);
    kr_cv_draw_text(&s->img, tc, 6, 6, 12, line_c, 1, bg, 0.6);
}

/* The page's helper threads (snapshots, replay encoding, and the encoder threads they
 * start, which inherit it) yield the CPU to the frame thread on a busy machine: on
 * Linux the nice value is per thread. Best effort. */
static void lower_priority(void)
{
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
}

static void *snap_main(void *arg)
{
    snapper *s = arg;
    lower_priority();
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->have && !s->stop)
            pthread_cond_wait(&s->cond, &s->lock);
        if (s->stop)
            break;
        s->busy = true;
        pthread_mutex_unlock(&s->lock);
        if (s->map)
            snap_overlay(s);
        if (kr_cv_write_image(s->path, &s->img) == KR_OK) {
            FILE *f = fopen(s->path, "rb");
            if (f) {
                size_t n = 0, got;
                for (;;) {
                    if (n == s->jcap) {
                        size_t   nc = s->jcap ? s->jcap * 2 : 1 << 18;
                        uint8_t *nb = realloc(s->jpeg, nc);
                        if (!nb)
                            break;
                        s->jpeg = nb;
                        s->jcap = nc;
                    }
                    got = fread(s->jpeg + n, 1, s->jcap - n, f);
                    if (!got)
                        break;
                    n += got;
                }
                fclose(f);
                if (n)
                    kr_serve_http_set_snapshot(s->srv, s->jpeg, n);
            }
        }
        pthread_mutex_lock(&s->lock);
        s->busy = false;
        s->have = false;
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Frame thread: hands a copy of img to the snapshot thread unless it is busy
 * (then this snapshot is skipped: the live view is best effort, analysis is not). */
static void snap_offer(snapper *s, const kr_image_t *img, const kr_track_frame *tf)
{
    if (!s->started || pthread_mutex_trylock(&s->lock) != 0)
        return;
    if (!s->have && !s->busy) {
        size_t row = (size_t)img->w * (size_t)img->channels, need = row * (size_t)img->h;
        if (need > s->cap) {
            uint8_t *nb = realloc(s->px, need); /* only when the frame size changes */
            if (nb) {
                s->px = nb;
                s->cap = need;
            }
        }
        if (need <= s->cap) {
            for (int y = 0; y < img->h; y++)
                memcpy(s->px + row * (size_t)y, img->px + (size_t)img->stride * (size_t)y, row);
            s->img = (kr_image_t){img->w, img->h, (int32_t)row, img->channels, s->px};
            s->n_cards = tf->n_cards < KR_TRACK_MAX_CARDS ? tf->n_cards : KR_TRACK_MAX_CARDS;
            for (int c = 0; c < s->n_cards; c++) {
                memcpy(s->corners[c], tf->cards[c].corners_mm, sizeof s->corners[c]);
                s->owner[c] = tf->cards[c].owner;
                s->moving[c] = tf->cards[c].moving || tf->cards[c].out_of_field;
            }
            for (int p = 0; p < 2; p++) {
                s->hand_in[p] = tf->hands[p].present;
                s->lead[p][0] = tf->hands[p].lead_x_mm;
                s->lead[p][1] = tf->hands[p].lead_y_mm;
            }
            s->t_us = tf->t_us;
            s->have = true;
            pthread_cond_signal(&s->cond);
        }
    }
    pthread_mutex_unlock(&s->lock);
}

static void snap_stop(snapper *s)
{
    if (s->started) {
        pthread_mutex_lock(&s->lock);
        s->stop = true;
        pthread_cond_signal(&s->cond);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->th, NULL);
        remove(s->path);
    }
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    free(s->px);
    free(s->jpeg);
}

/* ---- instant replay: recent frames, shrunk to at most REPLAY_MAX_H rows, in a
 * preallocated ring, cut to an MP4 by a thread of its own at a lower priority (x264
 * ultrafast, one thread). The frame thread only shrinks one frame per stored frame
 * into its slot (outside the lock) and never waits for the encoder: at 1080p60 the
 * full-size replay (veryfast, encoder threads at the frame thread's priority) cost
 * more CPU than analysis and made live fall behind real time. ---- */

#define REPLAY_MAX_BYTES (96u << 20) /* ring memory */
#define REPLAY_MAX_SLOTS 150          /* 5 s at 30 frames/s */
#define REPLAY_FPS 30                 /* frames kept per second at most */
#define REPLAY_MAX_H 360              /* replay height cap, px (1080p: 640x360, 1/9 of the pixels) */

typedef struct replayer {
    pthread_t        th;
    pthread_mutex_t  lock;  /* guards slots' contents and times, and the job */
    pthread_cond_t   cond;
    bool             started, stop;
    uint8_t         *ring;  /* owned: n_slots frames of w x h x 3 (the replay size) */
    int64_t         *slot_t;/* owned: t_us per slot (-1 empty or being written) */
    int              n_slots, w, h; /* w, h: the replay's (shrunk) size */
    int              src_w, src_h;  /* the source frames' size */
    uint64_t         n_stored;
    int64_t          last_t;
    /* job */
    bool             job;
    int32_t          job_seq;
    int64_t          job_from, job_to;
    int32_t          done_seq; /* last reading replayed */
    uint8_t         *frame;    /* owned: the thread's copy */
    char             dir[4096];
    double           fps;
    kr_serve_http_t *srv;      /* borrowed */
} replayer;

static bool replay_init(replayer *r, int w, int h, double fps, const char *out_dir, kr_serve_http_t *srv);

static void *replay_main(void *arg)
{
    replayer *r = arg;
    lower_priority();
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (!r->job && !r->stop)
            pthread_cond_wait(&r->cond, &r->lock);
        if (r->stop)
            break;
        int32_t seq = r->job_seq;
        int64_t from = r->job_from, to = r->job_to;
        r->job = false;
        pthread_mutex_unlock(&r->lock);
        char path[4200], url[64];
        snprintf(path, sizeof path, "%s/seq%d.mp4", r->dir, (int)seq);
        snprintf(url, sizeof url, "/files/seq%d.mp4", (int)seq);
        kr_media_writer_t     *w = NULL;
        int                    slow = 2, n = 0;
        int64_t                t_prev = INT64_MIN;
        kr_media_writer_config wc;
        kr_media_writer_config_default(&wc);
        wc.crf = 23;
        wc.preset = "ultrafast";
        wc.threads = 1; /* one low-priority thread: never competes with analysis for both cores */
        if (kr_media_writer_create2(path, r->w, r->h, (int)lround(r->fps * 1000), 1000 * slow, &wc, &w) == KR_OK) {
            for (;;) {
                /* the oldest stored frame after t_prev within the window */
                pthread_mutex_lock(&r->lock);
                int     best = -1;
                int64_t bt = INT64_MAX;
                for (int k = 0; k < r->n_slots; k++)
                    if (r->slot_t[k] > t_prev && r->slot_t[k] >= from && r->slot_t[k] <= to && r->slot_t[k] < bt) {
                        bt = r->slot_t[k];
                        best = k;
                    }
                if (best >= 0)
                    memcpy(r->frame, r->ring + (size_t)best * r->w * r->h * 3, (size_t)r->w * r->h * 3);
                pthread_mutex_unlock(&r->lock);
                if (best < 0)
                    break;
                kr_image_t img = {r->w, r->h, r->w * 3, 3, r->frame};
                if (kr_media_writer_write(w, &img, (bt - from) * slow) != KR_OK)
                    break;
                t_prev = bt;
                n++;
            }
            if (n > 1 && kr_media_writer_close(w) == KR_OK) {
                char js[200];
                snprintf(js, sizeof js, "{\"seq\":%d,\"url\":\"%s\",\"slow\":%d,\"from_us\":%" PRId64 ",\"frames\":%d}",
                         (int)seq, url, slow, from, n);
                kr_serve_http_publish(r->srv, "replay", js);
            }
            kr_media_writer_destroy(w);
        } else
            kr_log(KR_LOG_WARN, "live: replay: %s", kr_media_writer_error(NULL));
        pthread_mutex_lock(&r->lock);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static bool replay_init(replayer *r, int src_w, int src_h, double fps, const char *out_dir, kr_serve_http_t *srv)
{
    int w = src_w, h = src_h;
    if (h > REPLAY_MAX_H) { /* keep the aspect; even sizes for 4:2:0 */
        w = (int)((int64_t)src_w * REPLAY_MAX_H / src_h);
        h = REPLAY_MAX_H;
    }
    w &= ~1;
    h &= ~1;
    if (w < 16 || h < 16)
        return false;
    size_t fb = (size_t)w * (size_t)h * 3;
    int    n = (int)(REPLAY_MAX_BYTES / fb);
    if (n > REPLAY_MAX_SLOTS)
        n = REPLAY_MAX_SLOTS;
    if (n < 8)
        return false;
    snprintf(r->dir, sizeof r->dir, "%s/replay", out_dir);
    if (mkdir(r->dir, 0777) != 0 && errno != EEXIST)
        return false;
    r->ring = malloc(fb * (size_t)n);
    r->slot_t = malloc((size_t)n * sizeof *r->slot_t);
    r->frame = malloc(fb);
    if (!r->ring || !r->slot_t || !r->frame)
        return false;
    for (int k = 0; k < n; k++)
        r->slot_t[k] = -1;
    r->n_slots = n;
    r->w = w;
    r->h = h;
    r->src_w = src_w;
    r->src_h = src_h;
    r->fps = fps > REPLAY_FPS ? REPLAY_FPS : fps;
    r->srv = srv;
    r->last_t = INT64_MIN;
    if (pthread_create(&r->th, NULL, replay_main, r) != 0)
        return false;
    r->started = true;
    return true;
}

/* Frame thread: 1 when a frame at t_us would be kept (a 1/REPLAY_FPS since the last one). */
static bool replay_due(const replayer *r, int64_t t_us)
{
    return r->started && (r->last_t == INT64_MIN || t_us - r->last_t >= 1000000 / REPLAY_FPS - 2000);
}

/* Frame thread: keeps the frame, shrunk to the replay size, if a 1/REPLAY_FPS has passed
 * since the last kept one. The slot is marked empty under the lock, written outside it
 * (the encoder thread copies only slots with a time), then given its time: the lock is
 * held for microseconds, never while shrinking or encoding. */
static void replay_store(replayer *r, const kr_image_t *img, int64_t t_us)
{
    if (!replay_due(r, t_us) || img->w != r->src_w || img->h != r->src_h || img->channels != 3)
        return;
    int k = (int)(r->n_stored % (uint64_t)r->n_slots);
    pthread_mutex_lock(&r->lock);
    r->slot_t[k] = -1;
    pthread_mutex_unlock(&r->lock);
    kr_image_t dst = {r->w, r->h, r->w * 3, 3, r->ring + (size_t)k * (size_t)r->w * 3 * (size_t)r->h};
    if (dst.w == img->w && dst.h == img->h) {
        for (int y = 0; y < r->h; y++)
            memcpy(dst.px + (size_t)dst.stride * (size_t)y, img->px + (size_t)img->stride * (size_t)y,
                   (size_t)dst.stride);
    } else if (kr_cv_resize_linear(img, &dst) != KR_OK) {
        return; /* slot left empty: this frame is not in the replay */
    }
    pthread_mutex_lock(&r->lock);
    r->slot_t[k] = t_us;
    pthread_mutex_unlock(&r->lock);
    r->n_stored++;
    r->last_t = t_us;
}

/* Asks for the replay of reading seq around its deciding moment (once per reading). */
static void replay_request(replayer *r, int32_t seq, int64_t at_us, int64_t now_t)
{
    if (!r->started || seq == r->done_seq)
        return;
    pthread_mutex_lock(&r->lock);
    r->job = true;
    r->job_seq = seq;
    r->job_from = at_us - 1500000;
    r->job_to = at_us + 1000000 < now_t ? at_us + 1000000 : now_t;
    r->done_seq = seq;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

static void replay_stop(replayer *r)
{
    if (r->started) {
        pthread_mutex_lock(&r->lock);
        r->stop = true;
        pthread_cond_signal(&r->cond);
        pthread_mutex_unlock(&r->lock);
        pthread_join(r->th, NULL);
    }
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cond);
    free(r->ring);
    free(r->slot_t);
    free(r->frame);
}

/* The deciding moment of a ruling: its take, else its first fault; -1 if neither. */
static int64_t deciding_t(const kr_ruling *ru)
{
    if (ru->has_take)
        return ru->take_t_us;
    if (ru->n_faults > 0)
        return ru->faults[0].t_us;
    return -1;
}

/* ---- the live run -------------------------------------------------------------- */

#define LAT_MAX (1 << 20)   /* latency samples kept (frames) */
#define CAPT_RING 512       /* (t_us, realtime) of recent frames, for settle times */
#define RULINGS_KEEP 128    /* rulings kept for the page's state */
#define RLAT_MAX 65536      /* records whose write latency is kept */

/* One record written to events.jsonl during a frame, for the latency figures (ms):
 * pipe: the capture of the frame whose processing released it -> its line flushed
 * (the pipeline's own latency); event: the capture of the first frame at or after
 * the record's time -> flushed (adds the wait for evidence, the detector's horizon). */
typedef struct rlat {
    float   pipe_ms, event_ms;
    int64_t flushed_us;  /* kr_clock_us when flushed (for the durable time, see syncer) */
    int64_t line;        /* its line number in events.jsonl (1-based) */
    uint8_t type;        /* kr_rules_rec_type */
    uint8_t obs;         /* an observation (else a log record) */
} rlat;

/* ---- syncer: events.jsonl and rulings.jsonl made durable off the frame thread ------
 * Each line is written and flushed to the kernel on the frame thread at once (a crash of
 * this program loses nothing flushed; readers of the files see it at once); this thread
 * then fdatasync()s the files, each call covering every line flushed before it, so a
 * power cut loses at most the lines flushed in the last few milliseconds (one
 * fdatasync, about 4-15 ms on this machine's disk) and the frame thread never waits for
 * the disk (a slow disk would otherwise put analysis behind real time). */
#define SYNC_LOG_MAX 65536
typedef struct syncer {
    pthread_t       th;
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    bool            started, stop;
    int             fd[2];        /* events.jsonl, rulings.jsonl */
    int64_t         want[2];      /* lines flushed so far, per file */
    int64_t         done[2];      /* lines known durable */
    /* completions for events.jsonl: every line <= log_line[i] durable at log_us[i] */
    int64_t        *log_line, *log_us;
    int             n_log;
    int             failed;       /* an fdatasync failed (errno kept) */
} syncer;

static void *syncer_main(void *arg)
{
    syncer *S = arg;
    pthread_mutex_lock(&S->lock);
    for (;;) {
        while (!S->stop && S->want[0] == S->done[0] && S->want[1] == S->done[1])
            pthread_cond_wait(&S->cond, &S->lock);
        if (S->want[0] == S->done[0] && S->want[1] == S->done[1])
            break; /* stopping, all durable */
        int64_t w[2] = {S->want[0], S->want[1]};
        pthread_mutex_unlock(&S->lock);
        int bad = 0;
        for (int k = 0; k < 2; k++)
            if (w[k] != S->done[k] && fdatasync(S->fd[k]) != 0 && errno != EINVAL && errno != EROFS)
                bad = errno;
        int64_t now = kr_clock_us();
        pthread_mutex_lock(&S->lock);
        if (bad)
            S->failed = bad;
        if (w[0] != S->done[0] && S->n_log < SYNC_LOG_MAX) {
            S->log_line[S->n_log] = w[0];
            S->log_us[S->n_log++] = now;
        }
        S->done[0] = w[0];
        S->done[1] = w[1];
    }
    pthread_mutex_unlock(&S->lock);
    return NULL;
}

/* Line k (0 events, 1 rulings) was flushed: the syncer makes it durable. Without the
 * thread (it could not start) the line is made durable here. */
static void syncer_line(syncer *S, int k, FILE *fp)
{
    if (!S->started) {
        fdatasync(fileno(fp));
        S->want[k]++;
        S->done[k] = S->want[k];
        return;
    }
    pthread_mutex_lock(&S->lock);
    S->want[k]++;
    pthread_cond_signal(&S->cond);
    pthread_mutex_unlock(&S->lock);
}

/* Ends the thread once every flushed line is durable. */
static void syncer_stop(syncer *S)
{
    if (!S->started)
        return;
    pthread_mutex_lock(&S->lock);
    S->stop = true;
    pthread_cond_signal(&S->cond);
    pthread_mutex_unlock(&S->lock);
    pthread_join(S->th, NULL);
    S->started = false;
}

/* When line `line` of events.jsonl became durable (kr_clock_us), 0 if not recorded. */
static int64_t syncer_durable_us(const syncer *S, int64_t line)
{
    int lo = 0, hi = S->n_log; /* log_line increases: the first entry >= line */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (S->log_line[mid] < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < S->n_log ? S->log_us[lo] : 0;
}

typedef struct live {
    live_opts        o;
    /* inputs */
    FILE            *match_fp;
    char            *line;
    size_t           line_cap;
    char             partial[8192];
    size_t           partial_n;
    long             match_lineno;
    int64_t          match_grew_us; /* when MATCH.jsonl last gave a line (kr_clock_us) */
    bool             have_match, have_layout;
    bool             layout_from_video; /* no layout in the match: read it from the first frame */
    kr_rules_record *rec;      /* scratch (large) */
    kr_rules_record  match_rec;
    int64_t          last_reading_t;
    /* pipeline: source -> kr_pipe (tracker, detector, ordering, rules) */
    kr_capture_t    *cap;
    char             open_err[400]; /* why the source did not open */
    kr_frame_t       first;         /* the frame open_source took (valid until the next pull) */
    bool             have_first;
    kr_calib_t      *calib;
    kr_pipe_t       *pipe;
    struct { const kr_calib_t *calib; double sx, sy; } map; /* for the page's overlay */
    int              frame_w, frame_h;
    int              track_w, track_h; /* the size frames are asked for (kr_track_frame_size) */
    int64_t          last_frame_t;  /* newest frame from the source */
    int64_t          frames;
    /* outputs */
    FILE            *ev_fp, *ru_fp;
    syncer           sync;          /* makes their lines durable */
    int64_t          cur_settle_t;  /* settle of the frame being processed (-1), for the page */
    /* page */
    kr_serve_http_t *srv;
    snapper          snap;
    replayer         replay;
    char            *rulings_json[RULINGS_KEEP];
    int              n_rulings_json;
    char             status[512];
    int64_t          capt_t[CAPT_RING], capt_wall[CAPT_RING];
    int64_t          capt_mono[CAPT_RING]; /* the same captures on kr_clock_us */
    int64_t          feed_born_us; /* capture (kr_clock_us) of the frame being fed; 0 outside */
    uint64_t         capt_n;
    /* measurements */
    float           *lat_ms;     /* frame handed over by the source -> processed */
    float           *e2e_ms;     /* frame's own time (capture, or its due time when played) -> processed */
    int64_t          n_lat;
    float           *wlat_ms;    /* observation's frame captured -> the observation written */
    int64_t          n_wlat;
    float           *slat_ms;    /* the same in source time: newest frame seen at writing - its t_us */
    int64_t          n_slat;
    rlat            *rlat;       /* per record written during a frame (RLAT_MAX) */
    int64_t          n_rlat, n_rlat_end; /* kept; written at the end (no frame released them) */
    int64_t          base_us;    /* min over frames of (arrival - t_us): the undelayed offset */
    double           settle_lat_sum, settle_lat_max;
    int              n_settle_lat;
    int64_t          wall0_us, t0_us;
    double           max_lag_ms;
    int64_t          max_lag_t_us;   /* source time of the frame that was max_lag_ms behind */
    double           max_lag_late_ms; /* the most behind after the first second of the source */
    double           max_lag_early_ms; /* ... within its first second (the start-up) */
    int64_t          first_t_us;      /* source time of the first frame */
    bool             behind;
    int              source_failures;
    int              n_gaps;       /* frames missing from a running source (gap_us > 0) */
    double           gap_ms;       /* their total time */
    int              steadied;     /* the tracker is steadying a flickering light (said as it starts, ends) */
    int              noisy;        /* the picture was found noisy (said once) */
    kr_calib_flicker_t *flk;       /* the readout being measured on the first frames (owned), else NULL */
    int64_t          flk_t0;       /* ... from this frame's time (INT64_MIN before the first) */
    const char      *readout_from; /* "option", "calibration", "flicker" or "none" (static) */
} live;

static void publish_status(live *L, const char *source, const char *msg);

/* Flushes the line just written to fp (k: 0 events.jsonl, 1 rulings.jsonl) to the
 * kernel and hands it to the syncer to be made durable. */
static bool sync_line(live *L, int k, FILE *fp)
{
    if (fflush(fp) != 0)
        return false;
    syncer_line(&L->sync, k, fp);
    return true;
}

static void set_state(live *L)
{
    if (!L->srv)
        return;
    size_t n = 512 + strlen(L->status);
    for (int i = 0; i < L->n_rulings_json; i++)
        n += strlen(L->rulings_json[i]) + 1;
    n += 2 * KR_RULES_NAME_MAX * 2;
    char *s = malloc(n);
    if (!s)
        return;
    char *w = s;
    w += sprintf(w, "{\"players\":{\"A\":{\"name\":\"");
    for (int p = 0; p < 2; p++) {
        for (const char *c = L->match_rec.name[p]; *c; c++)
            if (*c != '"' && *c != '\\' && (unsigned char)*c >= 32)
                *w++ = *c;
        w += sprintf(w, p ? "\"}}," : "\"},\"B\":{\"name\":\"");
    }
    int ca = kr_pipe_count(L->pipe, KR_SIDE_A), cb = kr_pipe_count(L->pipe, KR_SIDE_B);
    const kr_rules_record *lay = kr_pipe_layout(L->pipe);
    if (!ca && !cb && lay) /* the engine has not seen the layout yet */
        for (int k = 0; k < lay->n_cards; k++) {
            ca += lay->cards[k].owner == KR_SIDE_A;
            cb += lay->cards[k].owner == KR_SIDE_B;
        }
    w += sprintf(w, "\"counts\":{\"A\":%d,\"B\":%d},\"status\":%s,\"rulings\":[", ca, cb,
                 L->status[0] ? L->status : "null");
    for (int i = 0; i < L->n_rulings_json; i++)
        w += sprintf(w, "%s%s", i ? "," : "", L->rulings_json[i]);
    sprintf(w, "]}");
    kr_serve_http_set_state(L->srv, s);
    free(s);
}

static void notice(live *L, bool error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void notice(live *L, bool error, const char *fmt, ...)
{
    char    msg[400], js[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kr_log(error ? KR_LOG_WARN : KR_LOG_INFO, "live: %s", msg);
    if (!L->srv)
        return;
    for (char *c = msg; *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 32)
            *c = '\'';
    snprintf(js, sizeof js, "{\"error\":%s,\"message\":\"%s\"}", error ? "true" : "false", msg);
    kr_serve_http_publish(L->srv, "notice", js);
}

/* Ring index of the first frame at or after t_us still in the capture ring; -1 if none. */
static int capture_index_of(const live *L, int64_t t_us)
{
    int      best = -1;
    uint64_t n = L->capt_n < CAPT_RING ? L->capt_n : CAPT_RING;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t i = (L->capt_n - 1 - k) % CAPT_RING;
        if (L->capt_t[i] >= t_us)
            best = (int)i;
        else
            break;
    }
    return best;
}

/* Realtime (ms) at which the first frame at or after t_us was captured; 0 if unknown. */
static int64_t capture_wall_of(const live *L, int64_t t_us)
{
    int i = capture_index_of(L, t_us);
    return i < 0 ? 0 : L->capt_wall[i];
}

/* Capture (kr_clock_us) of the first frame at or after t_us; 0 if unknown. */
static int64_t capture_mono_of(const live *L, int64_t t_us)
{
    int i = capture_index_of(L, t_us);
    return i < 0 ? 0 : L->capt_mono[i];
}

/* Adds fields to a JSON object string (malloc'd result). */
static char *json_with(const char *obj, const char *extra)
{
    size_t n = strlen(obj), m = strlen(extra);
    char  *s = malloc(n + m + 2);
    if (!s)
        return NULL;
    memcpy(s, obj, n);
    if (n && s[n - 1] == '}') {
        s[n - 1] = ',';
        memcpy(s + n, extra, m);
        s[n + m] = '}';
        s[n + m + 1] = '\0';
    } else
        s[n] = '\0';
    return s;
}

static void publish_ruling(live *L, const kr_rules_output *o, int64_t settle_t)
{
    if (!L->srv)
        return;
    char *js = kr_json_output_string(o);
    if (!js)
        return;
    char    extra[160];
    int64_t now = wall_ms(), sw = settle_t >= 0 ? capture_wall_of(L, settle_t) : 0;
    if (sw > 0) {
        snprintf(extra, sizeof extra, "\"settle_t_us\":%" PRId64 ",\"settle_wall_ms\":%" PRId64 ",\"pub_wall_ms\":%" PRId64,
                 settle_t, sw, now);
        double lat = (double)(now - sw);
        L->settle_lat_sum += lat;
        L->n_settle_lat++;
        if (lat > L->settle_lat_max)
            L->settle_lat_max = lat;
    } else if (o->type == KR_OUT_RULING && !o->ruling.final && deciding_t(&o->ruling) >= 0 &&
               capture_wall_of(L, deciding_t(&o->ruling)) > 0)
        snprintf(extra, sizeof extra, "\"decided_wall_ms\":%" PRId64 ",\"pub_wall_ms\":%" PRId64,
                 capture_wall_of(L, deciding_t(&o->ruling)), now);
    else if (o->type == KR_OUT_RULING && o->ruling.final && capture_wall_of(L, o->ruling.t_us) > 0)
        snprintf(extra, sizeof extra, "\"final_wall_ms\":%" PRId64 ",\"pub_wall_ms\":%" PRId64,
                 capture_wall_of(L, o->ruling.t_us), now);
    else
        snprintf(extra, sizeof extra, "\"pub_wall_ms\":%" PRId64, now);
    char *full = json_with(js, extra);
    free(js);
    if (!full)
        return;
    kr_serve_http_publish(L->srv, o->type == KR_OUT_RULING ? "ruling" : "match_end", full);
    if (o->type == KR_OUT_RULING && o->ruling.final) {
        if (L->n_rulings_json == RULINGS_KEEP) {
            free(L->rulings_json[0]);
            memmove(L->rulings_json, L->rulings_json + 1, (RULINGS_KEEP - 1) * sizeof *L->rulings_json);
            L->n_rulings_json--;
        }
        L->rulings_json[L->n_rulings_json++] = full;
        set_state(L);
    } else
        free(full);
}

/* ---- the pipeline's sink: files flushed line by line, the page, the replay ---- */

static kr_status live_record(void *ctx, const kr_rules_record *r, const kr_event_obs *o)
{
    live *L = ctx;
    if (kr_json_write_record(L->ev_fp, r) != KR_OK || !sync_line(L, 0, L->ev_fp)) {
        kr_log(KR_LOG_ERROR, "live: %s/events.jsonl: write failed", L->o.out);
        return KR_ERR_IO;
    }
    if (o && L->n_slat < LAT_MAX) /* load-independent part: how far the detector had to look ahead */
        L->slat_ms[L->n_slat++] = (float)((L->last_frame_t - r->t_us) / 1000.0);
    int64_t cw = o ? capture_wall_of(L, r->t_us) : 0;
    if (cw > 0 && L->n_wlat < LAT_MAX) /* how long after its frame's capture it is on disk */
        L->wlat_ms[L->n_wlat++] = (float)(wall_ms() - cw);
    if (r->has_t && !L->feed_born_us)
        L->n_rlat_end++; /* released by the end, not by a frame */
    else if (r->has_t && L->n_rlat < RLAT_MAX) {
        int64_t done = kr_clock_us(), ev = capture_mono_of(L, r->t_us);
        rlat   *e = &L->rlat[L->n_rlat++];
        e->type = (uint8_t)r->type;
        e->obs = o != NULL;
        e->pipe_ms = (float)((done - L->feed_born_us) / 1000.0);
        e->flushed_us = done;
        e->line = L->sync.want[0];
        /* a record before the first frame (the layout at 0) counts from that frame */
        e->event_ms = (float)((done - (ev > 0 ? ev : L->feed_born_us)) / 1000.0);
    }
    return KR_OK;
}

static kr_status live_output(void *ctx, const kr_rules_output *o)
{
    live *L = ctx;
    if (kr_json_write_output(L->ru_fp, o) != KR_OK || !sync_line(L, 1, L->ru_fp)) {
        kr_log(KR_LOG_ERROR, "live: %s/rulings.jsonl: write failed", L->o.out);
        return KR_ERR_IO;
    }
    publish_ruling(L, o, -1);
    if (o->type == KR_OUT_RULING && deciding_t(&o->ruling) >= 0)
        replay_request(&L->replay, o->ruling.seq, deciding_t(&o->ruling), L->last_frame_t);
    return KR_OK;
}

/* A record the engine refuses: said on the page and the log; the run goes on. */
static kr_status live_refused(void *ctx, const kr_rules_record *r, const kr_event_obs *o, const char *why)
{
    (void)o;
    notice(ctx, true, "%s at %.3f s refused by the rules engine: %s", kr_rules_rec_type_name(r->type), r->t_us / 1e6,
           why);
    return KR_OK;
}

/* Provisional ruling for the page (settle seen): the written rulings are unaffected. */
static void live_provisional(void *ctx, const kr_rules_output *o)
{
    live *L = ctx;
    publish_ruling(L, o, L->cur_settle_t);
    if (deciding_t(&o->ruling) >= 0)
        replay_request(&L->replay, o->ruling.seq, deciding_t(&o->ruling), L->last_frame_t);
}

/* Parses and queues one match-log line from the file or the page. typed: it may
 * leave out t_us (then: the time of the last frame). */
static bool take_line(live *L, const char *line, size_t len, const char *where, long lineno, bool typed)
{
    char err[KR_JSON_ERR_MAX];
    char buf[8300];
    if (kr_json_is_blank(line, len))
        return true;
    if (typed && len < 8000) {
        /* a typed record may leave out t_us: it happens now (the last frame's time) */
        char tmp[8001];
        memcpy(tmp, line, len);
        tmp[len] = '\0';
        const char *brace = strchr(tmp, '{');
        if (brace && !strstr(tmp, "\"t_us\"")) {
            int n = snprintf(buf, sizeof buf, "{\"t_us\":%" PRId64 ",%s", L->last_frame_t, brace + 1);
            if (n > 0 && (size_t)n < sizeof buf) {
                line = buf;
                len = (size_t)n;
            }
        }
    }
    if (kr_json_read_record(line, len, L->rec, err, sizeof err) != KR_OK) {
        if (typed)
            notice(L, true, "typed record refused: %s", err);
        else
            notice(L, true, "%s:%ld: %s (line skipped)", where, lineno, err);
        return true;
    }
    kr_rules_record *r = L->rec;
    if (r->type == KR_REC_MATCH) {
        if (L->have_match) {
            notice(L, true, "%s:%ld: a second match record (ignored)", where, lineno);
            return true;
        }
        L->have_match = true;
        L->match_rec = *r;
    } else if (r->type == KR_REC_LAYOUT) {
        if (L->have_layout) {
            notice(L, true, "%s:%ld: a second layout record (ignored)", where, lineno);
            return true;
        }
        for (int k = 0; k < r->n_cards; k++)
            if (!r->cards[k].has_pos) {
                notice(L, true, "%s:%ld: layout card %d has no x_mm/y_mm; live needs card positions", where, lineno,
                       r->cards[k].card);
                return false;
            }
        L->have_layout = true;
    } else if (r->type == KR_REC_KAMI_START || r->type == KR_REC_KIMARIJI || r->type == KR_REC_READING_VOID ||
               r->type == KR_REC_SHIMO_START) {
        if (r->t_us < L->last_reading_t) {
            notice(L, true, "%s: reading record at %.3f s is older than the previous one (ignored)",
                   typed ? "page" : where, r->t_us / 1e6);
            return true;
        }
        int64_t released = kr_pipe_get_stats(L->pipe)->released_t_us;
        if (r->t_us < released) { /* the engine takes records in time order only */
            notice(L, true, "reading record at %.3f s came after that time was written; it counts from %.3f s",
                   r->t_us / 1e6, released / 1e6);
            r->t_us = released;
        }
        L->last_reading_t = r->t_us;
    }
    if (kr_pipe_add_record(L->pipe, r) != KR_OK) {
        notice(L, true, "%s:%ld: %s", where, lineno, kr_pipe_error(L->pipe));
        return r->type != KR_REC_LAYOUT; /* the layout is needed: stop */
    }
    if (typed && L->srv) {
        char *js = kr_json_record_string(r);
        if (js) {
            notice(L, false, "reading accepted: %s", js);
            free(js);
        }
    }
    return true;
}

/* Reads what MATCH.jsonl gained since last time (complete lines only). */
static bool tail_match(live *L)
{
    if (!L->match_fp)
        return true;
    clearerr(L->match_fp);
    int c;
    while ((c = fgetc(L->match_fp)) != EOF) {
        if (c == '\n') {
            L->match_grew_us = kr_clock_us();
            L->match_lineno++;
            if (!take_line(L, L->partial, L->partial_n, L->o.match, L->match_lineno, false))
                return false;
            L->partial_n = 0;
        } else if (L->partial_n + 1 < sizeof L->partial)
            L->partial[L->partial_n++] = (char)c;
    }
    return true;
}

static void take_posts(live *L)
{
    char   buf[8192];
    size_t n;
    while (L->srv && kr_serve_http_take_post(L->srv, buf, sizeof buf, &n) == KR_OK)
        take_line(L, buf, n, "page", 0, true);
}

static int map_scaled(void *ctx, double x, double y, double *px, double *py)
{
    const live *L = ctx;
    double      rx, ry;
    if (kr_calib_mm_to_px(L->map.calib, x, y, &rx, &ry) != 0)
        return -1;
    *px = (rx + 0.5) * L->map.sx - 0.5;
    *py = (ry + 0.5) * L->map.sy - 0.5;
    return 0;
}

/* Opens the source and takes its first frame. GStreamer decodes; the BGR frames are made
 * by FFmpeg's swscale exactly as analyze's reader makes them (kr_capture ff_convert), so
 * live and analyze see the same pixels. The first time, the full-size first frame gives
 * the calibration (from it, as analyze does, or --calib checked against its size) and,
 * when the match has no layout, the layout (refused on any doubt); then frames come at
 * the size analyze tracks (kr_track_frame_size). The first frame waits in L->first. */
static bool setup_pipeline(live *L, const kr_frame_t *f0);

static kr_status open_source(live *L)
{
    kr_capture_config cc;
    kr_capture_config_default(&cc);
    cc.sync = !L->o.no_sync;
    cc.ff_convert = 1;
    cc.yuv = 1; /* the tracker reads the planes; BGR only for the frames the page shows */
    if (L->o.no_sync) { /* as fast as it decodes: a short queue that holds the decoder back */
        cc.max_buffers = 8;
        cc.drop = 0;
    } else if (L->o.max_behind_s > 0) { /* bounded queue (counted at 60 frames/s): the oldest go first */
        cc.max_buffers = (int)(L->o.max_behind_s * 60 + 0.5);
        cc.drop = 1;
    }
    cc.out_w = L->track_w; /* 0 the first time: the source's size */
    cc.out_h = L->track_h;
    kr_frame_t f;
    kr_status  s = kr_capture_open2(L->o.source, &cc, &L->cap);
    if (s != KR_OK) {
        snprintf(L->open_err, sizeof L->open_err, "%s", kr_capture_error(NULL));
        return s;
    }
    do
        s = kr_capture_next(L->cap, &f, 200);
    while (s == KR_ERR_AGAIN && !g_stop);
    if (s != KR_OK) {
        snprintf(L->open_err, sizeof L->open_err, "source gave no frame: %s",
                 s == KR_ERR_EOF || s == KR_ERR_AGAIN ? "end of stream" : kr_capture_error(L->cap));
        kr_capture_destroy(L->cap);
        L->cap = NULL;
        return s == KR_ERR_AGAIN ? KR_ERR_EOF : s;
    }
    if (!L->calib) {
        /* calibration and layout take a while: the source waits (not behind real time after) */
        kr_capture_pause(L->cap, 1);
        kr_image_t full;
        if (kr_capture_frame_full(L->cap, &full) != KR_OK) {
            kr_log(KR_LOG_ERROR, "live: %s", kr_capture_error(L->cap));
            return KR_ERR_FORMAT;
        }
        if (L->o.calib) {
            if (kr_calib_load(L->o.calib, &L->calib) != KR_OK) {
                kr_log(KR_LOG_ERROR, "%s", kr_calib_error());
                return KR_ERR_FORMAT;
            }
            if (L->calib->img_w != full.w || L->calib->img_h != full.h) {
                kr_log(KR_LOG_ERROR, "%s: calibration is for %dx%d frames, the source gives %dx%d", L->o.calib,
                       L->calib->img_w, L->calib->img_h, full.w, full.h);
                return KR_ERR_FORMAT;
            }
        } else {
            /* calibrate on the full-size first frame, as analyze does */
            if (kr_app_calibrate(&full, f.t_us, kr_pipe_layout(L->pipe), &L->calib) != KR_OK) {
                kr_log(KR_LOG_ERROR, "live: cannot calibrate from the first frame: %s (give --calib)",
                       kr_calib_error());
                return KR_ERR_FORMAT;
            }
        }
        if (L->o.readout_us >= 0)
            L->calib->readout_us = L->o.readout_us;
        if (!L->calib->ok)
            notice(L, true, "calibration is poor (%s): every ruling will need review", L->calib->reason);
        if (L->layout_from_video && !kr_pipe_has_layout(L->pipe)) {
            /* the match has no layout: read it from this frame of the memorisation period */
            if (kr_app_layout_from_frame(&full, L->o.calib, "live: the source", L->rec) != 0)
                return KR_ERR_FORMAT; /* said why */
            if (kr_pipe_add_record(L->pipe, L->rec) != KR_OK) {
                kr_log(KR_LOG_ERROR, "live: %s", kr_pipe_error(L->pipe));
                return KR_ERR_FORMAT;
            }
            L->have_layout = true;
            notice(L, false, "layout of %d cards read from the source's first frame", L->rec->n_cards);
        }
        kr_track_frame_size(full.w, full.h, &L->track_w, &L->track_h);
        if (kr_capture_set_out_size(L->cap, L->track_w, L->track_h, NULL) != KR_OK ||
            kr_capture_current(L->cap, &f) != KR_OK) { /* the first frame's planes at that size */
            kr_log(KR_LOG_ERROR, "live: %s", kr_capture_error(L->cap));
            return KR_ERR_FORMAT;
        }
        if (!setup_pipeline(L, &f)) /* the tracker's tables too, before the source runs again */
            return KR_ERR_FORMAT;
        if (kr_capture_pause(L->cap, 0) != KR_OK) {
            snprintf(L->open_err, sizeof L->open_err, "%s", kr_capture_error(L->cap));
            kr_capture_destroy(L->cap);
            L->cap = NULL;
            return KR_ERR_IO;
        }
    }
    L->first = f;
    L->have_first = true;
    return KR_OK;
}

/* The tracker for the frames the source gives (once, on the first frame). */
static bool setup_pipeline(live *L, const kr_frame_t *f0)
{
    L->map.calib = L->calib;
    L->map.sx = (double)f0->img.w / L->calib->img_w;
    L->map.sy = (double)f0->img.h / L->calib->img_h;
    if (kr_pipe_start_video(L->pipe, L->calib, f0->img.w, f0->img.h) != KR_OK) {
        kr_log(KR_LOG_ERROR, "live: %s", kr_pipe_error(L->pipe));
        return false;
    }
    L->frame_w = f0->img.w;
    L->frame_h = f0->img.h;
    /* not told the readout: measured from the lamps' flicker on the first frames (live_flicker) */
    L->readout_from = L->o.readout_us >= 0 ? "option" : L->calib->readout_us > 0 ? "calibration" : "none";
    if (L->o.readout_us < 0 && L->calib->readout_us == 0) {
        L->flk = kr_app_flicker_create(f0->img.w, f0->img.h);
        L->flk_t0 = INT64_MIN;
    }
    return true;
}

/* One frame of the rolling shutter's measurement (kr_app_flicker_feed: the Y plane, or the
 * BGR picture); found, every observation from then on is timed by its row. The first frames
 * are the memorisation period: nothing has come out yet, else the readout is not applied. */
static void live_flicker(live *L, const kr_frame_t *f)
{
    if (!L->flk)
        return;
    kr_image_t y = {f->yuv.w, f->yuv.h, f->yuv.stride_y, 1, (uint8_t *)f->yuv.y};
    kr_calib_readout ro;
    if (kr_app_flicker_feed(L->flk, &L->flk_t0, f->yuv.y ? &y : &f->img, f->t_us, &ro))
        return;
    kr_calib_flicker_destroy(L->flk);
    L->flk = NULL;
    if (!ro.found)
        return;
    if (kr_pipe_set_readout(L->pipe, ro.readout_us) != KR_OK) {
        notice(L, true, "a rolling shutter of %.1f ms seen in the lamps' flicker was not applied (%s); give --readout-us",
               ro.readout_us / 1000.0, kr_pipe_error(L->pipe));
        return;
    }
    L->calib->readout_us = ro.readout_us;
    L->readout_from = "flicker";
    notice(L, false, "rolling shutter: rows read over %.1f ms, measured from the lamps' %.0f Hz flicker; contacts are "
           "timed by their row (--readout-us N to set it)", ro.readout_us / 1000.0, ro.flicker_hz);
}

static void publish_status(live *L, const char *source, const char *msg)
{
    double fps = 0;
    int64_t el = kr_clock_us() - L->wall0_us;
    if (el > 0 && L->frames > 1)
        fps = L->frames * 1e6 / (double)el;
    double p50 = 0;
    if (L->n_lat) {
        /* a cheap recent figure: mean of the last 30 samples */
        int64_t k0 = L->n_lat > 30 ? L->n_lat - 30 : 0;
        for (int64_t k = k0; k < L->n_lat; k++)
            p50 += L->lat_ms[k % LAT_MAX];
        p50 /= (double)(L->n_lat - k0);
    }
    char m[200] = "";
    if (msg)
        for (size_t i = 0; msg[i] && i + 1 < sizeof m; i++)
            m[i] = (msg[i] == '"' || msg[i] == '\\' || (unsigned char)msg[i] < 32) ? '\'' : msg[i];
    snprintf(L->status, sizeof L->status,
             "{\"source\":\"%s\",\"message\":\"%s\",\"fps\":%.2f,\"frames\":%" PRId64
             ",\"t_us\":%" PRId64 ",\"lag_ms\":%.1f,\"ev_lat_ms\":%.2f,\"behind\":%s,\"pending\":%zu}",
             source, m, fps, L->frames, L->last_frame_t, L->max_lag_ms, p50, L->behind ? "true" : "false",
             kr_pipe_get_stats(L->pipe)->pending);
    if (L->srv) {
        kr_serve_http_publish(L->srv, "status", L->status);
        set_state(L);
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* p50 / p95 / max of v[0 .. n) (sorted here) as a JSON object. */
static void put_quantiles(FILE *f, float *v, int64_t n)
{
    if (n <= 0) {
        fprintf(f, "{\"p50\": null, \"p95\": null, \"max\": null}");
        return;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    fprintf(f, "{\"p50\": %.2f, \"p95\": %.2f, \"max\": %.2f}", v[n / 2], v[(n * 95) / 100], v[n - 1]);
}

/* "record_latency_ms": per group of records written during frames (all observations,
 * all log records, each record type), n and the quantiles of both latencies (rlat), and
 * of the pipeline latency to the line being durable (the syncer's fdatasync). */
static void write_record_latency(FILE *f, live *L)
{
    /* free by now: reused as scratch (LAT_MAX >= 2 * RLAT_MAX) */
    float *a = L->lat_ms, *b = L->e2e_ms, *c = L->lat_ms + RLAT_MAX;
    fprintf(f, "  \"record_latency_ms\": {\"released_at_end\": %" PRId64 ", \"groups\": [", L->n_rlat_end);
    bool first = true;
    for (int g = -2; g < KR_REC_COUNT_; g++) { /* -2 observations, -1 log records, then by type */
        int64_t n = 0;
        for (int64_t i = 0; i < L->n_rlat; i++) {
            const rlat *e = &L->rlat[i];
            if (g == -2 ? e->obs : g == -1 ? !e->obs : e->type == g) {
                int64_t du = syncer_durable_us(&L->sync, e->line);
                a[n] = e->pipe_ms;
                b[n] = e->event_ms;
                c[n] = du > 0 ? e->pipe_ms + (float)((du - e->flushed_us) / 1000.0) : e->pipe_ms;
                n++;
            }
        }
        if (!n && g >= 0)
            continue;
        fprintf(f, "%s\n    {\"records\": \"%s\", \"n\": %" PRId64 ", \"pipeline\": ", first ? "" : ",",
                g == -2 ? "observations" : g == -1 ? "log records" : kr_rules_rec_type_name((kr_rules_rec_type)g), n);
        first = false;
        put_quantiles(f, a, n);
        fprintf(f, ", \"pipeline_durable\": ");
        put_quantiles(f, c, n);
        fprintf(f, ", \"event\": ");
        put_quantiles(f, b, n);
        fprintf(f, "}");
    }
    fprintf(f, "]},\n");
}

static bool write_summary(live *L, const char *ended)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.json", L->o.out);
    kr_outfile_t of;
    if (kr_outfile_open(path, &of) != KR_OK)
        return false;
    int64_t n = L->n_lat < LAT_MAX ? L->n_lat : LAT_MAX;
    double  q[2][4] = {{0}};
    for (int a = 0; a < 2 && n > 0; a++) {
        float *v = a ? L->e2e_ms : L->lat_ms;
        qsort(v, (size_t)n, sizeof *v, cmp_float);
        q[a][0] = v[n / 2];
        q[a][1] = v[(n * 95) / 100];
        q[a][2] = v[(n * 99) / 100];
        q[a][3] = v[n - 1];
    }
    FILE *f = of.fp;
    fprintf(f, "{\n  \"format\": \"karuta-summary/1\",\n  \"mode\": \"live\",\n  \"source\": \"");
    for (const char *c = L->o.source; *c; c++)
        fprintf(f, (*c == '"' || *c == '\\') ? "\\%c" : ((unsigned char)*c < 32 ? " " : "%c"), *c);
    fprintf(f, "\",\n  \"frames\": %" PRId64 ",\n  \"duration_s\": %.3f,\n", L->frames, L->last_frame_t / 1e6);
    const kr_pipe_stats *ps = kr_pipe_get_stats(L->pipe);
    fprintf(f, "  \"rulings\": %d,\n  \"needs_review\": %d,\n", ps->n_rulings, ps->n_review);
    fprintf(f, "  \"counts\": {\"A\": %d, \"B\": %d},\n", kr_pipe_count(L->pipe, KR_SIDE_A),
            kr_pipe_count(L->pipe, KR_SIDE_B));
    fprintf(f, "  \"readout_us\": %lld,\n  \"readout_from\": \"%s\",\n", L->calib ? (long long)L->calib->readout_us : 0LL,
            L->readout_from ? L->readout_from : "none");
    fprintf(f, "  \"camera\": ");
    kr_app_summary_camera(f, L->calib);
    fprintf(f, ",\n");
    kr_app_summary_footage(f, ps);
    if (ps->have_end && ps->end.winner != KR_SIDE_NONE)
        fprintf(f, "  \"winner\": \"%s\",\n", ps->end.winner == KR_SIDE_A ? "A" : "B");
    else
        fprintf(f, "  \"winner\": null,\n");
    fprintf(f, "  \"latency_ms\": {\"arrival_to_processed\": {\"p50\": %.2f, \"p95\": %.2f, \"p99\": %.2f, \"max\": %.2f},\n",
            q[0][0], q[0][1], q[0][2], q[0][3]);
    fprintf(f, "                 \"capture_to_processed\": {\"p50\": %.2f, \"p95\": %.2f, \"p99\": %.2f, \"max\": %.2f},\n",
            q[1][0], q[1][1], q[1][2], q[1][3]);
    fprintf(f, "                 \"extra_hold\": %.1f,\n", L->o.hold_us / 1000.0);
    double w[3] = {0, 0, 0};
    if (L->n_wlat > 0) {
        qsort(L->wlat_ms, (size_t)L->n_wlat, sizeof *L->wlat_ms, cmp_float);
        w[0] = L->wlat_ms[L->n_wlat / 2];
        w[1] = L->wlat_ms[(L->n_wlat * 99) / 100];
        w[2] = L->wlat_ms[L->n_wlat - 1];
    }
    fprintf(f, "                 \"observation_capture_to_written\": {\"p50\": %.1f, \"p99\": %.1f, \"max\": %.1f, "
               "\"n\": %" PRId64 "},\n", w[0], w[1], w[2], L->n_wlat);
    w[0] = w[1] = w[2] = 0;
    if (L->n_slat > 0) {
        qsort(L->slat_ms, (size_t)L->n_slat, sizeof *L->slat_ms, cmp_float);
        w[0] = L->slat_ms[L->n_slat / 2];
        w[1] = L->slat_ms[(L->n_slat * 99) / 100];
        w[2] = L->slat_ms[L->n_slat - 1];
    }
    fprintf(f, "                 \"observation_written_source_delay\": {\"p50\": %.1f, \"p99\": %.1f, \"max\": %.1f},\n",
            w[0], w[1], w[2]);
    fprintf(f, "                 \"settle_to_ruling_published\": {\"mean\": %.1f, \"max\": %.1f, \"n\": %d}},\n",
            L->n_settle_lat ? L->settle_lat_sum / L->n_settle_lat : 0.0, L->settle_lat_max, L->n_settle_lat);
    write_record_latency(f, L);
    fprintf(f, "  \"observation_report_delay_ms_max\": %.1f,\n", ps->max_obs_late_us / 1000.0);
    fprintf(f, "  \"max_lag_ms\": %.1f,\n  \"max_lag_at_s\": %.3f,\n", L->max_lag_ms, L->max_lag_t_us / 1e6);
    fprintf(f, "  \"max_lag_first_1s_ms\": %.1f,\n  \"max_lag_after_1s_ms\": %.1f,\n", L->max_lag_early_ms,
            L->max_lag_late_ms);
    fprintf(f, "  \"late_observations\": %d,\n  \"source_failures\": %d,\n", ps->late_obs, L->source_failures);
    fprintf(f, "  \"frame_gaps\": %d,\n  \"frame_gaps_ms\": %.1f,\n", L->n_gaps, L->gap_ms);
    fprintf(f, "  \"ended\": \"%s\"\n}\n", ended);
    return kr_outfile_commit(&of) == KR_OK;
}

static FILE *open_out(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        kr_log(KR_LOG_ERROR, "live: %s: cannot write: %s", path, strerror(errno));
    return f;
}

int kr_cmd_live(int argc, char **argv)
{
    live *L = calloc(1, sizeof *L);
    if (!L) {
        kr_log(KR_LOG_ERROR, "live: out of memory");
        return 1;
    }
    int rc = parse_args(argc, argv, &L->o);
    if (rc) {
        free(L);
        return rc < 0 ? 0 : rc;
    }
    rc = 1;
    const char *ended = "error";
    L->rec = malloc(sizeof *L->rec);
    L->lat_ms = malloc(LAT_MAX * sizeof *L->lat_ms);
    L->e2e_ms = malloc(LAT_MAX * sizeof *L->e2e_ms);
    L->wlat_ms = malloc(LAT_MAX * sizeof *L->wlat_ms);
    L->slat_ms = malloc(LAT_MAX * sizeof *L->slat_ms);
    L->rlat = malloc(RLAT_MAX * sizeof *L->rlat);
    pthread_mutex_init(&L->snap.lock, NULL);
    pthread_cond_init(&L->snap.cond, NULL);
    pthread_mutex_init(&L->replay.lock, NULL);
    pthread_mutex_init(&L->sync.lock, NULL);
    pthread_cond_init(&L->sync.cond, NULL);
    L->sync.log_line = malloc(SYNC_LOG_MAX * sizeof *L->sync.log_line);
    L->sync.log_us = malloc(SYNC_LOG_MAX * sizeof *L->sync.log_us);
    pthread_cond_init(&L->replay.cond, NULL);
    L->replay.done_seq = -1;
    L->cur_settle_t = -1;
    if (!L->rec || !L->lat_ms || !L->e2e_ms || !L->wlat_ms || !L->slat_ms || !L->rlat ||
        !L->sync.log_line || !L->sync.log_us) {
        kr_log(KR_LOG_ERROR, "live: out of memory");
        goto fail;
    }
    L->last_reading_t = INT64_MIN;
    kr_pipe_config pcfg;
    kr_pipe_config_default(&pcfg);
    pcfg.mm_per_px = L->o.mm_per_px;
    pcfg.tie_us = L->o.tie_us;
    pcfg.hold_us = L->o.hold_us;
    pcfg.reading_delay_us = L->o.delay_us;
    kr_pipe_sink sink = {L, live_record, live_output, live_refused};
    if (kr_pipe_create(&pcfg, &sink, &L->pipe) != KR_OK) {
        kr_log(KR_LOG_ERROR, "live: %s", kr_pipe_error(NULL));
        goto fail;
    }
    struct stat sb;
    if (stat(L->o.out, &sb) != 0 && mkdir(L->o.out, 0777) != 0) {
        kr_log(KR_LOG_ERROR, "live: %s: cannot create the output folder: %s", L->o.out, strerror(errno));
        goto fail;
    }
    L->match_fp = fopen(L->o.match, "r");
    if (!L->match_fp) {
        kr_log(KR_LOG_ERROR, "live: %s: %s", L->o.match, strerror(errno));
        goto fail;
    }
    L->ev_fp = open_out(L->o.out, "events.jsonl");
    L->ru_fp = open_out(L->o.out, "rulings.jsonl");
    if (!L->ev_fp || !L->ru_fp)
        goto fail;
    L->sync.fd[0] = fileno(L->ev_fp);
    L->sync.fd[1] = fileno(L->ru_fp);
    if (pthread_create(&L->sync.th, NULL, syncer_main, &L->sync) == 0)
        L->sync.started = true;
    else
        kr_log(KR_LOG_WARN, "live: no sync thread: each line is made durable on the frame thread");

    if (L->o.http_port >= 0) {
        kr_serve_http_config hc;
        kr_serve_http_config_default(&hc);
        hc.port = (uint16_t)L->o.http_port;
        char replay_dir[4200];
        snprintf(replay_dir, sizeof replay_dir, "%s/replay", L->o.out);
        hc.files_dir = replay_dir;
        if (kr_serve_http_create(&hc, &L->srv) != KR_OK)
            goto fail; /* message logged */
        kr_log(KR_LOG_INFO, "live: judge's page on http://127.0.0.1:%u/", (unsigned)kr_serve_http_port(L->srv));
        L->snap.srv = L->srv;
        L->snap.map = map_scaled;
        L->snap.map_ctx = L;
        snprintf(L->snap.path, sizeof L->snap.path, "/tmp/karuta-live-snap.%ld.jpg", (long)getpid());
        if (pthread_create(&L->snap.th, NULL, snap_main, &L->snap) == 0)
            L->snap.started = true;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    g_stop = 0;

    /* the match header and the layout must be there before the tracker can start; a
     * match file that has a match record but no layout, and has not grown for a second,
     * gets the layout from the source's first frame (as analyze reads it from the file) */
    int64_t waited = kr_clock_us();
    bool    told = false;
    while (!g_stop) {
        if (!tail_match(L))
            goto fail;
        take_posts(L);
        if (L->have_match && L->have_layout)
            break;
        if (L->have_match && kr_clock_us() - L->match_grew_us > 1000000) {
            L->layout_from_video = true;
            notice(L, false, "%s has no layout: reading it from the source", L->o.match);
            break;
        }
        if (!told && kr_clock_us() - waited > 1000000) {
            notice(L, true, "waiting for the match and layout records in %s", L->o.match);
            told = true;
        }
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
    if (!L->have_match || (!L->have_layout && !L->layout_from_video)) {
        ended = "signal";
        rc = 0;
        goto finish;
    }
    publish_status(L, "starting", NULL);
    set_state(L);

    /* ---- frames ---- */
    double  backoff = 0.5;
    int64_t last_status = 0, last_snap = 0;
    bool    playing = false;
    L->wall0_us = kr_clock_us();
    while (!g_stop) {
        if (!L->cap) {
            kr_status s = open_source(L);
            if (s != KR_OK) {
                L->source_failures++;
                char msg[400];
                snprintf(msg, sizeof msg, "%s", L->open_err);
                if (s == KR_ERR_EOF && L->o.exit_on_eof && L->frames) {
                    ended = "eof";
                    break;
                }
                if (s == KR_ERR_INVALID) {
                    kr_log(KR_LOG_ERROR, "live: --source: %s", msg);
                    goto fail;
                }
                if (s == KR_ERR_FORMAT)
                    goto fail; /* cannot calibrate or read the layout: said why */
                notice(L, true, "source failed (%s); retrying in %.1f s", msg, backoff);
                publish_status(L, "retrying", msg);
                for (int64_t until = kr_clock_us() + (int64_t)(backoff * 1e6); kr_clock_us() < until && !g_stop;) {
                    struct timespec ts = {0, 50000000L};
                    nanosleep(&ts, NULL);
                    tail_match(L);
                    take_posts(L);
                }
                backoff = backoff * 2 > L->o.retry_max_s ? L->o.retry_max_s : backoff * 2;
                continue;
            }
        }
        kr_frame_t f;
        kr_status  s = KR_OK;
        if (L->have_first) { /* the frame open_source took */
            f = L->first;
            L->have_first = false;
        } else
            s = kr_capture_next(L->cap, &f, 100);
        int64_t now = kr_clock_us();
        if (s == KR_OK) {
            int64_t cap_us = now, cap_wall = wall_ms();
            if (!playing) {
                playing = true;
                backoff = 0.5;
                publish_status(L, "playing", NULL);
            }
            if (!kr_pipe_tracker(L->pipe) && !setup_pipeline(L, &f))
                goto fail;
            if (L->frames == 0) {
                L->t0_us = f.t_us;
                L->wall0_us = now;
            }
            if (L->srv && !L->replay.started && !L->replay.n_slots && !replay_init(&L->replay, f.img.w, f.img.h,
                                                                                  REPLAY_FPS, L->o.out, L->srv))
                L->replay.n_slots = -1; /* no replay (said once) */
            if (f.img.w != L->frame_w || f.img.h != L->frame_h) {
                kr_log(KR_LOG_ERROR, "live: the source changed size (%dx%d, was %dx%d)", f.img.w, f.img.h,
                       L->frame_w, L->frame_h);
                goto fail;
            }
            if (!tail_match(L)) /* every frame: a reading record counts from the next frame */
                goto fail;
            take_posts(L);
            L->frames++;
            if (L->frames == 1)
                L->first_t_us = f.t_us;
            L->last_frame_t = f.t_us;
            /* when the frame was captured: the pipeline clock's own age of the frame when
             * GStreamer has one, else the least-delayed frame's offset */
            int64_t age = kr_capture_frame_age_us(L->cap);
            if (L->n_lat == 0 || cap_us - f.t_us < L->base_us)
                L->base_us = cap_us - f.t_us;
            int64_t born = age >= 0 ? cap_us - age : f.t_us + L->base_us;
            L->capt_t[L->capt_n % CAPT_RING] = f.t_us;
            L->capt_wall[L->capt_n % CAPT_RING] = cap_wall - (cap_us - born) / 1000;
            L->capt_mono[L->capt_n % CAPT_RING] = born;
            L->capt_n++;
            L->feed_born_us = born;
            /* the shared pipeline: tracker, detector (--reading-delay-ms behind), the
             * records due in time order to the files and the engine */
            const kr_track_frame *tf;
            /* the tracker's start-up pose fit (tens of ms, once, on the warm-up's last
             * frame): the source waits meanwhile, as for the calibration, so the frames
             * after it do not queue behind it (the pause is not lag: the pipeline's running
             * time stops with it) */
            const bool fit_pause = kr_pipe_fit_due(L->pipe) && !L->o.no_sync && kr_capture_pause(L->cap, 1) == KR_OK;
            kr_status fs = kr_pipe_feed(L->pipe, &f, &tf);
            if (fit_pause && kr_capture_pause(L->cap, 0) != KR_OK) {
                kr_log(KR_LOG_ERROR, "live: %s", kr_capture_error(L->cap));
                goto fail;
            }
            L->feed_born_us = 0;
            if (fs != KR_OK) {
                kr_log(KR_LOG_ERROR, "live: %s: %s", L->o.match, kr_pipe_error(L->pipe));
                goto fail;
            }
            live_flicker(L, &f);
            const kr_pipe_stats *ps = kr_pipe_get_stats(L->pipe);
            /* a sensor's noise: said once, after a second of frames */
            if (!L->noisy && f.t_us - L->first_t_us >= 1000000 && kr_pipe_noisy(ps)) {
                L->noisy = 1;
                notice(L, true, "the picture is noisy (the still mat changes by up to %d levels between frames, %d "
                       "on clean footage, on %lld of %lld frames so far): presses are timed less surely",
                       ps->noise_max, KR_TRACK_NOISE_CLEAN, (long long)ps->noisy_frames, (long long)ps->frames);
            }
            if (ps->frame_obs > 0 && L->srv) { /* something was seen: the ruling as it stands now */
                L->cur_settle_t = ps->frame_settle_t_us;
                kr_pipe_provisional(L->pipe, live_provisional, L);
                L->cur_settle_t = -1;
            }
            /* latency of this frame: from its arrival (processing only) and from its own
             * time on the source clock (capture, or when a played file shows it), which
             * includes any wait in the source's queue; the offset between the two clocks
             * is the smallest seen (the frame that waited least) */
            int64_t done = kr_clock_us();
            L->lat_ms[L->n_lat % LAT_MAX] = (float)((done - cap_us) / 1000.0);
            L->e2e_ms[L->n_lat % LAT_MAX] = (float)((done - born) / 1000.0);
            L->n_lat++;
            /* behind real time? (only meaningful when the source is paced) */
            if (!L->o.no_sync) {
                double lag = (cap_us - born) / 1000.0;
                if (lag > L->max_lag_ms) {
                    L->max_lag_ms = lag;
                    L->max_lag_t_us = f.t_us;
                }
                double *part = f.t_us - L->first_t_us >= 1000000 ? &L->max_lag_late_ms : &L->max_lag_early_ms;
                if (lag > *part)
                    *part = lag;
                bool behind = L->behind ? lag > 100 : lag > 250; /* hysteresis: no flapping */
                if (behind != L->behind) {
                    L->behind = behind;
                    if (behind)
                        kr_log(KR_LOG_WARN, "live: analysis is %.0f ms behind real time (frames are queued, %s)", lag,
                               L->o.max_behind_s > 0 ? "up to --max-behind-s" : "without limit");
                    publish_status(L, "playing", behind ? "behind real time" : NULL);
                }
            }
            if (tf && tf->light_steadied != L->steadied) { /* the lamps' flicker, said as it starts and ends */
                L->steadied = tf->light_steadied;
                if (L->steadied)
                    notice(L, true, "the light flickers (%.1f %% RMS) from %.3f s: the picture is steadied; presses are "
                           "timed less surely", 100 * tf->light_swing, f.t_us / 1e6);
                else
                    notice(L, false, "the light is steady again from %.3f s", f.t_us / 1e6);
            }
            if (f.gap_us > 0) { /* frames missing: the camera, or the queue's oldest dropped */
                L->n_gaps++;
                L->gap_ms += f.gap_us / 1000.0;
                notice(L, true, "%.0f ms of frames missing before %.3f s%s; rulings there need review",
                       f.gap_us / 1000.0, f.t_us / 1e6,
                       L->behind ? " (analysis behind real time: the oldest queued frames were dropped)" : "");
            }
            kr_image_t bgr; /* converted from the planes only for the frames the page shows */
            if (L->srv && replay_due(&L->replay, f.t_us) && kr_capture_frame_bgr(L->cap, &bgr) == KR_OK)
                replay_store(&L->replay, &bgr, f.t_us);
            if (L->srv && tf && now - last_snap > 300000 && kr_capture_frame_bgr(L->cap, &bgr) == KR_OK) {
                last_snap = now;
                snap_offer(&L->snap, &bgr, tf);
            }
            if (now - last_status > 1000000) {
                last_status = now;
                publish_status(L, "playing", NULL);
            }
            if (L->o.max_s > 0 && f.t_us - L->t0_us >= (int64_t)(L->o.max_s * 1e6)) {
                ended = "max-s";
                break;
            }
        } else if (s == KR_ERR_AGAIN) {
            tail_match(L);
            take_posts(L);
            if (now - last_status > 1000000) {
                last_status = now;
                publish_status(L, playing ? "waiting" : "starting", NULL);
            }
        } else {
            bool eof = s == KR_ERR_EOF;
            char msg[300];
            snprintf(msg, sizeof msg, "%s", eof ? "end of stream" : kr_capture_error(L->cap));
            playing = false;
            if (eof && L->o.exit_on_eof) {
                ended = "eof";
                break;
            }
            L->source_failures++;
            notice(L, true, "source %s: %s; retrying", eof ? "ended" : "failed", msg);
            publish_status(L, eof ? "ended" : "error", msg);
            for (int64_t until = kr_clock_us() + (int64_t)(backoff * 1e6); kr_clock_us() < until && !g_stop;) {
                struct timespec ts = {0, 50000000L};
                nanosleep(&ts, NULL);
                tail_match(L);
                take_posts(L);
            }
            backoff = backoff * 2 > L->o.retry_max_s ? L->o.retry_max_s : backoff * 2;
            if (kr_capture_reopen(L->cap) != KR_OK)
                notice(L, true, "source reopen failed: %s", kr_capture_error(L->cap));
        }
    }
    if (g_stop)
        ended = "signal";

finish:
    /* end: frames held for the detector, its pending observations, every queued record
     * in order, then the engine's end (records of the log beyond the last frame are
     * written and ruled without frames) */
    tail_match(L);
    take_posts(L);
    if (L->ev_fp && L->ru_fp && kr_pipe_finish(L->pipe) != KR_OK) {
        kr_log(KR_LOG_ERROR, "live: %s", kr_pipe_error(L->pipe));
        goto fail;
    }
    syncer_stop(&L->sync); /* every line durable before the summary says the run is done */
    if (L->sync.failed)
        kr_log(KR_LOG_WARN, "live: %s: making the files durable failed: %s", L->o.out, strerror(L->sync.failed));
    if (L->srv)
        publish_status(L, "stopped", ended);
    if (!write_summary(L, ended))
        kr_log(KR_LOG_WARN, "live: %s/summary.json: cannot write", L->o.out);
    kr_log(KR_LOG_INFO, "live: stopped (%s) after %" PRId64 " frames, %d rulings", ended, L->frames,
           kr_pipe_get_stats(L->pipe)->n_rulings);
    rc = 0;
fail:
    syncer_stop(&L->sync);
    snap_stop(&L->snap);
    replay_stop(&L->replay);
    kr_serve_http_destroy(L->srv);
    kr_capture_destroy(L->cap);
    kr_pipe_destroy(L->pipe);
    kr_calib_flicker_destroy(L->flk);
    kr_calib_destroy(L->calib);
    if (L->ev_fp)
        fclose(L->ev_fp);
    if (L->ru_fp)
        fclose(L->ru_fp);
    if (L->match_fp)
        fclose(L->match_fp);
    for (int i = 0; i < L->n_rulings_json; i++)
        free(L->rulings_json[i]);
    free(L->line);
    free(L->rec);
    free(L->lat_ms);
    free(L->e2e_ms);
    free(L->wlat_ms);
    free(L->slat_ms);
    free(L->rlat);
    free(L->sync.log_line);
    free(L->sync.log_us);
    pthread_mutex_destroy(&L->sync.lock);
    pthread_cond_destroy(&L->sync.cond);
    free(L);
    return rc;
}
