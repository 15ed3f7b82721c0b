/* kr_cmd_rule.c - karuta-ref rule LOG.jsonl: rule a match log, print each ruling
 * as soon as it is final (one JSON line, flushed), per docs/spec/cli.md.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"
#include "kr_json.h"
#include "kr_rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: karuta-ref rule LOG.jsonl [--tie-us N] [--mora-us N]\n"
            "  Rules a match log (karuta-match/1; '-' reads stdin) and prints one ruling\n"
            "  per reading (karuta-rulings/1) on stdout as soon as it is final.\n"
            "  --tie-us N   touches of both players within N us are simultaneous (default 0)\n"
            "  --mora-us N  one kana lasts N us when a reading has no kimariji record\n"
            "               (default 250000)\n");
}

/* Parses a non-negative integer option value; false on junk. */
static int parse_us(const char *s, int64_t *out)
{
    char *end = NULL;
    if (!s || !*s || *s == '-')
        return 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < 0)
        return 0;
    *out = v;
    return 1;
}

static int drain(kr_rules_state *st, kr_rules_output *out)
{
    while (kr_rules_next(st, out)) {
        if (kr_json_write_output(stdout, out) != KR_OK || fflush(stdout) != 0) {
            kr_log(KR_LOG_ERROR, "rule: cannot write the rulings to stdout");
            return 0;
        }
    }
    return 1;
}

int kr_cmd_rule(int argc, char **argv)
{
    const char *path = NULL;
    kr_rules_config cfg;
    kr_rules_config_default(&cfg);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--tie-us") || !strcmp(a, "--mora-us")) {
            int64_t v;
            if (i + 1 >= argc || !parse_us(argv[i + 1], &v) || (!strcmp(a, "--mora-us") && v == 0) ||
                v > KR_RULES_MAX_CONFIG_US) {
                kr_log(KR_LOG_ERROR, "rule: %s needs an integer from %d to 1000000000 (microseconds)", a,
                       strcmp(a, "--mora-us") ? 0 : 1);
                return 2;
            }
            if (!strcmp(a, "--tie-us"))
                cfg.tie_us = v;
            else
                cfg.mora_us = v;
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            kr_log(KR_LOG_ERROR, "rule: unknown option '%s' (see karuta-ref rule --help)", a);
            return 2;
        } else if (path) {
            kr_log(KR_LOG_ERROR, "rule: more than one log given ('%s' and '%s')", path, a);
            return 2;
        } else {
            path = a;
        }
    }
    if (!path) {
        kr_log(KR_LOG_ERROR, "rule: no match log given (usage: karuta-ref rule LOG.jsonl)");
        return 2;
    }

    int rc = 1;
    FILE *in = NULL;
    char *line = NULL;
    size_t cap = 0;
    kr_rules_state *st = NULL;
    kr_rules_record *rec = NULL;
    kr_rules_output *out = NULL;
    const char *name = strcmp(path, "-") ? path : "<stdin>";

    in = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!in) {
        kr_log(KR_LOG_ERROR, "%s: cannot open: %s", path, strerror(errno));
        goto fail;
    }
    st = malloc(sizeof *st);
    rec = malloc(sizeof *rec);
    out = malloc(sizeof *out);
    if (!st || !rec || !out) {
        kr_log(KR_LOG_ERROR, "rule: out of memory");
        goto fail;
    }
    if (kr_rules_reset(st, &cfg) != KR_RULES_OK) {
        kr_log(KR_LOG_ERROR, "rule: %s", kr_rules_last_error(st));
        goto fail;
    }
    long lineno = 0;
    ssize_t n;
    char err[KR_JSON_ERR_MAX];
    while ((n = getline(&line, &cap, in)) >= 0) {
        lineno++;
        if (kr_json_is_blank(line, (size_t)n))
            continue;
        if (kr_json_read_record(line, (size_t)n, rec, err, sizeof err) != KR_OK) {
            kr_log(KR_LOG_ERROR, "%s:%ld: %s", name, lineno, err);
            goto fail;
        }
        if (kr_rules_feed(st, rec) != KR_RULES_OK) {
            kr_log(KR_LOG_ERROR, "%s:%ld: %s", name, lineno, kr_rules_last_error(st));
            goto fail;
        }
        if (!drain(st, out))
            goto fail;
    }
    if (ferror(in)) {
        kr_log(KR_LOG_ERROR, "%s:%ld: read error: %s", name, lineno + 1, strerror(errno));
        goto fail;
    }
    if (lineno == 0) {
        kr_log(KR_LOG_ERROR, "%s: empty match log (no match record)", name);
        goto fail;
    }
    kr_rules_finish(st);
    if (!drain(st, out))
        goto fail;
    rc = 0;
fail:
    if (in && in != stdin)
        fclose(in);
    free(line);
    free(st);
    free(rec);
    free(out);
    return rc;
}
