/* kr_avlog.c - keeps FFmpeg's log lines off stderr and available for error texts.
 * SPDX-License-Identifier: MIT */
#include "kr_media_internal.h"

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

static void avlog_install(void) { av_log_set_callback(avlog_cb); }

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
