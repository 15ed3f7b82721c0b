/* kr_pipe.h - the per-frame referee pipeline shared by `analyze` and `live`: BGR frame ->
 * tracker -> event detector -> observations merged in time order with the match log ->
 * rules engine -> rulings with the judge's review reasons.
 * SPDX-License-Identifier: MIT                                                       */
#ifndef KR_PIPE_H
#define KR_PIPE_H
#include <stdbool.h>

#include "kr_calib.h" /* kr_calib_t */
#include "kr_core.h"  /* kr_status, kr_image_t */
#include "kr_event.h" /* kr_event_obs */
#include "kr_media.h" /* kr_frame_t */
#include "kr_rules.h" /* kr_rules_record, kr_rules_output */
#include "kr_track.h" /* kr_track_frame */
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started:
 *   kr_pipe_config cfg; kr_pipe_config_default(&cfg);
 *   kr_pipe_sink sink = {ctx, on_record, on_output, on_refused};
 *   kr_pipe_create(&cfg, &sink, &p)
 *   kr_pipe_add_record(p, &rec)            every match-log record, as read (before or
 *                                          while frames of that time are fed)
 *   kr_pipe_start_video(p, calib, w, h)    once the layout record was added and the
 *                                          frame size is known (calib borrowed)
 *   per frame: kr_pipe_feed(p, &frame, &tf)   (a reader's / capture's kr_frame_t: its
 *              YUV planes when it has them, else its BGR image), or
 *              kr_pipe_frame(p, &bgr, t_us, gap_us, &tf)
 *   kr_pipe_finish(p)                      end: all pending records, then the engine's end
 *   kr_pipe_destroy(p)
 * Records reach the sink in time order (log records before observations of the same
 * time, then arrival order), each once, as soon as nothing earlier can still come from
 * the detector (its horizon, kr_event_horizon); every output of the rules engine follows
 * the record that released it.
 * Analyze and live call the same functions, so the same frames and records give the
 * same events and rulings. Single-threaded: one thread calls all functions of a pipe. */

typedef struct kr_pipe_config {
    double  mm_per_px;        /* tracker resolution, mm per mat pixel; 1 ... 8, default 3 */
    int64_t tie_us;           /* rules engine's simultaneous-touch tolerance, us; default 0 */
    int64_t hold_us;          /* records are released once the detector's horizon
                                 (kr_event_horizon: nothing earlier can still come) has passed
                                 them by this much more, us; 0: as soon as it is certain.
                                 < 0: hold everything until kr_pipe_finish. Default 0 */
    int64_t reading_delay_us; /* the detector runs this far behind the tracker so that reading
                                 records arriving up to this late still come before their frames;
                                 0 ... 10000000 us, default 0 */
    int64_t min_step_us;      /* frames are analysed at most this often: where the footage runs
                                 faster (the median of its last KR_MEDIA_GAP_RING frame intervals,
                                 kr_media_gaps_period, under 0.8 of this: a slow-motion stretch,
                                 over about 180 fps at the default), a frame less than this
                                 after the last analysed one is passed over: kr_pipe_frame/feed
                                 return KR_OK with *tf NULL, and its gap and keyframe mark go to
                                 the next analysed frame. The detectors are measured up to 120 fps;
                                 at 240 fps a frame's change around a descending hand is near the
                                 picture's noise (race_20ms: B's press 53 ms early). 0: every frame;
                                 0 ... 100000 us, default 7000 (at 240 fps every other frame) */
} kr_pipe_config;
void kr_pipe_config_default(kr_pipe_config *cfg); /* fills caller's *cfg */

/* Where the results go. Callbacks run on the caller's thread, inside kr_pipe_* calls.
 * A callback returning anything but KR_OK stops that call, which returns the status. */
typedef struct kr_pipe_sink {
    void *ctx; /* borrowed; passed back to every callback */
    /* One record in release order: a log record (obs NULL) or an observation (obs its
     * evidence, rec == &obs->rec). Optional (NULL). */
    kr_status (*record)(void *ctx, const kr_rules_record *rec, const kr_event_obs *obs);
    /* One output of the rules engine: a final ruling with its review reasons, or the
     * match end. Optional (NULL). */
    kr_status (*output)(void *ctx, const kr_rules_output *out);
    /* The rules engine refused rec (why: its one-line message); obs as for record.
     * KR_OK: go on without it. NULL: observations are skipped with a warning and a
     * refused log record stops the call with KR_ERR_INVALID (kr_pipe_error says why). */
    kr_status (*refused)(void *ctx, const kr_rules_record *rec, const kr_event_obs *obs, const char *why);
} kr_pipe_sink;

typedef struct kr_pipe kr_pipe_t; /* opaque */

/* cfg and sink are copied (cfg NULL: defaults). *out owned by the caller (kr_pipe_destroy).
 * KR_ERR_INVALID: cfg out of range (kr_pipe_error(NULL) says which field); KR_ERR_NOMEM. */
kr_status kr_pipe_create(const kr_pipe_config *cfg, const kr_pipe_sink *sink, kr_pipe_t **out);
void      kr_pipe_destroy(kr_pipe_t *p); /* NULL-safe */

/* One match-log record (borrowed for the call; copied). Readings (kami_start, kimariji,
 * reading_void, shimo_start) go to the detector at once (when its reading list is full,
 * rulings from that reading on get a review reason saying so), the match record's
 * declared hands too; the first layout record is kept for kr_pipe_start_video (a later one only
 * goes to the engine, which judges it). A layout card without x_mm/y_mm: KR_ERR_INVALID.
 * The record is queued and released in time order by a later kr_pipe_frame or by
 * kr_pipe_finish (never from here: no callback runs); a record without t_us comes
 * before every timed one. KR_ERR_INVALID after kr_pipe_finish. */
kr_status kr_pipe_add_record(kr_pipe_t *p, const kr_rules_record *rec);

/* 1 once a layout record has been added (kr_pipe_layout gives it), else 0. */
int kr_pipe_has_layout(const kr_pipe_t *p);
const kr_rules_record *kr_pipe_layout(const kr_pipe_t *p); /* owned by p; NULL without one */

/* Builds the tracker for frame_w x frame_h BGR frames (the camera image calib->img_w x
 * calib->img_h, possibly scaled: mat mm map through the calibration, then scale).
 * calib: borrowed, must outlive p. Needs the layout record: KR_ERR_INVALID without one
 * or when called twice; KR_ERR_CV / KR_ERR_NOMEM from the tracker. */
kr_status kr_pipe_start_video(kr_pipe_t *p, const kr_calib_t *calib, int frame_w, int frame_h);

/* One frame (BGR, frame_w x frame_h, borrowed for the call) at t_us (source time, us,
 * increasing) with the gap before it (kr_frame_t.gap_us). *tf (optional) gets the
 * tracker's frame (owned by p's tracker, valid until the next call), or NULL when the frame
 * was passed over (kr_pipe_config.min_step_us). Releases what is
 * due to the sink. No allocation in the steady state (the record queue and the evidence
 * list grow by doubling when a match outgrows them).
 * KR_ERR_INVALID: a layout card is not on the mat (kr_pipe_error names it), or a record
 * refused (see kr_pipe_sink.refused); KR_ERR_CV: tracker failure; a callback's status. */
kr_status kr_pipe_frame(kr_pipe_t *p, const kr_image_t *bgr, int64_t t_us, int64_t gap_us,
                        const kr_track_frame **tf);

/* One frame of a reader or capture (borrowed for the call): f->yuv when it has planes
 * (f->yuv.y: YUV 4:2:0, frame_w x frame_h; the tracker converts only the pixels it reads,
 * with swscale's formula, so a frame gives the same results as its BGR conversion by
 * kr_media / kr_capture), else f->img (BGR), at f->t_us with f->gap_us. Same returns as
 * kr_pipe_frame. */
kr_status kr_pipe_feed(kr_pipe_t *p, const kr_frame_t *f, const kr_track_frame **tf);

/* A rolling shutter's readout measured after the video started (live measures it on the
 * first frames): each observation from now on is timed by its row (kr_event_set_rolling).
 * KR_ERR_INVALID before kr_pipe_start_video, or once an observation has come out. */
kr_status kr_pipe_set_readout(kr_pipe_t *p, int64_t readout_us);

/* 1 when the next frame fed runs the tracker's start-up pose fit of the cards (the one
 * long frame of a run, tens of ms; kr_track_fit_due), else 0 (also before
 * kr_pipe_start_video). live pauses its source around that frame. */
int kr_pipe_fit_due(const kr_pipe_t *p);

/* The video broke (msg: borrowed, copied; one line): rulings decided after the last
 * frame get the review reason "the video broke before the decisive moment". */
void kr_pipe_set_broken(kr_pipe_t *p, const char *msg);

/* End: frames held for the detector, the detector's pending observations, every queued
 * record, then the engine's end (remaining rulings, match end). Once; later calls do
 * nothing. Without video (kr_pipe_start_video never called) every ruling gets the
 * review reason "no video: ruled from the match log alone". */
kr_status kr_pipe_finish(kr_pipe_t *p);

/* Rulings as they would stand now, for a live page: a copy of the engine is fed the
 * queued records up to the newest frame the detector saw and finished; each ruling
 * (final = false, review reasons added) goes to out(ctx, ruling). p is unchanged. */
void kr_pipe_provisional(kr_pipe_t *p, void (*out)(void *ctx, const kr_rules_output *o), void *ctx);

/* Counters for summaries and the page. Owned by p, updated by every call. */
typedef struct kr_pipe_stats {
    int64_t frames;            /* frames fed */
    int64_t passed_over;       /* ... of which not analysed (kr_pipe_config.min_step_us) */
    int64_t last_t_us;         /* newest frame's t_us (0 before any) */
    int64_t det_t_us;          /* newest frame the detector has seen */
    int64_t max_gap_us;        /* largest gap_us fed */
    double  light_swing_max;   /* the lamps' largest flicker seen (kr_track_frame.light_swing) */
    int64_t light_steadied;    /* frames whose picture was steadied against it */
    int     noise_max;         /* the sensor's largest noise seen (kr_track_frame.noise_floor) */
    int64_t noisy_frames;      /* frames whose noise_floor was over KR_TRACK_NOISE_CLEAN */
    int64_t released_t_us;     /* latest t_us released to the sink (INT64_MIN: none) */
    size_t  pending;           /* records queued, not yet released */
    int     frame_obs;         /* observations the last kr_pipe_frame got from the detector (0 for
                                  a frame passed over) */
    int64_t frame_settle_t_us; /* t_us of a settle among them, else -1 */
    int     n_obs[KR_REC_COUNT_]; /* observations released, by record type */
    int     n_rulings, n_review;  /* final rulings released, of which needing review */
    int     late_obs;          /* observations that came after their time was released (written
                                  with t_us raised to it; a longer hold_us avoids them) */
    int64_t max_obs_late_us;   /* largest (frame time at report - observation t_us), early
                                  entries excepted */
    int     have_end;          /* the match end came out (end below) */
    kr_rules_match_end end;
    int     video;             /* kr_pipe_start_video succeeded */
    int     layout_missing;    /* layout cards not seen on the mat at the check (the error names
                                  the first): many of them, a calibration with the players'
                                  sides the other way round, or another match's layout */
} kr_pipe_stats;
const kr_pipe_stats *kr_pipe_get_stats(const kr_pipe_t *p);

/* The picture is noisy (said to the user): at least KR_PIPE_NOISY_SHARE of the frames fed had
 * a sensor's noise over the clean footage's (kr_pipe_stats.noisy_frames). The measure's median
 * over frames stays over it for a few frames here and there on clean renders (9 of the demo's
 * 773 at 30 fps, 13 of full_match's 5908); under a sensor's noise of 12 levels, on every frame. */
#define KR_PIPE_NOISY_SHARE 0.1
bool kr_pipe_noisy(const kr_pipe_stats *ps);

/* Side counts from the engine (cards in A's / B's territory so far). */
int32_t kr_pipe_count(const kr_pipe_t *p, kr_rules_side side);

/* The tracker (owned by p; NULL before kr_pipe_start_video), e.g. for overlays. */
kr_track_t *kr_pipe_tracker(kr_pipe_t *p);

/* Last error text of p (one line); p NULL: the last failed create. Never NULL. */
const char *kr_pipe_error(const kr_pipe_t *p);

#ifdef __cplusplus
}
#endif
#endif /* KR_PIPE_H */
