/* kr_log.c - one-line diagnostics on stderr.
 * SPDX-License-Identifier: MIT */
#include "kr_core.h"
#include <stdarg.h>

static const char  *log_program = "karuta-ref";
static kr_log_level log_min = KR_LOG_WARN;

void kr_log_set_program(const char *name) { log_program = name ? name : "karuta-ref"; }
void kr_log_set_level(kr_log_level min_level) { log_min = min_level; }

void kr_log(kr_log_level level, const char *fmt, ...)
{
    if (level < log_min)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", log_program);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
