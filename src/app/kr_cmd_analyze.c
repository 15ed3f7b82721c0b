/* kr_cmd_analyze.c - karuta-ref analyze VIDEO --match MATCH.jsonl [--calib C] --out DIR:
 * footage -> kr_pipe (tracked field, observations merged into the match log, rulings) -> files.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_app_analyze.h"
#include "kr_app_opts.h"
#include "kr_calib.h"
#include "kr_core.h"
#include "kr_cv.h"
#include "kr_event.h"
#include "kr_json.h"
#include "kr_media.h"
#include "kr_pipe.h"
#include "kr_rules.h"
#include "kr_track.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: karuta-ref analyze VIDEO --match MATCH.jsonl [--calib CALIB.json] --out DIR\n"
            "  Tracks cards and hands in VIDEO, detects touches, push-outs, hand contacts, early\n"
            "  entries and settling, merges them into the match log and rules it. Writes\n"
            "  DIR/events.jsonl, DIR/rulings.jsonl and DIR/summary.json. Without a layout\n"
            "  record in MATCH.jsonl the layout is read from the footage before the first\n"
            "  reading (as karuta-ref layout does); any doubt about it stops the run.\n"
            "  --calib FILE     camera-to-mat calibration (default: calibrate from the video)\n"
            "  --readout-us N   the camera's rolling shutter: microseconds from reading the top row\n"
            "                   to the bottom row (default: the calibration's readout_us, else\n"
            "                   measured from the lights' flicker when its bands show, else 0 =\n"
            "                   all rows at once); each observation is timed by its image row\n"
            "  --tie-us N       simultaneous-touch tolerance for the rules engine (default 0)\n"
            "  --threads N      decoding and colour conversion threads (default 0: automatic)\n"
            "  --bgr-frames     the reader makes the BGR frames (scaling them in YUV on this thread\n"
            "                   without --decode-ahead); same results, for comparison\n"
            "  --track-yuv      the tracker reads the decoded planes (kr_track_update_yuv) instead\n"
            "                   of BGR frames converted from them; same results\n"
            "  --decode-ahead N frames decoded ahead in a decoding thread (default 16; 0: decode\n"
            "                   between frames, with the decoder's own threads)\n"

            "  --hold-us N      release records N us after the detector's horizon (default 0, as\n"
            "                   live); -1: all at the end (a check that the order is the same)\n"
            "  --debug-dir D    write tracker overlay PNGs to D (every --debug-every frames)\n"
            "  --debug-every N  default 10\n"
            "  --debug-span A[,B] only frames from A (to B) seconds\n"
            "  --mm-per-px X    tracker resolution in mm per mat pixel (default 3)\n"
            "  --trace FILE     per-frame tracker state as JSON lines (for tools/eval_track.py)\n");
}

/* Growable array of match-log records (read before the frames: doubling). */
typedef struct rec_list {
    kr_rules_record *r;
    size_t n, cap;
} rec_list;

static int list_push(rec_list *l, const kr_rules_record *r)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 256;
        kr_rules_record *nr = realloc(l->r, nc * sizeof *nr);
        if (!nr)
            return 0;
        l->r = nr;
        l->cap = nc;
    }
    l->r[l->n++] = *r;
    return 1;
}

/* The pipeline's sink: events.jsonl and rulings.jsonl (complete-or-nothing files). */
typedef struct an_out {
    const kr_app_analyze_hook *hook; /* borrowed; NULL: none */
    FILE *ev, *ru; /* borrowed */
    const char *out_dir;
} an_out;

static kr_status an_record(void *ctx, const kr_rules_record *r, const kr_event_obs *o)
{
    const an_out *a = ctx;
    (void)o;
    if (kr_json_write_record(a->ev, r) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s/events.jsonl: write failed", a->out_dir);
        return KR_ERR_IO;
    }
    if (a->hook && a->hook->record)
        a->hook->record(a->hook->ctx, r);
    return KR_OK;
}

static kr_status an_output(void *ctx, const kr_rules_output *o)
{
    const an_out *a = ctx;
    if (kr_json_write_output(a->ru, o) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s/rulings.jsonl: write failed", a->out_dir);
        return KR_ERR_IO;
    }
    if (a->hook && a->hook->output)
        a->hook->output(a->hook->ctx, o);
    return KR_OK;
}

/* An observation the engine refuses is skipped (said); a refused log record stops. */
static kr_status an_refused(void *ctx, const kr_rules_record *r, const kr_event_obs *o, const char *why)
{
    (void)ctx;
    if (o) {
        kr_log(KR_LOG_WARN, "observation %s at %.3f s rejected by the rules engine: %s", r->id, r->t_us / 1e6, why);
        return KR_OK;
    }
    return KR_ERR_INVALID;
}

/* dir made unless it is a folder already; *made (optional) 1 when this call made it. */
static int mkdir_p(const char *dir, int *made)
{
    struct stat st;
    if (made)
        *made = 0;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : -1;
    if (mkdir(dir, 0777) != 0)
        return -1;
    if (made)
        *made = 1;
    return 0;
}

static void progress(int64_t t_us, int64_t dur_us, int64_t t0)
{
    double f = dur_us > 0 ? (double)t_us / dur_us : 0;
    if (f > 1)
        f = 1;
    int w = 40, k = (int)(f * w);
    double el = (kr_clock_us() - t0) / 1e6;
    fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %.1fx realtime ", k, "########################################", w - k,
            "", f * 100, el > 0 ? t_us / 1e6 / el : 0);
}

/* SIGINT / SIGTERM while frames run: stop between frames, write nothing (the temporaries
 * are removed), say so in one line. An ignored SIGINT stays ignored. The caller's handlers
 * are put back on return (review runs analyze in process and has steps after it). */
static volatile sig_atomic_t g_interrupted;
static void on_interrupt(int sig) { g_interrupted = sig; }

static const char *side_name(kr_rules_side s) { return s == KR_SIDE_A ? "A" : s == KR_SIDE_B ? "B" : NULL; }

int kr_cmd_analyze(int argc, char **argv) { return kr_app_analyze_hooked(argc, argv, NULL); }

int kr_app_analyze_hooked(int argc, char **argv, const kr_app_analyze_hook *hook)
{
    const char *video = NULL, *match = NULL, *calib_path = NULL, *out_dir = NULL, *debug_dir = NULL;
    const char *trace_path = NULL;
    double debug_from = -1e30, debug_to = 1e30; /* --debug-span, s */
    int debug_every = 10, threads = 0, bgr_frames = 0, track_yuv = 0, decode_ahead = 16;
    long long readout_us = -1; /* --readout-us; -1: the calibration's, else measured from flicker */
    const char *readout_from = "option";
    kr_pipe_config pcfg;
    kr_pipe_config_default(&pcfg);
    /* released at the detector's horizon, as live does: the same code, the same results */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--match") && has)
            match = argv[++i];
        else if (!strcmp(a, "--calib") && has)
            calib_path = argv[++i];
        else if (!strcmp(a, "--out") && has)
            out_dir = argv[++i];
        else if (!strcmp(a, "--trace") && has)
            trace_path = argv[++i];
        else if (!strcmp(a, "--debug-dir") && has)
            debug_dir = argv[++i];
        else if (!strcmp(a, "--debug-every") && has) {
            debug_every = atoi(argv[++i]);
            if (debug_every < 1) {
                kr_log(KR_LOG_ERROR, "analyze: --debug-every needs a positive integer");
                return 2;
            }
        } else if (!strcmp(a, "--debug-span") && has) {
            char *end;
            debug_from = strtod(argv[++i], &end);
            if (*end == ',')
                debug_to = strtod(end + 1, &end);
            if (*end || end == argv[i] || !(debug_to >= debug_from)) {
                kr_log(KR_LOG_ERROR, "analyze: --debug-span needs FROM[,TO] in seconds (FROM <= TO)");
                return 2;
            }
        } else if (!strcmp(a, "--mm-per-px") && has) {
            pcfg.mm_per_px = atof(argv[++i]);
            if (!(pcfg.mm_per_px >= 1 && pcfg.mm_per_px <= 8)) {
                kr_log(KR_LOG_ERROR, "analyze: --mm-per-px must be within 1 ... 8");
                return 2;
            }
        } else if (!strcmp(a, "--bgr-frames")) {
            bgr_frames = 1;
        } else if (!strcmp(a, "--track-yuv")) {
            track_yuv = 1;
        } else if (!strcmp(a, "--decode-ahead") && has) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0 || v > 64) {
                kr_log(KR_LOG_ERROR, "analyze: --decode-ahead needs an integer within 0 ... 64");
                return 2;
            }
            decode_ahead = (int)v;
        } else if (!strcmp(a, "--threads") && has) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0 || v > 64) {
                kr_log(KR_LOG_ERROR, "analyze: --threads needs an integer within 0 ... 64");
                return 2;
            }
            threads = (int)v;
        } else if (!strcmp(a, "--hold-us") && has) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || v < -1) {
                kr_log(KR_LOG_ERROR, "analyze: --hold-us needs an integer >= -1 (microseconds)");
                return 2;
            }
            pcfg.hold_us = v;
        } else if (!strcmp(a, "--readout-us") && has) {
            if (kr_app_opt_int("analyze", a, argv[++i], 0, KR_CALIB_MAX_READOUT_US, &readout_us))
                return 2;
        } else if (!strcmp(a, "--tie-us") && has) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || v < 0) {
                kr_log(KR_LOG_ERROR, "analyze: --tie-us needs a non-negative integer (microseconds)");
                return 2;
            }
            pcfg.tie_us = v;
        } else if (a[0] == '-' && a[1]) {
            kr_log(KR_LOG_ERROR, "analyze: unknown option or missing value '%s' (see karuta-ref analyze --help)", a);
            return 2;
        } else if (video) {
            kr_log(KR_LOG_ERROR, "analyze: more than one video given ('%s' and '%s')", video, a);
            return 2;
        } else
            video = a;
    }
    if (!video || !match || !out_dir) {
        kr_log(KR_LOG_ERROR, "analyze: need VIDEO, --match MATCH.jsonl and --out DIR (see --help)");
        return 2;
    }

    int rc = 1, made_out = 0; /* made_out: the output folder was made by this run */
    FILE *in = NULL;
    char *line = NULL;
    size_t lcap = 0;
    rec_list log = {0};
    kr_rules_record *rec = malloc(sizeof *rec);
    kr_media_reader_t *rd = NULL;
    kr_calib_t *calib = NULL;
    kr_pipe_t *pipe = NULL;
    kr_outfile_t of_ev = {0}, of_ru = {0}, of_su = {0}, of_tr = {0};
    char broke[512] = "";
    char path[4096];
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    g_interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    if (old_int.sa_handler == SIG_IGN) /* started in the background: Ctrl-C is not for us */
        sigaction(SIGINT, &old_int, NULL);
    if (!rec) {
        kr_log(KR_LOG_ERROR, "analyze: out of memory");
        goto fail;
    }

    /* ---- match log ---- */
    in = fopen(match, "r");
    if (!in) {
        kr_log(KR_LOG_ERROR, "%s: cannot open: %s", match, strerror(errno));
        goto fail;
    }
    long lineno = 0;
    ssize_t nread;
    char err[KR_JSON_ERR_MAX];
    int have_layout = 0, have_match = 0;
    while ((nread = getline(&line, &lcap, in)) >= 0) {
        lineno++;
        if (kr_json_is_blank(line, (size_t)nread))
            continue;
        if (kr_json_read_record(line, (size_t)nread, rec, err, sizeof err) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s:%ld: %s", match, lineno, err);
            goto fail;
        }
        if (rec->type == KR_REC_LAYOUT)
            have_layout = 1;
        if (rec->type == KR_REC_MATCH)
            have_match = 1;
        if (!list_push(&log, rec)) {
            kr_log(KR_LOG_ERROR, "analyze: out of memory");
            goto fail;
        }
    }
    fclose(in);
    in = NULL;
    if (!have_match) {
        kr_log(KR_LOG_ERROR, "%s: the match log needs a match record", match);
        goto fail;
    }
    if (!have_layout) {
        /* no layout typed in: read it from the memorisation period (it reaches the
         * engine before the first timed record, where a typed one would stand); the
         * cards lie still before the first reading: look at half that time, at most 2 s */
        double at_s = 2.0;
        for (size_t i = 0; i < log.n; i++)
            if (log.r[i].type == KR_REC_KAMI_START && log.r[i].has_t) {
                at_s = fmin(at_s, log.r[i].t_us / 2e6);
                break;
            }
        if (kr_app_layout_from_video(video, calib_path, at_s, rec) != 0 || !list_push(&log, rec))
            goto fail;
    }

    /* ---- video and calibration ---- */
    if (kr_media_reader_open(video, &rd) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", kr_media_reader_error(NULL));
        goto fail;
    }
    kr_media_info_t info;
    kr_media_reader_info(rd, &info);
    /* an interlaced camera's two fields are read together: the motion between them is not
     * timed, and a moving hand's outline is combed */
    if (info.interlaced)
        kr_log(KR_LOG_WARN, "%s: interlaced video: each frame's two fields are read together, so contact times are no "
               "finer than its %.4g frames/s", video, info.fps);
    if (calib_path) {
        if (kr_calib_load(calib_path, &calib) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s", kr_calib_error());
            goto fail;
        }
        if (calib->img_w != info.w || calib->img_h != info.h) {
            kr_log(KR_LOG_ERROR, "%s: calibration is for %dx%d frames, %s is %dx%d", calib_path, calib->img_w,
                   calib->img_h, video, info.w, info.h);
            goto fail;
        }
    }
    kr_frame_t f0;
    if (!calib_path) {
        kr_status s = kr_media_reader_next(rd, &f0);
        if (s != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s: no frame to calibrate from: %s", video, kr_media_reader_error(rd));
            goto fail;
        }
        const kr_rules_record *layout = NULL;
        for (size_t i = 0; i < log.n && !layout; i++)
            if (log.r[i].type == KR_REC_LAYOUT)
                layout = &log.r[i];
        if (kr_app_calibrate(&f0.img, f0.t_us, layout, &calib) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s: cannot calibrate from the first frame: %s", video, kr_calib_error());
            goto fail;
        }
    }
    if (readout_us >= 0)
        calib->readout_us = readout_us;
    else if (calib->readout_us > 0)
        readout_from = "calibration";
    else {
        /* not told: measured from the lights' flicker when its bands show (else none) */
        kr_calib_readout ro;
        kr_app_readout_from_flicker(rd, calib_path ? NULL : &f0, &ro);
        readout_from = ro.found ? "flicker" : "none";
        if (ro.found) {
            calib->readout_us = ro.readout_us;
            kr_log(KR_LOG_WARN, "%s: rolling shutter: the lights' %.0f Hz flicker shows as bands: rows read over "
                   "%.1f ms (fit %.2f); contacts are timed by their row (--readout-us N to set it)",
                   video, ro.flicker_hz, ro.readout_us / 1000.0, ro.fit);
        }
    }
    if (!calib->ok)
        kr_log(KR_LOG_WARN, "calibration is poor (%s): every ruling will need review", calib->reason);
    if (hook && hook->started)
        hook->started(hook->ctx, calib);
    kr_media_reader_destroy(rd);
    rd = NULL;
    /* track on a half-size picture when the source is large: the mat image is coarser anyway */
    kr_media_reader_config mcfg;
    kr_media_reader_config_default(&mcfg);
    kr_track_frame_size(info.w, info.h, &mcfg.out_w, &mcfg.out_h);
    mcfg.threads = threads;
    /* frames as planes, scaled by the decode thread; then either the tracker reads them
     * (--track-yuv) or swscale's SIMD converter makes the BGR frame here: at the tracking
     * size (640x360 for 720p) that costs less than the tracker's per-pixel conversion
     * (tools/bench_analyze.sh: same events and rulings either way) */
    mcfg.yuv = !bgr_frames;
    mcfg.decode_ahead = decode_ahead; /* decoding beside the analysis, few wakeups */
    if (kr_media_reader_open2(video, &mcfg, &rd) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", kr_media_reader_error(NULL));
        goto fail;
    }
    kr_media_reader_info(rd, &info);
    if (debug_dir && mkdir_p(debug_dir, NULL) != 0) {
        kr_log(KR_LOG_ERROR, "%s: cannot create folder", debug_dir);
        goto fail;
    }
    if (mkdir_p(out_dir, &made_out) != 0) {
        kr_log(KR_LOG_ERROR, "%s: cannot create the output folder: %s", out_dir, strerror(errno));
        goto fail;
    }
    snprintf(path, sizeof path, "%s/events.jsonl", out_dir);
    if (kr_outfile_open(path, &of_ev) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: cannot write", path);
        goto fail;
    }
    snprintf(path, sizeof path, "%s/rulings.jsonl", out_dir);
    if (kr_outfile_open(path, &of_ru) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: cannot write", path);
        goto fail;
    }
    if (trace_path && kr_outfile_open(trace_path, &of_tr) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: cannot write", trace_path);
        goto fail;
    }

    /* ---- the pipeline (the same object as live's) ---- */
    an_out ao = {hook, of_ev.fp, of_ru.fp, out_dir};
    kr_pipe_sink sink = {&ao, an_record, an_output, an_refused};
    kr_status s = kr_pipe_create(&pcfg, &sink, &pipe);
    if (s != KR_OK) {
        kr_log(KR_LOG_ERROR, "analyze: %s", kr_pipe_error(NULL));
        goto fail;
    }
    for (size_t i = 0; i < log.n; i++)
        if (kr_pipe_add_record(pipe, &log.r[i]) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s: %s", match, kr_pipe_error(pipe));
            goto fail;
        }
    if (kr_pipe_start_video(pipe, calib, info.out_w, info.out_h) != KR_OK) {
        kr_log(KR_LOG_ERROR, "analyze: %s", kr_pipe_error(pipe));
        goto fail;
    }

    /* ---- frames ---- */
    int tty = isatty(2);
    int64_t t0 = kr_clock_us(), last_prog = 0;
    for (;;) {
        kr_frame_t f;
        if (g_interrupted) {
            kr_log(KR_LOG_ERROR, "%s: interrupted by %s after %.3f s of video; nothing written to %s", video,
                   g_interrupted == SIGINT ? "SIGINT" : "SIGTERM", kr_pipe_get_stats(pipe)->last_t_us / 1e6,
                   out_dir);
            goto fail;
        }
        s = kr_media_reader_next(rd, &f);
        if (s == KR_ERR_EOF)
            break;
        if (s != KR_OK) {
            snprintf(broke, sizeof broke, "%s", kr_media_reader_error(rd));
            break;
        }
        const kr_track_frame *tf;
        if (f.yuv.y && !track_yuv && kr_media_reader_bgr(rd, &f.img) != KR_OK) {
            snprintf(broke, sizeof broke, "%s", kr_media_reader_error(rd));
            break;
        }
        kr_frame_t fb = f; /* --bgr-frames: the BGR picture, with the frame's times and kind */
        if (!track_yuv)
            memset(&fb.yuv, 0, sizeof fb.yuv);
        if (kr_pipe_feed(pipe, &fb, &tf) != KR_OK) {
            /* calibrated here on the side that fitted the layout best (kr_app_calibrate):
             * many cards missing even so may be a first frame the calibration misread */
            int misread = !calib_path && kr_pipe_get_stats(pipe)->layout_missing > 2;
            kr_log(KR_LOG_ERROR, "%s: %s (%s)%s", match, kr_pipe_error(pipe), video,
                   misread ? "; if the layout is right, calibrate with `karuta-ref calibrate VIDEO "
                             "[--a-side top|left|right] -o CALIB.json` and pass --calib CALIB.json"
                           : "");
            goto fail;
        }
        if (tf) { /* else passed over (a slow-motion stretch: kr_pipe_config.min_step_us) */
            if (hook && hook->frame && (s = hook->frame(hook->ctx, kr_pipe_tracker(pipe), tf)) != KR_OK) {
                kr_log(KR_LOG_ERROR, "analyze: %s at %.3f s of %s", kr_status_str(s), f.t_us / 1e6, video);
                goto fail;
            }
            if (of_tr.fp)
                kr_track_write_trace(of_tr.fp, tf);
            if (debug_dir && kr_pipe_get_stats(pipe)->frames % debug_every == 0 && f.t_us >= debug_from * 1e6 &&
                f.t_us <= debug_to * 1e6) {
                kr_image_t ov;
                if (kr_track_draw_overlay(kr_pipe_tracker(pipe), tf, 2, &ov) == KR_OK) {
                    snprintf(path, sizeof path, "%s/f%06lld.png", debug_dir, (long long)f.index);
                    kr_cv_write_image(path, &ov);
                }
            }
        }
        if (tty && kr_clock_us() - last_prog > 200000) {
            last_prog = kr_clock_us();
            progress(f.t_us, info.duration_us, t0);
        }
    }
    if (broke[0])
        kr_pipe_set_broken(pipe, broke);
    if (kr_pipe_finish(pipe) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: %s", match, kr_pipe_error(pipe));
        goto fail;
    }
    double proc_s = (kr_clock_us() - t0) / 1e6;
    if (tty) {
        progress(info.duration_us, info.duration_us, t0);
        fputc('\n', stderr);
    }
    const kr_pipe_stats *ps = kr_pipe_get_stats(pipe);
    int64_t frames = ps->frames, last_t = ps->last_t_us;
    if (ps->light_steadied > 0)
        kr_log(KR_LOG_WARN, "%s: the light flickers (up to %.1f %% RMS): the picture was steadied on %lld frames; "
               "presses there are timed less surely", video, 100 * ps->light_swing_max, (long long)ps->light_steadied);
    if (kr_pipe_noisy(ps))
        kr_log(KR_LOG_WARN, "%s: the picture is noisy (the still mat changes by up to %d levels between frames, %d "
               "on clean footage): the hands' changes were counted beyond it on %lld of %lld frames; presses there "
               "are timed less surely", video, ps->noise_max, KR_TRACK_NOISE_CLEAN, (long long)ps->noisy_frames,
               (long long)frames);

    /* ---- summary ---- */
    snprintf(path, sizeof path, "%s/summary.json", out_dir);
    if (kr_outfile_open(path, &of_su) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: cannot write", path);
        goto fail;
    }
    FILE *sf = of_su.fp;
    double dur_s = last_t / 1e6 + (info.fps > 0 ? 1.0 / info.fps : 0);
    fprintf(sf, "{\n  \"format\": \"karuta-summary/1\",\n  \"video\": \"%s\",\n", video);
    fprintf(sf, "  \"frames\": %lld,\n  \"duration_s\": %.3f,\n  \"fps\": %.3f,\n  \"interlaced\": %s,\n",
            (long long)frames, dur_s, info.fps, info.interlaced ? "true" : "false");
    fprintf(sf, "  \"processing_s\": %.3f,\n  \"speed_x_realtime\": %.2f,\n  \"frames_per_s\": %.1f,\n", proc_s,
            proc_s > 0 ? dur_s / proc_s : 0, proc_s > 0 ? frames / proc_s : 0);
    fprintf(sf, "  \"max_frame_gap_us\": %lld,\n", (long long)ps->max_gap_us);
    fprintf(sf, "  \"rulings\": %d,\n  \"needs_review\": %d,\n", ps->n_rulings, ps->n_review);
    fprintf(sf, "  \"counts\": {\"A\": %d, \"B\": %d},\n", kr_pipe_count(pipe, KR_SIDE_A),
            kr_pipe_count(pipe, KR_SIDE_B));
    if (ps->have_end && side_name(ps->end.winner))
        fprintf(sf, "  \"winner\": \"%s\",\n", side_name(ps->end.winner));
    else
        fprintf(sf, "  \"winner\": null,\n");
    fprintf(sf,
            "  \"observations\": {\"touch\": %d, \"push_out\": %d, \"hand_contact\": %d, \"early_entry\": %d, "
            "\"settle\": %d},\n",
            ps->n_obs[KR_REC_TOUCH], ps->n_obs[KR_REC_PUSH_OUT], ps->n_obs[KR_REC_HAND_CONTACT],
            ps->n_obs[KR_REC_EARLY_ENTRY], ps->n_obs[KR_REC_SETTLE]);
    fprintf(sf,
            "  \"calibration\": {\"source\": \"%s\", \"rms_mm\": %.3f, \"ok\": %s, \"a_side\": \"%s\", "
            "\"readout_us\": %lld, \"readout_from\": \"%s\", \"camera\": ",
            calib_path ? "file" : "video", calib->rms_mm, calib->ok ? "true" : "false",
            kr_calib_a_side_str(calib->a_side), (long long)calib->readout_us, readout_from);
    kr_app_summary_camera(sf, calib);
    fprintf(sf, "},\n");
    kr_app_summary_footage(sf, ps);
    if (broke[0]) {
        fprintf(sf, "  \"complete\": false,\n  \"error\": \"");
        for (const char *c = broke; *c; c++)
            fprintf(sf, (*c == '"' || *c == '\\') ? "\\%c" : ((unsigned char)*c < 32 ? " " : "%c"), *c);
        fprintf(sf, "\"\n}\n");
    } else
        fprintf(sf, "  \"complete\": true,\n  \"error\": null\n}\n");
    if (of_tr.fp && kr_outfile_commit(&of_tr) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: could not write", trace_path);
        goto fail;
    }
    if (kr_outfile_commit(&of_ev) != KR_OK || kr_outfile_commit(&of_ru) != KR_OK ||
        kr_outfile_commit(&of_su) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: could not write the outputs", out_dir);
        goto fail;
    }
    if (broke[0]) {
        kr_log(KR_LOG_ERROR, "%s (ruled the first %.3f s; outputs written)", broke, last_t / 1e6);
        rc = 1;
    } else
        rc = 0;
fail:
    if (hook && hook->calib_out) { /* also on failure: the caller may still be using it */
        *hook->calib_out = calib;
        calib = NULL;
    }
    if (of_ev.fp)
        kr_outfile_abort(&of_ev);
    if (of_ru.fp)
        kr_outfile_abort(&of_ru);
    if (of_su.fp)
        kr_outfile_abort(&of_su);
    if (of_tr.fp)
        kr_outfile_abort(&of_tr);
    if (rc != 0 && made_out)
        rmdir(out_dir); /* made here and nothing kept in it (a folder with outputs stays) */
    if (in)
        fclose(in);
    free(line);
    free(log.r);
    free(rec);
    kr_pipe_destroy(pipe);
    kr_media_reader_destroy(rd);
    kr_calib_destroy(calib);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}
