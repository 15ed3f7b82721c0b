/* kr_cmd_layout.c - karuta-ref layout: read the cards on the field from a still moment
 * of the memorisation period and write a `layout` record (match-log.md) with, per card,
 * its confidence and runner-up id. Refuses (exit 1, one line) rather than guess.
 * SPDX-License-Identifier: MIT                                                       */
#include "kr_app.h"
#include "kr_calib.h"
#include "kr_core.h"
#include "kr_cv.h"
#include "kr_recog.h"
#include "kr_recog_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: karuta-ref layout VIDEO [--at SECONDS] [--calib CALIB.json] [--model MODEL.krm]\n"
            "                         [--cards N] [--force] [--overlay FILE.png] -o LAYOUT.jsonl\n"
            "  Reads the card layout at SECONDS (default 2, or the middle of a shorter video) of\n"
            "  the memorisation period (a median of a few frames when calibrating from the video)\n"
            "  and writes one `layout` record (karuta-match/1) with, per card, its id, owner,\n"
            "  row, centre in mm, confidence and runner-up id.\n"
            "  --calib    camera calibration (default: calibrate from the same frame)\n"
            "  --model    card model (default %s; see models/README.md, karuta-ref enroll)\n"
            "  --cards N  expected number of cards (default 50; 0 = any)\n"
            "  --force    write the layout even when cards are ambiguous (they are marked\n"
            "             \"confirm\":true for a person to check); other problems still fail\n"
            "  --overlay  also write the frame with every card's outline and id (green: sure,\n"
            "             orange: confirm, shows id?runner-up; red: refused) - written even\n"
            "             when the layout is refused, to show a person which cards\n"
            "Exit: 0 written, 1 bad input (wrong count, face-down, cut-off or look-alike cards:\n"
            "the message says which), 2 usage.\n",
            kr_recog_default_model());
}

/* The frame with each card's outline and id, for a person to check (--overlay). */
static void write_overlay(const char *path, kr_recog_scene *sc)
{
    static const uint8_t green[3] = {60, 200, 60}, orange[3] = {0, 150, 255}, red[3] = {40, 40, 230};
    static const uint8_t black[3] = {0, 0, 0};
    for (int i = 0; i < sc->n; i++) {
        const kr_recog_layout_card *c = &sc->cards[i];
        int ok = c->res.verdict == KR_RECOG_OK && !c->cut_off && !c->landscape && c->row;
        const uint8_t *col = ok ? green : c->res.verdict == KR_RECOG_AMBIGUOUS ? orange : red;
        double xy[8], cx = 0, cy = 0;
        for (int k = 0; k < 4; k++) {
            xy[2 * k] = c->corners_px[k][0];
            xy[2 * k + 1] = c->corners_px[k][1];
            cx += xy[2 * k] / 4;
            cy += xy[2 * k + 1] / 4;
        }
        kr_cv_draw_polyline(&sc->frame, xy, 4, 1, col, 2);
        char label[32];
        if (c->res.verdict == KR_RECOG_BLANK)
            snprintf(label, sizeof label, "blank");
        else if (c->res.verdict == KR_RECOG_AMBIGUOUS)
            snprintf(label, sizeof label, "%d?%d", c->res.id, c->res.runner_up);
        else
            snprintf(label, sizeof label, "%d", c->res.id);
        int tw = 0, th = 0;
        kr_cv_text_size(label, 14, 1, &tw, &th);
        kr_cv_draw_text(&sc->frame, label, (int)(cx - tw / 2.0), (int)(cy - th / 2.0), 14, black, 1, col, 0.8);
    }
    if (kr_cv_write_image(path, &sc->frame) != KR_OK)
        kr_log(KR_LOG_WARN, "layout: --overlay %s: cannot write", path);
}

/* 0 when s is a number in [lo, hi]. */
static int parse_num(const char *s, double lo, double hi, double *out)
{
    char  *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

int kr_cmd_layout(int argc, char **argv)
{
    const char *video = NULL, *out = NULL, *calib_path = NULL, *model_path = NULL, *overlay = NULL;
    double      at_s = -1;
    int         expected = 50, force = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--out")) && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(a, "--calib") && i + 1 < argc) {
            calib_path = argv[++i];
        } else if (!strcmp(a, "--model") && i + 1 < argc) {
            model_path = argv[++i];
        } else if (!strcmp(a, "--at") && i + 1 < argc) {
            if (parse_num(argv[++i], 0, 1e6, &at_s)) {
                kr_log(KR_LOG_ERROR, "layout: --at '%s': want seconds >= 0", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--cards") && i + 1 < argc) {
            double v;
            if (parse_num(argv[++i], 0, 100, &v) || v != (int)v) {
                kr_log(KR_LOG_ERROR, "layout: --cards '%s': want a whole number 0..100", argv[i]);
                return 2;
            }
            expected = (int)v;
        } else if (!strcmp(a, "--overlay") && i + 1 < argc) {
            overlay = argv[++i];
        } else if (!strcmp(a, "--force")) {
            force = 1;
        } else if (a[0] == '-' && a[1]) {
            kr_log(KR_LOG_ERROR, "layout: unknown or incomplete option '%s'", a);
            return 2;
        } else if (!video) {
            video = a;
        } else {
            kr_log(KR_LOG_ERROR, "layout: unexpected argument '%s'", a);
            return 2;
        }
    }
    if (!video || !out) {
        kr_log(KR_LOG_ERROR, "layout: need VIDEO and -o LAYOUT.jsonl (see --help)");
        return 2;
    }
    char              msg[2048];
    kr_recog_model_t *m = NULL;
    if (!model_path)
        model_path = kr_recog_default_model();
    if (kr_recog_model_load(model_path, &m, msg, sizeof msg) != KR_OK) {
        kr_log(KR_LOG_ERROR, "layout: --model %s", msg);
        return 1;
    }
    kr_recog_config cfg;
    kr_recog_config_default(&cfg);
    kr_recog_scene sc;
    if (kr_recog_scene_read(video, at_s, calib_path, m, &cfg, &sc, msg, sizeof msg) != KR_OK) {
        kr_log(KR_LOG_ERROR, "layout: %s", msg);
        kr_recog_model_destroy(m);
        return 1;
    }
    kr_recog_model_destroy(m);
    if (overlay)
        write_overlay(overlay, &sc);
    kr_status s = kr_recog_layout_problem(sc.cards, sc.n, expected, msg, sizeof msg);
    if (s != KR_OK) {
        /* Only look-alikes may be forced through. */
        int only_ambiguous = !(expected > 0 && sc.n != expected);
        for (int i = 0; i < sc.n; i++) {
            const kr_recog_layout_card *c = &sc.cards[i];
            if (c->cut_off || c->landscape || !c->row || c->res.verdict == KR_RECOG_BLANK ||
                c->res.verdict == KR_RECOG_UNKNOWN)
                only_ambiguous = 0;
        }
        if (!force || !only_ambiguous) {
            kr_log(KR_LOG_ERROR, "layout: %s at %.2f s: %s%s", video, sc.t_us / 1e6, msg,
                   only_ambiguous ? " (check them, or --force to write them marked \"confirm\")" : "");
            kr_recog_scene_free(&sc);
            return 1;
        }
        kr_log(KR_LOG_WARN, "layout: %s: %s; written with \"confirm\":true", video, msg);
    }
    kr_outfile_t of;
    if (kr_outfile_open(out, &of) != KR_OK) {
        kr_log(KR_LOG_ERROR, "layout: -o %s: cannot write", out);
        kr_recog_scene_free(&sc);
        return 1;
    }
    kr_status ws = kr_recog_layout_write(of.fp, sc.cards, sc.n, 0, 1);
    if (ws != KR_OK)
        kr_outfile_abort(&of);
    else
        ws = kr_outfile_commit(&of);
    if (ws != KR_OK) {
        kr_log(KR_LOG_ERROR, "layout: -o %s: write failed", out);
        kr_recog_scene_free(&sc);
        return 1;
    }
    int amb = 0;
    for (int i = 0; i < sc.n; i++)
        amb += sc.cards[i].res.verdict == KR_RECOG_AMBIGUOUS;
    fprintf(stderr, "layout: %d cards (%d to confirm) from %s at %.2f s -> %s (%.0f ms, recognition %.0f ms)\n",
            sc.n, amb, video, sc.t_us / 1e6, out, sc.read_us / 1e3, sc.recog_us / 1e3);
    kr_recog_scene_free(&sc);
    return 0;
}
