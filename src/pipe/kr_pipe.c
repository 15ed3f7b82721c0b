/* kr_pipe.c - the per-frame referee pipeline (tracker, event detector, time-ordered
 * merge with the match log, rules engine, review reasons) shared by analyze and live.
 * SPDX-License-Identifier: MIT */
#include "kr_pipe.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DELAY_MAX 640 /* tracked frames held for the detector: 10 s at 64 frames/s */

/* A queued record: a log record or an observation (with its evidence). */
typedef struct pend {
    kr_event_obs obs;    /* obs.rec is the record; the rest only for observations */
    bool         is_obs;
} pend;

typedef struct delayed {
    kr_track_frame fr;
    kr_track_card  cards[KR_TRACK_MAX_CARDS];
} delayed;

struct kr_pipe {
    kr_pipe_config    cfg;
    kr_pipe_sink      sink;
    kr_rules_state   *st, *spec;  /* owned; spec: scratch copy for provisional rulings */
    kr_rules_output  *out;        /* owned scratch */
    kr_event_t       *evd;
    kr_track_t       *trk;
    const kr_calib_t *calib;      /* borrowed */
    double            sx, sy;     /* frame px per camera px */
    int               frame_h;    /* the frames' height (kr_pipe_start_video) */
    kr_rules_record  *layout;     /* owned copy of the first layout record (NULL: none) */
    /* queue, sorted by (t_us, log before observation, arrival) */
    pend             *q;
    size_t            qn, qcap;
    /* observations released (evidence for the review reasons) */
    kr_event_obs     *diag;
    size_t            dn, dcap;
    delayed          *delay;      /* owned ring (NULL without reading_delay_us) */
    size_t            delay_head, delay_n;
    bool              checked_layout, finished;
    /* passing over frames of a fast stretch (cfg.min_step_us) */
    kr_media_gaps_t   rate;       /* every frame fed: its local period (kr_media_gaps_period) */
    int64_t           last_done_t; /* newest frame analysed (INT64_MIN: none) */
    int64_t           held_gap;   /* largest gap of the frames passed over since the last analysed */
    bool              held_key;   /* one of them was a keyframe */
    int32_t           det_lost_seq; /* first reading the detector could not take (0: none) */
    char              broke[512];
    kr_pipe_stats     stats;
    char              err[512];
};

static _Thread_local char create_error[256];

#define set_err(p, st, ...) kr_error_set((p)->err, sizeof(p)->err, (st), __VA_ARGS__)

void kr_pipe_config_default(kr_pipe_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mm_per_px = 3.0;
    cfg->tie_us = 0;
    cfg->hold_us = 0;
    cfg->reading_delay_us = 0;
    cfg->min_step_us = 7000;
}

kr_status kr_pipe_create(const kr_pipe_config *cfg, const kr_pipe_sink *sink, kr_pipe_t **out)
{
    create_error[0] = '\0';
    if (!out)
        return kr_error_set(create_error, sizeof create_error, KR_ERR_INVALID, "pipe: no output pointer");
    *out = NULL;
    kr_pipe_config c;
    if (cfg)
        c = *cfg;
    else
        kr_pipe_config_default(&c);
    if (!(c.mm_per_px >= 1 && c.mm_per_px <= 8))
        return kr_error_set(create_error, sizeof create_error, KR_ERR_INVALID, "pipe: mm_per_px must be within 1 ... 8");
    if (c.tie_us < 0 || c.reading_delay_us < 0 || c.reading_delay_us > 10000000 || c.min_step_us < 0 ||
        c.min_step_us > 100000)
        return kr_error_set(create_error, sizeof create_error, KR_ERR_INVALID,
                            "pipe: tie_us must be >= 0, reading_delay_us within 0 ... 10000000 and min_step_us "
                            "within 0 ... 100000");
    kr_pipe_t *p = calloc(1, sizeof *p);
    if (!p)
        return kr_error_set(create_error, sizeof create_error, KR_ERR_NOMEM, "pipe: out of memory");
    p->cfg = c;
    p->last_done_t = INT64_MIN;
    kr_media_gaps_reset(&p->rate, 0);
    if (sink)
        p->sink = *sink;
    p->st = malloc(sizeof *p->st);
    p->spec = malloc(sizeof *p->spec);
    p->out = malloc(sizeof *p->out);
    p->qcap = 256;
    p->q = malloc(p->qcap * sizeof *p->q);
    p->dcap = 256;
    p->diag = malloc(p->dcap * sizeof *p->diag);
    if (c.reading_delay_us > 0)
        p->delay = malloc(DELAY_MAX * sizeof *p->delay);
    kr_event_config ecfg;
    kr_event_config_default(&ecfg);
    if (!p->st || !p->spec || !p->out || !p->q || !p->diag || (c.reading_delay_us > 0 && !p->delay) ||
        kr_event_create(&ecfg, &p->evd) != KR_OK) {
        kr_pipe_destroy(p);
        return kr_error_set(create_error, sizeof create_error, KR_ERR_NOMEM, "pipe: out of memory");
    }
    kr_rules_config rcfg;
    kr_rules_config_default(&rcfg);
    rcfg.tie_us = c.tie_us;
    if (kr_rules_reset(p->st, &rcfg) != KR_RULES_OK) {
        kr_error_set(create_error, sizeof create_error, KR_ERR_INVALID, "pipe: %s", kr_rules_last_error(p->st));
        kr_pipe_destroy(p);
        return KR_ERR_INVALID;
    }
    p->stats.released_t_us = INT64_MIN;
    p->stats.frame_settle_t_us = -1;
    *out = p;
    return KR_OK;
}

void kr_pipe_destroy(kr_pipe_t *p)
{
    if (!p)
        return;
    kr_track_destroy(p->trk);
    kr_event_destroy(p->evd);
    free(p->st);
    free(p->spec);
    free(p->out);
    free(p->layout);
    free(p->q);
    free(p->diag);
    free(p->delay);
    free(p);
}

/* ---- queue ---------------------------------------------------------------------- */

static int64_t rec_t(const kr_rules_record *r) { return r->has_t ? r->t_us : INT64_MIN; }

static kr_status queue_insert(kr_pipe_t *p, const kr_rules_record *rec, const kr_event_obs *obs)
{
    if (p->qn == p->qcap) {
        size_t nc = p->qcap * 2;
        pend  *nq = realloc(p->q, nc * sizeof *nq);
        if (!nq)
            return set_err(p, KR_ERR_NOMEM, "pipe: out of memory");
        p->q = nq;
        p->qcap = nc;
    }
    int64_t t = rec_t(rec);
    bool    is_obs = obs != NULL;
    size_t  i = p->qn;
    while (i > 0) {
        const pend *e = &p->q[i - 1];
        int64_t     te = rec_t(&e->obs.rec);
        if (te < t || (te == t && (!e->is_obs || is_obs)))
            break;
        i--;
    }
    memmove(&p->q[i + 1], &p->q[i], (p->qn - i) * sizeof *p->q);
    if (obs)
        p->q[i].obs = *obs;
    else {
        memset(&p->q[i].obs, 0, sizeof p->q[i].obs);
        p->q[i].obs.rec = *rec;
    }
    p->q[i].is_obs = is_obs;
    p->qn++;
    p->stats.pending = p->qn;
    return KR_OK;
}

/* ---- review reasons --------------------------------------------------------------- */

static const kr_event_obs *find_obs(const kr_pipe_t *p, const char *id, bool with_queue)
{
    for (size_t i = p->dn; i-- > 0;)
        if (!strcmp(p->diag[i].rec.id, id))
            return &p->diag[i];
    if (with_queue)
        for (size_t i = 0; i < p->qn; i++)
            if (p->q[i].is_obs && !strcmp(p->q[i].obs.rec.id, id))
                return &p->q[i].obs;
    return NULL;
}

static void add_review(kr_ruling *ru, const char *msg)
{
    for (int i = 0; i < ru->n_review; i++)
        if (ru->review[i] == msg || !strcmp(ru->review[i], msg))
            return; /* once per reason */
    if (ru->n_review < KR_RULES_MAX_REVIEW)
        ru->review[ru->n_review++] = msg;
    ru->needs_review = true;
}

/* The detector's and the video's reasons for a judge to look at ru. */
static void review_reasons(const kr_pipe_t *p, kr_ruling *ru, bool with_queue)
{
    if (!p->trk) {
        add_review(ru, "no video: ruled from the match log alone");
        return;
    }
    if (!p->calib->ok)
        add_review(ru, "poor calibration");
    if (p->det_lost_seq > 0 && ru->seq >= p->det_lost_seq)
        add_review(ru, "the event detector could not follow this reading (more reading records than it holds): "
                       "touches were not looked for");
    unsigned fl = kr_event_reading_flags(p->evd, ru->seq);
    if (!ru->established)
        fl &= ~KR_EVENT_FLAGS_PLAY; /* no take, no fault: a missing touch changes nothing */
    for (unsigned b = 1; b; b <<= 1)
        if ((fl & b) && kr_event_flag_reason(b))
            add_review(ru, kr_event_flag_reason(b));
    double near_mm = p->calib->rms_mm * 2 > 3 ? p->calib->rms_mm * 2 : 3;
    for (int e = 0; e < ru->n_evidence; e++) {
        const kr_event_obs *d = find_obs(p, ru->evidence[e], with_queue);
        if (!d)
            continue;
        if (d->hidden)
            add_review(ru, "decisive card or hand hidden on the decisive frames");
        if (d->gap_us > 0)
            add_review(ru, "frames missing around the decisive moment");
        const double margin = kr_event_line_margin(p->evd, d);
        if (d->rec.type == KR_REC_PUSH_OUT && isnan(margin))
            add_review(ru, "the card pushed out was lost from sight, not seen past the line");
        else if (d->rec.type == KR_REC_PUSH_OUT && margin < near_mm)
            add_review(ru, "card within the calibration error of the line at the push-out");
        if (d->rec.type == KR_REC_PUSH_OUT && d->rejoined)
            add_review(ru, "the card pushed out was lost for frames and found again elsewhere: "
                           "its track may have followed something else");
    }
    /* players nearly always make the sends they owe: none seen is more likely a send the
     * video missed than a lost one, and it moves the counts of every later reading */
    if (ru->sends_missing > 0)
        add_review(ru, "a send was owed but not seen made by shimo_start: the counts take it as lost");
    /* ... and a send a player did not owe is rare: the players may have seen the reading
     * otherwise (the take, a fault) than the ruling, or the video took something else for a
     * send (look 7154 race_5ms at 15 fps: A's press 5 ms before B's was missed, the take
     * ruled B's and not flagged; A then sent B a card, as the truth's take called for) */
    if (ru->sends_in_error > 0)
        add_review(ru, "a send was made that the ruling does not call for: the players may have seen the reading "
                       "otherwise");
    if (p->broke[0] && ru->has_take && ru->take_t_us > p->stats.last_t_us)
        add_review(ru, "the video broke before the decisive moment");
}

/* ---- release ---------------------------------------------------------------------- */

static kr_status drain(kr_pipe_t *p)
{
    while (kr_rules_next(p->st, p->out)) {
        if (p->out->type == KR_OUT_RULING) {
            review_reasons(p, &p->out->ruling, false);
            p->stats.n_rulings++;
            p->stats.n_review += p->out->ruling.needs_review;
        } else {
            p->stats.have_end = 1;
            p->stats.end = p->out->end;
        }
        if (p->sink.output) {
            kr_status s = p->sink.output(p->sink.ctx, p->out);
            if (s != KR_OK)
                return set_err(p, s, "pipe: the output sink failed");
        }
    }
    return KR_OK;
}

static kr_status release_one(kr_pipe_t *p, const pend *e)
{
    const kr_rules_record *r = &e->obs.rec;
    const kr_event_obs    *o = e->is_obs ? &e->obs : NULL;
    if (r->has_t && r->t_us > p->stats.released_t_us)
        p->stats.released_t_us = r->t_us;
    if (o) {
        if (p->dn == p->dcap) {
            size_t        nc = p->dcap * 2;
            kr_event_obs *nd = realloc(p->diag, nc * sizeof *nd);
            if (!nd)
                return set_err(p, KR_ERR_NOMEM, "pipe: out of memory");
            p->diag = nd;
            p->dcap = nc;
        }
        p->diag[p->dn++] = *o;
        p->stats.n_obs[r->type]++;
    }
    kr_status s;
    if (p->sink.record && (s = p->sink.record(p->sink.ctx, r, o)) != KR_OK)
        return set_err(p, s, "pipe: the record sink failed");
    if (kr_rules_feed(p->st, r) != KR_RULES_OK) {
        const char *why = kr_rules_last_error(p->st);
        if (p->sink.refused) {
            s = p->sink.refused(p->sink.ctx, r, o, why);
            if (s != KR_OK)
                return set_err(p, s, "%s", why);
        } else if (o)
            kr_log(KR_LOG_WARN, "observation %s at %.3f s rejected by the rules engine: %s", r->id, r->t_us / 1e6, why);
        else
            return set_err(p, KR_ERR_INVALID, "%s", why);
    }
    return drain(p);
}

/* Releases every queued record with t_us <= wm (records without t_us always). */
static kr_status release_until(kr_pipe_t *p, int64_t wm)
{
    size_t    k = 0;
    kr_status s = KR_OK;
    while (k < p->qn && rec_t(&p->q[k].obs.rec) <= wm) {
        /* the sink may add nothing to the queue (single thread), so k stays valid */
        s = release_one(p, &p->q[k]);
        k++;
        if (s != KR_OK)
            break;
    }
    if (k) {
        memmove(p->q, p->q + k, (p->qn - k) * sizeof *p->q);
        p->qn -= k;
        p->stats.pending = p->qn;
    }
    return s;
}

/* The latest time up to which nothing can still come from the detector: just before
 * its horizon (every observation it has not returned yet has t_us >= the horizon; it
 * accounts for contact times still to be put back between frames, presses waiting for
 * their hold, early entries before a known kami_start, a settle's quiet window), minus
 * the configured extra hold. */
static int64_t watermark(const kr_pipe_t *p)
{
    if (p->cfg.hold_us < 0 || !p->stats.frames)
        return INT64_MIN;
    int64_t h = kr_event_horizon(p->evd);
    if (h == INT64_MIN || h == INT64_MAX)
        return h;
    return h - 1 - p->cfg.hold_us;
}

/* Queues what the detector reported. */
static kr_status take_obs(kr_pipe_t *p, const kr_event_obs *eo, int ne, int64_t now_t)
{
    for (int i = 0; i < ne; i++) {
        kr_event_obs o = eo[i];
        if (o.rec.type != KR_REC_EARLY_ENTRY && now_t - o.rec.t_us > p->stats.max_obs_late_us)
            p->stats.max_obs_late_us = now_t - o.rec.t_us;
        if (o.rec.t_us < p->stats.released_t_us) {
            p->stats.late_obs++;
            kr_log(KR_LOG_WARN, "%s at %.3f s came %.0f ms after its time was released (raise the hold); "
                   "released now", kr_rules_rec_type_name(o.rec.type), o.rec.t_us / 1e6,
                   (p->stats.released_t_us - o.rec.t_us) / 1e3);
            o.rec.t_us = p->stats.released_t_us;
        }
        if (o.rec.type == KR_REC_SETTLE)
            p->stats.frame_settle_t_us = o.rec.t_us;
        kr_status s = queue_insert(p, &o.rec, &o);
        if (s != KR_OK)
            return s;
    }
    p->stats.frame_obs += ne;
    return KR_OK;
}

static kr_status detect(kr_pipe_t *p, const kr_track_frame *tf)
{
    const kr_event_obs *eo;
    int                 ne;
    p->stats.det_t_us = tf->t_us;
    kr_status s = kr_event_update(p->evd, tf, &eo, &ne);
    if (s != KR_OK)
        return set_err(p, s, "pipe: event detector: %s", kr_status_str(s));
    return take_obs(p, eo, ne, tf->t_us);
}

/* ---- public ----------------------------------------------------------------------- */

kr_status kr_pipe_add_record(kr_pipe_t *p, const kr_rules_record *rec)
{
    if (!p || !rec)
        return KR_ERR_INVALID;
    if (p->finished)
        return set_err(p, KR_ERR_INVALID, "pipe: record added after the end");
    if (rec->type == KR_REC_LAYOUT && !p->layout) { /* a later one: the engine judges it */
        for (int k = 0; k < rec->n_cards; k++)
            if (!rec->cards[k].has_pos)
                return set_err(p, KR_ERR_INVALID, "layout card %d has no x_mm/y_mm; the video needs card positions",
                               rec->cards[k].card);
        p->layout = malloc(sizeof *p->layout);
        if (!p->layout)
            return set_err(p, KR_ERR_NOMEM, "pipe: out of memory");
        *p->layout = *rec;
    } else if (rec->type == KR_REC_MATCH) {
        kr_event_declare_hand(p->evd, 0, rec->declared[0]);
        kr_event_declare_hand(p->evd, 1, rec->declared[1]);
    } else if (rec->type == KR_REC_KAMI_START || rec->type == KR_REC_SHIMO_START || rec->type == KR_REC_KIMARIJI ||
               rec->type == KR_REC_READING_VOID) {
        /* the record still goes to the engine: the log is authoritative, the detector
         * only uses readings to know when play is on */
        if (kr_event_reading(p->evd, rec->type, rec->seq, rec->card, rec->t_us) != KR_OK) {
            /* the detector's reading list is full: from this reading on it does not know
             * when play is on, so no touch is looked for; never a silent ruling */
            if (!p->det_lost_seq || rec->seq < p->det_lost_seq) {
                if (!p->det_lost_seq)
                    kr_log(KR_LOG_WARN, "the event detector cannot take the reading record at %.3f s (too many "
                           "readings): rulings from reading %d on need review", rec->t_us / 1e6, rec->seq);
                p->det_lost_seq = rec->seq > 0 ? rec->seq : 1;
            }
        }
    }
    return queue_insert(p, rec, NULL);
}

int kr_pipe_has_layout(const kr_pipe_t *p) { return p && p->layout; }

const kr_rules_record *kr_pipe_layout(const kr_pipe_t *p) { return p ? p->layout : NULL; }

static int map_scaled(void *ctx, double x, double y, double *px, double *py)
{
    const kr_pipe_t *p = ctx;
    double           rx, ry;
    if (kr_calib_mm_to_px(p->calib, x, y, &rx, &ry) != 0)
        return -1;
    *px = (rx + 0.5) * p->sx - 0.5;
    *py = (ry + 0.5) * p->sy - 0.5;
    return 0;
}

kr_status kr_pipe_start_video(kr_pipe_t *p, const kr_calib_t *calib, int frame_w, int frame_h)
{
    if (!p || !calib || frame_w < 16 || frame_h < 16)
        return KR_ERR_INVALID;
    if (p->trk)
        return set_err(p, KR_ERR_INVALID, "pipe: video started twice");
    if (!p->layout)
        return set_err(p, KR_ERR_INVALID, "pipe: no layout record to track");
    p->calib = calib;
    p->sx = (double)frame_w / calib->img_w;
    p->sy = (double)frame_h / calib->img_h;
    p->frame_h = frame_h;
    /* a rolling shutter: each observation timed by its row, through the tracker's mapping */
    if (kr_event_set_rolling(p->evd, calib->readout_us, map_scaled, p, frame_h) != KR_OK)
        return set_err(p, KR_ERR_INVALID, "pipe: readout_us %lld us refused", (long long)calib->readout_us);
    /* where the camera stands: a press's descent shows less near its nadir (kr_event_set_camera);
     * a homography that gives no camera over the mat leaves the errors as they are */
    kr_calib_camera cam;
    if (kr_calib_camera_pose(calib, &cam) == KR_OK)
        kr_event_set_camera(p->evd, cam.x_mm, cam.y_mm, cam.height_mm);
    kr_track_config tcfg;
    kr_track_config_default(&tcfg);
    tcfg.mm_per_px = p->cfg.mm_per_px;
    kr_status s = kr_track_create(&tcfg, map_scaled, p, frame_w, frame_h, &p->trk);
    if (s != KR_OK)
        return set_err(p, s, "tracker: %s", kr_status_str(s));
    kr_track_card_init cinit[KR_TRACK_MAX_CARDS];
    int                nc = 0;
    for (int k = 0; k < p->layout->n_cards && nc < KR_TRACK_MAX_CARDS; k++) {
        cinit[nc].id = p->layout->cards[k].card;
        cinit[nc].owner = p->layout->cards[k].owner == KR_SIDE_B ? KR_TRACK_B : KR_TRACK_A;
        cinit[nc].x_mm = p->layout->cards[k].x_mm;
        cinit[nc].y_mm = p->layout->cards[k].y_mm;
        nc++;
    }
    if (kr_track_set_layout(p->trk, cinit, nc) != KR_OK) {
        set_err(p, KR_ERR_INVALID, "tracker: %s", kr_track_last_error(p->trk));
        kr_track_destroy(p->trk);
        p->trk = NULL;
        return KR_ERR_INVALID;
    }
    p->stats.video = 1;
    return KR_OK;
}

/* Whether the frame at t_us is passed over (kr_pipe_config.min_step_us): in a fast stretch
 * (the local period of the frames fed, kr_media_gaps_period, under 0.8 min_step_us), less
 * than min_step_us after the last analysed frame. Its gap and keyframe mark are held for
 * the next analysed frame. */
static bool pass_over(kr_pipe_t *p, int64_t t_us, int64_t gap_us, bool key)
{
    kr_media_gaps_feed(&p->rate, t_us);
    if (p->cfg.min_step_us <= 0 || p->last_done_t == INT64_MIN || p->rate.n < KR_MEDIA_GAP_RING ||
        t_us - p->last_done_t >= p->cfg.min_step_us || kr_media_gaps_period(&p->rate) * 10 >= p->cfg.min_step_us * 8)
        return false;
    if (gap_us > p->held_gap)
        p->held_gap = gap_us;
    p->held_key |= key;
    return true;
}

/* One frame, BGR (bgr) or YUV (yuv): exactly one is set; key: an intra-coded frame. */
static kr_status frame_in(kr_pipe_t *p, const kr_image_t *bgr, const kr_yuv_t *yuv, int64_t t_us, int64_t gap_us,
                          bool key, const kr_track_frame **tf_out)
{
    if (!p->trk || p->finished)
        return set_err(p, KR_ERR_INVALID, "pipe: frame without video started, or after the end");
    if (tf_out)
        *tf_out = NULL;
    if (pass_over(p, t_us, gap_us, key)) {
        p->stats.frames++;
        p->stats.passed_over++;
        p->stats.last_t_us = t_us;
        p->stats.frame_obs = 0;
        p->stats.frame_settle_t_us = -1;
        return KR_OK;
    }
    if (p->held_gap > gap_us)
        gap_us = p->held_gap;
    if (key || p->held_key)
        kr_event_keyframe(p->evd, t_us);
    p->held_gap = 0;
    p->held_key = false;
    p->last_done_t = t_us;
    const kr_track_frame *tf;
    kr_status s = yuv ? kr_track_update_yuv(p->trk, yuv, t_us, gap_us, &tf) : kr_track_update(p->trk, bgr, t_us, gap_us, &tf);
    if (s != KR_OK)
        return set_err(p, s, "tracker: %s", kr_track_last_error(p->trk));
    if (tf_out)
        *tf_out = tf;
    p->stats.frames++;
    p->stats.last_t_us = t_us;
    if (gap_us > p->stats.max_gap_us)
        p->stats.max_gap_us = gap_us;
    if (tf->light_swing > p->stats.light_swing_max)
        p->stats.light_swing_max = tf->light_swing;
    p->stats.light_steadied += tf->light_steadied;
    if (tf->noise_floor > p->stats.noise_max)
        p->stats.noise_max = tf->noise_floor;
    p->stats.noisy_frames += tf->noise_floor > KR_TRACK_NOISE_CLEAN;
    p->stats.frame_obs = 0;
    p->stats.frame_settle_t_us = -1;
    if (tf->ready && !p->checked_layout) {
        p->checked_layout = true;
        int first = -1;
        for (int k = 0; k < tf->n_cards; k++)
            if (tf->cards[k].contrast < 12) {
                p->stats.layout_missing++;
                if (first < 0)
                    first = k;
            }
        if (first >= 0)
            return set_err(p, KR_ERR_INVALID,
                           "layout card %d (territory %s, x %.1f mm, y %.1f mm) is not on the mat "
                           "(no card seen there; %d of the layout's %d cards not seen)",
                           tf->cards[first].id, tf->cards[first].owner ? "B" : "A", tf->cards[first].x_mm,
                           tf->cards[first].y_mm, p->stats.layout_missing, tf->n_cards);
    }
    if (!p->delay) {
        s = detect(p, tf);
    } else {
        /* the detector sees the frame reading_delay_us later: a deep copy in the ring */
        if (p->delay_n == DELAY_MAX) { /* full: the oldest goes now */
            s = detect(p, &p->delay[p->delay_head % DELAY_MAX].fr);
            p->delay_head++;
            p->delay_n--;
            if (s != KR_OK)
                return s;
        }
        delayed *d = &p->delay[(p->delay_head + p->delay_n) % DELAY_MAX];
        d->fr = *tf;
        int nc = tf->n_cards < KR_TRACK_MAX_CARDS ? tf->n_cards : KR_TRACK_MAX_CARDS;
        memcpy(d->cards, tf->cards, (size_t)nc * sizeof *d->cards);
        d->fr.cards = d->cards;
        d->fr.n_cards = nc;
        p->delay_n++;
        s = KR_OK;
        while (s == KR_OK && p->delay_n &&
               p->delay[p->delay_head % DELAY_MAX].fr.t_us <= t_us - p->cfg.reading_delay_us) {
            s = detect(p, &p->delay[p->delay_head % DELAY_MAX].fr);
            p->delay_head++;
            p->delay_n--;
        }
    }
    if (s != KR_OK)
        return s;
    return release_until(p, watermark(p));
}

kr_status kr_pipe_frame(kr_pipe_t *p, const kr_image_t *bgr, int64_t t_us, int64_t gap_us,
                        const kr_track_frame **tf)
{
    if (!p || !bgr)
        return KR_ERR_INVALID;
    return frame_in(p, bgr, NULL, t_us, gap_us, false, tf);
}

kr_status kr_pipe_feed(kr_pipe_t *p, const kr_frame_t *f, const kr_track_frame **tf)
{
    if (!p || !f)
        return KR_ERR_INVALID;
    if (f->yuv.y)
        return frame_in(p, NULL, &f->yuv, f->t_us, f->gap_us, f->key, tf);
    if (!f->img.px)
        return KR_ERR_INVALID;
    return frame_in(p, &f->img, NULL, f->t_us, f->gap_us, f->key, tf);
}

kr_status kr_pipe_set_readout(kr_pipe_t *p, int64_t readout_us)
{
    if (!p || !p->trk)
        return KR_ERR_INVALID;
    if (kr_event_set_rolling(p->evd, readout_us, map_scaled, p, p->frame_h) != KR_OK)
        return set_err(p, KR_ERR_INVALID, "pipe: readout_us %lld us refused (an observation has come out)",
                       (long long)readout_us);
    return KR_OK;
}

int kr_pipe_fit_due(const kr_pipe_t *p) { return p && p->trk && !p->finished && kr_track_fit_due(p->trk); }

void kr_pipe_set_broken(kr_pipe_t *p, const char *msg)
{
    if (p)
        snprintf(p->broke, sizeof p->broke, "%s", msg && *msg ? msg : "the video broke");
}

kr_status kr_pipe_finish(kr_pipe_t *p)
{
    if (!p)
        return KR_ERR_INVALID;
    if (p->finished)
        return KR_OK;
    p->finished = true;
    kr_status s = KR_OK;
    while (s == KR_OK && p->delay && p->delay_n) {
        s = detect(p, &p->delay[p->delay_head % DELAY_MAX].fr);
        p->delay_head++;
        p->delay_n--;
    }
    if (s == KR_OK && p->trk) {
        const kr_event_obs *eo;
        int                 ne;
        s = kr_event_finish(p->evd, &eo, &ne);
        if (s == KR_OK)
            s = take_obs(p, eo, ne, p->stats.det_t_us);
    }
    if (s == KR_OK)
        s = release_until(p, INT64_MAX);
    if (s != KR_OK)
        return s;
    kr_rules_finish(p->st);
    return drain(p);
}

void kr_pipe_provisional(kr_pipe_t *p, void (*out)(void *ctx, const kr_rules_output *o), void *ctx)
{
    if (!p || !out || p->finished)
        return;
    *p->spec = *p->st;
    kr_rules_output *o = p->out; /* free between calls */
    for (size_t i = 0; i < p->qn; i++) {
        const kr_rules_record *r = &p->q[i].obs.rec;
        if (r->has_t && r->t_us > p->stats.det_t_us)
            break;
        if (kr_rules_feed(p->spec, r) != KR_RULES_OK)
            continue;
        while (kr_rules_next(p->spec, o))
            ;
    }
    kr_rules_finish(p->spec);
    while (kr_rules_next(p->spec, o))
        if (o->type == KR_OUT_RULING) {
            o->ruling.final = false;
            review_reasons(p, &o->ruling, true);
            out(ctx, o);
        }
}

const kr_pipe_stats *kr_pipe_get_stats(const kr_pipe_t *p) { return p ? &p->stats : NULL; }

bool kr_pipe_noisy(const kr_pipe_stats *ps)
{
    return ps && ps->frames > 0 && (double)ps->noisy_frames >= KR_PIPE_NOISY_SHARE * (double)ps->frames;
}

int32_t kr_pipe_count(const kr_pipe_t *p, kr_rules_side side) { return p ? kr_rules_count(p->st, side) : 0; }

kr_track_t *kr_pipe_tracker(kr_pipe_t *p) { return p ? p->trk : NULL; }

const char *kr_pipe_error(const kr_pipe_t *p) { return p ? p->err : create_error; }
