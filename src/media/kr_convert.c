/* kr_convert.c - the one conversion of decoded frames (planes at the output size, BGR24),
 * shared by the file reader (kr_decode.c) and live capture (kr_capture.c), so both give
 * the same pixels.
 * SPDX-License-Identifier: MIT */
#include "kr_media_internal.h"

#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include <libavutil/mem.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void kr_media_sws_free(kr_media_sws *s)
{
    if (!s)
        return;
    sws_freeContext(s->ctx);
    s->ctx = NULL;
    free(s->half);
    s->half = NULL;
    s->half_n = 0;
}

int kr_media_sws_prepare(kr_media_sws *s, const AVFrame *in, int dw, int dh, int dfmt, int flags, int threads,
                         int spc, int full_range)
{
    if (s->ctx && s->key[0] == in->width && s->key[1] == in->height && s->key[2] == in->format)
        return 0;
    sws_freeContext(s->ctx);
    s->ctx = sws_alloc_context();
    if (!s->ctx)
        return AVERROR(ENOMEM);
    av_opt_set_int(s->ctx, "srcw", in->width, 0);
    av_opt_set_int(s->ctx, "srch", in->height, 0);
    av_opt_set_int(s->ctx, "src_format", in->format, 0);
    av_opt_set_int(s->ctx, "dstw", dw, 0);
    av_opt_set_int(s->ctx, "dsth", dh, 0);
    av_opt_set_int(s->ctx, "dst_format", dfmt, 0);
    av_opt_set_int(s->ctx, "sws_flags", flags, 0);
    av_opt_set_int(s->ctx, "threads", threads, 0);
    int ret = sws_init_context(s->ctx, NULL, NULL);
    if (ret < 0) {
        sws_freeContext(s->ctx);
        s->ctx = NULL;
        return ret;
    }
    if (dfmt == AV_PIX_FMT_BGR24)
        sws_setColorspaceDetails(s->ctx, sws_getCoefficients(spc), full_range, sws_getCoefficients(SWS_CS_DEFAULT),
                                 1, 0, 1 << 16, 1 << 16);
    s->key[0] = in->width;
    s->key[1] = in->height;
    s->key[2] = in->format;
    return 0;
}

void kr_media_frame_colour(const AVFrame *f, int *spc, int *full_range)
{
    /* untagged video: BT.709 above SD heights, as players and GStreamer assume */
    *spc = f->colorspace == AVCOL_SPC_BT709 || (f->colorspace == AVCOL_SPC_UNSPECIFIED && f->height > 576)
               ? SWS_CS_ITU709
               : SWS_CS_ITU601;
    *full_range = f->color_range == AVCOL_RANGE_JPEG || f->format == AV_PIX_FMT_YUVJ420P ||
                  f->format == AV_PIX_FMT_YUVJ422P || f->format == AV_PIX_FMT_YUVJ444P;
}

int kr_media_is_420(const AVFrame *f) { return f->format == AV_PIX_FMT_YUV420P || f->format == AV_PIX_FMT_YUVJ420P; }

/* ---- halving a 4:2:0 frame: swscale's bilinear filter, to the bit ----------------------
 * The tracker's frames of 1200 columns and more are halved. At this ratio swscale's
 * bilinear filter (SWS_BILINEAR) is [1 3 3 1] / 8 across and down, and libswscale 6 on
 * x86-64 computes it so (its filter tables, hscale8to15 and the yuv2yuvX vertical scaler;
 * every sample the same as sws_scale_frame's, test halving_is_swscales_to_the_bit):
 *   across, exactly: S = p[2x-1] + 3 (p[2x] + p[2x+1]) + p[2x+2], the taps off the edge
 *   merged into the edge sample (S = 4 p[0] + 3 p[1] + p[2] at the left; swscale keeps 16 S);
 *   down, each row's tap truncated: (5 + (S_a >> 3) + (3 S_b >> 3) + (3 S_c >> 3) + (S_d >> 3)) >> 3
 *   over the rows 2y-1 .. 2y+2, the top row's taps merged as across (weights 4, 3, 1);
 *   except the output's last two rows of luma and its last row of chroma, which swscale
 *   writes with its plain C code, rounded once: (32 + S_a + 3 S_b + 3 S_c + S_d) >> 6,
 *   the bottom row's taps merged (weights 1, 3, 4).
 * So the tracker sees the same pixels as through swscale, at a fraction of its time (the
 * figures: docs/results-events.md, thirty-second session). A filter rounding once, one grey
 * level off on one sample in twenty, flipped fast blurred hands (thirtieth session), so
 * swscale's rounding is kept as it is, not made "better". */

/* The sums S of one row of sw samples (dw = sw / 2 of them) into s. */
static void half_row_sums(const uint8_t *p, int sw, uint16_t *s)
{
    const int dw = sw / 2;
    s[0] = (uint16_t)(4 * p[0] + 3 * p[1] + p[2]);
    int x = 1;
#if defined(__SSE2__)
    const __m128i lo = _mm_set1_epi16(0xff);
    for (; x + 8 <= dw - 1; x += 8) { /* reads p[2x - 2 .. 2x + 17], 2x + 17 <= sw - 1 */
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + 2 * x - 2));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 2 * x));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(p + 2 * x + 2));
        __m128i mid = _mm_add_epi16(_mm_and_si128(b, lo), _mm_srli_epi16(b, 8));
        __m128i out = _mm_add_epi16(_mm_srli_epi16(a, 8), _mm_and_si128(c, lo));
        out = _mm_add_epi16(out, _mm_add_epi16(mid, _mm_add_epi16(mid, mid)));
        _mm_storeu_si128((__m128i *)(void *)(s + x), out);
    }
#endif
    for (; x < dw - 1; x++)
        s[x] = (uint16_t)(p[2 * x - 1] + 3 * (p[2 * x] + p[2 * x + 1]) + p[2 * x + 2]);
    s[dw - 1] = (uint16_t)(p[sw - 3] + 3 * p[sw - 2] + 4 * p[sw - 1]);
}

/* One output row of dw samples from up to four rows of sums r[j] with weights w[j]
 * (eighths; a NULL row counts nothing): each tap truncated, or rounded once (see above). */
static void half_row_out(const uint16_t *const r[4], const int w[4], int dw, int once, uint8_t *out)
{
    int x = 0;
#if defined(__SSE2__)
    for (; x + 8 <= dw; x += 8) {
        __m128i acc = _mm_set1_epi16(once ? 32 : 5);
        for (int j = 0; j < 4; j++) {
            if (!r[j])
                continue;
            __m128i t = _mm_mullo_epi16(_mm_loadu_si128((const __m128i *)(const void *)(r[j] + x)),
                                        _mm_set1_epi16((short)w[j]));
            acc = _mm_add_epi16(acc, once ? t : _mm_srli_epi16(t, 3));
        }
        acc = _mm_srli_epi16(acc, once ? 6 : 3);
        _mm_storel_epi64((__m128i *)(void *)(out + x), _mm_packus_epi16(acc, acc));
    }
#endif
    for (; x < dw; x++) {
        int acc = once ? 32 : 5;
        for (int j = 0; j < 4; j++)
            if (r[j])
                acc += once ? w[j] * r[j][x] : (w[j] * r[j][x]) >> 3;
        acc >>= once ? 6 : 3;
        out[x] = (uint8_t)(acc > 255 ? 255 : acc);
    }
}

/* One plane of sw x sh samples (both even, at least 8) halved into dst; vs: 1 for a chroma
 * plane of a frame whose luma output is DH rows (which rows swscale rounds once); sums: 4
 * rows of sw / 2 scratch. */
static void half_plane(const uint8_t *src, int ss, int sw, int sh, uint8_t *dst, int ds, int vs, int DH,
                       uint16_t *sums)
{
    const int dw = sw / 2, dh = sh / 2;
    int have = -1; /* source rows summed so far (row r in sums + (r & 3) dw) */
    for (int y = 0; y < dh; y++) {
        const int last = 2 * y + 2 < sh ? 2 * y + 2 : sh - 1;
        for (; have < last; have++)
            half_row_sums(src + (size_t)(have + 1) * ss, sw, sums + (size_t)((have + 1) & 3) * dw);
#define ROW(r) (sums + (size_t)((r) & 3) * dw)
        const uint16_t *r[4];
        int w[4];
        if (y == 0) {
            r[0] = ROW(0), r[1] = ROW(1), r[2] = ROW(2), r[3] = NULL;
            w[0] = 4, w[1] = 3, w[2] = 1, w[3] = 0;
        } else if (y == dh - 1) {
            r[0] = ROW(sh - 3), r[1] = ROW(sh - 2), r[2] = ROW(sh - 1), r[3] = NULL;
            w[0] = 1, w[1] = 3, w[2] = 4, w[3] = 0;
        } else {
            r[0] = ROW(2 * y - 1), r[1] = ROW(2 * y), r[2] = ROW(2 * y + 1), r[3] = ROW(2 * y + 2);
            w[0] = 1, w[1] = 3, w[2] = 3, w[3] = 1;
        }
#undef ROW
        half_row_out(r, w, dw, (y << vs) >= DH - 2, dst + (size_t)y * ds);
    }
}

int kr_media_half_420(kr_media_sws *ys, AVFrame *dst, const AVFrame *in)
{
    const int dw = in->width / 2, dh = in->height / 2;
    if (!kr_media_is_420(in) || !kr_media_is_420(dst) || in->width != 2 * dw || in->height != 2 * dh || dw % 2 ||
        dh % 2 || dw < 8 || dh < 8 || dst->width != dw || dst->height != dh)
        return 0;
    if (ys->half_n < 4 * dw) {
        uint16_t *h = realloc(ys->half, sizeof *h * 4 * (size_t)dw);
        if (!h)
            return AVERROR(ENOMEM);
        ys->half = h;
        ys->half_n = 4 * dw;
    }
    for (int p = 0; p < 3; p++) {
        const int c = p ? 1 : 0; /* the chroma planes: half the size */
        half_plane(in->data[p], in->linesize[p], in->width >> c, in->height >> c, dst->data[p], dst->linesize[p], c,
                   dh, ys->half);
    }
    return 1;
}

int kr_media_scale_420(kr_media_sws *ys, AVFrame **mid, const AVFrame *in, int threads, int dw, int dh,
                       const char **what)
{
    int ret;
    if (!*mid || (*mid)->format != in->format || (*mid)->width != dw || (*mid)->height != dh) {
        av_frame_free(mid);
        *mid = av_frame_alloc();
        if (!*mid) {
            *what = "out of memory";
            return AVERROR(ENOMEM);
        }
        (*mid)->format = in->format;
        (*mid)->width = dw;
        (*mid)->height = dh;
        if ((ret = av_frame_get_buffer(*mid, 0)) < 0) {
            *what = "out of memory";
            return ret;
        }
    }
    if ((ret = kr_media_half_420(ys, *mid, in)) != 0) {
        *what = "out of memory";
        return ret < 0 ? ret : 0;
    }
    *what = "scaling";
    if ((ret = kr_media_sws_prepare(ys, in, dw, dh, in->format, SWS_BILINEAR, threads, 0, 0)) < 0 ||
        (ret = sws_scale_frame(ys->ctx, *mid, in)) < 0)
        return ret;
    return 0;
}

void kr_media_yuv_view(const AVFrame *f, int spc, int full_range, kr_yuv_t *out)
{
    memset(out, 0, sizeof *out);
    if (!kr_media_is_420(f))
        return;
    out->w = f->width;
    out->h = f->height;
    out->stride_y = f->linesize[0];
    out->stride_c = f->linesize[1];
    out->y = f->data[0];
    out->u = f->data[1];
    out->v = f->data[2];
    out->full_range = full_range ? 1 : 0;
    out->bt709 = spc == SWS_CS_ITU709;
    if (f->linesize[2] != f->linesize[1]) /* never seen from FFmpeg or GStreamer: no view */
        memset(out, 0, sizeof *out);
}

int kr_media_to_bgr(kr_media_sws *ys, kr_media_sws *ts, AVFrame **mid, const AVFrame *in, int spc, int full_range,
                    int threads, AVFrame *dst, int dw, int dh, const char **what)
{
    int ret;
    if ((in->width != dw || in->height != dh) && kr_media_is_420(in)) {
        /* scale in YUV first (1.5 bytes a pixel, SIMD paths), then convert the small
         * picture with the fast unscaled YUV->BGR path: about half the CPU of scaling
         * straight to BGR */
        if ((ret = kr_media_scale_420(ys, mid, in, threads, dw, dh, what)) < 0)
            return ret;
        in = *mid;
    }
    *what = "colour conversion";
    if ((ret = kr_media_sws_prepare(ts, in, dw, dh, AV_PIX_FMT_BGR24,
                                    in->width == dw && in->height == dh ? SWS_POINT : SWS_BILINEAR, threads, spc,
                                    full_range)) < 0 ||
        (ret = sws_scale_frame(ts->ctx, dst, in)) < 0)
        return ret;
    return 0;
}

/* ---- planes at the output size, BGR on demand ----------------------------------------- */

static void conv_buf_keep(void *opaque, uint8_t *data)
{
    (void)opaque, (void)data; /* px belongs to the kr_media_conv */
}

void kr_media_conv_free(kr_media_conv *c)
{
    if (!c)
        return;
    kr_media_sws_free(&c->ysws);
    kr_media_sws_free(&c->tsws);
    av_frame_free(&c->mid);
    av_frame_free(&c->bgr);
    av_free(c->px);
    c->px = NULL;
    c->cur = c->planes = NULL;
    c->have_bgr = 0;
}

int kr_media_conv_set(kr_media_conv *c, const AVFrame *in, int spc, int full_range, int dw, int dh, int yuv,
                      int scale_threads, kr_yuv_t *planes, const char **what)
{
    memset(planes, 0, sizeof *planes);
    if (dw != c->w || dh != c->h) { /* the cached contexts are keyed by their input only */
        kr_media_sws_free(&c->ysws);
        kr_media_sws_free(&c->tsws);
        c->w = dw;
        c->h = dh;
    }
    c->cur = in;
    c->planes = NULL;
    c->spc = spc;
    c->full_range = full_range;
    c->have_bgr = 0;
    if (!yuv || !kr_media_is_420(in))
        return 0;
    const AVFrame *p = in;
    if (in->width != dw || in->height != dh) {
        int ret = kr_media_scale_420(&c->ysws, &c->mid, in, scale_threads, dw, dh, what);
        if (ret < 0)
            return ret;
        p = c->mid;
    }
    kr_media_yuv_view(p, spc, full_range, planes);
    if (planes->y)
        c->planes = p;
    return 0;
}

int kr_media_conv_bgr(kr_media_conv *c, int threads, kr_image_t *out, const char **what)
{
    if (!c->cur) {
        *what = "conversion without a frame";
        return AVERROR(EINVAL);
    }
    if (!c->have_bgr) {
        if (!c->bgr || c->bgr->width != c->w || c->bgr->height != c->h) {
            av_frame_free(&c->bgr);
            av_free(c->px);
            int    stride = (c->w * 3 + 31) & ~31;
            size_t n = (size_t)stride * (size_t)c->h;
            *what = "out of memory";
            if (!(c->px = av_malloc(n)) || !(c->bgr = av_frame_alloc()) ||
                !(c->bgr->buf[0] = av_buffer_create(c->px, n, conv_buf_keep, NULL, 0)))
                return AVERROR(ENOMEM);
            c->bgr->data[0] = c->px;
            c->bgr->linesize[0] = stride;
            c->bgr->width = c->w;
            c->bgr->height = c->h;
            c->bgr->format = AV_PIX_FMT_BGR24;
        }
        /* from the planes at the output size: kr_media_to_bgr's unscaled step, the same
         * bytes as converting the frame itself (which scales in YUV first) */
        int ret = kr_media_to_bgr(&c->ysws, &c->tsws, &c->mid, c->planes ? c->planes : c->cur, c->spc,
                                  c->full_range, threads, c->bgr, c->w, c->h, what);
        if (ret < 0)
            return ret;
        c->have_bgr = 1;
    }
    *out = (kr_image_t){c->w, c->h, c->bgr->linesize[0], 3, c->px};
    return 0;
}
