/* kr_media_internal.h - helpers shared by kr_decode.c and kr_encode.c (not public).
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

#endif /* KR_MEDIA_INTERNAL_H */
