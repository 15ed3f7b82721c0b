/* kr_cmd_rule.c - karuta-ref rule (not implemented yet).
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"

int kr_cmd_rule(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    kr_log(KR_LOG_ERROR, "rule: not implemented yet");
    return 1;
}
