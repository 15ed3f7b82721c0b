/* kr_convert.c - the one conversion of decoded frames to BGR24, shared by the file reader
 * (kr_decode.c) and live capture (kr_capture.c ff_convert), so both give the same pixels.
 * SPDX-License-Identifier: MIT */
#include "kr_media_internal.h"

#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

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
