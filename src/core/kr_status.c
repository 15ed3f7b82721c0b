/* kr_status.c - status strings and the monotonic clock.
 * SPDX-License-Identifier: MIT */
#include "kr_core.h"
#include <time.h>

const char *kr_status_str(kr_status s)
{
    switch (s) {
    case KR_OK: return "ok";
    case KR_ERR_NOMEM: return "out of memory";
    case KR_ERR_INVALID: return "invalid input";
    case KR_ERR_IO: return "input/output error";
    case KR_ERR_FORMAT: return "malformed data";
    case KR_ERR_CODEC: return "codec error";
    case KR_ERR_CV: return "vision library error";
    case KR_ERR_EOF: return "end of data";
    case KR_ERR_AGAIN: return "try again";
    }
    return "unknown status";
}

int64_t kr_clock_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
