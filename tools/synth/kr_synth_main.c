/* kr_synth_main.c - karuta-synth SCENARIO.json -o DIR: renders the scenario to
 * DIR/video.mp4 (H.264) and writes match.jsonl, truth.jsonl, meta.json, truth_frames.jsonl.
 * SPDX-License-Identifier: MIT                                                         */
#include "kr_synth.h"
#include "kr_cv.h"
#include "kr_media.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: karuta-synth SCENARIO.json -o DIR [options]\n"
            "  -o, --out DIR        output folder (created): video.mp4, match.jsonl, truth.jsonl,\n"
            "                       meta.json, truth_frames.jsonl\n"
            "  --fps N[/D]          frame rate (default: the scenario's, else 60)\n"
            "  --size WxH           frame size (default: the scenario's, else 1280x720)\n"
            "  --seed N             PRNG seed (default: the scenario's)\n"
            "  --look-seed N        seed of the look alone: what the scenario leaves unset of\n"
            "                       skins, sleeves, camera and look, the tatami's texture and the\n"
            "                       noise (default: the seed); layout, hand sizes and motion keep\n"
            "                       the seed's, so the truth is the same\n"
            "  --duration S         render at most S seconds\n"
            "  --phase F            move every action F (0..1) of a frame period later, so that\n"
            "                       contacts written on round times fall between frames\n"
            "  --readout F          a rolling shutter: the rows read top to bottom over F (0..1)\n"
            "                       of a period (default: the look's readout, else 0)\n"
            "  --flicker F          the lamps' mains flicker, a share of the light (0..0.5;\n"
            "                       default: the look's flicker, else 0.012)\n"
            "  --flicker-hz F       the lamps' flicker frequency, twice the mains' (1..1000;\n"
            "                       default: the look's flicker_hz, else 100; 120 where the\n"
            "                       mains run at 60 Hz)\n"
            "  --shutter F          each frame's exposure, a share (0.01..1) of the period\n"
            "                       (default: the look's shutter, else 0.5)\n"
            "  --flicker-wave W     the lamps' waveform: sine (default: the look's, else sine)\n"
            "                       or square (lamps that switch, LED drivers and dimmers;\n"
            "                       averaged over each row's exposure)\n"
            "  --jitter F           move each frame's time by up to F (0..0.45) of a period, at\n"
            "                       random (a variable-rate file, as phones record; default:\n"
            "                       the scenario's frame_jitter, else 0)\n"
            "  --drop F             leave out this share (0..0.5) of the frames at random\n"
            "                       (default: the scenario's frame_drop, else 0)\n"
            "  --gop S              the video's keyframe interval in seconds, 0.1..10 in tenths\n"
            "                       (where the codec draws the whole picture anew; default:\n"
            "                       the scenario's gop_s, else 2)\n"
            "  --bframes N          B-frames between the video's references, 0..16 (0 as most\n"
            "                       phones record; default: the scenario's bframes, else the\n"
            "                       encoder preset's, 3)\n"
            "  --noise F            the sensor's noise, grey levels (0..40, 1 sigma per channel\n"
            "                       and pixel; default: the look's noise, else 2.2)\n"
            "  --ramp FROM:TO:FPS[:EASE]\n"
            "                       a slow-motion ramp: frames at FPS (1..960) from FROM to TO\n"
            "                       seconds, the rate eased in and out over EASE s (default\n"
            "                       0.1); presentation times stay real time (default: the\n"
            "                       scenario's frame_ramp, else none)\n"
            "  --still SEC:FILE.png also write the frame nearest SEC seconds as a PNG (repeatable)\n"
            "  --no-video           write the logs only\n"
            "  --poems FILE         poem data (default models/hyakunin-isshu.json)\n"
            "  --bench              report render speed (frames/s, without and with encoding)\n");
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The frame nearest sec seconds (the last one past the end). */
static int still_frame(const kr_synth_t *s, double sec)
{
    int n = kr_synth_frame_count(s), best = n - 1;
    for (int f = 0; f < n; f++)
        if (fabs(kr_synth_frame_t_us(s, f) / 1e6 - sec) < fabs(kr_synth_frame_t_us(s, best) / 1e6 - sec))
            best = f;
    return best;
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (errno || e == s || *e || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    kr_log_set_program("karuta-synth");
    const char *scen = NULL, *dir = NULL;
    kr_synth_opts o;
    kr_synth_opts_default(&o);
    bool video = true, bench = false;
    const char *stills[32];
    double still_t[32];
    int n_stills = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (!v) goto missing;
            dir = v; i++;
        } else if (!strcmp(a, "--fps")) {
            if (!v) goto missing;
            long n, d = 1;
            char buf[64];
            snprintf(buf, sizeof buf, "%s", v);
            char *sl = strchr(buf, '/');
            if (sl) {
                *sl = 0;
                if (!parse_int(sl + 1, 1, 100000, &d)) goto bad;
            }
            if (!parse_int(buf, 1, 100000, &n)) goto bad;
            o.fps_num = (int)n; o.fps_den = (int)d; i++;
        } else if (!strcmp(a, "--size")) {
            if (!v) goto missing;
            int w, h;
            char x;
            if (sscanf(v, "%d%c%d", &w, &x, &h) != 3 || x != 'x' || w <= 0 || h <= 0) goto bad;
            o.w = w; o.h = h; i++;
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--look-seed")) {
            if (!v) goto missing;
            char *e;
            errno = 0;
            unsigned long long sd = strtoull(v, &e, 10);
            if (errno || *e || e == v) goto bad;
            if (!strcmp(a, "--seed")) {
                o.seed = sd;
                o.seed_set = true;
            } else {
                o.look_seed = sd;
                o.look_seed_set = true;
            }
            i++;
        } else if (!strcmp(a, "--duration")) {
            if (!v) goto missing;
            char *e;
            double d = strtod(v, &e);
            if (*e || e == v || d <= 0) goto bad;
            o.max_duration_s = d; i++;
        } else if (!strcmp(a, "--flicker-wave")) {
            if (!v) goto missing;
            if (strcmp(v, "sine") && strcmp(v, "square")) goto bad;
            o.flicker_wave = !strcmp(v, "square");
            i++;
        } else if (!strcmp(a, "--bframes")) {
            if (!v) goto missing;
            char *e;
            long b = strtol(v, &e, 10);
            if (*e || e == v || b < 0 || b > 16) goto bad;
            o.bframes = (int)b; i++;
        } else if (!strcmp(a, "--phase")) {
            if (!v) goto missing;
            char *e;
            double f = strtod(v, &e);
            if (*e || e == v || !(f >= 0 && f < 1)) goto bad;
            o.phase = f; i++;
        } else if (!strcmp(a, "--jitter") || !strcmp(a, "--drop") || !strcmp(a, "--readout") ||
                   !strcmp(a, "--flicker") || !strcmp(a, "--shutter") || !strcmp(a, "--flicker-hz") ||
                   !strcmp(a, "--gop") || !strcmp(a, "--noise")) {
            /* numbers: each option's field, its smallest and its largest value */
            static const char *const name[8] = {"--jitter",  "--drop",       "--readout", "--flicker",
                                                "--shutter", "--flicker-hz", "--gop",     "--noise"};
            static const double bot[8] = {0, 0, 0, 0, 0.01, 1, 0.1, 0}, top[8] = {0.45, 0.5, 1, 0.5, 1, 1000, 10, 40};
            double *field[8] = {&o.jitter,  &o.drop,       &o.readout, &o.flicker,
                                &o.shutter, &o.flicker_hz, &o.gop_s,   &o.noise};
            int k = 0;
            while (strcmp(a, name[k]))
                k++;
            if (!v) goto missing;
            char *e;
            double f = strtod(v, &e);
            if (*e || e == v || !(f >= bot[k] && f <= top[k])) goto bad;
            *field[k] = f;
            i++;
        } else if (!strcmp(a, "--ramp")) {
            if (!v) goto missing;
            double r[4] = {0, 0, 0, 0.1};
            int got = 0;
            const char *e = v;
            for (; got < 4; got++) {
                char *f;
                r[got] = strtod(e, &f);
                if (f == e) goto bad;
                e = f;
                if (*e != ':')
                    break;
                e++;
            }
            if (*e || got < 2 || !(r[0] >= 0 && r[1] > r[0] && r[2] >= 1 && r[2] <= 960 && r[3] >= 0 && r[3] <= 5))
                goto bad;
            memcpy(o.ramp, r, sizeof r);
            i++;
        } else if (!strcmp(a, "--still")) {
            if (!v) goto missing;
            const char *c = strchr(v, ':');
            char *e;
            if (!c || n_stills >= 32) goto bad;
            still_t[n_stills] = strtod(v, &e);
            if (e != c) goto bad;
            stills[n_stills++] = c + 1; i++;
        } else if (!strcmp(a, "--poems")) {
            if (!v) goto missing;
            o.poems_path = v; i++;
        } else if (!strcmp(a, "--no-video")) {
            video = false;
        } else if (!strcmp(a, "--bench")) {
            bench = true;
        } else if (a[0] == '-') {
            kr_log(KR_LOG_ERROR, "unknown option '%s' (see --help)", a);
            return 2;
        } else if (!scen) {
            scen = a;
        } else {
            kr_log(KR_LOG_ERROR, "unexpected argument '%s' (see --help)", a);
            return 2;
        }
        continue;
    missing:
        kr_log(KR_LOG_ERROR, "option %s needs a value", a);
        return 2;
    bad:
        kr_log(KR_LOG_ERROR, "option %s: bad value '%s'", a, v);
        return 2;
    }
    if (!scen || !dir) {
        usage(stderr);
        return 2;
    }
    if (make_dirs(dir) != 0) {
        kr_log(KR_LOG_ERROR, "%s: cannot create output folder: %s", dir, strerror(errno));
        return 1;
    }
    char err[600];
    kr_synth_t *s = NULL;
    kr_status st = kr_synth_create(scen, &o, &s, err, sizeof err);
    if (st != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", err[0] ? err : kr_status_str(st));
        return 1;
    }
    int rc = 1;
    kr_media_writer_t *w = NULL;
    char path[1200];
    int fw, fh, fn, fd;
    kr_synth_frame_size(s, &fw, &fh);
    kr_synth_fps(s, &fn, &fd);
    int n = kr_synth_frame_count(s);
    int still_f[32];
    for (int k = 0; k < n_stills; k++)
        still_f[k] = still_frame(s, still_t[k]);
    if (video) {
        snprintf(path, sizeof path, "%s/video.mp4", dir);
        kr_media_writer_config wc;
        kr_media_writer_config_default(&wc);
        if (kr_synth_crf(s) >= 0)
            wc.crf = kr_synth_crf(s);
        wc.gop_s10 = kr_synth_gop_s10(s);
        wc.bframes = kr_synth_bframes(s);
        if ((st = kr_media_writer_create2(path, fw, fh, fn, fd, &wc, &w)) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s: %s", path, kr_media_writer_error(NULL));
            goto done;
        }
    }
    int64_t t_render = 0, t0 = kr_clock_us();
    clock_t c_render = 0;
    for (int f = 0; f < n; f++) {
        bool want_still = false;
        for (int k = 0; k < n_stills; k++)
            want_still |= still_f[k] == f;
        if (!video && !want_still && !bench)
            continue;
        kr_image_t img;
        int64_t a = kr_clock_us();
        clock_t ca = clock();
        if ((st = kr_synth_render_frame(s, f, &img)) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s: frame %d: %s (%s)", scen, f, kr_status_str(st), kr_cv_last_error());
            goto done;
        }
        t_render += kr_clock_us() - a;
        c_render += clock() - ca;
        for (int k = 0; k < n_stills; k++) {
            if (still_f[k] == f) {
                if ((st = kr_cv_write_image(stills[k], &img)) != KR_OK) {
                    kr_log(KR_LOG_ERROR, "%s: cannot write still", stills[k]);
                    goto done;
                }
            }
        }
        if (w && (st = kr_media_writer_write(w, &img, kr_synth_frame_t_us(s, f))) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s: frame %d: %s", path, f, kr_media_writer_error(w));
            goto done;
        }
    }
    if (w) {
        if ((st = kr_media_writer_close(w)) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s: %s", path, kr_media_writer_error(w));
            goto done;
        }
    }
    int64_t t_all = kr_clock_us() - t0;
    if ((st = kr_synth_write_logs(s, dir)) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: cannot write the logs: %s", dir, kr_status_str(st));
        goto done;
    }
    if (bench)
        printf("frames %d size %dx%d: render %.1f frames/s wall (%.1f frames/s of CPU time), "
               "render+encode %.1f frames/s wall\n", n, fw, fh,
               n * 1e6 / (double)(t_render > 0 ? t_render : 1),
               n / ((double)(c_render > 0 ? c_render : 1) / CLOCKS_PER_SEC),
               n * 1e6 / (double)(t_all > 0 ? t_all : 1));
    rc = 0;
done:
    kr_media_writer_destroy(w);
    kr_synth_destroy(s);
    return rc;
}
