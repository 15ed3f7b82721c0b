/* kr_cmd_review.c - karuta-ref review: analyze (in process), one dispute clip per
 * decisive or disputed ruling (kr_clip, in process, two at a time), then index.html.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* syscall(SYS_gettid): a per-thread nice value for the early clips */
#include "kr_app.h"
#include "kr_app_analyze.h"
#include "kr_app_opts.h"
#include "kr_calib.h"
#include "kr_clip.h"
#include "kr_core.h"
#include "kr_json.h"
#include "kr_serve.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define REVIEW_MAX_JOBS 2 /* clips made at once (the machine has 2 cores) */

typedef struct review_opts {
    const char *video, *match, *calib, *out, *readout; /* readout: --readout-us, passed to analyze */
    double      before_s, after_s;
    int         slow;
    bool        no_clips, page_only, timings, retrack, clips_after;
} review_opts;

static void usage(FILE *f)
{
    fputs("usage: karuta-ref review VIDEO --match MATCH.jsonl [--calib CALIB.json] --out DIR\n"
          "                         [--readout-us N] [--before S] [--after S] [--slow N] [--no-clips]\n"
          "                         [--timings] [--retrack] [--clips-after]\n"
          "       karuta-ref review --page-only --out DIR [VIDEO]\n"
          "Runs analyze (DIR/events.jsonl, rulings.jsonl, summary.json), cuts one clip with a\n"
          "contact sheet per ruling that needs review or decides a take or fault\n"
          "(DIR/clips/seqN.mp4, .png, .json; drawn on: competition lines, tracked card and\n"
          "hand outlines, contacts with their time in ms, time code; see karuta-ref clip),\n"
          "and writes DIR/index.html, a self-contained review page.\n"
          "--readout-us N: the camera's rolling shutter (see karuta-ref analyze --help).\n"
          "--before/--after: seconds of clip around the deciding contact\n"
          "(default 1.0 / 1.5); --slow: clip slow-down factor (default 1).\n"
          "--page-only rewrites DIR/index.html from what DIR already holds.\n"
          "--timings: the clips' CPU per phase, summed, on stderr (benchmarks).\n"
          "--retrack: each clip tracks its own window instead of drawing what analyze tracked\n"
          "(the way before; for comparisons).\n"
          "--clips-after: all clips are made after analyze (by default they are made beside it\n"
          "as its rulings come, and kept when the final files agree; for comparisons).\n", f);
}

enum { O_MATCH = 1, O_CALIB, O_OUT, O_BEFORE, O_AFTER, O_SLOW, O_PAGE_ONLY, O_NO_CLIPS, O_TIMINGS, O_RETRACK,
       O_CLIPS_AFTER, O_READOUT };
static const kr_app_opt review_opts_table[] = {
    {"--match", NULL, O_MATCH, 1},       {"--calib", NULL, O_CALIB, 1},        {"--out", "-o", O_OUT, 1},
    {"--before", NULL, O_BEFORE, 1},     {"--after", NULL, O_AFTER, 1},        {"--slow", NULL, O_SLOW, 1},
    {"--page-only", NULL, O_PAGE_ONLY, 0}, {"--no-clips", NULL, O_NO_CLIPS, 0}, {"--timings", NULL, O_TIMINGS, 0},
    {"--retrack", NULL, O_RETRACK, 0},   {"--clips-after", NULL, O_CLIPS_AFTER, 0},
    {"--readout-us", NULL, O_READOUT, 1}, {NULL, NULL, 0, 0}};

/* 0 ok, -1 after --help, 2 usage error (message printed). */
static int parse_args(int argc, char **argv, review_opts *o)
{
    static const char cmd[] = "review";
    memset(o, 0, sizeof *o);
    o->before_s = 1.0;
    o->after_s = 1.5;
    o->slow = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        long long   n = 0;
        int         key = kr_app_opt_next(cmd, review_opts_table, argc, argv, &i, &v);
        switch (key) {
        case KR_APP_OPT_HELP:
            usage(stdout);
            return -1;
        case KR_APP_OPT_BAD:
            return 2;
        case KR_APP_OPT_ARG:
            if (o->video) {
                kr_log(KR_LOG_ERROR, "review: unexpected argument '%s'", a);
                return 2;
            }
            o->video = a;
            break;
        case O_PAGE_ONLY: o->page_only = true; break;
        case O_NO_CLIPS: o->no_clips = true; break;
        case O_TIMINGS: o->timings = true; break;
        case O_RETRACK: o->retrack = true; break;
        case O_CLIPS_AFTER: o->clips_after = true; break;
        case O_MATCH: o->match = v; break;
        case O_CALIB: o->calib = v; break;
        case O_READOUT:
            if (kr_app_opt_int(cmd, a, v, 0, KR_CALIB_MAX_READOUT_US, &n))
                return 2;
            o->readout = v;
            break;
        case O_OUT: o->out = v; break;
        case O_SLOW:
            if (kr_app_opt_int(cmd, a, v, 1, 64, &n))
                return 2;
            o->slow = (int)n;
            break;
        default: /* O_BEFORE, O_AFTER */
            if (kr_app_opt_double(cmd, a, v, 0, 60, key == O_BEFORE ? &o->before_s : &o->after_s))
                return 2;
            break;
        }
    }
    if (!o->out || (!o->page_only && (!o->video || !o->match))) {
        kr_log(KR_LOG_ERROR, "review: need VIDEO, --match MATCH.jsonl and --out DIR (see --help)");
        return 2;
    }
    if (o->before_s + o->after_s <= 0) {
        kr_log(KR_LOG_ERROR, "review: --before + --after must be a positive window");
        return 2;
    }
    return 0;
}

static char *path_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char  *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Removes a directory tree we created (only regular files and directories). */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char *p = path_join(dir, e->d_name);
            if (!p)
                continue;
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(p);
            else
                remove(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Moves every entry of src into dst (files replace; directories merge). */
static bool move_into(const char *src, const char *dst, const char *skip_last)
{
    DIR *d = opendir(src);
    bool ok = d != NULL;
    if (!d)
        return false;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            (skip_last && !strcmp(e->d_name, skip_last)))
            continue;
        char *s = path_join(src, e->d_name), *t = path_join(dst, e->d_name);
        struct stat st;
        if (!s || !t)
            ok = false;
        else if (lstat(s, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (mkdir(t, 0777) != 0 && errno != EEXIST)
                ok = false;
            else
                ok = move_into(s, t, NULL);
            rmdir(s);
        } else if (rename(s, t) != 0)
            ok = false;
        if (!ok)
            kr_log(KR_LOG_ERROR, "review: cannot move %s to %s: %s", s ? s : "?", t ? t : "?", strerror(errno));
        free(s);
        free(t);
    }
    closedir(d);
    if (ok && skip_last) {
        char *s = path_join(src, skip_last), *t = path_join(dst, skip_last);
        if (s && t && is_file(s) && rename(s, t) != 0) {
            kr_log(KR_LOG_ERROR, "review: cannot move %s to %s: %s", s, t, strerror(errno));
            ok = false;
        }
        free(s);
        free(t);
    }
    return ok;
}

/* Clip sidecar: what the page needs to know about a clip. */
static bool write_sidecar(const char *path, const kr_serve_clip_t *c)
{
    kr_outfile_t of;
    if (kr_outfile_open(path, &of) != KR_OK)
        return false;
    fprintf(of.fp, "{\"seq\":%d,\"video\":\"%s\",", (int)c->seq, c->video);
    if (c->sheet)
        fprintf(of.fp, "\"sheet\":\"%s\",", c->sheet);
    fprintf(of.fp, "\"fps\":%.6f,\"start_us\":%" PRId64 ",\"slow\":%d}\n", c->fps, c->start_us, (int)c->slow);
    return kr_outfile_commit(&of) == KR_OK;
}

/* Reads a sidecar written by write_sidecar (fixed key order, our own format). */
static bool read_sidecar(const char *path, kr_serve_clip_t *c, char *video, char *sheet, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[1024];
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!ok)
        return false;
    memset(c, 0, sizeof *c);
    int         seq = 0, slow = 1;
    double      fps = 0;
    long long   start = 0;
    const char *p = strstr(line, "\"video\":\"");
    if (sscanf(line, "{\"seq\":%d", &seq) != 1 || !p)
        return false;
    p += 9;
    size_t n = strcspn(p, "\"");
    if (n >= cap)
        return false;
    memcpy(video, p, n);
    video[n] = '\0';
    c->sheet = NULL;
    if ((p = strstr(line, "\"sheet\":\""))) {
        p += 9;
        n = strcspn(p, "\"");
        if (n >= cap)
            return false;
        memcpy(sheet, p, n);
        sheet[n] = '\0';
        c->sheet = sheet;
    }
    if (!(p = strstr(line, "\"fps\":")) || sscanf(p, "\"fps\":%lf", &fps) != 1)
        return false;
    if (!(p = strstr(line, "\"start_us\":")) || sscanf(p, "\"start_us\":%lld", &start) != 1)
        return false;
    if ((p = strstr(line, "\"slow\":")))
        sscanf(p, "\"slow\":%d", &slow);
    c->seq = seq;
    c->video = video;
    c->fps = fps;
    c->start_us = start;
    c->slow = slow;
    return fps > 0;
}

/* Adds the clips described by DIR/clips/seq*.json. */
static void add_clips_from_dir(kr_serve_review_t *r, const char *dir)
{
    char *cd = path_join(dir, "clips");
    DIR  *d = cd ? opendir(cd) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (strncmp(e->d_name, "seq", 3) || n < 6 || strcmp(e->d_name + n - 5, ".json"))
                continue;
            char *p = path_join(cd, e->d_name);
            char  video[512], sheet[512];
            kr_serve_clip_t c;
            if (p && read_sidecar(p, &c, video, sheet, sizeof video)) {
                char *vp = path_join(dir, video);
                if (vp && is_file(vp))
                    kr_serve_review_add_clip(r, &c);
                free(vp);
            }
            free(p);
        }
        closedir(d);
    }
    free(cd);
}

/* ---- clips, in process: a small pool of threads, each with its own kr_clip_t ---- */
typedef struct clip_pool {
    pthread_mutex_t             mu;
    const kr_serve_clip_want_t *want;
    size_t                      n, next;
    const review_opts          *o;
    const char                 *stage;
    const kr_calib_t           *calib; /* shared, read only */
    const kr_clip_events_t     *ev;    /* shared, read only */
    kr_clip_config              cfg;
    const kr_clip_tracks_t     *tracks; /* analyze's tracked frames, shared, read only */
    kr_clip_result             *res;   /* n entries */
    int                        *ok;    /* n entries; 1 before the start: made already (early) */
} clip_pool;

static void *clip_worker(void *arg)
{
    clip_pool *p = arg;
    kr_clip_t *c = NULL;
    char err[512] = "";
    if (kr_clip_create(&p->cfg, p->calib, p->ev, &c, err, sizeof err) != KR_OK) {
        kr_log(KR_LOG_ERROR, "review: %s", err);
        return NULL;
    }
    kr_clip_set_tracks(c, p->tracks);
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->next < p->n && p->ok[p->next])
            p->next++;
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            break;
        char rel[64];
        snprintf(rel, sizeof rel, "clips/seq%d.mp4", (int)p->want[i].seq);
        char *out = path_join(p->stage, rel);
        if (!out)
            continue;
        if (kr_clip_export(c, p->o->video, p->want[i].at_us, out, &p->res[i]) == KR_OK) {
            p->ok[i] = 1;
            if (kr_clip_last_error(c)[0])
                kr_log(KR_LOG_WARN, "review: reading %d: %s", (int)p->want[i].seq, kr_clip_last_error(c));
        } else {
            kr_log(KR_LOG_WARN, "review: no clip for reading %d: %s", (int)p->want[i].seq, kr_clip_last_error(c));
        }
        free(out);
    }
    kr_clip_destroy(c);
    return NULL;
}

/* Describes a finished clip to the page and to its sidecar. */
static void finish_clip(const review_opts *o, const char *stage, kr_serve_review_t *r, int32_t seq,
                        const kr_clip_result *res)
{
    char mp4[64], png[64], side_rel[64];
    snprintf(mp4, sizeof mp4, "clips/seq%d.mp4", (int)seq);
    snprintf(png, sizeof png, "clips/seq%d.png", (int)seq);
    snprintf(side_rel, sizeof side_rel, "clips/seq%d.json", (int)seq);
    char *side = path_join(stage, side_rel);
    kr_serve_clip_t c = {seq, mp4, png, res->out_fps, res->first_us, o->slow};
    kr_serve_review_add_clip(r, &c);
    if (!side || !write_sidecar(side, &c))
        kr_log(KR_LOG_WARN, "review: cannot write %s", side ? side : side_rel);
    free(side);
}


/* ---- clips made while analyze runs --------------------------------------------
 * analyze leaves part of the two cores idle (its decoding thread and tracking thread
 * do not fill them). So a worker thread of lower priority starts with analyze's
 * calibration and makes the
 * clip of each ruling that wants one as soon as analyze has tracked its window (and
 * EARLY_LAG_US more, for the window's contacts to be written): drawn from what analyze
 * tracked, with the contacts written so far. When analyze is done, each early clip is
 * kept only if the final files want it at the same moment and its window's contacts are
 * the final ones (else it is made again): the clips are the ones made after analyze. */
#define EARLY_LAG_US 3000000

typedef struct early_clip {
    int32_t          seq;
    int64_t          at_us;
    int              ok;         /* made */
    kr_clip_result   res;
    kr_clip_contact *contacts;   /* owned: the contacts it was drawn with, near its window */
    size_t           n_contacts;
    uint64_t         places;     /* kr_clip_events_places_digest of the records it was drawn with */
} early_clip;

typedef struct early_state {
    pthread_mutex_t         mu;
    pthread_cond_t          cv;
    const review_opts      *o;
    const char             *stage;
    kr_clip_config          cfg;
    const kr_clip_tracks_t *tracks; /* analyze's frames, being recorded */
    const kr_calib_t       *calib;  /* analyze's (from the started hook) */
    FILE                   *log;    /* open_memstream: the records analyze wrote so far */
    char                   *log_buf;
    size_t                  log_len;
    early_clip             *q;      /* wanted so far, in ruling order; owned */
    size_t                  n, cap, next;
    int                     ended;  /* analyze returned: no new clip is started */
    int                     failed; /* out of memory: no more early clips */
    pthread_t               th;
    int                     th_started;
    id_t                    tid;  /* the worker's thread id once it lowered its priority (0: not) */
    int                     prio; /* its priority before */
} early_state;

/* Contacts of ev within [a, b] (sorted), as a pointer into ev and a count. */
static const kr_clip_contact *contacts_in(const kr_clip_events_t *ev, int64_t a, int64_t b, size_t *n)
{
    const kr_clip_contact *c = NULL;
    size_t m = ev ? kr_clip_events_contacts(ev, &c) : 0, i = 0, j;
    while (i < m && c[i].t_us < a)
        i++;
    for (j = i; j < m && c[j].t_us <= b; j++)
        ;
    *n = j - i;
    return c ? c + i : NULL;
}

/* The window (and a second around it: the labels shown) whose contacts a clip draws. */
static void contact_span(const early_state *e, int64_t at_us, int64_t *a, int64_t *b)
{
    *a = at_us - e->cfg.before_us - 1000000;
    *b = at_us + e->cfg.after_us + 1000000;
}

static void *early_main(void *arg)
{
    early_state *e = arg;
    /* below analyze's threads (10 nice levels lower): the clips take the cores' idle
     * time and do not slow analyze down (when the machine is busy they wait; what is
     * left is made after analyze, two at a time) */
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int  prio = getpriority(PRIO_PROCESS, tid);
    pthread_mutex_lock(&e->mu);
    if (errno == 0 && !e->ended && setpriority(PRIO_PROCESS, tid, prio + 10 > 19 ? 19 : prio + 10) == 0) {
        e->tid = tid;
        e->prio = prio;
    }
    pthread_mutex_unlock(&e->mu);
    for (;;) {
        pthread_mutex_lock(&e->mu);
        while (e->next >= e->n && !e->ended && !e->failed)
            pthread_cond_wait(&e->cv, &e->mu);
        if (e->next >= e->n || e->ended || e->failed) {
            pthread_mutex_unlock(&e->mu);
            break;
        }
        size_t  i = e->next++;
        int32_t seq = e->q[i].seq;
        int64_t at = e->q[i].at_us;
        pthread_mutex_unlock(&e->mu);
        int64_t start = at - e->cfg.before_us < 0 ? 0 : at - e->cfg.before_us;
        if (!kr_clip_tracks_wait(e->tracks, start, at + e->cfg.after_us + EARLY_LAG_US))
            continue; /* the run ended first: made after analyze, as any other */
        pthread_mutex_lock(&e->mu);
        if (e->ended) { /* analyze is done: the clips after it take over */
            pthread_mutex_unlock(&e->mu);
            break;
        }
        kr_clip_events_t *ev = NULL;
        char              err[512] = "";
        kr_status st = fflush(e->log) == 0 ? kr_clip_events_load_text("events.jsonl", e->log_buf, e->log_len, 1,
                                                                      &ev, err, sizeof err)
                                           : KR_ERR_NOMEM;
        pthread_mutex_unlock(&e->mu);
        kr_clip_t *c = NULL;
        char       rel[64];
        snprintf(rel, sizeof rel, "clips/seq%d.mp4", (int)seq);
        char          *out = path_join(e->stage, rel);
        kr_clip_result res;
        memset(&res, 0, sizeof res);
        int ok = st == KR_OK && out && kr_clip_create(&e->cfg, e->calib, ev, &c, err, sizeof err) == KR_OK;
        if (ok) {
            kr_clip_set_tracks(c, e->tracks);
            ok = kr_clip_export(c, e->o->video, at, out, &res) == KR_OK && res.from_tracks &&
                 !kr_clip_last_error(c)[0]; /* a warning: made again after analyze, to say it */
        }
        int64_t a, b;
        size_t  nc = 0;
        contact_span(e, at, &a, &b);
        const kr_clip_contact *cc = contacts_in(ev, a, b, &nc);
        kr_clip_contact *copy = ok && nc ? malloc(nc * sizeof *copy) : NULL;
        if (copy)
            memcpy(copy, cc, nc * sizeof *copy);
        if (nc && !copy)
            ok = 0;
        uint64_t places = kr_clip_events_places_digest(ev, b);
        pthread_mutex_lock(&e->mu);
        e->q[i].places = places;
        e->q[i].ok = ok;
        e->q[i].res = res;
        e->q[i].contacts = copy;
        e->q[i].n_contacts = ok ? nc : 0;
        pthread_mutex_unlock(&e->mu);
        kr_clip_destroy(c);
        kr_clip_events_destroy(ev);
        free(out);
    }
    return NULL;
}

/* analyze's frames into the store the clips draw from */
static kr_status record_frame(void *ctx, const kr_track_t *trk, const kr_track_frame *tf)
{
    early_state *e = ctx;
    kr_clip_tracks_add((kr_clip_tracks_t *)e->tracks, trk, tf); /* out of memory: it stops recording, the
                                                                   later clips track */
    return KR_OK;
}

static void early_started(void *ctx, const kr_calib_t *calib)
{
    early_state *e = ctx;
    pthread_mutex_lock(&e->mu);
    e->calib = calib;
    e->th_started = !e->failed && pthread_create(&e->th, NULL, early_main, e) == 0;
    pthread_mutex_unlock(&e->mu);
}

static void early_record(void *ctx, const kr_rules_record *r)
{
    early_state *e = ctx;
    pthread_mutex_lock(&e->mu);
    if (!e->failed && kr_json_write_record(e->log, r) != KR_OK)
        e->failed = 1;
    pthread_mutex_unlock(&e->mu);
}

/* A ruling as written: does it want a clip, and where (with the records so far)? */
static void early_output(void *ctx, const kr_rules_output *o)
{
    early_state *e = ctx;
    char        *line = NULL;
    size_t       n = 0;
    FILE        *f = open_memstream(&line, &n);
    if (!f || kr_json_write_output(f, o) != KR_OK) {
        if (f)
            fclose(f);
        free(line);
        return;
    }
    fclose(f);
    kr_serve_review_t   *r = NULL;
    kr_serve_clip_want_t want;
    size_t               wanted = 0;
    pthread_mutex_lock(&e->mu);
    if (!e->failed && fflush(e->log) == 0 && kr_serve_review_create(&r) == KR_OK &&
        kr_serve_review_load_log_text(r, "events.jsonl", e->log_buf ? e->log_buf : "") == KR_OK &&
        kr_serve_review_load_rulings_text(r, "rulings.jsonl", line) == KR_OK)
        wanted = kr_serve_review_clip_wants(r, &want, 1);
    if (wanted == 1) {
        if (e->n == e->cap) {
            size_t      nc = e->cap ? 2 * e->cap : 64;
            early_clip *q = realloc(e->q, nc * sizeof *q);
            if (q) {
                e->q = q;
                e->cap = nc;
            }
        }
        if (e->n < e->cap) {
            memset(&e->q[e->n], 0, sizeof e->q[e->n]);
            e->q[e->n].seq = want.seq;
            e->q[e->n].at_us = want.at_us;
            e->n++;
            pthread_cond_broadcast(&e->cv);
        } else {
            e->failed = 1;
        }
    }
    pthread_mutex_unlock(&e->mu);
    kr_serve_review_destroy(r);
    free(line);
}

/* Ends the worker (analyze has returned) and waits for it. */
static void early_stop(early_state *e)
{
    pthread_mutex_lock(&e->mu);
    e->ended = 1;
    if (e->tid) /* its last clip is waited for: back to analyze's priority (when allowed) */
        setpriority(PRIO_PROCESS, e->tid, e->prio);
    e->tid = 0;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    if (e->th_started)
        pthread_join(e->th, NULL);
    e->th_started = 0;
}

static void early_free(early_state *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->q[i].contacts);
    free(e->q);
    if (e->log)
        fclose(e->log);
    free(e->log_buf);
    pthread_cond_destroy(&e->cv);
    pthread_mutex_destroy(&e->mu);
}

static int same_contact(const kr_clip_contact *a, const kr_clip_contact *b)
{
    return a->t_us == b->t_us && !strcmp(a->type, b->type) && !strcmp(a->player, b->player) && a->card == b->card &&
           a->has_pos == b->has_pos && a->x_mm == b->x_mm && a->y_mm == b->y_mm;
}

/* The early clip of want w if it was drawn with ev's contacts (the final ones): its
 * index; -1 if none (the clip is then made now). */
static long early_match(const early_state *e, const kr_serve_clip_want_t *w, const kr_clip_events_t *ev)
{
    if (!e)
        return -1;
    for (size_t i = 0; i < e->n; i++) {
        const early_clip *q = &e->q[i];
        if (!q->ok || q->seq != w->seq)
            continue;
        if (q->at_us != w->at_us)
            return -1;
        int64_t a, b;
        size_t  nc = 0;
        contact_span(e, q->at_us, &a, &b);
        const kr_clip_contact *cc = contacts_in(ev, a, b, &nc);
        /* the cards' places too: a send or rearrange written after the clip was made
         * would move a card outline or label */
        if (nc != q->n_contacts || kr_clip_events_places_digest(ev, b) != q->places)
            return -1;
        for (size_t k = 0; k < nc; k++)
            if (!same_contact(&cc[k], &q->contacts[k]))
                return -1;
        return (long)i;
    }
    return -1;
}

/* The review's clip settings (the early clips' and the later ones'). */
static void review_clip_config(const review_opts *o, kr_clip_config *cfg)
{
    kr_clip_config_default(cfg);
    cfg->before_us = (int64_t)llround(o->before_s * 1e6);
    cfg->after_us = (int64_t)llround(o->after_s * 1e6);
    cfg->slow = o->slow;
    /* tracker warm-up: half a second before each clip (not kr_clip's 1 s): the background
     * comes from the first frame anyway, and review's budget is 1.5x analyze */
    cfg->warmup_us = 500000;
    /* CRF 23 (x264's default) rather than 20: 8 % less encoding CPU, files 30 % smaller */
    cfg->crf = 23;
    /* one clip per core, each single-threaded (less synchronisation than 2 x auto) */
    cfg->threads = 1;
}

/* calib: analyze's (borrowed; NULL: none, the clips then have no lines or outlines);
 * tracks: what analyze tracked (borrowed; NULL: each clip tracks its window). */
static void make_clips(const review_opts *o, const char *stage, kr_serve_review_t *r, const kr_calib_t *calib,
                       const kr_clip_tracks_t *tracks, const early_state *early)
{
    size_t                n = kr_serve_review_clip_wants(r, NULL, 0);
    kr_serve_clip_want_t *w = calloc(n ? n : 1, sizeof *w);
    kr_clip_result       *res = calloc(n ? n : 1, sizeof *res);
    int                  *ok = calloc(n ? n : 1, sizeof *ok);
    char                 *events = path_join(stage, "events.jsonl");
    char                 *clips = path_join(stage, "clips");
    kr_clip_events_t     *ev = NULL;
    char                  err[512] = "";
    if (!n)
        goto fail;
    if (!w || !res || !ok || !events || !clips || (mkdir(clips, 0777) != 0 && errno != EEXIST)) {
        kr_log(KR_LOG_ERROR, "review: cannot prepare clips");
        goto fail;
    }
    kr_serve_review_clip_wants(r, w, n);
    /* contacts, layout and rearranges from the merged log analyze wrote */
    if (kr_clip_events_load(events, 1, &ev, err, sizeof err) != KR_OK)
        kr_log(KR_LOG_WARN, "review: clips without contacts: %s", err);
    if (!calib)
        kr_log(KR_LOG_WARN, "review: clips without lines or outlines: analyze gave no calibration");
    clip_pool p;
    memset(&p, 0, sizeof p);
    pthread_mutex_init(&p.mu, NULL);
    p.want = w;
    p.n = n;
    p.o = o;
    p.stage = stage;
    p.calib = calib;
    p.ev = ev;
    p.res = res;
    p.ok = ok;
    p.tracks = tracks;
    review_clip_config(o, &p.cfg);
    /* the clips made while analyze ran, when the final files agree with what they drew */
    size_t n_early = 0;
    for (size_t i = 0; i < n; i++) {
        long k = early_match(early, &w[i], ev);
        if (k >= 0) {
            res[i] = early->q[k].res;
            ok[i] = 1;
            n_early++;
        }
    }
    for (size_t k = 0; early && k < early->n; k++) { /* the others' files go (or are made again) */
        int used = 0;
        for (size_t i = 0; i < n && !used; i++)
            used = ok[i] && w[i].seq == early->q[k].seq;
        if (!early->q[k].ok || used)
            continue;
        for (int x = 0; x < 2; x++) {
            char rel[64];
            snprintf(rel, sizeof rel, "clips/seq%d.%s", (int)early->q[k].seq, x ? "png" : "mp4");
            char *f = path_join(stage, rel);
            if (f)
                remove(f);
            free(f);
        }
    }
    size_t todo = n - n_early;
    size_t n_thr = todo < REVIEW_MAX_JOBS ? todo : REVIEW_MAX_JOBS;
    if (n_thr < 2)
        p.cfg.threads = 0; /* one clip left: automatic threads */
    pthread_t th[REVIEW_MAX_JOBS];
    size_t started = 0;
    for (size_t i = 1; i < n_thr; i++)
        if (pthread_create(&th[started], NULL, clip_worker, &p) == 0)
            started++;
    clip_worker(&p); /* this thread works too */
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&p.mu);
    if (o->timings) {
        int64_t cpu[KR_CLIP_N_PHASES] = {0}, all = 0, frames = 0, decoded = 0;
        size_t  drawn_from_analyze = 0;
        for (size_t i = 0; i < n; i++)
            if (ok[i]) {
                for (int k = 0; k < KR_CLIP_N_PHASES; k++)
                    cpu[k] += res[i].phase_cpu_us[k];
                frames += res[i].n_frames;
                decoded += res[i].n_decoded;
                drawn_from_analyze += res[i].from_tracks != 0;
            }
        fprintf(stderr, "review: %zu clips (%zu drawn from analyze's tracking, %zu made while it ran), %lld frames, %lld "
                        "decoded; CPU per phase, all clips (ms):\n",
                n, drawn_from_analyze, n_early, (long long)frames, (long long)decoded);
        for (int k = 0; k < KR_CLIP_N_PHASES; k++) {
            fprintf(stderr, "  %-20s %8.1f\n", kr_clip_phase_name(k), cpu[k] / 1e3);
            all += cpu[k];
        }
        fprintf(stderr, "  %-20s %8.1f\n", "total", all / 1e3);
        fprintf(stderr, "review: analyze's tracking kept for the clips: %zu frames, %.1f MB\n",
                kr_clip_tracks_frames(tracks), kr_clip_tracks_bytes(tracks) / 1048576.0);
    }
    size_t failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (ok[i])
            finish_clip(o, stage, r, w[i].seq, &res[i]);
        else
            failed++;
    }
    if (failed)
        kr_log(KR_LOG_WARN, "review: %zu of %zu clips failed; their rulings show no clip", failed, n);
fail:
    kr_clip_events_destroy(ev);
    free(w);
    free(res);
    free(ok);
    free(events);
    free(clips);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int page_only(const review_opts *o)
{
    kr_serve_review_t *r = NULL;
    int                rc = 1;
    char *ev = path_join(o->out, "events.jsonl"), *ru = path_join(o->out, "rulings.jsonl");
    char *idx = path_join(o->out, "index.html");
    if (!ev || !ru || !idx || kr_serve_review_create(&r) != KR_OK)
        goto fail;
    if (kr_serve_review_load_log(r, ev) != KR_OK || kr_serve_review_load_rulings(r, ru) != KR_OK) {
        kr_log(KR_LOG_ERROR, "review: %s", kr_serve_review_error(r));
        goto fail;
    }
    if (o->video)
        kr_serve_review_set_source(r, base_name(o->video));
    /* what analyze said about the footage (an older DIR may have no summary) */
    char *su = path_join(o->out, "summary.json");
    kr_status sst = !su ? KR_ERR_NOMEM : access(su, F_OK) == 0 ? kr_serve_review_load_summary(r, su) : KR_OK;
    free(su);
    if (sst != KR_OK) {
        kr_log(KR_LOG_ERROR, "review: %s", kr_serve_review_error(r));
        goto fail;
    }
    add_clips_from_dir(r, o->out);
    if (kr_serve_review_write_file(r, idx) != KR_OK) {
        kr_log(KR_LOG_ERROR, "review: %s", kr_serve_review_error(r));
        goto fail;
    }
    rc = 0;
fail:
    kr_serve_review_destroy(r);
    free(ev);
    free(ru);
    free(idx);
    return rc;
}

int kr_cmd_review(int argc, char **argv)
{
    review_opts o;
    int         rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.page_only)
        return page_only(&o);

    if (access(o.video, R_OK) != 0) {
        kr_log(KR_LOG_ERROR, "review: %s: %s", o.video, strerror(errno));
        return 1;
    }
    if (access(o.match, R_OK) != 0) {
        kr_log(KR_LOG_ERROR, "review: %s: %s", o.match, strerror(errno));
        return 1;
    }
    /* create DIR (and missing parents); remember the topmost folder made, to remove
     * it again if the run fails */
    char *made_out = NULL;
    {
        size_t n = strlen(o.out);
        char  *p = malloc(n + 1);
        if (!p)
            return 1;
        memcpy(p, o.out, n + 1);
        for (size_t i = 1; i <= n; i++) {
            if (p[i] != '/' && p[i] != '\0')
                continue;
            char c = p[i];
            p[i] = '\0';
            if (mkdir(p, 0777) == 0) {
                if (!made_out)
                    made_out = strdup(p);
            } else if (errno != EEXIST || !is_dir(p)) {
                kr_log(KR_LOG_ERROR, "review: %s: cannot create the output folder: %s", p,
                       errno == EEXIST ? "not a directory" : strerror(errno));
                free(p);
                if (made_out)
                    remove_tree(made_out);
                free(made_out);
                return 1;
            }
            p[i] = c;
        }
        free(p);
    }
    rc = 1;
    early_state early;
    memset(&early, 0, sizeof early);
    pthread_mutex_init(&early.mu, NULL);
    pthread_cond_init(&early.cv, NULL);
    early.o = &o;
    review_clip_config(&o, &early.cfg);
    kr_serve_review_t *r = NULL;
    kr_clip_tracks_t  *tracks = NULL;
    kr_calib_t        *calib = NULL;
    char              *stage = path_join(o.out, ".review-XXXXXX");
    char *ev = NULL, *ru = NULL, *idx = NULL, *su = NULL;
    if (!stage || !mkdtemp(stage)) {
        kr_log(KR_LOG_ERROR, "review: %s: cannot write in the output folder: %s", o.out, strerror(errno));
        free(stage);
        stage = NULL;
        goto fail;
    }
    chmod(stage, 0755);

    /* 1. analyze, in process, into the staging folder */
    {
        char *av[12];
        int   ac = 0;
        av[ac++] = (char *)"analyze";
        av[ac++] = (char *)o.video;
        av[ac++] = (char *)"--match";
        av[ac++] = (char *)o.match;
        if (o.calib) {
            av[ac++] = (char *)"--calib";
            av[ac++] = (char *)o.calib;
        }
        if (o.readout) {
            av[ac++] = (char *)"--readout-us";
            av[ac++] = (char *)o.readout;
        }
        av[ac++] = (char *)"--out";
        av[ac++] = stage;
        av[ac] = NULL;
        optind = 0; /* analyze may use getopt: start it afresh */
        /* what analyze tracks is kept for the clips (they draw it instead of tracking
         * again); without memory for it each clip tracks its own window */
        kr_app_analyze_hook hook;
        memset(&hook, 0, sizeof hook);
        hook.calib_out = &calib;
        if (!o.no_clips && !o.retrack && kr_clip_tracks_create(0, &tracks) == KR_OK) {
            early.tracks = tracks;
            hook.ctx = &early;
            hook.frame = record_frame;
        }
        if (tracks && !o.clips_after && (early.log = open_memstream(&early.log_buf, &early.log_len))) {
            early.stage = stage;
            char *cd = path_join(stage, "clips");
            if (cd)
                mkdir(cd, 0777);
            free(cd);
            /* and the clips are made beside it as its rulings come */
            hook.started = early_started;
            hook.record = early_record;
            hook.output = early_output;
        }
        int arc = kr_app_analyze_hooked(ac, av, &hook);
        kr_clip_tracks_finish(tracks); /* the run has ended: no clip waits for more frames */
        early_stop(&early);
        if (arc != 0) { /* analyze said why, in one line; nothing is left in DIR */
            rc = arc == 2 ? 1 : arc;
            goto fail;
        }
    }
    ev = path_join(stage, "events.jsonl");
    ru = path_join(stage, "rulings.jsonl");
    idx = path_join(stage, "index.html");
    if (!ev || !ru || !idx || kr_serve_review_create(&r) != KR_OK)
        goto fail;
    if (kr_serve_review_load_log(r, ev) != KR_OK || kr_serve_review_load_rulings(r, ru) != KR_OK) {
        kr_log(KR_LOG_ERROR, "review: %s", kr_serve_review_error(r));
        goto fail;
    }
    kr_serve_review_set_source(r, base_name(o.video));
    su = path_join(stage, "summary.json");
    if (!su || kr_serve_review_load_summary(r, su) != KR_OK) {
        kr_log(KR_LOG_ERROR, "review: %s", su ? kr_serve_review_error(r) : "out of memory");
        goto fail;
    }

    /* 2. clips (those made while analyze ran are kept when the final files agree) */
    if (!o.no_clips)
        make_clips(&o, stage, r, calib, tracks, &early);

    /* 3. the page, then everything into DIR (index.html last) */
    if (kr_serve_review_write_file(r, idx) != KR_OK) {
        kr_log(KR_LOG_ERROR, "review: %s", kr_serve_review_error(r));
        goto fail;
    }
    if (!move_into(stage, o.out, "index.html"))
        goto fail;
    rmdir(stage);
    rc = 0;
fail:
    if (rc != 0 && stage)
        remove_tree(stage);
    if (rc != 0 && made_out)
        remove_tree(made_out);
    free(made_out);
    early_stop(&early); /* (stopped already unless analyze did not start) */
    early_free(&early);
    kr_clip_tracks_destroy(tracks);
    kr_calib_destroy(calib);
    kr_serve_review_destroy(r);
    free(stage);
    free(ev);
    free(ru);
    free(idx);
    free(su);
    return rc;
}
