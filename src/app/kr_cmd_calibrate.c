/* kr_cmd_calibrate.c - karuta-ref calibrate VIDEO [--at SECONDS] -o CALIB.json: the
 * camera-to-mat calibration (calib/README.md) and an overlay PNG next to it to check.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_app_opts.h"
#include "kr_calib.h"
#include "kr_core.h"
#include "kr_cv.h"
#include "kr_media.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: karuta-ref calibrate VIDEO [--at SECONDS] -o CALIB.json [options]\n"
            "  Finds the laid-out cards in a still moment of VIDEO (the memorisation period),\n"
            "  fits the camera-to-mat mapping (homography + radial lens distortion) and writes\n"
            "  CALIB.json (calib/README.md) and CALIB.png, an overlay to check by eye: field and\n"
            "  competition lines (red), rows (cyan), cards as seen (green) and as fitted (magenta).\n"
            "  --at SECONDS      time of the still moment (default: 2 s, the middle of videos shorter\n"
            "                    than 4 s, then 1, 0.5, 4, 8, 16 s while the scene moves there);\n"
            "                    a moving scene at a given --at is refused\n"
            "  -o, --out PATH    the calibration file to write (required)\n"
            "  --a-side SIDE     where player A sits in the image: bottom (default), top, left, right\n"
            "  --min-cards N     fewest card outlines to accept (default 12)\n"
            "  --frames N        frames combined around --at, 1..9 (default 5)\n"
            "  --lens LENS.json  use this lens (from --board, or an earlier calibration of the same\n"
            "                    camera) and fit only the homography\n"
            "  --readout-us N    the camera's rolling shutter: microseconds from reading the image's\n"
            "                    top row to its bottom row (the sensor's readout time; 0 = all at\n"
            "                    once). Default: measured from the lights' flicker when its bands\n"
            "                    show in the first 2 s, else 0. analyze times each contact by its row\n"
            "  --no-overlay      do not write the PNG\n"
            "Lens from a printed board (optional, more precise):\n"
            "  karuta-ref calibrate --write-board BOARD.png   the ChArUco board to print (calib/README.md)\n"
            "  karuta-ref calibrate BOARD.mp4 --board -o LENS.json\n"
            "                    VIDEO shows the board moved and tilted all over the picture;\n"
            "                    writes the lens (karuta-lens/1) for --lens\n"
            "Exit status: 0 written (a poor calibration is written with quality.ok = false and\n"
            "a warning), 1 bad input or no calibration possible, 2 usage error.\n");
}

static int parse_double(const char *s, double *out)
{
    char *end = NULL;
    if (!s || !*s)
        return 0;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* CALIB.json -> CALIB.png (or CALIB.json.png when the name has no .json). */
static void overlay_path(const char *json, char *out, size_t n)
{
    size_t len = strlen(json);
    if (len > 5 && !strcmp(json + len - 5, ".json"))
        snprintf(out, n, "%.*s.png", (int)(len - 5), json);
    else
        snprintf(out, n, "%s.png", json);
}

static int write_overlay(const kr_calib_t *c, kr_image_t *frame, const char *path)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.png", path, (long)getpid());
    if (kr_calib_draw_overlay(c, frame) != KR_OK || kr_cv_write_image(tmp, frame) != KR_OK) {
        remove(tmp);
        return -1;
    }
    if (rename(tmp, path)) {
        remove(tmp);
        return -1;
    }
    return 0;
}

/* The printable board at 12 px/mm (304.8 dpi): print at 100 % scale. */
static int write_board(const char *path)
{
    kr_calib_board b;
    kr_image_t img;
    uint8_t *px = NULL;
    kr_calib_board_default(&b);
    if (kr_calib_board_image(&b, 12.0, &img, &px) != KR_OK) {
        kr_log(KR_LOG_ERROR, "calibrate: %s", kr_calib_error());
        return 1;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.png", path, (long)getpid());
    int rc = 0;
    if (kr_cv_write_image(tmp, &img) != KR_OK || rename(tmp, path)) {
        remove(tmp);
        kr_log(KR_LOG_ERROR, "calibrate: %s: cannot write the board image", path);
        rc = 1;
    } else
        printf("%s: ChArUco board %dx%d squares of %.0f mm (DICT_5X5_100), %dx%d px at 12 px/mm: "
               "print at 100%% scale (304.8 dpi) = %.0f x %.0f mm\n", path, b.squares_x, b.squares_y,
               b.square_mm, img.w, img.h, img.w / 12.0, img.h / 12.0);
    free(px);
    return rc;
}

static int lens_from_board(const char *video, const char *out)
{
    kr_calib_board b;
    kr_calib_lens l;
    kr_calib_board_default(&b);
    if (kr_calib_lens_from_video(&b, video, 500000, &l) != KR_OK) {
        kr_log(KR_LOG_ERROR, "calibrate: --board: %s", kr_calib_error());
        return 1;
    }
    if (kr_calib_lens_save(&l, out) != KR_OK) {
        kr_log(KR_LOG_ERROR, "calibrate: %s", kr_calib_error());
        return 1;
    }
    printf("%s: lens from %d board views: fx %.1f fy %.1f px, k1 %.4f k2 %.4f, rms %.3f px\n", out,
           l.views, l.fx, l.fy, l.dist[0], l.dist[1], l.rms_px);
    return 0;
}

int kr_cmd_calibrate(int argc, char **argv)
{
    const char *video = NULL, *out = NULL, *lens = NULL, *board_png = NULL;
    int overlay = 1, board = 0;
    long long readout_us = -1; /* -1: measured from the lights' flicker, else none */
    kr_calib_config cfg;
    kr_calib_video_config vc;
    kr_calib_config_default(&cfg);
    kr_calib_video_config_default(&vc);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--at")) {
            double s;
            if (!parse_double(val, &s) || s < 0) {
                kr_log(KR_LOG_ERROR, "calibrate: --at needs a time in seconds >= 0");
                return 2;
            }
            vc.at_us = (int64_t)llround(s * 1e6);
            i++;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (!val || !*val) {
                kr_log(KR_LOG_ERROR, "calibrate: %s needs a file name", a);
                return 2;
            }
            out = val;
            i++;
        } else if (!strcmp(a, "--a-side")) {
            if (!val || kr_calib_a_side_parse(val, &cfg.a_side)) {
                kr_log(KR_LOG_ERROR, "calibrate: --a-side needs bottom, top, left or right");
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--min-cards") || !strcmp(a, "--frames")) {
            double v;
            int frames = !strcmp(a, "--frames");
            if (!parse_double(val, &v) || v != floor(v) || (frames ? (v < 1 || v > 9) : (v < 6 || v > 50))) {
                kr_log(KR_LOG_ERROR, "calibrate: %s needs an integer %s", a, frames ? "1..9" : "6..50");
                return 2;
            }
            if (frames)
                vc.frames = (int)v;
            else
                cfg.min_cards = (int)v;
            i++;
        } else if (!strcmp(a, "--lens")) {
            if (!val || !*val) {
                kr_log(KR_LOG_ERROR, "calibrate: --lens needs a calibration file");
                return 2;
            }
            lens = val;
            i++;
        } else if (!strcmp(a, "--readout-us")) {
            if (kr_app_opt_int("calibrate", a, val, 0, KR_CALIB_MAX_READOUT_US, &readout_us))
                return 2;
            i++;
        } else if (!strcmp(a, "--no-overlay")) {
            overlay = 0;
        } else if (!strcmp(a, "--board")) {
            board = 1;
        } else if (!strcmp(a, "--write-board")) {
            if (!val || !*val) {
                kr_log(KR_LOG_ERROR, "calibrate: --write-board needs a PNG file name");
                return 2;
            }
            board_png = val;
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            kr_log(KR_LOG_ERROR, "calibrate: unknown option '%s' (see karuta-ref calibrate --help)", a);
            return 2;
        } else if (video) {
            kr_log(KR_LOG_ERROR, "calibrate: more than one video given ('%s' and '%s')", video, a);
            return 2;
        } else {
            video = a;
        }
    }
    if (board_png)
        return write_board(board_png);
    if (board && video && out)
        return lens_from_board(video, out);
    if (!video || !out) {
        kr_log(KR_LOG_ERROR, "calibrate: %s (see karuta-ref calibrate --help)",
               !video ? "no VIDEO given" : "no output given (-o CALIB.json)");
        return 2;
    }
    kr_calib_lens lens_data;
    if (lens) {
        if (kr_calib_lens_load(lens, &lens_data) != KR_OK) {
            kr_log(KR_LOG_ERROR, "calibrate: --lens: %s", kr_calib_error());
            return 1;
        }
        kr_calib_config_set_lens(&cfg, &lens_data);
    }
    kr_calib_t *c = NULL;
    kr_image_t frame;
    uint8_t *px = NULL;
    int rc = 1;
    if (kr_calib_create_from_video(&cfg, &vc, video, &c, &frame, &px) != KR_OK) {
        kr_log(KR_LOG_ERROR, "calibrate: %s", kr_calib_error());
        goto done;
    }
    if (lens && (frame.w != lens_data.img_w || frame.h != lens_data.img_h)) {
        kr_log(KR_LOG_ERROR, "calibrate: --lens %s is for another image size", lens);
        goto done;
    }
    if (readout_us >= 0) {
        c->readout_us = readout_us;
    } else { /* the first frames' flicker bands, when the lamps make them */
        kr_media_reader_t *rd = NULL;
        kr_calib_readout   ro = {0};
        if (kr_media_reader_open(video, &rd) == KR_OK)
            kr_app_readout_from_flicker(rd, NULL, &ro);
        kr_media_reader_destroy(rd);
        c->readout_us = ro.found ? ro.readout_us : 0;
        if (ro.found)
            printf("%s: rolling shutter: the lights' %.0f Hz flicker shows as bands: rows read over %.1f ms (fit "
                   "%.2f)\n", out, ro.flicker_hz, ro.readout_us / 1000.0, ro.fit);
    }
    if (kr_calib_save(c, out) != KR_OK) {
        kr_log(KR_LOG_ERROR, "calibrate: %s", kr_calib_error());
        goto done;
    }
    char png[4096];
    overlay_path(out, png, sizeof png);
    if (overlay && write_overlay(c, &frame, png)) {
        kr_log(KR_LOG_ERROR, "calibrate: %s: cannot write the overlay image", png);
        remove(out); /* all outputs or none */
        goto done;
    }
    printf("%s: %d cards (%d outlines), rms %.2f mm, worst %.2f mm, %.2f px/mm, A at the %s, %s%s\n",
           out, c->n_cards, c->n_found, c->rms_mm, c->worst_mm, c->px_per_mm,
           kr_calib_a_side_str(c->a_side), c->ok ? "quality ok" : "quality POOR: ", c->reason);
    kr_calib_camera cam;
    if (kr_calib_camera_pose(c, &cam) == KR_OK)
        printf("%s: camera %.0f mm above the mat at (%.0f, %.0f) mm, tilted %.1f deg (focal length %s)\n", out,
               cam.height_mm, cam.x_mm, cam.y_mm, cam.tilt_deg, c->intrinsics_known ? "from the lens" : "guessed");
    if (!c->ok)
        kr_log(KR_LOG_WARN, "calibrate: %s: poor calibration: %s", out, c->reason);
    rc = 0;
done:
    free(px);
    kr_calib_destroy(c);
    return rc;
}
