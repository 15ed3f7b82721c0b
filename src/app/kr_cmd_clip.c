/* kr_cmd_clip.c - karuta-ref clip: the command line over kr_clip_export (src/clip): a
 * window of a video around a moment as an H.264 MP4 with overlays, plus a contact sheet.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_app_opts.h"
#include "kr_calib.h"
#include "kr_clip.h"
#include "kr_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct clip_opts {
    const char *video, *out, *events, *match, *calib;
    double      at, before, after;
    int         slow, has_at, no_track, no_calib, max_h, threads, timings;
} clip_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: karuta-ref clip VIDEO --at SECONDS [--before S] [--after S] [--slow N]\n"
            "                       [--events EVENTS.jsonl] [--match MATCH.jsonl] [--calib CALIB.json]\n"
            "                       [--max-height PX] [--no-track] [--no-calib] [--threads N] -o CLIP.mp4\n\n"
            "Cuts [at - before, at + after] seconds (defaults 2 and 2) of VIDEO into CLIP.mp4\n"
            "(H.264, plays in browsers and phones), slowed down N times (default 1), with a\n"
            "running time code, the competition lines, and:\n"
            "  --events FILE   each touch / push_out / hand_contact / early_entry marked with its\n"
            "                  player and time in ms, and outlined on its card\n"
            "  --match FILE    the card layout (and rearranges): card outlines with ids that follow\n"
            "                  moving cards, and hand outlines, from the tracker started 1 s before\n"
            "                  the window (--events with a layout record serves as well)\n"
            "  --calib FILE    camera-to-mat calibration (default: calibrated from the first frame,\n"
            "                  as analyze does; if that fails the clip has no lines or outlines)\n"
            "  --max-height PX output height cap (default 720; 0 = source size)\n"
            "  --no-track      no card/hand outlines;  --no-calib: no calibration at all\n"
            "  --threads N     decoder and encoder threads (default 0: automatic)\n"
            "  --timings       where the time went (wall and CPU per phase) on stderr\n"
            "Also writes CLIP.png, a contact sheet of the 8 frames around --at with their times.\n");
}

enum { O_AT = 1, O_BEFORE, O_AFTER, O_THREADS, O_SLOW, O_MAX_H, O_EVENTS, O_MATCH, O_CALIB, O_OUT, O_NO_TRACK,
       O_NO_CALIB, O_TIMINGS };
static const kr_app_opt clip_opts_table[] = {
    {"--at", NULL, O_AT, 1},           {"--before", NULL, O_BEFORE, 1},    {"--after", NULL, O_AFTER, 1},
    {"--threads", NULL, O_THREADS, 1}, {"--slow", NULL, O_SLOW, 1},        {"--max-height", NULL, O_MAX_H, 1},
    {"--events", NULL, O_EVENTS, 1},   {"--match", NULL, O_MATCH, 1},      {"--calib", NULL, O_CALIB, 1},
    {"-o", "--out", O_OUT, 1},         {"--no-track", NULL, O_NO_TRACK, 0}, {"--no-calib", NULL, O_NO_CALIB, 0},
    {"--timings", NULL, O_TIMINGS, 0}, {NULL, NULL, 0, 0}};

/* Returns 0 on success, -1 after --help, else the exit status (2 usage). */
static int parse_args(int argc, char **argv, clip_opts *o)
{
    static const char cmd[] = "clip";
    memset(o, 0, sizeof *o);
    o->before = 2.0;
    o->after = 2.0;
    o->slow = 1;
    o->max_h = 720;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        long long   n = 0;
        int         key = kr_app_opt_next(cmd, clip_opts_table, argc, argv, &i, &v);
        switch (key) {
        case KR_APP_OPT_HELP:
            usage(stdout);
            return -1;
        case KR_APP_OPT_BAD:
            return 2;
        case KR_APP_OPT_ARG:
            if (o->video) {
                kr_log(KR_LOG_ERROR, "clip: unexpected argument '%s' (one VIDEO only)", a);
                return 2;
            }
            o->video = a;
            break;
        case O_NO_TRACK: o->no_track = 1; break;
        case O_NO_CALIB: o->no_calib = 1; break;
        case O_TIMINGS: o->timings = 1; break;
        case O_AT:
        case O_BEFORE:
        case O_AFTER: {
            double *d = key == O_AT ? &o->at : key == O_BEFORE ? &o->before : &o->after;
            if (kr_app_opt_double(cmd, a, v, -1e9, 1e9, d))
                return 2;
            o->has_at |= key == O_AT;
            break;
        }
        case O_THREADS:
            if (kr_app_opt_int(cmd, a, v, 0, 64, &n))
                return 2;
            o->threads = (int)n;
            break;
        case O_SLOW:
            if (kr_app_opt_int(cmd, a, v, 1, 64, &n))
                return 2;
            o->slow = (int)n;
            break;
        case O_MAX_H:
            if (kr_app_opt_int(cmd, a, v, 0, 8192, &n))
                return 2;
            if (n > 0 && n < 16) {
                kr_log(KR_LOG_ERROR, "clip: --max-height: bad value '%s' (0, or a height from 16 to 8192 px)", v);
                return 2;
            }
            o->max_h = (int)n;
            break;
        case O_EVENTS: o->events = v; break;
        case O_MATCH: o->match = v; break;
        case O_CALIB: o->calib = v; break;
        default: o->out = v; break; /* O_OUT */
        }
    }
    if (!o->video || !o->has_at || !o->out) {
        kr_log(KR_LOG_ERROR, "clip: %s is required (see karuta-ref clip --help)",
               !o->video ? "VIDEO" : !o->has_at ? "--at SECONDS" : "-o CLIP.mp4");
        return 2;
    }
    return 0;
}

int kr_cmd_clip(int argc, char **argv)
{
    clip_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    rc = 1;
    kr_clip_events_t *ev = NULL;
    kr_calib_t *calib = NULL;
    kr_clip_t *clip = NULL;
    char err[512] = "";

    kr_clip_config cfg;
    kr_clip_config_default(&cfg);
    cfg.before_us = (int64_t)llround(o.before * 1e6);
    cfg.after_us = (int64_t)llround(o.after * 1e6);
    cfg.slow = o.slow;
    cfg.max_h = o.max_h;
    cfg.track = !o.no_track;
    cfg.threads = o.threads;
    if (!(o.at >= 0)) {
        kr_log(KR_LOG_ERROR, "clip: --at %.3f s is outside %s (it starts at 0 s)", o.at, o.video);
        goto fail;
    }
    /* the window first: a bad one is refused before any file is read */
    if (kr_clip_create(&cfg, NULL, NULL, &clip, err, sizeof err) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", err);
        goto fail;
    }
    kr_clip_destroy(clip);
    clip = NULL;
    /* without --calib, kr_clip_export calibrates from the first frame as analyze does, in a
     * thread beside its own opening of the video; --at outside the video is refused there */
    cfg.auto_calib = !o.calib && !o.no_calib;
    if (o.events && kr_clip_events_load(o.events, 1, &ev, err, sizeof err) != KR_OK) {
        kr_log(KR_LOG_ERROR, "clip: %s", err);
        goto fail;
    }
    if (o.match) {
        kr_status st = ev ? kr_clip_events_add(ev, o.match, 0, err, sizeof err)
                          : kr_clip_events_load(o.match, 1, &ev, err, sizeof err);
        if (st != KR_OK) {
            kr_log(KR_LOG_ERROR, "clip: %s", err);
            goto fail;
        }
    }
    if (o.calib && !o.no_calib && kr_calib_load(o.calib, &calib) != KR_OK) {
        kr_log(KR_LOG_ERROR, "clip: %s", kr_calib_error());
        goto fail;
    }
    if (kr_clip_create(&cfg, calib, ev, &clip, err, sizeof err) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", err);
        goto fail;
    }
    kr_clip_result res;
    if (kr_clip_export(clip, o.video, (int64_t)llround(o.at * 1e6), o.out, &res) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", kr_clip_last_error(clip));
        goto fail;
    }
    if (kr_clip_last_error(clip)[0])
        kr_log(KR_LOG_WARN, "%s", kr_clip_last_error(clip));
    if (o.timings) {
        fprintf(stderr, "clip timings (wall / CPU of the calling thread, ms):\n");
        for (int k = 0; k < KR_CLIP_N_PHASES; k++)
            fprintf(stderr, "  %-20s %7.1f / %7.1f\n", kr_clip_phase_name(k), (double)res.phase_us[k] / 1e3,
                    (double)res.phase_cpu_us[k] / 1e3);
        fprintf(stderr, "  %-20s         / %7.1f\n  %-20s         / %7.1f\n  frames: %lld decoded, %lld in the clip (%dx%d)\n",
                "decoding thread", (double)res.decoder_cpu_us / 1e3, "encoding thread", (double)res.encoder_cpu_us / 1e3, (long long)res.n_decoded,
                (long long)res.n_frames, res.out_w, res.out_h);
        for (int k = 0; k < res.n_placed; k++)
            fprintf(stderr, "  sent card %d found at (%.1f, %.1f) mm\n", res.placed[k].card, res.placed[k].x_mm,
                    res.placed[k].y_mm);
    }
    if (cfg.track && res.calibrated && !res.tracked)
        kr_log(KR_LOG_INFO, "clip: no card layout (give --match): no card or hand outlines");
    rc = 0;
fail:
    kr_clip_destroy(clip);
    kr_calib_destroy(calib);
    kr_clip_events_destroy(ev);
    return rc;
}
