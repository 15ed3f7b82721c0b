/* kr_synth.c - karuta-synth object: create (scenario + simulation + renderer),
 * frame timing, truth accessors, destroy.
 * SPDX-License-Identifier: MIT                                               */
#include "kr_synth_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef KR_SOURCE_ROOT
#define KR_SOURCE_ROOT "."
#endif

void kr_synth_opts_default(kr_synth_opts *o)
{
    memset(o, 0, sizeof *o);
    o->jitter = -1;
    o->drop = -1;
    o->readout = -1;
    o->flicker = -1;
    o->flicker_wave = -1;
    o->shutter = -1;
    o->bframes = -1;
    o->noise = -1;
}

double kr_synth_period_at(const kr_synth_t *s, double t)
{
    const double base = (double)s->fps_den / s->fps_num;
    if (s->ramp_fps <= 0 || t <= s->ramp_from - s->ramp_ease || t >= s->ramp_to + s->ramp_ease)
        return base;
    if (t >= s->ramp_from && t <= s->ramp_to)
        return 1.0 / s->ramp_fps;
    /* easing in or out: the period moves between the two on a smoothstep, in logarithm */
    double u = t < s->ramp_from ? (s->ramp_from - t) / s->ramp_ease : (t - s->ramp_to) / s->ramp_ease;
    u = u * u * (3 - 2 * u);
    return exp(log(1.0 / s->ramp_fps) + u * (log(base) - log(1.0 / s->ramp_fps)));
}

/* Each kept frame i (of the nominal ones, i * period) at (i + jitter * u) * period, u
 * uniform in [-1, 1]; a frame is left out with probability drop (never the first, kept
 * at 0). Without jitter and drops, exact rational times rounded to the microsecond.
 * With a slow-motion ramp (frame_ramp) each nominal interval is the period at its own
 * middle (kr_synth_period_at), and a frame's jitter is a share of the shorter of
 * its two intervals (the order of the frames is kept where the rate changes).
 * Drawn from its own stream of the seed: the layout, play and look do not change. */
static kr_status frame_times(kr_synth_t *s, char *err, size_t errlen)
{
    const double period = (double)s->fps_den / s->fps_num;
    int nominal = (int)floor(s->duration / period + 1e-9) + 1;
    double *nt = NULL; /* a ramp's nominal times (s) */
    if (s->ramp_fps > 0) {
        int cap = nominal * (int)ceil(s->ramp_fps * period) + 2;
        nt = malloc((size_t)cap * sizeof *nt);
        if (!nt) {
            snprintf(err, errlen, "out of memory (%d frame times)", cap);
            return KR_ERR_NOMEM;
        }
        nominal = 0;
        for (double t = 0; t <= s->duration + 1e-9 && nominal < cap;) {
            nt[nominal++] = t;
            double step = kr_synth_period_at(s, t); /* the period at the interval's middle */
            for (int k = 0; k < 4; k++)
                step = kr_synth_period_at(s, t + step / 2);
            t += step;
        }
    }
    s->frame_t = malloc((size_t)nominal * sizeof *s->frame_t);
    if (!s->frame_t) {
        free(nt);
        snprintf(err, errlen, "out of memory (%d frame times)", nominal);
        return KR_ERR_NOMEM;
    }
    kr_synth_rng rng;
    kr_synth_rng_seed(&rng, s->seed, 11);
    int n = 0;
    for (int i = 0; i < nominal; i++) {
        double u = kr_synth_rng_range(&rng, -1, 1), d = kr_synth_rng_uniform(&rng);
        if (i > 0 && d < s->frame_drop)
            continue;
        if (nt) {
            double near = i + 1 < nominal ? nt[i + 1] - nt[i] : period;
            if (i > 0 && nt[i] - nt[i - 1] < near)
                near = nt[i] - nt[i - 1];
            s->frame_t[n++] = (int64_t)llround((nt[i] + (i > 0 ? s->frame_jitter * u * near : 0)) * 1e6);
        } else if (i == 0 || s->frame_jitter <= 0)
            s->frame_t[n++] = ((int64_t)i * 1000000LL * s->fps_den + s->fps_num / 2) / s->fps_num;
        else
            s->frame_t[n++] = (int64_t)llround((i + s->frame_jitter * u) * period * 1e6);
    }
    free(nt);
    s->n_frames = n;
    return KR_OK;
}

kr_status kr_synth_create(const char *scenario_path, const kr_synth_opts *o, kr_synth_t **out,
                          char *err, size_t errlen)
{
    char dummy[8];
    if (!err) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = 0;
    *out = NULL;
    kr_synth_opts def;
    if (!o) {
        kr_synth_opts_default(&def);
        o = &def;
    }
    kr_synth_t *s = calloc(1, sizeof *s);
    if (!s)
        return KR_ERR_NOMEM;
    kr_status st;
    char poems[1024];
    if (o->poems_path)
        snprintf(poems, sizeof poems, "%s", o->poems_path);
    else if (access("models/hyakunin-isshu.json", R_OK) == 0)
        snprintf(poems, sizeof poems, "models/hyakunin-isshu.json");
    else
        snprintf(poems, sizeof poems, "%s/models/hyakunin-isshu.json", KR_SOURCE_ROOT);
    if ((st = kr_synth_poems_load(poems, s->poems, err, errlen)) != KR_OK)
        goto fail;
    if ((st = kr_synth_scenario_parse(s, scenario_path, o, err, errlen)) != KR_OK)
        goto fail;
    if ((st = frame_times(s, err, errlen)) != KR_OK)
        goto fail;
    if ((st = kr_synth_sim_run(s, err, errlen)) != KR_OK) {
        if (!strstr(err, scenario_path)) {
            char tmp[512];
            snprintf(tmp, sizeof tmp, "%s: %s", scenario_path, err);
            snprintf(err, errlen, "%s", tmp);
        }
        goto fail;
    }
    if ((st = kr_synth_render_init(s, err, errlen)) != KR_OK)
        goto fail;
    *out = s;
    return KR_OK;
fail:
    kr_synth_destroy(s);
    return st;
}

void kr_synth_destroy(kr_synth_t *s)
{
    if (!s)
        return;
    kr_synth_render_free(s->render);
    free(s->frame_t);
    free(s);
}

int kr_synth_frame_count(const kr_synth_t *s) { return s->n_frames; }

int64_t kr_synth_frame_t_us(const kr_synth_t *s, int frame)
{
    return s->frame_t[frame];
}

void kr_synth_frame_size(const kr_synth_t *s, int *w, int *h)
{
    *w = s->w;
    *h = s->h;
}

void kr_synth_fps(const kr_synth_t *s, int *num, int *den)
{
    *num = s->fps_num;
    *den = s->fps_den;
}

int kr_synth_crf(const kr_synth_t *s) { return s->look.crf; }

int kr_synth_gop_s10(const kr_synth_t *s) { return s->look.gop_s10; }
int kr_synth_bframes(const kr_synth_t *s) { return s->look.bframes; }

kr_status kr_synth_render_frame(kr_synth_t *s, int frame, kr_image_t *out)
{
    if (!s || frame < 0 || frame >= s->n_frames || !out)
        return KR_ERR_INVALID;
    return kr_synth_render_do(s, frame, out);
}

void kr_synth_events(const kr_synth_t *s, const kr_synth_event **ev, int *n)
{
    *ev = s->events;
    *n = s->n_events;
}

kr_status kr_synth_card_outline(const kr_synth_t *s, int card, int64_t t_us, double mm[8], double px[8])
{
    if (card < 1 || card > 100 || !s->cards[card].id)
        return KR_ERR_INVALID;
    kr_synth_pose p;
    double z;
    kr_synth_card_pose(s, &s->cards[card], (double)t_us / 1e6, &p, &z);
    double c[8];
    kr_synth_card_corners(&p, c);
    for (int i = 0; i < 4; i++) {
        if (mm) {
            mm[2 * i] = c[2 * i];
            mm[2 * i + 1] = c[2 * i + 1];
        }
        if (px)
            kr_synth_cam_project(&s->cam, c[2 * i], c[2 * i + 1], z, &px[2 * i]);
    }
    return KR_OK;
}

kr_status kr_synth_hand_state(const kr_synth_t *s, int player, int hand, int64_t t_us,
                              double tip_mm[2], double *h_mm, double tip_px[2])
{
    if (player < 0 || player > 1 || hand < 0 || hand > 1)
        return KR_ERR_INVALID;
    const kr_synth_hand *hd = &s->hands[player * 2 + hand];
    if (!hd->used)
        return KR_ERR_INVALID;
    double p[3];
    kr_synth_hand_eval(hd, (double)t_us / 1e6, p, NULL);
    if (tip_mm) {
        tip_mm[0] = p[0];
        tip_mm[1] = p[1];
    }
    if (h_mm)
        *h_mm = p[2];
    if (tip_px)
        kr_synth_cam_project(&s->cam, p[0], p[1], p[2], tip_px);
    return KR_OK;
}

void kr_synth_skin_bgr(const kr_synth_t *s, int player, uint8_t bgr[3])
{
    for (int c = 0; c < 3; c++)
        bgr[c] = (uint8_t)lround(s->players[player & 1].skin[c]);
}
