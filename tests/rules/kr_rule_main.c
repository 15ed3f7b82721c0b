/* kr_rule_main.c - `karuta-ref-rule rule ...`: the `karuta-ref rule` command (the same
 * kr_cmd_rule.c) linked without the video stack, so the conformance checks do not pay
 * the start-up of ~240 shared libraries per case. SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"

#include <string.h>

int main(int argc, char **argv)
{
    kr_log_set_program("karuta-ref");
    if (argc < 2 || strcmp(argv[1], "rule") != 0) {
        kr_log(KR_LOG_ERROR, "usage: karuta-ref-rule rule LOG.jsonl [--tie-us N] [--mora-us N]");
        return 2;
    }
    return kr_cmd_rule(argc - 1, argv + 1);
}
