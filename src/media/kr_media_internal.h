/* kr_media_internal.h - helpers shared by kr_decode.c and kr_encode.c, and the frame
 * conversion shared with kr_capture.c (not public: libav types).
 * SPDX-License-Identifier: MIT                                                    */
#ifndef KR_MEDIA_INTERNAL_H
#define KR_MEDIA_INTERNAL_H
#include "kr_media.h"
#include <stddef.h>
#include <stdint.h>

/* FFmpeg's process-wide setup, once per process (every reader, writer and capture calls
 * it before making FFmpeg contexts): routes av_log output away from stderr (messages at
 * error level or worse are kept per thread so error texts can quote them, everything at
 * warning level or worse goes to kr_log at DEBUG), and on AMD processors adds
 * AV_CPU_FLAG_SLOW_GATHER to FFmpeg's CPU flags (its gather-based AVX2 code is slower
 * there than the SSSE3 code, which gives the same bytes). */
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

/* One cached libswscale context, remade when the input's size or format changes, and the
 * scratch rows of kr_media_half_420. Zero-initialise; free with kr_media_sws_free (owns
 * both). */
typedef struct kr_media_sws {
    struct SwsContext *ctx;
    int                key[3]; /* input w, h, format */
    uint16_t          *half;   /* half_n row sums (kr_convert.c, half_plane) */
    int                half_n;
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

/* in (4:2:0, its width and height multiples of 4, at least 16) halved into dst (4:2:0 of
 * half its size, allocated by the caller) with the same samples as swscale's bilinear
 * filter gives on x86-64 (kr_convert.c), scratch in ys. Returns 1 when done, 0 when in or
 * dst is not such a pair (nothing written), or AVERROR(ENOMEM). kr_media_scale_420 takes
 * this way when it can. */
int kr_media_half_420(kr_media_sws *ys, struct AVFrame *dst, const struct AVFrame *in);

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

/* ---- a frame's planes at the output size, and its BGR on demand (kr_convert.c) -------
 * The one implementation behind the reader's yuv option (kr_media_reader_next /
 * kr_media_reader_bgr) and the capture's (kr_capture_next / kr_capture_frame_bgr), so
 * both give the same planes and the same BGR bytes for the same frame:
 *   kr_media_conv c = {0};
 *   per frame: kr_media_conv_set(&c, frame, spc, full, dw, dh, yuv, &planes, &what)
 *              kr_media_conv_bgr(&c, threads, &img, &what)   only when BGR is needed
 *   kr_media_conv_free(&c)
 * Buffers (the scaled planes, the BGR picture) are allocated at the first frame of a size
 * and reused: no allocation per frame in the steady state. */
typedef struct kr_media_conv {
    kr_media_sws          ysws, tsws; /* YUV scaling; to BGR24 */
    struct AVFrame       *mid;        /* the 4:2:0 picture scaled to the output size (owned) */
    struct AVFrame       *bgr;        /* BGR24 over px (owned, as px) */
    uint8_t              *px;
    const struct AVFrame *cur;        /* the current frame as given (borrowed) */
    const struct AVFrame *planes;     /* its 4:2:0 planes at the output size (cur or mid); NULL:
                                         not 4:2:0, or yuv not asked */
    int                   spc, full_range; /* its colour (kr_media_frame_colour) */
    int                   w, h;       /* output size */
    int                   have_bgr;   /* bgr holds the current frame */
} kr_media_conv;
void kr_media_conv_free(kr_media_conv *c); /* the buffers and contexts; c itself is the caller's */

/* Makes in (borrowed: it must hold its pixels until the next call or kr_media_conv_free)
 * the current frame, to be given at dw x dh with colour spc / full_range (in's own, or
 * kr_media_frame_colour's of the frame it was scaled from). yuv and in 4:2:0: *planes gets
 * a view of its planes at dw x dh (in's own when in is that size, else in scaled bilinear
 * in YUV over scale_threads swscale threads, 0 automatic); otherwise *planes is zeroed (y
 * NULL) and BGR is the frame's picture. Returns 0 or a negative AVERROR with *what naming
 * the step. */
int kr_media_conv_set(kr_media_conv *c, const struct AVFrame *in, int spc, int full_range, int dw, int dh, int yuv,
                      int scale_threads, kr_yuv_t *planes, const char **what);

/* The current frame in BGR24 at the output size, converted at the first call for that
 * frame (from its planes at the output size through the unscaled path; else straight
 * with kr_media_to_bgr) over threads swscale threads (0 automatic): the same bytes either
 * way. *out: pixels owned by c (stride 32-byte aligned), valid until the next
 * kr_media_conv_set / kr_media_conv_free. Returns 0 or a negative AVERROR with *what. */
int kr_media_conv_bgr(kr_media_conv *c, int threads, kr_image_t *out, const char **what);

#endif /* KR_MEDIA_INTERNAL_H */
