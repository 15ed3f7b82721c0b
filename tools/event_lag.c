/* event_lag.c - how long after its time each observation is released (issue 8's budget):
 * runs analyze's pipeline (calibrated from the first frame, tracked at analyze's size,
 * records released at the detector's horizon) and, for every observation the sink gets,
 * takes the newest frame's time minus the observation's t_us. Prints one JSON line.
 * Usage: event_lag VIDEO MATCH.jsonl      SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_core.h"
#include "kr_json.h"
#include "kr_media.h"
#include "kr_pipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LAGS 4096

typedef struct lags {
    kr_pipe_t *pipe;
    int64_t    v[3][MAX_LAGS]; /* all observations but early entries; touches; settles */
    int        n[3];
} lags;

static void add(lags *L, int i, int64_t v)
{
    if (L->n[i] < MAX_LAGS)
        L->v[i][L->n[i]++] = v;
}

static kr_status on_record(void *ctx, const kr_rules_record *rec, const kr_event_obs *obs)
{
    lags *L = ctx;
    /* early entries are reported at the kami_start that makes them early, by definition
     * long after the entry; they are not a detection lag */
    if (!obs || !L->pipe || rec->type == KR_REC_EARLY_ENTRY)
        return KR_OK;
    int64_t lag = kr_pipe_get_stats(L->pipe)->last_t_us - rec->t_us;
    add(L, 0, lag);
    if (rec->type == KR_REC_TOUCH)
        add(L, 1, lag);
    if (rec->type == KR_REC_SETTLE)
        add(L, 2, lag);
    return KR_OK;
}

static kr_status on_refused(void *ctx, const kr_rules_record *rec, const kr_event_obs *obs, const char *why)
{
    (void)ctx, (void)rec, (void)obs, (void)why;
    return KR_OK;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* "name":{"n":N,"p50_ms":..,"p95_ms":..,"max_ms":..,"ms":[every lag]} */
static void print_stats(const char *name, int64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp64);
    if (!n) {
        printf("\"%s\":{\"n\":0,\"ms\":[]}", name);
        return;
    }
    printf("\"%s\":{\"n\":%d,\"p50_ms\":%.1f,\"p95_ms\":%.1f,\"max_ms\":%.1f,\"ms\":[", name, n, v[n / 2] / 1e3,
           v[(int)(0.95 * (n - 1) + 0.5)] / 1e3, v[n - 1] / 1e3);
    for (int i = 0; i < n; i++)
        printf("%s%.1f", i ? "," : "", v[i] / 1e3);
    printf("]}");
}

/* Every record of the match log into the pipe; 0 ok. */
static int read_log(const char *path, kr_pipe_t *p)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    int rc = 0;
    kr_rules_record *rec = malloc(sizeof *rec);
    char err[KR_JSON_ERR_MAX];
    if (!rec)
        rc = -1;
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (kr_json_is_blank(line, (size_t)n))
            continue;
        if (kr_json_read_record(line, (size_t)n, rec, err, sizeof err) != KR_OK) {
            fprintf(stderr, "%s:%ld: %s\n", path, lineno, err);
            rc = -1;
        } else if (kr_pipe_add_record(p, rec) != KR_OK) {
            fprintf(stderr, "%s:%ld: %s\n", path, lineno, kr_pipe_error(p));
            rc = -1;
        }
    }
    free(rec);
    free(line);
    fclose(f);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: event_lag VIDEO MATCH.jsonl\n");
        return 2;
    }
    int rc = 1;
    kr_media_reader_t *rd = NULL;
    kr_calib_t *calib = NULL;
    kr_pipe_t *pipe = NULL;
    lags *L = calloc(1, sizeof *L);
    if (!L)
        goto fail;
    kr_pipe_sink sink = {L, on_record, NULL, on_refused};
    if (kr_pipe_create(NULL, &sink, &pipe) != KR_OK) {
        fprintf(stderr, "event_lag: %s\n", kr_pipe_error(NULL));
        goto fail;
    }
    L->pipe = pipe;
    if (read_log(argv[2], pipe) != 0)
        goto fail;
    if (!kr_pipe_has_layout(pipe)) {
        fprintf(stderr, "%s: no layout record\n", argv[2]);
        goto fail;
    }
    if (kr_media_reader_open(argv[1], &rd) != KR_OK) {
        fprintf(stderr, "%s\n", kr_media_reader_error(NULL));
        goto fail;
    }
    kr_media_info_t info;
    kr_media_reader_info(rd, &info);
    kr_frame_t f;
    kr_calib_config ccfg;
    kr_calib_config_default(&ccfg);
    if (kr_media_reader_next(rd, &f) != KR_OK || kr_calib_create_from_frame(&ccfg, &f.img, f.t_us, &calib) != KR_OK) {
        fprintf(stderr, "%s: cannot calibrate from the first frame\n", argv[1]);
        goto fail;
    }
    kr_media_reader_destroy(rd);
    rd = NULL;
    kr_media_reader_config mcfg;
    kr_media_reader_config_default(&mcfg);
    kr_track_frame_size(info.w, info.h, &mcfg.out_w, &mcfg.out_h); /* as analyze */
    mcfg.yuv = 1;
    if (kr_media_reader_open2(argv[1], &mcfg, &rd) != KR_OK) {
        fprintf(stderr, "%s\n", kr_media_reader_error(NULL));
        goto fail;
    }
    kr_media_reader_info(rd, &info);
    if (kr_pipe_start_video(pipe, calib, info.out_w, info.out_h) != KR_OK) {
        fprintf(stderr, "event_lag: %s\n", kr_pipe_error(pipe));
        goto fail;
    }
    kr_status s;
    while ((s = kr_media_reader_next(rd, &f)) == KR_OK)
        if (kr_pipe_feed(pipe, &f, NULL) != KR_OK) {
            fprintf(stderr, "event_lag: %s\n", kr_pipe_error(pipe));
            goto fail;
        }
    if (s != KR_ERR_EOF) {
        fprintf(stderr, "%s: %s\n", argv[1], kr_media_reader_error(rd));
        goto fail;
    }
    int n_live = L->n[0]; /* observations released while frames came (the rest at the end) */
    L->pipe = NULL;
    if (kr_pipe_finish(pipe) != KR_OK) {
        fprintf(stderr, "event_lag: %s\n", kr_pipe_error(pipe));
        goto fail;
    }
    printf("{\"video\":\"%s\",\"fps\":%.2f,", argv[1], info.fps);
    print_stats("obs", L->v[0], n_live);
    putchar(',');
    print_stats("touch", L->v[1], L->n[1]);
    putchar(',');
    print_stats("settle", L->v[2], L->n[2]);
    printf("}\n");
    rc = 0;
fail:
    kr_pipe_destroy(pipe);
    kr_calib_destroy(calib);
    kr_media_reader_destroy(rd);
    free(L);
    return rc;
}
