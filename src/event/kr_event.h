/* kr_event.h - turns tracked frames into match-log observations: touch (first instant of
 * hand-card contact, timed between frames), push_out, hand_contact, early_entry, settle.
 * SPDX-License-Identifier: MIT                                                       */
#ifndef KR_EVENT_H
#define KR_EVENT_H
#include "kr_core.h"  /* kr_status */
#include "kr_rules.h" /* kr_rules_record: observations are emitted as match-log records */
#include "kr_track.h" /* kr_track_frame */
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started:
 *   kr_event_config cfg; kr_event_config_default(&cfg);
 *   kr_event_create(&cfg, &ev)
 *   kr_event_reading(ev, KR_REC_KAMI_START, seq, card, t_us) for every reading record, in
 *       time order, before or while frames of that time are fed (live: as they come)
 *   per tracked frame: kr_event_keyframe(ev, t_us) first when it was intra-coded, then
 *       kr_event_update(ev, fr, &obs, &n)   obs owned by ev
 *       then kr_event_horizon(ev): everything before it is final (feed the engine up to it)
 *   when writing reading seq's ruling: kr_event_reading_flags(ev, seq), one review reason
 *       per set bit in the words of kr_event_flag_reason()
 *   at the end: kr_event_finish(ev, &obs, &n)
 *   kr_event_destroy(ev)
 * Observations come out when they are final, a few frames after their t_us (contact
 * times are estimated back between frames), so they are not in t_us order across
 * calls: the caller merges them with the match log. Deterministic. */

typedef struct kr_event_config {
    double  touch_margin_mm;  /* leading point within the card outline grown by this = over it; default 4 mm */
    double  rest_speed_mm_s;  /* a leading point slower than this (least squares over 50 ms, at least 3
                                 frames: the same at any frame rate) is at rest; default 250 mm/s */
    int64_t press_hold_us;    /* at rest over a card this long = a press; default 100000 us */
    int64_t press_descent_us; /* a press's contact is measured where the picture around the tip stops
                                 changing (the hand and its shadow settling, tip_change of kr_track);
                                 when that is not seen (the other hand near the card, or no still
                                 frames within 150 ms after the hold), contact is put this long after
                                 the hand's stop (a model); default 50000 us */
    double  sweep_near_mm;    /* card motion is blamed on a hand whose leading point is this near; default 70 mm */
    int64_t settle_quiet_us;  /* hands back and cards still this long = settle; default 150000 us */
    int64_t unseen_us;        /* a hand lost from view this long deep in the field during play: flag; default 200000 us */
    double  max_hand_speed_mm_s; /* a leading point faster than this (+60 mm) jumped: not a hand's motion; default 6000 mm/s */
    int64_t early_window_us;  /* a hand entering after the previous shimo_start, or (none known) this long
                                 before kami_start = early entry; default 2000000 us */
    double  min_confidence;   /* observations below this are dropped; default 0.3 */
} kr_event_config;
void kr_event_config_default(kr_event_config *cfg);

/* One observation with the evidence the referee needs to judge it. */
typedef struct kr_event_obs {
    kr_rules_record rec;     /* type TOUCH / PUSH_OUT / HAND_CONTACT / EARLY_ENTRY / SETTLE;
                                t_us, t_err_us, confidence, player, hand, card, territory, id */
    int     cue;             /* touch: 1 card motion (sweep), 2 hand at rest on the card (press) */
    int     hidden;          /* 1: the card or the hand was hidden on the frames that decided it */
    double  line_margin_mm;  /* push_out: how far the card's nearest edge was past the line on the first
                                frame seen out (kr_event_line_margin: the farthest in that motion);
                                NAN when it was lost from sight, not seen out */
    int     rejoined;        /* push_out: the card's follower found it again away from where it was
                                lost after frames unseen (kr_track_card.rejoined): what it followed
                                out may have been something else */
    int64_t gap_us;          /* largest presentation-time gap (beyond one period) whose missing
                                span lies within 2 t_err_us + 2 frame periods of t_us, else 0 */
    int64_t frame_dt_us;     /* frame period around t_us */
    double  x_mm, y_mm;      /* where on the mat it was seen (a touch: the card's place; a push-out:
                                the card last seen; a hand contact: between the hands' points; an
                                early entry: where the hand crossed its edge); NAN for the others */
    int64_t row_shift_us;    /* the rolling shutter's part of t_us (kr_event_set_rolling), else 0 */
} kr_event_obs;

typedef struct kr_event kr_event_t; /* opaque */

kr_status kr_event_create(const kr_event_config *cfg, kr_event_t **out); /* *out caller-owned */
void      kr_event_destroy(kr_event_t *ev);                               /* NULL-safe */

/* Rolling shutter: a camera that reads its image's rows one after another, top to bottom,
 * over readout_us. A frame's presentation time is taken as its middle row's time, so each
 * observation seen at mat point (x, y) comes out moved by (v - 1/2) readout_us, v its image
 * row as a share of the height: (py + 1/2) / frame_h, py from map (the tracker's mat mm ->
 * frame px, kr_track_create's; borrowed with map_ctx, both must outlive ev). Settles, sends
 * and rearrangements (timed to 100 ms or worse) are not moved. readout_us 0 (the default):
 * nothing moves. The horizon is lowered by half the readout. Best before the first
 * kr_event_update; later (a readout measured on the first frames: live) only until an
 * observation has come out, and the horizon already given stays (an observation timed
 * before it by its row is put at it). KR_ERR_INVALID after that, after kr_event_finish,
 * or on bad values. */
kr_status kr_event_set_rolling(kr_event_t *ev, int64_t readout_us, kr_track_map_fn map, void *map_ctx, int frame_h);

/* Where the camera stands (kr_calib_camera_pose): the nadir x_mm, y_mm on the mat and the
 * height above it, mm. Seen from above, a hand coming down onto a card moves in the picture
 * by the card's distance from the nadir over the height per mm of descent (and its outline
 * grows around its fingertips by their span over the height): straight under the camera its
 * last millimetres barely show. Where a descent shows less than where the landing's tail was
 * measured, a press's error widens (the tail's spread, from where the picture stops changing
 * to the contact, scaled by how much less: kr_event.c, PRESS_NADIR_*), and a single press's
 * landing read at or before its hand's stop is put midway to the modelled descent after the
 * stop (press_descent_us; the descent may not have shown at all). Not set (the default):
 * neither. Any time before kr_event_finish; KR_ERR_INVALID on a height not above 0 or values
 * not finite. */
kr_status kr_event_set_camera(kr_event_t *ev, double x_mm, double y_mm, double height_mm);

/* A reading record of the match log (KR_REC_KAMI_START with card, KR_REC_KIMARIJI,
 * KR_REC_READING_VOID, KR_REC_SHIMO_START), in time order. Touches are reported from
 * the first kami_start until the play of each reading settles. KR_ERR_NOMEM when 1024
 * records are waiting for frames (records the frames have passed are dropped as needed). */
kr_status kr_event_reading(kr_event_t *ev, kr_rules_rec_type type, int32_t seq, int32_t card, int64_t t_us);

/* Declared valid hand of a player (0 A, 1 B) from the match header; KR_HAND_NONE = unknown:
 * then the hand seen on the player's first touch is used for all of that player's records. */
void kr_event_declare_hand(kr_event_t *ev, int player, kr_rules_hand hand);

/* The frame at t_us is intra-coded (kr_frame_t.key): its change from the frame before
 * holds the codec's redraw of the whole picture besides any motion, so a landing's last
 * change read there may be the codec's. Before that frame's kr_event_update (or any time
 * before the detector decides on it: the last 8 are kept). */
void kr_event_keyframe(kr_event_t *ev, int64_t t_us);

/* Feeds one tracked frame (borrowed for the call). *obs (owned by ev, valid until the
 * next call) gets the observations that became final, *n their count. No allocation. */
kr_status kr_event_update(kr_event_t *ev, const kr_track_frame *fr, const kr_event_obs **obs, int *n);

/* Reasons for a judge to look at reading seq (1-based) that the detector found, as a bit
 * mask of KR_EVENT_FLAG_* (0 for an unknown seq). They are set on evidence of doubt, as
 * it is seen, so a live caller reads them when it writes the ruling:
 * KR_EVENT_FLAG_CARD_LOST - after play settled a card moved and was not found again
 * (a send or rearrangement may be missing from the counts). */
#define KR_EVENT_FLAG_CARD_LOST 1u
/* KR_EVENT_FLAG_HAND_UNSEEN - during play a hand was lost from view deep inside the field
 * (unseen_us or longer): a touch may be missing. */
#define KR_EVENT_FLAG_HAND_UNSEEN 2u
/* KR_EVENT_FLAG_SEND_BY_HAND - a send was inferred from the hand alone (its owner took hold
 * of a card after play and came to rest in the other territory; the card was not followed). */
#define KR_EVENT_FLAG_SEND_BY_HAND 4u
/* KR_EVENT_FLAG_HANDLED - after play a player took hold of a card of their own territory
 * and let go with no send or rearrangement seen: one may be missing from the counts. */
#define KR_EVENT_FLAG_HANDLED 8u
/* KR_EVENT_FLAG_UNBLAMED - during play a card started moving with no hand found on it. */
#define KR_EVENT_FLAG_UNBLAMED 16u
/* KR_EVENT_FLAG_OBSCURED - during play a card looked covered for 90 ms or more by
 * something not taken for a hand (and did not move): a hand may have been lost. */
#define KR_EVENT_FLAG_OBSCURED 32u
/* KR_EVENT_FLAG_KNOCK_ORDER - a hand set two adjacent cards moving within 150 ms and one
 * was taken for a touch: it may have been knocked by the other (a push-out), or the other
 * by it. */
#define KR_EVENT_FLAG_KNOCK_ORDER 64u
/* KR_EVENT_FLAG_BESIDE - during play a hand came to rest (press_hold_us) with its leading
 * point beside the field's side lines: the tracker may have put the fingertip off a card
 * the hand is pressing, so a touch may be missing. */
#define KR_EVENT_FLAG_BESIDE 128u
/* The flags that doubt play's touches (a touch may be missing or be another's). A reading
 * that is not established (voided before its kimariji) has no take and no fault for them to
 * change: kr_pipe leaves them out of its ruling's review reasons. */
#define KR_EVENT_FLAGS_PLAY                                                                               \
    (KR_EVENT_FLAG_HAND_UNSEEN | KR_EVENT_FLAG_UNBLAMED | KR_EVENT_FLAG_OBSCURED | KR_EVENT_FLAG_KNOCK_ORDER | \
     KR_EVENT_FLAG_BESIDE)
unsigned kr_event_reading_flags(const kr_event_t *ev, int32_t seq);

/* The review reason in words for one flag bit (static string), NULL for an unknown bit.
 * Callers add one reason per set bit:
 *   for (unsigned b = 1; b; b <<= 1) if ((flags & b) && kr_event_flag_reason(b)) ... */
const char *kr_event_flag_reason(unsigned bit);

/* How far (mm) the card of push-out o (returned by this ev) is known to have gone past the
 * line: o->line_margin_mm (its first frame seen out), or the farthest it was seen past it
 * since in the same motion, up to the frames fed so far (found, not yet at rest again,
 * within half a second). NAN when o's card was lost, not seen out;
 * o->line_margin_mm for any other observation. */
double kr_event_line_margin(const kr_event_t *ev, const kr_event_obs *o);

/* Every observation not yet returned by kr_event_update/kr_event_finish will have
 * t_us >= this (INT64_MIN before the first frame, INT64_MAX after kr_event_finish): a
 * live caller may feed the rules engine all observations and reading records before it,
 * in time order, with no fixed hold. Exact but conservative: computed after each update
 * from what is pending (contact times still to be put back between frames, a press
 * waiting for its hold, a hand that entered before a kami_start still to come, a settle
 * waiting out its quiet window). Assumes reading records are given no later than the
 * first frame at or after their t_us (kr_event_reading). */
int64_t kr_event_horizon(const kr_event_t *ev);

/* End of footage: anything still pending. Same ownership as kr_event_update. */
kr_status kr_event_finish(kr_event_t *ev, const kr_event_obs **obs, int *n);

#ifdef __cplusplus
}
#endif
#endif /* KR_EVENT_H */
