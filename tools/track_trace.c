/* track_trace.c - runs the tracker alone over a video (calibrated from its first frame,
 * frames at analyze's size) and writes its per-frame state for tools/eval_track.py,
 * with each card's angle. Usage: track_trace VIDEO MATCH.jsonl TRACE.jsonl
 * SPDX-License-Identifier: MIT */
#include "kr_calib.h"
#include "kr_core.h"
#include "kr_cv.h"
#include "kr_json.h"
#include "kr_media.h"
#include "kr_track.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const kr_calib_t *calib;
    double sx, sy; /* tracked frame px per source px */
} map_ctx;

static int map_scaled(void *ctx, double x, double y, double *px, double *py)
{
    const map_ctx *m = ctx;
    double rx, ry;
    if (kr_calib_mm_to_px(m->calib, x, y, &rx, &ry) != 0)
        return -1;
    *px = (rx + 0.5) * m->sx - 0.5;
    *py = (ry + 0.5) * m->sy - 0.5;
    return 0;
}

/* The layout record of the match log into cards; returns the count, -1 on error. */
static int read_layout(const char *path, kr_track_card_init *cards)
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
    int nc = -1;
    kr_rules_record *rec = malloc(sizeof *rec);
    char err[KR_JSON_ERR_MAX];
    while (rec && nc < 0 && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (kr_json_is_blank(line, (size_t)n))
            continue;
        if (kr_json_read_record(line, (size_t)n, rec, err, sizeof err) != KR_OK) {
            fprintf(stderr, "%s:%ld: %s\n", path, lineno, err);
            break;
        }
        if (rec->type != KR_REC_LAYOUT)
            continue;
        nc = 0;
        for (int k = 0; k < rec->n_cards && nc < KR_TRACK_MAX_CARDS; k++) {
            cards[nc].id = rec->cards[k].card;
            cards[nc].owner = rec->cards[k].owner == KR_SIDE_B ? KR_TRACK_B : KR_TRACK_A;
            cards[nc].x_mm = rec->cards[k].x_mm;
            cards[nc].y_mm = rec->cards[k].y_mm;
            nc++;
        }
    }
    if (nc < 0 && rec)
        fprintf(stderr, "%s: no layout record\n", path);
    free(rec);
    free(line);
    fclose(f);
    return nc;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: track_trace VIDEO MATCH.jsonl TRACE.jsonl\n");
        return 2;
    }
    int rc = 1;
    kr_media_reader_t *rd = NULL;
    kr_calib_t *calib = NULL;
    kr_track_t *trk = NULL;
    kr_outfile_t of = {0};
    kr_track_card_init cards[KR_TRACK_MAX_CARDS];
    int nc = read_layout(argv[2], cards);
    if (nc < 0)
        goto fail;
    if (kr_media_reader_open(argv[1], &rd) != KR_OK) {
        fprintf(stderr, "%s\n", kr_media_reader_error(NULL));
        goto fail;
    }
    kr_media_info_t info;
    kr_media_reader_info(rd, &info);
    kr_frame_t f0;
    kr_calib_config ccfg;
    kr_calib_config_default(&ccfg);
    if (kr_media_reader_next(rd, &f0) != KR_OK || kr_calib_create_from_frame(&ccfg, &f0.img, f0.t_us, &calib) != KR_OK) {
        fprintf(stderr, "%s: cannot calibrate from the first frame\n", argv[1]);
        goto fail;
    }
    kr_media_reader_destroy(rd);
    rd = NULL;
    kr_media_reader_config mcfg;
    kr_media_reader_config_default(&mcfg);
    if (!getenv("KR_TRACE_FULL")) /* as analyze, unless asked for the full size */
        kr_track_frame_size(info.w, info.h, &mcfg.out_w, &mcfg.out_h);
    if (kr_media_reader_open2(argv[1], &mcfg, &rd) != KR_OK) {
        fprintf(stderr, "%s\n", kr_media_reader_error(NULL));
        goto fail;
    }
    kr_media_reader_info(rd, &info);
    map_ctx mc = {calib, (double)info.out_w / info.w, (double)info.out_h / info.h};
    kr_track_config tcfg;
    kr_track_config_default(&tcfg);
    if (kr_track_create(&tcfg, map_scaled, &mc, info.out_w, info.out_h, &trk) != KR_OK ||
        kr_track_set_layout(trk, cards, nc) != KR_OK) {
        fprintf(stderr, "track_trace: cannot create the tracker\n");
        goto fail;
    }
    if (kr_outfile_open(argv[3], &of) != KR_OK) {
        fprintf(stderr, "%s: cannot write\n", argv[3]);
        goto fail;
    }
    kr_frame_t f;
    kr_status s;
    /* KR_TRACE_PNG_AT=S: the debug overlay of the first frame at or after S seconds as
     * /tmp/track_trace_overlay.png (class colours, hands, cards; debugging) */
    const char *at = getenv("KR_TRACE_PNG_AT");
    int64_t dump_us = at ? (int64_t)(atof(at) * 1e6) : -1;
    while ((s = kr_media_reader_next(rd, &f)) == KR_OK) {
        const kr_track_frame *tf;
        if (kr_track_update(trk, &f.img, f.t_us, f.gap_us, &tf) != KR_OK) {
            fprintf(stderr, "track_trace: %s\n", kr_track_last_error(trk));
            goto fail;
        }
        if (kr_track_write_trace(of.fp, tf) != KR_OK) {
            fprintf(stderr, "%s: cannot write\n", argv[3]);
            goto fail;
        }
        kr_image_t ov;
        if (dump_us >= 0 && f.t_us >= dump_us) {
            dump_us = -1; /* once */
            if (kr_track_draw_overlay(trk, tf, 3, &ov) == KR_OK)
                kr_cv_write_image("/tmp/track_trace_overlay.png", &ov);
        }
    }
    if (s != KR_ERR_EOF) {
        fprintf(stderr, "%s: %s\n", argv[1], kr_media_reader_error(rd));
        goto fail;
    }
    if (kr_outfile_commit(&of) != KR_OK) {
        fprintf(stderr, "%s: could not write\n", argv[3]);
        goto fail;
    }
    rc = 0;
fail:
    kr_outfile_abort(&of);
    kr_track_destroy(trk);
    kr_calib_destroy(calib);
    kr_media_reader_destroy(rd);
    return rc;
}
