/* kr_capture.h - live video through GStreamer: any pipeline description ending in
 * raw video, pulled from an appsink as kr_frame_t with running-time timestamps.
 * SPDX-License-Identifier: MIT                                                   */
#ifndef KR_CAPTURE_H
#define KR_CAPTURE_H
#include "kr_core.h"  /* kr_status, kr_image_t */
#include "kr_media.h" /* kr_frame_t */
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started:
 *   kr_capture_open("v4l2src device=/dev/video0", &cap)   (or any source: rtspsrc ... !
 *                    decodebin, filesrc location=F ! decodebin, videotestsrc ...)
 *   loop: s = kr_capture_next(cap, &f, 100);
 *         KR_OK: use f (valid until the next call);  KR_ERR_AGAIN: nothing within 100 ms
 *         KR_ERR_EOF: the stream ended;  KR_ERR_IO: the source failed (kr_capture_error)
 *         after EOF/IO: kr_capture_reopen(cap) to retry the same pipeline
 *   kr_capture_destroy(cap)
 * The description must produce raw video; "! videoconvert ! video/x-raw,format=BGR
 * ! appsink name=kr_sink" (GRAY8 if configured; with ff_convert the decoder's own raw
 * format, converted here by FFmpeg as the file reader does) is appended here.
 * Threading: one thread per kr_capture_t; GStreamer runs its own streaming threads. */

typedef struct kr_capture kr_capture_t; /* opaque */

typedef struct kr_capture_config {
    int gray;        /* 1: GRAY8 frames, 0: BGR. Default 0 */
    int sync;        /* 1: appsink syncs to the clock (a file plays at real speed),
                        0: as fast as the source gives. Default 1 */
    int max_buffers; /* frames queued in the appsink before it blocks (or drops);
                        0 = unlimited. Default 0 (never drop: the caller sees every frame) */
    int drop;        /* 1: when max_buffers is reached drop the oldest (shows as gap_us).
                        Default 0 */
    int ff_convert;  /* 1: the appsink takes the decoder's raw frames at the source's size
                        (I420, NV12, YUY2, BGRx, ...; others through videoconvert to I420) and
                        FFmpeg's swscale makes the BGR frames here exactly as kr_media's reader does
                        (same matrix, range, scaling path and flags), so a file decoded by
                        GStreamer's libav decoder gives the same pixels as
                        kr_media_reader_next on it. 0: GStreamer's videoconvert to BGR.
                        Needs gray = 0. Default 0 */
    int out_w, out_h;/* ff_convert only: frame size in px (0 = the source's); scaled as the
                        reader's out_w / out_h (in YUV, bilinear, then to BGR). Default 0 */
    int yuv;         /* 1: the appsink takes I420 (videoconvert turns anything else into it)
                        and frames come as kr_frame_t.yuv at out_w x out_h (scaled in YUV as
                        the file reader's yuv option does), img left empty (px NULL) until
                        kr_capture_frame_bgr() converts it as ff_convert would: so the same
                        file gives the same planes and BGR bytes as kr_media_reader_next with
                        the yuv option. Implies ff_convert (out_w/out_h, frame_full,
                        set_out_size work as there); needs gray = 0. Default 0 */
} kr_capture_config;
void kr_capture_config_default(kr_capture_config *cfg); /* fills caller's *cfg */

/* Builds and starts the pipeline. *out owned by the caller (kr_capture_destroy).
 * KR_ERR_INVALID: the description does not parse (message quotes GStreamer's);
 * KR_ERR_IO: the pipeline refused to start (e.g. missing file or device).
 * On failure *out is NULL and kr_capture_error(NULL) has the one-line message. */
kr_status kr_capture_open(const char *pipeline_desc, kr_capture_t **out);
/* Same with options; cfg is copied (NULL = defaults). pipeline_desc: borrowed. */
kr_status kr_capture_open2(const char *pipeline_desc, const kr_capture_config *cfg,
                           kr_capture_t **out);
/* Waits up to timeout_ms (0: poll; < 0: forever) for the next frame.
 * KR_OK: *out filled; img owned by cap, valid until the next kr_capture_next,
 * kr_capture_reopen or kr_capture_destroy. t_us: the buffer's running time in
 * microseconds rebased so the first frame is 0; after a reopen, times continue from
 * the last frame plus the wall-clock time spent reconnecting (so they never go back,
 * and the outage shows as gap_us). gap_us and index as in kr_frame_t.
 * KR_ERR_AGAIN: no frame within the timeout. KR_ERR_EOF: end of stream.
 * KR_ERR_IO: the source reported an error (message: GStreamer's error text and the
 * element that raised it). */
kr_status kr_capture_next(kr_capture_t *cap, kr_frame_t *out, int timeout_ms);
/* ff_convert only: the last frame kr_capture_next returned, at the source's full size
 * (BGR, converted on demand as kr_media_reader_next does without scaling; e.g. for a
 * calibration from the first frame). *out: pixels owned by cap, valid until the next
 * kr_capture_next, kr_capture_reopen or kr_capture_destroy. KR_ERR_INVALID without
 * ff_convert or before a frame; KR_ERR_CODEC / KR_ERR_NOMEM. */
kr_status kr_capture_frame_full(kr_capture_t *cap, kr_image_t *out);
/* The BGR picture of the last frame kr_capture_next returned, at the frame size: img itself
 * without the yuv option, else converted now (once per frame). *out: pixels owned by cap,
 * valid as kr_capture_next's img. KR_ERR_INVALID before a frame; KR_ERR_CODEC /
 * KR_ERR_NOMEM from the conversion. */
kr_status kr_capture_frame_bgr(kr_capture_t *cap, kr_image_t *out);
/* The last frame kr_capture_next returned, again (img, yuv, t_us, index, gap_us), at the
 * current frame size (after kr_capture_set_out_size). Same lifetime as kr_capture_next's.
 * KR_ERR_INVALID before a frame. */
kr_status kr_capture_current(kr_capture_t *cap, kr_frame_t *out);
/* ff_convert only: frames from now on are out_w x out_h (0: the source's size), as if
 * configured so at open. When a frame is held (after kr_capture_next) it is converted
 * again at the new size into *cur (optional; same ownership as kr_capture_next's img),
 * so the first frame can be used at both sizes. KR_ERR_INVALID without ff_convert. */
kr_status kr_capture_set_out_size(kr_capture_t *cap, int out_w, int out_h, kr_image_t *cur);
/* (With the yuv option the held frame's planes are scaled again too; *cur is its BGR,
 * converted; kr_capture_current gives both.) */
/* Pauses (pause 1) or resumes (0) the pipeline, e.g. around a slow step on the first
 * frame: a file stops being read, so a synced file is not behind real time after it;
 * a live camera gives no frames meanwhile (the outage shows as gap_us). The frame held
 * from kr_capture_next stays valid. KR_ERR_IO: the state change failed. */
kr_status kr_capture_pause(kr_capture_t *cap, int pause);
/* Tears the pipeline down and starts it again from the same description (retry after
 * KR_ERR_EOF or KR_ERR_IO). Returns as kr_capture_open; on failure cap stays valid
 * and may be reopened again later. */
kr_status kr_capture_reopen(kr_capture_t *cap);
/* Frames the appsink reported dropped so far (only with drop=1 and max_buffers > 0
 * this can be non-zero; detected from gaps in buffer offsets when the source numbers
 * them). */
int64_t kr_capture_dropped(const kr_capture_t *cap);
/* Age of the last frame returned by kr_capture_next when it was handed over: the
 * pipeline clock's running time at that moment minus the buffer's running time,
 * in microseconds (how far behind real time the consumer is; capture-to-pull
 * latency). -1 when unknown (no clock or no timestamps). */
int64_t kr_capture_frame_age_us(const kr_capture_t *cap);
/* Last error text of cap; cap == NULL: the calling thread's last failed open. Never NULL. */
const char *kr_capture_error(const kr_capture_t *cap);
void kr_capture_destroy(kr_capture_t *cap); /* NULL-safe; stops the pipeline */

#ifdef __cplusplus
}
#endif
#endif /* KR_CAPTURE_H */
