/* kr_cmd_analyze.c - karuta-ref analyze VIDEO --match MATCH.jsonl [--calib C] --out DIR:
 * footage -> tracked field -> observations merged into the match log -> rulings, summary.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_calib.h"
#include "kr_core.h"
#include "kr_cv.h"
#include "kr_event.h"
#include "kr_json.h"
#include "kr_media.h"
#include "kr_rules.h"
#include "kr_track.h"

#include <errno.h>
#include <math.h>
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
            "  --tie-us N       simultaneous-touch tolerance for the rules engine (default 0)\n"
            "  --debug-dir D    write tracker overlay PNGs to D (every --debug-every frames)\n"
            "  --debug-every N  default 10\n"
            "  --mm-per-px X    tracker resolution in mm per mat pixel (default 3)\n"
            "  --trace FILE     per-frame tracker state as JSON lines (for tools/eval_track.py)\n");
}

/* Maps mat mm to the (possibly downscaled) decoded frame through the calibration. */
typedef struct map_ctx {
    const kr_calib_t *calib;
    double sx, sy; /* decoded px per raw px */
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

/* Growable arrays of records (allocation outside the per-frame path: doubling). */
typedef struct rec_list {
    kr_rules_record *r;
    kr_event_obs    *diag; /* only for observations (NULL for log records) */
    size_t n, cap;
} rec_list;

static int list_push(rec_list *l, const kr_rules_record *r, const kr_event_obs *o)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 256;
        kr_rules_record *nr = realloc(l->r, nc * sizeof *nr);
        if (!nr)
            return 0;
        l->r = nr;
        if (o || l->diag) {
            kr_event_obs *nd = realloc(l->diag, nc * sizeof *nd);
            if (!nd)
                return 0;
            l->diag = nd;
        }
        l->cap = nc;
    }
    if (o && !l->diag) {
        l->diag = malloc(l->cap * sizeof *l->diag);
        if (!l->diag)
            return 0;
    }
    l->r[l->n] = *r;
    if (l->diag) {
        if (o)
            l->diag[l->n] = *o;
        else
            memset(&l->diag[l->n], 0, sizeof l->diag[l->n]);
    }
    l->n++;
    return 1;
}

static int mkdir_p(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : -1;
    return mkdir(dir, 0777);
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

/* Observation sort: by t_us, stable. */
static int64_t *g_sort_t;
static int cmp_idx(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (g_sort_t[i] != g_sort_t[j])
        return g_sort_t[i] < g_sort_t[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* One line of tracker state per frame (mat mm), for the evaluators. */
static void write_trace(FILE *f, const kr_track_frame *tf)
{
    fprintf(f, "{\"t_us\":%lld,\"ready\":%d,\"gap_us\":%lld,\"contact\":%d,\"hands\":[", (long long)tf->t_us,
            tf->ready, (long long)tf->gap_us, tf->hand_contact);
    for (int p = 0; p < 2; p++) {
        const kr_track_hand *h = &tf->hands[p];
        fprintf(f, "%s{\"player\":\"%c\",\"present\":%d", p ? "," : "", p ? 'B' : 'A', h->present);
        if (h->present)
            fprintf(f, ",\"lead\":[%.1f,%.1f],\"v\":[%.0f,%.0f],\"area\":%.0f,\"in_field\":%d,\"side\":%d,"
                       "\"shadow_px\":%.0f,\"shadow_dist\":%.1f",
                    h->lead_x_mm, h->lead_y_mm, h->vx_mm_s, h->vy_mm_s, h->area_mm2, h->in_field, h->side,
                    h->shadow_px, h->shadow_dist_mm);
        fputc('}', f);
    }
    fprintf(f, "],\"cards\":[");
    for (int k = 0; k < tf->n_cards; k++) {
        const kr_track_card *c = &tf->cards[k];
        fprintf(f, "%s[%d,%.1f,%.1f,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.2f]", k ? "," : "", c->id, c->x_mm, c->y_mm,
                c->moving, c->displaced, c->occluded, c->out_of_field, c->lost, c->change, c->hand_cover[0],
                c->hand_cover[1], c->visible);
    }
    fprintf(f, "]}\n");
}

static const char *side_name(kr_rules_side s) { return s == KR_SIDE_A ? "A" : s == KR_SIDE_B ? "B" : NULL; }

int kr_cmd_analyze(int argc, char **argv)
{
    const char *video = NULL, *match = NULL, *calib_path = NULL, *out_dir = NULL, *debug_dir = NULL;
    const char *trace_path = NULL;
    int debug_every = 10;
    double mmpp = 3.0;
    kr_rules_config rcfg;
    kr_rules_config_default(&rcfg);
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
        } else if (!strcmp(a, "--mm-per-px") && has) {
            mmpp = atof(argv[++i]);
            if (!(mmpp >= 1 && mmpp <= 8)) {
                kr_log(KR_LOG_ERROR, "analyze: --mm-per-px must be within 1 ... 8");
                return 2;
            }
        } else if (!strcmp(a, "--tie-us") && has) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || v < 0) {
                kr_log(KR_LOG_ERROR, "analyze: --tie-us needs a non-negative integer (microseconds)");
                return 2;
            }
            rcfg.tie_us = v;
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

    int rc = 1;
    FILE *in = NULL;
    char *line = NULL;
    size_t lcap = 0;
    rec_list log = {0}, obs = {0};
    kr_rules_record *rec = malloc(sizeof *rec);
    kr_rules_state *st = malloc(sizeof *st);
    kr_rules_output *out = malloc(sizeof *out);
    kr_media_reader_t *rd = NULL;
    kr_calib_t *calib = NULL;
    kr_track_t *trk = NULL;
    kr_event_t *evd = NULL;
    kr_outfile_t of_ev = {0}, of_ru = {0}, of_su = {0}, of_tr = {0};
    size_t *order = NULL;
    int64_t *keys = NULL;
    char broke[512] = "";
    char path[4096];
    if (!rec || !st || !out) {
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
    int layout_idx = -1, have_match = 0;
    while ((nread = getline(&line, &lcap, in)) >= 0) {
        lineno++;
        if (kr_json_is_blank(line, (size_t)nread))
            continue;
        if (kr_json_read_record(line, (size_t)nread, rec, err, sizeof err) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s:%ld: %s", match, lineno, err);
            goto fail;
        }
        if (rec->type == KR_REC_LAYOUT && layout_idx < 0)
            layout_idx = (int)log.n;
        if (rec->type == KR_REC_MATCH)
            have_match = 1;
        if (!list_push(&log, rec, NULL)) {
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
    if (layout_idx < 0) {
        /* no layout typed in: read it from the memorisation period, and put it right
         * after the match record, where a typed one would stand */
        /* the cards lie still before the first reading: look at half that time, at most 2 s */
        double at_s = 2.0;
        for (size_t i = 0; i < log.n; i++)
            if (log.r[i].type == KR_REC_KAMI_START && log.r[i].has_t) {
                at_s = fmin(at_s, log.r[i].t_us / 2e6);
                break;
            }
        if (kr_app_layout_from_video(video, calib_path, at_s, rec) != 0 || !list_push(&log, rec, NULL))
            goto fail;
        size_t at = 0;
        while (at < log.n - 1 && log.r[at].type != KR_REC_MATCH)
            at++;
        at++;
        memmove(&log.r[at + 1], &log.r[at], (log.n - 1 - at) * sizeof log.r[0]);
        log.r[at] = *rec;
        layout_idx = (int)at;
    }
    const kr_rules_record *lay = &log.r[layout_idx];
    for (int k = 0; k < lay->n_cards; k++)
        if (!lay->cards[k].has_pos) {
            kr_log(KR_LOG_ERROR, "%s: layout card %d has no x_mm/y_mm; analyze needs card positions", match,
                   lay->cards[k].card);
            goto fail;
        }

    /* ---- video and calibration ---- */
    if (kr_media_reader_open(video, &rd) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", kr_media_reader_error(NULL));
        goto fail;
    }
    kr_media_info_t info;
    kr_media_reader_info(rd, &info);
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
    } else {
        kr_frame_t f0;
        kr_status s = kr_media_reader_next(rd, &f0);
        if (s != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s: no frame to calibrate from: %s", video, kr_media_reader_error(rd));
            goto fail;
        }
        kr_calib_config ccfg;
        kr_calib_config_default(&ccfg);
        if (kr_calib_create_from_frame(&ccfg, &f0.img, f0.t_us, &calib) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s: cannot calibrate from the first frame: %s", video, kr_calib_error());
            goto fail;
        }
    }
    if (!calib->ok)
        kr_log(KR_LOG_WARN, "calibration is poor (%s): every ruling will need review", calib->reason);
    kr_media_reader_destroy(rd);
    rd = NULL;
    /* track on a half-size picture when the source is large: the mat image is coarser anyway */
    kr_media_reader_config mcfg;
    kr_media_reader_config_default(&mcfg);
    if (info.w >= 1200) {
        mcfg.out_w = (info.w / 2) & ~1;
        mcfg.out_h = (info.h / 2) & ~1;
    }
    if (kr_media_reader_open2(video, &mcfg, &rd) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", kr_media_reader_error(NULL));
        goto fail;
    }
    kr_media_reader_info(rd, &info);
    map_ctx mctx = {calib, (double)info.out_w / info.w, (double)info.out_h / info.h};
    kr_track_config tcfg;
    kr_track_config_default(&tcfg);
    tcfg.mm_per_px = mmpp;
    kr_status s = kr_track_create(&tcfg, map_scaled, &mctx, info.out_w, info.out_h, &trk);
    if (s != KR_OK) {
        kr_log(KR_LOG_ERROR, "analyze: tracker: %s", kr_status_str(s));
        goto fail;
    }
    kr_track_card_init cinit[KR_TRACK_MAX_CARDS];
    int nc = 0;
    for (int k = 0; k < lay->n_cards && nc < KR_TRACK_MAX_CARDS; k++) {
        cinit[nc].id = lay->cards[k].card;
        cinit[nc].owner = lay->cards[k].owner == KR_SIDE_B ? KR_TRACK_B : KR_TRACK_A;
        cinit[nc].x_mm = lay->cards[k].x_mm;
        cinit[nc].y_mm = lay->cards[k].y_mm;
        nc++;
    }
    if (kr_track_set_layout(trk, cinit, nc) != KR_OK) {
        kr_log(KR_LOG_ERROR, "analyze: tracker: %s", kr_track_last_error(trk));
        goto fail;
    }
    kr_event_config ecfg;
    kr_event_config_default(&ecfg);
    if (kr_event_create(&ecfg, &evd) != KR_OK) {
        kr_log(KR_LOG_ERROR, "analyze: out of memory");
        goto fail;
    }
    for (size_t i = 0; i < log.n; i++) {
        const kr_rules_record *r = &log.r[i];
        if (r->type == KR_REC_MATCH) {
            kr_event_declare_hand(evd, 0, r->declared[0]);
            kr_event_declare_hand(evd, 1, r->declared[1]);
        }
        if (r->type == KR_REC_KAMI_START || r->type == KR_REC_SHIMO_START || r->type == KR_REC_KIMARIJI ||
            r->type == KR_REC_READING_VOID)
            kr_event_reading(evd, r->type, r->seq, r->card, r->t_us);
    }
    if (debug_dir && mkdir_p(debug_dir) != 0) {
        kr_log(KR_LOG_ERROR, "%s: cannot create folder", debug_dir);
        goto fail;
    }
    if (mkdir_p(out_dir) != 0) {
        kr_log(KR_LOG_ERROR, "%s: cannot create the output folder: %s", out_dir, strerror(errno));
        goto fail;
    }

    if (trace_path && kr_outfile_open(trace_path, &of_tr) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: cannot write", trace_path);
        goto fail;
    }
    /* ---- frames ---- */
    int tty = isatty(2);
    int64_t t0 = kr_clock_us(), last_prog = 0, frames = 0, last_t = 0, max_gap = 0;
    int checked_layout = 0;
    for (;;) {
        kr_frame_t f;
        s = kr_media_reader_next(rd, &f);
        if (s == KR_ERR_EOF)
            break;
        if (s != KR_OK) {
            snprintf(broke, sizeof broke, "%s", kr_media_reader_error(rd));
            break;
        }
        const kr_track_frame *tf;
        s = kr_track_update(trk, &f.img, f.t_us, f.gap_us, &tf);
        if (s != KR_OK) {
            kr_log(KR_LOG_ERROR, "analyze: tracker: %s", kr_track_last_error(trk));
            goto fail;
        }
        frames++;
        last_t = f.t_us;
        if (f.gap_us > max_gap)
            max_gap = f.gap_us;
        if (tf->ready && !checked_layout) {
            checked_layout = 1;
            for (int k = 0; k < tf->n_cards; k++)
                if (tf->cards[k].contrast < 12) {
                    kr_log(KR_LOG_ERROR,
                           "%s: layout card %d (territory %s, x %.1f mm, y %.1f mm) is not on the mat in %s "
                           "(no card seen there)",
                           match, tf->cards[k].id, tf->cards[k].owner ? "B" : "A", tf->cards[k].x_mm,
                           tf->cards[k].y_mm, video);
                    goto fail;
                }
        }
        const kr_event_obs *eo;
        int ne;
        kr_event_update(evd, tf, &eo, &ne);
        for (int i = 0; i < ne; i++)
            if (!list_push(&obs, &eo[i].rec, &eo[i])) {
                kr_log(KR_LOG_ERROR, "analyze: out of memory");
                goto fail;
            }
        if (of_tr.fp)
            write_trace(of_tr.fp, tf);
        if (debug_dir && frames % debug_every == 0) {
            kr_image_t ov;
            if (kr_track_draw_overlay(trk, tf, 2, &ov) == KR_OK) {
                snprintf(path, sizeof path, "%s/f%06lld.png", debug_dir, (long long)f.index);
                kr_cv_write_image(path, &ov);
            }
        }
        if (tty && kr_clock_us() - last_prog > 200000) {
            last_prog = kr_clock_us();
            progress(f.t_us, info.duration_us, t0);
        }
    }
    {
        const kr_event_obs *eo;
        int ne;
        kr_event_finish(evd, &eo, &ne);
        for (int i = 0; i < ne; i++)
            if (!list_push(&obs, &eo[i].rec, &eo[i])) {
                kr_log(KR_LOG_ERROR, "analyze: out of memory");
                goto fail;
            }
    }
    double proc_s = (kr_clock_us() - t0) / 1e6;
    if (tty) {
        progress(info.duration_us, info.duration_us, t0);
        fputc('\n', stderr);
    }

    /* ---- merge: log records keep their order; observations go in by t_us, after log
     * records of the same time. Records after the point where the video broke stay. ---- */
    size_t total = log.n + obs.n;
    order = malloc((total ? total : 1) * sizeof *order);
    keys = malloc((total ? total : 1) * sizeof *keys);
    if (!order || !keys) {
        kr_log(KR_LOG_ERROR, "analyze: out of memory");
        goto fail;
    }
    /* observations sorted */
    for (size_t i = 0; i < obs.n; i++) {
        order[i] = i;
        keys[i] = obs.r[i].t_us;
    }
    g_sort_t = keys;
    qsort(order, obs.n, sizeof *order, cmp_idx);
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
    if (kr_rules_reset(st, &rcfg) != KR_RULES_OK) {
        kr_log(KR_LOG_ERROR, "analyze: %s", kr_rules_last_error(st));
        goto fail;
    }
    int n_rulings = 0, n_review = 0, have_end = 0;
    kr_rules_match_end end = {0};
    int n_obs_type[KR_REC_COUNT_] = {0};
    size_t li = 0, oi = 0;
    while (li < log.n || oi < obs.n) {
        const kr_rules_record *r;
        const kr_event_obs *diag = NULL;
        int take_log = oi >= obs.n ||
                       (li < log.n && (!log.r[li].has_t || log.r[li].t_us <= obs.r[order[oi]].t_us));
        if (take_log)
            r = &log.r[li++];
        else {
            diag = &obs.diag[order[oi]];
            r = &obs.r[order[oi++]];
            n_obs_type[r->type]++;
        }
        if (kr_json_write_record(of_ev.fp, r) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s/events.jsonl: write failed", out_dir);
            goto fail;
        }
        if (kr_rules_feed(st, r) != KR_RULES_OK) {
            if (diag) {
                kr_log(KR_LOG_WARN, "observation %s at %.3f s rejected by the rules engine: %s", r->id, r->t_us / 1e6,
                       kr_rules_last_error(st));
                continue;
            }
            kr_log(KR_LOG_ERROR, "%s: %s", match, kr_rules_last_error(st));
            goto fail;
        }
        for (int fin = 0; fin < 2; fin++) {
            if (fin == 1 && (li < log.n || oi < obs.n))
                break;
            if (fin == 1)
                kr_rules_finish(st);
            while (kr_rules_next(st, out)) {
                if (out->type == KR_OUT_RULING) {
                    kr_ruling *ru = &out->ruling;
                    /* the tracker's own reasons for a judge to look */
#define ADD_REVIEW(msg)                                                                                  \
    do {                                                                                                 \
        if (ru->n_review < KR_RULES_MAX_REVIEW) {                                                        \
            ru->review[ru->n_review++] = msg;                                                            \
            ru->needs_review = true;                                                                     \
        }                                                                                                \
    } while (0)
                    if (!calib->ok)
                        ADD_REVIEW("poor calibration");
                    {
                        unsigned fl = kr_event_reading_flags(evd, ru->seq);
                        for (unsigned b = 1; b; b <<= 1)
                            if ((fl & b) && kr_event_flag_reason(b))
                                ADD_REVIEW(kr_event_flag_reason(b));
                    }
                    for (int e = 0; e < ru->n_evidence; e++)
                        for (size_t q = 0; q < obs.n; q++) {
                            if (strcmp(obs.r[q].id, ru->evidence[e]))
                                continue;
                            const kr_event_obs *d = &obs.diag[q];
                            if (d->hidden)
                                ADD_REVIEW("decisive card or hand hidden on the decisive frames");
                            if (d->gap_us > 0)
                                ADD_REVIEW("frames missing around the decisive moment");
                            if (d->rec.type == KR_REC_PUSH_OUT &&
                                d->line_margin_mm < (calib->rms_mm * 2 > 3 ? calib->rms_mm * 2 : 3))
                                ADD_REVIEW("card within the calibration error of the line at the push-out");
                        }
                    if (broke[0] && ru->has_take && ru->take_t_us > last_t)
                        ADD_REVIEW("the video broke before the decisive moment");
                    n_rulings++;
                    if (ru->needs_review)
                        n_review++;
                } else {
                    have_end = 1;
                    end = out->end;
                }
                if (kr_json_write_output(of_ru.fp, out) != KR_OK) {
                    kr_log(KR_LOG_ERROR, "%s/rulings.jsonl: write failed", out_dir);
                    goto fail;
                }
            }
        }
    }
    if (log.n + obs.n == 0)
        kr_rules_finish(st);

    /* ---- summary ---- */
    snprintf(path, sizeof path, "%s/summary.json", out_dir);
    if (kr_outfile_open(path, &of_su) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s: cannot write", path);
        goto fail;
    }
    FILE *sf = of_su.fp;
    double dur_s = last_t / 1e6 + (info.fps > 0 ? 1.0 / info.fps : 0);
    fprintf(sf, "{\n  \"format\": \"karuta-summary/1\",\n  \"video\": \"%s\",\n", video);
    fprintf(sf, "  \"frames\": %lld,\n  \"duration_s\": %.3f,\n  \"fps\": %.3f,\n", (long long)frames, dur_s,
            info.fps);
    fprintf(sf, "  \"processing_s\": %.3f,\n  \"speed_x_realtime\": %.2f,\n  \"frames_per_s\": %.1f,\n", proc_s,
            proc_s > 0 ? dur_s / proc_s : 0, proc_s > 0 ? frames / proc_s : 0);
    fprintf(sf, "  \"max_frame_gap_us\": %lld,\n", (long long)max_gap);
    fprintf(sf, "  \"rulings\": %d,\n  \"needs_review\": %d,\n", n_rulings, n_review);
    fprintf(sf, "  \"counts\": {\"A\": %d, \"B\": %d},\n", kr_rules_count(st, KR_SIDE_A), kr_rules_count(st, KR_SIDE_B));
    if (have_end && side_name(end.winner))
        fprintf(sf, "  \"winner\": \"%s\",\n", side_name(end.winner));
    else
        fprintf(sf, "  \"winner\": null,\n");
    fprintf(sf,
            "  \"observations\": {\"touch\": %d, \"push_out\": %d, \"hand_contact\": %d, \"early_entry\": %d, "
            "\"settle\": %d},\n",
            n_obs_type[KR_REC_TOUCH], n_obs_type[KR_REC_PUSH_OUT], n_obs_type[KR_REC_HAND_CONTACT],
            n_obs_type[KR_REC_EARLY_ENTRY], n_obs_type[KR_REC_SETTLE]);
    fprintf(sf, "  \"calibration\": {\"source\": \"%s\", \"rms_mm\": %.3f, \"ok\": %s},\n",
            calib_path ? "file" : "video", calib->rms_mm, calib->ok ? "true" : "false");
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
    if (of_ev.fp)
        kr_outfile_abort(&of_ev);
    if (of_ru.fp)
        kr_outfile_abort(&of_ru);
    if (of_su.fp)
        kr_outfile_abort(&of_su);
    if (of_tr.fp)
        kr_outfile_abort(&of_tr);
    if (in)
        fclose(in);
    free(line);
    free(log.r);
    free(log.diag);
    free(obs.r);
    free(obs.diag);
    free(order);
    free(keys);
    free(rec);
    free(st);
    free(out);
    kr_media_reader_destroy(rd);
    kr_calib_destroy(calib);
    kr_track_destroy(trk);
    kr_event_destroy(evd);
    return rc;
}
