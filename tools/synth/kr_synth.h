/* kr_synth.h - karuta-synth: synthetic overhead match footage with exact ground truth.
 * Scenario JSON in; video frames, match log, true match log and camera truth out.
 * SPDX-License-Identifier: MIT                                                      */
#ifndef KR_SYNTH_H
#define KR_SYNTH_H
#include "kr_core.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Getting started:
 *   kr_synth_opts o; kr_synth_opts_default(&o); (override fps/size/seed)
 *   kr_synth_create("samples/scenarios/own_take.json", &o, &syn, err, sizeof err);
 *   for (i = 0; i < kr_synth_frame_count(syn); i++) kr_synth_render_frame(syn, i, &img);
 *   kr_synth_write_logs(syn, "out/dir");   (match.jsonl, truth.jsonl, meta.json,
 *                                            truth_frames.jsonl)
 *   kr_synth_destroy(syn);
 * Everything is deterministic: same scenario, options and seed give identical bytes. */

typedef struct kr_synth kr_synth_t; /* opaque: scenario, simulation and renderer */

typedef struct kr_synth_opts {
    int         w, h;          /* frame size in px; 0 = scenario's (default 1280x720) */
    int         fps_num;       /* frame rate numerator; 0 = scenario's (default 60)    */
    int         fps_den;       /* frame rate denominator; 0 = 1                        */
    uint64_t    seed;          /* PRNG seed, used only if seed_set                     */
    bool        seed_set;
    uint64_t    look_seed;     /* seed of what the scenario leaves unset of skins,     */
    bool        look_seed_set; /* sleeves, camera and look, and of the picture's       */
                               /* texture and noise, used only if look_seed_set        */
                               /* (default: seed; the truth does not change with it)   */
    double      max_duration_s;/* > 0: cut the clip after this many seconds            */
    const char *poems_path;    /* hyakunin-isshu.json; NULL = models/ (cwd or source) */
    double      phase;         /* 0..1: every action is moved this share of a frame period
                                  later, so contacts fall between frames (0: as written)  */
    double      jitter;        /* < 0: the scenario's frame_jitter (default 0); 0..0.45: each
                                  frame's time moved by up to this share of a period, uniform
                                  (a phone's uneven clock: a variable-rate file)            */
    double      readout;       /* < 0: the look's readout (default 0); 0..1: a rolling shutter
                                  reading the rows over this share of a period            */
    double      flicker;       /* < 0: the look's flicker (default 0.012); 0..0.5: the lamps'
                                  swing of the light, a share                             */
    double      shutter;       /* < 0: the look's shutter (default 0.5); 0.01..1: each frame's
                                  exposure, a share of the period (motion blur, and the
                                  lamps' square wave averaged over it)                      */
    double      flicker_hz;    /* <= 0: the look's flicker_hz (default 100); else the lamps'
                                  flicker frequency (twice the mains': 100 or 120 Hz)       */
    int         flicker_wave;  /* < 0: the look's flicker_wave (default sine); 0 sine; 1 square
                                  (lamps that switch on and off, LED drivers and dimmers)   */
    double      drop;          /* < 0: the scenario's frame_drop (default 0); 0..0.5: this
                                  share of the frames left out at random (never the first) */
    double      ramp[4];       /* ramp[2] > 0: a slow-motion ramp, frames at ramp[2] fps from
                                  ramp[0] to ramp[1] s, eased over ramp[3] s on each side
                                  (the scenario's frame_ramp is replaced); 0: the scenario's */
    double      gop_s;         /* <= 0: the scenario's gop_s (default 2); 0.1..10: the video's
                                  keyframe interval in seconds, in tenths (where the codec
                                  draws the whole picture anew; a camera's own GOP)          */
    int         bframes;       /* < 0: the scenario's bframes (default -1: the encoder preset's,
                                  3); 0..16: B-frames between the video's references (0 as
                                  most phones record: every picture coded as shown)         */
    double      noise;         /* < 0: the look's noise (default 2.2); 0..40: the sensor's noise,
                                  grey levels (1 sigma) per channel and pixel (a dim hall, a
                                  small sensor pushed to a high gain)                       */
} kr_synth_opts;
void kr_synth_opts_default(kr_synth_opts *o);

/* Parses the scenario, builds the layout and runs the simulation (all truth is
 * known after this call). err (may be NULL) receives a one-line message naming
 * the file and the offending field on failure. *out caller-owned: kr_synth_destroy. */
kr_status kr_synth_create(const char *scenario_path, const kr_synth_opts *o,
                          kr_synth_t **out, char *err, size_t errlen);
void      kr_synth_destroy(kr_synth_t *s); /* NULL-safe */

int     kr_synth_frame_count(const kr_synth_t *s);
int64_t kr_synth_frame_t_us(const kr_synth_t *s, int frame); /* presentation time, first = 0 (frame
                                                              * jitter and drops included) */
void    kr_synth_frame_size(const kr_synth_t *s, int *w, int *h);
void    kr_synth_fps(const kr_synth_t *s, int *num, int *den);
int     kr_synth_crf(const kr_synth_t *s); /* H.264 quality the scenario asks for */
int     kr_synth_gop_s10(const kr_synth_t *s); /* keyframe interval, tenths of a second
                                                * (kr_media_writer_config.gop_s10) */
int     kr_synth_bframes(const kr_synth_t *s); /* B-frames, -1 the preset's
                                                * (kr_media_writer_config.bframes) */

/* Renders frame `frame` (frames may be rendered in any order, but in increasing
 * order is fastest). *out is a BGR view owned by s, valid until the next call. */
kr_status kr_synth_render_frame(kr_synth_t *s, int frame, kr_image_t *out);

/* Writes DIR/match.jsonl, DIR/truth.jsonl, DIR/meta.json and DIR/truth_frames.jsonl
 * (each complete or absent). dir must exist. */
kr_status kr_synth_write_logs(const kr_synth_t *s, const char *dir);

/* ---- truth access (tests, evaluators) ---------------------------------- */
typedef enum {
    KR_SYNTH_EV_KAMI_START, KR_SYNTH_EV_KIMARIJI, KR_SYNTH_EV_READING_VOID,
    KR_SYNTH_EV_SHIMO_START, KR_SYNTH_EV_TOUCH, KR_SYNTH_EV_PUSH_OUT,
    KR_SYNTH_EV_HAND_CONTACT, KR_SYNTH_EV_EARLY_ENTRY, KR_SYNTH_EV_SETTLE,
    KR_SYNTH_EV_SEND, KR_SYNTH_EV_REARRANGE
} kr_synth_ev_type;

typedef struct kr_synth_event {
    kr_synth_ev_type type;
    int64_t t_us;      /* exact simulation time (microseconds, not frame-rounded) */
    int     seq;       /* reading number (1-based) for reading records, else 0 */
    int     card;      /* card id or 0 */
    int     player;    /* 0 = A, 1 = B, -1 none */
    int     hand;      /* 0 = left, 1 = right, -1 none */
    int     territory; /* 0 = A, 1 = B, -1 none (touch, push_out) */
    double  x_mm, y_mm;/* rearrange destination (mat mm) */
    int     from;      /* send: sending player */
} kr_synth_event;

/* Truth events in time order. *ev borrowed; valid until kr_synth_destroy. */
void kr_synth_events(const kr_synth_t *s, const kr_synth_event **ev, int *n);

/* Card outline at time t_us: 4 corners in mat mm (x0,y0,...,x3,y3) and in
 * distorted image px. Returns KR_ERR_INVALID if the card is not in the scene. */
kr_status kr_synth_card_outline(const kr_synth_t *s, int card, int64_t t_us,
                                double mm[8], double px[8]);

/* Hand state at time t_us: fingertip (middle finger tip) in mat mm, height above
 * the mat in mm, and the fingertip in distorted image px. Returns KR_ERR_INVALID if
 * that hand does not appear in the scenario. */
kr_status kr_synth_hand_state(const kr_synth_t *s, int player, int hand, int64_t t_us,
                              double tip_mm[2], double *h_mm, double tip_px[2]);

/* Skin colour (BGR) of a player's hands. */
void kr_synth_skin_bgr(const kr_synth_t *s, int player, uint8_t bgr[3]);

#ifdef __cplusplus
}
#endif
#endif /* KR_SYNTH_H */
