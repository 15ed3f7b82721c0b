/* kr_app_opts.c - option values for the clip, review and live commands (kr_app_opts.h):
 * numbers checked whole (no trailing text, finite, in range) with one error wording.
 * SPDX-License-Identifier: MIT */
#include "kr_app_opts.h"
#include "kr_core.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value after the option argv[*i], advancing *i; NULL after one line on stderr when
 * there is none. The result points into argv. */
static const char *opt_value(const char *cmd, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        kr_log(KR_LOG_ERROR, "%s: %s needs a value (see karuta-ref %s --help)", cmd, argv[*i], cmd);
        return NULL;
    }
    return argv[++*i];
}

int kr_app_opt_double(const char *cmd, const char *opt, const char *val, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double d = val ? strtod(val, &end) : NAN;
    if (!val || end == val || *end || errno || !isfinite(d) || d < lo || d > hi) {
        kr_log(KR_LOG_ERROR, "%s: %s: bad value '%s' (a number from %g to %g)", cmd, opt, val ? val : "", lo, hi);
        return 2;
    }
    *out = d;
    return 0;
}

int kr_app_opt_int(const char *cmd, const char *opt, const char *val, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = val ? strtoll(val, &end, 10) : 0;
    if (!val || end == val || *end || errno || v < lo || v > hi) {
        kr_log(KR_LOG_ERROR, "%s: %s: bad value '%s' (a whole number from %lld to %lld)", cmd, opt, val ? val : "", lo,
               hi);
        return 2;
    }
    *out = v;
    return 0;
}

/* One line on stderr naming the unknown option; returns 2. */
static int opt_unknown(const char *cmd, const char *opt)
{
    kr_log(KR_LOG_ERROR, "%s: unknown option '%s' (see karuta-ref %s --help)", cmd, opt, cmd);
    return 2;
}

int kr_app_opt_next(const char *cmd, const kr_app_opt *table, int argc, char **argv, int *i, const char **val)
{
    const char *a = argv[*i];
    *val = NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
        return KR_APP_OPT_HELP;
    if (a[0] != '-' || !a[1]) {
        *val = a;
        return KR_APP_OPT_ARG;
    }
    for (const kr_app_opt *o = table; o->name; o++) {
        if (strcmp(a, o->name) && (!o->alias || strcmp(a, o->alias)))
            continue;
        if (o->has_value && !(*val = opt_value(cmd, argc, argv, i)))
            return KR_APP_OPT_BAD;
        return o->key;
    }
    opt_unknown(cmd, a);
    return KR_APP_OPT_BAD;
}
