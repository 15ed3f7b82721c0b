/* kr_error.c - shared helpers for module error text: one-line formatted
 * messages into a caller's buffer, and a checked string copy.
 * SPDX-License-Identifier: MIT */
#include "kr_core.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

kr_status kr_error_setv(char *buf, size_t cap, kr_status st, const char *fmt, va_list ap)
{
    if (!buf || cap == 0)
        return st;
    vsnprintf(buf, cap, fmt, ap);
    for (char *p = buf; *p; p++) /* one line */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return st;
}

kr_status kr_error_set(char *buf, size_t cap, kr_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kr_error_setv(buf, cap, st, fmt, ap);
    va_end(ap);
    return st;
}

char *kr_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char  *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}
