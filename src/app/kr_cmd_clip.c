/* kr_cmd_clip.c - karuta-ref clip: the command line over kr_clip_export (src/clip): a
 * window of a video around a moment as an H.264 MP4 with overlays, plus a contact sheet.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_calib.h"
#include "kr_clip.h"
#include "kr_core.h"
#include "kr_media.h"

#include <errno.h>
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

static int parse_seconds(const char *opt, const char *s, double *v)
{
    char *end = NULL;
    errno = 0;
    double d = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || errno || !isfinite(d) || fabs(d) > 1e9) {
        kr_log(KR_LOG_ERROR, "clip: %s needs a number of seconds, got '%s'", opt, s ? s : "");
        return 0;
    }
    *v = d;
    return 1;
}

/* Returns 0 on success, -1 after --help, else the exit status (2 usage). */
static int parse_args(int argc, char **argv, clip_opts *o)
{
    memset(o, 0, sizeof *o);
    o->before = 2.0;
    o->after = 2.0;
    o->slow = 1;
    o->max_h = 720;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -1;
        }
        if (!strcmp(a, "--no-track")) {
            o->no_track = 1;
            continue;
        }
        if (!strcmp(a, "--no-calib")) {
            o->no_calib = 1;
            continue;
        }
        if (!strcmp(a, "--timings")) {
            o->timings = 1;
            continue;
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
            } else if (!strcmp(a, "--threads")) {
                char *end = NULL;
                long n = strtol(v, &end, 10);
                if (end == v || *end || n < 0 || n > 64) {
                    kr_log(KR_LOG_ERROR, "clip: --threads needs 0 (automatic) to 64, got '%s'", v);
                    return 2;
                }
                o->threads = (int)n;
            } else if (!strcmp(a, "--slow") || !strcmp(a, "--max-height")) {
                char *end = NULL;
                long n = strtol(v, &end, 10);
                int slow = !strcmp(a, "--slow");
                if (end == v || *end || (slow ? (n < 1 || n > 64) : (n != 0 && (n < 16 || n > 8192)))) {
                    kr_log(KR_LOG_ERROR, "clip: %s needs %s, got '%s'", a,
                           slow ? "a whole factor from 1 to 64" : "0 or a height from 16 to 8192 px", v);
                    return 2;
                }
                if (slow)
                    o->slow = (int)n;
                else
                    o->max_h = (int)n;
            } else if (!strcmp(a, "--events")) {
                o->events = v;
            } else if (!strcmp(a, "--match")) {
                o->match = v;
            } else if (!strcmp(a, "--calib")) {
                o->calib = v;
            } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
                o->out = v;
            } else {
                kr_log(KR_LOG_ERROR, "clip: unknown option %s (see karuta-ref clip --help)", a);
                return 2;
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
