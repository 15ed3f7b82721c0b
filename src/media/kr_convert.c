/* kr_convert.c - the one conversion of decoded frames (planes at the output size, BGR24),
 * shared by the file reader (kr_decode.c) and live capture (kr_capture.c), so both give
 * the same pixels.
 * SPDX-License-Identifier: MIT */
#include "kr_media_internal.h"

#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include <libavutil/mem.h>

#include <string.h>

void kr_media_sws_free(kr_media_sws *s)
{
    if (!s)
        return;
    sws_freeContext(s->ctx);
    s->ctx = NULL;
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
