/* kr_decode.c - kr_media_reader: FFmpeg demux + threaded decode (send/receive/flush),
 * presentation times from best_effort_timestamp rescaled by the stream time base.
 * SPDX-License-Identifier: MIT */
#include "kr_media.h"
#include "kr_media_internal.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/cpu.h>
#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct kr_media_reader {
    char                  *path;        /* owned copy */
    kr_media_reader_config cfg;
    AVFormatContext       *fmt;
    AVCodecContext        *dec;
    AVStream              *st;          /* borrowed from fmt */
    int                    vidx;
    AVPacket              *pkt;
    AVFrame               *frame;       /* last decoded frame (holds zero-copy pixels) */
    kr_media_sws           sws;         /* grey path (luma plane), threaded */
    AVFrame               *luma;        /* GRAY8 view of a frame's luma plane */
    kr_media_conv          conv;        /* colour path: planes at the output size, BGR */
    AVFrame               *out_frame;   /* grey path: wraps buf for sws_scale_frame */
    uint8_t               *buf;         /* grey path: output, out_stride * out_h bytes */
    int                    out_w, out_h, out_ch, out_stride;
    kr_image_t             img;         /* what the last next() returned (yuv: empty) */
    kr_yuv_t               yuv;         /* yuv option: the last frame's planes at the output size */
    int                    have_frame;  /* frame/img/yuv hold the last next()'s frame */
    kr_media_info_t        info;
    int64_t                first_pts;   /* stream time base; first frame's pts */
    int64_t                period_us;   /* nominal frame period */
    int64_t                last_t_us;
    int                    last_key;    /* the frame decoded last was intra-coded (a keyframe) */
    int                    cur_key;     /* ... the frame next() hands out (threaded: its slot's) */
    kr_media_gaps_t        gaps;
    int                    have_prev;   /* a frame was returned since open/seek */
    int64_t                next_index;  /* index of the next returned frame */
    int64_t                decoded;     /* frames decoded since open (incl. skipped) */
    int                    seeked;      /* a seek happened: frame counts are not absolute */
    int64_t                seek_us;     /* skip frames before this time; -1: none */
    int                    seek_tries;
    int                    pending;     /* frame holds a decoded frame not yet returned */
    int                    flushing;    /* demuxer at end; decoder draining */
    int64_t                damage;      /* keep_going: damaged packets/frames skipped (decoding side) */
    int64_t                damage_seen; /* the same, as of the last frame next() returned */
    int                    read_errs;   /* keep_going: consecutive demuxer errors */
    int64_t                msg_index;   /* decoding side: index of the next frame, for messages */
    char                   derr[512];   /* decoding side's message (decode_one) ... */
    int                    derr_new;    /* ... not yet copied to err */
    char                   err[512];
    /* decode_ahead: decode_one runs in a thread of our own, frames move through a ring */
    AVFrame               *cur;         /* the frame next() returned (borrowed: frame, or a
                                           ring slot's picture while the caller holds it) */
    int                    cur_pre;     /* cur was scaled in YUV by the decode thread ... */
    int                    cur_spc, cur_full; /* ... with the source's colour (kr_media_frame_colour) */
    kr_media_sws           pysws;       /* the decode thread's YUV scaler */
    pthread_t              th;
    int                    th_running, sync_ok;
    pthread_mutex_t        mu;
    pthread_cond_t         cv_ready, cv_space;
    struct ring_slot {
        AVFrame  *f;                /* decoded frame (a reference), when not pre */
        AVFrame  *s;                /* pre: the frame scaled to the output size (owned pixels,
                                       allocated once and reused) */
        int       pre, spc, full;
        int64_t   t_us, damage;
        int       key;              /* intra-coded (kr_frame_t.key) */
        kr_status st;               /* KR_OK: a frame; else the end (EOF or error) */
        int       has_msg;
        char      msg[512];         /* derr as it was when this slot was filled */
    }                     *ring;
    int                    ring_cap, ring_head, ring_n; /* ring_cap = decode_ahead + 1 */
    int                    held;        /* the head slot is the frame next() handed out */
    int                    pre_ok;      /* decode_ahead, colour: the thread scales (wants_pre) */
    int                    stop, prod_waiting, cons_waiting, ended; /* ended: the last slot is the end */
};

static _Thread_local char open_error[512];

void kr_media_reader_config_default(kr_media_reader_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->gray = 0;
    cfg->out_w = 0;
    cfg->out_h = 0;
    cfg->threads = 0;
}

/* set_err(obj, status, fmt, ...): one-line message into obj->err, returns status. */
#define set_err(o, st, ...) kr_error_set((o)->err, sizeof (o)->err, (st), __VA_ARGS__)

/* set_derr: as set_err, into the decoding side's message (decode_one may run in the
 * decode thread; the message reaches err with the frame or end it came with). */
#define set_derr(o, st, ...) ((o)->derr_new = 1, kr_error_set((o)->derr, sizeof (o)->derr, (st), __VA_ARGS__))

/* Damaged input: without keep_going it is the caller's error (returns st); with it,
 * counted, the first message kept, and KR_OK returned so decoding goes on. */
static kr_status damaged(kr_media_reader_t *r, kr_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static kr_status damaged(kr_media_reader_t *r, kr_status st, const char *fmt, ...)
{
    if (r->cfg.keep_going && r->damage++ > 0)
        return KR_OK;
    va_list ap;
    va_start(ap, fmt);
    kr_error_setv(r->derr, sizeof r->derr, st, fmt, ap);
    r->derr_new = 1;
    va_end(ap);
    return r->cfg.keep_going ? KR_OK : st;
}


static double pos_s(const kr_media_reader_t *r) { return (double)r->last_t_us / 1e6; }

static int64_t pts_to_us(const kr_media_reader_t *r, int64_t pts)
{
    return av_rescale_q(pts - r->first_pts, r->st->time_base, AV_TIME_BASE_Q);
}

static int is_planar_yuv(int f)
{
    switch (f) {
    case AV_PIX_FMT_YUV420P: case AV_PIX_FMT_YUVJ420P: case AV_PIX_FMT_YUV422P:
    case AV_PIX_FMT_YUVJ422P: case AV_PIX_FMT_YUV444P: case AV_PIX_FMT_YUVJ444P:
    case AV_PIX_FMT_NV12: case AV_PIX_FMT_NV21: case AV_PIX_FMT_GRAY8:
        return 1;
    default:
        return 0;
    }
}

/* Decodes the next raw frame (presentation order) into r->frame, honouring a
 * pending seek target. KR_OK, KR_ERR_EOF or an error with r->err set. */
static kr_status decode_one(kr_media_reader_t *r)
{
    char d[384];
    for (;;) {
        int ret = avcodec_receive_frame(r->dec, r->frame);
        if (ret == 0) {
            r->decoded++;
            if (r->frame->flags & AV_FRAME_FLAG_CORRUPT) {
                kr_status st = damaged(r, KR_ERR_CODEC, "%s: corrupt frame decoded after t=%.3f s (frame %lld)",
                                       r->path, pos_s(r), (long long)r->msg_index);
                if (st != KR_OK)
                    return st;
                av_frame_unref(r->frame); /* skipped: shows as a gap */
                continue;
            }
            int64_t pts = r->frame->best_effort_timestamp;
            if (pts == AV_NOPTS_VALUE)
                pts = r->frame->pts;
            int64_t t = pts == AV_NOPTS_VALUE ? r->last_t_us + r->period_us : pts_to_us(r, pts);
            if (r->seek_us >= 0) {
                if (t > r->seek_us && r->seek_tries > 0 && r->seek_tries < 6 &&
                    t - r->seek_us > r->period_us / 2) {
                    /* landed after the target (keyframe dts <= target < its pts):
                     * seek further back and try again */
                    int64_t back = (int64_t)1000000 << r->seek_tries;
                    int64_t tgt = r->first_pts + av_rescale_q(r->seek_us - back > 0 ? r->seek_us - back : 0,
                                                              AV_TIME_BASE_Q, r->st->time_base);
                    r->seek_tries++;
                    av_frame_unref(r->frame);
                    if (av_seek_frame(r->fmt, r->vidx, tgt, AVSEEK_FLAG_BACKWARD) < 0)
                        av_seek_frame(r->fmt, r->vidx, r->first_pts, AVSEEK_FLAG_BACKWARD);
                    avcodec_flush_buffers(r->dec);
                    r->flushing = 0;
                    continue;
                }
                r->seek_tries = 0;
                if (t < r->seek_us) {
                    av_frame_unref(r->frame);
                    continue;
                }
                r->seek_us = -1;
                r->msg_index = (int64_t)((double)t * r->info.fps / 1e6 + 0.5);
            }
            r->frame->best_effort_timestamp = pts; /* keep for next() */
            r->msg_index++;
            r->last_t_us = t;
            r->last_key = r->frame->key_frame || r->frame->pict_type == AV_PICTURE_TYPE_I;
            return KR_OK;
        }
        if (ret == AVERROR_EOF) {
            if (r->seek_us >= 0) {
                r->seek_us = -1;
                r->seek_tries = 0;
            }
            if (r->fmt->pb && r->fmt->pb->error)
                return set_derr(r, KR_ERR_IO, "%s: read error after t=%.3f s (frame %lld): %s",
                               r->path, pos_s(r), (long long)r->msg_index,
                               kr_media_averr(r->fmt->pb->error, d, sizeof d));
            if (!r->seeked && r->st->nb_frames > 0 && r->decoded < r->st->nb_frames && !r->damage) {
                kr_status st = damaged(r, KR_ERR_FORMAT,
                                       "%s: truncated: stream ends after t=%.3f s (frame %lld) but the container lists %lld frames",
                                       r->path, pos_s(r), (long long)r->decoded, (long long)r->st->nb_frames);
                if (st != KR_OK)
                    return st;
            }
            return KR_ERR_EOF;
        }
        if (ret != AVERROR(EAGAIN))
            return set_derr(r, KR_ERR_CODEC, "%s: decode error after t=%.3f s (frame %lld): %s",
                           r->path, pos_s(r), (long long)r->msg_index, kr_media_ff_detail(ret, d, sizeof d));
        if (r->flushing)
            return set_derr(r, KR_ERR_CODEC, "%s: decoder stalled while draining", r->path);
        /* the decoder wants input */
        kr_media_avlog_clear();
        ret = av_read_frame(r->fmt, r->pkt);
        if (ret == AVERROR_EOF) {
            r->flushing = 1;
            avcodec_send_packet(r->dec, NULL);
            continue;
        }
        if (ret < 0) {
            kr_status st = damaged(r, ret == AVERROR(EIO) ? KR_ERR_IO : KR_ERR_FORMAT,
                                   "%s: cannot read past t=%.3f s (frame %lld): %s", r->path, pos_s(r),
                                   (long long)r->msg_index, kr_media_ff_detail(ret, d, sizeof d));
            if (st != KR_OK)
                return st;
            if (++r->read_errs > 10000) { /* the demuxer cannot get past it: end here */
                r->flushing = 1;
                avcodec_send_packet(r->dec, NULL);
            }
            continue;
        }
        r->read_errs = 0;
        if (r->pkt->stream_index != r->vidx) {
            av_packet_unref(r->pkt);
            continue;
        }
        if (r->pkt->flags & AV_PKT_FLAG_CORRUPT) {
            av_packet_unref(r->pkt);
            kr_status st = damaged(r, KR_ERR_FORMAT, "%s: truncated or corrupt data after t=%.3f s (frame %lld)",
                                   r->path, pos_s(r), (long long)r->msg_index);
            if (st != KR_OK)
                return st;
            continue;
        }
        /* while seeking, frames before the target that nothing refers to need not be
         * decoded at all (B-frames: a good part of the pre-roll after a keyframe) */
        enum AVDiscard skip = AVDISCARD_DEFAULT;
        if (r->seek_us >= 0 && r->pkt->pts != AV_NOPTS_VALUE &&
            pts_to_us(r, r->pkt->pts) + r->period_us < r->seek_us)
            skip = AVDISCARD_NONREF;
        r->dec->skip_frame = skip;
        ret = avcodec_send_packet(r->dec, r->pkt);
        av_packet_unref(r->pkt);
        if (ret < 0 && ret != AVERROR(EAGAIN)) {
            kr_status st = damaged(r, KR_ERR_CODEC, "%s: undecodable data after t=%.3f s (frame %lld): %s",
                                   r->path, pos_s(r), (long long)r->msg_index, kr_media_ff_detail(ret, d, sizeof d));
            if (st != KR_OK)
                return st;
        }
    }
}

/* Copies a new message of the decoding side into err (when decode_one ran on this thread). */
static void take_derr(kr_media_reader_t *r)
{
    if (r->derr_new) {
        memcpy(r->err, r->derr, sizeof r->err);
        r->derr_new = 0;
    }
}

/* Converts r->cur to the configured output and fills out->img. Colour: through r->conv
 * (kr_convert.c, shared with kr_capture), the planes at the output size with the yuv
 * option (BGR later, on demand), else BGR now. Frames to be resized were scaled in YUV
 * by the decode thread with decode_ahead, else they are scaled here (one swscale thread:
 * its slice threads cost more CPU in wakeups than they save at these sizes). Pixel
 * buffers are allocated once; sws_scale_frame() takes frame references, which costs
 * FFmpeg a few small AVBufferRef allocations per frame: the price of spreading the BGR
 * conversion over threads. */
static kr_status convert(kr_media_reader_t *r, kr_image_t *img)
{
    AVFrame *f = r->cur;
    int same = f->width == r->out_w && f->height == r->out_h;
    img->w = r->out_w;
    img->h = r->out_h;
    img->channels = r->out_ch;
    memset(&r->yuv, 0, sizeof r->yuv);
    if (r->cfg.gray && same && is_planar_yuv(f->format)) { /* zero copy: the luma plane */
        img->px = f->data[0];
        img->stride = f->linesize[0];
        return KR_OK;
    }
    if (!r->cfg.gray) {
        char        d[128];
        const char *what = "";
        int         spc = r->cur_spc, full = r->cur_full; /* cur_pre: the source's, kept by the decode thread */
        if (!r->cur_pre)
            kr_media_frame_colour(f, &spc, &full);
        int ret = kr_media_conv_set(&r->conv, f, spc, full, r->out_w, r->out_h, r->cfg.yuv, 1, &r->yuv, &what);
        kr_image_t bgr = {0, 0, 0, 0, NULL};
        if (ret >= 0 && !r->yuv.y)
            ret = kr_media_conv_bgr(&r->conv, r->cfg.threads, &bgr, &what);
        if (ret < 0)
            return set_err(r, ret == AVERROR(ENOMEM) ? KR_ERR_NOMEM : KR_ERR_CODEC, "%s: %s failed: %s", r->path,
                           what, kr_media_averr(ret, d, sizeof d));
        img->px = bgr.px;
        img->stride = bgr.stride;
        return KR_OK;
    }
    /* grey: scale only the luma plane of YUV sources (placeholder buffer: borrowed pixels) */
    const AVFrame *in = f;
    if (is_planar_yuv(f->format)) {
        r->luma->data[0] = f->data[0];
        r->luma->linesize[0] = f->linesize[0];
        r->luma->width = f->width;
        r->luma->height = f->height;
        r->luma->format = AV_PIX_FMT_GRAY8;
        in = r->luma;
    }
    int ret = kr_media_sws_prepare(&r->sws, in, r->out_w, r->out_h, AV_PIX_FMT_GRAY8,
                                   same ? SWS_POINT : SWS_BILINEAR, r->cfg.threads, 0, 0);
    if (ret >= 0)
        ret = sws_scale_frame(r->sws.ctx, r->out_frame, in);
    r->luma->data[0] = NULL;
    if (ret < 0) {
        char d[128];
        return set_err(r, KR_ERR_CODEC, "%s: cannot scale %dx%d %s frames: %s", r->path, f->width, f->height,
                       av_get_pix_fmt_name(f->format) ? av_get_pix_fmt_name(f->format) : "?",
                       kr_media_averr(ret, d, sizeof d));
    }
    img->px = r->buf;
    img->stride = r->out_stride;
    return KR_OK;
}

static void buf_keep(void *opaque, uint8_t *data)
{
    (void)opaque;
    (void)data; /* buf belongs to the reader, freed in destroy */
}

kr_status kr_media_reader_open(const char *path, kr_media_reader_t **out)
{
    return kr_media_reader_open2(path, NULL, out);
}

kr_status kr_media_reader_open2(const char *path, const kr_media_reader_config *cfg,
                                kr_media_reader_t **out)
{
    kr_status st = KR_OK;
    char d[384];
    kr_media_reader_t *r = NULL;
    const AVCodec *codec = NULL;
    int ret;

    open_error[0] = '\0';
    if (out)
        *out = NULL;
    if (!path || !*path || !out) {
        snprintf(open_error, sizeof open_error, "media reader: no file given");
        return KR_ERR_INVALID;
    }
    kr_media_avlog_init();
    kr_media_avlog_clear();
    r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        st = KR_ERR_NOMEM;
        snprintf(r ? r->err : open_error, sizeof open_error, "%s: out of memory", path);
        goto fail;
    }
    if (cfg)
        r->cfg = *cfg;
    else
        kr_media_reader_config_default(&r->cfg);
    if (r->cfg.out_w < 0 || r->cfg.out_h < 0 || r->cfg.threads < 0 || (r->cfg.yuv && r->cfg.gray) ||
        r->cfg.decode_ahead < 0 || r->cfg.decode_ahead > 64) {
        st = set_err(r, KR_ERR_INVALID,
                     "%s: bad reader configuration (negative size or threads, both yuv and gray, or decode_ahead "
                     "outside 0 ... 64)",
                     path);
        goto fail;
    }
    if (r->cfg.decode_ahead) {
        r->ring_cap = r->cfg.decode_ahead + 1; /* + the slot of the frame handed out */
        r->pre_ok = !r->cfg.gray;
        r->ring = calloc((size_t)r->ring_cap, sizeof *r->ring);
        int ok = r->ring != NULL;
        for (int k = 0; ok && k < r->ring_cap; k++)
            ok = (r->ring[k].f = av_frame_alloc()) != NULL;
        if (!ok) {
            st = set_err(r, KR_ERR_NOMEM, "%s: out of memory", path);
            goto fail;
        }
        if (pthread_mutex_init(&r->mu, NULL) == 0) {
            if (pthread_cond_init(&r->cv_ready, NULL) == 0) {
                if (pthread_cond_init(&r->cv_space, NULL) == 0)
                    r->sync_ok = 1;
                else
                    pthread_cond_destroy(&r->cv_ready);
            }
            if (!r->sync_ok)
                pthread_mutex_destroy(&r->mu);
        }
        if (!r->sync_ok) {
            st = set_err(r, KR_ERR_NOMEM, "%s: cannot make the decode thread's locks", path);
            goto fail;
        }
    }
    r->seek_us = -1;

    ret = avformat_open_input(&r->fmt, path, NULL, NULL);
    if (ret < 0) {
        st = (ret == AVERROR(ENOENT) || ret == AVERROR(EACCES) || ret == AVERROR(EISDIR)) ? KR_ERR_IO
                                                                                            : KR_ERR_FORMAT;
        set_err(r, st, "%s: cannot open video: %s", path, kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    ret = avformat_find_stream_info(r->fmt, NULL);
    if (ret < 0) {
        st = set_err(r, KR_ERR_FORMAT, "%s: not a readable video: %s", path, kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    ret = av_find_best_stream(r->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (ret < 0) {
        st = set_err(r, ret == AVERROR_DECODER_NOT_FOUND ? KR_ERR_CODEC : KR_ERR_FORMAT,
                     "%s: %s", path, ret == AVERROR_DECODER_NOT_FOUND ? "no decoder for its video stream"
                                                                     : "no video stream");
        goto fail;
    }
    r->vidx = ret;
    r->st = r->fmt->streams[ret];
    for (unsigned i = 0; i < r->fmt->nb_streams; i++)
        if ((int)i != r->vidx)
            r->fmt->streams[i]->discard = AVDISCARD_ALL;

    r->dec = avcodec_alloc_context3(codec);
    r->pkt = av_packet_alloc();
    r->frame = av_frame_alloc();
    if (!r->cur)
        r->cur = r->frame;
    if (!r->dec || !r->pkt || !r->frame) {
        st = set_err(r, KR_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    ret = avcodec_parameters_to_context(r->dec, r->st->codecpar);
    if (ret < 0) {
        st = set_err(r, KR_ERR_CODEC, "%s: bad codec parameters: %s", path, kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }
    /* automatic with our own decode thread: FFmpeg's frame threads cost CPU in per-row
     * waits and wakeups; on two cores one decoding thread beside the caller's is enough */
    r->dec->thread_count = r->cfg.threads ? r->cfg.threads
                           : r->cfg.decode_ahead ? (av_cpu_count() <= 2 ? 1 : av_cpu_count() - 1)
                                                 : 0;
    r->dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    if (r->cfg.fast)
        r->dec->skip_loop_filter = AVDISCARD_ALL;
    r->dec->pkt_timebase = r->st->time_base;
    ret = avcodec_open2(r->dec, codec, NULL);
    if (ret < 0) {
        st = set_err(r, KR_ERR_CODEC, "%s: cannot open %s decoder: %s", path, codec->name,
                     kr_media_ff_detail(ret, d, sizeof d));
        goto fail;
    }

    /* nominal rate, duration, count */
    AVRational fr = r->st->avg_frame_rate;
    if (fr.num <= 0 || fr.den <= 0)
        fr = r->st->r_frame_rate;
    r->info.fps = (fr.num > 0 && fr.den > 0) ? av_q2d(fr) : 30.0;
    r->period_us = (int64_t)(1e6 / r->info.fps + 0.5);
    const enum AVFieldOrder fo = r->st->codecpar->field_order;
    r->info.interlaced = fo == AV_FIELD_TT || fo == AV_FIELD_BB || fo == AV_FIELD_TB || fo == AV_FIELD_BT;
    /* variable-rate files: the average rate can be far from the local one, so with
     * no interval seen yet gaps are judged against twice the nominal period */
    if (r->st->duration != AV_NOPTS_VALUE && r->st->duration > 0)
        r->info.duration_us = av_rescale_q(r->st->duration, r->st->time_base, AV_TIME_BASE_Q);
    else if (r->fmt->duration != AV_NOPTS_VALUE && r->fmt->duration > 0)
        r->info.duration_us = r->fmt->duration;
    r->info.frames_est = r->st->nb_frames > 0 ? r->st->nb_frames
                                              : (int64_t)((double)r->info.duration_us * r->info.fps / 1e6 + 0.5);
    r->info.w = r->dec->width;
    r->info.h = r->dec->height;
    if (r->info.w <= 0 || r->info.h <= 0) {
        st = set_err(r, KR_ERR_FORMAT, "%s: video stream has no frame size", path);
        goto fail;
    }
    r->out_w = r->cfg.out_w;
    r->out_h = r->cfg.out_h;
    if (!r->out_w && !r->out_h) {
        r->out_w = r->info.w;
        r->out_h = r->info.h;
    } else if (!r->out_w) {
        r->out_w = (int)((int64_t)r->info.w * r->out_h / r->info.h);
    } else if (!r->out_h) {
        r->out_h = (int)((int64_t)r->info.h * r->out_w / r->info.w);
    }
    if (r->out_w < 1)
        r->out_w = 1;
    if (r->out_h < 1)
        r->out_h = 1;
    r->out_ch = r->cfg.gray ? 1 : 3;
    r->out_stride = (r->out_w * r->out_ch + 31) & ~31;
    r->buf = av_malloc((size_t)r->out_stride * (size_t)r->out_h);
    if (!r->buf) {
        st = set_err(r, KR_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    /* a frame over buf (not owned: the no-op free) for sws_scale_frame */
    r->out_frame = av_frame_alloc();
    if (r->out_frame)
        r->out_frame->buf[0] = av_buffer_create(r->buf, (size_t)r->out_stride * (size_t)r->out_h, buf_keep, NULL, 0);
    if (!r->out_frame || !r->out_frame->buf[0]) {
        st = set_err(r, KR_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    r->out_frame->data[0] = r->buf;
    r->out_frame->linesize[0] = r->out_stride;
    r->out_frame->width = r->out_w;
    r->out_frame->height = r->out_h;
    r->out_frame->format = r->out_ch == 1 ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_BGR24;
    r->luma = av_frame_alloc();
    if (!r->luma || !(r->luma->buf[0] = av_buffer_alloc(1))) {
        st = set_err(r, KR_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    r->info.out_w = r->out_w;
    r->info.out_h = r->out_h;
    r->info.out_channels = r->out_ch;

    /* decode the first frame now: it fixes the time origin and proves the file decodes */
    r->first_pts = 0;
    st = decode_one(r);
    if (st != KR_OK) {
        if (st == KR_ERR_EOF) {
            st = KR_ERR_FORMAT;
            set_err(r, st, "%s: no decodable video frame", path);
        }
        goto fail;
    }
    if (r->frame->best_effort_timestamp != AV_NOPTS_VALUE)
        r->first_pts = r->frame->best_effort_timestamp;
    r->last_t_us = 0;
    kr_media_gaps_reset(&r->gaps, r->period_us);
    r->pending = 1;
    r->damage_seen = r->damage;
    take_derr(r);
    *out = r;
    return KR_OK;

fail:
    if (r)
        take_derr(r);
    if (r && r->err[0])
        snprintf(open_error, sizeof open_error, "%s", r->err);
    kr_media_reader_destroy(r);
    return st;
}

kr_status kr_media_reader_info(const kr_media_reader_t *r, kr_media_info_t *info)
{
    if (!r || !info)
        return KR_ERR_INVALID;
    *info = r->info;
    return KR_OK;
}

/* ---- decode_ahead: the decode thread and its ring ------------------------------------
 * The thread runs decode_one and moves each frame (a reference, no copy) into the ring
 * with its time, the damage count and any new message; the end (EOF or an error) is the
 * last slot. Wakeups are batched: a full ring lets the decoder sleep until half of it is
 * free, and a waiting caller is woken once a few frames are ready (or the end), so on a
 * machine where analysis is the slower side there is about one wakeup per ring_cap / 2
 * frames instead of one or more per frame. */

/* Frames to be resized are scaled in YUV where they are decoded, on the decode thread
 * (one place: the caller only converts what it asks for; beside the caller's analysis it
 * is the biggest cost after decoding), into the slot's own picture, reused frame after
 * frame. 4:2:0 frames only (the others go to BGR straight, as without the thread). */
static int wants_pre(const kr_media_reader_t *r, const AVFrame *f)
{
    return r->pre_ok && kr_media_is_420(f) && (f->width != r->out_w || f->height != r->out_h);
}

/* r->frame scaled into sl->s (the decode thread, or the caller before it starts), its
 * colour kept in the slot; r->frame is unreferenced. */
static kr_status pre_scale(kr_media_reader_t *r, struct ring_slot *sl)
{
    char        d[128];
    const char *what = "";
    kr_media_frame_colour(r->frame, &sl->spc, &sl->full);
    int ret = kr_media_scale_420(&r->pysws, &sl->s, r->frame, 1, r->out_w, r->out_h, &what);
    av_frame_unref(r->frame);
    if (ret < 0)
        return set_derr(r, ret == AVERROR(ENOMEM) ? KR_ERR_NOMEM : KR_ERR_CODEC, "%s: %s failed: %s", r->path, what,
                        kr_media_averr(ret, d, sizeof d));
    sl->pre = 1;
    return KR_OK;
}

static void *decode_thread(void *arg)
{
    kr_media_reader_t *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (r->ring_n == r->ring_cap && !r->stop) {
            r->prod_waiting = 1;
            pthread_cond_wait(&r->cv_space, &r->mu);
        }
        r->prod_waiting = 0;
        int stop = r->stop;
        /* the next free slot: the caller never touches it before it is counted in */
        struct ring_slot *sl = &r->ring[(r->ring_head + r->ring_n) % r->ring_cap];
        pthread_mutex_unlock(&r->mu);
        if (stop)
            break;
        av_frame_unref(r->frame);
        kr_status st = decode_one(r);
        sl->pre = 0;
        if (st == KR_OK && wants_pre(r, r->frame))
            st = pre_scale(r, sl);
        pthread_mutex_lock(&r->mu);
        sl->st = st;
        sl->t_us = r->last_t_us;
        sl->key = r->last_key;
        sl->damage = r->damage;
        sl->has_msg = r->derr_new;
        if (r->derr_new) {
            memcpy(sl->msg, r->derr, sizeof sl->msg);
            r->derr_new = 0;
        }
        if (st == KR_OK && !sl->pre)
            av_frame_move_ref(sl->f, r->frame); /* sl->f was unreferenced when released */
        else if (st != KR_OK)
            r->ended = 1;
        r->ring_n++;
        if (r->cons_waiting && (st != KR_OK || r->ring_n >= (r->ring_cap + 3) / 4))
            pthread_cond_signal(&r->cv_ready);
        pthread_mutex_unlock(&r->mu);
        if (st != KR_OK)
            break;
    }
    return NULL;
}

/* Stops and joins the decode thread; frames left in the ring are dropped (the slots'
 * scaled pictures keep their buffers). r->cur goes back to r->frame. */
static void stop_thread(kr_media_reader_t *r)
{
    if (r->th_running) {
        pthread_mutex_lock(&r->mu);
        r->stop = 1;
        pthread_cond_signal(&r->cv_space);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->th, NULL);
        r->th_running = 0;
    }
    for (int k = 0; k < r->ring_cap; k++)
        av_frame_unref(r->ring[k].f);
    r->ring_head = r->ring_n = 0;
    r->stop = r->ended = r->held = 0;
    r->cur = r->frame;
    r->cur_pre = 0;
}

/* The next slot from the thread (started here when needed), waiting for it. The caller
 * holds that slot (r->cur is its picture) until the next call, which gives it back to
 * the thread; returns the slot's status. */
static kr_status next_threaded(kr_media_reader_t *r, int64_t *t_us)
{
    if (!r->th_running) {
        if (r->pending) { /* open's (or the seek's) first frame goes first */
            struct ring_slot *sl = &r->ring[0];
            *sl = (struct ring_slot){
                .f = sl->f, .s = sl->s, .t_us = r->last_t_us, .key = r->last_key, .damage = r->damage, .st = KR_OK};
            r->pending = 0;
            if (wants_pre(r, r->frame)) { /* the thread is not running: its scaler is free */
                kr_status st = pre_scale(r, sl);
                take_derr(r);
                if (st != KR_OK)
                    return st;
            } else
                av_frame_move_ref(sl->f, r->frame);
            r->ring_head = 0;
            r->ring_n = 1;
        }
        if (pthread_create(&r->th, NULL, decode_thread, r) != 0)
            return set_err(r, KR_ERR_NOMEM, "%s: cannot start the decode thread", r->path);
        r->th_running = 1;
    }
    pthread_mutex_lock(&r->mu);
    if (r->held) { /* the frame handed out last time: next() is past it */
        struct ring_slot *h = &r->ring[r->ring_head];
        av_frame_unref(h->f);
        r->cur = r->frame;
        r->held = 0;
        r->ring_head = (r->ring_head + 1) % r->ring_cap;
        r->ring_n--;
        if (r->prod_waiting && r->ring_n <= r->ring_cap / 2)
            pthread_cond_signal(&r->cv_space);
    }
    while (r->ring_n == 0) {
        r->cons_waiting = 1;
        pthread_cond_wait(&r->cv_ready, &r->mu);
    }
    r->cons_waiting = 0;
    struct ring_slot *sl = &r->ring[r->ring_head];
    kr_status st = sl->st;
    if (sl->has_msg)
        memcpy(r->err, sl->msg, sizeof r->err);
    r->damage_seen = sl->damage;
    *t_us = sl->t_us;
    r->cur_key = sl->key;
    if (st == KR_OK) { /* the end stays in the ring (not held): later calls give it again */
        r->cur = sl->pre ? sl->s : sl->f;
        r->cur_pre = sl->pre;
        r->cur_spc = sl->spc;
        r->cur_full = sl->full;
        r->held = 1;
    }
    pthread_mutex_unlock(&r->mu);
    return st;
}

kr_status kr_media_reader_next(kr_media_reader_t *r, kr_frame_t *out)
{
    if (!r || !out)
        return KR_ERR_INVALID;
    int64_t t = r->last_t_us;
    r->have_frame = 0;
    if (r->cfg.decode_ahead) {
        kr_status st = next_threaded(r, &t);
        if (st != KR_OK)
            return st;
    } else if (!r->pending) {
        av_frame_unref(r->frame);
        kr_status st = decode_one(r);
        r->damage_seen = r->damage;
        take_derr(r);
        if (st != KR_OK)
            return st;
        t = r->last_t_us;
    }
    if (!r->cfg.decode_ahead)
        r->cur_key = r->last_key; /* the frame just decoded, or open's or the seek's first */
    r->pending = 0;
    kr_status st = convert(r, &r->img);
    if (st != KR_OK)
        return st;
    r->have_frame = 1;
    out->img = r->img;
    out->yuv = r->yuv;
    out->t_us = t;
    if (r->seeked && !r->have_prev)
        r->next_index = (int64_t)((double)t * r->info.fps / 1e6 + 0.5);
    out->index = r->next_index++;
    out->gap_us = kr_media_gaps_feed(&r->gaps, t);
    out->key = r->cur_key;
    r->have_prev = 1;
    return KR_OK;
}

kr_status kr_media_reader_seek(kr_media_reader_t *r, int64_t t_us)
{
    char d[384];
    if (!r)
        return KR_ERR_INVALID;
    if (t_us < 0)
        t_us = 0;
    if (r->cfg.decode_ahead)
        stop_thread(r);
    av_frame_unref(r->frame);
    r->pending = 0;
    r->have_frame = 0;
    int64_t tgt = r->first_pts + av_rescale_q(t_us, AV_TIME_BASE_Q, r->st->time_base);
    int ret = av_seek_frame(r->fmt, r->vidx, tgt, AVSEEK_FLAG_BACKWARD);
    if (ret < 0)
        ret = av_seek_frame(r->fmt, r->vidx, r->first_pts, AVSEEK_FLAG_BACKWARD);
    if (ret < 0)
        return set_err(r, KR_ERR_FORMAT, "%s: cannot seek to t=%.3f s: %s", r->path, (double)t_us / 1e6,
                       kr_media_ff_detail(ret, d, sizeof d));
    avcodec_flush_buffers(r->dec);
    r->flushing = 0;
    r->seeked = 1;
    r->have_prev = 0;
    kr_media_gaps_reset(&r->gaps, r->period_us);
    r->seek_us = t_us;
    r->seek_tries = 1;
    r->last_t_us = t_us;
    return KR_OK;
}

kr_status kr_media_reader_bgr(kr_media_reader_t *r, kr_image_t *out)
{
    if (!r || !out || !r->have_frame)
        return r ? set_err(r, KR_ERR_INVALID, "%s: no frame to convert", r->path) : KR_ERR_INVALID;
    if (r->yuv.y && !r->img.px) {
        /* the frame's planes at the output size through the unscaled YUV -> BGR step (the
         * same bytes as without yuv); with decode_ahead on this thread alone: the decode
         * thread is the parallelism, swscale's slice threads would only add wakeups */
        char        d[128];
        const char *what = "";
        kr_image_t  bgr;
        int ret = kr_media_conv_bgr(&r->conv, r->cfg.decode_ahead ? 1 : r->cfg.threads, &bgr, &what);
        if (ret < 0)
            return set_err(r, ret == AVERROR(ENOMEM) ? KR_ERR_NOMEM : KR_ERR_CODEC, "%s: %s failed: %s", r->path,
                           what, kr_media_averr(ret, d, sizeof d));
        r->img.px = bgr.px;
        r->img.stride = bgr.stride;
    }
    *out = r->img;
    return KR_OK;
}

int64_t kr_media_reader_damage(const kr_media_reader_t *r) { return r ? r->damage_seen : 0; }

const char *kr_media_reader_error(const kr_media_reader_t *r)
{
    return r ? r->err : open_error;
}

void kr_media_reader_destroy(kr_media_reader_t *r)
{
    if (!r)
        return;
    if (r->ring) {
        if (r->sync_ok)
            stop_thread(r);
        for (int k = 0; k < r->ring_cap; k++) {
            av_frame_free(&r->ring[k].f);
            av_frame_free(&r->ring[k].s);
        }
        free(r->ring);
    }
    if (r->sync_ok) {
        pthread_cond_destroy(&r->cv_space);
        pthread_cond_destroy(&r->cv_ready);
        pthread_mutex_destroy(&r->mu);
    }
    kr_media_sws_free(&r->sws);
    kr_media_sws_free(&r->pysws);
    kr_media_conv_free(&r->conv);
    av_frame_free(&r->luma);
    av_frame_free(&r->out_frame);
    av_free(r->buf);
    av_frame_free(&r->frame);
    av_packet_free(&r->pkt);
    avcodec_free_context(&r->dec);
    avformat_close_input(&r->fmt);
    free(r->path);
    free(r);
}
