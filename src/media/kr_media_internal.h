/* kr_media_internal.h - helpers shared by kr_decode.c and kr_encode.c, and the frame
 * conversion shared with kr_capture.c (not public: libav types).
 * SPDX-License-Identifier: MIT                                                    */
#ifndef KR_MEDIA_INTERNAL_H
#define KR_MEDIA_INTERNAL_H
#include "kr_media.h"
#include <stddef.h>

/* Routes FFmpeg's av_log output away from stderr (once per process): messages at
 * error level or worse are kept per thread so error texts can quote them, and
 * everything at warning level or worse goes to kr_log at DEBUG. */
void kr_media_avlog_init(void);
/* The calling thread's last FFmpeg error-level log line (without newline), "" if none. */
const char *kr_media_avlog_last(void);
void kr_media_avlog_clear(void);
/* av_strerror() into buf, returning buf. */
const char *kr_media_averr(int err, char *buf, size_t n);
/* av_strerror text for ret plus FFmpeg's own last log line (often more precise), into
 * buf[n]; returns buf. */
const char *kr_media_ff_detail(int ret, char *buf, size_t n);

/* ---- conversion of decoded frames (kr_convert.c) ---------------------------------- */
struct AVFrame;
struct SwsContext;

/* One cached libswscale context, remade when the input's size or format changes.
 * Zero-initialise; free with kr_media_sws_free (owned). */
typedef struct kr_media_sws {
    struct SwsContext *ctx;
    int                key[3]; /* input w, h, format */
} kr_media_sws;
void kr_media_sws_free(kr_media_sws *s); /* NULL-safe */

/* (Re)makes s for in -> dw x dh of pixel format dfmt with flags (SWS_*) over threads
 * (0 automatic); for BGR24 output, the colour matrix spc (SWS_CS_*) and full_range.
 * Returns 0 or a negative AVERROR. */
int kr_media_sws_prepare(kr_media_sws *s, const struct AVFrame *in, int dw, int dh, int dfmt, int flags, int threads,
                         int spc, int full_range);

/* The colour matrix and range of a decoded frame: BT.709 when tagged so or untagged
 * above SD heights, full range for JPEG-range frames. */
void kr_media_frame_colour(const struct AVFrame *f, int *spc, int *full_range);

/* 1 when f is planar YUV 4:2:0 (yuv420p or yuvj420p): the format kr_yuv_t views. */
int kr_media_is_420(const struct AVFrame *f);

/* in (4:2:0) scaled bilinear in YUV to dw x dh into *mid ((re)allocated here when its size
 * or format differ, caller frees it with av_frame_free) through the cached context ys over
 * threads (0 automatic). The first step of kr_media_to_bgr for a resized frame. Returns 0
 * or a negative AVERROR with *what naming the step. */
int kr_media_scale_420(kr_media_sws *ys, struct AVFrame **mid, const struct AVFrame *in, int threads, int dw, int dh,
                       const char **what);

/* A view of f's planes in *out (borrowed from f: valid while f holds them) with the colour
 * matrix spc (SWS_CS_*) and range of kr_media_frame_colour; all zero (y NULL) unless f is
 * 4:2:0 (kr_media_is_420). */
void kr_media_yuv_view(const struct AVFrame *f, int spc, int full_range, kr_yuv_t *out);

/* in -> dst (a BGR24 frame of dw x dh over the caller's buffer): a 4:2:0 frame to be
 * resized is first scaled in YUV into *mid ((re)allocated here, caller frees it with
 * av_frame_free), then takes the unscaled YUV -> BGR path; anything else goes straight
 * to BGR. ys and ts are the two cached contexts. Returns 0, or a negative AVERROR with
 * *what naming the step that failed ("scaling", "colour conversion", "out of memory"). */
int kr_media_to_bgr(kr_media_sws *ys, kr_media_sws *ts, struct AVFrame **mid, const struct AVFrame *in, int spc,
                    int full_range, int threads, struct AVFrame *dst, int dw, int dh, const char **what);

#endif /* KR_MEDIA_INTERNAL_H */
