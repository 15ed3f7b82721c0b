/* kr_encode.c - kr_media_writer: BGR/grey frames or 4:2:0 planes -> libx264 yuv420p ->
 * MP4 (+faststart), written to a temporary and renamed on close so no partial file is
 * ever visible.
 * SPDX-License-Identifier: MIT */
#include "kr_media.h"
#include "kr_media_internal.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kr_media_writer {
    char              *path, *tmp_path; /* owned */
    AVFormatContext   *oc;
    AVCodecContext    *enc;
    AVStream          *st;              /* borrowed from oc */
    AVFrame           *frame;           /* yuv420p, reused */
    AVPacket          *pkt;
    struct SwsContext *sws;             /* BGR/grey -> yuv420p, sliced over threads */
    int                sws_fmt;         /* its source format */
    int                threads;
    AVFrame           *src_frame;       /* wraps the caller's image for sws_scale_frame */
    struct SwsContext *sws_yuv;         /* 4:2:0 in other colours -> BGR; NULL until needed */
    int                sws_yuv_cs;      /* its source colours: bt709 * 2 + full_range */
    uint8_t           *yuv_bgr;         /* owned: that BGR picture (w * h * 3), then written as BGR */
    int                w, h;
    int64_t            period_us;       /* nominal */
    int64_t            first_t_us, last_t_us;
    int64_t            nframes;
    int                header_written, closed;
    char               err[512];
};

static _Thread_local char create_error[512];

void kr_media_writer_config_default(kr_media_writer_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->crf = 20;
    cfg->preset = "veryfast";
    cfg->gop_s10 = 20;
    cfg->bframes = -1;
    cfg->threads = 0;
}

/* set_err(obj, status, fmt, ...): one-line message into obj->err, returns status. */
#define set_err(o, st, ...) kr_error_set((o)->err, sizeof (o)->err, (st), __VA_ARGS__)


kr_status kr_media_writer_create(const char *path, int w, int h, int fps_num, int fps_den,
                                 int crf, kr_media_writer_t **out)
{
    kr_media_writer_config cfg;
    kr_media_writer_config_default(&cfg);
    if (crf >= 0)
        cfg.crf = crf;
    return kr_media_writer_create2(path, w, h, fps_num, fps_den, &cfg, out);
}

kr_status kr_media_writer_create2(const char *path, int w, int h, int fps_num, int fps_den,
                                  const kr_media_writer_config *cfg_in, kr_media_writer_t **out)
{
    kr_status st = KR_OK;
    char d[384];
    int ret;
    AVDictionary *opts = NULL;
    kr_media_writer_t *wr = NULL;
    kr_media_writer_config cfg;

    create_error[0] = '\0';
    if (out)
        *out = NULL;
    if (cfg_in)
        cfg = *cfg_in;
    else
        kr_media_writer_config_default(&cfg);
    if (!path || !*path || !out) {
        snprintf(create_error, sizeof create_error, "media writer: no output file given");
        return KR_ERR_INVALID;
    }
    if (w <= 0 || h <= 0 || (w & 1) || (h & 1) || fps_num <= 0 || fps_den <= 0 || cfg.crf < 0 ||
        cfg.crf > 51 || cfg.gop_s10 <= 0 || cfg.threads < 0 ||
        cfg.bframes < -1 || cfg.bframes > 16) {
        snprintf(create_error, sizeof create_error,
                 "%s: bad video parameters %dx%d at %d/%d fps, crf %d, keyframes every %.1f s, "
                 "%d B-frames (sizes must be even and positive, B-frames -1..16)",
                 path, w, h, fps_num, fps_den, cfg.crf, cfg.gop_s10 / 10.0, cfg.bframes);
        return KR_ERR_INVALID;
    }
    kr_media_avlog_init();
    kr_media_avlog_clear();
    wr = calloc(1, sizeof *wr);
    size_t n = strlen(path) + 48;
    if (!wr || !(wr->path = strdup(path)) || !(wr->tmp_path = malloc(n))) {
        st = KR_ERR_NOMEM;
        snprintf(create_error, sizeof create_error, "%s: out of memory", path);
        goto fail;
    }
    snprintf(wr->tmp_path, n, "%s.tmp.%ld.mp4", path, (long)getpid());
    wr->w = w;
    wr->h = h;
    wr->period_us = av_rescale(1000000, fps_den, fps_num);
    if (wr->period_us < 1)
        wr->period_us = 1;

    const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
    if (!codec) {
        st = set_err(wr, KR_ERR_CODEC, "%s: FFmpeg has no libx264 encoder", path);
        goto fail;
    }
    ret = avformat_alloc_output_context2(&wr->oc, NULL, "mp4", wr->tmp_path);
    if (ret < 0 || !wr->oc) {
        st = set_err(wr, KR_ERR_CODEC, "%s: cannot set up MP4 output: %s", path, kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    wr->st = avformat_new_stream(wr->oc, NULL);
    wr->enc = avcodec_alloc_context3(codec);
    wr->frame = av_frame_alloc();
    wr->pkt = av_packet_alloc();
    if (!wr->st || !wr->enc || !wr->frame || !wr->pkt) {
        st = set_err(wr, KR_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    wr->enc->width = w;
    wr->enc->height = h;
    wr->enc->pix_fmt = AV_PIX_FMT_YUV420P;
    wr->enc->time_base = (AVRational){1, 1000000}; /* pts are microseconds: any rate, VFR */
    wr->enc->framerate = (AVRational){fps_num, fps_den};
    wr->enc->gop_size = (int)((double)fps_num / fps_den * cfg.gop_s10 / 10.0 + 0.5);
    if (wr->enc->gop_size < 1)
        wr->enc->gop_size = 1;
    wr->enc->thread_count = cfg.threads;
    wr->enc->colorspace = AVCOL_SPC_BT709;
    wr->enc->color_primaries = AVCOL_PRI_BT709;
    wr->enc->color_trc = AVCOL_TRC_BT709;
    wr->enc->color_range = AVCOL_RANGE_MPEG;
    if (wr->oc->oformat->flags & AVFMT_GLOBALHEADER)
        wr->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    av_opt_set(wr->enc->priv_data, "preset", cfg.preset ? cfg.preset : "veryfast", 0);
    av_opt_set_int(wr->enc->priv_data, "crf", cfg.crf, 0);
    if (cfg.bframes >= 0)
        wr->enc->max_b_frames = cfg.bframes; /* over the preset's (libx264 reads it after) */
    ret = avcodec_open2(wr->enc, codec, NULL);
    if (ret < 0) {
        st = set_err(wr, KR_ERR_CODEC, "%s: cannot open the H.264 encoder: %s", path,
                     kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    ret = avcodec_parameters_from_context(wr->st->codecpar, wr->enc);
    if (ret < 0) {
        st = set_err(wr, KR_ERR_CODEC, "%s: %s", path, kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    wr->st->time_base = wr->enc->time_base;
    wr->st->avg_frame_rate = wr->enc->framerate;

    wr->threads = cfg.threads;
    wr->src_frame = av_frame_alloc();
    if (!wr->src_frame || !(wr->src_frame->buf[0] = av_buffer_alloc(1))) {
        st = set_err(wr, KR_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    wr->frame->format = AV_PIX_FMT_YUV420P;
    wr->frame->width = w;
    wr->frame->height = h;
    ret = av_frame_get_buffer(wr->frame, 0);
    if (ret < 0) {
        st = set_err(wr, KR_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }

    ret = avio_open(&wr->oc->pb, wr->tmp_path, AVIO_FLAG_WRITE);
    if (ret < 0) {
        st = set_err(wr, KR_ERR_IO, "%s: cannot write there: %s", path, kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    av_dict_set(&opts, "movflags", "+faststart", 0);
    ret = avformat_write_header(wr->oc, &opts);
    av_dict_free(&opts);
    if (ret < 0) {
        st = set_err(wr, KR_ERR_IO, "%s: cannot write MP4 header: %s", path, kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    wr->header_written = 1;
    *out = wr;
    return KR_OK;

fail:
    if (wr && wr->err[0])
        snprintf(create_error, sizeof create_error, "%s", wr->err);
    kr_media_writer_destroy(wr);
    return st;
}

static kr_status check_time(kr_media_writer_t *wr, int64_t t_us);
static kr_status frame_begin(kr_media_writer_t *wr, int64_t t_us);
static kr_status send_frame(kr_media_writer_t *wr, int64_t t_us);

/* Drains encoded packets into the muxer (until EAGAIN, or EOF when flushing). */
static kr_status drain(kr_media_writer_t *wr)
{
    char d[384];
    for (;;) {
        int ret = avcodec_receive_packet(wr->enc, wr->pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return KR_OK;
        if (ret < 0)
            return set_err(wr, KR_ERR_CODEC, "%s: encoding failed: %s", wr->path, kr_media_ff_detail(ret, d, sizeof d));
        if (wr->pkt->duration <= 0)
            wr->pkt->duration = wr->period_us; /* only used for the last frame's duration */
        av_packet_rescale_ts(wr->pkt, wr->enc->time_base, wr->st->time_base);
        wr->pkt->stream_index = wr->st->index;
        ret = av_interleaved_write_frame(wr->oc, wr->pkt); /* takes the packet's reference */
        if (ret < 0)
            return set_err(wr, KR_ERR_IO, "%s: write failed: %s", wr->path, kr_media_ff_detail(ret, d, sizeof d));
    }
}

kr_status kr_media_writer_write(kr_media_writer_t *wr, const kr_image_t *img, int64_t t_us)
{
    char d[384];
    if (!wr || !img || !img->px)
        return KR_ERR_INVALID;
    if (wr->closed)
        return set_err(wr, KR_ERR_INVALID, "%s: write after close", wr->path);
    if (img->w != wr->w || img->h != wr->h || (img->channels != 3 && img->channels != 1))
        return set_err(wr, KR_ERR_INVALID, "%s: frame is %dx%dx%d, writer expects %dx%d BGR or grey",
                       wr->path, img->w, img->h, img->channels, wr->w, wr->h);
    kr_status tst = frame_begin(wr, t_us);
    if (tst != KR_OK)
        return tst;
    enum AVPixelFormat sfmt = img->channels == 3 ? AV_PIX_FMT_BGR24 : AV_PIX_FMT_GRAY8;
    if (!wr->sws || wr->sws_fmt != (int)sfmt) {
        sws_freeContext(wr->sws);
        wr->sws = sws_alloc_context();
        if (!wr->sws)
            return set_err(wr, KR_ERR_NOMEM, "%s: out of memory", wr->path);
        av_opt_set_int(wr->sws, "srcw", wr->w, 0);
        av_opt_set_int(wr->sws, "srch", wr->h, 0);
        av_opt_set_int(wr->sws, "src_format", sfmt, 0);
        av_opt_set_int(wr->sws, "dstw", wr->w, 0);
        av_opt_set_int(wr->sws, "dsth", wr->h, 0);
        av_opt_set_int(wr->sws, "dst_format", AV_PIX_FMT_YUV420P, 0);
        av_opt_set_int(wr->sws, "sws_flags", SWS_BILINEAR, 0);
        av_opt_set_int(wr->sws, "threads", wr->threads, 0);
        if (sws_init_context(wr->sws, NULL, NULL) < 0) {
            sws_freeContext(wr->sws);
            wr->sws = NULL;
            return set_err(wr, KR_ERR_CODEC, "%s: cannot convert %s frames", wr->path, av_get_pix_fmt_name(sfmt));
        }
        if (sfmt == AV_PIX_FMT_BGR24) /* full-range RGB -> BT.709 limited (as tagged) */
            sws_setColorspaceDetails(wr->sws, sws_getCoefficients(SWS_CS_DEFAULT), 1,
                                     sws_getCoefficients(SWS_CS_ITU709), 0, 0, 1 << 16, 1 << 16);
        wr->sws_fmt = (int)sfmt;
    }
    /* the caller's pixels, borrowed: src_frame's buffer is a placeholder that only
     * makes the frame count as reference-counted (so nothing is copied) */
    wr->src_frame->data[0] = img->px;
    wr->src_frame->linesize[0] = img->stride;
    wr->src_frame->width = wr->w;
    wr->src_frame->height = wr->h;
    wr->src_frame->format = sfmt;
    int ret = sws_scale_frame(wr->sws, wr->frame, wr->src_frame);
    if (ret < 0)
        return set_err(wr, KR_ERR_CODEC, "%s: colour conversion failed: %s", wr->path, kr_media_ff_detail(ret, d, sizeof d));
    return send_frame(wr, t_us);
}

/* A frame at t_us may be written (check_time) into wr->frame, made writable. */
static kr_status frame_begin(kr_media_writer_t *wr, int64_t t_us)
{
    kr_status st = check_time(wr, t_us);
    if (st != KR_OK)
        return st;
    char d[384];
    int  ret = av_frame_make_writable(wr->frame);
    if (ret < 0)
        return set_err(wr, KR_ERR_NOMEM, "%s: %s", wr->path, kr_media_ff_detail(ret, d, sizeof d));
    return KR_OK;
}

/* The time checks shared by both writes: KR_OK when t_us may follow. */
static kr_status check_time(kr_media_writer_t *wr, int64_t t_us)
{
    if (wr->nframes == 0)
        wr->first_t_us = t_us;
    else if (t_us <= wr->last_t_us)
        return set_err(wr, KR_ERR_INVALID, "%s: frame time %lld us is not after the previous %lld us",
                       wr->path, (long long)t_us, (long long)wr->last_t_us);
    return KR_OK;
}

kr_status kr_media_writer_write_yuv(kr_media_writer_t *wr, const kr_yuv_t *yuv, int64_t t_us)
{
    char d[384];
    if (!wr || !yuv || !yuv->y || !yuv->u || !yuv->v)
        return KR_ERR_INVALID;
    if (wr->closed)
        return set_err(wr, KR_ERR_INVALID, "%s: write after close", wr->path);
    if (yuv->w != wr->w || yuv->h != wr->h)
        return set_err(wr, KR_ERR_INVALID, "%s: frame is %dx%d, writer expects %dx%d", wr->path, yuv->w, yuv->h,
                       wr->w, wr->h);
    const uint8_t *src[3] = {yuv->y, yuv->u, yuv->v};
    const int      sstride[3] = {yuv->stride_y, yuv->stride_c, yuv->stride_c};
    if (!yuv->bt709 || yuv->full_range) {
        /* other colours: through BGR as the reader makes it (swscale converts ranges
         * between 4:2:0 pictures but not matrices), then the BGR path to BT.709 */
        int cs = (yuv->bt709 ? 2 : 0) + (yuv->full_range ? 1 : 0);
        if (!wr->sws_yuv || wr->sws_yuv_cs != cs) {
            sws_freeContext(wr->sws_yuv);
            wr->sws_yuv = sws_getContext(wr->w, wr->h, AV_PIX_FMT_YUV420P, wr->w, wr->h, AV_PIX_FMT_BGR24,
                                         SWS_BILINEAR, NULL, NULL, NULL);
            if (!wr->sws_yuv)
                return set_err(wr, KR_ERR_CODEC, "%s: cannot convert 4:2:0 frames", wr->path);
            sws_setColorspaceDetails(wr->sws_yuv, sws_getCoefficients(yuv->bt709 ? SWS_CS_ITU709 : SWS_CS_DEFAULT),
                                     yuv->full_range, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
            wr->sws_yuv_cs = cs;
        }
        if (!wr->yuv_bgr && !(wr->yuv_bgr = malloc((size_t)wr->w * wr->h * 3)))
            return set_err(wr, KR_ERR_NOMEM, "%s: out of memory", wr->path);
        uint8_t *dst[1] = {wr->yuv_bgr};
        const int dstride[1] = {wr->w * 3};
        int ret = sws_scale(wr->sws_yuv, src, sstride, 0, wr->h, dst, dstride);
        if (ret < 0)
            return set_err(wr, KR_ERR_CODEC, "%s: colour conversion failed: %s", wr->path,
                           kr_media_ff_detail(ret, d, sizeof d));
        kr_image_t img = {wr->w, wr->h, wr->w * 3, 3, wr->yuv_bgr};
        return kr_media_writer_write(wr, &img, t_us);
    }
    kr_status st = frame_begin(wr, t_us);
    if (st != KR_OK)
        return st;
    for (int p = 0; p < 3; p++) { /* the file's colours: a copy */
        int rows = p ? wr->h / 2 : wr->h, bytes = p ? wr->w / 2 : wr->w;
        for (int y = 0; y < rows; y++)
            memcpy(wr->frame->data[p] + (size_t)y * wr->frame->linesize[p], src[p] + (size_t)y * sstride[p],
                   (size_t)bytes);
    }
    return send_frame(wr, t_us);
}

/* Encodes wr->frame (filled) at t_us. */
static kr_status send_frame(kr_media_writer_t *wr, int64_t t_us)
{
    char d[384];
    int ret;
    wr->frame->pts = t_us - wr->first_t_us;
    kr_media_avlog_clear();
    ret = avcodec_send_frame(wr->enc, wr->frame);
    if (ret < 0)
        return set_err(wr, KR_ERR_CODEC, "%s: encoding failed at t=%.3f s: %s", wr->path,
                       (double)t_us / 1e6, kr_media_ff_detail(ret, d, sizeof d));
    wr->last_t_us = t_us;
    wr->nframes++;
    return drain(wr);
}

kr_status kr_media_writer_close(kr_media_writer_t *wr)
{
    char d[384];
    kr_status st = KR_OK;
    if (!wr)
        return KR_ERR_INVALID;
    if (wr->closed)
        return set_err(wr, KR_ERR_INVALID, "%s: already closed", wr->path);
    wr->closed = 1;
    if (wr->nframes == 0) {
        st = set_err(wr, KR_ERR_INVALID, "%s: no frames written", wr->path);
        goto fail;
    }
    avcodec_send_frame(wr->enc, NULL);
    st = drain(wr);
    if (st != KR_OK)
        goto fail;
    int ret = av_write_trailer(wr->oc);
    wr->header_written = 0;
    if (ret < 0) {
        st = set_err(wr, KR_ERR_IO, "%s: cannot finish the MP4: %s", wr->path, kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    ret = avio_closep(&wr->oc->pb);
    if (ret < 0) {
        st = set_err(wr, KR_ERR_IO, "%s: write failed: %s", wr->path, kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    int fd = open(wr->tmp_path, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    if (rename(wr->tmp_path, wr->path) != 0) {
        st = set_err(wr, KR_ERR_IO, "%s: cannot rename the finished file into place", wr->path);
        goto fail;
    }
    free(wr->tmp_path);
    wr->tmp_path = NULL; /* nothing left to remove */
    return KR_OK;

fail:
    if (wr->oc && wr->oc->pb)
        avio_closep(&wr->oc->pb);
    if (wr->tmp_path)
        remove(wr->tmp_path);
    return st;
}

const char *kr_media_writer_error(const kr_media_writer_t *w)
{
    return w ? w->err : create_error;
}

void kr_media_writer_destroy(kr_media_writer_t *wr)
{
    if (!wr)
        return;
    if (wr->oc) {
        if (wr->oc->pb)
            avio_closep(&wr->oc->pb);
        avformat_free_context(wr->oc);
    }
    if (wr->tmp_path)
        remove(wr->tmp_path);
    sws_freeContext(wr->sws);
    sws_freeContext(wr->sws_yuv);
    free(wr->yuv_bgr);
    if (wr->src_frame)
        wr->src_frame->data[0] = NULL; /* borrowed pixels: only the placeholder is freed */
    av_frame_free(&wr->src_frame);
    av_frame_free(&wr->frame);
    av_packet_free(&wr->pkt);
    avcodec_free_context(&wr->enc);
    free(wr->tmp_path);
    free(wr->path);
    free(wr);
}
