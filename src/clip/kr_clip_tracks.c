/* kr_clip_tracks.c - the tracked state of every frame of a run (card outlines, hands and
 * their region runs), recorded compactly while `analyze` tracks, so that review's clips
 * draw what analyze saw instead of tracking the window again.
 * SPDX-License-Identifier: MIT */
#include "kr_clip.h"
#include "kr_clip_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One frame's record in the arena (8-byte aligned): a head, n_cards cards, then the
 * hand regions' runs (A's, then B's). Positions in 1/8 mm (int16: +-4095 mm, far
 * beyond the mat's warped area), runs in mat pixels. */
typedef struct rec_head {
    int64_t  t_us;
    float    lead[2][2]; /* leading points, mm */
    uint16_t n_cards;
    uint16_t n_runs[2];
    uint8_t  ready;
    uint8_t  present[2];
    uint8_t  pad;
} rec_head;

typedef struct rec_card {
    uint8_t id, flags;
    int16_t c[8]; /* corners, 1/8 mm */
    int16_t x, y; /* centre, 1/8 mm */
} rec_card;

typedef struct rec_run {
    uint16_t y, x0, x1; /* row, first and last column (inclusive) */
} rec_run;

enum { F_MOVING = 1, F_DISPLACED = 2, F_OUT = 4, F_LOST = 8, F_SEEN = 16 };

#define Q_MM 8.0                 /* int16 units per mm */
#define MAX_RUNS_PER_HAND 16384 /* a hand region's runs beyond this are dropped */

struct kr_clip_tracks {
    size_t   max_bytes;
    uint8_t *arena; /* owned */
    size_t   used, cap;
    struct rec_ix {
        int64_t t_us; /* increasing */
        size_t  off;  /* in arena */
    } *ix;            /* owned: one per record */
    size_t   n, cap_n;
    int      full;     /* max_bytes reached: later frames were not recorded */
    int      finished; /* kr_clip_tracks_finish called: the run ended after the last record */
    int      mat_w, mat_h;
    double   x0_mm, y0_mm, mm_per_px; /* mat px -> mm: x = x0 + u s, y = y0 - v s */
    rec_run *scratch[2]; /* owned: one frame's runs per hand while recording */
    /* readers may run while frames are added (review's clips beside its analyze): the
     * arena and index move when they grow, so adding a record and reading one hold mu */
    pthread_mutex_t mu;
    pthread_cond_t  cv; /* broadcast when a record reaches wake_us or the run ends */
    int64_t         wake_us; /* the earliest end a waiter waits for (INT64_MAX: none) */
    int             sync_ok;
};

kr_status kr_clip_tracks_create(size_t max_bytes, kr_clip_tracks_t **out)
{
    if (!out)
        return KR_ERR_INVALID;
    *out = NULL;
    kr_clip_tracks_t *s = calloc(1, sizeof *s);
    if (!s)
        return KR_ERR_NOMEM;
    s->max_bytes = max_bytes ? max_bytes : (size_t)512 << 20;
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s);
        return KR_ERR_NOMEM;
    }
    if (pthread_cond_init(&s->cv, NULL) != 0) {
        pthread_mutex_destroy(&s->mu);
        free(s);
        return KR_ERR_NOMEM;
    }
    s->sync_ok = 1;
    s->wake_us = INT64_MAX;
    s->scratch[0] = malloc(sizeof(rec_run) * MAX_RUNS_PER_HAND);
    s->scratch[1] = malloc(sizeof(rec_run) * MAX_RUNS_PER_HAND);
    if (!s->scratch[0] || !s->scratch[1]) {
        kr_clip_tracks_destroy(s);
        return KR_ERR_NOMEM;
    }
    *out = s;
    return KR_OK;
}

void kr_clip_tracks_destroy(kr_clip_tracks_t *s)
{
    if (!s)
        return;
    free(s->arena);
    free(s->ix);
    free(s->scratch[0]);
    free(s->scratch[1]);
    if (s->sync_ok) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
    }
    free(s);
}

static void lock(const kr_clip_tracks_t *s) { pthread_mutex_lock(&((kr_clip_tracks_t *)s)->mu); }
static void unlock(const kr_clip_tracks_t *s) { pthread_mutex_unlock(&((kr_clip_tracks_t *)s)->mu); }

static int16_t q16(double mm)
{
    double v = mm * Q_MM;
    if (!(v > -32767))
        return -32767;
    if (v > 32767)
        return 32767;
    return (int16_t)lround(v);
}

/* Runs of label (1 or 2) in cls into s->scratch[label - 1]; their count. memchr finds
 * each run's start (most of a row is background: this is analyze's per-frame cost). */
static int find_runs(kr_clip_tracks_t *s, const kr_image_t *cls, uint8_t label)
{
    rec_run *r = s->scratch[label - 1];
    int n = 0;
    for (int y = 0; y < cls->h; y++) {
        const uint8_t *row = cls->px + (size_t)y * cls->stride, *end = row + cls->w, *p = row;
        while ((p = memchr(p, label, (size_t)(end - p)))) {
            const uint8_t *q = p + 1;
            while (q < end && *q == label)
                q++;
            if (n == MAX_RUNS_PER_HAND)
                return n;
            r[n++] = (rec_run){(uint16_t)y, (uint16_t)(p - row), (uint16_t)(q - 1 - row)};
            p = q;
            if (p >= end)
                break;
        }
    }
    return n;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    size_t nc = *cap ? *cap : 1024;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * size);
    if (!q)
        return 0;
    *p = q;
    *cap = nc;
    return 1;
}

kr_status kr_clip_tracks_add(kr_clip_tracks_t *s, const kr_track_t *trk, const kr_track_frame *tf)
{
    if (!s || !trk || !tf)
        return KR_ERR_INVALID;
    /* only this thread changes s: reading its fields here needs no lock */
    if (s->full || s->finished || (s->n && tf->t_us <= s->ix[s->n - 1].t_us))
        return KR_OK; /* full, or not after the last one: not recorded */
    kr_image_t cls;
    if (kr_track_mat_view(trk, NULL, &cls) != KR_OK)
        return KR_ERR_INVALID;
    if (!s->n) { /* the mat's geometry, once */
        double x1, y1;
        s->mat_w = cls.w;
        s->mat_h = cls.h;
        kr_track_mat_to_mm(trk, 0, 0, &s->x0_mm, &s->y0_mm);
        kr_track_mat_to_mm(trk, 1, 0, &x1, &y1);
        s->mm_per_px = x1 - s->x0_mm;
    } else if (cls.w != s->mat_w || cls.h != s->mat_h) {
        return KR_ERR_INVALID;
    }
    int n_cards = tf->n_cards < KR_TRACK_MAX_CARDS ? tf->n_cards : KR_TRACK_MAX_CARDS;
    int n_runs[2] = {0, 0};
    for (int p = 0; p < 2; p++)
        if (tf->ready && tf->hands[p].present)
            n_runs[p] = find_runs(s, &cls, (uint8_t)(p + 1));
    size_t bytes = sizeof(rec_head) + sizeof(rec_card) * (size_t)n_cards +
                   sizeof(rec_run) * (size_t)(n_runs[0] + n_runs[1]);
    bytes = (bytes + 7) & ~(size_t)7;
    lock(s);
    if (s->used + bytes + (s->n + 1) * sizeof *s->ix > s->max_bytes) {
        s->full = 1;
        pthread_cond_broadcast(&s->cv);
        unlock(s);
        return KR_OK;
    }
    /* the arena and the index grow by doubling (amortised: a few times per run) */
    if (!grow((void **)&s->arena, &s->cap, s->used + bytes, 1) || !grow((void **)&s->ix, &s->cap_n, s->n + 1, sizeof *s->ix)) {
        s->full = 1; /* no later frame either: the store has no holes */
        pthread_cond_broadcast(&s->cv);
        unlock(s);
        return KR_ERR_NOMEM;
    }
    uint8_t *at = s->arena + s->used;
    rec_head *h = (rec_head *)(void *)at;
    memset(h, 0, sizeof *h);
    h->t_us = tf->t_us;
    h->n_cards = (uint16_t)n_cards;
    h->ready = (uint8_t)(tf->ready != 0);
    for (int p = 0; p < 2; p++) {
        h->present[p] = (uint8_t)(tf->hands[p].present != 0);
        h->lead[p][0] = (float)tf->hands[p].lead_x_mm;
        h->lead[p][1] = (float)tf->hands[p].lead_y_mm;
        h->n_runs[p] = (uint16_t)n_runs[p];
    }
    rec_card *rc = (rec_card *)(void *)(at + sizeof *h);
    for (int k = 0; k < n_cards; k++) {
        const kr_track_card *cd = &tf->cards[k];
        rc[k].id = (uint8_t)cd->id;
        rc[k].flags = (uint8_t)((cd->moving ? F_MOVING : 0) | (cd->displaced ? F_DISPLACED : 0) |
                                (cd->out_of_field ? F_OUT : 0) | (cd->lost ? F_LOST : 0) |
                                (cd->contrast >= KR_CLIP_MIN_CONTRAST ? F_SEEN : 0));
        for (int j = 0; j < 4; j++) {
            rc[k].c[2 * j] = q16(cd->corners_mm[j][0]);
            rc[k].c[2 * j + 1] = q16(cd->corners_mm[j][1]);
        }
        rc[k].x = q16(cd->x_mm);
        rc[k].y = q16(cd->y_mm);
    }
    rec_run *rr = (rec_run *)(void *)(rc + n_cards);
    memcpy(rr, s->scratch[0], sizeof *rr * (size_t)n_runs[0]);
    memcpy(rr + n_runs[0], s->scratch[1], sizeof *rr * (size_t)n_runs[1]);
    s->ix[s->n].t_us = tf->t_us;
    s->ix[s->n].off = s->used;
    s->n++;
    s->used += bytes;
    if (tf->t_us >= s->wake_us) { /* (not every frame: a waiter wakes when its end is there) */
        s->wake_us = INT64_MAX;
        pthread_cond_broadcast(&s->cv);
    }
    unlock(s);
    return KR_OK;
}

void kr_clip_tracks_finish(kr_clip_tracks_t *s)
{
    if (!s)
        return;
    lock(s);
    s->finished = 1;
    pthread_cond_broadcast(&s->cv);
    unlock(s);
}

size_t kr_clip_tracks_frames(const kr_clip_tracks_t *s)
{
    if (!s)
        return 0;
    lock(s);
    size_t n = s->n;
    unlock(s);
    return n;
}

size_t kr_clip_tracks_bytes(const kr_clip_tracks_t *s)
{
    if (!s)
        return 0;
    lock(s);
    size_t b = s->cap + s->cap_n * sizeof *s->ix + 2 * sizeof(rec_run) * MAX_RUNS_PER_HAND;
    unlock(s);
    return b;
}

static int covers(const kr_clip_tracks_t *s, int64_t start_us, int64_t end_us)
{
    if (!s->n || s->ix[0].t_us > start_us)
        return 0;
    int64_t last = s->ix[s->n - 1].t_us, step = s->n > 1 ? last - s->ix[s->n - 2].t_us : 0;
    /* a window clamped to the video's end: the last frame starts one period before it (a
     * run that ended early, e.g. at damage, covers nothing after its last frame) */
    return last >= end_us || (s->finished && !s->full && end_us - last <= 2 * step);
}

int kr_clip_tracks_covers(const kr_clip_tracks_t *s, int64_t start_us, int64_t end_us)
{
    if (!s)
        return 0;
    lock(s);
    int c = covers(s, start_us, end_us);
    unlock(s);
    return c;
}

int kr_clip_tracks_wait(const kr_clip_tracks_t *s, int64_t start_us, int64_t end_us)
{
    if (!s)
        return 0;
    lock(s);
    int c;
    while (!(c = covers(s, start_us, end_us)) && !s->finished && !s->full) {
        kr_clip_tracks_t *w = (kr_clip_tracks_t *)s;
        if (end_us < w->wake_us)
            w->wake_us = end_us;
        pthread_cond_wait(&w->cv, &w->mu);
    }
    unlock(s);
    return c;
}

void kr_clip_tracks_mat(const kr_clip_tracks_t *s, int *w, int *h, double *x0_mm, double *y0_mm, double *mm_per_px)
{
    /* set with the first record, before any reader can see one: no lock */
    *w = s->mat_w;
    *h = s->mat_h;
    *x0_mm = s->x0_mm;
    *y0_mm = s->y0_mm;
    *mm_per_px = s->mm_per_px;
}

/* The last record at or before t_us (binary search); -1 none. */
static long find(const kr_clip_tracks_t *s, int64_t t_us)
{
    size_t lo = 0, hi = s->n; /* first index with t > t_us */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->ix[mid].t_us <= t_us)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

int kr_clip_tracks_get(const kr_clip_tracks_t *s, int64_t t_us, kr_track_frame *tf, kr_track_card *cards,
                       uint8_t *cls)
{
    if (!s)
        return 0;
    lock(s);
    long k = find(s, t_us);
    if (k < 0) {
        unlock(s);
        return 0;
    }
    const uint8_t *at = s->arena + s->ix[k].off;
    const rec_head *h = (const rec_head *)(const void *)at;
    const rec_card *rc = (const rec_card *)(const void *)(at + sizeof *h);
    memset(tf, 0, sizeof *tf);
    tf->t_us = h->t_us;
    tf->index = k;
    tf->ready = h->ready;
    tf->n_cards = h->n_cards;
    tf->cards = cards;
    for (int i = 0; i < h->n_cards; i++) {
        kr_track_card *cd = &cards[i];
        memset(cd, 0, sizeof *cd);
        cd->id = rc[i].id;
        cd->moving = !!(rc[i].flags & F_MOVING);
        cd->displaced = !!(rc[i].flags & F_DISPLACED);
        cd->out_of_field = !!(rc[i].flags & F_OUT);
        cd->lost = !!(rc[i].flags & F_LOST);
        cd->contrast = rc[i].flags & F_SEEN ? 255 : 0;
        for (int j = 0; j < 4; j++) {
            cd->corners_mm[j][0] = rc[i].c[2 * j] / Q_MM;
            cd->corners_mm[j][1] = rc[i].c[2 * j + 1] / Q_MM;
        }
        cd->x_mm = rc[i].x / Q_MM;
        cd->y_mm = rc[i].y / Q_MM;
    }
    memset(cls, 0, (size_t)s->mat_w * s->mat_h);
    const rec_run *rr = (const rec_run *)(const void *)(rc + h->n_cards);
    for (int p = 0; p < 2; p++) {
        tf->hands[p].present = h->present[p];
        tf->hands[p].lead_x_mm = h->lead[p][0];
        tf->hands[p].lead_y_mm = h->lead[p][1];
        for (int i = 0; i < h->n_runs[p]; i++, rr++)
            memset(cls + (size_t)rr->y * s->mat_w + rr->x0, p + 1, (size_t)(rr->x1 - rr->x0 + 1));
    }
    unlock(s);
    return 1;
}
