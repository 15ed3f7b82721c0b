/* kr_avlog.c - FFmpeg's process-wide setup: its log lines kept off stderr and available
 * for error texts, and its choice of SIMD code told that AMD processors gather slowly.
 * SPDX-License-Identifier: MIT */
#include "kr_media_internal.h"

#include <libavutil/cpu.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char avlog_last[256];
static pthread_once_t avlog_once = PTHREAD_ONCE_INIT;

static void avlog_cb(void *avcl, int level, const char *fmt, va_list ap)
{
    (void)avcl;
    if (level > AV_LOG_WARNING)
        return;
    char line[256];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    if (level <= AV_LOG_ERROR && n > 0)
        memcpy(avlog_last, line, n + 1);
    KR_DEBUG("ffmpeg: %s", line);
}

static void avlog_install(void)
{
    av_log_set_callback(avlog_cb);
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    /* swscale's AVX2 horizontal scaler is built on vpgatherdd, slow on AMD cores: on this
     * project's machine (AMD EPYC) 1280x720 -> 640x360 bilinear took 0.33 ms against
     * 0.29 ms with its SSSE3 scaler (the same bytes: FFmpeg's SIMD variants are exact),
     * and analyze 5 % less CPU. FFmpeg itself flags only older AMD cores. Set before any
     * codec or scaler context is made (they pick their functions when made). */
    __builtin_cpu_init();
    if (__builtin_cpu_is("amd"))
        av_force_cpu_flags(av_get_cpu_flags() | AV_CPU_FLAG_SLOW_GATHER);
#endif
}

void kr_media_avlog_init(void) { pthread_once(&avlog_once, avlog_install); }
const char *kr_media_avlog_last(void) { return avlog_last; }
void kr_media_avlog_clear(void) { avlog_last[0] = '\0'; }

const char *kr_media_averr(int err, char *buf, size_t n)
{
    if (av_strerror(err, buf, n) < 0)
        snprintf(buf, n, "FFmpeg error %d", err);
    return buf;
}

const char *kr_media_ff_detail(int ret, char *buf, size_t n)
{
    char e[128];
    kr_media_averr(ret, e, sizeof e);
    const char *last = kr_media_avlog_last();
    if (last[0])
        snprintf(buf, n, "%s (%s)", e, last);
    else
        snprintf(buf, n, "%s", e);
    return buf;
}
