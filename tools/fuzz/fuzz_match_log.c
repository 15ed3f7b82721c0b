/* fuzz_match_log.c - libFuzzer target: arbitrary bytes as a match log, read line by line
 * with kr_json_read_record, fed to the rules engine, rulings written back to JSON.
 * Build: tools/fuzz/smoke.sh (clang, -Dfuzz=true). SPDX-License-Identifier: MIT */
#include "kr_json.h"
#include "kr_rules.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kr_rules_state st;
static kr_rules_record rec;
static kr_rules_output out;

static void drain(void)
{
    while (kr_rules_next(&st, &out)) {
        char *s = kr_json_output_string(&out);
        free(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[KR_JSON_ERR_MAX];
    kr_rules_config cfg;
    kr_rules_config_default(&cfg);
    /* let the first byte pick a tie tolerance so that path is explored too */
    if (size > 0 && data[0] < 8)
        cfg.tie_us = (int64_t)data[0] * 10000;
    kr_rules_reset(&st, &cfg);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (!kr_json_is_blank(p, len)) {
            if (kr_json_read_record(p, len, &rec, err, sizeof err) != KR_OK)
                return 0;
            /* what the reader accepted must survive a write/read round trip */
            char *s = kr_json_record_string(&rec);
            if (s) {
                static kr_rules_record back;
                if (kr_json_read_record(s, strlen(s), &back, err, sizeof err) != KR_OK ||
                    back.type != rec.type || back.t_us != rec.t_us || back.card != rec.card)
                    abort();
                free(s);
            }
            if (kr_rules_feed(&st, &rec) != KR_RULES_OK)
                return 0;
            drain();
        }
        p += len + 1;
    }
    kr_rules_finish(&st);
    drain();
    return 0;
}
