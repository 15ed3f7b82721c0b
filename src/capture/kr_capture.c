/* kr_capture.c - GStreamer pipeline -> videoconvert -> appsink -> kr_frame_t with
 * running-time timestamps (BGR from GStreamer, or the decoder's raw frames as planes / BGR
 * by kr_media's conversion, exactly as its reader gives them); bus errors become KR_ERR_IO.
 * SPDX-License-Identifier: MIT */
#include "kr_capture.h"
#include "kr_media_internal.h" /* kr_media_conv: the reader's conversion */

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ff_convert: the raw formats the appsink takes as they come (see formats[] below) */
#define FF_CAPS "video/x-raw,format={I420,NV12,YUY2,Y42B,Y444,BGRx,BGR,RGB,RGBx,GRAY8}"

struct kr_capture {
    char             *desc;        /* owned: the full pipeline description */
    kr_capture_config cfg;
    GstElement       *pipeline;
    GstAppSink       *sink;        /* borrowed from pipeline (ref held) */
    GstBus           *bus;
    GstSample        *sample;      /* the sample behind the last frame (mapped) */
    GstBuffer        *buf;         /* borrowed from sample */
    GstMapInfo        map;
    int               mapped;
    int               have_first;  /* a frame was seen in this pipeline's life */
    GstClockTime      first_rt;    /* running time of that frame, ns */
    int64_t           t_offset_us; /* added to this pipeline's times (reopen continuity) */
    int64_t           last_t_us;
    int64_t           last_wall_us;
    int               any_frame;   /* a frame was ever returned */
    int64_t           index;
    guint64           last_offset;
    int64_t           dropped;
    int64_t           age_us;      /* see kr_capture_frame_age_us */
    kr_media_gaps_t   gaps;
    int               eos;
    /* ff_convert: raw planes -> planes at the output size / BGR as kr_media's reader gives them */
    kr_media_conv     conv;        /* the current sample at the output size */
    kr_media_conv     fconv;       /* the current sample at its own size (kr_capture_frame_full) */
    AVFrame          *src;         /* wraps the mapped sample (planes borrowed) */
    int               cw, ch;      /* source size of the current sample */
    int               spc, full_range; /* its colour matrix (SWS_CS_*) and range */
    int               have_full;   /* fconv holds the current sample */
    kr_image_t        img;         /* the current frame's img (yuv option: empty until asked) */
    kr_yuv_t          yuv;         /* yuv option: its planes (at the output size) */
    int               have_bgr;    /* img holds the current frame's BGR */
    int64_t           cur_t_us, cur_index, cur_gap_us; /* the current frame's times */
    char              err[512];
};

static _Thread_local char open_error[512];

void kr_capture_config_default(kr_capture_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->gray = 0;
    cfg->sync = 1;
    cfg->max_buffers = 0;
    cfg->drop = 0;
    cfg->ff_convert = 0;
    cfg->out_w = 0;
    cfg->out_h = 0;
}

/* set_err(obj, status, fmt, ...): one-line message into obj->err, returns status. */
#define set_err(o, st, ...) kr_error_set((o)->err, sizeof (o)->err, (st), __VA_ARGS__)

static void release_sample(kr_capture_t *c)
{
    if (c->src) /* the wrapped planes go with the sample */
        av_buffer_unref(&c->src->buf[0]);
    c->have_full = 0;
    c->have_bgr = 0;
    memset(&c->yuv, 0, sizeof c->yuv);
    memset(&c->img, 0, sizeof c->img);
    if (c->mapped)
        gst_buffer_unmap(c->buf, &c->map);
    c->mapped = 0;
    c->buf = NULL;
    if (c->sample)
        gst_sample_unref(c->sample);
    c->sample = NULL;
}

static void stop_pipeline(kr_capture_t *c)
{
    release_sample(c);
    if (c->pipeline)
        gst_element_set_state(c->pipeline, GST_STATE_NULL);
    if (c->bus)
        gst_object_unref(c->bus);
    if (c->sink)
        gst_object_unref(c->sink);
    if (c->pipeline)
        gst_object_unref(c->pipeline);
    c->bus = NULL;
    c->sink = NULL;
    c->pipeline = NULL;
}

/* Reads an ERROR (or EOS) message off the bus without waiting. Returns KR_OK when
 * none is pending. */
static kr_status check_bus(kr_capture_t *c)
{
    GstMessage *m;
    while ((m = gst_bus_pop_filtered(c->bus, GST_MESSAGE_ERROR | GST_MESSAGE_EOS))) {
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) {
            c->eos = 1;
            gst_message_unref(m);
            continue;
        }
        GError *e = NULL;
        gchar *dbg = NULL;
        gst_message_parse_error(m, &e, &dbg);
        /* the debug text ends with the useful detail (e.g. the missing file's name) */
        const char *detail = dbg ? strrchr(dbg, '\n') : NULL;
        detail = detail ? detail + 1 : "";
        set_err(c, KR_ERR_IO, "capture: %s reports: %s%s%s%s", GST_OBJECT_NAME(GST_MESSAGE_SRC(m)),
                e ? e->message : "unknown error", detail[0] ? " (" : "", detail, detail[0] ? ")" : "");
        KR_DEBUG("capture: %s", dbg ? dbg : "");
        g_clear_error(&e);
        g_free(dbg);
        gst_message_unref(m);
        return KR_ERR_IO;
    }
    return KR_OK;
}

static kr_status start_pipeline(kr_capture_t *c)
{
    GError *e = NULL;
    c->pipeline = gst_parse_launch(c->desc, &e);
    if (!c->pipeline || e) {
        kr_status st = set_err(c, KR_ERR_INVALID, "capture: bad pipeline \"%s\": %s", c->desc,
                               e ? e->message : "cannot be built");
        g_clear_error(&e);
        stop_pipeline(c);
        return st;
    }
    GstElement *sink = gst_bin_get_by_name(GST_BIN(c->pipeline), "kr_sink");
    if (!sink || !GST_IS_APP_SINK(sink)) {
        if (sink)
            gst_object_unref(sink);
        stop_pipeline(c);
        return set_err(c, KR_ERR_INVALID, "capture: pipeline \"%s\" has no appsink kr_sink", c->desc);
    }
    c->sink = GST_APP_SINK(sink);
    gst_app_sink_set_max_buffers(c->sink, (guint)c->cfg.max_buffers);
    gst_app_sink_set_drop(c->sink, c->cfg.drop ? TRUE : FALSE);
    g_object_set(sink, "sync", c->cfg.sync ? TRUE : FALSE, NULL);
    c->bus = gst_element_get_bus(c->pipeline);
    c->eos = 0;
    c->have_first = 0;
    c->last_offset = GST_BUFFER_OFFSET_NONE;
    if (gst_element_set_state(c->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        kr_status st = check_bus(c);
        if (st == KR_OK)
            set_err(c, KR_ERR_IO, "capture: pipeline \"%s\" would not start", c->desc);
        stop_pipeline(c);
        return KR_ERR_IO;
    }
    return KR_OK;
}

kr_status kr_capture_open(const char *pipeline_desc, kr_capture_t **out)
{
    return kr_capture_open2(pipeline_desc, NULL, out);
}

kr_status kr_capture_open2(const char *pipeline_desc, const kr_capture_config *cfg,
                           kr_capture_t **out)
{
    kr_status st;
    GError *e = NULL;
    kr_capture_t *c = NULL;

    open_error[0] = '\0';
    if (out)
        *out = NULL;
    if (!pipeline_desc || !*pipeline_desc || !out) {
        snprintf(open_error, sizeof open_error, "capture: no pipeline given");
        return KR_ERR_INVALID;
    }
    kr_media_avlog_init(); /* FFmpeg's setup: the conversion makes swscale contexts */
    if (!gst_init_check(NULL, NULL, &e)) {
        snprintf(open_error, sizeof open_error, "capture: GStreamer does not start: %s",
                 e ? e->message : "unknown");
        g_clear_error(&e);
        return KR_ERR_CODEC;
    }
    c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(open_error, sizeof open_error, "capture: out of memory");
        return KR_ERR_NOMEM;
    }
    if (cfg)
        c->cfg = *cfg;
    else
        kr_capture_config_default(&c->cfg);
    if (c->cfg.max_buffers < 0) {
        st = set_err(c, KR_ERR_INVALID, "capture: max_buffers must be >= 0");
        goto fail;
    }
    if (c->cfg.yuv)
        c->cfg.ff_convert = 1;
    if (c->cfg.ff_convert && (c->cfg.gray || c->cfg.out_w < 0 || c->cfg.out_h < 0)) {
        st = set_err(c, KR_ERR_INVALID, "capture: ff_convert and yuv need gray = 0 and out_w, out_h >= 0");
        goto fail;
    }
    const char *tail = c->cfg.yuv          ? " ! videoconvert ! video/x-raw,format=I420 ! appsink name=kr_sink"
                       : c->cfg.ff_convert ? " ! videoconvert ! " FF_CAPS " ! appsink name=kr_sink"
                       : c->cfg.gray     ? " ! videoconvert ! video/x-raw,format=GRAY8 ! appsink name=kr_sink"
                                         : " ! videoconvert ! video/x-raw,format=BGR ! appsink name=kr_sink";
    size_t n = strlen(pipeline_desc) + strlen(tail) + 1;
    c->desc = malloc(n);
    if (!c->desc) {
        st = set_err(c, KR_ERR_NOMEM, "capture: out of memory");
        goto fail;
    }
    snprintf(c->desc, n, "%s%s", pipeline_desc, tail);
    kr_media_gaps_reset(&c->gaps, 0);
    st = start_pipeline(c);
    if (st != KR_OK)
        goto fail;
    *out = c;
    return KR_OK;

fail:
    snprintf(open_error, sizeof open_error, "%s", c->err);
    kr_capture_destroy(c);
    return st;
}

kr_status kr_capture_reopen(kr_capture_t *c)
{
    if (!c)
        return KR_ERR_INVALID;
    stop_pipeline(c);
    /* the next pipeline's first frame continues the timeline after the outage */
    if (c->any_frame)
        c->t_offset_us = -1;
    return start_pipeline(c);
}

/* ---- ff_convert: the reader's conversion (kr_media_conv, the same code), applied to
 * the raw planes GStreamer hands over: the same YUV gives the same planes and BGR bytes. ---- */

static void buf_keep(void *opaque, uint8_t *data)
{
    (void)opaque, (void)data; /* the pixels belong to the GstBuffer */
}

/* The raw formats taken as they come (what decoders give: no conversion by GStreamer),
 * and their FFmpeg names; anything else is converted to I420 by videoconvert first. */
static const struct {
    GstVideoFormat gst;
    int            av;
} formats[] = {
    {GST_VIDEO_FORMAT_I420, AV_PIX_FMT_YUV420P},  {GST_VIDEO_FORMAT_NV12, AV_PIX_FMT_NV12},
    {GST_VIDEO_FORMAT_YUY2, AV_PIX_FMT_YUYV422},  {GST_VIDEO_FORMAT_Y42B, AV_PIX_FMT_YUV422P},
    {GST_VIDEO_FORMAT_Y444, AV_PIX_FMT_YUV444P},  {GST_VIDEO_FORMAT_BGRx, AV_PIX_FMT_BGR0},
    {GST_VIDEO_FORMAT_BGR, AV_PIX_FMT_BGR24},     {GST_VIDEO_FORMAT_RGB, AV_PIX_FMT_RGB24},
    {GST_VIDEO_FORMAT_RGBx, AV_PIX_FMT_RGB0},     {GST_VIDEO_FORMAT_GRAY8, AV_PIX_FMT_GRAY8},
};

/* Wraps the mapped sample in c->src (no copy). */
static kr_status wrap_sample(kr_capture_t *c, const GstVideoInfo *vi)
{
    int av = AV_PIX_FMT_NONE;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].gst == GST_VIDEO_INFO_FORMAT(vi))
            av = formats[i].av;
    if (av == AV_PIX_FMT_NONE)
        return set_err(c, KR_ERR_CODEC, "capture: unexpected frame format %s",
                       gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(vi)));
    if (!c->src && !(c->src = av_frame_alloc()))
        return set_err(c, KR_ERR_NOMEM, "capture: out of memory");
    av_buffer_unref(&c->src->buf[0]);
    c->src->buf[0] = av_buffer_create(c->map.data, c->map.size, buf_keep, NULL, 0);
    if (!c->src->buf[0])
        return set_err(c, KR_ERR_NOMEM, "capture: out of memory");
    c->src->width = c->cw = GST_VIDEO_INFO_WIDTH(vi);
    c->src->height = c->ch = GST_VIDEO_INFO_HEIGHT(vi);
    for (int k = 0; k < AV_NUM_DATA_POINTERS; k++) {
        c->src->data[k] = NULL;
        c->src->linesize[k] = 0;
    }
    for (guint k = 0; k < GST_VIDEO_INFO_N_PLANES(vi); k++) {
        int    comp_h = GST_VIDEO_INFO_COMP_HEIGHT(vi, k ? 1 : 0);
        size_t end = (size_t)GST_VIDEO_INFO_PLANE_OFFSET(vi, k) + (size_t)GST_VIDEO_INFO_PLANE_STRIDE(vi, k) * (size_t)comp_h;
        if (end > c->map.size)
            return set_err(c, KR_ERR_CODEC, "capture: frame buffer smaller than its caps say");
        c->src->data[k] = c->map.data + GST_VIDEO_INFO_PLANE_OFFSET(vi, k);
        c->src->linesize[k] = GST_VIDEO_INFO_PLANE_STRIDE(vi, k);
    }
    c->src->format = av;
    /* the reader's rule: BT.709 when tagged so, or untagged above SD heights */
    GstVideoColorMatrix mx = vi->colorimetry.matrix;
    c->spc = mx == GST_VIDEO_COLOR_MATRIX_BT709 || (mx == GST_VIDEO_COLOR_MATRIX_UNKNOWN && c->ch > 576)
                 ? SWS_CS_ITU709
                 : SWS_CS_ITU601;
    c->full_range = GST_VIDEO_INFO_IS_YUV(vi) && vi->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
    return KR_OK;
}

static kr_status conv_failed(kr_capture_t *c, int ret, const char *what)
{
    return set_err(c, ret == AVERROR(ENOMEM) ? KR_ERR_NOMEM : KR_ERR_CODEC, "capture: %s of %dx%d frames failed", what,
                   c->cw, c->ch);
}

/* The current sample (wrapped in c->src) as the configured frame: with the yuv option the
 * planes at the output size (scaled in YUV on this thread, one swscale thread, as the
 * reader's) and an empty img; else BGR converted now (swscale's automatic threads). */
static kr_status make_frame(kr_capture_t *c)
{
    int         dw = c->cfg.out_w ? c->cfg.out_w : c->cw, dh = c->cfg.out_h ? c->cfg.out_h : c->ch;
    const char *what = "";
    int         ret = kr_media_conv_set(&c->conv, c->src, c->spc, c->full_range, dw, dh, c->cfg.yuv, 1, &c->yuv, &what);
    c->have_bgr = 0;
    c->img = (kr_image_t){dw, dh, 0, 3, NULL};
    if (ret < 0)
        return conv_failed(c, ret, what);
    if (c->yuv.y)
        return KR_OK;
    return kr_capture_frame_bgr(c, &c->img);
}

kr_status kr_capture_frame_bgr(kr_capture_t *c, kr_image_t *out)
{
    if (!c || !out || !c->mapped)
        return KR_ERR_INVALID;
    if (!c->have_bgr) {
        const char *what = "";
        int         ret = kr_media_conv_bgr(&c->conv, 0, &c->img, &what);
        if (ret < 0)
            return conv_failed(c, ret, what);
        c->have_bgr = 1;
    }
    *out = c->img;
    return KR_OK;
}

kr_status kr_capture_current(kr_capture_t *c, kr_frame_t *out)
{
    if (!c || !out || !c->mapped)
        return KR_ERR_INVALID;
    out->img = c->img;
    out->yuv = c->yuv;
    out->t_us = c->cur_t_us;
    out->index = c->cur_index;
    out->gap_us = c->cur_gap_us;
    out->key = 0;
    return KR_OK;
}

kr_status kr_capture_frame_full(kr_capture_t *c, kr_image_t *out)
{
    if (!c || !out || !c->cfg.ff_convert || !c->mapped)
        return KR_ERR_INVALID;
    if (!c->have_full) {
        kr_yuv_t    none;
        const char *what = "";
        int         ret = kr_media_conv_set(&c->fconv, c->src, c->spc, c->full_range, c->cw, c->ch, 0, 0, &none, &what);
        if (ret < 0)
            return conv_failed(c, ret, what);
        c->have_full = 1;
    }
    const char *what = "";
    int         ret = kr_media_conv_bgr(&c->fconv, 0, out, &what);
    return ret < 0 ? conv_failed(c, ret, what) : KR_OK;
}

kr_status kr_capture_set_out_size(kr_capture_t *c, int out_w, int out_h, kr_image_t *cur)
{
    if (!c || !c->cfg.ff_convert || out_w < 0 || out_h < 0)
        return KR_ERR_INVALID;
    c->cfg.out_w = out_w;
    c->cfg.out_h = out_h;
    if (!c->mapped)
        return KR_OK;
    kr_status st = make_frame(c);
    if (st == KR_OK && cur)
        st = kr_capture_frame_bgr(c, cur);
    return st;
}

kr_status kr_capture_next(kr_capture_t *c, kr_frame_t *out, int timeout_ms)
{
    if (!c || !out)
        return KR_ERR_INVALID;
    release_sample(c);
    if (!c->pipeline)
        return set_err(c, KR_ERR_IO, "capture: pipeline is stopped (reopen it)");
    int64_t deadline = timeout_ms < 0 ? -1 : kr_clock_us() + (int64_t)timeout_ms * 1000;
    for (;;) {
        kr_status st = check_bus(c);
        if (st != KR_OK)
            return st;
        /* pull in short slices so a bus error is seen within ~20 ms */
        int64_t left = deadline < 0 ? 20000 : deadline - kr_clock_us();
        if (left < 0)
            left = 0;
        if (left > 20000)
            left = 20000;
        c->sample = gst_app_sink_try_pull_sample(c->sink, (GstClockTime)left * 1000);
        if (c->sample)
            break;
        if (gst_app_sink_is_eos(c->sink) || c->eos) {
            st = check_bus(c);
            return st != KR_OK ? st : KR_ERR_EOF;
        }
        if (deadline >= 0 && kr_clock_us() >= deadline)
            return KR_ERR_AGAIN;
    }

    c->buf = gst_sample_get_buffer(c->sample);
    GstCaps *caps = gst_sample_get_caps(c->sample);
    GstVideoInfo vi;
    if (!c->buf || !caps || !gst_video_info_from_caps(&vi, caps)) {
        release_sample(c);
        return set_err(c, KR_ERR_CODEC, "capture: a frame without video caps");
    }
    if (!gst_buffer_map(c->buf, &c->map, GST_MAP_READ)) {
        release_sample(c);
        return set_err(c, KR_ERR_CODEC, "capture: cannot map a frame");
    }
    c->mapped = 1;
    c->have_full = 0;
    if (c->cfg.ff_convert) {
        kr_status st = wrap_sample(c, &vi);
        if (st == KR_OK)
            st = make_frame(c);
        if (st != KR_OK) {
            release_sample(c);
            return st;
        }
        out->img = c->img;
        out->yuv = c->yuv;
    } else {
        out->img.w = GST_VIDEO_INFO_WIDTH(&vi);
        out->img.h = GST_VIDEO_INFO_HEIGHT(&vi);
        out->img.channels = c->cfg.gray ? 1 : 3;
        out->img.stride = GST_VIDEO_INFO_PLANE_STRIDE(&vi, 0);
        out->img.px = c->map.data + GST_VIDEO_INFO_PLANE_OFFSET(&vi, 0);
        if ((size_t)out->img.stride * (size_t)out->img.h > c->map.size) {
            release_sample(c);
            return set_err(c, KR_ERR_CODEC, "capture: frame buffer smaller than its caps say");
        }
        memset(&out->yuv, 0, sizeof out->yuv);
        c->img = out->img;
        c->have_bgr = 1;
    }

    /* time: running time of the buffer (what the clock says it is shown at) */
    int64_t now_us = kr_clock_us();
    GstClockTime rt = GST_CLOCK_TIME_NONE;
    GstSegment *seg = gst_sample_get_segment(c->sample);
    if (GST_BUFFER_PTS_IS_VALID(c->buf))
        rt = seg ? gst_segment_to_running_time(seg, GST_FORMAT_TIME, GST_BUFFER_PTS(c->buf))
                 : GST_BUFFER_PTS(c->buf);
    c->age_us = -1;
    GstClock *clk = gst_element_get_clock(c->pipeline);
    if (clk) {
        GstClockTime now = gst_clock_get_time(clk), base = gst_element_get_base_time(c->pipeline);
        if (GST_CLOCK_TIME_IS_VALID(rt) && now >= base)
            c->age_us = ((int64_t)(now - base) - (int64_t)rt) / 1000;
        gst_object_unref(clk);
    }
    int64_t t;
    if (!c->have_first) {
        int fps_n = GST_VIDEO_INFO_FPS_N(&vi), fps_d = GST_VIDEO_INFO_FPS_D(&vi);
        if (!c->any_frame)
            kr_media_gaps_reset(&c->gaps, fps_n > 0 && fps_d > 0 ? (int64_t)1000000 * fps_d / fps_n : 0);
        c->first_rt = rt;
        c->have_first = 1;
        if (c->t_offset_us < 0) /* first frame after a reopen */
            c->t_offset_us = c->last_t_us + (now_us - c->last_wall_us);
        t = c->t_offset_us;
    } else if (GST_CLOCK_TIME_IS_VALID(rt) && GST_CLOCK_TIME_IS_VALID(c->first_rt)) {
        /* to the nearest microsecond, as the file reader rescales container times */
        int64_t dns = (int64_t)rt - (int64_t)c->first_rt;
        t = c->t_offset_us + (dns >= 0 ? (dns + 500) / 1000 : -((-dns + 500) / 1000));
    } else { /* no timestamps: fall back to arrival time */
        t = c->last_t_us + (now_us - c->last_wall_us);
    }
    if (c->any_frame && t <= c->last_t_us)
        t = c->last_t_us + 1; /* never go back */
    guint64 off = GST_BUFFER_OFFSET(c->buf);
    if (off != GST_BUFFER_OFFSET_NONE && c->last_offset != GST_BUFFER_OFFSET_NONE && off > c->last_offset + 1)
        c->dropped += (int64_t)(off - c->last_offset - 1);
    c->last_offset = off;
    out->t_us = t;
    out->index = c->index++;
    out->gap_us = kr_media_gaps_feed(&c->gaps, t);
    out->key = 0; /* a camera's raw frames: no codec between (a decoded stream's keyframes are not told) */
    c->cur_t_us = t;
    c->cur_index = out->index;
    c->cur_gap_us = out->gap_us;
    c->last_t_us = t;
    c->last_wall_us = now_us;
    c->any_frame = 1;
    return KR_OK;
}

kr_status kr_capture_pause(kr_capture_t *c, int pause)
{
    if (!c || !c->pipeline)
        return KR_ERR_INVALID;
    if (gst_element_set_state(c->pipeline, pause ? GST_STATE_PAUSED : GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
        return set_err(c, KR_ERR_IO, "capture: the pipeline would not %s", pause ? "pause" : "resume");
    return KR_OK;
}

int64_t kr_capture_dropped(const kr_capture_t *c) { return c ? c->dropped : 0; }

int64_t kr_capture_frame_age_us(const kr_capture_t *c) { return c ? c->age_us : -1; }

const char *kr_capture_error(const kr_capture_t *c) { return c ? c->err : open_error; }

void kr_capture_destroy(kr_capture_t *c)
{
    if (!c)
        return;
    stop_pipeline(c);
    kr_media_conv_free(&c->conv);
    kr_media_conv_free(&c->fconv);
    av_frame_free(&c->src);
    free(c->desc);
    free(c);
}
