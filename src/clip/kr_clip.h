/* kr_clip.h - dispute clips: a window of a match video cut, in process, into an H.264 MP4
 * with overlays (competition lines, tracked card outlines with ids, hand outlines, contacts
 * with player and time in ms, a running time code) and a PNG contact sheet.
 * SPDX-License-Identifier: MIT                                                        */
#ifndef KR_CLIP_H
#define KR_CLIP_H
#include "kr_core.h" /* kr_status, int64_t t_us */
#include "kr_calib.h" /* kr_calib_t (borrowed) */
#include "kr_track.h" /* kr_track_t, kr_track_frame (kr_clip_tracks_add) */
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started:
 *   kr_clip_events_t *ev; kr_clip_events_load(&ev, "events.jsonl", NULL)   contacts, layout,
 *                                                                        rearranges (optional)
 *   kr_clip_config cfg; kr_clip_config_default(&cfg); cfg.before_us = ...;
 *   kr_clip_create(&cfg, calib, ev, &c)   calib, ev borrowed (either may be NULL; with
 *                                         calib NULL and cfg.auto_calib each export
 *                                         calibrates from the video's first frame)
 *   kr_clip_export(c, "video.mp4", at_us, "out/clip.mp4", &res)   as often as wanted
 *   kr_clip_destroy(c); kr_clip_events_destroy(ev)
 * Card and hand outlines need both a calibration and a layout (in ev); the tracker
 * (kr_track) then runs from warmup_us before the window so its background settles.
 * Without a calibration the clip still has the time code and the contact labels.
 * Threading: one kr_clip_t per thread; a kr_clip_events_t and a kr_calib_t may be
 * shared by several kr_clip_t (read only after loading). */

/* Contacts, card layout and moves read from a match log / events file (match-log.md). */
typedef struct kr_clip_contact {
    int64_t t_us;      /* source time, us */
    char    type[16];  /* touch, push_out, hand_contact, early_entry */
    char    player[4]; /* "A", "B" or "" */
    int     card;      /* 1..100, -1 none */
    int     has_pos;   /* 1: the card's centre at that time is known (x_mm, y_mm) */
    double  x_mm, y_mm;
} kr_clip_contact;

typedef struct kr_clip_events kr_clip_events_t; /* opaque */

/* Reads path (JSON Lines; other record types are skipped). Contacts are taken only
 * when want_contacts != 0 (a match log given just for its layout passes 0).
 * *out caller-owned (kr_clip_events_destroy). On failure *out is NULL and err (cap
 * bytes, may be NULL) holds one line naming path:line. */
kr_status kr_clip_events_load(const char *path, int want_contacts, kr_clip_events_t **out,
                              char *err, size_t cap);
/* Adds what `path` holds to ev: a layout only if ev has none yet, rearranges, and
 * contacts when want_contacts. Same errors as kr_clip_events_load. */
kr_status kr_clip_events_add(kr_clip_events_t *ev, const char *path, int want_contacts, char *err,
                             size_t cap);
/* Same from text (JSON Lines, n bytes, borrowed for the call); name is used in errors.
 * *out caller-owned. */
kr_status kr_clip_events_load_text(const char *name, const char *text, size_t n, int want_contacts,
                                   kr_clip_events_t **out, char *err, size_t cap);
void      kr_clip_events_destroy(kr_clip_events_t *ev); /* NULL-safe */
/* Contacts loaded (*out borrowed, valid until destroy; sorted by time). */
size_t    kr_clip_events_contacts(const kr_clip_events_t *ev, const kr_clip_contact **out);
/* A digest of what places the cards in ev up to t_us: the layout, and the rearrange and
 * send records dated at or before t_us. Two event sets with the same digest place the same
 * cards in a clip that ends by t_us (review keeps a clip made early only if it holds). */
uint64_t  kr_clip_events_places_digest(const kr_clip_events_t *ev, int64_t t_us);
/* Cards in the layout (0: no layout record seen). */
int       kr_clip_events_n_cards(const kr_clip_events_t *ev);

/* The calibration as `analyze` makes it without --calib: from the video's first frame
 * (kr_calib_create_from_frame). *out caller-owned (kr_calib_destroy). On failure *out is
 * NULL and err holds one line naming the video. */
kr_status kr_clip_calib_auto(const char *video, kr_calib_t **out, char *err, size_t cap);

typedef struct kr_clip_config {
    int64_t before_us, after_us; /* window [at - before, at + after], us; defaults 2 s, 2 s.
                                    The window is clamped to the video. */
    int     slow;        /* slow-down factor 1..64 (output frame times * slow); default 1 */
    int     max_h;       /* output height cap in px (width keeps the aspect, both even);
                            0 = source size. Default 720: a 1080p source is encoded at
                            1280x720 (2.2x fewer pixels to convert, draw and encode; cards
                            and hands stay clear), smaller sources at their own size */
    int     track;       /* 1: card and hand outlines from kr_track (needs calib and a
                            layout); default 1 */
    int64_t warmup_us;   /* tracker start before the window, us; default 1000000 */
    int     sheet;       /* 1: also write the contact sheet (CLIP.png beside CLIP.mp4); default 1 */
    const char *preset;  /* x264 preset (borrowed); default "ultrafast" */
    int     crf;         /* x264 CRF 0..51; default 20 */
    int     threads;     /* decoder and encoder threads, 0 = automatic; default 0 */
    int     auto_calib;  /* 1: without a calibration given to kr_clip_create, each export
                            makes one as kr_clip_calib_auto does, in a thread of its own
                            while it opens the video (a failure is a warning in
                            kr_clip_last_error: the clip then has no lines or outlines);
                            default 0 */
} kr_clip_config;
void kr_clip_config_default(kr_clip_config *cfg); /* fills caller's *cfg */

typedef struct kr_clip_t kr_clip_t; /* opaque */

/* cfg copied; calib and ev borrowed (NULL allowed; not freed by kr_clip_destroy; must
 * outlive c). *out caller-owned. KR_ERR_INVALID (message in err) on a bad config. */
kr_status kr_clip_create(const kr_clip_config *cfg, const kr_calib_t *calib,
                         const kr_clip_events_t *ev, kr_clip_t **out, char *err, size_t cap);
void      kr_clip_destroy(kr_clip_t *c); /* NULL-safe */

/* The tracked state of a whole run, recorded frame by frame where it is computed
 * (`review` records what its in-process `analyze` tracks): card outlines with ids and
 * flags, hands' leading points and their regions (runs of the tracker's class image),
 * 1.2 KB per frame for 50 cards plus the hands' runs (full_match, 3 min 17 s of 60 fps:
 * 11815 frames, 32.4 MB held with the arena's doubling). A kr_clip_t given
 * one (kr_clip_set_tracks) draws a window it covers from it: no tracker, no warm-up, and
 * the outlines are the ones the rulings came from.
 *   kr_clip_tracks_create(max_bytes, &s)        0: 512 MB; frames past it are not kept
 *   per frame: kr_clip_tracks_add(s, tracker, tf)   tf: kr_pipe_feed's / kr_track_update's
 *   kr_clip_tracks_finish(s)                    the run ended (the store covers its end)
 *   kr_clip_set_tracks(c, s) ... kr_clip_export; kr_clip_tracks_destroy(s)
 * Threading: one thread adds; any number of kr_clip_t may read it meanwhile and after (a
 * mutex inside: reading a frame or adding one holds it for a copy's time). */
typedef struct kr_clip_tracks kr_clip_tracks_t; /* opaque */
kr_status kr_clip_tracks_create(size_t max_bytes, kr_clip_tracks_t **out); /* *out caller-owned */
void      kr_clip_tracks_destroy(kr_clip_tracks_t *s);                      /* NULL-safe */
/* Records tf (borrowed for the call) and trk's class image (kr_track_mat_view; trk
 * borrowed for the call). Frames not after the last recorded one, and every frame once
 * max_bytes is reached, are skipped (KR_OK). KR_ERR_NOMEM (no later frame is recorded
 * either, so the store never has holes); KR_ERR_INVALID on NULL or a
 * tracker with another mat size. Allocates only when its arena doubles. */
kr_status kr_clip_tracks_add(kr_clip_tracks_t *s, const kr_track_t *trk, const kr_track_frame *tf);
void      kr_clip_tracks_finish(kr_clip_tracks_t *s);
size_t    kr_clip_tracks_frames(const kr_clip_tracks_t *s); /* frames recorded */
size_t    kr_clip_tracks_bytes(const kr_clip_tracks_t *s);  /* memory held, bytes */
/* s borrowed (NULL: none; must outlive c's exports). Exports whose tracker window s
 * covers (its first frame at or before the window's start, its last at or after the
 * end, or finished within two frame periods of the end) draw from s; others track as
 * before. */
void      kr_clip_set_tracks(kr_clip_t *c, const kr_clip_tracks_t *s);
/* Blocks until s holds the frames of [start_us, end_us] (as an export would draw them:
 * 1) or the run ended or s is full without them (0). For clips made while the run is
 * still being recorded. */
int       kr_clip_tracks_wait(const kr_clip_tracks_t *s, int64_t start_us, int64_t end_us);

/* Where an export's time goes (kr_clip_result.phase_us / phase_cpu_us), for benchmarks. */
typedef enum {
    KR_CLIP_PH_OPEN = 0,   /* opening the video (decoder, scaler, first frame) */
    KR_CLIP_PH_TRACK_START, /* tracker: gather table, layout, background plate (seek to 0) */
    KR_CLIP_PH_SEEK,       /* seek to the warm-up's start */
    KR_CLIP_PH_DECODE,     /* decoding and converting the frames (warm-up and window); with
                              threads, waiting for the decoding thread */
    KR_CLIP_PH_TRACK_FIRST, /* the tracker's first ready frame (its pose fit of every card) */
    KR_CLIP_PH_TRACK,      /* tracking the other frames */
    KR_CLIP_PH_DRAW,       /* drawing the overlays */
    KR_CLIP_PH_SHEET,      /* contact sheet: shrinking frames, composing, writing the PNG */
    KR_CLIP_PH_ENCODE,     /* encoding: in the calling thread, or waiting for the encoding
                              thread to finish */
    KR_CLIP_PH_CLOSE,      /* flushing the encoder, the MP4's trailer (faststart) */
    KR_CLIP_N_PHASES
} kr_clip_phase;
const char *kr_clip_phase_name(int phase); /* static string; "?" out of range */

#define KR_CLIP_MAX_PLACED 8
typedef struct kr_clip_placed {
    int    card;       /* card id */
    double x_mm, y_mm; /* centre where it was found (mat mm) */
} kr_clip_placed;

typedef struct kr_clip_result {
    int64_t first_us, last_us; /* source times of the clip's first and last frame, us */
    int64_t n_frames;          /* frames in the clip */
    int64_t n_decoded;         /* frames decoded (warm-up and window), for benchmarks */
    double  out_fps;           /* nominal frame rate of the MP4 (source rate / slow) */
    int     out_w, out_h;      /* MP4 size, px */
    int     tracked;           /* 1: card and hand outlines were drawn */
    int     from_tracks;       /* 1: they came from the kr_clip_tracks_t (no tracker ran) */
    int     cards_drawn;       /* cards outlined on the first frame at or after --at */
    int     calibrated;        /* 1: a calibration was used (given, or made by auto_calib) */
    int     n_placed;          /* cards sent before tracking began (a send record, no later
                                  rearrange) found at their new place in the first tracked frame */
    kr_clip_placed placed[KR_CLIP_MAX_PLACED];
    int64_t phase_us[KR_CLIP_N_PHASES];     /* wall time of the calling thread per phase, us */
    int64_t phase_cpu_us[KR_CLIP_N_PHASES]; /* CPU time of the calling thread per phase, us */
    int64_t encoder_cpu_us;    /* CPU time of the encoding thread (0 without one), us */
    int64_t decoder_cpu_us;    /* CPU time of the decoding thread (0 without one), us: waiting
                                  for FFmpeg's decoder threads, scaling, copying */
} kr_clip_result;

/* Cuts video (borrowed) around at_us into out_mp4 and, with cfg.sheet, its contact
 * sheet (out_mp4 with ".png" for its extension). Both appear complete or not at all.
 * res (caller's storage, may be NULL) describes the clip. Errors (one line in
 * kr_clip_last_error(c), naming the file or option): KR_ERR_INVALID at_us outside the
 * video or an empty window, KR_ERR_IO unwritable folder / unreadable video,
 * KR_ERR_FORMAT / KR_ERR_CODEC undecodable video, KR_ERR_NOMEM. A damaged video gives
 * the frames that could be read (kr_clip_last_error then holds a warning). Buffers are
 * allocated once per export: the frame loop allocates nothing itself (OpenCV's contour
 * finding and text drawing may, inside kr_cv). With cfg.threads != 1 decoding and encoding run
 * in two threads of their own for the duration of the call (a ring of 24 MB of frames between
 * them and the calling thread, which tracks and draws). */
kr_status kr_clip_export(kr_clip_t *c, const char *video, int64_t at_us, const char *out_mp4,
                         kr_clip_result *res);
/* Last error (or warning) text of c; never NULL. */
const char *kr_clip_last_error(const kr_clip_t *c);

#ifdef __cplusplus
}
#endif
#endif /* KR_CLIP_H */
